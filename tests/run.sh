#!/bin/sh
# tests/run.sh - runs Mokka's tests against a build and prints one summary
# line: "mokka tests: N passed, N failed, N skipped". Exit 1 when any failed.
#
#   MOKKA_BUILD=/abs/build/dir sh tests/run.sh [--concurrency] [PATTERN]
#
# Unit tests are Check binaries (build/tests/test_*); end-to-end tests are
# Python unittest modules (tests/e2e/test_*.py) that drive the built binaries.
# --concurrency runs only the thread and fork tests (what CI runs under TSan).
# PATTERN limits the run to tests whose file name contains it.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
: "${MOKKA_BUILD:=$top}"
export MOKKA_BUILD MOKKA_SRC="$top"
# A GPU CI runner's container view must not narrow what the tests see; the
# tests that are about it set it themselves.
unset NVIDIA_VISIBLE_DEVICES
concurrency=0
[ "${1:-}" = --concurrency ] && { concurrency=1; shift; }
pattern="${1:-}"

passed=0 failed=0 skipped=0 failed_names=""
log=$(mktemp -d); trap 'rm -rf "$log"' EXIT

is_concurrency() { case "$1" in *thread*|*concurr*|*fork*) return 0 ;; esac; return 1; }

for t in "$MOKKA_BUILD"/build/tests/test_*; do
    [ -x "$t" ] || continue
    name=$(basename "$t")
    case "$name" in *"$pattern"*) ;; *) continue ;; esac
    if [ "$concurrency" = 1 ] && ! is_concurrency "$name"; then continue; fi
    t0=$(date +%s)
    "$t" > "$log/$name" 2>&1
    rc=$?
    took=" ($(( $(date +%s) - t0 )) s)"
    line=$(grep -E '^[0-9]+%: Checks: ' "$log/$name" | tail -n 1)
    n=$(echo "$line" | sed -n 's/.*Checks: \([0-9]*\).*/\1/p')
    f=$(echo "$line" | sed -n 's/.*Failures: \([0-9]*\).*/\1/p')
    e=$(echo "$line" | sed -n 's/.*Errors: \([0-9]*\).*/\1/p')
    if [ -z "$n" ]; then
        echo "FAIL $name (exit $rc, no Check summary)"; cat "$log/$name"
        failed=$((failed + 1)); failed_names="$failed_names $name"; continue
    fi
    bad=$((f + e))
    passed=$((passed + n - bad)); failed=$((failed + bad))
    if [ "$bad" -gt 0 ] || [ "$rc" -ne 0 ]; then
        [ "$bad" -gt 0 ] || failed=$((failed + 1))
        echo "FAIL $name: $line"; grep -vE '^[0-9]+%: Checks: ' "$log/$name"
        failed_names="$failed_names $name"
    else
        echo "ok   $name: $n checks$took"
    fi
done

for py in "$here"/e2e/test_*.py; do
    [ -e "$py" ] || continue
    name=$(basename "$py" .py)
    case "$name" in *"$pattern"*) ;; *) continue ;; esac
    if [ "$concurrency" = 1 ] && ! is_concurrency "$name"; then continue; fi
    t0=$(date +%s)
    (cd "$here/e2e" && python3 -m unittest -v "$name") > "$log/$name" 2>&1
    rc=$?
    took=" ($(( $(date +%s) - t0 )) s)"
    n=$(sed -n 's/^Ran \([0-9]*\) tests\{0,1\} in.*/\1/p' "$log/$name" | tail -n 1)
    f=$(sed -n 's/.*failures=\([0-9]*\).*/\1/p' "$log/$name" | tail -n 1)
    e=$(sed -n 's/.*errors=\([0-9]*\).*/\1/p' "$log/$name" | tail -n 1)
    s=$(sed -n 's/.*skipped=\([0-9]*\).*/\1/p' "$log/$name" | tail -n 1)
    n=${n:-0} f=${f:-0} e=${e:-0} s=${s:-0}
    bad=$((f + e))
    [ "$rc" -ne 0 ] && [ "$bad" -eq 0 ] && bad=1
    passed=$((passed + n - f - e - s)); failed=$((failed + bad)); skipped=$((skipped + s))
    if [ "$bad" -gt 0 ]; then
        echo "FAIL $name$took"; cat "$log/$name"; failed_names="$failed_names $name"
    else
        echo "ok   $name: $n tests${s:+, $s skipped}$took"
        grep -E 'skipped ' "$log/$name" | sed 's/^/     /'
    fi
done

echo "mokka tests: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ] || { echo "failed:$failed_names"; exit 1; }
