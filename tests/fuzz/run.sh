#!/bin/sh
# tests/fuzz/run.sh - runs fuzz targets one after the other (what `make fuzz`
# does once they are built) and fails on any finding.
#
#   sh tests/fuzz/run.sh /abs/build-fuzz SECONDS TARGET...
#
# Each target runs for SECONDS under libFuzzer with -timeout=10 (an input
# slower than 10 s is a finding: a hang, not a busy CI machine; inputs that
# take milliseconds took over 1 s on a loaded 2-core runner) and -rss_limit_mb=512, from a working corpus
# seeded by tests/fuzz/seeds.py and its regression cases (tests/fuzz/regress/
# TARGET). The working corpus (BUILD/fuzz-work/TARGET/corpus) is kept from
# run to run, so that local runs go deeper each time. Flags a target needs
# on top are on its source's "fuzz-flags:" line. Prints per target the
# inputs it ran (libFuzzer's stat::number_of_executed_units); a finding's
# input is left in BUILD/findings/TARGET/ and its report printed. Exit 1
# when any target found something.
set -u
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 3 ] || { echo "usage: sh tests/fuzz/run.sh BUILD SECONDS TARGET..." >&2; exit 2; }
build=$1 secs=$2
shift 2

# ASan keeps freed memory in quarantine (256 MiB by default) to catch use
# after free; a smaller one leaves the 512 MiB limit to the target itself.
ASAN_OPTIONS="quarantine_size_mb=64${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
UBSAN_OPTIONS="print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
export ASAN_OPTIONS UBSAN_OPTIONS

failed=""
for t in "$@"; do
    bin="$build/build/fuzz/$t"
    src=$(ls "$here"/*/"$t".c 2>/dev/null | head -n 1)
    [ -x "$bin" ] && [ -n "$src" ] || { echo "fuzz $t: no such target (built: $bin)"; failed="$failed $t"; continue; }
    flags=$(sed -n 's/^ \* fuzz-flags: \([^*]*\).*/\1/p' "$src")
    work="$build/fuzz-work/$t" found="$build/findings/$t"
    rm -rf "$work/seeds" "$found"
    mkdir -p "$work/corpus" "$work/seeds" "$found"
    python3 "$here/seeds.py" "$t" "$work/seeds" || { failed="$failed $t"; continue; }
    regress="$here/regress/$t"
    [ -d "$regress" ] || regress=""
    # The working corpus comes first: libFuzzer adds what it finds there.
    set -f  # flags and regress are word lists, never globs
    "$bin" -timeout=10 -rss_limit_mb=512 -max_total_time="$secs" -print_final_stats=1 \
        -artifact_prefix="$found/" $flags "$work/corpus" "$work/seeds" $regress \
        > "$work/log" 2>&1
    rc=$?
    set +f
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log" | tail -n 1)
    corpus=$(ls "$work/corpus" | wc -l)
    if [ "$rc" -ne 0 ] || [ -n "$(ls "$found")" ]; then
        echo "FAIL fuzz $t: exit $rc after ${execs:-?} executions; input(s) in $found"
        sed -n '/runtime error\|^==[0-9]*==\|ALARM\|out-of-memory\|deadly signal\| fails$/,$p' \
            "$work/log" | head -n 60
        failed="$failed $t"
    else
        echo "ok   fuzz $t: $execs executions in ${secs}s, corpus $corpus inputs"
    fi
done

[ -z "$failed" ] || { echo "fuzz findings:$failed"; exit 1; }
