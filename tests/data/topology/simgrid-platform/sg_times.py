#!/usr/bin/python3
"""SimGrid 3.32 side of README.md (not run by the tests). Usage: sg_times.py PLATFORM.xml
SRC>DST ...: a transfer of 100000 B from SRC to DST for each pair, all at time 0, with SimGrid
set up as a plain max-min flow model (CM02, no cross-traffic, no TCP window); prints when
each get ends, in ns."""
import sys
import simgrid
from simgrid import Actor, Engine, Mailbox, Host

e = Engine(["sg", "--cfg=network/model:CM02", "--cfg=network/crosstraffic:0",
            "--cfg=network/TCP-gamma:0", "--log=root.thres:critical"])
e.load_platform(sys.argv[1])
pairs = [tuple(x.split(">")) for x in sys.argv[2:]]
ends = {}

def sender(i, b):
    Mailbox.by_name(f"m{i}").put(i, b)

def receiver(i):
    Mailbox.by_name(f"m{i}").get()
    ends[i] = Engine.clock

for i, (s, d) in enumerate(pairs):
    Actor.create(f"s{i}", Host.by_name(s), sender, i, 100000)
    Actor.create(f"r{i}", Host.by_name(d), receiver, i)
e.run()
for i, p in enumerate(pairs):
    print(p, "%.3f" % (ends[i] * 1e9))
