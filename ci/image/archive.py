#!/usr/bin/env python3
# ci/image/archive.py - one image as a docker-archive tarball (what
# `docker save` writes, and what `podman load`, `ctr images import` and
# `kind load image-archive` read): manifest.json naming the image (RepoTags),
# its config, and its layers' gzip blobs made by ci/image/layer.py. Every
# byte follows from the arguments: entries sorted, times EPOCH, owner 0,
# JSON with sorted keys.
#
#   archive.py OUT.tar --tag NAME:TAG --arch ARCH --epoch N
#       --entrypoint JSON [--env K=V]... [--label K=V]...
#       --layer ENTRY:CREATED_BY...        (bottom layer first)
import argparse
import datetime
import hashlib
import io
import json
import os
import tarfile

# as Go (GOARCH) and OCI name the platforms
VARIANTS = {"arm64": "v8"}


def dumps(obj):
    return json.dumps(obj, sort_keys=True, separators=(",", ":")).encode()


def config(a, layers):
    created = datetime.datetime.fromtimestamp(a.epoch, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    cfg = {
        "architecture": a.arch,
        "os": "linux",
        "created": created,
        "config": {
            "Env": a.env,
            "Entrypoint": json.loads(a.entrypoint),
            "Labels": dict(l.split("=", 1) for l in a.label),
        },
        "rootfs": {"type": "layers", "diff_ids": [d["diff_id"] for d, _, _ in layers]},
        "history": [{"created": created, "created_by": by} for _, _, by in layers],
    }
    if a.arch in VARIANTS:
        cfg["variant"] = VARIANTS[a.arch]
    return dumps(cfg)


def add(out, name, epoch, data=None, path=None):
    info = tarfile.TarInfo(name)
    info.mtime, info.mode, info.uid, info.gid = epoch, 0o644, 0, 0
    if path is not None:
        info.size = os.path.getsize(path)
        with open(path, "rb") as f:
            out.addfile(info, f)
    else:
        info.size = len(data)
        out.addfile(info, io.BytesIO(data))


def main():
    ap = argparse.ArgumentParser(description="one image as a docker-archive tarball")
    ap.add_argument("out")
    ap.add_argument("--tag", required=True)
    ap.add_argument("--arch", required=True)
    ap.add_argument("--epoch", type=int, required=True)
    ap.add_argument("--entrypoint", required=True)
    ap.add_argument("--env", action="append", default=[])
    ap.add_argument("--label", action="append", default=[])
    ap.add_argument("--layer", action="append", required=True)
    a = ap.parse_args()
    layers = []
    for spec in a.layer:
        entry, by = spec.split(":", 1)
        with open(entry + ".json") as f:
            layers.append((json.load(f), entry + ".tar.gz", by))
    cfg = config(a, layers)
    cfg_name = hashlib.sha256(cfg).hexdigest() + ".json"
    blobs = {d["digest"].split(":", 1)[1] + ".tar.gz": path for d, path, _ in layers}
    manifest = dumps([{"Config": cfg_name, "RepoTags": [a.tag], "Layers": [d["digest"].split(":", 1)[1] + ".tar.gz" for d, _, _ in layers]}])
    tmp = a.out + ".part"
    with tarfile.open(tmp, "w", format=tarfile.USTAR_FORMAT) as out:
        files = dict(blobs)
        files[cfg_name] = cfg
        files["manifest.json"] = manifest
        for name in sorted(files):
            body = files[name]
            if isinstance(body, bytes):
                add(out, name, a.epoch, data=body)
            else:
                add(out, name, a.epoch, path=body)
    os.replace(tmp, a.out)


if __name__ == "__main__":
    main()
