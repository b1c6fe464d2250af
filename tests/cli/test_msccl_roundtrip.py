#!/usr/bin/env python3
"""The round trip MSCCL XML -> fennel YAML -> verify (docs/FORMATS.md, "The round trip through
YAML"): for every hand-written file of tests/data/msccl, `fennel verify` of the YAML that
`generate --from` writes gives the XML's verdict (the same line but for the file's name; an
error with the same words at the YAML's place), `fennel run` of both the same makespan, and
hand edits of the YAML are checked.

The places in the YAML are derived from its layout: line 1 is the generate command, then
`fennel: 1`, `name`, `ranks` (and `processes` when a GPU has several thread blocks),
`msccl:`, the algo row, each GPU's row followed by its thread blocks' rows, `tasks:`, and one
line per task in the lowering's order (a GPU's start, then each step's recv, compute and
send). A task's mapping starts at column 5, after "  - ".

Usage: test_msccl_roundtrip.py FENNEL SOURCE_ROOT. Prints TAP.
"""
import os
import tempfile

from harness import check, expect_error, fennel, finish, run_json

DATA = "tests/data/msccl"
POSTAL = ["--network", "postal", "--set", "alpha=100ns", "--set", "beta=0.1ns/B",
          "--set", "duration=7ns"]

# The XML's verdicts, from tests/cli/test_msccl.py (derived there by hand), with the YAML's
# place of each error: in allreduce-ring-4 and its variants (4 GPUs, one thread block each,
# steps s rrs rrs rrcs rcs rcs r: 15 tasks a GPU after its start) the tasks start on line 16,
# so GPU 1's start is on line 32 and its step 1 (rrs) begins on line 34; GPU 0's row is
# line 7. The two-GPU files have their tasks from line 12: in bad-double-count GPU 0's step
# 1 (rrc) begins on line 14 after its start and its send; in bad-empty-read also, after a
# copy. names-2 has `processes: 2` and three thread-block rows: its tasks start on line 14,
# and GPU 0's thread block 1 (re) comes after 6 tasks of thread block 0, on line 21.
VERDICTS = {
    "allreduce-ring-4.xml": (None, "ok: allreduce over 4 gpus, in place, 4 chunks, 12 reductions"),
    "allgather-ring-4.xml": (None, "ok: allgather over 4 gpus, out of place, 4 chunks, "
                                   "0 reductions"),
    "reducescatter-ring-4.xml": (None, "ok: reducescatter over 4 gpus, out of place, 4 chunks, "
                                       "12 reductions"),
    "alltoall-direct-4.xml": (None, "ok: alltoall over 4 gpus, out of place, 4 chunks, "
                                    "0 reductions"),
    "allreduce-2chan-ll.xml": (None, "ok: allreduce over 2 gpus, in place, 2 chunks, "
                                     "4 reductions"),
    "chain-3.xml": (None, "ok: custom over 3 gpus (no collective to compare with: data flow "
                          "only), in place, 1 chunk, 0 reductions"),
    "bad-missing-reduction.xml": (("2:3", "7:5"), "gpu 0 (in place): i[0] (chunk 0) lacks "
                                                  "contributions from ranks 1"),
    "bad-wrong-offset.xml": (("16:7", "34:5"), "gpu 1 tb 0 step 1 (rrs, in place): reduces "
                                               "chunk 0 (received) with chunk 2 (i[2]): "
                                               "different chunks of the collective"),
    "bad-double-count.xml": (("7:7", "14:5"), "gpu 0 tb 0 step 1 (rrc, in place): counts the "
                                              "contributions of ranks 0 to chunk 0 twice"),
    "bad-empty-read.xml": (("6:7", "14:5"), "gpu 0 tb 0 step 1 (s, out of place): reads o[1], "
                                            "which holds nothing yet"),
    "names-2.xml": (("13:7", "21:5"), "gpu 0 tb 1 step 0 (re, in place): reduces chunk 0 (i[0]) "
                                      "with chunk 1 (i[1]): different chunks of the collective"),
}


def makespan(*args):
    out = run_json(*args)
    return out.get("makespan_ns", out)


def generate(xml, yaml, *extra):
    code, _, err = fennel("generate", "--from", xml, "--size", "4000", "-o", yaml, *extra)
    check(f"generate --from {xml}", code == 0, err)


def verdict_line(path, places, words, index):
    if places is None:
        return 0, f"{path}: {words}\n", ""
    return 1, "", f"fennel: {path}:{places[index]}: {words}\n"


with tempfile.TemporaryDirectory() as tmp:
    for name, (places, words) in VERDICTS.items():
        xml = f"{DATA}/{name}"
        yaml = os.path.join(tmp, name + ".yaml")
        generate(xml, yaml)
        for index, path in enumerate((xml, yaml)):
            want = verdict_line(path, places, words, index)
            got = fennel("verify", path)
            check(f"verify {os.path.basename(path)}: the XML's verdict", got == want,
                  f"{got} vs {want}")
        for model in (POSTAL, ["--model", "loggopsim-default"]):
            a = makespan(xml, "--size", "4000", *model)
            b = makespan(yaml, *model)
            check(f"{name} and its YAML take the same time ({model[1]})",
                  a == b and isinstance(a, (int, float)), f"{a} vs {b}")

# allreduce-2chan-ll in LL at 4000 bytes: chunks of 2000 bytes, 4000 on the wire, so a
# message takes T = 100 + 0.1 x 4000 = 500 ns under postal, whose sender is busy until it
# arrives. Thread block 1 sends when thread block 0's send is done (its dependency), at T;
# its chunk arrives at 2T and is added (d = 7 ns): 2T + d = 1007 ns, in XML and YAML alike.
with tempfile.TemporaryDirectory() as tmp:
    xml = f"{DATA}/allreduce-2chan-ll.xml"
    yaml = os.path.join(tmp, "2chan.yaml")
    generate(xml, yaml)
    for path, extra in ((xml, ["--size", "4000"]), (yaml, [])):
        got = makespan(path, *extra, *POSTAL)
        check(f"{os.path.basename(path)}: 2T + d = 1007 ns", got == 1007, got)
    with open(yaml) as f:
        text = f.read()

    def variant(name, old, new):
        check(f"{name}: the text to edit is there", old in text, old)
        path = os.path.join(tmp, name + ".yaml")
        with open(path, "w") as f:
            f.write(text.replace(old, new))
        return path

    # Its layout: `processes: 2`, GPU 1's row on line 11 and its thread block 1's on 13;
    # tasks from line 15, GPU 1's start on 22, its thread block 1's send on 26, recv on 27.
    path = variant("tag", "size: 4000B, tag: 1, slot: 1, after: [g1.t1.s0.send]",
                   "size: 4000B, slot: 1, after: [g1.t1.s0.send]")
    expect_error("a recv on another channel than its thread block's", ["verify", path], 1,
                 f"{path}:27:5: gpu 1 tb 1 step 1 (r): its recv has tag 0, but its thread "
                 "block's row says chan: 1 (at 13:5)")
    path = variant("no-dep", "src: i1, cnt: 1, dep: t0.s0}\n  - {id: g1.t1.s1",
                   "src: i1, cnt: 1}\n  - {id: g1.t1.s1")
    expect_error("an edge without its dependency", ["verify", path], 1,
                 f"{path}:26:5: gpu 1 tb 1 step 0 (s): task 'g1.t1.s0.send' follows "
                 "'g1.t0.s0.send', an order the algorithm does not have")
    path = variant("no-edge", "after: [g1.start, g1.t0.s0.send]", "after: [g1.start]")
    expect_error("a dependency without its edge", ["verify", path], 1,
                 f"{path}:26:5: gpu 1 tb 1 step 0 (s): task 'g1.t1.s0.send' must follow "
                 "'g1.t0.s0.send' (the step it depends on)")

# Files that do not lower have no YAML: generate refuses them as run does.
expect_error("generate: a wrong peer has no YAML",
             ["generate", "--from", f"{DATA}/bad-wrong-peer.xml", "--size", "4000"], 1,
             f"{DATA}/bad-wrong-peer.xml:25:5: gpu 2 sends 6 messages to gpu 0 on channel 0, "
             "which receives 0")
expect_error("generate: a cycle has no YAML",
             ["generate", "--from", f"{DATA}/bad-cycle.xml", "--size", "4000"], 1,
             f"{DATA}/bad-cycle.xml:5:7: cycle: g0.t0.s0.send -> g0.t1.s0.recv -> "
             "g0.t1.s0.reduce -> g0.t0.s0.send")

# Hand edits of allreduce-ring-4's YAML (the layout above: GPU 1's row on line 9, its thread
# block's on line 10, its start on line 32, its steps s on 33, rrs on 34-36 and 37-39, rrcs
# from 40).
with tempfile.TemporaryDirectory() as tmp:
    base = os.path.join(tmp, "ring.yaml")
    generate(f"{DATA}/allreduce-ring-4.xml", base)
    with open(base) as f:
        text = f.read()

    def edited(name, old, new, count=1):
        check(f"{name}: the text to edit is there", text.count(old) >= count, old)
        path = os.path.join(tmp, name + ".yaml")
        with open(path, "w") as f:
            f.write(text.replace(old, new))
        return path

    def line(task):
        return next(l for l in text.splitlines() if l.startswith(f"  - {{id: {task},"))

    # One task deleted (the reduction of GPU 1's rrcs), its successor made to follow the recv.
    reduce = line("g1.t0.s3.reduce") + "\n"
    path = os.path.join(tmp, "deleted.yaml")
    with open(path, "w") as f:
        f.write(text.replace(reduce, "").replace("after: [g1.t0.s3.reduce]",
                                                 "after: [g1.t0.s3.recv]"))
    expect_error("a task deleted from its step", ["verify", path], 1,
                 f"{path}:40:5: gpu 1 tb 0 step 3 (rrcs): no compute task (an rrcs step is a "
                 "recv, a compute and a send)")
    # The offset of GPU 1's step 1 changed on its three tasks: the step now reduces chunk 2
    # with the chunk 0 it receives, which the checker refuses as it refuses
    # bad-wrong-offset.xml (the same edit, in XML).
    path = os.path.join(tmp, "offset.yaml")
    step = [line(f"g1.t0.s1.{t}") for t in ("recv", "reduce", "send")]
    changed = text
    for l in step:
        changed = changed.replace(l, l.replace("src: i0", "src: i2"))
    with open(path, "w") as f:
        f.write(changed)
    expect_error("an offset changed: the checker's verdict", ["verify", path], 1,
                 f"{path}:34:5: " + VERDICTS["bad-wrong-offset.xml"][1])
    # The offset changed on one task alone: its step's tasks disagree. The value's column:
    # the line up to "src: " is measured in the test, as a reader counts it.
    one = line("g1.t0.s1.reduce")
    path = edited("offset-one", one, one.replace("src: i0", "src: i2"))
    col = one.index("src: i0") + len("src: ") + 1
    expect_error("an offset changed on one task", ["verify", path], 1,
                 f"{path}:35:{col}: src: i2, but the step's task at 34:5 says i0")
    # The peer of GPU 1's thread block changed: its sends go elsewhere than the row says.
    path = edited("peer", "{gpu: 1, tb: 0, send: 2,", "{gpu: 1, tb: 0, send: 3,")
    expect_error("a thread block's peer changed", ["verify", path], 1,
                 f"{path}:33:5: gpu 1 tb 0 step 0 (s): its send goes to gpu 2, but its thread "
                 "block's row says send: 3 (at 10:5)")
    # A send task's peer changed.
    send = line("g1.t0.s1.send")
    path = edited("to", send, send.replace("to: 2,", "to: 3,"))
    expect_error("a send's peer changed", ["verify", path], 1,
                 f"{path}:36:5: gpu 1 tb 0 step 1 (rrs): its send goes to gpu 3, but its thread "
                 "block's row says send: 2 (at 10:5)")
    # Timing edits keep the verdict: a sleep between two steps, and every size halved.
    nap = "  - {id: g1.nap, type: sleep, rank: 1, duration: 50ns, after: [g1.t0.s1.send]}\n"
    path = os.path.join(tmp, "sleep.yaml")
    with open(path, "w") as f:
        f.write(text.replace(line("g1.t0.s2.recv"), line("g1.t0.s2.recv").replace(
            "after: [g1.t0.s1.send]", "after: [g1.nap]")) + nap)
    code, out, err = fennel("verify", path)
    check("a sleep between steps keeps the verdict",
          (code, out) == (0, f"{path}: {VERDICTS['allreduce-ring-4.xml'][1]}\n"), out + err)
    path = edited("sizes", "size: 1000B", "size: 500B", count=48)
    code, out, err = fennel("verify", path)
    check("other sizes keep the verdict",
          (code, out) == (0, f"{path}: {VERDICTS['allreduce-ring-4.xml'][1]}\n"), out + err)

    # With --slice the program is not the algorithm's step for step: plain YAML, which verify
    # checks as a fennel program (and so asks for a collective).
    sliced = os.path.join(tmp, "sliced.yaml")
    generate(f"{DATA}/allreduce-ring-4.xml", sliced, "--slice", "500")
    with open(sliced) as f:
        check("a sliced program is written without the algorithm", "msccl:" not in f.read())
    expect_error("verify of a sliced program asks for a collective", ["verify", sliced], 2,
                 f"verify: {sliced} says no collective: give --collective KIND (allreduce, "
                 "reduce, bcast, allgather, reduce-scatter, scatter, gather, barrier, "
                 "alltoall)")
    # The file names its collective, as the XML does.
    expect_error("verify: the YAML names its collective",
                 ["verify", base, "--collective", "allgather"], 2,
                 f"verify: {base}: an MSCCL algorithm names its collective (coll=\"allreduce\"); "
                 "--collective and --root are for fennel programs")

finish()
