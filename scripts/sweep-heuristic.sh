#!/usr/bin/env bash
# Reproduces Fig. 5.16 of M. Rüfenacht's thesis ("Towards Larger Scale Collective
# Operations in MPI", Edinburgh 2020, §5.4.4): the efficiency of the sorted heuristic and
# of recursive doubling against the best recursive-multiplying AllReduce schedule, for
# N = 2..1024 ranks, and their averages (the thesis: 72.1 % for recursive doubling,
# 97.1 % for the sorted heuristic, 92.4 % for the unsorted one).
#
# Efficiency = time of the best schedule / time of the method's schedule. The thesis
# computes the times with its analytic model (every stage a multicast, alpha_p + b
# alpha_r, thesis Eq. 4.6) and the heuristic with "upper = 12" from the machine
# parameters of its chapter 4; the ratio alpha_p/alpha_r = 2.911 reproduces that bound
# (b_upper = 11.2) and b_opt = 3.258 of its Fig. 5.6. One `fennel sweep` runs every
# N with four schedules: the heuristic at that ratio, recursive doubling (MPICH's
# collapse/expand for non-powers of two), `best` (the cheapest of all schedules fennel
# enumerates) and `best:thesis` (the cheapest whose merge, if any, has a remainder below
# its first factor, the search space that reproduces Table 5.2). Each row carries both
# the analytic time (analytic_ns) and the engine's makespan (makespan_ns).
#
# Usage: scripts/sweep-heuristic.sh [OUTDIR]   (default out/heuristic; FENNEL=path/to/fennel)
# Writes OUTDIR/heuristic.csv and .json, OUTDIR/fig-5-16.csv and OUTDIR/fig-5-16.svg/.png.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-out/heuristic}
source scripts/deps.sh
fennel_find_program
mkdir -p "$out"

echo "sweeping N = 2..1024 (4 schedules each) into $out/heuristic.csv ..."
"$fennel" sweep --generate allreduce-rm --ranks 2..1024 --size 0 \
    --schedule 'heuristic:2.911;rd;best;best:thesis' \
    --network lbp --set alpha_p=2.911ns --set alpha_r=1ns --set beta=0 \
    -o "$out/heuristic.csv"

# The program below comes on standard input, after scripts/lib/csv.awk, which defines csv().
awk -v figure="$out/fig-5-16.csv" -f scripts/lib/csv.awk -f /dev/stdin \
    "$out/heuristic.csv" <<'AWK'
function min3(x, y, z) { x += 0; y += 0; z += 0; return x < y ? (x < z ? x : z) : (y < z ? y : z) }
NR == 1 { n = csv($0, h); for (i = 1; i <= n; i++) col[h[i]] = i; next }
{
    csv($0, f)
    if (f[col["error"]] != "") { print "error row: " $0 > "/dev/stderr"; bad = 1 }
    n = f[col["ranks"]] + 0; s = f[col["schedule"]]
    a[n, s] = f[col["analytic_ns"]]; m[n, s] = f[col["makespan_ns"]]; u[n, s] = f[col["schedule_used"]]
    if (n > last) last = n
}
END {
    if (bad) exit 1
    H = "heuristic:2.911"
    print "ranks,method,efficiency_percent" > figure
    for (n = 2; n <= last; n++) {
        k++
        for (b = 1; b <= 2; b++) {
            best = b == 1 ? "best:thesis" : "best"
            # The best of the search space and of the two methods own schedules.
            ba = min3(a[n, best], a[n, H], a[n, "rd"]); bs = min3(m[n, best], m[n, H], m[n, "rd"])
            ah[b] += ba / a[n, H]; ar[b] += ba / a[n, "rd"]
            sh[b] += bs / m[n, H]; sr[b] += bs / m[n, "rd"]
            if (a[n, H] < a[n, best] - 1e-9) beyond[b]++
            if (m[n, H] < m[n, best] - 1e-9) faster[b]++
            if (b == 1) eh = 100 * ba / a[n, H]; if (b == 1) er = 100 * ba / a[n, "rd"]
        }
        if (a[n, "best"] < a[n, "best:thesis"] - 1e-9) cheaper++
        printf "%d,best schedule,100\n", n > figure
        printf "%d,heuristic (sorted),%.4f\n", n, eh > figure
        printf "%d,recursive doubling,%.4f\n", n, er > figure
    }
    print ""
    print "Thesis Fig. 5.16: average efficiency over N = 2.." last " (" k " rank counts)"
    print "model: lbp, alpha_p/alpha_r = 2.911 (factors up to 12), 0-byte messages, no compute"
    print ""
    printf "%-22s %-22s %-22s %s\n", "", "against best:thesis", "against best", "thesis"
    printf "%-22s %-10s %-11s %-10s %-11s\n", "", "analytic", "engine", "analytic", "engine"
    printf "%-22s %5.1f %%    %5.1f %%     %5.1f %%    %5.1f %%     %s\n", "recursive doubling",
        100 * ar[1] / k, 100 * sr[1] / k, 100 * ar[2] / k, 100 * sr[2] / k, "72.1 %"
    printf "%-22s %5.1f %%    %5.1f %%     %5.1f %%    %5.1f %%     %s\n", "heuristic (sorted)",
        100 * ah[1] / k, 100 * sh[1] / k, 100 * ah[2] / k, 100 * sh[2] / k, "97.1 %"
    print ""
    print "What fennel gets, and why it differs from the thesis:"
    print "- The thesis does not state the search space behind its \"best\" schedules. Its"
    print "  Table 5.2 is reproduced exactly (scripts/table-5-2.sh) only when merged schedules"
    print "  keep their remainder below their first factor: best:thesis. Here \"best\" is the"
    print "  cheapest of that space and of the two methods' own schedules (the heuristic's"
    print "  merges may have larger remainders; its schedule is the cheaper one for " beyond[1]
    print "  rank counts), so no efficiency exceeds 100 %. Against it recursive doubling"
    print "  averages " sprintf("%.1f", 100 * ar[1] / k) " % (thesis 72.1 %) and the heuristic " sprintf("%.1f", 100 * ah[1] / k) " % (thesis 97.1 %)."
    print "  fennel's heuristic picks the schedules the thesis prints (Table 5.2, and"
    print "  (4,4,4,4,4) for 1024); the rest of the gap comes from details of the figure's"
    print "  search or costs that the thesis does not give, and fennel does not guess them."
    print "- fennel's exhaustive search (best) also merges with larger remainders, which is"
    print "  cheaper for " cheaper " of the " k " rank counts (e.g. N = 33: (3,3,3)+6 costs 3c + 8 = 16.733"
    print "  alpha_r against 2c + 11 = 16.822 for the thesis' (5,6)+3); every efficiency drops."
    print "- The engine columns use the simulated makespans of the same schedules. The analytic"
    print "  cost charges every stage a full multicast; in the engine the ranks of collapsed and"
    print "  merged schedules run skewed and finish earlier (thesis §5.6.2), so the heuristic's"
    print "  schedule beats the analytically best one for " faster[1] " rank counts (best:thesis) and"
    print "  " faster[2] " (best), and the engine's efficiencies differ from the analytic ones."
    print "- The unsorted heuristic (thesis: 92.4 %) is not a fennel schedule name; --schedule"
    print "  heuristic is the sorted variant."
}
AWK

"$fennel" plot "$out/fig-5-16.csv" -x ranks -y efficiency_percent --by method --logx \
    -o "$out/fig-5-16.svg"
"$fennel" plot "$out/fig-5-16.csv" -x ranks -y efficiency_percent --by method --logx \
    -o "$out/fig-5-16.png"
echo
echo "figure: $out/fig-5-16.svg and .png (analytic efficiency against best:thesis)"
