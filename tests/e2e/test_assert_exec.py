"""test_assert_exec.py - under `mokka assert` (the API-server stand-in) a
case with an exec step is an ERROR that says commands need `mokka run`, the
run exits 3, and the other cases are still checked."""
import os
import subprocess
import xml.dom.minidom

import kubetest
from test_assert import MOKKA

SUITE = """\
cases:
  - name: runs nvidia-smi
    exec: {command: [nvidia-smi, -L]}
    expect: {exit: 0}
  - name: still checked
    expect: {capacity: 8}
"""


class AssertExecTest(kubetest.KubeTestCase):

    def test_exec_is_an_error_that_names_mokka_run(self):
        self.server()
        suite = os.path.join(self.dir, "s.yaml")
        with open(suite, "w") as f:
            f.write(SUITE)
        out = os.path.join(self.dir, "r.xml")
        r = subprocess.run([MOKKA, "assert", "--kubeconfig", self.kubeconfig(), "--node", "gpu-1",
                            "--suite", suite, "--junit", out], capture_output=True, text=True,
                           env=self.env(NO_COLOR="1"), timeout=60 * kubetest.SLOW)
        self.assertEqual(r.returncode, 3, r.stderr)
        doc = xml.dom.minidom.parse(out)
        errors = doc.getElementsByTagName("error")
        self.assertEqual(len(errors), 1)
        self.assertEqual(errors[0].getAttribute("type"), "action")
        self.assertEqual(errors[0].getAttribute("message"),
                         "cannot exec 'nvidia-smi -L': commands run in the GPU-node sandbox of "
                         "mokka run; the API server has none")
        self.assertEqual(len(doc.getElementsByTagName("failure")), 0)


if __name__ == "__main__":
    import unittest
    unittest.main()
