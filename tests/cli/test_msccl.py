#!/usr/bin/env python3
"""MSCCL algorithm files (docs/FORMATS.md): `fennel verify`, `run`, `validate` and
`generate --from` on the hand-written files of tests/data/msccl and on rings written by
scripts/msccl-ring.py for many GPU counts.

Times are derived by hand under postal (alpha 100 ns, beta 0.1 ns/B: a chunk of c bytes
takes T = 100 + 0.1 c ns) with a fixed compute of d = 7 ns for every reduction and copy;
each GPU has one thread block per line of steps, and a send does not wait for its receive:
- ring allreduce of p GPUs: p - 1 steps that receive, reduce and send, then p - 2 that
  forward and a last receive: (2p - 2) T + (p - 1) d;
- ring allgather: a copy, then p - 1 messages in a row: d + (p - 1) T;
- ring reduce-scatter: p - 1 messages, each followed by a reduction: (p - 1) (T + d);
- direct all-to-all: every exchange at once: T (the copy's 7 ns run beside it).

Usage: test_msccl.py FENNEL SOURCE_ROOT. Prints TAP.
"""
import importlib.util
import os
import tempfile

from harness import ROOT, check, expect_error, fennel, finish, run_json

DATA = "tests/data/msccl"
POSTAL = ["--network", "postal", "--set", "alpha=100ns", "--set", "beta=0.1ns/B",
          "--set", "duration=7ns"]

spec = importlib.util.spec_from_file_location("ring", os.path.join(ROOT, "scripts/msccl-ring.py"))
ring = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ring)

# The verdicts of the hand-written files.
VERDICTS = {
    "allreduce-ring-4.xml": "ok: allreduce over 4 gpus, in place, 4 chunks, 12 reductions",
    "allgather-ring-4.xml": "ok: allgather over 4 gpus, out of place, 4 chunks, 0 reductions",
    "reducescatter-ring-4.xml": "ok: reducescatter over 4 gpus, out of place, 4 chunks, "
                                "12 reductions",
    "alltoall-direct-4.xml": "ok: alltoall over 4 gpus, out of place, 4 chunks, 0 reductions",
}
for name, verdict in VERDICTS.items():
    code, out, err = fennel("verify", f"{DATA}/{name}")
    check(f"verify {name}", code == 0 and out == f"{DATA}/{name}: {verdict}\n", out + err)

# Broken variants of the ring allreduce, each with the error in MSCCL's terms.
expect_error("a wrong peer: the messages have no receiver",
             ["verify", f"{DATA}/bad-wrong-peer.xml"], 1,
             f"{DATA}/bad-wrong-peer.xml:25:5: gpu 2 sends 6 messages to gpu 0 on channel 0, "
             "which receives 0")
expect_error("a missing reduction: a chunk lacks a contribution",
             ["verify", f"{DATA}/bad-missing-reduction.xml"], 1,
             f"{DATA}/bad-missing-reduction.xml:2:3: gpu 0 (in place): i[0] (chunk 0) lacks "
             "contributions from ranks 1")
expect_error("a wrong offset: two different chunks reduced",
             ["verify", f"{DATA}/bad-wrong-offset.xml"], 1,
             f"{DATA}/bad-wrong-offset.xml:16:7: gpu 1 tb 0 step 1 (rrs, in place): reduces "
             "chunk 0 (received) with chunk 2 (i[2]): different chunks of the collective")
expect_error("a partial result reduced twice",
             ["verify", f"{DATA}/bad-double-count.xml"], 1,
             f"{DATA}/bad-double-count.xml:7:7: gpu 0 tb 0 step 1 (rrc, in place): counts the "
             "contributions of ranks 0 to chunk 0 twice")
# Races (docs/FORMATS.md, the check): relay-3 orders every read and write of gpu 1's s[0]
# by a dependency; each broken copy removes or redirects one, and the step that another
# execution could take first is named. The values alone are the same in all four.
code, out, err = fennel("verify", f"{DATA}/relay-3.xml")
check("verify relay-3.xml: ok", code == 0 and out == f"{DATA}/relay-3.xml: ok: custom over 3 gpus "
      "(no collective to compare with: data flow only), out of place, 2 chunks, 0 reductions\n",
      out + err)
expect_error("a race: a forward without its dependency may read before the receive",
             ["verify", f"{DATA}/bad-race-read.xml"], 1,
             f"{DATA}/bad-race-read.xml:13:7: gpu 1 tb 1 step 0 (s, out of place): reads s[0] "
             "after tb 0 step 0 (r) writes it, but no dependency or message orders the two: "
             "another execution reads it first (a race)")
expect_error("a race: a copy whose dependency names the receive may overwrite before the read",
             ["verify", f"{DATA}/bad-race-overwrite.xml"], 1,
             f"{DATA}/bad-race-overwrite.xml:17:7: gpu 1 tb 2 step 0 (cpy, out of place): "
             "writes s[0], which tb 1 step 0 (s) reads, but no dependency or message orders "
             "the two: another execution writes it first (a race)")
expect_error("a race: a copy without its dependency and the receive write in either order",
             ["verify", f"{DATA}/bad-race-two-writes.xml"], 1,
             f"{DATA}/bad-race-two-writes.xml:17:7: gpu 1 tb 2 step 0 (cpy, out of place): "
             "writes s[0], which tb 0 step 0 (r) writes too, but no dependency or message "
             "orders the two: the chunk keeps either (a race)")
expect_error("a read before any write",
             ["verify", f"{DATA}/bad-empty-read.xml"], 1,
             f"{DATA}/bad-empty-read.xml:6:7: gpu 0 tb 0 step 1 (s, out of place): reads o[1], "
             "which holds nothing yet")
expect_error("a dependency cycle: verify names a waiting step",
             ["verify", f"{DATA}/bad-cycle.xml"], 1,
             f"{DATA}/bad-cycle.xml:5:7: gpu 0 tb 0 step 0 (s, in place): waits for tb 1 step 0, "
             "which never completes (a cycle of dependencies and messages)")
expect_error("a dependency cycle: run names the cycle of tasks",
             ["run", f"{DATA}/bad-cycle.xml", "--size", "4KiB", *POSTAL], 1,
             f"{DATA}/bad-cycle.xml:5:7: cycle: g0.t0.s0.send -> g0.t1.s0.recv -> "
             "g0.t1.s0.reduce -> g0.t0.s0.send")
expect_error("run needs --size for an algorithm",
             ["run", f"{DATA}/allreduce-ring-4.xml", *POSTAL], 2,
             f"{DATA}/allreduce-ring-4.xml: an MSCCL algorithm needs --size BYTES, the buffer "
             "of one rank (NCCL's count times the element size)")
expect_error("--size is refused for a YAML program",
             ["run", "programs/examples/a2.yaml", "--size", "1KiB", *POSTAL], 2,
             "programs/examples/a2.yaml: --size is for algorithm files (MSCCL, MSCCL++); this "
             "program's sizes are its own")
expect_error("other generator options are refused with files",
             ["run", f"{DATA}/allreduce-ring-4.xml", "--size", "1KiB", "--ranks", "4", *POSTAL],
             2, "run: generator options need --generate NAME (program files take --size alone, "
             "for algorithm files)")
expect_error("verify: the file names its collective",
             ["verify", f"{DATA}/allreduce-ring-4.xml", "--collective", "allgather"], 2,
             f"verify: {DATA}/allreduce-ring-4.xml: an MSCCL algorithm names its collective "
             "(coll=\"allreduce\"); --collective and --root are for fennel programs")


def makespan(*args):
    out = run_json(*args)
    return out.get("makespan_ns", out)


T = lambda c: 100 + 0.1 * c  # noqa: E731
D = 7
for name, size, want in [("allreduce-ring-4.xml", 4000, 6 * T(1000) + 3 * D),
                         ("allgather-ring-4.xml", 1000, D + 3 * T(1000)),
                         ("reducescatter-ring-4.xml", 1000, 3 * (T(1000) + D)),
                         ("alltoall-direct-4.xml", 1000, T(1000))]:
    got = makespan(f"{DATA}/{name}", "--size", str(size), *POSTAL)
    check(f"run {name} --size {size}: {want:g} ns", got == want, got)

# As GOAL: MSCCL's connections are buffered (eager sends), GOAL's sends are not, and
# LogGOPSim sends above its S by rendezvous, so a ring whose sends all wait for receives
# posted after them deadlocks. generate says so. allreduce-ring-4 at 1 MiB has chunks of
# c = 262144 B; under loggopsim-default (o 1500, L 2500, G 6 ns/B, S 65535 B, computes 0)
# each of its 6 steps takes o + L + o + (c - 1) G = 1 578 358 ns: 9 470 148 ns, which the
# GOAL gives with S = c.
with tempfile.TemporaryDirectory() as tmp:
    goal = os.path.join(tmp, "ring.goal")
    code, _, err = fennel("generate", "--from", f"{DATA}/allreduce-ring-4.xml", "--size", "1MiB",
                          "-f", "goal", "--model", "loggopsim-default", "-o", goal)
    check("GOAL of an MSCCL ring: a warning about S", code == 0 and err == (
        "fennel: generate: warning: eager sends (buffered connections) up to 262144 bytes: "
        "give S >= 262144 for the same times (LogP, LogGP)\n"), err)
    with open(goal) as f:
        check("... and the file says it", "\n// eager sends (buffered connections) up to "
              "262144 bytes" in f.read())
    code, _, err = fennel("run", goal, "--model", "loggopsim-default")
    check("the GOAL deadlocks at LogGOPSim's S", code == 1 and "never completed" in err, err)
    a = makespan(f"{DATA}/allreduce-ring-4.xml", "--size", "1MiB", "--model", "loggopsim-default")
    b = makespan(goal, "--model", "loggopsim-default", "--set", "S=262144")
    check("the ring and its GOAL with S = 262144: 6 x 1578358 = 9470148 ns",
          a == 9470148 and b == 9470148, f"{a} {b}")

# Slices: a chain 0 -> 1 -> 2 of one chunk of c = 4000 B under postal (alpha 50 ns, beta
# 0.1 ns/B). GPU 1 forwards a slice once it has it and has sent the one before (a postal
# send holds its thread block until arrival), so S equal slices take (S + 1) T with
# T = 50 + 0.1 c / S: 2 x 450 = 900 ns whole, 5 x 150 = 750 ns in four. Slices of 3000 and
# 1000 B (T1 = 350, T2 = 150): slice 0 reaches GPU 1 at 350 and GPU 2 at 700; slice 1
# reaches GPU 1 at 500 and leaves when the first has arrived, at 700: 850 ns.
CHAIN = ["--network", "postal", "--set", "alpha=50ns", "--set", "beta=0.1ns/B"]
for slice_args, want in [([], 900), (["--slice", "4000"], 900), (["--slice", "1000"], 750),
                         (["--slice", "3000"], 850)]:
    got = makespan(f"{DATA}/chain-3.xml", "--size", "4000", *slice_args, *CHAIN)
    check(f"a chain in slices {slice_args}: {want} ns", got == want, got)
expect_error("--slice must be a size", ["run", f"{DATA}/chain-3.xml", "--size", "4000",
                                         "--slice", "0", *CHAIN], 2,
             "run: --slice 0: must be positive")

# Rings of many sizes: verified, and timed by the formulas above.
with tempfile.TemporaryDirectory() as tmp:
    for p in [2, 3, 4, 5, 7, 8, 16, 31, 64, 100]:
        for coll in ("allreduce", "allgather", "reducescatter"):
            path = os.path.join(tmp, f"{coll}-{p}.xml")
            with open(path, "w") as f:
                f.write(ring.ring(coll, p))
            code, out, err = fennel("verify", path)
            reductions = p * (p - 1) if coll != "allgather" else 0
            place = "in place" if coll == "allreduce" else "out of place"
            want = (f"{path}: ok: {coll} over {p} gpus, {place}, {p} chunks, "
                    f"{reductions} reductions\n")
            check(f"verify the {p}-GPU ring {coll}", code == 0 and out == want, out + err)
            size = 100 * p if coll == "allreduce" else 100
            c = 100  # bytes per chunk in every case
            want = {"allreduce": (2 * p - 2) * T(c) + (p - 1) * D,
                    "allgather": D + (p - 1) * T(c),
                    "reducescatter": (p - 1) * (T(c) + D)}[coll]
            got = makespan(path, "--size", str(size), *POSTAL)
            check(f"run the {p}-GPU ring {coll}: {want:g} ns", abs(got - want) < 1e-6, got)

# Two constructions of one algorithm: the ring allreduce written as MSCCL XML and fennel's
# own allreduce-ring generator (the same neighbour ring, a reduction after each of the first
# p - 1 receives) take the same time under lbp with a fixed compute (786432 B: whole chunks
# for 3, 8 and 16 GPUs, where MSCCL rounds a chunk down and fennel spreads the remainder).
with tempfile.TemporaryDirectory() as tmp:
    for p in (3, 8, 16):
        path = os.path.join(tmp, f"ring-{p}.xml")
        with open(path, "w") as f:
            f.write(ring.ring("allreduce", p))
        a = makespan(path, "--size", "786432", "--model", "thesis-figures")
        b = makespan("--generate", "allreduce-ring", "--ranks", str(p), "--size", "786432",
                     "--model", "thesis-figures")
        check(f"the {p}-GPU MSCCL ring and allreduce-ring take the same time", a == b, f"{a} {b}")

# Round trips: MSCCL -> fennel YAML reads back with the same times under two models.
LOGGP = ["--model", "loggopsim-default"]
with tempfile.TemporaryDirectory() as tmp:
    for name in VERDICTS:
        out = os.path.join(tmp, name + ".yaml")
        code, _, err = fennel("generate", "--from", f"{DATA}/{name}", "--size", "64KiB", "-o", out)
        check(f"generate --from {name}", code == 0, err)
        for model in (POSTAL, LOGGP):
            a = makespan(f"{DATA}/{name}", "--size", "64KiB", *model)
            b = makespan(out, *model)
            check(f"{name} and its YAML take the same time ({model[1]})",
                  a == b and isinstance(a, (int, float)), f"{a} vs {b}")

# validate counts steps with one byte per chunk unless --size is given.
code, out, err = fennel("validate", f"{DATA}/alltoall-direct-4.xml")
check("validate an all-to-all: 4 start, 4 copies, 12 sends and receives on 4 slots",
      code == 0 and "processes      4\n" in out and
      "tasks          32 (start 4, proxy 0, sleep 0, compute 4, put 0, get 0, send 12, recv 12)"
      in out and "messages       12 (12 B)" in out, out + err)

# The fast scanner reserves room for a tag up to its first '>': an attribute value holding
# '>' (valid XML) runs past it, and reads as GMarkup reads it: the same verdict.
with tempfile.TemporaryDirectory() as tmp:
    ring = os.path.join(ROOT, "tests", "data", "msccl", "allreduce-ring-4.xml")
    with open(ring) as f:
        text = f.read().replace('name="', 'name="' + ">" * 300, 1)
    odd = os.path.join(tmp, "gt.xml")
    with open(odd, "w") as f:
        f.write(text)
    code, out, err = fennel("verify", odd)
    check("an attribute value full of '>' reads and verifies",
          code == 0 and out == odd + ": ok: allreduce over 4 gpus, in place, 4 chunks, "
          "12 reductions\n", out + err)

# A UTF-8 byte-order mark before the text (as editors on Windows save it) is stepped over:
# the same verdict, the same time, the same error at the same line and column as without.
with tempfile.TemporaryDirectory() as tmp:
    for name in ("allgather-ring-4.xml", "bad-wrong-peer.xml", "../mscclpp/allgather-3.json"):
        with open(os.path.join(ROOT, DATA, name), "rb") as f:
            text = f.read()
        marked = os.path.join(tmp, "bom-" + os.path.basename(name))
        with open(marked, "wb") as f:
            f.write(b"\xef\xbb\xbf" + text)
        plain = f"{DATA}/{name}"
        code1, out1, err1 = fennel("verify", plain)
        code2, out2, err2 = fennel("verify", marked)
        check(f"{name} after a byte-order mark: the same verdict",
              code1 == code2 and (out1 + err1).replace(plain, "F") ==
              (out2 + err2).replace(marked, "F"), out2 + err2)
        if code1 == 0:
            a = run_json(plain, "--size", "1MiB", *POSTAL)
            b = run_json(marked, "--size", "1MiB", *POSTAL)
            check(f"{name} after a byte-order mark: the same time",
                  a.get("makespan_ns") == b.get("makespan_ns") and "makespan_ns" in a, f"{a} {b}")

finish()
