"""test_agent.py - `mokka agent` against the stand-in API server: GPUFault
objects that select a node (by name or label) reach its live state within
moments, deleting or expiring one clears it, faults on one GPU combine and
clear one at a time, a node that gains a label gets the faults that now
select it, an agent restarted on its state neither repeats nor forgets,
bad objects are reported Rejected with the reason (the agent lives on),
and each node's GPUFaultReport says what its agent did."""
import os
import shutil
import subprocess
import tempfile
import time
import unittest

from agentfleet import CRD_FILE, Fleet, FleetCase
from agentfleet import gpufault as fault
from cli_support import MOKKA

# What the DaemonSet's service account may do besides the agent's requests:
# GFD's labels on the Node (run --cluster --gfd) and the pod's Event.
RUN_ONLY = {("nodes", "get"), ("nodes", "patch"), ("events", "create"), ("events", "get"),
            ("events", "patch")}


class AgentTest(FleetCase):
    NODES = {"gpu-a": {"pool": "canary"}, "gpu-b": {"pool": "main"}}

    def gpus(self, node):
        return self.fleet.health(node)["gpus"]

    def create(self, obj, validate=True):
        if validate:
            return self.srv.create_object("gpufaults", obj)
        return self.srv.put_object("gpufaults", obj, validate=False)

    def applied(self, obj, nodes, phases=("Applied",)):
        return self.fleet.wait_phase(obj["metadata"]["uid"], nodes, set(phases), timeout=20)

    def test_label_selected_xid_applies_and_clears(self):
        self.fleet.start()
        f = self.create(fault("canary-xid", [3], {"xid": 79}, {"selector": {"matchLabels": {"pool": "canary"}}}))
        self.applied(f, ["gpu-a"])
        g = self.gpus("gpu-a")[3]
        self.assertEqual((g["health"], g["xidCount"], g["lastXid"]), ("xid 79", 1, 79))
        self.assertEqual([x["health"] for x in self.gpus("gpu-b")], ["healthy"] * 8)
        self.assertIsNone(self.fleet.phase("gpu-b", f["metadata"]["uid"]))
        e = self.fleet.phase("gpu-a", f["metadata"]["uid"])
        self.assertEqual((e["name"], e["resourceVersion"], e["gpus"]),
                         ("canary-xid", f["metadata"]["resourceVersion"], [3]))
        self.assertIn("applied GPUFault canary-xid (xid 79) to GPU 3 at resourceVersion",
                      self.fleet.log("gpu-a"))
        self.srv.delete_object("gpufaults", "canary-xid")
        self.applied(f, ["gpu-a"], ("Cleared",))
        self.assertEqual(self.gpus("gpu-a")[3]["health"], "healthy")
        self.assertEqual(self.gpus("gpu-a")[3]["xidCount"], 1)

    def test_two_faults_on_one_gpu_clear_one_at_a_time(self):
        # Both orders of raising: the XID fault first (seen apart), then the
        # lost one; and the lost one first. What holds after clearing the
        # lost fault is the same either way.
        self.fleet.start()
        for first, second in (("xid", "lost"), ("lost", "xid")):
            with self.subTest(first=first):
                objs = {"xid": fault("x", [1], {"xid": 31}, {"names": ["gpu-b"]}),
                        "lost": fault("l", [1, 2], {"lost": True}, {"names": ["gpu-b"]})}
                a = self.create(objs[first])
                self.applied(a, ["gpu-b"])
                b = self.create(objs[second])
                self.applied(b, ["gpu-b"])
                x, lost = (a, b) if first == "xid" else (b, a)
                self.assertEqual([g["health"] for g in self.gpus("gpu-b")[1:3]], ["lost", "lost"])
                self.srv.delete_object("gpufaults", "l")
                self.applied(lost, ["gpu-b"], ("Cleared",))
                g = self.gpus("gpu-b")
                self.assertEqual((g[1]["health"], g[1]["lastXid"], g[2]["health"]),
                                 ("xid 31", 31, "healthy"))
                self.srv.delete_object("gpufaults", "x")
                self.applied(x, ["gpu-b"], ("Cleared",))
                self.assertEqual(self.gpus("gpu-b")[1]["health"], "healthy")

    def test_every_gpu_of_every_node_and_expiry(self):
        self.fleet.start()
        f = self.create(fault("all", ["all"], {"ecc": "double"}, duration="2s"))
        self.applied(f, ["gpu-a", "gpu-b"])
        self.assertEqual({g["health"] for g in self.gpus("gpu-a")}, {"ecc"})
        self.applied(f, ["gpu-a", "gpu-b"], ("Expired",))
        self.assertEqual({g["health"] for g in self.gpus("gpu-b")}, {"healthy"})
        self.assertIn("it expired", self.fleet.log("gpu-a"))

    def test_pins_newest_wins(self):
        self.fleet.start()
        a = self.create(fault("hot", [0], {"set": {"temperature": "85"}}, {"names": ["gpu-a"]}))
        self.applied(a, ["gpu-a"])
        time.sleep(1.1)          # creationTimestamp has whole seconds
        b = self.create(fault("hotter", [0], {"set": {"temperature": "95", "power": "300W"}},
                              {"names": ["gpu-a"]}))
        self.applied(b, ["gpu-a"])
        m = self.gpus("gpu-a")[0]["metrics"]
        self.assertEqual((m["temperature"]["value"], m["power"]["value"]), (95, 300000))
        self.srv.delete_object("gpufaults", "hotter")
        self.applied(b, ["gpu-a"], ("Cleared",))
        m = self.gpus("gpu-a")[0]["metrics"]
        self.assertEqual(m["temperature"]["value"], 85)
        self.assertFalse(m["power"].get("pinned"))

    def test_node_that_gains_the_label_gets_the_fault(self):
        self.fleet.start()
        f = self.create(fault("c", [0], {"xid": 43}, {"selector": {"matchLabels": {"pool": "canary"}}}))
        self.applied(f, ["gpu-a"])
        self.srv.set_label("gpu-b", "pool", "canary")
        self.applied(f, ["gpu-b"])
        self.srv.set_label("gpu-a", "pool", "main")
        self.applied(f, ["gpu-a"], ("Cleared",))
        self.assertIn("it no longer selects this node", self.fleet.log("gpu-a"))

    def test_agent_that_starts_later_gets_the_faults_that_hold(self):
        f = self.create(fault("early", [5], {"ecc": "double"}))
        self.fleet.start()
        self.applied(f, ["gpu-a", "gpu-b"])
        self.assertEqual(self.gpus("gpu-b")[5]["health"], "ecc")

    def test_restarted_agent_neither_repeats_nor_forgets(self):
        self.fleet.start()
        keep = self.create(fault("keep", [2], {"xid": 79}, {"names": ["gpu-a"]}))
        gone = self.create(fault("gone", [4], {"lost": True}, {"names": ["gpu-a"]}))
        self.applied(keep, ["gpu-a"])
        self.applied(gone, ["gpu-a"])
        # The state outlives the agent: something else stays attached to it.
        holder = subprocess.Popen([MOKKA, "exec", "--state-dir", self.fleet.state_dir("gpu-a"), "--",
                                   "sleep", "60"], env=self.fleet.env)
        self.addCleanup(holder.kill)
        self.assertEqual(self.fleet.stop(), {"gpu-a": 0, "gpu-b": 0})
        self.assertFalse(self.fleet.report("gpu-a")["status"]["agent"]["running"])
        self.srv.delete_object("gpufaults", "gone")
        self.fleet.start_one("gpu-a")
        self.applied(gone, ["gpu-a"], ("Cleared",))
        self.fleet.wait_reports(["gpu-a"], 20)
        g = self.gpus("gpu-a")
        self.assertEqual((g[2]["health"], g[2]["xidCount"]), ("xid 79", 1))
        self.assertEqual(g[4]["health"], "healthy")

    def test_bad_objects_are_rejected_with_the_reason(self):
        self.fleet.start()
        cases = {
            "range": (fault("range", [9], {"xid": 79}), "gpu 9 is out of range: this node has GPUs 0-7"),
            "kind": (fault("kind", [0], {"melt": True}), "spec.fault"),
            "sel": (fault("sel", [0], {"xid": 79}, {"selector": {"matchExpressions": [
                {"key": "pool", "operator": "Equals", "values": ["a"]}]}}), "operator"),
            "uuid": (fault("uuid", ["GPU-00000000-0000-0000-0000-000000000000"], {"xid": 79}),
                     "is not a GPU of this node"),
        }
        made = {n: self.create(obj, validate=False) for n, (obj, _) in cases.items()}
        for n, (_, why) in cases.items():
            self.applied(made[n], ["gpu-a", "gpu-b"], ("Rejected",))
            self.assertIn(why, self.fleet.phase("gpu-a", made[n]["metadata"]["uid"])["reason"], n)
        self.assertEqual({g["health"] for g in self.gpus("gpu-a")}, {"healthy"})
        good = self.create(fault("good", [0], {"xid": 13}))
        self.applied(good, ["gpu-a", "gpu-b"])

    def test_node_not_in_api_server_and_no_crd(self):
        fleet = Fleet(self.srv, self.kubeconfig(), self.dir, ["ghost"])
        self.addCleanup(fleet.stop)
        fleet.start()
        self.assertIn("node ghost is not in the API server", fleet.log("ghost"))
        f = self.create(fault("named", [0], {"xid": 79}, {"names": ["ghost"]}))
        fleet.wait_phase(f["metadata"]["uid"], ["ghost"], {"Applied"}, timeout=20)
        self.srv.stop()
        self.server(nodes=("gpu-a",))          # a cluster without the CRD
        p = subprocess.run([MOKKA, "agent", "--kubeconfig", self.kubeconfig(name="kc2"), "--node", "gpu-a"],
                           capture_output=True, text=True, env=self.fleet.env, timeout=60)
        self.assertEqual(p.returncode, 3, p.stderr)
        self.assertIn("install their definition with kubectl apply -f ci/deploy/gpufault-crd.yaml", p.stderr)

    def inject(self, *args, timeout=90):
        return subprocess.run([MOKKA, "inject", "--kubeconfig", self.kubeconfig(name="kc-cli"), *args],
                              capture_output=True, text=True, env=self.fleet.env, timeout=timeout)

    def test_inject_cluster_with_real_agents(self):
        self.fleet.start()
        p = self.inject("--selector", "pool=canary", "--gpu", "3", "--xid", "79", "--name", "gpu3-xid79",
                        "--wait", "30s")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertRegex(p.stdout, r"GPUFault gpu3-xid79: applied on 1 of 1 nodes in [0-9.]+ s")
        self.assertEqual(self.gpus("gpu-a")[3]["health"], "xid 79")
        self.assertEqual(self.gpus("gpu-b")[3]["health"], "healthy")
        p = self.inject("--all-nodes", "--gpu", "9", "--lost", "--name", "nine", "--wait", "30s")
        self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
        self.assertIn("gpu-a: gpu 9 is out of range: this node has GPUs 0-7", p.stdout + p.stderr)
        p = self.inject("--list")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertRegex(p.stdout, r"gpu3-xid79\s+xid 79\s+3\s+pool=canary\s+1/1")
        self.assertRegex(p.stdout, r"nine\s+lost\s+9\s+.*0/2 \(2 rejected\)")
        p = self.inject("--clear", "gpu3-xid79", "--clear", "nine", "--wait", "30s")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertRegex(p.stdout, r"GPUFault gpu3-xid79: cleared on 1 nodes? in")
        self.assertEqual(self.gpus("gpu-a")[3]["health"], "healthy")

    def test_suite_inject_on_nodes_with_real_agents(self):
        self.fleet.start()
        suite = os.path.join(self.dir, "suite.yaml")
        with open(suite, "w") as f:
            f.write("suite: fleet\ncases:\n"
                    "  - name: canary loses GPU 2\n"
                    "    inject: {nodes: {selector: {pool: canary}}, gpu: 2, lost: true}\n"
                    "    expect: {label: {pool: canary}}\n")
        p = subprocess.run([MOKKA, "assert", "--kubeconfig", self.kubeconfig(name="kc-suite"), "--node", "gpu-a",
                            "--suite", suite, "--timeout", "60s"],
                           capture_output=True, text=True, env=self.fleet.env, timeout=90)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        # The suite's fault was applied by the agent, then removed at its end.
        self.assertEqual(self.srv.objects("gpufaults"), [])
        self.assertEqual(self.gpus("gpu-a")[2]["health"], "healthy")
        self.assertRegex(self.fleet.log("gpu-a"), r"applied GPUFault mokka-suite-\S+ \(lost\) to GPU 2")
        self.assertRegex(self.fleet.log("gpu-a"), r"cleared GPUFault mokka-suite-\S+ \(lost\) from GPU 2")

    def test_rbac_grants_exactly_what_agents_use(self):
        import yaml
        with open(os.path.join(os.path.dirname(CRD_FILE), "mokka-daemonset.yaml")) as f:
            role = next(d for d in yaml.safe_load_all(f) if d and d.get("kind") == "ClusterRole")
        granted = {(r, v) for rule in role["rules"] for r in rule["resources"] for v in rule["verbs"]}
        self.fleet.start()
        f = self.create(fault("rbac", [0], {"xid": 79}))
        self.applied(f, ["gpu-a", "gpu-b"])
        self.srv.delete_object("gpufaults", "rbac")
        self.applied(f, ["gpu-a", "gpu-b"], ("Cleared",))
        self.fleet.stop()
        used = {(e["resource"], e["verb"]) for e in self.srv.requests()}
        # the rest is for the pod's GFD labels and its Event (test_run_cluster_gfd.py)
        self.assertEqual(used, granted - RUN_ONLY)

    def test_second_agent_on_one_state_is_refused(self):
        # Two agents on one state would each rewrite cluster-faults.json from
        # what they alone applied (issue 20: 1,500 of 3,000 entries kept).
        self.fleet.start()
        first = self.fleet.procs["gpu-a"].pid
        for node in ("gpu-a", "gpu-b"):
            p = subprocess.run([MOKKA, "agent", "--kubeconfig", self.kubeconfig(), "--node", node,
                                "--state-dir", self.fleet.state_dir("gpu-a")],
                               capture_output=True, text=True, env=self.fleet.env, timeout=60)
            self.assertEqual(p.returncode, 3, p.stderr)
            self.assertIn("another agent (pid %d) already applies GPUFaults to the live state in %s: "
                          "one agent per state directory" % (first, self.fleet.state_dir("gpu-a")),
                          p.stderr)
        self.assertIsNone(self.fleet.procs["gpu-a"].poll())
        f = self.create(fault("after", [1], {"xid": 31}, {"names": ["gpu-a"]}))
        self.applied(f, ["gpu-a"])
        self.assertEqual(self.gpus("gpu-a")[1]["xidCount"], 1)

    def test_help_and_usage(self):
        p = subprocess.run([MOKKA, "agent", "--help"], capture_output=True, text=True)
        self.assertEqual(p.returncode, 0)
        self.assertIn("Usage: mokka agent [OPTIONS]", p.stdout)
        p = subprocess.run([MOKKA, "agent", "extra"], capture_output=True, text=True)
        self.assertEqual(p.returncode, 2)
        self.assertIn("unexpected argument 'extra'", p.stderr)


class RealCluster(unittest.TestCase):
    """With MOKKA_TEST_KUBECONFIG: the CRDs install with kubectl apply, and an
    agent on the cluster's first node applies a fault that names it."""

    def setUp(self):
        self.kc = os.environ.get("MOKKA_TEST_KUBECONFIG")
        if not self.kc:
            self.skipTest("MOKKA_TEST_KUBECONFIG is not set: no real cluster to test against")
        if not shutil.which("kubectl"):
            self.skipTest("no kubectl to install the CRDs with")

    def kubectl(self, *args):
        p = subprocess.run(["kubectl", "--kubeconfig", self.kc, *args], capture_output=True, text=True,
                           timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        return p.stdout

    def test_agent_on_a_real_node(self):
        self.kubectl("apply", "-f", CRD_FILE)
        self.kubectl("wait", "--for=condition=Established", "crd/gpufaults.mokka.io",
                     "crd/gpufaultreports.mokka.io", "--timeout=60s")
        node = self.kubectl("get", "nodes", "-o", "jsonpath={.items[0].metadata.name}")
        tmp = tempfile.mkdtemp(prefix="mokka-real-")
        self.addCleanup(shutil.rmtree, tmp, True)
        env = dict(os.environ, MOKKA_RUNTIME_DIR=tmp)
        agent = subprocess.Popen([MOKKA, "agent", "--kubeconfig", self.kc, "--node", node,
                                  "--state-dir", os.path.join(tmp, "state")],
                                 stderr=subprocess.PIPE, text=True, env=env)
        self.addCleanup(agent.kill)
        name = "mokka-e2e-%d" % os.getpid()
        self.addCleanup(subprocess.run, ["kubectl", "--kubeconfig", self.kc, "delete", "gpufault", name,
                                         "--ignore-not-found"], capture_output=True)
        time.sleep(2)
        p = subprocess.run([MOKKA, "inject", "--kubeconfig", self.kc, "--node", node, "--gpu", "1",
                            "--xid", "79", "--name", name, "--wait", "60s"],
                           capture_output=True, text=True, env=env, timeout=90)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("applied on 1 of 1 nodes", p.stdout)
        p = subprocess.run([MOKKA, "inject", "--kubeconfig", self.kc, "--clear", name, "--wait", "60s"],
                           capture_output=True, text=True, env=env, timeout=90)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        agent.terminate()
        self.assertEqual(agent.wait(30), 0, agent.stderr.read())


if __name__ == "__main__":
    unittest.main()
