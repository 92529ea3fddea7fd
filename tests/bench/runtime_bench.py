#!/usr/bin/env python3
"""runtime_bench.py - what `mokka container-runtime` adds to a container's
start. Prints bench rows (tests/bench/run.sh's format):

  runtime.runc.start          create + start of a busybox container under
                              plain runc (median)
  runtime.shim.nogpu.added    the same under the shim, no GPU asked for:
                              the added time (median difference)
  runtime.shim.gpu.added      the same with NVIDIA_VISIBLE_DEVICES (the shim
                              finds the node's files and edits config.json)
  runtime.shim.passthrough    one verb passed on untouched (the shim's start)

The shim is lib/mokka-container-runtime (what `install` has containerd run),
else `mokka container-runtime`.
  runtime.edit.gpu            the shim's own work for a GPU container against
                              a runtime that does nothing (spec editing alone)

Real containers need root, runc and busybox; without them only the
spec-editing row is measured.

    MOKKA_BUILD=/abs/build/dir python3 tests/bench/runtime_bench.py [--rounds 20]"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
from test_container_runtime import busybox_rootfs  # noqa: E402

BUILD = os.environ.get("MOKKA_BUILD") or os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.abspath(__file__))))
MOKKA = os.path.join(BUILD, "mokka")
TWIN = os.path.join(BUILD, "lib", "nvidia-smi")
RUNC = shutil.which("runc") or "/usr/sbin/runc"


def row(name, value, unit, note):
    print(f"row\t{name}\t{value}\t{unit}\t-\t{note}")


def bundle(tmp, name, visible):
    b = os.path.join(tmp, name)
    os.makedirs(b)
    busybox_rootfs(os.path.join(b, "rootfs"))
    subprocess.run([RUNC, "spec"], cwd=b, check=True)
    with open(os.path.join(b, "config.json")) as f:
        spec = json.load(f)
    spec["process"]["terminal"] = False
    spec["process"]["args"] = ["/bin/sh", "-c", "true"]
    if visible:
        spec["process"]["env"].append("NVIDIA_VISIBLE_DEVICES=" + visible)
    with open(os.path.join(b, "config.json"), "w") as f:
        json.dump(spec, f)
    with open(os.path.join(b, "config.json")) as f:
        return b, f.read()


def one(prefix, root, b, original, n):
    """Seconds for create + start through prefix (the runtime measured);
    waiting for the exit and deleting go to plain runc, untimed."""
    with open(os.path.join(b, "config.json"), "w") as f:
        f.write(original)       # a fresh spec each time, as containerd writes one
    name = f"mokka-bench-{os.getpid()}-{n}"

    def run(pre, *args, out=subprocess.DEVNULL):
        # the container inherits create's stdout: never a pipe that is waited on
        return subprocess.run(pre + ["--root", root] + list(args), check=True,
                              stdin=subprocess.DEVNULL, stdout=out)
    t = time.perf_counter()
    run(prefix, "create", "--bundle", b, name)
    run(prefix, "start", name)
    took = time.perf_counter() - t
    while json.loads(run([RUNC], "state", name, out=subprocess.PIPE).stdout)["status"] != "stopped":
        time.sleep(0.001)
    run([RUNC], "delete", name)
    return took


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=20)
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="mokka-rtbench-")
    try:
        env_state = os.path.join(tmp, "state")
        p = subprocess.run([MOKKA, "exec", "--state-dir", env_state, "--", TWIN, "-L"],
                           stdout=subprocess.PIPE, universal_newlines=True, check=True)
        uuids = [x.split("UUID: ")[1].rstrip(")") for x in p.stdout.splitlines()
                 if x.startswith("GPU ")]
        # what containerd runs: the shim program beside mokka (`install`'s choice)
        light = os.path.join(BUILD, "lib", "mokka-container-runtime")
        shim = ([light] if os.access(light, os.X_OK) else [MOKKA, "container-runtime"]) + \
            ["--state-dir", env_state, "--runtime"]
        # the shim passing a verb on: mostly mokka's own start (its libraries)
        times = []
        for _ in range(a.rounds):
            t = time.perf_counter()
            subprocess.run(shim + ["/bin/true", "--", "state", "x"], check=True)
            times.append(time.perf_counter() - t)
        row("runtime.shim.passthrough", f"{statistics.median(times) * 1000:.1f}", "ms",
            f"one runc verb through the shim, runtime /bin/true (median of {a.rounds})")
        # the shim's work alone: a GPU container's create against /bin/true
        b = os.path.join(tmp, "edit")
        os.makedirs(os.path.join(b, "rootfs"))
        spec = {"process": {"env": ["NVIDIA_VISIBLE_DEVICES=" + ",".join(uuids[:2])]},
                "root": {"path": "rootfs"}, "mounts": []}
        times = []
        for _ in range(a.rounds):
            with open(os.path.join(b, "config.json"), "w") as f:
                json.dump(spec, f)
            t = time.perf_counter()
            subprocess.run(shim + ["/bin/true", "--", "create", "--bundle", b, "x"], check=True)
            times.append(time.perf_counter() - t)
        row("runtime.edit.gpu", f"{statistics.median(times) * 1000:.1f}", "ms",
            f"shim + config.json edit for a GPU container, runtime /bin/true (median of {a.rounds})")
        if os.geteuid() != 0 or not os.access(RUNC, os.X_OK) or not shutil.which("busybox"):
            row("runtime.runc.start", "-", "ms", "skipped: needs root, runc and busybox")
            return
        root = os.path.join(tmp, "runc-root")
        plain, nogpu, gpu = [], [], []
        b0, s0 = bundle(tmp, "nogpu", None)
        b1, s1 = bundle(tmp, "gpu", ",".join(uuids[:2]))
        for n in range(a.rounds):
            plain.append(one([RUNC], root, b0, s0, 3 * n))
            nogpu.append(one(shim + [RUNC, "--"], root, b0, s0, 3 * n + 1))
            gpu.append(one(shim + [RUNC, "--"], root, b1, s1, 3 * n + 2))
        base = statistics.median(plain)
        row("runtime.runc.start", f"{base * 1000:.1f}", "ms",
            f"plain runc: create + start of sh -c true (median of {a.rounds})")
        row("runtime.shim.nogpu.added", f"{(statistics.median(nogpu) - base) * 1000:.1f}", "ms",
            "under the shim, no GPU: spec passed through (the shim's own start, twice)")
        row("runtime.shim.gpu.added", f"{(statistics.median(gpu) - base) * 1000:.1f}", "ms",
            "under the shim, 2 GPUs: edit + 6 more bind mounts")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
