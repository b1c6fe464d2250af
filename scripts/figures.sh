#!/usr/bin/env bash
# Regenerates the simulator figures of M. Rüfenacht's thesis (Figs. 5.25 to 5.31, the
# same as Figs. 17 to 23 of the EuroMPI paper) into out/: the program view of the
# 6-rank (a3,a2) AllReduce, and the timelines of the 8-rank recursive doubling and (a8)
# schedules, the 7-rank split and merged schedules, and the 6-rank elimination protocol,
# each as SVG, PNG and PDF, with a Chrome/Perfetto trace beside it. All under the
# thesis' figure model (models/presets/thesis-figures.yaml: lbp alpha_p 500 ns,
# alpha_r 100 ns, beta 0.4 ns/B, 10 ns computes) with 8-byte messages.
#
# Usage: scripts/figures.sh [OUTDIR]   (FENNEL=path/to/fennel to use another build)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-out}
source scripts/deps.sh
fennel_find_program
mkdir -p "$out"
model=models/presets/thesis-figures.yaml

# figure NAME THESIS GENERATOR-ARGS...: the timeline in three formats, the trace, and
# the makespan and skew next to what the thesis says of the figure.
figure() {
    local name=$1 thesis=$2
    shift 2
    for ext in svg png pdf; do
        "$fennel" run "$@" --size 8B --model "$model" --timeline "$out/$name.$ext" >/dev/null
    done
    local json makespan skew
    json=$("$fennel" run "$@" --size 8B --model "$model" --trace "$out/$name.json" --json)
    makespan=$(sed -n 's/.*"makespan_ns":\([0-9.]*\).*/\1/p' <<<"$json")
    skew=$(sed -n 's/.*"skew_ns":\([0-9.]*\).*/\1/p' <<<"$json")
    printf '%-44s makespan %7s ns, skew %7s ns  (thesis: %s)\n' "$out/$name.*" "$makespan" \
        "$skew" "$thesis"
}

"$fennel" run --generate allreduce-rm --ranks 6 --schedule a3,a2 --size 8B --model "$model" \
    --dag "$out/fig5.25-dag-a3-a2.svg" >/dev/null
"$fennel" run --generate allreduce-rm --ranks 6 --schedule a3,a2 --size 8B --model "$model" \
    --dag "$out/fig5.25-dag-a3-a2.png" --dot "$out/fig5.25-dag-a3-a2.dot" >/dev/null
printf '%-40s program view (S start, P put, C compute)\n' "$out/fig5.25-dag-a3-a2.*"

figure fig5.26-recursive-doubling-8 "3 stages of about 613 ns, 1840 ns" \
    --generate allreduce-rd --ranks 8
figure fig5.27-a8 "1213 ns" \
    --generate allreduce-rm --ranks 8 --schedule a8
figure fig5.28-split-c6m2-a2-a2-e6m2 "skewed finish times" \
    --generate allreduce-rm --ranks 7 --schedule c6m2,a2,a2,e6m2
figure fig5.29-merge-m1g2a3-n1g3a2 "about 1 us faster than the split, skew 100 ns" \
    --generate allreduce-rm --ranks 7 --schedule m1g2a3,n1g3a2
figure fig5.30-merge-m3g2a2-n3g2a2 "skew 200 ns" \
    --generate allreduce-rm --ranks 7 --schedule m3g2a2,n3g2a2
# The thesis draws a hand-built, non-overlapping protocol of two 3-2 eliminations; the
# generator follows Rabenseifner and Träff, whose latency variant reduces q = 3 by a ring
# of three and is faster.
figure fig5.31-elimination-6 "hand-built protocol, about 1850 ns" \
    --generate allreduce-elimination --ranks 6
