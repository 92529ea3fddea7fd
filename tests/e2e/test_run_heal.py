"""test_run_heal.py - a node that `mokka run --hold` serves comes back to
full strength when its GPUs are healthy again: NVIDIA's plugin (and the
stand-in, which copies it) marks a device unhealthy on an XID and never
turns it healthy again, so the held run restarts the plugin once a GPU that
was unhealthy is healthy again in the live state.

Cluster mode, against the stand-in API server with a kubelet of our own
(build/tests/fake-kubelet: Mokka's built-in kubelet serving Registration in
MOKKA_KUBELET_DIR, whose device counts the test writes into the Node as a
kubelet's status update does): the built-in cluster suite leaves the node
at full strength; a GPUFault deleted, one that expires (on several GPUs:
one restart), and `mokka inject --healthy` on the held run's live state
bring allocatable back to 8; a GPU still broken stays out. Sandbox mode
(the built-in kubelet of `mokka run` itself): `mokka inject --healthy`
brings the devices back; of two plugins, only the one that lists the GPU
restarts.
With NVIDIA's plugin when MOKKA_DEVICE_PLUGIN names it (skipped, saying
so, when unset), in the sandbox: v0.17 always makes its socket in
/var/lib/kubelet/device-plugins (KUBELET_SOCKET moves only the kubelet's),
so outside the sandbox it would meet the node's real kubelet, which is
test_run_rig_heal.py's.

Prints how long the node took to be whole again after a GPUFault's delete."""
import glob
import os
import signal
import subprocess
import threading
import time
import unittest

from agentfleet import gpufault
from cli_support import MOKKA, SAN
from kubetest import BUILD, SLOW
from test_run import RunTest, REAL, FAKE as RUN_FAKE
from test_run_cluster import FAKE, HeldRun, HeldRunCase, NODE

FAKE_KUBELET = os.path.join(BUILD, "build", "tests", "fake-kubelet")
GPU = "nvidia.com/gpu"
SANDBOX_READY = """suite: ready
cases:
  - name: every GPU healthy
    expect: {resource: nvidia.com/gpu, capacity: 8, allocatable: 8}
"""


def real_plugin_missing():
    """Why NVIDIA's plugin cannot run here, or None."""
    if not REAL:
        return ("set MOKKA_DEVICE_PLUGIN to NVIDIA's nvidia-device-plugin (e.g. "
                "/var/cache/mokka-nv/v0.17.4/nvidia-device-plugin) to run this")
    if SAN:
        return f"NVIDIA's plugin is built without {SAN}: it cannot load this build's library"
    if not os.access(REAL, os.X_OK):
        return f"MOKKA_DEVICE_PLUGIN={REAL} is not an executable file"
    return None


class KubeletBridge:
    """fake-kubelet on a directory; each device count it prints goes into
    the stand-in API server's Node as capacity and allocatable."""

    def __init__(self, srv, node, directory, env):
        self.srv, self.node = srv, node
        self.view, self.history, self.cond = {}, [], threading.Condition()
        self.p = subprocess.Popen([FAKE_KUBELET, directory], stdin=subprocess.DEVNULL,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for line in self.p.stdout:
            res, cap, alloc, *ids = line.split()
            self.srv.set_capacity(self.node, res, int(cap))
            self.srv.set_allocatable(self.node, res, int(alloc))
            with self.cond:
                self.view[res] = (int(cap), int(alloc), ids)
                self.history.append((res, int(alloc)))
                self.cond.notify_all()

    def wait(self, alloc, res=GPU, timeout=60):
        """Until the plugin's devices make allocatable `alloc`; the ids."""
        deadline = time.monotonic() + timeout * SLOW
        with self.cond:
            while self.view.get(res, (0, None, []))[1] != alloc:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"{res} allocatable never {alloc}; seen: {self.history}")
                self.cond.wait(min(left, 0.2))
            return self.view[res][2]

    def stop(self):
        self.p.terminate()
        try:
            self.p.wait(30)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
        self.reader.join(10)
        err = self.p.stderr.read()
        self.p.stdout.close()
        self.p.stderr.close()
        return err


class BridgedCase(HeldRunCase):
    """The stand-in API server whose Node shows what fake-kubelet's
    plugins serve: nothing until a plugin registers."""

    def setUp(self):
        super().setUp()
        if not os.access(FAKE_KUBELET, os.X_OK):
            self.skipTest(f"{FAKE_KUBELET} is not built (make testbins)")
        self.srv.set_capacity(NODE, GPU, 0)
        self.srv.set_allocatable(NODE, GPU, 0)
        self.kubelet = os.path.join(self.dir, "kubelet")
        os.makedirs(self.kubelet, exist_ok=True)
        self.bridge = KubeletBridge(self.srv, NODE, self.kubelet, self.env())

    def tearDown(self):
        text = None
        if self.run_:
            rc = self.run_.stop()
            text = self.run_.text()
            self.run_ = None
        kubelet_err = self.bridge.stop() if hasattr(self, "bridge") else ""
        super().tearDown()
        self.assertNotIn("Sanitizer", kubelet_err, "a sanitizer report from fake-kubelet")
        if text is not None:
            for report in ("Sanitizer", "runtime error:"):
                self.assertNotIn(report, text, "a sanitizer report from mokka run")
            self.assertEqual(rc, 0, text[-3000:])

    def held(self, **kw):
        self.run_ = HeldRun(self, kubelet=self.kubelet, **kw)
        self.run_.wait_line("holding the plugin until SIGINT or SIGTERM", timeout=120)
        return self.run_

    def node_allocatable(self):
        return self.srv.get_object("nodes", NODE)["status"]["allocatable"][GPU]

    def inject(self, *args):
        p = subprocess.run([MOKKA, "inject", "--state-dir", self.run_.state_dir(), *args],
                           capture_output=True, text=True, env=self.fleet.env, timeout=30)
        self.assertEqual(p.returncode, 0, p.stderr)

    def heal_lines(self):
        return [l for l in self.run_.text().splitlines() if "healthy again after" in l]


class ClusterSuiteLeavesFullStrength(BridgedCase):
    def test_the_built_in_cluster_suite_leaves_the_node_at_full_strength(self):
        r = self.held(suite=None)
        text = r.text()
        self.assertIn("case 3/4 'XID 79 on GPU 0 takes one GPU out of allocatable': pass", text)
        self.assertIn("case 4/4 'clearing the XID and restarting the plugin brings the GPU back': "
                      "pass", text)
        self.assertIn((GPU, 7), self.bridge.history, "the XID took a GPU out on the way")
        self.bridge.wait(8)
        # Held, it stays so: nothing left broken, nothing to restart.
        time.sleep(2)
        self.assertEqual(self.node_allocatable(), "8")
        self.assertEqual(self.heal_lines(), [])


class ClusterHoldHeals(BridgedCase):
    def test_a_deleted_gpufault_brings_the_gpu_back(self):
        r = self.held()
        r.wait_line(f"applying the cluster's GPUFaults that select node {NODE}")
        self.bridge.wait(8)
        f = self.srv.create_object("gpufaults", gpufault("xid-3", [3], {"xid": 79}))
        self.fleet.wait_phase(f["metadata"]["uid"], [NODE], {"Applied"}, timeout=20 * SLOW)
        self.bridge.wait(7)
        uuid = self.stats()[3]["uuid"]
        self.srv.delete_object("gpufaults", "xid-3")
        self.fleet.wait_phase(f["metadata"]["uid"], [NODE], {"Cleared"}, timeout=20 * SLOW)
        t0 = time.monotonic()
        self.bridge.wait(8, timeout=30)
        self.heal_took = time.monotonic() - t0
        self.assertEqual(self.node_allocatable(), "8")
        self.assertEqual(len(self.heal_lines()), 1, r.text()[-3000:])
        self.assertIn(f"GPU 3 ({uuid}) is healthy again after xid 79: restarting the plugin so "
                      "that the node advertises it again", r.text())
        print(f"\n     cluster mode: allocatable 8 again {self.heal_took:.2f} s after the "
              "GPUFault was reported Cleared")

    def test_a_fault_expiring_on_three_gpus_is_one_restart(self):
        r = self.held()
        r.wait_line(f"applying the cluster's GPUFaults that select node {NODE}")
        self.bridge.wait(8)
        f = self.srv.create_object("gpufaults", gpufault("brief", [1, 2, 5], {"xid": 79},
                                                         duration="4s"))
        self.fleet.wait_phase(f["metadata"]["uid"], [NODE], {"Applied"}, timeout=20 * SLOW)
        self.bridge.wait(5)
        self.fleet.wait_phase(f["metadata"]["uid"], [NODE], {"Expired"}, timeout=30 * SLOW)
        self.bridge.wait(8, timeout=30)
        lines = self.heal_lines()
        self.assertEqual(len(lines), 1, r.text()[-3000:])
        self.assertIn("GPUs 1, 2, 5 are healthy again after xid 79: restarting the plugin so that "
                      "the node advertises them again", lines[0])

    def test_inject_healthy_on_the_held_state(self):
        self.held()
        self.bridge.wait(8)
        self.inject("--gpu", "0", "--xid", "79")
        self.bridge.wait(7)
        self.inject("--gpu", "0", "--healthy")
        self.bridge.wait(8, timeout=30)
        self.assertEqual(len(self.heal_lines()), 1)

    def test_a_gpu_still_broken_stays_out(self):
        """Two GPUs broken, one healed: the restarted plugin still holds the
        other one unhealthy (the library replays what broke it)."""
        self.held()
        self.bridge.wait(8)
        self.inject("--gpu", "0", "--xid", "79")
        self.inject("--gpu", "6", "--xid", "48")
        self.bridge.wait(6)
        self.inject("--gpu", "0", "--healthy")
        ids = self.bridge.wait(7, timeout=30)
        uuid6 = self.stats()[6]["uuid"]
        self.assertIn("!" + uuid6, ids)
        time.sleep(2)
        self.assertEqual(self.node_allocatable(), "7")


class SandboxHeld(RunTest):
    """`mokka run --hold` with its built-in kubelet: the device counts are
    its progress lines."""
    PLUGIN = RUN_FAKE

    def held(self):
        proc, lines = self.start_mokka("--hold", "-v", suite=SANDBOX_READY, plugin=self.PLUGIN,
                                       junit=False)
        self.wait_for_line(proc, lines, "holding the plugin until SIGINT or SIGTERM")
        return proc, lines

    def inject(self, *args):
        dirs = glob.glob(os.path.join(self.runtime, "*", "state"))
        self.assertEqual(len(dirs), 1, dirs)
        p = subprocess.run([MOKKA, "inject", "--state-dir", os.path.dirname(dirs[0]), *args],
                           capture_output=True, text=True, env=self.env, timeout=30)
        self.assertEqual(p.returncode, 0, p.stderr)

    def wait_after(self, proc, lines, text, after, timeout=60):
        """The index of the first line after `after` that holds text."""
        deadline = time.monotonic() + timeout * SLOW
        while True:
            for i in range(after, len(lines)):
                if text in lines[i]:
                    return i
            if proc.poll() is not None or time.monotonic() > deadline:
                self.fail(f"mokka run never said {text!r} after line {after} (exit {proc.poll()}):\n"
                          + "".join(lines[-60:]))
            time.sleep(0.05)


class SandboxHoldHeals(SandboxHeld):
    def test_inject_healthy_brings_the_devices_back(self):
        proc, lines = self.held()
        self.inject("--gpu", "0", "--xid", "79")
        at = self.wait_after(proc, lines, "nvidia.com/gpu: 7 of 8 devices healthy", 0)
        self.inject("--gpu", "0", "--healthy")
        at = self.wait_after(proc, lines, "GPU 0 (GPU-", at)
        self.assertIn("is healthy again after xid 79: restarting the plugin", lines[at])
        self.wait_after(proc, lines, "nvidia.com/gpu: 8 of 8 devices healthy", at)
        self.assertEqual(sum("healthy again after" in l for l in lines), 1, "".join(lines))
        proc.send_signal(signal.SIGTERM)
        self.assertEqual(proc.wait(60 * SLOW), 0, "".join(lines[-40:]))
        for report in ("Sanitizer", "runtime error:"):
            self.assertNotIn(report, "".join(lines), "a sanitizer report from mokka run")


class SandboxHoldHealsSeveral(SandboxHeld):
    """Two plugins, each serving four of the GPUs as a resource of its own:
    a GPU healthy again restarts only the plugin that lists it."""

    def test_only_the_plugin_that_serves_the_gpu_restarts(self):
        adds = []
        for name, gpus in (("low", "0,1,2,3"), ("high", "4,5,6,7")):
            adds += ["--add-plugin", f"{name}=NVIDIA_VISIBLE_DEVICES={gpus} {RUN_FAKE} "
                                     f"--resource-name example.com/{name} --endpoint {name}.sock"]
        suite = ("suite: ready\ncases:\n  - name: both serve\n    expect:\n"
                 "      - {resource: example.com/low, allocatable: 4}\n"
                 "      - {resource: example.com/high, allocatable: 4}\n")
        proc, lines = self.start_mokka("--hold", "-v", *adds, suite=suite, plugin=None,
                                       junit=False)
        self.wait_for_line(proc, lines, "holding the plugin until SIGINT or SIGTERM")
        self.inject("--gpu", "5", "--xid", "79")
        at = self.wait_after(proc, lines, "example.com/high: 3 of 4 devices healthy", 0)
        self.inject("--gpu", "5", "--healthy")
        at = self.wait_after(proc, lines, "GPU 5 (GPU-", at)
        self.assertIn("is healthy again after xid 79: restarting plugin 'high' so that the node "
                      "advertises it again", lines[at])
        self.wait_after(proc, lines, "example.com/high: 4 of 4 devices healthy", at)
        registered = "example.com/low registered by plugin 'low'"
        self.assertTrue([l for l in lines[:at] if registered in l], "".join(lines))
        self.assertFalse([l for l in lines[at:] if registered in l],
                         "plugin 'low' was restarted:\n" + "".join(lines[at:]))
        proc.send_signal(signal.SIGTERM)
        proc.wait(60 * SLOW)


class SandboxHoldHealsRealPlugin(SandboxHoldHeals):
    PLUGIN = REAL

    def setUp(self):
        why = real_plugin_missing()
        if why:
            self.skipTest(why)
        super().setUp()


if __name__ == "__main__":
    unittest.main()
