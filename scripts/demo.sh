#!/usr/bin/env bash
# Installs what is missing, builds fennel, and simulates the example programs: the
# original Fennel's ping-pong, multicast and small allreduces under the thesis' figure
# model (lbp: alpha_p 500 ns, alpha_r 100 ns, beta 0.4 ns/B; 10 ns computes).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh
fennel_install_deps
fennel_build build

model=models/presets/thesis-figures.yaml
for program in pingpong multicast a2_a2 a4 binomial2_broadcast; do
    echo "== programs/examples/$program.yaml under $model"
    build/fennel run "programs/examples/$program.yaml" --model "$model"
    echo
done
echo "== the same all-to-all under the postal model (alpha 600 ns): no pipelining"
build/fennel run programs/examples/a4.yaml --network postal --set alpha=600ns --set beta=0.4ns/B
