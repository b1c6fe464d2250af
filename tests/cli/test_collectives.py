#!/usr/bin/env python3
"""CLI tests of the bandwidth-oriented and non-power-of-two collective generators.

Usage: test_collectives.py FENNEL SOURCE_ROOT. Prints TAP.

Times come from `fennel run --generate NAME ... --json` under the models in
tests/data/collectives (each file says which term of a cost formula it isolates),
message counts from `fennel generate` + `fennel validate --json`, and the data flow
from `fennel verify --generate` with the options the default sweep of the verify
tests does not use (roots, --ppn, --variant). Every expected value is derived in a
comment from the paper it comes from; tests/test_collectives.c has the full set.
"""
import json
import os
import subprocess
import sys
import tempfile

FENNEL, ROOT = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
DATA = "tests/data/collectives"
results = []


def fennel(*args):
    p = subprocess.run([FENNEL, *args], cwd=ROOT, capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def check(name, cond, diag=""):
    results.append((name, bool(cond), diag))


def makespan(model, gen_args):
    code, out, err = fennel("run", "--generate", *gen_args, "--model", f"{DATA}/{model}",
                            "--json")
    if code != 0:
        return f"exit {code}: {err.strip()}"
    return json.loads(out)["makespan_ns"]


def expect_time(name, model, gen_args, ns):
    got = makespan(model, gen_args)
    check(name, isinstance(got, (int, float)) and abs(got - ns) < 5e-4, f"expected {ns}, got {got}")


def expect_terms(name, gen_args, a, b, c, n):
    """a alpha + b n beta + c n gamma with alpha 1000 ns, beta 1 ns/B, gamma 0.5 ns/B."""
    expect_time(name + ": alpha terms", "postal-alpha.model.yaml", gen_args, a * 1000)
    expect_time(name + ": beta terms", "postal-beta.model.yaml", gen_args, b * n)
    expect_time(name + ": gamma terms", "gamma.model.yaml", gen_args, c * n * 0.5)
    expect_time(name + ": all terms", "postal-gamma.model.yaml", gen_args,
                a * 1000 + b * n + c * n * 0.5)


def expect_error(name, args, status, stderr):
    code, out, err = fennel(*args)
    check(name, code == status and err == "fennel: " + stderr + "\n" and out == "",
          f"status {code}, stderr {err!r}, stdout {out[:200]!r}")


# Rabenseifner 2004 §3.5 with f_alpha = f_beta = 1: allreduce at p = 8,
# 2 lg p a + 2nb + ng - (2nb + ng)/p = 6a + 1.75nb + 0.875ng; at p = 13 (p' = 8),
# (2 lg p' + 3)a + 4nb + 1.5ng - (2nb + ng)/p' = 9a + 3.75nb + 1.375ng; reduce at p = 13,
# lg p'(1 + f_a)a + (1 + f_a)a + 3nb + 1.5ng - (2nb + ng)/p' = 8a + 2.75nb + 1.375ng,
# whatever the root (a removed root swaps with its partner at no cost).
expect_terms("allreduce-rabenseifner p=8", ["allreduce-rabenseifner", "--ranks", "8",
                                            "--size", "1024"], 6, 1.75, 0.875, 1024)
expect_terms("allreduce-rabenseifner p=13", ["allreduce-rabenseifner", "--ranks", "13",
                                             "--size", "1024"], 9, 3.75, 1.375, 1024)
expect_terms("reduce-rabenseifner p=13 root 5", ["reduce-rabenseifner", "--ranks", "13",
                                                 "--root", "5", "--size", "1024"],
             8, 2.75, 1.375, 1024)
# Rabenseifner 2004 §3.7: T_all,ring = 2(p-1)a + 2nb + ng - (2nb + ng)/p =
# 8a + 1.6nb + 0.8ng at p = 5.
expect_terms("allreduce-ring p=5", ["allreduce-ring", "--ranks", "5", "--size", "1000"],
             8, 1.6, 0.8, 1000)

# Rabenseifner and Träff 2004 §3.3-3.4: rounds (1-ported) ceil(lg p) + 1 for small
# vectors in general (p = 13: 5), ceil(lg p) for p = 3 x 2^n with rings of 3 (p = 12: 4,
# p = 24: 5), 2 ceil(lg p) for large vectors (p = 13: 8).
for p, variant, rounds in [(13, "latency", 5), (12, "latency", 4), (24, "latency", 5),
                           (13, "bandwidth", 8)]:
    expect_time(f"allreduce-elimination {variant} p={p}: {rounds} rounds",
                "rounds-logp.model.yaml",
                ["allreduce-elimination", "--ranks", str(p), "--variant", variant], rounds * 1000)
# §3.3 and §4: large vectors at p = 24 = 3 x 2^3: 2 ceil(lg p) a + 2m(1 + 1/2^4 - 1/16)b +
# m(1 + 1/2^4 - 1/16)g = 10a + 2mb + mg = 10000 + 2048 + 512 ns.
expect_time("allreduce-elimination bandwidth p=24", "postal-gamma.model.yaml",
            ["allreduce-elimination", "--ranks", "24", "--variant", "bandwidth", "--size",
             "1024"], 12560)

# PiP-MColl (Huang et al. 2023 §III-A): ceil(log_{P+1} N) inter-node rounds; 128 nodes of
# 18 ranks need ceil(log_19 128) = 2 (19 < 128 <= 361), 19 nodes of 18 need 1; the
# ring allgather over 4 nodes needs 3.
expect_time("allgather-mo small 128 nodes x 18", "pip-18.model.yaml",
            ["allgather-mo", "--ranks", str(128 * 18), "--ppn", "18", "--variant", "small"], 2000)
expect_time("scatter-mo 19 nodes x 18", "pip-18.model.yaml",
            ["scatter-mo", "--ranks", str(19 * 18), "--ppn", "18"], 1000)
expect_time("allgather-mo large 4 nodes x 2", "pip-2.model.yaml",
            ["allgather-mo", "--ranks", "8", "--ppn", "2", "--variant", "large"], 3000)

# Message counts through a generated file and `fennel validate --json`.
with tempfile.TemporaryDirectory() as tmp:
    for name, args, messages, nbytes in [
        # 2 x lg p stages of 8 messages; each rank sends n/2 + n/4 + n/8 per half.
        ("allreduce-rabenseifner p=8", ["allreduce-rabenseifner", "--ranks", "8", "--size",
                                        "1024"], 48, 2 * 8 * 896),
        # 2(p - 1) steps of p messages of n/p.
        ("allreduce-ring p=5", ["allreduce-ring", "--ranks", "5", "--size", "1000"], 40, 8000),
        # 13 x 4 messages carrying 1 + 2 + 4 + 5 blocks of 100 B.
        ("allgather-bruck p=13", ["allgather-bruck", "--ranks", "13", "--size", "100"], 52,
         13 * 12 * 100),
        # A 3-2 step (4), two groups of four (6 each), a pair (2), 2 butterfly levels on 8
        # survivors (16), 5 returns: 39 whole vectors.
        ("allreduce-elimination latency p=13", ["allreduce-elimination", "--ranks", "13",
                                                "--size", "1024"], 39, 39 * 1024),
    ]:
        path = os.path.join(tmp, "p.yaml")
        code, out, err = fennel("generate", *args, "-o", path)
        code2, out2, err2 = fennel("validate", path, "--json") if code == 0 else (code, "", err)
        try:
            doc = json.loads(out2)
        except ValueError:
            doc = {}
        check(f"{name}: {messages} messages, {nbytes} bytes",
              doc.get("messages") == messages and doc.get("bytes") == nbytes,
              f"{err}{err2}{out2}")

# The data flow with the options the default verify sweep leaves alone.
VERIFY = [
    ["reduce-rabenseifner", "--ranks", "13", "--root", r] for r in ("0", "3", "10", "12")
] + [
    ["bcast-scatter-allgather", "--ranks", "11", "--root", r] for r in ("0", "6", "10")
] + [
    ["allreduce-elimination", "--ranks", str(p), "--variant", v]
    for p in (7, 12, 20, 27, 45) for v in ("latency", "bandwidth")
] + [
    ["allgather-mo", "--ranks", str(n * k), "--ppn", str(k), "--variant", v]
    for n, k in ((5, 2), (9, 2), (7, 3), (16, 3)) for v in ("small", "large")
] + [
    ["allreduce-mo", "--ranks", str(n * k), "--ppn", str(k)] for n, k in ((4, 2), (6, 3), (8, 4))
] + [
    ["scatter-mo", "--ranks", "54", "--ppn", "2", "--root", r] for r in ("0", "22")
] + [
    ["scatter-mo", "--ranks", "48", "--ppn", "3", "--root", "9"],
]
for args in VERIFY:
    code, out, err = fennel("verify", "--generate", *args, "--size", "1000")
    check("verify " + " ".join(args), code == 0 and err == "" and ": ok: " in out, out + err)

# Outside its domain a generator says what it accepts, on one line, exit 1; an option it
# does not use is a usage error, exit 2.
expect_error("scatter-mo: nodes not a power of ppn + 1",
             ["run", "--generate", "scatter-mo", "--ranks", "12", "--ppn", "2"], 1,
             "scatter-mo needs a node count (--ranks / --ppn) that is a power of --ppn + 1, "
             "got 6 nodes")
expect_error("scatter-mo: root inside a node",
             ["run", "--generate", "scatter-mo", "--ranks", "18", "--ppn", "2", "--root", "3"],
             1, "scatter-mo needs --root to be the first rank of a node (a multiple of --ppn "
             "below --ranks), got 3")
expect_error("allgather-mo: ranks not a multiple of ppn",
             ["run", "--generate", "allgather-mo", "--ranks", "7", "--ppn", "2"], 1,
             "allgather-mo needs --ranks a multiple of --ppn (nodes x ranks per node), got 7 "
             "and 2")
expect_error("allreduce-mo: nodes not a multiple of ppn",
             ["run", "--generate", "allreduce-mo", "--ranks", "18", "--ppn", "2"], 1,
             "allreduce-mo needs a node count (--ranks / --ppn) that is a multiple of --ppn, "
             "got 9 nodes of 2 ranks")
expect_error("reduce-rabenseifner: root out of range",
             ["run", "--generate", "reduce-rabenseifner", "--ranks", "4", "--root", "4"], 1,
             "reduce-rabenseifner needs --root in 0..3 (the --ranks)")
expect_error("allreduce-elimination: unknown variant",
             ["run", "--generate", "allreduce-elimination", "--variant", "fast"], 1,
             "allreduce-elimination: unknown --variant 'fast' (latency or bandwidth)")
expect_error("allreduce-ring: --ppn is not its option",
             ["run", "--generate", "allreduce-ring", "--ppn", "2"], 2,
             "generator allreduce-ring does not use --ppn (it uses: --ranks, --size)")

# SMP-aware generators (docs/COLLECTIVES.md, Ranks that share a node) under a postal
# network of alpha 1000 ns, beta 0, free computes, with --ppn P consecutive ranks per node
# (the model's ranks_per_node, set to the same P) timed within a node by alpha 100 ns. Under
# postal a sender is busy until its message arrives.
def smp_time(gen, ranks, ppn, *extra):
    code, out, err = fennel("run", "--generate", gen, "--ranks", str(ranks), "--ppn", str(ppn),
                            "--size", "8", "--network", "postal", "--set", "alpha=1us",
                            "--set", f"ranks_per_node={ppn}", "--set", "intra.alpha=100ns",
                            *extra, "--json")
    return json.loads(out)["makespan_ns"] if code == 0 else f"exit {code}: {err.strip()}"


# allreduce-smp, 8 ranks, ppn 4 (nodes 0-3 and 4-7): the binomial reduce in each node
# (1->0, 3->2, 5->4, 7->6, then 2->0, 6->4: 200 ns), the leaders 0 and 4 exchange (1000 ns),
# the binomial bcast in each node (0->2, 4->6, then 0->1, 2->3, 4->5, 6->7: 200 ns): 1400 ns.
got = smp_time("allreduce-smp", 8, 4)
check("allreduce-smp: 8 ranks, ppn 4", got == 1400, f"{got}")
# 7 ranks, ppn 3 (nodes 0-2, 3-5 and 6 alone; leaders 0, 3, 6; 3 leaders: one extra). Reduce
# in the nodes: 1->0 and 4->3 (0-100), and 2->0, 5->3 also at 0-100, since ranks 2 and 5 have
# nothing to do in the first stage and do not wait for it: leaders 0 and 3 ready at 100.
# MPICH's pre-step: leader 0 sends to leader 3 (100-1100). Recursive doubling of 3 and 6: 6->3
# arrives at 1000 and 3->6 takes 1100-2100, which keeps 3 busy; then 3 returns the result to
# 0 (2100-3100), and 0 and 3 bcast in their nodes: 0->2 and 3->5 (3100-3200), 0->1 and 3->4
# (3200-3300). 3300 ns.
got = smp_time("allreduce-smp", 7, 3)
check("allreduce-smp: 7 ranks, ppn 3 (the last node holds 1 rank)", got == 3300, f"{got}")
# bcast-smp, 8 ranks, ppn 4, root 1: 1 -> its leader 0 (100), 0 -> 4 (1000), bcast in the
# nodes (2 x 100): 1300 ns.
got = smp_time("bcast-smp", 8, 4, "--root", "1")
check("bcast-smp: 8 ranks, ppn 4, root 1", got == 1300, f"{got}")
# reduce-smp, 8 ranks, ppn 4, root 5: reduce in the nodes (200), leader 0 -> leader 4
# (1000), 4 -> the root 5 (100): 1300 ns.
got = smp_time("reduce-smp", 8, 4, "--root", "5")
check("reduce-smp: 8 ranks, ppn 4, root 5", got == 1300, f"{got}")
# ppn 1: every rank its own node; allreduce-smp is recursive doubling, 3 x 1000 at 8 ranks.
got = smp_time("allreduce-smp", 8, 1)
check("allreduce-smp: ppn 1 is recursive doubling", got == 3000, f"{got}")
# allgather-smp, 8 ranks, ppn 4: the binomial gather in each node (1->0, 3->2, 5->4, 7->6,
# then 2->0, 6->4: 200 ns), the ring of the 2 leaders, one step (0->4 and 4->0, 200-1200),
# the binomial bcast in each node (0->2, then 0->1 and 2->3: 1200-1400): 1400 ns.
got = smp_time("allgather-smp", 8, 4)
check("allgather-smp: 8 ranks, ppn 4", got == 1400, f"{got}")
# 7 ranks, ppn 3 (nodes 0-2, 3-5 and 6 alone; leaders 0, 3, 6). Gather: 1->0, 2->0, 4->3,
# 5->3 all at 0-100 (ranks 2 and 5 wait for nothing); 6 has its node at 0. Ring, step 1:
# 0->3 and 3->6 (100-1100), 6->0 (0-1000); step 2: each leader forwards what it received, once
# it is free and has it: 0->3, 3->6 and 6->0 at 1100-2100. Bcast in the nodes of 3: 0->2 and
# 3->5 (2100-2200), 0->1 and 3->4 (2200-2300). 2300 ns.
got = smp_time("allgather-smp", 7, 3)
check("allgather-smp: 7 ranks, ppn 3 (the last node holds 1 rank)", got == 2300, f"{got}")
# ppn 1: every rank its own node; allgather-smp is the ring, 7 x 1000 at 8 ranks.
got = smp_time("allgather-smp", 8, 1)
check("allgather-smp: ppn 1 is the ring", got == 7000, f"{got}")
for gen in ("allreduce-smp", "bcast-smp", "reduce-smp", "allgather-smp"):
    for ranks, ppn in ((12, 4), (13, 4), (10, 3), (5, 8), (64, 6)):
        rooted = gen in ("bcast-smp", "reduce-smp")
        code, out, err = fennel("verify", "--generate", gen, "--ranks", str(ranks), "--ppn",
                                str(ppn), "--root", str(ranks - 1)) if rooted \
            else fennel("verify", "--generate", gen, "--ranks", str(ranks), "--ppn", str(ppn))
        check(f"{gen}: verify at {ranks} ranks, ppn {ppn}", code == 0, out + err)

print(f"1..{len(results)}")
failed = 0
for i, (name, ok, diag) in enumerate(results, 1):
    print(f"{'ok' if ok else 'not ok'} {i} - {name}")
    if not ok:
        failed += 1
        for line in str(diag).splitlines()[:10]:
            print(f"# {line}")
sys.exit(1 if failed else 0)
