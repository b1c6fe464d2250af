#!/usr/bin/env python3
"""NCCL's ring allreduce (generator nccl-ring, docs/GPU.md), through `fennel run` and
`fennel verify`.

Times derived by hand on one server of tests/data/topology/rail.model.yaml (8 GPUs, NVLink
ports of 10 GB/s: 0.1 ns per byte, a route of 2 x 100 ns = 200 ns between two GPUs), under
contention fair. The ring sends to rank + 1; every rank does the same at the same time, so a
step of a slice takes, on every rank, its route's 200 ns plus its wire bytes over the port
(shared by the C channels' puts of that step: C slices of a C-th of the bytes each, the same
time), and the compute model (fixed, 0 ns) adds nothing. A thread block's next slice waits
for its put (postal: until it has arrived), so the makespan is N (200 + w x / B), N = L x
2(p - 1) x S steps of slices, x the data bytes of a slice, w the wire bytes per data byte:
2(p - 1)/p x w x n / B + N x 200 ns when the slices divide n evenly. On top of that come
NCCL's latencies (docs/GPU.md, Latencies; NCCL 2.30.7 src/graph/tuning.cc): every rank
starts after the base latency of the algorithm and protocol (ring: LL 6.6 us, LL128 14 us,
Simple 8.4 us; tree: 6.8, 14 and 8.4 us), and in the first loop (a tree's or chain's first
chunk) a thread block waits, before the first slice of each step it sends, its per-hop
latency minus the ring LL's (a ring: the mean of that over its hops) (over NVLink, ring: 0, 1.9 - 0.6 = 1.3 and 3.4 - 0.6 = 2.8 us;
tree: 0, 0.65, 3.4 us; across servers, ring: 0, 4.0 - 2.7 = 1.3, 14 - 2.7 = 11.3 us; tree:
5 - 2.7 = 2.3, 5.8, 11.3 us). A ring in lockstep adds base + (steps with a send) x that.
The one-server runs give --ppn 8 (every hop inside the server).

Usage: test_nccl.py FENNEL SOURCE_ROOT. Prints TAP.
"""
import csv
import os
import tempfile

from harness import check, fennel, finish, run_json

MODEL = ["--model", "tests/data/topology/rail.model.yaml", "--set", "contention=fair"]


def makespan(*args):
    ranks = args[args.index("--ranks") + 1]
    out = run_json("--generate", "nccl-ring", "--ppn", ranks, *args, *MODEL)
    return out.get("makespan_ns", out)


# Simple: chunks of 2 MiB in S = 2 slices. 16 MiB on 8 ranks, 1 channel: L = 16 MiB / (8 x
# 2 MiB) = 1 loop, slices of 1 MiB (104857.6 ns), N = 1 x 14 x 2 = 28:
# 28 x (200 + 104857.6) = 2941612.8 ns = 1.75 x 1677721.6 + 28 x 200; with the latencies,
# 8400 + 14 sends x 2800 = 47600 more: 2989212.8 ns.
for channels in ("1", "2"):
    # 2 channels: slices of 0.5 MiB each, two puts share each port: the same time per step,
    # and the two channels wait their latencies side by side.
    got = makespan("--ranks", "8", "--size", "16MiB", "--variant", "simple",
                   "--partitions", channels)
    check(f"simple, 8 ranks, 16 MiB, {channels} channel(s): 2989212.8 ns", got == 2989212.8, got)
# Simple is the default protocol; 32 MiB on 2 channels: L = 32 MiB / (2 x 8 x 2 MiB) = 1,
# slices of 1 MiB, two per port: 28 x (200 + 2 x 104857.6) = 5877625.6, + 47600 = 5925225.6.
got = makespan("--ranks", "8", "--size", "32MiB", "--partitions", "2")
check("simple by default, 32 MiB, 2 channels: 5925225.6 ns", got == 5925225.6, got)
# Two loops: 32 MiB on 1 channel: L = 2, slices of 1 MiB, N = 56: 56 x 105057.6 = 5883225.6,
# the first loop's 14 sends waiting 2800 ns each: + 8400 + 39200 = 5930825.6.
got = makespan("--ranks", "8", "--size", "32MiB", "--partitions", "1")
check("simple, 32 MiB, 1 channel: two loops, 5930825.6 ns", got == 5930825.6, got)
# The default is 2 channels (every generator's --partitions): 32 MiB as above, 5925225.6 ns.
got = makespan("--ranks", "8", "--size", "32MiB")
check("2 channels by default: 5925225.6 ns", got == 5925225.6, got)
# LL: chunks of 32 KiB of data in 1 slice, twice the bytes on the wire. 256 KiB on 8
# ranks: L = 1, slices of 32768 B = 65536 wire bytes (6553.6 ns), N = 14:
# 14 x 6753.6 = 94550.4 ns = 1.75 x 2 x 26214.4 + 14 x 200; LL's hop is the route's, its
# base latency 6600: 101150.4 ns.
got = makespan("--ranks", "8", "--size", "262144", "--variant", "ll", "--partitions", "1")
check("ll, 8 ranks, 256 KiB: 101150.4 ns (half the bandwidth)", got == 101150.4, got)
# LL128: chunks of 576000 B of data in 1 slice, 128 wire bytes per 120. 4608000 B on 8
# ranks: L = 1, slices of 576000 B = 614400 wire bytes (61440 ns), N = 14:
# 14 x 61640 = 862960 ns = 1.75 x 16/15 x 460800 + 14 x 200; + 14000 + 14 x 1300 = 895160.
got = makespan("--ranks", "8", "--size", "4608000", "--variant", "ll128", "--partitions", "1")
check("ll128, 8 ranks, 4608000 B: 895160 ns (120 of 128 bytes)", got == 895160, got)
# Two ranks, LL: 65536 B, L = 1, N = 2 slices of 32768 B: 2 x (200 + 6553.6) = 13507.2,
# + 6600 = 20107.2.
got = makespan("--ranks", "2", "--size", "65536", "--variant", "ll", "--partitions", "1")
check("ll, 2 ranks, 64 KiB: 20107.2 ns", got == 20107.2, got)
# --ppn 1 makes every hop one across servers: LL128's per-hop latency is then 4.0 - 2.7 =
# 1.3 us, as over NVLink, and Simple's 14 - 2.7 = 11.3 us: 2941612.8 + 8400 + 14 x 11300 =
# 3108212.8 ns for the 16 MiB above.
got = run_json("--generate", "nccl-ring", "--ranks", "8", "--size", "16MiB", "--partitions",
               "1", *MODEL).get("makespan_ns")
check("simple, --ppn 1: every hop across servers, 3108212.8 ns", got == 3108212.8, got)

# Rings across servers (docs/GPU.md): 2 servers of 2 GPUs (rail.model.yaml with
# gpus_per_node 2: GPU g on rail g mod 2), --ppn 2, 2 channels. Channel 0 (rails 0 and 1)
# enters server 0 at GPU 0 and leaves it at GPU 1, enters server 1 at GPU 1 (rank 3) and
# leaves at GPU 0 (rank 2): ring 0 1 3 2, crossing 1 -> 3 on rail 1 and 2 -> 0 on rail 0.
# Channel 1 is the other way round: 1 0 2 3, crossing 0 -> 2 and 3 -> 1. Every NIC sends one
# flow and receives one, every NVLink port one: 16 MiB, L = 1, slices of 1 MiB, 12 slice
# steps. A put across servers on its rail takes 2 x 1 us + 1048576 B / 5 GB/s = 211715.2
# ns; over NVLink 200 + 104857.6 = 105057.6 ns, so positions 1 and 3 (the senders across
# servers) never wait for their input (their predecessor's put of step s - 1 ends by (s -
# 1) x 211715.2 + 105057.6) and the last of their 12 puts ends at 12 x 211715.2 =
# 2540582.4 ns, the makespan. In rank order (--ppn 1) both channels cross from GPU 1
# to GPU 2 and from 3 to 0, on another rail (through a spine: 2 x 1 us + 2 x 500 ns) and
# through one NIC, each at half its bandwidth: 12 x (3000 + 419430.4) = 5069164.8 ns. The
# latencies: Simple's base 8400 ns, and in each of the 6 steps that send every sender waits
# the mean of its ring's hops' rest, two across servers (11300 ns) and two over NVLink (2800
# ns): 7050 ns, 2540582.4 + 8400 + 6 x 7050 = 2591282.4 ns; in rank order every hop counts
# as one across servers (--ppn 1), 11300 ns: 5069164.8 + 76200 = 5145364.8 ns.
RAILS = ["--model", "tests/data/topology/rail.model.yaml", "--set", "contention=fair",
         "--set", "topology.gpus_per_node=2"]
for ppn, want in (("2", 2591282.4), ("1", 5145364.8)):
    out = run_json("--generate", "nccl-ring", "--ranks", "4", "--ppn", ppn, "--size", "16MiB",
                   "--partitions", "2", *RAILS)
    got = out.get("makespan_ns", out)
    check(f"ring on 2 servers x 2 GPUs, --ppn {ppn}: {want} ns", got == want, got)
# NCCL's network overhead (docs/GPU.md, Latencies): on a ring that spans servers a hop over
# NVLink takes at least 1 us (3 us for Simple), so LL's NVLink hop waits max(0.6, 1.0) - 0.6
# = 0.4 us beyond its route, where on one server it waits nothing. LL on the 2 servers above,
# 2 channels, 256 KiB: each channel's 128 KiB is one loop of 4 chunks of 32 KiB in 1 slice
# of 65536 wire bytes; across servers a put takes 2 x 1 us + 65536 / 5 GB/s = 15107.2 ns,
# over NVLink 200 + 6553.6 ns, so the senders across servers set the pace as above. Each of
# the 6 steps waits the mean of the ring's hops' rest, (0 + 0 + 400 + 400) / 4 = 200 ns,
# and LL's base latency is 6600 ns: 6600 + 6 x (200 + 15107.2) = 98443.2 ns (97243.2 ns
# without the overhead).
out = run_json("--generate", "nccl-ring", "--ranks", "4", "--ppn", "2", "--size", "262144",
               "--partitions", "2", "--variant", "ll", *RAILS)
got = out.get("makespan_ns", out)
check("ll ring on 2 servers x 2 GPUs: NVLink hops wait NCCL's net overhead, 98443.2 ns",
      got == 98443.2, got)
code, out, err = fennel("run", "--generate", "nccl-ring", "--ranks", "6", "--ppn", "4", *MODEL)
check("nccl-ring: ranks not a multiple of --ppn are refused", code == 1 and err ==
      "fennel: nccl-ring needs --ranks a multiple of --ppn (GPUs per server), got 6 and 4\n",
      err)

code, out, err = fennel("run", "--generate", "nccl-ring", "--ranks", "4", "--variant", "ll64",
                        *MODEL)
check("an unknown protocol is refused", code == 1 and err ==
      "fennel: nccl-ring: --variant is the protocol: simple, ll or ll128, not 'll64'\n", err)
code, out, err = fennel("run", "--generate", "nccl-ring", "--ranks", "4", "--partitions",
                        "256", *MODEL)
check("more than 255 channels (slots of a rank) are refused", code == 1 and err ==
      "fennel: nccl-ring needs --ranks >= 1 and --partitions (channels) 1 to 255, got 4 and "
      "256\n", err)

# fennel verify: NCCL's ring is an allreduce at several rank and channel counts and every
# protocol, sizes that do and do not divide evenly.
for ranks, ppns in ((1, (1,)), (2, (1, 2)), (3, (1,)), (5, (1,)), (8, (1, 2, 4)),
                    (16, (1, 8)), (12, (3, 4))):
    for ppn in ppns:
        for channels in (1, 2, 3, 8):
            for protocol in ("simple", "ll", "ll128"):
                for size in ("1000", "300000"):
                    code, out, err = fennel("verify", "--generate", "nccl-ring", "--ranks",
                                            str(ranks), "--ppn", str(ppn), "--partitions",
                                            str(channels), "--variant", protocol, "--size", size)
                    check(f"verify nccl-ring --ranks {ranks} --ppn {ppn} --partitions "
                          f"{channels} --variant {protocol} --size {size}", code == 0 and
                          out.startswith(f"nccl-ring: ok: allreduce over {ranks} ranks"),
                          (out, err))

# nccl-tree (docs/GPU.md): NCCL's double binary tree between nodes, a chain inside each.
# Times derived by hand under tests/data/topology/postal-tree.model.yaml: a put takes T =
# 1000 + 0.1 x bytes ns and holds its slot (thread block) until it arrives, so the puts of
# one thread block go one after another; computes and proxies take no time. A Simple chunk
# is 512 KiB: T = 1000 + 52428.8 = 53428.8 ns. The latencies (Simple, tree): every rank
# starts at 8400 ns, and the first chunk's puts of a thread block wait 3400 ns over NVLink
# and 11300 ns across nodes first (once for the puts down of a block, the larger if any
# crosses).
TREE = ["--model", "tests/data/topology/postal-tree.model.yaml"]


def tree_makespan(*args):
    out = run_json("--generate", "nccl-tree", *args, *TREE)
    return out.get("makespan_ns", out)


T = 53428.8
# 2 nodes of 2 GPUs, 1 channel (the first tree: node 0 the root, node 1 its child): rank 0
# is the root, children 1 (its chain) and 2 (node 1's first GPU); rank 3 is 2's child.
# One chunk: 1 and 3 put up [0, T]; 2 reduces at T, puts to 0 [T, 2T]; 0 reduces at 2T and
# puts to 1 [2T, 3T] then to 2 [3T, 4T]; 2 puts the result to 3 [4T, 5T]: 5T. With the
# latencies: 1 and 3 wait 3400, 2 waits 11300 (up, across nodes), 0 11300 (2 is across), 2
# 3400 down to 3: 8400 + 29400 + 5T = 304944 ns.
got = tree_makespan("--ranks", "4", "--ppn", "2", "--size", "524288", "--partitions", "1")
check("tree, 2 nodes x 2, one chunk: 37800 + 5T = 304944 ns", got == 304944, got)
# K = 4 chunks (2 MiB): the root's thread block, two puts per chunk, sets the pace: it
# reduces chunk k at 2T + 2kT, 2 gets it at 4T + 2kT and 3 at 5T + 2kT: (2K + 3)T = 11T.
# With the latencies the root's puts of chunk k end at 26000 + (4 + 2k)T (it never waits for
# the next chunk's sum, ready at 14700 + (k + 2)T), 3 gets the last at 26000 + 11T, later
# than the first chunk's 29400 + 5T: 8400 + 26000 + 11T = 622116.8 ns.
got = tree_makespan("--ranks", "4", "--ppn", "2", "--size", "2MiB", "--partitions", "1")
check("tree, 2 nodes x 2, 4 chunks: 34400 + 11T = 622116.8 ns", abs(got - 622116.8) < 1e-6,
      got)
# 2 channels: channel 1 runs on the second tree (mirrored: node 1 the root), on other
# slots; 1 MiB gives each channel one chunk of 512 KiB: as one channel at 512 KiB.
got = tree_makespan("--ranks", "4", "--ppn", "2", "--size", "1MiB", "--partitions", "2")
check("tree, 2 nodes x 2, 2 channels on the two trees: 37800 + 5T", got == 304944, got)
# 4 nodes of 2 GPUs, 1 channel: NCCL's tree of 4 nodes is 0 - 2 - {1, 3}, so rank 0 is the
# root with children 1 and 4; 4 has 5 (its chain), 2 and 6; 2 has 3, 6 has 7. One chunk:
# leaves put [0, T]; 2 and 6 put to 4 [T, 2T]; 4 puts to 0 [2T, 3T]; 0 puts to 1 [3T, 4T]
# and to 4 [4T, 5T]; 4 puts to 5, 2, 6 in [5T, 8T]; 6 puts to 7 [8T, 9T]: 9T. With the
# latencies: the leaves wait 3400, 2 and 6 11300, 4 11300 up and 11300 down, 0 11300, 6
# 3400 down to 7: 8400 + 3400 + 4 x 11300 + 3400 + 9T = 60400 + 9T = 541259.2 ns.
got = tree_makespan("--ranks", "8", "--ppn", "2", "--size", "524288", "--partitions", "1")
check("tree, 4 nodes x 2, one chunk: 60400 + 9T = 541259.2 ns", abs(got - 541259.2) < 1e-6,
      got)
# K = 2 chunks: rank 4's broadcasting block, three puts per chunk, sets the pace: it gets
# chunk k at 5T + 3kT, 6 at 8T + 3kT, 7 at 9T + 3kT: (3K + 6)T = 12T. With the latencies 4
# gets chunk 1 at 37300 + 7T but is busy with chunk 0 until 48600 + 8T, 6 puts it to 7 by
# 48600 + 12T, later than chunk 0's 52000 + 9T: 8400 + 48600 + 12T = 698145.6 ns.
got = tree_makespan("--ranks", "8", "--ppn", "2", "--size", "1MiB", "--partitions", "1")
check("tree, 4 nodes x 2, 2 chunks: 57000 + 12T = 698145.6 ns", abs(got - 698145.6) < 1e-6,
      got)
# LL: chunks of 32 KiB of data, 64 KiB on the wire: T = 1000 + 6553.6. 64 KiB on 2 nodes
# of 2: K = 2, (2K + 3)T = 7 x 7553.6 = 52875.2. LL's tree waits nothing over NVLink and
# 5 - 2.7 = 2.3 us across nodes (2 up, 0 down), its base latency 6800: 11400 + 7T = 64275.2.
got = tree_makespan("--ranks", "4", "--ppn", "2", "--size", "65536", "--partitions", "1",
                    "--variant", "ll")
check("tree, ll, 2 nodes x 2, 2 chunks: 11400 + 7 x 7553.6 ns", abs(got - 64275.2) < 1e-6,
      got)

def check_nic_bytes(generator, channels, want_by_nics):
    """Runs GENERATOR on 2 servers of 4 GPUs (rail.model.yaml, 1 MiB, Simple, fair) with each
    NIC count of WANT_BY_NICS and checks the bytes into and out of every NIC."""
    for nics, want in want_by_nics:
        with tempfile.TemporaryDirectory() as tmp:
            csv_path = os.path.join(tmp, "links.csv")
            code, out, err = fennel("run", "--generate", generator, "--ranks", "8", "--ppn", "4",
                                    "--size", "1MiB", "--partitions", channels, "--variant",
                                    "simple", "--model", "tests/data/topology/rail.model.yaml",
                                    "--set", "contention=fair", "--set",
                                    "topology.gpus_per_node=4", "--set",
                                    f"topology.nics_per_node={nics}", "--links", csv_path)
            rows = list(csv.DictReader(open(csv_path))) if code == 0 else []
        rail = [r for r in rows if r["level"] == "rail"]
        up = [int(r["bytes"]) for r in rail if r["from"].startswith("nic")]
        down = [int(r["bytes"]) for r in rail if r["to"].startswith("nic")]
        check(f"{generator}, 2 servers x 4 GPUs on {nics} NICs: bytes into and out of each NIC "
              f"{want}", up == want and down == want, (code, err, up, down))


# The tree's channels spread over the servers' NICs as NCCL 2.30.7's graph does
# (src/graph/search.cc, ncclTopoSearchRecNet: graph channel k starts at NIC k mod the NICs,
# entering at the first GPU next to it, src/graph/topo.cc, ncclTopoGetLocalGpu). 2 servers
# of 4 GPUs and 2 NICs (rail.model.yaml, GPUs 0-1 on NIC 0, 2-3 on NIC 1), --ppn 4, 4
# channels of 1 MiB / 4 = 256 KiB (Simple: the wire carries the data): the pair of channels
# 0, 1 (graph channel 0) has its head on GPU 0 (NIC 0), the pair 2, 3 on GPU 2 (NIC 1). On
# two nodes each channel's head of the child node puts its 256 KiB up to the root's and
# gets the 256 KiB of the result back, and the two channels of a pair have their roots on
# the two nodes (the trees mirrored): every NIC sends 2 x 256 KiB = 524288 B into its rail
# and gets as much. With a NIC a GPU (nics_per_node 4) the heads are GPUs 0 and 1: NICs 0
# and 1 of each server carry 524288 B each way, NICs 2 and 3 nothing.
check_nic_bytes("nccl-tree", "4", (("2", [524288] * 4), ("4", [524288, 524288, 0, 0] * 2)))

# The ring's channels spread over the servers' NICs as NCCL 2.30.7's ring graph does when
# NICs are fewer than GPUs (docs/GPU.md, rings across servers): its search finds a ring with
# crossNic 0 first (src/graph/search.cc, ncclTopoCompute), graph channel k entering at NIC k
# mod the NICs (ncclTopoSearchRecNet) by its first GPU (src/graph/topo.cc,
# ncclTopoGetLocalGpu) and leaving by the same NIC (ncclTopoSearchCheckNet). 2 servers of 4
# GPUs and 2 NICs (GPUs 0-1 on NIC 0, 2-3 on NIC 1), --ppn 4, 2 channels of 1 MiB / 2 =
# 512 KiB over 8 ranks (Simple, one loop): each ring edge carries 2 (8 - 1) chunks of
# 524288 / 8 = 65536 B, 917504 B, and each channel crosses once each way between the two
# servers: channel 0 through NIC 0 of both, channel 1 through NIC 1, so every NIC sends and
# gets 917504 B (a NIC a GPU, rails a = 0 and b = 1 for the pair of channels 0, 1: NICs 0
# and 1 carry one crossing each way, NICs 2 and 3 nothing).
check_nic_bytes("nccl-ring", "2", (("2", [917504] * 4), ("4", [917504, 917504, 0, 0] * 2)))

# and stay an allreduce (a broadcast, a reduce) on p4de's servers of 8 GPUs and 4 NICs, at
# 2 and 3 servers (an odd count) and 1, 3 and 8 channels: generated with the model (which
# gives the NICs), then verified.
for gen, what in (("nccl-ring", "allreduce"), ("nccl-ring-bcast", "bcast"),
                  ("nccl-ring-reduce", "reduce")):
    for ranks in (16, 24):
        for channels in (1, 3, 8):
            with tempfile.TemporaryDirectory() as tmp:
                path = os.path.join(tmp, "ring.yaml")
                code, out, err = fennel("generate", gen, "--ranks", str(ranks), "--ppn", "8",
                                        "--partitions", str(channels), "--size", "300000",
                                        "--model", "p4de", "-o", path)
                if code == 0:
                    code, out, err = fennel("verify", path, "--collective", what)
            check(f"verify {gen} --ranks {ranks} --ppn 8 --partitions {channels} on p4de",
                  code == 0 and f": ok: {what} over {ranks} ranks" in out, (out, err))

# A sweep places the channels on the model's NICs as `fennel run` does: the same makespan
# for the 2-NIC servers above, and not the one of a NIC a GPU (whose heads share NIC 0).
NICS = ["--ranks", "8", "--ppn", "4", "--size", "1MiB", "--partitions", "4", "--variant",
        "simple", "--model", "tests/data/topology/rail.model.yaml", "--set", "contention=fair",
        "--set", "topology.gpus_per_node=4"]
with tempfile.TemporaryDirectory() as tmp:
    csv_path = os.path.join(tmp, "sweep.csv")
    code, out, err = fennel("sweep", "--generate", "nccl-tree", *NICS, "--set",
                            "topology.nics_per_node=2", "-o", csv_path)
    swept = [float(r["makespan_ns"]) for r in csv.DictReader(open(csv_path))] if code == 0 else []
runs = [run_json("--generate", "nccl-tree", *NICS, "--set", f"topology.nics_per_node={n}")
        .get("makespan_ns") for n in ("2", "4")]
check("nccl-tree: a sweep places the channels on the NICs as run does",
      swept == runs[:1] and runs[0] != runs[1], (code, err, swept, runs))

code, out, err = fennel("run", "--generate", "nccl-tree", "--ranks", "6", "--ppn", "4", *TREE)
check("nccl-tree: ranks not a multiple of --ppn are refused", code == 1 and err ==
      "fennel: nccl-tree needs --ranks a multiple of --ppn (GPUs per node) and --partitions "
      "(channels) 1 to 127, got 6, 4 and 2\n", err)

for ranks, ppns in ((1, (1,)), (2, (1, 2)), (3, (1, 3)), (6, (1, 2, 3)), (8, (1, 2, 8)),
                    (12, (1, 4)), (16, (2, 8))):
    for ppn in ppns:
        for channels in (1, 2, 3):
            for protocol, size in (("simple", "3000000"), ("ll", "1000"), ("ll128", "300000")):
                code, out, err = fennel("verify", "--generate", "nccl-tree", "--ranks",
                                        str(ranks), "--ppn", str(ppn), "--partitions",
                                        str(channels), "--variant", protocol, "--size", size)
                check(f"verify nccl-tree --ranks {ranks} --ppn {ppn} --partitions {channels} "
                      f"--variant {protocol} --size {size}", code == 0 and
                      out.startswith(f"nccl-tree: ok: allreduce over {ranks} ranks"), (out, err))

# The other collectives' rings (docs/GPU.md), on one server of rail.model.yaml under fair
# contention as above: a put of x bytes takes 200 + x / 10 GB/s ns, every rank sends to its
# ring's next at the same time, computes and proxies take no time.


def run_makespan(generator, *args, model=MODEL):
    ppn = [] if "--ppn" in args else ["--ppn", "8"]
    out = run_json("--generate", generator, *ppn, *args, *model)
    return out.get("makespan_ns", out)


# Allgather: --size 2 MiB per rank on 8 GPUs, 1 channel: L = 1 loop of S = 2 slices of 1 MiB
# (105057.6 ns each), p - 1 = 7 steps: 14 slice steps in lockstep, 14 x 105057.6; with the
# latencies (Simple, over NVLink) 8400 + 7 x 2800 = 28000 more: 1498806.4 ns.
got = run_makespan("nccl-ring-allgather", "--ranks", "8", "--size", "2MiB", "--partitions", "1")
check("allgather, 8 ranks, 2 MiB each, 1 channel: 1498806.4 ns", got == 1498806.4, got)
# Reduce-scatter: --size 16 MiB, a rank's block 2 MiB: the same 14 slice steps.
got = run_makespan("nccl-ring-reduce-scatter", "--ranks", "8", "--size", "16MiB",
                   "--partitions", "1")
check("reduce-scatter, 8 ranks, 16 MiB, 1 channel: 1498806.4 ns", got == 1498806.4, got)
# Broadcast: 2 MiB on 8 GPUs, 1 channel: K = 4 chunks of 512 KiB, T = 200 + 52428.8 =
# 52628.8 ns per hop; chunk k reaches hop i at (k + i + 1) T: (K + p - 2) T = 10 T. Each
# hop's first chunk waits 2800 ns first, so hop i ends chunk k at (i + 1) 2800 + (k + i +
# 1) T: 8400 + 7 x 2800 + 10 T = 554288 ns.
got = run_makespan("nccl-ring-bcast", "--ranks", "8", "--size", "2MiB", "--partitions", "1")
check("bcast, 8 ranks, 2 MiB, 1 channel: 28000 + 10 x 52628.8 = 554288 ns", got == 554288, got)
# 2 channels on the same ring: 2 chunks each, two puts on every port: T = 200 + 2 x 52428.8
# = 105057.6, 28000 + (2 + 6) T = 868460.8 ns.
got = run_makespan("nccl-ring-bcast", "--ranks", "8", "--size", "2MiB", "--partitions", "2")
check("bcast, 2 channels: 28000 + 8 x 105057.6 = 868460.8 ns", got == 868460.8, got)
# Reduce to rank 3: the chain 4 5 6 7 0 1 2 3, the same 28000 + 10 T.
got = run_makespan("nccl-ring-reduce", "--ranks", "8", "--size", "2MiB", "--partitions", "1",
                   "--root", "3")
check("reduce to rank 3, 8 ranks, 2 MiB, 1 channel: 554288 ns", got == 554288, got)
# Across servers: allgather of 4 MiB per rank on 2 servers of 2 GPUs, 2 channels (rings 0 1
# 3 2 and 1 0 2 3, as for nccl-ring above): L = 1, 2 slices of 1 MiB, 3 steps, 6 slice
# steps; the GPUs that send across servers never wait: 6 x 211715.2 = 1270291.2 ns, and
# 8400 + 3 x 7050 (the mean hop, as for nccl-ring) = 29550 of latencies: 1299841.2 ns.
got = run_makespan("nccl-ring-allgather", "--ranks", "4", "--ppn", "2", "--size", "4MiB",
                   "--partitions", "2", model=RAILS)
check("allgather on 2 servers x 2 GPUs: 1299841.2 ns", got == 1299841.2, got)

for gen, coll in (("nccl-ring-allgather", "allgather"),
                  ("nccl-ring-reduce-scatter", "reduce-scatter"),
                  ("nccl-ring-bcast", "bcast"), ("nccl-ring-reduce", "reduce")):
    rooted = coll in ("bcast", "reduce")
    for ranks, ppns in ((1, (1,)), (2, (1, 2)), (3, (1,)), (5, (1,)), (8, (1, 2, 4)),
                        (12, (3, 4))):
        for ppn in ppns:
            for channels in (1, 3):
                for protocol, size in (("simple", "3000000"), ("ll", "1000"),
                                       ("ll128", "300000")):
                    for root in ((0, ranks - 1) if rooted else (None,)):
                        extra = ["--root", str(root)] if root is not None else []
                        code, out, err = fennel("verify", "--generate", gen, "--ranks",
                                                str(ranks), "--ppn", str(ppn), "--partitions",
                                                str(channels), "--variant", protocol,
                                                "--size", size, *extra)
                        check(f"verify {gen} --ranks {ranks} --ppn {ppn} --partitions "
                              f"{channels} --variant {protocol} --size {size} {extra}",
                              code == 0 and out.startswith(f"{gen}: ok: {coll} over {ranks} "
                                                           "ranks"), (out, err))


# NCCL's PAT (docs/GPU.md, nccl-pat), under postal-tree.model.yaml (a put takes T = 1000 +
# 0.1 x bytes ns and holds its thread block until it arrives; computes and proxies take no
# time). The chunk is 512 KiB halved while chunk x channels x 32 (allgather; 16 for a
# reduce-scatter) exceeds the collective's bytes, down to 64 KiB: every run below has chunks
# of 64 KiB, T = 1000 + 6553.6 = 7553.6 ns. Latencies (NCCL 2.30.7 src/graph/tuning.cc, PAT:
# base 8 us + floor(log2 ranks) x 14 / 3.5 us + ranks x 2.8 us): every rank starts at 8000 +
# floor(log2 p) x 4000 ns, and each put of the first chunk waits 2800 - 2700 = 100 ns first
# (2700 ns, the ring LL's network hop, is what the presets' routes take).
PAT_T = 7553.6


def pat_makespan(generator, *args):
    out = run_json("--generate", generator, *args, *TREE)
    return out.get("makespan_ns", out)


# Allgather on 2 ranks, 1 MiB each, 1 channel (2 MiB in all: chunks of 64 KiB, L = 16): a
# rank puts its chunk to the other (step 1) and takes the other's (final step 1), chunk
# after chunk: 12000 + 100 + 16 T = 132957.6 ns.
got = pat_makespan("nccl-pat-allgather", "--ranks", "2", "--size", "1MiB", "--partitions", "1")
check("pat allgather, 2 ranks, 16 chunks: 12100 + 16 T = 132957.6 ns",
      abs(got - 132957.6) < 1e-6, got)
# 4 ranks, 64 KiB each (A = 2 trees, D = 2): NCCL's steps 2, 1, 3, then the final steps 1
# and 3. Every rank starts at 8000 + 2 x 4000 = 16000 ns. Rank r puts its own chunk to r - 2
# [16100, 16100 + T], its own to r - 1 [16200 + T, 16200 + 2T]; step 3 takes the chunk of
# r + 2 (arrived at 16100 + T) and puts it to r - 1 [16300 + 2T, 16300 + 3T]; the final
# steps take r + 1's puts of steps 1 and 3: 16300 + 3T = 38960.8 ns.
got = pat_makespan("nccl-pat-allgather", "--ranks", "4", "--size", "64KiB", "--partitions", "1")
check("pat allgather, 4 ranks, one chunk: 16300 + 3 T = 38960.8 ns", abs(got - 38960.8) < 1e-6,
      got)
# Two chunks (128 KiB each): the second chunk's three puts follow without waits, each ready
# when the block reaches it: 16300 + 6 T = 61621.6 ns.
got = pat_makespan("nccl-pat-allgather", "--ranks", "4", "--size", "128KiB", "--partitions", "1")
check("pat allgather, 4 ranks, two chunks: 16300 + 6 T = 61621.6 ns",
      abs(got - 61621.6) < 1e-6, got)
# 3 ranks (N = 4, one tree, D = 4: steps 2, 3, 1 and the final 1; steps 3 and final 3 are
# past the ranks; the start 8000 + 4000): r puts its own to r - 2 [12100, 12100 + T]; step 3
# only receives the chunk of r + 2 (NCCL still receives when a step with lowest bit 1 is
# skipped); it puts its own to r - 1 [12200 + T, 12200 + 2T] and takes r + 1's: 12200 + 2T
# = 27307.2 ns.
got = pat_makespan("nccl-pat-allgather", "--ranks", "3", "--size", "64KiB", "--partitions", "1")
check("pat allgather, 3 ranks: 12200 + 2 T = 27307.2 ns", abs(got - 27307.2) < 1e-6, got)
# Reduce-scatter on 4 ranks, 256 KiB (blocks of 64 KiB): final steps 3 and 1 put r's own
# data of the blocks of r + 3 and r + 1 to r + 1 [16100, 16100 + T], [16200 + T, 16200 +
# 2T]; step 3 reduces what r - 1 put first (the block of r + 2) and puts the sum to r + 2
# [16300 + 2T, 16300 + 3T]; steps 2 and 1 reduce r's own block from r - 2 and r - 1: 16300
# + 3T = 38960.8 ns.
got = pat_makespan("nccl-pat-reduce-scatter", "--ranks", "4", "--size", "256KiB",
                   "--partitions", "1")
check("pat reduce-scatter, 4 ranks: 16300 + 3 T = 38960.8 ns", abs(got - 38960.8) < 1e-6, got)
# 3 ranks, 192 KiB: step 3 is past the ranks but still puts r's own data of the block of r
# + 2 to r + 2 [12100, 12100 + T]; step 2 reduces r + 1's; final step 1 puts r's own part
# of the block of r + 1 to r + 1 [12200 + T, 12200 + 2T]; step 1 reduces r - 1's: 12200 +
# 2T = 27307.2 ns.
got = pat_makespan("nccl-pat-reduce-scatter", "--ranks", "3", "--size", "192KiB",
                   "--partitions", "1")
check("pat reduce-scatter, 3 ranks: 12200 + 2 T = 27307.2 ns", abs(got - 27307.2) < 1e-6, got)

# 8 ranks, 64 KiB each (A = 4, D = 2; every rank starts at 8000 + 3 x 4000 = 20000): steps
# 4, 2, 6, 1, 3, 5, 7, each a put after 100 ns, then the final steps 1, 3, 5, 7. Each step's
# data is there before the step: step 6 forwards the chunk of r + 4 (r + 4's step 4, done at
# 20100 + T), step 3 that of r + 2 (its step 2, 20200 + 2T), step 7 that of r + 6 (r + 2's
# step 6, 20300 + 3T); so the seven puts go back to back, the last done at 20700 + 7T, and
# so are r + 1's puts the final steps take: 73575.2 ns.
got = pat_makespan("nccl-pat-allgather", "--ranks", "8", "--size", "64KiB", "--partitions", "1")
check("pat allgather, 8 ranks: 20700 + 7 T = 73575.2 ns", abs(got - 73575.2) < 1e-6, got)
# Reduce-scatter, 8 ranks, 512 KiB: final steps 7, 3, 5, 1 put r's own parts of the blocks
# of r + 7, r + 3, r + 5, r + 1 to r + 1 (done by 20400 + 4T); step 7 reduces r - 1's
# block-of-r + 6 part and puts the sum to r + 2 [20500 + 4T, 20500 + 5T], step 3 the block
# of r + 2 to r + 2 [20600 + 5T, 20600 + 6T]; steps 6 and 2 reduce those from r - 2; step 5
# puts the block of r + 4 to r + 4 [20700 + 6T, 20700 + 7T]; steps 4 and 1 reduce r's own:
# 20700 + 7T = 73575.2 ns.
got = pat_makespan("nccl-pat-reduce-scatter", "--ranks", "8", "--size", "512KiB",
                   "--partitions", "1")
check("pat reduce-scatter, 8 ranks: 20700 + 7 T = 73575.2 ns", abs(got - 73575.2) < 1e-6, got)

code, out, err = fennel("run", "--generate", "nccl-pat-allgather", "--ranks", "4", "--variant",
                        "ll", *TREE)
check("nccl-pat: a protocol other than simple is refused", code == 1 and err ==
      "fennel: nccl-pat-allgather: NCCL runs PAT with the protocol simple only, not 'll'\n", err)

for gen, coll in (("nccl-pat-allgather", "allgather"),
                  ("nccl-pat-reduce-scatter", "reduce-scatter")):
    for ranks in (1, 2, 3, 4, 5, 7, 8, 13, 16, 33):
        for channels in (1, 3):
            for size in ("8", "1000000"):
                code, out, err = fennel("verify", "--generate", gen, "--ranks", str(ranks),
                                        "--partitions", str(channels), "--size", size)
                check(f"verify {gen} --ranks {ranks} --partitions {channels} --size {size}",
                      code == 0 and out.startswith(f"{gen}: ok: {coll} over {ranks} ranks"),
                      (out, err))

finish()
