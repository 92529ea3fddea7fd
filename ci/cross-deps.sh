#!/bin/sh
# ci/cross-deps.sh - installs what a cross build of Mokka for another
# architecture needs on Debian/Ubuntu (amd64 or arm64 host): the cross
# compiler, the :ARCH multiarch -dev packages of everything ci/deps.sh
# installs natively, and qemu-user-static to run the result.
#
#   sh ci/cross-deps.sh ARCH      (arm64 or amd64; root or sudo)
set -eu
arch=${1:-}
case "$arch" in
arm64) gcc="gcc-aarch64-linux-gnu" ;;
amd64) gcc="gcc-x86-64-linux-gnu" ;;
*) echo "usage: sh ci/cross-deps.sh arm64|amd64" >&2; exit 2 ;;
esac
pkgs="$gcc qemu-user-static libc6:$arch libyaml-dev:$arch libjansson-dev:$arch
libcurl4-openssl-dev:$arch libgrpc-dev:$arch libprotobuf-c-dev:$arch check:$arch"

missing=""
for p in $pkgs; do
    dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
done
[ -n "$missing" ] || exit 0

if [ "$(id -u)" = 0 ]; then SUDO=""
elif command -v sudo >/dev/null 2>&1; then SUDO="sudo"
else echo "cross-deps: not root and no sudo: install$missing" >&2; exit 3
fi
echo "cross-deps: installing$missing" >&2
if ! dpkg --print-foreign-architectures | grep -qx "$arch"; then
    $SUDO dpkg --add-architecture "$arch"
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
# shellcheck disable=SC2086
$SUDO apt-get install -y -q --no-install-recommends $missing
