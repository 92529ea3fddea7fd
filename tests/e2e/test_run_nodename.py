"""test_run_nodename.py - one node name for a node's virtual GPUs: the
UUIDs `uuid: auto` derives come from --node, else MOKKA_NODE_NAME, else
NODE_NAME (what NVIDIA's manifests set from spec.nodeName), else the host
name, and `mokka run` hands the same name to the plugin, so that the
devices the plugin advertises are those `mokka render --node NAME` shows,
and a GPUFault naming one of them is applied by the node's agent.

In a pod the host name is the pod's, not the node's: every case here runs
where the host name differs from the node name it gives. Sandbox mode (the
built-in kubelet's device list checked by a suite) and cluster mode (the
DaemonSet's environment, no --node, against the stand-in API server with
build/tests/fake-kubelet listing what the plugin advertises)."""
import json
import socket
import subprocess
import unittest

from agentfleet import gpufault
from cli_support import MOKKA
from kubetest import SLOW
from test_run import RunTest
from test_run_cluster import NODE
from test_run_heal import BridgedCase


def render_uuids(node, env):
    """The GPU UUIDs `mokka render --node node` shows (node None: no --node)."""
    args = [MOKKA, "render", "--format", "json"] + (["--node", node] if node else [])
    p = subprocess.run(args, capture_output=True, text=True, env=env, timeout=30)
    if p.returncode:
        raise AssertionError(f"mokka render: {p.stderr}")
    return [d["uuid"] for d in json.loads(p.stdout)["devices"]]


def devices_suite(uuids):
    """Every UUID listed by the plugin, healthy."""
    return ("suite: node-uuids\ncases:\n  - name: the plugin lists the node's UUIDs\n"
            "    expect:\n      resource: nvidia.com/gpu\n      capacity: %d\n      healthy: [%s]\n"
            % (len(uuids), ", ".join('"%s"' % u for u in uuids)))


class SandboxNodeName(RunTest):
    def setUp(self):
        super().setUp()
        self.pod = "pod-node-" + socket.gethostname()[:20].lower().replace("_", "-") + "-x"

    def assertAdvertised(self, node, env_vars, args=()):
        env = dict(self.env, **env_vars)
        uuids = render_uuids(node, env)
        self.assertNotEqual(uuids, render_uuids(socket.gethostname(), env),
                            "the host name would give the same UUIDs")
        r = self.run_mokka(*args, suite=devices_suite(uuids), env=env)
        self.assertExit(r, 0)
        return uuids

    def test_mokka_node_name_reaches_the_plugin(self):
        self.assertAdvertised(self.pod, {"MOKKA_NODE_NAME": self.pod})

    def test_node_name_as_nvidia_manifests_set_it(self):
        uuids = self.assertAdvertised(self.pod, {"NODE_NAME": self.pod})
        # render without --node in the same environment agrees
        self.assertEqual(render_uuids(None, dict(self.env, NODE_NAME=self.pod)), uuids)

    def test_mokka_node_name_comes_before_node_name(self):
        self.assertAdvertised(self.pod, {"MOKKA_NODE_NAME": self.pod, "NODE_NAME": "other-node"})

    def test_the_node_option_comes_first(self):
        self.assertAdvertised("gpu-node-17", {"MOKKA_NODE_NAME": self.pod, "NODE_NAME": "other"},
                              args=("--node", "gpu-node-17"))

    def test_the_default_smoke_suite_under_a_node_name(self):
        """Its cases name devices by ${uuid.N}: the universe's UUIDs."""
        r = self.run_mokka(env=dict(self.env, MOKKA_NODE_NAME=self.pod))
        self.assertExit(r, 0)


class ClusterNodeName(BridgedCase):
    """The DaemonSet's pod: no --node, the node's name in the environment,
    a host name of its own."""

    def setUp(self):
        super().setUp()
        if socket.gethostname() == NODE:
            self.skipTest(f"this host is called {NODE}, the node name under test")

    def check(self, env):
        r = self.held(node=None, env=env)
        r.wait_line(f"applying the cluster's GPUFaults that select node {NODE}")
        uuids = render_uuids(NODE, self.env())
        self.assertEqual(sorted(self.bridge.wait(8)), sorted(uuids))
        self.assertEqual([g["uuid"] for g in self.stats()], uuids)
        # A fault naming a UUID that render shows for the node lands there.
        f = self.srv.create_object("gpufaults", gpufault("by-uuid", [uuids[2].upper()], {"xid": 79}))
        self.fleet.wait_phase(f["metadata"]["uid"], [NODE], {"Applied"}, timeout=20 * SLOW)
        self.assertEqual(self.bridge.wait(7).count("!" + uuids[2]), 1)
        self.assertEqual(self.stats()[2]["health"], "xid 79")

    def test_mokka_node_name_from_the_daemonset(self):
        self.check({"MOKKA_NODE_NAME": NODE})

    def test_node_name_as_nvidia_manifests_set_it(self):
        self.check({"NODE_NAME": NODE})


if __name__ == "__main__":
    unittest.main()
