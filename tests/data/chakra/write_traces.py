#!/usr/bin/env python3
"""Writes the Chakra execution traces of tests/data/chakra, by hand, from the definition of
Chakra's format (mlcommons/chakra, schema/protobuf/et_def.proto: GlobalMetadata {version 1,
attr 2}, Node {id 1, name 2, type 3, data_deps 5, duration_micros 7, attr 10},
AttributeProto {name 1, int32_val 7, int64_val 9, uint64_val 11, bool_val 27, string_val 29};
NodeType {INVALID_NODE 0, METADATA_NODE 1, MEM_LOAD_NODE 2, MEM_STORE_NODE 3, COMP_NODE 4, ...}; each
message preceded by its length as a varint). Run it from this directory to write them again.
"""
import gzip

INVALID, MEM_LOAD, MEM_STORE, COMP, SEND, RECV, COLL = 0, 2, 3, 4, 5, 6, 7
ALL_GATHER, GATHER, ALL_TO_ALL, REDUCE_SCATTER = 2, 3, 6, 7


def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def field(number, wire, payload):
    key = varint(number << 3 | wire)
    if wire == 0:
        return key + varint(payload)
    return key + varint(len(payload)) + payload


def attr(name, value, kind):
    number = {"int32": 7, "int64": 9, "uint64": 11, "bool": 27, "string": 29}[kind]
    body = field(1, 2, name.encode())
    body += field(number, 2, value.encode()) if kind == "string" else field(number, 0, value)
    return field(10, 2, body)


def node(id, name, type, deps=(), micros=0, **attrs):
    body = field(1, 0, id) if id else b""
    body += field(2, 2, name.encode()) + field(3, 0, type)
    if deps:
        body += field(5, 2, b"".join(varint(d) for d in deps))
    if micros:
        body += field(7, 0, micros)
    for key, value in attrs.items():
        kind = ("int32" if key in ("comm_src", "comm_dst", "comm_tag") else
                "uint64" if key in ("num_ops", "tensor_size") else
                "string" if isinstance(value, str) else "int64")
        body += attr(key, value, kind)
    return body


def metadata(collective=None):
    body = field(1, 2, b"0.0.4")
    if collective:
        body += field(2, 2, field(1, 2, b"collective") + field(29, 2, collective.encode()))
    return body


def metadata_schema():
    """Metadata as Chakra's PyTorch feeder and newer converters write it: no version field,
    a "schema" attribute (AttributeProto name 1, string_val 29) instead."""
    return field(2, 2, field(1, 2, b"schema") + field(29, 2, b"1.0.2-chakra.0.0.4"))


def trace(messages):
    return b"".join(varint(len(m)) + m for m in messages)


def write(prefix, ranks, compress=False):
    for r, messages in enumerate(ranks):
        data = trace(messages)
        if compress:
            data = gzip.compress(data, mtime=0)
        with open(f"{prefix}.{r}.et", "wb") as f:
            f.write(data)


def allreduce_rd(p=4, size=1000, micros=1, bad=None):
    """Recursive doubling: in step k rank r sends its vector to r xor 2^k, receives the
    partner's and reduces (a compute of `micros` us after both)."""
    ranks = []
    for r in range(p):
        msgs, prev, k, ident = [metadata("allreduce")], None, 0, 1
        while (1 << k) < p:
            peer = r ^ (1 << k)
            if bad == "wrong-peer" and r == 1 and k == 1:
                peer = 7
            deps = [prev] if prev is not None else []
            s, rv, c = ident, ident + 1, ident + 2
            msgs.append(node(s, f"send{k}", SEND, deps, comm_dst=peer, comm_tag=k, comm_size=size))
            msgs.append(node(rv, f"recv{k}", RECV, deps, comm_src=peer, comm_tag=k, comm_size=size))
            cdeps = [rv, s]
            if bad == "missing-dependency" and r == 2 and k == 1:
                cdeps = [rv, 99]
            msgs.append(node(c, f"reduce{k}", COMP, cdeps, micros))
            prev, ident, k = c, ident + 3, k + 1
        if bad == "cycle" and r == 0:
            # reduce0 (id 3) also waits for send1 (id 4), which waits for reduce0.
            msgs[3] = node(3, "reduce0", COMP, [2, 1, 4], micros)
        ranks.append(msgs)
    return ranks


def collective(kind, p=4, size=1000, name="coll", bad=None):
    ranks = []
    for r in range(p):
        s = 2000 if bad == "mismatch" and r == 2 else size
        ranks.append([metadata(), node(1, name, COLL, comm_type=kind, comm_size=s)])
    return ranks


def alltoall(p=4, size=1000, bad=None):
    """Every rank posts its receives, then sends to every other rank (tag: the sender).
    bad="missing": rank 3 neither sends to rank 1 nor rank 1 receives from it, and the
    metadata says the trace is an alltoall, which it no longer is."""
    ranks = []
    for r in range(p):
        msgs, ident = [metadata("alltoall" if bad else None)], 1
        for q in range(p):
            if q != r and not (bad == "missing" and (r, q) == (1, 3)):
                msgs.append(node(ident, f"recv-from-{q}", RECV, comm_src=q, comm_tag=q,
                                 comm_size=size))
                ident += 1
        for q in range(p):
            if q != r and not (bad == "missing" and (r, q) == (3, 1)):
                msgs.append(node(ident, f"send-to-{q}", SEND, comm_dst=q, comm_tag=r,
                                 comm_size=size))
                ident += 1
        ranks.append(msgs)
    return ranks


def overlap(p=4, size=1000):
    """Data parallel in small: a backward compute of 1 us and an all_gather, neither waiting
    for the other, then a compute of 1 us after both."""
    return [[metadata(), node(1, "backward", COMP, (), 1),
             node(2, "all_gather", COLL, comm_type=ALL_GATHER, comm_size=size),
             node(3, "update", COMP, (1, 2), 1)] for _ in range(p)]


def roofline():
    """A GPU's computes recorded as operations and bytes (num_ops, tensor_size, as Chakra's
    PyTorch converter records GPU kernels), no time, and memory nodes of tensor_size bytes:
    a matmul, an elementwise operation after it, a load beside them, a store after both."""
    return [[metadata(),
             node(1, "matmul", COMP, (), num_ops=3000, tensor_size=1000),
             node(2, "elementwise", COMP, (1,), num_ops=1000, tensor_size=5000),
             node(3, "load", MEM_LOAD, (), tensor_size=4000),
             node(4, "store", MEM_STORE, (2, 3), tensor_size=2000)]]


def ties():
    """Two messages that reach rank 0 at one instant: rank 2's send (a node of the trace)
    and rank 1's part of a gather over process group `pair` (ranks 0 and 1), whose program
    fennel adds after every node of the trace; rank 0 computes for 1 us after its receive
    from rank 2."""
    return [[metadata(), node(1, "recv-from-2", RECV, comm_src=2, comm_tag=0, comm_size=1),
             node(2, "compute", COMP, (1,), 1),
             node(3, "gather", COLL, comm_type=GATHER, comm_size=1, pg_name="pair")],
            [metadata(), node(1, "gather", COLL, comm_type=GATHER, comm_size=1, pg_name="pair")],
            [metadata(), node(1, "send-to-0", SEND, comm_dst=0, comm_tag=0, comm_size=1)]]


if __name__ == "__main__":
    write("allreduce-rd", allreduce_rd())
    write("allreduce-rd-gzip", allreduce_rd(), compress=True)
    write("allgather-coll", collective(ALL_GATHER, name="all_gather"))
    write("reducescatter-coll", collective(REDUCE_SCATTER, size=4000, name="reduce_scatter"))
    write("alltoall-p2p", alltoall())
    write("alltoall-coll", collective(ALL_TO_ALL, name="all_to_all"))
    write("overlap", overlap())
    # Two process groups of two ranks each (pg_name), an all_gather in each.
    write("two-groups", [[metadata(), node(1, "all_gather", COLL, comm_type=ALL_GATHER,
                                           comm_size=1000, pg_name=f"tp{r // 2}")]
                         for r in range(4)])
    write("schema-metadata", [[metadata_schema(), node(1, "compute", COMP, (), 3)]])
    # As ASTRA-sim's MSCCL-to-Chakra converter writes messages: chunks, no comm_size.
    chunk = dict(msg_chunk_idx=0, msg_chunk_cnt=1, total_chunk_cnt=4)
    write("no-comm-size", [[metadata(), node(1, "send", SEND, comm_dst=1, comm_tag=0, **chunk)],
                           [metadata(), node(1, "recv", RECV, comm_src=0, comm_tag=0, **chunk)]])
    write("ties", ties())
    write("roofline", roofline())
    # 624 million operations over 1555 bytes: compute-bound on any GPU near the default.
    write("roofline-default", [[metadata(), node(1, "gemm", COMP, (), num_ops=624000000,
                                                 tensor_size=1555)]])
    # Nodes fennel cannot time: a type Chakra does not define, an INVALID_NODE with a
    # duration (ASTRA-sim skips it), a memory load without its bytes.
    write("bad-node-type", [[metadata(), node(1, "future", 8, (), 5)]])
    write("bad-invalid-timed", [[metadata(), node(1, "lost", INVALID, (), 5)]])
    write("bad-memory-size", [[metadata(), node(1, "load", MEM_LOAD, ())]])
    write("bad-wrong-peer", allreduce_rd(bad="wrong-peer"))
    write("bad-missing-dependency", allreduce_rd(bad="missing-dependency"))
    write("bad-cycle", allreduce_rd(bad="cycle"))
    write("bad-mismatch", collective(ALL_GATHER, bad="mismatch"))
    write("bad-alltoall-missing", alltoall(bad="missing"))
    # One-rank traces whose compute lasts 2^63 - 1 and 2^64 - 1 us, beyond int64 picoseconds.
    for bits in (63, 64):
        write(f"bad-long-compute-{bits}", [[metadata(), node(1, "forever", COMP, (), 2**bits - 1)]])
    # Values a held node keeps aside (wider than its narrow fields): a peer and a tag past
    # 2^31 (as int64), a slot past 2^15, a second total of chunks in one rank; and a name
    # with a control character past its first eight bytes.
    write("bad-wide-peer", [[metadata(), node(1, "send", SEND, comm_size=1000) +
                             attr("comm_dst", 2**33, "int64")],
                            [metadata(), node(1, "recv", RECV, comm_src=0, comm_size=1000)]])
    write("bad-wide-tag", [[metadata(), node(1, "send", SEND, comm_dst=1, comm_size=1000) +
                            attr("comm_tag", 2**31, "int64")],
                           [metadata(), node(1, "recv", RECV, comm_src=0, comm_size=1000)]])
    write("bad-wide-dependency", [[metadata(), node(1, "compute", COMP, (), 5),
                                   node(2, "after", COMP, (1, 2**33), 5)]])
    write("bad-wide-slot", [[metadata(), node(1, "compute", COMP, (), 5, fennel_slot=70000)]])
    write("wide-slot", [[metadata(), node(1, "compute-step\x01x", COMP, (), 5,
                                          fennel_slot=40000)]])
    chunks = [dict(msg_chunk_idx=0, msg_chunk_cnt=1, total_chunk_cnt=n) for n in (4, 8)]
    write("bad-chunk-totals",
          [[metadata()] + [node(i + 1, "send", SEND, comm_dst=1, comm_tag=i, comm_size=1000, **c)
                           for i, c in enumerate(chunks)],
           [metadata()] + [node(i + 1, "recv", RECV, comm_src=0, comm_tag=i, comm_size=1000)
                           for i in range(2)]])
    # Eight all_gathers of 1000 B one after another on 4 ranks: the same collective again,
    # whose program lowering splices from one expansion once it keeps it.
    write("repeated-coll", [[metadata()] + [node(i + 1, f"gather{i}", COLL, [i] if i else (),
                                                 comm_type=ALL_GATHER, comm_size=1000)
                                            for i in range(8)] for r in range(4)])
    # Rank 1 cut in its last node's message.
    ranks = allreduce_rd()
    write("bad-truncated", ranks)
    with open("bad-truncated.1.et", "rb") as f:
        data = f.read()
    with open("bad-truncated.1.et", "wb") as f:
        f.write(data[:-5])
