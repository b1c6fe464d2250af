#!/usr/bin/env python3
"""Seeded random LogGOPSim GOAL programs, for the oracle of tests/data/goal/random (its
README says how LogGOPSim's times for them were measured; tests/cli/test_loggopsim_random.py
checks fennel against them).

`program(seed)` returns (parameter set, GOAL text); the same seed gives the same text on any
machine (Python's random.Random with an integer seed is stable across versions and
platforms). A program is built as one global sequence of steps, each a calc on one rank or
a message (a send on its source, the matching recv on its destination); an operation
depends (requires or irequires) only on operations of its rank made in earlier steps, so
the sequence is an order in which everything can run. What the program uses:

- 2 to 16 ranks (LogGOPSim prints every host's finish time up to 16);
- send and recv with tags (written or left to the default 0), `nic 0` now and then;
- receives from any source (`from -1`) and of any tag (`tag -1`): a rank's receives are
  all specific, all of any source, all of any tag or all of both, and the messages one
  of its receives can match all have its size (LogGOPSim does not compare sizes);
- calc of 0 to 6000 ns;
- requires and irequires between operations of a rank (irequires: nonblocking);
- sizes in every LogGP segment: 1 byte (no per-byte cost), small, up to the rendezvous
  threshold S, exactly S (the largest eager message), S + 1 and larger (rendezvous);
- one CPU, or two or three (`cpu C`).

Receives a rank may match against the same messages (a class: one source and tag, or all
sources, or all tags, as the rank receives) are chained, each irequires or requires the one
before it in the order of the steps, and so are the sends of one rank to one class, so that
LogGOPSim's first-posted, first-matched rule pairs them as the steps did. A class whose
messages come from several ranks (any source) can still pair a message with a later
receive; when that message is a rendezvous one, its send waits for that receive and the
program may deadlock (LogGOPSim then prints no times, and fennel names what never ran).

With several CPUs, an operation depends only on operations of its own CPU, and each class's
receives run on one CPU. LogGOPSim releases the dependents of a calc and of an eager send
when it starts, and those of a receive when its message arrives, and queues each at its
own CPU's free time, which on another CPU can be before the event that released it;
fennel waits for the end (docs/SEMANTICS.md, Network tasks). On the same CPU the two agree.
A crossed class has its messages sent from any CPU, and LogGOPSim charges a message's
receive to the CPU number of its sender (fennel does the same); its receives are then
depended on only by the next of the class, through irequires, and its messages are eager
(LogGOPSim completes a rendezvous send found in the unexpected queue on the receiver's CPU
number, fennel on the sender's own).

Seeds from BULK (1000) on make programs whose receives are posted at once: 6 to 16 ranks,
one CPU, 16 to 28 steps a rank, receives depending only on the previous one of their class
and each rank's sends and calcs chained in the order of the steps, so that a rank starts
with most of its receives ready together (more than 16 on some rank in 262 of seeds 1000 to
1299: LogGOPSim sorts those with an unstable sort, fennel splits them in one pass).

Usage: goal_random.py SEED [FILE]: writes the program (to stdout without FILE) and prints
its parameter set's LogGOPSim options to stderr.
"""
import random
import sys

# LogGP parameter sets (LogGOPSim's -L -o -g -G -O -S, in ns, ns/B and B). A is LogGOPSim's
# default; A to D are those of tests/data/goal/schedgen/README.md.
PARAMS = {
    "A": dict(L=2500, o=1500, g=1000, G=6, O=0, S=65535),
    "B": dict(L=1000, o=200, g=300, G=1, O=0, S=256),
    "C": dict(L=3000, o=500, g=2000, G=0, O=2, S=65535),
    "D": dict(L=100, o=1000, g=100, G=10, O=1, S=1024),
    "E": dict(L=700, o=50, g=900, G=3, O=1, S=4096),
    "F": dict(L=0, o=300, g=0, G=2, O=3, S=100),
    "G": dict(L=5000, o=10, g=10, G=1, O=0, S=16),
}
SETS = sorted(PARAMS)
BULK = 1000  # seeds from here on make programs of many receives posted at once


def loggopsim_options(name):
    """The LogGOPSim command-line options of a parameter set."""
    p = PARAMS[name]
    return ["-L", str(p["L"]), "-o", str(p["o"]), "-g", str(p["g"]), "-G", str(p["G"]),
            "-O", str(p["O"]), "-S", str(p["S"])]


def _size(rng, S):
    kind = rng.randrange(6)
    if kind == 0:
        return 1
    if kind == 1:
        return rng.randint(2, min(256, S))
    if kind == 2:
        return rng.randint(2, S)
    if kind == 3:
        return S
    if kind == 4:
        return S + 1
    return rng.randint(S + 2, min(3 * S, 200000))


class _Op:
    def __init__(self, text, cpu, cross=False):
        self.text, self.cpu, self.cross = text, cpu, cross
        self.deps = []  # (verb, index of an earlier operation of the rank)


def program(seed):
    """(parameter set name, GOAL text) of the program of `seed`."""
    rng = random.Random(seed)
    pname = SETS[seed % len(SETS)]
    S = PARAMS[pname]["S"]
    bulk = seed >= BULK
    if bulk:
        nranks = rng.randint(6, 16)
        ncpus = 1
        steps = rng.randint(16 * nranks, 28 * nranks)
        ntags = 4
        mode = [rng.choice((0, 0, 2)) for _ in range(nranks)]
    else:
        nranks = rng.randint(2, 16)
        ncpus = rng.choice((1, 1, 1, 2, 3))
        steps = rng.randint(nranks, 5 * nranks + 10)
        ntags = rng.choice((1, 2, 4))
        # How each rank receives: 0 specific, 1 any source, 2 any tag, 3 both.
        mode = [rng.choice((0, 0, 1, 2, 3)) for _ in range(nranks)]
    last_local = {}  # bulk: rank -> index of its last send or calc
    ops = [[] for _ in range(nranks)]
    sizes = {}  # the size of the messages of one class of receives
    last_recv = {}  # class -> index of the last recv of that class on its rank
    last_send = {}  # (source, class) -> index of the last send to that class
    rcpu, cross, scpu = {}, {}, {}  # a class's CPU, whether crossed, a sender's CPU for it

    def klass(src, dst, tag):
        return (dst, src if mode[dst] in (0, 2) else None, tag if mode[dst] in (0, 1) else None)

    def add(rank, op, chain=None, local=False):
        ops_r = ops[rank]
        index = len(ops_r)
        if bulk and local and rank in last_local:
            op.deps.append(("irequires" if rng.random() < 0.5 else "requires", last_local[rank]))
        if bulk and local:
            last_local[rank] = index
        if ops_r and not (bulk and not local):
            for _ in range(rng.choice((0, 0, 1, 1, 2, 3))):
                j = rng.randrange(index)
                # Only on the same CPU, and not on a receive charged to another CPU (see
                # the module's comment).
                if ops_r[j].cpu != op.cpu or ops_r[j].cross:
                    continue
                verb = "irequires" if rng.random() < 0.3 else "requires"
                if all(d[1] != j for d in op.deps):
                    op.deps.append((verb, j))
        if chain is not None and all(d[1] != chain for d in op.deps):
            verb = "irequires" if op.cross or rng.random() < 0.6 else "requires"
            op.deps.append((verb, chain))
        ops_r.append(op)
        return index

    def fields(tag, cpu, may_omit_tag=True):
        text = ""
        if tag != 0 or not may_omit_tag or rng.random() < 0.5:
            text += f" tag {tag}"
        if cpu != 0 or (ncpus > 1 and rng.random() < 0.5):
            text += f" cpu {cpu}"
        if rng.random() < 0.1:
            text += " nic 0"
        return text

    for _ in range(steps):
        if rng.random() < 0.25:
            rank = rng.randrange(nranks)
            cpu = rng.randrange(ncpus)
            duration = rng.choice((0, rng.randint(1, 200), rng.randint(1, 6000)))
            add(rank, _Op(f"calc {duration}" + (f" cpu {cpu}" if cpu or rng.random() < 0.2
                                                  else ""), cpu), local=True)
            continue
        src = rng.randrange(nranks)
        dst = rng.randrange(nranks - 1)
        dst += dst >= src
        tag = rng.randrange(ntags) * rng.choice((1, 1, 7, 1000))
        k = klass(src, dst, tag)
        if k not in sizes:
            # A class's receives run on one CPU; with several CPUs, a class may be crossed:
            # its messages sent from other CPUs (so received on the sender's CPU number).
            rcpu[k] = rng.randrange(ncpus)
            cross[k] = ncpus > 1 and rng.random() < 0.3
            sizes[k] = _size(rng, S)
            while cross[k] and sizes[k] > S:
                sizes[k] = _size(rng, S)
        size = sizes[k]
        if (src, k) not in scpu:
            scpu[(src, k)] = rng.randrange(ncpus) if cross[k] else rcpu[k]
        c = scpu[(src, k)]
        last_send[(src, k)] = add(src, _Op(f"send {size}b to {dst}" + fields(tag, c), c),
                                  last_send.get((src, k)), local=True)
        rfrom = -1 if mode[dst] in (1, 3) else src
        rtag = -1 if mode[dst] in (2, 3) else tag
        last_recv[k] = add(dst, _Op(f"recv {size}b from {rfrom}" + fields(rtag, rcpu[k]),
                                    rcpu[k], cross[k]), last_recv.get(k))

    lines = [f"// fennel tests/cli/goal_random.py seed {seed}, parameter set {pname}",
             f"num_ranks {nranks}"]
    for rank, ops_r in enumerate(ops):
        lines.append("")
        lines.append(f"rank {rank} {{")
        for i, op in enumerate(ops_r):
            lines.append(f"l{i}: {op.text}")
        for i, op in enumerate(ops_r):
            for verb, j in op.deps:
                lines.append(f"l{i} {verb} l{j}")
        lines.append("}")
    return pname, "\n".join(lines) + "\n"


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: goal_random.py SEED [FILE]")
    name, text = program(int(sys.argv[1]))
    if len(sys.argv) == 3:
        with open(sys.argv[2], "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    print(" ".join(loggopsim_options(name)), file=sys.stderr)
