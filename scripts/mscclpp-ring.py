#!/usr/bin/env python3
"""Writes an MSCCL++ execution plan (the current schema, docs/FORMATS.md) for a ring
allreduce on N GPUs: one thread block per GPU, a memory channel to the next GPU and one
from the previous, N chunks. Each of the N - 1 reduce-scatter steps puts a chunk into the
next GPU's scratch, signals it, waits for the previous GPU and reduces what came into the
input; each of the N - 1 allgather steps puts a finished chunk into a second half of the
next GPU's scratch, signals, waits and copies what came into the input. Used for the
benchmarks (scripts/bench.sh mscclpp).

usage: mscclpp-ring.py N > FILE.json
"""
import sys


def buff(kind, index):
    return f'{{"type": "{kind}", "index": {index}, "size": 1}}'


def remote(index):
    return f'{{"buffer_id": 0, "index": {index}, "size": 1}}'


def gpu(g, p):
    ops = []
    sync = ['{"name": "signal", "channel_type": "memory", "channel_ids": [0]}',
            '{"name": "wait", "channel_type": "memory", "channel_ids": [1]}']
    for s in range(p - 1):
        send, came = (g - s) % p, (g - 1 - s) % p
        ops.append(f'{{"name": "put", "channel_type": "memory", "src_buff": [{buff("i", send)}], '
                   f'"dst_buff": [{remote(send)}]}}')
        ops += sync
        ops.append(f'{{"name": "re", "src_buff": [{buff("i", came)}, {buff("s", came)}], '
                   f'"dst_buff": [{buff("i", came)}]}}')
    for s in range(p - 1):
        send, came = (g + 1 - s) % p, (g - s) % p
        ops.append(f'{{"name": "put", "channel_type": "memory", "src_buff": [{buff("i", send)}], '
                   f'"dst_buff": [{remote(p + send)}]}}')
        ops += sync
        ops.append(f'{{"name": "copy", "src_buff": [{buff("s", p + came)}], '
                   f'"dst_buff": [{buff("i", came)}]}}')
    body = ",\n          ".join(ops)
    nxt, prv = (g + 1) % p, (g - 1) % p
    return (f'    {{"id": {g}, "input_chunks": {p}, "output_chunks": 0, '
            f'"scratch_chunks": {2 * p},\n'
            f'      "threadblocks": [{{"id": 0, "ops": [\n          {body}],\n'
            f'        "channels": [{{"channel_type": "memory", "channel_ids": [0, 1]}}],\n'
            f'        "remote_buffer_refs": [{{"access_channel_type": "memory", '
            f'"remote_buffer_ids": [0]}}]}}],\n'
            f'      "channels": [{{"channel_type": "memory", "connected_to": [{nxt}, {prv}]}}],\n'
            f'      "remote_buffers": [{{"rank": {nxt}, "type": "s", '
            f'"access_channel_types": ["memory"]}}]}}')


def ring(p):
    gpus = ",\n".join(gpu(g, p) for g in range(p))
    return (f'{{\n  "name": "allreduce_ring_{p}", "collective": "allreduce", '
            f'"protocol": "Simple", "inplace": true,\n  "gpus": [\n{gpus}\n  ]\n}}\n')


if __name__ == "__main__":
    if len(sys.argv) != 2 or not sys.argv[1].isdigit() or int(sys.argv[1]) < 3:
        sys.exit("usage: mscclpp-ring.py N > FILE.json (N >= 3; with two GPUs the next is the previous)")
    sys.stdout.write(ring(int(sys.argv[1])))
