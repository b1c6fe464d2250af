#!/usr/bin/env python3
"""Writes the damaged binary programs of tests/data/bad (fbin-*.fbin) from
tests/data/goal/binomial-bcast.goal: run from the source root as
`tests/data/make_bad_fbin.py build/fennel` after a change of the format's version.
The checksum is fennel's (programs/binary/program_binary.c), for the case that must pass it."""
import os
import struct
import subprocess
import sys
import tempfile

M = (1 << 64) - 1
P1, P2, P3 = 0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9


def rotl(x, r):
    return ((x << r) | (x >> (64 - r))) & M


def lane(acc, w):
    return rotl((acc + w * P2) & M, 31) * P1 & M


def checksum(data):
    n, i = len(data), 0
    word = lambda at: struct.unpack_from("<Q", data, at)[0]
    if n >= 32:
        a, b, c, d = (P1 + P2) & M, P2, 0, (-P1) & M
        while n - i >= 32:
            a, b = lane(a, word(i)), lane(b, word(i + 8))
            c, d = lane(c, word(i + 16)), lane(d, word(i + 24))
            i += 32
        h = (rotl(a, 1) + rotl(b, 7) + rotl(c, 12) + rotl(d, 18)) & M
    else:
        h = P3
    h = (h + n) & M
    while n - i >= 8:
        h = (rotl(h ^ lane(0, word(i)), 27) * P1 + P2) & M
        i += 8
    while i < n:
        h = rotl(h ^ (data[i] * P3 & M), 11) * P1 & M
        i += 1
    for shift, mul in ((33, 0xFF51AFD7ED558CCD), (33, 0xC4CEB9FE1A85EC53), (33, None)):
        h ^= h >> shift
        if mul:
            h = h * mul & M
    return h


def seal(data):
    struct.pack_into("<Q", data, 16, checksum(bytes(data[24:])))


def section(data, wanted):
    for i in range(struct.unpack_from("<I", data, 64)[0]):
        sid, _, at, _ = struct.unpack_from("<IIQQ", data, 72 + 24 * i)
        if sid == wanted:
            return at
    raise SystemExit(f"no section {wanted}")


here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bad")
with tempfile.TemporaryDirectory() as tmp:
    good = os.path.join(tmp, "good.fbin")
    subprocess.run([sys.argv[1], "convert", "tests/data/goal/binomial-bcast.goal", "-o", good],
                   check=True)
    with open(good, "rb") as f:
        data = bytearray(f.read())
assert checksum(bytes(data[24:])) == struct.unpack_from("<Q", data, 16)[0], "checksum port"
cases = {
    "fbin-header": data[:40],
    "fbin-truncated": data[:200],
    "fbin-version": data[:8] + struct.pack("<I", 2) + data[12:],
    "fbin-byte-order": data[:12] + struct.pack(">I", 0x01020304) + data[16:],
    "fbin-checksum": bytearray(data),
    "fbin-peer": bytearray(data),
}
cases["fbin-checksum"][section(data, 5) + 8] ^= 0x01  # an amount
struct.pack_into("<I", cases["fbin-peer"], section(data, 4) + 4, 9)  # task 1's peer
seal(cases["fbin-peer"])
for name, content in cases.items():
    with open(os.path.join(here, name + ".fbin"), "wb") as f:
        f.write(content)
