#!/usr/bin/env python3
"""MSCCL++ execution plans (docs/FORMATS.md): `fennel verify`, `run`, `validate` and
`generate --from` on the hand-written plans of tests/data/mscclpp, in the current schema and
in the 2024 one.

Times are derived by hand under postal (alpha 100 ns, beta 0.1 ns/B: a message of s bytes
arrives T(s) = 100 + 0.1 s ns after it leaves, and a postal sender is busy until then) with a
fixed compute of d = 7 ns for every reduction and copy. Each GPU has one thread block. A
signal is a put of 0 bytes (T(0) = 100 ns); a get is a request of 8 bytes and a response
(T(8) + T(c)); LL packets put twice their bytes on the wire. With chunks of c = 1000 bytes:
- allreduce-2 (and its 2024 twin): signal, wait, rres (get, reduce, put), signal, wait:
  T(0) + (T(8) + T(c)) + d + T(c) + T(0) = 100 + 300.8 + 7 + 200 + 100 = 707.8 ns;
- reducescatter-2 (and its twin): the same without the put: 507.8 ns;
- allgather-3: a copy, then two port puts with signals one after the other on the thread
  block (a postal put holds it until arrival), then the wait: d + 2 T(c) = 407 ns;
- alltoall-2 (LL): a packet put of 2c bytes, a copy, then an unpack once the peer's packets
  have come: max(T(2c) + d, T(2c)) + d = 314 ns;
- allreduce-tbg-2: allreduce-2 with each rres shared by a group of two thread blocks, each
  on its own slot with its own channel. The executor splits a range into units of
  buffer_alignment (16 B), the first blocks one unit more (calcSize): at --size 4000 a chunk
  is 2000 B = 125 units, block 0 moves 63 (1008 B), block 1 62 (992 B). Block 0, the later:
  T(0) + (T(8) + T(1008)) + d + T(1008) + T(0) = 100 + 100.8 + 200.8 + 7 + 200.8 + 100
  = 709.4 ns (the whole chunk in each block, as before groups were read, took 907.8 ns);
- sendrecv-packets-v1 (2024 schema, LL): gpu 1 turns its input into packets (tpkt, d),
  puts them into gpu 0's scratch (ppkt, T(2c)); gpu 0's cpkt copies them out of the packets
  once they are there (d): d + T(2c) + d = 7 + 300 + 7 = 314 ns (run at once, as a copy
  into packets, it finished at 307 ns, before its data);
- the ring allreduce of scripts/mscclpp-ring.py on p GPUs: 2 (p - 1) steps of a put, a
  signal (the previous GPU's comes at the same moment) and a reduction or copy:
  2 (p - 1) (T(c) + T(0) + d).

Usage: test_mscclpp.py FENNEL SOURCE_ROOT. Prints TAP.
"""
import importlib.util
import os
import tempfile

from harness import ROOT, check, expect_error, fennel, finish, run_json

DATA = "tests/data/mscclpp"
POSTAL = ["--network", "postal", "--set", "alpha=100ns", "--set", "beta=0.1ns/B",
          "--set", "duration=7ns"]

VERDICTS = {
    "allreduce-2.json": "ok: allreduce over 2 gpus, in place, 2 chunks, 2 reductions",
    "allgather-3.json": "ok: allgather over 3 gpus, out of place, 1 chunk, 0 reductions",
    "reducescatter-2.json": "ok: reducescatter over 2 gpus, out of place, 2 chunks, "
                            "2 reductions",
    "alltoall-2.json": "ok: alltoall over 2 gpus, out of place, 2 chunks, 0 reductions",
    "allreduce-2-v1.json": "ok: allreduce over 2 gpus, in place, 2 chunks, 2 reductions",
    "reducescatter-2-v1.json": "ok: reducescatter over 2 gpus, out of place, 2 chunks, "
                               "2 reductions",
    # Each reduction shared by two blocks, each reducing half: one reduction per chunk.
    "allreduce-tbg-2.json": "ok: allreduce over 2 gpus, in place, 2 chunks, 2 reductions",
    # Two GPUs, gpu 0's part relayed through gpu 1's scratch: gpu 1 copies s[0] into o[0]
    # only after its wait, which takes gpu 0's signal, which follows gpu 0's put into s[0].
    "allgather-relay-2.json": "ok: allgather over 2 gpus, out of place, 1 chunk, "
                              "0 reductions",
    # The same with gpu 1's copy in a second thread block, after a barrier of both blocks
    # that the first block reaches after its wait.
    "allgather-relay-barrier-2.json": "ok: allgather over 2 gpus, out of place, 1 chunk, "
                                      "0 reductions",
    # A copy out of packets waits for them: no read before its write.
    "sendrecv-packets-v1.json": "ok: sendrecv over 2 gpus (no collective to compare with: "
                                "data flow only), out of place, 1 chunk, 0 reductions",
}
for name, verdict in VERDICTS.items():
    code, out, err = fennel("verify", f"{DATA}/{name}")
    check(f"verify {name}", code == 0 and out == f"{DATA}/{name}: {verdict}\n", out + err)

# Broken variants, each with the error in MSCCL++'s terms (gpu, thread block, operation).
# A wrong peer: gpu 0's second remote buffer is gpu 1's output instead of gpu 2's, so its
# second put would go into gpu 1 through its port channel to gpu 2. The reader refuses it;
# through memory channels, which name no peer of their own, verify finds gpu 2's o[0] never
# written.
# A misspelt key is this reader's, not the YAML reader's (the plan is told by "gpus" and
# "threadblocks"); tpkt belongs to the 2024 schema only.
expect_error("a plan spelling \"colletive\"",
             ["verify", f"{DATA}/bad-misspelt-collective.json"], 1,
             f"{DATA}/bad-misspelt-collective.json:1:1: no \"collective\"")
expect_error("tpkt in the current schema",
             ["run", f"{DATA}/bad-tpkt-current.json", "--size", "100"], 1,
             f"{DATA}/bad-tpkt-current.json:11:11: gpu 0 tb 0 op 0: \"name\": unknown operation "
             "\"tpkt\"")
expect_error("a wrong peer: a port put into a buffer of another gpu than its channel's",
             ["verify", f"{DATA}/bad-wrong-peer.json"], 1,
             f"{DATA}/bad-wrong-peer.json:13:11: gpu 0 tb 0 op 2: pws 0: through its port "
             "channel to gpu 2 into a buffer of gpu 1")
expect_error("a wrong peer through memory channels: a chunk never written",
             ["verify", f"{DATA}/bad-wrong-peer-memory.json"], 1,
             f"{DATA}/bad-wrong-peer-memory.json:37:5: gpu 2: o[0] is never written; it should "
             "hold chunk 0")
expect_error("a missing reduction: gpu 1 puts its own chunk instead of reducing",
             ["verify", f"{DATA}/bad-missing-reduction.json"], 1,
             f"{DATA}/bad-missing-reduction.json:7:5: gpu 0: i[1] (chunk 1) lacks "
             "contributions from ranks 0")
expect_error("a wrong offset: gpu 1 reads the peer's chunk 0 for its chunk 1",
             ["verify", f"{DATA}/bad-wrong-offset.json"], 1,
             f"{DATA}/bad-wrong-offset.json:28:11: gpu 1 tb 0 op 2 (rres): reduces chunk 1 "
             "(i[1]) with chunk 0 (gpu 0's i[0]): different chunks of the collective")
expect_error("a cycle: both GPUs wait before they signal",
             ["verify", f"{DATA}/bad-cycle.json"], 1,
             f"{DATA}/bad-cycle.json:11:11: gpu 0 tb 0 op 0 (wait): waits for a signal from "
             "gpu 1 that never comes (a cycle of waits)")
expect_error("a read before its write: a plain copy of packets not yet there",
             ["verify", f"{DATA}/bad-read-before-write.json"], 1,
             f"{DATA}/bad-read-before-write.json:13:11: gpu 0 tb 0 op 2 (copy): reads s[1], "
             "which holds nothing yet (a read before its write)")
# Races (docs/VERIFY.md): broken copies of allgather-relay-2.json that the check without
# them called ok, since the one order it took happened to be right. Happens-before is a
# thread block's operations in turn, the k-th signal on a channel before the k-th wait on
# its partner, a barrier's arrivals before its departures, a packet's write before its read.
# - bad-race-read: gpu 1's copy of s[0] (op 3) comes before its wait (op 4); gpu 1's
#   operations before it are copy, put, signal, none after a wait, so nothing orders gpu 0's
#   put into s[0] (op 1) before it: read before write in another execution.
# - bad-race-write-after-read: gpu 0 puts into gpu 1's s[0] again after its wait (op 4);
#   that wait takes gpu 1's signal (op 2), which comes before gpu 1's copy of s[0] (op 4),
#   not after it: the second put may overwrite s[0] before the copy reads it.
# - bad-race-write-after-write: gpu 0 puts its input into gpu 1's o[0] after its wait (op
#   4); gpu 1's copy of s[0] into o[0] (op 4) is ordered neither way with it.
# - bad-race-barrier: allgather-relay-barrier-2.json without its barrier: gpu 1's second
#   block copies s[0] (tb 1 op 0) with nothing before it.
RACE = "but no signal, semaphore, barrier or packet orders the two"
expect_error("a read racing its write: a copy before the wait",
             ["verify", f"{DATA}/bad-race-read.json"], 1,
             f"{DATA}/bad-race-read.json:28:11: gpu 1 tb 0 op 3 (copy): reads s[0] after gpu 0 "
             f"tb 0 op 1 (put) writes it, {RACE}: another execution reads it first (a race)")
expect_error("a write racing a read: a second put after the wait",
             ["verify", f"{DATA}/bad-race-write-after-read.json"], 1,
             f"{DATA}/bad-race-write-after-read.json:15:11: gpu 0 tb 0 op 4 (put): writes gpu "
             f"1's s[0], which gpu 1 tb 0 op 4 (copy) reads, {RACE}: another execution writes "
             "it first (a race)")
expect_error("a write racing a write: two writers of one output chunk",
             ["verify", f"{DATA}/bad-race-write-after-write.json"], 1,
             f"{DATA}/bad-race-write-after-write.json:15:11: gpu 0 tb 0 op 4 (put): writes "
             f"gpu 1's o[0], which gpu 1 tb 0 op 4 (copy) writes too, {RACE}: the chunk keeps "
             "either (a race)")
expect_error("a read racing its write: a second block without the barrier",
             ["verify", f"{DATA}/bad-race-barrier.json"], 1,
             f"{DATA}/bad-race-barrier.json:31:11: gpu 1 tb 1 op 0 (copy): reads s[0] after "
             f"gpu 0 tb 0 op 1 (put) writes it, {RACE}: another execution reads it first (a "
             "race)")
# Both blocks of gpu 0's group take the first half of i[0]: block 0's rres (op 2) writes it,
# then block 1's rres reads it, and nothing orders gpu 0's two blocks (each waits for a
# signal of its own channel): a race, found before the second reduction counts the
# contributions twice (which the check without races reported).
expect_error("a group whose two blocks both take the first half: a race",
             ["verify", f"{DATA}/bad-tbg-same-block.json"], 1,
             f"{DATA}/bad-tbg-same-block.json:30:13: gpu 0 tb 1 op 2 (rres): reads i[0] (part 1 "
             "of 2) after gpu 0 tb 0 op 2 (rres) writes it, but no signal, semaphore, barrier or "
             "packet orders the two: another execution reads it first (a race)")
expect_error("a cycle: run names the cycle of tasks",
             ["run", f"{DATA}/bad-cycle.json", "--size", "2KiB", *POSTAL], 1,
             f"{DATA}/bad-cycle.json:11:11: cycle: g0.t0.o0.wait -> g0.t0.o1.signal -> "
             "g0.t0.o1.signal -> g1.t0.o0.wait -> g1.t0.o1.signal -> g1.t0.o1.signal -> "
             "g0.t0.o0.wait")
expect_error("run needs --size for a plan",
             ["run", f"{DATA}/allreduce-2.json", *POSTAL], 2,
             f"{DATA}/allreduce-2.json: an MSCCL++ execution plan needs --size BYTES, the "
             "input buffer of one rank")
expect_error("verify: the plan names its collective",
             ["verify", f"{DATA}/allreduce-2.json", "--collective", "allgather"], 2,
             f"verify: {DATA}/allreduce-2.json: an MSCCL++ execution plan names its collective "
             "(\"collective\": \"allreduce\"); --collective and --root are for fennel programs")


def makespan(*args):
    out = run_json(*args)
    return out.get("makespan_ns", out)


T = lambda s: 100 + 0.1 * s  # noqa: E731
D = 7
C = 1000
TIMES = [("allreduce-2.json", 2000, T(0) + T(8) + T(C) + D + T(C) + T(0)),
         ("allreduce-2-v1.json", 2000, T(0) + T(8) + T(C) + D + T(C) + T(0)),
         ("reducescatter-2.json", 2000, T(0) + T(8) + T(C) + D + T(0)),
         ("reducescatter-2-v1.json", 2000, T(0) + T(8) + T(C) + D + T(0)),
         ("allgather-3.json", 1000, D + 2 * T(C)),
         ("alltoall-2.json", 2000, max(T(2 * C) + D, T(2 * C)) + D),
         ("allreduce-tbg-2.json", 4000, T(0) + T(8) + T(1008) + D + T(1008) + T(0)),
         ("sendrecv-packets-v1.json", 1000, D + T(2 * C) + D)]
for name, size, want in TIMES:
    got = makespan(f"{DATA}/{name}", "--size", str(size), *POSTAL)
    check(f"run {name} --size {size}: {want:g} ns", abs(got - want) < 1e-6, got)

# Round trips: the plan as fennel YAML and as GOAL runs with the same times. Not GOAL for
# the plan with two thread blocks per GPU: a GOAL get's response is the peer's send on the
# peer's first CPU, so two blocks' gets from one peer are answered one after the other.
LOGGP = ["--model", "loggopsim-default"]
with tempfile.TemporaryDirectory() as tmp:
    for name, size, _ in TIMES:
        formats = (("yaml", POSTAL), ("yaml", LOGGP), ("goal", POSTAL))
        for fmt, model in formats[:2] if "tbg" in name else formats:
            out = os.path.join(tmp, f"{name}.{fmt}")
            extra = model if fmt == "goal" else []
            code, _, err = fennel("generate", "--from", f"{DATA}/{name}", "--size", str(size),
                                  "--format", fmt, *extra, "-o", out)
            check(f"generate --from {name} --format {fmt}", code == 0, err)
            a = makespan(f"{DATA}/{name}", "--size", str(size), *model)
            b = makespan(out, *model)
            check(f"{name} and its {fmt} take the same time ({model[1]})",
                  a == b and isinstance(a, (int, float)), f"{a} vs {b}")

# GOAL has no put: a memory channel's blocking put becomes a send, which frees its thread
# block once the send's overhead is over. allgather-relay-barrier-2 at --size 4000 under
# loggopsim-default (L 2500, o 1500, g 1000, G 6 ns/B, S 65535 B; receiving 4000 B takes
# o + 3999 G = 25494 ns): each GPU's blocking put arrives at 1500 + 2500 = 4000 and is
# received by 29494, holding its sender's block until then, so the peer's put, there since
# 4000, is received on that block from 29494 to 54988; the signals leave then and are
# received 1500 + 2500 + 1500 later: 60488 ns. As GOAL the sends free their CPUs at 1500,
# both puts are received by 29494 and the signals by 29494 + 5500 = 34994 ns. generate says
# so, naming the put; and the barrier, which waited for both of GPU 1's blocks, runs on
# CPU 0 alone. Under postal, where a sender waits for the arrival of a send as of a put,
# the GOAL keeps the time: a copy, the put, the signal, the peer's copy after the barrier:
# d + T(4000) + T(0) + d = 7 + 500 + 100 + 7 = 614 ns.
with tempfile.TemporaryDirectory() as tmp:
    plan = f"{DATA}/allgather-relay-barrier-2.json"
    out = os.path.join(tmp, "relay.goal")
    code, _, err = fennel("generate", "--from", plan, "--size", "4000", "-f", "goal", *LOGGP,
                          "-o", out)
    check("GOAL of a plan with blocking puts: written, with warnings", code == 0 and
          "fennel: generate: warning: GOAL has no blocking put: 'g0.t0.o1.put' (and 1 more) "
          "becomes a send, which frees its CPU before the data is there (lbp, LogP, LogGP)\n"
          in err and "warning: GOAL pins every operation to a CPU: 'g1.t0.o4.barrier' runs on "
          "CPU 0 alone, where it waited for all 2 slots of its rank (every model)\n" in err,
          err)
    with open(out) as f:
        text = f.read()
    check("the GOAL file says it too, in comments",
          "\n// GOAL has no blocking put: 'g0.t0.o1.put'" in text, text[:400])
    a = makespan(plan, "--size", "4000", *LOGGP)
    b = makespan(out, *LOGGP)
    check("the plan: 4000 + 2 x 25494 + 5500 = 60488 ns; its GOAL: 34994 ns",
          a == 60488 and b == 34994, f"{a} {b}")
    fennel("generate", "--from", plan, "--size", "4000", "-f", "goal", *POSTAL, "-o", out)
    a = makespan(plan, "--size", "4000", *POSTAL)
    b = makespan(out, *POSTAL)
    check("under postal the plan and its GOAL: 614 ns", a == 614 and b == 614, f"{a} {b}")

# Rings of many sizes (scripts/mscclpp-ring.py): verified, and timed by the formula above
# with chunks of c = 100 bytes.
spec = importlib.util.spec_from_file_location("ring",
                                              os.path.join(ROOT, "scripts/mscclpp-ring.py"))
ring = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ring)
with tempfile.TemporaryDirectory() as tmp:
    for p in [3, 4, 5, 8, 16, 33]:
        path = os.path.join(tmp, f"ring-{p}.json")
        with open(path, "w") as f:
            f.write(ring.ring(p))
        code, out, err = fennel("verify", path)
        want = (f"{path}: ok: allreduce over {p} gpus, in place, {p} chunks, "
                f"{p * (p - 1)} reductions\n")
        check(f"verify the {p}-GPU ring", code == 0 and out == want, out + err)
        want = 2 * (p - 1) * (T(100) + T(0) + D)
        got = makespan(path, "--size", str(100 * p), *POSTAL)
        check(f"run the {p}-GPU ring: {want:g} ns", abs(got - want) < 1e-6, got)

# validate counts one byte per chunk without --size. The LL all-to-all: per GPU a start,
# a proxy heading each of its 3 operations, a packet put (2 B on the wire), a copy and an
# unpack.
code, out, err = fennel("validate", f"{DATA}/alltoall-2.json")
check("validate the LL all-to-all: 2 starts, 6 proxies, 4 computes, 2 puts",
      code == 0 and "processes      1\n" in out and
      "tasks          14 (start 2, proxy 6, sleep 0, compute 4, put 2, get 0, send 0, recv 0)"
      in out and "messages       2 (4 B)" in out, out + err)

# `fennel list` names the format.
code, out, err = fennel("list")
check("list shows the MSCCL++ reader", code == 0 and "\n  mscclpp      read " in out, out + err)

finish()
