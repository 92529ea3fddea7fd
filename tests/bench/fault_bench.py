#!/usr/bin/env python3
"""fault_bench.py - cluster-wide faults at fleet scale: N `mokka agent`
processes (one per node) against the stand-in API server on loopback.
Prints bench rows (tests/bench/run.sh's format):

  fault.applied.p50 / .p99   a GPUFault for every node created -> the last
                             agents' reports say Applied (each agent's report
                             time minus the create), over all agents and rounds
  fault.cleared.p50          deleted -> Cleared
  fault.rest.requests        API requests per agent per minute at rest (the
                             stand-in's log over a quiet window: watches only)
  fault.agent.rss            resident memory of one agent (median, max)

    MOKKA_BUILD=/abs/build/dir python3 tests/bench/fault_bench.py [--agents 200] [--rounds 5] [--rest 60]"""
import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
from agentfleet import CRD_FILE, Fleet  # noqa: E402
from kubetest import fa  # noqa: E402


def row(name, value, unit, note):
    print(f"row\t{name}\t{value}\t{unit}\t-\t{note}")


def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(round(p / 100 * (len(v) - 1))))]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--agents", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--rest", type=float, default=60, help="seconds of the quiet window")
    a = ap.parse_args()
    d = tempfile.mkdtemp(prefix="mokka-fault-bench-")
    srv = fleet = None
    try:
        certs = fa.make_certs(os.path.join(d, "certs"))
        srv = fa.FakeAPIServer(certs).start()
        srv.install_crds_file(CRD_FILE)
        nodes = [f"node-{i:04d}" for i in range(a.agents)]
        for n in nodes:
            srv.add_node(n, labels={"mokka.io/pool": "main"})
        kc = os.path.join(d, "kubeconfig")
        with open(kc, "w") as f:
            f.write(fa.kubeconfig(srv.url, {"client-certificate": certs["client_cert"],
                                            "client-key": certs["client_key"]},
                                  {"certificate-authority": certs["ca"]}))
        fleet = Fleet(srv, kc, d, nodes)
        t = time.time()
        fleet.start(timeout=600)
        started = time.time() - t
        applied, cleared = [], []
        for r in range(a.rounds):
            obj, t0 = fleet.create_fault(f"bench-{r}", {}, [r % 8], {"xid": 79})
            uid = obj["metadata"]["uid"]
            applied += [1000 * (x - t0) for x in fleet.wait_phase(uid, nodes, {"Applied"}, 300).values()]
            t1 = time.time()
            srv.delete_object("gpufaults", obj["metadata"]["name"])
            cleared += [1000 * (x - t1) for x in fleet.wait_phase(uid, nodes, {"Cleared"}, 300).values()]
        rss = fleet.rss_kib()
        n0, t = len(srv.log), time.time()
        time.sleep(a.rest)
        quiet = len([e for e in srv.log[n0:]])
        per_min = quiet / a.agents / ((time.time() - t) / 60)
        note = f"{a.agents} agents, {a.rounds} faults for every node"
        row("fault.applied.p50", f"{pct(applied, 50):.0f}", "ms", f"created -> Applied in the reports; {note}")
        row("fault.applied.p99", f"{pct(applied, 99):.0f}", "ms", f"the same, 99th percentile (max {max(applied):.0f} ms)")
        row("fault.cleared.p50", f"{pct(cleared, 50):.0f}", "ms", "deleted -> Cleared in the reports")
        row("fault.rest.requests", f"{per_min:.2f}", "req/agent/min",
            f"API requests at rest over {a.rest:.0f} s ({quiet} in all): watches only, renewed every 5-10 min")
        row("fault.agent.rss", f"{statistics.median(rss) / 1024:.1f}", "MiB",
            f"resident memory of one agent (median; max {max(rss) / 1024:.1f} MiB; library and live state included)")
        row("fault.fleet.start", f"{started:.1f}", "s", f"{a.agents} agents started together -> every report written")
    finally:
        if fleet:
            fleet.stop()
        if srv:
            srv.stop()
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
