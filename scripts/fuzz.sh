#!/usr/bin/env bash
# Coverage-guided fuzzing of every entry point that takes outside bytes (Sources/TraitBridgeFuzzing).
#
#   scripts/fuzz.sh [SECONDS] [TARGET ...]      (make fuzz FUZZ_SECONDS=60 FUZZ_TARGETS="json shelly")
#   FUZZ_MERGE=0 scripts/fuzz.sh 10            (CI: no merge of the corpus afterwards)
#   FUZZ_BUILD_ONLY=1 scripts/fuzz.sh          (the binary only)
#
# Builds Fuzz/ with libFuzzer and AddressSanitizer, then runs each target for SECONDS (default 60;
# as many targets at once as there are cores, FUZZ_JOBS)
# from its kept corpus (Fuzz/corpus/<target>/) and its seeds (the tests' messages and
# ../shared/corpus). New inputs that reach new code are kept in the corpus, which is then merged
# down to the inputs that matter; a crash is written to Fuzz/crashers/<target>/ (replayed by the
# tests from then on) and makes this script exit 1 after the other targets ran. Each run's figures
# are appended to Fuzz/runs.log.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
shift || true
scratch="${FUZZ_SCRATCH:-.build-fuzz}"  # another folder lets a second run build while one runs
binary="$scratch/debug/traitbridge-fuzz"
# One -sanitize= list: given as two options, the last one wins and nothing is instrumented for coverage.
# The parent package is a path dependency: its cached build plan would miss source files added
# since the last fuzz build, so the plan is made afresh each time.
swift build --package-path Fuzz --scratch-path "$scratch" --disable-build-manifest-caching -Xswiftc -sanitize=fuzzer,address -Xswiftc -use-ld=lld 2>&1 | grep -E "error|Compiling|Build complete" | grep -v Compiling || true
[ -x "$binary" ] || { echo "fuzz: the build failed (see above)" >&2; exit 2; }
# FUZZ_BUILD_ONLY=1: the binary only (CI builds it while the tests run, then fuzzes).
[ "${FUZZ_BUILD_ONLY:-0}" = 1 ] && exit 0
if [ "$#" -gt 0 ]; then targets=("$@"); else
    targets=(zigbee2mqtt tasmota shelly homeassistant generic frigate matter requests home cloud-sync cloud-query cloud-execute
        fulfillment json mappings config registry cli homekit-pairing homekit-requests matter-device
        matter-interaction matter-case matter-tlv)
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# One target: its seeds, a bounded run, the merge; its lines to stdout, "crash" in $work/<target>.failed.
fuzz_one() {
    local target=$1 corpus="Fuzz/corpus/$1" crashers="Fuzz/crashers/$1" log="$work/$1.log" status=0
    local started=$SECONDS runs coverage result merged
    mkdir -p "$corpus" "$crashers" "$work/$target-seeds" "$work/$target-merged"
    TRAITBRIDGE_FUZZ_TARGET="$target" TRAITBRIDGE_FUZZ_WRITE_SEEDS="$work/$target-seeds" "$binary" >/dev/null
    # Bounded: total time, time per input, memory, input size. Leaks are LeakSanitizer's to report
    # in the tests; here a leak would stop the run on the first input that allocates a cache.
    TRAITBRIDGE_FUZZ_TARGET="$target" ASAN_OPTIONS=detect_leaks=0 "$binary" -max_total_time="$seconds" -timeout=20 \
        -rss_limit_mb=4096 -max_len=262144 -print_final_stats=1 -artifact_prefix="$crashers/" \
        "$corpus" "$work/$target-seeds" >"$log" 2>&1 || status=$?
    runs=$(grep -oE "stat::number_of_executed_units: *[0-9]+" "$log" | grep -oE "[0-9]+$" || echo 0)
    coverage=$(grep -oE "cov: [0-9]+" "$log" | tail -1 | grep -oE "[0-9]+" || echo 0)
    if [ "$status" -ne 0 ]; then
        touch "$work/$target.failed"
        echo "fuzz: $target CRASHED after ${runs} runs; the input is in $crashers/ (see below)"
        grep -E "ERROR|Fatal error|SUMMARY|artifact" "$log" | head -8
        result=crash
    else
        # Keep only the inputs that add coverage (the corpus stays small enough to replay in tests).
        # FUZZ_MERGE=0 (CI: its clone is thrown away) keeps what the run added to the corpus unmerged.
        merged="$work/$target-merged"
        if [ "${FUZZ_MERGE:-1}" != 0 ]; then
            TRAITBRIDGE_FUZZ_TARGET="$target" ASAN_OPTIONS=detect_leaks=0 "$binary" -merge=1 -max_len=262144 \
                "$merged" "$corpus" >/dev/null 2>&1 && rm -f "$corpus"/* && cp "$merged"/* "$corpus"/ 2>/dev/null || true
        fi
        echo "fuzz: $target ok: ${runs} runs in ${seconds} s, coverage ${coverage}, corpus $(ls "$corpus" | wc -l) inputs"
        result=ok
    fi
    echo "$(date -u +%FT%TZ) $target $((SECONDS - started))s runs=${runs} cov=${coverage} corpus=$(ls "$corpus" | wc -l) $result" >>Fuzz/runs.log
}
# libFuzzer runs one thread: as many targets at once as there are cores (FUZZ_JOBS), each still given
# its SECONDS; their lines are printed in the targets' order.
jobs_max="${FUZZ_JOBS:-$(nproc)}"
for target in "${targets[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n || true; done
    fuzz_one "$target" >"$work/$target.out" 2>&1 &
done
wait
failed=()
for target in "${targets[@]}"; do
    cat "$work/$target.out"
    [ -e "$work/$target.failed" ] && failed+=("$target")
done
if [ "${#failed[@]}" -gt 0 ]; then
    echo "fuzz: crashed: ${failed[*]}; each input in Fuzz/crashers/<target>/ is now a regression test (swift test --filter Fuzz)" >&2
    exit 1
fi
