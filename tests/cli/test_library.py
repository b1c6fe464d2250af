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
import json

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


# compare --library: each point runs the algorithm the library picks for its collective, the
# --ranks given and its size. tests/data/library/osu-allreduce-8.txt (written for this test in
# osu_allreduce's format) has 4, 4096, 8192 and 16384 B at 8 ranks. v4.1.6 line 147: 8..15
# ranks below 8192 B run recursive doubling, 3 reducing stages of 610 + 0.4 s ns (1834.8,
# 6745.2); line 149: from 8192 B Rabenseifner: halving stages of n/2, n/4, n/8 bytes, each
# 610 + 0.4 m, then doubling stages of n/8, n/4, n/2, each 600 + 0.4 m: 3630 + 0.7 n ns
# (9364.4 at 8192, 15098.8 at 16384).
DATA = "tests/data/library/"
code, out, err = fennel("compare", DATA + "osu-allreduce-8.txt", "--model", MODEL,
                        "--library", "ompi-4", "-n", "8", "--json")
doc = json.loads(out) if code == 0 else {"points": []}
got = [(p["size_bytes"], p["generator"], p["library_algorithm"], round(p["model_ns"], 6))
       for p in doc["points"]]
check("compare --library ompi-4: each point's algorithm and time",
      got == [(4, "allreduce-rd", "recursive_doubling", 1834.8),
              (4096, "allreduce-rd", "recursive_doubling", 6745.2),
              (8192, "allreduce-rabenseifner", "rabenseifner", 9364.4),
              (16384, "allreduce-rabenseifner", "rabenseifner", 15098.8)], f"{got} {err}")
check("compare --library: the choice of each point in JSON",
      code == 0 and doc["points"][1]["library_choice"] ==
      "ompi-4 allreduce, 8 ranks, 4 KiB: recursive_doubling (coll_tuned_decision_fixed.c v4.1.6 "
      "line 147: comm size 8..15, message < 8192 B: algorithm 3) -> fennel allreduce-rd" and
      doc["tables"][0]["library"] == "ompi-4" and
      doc["tables"][0]["generator"] == "allreduce-rd,allreduce-rabenseifner", out + err)

code, out, err = fennel("compare", DATA + "osu-allreduce-8.txt", "--model", MODEL,
                        "--library", "ompi-4", "-n", "8")
lines = out.splitlines()
check("compare --library: one line per row of the table, with its sizes",
      code == 0 and lines[5:8] == [
          "library: ompi-4 allreduce, 8 ranks, 4 B..4 KiB: recursive_doubling "
          "(coll_tuned_decision_fixed.c v4.1.6 line 147: comm size 8..15, message < 8192 B: "
          "algorithm 3) -> fennel allreduce-rd",
          "library: ompi-4 allreduce, 8 ranks, 8 KiB..16 KiB: rabenseifner "
          "(coll_tuned_decision_fixed.c v4.1.6 line 149: comm size 8..15, message >= 8192 B: "
          "algorithm 6) -> fennel allreduce-rabenseifner",
          "allreduce by ompi-4 (allreduce-rd,allreduce-rabenseifner), 8 ranks: 4 points, "
          "|model - measured| / measured median 5.00 %, worst 8.26 % at 4B, model/measured "
          "median 0.9500"], out + err)

# The radix of a k-nomial choice reaches the generator. v4.1.6 line 591: 16..31 ranks below
# 4096 B run knomial, radix 4. 16 ranks, 1 B under thesis-figures: the root sends to 4, 8, 12
# at 0, 100, 200 ns (each put keeps it busy alpha_r = 100 ns; arrival 600.4 ns later), rank 12
# has it at 800.4 and sends to 13, 14, 15 at 800.4, 900.4, 1000.4: the last has it at
# 1600.8 ns. (Radix 2 would take four rounds.)
code, out, err = fennel("compare", DATA + "osu-bcast-16.txt", "--model", MODEL,
                        "--library", "ompi-4", "-n", "16", "--json")
p = json.loads(out)["points"][0] if code == 0 else {}
check("compare --library: knomial radix 4, 1600.8 ns",
      p.get("generator") == "bcast-knomial" and p.get("model_ns") == 1600.8 and
      p.get("library_choice", "").endswith("-> fennel bcast-knomial --radix 4"), out + err)

# A collective the library has no table for is left out and named; an algorithm without a
# generator is an error at the line of the point (v4.1.6 line 195: 2048..4095 ranks below
# 2048 B run nonoverlapping).
code, out, err = fennel("compare", DATA + "osu-allreduce-reduce-3072.txt", "--model", MODEL,
                        "--library", "ompi-4", "-n", "64")
check("compare --library: no table for reduce, left out",
      code == 0 and out.splitlines()[-1] ==
      "left out (the library has no table for them): reduce" and
      "allreduce by ompi-4 (allreduce-rd), 64 ranks: 2 points" in out, out + err)
expect_error("compare --library: no generator for the choice, at its line",
             ["compare", DATA + "osu-allreduce-reduce-3072.txt", "--model", MODEL,
              "--library", "ompi-4", "-n", "3072"], 1,
             DATA + "osu-allreduce-reduce-3072.txt:9:1: ompi-4 allreduce runs nonoverlapping, "
             "which no generator of fennel performs yet (coll_tuned_decision_fixed.c v4.1.6 "
             "line 195: comm size 2048..4095, message < 2048 B: algorithm 2)")
expect_error("compare: --library and --generator",
             ["compare", DATA + "osu-allreduce-8.txt", "--model", MODEL, "--library", "ompi-4",
              "--generator", "allreduce-rd", "-n", "8"], 2,
             "compare: --generator and --library exclude each other")
expect_error("compare: unknown library",
             ["compare", DATA + "osu-allreduce-8.txt", "--model", MODEL, "--library", "mpich-9",
              "-n", "8"], 2,
             "compare: --library: unknown library 'mpich-9' (known: ompi-3, ompi-4, ompi-5)")

finish()
