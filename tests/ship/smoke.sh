#!/bin/sh
# tests/ship/smoke.sh - unpacks a release archive in an empty directory and
# runs what a user runs from it, with no other step: version, lint, render,
# smi --mock, exec, and run (the built-in universe and smoke suite) with the
# given device plugin; under an emulator when one is named (arm64 on amd64).
#
#   sh tests/ship/smoke.sh ARCHIVE PLUGIN [EMULATOR]
#
# HOME is an empty directory, so mokka must use the library beside it (a
# copy it had to write into a cache would show). Prints each step's time;
# exit 1 on the first failure.
set -eu
archive=$(realpath "$1") plugin=$(realpath "$2") emu=${3:-}
work=$(mktemp -d /tmp/mokka-smoke.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir "$work/home"
export HOME="$work/home"
unset XDG_CACHE_HOME MOCK_CONFIG_PATH MOKKA_CONFIG LD_PRELOAD LD_LIBRARY_PATH
cd "$work"
tar -xzf "$archive"
cd "$(basename "$archive" .tar.gz)"

fail() { echo "smoke: FAIL: $*" >&2; exit 1; }
step() {
    name=$1; shift
    t0=$(date +%s%N)
    "$@" > "$work/out" 2>&1 || { cat "$work/out" >&2; fail "$name"; }
    echo "smoke: ok   $name ($((($(date +%s%N) - t0) / 1000000)) ms)"
}
# shellcheck disable=SC2086
m() { $emu ./mokka "$@"; }

for f in mokka libnvidia-ml.so.1 mokka.1 README.md LICENSE completions/mokka.bash completions/_mokka \
         completions/mokka.fish fixtures/profiles/a100-sxm4-40gb.yaml fixtures/configs/dgx-a100.yaml \
         fixtures/suites/smoke.yaml; do
    [ -f "$f" ] || fail "the archive has no $f"
done
step "mokka version" m version
grep -q "^mokka " "$work/out" || fail "mokka version printed no version"
step "mokka lib-path" m lib-path
[ "$(cat "$work/out")" = "$PWD/libnvidia-ml.so.1" ] ||
    fail "mokka lib-path is $(cat "$work/out"), not the library beside it ($PWD/libnvidia-ml.so.1)"
[ ! -e "$HOME/.cache" ] || fail "mokka wrote a cache under HOME although the library is beside it"
step "mokka lint fixtures/configs/*.yaml" m lint fixtures/configs/dgx-a100.yaml fixtures/configs/hgx-h100.yaml \
    fixtures/configs/mig-mixed.yaml fixtures/configs/faults.yaml
step "mokka render -c fixtures/configs/mig-mixed.yaml" m render -c fixtures/configs/mig-mixed.yaml
grep -q "MIG-" "$work/out" || fail "mokka render shows no MIG device"
step "mokka smi --mock" m smi --mock
[ "$(grep -c 'A100-SXM4-40GB' "$work/out")" -ge 8 ] || fail "mokka smi --mock does not show 8 A100s"
step "mokka exec -- true" m exec -- true
if [ -z "$emu" ]; then
    # shellcheck disable=SC2016
    step "mokka exec -- sh (environment)" m exec -- sh -c 'test -n "$LD_PRELOAD" && test -n "$MOKKA_STATE_DIR"'
fi
# shellcheck disable=SC2086
step "mokka run (built-in universe, smoke suite)" m run --junit "$work/junit.xml" -- $emu "$plugin"
grep -q 'failures="0"' "$work/junit.xml" || fail "the JUnit report of mokka run has failures"
step "man -l mokka.1" sh -c 'MANWIDTH=80 man -l ./mokka.1 | grep -q "mokka run"'
echo "smoke: $(basename "$archive"): all passed (${emu:+under $emu, }plugin $(basename "$plugin"))"
