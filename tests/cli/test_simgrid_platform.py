#!/usr/bin/env python3
"""SimGrid platform files as graph topologies (docs/TOPOLOGY.md, SimGrid platforms): times
derived by hand on platforms written for these tests (tests/data/topology/simgrid-platform,
whose README.md gives SimGrid 3.32's own times for the shared cases), a flat cluster
against the built-in switch it is, and the refusals with their FILE:LINE:COL."""
import os
import tempfile

from harness import check, expect_error, fennel, finish, puts, run_json, tasks, write

DATA = "tests/data/topology"
PLATFORMS = f"{DATA}/simgrid-platform"


def makespan(*args):
    out = run_json(*args)
    return out.get("makespan_ns", out)


def columns_of(csv_text):
    """(id, end_ns) of every put of a --tasks CSV, or the text (an error)."""
    rows = [line.split(",") for line in csv_text.splitlines()[1:]]
    if not csv_text.startswith("program"):
        return csv_text
    return [(r[1], r[7]) for r in rows if r[4] == "put"]


with tempfile.TemporaryDirectory() as tmp:
    full3 = f"{PLATFORMS}/full3.model.yaml"
    cluster4 = f"{PLATFORMS}/cluster4.model.yaml"

    # full3.xml: a, b, c each on a SPLITDUPLEX link of its own (la 10 GB/s 100 ns; lb 80
    # Gbit/s = 10 GB/s, 0.1 us; lc 5 GB/s, 2e-7 s = 200 ns), every route up the source's link
    # and down the destination's. A put of 100000 B from a to b: 100 + 100 ns and 100000 B at
    # 10 GB/s, 10000 ns: 10200 ns under every level.
    one = write(tmp, "one.yaml", puts([(0, 1)], 100000))
    for contention in ("none", "endpoint", "links", "fair"):
        got = makespan(one, "--model", full3, "--set", "contention=" + contention)
        check(f"full3, a to b alone, {contention}: 10200 ns", got == 10200, got)

    # a -> c and b -> c at once share lc's way down (5 GB/s). Alone each takes 300 ns and
    # 100000 B at 5 GB/s, 20000 ns: 20300 ns (`none`). Under `fair` each gets 2.5 GB/s:
    # 300 + 40000 = 40300 ns, SimGrid's 40300.000 ns for both (README.md). Under `links` and
    # `endpoint` (every link here is a host's) the second waits on lc's way down until the
    # first's 20000 ns are through (100 .. 20100 ns), then takes 20000 ns and 200 ns:
    # 40300 ns.
    two = write(tmp, "two.yaml", puts([(0, 2), (1, 2)], 100000))
    for contention, expect in (("none", 20300), ("endpoint", 40300), ("links", 40300),
                               ("fair", 40300)):
        got = makespan(two, "--model", full3, "--set", "contention=" + contention)
        check(f"full3, a and b to c, {contention}: {expect} ns", got == expect, got)

    # cluster4.xml: node-0 .. node-3 on private links of 10 GB/s and 100 ns, a SHARED
    # backbone of 10 GB/s and 50 ns that every route crosses. node-0 -> node-2 and node-1 ->
    # node-3 share only the backbone. Alone: 250 ns and 10000 ns of bytes, 10250 ns (`none`,
    # and `endpoint`, which shares the hosts' links only). Under `fair` each gets 5 GB/s of
    # the backbone: 250 + 20000 = 20250 ns, SimGrid's 20250.000 ns (README.md). Under `links`
    # the second's head reaches the backbone at 100 ns and waits until the first's transfer
    # there ends at 10100 ns: it ends on the backbone at 20100, tail 20150 there, and the
    # private link down adds 100 ns: 20250 ns.
    crossed = write(tmp, "crossed.yaml", puts([(0, 2), (1, 3)], 100000))
    for contention, expect in (("none", 10250), ("endpoint", 10250), ("links", 20250),
                               ("fair", 20250)):
        got = makespan(crossed, "--model", cluster4, "--set", "contention=" + contention)
        check(f"cluster4, 0 to 2 and 1 to 3, {contention}: {expect} ns", got == expect, got)

    # The links and vertices are named after the file's: a SPLITDUPLEX link's ways are
    # ID_UP and ID_DOWN, a switch after a link that ends there.
    path = os.path.join(tmp, "links.csv")
    code, _, err = fennel("run", crossed, "--model", cluster4, "--links", path)
    with open(path) as f:
        rows = [line.split(",")[:4] for line in f.read().splitlines()[1:]]
    check("cluster4: the links as the cluster makes them",
          code == 0 and rows[0] == ["0", "node-0", "c_backbone.start", "node"]
          and rows[1] == ["1", "c_backbone.end", "node-0", "node"]
          and ["8", "c_backbone.start", "c_backbone.end", "link"] in rows and len(rows) == 9,
          rows if code == 0 else err)

    # SHARED links crossed both ways: one resource for both directions, as in SimGrid.
    # full3-shared.xml is full3.xml with SHARED links. a -> b and b -> a at once both cross la
    # and lb (10 GB/s each): under `fair` 5 GB/s each, 200 + 20000 = 20200 ns, SimGrid's
    # 20200.000 ns for both (README.md); under `links` each link serves them in turn: the
    # first on la from 0, the second's head there at 100 ns (after lb), from 10000 ns: 10000 +
    # 10000 + 100 = 20100 ns for both (a on la first, b on lb first); under `none` and
    # `endpoint` (the hosts' own joints differ) nothing is shared: 10200 ns. a -> c alone:
    # 300 + 20000 = 20300 ns (SimGrid 20300.000). The cycle a -> b, b -> c, c -> a under
    # `fair`: lc (5 GB/s) is shared by b -> c and c -> a, 2.5 GB/s each: 300 + 40000 = 40300 ns
    # (SimGrid 40300.000); a -> b flows from 200 ns, alone until the others' 300 ns (1000 B at
    # 10 GB/s), then with what la and lb leave it, 7.5 GB/s: 300 + 99000 / 7.5 = 13500 ns
    # (SimGrid 13500.000).
    full3s = f"{PLATFORMS}/full3-shared.model.yaml"
    swap = write(tmp, "swap.yaml", puts([(0, 1), (1, 0)], 100000))
    for contention, expect in (("none", 10200), ("endpoint", 10200), ("links", 20100),
                               ("fair", 20200)):
        got = columns_of(tasks(swap, "--model", full3s, "--set", "contention=" + contention))
        check(f"full3-shared, a to b and b to a, {contention}: {expect} ns each",
              got == [("p0", str(expect)), ("p1", str(expect))], got)
    ac = write(tmp, "ac.yaml", puts([(0, 2)], 100000))
    got = makespan(ac, "--model", full3s)
    check("full3-shared, a to c alone: 20300 ns", got == 20300, got)
    cycle = write(tmp, "cycle.yaml", puts([(0, 1), (1, 2), (2, 0)], 100000))
    got = columns_of(tasks(cycle, "--model", full3s))
    check("full3-shared, the cycle under fair: 13500, 40300 and 40300 ns",
          got == [("p0", "13500"), ("p1", "40300"), ("p2", "40300")], got)
    # b -> a (lb then la, 200 ns) and c -> a (lc then la, 300 ns) share la: b's flow alone
    # from 200 to 300 ns (1000 B at 10 GB/s), then 5 GB/s each (lc allows c 5 GB/s): b ends
    # at 300 + 99000 / 5 = 20100 ns, c at 300 + 20000 = 20300 ns. (SimGrid's CM02 weighs the
    # flows by their routes' latencies: 16800 and 23600 ns, README.md.)
    into_a = write(tmp, "into_a.yaml", puts([(1, 0), (2, 0)], 100000))
    got = columns_of(tasks(into_a, "--model", full3s))
    check("full3-shared, b and c to a under fair: 20100 and 20300 ns",
          got == [("p0", "20100"), ("p1", "20300")], got)
    # cluster4-shared.xml: cluster4.xml with SHARED private links. node-0 -> node-1 and
    # node-1 -> node-0 share both private links and the backbone, node-0 -> node-2 and node-1
    # -> node-3 the backbone only, node-0 -> node-1 and node-2 -> node-0 node-0's link: each
    # pair at 5 GB/s under `fair`, 250 + 20000 = 20250 ns, SimGrid's 20250.000 for all six.
    for pair in ([(0, 1), (1, 0)], [(0, 2), (1, 3)], [(0, 1), (2, 0)]):
        program = write(tmp, "pair.yaml", puts(pair, 100000))
        got = makespan(program, "--model", f"{PLATFORMS}/cluster4-shared.model.yaml")
        check(f"cluster4-shared, {pair} under fair: 20250 ns", got == 20250, got)

    # A flat cluster without a backbone is a switch: cluster8.xml (eight hosts on 10 GB/s,
    # 500 ns private links) gives every task the times of kind switch with 10 GB/s and
    # 500 ns links (tests/data/topology/switch.model.yaml), under every level.
    for contention in ("none", "endpoint", "links", "fair"):
        for program in ([f"{DATA}/incast.yaml"], [f"{DATA}/shift.yaml"],
                        ["--generate", "alltoall-pairwise", "-n", "8", "--size", "100000"],
                        ["--generate", "allreduce-rd", "-n", "8", "--size", "100000"]):
            level = ["--set", "contention=" + contention]
            a = tasks(*program, "--model", f"{DATA}/switch.model.yaml", "--set",
                      "topology.nodes=8", *level)
            b = tasks(*program, "--model", f"{PLATFORMS}/cluster8.model.yaml", *level)
            name = program[-1] if len(program) == 1 else program[1]
            check(f"{name}, {contention}: cluster8 gives the switch's times",
                  a == b and a.count("\n") > 2, f"{a}\n---\n{b}")

    # Refusals, each at the element that holds it.
    def platform(name, body, version="4.1"):
        write(tmp, name, f'<?xml version="1.0"?>\n<platform version="{version}">\n{body}'
                         "</platform>\n")
        return write(tmp, name + ".model.yaml",
                     f"fennel: 1\nnetwork: {{model: postal}}\n"
                     f"topology: {{kind: graph, file: {name}}}\ncontention: fair\n")

    def refused(what, name, body, message, version="4.1"):
        m = platform(name, body, version)
        expect_error(what, ["run", one, "--model", m], 1,
                     f"{os.path.join(tmp, name)}:{message}")

    hosts = '  <zone id="z" routing="Full">\n    <host id="a"/>\n    <host id="b"/>\n'
    refused("another version", "v.xml", "", "2:1: <platform>: version '4' is not read "
            "(version 4.1 is)", version="4")
    refused("routing Floyd", "floyd.xml", '  <zone id="z" routing="Floyd">\n  </zone>\n',
            "3:3: <zone>: routing 'Floyd' is not read (routing=\"Full\" is: every route given)")
    refused("a router", "router.xml", hosts + '    <router id="r"/>\n  </zone>\n',
            "6:5: <router> is not read in a zone (<host>, <link>, <route> and <prop> are)")
    refused("a FATPIPE link", "fatpipe.xml",
            hosts + '    <link id="l" bandwidth="1GBps" sharing_policy="FATPIPE"/>\n  </zone>\n',
            "6:5: <link>: sharing policy 'FATPIPE' is not read (SHARED and SPLITDUPLEX are: "
            "a FATPIPE link shares nothing, which fennel's links do not model)")
    refused("a bandwidth without a unit this reads", "unit.xml",
            hosts + '    <link id="l" bandwidth="1TiBps"/>\n  </zone>\n',
            "6:5: <link> bandwidth: '1TiBps' is not a bandwidth this reads (a number and Bps, "
            "kBps, MBps, GBps, TBps, KiBps, MiBps, GiBps, bps, kbps, Mbps, Gbps or Tbps)")
    # A SHARED link crossed both ways by a symmetrical route is read (above); a SPLITDUPLEX
    # link's direction that two hosts would leave by is not.
    shared = (hosts + '    <link id="la" bandwidth="1GBps"/>\n    <link id="lb" '
              'bandwidth="1GBps"/>\n    <route src="a" dst="b"><link_ctn id="la"/>'
              '<link_ctn id="lb"/></route>\n  </zone>\n')
    model = platform("shared.xml", shared)
    code, _, err = fennel("run", one, "--model", model)
    check("a SHARED link both ways is read", code == 0, err)
    split = "".join(f'    <link id="{x}" bandwidth="1GBps" sharing_policy="SPLITDUPLEX"/>\n'
                    for x in "lmn")
    refused("a SPLITDUPLEX direction two hosts leave by", "split.xml",
            hosts + '    <host id="c"/>\n' + split +
            '    <route src="a" dst="b"><link_ctn id="l" direction="UP"/>'
            '<link_ctn id="m" direction="DOWN"/></route>\n'
            '    <route src="c" dst="b"><link_ctn id="l" direction="UP"/>'
            '<link_ctn id="m" direction="DOWN"/></route>\n'
            '    <route src="a" dst="c"><link_ctn id="n" direction="UP"/>'
            '<link_ctn id="m" direction="DOWN"/></route>\n  </zone>\n',
            "11:5: <route>: from 'c' to 'b': link 'l_UP' would start at both 'c' and 'a' (a "
            "SPLITDUPLEX link's direction leads from one point to one other here; a SHARED "
            "link may be crossed both ways)")
    refused("a pair without a route", "missing.xml",
            shared.replace('dst="b">', 'dst="b" symmetrical="NO">'),
            "3:3: <zone>: no route from 'b' to 'a' (every pair of hosts needs one, or its way "
            "back with symmetrical=\"YES\")")
    refused("a route of one link between hosts", "direct.xml",
            hosts + '    <link id="l" bandwidth="1GBps" sharing_policy="SPLITDUPLEX"/>\n'
            '    <route src="a" dst="b"><link_ctn id="l" direction="UP"/></route>\n'
            '  </zone>\n',
            "6:5: <link>: 'l_UP' joins hosts 'a' and 'b' directly (a route of one link; "
            "fennel's nodes reach each other through a switch)")
    refused("malformed XML", "broken.xml", hosts,
            "6:12: XML: Element “platform” was closed, but the currently open element is "
            "“zone”")

finish()
