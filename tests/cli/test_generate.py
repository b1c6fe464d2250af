#!/usr/bin/env python3
"""CLI tests of `fennel generate` and the generators' times.

Usage: test_generate.py FENNEL SOURCE_ROOT. Prints TAP.

- Errors: an unknown generator, option or format and a missing name are usage errors
  (exit 2), a rank count or root outside a generator's domain an input error (exit 1);
  one line on stderr, nothing on stdout, no output file.
- Output: YAML on stdout by default, the same bytes atomically to -o FILE.
- Round trip: every generator that `fennel list` shows, written as YAML and run from the
  file, gives the same tasks, makespan, rank finish times, messages and bytes as the
  generated program run directly; `fennel validate` reads the file.
- Times: the original Fennel's point-to-point programs give the original's times under
  its test models (tests/data/reference/*.model.yaml), and the collectives the times
  derived below from the engine rules (docs/SEMANTICS.md) and the cited formulas.
"""
import json
import os
import re
import tempfile

from harness import FENNEL, ROOT, check, fennel, finish

REF = os.path.join(ROOT, "tests", "data", "reference")
THESIS = os.path.join(ROOT, "models", "presets", "thesis-figures.yaml")
RAIL = os.path.join(ROOT, "tests", "data", "topology", "rail.model.yaml")
SHARP_ONE_GPU = os.path.join(ROOT, "tests", "data", "sharp", "one-gpu.model.yaml")


def expect_error(name, args, status, stderr_start):
    code, out, err = fennel(*args)
    ok = code == status and err.startswith("fennel: " + stderr_start) and \
        err.count("\n") == 1 and out == ""
    check(name, ok, f"status {code}, stderr {err!r}, stdout {out[:200]!r}")


def run_json(*args):
    code, out, err = fennel("run", *args, "--json")
    if code != 0:
        return None, err
    return json.loads(out), err


def close(a, b):
    return isinstance(a, (int, float)) and abs(a - b) <= 5e-4


def expect_times(name, args, makespan, rank_finish=None, messages=None):
    summary, err = run_json(*args)
    if summary is None:
        check(name, False, err)
        return
    ok = close(summary["makespan_ns"], makespan)
    if rank_finish is not None:
        got = summary["rank_finish_ns"]
        ok = ok and len(got) == len(rank_finish) and all(
            close(g, w) for g, w in zip(got, rank_finish))
    if messages is not None:
        ok = ok and summary["messages"] == messages
    check(name, ok, f"makespan {summary['makespan_ns']} (expected {makespan}), rank finish "
          f"{summary['rank_finish_ns']} (expected {rank_finish}), messages "
          f"{summary['messages']} (expected {messages})")


def generators():
    """(name, options) of every generator in `fennel list`."""
    code, out, _ = fennel("list")
    found, name = [], None
    for line in out.splitlines():
        m = re.match(r"^  ([a-z0-9-]+) ", line)
        if m and not line.startswith("    "):
            name = m.group(1)
            continue
        m = re.match(r"^    options:(.*)$", line)
        if m and name:
            found.append((name, m.group(1)))
            name = None
    return found


POSTAL = ["--network", "postal", "--set", "resolution=1ns"]


def model(name):
    return ["--model", os.path.join(REF, name)]


with tempfile.TemporaryDirectory() as tmp:
    # ---- Errors ----
    expect_error("no generator name", ["generate"], 2,
                 "generate: no generator given (fennel generate NAME [options], or --from FILE)")
    expect_error("unknown generator", ["generate", "allreduce-foo"], 2,
                 "unknown generator 'allreduce-foo' (known: ")
    expect_error("option the generator does not use", ["generate", "allreduce-tree",
                                                        "--width", "3"], 2,
                 "generator allreduce-tree does not use --width")
    expect_error("unknown format", ["generate", "send", "--format", "xml"], 2,
                 "generate: --format xml: unknown format (known: yaml")
    expect_error("unknown variant", ["generate", "send", "--variant", "fast"], 2,
                 "--variant fast: send knows blocking and nonblocking")
    # 10^11 one-byte segments: more than a program's blocks can number (2^32 - 2); the tree
    # reduce takes few tasks a segment, so the segment check speaks before the task limit.
    expect_error("too many segments", ["generate", "reduce-binomial", "--ranks", "4", "--size",
                                       "100000000000", "--segment", "1"], 1,
                 "reduce-binomial needs at most 4294967294 segments (--size / --segment), "
                 "got 100000000000")
    expect_error("two names", ["generate", "send", "fetch"], 2,
                 "generate: unexpected argument 'fetch'")
    expect_error("bad rank count", ["generate", "bcast-binomial", "--ranks", "0"], 2,
                 "--ranks 0: expected a whole number >= 1")
    expect_error("root outside the ranks: input error", ["generate", "bcast-binomial",
                                                          "--ranks", "4", "--root", "4"], 1,
                 "bcast-binomial needs --root within 0..3 (--ranks 4), got 4")
    expect_error("threshold outside the partitions", ["generate", "partitioned",
                                                      "--partitions", "2", "--threshold", "2"],
                 1, "partitioned needs 0 < --threshold < --partitions (got 2 and 2)")

    # ---- Output ----
    code, out, err = fennel("generate", "allreduce-tree", "--ranks", "4")
    check("YAML on stdout", code == 0 and out.startswith(
        "# fennel generate allreduce-tree --ranks 4\nfennel: 1\nname: \"allreduce-tree\"\n"
        "collective: allreduce\nranks: 4\ntasks:\n"), out[:300])
    path = os.path.join(tmp, "tree.yaml")
    code2, out2, _ = fennel("generate", "allreduce-tree", "--ranks", "4", "-o", path)
    with open(path) as f:
        written = f.read()
    check("-o writes the same program", code2 == 0 and out2 == "" and
          written.split("\n", 1)[1] == out.split("\n", 1)[1])
    code, _, _ = fennel("generate", "allreduce-tree", "--ranks", "4", "--size", "nope",
                        "-o", path)
    with open(path) as f:
        check("a failed generate leaves -o FILE as it was", code == 2 and f.read() == written)
    missing = os.path.join(tmp, "no", "such", "dir", "x.yaml")
    code, _, err = fennel("generate", "send", "-o", missing)
    check("unwritable -o: exit 1, no file", code == 1 and err.startswith("fennel: ") and
          not os.path.exists(missing), err)
    check("no temporary files left behind", sorted(os.listdir(tmp)) == ["tree.yaml"],
          os.listdir(tmp))

    # ---- Round trip of every generator ----
    listed = generators()
    check("fennel list shows the generators", len(listed) >= 20 and
          any(n == "bcast-knomial" and "--radix" in o for n, o in listed), listed)
    for name, options in listed:
        counts = [1, 6, 8] if "--ranks" in options else [None]
        for n in counts:
            gen = ["--generate", name] + (["--ranks", str(n)] if n else [])
            label = f"{name}" + (f" --ranks {n}" if n else "")
            file = os.path.join(tmp, "rt.yaml")
            code, _, err = fennel("generate", *gen[1:], "-o", file)
            # NVLS's operations of a switch need a topology: one server of 8 GPUs.
            against = RAIL if name.startswith("nccl-nvls") else THESIS
            # CollNet's SHARP needs a topology whose leaves reduce: servers of one GPU.
            if name == "nccl-collnet":
                against = SHARP_ONE_GPU
            direct, derr = run_json(*gen, "--model", against)
            if code == 1 and direct is None:
                continue  # outside the generator's domain, both ways
            from_file, ferr = run_json(file, "--model", against)
            ok = code == 0 and direct is not None and from_file is not None and all(
                from_file[k] == direct[k] for k in
                ("tasks", "makespan_ns", "rank_finish_ns", "messages", "bytes", "ranks"))
            vcode, vout, _ = fennel("validate", file, "--json")
            ok = ok and vcode == 0 and json.loads(vout)["tasks"] == direct["tasks"]
            check(f"round trip through YAML: {label}", ok,
                  f"generate: {err} direct: {derr} {direct} file: {ferr} {from_file}")
            if os.path.exists(file):
                os.unlink(file)

    # ---- The original's point-to-point programs, under its test models ----
    # send(10, True) on LB(100, 0): the put takes alpha = 100 (drawing test send).
    expect_times("send 10 B, postal alpha 100 -> 100",
                 ["--generate", "send", "--size", "10B", "--variant", "blocking",
                  *model("lb-100-0-gamma-0.model.yaml")], 100, [100, 100], 1)
    # send(125000, True) on LB(100, 1): 100 + 125000 x 1 = 125100 (test_bandwidth).
    expect_times("send 125000 B, postal beta 1 -> 125100",
                 ["--generate", "send", "--size", "125000B", "--variant", "blocking",
                  *model("lb-100-1.model.yaml")], 125100, [125100, 125100])
    # lbp 500/100/0.4, 8 B: arrival at 100 + 500 + 3.2 = 603.2; non-blocking, the
    # sender is free at alpha_r = 100 and its end proxy does not wait for the put;
    # blocking, it is busy until the arrival.
    lbp = ["--network", "lbp", "--set", "alpha_p=500ns", "--set", "alpha_r=100ns",
           "--set", "beta=0.4ns/B"]
    expect_times("send non-blocking under lbp: sender ends at alpha_r",
                 ["--generate", "send", *lbp], 603.2, [100, 603.2])
    expect_times("send --variant blocking under lbp: sender busy until arrival",
                 ["--generate", "send", "--variant", "blocking", *lbp], 603.2, [603.2, 603.2])
    # fetch(1024) on LB(100, 0.1): request 100 + int(0.8) = 100 reaches rank 1, data back
    # at 100 + 100 + int(102.4) = 302 (drawing test pm_fetch).
    expect_times("fetch 1024 B -> 302", ["--generate", "fetch", "--size", "1024B",
                                         *model("lb-100-0.1-gamma-0.1.model.yaml")],
                 302, [302, 100], 2)
    # multicast(1, 2) on LBP(500, 0, 100): puts at 0 and 100 arrive 600 and 700
    # (drawing test ppm_double_send).
    expect_times("multicast width 2 -> 700", ["--generate", "multicast", "--size", "1B",
                                              "--width", "2",
                                              *model("lbp-500-0-100-gamma-0.model.yaml")],
                 700, [700, 600, 700], 2)
    # width 7 on LBP(880, 0, 380): alpha_p + 7 alpha_r = 3540 (thesis Eq. 4.6); rank c
    # receives at (c - 1) 380 + 1260.
    expect_times("multicast width 7 -> 3540 (Eq. 4.6)",
                 ["--generate", "multicast", "--width", "7", *model("lbp-880-0-380.model.yaml")],
                 3540, [3540, 1260, 1640, 2020, 2400, 2780, 3160, 3540], 7)
    # rta(1024) on LB(100, 0.1): request 0..100, get issued at 100 (request at 200, data
    # at 200 + 100 + 102 = 402), ack 402..502 (drawing test pm_rta); --rounds 3 repeats
    # it after both ends: 3 x 502.
    rta = ["--generate", "rta", "--size", "1024B", *model("lb-100-0.1-gamma-0.1.model.yaml")]
    expect_times("rta 1024 B -> 502", rta, 502, [502, 502], 4)
    expect_times("rta --rounds 3 -> 1506", rta + ["--rounds", "3"], 1506, [1506, 1506], 12)
    # rat(1024) on LB(100, 0.1): request 0..100, response 100..200, transfer
    # 200..200 + 100 + 102 = 402, ack 402..502 (drawing test pm_rat; the ack now goes back
    # from rank 1, which holds the data at 402, so the times are the same).
    expect_times("rat 1024 B -> 502", ["--generate", "rat", "--size", "1024B",
                                       *model("lb-100-0.1-gamma-0.1.model.yaml")],
                 502, [502, 502], 4)
    # The same under the thesis figures: 603.2 + 603.2, transfer issued at 1206.4 arrives
    # 1206.4 + 600 + 409.6 = 2216, ack 2216 + 603.2 = 2819.2.
    expect_times("rat 1024 B under the thesis figures -> 2819.2",
                 ["--generate", "rat", "--size", "1024B", "--model", THESIS], 2819.2,
                 [2819.2, 2819.2])
    # send_partitioned(16384, 2, 1, 1) on LB(1000, 0.1), gamma 0.1, two slots per rank:
    # 12190 (test_partitioned_generator; derivation in tests/cli/test_reference.py).
    expect_times("partitioned 16384 B, 2 partitions, threshold 1 -> 12190",
                 ["--generate", "partitioned", "--size", "16384B", "--partitions", "2",
                  "--threshold", "1", *model("lb-1000-0.1-gamma-0.1.model.yaml")],
                 12190, [12190, 12190], 4)
    # simple_compute(1024, 5) at gamma 0.05: 5 x int(51.2) = 255 (drawing test compute).
    expect_times("compute 5 rounds of 1024 B -> 255",
                 ["--generate", "compute", "--size", "1024B", "--rounds", "5",
                  *model("lb-0-0-gamma-0.05.model.yaml")], 255, [255], 0)
    # pingpong(8, 3) on LB(100, 0): 6 puts of 100 (drawing test pingpong).
    expect_times("pingpong 3 rounds -> 600",
                 ["--generate", "pingpong", "--rounds", "3",
                  *model("lb-100-0-gamma-0.model.yaml")], 600, [600, 600], 6)

    # ---- bsp: a pure function of the seed ----
    outs = [fennel("generate", "bsp", "--ranks", "4", "--rounds", "2", "--size", "1024",
                   "--seed", s)[1] for s in ("7", "7", "8")]
    check("bsp: same seed, same program; another seed, another",
          outs[0] == outs[1] and outs[0].split("\n", 1)[1] != outs[2].split("\n", 1)[1])
    # Its makespan from the drawn values: the first barrier waits for the largest skew,
    # each superstep for its largest compute (gamma 0.1 ns/B, LB(0, 0): no messages).
    body = outs[0]
    skews = [int(x) for x in re.findall(r"type: start, rank: \d+, skew: (\d+)ns", body)]
    sizes = [int(x) for x in re.findall(r"type: compute, rank: \d+, size: (\d+)B", body)]
    expected = max(skews + [0]) + sum(max(sizes[r * 4:(r + 1) * 4]) * 0.1 for r in range(2))
    expect_times("bsp makespan = largest skew + largest compute of each superstep",
                 ["--generate", "bsp", "--ranks", "4", "--rounds", "2", "--size", "1024",
                  "--seed", "7", "--network", "postal", "--set", "compute=gamma",
                  "--set", "gamma=0.1ns/B"], expected)
    check("bsp draws 4 skews and 8 sizes in range", len(skews) <= 4 and len(sizes) == 8 and
          all(0 <= s <= 100 for s in skews) and all(10 <= s <= 1024 for s in sizes),
          (skews, sizes))

    # ---- Collectives ----
    # Postal alpha 100 ns, beta 0.1 ns/B, gamma 0.1 ns/B, 1000 B: a message takes
    # 100 + 100 = 200 and a reduction 100, so a stage of a tree is 300.
    tree = ["--network", "postal", "--set", "alpha=100ns", "--set", "beta=0.1ns/B",
            "--set", "compute=gamma", "--set", "gamma=0.1ns/B", "--size", "1000B"]
    # Fan-in/fan-out on 8 ranks: 2 ceil(log2 8) (alpha + n beta + n gamma) = 6 x 300
    # (thesis Eq. 5.1; the fan-out's receivers compute too, docs/SCHEDULES.md).
    expect_times("allreduce-tree 8 ranks -> 2 log2(8) (a + nb + ng) = 1800",
                 ["--generate", "allreduce-tree", "--ranks", "8", *tree], 1800, None, 14)
    # Binomial reduce: ceil(lg p) (alpha + n beta + n gamma) = 3 x 300 (Rabenseifner 2004
    # §3.3); the root's last compute ends it.
    expect_times("reduce-binomial 8 ranks -> 3 (a + nb + ng) = 900",
                 ["--generate", "reduce-binomial", "--ranks", "8", *tree], 900, None, 7)
    # Chain broadcast on LB(100, 0): (p - 1) alpha whatever the root (the original's ring
    # broadcast, with its rotation fixed).
    for root in ("0", "4"):
        expect_times(f"bcast-ring 6 ranks from root {root} -> 5 x 100",
                     ["--generate", "bcast-ring", "--ranks", "6", "--root", root,
                      *model("lb-100-0-gamma-0.model.yaml")], 500, None, 5)
    # Pipelined chain broadcast (Open MPI's pipeline bcast) under postal alpha 100 ns, beta
    # 0.1 ns/B, where the sender is busy until the arrival. 4000 B in segments of 1000 B on
    # 6 ranks: S = 4 segments, chain position i sends segment b in stage i + b once it has
    # it and its previous send is done; every stage is 100 + 1000 x 0.1 = 200, and there are
    # S + p - 2 = 8 of them: 1600. Position i >= 1 gets segment 3 at (i + 3) 200 and ends
    # its own last send at (i + 4) 200: finishes 800, 1000, 1200, 1400, 1600, 1600; S (p - 1)
    # = 20 messages. From root 4 the chain is 4, 5, 0, 1, 2, 3.
    pipe = ["--generate", "bcast-pipeline", "--ranks", "6", "--network", "postal",
            "--set", "alpha=100ns", "--set", "beta=0.1ns/B"]
    expect_times("bcast-pipeline 6 ranks, 4 segments -> (4 + 6 - 2) x 200 = 1600",
                 [*pipe, "--size", "4000B", "--segment", "1000B"], 1600,
                 [800, 1000, 1200, 1400, 1600, 1600], 20)
    expect_times("bcast-pipeline from root 4 -> the same chain rotated",
                 [*pipe, "--size", "4000B", "--segment", "1000B", "--root", "4"], 1600,
                 [1200, 1400, 1600, 1600, 800, 1000], 20)
    # Unsegmented (no --segment, or one >= the size): the chain of bcast-ring, 5 x (100 +
    # 400) = 2500.
    for seg in ([], ["--segment", "0"], ["--segment", "4000B"]):
        expect_times(f"bcast-pipeline unsegmented {seg} -> 5 x 500 = 2500",
                     [*pipe, "--size", "4000B", *seg], 2500,
                     [500, 1000, 1500, 2000, 2500, 2500], 5)
    # 3500 B in 1000 B segments: 1000, 1000, 1000 and 500 (200, 200, 200, 150 a hop).
    # Segment 2 leaves position i at 400 + 200 i and arrives at 600 + 200 i; segment 3
    # follows it at 600 + 200 i and ends at 750 + 200 i: position 5 at 1550; position i
    # finishes its last send at 750 + 200 i (rank 0 750, ..., rank 4 1550).
    expect_times("bcast-pipeline uneven last segment -> 1550",
                 [*pipe, "--size", "3500B", "--segment", "1000B"], 1550,
                 [750, 950, 1150, 1350, 1550, 1550], 20)
    # reduce-pipeline: the chain 4 -> 3 -> 2 -> 1 -> 0 (root 0), reductions free under this
    # model. Unsegmented: 4 stages of one 1000 B put, 200 ns each; rank 4 sends at 0, rank 3
    # at 200 (after reducing what 4 sent), ..., rank 0 has the sum at 800.
    expect_times("reduce-pipeline 5 ranks unsegmented -> 4 x 200 = 800",
                 [*pipe, "--generate", "reduce-pipeline", "--size", "1000B", "--ranks", "5"],
                 800, [800, 800, 600, 400, 200], 4)
    # 4000 B in segments of 1000 B: S = 4 segments, S + p - 2 = 7 stages of 200 ns: rank 4
    # sends in stages 0-3 (ends 800), rank 3 in 1-4 (1000), rank 2 in 2-5 (1200), rank 1 in
    # 3-6 (1400), and the root receives the last at 1400; 4 x 4 = 16 messages.
    expect_times("reduce-pipeline 5 ranks, 4 segments -> (4 + 5 - 2) x 200 = 1400",
                 [*pipe, "--generate", "reduce-pipeline", "--size", "4000B", "--ranks", "5",
                  "--segment", "1000B"], 1400, [1400, 1400, 1200, 1000, 800], 16)
    # From root 2 the chain is 1 -> 0 -> 4 -> 3 -> 2: rank 1 ends at 800, 0 at 1000, 4 at
    # 1200, 3 and the root at 1400.
    expect_times("reduce-pipeline from root 2 -> the same chain rotated",
                 [*pipe, "--generate", "reduce-pipeline", "--size", "4000B", "--ranks", "5",
                  "--segment", "1000B", "--root", "2"], 1400, [1000, 800, 1400, 1400, 1200], 16)
    # bcast-split-bintree (Open MPI's split binary tree), 2000 B in halves of 1000 B (200 ns
    # a put) on Open MPI's binary tree: the root sends the first half to 1 (0-200) and the
    # second to 2 (200-400); rank 1 forwards to 3 (200-400) and 5 (400-600), rank 2 to 4
    # (400-600). Then the pairs swap halves: 1 and 2 once free at 600 (arriving 800), 3 at
    # 400 (600) and 4 at 600 (800); on 6 ranks rank 5 has no pair and the root, free at
    # 400, sends it the second half (600). 5 + 5 = 10 messages.
    expect_times("bcast-split-bintree 6 ranks -> 800",
                 [*pipe, "--generate", "bcast-split-bintree", "--size", "2000B", "--ranks", "6"],
                 800, [600, 800, 800, 800, 800, 600], 10)
    # On 5 ranks rank 1 has no child 5: free at 400, it sends to 2 (400-600); 2 sends to 1
    # once free at 600 (800); 3 sends to 4 at 400, 4 to 3 at 600 (800). 4 + 4 messages.
    expect_times("bcast-split-bintree 5 ranks -> 800",
                 [*pipe, "--generate", "bcast-split-bintree", "--size", "2000B", "--ranks", "5"],
                 800, [400, 800, 800, 800, 800], 8)
    # In segments (Open MPI 3.1's split binary tree, docs/COLLECTIVES.md): 4000 B on 6
    # ranks, halves of 2000 B in 2 segments of 1000 B (200 ns a put). Stage 0: the root
    # sends segment 0 of the first half to 1 (0-200), of the second to 2 (200-400). Stage 1:
    # the root's segments 1 to 1 (400-600) and 2 (600-800); rank 1 forwards segment 0 to 3
    # (200-400) and 5 (400-600), rank 2 to 4 (400-600). Stage 2: rank 1 forwards segment 1,
    # which it has at 600, to 3 (600-800) and 5 (800-1000); rank 2, with it at 800, to 4
    # (800-1000). Then the whole halves (2000 B, 300 ns): 1 and 2 swap once free at 1000
    # (1300); 3 sends at 800 (1100), 4 at 1000 (1300); the root, free at 800, sends rank 5
    # the second half (1100). 10 + 5 messages.
    expect_times("bcast-split-bintree 6 ranks, segments of 1000 B -> 1300",
                 [*pipe, "--generate", "bcast-split-bintree", "--size", "4000B", "--ranks", "6",
                  "--segment", "1000B"],
                 1300, [1100, 1300, 1300, 1300, 1300, 1100], 15)
    # A segment larger than a half (2500 B > 2000 B): Open MPI's chain in segments of
    # 2500 B and 1500 B (350 and 250 ns a hop). Segment 0 reaches chain position i at
    # 350 i; segment 1 leaves i once i's send of segment 0 ends, at 350 (i + 1), and arrives
    # 250 later: position 5 at 350 x 5 + 250 = 2000. 2 x 5 messages.
    expect_times("bcast-split-bintree segment above a half -> the chain, 2000",
                 [*pipe, "--generate", "bcast-split-bintree", "--size", "4000B", "--ranks", "6",
                  "--segment", "2500B"],
                 2000, [600, 950, 1300, 1650, 2000, 2000], 10)
    # allreduce-ring-segmented (Open MPI's ring_segmented), reductions free under this
    # model. 6000 B on 3 ranks in segments of 1000 B: 6000 / (3 x 1000) = 2 phases, rest 0;
    # parts of 1000 B (200 ns): 2 phases x 2 steps = 800, then the allgather of blocks of
    # 2000 B (300 ns), 2 steps: 1400; 3 x 2 x 2 + 3 x 2 = 18 messages.
    seg_ring = [*pipe, "--generate", "allreduce-ring-segmented", "--ranks", "3"]
    expect_times("allreduce-ring-segmented 3 ranks, 2 phases -> 1400",
                 [*seg_ring, "--size", "6000B", "--segment", "1000B"], 1400, [1400] * 3, 18)
    # 9000 B: 3 phases of parts of 1000 B (1200), allgather of 3000 B blocks (2 x 400): 2000.
    expect_times("allreduce-ring-segmented 3 ranks, 3 phases -> 2000",
                 [*seg_ring, "--size", "9000B", "--segment", "1000B"], 2000, [2000] * 3, 24)
    # The phase count's rest (coll_base_allreduce.c lines 660-664): 7500 B leaves 1500,
    # not more than 3 x 1000 / 2: 2 phases (parts of 1250 B, 225 ns: 900; blocks of 2500 B,
    # 350 ns: 700), 18 messages; 7600 B leaves 1600: a third phase, 24 messages.
    expect_times("allreduce-ring-segmented rest 1500 -> 2 phases, 1600",
                 [*seg_ring, "--size", "7500B", "--segment", "1000B"], 1600, [1600] * 3, 18)
    summary, err = run_json(*seg_ring, "--size", "7600B", "--segment", "1000B")
    check("allreduce-ring-segmented rest 1600 -> 3 phases, 24 messages",
          summary is not None and summary["messages"] == 24, summary or err)
    # Below ranks x segment (2400 B < 3000 B) the plain ring: 4 steps of 800 B blocks
    # (180 ns), 12 messages.
    expect_times("allreduce-ring-segmented below p x segment -> the ring, 720",
                 [*seg_ring, "--size", "2400B", "--segment", "1000B"], 720, [720] * 3, 12)
    # Segmented tree reduces (Open MPI 3.1's binomial and binary in segments), reductions
    # free: a rank sends segment j in stage h + j, h its subtree's height. reduce-binomial
    # on 8 ranks (parents: v less its lowest set bit), 4000 B in 4 segments of 1000 B
    # (200 ns): the leaves 1, 3, 5, 7 send in stages 0-3 (end 800), 2 and 6 (height 1) in
    # 1-4 (1000), 4 (height 2: children 5 and 6) in 2-5 (1200), when the root has the last.
    # 7 x 4 messages. Unsegmented it would be 3 x 500 = 1500.
    expect_times("reduce-binomial 8 ranks, 4 segments -> 1200",
                 [*pipe, "--generate", "reduce-binomial", "--size", "4000B", "--ranks", "8",
                  "--segment", "1000B"],
                 1200, [1200, 800, 1000, 800, 1200, 800, 1000, 800], 28)
    # reduce-bintree on 6 ranks (Open MPI's binary tree: 3, 5 -> 1; 4 -> 2; 1, 2 -> 0),
    # 8000 B in 4 segments of 2000 B (300 ns): the leaves 3, 4, 5 send in stages 0-3 (end
    # 1200), 1 and 2 in 1-4 (1500). 5 x 4 messages; unsegmented 2 x 900 = 1800.
    expect_times("reduce-bintree 6 ranks, 4 segments -> 1500",
                 [*pipe, "--generate", "reduce-bintree", "--size", "8000B", "--ranks", "6",
                  "--segment", "2000B"],
                 1500, [1500, 1500, 1500, 1200, 1200, 1200], 20)
    # Open MPI's linear all-to-alls, scatters and gathers and its Bruck all-to-all, under
    # the same postal model (a put of 1000 B holds its sender until it arrives, 100 + 1000 x
    # 0.1 = 200 ns; an empty one 100 ns).
    # alltoall-linear: every rank sends its 3 blocks back to back: 3 x 200 = 600 on every
    # rank, 4 x 3 = 12 messages; rank 0 sends to 3, then 2, then 1 (rank - 1 first).
    expect_times("alltoall-linear 4 ranks -> 3 x 200 = 600",
                 [*pipe, "--generate", "alltoall-linear", "--ranks", "4", "--size", "1000B"],
                 600, [600] * 4, 12)
    code, out, _ = fennel("generate", "alltoall-linear", "--ranks", "4", "--size", "1000B")
    order = re.findall(r"id: s1\.put\.r0-r(\d+)", out)
    check("alltoall-linear: rank 0 sends to 3, 2, 1", code == 0 and order == ["3", "2", "1"],
          str(order))
    # alltoall-scattered (MPICH's scattered, batches of 32 offsets) on 34 ranks under the
    # thesis figures (a put of 1000 B issued at t holds its rank until t + 100 and arrives
    # at t + 100 + 500 + 400 = t + 1000): the first batch is the offsets 1 .. 31, rank r's
    # i-th put (to r - i) issued at (i - 1) x 100, so the last a rank receives (from r + 31)
    # arrives at 3000 + 1000 = 4000; the second batch, offsets 32 and 33, is issued at
    # 4000 and 4100 and arrives at 5000 and 5100. (alltoall-linear, not waiting between
    # batches, would end at 3200 + 1000 = 4200.) 34 x 33 = 1122 messages.
    expect_times("alltoall-scattered 34 ranks -> 4000 + 100 + 1000 = 5100",
                 ["--generate", "alltoall-scattered", "--ranks", "34", "--size", "1000B",
                  "--model", THESIS], 5100, [5100] * 34, 1122)
    code, out, _ = fennel("generate", "alltoall-scattered", "--ranks", "34", "--size", "1000B")
    order = [int(d) for d in re.findall(r"id: s\d+\.put\.r0-r(\d+)", out)]
    check("alltoall-scattered: rank 0 sends to 33, 32, ..., 1",
          code == 0 and order == list(range(33, 0, -1)), str(order))
    # alltoall-bruck on 5 ranks: step d = 1 moves the blocks at positions 1 and 3 (2000 B,
    # 300 ns), d = 2 those at 2 and 3 (2000 B, 300 ns), d = 4 the one at 4 (1000 B, 200 ns);
    # each step waits for the block from rank - d: 800 ns, 3 x 5 = 15 messages.
    expect_times("alltoall-bruck 5 ranks -> 300 + 300 + 200 = 800",
                 [*pipe, "--generate", "alltoall-bruck", "--ranks", "5", "--size", "1000B"],
                 800, [800] * 5, 15)
    # scatter-linear from root 1 of 4: the root sends to 0, 2, 3 in turn, arriving at 200,
    # 400, 600; the root is busy until 600.
    expect_times("scatter-linear root 1 of 4 -> 600",
                 [*pipe, "--generate", "scatter-linear", "--ranks", "4", "--size", "1000B",
                  "--root", "1"], 600, [200, 600, 400, 600], 3)
    # gather-linear to root 1 of 4: the three blocks leave at once and arrive at 200.
    expect_times("gather-linear root 1 of 4 -> 200",
                 [*pipe, "--generate", "gather-linear", "--ranks", "4", "--size", "1000B",
                  "--root", "1"], 200, [200] * 4, 3)
    # gather-linear-sync to root 1 of 4: the root asks 0 (0-100), 0's block arrives at 300;
    # asks 2 (300-400), block at 600; asks 3 (600-700), block at 900. Each asked rank sends
    # its empty second segment once its block has arrived: rank 0 300-400, rank 2 600-700,
    # rank 3 900-1000, the root's last arrival. 3 x 3 = 9 messages.
    expect_times("gather-linear-sync root 1 of 4 -> 1000",
                 [*pipe, "--generate", "gather-linear-sync", "--ranks", "4", "--size", "1000B",
                  "--root", "1"], 1000, [400, 1000, 700, 1000], 9)
    # The same with first segments of 400 B (Open MPI 3.1's linear_sync cuts each block
    # into a first segment, 100 + 40 = 140 ns, and the rest, 600 B: 160 ns; the root waits
    # for the first only): asks 0 (0-100), 0 sends 100-240 and its rest 240-400; asks 2 at
    # 240-340, 2 sends 340-480 and 480-640; asks 3 at 480-580, 3 sends 580-720 and 720-880,
    # the root's last arrival. 3 x 3 = 9 messages. A segment of the whole block or more
    # (1000 B) cuts nothing: the unsegmented program, 1000 ns.
    expect_times("gather-linear-sync root 1 of 4, first segments of 400 B -> 880",
                 [*pipe, "--generate", "gather-linear-sync", "--ranks", "4", "--size", "1000B",
                  "--root", "1", "--segment", "400B"], 880, [400, 880, 640, 880], 9)
    expect_times("gather-linear-sync, a segment of the whole block -> 1000",
                 [*pipe, "--generate", "gather-linear-sync", "--ranks", "4", "--size", "1000B",
                  "--root", "1", "--segment", "1000B"], 1000, [400, 1000, 700, 1000], 9)
    # reduce-scatter-nonoverlapping (Open MPI's nonoverlapping: reduce to 0, then rank 0
    # sends each rank its part in rank order) on 4 ranks, 40 B: 10 floats, parts of 3, 3,
    # 2, 2 (IMB's split: the first ranks one more) = 12, 12, 8, 8 B. Linear reduce: ranks
    # 1-3 send 40 B at once, arriving at 104 (reductions free here); rank 0 then sends 12 B
    # to 1 (101.2 ns, arriving at 205.2), 8 B to 2 (306.0) and 8 B to 3 (406.8). 3 + 3 = 6
    # messages.
    expect_times("reduce-scatter-nonoverlapping linear, 4 ranks, 40 B -> 406.8",
                 [*pipe, "--generate", "reduce-scatter-nonoverlapping", "--variant", "linear",
                  "--ranks", "4", "--size", "40B"], 406.8, [406.8, 205.2, 306.0, 406.8], 6)
    # 8 B: 2 floats, parts 4, 4, 0, 0 B: only rank 1 gets a message (Open MPI's scatterv
    # sends nothing to an empty part): 100.8 + 100.4 = 201.2; ranks 2 and 3 end with their
    # sends at 100.8. 3 + 1 = 4 messages.
    expect_times("reduce-scatter-nonoverlapping linear, 4 ranks, 8 B: empty parts -> 201.2",
                 [*pipe, "--generate", "reduce-scatter-nonoverlapping", "--variant", "linear",
                  "--ranks", "4", "--size", "8B"], 201.2, [201.2, 201.2, 100.8, 100.8], 4)
    # Binomial reduce (the in-order tree: 1 -> 0 and 3 -> 2, then 2 -> 0): the result at 0
    # at 208, then the same parts: 309.2, 410.0, 510.8.
    expect_times("reduce-scatter-nonoverlapping binomial, 4 ranks, 40 B -> 510.8",
                 [*pipe, "--generate", "reduce-scatter-nonoverlapping", "--ranks", "4",
                  "--size", "40B"], 510.8, [510.8, 309.2, 410.0, 510.8], 6)
    # reduce-inorder-binary on 6 ranks: Open MPI's in-order binary tree
    # (ompi_coll_base_topo_build_in_order_bintree, read by hand) has root 5, children 4 (the
    # left subtree 3..4) and 2 (the right subtree 0..2); 4's child is 3, 2's children are 1
    # and 0. Leaves 0, 1 and 3 send at 0 and arrive at 200; 2 and 4 send at 200, arriving at
    # 400 (reductions free under this model); rank 5 then sends the result to root 0: 600.
    expect_times("reduce-inorder-binary 6 ranks to root 0 -> 600",
                 [*pipe, "--generate", "reduce-inorder-binary", "--ranks", "6", "--size",
                  "1000B"], 600, [600, 200, 400, 200, 400, 600], 6)
    expect_times("reduce-inorder-binary 6 ranks to root 5 (the tree's own) -> 400",
                 [*pipe, "--generate", "reduce-inorder-binary", "--ranks", "6", "--size",
                  "1000B", "--root", "5"], 400, [200, 200, 400, 200, 400, 400], 5)
    # allreduce-nonoverlapping --variant inorder-binary:linear on 6 ranks: the in-order
    # binary reduce to root 0 above (the result at rank 0 at 600), then rank 0 sends to 1 ..
    # 5 back to back, arriving at 800, 1000, ..., 1600; 6 + 5 = 11 messages.
    expect_times("allreduce-nonoverlapping inorder-binary:linear 6 ranks -> 600 + 5 x 200",
                 [*pipe, "--generate", "allreduce-nonoverlapping", "--ranks", "6", "--size",
                  "1000B", "--variant", "inorder-binary:linear"], 1600,
                 [1600, 800, 1000, 1200, 1400, 1600], 11)
    # With --segment (Open MPI 3.1's parts, reductions free under this model): 4 ranks,
    # 2000 B in segments of 1000 B (200 ns a put), binomial:split-bintree. The segmented
    # binomial reduce (parents 1 -> 0, 2 -> 0, 3 -> 2; rank v sends segment j in stage
    # h(v) + j): stage 0, 1 and 3 send segment 0 (0-200); stage 1, 1 and 3 send segment 1
    # and 2 sends segment 0 (200-400); stage 2, 2 sends segment 1 (400-600): rank 0 has the
    # sum at 600. The split tree then sends halves of 1000 B (one segment each): 0 -> 1
    # (600-800), 0 -> 2 (800-1000), 1 -> 3 (800-1000); 1 and 2 swap halves (1000-1200) and,
    # on 4 ranks, the root sends rank 3 the second half (1000-1200). 6 + 6 messages.
    nono = [*pipe, "--generate", "allreduce-nonoverlapping", "--size", "2000B", "--segment",
            "1000B"]
    expect_times("allreduce-nonoverlapping binomial:split-bintree in segments -> 1200",
                 [*nono, "--ranks", "4", "--variant", "binomial:split-bintree"], 1200,
                 [1200] * 4, 12)
    # binomial:pipeline on 3 ranks: the reduce is 1 -> 0 and 2 -> 0, segment 0 (0-200) then
    # 1 (200-400); the chain 0 -> 1 -> 2: 0 sends segment 0 (400-600) and 1 (600-800), 1
    # forwards segment 0 (600-800) and 1 (800-1000). 4 + 4 messages.
    expect_times("allreduce-nonoverlapping binomial:pipeline in segments -> 1000",
                 [*nono, "--ranks", "3", "--variant", "binomial:pipeline"], 1000,
                 [800, 1000, 1000], 8)
    # coll/han's pipeline (bcast-smp and reduce-smp --segment; one model for every message,
    # so only the order is tested): 4 ranks, 2 to a node (leaders 0 and 2), 2000 B in 2
    # segments of 1000 B (200 ns a put), reductions free. bcast-smp: step 0, the leaders'
    # bcast of segment 0 (0 -> 2, 0-200); step 1, the leaders' bcast of segment 1 (0 -> 2,
    # 200-400) and the nodes' of segment 0 (0 -> 1 once rank 0 is free, 400-600; 2 -> 3,
    # 200-400); step 2, the nodes' of segment 1 (0 -> 1 600-800, 2 -> 3 400-600). 6
    # messages (unsegmented: 300 + 300 = 600).
    han = [*pipe, "--ranks", "4", "--ppn", "2", "--size", "2000B", "--segment", "1000B"]
    expect_times("bcast-smp in coll/han's segments -> 800",
                 [*han, "--generate", "bcast-smp"], 800, [800, 800, 600, 600], 6)
    # reduce-smp: step 0, the nodes' reduce of segment 0 (1 -> 0, 3 -> 2, 0-200); step 1,
    # the leaders' reduce of segment 0 (2 -> 0, 200-400) and the nodes' of segment 1 (1 -> 0,
    # 3 -> 2, 200-400); step 2, the leaders' of segment 1 (2 -> 0, 400-600). 6 messages.
    expect_times("reduce-smp in coll/han's segments -> 600",
                 [*han, "--generate", "reduce-smp"], 600, [600, 400, 600, 400], 6)
    # allreduce-smp: each step its reducing levels (the leaders' reduce of segment t - 1, the
    # nodes' of segment t), then its broadcasting ones (the leaders' bcast of segment t - 2,
    # the nodes' of segment t - 3). Step 0: 1 -> 0, 3 -> 2 (segment 0, 0-200). Step 1: 2 -> 0
    # (segment 0, 200-400), 1 -> 0 and 3 -> 2 (segment 1, 200-400). Step 2: 2 -> 0 (segment 1,
    # 400-600); then 0 -> 2 (segment 0) once rank 0 has segment 1 too, 600-800. Step 3: 0 ->
    # 2 (segment 1, 800-1000), 0 -> 1 (segment 0, 1000-1200), 2 -> 3 (segment 0, 800-1000).
    # Step 4: 0 -> 1 (segment 1, 1200-1400), 2 -> 3 (segment 1, 1000-1200). 4 + 2 + 2 + 4
    # messages.
    expect_times("allreduce-smp in coll/han's segments -> 1400",
                 [*han, "--generate", "allreduce-smp"], 1400, [1400, 1400, 1200, 1200], 12)
    # Binomial broadcast on 8 ranks under the thesis figures (a put issued at t holds its
    # rank until t + 100 and arrives at t + 603.2): 0 -> 4 at 0, 0 -> 2 at 100, 0 -> 1
    # at 200; 4 -> 6 at 603.2, 4 -> 5 at 703.2; 2 -> 3 at 703.2; 6 -> 7 at 1206.4,
    # arriving 1809.6. Rank finish: 0 at 300; 1 at 803.2; 2 at 803.2 (its put); 3 at
    # 1306.4; 4 at 803.2; 5 at 1306.4; 6 at 1306.4; 7 at 1809.6.
    expect_times("bcast-binomial 8 ranks, thesis figures -> 1809.6",
                 ["--generate", "bcast-binomial", "--ranks", "8", "--model", THESIS], 1809.6,
                 [300, 803.2, 803.2, 1306.4, 803.2, 1306.4, 1306.4, 1809.6], 7)
    # A k-nomial tree of radix 8 on 8 ranks is the flat multicast: the 7th put, issued
    # at 600, arrives at 600 + 603.2 = 1203.2 = alpha_p + 7 alpha_r + n beta (Eq. 4.6).
    expect_times("bcast-knomial radix 8 on 8 ranks = multicast -> 1203.2",
                 ["--generate", "bcast-knomial", "--ranks", "8", "--radix", "8",
                  "--model", THESIS], 1203.2, None, 7)
    # Dissemination barrier on LB(100, 0): log2 8 = 3 rounds of one message, 300; with
    # --radix 3 on 9 ranks, 2 rounds of 2 messages back to back, 2 x 200 = 400.
    expect_times("barrier-dissemination 8 ranks -> 3 x 100",
                 ["--generate", "barrier-dissemination", "--ranks", "8",
                  *model("lb-100-0-gamma-0.model.yaml")], 300, None, 24)
    expect_times("barrier-dissemination radix 3, 9 ranks -> 2 x 2 x 100",
                 ["--generate", "barrier-dissemination", "--ranks", "9", "--radix", "3",
                  *model("lb-100-0-gamma-0.model.yaml")], 400, None, 36)
    # Binomial scatter of 100 B per rank on 8 ranks, LB(100, 0.1) 1 ns: the root sends
    # 400 B (4 blocks) to 4 (100 + 40 = 140), then 200 B to 2 (140..260), then 100 B to
    # 1 (260..370); rank 4 sends 200 B to 6 (140..260) and 100 B to 5 (260..370), rank 6
    # 100 B to 7 (260..370), rank 2 to 3 (260..370): 370.
    expect_times("scatter-binomial 8 ranks, 100 B each -> 370",
                 ["--generate", "scatter-binomial", "--ranks", "8", "--size", "100B",
                  *model("lb-100-0.1-gamma-0.1.model.yaml")], 370, None, 7)

    # Open MPI's linear algorithms (schedules/gen_linear.c). Under the thesis figures a put
    # of 8 B issued at t holds its rank until t + 100 and arrives at t + 603.2, and a
    # compute takes 10 ns. bcast-linear on 4 ranks: the root puts to 1, 2, 3 at 0, 100,
    # 200, arriving 603.2, 703.2, 803.2; the root is done at 300.
    expect_times("bcast-linear 4 ranks, thesis figures -> 803.2",
                 ["--generate", "bcast-linear", "--ranks", "4", "--model", THESIS], 803.2,
                 [300, 603.2, 703.2, 803.2], 3)
    # From root 2 the order is still rank order: 0 at 0, 1 at 100, 3 at 200.
    expect_times("bcast-linear 4 ranks from root 2 -> rank order",
                 ["--generate", "bcast-linear", "--ranks", "4", "--root", "2", "--model",
                  THESIS], 803.2, [603.2, 703.2, 300, 803.2], 3)
    # reduce-linear: ranks 3, 2, 1 put at 0 (done at 100), all arrive at 603.2; the root
    # reduces them one after another: 613.2, 623.2, 633.2.
    expect_times("reduce-linear 4 ranks, thesis figures -> 633.2",
                 ["--generate", "reduce-linear", "--ranks", "4", "--model", THESIS], 633.2,
                 [633.2, 100, 100, 100], 3)
    # allreduce-linear: that reduce, then the bcast from 633.2: puts at 633.2, 733.2,
    # 833.2 arrive at 1236.4, 1336.4, 1436.4; the root is done at 933.2.
    expect_times("allreduce-linear 4 ranks, thesis figures -> 1436.4",
                 ["--generate", "allreduce-linear", "--ranks", "4", "--model", THESIS],
                 1436.4, [933.2, 1236.4, 1336.4, 1436.4], 6)
    # Postal (the sender busy until arrival, docs/SEMANTICS.md), 1000 B: a message 200, a
    # reduction 100. Reduce: arrivals at 200, computes to 300, 400, 500; bcast: puts
    # 500-700, 700-900, 900-1100.
    expect_times("allreduce-linear 4 ranks, postal -> 1100",
                 ["--generate", "allreduce-linear", "--ranks", "4", *tree], 1100,
                 [1100, 700, 900, 1100], 6)

    # Task names (docs/SCHEDULES.md, Task names): a binomial broadcast from rank 0 on 4
    # ranks is stage 1: 0 -> 2, stage 2: 0 -> 1 and 2 -> 3, non-reducing. Every rank has a
    # start and a set-up proxy (s0.done); a rank gets a closing proxy in each stage in which
    # it sends or receives (rank 1 and 3 none in stage 1), and no compute.
    code, _, err = fennel("run", "--generate", "bcast-binomial", "--ranks", "4", "--model",
                          THESIS, "--tasks", os.path.join(tmp, "names.csv"))
    with open(os.path.join(tmp, "names.csv")) as f:
        ids = [line.split(",")[1] for line in f.read().splitlines()[1:]]
    want = {f"start.r{r}" for r in range(4)} | {f"s0.done.r{r}" for r in range(4)} | {
        "s1.put.r0-r2", "s1.done.r0", "s1.done.r2", "s2.put.r0-r1", "s2.put.r2-r3"} | {
        f"s2.done.r{r}" for r in range(4)}
    check("bcast-binomial 4 ranks: every task named by stage, role, rank and peer",
          code == 0 and sorted(ids) == sorted(want), (err, sorted(ids)))

    # Names through GOAL (docs/SCHEDULES.md, Task names): a generated program's GOAL labels are
    # its names made identifiers (s1.put.r0-r2 -> s1_put_r0_r2), and the GOAL reader names a
    # task r{rank}:{label}; every named operation keeps its start and end (the receiving ends
    # of puts add _r and are two-sided, so only the tasks of the generated program compare).
    goal = os.path.join(tmp, "bb.goal")
    fennel("generate", "bcast-binomial", "--ranks", "4", "-f", "goal", "-o", goal)
    fennel("run", "--generate", "bcast-binomial", "--ranks", "4", "--model", THESIS, "--tasks",
           os.path.join(tmp, "bb-gen.csv"))
    fennel("run", goal, "--model", THESIS, "--tasks", os.path.join(tmp, "bb-goal.csv"))

    def task_rows(path):
        with open(path) as f:
            return {row.split(",")[1]: row.split(",")[2:] for row in f.read().splitlines()[1:]}
    gen_rows, goal_rows = task_rows(os.path.join(tmp, "bb-gen.csv")), task_rows(
        os.path.join(tmp, "bb-goal.csv"))
    missing = []
    for name, row in gen_rows.items():
        label = f"r{row[0]}:" + re.sub(r"[^A-Za-z0-9_]", "_", name)
        # rank, slot, then ready/start/end: the start and end of the operation.
        if label not in goal_rows or goal_rows[label][3:5] != row[3:5]:
            missing.append((name, label, row[3:5], goal_rows.get(label)))
    check("GOAL labels are the generated names, with the same start and end times",
          gen_rows and not missing, missing[:5])

    # What GOAL cannot say (docs/FORMATS.md, GOAL): generate warns and writes it in the file.
    # thesis-figures is lbp (alpha_r 100 ns, alpha_p 500 ns, beta 0.4 ns/B); loggopsim-default
    # LogGP (o 1500 ns, L 2500 ns, G 6 ns/B).
    def goal_of(name, args, model):
        out = os.path.join(tmp, name + ".goal")
        code, _, err = fennel("generate", *args, "-f", "goal", "--model", model, "-o", out)
        return code, err, out

    def makespan(*args):
        code, out, _ = fennel("run", *args, "--json")
        return json.loads(out)["makespan_ns"] if code == 0 else None
    # A get: the request (alpha_r + alpha_p + 8 beta = 603.2 ns), then the target's NIC
    # answers (alpha_p + 4000 beta = 2100 ns): 2703.2 ns. As GOAL the target's CPU sends the
    # answer, alpha_r more: 2803.2 ns.
    code, err, out = goal_of("fetch", ["fetch", "--size", "4000"], THESIS)
    check("GOAL of a get: a warning", code == 0 and err == (
        "fennel: generate: warning: GOAL has no get: 'get.r0-r1' becomes a request and a "
        "response that the target's CPU sends, busy with it while the get's issuer is free "
        "(every model)\n"), err)
    check("a get: 2703.2 ns, its GOAL 2803.2 ns",
          makespan("--generate", "fetch", "--size", "4000", "--model", THESIS) == 2703.2 and
          makespan(out, "--model", THESIS) == 2803.2)
    # A put of 100 B and a compute of 10 ns after it on its rank: the put is received at
    # o + L + o + 99 G = 6094 ns and the compute ends at 6104; as GOAL the compute follows
    # the send's overhead (1500 ns) and the run ends with the receive, at 6094.
    followed = os.path.join(tmp, "followed.yaml")
    with open(followed, "w") as f:
        f.write("fennel: 1\nranks: 2\ntasks:\n  - {id: a, type: start, rank: 0}\n"
                "  - {id: b, type: start, rank: 1}\n"
                "  - {id: q, type: put, rank: 0, to: 1, size: 100B, after: [a]}\n"
                "  - {id: d, type: compute, rank: 0, duration: 10ns, after: [q]}\n")
    code, err, out = goal_of("followed", ["--from", followed], "loggopsim-default")
    check("GOAL of a put its rank waits for: a warning", code == 0 and
          "GOAL has no put: 'q' becomes a send, and 'd' of its rank follows it when the send's "
          "overhead ends, not when the data has been received (LogP, LogGP)\n" in err, err)
    check("that put: 6104 ns, its GOAL 6094 ns",
          makespan(followed, "--model", "loggopsim-default") == 6104 and
          makespan(out, "--model", "loggopsim-default") == 6094)
    # A put of 100000 B, then one of 100 B to the same rank, each followed by a 10 ns compute
    # there: the large one arrives at alpha_r + alpha_p + 40000 = 40600 ns, the small one,
    # issued at 100, at 100 + 600 + 40 = 740, so the computes end at 750 and 40610. As
    # sends the small one may not overtake: both computes run from 40600, the last to 40620.
    overtake = os.path.join(tmp, "overtake.yaml")
    with open(overtake, "w") as f:
        f.write("fennel: 1\nranks: 2\ntasks:\n  - {id: a, type: start, rank: 0}\n"
                "  - {id: b, type: start, rank: 1}\n"
                "  - {id: p, type: put, rank: 0, to: 1, size: 100000B, after: [a]}\n"
                "  - {id: c, type: compute, rank: 1, duration: 10ns, after: [p]}\n"
                "  - {id: q, type: put, rank: 0, to: 1, size: 100B, after: [a]}\n"
                "  - {id: d, type: compute, rank: 1, duration: 10ns, after: [q]}\n")
    code, err, out = goal_of("overtake", ["--from", overtake], THESIS)
    check("GOAL of a smaller put after a larger: a warning", code == 0 and err == (
        "fennel: generate: warning: GOAL has no put: 'p' and the smaller 'q', from rank 0 to "
        "rank 1, become sends, and a send cannot overtake the one before it as a put can "
        "(postal, lbp)\n"), err)
    check("the puts: 40610 ns, their GOAL 40620 ns",
          makespan(overtake, "--model", THESIS) == 40610 and
          makespan(out, "--model", THESIS) == 40620)
    # Tasks on any of two slots run on CPU 0 as GOAL.
    code, err, out = goal_of("conc", ["--from", "tests/data/reference/concurrent-2proc.yaml"],
                             THESIS)
    check("GOAL of concurrent tasks of two slots: a warning", code == 0 and
          "warning: GOAL pins every operation to a CPU: 'c0' (and 1 more) runs on CPU 0, where "
          "it took the first free of 2 slots (every model)\n" in err, err)
    # A ring of puts that only the next step's tasks wait for, on other ranks: nothing to say.
    code, err, out = goal_of("ring", ["allreduce-ring", "--ranks", "5", "--size", "4000"],
                             "loggopsim-default")
    check("GOAL of allreduce-ring: no warning", code == 0 and err == "", err)

    # Every generator: names unique, of the documented forms, the same in two runs, and
    # the same after a round trip through YAML (generate -o, then run the file).
    name_form = re.compile(r"^(start\.r\d+|(s\d+\.)?(put|get|send|recv|reduce|done|compute|"
                           r"proxy|sleep|ldred|mcast)\.r\d+(-r\d+|-any)?)(\.\d+)?$")
    bad = []
    for name, options in generators():
        args = ["--generate", name]
        if "--ranks" in options:
            args += ["--ranks", "8"]
        against = THESIS
        if name == "nccl-nvls":  # one node, whose switch needs a topology
            against = RAIL
        elif name == "nccl-collnet":  # SHARP at a leaf: servers of one GPU
            against = SHARP_ONE_GPU
            args += ["--ppn", "2"]
        elif "--ppn" in options:
            args += ["--ppn", "2"]
        tasks = [os.path.join(tmp, f"n{k}.csv") for k in range(3)]
        runs = []
        for k in range(2):
            runs.append(fennel("run", *args, "--model", against, "--tasks", tasks[k]))
        yaml = os.path.join(tmp, "n.yaml")
        gen = fennel("generate", *args[1:], "-o", yaml)
        runs.append(fennel("run", yaml, "--model", against, "--tasks", tasks[2]))
        if any(r[0] != 0 for r in runs) or gen[0] != 0:
            if "ranks" not in (runs[0][2] + gen[2]):
                bad.append((name, [r[2] for r in runs], gen[2]))
            continue
        tables = []
        for t in tasks:
            with open(t) as f:
                tables.append([line.split(",")[1:] for line in f.read().splitlines()[1:]])
        ids = [row[0] for row in tables[0]]
        if len(set(ids)) != len(ids) or not all(name_form.match(i) for i in ids):
            bad.append((name, "names", [i for i in ids if not name_form.match(i)][:5]))
        elif tables[1] != tables[0]:
            bad.append((name, "not stable across runs"))
        elif tables[2] != tables[0]:
            bad.append((name, "YAML round trip", tables[0][:2], tables[2][:2]))
        else:
            # Through GOAL, every name is a label of its own (the GOAL writer relies on the
            # names' form instead of checking them one by one): the file reads back and has
            # an operation r{rank}:{label} for each task.
            # (A program GOAL cannot express is refused by name, and skipped here.)
            goal = os.path.join(tmp, "n.goal")
            code, _, err = fennel("generate", *args[1:], "--model", THESIS, "-f", "goal", "-o",
                                  goal)
            if code != 0 and "cannot write GOAL" in err:
                continue
            if code == 0:
                code, _, err = fennel("run", goal, "--model", THESIS, "--tasks", tasks[1])
            labels = set()
            if code == 0:
                with open(tasks[1]) as f:
                    labels = {line.split(",")[1] for line in f.read().splitlines()[1:]}
            lost = [row[0] for row in tables[0]
                    if f"r{row[1]}:" + re.sub(r"[^A-Za-z0-9_]", "_", row[0]) not in labels]
            if code != 0 or lost:
                bad.append((name, "GOAL labels", err, lost[:3]))
    check("every generator: unique, readable, stable names that survive a YAML round trip "
          "and are GOAL labels of their own", not bad, bad)

finish()
