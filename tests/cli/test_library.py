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
import csv
import json
import os
import tempfile

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

# ompi-5 without --ppn (one rank per node): the same table, and the line says coll/han is
# modelled only for ranks that share nodes.
code, out, err = run("--library", "ompi-5", "--collective", "allreduce", "-n", "64",
                     "--size", "64B")
check("ompi-5 names coll/han", code == 0 and "across nodes Open MPI 5 runs coll/han, which "
      "fennel models only for ranks that share nodes (--ppn above 1)" in out and
      "makespan     3813.6 ns" in out, out + err)

# --json keeps stdout one JSON object: the line goes to stderr.
code, out, err = run("--library", "ompi-4", "--collective", "allreduce", "-n", "64",
                     "--size", "64B", "--json")
check("--json: the choice on stderr", code == 0 and out.startswith("{") and
      err.startswith("library: ompi-4 allreduce, 64 ranks, 64 B: recursive_doubling"), err)

# nonoverlapping (line 195: 2048..4095 ranks below 2048 B) is the communicator's reduce to 0
# then its bcast, each chosen by its own table: at 3072 ranks and 8 B the reduce is binomial
# (line 782) and the bcast knomial of radix 4 (line 633). By hand: the binomial reduce has 12
# stages; the ranks 2048..3071 are gathered at 2048 after 10 stages of 613.2 ns (put 603.2,
# compute 10), its put reaches the root at 6132 + 603.2 = 6735.2, before the root's 11th
# stage ends (6745.2), so the reduce ends at 6755.2. The bcast's k-nomial levels are 1024,
# 256, 64, 16, 4, 1: the root sends to 1024 and 2048 (the second arrives 100 + 603.2 later),
# then each level's sender sends to 3 children, the last arriving 2 x 100 + 603.2 = 803.2
# after it got the data: 703.2 + 5 x 803.2 = 4719.2. Total 6755.2 + 4719.2 = 11474.4 ns.
code, out, err = run("--library", "ompi-4", "--collective", "allreduce", "-n", "3072",
                     "--size", "8B")
check("nonoverlapping at 3072 ranks, 8 B: binomial reduce + knomial bcast, 11474.4 ns",
      code == 0 and out.splitlines()[0].endswith(
          "its reduce: binomial (coll_tuned_decision_fixed.c v4.1.6 line 782: comm size "
          "2048..4095, message < 512 B: algorithm 5); its bcast: knomial "
          "(coll_tuned_decision_fixed.c v4.1.6 line 633: comm size 2048..4095, message < "
          "262144 B: algorithm 7)) -> fennel allreduce-nonoverlapping --variant "
          "binomial:knomial --radix 4") and "makespan     11474.4 ns" in out, out + err)

# At 512 B the reduce of nonoverlapping is in-order_binary (line 784): Open MPI's in-order
# binary tree on 3072 ranks (rooted at 3071; subtrees of 1536 and 1535 ranks, down to 3 =
# 3072 / 2^10) is 11 levels high, and every rank of height h has a child of height h - 1,
# so rank 3071 holds the sum after 11 reducing stages of 100 + 500 + 0.4 x 512 = 804.8 ns
# plus the 10 ns compute: 11 x 814.8 = 8962.8 ns; it sends it to rank 0, arriving at
# 8962.8 + 804.8 = 9767.6. The k-nomial bcast as above with puts of 804.8 ns: 904.8 +
# 5 x 1004.8 = 5928.8. Total 9767.6 + 5928.8 = 15696.4 ns.
code, out, err = run("--library", "ompi-4", "--collective", "allreduce", "-n", "3072",
                     "--size", "512B")
check("nonoverlapping at 3072 ranks, 512 B: in-order binary reduce + knomial bcast, 15696.4 ns",
      code == 0 and out.splitlines()[0].endswith(
          "its reduce: in-order_binary (coll_tuned_decision_fixed.c v4.1.6 line 784: comm size "
          "2048..4095, message 512..1023 B: algorithm 6); its bcast: knomial "
          "(coll_tuned_decision_fixed.c v4.1.6 line 633: comm size 2048..4095, message < "
          "262144 B: algorithm 7)) -> fennel allreduce-nonoverlapping --variant "
          "inorder-binary:knomial --radix 4") and "makespan     15696.4 ns" in out, out + err)

# At 4 ranks and 4096 B Open MPI 4.1 reduces along a chain (line 746), fan-out 0 forced to
# 1, unsegmented: rank 3 -> 2 -> 1 -> 0, 3 reducing stages of 100 + 500 + 0.4 x 4096 =
# 2238.4 ns plus the 10 ns compute: 3 x 2248.4 = 6745.2 ns.
code, out, err = run("--library", "ompi-4", "--collective", "reduce", "-n", "4",
                     "--size", "4096B")
check("a reduce chain: reduce-pipeline, 6745.2 ns", code == 0 and
      out.splitlines()[0] == "library: ompi-4 reduce, 4 ranks, 4 KiB: chain "
      "(coll_tuned_decision_fixed.c v4.1.6 line 746: comm size 4..7, message 4096..65535 B: "
      "algorithm 2) -> fennel reduce-pipeline" and "makespan     6745.2 ns" in out, out + err)

# At 256 ranks and 16384 B Open MPI 4.1 broadcasts along its split binary tree (line 621),
# unsegmented: halves of 8192 B, a put of 100 + 500 + 0.4 x 8192 = 3876.8 ns, the sender
# busy 100 ns. Down Open MPI's binary tree rank 254 (the right subtree's last leaf) is
# reached along 0 -> 2 -> 6 -> 14 -> 30 -> 62 -> 126 -> 254, each its parent's second
# child: 7 x (100 + 3876.8) = 27837.6; its pair 253 along 0 -> 1 (first child) -> 5 -> 13
# -> 29 -> 61 -> 125 -> 253: 3876.8 + 6 x 3976.8 = 27737.6. They swap halves, 254's
# arriving at 27837.6 + 3876.8 = 31714.4 ns, the last (rank 255, paired with the root, has
# its halves at 8 x 3876.8 = 31014.4).
code, out, err = run("--library", "ompi-4", "--collective", "bcast", "-n", "256",
                     "--size", "16384B")
check("a split binary tree at 256 ranks, 16 KiB: 31714.4 ns", code == 0 and
      out.splitlines()[0] == "library: ompi-4 bcast, 256 ranks, 16 KiB: split_binary_tree "
      "(coll_tuned_decision_fixed.c v4.1.6 line 621: comm size 256..1023, message "
      "16384..32767 B: algorithm 4) -> fennel bcast-split-bintree" and
      "makespan     31714.4 ns" in out, out + err)

# Open MPI 3.1 broadcasts 2048..370727 B along its split binary tree in 1 KiB segments
# (line 262). 4 ranks, 4096 B: halves of 2048 B, 2 segments each, a put of 600 + 0.4 x
# 1024 = 1009.6 ns (the sender busy 100 ns). The root sends segment 0 to 1 at 0 and to 2 at
# 100, segment 1 to 1 at 200 (arriving 1209.6) and to 2 at 300 (1309.6); rank 1 forwards
# segment 0 to 3 at 1009.6 and segment 1 at 1209.6 (arriving 2219.2). Then the whole halves
# (600 + 819.2 = 1419.2 ns): 1 and 2 swap, 1 once free at 1309.6 and 2 once it has its
# half at 1309.6, both arriving at 2728.8; the root sends rank 3 the second half at 400.
code, out, err = run("--library", "ompi-3", "--collective", "bcast", "-n", "4",
                     "--size", "4096B")
check("a segmented split binary tree: bcast-split-bintree --segment 1024, 2728.8 ns",
      code == 0 and out.splitlines()[0] == "library: ompi-3 bcast, 4 ranks, 4 KiB: "
      "split_binary_tree, segment 1 KiB (coll_tuned_decision_fixed.c v3.1.6 line 262: message "
      "2048..370727 B) -> fennel bcast-split-bintree --segment 1024" and
      "makespan     2728.8 ns" in out and "messages     9 (12288 B)" in out, out + err)

# An algorithm fennel has no generator for is named, not replaced by another: at 24 ranks
# and 1 MiB Open MPI 4.1 runs scatter_allgather (line 595), whose allgather at a rank count
# that is not a power of two ends with a halving step.
code, out, err = run("--library", "ompi-4", "--collective", "bcast", "-n", "24",
                     "--size", "1MiB")
check("scatter_allgather at 24 ranks: refused, named", code == 1 and
      err == "fennel: ompi-4 bcast runs scatter_allgather, which no generator of fennel "
      "performs yet\n" and out.startswith("library: ompi-4 bcast, 24 ranks, 1 MiB: "
      "scatter_allgather (coll_tuned_decision_fixed.c v4.1.6 line 595: comm size 16..31, "
      "message >= 1048576 B: algorithm 8; at 24 ranks, not a power of two"), out + err)

expect_error("--library without --collective",
             ["run", "--model", MODEL, "--library", "ompi-4", "-n", "4", "--size", "8"], 2,
             "run: --collective and --library go together")
expect_error("unknown library",
             ["run", "--model", MODEL, "--library", "mpich-9", "--collective", "allreduce",
              "-n", "4", "--size", "8"], 2,
             "unknown library 'mpich-9' (known: ompi-1.6, ompi-3, ompi-4, ompi-5, mpich-3, mpich-4, nccl)")
expect_error("a collective without a table",
             ["run", "--model", MODEL, "--library", "ompi-4", "--collective", "barrier",
              "-n", "4", "--size", "8"], 2,
             "ompi-4: no table for the collective 'barrier' (tables: allreduce, bcast, reduce, "
             "allgather, alltoall, reduce_scatter, gather, scatter)")
expect_error("a collective mpich-3 has no table of",
             ["run", "--model", MODEL, "--library", "mpich-3", "--collective", "alltoall",
              "-n", "4", "--size", "8"], 2,
             "mpich-3: no table for the collective 'alltoall' (tables: allreduce, bcast, reduce)")

# Open MPI 4.1's alltoall, reduce_scatter, gather and scatter rows (coll_tuned_decision_fixed.c
# v4.1.6), each run by the generator of the same algorithm:
# - alltoall, 2 ranks, 1000 B per pair: line 265 (comm size 2, 256..4095 B) two_proc, one
#   exchange: both ranks put 1000 B at once, 100 + 500 + 400 = 1000 ns.
# - gather, 16 ranks, 8 B per rank: line 1440 (8..255 ranks) binomial: 4 stages carrying 1, 2,
#   4, 8 blocks of 8 B: 4 x 600 + 0.4 x (8 + 16 + 32 + 64) = 2448 ns.
# - reduce_scatter, 16 ranks, 1024 B in all: line 874 (8..31 ranks, < 262144 B)
#   recursive_halving: 4 reducing stages of 512, 256, 128, 64 B: 4 x 610 + 0.4 x 960 = 2824 ns.
# - scatter, 64 ranks, 64 B per rank: line 1552 (>= 64 ranks, < 512 B) binomial: 6 stages
#   carrying 32, 16, ..., 1 blocks: 6 x 600 + 0.4 x 64 x 63 = 5212.8 ns.
for coll, n, size, line, alg, gen, ns in [
        ("alltoall", "2", "1000", 265, "two_proc", "alltoall-pairwise", "1000"),
        ("gather", "16", "8", 1440, "binomial", "gather-binomial", "2448"),
        ("reduce_scatter", "16", "1024", 874, "recursive_halving", "reduce-scatter-halving",
         "2824"),
        ("scatter", "64", "64", 1552, "binomial", "scatter-binomial", "5212.8")]:
    code, out, err = run("--library", "ompi-4", "--collective", coll, "-n", n, "--size", size)
    first = out.splitlines()[0] if out else ""
    check(f"ompi-4 {coll} {n} ranks {size} B: {alg}, {ns} ns",
          code == 0 and f": {alg} (coll_tuned_decision_fixed.c v4.1.6 line {line}: " in first
          and first.endswith(f"-> fennel {gen}") and f"makespan     {ns} ns" in out, out + err)

# MPICH 4 (maint/tuning/coll/mpir/generic.json and ch4/generic.json at v4.3.2, read by hand).
# One rank per node, allreduce: 12 B is 3 floats, below 4 (the power of two of 4 ranks):
# recursive doubling, 2 reducing stages of 610 + 0.4 x 12 = 1229.6 ns. 16 B is 4 floats:
# Rabenseifner: halving stages of 8 and 4 B (610 + 3.2, 610 + 1.6) and doubling stages of
# 4 and 8 B (600 + 1.6, 600 + 3.2): 2429.6 ns. bcast, 8 ranks, 4 per node, 100 B: below
# 12288 B on a power of two, composition alpha, binomial among the 2 leaders: bcast-smp,
# leader 0 -> 4 then 0 -> 2 and 0 -> 1, 2 -> 3 in the nodes: 3 stages of 640 = 1920 ns.
for coll, n, ppn, size, alg, gen, ns in [
        ("allreduce", "4", None, "12", "recursive_doubling", "allreduce-rd", "1229.6"),
        ("allreduce", "4", None, "16", "reduce_scatter_allgather", "allreduce-rabenseifner",
         "2429.6"),
        ("bcast", "8", "4", "100", "composition_alpha", "bcast-smp", "1920")]:
    extra = ["--ppn", ppn] if ppn else []
    code, out, err = run("--library", "mpich-4", "--collective", coll, "-n", n, "--size", size,
                         *extra)
    first = out.splitlines()[0] if out else ""
    check(f"mpich-4 {coll} {n} ranks {size} B: {alg}, {ns} ns",
          code == 0 and f": {alg} (ch4.json line " in first and
          first.endswith(f"-> fennel {gen}") and f"makespan     {ns} ns" in out, out + err)

# Ranks sharing nodes, 8 ranks of 2 per node, 400 B. mpich-4 allreduce: 100 floats >= 4 (the
# power of two of the 4 leaders): Rabenseifner among them, allreduce-smp --variant
# rabenseifner: the reduce in the nodes (1 -> 0, ...: 600 + 160 + 10 = 770), the leaders'
# halving of 200 and 100 B (690 + 650) and doubling of 100 and 200 B (640 + 680), the bcast in
# the nodes (760): 4190 ns. mpich-3 reduce to 0: MPICH's SMP order, reduce-smp --variant
# root-last: 3 -> 2 (770), 2 -> 0 (1540), and 7 -> 6, 6 -> 4, then 4 -> 0 arrives at 2300 and
# is reduced at 2310; rank 1's put to 0 came long before, reduced last: 2320 ns.
for lib, coll, gen, ns in [
        ("mpich-4", "allreduce", "allreduce-smp --variant rabenseifner", "4190"),
        ("mpich-3", "reduce", "reduce-smp --variant root-last", "2320")]:
    code, out, err = run("--library", lib, "--collective", coll, "-n", "8", "--ppn", "2",
                         "--size", "400")
    first = out.splitlines()[0] if out else ""
    check(f"{lib} {coll} 8 ranks, 2 per node, 400 B: {gen}, {ns} ns",
          code == 0 and first.endswith(f"-> fennel {gen}") and f"makespan     {ns} ns" in out,
          out + err)

# Open MPI 5's coll/han allgather, 8 ranks, 4 per node, 100 B per rank: allgather-smp. The
# critical path: 3 -> 2 (100 B, 640 ns), 2 -> 0 (ranks 2 and 3's blocks, 680 ns), leader 0 ->
# leader 4 (the node's 400 B, 760 ns), 0 -> 2 and 2 -> 3 in the node (all 800 B, 920 ns
# each): 3920 ns.
code, out, err = run("--library", "ompi-5", "--collective", "allgather", "-n", "8", "--ppn",
                     "4", "--size", "100")
check("ompi-5 allgather 8 ranks, 4 per node: coll/han as allgather-smp, 3920 ns",
      code == 0 and out.splitlines()[0].endswith("-> fennel allgather-smp") and
      "makespan     3920 ns" in out, out + err)

# 64 ranks, 4 B per pair: line 321 (64..127 ranks, < 1024 B) modified_bruck, Bruck's
# all-to-all. Its 6 steps (d = 1, 2, ..., 32) each move the 32 of positions 1..63 with bit d
# set, 32 x 4 = 128 B, and wait for the step before's arrival: 6 x (100 + 500 + 0.4 x 128) =
# 6 x 651.2 = 3907.2 ns.
code, out, err = run("--library", "ompi-4", "--collective", "alltoall", "-n", "64", "--size",
                     "4")
check("ompi-4 alltoall 64 ranks 4 B: modified_bruck as alltoall-bruck, 3907.2 ns",
      code == 0 and out.splitlines()[0].endswith("-> fennel alltoall-bruck") and
      "makespan     3907.2 ns" in out, out + err)
# Open MPI 3.1's pipeline bcast runs with its segment: 2 ranks, 370728 B (v3.1.6 line 271:
# 2 < 1.6134e-6 x 370728 + 2.1102 = 2.708) in 128 KiB segments, 131072, 131072 and 108584
# B. Rank 0 sends nothing before them, so it starts them 100 ns apart (its slot's alpha_r):
# they arrive at 0 + 600 + 0.4 x 131072 = 53028.8, 100 + 53028.8 = 53128.8 and 200 + 600 +
# 0.4 x 108584 = 44233.6: makespan 53128.8 ns, rank 0 done at 300.
code, out, err = run("--library", "ompi-3", "--collective", "bcast", "-n", "2", "--size",
                     "370728")
check("ompi-3 bcast 2 ranks 370728 B: pipeline in 128 KiB segments, 53128.8 ns",
      code == 0 and out.splitlines()[0].endswith("-> fennel bcast-pipeline --segment 131072")
      and "makespan     53128.8 ns" in out and "messages     3 (370728 B)" in out, out + err)
# An algorithm fennel has no generator for is refused by name: 64 ranks of reduce_scatter
# at 1 KiB, line 894 (64..127 ranks, 512..2047 B) butterfly.
code, out, err = run("--library", "ompi-4", "--collective", "reduce_scatter", "-n", "64",
                     "--size", "1024")
check("ompi-4 reduce_scatter 64 ranks 1 KiB: butterfly refused",
      code == 1 and "fennel: ompi-4 reduce_scatter runs butterfly, which no generator of "
      "fennel performs yet" in err, out + err)
# 4 ranks at 4 B, line 866 (4..7 ranks, < 8 B): non-overlapping, a reduce to rank 0 by 4.1's
# own table (binary, line 744) and a scatterv: reduce-scatter-nonoverlapping --variant
# binary. One float: rank 0's part, so no scatter message; the binary tree's 3 -> 1, then
# 1 and 2 -> 0: 3 messages of 4 B.
code, out, err = run("--library", "ompi-4", "--collective", "reduce_scatter", "-n", "4",
                     "--size", "4")
check("ompi-4 reduce_scatter 4 ranks 4 B: non-overlapping runs",
      code == 0 and out.splitlines()[0].endswith(
          "-> fennel reduce-scatter-nonoverlapping --variant binary") and
      "messages     3 (12 B)" in out, out + err)
expect_error("--library with --generate",
             ["run", "--model", MODEL, "--library", "ompi-4", "--collective", "allreduce",
              "--generate", "allreduce-rd", "-n", "4", "--size", "8"], 2,
             "run: --library runs the library's algorithm: no --generate and no program files")
expect_error("--library with --radix",
             ["run", "--model", MODEL, "--library", "ompi-4", "--collective", "bcast",
              "--radix", "2", "-n", "64", "--size", "8"], 2,
             "run: --library chooses the algorithm and its parameters (no --radix, --schedule, "
             "--variant, --partitions or --segment)")
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
# at 0, 100, 200 ns, then to 1, 2, 3 at 300, 400, 500 (each put keeps it busy alpha_r = 100
# ns; arrival 600.4 ns later), rank 12 has it at 800.4 and sends to 13, 14, 15 at 800.4,
# 900.4, 1000.4: the last has it at 1600.8 ns. (Radix 2 would take four rounds.) OSU's time
# is the average over the ranks of each rank's time in the call, so the model's is the mean
# of the ranks' ends: the root 600 (six puts); 4, 8, 12 end their three puts at 900.4,
# 1000.4, 1100.4; 1, 2, 3 have it at 900.4, 1000.4, 1100.4; 5-7 at 1200.8, 1300.8, 1400.8;
# 9-11 at 1300.8, 1400.8, 1500.8; 13-15 at 1400.8, 1500.8, 1600.8: 19209.6 / 16 = 1200.6 ns.
code, out, err = fennel("compare", DATA + "osu-bcast-16.txt", "--model", MODEL,
                        "--library", "ompi-4", "-n", "16", "--json")
p = json.loads(out)["points"][0] if code == 0 else {}
check("compare --library: knomial radix 4, the ranks' mean 1200.6 ns",
      p.get("generator") == "bcast-knomial" and p.get("model_ns") == 1200.6 and
      p.get("model_over_ranks") == "mean" and
      p.get("library_choice", "").endswith("-> fennel bcast-knomial --radix 4"), out + err)

# Open MPI 3.1's reduce at 64 ranks, 4 B (v3.1.6 line 391: below 2048 B) is the unsegmented
# binomial tree.
code, out, err = fennel("compare", DATA + "osu-allreduce-reduce-3072.txt", "--model", MODEL,
                        "--library", "ompi-3", "-n", "64", "--json")
rows = {r.get("collective"): r for r in json.loads(out).get("points", [])} if code == 0 else {}
check("compare --library ompi-3: reduce binomial",
      rows.get("reduce", {}).get("generator") == "reduce-binomial" and
      ": binomial (coll_tuned_decision_fixed.c v3.1.6 line 391: " in
      rows.get("reduce", {}).get("library_choice", ""), out + err)

# A collective the library has no table for (MPICH 3.3's alltoall) is left out and named;
# an algorithm without a generator is an error at the line of the point (v4.1.6 line 595:
# at 16..31 ranks from 1 MiB Open MPI 4.1 runs scatter_allgather, which at 24 ranks fennel
# has no generator for).
code, out, err = fennel("compare", DATA + "osu-allreduce-alltoall-64.txt", "--model", MODEL,
                        "--library", "mpich-3", "-n", "64")
check("compare --library: no table for alltoall, left out",
      code == 0 and out.splitlines()[-1] ==
      "left out (the library has no table for them): alltoall" and
      "allreduce by mpich-3 (allreduce-rd), 64 ranks: 1 points" in out, out + err)
# The other points are still scored: the point is left out and named, with the first such
# point's message at its line; a file of nothing else is that message as an error.
SCATTER_1M = (
    "osu-bcast-256.txt:6:1: ompi-4 bcast runs scatter_allgather, which no generator of fennel "
    "performs yet (coll_tuned_decision_fixed.c v4.1.6 line 595: comm size 16..31, message >= "
    "1048576 B: algorithm 8; at 24 ranks, not a power of two, its recursive doubling "
    "allgather ends with a halving step fennel's bcast-scatter-rd-allgather does not have)")
code, out, err = fennel("compare", DATA + "osu-bcast-256.txt", "--model", MODEL,
                        "--library", "ompi-4", "-n", "24")
check("compare --library: no generator for the choice, the point left out and named",
      code == 0 and out.splitlines()[-1] ==
      "left out: 1 point where the library runs what no generator of fennel performs "
      "(bcast scatter_allgather); the first: " + DATA + SCATTER_1M and
      "bcast by ompi-4 (bcast-knomial,bcast-bmtree), 24 ranks: 2 points" in out, out + err)
code, out, err = fennel("compare", DATA + "osu-bcast-256.txt", "--model", MODEL,
                        "--library", "ompi-4", "-n", "24", "--json")
doc = json.loads(out) if code == 0 else {}
check("compare --library --json: no_generator, its points and the first message",
      doc.get("no_generator") == "bcast scatter_allgather" and
      doc.get("no_generator_points") == 1 and
      doc.get("no_generator_first") == DATA + SCATTER_1M and
      [p["size_bytes"] for p in doc.get("points", [])] == [8, 16384], out + err)
with tempfile.TemporaryDirectory() as tmp:
    only = os.path.join(tmp, "bcast-1m.txt")
    with open(only, "w") as f:
        f.write("# OSU MPI Broadcast Latency Test v7.4\n# Datatype: MPI_CHAR.\n"
                "# Size       Avg Latency(us)\n1048576               400.00\n")
    expect_error("compare --library: every point without a generator, at its line",
                 ["compare", only, "--model", MODEL, "--library", "ompi-4", "-n", "24"], 1,
                 only + SCATTER_1M[len("osu-bcast-256.txt"):].replace(":6:1:", ":4:1:"))
# Open MPI 3.1 at 256 ranks: binomial at 8 B, the split binary tree in 1 KiB segments at
# 16384 B (line 262), a pipeline at 1 MiB: every point now scored.
code, out, err = fennel("compare", DATA + "osu-bcast-256.txt", "--model", MODEL,
                        "--library", "ompi-3", "-n", "256")
check("compare --library ompi-3: the segmented split binary tree scored",
      code == 0 and "left out" not in out and "bcast by ompi-3 (bcast-bmtree,"
      "bcast-split-bintree,bcast-pipeline), 256 ranks: 3 points" in out, out + err)
# Every allreduce point at 3072 ranks is nonoverlapping, the 512 B one with the in-order
# binary reduce (line 784): all three scored, none left out.
code, out, err = fennel("compare", DATA + "osu-allreduce-reduce-3072.txt", "--model", MODEL,
                        "--library", "ompi-4", "-n", "3072")
check("compare --library: nonoverlapping at 512 B scored too",
      code == 0 and "left out" not in out and
      "allreduce by ompi-4 (allreduce-nonoverlapping), 3072 ranks: 3 points" in out, out + err)
expect_error("compare: --library and --generator",
             ["compare", DATA + "osu-allreduce-8.txt", "--model", MODEL, "--library", "ompi-4",
              "--generator", "allreduce-rd", "-n", "8"], 2,
             "compare: --generator and --library exclude each other")
expect_error("compare: unknown library",
             ["compare", DATA + "osu-allreduce-8.txt", "--model", MODEL, "--library", "mpich-9",
              "-n", "8"], 2,
             "compare: --library: unknown library 'mpich-9' (known: ompi-1.6, ompi-3, ompi-4, ompi-5, mpich-3, mpich-4, nccl)")

# sweep --library: the library is an outer item after the generators; each of its rows runs
# the generator of its choice and names it. Times as above: 8 ranks, 4096 B recursive
# doubling 6745.2 ns; 8192 B Rabenseifner 9364.4 ns; 3072 ranks at 512 B nonoverlapping
# with the in-order binary reduce, 15696.4 ns as above.
with tempfile.TemporaryDirectory() as tmp:
    out_csv = os.path.join(tmp, "s.csv")
    code, out, err = fennel("sweep", "--generate", "allreduce-rd", "--library", "ompi-4",
                            "--collective", "allreduce", "-n", "8,3072", "--size", "512,4096,8192",
                            "--model", MODEL, "-j", "1", "-o", out_csv)
    rows = list(csv.DictReader(open(out_csv))) if code == 0 else []
    lib = [(r["ranks"], r["size_bytes"], r["library_generator"], r["library_algorithm"],
            r["makespan_ns"] if r["ranks"] == "8" or r["size_bytes"] == "512" else "")
           for r in rows
           if r["generator"] == "ompi-4"]
    # 8 ranks, 512 B: 3 x (610 + 0.4 x 512) = 2444.4 ns. 3072 ranks from 4096 B to 16383 B:
    # recursive doubling (line 199); its time is not checked here.
    check("sweep --library: each row's choice and time",
          lib == [("8", "512", "allreduce-rd", "recursive_doubling", "2444.4"),
                  ("8", "4096", "allreduce-rd", "recursive_doubling", "6745.2"),
                  ("8", "8192", "allreduce-rabenseifner", "rabenseifner", "9364.4"),
                  ("3072", "512", "allreduce-nonoverlapping", "nonoverlapping", "15696.4"),
                  ("3072", "4096", "allreduce-rd", "recursive_doubling", ""),
                  ("3072", "8192", "allreduce-rd", "recursive_doubling", "")] and
          all(r["library_choice"] == "" for r in rows if r["generator"] == "allreduce-rd") and
          len(rows) == 12,
          f"{lib} {err}")
    # 24 ranks, 1 MiB: Open MPI 4.1's scatter_allgather bcast (line 595), which no generator
    # performs at a rank count that is not a power of two.
    split_csv = os.path.join(tmp, "split.csv")
    code, out, err = fennel("sweep", "--library", "ompi-4", "--collective", "bcast", "-n", "24",
                            "--size", "1048576", "--model", MODEL, "-j", "1", "-o", split_csv)
    bad = list(csv.DictReader(open(split_csv))) if code == 0 else []
    check("sweep --library: a choice without a generator is the row's error",
          len(bad) == 1 and bad[0]["error"] == "ompi-4 bcast runs scatter_allgather, which no "
          "generator of fennel performs yet" and
          "line 595" in bad[0]["library_choice"], f"{bad} {err}")
    side = json.load(open(out_csv[:-4] + ".json")) if code == 0 else {}
    check("sweep --library: the sidecar names the library and collective",
          side.get("libraries") == ["ompi-4"] and side.get("collective") == "allreduce",
          str(side))

    # tune --library: the library's choice in every cell beside the winner. 8 ranks, 8192 B:
    # allreduce-rd 3 x (610 + 0.4 x 8192) = 11660.4 ns wins alone; ompi-4 runs Rabenseifner,
    # 9364.4 ns, 9364.4 / 11660.4 = 0.8031 of the winner's time.
    table = os.path.join(tmp, "t.csv")
    code, out, err = fennel("tune", "--collective", "allreduce", "--generate", "allreduce-rd",
                            "--library", "ompi-4", "-n", "8", "--size", "8192", "--model", MODEL,
                            "-j", "1", "-o", table)
    text = open(table).read() if code == 0 else ""
    check("tune --library: the library's algorithm, time and ratio to the winner",
          text == "ranks,size_bytes,winner,winner_ns,runner_up,runner_up_ns,margin_ns,"
          "margin_percent,skipped,library,library_algorithm,library_ns,library_over_winner\n"
          "8,8192,allreduce-rd,11660.4,,,,,,ompi-4,rabenseifner,9364.4,0.8031\n", text + err)

expect_error("sweep: --library without --collective",
             ["sweep", "--library", "ompi-4", "-n", "8", "--size", "8", "--model", MODEL,
              "-o", "/nonexistent/x.csv"], 2, "sweep: --library and --collective go together")
expect_error("sweep: unknown library",
             ["sweep", "--library", "ompi-9", "--collective", "allreduce", "-n", "8", "--size",
              "8", "--model", MODEL, "-o", "/nonexistent/x.csv"], 2,
             "--library: unknown library 'ompi-9' (known: ompi-1.6, ompi-3, ompi-4, ompi-5, mpich-3, mpich-4, nccl)")
expect_error("sweep: a library listed twice",
             ["sweep", "--library", "ompi-4,ompi-4", "--collective", "allreduce", "-n", "8",
              "--size", "8", "--model", MODEL, "-o", "/nonexistent/x.csv"], 2,
             "--library: ompi-4 is listed twice")
expect_error("sweep: a collective without a table",
             ["sweep", "--library", "mpich-3", "--collective", "alltoall", "-n", "8", "--size",
              "8", "--model", MODEL, "-o", "/nonexistent/x.csv"], 2,
             "--library mpich-3: no table for the collective 'alltoall'")

# --library nccl: NCCL v2.30.7's own choice (src/run/library_nccl.c), worked by hand in
# tests/test_library.c: one node of 8 GPUs at 64 KiB runs ring LL on 2 channels (ring LL
# 15.0 + 65536 / 80571 = 15.8 us, the fastest; 65536 >= 2 x 512 x 64 B); two nodes of 8 at
# 8192 B tree LL on 2 channels, at 24 MiB NVLS_TREE on 16. Each must run as the generator
# given those options by hand. compare takes the GPUs per node from the preset's rail
# topology (8) when --ppn is not given, and then leaves the model as it is.
H100 = "models/presets/dgx-h100.yaml"


def makespan(text):
    for line in text.splitlines():
        if line.startswith("makespan"):
            return line.split()[1]
    return None


code, out, err = fennel("run", "--model", H100, "--library", "nccl", "--collective", "allreduce",
                        "-n", "8", "--ppn", "8", "--size", "64KiB")
first = out.splitlines()[0] if out else ""
check("run --library nccl: the pick, the time of each algorithm and protocol, the channels",
      code == 0 and first.startswith("library: nccl allreduce, 8 ranks, 64 KiB: ring, protocol "
                                     "LL, 2 channels (NCCL v2.30.7 tuning.cc, 1 node of 8 GPUs")
      and "ring/LL 15.8 us" in first and
      first.endswith("-> fennel nccl-ring --variant ll --partitions 2"), first + err)
code2, out2, err2 = fennel("run", "--model", H100, "--generate", "nccl-ring", "--variant", "ll",
                           "--partitions", "2", "-n", "8", "--size", "64KiB")
check("run --library nccl: runs nccl-ring with that protocol and channel count",
      code2 == 0 and makespan(out) is not None and makespan(out) == makespan(out2),
      f"{makespan(out)} {makespan(out2)} {err2}")
expect_error("run --library nccl: a rank count that is not a multiple of --ppn",
             ["run", "--model", H100, "--library", "nccl", "--collective", "allreduce", "-n",
              "12", "--ppn", "8", "--size", "8"], 2,
             "nccl allreduce: 12 ranks is not a multiple of --ppn 8 (GPUs per node)")
expect_error("run --library nccl: --partitions is NCCL's to choose",
             ["run", "--model", H100, "--library", "nccl", "--collective", "allreduce", "-n",
              "8", "--ppn", "8", "--size", "8", "--partitions", "4"], 2,
             "run: --library chooses the algorithm and its parameters (no --radix, --schedule, "
             "--variant, --partitions or --segment)")

# NVLS only where the model's NVLink switch reduces (its rail topology's nvls: NVLink SHARP,
# which dgx-h100 has and dgx-a100 has not; ncclNvlsInit enables NVLS only there) and on
# Hopper or later (search.cc: no NVLS graph below SM90, so dgx-a100's Ampere rows take none
# even with nvls set). 4 MiB on one server of 8 (tests/test_library.c works both): NVLS 25 +
# 4194304 / 272000 = 40.4 us against ring LL128 62.8 and LL 67.1 on the H100; without NVLS
# ring LL128 on 24 channels. Two servers, 20 MiB: NVLS_TREE 152.0 us against tree LL128 207.2
# and ring LL128 209.1; without it tree LL128. dgx-a100 (sm80, AMD CPUs, 8 NICs of 25 GB/s):
# one server, 4 MiB: ring LL128 40.6 + 4194304 / 126171 = 73.8 us (12 x 20 GB/s doubled to
# 24 channels, x .92 x 8/14) against Simple 86.6 and tree LL128 92.6; two servers, 20 MiB:
# ring LL128 78 + 20971520 / 85333 = 323.8 us against tree LL128 339.8 (test_library.c's
# rows by architecture).
for model, ranks, size, h100, plain, a100 in (
        ("8", "8", "4MiB", "nvls, protocol Simple, 16 channels",
         "ring, protocol LL128, 24 channels", "ring, protocol LL128, 24 channels"),
        ("16", "16", "20MiB", "nvls-tree, protocol Simple, 16 channels",
         "tree, protocol LL128, 16 channels", "ring, protocol LL128, 16 channels")):
    picks = []
    for preset, sets, want in (("dgx-h100", [], h100), ("dgx-a100", [], a100),
                               ("dgx-a100", ["--set", "topology.nvls=true"], a100),
                               ("dgx-h100", ["--set", "topology.nvls=false"], plain)):
        code, out, err = fennel("run", "--model", preset, *sets, "--library", "nccl",
                                "--collective", "allreduce", "-n", ranks, "--ppn", "8",
                                "--size", size)
        picks.append(code == 0 and out.split(": ", 2)[-1].startswith(want) or out + err)
    check(f"run --library nccl {ranks} GPUs {size}: NVLS on dgx-h100, not on dgx-a100",
          picks == [True] * 4, f"{picks}")
expect_error("a rail topology's gpu_arch is one of NCCL's rows",
             ["run", "--model", "dgx-h100", "--set", "topology.gpu_arch=sm70", "--library",
              "nccl", "--collective", "allreduce", "-n", "8", "--size", "1MiB"], 2,
             "--set topology.gpu_arch=sm70: topology.gpu_arch: unknown architecture 'sm70' "
             "(known: sm90, sm80, sm100)")
expect_error("a rail topology's cpu_arch is one of NCCL's rows",
             ["run", "--model", "dgx-h100", "--set", "topology.cpu_arch=power", "--library",
              "nccl", "--collective", "allreduce", "-n", "8", "--size", "1MiB"], 2,
             "--set topology.cpu_arch=power: topology.cpu_arch: unknown architecture 'power' "
             "(known: intel, amd, arm)")
# The keys reach the choice: dgx-h100 with Arm CPUs names its rows (the H100's are not named).
code, out, err = fennel("run", "--model", "dgx-h100", "--set", "topology.cpu_arch=arm",
                        "--library", "nccl", "--collective", "allreduce", "-n", "16", "--ppn",
                        "8", "--size", "1MiB")
check("run --library nccl: the rows of a rail topology's gpu_arch and cpu_arch",
      code == 0 and "2 nodes of 8 GPUs (sm90 GPUs, arm CPUs)" in out, out + err)
expect_error("a rail topology's nvls is true or false",
             ["run", "--model", "dgx-h100", "--set", "topology.nvls=yes", "--generate",
              "nccl-nvls", "-n", "8", "--size", "1MiB"], 2,
             "--set topology.nvls=yes: topology.nvls: 'yes' is not true or false")

# At one GPU per node NCCL picks PAT for a 45000 B allgather of 4 (docs/LIBRARIES.md works
# it: pat/Simple 27.9 us against ring/LL 28.2 us): run runs it as nccl-pat-allgather with
# NCCL's 16 channels, the time of that generator run by hand.
code, out, err = fennel("run", "--model", H100, "--library", "nccl", "--collective", "allgather",
                        "--ranks", "4", "--size", "45000")
code2, out2, err2 = fennel("run", "--model", H100, "--generate", "nccl-pat-allgather",
                           "--variant", "simple", "--partitions", "16", "--ranks", "4",
                           "--size", "45000")
check("run --library nccl: a PAT pick runs nccl-pat-allgather",
      code == 0 and code2 == 0 and makespan(out) is not None and
      makespan(out) == makespan(out2) and
      out.startswith("library: nccl allgather, 4 ranks, 45000 B: pat, ") and
      "-> fennel nccl-pat-allgather --variant simple --partitions 16\n" in out,
      out + err + err2)
code, out, err = fennel("compare", DATA + "nccl-allreduce-16.txt", "--model", H100, "--library",
                        "nccl", "--json")
doc = json.loads(out) if code == 0 else {"points": []}
got = [(p["size_bytes"], p["generator"], p["library_algorithm"],
        p["library_choice"].split(" -> ")[-1]) for p in doc["points"]]
check("compare --library nccl: each point runs NCCL's pick",
      got == [(8192, "nccl-tree", "tree", "fennel nccl-tree --variant ll --partitions 2"),
              (25165824, "nccl-nvls-tree", "nvls-tree",
               "fennel nccl-nvls-tree --variant simple --partitions 16")],
      f"{got} {err}")
# nccl-tests' time is the average over the ranks (its -a 1, the default): the mean of the
# ranks' times of the run (sweep rows below are makespans).
by_hand, by_hand_makespan = [], []
for gen, variant, parts, size in (("nccl-tree", "ll", "2", "8192"),
                                  ("nccl-nvls-tree", "simple", "16", "25165824")):
    # both generators take the preset's 8 GPUs per server, as compare gives them
    c, o, e = fennel("run", "--model", H100, "--generate", gen, "--variant", variant,
                     "--partitions", parts, "-n", "16", "--size", size, "--ppn", "8", "--json")
    doc_run = json.loads(o) if c == 0 else {}
    ends = doc_run.get("rank_finish_ns", [])
    by_hand.append(sum(ends) / len(ends) if ends else None)
    by_hand_makespan.append(doc_run.get("makespan_ns"))
model = [p["model_ns"] for p in doc["points"]]
check("compare --library nccl: each point's time is its generator's with those options",
      len(model) == 2 and None not in by_hand and
      all(abs(m - x) <= 1e-8 * x for m, x in zip(model, by_hand)),
      f"{model} {by_hand}")

# compare --in-place scores nccl-tests' in-place time column (its second group) instead of
# the out-of-place one. nccl-allreduce-16.txt: 40.00 and 400.0 us out of place, 32.00 and 384.0
# in place; busbw = S / t x 2(n - 1)/n = S / t x 30/16: 8192 / 40 us = 0.2048 GB/s -> 0.384,
# 8192 / 32 us -> 0.48, 25165824 / 400 us = 62.91456 -> 117.9648, 25165824 / 384 us = 65.536
# -> 122.88 GB/s.
sides = {}
for flag in ([], ["--in-place"]):
    c, o, e = fennel("compare", DATA + "nccl-allreduce-16.txt", "--model", H100, "--json", *flag)
    d = json.loads(o) if c == 0 else {"points": []}
    sides[bool(flag)] = [(p["measured_ns"], round(p["busbw_measured_gbps"], 6))
                         for p in d["points"]]
check("compare --in-place: the in-place column, busbw by nccl-tests' formula",
      sides == {False: [(40000, 0.384), (400000, 117.9648)],
                True: [(32000, 0.48), (384000, 122.88)]}, str(sides))
expect_error("compare --in-place: only nccl-tests logs have the column",
             ["compare", DATA + "osu-allreduce-8.txt", "--model", MODEL, "-n", "8", "--in-place"],
             1, DATA + "osu-allreduce-8.txt:3:1: --in-place: only nccl-tests logs have an "
             "in-place time")

# compare --collective: a log without its test line (nccl-allreduce-16-unnamed.txt: the same
# rows behind srun's "0: " label) is named by the option, and then runs as the named log does.
expect_error("compare --library nccl: an nccl-tests log that does not name its collective",
             ["compare", DATA + "nccl-allreduce-16-unnamed.txt", "--model", H100, "--library",
              "nccl"], 1,
             DATA + "nccl-allreduce-16-unnamed.txt:21:1: the nccl-tests log does not name its "
             "collective (give --collective NAME)")
code, out, err = fennel("compare", DATA + "nccl-allreduce-16-unnamed.txt", "--model", H100,
                        "--library", "nccl", "--collective", "allreduce", "--json")
doc2 = json.loads(out) if code == 0 else {"points": []}
check("compare --collective: the unnamed log runs as the named one",
      [(p["size_bytes"], p["generator"], p["model_ns"], p["busbw_measured_gbps"])
       for p in doc2["points"]] ==
      [(p["size_bytes"], p["generator"], p["model_ns"], p["busbw_measured_gbps"])
       for p in doc["points"]] and len(doc2["points"]) == 2, out + err)
expect_error("compare --collective: a name nccl-tests does not have",
             ["compare", DATA + "nccl-allreduce-16-unnamed.txt", "--model", H100,
              "--collective", "all_reduce"], 2,
             "compare: --collective: expected allreduce, allgather, reduce_scatter, bcast, "
             "reduce or alltoall")

# sweep --library nccl: each row runs NCCL's pick with its protocol and channels (16 GPUs, 8
# per node: 8192 B tree LL on 2 channels, 24 MiB NVLS_TREE on NVLS's 16, as above).
with tempfile.TemporaryDirectory() as tmp:
    out_csv = os.path.join(tmp, "s.csv")
    code, out, err = fennel("sweep", "--library", "nccl", "--collective", "allreduce", "-n", "16",
                            "--ppn", "8", "--size", "8192,25165824", "--model", H100, "-j", "1",
                            "-o", out_csv)
    rows = list(csv.DictReader(open(out_csv))) if code == 0 else []
    got = [(r["size_bytes"], r["library_generator"], r["library_algorithm"],
            r["library_choice"].split(" -> ")[-1], r["makespan_ns"]) for r in rows]
    check("sweep --library nccl: each row's pick, protocol and channels",
          [g[:4] for g in got] ==
          [("8192", "nccl-tree", "tree", "fennel nccl-tree --variant ll --partitions 2"),
           ("25165824", "nccl-nvls-tree", "nvls-tree",
            "fennel nccl-nvls-tree --variant simple --partitions 16")]
          and [g[4] for g in got] == [str(round(x, 3)) if x is not None else None
                                      for x in by_hand_makespan] if len(got) == 2 else False,
          f"{got} {by_hand_makespan} {err}")

# bcast-bmtree, Open MPI's binomial tree numbering (coll_base_topo.c): 8 ranks, 1 B under
# thesis-figures. The root sends to 1, 2, 4 at 0, 100, 200 ns (each arrives 600.4 ns after it
# leaves): 600.4, 700.4, 800.4. Rank 1 sends to 3, 5: 1200.8, 1300.8; rank 2 to 6: 1300.8;
# rank 3 to 7: 1801.2 (the makespan bcast-binomial has too, on the other numbering). A rank
# finishes when it has the data and its last put has left (100 ns after it starts): the
# root at 300, rank 1 at 800.4, rank 2 at 800.4, rank 3 at 1300.8; leaves when it arrives.
code, out, err = run("-g", "bcast-bmtree", "-n", "8", "--size", "1", "--json")
got = json.loads(out).get("rank_finish_ns") if code == 0 else None
check("bcast-bmtree: each rank's finish on Open MPI's numbering",
      got == [300, 800.4, 800.4, 1300.8, 800.4, 1300.8, 1300.8, 1801.2], f"{got} {err}")

# mpich-3: MPICH v3.3.2's allreduce runs recursive doubling at every size (allreduce.c
# line 186 with nbytes 0); at 8 ranks, 64 KiB: 3 x (610 + 0.4 x 65536) = 3 x 26824.4 =
# 80473.2 ns.
code, out, err = run("--library", "mpich-3", "--collective", "allreduce", "-n", "8", "--size",
                     "64KiB")
check("mpich-3 allreduce 8 ranks 64 KiB: recursive doubling, 80473.2 ns",
      code == 0 and out.startswith("library: mpich-3 allreduce, 8 ranks, 64 KiB: "
                                   "recursive_doubling (allreduce.c v3.3.2 line 186") and
      "makespan     80473.2 ns" in out, out + err)

# bcast-scatter-rd-allgather (MPICH's scatter + recursive doubling allgather), 4 ranks,
# 4096 B (blocks of 1024 B) under thesis-figures; a put leaves its sender busy 100 ns and
# arrives 600 + 0.4 s ns after it leaves. Scatter: 0 -> 2 blocks 2-3 (2048 B) at 0, there at
# 1419.2; 0 -> 1 block 1 at 100, there at 1109.6; 2 -> 3 block 3 at 1419.2, there at 2428.8.
# Allgather distance 1 (1024 B, 1009.6 ns): 0 -> 1 at 200 (there 1209.6), 1 -> 0 at 1109.6
# (there 2119.2), 2 -> 3 at 1519.2 (2528.8), 3 -> 2 at 2428.8 (3438.4). Distance 2 (2048 B,
# 1419.2 ns): 0 -> 2 at 2119.2 (3538.4), 2 -> 0 at 3438.4 (4857.6), 1 -> 3 at 1209.6 (2628.8),
# 3 -> 1 at 2528.8 (3948). Finishes 4857.6, 3948, 3538.4, 2628.8.
code, out, err = run("-g", "bcast-scatter-rd-allgather", "-n", "4", "--size", "4096", "--json")
got = json.loads(out).get("rank_finish_ns") if code == 0 else None
check("bcast-scatter-rd-allgather 4 ranks 4 KiB: each rank's finish",
      got == [4857.6, 3948, 3538.4, 2628.8], f"{got} {err}")
expect_error("bcast-scatter-rd-allgather: a power of two only",
             ["run", "--model", MODEL, "-g", "bcast-scatter-rd-allgather", "-n", "6", "--size",
              "64"], 1,
             "bcast-scatter-rd-allgather needs a power of two --ranks and --root in "
             "0..--ranks-1, got --ranks 6 --root 0")
# mpich-3 bcast, 8 ranks, 12288 B (bcast.c line 207: from 12288 B below 524288 B on a
# power-of-two communicator of at least 8 ranks).
code, out, err = run("--library", "mpich-3", "--collective", "bcast", "-n", "8", "--size",
                     "12288")
check("mpich-3 bcast 8 ranks 12 KiB: scatter + recursive doubling allgather",
      code == 0 and out.splitlines()[0].endswith("-> fennel bcast-scatter-rd-allgather"),
      out + err)
expect_error("allreduce-nonoverlapping: an unknown --variant",
             ["run", "--model", MODEL, "-g", "allreduce-nonoverlapping", "-n", "8",
              "--variant", "binary:binomial"], 2,
             "allreduce-nonoverlapping: --variant binary:binomial: expected REDUCE:BCAST with "
             "REDUCE binomial, inorder-binary or linear and BCAST binomial, knomial, binary, "
             "linear, split-bintree or pipeline")
expect_error("reduce-scatter-nonoverlapping: an unknown --variant",
             ["run", "--model", MODEL, "-g", "reduce-scatter-nonoverlapping", "-n", "8",
              "--variant", "binomial:linear"], 2,
             "reduce-scatter-nonoverlapping: --variant binomial:linear: expected REDUCE "
             "binomial, inorder-binary, binary or linear")
expect_error("allreduce-nonoverlapping: --segment with a part that has no segments",
             ["run", "--model", MODEL, "-g", "allreduce-nonoverlapping", "-n", "8",
              "--size", "4000B", "--segment", "1000B", "--variant", "binomial:knomial"], 2,
             "allreduce-nonoverlapping: --segment 1000 cuts the buffer, which only REDUCE "
             "binomial and BCAST split-bintree or pipeline take, not --variant binomial:knomial")

# allgather-neighbor-exchange (Chen et al. 2005; Open MPI's "neighbor"), 6 ranks, 1000 B per
# rank: step 0 puts 1000 B to the pair's other rank (600 + 400 = 1000 ns), then p/2 - 1 = 2
# steps of 2000 B (600 + 800 = 1400 ns each): every rank finishes at 3800 ns.
code, out, err = run("-g", "allgather-neighbor-exchange", "-n", "6", "--size", "1000", "--json")
got = json.loads(out).get("rank_finish_ns") if code == 0 else None
check("allgather-neighbor-exchange 6 ranks 1000 B: 1000 + 2 x 1400 ns", got == [3800] * 6,
      f"{got} {err}")
for n in ("2", "6", "10", "12", "14", "16", "30", "64"):
    code, out, err = fennel("verify", "--generate", "allgather-neighbor-exchange", "--ranks", n)
    check(f"verify allgather-neighbor-exchange {n} ranks",
          code == 0 and out == f"allgather-neighbor-exchange: ok: allgather over {n} ranks, "
          f"{n} blocks\n", out + err)
expect_error("allgather-neighbor-exchange: even ranks only",
             ["run", "--model", MODEL, "-g", "allgather-neighbor-exchange", "-n", "7"], 1,
             "allgather-neighbor-exchange needs an even --ranks, got 7")
# ompi-4 allgather, 32 ranks, 1024 B per rank: neighbor (v4.1.6 line 1126: 32..63 ranks,
# 1024..65535 B), 16 steps: 600 + 409.6 = 1009.6 ns, then 15 x (600 + 819.2) = 21288 ns.
code, out, err = run("--library", "ompi-4", "--collective", "allgather", "-n", "32", "--size",
                     "1024")
check("ompi-4 allgather 32 ranks 1 KiB: neighbor exchange, 22297.6 ns",
      code == 0 and out.splitlines()[0] == "library: ompi-4 allgather, 32 ranks, 1 KiB: "
      "neighbor (coll_tuned_decision_fixed.c v4.1.6 line 1126: comm size 32..63, message "
      "1024..65535 B: algorithm 5) -> fennel allgather-neighbor-exchange" and
      "makespan     22297.6 ns" in out, out + err)
# ompi-5 allgather, 24 ranks, 8 B: recursive doubling (line 1121), 24 is no power of two, so
# coll/base runs bruck: 5 steps of 1, 2, 4, 8, 8 blocks (8, 16, 32, 64, 64 B): 5 x 600 +
# 0.4 x 184 = 3073.6 ns.
code, out, err = run("--library", "ompi-5", "--collective", "allgather", "-n", "24", "--size",
                     "8")
check("ompi-5 allgather 24 ranks 8 B: bruck, 3073.6 ns",
      code == 0 and "recursive_doubling falls back to bruck: 24 ranks is not a power of two" in
      out and out.splitlines()[0].endswith("-> fennel allgather-bruck") and
      "makespan     3073.6 ns" in out, out + err)

# Open MPI 5's coll/han (coll_han_component.c v5.0.10 line 94: priority 35 over coll/tuned's
# 30) when ranks share nodes and span several: 4 ranks, 2 per node, 8 B: allreduce-smp.
# Under the flat thesis-figures model (run sets no ranks_per_node): reduce in each node, 1 -> 0
# and 3 -> 2, 603.2 + 10 ns; the leaders 0 and 2 exchange, 603.2 + 10 ns; bcast in each node,
# 0 -> 1 and 2 -> 3, 603.2 ns: 1829.6 ns.
code, out, err = run("--library", "ompi-5", "--collective", "allreduce", "-n", "4", "--ppn",
                     "2", "--size", "8")
check("ompi-5 allreduce 4 ranks, 2 per node: coll/han as allreduce-smp, 1829.6 ns",
      code == 0 and out.startswith("library: ompi-5 allreduce, 4 ranks, 8 B: han "
                                   "(coll_han_component.c v5.0.10 line 94") and
      out.splitlines()[0].endswith("-> fennel allreduce-smp") and
      "makespan     1829.6 ns" in out, out + err)
# The same 4 ranks on one node of 4: HAN disqualifies itself, and coll/tuned's line 139 (4..7
# ranks below 16 B) picks the ring, whose count 2 < 4 ranks falls back to recursive doubling;
# --ppn is not passed to allreduce-rd: 2 x 613.2 = 1226.4 ns.
code, out, err = run("--library", "ompi-5", "--collective", "allreduce", "-n", "4", "--ppn",
                     "4", "--size", "8")
check("ompi-5 allreduce on one node: coll/tuned, 1226.4 ns",
      code == 0 and "coll/han disqualifies itself" in out and
      out.splitlines()[0].endswith("-> fennel allreduce-rd") and
      "makespan     1226.4 ns" in out, out + err)
# Above one 65536 B segment HAN pipelines: its bcast and reduce two levels one segment
# apart, its allreduce four levels on four segments at once; the SMP generators in segments
# of 65536 B (their times: tests/cli/test_generate.py).
lines = {"bcast": 60, "reduce": 61, "allreduce": 82}
for coll in ("bcast", "reduce", "allreduce"):
    code, out, err = run("--library", "ompi-5", "--collective", coll, "-n", "8", "--ppn", "4",
                         "--size", "65537")
    check(f"ompi-5 {coll} across nodes above 64 KiB: HAN's pipeline",
          code == 0 and out.startswith(f"library: ompi-5 {coll}, 8 ranks, 65537 B: han, "
                                       "segment 64 KiB (") and
          f"coll_han_{coll}.c v5.0.10 line {lines[coll]}" in out and
          out.splitlines()[0].endswith(f"-> fennel {coll}-smp --segment 65536"), out + err)
# compare --ppn 4 -n 8 (2 nodes of 4), osu-allreduce-8.txt: messages inside a node take the
# shared-memory default, postal 300 ns + 0.1 ns/B; between the leaders 600 + 0.4 s ns; each
# reducing stage adds 10 ns. At 4 B: in each node 1 -> 0 (310.4), 2 -> 0 (620.8), leaders
# 601.6 + 10 (1232.4), bcast 0 -> 2 (1532.8), 2 -> 3 (1833.2). At 4096 B: 719.6, 1439.2,
# 3687.6, 4397.2, 5106.8.
code, out, err = fennel("compare", DATA + "osu-allreduce-8.txt", "--model", MODEL,
                        "--library", "ompi-5", "-n", "8", "--ppn", "4", "--json")
doc = json.loads(out) if code == 0 else {"points": []}
got = [(p["size_bytes"], p["generator"], p["library_algorithm"], round(p["model_ns"], 6))
       for p in doc["points"]][:2]
check("compare --library ompi-5 --ppn 4: coll/han's levels",
      got == [(4, "allreduce-smp", "han", 1833.2), (4096, "allreduce-smp", "han", 5106.8)],
      f"{got} {err}")
# Open MPI's scatter_allgather bcast (binomial scatter, recursive doubling allgather) at 16
# ranks, a power of two: bcast-scatter-rd-allgather; at 24 it is refused.
code, out, err = run("--library", "ompi-4", "--collective", "bcast", "-n", "16", "--size",
                     "1048576")
check("ompi-4 bcast 16 ranks 1 MiB: scatter_allgather as bcast-scatter-rd-allgather",
      code == 0 and out.splitlines()[0].endswith("-> fennel bcast-scatter-rd-allgather"),
      out + err)
code, out, err = run("--library", "ompi-4", "--collective", "bcast", "-n", "24", "--size",
                     "1048576")
check("ompi-4 bcast 24 ranks 1 MiB: scatter_allgather off a power of two, refused",
      code == 1 and "at 24 ranks, not a power of two" in out and
      err == "fennel: ompi-4 bcast runs scatter_allgather, which no generator of fennel "
      "performs yet\n", out + err)

# sweep --library ompi-5 --ppn 1,4 at 8 ranks, 8 B: one rank per node, coll/tuned's recursive
# doubling (line 147), 3 x 613.2 = 1839.6 ns; 4 per node, 2 nodes: coll/han as allreduce-smp,
# under the flat model 2 x 613.2 in the nodes, 613.2 between the leaders, 2 x 603.2 back:
# 3046 ns.
with tempfile.TemporaryDirectory() as tmp:
    out_csv = os.path.join(tmp, "s.csv")
    code, out, err = fennel("sweep", "--library", "ompi-5", "--collective", "allreduce", "-n",
                            "8", "--ppn", "1,4", "--size", "8", "--model", MODEL, "-j", "1",
                            "-o", out_csv)
    rows = list(csv.DictReader(open(out_csv))) if code == 0 else []
    got = [(r["ppn"], r["library_generator"], r["library_algorithm"], r["makespan_ns"])
           for r in rows]
    check("sweep --library ompi-5 --ppn: coll/tuned on one rank per node, coll/han on four",
          got == [("1", "allreduce-rd", "recursive_doubling", "1839.6"),
                  ("4", "allreduce-smp", "han", "3046")], f"{got} {err}")

# reduce-bintree, Open MPI's binary tree (coll_base_topo.c): 5 ranks from root 0 have levels
# {0}, {1, 2}, {3, 4}; 3 and 4 are the children of 1 and 2 (v + 2^L), not both of 1 as in
# the heap. 8 B under thesis-figures: 3 -> 1 and 4 -> 2 at 0 (there 603.2, reduced 613.2),
# 1 -> 0 and 2 -> 0 at 613.2 (there 1216.4, reduced 1226.4). A sender is busy 100 ns: ranks
# 3 and 4 finish at 100, 1 and 2 at 713.2.
code, out, err = run("-g", "reduce-bintree", "-n", "5", "--size", "8", "--json")
got = json.loads(out).get("rank_finish_ns") if code == 0 else None
check("reduce-bintree 5 ranks 8 B: each rank's finish", got == [1226.4, 713.2, 713.2, 100, 100],
      f"{got} {err}")
for n, root in (("2", "0"), ("5", "0"), ("6", "5"), ("11", "7"), ("16", "0"), ("31", "3")):
    code, out, err = fennel("verify", "--generate", "reduce-bintree", "--ranks", n, "--root",
                            root)
    check(f"verify reduce-bintree {n} ranks root {root}",
          code == 0 and out.startswith(f"reduce-bintree: ok: reduce over {n} ranks from root "
                                       f"{root}, 1 block"), out + err)
# ompi-4 reduce, 16 ranks, 100 B: binary (v4.1.6 line 764: 16..31 ranks below 4096 B).
code, out, err = run("--library", "ompi-4", "--collective", "reduce", "-n", "16", "--size",
                     "100")
check("ompi-4 reduce 16 ranks 100 B: binary as reduce-bintree",
      code == 0 and out.splitlines()[0] == "library: ompi-4 reduce, 16 ranks, 100 B: binary "
      "(coll_tuned_decision_fixed.c v4.1.6 line 764: comm size 16..31, message < 4096 B: "
      "algorithm 4) -> fennel reduce-bintree", out + err)

finish()
