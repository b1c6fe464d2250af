#!/usr/bin/env python3
"""Operations of a network's leaf switch (SHARP): a load-reduce whose group has one GPU on each
of several servers of one rail runs at that rail's leaf when the topology says its leaves
reduce (`sharp: true`), and with `allreduce: true` returns the sum to every member
(docs/SEMANTICS.md, Operations of a switch; docs/TOPOLOGY.md, GPU servers and rails).

Times derived by hand on two servers of tests/data/topology/rail.model.yaml: a GPU's link to
its NIC takes no latency and 5 GB/s (the rail's bandwidth, its default), a NIC's cable to the
rail's leaf 1 us and 5 GB/s (0.2 ns per byte); postal with no terms of its own, and an
operation of a switch takes no model overhead. A member's way into the leaf is its link to its
NIC then the NIC's cable, 0 + 1000 ns of latency, and the way back the same; an allreduce's
tree is every member's way in, then every member's way out. Alone, on any level, it takes
both stages' latencies and its bytes over the narrowest link: 2000 + 0.2 x bytes ns, what a
put between the two GPUs takes (GPU, NIC, leaf, NIC, GPU).

Usage: test_sharp.py FENNEL SOURCE_ROOT. Prints TAP.
"""
import csv
import os
import tempfile

from harness import check, expect_error, fennel, finish, run_json

RAIL = "tests/data/topology/rail.model.yaml"
DATA = "tests/data/sharp/"
SHARP = ("--model", RAIL, "--set", "topology.sharp=true")
LEVELS = ("none", "endpoint", "links", "fair")


def makespan(program, level, *extra):
    out = run_json(DATA + program, *SHARP, "--set", "contention=" + level, *extra)
    return out.get("makespan_ns", out)


# One allreduce of 100000 B by rank 0 over ranks 0 and 8 (GPU 0 of both servers, rail 0):
# 2000 + 20000 = 22000 ns on every level. endpoint and links: each member's link to its NIC
# on [0, 20000], its cable on [0, 20000] (entered as the head leaves the first link, at 0),
# the head at the leaf at 1000 and the tail at 21000; the ways out entered at 1000, each
# cable's tail at 22000 and the link to the GPU's (no latency) at 22000. fair: one flow over
# the 8 links at 5 GB/s after 2000 ns of latency.
for level in LEVELS:
    got = makespan("allreduce.yaml", level)
    check(f"one allreduce at a leaf of 100000 B, {level}: 22000 ns", got == 22000, got)

# Two such allreduces at once (issued by ranks 0 and 8) share every link of their trees.
# none: each alone, 22000 ns. endpoint and links: the first (program order) holds every link
# for 20000 ns (the ways in from 0, the ways out from 1000); the second enters the links in
# at 20000, its head at the leaf at 21000 and its tail at 41000, the cables out (free at
# 21000) at 21000, its last byte at 42000 ns. fair: two flows on every link, 2.5 GB/s each,
# 40000 ns after the 2000 ns of latency: 42000 ns.
want = {"none": 22000, "endpoint": 42000, "links": 42000, "fair": 42000}
for level in LEVELS:
    got = makespan("two.yaml", level)
    check(f"two allreduces at one leaf, {level}: {want[level]} ns", got == want[level], got)

# nvls_bandwidth is the NVLink ports' rate: a leaf's operation keeps its links' own.
got = makespan("allreduce.yaml", "fair", "--set", "topology.nvls_bandwidth=1GB/s")
check("nvls_bandwidth leaves a leaf's operation alone: 22000 ns", got == 22000, got)

# The link statistics: each of the 8 links of the tree (both GPUs' links to and from their
# NICs, both NICs' cables to and from the leaf) is busy 20000 ns.
with tempfile.TemporaryDirectory() as tmp:
    status, out, err = fennel("run", DATA + "allreduce.yaml", *SHARP, "--links",
                              os.path.join(tmp, "links.csv"))
    with open(os.path.join(tmp, "links.csv")) as f:
        rows = list(csv.DictReader(f))
busy = sorted((row["from"], row["to"]) for row in rows if row["busy_ns"] == "20000")
want_links = sorted([("node0", "nic0"), ("nic0", "rail0"), ("rail0", "nic0"), ("nic0", "node0"),
                     ("node8", "nic8"), ("nic8", "rail0"), ("rail0", "nic8"), ("nic8", "node8")])
check("the allreduce's 8 links are each busy 20000 ns", status == 0 and busy == want_links,
      busy)

# The group and the flag are written and read back, by the YAML writer and the binary
# program.
status, out, err = fennel("generate", "--from", DATA + "two.yaml")
check("YAML writes the stride and the flag", status == 0 and
      "group: 0..8 by 8, size: 100000B, allreduce: true" in out, out[-400:])
with tempfile.TemporaryDirectory() as tmp:
    binary = os.path.join(tmp, "two.fbin")
    status, out, err = fennel("convert", DATA + "two.yaml", "-o", binary)
    got = run_json(binary, *SHARP, "--set", "contention=fair").get("makespan_ns")
    check("the binary program keeps the stride and the flag: 42000 ns", status == 0 and
          got == 42000, (err, got))

# verify: with `allreduce: true` both ranks end with the sum; without it only the issuer.
status, out, err = fennel("verify", DATA + "verify.yaml")
check("verify: an allreduce in the switch", status == 0 and out.startswith(
    DATA + "verify.yaml: ok: allreduce over 2 ranks"), out + err)
expect_error("verify: a load-reduce returns the sum to its issuer only",
             ["verify", DATA + "verify-issuer.yaml"], 1,
             DATA + "verify-issuer.yaml: rank 1 block 0 lacks contributions from ranks 0")

# Errors.
expect_error("a leaf needs sharp", ["run", DATA + "allreduce.yaml", "--model", RAIL], 1,
             "task 'ar': ranks 0 and 8 of its group are on different switches of the "
             "topology; a load-reduce is done by one switch (across servers, a rail's leaf "
             "with `sharp: true`)")
expect_error("one rail", ["run", DATA + "rails.yaml", *SHARP], 1,
             "task 'ar': ranks 0 and 9 of its group are on different rails; a load-reduce is "
             "done by one rail's leaf")
expect_error("one GPU a server", ["run", DATA + "one-server.yaml", *SHARP], 1,
             "task 'ar': ranks 0 and 4 of its group are on one server; a load-reduce at a "
             "rail's leaf takes one GPU of each server")
expect_error("sharp is true or false", ["run", DATA + "allreduce.yaml", "--model", RAIL,
                                        "--set", "topology.sharp=yes"], 2,
             "--set topology.sharp=yes: topology.sharp: 'yes' is not true or false")
with tempfile.TemporaryDirectory() as tmp:
    bad = os.path.join(tmp, "bad.yaml")
    with open(bad, "w") as f:
        f.write("fennel: 1\ntasks:\n  - {id: s, type: start, rank: 0}\n"
                "  - {id: a, type: load-reduce, rank: 0, group: 0..7 by 3, size: 1B, after: [s]}\n")
    code, out, err = fennel("run", bad, "--model", RAIL)
    check("a stride that does not reach LAST is refused at its line and column", code == 1 and
          err.startswith("fennel: " + bad + ":4:") and "FIRST..LAST by STEP" in err, err)
    with open(bad, "w") as f:
        f.write("fennel: 1\ntasks:\n  - {id: a, type: multicast, rank: 0, group: 0..1,"
                " size: 1B, allreduce: true}\n")
    code, out, err = fennel("run", bad, "--model", RAIL)
    check("allreduce is a load-reduce's", code == 1 and err.endswith(
        "'allreduce' does not apply to a multicast task\n"), err)
    with open(bad, "w") as f:
        f.write("fennel: 1\ntasks:\n  - {id: s, type: start, rank: 1}\n"
                "  - {id: a, type: load-reduce, rank: 1, group: 0..8 by 8, size: 1B, after: [s]}\n")
    code, out, err = fennel("run", bad, "--model", RAIL)
    check("the issuer is one of its strided group", code == 1 and
          "its group (2 ranks from 0, every 8th) must hold its rank 1" in err, err)

# nccl-collnet: NCCL's CollNet Direct allreduce (docs/GPU.md). Nodes of 2 GPUs
# (topology.gpus_per_node=2, --ppn 2), contention none, so each operation takes its time
# alone: a put inside a server of b bytes 200 + 0.1 b ns (two NVLink hops of 100 ns, 10
# GB/s), the SHARP allreduce at a rail's leaf 2000 + 0.2 b ns (above, whatever the number of
# servers: every member's way runs side by side), computes free. Every rank starts after
# NCCL's latency inside the node, 2 (3.7 + 1 x 0.4) = 8.2 us, and the first loop's network
# operation waits 31 - 2.7 = 28.3 us first. Every GPU is a head; heads 0 and 1 of a node
# use rails 0 and 1 and share nothing here.
COLLNET = ["--generate", "nccl-collnet", "--ppn", "2", *SHARP, "--set",
           "topology.gpus_per_node=2", "--set", "contention=none"]
# 64 KiB on 1 channel: the chunk (src/enqueue.cc) starts at 512 KiB and halves while 64 KiB /
# (1 x 2 x chunk) < 2 x 64 down to 128 KiB, while < 2 x 8 down to 64 KiB, and while < 2 x 8
# down to 32 KiB: one loop of two 32768 B chunks. Each GPU puts the other's chunk to it
# (3476.8 ns, done at 11676.8), each head reduces it and, after 8200 + 28300 = 36500 ns, node
# 0's head h has the leaf of rail h reduce both nodes' chunk h (8553.6 ns) and each head puts
# the sum to the other GPU of its node (3476.8): 36500 + 8553.6 + 3476.8 = 48530.4 ns, on 2
# servers and on 4.
# 1 MiB on 1 channel: 1 MiB / (2 x 32 KiB) = 16 < 16 is false, so 32 KiB chunks and 16 loops.
# The scatters (3476.8 ns each, back to back) stay ahead of the network's operations, which
# follow one another on the issuer's thread block from 36500 on, 8553.6 ns each; the last
# one's sum is put into the node: 36500 + 16 x 8553.6 + 3476.8 = 176834.4 ns. 2 MiB on 2
# channels: each channel 1 MiB of 32 KiB chunks (2 MiB / (2 x 2 x 32 KiB) = 16), the same.
for ranks, channels, size, want in (("4", "1", "64KiB", 48530.4), ("8", "1", "64KiB", 48530.4),
                                    ("4", "1", "1MiB", 176834.4), ("8", "1", "1MiB", 176834.4),
                                    ("4", "2", "2MiB", 176834.4)):
    out = run_json(*COLLNET, "--ranks", ranks, "--partitions", channels, "--size", size)
    got = out.get("makespan_ns", out)
    check(f"nccl-collnet, {ranks} ranks of 2 a node, {size}, {channels} channel(s): {want} ns",
          got == want, got)
for ranks, ppn in (("1", "1"), ("2", "1"), ("4", "2"), ("16", "8"), ("12", "3"), ("24", "4"),
                   ("72", "8"), ("9", "9")):
    for channels in ("1", "3", "16"):
        status, out, err = fennel("verify", "--generate", "nccl-collnet", "--ranks", ranks,
                                  "--ppn", ppn, "--partitions", channels, "--size", "1MiB")
        check(f"verify nccl-collnet --ranks {ranks} --ppn {ppn} --partitions {channels}",
              status == 0 and f"ok: allreduce over {ranks} ranks" in out, out + err)
expect_error("nccl-collnet without sharp",
             ["run", "--generate", "nccl-collnet", "--ranks", "4", "--ppn", "2", "--model",
              RAIL, "--set", "topology.gpus_per_node=2"], 1,
             "task 'ldred.r0': ranks 0 and 2 of its group are on different switches of the "
             "topology; a load-reduce is done by one switch (across servers, a rail's leaf "
             "with `sharp: true`)")
expect_error("nccl-collnet: four thread blocks a channel",
             ["run", "--generate", "nccl-collnet", "--ranks", "16", "--ppn", "8",
              "--partitions", "64", *SHARP], 1,
             "nccl-collnet needs --ranks a multiple of --ppn (GPUs per node) and --partitions "
             "(channels) 1 to 63 (4 thread blocks a channel), got 16, 8 and 64")
expect_error("nccl-collnet with LL", ["run", "--generate", "nccl-collnet", "--ranks", "16",
                                      "--ppn", "8", "--variant", "ll", *SHARP], 1,
             "nccl-collnet: NCCL runs CollNet with the protocol simple only, not 'll'")

finish()
