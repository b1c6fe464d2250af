#!/usr/bin/env python3
"""scripts/validation-table.sh (docs/VALIDATION.md): from a folder of benchmark outputs, one
sub-folder per machine, to the Markdown table of errors and the targets' verdict.

Usage: test_validation.py FENNEL SOURCE_ROOT. Prints TAP.

The two machines of tests/data/validation/ were written by hand in the tools' layouts.
"Before" is the ping-pong's model, every rank on its own node and the collective's default
generator; "after" adds the reduction's per-byte cost fitted from the machine's collectives
(`fennel fit --model`), the machine's --ppn and its --library.

- osu-cluster/suite.log: osu_put_latency (1.00 + 0.005 s us), osu_latency (2.00 + 0.01 s us,
  0..1024 B), osu_allreduce and osu_reduce at 4 ranks, 1 per node, library ompi-4. The
  ping-pong is the osu_latency table alone, so the fit is postal alpha 2000 ns, beta 10 ns/B
  exactly (pooled with the faster put latencies under the min statistic it would not be).
  The collectives are the times of the algorithms Open MPI 4.1.6 runs there
  (coll_tuned_decision_fixed.c, docs/LIBRARIES.md) under that model with a reduction cost of
  1.25 ns/B, and OSU prints the average over the ranks of each rank's time, so the model's
  time is the mean of the ranks' ends (docs/CALIBRATION.md). Allreduce at 4 ranks: recursive
  doubling below 8192 B (lines 139, 141), two rounds of one message, each followed by the
  reduction of the s bytes received, every rank ending at 2 (2000 + 10 s) + 2.5 s ns = 4090,
  4180, 4360 ns at 4, 8, 16 B; Rabenseifner's algorithm from 8192 B (line 143): recursive
  halving (4096 B sent and reduced, then 2048 B) and doubling (2048 B, then 4096 B),
  2 ((2000 + 40960) + (2000 + 20480)) + 1.25 (4096 + 2048) = 138560 ns at 8192 B. Reduce at
  4 ranks: the binary tree (reduce-bintree) below 4096 B (line 744): rank 3 puts to 1 and 2
  to 0 at once, both arriving at 2000 + 10 s; rank 1 reduces and puts to 0, arriving at
  2 (2000 + 10 s) + 1.25 s; rank 0 reduces its children in order, 1's then 2's: it ends at
  2 (2000 + 10 s) + 3.75 s, rank 1 at 2 (2000 + 10 s) + 1.25 s, ranks 2 and 3 at 2000 + 10 s:
  mean 3000 + 16.25 s = 3520 and 4040 ns at 32 and 64 B; a chain from 4096 B (line 746,
  reduce-pipeline unsegmented), 3 -> 2 -> 1 -> 0: a put of 2000 + 40960 = 42960 ns and a
  reduction of 5120 ns, rank 3 ending at 42960, rank 2 at 2 x 42960 + 5120 = 91040, rank 1
  at 139120, rank 0 at 144240: mean 104340 ns. Printed in us.
  Before (no reduction cost, the default generators): allreduce-rd 2 (2000 + 10 s) = 4080,
  4160, 4320, 167840 ns, errors 10/4090, 20/4180, 40/4360, 29280/138560 (median (0.004785 +
  0.009174) / 2 = 0.7 %, worst 21.1 % at 8192 B), ratios median (0.995215 + 0.997555) / 2 =
  0.996: met; reduce-binomial (ranks 1 and 3 end on arrival, 2000 + 10 s, ranks 2 and 0 one
  message later) 3000 + 15 s = 3480, 3960, 64440 ns, errors 40/3520, 80/4040 and
  39900/104340 (median 2.0 %, worst 38.2 % at 4096 B), ratios 0.988636, 0.980198, 0.617596
  (median 0.98): met.
  After: the reduction's cost is fitted under the algorithms the library runs (fit --model
  --library), so every residual is 1.25 ns/B times the bytes reduced and gamma comes back
  1.25 ns/B exactly; every point's error is then 0 (the worst, all equal, is the first
  point's size): met. (Fitted under the default generators instead, as before --library was
  given to the fit, these times hold gamma at 0.)
- imb-cluster/imb.txt: PingPong 3.00 + 0.01 s us (0..1024 B): postal alpha 3000 ns, beta
  10 ns/B; both ranks of the collectives on one node (ppn 2), library ompi-4. Bcast at 2
  processes is one message, 3000 + 10 s ns = 3010, 3020, 3040, 3080 ns at 1, 2, 4, 8 B;
  measured 3.01, 3.02, 3.80, 6.16 us: errors 0, 0, 0.2, 0.5 (median 10.0 %, worst 50.0 % at
  8 B), ratios 1, 1, 0.8, 0.5 (median 0.9): met. Allgather at 2 processes is one message of
  the block: 3010, 3020 ns at 1, 2 B; measured 3.01, 6.04 us: errors 0, 0.5 (median 25.0 %,
  worst 50.0 % at 2 B), ratios median 0.75: missed. Their 0-byte rows (0.02 us, a collective
  of no data) are left out. They reduce nothing: no reduction cost is fitted.
  After, the message inside the node takes the shared-memory default, postal 300 ns +
  0.1 ns/B (docs/TOPOLOGY.md). Bcast: Open MPI 4.1.6 runs its pipeline below 32 B at fewer
  than 4 ranks (line 541), one message at 2 ranks: 300.1, 300.2, 300.4, 300.8 ns, errors
  0.9003, 0.9006, 0.9209, 0.9512 (median 91.1 %, worst 95.1 % at 8 B), ratios median
  (0.0994 + 0.0791) / 2 = 0.0892: missed. Allgather: Open MPI 4.1.6 runs two_proc at 2 ranks
  (line 1119), one exchange of the block, allgather-ring's one step: 300.1, 300.2 ns, errors
  0.9003, 0.9503
  (median 92.5 %, worst 95.0 % at 2 B), ratios 0.0997, 0.0497 (median 0.0747): missed.
"""
import os
import re
import shutil
import subprocess
import tempfile

from harness import FENNEL, ROOT, check, finish

SCRIPT = os.path.join(ROOT, "scripts", "validation-table.sh")
DATA = os.path.join(ROOT, "tests", "data", "validation")


def script(*args):
    p = subprocess.run([SCRIPT, *args], capture_output=True, text=True,
                       env={**os.environ, "FENNEL": FENNEL}, timeout=120)
    return p.returncode, p.stdout, p.stderr


TABLE = """\
| machine | library | collective | ranks | ppn | points | before: generator | median | worst | model/measured | after: algorithm | reduction (ns/B) | median | worst | model/measured | targets before, after |
|---|---|---|---:|---:|---:|---|---:|---:|---:|---|---:|---:|---:|---:|---|
| IMB cluster | ompi-4 | bcast | 2 | 2 | 4 | bcast-binomial | 10.0 % | 50.0 % at 8 B | 0.9 | ompi-4: bcast-ring | - | 91.1 % | 95.1 % at 8 B | 0.0892 | met, missed |
| IMB cluster | ompi-4 | allgather | 2 | 2 | 2 | allgather-ring | 25.0 % | 50.0 % at 2 B | 0.75 | ompi-4: allgather-ring | - | 92.5 % | 95.0 % at 2 B | 0.0747 | missed, missed |
| OSU cluster | ompi-4 | allreduce | 4 | 1 | 4 | allreduce-rd | 0.7 % | 21.1 % at 8192 B | 0.996 | ompi-4: allreduce-rd, allreduce-rabenseifner | 1.25 | 0.0 % | 0.0 % at 4 B | 1 | met, met |
| OSU cluster | ompi-4 | reduce | 4 | 1 | 3 | reduce-binomial | 2.0 % | 38.2 % at 4096 B | 0.98 | ompi-4: reduce-bintree, reduce-pipeline | 1.25 | 0.0 % | 0.0 % at 32 B | 1 | met, met |

- IMB cluster: left out, 1 row of 0 bytes
- IMB cluster: left out, 1 row of 0 bytes
"""

code, out, err = script(DATA)
out = re.sub(r"/[^ ]*/(osu-cluster/collective-)", r"TMP/\1", out)
check("the table of the two machines, exactly", code == 0 and out == TABLE and err == "",
      f"status {code}\n{out}{err}")

with tempfile.TemporaryDirectory() as tmp:
    # OUTDIR keeps the fitted models: the OSU cluster's is the osu_latency table's line.
    code, out, err = script(DATA, tmp)
    with open(os.path.join(tmp, "osu-cluster", "model.yaml")) as f:
        model = f.read()
    check("OUTDIR keeps the model fitted from the selected table",
          code == 0 and "  model: postal\n  alpha: 2000ns\n  beta: 10ns/B\n" in model, model)
    with open(os.path.join(tmp, "osu-cluster", "model-reduction.yaml")) as f:
        model = f.read()
    check("OUTDIR keeps the model with the reduction's cost fitted from the collectives",
          code == 0 and "gamma: 1.25ns/B" in model, model)

# A machine with an intra-node ping-pong (`intra:`): the IMB cluster's files and a
# ping-pong of two ranks on one node, 400 + 5 s ns, which `fennel fit --intra` fits exactly
# into the model's intra level. Before is unchanged (its placement of 1 rank per node);
# after, the one message of the 2-rank bcast (ompi-4's ring, one put) and of the allgather
# (two_proc, one exchange) take 400 + 5 s ns instead of the shared-memory default: 405, 410,
# 420, 440 ns against 3010, 3020, 3800, 6160 ns measured, errors 0.865449, 0.864238,
# 0.889474, 0.928571 (median (0.865449 + 0.889474) / 2 = 87.7 %, worst 92.9 % at 8 B),
# ratios 0.134551, 0.135762, 0.110526, 0.071429 (median (0.110526 + 0.134551) / 2 = 0.123);
# the allgather 405, 410 ns against 3010, 6040: errors 0.865449, 0.932119 (median 89.9 %,
# worst 93.2 % at 2 B), ratios 0.134551, 0.067881 (median 0.101).
INTRA_ROWS = """\
| IMB intra | ompi-4 | bcast | 2 | 2 | 4 | bcast-binomial | 10.0 % | 50.0 % at 8 B | 0.9 | ompi-4: bcast-ring | - | 87.7 % | 92.9 % at 8 B | 0.123 | met, missed |
| IMB intra | ompi-4 | allgather | 2 | 2 | 2 | allgather-ring | 25.0 % | 50.0 % at 2 B | 0.75 | ompi-4: allgather-ring | - | 89.9 % | 93.2 % at 2 B | 0.101 | missed, missed |
"""
with tempfile.TemporaryDirectory() as tmp:
    m = os.path.join(tmp, "imb-intra")
    os.mkdir(m)
    shutil.copy(os.path.join(DATA, "imb-cluster", "imb.txt"), m)
    with open(os.path.join(m, "intra.csv"), "w") as f:
        f.write("size_bytes,time_ns\n" +
                "".join(f"{s},{400 + 5 * s}\n" for s in [0] + [2 ** k for k in range(11)]))
    with open(os.path.join(m, "machine.txt"), "w") as f:
        f.write("name: IMB intra\npingpong: imb.txt Benchmarking PingPong\nintra: intra.csv\n"
                "collective: imb.txt Benchmarking Bcast\n"
                "collective: imb.txt Benchmarking Allgather\nppn: 2\nlibrary: ompi-4\n")
    outdir = os.path.join(tmp, "out")
    code, out, err = script(tmp, outdir)
    rows = "".join(line + "\n" for line in out.splitlines() if line.startswith("| IMB intra"))
    check("intra: the machine's own intra-node ping-pong times the messages within a node",
          code == 0 and rows == INTRA_ROWS, f"status {code}\n{out}{err}")
    with open(os.path.join(outdir, "imb-intra", "model.yaml")) as f:
        model = f.read()
    check("intra: the model holds the fitted intra level",
          "intra:\n  model: postal\n  alpha: 400ns\n  beta: 5ns/B\n" in model, model)

with tempfile.TemporaryDirectory() as tmp:
    code, out, err = script(tmp)
    check("a folder without machines: an error",
          code == 1 and out == "" and
          err == f"validation-table.sh: {tmp}: no sub-folder with a machine.txt\n", err)

    # A title no table of the file has.
    m = os.path.join(tmp, "m")
    os.mkdir(m)
    shutil.copy(os.path.join(DATA, "osu-cluster", "suite.log"), m)
    with open(os.path.join(m, "machine.txt"), "w") as f:
        f.write("pingpong: suite.log OSU MPI Bandwidth Test\ncollective: suite.log\nranks: 4\n")
    code, out, err = script(tmp)
    check("a title no table has: an error naming the file and the title",
          code == 1 and out == "" and
          err == f"validation-table.sh: {m}/machine.txt: no table of 'suite.log' has "
                 "'OSU MPI Bandwidth Test' in its title\n", err)

    # An unknown key.
    with open(os.path.join(m, "machine.txt"), "w") as f:
        f.write("pingpong: suite.log\ncollective: suite.log\nnodes: 4\n")
    code, out, err = script(tmp)
    check("an unknown key: an error listing the keys",
          code == 1 and err == f"validation-table.sh: {m}/machine.txt: unknown key 'nodes' "
                               "(name, pingpong, intra, collective, ranks, ppn, library, "
                               "nic, duplex, eager)\n", err)

    # A library compare does not know: fennel's message, not a silent fallback.
    with open(os.path.join(m, "machine.txt"), "w") as f:
        f.write("pingpong: suite.log OSU MPI Latency Test\ncollective: suite.log\nranks: 4\n"
                "library: mpich-9\n")
    code, out, err = script(tmp)
    # (The reduction's fit, which runs the library's algorithms too, is the first to say so.)
    check("an unknown library: an error with fennel's message",
          code == 1 and err == "validation-table.sh: m: fennel fit --model failed: fennel: fit: "
          "--library: unknown library 'mpich-9' (known: ompi-1.6, ompi-3, ompi-4, ompi-5, "
          "mpich-3, mpich-4, nccl)\n", err)

finish()
