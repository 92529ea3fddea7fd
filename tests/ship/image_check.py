#!/usr/bin/env python3
# tests/ship/image_check.py - checks one image archive from `make image`
# against what ci/image/Dockerfile builds: the name and tag, the platform,
# the entrypoint of the Dockerfile's stage, the labels, mokka and the
# plugin where the Dockerfile puts them (built for the image's
# architecture), every library mokka needs, and the base kept small (no
# apt lists, docs but copyright, man pages). Prints what it found; exit 1
# with the first finding.
#
#   image_check.py ARCHIVE --name NAME --version V --arch ARCH --dockerfile PATH
import argparse
import io
import json
import re
import subprocess
import sys
import tarfile
import tempfile

MACHINES = {"amd64": 62, "arm64": 183}
TRIPLETS = {"amd64": "x86_64-linux-gnu", "arm64": "aarch64-linux-gnu"}
STAGES = {"mokka": "mokka", "mokka-device-plugin": "device-plugin"}


def fail(msg):
    print(f"image_check: {msg}", file=sys.stderr)
    sys.exit(1)


def dockerfile_stage(path, stage):
    """The ENTRYPOINT and LABEL lines of one stage of the Dockerfile."""
    lines, cur, out = open(path).read().replace("\\\n", " ").splitlines(), None, {"labels": ""}
    for line in lines:
        m = re.match(r"FROM \S+ AS (\S+)$", line)
        if m:
            cur = m.group(1)
        elif cur == stage and line.startswith("ENTRYPOINT "):
            out["entrypoint"] = json.loads(line[len("ENTRYPOINT "):])
        elif cur == stage and line.startswith("LABEL "):
            out["labels"] += line
    return out


def layers(tf, manifest):
    """{path: (TarInfo, bytes or None)} of the image's filesystem, top layer last wins."""
    files = {}
    for name in manifest["Layers"]:
        with tarfile.open(fileobj=io.BytesIO(tf.extractfile(name).read())) as layer:
            for info in layer:
                keep = info.isreg() and (info.name.startswith(("opt/", "usr/bin/nvidia", "usr/bin/gpu-feature", "usr/local/")))
                files[info.name.rstrip("/")] = (info, layer.extractfile(info).read() if keep else None)
    return files


def elf_machine(data):
    return int.from_bytes(data[18:20], "little") if data[:4] == b"\x7fELF" else None


def needed(data):
    with tempfile.NamedTemporaryFile() as f:
        f.write(data)
        f.flush()
        out = subprocess.run(["readelf", "-d", f.name], capture_output=True, text=True, check=True).stdout
    return re.findall(r"\(NEEDED\).*\[(.*)\]", out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("archive")
    ap.add_argument("--name", required=True)
    ap.add_argument("--version", required=True)
    ap.add_argument("--arch", required=True)
    ap.add_argument("--dockerfile", required=True)
    a = ap.parse_args()
    with tarfile.open(a.archive) as tf:
        manifest = json.load(tf.extractfile("manifest.json"))
        if len(manifest) != 1 or manifest[0]["RepoTags"] != [f"{a.name}:{a.version}"]:
            fail(f"{a.archive}: manifest.json names {[m['RepoTags'] for m in manifest]}, not {a.name}:{a.version}")
        cfg = json.load(tf.extractfile(manifest[0]["Config"]))
        files = layers(tf, manifest[0])
    want = dockerfile_stage(a.dockerfile, STAGES[a.name])
    c = cfg["config"]
    if c["Entrypoint"] != want["entrypoint"]:
        fail(f"entrypoint {c['Entrypoint']}, the Dockerfile's stage says {want['entrypoint']}")
    variant = {"arm64": "v8"}.get(a.arch)
    if (cfg["architecture"], cfg["os"], cfg.get("variant")) != (a.arch, "linux", variant):
        fail(f"platform {cfg['os']}/{cfg['architecture']}/{cfg.get('variant')}, not linux/{a.arch}")
    labels = c["Labels"]
    for k, v in {"title": a.name, "version": a.version, "licenses": "Apache-2.0"}.items():
        if labels.get("org.opencontainers.image." + k) != v:
            fail(f"label org.opencontainers.image.{k} is {labels.get('org.opencontainers.image.' + k)!r}, not {v!r}")
    if not re.fullmatch(r"[0-9a-f]{40}", labels.get("org.opencontainers.image.revision", "")):
        fail("no commit in label org.opencontainers.image.revision")
    if f'org.opencontainers.image.title="{a.name}"' not in want["labels"] and want["labels"]:
        fail(f"the Dockerfile's stage is titled otherwise: {want['labels']}")
    if len(cfg["rootfs"]["diff_ids"]) != len(manifest[0]["Layers"]):
        fail("the config's diff_ids and the manifest's layers differ in number")

    mokka = files.get("opt/mokka/mokka")
    if not mokka or mokka[0].mode & 0o111 == 0 or elf_machine(mokka[1]) != MACHINES[a.arch]:
        fail(f"no {a.arch} program at /opt/mokka/mokka")
    link = files.get("usr/local/bin/mokka")
    if not link or not link[0].issym() or link[0].linkname != "/opt/mokka/mokka":
        fail("/usr/local/bin/mokka is not a link to /opt/mokka/mokka")
    for f in ("opt/mokka/libnvidia-ml.so.1", "opt/mokka/fixtures/configs/dgx-a100.yaml"):
        if f not in files:
            fail(f"no /{f}")
    libdir = TRIPLETS[a.arch]
    for lib in needed(mokka[1]):
        if not any(p in files for p in (f"usr/lib/{libdir}/{lib}", f"lib/{libdir}/{lib}", f"usr/{lib}")):
            fail(f"mokka needs {lib}, which is not in /usr/lib/{libdir}")
    for prog in ("nvidia-device-plugin", "gpu-feature-discovery"):
        plugin = files.get(f"usr/bin/{prog}")
        if a.name == "mokka-device-plugin":
            if not plugin or plugin[0].mode & 0o111 == 0 or elf_machine(plugin[1]) != MACHINES[a.arch]:
                fail(f"no {a.arch} program at /usr/bin/{prog}")
        elif plugin:
            fail(f"the mokka image carries /usr/bin/{prog}")
    bulk = [p for p in files if (p.startswith("var/lib/apt/lists/") and p not in ("var/lib/apt/lists/lock", "var/lib/apt/lists/partial"))
            or (p.startswith("usr/share/doc/") and files[p][0].isreg() and not p.endswith("/copyright"))
            or (p.startswith("usr/share/man/") and files[p][0].isreg())]
    if bulk:
        fail(f"the base keeps what it should not: {bulk[:5]}")
    size = sum(i.size for i, _ in files.values())
    print(f"image_check: ok   {a.name}:{a.version} linux/{a.arch}: entrypoint {' '.join(c['Entrypoint'])}, "
          f"{len(files)} paths, {size // (1 << 20)} MiB unpacked, mokka's {len(needed(mokka[1]))} libraries present")


if __name__ == "__main__":
    main()
