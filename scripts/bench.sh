#!/usr/bin/env bash
# The engine benchmarks: generate and simulate recursive doubling, recursive multiplying,
# ring and binomial programs at growing rank counts under lbp and loggp, and print one
# CSV row per run (tasks, edges, events, generation and simulation seconds, tasks per
# second, bytes per task, peak RSS). Usage:
#
#   scripts/bench.sh [quick|full] [OUT.csv]
#
# quick (default) stops at 2^18 ranks; full goes to 2^20 (about 65 M tasks, 3 GB).
# Benchmarks measure the machine they run on: run them on an idle machine.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh
fennel_install_deps
fennel_build build

mode=${1:-quick}
out=${2:-/dev/stdout}
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
