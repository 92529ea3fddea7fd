"""test_assert.py - `mokka assert` and `mokka run --kubeconfig` (cluster mode)
end to end, against the stand-in API server on loopback
(tests/standins/fake_apiserver.py): exit codes, one result per node and
case, `within:` for changes that arrive later, variables, errors, and
secrets kept out of the output."""
import os
import shutil
import subprocess
import threading
import time
import unittest
import xml.dom.minidom

import kubetest
from kubetest import TOKEN

MOKKA = os.path.join(kubetest.BUILD, "mokka")
PLUGIN = os.path.join(kubetest.BUILD, "build", "tests", "fake-device-plugin")

GPU_NODE_SUITE = """\
suite: gpu-nodes
cases:
  - name: node is Ready
    expect:
      condition: {type: Ready, status: "True"}
  - name: GPUs advertised
    expect:
      resource: nvidia.com/gpu
      capacity: ">=1"
      allocatable: ">=1"
  - name: labelled by feature discovery
    expect:
      label:
        nvidia.com/gpu.present: "true"
"""


class AssertTest(kubetest.KubeTestCase):
    def write(self, name, text):
        path = os.path.join(self.dir, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def mokka(self, *args, timeout=60):
        return subprocess.run([MOKKA, *args], capture_output=True, text=True,
                              env=self.env(NO_COLOR="1"), timeout=timeout * kubetest.SLOW)

    def junit(self, path):
        return xml.dom.minidom.parse(path)

    def test_passes_on_a_gpu_node(self):
        self.server()
        suite = self.write("s.yaml", GPU_NODE_SUITE)
        out = os.path.join(self.dir, "r.xml")
        r = self.mokka("assert", "--kubeconfig", self.kubeconfig(), "--node", "gpu-1",
                       "--suite", suite, "--junit", out)
        self.assertEqual(r.returncode, 0, r.stderr)
        doc = self.junit(out)
        self.assertEqual(len(doc.getElementsByTagName("testcase")), 3)
        self.assertEqual(doc.documentElement.getAttribute("failures"), "0")
        self.assertIn("1 list,", r.stderr)

    def test_failure_exits_1_with_the_values_seen(self):
        self.server()
        suite = self.write("s.yaml", "cases:\n  - name: sixteen\n    expect: {capacity: 16}\n")
        out = os.path.join(self.dir, "r.xml")
        r = self.mokka("assert", "--kubeconfig", self.kubeconfig(), "--suite", suite,
                       "--junit", out)
        self.assertEqual(r.returncode, 1, r.stderr)
        failures = self.junit(out).getElementsByTagName("failure")
        self.assertEqual(len(failures), 1)
        self.assertIn("8", failures[0].getAttribute("message") + failures[0].toxml())

    def test_one_result_per_node_with_a_selector(self):
        srv = self.server(nodes=())
        for n in ("gpu-a", "gpu-b", "gpu-c"):
            srv.add_node(n, labels={"pool": "gpu"})
        srv.add_node("cpu-1", gpus=0, labels={"pool": "cpu"})
        suite = self.write("s.yaml", GPU_NODE_SUITE)
        out = os.path.join(self.dir, "r.xml")
        r = self.mokka("assert", "--kubeconfig", self.kubeconfig(), "--selector", "pool=gpu",
                       "--suite", suite, "--junit", out)
        self.assertEqual(r.returncode, 0, r.stderr)
        cases = self.junit(out).getElementsByTagName("testcase")
        self.assertEqual(len(cases), 9)
        names = " ".join(c.getAttribute("name") for c in cases)
        for n in ("gpu-a", "gpu-b", "gpu-c"):
            self.assertIn(n, names)
        self.assertNotIn("cpu-1", names)

    def test_within_sees_a_later_change(self):
        srv = self.server()
        srv.set_allocatable("gpu-1", value=8)
        suite = self.write("s.yaml", "cases:\n  - name: one GPU goes\n"
                           "    expect: {allocatable: 7}\n    within: 20s\n")
        threading.Timer(1.0, lambda: srv.set_allocatable("gpu-1", value=7)).start()
        r = self.mokka("assert", "--kubeconfig", self.kubeconfig(), "--node", "gpu-1",
                       "--suite", suite)
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_variables_from_config_and_var(self):
        self.server()
        cfg = self.write("c.yaml", "profile: a100-sxm4-40gb\ncount: 8\n")
        suite = self.write("s.yaml", "cases:\n  - name: every GPU\n"
                           "    expect: {capacity: \"${gpus}\", allocatable: \"${want}\"}\n")
        r = self.mokka("assert", "--kubeconfig", self.kubeconfig(), "--config", cfg,
                       "--var", "want=8", "--suite", suite)
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_long_var_names_do_not_collide(self):
        # Once cut at 127 bytes: two names that shared them collided (the
        # second value won) and ${whole name} was unknown, exit 3.
        self.server()
        eight, seven, label = "v" * 130 + "-eight", "v" * 130 + "-seven", "L" * 300
        suite = self.write("s.yaml", "cases:\n  - name: counts\n"
                           "    expect: {capacity: \"${%s}\", allocatable: \"${%s}\"}\n"
                           "  - name: a string\n"
                           "    expect: {label: {nvidia.com/gpu.present: \"${%s}\"}}\n"
                           % (eight, eight, label))
        r = self.mokka("assert", "--kubeconfig", self.kubeconfig(), "--node", "gpu-1",
                       "--var", eight + "=8", "--var", seven + "=7", "--var", label + "=true",
                       "--suite", suite)
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_var_name_that_no_reference_can_name_is_a_usage_error(self):
        r = self.mokka("assert", "--suite", "s.yaml", "--var", "two words=1")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("--var 'two words': a name has only letters, digits, '.', '_' and '-'",
                      r.stderr)

    def test_junit_to_a_fifo_nobody_reads_is_an_error_not_a_hang(self):
        # Once open() waited for a reader for ever, past --timeout.
        self.server()
        suite = self.write("s.yaml", GPU_NODE_SUITE)
        fifo = os.path.join(self.dir, "r.xml")
        os.mkfifo(fifo)
        r = self.mokka("assert", "--kubeconfig", self.kubeconfig(), "--node", "gpu-1",
                       "--suite", suite, "--junit", fifo, "--timeout", "5s")
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertIn("mokka assert: cannot write %s: no process opened it for reading "
                      "within 5 s" % fifo, r.stderr)

    def test_long_unknown_variable_without_config_is_an_error_not_a_crash(self):
        # Once a stack overflow: SIGSEGV, exit 139, no JUnit.
        self.server()
        suite = self.write("s.yaml", "cases:\n  - name: c\n"
                           "    expect: {capacity: \"${%s}\"}\n" % ("A" * 600))
        self.assertEqual(self.mokka("lint", suite).returncode, 0)
        out = os.path.join(self.dir, "r.xml")
        r = self.mokka("assert", "--kubeconfig", self.kubeconfig(), "--suite", suite,
                       "--junit", out)
        self.assertEqual(r.returncode, 3, r.stderr)
        errors = self.junit(out).getElementsByTagName("error")
        self.assertEqual(len(errors), 1)
        self.assertIn("A...} (this environment defines none)", errors[0].getAttribute("message"))

    def test_no_matching_node_is_an_error(self):
        self.server()
        suite = self.write("s.yaml", GPU_NODE_SUITE)
        out = os.path.join(self.dir, "r.xml")
        r = self.mokka("assert", "--kubeconfig", self.kubeconfig(), "--selector", "pool=none",
                       "--suite", suite, "--junit", out, "--timeout", "2s")
        self.assertEqual(r.returncode, 3, r.stderr)
        errors = self.junit(out).getElementsByTagName("error")
        self.assertTrue(any("pool=none" in e.getAttribute("message") for e in errors))

    def test_unreachable_cluster_exits_3_with_a_report(self):
        self.server()
        cfg = self.kubeconfig(server="https://127.0.0.1:1")
        suite = self.write("s.yaml", GPU_NODE_SUITE)
        out = os.path.join(self.dir, "r.xml")
        r = self.mokka("assert", "--kubeconfig", cfg, "--suite", suite, "--junit", out)
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertTrue(self.junit(out).getElementsByTagName("error"))

    def test_usage_and_suite_errors_exit_2(self):
        self.assertEqual(self.mokka("assert").returncode, 2)
        self.assertEqual(self.mokka("assert", "--suite").returncode, 2)
        bad = self.write("bad.yaml", "cases:\n  - name: x\n    expect: {capacty: 1}\n")
        r = self.mokka("assert", "--suite", bad)
        self.assertEqual(r.returncode, 2)
        self.assertIn("bad.yaml:3:14: error: unknown key 'capacty'", r.stderr)

    def test_tokens_never_printed(self):
        self.server()
        user = {"token": TOKEN}
        suite = self.write("s.yaml", GPU_NODE_SUITE)
        r = self.mokka("assert", "--kubeconfig", self.kubeconfig(user=user), "--suite", suite,
                       "--verbose", "--report", "json")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn(TOKEN, r.stdout + r.stderr)
        self.assertIn("redacted", r.stderr)


@unittest.skipUnless(os.geteuid() == 0 and shutil.which("unshare"),
                     "cluster-mode run needs root for a private /var/lib/kubelet")
class ClusterRunTest(AssertTest):
    """`mokka run --kubeconfig`: the plugin under the node's kubelet, checks
    through the API server. The test plays the kubelet's part on the API
    server side (capacity appears when the plugin has started) inside a
    private mount namespace, so the host's /var/lib/kubelet is untouched."""

    def run_in_namespace(self, *args, kubelet_dir=True, timeout=90):
        # A tmpfs over /var/lib: directories made for the run never reach the host.
        setup = "mount -t tmpfs mokka /var/lib && " + \
                ("mkdir -p /var/lib/kubelet/device-plugins && " if kubelet_dir else "")
        cmd = setup + 'exec "$@"'
        return subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c", cmd, "sh",
                               MOKKA, *args], capture_output=True, text=True,
                              env=self.env(NO_COLOR="1"), timeout=timeout * kubetest.SLOW)

    def test_run_waits_for_the_node_and_runs_the_suite(self):
        if not os.access(PLUGIN, os.X_OK):
            self.skipTest(f"{PLUGIN} not built")
        srv = self.server(nodes=())
        srv.add_node("gpu-1", gpus=0)
        suite = self.write("s.yaml", "cases:\n  - name: every GPU\n"
                           "    expect: {capacity: \"${gpus}\", allocatable: \"${gpus}\"}\n")
        cfg = self.write("c.yaml", "profile: a100-sxm4-40gb\ncount: 8\n")

        def kubelet_reports():
            srv.set_capacity("gpu-1", value=8)
            srv.set_allocatable("gpu-1", value=8)
        threading.Timer(1.5, kubelet_reports).start()
        out = os.path.join(self.dir, "r.xml")
        r = self.run_in_namespace("run", "--kubeconfig", self.kubeconfig(), "--node", "gpu-1",
                                  "--config", cfg, "--suite", suite, "--junit", out,
                                  "--plugin", PLUGIN)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("under the node's kubelet", r.stderr)
        self.assertEqual(self.junit(out).documentElement.getAttribute("failures"), "0")

    def test_run_without_a_kubelet_exits_3(self):
        if not os.access(PLUGIN, os.X_OK):
            self.skipTest(f"{PLUGIN} not built")
        self.server()
        r = self.run_in_namespace("run", "--kubeconfig", self.kubeconfig(), "--node", "gpu-1",
                                  "--plugin", PLUGIN, kubelet_dir=False)
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertIn("/var/lib/kubelet/device-plugins does not exist", r.stderr)

    def test_run_timeout_holds_against_a_silent_server(self):
        if not os.access(PLUGIN, os.X_OK):
            self.skipTest(f"{PLUGIN} not built")
        silent = kubetest.fa.SilentServer()
        out = os.path.join(self.dir, "r.xml")
        try:
            t0 = time.monotonic()
            r = self.run_in_namespace("run", "--kubeconfig", self.kubeconfig(server=silent.url),
                                      "--node", "gpu-1", "--plugin", PLUGIN, "--timeout", "1s",
                                      "--junit", out)
            elapsed = time.monotonic() - t0
        finally:
            silent.stop()
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertIn("gave up: the deadline came first", r.stderr)
        self.assertTrue(self.junit(out).getElementsByTagName("error"))
        self.assertLess(elapsed, 5 * kubetest.SLOW)       # it took 10 s

    # The AssertTest cases are not repeated here.
    test_passes_on_a_gpu_node = test_failure_exits_1_with_the_values_seen = None
    test_one_result_per_node_with_a_selector = test_within_sees_a_later_change = None
    test_variables_from_config_and_var = test_no_matching_node_is_an_error = None
    test_unreachable_cluster_exits_3_with_a_report = test_usage_and_suite_errors_exit_2 = None
    test_tokens_never_printed = None


if __name__ == "__main__":
    unittest.main()
