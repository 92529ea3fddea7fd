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
