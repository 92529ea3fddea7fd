#!/bin/sh
# tests/ship/dist.sh - CI check of `make dist` for amd64: builds the archive
# twice from empty build trees and compares the bytes (reproducibility),
# checks dist/SHA256SUMS, then runs the archive smoke test
# (tests/ship/smoke.sh) with the stand-in device plugin. Prints the archive
# size and each step's time; exit 1 on any failure.
set -eu
cd "$(dirname "$0")/../.."
sh ci/deps.sh --quiet
version=$(sed -n 's/^MOKKA_VERSION := //p' Makefile)
arch=$(dpkg --print-architecture)
archive="dist/mokka_${version}_linux_$arch.tar.gz"
now() { date +%s; }

# once N: make dist from an empty build tree; the archive's hash on stdout.
once() {
    rm -rf "build-dist/$arch" && mkdir -p build-dist
    if ! make dist DIST_ARCHES="$arch" > "build-dist/make-$1.log" 2>&1; then
        tail -n 30 "build-dist/make-$1.log" >&2
        echo "dist: FAIL: make dist (run $1)" >&2
        exit 1
    fi
    sha256sum < "$archive"
}
t0=$(now)
first=$(once 1)
t1=$(now)
second=$(once 2)
t2=$(now)
[ "$first" = "$second" ] || { echo "dist: FAIL: two make dist runs gave different bytes"; exit 1; }
echo "dist: reproducible: two builds from empty trees give ${first%% *} ($((t1 - t0)) s, $((t2 - t1)) s)"
(cd dist && grep "_linux_$arch.tar.gz" SHA256SUMS | sha256sum -c -) ||
    { echo "dist: FAIL: dist/SHA256SUMS does not match"; exit 1; }
echo "dist: $archive: $(wc -c < "$archive") bytes, $(tar -tzf "$archive" | wc -l) entries"
for f in mokka libnvidia-ml.so.1 mokka-container-runtime nvidia-smi; do
    tar -tzf "$archive" | grep -qx "mokka_${version}_linux_$arch/$f" ||
        { echo "dist: FAIL: $archive has no $f"; exit 1; }
done

make -j"$(nproc)" O="build-dist/$arch" "build-dist/$arch/build/tests/fake-device-plugin" > /dev/null
sh tests/ship/smoke.sh "$archive" "build-dist/$arch/build/tests/fake-device-plugin"
echo "dist: all passed in $(($(now) - t0)) s"
