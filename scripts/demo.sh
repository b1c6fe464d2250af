#!/usr/bin/env bash
# Installs what is missing, builds fennel, and runs the flagship example: the 7-rank
# AllReduce of Rüfenacht's thesis (Figs. 5.28 and 5.29) as split recursive doubling
# (c6m2,a2,a2,e6m2) and as prime merging (m1g2a3,n1g3a2), under the thesis' figure model
# (lbp: alpha_p 500 ns, alpha_r 100 ns, beta 0.4 ns/B; 10 ns computes). It prints both
# summaries and writes both timelines to out/*.svg and out/*.png.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh
fennel_install_deps
fennel_build build
mkdir -p out

model=models/presets/thesis-figures.yaml
for pair in split:c6m2,a2,a2,e6m2 merge:m1g2a3,n1g3a2; do
    name=${pair%%:*}
    schedule=${pair#*:}
    echo "== 7-rank AllReduce, schedule $schedule ($name), under $model"
    build/fennel run --generate allreduce-rm --ranks 7 --size 8B --schedule "$schedule" \
        --model "$model" --timeline "out/allreduce-7-$name.svg"
    build/fennel run --generate allreduce-rm --ranks 7 --size 8B --schedule "$schedule" \
        --model "$model" --timeline "out/allreduce-7-$name.png" >/dev/null
    echo
done
echo "timelines: out/allreduce-7-split.svg/.png and out/allreduce-7-merge.svg/.png"
