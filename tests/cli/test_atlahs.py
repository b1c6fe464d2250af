#!/usr/bin/env python3
"""GOAL in the flavour the ATLAHS generators write (tests/data/goal/atlahs, README.md there):
tags of 10 to 12 digits, `cpu` and `nic` fields, C and `//` comments, labels in the millions
and longer than 64 characters. Under `ordering: loggopsim` the files give the makespans
LogGOPSim itself prints for them (measured with LogGOPSim, parameters as in
tests/data/goal/schedgen/README.md); `nic N` is read and ignored.

Usage: test_atlahs.py FENNEL SOURCE_ROOT. Prints TAP.
"""
import os
import tempfile

from harness import ROOT, check, expect_error, finish, run_json

PARAMS = {
    "A": dict(L=2500, o=1500, g=1000, G=6, O=0, S=65535),
    "B": dict(L=1000, o=200, g=300, G=1, O=0, S=256),
    "C": dict(L=3000, o=500, g=2000, G=0, O=2, S=65535),
    "D": dict(L=100, o=1000, g=100, G=10, O=1, S=1024),
}
UNITS = {"G": "ns/B", "O": "ns/B", "S": "B"}
DATA = os.path.join(ROOT, "tests", "data", "goal", "atlahs")

# LogGOPSim's "Maximum finishing time" (txt2bin, then LogGOPSim -L -o -g -G -O -S). For
# nccl-p2p.goal, the file with every `nic 1` made `nic 0`: LogGOPSim gives each NIC of a
# host its own gaps, fennel one NIC per rank (README.md here).
LOGGOPSIM = {
    "nccl-p2p.goal": {"A": 456612, "B": 77252, "C": 141324, "D": 743820},
    "schedgen-comments.goal": {"A": 24324, "B": 6461, "C": 14202, "D": 29157},
    "job-a.goal": {"A": 23276, "B": 4846, "C": 12092, "D": 24660},
    "job-b.goal": {"A": 56640, "B": 10890, "C": 15190, "D": 85100},
}


def model_args(name):
    args = ["--network", "loggp"]
    for key, value in PARAMS[name].items():
        args += ["--set", f"{key}={value}{UNITS.get(key, 'ns')}"]
    return args + ["--set", "ordering=loggopsim"]


def makespan(*args):
    d = run_json(*args)
    return round(d["makespan_ns"]) if "makespan_ns" in d else d


for name, times in LOGGOPSIM.items():
    for params, expected in times.items():
        got = makespan(os.path.join(DATA, name), *model_args(params))
        check(f"{name} under {params}: LogGOPSim's {expected} ns", got == expected,
              f"fennel {got}")

# nic is ignored: the file with every nic made 0 runs alike (LogGOPSim, which gives the two
# NICs their own gaps, prints 404972 ns under A for the file as written).
with open(os.path.join(DATA, "nccl-p2p.goal")) as f:
    text = f.read()
check("nccl-p2p.goal uses nic 1", " nic 1" in text)
with tempfile.TemporaryDirectory() as tmp:
    one = os.path.join(tmp, "one-nic.goal")
    with open(one, "w") as f:
        f.write(text.replace(" nic 1", " nic 0"))
    for params in PARAMS:
        check(f"nic ignored under {params}",
              makespan(one, *model_args(params)) ==
              makespan(os.path.join(DATA, "nccl-p2p.goal"), *model_args(params)))

# Two jobs at the same time (--together): LogGOPSim's times for the merged file, job b's
# ranks and peers moved up by 2 (README.md here).
MERGED = {"A": 56640, "B": 10890, "C": 15190, "D": 85100}
jobs = [os.path.join(DATA, "job-a.goal"), os.path.join(DATA, "job-b.goal")]
for params, expected in MERGED.items():
    got = makespan("--together", *jobs, *model_args(params))
    check(f"job-a and job-b together under {params}: LogGOPSim's {expected} ns", got == expected,
          f"fennel {got}")
# Without --together they run one after another: 23276 + 56640 ns under A.
check("one after another without --together", makespan(*jobs, *model_args("A")) == 79916)
d = run_json("--together", *jobs, *model_args("A"))
check("together: one program of 5 ranks", d.get("ranks") == 5 and
      d.get("program") == "job-a.goal+job-b.goal", str(d))
expect_error("--together needs files", ["run", "--together", "--generate", "allreduce-rd",
                                        "--ranks", "4", "--network", "postal"], 2,
             "run: --together needs program files")

finish()
