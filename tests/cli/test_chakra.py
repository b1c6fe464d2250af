#!/usr/bin/env python3
"""Chakra execution traces (docs/FORMATS.md): the hand-written traces of tests/data/chakra
(tests/data/chakra/write_traces.py), read, verified and timed; broken ones refused with the
byte offset and node; round trips fennel -> Chakra -> fennel with the same times and verdicts.

Times are derived by hand under postal (alpha 100 ns, beta 0.1 ns/B: a 1000-byte message
takes T = 200 ns) with a fixed compute of 7 ns; a rank runs one task at a time, and a
postal send holds it until its message arrives:
- recursive doubling on 4 ranks, 1000 B, a reduction of 1 us after each exchange: each of
  the 2 steps sends (T), receives (already there) and reduces: 2 (T + 1000) = 2400 ns;
- an all_gather node of 1000 B, by allgather-ring: 3 steps of T = 600 ns; eight of them
  one after another 4800 ns (lowering splices the later ones from a program it kept);
- a reduce_scatter node of 4000 B, by reduce-scatter-ring: 3 steps of a 1000-byte
  message and a reduction: 3 (T + 7) = 621 ns;
- all-to-all by sends: every rank sends 3 messages one after another: 3 T = 600 ns;
- an all_to_all node of 1000 B, by alltoall-pairwise: comm_size is what a rank sends in all,
  ASTRA-sim sending comm_size / p = 250 B to each peer (its Ring.cc), so 3 steps of
  100 + 0.1 * 250 = 125 ns = 375 ns;
- process groups (pg_name) of 2 ranks: a 2-rank all_gather each, one step of 200 ns;
- computes and messages on streams of their own (ASTRA-sim's compute and communication
  streams): a backward compute of 1 us and an all_gather of 1000 B (600 ns) that do not
  depend on each other run side by side, and the compute after both starts at 1000 ns:
  2000 ns (one at a time would take 2600);
- computes recorded as operations and bytes (num_ops, tensor_size), no time, timed by the
  roofline of the model's GPU, max(ops / flops, bytes / memory bandwidth): under
  `gpu.flops=1TFLOP/s` and `gpu.memory_bandwidth=1TB/s` an operation and a byte take 1 ps
  each. A matmul of 3000 operations over 1000 B takes 3 ns (compute-bound), then an
  elementwise operation of 1000 over 5000 B 5 ns (memory-bound), ending at 8 ns; a memory
  load of 4000 B beside them on the memory stream takes 4 ns (0 to 4), and a store of
  2000 B after both 2 ns: 10 ns. Under the default GPU (312 TFLOP/s, 1555 GB/s) a compute
  of 624 million operations over 1555 B takes 624e6 / 312e12 s = 2 us (its bytes take 1 ns);
- ties of time (ties.*.et) under LogGP (L 100 ns, o 10 ns, no gaps, 1-byte messages): rank 2
  sends to rank 0 at 0, and rank 1 sends its part of a gather over process group `pair`
  (ranks 0 and 1) at 0, both on their communication streams; both arrive at 0 + o + L =
  110, and rank 0 takes them one after the other, o each, in the order they were sent
  (docs/SEMANTICS.md), which is program order: rank 2's node comes before the gather's
  program, so its receive completes at 120, rank 0's compute of 1 us after it ends at
  1120, the gather at 130: 1120 ns. Written back as Chakra and read again, the program
  keeps its order (the node ids fennel writes), so 1120 ns again; read rank by rank, rank 1's
  send would go first and the run would take 1130.

Usage: test_chakra.py FENNEL SOURCE_ROOT. Prints TAP.
"""
import os
import tempfile

from harness import check, expect_error, fennel, finish, run_json

DATA = "tests/data/chakra"
POSTAL = ["--network", "postal", "--set", "alpha=100ns", "--set", "beta=0.1ns/B",
          "--set", "duration=7ns"]


def makespan(*args):
    out = run_json(*args)
    return out.get("makespan_ns", out)


for name, want in [("allreduce-rd", 2400), ("allreduce-rd-gzip", 2400),
                   ("allgather-coll", 600), ("reducescatter-coll", 621),
                   ("alltoall-p2p", 600), ("alltoall-coll", 375), ("overlap", 2000),
                   ("repeated-coll", 4800)]:
    got = makespan(f"{DATA}/{name}.0.et", *POSTAL)
    check(f"run {name}: {want} ns", got == want, got)
    got = makespan(f"{DATA}/{name}.2.et", *POSTAL)
    check(f"run {name} named by another rank's file: {want} ns", got == want, got)

# A shell glob over a trace's files (trace.*.et) names the trace once: its four files give
# one run of 2000 ns, not four one after another; with another trace and a repeat, the two
# traces once each, 2000 + 600 ns.
ranks = [f"{DATA}/overlap.{r}.et" for r in range(4)]
got = run_json(*ranks, *POSTAL)
check("trace.*.et: one run of the trace", got.get("makespan_ns") == 2000 and
      got.get("program") == "overlap", got)
got = run_json(*ranks, *[f"{DATA}/allgather-coll.{r}.et" for r in range(4)], ranks[1], *POSTAL)
check("two traces' files and a repeat: each trace once, one after another",
      got.get("makespan_ns") == 2600, got)
code, out, err = fennel("verify", *[f"{DATA}/allgather-coll.{r}.et" for r in range(4)])
check("verify trace.*.et: one verdict", code == 0 and out ==
      f"{DATA}/allgather-coll.0.et: ok: allgather over 4 ranks, 4 blocks\n", out + err)

# Process groups: ranks 0 and 1 in pg_name tp0, 2 and 3 in tp1, an all_gather of 1000 B in
# each, by allgather-ring over 2 ranks: one step of T = 200 ns (one 4-rank all_gather would
# take 3 steps, 600 ns).
got = makespan(f"{DATA}/two-groups.0.et", *POSTAL)
check("two process groups of 2 ranks: two 2-rank all_gathers, 200 ns", got == 200, got)

# Metadata without a version, a "schema" attribute only (Chakra's PyTorch feeder and newer
# converters): a one-rank trace of one compute of 3 us.
got = makespan(f"{DATA}/schema-metadata.0.et", *POSTAL)
check("metadata of attributes only: read, 3000 ns", got == 3000, got)

# The roofline (see the top): 10 ns on a GPU of 1 TFLOP/s and 1 TB/s, given by --set or a
# model file; 2000 ns on the default GPU; the computes on slot 0, memory on its own slot.
GPU = ["--set", "gpu.flops=1TFLOP/s", "--set", "gpu.memory_bandwidth=1TB/s"]
got = makespan(f"{DATA}/roofline.0.et", *POSTAL, *GPU)
check("num_ops and tensor_size: the roofline, memory nodes beside, 10 ns", got == 10, got)
got = makespan(f"{DATA}/roofline.0.et", "--model", f"{DATA}/gpu-1t.model.yaml")
check("the GPU of a model file: 10 ns", got == 10, got)
got = makespan(f"{DATA}/roofline-default.0.et", *POSTAL)
check("the default GPU: 624e6 operations at 312 TFLOP/s, 2000 ns", got == 2000, got)
with tempfile.TemporaryDirectory() as tmp:
    csv = os.path.join(tmp, "tasks.csv")
    fennel("run", f"{DATA}/roofline.0.et", *POSTAL, *GPU, "--tasks", csv)
    with open(csv) as f:
        rows = {row.split(",")[1]: row.split(",")[3:8] for row in list(f)[1:]}
    check("roofline: start and end of each node, on its stream",
          rows.get("matmul") == ["0", "compute", "0", "0", "3"] and
          rows.get("elementwise") == ["0", "compute", "3", "3", "8"] and
          rows.get("load") == ["2", "compute", "0", "0", "4"] and
          rows.get("store") == ["2", "compute", "8", "8", "10"], rows)
code, out, err = fennel("run", f"{DATA}/roofline.0.et", *POSTAL, *GPU)
check("the model's line names the GPU", code == 0 and
      "; gpu 1TFLOP/s, memory 8000Gbit/s;" in out, out + err)
# What fennel cannot time is refused, never run as nothing.
expect_error("a node type Chakra does not define",
             ["run", f"{DATA}/bad-node-type.0.et", *POSTAL], 1,
             f"{DATA}/bad-node-type.0.et: byte 8 (node 1): node type 8, which Chakra does not "
             "define (0 INVALID_NODE to 7 COMM_COLL_NODE)")
expect_error("an INVALID_NODE with a duration",
             ["run", f"{DATA}/bad-invalid-timed.0.et", *POSTAL], 1,
             f"{DATA}/bad-invalid-timed.0.et: byte 8 (node 1): node type INVALID_NODE with a "
             "duration, which ASTRA-sim skips; give the node its type (COMP_NODE for a "
             "computation)")
expect_error("a memory load without its bytes",
             ["run", f"{DATA}/bad-memory-size.0.et", *POSTAL], 1,
             f"{DATA}/bad-memory-size.0.et: byte 8 (node 1): a MEM_LOAD_NODE without tensor_size "
             "or a duration: its bytes are needed to time it")
expect_error("gpu.flops of nothing", ["run", f"{DATA}/roofline.0.et", *POSTAL, "--set",
                                      "gpu.flops=0TFLOP/s"], 2,
             "--set gpu.flops=0TFLOP/s: gpu.flops: must be positive")

for name, verdict in [
        ("allreduce-rd", "ok: allreduce over 4 ranks, 1 block, 3 distinct partial results"),
        ("allreduce-rd-gzip", "ok: allreduce over 4 ranks, 1 block, 3 distinct partial results"),
        ("allgather-coll", "ok: allgather over 4 ranks, 4 blocks"),
        ("reducescatter-coll", "ok: reduce-scatter over 4 ranks, 4 blocks, 12 distinct partial "
                               "results"),
        # By alltoall-pairwise, whose puts carry block 4 s + d, rank s's part for rank d.
        ("alltoall-coll", "ok: alltoall over 4 ranks, 16 blocks")]:
    code, out, err = fennel("verify", f"{DATA}/{name}.0.et")
    check(f"verify {name}", code == 0 and out == f"{DATA}/{name}.0.et: {verdict}\n", out + err)
# All-to-all by sends of whole vectors: each rank's part for each peer reaches that peer;
# without rank 3's message to rank 1, rank 1 lacks rank 3's part for it.
code, out, err = fennel("verify", f"{DATA}/alltoall-p2p.0.et", "--collective", "alltoall")
check("verify alltoall-p2p --collective alltoall", code == 0 and
      out == f"{DATA}/alltoall-p2p.0.et: ok: alltoall over 4 ranks, 16 blocks\n", out + err)
expect_error("an all-to-all without one of its messages",
             ["verify", f"{DATA}/bad-alltoall-missing.0.et"], 1,
             f"{DATA}/bad-alltoall-missing.0.et: rank 1 block 13 (rank 3's part for rank 1) lacks "
             "contributions from ranks 3")

code, out, err = fennel("validate", f"{DATA}/alltoall-p2p.0.et")
check("validate: 4 ranks of 3 sends and 3 receives",
      code == 0 and "ranks          4\n" in out and
      "tasks          28 (start 4, proxy 0, sleep 0, compute 0, put 0, get 0, send 12, recv 12)"
      in out, out + err)

# Broken traces: the file, the byte offset of the node and its id.
expect_error("a peer outside the trace", ["run", f"{DATA}/bad-wrong-peer.0.et", *POSTAL], 1,
             f"{DATA}/bad-wrong-peer.1.et: byte 166 (node 4): comm_dst 7 is not a rank of the "
             "4-file trace")
expect_error("a dependency on a missing node",
             ["run", f"{DATA}/bad-missing-dependency.0.et", *POSTAL], 1,
             f"{DATA}/bad-missing-dependency.2.et: byte 284 (node 6): depends on node 99, which "
             f"{DATA}/bad-missing-dependency.2.et does not have")
expect_error("a dependency cycle", ["run", f"{DATA}/bad-cycle.0.et", *POSTAL], 1,
             f"{DATA}/bad-cycle.0.et: cycle: reduce0 -> send1 -> reduce0")
expect_error("collectives that differ between ranks",
             ["run", f"{DATA}/bad-mismatch.0.et", *POSTAL], 1,
             f"{DATA}/bad-mismatch.2.et: byte 8 (node 1): collective 0 is all_gather of 2000 "
             "bytes here, all_gather of 1000 bytes on rank 0")
expect_error("a truncated file", ["run", f"{DATA}/bad-truncated.0.et", *POSTAL], 1,
             f"{DATA}/bad-truncated.1.et: byte 284: a node whose length runs past the end of the "
             "file")
# Values wider than a held node's narrow fields, kept aside with the rest of the node: a
# comm_dst of 2^33 and a comm_tag of 2^31 (int64 attributes), a fennel_slot of 70000 (from
# 2^16 on too large) and one of 40000 (valid), a second total_chunk_cnt in one rank. In
# bad-chunk-totals.0.et node 1 starts at byte 8 (after the metadata's 1 + 7 bytes) and takes
# 1 + 113 bytes (id 2, name 6, type 2, then attributes of 14 (comm_dst), 14 (comm_tag), 16
# (comm_size 1000), 19, 19 and 21 (the chunks)), so node 2 starts at byte 122.
expect_error("a peer past 2^31", ["run", f"{DATA}/bad-wide-peer.0.et", *POSTAL], 1,
             f"{DATA}/bad-wide-peer.0.et: byte 8 (node 1): comm_dst 8589934592 is not a rank of "
             "the 2-file trace")
expect_error("a tag past 2^31", ["run", f"{DATA}/bad-wide-tag.0.et", *POSTAL], 1,
             f"{DATA}/bad-wide-tag.0.et: byte 8 (node 1): comm_tag 2147483648 is too large")
# A dependency past 2^32 keeps the rank's dependencies 8 bytes wide; node 2 starts at byte
# 8 + 1 + 15 (id 2, name "compute" 9, type 2, duration_micros 5: 2) = 24.
expect_error("a dependency past 2^32", ["run", f"{DATA}/bad-wide-dependency.0.et", *POSTAL], 1,
             f"{DATA}/bad-wide-dependency.0.et: byte 24 (node 2): depends on node 8589934592, "
             f"which {DATA}/bad-wide-dependency.0.et does not have")
expect_error("a slot past 2^16", ["run", f"{DATA}/bad-wide-slot.0.et", *POSTAL], 1,
             f"{DATA}/bad-wide-slot.0.et: byte 8 (node 1): fennel_slot 70000 is too large")
expect_error("two totals of chunks in one rank", ["run", f"{DATA}/bad-chunk-totals.0.et", *POSTAL],
             1, f"{DATA}/bad-chunk-totals.0.et: byte 122 (node 2): chunks 0+1 of 8 do not fit the "
             "trace's vector")
# A compute of 5 us on slot 40000, named "compute-step\x01x": the control character is
# shown as '?' (past the name's first eight bytes, which are checked a word at a time).
with tempfile.TemporaryDirectory() as tmp:
    csv = os.path.join(tmp, "tasks.csv")
    code, out, err = fennel("run", f"{DATA}/wide-slot.0.et", *POSTAL, "--tasks", csv)
    rows = open(csv).read().splitlines() if code == 0 else []
    check("a slot past 2^15 and a name with a control character",
          code == 0 and "makespan     5000 ns\n" in out and
          "wide-slot,compute-step?x,0,40000,compute,0,0,5000,,5000,," in rows, out + err)
expect_error("an unknown collective algorithm",
             ["run", f"{DATA}/allgather-coll.0.et", "--collective-algorithm", "all_gather=nope",
              *POSTAL], 2,
             "run: --collective-algorithm all_gather=nope: no generator of that name ('fennel "
             "list' names them)")
# A generator stands for a kind only if it performs that collective (its `performs` in
# `fennel list`; all-to-all by the alltoall generators): both are named.
expect_error("a generator of another collective",
             ["run", f"{DATA}/allgather-coll.0.et", "--collective-algorithm",
              "all_gather=bcast-binomial", *POSTAL], 2,
             "run: --collective-algorithm all_gather=bcast-binomial: bcast-binomial performs "
             "bcast, not all_gather")
expect_error("a generator of no collective",
             ["run", f"{DATA}/allgather-coll.0.et", "--collective-algorithm",
              "all_reduce=pingpong", *POSTAL], 2,
             "run: --collective-algorithm all_reduce=pingpong: pingpong performs no collective, "
             "not all_reduce")
expect_error("all-to-all by an allgather",
             ["run", f"{DATA}/alltoall-coll.0.et", "--collective-algorithm",
              "all_to_all=allgather-ring", *POSTAL], 2,
             "run: --collective-algorithm all_to_all=allgather-ring: allgather-ring performs "
             "allgather, not all_to_all")
got = makespan(f"{DATA}/alltoall-coll.0.et", "--collective-algorithm",
               "all_to_all=alltoall-pairwise,reduce_scatter_block=reduce-scatter-halving", *POSTAL)
check("--collective-algorithm all_to_all=alltoall-pairwise (the default): 375 ns", got == 375,
      got)
expect_error("--size for a trace whose messages all have comm_size",
             ["run", f"{DATA}/allgather-coll.0.et", "--size", "1KiB", *POSTAL], 2,
             f"{DATA}/allgather-coll.0.et: --size is for messages without comm_size; every "
             "message and collective of this trace has its own")
# Messages as ASTRA-sim's MSCCL-to-Chakra converter writes them: chunk 0 (1 of 4 chunks), no
# comm_size. --size 4000 is the collective's buffer: the message carries 4000 x 1/4 = 1000 B,
# 100 + 0.1 x 1000 = 200 ns. Without --size the node is named and --size suggested.
got = makespan(f"{DATA}/no-comm-size.0.et", "--size", "4000", *POSTAL)
check("a send without comm_size: its chunks' share of --size, 200 ns", got == 200, got)
expect_error("a send without comm_size and no --size",
             ["run", f"{DATA}/no-comm-size.0.et", *POSTAL], 1,
             f"{DATA}/no-comm-size.0.et: byte 8 (node 1): a send without comm_size (give --size, "
             "the collective's buffer, as for MSCCL files)")

# --collective-algorithm: the same all_gather by Bruck's algorithm, 2 rounds (1000 B to
# rank - 1, then 2000 B to rank - 2): 200 + 300 = 500 ns.
got = makespan(f"{DATA}/allgather-coll.0.et", "--collective-algorithm",
               "all_gather=allgather-bruck", *POSTAL)
check("--collective-algorithm all_gather=allgather-bruck: 500 ns", got == 500, got)

# Ties of time (see the top): the trace and its copy written by fennel, 1120 ns each; rank
# 0's compute starts at 120 in both.
LOGGP = ["--network", "loggp", "--set", "L=100ns", "--set", "o=10ns"]
with tempfile.TemporaryDirectory() as tmp:
    prefix = os.path.join(tmp, "ties")
    code, _, err = fennel("generate", "--from", f"{DATA}/ties.0.et", "-f", "chakra", "-o",
                          prefix, *LOGGP)
    for path in (f"{DATA}/ties.0.et", prefix + ".0.et"):
        csv = os.path.join(tmp, "ties.csv")
        got = makespan(path, *LOGGP, "--tasks", csv)
        with open(csv) as f:
            starts = {(row.split(",")[1], row.split(",")[2]): row.split(",")[6]
                      for row in list(f)[1:]}
        check(f"ties: rank 2's message first, 1120 ns ({os.path.basename(path)})",
              code == 0 and got == 1120 and starts.get(("compute", "0")) == "120", f"{got} {err}")
    # Traces of collectives, in process groups and beside computes, read, written and read
    # again: the same times under both orders of simultaneous events.
    for name in ("overlap", "two-groups", "ties", "allgather-coll", "roofline"):
        for model in (POSTAL, ["--model", "loggopsim-default"], LOGGP):
            prefix = os.path.join(tmp, "back")
            code, _, err = fennel("generate", "--from", f"{DATA}/{name}.0.et", "-f", "chakra",
                                  "-o", prefix, *model)
            a = makespan(f"{DATA}/{name}.0.et", *model)
            b = makespan(prefix + ".0.et", *model)
            check(f"{name} -> Chakra -> fennel: same time ({model[1]})",
                  code == 0 and a == b and isinstance(a, (int, float)), f"{a} vs {b} {err}")
    # MSCCL files of several thread blocks per GPU (a slot each): written with their slots
    # (fennel_slot), read back with the same times. allreduce-2chan-ll at 4000 B:
    # 2T + d = 1007 ns (tests/cli/test_msccl_roundtrip.py); alltoall-direct-4 at 1000 B:
    # every exchange at once, T = 200 ns (tests/cli/test_msccl.py).
    for name, size, want in (("allreduce-2chan-ll.xml", "4000", 1007),
                             ("alltoall-direct-4.xml", "1000", 200)):
        prefix = os.path.join(tmp, "msccl")
        xml = f"tests/data/msccl/{name}"
        code, _, err = fennel("generate", "--from", xml, "--size", size, "-f", "chakra", "-o",
                              prefix, *POSTAL)
        got = makespan(prefix + ".0.et", *POSTAL)
        check(f"{name}, several thread blocks -> Chakra: {want} ns", code == 0 and got == want,
              f"{got} {err}")
    # Every hand-written MSCCL file with several thread blocks on a GPU (docs/FORMATS.md
    # promises the same time back): two channels, four blocks a GPU, and blocks that wait
    # for one another across a GPU (relay-3's depid, names-2's), under lbp and LogGP.
    for name in ("allreduce-2chan-ll.xml", "alltoall-direct-4.xml", "relay-3.xml",
                 "names-2.xml"):
        prefix = os.path.join(tmp, "msccl")
        xml = f"tests/data/msccl/{name}"
        for model in ("thesis-figures", "loggopsim-default"):
            code, _, err = fennel("generate", "--from", xml, "--size", "6000", "-f", "chakra",
                                  "-o", prefix, "--model", model)
            a = makespan(xml, "--size", "6000", "--model", model)
            b = makespan(prefix + ".0.et", "--model", model)
            check(f"{name} -> Chakra -> fennel: same time ({model})",
                  code == 0 and a == b and isinstance(a, (int, float)), f"{a} vs {b} {err}")
    expect_error("a task on any slot of several",
                 ["generate", "--from", "tests/data/reference/concurrent-2proc.yaml", "-f",
                  "chakra", "-o", os.path.join(tmp, "c"), "--model", "thesis-figures"], 1,
                 "Chakra cannot express task 'c0': it runs on any slot of several (Chakra's "
                 "streams need one)")

# Round trips: a generated program written as Chakra reads back with the same times (the
# model that wrote it timed its computes) and the same verdict.
with tempfile.TemporaryDirectory() as tmp:
    for gen in (["allreduce-rd", "--ranks", "8"], ["allreduce-ring", "--ranks", "5"],
                ["reduce-scatter-halving", "--ranks", "6"],
                ["bcast-binomial", "--ranks", "7", "--root", "3"],
                ["allgather-bruck", "--ranks", "6"], ["scatter-binomial", "--ranks", "5",
                                                      "--root", "2"]):
        for model in (["--model", "thesis-figures"], ["--model", "loggopsim-default"]):
            prefix = os.path.join(tmp, gen[0])
            code, _, err = fennel("generate", *gen, "--size", "6KiB", "-f", "chakra", "-o",
                                  prefix, *model)
            a = makespan("--generate", *gen, "--size", "6KiB", *model)
            b = makespan(prefix + ".0.et", *model)
            if gen[0] == "reduce-scatter-halving" and model[1] == "thesis-figures":
                # Read back, computes and messages run on streams of their own (docs/
                # FORMATS.md): rank 1's stage-2 proxy, which waited on the generated
                # program's one slot for the 100 ns its put keeps it busy (alpha_r), now starts
                # at once, and the run ends 10 ns earlier, never later.
                starts = {}
                for src, args in (("gen", ["--generate", *gen, "--size", "6KiB"]),
                                  ("et", [prefix + ".0.et"])):
                    csv = os.path.join(tmp, src + ".csv")
                    fennel("run", *args, *model, "--tasks", csv)
                    with open(csv) as f:
                        starts[src] = {row.split(",")[1]: float(row.split(",")[6])
                                       for row in list(f)[1:]}
                check(f"{gen[0]} -> Chakra -> fennel: streams overlap ({model[1]})",
                      code == 0 and isinstance(b, (int, float)) and b <= a and
                      starts["gen"].get("s2.done.r1") == 1529.2 and
                      starts["et"].get("s2.done.r1") == 1429.2, f"{a} vs {b} {err}")
                continue
            check(f"{gen[0]} -> Chakra -> fennel: same time ({model[1]})",
                  code == 0 and a == b and isinstance(a, (int, float)), f"{a} vs {b} {err}")
        code1, out1, _ = fennel("verify", "--generate", *gen, "--size", "6KiB")
        code2, out2, _ = fennel("verify", prefix + ".0.et")
        check(f"{gen[0]} -> Chakra -> fennel: same verdict",
              code1 == 0 and code2 == 0 and out1.split(": ", 1)[1] == out2.split(": ", 1)[1],
              out1 + out2)
    # Above LogGP's S: puts become sends that stay eager, two-sided sends keep their
    # rendezvous (the attribute fennel_rendezvous), so the times still agree.
    for gen in (["allreduce-ring", "--ranks", "5"], ["pingpong", "--rounds", "2"]):
        prefix = os.path.join(tmp, "big")
        model = ["--model", "loggopsim-default"]
        code, _, err = fennel("generate", *gen, "--size", "200KiB", "-f", "chakra", "-o", prefix,
                              *model)
        a = makespan("--generate", *gen, "--size", "200KiB", *model)
        b = makespan(prefix + ".0.et", *model)
        check(f"{gen[0]} of 200 KiB -> Chakra -> fennel: same time under LogGP",
              code == 0 and a == b and isinstance(a, (int, float)), f"{a} vs {b} {err}")
    prefix = os.path.join(tmp, "goal")
    code, _, err = fennel("generate", "--from", "tests/data/goal/binomial-bcast.goal", "-f",
                          "chakra", "-o", prefix, "--model", "loggopsim-default")
    a = makespan("tests/data/goal/binomial-bcast.goal", "--model", "loggopsim-default")
    b = makespan(prefix + ".0.et", "--model", "loggopsim-default")
    check("a GOAL file -> Chakra -> fennel: same time", code == 0 and a == b, f"{a} vs {b} {err}")
    expect_error("Chakra needs -o", ["generate", "allreduce-rd", "--ranks", "4", "-f", "chakra"],
                 2, "generate: --format chakra writes a file per rank: give -o PREFIX "
                 "(PREFIX.0.et, PREFIX.1.et, ...)")
    expect_error("Chakra has no gets", ["generate", "fetch", "-f", "chakra", "-o",
                                        os.path.join(tmp, "f")], 1,
                 "Chakra cannot express task 'get.r0-r1': it is a get (Chakra has sends and receives "
                 "only)")
    check("a refused conversion writes no file", not os.path.exists(os.path.join(tmp, "f.0.et")))

finish()
