"""test_fleet_rig.py - `mokka fleet` against the rig's real kube-apiserver,
controller-manager and kube-scheduler v1.20 (../shared/rig, MOKKA_RIG):
virtual nodes that the cluster takes for real ones (Ready, leases renewed,
capacity and allocatable as NVIDIA's plugin makes the kubelet advertise
them, labels), a Job placed by the real scheduler and run to completion,
a pod that does not fit rejected as the kubelet rejects it, GPUFaults,
`mokka assert` on the virtual nodes, names taken by other nodes, and a
fleet that is killed and starts again.

Starts the API server and control plane when they are down (and stops
only what it started); skips, saying so, without MOKKA_RIG. Each test has
its own fleet name and node prefix, and deletes what it made."""
import json
import os
import signal
import subprocess
import time
import unittest

from cli_support import MOKKA, MIG_MIXED, SAN
from fleetkit import Fleet, apply, kjson, kubectl, wait, clean_env
from rig_support import RIG, rig_down, rig_up

GPU = "nvidia.com/gpu"
_started = []


def setUpModule():
    if not RIG:
        raise unittest.SkipTest("set MOKKA_RIG to the rig ../shared/rig builds (e.g. /var/cache/mokka-rig)")
    if not os.access(os.path.join(RIG, "bin", "kubectl"), os.X_OK):
        raise unittest.SkipTest(f"MOKKA_RIG={RIG} holds no built rig (bin/kubectl)")
    if os.geteuid() != 0:
        raise unittest.SkipTest("the rig's scripts need root")
    _started.extend(rig_up("apiserver", "controlplane"))
    kc = os.path.join(RIG, "apiserver", "kubeconfig-token.yaml")
    kubectl(kc, "apply", "-f", os.path.join(os.path.dirname(MOKKA), "ci", "deploy", "gpufault-crd.yaml"))


def tearDownModule():
    rig_down(_started)


def uuids(node, config=None):
    args = [MOKKA, "render", "--node", node, "--format", "json"] + (["-c", config] if config else [])
    u = json.loads(subprocess.run(args, capture_output=True, text=True, check=True, env=clean_env()).stdout)
    return [d["uuid"] for d in u["devices"]]


class FleetRig(unittest.TestCase):
    def setUp(self):
        if SAN:
            self.skipTest("one build is enough: the fleet's ASan run is the stand-in's test")
        self.kc = os.path.join(RIG, "apiserver", "kubeconfig-token.yaml")
        self.fleets = []
        self.name = self.id().split(".")[-1].replace("_", "-")[5:][:20].strip("-")
        self.prefix = "f-%s-" % self.name

    def tearDown(self):
        for fl in self.fleets:
            fl.stop(signal.SIGTERM)
        kubectl(self.kc, "delete", "jobs,pods", "-l", "fleet-test=" + self.name, "--wait=false",
                check=False)
        kubectl(self.kc, "delete", "nodes", "-l", "mokka.io/fleet=" + self.name, check=False)

    def fleet(self, *args, start=True):
        fl = Fleet(self.kc, ["--name", self.name, "--prefix", self.prefix, *args])
        self.fleets.append(fl)
        return fl.start() if start else fl

    def nodes(self):
        return {n["metadata"]["name"]: n for n in
                kjson(self.kc, "get", "nodes", "-l", "mokka.io/fleet=" + self.name)["items"]}

    def pods(self):
        return kjson(self.kc, "get", "pods", "-n", "default", "-l", "fleet-test=" + self.name)["items"]

    def pod(self, name, node, gpus, run_time=None, resource=GPU):
        meta = {"name": name, "namespace": "default", "labels": {"fleet-test": self.name}}
        if run_time:
            meta["annotations"] = {"mokka.io/run-time": run_time}
        apply(self.kc, {"apiVersion": "v1", "kind": "Pod", "metadata": meta,
                        "spec": {"nodeName": node, "restartPolicy": "Never",
                                 "terminationGracePeriodSeconds": 0,
                                 "containers": [{"name": "c", "image": "rig.local/busybox:1",
                                                 "resources": {"limits": {resource: gpus}}}]}})

    def pod_status(self, name):
        return kjson(self.kc, "get", "pod", "-n", "default", name).get("status", {})

    def test_nodes_are_ready_with_the_plugins_resources_and_leases(self):
        self.fleet("--nodes", "6", "-c", MIG_MIXED, "--mig-strategy", "mixed", "--labels", "team=a")
        ns = self.nodes()
        self.assertEqual(sorted(ns), ["%s%04d" % (self.prefix, i) for i in range(6)])
        for name, n in ns.items():
            labels, st = n["metadata"]["labels"], n["status"]
            self.assertEqual(labels["mokka.io/fleet"], self.name)
            self.assertEqual(labels["team"], "a")
            self.assertEqual(labels["kubernetes.io/hostname"], name)
            self.assertEqual(st["capacity"], st["allocatable"])
            mig = {k: v for k, v in st["capacity"].items() if k.startswith("nvidia.com/mig-")}
            self.assertTrue(mig, st["capacity"])
            ready = [c for c in st["conditions"] if c["type"] == "Ready"][0]
            self.assertEqual(ready["status"], "True")
        # leases renewed every 10 s, as a kubelet's
        lease = lambda: kjson(self.kc, "get", "lease", "-n", "kube-node-lease", self.prefix + "0003")
        first = lease()["spec"]["renewTime"]
        self.assertEqual(lease()["spec"]["holderIdentity"], self.prefix + "0003")
        wait("the lease is renewed", lambda: lease()["spec"]["renewTime"] != first, timeout=15)
        # mokka assert takes them for real nodes
        suite = os.path.join(self.fleets[0].dir, "suite.yaml")
        with open(suite, "w") as f:
            f.write("suite: fleet\ncases:\n  - name: ready\n    expect:\n"
                    "      condition: {type: Ready, status: \"True\"}\n"
                    "  - name: mig devices\n    expect:\n      resource: nvidia.com/mig-1g.5gb\n"
                    "      allocatable: \">=1\"\n")
        p = subprocess.run([MOKKA, "assert", "--kubeconfig", self.kc, "-l", "mokka.io/fleet=" + self.name,
                            "-s", suite], capture_output=True, text=True, env=clean_env(), timeout=120)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)

    def test_a_job_runs_on_the_fleet_and_frees_its_gpus(self):
        self.fleet("--nodes", "3")
        apply(self.kc, {"apiVersion": "batch/v1", "kind": "Job",
                        "metadata": {"name": self.name, "namespace": "default",
                                     "labels": {"fleet-test": self.name}},
                        "spec": {"completions": 24, "parallelism": 12, "template": {
                            "metadata": {"labels": {"fleet-test": self.name},
                                         "annotations": {"mokka.io/run-time": "2s"}},
                            "spec": {"restartPolicy": "Never", "terminationGracePeriodSeconds": 0,
                                     "containers": [{"name": "c", "image": "rig.local/busybox:1",
                                                     "resources": {"limits": {GPU: 2}}}]}}}})
        seen = {}

        def done():
            for p in self.pods():
                ann = p["metadata"].get("annotations", {}).get("mokka.io/devices")
                if ann and p["status"].get("phase") == "Running":
                    seen[p["metadata"]["name"]] = (p["spec"]["nodeName"], json.loads(ann)[GPU])
            job = kjson(self.kc, "get", "job", "-n", "default", self.name)
            return job["status"].get("succeeded") == 24
        wait("the Job's 24 pods succeed", done, timeout=120, step=0.3)
        self.assertTrue(seen)
        for name, (node, ids) in seen.items():
            self.assertEqual(len(ids), 2, name)
            self.assertTrue(set(ids) <= set(uuids(node)), (name, node, ids))
        # every GPU free again
        for n in self.nodes().values():
            self.assertEqual(n["status"]["allocatable"][GPU], "8")

    def test_a_pod_that_does_not_fit_fails_as_the_kubelet_fails_it(self):
        self.fleet("--nodes", "1")
        node = self.prefix + "0000"
        self.pod("six", node, 6)
        wait("pod six runs", lambda: self.pod_status("six").get("phase") == "Running")
        self.pod("three", node, 3)
        st = wait("pod three fails", lambda: (lambda s: s if s.get("phase") == "Failed" else None)(
            self.pod_status("three")))
        self.assertEqual(st["reason"], "UnexpectedAdmissionError")
        self.assertEqual(st["message"], "Allocate failed due to requested number of devices unavailable "
                         "for nvidia.com/gpu. Requested: 3, Available: 2, which is unexpected")
        # deleting the big one frees its GPUs; a pod deleted on a virtual node goes (grace 0)
        kubectl(self.kc, "delete", "pod", "-n", "default", "six", "--wait=true", timeout=30)
        self.pod("eight", node, 8)
        wait("pod eight runs", lambda: self.pod_status("eight").get("phase") == "Running")

    def test_gpufaults_take_gpus_out_of_allocatable_and_are_reported(self):
        self.fleet("--nodes", "4")
        sel = ["--kubeconfig", self.kc, "--selector", "mokka.io/fleet=" + self.name]
        p = subprocess.run([MOKKA, "inject", *sel, "--gpu", "0,1", "--xid", "79", "--name",
                            self.name + "-x79", "--wait", "30s"], capture_output=True, text=True,
                           env=clean_env(), timeout=60)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("applied on 4 of 4 nodes", p.stdout + p.stderr)
        wait("allocatable 6 on every node", lambda: all(
            n["status"]["allocatable"][GPU] == "6" for n in self.nodes().values()))
        self.assertTrue(all(n["status"]["capacity"][GPU] == "8" for n in self.nodes().values()))
        rep = kjson(self.kc, "get", "gpufaultreport", self.prefix + "0002")
        self.assertEqual(rep["status"]["agent"]["mode"], "fleet")
        # an application XID (13) leaves the GPU to the plugin: healthy
        p = subprocess.run([MOKKA, "inject", *sel, "--gpu", "5", "--xid", "13", "--name",
                            self.name + "-x13", "--wait", "30s"], capture_output=True, text=True,
                           env=clean_env(), timeout=60)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        time.sleep(1)
        self.assertTrue(all(n["status"]["allocatable"][GPU] == "6" for n in self.nodes().values()))
        for f in ("-x79", "-x13"):
            subprocess.run([MOKKA, "inject", "--kubeconfig", self.kc, "--clear", self.name + f,
                            "--wait", "30s"], capture_output=True, env=clean_env(), timeout=60)
        wait("allocatable back to 8", lambda: all(
            n["status"]["allocatable"][GPU] == "8" for n in self.nodes().values()))

    def test_names_of_other_nodes_are_refused_unless_taken_over(self):
        other = self.prefix + "0001"
        apply(self.kc, {"apiVersion": "v1", "kind": "Node", "metadata": {"name": other}})
        try:
            fl = self.fleet("--nodes", "3", start=False)
            fl.start(wait_registered=False)
            self.assertEqual(fl.wait_exit(60), 2, fl.log())
            self.assertIn("taken by nodes that are not fleet '%s''s" % self.name, fl.log())
            self.assertIn(other, fl.log())
            self.assertFalse(self.nodes(), "nothing registered")
            self.fleet("--nodes", "3", "--take-over")
            self.assertEqual(len(self.nodes()), 3)
        finally:
            kubectl(self.kc, "delete", "node", other, check=False)

    def test_a_killed_fleet_takes_its_nodes_and_pods_back(self):
        fl = self.fleet("--nodes", "2")
        node = self.prefix + "0000"
        self.pod("held", node, 5)
        wait("pod held runs", lambda: self.pod_status("held").get("phase") == "Running")
        fl.stop(signal.SIGKILL)
        self.assertEqual(len(self.nodes()), 2)
        fl2 = self.fleet("--nodes", "2")
        self.assertIn("2 taken back", fl2.log())
        self.assertEqual(len(self.nodes()), 2)
        # the held pod's 5 GPUs stay its own: only 3 are free
        self.pod("four", node, 4)
        st = wait("pod four fails", lambda: (lambda s: s if s.get("phase") == "Failed" else None)(
            self.pod_status("four")))
        self.assertIn("Requested: 4, Available: 3", st["message"])

    def test_stop_leaves_nodes_notready_or_deletes_them(self):
        fl = self.fleet("--nodes", "5", "--on-stop", "keep")
        self.assertEqual(fl.stop(), 0, fl.log())
        for n in self.nodes().values():
            ready = [c for c in n["status"]["conditions"] if c["type"] == "Ready"][0]
            self.assertEqual((ready["status"], ready["reason"]), ("False", "MokkaFleetStopped"))
        fl = self.fleet("--nodes", "5")
        self.assertIn("5 taken back", fl.log())
        t0 = time.time()
        self.assertEqual(fl.stop(), 0, fl.log())
        self.assertLess(time.time() - t0, 30)
        self.assertEqual(self.nodes(), {})

    def test_the_readmes_scheduler_ab_test(self):
        """README's worked example: the same 40 one-GPU pods on 16 nodes,
        placed by the default scheduler (spread: the suite fails) and by a
        bin-packing profile of a second kube-scheduler (it passes)."""
        self.fleet("--nodes", "16")
        d = self.fleets[0].dir
        cfg = os.path.join(d, "binpack.yaml")
        with open(cfg, "w") as f:
            f.write(BINPACK % self.kc)
        sched = subprocess.Popen([os.path.join(RIG, "bin", "kube-scheduler"), "--config", cfg, "--port=0",
                                  "--secure-port=0"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.addCleanup(lambda: (sched.terminate(), sched.wait(30)))
        suite = os.path.join(d, "packed.yaml")
        with open(suite, "w") as f:
            f.write(PACKED)
        verdicts = {}
        for scheduler in ("default-scheduler", "bin-packing"):
            job = "train-" + scheduler
            apply(self.kc, {"apiVersion": "batch/v1", "kind": "Job",
                            "metadata": {"name": job, "namespace": "default", "labels": {"fleet-test": self.name}},
                            "spec": {"completions": 40, "parallelism": 40, "template": {
                                "metadata": {"labels": {"fleet-test": self.name}},
                                "spec": {"schedulerName": scheduler, "restartPolicy": "Never",
                                         "terminationGracePeriodSeconds": 0,
                                         "containers": [{"name": "c", "image": "rig.local/busybox:1",
                                                         "resources": {"limits": {GPU: 1}}}]}}}})
            wait(job + " placed", lambda: sum(1 for p in self.pods() if p["status"].get("phase") == "Running")
                 == 40, timeout=120)
            p = subprocess.run([MOKKA, "assert", "--kubeconfig", self.kc, "-l", "mokka.io/fleet=" + self.name,
                                "-s", suite, "--timeout", "20s"], capture_output=True, text=True,
                               env=clean_env(), timeout=120)
            verdicts[scheduler] = (p.returncode, [l for l in p.stderr.splitlines() if "fleet:" in l])
            kubectl(self.kc, "delete", "job", "-n", "default", job, "--wait=true", timeout=120)
            wait("the pods gone", lambda: not self.pods(), timeout=120)
        self.assertEqual(verdicts["default-scheduler"][0], 1, verdicts)
        self.assertEqual(verdicts["bin-packing"][0], 0, verdicts)
        self.assertIn(" 0 partly used", verdicts["bin-packing"][1][-1])


BINPACK = """\
apiVersion: kubescheduler.config.k8s.io/v1beta1
kind: KubeSchedulerConfiguration
clientConnection: {kubeconfig: %s}
leaderElection: {leaderElect: false}
profiles:
  - schedulerName: bin-packing
    plugins:
      score:
        disabled: [{name: NodeResourcesLeastAllocated}]
        enabled: [{name: NodeResourcesMostAllocated, weight: 10}]
    pluginConfig:
      - name: NodeResourcesMostAllocated
        args: {resources: [{name: nvidia.com/gpu, weight: 10}, {name: cpu, weight: 1}, {name: memory, weight: 1}]}
"""

PACKED = """\
suite: fragmentation
cases:
  - name: placed, and packed
    within: 10s
    expect:
      fleet:
        pods: {running: 40}
        unscheduled: 0
        partly-used: "<=1"
        stranded: {request: 8, count: "<=8"}
"""


if __name__ == "__main__":
    unittest.main()
