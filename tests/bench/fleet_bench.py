#!/usr/bin/env python3
"""fleet_bench.py - `mokka fleet`'s numbers against the rig's real
kube-apiserver, controller-manager and kube-scheduler v1.20 (../shared/rig):

  fleet.ready          start to every node Ready in the API server
  fleet.job            one Job of one-GPU pods: creation to all Running
  fleet.fault.p50/p99  a GPUFault for a tenth of the nodes: creation to the
                       fault applied on each (its GPUFaultReport) ...
  fleet.fault.all      ... and to allocatable down on all of them
  fleet.rest-requests  requests per node per 10 s at rest (leases only)
  fleet.rss            the fleet's peak resident memory
  fleet.stop           SIGTERM to exit with every node deleted

    MOKKA_RIG=/var/cache/mokka-rig python3 tests/bench/fleet_bench.py [--nodes 1000] [--pods 8000]

Needs root and the rig; starts its API server and control plane when they
are down (and stops what it started). Prints rows as tests/bench/run.sh
takes them (row NAME VALUE UNIT TARGET NOTE)."""
import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
from fleetkit import Fleet, apply, kjson, kubectl  # noqa: E402
from rig_support import RIG, rig_down, rig_up  # noqa: E402
from cli_support import MOKKA, SRC  # noqa: E402

NAME = "bench"


def row(name, value, unit, target, note):
    print("row\t%s\t%s\t%s\t%s\t%s" % (name, value, unit, target, note), flush=True)


def parse_time(s):
    """'2026-12-06T05:14:45.505Z' -> Unix seconds (float)."""
    base, _, frac = s.rstrip("Z").partition(".")
    t = time.mktime(time.strptime(base, "%Y-%m-%dT%H:%M:%S")) - time.timezone
    return t + (float("0." + frac) if frac else 0.0)


def ready_count(kc):
    n = 0
    for node in kjson(kc, "get", "nodes", "-l", "mokka.io/fleet=" + NAME)["items"]:
        for c in node["status"].get("conditions", []):
            n += c["type"] == "Ready" and c["status"] == "True"
    return n


def stats(path):
    with open(path) as f:
        return json.load(f)


def pods_phase(kc):
    """(bound, running, succeeded) of the Job's pods."""
    items = kjson(kc, "get", "pods", "-n", "default", "-l", "job-name=" + NAME)["items"]
    return (sum(1 for p in items if p["spec"].get("nodeName")),
            sum(1 for p in items if p["status"].get("phase") == "Running"), len(items))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--nodes", type=int, default=1000)
    ap.add_argument("--pods", type=int, default=8000)
    ap.add_argument("--rest", type=int, default=30, help="seconds of rest measured")
    a = ap.parse_args()
    if not RIG or os.geteuid() != 0:
        row("fleet", "skipped", "-", "-", "skipped: needs root and MOKKA_RIG (../shared/rig)")
        return 0
    started = rig_up("apiserver", "controlplane")
    kc = os.path.join(RIG, "apiserver", "kubeconfig-token.yaml")
    kubectl(kc, "apply", "-f", os.path.join(SRC, "ci", "deploy", "gpufault-crd.yaml"))
    kubectl(kc, "delete", "job", NAME, "-n", "default", "--ignore-not-found", "--wait=true", timeout=600)
    tenth = max(1, a.nodes // 10)
    d = tempfile.mkdtemp(prefix="mokka-fleet-bench-")
    st = os.path.join(d, "stats.json")
    fl = Fleet(kc, ["--name", NAME, "--prefix", "bench-", "--pool", "a=%d" % (a.nodes - tenth),
                    "--pool", "b=%d" % tenth, "--stats", st], workdir=d)
    try:
        t0 = time.time()
        fl.start(wait_registered=False)
        while ready_count(kc) < a.nodes:
            if fl.proc.poll() is not None:
                raise SystemExit("mokka fleet ended:\n" + fl.log())
            time.sleep(0.5)
        row("fleet.ready", "%.1f" % (time.time() - t0), "s", "<60",
            "%d nodes x 8 GPUs Ready in the API server, from start" % a.nodes)
        # at rest: the requests of rest seconds, per node per 10 s
        time.sleep(12)
        s0 = stats(st)
        time.sleep(a.rest)
        s1 = stats(st)
        # the fleet's own clock (ran_s) for the window: the file is rewritten every 2 s
        per = (s1["requests"] - s0["requests"]) / a.nodes / ((s1["ran_s"] - s0["ran_s"]) / 10)
        row("fleet.rest-requests", "%.2f" % per, "req/node/10s", "<=1",
            "requests at rest over %d s (lease renewals %d of %d)" % (
                a.rest, s1["lease_renewals"] - s0["lease_renewals"], s1["requests"] - s0["requests"]))
        # a GPUFault for a tenth of the nodes
        tf = time.time()
        subprocess.run([MOKKA, "inject", "--kubeconfig", kc, "--selector", "mokka.io/pool=b",
                        "--gpu", "0", "--xid", "79", "--name", "bench-tenth", "--wait", "120s"],
                       check=True, capture_output=True, timeout=180)
        reps = kjson(kc, "get", "gpufaultreports")["items"]
        created = tf           # the GPUFault's creationTimestamp has whole seconds only
        lat = []
        for r in reps:
            for e in r.get("status", {}).get("faults", []):
                if e.get("name") == "bench-tenth" and e.get("phase") == "Applied" and e.get("time"):
                    lat.append(parse_time(e["time"]) - created)
        while True:
            down = sum(1 for n in kjson(kc, "get", "nodes", "-l", "mokka.io/pool=b")["items"]
                       if n["status"]["allocatable"].get("nvidia.com/gpu") == "7")
            if down == tenth or time.time() - tf > 120:
                break
            time.sleep(0.2)
        lat.sort()
        if lat:
            row("fleet.fault.p50", "%.2f" % lat[len(lat) // 2], "s", "-",
                "GPUFault on %d nodes: mokka inject started to Applied in each node's report" % tenth)
            row("fleet.fault.p99", "%.2f" % lat[min(len(lat) - 1, int(len(lat) * 0.99))], "s", "<2",
                "the same, 99th percentile of %d reports" % len(lat))
        row("fleet.fault.all", "%.1f" % (time.time() - tf), "s", "-",
            "an upper bound: mokka inject, its --wait, then kubectl polls until allocatable 7 on all "
            "%d of %d nodes (each poll of them takes a second or so here)" % (down, tenth))
        subprocess.run([MOKKA, "inject", "--kubeconfig", kc, "--clear", "bench-tenth", "--wait", "120s"],
                       capture_output=True, timeout=180)
        # one Job of one-GPU pods
        tj = time.time()
        apply(kc, {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": NAME, "namespace": "default"},
                   "spec": {"completions": a.pods, "parallelism": a.pods, "template": {"spec": {
                       "restartPolicy": "Never", "terminationGracePeriodSeconds": 0,
                       "containers": [{"name": "c", "image": "rig.local/busybox:1",
                                       "resources": {"limits": {"nvidia.com/gpu": 1}}}]}}}})
        half = None
        while True:
            bound, running, made = pods_phase(kc)
            if half is None and made >= a.pods // 2:
                half = time.time() - tj
            if running >= a.pods or time.time() - tj > 1800:
                break
            time.sleep(2)
        took = time.time() - tj
        row("fleet.job", "%.0f" % took, "s", "-",
            "Job of %d one-GPU pods to %d Running (%d bound); %.0f pods/s, as fast as the Job "
            "controller makes them (its client: 20 requests/s)" % (a.pods, running, bound, running / took))
        row("fleet.rss", "%.0f" % (stats(st)["peak_rss_kib"] / 1024), "MiB", "<1024",
            "the fleet's peak resident memory with %d nodes and %d pods" % (a.nodes, running))
        kubectl(kc, "delete", "job", NAME, "-n", "default", "--wait=false")
        ts = time.time()
        fl.stop(signal.SIGTERM, timeout=120)
        left = len(kjson(kc, "get", "nodes", "-l", "mokka.io/fleet=" + NAME)["items"])
        row("fleet.stop", "%.1f" % (time.time() - ts), "s", "<30",
            "SIGTERM to exit, every node deleted (%d left)" % left)
    finally:
        if fl.proc and fl.proc.poll() is None:
            fl.stop(signal.SIGTERM, timeout=120)
        kubectl(kc, "delete", "job", NAME, "-n", "default", "--ignore-not-found", "--wait=false", check=False)
        rig_down(started)
    return 0


if __name__ == "__main__":
    sys.exit(main())
