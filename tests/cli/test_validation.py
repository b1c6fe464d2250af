#!/usr/bin/env python3
"""scripts/validation-table.sh (docs/VALIDATION.md): from a folder of benchmark outputs, one
sub-folder per machine, to the Markdown table of errors and the targets' verdict.

Usage: test_validation.py FENNEL SOURCE_ROOT. Prints TAP.

The two machines of tests/data/validation/ were written by hand in the tools' layouts.
"Before" is every rank on its own node and the collective's default generator; "after" adds
the machine's --ppn and --library.

- osu-cluster/suite.log: osu_put_latency (1.00 + 0.005 s us), osu_latency (2.00 + 0.01 s us,
  0..1024 B), osu_allreduce and osu_reduce at 4 ranks, 1 per node, library ompi-4. The
  ping-pong is the osu_latency table alone, so the fit is postal alpha 2000 ns, beta 10 ns/B
  exactly (pooled with the faster put latencies under the min statistic it would not be).
  Allreduce before: allreduce-rd, two rounds of one message, 2 (2000 + 10 s) ns = 4080, 4160,
  4320, 167840 ns at 4, 8, 16, 8192 B. Measured 5.44, 4.16, 8.64, 163.60 us: errors 0.25, 0,
  0.5, 4240/163600 = 0.0259 (median 0.1380 = 13.8 %, worst 50.0 % at 16 B), ratios 0.75, 1,
  0.5, 1.0259 (median 0.875): met. After: Open MPI 4.1.6's coll_tuned_decision_fixed.c
  (docs/LIBRARIES.md) runs recursive doubling below 8192 B at 4 ranks (lines 139, 141) and
  Rabenseifner's algorithm from 8192 B (line 143): at 8192 B recursive halving then doubling,
  2 ((2000 + 10 x 4096) + (2000 + 10 x 2048)) = 130880 ns, error 32720/163600 = 0.2, ratio
  0.8: errors 0.25, 0, 0.5, 0.2 (median 22.5 %, worst 50.0 % at 16 B), ratios median 0.775:
  missed. Reduce (reduce-binomial, two rounds: 4080, 4160 ns; measured 4.08, 8.32 us: errors
  0, 0.5, median 25.0 %, ratios 1, 0.5, median 0.75) has no ompi-4 table: after is the same.
- imb-cluster/imb.txt: PingPong 3.00 + 0.01 s us (0..1024 B): postal alpha 3000 ns, beta
  10 ns/B. Bcast at 2 processes is one message, 3000 + 10 s ns = 3010, 3020, 3040, 3080 ns at
  1, 2, 4, 8 B; measured 3.01, 3.02, 3.80, 6.16 us: errors 0, 0, 0.2, 0.5 (median 10.0 %,
  worst 50.0 % at 8 B), ratios 1, 1, 0.8, 0.5 (median 0.9): met. Its 0-byte row (0.02 us, a
  collective of no data) is left out. After, with both ranks on one node (ppn 2) and no
  library: the message takes the shared-memory default, postal 300 ns + 0.1 ns/B
  (docs/TOPOLOGY.md): 300.1, 300.2, 300.4, 300.8 ns, errors 0.9003, 0.9006, 0.9209, 0.9512
  (median 91.1 %, worst 95.1 % at 8 B), ratios median (0.0994 + 0.0791) / 2 = 0.0892: missed.
"""
import os
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
| machine | library | collective | ranks | ppn | points | before: generator | median | worst | model/measured | after: algorithm | median | worst | model/measured | targets before, after |
|---|---|---|---:|---:|---:|---|---:|---:|---:|---|---:|---:|---:|---|
| IMB cluster | - | bcast | 2 | 2 | 4 | bcast-binomial | 10.0 % | 50.0 % at 8 B | 0.9 | bcast-binomial | 91.1 % | 95.1 % at 8 B | 0.0892 | met, missed |
| OSU cluster | ompi-4 | allreduce | 4 | 1 | 4 | allreduce-rd | 13.8 % | 50.0 % at 16 B | 0.875 | ompi-4: allreduce-rd, allreduce-rabenseifner | 22.5 % | 50.0 % at 16 B | 0.775 | met, missed |
| OSU cluster | ompi-4 | reduce | 4 | 1 | 2 | reduce-binomial | 25.0 % | 50.0 % at 8 B | 0.75 | reduce-binomial (no ompi-4 table) | 25.0 % | 50.0 % at 8 B | 0.75 | missed, missed |

- IMB cluster: left out, 1 row of 0 bytes
"""

code, out, err = script(DATA)
check("the table of the two machines, exactly", code == 0 and out == TABLE and err == "",
      f"status {code}\n{out}{err}")

with tempfile.TemporaryDirectory() as tmp:
    # OUTDIR keeps the fitted models: the OSU cluster's is the osu_latency table's line.
    code, out, err = script(DATA, tmp)
    with open(os.path.join(tmp, "osu-cluster", "model.yaml")) as f:
        model = f.read()
    check("OUTDIR keeps the model fitted from the selected table",
          code == 0 and "  model: postal\n  alpha: 2000ns\n  beta: 10ns/B\n" in model, model)

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
                               "(name, pingpong, collective, ranks, ppn, library)\n", err)

    # A library compare does not know: fennel's message, not a silent fallback.
    with open(os.path.join(m, "machine.txt"), "w") as f:
        f.write("pingpong: suite.log OSU MPI Latency Test\ncollective: suite.log\nranks: 4\n"
                "library: mpich-4\n")
    code, out, err = script(tmp)
    check("an unknown library: an error with fennel's message",
          code == 1 and err == "validation-table.sh: m: fennel compare --library failed on "
          "'suite.log': fennel: compare: --library: unknown library 'mpich-4' (known: ompi-3, "
          "ompi-4, ompi-5)\n", err)

finish()
