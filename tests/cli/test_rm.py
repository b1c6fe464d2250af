#!/usr/bin/env python3
"""CLI tests of recursive doubling / recursive multiplying: the allreduce-rd/-rm and
allgather-rd/-rm generators through `run`, `generate`, `validate` and `verify`, and the
`schedules` command. Expected values are derived in the comments from Rueefenacht's thesis
(§5.2-5.6) and docs/SCHEDULES.md, not taken from fennel's output.

Usage: test_rm.py FENNEL SOURCE_ROOT. Prints TAP.
"""
import json
import os
import tempfile

from harness import FENNEL, ROOT, check, expect_error, fennel, finish, run_json

THESIS = "models/presets/thesis-figures.yaml"


def makespan(generator, ranks, schedule=None, *more):
    args = ["--generate", generator, "--ranks", str(ranks), *more]
    if schedule:
        args += ["--schedule", schedule]
    return run_json(*args).get("makespan_ns")


# The thesis figures (thesis §5.6.1 model, 8-byte messages): (a2,a2,a2) on 8 ranks,
# 3 x (603.2 + 10) = 1839.6 ns; (a8): 7 puts 100 ns apart, the last arriving at 600 +
# 603.2, then 10 ns of compute: 1213.2 ns; (a3,a2) on 6 ranks: (100 + 603.2 + 10) +
# (603.2 + 10) = 1326.4 ns.
check("(a2,a2,a2) at 8 ranks: 1839.6 ns",
      makespan("allreduce-rm", 8, "a2,a2,a2", "--model", THESIS) == 1839.6)
check("(a8) at 8 ranks: 1213.2 ns", makespan("allreduce-rm", 8, "a8", "--model", THESIS) == 1213.2)
check("(a3,a2) at 6 ranks: 1326.4 ns",
      makespan("allreduce-rm", 6, "(3,2)", "--model", THESIS) == 1326.4)
# allreduce-rd is (a2,a2,a2) on 8 ranks.
check("allreduce-rd at 8 ranks: 1839.6 ns", makespan("allreduce-rd", 8, None, "--model", THESIS)
      == 1839.6)
# Recursive doubling under lbp without bandwidth and compute: (alpha_p + alpha_r) log2 N
# (thesis Eq. 5.6): 16 ranks, 4 x 600 = 2400 ns.
check("allreduce-rd under lbp: (alpha_p + alpha_r) log2 N",
      makespan("allreduce-rd", 16, None, "--network", "lbp", "--set", "alpha_p=500ns",
               "--set", "alpha_r=100ns") == 2400)
# Under postal with gamma compute: log2 N (alpha + n beta + n gamma) (Eq. 5.2); 32 ranks,
# 64 B, alpha 1 us, beta 1 ns/B, gamma 0.5 ns/B: 5 x (1000 + 64 + 32) = 5480 ns. 12 ranks
# (MPICH's c8m2, a2 x 3, e8m2): (3 + 2) x 1096 = 5480 ns (Eq. 5.3 with floor(log2 N)).
postal = ["--network", "postal", "--set", "alpha=1us", "--set", "beta=1ns/B", "--set",
          "compute=gamma", "--set", "gamma=0.5ns/B", "--size", "64B"]
check("allreduce-rd under postal, 32 ranks", makespan("allreduce-rd", 32, None, *postal) == 5480)
check("allreduce-rd under postal, 12 ranks", makespan("allreduce-rd", 12, None, *postal) == 5480)
# The split and merged 7-rank AllReduces of thesis Figs. 5.28-5.29 (derived step by step in
# tests/test_schedule.c): 2452.8 ns and 1426.4 ns.
check("split c6m2,a2,a2,e6m2: 2452.8 ns",
      makespan("allreduce-rm", 7, "c6m2,a2,a2,e6m2", "--model", THESIS) == 2452.8)
check("merged m1g2a3,n1g3a2: 1426.4 ns",
      makespan("allreduce-rm", 7, "m1g2a3,n1g3a2", "--model", THESIS) == 1426.4)
# AllGather by recursive doubling, 8 ranks of 4096 B, postal alpha 100 ns, beta 0.02 ns/B,
# whole ns: stage s sends 4096 x 2^s B: 181 + 263 + 427 = 871 ns.
check("allgather-rd: messages double", makespan(
    "allgather-rd", 8, None, "--size", "4096B", "--network", "postal", "--set", "alpha=100ns",
    "--set", "beta=0.02ns/B", "--set", "resolution=1ns") == 871)

with tempfile.TemporaryDirectory() as tmp:
    # Thesis Eq. 5.12: N (f - 1) messages per stage: (4,4,4) at 64 ranks 3 x 64 x 3 = 576,
    # recursive doubling 6 x 64 x 1 = 384, counted by validate in the written program.
    def messages(generator, ranks, schedule=None):
        path = os.path.join(tmp, f"{generator}-{ranks}.yaml")
        args = ["generate", generator, "--ranks", str(ranks), "-o", path]
        if schedule:
            args += ["--schedule", schedule]
        code, out, err = fennel(*args)
        if code != 0:
            return err
        code, out, err = fennel("validate", "--json", path)
        try:
            return json.loads(out).get("messages")
        except ValueError:
            return err
    check("Eq. 5.12: (4,4,4) at 64 ranks sends 576 messages",
          messages("allreduce-rm", 64, "(4,4,4)") == 576)
    check("Eq. 5.12: recursive doubling at 64 ranks sends 384 messages",
          messages("allreduce-rd", 64) == 384)

# The data-flow checker accepts the programs (docs/SCHEDULES.md).
for generator, kind in [("allreduce-rd", "allreduce"), ("allreduce-rm", "allreduce"),
                        ("allgather-rd", "allgather"), ("allgather-rm", "allgather")]:
    bad = []
    for n in [1, 2, 3, 7, 11, 12, 13, 31, 64, 97, 100]:
        code, out, err = fennel("verify", "--generate", generator, "--ranks", str(n),
                                "--collective", kind)
        if code != 0:
            bad.append((n, err))
    check(f"verify {generator} as {kind}", not bad, bad)
code, out, err = fennel("verify", "--generate", "allreduce-rm", "--ranks", "11", "--schedule",
                        "(3,3)+2", "--collective", "allreduce")
check("verify the merged (3,3)+2", code == 0, err)

# Bad input: one line, exit 1 for an impossible schedule, exit 2 for usage errors.
expect_error("impossible factors", ["run", "--generate", "allreduce-rm", "--ranks", "7",
                                    "--schedule", "a4,a3"], 1,
             "allreduce-rm: --schedule a4,a3 is impossible for 7 ranks: the factors 4x3 = 12 "
             "do not multiply to the 7 ranks")
expect_error("threshold not divisible by the base",
             ["generate", "allreduce-rm", "--ranks", "8", "--schedule", "c7m2,a2,a2,e7m2"], 1,
             "allreduce-rm: --schedule c7m2,a2,a2,e7m2 is impossible for 8 ranks: c7m2: the "
             "threshold 7 is not divisible by the base 2")
expect_error("R + G F is not N",
             ["run", "--generate", "allgather-rm", "--ranks", "8", "--schedule", "m1g2a3,n1g3a2"],
             1, "allgather-rm: --schedule m1g2a3,n1g3a2 is impossible for 8 ranks: m1g2a3: R + G "
                "x F = 1 + 2x3 = 7, not the 8 active ranks")
expect_error("malformed stage", ["run", "--generate", "allreduce-rm", "--ranks", "8",
                                 "--schedule", "a2,b4"], 1,
             "allreduce-rm: --schedule a2,b4: stage 2 'b4' is not aF, cTmB, eTmB, mRgGaF or "
             "nRgGaF")
expect_error("rd takes no schedule", ["run", "--generate", "allreduce-rd", "--ranks", "8",
                                      "--schedule", "a8"], 2,
             "generator allreduce-rd does not use --schedule (it uses: --ranks, --size)")
expect_error("--ranks is required", ["run", "--generate", "allgather-rm"], 2,
             "generator allgather-rm needs --ranks (it uses: --ranks, --size, --schedule)")
expect_error("schedules without --ranks", ["schedules"], 2, "schedules: --ranks N is required")
expect_error("schedules: unknown option", ["schedules", "--ranks", "7", "--frob"], 2,
             "schedules: unknown option --frob")
expect_error("schedules: too many ranks", ["schedules", "--ranks", "2000000"], 1,
             "schedules: --ranks 2000000 is more than the 1048576 ranks the enumeration supports")

# fennel schedules. 7 ranks under the thesis figure model (the default): c = 500/100 = 5,
# b_opt = 4.572 and b_upper = 22.226 (thesis Eqs. 5.8, 5.9). Candidates 2..23 sorted by
# (5 + d - 1)/ln d start 6 (5.581), 5 (5.592), 7 (5.653), so the heuristic takes 7 itself:
# a7, 5 x 100 + 603.2 + 10 = 1113.2 ns, which is also the best. Recursive doubling is
# c6m2,a2,a2,e6m2, four stages of 603.2 + 10: 2452.8 ns. Counts: 1 factored; collapsed,
# sum over B | T of H(7 - T + T/B) = 13; merged, R = 1: H(6) - 1 = 2 and R = 3: H(4) - 1 =
# 1, so 3.
code, out, err = fennel("schedules", "--ranks", "7", "--json")
try:
    s = json.loads(out)
except ValueError:
    s = {}
check("schedules --json: counts", s.get("counts") == {"factored": 1, "collapsed": 13,
                                                      "merged": 3}, out)
check("schedules: b_opt and b_upper", abs(s.get("b_opt", 0) - 4.572) < 5e-4 and
      abs(s.get("b_upper", 0) - 22.226) < 5e-4 and s.get("max_factor") == 23, out)
check("schedules: the heuristic's choice", s.get("heuristic", {}).get("schedule") == "a7" and
      s.get("heuristic", {}).get("analytic_ns") == 1113.2, out)
check("schedules: recursive doubling", s.get("recursive_doubling", {}).get("schedule") ==
      "c6m2,a2,a2,e6m2" and s.get("recursive_doubling", {}).get("analytic_ns") == 2452.8, out)
ranked = s.get("schedules", [])
check("schedules: ranked by analytic time", len(ranked) == 17 and ranked[0]["schedule"] == "a7"
      and all(a["analytic_ns"] <= b["analytic_ns"] for a, b in zip(ranked, ranked[1:])), out)
# The merged schedules cost (5 x 100 + ... ) analytically: m1g2a3 is a remainder's multicast
# of 3 (200 + 603.2 + 10) and n1g3a2 one exchange plus one report (100 + 603.2 + 10):
# 1526.4 ns; simulated, the groups overlap and finish at 1426.4 ns (above).
merged = [r for r in ranked if r["schedule"] == "m1g2a3,n1g3a2"]
check("schedules: merged analytic time", merged and merged[0]["analytic_ns"] == 1526.4, merged)
code, out, err = fennel("schedules", "--ranks", "7", "--json", "--simulate", "--limit", "5")
try:
    s = json.loads(out)
except ValueError:
    s = {}
sim = s.get("schedules", [])
check("schedules --simulate: ranked by simulated time", s.get("ranked_by") == "simulated" and
      len(sim) == 5 and sim[0]["simulated_ns"] == 1113.2 and
      [r["simulated_ns"] for r in sim[1:4]] == [1426.4] * 3, out)
code, out, err = fennel("schedules", "--ranks", "7", "--limit", "3")
check("schedules text output", code == 0 and "b_opt        4.5724" in out and
      "heur" in out and "c6m2,a2,a2,e6m2" in out and out.count("\n") == 15, out)
# Under postal the sender waits for each message: no pipelining, c = 0, b_upper = 1.
code, out, err = fennel("schedules", "--ranks", "8", "--network", "postal", "--set",
                        "alpha=1us", "--json")
try:
    s = json.loads(out)
except ValueError:
    s = {}
check("schedules under postal: c = 0", s.get("ratio") == 0 and s.get("b_upper") == 1 and
      s.get("schedules", [{}])[0].get("schedule") == "a2,a2,a2", out)

finish()
