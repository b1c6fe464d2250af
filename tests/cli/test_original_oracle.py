#!/usr/bin/env python3
"""The standing oracle against the original Python Fennel: 2000 seeded random programs
(tests/cli/original_random.py), each with the times the original itself gave for it
(tests/data/original-fennel/expected.txt; README.md beside it says how they were taken).

The programs are made again from their seeds; for each the check is
- every rank's finish time equals the original's (the latest free time of its slots);
- every task's completion, the time it hands to its successors, equals the original's
  (for a get, the request's arrival, which is what the original hands on to every
  successor; the programs give a get no successor on its own rank);
- the makespan is the latest of the original's slot times and completions (engine rule
  5; the original's own maximum counts slot times only, which differs when an `any: K`
  task never waits for a late put).

The programs of one model and slot count run together (`fennel run --together`: each
file's ranks after the previous file's; postal and lbp share nothing between ranks, so
each program's times are its own), and every 20th program also alone, where the
makespan is checked as such. Any difference fails, naming the seed and the first
differing tasks. FENNEL_ORACLE_STRIDE=K checks every K-th seed only (the sanitizer build
sets 10: memory safety, not times, is its point there). Standard library only.
"""

import csv
import json
import os
import subprocess
import sys
import tempfile
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import FENNEL, ROOT, check, finish  # noqa: E402
import original_random  # noqa: E402

EXPECTED = os.path.join(ROOT, "tests", "data", "original-fennel", "expected.txt")
ALONE = 20


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


def run(folder, files, model, tag):
    """fennel run --json --tasks on the files: (summary, rows by file) or an error."""
    csv_path = os.path.join(folder, tag + ".csv")
    p = subprocess.run([FENNEL, "run", *(["--together"] if len(files) > 1 else []), *files,
                        "--model", model, "--json", "--tasks", csv_path],
                       capture_output=True, text=True)
    if p.returncode != 0:
        return None, f"exit {p.returncode}: {p.stderr.strip()}"
    rows = defaultdict(list)
    with open(csv_path) as f:
        for row in csv.DictReader(f):
            name, _, task = row["id"].rpartition("/")
            row["id"] = task
            rows[name or os.path.basename(files[0])].append(row)
    return json.loads(p.stdout), rows


def compare(case, rows, finishes):
    """The differences between one program's fennel rows and finishes and the original's."""
    seed, top, want_finishes, completions = case
    if len(rows) != len(completions):
        return [f"{len(rows)} tasks, the original ran {len(completions)}"]
    diffs = []
    for row, want in zip(rows, completions):
        got = row["arrival_ns"] if row["type"] == "get" else row["completion_ns"]
        if float(got) != want:
            diffs.append(f"{row['id']} completes at {got} ns, the original at {want}")
    if finishes != want_finishes:
        diffs.append(f"rank finishes {finishes}, the original {want_finishes}")
    return diffs


def main():
    cases = load()
    check("the corpus holds 2000 programs", len(cases) == 2000, f"{len(cases)} lines")
    cases = cases[::int(os.environ.get("FENNEL_ORACLE_STRIDE", "1"))]
    alone_seeds = {case[0] for case in cases[::ALONE]}
    groups = defaultdict(list)
    for case in cases:
        seed = case[0]
        groups[(original_random.model_of(seed), original_random.processes_of(seed))].append(case)
    together, alone = [], []
    with tempfile.TemporaryDirectory() as folder:
        for (model, processes), members in sorted(groups.items()):
            model_path = os.path.join(folder, f"m{model}.model.yaml")
            files = []
            for seed, *_ in members:
                program, model_text = original_random.program(seed)
                files.append(os.path.join(folder, f"{seed}.yaml"))
                with open(files[-1], "w") as f:
                    f.write(program)
            with open(model_path, "w") as f:
                f.write(model_text)
            summary, rows = run(folder, files, model_path, f"m{model}p{processes}")
            if summary is None:
                together.append(f"model {model}, {processes} slots: {rows}")
                continue
            finishes = summary["rank_finish_ns"]
            for case in members:
                seed, ranks = case[0], len(case[2])
                mine, finishes = finishes[:ranks], finishes[ranks:]
                diffs = compare(case, rows[f"{seed}.yaml"], mine)
                if diffs:
                    together.append(f"seed {seed} (together): " + "; ".join(diffs[:4]))
                if seed in alone_seeds:
                    summary1, rows1 = run(folder, [os.path.join(folder, f"{seed}.yaml")],
                                          model_path, str(seed))
                    if summary1 is None:
                        alone.append(f"seed {seed}: {rows1}")
                        continue
                    diffs = compare(case, rows1[f"{seed}.yaml"], summary1["rank_finish_ns"])
                    makespan = max([case[1]] + case[3])
                    if summary1["makespan_ns"] != makespan:
                        diffs.append(f"makespan {summary1['makespan_ns']} ns, expected {makespan}")
                    if diffs:
                        alone.append(f"seed {seed}: " + "; ".join(diffs[:4]))
    n_alone = len(alone_seeds)
    check(f"{len(cases)} programs in {len(groups)} runs together: every rank's finish and "
          "every task's completion equal the original Fennel's", not together,
          "\n".join(together[:40]))
    check(f"{n_alone} programs alone: the same, and the makespan", not alone,
          "\n".join(alone[:40]))
    finish()


main()
