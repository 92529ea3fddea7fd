"""test_run_rig_heal.py - the DaemonSet's command, `mokka run --cluster
--hold` with the built-in cluster suite, under the real kubelet v1.20 and
API server of the rig (../shared/rig, MOKKA_RIG): the suite passes and
leaves node rig-node-1 at full strength (8 nvidia.com/gpu allocatable);
held, an XID takes one GPU out of the Node's allocatable and `mokka inject
--healthy` brings it back (the held run restarts the plugin, which
registers again with the kubelet). With the stand-in plugin, and with
NVIDIA's when MOKKA_DEVICE_PLUGIN names it.

The rig is shared: this test never starts or stops it (it skips, saying
so, when it is not up) and skips when something else serves nvidia.com/gpu
on the node. Needs root. Prints how long the Node took to show each GPU
back (the kubelet updates the Node every 10 s)."""
import json
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import unittest

from cli_support import MOKKA, MOCK_VARS, SAN
from test_run import FAKE, REAL

RIG = os.environ.get("MOKKA_RIG", "")
NODE = os.environ.get("NODE_NAME", "rig-node-1")
DP_DIR = "/var/lib/kubelet/device-plugins"
GPU = "nvidia.com/gpu"


def rig_missing():
    if not RIG:
        return "set MOKKA_RIG to the rig ../shared/rig builds (e.g. /var/cache/mokka-rig)"
    if os.geteuid() != 0:
        return "the rig's kubelet directory is root's"
    kubectl = os.path.join(RIG, "bin", "kubectl")
    if not os.access(kubectl, os.X_OK):
        return f"MOKKA_RIG={RIG} holds no built rig (bin/kubectl)"
    if not os.path.exists(os.path.join(DP_DIR, "kubelet.sock")):
        return f"the rig's kubelet is not up (no {DP_DIR}/kubelet.sock): $MOKKA_RIG/kubelet/up.sh"
    return None


class RigHeal(unittest.TestCase):
    def setUp(self):
        why = rig_missing()
        if why:
            self.skipTest(why)
        if SAN:
            self.skipTest(f"plugins built without {SAN} cannot load this build's library")
        self.kubeconfig = os.path.join(RIG, "apiserver", "kubeconfig-token.yaml")
        try:
            node = self.node()
        except subprocess.SubprocessError as e:
            self.skipTest(f"the rig's API server does not answer: {e}")
        # A plugin serving nvidia.com/gpu listens there (the Node keeps its
        # last count for a while after one stops).
        served = [f for f in os.listdir(DP_DIR) if f.startswith("nvidia")]
        if served or node["metadata"]["labels"].get("mokka.io/virtual-gpus") == "true":
            who = ", ".join(served) or "the node is labelled for the DaemonSet"
            self.skipTest(f"something else serves {GPU} on {NODE} ({who}): the rig is shared")
        self.env = {k: v for k, v in os.environ.items() if k not in MOCK_VARS}
        runtime = tempfile.mkdtemp(prefix="mokka-rig-heal-")
        self.addCleanup(shutil.rmtree, runtime, True)
        self.env.update(MOKKA_RUNTIME_DIR=runtime)
        self.proc, self.lines = None, []

    def tearDown(self):
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        if self.proc:
            self.proc.stderr.close()

    def node(self):
        out = subprocess.run([os.path.join(RIG, "bin", "kubectl"), "--kubeconfig", self.kubeconfig,
                              "get", "node", NODE, "-o", "json"], capture_output=True, text=True,
                             check=True, timeout=30).stdout
        return json.loads(out)

    def allocatable(self):
        return int(self.node()["status"].get("allocatable", {}).get(GPU, "0"))

    def wait_allocatable(self, want, timeout=90):
        """Seconds until the Node shows want."""
        t0 = time.monotonic()
        while True:
            got = self.allocatable()
            if got == want:
                return time.monotonic() - t0
            if time.monotonic() - t0 > timeout:
                self.fail(f"{NODE}: {GPU} allocatable {got}, not {want}, after {timeout} s:\n"
                          + "\n".join(self.lines[-40:]))
            time.sleep(0.5)

    def wait_line(self, text, timeout=180):
        deadline = time.monotonic() + timeout
        while not any(text in l for l in self.lines):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                time.sleep(0.5)
                self.fail(f"mokka run never said {text!r} (exit {self.proc.poll()}):\n"
                          + "\n".join(self.lines[-60:]))
            time.sleep(0.1)

    def inject(self, *args):
        dirs = [os.path.join(self.env["MOKKA_RUNTIME_DIR"], d)
                for d in os.listdir(self.env["MOKKA_RUNTIME_DIR"])]
        p = subprocess.run([MOKKA, "inject", "--state-dir", dirs[0], "--gpu", "0", *args],
                           capture_output=True, text=True, env=self.env, timeout=30)
        self.assertEqual(p.returncode, 0, p.stderr)

    def held(self, plugin):
        """As the DaemonSet runs it: no --node, the node's name in the
        environment, a host name that is not the node's."""
        self.proc = subprocess.Popen([MOKKA, "run", "--kubeconfig", self.kubeconfig, "--hold", "--",
                                      plugin], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, text=True,
                                     env=dict(self.env, MOKKA_NODE_NAME=NODE),
                                     start_new_session=True)

        def read():
            for line in self.proc.stderr:
                self.lines.append(line.rstrip("\n"))
        threading.Thread(target=read, daemon=True).start()
        self.wait_line("holding the plugin until SIGINT or SIGTERM")

    def registered_devices(self):
        """The device ids the kubelet holds for nvidia.com/gpu (its checkpoint)."""
        with open(os.path.join(DP_DIR, "kubelet_internal_checkpoint")) as f:
            return json.load(f)["Data"]["RegisteredDevices"].get(GPU, [])

    def check(self, plugin, who):
        self.held(plugin)
        text = "\n".join(self.lines)
        self.assertIn("case 4/4 'clearing the XID and restarting the plugin brings the GPU back': "
                      "pass", text)
        self.wait_allocatable(8, timeout=30)
        # The kubelet got the UUIDs that render shows for the node.
        render = subprocess.run([MOKKA, "render", "--node", NODE, "--format", "json"],
                                capture_output=True, text=True, env=self.env, timeout=30)
        uuids = [d["uuid"] for d in json.loads(render.stdout)["devices"]]
        self.assertEqual(sorted(self.registered_devices()), sorted(uuids))
        self.inject("--xid", "79")
        down = self.wait_allocatable(7)
        self.inject("--healthy")
        up = self.wait_allocatable(8)
        self.wait_line("GPU 0 (GPU-")
        print(f"\n     {who} under kubelet v1.20: the Node showed GPU 0 out {down:.1f} s after the "
              f"XID, back {up:.1f} s after inject --healthy")
        os.killpg(self.proc.pid, signal.SIGTERM)
        self.assertEqual(self.proc.wait(60), 0, "\n".join(self.lines[-40:]))

    def test_stand_in_plugin(self):
        self.check(FAKE, "the stand-in plugin")

    def test_nvidia_plugin(self):
        if not REAL:
            self.skipTest("set MOKKA_DEVICE_PLUGIN to NVIDIA's nvidia-device-plugin to run this")
        self.check(REAL, "NVIDIA's plugin v0.17")


if __name__ == "__main__":
    unittest.main()
