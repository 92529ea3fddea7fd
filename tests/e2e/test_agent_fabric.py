"""test_agent_fabric.py - NVLink fabric faults through the cluster:
`mokka inject --cluster ... --fabric-*` makes a GPUFault the stand-in API
server validates against the CRD, the node's agent puts its word on the
GPUs it names, and NVML (read by `mokka smi --mock -q` on the node's live
state) reports it; the newest fabric fault wins on a GPU, and clearing
one gives the GPU the older one's word, then the config's fabric again.
A fault that names a GPU without a fabric is Rejected, saying so. Bad
option values are usage errors naming the option."""
import json
import os
import subprocess

from agentfleet import Fleet, FleetCase
from cli_support import MOKKA
from test_nvidia_smi import parse_q

NODE = "gb200-r07-tray03"
# GPU 3's own fabric is still registering: clearing a fault must give it back.
TRAY = """\
version: 1.0
count: 5
devices:
  - {index: 0, profile: gb200, fabric: {clusterUuid: auto, cliqueId: 32766}}
  - {index: 1, profile: gb200, fabric: {clusterUuid: auto, cliqueId: 32766}}
  - {index: 2, profile: gb200, fabric: {clusterUuid: auto, cliqueId: 32766}}
  - {index: 3, profile: gb200, fabric: {clusterUuid: auto, state: inProgress, status: notReady}}
  - {index: 4, profile: a100-sxm4-40gb}
topology: {nvlink: none}
"""


class AgentFabricTest(FleetCase):
    NODES = {NODE: {"nvidia.com/gpu.product": "gb200"}}

    def setUp(self):
        super().setUp()
        self.config = os.path.join(self.dir, "tray.yaml")
        with open(self.config, "w") as f:
            f.write(TRAY)
        self.fleet = Fleet(self.srv, self.kubeconfig(), self.dir, list(self.NODES), config=self.config)

    def inject(self, *args):
        return subprocess.run([MOKKA, "inject", "--kubeconfig", self.kubeconfig(name="kc-cli"), *args],
                              capture_output=True, text=True, env=self.fleet.env, timeout=90)

    def fabric(self):
        """Per GPU, the Fabric section of `mokka smi -q` on the node's live state."""
        env = dict(self.fleet.env, MOCK_CONFIG_PATH=self.config,
                   MOKKA_STATE_DIR=self.fleet.state_dir(NODE), MOKKA_NODE_NAME=NODE)
        p = subprocess.run([MOKKA, "smi", "--mock", "-q"], capture_output=True, text=True, env=env,
                           timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        q = parse_q(p.stdout)
        return [{k.split("/", 1)[1]: v for (gpu, k), v in sorted(q.items())
                 if k.startswith("Fabric/") and gpu == bus}
                for bus in sorted({gpu for gpu, _ in q})]

    def word(self, g):
        f = self.fabric()[g]
        return (f["State"], f["Status"], f.get("Health/Bandwidth"), f.get("Health/Route Unhealthy"))

    def test_inject_applies_newest_wins_and_clearing_restores(self):
        self.fleet.start()
        healthy = ("Completed", "Success", "Full", "False")
        own3 = self.word(3)
        self.assertEqual(own3[0], "In Progress")
        p = self.inject("--node", NODE, "--gpu", "1,3", "--fabric-state", "inProgress",
                        "--fabric-status", "notReady", "--fabric-health", "degradedBandwidth",
                        "--name", "fab", "--wait", "30s")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertRegex(p.stdout, r"GPUFault fab: applied on 1 of 1 nodes in [0-9.]+ s")
        self.assertIn("applied GPUFault fab (fabric state=inProgress,status=notReady,"
                      "health=degradedBandwidth) to GPUs 1, 3", self.fleet.log(NODE))
        # nvidia-smi prints the status only for a completed registration
        self.assertEqual(self.word(1), ("In Progress", "N/A", "Degraded", "False"))
        self.assertEqual(self.word(0), healthy)

        # A newer fault on GPU 1 states the whole word: the rest is completed/success/healthy.
        p = self.inject("--node", NODE, "--gpu", "1", "--fabric-health", "routeUnhealthy",
                        "--name", "fab2", "--wait", "30s")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(self.word(1), ("Completed", "Success", "Full", "True"))
        p = self.inject("--list")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertRegex(p.stdout, r"fab\s+fabric state=inProgress,status=notReady,"
                                   r"health=degradedBandwidth\s+1,3\s")
        self.assertRegex(p.stdout, r"fab2\s+fabric state=completed,status=success,"
                                   r"health=routeUnhealthy\s+1\s")

        p = self.inject("--clear", "fab2", "--wait", "30s")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(self.word(1), ("In Progress", "N/A", "Degraded", "False"))
        p = self.inject("--clear", "fab", "--wait", "30s")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(self.word(1), healthy)
        self.assertEqual(self.word(3), own3)

    def test_gpu_without_fabric_is_rejected(self):
        # As `mokka inject` refuses it locally: the agent reads which GPUs have a
        # fabric from the universe its state was made from.
        self.fleet.start()
        p = self.inject("--node", NODE, "--gpu", "3-4", "--fabric-state", "notStarted",
                        "--name", "a100", "--wait", "30s")
        self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
        self.assertIn(NODE + ": GPU 4 (NVIDIA A100-SXM4-40GB) has no NVLink fabric: its NVML "
                      "answers NOT_SUPPORTED", p.stdout + p.stderr)
        self.assertEqual(self.fabric()[4], {"State": "N/A", "Status": "N/A"})
        self.assertEqual(self.word(3)[0], "In Progress")      # nothing of it applied

    def test_restarted_agent_keeps_and_then_clears_it(self):
        # The journal beside the state remembers the fabric word: a restarted
        # agent does not apply it again, and clears it when it was deleted meanwhile.
        self.fleet.start()
        p = self.inject("--node", NODE, "--gpu", "2", "--fabric-status", "timeout", "--name", "fab",
                        "--wait", "30s")
        self.assertEqual(p.returncode, 0, p.stderr)
        holder = subprocess.Popen([MOKKA, "exec", "--state-dir", self.fleet.state_dir(NODE), "--",
                                   "sleep", "60"], env=self.fleet.env)
        self.addCleanup(holder.wait)
        self.addCleanup(holder.kill)
        self.assertEqual(self.fleet.stop(), {NODE: 0})
        with open(os.path.join(self.fleet.state_dir(NODE), "cluster-faults.json")) as f:
            entry = json.load(f)["applied"][0]
        self.assertEqual(entry["fabric"], [3, 10, 0])      # completed, NVML_ERROR_TIMEOUT, healthy
        self.fleet.start_one(NODE)
        self.fleet.wait_reports([NODE], 20)
        self.assertEqual(self.word(2), ("Completed", "Timeout", "Full", "False"))
        self.assertEqual(self.fleet.log(NODE).count("applied GPUFault fab "), 1)
        self.assertEqual(self.fleet.stop(), {NODE: 0})
        self.srv.delete_object("gpufaults", "fab")
        self.fleet.start_one(NODE)
        self.fleet.wait_phase(entry["uid"], [NODE], {"Cleared"}, timeout=20)
        self.assertEqual(self.word(2), ("Completed", "Success", "Full", "False"))

    def test_expiry_restores(self):
        self.fleet.start()
        p = self.inject("--node", NODE, "--gpu", "0", "--fabric-state", "notStarted", "--for", "2s",
                        "--name", "short", "--wait", "30s")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(self.word(0)[0], "Not Started")
        f = self.srv.get_object("gpufaults", "short")
        self.fleet.wait_phase(f["metadata"]["uid"], [NODE], {"Expired"}, timeout=20)
        self.assertEqual(self.word(0), ("Completed", "Success", "Full", "False"))

    def test_usage_errors_name_the_option(self):
        for args, words in (
                (("--fabric-state", "bogus"), "--fabric-state: unknown value 'bogus'"),
                (("--fabric-status", "notRedy"), "did you mean 'notReady'?"),
                (("--fabric-health", "degradedBandwith"), "--fabric-health: unknown value"),
                (("--fabric-state", "completed", "--fabric-state", "inProgress"),
                 "--fabric-state given twice"),
                (("--fabric-state", "completed", "--xid", "79"),
                 "--fabric-state and --xid do not go together"),
                (("--fabric-clear",), "with --cluster, delete the fabric GPUFault")):
            with self.subTest(args=args):
                p = self.inject("--all-nodes", "--gpu", "0", *args)
                self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
                self.assertIn(words, p.stderr)
