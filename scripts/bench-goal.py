#!/usr/bin/env python3
"""Times `fennel run F.goal` end to end (reading, simulating, peak memory) on three GOAL
schedules in the shape LogGOPSim's users run (scripts/bench.sh goal):

  dissemination  a dissemination barrier of 65 536 ranks (scripts/goal-patterns.py)
  allreduce-rd   recursive doubling on 2^18 ranks, written by `fennel generate --format goal`
  ring           a ring allreduce of 1 MiB on 2048 ranks, a tag per step, every receive
                 posted at the start (goal-patterns.py)

Usage: bench-goal.py FENNEL WORKDIR [RUNS]

Each input is run RUNS times (default 3) under the loggopsim-default preset; a row gives the
median wall time, the reading and simulation seconds fennel reports, and the peak resident
memory.
"""
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def timed(argv, stdout=subprocess.DEVNULL):
    """Runs argv; returns (wall seconds, peak RSS in MiB, stdout text or None)."""
    start = time.monotonic()
    out = subprocess.PIPE if stdout is None else stdout
    proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.PIPE, text=True)
    text = proc.stdout.read() if stdout is None else None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - start
    if status != 0:
        sys.exit("%s failed: %s" % (" ".join(argv), err.strip()))
    return wall, usage.ru_maxrss / 1024.0, text


def inputs(fennel, work):
    files = {
        "dissemination": os.path.join(work, "dissemination-65536.goal"),
        "allreduce-rd": os.path.join(work, "allreduce-rd-262144.goal"),
        "ring": os.path.join(work, "ring-2048.goal"),
    }
    if not os.path.exists(files["dissemination"]):
        subprocess.run([sys.executable, os.path.join(HERE, "goal-patterns.py"), "dissemination",
                        "65536", files["dissemination"]], check=True)
    if not os.path.exists(files["allreduce-rd"]):
        subprocess.run([fennel, "generate", "allreduce-rd", "--ranks", "262144", "--format",
                        "goal", "--model", "loggopsim-default", "-o", files["allreduce-rd"]],
                       check=True)
    if not os.path.exists(files["ring"]):
        subprocess.run([sys.executable, os.path.join(HERE, "goal-patterns.py"), "ring", "2048",
                        "1048576", files["ring"]], check=True)
    return files


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    fennel, work = sys.argv[1], sys.argv[2]
    runs = int(sys.argv[3]) if len(sys.argv) == 4 else 3
    os.makedirs(work, exist_ok=True)
    print("input,operations,MB,wall_s,read_s,simulate_s,peak_MiB,B_per_op,makespan_ns")
    for name, path in inputs(fennel, work).items():
        mb = os.path.getsize(path) / 1e6
        rows = []
        for _ in range(runs):
            wall, rss, text = timed([fennel, "run", path, "--model", "loggopsim-default",
                                     "--json"], stdout=None)
            d = json.loads(text)
            rows.append((wall, d["build_seconds"], d["simulate_seconds"], rss, d))
        rows.sort(key=lambda r: r[0])
        wall, read, sim, rss, d = rows[len(rows) // 2]
        ops = d["tasks"] - d["ranks"]  # fennel adds a start task per rank
        print("%s,%d,%.1f,%.2f,%.2f,%.2f,%.0f,%.0f,%d" % (
            name, ops, mb, wall, read, sim, rss, rss * 1048576 / ops, d["makespan_ns"]))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
