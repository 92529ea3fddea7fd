#!/bin/sh
# ci/image/base.sh - the images' base filesystem: Debian's packages for ARCH
# (mmdebstrap, variant apt: the Essential set, apt, and ci/image/packages,
# no recommends, no docs but copyright, no man pages or locales, no apt
# lists), from the Debian archive this machine's apt uses
# (ci/apt-archive.sh), as one normalized image layer (ci/image/layer.py).
#
#   sh ci/image/base.sh ARCH      prints the layer's cache entry: DIR/base-KEY
#
# The layer is cached under $MOKKA_IMAGE_CACHE (default
# ~/.cache/mokka-image) by its inputs: the architecture, the package list,
# the options below and the archive's snapshot (the sha256 of each suite's
# package index); a later run with the same inputs reuses it without
# mmdebstrap. Its file times are clamped to the release's date, so that a
# rebuild of the same snapshot gives the same bytes; a new one replaces the
# architecture's older entry. Entry files: .tar (the layer),
# .tar.gz (its blob), .json (digests, sizes, snapshot, packages).
# Needs mmdebstrap (root), and for a foreign ARCH qemu-user-static with its
# binfmt_misc entry (arch-test ARCH says yes).
set -eu
[ $# = 1 ] || { echo "usage: sh ci/image/base.sh ARCH" >&2; exit 2; }
arch=$1
here=$(cd "$(dirname "$0")" && pwd)
cache=${MOKKA_IMAGE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mokka-image}
fail() { echo "image: $*" >&2; exit 3; }

command -v mmdebstrap > /dev/null 2>&1 || fail "no mmdebstrap: apt-get install mmdebstrap arch-test"
# The base is the release mokka is built on: its libraries are the ones it links.
codename=$(sed -n 's/^VERSION_CODENAME=//p' /etc/os-release)
[ -n "$codename" ] || fail "no VERSION_CODENAME in /etc/os-release: the base must be the Debian release mokka is built on"
src=$(sh "$here/../apt-archive.sh" "$codename") || exit 3
uri=$(printf '%s\n' "$src" | sed -n 's/^URIs: //p' | cut -d' ' -f1)
keyring=$(printf '%s\n' "$src" | sed -n 's/^Signed-By: //p')
suites=""
for s in $(printf '%s\n' "$src" | sed -n 's/^Suites: //p'); do
    case "$s" in "$codename"|"$codename-updates") suites="$suites $s" ;; esac
done

# The snapshot: the sha256 of each suite's package index for ARCH (from its
# InRelease), so that a mirror push that changes no package keeps the cache;
# the time is the release's own (CODENAME's Date: its last point release).
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
epoch=""
snap=""
for s in $suites; do
    curl -fsSL --retry 3 -o "$tmp/InRelease" "$uri/dists/$s/InRelease" ||
        fail "cannot fetch $uri/dists/$s/InRelease (the archive apt uses here)"
    [ "$s" = "$codename" ] && epoch=$(date -d "$(sed -n 's/^Date: //p' "$tmp/InRelease" | head -n 1)" +%s)
    idx=$(awk -v f="main/binary-$arch/Packages" '$3 == f && length($1) == 64 { print $1 }' "$tmp/InRelease")
    [ -n "$idx" ] || fail "$uri/dists/$s/InRelease lists no main/binary-$arch/Packages"
    snap="$snap $s=$idx"
done
[ -n "$epoch" ] || fail "the apt sources here do not serve $codename itself"

packages=$(grep -v '^#' "$here/packages" | paste -sd, -)
# merged-usr: the /usr symlinks made directly (usr-is-merged), not by the
# usrmerge package, which would bring perl.
set -- --variant=apt --arch="$arch" --format=tar --components=main \
    --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr \
    --aptopt='APT::Install-Recommends "false"' \
    --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright' \
    --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/info/*' \
    --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-exclude=/usr/share/lintian/*' \
    --include="$packages"
key=$(printf '%s\n' "$arch" "$codename" "$packages" "$*" "$snap" "$(mmdebstrap --version)" \
    "$(sha256sum "$here/layer.py")" | sha256sum | cut -c1-16)
entry="$cache/base-$arch-$key"
if [ -s "$entry.json" ]; then
    echo "$entry"
    exit 0
fi

mkdir -p "$cache"
mirrors=""
for s in $suites; do mirrors="$mirrors
deb [signed-by=$keyring] $uri $s main"; done
t0=$(date +%s)
printf '%s\n' "$mirrors" | grep . | SOURCE_DATE_EPOCH=$epoch mmdebstrap --quiet "$@" "$codename" "$tmp/rootfs.tar" - >&2 ||
    fail "mmdebstrap $arch failed (a foreign architecture needs arch-test, qemu-user-static and its binfmt_misc entry: arch-test $arch)"
python3 "$here/layer.py" base "$tmp/rootfs.tar" "$entry" --epoch "$epoch" --seconds $(($(date +%s) - t0)) \
    --note "snapshot:$snap" --note "packages: $packages" >&2
# one base per architecture: older snapshots' go
for old in "$cache/base-$arch-"*.json; do
    [ "$old" = "$entry.json" ] || rm -f "${old%.json}.tar" "${old%.json}.tar.gz" "$old"
done
echo "image: base $arch (${suites# }, release of $(date -u -d "@$epoch" +%F)) built in $(($(date +%s) - t0)) s: $entry" >&2
echo "$entry"
