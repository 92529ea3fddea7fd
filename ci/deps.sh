#!/bin/sh
# ci/deps.sh - installs what Mokka needs to build and test on Debian/Ubuntu.
#
#   sh ci/deps.sh            install whatever is missing (apt-get; root or sudo)
#   sh ci/deps.sh --quiet    print nothing when everything is already there
#   sh ci/deps.sh --list     print the package list and exit
#
# The NVIDIA test peers (the real libnvidia-ml.so.1 export list, NVIDIA's
# nvml.h for the ABI check, pynvml, nvidia-smi) live in Debian's contrib and
# non-free components (Ubuntu: multiverse). When they are not enabled, this
# script enables them in a file of its own and says so, from the archive the
# machine's apt sources already use (ci/apt-archive.sh: a mirror or proxy
# stays in use); nothing else in the apt configuration is touched.
set -eu

quiet=0
case "${1:-}" in
--quiet) quiet=1 ;;
--list) list=1 ;;
"") ;;
*) echo "usage: sh ci/deps.sh [--quiet|--list]" >&2; exit 2 ;;
esac

BUILD="build-essential clang pkg-config libyaml-dev libjansson-dev libcurl4-openssl-dev
libgrpc-dev libprotobuf-c-dev protobuf-c-compiler check python3 git"
TEST="util-linux procps openssl mandoc man-db bash-completion zsh fish prometheus
libclang-rt-dev python3-yaml"
NVIDIA="libnvidia-ml1 libnvidia-ml-dev python3-pynvml nvidia-smi"

if [ "${list:-0}" = 1 ]; then echo $BUILD $TEST $NVIDIA; exit 0; fi

say() { [ "$quiet" = 1 ] || echo "deps: $*"; }

missing=""
for p in $BUILD $TEST $NVIDIA; do
    # libclang-rt-dev is virtual on some releases; accept any versioned one.
    if [ "$p" = libclang-rt-dev ]; then
        dpkg-query -W -f='${Status}\n' 'libclang-rt-*-dev' 2>/dev/null | grep -q 'install ok installed' && continue
        missing="$missing libclang-rt-dev"; continue
    fi
    dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
done

if [ -z "$missing" ]; then
    say "all build and test dependencies are installed"
    exit 0
fi

echo "deps: missing:$missing" >&2
if [ "$(id -u)" = 0 ]; then SUDO=""
elif command -v sudo >/dev/null 2>&1; then SUDO="sudo"
else
    echo "deps: not root and no sudo: install the packages above, then run make again" >&2
    exit 3
fi

. /etc/os-release
codename="${VERSION_CODENAME:-}"
enable_nonfree() {
    f=/etc/apt/sources.list.d/mokka-nvidia-peers.sources
    [ -e "$f" ] && return 0
    case "${ID:-}" in
    debian)
        # The archive the machine already uses (its mirror or proxy), never
        # a host of our own.
        archive=$(sh "$(dirname "$0")/apt-archive.sh" "$codename") || exit 3
        echo "deps: enabling Debian contrib and non-free (NVIDIA test peers only) in $f," \
            "from $(echo "$archive" | sed -n 's/^URIs: //p')" >&2
        $SUDO sh -c "cat > $f" <<EOF
# Added by Mokka's ci/deps.sh: NVIDIA's NVML library, header, pynvml and
# nvidia-smi for Mokka's tests (no driver is installed), from the archive
# this machine's apt sources already use for $codename.
Types: deb
$archive
Components: contrib non-free
EOF
        ;;
    ubuntu)
        echo "deps: enabling Ubuntu universe and multiverse (NVIDIA test peers only)" >&2
        $SUDO apt-get install -y software-properties-common >/dev/null
        $SUDO add-apt-repository -y universe >/dev/null
        $SUDO add-apt-repository -y multiverse >/dev/null
        ;;
    esac
}

case "$missing" in
*libnvidia-ml*|*pynvml*|*nvidia-smi*) enable_nonfree ;;
esac

export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
# libclang-rt-dev: pick the runtime that matches the installed clang.
pkgs=""
for p in $missing; do
    if [ "$p" = libclang-rt-dev ]; then
        v=$(clang --version 2>/dev/null | sed -n 's/.*clang version \([0-9]*\).*/\1/p' | head -n1)
        [ -n "$v" ] || v=$(apt-cache depends clang 2>/dev/null | sed -n 's/.*clang-\([0-9][0-9]*\)$/\1/p' | head -n1)
        p="libclang-rt-${v:-14}-dev"
    fi
    pkgs="$pkgs $p"
done
# shellcheck disable=SC2086
$SUDO apt-get install -y -q --no-install-recommends $pkgs
say "installed:$pkgs"
