"""agentfleet.py - many `mokka agent` processes against the stand-in API
server (tests/standins/fake_apiserver.py), for the scale test
(test_agent_scale.py) and `make bench` (tests/bench/fault_bench.py).

    fleet = Fleet(srv, kubeconfig, workdir, nodes=["node-0000", ...])
    fleet.start()                      # every agent has written its report
    t = fleet.create_fault("canary", {"selector": {...}}, gpus=[3], fault={"xid": 79})
    fleet.wait_phase(uid, names, "Applied")   # -> {node: seconds after creation}
    fleet.stop()

Each agent gets its own live-state directory, made by the library as a
plugin's would be, and its own log file."""
import json
import os
import signal
import subprocess
import time

from cli_support import MOKKA, MOCK_VARS
from kubetest import KubeTestCase

GROUP = "mokka.io/v1alpha1"
CRD_FILE = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                        "ci", "deploy", "gpufault-crd.yaml")


def rfc3339_ms(s):
    """'2026-12-02T03:04:05.123Z' -> Unix seconds (float)."""
    base, _, frac = s.rstrip("Z").partition(".")
    t = time.mktime(time.strptime(base, "%Y-%m-%dT%H:%M:%S")) - time.timezone
    return t + (float("0." + frac) if frac else 0.0)


def gpufault(name, gpus, fault, nodes=None, duration=None):
    """A GPUFault object."""
    spec = {"nodes": nodes or {}, "gpus": gpus, "fault": fault}
    if duration:
        spec["duration"] = duration
    return {"apiVersion": GROUP, "kind": "GPUFault", "metadata": {"name": name}, "spec": spec}


def live_stats(state_dir, env):
    """`mokka stats --json` of the live state in state_dir."""
    out = subprocess.run([MOKKA, "stats", "--state-dir", state_dir, "--json"],
                         capture_output=True, text=True, env=env, timeout=30)
    if out.returncode:
        raise AssertionError(f"mokka stats --state-dir {state_dir}: {out.stderr}")
    return json.loads(out.stdout)


def agent_env(home, runtime):
    env = {k: v for k, v in os.environ.items()
           if k not in MOCK_VARS and k not in ("KUBECONFIG", "KUBERNETES_SERVICE_HOST")
           and not k.lower().endswith("_proxy")}
    env.update(HOME=home, MOKKA_RUNTIME_DIR=runtime, XDG_CACHE_HOME=os.path.join(home, "cache"))
    return env


class Fleet:
    def __init__(self, srv, kubeconfig, workdir, nodes, config=None, extra=()):
        self.srv, self.kc, self.dir, self.nodes = srv, kubeconfig, workdir, list(nodes)
        self.config, self.extra = config, list(extra)
        self.procs = {}
        self.env = agent_env(workdir, os.path.join(workdir, "run"))

    def state_dir(self, node):
        return os.path.join(self.dir, "states", node)

    def log(self, node):
        with open(os.path.join(self.dir, "logs", node + ".log"), errors="replace") as f:
            return f.read()

    def start_one(self, node):
        os.makedirs(os.path.join(self.dir, "logs"), exist_ok=True)
        args = [MOKKA, "agent", "--kubeconfig", self.kc, "--node", node,
                "--state-dir", self.state_dir(node), *self.extra]
        if self.config:
            args += ["--config", self.config]
        log = open(os.path.join(self.dir, "logs", node + ".log"), "a")
        self.procs[node] = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                            env=self.env)
        log.close()

    def start(self, timeout=120, batch=25):
        """Starts the agents `batch` at a time, each batch running before the
        next: 200 first LISTs at once overflow the stand-in server's accept
        queue on a loaded 2-core machine (connects timed out after 5.7 s and
        agents gave up), which is the stand-in's limit, not the agents'."""
        deadline = time.time() + timeout
        for i in range(0, len(self.nodes), batch):
            part = self.nodes[i:i + batch]
            for n in part:
                self.start_one(n)
            self.wait_reports(part, max(1, deadline - time.time()))

    def report(self, node):
        return self.srv.get_object("gpufaultreports", node)

    def wait_reports(self, nodes, timeout):
        """Until every node has a report of a running agent."""
        deadline = time.time() + timeout
        while True:
            missing = [n for n in nodes if not ((self.report(n) or {}).get("status", {})
                                                 .get("agent", {}).get("running"))]
            dead = [n for n in nodes if n in self.procs and self.procs[n].poll() is not None]
            if dead:
                raise AssertionError(f"agents exited: {dead[:5]}: {self.log(dead[0])}")
            if not missing:
                return
            if time.time() > deadline:
                raise AssertionError(f"{len(missing)} agents wrote no report in {timeout} s, "
                                     f"e.g. {missing[0]}: {self.log(missing[0])}")
            time.sleep(0.1)

    def create_fault(self, name, nodes, gpus, fault, duration=None):
        spec = {"nodes": nodes, "gpus": gpus, "fault": fault}
        if duration:
            spec["duration"] = duration
        t0 = time.time()
        obj = self.srv.create_object("gpufaults", {"apiVersion": GROUP, "kind": "GPUFault",
                                                   "metadata": {"name": name}, "spec": spec})
        return obj, t0

    def phase(self, node, uid):
        for e in (self.report(node) or {}).get("status", {}).get("faults", []):
            if e.get("uid") == uid:
                return e
        return None

    def wait_phase(self, uid, nodes, phases, timeout=60):
        """Until every node reports uid in one of `phases` (a set; None
        stands for "not listed"); returns {node: the entry's time}."""
        deadline = time.time() + timeout
        while True:
            got, left = {}, []
            for n in nodes:
                e = self.phase(n, uid)
                if (e["phase"] if e else None) in phases:
                    got[n] = rfc3339_ms(e["time"]) if e else None
                else:
                    left.append(n)
            if not left:
                return got
            if time.time() > deadline:
                asked = [(round(e["t"], 3), e.get("verb"), e.get("resource"), e["status"])
                         for e in self.srv.log if left[0] in e.get("path", "")][-8:]
                raise AssertionError(f"{len(left)} nodes not in {phases} after {timeout} s, e.g. "
                                     f"{left[0]}: {self.phase(left[0], uid)}; its requests: {asked}; "
                                     f"open GPUFault watches: {self.srv.active_watches_of('gpufaults')}; "
                                     f"log: {self.log(left[0])[-2000:]}")
            time.sleep(0.05)

    def health(self, node):
        """Per GPU health of the node's live state, from `mokka stats --json`."""
        return live_stats(self.state_dir(node), self.env)

    def rss_kib(self):
        total = []
        for p in self.procs.values():
            try:
                with open(f"/proc/{p.pid}/status") as f:
                    total += [int(l.split()[1]) for l in f if l.startswith("VmRSS:")]
            except OSError:
                pass
        return total

    def stop(self, timeout=20):
        for p in self.procs.values():
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        deadline = time.time() + timeout
        codes = {}
        for n, p in self.procs.items():
            try:
                codes[n] = p.wait(max(0.1, deadline - time.time()))
            except subprocess.TimeoutExpired:
                p.kill()
                codes[n] = p.wait()
        return codes


class FleetCase(KubeTestCase):
    """A stand-in API server with the GPUFault resources and the nodes in
    NODES (name -> labels), and self.fleet of agents on them (not started);
    the agents stop before the server, so their last reports reach it."""
    NODES = {}
    CRDS = True     # the GPUFault resources installed

    def setUp(self):
        super().setUp()
        if not os.access(MOKKA, os.X_OK):
            self.skipTest(f"{MOKKA} not built")
        self.server(nodes=())
        if self.CRDS:
            self.srv.install_crds_file(CRD_FILE)
        for n, labels in self.NODES.items():
            self.srv.add_node(n, labels=labels)
        self.fleet = Fleet(self.srv, self.kubeconfig(), self.dir, list(self.NODES))

    def tearDown(self):
        if hasattr(self, "fleet"):
            self.fleet.stop()
        super().tearDown()
