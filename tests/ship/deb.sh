#!/bin/sh
# tests/ship/deb.sh - CI check of `make deb`: builds the package (lintian
# errors fail the build), checks where it puts things, installs it with
# dpkg -i, runs the Quick start's main job from the installed files (mokka
# run on its built-in defaults with the stand-in device plugin), then
# purges it and checks that every file it installed is gone. Root only.
# Prints the package size, lintian's counts and each step's time.
set -eu
cd "$(dirname "$0")/../.."
[ "$(id -u)" = 0 ] || { echo "deb: needs root (dpkg -i)"; exit 3; }
sh ci/deps.sh --quiet
for p in debhelper lintian; do
    dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'install ok installed' ||
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$p"
done
version=$(sed -n 's/^MOKKA_VERSION := //p' Makefile)
arch=$(dpkg --print-architecture)
triplet=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
deb="dist/mokka_${version}_$arch.deb"
libdir="/usr/lib/$triplet/mokka"
fail() { echo "deb: FAIL: $*" >&2; exit 1; }
now() { date +%s; }

t0=$(now)
log=$(mktemp /tmp/mokka-make-deb.XXXXXX)
make deb > "$log" 2>&1 || { tail -n 40 "$log"; rm -f "$log"; fail "make deb"; }
grep -E '^(deb: lintian|[EWIP]: )' "$log" || true
rm -f "$log"
echo "deb: built $deb ($(wc -c < "$deb") bytes) in $(($(now) - t0)) s"

list=$(dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\./|/|')
for f in /usr/bin/mokka "$libdir/libnvidia-ml.so.1" /usr/share/man/man1/mokka.1.gz \
         /usr/share/bash-completion/completions/mokka /usr/share/zsh/vendor-completions/_mokka \
         /usr/share/fish/vendor_completions.d/mokka.fish /usr/share/mokka/configs/dgx-a100.yaml \
         /usr/share/mokka/profiles/a100-sxm4-40gb.yaml /usr/share/mokka/suites/smoke.yaml; do
    echo "$list" | grep -qx "$f" || fail "the package has no $f"
done
dpkg-deb --fsys-tarfile "$deb" | tar -xOf - ./usr/share/doc/mokka/copyright |
    grep -qx 'License: Apache-2.0' || fail "the package's copyright file does not say Apache-2.0"
if echo "$list" | grep -E "^/(usr/)?lib/($triplet/)?libnvidia-ml" >/dev/null; then
    fail "the package puts libnvidia-ml on the default linker path"
fi

make -j"$(nproc)" O="build-dist/$arch" "build-dist/$arch/build/tests/fake-device-plugin" > /dev/null
plugin=$(realpath "build-dist/$arch/build/tests/fake-device-plugin")

dpkg -s mokka > /dev/null 2>&1 && fail "mokka is installed already; purge it first"
dpkg -i "$deb" > /dev/null
before=$(dpkg -L mokka)
work=$(mktemp -d /tmp/mokka-deb.XXXXXX)
trap 'rm -rf "$work"; dpkg --purge mokka > /dev/null 2>&1 || true' EXIT
mkdir "$work/home"
(
    cd "$work"
    export HOME="$work/home"
    unset XDG_CACHE_HOME MOCK_CONFIG_PATH MOKKA_CONFIG LD_PRELOAD LD_LIBRARY_PATH
    [ "$(command -v mokka)" = /usr/bin/mokka ] || fail "mokka on PATH is $(command -v mokka)"
    [ "$(mokka lib-path)" = "$libdir/libnvidia-ml.so.1" ] ||
        fail "mokka lib-path is $(mokka lib-path), not the installed $libdir/libnvidia-ml.so.1"
    ! ldconfig -p | grep -q "$libdir" || fail "ldconfig knows $libdir"
    mokka lint /usr/share/mokka/configs/*.yaml > /dev/null || fail "mokka lint of /usr/share/mokka/configs"
    man -w mokka > /dev/null || fail "man mokka finds no page"
    t1=$(now)
    mokka run --plugin "$plugin" --junit mokka-demo.xml || fail "mokka run from the installed files"
    grep -q 'failures="0"' mokka-demo.xml || fail "mokka run's report has failures"
    [ ! -e "$HOME/.cache" ] || fail "mokka wrote a cache under HOME although the library is installed"
    echo "deb: mokka run from the installed package passed in $(($(now) - t1)) s"
)

dpkg --purge mokka > /dev/null
left=""
for f in $before; do
    # directories other packages share stay; Mokka's own go with it
    case "$f" in "$libdir"|/usr/share/mokka*|/usr/share/doc/mokka*) ;; *) [ -d "$f" ] && continue ;; esac
    if [ -e "$f" ] || [ -L "$f" ]; then left="$left $f"; fi
done
[ -z "$left" ] || fail "purging left:$left"
dpkg -s mokka > /dev/null 2>&1 && fail "dpkg still knows mokka after the purge"
echo "deb: purged: none of the $(echo "$before" | wc -l) paths it installed is left"
echo "deb: all passed in $(($(now) - t0)) s"
