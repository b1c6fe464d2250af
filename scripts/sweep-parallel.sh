#!/usr/bin/env bash
# Spreads one sweep over several processes with GNU parallel and `fennel sweep --shard
# K/N`, concatenates the parts, and checks that the result is byte for byte the sweep run
# in one piece (docs/SWEEPS.md). The same split works across machines and batch systems:
#
#   GNU parallel over hosts (fennel installed on each, a shared file system):
#     parallel -S host1,host2 fennel sweep ARGS --shard {}/8 -o part-{}.csv ::: $(seq 8)
#   A Slurm job array (sbatch --array=1-8):
#     fennel sweep ARGS --shard "$SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT" \
#         -o "part-$SLURM_ARRAY_TASK_ID.csv"
#   then: cat part-{1..8}.csv > whole.csv   (only part 1 has the header)
#
# An interrupted part is finished by running the same command again with --resume.
# If GNU parallel is missing, the script installs it with apt-get (as root or with sudo);
# when it cannot, it runs the shards as background jobs of the shell and says so.
#
# Usage: scripts/sweep-parallel.sh [OUTDIR [SHARDS]]   (default out/parallel, 4 shards;
# FENNEL=path/to/fennel)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-out/parallel}
shards=${2:-4}
source scripts/deps.sh
fennel_find_program
fennel=$(cd "$(dirname "$fennel")" && pwd)/$(basename "$fennel")
mkdir -p "$out"
rm -f "$out"/part-*.csv "$out"/part-*.json

# The sweep: four AllReduce algorithms, 2 to 256 ranks, 8 B to 64 KiB, with network noise
# and three seeds per point, under the thesis' figure model.
sweep=(sweep --generate allreduce-rd,allreduce-rm,allreduce-ring,allreduce-rabenseifner
    --ranks 2..256*2 --size 8B..64KiB*8 --model models/presets/thesis-figures.yaml
    --set noise.network.distribution=normal --set noise.network.stddev=20ns --repeat 3)

# GNU parallel, installed if need be (Debian package `parallel`).
runner=parallel
if ! command -v parallel >/dev/null; then
    sudo=()
    [[ $(id -u) -ne 0 ]] && command -v sudo >/dev/null && sudo=(sudo -n)
    echo "GNU parallel is missing: installing it with apt-get ..."
    if { [[ $(id -u) -eq 0 ]] || ((${#sudo[@]})); } &&
        DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq parallel >/dev/null 2>&1; then
        echo "installed GNU parallel"
    else
        runner=background
        echo "could not install GNU parallel: running the $shards shards as background jobs instead"
    fi
fi

start=$(date +%s.%N)
if [[ $runner == parallel ]]; then
    echo "running $shards shards with GNU parallel ($(parallel --version | head -1))"
    # --jobs 1 per shard: parallel decides how many shards run at once.
    parallel --halt now,fail=1 -j "$shards" \
        "$fennel" "${sweep[@]}" --jobs 1 --shard {}/"$shards" -o "$out/part-{}.csv" \
        ::: $(seq "$shards")
else
    pids=()
    for k in $(seq "$shards"); do
        "$fennel" "${sweep[@]}" --jobs 1 --shard "$k/$shards" -o "$out/part-$k.csv" &
        pids+=($!)
    done
    for pid in "${pids[@]}"; do wait "$pid"; done
fi
end=$(date +%s.%N)

parts=()
for k in $(seq "$shards"); do parts+=("$out/part-$k.csv"); done
cat "${parts[@]}" >"$out/merged.csv"
"$fennel" "${sweep[@]}" -o "$out/whole.csv"

rows=$(($(wc -l <"$out/whole.csv") - 1))
echo "$shards shards: $(for p in "${parts[@]}"; do printf '%s ' "$(wc -l <"$p")"; done)lines" \
    "(part 1 with the header), $rows rows in all, $(awk -v a="$start" -v b="$end" \
        'BEGIN { printf "%.2f", b - a }') s"
if cmp -s "$out/merged.csv" "$out/whole.csv"; then
    echo "the concatenated shards equal the unsharded sweep byte for byte ($out/merged.csv)"
else
    echo "MISMATCH: $out/merged.csv differs from $out/whole.csv" >&2
    cmp "$out/merged.csv" "$out/whole.csv" >&2 || true
    exit 1
fi
