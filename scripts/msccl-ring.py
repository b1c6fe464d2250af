#!/usr/bin/env python3
"""Writes an MSCCL algorithm XML for a ring collective on N GPUs (one thread block per
GPU, one chunk per GPU, channel 0), following the element and step definitions of the
MSCCL runtime (docs/FORMATS.md). Used for tests/data/msccl and the benchmarks.

usage: msccl-ring.py allreduce|allgather|reducescatter N > FILE.xml
"""
import sys


def step(out, s, kind, srcbuf, srcoff, dstbuf, dstoff):
    out.append(f'      <step s="{s}" type="{kind}" srcbuf="{srcbuf}" srcoff="{srcoff}" '
               f'dstbuf="{dstbuf}" dstoff="{dstoff}" cnt="1" depid="-1" deps="-1" hasdep="0"/>')


def ring(coll, p):
    inplace = 1 if coll == "allreduce" else 0
    out = [f'<algo name="{coll}_ring_{p}" proto="Simple" nchannels="1" nchunksperloop="{p}" '
           f'ngpus="{p}" coll="{coll}" inplace="{inplace}" outofplace="{1 - inplace}">']
    for g in range(p):
        i, o = {"allreduce": (p, 0), "allgather": (1, p), "reducescatter": (p, 1)}[coll]
        out.append(f'  <gpu id="{g}" i_chunks="{i}" o_chunks="{o}" s_chunks="0">')
        out.append(f'    <tb id="0" send="{(g + 1) % p}" recv="{(g - 1) % p}" chan="0">')
        s = 0
        if coll == "allreduce":
            # Step k receives chunk g - k: reduce and pass on for p - 1 steps (the last
            # one writes the result), then pass the results around.
            step(out, s, "s", "i", g, "i", g); s += 1
            for k in range(1, 2 * p - 1):
                c = (g - k) % p
                kind = "rrs" if k < p - 1 else "rrcs" if k == p - 1 else "rcs" if k < 2 * p - 2 else "r"
                step(out, s, kind, "i", c, "i", c); s += 1
        elif coll == "allgather":
            step(out, s, "cpy", "i", 0, "o", g); s += 1
            step(out, s, "s", "o", g, "o", g); s += 1
            for k in range(1, p):
                c = (g - k) % p
                step(out, s, "rcs" if k < p - 1 else "r", "o", c, "o", c); s += 1
        else:
            # Start with chunk g - 1 so that chunk g is complete on GPU g.
            step(out, s, "s", "i", (g - 1) % p, "i", (g - 1) % p); s += 1
            for k in range(1, p):
                c = (g - 1 - k) % p
                if k < p - 1:
                    step(out, s, "rrs", "i", c, "i", c)
                else:
                    step(out, s, "rrc", "i", c, "o", 0)
                s += 1
        out.append('    </tb>')
        out.append('  </gpu>')
    out.append('</algo>')
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("allreduce", "allgather", "reducescatter"):
        sys.exit(__doc__.strip().splitlines()[-1])
    sys.stdout.write(ring(sys.argv[1], int(sys.argv[2])))
