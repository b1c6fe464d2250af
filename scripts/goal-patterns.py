#!/usr/bin/env python3
"""Write GOAL schedules in the shape LogGOPSim's schedule generator (Schedgen) writes them,
for benchmarks of GOAL reading and simulation (scripts/bench.sh goal):

  goal-patterns.py dissemination RANKS OUT.goal
      a dissemination barrier: ceil(log2 p) rounds; in round k every rank sends 1 byte to
      rank + 2^k and receives from rank - 2^k, both after its receive of round k - 1.
  goal-patterns.py ring RANKS BYTES OUT.goal
      a ring allreduce of BYTES: 2(p - 1) steps with a tag of their own; in each step every
      rank sends BYTES / p to rank + 1 after its receive of the previous step, and receives
      from rank - 1; the receives depend on nothing, so all are posted at the start (the
      reduction is not modelled, as in Schedgen's ring).

Labels are l1, l2, ... per rank and dependencies `lA requires lB`, as Schedgen writes.
"""
import sys


def write_rank(out, rank, ops, deps):
    out.write("rank %d {\n" % rank)
    for i, op in enumerate(ops, 1):
        out.write("l%d: %s\n" % (i, op))
    for a, b in deps:
        out.write("l%d requires l%d\n" % (a, b))
    out.write("}\n\n")


def dissemination(p, out):
    rounds = max(1, (p - 1).bit_length())
    out.write("num_ranks %d\n\n" % p)
    for r in range(p):
        ops, deps = [], []
        prev_recv = None
        for k in range(rounds):
            d = 1 << k
            ops.append("send 1b to %d tag %d" % ((r + d) % p, k))
            ops.append("recv 1b from %d tag %d" % ((r - d) % p, k))
            send, recv = len(ops) - 1, len(ops)
            if prev_recv is not None:
                deps += [(send, prev_recv), (recv, prev_recv)]
            prev_recv = recv
        write_rank(out, r, ops, deps)


def ring(p, size, out):
    chunk = max(1, size // p)
    out.write("num_ranks %d\n\n" % p)
    for r in range(p):
        ops, deps = [], []
        prev_recv = None
        for s in range(2 * (p - 1)):
            ops.append("send %db to %d tag %d" % (chunk, (r + 1) % p, s))
            ops.append("recv %db from %d tag %d" % (chunk, (r - 1) % p, s))
            send, recv = len(ops) - 1, len(ops)
            if prev_recv is not None:
                deps.append((send, prev_recv))
            prev_recv = recv
        write_rank(out, r, ops, deps)


def main():
    args = sys.argv[1:]
    if len(args) == 3 and args[0] == "dissemination":
        with open(args[2], "w") as out:
            dissemination(int(args[1]), out)
    elif len(args) == 4 and args[0] == "ring":
        with open(args[3], "w") as out:
            ring(int(args[1]), int(args[2]), out)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
