"""test_fleet.py - `mokka fleet` end to end against the stand-in API server
(tests/standins/fake_apiserver.py), where every request can be seen and
failures made on purpose: the Nodes it registers (capacity, allocatable,
labels, conditions, owner), one Lease per node renewed every 10 s and
nothing else at rest, pods admitted with their devices (annotation,
status), refused as the kubelet refuses them, finished after their run time
and finalised when deleted, GPUFaults through one watch, names taken by
other nodes, a throttling API server (429), one that lost its data, a
fleet killed and started again, and both ways of stopping.
test_fleet_rig.py does the same against the real API server and scheduler."""
import json
import os
import signal
import subprocess
import time

import kubetest
from cli_support import MIG_MIXED
from fleetkit import Fleet, wait

MOKKA = os.path.join(kubetest.BUILD, "mokka")
GPU = "nvidia.com/gpu"
CRDS = os.path.join(kubetest.SRC, "ci", "deploy", "gpufault-crd.yaml")


def pod(name, node, gpus, annotations=None, resource=GPU):
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "default", "annotations": annotations or {}},
            "spec": {"nodeName": node, "containers": [
                {"name": "main", "image": "busybox", "resources": {"limits": {resource: str(gpus)}}}]}}


class FleetTest(kubetest.KubeTestCase):
    def setUp(self):
        super().setUp()
        self.server(nodes=())
        self.srv.install_crds_file(CRDS)
        self.kc = self.kubeconfig()
        self.fleets = []

    def tearDown(self):
        for fl in self.fleets:
            fl.stop(signal.SIGKILL)
        super().tearDown()

    def fleet(self, *args, start=True, workdir=None):
        fl = Fleet(self.kc, ["--prefix", "gpu-node-", *args], workdir=workdir or self.dir)
        self.fleets.append(fl)
        return fl.start() if start else fl

    def node(self, name):
        return self.srv.get_object("nodes", name)

    def get_pod(self, name):
        with self.srv.lock:
            obj = self.srv.pod_res.objects.get(self.srv.pod_res.key("default", name))
            return json.loads(json.dumps(obj)) if obj else None

    def add_pod(self, obj):
        self.srv.create_object("pods", obj, namespace="default")

    def test_nodes_as_a_kubelet_with_nvidias_plugin_registers_them(self):
        self.fleet("--nodes", "12", "-c", MIG_MIXED, "--mig-strategy", "mixed", "--labels", "team=a,zone=z1")
        names = sorted(self.srv.nodes)
        self.assertEqual(names, ["gpu-node-%04d" % i for i in range(12)])
        n = self.node("gpu-node-0003")
        labels, st = n["metadata"]["labels"], n["status"]
        self.assertEqual((labels["mokka.io/fleet"], labels["team"], labels["zone"]), ("fleet", "a", "z1"))
        self.assertEqual(labels["kubernetes.io/hostname"], "gpu-node-0003")
        self.assertIn("pid", n["metadata"]["annotations"]["mokka.io/fleet-owner"])
        self.assertEqual(st["capacity"], st["allocatable"])
        self.assertTrue(any(k.startswith("nvidia.com/mig-") for k in st["capacity"]), st["capacity"])
        self.assertEqual({c["type"]: c["status"] for c in st["conditions"]},
                         {"MemoryPressure": "False", "DiskPressure": "False", "PIDPressure": "False",
                          "Ready": "True"})
        leases = self.srv.objects("leases")
        self.assertEqual(len(leases), 12)
        lease = [l for l in leases if l["metadata"]["name"] == "gpu-node-0003"][0]
        self.assertEqual(lease["metadata"]["namespace"], "kube-node-lease")
        self.assertEqual(lease["spec"]["leaseDurationSeconds"], 40)
        self.assertEqual(lease["metadata"]["ownerReferences"][0]["uid"], n["metadata"]["uid"])

    def test_pools_and_a_config_per_node(self):
        d = os.path.join(self.dir, "nodes")
        os.makedirs(d)
        with open(os.path.join(d, "gpu-node-h-0001.yaml"), "w") as f:
            f.write("profile: h100-sxm5-80gb\ncount: 4\n")
        self.fleet("--pool", "a=2", "--pool", "h=2:" + MIG_MIXED, "--node-config", d,
                   "--mig-strategy", "mixed")
        self.assertEqual(sorted(self.srv.nodes), ["gpu-node-a-0000", "gpu-node-a-0001",
                                                  "gpu-node-h-0000", "gpu-node-h-0001"])
        cap = lambda n: self.node(n)["status"]["capacity"]
        self.assertEqual(cap("gpu-node-a-0000")[GPU], "8")
        self.assertEqual(self.node("gpu-node-h-0000")["metadata"]["labels"]["mokka.io/pool"], "h")
        self.assertTrue(any(k.startswith("nvidia.com/mig-") for k in cap("gpu-node-h-0000")))
        self.assertEqual(cap("gpu-node-h-0001")[GPU], "4")
        self.assertIn("H100", self.node("gpu-node-h-0001")["metadata"]["labels"]["nvidia.com/gpu.product"])
        # uuid: auto follows the node's name: every node's GPUs are its own
        ann = {n: json.loads(json.dumps(self.node(n)["metadata"]["annotations"])) for n in self.srv.nodes}
        self.assertEqual(ann["gpu-node-h-0001"]["mokka.io/universe"], os.path.join(d, "gpu-node-h-0001.yaml"))

    def test_at_rest_only_the_leases_are_renewed_once_in_10_s(self):
        fl = self.fleet("--nodes", "20", "--stats", os.path.join(self.dir, "stats.json"))
        time.sleep(3)
        t0, before = time.time(), len(self.srv.log)
        time.sleep(20)
        after = self.srv.log[before:]
        writes = [e for e in after if e["verb"] not in ("watch", "list", "get")]
        kinds = {e["kind"] for e in writes}
        self.assertEqual(kinds, {"patch:leases"}, kinds)
        per_node_10s = len(writes) / 20 / ((time.time() - t0) / 10)
        self.assertLessEqual(per_node_10s, 1.1, len(writes))
        self.assertGreaterEqual(per_node_10s, 0.8, len(writes))
        with open(os.path.join(self.dir, "stats.json")) as f:
            stats = json.load(f)
        self.assertGreater(stats["lease_renewals"], 20)
        self.assertEqual(fl.stop(), 0, fl.log())

    def test_pods_are_admitted_refused_finished_and_freed(self):
        self.fleet("--nodes", "2")
        self.add_pod(pod("five", "gpu-node-0000", 5))
        p = wait("pod five runs", lambda: (lambda x: x if x and x.get("status", {}).get("phase") == "Running"
                                           else None)(self.get_pod("five")))
        ids = json.loads(p["metadata"]["annotations"]["mokka.io/devices"])[GPU]
        self.assertEqual(len(ids), 5)
        self.assertEqual(p["status"]["containerStatuses"][0]["state"].keys(), {"running"})
        self.assertTrue([c for c in p["status"]["conditions"] if c["type"] == "Ready" and c["status"] == "True"])
        self.add_pod(pod("four", "gpu-node-0000", 4))
        p = wait("pod four fails", lambda: (lambda x: x if x and x.get("status", {}).get("phase") == "Failed"
                                            else None)(self.get_pod("four")))
        self.assertEqual(p["status"]["reason"], "UnexpectedAdmissionError")
        self.assertEqual(p["status"]["message"], "Allocate failed due to requested number of devices "
                         "unavailable for nvidia.com/gpu. Requested: 4, Available: 3, which is unexpected")
        # a run time: it succeeds, and its GPUs are free again
        self.add_pod(pod("short", "gpu-node-0000", 3, {"mokka.io/run-time": "1s"}))
        p = wait("pod short succeeds", lambda: (lambda x: x if x and x.get("status", {}).get("phase") == "Succeeded"
                                                else None)(self.get_pod("short")), timeout=20)
        self.assertEqual(p["status"]["containerStatuses"][0]["state"]["terminated"]["reason"], "Completed")
        self.add_pod(pod("three", "gpu-node-0000", 3))
        wait("pod three runs", lambda: (self.get_pod("three") or {}).get("status", {}).get("phase") == "Running")
        # a deleted pod's GPUs are free: 5 of pod five
        self.srv.delete_pod("default", "five")
        self.add_pod(pod("five-again", "gpu-node-0000", 5))
        wait("pod five-again runs",
             lambda: (self.get_pod("five-again") or {}).get("status", {}).get("phase") == "Running")
        # a pod on another node is not the fleet's
        self.add_pod(pod("elsewhere", "real-node", 1))
        time.sleep(1)
        self.assertNotIn("phase", self.get_pod("elsewhere").get("status", {}))
        # a hostile pod (a name no API server makes) is said and skipped; the rest go on
        bad = pod("../x", "gpu-node-0001", 1)
        bad["metadata"]["uid"] = "uid-hostile"
        self.srv.put_object("pods", bad)
        self.add_pod(pod("after", "gpu-node-0001", 1))
        wait("pod after runs", lambda: (self.get_pod("after") or {}).get("status", {}).get("phase") == "Running")
        self.assertIn("pod with uid uid-hostile on node gpu-node-0001: its namespace or name is not a "
                      "DNS subdomain; skipped", self.fleets[0].log())
        self.assertNotIn("phase", self.get_pod("../x").get("status", {}))

    def test_gpufaults_change_allocatable_and_are_reported(self):
        self.fleet("--nodes", "5")
        p = subprocess.run([MOKKA, "inject", "--kubeconfig", self.kc, "--node", "gpu-node-0001",
                            "--node", "gpu-node-0004", "--gpu", "2", "--lost", "--name", "lost2",
                            "--wait", "20s"], capture_output=True, text=True, env=self.env(), timeout=60)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        wait("allocatable 7 on the two nodes", lambda: [
            self.node("gpu-node-%04d" % i)["status"]["allocatable"][GPU] for i in range(5)] ==
            ["8", "7", "8", "8", "7"])
        rep = self.srv.get_object("gpufaultreports", "gpu-node-0004")
        self.assertEqual(rep["status"]["agent"]["mode"], "fleet")
        self.assertEqual([(e["name"], e["phase"], e["gpus"]) for e in rep["status"]["faults"]],
                         [("lost2", "Applied", [2])])
        # while a GPU is lost, the plugin fails every whole-GPU call: the pod fails
        self.add_pod(pod("p", "gpu-node-0004", 1))
        st = wait("pod p fails", lambda: (lambda x: x["status"] if x and x.get("status", {}).get("phase") == "Failed"
                                          else None)(self.get_pod("p")))
        self.assertIn("GPU is lost", st["message"])
        self.srv.delete_object("gpufaults", "lost2")
        wait("allocatable 8 again", lambda: all(
            self.node("gpu-node-%04d" % i)["status"]["allocatable"][GPU] == "8" for i in range(5)))

    def test_names_of_other_nodes_are_refused_unless_taken_over(self):
        self.srv.add_node("gpu-node-0002")
        fl = self.fleet("--nodes", "4", start=False)
        fl.start(wait_registered=False)
        self.assertEqual(fl.wait_exit(30), 2, fl.log())
        self.assertIn("1 of the fleet's node names are taken by nodes that are not fleet 'fleet''s "
                      "(no label mokka.io/fleet=fleet), the first gpu-node-0002", fl.log())
        self.assertEqual(sorted(self.srv.nodes), ["gpu-node-0002"])
        self.fleet("--nodes", "4", "--take-over")
        self.assertEqual(self.node("gpu-node-0002")["metadata"]["labels"]["mokka.io/fleet"], "fleet")

    def test_a_throttling_api_server_gets_every_node_once(self):
        self.srv.fail_next("create:nodes", 429, retry_after="1", times=6)
        stats = os.path.join(self.dir, "stats.json")
        fl = self.fleet("--nodes", "10", "--stats", stats)
        self.assertEqual(len(self.srv.nodes), 10)
        created = [e for e in self.srv.log if e["kind"] == "create:nodes"]
        self.assertEqual(sum(1 for e in created if e["status"] == 201), 10)
        self.assertEqual(sum(1 for e in created if e["status"] == 429), 6)
        fl.stop()
        with open(stats) as f:
            self.assertEqual(json.load(f)["retries"], 6)

    def test_an_api_server_that_lost_its_data_gets_the_nodes_back(self):
        self.fleet("--nodes", "6")
        for name in list(self.srv.nodes):
            self.srv.delete_node(name)
        for l in self.srv.objects("leases"):
            self.srv.delete_object("leases", l["metadata"]["name"], namespace="kube-node-lease")
        wait("every node registered again", lambda: len(self.srv.nodes) == 6, timeout=30)
        wait("and its lease", lambda: len(self.srv.objects("leases")) == 6, timeout=15)

    def test_gpufaults_work_once_their_crd_is_installed(self):
        self.tearDown()
        self.server(nodes=())          # a server without the CRDs
        self.kc = self.kubeconfig()
        fl = self.fleet("--nodes", "2")
        self.assertIn("GPUFaults cannot be watched", fl.log())
        self.assertIn("kubectl apply -f ci/deploy/gpufault-crd.yaml", fl.log())
        self.srv.install_crds_file(CRDS)
        wait("GPUFaults watched again", lambda: "GPUFaults are watched again" in fl.log(), timeout=30)
        self.srv.create_object("gpufaults", {"apiVersion": "mokka.io/v1alpha1", "kind": "GPUFault",
                                             "metadata": {"name": "late"},
                                             "spec": {"gpus": [1], "fault": {"xid": 79}}})
        wait("allocatable 7", lambda: all(self.node("gpu-node-%04d" % i)["status"]["allocatable"][GPU] == "7"
                                          for i in range(2)))

    def test_a_killed_fleet_takes_back_its_nodes_and_its_pods_devices(self):
        fl = self.fleet("--nodes", "3")
        uid0 = self.node("gpu-node-0000")["metadata"]["uid"]
        self.add_pod(pod("held", "gpu-node-0000", 6))
        wait("pod held runs", lambda: (self.get_pod("held") or {}).get("status", {}).get("phase") == "Running")
        fl.stop(signal.SIGKILL)
        fl2 = self.fleet("--nodes", "3")
        self.assertIn("3 nodes registered in", fl2.log())
        self.assertIn("(3 taken back)", fl2.log())
        self.assertEqual(len(self.srv.nodes), 3)
        self.assertEqual(self.node("gpu-node-0000")["metadata"]["uid"], uid0)
        self.add_pod(pod("three", "gpu-node-0000", 3))
        st = wait("pod three fails", lambda: (lambda x: x["status"] if x and x.get("status", {}).get("phase") == "Failed"
                                              else None)(self.get_pod("three")))
        self.assertIn("Requested: 3, Available: 2", st["message"])

    def test_stop_deletes_the_nodes_or_leaves_them_notready(self):
        fl = self.fleet("--nodes", "4", "--on-stop", "keep")
        self.assertEqual(fl.stop(), 0, fl.log())
        for name in self.srv.nodes:
            ready = [c for c in self.node(name)["status"]["conditions"] if c["type"] == "Ready"][0]
            self.assertEqual((ready["status"], ready["reason"]), ("False", "MokkaFleetStopped"))
        fl = self.fleet("--nodes", "4")
        self.assertIn("(4 taken back)", fl.log())
        self.assertEqual(fl.stop(), 0, fl.log())
        self.assertEqual(dict(self.srv.nodes), {})

    def test_usage_errors(self):
        for args, msg in ((["--nodes", "0"], "--nodes: '0' is not a number from 1 to 100000"),
                          ([], "how many nodes?"),
                          (["--nodes", "2", "--pool", "a=2"], "give one"),
                          (["--pool", "a"], "--pool: 'a' is not NAME=COUNT[:FILE]"),
                          (["--nodes", "2", "--mig-strategy", "x"], "not none, single or mixed"),
                          (["--nodes", "2", "--on-stop", "x"], "not delete or keep"),
                          (["--nodes", "2", "--labels", "team"], "--labels: 'team' is not KEY=VALUE"),
                          (["--nodes", "2", "--labels", "zone!=a"], "--labels: 'zone' is not KEY=VALUE"),
                          (["--nodes", "2", "--labels", "a b=c"], "--labels: at 'a b'")):
            p = subprocess.run([MOKKA, "fleet", "--kubeconfig", self.kc, *args], capture_output=True,
                               text=True, env=self.env(), timeout=30)
            self.assertEqual(p.returncode, 2, (args, p.stderr))
            self.assertIn(msg, p.stderr)
        bad = os.path.join(self.dir, "bad.yaml")
        with open(bad, "w") as f:
            f.write("devices:\n  - profile: nope\n")
        p = subprocess.run([MOKKA, "fleet", "--kubeconfig", self.kc, "--nodes", "2", "-c", bad],
                           capture_output=True, text=True, env=self.env(), timeout=30)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("node gpu-node-0000: %s:2:" % bad, p.stderr)
        p = subprocess.run([MOKKA, "fleet", "--kubeconfig", self.kc, "--nodes", "2", "-c", MIG_MIXED,
                            "--mig-strategy", "single"], capture_output=True, text=True, env=self.env(),
                           timeout=30)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("does not fit the device plugin", p.stderr)
        self.assertEqual(dict(self.srv.nodes), {})


if __name__ == "__main__":
    import unittest
    unittest.main()
