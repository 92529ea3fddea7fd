#!/bin/sh
# tests/bench/run.sh - runs Mokka's benchmarks against a build and prints
# one table: the machine and the build first, then one line per number:
#
#   NAME  VALUE  UNIT  TARGET  VERDICT  NOTE
#
# VERDICT is "ok" or "MISS" where a target is given ("<N" or "=N"), empty
# otherwise. Numbers are printed, never asserted: the exit status is 1 only
# when a bench program fails to run.
#
#   MOKKA_BUILD=/abs/build/dir sh tests/bench/run.sh      (what `make bench` runs)
#
#   MOKKA_DEVICE_PLUGIN=/path/nvidia-device-plugin   also measure `mokka run`
#       with NVIDIA's device plugin (rows prefixed "nvidia:"); the stand-in
#       plugin is always measured. Both need root or user namespaces.
#
#   MOKKA_RIG=/var/cache/mokka-rig   also measure `mokka fleet` against the rig's
#       real API server and scheduler (root; MOKKA_BENCH_FLEET_NODES=1000 and
#       MOKKA_BENCH_FLEET_PODS=8000 size it).
#
#   MOKKA_BENCH_RUNTIME_ROUNDS=20   containers per row of runtime_bench.py (what
#       the OCI runtime shim adds to a container's start; real runc needs root).
#
#   MOKKA_BENCH_GOMOCK=/path/libnvidia-ml.so.1   also measure NVIDIA's Go mock
#       NVML (k8s-test-infra pkg/gpu/mocknvml, built outside this repository)
#       the same way; its rows are prefixed "gomock:". MOCK_NVML_CONFIG is
#       passed on to it (its A100 config gives it temperatures).
#
# The bench programs (tests/bench/bench_*.c, built as build/tests/bench_*)
# print rows as tab-separated fields (see tests/bench/bench.h); this script
# adds the rows of its own (library size, instruction counts, placeholders)
# in the same form and formats them all.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$(dirname "$here")")
: "${MOKKA_BUILD:=$top}"
export MOKKA_BUILD
bin="$MOKKA_BUILD/build/tests"
lib="$MOKKA_BUILD/lib/libnvidia-ml.so.1"
ICOUNT_CALLS=20000

# The environment must not change what is measured.
unset MOCK_CONFIG_PATH MOKKA_CONFIG MOKKA_STATE_DIR MOKKA_BENCH_LIB MOKKA_BENCH_PEER

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
# The bench programs make their config and state directories in here, so a
# program killed half way leaves nothing behind.
export TMPDIR="$tmp"
: > "$tmp/failed"

row() { # name value unit target note
    printf 'row\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5"
}

# Runs one bench program; a failure (or a hang: 5 minutes) is reported and
# remembered.
bench() {
    name=$1; shift
    if [ ! -x "$bin/$name" ]; then
        echo "FAILED: $bin/$name is not built (run make bench)"
        echo "$name" >> "$tmp/failed"
        return
    fi
    timeout 300 "$bin/$name" "$@" 2> "$tmp/$name.err"
    rc=$?
    if [ "$rc" -ne 0 ]; then
        if [ "$rc" = 124 ]; then
            echo "FAILED: $name did not finish in 5 minutes"
        else
            echo "FAILED: $name (exit $rc)"
        fi
        sed 's/^/    /' "$tmp/$name.err"
        echo "$name" >> "$tmp/failed"
    fi
}

# --- sections ------------------------------------------------------------------------

header() {
    cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
    cc=${MOKKA_BENCH_CC:-}
    if [ -n "$cc" ]; then
        compiler="$cc: $($cc --version 2>/dev/null | head -n 1)"
    else
        compiler="$(readelf -p .comment "$lib" 2>/dev/null | sed -n 's/^ *\[ *[0-9]*\] *//p' | head -n 1)"
    fi
    echo "mokka bench"
    echo "machine: $(nproc) CPUs, ${cpu:-unknown CPU}, $(uname -sr), load $(cut -d' ' -f1-3 /proc/loadavg)"
    flags=$(printf '%s' "${MOKKA_BENCH_CFLAGS:-}" | tr -s ' ' | sed 's/^ //; s/ $//')
    [ -n "$flags" ] || flags="unknown (run through make bench)"
    echo "build:   ${compiler:-unknown compiler}; flags: $flags"
    echo "library: $lib ($(git -C "$top" describe --always --dirty 2>/dev/null || echo 'no git'))"
    busy=$(awk -v n="$(nproc)" '{ print ($1 > n) ? 1 : 0 }' /proc/loadavg)
    if [ "$busy" = 1 ]; then
        echo "note:    the machine is busy (load above its CPUs): times run high and the two-thread"
        echo "         rates vary; the instruction counts (icount.*) do not depend on it"
    fi
}

# Library size on disk, as built and stripped.
lib_size() {
    built=$(wc -c < "$lib")
    if ! command -v strip > /dev/null 2>&1 || ! strip -o "$tmp/stripped.so" "$lib" 2> /dev/null; then
        row lib.size.built "$((built / 1024))" KiB "<1024" ""
        row lib.size.stripped n/a KiB "<1024" "(strip is not installed)"
        return
    fi
    stripped=$(wc -c < "$tmp/stripped.so")
    note="as make builds it, its debug information split off; $(((built - stripped) / 1024)) KiB of symbol table"
    row lib.size.built "$((built / 1024))" KiB "<1024" "$note"
    row lib.size.stripped "$((stripped / 1024))" KiB "<1024" "strip -o copy"
}

# Instructions under callgrind: repeatable where ns are not. Runs command
# $2... under callgrind with its stdout in $1 and the profile, annotated with
# inclusive costs, in $tmp/cg.txt; or fails with valgrind's reason in $tmp/cg.err.
callgrind() {
    out=$1; shift
    valgrind -q --tool=callgrind --callgrind-out-file="$tmp/cg.out" "$@" > "$out" 2> "$tmp/cg.err" &&
        callgrind_annotate --inclusive=yes "$tmp/cg.out" > "$tmp/cg.txt" 2>> "$tmp/cg.err"
}

# The inclusive instructions of function $1 in $tmp/cg.txt, divided by $2.
inclusive() {
    awk -v fn="$1" -v n="$2" '
        index($0, ":" fn " ") { gsub(",", "", $1); printf "%.0f", $1 / n; exit }' "$tmp/cg.txt"
}

icount() {
    if ! command -v valgrind > /dev/null 2>&1 || ! command -v callgrind_annotate > /dev/null 2>&1; then
        row icount skipped instr/call - "(valgrind is not installed)"
        return
    fi
    if ! callgrind "$tmp/icount" "$bin/bench_getters" --icount "$ICOUNT_CALLS"; then
        # A tool that cannot read this build (valgrind 3.19 and clang's DWARF 5,
        # say) leaves the counts out; bench_getters itself ran above.
        why=$(grep -v '^###' "$tmp/cg.err" | sed 's/^==[0-9]*== //' | grep -m 1 .)
        row icount skipped instr/call - "(valgrind failed on this build: ${why:-no message})"
        return
    fi
    # "icount <TAB> function <TAB> row name <TAB> NVML return code"
    while IFS='	' read -r tag fn label rc; do
        [ "$tag" = icount ] || continue
        if [ "$rc" != 0 ]; then
            why="(answers NVML error $rc)"
            [ "$rc" = 3 ] && why="(not implemented in this build)"
            row "icount.$label" n/a instr/call - "$why"
            continue
        fi
        per=$(inclusive "$fn" "$ICOUNT_CALLS")
        row "icount.$label" "${per:-n/a}" instr/call - "callgrind, inclusive, $ICOUNT_CALLS calls"
    done < "$tmp/icount"
    # One start-up on the built-in 8 GPUs (no config file).
    if callgrind "$tmp/startup" "$bin/bench_startup" --child; then
        row icount.nvmlInit_v2.8gpu "$(inclusive nvmlInit_v2 1)" instr - "callgrind, the built-in 8 x A100 universe"
    fi
}

# `mokka run`: the device plugin launched in the sandbox until the built-in
# kubelet holds every GPU (beside the plugin's own start-up), an injected XID
# until the kubelet sees the GPU unhealthy, and the plugin's stop (bench_run);
# with the stand-in, and with NVIDIA's plugin when MOKKA_DEVICE_PLUGIN names
# it. Then one whole `mokka run` of the smoke suite, as a user sees it, and
# the time from the start of `mokka run --gfd` until the stand-in GFD's first
# labels are in the node view.
mokka_run() {
    bench bench_run "$bin/fake-device-plugin"
    real=${MOKKA_DEVICE_PLUGIN:-}
    if [ -z "$real" ]; then
        row nvidia:plugin skipped - - "skipped: set MOKKA_DEVICE_PLUGIN=/path/to/nvidia-device-plugin to measure NVIDIA's plugin too"
    elif [ ! -x "$real" ]; then
        echo "FAILED: MOKKA_DEVICE_PLUGIN=$real is not an executable file"
        echo bench_run >> "$tmp/failed"
    else
        bench bench_run --label nvidia "$real"
    fi
    if MOKKA_RUNTIME_DIR="$tmp/runtime" timeout 300 "$MOKKA_BUILD/mokka" run --quiet --report json \
            --plugin "$bin/fake-device-plugin" > "$tmp/run.json" 2> "$tmp/run.err"; then
        ms=$(sed -n 's/^  "time_ms": \([0-9]*\),$/\1/p' "$tmp/run.json")
        row run.smoke-total "${ms:-n/a}" ms - "a whole \`mokka run\` of the smoke suite with the stand-in: start, 0.5 s settling after registration, 3 cases, stop"
    else
        why=$(grep -m 1 'mokka run: ' "$tmp/run.err" | sed 's/^mokka run: //')
        row run.smoke-total n/a ms - "(mokka run failed: ${why:-see mokka run --plugin $bin/fake-device-plugin})"
    fi
    gfd_labels
}

# "gpu-feature-discovery labelled the node: 25 labels in 0.61s", measured by
# mokka run itself from its start.
gfd_labels() {
    if MOKKA_RUNTIME_DIR="$tmp/runtime" timeout 300 "$MOKKA_BUILD/mokka" run --gfd="$bin/fake-gfd" \
            --plugin "$bin/fake-device-plugin" > /dev/null 2> "$tmp/gfd.err"; then
        s=$(sed -n 's/.*gpu-feature-discovery labelled the node: [0-9]* labels in \([0-9.]*\)s.*/\1/p' "$tmp/gfd.err")
        ms=$(awk -v s="${s:-x}" 'BEGIN { if (s == "x") print "n/a"; else printf "%.0f", s * 1000 }')
        row run.gfd-first-labels "$ms" ms - "mokka run --gfd start until the stand-in GFD's first labels are in the node view (the plugin registers meanwhile)"
    else
        why=$(grep -m 1 'mokka run: ' "$tmp/gfd.err" | sed 's/^mokka run: //')
        row run.gfd-first-labels n/a ms - "(mokka run --gfd failed: ${why:-see mokka run --gfd=$bin/fake-gfd})"
    fi
}

# NVIDIA's nvidia-smi -q on the built-in 8 GPUs under `mokka exec`: the best
# of 5 wall times, and the NVML calls one run makes (from `mokka stats`),
# with how many answered NOT_SUPPORTED.
smi() {
    real=${MOKKA_NVIDIA_SMI:-/usr/lib/nvidia/current/nvidia-smi}
    if [ ! -x "$real" ]; then
        row smi.q-8gpu skipped ms - "skipped: no nvidia-smi at $real (sh ci/deps.sh installs it; MOKKA_NVIDIA_SMI names another)"
        return
    fi
    best=""
    for i in 1 2 3 4 5; do
        rm -rf "$tmp/smi-state"
        t0=$(date +%s%N)
        if ! "$MOKKA_BUILD/mokka" exec --quiet -s "$tmp/smi-state" -- "$real" -q > /dev/null 2> "$tmp/smi.err"; then
            echo "FAILED: mokka exec -- nvidia-smi -q"; sed 's/^/    /' "$tmp/smi.err"
            echo smi >> "$tmp/failed"
            return
        fi
        ms=$((($(date +%s%N) - t0) / 1000000))
        [ -z "$best" ] || [ "$ms" -lt "$best" ] && best=$ms
    done
    row smi.q-8gpu "$best" ms - "nvidia-smi -q on the built-in 8 x A100 under mokka exec, best of 5 (process start to exit)"
    "$MOKKA_BUILD/mokka" stats --json --state-dir "$tmp/smi-state" > "$tmp/smi.json" 2> /dev/null
    calls=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sum(c["calls"] for c in d["calls"]), sum(c["notSupported"] for c in d["calls"]), len(d["calls"]))' "$tmp/smi.json" 2> /dev/null)
    set -- $calls
    row smi.q-8gpu.nvml-calls "${1:-n/a}" calls - "NVML calls one nvidia-smi -q makes (mokka stats), to ${3:-?} functions"
    row smi.q-8gpu.not-supported "${2:-n/a}" calls - "of them answered NOT_SUPPORTED: what a real A100 answers so too"
}

# The Kubernetes client against the stand-in API server.
kube() {
    MOKKA_SRC="$top" python3 "$here/kube_bench.py" 2> "$tmp/kube.err" ||
        { echo "FAILED: kube_bench.py"; sed 's/^/    /' "$tmp/kube.err"; echo kube >> "$tmp/failed"; }
}

# Cluster-wide faults: a fleet of agents against the stand-in API server.
faults() {
    MOKKA_SRC="$top" python3 "$here/fault_bench.py" --agents "${MOKKA_BENCH_AGENTS:-200}" 2> "$tmp/faults.err" ||
        { echo "FAILED: fault_bench.py"; sed 's/^/    /' "$tmp/faults.err"; echo faults >> "$tmp/failed"; }
}

# The images (make image): build time and size per architecture, as the last
# make image in this tree recorded them (ci/image.sh; building them here would
# take minutes and need NVIDIA's plugin).
images() {
    found=""
    for stats in "$top"/build-image/*/stats; do
        [ -f "$stats" ] || continue
        found=1
        arch=$(basename "$(dirname "$stats")")
        get() { sed -n "s/^$1 //p" "$stats"; }
        commit=$(get commit | cut -c1-12)
        base=$(get base_seconds)
        row "image.$arch.build" "$(get seconds)" s - "make image $arch at $commit, both images; the mmdebstrap base took $base s of it (a few s when cached)"
        for name in mokka-device-plugin mokka; do
            row "image.$arch.$name" "$(($(get "$name.bytes") / 1048576))" MiB - "dist/${name}_*_linux_$arch.image.tar, gzip layers"
        done
        row "image.$arch.base-build" "$(get base.built_seconds)" s - "mmdebstrap's base when not cached (ci/image/base.sh; foreign architectures run under qemu)"
        row "image.$arch.base-unpacked" "$(($(get base.unpacked) / 1048576))" MiB - "the Debian base unpacked (mmdebstrap --variant=apt, no docs)"
    done
    [ -n "$found" ] || row image skipped - - "skipped: run make image first (its numbers are read from build-image/ARCH/stats)"
}

# The DaemonSet on the rig's real kubelet: from `kubectl apply -k ci/deploy`
# to every GPU allocatable, as tests/e2e/test_rig_cluster.py last measured
# it (it needs root, the rig and NVIDIA's plugin; minutes, so not run here).
rig_cluster() {
    stats=$MOKKA_BUILD/build/rig-cluster.stats
    if [ -f "$stats" ]; then
        row rig.apply-to-allocatable "$(sed -n 's/^apply_to_allocatable_seconds //p' "$stats")" s - \
            "kubectl apply -k ci/deploy and the node label until $(sed -n 's/^gpus //p' "$stats") nvidia.com/gpu allocatable on the rig's kubelet v1.20 (test_rig_cluster.py)"
    else
        row rig.apply-to-allocatable skipped - - "skipped: run tests/e2e/test_rig_cluster.py first (MOKKA_RIG, MOKKA_DEVICE_PLUGIN, MOKKA_GFD, root)"
    fi
}

# `mokka fleet` on the rig's real API server and scheduler: a thousand
# virtual GPU nodes, a Job of 8,000 one-GPU pods, a fault on a tenth of the
# nodes, requests at rest, memory and stop (fleet_bench.py; ~10 minutes, most
# of it the Job controller making pods at its 20 requests/s).
fleet() {
    MOKKA_SRC="$top" python3 "$here/fleet_bench.py" --nodes "${MOKKA_BENCH_FLEET_NODES:-1000}" \
        --pods "${MOKKA_BENCH_FLEET_PODS:-8000}" 2> "$tmp/fleet.err" ||
        { echo "FAILED: fleet_bench.py"; sed 's/^/    /' "$tmp/fleet.err"; echo fleet >> "$tmp/failed"; }
}

# What the OCI runtime shim adds to a container's start (real runc as root).
runtime() {
    MOKKA_SRC="$top" python3 "$here/runtime_bench.py" --rounds "${MOKKA_BENCH_RUNTIME_ROUNDS:-20}" 2> "$tmp/runtime.err" ||
        { echo "FAILED: runtime_bench.py"; sed 's/^/    /' "$tmp/runtime.err"; echo runtime >> "$tmp/failed"; }
}

# NVIDIA's Go mock NVML, for scale, measured by the same programs.
gomock() {
    so=${MOKKA_BENCH_GOMOCK:-}
    if [ -z "$so" ]; then
        row gomock skipped - - "skipped: set MOKKA_BENCH_GOMOCK=/path/to/its/libnvidia-ml.so.1 to compare"
        return
    fi
    if [ ! -f "$so" ]; then
        echo "FAILED: MOKKA_BENCH_GOMOCK=$so is not a file"
        echo gomock >> "$tmp/failed"
        return
    fi
    export MOKKA_BENCH_LIB="$so" MOKKA_BENCH_PEER=gomock
    bench bench_getters
    bench bench_startup
    bench bench_memory
    built=$(wc -c < "$so")
    row gomock:lib.size.built "$((built / 1024))" KiB "<1024" "$so"
    if strip -o "$tmp/gomock.so" "$so" 2> /dev/null; then
        row gomock:lib.size.stripped "$(($(wc -c < "$tmp/gomock.so") / 1024))" KiB "<1024" "strip -o copy"
    fi
    unset MOKKA_BENCH_LIB MOKKA_BENCH_PEER
}

measure() {
    bench bench_getters
    icount
    bench bench_startup
    bench bench_memory
    lib_size
    bench bench_events
    bench bench_reload
    mokka_run
    smi
    kube
    faults
    images
    rig_cluster
    fleet
    runtime
    gomock
}

# Formats rows into the table; other lines pass through.
format() {
    awk -F'\t' '
        BEGIN { fmt = "%-50s %10s %-10s %-7s %-4s %s\n"
                printf fmt, "NAME", "VALUE", "UNIT", "TARGET", "", "NOTE" }
        $1 != "row" { print; next }
        {
            verdict = ""
            if ($3 ~ /^[0-9.]+$/ && $5 ~ /^[<=][0-9.]+$/) {
                t = substr($5, 2) + 0; v = $3 + 0
                ok = substr($5, 1, 1) == "<" ? v < t : v == t
                verdict = ok ? "ok" : "MISS"
            }
            printf fmt, $2, $3, $4, $5, verdict, $6
        }'
}

if [ ! -f "$lib" ]; then
    echo "bench: no library at $lib (run make bench)" >&2
    exit 3
fi
header
echo
measure | format
if [ -s "$tmp/failed" ]; then
    echo "bench programs failed: $(tr '\n' ' ' < "$tmp/failed")"
    exit 1
fi
