#!/usr/bin/env python3
"""Stragglers and faults (docs/TOPOLOGY.md, Stragglers and faults), through `fennel run` and
`fennel sweep`.

Every expected time is derived by hand in the comment above its check.

Usage: test_faults.py FENNEL SOURCE_ROOT. Prints TAP.
"""
import csv
import io
import os
import re
import statistics
import tempfile

from harness import check, expect_error, fennel, finish, run_json

DATA = "tests/data/topology"
RING = f"{DATA}/straggler-ring.yaml"
POSTAL = ["--network", "postal", "--set", "alpha=1us", "--set", "beta=1ns/B"]
SWITCH = ["--set", "topology.kind=switch", "--set", "topology.latency=500ns",
          "--set", "topology.bandwidth=10GB/s"]


def makespan(*args):
    out = run_json(*args)
    return out.get("makespan_ns", out)


# ---- stragglers on a ring ----
#
# The ring (tests/data/topology/straggler-ring.yaml): on each of 4 ranks a compute of 1 us,
# a put of 1000 B to the next rank, then a second compute after the first and the put that
# came in, and a second put. Postal, alpha 1 us, beta 1 ns/B: a put takes 1 + 1 = 2 us and
# holds its sender until it arrives.
#
# Nobody slow: computes 0-1 us, puts 1-3 us, second computes 3-4 us, puts 4-6 us: 6000 ns.
check("ring: 6000 ns without stragglers", makespan(RING, *POSTAL) == 6000, makespan(RING, *POSTAL))

# Rank 1 computes 3 times slower: its first compute 0-3 us, its put 3-5 us (rank 1 held until
# 5 us), its second compute 5-8 us (its own slot), its put 8-10 us. Rank 2's second compute
# waits for that first put (5-6 us) and its put ends at 8 us; ranks 3 and 0 are as before.
# 10000 ns.
SLOW1 = ["--set", "stragglers.ranks=1", "--set", "stragglers.compute=3"]
out = run_json(RING, *POSTAL, *SLOW1)
check("ring: rank 1 computing 3 times slower takes 10000 ns",
      out.get("makespan_ns") == 10000 and out.get("stragglers") == [1], out)

# Rank 1's NIC twice as slow: messages to and from it take 1 + 2 x 1 = 3 us. Puts 0->1 and
# 1->2 run 1-4 us; rank 1's second compute 4-5 us (its slot held by its put until 4 us), its
# put to 2 5-8 us; rank 0 is held by its put until 4 us, computes 4-5 us, its put to rank 1
# runs 5-8 us; rank 2 computes 4-5 us after rank 1's put and puts 5-7 us; rank 3 as before
# (3-4, 4-6). 8000 ns.
NIC1 = ["--set", "stragglers.ranks=1", "--set", "stragglers.nic=2"]
check("ring: rank 1's NIC twice as slow takes 8000 ns", makespan(RING, *POSTAL, *NIC1) == 8000,
      makespan(RING, *POSTAL, *NIC1))

# Factors per rank: rank 1 computing 3 times slower and rank 3 twice. Rank 3: compute 0-2,
# put 2-4 (to rank 0), second compute 4-6, put 6-8; rank 0's second compute waits for it
# (4-5), put 5-7; rank 1 as above ends at 10 us. 10000 ns, the slowest rank's chain.
check("ring: factors per listed rank",
      makespan(RING, *POSTAL, "--set", "stragglers.ranks=1 3",
               "--set", "stragglers.compute=3 2") == 10000)
# Rank 3 alone at 2: compute 0-2, put 2-4, compute 4-6, put 6-8; rank 0 computes 4-5 after
# it and puts 5-7. 8000 ns.
check("ring: rank 3 computing twice as slow takes 8000 ns",
      makespan(RING, *POSTAL, "--set", "stragglers.ranks=3", "--set",
               "stragglers.compute=2") == 8000)

# A fraction drawn by the seed: a quarter of 4 ranks is one rank, whichever it is the ring
# takes 10000 ns at a compute factor of 3 (it is symmetric); the same seed draws the same
# rank, and seeds 0..9 do not all draw the same one.
drawn = {}
for seed in range(10):
    out = run_json(RING, *POSTAL, "--set", "stragglers.fraction=0.25", "--set",
                   "stragglers.compute=3", "--seed", str(seed))
    drawn[seed] = out.get("stragglers")
    check(f"ring: a quarter of the ranks drawn by seed {seed}: one rank, 10000 ns",
          out.get("makespan_ns") == 10000 and len(out.get("stragglers", [])) == 1, out)
again = run_json(RING, *POSTAL, "--set", "stragglers.fraction=0.25", "--set",
                 "stragglers.compute=3", "--seed", "7")
check("ring: the same seed draws the same rank", again.get("stragglers") == drawn[7], again)
check("ring: seeds draw different ranks", len({str(v) for v in drawn.values()}) > 1, drawn)
# Half of the ranks: two of them.
out = run_json(RING, *POSTAL, "--set", "stragglers.fraction=0.5", "--set", "stragglers.compute=3")
check("ring: half of 4 ranks are two", len(out.get("stragglers", [])) == 2, out)

# The text report names the slow ranks.
code, text, _ = fennel("run", RING, *POSTAL, *SLOW1)
check("ring: the report names the slow ranks", "stragglers   1 rank: 1\n" in text, text)

# On a switch of 500 ns, 10 GB/s links the wire replaces postal's alpha and beta: a put of
# 1000 B takes 500 + 500 + 100 = 1100 ns, the ring 1000 + 1100 + 1000 + 1100 = 4200 ns. Rank
# 1's NIC twice as slow makes its node's links 5 GB/s: a put to or from it takes 1200 ns.
# Puts 0->1 and 1->2 arrive at 2200 ns; ranks 0 and 1 are held until then, compute until
# 3200 ns and put to ranks 1 and 2 until 4400 ns; rank 2 computes 2200-3200 and puts until
# 4300 ns. 4400 ns under every contention level (no link is shared at once).
for contention in ("none", "endpoint", "links", "fair"):
    args = [RING, "--network", "postal", *SWITCH, "--set", "contention=" + contention]
    check(f"switch, {contention}: the ring takes 4200 ns", makespan(*args) == 4200,
          makespan(*args))
    check(f"switch, {contention}: rank 1's slow NIC halves its links: 4400 ns",
          makespan(*args, *NIC1) == 4400, makespan(*args, *NIC1))

# LogGP (L 1 us, o 200 ns, g 50 ns, G 0.1 ns/B) without a topology: a put of 1000 B busies
# its sender o = 200 ns, arrives o + L = 1200 ns after it starts, and its receive takes
# o + (s-1)G = 299.9 ns. Computes 0-1000, puts arrive at 2200 and are received by 2499.9;
# second computes until 3499.9, puts arrive at 4699.9, received by 4999.8 ns. Rank 1's NIC
# twice as slow doubles G on messages to and from it: the put 0->1 is received by
# 2200 + 200 + 199.8 = 2599.8, rank 1 computes until 3599.8 and its put to rank 2 arrives at
# 4799.8, received by 5199.6 ns.
LOGGP = ["--network", "loggp", "--set", "L=1us", "--set", "o=200ns", "--set", "g=50ns",
         "--set", "G=0.1ns/B"]
check("loggp: the ring takes 4999.8 ns", makespan(RING, *LOGGP) == 4999.8, makespan(RING, *LOGGP))
check("loggp: rank 1's slow NIC doubles its G: 5199.6 ns",
      makespan(RING, *LOGGP, *NIC1) == 5199.6, makespan(RING, *LOGGP, *NIC1))

# Bad descriptions.
expect_error("stragglers: ranks without a factor",
             ["run", RING, *POSTAL, "--set", "stragglers.ranks=1"], 2,
             "--set: stragglers: give compute or nic (how many times slower)")
expect_error("stragglers: a factor of 0",
             ["run", RING, *POSTAL, "--set", "stragglers.ranks=1", "--set",
              "stragglers.compute=0"], 2,
             "--set stragglers.compute=0: stragglers.compute: '0': value is out of range (a "
             "factor above 0, e.g. 2 or 1.5)")
expect_error("stragglers: a rank beyond the program's",
             ["run", RING, *POSTAL, "--set", "stragglers.ranks=4", "--set",
              "stragglers.compute=2"], 1, "stragglers.ranks: rank 4, but the program has 4 ranks")
expect_error("stragglers: a factor list of another length",
             ["run", RING, *POSTAL, "--set", "stragglers.ranks=1 2", "--set",
              "stragglers.compute=2 3 4"], 2,
             "--set: stragglers.compute: 3 factors for 2 ranks (give one, or one per rank)")

# ---- faults ----
#
# A two-level fat tree of radix 4 (two nodes and two up-links per leaf, two spines), 100 ns
# and 10 GB/s links; ranks 0 and 1 (leaf 0) put 100000 B to ranks 2 and 3 (leaf 1)
# (tests/data/topology/fault-puts.yaml). Destination modulo sends 0->2 up leaf 0's up-link 0
# (to spine 0) and 1->3 up its up-link 1 (spine 1): node link, leaf up-link, spine down-link,
# node link, 400 ns of latency and 100000 B / 10 GB/s = 10000 ns: 10400 ns.
PUTS = f"{DATA}/fault-puts.yaml"
TREE = ["--network", "postal", "--set", "topology.kind=fat-tree", "--set", "topology.levels=2",
        "--set", "topology.radix=4", "--set", "topology.latency=100ns",
        "--set", "topology.bandwidth=10GB/s"]
LEVELS = ("none", "endpoint", "links", "fair")


def tree(contention, *faults):
    return [PUTS, *TREE, "--set", "contention=" + contention,
            *(x for f in faults for x in ("--set", f))]


for c in LEVELS:
    check(f"fat tree, {c}: 10400 ns without faults", makespan(*tree(c)) == 10400,
          makespan(*tree(c)))

# A dead link with a detour: leaf 0's up-link to spine 0 down from the start. 0->2 takes the
# next equal-cost route, up-link 1, which 1->3 takes too. Under `links` the two heads reach it
# at 100 ns and 0->2 (sent first) goes first: 1->3 starts on it 10000 ns later and arrives at
# 20400 ns; under `fair` both cross it at half the rate: 400 + 2 x 10000 = 20400 ns. Under
# `none` and `endpoint` the up-link is not shared: 10400 ns.
DOWN = "faults.list=leaf0>spine0"
for c, want in zip(LEVELS, (10400, 10400, 20400, 20400)):
    out = run_json(*tree(c, DOWN))
    check(f"fat tree, {c}: leaf0>spine0 down, 0->2 goes round by spine 1: {want} ns",
          out.get("makespan_ns") == want and [f["name"] for f in out.get("faults", [])] ==
          ["leaf0->spine0 (link 8)"] and out["faults"][0]["met"], out)
# The fault that hurt most: without it, 10400 ns.
code, text, _ = fennel("run", *tree("links", DOWN))
check("fat tree: the report names the worst fault",
      "worst fault  leaf0->spine0 (link 8) down from 0 ns: the makespan is 10400 ns without it "
      "(10000 ns shorter)\n" in text, text)
code, text, _ = fennel("run", *tree("none", DOWN))
check("fat tree, none: a detour that costs nothing is no worst fault",
      "worst fault  none: the makespan is no shorter without the one fault messages met\n" in
      text, text)

# No detour: both up-links of leaf 0 down; or node 2's NIC (its links to and from leaf 1).
for c in LEVELS:
    expect_error(f"fat tree, {c}: both up-links of leaf 0 down cut 0->2 off",
                 ["run", *tree(c, "faults.list=leaf0>spine0; leaf0>spine1")], 1,
                 f"{PUTS}:10:5: the program cannot finish: put 'p0' from rank 0 to rank 2 "
                 "(100000 B) was cut off at 0 ns: every route from node0 to node2 crosses a "
                 "link that is down (link 8, leaf0->spine0, down from 0 ns)")
    expect_error(f"fat tree, {c}: node 2's NIC down cuts 0->2 off",
                 ["run", *tree(c, "faults.list=node2")], 1,
                 f"{PUTS}:10:5: the program cannot finish: put 'p0' from rank 0 to rank 2 "
                 "(100000 B) was cut off at 0 ns: every route from node0 to node2 crosses a "
                 "link that is down (link 5, leaf1->node2, down from 0 ns)")

# A torus has one route between two nodes: a ring of 4, 0 -> 1 goes router0 -> router1.
code, _, err = fennel("run", f"{DATA}/ring-shift.yaml", "--network", "postal",
                      "--set", "topology.kind=torus", "--set", "topology.dims=4",
                      "--set", "contention=links", "--set", "faults.list=router1>router2")
# (ranks i put to i + 2: 0 -> 2 goes router0, router1, router2 and is the first to meet it)
check("torus: a dead link without a detour cuts the message off",
      code == 1 and re.search(r"put 'p0' from rank 0 to rank 2 \(100000 B\) was cut off at "
                              r"0 ns: every route from node0 to node2 crosses a link that is "
                              r"down \(link \d+, router1->router2, down from 0 ns\)\n$", err),
      err)

# Degraded: leaf 0's up-link 0 keeps half its bandwidth: 0->2 crosses it at 5 GB/s,
# 400 + 20000 = 20400 ns under every level.
for c in LEVELS:
    check(f"fat tree, {c}: leaf0>spine0 at half its bandwidth: 20400 ns",
          makespan(*tree(c, "faults.list=leaf0>spine0 bandwidth 0.5")) == 20400)

# From a time on. Under `fair` 0->2's bytes flow from 400 ns (after its route's latency) at
# 10 B/ns; at 5000 ns 46000 B have gone and 54000 B are left, at 5 B/ns from then on:
# 5000 + 10800 = 15800 ns. Under `links` it starts on the link at 100 ns, before the fault,
# at the full rate: 10400 ns.
LATER = "faults.list=leaf0>spine0 bandwidth 0.5 from 5us"
check("fat tree, fair: half the bandwidth from 5 us: 15800 ns",
      makespan(*tree("fair", LATER)) == 15800, makespan(*tree("fair", LATER)))
check("fat tree, links: half the bandwidth from 5 us, after the message took it: 10400 ns",
      makespan(*tree("links", LATER)) == 10400, makespan(*tree("links", LATER)))
# Down from 5 us: under `fair` the flow crossing it is cut off then; under `links` the
# message crossed it at 100 ns.
expect_error("fat tree, fair: a link that goes down under a flow cuts it off",
             ["run", *tree("fair", "faults.list=leaf0>spine0 from 5us")], 1,
             f"{PUTS}:10:5: the program cannot finish: put 'p0' from rank 0 to rank 2 "
             "(100000 B) was cut off at 5000 ns: link 8 (leaf0->spine0) on its route is down "
             "from 5000 ns")
check("fat tree, links: a link that goes down after the message crossed it: 10400 ns",
      makespan(*tree("links", "faults.list=leaf0>spine0 from 5us")) == 10400)


# Faults drawn by the seed: the program's 4 nodes need two leaves, whose 4 up-links and the
# spines' 4 down-links to them are the links between switches; a quarter of them is 2. Which way each message goes follows from the drawn links: 0->2 by spine 0 unless
# leaf0->spine0 or spine0->leaf1 is down, then by spine 1 unless leaf0->spine1 or
# spine1->leaf1 is, else it is cut off; 1->3 by spine 1 first, then spine 0. Under `fair`
# two messages by one spine share leaf 0's up-link: 20400 ns; apart: 10400 ns.
def expected(down):
    def way(first, second):
        for spine in (first, second):
            if f"leaf0->spine{spine}" not in down and f"spine{spine}->leaf1" not in down:
                return spine
        return None
    a, b = way(0, 1), way(1, 0)
    if a is None or b is None:
        return None
    return 20400 if a == b else 10400


# The drawn links do not depend on what the faults do to them: the same seed with
# `bandwidth 0.5` lists them in a run that finishes.
def drawn(seed, key="faults.links=0.25"):
    out = run_json(*tree("none", key, "faults.bandwidth=0.5"), "--seed", str(seed))
    return [f["name"] for f in out.get("faults", [])]


finished, cut = [], []
for seed in range(20):
    down = {name.split()[0] for name in drawn(seed)}
    out = run_json(*tree("fair", "faults.links=0.25"), "--seed", str(seed))
    if "error" in out:
        check(f"seed {seed}: {sorted(down)} down: cut off, no route is left",
              len(down) == 2 and expected(down) is None and "cut off" in out["error"],
              (down, out))
        cut.append(seed)
        continue
    check(f"seed {seed}: {sorted(down)} down: the makespan follows",
          len(down) == 2 and out["makespan_ns"] == expected(down) and
          {f["name"].split()[0] for f in out["faults"]} == down, out)
    finished.append(out["makespan_ns"])
check("the same seed draws the same links, other seeds others",
      drawn(5) == drawn(5) and len({str(drawn(seed)) for seed in range(5)}) > 1)
# run --repeat: the distribution of the seeds that finished, the others counted apart. Seed
# 0 finishes (it gives the summary).
out = run_json(*tree("fair", "faults.links=0.25"), "--repeat", "20")
stats = out.get("makespan_stats_ns", {})
check("run --repeat: the cut-off seeds are left out of the distribution",
      0 not in cut and out.get("cut_off_seeds") == cut and
      stats.get("median") == statistics.median(finished) and stats.get("max") == max(finished),
      (out, cut, finished))
# sweep --repeat: a row per seed, the cut-off ones with their reason in `error`.
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "s.csv")
    code, _, err = fennel("sweep", PUTS, *TREE, "--set", "contention=fair",
                          "--set", "faults.links=0.25", "--repeat", "20", "-o", path)
    rows = list(csv.DictReader(open(path))) if code == 0 else []
check("sweep --repeat: one row per seed, cut off ones with their error",
      [int(r["seed"]) for r in rows if r["error"]] == cut and
      [float(r["makespan_ns"]) for r in rows if not r["error"]] == finished and
      all(r["faults"] == "links=0.25 nics=0 from=0ns bandwidth=0" for r in rows), (err, rows[:3]))

# A quarter of the 4 nodes' NICs: one node. Both messages involve every node: down, the
# node's message is cut off; at half the bandwidth, that message crosses its NIC at 5 GB/s,
# 400 + 20000 = 20400 ns.
for seed in range(4):
    nics = drawn(seed, "faults.nics=0.25")
    node = re.match(r"node(\d)'s NIC$", nics[0]) if len(nics) == 1 else None
    check(f"faults.nics, seed {seed}: one NIC of four", node, nics)
    if not node:
        continue
    n = int(node.group(1))
    put = {0: "p0", 2: "p0", 1: "p1", 3: "p1"}[n]
    code, _, err = fennel("run", *tree("links", "faults.nics=0.25"), "--seed", str(seed))
    check(f"faults.nics, seed {seed}: node {n}'s NIC down cuts {put} off",
          code == 1 and f"put '{put}'" in err and "was cut off at 0 ns" in err, err)
    check(f"faults.nics, seed {seed}: node {n}'s NIC at half its bandwidth: 20400 ns",
          makespan(*tree("links", "faults.nics=0.25", "faults.bandwidth=0.5"), "--seed",
                   str(seed)) == 20400)

# Bad descriptions.
expect_error("faults: a link the topology does not have",
             ["run", *tree("links", "faults.list=leaf0>spine9")], 1,
             "faults.list: no link leaf0>spine9 in this topology (vertex names as --links "
             "gives them)")
expect_error("faults: a node the topology does not have",
             ["run", *tree("links", "faults.list=node9")], 1,
             "faults.list: no node9 in this topology (nodes 0 to 3)")
expect_error("faults: a bad entry",
             ["run", *tree("links", "faults.list=leaf0>spine0 from")], 2,
             "--set faults.list=leaf0>spine0 from: faults.list: 'leaf0>spine0 from': from: "
             "expected a value after it")
expect_error("faults: a bandwidth above 1",
             ["run", *tree("links", "faults.bandwidth=2")], 2,
             "--set faults.bandwidth=2: faults.bandwidth: value is out of range (the fraction "
             "of its bandwidth a failed link keeps, 0 (down) to 1)")
expect_error("faults: no topology",
             ["run", PUTS, "--network", "postal", "--set", "faults.links=0.1"], 2,
             "--set: faults: links and NICs fail on a topology (a topology section, or "
             "topology.kind=...)")

finish()
