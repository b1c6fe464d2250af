#!/usr/bin/env python3
"""The LogGOPSim oracle: 1300 seeded random GOAL programs (tests/cli/goal_random.py) under
`ordering: loggopsim` (docs/SEMANTICS.md, Ordering) give the makespan and every rank's
finish time that LogGOPSim itself prints for them, to the nanosecond. The times were
measured with LogGOPSim and are kept in tests/data/goal/random/loggopsim-times.csv; its
README says how. The programs are made again here from their seeds; each must be the
program LogGOPSim ran (its SHA-256 is in the table). The programs of one parameter set run
together (`fennel run --together`), every 8th one also alone.

Usage: test_loggopsim_random.py FENNEL SOURCE_ROOT. Prints TAP.
"""
import concurrent.futures
import csv
import hashlib
import json
import os
import tempfile

from goal_random import PARAMS, program
from harness import ROOT, check, fennel, finish

UNITS = {"G": "ns/B", "O": "ns/B", "S": "B"}
TABLE = os.path.join(ROOT, "tests", "data", "goal", "random", "loggopsim-times.csv")
ALONE = 8  # every 8th program also runs by itself

with open(TABLE) as f:
    table = list(csv.DictReader(f))
seeds = [int(r["seed"]) for r in table]
check(f"the table holds seeds 0 to {len(table) - 1}, none left out",
      len(table) >= 1300 and seeds == list(range(len(table))), seeds[:20])


def model_args(name):
    args = ["--network", "loggp", "--set", "ordering=loggopsim"]
    for key, value in PARAMS[name].items():
        args += ["--set", f"{key}={value}{UNITS.get(key, 'ns')}"]
    return args


def result(*args):
    """fennel run --json ARGS: (exit status, the JSON summary or stderr)."""
    code, out, err = fennel("run", "--json", *args)
    return code, (json.loads(out) if code == 0 else err)


changed, makespans, finishes, stuck = [], [], [], []
timed = [r for r in table if r["makespan_ns"]]
with tempfile.TemporaryDirectory() as tmp:
    path = {}
    for row in table:
        name, text = program(int(row["seed"]))
        if name != row["params"] or hashlib.sha256(text.encode()).hexdigest()[:16] != row["sha256"]:
            changed.append(row["seed"])
        path[row["seed"]] = os.path.join(tmp, row["seed"] + ".goal")
        with open(path[row["seed"]], "w") as f:
            f.write(text)

    # The programs of one parameter set run together, as one program of their ranks side by
    # side: under LogGP without a topology they share nothing, so each rank finishes when it
    # does alone (the runs alone below check it for every 8th program).
    for name in sorted(PARAMS):
        rows = [r for r in timed if r["params"] == name]
        code, got = result("--together", *[path[r["seed"]] for r in rows], *model_args(name))
        if code != 0:
            makespans.append(f"set {name} together: status {code}, {got.strip()}")
            continue
        mine = [round(t) for t in got["rank_finish_ns"]]
        for r in rows:
            want = [int(t) for t in r["rank_finish_ns"].split()]
            ours, mine = mine[:len(want)], mine[len(want):]
            if max(ours) != int(r["makespan_ns"]):
                makespans.append(f"seed {r['seed']} ({name}): LogGOPSim {r['makespan_ns']}, "
                                 f"fennel {max(ours)} (together)")
            if ours != want:
                finishes.append(f"seed {r['seed']} ({name}): LogGOPSim {want}, fennel {ours} "
                                "(together)")

    def alone(row):
        return row, result(path[row["seed"]], *model_args(row["params"]))

    chosen = [r for r in table if int(r["seed"]) % ALONE == 0 or not r["makespan_ns"]]
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        runs = list(pool.map(alone, chosen))

for row, (code, got) in runs:
    seed = row["seed"]
    if not row["makespan_ns"]:
        # LogGOPSim ended with receives or messages unmatched and printed no times.
        if code != 1 or "tasks never completed" not in got:
            stuck.append(f"seed {seed}: status {code}, {str(got)[:200]}")
        continue
    if code != 0:
        makespans.append(f"seed {seed}: status {code}, {got.strip()}")
        continue
    if round(got["makespan_ns"]) != int(row["makespan_ns"]):
        makespans.append(f"seed {seed} ({row['params']}): LogGOPSim {row['makespan_ns']}, "
                         f"fennel {got['makespan_ns']}")
    want = [int(t) for t in row["rank_finish_ns"].split()]
    mine = [round(t) for t in got["rank_finish_ns"]]
    if mine != want:
        finishes.append(f"seed {seed} ({row['params']}): LogGOPSim {want}, fennel {mine}")

alone_timed = sum(1 for r, _ in runs if r["makespan_ns"])
check(f"{len(table)} programs made from their seeds are those LogGOPSim ran", not changed,
      "seeds " + " ".join(changed[:40]))
check(f"{len(timed)} makespans equal LogGOPSim's ({alone_timed} also run alone)", not makespans,
      "\n".join(makespans[:40]))
check(f"{len(timed)} programs' finish times of every rank equal LogGOPSim's", not finishes,
      "\n".join(finishes[:40]))
check(f"the {len(table) - len(timed)} programs LogGOPSim printed no times for never complete",
      not stuck, "\n".join(stuck))

finish()
