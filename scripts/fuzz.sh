#!/usr/bin/env bash
# Builds the libFuzzer targets of Fuzz/ (docs/fuzzing.md) and runs each for a bounded time.
#
#   scripts/fuzz.sh [--seconds N] [--parallel N] [TARGET…]
#
# Defaults: 60 s for each target in Fuzz/Sources, one target at a time. Each target starts from
# its committed seeds (Fuzz/Seeds/<target>) plus what earlier runs here found
# (Fuzz/.build/corpus/<target>). A crash, a failed check, a leak or an input slower than 10 s ends
# that target's run: the input is kept under Fuzz/.build/crashes/<target>/, and the script exits
# 1 once every target ran.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=60
parallel=1
targets=()
while [ $# -gt 0 ]; do
    case "$1" in
        --seconds) seconds="$2"; shift 2 ;;
        --parallel) parallel="$2"; shift 2 ;;
        -h | --help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) echo "error: unknown option $1" >&2; exit 2 ;;
        *) targets+=("$1"); shift ;;
    esac
done
if [ ${#targets[@]} -eq 0 ]; then
    mapfile -t targets < <(ls Fuzz/Sources)
fi
for target in "${targets[@]}"; do
    [ -d "Fuzz/Sources/$target" ] || { echo "error: no fuzz target $target (see Fuzz/Sources)" >&2; exit 2; }
done

echo "== building the fuzz targets (--sanitize=fuzzer --sanitize=address)"
build_start=$SECONDS
# swiftc keeps only the last `-sanitize=` it is given, and SwiftPM passes one per --sanitize: the
# combined flag, which comes last, makes the Swift code both covered and checked. The C targets
# take the two --sanitize flags as they are.
sanitizers=(--sanitize=fuzzer --sanitize=address -Xswiftc -sanitize=fuzzer,address)
# SwiftPM keeps the sanitizers in a Set and writes them in its hash order, which differs from one
# process to the next: the changed command lines would rebuild everything every time.
export SWIFT_DETERMINISTIC_HASHING=1
# ld.gold warns once per ASan helper it cannot export: noise, left out.
(cd Fuzz && swift build "${sanitizers[@]}") 2>&1 | grep -v "warning: Cannot export local symbol"
bin=$(cd Fuzz && swift build "${sanitizers[@]}" --show-bin-path)
unset SWIFT_DETERMINISTIC_HASHING
echo "   built in $((SECONDS - build_start)) s"

# Runs one target; its one-line result goes to Fuzz/.build/logs/<target>.result.
run() {
    local target=$1
    local crashes="Fuzz/.build/crashes/$target" log="Fuzz/.build/logs/$target.log"
    mkdir -p "Fuzz/.build/corpus/$target" "$crashes"
    local status=ok
    # New inputs go to the first directory; the committed seeds stay as they are. Swift's own
    # backtracer is off: libFuzzer reports the crash and keeps the input.
    SWIFT_BACKTRACE=enable=no "$bin/$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$crashes/" "Fuzz/.build/corpus/$target" "Fuzz/Seeds/$target" >"$log" 2>&1 ||
        status=FAILED
    # libFuzzer's last status line ("#N DONE cov: C ft: F corp: …") and its count of runs.
    local last executions
    last=$(grep -E '^#[0-9]+' "$log" | tail -1 || true)
    executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    echo "$status $target: ${executions:-?} executions in ${seconds} s; ${last#*: }" >"${log%.log}.result"
}

mkdir -p Fuzz/.build/logs
rm -f Fuzz/.build/logs/*.result
echo "== fuzzing ${#targets[@]} targets, ${seconds} s each, ${parallel} at a time"
for target in "${targets[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$parallel" ]; do wait -n || true; done
    run "$target" &
done
wait

failed=0
for target in "${targets[@]}"; do
    result="Fuzz/.build/logs/$target.result"
    sed 's/^/   /' "$result"
    if grep -q '^FAILED' "$result"; then
        failed=1
        grep -E 'ERROR: |Fatal error|SUMMARY|Test unit written|artifact_prefix' \
            "Fuzz/.build/logs/$target.log" | head -20 | sed 's/^/      /'
        echo "      full log: Fuzz/.build/logs/$target.log"
    fi
done
if [ "$failed" = 1 ]; then
    echo "error: a fuzz target failed (inputs under Fuzz/.build/crashes/)" >&2
    exit 1
fi
echo "== fuzzing: no crash"
