#!/usr/bin/env python3
"""seeds.py - the seed corpus of a fuzz target, assembled at run time from
what the project already has (fixtures/, the API-server stand-in), so that
seeds follow the formats as they change; plus the small hand-made ones in
tests/fuzz/seeds/TARGET/.

    python3 tests/fuzz/seeds.py TARGET OUTDIR      write TARGET's seeds
    python3 tests/fuzz/seeds.py --list             the targets it knows

Used by tests/fuzz/run.sh (make fuzz) and tests/e2e/test_fuzz_regress.py
(every seed replayed under the normal test suite)."""
import glob
import hashlib
import json
import os
import struct
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(TOP, "tests", "standins"))
import fake_apiserver as fa  # noqa: E402  (after the path it lives on)


def fixture_files(*patterns):
    out = []
    for p in patterns:
        out += glob.glob(os.path.join(TOP, "fixtures", p), recursive=True)
    return sorted(f for f in out if f.endswith(".yaml"))


def read(path):
    with open(path, "rb") as f:
        return f.read()


# --- config: the library's init path ------------------------------------------------

def config():
    for f in fixture_files("configs/*.yaml"):
        yield read(f)
    # Each GPU profile as the defaults of a two-GPU config: every device field.
    for f in fixture_files("profiles/*.yaml"):
        body = "".join("  " + line + "\n" for line in read(f).decode().splitlines())
        yield ("version: 1.0\nseed: 7\ncount: 2\ndefaults:\n" + body).encode()


# --- suite ---------------------------------------------------------------------------

def suite():
    for f in fixture_files("suites/**/*.yaml"):
        yield read(f)
    # Every quantifier form glibc's EREs take, for the regex measure
    # (src/suite/suite_regex.c): {n} {n,} {n,m} {,m} {,} * + ?, nested,
    # chained, alternated, and patterns from variables.
    patterns = ["^a{3}$", "a{2,}", "a{1,3}", "a{,3}", "a{,}", "(ab){,2}c", "[0-9]{,4}x",
                "(a|b?){,5}", "(a{,2}){,3}", "a{,2}{,2}", "(x+)*y?", "^$|\\bz\\b", "()"]
    for i in range(0, len(patterns), 4):
        labels = "".join("        l%d: '/%s/'\n" % (j, p) for j, p in enumerate(patterns[i:i + 4]))
        yield ("cases:\n  - name: forms\n    exec: echo a\n    expect:\n"
               "      stdout: '/%s/'\n      label:\n%s" % (patterns[i], labels)).encode()
    yield b'cases:\n  - name: v\n    expect: {label: {k: "/${re}{,9}/"}}\n'


# --- kubeconfig: what the tests hand mokka assert ------------------------------------

def kubeconfig():
    server = "https://127.0.0.1:6443"
    pem = "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUIKLS0tLS1FTkQgQ0VSVElGSUNBVEUtLS0tLQo="
    users = [
        {"token": "s3cret"},
        {"tokenFile": "token"},
        {"username": "admin", "password": "pw"},
        {"client-certificate-data": pem, "client-key-data": pem},
        {"client-certificate": "client.crt", "client-key": "client.key"},
        {"exec": {"apiVersion": "client.authentication.k8s.io/v1", "command": "./cred",
                  "args": ["get", "--x"], "env": [{"name": "A", "value": "b"}],
                  "installHint": "install cred", "provideClusterInfo": True,
                  "interactiveMode": "Never"}},
    ]
    clusters = [
        {"certificate-authority-data": pem},
        {"certificate-authority": "ca.crt", "tls-server-name": "kubernetes.default.svc"},
        {"insecure-skip-tls-verify": True, "proxy-url": "http://proxy:3128"},
    ]
    for i, user in enumerate(users):
        yield fa.kubeconfig(server, user, clusters[i % len(clusters)]).encode()


# --- kube_watch: LIST answers and WATCH streams as the API server sends them ---------

def kube_watch():
    gpu1 = fa.make_node("gpu-1")
    gpu2 = fa.make_node("gpu-2", gpus=4, allocatable=3, labels={"pool": "gpu"},
                        taints=[{"key": "nvidia.com/gpu", "value": "present",
                                 "effect": "NoSchedule"}])
    node_list = {"kind": "NodeList", "apiVersion": "v1",
                 "metadata": {"resourceVersion": "100"}, "items": [gpu1, gpu2]}
    events = [{"type": "ADDED", "object": gpu1}, {"type": "MODIFIED", "object": gpu2},
              {"type": "BOOKMARK", "object": {"kind": "Node", "apiVersion": "v1",
                                              "metadata": {"resourceVersion": "120"}}},
              {"type": "DELETED", "object": gpu1},
              {"type": "ERROR", "object": fa.status_object(410, "Expired", "too old")}]
    yield (json.dumps(node_list) + "\n").encode()
    yield "".join(json.dumps(e) + "\n" for e in events).encode()
    # Objects spanning lines, which the framing must put together.
    yield (json.dumps(events[0], indent=1) + "\n" + json.dumps(events[2], indent=1) + "\n").encode()


# --- plugin_messages: device-plugin responses --------------------------------------
# Protocol buffers written out by hand (tag, varint, length-delimited), in
# the frame tests/fuzz/kubelet/plugin_messages.c reads: two little-endian
# 16-bit lengths, a ListAndWatchResponse and an AllocateResponse of those
# lengths, then a PreferredAllocationResponse.

def varint(n):
    out = b""
    n &= (1 << 64) - 1
    while True:
        b, n = n & 0x7F, n >> 7
        out += bytes([b | (0x80 if n else 0)])
        if not n:
            return out


def field(num, value):
    if isinstance(value, int):
        return varint(num << 3) + varint(value)
    if isinstance(value, str):
        value = value.encode()
    return varint(num << 3 | 2) + varint(len(value)) + value


def device(uuid, health="Healthy", numa=None):
    msg = field(1, uuid) + field(2, health)
    if numa is not None:
        msg += field(3, field(1, field(1, numa)))
    return msg


def plugin_frame(law, alloc, preferred):
    return struct.pack("<HH", len(law), len(alloc)) + law + alloc + preferred


def plugin_messages():
    uuids = ["GPU-%s" % hashlib.sha1(b"%d" % i).hexdigest()[:32] for i in range(8)]
    law = b"".join(field(1, device(u, "Healthy" if i != 3 else "Unhealthy", i // 4))
                   for i, u in enumerate(uuids))
    kv = lambda k, v: field(1, k) + field(2, v)  # noqa: E731  (a map entry)
    container = (field(1, kv("NVIDIA_VISIBLE_DEVICES", uuids[0])) +
                 field(2, field(1, "/usr/bin/nvidia-smi") + field(2, "/host/nvidia-smi") + field(3, 1)) +
                 field(3, field(1, "/dev/nvidia0") + field(2, "/dev/nvidia0") + field(3, "rw")) +
                 field(4, kv("cdi.k8s.io/gpu", "nvidia.com/gpu=0")) +
                 field(5, field(1, "nvidia.com/gpu=0")))
    alloc = field(1, container)
    preferred = field(1, field(1, uuids[1]) + field(1, uuids[2]))
    yield plugin_frame(law, alloc, preferred)
    yield plugin_frame(field(1, device("0")) + field(1, device("MIG-1", "Unhealthy", 1)),
                       field(1, b""), field(1, b"") + field(1, b""))
    yield plugin_frame(b"", b"", b"")


# --- units: every scalar the fixtures write ----------------------------------------

def scalars(node):
    if isinstance(node, dict):
        for k, v in node.items():
            yield from scalars(k)
            yield from scalars(v)
    elif isinstance(node, list):
        for v in node:
            yield from scalars(v)
    elif node is not None:
        yield str(node)


def units():
    seen = set()
    for f in fixture_files("configs/*.yaml", "profiles/*.yaml", "suites/**/*.yaml"):
        for s in scalars(yaml.safe_load(read(f))):
            if len(s) <= 32 and s not in seen:
                seen.add(s)
                yield s.encode()


# --- textclean: what plugins log and nodes say ------------------------------------
# The first byte is the length a line is cut at (0: no limit).

def textclean():
    texts = [b"I1201 10:00:00.000000 1 main.go:42] Starting FS watcher.\r\n",
             b"\x1b[1;31mERROR\x1b[0m: device GPU-0 unhealthy (XID 79)\n",
             b"\x1b]0;title\x07OSC \x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\ done",
             b"tabs\tand  spaces \x00 \x7f \xc2\x9b31m C1 \xef\xbf\xbe end",
             "caf\u00e9 \u4e2d\u6587 \U0001f600".encode() + b" \xc3 \xe0\x80\x80 \xed\xa0\x80 \xf4\x90\x80\x80"]
    for i, t in enumerate(texts):
        yield bytes([(0, 8, 16, 40, 3)[i]]) + t


# --- gpufault: GPUFault objects as the API server sends them, and selectors ------

def gpufault():
    meta = {"name": "gpu3-xid79", "uid": "6f0c", "resourceVersion": "1234", "generation": 1,
            "creationTimestamp": "2026-12-02T03:04:05Z"}
    specs = [
        {"gpus": [3], "fault": {"xid": 79}, "duration": "5m"},
        {"nodes": {"names": ["gpu-node-1"],
                   "selector": {"matchLabels": {"mokka.io/pool": "a"},
                                "matchExpressions": [{"key": "zone", "operator": "In",
                                                      "values": ["z1", "z2"]},
                                                     {"key": "gone", "operator": "DoesNotExist"}]}},
         "gpus": ["0", 2, "GPU-6f0c"], "fault": {"ecc": "double"}},
        {"nodes": {}, "gpus": ["all"], "fault": {"lost": True}, "duration": "1m30s"},
        {"gpus": [0], "fault": {"healthy": True}},
        {"gpus": [1], "fault": {"set": {"temperature": "90", "power": 300,
                                        "memoryUsed": "30GiB", "utilization.gpu": "80%"}}},
        {"gpus": [9, "GPU-x"], "fault": {"xid": 79, "lost": True}, "duration": "25h"},
    ]
    for spec in specs:
        obj = {"apiVersion": "mokka.io/v1alpha1", "kind": "GPUFault", "metadata": meta,
               "spec": spec}
        yield json.dumps(obj, separators=(",", ":")).encode()
    for sel in ["a=b,c==d,e!=f,g in (x,y),h notin (z),i,!j", "mokka.io/pool=a",
                "zone in (a,", "nvidia.com/gpu.product=NVIDIA-H100"]:
        yield sel.encode()


# --- agent_objects: hostile GPUFaults and Nodes in LIST answers and WATCH streams ---

def agent_objects():
    """What an API server without validation (or free-text metadata) may
    hold: NUL in values and keys, integers past 64 bits, nesting past
    jansson's depth, wide arrays, escaped keys, the metadata after the bulk."""
    meta = {"name": "gpu3-xid79", "uid": "6f0c", "resourceVersion": "1234",
            "creationTimestamp": "2026-12-02T03:04:05Z"}
    good = {"apiVersion": "mokka.io/v1alpha1", "kind": "GPUFault", "metadata": meta,
            "spec": {"gpus": [3], "fault": {"xid": 79}}}
    text = json.dumps(good, separators=(",", ":"))
    hostile = [
        text.replace('"6f0c"', '"6f\\u0000c"'),                        # NUL in a value
        text.replace('"gpus":[3]', '"gpus":["3\\u0000x"]'),              # NUL in spec
        text.replace('"gpus":[3]', '"gpus":[18446744073709551616]'),     # past 64 bits
        text.replace('"gpus":[3]', '"gpus":[-99999999999999999999999]'),
        text.replace('"gpus":[3]', '"gpus":[1e400]'),
        text.replace('"spec":{', '"spec":{"k\\u0000":1,'),              # NUL in a key
        text.replace('"spec":{', '"spec":{"deep":' + "[" * 2100 + "]" * 2100 + ","),
        text.replace('"metadata":{', '"metadata":{"finalizers":[' + ",".join(['"a"'] * 500) + '],'),
        text.replace('"name"', '"na\\u006de"'),                          # an escaped key
        text.replace('"metadata":{', '"metadata":{"annotations":{"n":"a\\u0000b","x":"\\ud800"},'),
    ]
    node = fa.make_node("gpu-1")
    node["metadata"]["annotations"]["note"] = "a\u0000b"
    hostile.append(json.dumps(node))
    yield ('{"kind":"GPUFaultList","metadata":{"resourceVersion":"9"},"items":[%s]}'
           % ",".join(hostile)).encode()
    yield "".join('{"type":"ADDED","object":%s}\n' % h for h in hostile).encode()
    yield ('{"type":"MODIFIED","object":%s}\n{"type":"DELETED","object":%s}\n'
           % (hostile[2], hostile[5])).encode()


TARGETS = {"config": config, "suite": suite, "kubeconfig": kubeconfig,
           "kube_watch": kube_watch, "plugin_messages": plugin_messages, "units": units,
           "textclean": textclean, "gpufault": gpufault, "agent_objects": agent_objects}


def write(target, outdir):
    """Writes TARGET's seeds to outdir (named by content); returns how many."""
    os.makedirs(outdir, exist_ok=True)
    data = list(TARGETS[target]())
    for f in sorted(glob.glob(os.path.join(HERE, "seeds", target, "*"))):
        data.append(read(f))
    for d in data:
        with open(os.path.join(outdir, hashlib.sha1(d).hexdigest()), "wb") as f:
            f.write(d)
    return len(data)


def main(argv):
    if argv[1:] == ["--list"]:
        print("\n".join(TARGETS))
        return 0
    if len(argv) != 3 or argv[1] not in TARGETS:
        print("usage: seeds.py TARGET OUTDIR | --list (targets: %s)" % " ".join(TARGETS),
              file=sys.stderr)
        return 2
    write(argv[1], argv[2])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
