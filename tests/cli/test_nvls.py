#!/usr/bin/env python3
"""Operations of an NVLink switch: the load-reduce and the multicast (docs/SEMANTICS.md,
Operations of a switch), timed under every contention level, written and read back, and
followed by `fennel verify`.

Times derived by hand on one server of tests/data/topology/rail.model.yaml: 8 GPUs whose
NVLink ports (the node links, level 0) take 100 ns and 10 GB/s (0.1 ns per byte) each way;
postal with no terms of its own, and an operation of the switch takes no model overhead.
An operation is a tree of node links: a load-reduce's first stage is every member's link
into the switch, its second the issuer's link out of it; a multicast's first stage is the
issuer's link in, its second every member's link out. Alone, on any level, it takes both
stages' latencies and its bytes over the narrowest link: 200 + 0.1 x bytes ns.

Usage: test_nvls.py FENNEL SOURCE_ROOT. Prints TAP.
"""
import csv
import os
import tempfile

from harness import ROOT, check, expect_error, fennel, finish, run_json

RAIL = "tests/data/topology/rail.model.yaml"
DATA = "tests/data/nvls/"
LEVELS = ("none", "endpoint", "links", "fair")


def makespan(program, level):
    out = run_json(DATA + program, "--model", RAIL, "--set", "contention=" + level)
    return out.get("makespan_ns", out)


# One load-reduce of 100000 B: 200 + 10000 = 10200 ns on every level.
for level in LEVELS:
    got = makespan("load-reduce.yaml", level)
    check(f"one load-reduce of 100000 B, {level}: 10200 ns", got == 10200, got)

# Eight load-reduces of 12500 B at once, one per rank (NVLS's reduce-scatter): each crosses
# all eight links into the switch, so every such link carries 8 x 12500 B = 100000 B.
# none: each alone, 200 + 1250 = 1450 ns. endpoint and links: the links into the switch
# serve the operations in program order, operation k on [1250 k, 1250 (k + 1)], its head
# at the switch at 1250 k + 100 and its tail at 1250 (k + 1) + 100; its issuer's link out
# is free, so its last byte arrives at 1250 (k + 1) + 200: the last at 10200 ns. fair: each
# link into the switch is shared by 8 flows (1.25 GB/s each), the links out by one: after
# the 200 ns of latency every flow takes 12500 / 1.25 = 10000 ns: 10200 ns.
want = {"none": 1450, "endpoint": 10200, "links": 10200, "fair": 10200}
for level in LEVELS:
    got = makespan("reduce-scatter.yaml", level)
    check(f"eight load-reduces of 12500 B, {level}: {want[level]} ns", got == want[level], got)

# Eight multicasts of 12500 B at once (NVLS's allgather): the transpose; every link out of
# the switch carries 100000 B. endpoint and links: every operation's head reaches the
# switch at 100 ns and the links out serve them in program order, operation k on
# [100 + 1250 k, 100 + 1250 (k + 1)]: the last byte of the last at 10200 ns. fair: 8
# flows on every link out: 10200 ns.
for level in LEVELS:
    got = makespan("allgather.yaml", level)
    check(f"eight multicasts of 12500 B, {level}: {want[level]} ns", got == want[level], got)

# A put of 100000 B from rank 1 to rank 2 and a load-reduce of 100000 B by rank 0 start
# together; they share rank 1's link into the switch. none: both 10200 ns. endpoint and
# links: the put (first in program order) holds that link for [0, 10000]; the load-reduce
# enters it at 10000, so its tail reaches the switch at 20100 and rank 0 at 20200 ns (its
# other links are free at 0, its head reaches the switch at 10100). fair: two flows on
# that link, 5 GB/s each, both 20000 ns after their 200 ns of latency: 20200 ns.
want = {"none": 10200, "endpoint": 20200, "links": 20200, "fair": 20200}
for level in LEVELS:
    got = makespan("put-and-load-reduce.yaml", level)
    check(f"a put and a load-reduce sharing a link, {level}: {want[level]} ns",
          got == want[level], got)

# The link statistics count every link of the tree: a load-reduce of 100000 B keeps each
# of the 8 links into the switch busy for 10000 ns, and rank 0's link out.
with tempfile.TemporaryDirectory() as tmp:
    status, out, err = fennel("run", DATA + "load-reduce.yaml", "--model", RAIL, "--links",
                              os.path.join(tmp, "links.csv"))
    with open(os.path.join(tmp, "links.csv")) as f:
        rows = list(csv.DictReader(f))
busy = sorted((row["from"], row["to"]) for row in rows if row["busy_ns"] == "10000")
want_links = sorted([(f"node{g}", "nvswitch0") for g in range(8)] + [("nvswitch0", "node0")])
check("the load-reduce's 9 links are each busy 10000 ns", status == 0 and busy == want_links,
      f"{busy} {err}")

# A rail's nvls_bandwidth (docs/TOPOLOGY.md): 5 GB/s, half the ports' 10 GB/s, so an
# operation's byte takes a port of its tree 0.2 ns. One load-reduce of 100000 B: 200 + 20000
# = 20200 ns on every level. With the put of 100000 B from rank 1 to rank 2 on rank 1's link
# into the switch: none, both alone: 20200 ns. endpoint and links: the put holds that link
# for [0, 10000]; the load-reduce enters it at 10000 and holds it for 20000 ns, so its tail
# reaches the switch at 30100 and, through rank 0's link out (entered by its head at 10100,
# 20000 ns), rank 0 at 30200 ns. fair: on that link the put's 100000 B and the load-reduce's
# 100000 x 10 / 5 = 200000 B of the port's capacity share 10 GB/s, 5 GB/s each, until the
# put is done at 200 + 20000; the load-reduce's last 100000 then take 10000 ns alone: 30200.
want = {"none": 20200, "endpoint": 30200, "links": 30200, "fair": 30200}
for level in LEVELS:
    out = run_json(DATA + "load-reduce.yaml", "--model", RAIL, "--set", "contention=" + level,
                   "--set", "topology.nvls_bandwidth=5GB/s")
    got = out.get("makespan_ns", out)
    check(f"a load-reduce at nvls_bandwidth 5 GB/s, {level}: 20200 ns", got == 20200, got)
    out = run_json(DATA + "put-and-load-reduce.yaml", "--model", RAIL, "--set",
                   "contention=" + level, "--set", "topology.nvls_bandwidth=5GB/s")
    got = out.get("makespan_ns", out)
    check(f"a put and a load-reduce at nvls_bandwidth 5 GB/s, {level}: {want[level]} ns",
          got == want[level], got)
# A rate at or above the port's changes nothing: 10200 ns.
for rate in ("10GB/s", "20GB/s"):
    out = run_json(DATA + "load-reduce.yaml", "--model", RAIL, "--set",
                   "topology.nvls_bandwidth=" + rate)
    got = out.get("makespan_ns", out)
    check(f"a load-reduce at nvls_bandwidth {rate}: 10200 ns", got == 10200, got)
# The links are busy for the operation's time: 20000 ns on each of the 9.
with tempfile.TemporaryDirectory() as tmp:
    status, out, err = fennel("run", DATA + "load-reduce.yaml", "--model", RAIL, "--set",
                              "contention=fair", "--set", "topology.nvls_bandwidth=5GB/s",
                              "--links", os.path.join(tmp, "links.csv"))
    with open(os.path.join(tmp, "links.csv")) as f:
        rows = list(csv.DictReader(f))
busy = sorted((row["from"], row["to"]) for row in rows if row["busy_ns"] == "20000")
check("at nvls_bandwidth 5 GB/s the load-reduce's 9 links are each busy 20000 ns",
      status == 0 and busy == want_links, f"{busy} {err}")
expect_error("nvls_bandwidth is a bandwidth", ["run", DATA + "load-reduce.yaml", "--model", RAIL,
                                                "--set", "topology.nvls_bandwidth=fast"], 2,
             "--set topology.nvls_bandwidth=fast: topology.nvls_bandwidth: expected a number")
expect_error("nvls_bandwidth is a rail's", ["run", DATA + "load-reduce.yaml", "--model", RAIL,
                                             "--set", "topology.kind=switch", "--set",
                                             "topology.nvls_bandwidth=5GB/s"], 2,
             "--set topology.nvls_bandwidth=5GB/s: topology: unknown key 'nvls_bandwidth' for "
             "kind switch (it has: kind, bandwidth, latency, nodes, node.bandwidth, "
             "node.latency)")

# The H100 presets' nvls_bandwidth, 306 GB/s (NCCL's model of NVLS, models/presets/dgx-h100.yaml):
# a load-reduce of 306000 B on one server takes its two NVLink stages' 2 x 300 ns and 306000 B
# at 306 GB/s, 1000 ns, not 306000 / 450 = 680 ns: 1600 ns.
with tempfile.TemporaryDirectory() as tmp:
    with open(os.path.join(ROOT, DATA, "load-reduce.yaml")) as f:
        text = f.read().replace("size: 100000B", "size: 306000B")
    path = os.path.join(tmp, "load-reduce.yaml")
    with open(path, "w") as f:
        f.write(text)
    for preset in ("dgx-h100", "a3-mega"):
        out = run_json(path, "--model", preset)
        got = out.get("makespan_ns", out)
        check(f"{preset}: a load-reduce of 306000 B takes 1600 ns", got == 1600, got)

# `verify`: rank r load-reduces block r and multicasts it, every rank waits for every
# multicast: an allreduce, each block reduced once, by the switch.
status, out, err = fennel("verify", DATA + "allreduce.yaml")
check("verify: NVLS allreduce of 8 blocks", status == 0 and
      out == "tests/data/nvls/allreduce.yaml: ok: allreduce over 8 ranks, 8 blocks, 1 distinct "
      "partial result\n", out + err)
expect_error("verify: a multicast nobody waits for delivers nothing",
             ["verify", DATA + "allreduce-unheard.yaml"], 1,
             "tests/data/nvls/allreduce-unheard.yaml: rank 0 block 3 lacks contributions from "
             "ranks 1-7")

# Formats: YAML and the binary program keep the operations (the same times, the same
# check); GOAL and Chakra have nothing to write them as and refuse; the CSV lists them.
status, yaml, err = fennel("generate", "--from", DATA + "allreduce.yaml", "-f", "yaml")
check("yaml writes a load-reduce with its group and blocks", status == 0 and
      "  - {id: lr3, type: load-reduce, rank: 3, group: 0..7, size: 1000B, data: 3..3, after: "
      "[s0, s1, s2, s3, s4, s5, s6, s7]}\n" in yaml, yaml + err)
check("yaml writes a multicast", "  - {id: mc3, type: multicast, rank: 3, group: 0..7, size: "
      "1000B, data: 3..3, after: [lr3]}\n" in yaml, yaml)
status, out, err = fennel("generate", "--from", DATA + "reduce-scatter.yaml", "-f", "csv")
check("csv lists the group's first rank as the peer and its size as the tag",
      "8,0,load-reduce,0,12500,,8,0 1 2 3 4 5 6 7,\n" in out, out + err)
expect_error("GOAL refuses a load-reduce",
             ["generate", "--from", DATA + "load-reduce.yaml", "-f", "goal"], 1,
             "cannot write GOAL: task 'lr' is an operation of a switch (load-reduce, "
             "multicast), which GOAL lacks")
expect_error("fennel's GOAL refuses a multicast",
             ["generate", "--from", DATA + "allgather.yaml", "-f", "fennel-goal"], 1,
             "cannot write fennel-goal: task 'mc0' is an operation of a switch (load-reduce, "
             "multicast), which GOAL lacks")
status, out, err = fennel("convert", DATA + "reduce-scatter.yaml", "-o", "/dev/null")
check("convert writes the binary program", status == 0, err)

# Errors: an operation needs a topology, and a group on one switch.
expect_error("no topology", ["run", DATA + "load-reduce.yaml", "--network", "postal"], 1,
             "task 'lr': a load-reduce needs a topology (its group's switch); the model has "
             "none")
expect_error("a group across two servers", ["run", DATA + "two-servers.yaml", "--model", RAIL],
             1, "task 'lr': ranks 0 and 8 of its group are on different switches of the "
             "topology; a load-reduce is done by one switch (across servers, a rail's leaf "
             "with `sharp: true`)")

# nccl-nvls: NCCL's one-node NVLS allreduce (docs/GPU.md). Every rank starts after NCCL's
# NVLS latency, 25 us; each channel's part goes in L loops of p chunks, head h load-reducing
# chunk h of each loop on one thread block and multicasting it on another: LR(l) after
# LR(l - 1), MC(l) after LR(l) and MC(l - 1), so MC(l) runs with LR(l + 1). 2 MiB on 8
# ranks, 1 channel: ops = 1 x 8; 2 MiB < 64 x 8 x 128 KiB, so 64 KiB chunks, and < 8 x 8 x
# 64 KiB, so 32 KiB (not < 2 x 8 x 32 KiB): L = 2 MiB / (8 x 32 KiB) = 8 loops of 32768 B.
# none: each operation alone, T = 200 + 3276.8 = 3476.8 ns; LR(l) ends at 25000 + (l + 1) T,
# MC(l) at 25000 + (l + 2) T: 25000 + 9 x 3476.8 = 56291.2 ns.
# fair: step 0, the 8 LR(0) alone: each link into the switch carries all 8 (1.25 GB/s each),
# 200 + 32768 / 1.25 = 26414.4 ns. Steps 1 to 7, LR(l) with MC(l - 1): a link into the
# switch carries the 8 load-reduces and its GPU's multicast, a link out its GPU's
# load-reduce and the 8 multicasts: 9 flows each, 10/9 GB/s, 200 + 32768 x 0.9 = 29691.2 ns.
# Step 8, the 8 MC(7) alone, as step 0: 25000 + 2 x 26414.4 + 7 x 29691.2 = 285667.2 ns.
# 2 channels: each channel 1 MiB; ops = 16, still 32 KiB chunks (2 MiB >= 2 x 16 x 32 KiB),
# L = 4. none: 25000 + 5 x 3476.8 = 42384 ns. fair: 16 load-reduces on every link in (0.625
# GB/s each), 200 + 52428.8 = 52628.8 ns; then 16 + 2 = 18 flows a link, 10/18 GB/s, 200 +
# 32768 x 1.8 = 59182.4 ns, 3 times; then the last multicasts as the first step: 25000 + 2 x
# 52628.8 + 3 x 59182.4 = 307804.8 ns.
NVLS = ["--generate", "nccl-nvls", "--ranks", "8", "--size", "2MiB", "--model", RAIL]
for channels, level, want in (("1", "none", 56291.2), ("1", "fair", 285667.2),
                              ("2", "none", 42384), ("2", "fair", 307804.8)):
    out = run_json(*NVLS, "--partitions", channels, "--set", "contention=" + level)
    got = out.get("makespan_ns", out)
    check(f"nccl-nvls, 8 ranks, 2 MiB, {channels} channel(s), {level}: {want} ns", got == want,
          got)
# At nvls_bandwidth 5 GB/s (half the ports') every operation's bytes take twice as long, the
# latencies the same: none, T = 200 + 6553.6 = 6753.6 ns, 25000 + 9 T = 85782.4 ns; fair,
# each step's bytes twice: 25000 + 2 x (200 + 52428.8) + 7 x (200 + 58982.4) = 544534.4 ns.
for level, want in (("none", 85782.4), ("fair", 544534.4)):
    out = run_json(*NVLS, "--partitions", "1", "--set", "contention=" + level, "--set",
                   "topology.nvls_bandwidth=5GB/s")
    got = out.get("makespan_ns", out)
    check(f"nccl-nvls, 8 ranks, 2 MiB, nvls_bandwidth 5 GB/s, {level}: {want} ns", got == want,
          got)
# 16 MiB on 8 ranks and 1 channel: below 64 x 8 x 128 KiB = 64 MiB, so 64 KiB chunks, but
# not below 8 x 8 x 64 KiB = 4 MiB: L = 16 MiB / (8 x 64 KiB) = 32 loops; none: 25000 + 33 x
# (200 + 6553.6) = 247868.8 ns.
out = run_json("--generate", "nccl-nvls", "--ranks", "8", "--size", "16MiB", "--partitions",
               "1", "--model", RAIL, "--set", "contention=none")
check("nccl-nvls, 16 MiB: 64 KiB chunks, 247868.8 ns", out.get("makespan_ns") == 247868.8, out)
expect_error("nccl-nvls: two thread blocks a channel", ["run", "--generate", "nccl-nvls",
                                                        "--ranks", "8", "--partitions", "128",
                                                        "--model", RAIL], 1,
             "nccl-nvls needs --partitions (channels) 1 to 127 (two thread blocks a channel), "
             "got 128")
for ranks in ("1", "2", "3", "8", "13", "72"):
    for channels in ("1", "3", "16"):
        status, out, err = fennel("verify", "--generate", "nccl-nvls", "--ranks", ranks,
                                  "--partitions", channels, "--size", "1MiB")
        check(f"verify nccl-nvls --ranks {ranks} --partitions {channels}",
              status == 0 and f"ok: allreduce over {ranks} ranks" in out, out + err)
expect_error("nccl-nvls on two nodes", ["run", "--generate", "nccl-nvls", "--ranks", "16",
                                         "--ppn", "8", "--model", RAIL], 1,
             "nccl-nvls runs on one node: --ppn is the rank count (16) or absent, not 8 (NVLS "
             "across nodes, NCCL's NVLS_TREE, is nccl-nvls-tree)")
expect_error("nccl-nvls with LL", ["run", "--generate", "nccl-nvls", "--ranks", "8",
                                   "--variant", "ll", "--model", RAIL], 1,
             "nccl-nvls: NCCL runs NVLS with the protocol simple only, not 'll'")

# nccl-nvls-tree: NCCL's NVLS_TREE allreduce (docs/GPU.md). Nodes of 2 GPUs
# (topology.gpus_per_node=2, --ppn 2), contention none, so each operation takes its time
# alone: a load-reduce or a multicast of b bytes 200 + 0.1 b ns (two NVLink hops of 100 ns,
# 10 GB/s); a put to the same GPU of another node 2 x 1000 + 0.2 b ns (its rail, 5 GB/s);
# computes free; every rank starts after 25 us (NCCL's NVLink latency for NVLS_TREE) and
# each network put of the first loop waits 20.9 - 2.7 = 18.2 us first. Every GPU is a head;
# head h of each node is on the nodes' tree (heads 0 and 1 run side by side, sharing nothing
# here). A head streams as NCCL's warps do: its load-reduces, its reductions and puts up, its
# multicasts and its puts to each child node are five thread blocks, each doing its chunks in
# order (a put holds its block until it arrives), so that a chunk's put runs while the next
# is load-reduced, and the multicast and the puts down of a chunk run at once.
TREE = ["--generate", "nccl-nvls-tree", "--ppn", "2", "--model", RAIL, "--set",
        "topology.gpus_per_node=2", "--set", "contention=none"]
# 2 nodes (tree: node 0 the root, node 1 its child), 1 channel, 1 MiB: chunk min(128 KiB,
# 128 KiB below 4 nodes); 1 MiB is not below 4 x (1 x 2) x 128 KiB, so 128 KiB chunks, L =
# 1 MiB / (2 x 128 KiB) = 4 loops. T_op = 200 + 13107.2 = 13307.2, T_put = 2000 + 26214.4 =
# 28214.4. The leaf (rank 2) load-reduces a chunk every T_op; its puts up, slower, follow one
# another from 25000 + T_op + 18200 on: the i-th arrives at E + i T_put, E = 25000 + T_op +
# 18200 + T_put. The root reduces each as it comes and multicasts it (T_op) while its block
# for the child waits 18.2 us once, then puts each chunk down (T_put, one after another from E
# + 18200 on): the last arrives at E + 18200 + 4 T_put, and the leaf multicasts it (T_op):
# 25000 + 2 x 18200 + 2 T_op + 5 T_put = 229086.4 ns (one operation after another, as before
# the heads streamed: 322236.8 ns). 2 channels at 2 MiB: each channel the same 1 MiB (4 x (2 x
# 2) x 128 KiB = 2 MiB is not above 2 MiB), channel 1 on the mirrored tree (node 1 the root):
# the same. 64 KiB on 1 channel: below 4 x 2 x 128 KiB, so 64 KiB, and below 1 x 2 x 64 KiB,
# so 32 KiB chunks, one loop (T_op 3476.8, T_put 8553.6): the leaf's load-reduce, 18.2 us and
# put, the root's 18.2 us and put down (its multicast at the same time), the leaf's
# multicast: 25000 + 36400 + 2 T_op + 2 T_put = 85460.8 ns (88937.6 before).
# 4 nodes (tree 0 - 2 - {1, 3}), 256 KiB, 1 channel: chunk min(128 KiB, 64 KiB from 4 nodes
# on) = 64 KiB, L = 2 (T_op 6753.6, T_put 15107.2). The leaves' puts of chunks 0 and 1 arrive
# at node 2 at A and A + T_put, A = 25000 + T_op + 18200 + T_put; node 2 puts them up after
# 18.2 us, arriving at B = A + 18200 + T_put and B + T_put; the root puts them down after 18.2
# us, arriving at D = B + 18200 + T_put and D + T_put; node 2 puts each to nodes 1 and 3 at
# once, on two thread blocks, after 18.2 us: chunk 1 there at D + 18200 + 2 T_put, and nodes
# 1 and 3 multicast it (T_op): 25000 + 4 x 18200 + 2 T_op + 5 T_put = 186843.2 ns (237318.4
# before).
for ranks, channels, size, want in (("4", "1", "1MiB", 229086.4), ("4", "2", "2MiB", 229086.4),
                                    ("4", "1", "64KiB", 85460.8),
                                    ("8", "1", "256KiB", 186843.2)):
    out = run_json(*TREE, "--ranks", ranks, "--partitions", channels, "--size", size)
    got = out.get("makespan_ns", out)
    check(f"nccl-nvls-tree, {ranks} ranks of 2 a node, {size}, {channels} channel(s): {want} ns",
          got == want, got)
for ranks, ppn in (("1", "1"), ("2", "1"), ("16", "8"), ("12", "3"), ("24", "4"), ("72", "8"),
                   ("9", "9")):
    for channels in ("1", "3", "16"):
        status, out, err = fennel("verify", "--generate", "nccl-nvls-tree", "--ranks", ranks,
                                  "--ppn", ppn, "--partitions", channels, "--size", "1MiB")
        check(f"verify nccl-nvls-tree --ranks {ranks} --ppn {ppn} --partitions {channels}",
              status == 0 and f"ok: allreduce over {ranks} ranks" in out, out + err)
expect_error("nccl-nvls-tree with --ranks not a multiple of --ppn",
             ["run", "--generate", "nccl-nvls-tree", "--ranks", "12", "--ppn", "8", "--model",
              RAIL], 1,
             "nccl-nvls-tree needs --ranks a multiple of --ppn (GPUs per node) and --partitions "
             "(channels) 1 to 51 (5 thread blocks a channel), got 12, 8 and 2")
expect_error("nccl-nvls-tree: five thread blocks a channel",
             ["run", "--generate", "nccl-nvls-tree", "--ranks", "16", "--ppn", "8",
              "--partitions", "52", "--model", RAIL], 1,
             "nccl-nvls-tree needs --ranks a multiple of --ppn (GPUs per node) and --partitions "
             "(channels) 1 to 51 (5 thread blocks a channel), got 16, 8 and 52")
expect_error("nccl-nvls-tree with LL128", ["run", "--generate", "nccl-nvls-tree", "--ranks",
                                           "16", "--ppn", "8", "--variant", "ll128", "--model",
                                           RAIL], 1,
             "nccl-nvls-tree: NCCL runs NVLS_TREE with the protocol simple only, not 'll128'")

finish()
