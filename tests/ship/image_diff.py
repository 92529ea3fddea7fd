#!/usr/bin/env python3
# tests/ship/image_diff.py - compares two root filesystems (tarballs from
# `podman export`) the way a user of the image would see them: every path
# with its type, permissions, owner, size and link target, and the bytes
# of the files under /opt, /usr/bin and /usr/local/bin (mokka and the
# plugins). Left out, as what differs between two builds of one image and
# not between two recipes: apt's and dpkg's state and logs (the Dockerfile
# runs apt-get update and install over packages the base already has),
# /tmp, and what the runtime writes into a container (/etc/hosts, ...).
# Prints the differences; exit 1 when there are any.
#
#   image_diff.py A.tar B.tar
import hashlib
import re
import sys
import tarfile

NOISE = re.compile(r"^(var/lib/apt/|var/cache/|var/log/|var/lib/dpkg/|tmp/|run/|proc/|sys/|dev/|"
                   r"etc/(hosts|hostname|resolv\.conf|mtab)$|\.containerenv$)")
HASHED = ("opt/", "usr/bin/", "usr/local/bin/")


def listing(path):
    out = {}
    with tarfile.open(path) as tf:
        for i in tf:
            name = i.name.lstrip("./").rstrip("/")
            if not name or NOISE.match(name + ("/" if i.isdir() else "")):
                continue
            digest = ""
            if i.isreg() and name.startswith(HASHED):
                digest = hashlib.sha256(tf.extractfile(i).read()).hexdigest()[:16]
            out[name] = (i.type, oct(i.mode), i.uid, i.gid, i.size if i.isreg() else 0, i.linkname, digest)
    return out


def main():
    a, b = listing(sys.argv[1]), listing(sys.argv[2])
    diffs = [f"only in {sys.argv[1]}: /{p}" for p in sorted(a.keys() - b.keys())]
    diffs += [f"only in {sys.argv[2]}: /{p}" for p in sorted(b.keys() - a.keys())]
    diffs += [f"differs: /{p}: {a[p]} vs {b[p]}" for p in sorted(a.keys() & b.keys()) if a[p] != b[p]]
    for d in diffs[:40]:
        print(f"image_diff: {d}")
    hashed = sum(1 for p in a if p.startswith(HASHED) and a[p][0] == tarfile.REGTYPE)
    if diffs:
        print(f"image_diff: {len(diffs)} differences in {len(a)} paths")
        sys.exit(1)
    print(f"image_diff: same {len(a)} paths (types, modes, owners, sizes, links), {hashed} files under "
          f"/opt, /usr/bin, /usr/local/bin byte for byte")


if __name__ == "__main__":
    main()
