#!/usr/bin/env python3
"""Writes a fennel YAML program: an all-to-all of P ranks, one put from every rank to every
other, of sizes spread over 1-3 MiB (a fixed linear congruential sequence) so that the
flows end at different times. With one rank per node on a switch under `contention: fair`
every put is a flow of the max-min sharing (docs/TOPOLOGY.md); P ranks make P (P - 1) flows.
Used by `scripts/bench.sh fair` (docs/PERFORMANCE.md).

usage: fair-alltoall.py P > FILE.yaml
"""
import sys


def main():
    p = int(sys.argv[1])
    out = ["fennel: 1", f"ranks: {p}", "tasks:"]
    x = 1
    for r in range(p):
        out.append(f"  - {{id: s{r}, rank: {r}, type: start}}")
        for k in range(1, p):
            x = (x * 1103515245 + 12345) % 2147483648
            size = 1048576 + x % 2097153
            out.append(f"  - {{id: t{r}_{k}, rank: {r}, type: put, to: {(r + k) % p}, "
                       f"size: {size}, after: [s{r}]}}")
    sys.stdout.write("\n".join(out) + "\n")


main()
