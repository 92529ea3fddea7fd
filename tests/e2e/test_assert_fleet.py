"""test_assert_fleet.py - `mokka assert` with fleet expectations, end to end
against the stand-in API server (tests/standins/fake_apiserver.py): 50
nodes and pods in every phase, the numbers a fleet adds up to (nodes,
Ready, allocatable, used, free, fragmentation, pods by phase and per node,
pods not scheduled), one LIST and one WATCH of pods for all of them, a
failing expectation naming the numbers and the worst nodes, and `within:`
that becomes true when a pod finishes."""
import os
import subprocess
import threading
import time
import xml.dom.minidom

import kubetest

MOKKA = os.path.join(kubetest.BUILD, "mokka")
NODES = 50


def fleet_of(srv):
    """50 nodes of 8 GPUs (label pool=a on the first 40), pods on them:
    node i < 30 runs (i % 4) + 1 one-GPU pods plus a finished and a failed
    pod; node 7 has 8 GPUs used by one pod; two pods wait unscheduled."""
    for i in range(NODES):
        srv.add_node(f"gpu-node-{i:04d}", labels={"pool": "a" if i < 40 else "b"})
    srv.set_condition("gpu-node-0049", "Ready", "False", "KubeletNotReady", "PLEG is not healthy")
    srv.set_allocatable("gpu-node-0048", value=0)
    for i in range(30):
        if i == 7:
            srv.add_pod("team-a", "big-7", node="gpu-node-0007", phase="Running", gpus=8)
            continue
        for j in range((i % 4) + 1):
            srv.add_pod("team-a", f"train-{i}-{j}", node=f"gpu-node-{i:04d}", phase="Running", gpus=1)
    srv.add_pod("team-a", "done-1", node="gpu-node-0001", phase="Succeeded", gpus=8)
    srv.add_pod("team-b", "crashed-2", node="gpu-node-0002", phase="Failed", gpus=8)
    srv.add_pod("team-a", "starting-3", node="gpu-node-0003", phase="Pending", gpus=1)
    srv.add_pod("team-b", "waits-1", gpus=16, labels={"app": "huge"},
                unschedulable="0/50 nodes are available: 50 Insufficient nvidia.com/gpu.")
    srv.add_pod("team-b", "waits-2", gpus=16, labels={"app": "other"})


# What fleet_of adds up to: 30 nodes used; node 7: 8; the others (i%4)+1 each.
USED = sum(8 if i == 7 else (i % 4) + 1 for i in range(30)) + 1   # + starting-3
ALLOC = 8 * (NODES - 1)                                              # node 48 has none

PASSING = f"""\
suite: fleet
cases:
  - name: the fleet adds up
    expect:
      fleet:
        nodes: {NODES}
        ready: {NODES - 1}
        advertising: {NODES - 1}
        allocatable: {ALLOC}
        used: {USED}
        free: {ALLOC - USED}
        partly-used: 29
        stranded: [{{request: 8, count: {30 * 8 - USED}}}, {{request: 1, count: 0}}]
        largest-fit: 8
        pods: {{running: {USED - 9 + 1}, pending: 1, succeeded: 1, failed: 1, all: {USED - 9 + 1 + 3}}}
        pods-per-node: {{min: 0, max: 5}}
        unscheduled: 2
  - name: the pool a fleet
    expect:
      resource: nvidia.com/gpu
      fleet:
        selector: {{pool: a}}
        nodes: 40
        ready: 40
        unscheduled: {{count: 1, namespace: team-b, selector: {{app: huge}}}}
"""


class FleetAssertTest(kubetest.KubeTestCase):
    def write(self, name, text):
        path = os.path.join(self.dir, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def mokka(self, *args, timeout=60):
        return subprocess.run([MOKKA, *args], capture_output=True, text=True,
                              env=self.env(NO_COLOR="1"), timeout=timeout * kubetest.SLOW)

    def test_the_numbers_of_50_nodes_and_their_pods(self):
        srv = self.server(nodes=())
        fleet_of(srv)
        out = os.path.join(self.dir, "r.xml")
        r = self.mokka("assert", "--kubeconfig", self.kubeconfig(), "--suite",
                       self.write("s.yaml", PASSING), "--junit", out)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        cases = xml.dom.minidom.parse(out).getElementsByTagName("testcase")
        self.assertEqual(len(cases), 2, "one result per fleet case, not per node")
        # one LIST and one WATCH of pods for all the nodes, none per node
        self.assertEqual(srv.counts["list:pods"], 1)
        self.assertLessEqual(srv.counts["watch:pods"], 1)
        self.assertEqual(srv.counts["get:pods"], 0)
        self.assertIn("2 lists,", r.stderr)
        # the totals once, where the pods were watched anyway
        self.assertIn(f"mokka assert: fleet: {NODES} nodes ({NODES - 1} Ready), nvidia.com/gpu "
                      f"{ALLOC} allocatable, {USED} used, {ALLOC - USED} free, 29 partly used, "
                      f"largest fit 8; {USED - 8 + 3} pods on them, {USED - 8} running; "
                      "2 pods not scheduled\n", r.stderr)

    def test_1000_nodes_and_8000_pods_in_pages_of_one_list(self):
        srv = self.server(nodes=())
        for i in range(1000):
            srv.add_node(f"gpu-node-{i:04d}")
        for i in range(8000):   # 8 one-GPU pods a node, the last node's still waiting
            node = f"gpu-node-{i // 8:04d}" if i < 7992 else None
            srv.add_pod("load", f"p-{i:05d}", node=node, phase="Running" if node else "Pending",
                        gpus=1)
        suite = self.write("s.yaml", """\
cases:
  - name: packed
    expect:
      fleet: {nodes: 1000, used: 7992, free: 8, partly-used: 0, largest-fit: 8,
              pods: {running: 7992}, pods-per-node: {min: 0, max: 8}, unscheduled: 8}
""")
        t0 = time.monotonic()
        r = self.mokka("assert", "--kubeconfig", self.kubeconfig(), "--suite", suite)
        took = time.monotonic() - t0
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        # 16 pages of 500 from one snapshot, then one watch: nothing per node
        self.assertEqual(srv.counts["list:pods"], 16)
        self.assertLessEqual(srv.counts["watch:pods"], 1)
        self.assertLess(took, 60 * kubetest.SLOW)

    def test_a_failure_names_the_numbers_and_the_worst_nodes(self):
        srv = self.server(nodes=())
        fleet_of(srv)
        suite = self.write("s.yaml", """\
cases:
  - name: packed
    expect:
      fleet: {partly-used: 0, stranded: {request: 8, count: "<=4"}}
""")
        out = os.path.join(self.dir, "r.xml")
        r = self.mokka("assert", "--kubeconfig", self.kubeconfig(), "--suite", suite,
                       "--junit", out, "--report", "json")
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        failure = xml.dom.minidom.parse(out).getElementsByTagName("failure")[0]
        message, text = failure.getAttribute("message"), failure.toxml()
        self.assertIn("29 nodes partly used (nvidia.com/gpu), expected 0 (50 nodes)", message)
        # the worst nodes first: the most used of those partly used
        self.assertIn("gpu-node-0003: 5 of 8 used", text)   # 4 running + starting-3
        self.assertIn("(and 24 more)", text)
        self.assertIn(f"actual:   nvidia.com/gpu free but stranded for a request of 8: {30 * 8 - USED}",
                      text)
        self.assertIn("gpu-node-0000: 7 of 8 free", text)

    def test_pods_not_scheduled_are_named_with_the_schedulers_reason(self):
        srv = self.server(nodes=())
        fleet_of(srv)
        suite = self.write("s.yaml", "cases:\n  - name: all placed\n    expect:\n"
                           "      fleet: {unscheduled: {count: 0, namespace: team-b}}\n")
        out = os.path.join(self.dir, "r.xml")
        r = self.mokka("assert", "--kubeconfig", self.kubeconfig(), "--suite", suite, "--junit", out)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        text = xml.dom.minidom.parse(out).getElementsByTagName("failure")[0].toxml()
        self.assertIn("2 pods not scheduled in team-b, expected 0", text)
        self.assertIn("team-b/waits-1: 0/50 nodes are available: 50 Insufficient nvidia.com/gpu.", text)
        self.assertIn("team-b/waits-2: not scheduled yet", text)

    def test_within_becomes_true_when_a_pod_finishes(self):
        srv = self.server(nodes=())
        fleet_of(srv)
        suite = self.write("s.yaml", f"""\
cases:
  - name: node 7 drains
    within: 20s
    expect:
      fleet: {{used: {USED - 8}, largest-fit: 8, pods: {{succeeded: 2}}}}
""")
        finished = []

        def finish():
            time.sleep(1.5 * kubetest.SLOW)
            finished.append(srv.set_pod_phase("team-a", "big-7", "Succeeded"))
        t = threading.Thread(target=finish)
        t.start()
        r = self.mokka("assert", "--kubeconfig", self.kubeconfig(), "--suite", suite)
        t.join()
        done = time.time()
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertLess(done - finished[0], 15 * kubetest.SLOW)
        # waited on the watch, not by listing again
        self.assertEqual(srv.counts["list:pods"], 1)

    def test_with_one_node_the_pods_are_those_bound_to_it(self):
        srv = self.server(nodes=())
        fleet_of(srv)
        suite = self.write("s.yaml", "cases:\n  - name: node 3\n    expect:\n"
                           "      fleet: {nodes: 1, used: 5, pods: {running: 4, pending: 1}}\n")
        r = self.mokka("assert", "--kubeconfig", self.kubeconfig(), "--node", "gpu-node-0003",
                       "--suite", suite)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        paths = [e["path"] for e in srv.log if e["resource"] == "pods"]
        self.assertTrue(paths and all("fieldSelector=spec.nodeName%3Dgpu-node-0003" in p
                                      for p in paths), paths)

    def test_fleet_mixed_with_per_node_expectations_is_a_config_error(self):
        suite = self.write("s.yaml", "cases:\n  - name: mixed\n    expect:\n"
                           "      capacity: 8\n      fleet: {nodes: 1}\n")
        r = self.mokka("lint", suite)
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("s.yaml:4:7", r.stdout + r.stderr)
        self.assertIn("put them in cases of their own", r.stdout + r.stderr)


class FleetOnTheRig(kubetest.KubeTestCase):
    """The same numbers from the rig's real API server (MOKKA_RIG): Nodes
    made with POST (their status given, as a kubelet's registration does),
    pods bound by spec.nodeName and their phase set through pods/status, one
    left to the real scheduler to refuse. Only this test's own objects (its
    namespace, nodes named after it), deleted at the end; the rig is never
    started or stopped here."""

    def setUp(self):
        super().setUp()
        rig = os.environ.get("MOKKA_RIG", "")
        if not rig:
            self.skipTest("MOKKA_RIG is unset: no real API server")
        self.kubectl = os.path.join(rig, "bin", "kubectl")
        self.kc = os.path.join(rig, "apiserver", "kubeconfig-token.yaml")
        if not (os.access(self.kubectl, os.X_OK) and os.path.isfile(self.kc)):
            self.skipTest(f"the rig has no {self.kubectl} or {self.kc}")
        if subprocess.run(["curl", "-sfk", "https://127.0.0.1:6443/healthz"],
                          capture_output=True, timeout=10).returncode != 0:
            self.skipTest("the rig's API server is not up (https://127.0.0.1:6443/healthz)")
        self.id = f"fsuite-{os.getpid()}-{int(time.time()) % 100000}"
        self.ns = "mokka-" + self.id

    def k(self, *args, stdin=None, check=True):
        r = subprocess.run([self.kubectl, "--kubeconfig", self.kc, *args], input=stdin,
                           capture_output=True, text=True, timeout=60)
        if check and r.returncode != 0:
            raise AssertionError(f"kubectl {' '.join(args)}: {r.stderr}")
        return r.stdout

    def create(self, obj):
        import json
        return self.k("create", "-f", "-", "-o", "json", stdin=json.dumps(obj))

    def node(self, name):
        now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        res = {"cpu": "8", "memory": "32Gi", "pods": "110", "nvidia.com/gpu": "8"}
        self.create({"apiVersion": "v1", "kind": "Node",
                     "metadata": {"name": name, "labels": {"mokka.io/fsuite-test": self.id}},
                     # nothing else is to land here: there is no kubelet behind it
                     "spec": {"taints": [{"key": "mokka.io/fsuite-test", "value": self.id,
                                          "effect": "NoSchedule"}]},
                     "status": {"capacity": res, "allocatable": res, "conditions": [
                         {"type": "Ready", "status": "True", "reason": "KubeletReady",
                          "message": "mokka fleet test", "lastHeartbeatTime": now,
                          "lastTransitionTime": now}]}})
        self.addCleanup(self.k, "delete", "node", name, "--wait=false", check=False)

    def pod(self, name, gpus, node=None):
        spec = {"containers": [{"name": "main", "image": "busybox",
                                "resources": {"limits": {"nvidia.com/gpu": str(gpus)}}}]}
        if node:
            spec["nodeName"] = node
        else:
            spec["nodeSelector"] = {"mokka.io/fsuite-none": "x"}   # the scheduler finds none
        for _ in range(60):   # until the namespace's default service account exists
            try:
                self.create({"apiVersion": "v1", "kind": "Pod",
                             "metadata": {"name": name, "namespace": self.ns}, "spec": spec})
                return
            except AssertionError as e:
                if "serviceaccount" not in str(e):
                    raise
                time.sleep(0.5)
        self.fail("the namespace's default service account never came")

    def phase(self, name, phase):
        import json
        pod = json.loads(self.k("-n", self.ns, "get", "pod", name, "-o", "json"))
        pod["status"]["phase"] = phase
        path = os.path.join(self.dir, name + ".json")
        with open(path, "w") as f:
            json.dump(pod, f)
        self.k("replace", "--raw", f"/api/v1/namespaces/{self.ns}/pods/{name}/status", "-f", path)

    def test_fleet_numbers_from_the_real_api_server(self):
        nodes = [f"{self.id}-node-{i}" for i in range(3)]
        for n in nodes:
            self.node(n)
        self.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": self.ns}})
        self.addCleanup(self.k, "delete", "namespace", self.ns, "--wait=false", check=False)
        # pods on nodes without a kubelet go at once only when forced
        self.addCleanup(self.k, "-n", self.ns, "delete", "pods", "--all", "--grace-period=0",
                        "--force", check=False)
        self.pod("a1", 1, nodes[0])
        self.pod("a2", 1, nodes[0])
        self.pod("b", 8, nodes[1])
        self.pod("c", 1)
        self.phase("a1", "Running")
        self.phase("b", "Running")
        suite = os.path.join(self.dir, "s.yaml")
        with open(suite, "w") as f:
            f.write(f"""\
cases:
  - name: placed
    within: 30s
    expect:
      fleet:
        nodes: 3
        allocatable: 24
        used: 10
        free: 14
        partly-used: 1
        stranded: {{request: 8, count: 6}}
        largest-fit: 8
        pods: {{running: 2, pending: 1, all: 3}}
        pods-per-node: {{min: 0, max: 2}}
        unscheduled: {{count: 1, namespace: {self.ns}}}
  - name: b finishes
    within: 60s
    expect:
      fleet: {{used: 2, largest-fit: 8, partly-used: 1, pods: {{succeeded: 1, running: 1}}}}
""")
        t = threading.Timer(3 * kubetest.SLOW, self.phase, ("b", "Succeeded"))
        t.start()
        r = subprocess.run([MOKKA, "assert", "--kubeconfig", self.kc, "--selector",
                            f"mokka.io/fsuite-test={self.id}", "--suite", suite],
                           capture_output=True, text=True, timeout=120 * kubetest.SLOW,
                           env=dict(os.environ, NO_COLOR="1"))
        t.join()
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        # one watch of the nodes, one of the pods (the lists are pages: the
        # rig is shared, and its other pods count too)
        self.assertIn(" lists, 2 watches,", r.stderr)
