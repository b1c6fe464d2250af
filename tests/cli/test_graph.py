#!/usr/bin/env python3
"""Topologies read from a file, kind graph (docs/TOPOLOGY.md, Graphs), through `fennel run`.

- The built-in kinds written out as graph files give the same time for every task: a switch
  and a two-level fat tree, under `endpoint`, `links` and `fair`, with destination modulo
  and ECMP.
- Per-link bandwidths and latencies, shortest routes and their ties, directed links and a
  dead link's detour, derived by hand.
- Errors at the graph file's FILE:LINE:COL.

Usage: test_graph.py FENNEL SOURCE_ROOT. Prints TAP.
"""
import csv
import io
import os
import tempfile

from harness import check, expect_error, fennel, finish, puts, run_json, tasks, write

DATA = "tests/data/topology"
GRAPH = f"{DATA}/graph"
BUILT_IN_TREE = ["--model", f"{DATA}/fat-tree.model.yaml", "--set",
                 "topology.oversubscription=2"]
GRAPH_TREE = ["--model", f"{GRAPH}/fat-tree.model.yaml"]
BUILT_IN_TORUS = ["--model", f"{DATA}/fat-tree.model.yaml", "--set", "topology.kind=torus",
                  "--set", "topology.dims=4x4"]
GRAPH_TORUS = ["--model", f"{GRAPH}/torus.model.yaml"]
BUILT_IN_TREE3 = ["--model", f"{DATA}/fat-tree.model.yaml", "--set", "topology.levels=3",
                  "--set", "topology.radix=4"]
GRAPH_TREE3 = ["--model", f"{GRAPH}/fat-tree-3.model.yaml"]
BUILT_IN_SWITCH = ["--model", f"{DATA}/switch.model.yaml"]
GRAPH_SWITCH = ["--model", f"{GRAPH}/switch.model.yaml"]


def makespan(*args):
    out = run_json(*args)
    return out.get("makespan_ns", out)


# The same machine written out: every task the same times. Only the comparison is checked
# here; the times themselves are derived by hand for the built-in kinds in test_topology.py
# and below.
PROGRAMS = [[f"{DATA}/shift.yaml"], [f"{DATA}/incast.yaml"], [f"{DATA}/even-shift.yaml"],
            ["--generate", "alltoall-pairwise", "-n", "16", "--size", "100000"],
            ["--generate", "allreduce-rd", "-n", "16", "--size", "100000"],
            ["--generate", "allreduce-ring", "-n", "16", "--size", "100000"]]
for contention in ("none", "endpoint", "links", "fair"):
    for program in PROGRAMS:
        name = program[-1] if len(program) == 1 else program[1]
        level = ["--set", "contention=" + contention]
        if "-n" not in program:
            a = tasks(*program, *BUILT_IN_SWITCH, *level)
            b = tasks(*program, *GRAPH_SWITCH, *level)
            check(f"{name}, {contention}: the switch as a graph gives every task's times",
                  a == b and a.count("\n") > 2, f"{a}\n---\n{b}")
        for kind, built_in, graph in (("fat tree", BUILT_IN_TREE, GRAPH_TREE),
                                      ("three-level fat tree", BUILT_IN_TREE3, GRAPH_TREE3),
                                      ("4x4 torus", BUILT_IN_TORUS, GRAPH_TORUS)):
            a = tasks(*program, *built_in, *level)
            b = tasks(*program, *graph, *level)
            check(f"{name}, {contention}: the {kind} as a graph gives every task's times",
                  a == b and a.count("\n") > 2, f"{a}\n---\n{b}")
for seed in range(4):
    for contention in ("links", "fair"):
        ecmp = ["--set", "topology.routing=ecmp", "--seed", str(seed), "--set",
                "contention=" + contention]
        a = tasks(f"{DATA}/even-shift.yaml", *BUILT_IN_TREE, *ecmp)
        b = tasks(f"{DATA}/even-shift.yaml", *GRAPH_TREE, *ecmp)
        check(f"ecmp, seed {seed}, {contention}: the fat tree as a graph routes the same",
              a == b and a.count("\n") > 2, f"{a}\n---\n{b}")

# Adaptive routing on the fat tree as a graph: its leaves list their up-links in spine
# order, so it routes as the built-in tree's (least load at the leaf, a tie to destination
# modulo's): every task of every program the same.
for contention in ("links", "fair"):
    for program in PROGRAMS:
        name = program[-1] if len(program) == 1 else program[1]
        level = ["--set", "contention=" + contention, "--set", "topology.routing=adaptive"]
        a = tasks(*program, *BUILT_IN_TREE, *level)
        b = tasks(*program, *GRAPH_TREE, *level)
        check(f"{name}, adaptive, {contention}: the fat tree as a graph routes the same",
              a == b and a.count("\n") > 2, f"{a}\n---\n{b}")

# The even ranks' shift by 4 (ranks 0 and 2 put 100000 B to 4 and 6) on the fat tree as a
# graph: destination modulo sends both up leaf 0's up-link 4 mod 2 = 6 mod 2 = 0, 400 + 2 x
# 10000 = 20400 ns under `links` and `fair`; adaptive sends the second by up-link 1, whose
# load is 0 against the first's 100000 B: 400 + 10000 = 10400 ns.
for routing, contention, expect in (("destination-modulo", "links", 20400),
                                    ("destination-modulo", "fair", 20400),
                                    ("adaptive", "links", 10400), ("adaptive", "fair", 10400)):
    got = makespan(f"{DATA}/even-shift.yaml", *GRAPH_TREE, "--set", "topology.routing=" + routing,
                   "--set", "contention=" + contention)
    check(f"even shift on the graph fat tree, {routing}, {contention}: {expect} ns",
          got == expect, got)

# The shift on the fat tree as a graph, by hand (as in docs/TOPOLOGY.md, Worked examples):
# each leaf's 2 up-links carry two messages each (dst mod 2), 100 ns links of 10 GB/s:
# 400 + 2 x 10000 = 20400 ns under `links` and `fair`, 10400 ns under `endpoint`.
for contention, expect in (("links", 20400), ("fair", 20400), ("endpoint", 10400)):
    got = makespan(f"{DATA}/shift.yaml", *GRAPH_TREE, "--set", "contention=" + contention)
    check(f"shift on the graph fat tree, {contention}: {expect} ns", got == expect, got)


def model(graph, contention="none", extra=""):
    return ("fennel: 1\nnetwork: {model: postal}\n"
            f"topology: {{kind: graph, file: {graph}{extra}}}\ncontention: {contention}\n")


def put_ends(csv_text):
    """The end of every put, by its id."""
    if not csv_text.startswith("program"):
        return csv_text
    return {r["id"]: float(r["end_ns"]) for r in csv.DictReader(io.StringIO(csv_text))
            if r["id"].startswith("p")}


with tempfile.TemporaryDirectory() as tmp:
    # Each link its own: a 100000 B put over a chain node0 - s0 - s1 - node1 of 100 ns and
    # 10 GB/s, then 200 ns and 5 GB/s, then 100 ns and 10 GB/s. Without contention: the
    # latencies 400 ns plus 100000 B at the narrowest 5 GB/s, 20000 ns: 20400 ns. Under
    # `links` (cut-through) the tail leaves the middle link at 100 + 20000 and arrives 300 ns
    # later: 20400 ns; under `fair` the flow goes at 5 GB/s after the 400 ns: 20400 ns.
    write(tmp, "chain.yaml", """nodes: [node0, node1]
switches: [s0, s1]
links:
  - {from: node0, to: s0, bandwidth: 10GB/s, latency: 100ns}
  - {from: s0, to: s1, bandwidth: 5GB/s, latency: 200ns}
  - {from: s1, to: node1, bandwidth: 10GB/s, latency: 100ns}
""")
    chain = write(tmp, "chain.model.yaml", model("chain.yaml"))
    one = write(tmp, "one.yaml", puts([(0, 1)], 100000))
    for contention in ("none", "endpoint", "links", "fair"):
        got = makespan(one, "--model", chain, "--set", "contention=" + contention)
        check(f"per-link bandwidth and latency, {contention}: 20400 ns", got == 20400, got)

    # Shortest in hops, not in time: s0 reaches s3 by s1 (100 ns links) or s2 (1000 ns
    # links) in two hops, and by s4, s5 (no latency) in three, which no route takes. Node
    # links have no latency, every link 10 GB/s, 10000 B puts (1000 ns of bytes). Towards
    # node1 (number 1) s0's candidates are s0->s1 and s0->s2 in the file's order, and
    # destination modulo takes 1 mod 2: s2, 2000 + 1000 = 3000 ns. Towards node0 s3's are
    # s3->s1, s3->s2 (the ways back of the third and fourth links): 0 mod 2, s1, 200 + 1000
    # = 1200 ns.
    write(tmp, "diamond.yaml", """nodes: [node0, node1]
switches: [s0, s1, s2, s3, s4, s5]
links:
  - {from: node0, to: s0, latency: 0ns}
  - {from: node1, to: s3, latency: 0ns}
  - {from: s0, to: s1, latency: 100ns}
  - {from: s0, to: s2, latency: 1000ns}
  - {from: s1, to: s3, latency: 100ns}
  - {from: s2, to: s3, latency: 1000ns}
  - {from: s0, to: s4, latency: 0ns}
  - {from: s4, to: s5, latency: 0ns}
  - {from: s5, to: s3, latency: 0ns}
""")
    diamond = write(tmp, "diamond.model.yaml",
                    model("diamond.yaml", extra=", bandwidth: 10GB/s"))
    both = write(tmp, "both.yaml", puts([(0, 1), (1, 0)], 10000))
    ends = put_ends(tasks(both, "--model", diamond))
    check("shortest routes, ties by destination modulo: 3000 and 1200 ns",
          ends == {"p0": 3000.0, "p1": 1200.0}, ends)

    # Directed links: a one-way ring s0 -> s1 -> s2 -> s0, node i on si, 100 ns links
    # (postal without terms: the wire alone), 0 B. Rank 0 to 1: node0, s0, s1, node1, 300 ns;
    # rank 1 to 0 has to go round: s1, s2, s0, 400 ns.
    write(tmp, "ring.yaml", """nodes: [n0, n1, n2]
switches: [s0, s1, s2]
links:
  - {from: n0, to: s0}
  - {from: n1, to: s1}
  - {from: n2, to: s2}
  - {from: s0, to: s1, directed: true}
  - {from: s1, to: s2, directed: true}
  - {from: s2, to: s0, directed: true}
""")
    ring = write(tmp, "ring.model.yaml", model("ring.yaml", extra=", latency: 100ns"))
    zero = write(tmp, "zero.yaml", puts([(0, 1), (1, 0)], 0))
    ends = put_ends(tasks(zero, "--model", ring))
    check("a one-way ring: 300 ns forward, 400 ns round", ends == {"p0": 300.0, "p1": 400.0},
          ends)
    # A node's NIC by its number, whatever its name: node1 (n1) down cuts the put to it off.
    got = makespan(zero, "--model", ring, "--set", "faults.list=node1")
    check("n1's NIC down as node1: the program cannot finish",
          isinstance(got, dict) and "cut off" in got.get("error", ""), got)

    # A dead link and its detour on the fat tree as a graph: ranks 0 and 1 (leaf 0) put
    # 100000 B to ranks 4 and 5 (leaf 1), by spines 4 mod 2 = 0 and 5 mod 2 = 1: 10400 ns.
    # With leaf0>spine0 down, 0 -> 4 takes the next of its two routes, by spine 1, and shares
    # leaf 0's up-link to it with 1 -> 5: 400 + 2 x 10000 = 20400 ns under `links`.
    pair = write(tmp, "pair.yaml", puts([(0, 4), (1, 5)], 100000))
    got = makespan(pair, *GRAPH_TREE)
    check("two puts by both spines: 10400 ns", got == 10400, got)
    got = makespan(pair, *GRAPH_TREE, "--set", "faults.list=leaf0>spine0")
    check("leaf0>spine0 down: the detour shares spine 1's up-link, 20400 ns", got == 20400, got)
    got = makespan(pair, *GRAPH_TREE, "--set", "faults.list=leaf0>spine0; leaf0>spine1")
    check("both up-links down: the program cannot finish",
          isinstance(got, dict) and "cut off" in got.get("error", ""), got)

    # Several NICs per node: two nodes with a NIC on each of two switches r0 and r1, joined
    # (every NIC must reach every other node's), 100 ns and 10 GB/s links, two ranks per node. A rank uses NIC (its place on its node) mod the
    # node's NICs, sending and receiving: rank 0 (place 0) NIC 0, rank 1 NIC 1, rank 2 NIC 0,
    # rank 3 NIC 1. 0 -> 2 and 1 -> 3, 100000 B each at once, go n0, r0, n1 and n0, r1, n1:
    # nothing shared, 200 + 10000 = 10200 ns under every level. With one NIC each (on r0)
    # the two share node 0's link out and node 1's link in: under `links` the second starts
    # on n0's link when the first's 10000 ns are through and arrives at 10000 + 200 + 10000 =
    # 20200 ns (under `fair` both at half the rate, 200 + 20000 = 20200 ns too; `none` shares
    # nothing, 10200 ns): two NICs double the node's injection.
    two_nic = """nodes: [n0, n1]
switches: [r0, r1]
links:
  - {from: n0, to: r0}
  - {from: n1, to: r0}
  - {from: n0, to: r1}
  - {from: n1, to: r1}
  - {from: r0, to: r1}
"""
    write(tmp, "two-nic.yaml", two_nic)
    write(tmp, "one-nic.yaml", "\n".join(two_nic.split("\n")[:5]) + "\n")
    nic_extra = ", bandwidth: 10GB/s, latency: 100ns}\nplacement: {ranks_per_node: 2"
    crossed = write(tmp, "crossed.yaml", puts([(0, 2), (1, 3)], 100000))
    for contention in ("none", "endpoint", "links", "fair"):
        one_nic = write(tmp, "one-nic.model.yaml",
                        model("one-nic.yaml", contention, nic_extra) + "intra: same\n")
        two = write(tmp, "two-nic.model.yaml",
                    model("two-nic.yaml", contention, nic_extra) + "intra: same\n")
        got = makespan(crossed, "--model", two)
        check(f"two NICs per node, {contention}: 10200 ns", got == 10200, got)
        expect = 10200 if contention == "none" else 20200
        got = makespan(crossed, "--model", one_nic)
        check(f"one NIC per node, {contention}: {expect} ns", got == expect, got)
    two = write(tmp, "two-nic.model.yaml",
                model("two-nic.yaml", "links", nic_extra) + "intra: same\n")
    # The links: port 0 is n0's NIC 0 (links 0, 1), port 1 n1's NIC 0 (2, 3), port 2 n0's NIC
    # 1 (4, 5), port 3 n1's NIC 1 (6, 7), then r0 - r1 (8, 9); each put crosses its two.
    with tempfile.TemporaryDirectory() as out_dir:
        links_csv = os.path.join(out_dir, "links.csv")
        code, _, err = fennel("run", crossed, "--model", two, "--links", links_csv)
        rows = []
        if code == 0:
            with open(links_csv) as f:
                rows = [(r["link"], r["from"], r["to"], r["level"], r["messages"])
                        for r in csv.DictReader(f)]
        check("two NICs: the links CSV numbers each NIC's links",
              rows == [("0", "n0", "r0", "node", "1"), ("1", "r0", "n0", "node", "0"),
                       ("2", "n1", "r0", "node", "0"), ("3", "r0", "n1", "node", "1"),
                       ("4", "n0", "r1", "node", "1"), ("5", "r1", "n0", "node", "0"),
                       ("6", "n1", "r1", "node", "0"), ("7", "r1", "n1", "node", "1"),
                       ("8", "r0", "r1", "link", "0"), ("9", "r1", "r0", "link", "0")],
              rows or err)
    # Round robin: ranks 0 and 2 on n0 (places 0 and 1), 1 and 3 on n1: 0 -> 1 by NIC 0 and
    # 2 -> 3 by NIC 1 share nothing, 10200 ns.
    pairs_rr = write(tmp, "rr.yaml", puts([(0, 1), (2, 3)], 100000))
    got = makespan(pairs_rr, "--model", two, "--set", "order=round-robin")
    check("two NICs, round robin: places by rank / nodes, 10200 ns", got == 10200, got)
    # Four ranks per node, 4 -> 0 ... 7 -> 3 (from n1 to n0): places 0 and 2 use NIC 0, 1 and
    # 3 NIC 1, two puts per NIC: 200 + 2 x 10000 = 20200 ns under `links`.
    four = write(tmp, "four.yaml", puts([(4, 0), (5, 1), (6, 2), (7, 3)], 100000))
    got = makespan(four, "--model", two, "--set", "ranks_per_node=4")
    check("two NICs, four ranks a node: two puts a NIC, 20200 ns", got == 20200, got)
    # A slow NIC is the rank's own: rank 1's NIC at half speed slows 1 -> 3 only (200 +
    # 20000 = 20200 ns); 0 -> 2 keeps 10200 ns. A node's NIC fault takes all its NICs.
    ends = put_ends(tasks(crossed, "--model", two, "--set", "stragglers.ranks=1", "--set",
                          "stragglers.nic=2"))
    check("two NICs: a slow rank's NIC is its own", ends == {"p0": 10200.0, "p1": 20200.0},
          ends)
    got = makespan(crossed, "--model", two, "--set", "faults.list=n0>r1")
    check("two NICs: n0's second NIC down cuts 1 -> 3 off",
          isinstance(got, dict) and "'p1'" in got.get("error", "")
          and "(link 4, n0->r1, down from 0 ns)" in got.get("error", ""), got)
    got = makespan(crossed, "--model", two, "--set", "faults.list=node0")
    check("two NICs: node0's NIC fault takes both",
          isinstance(got, dict) and "cut off" in got.get("error", ""), got)

    # The command line: --set topology.file is read from the working directory.
    got = makespan(one, "--network", "postal", "--set", "topology.kind=graph", "--set",
                   f"topology.file={os.path.join(tmp, 'chain.yaml')}")
    check("--set topology.kind=graph --set topology.file=...: 20400 ns", got == 20400, got)

    # Errors at the graph file's line and column.
    def bad(name, text, message, contention="none", extra=""):
        graph = write(tmp, "bad.yaml", text)
        m = write(tmp, "bad.model.yaml", model("bad.yaml", contention, extra))
        expect_error(name, ["run", one, "--model", m], 1, message.replace("GRAPH", graph))

    bad("a link to an unknown switch", """nodes: [a, b]
switches: [s]
links:
  - {from: a, to: s}
  - {from: b, to: t}
""", "GRAPH:5:19: links.to: unknown node or switch 't'")
    bad("a name given twice", """nodes: [a, b]
switches: [a]
links: []
""", "GRAPH:2:12: a graph: 'a' is named twice (first at line 1, column 9)")
    bad("a node that cannot reach another", """nodes: [a, b]
switches: [s, t]
links:
  - {from: a, to: s}
  - {from: b, to: t}
""", "GRAPH:1:12: a graph: node 'b' cannot reach node 'a' (no path of links)")
    bad("a NIC that cannot reach another node", """nodes: [a, b]
switches: [s, t]
links:
  - {from: a, to: s}
  - {from: a, to: t}
  - {from: b, to: s}
""", "GRAPH:1:9: a graph: node 'a' (its NIC 1) cannot reach node 'b' (no path of links)")
    bad("a node with more links out than in", """nodes: [a, b]
switches: [s, t]
links:
  - {from: a, to: s}
  - {from: a, to: t, directed: true}
  - {from: b, to: s}
  - {from: t, to: s}
""", "GRAPH:1:9: a graph: node 'a' has 2 links to the network and 1 from it (a NIC is a link "
        "each way)")
    bad("a node without a link", """nodes: [a, b]
switches: [s]
links:
  - {from: a, to: s}
""", "GRAPH:1:12: a graph: node 'b' has no link to the network")
    bad("nodes without links, switches with some", """nodes: [a, b]
switches: [s, t]
links:
  - {from: s, to: t}
""", "GRAPH:1:9: a graph: node 'a' has no link to the network")
    bad("an unknown key of a link", """nodes: [a, b]
switches: [s]
links:
  - {from: a, to: s, speed: 1GB/s}
""", "GRAPH:4:22: links: unknown key 'speed' (a link has from, to, bandwidth, latency, "
        "directed)")
    ROUTED = """nodes: [a, b]
switches: [s, t, u]
links:
  - {from: a, to: s}
  - {from: b, to: u}
  - {from: s, to: t}
  - {from: t, to: u}
routes:
"""
    bad("a route to a switch no link reaches", ROUTED + "  - {at: s, to: b, next: u}\n",
        "GRAPH:9:26: routes.next: no link goes from 's' to 'u'")
    bad("a route at a node", ROUTED + "  - {at: a, to: b, next: s}\n",
        "GRAPH:9:10: routes.at: 'a' is not a switch")
    bad("a route to a switch", ROUTED + "  - {at: s, to: [b, t], next: t}\n",
        "GRAPH:9:21: routes.to: 't' is not a node")
    bad("routes that loop", ROUTED + "  - {at: t, to: b, next: s}\n",
        "GRAPH:2:12: routes: the routes to 'b' go round in a loop through 's'")
    bad("a second route at a switch to a node",
        ROUTED + "  - {at: t, to: b, next: u}\n  - {at: t, to: [a, b], next: u}\n",
        "GRAPH:10:21: routes: a second route at 't' to 'b'")
    # A route given for a node holds for each of its NICs: at r0 the messages for n1 go to
    # r1, and for n1's NIC 0 (on r0) r1's shortest way back is r0: a loop through r0.
    bad("a route for a node of two NICs that loops", two_nic + "routes:\n"
        "  - {at: r0, to: n1, next: r1}\n",
        "GRAPH:2:12: routes: the routes to 'n1' go round in a loop through 'r0'")
    # A route given in the file replaces the shortest: on the diamond, s0 sends node1's
    # messages by s1 (100 ns links): 200 + 1000 = 1200 ns instead of 3000 ns.
    with open(os.path.join(tmp, "diamond.yaml")) as f:
        text = f.read()
    write(tmp, "diamond.yaml", text + "routes:\n  - {at: s0, to: node1, next: s1}\n")
    ends = put_ends(tasks(both, "--model", diamond))
    check("a route given in the file: 1200 ns both ways", ends == {"p0": 1200.0, "p1": 1200.0},
          ends)
    m = write(tmp, "nofile.model.yaml", "fennel: 1\nnetwork: {model: postal}\n"
              "topology: {kind: graph}\ncontention: none\n")
    expect_error("a graph without its file", ["run", one, "--model", m], 1,
                 f"{m}:3:11: topology.file: missing (the graph file of a graph)")
    m = write(tmp, "switchfile.model.yaml", "fennel: 1\nnetwork: {model: postal}\n"
              "topology: {kind: switch, file: chain.yaml}\ncontention: none\n")
    expect_error("file is a key of kind graph", ["run", one, "--model", m], 1,
                 f"{m}:3:26: topology: 'file' is a key of kind graph, not of switch")

    # Adaptive routing on a graph, two switches of several ways in a row: s0 reaches s1 by
    # a0 or a1, s1 reaches s2 by b0, b1 or b2 (candidates in that order); n0 on s0, n1 on
    # s2, three ranks per node, puts of 1 B (a load to count) 0 -> 3, 1 -> 4, 2 -> 5 all
    # starting at 0, so that no message is through before the last is routed.
    # The destination is port 1: destination modulo takes a(1 mod 2) = a1 and b(1 mod 3) = b1
    # for all three. Adaptive: the first finds nothing loaded and takes a1, b1 (choice 1);
    # the second finds a1 loaded, a0 not, and b1 loaded, b2 (next from 1) not: a0, b2
    # (choice 2: 0 mod 2, 2 mod 3); the third finds a0 and a1 equal and takes a1 (the first
    # from destination modulo's), and b0, the one left (choice 3). So the links CSV counts
    # s0->a1 2 messages, s0->a0 1, and s1 to each b 1.
    write(tmp, "stages.yaml", """nodes: [n0, n1]
switches: [s0, a0, a1, s1, b0, b1, b2, s2]
links:
  - {from: n0, to: s0}
  - {from: n1, to: s2}
  - {from: s0, to: a0}
  - {from: s0, to: a1}
  - {from: a0, to: s1}
  - {from: a1, to: s1}
  - {from: s1, to: b0}
  - {from: s1, to: b1}
  - {from: s1, to: b2}
  - {from: b0, to: s2}
  - {from: b1, to: s2}
  - {from: b2, to: s2}
""")
    three = write(tmp, "three.yaml", puts([(0, 3), (1, 4), (2, 5)], 1))

    def crossings(routing):
        m = write(tmp, "stages.model.yaml",
                  model("stages.yaml", "links", f", routing: {routing}}}\n"
                        "placement: {ranks_per_node: 3") + "intra: same\n")
        with tempfile.TemporaryDirectory() as out_dir:
            path = os.path.join(out_dir, "links.csv")
            code, _, err = fennel("run", three, "--model", m, "--links", path)
            if code != 0:
                return err
            with open(path) as f:
                return {f"{r['from']}>{r['to']}": int(r["messages"]) for r in csv.DictReader(f)
                        if r["from"] in ("s0", "s1") and int(r["messages"]) > 0}

    got = crossings("destination-modulo")
    check("destination modulo on two stages: a1 and b1 three times",
          got == {"s0>a1": 3, "s1>b1": 3}, got)
    got = crossings("adaptive")
    check("adaptive on two stages: a1, b1; a0, b2; a1, b0",
          got == {"s0>a0": 1, "s0>a1": 2, "s1>b0": 1, "s1>b1": 1, "s1>b2": 1}, got)

finish()
