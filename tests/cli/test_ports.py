#!/usr/bin/env python3
"""Shared NICs and half-duplex ports (docs/TOPOLOGY.md), through `fennel run`.

Every time is derived by hand from the rules of that section: a message between nodes
holds the sender's sending port and the receiver's receiving port for its bytes (s beta),
each port a first-come first-served server; under half duplex a port carries one direction
at a time, and a message the other way waits until the last one it carried has arrived;
postal alpha 1 us, beta 1 ns/B, puts of 1000 B (2000 ns alone).

Usage: test_ports.py FENNEL SOURCE_ROOT. Prints TAP.
"""
import csv
import os
import tempfile

from harness import check, expect_error, fennel, finish, run_json

DATA = "tests/data/ports"
POSTAL = ["--network", "postal", "--set", "alpha=1us", "--set", "beta=1ns/B"]
LBP = ["--network", "lbp", "--set", "alpha_r=500ns", "--set", "alpha_p=1us",
       "--set", "beta=1ns/B"]
PPN2 = ["--set", "ranks_per_node=2", "--set", "intra=same"]


def makespan(*args):
    r = run_json(*args)
    return r.get("makespan_ns", r)


# Two ranks of node 0 put to node 1 at once: with their own NICs both take 2000 ns; sharing
# one, the second takes node 0's sending port when the first's bytes are through (1000 ns)
# and node 1's receiving port at 1000 + 1000 = 2000 ns: it arrives at 3000 ns.
for nic, want in (("own", 2000), ("shared", 3000)):
    got = makespan(f"{DATA}/two-senders.yaml", *POSTAL, *PPN2, "--set", "nic=" + nic)
    check(f"two ranks of a node sending to another node at once, nic {nic}: {want} ns",
          got == want, got)

# Nodes 0 and 1 put to node 2 at once: the second waits for node 2's receiving port, which
# the first holds from 1000 to 2000 ns: 3000 ns (2000 ns with a NIC per rank).
for nic, want in (("own", 2000), ("shared", 3000)):
    got = makespan(f"{DATA}/incast.yaml", *POSTAL, *PPN2, "--set", "nic=" + nic)
    check(f"two nodes sending to one node at once, nic {nic}: {want} ns", got == want, got)

# Two ranks put to each other at once. Full duplex: no port is shared, 2000 ns. Half
# duplex: rank 0's put turns both ports its way until it arrives at 2000 ns, rank 1's goes
# then and arrives at 4000 ns, twice a one-way message. Under lbp each enters the network after
# alpha_r = 500 ns: 500 + 2000 = 2500 ns, and 500 + 2 x 2000 = 4500 ns.
for duplex, want in (("full", 2000), ("half", 4000)):
    got = makespan(f"{DATA}/exchange.yaml", *POSTAL, "--set", "duplex=" + duplex)
    check(f"a 2-rank exchange, postal, duplex {duplex}: {want} ns", got == want, got)
for duplex, want in (("full", 2500), ("half", 4500)):
    got = makespan(f"{DATA}/exchange.yaml", *LBP, "--set", "duplex=" + duplex)
    check(f"a 2-rank exchange, lbp, duplex {duplex}: {want} ns", got == want, got)

# With a shared half-duplex NIC the same holds between two nodes of 2 ranks.
got = makespan(f"{DATA}/exchange.yaml", *POSTAL, "--set", "duplex=half", "--set", "nic=shared")
check("a 2-rank exchange, half duplex and a shared NIC: 4000 ns", got == 4000, got)

# Half duplex carries one direction at a time (shared NICs of 2 ranks per node, the same
# program order): rank 0's put leaves node 0 at 0 and arrives at 2000; rank 1's goes the
# same way and follows its bytes, leaving at 1000 and arriving at max(1000 + 1000, 2000) +
# 1000 = 3000 ns, as under full duplex (two senders, above). Rank 2's put goes the other
# way: node 1's port waits until the line is clear, the last arrival at 3000, and it
# arrives at 3000 + 2000 = 5000 ns. Under full duplex it goes at once: 2000, makespan 3000.
for duplex, want in (("full", 3000), ("half", 5000)):
    got = makespan(f"{DATA}/convoy.yaml", *POSTAL, *PPN2, "--set", "nic=shared",
                   "--set", "duplex=" + duplex)
    check(f"two puts one way and one back, shared NICs, duplex {duplex}: {want} ns",
          got == want, got)
got = makespan(f"{DATA}/two-senders.yaml", *POSTAL, *PPN2, "--set", "nic=shared",
               "--set", "duplex=half")
check("two ranks of a node sending one way, half duplex: the second follows the first's "
      "bytes, 3000 ns", got == 3000, got)

# Within a node no port is used: the model file's intra model (100 ns + 0.1 ns/B x 1000 B =
# 200 ns) times both puts, at once, even with a shared half-duplex NIC.
got = makespan(f"{DATA}/within.yaml", "--model", f"{DATA}/shared.model.yaml")
check("messages within a node use no port: 200 ns", got == 200, got)
# The same file between nodes (ranks_per_node 1 over the file's 2): 4000 ns, as above.
got = makespan(f"{DATA}/exchange.yaml", "--model", f"{DATA}/shared.model.yaml",
               "--set", "ranks_per_node=1")
check("the model file's nic: shared and duplex: half: 4000 ns", got == 4000, got)

# One message at a time: the ports change nothing (a ping-pong of 1000 B each way).
for keys in (["--set", "nic=shared"], ["--set", "duplex=half"]):
    got = makespan("programs/examples/pingpong.yaml", *POSTAL, *keys)
    want = makespan("programs/examples/pingpong.yaml", *POSTAL)
    check(f"a ping-pong with {keys[1]} takes the time it takes without",
          got == want and isinstance(want, int), (got, want))

# The JSON and text summaries name the keys.
r = run_json(f"{DATA}/exchange.yaml", *POSTAL, "--set", "duplex=half", "--set", "nic=shared")
check("the run's JSON model has nic and duplex",
      r.get("model", {}).get("nic") == "shared" and r["model"].get("duplex") == "half", r)

# Swept, with their columns: a row per value, 2000 and 4000 ns.
with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "s.csv")
    code, _, err = fennel("sweep", f"{DATA}/exchange.yaml", *POSTAL, "--set", "duplex=full,half",
                          "--set", "nic=own,shared", "-o", out)
    rows = list(csv.DictReader(open(out))) if code == 0 else err
check("sweep --set duplex=full,half --set nic=own,shared: its columns and makespans",
      code == 0 and [(r["duplex"], r["nic"], r["makespan_ns"]) for r in rows] ==
      [("full", "own", "2000"), ("full", "shared", "2000"), ("half", "own", "4000"),
       ("half", "shared", "4000")], rows)

# Duplex by message size: a range holds the sizes from its start to the next one's. The 2-rank
# exchange of 1000 B: full duplex at that size, 2000 ns; half duplex, 4000 ns (above).
# The JSON writes the sizes in bytes.
for duplex, want, text in (
        ("half, full from 1000B", 2000, None), ("full, half from 1000B", 4000, None),
        ("half, full from 1001B", 4000, None),
        ("full, half from 1KiB, full from 2KiB", 2000, "full, half from 1024B, full from 2048B")):
    r = run_json(f"{DATA}/exchange.yaml", *POSTAL, "--set", "duplex=" + duplex)
    check(f"a 2-rank exchange of 1000 B, duplex {duplex}: {want} ns",
          r.get("makespan_ns") == want and r["model"].get("duplex") == (text or duplex), r)
got = makespan(f"{DATA}/exchange.yaml", "--model", f"{DATA}/sized-duplex.model.yaml")
check("duplex: half, full from 1000B in a model file: 2000 ns", got == 2000, got)
for bad, why in (("half, half from 8KiB", "each range changes the mode"),
                 ("half, full from 8KiB, half from 4KiB", "the sizes increase"),
                 ("half, full 8KiB", "each range after the first is 'MODE from SIZE'")):
    expect_error(f"--set duplex={bad} is refused", [
        "run", f"{DATA}/exchange.yaml", *POSTAL, "--set", "duplex=" + bad], 2,
        f"--set duplex={bad}: duplex: expected full or half, or 'half, full from 8KiB, ...' "
        f"({why}), got '{bad}'")

# Refused: a bad value, LogP/LogGP, a topology (FILE:LINE:COL from a file).
expect_error("--set nic=some is refused", [
    "run", f"{DATA}/exchange.yaml", *POSTAL, "--set", "nic=some"], 2,
    "--set nic=some: nic: expected own or shared, got 'some'")
expect_error("duplex: quarter in a file is refused at its line", [
    "run", f"{DATA}/exchange.yaml", "--model", f"{DATA}/bad-duplex.model.yaml"], 1,
    f"{DATA}/bad-duplex.model.yaml:4:9: duplex: expected full or half, or 'half, full from "
    "8KiB, ...' (a mode is full or half), got 'quarter'")
expect_error("duplex: half under LogGP is refused", [
    "run", f"{DATA}/exchange.yaml", "--model", f"{DATA}/loggp-half.model.yaml"], 1,
    f"{DATA}/loggp-half.model.yaml:4:1: duplex: half: needs a postal or lbp network model "
    "(LogP and LogGP time each rank's NIC with g and G)")
expect_error("nic: shared with a topology is refused", [
    "run", f"{DATA}/exchange.yaml", "--model", f"{DATA}/topology-shared.model.yaml"], 1,
    f"{DATA}/topology-shared.model.yaml:4:1: nic: shared: the ports are timed by the network "
    "model, without a topology (on one, contention endpoint shares the nodes' ports)")
expect_error("--set duplex=half under LogGP is refused", [
    "run", f"{DATA}/exchange.yaml", "--network", "loggp", "--set", "duplex=half"], 2,
    "--set: duplex: half: needs a postal or lbp network model (LogP and LogGP time each "
    "rank's NIC with g and G)")

finish()
