"""test_fleet_mixed_rig.py - the real thing next to the virtual: on the
rig's real kubelet, node rig-node-1 runs NVIDIA's device plugin and
gpu-feature-discovery under `mokka run --cluster --hold --gfd`, and beside
it `mokka fleet` registers virtual nodes of the same universe. The two are
compared on one cluster: the same resources in capacity and allocatable,
the same nvidia.com/* labels (GFD's timestamp aside), a pod placed on each
gets its GPUs, and `mokka assert`'s fleet expectations count both.

Needs root, MOKKA_RIG, MOKKA_DEVICE_PLUGIN and MOKKA_GFD (NVIDIA's programs,
built outside the repository); skips, saying which is missing. Starts the
rig's parts that are down and stops only those."""
import json
import os
import signal
import subprocess
import tempfile
import threading
import time
import unittest

from cli_support import MOKKA, MOCK_VARS, SAN
from fleetkit import Fleet, apply, kjson, kubectl, wait
from rig_support import RIG, rig_down, rig_up

NODE = "rig-node-1"
GPU = "nvidia.com/gpu"
DP_DIR = "/var/lib/kubelet/device-plugins"
PLUGIN = os.environ.get("MOKKA_DEVICE_PLUGIN", "")
GFD = os.environ.get("MOKKA_GFD", "")


def missing():
    if not RIG:
        return "set MOKKA_RIG to the rig ../shared/rig builds (e.g. /var/cache/mokka-rig)"
    if os.geteuid() != 0:
        return "the rig's kubelet is root's"
    if not os.access(PLUGIN, os.X_OK) if PLUGIN else True:
        return "set MOKKA_DEVICE_PLUGIN to NVIDIA's nvidia-device-plugin"
    if not os.access(GFD, os.X_OK) if GFD else True:
        return "set MOKKA_GFD to NVIDIA's gpu-feature-discovery"
    if SAN:
        return f"NVIDIA's programs cannot load a {SAN} build's library"
    return None


def nvidia_labels(node):
    return {k: v for k, v in node["metadata"]["labels"].items()
            if k.startswith("nvidia.com/") and k != "nvidia.com/gfd.timestamp"}


class RealBesideVirtual(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        why = missing()
        if why:
            raise unittest.SkipTest(why)
        cls.started = rig_up("apiserver", "controlplane", "kubelet")

    @classmethod
    def tearDownClass(cls):
        rig_down(cls.started)

    def setUp(self):
        self.kc = os.path.join(RIG, "apiserver", "kubeconfig-token.yaml")
        if [f for f in os.listdir(DP_DIR) if f.startswith("nvidia")]:
            self.skipTest(f"something else serves {GPU} on {NODE}: the rig is shared")
        self.dir = tempfile.mkdtemp(prefix="mokka-mixed-")
        env = {k: v for k, v in os.environ.items() if k not in MOCK_VARS}
        env.update(MOKKA_RUNTIME_DIR=self.dir, MOKKA_NODE_NAME=NODE)
        self.lines = []
        self.real = subprocess.Popen([MOKKA, "run", "--kubeconfig", self.kc, "--hold", "--gfd=" + GFD,
                                      "--", PLUGIN], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, text=True, env=env, start_new_session=True)
        threading.Thread(target=lambda: [self.lines.append(l) for l in self.real.stderr],
                         daemon=True).start()
        wait("mokka run holds the real plugin:\n" + "".join(self.lines[-30:]),
             lambda: any("holding the plugin" in l for l in self.lines) or self.real.poll() is not None,
             timeout=240)
        self.assertIsNone(self.real.poll(), "".join(self.lines[-40:]))
        self.fleet = Fleet(self.kc, ["--nodes", "2", "--name", "mixed", "--prefix", "virt-"],
                           workdir=self.dir).start()

    def tearDown(self):
        kubectl(self.kc, "delete", "pods", "-n", "default", "-l", "fleet-test=mixed", "--wait=false",
                check=False)
        self.fleet.stop()
        os.killpg(self.real.pid, signal.SIGTERM)
        self.real.wait(90)

    def test_a_virtual_node_is_what_the_real_one_is(self):
        real = wait("GFD's labels on the real node", lambda: (lambda n: n if "nvidia.com/gpu.product" in
                    n["metadata"]["labels"] else None)(kjson(self.kc, "get", "node", NODE)), timeout=90)
        virt = kjson(self.kc, "get", "node", "virt-0000")
        for key in ("capacity", "allocatable"):
            self.assertEqual(real["status"][key][GPU], virt["status"][key][GPU], key)
        self.assertEqual(nvidia_labels(real), nvidia_labels(virt))
        # a pod on each gets 3 GPUs
        for name, node in (("on-real", NODE), ("on-virtual", "virt-0001")):
            apply(self.kc, {"apiVersion": "v1", "kind": "Pod",
                            "metadata": {"name": name, "namespace": "default", "labels": {"fleet-test": "mixed"}},
                            "spec": {"nodeName": node, "restartPolicy": "Never", "terminationGracePeriodSeconds": 0,
                                     "containers": [{"name": "c", "image": "rig.local/busybox:1",
                                                     "command": ["sleep", "3600"],
                                                     "resources": {"limits": {GPU: 3}}}]}})
        for name in ("on-real", "on-virtual"):
            wait(name + " runs", lambda: kjson(self.kc, "get", "pod", "-n", "default", name)
                 ["status"].get("phase") == "Running", timeout=120)
        suite = os.path.join(self.dir, "both.yaml")
        with open(suite, "w") as f:
            f.write("suite: both\ncases:\n  - name: real and virtual\n    within: 30s\n    expect:\n"
                    "      fleet:\n        nodes: 3\n        ready: 3\n        allocatable: 24\n"
                    "        used: 6\n        partly-used: 2\n        largest-fit: 8\n")
        p = subprocess.run([MOKKA, "assert", "--kubeconfig", self.kc, "--selector",
                            "nvidia.com/gpu.present=true", "--suite", suite], capture_output=True,
                           text=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)


if __name__ == "__main__":
    unittest.main()
