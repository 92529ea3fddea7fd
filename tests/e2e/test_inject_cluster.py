"""test_inject_cluster.py - `mokka inject --cluster` and suite injects with
nodes: end to end, against the stand-in API server with the GPUFault
resources installed (ci/deploy/gpufault-crd.yaml). The Mokka agents are
simulated: a thread writes each node's GPUFaultReport in reaction to the
GPUFaults it sees, with chosen nodes rejecting or never answering."""
import json
import os
import re
import signal
import subprocess
import threading
import time
import unittest

import kubetest
from kubetest import SLOW, SRC

MOKKA = os.path.join(kubetest.BUILD, "mokka")
CRDS = os.path.join(SRC, "ci", "deploy", "gpufault-crd.yaml")
REASON = "gpu 9 is out of range: this node has GPUs 0-7"


def now3339():
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


class Agents:
    """Simulated agents on `nodes`: each has a GPUFaultReport (running)
    and answers every GPUFault that selects it - Applied, Rejected for
    the nodes in `reject`, nothing for those in `silent` - and Cleared
    once it is deleted. Every fault seen is kept in `seen` (name -> obj)."""

    def __init__(self, srv, nodes, reject=(), silent=(), delay=0.05):
        self.srv, self.nodes = srv, list(nodes)
        self.reject, self.silent, self.delay = set(reject), set(silent), delay
        self.seen, self.stop_ = {}, threading.Event()
        self.state = {n: {} for n in self.nodes}    # node -> uid -> entry
        for n in self.nodes:
            self._write(n)
        self.t = threading.Thread(target=self._run, daemon=True)
        self.t.start()

    def _write(self, node):
        self.srv.put_object("gpufaultreports", {
            "apiVersion": "mokka.io/v1alpha1", "kind": "GPUFaultReport",
            "metadata": {"name": node},
            "status": {"node": node, "updatedAt": now3339(),
                       "agent": {"version": "0.1.0", "startedAt": now3339(), "gpus": 8,
                                 "mode": "agent", "running": True},
                       "faults": list(self.state[node].values())}})

    def _selects(self, fault, node):
        spec = fault.get("spec", {})
        sel = spec.get("nodes") or {}
        if sel.get("names") and node not in sel["names"]:
            return False
        labels = self.srv.nodes[node]["metadata"].get("labels", {})
        want = (sel.get("selector") or {}).get("matchLabels") or {}
        return all(labels.get(k) == v for k, v in want.items())

    def _run(self):
        while not self.stop_.wait(self.delay):
            faults = {f["metadata"]["uid"]: f for f in self.srv.objects("gpufaults")}
            for f in faults.values():
                self.seen.setdefault(f["metadata"]["name"], f)
            for n in self.nodes:
                changed = False
                for uid, f in faults.items():
                    if uid in self.state[n] or n in self.silent or not self._selects(f, n):
                        continue
                    rej = n in self.reject
                    self.state[n][uid] = {
                        "name": f["metadata"]["name"], "uid": uid,
                        "resourceVersion": f["metadata"]["resourceVersion"],
                        "phase": "Rejected" if rej else "Applied", "gpus": [3],
                        "reason": REASON if rej else "", "time": now3339()}
                    changed = True
                for uid, e in self.state[n].items():
                    if uid not in faults and e["phase"] == "Applied":
                        e["phase"] = "Cleared"
                        changed = True
                if changed:
                    self._write(n)

    def stop(self):
        self.stop_.set()
        self.t.join()


class ClusterCase(kubetest.KubeTestCase):
    """A stand-in cluster with pools a and b, the resources installed."""

    def setUp(self):
        super().setUp()
        self.agents = None

    def tearDown(self):
        if self.agents:
            self.agents.stop()
        super().tearDown()

    def cluster(self, pool_a=("gpu-1", "gpu-2", "gpu-3"), pool_b=("gpu-9",), crds=True):
        srv = self.server(nodes=())
        for n in pool_a:
            srv.add_node(n, labels={"mokka.io/pool": "a"})
        for n in pool_b:
            srv.add_node(n, labels={"mokka.io/pool": "b"})
        if crds:
            srv.install_crds_file(CRDS)
        self.kc = self.kubeconfig()
        return srv

    def mokka(self, *args, timeout=60, **kw):
        return subprocess.run([MOKKA, *args], capture_output=True, text=True,
                              env=self.env(NO_COLOR="1"), timeout=timeout * SLOW, **kw)

    def inject(self, *args, **kw):
        return self.mokka("inject", "--kubeconfig", self.kc, *args, **kw)


class InjectClusterTest(ClusterCase):
    # --- create ---------------------------------------------------------------

    def test_create_prints_the_object_and_its_fault(self):
        srv = self.cluster()
        r = self.inject("--selector", "mokka.io/pool=a", "--gpu", "3", "--xid", "79", "--for", "5m")
        self.assertEqual(r.returncode, 0, r.stderr)
        m = re.fullmatch(r"GPUFault (gpu3-xid79-\w+) created: xid 79 on GPU 3 of nodes "
                         r"mokka.io/pool=a \(resourceVersion (\d+)\)\n", r.stdout)
        self.assertTrue(m, r.stdout)
        obj = srv.get_object("gpufaults", m.group(1))
        self.assertEqual(obj["metadata"]["resourceVersion"], m.group(2))
        self.assertEqual(obj["spec"]["fault"], {"xid": 79})
        self.assertEqual(obj["spec"]["duration"], "5m")
        self.assertEqual(obj["spec"]["nodes"]["selector"]["matchLabels"], {"mokka.io/pool": "a"})
        self.assertEqual(srv.counts["create:gpufaults"], 1)

    def test_create_with_a_name_on_named_nodes(self):
        srv = self.cluster()
        r = self.inject("--node", "gpu-1", "--node", "gpu-2", "--gpu", "0,2", "--ecc", "double",
                        "--name", "two-nodes")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stdout, r"^GPUFault two-nodes created: ecc double on GPUs 0,2 of "
                                   r"nodes gpu-1,gpu-2 \(resourceVersion \d+\)$")
        self.assertEqual(srv.get_object("gpufaults", "two-nodes")["spec"]["nodes"]["names"],
                         ["gpu-1", "gpu-2"])

    def test_selectors_and_together(self):
        srv = self.cluster()
        r = self.inject("--selector", "mokka.io/pool=a", "--selector", "zone in (z1,z2)",
                        "--node", "gpu-1", "--gpu", "1", "--healthy", "--name", "both")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("created: healthy on GPU 1 of nodes gpu-1 with mokka.io/pool=a,"
                      "zone in (z1,z2) (resourceVersion", r.stdout)
        nodes = srv.get_object("gpufaults", "both")["spec"]["nodes"]
        self.assertEqual(nodes["names"], ["gpu-1"])
        self.assertEqual(nodes["selector"]["matchLabels"], {"mokka.io/pool": "a"})
        self.assertEqual(nodes["selector"]["matchExpressions"],
                         [{"key": "zone", "operator": "In", "values": ["z1", "z2"]}])

    def test_wait_on_a_fault_that_selects_no_node(self):
        self.cluster()
        r = self.inject("--selector", "mokka.io/pool=none", "--gpu", "1", "--lost", "--name",
                        "nowhere", "--wait", "30s")
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertIn("mokka inject: GPUFault nowhere selects no node", r.stderr)

    def test_all_nodes(self):
        self.cluster()
        r = self.inject("--all-nodes", "--gpu", "all", "--lost")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("created: lost on all GPUs of every node", r.stdout)

    # --- --wait -------------------------------------------------------------------

    def test_wait_until_applied_everywhere(self):
        srv = self.cluster(pool_a=("gpu-1", "gpu-2", "gpu-3", "gpu-4"))
        self.agents = Agents(srv, ["gpu-1", "gpu-2", "gpu-3", "gpu-9"])
        r = self.inject("--selector", "mokka.io/pool=a", "--gpu", "3", "--xid", "79",
                        "--name", "gpu3-xid79", "--wait", "20s")
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        self.assertRegex(lines[1], r"^GPUFault gpu3-xid79: applied on 3 of 3 nodes in \d+\.\d s$")
        self.assertEqual(lines[2], "1 selected node runs no Mokka agent: gpu-4")
        self.assertLess(float(lines[1].split(" in ")[1][:-2]), 10 * SLOW)
        # One LIST, then at most one watch: none when every report already
        # shows the fault at the LIST (a slow, sanitized inject).
        self.assertLessEqual(srv.counts["watch:gpufaultreports"], 1)
        self.assertEqual(srv.counts["list:gpufaultreports"], 1)

    def test_wait_times_out_naming_the_nodes(self):
        srv = self.cluster()
        self.agents = Agents(srv, ["gpu-1", "gpu-2", "gpu-3"], silent=["gpu-2", "gpu-3"])
        t0 = time.monotonic()
        r = self.inject("--selector", "mokka.io/pool=a", "--gpu", "3", "--xid", "79",
                        "--name", "slow", "--wait", "2s")
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertGreaterEqual(time.monotonic() - t0, 2)
        self.assertIn("GPUFault slow: applied on 1 of 3 nodes; not applied within 2 s on: "
                      "gpu-2, gpu-3", r.stderr)
        # not on a terminal: a timestamped line now and then, no carriage returns
        self.assertNotIn("\r", r.stderr)

    def test_progress_in_a_log_is_a_timestamped_line_every_10_s(self):
        srv = self.cluster(pool_a=("gpu-1", "gpu-2"))
        self.agents = Agents(srv, ["gpu-1", "gpu-2"], silent=["gpu-2"])
        r = self.inject("--all-nodes", "--gpu", "3", "--xid", "79", "--name", "log", "--wait",
                        "11s")
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertRegex(r.stderr, r"(?m)^\d\d:\d\d:\d\d GPUFault log: applied on 1 of 2 nodes, "
                                   r"still waiting: 10s of 11s$")
        self.assertEqual(r.stderr.count("still waiting"), 1)

    def test_progress_on_a_terminal_is_one_line_updated_in_place(self):
        srv = self.cluster(pool_a=("gpu-1", "gpu-2"))
        self.agents = Agents(srv, ["gpu-1", "gpu-2"], silent=["gpu-2"])
        master, slave = os.openpty()
        p = subprocess.Popen([MOKKA, "inject", "--kubeconfig", self.kc, "--all-nodes", "--gpu",
                              "3", "--xid", "79", "--name", "tty", "--wait", "2s"],
                             stdout=subprocess.PIPE, stderr=slave, env=self.env(NO_COLOR="1"))
        os.close(slave)
        seen = b""
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
        os.close(master)
        p.wait(timeout=30 * SLOW)
        p.stdout.close()
        self.assertEqual(p.returncode, 3)
        self.assertIn(b"\r\x1b[KGPUFault tty: applied on 1 of 2 nodes, waiting ", seen)
        self.assertIn(b"s of 2s", seen)
        self.assertNotIn(b"still waiting", seen)

    def test_rejections_end_the_wait_with_their_reasons(self):
        srv = self.cluster()
        self.agents = Agents(srv, ["gpu-1", "gpu-2", "gpu-3"], reject=["gpu-2"])
        t0 = time.monotonic()
        r = self.inject("--selector", "mokka.io/pool=a", "--gpu", "9", "--xid", "79",
                        "--name", "bad-gpu", "--wait", "30s")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertLess(time.monotonic() - t0, 15 * SLOW)
        self.assertIn("GPUFault bad-gpu: rejected on 1 of 3 nodes (applied on 2):\n"
                      "  gpu-2: " + REASON, r.stderr)

    def test_agents_that_start_during_the_wait_count(self):
        srv = self.cluster(pool_a=("gpu-1", "gpu-2"))
        self.agents = Agents(srv, ["gpu-1"])
        late = []

        def start_late():
            time.sleep(1)
            late.append(Agents(srv, ["gpu-2"]))
        t = threading.Thread(target=start_late)
        t.start()
        r = self.inject("--node", "gpu-1", "--node", "gpu-2", "--gpu", "3", "--xid", "79",
                        "--name", "late", "--wait", "20s")
        t.join()
        late[0].stop()
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("GPUFault late: applied on", r.stdout)

    # --- --clear ------------------------------------------------------------------

    def test_clear_and_wait(self):
        srv = self.cluster()
        self.agents = Agents(srv, ["gpu-1", "gpu-2", "gpu-3"])
        r = self.inject("--selector", "mokka.io/pool=a", "--gpu", "3", "--xid", "79",
                        "--name", "x", "--wait", "20s")
        self.assertEqual(r.returncode, 0, r.stderr)
        r = self.inject("--clear", "x", "--wait", "20s")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.splitlines()[0], "GPUFault x deleted")
        self.assertRegex(r.stdout.splitlines()[1], r"^GPUFault x: cleared on 3 nodes in \d+\.\d s$")
        self.assertIsNone(srv.get_object("gpufaults", "x"))

    def test_clear_several_and_a_missing_one(self):
        srv = self.cluster()
        for name in ("a", "b"):
            self.assertEqual(self.inject("--all-nodes", "--gpu", "0", "--lost", "--name",
                                         name).returncode, 0)
        r = self.inject("--clear", "a", "nope", "b")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertEqual(r.stdout, "GPUFault a deleted\nGPUFault b deleted\n")
        self.assertIn("mokka inject: no GPUFault nope", r.stderr)
        self.assertEqual(srv.objects("gpufaults"), [])

    # --- --list -------------------------------------------------------------------

    def test_list(self):
        srv = self.cluster()
        self.agents = Agents(srv, ["gpu-1", "gpu-2", "gpu-3"], reject=["gpu-3"])
        r = self.inject("--node", "gpu-1", "--gpu", "3", "--xid", "79", "--name", "one",
                        "--for", "10m", "--wait", "20s")
        self.assertEqual(r.returncode, 0, r.stderr)
        r = self.inject("--selector", "mokka.io/pool=a", "--gpu", "9", "--xid", "48",
                        "--name", "two", "--wait", "20s")
        self.assertEqual(r.returncode, 2, r.stderr)
        r = self.inject("--list")
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = [line.split() for line in r.stdout.splitlines()]
        self.assertEqual(rows[0], ["NAME", "FAULT", "GPUS", "NODES", "APPLIED", "EXPIRES", "AGE"])
        self.assertEqual(rows[1][:6], ["one", "xid", "79", "3", "gpu-1", "1/1"])
        self.assertEqual(rows[1][6], "in")
        self.assertRegex(rows[1][7], r"^(9m\d+s|10m)$")
        self.assertEqual(rows[2][:5], ["two", "xid", "48", "9", "mokka.io/pool=a"])
        self.assertEqual(" ".join(rows[2][5:8]), "2/3 (1 rejected)")
        self.assertEqual(rows[2][8], "-")
        r = self.inject("--list", "--output", "json")
        self.assertEqual(r.returncode, 0, r.stderr)
        got = {f["name"]: f for f in json.loads(r.stdout)}
        self.assertEqual((got["two"]["applied"], got["two"]["rejected"], got["two"]["agents"]),
                         (2, 1, 3))

    # --- errors ---------------------------------------------------------------------

    def test_resource_not_installed(self):
        self.cluster(crds=False)
        r = self.inject("--all-nodes", "--gpu", "3", "--xid", "79")
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertIn("has no GPUFault resource (mokka.io/v1alpha1 gpufaults): install it with "
                      "`kubectl apply -f ci/deploy/gpufault-crd.yaml`", r.stderr)

    def test_list_without_faults_or_the_resource(self):
        self.cluster()
        r = self.inject("--list")
        self.assertEqual((r.returncode, r.stdout), (0, ""), r.stderr)
        self.assertIn("no GPUFaults", r.stderr)
        self.srv.stop()
        self.cluster(crds=False)
        r = self.inject("--list")
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertIn("has no GPUFault resource", r.stderr)

    def test_name_taken(self):
        self.cluster()
        self.assertEqual(self.inject("--all-nodes", "--gpu", "3", "--lost", "--name", "x").returncode, 0)
        r = self.inject("--all-nodes", "--gpu", "3", "--lost", "--name", "x")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("GPUFault x already exists: clear it with `mokka inject --cluster --clear x`,"
                      " or give another --name", r.stderr)

    def test_invalid_and_forbidden(self):
        srv = self.cluster()
        srv.fail_next("create:gpufaults", 422)
        r = self.inject("--all-nodes", "--gpu", "3", "--lost", "--name", "x")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("mokka inject: the API server refused GPUFault x: ", r.stderr)
        self.assertIn("injected 422", r.stderr)
        srv.fail_next("create:gpufaults", 403)
        r = self.inject("--all-nodes", "--gpu", "3", "--lost", "--name", "x")
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertIn("mokka inject: the API server does not let fake-user create GPUFault x "
                      "(HTTP 403; check RBAC): ", r.stderr)
        self.assertIn("injected 403", r.stderr)

    def test_unreachable(self):
        self.cluster()
        srv_url = self.srv.url
        self.srv.stop()
        self.srv = None
        kc = self.kubeconfig(server=srv_url, name="gone")
        r = self.mokka("inject", "--kubeconfig", kc, "--all-nodes", "--gpu", "3", "--lost",
                       timeout=90)
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertIn("cannot create GPUFault", r.stderr)

    def test_wait_bounds_every_request_against_a_silent_server(self):
        # A server that takes the connection and never answers: --wait 2s is
        # the whole command's time, not 30 s for each request.
        self.cluster()
        silent = kubetest.fa.SilentServer()
        self.addCleanup(silent.stop)
        kc = self.kubeconfig(server=silent.url, name="silent")
        for args, verb in [(["--all-nodes", "--gpu", "3", "--lost"], "create GPUFault"),
                           (["--clear", "gone"], "get GPUFault gone")]:
            with self.subTest(args=args):
                t0 = time.monotonic()
                r = self.mokka("inject", "--kubeconfig", kc, *args, "--wait", "2s", timeout=60)
                took = time.monotonic() - t0
                self.assertEqual(r.returncode, 3, r.stderr)
                self.assertIn(f"cannot {verb}", r.stderr)
                self.assertRegex(r.stderr, rf"the API server {re.escape(silent.url)} did not answer "
                                 r"within --wait 2s \(waited [0-9.]+ s\)")
                self.assertLess(took, 10 * SLOW, r.stderr)    # 30 s before: each request had its own

    def test_bad_arguments(self):
        cases = [
            (["--gpu", "3", "--xid", "79"],
             "which nodes? give --node NAME or --selector SELECTOR (repeatable), or --all-nodes "
             "for every node that runs a Mokka agent"),
            (["--all-nodes", "--node", "a", "--gpu", "3", "--xid", "79"],
             "--all-nodes goes without --node and --selector"),
            (["--all-nodes", "--xid", "79"],
             "--gpu is required: an index, a list (0,2), a range (0-3), a GPU UUID, or all"),
            (["--all-nodes", "--gpu", "3"],
             "nothing to do: give --xid, --ecc, --lost, --healthy, --set or "
             "--fabric-state/--fabric-status/--fabric-health"),
            (["--all-nodes", "--gpu", "3", "--xid", "79", "--lost"],
             "give one fault: --xid and --lost do not go together (make two GPUFaults)"),
            (["--all-nodes", "--gpu", "3", "--xid", "0"], "--xid takes a number from 1 to 999, not '0'"),
            (["--all-nodes", "--gpu", "3", "--ecc", "triple"], "--ecc takes single or double, not 'triple'"),
            (["--all-nodes", "--gpu", "3", "--xid", "79", "--mig", "1"],
             "--mig works on a local universe only, not with --cluster"),
            (["--all-nodes", "--gpu", "3", "--xid", "79", "--wait", "soon"],
             "--wait takes a duration such as 60s or 5m, not 'soon'"),
            (["--clear", "x", "--gpu", "3"],
             "--clear takes no fault, nodes or GPUs: only GPUFault names and --wait"),
            (["--all-nodes", "--gpu", "3", "--lost", "--output", "json"],
             "--output goes with --list"),
            (["--list", "--output", "yaml"], "--output takes table or json, not 'yaml'"),
            (["--list", "--wait", "5s"],
             "--list does not wait: --wait goes with a new fault or --clear"),
            (["--selector", "a in (b", "--gpu", "3", "--xid", "79"], "--selector 'a in (b': "),
            (["--all-nodes", "--gpu", "3", "--xid", "79", "extra"], "unexpected argument 'extra'"),
            (["--all-nodes", "--gpu", "3", "--lost", "--for", "2d"],
             "--for: '2d' is not a duration like 500ms, 30s, 5m, 1h or 1m30s (24h at most)"),
            (["--all-nodes", "--gpu", "x", "--lost"],
             "--gpu takes an index, a range, a GPU UUID or all, not 'x'"),
            (["--node", "BAD", "--gpu", "1", "--lost"], "--node: 'BAD' is not a node name"),
            (["--all-nodes", "--gpu", "3", "--set", "foo=1"], "--set: unknown metric 'foo'"),
        ]
        for args, msg in cases:
            with self.subTest(args=args):
                r = self.mokka("inject", "--cluster", *args)
                self.assertEqual(r.returncode, 2, r.stderr)
                self.assertIn("mokka inject: " + msg, r.stderr)
                self.assertIn("Try 'mokka inject --help'", r.stderr)

    def test_help_names_the_cluster_options(self):
        r = self.mokka("inject", "--cluster", "--help")
        self.assertEqual(r.returncode, 0)
        for opt in ("--all-nodes", "--selector", "--for", "--wait", "--clear", "--list"):
            self.assertIn(opt, r.stdout)


SUITE = """\
suite: cluster faults
cases:
  - name: xid on pool a
    inject: {nodes: {selector: {mokka.io/pool: a}}, gpu: 3, xid: 79}
    expect:
      label: {mokka.io/pool: a}
"""

FAILING_SUITE = """\
suite: cluster faults
cases:
  - name: xid on named nodes
    inject: {nodes: {names: [gpu-1, gpu-2]}, gpu: 3, xid: 79}
    expect:
      label: {mokka.io/pool: b}
"""

SLOW_SUITE = """\
suite: cluster faults
cases:
  - name: xid everywhere
    inject: {nodes: all, gpu: 3, lost: true}
    wait: 60s
    expect:
      label: {mokka.io/pool: a}
"""


class SuiteInjectTest(ClusterCase):
    def suite(self, text):
        path = os.path.join(self.dir, "s.yaml")
        with open(path, "w") as f:
            f.write(text)
        return path

    def assert_run(self, text, *args):
        return self.mokka("assert", "--kubeconfig", self.kc, "--selector", "mokka.io/pool=a",
                          "--suite", self.suite(text), *args)

    def test_fault_made_waited_for_and_deleted_after_a_pass(self):
        srv = self.cluster()
        self.agents = Agents(srv, ["gpu-1", "gpu-2", "gpu-3"])
        r = self.assert_run(SUITE, "--timeout", "2m")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(len(self.agents.seen), 1)
        (name, f), = self.agents.seen.items()
        self.assertTrue(name.startswith("mokka-suite-"), name)
        self.assertRegex(f["metadata"]["labels"]["mokka.io/suite-run"], r"^[0-9a-f]+-[0-9a-f]+$")
        self.assertEqual(f["spec"]["duration"], "12m")
        self.assertEqual(f["spec"]["nodes"]["selector"]["matchLabels"], {"mokka.io/pool": "a"})
        self.assertEqual(srv.objects("gpufaults"), [])
        self.assertIn("applied on 3 of 3 nodes", r.stderr)

    def test_deleted_after_a_failure(self):
        srv = self.cluster()
        self.agents = Agents(srv, ["gpu-1", "gpu-2", "gpu-3"])
        r = self.assert_run(FAILING_SUITE)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertEqual(list(self.agents.seen.values())[0]["spec"]["nodes"]["names"],
                         ["gpu-1", "gpu-2"])
        self.assertEqual(srv.objects("gpufaults"), [])

    def test_rejection_is_an_error_naming_the_nodes(self):
        srv = self.cluster()
        self.agents = Agents(srv, ["gpu-1", "gpu-2", "gpu-3"], reject=["gpu-3"])
        report = os.path.join(self.dir, "r.json")
        r = self.assert_run(SUITE, "--report", "json=" + report)
        self.assertEqual(r.returncode, 3, r.stdout + r.stderr)
        with open(report) as f:
            text = f.read()
        self.assertIn("rejected on 1 of 3 nodes", text)
        self.assertIn("gpu-3: " + REASON, text)
        self.assertEqual(srv.objects("gpufaults"), [])

    def test_deleted_after_sigterm(self):
        srv = self.cluster()
        self.agents = Agents(srv, ["gpu-1", "gpu-2", "gpu-3"])
        p = subprocess.Popen([MOKKA, "assert", "--kubeconfig", self.kc, "--suite",
                              self.suite(SLOW_SUITE)], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env=self.env(NO_COLOR="1"))
        srv.wait_for(lambda: self.agents.seen and srv.objects("gpufaults"), timeout=20)
        time.sleep(1)
        p.send_signal(signal.SIGTERM)
        out, err = p.communicate(timeout=30 * SLOW)
        self.assertEqual(p.returncode, 3, out + err)
        self.assertEqual(srv.objects("gpufaults"), [])
        self.assertIn("deleted", err)

    def test_without_the_resource_the_case_is_an_error(self):
        self.cluster(crds=False)
        r = self.assert_run(SUITE)
        self.assertEqual(r.returncode, 3, r.stdout + r.stderr)
        self.assertIn("has no GPUFault resource", r.stdout + r.stderr)


LINT_SUITE = """\
suite: bad
cases:
  - name: a
    inject: {nodes: some, gpu: 3, xid: 79}
    expect: {label: {a: b}}
  - name: b
    inject: {nodes: {names: []}, gpu: 3, xid: 79}
    expect: {label: {a: b}}
  - name: c
    inject: {nodes: {selector: "a in (b"}, gpu: 3, xid: 79}
    expect: {label: {a: b}}
  - name: d
    inject: {nodes: {zone: x}, gpu: 3, xid: 79}
    expect: {label: {a: b}}
  - name: e
    inject: {nodes: {}, gpu: 3, xid: 79}
    expect: {label: {a: b}}
"""


class SuiteLintTest(unittest.TestCase):
    def test_lint_names_file_line_and_column(self):
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "bad.yaml")
            with open(path, "w") as f:
                f.write(LINT_SUITE)
            r = subprocess.run([MOKKA, "lint", path], capture_output=True, text=True)
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        out = r.stdout + r.stderr
        self.assertIn("bad.yaml:4:21: error: inject nodes must be all or a map such as "
                      "{selector: {mokka.io/pool: a}} or {names: [gpu-node-1]}, not 'some'", out)
        self.assertIn("bad.yaml:7:29: error: inject nodes names must be a list of node names, "
                      "not an empty list", out)
        self.assertIn("bad.yaml:10:32: error: inject nodes selector 'a in (b': ", out)
        self.assertIn("bad.yaml:13:22: error: unknown key 'zone' in inject nodes", out)
        self.assertIn("bad.yaml:16:21: error: inject nodes: give names, selector or both "
                      "(or nodes: all)", out)


if __name__ == "__main__":
    unittest.main()
