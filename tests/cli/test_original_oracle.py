#!/usr/bin/env python3
"""The standing oracle against the original Python Fennel: 2000 seeded random programs
(tests/cli/original_random.py), each with the times the original itself gave for it
(tests/data/original-fennel/expected.txt; README.md beside it says how they were taken).

For every seed the program and its model are generated again and run with
`fennel run --json --tasks`; the check is
- every rank's finish time equals the original's (the latest free time of its slots);
- every task's completion, the time it hands to its successors, equals the original's
  (for a get, the request's arrival, which is what the original hands on to every
  successor; the programs give a get no successor on its own rank);
- the makespan is the latest of the original's slot times and completions (engine rule
  5; the original's own maximum counts slot times only, which differs when an `any: K`
  task never waits for a late put).

Any difference fails the seed, with the first differing tasks named. Runs two programs
at a time. Standard library only.
"""

import csv
import json
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import FENNEL, ROOT, check, finish  # noqa: E402
import original_random  # noqa: E402

EXPECTED = os.path.join(ROOT, "tests", "data", "original-fennel", "expected.txt")


def load():
    cases = []
    with open(EXPECTED) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            seed, top, finishes, completions = line.rstrip("\n").split(";")
            cases.append((int(seed), int(top), [int(x) for x in finishes.split()],
                          [int(x) for x in completions.split()]))
    return cases


def run_case(folder, case):
    seed, top, finishes, completions = case
    prog, model = original_random.program(seed)
    base = os.path.join(folder, str(seed))
    for path, text in ((base + ".yaml", prog), (base + ".model.yaml", model)):
        with open(path, "w") as f:
            f.write(text)
    p = subprocess.run([FENNEL, "run", base + ".yaml", "--model", base + ".model.yaml",
                        "--json", "--tasks", base + ".csv"], capture_output=True, text=True)
    if p.returncode != 0:
        return seed, [f"exit {p.returncode}: {p.stderr.strip()}"]
    summary = json.loads(p.stdout)
    with open(base + ".csv") as f:
        rows = list(csv.DictReader(f))
    for path in (base + ".yaml", base + ".model.yaml", base + ".csv"):
        os.remove(path)
    diffs = []
    if len(rows) != len(completions):
        return seed, [f"{len(rows)} tasks, the original ran {len(completions)}"]
    for row, want in zip(rows, completions):
        got = row["arrival_ns"] if row["type"] == "get" else row["completion_ns"]
        if float(got) != want:
            diffs.append(f"{row['id']} completes at {got} ns, the original at {want}")
    if summary["rank_finish_ns"] != finishes:
        diffs.append(f"rank finishes {summary['rank_finish_ns']}, the original {finishes}")
    makespan = max([top] + completions)
    if summary["makespan_ns"] != makespan:
        diffs.append(f"makespan {summary['makespan_ns']} ns, expected {makespan}")
    return seed, diffs


def main():
    cases = load()
    check("the corpus holds 2000 programs", len(cases) == 2000, f"{len(cases)} lines")
    with tempfile.TemporaryDirectory() as folder, ThreadPoolExecutor(2) as pool:
        for seed, diffs in pool.map(lambda c: run_case(folder, c), cases):
            check(f"seed {seed}: the original Fennel's times", not diffs, "\n".join(diffs[:5]))
    finish()


main()
