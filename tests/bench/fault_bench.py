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
  fault.many.report          one agent under --many GPUFaults (10,000) that hold:
                             its report's size (bounded at 512 KiB)
  fault.many.rss / .after    its resident memory with them, and once they are
                             deleted (idle in the note)

    MOKKA_BUILD=/abs/build/dir python3 tests/bench/fault_bench.py [--agents 200] [--rounds 5] [--rest 60]
                                                                  [--many 10000]"""
import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
from agentfleet import CRD_FILE, GROUP, Fleet  # noqa: E402
from kubetest import fa  # noqa: E402


def row(name, value, unit, note):
    print(f"row\t{name}\t{value}\t{unit}\t-\t{note}")


def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(round(p / 100 * (len(v) - 1))))]


def wait(pred, what, timeout=600):
    deadline = time.time() + timeout
    while not pred():
        if time.time() > deadline:
            raise AssertionError(what)
        time.sleep(0.5)


def many(certs, d, count):
    """One agent, `count` GPUFaults made and deleted on the stand-in directly."""
    srv = fa.FakeAPIServer(certs).start()
    fleet = None
    try:
        srv.install_crds_file(CRD_FILE)
        srv.add_node("many-0")
        kc = os.path.join(d, "kubeconfig-many")
        with open(kc, "w") as f:
            f.write(fa.kubeconfig(srv.url, {"client-certificate": certs["client_cert"],
                                            "client-key": certs["client_key"]},
                                  {"certificate-authority": certs["ca"]}))
        fleet = Fleet(srv, kc, os.path.join(d, "many"), ["many-0"])
        fleet.start()
        idle = fleet.rss_kib()[0] / 1024
        for i in range(count):
            srv.create_object("gpufaults", {"apiVersion": GROUP, "kind": "GPUFault",
                                            "metadata": {"name": f"m{i:05d}"},
                                            "spec": {"nodes": {}, "gpus": [i % 8], "fault": {"xid": 79}}})

        def phases():
            return {e["name"]: e["phase"] for e in fleet.report("many-0")["status"].get("faults", [])}
        wait(lambda: phases().get(f"m{count - 1:05d}") == "Applied", "the newest fault was not applied")
        rep = fleet.report("many-0")["status"]
        size = len(json.dumps(rep, separators=(",", ":")))
        held = fleet.rss_kib()[0] / 1024
        for i in range(count):
            srv.delete_object("gpufaults", f"m{i:05d}")
        wait(lambda: "Applied" not in phases().values(), "faults were not cleared")
        time.sleep(1)
        after = fleet.rss_kib()[0] / 1024
        row("fault.many.report", f"{size / 1024:.0f}", "KiB",
            f"one agent's report status with {count} faults that hold ({len(rep['faults'])} listed, "
            f"{rep.get('faultsDropped', 0)} dropped; bound 512 KiB, etcd's 1.5 MiB)")
        row("fault.many.rss", f"{held:.1f}", "MiB", f"that agent's resident memory with {count} faults")
        row("fault.many.rss.after", f"{after:.1f}", "MiB",
            f"once they are deleted (idle before them: {idle:.1f} MiB)")
    finally:
        if fleet:
            fleet.stop()
        srv.stop()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--agents", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--rest", type=float, default=60, help="seconds of the quiet window")
    ap.add_argument("--many", type=int, default=10000, help="GPUFaults on one agent (0: skip)")
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
        fleet.stop()
        fleet = None
        if a.many:
            many(certs, d, a.many)
    finally:
        if fleet:
            fleet.stop()
        if srv:
            srv.stop()
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
