#!/usr/bin/env python3
"""CLI tests of `fennel compare` (docs/CALIBRATION.md, Comparing).

Usage: test_compare.py FENNEL SOURCE_ROOT. Prints TAP.

Every model time below is derived by hand under models/presets/thesis-figures.yaml (lbp,
alpha_p 500 ns, alpha_r 100 ns, beta 0.4 ns/B, computes 10 ns): a stage of recursive doubling
is a put, 100 + 500 + 0.4 s ns, then the reduction's 10 ns compute, so allreduce-rd takes
log2(p) (610 + 0.4 s) ns. The relative difference is Rüfenacht's Eq. 5.14,
(measured - model) / model.
"""
import json
import os
import tempfile

from harness import ROOT, check, fennel, finish

MODEL = "models/presets/thesis-figures.yaml"
DATA = os.path.join("tests", "data", "fit")


def rd(p, s):
    """allreduce-rd's time at p ranks (a power of two) and s bytes, in ns."""
    return (p.bit_length() - 1) * (610 + 0.4 * s)


def compare(*args):
    code, out, err = fennel("compare", *args, "--model", MODEL, "--json")
    return (json.loads(out) if code == 0 else None), err


def close(a, b):
    return abs(a - b) <= 1e-6 * max(1, abs(b))


def expect(name, doc, err, points, mean=None, worst=None):
    """points: (size_bytes, ranks, measured_ns, model_ns) per point, in order."""
    if doc is None:
        check(name, False, err)
        return
    got = [(p["size_bytes"], p["ranks"], p["measured_ns"], p["model_ns"],
            p["relative_difference"], p["relative_error"], p["ratio"]) for p in doc["points"]]
    ok = len(got) == len(points)
    # Errors relative to the measurement, and the ratio model / measured.
    for g, (s, r, m, mod) in zip(got, points):
        ok &= g[0] == s and g[1] == r and close(g[2], m) and close(g[3], mod) and \
            close(g[4], (m - mod) / mod) and close(g[5], abs(mod - m) / m) and \
            close(g[6], mod / m)
    rel = [(m - mod) / mod for _, _, m, mod in points]
    ok &= close(doc["mean_relative_difference"], sum(rel) / len(rel))
    ok &= close(doc["worst_relative_difference"], max(rel, key=abs))
    check(name, ok, f"{got} {doc['mean_relative_difference']} {doc['worst_relative_difference']}")


with tempfile.TemporaryDirectory() as tmp:
    # A comparison CSV (columns in any order): measured times 25 % above and 20 % below the
    # model's, an empty schedule and given ones, one quoted because the notation has commas
    # (a2,a2 at 4 ranks is recursive doubling).
    csv = os.path.join(tmp, "measured.csv")
    with open(csv, "w") as f:
        f.write("generator,ranks,size_bytes,time_ns,schedule\n")
        f.write(f"allreduce-rd,8,64,{rd(8, 64) * 1.25},\n")
        f.write(f"allreduce-rd,8,1024,{rd(8, 1024) * 0.8},\n")
        f.write(f"allreduce-rm,4,8,{rd(4, 8) * 1.5},a4\n")
        f.write(f"allreduce-rm,4,8,{rd(4, 8) * 2},\"a2,a2\"\n")
    # allreduce-rm with the single stage a4 at 4 ranks: one stage of 3 puts, issued 100 ns
    # apart, the last arriving at 300 + 500 + 3.2, then 3 receives reduced in one compute of
    # 10 ns: 813.2 ns.
    doc, err = compare(csv)
    expect("CSV: relative differences +0.25, -0.2, and a given schedule", doc, err,
           [(64, 8, rd(8, 64) * 1.25, rd(8, 64)), (1024, 8, rd(8, 1024) * 0.8, rd(8, 1024)),
            (8, 4, rd(4, 8) * 1.5, 813.2), (8, 4, rd(4, 8) * 2, rd(4, 8))])

# nccl-tests with srun --label prefixes: 4 ranks (the Rank lines), all_reduce_perf, the
# out-of-place time column; busbw as nccl-tests defines it, S / t x 2(n-1)/n.
doc, err = compare(os.path.join(DATA, "nccl-allreduce-srun-label.txt"))
expect("nccl-tests all_reduce_perf, srun --label", doc, err,
       [(8, 4, 2500, rd(4, 8)), (16, 4, 3000, rd(4, 16)), (32, 4, 4000, rd(4, 32)),
        (64, 4, 6000, rd(4, 64))])
check("nccl-tests: busbw = S / t x 2(n-1)/n",
      doc is not None and all(close(p["busbw_measured_gbps"], p["size_bytes"] / p["measured_ns"] * 1.5) and
                              close(p["busbw_model_gbps"], p["size_bytes"] / p["model_ns"] * 1.5)
                              for p in doc["points"]))

# The same output as Open MPI's --tag-output prints it (indented "[1,0]<stdout>:" prefixes),
# without the lines that name the collective: --generator then says what to simulate.
with tempfile.TemporaryDirectory() as tmp:
    tagged = os.path.join(tmp, "tagged.txt")
    with open(os.path.join(ROOT, DATA, "nccl-allreduce-srun-label.txt")) as f, \
            open(tagged, "w") as g:
        for line in f:
            if "all_reduce_perf" not in line:
                g.write("   [1,0]<stdout>:" + line[3:])
    code, out, err = fennel("compare", tagged, "--model", MODEL)
    check("nccl-tests without the collective's name: an error asking for --generator",
          code == 1 and err == f"fennel: {tagged}:11:1: the output does not name its collective "
          "(give --generator NAME)\n", err)
    doc, err = compare(tagged, "--generator", "allreduce-rd")
    expect("nccl-tests with --tag-output prefixes and --generator", doc, err,
           [(8, 4, 2500, rd(4, 8)), (16, 4, 3000, rd(4, 16)), (32, 4, 4000, rd(4, 32)),
            (64, 4, 6000, rd(4, 64))])

# OSU prints no process count: --ranks. With -f, min uses the Min column, mean the Avg one.
osu = os.path.join(DATA, "osu-v7-full-two-tests.txt")
doc, err = compare(osu, "--ranks", "2")
expect("OSU osu_allreduce -f, --ranks 2, min column", doc, err,
       [(s, 2, (8 + s / 100) * 1000, rd(2, s)) for s in (4, 8, 16, 32)])
doc, err = compare(osu, "--ranks", "2", "--statistic", "mean")
expect("OSU osu_allreduce -f, --statistic mean: the Avg column", doc, err,
       [(s, 2, (10 + s / 100) * 1000, rd(2, s)) for s in (4, 8, 16, 32)])
code, out, err = fennel("compare", osu, "--model", MODEL)
check("OSU without --ranks: an error naming the table",
      code == 1 and err == f"fennel: {osu}:15:1: the osu_allreduce table does not say how many "
      "ranks ran it (give --ranks N)\n", err)

# IMB: Allreduce at 2 and 4 processes (its #processes lines); Sendrecv is not a collective.
# The 0-byte rows (0.02 us) are IMB's no-op reductions (MPI returns at once from a collective
# of no data): left out and counted, not scored against a model that would send messages.
imb = os.path.join(DATA, "imb-sendrecv-allreduce-two-np.txt")
doc, err = compare(imb)
expect("IMB Allreduce at 2 and 4 processes, t_min", doc, err,
       [(s, 2, 2 * (1 + s / 100) * 1000, rd(2, s)) for s in (4, 8, 16)] +
       [(s, 4, 4 * (1 + s / 100) * 1000, rd(4, s)) for s in (4, 8, 16)])
check("IMB: the two 0-byte rows are left out and counted in the JSON",
      doc is not None and doc["zero_byte_rows_left_out"] == 2, f"{doc and doc.get('zero_byte_rows_left_out')}")
code, out, err = fennel("compare", imb, "--model", MODEL)
check("IMB: the text says that the 0-byte rows are left out",
      code == 0 and out.endswith("left out: 2 rows of 0 bytes (a collective of no data returns at "
                                 "once)\n"), out + err)

# IMB's loop (docs/CALIBRATION.md): IMB 4.1 times a rank's #repetitions calls back to back,
# the root moving to the next rank at every call; IMB 2018 one call after a barrier. Postal
# alpha 1 us, beta 1 ns/B with eager: 64KiB (tests/data/eager/eager.model.yaml): a 1000 B
# message arrives 2000 ns after it is sent and holds its eager sender for 1000 ns. One
# bcast-binomial call at 2 ranks: the root is done at 1000, the other rank at 2000 (min 1000,
# mean 1500). IMB 4.1's 3 calls: root 0 sends at 0 (rank 1 has it at 2000); root 1 sends at
# 2000, rank 0 (done with call 0 at 1000) has it at 4000; root 0 sends at 4000, rank 1 has it at
# 6000 and rank 0 is done at 5000: over 3 calls, rank 0 5000 / 3 = 1666.667 ns and rank 1
# 2000 ns (min 1666.667, mean 1833.333). 2000 B run once: one call, 2000 and 3000 ns.
eager_model = os.path.join("tests", "data", "eager", "eager.model.yaml")
for banner, stat, want in (
        ("imb41", "min", [(1000, 5000 / 3, 3), (2000, 2000, 1)]),
        ("imb41", "mean", [(1000, 5500 / 3, 3), (2000, 2500, 1)]),
        ("imb2018", "min", [(1000, 1000, 0), (2000, 2000, 0)]),
        ("imb2018", "mean", [(1000, 1500, 0), (2000, 2500, 0)])):
    code, out, err = fennel("compare", os.path.join(DATA, f"{banner}-bcast.txt"), "--model",
                            eager_model, "--statistic", stat, "--json")
    got = [(p["size_bytes"], p["model_ns"], p["imb_loop_calls"])
           for p in json.loads(out)["points"]] if code == 0 else err
    check(f"IMB's loop: {banner} Bcast at 2 ranks, eager, {stat} over the ranks: {want}",
          code == 0 and len(got) == len(want) and
          all(g[0] == w[0] and close(g[1], w[1]) and g[2] == w[2] for g, w in zip(got, want)),
          got)
# The root moves on at every call: bcast-binomial at 3 ranks (MPICH's tree) has the root send
# to rank 2, then to rank 1; call k runs it with ranks renumbered (r + k) mod 3. With eager
# (x = 2000 ns a message, h = 1000 ns of bytes): call 0, root 0 sends at 0 and h, done at 2h;
# rank 2 has its message at x, rank 1 at h + x. Call 1, root 1 from h + x sends to rank 0
# (there at h + 2x) and rank 2 (2h + 2x), done at 3h + x. Call 2, root 2 from 2h + 2x sends to
# rank 1 (2h + 3x) and rank 0 (3h + 3x), done at 4h + 2x. Ends 9000, 8000 and 8000 ns: min
# 8000 / 3 ns, mean 25000 / 9 ns. (With the root fixed at 0 rank 0 would end at 6h, 2000 ns a
# call.)
for stat, want in (("min", 8000 / 3), ("mean", 25000 / 9)):
    code, out, err = fennel("compare", os.path.join(DATA, "imb41-bcast-3.txt"), "--model",
                            eager_model, "--statistic", stat, "--json")
    got = [p["model_ns"] for p in json.loads(out)["points"]] if code == 0 else err
    check(f"IMB's loop at 3 ranks, the root moving on at every call, {stat}: {want:.3f} ns",
          code == 0 and len(got) == 1 and close(got[0], want), got)
# Without eager (compare --set eager=0: no limit) the sender waits for its message: every call
# takes 2000 ns on both ranks, and the loop's 6000 ns over 3 calls is 2000 ns too.
code, out, err = fennel("compare", os.path.join(DATA, "imb41-bcast.txt"), "--model",
                        eager_model, "--set", "eager=0", "--json")
got = [p["model_ns"] for p in json.loads(out)["points"]] if code == 0 else err
check("IMB's loop without eager: 2000 ns a call (3000 ns at 2000 B)",
      code == 0 and got == [2000, 3000], got)
code, out, err = fennel("compare", os.path.join(DATA, "imb41-bcast.txt"), "--model", eager_model)
check("IMB's loop: the text says which points were timed as a loop",
      code == 0 and out.endswith("IMB before 2017: 2 points timed as a rank's loop of its "
                                 "#repetitions calls back to back, the root moving on at every "
                                 "call, over the calls (docs/CALIBRATION.md, IMB's loop)\n"),
      out + err)

# OSU's all-to-all is titled "All-to-All Personalized Exchange Latency Test" (v7.5 with its
# Datatype line and Validation column): read as alltoall and simulated by alltoall-pairwise,
# p - 1 = 3 steps of one put each, 3 (100 + 500 + 0.4 s) ns at 4 ranks: 1801.2, 1809.6 and
# 1876.8 ns at 1, 8 and 64 B.
a2a = [1801.2, 1809.6, 1876.8]
doc, err = compare(os.path.join(DATA, "osu-alltoall-v7.txt"), "--ranks", "4")
expect("OSU osu_alltoall v7.5: alltoall by alltoall-pairwise", doc, err,
       [(1, 4, 2700, a2a[0]), (8, 4, 3620, a2a[1]), (64, 4, 5630, a2a[2])])
check("OSU osu_alltoall: one alltoall table",
      doc is not None and [(t["collective"], t["generator"]) for t in doc["tables"]] ==
      [("alltoall", "alltoall-pairwise")], f"{doc and doc['tables']}")
# nccl-tests' alltoall_perf prints the whole buffer of n blocks: 32 and 256 B at 4 ranks are
# blocks of 8 and 64 B for alltoall-pairwise.
doc, err = compare(os.path.join(DATA, "nccl-alltoall.txt"))
expect("nccl-tests alltoall_perf: the block is size / n", doc, err,
       [(32, 4, 3600, a2a[1]), (256, 4, 3700, a2a[2])])

# Repeated runs of one test (three osu_allreduce tables) are pooled per size, as fit pools
# them: at 4 B the runs give 9, 11, 16 us, at 8 B 10, 12, 14 us.
runs = os.path.join(DATA, "osu-allreduce-three-runs.txt")
for stat, m4, m8 in (("median", 11000, 12000), ("min", 9000, 10000), ("mean", 12000, 12000)):
    doc, err = compare(runs, "--ranks", "2", "--statistic", stat)
    expect(f"three runs pooled per point, --statistic {stat}", doc, err,
           [(4, 2, m4, rd(2, 4)), (8, 2, m8, rd(2, 8))])
    check(f"three runs pooled, --statistic {stat}: 3 samples a point",
          doc is not None and [p["samples"] for p in doc["points"]] == [3, 3])

# An nccl-tests log of five tests (a script's loop naming them all, then each test): five
# tables, each scored with its own collective and generator.
five = os.path.join(DATA, "nccl-five-collectives.txt")
doc, err = compare(five)
tables = [(t["collective"], t["generator"], t["ranks"], t["points"]) for t in doc["tables"]] \
    if doc else []
check("nccl-tests log of five tests: five tables, each its own collective",
      tables == [("allreduce", "allreduce-rd", 4, 2), ("allgather", "allgather-ring", 4, 2),
                 ("bcast", "bcast-binomial", 4, 2), ("reduce_scatter", "reduce-scatter-ring", 4, 2),
                 ("reduce", "reduce-binomial", 4, 2)], f"{tables} {err}")
# allreduce at 4 ranks: measured 2500 and 3000 ns, model rd(4, 8) = 1226.4, rd(4, 16) = 1232.8:
# errors 0.50944 and 0.58907, ratios 0.49056 and 0.41093.
e = [abs(rd(4, 8) - 2500) / 2500, abs(rd(4, 16) - 3000) / 3000]
r = [rd(4, 8) / 2500, rd(4, 16) / 3000]
t0 = doc["tables"][0] if doc else {}
check("nccl-tests log of five tests: the allreduce table's median and worst error, ratio",
      doc is not None and close(t0["median_relative_error"], sum(e) / 2) and
      close(t0["worst_relative_error"], max(e)) and t0["worst_bytes"] == 16 and
      close(t0["median_ratio"], sum(r) / 2), f"{t0}")
code, out, err = fennel("compare", five, "--model", MODEL)
check("nccl-tests log of five tests: the text names each table's score",
      code == 0 and f"allreduce by allreduce-rd, 4 ranks: 2 points, |model - measured| / measured "
      f"median {100 * sum(e) / 2:.2f} %, worst {100 * max(e):.2f} % at 16B, model/measured median "
      f"{sum(r) / 2:.4f}\n" in out, out + err)

# A one-way table is not a collective.
code, out, err = fennel("compare", os.path.join(DATA, "osu-latency-v5.txt"), "--model", MODEL)
check("no collective: an error", code == 1 and err.startswith("fennel: no collective times"),
      err)
code, out, err = fennel("compare", osu, "--ranks", "2")
check("--model is required", code == 2 and err == "fennel: compare: --model FILE is required\n",
      err)

# --ppn P: P consecutive ranks per node (docs/TOPOLOGY.md, Ranks that share a node). A postal
# network (alpha 1 us, beta 1 ns/B, computes free) with no intra model: messages within a node
# take the shared-memory default, postal alpha 300 ns, beta 0.1 ns/B. 4 ranks, ppn 2: ranks 0
# and 1 on node 0, 2 and 3 on node 1.
with tempfile.TemporaryDirectory() as tmp:
    net = os.path.join(tmp, "net.yaml")
    with open(net, "w") as f:
        f.write("fennel: 1\nnetwork: {model: postal, alpha: 1us, beta: 1ns/B}\n")
    intra = os.path.join(tmp, "intra.yaml")
    with open(intra, "w") as f:
        f.write("fennel: 1\nnetwork: {model: postal, alpha: 1us, beta: 1ns/B}\n"
                "placement: {ranks_per_node: 1}\n"
                "intra: {model: postal, alpha: 100ns, beta: 0.5ns/B}\n")
    pts = os.path.join(tmp, "ppn.csv")
    with open(pts, "w") as f:
        f.write("generator,ranks,size_bytes,schedule,time_ns\n"
                "allreduce-rd,4,400,,2000\nallreduce-ring,4,400,,8000\n")

    def ppn_times(model, *extra):
        code, out, err = fennel("compare", pts, "--model", model, "--json", *extra)
        doc = json.loads(out) if code == 0 else None
        return ([p["model_ns"] for p in doc["points"]] if doc else None), doc, err

    # Recursive doubling, 400 B: step 1 pairs r with r ^ 1 (0-1, 2-3: within a node, 300 + 40 =
    # 340 ns), step 2 pairs r with r ^ 2 (0-2, 1-3: between nodes, 1000 + 400 = 1400 ns): 1740.
    # The ring, 400 B in 4 blocks of 100 B: every step each rank sends rank + 1 a block;
    # 0->1 and 2->3 are within a node (310 ns), 1->2 and 3->0 between nodes (1100 ns), so each
    # of the 2 (4 - 1) = 6 steps waits for a message between nodes: 6600 ns, as without --ppn.
    # --nic own: every rank its own NIC, as the sums above take it.
    got, doc, err = ppn_times(net, "--ppn", "2", "--nic", "own")
    check("--ppn 2 without an intra model: the shared-memory default times messages within a "
          "node", got is not None and close(got[0], 1740) and close(got[1], 6600), f"{got} {err}")
    check("--ppn 2: the JSON says the default was used",
          doc is not None and doc["ranks_per_node"] == 2 and doc["intra_default"] is True and
          doc["model"]["intra"]["model"] == "postal" and doc["nic_default"] is False,
          f"{doc and doc.get('model')}")
    # --ppn 2 alone: the ranks of a node share one NIC (docs/TOPOLOGY.md, Shared NICs). In
    # recursive doubling's step 2 (from 340 ns) node 0 sends 0->2 and 1->3 through its one
    # sending port, each holding it for its 400 B (400 ns): the first takes node 1's receiving
    # port at 340 + 1000 = 1340 until 1740, the second leaves at 740 and takes it at
    # max(740 + 1000, 1740) = 1740, arriving at 2140 ns. The ring sends one message each way
    # between the nodes per step: 6600 ns, unchanged.
    got, doc, err = ppn_times(net, "--ppn", "2")
    check("--ppn 2: the ranks of a node share its NIC by default",
          got is not None and close(got[0], 2140) and close(got[1], 6600) and
          doc["nic_default"] is True and doc["model"].get("nic") == "shared", f"{got} {err}")
    # Without --ppn every message is between nodes: 2 x 1400 and 6 x 1100.
    got, doc, err = ppn_times(net)
    check("without --ppn: every message between nodes",
          got is not None and close(got[0], 2800) and close(got[1], 6600) and
          "ranks_per_node" not in doc, f"{got} {err}")
    # The model's own intra model (alpha 100 ns, beta 0.5 ns/B; its placement of 1 rank per
    # node, which --ppn replaces): step 1 takes 100 + 200 = 300 ns, so recursive doubling
    # 300 + 1400 = 1700 ns.
    got, doc, err = ppn_times(intra, "--ppn", "2", "--nic", "own")
    check("--ppn 2 with the model's intra model", got is not None and close(got[0], 1700) and
          doc["intra_default"] is False, f"{got} {err}")
    # A model file that names its NIC keeps it: nic: own in its placement, as --nic own.
    own = os.path.join(tmp, "own.yaml")
    with open(own, "w") as f:
        f.write("fennel: 1\nnetwork: {model: postal, alpha: 1us, beta: 1ns/B}\n"
                "placement: {ranks_per_node: 1, nic: own}\n"
                "intra: {model: postal, alpha: 100ns, beta: 0.5ns/B}\n")
    got, doc, err = ppn_times(own, "--ppn", "2")
    check("--ppn 2 with nic: own in the model file: no default", got is not None and
          close(got[0], 1700) and doc["nic_default"] is False, f"{got} {err}")
    # LogGP times each rank's NIC itself (g, G) and takes no ports: nothing is shared.
    loggp = os.path.join(tmp, "loggp.yaml")
    with open(loggp, "w") as f:
        f.write("fennel: 1\nnetwork: {model: loggp, L: 1us, o: 0ns, g: 0ns, G: 1ns/B}\n")
    got, doc, err = ppn_times(loggp, "--ppn", "2")
    check("--ppn 2 under LogGP: no shared NIC", got is not None and doc["nic_default"] is False
          and "nic" not in doc["model"], f"{got} {doc and doc.get('model')} {err}")
    # --ppn 4: one node, every message within it: rd 2 x 340 = 680, ring 6 x 310 = 1860.
    got, doc, err = ppn_times(net, "--ppn", "4")
    check("--ppn 4 at 4 ranks: one node", got is not None and close(got[0], 680) and
          close(got[1], 1860), f"{got} {err}")
    # --ppn 3 at 4 ranks (not a divisor): ranks 0-2 on node 0, rank 3 alone on node 1. rd step 1
    # pairs 0-1 (within) and 2-3 (between: 1400); step 2 pairs 0-2 (within, 340) and 1-3
    # (between, 1400): 2800 for ranks 1 and 3, whose step 2 starts at 1400.
    got, doc, err = ppn_times(net, "--ppn", "3")
    check("--ppn 3 at 4 ranks: the last node holds the rest", got is not None and
          close(got[0], 2800), f"{got} {err}")
    code, out, err = fennel("compare", pts, "--model", net, "--ppn", "2")
    check("--ppn 2: the text says how messages within a node are timed",
          code == 0 and out.startswith(
              "ranks per node: 2 (consecutive ranks share a node); messages within a node: "
              "postal alpha=300ns beta=0.1ns/B (the shared-memory default: the model has no "
              "intra model)\nports: one NIC per node, shared by its ranks, full duplex (the "
              "default under --ppn: the network model is a ping-pong between nodes, one rank on "
              "each; --nic own gives every rank its own)\n"), out + err)
    # --nic shared (docs/TOPOLOGY.md, Shared NICs and half-duplex ports): in recursive
    # doubling's step 2 (from 340 ns) node 0 sends 0->2 and 1->3 through its one sending port,
    # each holding it for its 400 B (400 ns): the second leaves 400 ns later and arrives at
    # 340 + 400 + 1400 = 2140 ns; likewise node 1's. The ring sends one message each way
    # between the nodes per step: 6600 ns, unchanged.
    got, doc, err = ppn_times(net, "--ppn", "2", "--nic", "shared")
    check("--ppn 2 --nic shared: the second message leaving a node waits for its bytes",
          got is not None and close(got[0], 2140) and close(got[1], 6600), f"{got} {err}")
    # --duplex half, a port per rank: step 2's exchanges 0-2 and 1-3 each take twice a
    # message, 340 + 2 x 1400 = 3140 ns. With --nic shared too, each node has one port that
    # carries one direction at a time. From 340 ns node 0 sends first (rank 0's put is first
    # in program order): 0->2 leaves at 340 and arrives at 1740, 1->3 follows its 400 B,
    # leaving at 740 and arriving at max(740 + 1000, 1740) + 400 = 2140. Node 1's ports turn
    # once the line is clear, at 2140: 2->0 arrives at 2140 + 1400 = 3540, and 3->1,
    # following its bytes from 2540, at max(2540 + 1000, 3540) + 400 = 3940 ns (whole-message
    # holds, one after another, would give 340 + 4 x 1400 = 5940 ns).
    got, doc, err = ppn_times(net, "--ppn", "2", "--duplex", "half", "--nic", "own")
    check("--ppn 2 --duplex half: an exchange between nodes takes two messages",
          got is not None and close(got[0], 3140), f"{got} {err}")
    got, doc, err = ppn_times(net, "--ppn", "2", "--duplex", "half", "--nic", "shared")
    check("--ppn 2 --duplex half --nic shared: one port per node, one direction at a time",
          got is not None and close(got[0], 3940) and doc["model"].get("duplex") == "half" and
          doc["model"].get("nic") == "shared", f"{got} {err}")
    code, out, err = fennel("compare", pts, "--model", net, "--nic", "shared", "--duplex", "half")
    check("--nic shared --duplex half: the text names the ports",
          code == 0 and out.startswith("ports: one NIC per node, shared by its ranks, half "
                                       "duplex (sends and receives do not overlap)\n"), out + err)
    code, out, err = fennel("compare", pts, "--model", net, "--duplex", "quarter")
    check("--duplex quarter: a usage error",
          code == 2 and err == "fennel: --duplex: expected full or half, or 'half, full from "
          "8KiB, ...' (a mode is full or half), got 'quarter'\n", err)
    code, out, err = fennel("compare", pts, "--model", net, "--ppn", "-1")
    check("--ppn -1: a usage error",
          code == 2 and err == "fennel: compare: --ppn: expected a whole number >= 1\n", err)

# --ranks 0 is a usage error with the option's rule (it was taken as not given, and the run
# then failed asking for --ranks).
code, out, err = fennel("compare", osu, "--ranks", "0", "--model", MODEL)
check("--ranks 0: exit 2, the option's rule",
      code == 2 and err == "fennel: compare: --ranks: expected a whole number >= 1\n", err)

# One rank: an allreduce of one rank takes 0 ns under any model (log2(1) = 0 stages), so
# there is no relative difference (measured - model) / model: null in JSON (never NaN,
# which is no JSON), "-" in the text, and the summary says there is none. The error against
# the measurement, |0 - m| / m, is 1.
code, out, err = fennel("compare", os.path.join(DATA, "osu-allreduce-three-runs.txt"), "--ranks",
                        "1", "--model", MODEL, "--json")
try:
    doc = json.loads(out) if code == 0 else None
except ValueError:
    doc = None
check("--ranks 1 --json: valid JSON, null relative differences",
      doc is not None and len(doc["points"]) == 2 and
      all(p["model_ns"] == 0 and p["relative_difference"] is None and p["relative_error"] == 1
          for p in doc["points"]) and
      doc["mean_relative_difference"] is None and doc["worst_relative_difference"] is None,
      out + err)
code, out, err = fennel("compare", os.path.join(DATA, "osu-allreduce-three-runs.txt"), "--ranks",
                        "1", "--model", MODEL)
lines = out.splitlines()
check("--ranks 1: '-' for each relative difference, no nan, and no mean",
      code == 0 and "nan" not in out and len(lines) == 6 and
      all(line.split()[5] == "-" for line in lines[1:3]) and
      lines[5] == "relative difference (measured - model) / model: none (the model's times "
      "are 0)", out + err)

# nccl-tests with a time of 0 at 8 bytes: no bandwidth, error or ratio from it (null in JSON,
# "-" in the text, never inf or nan); the other points keep theirs: 16 B in 3 us is an algbw
# of 16 / 3000 GB/s, busbw 2 (p - 1) / p = 1.5 times that at 4 ranks.
with tempfile.TemporaryDirectory() as tmp:
    zero = os.path.join(tmp, "zero.txt")
    with open(os.path.join(ROOT, DATA, "nccl-allreduce-srun-label.txt")) as f:
        text = f.read()
    with open(zero, "w") as g:
        g.write(text.replace("     2.50  ", "     0.00  ", 1))
    doc, err = compare(zero)
    check("nccl-tests with a time of 0: busbw_measured_gbps, error and ratio null",
          doc is not None and doc["points"][0]["measured_ns"] == 0 and
          doc["points"][0]["busbw_measured_gbps"] is None and
          doc["points"][0]["relative_error"] is None and doc["points"][0]["ratio"] is None and
          close(doc["points"][1]["busbw_measured_gbps"], 16 / 3000 * 1.5), err)
    code, out, err = fennel("compare", zero, "--model", MODEL)
    check("nccl-tests with a time of 0: '-' in the text, no nan or inf",
          code == 0 and "nan" not in out and "inf" not in out and
          out.splitlines()[1].split()[-2:] == ["-", "-"], out + err)

# Over the ranks: IMB prints each rank's time in the call as the fastest (t_min), the slowest
# (t_max) and the average (t_avg) over the ranks, and the model's time is taken the same way
# from the ranks' ends. reduce-binomial at 4 ranks, 32 B: ranks 1 and 3 put to 0 and 2 at 0
# and are free at 100 ns (alpha_r); the puts arrive at 100 + 500 + 12.8 = 612.8; rank 2
# reduces (10 ns) and puts to 0 at 622.8, free at 722.8, arriving at 1235.6; rank 0 reduces
# at 612.8 and at 1235.6, ending at 1245.6. Earliest 100, mean (1245.6 + 100 + 722.8 + 100) /
# 4 = 542.1, makespan 1245.6 (a comparison CSV's time is the makespan).
with tempfile.TemporaryDirectory() as tmp:
    imb = os.path.join(tmp, "reduce.txt")
    with open(imb, "w") as f:
        f.write("#----------------------------------------------------------------\n"
                "# Benchmarking Reduce \n"
                "# #processes = 4 \n"
                "#----------------------------------------------------------------\n"
                "       #bytes #repetitions  t_min[usec]  t_max[usec]  t_avg[usec]\n"
                "           32         1000         0.20         1.50         0.60\n\n")
    doc, err = compare(imb)
    expect("IMB t_min: the model's earliest rank, 100 ns", doc, err, [(32, 4, 200, 100)])
    check("IMB t_min: over the ranks, min",
          doc is not None and doc["points"][0]["model_over_ranks"] == "min", err)
    doc, err = compare(imb, "--statistic", "median")
    expect("IMB t_avg: the mean of the model's ranks, 542.1 ns", doc, err,
           [(32, 4, 600, 542.1)])
    check("IMB t_avg: over the ranks, mean",
          doc is not None and doc["points"][0]["model_over_ranks"] == "mean", err)
    csv = os.path.join(tmp, "reduce.csv")
    with open(csv, "w") as f:
        f.write("generator,ranks,size_bytes,schedule,time_ns\nreduce-binomial,4,32,,1500\n")
    doc, err = compare(csv)
    expect("CSV: the makespan, 1245.6 ns", doc, err, [(32, 4, 1500, 1245.6)])
    check("CSV: over the ranks, max",
          doc is not None and doc["points"][0]["model_over_ranks"] == "max", err)

finish()
