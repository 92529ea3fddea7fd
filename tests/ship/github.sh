#!/bin/sh
# tests/ship/github.sh - CI check of the GitHub composite action: validates
# ci/github/action.yml and the example workflow ci/github/mokka.yml against
# GitHub's action and workflow schemas (@action-validator/cli, npm, offline),
# checks the inputs and the upload step, then runs the action's shell steps
# here as a runner would (inputs in their env, $GITHUB_PATH honoured, sudo
# as a shim since this runs as root and ci/deps.sh has the libraries) with
# the release archive from a file:// URL and the stand-in plugin: a passing
# run must write the JUnit report, a failing suite must fail the step.
set -eu
cd "$(dirname "$0")/../.."
[ "$(id -u)" = 0 ] || { echo "github: needs root (mokka run's sandbox)"; exit 3; }
sh ci/deps.sh --quiet
fail() { echo "github: FAIL: $*" >&2; exit 1; }
bin=$(sh tests/ship/npmtool.sh @action-validator/cli@0.6.0)
for f in ci/github/action.yml ci/github/mokka.yml; do
    "$bin/action-validator" "$f" || fail "$f does not validate"
done
echo "github: ci/github/action.yml and ci/github/mokka.yml validate against the action and workflow schemas"

version=$(sed -n 's/^MOKKA_VERSION := //p' Makefile)
arch=$(dpkg --print-architecture)
[ -f "dist/mokka_${version}_linux_$arch.tar.gz" ] || make dist DIST_ARCHES="$arch" > /dev/null
make -j"$(nproc)" O="build-dist/$arch" "build-dist/$arch/build/tests/fake-device-plugin" > /dev/null
plugin=$(realpath "build-dist/$arch/build/tests/fake-device-plugin")
work=$(mktemp -d /tmp/mokka-github.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir "$work/shim" "$work/ws"
# shellcheck disable=SC2016 # the shim's own $1 and $@
printf '#!/bin/sh\n[ "$1" = -E ] && shift\ncase "$1" in apt-get) exit 0 ;; esac\nexec "$@"\n' > "$work/shim/sudo"
chmod 755 "$work/shim/sudo"
printf 'suite: nine-gpus\ncases:\n  - name: nine GPUs registered\n    expect: {capacity: 9}\n' > "$work/ws/nine.yaml"

# steps SUITES: writes each run step of the action as $work/step-N.sh with
# its env (inputs expanded) as $work/step-N.env; checks the upload step.
python3 - "$work" "file://$(pwd)/dist" "$plugin" <<'PY'
import re, shlex, sys, yaml
work, url, plugin = sys.argv[1:]
a = yaml.safe_load(open('ci/github/action.yml'))
want = {'config', 'suites', 'plugin', 'plugin-args', 'junit', 'archive-url', 'version', 'run-args'}
assert set(a['inputs']) == want, 'inputs are %s' % sorted(a['inputs'])
steps = a['runs']['steps']
up = [s for s in steps if s.get('uses', '').startswith('actions/upload-artifact@')]
assert up and up[0]['with']['path'] == '${{ inputs.junit }}' and up[0].get('if') == 'always()', \
    'no upload-artifact step of the JUnit report that runs always()'
inputs = {k: v.get('default', '') for k, v in a['inputs'].items()}
inputs.update({'archive-url': url, 'plugin': plugin})
n = 0
for s in steps:
    if 'run' not in s:
        continue
    n += 1
    with open('%s/step-%d.sh' % (work, n), 'w') as f:
        f.write(s['run'])
    with open('%s/step-%d.env' % (work, n), 'w') as f:
        for k, v in s.get('env', {}).items():
            v = re.sub(r'\$\{\{ inputs\.([a-z-]+) \}\}', lambda m: inputs[m.group(1)], str(v))
            f.write('export %s=%s\n' % (k, shlex.quote(v)))
print('github: the action has inputs %s and uploads ${{ inputs.junit }} always' % ', '.join(sorted(want)))
PY
# step N [VAR=VALUE...]: runs step N in the workspace as the runner does
step() {
    n=$1; shift
    # shellcheck disable=SC1090 # written above
    (cd "$work/ws" && . "$work/step-$n.env" && for kv in "$@"; do export "${kv?}"; done &&
        RUNNER_TEMP="$work/tmp" GITHUB_PATH="$work/github_path" \
        PATH="$(cat "$work/github_path" 2>/dev/null || true):$work/shim:$PATH" bash -e "$work/step-$n.sh")
}
mkdir "$work/tmp"
step 1 > "$work/fetch.log" 2>&1 || { cat "$work/fetch.log"; fail "the fetch step failed"; }
grep -q "mokka_${version}_linux_$arch.tar.gz: OK" "$work/fetch.log" || fail "the fetch step did not check SHA256SUMS"
step 2 > "$work/run.log" 2>&1 || { cat "$work/run.log"; fail "the mokka run step failed"; }
grep -q 'failures="0"' "$work/ws/mokka-junit.xml" || fail "the mokka run step wrote no passing JUnit report"
echo "github: ok   fetch (checked against SHA256SUMS) and mokka run steps pass, JUnit report written"
if step 2 MOKKA_SUITES=nine.yaml > "$work/run.log" 2>&1; then cat "$work/run.log"; fail "a failing suite passed the step"; fi
grep -q "nine GPUs registered" "$work/ws/mokka-junit.xml" || fail "the failing run's JUnit report lacks its case"
echo "github: ok   a failing suite fails the mokka run step, its JUnit report still written"
