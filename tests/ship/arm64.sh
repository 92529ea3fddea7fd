#!/bin/sh
# tests/ship/arm64.sh - CI check of the arm64 release archive on an amd64
# machine: cross-builds it (make dist DIST_ARCHES=arm64, Debian's
# gcc-aarch64-linux-gnu and :arm64 -dev packages from ci/cross-deps.sh) with
# the arm64 stand-ins, and runs them under qemu-user-static: the arm64
# library in an arm64 NVML client (init, count, handles, UUIDs, memory,
# events), the archive smoke test (lint, render, smi --mock, exec, run with
# the arm64 stand-in plugin), and `mokka doctor` naming an x86-64 program
# given the arm64 library; then the arm64 Debian package (make deb
# DEB_ARCH=arm64). Prints each step's time; exit 1 on any failure.
set -eu
cd "$(dirname "$0")/../.."
[ "$(dpkg --print-architecture)" = amd64 ] || { echo "arm64: runs on amd64 machines"; exit 3; }
sh ci/deps.sh --quiet
sh ci/cross-deps.sh arm64
version=$(sed -n 's/^MOKKA_VERSION := //p' Makefile)
t=aarch64-linux-gnu
emu=qemu-aarch64-static
archive="dist/mokka_${version}_linux_arm64.tar.gz"
b=build-dist/arm64
fail() { echo "arm64: FAIL: $*" >&2; exit 1; }
now() { date +%s%N; }
ms() { echo $((($(now) - $1) / 1000000)); }

t0=$(now)
mkdir -p build-dist
make dist DIST_ARCHES=arm64 > build-dist/arm64.log 2>&1 || { tail -n 30 build-dist/arm64.log; fail "make dist"; }
PKG_CONFIG_LIBDIR="/usr/lib/$t/pkgconfig:/usr/share/pkgconfig" \
    make -j"$(nproc)" O="$b" CC="$t-gcc" BUILD_CC=cc OBJCOPY="$t-objcopy" \
    "$b/build/tests/fake-device-plugin" "$b/build/tests/nvml-client" >> build-dist/arm64.log 2>&1 ||
    { tail -n 30 build-dist/arm64.log; fail "building the arm64 stand-ins"; }
rm -f build-dist/arm64.log
echo "arm64: cross-built $archive ($(wc -c < "$archive") bytes) and the stand-ins in $(($(ms "$t0") / 1000)) s"
for f in "$b/mokka" "$b/lib/libnvidia-ml.so.1" "$b/build/tests/fake-device-plugin"; do
    readelf -h "$f" | grep -q 'Machine: *AArch64' || fail "$f is not an AArch64 ELF file"
done

work=$(mktemp -d /tmp/mokka-arm64.XXXXXX)
trap 'rm -rf "$work"' EXIT
tar -xzf "$archive" -C "$work"
dir="$work/mokka_${version}_linux_arm64"

t1=$(now)
LD_LIBRARY_PATH="$dir" $emu "$b/build/tests/nvml-client" > "$work/client.out" 2>&1 ||
    { cat "$work/client.out"; fail "the arm64 NVML client on the built-in universe"; }
grep -q '^count 8$' "$work/client.out" || fail "the arm64 NVML client counted $(head -n1 "$work/client.out")"
echo "arm64: ok   NVML client, built-in universe: 8 GPUs, handles, UUIDs, memory, no stray event ($(ms "$t1") ms)"
t1=$(now)
LD_LIBRARY_PATH="$dir" MOCK_CONFIG_PATH=tests/ship/xid-gpu2.yaml $emu "$b/build/tests/nvml-client" --xid-gpu 2 \
    > "$work/client.out" 2>&1 || { cat "$work/client.out"; fail "the arm64 NVML client waiting for an XID"; }
echo "arm64: ok   NVML client, $(tail -n1 "$work/client.out") ($(ms "$t1") ms)"

sh tests/ship/smoke.sh "$archive" "$b/build/tests/fake-device-plugin" "$emu"

# doctor, from the arm64 mokka: an x86-64 program handed the arm64 library
t1=$(now)
$emu "$dir/mokka" exec -- sleep 60 > /dev/null 2>&1 &
exec_pid=$!
pid=""
for _ in $(seq 100); do
    pid=$(pgrep -P "$exec_pid" -x sleep || true)
    [ -n "$pid" ] && break
    sleep 0.1
done
[ -n "$pid" ] || { kill "$exec_pid"; fail "mokka exec -- sleep did not start sleep"; }
$emu "$dir/mokka" doctor --pid "$pid" > "$work/doctor.out" 2>&1 || true
kill "$pid" 2>/dev/null || true
wait "$exec_pid" 2>/dev/null || true
grep -q 'architecture mismatch: the program is built for x86-64, the library .* names for arm64 (AArch64)' \
    "$work/doctor.out" || { cat "$work/doctor.out"; fail "mokka doctor did not name the architecture mismatch"; }
echo "arm64: ok   mokka doctor --pid (x86-64 sleep, arm64 library): $(grep -o 'architecture mismatch: [^;]*' "$work/doctor.out") ($(ms "$t1") ms)"
# the arm64 Debian package, cross-built with debhelper (lintian errors fail it)
t1=$(now)
make deb DEB_ARCH=arm64 > "$work/deb.log" 2>&1 || { tail -n 30 "$work/deb.log"; fail "make deb DEB_ARCH=arm64"; }
deb="dist/mokka_${version}_arm64.deb"
list=$(dpkg-deb -c "$deb" | awk '{print $6}')
for f in ./usr/bin/mokka "./usr/lib/$t/mokka/libnvidia-ml.so.1" ./usr/share/man/man1/mokka.1.gz; do
    echo "$list" | grep -qx "$f" || fail "$deb has no ${f#.}"
done
dpkg-deb -x "$deb" "$work/debroot"
readelf -h "$work/debroot/usr/bin/mokka" | grep -q 'Machine: *AArch64' || fail "$deb's mokka is not AArch64"
$emu "$work/debroot/usr/bin/mokka" version > /dev/null || fail "$deb's mokka does not run under $emu"
echo "arm64: ok   $deb ($(wc -c < "$deb") bytes), $(grep '^deb: lintian' "$work/deb.log" | sed 's/^deb: //'), its mokka runs ($(($(ms "$t1") / 1000)) s)"
echo "arm64: all passed in $(($(ms "$t0") / 1000)) s"
