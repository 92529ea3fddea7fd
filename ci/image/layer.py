#!/usr/bin/env python3
# ci/image/layer.py - one image layer, normalized so that the same input
# gives the same bytes: entries in order with owners by number only, times
# clamped to EPOCH, no device nodes, each layer stored as an uncompressed
# tar (its sha256 is the image's diff_id) and a gzip blob without name or
# time (its sha256 is the manifest's digest), described in ENTRY.json.
#
#   layer.py base ROOTFS.tar ENTRY --epoch N [--note TEXT]... [--seconds N]
#       mmdebstrap's tarball as the base layer (its order, "./" dropped);
#       ENTRY.json also lists the installed packages and their versions.
#   layer.py dir DIR ENTRY --epoch N
#       the tree under DIR, sorted by name, every time EPOCH, directories
#       0755, files with their own permission bits, owned by root.
import argparse
import gzip
import hashlib
import json
import os
import shutil
import stat
import tarfile


def clean(info, epoch):
    """Metadata that does not depend on who built the layer or when."""
    info.mtime = min(int(info.mtime), epoch)
    info.uname = info.gname = ""
    # keep only extended attributes (file capabilities); pax times go
    info.pax_headers = {k: v for k, v in info.pax_headers.items() if k.startswith("SCHILY.xattr.")}
    return info


def from_rootfs(path, out, epoch):
    """Copies mmdebstrap's tar entry by entry; /dev is left to the runtime."""
    packages = []
    with tarfile.open(path) as src:
        for info in src:
            name = info.name[2:] if info.name.startswith("./") else info.name
            if name in ("", "."):
                continue
            if info.ischr() or info.isblk() or info.isfifo():
                continue
            info.name = name
            if info.islnk() and info.linkname.startswith("./"):
                info.linkname = info.linkname[2:]
            data = src.extractfile(info) if info.isreg() else None
            if name == "var/lib/dpkg/status":
                body = data.read()
                packages = installed(body.decode())
                data = _Bytes(body)
            out.addfile(clean(info, epoch), data)
    return packages


class _Bytes:
    def __init__(self, b):
        self.b, self.at = b, 0

    def read(self, n=-1):
        n = len(self.b) - self.at if n < 0 else n
        chunk = self.b[self.at:self.at + n]
        self.at += len(chunk)
        return chunk


def installed(status):
    """'package=version' for each installed package of a dpkg status file."""
    out = []
    for para in status.split("\n\n"):
        f = dict(l.split(": ", 1) for l in para.splitlines() if ": " in l and not l.startswith(" "))
        if f.get("Status", "").endswith(" installed"):
            out.append(f"{f['Package']}={f['Version']}")
    return sorted(out)


def from_dir(root, out, epoch):
    for dirpath, dirs, files in os.walk(root):
        dirs.sort()
        for name in sorted(dirs + files):
            path = os.path.join(dirpath, name)
            info = out.gettarinfo(path, os.path.relpath(path, root))
            info.uid = info.gid = 0
            info.mtime = epoch
            if info.isdir():
                info.mode = 0o755
            elif info.isreg():
                info.mode = stat.S_IMODE(os.stat(path).st_mode) & 0o755
            with open(path, "rb") if info.isreg() else _Null() as f:
                out.addfile(clean(info, epoch), f if info.isreg() else None)


class _Null:
    def __enter__(self):
        return None

    def __exit__(self, *a):
        return False


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def main():
    ap = argparse.ArgumentParser(description="one normalized image layer")
    ap.add_argument("kind", choices=["base", "dir"])
    ap.add_argument("source")
    ap.add_argument("entry")
    ap.add_argument("--epoch", type=int, required=True)
    ap.add_argument("--note", action="append", default=[])
    ap.add_argument("--seconds", type=int, help="how long making the source took (make bench shows it)")
    a = ap.parse_args()
    tmp = a.entry + ".part"
    with tarfile.open(tmp + ".tar", "w", format=tarfile.PAX_FORMAT) as out:
        if a.kind == "base":
            packages = from_rootfs(a.source, out, a.epoch)
        else:
            packages = []
            from_dir(a.source, out, a.epoch)
    with open(tmp + ".tar", "rb") as f, open(tmp + ".tar.gz", "wb") as raw:
        with gzip.GzipFile(filename="", mode="wb", compresslevel=9, fileobj=raw, mtime=0) as z:
            shutil.copyfileobj(f, z, 1 << 20)
    desc = {
        "diff_id": "sha256:" + sha256(tmp + ".tar"),
        "digest": "sha256:" + sha256(tmp + ".tar.gz"),
        "size": os.path.getsize(tmp + ".tar.gz"),
        "unpacked": os.path.getsize(tmp + ".tar"),
        "epoch": a.epoch,
        "notes": a.note,
        "build_seconds": a.seconds,
        "packages": packages,
    }
    os.replace(tmp + ".tar", a.entry + ".tar")
    os.replace(tmp + ".tar.gz", a.entry + ".tar.gz")
    with open(tmp + ".json", "w") as f:
        json.dump(desc, f, indent=1, sort_keys=True)
        f.write("\n")
    os.replace(tmp + ".json", a.entry + ".json")


if __name__ == "__main__":
    main()
