#!/usr/bin/env python3
"""Topologies and contention (docs/TOPOLOGY.md), through `fennel run`.

- The single-message invariant: a message alone on the network takes exactly the time it
  took without a topology when the topology is a switch whose route (two links of 500 ns,
  10 GB/s) has the old model's latency (1 us) and time per byte (0.1 ns/B): every task's
  times are the same, for every network model and contention level (LogGP: when its NIC is
  no faster than the links, G >= 0.1 ns/B; LogP, whose NIC takes no time per byte, is timed
  by hand).
- Closed forms derived by hand: an incast under `endpoint` and `links`, a shift permutation
  on a fat tree with and without oversubscription.

Usage: test_topology.py FENNEL SOURCE_ROOT. Prints TAP.
"""
import csv
import io
import json
import os
import re
import subprocess
import tempfile

from harness import ROOT, check, fennel, finish, run_json, tasks

DATA = "tests/data/topology"
SWITCH = ["--set", "topology.kind=switch", "--set", "topology.latency=500ns",
          "--set", "topology.bandwidth=10GB/s"]
MODELS = {
    "postal": ["--network", "postal", "--set", "alpha=1us", "--set", "beta=0.1ns/B"],
    "lbp": ["--network", "lbp", "--set", "alpha_p=1us", "--set", "alpha_r=200ns",
            "--set", "beta=0.1ns/B"],
    "logp": ["--network", "logp", "--set", "L=1us", "--set", "o=200ns", "--set", "g=300ns"],
    "loggp": ["--network", "loggp", "--set", "L=1us", "--set", "o=200ns", "--set", "g=50ns",
              "--set", "G=0.1ns/B", "--set", "O=0.01ns/B"],
}
PROGRAMS = [f"{DATA}/put-get.yaml", "programs/examples/pingpong.yaml"]


for program in PROGRAMS:
    for name, model in MODELS.items():
        if name == "logp":
            continue
        before = tasks(program, *model)
        for contention in ("none", "endpoint", "links", "fair"):
            after = tasks(program, *model, *SWITCH, "--set", "contention=" + contention)
            check(f"{os.path.basename(program)}, {name}, {contention}: one message at a time "
                  "on a switch takes the time it took without a topology",
                  before == after and before.count("\n") > 2, f"{before}\n---\n{after}")


def makespan(*args):
    out = run_json(*args)
    return out.get("makespan_ns", out)


def columns(csv_text, *names):
    if not csv_text.startswith("program"):
        return csv_text
    return [tuple(r[n] for n in names) for r in csv.DictReader(io.StringIO(csv_text))]


# LogP (L 1 us, o 200 ns, g 300 ns, no time per byte) on the same switch: a message cannot
# cross a link faster than the link, so its receive ends no earlier than its last byte's
# arrival allows. The put: sent at 0, its head leaves after o (200 ns) and reaches rank 1
# after the route's 1000 ns, at 1200 ns; the NIC takes it then and would be done with its
# bytes at once (s G = 0), but its tail comes 1000 B / 10 GB/s = 100 ns after its head:
# the receive (o = 200 ns) ends 100 ns late, at 1200 + 200 + 100 = 1500 ns (without a
# topology 1400). The get: its 8 B request reaches rank 3's NIC at 1200 ns, its tail 0.8 ns
# later; the answer leaves at 1200.8 ns, its head is back at 2200.8 ns, and its receive
# ends 100 ns late: 2200.8 + 200 + 100 = 2500.8 ns. Every contention level alike (the two
# messages share no link).
for contention in ("none", "endpoint", "links", "fair"):
    got = columns(tasks(f"{DATA}/put-get.yaml", *MODELS["logp"], *SWITCH,
                        "--set", "contention=" + contention), "id", "arrival_ns", "completion_ns")
    check(f"logp, {contention}: a message's bytes take the link's time (1500, 2500.8 ns)",
          got == [("s0", "", "0"), ("put", "1200", "1500"), ("s2", "", "0"),
                  ("get", "1200", "2500.8")], got)


# Incast of 7 puts of 1000 B into node 0 on a switch of 500 ns, 10 GB/s links (100 ns per
# 1000 B): the first byte arrives after the two links' 1000 ns; under `endpoint` and
# `links` node 0's link then serves the 7 messages one after another, so the last one ends
# 7 x 100 ns later, at 1700 ns; without contention each takes 1000 + 100 = 1100 ns.
# Under `fair` the 7 messages share node 0's link, each at a seventh of its bandwidth, and all
# end together at 1000 + 7 x 100 = 1700 ns.
for contention, expect in (("none", 1100), ("endpoint", 1700), ("links", 1700), ("fair", 1700)):
    got = makespan(f"{DATA}/incast.yaml", "--model", f"{DATA}/switch.model.yaml",
                   "--set", "contention=" + contention)
    check(f"incast of 7 under {contention}: {expect} ns", got == expect, got)

# Shift permutation on a radix-8 fat tree, 100 ns and 10 GB/s links (100000 B take 10 us):
# every route is node link, leaf up-link (dst mod u), spine down-link, node link, so 400 ns
# of latency. With oversubscription 1 (u = 4) the four messages of a leaf take four
# different up-links: 400 + 10000 = 10400 ns. With oversubscription 2 (u = 2) two messages
# share each up-link under `links`: the second starts on it when the first is done, 10 us
# later, and ends at 400 + 2 x 10000 = 20400 ns. Only the node links are shared under
# `endpoint`, and nothing without contention: 10400 ns with either tree.
# Under `fair` two messages share each up-link at half its bandwidth for the whole transfer:
# 400 + 20000 = 20400 ns, r = 2 times the bandwidth term of r = 1.
for over, contention, expect in (("1", "links", 10400), ("2", "links", 20400),
                                 ("1", "fair", 10400), ("2", "fair", 20400),
                                 ("1", "endpoint", 10400), ("2", "endpoint", 10400),
                                 ("2", "none", 10400)):
    got = makespan(f"{DATA}/shift.yaml", "--model", f"{DATA}/fat-tree.model.yaml",
                   "--set", "topology.oversubscription=" + over, "--set",
                   "contention=" + contention)
    check(f"shift permutation, oversubscription {over}, {contention}: {expect} ns",
          got == expect, got)

# LogGP incasts: the receiving NIC times the bytes, and a flow's sharing must not be added to
# it a second time. k ranks put s bytes to rank 0 at time 0 on a switch of 500 ns, 10 GB/s
# links, LogGP o 1 us, G 0.1 ns/B (g = O = 0): each head reaches rank 0 at o + 1000 = 2000 ns;
# rank 0's slot takes the messages one after another, each for o + (s - 1) G. 8 x 1 MiB:
# (s - 1) G = 104857.5 ns, so the last receive ends at 2000 + 8 x 105857.5 = 848860 ns. The
# links never make a receive late: under `links` message j's tail arrives at 2000 + j x
# 104857.6, when its NIC (taking it at 2000 + (j - 1) x 105857.5) would have timed its bytes
# (104857.6 ns) no earlier; under `fair` all eight flows end together at 2000 + 8 x 104857.6
# = 840860.8 ns, which makes the earlier receives end late but not the last one, whose NIC
# is done with its bytes at 2000 + 7 x 105857.5 + 104857.6 = 847860.1 ns. 2 x 1 MB: (s - 1)
# G = 99999.9 ns, 2000 + 2 x 100999.9 = 203999.8 ns likewise.
LOGGP = ["--network", "loggp", "--set", "L=1us", "--set", "o=1us", "--set", "G=0.1ns/B",
         *SWITCH]
with tempfile.TemporaryDirectory() as tmp:
    for k, size, expect in ((8, 1048576, 848860), (2, 1000000, 203999.8)):
        prog = os.path.join(tmp, f"in{k}.yaml")
        with open(prog, "w") as f:
            f.write(f"fennel: 1\nranks: {k + 1}\ntasks:\n" + "".join(
                f"  - {{id: s{r}, rank: {r}, type: start}}\n"
                f"  - {{id: p{r}, rank: {r}, type: put, to: 0, size: {size}, after: [s{r}]}}\n"
                for r in range(1, k + 1)))
        for contention in ("none", "endpoint", "links", "fair"):
            got = makespan(prog, *LOGGP, "--set", "contention=" + contention)
            check(f"loggp incast {k} -> 1 of {size} B, {contention}: {expect} ns (the bytes "
                  "counted once)", got == expect, got)

# --tasks gives a LogGP send's arrival as its message's, also when the message is reported
# after the send completed (an eager send on shared links): L replaced by a switch of two
# 250 ns links (100 Gbit/s, so 100 B take 8 ns, within the NIC's 10 ns), o 400 ns, G 0.1
# ns/B: the send ends at o = 400 ns, its head arrives at 400 + 500 = 900 ns, and the recv
# completes after o + (s - 1) G = 409.9 ns, at 1309.9 ns.
with tempfile.TemporaryDirectory() as tmp:
    prog = os.path.join(tmp, "sr.yaml")
    with open(prog, "w") as f:
        f.write("fennel: 1\nranks: 2\ntasks:\n  - {id: s0, rank: 0, type: start}\n"
                "  - {id: s1, rank: 1, type: start}\n"
                "  - {id: snd, rank: 0, type: send, to: 1, size: 100, after: [s0]}\n"
                "  - {id: rcv, rank: 1, type: recv, from: 0, size: 100, after: [s1]}\n")
    for contention in ("none", "endpoint", "links", "fair"):
        got = columns(tasks(prog, "--network", "loggp", "--set", "L=500ns", "--set", "o=400ns",
                            "--set", "G=0.1ns/B", "--set", "topology.kind=switch", "--set",
                            "topology.latency=250ns", "--set", "contention=" + contention),
                      "id", "end_ns", "arrival_ns", "completion_ns")
        check(f"--tasks, loggp send, {contention}: arrival 900 ns (not its end, 400 ns)",
              got[2:] == [("snd", "400", "900", "400"), ("rcv", "0", "1309.9", "1309.9")], got)

# A link slower than the NIC: 1 MB over 1 GB/s links (1 ms), LogGP as above (the NIC would
# take 100 us). The head reaches rank 1 at 2000 ns, the tail 1 ms later, at 1002000 ns; the
# receive (o + (s - 1) G = 100999.9 ns from 2000) ends late by 1002000 - (2000 + 100000):
# at 1002999.9 ns, every contention level. The sender's node link is busy 1 ms: 99.7 % of the
# makespan, never more than 100 %.
with tempfile.TemporaryDirectory() as tmp:
    prog, links = os.path.join(tmp, "one.yaml"), os.path.join(tmp, "l.csv")
    with open(prog, "w") as f:
        f.write("fennel: 1\nranks: 2\ntasks:\n  - {id: s, rank: 0, type: start}\n"
                "  - {id: p, rank: 0, type: put, to: 1, size: 1000000, after: [s]}\n")
    slow = [*LOGGP, "--set", "topology.bandwidth=1GB/s"]
    for contention in ("none", "endpoint", "links", "fair"):
        got = makespan(prog, *slow, "--set", "contention=" + contention)
        check(f"loggp, 1 MB over a 1 GB/s link, {contention}: 1002999.9 ns", got == 1002999.9,
              got)
    for contention in ("links", "fair"):
        code, out, err = fennel("run", prog, *slow, "--set", "contention=" + contention,
                                "--links", links)
        rows = list(csv.DictReader(open(links))) if code == 0 else []
        worst = max((float(r["utilisation"]) for r in rows), default=-1)
        check(f"loggp, 1 MB over a 1 GB/s link, {contention}: utilisation at most 100 % "
              "(0.997009)", worst == 0.997009, err + str(rows))

# A run that takes no time (a put of 0 bytes on a switch of 0 ns links under postal with
# alpha 0): busy / makespan is 0 / 0, written as 0 (docs/TOPOLOGY.md): the two links the
# put crosses, node0->switch and switch->node1, each carried one message of 0 bytes and
# were busy for no part of the run; nothing is nan.
with tempfile.TemporaryDirectory() as tmp:
    prog, model, links = (os.path.join(tmp, n) for n in ("z.yaml", "z.model.yaml", "l.csv"))
    with open(prog, "w") as f:
        f.write("fennel: 1\nranks: 2\ntasks:\n  - {id: s, rank: 0, type: start}\n"
                "  - {id: p, rank: 0, type: put, to: 1, size: 0, after: [s]}\n")
    with open(model, "w") as f:
        f.write("fennel: 1\nnetwork: {model: postal}\n"
                "topology: {kind: switch, latency: 0ns, bandwidth: 10GB/s}\n")
    for contention in ("links", "fair"):
        code, out, err = fennel("run", prog, "--model", model, "--set",
                                "contention=" + contention, "--links", links)
        rows = list(csv.DictReader(open(links))) if code == 0 else []
        used = {(r["from"], r["to"]): r["utilisation"] for r in rows if r["messages"] == "1"}
        check(f"{contention}: a run of 0 ns writes utilisation 0 for the links it used",
              "makespan     0 ns\n" in out and len(rows) == 4 and
              used == {("node0", "switch"): "0.000000", ("switch", "node1"): "0.000000"} and
              all(r["utilisation"] == "0.000000" for r in rows), out + err + str(rows))

# Two messages sharing one link under `fair` each get half of it: ranks 1 and 2 put 1000 B
# to rank 0 (the first two puts of the incast): both take 1000 + 2 x 100 = 1200 ns, and the
# link shows a lowest share of 5 GB/s = 40 Gbit/s.
with tempfile.TemporaryDirectory() as tmp:
    two = os.path.join(tmp, "two.yaml")
    with open(os.path.join(ROOT, DATA, "incast.yaml")) as f:
        lines = [line for line in f if not any(f"p{r}" in line or f"s{r}" in line
                                                for r in range(3, 8))]
    with open(two, "w") as f:
        f.write("".join(lines).replace("ranks: 8", "ranks: 3"))
    links = os.path.join(tmp, "l.csv")
    code, out, err = fennel("run", two, "--model", f"{DATA}/switch.model.yaml", "--set",
                            "contention=fair", "--tasks", os.path.join(tmp, "t.csv"),
                            "--links", links)
    rows = list(csv.DictReader(open(os.path.join(tmp, "t.csv")))) if code == 0 else []
    ends = sorted(r["end_ns"] for r in rows if r["type"] == "put")
    check("fair: two messages on one link end together at 1200 ns", ends == ["1200", "1200"],
          out + err + str(rows))
    shares = {r["from"] + ">" + r["to"]: r["lowest_share_gbit_s"]
              for r in csv.DictReader(open(links))} if code == 0 else {}
    check("fair: --links shows node 0's link shared at 40 Gbit/s",
          shares.get("switch>node0") == "40" and shares.get("node1>switch") == "40", shares)

# The shared rates over time (docs/TIMELINES.md, docs/TOPOLOGY.md): ranks 1, 2 and 3 put
# 3000, 2000 and 1000 B to rank 0 on a switch of 500 ns, 10 GB/s links (10 B/ns alone). The
# three heads reach node 0's down-link at 1000 ns; the three flows share it at 10/3 B/ns
# until the 1000 B one is through at 1000 + 1000 / (10/3) = 1300 ns, when the others have
# 2000 and 1000 B left; then two at 5 B/ns until 1300 + 1000 / 5 = 1500 ns; then the last
# 1000 B alone at 10 B/ns until 1600 ns. The trace and the timeline give each message's
# pieces (from, until, share of its rate alone).
with tempfile.TemporaryDirectory() as tmp:
    prog = os.path.join(tmp, "three.yaml")
    with open(prog, "w") as f:
        f.write("fennel: 1\nranks: 4\ntasks:\n" + "".join(
            f"  - {{id: s{r}, rank: {r}, type: start}}\n"
            f"  - {{id: p{r}, rank: {r}, type: put, to: 0, size: {4000 - 1000 * r}, "
            f"after: [s{r}]}}\n" for r in (1, 2, 3)))
    trace, svg = os.path.join(tmp, "t.json"), os.path.join(tmp, "t.svg")
    code, out, err = fennel("run", prog, "--model", f"{DATA}/switch.model.yaml", "--set",
                            "contention=fair", "--trace", trace, "--timeline", svg)
    events = json.load(open(trace))["traceEvents"] if code == 0 else []
    pieces = {e["args"]["from"]: [(p["from_ns"], p["until_ns"], p["share"])
                                  for p in e["args"].get("flow", [])]
              for e in events if e.get("cat") == "message"}
    third = 1 / 3
    want = {1: [(1000, 1300, third), (1300, 1500, 0.5), (1500, 1600, 1)],
            2: [(1000, 1300, third), (1300, 1500, 0.5)],
            3: [(1000, 1300, third)]}
    check("fair: the trace gives each flow's pieces, 1/3, 1/2 and the full rate",
          sorted(pieces) == [1, 2, 3] and all(
              len(pieces[r]) == len(want[r]) and all(
                  a[0] == b[0] and a[1] == b[1] and abs(a[2] - b[2]) < 1e-8
                  for a, b in zip(pieces[r], want[r])) for r in want),
          out + err + str(pieces))
    text = open(svg).read() if code == 0 else ""
    check("fair: the timeline draws the pieces, not a wait for links",
          'data-flow="1000 1300 0.333333, 1300 1500 0.5, 1500 1600 1"' in text and
          'data-flow="1000 1300 0.333333"' in text and "bytes flowing" in text and
          "message waiting for links" not in text, text[:300])
    code, out, err = fennel("run", prog, "--model", f"{DATA}/switch.model.yaml", "--set",
                            "contention=fair", "--trace", trace, "--set", "contention=links")
    events = json.load(open(trace))["traceEvents"] if code == 0 else []
    check("links: no flow pieces in the trace",
          code == 0 and not any("flow" in e.get("args", {}) for e in events), out + err)

# --links: with oversubscription 2, leaf 0's up-link 0 carries the messages to nodes 4 and
# 6 (dst mod 2 = 0): 2 x 100000 B, busy 2 x 10000 ns, the second waited 10000 ns; the four
# shared up-links make 4 x 10000 ns of waiting in total. Each node link carries one message.
with tempfile.TemporaryDirectory() as tmp:
    links = os.path.join(tmp, "links.csv")
    code, out, err = fennel("run", f"{DATA}/shift.yaml", "--model", f"{DATA}/fat-tree.model.yaml",
                            "--set", "topology.oversubscription=2", "--links", links)
    rows = list(csv.DictReader(open(links))) if code == 0 else []
    up = [r for r in rows if r["from"] == "leaf0" and r["to"] == "spine0"]
    check("--links: one row per directed link (16 node links, 4 up and 4 down-links)",
          len(rows) == 24, rows)
    check("--links: leaf0->spine0 carried 2 messages, 200000 B, busy 20000 ns, waited 10000 ns",
          up and up[0]["messages"] == "2" and up[0]["bytes"] == "200000" and
          up[0]["busy_ns"] == "20000" and up[0]["wait_ns"] == "10000" and
          up[0]["level"] == "level1", up)
    check("summary: the busiest link and the time waited for links",
          "links        busiest leaf0->spine0 (level1), busy 20000 ns" in out and
          "link wait    40000 ns in total" in out, out + err)


def fat_tree_link(number, N, k, r, levels):
    """A fat tree's link `number` as (from, to, level), by the formulas of docs/TOPOLOGY.md
    (Link numbers), written out here independently of fennel's code."""
    d, u, c = k // 2, k // (2 * r), k // 2
    L = -(-N // d)
    P = -(-L // c)
    if number < 2 * N:
        i = number // 2
        leaf = f"leaf{i // d}"
        return (f"node{i}", leaf, "node") if number % 2 == 0 else (leaf, f"node{i}", "node")
    k1 = number - 2 * N
    if k1 < 2 * L * u:
        down, k1 = k1 >= L * u, k1 % (L * u)
        l, i = k1 // u, k1 % u
        upper = f"spine{i}" if levels == 2 else f"agg{(l // c) * u + i}"
        ends = (upper, f"leaf{l}") if down else (f"leaf{l}", upper)
        return (*ends, "level1")
    k2 = number - 2 * N - 2 * L * u
    down, k2 = k2 >= P * u * c, k2 % (P * u * c)
    a, j = k2 // c, k2 % c
    core = f"core{(a % u) * c + j}"
    ends = (core, f"agg{a}") if down else (f"agg{a}", core)
    return (*ends, "level2")


# --links names every link by its number as the docs' Link numbers say: a two-level tree of
# radix 8 with oversubscription 2 (8 nodes, 2 leaves, 2 up-links each) and a three-level one
# of radix 8 with 24 nodes (6 leaves, the second pod of two leaves only), every row checked.
for levels, ranks, r in ((2, 8, 2), (3, 24, 2), (3, 16, 1)):
    with tempfile.TemporaryDirectory() as tmp:
        links = os.path.join(tmp, "links.csv")
        code, out, err = fennel("run", "--generate", "allreduce-rd", "--ranks", str(ranks),
                                "--size", "1000", "--model", f"{DATA}/fat-tree.model.yaml",
                                "--set", f"topology.levels={levels}", "--set",
                                f"topology.oversubscription={r}", "--links", links)
        rows = list(csv.DictReader(open(links))) if code == 0 else []
        wrong = [row for n, row in enumerate(rows)
                 if row["link"] != str(n) or
                 (row["from"], row["to"], row["level"]) != fat_tree_link(n, ranks, 8, r, levels)]
        d, u = 4, 4 // r
        leaves = -(-ranks // d)
        pods = -(-leaves // 4)
        expected = 2 * ranks + 2 * leaves * u + (2 * pods * u * 4 if levels == 3 else 0)
        check(f"--links: the {levels}-level fat tree of {ranks} nodes, oversubscription {r}, "
              f"numbers its {expected} links as documented",
              code == 0 and len(rows) == expected and not wrong, err + str(wrong[:3]))

# A ring allreduce on a torus ring of p = 8 nodes, 100 ns and 10 GB/s links (node links 0 ns),
# n = 8 MB: each of the 2(p - 1) steps sends n/p = 1 MB (100 us) to the next node, over one
# torus link that no other message uses in that step, so every level gives
# 2(p - 1)(100 ns + n/(pB)) = 14 x 100100 = 1401400 ns: the bandwidth term 2(p - 1)/p n/B
# = 1400000 ns plus 14 link latencies. The pairwise-exchange allreduce sends step i to rank
# + i, over min(i, 8 - i) links shared with other messages: slower under links and fair.
TORUS = ["--network", "postal", "--set", "topology.kind=torus", "--set", "topology.dims=8",
         "--set", "topology.latency=100ns", "--set", "topology.bandwidth=10GB/s"]
for contention in ("none", "endpoint", "links", "fair"):
    got = makespan("--generate", "allreduce-ring", "--ranks", "8", "--size", "8000000", *TORUS,
                   "--set", "contention=" + contention)
    check(f"ring allreduce on a torus ring of 8, {contention}: 1401400 ns", got == 1401400, got)
for contention in ("links", "fair"):
    got = makespan("--generate", "allreduce-pairwise", "--ranks", "8", "--size", "8000000",
                   *TORUS, "--set", "contention=" + contention)
    check(f"pairwise allreduce on a torus ring of 8, {contention}: slower than the ring",
          isinstance(got, (int, float)) and got > 1401400, got)

# A dims topology from its file form: 8 nodes on a switch (450 GB/s, 500 ns), 16 groups on a
# ring (50 GB/s, 2 us); node links without latency at the first dimension's bandwidth. Puts
# of 4500 B one after another from rank 0: to rank 1, up and down the switch, 2 x 500 +
# 4500 / 450 GB/s = 1010 ns; to rank 8, one ring step, 2000 + 4500 / 50 GB/s = 2090 ns; to
# rank 9, the switch then the ring, 1000 + 2000 + 90 = 3090 ns.
rows = tasks(f"{DATA}/pod-puts.yaml", "--model", f"{DATA}/gpu-pod.model.yaml")
spans = [(r["id"], float(r["end_ns"]) - float(r["start_ns"]))
         for r in csv.DictReader(io.StringIO(rows))] if rows.startswith("program") else rows
check("dims topology: 1010, 2090 and 3090 ns across one, the other and both dimensions",
      spans[1:] == [("a", 1010), ("b", 2090), ("c", 3090)], spans)

# Rank orders: 8 ranks, 2 per node, on a torus ring of 4 nodes (500 ns, 100 Gbit/s links: a
# 1 MB block takes 80 us), ring allreduce of 8 MB; messages within a node are free here
# (intra same, postal 0). Linear: ranks 2i and 2i + 1 share node i, so only the messages
# r -> r + 1 with r odd cross, one per node and step over one torus link: 14 steps of
# 80000 + 500 = 1127000 ns. The list [3, 2, 1, 0, 7, 6, 5, 4] mirrors the pairs (ranks 0, 1
# on node 1, 2, 3 on node 0, ...): still one crossing per node and step, one hop, the same
# time. Round-robin puts neighbours on different nodes: every message crosses, two per node
# link and step: slower.
ORDER = ["--generate", "allreduce-ring", "--ranks", "8", "--size", "8000000", "--network",
         "postal", "--set", "ranks_per_node=2", "--set", "intra=same", "--set",
         "topology.kind=torus", "--set", "topology.dims=4", "--set", "contention=links"]
linear = makespan(*ORDER)
mirrored = makespan(*ORDER, "--set", "order=3,2,1,0,7,6,5,4")
spread = makespan(*ORDER, "--set", "order=round-robin")
check("rank order linear: 1127000 ns", linear == 1127000, linear)
check("rank order given as a list that mirrors the pairs: 1127000 ns", mirrored == 1127000,
      mirrored)
check("rank order round-robin: every message crosses, slower", isinstance(spread, (int, float))
      and spread > linear, spread)
code, out, err = fennel("run", *ORDER, "--set", "order=0,1,2")
check("a rank order list of the wrong length is refused",
      code == 1 and err == "fennel: order: the list has 3 positions, the program 8 ranks\n", err)
code, out, err = fennel("run", "--generate", "allreduce-ring", "--ranks", "8", "--network",
                        "postal", "--set", "order=0,1,2")
check("the same without a topology", code == 1 and
      err == "fennel: order: the list has 3 positions, the program 8 ranks\n", err)
code, out, err = fennel("run", *ORDER, "--set", "order=0,0,1")
check("a rank order that is not a permutation is refused", code == 2 and
      "order: expected linear, round-robin or a permutation of 0..n-1" in err, err)

# Sweeps take topology keys like any other.
with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "s.csv")
    code, _, err = fennel("sweep", "--generate", "allreduce-ring", "--ranks", "8", "--size",
                          "8000000", "--network", "postal", "--set", "topology.kind=torus",
                          "--set", "topology.dims=8", "--set", "contention=none,links",
                          "--set", "topology.latency=100ns,200ns", "-o", out)
    rows = list(csv.DictReader(open(out))) if code == 0 else []
    # At the default 100 Gbit/s a block of 1 MB takes 80 us: 14 steps of 80 us plus 14
    # latencies of 100 or 200 ns, whatever the contention.
    spans = sorted(float(r["makespan_ns"]) for r in rows)
    check("sweep over contention and topology.latency: 4 rows with the ring's closed form",
          spans == [1121400, 1121400, 1122800, 1122800], err + str(rows))

# Contention fair against SimGrid's max-min flow model on twelve patterns
# (tests/data/topology/simgrid/README.md): every transfer's end within 2 ps of SimGrid's.
SG = f"{DATA}/simgrid"
expected = {}
with open(os.path.join(ROOT, SG, "simgrid.csv")) as f:
    for row in csv.DictReader(f):
        expected.setdefault(row["case"], {})[int(row["transfer"])] = float(row["simgrid_ns"])
for case in sorted(expected):
    with tempfile.TemporaryDirectory() as tmp:
        t = os.path.join(tmp, "t.csv")
        code, out, err = fennel("run", f"{SG}/{case}.yaml", "--model", f"{SG}/{case}.model.yaml",
                                "--tasks", t)
        ends = {int(r["id"][1:]): float(r["end_ns"]) for r in csv.DictReader(open(t))
                if r["type"] == "put"} if code == 0 else {}
    worst = max((abs(ends.get(i, -1e18) - v) for i, v in expected[case].items()), default=1e18)
    check(f"fair against SimGrid, {case}: {len(expected[case])} transfers within 2 ps",
          len(ends) == len(expected[case]) and worst <= 0.002, f"{err} worst {worst} ns")

# Contention fair under lbp and LogGP against SimGrid, flows started at different times
# (tests/data/topology/simgrid-models/README.md). lbp: a put's arrival is SimGrid's end, its
# transfer started alpha_r = 200 ns after the put. LogGP: it started o after the put, and the
# put completes (its receive ends) at max(SimGrid's end + o - G, head + o + (s - 1) G), head
# the transfer's start plus its route's latency; o and G from the case's model.
SGM = f"{DATA}/simgrid-models"
expected = {}
with open(os.path.join(ROOT, SGM, "simgrid.csv")) as f:
    for row in csv.DictReader(f):
        expected.setdefault(row["case"], {})[int(row["transfer"])] = row
for case in sorted(expected):
    model = open(os.path.join(ROOT, SGM, f"{case}.model.yaml")).read()
    loggp = "model: loggp" in model
    if loggp:
        o = 1000 * float(re.search(r"\bo: ([0-9.]+)us", model).group(1))
        G = float(re.search(r"\bG: ([0-9.]+)ns/B", model).group(1))
    with tempfile.TemporaryDirectory() as tmp:
        t = os.path.join(tmp, "t.csv")
        code, out, err = fennel("run", f"{SGM}/{case}.yaml", "--model",
                                f"{SGM}/{case}.model.yaml", "--tasks", t)
        puts = {int(r["id"][1:]): r for r in csv.DictReader(open(t))
                if r["type"] == "put"} if code == 0 else {}
    worst = 0.0
    for i, sg in expected[case].items():
        start, end = float(sg["sg_start_ns"]), float(sg["sg_end_ns"])
        put = puts.get(i)
        if put is None:
            worst = 1e18
            continue
        if loggp:
            head = start + float(sg["route_latency_ns"])
            want = max(end + o - G, head + o + (int(sg["bytes"]) - 1) * G)
            got, entered = float(put["completion_ns"]), float(put["start_ns"]) + o
        else:
            want, got, entered = end, float(put["arrival_ns"]), float(put["start_ns"]) + 200
        worst = max(worst, abs(got - want), abs(entered - start))
    check(f"fair against SimGrid, {case}: {len(expected[case])} transfers within 2 ps",
          len(puts) == len(expected[case]) and worst <= 0.002, f"{err} worst {worst} ns")

# fennel plot on a --links CSV: one bar per level; in the oversubscribed shift every node
# link is busy 10000 of 20400 ns (49.0 %) and every used up- or down-link 20000 (98.0 %).
with tempfile.TemporaryDirectory() as tmp:
    links, svg = os.path.join(tmp, "l.csv"), os.path.join(tmp, "u.svg")
    fennel("run", f"{DATA}/shift.yaml", "--model", f"{DATA}/fat-tree.model.yaml", "--set",
           "topology.oversubscription=2", "--links", links)
    code, out, err = fennel("plot", links, "-o", svg)
    text = open(svg).read() if code == 0 else err
    check("plot of a --links CSV: bars for node (49.0 %) and level1 (98.0 %)",
          'data-level="node"' in text and 'data-level="level1"' in text and
          "mean utilisation 49.0%" in text and "mean utilisation 98.0%" in text, text[:400])

# Seeing link waits: the critical path of the oversubscribed shift ends with a message that
# waited 10000 ns for leaf 0's up-link, counted as its own kind before its 10400 ns of
# latency; the timeline marks the wait on the message's line and the trace records it.
with tempfile.TemporaryDirectory() as tmp:
    svg, trace = os.path.join(tmp, "t.svg"), os.path.join(tmp, "t.json")
    out = run_json(f"{DATA}/shift.yaml", "--model", f"{DATA}/fat-tree.model.yaml", "--set",
                   "topology.oversubscription=2", "--critical-path", "--timeline", svg,
                   "--trace", trace)
    path = out.get("critical_path", {})
    check("critical path: 10000 ns waiting for a link, then 10400 ns of latency",
          path.get("link_wait_ns") == 10000 and path.get("latency_ns") == 10400 and
          [s["kind"] for s in path.get("steps", [])] == ["link_wait", "latency"], out)
    text = open(svg).read() if os.path.exists(svg) else ""
    check("timeline: four messages marked as waiting for links, and a legend entry",
          text.count('data-link-wait-ns="10000"') == 4 and "message waiting for links" in text,
          text[:300])
    data = open(trace).read() if os.path.exists(trace) else ""
    check("trace: the four waits recorded", data.count('"link_wait_ns":10000') == 4, data[:300])

# A ring of 2^23 nodes (2^25 links) under `links` for an 8-rank recursive doubling of 1 KiB
# (issue: it took 72 s and 4.6 GB when every link had state; only the links crossed have
# it now). Defaults: node links 0 ns, dim0 links 500 ns, all 100 Gbit/s, so 1024 B take
# 81.92 ns on a link; postal with alpha = beta = 0, so a put's time is its route's. Rank i
# is on node i; stage k puts to i xor 2^(k-1), distance d = 1, 2, 4, which is below half
# the ring: the route is up-link, d ring links (forward if i < partner, else backward),
# down-link. Cut-through: the head reaches the down-link at 500 d ns, the tail arrives
# 81.92 ns later, and no message waits (two heads meet on a ring link only 500 ns apart, and
# a link is busy 81.92 ns). Stages: 581.92 + 1081.92 + 2081.92 = 3745.76 ns. Links crossed:
# 8 up, 8 down, forward router j -> j+1 for j = 0..6 (stage 3: 0->4 .. 3->7), backward
# j+1 -> j likewise: 30 rows. Busiest: router2->router3, crossed by 2->3, 1->3, 0->4, 1->5
# and 2->6 (5 x 81.92 = 409.6 ns), tied with router5->router4, whose number is higher.
with tempfile.TemporaryDirectory() as tmp:
    links = os.path.join(tmp, "links.csv")
    big = ["run", "--generate", "allreduce-rd", "--ranks", "8", "--size", "1KiB", "--network",
           "postal", "--set", "topology.kind=torus", "--set", "topology.dims=8388608", "--set",
           "contention=links"]
    try:
        code, out, err = fennel(*big, "--links", links, timeout=20)
    except subprocess.TimeoutExpired:
        code, out, err = -1, "", "more than 20 s"
    check("torus of 2^23 nodes under links, 8 ranks: 3745.76 ns within 20 s",
          code == 0 and "makespan     3745.76 ns\n" in out and
          "links        busiest router2->router3 (dim0), busy 409.6 ns" in out, (code, out, err))
    rows = list(csv.DictReader(open(links))) if code == 0 else []
    check("its links CSV lists the 30 links crossed, each with its messages",
          len(rows) == 30 and all(int(r["messages"]) > 0 for r in rows) and
          sum(r["level"] == "node" for r in rows) == 16 and
          [r["link"] for r in rows] == sorted((r["link"] for r in rows), key=int),
          rows[:3])

# GPU servers on rails (kind rail, tests/data/topology/rail.model.yaml): 8 GPUs per server,
# NVLink ports of 100 ns and 10 GB/s (100000 B take 10 us), one NIC per GPU on its rail's
# leaf (1 us, 5 GB/s: 20 us), spines of 500 ns at 5 GB/s; every rank is a GPU.
RAIL = ["--model", f"{DATA}/rail.model.yaml"]


def puts(ranks, sends):
    """A program file: rank s puts n bytes to d for each (s, d, n) of `sends`, each put of a
    rank on a slot (a thread block) of its own, all at time 0."""
    slots = {}
    for s, d, n in sends:
        slots.setdefault(s, []).append((d, n))
    lines = ["fennel: 1", f"ranks: {ranks}",
             f"processes: {max(len(v) for v in slots.values())}", "tasks:"]
    for r in sorted(slots):
        lines.append(f"  - {{id: s{r}, rank: {r}, type: start}}")
        for i, (d, n) in enumerate(slots[r]):
            lines.append(f"  - {{id: p{r}.{i}, rank: {r}, type: put, to: {d}, size: {n}, "
                         f"slot: {i}, after: [s{r}]}}")
    f = tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False)
    f.write("\n".join(lines) + "\n")
    f.close()
    return f.name


def gpu_makespan(ranks, sends, *args):
    path = puts(ranks, sends)
    try:
        return makespan(path, *args)
    finally:
        os.unlink(path)


# k thread blocks of GPU 0 put 100000 B each to k peers of its server: GPU 0's NVLink port
# carries all k, so the last arrives k x 10 us after the first byte left, plus the route's
# 2 x 100 ns: 200 + k x 10000 ns under every contention level that shares it (endpoint
# serves them one after another, links likewise, fair gives each 1/k of it). Without
# contention each block has the whole port: 10200 ns whatever k.
for contention in ("endpoint", "links", "fair"):
    for k in (1, 2, 4, 7):
        got = gpu_makespan(8, [(0, d, 100000) for d in range(1, k + 1)], *RAIL,
                           "--set", "contention=" + contention)
        want = 200 + k * 10000
        check(f"rail, {contention}: {k} thread blocks to {k} peers take {want} ns (k times "
              "one block's bytes)", isinstance(got, (int, float)) and abs(got - want) <= 0.002,
              got)
got = gpu_makespan(8, [(0, d, 100000) for d in range(1, 5)], *RAIL, "--set", "contention=none")
check("rail, none: 4 thread blocks each at the whole port, 10200 ns", got == 10200, got)

# Between servers. GPU 0 to GPU 8 (server 1, rail 0): its link to its NIC (no latency), the
# NIC's to leaf 0 and down to server 1's NIC 0 (2 x 1 us), then to GPU 8: 2000 + 100000 B at
# 5 GB/s = 22000 ns. GPU 0 to GPU 9 (rail 1): through spine 1 too, 2 x 500 ns more: 23000 ns.
# GPU 0 to GPUs 8 and 16 at once shares its NIC port: 2000 + 2 x 20000 = 42000 ns, and a
# third block to GPU 1 over NVLink in the meantime (10200 ns) changes nothing: NVLink and
# the NIC are ports of their own.
for contention in ("none", "endpoint", "links", "fair"):
    one = gpu_makespan(16, [(0, 8, 100000)], *RAIL, "--set", "contention=" + contention)
    other = gpu_makespan(16, [(0, 9, 100000)], *RAIL, "--set", "contention=" + contention)
    check(f"rail, {contention}: GPU 0 to GPU 8 on its rail 22000 ns, to GPU 9 on another "
          "rail 23000 ns", (one, other) == (22000, 23000), (one, other))
for contention in ("endpoint", "links", "fair"):
    got = gpu_makespan(24, [(0, 8, 100000), (0, 16, 100000), (0, 1, 100000)], *RAIL,
                       "--set", "contention=" + contention)
    check(f"rail, {contention}: two servers through one NIC 42000 ns, NVLink beside it free",
          isinstance(got, (int, float)) and abs(got - 42000) <= 0.002, got)

# NCCL's PXN (`pxn: true`): a message for a GPU of another server on another rail first
# crosses its own server's NVLink to the GPU on the destination's rail (the one with the
# destination's local number), whose NIC sends it. GPU 0 to GPU 9 (server 1, rail 1): NVLink
# up and down to GPU 1 (2 x 100 ns), GPU 1's link to NIC 1 (no latency), NIC 1 to leaf 1 and
# down to server 1's NIC 1 (2 x 1 us), then to GPU 9: 2200 + 100000 B at 5 GB/s = 22200 ns
# under every level (23000 through a spine without PXN, above); to GPU 8 on its own rail
# nothing changes (22000 ns). With GPU 1 putting 100000 B to GPU 17 (server 2, rail 1) at the
# same time, both cross GPU 1's link to its NIC and NIC 1's cable up (5 GB/s each):
# - endpoint and links: GPU 1's own put takes them at 0 for 20 us; GPU 0's head reaches
#   GPU 1's NIC link at 200 ns, starts at 20000, and its tail arrives 20000 + 20000 + 2000
#   = 42000 ns (GPU 1's at 22000);
# - fair: GPU 1's flow starts after its route's 2000 ns, GPU 0's after 2200: 1000 B alone at
#   5 GB/s, then 2.5 GB/s each, so GPU 1's remaining 99000 B end at 2200 + 39600 = 41800 ns,
#   and GPU 0's last 1000 B alone at 5 GB/s at 42000 ns;
# - none: 22200 ns. Without PXN no link is shared: 23000 ns.
# A server too small for the relay (10 GPUs: server 1 has GPUs 8 and 9, none on rail 3) sends
# through the GPU's own NIC and a spine: GPU 9 to GPU 3 takes 23000 ns. With 4 NICs a server
# (rail = local number / 2), GPU 0 to GPU 10 (server 1, rail 1) goes through GPU 2: 22200 ns.
PXN = ["--set", "topology.pxn=true"]
for contention in ("none", "endpoint", "links", "fair"):
    level = ["--set", "contention=" + contention]
    got = (gpu_makespan(16, [(0, 9, 100000)], *RAIL, *level, *PXN),
           gpu_makespan(16, [(0, 8, 100000)], *RAIL, *level, *PXN),
           gpu_makespan(10, [(9, 3, 100000)], *RAIL, *level, *PXN),
           gpu_makespan(16, [(0, 10, 100000)], *RAIL, *level, *PXN,
                        "--set", "topology.nics_per_node=4"))
    check(f"rail with pxn, {contention}: to another rail through the relay 22200 ns, on its "
          "rail 22000, no relay in a small server 23000, 4 NICs 22200", got ==
          (22200, 22000, 23000, 22200), got)
    pair = [(0, 9, 100000), (1, 17, 100000)]
    shared = 22200 if contention == "none" else 42000
    got = (gpu_makespan(24, pair, *RAIL, *level, *PXN), gpu_makespan(24, pair, *RAIL, *level))
    check(f"rail with pxn, {contention}: the relay's NIC shared, {shared} ns (23000 without "
          "pxn)", got == (shared, 23000), got)
path = puts(24, [(0, 9, 100000), (1, 17, 100000)])
ends = columns(tasks(path, *RAIL, *PXN, "--set", "contention=fair"), "id", "end_ns")
os.unlink(path)
check("rail with pxn, fair: GPU 1's own put ends at 41800 ns, the relayed one at 42000",
      ("p1.0", "41800") in ends and ("p0.0", "42000") in ends, ends)
code, _, err = fennel("run", "programs/examples/pingpong.yaml", *RAIL, "--set",
                      "topology.pxn=maybe")
check("topology.pxn takes true or false", code != 0 and err ==
      "fennel: --set topology.pxn=maybe: topology.pxn: 'maybe' is not true or false\n", err)

# RCCL's all-pairs pattern on one DGX H100 (the preset: 450 GB/s NVLink ports, 2 x 300 ns):
# 8 GPUs each put n = 450000 B (1 us at 450 GB/s) to each of the 7 others, one thread block
# per peer. Every GPU injects 7n and ejects 7n, so it takes at least 7 n / B = 7000 ns plus
# the route's 600 ns; under fair (the preset's level) every port carries 7 equal flows, each
# at B / 7, and all end at 600 + 7000 = 7600 ns. Under links the ports serve whole messages
# in turn: no sooner. Without a topology (postal at 500 GB/s) every message has the whole
# bandwidth and the program takes one message's time: fennel warns.
ALL_PAIRS = [(s, d, 450000) for s in range(8) for d in range(8) if s != d]
got = gpu_makespan(8, ALL_PAIRS, "--model", "dgx-h100")
check("dgx-h100: 8-GPU all-pairs of 450000 B takes 7600 ns (7 n / B_inj + 600 ns)",
      isinstance(got, (int, float)) and abs(got - 7600) <= 0.002, got)
got = gpu_makespan(8, ALL_PAIRS, "--model", "dgx-h100", "--set", "contention=links")
check("dgx-h100 under links: at least 7 n / B_inj + 600 ns",
      isinstance(got, (int, float)) and got >= 7600, got)
path = puts(8, ALL_PAIRS)
code, out, err = fennel("run", path, "--network", "postal", "--set", "alpha=600ns",
                        "--set", "beta=0.002ns/B")
code2, out2, err2 = fennel("run", path, "--model", "dgx-h100")
os.unlink(path)
WARNING = ("fennel: run: warning: ranks send from several slots at once and the model gives "
           "each send the whole bandwidth (no port shared by a rank's thread blocks or "
           "channels); --model dgx-h100 or dgx-a100, or a topology with contention and one "
           "rank per node, share it (docs/TOPOLOGY.md, GPU servers and rails)\n")
check("postal without a topology: 1500 ns, and parallel senders are warned about", code == 0
      and "makespan     1500 ns\n" in out and
      err == WARNING, (code, err))
check("under dgx-h100 no warning", code2 == 0 and err2 == "", (code2, err2))
code, out, err = fennel("run", "--generate", "allreduce-ring", "--ranks", "8", "--network",
                        "postal")
check("one slot per rank: no warning", code == 0 and err == "", (code, err))

# The preset's own figures, from its file: the levels of dgx-a100 as its comments cite them.
out = run_json(f"{DATA}/incast.yaml", "--model", "dgx-a100")
levels = {lv["name"]: (lv["latency_ns"], lv["ns_per_byte"])
          for lv in out.get("model", {}).get("topology", {}).get("levels", [])}
# 300 GB/s: 1/300 ns per byte; 200 Gbit/s = 25 GB/s: 0.04 ns per byte.
check("dgx-a100: NVLink 300 GB/s each way, 200 Gbit/s NICs", levels.get("rail") ==
      (1350, 0.04) and levels.get("pcie") == (0, 0.04) and levels.get("node", (0, 0))[0] == 300
      and abs(levels.get("node", (0, 0))[1] - 1 / 300) < 1e-6, levels)

# a3-mega, its figures from its file: NVLink 450 GB/s each way (1/450 ns per byte, 2 x 300 ns
# a hop), 200 Gbit/s = 25 GB/s NICs (0.04 ns per byte, 2 x 1350 ns a network hop). GPU 0
# puts 900000 B to GPU 71 (server 8, GPU 7: another rail, through a spine of 200 Gbit/s and
# no latency): 2700 + 900000 / 25 GB/s = 38700 ns; then to GPU 72 (server 9, GPU 0, rail
# 0): 38700 ns again: 77400 ns.
out = run_json(f"{DATA}/incast.yaml", "--model", "a3-mega")
levels = {lv["name"]: (lv["latency_ns"], lv["ns_per_byte"])
          for lv in out.get("model", {}).get("topology", {}).get("levels", [])}
check("a3-mega: NVLink 450 GB/s each way, 200 Gbit/s NICs", levels.get("rail") ==
      (1350, 0.04) and levels.get("node", (0, 0))[0] == 300
      and abs(levels.get("node", (0, 0))[1] - 1 / 450) < 1e-6, levels)
code, out, err = fennel("run", f"{DATA}/rack-puts.yaml", "--model", "a3-mega")
check("a3-mega: two puts to other servers, 38700 ns each",
      code == 0 and "makespan     77400 ns\n" in out, out + err)

# h100-pcie, its figures from its file: PCIe Gen5 x16, 64 GB/s each way (1/64 ns per byte,
# 2 x 500 ns a hop), 4 NICs of 400 Gbit/s = 50 GB/s (0.02 ns per byte, 2 x 1350 ns a network
# hop), GPUs 2k and 2k + 1 on NIC k. GPUs 0 and 1 each put 500000 B to GPUs 8 and 9 of the
# next server at once: both cross NIC 0 and rail 0, which fair sharing splits in two, so
# both end at 2700 + 2 x 500000 / 50 GB/s = 22700 ns (12700 ns with a NIC each).
out = run_json(f"{DATA}/incast.yaml", "--model", "h100-pcie")
levels = {lv["name"]: (lv["latency_ns"], lv["ns_per_byte"])
          for lv in out.get("model", {}).get("topology", {}).get("levels", [])}
check("h100-pcie: PCIe 64 GB/s each way, 400 Gbit/s NICs", levels.get("rail") ==
      (1350, 0.02) and levels.get("node", (0, 0))[0] == 500
      and abs(levels.get("node", (0, 0))[1] - 1 / 64) < 1e-6, levels)
code, out, err = fennel("run", f"{DATA}/shared-nic-puts.yaml", "--model", "h100-pcie")
check("h100-pcie: two GPUs share a NIC, 22700 ns",
      code == 0 and "makespan     22700 ns\n" in out, out + err)

# gb200-nvl72, its figures from its file: a rack of 72 GPUs is one NVLink domain of 900 GB/s
# each way (2 x 300 ns a hop), 400 Gbit/s = 50 GB/s NICs (2 x 1350 ns a network hop). GPU 0
# puts 900000 B to GPU 71, in its rack: 600 + 900000 / 900 GB/s = 1600 ns; then to GPU 72,
# the next rack's GPU 0 on rail 0: GPU, NIC, leaf, NIC, GPU, 2700 + 900000 / 50 GB/s =
# 20700 ns: 22300 ns.
code, out, err = fennel("run", f"{DATA}/rack-puts.yaml", "--model", "gb200-nvl72")
check("gb200-nvl72: a put in the rack and one to the next rack, 1600 + 20700 ns",
      code == 0 and "makespan     22300 ns\n" in out, out + err)

# The model's JSON names the topology and its levels.
out = run_json(f"{DATA}/incast.yaml", "--model", f"{DATA}/switch.model.yaml")
topo = out.get("model", {}).get("topology", {})
check("--json describes the topology", topo.get("kind") == "switch" and
      topo.get("contention") == "endpoint" and topo.get("levels") ==
      [{"name": "node", "latency_ns": 500, "ns_per_byte": 0.1}], out)

# Routing (docs/TOPOLOGY.md, Routing). The even ranks' shift by 4 (ranks 0 and 2 put
# 100000 B to ranks 4 and 6) on the radix-8 fat tree with oversubscription 2 (u = 2 up-links
# per leaf), 100 ns and 10 GB/s links: destination modulo sends both up leaf 0's up-link
# 4 mod 2 = 6 mod 2 = 0, so under `links` the second waits for the first: 400 + 2 x 10000 =
# 20400 ns (under `fair` both at half the rate: 20400 ns too). Adaptive: the first message
# finds every up-link empty and takes destination modulo's, 0; the second finds 100000 B
# routed over up-link 0 and none over up-link 1 and takes 1; their spines' down-links to
# leaf 1 and the node links are all different: 400 + 10000 = 10400 ns.
SHIFT = (f"{DATA}/even-shift.yaml", "--model", f"{DATA}/fat-tree.model.yaml", "--set",
         "topology.oversubscription=2")
for routing, contention, expect in (("destination-modulo", "links", 20400),
                                    ("destination-modulo", "fair", 20400),
                                    ("adaptive", "links", 10400), ("adaptive", "fair", 10400)):
    got = makespan(*SHIFT, "--set", "topology.routing=" + routing, "--set",
                   "contention=" + contention)
    check(f"even shift, {routing}, {contention}: {expect} ns", got == expect, got)

# ECMP: each message's up-link is a hash of the seed, its nodes and its number mod 2, so the
# two share one with probability 1/2: 20400 ns, else 10400 ns (nothing else can happen). The
# same seed gives the same route. Over 60 seeds the collisions are binomial(60, 1/2):
# between 15 and 45 fails with probability below 1e-4.
times = [makespan(*SHIFT, "--set", "topology.routing=ecmp", "--seed", str(s))
         for s in range(60)]
check("ecmp: every time is 10400 or 20400 ns", set(times) <= {10400, 20400}, times)
check("ecmp spreads: 15..45 of 60 seeds collide", 15 <= times.count(20400) <= 45, times)
again = [makespan(*SHIFT, "--set", "topology.routing=ecmp", "--seed", str(s)) for s in range(8)]
check("ecmp: the same seed, the same routes", again == times[:8], (again, times[:8]))

# torus_ties on a ring of 4, rank i to i + 2 (every route a tie), 100 ns and 10 GB/s ring
# links, node links of no latency, `fair`: positive sends all four the positive way, two
# flows on every positive link at half the rate: 200 + 20000 = 20200 ns. split sends routers
# 0 and 2 the positive way (links 0->1, 1->2 and 2->3, 3->0) and 1 and 3 the negative way
# (1->0, 0->3 and 3->2, 2->1): one flow per link, 200 + 10000 = 10200 ns.
for ties, expect in (("positive", 20200), ("split", 10200)):
    got = makespan(f"{DATA}/ring-shift.yaml", "--model", f"{DATA}/fat-tree.model.yaml", "--set",
                   "topology.kind=torus", "--set", "topology.dims=4", "--set",
                   "topology.torus_ties=" + ties, "--set", "contention=fair")
    check(f"half-ring shift, torus_ties {ties}: {expect} ns", got == expect, got)


# Valiant and adaptive routes on a dragonfly of 4 groups of 2 routers, one node each (node i
# on router i, group i / 2), 10 GB/s links of 100 ns (node), 200 ns (local) and 1 us
# (global); group g's link to group h is on its router ((h - g - 1) mod 4) mod 2. Node 0 to
# node 2 (group 0 to 1), 100000 B: the minimal route is node 0, router 0 (it holds 0->1),
# router 2, node 2: 1200 + 10000 = 11200 ns. Valiant goes through group 2 or 3, whichever the
# seeded hash picks: through 2, router 0, local to router 1 (it holds 0->2), router 5, local
# to router 4 (2->1), router 2; through 3, router 0 (0->3), router 6, local to router 7
# (3->1), router 3, local to router 2: either way 100 + 200 + 1000 + 200 + 1000 + 100 = 2600 +
# 10000 = 12600 ns, under every level. Node 0 to node 1 stays in its group: 10400 ns.
# (Two messages under valiant may share a group's links or not, as the hash sends them.)
# With node 1 putting 100000 B to node 3 at the same time: minimally it crosses router 1 to
# router 0 (200 ns), then global link 0->1, which node 0's message holds from 100 to 10100 ns
# under `links`: it starts on it at 10100 and its tail arrives 10100 + 10000 + 1000 + 200 +
# 100 = 21400 ns; under `fair` node 0's flow starts at 1200 ns, node 1's at 1600: 4000 B
# alone, then 5 GB/s each: node 0's ends at 1600 + 19200 = 20800, node 1's last 4000 B alone
# at 21200 ns. Adaptive: node 0's message finds every global link idle and goes minimally;
# node 1's finds 100000 B on 0->1 and none on 0->2 and 2->1 and goes through group 2 (router
# 1 holds 0->2): 2600 + 10000 = 12600 ns. Under `none` adaptive routes minimally (no load
# is kept): 11600 ns, node 1's route 1600 + 10000.
DRAGONFLY = ["--network", "postal", "--set", "alpha=0ns", "--set", "beta=0ns/B",
             "--set", "topology.kind=dragonfly", "--set", "topology.groups=4",
             "--set", "topology.routers=2", "--set", "topology.nodes_per_router=1",
             "--set", "topology.bandwidth=10GB/s", "--set", "topology.node.latency=100ns",
             "--set", "topology.local.latency=200ns", "--set", "topology.global.latency=1us"]
WANT = {("destination-modulo", "none"): 11600, ("destination-modulo", "endpoint"): 11600,
        ("destination-modulo", "links"): 21400, ("destination-modulo", "fair"): 21200,
        ("adaptive", "none"): 11600}
for routing in ("destination-modulo", "valiant", "adaptive"):
    for contention in ("none", "endpoint", "links", "fair"):
        level = ["--set", "topology.routing=" + routing, "--set", "contention=" + contention]
        one = 11200 if routing != "valiant" else 12600
        # (two messages under valiant share links or not as the hash sends them)
        two = WANT.get((routing, contention), 12600) if routing != "valiant" else None
        got = (gpu_makespan(8, [(0, 2, 100000)], *DRAGONFLY, *level),
               two and gpu_makespan(8, [(0, 2, 100000), (1, 3, 100000)], *DRAGONFLY, *level),
               gpu_makespan(8, [(0, 1, 100000)], *DRAGONFLY, *level))
        check(f"dragonfly, {routing}, {contention}: {one}, two messages {two}, within a group "
              "10400 ns", got == (one, two, 10400), got)


def first_global(seed):
    """The global links node 0's put to node 2 crosses under valiant with `seed`."""
    path = puts(8, [(0, 2, 100000)])
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "links.csv")
        fennel("run", path, *DRAGONFLY, "--set", "topology.routing=valiant", "--set",
               "contention=links", "--seed", str(seed), "--links", out)
        rows = list(csv.DictReader(open(out))) if os.path.exists(out) else []
    os.unlink(path)
    return tuple(f"{r['from']}>{r['to']}" for r in rows
                 if r["level"] == "global" and int(r["messages"]) > 0)


# Valiant's group is the seeded hash mod 2 here (groups 2 and 3: neither node's): over 40
# seeds each comes binomial(40, 1/2) times, between 8 and 32 but with probability below 1e-4;
# the same seed, the same group.
routes = [first_global(s) for s in range(40)]
via2, via3 = ("router1>router5", "router4>router2"), ("router0>router6", "router7>router3")
check("dragonfly, valiant: through group 2 or group 3, each for 8..32 of 40 seeds",
      set(routes) == {via2, via3} and 8 <= routes.count(via2) <= 32, routes)
check("dragonfly, valiant: the same seed, the same group",
      [first_global(s) for s in range(4)] == routes[:4], routes[:4])

# A dead global link: minimal routing has no other route (cut off), adaptive goes round it
# through the next group from the destination's (group 2): 12600 ns.
path = puts(8, [(0, 2, 100000)])
code, _, err = fennel("run", path, *DRAGONFLY, "--set", "contention=links",
                      "--set", "faults.list=router0>router2")
check("dragonfly, a dead global link: cut off under destination-modulo",
      code == 1 and "every route from node0 to node2 crosses a link that is down" in err, err)
got = makespan(path, *DRAGONFLY, "--set", "contention=links", "--set", "faults.list=router0>router2",
               "--set", "topology.routing=adaptive")
check("dragonfly, a dead global link: adaptive goes through group 2, 12600 ns", got == 12600,
      got)
for routing, kind, why in (("ecmp", "dragonfly", "a dragonfly has one minimal route"),
                           ("valiant", "fat-tree", "valiant applies to dragonfly, not to "
                            "fat-tree")):
    extra = DRAGONFLY if kind == "dragonfly" else ["--set", "topology.kind=fat-tree"]
    code, _, err = fennel("run", path, *extra, "--set", "topology.routing=" + routing)
    check(f"routing {routing} on a {kind}: refused in one line", code == 2 and why in err and
          err.count("\n") == 1, err)
os.unlink(path)

# ---- --links by intervals ----
#
# tests/data/topology/incast-two.yaml on switch.model.yaml (500 ns, 10 GB/s links, so
# 100000 B hold a link 10000 ns; contention endpoint): each put holds its node's up-link
# 0-10000 ns. Both heads reach node 2's down-link at 500 ns: p0 holds it 500-10500 ns, p1
# waits 500-10500 ns and holds it 10500-20500 ns, and arrives at 21000 ns (the makespan).
# By intervals of 5 us (ceil(21000 / 5000) = 5 of them), the down-link (link 5, the third
# node's second) is busy 4500, 5000, 5000, 5000 and 500 ns (utilisation 0.9, 1, 1, 1,
# 0.1), waited for 4500, 5000 and 500 ns, and p0 starts on it in the first interval, p1 in
# the third; each up-link is busy 5000 ns in each of the first two intervals.
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "links.csv")
    code, text, err = fennel("run", f"{DATA}/incast-two.yaml", "--model",
                             f"{DATA}/switch.model.yaml", "--links", path,
                             "--link-interval", "5us")
    rows = list(csv.DictReader(open(path))) if code == 0 else []
    down = [(r["from_ns"], r["until_ns"], r["messages"], r["busy_ns"], r["utilisation"],
             r["wait_ns"]) for r in rows if r["from"] == "switch" and r["to"] == "node2"]
    check("link intervals: node 2's down-link by 5 us", down == [
        ("0", "5000", "1", "4500", "0.900000", "4500"),
        ("5000", "10000", "0", "5000", "1.000000", "5000"),
        ("10000", "15000", "1", "5000", "1.000000", "500"),
        ("15000", "20000", "0", "5000", "1.000000", "0"),
        ("20000", "25000", "0", "500", "0.100000", "0")], (text + err, rows))
    up = [(r["link"], r["from"], r["busy_ns"]) for r in rows if r["to"] == "switch"]
    check("link intervals: the up-links busy 5000 ns in the first two intervals", up == [
        ("0", "node0", "5000"), ("0", "node0", "5000"), ("0", "node0", "0"),
        ("0", "node0", "0"), ("0", "node0", "0"),
        ("2", "node1", "5000"), ("2", "node1", "5000"), ("2", "node1", "0"),
        ("2", "node1", "0"), ("2", "node1", "0")], rows)
    check("link intervals: only the links messages crossed, the down-link is link 5",
          sorted({r["link"] for r in rows}) == ["0", "2", "5"] and code == 0, rows)
    # fennel plot draws the file as a heat map: a row per link, a cell per interval with
    # busy time, its colour from #f7fbff (idle) to #08306b (busy all along), linear per
    # channel: utilisation 0.9 is (247 - 0.9 x 239, 251 - 0.9 x 203, 255 - 0.9 x 148) =
    # (31.9, 68.3, 121.8), #20447a; 0.1 is (223.1, 230.7, 240.2), #dfe7f0; 1 is #08306b.
    svg = os.path.join(tmp, "links.svg")
    code, text, err = fennel("plot", path, "-o", svg)
    picture = open(svg).read() if code == 0 else ""
    cells = {}
    for group in re.findall(r'<g class="link" data-link="(\d+)">(.*?)</g>', picture, re.S):
        cells[group[0]] = re.findall(r'<rect[^>]*fill="(#[0-9a-f]{6})"', group[1])
    check("link intervals: the heat map's cells", cells == {
        "0": ["#08306b"] * 2, "2": ["#08306b"] * 2,
        "5": ["#20447a", "#08306b", "#08306b", "#08306b", "#dfe7f0"]}, (err, cells))
    # A bad number names its place: "5,switch,node2,node,0,5000,1,4500," is 34 characters.
    bad = os.path.join(tmp, "bad.csv")
    with open(bad, "w") as f:
        f.write("link,from,to,level,from_ns,until_ns,messages,busy_ns,utilisation,wait_ns\n"
                "5,switch,node2,node,0,5000,1,4500,lots,0\n")
    code, text, err = fennel("plot", bad, "-o", svg)
    check("link intervals: a bad utilisation at its line and column", code == 1 and err ==
          f"fennel: {bad}:2:35: utilisation: expected a number >= 0, got 'lots'\n", err)
    # Under fair a link's busy time is the time of its flows' shares: the two puts of
    # incast-two flow from 1000 ns (the route's latency) at 5 GB/s each, half of each up-link
    # and all of node 2's down-link, until 21000 ns. By 5 us the up-links are busy 2000,
    # 2500, 2500, 2500 and 500 ns, the down-link 4000, 5000, 5000, 5000 and 1000 ns; both
    # flows begin on the down-link in the first interval; no waits (a share is no wait).
    code, text, err = fennel("run", f"{DATA}/incast-two.yaml", "--model",
                             f"{DATA}/switch.model.yaml", "--set", "contention=fair", "--links",
                             path, "--link-interval", "5us")
    rows = list(csv.DictReader(open(path))) if code == 0 else []
    got = [(r["link"], r["messages"], r["busy_ns"], r["wait_ns"]) for r in rows]
    want = [(link, m, b, "0") for link, first in (("0", "1"), ("2", "1"), ("5", "2"))
            for m, b in zip((first, "0", "0", "0", "0"),
                            ("4000", "5000", "5000", "5000", "1000") if link == "5" else
                            ("2000", "2500", "2500", "2500", "500"))]
    check("link intervals under fair: the flows' shares by 5 us", got == want, (text + err, got))
    # Rates that change (the pxn case of the rail tests above): GPU 1's flow has its link to
    # NIC 1 (5 GB/s) alone from 2000 to 2200 ns, GPU 0's relayed one shares it half and half
    # until 41800 ns and has it alone until 42000 ns: by 10 us busy 8000, 10000, 10000, 10000
    # and 2000 ns, both flows beginning in the first interval. GPU 0's NVLink port (10 GB/s)
    # carries its flow at 2.5 GB/s, then 5 GB/s from 41800 ns: 7800 x 0.25 = 1950, 2500, 2500,
    # 2500 and 1800 x 0.25 + 200 x 0.5 = 550 ns.
    program = puts(24, [(0, 9, 100000), (1, 17, 100000)])
    code, text, err = fennel("run", program, *RAIL, *PXN, "--set", "contention=fair", "--links",
                             path, "--link-interval", "10us")
    os.unlink(program)
    rows = list(csv.DictReader(open(path))) if code == 0 else []
    got = {(a, b): [(r["messages"], r["busy_ns"]) for r in rows
                                  if (r["from"], r["to"]) == (a, b)]
           for a, b in (("node1", "nic1"), ("node0", "nvswitch0"))}
    check("link intervals under fair: shares that change, by 10 us", got == {
        ("node1", "nic1"): [("2", "8000"), ("0", "10000"), ("0", "10000"), ("0", "10000"),
                            ("0", "2000")],
        ("node0", "nvswitch0"): [("1", "1950"), ("0", "2500"), ("0", "2500"), ("0", "2500"),
                                 ("0", "550")]}, (text + err, got))
    for name, args, message in [
            ("without --links", ["--link-interval", "1us"],
             "run: --link-interval needs --links"),
            ("of zero", ["--links", path, "--link-interval", "0us"],
             "run: --link-interval must be above 0, got '0us'"),
            # 21000 ns by 1 ps is 21 million intervals.
            ("too many", ["--links", path, "--link-interval", "1ps"],
             "--link-interval: 0.001 ns cuts the run of 21000 ns into more than 1048576 "
             "intervals; give a longer one")]:
        code, text, err = fennel("run", f"{DATA}/incast-two.yaml", "--model",
                                 f"{DATA}/switch.model.yaml", *args)
        check(f"link intervals: refused {name}", code == 2 and err == f"fennel: {message}\n",
              (code, err))

finish()
