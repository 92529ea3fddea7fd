#!/bin/sh
# ci/dist.sh - the release archives: for each architecture, builds Mokka in
# build-dist/ARCH (natively, or cross with Debian's ARCH toolchain and :ARCH
# -dev packages, see ci/cross-deps.sh), then packs
# dist/mokka_VERSION_linux_ARCH.tar.gz and writes dist/SHA256SUMS.
#
#   sh ci/dist.sh VERSION ARCH...      (make dist DIST_ARCHES="amd64 arm64")
#
# An archive unpacks to mokka_VERSION_linux_ARCH/: mokka (it carries the
# library), libnvidia-ml.so.1 beside it (mokka prefers that copy; images and
# LD_LIBRARY_PATH use it), mokka.1, completions/, fixtures/, README.md,
# LICENSE (Apache-2.0).
# Reproducible: file times are the last commit's (SOURCE_DATE_EPOCH), owners
# 0, names sorted, gzip without a name or time; two runs give the same bytes.
set -eu
[ $# -ge 2 ] || { echo "usage: sh ci/dist.sh VERSION ARCH..." >&2; exit 2; }
version=$1; shift
cd "$(dirname "$0")/.."

: "${SOURCE_DATE_EPOCH:=$(git log -1 --format=%ct 2>/dev/null || echo 0)}"
export SOURCE_DATE_EPOCH
native=$(dpkg --print-architecture 2>/dev/null || uname -m)
jobs=$(nproc 2>/dev/null || echo 2)

triplet() {
    case "$1" in
    amd64) echo x86_64-linux-gnu ;;
    arm64) echo aarch64-linux-gnu ;;
    *) echo "dist: architecture '$1' is not supported (amd64, arm64)" >&2; exit 2 ;;
    esac
}

# build ARCH: make in build-dist/ARCH, with the cross toolchain when ARCH
# is not the machine's own.
build() {
    arch=$1 t=$(triplet "$1")
    if [ "$arch" = "$native" ]; then
        make -j"$jobs" O="build-dist/$arch" all
        return
    fi
    if ! command -v "$t-gcc" >/dev/null 2>&1 || [ ! -e "/usr/lib/$t/pkgconfig/grpc.pc" ]; then
        echo "dist: no cross toolchain for $arch ($t-gcc, /usr/lib/$t/pkgconfig/grpc.pc): run sh ci/cross-deps.sh $arch" >&2
        exit 3
    fi
    PKG_CONFIG_LIBDIR="/usr/lib/$t/pkgconfig:/usr/share/pkgconfig" \
        make -j"$jobs" O="build-dist/$arch" CC="$t-gcc" BUILD_CC=cc OBJCOPY="$t-objcopy" all
}

# pack ARCH: stage the files with fixed modes, then a reproducible tarball.
pack() {
    arch=$1 t=$(triplet "$1")
    name="mokka_${version}_linux_$arch"
    stage="build-dist/stage/$name"
    rm -rf "$stage"
    mkdir -p "$stage/completions" "$stage/fixtures"
    strip=objcopy
    [ "$arch" = "$native" ] || strip="$t-objcopy"
    # mokka, and the two programs a node runs for its containers (the
    # runtime shim and the nvidia-smi twin), which find the library beside them
    "$strip" --strip-debug "build-dist/$arch/mokka" "$stage/mokka"
    "$strip" --strip-debug "build-dist/$arch/lib/mokka-container-runtime" "$stage/mokka-container-runtime"
    "$strip" --strip-debug "build-dist/$arch/lib/nvidia-smi" "$stage/nvidia-smi"
    chmod 755 "$stage/mokka" "$stage/mokka-container-runtime" "$stage/nvidia-smi"
    # byte for byte the copy mokka carries, so that mokka uses this file
    install -m 644 "build-dist/$arch/lib/libnvidia-ml.so.1" "$stage/libnvidia-ml.so.1"
    install -m 644 src/mokka.1 README.md LICENSE "$stage/"
    install -m 644 completions/mokka.bash completions/_mokka completions/mokka.fish "$stage/completions/"
    cp -R fixtures/profiles fixtures/configs fixtures/suites fixtures/plugins "$stage/fixtures/"
    find "$stage" -type d -exec chmod 755 {} +
    find "$stage/fixtures" -type f -exec chmod 644 {} +
    tar -C build-dist/stage --format=gnu --sort=name --mtime="@$SOURCE_DATE_EPOCH" \
        --owner=0 --group=0 --numeric-owner -cf - "$name" | gzip -9 -n > "dist/$name.tar.gz"
    echo "dist: dist/$name.tar.gz ($(wc -c < "dist/$name.tar.gz") bytes)"
}

mkdir -p dist
for arch in "$@"; do build "$arch"; done
for arch in "$@"; do pack "$arch"; done
sh ci/sums.sh
