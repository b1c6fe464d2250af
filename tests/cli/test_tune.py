#!/usr/bin/env python3
"""CLI tests of fennel tune: the winners of a grid whose crossover is derived by hand, the
decision table (CSV, JSON), the Open MPI rules file checked against Open MPI's grammar and
lookup, --from and --sweep, substitutions, the heat map's SVG, and bad input.

Usage: test_tune.py FENNEL SOURCE_ROOT. Prints TAP.
"""
import csv
import io
import json
import os
import re
import tempfile
import xml.etree.ElementTree as ET

from harness import check, expect_error, fennel, finish

# The analytic grid. Under postal a message of s bytes takes alpha + s beta and keeps its
# sender busy until it arrives; with alpha = 1000 ns and beta = 1 ns/B, p ranks (a power of
# two) and an n-byte vector:
#   allreduce-rd:   log2(p) exchanges of n bytes:      T_rd   = log2(p) (1000 + n)
#   allreduce-ring: 2(p-1) steps of n/p bytes:        T_ring = 2(p-1) (1000 + n/p)
# p = 4: T_rd = 2000 + 2n, T_ring = 6000 + 1.5n, equal at 0.5n = 4000, n = 8000.
#   n = 4000:  rd 10000, ring 12000  -> rd by 2000 (20.00 %)
#   n = 8000:  rd 18000, ring 18000  -> a tie: the first of --generate (rd), margin 0
#   n = 8192:  rd 18384, ring 18288  -> ring by 96 (96/18288 = 0.52 %)
#   n = 16384: rd 34768, ring 30576  -> ring by 4192 (13.71 %)
# p = 8: T_rd = 3000 + 3n, T_ring = 14000 + 1.75n, equal at 1.25n = 11000, n = 8800.
#   n = 4000:  rd 15000, ring 21000  -> rd by 6000 (40.00 %)
#   n = 8000:  rd 27000, ring 28000  -> rd by 1000 (3.70 %)
#   n = 8192:  rd 27576, ring 28336  -> rd by 760 (2.76 %)
#   n = 16384: rd 52152, ring 42672  -> ring by 9480 (22.22 %)
MODEL = ["--network", "postal", "--set", "alpha=1000ns", "--set", "beta=1ns/B"]
GRID = ["--collective", "allreduce", "--generate", "allreduce-rd,allreduce-ring",
        "--ranks", "4,8", "--size", "4000,8000,8192,16384", *MODEL, "--jobs", "2"]
TABLE = """ranks,size_bytes,winner,winner_ns,runner_up,runner_up_ns,margin_ns,margin_percent,skipped
4,4000,allreduce-rd,10000,allreduce-ring,12000,2000,20.00,
4,8000,allreduce-rd,18000,allreduce-ring,18000,0,0.00,
4,8192,allreduce-ring,18288,allreduce-rd,18384,96,0.52,
4,16384,allreduce-ring,30576,allreduce-rd,34768,4192,13.71,
8,4000,allreduce-rd,15000,allreduce-ring,21000,6000,40.00,
8,8000,allreduce-rd,27000,allreduce-ring,28000,1000,3.70,
8,8192,allreduce-rd,27576,allreduce-ring,28336,760,2.76,
8,16384,allreduce-ring,42672,allreduce-rd,52152,9480,22.22,
"""
# Open MPI's allreduce algorithms (coll_tuned_allreduce_decision.c): 3 recursive_doubling,
# 4 ring; the collective id of allreduce is 2 (COLLTYPE, coll_base_functions.h).
RULES = """# Open MPI coll_tuned dynamic rules (classic format) for Open MPI 5.0, written by fennel tune --ompi-version 5.0.
# Use: mpirun --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_dynamic_rules_filename FILE ...
# Message sizes are in bytes as Open MPI counts them for allreduce (the whole buffer).
# Each communicator size is the smallest its rules apply to (the first's to smaller ones too).
1 # collectives
2 # allreduce
2 # communicator sizes
4 # ranks
2 # message sizes
0 3 0 0 # recursive_doubling
8192 4 0 0 # ring
8 # ranks
2 # message sizes
0 3 0 0 # recursive_doubling
16384 4 0 0 # ring
"""


def parse_rules(text):
    """Open MPI's classic rules grammar (coll_tuned_dynamic_file.c, 3.x to 5.x), strictly:
    whole numbers separated by white space, '#' to the end of a line a comment;
        file       := NCOL collective{NCOL}
        collective := ID NCOMSIZES comm{NCOMSIZES}          (0 <= ID < 22, COLLCOUNT)
        comm       := COMSIZE NMSGSIZES msg{NMSGSIZES}
        msg        := MSGSIZE ALG FANINOUT SEGSIZE          (all >= 0)
    where the first MSGSIZE of every comm is 0 (Open MPI refuses the file otherwise) and
    sizes ascend (its lookup stops at the first larger one). Open MPI's reader skips any
    other character; this checker refuses it, and numbers with a leading 0 (which %li would
    read as octal). Returns {collective id: [(comsize, [(msgsize, alg, faninout, segsize)])]}."""
    tokens = []
    for number, line in enumerate(text.splitlines(), 1):
        for word in line.split("#", 1)[0].split():
            if not re.fullmatch(r"0|[1-9][0-9]*", word):
                raise ValueError(f"line {number}: {word!r} is not a whole number")
            tokens.append(int(word))
    tokens.reverse()

    def take(what):
        if not tokens:
            raise ValueError(f"the file ends before {what}")
        return tokens.pop()

    rules = {}
    for _ in range(take("the number of collectives")):
        cid = take("a collective id")
        if cid >= 22 or cid in rules:
            raise ValueError(f"collective id {cid} out of range or repeated")
        comms = []
        for _ in range(take("the number of communicator sizes")):
            comsize = take("a communicator size")
            if comms and comsize <= comms[-1][0]:
                raise ValueError(f"communicator size {comsize} does not ascend")
            msgs = []
            for _ in range(take("the number of message sizes")):
                msg = (take("a message size"), take("an algorithm"), take("a fan-in/out"),
                       take("a segment size"))
                if not msgs and msg[0] != 0:
                    raise ValueError("the first message rule is not for size 0")
                if msgs and msg[0] <= msgs[-1][0]:
                    raise ValueError(f"message size {msg[0]} does not ascend")
                msgs.append(msg)
            comms.append((comsize, msgs))
        rules[cid] = comms
    if tokens:
        raise ValueError(f"{len(tokens)} numbers after the last collective")
    return rules


def lookup(rules, cid, comsize, msgsize):
    """Open MPI's choice (coll_tuned_dynamic_rules.c): the last communicator rule whose
    size is at most comsize, else the first; in it the last message rule at most msgsize."""
    comms = rules[cid]
    chosen = comms[0]
    for comm in comms:
        if comm[0] > comsize:
            break
        chosen = comm
    alg = chosen[1][0]
    for msg in chosen[1]:
        if msg[0] > msgsize:
            break
        alg = msg
    return alg[1]


def lookup_upper(rules, cid, comsize, msgsize):
    """Open MPI 6.0's and main's choice (coll_tuned_dynamic_file.c reads communicator rule i
    as sizes [bound(i-1), bound(i) - 1], the first from 0 and the last to INT_MAX;
    coll_tuned_dynamic_rules.c takes the first rule whose range holds comsize, and in it the
    first message rule whose range [size(j), size(j+1) - 1] holds msgsize)."""
    comms = rules[cid]
    low = 0
    for i, (bound, msgs) in enumerate(comms):
        high = 2 ** 31 - 1 if i == len(comms) - 1 else bound - 1
        if low <= comsize <= high:
            alg = msgs[0]
            for msg in msgs:
                if msg[0] > msgsize:
                    break
                alg = msg
            return alg[1]
        low = bound
    return None


with tempfile.TemporaryDirectory() as tmp:
    def path(name):
        return os.path.join(tmp, name)

    def read(name):
        try:
            with open(path(name), encoding="utf-8") as f:
                return f.read()
        except OSError:
            return ""


    # The table names the analytic winner on each side of the crossover.
    code, out, err = fennel("tune", *GRID, "-o", path("t.csv"))
    check("tune writes the decision table quietly", code == 0 and out == "" and err == "", err)
    check("the table's winners, times and margins are the hand-derived ones",
          read("t.csv") == TABLE, read("t.csv"))

    # Of equal times the first of --generate wins: reversed, the tie goes to the ring.
    code, out, err = fennel("tune", *GRID[:3], "allreduce-ring,allreduce-rd", *GRID[4:],
                            "-o", path("r.csv"))
    tie = [r for r in csv.DictReader(io.StringIO(read("r.csv")))
           if r["ranks"] == "4" and r["size_bytes"] == "8000"]
    check("a tie goes to the first of --generate",
          code == 0 and len(tie) == 1 and tie[0]["winner"] == "allreduce-ring" and
          tie[0]["runner_up"] == "allreduce-rd" and tie[0]["margin_ns"] == "0", tie)

    # The rules file: exact, parsed by Open MPI's grammar, and Open MPI's lookup picks the
    # analytic winner at every cell, for rank counts between and beyond the grid's too.
    code, out, err = fennel("tune", *GRID, "--format", "ompi", "-o", path("t.rules"))
    check("tune --format ompi writes the rules quietly", code == 0 and out == "" and err == "",
          err)
    check("the rules file is the expected one", read("t.rules") == RULES, read("t.rules"))
    try:
        rules = parse_rules(read("t.rules"))
        parsed = ""
    except ValueError as e:
        rules, parsed = None, str(e)
    check("the rules file parses with Open MPI's grammar", rules is not None, parsed)
    expected = {(4, 4000): 3, (4, 8000): 3, (4, 8192): 4, (4, 16384): 4,
                (8, 4000): 3, (8, 8000): 3, (8, 8192): 3, (8, 16384): 4}
    if rules:
        wrong = {k: lookup(rules, 2, *k) for k, v in expected.items()
                 if lookup(rules, 2, *k) != v}
        check("Open MPI's lookup picks recursive doubling below and ring above the crossover",
              not wrong, wrong)
        # Communicators of 5 to 7 ranks take the 4-rank rules, 16 the 8-rank ones, 2 the
        # first ones; a size between grid points keeps the rule of the one below.
        between = [lookup(rules, 2, 6, 8191), lookup(rules, 2, 6, 8192),
                   lookup(rules, 2, 16, 8192), lookup(rules, 2, 16, 10 ** 9),
                   lookup(rules, 2, 2, 0)]
        check("rank counts and sizes between the grid's take the rule below",
              between == [3, 4, 3, 4, 3], between)

    # Segments: the sweep's segment_bytes column tells candidates apart, and a pipeline's
    # rule carries its segment as SEGSIZE. Under the same postal model, 8 ranks: the
    # binomial bcast is 3 (1000 + n); bcast-pipeline in S segments of s bytes is (S + 6)
    # (1000 + s) (docs/COLLECTIVES.md, Segments). n = 1000: binomial 6000, either pipeline
    # one segment, 7 x 2000 = 14000 -> binomial. n = 64000: binomial 195000; s = 4000, S = 16:
    # 22 x 5000 = 110000; s = 8000, S = 8: 14 x 9000 = 126000 -> the pipeline of 4000 B,
    # Open MPI's bcast 7, algorithm 3 (pipeline) with SEGSIZE 4000.
    code, out, err = fennel("tune", "--collective", "bcast", "--generate",
                            "bcast-binomial,bcast-pipeline", "--segment", "4000,8000",
                            "--ranks", "8", "--size", "1000,64000", *MODEL, "--format", "ompi",
                            "-o", path("seg.rules"))
    body = [line.split("#")[0].split() for line in read("seg.rules").splitlines()
            if not line.startswith("#")] if code == 0 else []
    check("tune: bcast-pipeline's segment is the rule's SEGSIZE",
          body == [["1"], ["7"], ["1"], ["8"], ["2"], ["0", "6", "0", "0"],
                   ["64000", "3", "0", "4000"]], (body, err))
    code, out, err = fennel("tune", "--collective", "bcast", "--generate",
                            "bcast-binomial,bcast-pipeline", "--segment", "4000,8000",
                            "--ranks", "8", "--size", "64000", *MODEL, "-o", path("seg.csv"))
    rows = list(csv.DictReader(io.StringIO(read("seg.csv")))) if code == 0 else []
    check("tune: the segments are candidates, labelled by segment_bytes",
          [(r["winner"], r["winner_ns"], r["runner_up"], r["runner_up_ns"]) for r in rows] ==
          [("bcast-pipeline segment_bytes=4000", "110000", "bcast-pipeline segment_bytes=8000",
            "126000")], (rows, err))

    # The same for a reduce, free reductions, where the binomial tree takes --segment too:
    # reduce-pipeline in S segments of s bytes is (S + 6)(1000 + s), the chain run backwards,
    # and reduce-binomial (S + 2)(1000 + s), its root's subtree 3 high (docs/COLLECTIVES.md,
    # Segments). n = 1000 (one segment): binomial 3 x 2000 = 6000, the pipeline 7 x 2000 =
    # 14000; n = 64000 in 16 segments of 4000 B: binomial 18 x 5000 = 90000, the pipeline
    # 22 x 5000 = 110000 -> Open MPI's reduce 11, algorithm 5 (binomial) with SEGSIZE 4000
    # from 0, one rule for both sizes.
    code, out, err = fennel("tune", "--collective", "reduce", "--generate",
                            "reduce-binomial,reduce-pipeline", "--segment", "4000",
                            "--ranks", "8", "--size", "1000,64000", *MODEL, "--format", "ompi",
                            "-o", path("seg-reduce.rules"))
    body = [line.split("#")[0].split() for line in read("seg-reduce.rules").splitlines()
            if not line.startswith("#")] if code == 0 else []
    check("tune: reduce-binomial's segment is the rule's SEGSIZE",
          body == [["1"], ["11"], ["1"], ["8"], ["1"], ["0", "5", "0", "4000"]], (body, err))
    code, out, err = fennel("tune", "--collective", "reduce", "--generate",
                            "reduce-binomial,reduce-pipeline", "--segment", "4000",
                            "--ranks", "8", "--size", "64000", *MODEL, "-o", path("seg-reduce.csv"))
    rows = list(csv.DictReader(io.StringIO(read("seg-reduce.csv")))) if code == 0 else []
    check("tune: the segmented binomial reduce against the pipeline",
          [(r["winner"], r["winner_ns"], r["runner_up"], r["runner_up_ns"]) for r in rows] ==
          [("reduce-binomial", "90000", "reduce-pipeline", "110000")], (rows, err))
    # The pipeline alone: algorithm 3 with SEGSIZE 4000.
    code, out, err = fennel("tune", "--collective", "reduce", "--generate", "reduce-pipeline",
                            "--segment", "4000", "--ranks", "8", "--size", "1000,64000", *MODEL,
                            "--format", "ompi", "-o", path("seg-pipe.rules"))
    body = [line.split("#")[0].split() for line in read("seg-pipe.rules").splitlines()
            if not line.startswith("#")] if code == 0 else []
    check("tune: reduce-pipeline's segment is the rule's SEGSIZE",
          body == [["1"], ["11"], ["1"], ["8"], ["1"], ["0", "3", "0", "4000"]], (body, err))
    # Open MPI's ring_segmented (allreduce 2, algorithm 5) with the candidate's segment.
    code, out, err = fennel("tune", "--collective", "allreduce", "--generate",
                            "allreduce-ring-segmented", "--segment", "1000", "--ranks", "3",
                            "--size", "6000", *MODEL, "--format", "ompi",
                            "-o", path("seg-ring.rules"))
    body = [line.split("#")[0].split() for line in read("seg-ring.rules").splitlines()
            if not line.startswith("#")] if code == 0 else []
    check("tune: allreduce-ring-segmented is segmented_ring with SEGSIZE",
          body == [["1"], ["2"], ["1"], ["3"], ["1"], ["0", "5", "0", "1000"]], (body, err))

    # The linear and in-order binary algorithms, each the only candidate, are named by their
    # numbers in Open MPI's coll_tuned decision files: allreduce (2) 1 basic_linear, bcast
    # (7) 1 basic_linear, reduce (11) 1 linear and 6 in-order_binary.
    for collective, generator, coll_id, algorithm in [
            ("allreduce", "allreduce-linear", "2", "1"), ("bcast", "bcast-linear", "7", "1"),
            ("reduce", "reduce-linear", "11", "1"),
            ("reduce", "reduce-inorder-binary", "11", "6")]:
        code, out, err = fennel("tune", "--collective", collective, "--generate", generator,
                                "--ranks", "8", "--size", "1000", *MODEL, "--format", "ompi",
                                "-o", path("linear.rules"))
        body = [line.split("#")[0].split() for line in read("linear.rules").splitlines()
                if not line.startswith("#")] if code == 0 else []
        check("tune: %s is Open MPI's algorithm %s" % (generator, algorithm),
              body == [["1"], [coll_id], ["1"], ["8"], ["1"], ["0", algorithm, "0", "0"]],
              (body, err))

    # Rules collapse: with sizes on one side of the crossover only, each rank count has
    # one rule, and equal rank counts collapse into the first.
    code, out, err = fennel("tune", *GRID[:7], "4000,8000", *GRID[8:], "--format", "ompi",
                            "-o", path("c.rules"))
    body = [line.split("#")[0].split() for line in read("c.rules").splitlines()
            if not line.startswith("#")]
    check("identical rank counts collapse into one rule",
          code == 0 and body == [["1"], ["2"], ["1"], ["4"], ["1"], ["0", "3", "0", "0"]],
          body)

    # --ompi-version: the ids and communicator bounds of each release line. The sweeps in
    # tests/data/tune/ompi-*.csv are written by hand (times made up) so that the winners
    # below hold; Open MPI's algorithm ids are those of coll_tuned_*_decision.c: allreduce
    # 3 recursive_doubling, 4 ring, 6 rabenseifner (from 4.0); bcast 6 binomial, 7 knomial
    # and 9 scatter_allgather_ring (from 4.0); reduce 5 binomial, 7 rabenseifner (from 4.0);
    # allgather 2 bruck, 4 ring (docs/TUNING.md, Versions).
    #   allreduce   8 B                64 KiB
    #   4 ranks     rd                 rabenseifner (ring 10.00 % slower)
    #   8 ranks     rd                 ring
    #   16 ranks    rabenseifner       rabenseifner
    #               (ring 14.29 %)     (ring 25.00 %)
    # 4.0 onwards: 4 -> [0 rd, 65536 rabenseifner], 8 -> [0 rd, 65536 ring], 16 -> [0
    # rabenseifner]. 3.x, without rabenseifner: 4 -> [0 rd, 65536 ring], 8 the same (it
    # collapses into 4), 16 -> [0 ring].
    new = [(4, [(0, 3, 0, 0), (65536, 6, 0, 0)]), (8, [(0, 3, 0, 0), (65536, 4, 0, 0)]),
           (16, [(0, 6, 0, 0)])]
    old = [(4, [(0, 3, 0, 0), (65536, 4, 0, 0)]), (16, [(0, 4, 0, 0)])]
    # 6.0 and main: the same rules, each under the next rank count as its bound, the last
    # under INT_MAX.
    upper = [(8, new[0][1]), (16, new[1][1]), (2 ** 31 - 1, new[2][1])]
    want = {"3.0": old, "3.1": old, "4.0": new, "4.1": new, "5.0": new, "6.0": upper,
            "main": upper}
    files = {}
    for version, rules in want.items():
        name = f"ar-{version}.rules"
        code, out, err = fennel("tune", "--from", "tests/data/tune/ompi-allreduce.csv",
                                "--format", "ompi", "--ompi-version", version, "-o", path(name))
        try:
            files[version] = parse_rules(read(name))
        except ValueError as e:
            files[version] = {"error": str(e)}
        check(f"--ompi-version {version}: allreduce's ids and communicator sizes",
              code == 0 and files[version] == {2: rules}, (err, files[version]))
    # Open MPI 3.x returns MPI_ERR_ARG for an id it does not know: its files say which
    # winners they replaced, and the note on stderr counts them.
    code, out, err = fennel("tune", "--from", "tests/data/tune/ompi-allreduce.csv",
                            "--format", "ompi", "--ompi-version", "3.1", "-o", path("n31.rules"))
    notes = [line for line in read("n31.rules").splitlines() if " ranks, " in line]
    check("--ompi-version 3.1: a comment for each winner the line does not have",
          notes == ["# 4 ranks, 64 KiB: allreduce-rabenseifner is fastest but Open MPI 3.1 has "
                    "no rabenseifner (6, from 4.0); allreduce-ring is 10.00% slower",
                    "# 16 ranks, 8 B: allreduce-rabenseifner is fastest but Open MPI 3.1 has no "
                    "rabenseifner (6, from 4.0); allreduce-ring is 14.29% slower",
                    "# 16 ranks, 64 KiB: allreduce-rabenseifner is fastest but Open MPI 3.1 has "
                    "no rabenseifner (6, from 4.0); allreduce-ring is 25.00% slower"] and
          err == "fennel: tune: note: in 3 of 6 cells the fastest algorithm has no counterpart "
          f"in Open MPI 3.1; {path('n31.rules')} names the fastest that has one (its comments "
          "list them)\n", (err, notes))
    check("--ompi-version 3.1: the file says which line it is for and how its sizes read",
          read("n31.rules").startswith(
              "# Open MPI coll_tuned dynamic rules (classic format) for Open MPI 3.1, written "
              "by fennel tune --ompi-version 3.1.\n") and
          "# Each communicator size is the smallest its rules apply to (the first's to "
          "smaller ones too).\n" in read("n31.rules"), read("n31.rules"))
    check("--ompi-version main: the file says its sizes are exclusive bounds",
          "\n# Each communicator size is one more than the largest its rules apply to (the "
          "first's from 1, the last's without limit).\n" in read("ar-main.rules") and
          "\n8 # ranks below 8: the rules of 4\n" in read("ar-main.rules") and
          "\n2147483647 # no limit: the rules of 16\n" in read("ar-main.rules"),
          read("ar-main.rules"))
    # Each line's lookup on its own file, at both sides of every boundary: communicators of
    # 1 to 7 ranks take the 4-rank rules, 8 to 15 the 8-rank ones, 16 and more the 16-rank
    # ones (3.x: 1 to 15 the 4-rank ones); messages below 65536 B the first rule.
    intended = {}
    for comsize in (1, 3, 4, 7, 8, 15, 16, 17, 10 ** 6):
        grid = 4 if comsize < 8 else 8 if comsize < 16 else 16
        for msgsize in (0, 65535, 65536, 10 ** 9):
            big = msgsize >= 65536
            intended[("new", comsize, msgsize)] = {4: 6 if big else 3, 8: 4 if big else 3,
                                                   16: 6}[grid]
            intended[("old", comsize, msgsize)] = 4 if grid == 16 or big else 3
    for version in want:
        era = "old" if version.startswith("3.") else "new"
        pick = lookup_upper if version in ("6.0", "main") else lookup
        wrong = {}
        if "error" not in files[version]:
            wrong = {(c, m): pick(files[version], 2, c, m)
                     for (e, c, m), alg in intended.items()
                     if e == era and pick(files[version], 2, c, m) != alg}
        check(f"--ompi-version {version}: Open MPI's lookup picks the winner on both sides of "
              "every boundary", "error" not in files[version] and not wrong, wrong)
    # Why the line matters: main reading the 5.0 file gives 4 to 7 ranks the 8-rank rules
    # (the ring at 64 KiB instead of rabenseifner) and 8 to 15 ranks the 16-rank ones.
    if "error" not in files["5.0"]:
        check("main would read the 5.0 file one rank count off",
              [lookup_upper(files["5.0"], 2, 4, 65536), lookup_upper(files["5.0"], 2, 8, 8)]
              == [4, 6])
    # Bcast and reduce, written by hand: at 8 ranks bcast-binomial wins at 8 B, bcast-knomial
    # (radix 4) at 1 KiB (binomial 20.00 % slower), bcast-scatter-allgather at 1 MiB
    # (binomial 60.00 % slower); at 4 ranks reduce-binomial wins at 8 B and
    # reduce-rabenseifner at 64 KiB (binomial 40.00 % slower).
    for coll, cid, version, rules in (
            ("bcast", 7, "3.1", [(8, [(0, 6, 0, 0)])]),
            ("bcast", 7, "4.0", [(8, [(0, 6, 0, 0), (1024, 7, 0, 0), (1048576, 9, 0, 0)])]),
            ("reduce", 11, "3.1", [(4, [(0, 5, 0, 0)])]),
            ("reduce", 11, "4.0", [(4, [(0, 5, 0, 0), (65536, 7, 0, 0)])])):
        code, out, err = fennel("tune", "--from", f"tests/data/tune/ompi-{coll}.csv", "--format",
                                "ompi", "--ompi-version", version, "-o", path("v.rules"))
        try:
            got = parse_rules(read("v.rules"))
        except ValueError as e:
            got = {"error": str(e)}
        substituted = {"bcast": 2, "reduce": 1}[coll] if version == "3.1" else 0
        note = (f"fennel: tune: note: in {substituted} of {3 if coll == 'bcast' else 2} cells "
                "the fastest algorithm has no counterpart in Open MPI 3.1; "
                f"{path('v.rules')} names the fastest that has one (its comments list them)\n"
                if substituted else "")
        check(f"--ompi-version {version}: {coll}'s ids", code == 0 and got == {cid: rules} and
              err == note, (err, got))
    # Allgather's Bruck: from 6.0 algorithm 2 is the k-ary Bruck, its radix the rule's
    # FANINOUT (coll_tuned_allgather_decision.c), so the file gives 2; 5.0 ignores it (0).
    # 4 ranks: bruck wins with 8 B blocks, the ring with 1 KiB blocks (rule at 4 x 1024 B).
    for version, faninout, bound in (("5.0", 0, 4), ("6.0", 2, 2 ** 31 - 1),
                                     ("main", 2, 2 ** 31 - 1)):
        code, out, err = fennel("tune", "--from", "tests/data/tune/ompi-allgather.csv",
                                "--format", "ompi", "--ompi-version", version, "-o",
                                path("g.rules"))
        try:
            got = parse_rules(read("g.rules"))
        except ValueError as e:
            got = {"error": str(e)}
        check(f"--ompi-version {version}: allgather's Bruck with FANINOUT {faninout}",
              code == 0 and got == {0: [(bound, [(0, 2, faninout, 0), (4096, 4, 0, 0)])]}, got)
    # The default is 5.0, the current release line; a patch level or a leading v is taken.
    for given in ([], ["--ompi-version", "v5.0.10"], ["--ompi-version", "5.0.3"]):
        code, out, err = fennel("tune", "--from", "tests/data/tune/ompi-allreduce.csv",
                                "--format", "ompi", *given, "-o", path("d.rules"))
        check(f"--format ompi {' '.join(given) or 'without --ompi-version'}: the 5.0 file",
              code == 0 and read("d.rules") == read("ar-5.0.rules"), err)
    for bad in ("5.1", "2.1", "5", "main.1", "5.0.x", ""):
        expect_error(f"--ompi-version {bad!r} is refused",
                     ["tune", "--from", "tests/data/tune/ompi-allreduce.csv", "--format", "ompi",
                      "--ompi-version", bad, "-o", path("x")], 2,
                     f"tune: --ompi-version {bad}: expected an Open MPI release line, 3.0, 3.1, "
                     "4.0, 4.1, 5.0 or 6.0 (a patch level such as 5.0.10 is allowed), or main")
    expect_error("--ompi-version goes with --format ompi",
                 ["tune", "--from", "tests/data/tune/ompi-allreduce.csv", "--ompi-version", "4.1",
                  "-o", path("x")], 2, "tune: --ompi-version goes with --format ompi")

    # JSON: the same decisions, with every candidate's time.
    code, out, err = fennel("tune", *GRID, "--format", "json", "-o", path("t.json"))
    try:
        table = json.loads(read("t.json"))
    except ValueError as e:
        table = {"error": str(e)}
    cells = table.get("cells", [])
    check("the JSON table holds the same cells",
          code == 0 and table.get("collective") == "allreduce" and
          table.get("candidates") == ["allreduce-rd", "allreduce-ring"] and
          [(c["ranks"], c["size_bytes"], c["winner"], c["margin_ns"]) for c in cells] ==
          [(int(r["ranks"]), int(r["size_bytes"]), r["winner"], int(r["margin_ns"]))
           for r in csv.DictReader(io.StringIO(TABLE))] and
          cells[2]["times_ns"] == {"allreduce-rd": 18384, "allreduce-ring": 18288} and
          cells[0]["skipped"] == [], table)

    # --sweep keeps the rows; --from reads them back to the same table.
    code, out, err = fennel("tune", *GRID, "--sweep", path("s.csv"), "-o", path("k.csv"))
    check("--sweep keeps the sweep's rows and its sidecar",
          code == 0 and os.path.exists(path("s.csv")) and os.path.exists(path("s.json")) and
          read("k.csv") == TABLE, err)
    code, out, err = fennel("tune", "--from", path("s.csv"), "-o", path("f.csv"))
    check("--from a sweep gives the same table", code == 0 and read("f.csv") == TABLE, err)
    code, out, err = fennel("sweep", "--generate", "allreduce-rd,allreduce-ring", "--ranks",
                            "4,8", "--size", "4000,8000,8192,16384", *MODEL, "--repeat", "3",
                            "-o", path("rep.csv"))
    code, out, err = fennel("tune", "--from", path("rep.csv"), "-o", path("rep-t.csv"))
    check("repeats of a cell count once (their median)",
          code == 0 and read("rep-t.csv") == TABLE, err)

    # A candidate that cannot run at a rank count is skipped there and listed. Under postal
    # allreduce-hier with --ppn 4 at 8 ranks (two nodes of four) takes ring steps within
    # and across nodes; at 6 ranks it refuses (6 is not a multiple of 4).
    code, out, err = fennel("tune", "--collective", "allreduce", "--generate",
                            "allreduce-ring,allreduce-hier", "--ppn", "4", "--ranks", "6",
                            "--size", "8", *MODEL, "-o", path("h.csv"))
    rows = list(csv.DictReader(io.StringIO(read("h.csv")))) if code == 0 else []
    check("a candidate that refuses a rank count is listed as skipped",
          len(rows) == 1 and rows[0]["winner"] == "allreduce-ring" and
          rows[0]["runner_up"] == "" and rows[0]["skipped"] == "allreduce-hier", rows)

    # Substitution: at 4 ranks and 8 B allreduce-tree (no Open MPI counterpart) beats the
    # ring: 2 log2(4) = 4 full messages, 4 (1000 + 8) = 4032 ns, against the ring's
    # 6 (1000 + 2) = 6012 ns; the rules file names the ring, 1980 / 4032 = 49.11 % slower.
    code, out, err = fennel("tune", "--collective", "allreduce", "--generate",
                            "allreduce-tree,allreduce-ring", "--ranks", "4", "--size", "8",
                            *MODEL, "--format", "ompi", "-o", path("s.rules"))
    check("a winner without an Open MPI counterpart is replaced by the fastest with one",
          code == 0 and "# 4 ranks, 8 B: allreduce-tree is fastest but has no Open MPI "
          "counterpart; allreduce-ring is 49.11% slower\n" in read("s.rules") and
          "\n0 4 0 0 # ring\n" in read("s.rules") and
          err == "fennel: tune: note: in 1 of 1 cells the fastest algorithm has no counterpart "
          f"in Open MPI 5.0; {path('s.rules')} names the fastest that has one (its comments list "
          "them)\n", (err, read("s.rules") if code == 0 else ""))
    code, out, err = fennel("tune", "--collective", "allreduce", "--generate",
                            "allreduce-tree", "--ranks", "4", "--size", "8", *MODEL,
                            "--format", "ompi", "-o", path("n.rules"))
    check("a cell without any Open MPI counterpart is an error",
          code == 1 and err == "fennel: tune: 4 ranks, 8 B: no algorithm that ran there has a "
          "counterpart in Open MPI 5.0 (docs/TUNING.md lists them)\n" and
          not os.path.exists(path("n.rules")), err)

    # Allgather: Open MPI keys its rules on the gathered buffer, the block times the ranks.
    # tests/data/tune/allgather.csv (written by hand, times made up) has recursive doubling
    # fastest with 8 B blocks and the ring with 1 KiB blocks at 4 ranks: the ring's rule
    # starts at 4 x 1024 = 4096 B.
    code, out, err = fennel("tune", "--from", "tests/data/tune/allgather.csv", "--format",
                            "ompi", "-o", path("ag.rules"))
    try:
        ag = parse_rules(read("ag.rules"))
    except (ValueError, OSError) as e:
        ag = {"error": str(e)}
    check("allgather rules key on the gathered buffer",
          code == 0 and ag == {0: [(4, [(0, 3, 0, 0), (4096, 4, 0, 0)])]}, ag)

    # The heat map: a cell per (ranks, size) with its winner, a legend of the winners.
    code, out, err = fennel("tune", *GRID, "-o", path("h.csv"), "--heatmap", path("h.svg"),
                            "--sweep", path("h.csv.sweep"))
    try:
        svg = ET.parse(path("h.svg")).getroot()
    except (ET.ParseError, OSError) as e:
        svg = ET.Element("error", {"why": str(e)})
    ns = "{http://www.w3.org/2000/svg}"
    cells = {(g.get("data-y"), g.get("data-x")): g.get("data-category")
             for g in svg.iter(ns + "g") if g.get("class") == "cell"}
    legend = [g.get("data-category") for g in svg.iter(ns + "g")
              if g.get("class") == "legend-entry"]
    want = {(r["ranks"], s): r["winner"] for r in csv.DictReader(io.StringIO(TABLE))
            for s in [{"4000": "4000 B", "8000": "8000 B", "8192": "8 KiB",
                       "16384": "16 KiB"}[r["size_bytes"]]]}
    texts = [t.text for t in svg.iter(ns + "text")]
    check("the heat map's cells name each cell's winner", code == 0 and cells == want,
          (cells, want))
    check("the heat map's legend names the winners", legend == ["allreduce-rd",
                                                                 "allreduce-ring"], legend)
    check("the heat map labels the axes and the margins",
          "ranks" in texts and "message size" in texts and "16 KiB" in texts and
          "+13.7%" in texts, texts)
    code, out, err = fennel("tune", *GRID, "-o", path("p.csv"), "--heatmap", path("h.png"))
    with open(path("h.png"), "rb") as f:
        check("the heat map as PNG", code == 0 and f.read(8) == b"\x89PNG\r\n\x1a\n", err)

    # The heat map's size (issue 29: its --width was shadowed by the generators' --width,
    # and every spelling failed): --picture-width and --picture-height, --height kept.
    code, out, err = fennel("tune", "--from", path("h.csv.sweep"), "-o", path("w.csv"),
                            "--heatmap", path("w.svg"), "--picture-width", "640",
                            "--picture-height", "320")
    head = read("w.svg")[:400]
    check("--picture-width 640 --picture-height 320 size the heat map",
          code == 0 and 'width="640"' in head and 'height="320"' in head, (code, err, head))
    code, out, err = fennel("tune", "--from", path("h.csv.sweep"), "-o", path("w.csv"),
                            "--heatmap", path("w.svg"), "--height", "330")
    check("--height (older scripts) sizes the heat map", code == 0 and
          'height="330"' in read("w.svg")[:400], (code, err))

    # No output may be an input or another output (issue 29: `--sweep t.csv -o t.csv` was
    # accepted, and the table replaced the sweep's rows).
    with open(path("keep.csv"), "w") as f:
        f.write("kept\n")
    for what, args, message in [
            ("-o the --sweep file", ["--sweep", path("keep.csv"), "-o", path("keep.csv")],
             f"-o {path('keep.csv')} is the --sweep file: give another file"),
            ("-o the --sweep file, another spelling, not yet there",
             ["--sweep", path("new.csv"), "-o", os.path.join(tmp, ".", "new.csv")],
             f"-o {os.path.join(tmp, '.', 'new.csv')} is the --sweep file: give another file"),
            ("-o the --sweep file's sidecar", ["--sweep", path("new.csv"), "-o", path("new.json")],
             f"-o {path('new.json')} is the --sweep file's sidecar: give another file")]:
        expect_error(what, ["tune", *GRID, *args], 2, "tune: " + message)
    expect_error("-o the --from file", ["tune", "--from", path("keep.csv"), "-o",
                                        path("keep.csv")], 2,
                 f"tune: -o {path('keep.csv')} is the --from file: give another file")
    check("the --sweep and --from files are left alone", read("keep.csv") == "kept\n" and
          not os.path.exists(path("new.csv")) and not os.path.exists(path("new.json")))


    expect_error("an unknown format", ["tune", *GRID, "--format", "xml", "-o", path("x")], 2,
                 "tune: --format xml: expected csv, json, ompi or nccl")
    expect_error("an unknown collective",
                 ["tune", "--collective", "gossip", "--ranks", "4", "--size", "8", *MODEL,
                  "-o", path("x")], 2,
                 "tune: --collective gossip: no generator performs it (known: allreduce, "
                 "reduce, bcast, scatter, gather, barrier, reduce-scatter, allgather, alltoall)")
    expect_error("a generator of another collective",
                 ["tune", "--collective", "allreduce", "--generate", "allgather-ring",
                  "--ranks", "4", "--size", "8", *MODEL, "-o", path("x")], 2,
                 "tune: --generate allgather-ring: it performs allgather, not allreduce")
    expect_error("--ranks and --size are needed",
                 ["tune", "--collective", "allreduce", "--ranks", "4", *MODEL, "-o",
                  path("x")], 2, "tune: --ranks LIST and --size LIST are required")
    expect_error("a collective Open MPI's rules do not cover",
                 ["tune", "--collective", "scatter", "--ranks", "4", "--size", "8", *MODEL,
                  "--format", "ompi", "-o", path("x")], 2,
                 "tune: --format ompi: Open MPI's rules cover allgather, allreduce, barrier, "
                 "bcast, reduce and reduce-scatter, not scatter")
    expect_error("--from with sweep options",
                 ["tune", "--from", path("s.csv"), "--ranks", "4", "-o", path("x")], 2,
                 f"tune: --from {path('s.csv')} reads a sweep's rows: --generate, --library, "
                 "--sweep, the generator and the model options belong to the sweep")
    check("no output after usage errors", not os.path.exists(path("x")))

    # A winner of 0 ns (postal with alpha = beta = 0: every message and so every algorithm
    # takes 0 ns): a tie, won by the first of --generate, margin 0 ns and no margin in percent
    # (0 / 0): an empty cell in the CSV, null in JSON, the margin in ns on the heat map; never
    # nan (it was written as -nan, exit 0).
    FREE = ["--collective", "allreduce", "--generate", "allreduce-rd,allreduce-ring",
            "--ranks", "4", "--size", "0,8", "--network", "postal", "--set", "alpha=0ns",
            "--set", "beta=0ns/B", "--jobs", "1"]
    code, out, err = fennel("tune", *FREE, "-o", path("free.csv"), "--heatmap", path("free.svg"))
    table = open(path("free.csv")).read() if code == 0 else ""
    svg = open(path("free.svg")).read() if code == 0 else ""
    check("a winner of 0 ns: an empty margin_percent cell, no nan in the table or the heat map",
          code == 0 and table ==
          "ranks,size_bytes,winner,winner_ns,runner_up,runner_up_ns,margin_ns,margin_percent,"
          "skipped\n4,0,allreduce-rd,0,allreduce-ring,0,0,,\n"
          "4,8,allreduce-rd,0,allreduce-ring,0,0,,\n" and "nan" not in svg and "+0 ns" in svg,
          table + err)
    code, out, err = fennel("tune", *FREE, "--format", "json", "-o", path("free.json"))
    try:
        cells = json.load(open(path("free.json")))["cells"] if code == 0 else None
    except ValueError:
        cells = None
    check("a winner of 0 ns: margin_percent null in JSON",
          cells is not None and [c["margin_percent"] for c in cells] == [None, None] and
          [c["margin_ns"] for c in cells] == [0, 0], err)


# NCCL's example tuner plugin (NCCL 2.30.7, plugins/tuner/example: README.md and plugin.c).
# tests/data/tune/nccl-allreduce.csv is a sweep written by hand: nccl-ring with 2 channels
# and LL, 2 and 4 channels and Simple, and allreduce-ring (no NCCL algorithm), at 8 and 16
# ranks and 64 KiB, 1 MiB and 16 MiB. The fastest NCCL candidate per cell (times in the
# file): 8 ranks: 64 KiB ll/2 (10000; allreduce-ring's 9000 is faster but not NCCL's: one
# substitution), 1 MiB simple/4 (35000), 16 MiB simple/4 (480000); 16 ranks: 64 KiB ll/2
# (12000), 1 MiB simple/2 (50000), 16 MiB simple/4 (600000). Adjacent sizes with one choice
# are one line; a line covers its cell's size up to the next cell's, the first from 0, the
# last to the largest size_t.
NCCL = """# NCCL tuner configuration (plugins/tuner/example) written by fennel tune: allreduce
# collective_type,min_bytes,max_bytes,algorithm,protocol,channels,nNodes,nRanks
allreduce,0,1048575,ring,ll,2,-1,8
allreduce,1048576,18446744073709551615,ring,simple,4,-1,8
allreduce,0,1048575,ring,ll,2,-1,16
allreduce,1048576,16777215,ring,simple,2,-1,16
allreduce,16777216,18446744073709551615,ring,simple,4,-1,16
"""


def nccl_plugin_configs(text):
    """The configurations as the plugin's loader reads them: fgets of at most 255
    characters, lines starting with '#' or empty skipped, strtok at ',' (empty fields
    vanish), blanks and tabs trimmed, 8 to 10 fields, sizes by strtoull, the rest atoi."""
    configs = []
    for line in io.StringIO(text):
        assert len(line) <= 255, line
        if line[0] in "#\n":
            continue
        tokens = [t.strip(" \t") for t in line.rstrip("\n").split(",") if t != ""][:10]
        if not 8 <= len(tokens) <= 10:
            continue
        assert tokens[0] in ("broadcast", "reduce", "allgather", "reducescatter", "allreduce")
        assert tokens[3] in ("tree", "ring", "collnet_direct", "collnet_chain", "nvls",
                             "nvls_tree", "pat")
        assert tokens[4] in ("ll", "ll128", "simple")
        configs.append({"coll": tokens[0], "min": int(tokens[1]), "max": int(tokens[2]),
                        "algo": tokens[3], "proto": tokens[4], "channels": int(tokens[5]),
                        "nodes": int(tokens[6]), "ranks": int(tokens[7]),
                        "pipe": int(tokens[8]) if len(tokens) > 8 else -1,
                        "reg": int(tokens[9]) if len(tokens) > 9 else -1})
    return configs


def nccl_plugin_choice(configs, coll, nbytes, nodes, ranks):
    """The plugin's getCollInfo: the first configuration that matches."""
    for c in configs:
        if (c["coll"] == coll and c["min"] <= nbytes <= c["max"] and
                c["nodes"] in (-1, nodes) and c["ranks"] in (-1, ranks)):
            return (c["algo"], c["proto"], c["channels"])
    return None


with tempfile.TemporaryDirectory() as tmp:
    out_file = os.path.join(tmp, "nccl_tuner.conf")
    code, out, err = fennel("tune", "--from", "tests/data/tune/nccl-allreduce.csv", "--format",
                            "nccl", "-o", out_file)
    text = open(out_file).read() if os.path.exists(out_file) else ""
    check("--format nccl: the tuner CSV derived by hand", code == 0 and text == NCCL,
          text + err)
    check("--format nccl: the one substitution is noted",
          err == f"fennel: tune: note: in 1 of 6 cells the fastest algorithm is not one of "
          f"NCCL's; {out_file} names the fastest that is\n", err)
    configs = nccl_plugin_configs(text)
    want = {(8, 65536): ("ring", "ll", 2), (8, 1048576): ("ring", "simple", 4),
            (8, 16777216): ("ring", "simple", 4), (16, 65536): ("ring", "ll", 2),
            (16, 1048576): ("ring", "simple", 2), (16, 16777216): ("ring", "simple", 4)}
    got = {k: nccl_plugin_choice(configs, "allreduce", k[1], 2, k[0]) for k in want}
    check("--format nccl: the plugin's reader picks each cell's choice", got == want, got)
    between = [nccl_plugin_choice(configs, "allreduce", n, 1, 16) for n in
               (0, 1048575, 16777215, 1 << 40)]
    check("--format nccl: sizes between and beyond the cells take the cell at or below",
          between == [("ring", "ll", 2), ("ring", "ll", 2), ("ring", "simple", 2),
                      ("ring", "simple", 4)], between)
    check("--format nccl: another rank count matches no line",
          nccl_plugin_choice(configs, "allreduce", 65536, 1, 4) is None)
# tests/data/tune/nccl-allgather.csv, written by hand: NCCL's ring allgather (LL and Simple,
# 2 channels), PAT, and allgather-ring (not NCCL's) at 4 and 8 ranks and 4 KiB and 1 MiB a
# rank. The fastest NCCL candidate per cell: 4 ranks: 4 KiB PAT (8000; allgather-ring's 7000
# is faster: one substitution), 1 MiB ring Simple (50000); 8 ranks: 4 KiB ring LL (9000), 1
# MiB PAT (40000). NCCL's nBytes for an allgather is its whole output, ranks x fennel's
# --size, so the 1 MiB cells start at 4 MiB (4 ranks) and 8 MiB (8 ranks).
NCCL_AG = """# NCCL tuner configuration (plugins/tuner/example) written by fennel tune: allgather
# collective_type,min_bytes,max_bytes,algorithm,protocol,channels,nNodes,nRanks
allgather,0,4194303,pat,simple,2,-1,4
allgather,4194304,18446744073709551615,ring,simple,2,-1,4
allgather,0,8388607,ring,ll,2,-1,8
allgather,8388608,18446744073709551615,pat,simple,2,-1,8
"""
with tempfile.TemporaryDirectory() as tmp:
    out_file = os.path.join(tmp, "nccl_tuner.conf")
    code, out, err = fennel("tune", "--from", "tests/data/tune/nccl-allgather.csv", "--format",
                            "nccl", "-o", out_file)
    text = open(out_file).read() if os.path.exists(out_file) else ""
    check("--format nccl: an allgather's tuner CSV derived by hand, in NCCL's bytes",
          code == 0 and text == NCCL_AG, text + err)
    configs = nccl_plugin_configs(text)
    got = [nccl_plugin_choice(configs, "allgather", n, 4, 4) for n in (4 * 4096, 4 << 20)]
    got += [nccl_plugin_choice(configs, "allgather", n, 8, 8) for n in (8 * 4096, 8 << 20)]
    check("--format nccl: the plugin's reader picks each allgather cell's choice",
          got == [("pat", "simple", 2), ("ring", "simple", 2), ("ring", "ll", 2),
                  ("pat", "simple", 2)], got)
expect_error("--format nccl for a collective NCCL's tuner does not take",
             ["tune", "--from", "tests/data/tune/alltoall.csv", "--format", "nccl", "-o",
              os.devnull], 2,
             "tune: --format nccl: NCCL's tuner takes allreduce, allgather, reduce-scatter, "
             "bcast and reduce, not alltoall")
expect_error("--format nccl without an NCCL candidate in a cell",
             ["tune", "--from", "tests/data/tune/ompi-allreduce.csv", "--format", "nccl", "-o",
              os.devnull], 1,
             "tune: --format nccl: at 4 ranks and 8 bytes no candidate is one of NCCL's "
             "algorithms (the nccl-* generators)")

finish()
