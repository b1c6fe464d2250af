#!/usr/bin/env python3
"""The eager limit (docs/SEMANTICS.md, Eager messages), through `fennel run`.

Every time is derived by hand from the rules of that section: under postal a sender waits
until its message has arrived (alpha + s beta); with `eager: SIZE` a put or send of fewer
than SIZE bytes holds it only until its bytes have left (s beta from its start, or through
its sending port), its own rank's successors start then, and its arrival does not change.
Postal alpha 1 us, beta 1 ns/B; messages of 1000 B (2000 ns alone, 1000 ns of bytes).

Usage: test_eager.py FENNEL SOURCE_ROOT. Prints TAP.
"""
import csv
import os
import tempfile

from harness import check, expect_error, fennel, finish, run_json

DATA = "tests/data/eager"
POSTAL = ["--network", "postal", "--set", "alpha=1us", "--set", "beta=1ns/B"]


def tasks(*args):
    """The tasks CSV of a run, as {id: row}."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "tasks.csv")
        code, out, err = fennel("run", *args, "--tasks", path)
        if code != 0:
            return {"error": err}
        with open(path, newline="") as f:
            return {row["id"]: row for row in csv.DictReader(f)}


def makespan(*args):
    r = run_json(*args)
    return r.get("makespan_ns", r)


# Three puts of 1000 B from rank 0's one slot. The sender waits for each: they run 0-2000,
# 2000-4000, 4000-6000 ns. Eager (1000 < 64 KiB, and < 1001 B): each holds the slot for its
# bytes, 1000 ns: they start at 0, 1000, 2000 and arrive at 2000, 3000, 4000 ns. At exactly
# the limit (1000 B) a put is not eager: 6000 ns. Half-duplex ports: the puts go one way, each
# following the previous one's bytes through rank 0's sending port (docs/TOPOLOGY.md): the
# same 4000 ns.
for extra, want in (([], 6000), (["--set", "eager=64KiB"], 4000),
                    (["--set", "eager=1000B"], 6000), (["--set", "eager=1001B"], 4000),
                    (["--set", "eager=64KiB", "--set", "duplex=half"], 4000)):
    got = makespan(f"{DATA}/stream.yaml", *POSTAL, *extra)
    check(f"three puts from one slot, {' '.join(extra) or 'no eager'}: {want} ns",
          got == want, got)
got = makespan(f"{DATA}/stream.yaml", "--model", f"{DATA}/eager.model.yaml")
check("eager: 64KiB in a model file: 4000 ns", got == 4000, got)
rows = tasks(f"{DATA}/stream.yaml", *POSTAL, "--set", "eager=64KiB")
want = {"p1": ("0", "1000", "2000"), "p2": ("1000", "2000", "3000"),
        "p3": ("2000", "3000", "4000")}
got = {k: (rows[k]["start_ns"], rows[k]["end_ns"], rows[k]["arrival_ns"]) for k in want}
check("eager puts: start, end (bytes left) and arrival", got == want, got)

# A send of 1000 B, then 500 ns of compute on the sender: without eager the send is done at
# its arrival, 2000 ns, and the compute runs 2000-2500; eager, the send returns at 1000 ns
# and the compute runs 1000-1500 while the receive still completes at 2000.
for extra, want in (([], ("2000", "2000", "2500", "2000")),
                    (["--set", "eager=64KiB"], ("1000", "2000", "1500", "2000"))):
    rows = tasks(f"{DATA}/send.yaml", *POSTAL, *extra)
    got = (rows["tx"]["end_ns"], rows["tx"]["arrival_ns"], rows["work"]["end_ns"],
           rows["rx"]["completion_ns"])
    check(f"a send then a compute, {' '.join(extra) or 'no eager'}: send ends, arrives, "
          f"compute ends, receive completes at {want}", got == want, got)

# A sized model: beta 3 ns/B below 2000 B. A put of 1000 B takes 1000 + 3000 = 4000 ns and
# holds its eager sender for its bytes, 3000 ns: they start at 0, 3000, 6000 and the last
# arrives at 10000 ns.
with tempfile.TemporaryDirectory() as tmp:
    model = os.path.join(tmp, "sized.yaml")
    with open(model, "w") as f:
        f.write("fennel: 1\nnetwork:\n  model: postal\n  ranges:\n"
                "    - {from: 0B, to: 2000B, alpha: 1us, beta: 3ns/B}\n"
                "    - {from: 2000B, alpha: 1us, beta: 1ns/B}\neager: 64KiB\n")
    got = makespan(f"{DATA}/stream.yaml", "--model", model)
    check("eager puts under a sized model: 10000 ns", got == 10000, got)

# Two exchanges in a row (exchange2.yaml, a loop of two MPI_Sendrecv calls on 2 ranks), each
# rank one slot, puts of 1000 B (2000 ns alone, 1000 ns of bytes). Half duplex without eager:
# a1 0-2000; b1 waits for rank 1's line to clear, 2000-4000; both ranks' second calls start at
# 4000 and take the line in turn: 8000 ns. With eager, b1 still leaves 2000-3000 and arrives at
# 4000, rank 1's slot is free at 3000 (rb1 done then, a1 arrived at 2000) and b2 enters at
# 3000. Its port sends (b1) but has received since b1 entered (a1 at 2000): a reply starts a
# new turn, so b2 waits for the line to clear, b1's arrival at 4000, and arrives at 6000;
# a2 enters at 4000 and waits for rank 0's line (b2) until 6000: bytes left 7000, arrival
# 8000. Had b2 followed b1's bytes (leaving 3000-4000, arriving 5000), a2 would have left at
# 5000 and arrived at 7000: one turn for two calls, where Juno's IMB Sendrecv loop takes two
# turns a call.
for extra, want in ((["--set", "duplex=half"], 8000),
                    (["--set", "duplex=half", "--set", "eager=64KiB"], 8000),
                    (["--set", "eager=64KiB"], 4000)):
    got = makespan(f"{DATA}/exchange2.yaml", *POSTAL, *extra)
    check(f"two exchanges in a row, {' '.join(extra)}: {want} ns", got == want, got)
rows = tasks(f"{DATA}/exchange2.yaml", *POSTAL, "--set", "duplex=half", "--set", "eager=64KiB")
want = {"b1": ("0", "3000", "4000"), "b2": ("3000", "5000", "6000"),
        "a2": ("4000", "7000", "8000")}
got = {k: (rows[k]["ready_ns"], rows[k]["end_ns"], rows[k]["arrival_ns"]) for k in want}
check("half duplex, eager: a reply waits for the line (ready, bytes left, arrival)",
      got == want, got)

# Refused: a bad size, LogP/LogGP (FILE:LINE:COL from a file), a topology.
expect_error("--set eager=lots is refused", [
    "run", f"{DATA}/stream.yaml", *POSTAL, "--set", "eager=lots"], 2,
    "--set eager=lots: eager: expected a number, got 'lots'")
expect_error("eager under LogGP in a file is refused at its line", [
    "run", f"{DATA}/stream.yaml", "--model", f"{DATA}/loggp-eager.model.yaml"], 1,
    f"{DATA}/loggp-eager.model.yaml:4:1: eager: needs a network model whose sender waits for "
    "its message (postal); loggp times its sender's overhead itself")
expect_error("eager with a topology is refused", [
    "run", f"{DATA}/stream.yaml", *POSTAL, "--set", "topology.kind=switch",
    "--set", "eager=64KiB"], 2,
    "--set: eager: timed by the network model, without a topology")

finish()
