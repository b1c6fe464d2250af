#!/usr/bin/env python3
"""CLI tests of `fennel run --collective C --library L` (docs/LIBRARIES.md).

Usage: test_library.py FENNEL SOURCE_ROOT. Prints TAP.

Times are derived by hand under models/presets/thesis-figures.yaml (lbp, alpha_p 500 ns,
alpha_r 100 ns, beta 0.4 ns/B, computes 10 ns): a stage is a put of s bytes, 100 + 500 +
0.4 s ns, and a reducing stage adds the 10 ns compute. The choices are the rows of Open MPI's
coll_tuned_decision_fixed.c read by hand (v4.1.6 line 167: 64..127 ranks below 262144 B run
recursive doubling; v3.1.6 line 73: from 10000 B, more floats than ranks and comm size x 1 MiB
>= message, the ring; v4.1.6 line 195: 2048..4095 ranks below 2048 B, nonoverlapping).
"""
from harness import check, expect_error, fennel, finish

MODEL = "models/presets/thesis-figures.yaml"


def run(*args):
    return fennel("run", "--model", MODEL, *args)


# Recursive doubling at 64 ranks, 64 B: 6 reducing stages of 610 + 0.4 x 64 = 635.6 ns.
code, out, err = run("--library", "ompi-4", "--collective", "allreduce", "-n", "64",
                     "--size", "64B")
first = out.splitlines()[0] if out else ""
check("ompi-4 allreduce 64 ranks 64 B: the row and the generator",
      code == 0 and first == "library: ompi-4 allreduce, 64 ranks, 64 B: recursive_doubling "
      "(coll_tuned_decision_fixed.c v4.1.6 line 167: comm size 64..127, message < 262144 B: "
      "algorithm 3) -> fennel allreduce-rd", out + err)
check("ompi-4 allreduce 64 ranks 64 B: 6 x 635.6 ns", "makespan     3813.6 ns" in out, out)

# The ring at 4 ranks, 16384 B: blocks of 4096 B; 3 reducing stages of 610 + 1638.4 ns and
# 3 allgather stages of 600 + 1638.4 ns: 6745.2 + 6715.2 = 13460.4 ns.
code, out, err = run("--library", "ompi-3", "--collective", "allreduce", "-n", "4",
                     "--size", "16384")
check("ompi-3 allreduce 4 ranks 16 KiB: ring, 13460.4 ns",
      code == 0 and "): ring (" not in out and ": ring (coll_tuned_decision_fixed.c v3.1.6 "
      "line 73" in out and "-> fennel allreduce-ring" in out and
      "makespan     13460.4 ns" in out, out + err)

# ompi-5: the same table, and the line says coll/han is not modelled.
code, out, err = run("--library", "ompi-5", "--collective", "allreduce", "-n", "64",
                     "--size", "64B")
check("ompi-5 names coll/han", code == 0 and "Open MPI 5 runs coll/han instead, which fennel "
      "does not model" in out and "makespan     3813.6 ns" in out, out + err)

# --json keeps stdout one JSON object: the line goes to stderr.
code, out, err = run("--library", "ompi-4", "--collective", "allreduce", "-n", "64",
                     "--size", "64B", "--json")
check("--json: the choice on stderr", code == 0 and out.startswith("{") and
      err.startswith("library: ompi-4 allreduce, 64 ranks, 64 B: recursive_doubling"), err)

# An algorithm fennel has no generator for is named, not replaced by another.
code, out, err = run("--library", "ompi-4", "--collective", "allreduce", "-n", "3072",
                     "--size", "8B")
check("nonoverlapping: refused, named", code == 1 and
      err == "fennel: ompi-4 allreduce runs nonoverlapping, which no generator of fennel "
      "performs yet\n" and "line 195: comm size 2048..4095, message < 2048 B" in out, out + err)

expect_error("--library without --collective",
             ["run", "--model", MODEL, "--library", "ompi-4", "-n", "4", "--size", "8"], 2,
             "run: --collective and --library go together")
expect_error("unknown library",
             ["run", "--model", MODEL, "--library", "mpich-9", "--collective", "allreduce",
              "-n", "4", "--size", "8"], 2,
             "unknown library 'mpich-9' (known: ompi-3, ompi-4, ompi-5)")
expect_error("a collective without a table",
             ["run", "--model", MODEL, "--library", "ompi-4", "--collective", "alltoall",
              "-n", "4", "--size", "8"], 2,
             "ompi-4: no table for the collective 'alltoall' (tables: allreduce, bcast)")
expect_error("--library with --generate",
             ["run", "--model", MODEL, "--library", "ompi-4", "--collective", "allreduce",
              "--generate", "allreduce-rd", "-n", "4", "--size", "8"], 2,
             "run: --library runs the library's algorithm: no --generate and no program files")
expect_error("--library with --radix",
             ["run", "--model", MODEL, "--library", "ompi-4", "--collective", "bcast",
              "--radix", "2", "-n", "64", "--size", "8"], 2,
             "run: --library chooses the algorithm and its parameters (no --radix, --schedule "
             "or --variant)")
expect_error("--library without --size",
             ["run", "--model", MODEL, "--library", "ompi-4", "--collective", "bcast",
              "-n", "64"], 2, "run: --library needs --ranks and --size")

finish()
