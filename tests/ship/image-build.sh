#!/bin/sh
# tests/ship/image-build.sh - CI check of `make image` for amd64 and arm64:
# builds both architectures' images with the stand-in device plugin
# (NVIDIA's when MOKKA_PLUGIN_amd64 / MOKKA_PLUGIN_arm64 name it; it stands
# in for gpu-feature-discovery too unless MOKKA_GFD_<arch> names it), builds
# them again from an empty build-image/ and compares the bytes, checks
# dist/SHA256SUMS, each image's config against ci/image/Dockerfile
# (entrypoint, architecture, labels) and its files, loads the archives
# with podman (in a private store) and, when containerd's ctr is here,
# with ctr into a private containerd the way `kind load image-archive`
# does; runs `mokka version` in the amd64 images and, where binfmt_misc
# runs arm64 programs, in the arm64 ones. The mmdebstrap base is cached by
# its inputs (ci/image/base.sh), so only a first run pays for it. Prints
# each step's time; exit 1 on any failure, 3 when a tool is missing.
set -eu
cd "$(dirname "$0")/../.."
version=$(sed -n 's/^MOKKA_VERSION := //p' Makefile)
arches="amd64 arm64"
fail() { echo "image-build: FAIL: $*" >&2; exit 1; }
now() { date +%s; }
[ "$(dpkg --print-architecture)" = amd64 ] || { echo "image-build: runs on amd64 machines"; exit 3; }
sh ci/deps.sh --quiet
sh ci/cross-deps.sh arm64
need=""
for t in mmdebstrap:mmdebstrap arch-test:arch-test podman:podman; do
    command -v "${t%%:*}" > /dev/null 2>&1 || need="$need ${t#*:}"
done
if [ -n "$need" ]; then
    [ "$(id -u)" = 0 ] || { echo "image-build: not root: install$need" >&2; exit 3; }
    echo "image-build: installing$need"
    # shellcheck disable=SC2086
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $need > /dev/null
fi
work=$(mktemp -d /tmp/mokka-image.XXXXXX)
ctrd=""
cleanup() {
    [ -z "$ctrd" ] || { kill "$ctrd" 2>/dev/null; wait "$ctrd" 2>/dev/null || true; }
    podman --root "$work/podman" --runroot "$work/podman-run" rm -af > /dev/null 2>&1 || true
    umount -R "$work/podman" "$work/ctrd" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

# --- build twice --------------------------------------------------------------
t0=$(now)
mkdir -p build-dist
make dist DIST_ARCHES="$arches" > "$work/dist.log" 2>&1 || { tail -n 30 "$work/dist.log"; fail "make dist"; }
set --
for arch in $arches; do
    b=build-dist/$arch
    # the host's own pkg-config path for amd64 (an empty one finds nothing)
    cross="" pcdir=$(pkg-config --variable pc_path pkg-config)
    if [ "$arch" != amd64 ]; then
        cross="CC=aarch64-linux-gnu-gcc BUILD_CC=cc OBJCOPY=aarch64-linux-gnu-objcopy"
        pcdir="/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig"
    fi
    # shellcheck disable=SC2086
    PKG_CONFIG_LIBDIR=$pcdir \
        make -j"$(nproc)" O="$b" $cross "$b/build/tests/fake-device-plugin" >> "$work/dist.log" 2>&1 ||
        { tail -n 30 "$work/dist.log"; fail "the $arch stand-in plugin"; }
    real=$(eval "printf '%s' \"\${MOKKA_PLUGIN_$arch:-}\"")
    set -- "$@" "PLUGIN_$arch=${real:-$b/build/tests/fake-device-plugin}"
    real=$(eval "printf '%s' \"\${MOKKA_GFD_$arch:-}\"")
    set -- "$@" "GFD_$arch=${real:-$b/build/tests/fake-device-plugin}"
done
echo "image-build: make dist and the stand-in plugins ($(($(now) - t0)) s)"
once() {
    rm -rf build-image dist/*.image.tar
    t1=$(now)
    # to stderr: once runs inside $(...), which keeps its stdout
    make image IMAGE_ARCHES="$arches" "$@" > "$work/image.log" 2>&1 || { tail -n 30 "$work/image.log" >&2; fail "make image"; }
    echo "image-build: make image ($(($(now) - t1)) s):"
    grep -E '^image: (dist/|base |.* built in)' "$work/image.log" | sed 's/^/    /'
    (cd dist && sha256sum ./*.image.tar)
}
first=$(once "$@")
echo "$first" | grep -v '\.image\.tar$'
second=$(once "$@")
echo "$second" | grep -v '\.image\.tar$'
[ "$(echo "$first" | grep '\.image\.tar$')" = "$(echo "$second" | grep '\.image\.tar$')" ] ||
    fail "two make image runs gave different bytes"
echo "image-build: reproducible: two builds give the same bytes"
(cd dist && grep '\.image\.tar$' SHA256SUMS | sha256sum -c - > /dev/null && grep -q '_linux_amd64.tar.gz$' SHA256SUMS) ||
    fail "dist/SHA256SUMS does not list the image archives and the release archives"
echo "image-build: dist/SHA256SUMS lists the images beside the release archives"

# --- configs and files against the Dockerfile --------------------------------
t0=$(now)
for arch in $arches; do
    for name in mokka mokka-device-plugin; do
        python3 tests/ship/image_check.py "dist/${name}_${version}_linux_$arch.image.tar" \
            --name "$name" --version "$version" --arch "$arch" --dockerfile ci/image/Dockerfile ||
            fail "$name $arch: its config or files"
    done
done
echo "image-build: entrypoints, architecture, labels and files as ci/image/Dockerfile says ($(($(now) - t0)) s)"

# --- podman ----------------------------------------------------------------------
# a private store; limits no higher than a VM without CAP_SYS_RESOURCE allows
pm() { podman --root "$work/podman" --runroot "$work/podman-run" --storage-driver vfs "$@"; }
lim="--ulimit nofile=1024:1024 --ulimit nproc=1024:1024"
binfmt=no
[ -r /proc/sys/fs/binfmt_misc/qemu-aarch64 ] && grep -q '^enabled' /proc/sys/fs/binfmt_misc/qemu-aarch64 && binfmt=yes
for arch in $arches; do
    for name in mokka mokka-device-plugin; do
        t0=$(now)
        pm load -q -i "dist/${name}_${version}_linux_$arch.image.tar" > "$work/load.out" 2>&1 ||
            { cat "$work/load.out"; fail "podman load $name $arch"; }
        grep -q "$name:$version" "$work/load.out" || { cat "$work/load.out"; fail "podman load did not name $name:$version"; }
        if [ "$arch" = arm64 ] && [ "$binfmt" = no ]; then
            echo "image-build: ok   podman load $name $arch; run skipped (no qemu-aarch64 binfmt_misc entry)"
            pm rmi -f "$name:$version" > /dev/null
            continue
        fi
        # shellcheck disable=SC2086 # $lim: two options
        pm run $lim --rm --net=none --arch "$arch" --entrypoint mokka "$name:$version" version > "$work/run.out" 2>&1 ||
            { cat "$work/run.out"; fail "podman run $name $arch: mokka version"; }
        grep -q "^mokka $version" "$work/run.out" || { cat "$work/run.out"; fail "$name $arch: mokka version printed no $version"; }
        echo "image-build: ok   podman load $name $arch, run: $(head -n 1 "$work/run.out") ($(($(now) - t0)) s)"
        pm rmi -f "$name:$version" > /dev/null
    done
done

# --- containerd, as kind loads an archive into its node --------------------------
if ! command -v containerd > /dev/null 2>&1 || ! command -v ctr > /dev/null 2>&1; then
    echo "image-build: ctr import skipped (no containerd here: apt-get install containerd)"
    exit 0
fi
t0=$(now)
mkdir -p "$work/ctrd"
cat > "$work/ctrd/config.toml" <<TOML
version = 2
root = "$work/ctrd/root"
state = "$work/ctrd/state"
disabled_plugins = ["io.containerd.grpc.v1.cri"]
[grpc]
  address = "$work/ctrd/sock"
TOML
containerd --config "$work/ctrd/config.toml" > "$work/ctrd/log" 2>&1 &
ctrd=$!
for _ in $(seq 50); do [ -S "$work/ctrd/sock" ] && break; sleep 0.1; done
[ -S "$work/ctrd/sock" ] || { cat "$work/ctrd/log"; fail "containerd did not start"; }
for arch in $arches; do
    for name in mokka mokka-device-plugin; do
        # kind load image-archive: ctr --namespace=k8s.io images import --all-platforms --digests
        ctr -a "$work/ctrd/sock" -n k8s.io images import --all-platforms --digests \
            - < "dist/${name}_${version}_linux_$arch.image.tar" > "$work/ctr.out" 2>&1 ||
            { cat "$work/ctr.out"; fail "ctr images import $name $arch"; }
        ctr -a "$work/ctrd/sock" -n k8s.io images ls -q | grep -qx "docker.io/library/$name:$version" ||
            fail "ctr images import $name $arch: no docker.io/library/$name:$version"
        if [ "$arch" = amd64 ]; then
            ctr -a "$work/ctrd/sock" -n k8s.io run --rm "docker.io/library/$name:$version" "test-$name" \
                mokka version > "$work/run.out" 2>&1 || { cat "$work/run.out"; fail "ctr run $name: mokka version"; }
            grep -q "^mokka $version" "$work/run.out" || { cat "$work/run.out"; fail "ctr run $name: no version"; }
        fi
        ctr -a "$work/ctrd/sock" -n k8s.io images rm "docker.io/library/$name:$version" > /dev/null
    done
done
echo "image-build: ok   ctr images import (as kind load image-archive) of the 4 archives: named $version, mokka version runs in the amd64 ones ($(($(now) - t0)) s)"
