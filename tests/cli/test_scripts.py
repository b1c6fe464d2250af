#!/usr/bin/env python3
"""The scripts that reproduce the thesis' sweeps (scripts/table-5-2.sh,
scripts/sweep-message-size.sh, scripts/sweep-heuristic.sh) and the CSV reader they share
(scripts/lib/csv.awk): the reader splits quoted fields, no script carries a copy of its
own, and each script runs to its summary with the fennel under test.

Usage: test_scripts.py FENNEL SOURCE_ROOT. Prints TAP.
"""
import glob
import os
import re
import subprocess
import tempfile

from harness import FENNEL, ROOT, check, finish

CSV_AWK = os.path.join(ROOT, "scripts", "lib", "csv.awk")

# The shared reader: a quoted field keeps its commas and turns a doubled quote into one;
# an empty last field counts.
program = '{ n = csv($0, f); for (i = 1; i <= n; i++) printf "[%s]", f[i]; print "" }'
with tempfile.TemporaryDirectory() as tmp:
    prog = os.path.join(tmp, "print.awk")
    with open(prog, "w", encoding="utf-8") as f:
        f.write(program + "\n")
    data = os.path.join(tmp, "data.csv")
    with open(data, "w", encoding="utf-8") as f:
        f.write('ranks,schedule,error\n8,"a2,a4",\n7,"say ""hi""",x\n')
    p = subprocess.run(["awk", "-f", CSV_AWK, "-f", prog, data], capture_output=True,
                       text=True)
    check("csv.awk splits quoted fields",
          p.returncode == 0 and p.stdout == '[ranks][schedule][error]\n[8][a2,a4][]\n'
                                             '[7][say "hi"][x]\n', p.stdout + p.stderr)

# One copy of the reader: the scripts load it instead of defining csv() themselves.
copies = [path for path in sorted(glob.glob(os.path.join(ROOT, "scripts", "*.sh")))
          if "function csv(" in open(path, encoding="utf-8").read()]
check("no script defines its own csv()", not copies, "\n".join(copies))


def errors(stderr):
    """stderr without the summary of suppressed leaks that the sanitizer build's leak
    checker prints at exit (fontconfig's, from drawing text: tests/data/viz)."""
    noise = re.compile(r"-+|Suppressions used:|\s*count\s+bytes\s+template|\s*\d+\s+\d+\s+\S+|")
    return "\n".join(line for line in stderr.splitlines() if not noise.fullmatch(line))


# Each script with the fennel under test, into a scratch directory: exit 0, nothing on
# stderr, and the line that sums up what it reproduces.
scripts = [
    ("table-5-2.sh", "10 rows (the thesis: 10); every heuristic schedule and best schedule"),
    ("sweep-message-size.sh", "Every makespan equals the model's sum over stages"),
    ("sweep-heuristic.sh", "Thesis Fig. 5.16: average efficiency over N = 2..1024"),
]
for script, summary in scripts:
    with tempfile.TemporaryDirectory() as out:
        p = subprocess.run([os.path.join(ROOT, "scripts", script), out], capture_output=True,
                           text=True, env={**os.environ, "FENNEL": FENNEL}, timeout=280)
        check(f"{script} runs and prints its summary",
              p.returncode == 0 and errors(p.stderr) == "" and summary in p.stdout,
              f"status {p.returncode}\nstderr: {p.stderr[-2000:]}\nstdout: {p.stdout[-2000:]}")

# The "measured parameters per size" variant of Fig. 5.18: one sweep under the size-dependent
# model of Table 4.1 (models/presets/archer-table-4-1.yaml) gives, at the table's sizes, the
# makespans of one sweep per row with that row's parameters.
def makespans(path):
    with open(path, encoding="utf-8") as f:
        rows = [line.rstrip("\n").split(",") for line in f]
    head = rows[0]
    return sorted((r[head.index("size_bytes")], r[head.index("schedule")],
                   r[head.index("makespan_ns")]) for r in rows[1:])


with tempfile.TemporaryDirectory() as rows, tempfile.TemporaryDirectory() as sized:
    script = os.path.join(ROOT, "scripts", "sweep-message-size.sh")
    env = {**os.environ, "FENNEL": FENNEL}
    a = subprocess.run([script, rows], capture_output=True, text=True, env=env, timeout=280)
    b = subprocess.run([script, sized, "archer-table-4-1"], capture_output=True, text=True,
                       env=env, timeout=280)
    ok = a.returncode == 0 and b.returncode == 0
    ma = makespans(os.path.join(rows, "message-size.csv")) if ok else []
    mb = makespans(os.path.join(sized, "message-size.csv")) if ok else []
    check("sweep-message-size.sh with archer-table-4-1: the per-row makespans",
          ok and len(ma) == 28 and ma == mb, f"{a.stderr[-500:]} {b.stderr[-500:]} {ma} {mb}")

finish()
