#!/usr/bin/env bash
# The engine benchmarks: generate and simulate recursive doubling, recursive multiplying,
# ring and binomial programs at growing rank counts under lbp and loggp, and print one
# CSV row per run (tasks, edges, events, generation and simulation seconds, tasks per
# second, bytes per task, peak RSS). Usage:
#
#   scripts/bench.sh [quick|full|readers] [OUT.csv]
#
# quick (default) stops at 2^18 ranks; full goes to 2^20 (about 65 M tasks, 3 GB).
# readers measures the program readers instead: each generated program is written as
# YAML, LogGOPSim GOAL and fennel GOAL in memory and read back (bench-readers).
# Benchmarks measure the machine they run on: run them on an idle machine.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh
fennel_install_deps
fennel_build build

mode=${1:-quick}
out=${2:-/dev/stdout}
if [[ $mode == readers ]]; then
    {
        build/tests/bench-readers --header
        for spec in "allreduce-rd 16384" "allreduce-rd 65536" "bcast-binomial 262144" \
            "allreduce-ring 256"; do
            # shellcheck disable=SC2086 # generator and ranks
            build/tests/bench-readers $spec models/presets/thesis-figures.yaml
        done
    } >"$out"
    exit 0
fi
bench=build/tests/bench-engine
max=18
[[ $mode == full ]] && max=20

lbp=models/presets/thesis-figures.yaml
loggp=models/presets/loggopsim-default.yaml
rows=()
run() {
    local gen=$1 ranks=$2 model=$3
    rows+=("$("$bench" "$gen" "$ranks" "$model")")
}
for k in $(seq 10 2 "$max"); do
    n=$((1 << k))
    run allreduce-rd "$n" "$lbp"
    run allreduce-rd "$n" "$loggp"
    run allreduce-rm "$n" "$lbp"
    run bcast-binomial "$n" "$lbp"
done
# Rings have p - 1 stages of p ranks: quadratic in p, so smaller.
for n in 256 512 1024 2048; do
    run allreduce-ring "$n" "$lbp"
done
{
    "$bench" --header
    printf '%s\n' "${rows[@]}"
} >"$out"
