#!/usr/bin/env python3
"""Writes the graph files of this folder: fennel's built-in kinds written out as graphs
(docs/TOPOLOGY.md, Graphs), by the numbering and routing rules of docs/TOPOLOGY.md, Kinds
and routes. Run it here: python3 write.py."""


def names(prefix, count):
    return [f"{prefix}{i}" for i in range(count)]


def listing(items):
    return "[" + ", ".join(items) + "]"


def write(path, comment, nodes, switches, links, routes=()):
    lines = [f"# {line}" for line in comment.strip().split("\n")]
    lines += [f"nodes: {listing(nodes)}", f"switches: {listing(switches)}", "links:"]
    lines += [f"  - {{{link}}}" for link in links]
    if routes:
        lines.append("routes:")
        grouped = {}
        for at, to, nxt in routes:
            grouped.setdefault((at, nxt), []).append(to)
        for (at, nxt), tos in grouped.items():
            lines.append(f"  - {{at: {at}, to: {listing(tos)}, next: {nxt}}}")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


# kind switch: every node on one switch.
write("switch8.yaml", """kind: switch written out as a graph: 8 nodes on one switch, every link with the
topology section's bandwidth and latency (docs/TOPOLOGY.md, Graphs).""",
      names("node", 8), ["switch"], [f"from: node{i}, to: switch" for i in range(8)])

# kind fat-tree, two levels, radix 8, oversubscription 2, 16 nodes: 4 nodes per leaf, leaf
# l's up-link i to spine i (i < 2). Listed in spine order, a leaf's candidate i is spine i,
# so that destination modulo and ECMP pick the fat tree's spine: no routes needed.
link = "bandwidth: 10GB/s, latency: 100ns"
write("fat-tree-r8-o2.yaml", """kind: fat-tree (levels 2, radix 8, oversubscription 2) for 16 nodes written out as a
graph: 4 leaves of 4 nodes, leaf l's up-link i to spine i, listed in spine order so
that a leaf's candidate i is spine i and destination modulo picks spine dst mod 2,
as the fat tree does (docs/TOPOLOGY.md, Graphs). Every link 100 ns, 10 GB/s.""",
      names("node", 16), names("leaf", 4) + names("spine", 2),
      [f"from: node{i}, to: leaf{i // 4}, {link}" for i in range(16)] +
      [f"from: leaf{l}, to: spine{s}, {link}" for l in range(4) for s in range(2)])

# kind fat-tree, three levels, radix 4, oversubscription 1, 16 nodes: 2 nodes per leaf, 8
# leaves in 4 pods of 2, aggregation switch (p, i) = agg(2p + i) above pod p's leaves, core
# (i, j) = core(2i + j) above every pod's aggregation switch i. The leaves' candidates are
# their up-links in order (dst mod 2, as the tree); an aggregation switch takes core
# (dst / 2) mod 2 towards another pod, which the routes give.
nodes, leaves, pods, u, c = 16, 8, 4, 2, 2
links = [f"from: node{i}, to: leaf{i // 2}" for i in range(nodes)]
links += [f"from: leaf{l}, to: agg{(l // c) * u + i}" for l in range(leaves) for i in range(u)]
links += [f"from: agg{a}, to: core{(a % u) * c + j}" for a in range(pods * u) for j in range(c)]
routes = [(f"agg{a}", f"node{d}", f"core{(a % u) * c + (d // u) % c}")
          for a in range(pods * u) for d in range(nodes) if (d // 2) // c != a // u]
write("fat-tree-3.yaml", """kind: fat-tree (levels 3, radix 4, oversubscription 1) for 16 nodes written out as a
graph: 8 leaves of 2 nodes in 4 pods, aggregation switch i of pod p is agg(2p + i), core
(i, j) is core(2i + j). Routes: an aggregation switch sends a message for another pod to
core j = (dst / 2) mod 2, as the fat tree's destination modulo does.""",
      names("node", nodes), names("leaf", leaves) + names("agg", pods * u) + names("core", u * c),
      links, routes)

# kind torus 4x4: router r = x + 4y of node r, a duplex link to its positive neighbour in
# each dimension; the routes are dimension order, the shorter way, positive on a tie.
X = Y = 4
links = [f"from: node{i}, to: router{i}, latency: 0ns" for i in range(X * Y)]
for r in range(X * Y):
    x, y = r % X, r // X
    links.append(f"from: router{r}, to: router{(x + 1) % X + X * y}")
    links.append(f"from: router{r}, to: router{x + X * ((y + 1) % Y)}")
routes = []
for r in range(X * Y):
    for d in range(X * Y):
        x, y, dx, dy = r % X, r // X, d % X, d // X
        if x != dx:
            ahead = (dx - x) % X
            step = 1 if ahead <= X - ahead else -1
            nxt = f"router{(x + step) % X + X * y}"
        elif y != dy:
            ahead = (dy - y) % Y
            step = 1 if ahead <= Y - ahead else -1
            nxt = f"router{x + X * ((y + step) % Y)}"
        else:
            nxt = f"node{d}"
        routes.append((f"router{r}", f"node{d}", nxt))
write("torus4x4.yaml", """kind: torus (dims 4x4) written out as a graph: router r = x + 4y of node r, its node
link without latency, a full-duplex link to its positive neighbour in each dimension.
Routes: dimension order, dimension 0 first, the shorter way round, positive on a tie.""",
      names("node", 16), names("router", 16), links, routes)
