#!/usr/bin/env bash
# The engine benchmarks: generate and simulate recursive doubling, recursive multiplying,
# ring and binomial programs at growing rank counts under lbp and loggp, and print one
# CSV row per run (tasks, edges, events, generation and simulation seconds, tasks per
# second, bytes per task, peak RSS). Usage:
#
#   scripts/bench.sh [quick|full|readers|fit|fanout|noise|topology|fair|msccl|mscclpp|goal] [OUT.csv]
#
# quick (default) stops at 2^18 ranks; full goes to 2^20 (about 65 M tasks, 3 GB).
# readers measures the program readers instead: each generated program is written as
# YAML, LogGOPSim GOAL and fennel GOAL in memory and read back, and the GOAL as read is
# converted to fennel's binary program and read from a file (bench-readers).
# fit times `fennel fit` on 10^6 samples: multicast times (10 sizes x b = 1..16, 6250
# repetitions each, lbp, --statistic median) and one-way times (23 sizes, postal, min).
# Modes that measure a special case also run the baseline beside it, recursive doubling
# without topology or noise under thesis-figures, so that docs/PERFORMANCE.md can state each
# figure as a ratio to a run of the same minute: absolute rates on a shared machine move by
# factors of two or three from one hour to the next.
# fanout runs wide fan-outs (a multicast of width 8000, allreduce-rm with the schedules
# a1024 and a4096) and the baseline at 65 536 ranks.
# noise runs recursive doubling at 65 536 ranks with and without seeded normal noise
# (network 20 ns, compute 5 ns), three times each, alternating; compare simulate_cpu_seconds.
# topology runs recursive doubling on topologies under each contention level
# (docs/TOPOLOGY.md): a switch at 2^18 ranks (none, endpoint), a three-level fat tree of
# 2^14 nodes (links) and one of 2^12 (fair), each beside the same program without a
# topology (topology "none").
# fair runs all-to-alls of 32, 64 and 128 ranks on a switch under contention fair
# (scripts/fair-alltoall.py: one put of 1-3 MiB from every rank to every other, lbp, so all
# P (P - 1) flows share the links at once and end at different times), with the CPU time
# (user + system) of the whole `fennel run`.
# msccl reads MSCCL ring allreduce algorithms of 64 to 1024 GPUs (scripts/msccl-ring.py):
# verify (read and check) and run (read, lower to a program, simulate), in steps per second.
# mscclpp does the same for MSCCL++ ring allreduce plans of 64 to 256 GPUs
# (scripts/mscclpp-ring.py), in operations per second.
# goal times `fennel run F.goal` end to end on three large GOAL schedules (a dissemination
# barrier of 65 536 ranks, recursive doubling on 2^18, a ring allreduce on 2048; about 2 GB
# of text, kept in $FENNEL_BENCH_DIR or a temporary folder) with scripts/bench-goal.py.
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
if [[ $mode == goal ]]; then
    work=${FENNEL_BENCH_DIR:-}
    if [[ -z $work ]]; then
        work=$(mktemp -d)
        trap 'rm -rf "$work"' EXIT
    fi
    python3 scripts/bench-goal.py build/fennel "$work" >"$out"
    exit 0
fi
if [[ $mode == fit ]]; then
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    # Deterministic pseudo-noise: a linear congruential sequence, 0..50 ns.
    awk 'BEGIN { print "size_bytes,targets,time_ns"; x = 1; n = 0; split("8 64 512 2048 8192 32768 65536 131072 262144 524288", s, " ")
        while (n < 1000000) for (i = 1; i <= 10; i++) for (b = 1; b <= 16; b++) {
            x = (x * 1103515245 + 12345) % 2147483648; printf "%d,%d,%.3f\n", s[i], b, 700 + 0.25 * s[i] + 150 * b + x / 2147483648 * 50; n++ } }' >"$tmp/multicast.csv"
    awk 'BEGIN { print "size_bytes,time_ns"; x = 1; for (n = 0; n < 1000000; n++) {
            x = (x * 1103515245 + 12345) % 2147483648; s = 2 ^ (n % 23); printf "%d,%.3f\n", s, 1000 + 0.5 * s + x / 2147483648 * 50 } }' >"$tmp/pingpong.csv"
    {
        echo "input,samples,network,statistic,seconds"
        for spec in "multicast lbp median" "pingpong postal min"; do
            read -r name network stat <<<"$spec"
            start=$(date +%s.%N)
            build/fennel fit "$tmp/$name.csv" --network "$network" --statistic "$stat" >/dev/null
            end=$(date +%s.%N)
            echo "$name,1000000,$network,$stat,$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }')"
        done
    } >"$out"
    exit 0
fi
if [[ $mode == fanout ]]; then
    # Wide fan-outs: many puts ready at once on one rank wait in a wait list (engine_wait.c).
    {
        build/tests/bench-engine --header
        build/tests/bench-engine allreduce-rd 65536 models/presets/thesis-figures.yaml
        build/tests/bench-engine multicast - models/presets/thesis-figures.yaml - width=8000
        for ranks in 1024 4096; do
            build/tests/bench-engine allreduce-rm "$ranks" models/presets/thesis-figures.yaml - \
                "schedule=a$ranks"
        done
    } >"$out"
    exit 0
fi
if [[ $mode == noise ]]; then
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    {
        cat models/presets/thesis-figures.yaml
        echo "noise:"
        echo "  network: {distribution: normal, mean: 0ns, stddev: 20ns}"
        echo "  compute: {distribution: normal, mean: 0ns, stddev: 5ns}"
    } >"$tmp/noise.yaml"
    {
        build/tests/bench-engine --header
        for _ in 1 2 3; do
            build/tests/bench-engine allreduce-rd 65536 models/presets/thesis-figures.yaml
            build/tests/bench-engine allreduce-rd 65536 "$tmp/noise.yaml"
        done
    } >"$out"
    exit 0
fi
if [[ $mode == topology ]]; then
    postal=(--network postal --set alpha=1us --set beta=0.1ns/B)
    tree=(--set topology.kind=fat-tree --set topology.levels=3 --set topology.radix=32)
    {
        echo "program,topology,contention,ranks,tasks,events,simulate_s,M_tasks_per_s,makespan_ns"
        for spec in "262144 none none" "262144 switch none" "262144 switch endpoint" \
            "16384 none none" "16384 fat-tree links" "16384 fat-tree endpoint" "4096 none none" \
            "4096 fat-tree fair"; do
            read -r ranks kind contention <<<"$spec"
            topo=(--set topology.kind=switch)
            [[ $kind == fat-tree ]] && topo=("${tree[@]}")
            [[ $kind == fat-tree && $ranks == 16384 ]] && topo+=(--set topology.radix=48)
            [[ $kind == none ]] && topo=()
            build/fennel run --generate allreduce-rd --ranks "$ranks" --size 1KiB "${postal[@]}" \
                "${topo[@]}" --set contention="$contention" --json |
                python3 -c 'import json, sys
d = json.load(sys.stdin)
print("allreduce-rd,%s,%s,%s,%d,%d,%.3f,%.2f,%s" % (*sys.argv[1:4], d["tasks"], d["events"],
      d["simulate_seconds"], d["tasks"] / d["simulate_seconds"] / 1e6, d["makespan_ns"]))' \
                    "$kind" "$contention" "$ranks"
        done
    } >"$out"
    exit 0
fi
if [[ $mode == fair ]]; then
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    {
        echo "program,ranks,flows,events,simulate_s,cpu_s,makespan_ns"
        for ranks in 32 64 128; do
            scripts/fair-alltoall.py "$ranks" >"$tmp/a2a.yaml"
            python3 -c 'import json, resource, subprocess, sys
fennel, program, ranks = sys.argv[1:4]
out = subprocess.run([fennel, "run", program, "--network", "lbp", "--set", "alpha_p=1us",
                      "--set", "beta=0.1ns/B", "--set", "topology.kind=switch",
                      "--set", "contention=fair", "--json"], check=True, capture_output=True).stdout
u = resource.getrusage(resource.RUSAGE_CHILDREN)
d, p = json.loads(out), int(ranks)
print("fair-alltoall,%d,%d,%d,%.3f,%.3f,%s" % (p, p * (p - 1), d["events"],
      d["simulate_seconds"], u.ru_utime + u.ru_stime, d["makespan_ns"]))' \
                build/fennel "$tmp/a2a.yaml" "$ranks"
        done
    } >"$out"
    exit 0
fi
if [[ $mode == msccl || $mode == mscclpp ]]; then
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    {
        echo "gpus,steps,MB,verify_s,M_steps_per_s_verify,build_s,M_steps_per_s_build,tasks,simulate_s,M_tasks_per_s"
        sizes=(64 256 512 1024)
        [[ $mode == mscclpp ]] && sizes=(64 128 256)
        ring=$tmp/ring.xml
        [[ $mode == mscclpp ]] && ring=$tmp/ring.json
        for p in "${sizes[@]}"; do
            if [[ $mode == msccl ]]; then
                scripts/msccl-ring.py allreduce "$p" >"$ring"
                steps=$(grep -c '<step' "$ring")
            else
                scripts/mscclpp-ring.py "$p" >"$ring"
                steps=$((8 * p * (p - 1)))
            fi
            mb=$(du -m "$ring" | cut -f1)
            start=$(date +%s.%N)
            build/fennel verify "$ring" >/dev/null
            end=$(date +%s.%N)
            build/fennel run "$ring" --size 64MiB --model models/presets/thesis-figures.yaml \
                --json | python3 -c 'import json, sys
d = json.load(sys.stdin)
p, steps, mb, v = sys.argv[1:5]
steps, v = int(steps), float(v)
print("%s,%d,%s,%.3f,%.2f,%.3f,%.2f,%d,%.3f,%.2f" % (p, steps, mb, v, steps / v / 1e6,
      d["build_seconds"], steps / d["build_seconds"] / 1e6, d["tasks"], d["simulate_seconds"],
      d["tasks"] / d["simulate_seconds"] / 1e6))' "$p" "$steps" "$mb" \
                    "$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')"
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
