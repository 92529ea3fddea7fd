#!/usr/bin/env python3
"""kube_bench.py - cluster mode's numbers, against the stand-in API server:
requests made while waiting on many nodes with a label selector, the time
from a node status change at the server to its detection by the client, and
how long a 429's Retry-After holds the client back.

    MOKKA_BUILD=/abs/build/dir python3 tests/bench/kube_bench.py [--nodes 500] [--runs 20]

Needs build/tests/kube-watch (make testbins) and the openssl CLI."""
import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
from kubetest import KUBE_WATCH, Driver, clean_env, counts, detected_at, fa  # noqa: E402


def kubeconfig(d, srv, certs):
    path = os.path.join(d, "kubeconfig")
    with open(path, "w") as f:
        f.write(fa.kubeconfig(srv.url, {"client-certificate": certs["client_cert"],
                                        "client-key": certs["client_key"]},
                              {"certificate-authority": certs["ca"]}))
    return path


def many_nodes(d, certs, n):
    srv = fa.FakeAPIServer(certs).start()
    try:
        for i in range(n):
            srv.add_node(f"gpu-{i:04d}", allocatable=7, labels={"pool": "gpu"})
        for i in range(n // 10):
            srv.add_node(f"cpu-{i:04d}", gpus=0, labels={"pool": "cpu"})
        drv = Driver(["--kubeconfig", kubeconfig(d, srv, certs), "--selector", "pool=gpu",
                      "--expect-allocatable", "8", "--timeout", "60"], clean_env(d))
        srv.wait_watching(timeout=60)
        t0 = srv.set_all_allocatable(value=8)
        rc, out, err = drv.finish(120)
        if rc:
            sys.exit(f"kube-watch failed ({rc}): {err}")
        c = counts(out)
        print(f"kube: {n}-node selector wait: client lists={c['lists']} watches={c['watches']} "
              f"relists={c['relists']} retries={c['retries']} events={c['events']}; "
              f"stand-in saw LIST {srv.counts['list']}, WATCH {srv.counts['watch']}; "
              f"all {n} changes seen {1000 * (detected_at(out) - t0):.1f} ms after the first was made")
    finally:
        srv.stop()


def latency(d, certs, runs):
    srv = fa.FakeAPIServer(certs).start()
    try:
        srv.add_node("gpu-1")
        kc = kubeconfig(d, srv, certs)
        lat = []
        for i in range(runs):
            srv.set_allocatable("gpu-1", value=8)
            drv = Driver(["--kubeconfig", kc, "--expect-allocatable", "7"], clean_env(d))
            srv.wait_watching(count=i + 1)
            t0 = srv.set_allocatable("gpu-1", value=7)
            rc, out, err = drv.finish()
            if rc:
                sys.exit(f"kube-watch failed ({rc}): {err}")
            lat.append(1000 * (detected_at(out) - t0))
        lat.sort()
        print(f"kube: status change -> detection: median {statistics.median(lat):.2f} ms, "
              f"p90 {lat[int(0.9 * (len(lat) - 1))]:.2f} ms, max {lat[-1]:.2f} ms over {runs} changes")
    finally:
        srv.stop()


def retry_after(d, certs):
    srv = fa.FakeAPIServer(certs).start()
    try:
        srv.add_node("gpu-1")
        drv = Driver(["--kubeconfig", kubeconfig(d, srv, certs), "--expect-allocatable", "7"], clean_env(d))
        srv.wait_watching()
        time.sleep(1.1)          # a watch shorter than 1 s would add its own backoff
        srv.fail_next("watch", 429, retry_after=1)
        srv.end_watches()
        srv.wait_watching(count=3)
        srv.set_allocatable("gpu-1", value=7)
        drv.finish()
        i = next(i for i, e in enumerate(srv.log) if e["status"] == 429)
        print(f"kube: 429 with Retry-After: 1 -> next request {srv.log[i + 1]['t'] - srv.log[i]['t']:.3f} s later")
    finally:
        srv.stop()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--nodes", type=int, default=500)
    ap.add_argument("--runs", type=int, default=20)
    a = ap.parse_args()
    if not os.access(KUBE_WATCH, os.X_OK):
        sys.exit(f"kube_bench: {KUBE_WATCH} not built (make testbins; set MOKKA_BUILD)")
    d = tempfile.mkdtemp(prefix="mokka-kube-bench-")
    try:
        certs = fa.make_certs(os.path.join(d, "certs"))
        many_nodes(d, certs, a.nodes)
        latency(d, certs, a.runs)
        retry_after(d, certs)
    finally:
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
