"""test_run_cluster.py - `mokka run --cluster --hold`, the DaemonSet's
command, end to end against the stand-in API server: the plugin runs in
cluster mode beside a kubelet directory named by MOKKA_KUBELET_DIR, the
suite checks the node through the API server, and while the plugin is held
the node's agent applies the GPUFaults that select the node to the
plugin's own live state (the plugin sees the XID and marks the GPU
unhealthy), reports them in the node's GPUFaultReport, clears them when
they are deleted, and says it stopped when the run ends. Without the
GPUFault resources the plugin is still held, with one warning; a kubelet
directory that does not exist is named, and the run ends with exit 3.

No kubelet listens here: the node object of the stand-in already
advertises the GPUs, and the stand-in plugin retries its registration."""
import glob
import os
import signal
import subprocess
import threading
import time

from agentfleet import FleetCase, gpufault, live_stats
from cli_support import MOKKA, MOCK_VARS, SAN
from kubetest import BUILD, SLOW

FAKE = os.path.join(BUILD, "build", "tests", "fake-device-plugin")
NODE = "gpu-node-1"
READY_SUITE = """suite: node-ready
cases:
  - name: node is Ready
    expect:
      condition: {type: Ready, status: "True"}
  - name: every GPU advertised
    expect: {resource: nvidia.com/gpu, capacity: 8, allocatable: 8}
"""


class HeldRun:
    """`mokka run --kubeconfig ... --hold -v` in the background, its stderr
    collected line by line. suite None: the built-in cluster suite; node
    None: no --node (the name comes from the environment); env: variables
    over the case's."""

    def __init__(self, case, kubelet=None, suite=READY_SUITE, node=NODE, env=None, plugin=FAKE,
                 args=()):
        self.dir = case.dir
        if suite is not None:
            path = os.path.join(self.dir, "ready.yaml")
            with open(path, "w") as f:
                f.write(suite)
            args = ["--suite", path, *args]
        if node is not None:
            args = ["--node", node, *args]
        if not kubelet:
            kubelet = os.path.join(self.dir, "kubelet")
            os.makedirs(kubelet, exist_ok=True)
        run_env = {k: v for k, v in case.env().items() if k not in MOCK_VARS}
        run_env.update(MOKKA_KUBELET_DIR=kubelet, MOKKA_RUNTIME_DIR=os.path.join(self.dir, "run"),
                       XDG_CACHE_HOME=os.path.join(self.dir, "cache"))
        run_env.update(env or {})
        self.kubelet = kubelet
        self.lines, self.cond = [], threading.Condition()
        # Under ASan the stand-in plugin loads an instrumented library it
        # was not linked with first.
        san = ["--env", "ASAN_OPTIONS=verify_asan_link_order=0"] if SAN == "asan" else []
        self.p = subprocess.Popen([MOKKA, "run", "--kubeconfig", case.kubeconfig(), *args,
                                   "--hold", "-v", *san, "--", plugin],
                                  stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, text=True, env=run_env)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for line in self.p.stderr:
            with self.cond:
                self.lines.append(line.rstrip("\n"))
                self.cond.notify_all()

    def text(self):
        with self.cond:
            return "\n".join(self.lines)

    def wait_line(self, needle, timeout=60):
        deadline = time.monotonic() + timeout * SLOW
        with self.cond:
            while not any(needle in l for l in self.lines):
                left = deadline - time.monotonic()
                if left <= 0 or (self.p.poll() is not None and not self.reader.is_alive()):
                    raise AssertionError(f"mokka run printed no '{needle}' (rc {self.p.poll()}):\n"
                                         + "\n".join(self.lines[-60:]))
                self.cond.wait(min(left, 0.2))

    def state_dir(self):
        dirs = glob.glob(os.path.join(self.dir, "run", "*", "plugin.log"))
        if len(dirs) != 1:
            raise AssertionError(f"expected one run directory, found {dirs}")
        return os.path.dirname(dirs[0])

    def stop(self, timeout=30):
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGTERM)
        try:
            rc = self.p.wait(timeout * SLOW)
        except subprocess.TimeoutExpired:
            self.p.kill()
            rc = self.p.wait()
        self.reader.join(10)
        self.p.stderr.close()
        return rc


class HeldRunCase(FleetCase):
    """The stand-in API server with node NODE; self.run_ a HeldRun once started."""
    NODES = {NODE: {"pool": "canary"}}

    def setUp(self):
        super().setUp()
        if not os.access(FAKE, os.X_OK):
            self.skipTest(f"{FAKE} is not built (make testbins)")
        self.run_ = None

    def tearDown(self):
        if self.run_:
            self.run_.stop()
        super().tearDown()

    def stats(self):
        return live_stats(self.run_.state_dir(), self.fleet.env)["gpus"]



class RunClusterHold(HeldRunCase):
    def test_held_plugin_applies_and_clears_the_clusters_faults(self):
        r = self.run_ = HeldRun(self)
        r.wait_line("holding the plugin until SIGINT or SIGTERM")
        r.wait_line(f"applying the cluster's GPUFaults that select node {NODE}")
        self.fleet.wait_reports([NODE], 30 * SLOW)
        text = r.text()
        self.assertIn("case 2/2 'every GPU advertised': pass", text)
        self.assertIn("under the node's kubelet", text)
        # The plugin was told where this node's kubelet is.
        self.assertTrue(any(n.endswith(".sock") for n in os.listdir(r.kubelet)), os.listdir(r.kubelet))

        f = self.srv.create_object("gpufaults", gpufault(
            "canary-xid", [3], {"xid": 79}, {"selector": {"matchLabels": {"pool": "canary"}}}))
        self.fleet.wait_phase(f["metadata"]["uid"], [NODE], {"Applied"}, timeout=20 * SLOW)
        g = self.stats()[3]
        self.assertEqual((g["health"], g["lastXid"]), ("xid 79", 79))
        self.assertEqual([x["health"] for i, x in enumerate(self.stats()) if i != 3], ["healthy"] * 7)
        # NVML's event reached the plugin, which took the GPU out.
        r.wait_line(f"'nvidia.com/gpu' device marked unhealthy: {g['uuid']}", timeout=20)
        self.assertIn("applied GPUFault canary-xid (xid 79) to GPU 3", r.text())

        self.srv.delete_object("gpufaults", "canary-xid")
        self.fleet.wait_phase(f["metadata"]["uid"], [NODE], {"Cleared"}, timeout=20 * SLOW)
        self.assertEqual(self.stats()[3]["health"], "healthy")

        self.assertEqual(r.stop(), 0, r.text()[-3000:])
        self.run_ = None
        self.assertFalse(self.fleet.report(NODE)["status"]["agent"]["running"])



class RunClusterHoldWithoutResources(HeldRunCase):
    CRDS = False

    def test_without_the_resources_the_plugin_is_still_held(self):
        r = self.run_ = HeldRun(self)
        r.wait_line("holding the plugin until SIGINT or SIGTERM")
        r.wait_line("warning: GPUFaults will not be applied to this node:")
        self.assertIn("gpufault-crd.yaml", r.text())
        time.sleep(1)
        self.assertIsNone(r.p.poll(), "the run ended: " + r.text()[-2000:])
        self.assertEqual(r.stop(), 0, r.text()[-3000:])
        self.run_ = None


class RunClusterNoKubeletDir(HeldRunCase):
    def test_a_missing_kubelet_directory_is_named(self):
        missing = os.path.join(self.dir, "no", "kubelet")
        r = self.run_ = HeldRun(self, kubelet=missing)
        r.p.wait(60 * SLOW)
        self.assertEqual(r.stop(), 3, r.text()[-3000:])
        self.run_ = None
        self.assertIn(f"{missing} does not exist: cluster mode runs the plugin under the node's "
                      "kubelet", r.text())
        self.assertIn("MOKKA_KUBELET_DIR names another directory", r.text())
        self.assertFalse(os.path.exists(missing), "the run made the directory")
