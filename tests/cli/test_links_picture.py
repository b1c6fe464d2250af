#!/usr/bin/env python3
"""The topology picture, `run --links-picture` (docs/TOPOLOGY.md, Seeing it): a two-level fat
tree and a 4x4 torus drawn after a program whose routes are derived by hand here, link by
link: every link's messages, bytes, busy time, utilisation, waits and colour in the SVG's
data attributes against what the routes imply, and each link drawn between its ends.

Usage: test_links_picture.py FENNEL SOURCE_ROOT. Prints TAP.
"""
import csv
import math
import os
import re
import tempfile

from harness import check, expect_error, fennel, finish

DATA = "tests/data/topology"
GROUP = re.compile(r'<g class="(link|vertex)" ([^>]*)>(.*?)</g>', re.S)
ATTR = re.compile(r'([a-z-]+)="([^"]*)"')
LINE = re.compile(r'<line x1="([-0-9.]+)" y1="([-0-9.]+)" x2="([-0-9.]+)" y2="([-0-9.]+)"')


def colour(u):
    """The documented ramp: #c6dbef at utilisation 0 to #08306b at 1, per channel."""
    lo, hi = 0xc6dbef, 0x08306b
    out = 0
    for shift in (16, 8, 0):
        a, b = (lo >> shift) & 0xff, (hi >> shift) & 0xff
        out |= int(a + (b - a) * min(max(u, 0.0), 1.0) + 0.5) << shift
    return f"#{out:06x}"


def picture(*args):
    """The links and vertices of the SVG `run --links-picture` draws, or the error."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "links.svg")
        code, _, err = fennel("run", *args, "--links-picture", path)
        if code != 0:
            return err, None
        with open(path) as f:
            svg = f.read()
    links, vertices = {}, {}
    for kind, attrs, body in GROUP.findall(svg):
        a = dict(ATTR.findall(attrs))
        if kind == "vertex":
            vertices[a["data-vertex"]] = (float(a["data-x"]), float(a["data-y"]))
        else:
            lines = [tuple(map(float, m)) for m in LINE.findall(body)]
            links[int(a["data-link"])] = (a, lines)
    return links, vertices


def compare(name, links, vertices, expect, makespan):
    """expect: link -> (from, to, messages, bytes, busy ns, wait ns)."""
    bad = []
    for number, (a, lines) in links.items():
        frm, to, messages, size, busy, wait = expect.get(
            number, (a["data-from"], a["data-to"], 0, 0, 0, 0))
        use = busy / makespan
        want = {"data-from": frm, "data-to": to, "data-messages": str(messages),
                "data-bytes": str(size), "data-busy-ns": f"{busy:g}",
                "data-wait-ns": f"{wait:g}",
                "data-colour": colour(use) if messages else "#bbbbbb"}
        got = {k: a[k] for k in want}
        if got != want or not math.isclose(float(a["data-utilisation"]), use, abs_tol=1e-6):
            bad.append((number, got, want, a["data-utilisation"], use))
            continue
        # drawn from its start to its end: the first segment starts nearer `from`
        (fx, fy), (tx, ty) = vertices[frm], vertices[to]
        x0, y0 = lines[0][0], lines[0][1]
        if math.hypot(x0 - fx, y0 - fy) >= math.hypot(x0 - tx, y0 - ty):
            bad.append((number, "drawn the wrong way", lines[0]))
    missing = set(expect) - set(links)
    check(name, not bad and not missing and links, (bad[:3], missing))


# A two-level fat tree of radix 8 with oversubscription 2 (4 nodes and u = 2 up-links per
# leaf; 100 ns, 10 GB/s links), 8 nodes: links 0-15 are the nodes' (2i up, 2i + 1 down),
# leaf l's up-link i is 16 + 2l + i, spine i's down-link to leaf l 20 + 2l + i
# (docs/TOPOLOGY.md, Link numbers, N = 8, L = 2). The shift i -> i + 4 mod 8 of 100000 B
# (10000 ns on any link): i's message goes up 2i, up leaf i / 4's up-link dst mod 2, down
# spine (dst mod 2)'s link to leaf dst / 4, down 2 dst + 1. So every node link and every
# leaf up-link and spine down-link carries two messages (20000 ns busy). Under `links` the
# two messages of an up-link reach it at 100 ns; the second waits until 10100 ns (10000 ns),
# reaches the spine's down-link at 10200 ns, when the first's transfer there (200-10200 ns)
# is over: no other wait. The makespan is 400 + 2 x 10000 = 20400 ns.
expect = {}


def add(link, frm, to, wait=0):
    old = expect.get(link, (frm, to, 0, 0, 0, 0))
    expect[link] = (frm, to, old[2] + 1, old[3] + 100000, old[4] + 10000, old[5] + wait)


for src in range(8):
    dst = (src + 4) % 8
    ls, ld, i = src // 4, dst // 4, dst % 2
    add(2 * src, f"node{src}", f"leaf{ls}")
    add(16 + 2 * ls + i, f"leaf{ls}", f"spine{i}")
    add(20 + 2 * ld + i, f"spine{i}", f"leaf{ld}")
    add(2 * dst + 1, f"leaf{ld}", f"node{dst}")
for l in range(2):
    for i in range(2):
        link = 16 + 2 * l + i
        frm, to, m, b, busy, _ = expect[link]
        expect[link] = (frm, to, m, b, busy, 10000)
links, vertices = picture(f"{DATA}/shift.yaml", "--model", f"{DATA}/fat-tree.model.yaml",
                          "--set", "topology.oversubscription=2")
check("fat tree: 24 links drawn", isinstance(links, dict) and len(links) == 24, links)
if isinstance(links, dict):
    compare("fat tree: every link's figures and colour as the routes imply", links, vertices,
            expect, 20400)
    check("fat tree: the spines above the leaves above the nodes",
          vertices["spine0"][1] < vertices["leaf0"][1] < vertices["node0"][1], vertices)

# A 4x4 torus, 10 GB/s links, 100 ns between routers and none to the nodes: node i on router
# i = x + 4y, links 0-31 the nodes', router r's positive and negative links in dimension 0
# 32 + 2r and 33 + 2r, in dimension 1 64 + 2r and 65 + 2r. Every rank puts 100000 B to
# (x + 2, y + 1): dimension 0 first, two hops the positive way (a tie goes positive), then
# one up. So router r's positive x link carries r's message and its left neighbour's, its
# positive y link the message of (x - 2, y). Under `links` r's own message takes its x link at
# 0 ns; its left neighbour's head reaches it at 100 ns and waits until 10000 ns (9900 ns);
# then it goes up at once: no other wait. The last tail: 10000 + 10000 + 100 + 100 = 20200 ns.
with tempfile.TemporaryDirectory() as tmp:
    model = os.path.join(tmp, "torus.model.yaml")
    with open(model, "w") as f:
        f.write("fennel: 1\nnetwork: {model: postal}\ntopology: {kind: torus, dims: [4, 4], "
                "bandwidth: 10GB/s, latency: 100ns, node: {latency: 0ns}}\n"
                "contention: links\n")
    program = os.path.join(tmp, "diagonal.yaml")
    lines = ["fennel: 1", "ranks: 16", "tasks:"]
    for r in range(16):
        x, y = r % 4, r // 4
        d = (x + 2) % 4 + 4 * ((y + 1) % 4)
        lines += [f"  - {{id: s{r}, rank: {r}, type: start}}",
                  f"  - {{id: p{r}, rank: {r}, type: put, to: {d}, size: 100000, "
                  f"after: [s{r}]}}"]
    with open(program, "w") as f:
        f.write("\n".join(lines) + "\n")
    expect = {}
    for r in range(16):
        x, y = r % 4, r // 4
        mid, corner = (x + 1) % 4 + 4 * y, (x + 2) % 4 + 4 * y
        d = (x + 2) % 4 + 4 * ((y + 1) % 4)
        add(2 * r, f"node{r}", f"router{r}")
        add(32 + 2 * r, f"router{r}", f"router{mid}")
        add(32 + 2 * mid, f"router{mid}", f"router{corner}", wait=9900)
        add(64 + 2 * corner, f"router{corner}", f"router{d}")
        add(2 * d + 1, f"router{d}", f"node{d}")
    links, vertices = picture(program, "--model", model)
    check("torus: 96 links drawn", isinstance(links, dict) and len(links) == 96, links)
    if isinstance(links, dict):
        compare("torus: every link's figures and colour as the routes imply", links, vertices,
                expect, 20200)
        check("torus: routers on a grid, dimension 0 across, 1 down",
              vertices["router1"][0] > vertices["router0"][0]
              and vertices["router1"][1] == vertices["router0"][1]
              and vertices["router4"][1] > vertices["router0"][1]
              and vertices["router4"][0] == vertices["router0"][0], vertices)
    # Every kind draws, and its links have the links CSV's figures: the kinds of
    # docs/TOPOLOGY.md with a ring allreduce of 16 ranks, under `links`.
    kinds = {
        "switch": ["--set", "topology.kind=switch"],
        "fat-tree, 3 levels": ["--set", "topology.kind=fat-tree", "--set", "topology.levels=3",
                               "--set", "topology.radix=4"],
        "torus 2x2x4": ["--set", "topology.dims=2x2x4"],
        "dragonfly": ["--set", "topology.kind=dragonfly", "--set", "topology.groups=4", "--set",
                      "topology.routers=2", "--set", "topology.nodes_per_router=2"],
        "dims": ["--set", "topology.kind=dims", "--set", "topology.dim0.size=4", "--set",
                 "topology.dim0.shape=switch", "--set", "topology.dim1.size=4", "--set",
                 "topology.dim1.shape=ring"],
        "rail": ["--set", "topology.kind=rail", "--set", "topology.gpus_per_node=4", "--set",
                 "topology.nics_per_node=2"],
        "graph": ["--set", "topology.kind=graph", "--set",
                  "topology.file=tests/data/topology/graph/fat-tree-r8-o2.yaml"],
    }
    ring = ["--generate", "allreduce-ring", "-n", "16", "--size", "100000"]
    for kind, sets in kinds.items():
        svg = os.path.join(tmp, "kind.svg")
        rows_csv = os.path.join(tmp, "kind.csv")
        code, _, err = fennel("run", *ring, "--model", model, *sets, "--links", rows_csv,
                              "--links-picture", svg)
        if code != 0:
            check(f"{kind}: drawn", False, err)
            continue
        with open(rows_csv) as f:
            rows = {int(r["link"]): r for r in csv.DictReader(f)}
        with open(svg) as f:
            drawn = {int(dict(ATTR.findall(a))["data-link"]): dict(ATTR.findall(a))
                     for k, a, _ in GROUP.findall(f.read()) if k == "link"}
        same = set(rows) == set(drawn) and all(
            (d["data-from"], d["data-to"], d["data-level"], d["data-messages"],
             d["data-bytes"], d["data-busy-ns"], d["data-wait-ns"])
            == (r["from"], r["to"], r["level"], r["messages"], r["bytes"], r["busy_ns"],
                r["wait_ns"]) and math.isclose(float(d["data-utilisation"]),
                                               float(r["utilisation"]), abs_tol=1e-6)
            for n, r in rows.items() for d in [drawn[n]])
        used = sum(1 for r in rows.values() if r["messages"] != "0")
        check(f"{kind}: every link drawn with the links CSV's figures ({used} used)",
              same and used > 0, (len(rows), len(drawn)))

    # PNG and PDF from the same drawing; errors before anything runs.
    for ext, magic in (("png", b"\x89PNG"), ("pdf", b"%PDF")):
        path = os.path.join(tmp, "links." + ext)
        code, _, err = fennel("run", program, "--model", model, "--links-picture", path)
        with open(path, "rb") if code == 0 else open(os.devnull, "rb") as f:
            head = f.read(4)
        check(f"--links-picture writes {ext}", code == 0 and head == magic, err)
    expect_error("an unknown picture format",
                 ["run", program, "--model", model, "--links-picture", "x.gif"], 2,
                 "run: --links-picture x.gif: unknown picture format (use .svg, .png or .pdf)")
    expect_error("a model without shared links",
                 ["run", program, "--model", model, "--set", "contention=none",
                  "--links-picture", os.path.join(tmp, "x.svg")], 2,
                 "--links-picture: the model shares no links (it needs a topology and "
                 "contention endpoint, links or fair)")

finish()
