#!/usr/bin/env python3
"""NCCL's ring allreduce (generator nccl-ring, docs/GPU.md), through `fennel run` and
`fennel verify`.

Times derived by hand on one server of tests/data/topology/rail.model.yaml (8 GPUs, NVLink
ports of 10 GB/s: 0.1 ns per byte, a route of 2 x 100 ns = 200 ns between two GPUs), under
contention fair. The ring sends to rank + 1; every rank does the same at the same time, so a
step of a slice takes, on every rank, its route's 200 ns plus its wire bytes over the port
(shared by the C channels' puts of that step: C slices of a C-th of the bytes each, the same
time), and the compute model (fixed, 0 ns) adds nothing. A thread block's next slice waits
for its put (postal: until it has arrived), so the makespan is N (200 + w x / B), N = L x
2(p - 1) x S steps of slices, x the data bytes of a slice, w the wire bytes per data byte:
2(p - 1)/p x w x n / B + N x 200 ns when the slices divide n evenly.

Usage: test_nccl.py FENNEL SOURCE_ROOT. Prints TAP.
"""
from harness import check, fennel, finish, run_json

MODEL = ["--model", "tests/data/topology/rail.model.yaml", "--set", "contention=fair"]


def makespan(*args):
    out = run_json("--generate", "nccl-ring", *args, *MODEL)
    return out.get("makespan_ns", out)


# Simple: chunks of 2 MiB in S = 2 slices. 16 MiB on 8 ranks, 1 channel: L = 16 MiB / (8 x
# 2 MiB) = 1 loop, slices of 1 MiB (104857.6 ns), N = 1 x 14 x 2 = 28:
# 28 x (200 + 104857.6) = 2941612.8 ns = 1.75 x 1677721.6 + 28 x 200.
for channels in ("1", "2"):
    # 2 channels: slices of 0.5 MiB each, two puts share each port: the same time per step.
    got = makespan("--ranks", "8", "--size", "16MiB", "--variant", "simple",
                   "--partitions", channels)
    check(f"simple, 8 ranks, 16 MiB, {channels} channel(s): 2941612.8 ns", got == 2941612.8, got)
# Simple is the default protocol; 32 MiB on 2 channels: L = 32 MiB / (2 x 8 x 2 MiB) = 1,
# slices of 1 MiB, two per port: 28 x (200 + 2 x 104857.6) = 5877625.6 ns.
got = makespan("--ranks", "8", "--size", "32MiB", "--partitions", "2")
check("simple by default, 32 MiB, 2 channels: 5877625.6 ns", got == 5877625.6, got)
# Two loops: 32 MiB on 1 channel: L = 2, slices of 1 MiB, N = 56: 56 x 105057.6 = 5883225.6.
got = makespan("--ranks", "8", "--size", "32MiB", "--partitions", "1")
check("simple, 32 MiB, 1 channel: two loops, 5883225.6 ns", got == 5883225.6, got)
# The default is 2 channels (every generator's --partitions): 32 MiB as above, 5877625.6 ns.
got = makespan("--ranks", "8", "--size", "32MiB")
check("2 channels by default: 5877625.6 ns", got == 5877625.6, got)
# LL: chunks of 32 KiB of data in 1 slice, twice the bytes on the wire. 256 KiB on 8
# ranks: L = 1, slices of 32768 B = 65536 wire bytes (6553.6 ns), N = 14:
# 14 x 6753.6 = 94550.4 ns = 1.75 x 2 x 26214.4 + 14 x 200.
got = makespan("--ranks", "8", "--size", "262144", "--variant", "ll", "--partitions", "1")
check("ll, 8 ranks, 256 KiB: 94550.4 ns (half the bandwidth)", got == 94550.4, got)
# LL128: chunks of 576000 B of data in 1 slice, 128 wire bytes per 120. 4608000 B on 8
# ranks: L = 1, slices of 576000 B = 614400 wire bytes (61440 ns), N = 14:
# 14 x 61640 = 862960 ns = 1.75 x 16/15 x 460800 + 14 x 200.
got = makespan("--ranks", "8", "--size", "4608000", "--variant", "ll128", "--partitions", "1")
check("ll128, 8 ranks, 4608000 B: 862960 ns (120 of 128 bytes)", got == 862960, got)
# Two ranks, LL: 65536 B, L = 1, N = 2 slices of 32768 B: 2 x (200 + 6553.6) = 13507.2.
got = makespan("--ranks", "2", "--size", "65536", "--variant", "ll", "--partitions", "1")
check("ll, 2 ranks, 64 KiB: 13507.2 ns", got == 13507.2, got)

code, out, err = fennel("run", "--generate", "nccl-ring", "--ranks", "4", "--variant", "ll64",
                        *MODEL)
check("an unknown protocol is refused", code == 1 and err ==
      "fennel: nccl-ring: --variant is the protocol: simple, ll or ll128, not 'll64'\n", err)
code, out, err = fennel("run", "--generate", "nccl-ring", "--ranks", "4", "--partitions",
                        "256", *MODEL)
check("more than 255 channels (slots of a rank) are refused", code == 1 and err ==
      "fennel: nccl-ring needs --ranks >= 1 and --partitions (channels) 1 to 255, got 4 and "
      "256\n", err)

# fennel verify: NCCL's ring is an allreduce at several rank and channel counts and every
# protocol, sizes that do and do not divide evenly.
for ranks in (1, 2, 3, 5, 8, 16):
    for channels in (1, 2, 3, 8):
        for protocol in ("simple", "ll", "ll128"):
            for size in ("1000", "300000"):
                code, out, err = fennel("verify", "--generate", "nccl-ring", "--ranks",
                                        str(ranks), "--partitions", str(channels), "--variant",
                                        protocol, "--size", size)
                check(f"verify nccl-ring --ranks {ranks} --partitions {channels} --variant "
                      f"{protocol} --size {size}", code == 0 and
                      out.startswith(f"nccl-ring: ok: allreduce over {ranks} ranks"), (out, err))

finish()
