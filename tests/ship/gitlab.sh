#!/bin/sh
# tests/ship/gitlab.sh - CI check of ci/gitlab/mokka.gitlab-ci.yml as a
# consumer uses it: runs the consumer project tests/ship/gitlab/ with
# gitlab-ci-local 4.60 (npm, Node 20; --force-shell-executor runs the jobs,
# which name a Debian image, in this shell), the release archive served from
# a file:// URL (dist/, made by make dist if absent) and the stand-in device
# plugin. The smoke job must pass with a JUnit artifact, a second run must
# take the archive from the cache, and the job with a failing suite must
# fail. Root only (mokka run's sandbox). Prints each job's time.
set -eu
cd "$(dirname "$0")/../.."
[ "$(id -u)" = 0 ] || { echo "gitlab: needs root (mokka run's sandbox)"; exit 3; }
sh ci/deps.sh --quiet
for p in rsync git; do
    command -v "$p" >/dev/null 2>&1 ||
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$p"
done
version=$(sed -n 's/^MOKKA_VERSION := //p' Makefile)
arch=$(dpkg --print-architecture)
[ -f "dist/mokka_${version}_linux_$arch.tar.gz" ] || make dist DIST_ARCHES="$arch" > /dev/null
make -j"$(nproc)" O="build-dist/$arch" "build-dist/$arch/build/tests/fake-device-plugin" > /dev/null
plugin=$(realpath "build-dist/$arch/build/tests/fake-device-plugin")
release="file://$(pwd)/dist"
bin=$(sh tests/ship/npmtool.sh gitlab-ci-local@4.60.1)
fail() { echo "gitlab: FAIL: $*" >&2; exit 1; }
now() { date +%s; }

work=$(mktemp -d /tmp/mokka-gitlab.XXXXXX)
trap 'rm -rf "$work"' EXIT
cp -R tests/ship/gitlab/. "$work/"
cp ci/gitlab/mokka.gitlab-ci.yml "$work/"
(cd "$work" && git init -q && git add -A &&
    git -c user.name=ci -c user.email=ci@localhost commit -q -m consumer)
# job NAME: gitlab-ci-local runs it; its output in $work/NAME.log
job() {
    (cd "$work" && HOME="$work" "$bin/gitlab-ci-local" --force-shell-executor --no-color \
        --variable "MOKKA_ARCHIVE_URL=$release" --variable "MOKKA_PLUGIN=$plugin" \
        "$1") > "$work/$1.log" 2>&1
}

t0=$(now)
job gpu-node-smoke || { cat "$work/gpu-node-smoke.log"; fail "the smoke job failed"; }
junit="$work/.gitlab-ci-local/artifacts/gpu-node-smoke/mokka-junit.xml"
[ -f "$junit" ] || { cat "$work/gpu-node-smoke.log"; fail "the smoke job left no JUnit artifact"; }
grep -q 'failures="0"' "$junit" || fail "the smoke job's JUnit report has failures"
grep -q "mokka_${version}_linux_$arch.tar.gz: OK" "$work/gpu-node-smoke.log" ||
    fail "the smoke job did not check the archive against SHA256SUMS"
echo "gitlab: ok   gpu-node-smoke passed, archive checked against SHA256SUMS, JUnit artifact $(grep -o 'tests="[0-9]*"' "$junit" | head -n1) ($(($(now) - t0)) s)"
t0=$(now)
job gpu-node-smoke || { cat "$work/gpu-node-smoke.log"; fail "the smoke job failed the second time"; }
grep -q "from the cache" "$work/gpu-node-smoke.log" || fail "the second run fetched the archive again"
echo "gitlab: ok   gpu-node-smoke again: the archive came from the cache ($(($(now) - t0)) s)"
t0=$(now)
if job gpu-node-broken; then cat "$work/gpu-node-broken.log"; fail "the job with a failing suite passed"; fi
grep -q "nine GPUs registered" "$work/gpu-node-broken.log" || { cat "$work/gpu-node-broken.log"; fail "the failing job did not run its suite"; }
[ -f "$work/.gitlab-ci-local/artifacts/gpu-node-broken/mokka-junit.xml" ] || fail "the failing job left no JUnit artifact"
echo "gitlab: ok   gpu-node-broken failed as it must, with its JUnit artifact ($(($(now) - t0)) s)"
echo "gitlab: all passed"
