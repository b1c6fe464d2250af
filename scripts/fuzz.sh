#!/usr/bin/env bash
# Builds one libFuzzer harness of tests/fuzz and runs it for a while:
#
#   scripts/fuzz.sh TARGET SECONDS [--keep-going]
#
# TARGET is program_yaml, model, goal_loggopsim, goal_fennel, schedule, units, measure,
# msccl, mscclpp, chakra, program_binary, graph or simgrid. The
# build is separate (build-fuzz/, clang, -Dfuzz=true, ASan and UBSan), so the normal
# build is unaffected. The corpus grows in build-fuzz/corpus/TARGET from the seeds in
# the repository; a crashing input lands in build-fuzz/artifacts/TARGET/ (copy it to
# tests/fuzz/regressions/TARGET/ once fixed, so that `meson test` replays it). Each run
# appends its statistics (executions, coverage, duration, crashes) to
# build-fuzz/fuzz-stats.tsv, and prints them. With --keep-going the fuzzer runs in
# libFuzzer's fork mode and carries on after a crash (for a known crash in code that is
# not fixed yet), saving every crashing input.
set -euo pipefail
cd "$(dirname "$0")/.."

keep_going=0
if (($# == 3)) && [[ $3 == --keep-going ]]; then
    keep_going=1
elif (($# != 2)); then
    set -- "" ""
fi
if ! [[ $2 =~ ^[0-9]+$ ]]; then
    echo "usage: scripts/fuzz.sh TARGET SECONDS [--keep-going]" >&2
    echo "targets: program_yaml model goal_loggopsim goal_fennel schedule units measure msccl mscclpp chakra program_binary graph simgrid" >&2
    exit 2
fi
target=$1
seconds=$2

case $target in
program_yaml) seeds=(programs/examples tests/data/reference tests/data/viz tests/data/bad tests/fuzz/seeds/program_yaml) dict=program_yaml ;;
model) seeds=(models/presets tests/data/bad tests/fuzz/seeds/model) dict=model ;;
goal_loggopsim | goal_fennel) seeds=(tests/data/goal tests/data/bad tests/fuzz/seeds/goal) dict=goal ;;
schedule) seeds=(tests/fuzz/seeds/schedule) dict=schedule ;;
units) seeds=(tests/fuzz/seeds/units) dict=units ;;
measure) seeds=(tests/data/fit tests/data/bad tests/fuzz/seeds/measure) dict=measure ;;
msccl) seeds=(tests/data/msccl tests/data/bad tests/fuzz/seeds/msccl) dict=msccl ;;
mscclpp) seeds=(tests/data/mscclpp tests/data/bad tests/fuzz/seeds/mscclpp) dict=mscclpp ;;
chakra) seeds=(tests/data/chakra tests/fuzz/seeds/chakra) dict=chakra ;;
program_binary) seeds=(tests/data/bad tests/fuzz/seeds/program_binary) dict=program_binary ;;
graph) seeds=(tests/data/topology/graph tests/data/bad tests/fuzz/seeds/graph) dict=graph ;;
simgrid) seeds=(tests/data/topology/simgrid-platform tests/fuzz/seeds/simgrid) dict=simgrid ;;
*)
    echo "fuzz.sh: unknown target '$target'" >&2
    exit 2
    ;;
esac

source scripts/deps.sh
fennel_install_deps
if ! command -v clang >/dev/null || ! compgen -G "/usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a" >/dev/null; then
    echo "installing: clang libclang-rt-dev (libFuzzer)" >&2
    sudo=()
    [[ $(id -u) -ne 0 ]] && sudo=(sudo)
    "${sudo[@]}" apt-get update -qq
    rt=$(apt-cache search --names-only '^libclang-rt-[0-9]+-dev$' | awk '{print $1}' | sort -V | tail -n 1)
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clang "${rt:-libclang-rt-dev}" >/dev/null
fi

build=build-fuzz
if [[ ! -f $build/build.ninja ]]; then
    CC=clang meson setup "$build" -Dfuzz=true -Db_sanitize=address,undefined -Db_lundef=false \
        -Dbuildtype=debugoptimized >/dev/null
fi
if ! ninja -C "$build" "tests/fuzz/fuzz-$target" >"$build/ninja.log" 2>&1; then
    grep -E "error|FAILED" "$build/ninja.log" >&2 || cat "$build/ninja.log" >&2
    exit 1
fi

corpus=$build/corpus/$target
artifacts=$build/artifacts/$target
mkdir -p "$corpus" "$artifacts" "$build/logs"
existing=()
for dir in "${seeds[@]}" "tests/fuzz/regressions/$target"; do
    [[ -d $dir ]] && existing+=("$dir")
done
log=$build/logs/$target-$(date +%Y%m%d-%H%M%S).log
crashes_before=$(find "$artifacts" -type f | wc -l)

echo "fuzzing $target for $seconds s (log: $log)"
mode=()
((keep_going)) && mode=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
status=0
started=$SECONDS
ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=0 \
    UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    "$build/tests/fuzz/fuzz-$target" "$corpus" "${existing[@]}" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
    -dict="tests/fuzz/$dict.dict" -artifact_prefix="$artifacts/" -print_final_stats=1 \
    "${mode[@]}" >"$log" 2>&1 || status=$?

elapsed=$((SECONDS - started))
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
# Fork mode prints no final statistics: its progress lines start with "#RUNS:".
[[ -z $runs ]] && runs=$(grep -aoE '^#[0-9]+:' "$log" | tail -n 1 | tr -d '#:')
rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
cov=$(grep -aoE 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -n 1 || true)
corpus_size=$(find "$corpus" -type f | wc -l)
crashes=$(($(find "$artifacts" -type f | wc -l) - crashes_before))
[[ -z $rate && -n $runs ]] && rate=$((runs / (elapsed > 0 ? elapsed : 1)))
printf '%s\t%s\t%ss\t%s runs\t%s/s\t%s\tcorpus %s\t%s crashes\texit %s\n' \
    "$(date -u +%Y-%m-%dT%H:%MZ)" "$target" "$elapsed" "${runs:-?}" "${rate:-?}" "${cov:-cov: ?}" \
    "$corpus_size" "$crashes" "$status" | tee -a "$build/fuzz-stats.tsv"
if ((status != 0)); then
    grep -aE "^==[0-9]+==ERROR|^SUMMARY|runtime error|fuzz invariant|Test unit written" "$log" | head -n 20 >&2 || true
fi
exit "$status"
