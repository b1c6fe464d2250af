#!/usr/bin/python3
"""SimGrid 3.32 side of the fair-contention comparison (README.md; not run by the tests).
Usage: sg.py CASES.json OUT.csv. Each case: name, kind (switch|fat-tree|torus), params,
latency_ns, bandwidth_Bps, transfers [[src,dst,bytes],...]; routes follow fennel's rules
(docs/TOPOLOGY.md) and are given to SimGrid explicitly; CM02, no cross-traffic, no TCP cap."""
import json
import sys

import simgrid
from simgrid import Actor, Engine, Mailbox, LinkInRoute

cases = json.load(open(sys.argv[1]))
case = cases[int(sys.argv[3])]


def routes(case):
    """fennel's routing (docs/TOPOLOGY.md): lists of directed link names."""
    kind = case["kind"]
    n = case["nodes"]
    def route(s, d):
        if kind == "switch":
            return [f"up{s}", f"down{d}"]
        if kind == "fat-tree":
            k, r = case["radix"], case["oversubscription"]
            dn, u = k // 2, k // 2 // r
            ls, ld = s // dn, d // dn
            if ls == ld:
                return [f"up{s}", f"down{d}"]
            i = d % u
            return [f"up{s}", f"leaf{ls}-spine{i}", f"spine{i}-leaf{ld}", f"down{d}"]
        if kind == "torus":
            dims = case["dims"]
            links = [f"up{s}"]
            cur = s
            stride = 1
            for X in dims:
                while (cur // stride) % X != (d // stride) % X:
                    c = (cur // stride) % X
                    ahead = ((d // stride) % X - c) % X
                    step = 1 if ahead <= X - ahead else -1
                    nxt = cur - c * stride + ((c + step) % X) * stride
                    links.append(f"r{cur}-r{nxt}{'+' if step > 0 else '-'}")
                    cur = nxt
                stride *= X
            links.append(f"down{d}")
            return links
    return route


e = Engine(["sg", "--cfg=network/model:CM02", "--cfg=network/crosstraffic:0",
            "--cfg=network/TCP-gamma:0", "--log=root.thres:critical"])
zone = simgrid.NetZone.create_full_zone("net")
hosts = [zone.create_host(f"n{i}", 1e9) for i in range(case["nodes"])]
route = routes(case)
links = {}
def link(name):
    if name not in links:
        l = zone.create_link(name, case["bandwidth_Bps"])
        # fennel: a torus node's links to its own router have no latency by default.
        direct = case["kind"] == "torus" and (name.startswith("up") or name.startswith("down"))
        l.set_latency(0 if direct else case["latency_ns"] * 1e-9)
        l.seal()
        links[name] = l
    return links[name]
pairs = {(s, d) for s, d, _ in case["transfers"]}
for s, d in pairs:
    zone.add_route(hosts[s].netpoint, hosts[d].netpoint, None, None,
                   [LinkInRoute(link(x)) for x in route(s, d)], False)
zone.seal()
ends = {}


def sender(i, b):
    Mailbox.by_name(f"m{i}").put(i, b)


def receiver(i):
    Mailbox.by_name(f"m{i}").get()
    ends[i] = Engine.clock


for i, (s, d, b) in enumerate(case["transfers"]):
    Actor.create(f"s{i}", hosts[s], sender, i, b)
    Actor.create(f"r{i}", hosts[d], receiver, i)
e.run()
with open(sys.argv[2], "a") as out:
    for i in range(len(case["transfers"])):
        out.write(f"{case['name']},{i},{ends[i] * 1e9:.3f}\n")
