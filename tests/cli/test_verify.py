#!/usr/bin/env python3
"""CLI tests of `fennel verify` (docs/SCHEDULES.md).

Usage: test_verify.py FENNEL SOURCE_ROOT. Prints TAP.

The programs in tests/data/verify are hand-written; each file's header says why it
passes or which message it must fail with. The reference and example programs are the
original Fennel's (tests/data/reference, programs/examples): its recursive-doubling and
ring programs must verify as what they are, and its broadcast schedules as broadcasts.
Every generator that declares a collective is checked through --generate at a few rank
counts (tests/test_verify_sweeps.c covers the rank counts exhaustively, in-process).
"""
import re

from harness import FENNEL, ROOT, check, fennel, finish

DATA = "tests/data/verify"


def expect_ok(name, args, stdout):
    code, out, err = fennel("verify", *args)
    check(name, code == 0 and out == stdout + "\n" and err == "",
          f"status {code}, stdout {out!r}, stderr {err!r}")


def expect_error(name, args, status, stderr):
    code, out, err = fennel("verify", *args)
    check(name, code == status and err == "fennel: " + stderr + "\n" and out == "",
          f"status {code}, stderr {err!r}, stdout {out!r}")


# ---- Hand-written programs ----
# All-to-all: block 3 s + d is rank s's part for rank d; each must reach rank d.
expect_ok("pairwise exchange on 3 ranks is an all-to-all", [f"{DATA}/alltoall-3.yaml"],
          f"{DATA}/alltoall-3.yaml: ok: alltoall over 3 ranks, 9 blocks")
expect_error("an all-to-all put carrying the wrong block", [f"{DATA}/alltoall-3-wrong-block.yaml"],
             1, f"{DATA}/alltoall-3-wrong-block.yaml: rank 0 block 3 (rank 1's part for rank 0) "
             "lacks contributions from ranks 1")
expect_error("an all-to-all put to the wrong peer", [f"{DATA}/alltoall-3-wrong-peer.yaml"], 1,
             f"{DATA}/alltoall-3-wrong-peer.yaml: rank 1 block 1 (rank 0's part for rank 1) "
             "lacks contributions from ranks 0")
expect_ok("... and without block ranges", [f"{DATA}/alltoall-3-whole.yaml"],
          f"{DATA}/alltoall-3-whole.yaml: ok: alltoall over 3 ranks, 9 blocks")
expect_error("an all-to-all of whole vectors without one put",
             [f"{DATA}/alltoall-3-whole-missing.yaml"], 1,
             f"{DATA}/alltoall-3-whole-missing.yaml: rank 0 block 6 (rank 2's part for rank 0) "
             "lacks contributions from ranks 2")
expect_error("a reduce to rank 0 is not an all-to-all",
             [f"{DATA}/reduce-2-proxy.yaml", "--collective", "alltoall"], 1,
             f"{DATA}/reduce-2-proxy.yaml: rank 1 block 1 (rank 0's part for rank 1) lacks "
             "contributions from ranks 0")
expect_ok("recursive doubling on 4 ranks is an allreduce",
          [f"{DATA}/allreduce-rd-4.yaml", "--collective", "allreduce"],
          f"{DATA}/allreduce-rd-4.yaml: ok: allreduce over 4 ranks, 1 block, "
          "3 distinct partial results")
expect_error("a put to the wrong peer", [f"{DATA}/allreduce-rd-4-wrong-peer.yaml", "-c",
                                         "allreduce"], 1,
             f"{DATA}/allreduce-rd-4-wrong-peer.yaml: rank 1 block 0 lacks contributions "
             "from ranks 0")
expect_error("a missing put", [f"{DATA}/allreduce-rd-4-missing-put.yaml", "-c", "allreduce"],
             1, f"{DATA}/allreduce-rd-4-missing-put.yaml: rank 0 block 0 lacks contributions "
             "from ranks 1")
expect_error("two ranks combine in different orders",
             [f"{DATA}/allreduce-3-different-orders.yaml", "-c", "allreduce"], 1,
             f"{DATA}/allreduce-3-different-orders.yaml: ranks 0 and 2 combine block 0 in "
             "different orders: ((0+1)+2) vs (0+(1+2))")
expect_ok("... which is fine for a reduce to rank 2",
          [f"{DATA}/allreduce-3-different-orders.yaml", "-c", "reduce", "--root", "2"],
          f"{DATA}/allreduce-3-different-orders.yaml: ok: reduce over 3 ranks from root 2, "
          "1 block, 4 distinct partial results")
expect_error("a contribution reduced twice", [f"{DATA}/reduce-2-twice.yaml", "-c", "reduce"],
             1, f"{DATA}/reduce-2-twice.yaml: rank 0 block 0: task 'c0b' combines "
             "contributions from ranks 1 more than once")
expect_error("a reduction in a proxy", [f"{DATA}/reduce-2-proxy.yaml", "-c", "reduce"], 1,
             f"{DATA}/reduce-2-proxy.yaml: rank 0 block 0: task 'x0' (a proxy) combines "
             "partial results, which only a compute task may")
expect_ok("... which is a correct gather", [f"{DATA}/reduce-2-proxy.yaml", "-c", "gather"],
          f"{DATA}/reduce-2-proxy.yaml: ok: gather over 2 ranks from root 0, 2 blocks")
expect_error("the right program, the wrong root",
             [f"{DATA}/reduce-2-proxy.yaml", "-c", "gather", "--root", "1"], 1,
             f"{DATA}/reduce-2-proxy.yaml: rank 1 block 0 lacks contributions from ranks 0")

# ---- The original's programs ----
REF, EX = "tests/data/reference", "programs/examples"
for f, kind in [(f"{REF}/allreduce-rd-8-100B.yaml", "allreduce"),
                (f"{REF}/allgather-rd-8-4096B.yaml", "allgather"),
                (f"{REF}/allgather-ring-4-1024B.yaml", "allgather"),
                (f"{EX}/a2.yaml", "allreduce"), (f"{EX}/a4.yaml", "allreduce"),
                (f"{EX}/a2_a2.yaml", "allreduce"), (f"{EX}/multicast.yaml", "bcast"),
                (f"{EX}/binary_broadcast.yaml", "bcast")] + \
        [(f"{EX}/binomial{k}_broadcast.yaml", "bcast") for k in range(2, 8)]:
    code, out, err = fennel("verify", f, "-c", kind)
    check(f"{f} performs {kind}", code == 0 and out.startswith(f"{f}: ok: {kind} over"), err)
# A broadcast is not an allgather, nor an allreduce of everyone's data.
code, out, err = fennel("verify", f"{EX}/binomial2_broadcast.yaml", "-c", "allgather")
check("a broadcast is no allgather", code == 1 and "lacks contributions from ranks" in err, err)

# ---- Generated programs ----
code, out, _ = fennel("list")
collective = re.findall(r"^  ([a-z0-9-]+) .*\n    options:.*performs ([a-z-]+)$", out, re.M)
check("fennel list names the collective generators", len(collective) >= 9, collective)
for name, kind in collective:
    for n in ("5", "16"):
        # reduce-scatter-nonoverlapping cuts --size into 4-byte elements and, as Open MPI,
        # sends nothing to a rank whose part is empty: every rank holds its block from 4 B
        # a rank (docs/COLLECTIVES.md).
        size = ["--size", f"{4 * int(n)}B"] if name == "reduce-scatter-nonoverlapping" else []
        code, out, err = fennel("verify", "--generate", name, "--ranks", n, *size)
        check(f"verify --generate {name} --ranks {n}",
              (code == 0 and out.startswith(f"{name}: ok: {kind} over {n} ranks")) or
              (code == 1 and "needs" in err), out + err)
expect_ok("--root goes to the generator and the check",
          ["--generate", "scatter-binomial", "--ranks", "6", "--root", "4"],
          "scatter-binomial: ok: scatter over 6 ranks from root 4, 6 blocks")
expect_ok("--collective overrides the generator's",
          ["--generate", "allreduce-rd", "--ranks", "8", "--collective", "reduce", "--root",
           "0"], "allreduce-rd: ok: reduce over 8 ranks from root 0, 1 block, "
          "7 distinct partial results")
expect_error("a broadcast generator checked as allreduce",
             ["--generate", "bcast-binomial", "--ranks", "4", "-c", "allreduce"], 1,
             "bcast-binomial: rank 0 block 0 lacks contributions from ranks 1-3")

# ---- Usage errors ----
expect_error("no program", [], 2, "verify: no program given (fennel verify PROGRAM "
             "--collective KIND, or fennel verify --generate NAME)")
expect_error("no collective for a file", [f"{DATA}/allreduce-rd-4.yaml"], 2,
             f"verify: {DATA}/allreduce-rd-4.yaml says no collective: give --collective KIND "
             "(allreduce, reduce, bcast, allgather, reduce-scatter, scatter, gather, barrier, "
             "alltoall)")
expect_error("unknown collective", [f"{DATA}/allreduce-rd-4.yaml", "-c", "gossip"], 2,
             "verify: --collective gossip: unknown collective (known: allreduce, reduce, "
             "bcast, allgather, reduce-scatter, scatter, gather, barrier, alltoall)")
expect_error("a generator without a collective", ["--generate", "pingpong"], 2,
             "verify: generator pingpong performs no collective; give --collective KIND "
             "(allreduce, reduce, bcast, allgather, reduce-scatter, scatter, gather, barrier, "
             "alltoall)")
expect_error("generator options with a file", [f"{DATA}/allreduce-rd-4.yaml", "-c",
                                               "allreduce", "--ranks", "4"], 2,
             "verify: generator options need --generate NAME")
expect_error("--root for a collective without one", [f"{DATA}/allreduce-rd-4.yaml", "-c",
                                                     "allreduce", "--root", "1"], 2,
             "verify: allreduce has no root; --root applies to reduce, bcast, scatter and "
             "gather")
expect_error("root outside the program's ranks", [f"{DATA}/allreduce-rd-4.yaml", "-c",
                                                  "bcast", "--root", "4"], 1,
             f"{DATA}/allreduce-rd-4.yaml: root 4 is outside 0..3 (the program has 4 ranks)")
expect_error("unknown generator", ["--generate", "nope"], 2,
             "unknown generator 'nope' ('fennel list' names every generator)")
# A name of a known family lists that family's generators (all of them would not fit).
expect_error("unknown generator of a family", ["--generate", "alltoall-nope"], 2,
             "unknown generator 'alltoall-nope' (known: " + ", ".join(
                 n for n in re.findall(r"^  ([a-z0-9-]+) ",
                                       fennel("list")[1].split("\n\n")[0], re.M)
                 if n.startswith("alltoall-")) +
             "; 'fennel list' names every generator)")
code, out, err = fennel("verify", "tests/data/verify/missing.yaml", "-c", "allreduce")
check("missing file: exit 1, one line", code == 1 and err.count("\n") == 1 and
      "missing.yaml" in err, err)

finish()
