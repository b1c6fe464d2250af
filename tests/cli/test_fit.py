#!/usr/bin/env python3
"""CLI tests of `fennel fit` (docs/CALIBRATION.md).

Usage: test_fit.py FENNEL SOURCE_ROOT. Prints TAP.

- Recovery: times that fennel itself simulates (a multicast of b = 1..16 puts per size under
  lbp, a single put per size under postal, a postal model of two size ranges) give back the
  model's parameters exactly; the same times with seeded noise within a stated tolerance,
  with --statistic min and median.
- The thesis (Rüfenacht 2020): Table 4.1's rows are recovered from times synthesised from
  them (T(b) = alpha_p + b alpha_r, Eq. 4.6), the 128 KB and 512 KB rows reported as
  non-physical and fitted with alpha_p held at 0 (left out under --leave-out-nonphysical, which
  gives the thesis' preset); the blocking fit (alpha_p 1.50 us, alpha_r -0.72 us, §4.3) is
  fitted with alpha_r held at 0, and refused only when --leave-out-nonphysical leaves nothing.
- Readers: hand-written outputs of OSU, IMB and Netgauge and fennel's CSV (tests/data/fit/,
  whose numbers lie on known lines) give those lines' parameters; bandwidth tests give the
  per-byte cost and say the latency is undetermined.
- Non-negative least squares: a negative intercept is held at 0 and the slope refitted; two
  points say R^2 is undetermined; segments have 4 points unless --min-points; seeded noise
  on two ranges is recovered within 3 %.
- Netgauge: tables synthesised from a known LogGP model as Netgauge defines its columns give
  the model back, and fennel's ping-pong under the fitted model gives the round trips within
  5 % (with 1 % noise too); a table from 4 KiB on says L is extrapolated.
"""
import json
import os
import random
import re
import tempfile

from harness import check, fennel, finish

DATA = os.path.join("tests", "data", "fit")


def model_body(path):
    """The model file without its comment lines."""
    with open(path) as f:
        return "".join(line for line in f if not line.startswith("#"))


def fit(name, args, body):
    """`fennel fit ARGS -o TMP` succeeds and writes the model `body` (comments aside)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "m.yaml")
        code, stdout, err = fennel("fit", *args, "-o", out)
        got = model_body(out) if os.path.exists(out) else None
        check(name, code == 0 and got == body, f"status {code}, stderr {err!r}, model {got!r}")
        return stdout


def makespan(*args):
    code, out, err = fennel("run", "--json", *args)
    return json.loads(out)["makespan_ns"] if code == 0 else None


def write(path, header, rows):
    with open(path, "w") as f:
        f.write(header + "\n")
        for r in rows:
            f.write(",".join(str(v) for v in r) + "\n")


LBP = "fennel: 1\nnetwork: {model: lbp, alpha_p: 700ns, alpha_r: 150ns, beta: 0.25ns/B}\n"
SIZES = [8, 64, 512, 4096]

with tempfile.TemporaryDirectory() as tmp:
    # lbp: fennel's multicast of b puts ends at alpha_p + s beta + b alpha_r (Eq. 4.6).
    model = os.path.join(tmp, "lbp.yaml")
    with open(model, "w") as f:
        f.write(LBP)
    truth = {(s, b): makespan("-g", "multicast", "--width", str(b), "--size", str(s), "-m", model)
             for s in SIZES for b in range(1, 17)}
    check("lbp: the simulated multicast follows Eq. 4.6",
          all(abs(t - (700 + 0.25 * s + 150 * b)) < 1e-9 for (s, b), t in truth.items()))
    exact = os.path.join(tmp, "multicast.csv")
    write(exact, "size_bytes,targets,time_ns", [(s, b, t) for (s, b), t in truth.items()])
    lbp_body = "fennel: 1\nnetwork:\n  model: lbp\n  alpha_p: 700ns\n  alpha_r: 150ns\n" \
               "  beta: 0.25ns/B\n"
    fit("lbp: parameters recovered exactly from noise-free multicast times", [exact], lbp_body)
    fit("lbp: --statistic median on noise-free times", [exact, "--statistic", "median"],
        lbp_body)

    # Seeded noise: 20 samples per point, each the true time plus uniform [0, 20) ns for the
    # minimum (which then lies within 20 ns above the truth) and plus symmetric uniform
    # (-20, 20) ns for the median. Tolerance: 2 % of alpha_p and alpha_r, as the minimum of
    # 20 such samples is within 2 ns of the truth with probability 1 - 0.9^20 = 0.88 per
    # point and the fit averages over 16 points.
    rnd = random.Random(17)
    for stat, lo in (("min", 0), ("median", -20)):
        noisy = os.path.join(tmp, f"noisy-{stat}.csv")
        write(noisy, "size_bytes,targets,time_ns",
              [(s, b, round(t + rnd.uniform(lo, 20), 3)) for (s, b), t in truth.items()
               for _ in range(20)])
        code, out, err = fennel("fit", noisy, "--statistic", stat, "--json")
        r = json.loads(out) if code == 0 else {"sizes": []}
        ok = len(r["sizes"]) == 4
        for row in r["sizes"]:
            ok &= abs(row["alpha_r_ns"] - 150) <= 3
            ok &= abs(row["intercept_ns"] - (700 + 0.25 * row["bytes"])) <= 14
        check(f"lbp: seeded noise, --statistic {stat}: within 2 %", ok, out + err)

    # postal: one put of s bytes takes alpha + s beta.
    postal = os.path.join(tmp, "postal.yaml")
    with open(postal, "w") as f:
        f.write("fennel: 1\nnetwork: {model: postal, alpha: 1.3us, beta: 0.37ns/B}\n")
    sizes = [0, 8, 64, 512, 4096, 32768, 262144]
    pp = os.path.join(tmp, "pingpong.csv")
    write(pp, "size_bytes,time_ns",
          [(s, makespan("-g", "multicast", "--width", "1", "--size", str(s), "-m", postal))
           for s in sizes])
    fit("postal: parameters recovered exactly from simulated one-way times", [pp],
        "fennel: 1\nnetwork:\n  model: postal\n  alpha: 1300ns\n  beta: 0.37ns/B\n")

    # LogGP round trips: fennel's ping-pong under LogGP takes 2 (L + 2o + (s-1) G) (a message
    # leaves after o, arrives L later, and is received in o + (s-1) G), so half of it gives
    # G exactly and L + 2o, written as L with o = 0 (what ping-pong cannot separate).
    loggp = os.path.join(tmp, "loggp.yaml")
    with open(loggp, "w") as f:
        f.write("fennel: 1\nnetwork: {model: loggp, L: 1000ns, o: 100ns, g: 50ns, G: 0.2ns/B}\n")
    rtt = os.path.join(tmp, "rtt.csv")
    write(rtt, "size_bytes,time_ns",
          [(s, makespan("-g", "pingpong", "--size", str(s), "-m", loggp) / 2)
           for s in (1, 8, 64, 1024, 65536)])
    fit("LogGP: G and L + 2o recovered exactly from simulated round trips",
        [rtt, "--network", "loggp"],
        "fennel: 1\nnetwork:\n  model: loggp\n  L: 1200ns\n  o: 0ns\n  g: 0ns\n  G: 0.2ns/B\n")

    # --plot draws the measured points and the fit, one series each.
    svg = os.path.join(tmp, "fit.svg")
    code, out, err = fennel("fit", pp, "--plot", svg)
    text = open(svg).read() if os.path.exists(svg) else ""
    check("--plot writes an SVG with the measured and fitted series",
          code == 0 and text.count('class="series"') == 2, err)

    # -o and --plot are written together (issue 29): a plot that cannot be written leaves
    # no model file, and an existing one as it was.
    model = os.path.join(tmp, "m.yaml")
    bad_plot = os.path.join(tmp, "no-such-dir", "p.svg")
    code, out, err = fennel("fit", pp, "-o", model, "--plot", bad_plot)
    check("-o m.yaml --plot into a missing folder: exit 1, no m.yaml",
          code == 1 and err.startswith(f"fennel: {bad_plot}: cannot write: ") and
          not os.path.exists(model), (code, err))
    with open(model, "w") as f:
        f.write("old model\n")
    code, out, err = fennel("fit", pp, "-o", model, "--plot", bad_plot)
    check("-o m.yaml (existing) --plot into a missing folder: m.yaml as it was",
          code == 1 and open(model).read() == "old model\n", (code, err))
    os.remove(model)

    # Two ranges (an eager/rendezvous switch at 8 KiB): --segments auto finds the break.
    ranged = os.path.join(tmp, "ranged.yaml")
    with open(ranged, "w") as f:
        f.write("fennel: 1\nnetwork:\n  model: postal\n  ranges:\n"
                "    - {to: 8KiB, alpha: 1us, beta: 0.5ns/B}\n"
                "    - {from: 8KiB, alpha: 4us, beta: 0.1ns/B}\n")
    sizes = [0, 16, 64, 256, 1024, 4096, 8192, 16384, 65536, 262144, 1048576]
    pp2 = os.path.join(tmp, "two.csv")
    write(pp2, "size_bytes,time_ns",
          [(s, makespan("-g", "multicast", "--width", "1", "--size", str(s), "-m", ranged))
           for s in sizes])
    out = fit("postal: two ranges recovered with --segments auto", [pp2],
              "fennel: 1\nnetwork:\n  model: postal\n  ranges:\n"
              "    - {from: 0B, to: 8192B, alpha: 1000ns, beta: 0.5ns/B}\n"
              "    - {from: 8192B, alpha: 4000ns, beta: 0.1ns/B}\n")
    check("postal: the break is reported", "break between 4096B and 8192B" in out, out)
    # The same times under --network loggp: per range G = beta and L + 2o = alpha + beta
    # (fennel's LogGP charges s - 1 bytes), and the break reported as a candidate S.
    out = fit("LogGP: two ranges of L and G with --segments auto", [pp2, "--network", "loggp"],
              "fennel: 1\nnetwork:\n  model: loggp\n  o: 0ns\n  g: 0ns\n  ranges:\n"
              "    - {from: 0B, to: 8192B, L: 1000.5ns, G: 0.5ns/B}\n"
              "    - {from: 8192B, L: 4000.1ns, G: 0.1ns/B}\n")
    check("LogGP: the break is reported as S", "S = 4096B" in out, out)

    # Table 4.1 (the thesis' fitted alpha_p and alpha_r in us per message size).
    table = [(8, 0.88, 0.38), (64, 0.89, 0.38), (128, 0.91, 0.38), (512, 0.96, 0.46),
             (2048, 0.96, 0.79), (8192, 0.86, 2.17), (32768, 0.68, 7.75),
             (131072, -0.12, 30.1), (524288, -1.7, 119.3)]
    t41 = os.path.join(tmp, "table41.csv")
    write(t41, "size_bytes,targets,time_ns",
          [(s, b, round((ap + b * ar) * 1000, 3)) for s, ap, ar in table for b in range(1, 17)])
    code, out, err = fennel("fit", t41, "--json")
    r = json.loads(out) if code == 0 else {"sizes": []}
    rows = [(x["bytes"], round(x["unconstrained_intercept_ns"] / 1000, 3),
             round(x["unconstrained_alpha_r_ns"] / 1000, 3), x["physical"]) for x in r["sizes"]]
    check("Table 4.1: every row recovered, 128 KB and 512 KB non-physical",
          rows == [(s, ap, ar, ap >= 0) for s, ap, ar in table], f"{rows} {err}")
    # Non-negative least squares at the non-physical sizes: alpha_p + s beta held at 0, alpha_r
    # refitted through the origin over b = 1..16: sum(b T(b)) / sum(b^2) with T(b) = ap + b ar
    # is ar + ap sum(b) / sum(b^2) = ar + ap 136 / 1496. 128 KB: 30100 - 120 x 136/1496
    # = 30089.0909 ns; 512 KB: 119300 - 1700 x 136/1496 = 119145.4545 ns (JSON prints 9 digits). beta: its cap, the
    # least intercept / size, is 0 once an intercept is held at 0.
    held = [(x["bytes"], x["intercept_ns"], round(x["alpha_r_ns"], 3), x["in_model"],
             x["intercept_held_at_zero"]) for x in r["sizes"] if not x["physical"]]
    check("Table 4.1: the non-physical rows fitted with alpha_p held at 0 (NNLS)",
          held == [(131072, 0, 30089.091, True, True), (524288, 0, 119145.455, True, True)],
          f"{held}")
    with tempfile.TemporaryDirectory() as t2:
        m = os.path.join(t2, "m.yaml")
        code, out, err = fennel("fit", t41, "-o", m)
        body = model_body(m) if os.path.exists(m) else ""
        check("Table 4.1: by default every row is in the model, the held ones said",
              code == 0 and "131072B: 0ns" in body and "131072B: 30089.091ns" in body and
              "524288B: 119145.455ns" in body and "beta: 0ns/B" in body and
              "non-physical, alpha_p + s beta held at 0" in out and
              "the unconstrained line has alpha_p + s beta = -120 ns" in out, body + out + err)
        code, out, err = fennel("fit", t41, "-o", m, "--leave-out-nonphysical")
        text = open(m).read() if os.path.exists(m) else ""
        check("Table 4.1: --leave-out-nonphysical leaves the negative rows out and says so",
              code == 0 and "131072B" not in text.split("fennel: 1")[1] and
              "non-physical, left out" in text and "non-physical" in out, text + err)

        # The model fitted as the thesis did times multicasts as the preset of Table 4.1
        # does, at the table's sizes, between them and beyond them.
        preset = "models/presets/archer-table-4-1.yaml"
        same = all(makespan("-g", "multicast", "--width", str(b), "--size", str(s), "-m", m) ==
                   makespan("-g", "multicast", "--width", str(b), "--size", str(s), "-m", preset)
                   for s in (8, 100, 512, 5000, 32768, 131072) for b in (1, 4, 16))
        check("Table 4.1: the fitted model equals models/presets/archer-table-4-1.yaml", same)

    # The preset by hand: at 512 B, 0.96 + 4 x 0.46 = 2.8 us for b = 4; at 128 KiB the 8 KiB to
    # 32 KiB segment extended gives alpha_r = 7.75 + 5.58 x 4 = 30.07 us and alpha_p
    # 0.68 - 0.18 x 4 < 0, so 0: 4 x 30.07 = 120.28 us.
    preset = "models/presets/archer-table-4-1.yaml"
    check("archer-table-4-1: 512 B, b = 4",
          makespan("-g", "multicast", "--width", "4", "--size", "512", "-m", preset) == 2800)
    check("archer-table-4-1: 128 KiB, b = 4",
          makespan("-g", "multicast", "--width", "4", "--size", "131072", "-m", preset) == 120280)

    # The thesis' blocking fit: alpha_p 1.50 us, alpha_r -0.72 us.
    blocking = os.path.join(tmp, "blocking.csv")
    write(blocking, "size_bytes,targets,time_ns", [(8, 1, 780), (8, 2, 60)])
    # Non-negative least squares holds the negative alpha_r at 0 and refits alpha_p: the least
    # squares constant through T(1) = 780 and T(2) = 60 is their mean, 420 ns. Before, the fit
    # was refused as non-physical.
    out = fit("blocking fit: alpha_r held at 0, alpha_p refitted", [blocking],
              "fennel: 1\nnetwork:\n  model: lbp\n  alpha_p: 420ns\n  alpha_r: 0ns\n"
              "  beta: 0ns/B\n")
    check("blocking fit: the report gives the unconstrained line and what was held",
          "non-physical at 8B: the unconstrained line has alpha_p + s beta = 1500 ns, alpha_r = "
          "-720 ns; alpha_r held at 0, alpha_p + s beta refitted: alpha_p + s beta = 420 ns, "
          "alpha_r = 0 ns\n" in out, out)
    # --clamp names the default.
    fit("blocking fit: --clamp is the default", [blocking, "--clamp"],
        "fennel: 1\nnetwork:\n  model: lbp\n  alpha_p: 420ns\n  alpha_r: 0ns\n  beta: 0ns/B\n")
    # Leaving non-physical sizes out, as the thesis did, leaves nothing here: refused.
    code, out, err = fennel("fit", blocking, "--leave-out-nonphysical")
    check("blocking fit: --leave-out-nonphysical leaves no size, refused",
          code == 1 and err == "fennel: non-physical fit: alpha_p + s beta = 1500 ns, alpha_r = "
          "-720 ns at 8B; every size is left out (--leave-out-nonphysical; without it the "
          "negative parameter is held at 0)\n", err)
    code, out, err = fennel("fit", blocking, "--leave-out-nonphysical", "--clamp")
    check("--clamp and --leave-out-nonphysical exclude each other",
          code == 2 and "exclude each other" in err, err)

# The readers: each file's numbers lie on a line given in tests/data/fit/README.md.
fit("OSU 5.x osu_latency (warnings, indentation): 1 us + 0.625 ns/B",
    [os.path.join(DATA, "osu-latency-v5.txt")],
    "fennel: 1\nnetwork:\n  model: postal\n  alpha: 1000ns\n  beta: 0.625ns/B\n")
fit("OSU 7.x: the latency test of two, time output between",
    [os.path.join(DATA, "osu-v7-full-two-tests.txt")],
    "fennel: 1\nnetwork:\n  model: postal\n  alpha: 2000ns\n  beta: 0.3125ns/B\n")
fit("OSU -f: min uses the Min column", [os.path.join(DATA, "osu-put-latency-full.txt")],
    "fennel: 1\nnetwork:\n  model: postal\n  alpha: 3000ns\n  beta: 0.3125ns/B\n")
fit("OSU -f: median uses the Avg column",
    [os.path.join(DATA, "osu-put-latency-full.txt"), "--statistic", "median"],
    "fennel: 1\nnetwork:\n  model: postal\n  alpha: 3500ns\n  beta: 0.3125ns/B\n")
fit("IMB 2019 PingPong (trailing spaces, startup line)",
    [os.path.join(DATA, "imb-pingpong-2019.txt")],
    "fennel: 1\nnetwork:\n  model: postal\n  alpha: 1500ns\n  beta: 1.25ns/B\n")
fit("IMB Sendrecv t_min beside Allreduce at two process counts",
    [os.path.join(DATA, "imb-sendrecv-allreduce-two-np.txt")],
    "fennel: 1\nnetwork:\n  model: postal\n  alpha: 2000ns\n  beta: 2.5ns/B\n")
fit("fennel CSV: repeated samples, extra column", [os.path.join(DATA, "pingpong.csv")],
    "fennel: 1\nnetwork:\n  model: postal\n  alpha: 1000ns\n  beta: 0.5ns/B\n")
# Netgauge (docs/CALIBRATION.md): PRTT(1,0,s)/2 = 5000.5, 5001, 5002, 5004, 5512 ns lies on
# L + 2o + (s-1)G with L + 2o = 5000.5 ns and G = 0.5 ns/B; o = (o_s + o_r)/2 at 1 B = 1001 ns,
# so L = 5000.5 - 2002 = 2998.5 ns; g = (PRTT(10,0,s) - PRTT(1,0,s))/9 - (s-1)G, with
# PRTT(10,0,s) = 30 us: (30000 - 10001)/9 = 2222.111 ns at 1 B, ..., at 1024 B
# (30000 - 11024)/9 - 1023 x 0.5 = 1596.944 ns.
fit("Netgauge LogGP table: one-way L, overheads without the transfer",
    [os.path.join(DATA, "netgauge-loggp.txt")],
    "fennel: 1\nnetwork:\n  model: loggp\n  L: 2998.5ns\n  o: 1001ns\n"
    "  g: {1B: 2222.111ns, 2B: 2221.5ns, 4B: 2220.278ns, 8B: 2217.833ns, 1024B: 1596.944ns}\n"
    "  G: 0.5ns/B\n")
out = fit("LogGP from ping-pong: G and L + 2o", [os.path.join(DATA, "imb-pingpong-2019.txt"),
                                                  "--network", "loggp"],
          "fennel: 1\nnetwork:\n  model: loggp\n  L: 1501.25ns\n  o: 0ns\n  g: 0ns\n"
          "  G: 1.25ns/B\n")
check("LogGP from ping-pong: says what it cannot determine",
      "cannot separate L from o" in out and "cannot determine g" in out, out)

# Several files: their samples are pooled (two repeated runs of one benchmark).
fit("two files pooled", [os.path.join(DATA, "osu-latency-v5.txt"),
                         os.path.join(DATA, "osu-latency-v5.txt")],
    "fennel: 1\nnetwork:\n  model: postal\n  alpha: 1000ns\n  beta: 0.625ns/B\n")

# Bandwidth tests (tests/data/fit/README.md): the time per message s / bandwidth is
# 1000 ns + 0.1 ns/B x s in osu_bw (and per direction in osu_bibw, whose bandwidth counts both);
# nccl-tests' sendrecv times 20 us + 0.05 ns/B x S. The per-byte cost is written, the latency
# is not determined (alpha 0, said).
for name, beta in (("osu-bw-v5.txt", "0.1"), ("osu-bibw-v5.txt", "0.1"),
                   ("nccl-sendrecv.txt", "0.05")):
    out = fit(f"bandwidth only ({name}): the per-byte cost", [os.path.join(DATA, name)],
              f"fennel: 1\nnetwork:\n  model: postal\n  alpha: 0ns\n  beta: {beta}ns/B\n")
    check(f"bandwidth only ({name}): latency undetermined, said",
          "latency undetermined: a bandwidth test times messages back to back, so its "
          "per-message intercept is a gap, not a latency; alpha written as 0 (fit a ping-pong, "
          "osu_latency or IMB PingPong, for it)\n" in out, out)
out = fit("bandwidth only, --network loggp: G", [os.path.join(DATA, "osu-bw-v5.txt"), "--network",
                                                "loggp"],
          "fennel: 1\nnetwork:\n  model: loggp\n  L: 0ns\n  o: 0ns\n  g: 0ns\n  G: 0.1ns/B\n")
check("bandwidth only, --network loggp: latency undetermined, said",
      "latency undetermined" in out, out)
# LogGP's lines need two sizes; one size of one-way times (mpi_latency) is refused there, with
# postal, which fits one size, named.
code, out, err = fennel("fit", os.path.join(DATA, "mpi-latency.txt"), "--network", "loggp")
check("one size, --network loggp: refused, postal named",
      code == 1 and err.endswith("at two sizes or more; the input has one size, which postal "
                                 "(the default) fits as alpha + s beta, LogGP's L + 2o + "
                                 "(s-1)G\n"), err)
# LogP has no per-byte term, so a bandwidth test alone determines none of its parameters:
# refused with the models that fit it (before, a G was written that LogP does not have and
# the fitted file failed to read back).
code, out, err = fennel("fit", os.path.join(DATA, "osu-bw-v5.txt"), "--network", "logp")
check("bandwidth only, --network logp: refused, postal and loggp named",
      code == 1 and err == "fennel: logp has no per-byte term, and a bandwidth test determines "
      "only the per-byte cost (its latency is undetermined): fit it with --network postal or "
      "loggp, or give a ping-pong for LogP\n", err)

# SimGrid's calibrate ping-pong (tests/data/fit/calibrate-pingpong.csv): each MPI_Send row and
# the MPI_Recv row after it (same size and start) are one round trip, their sum; the one-way
# time is half. The rows lie on t(s) = 2000 ns + 0.5 ns/B s: 8 B 1.000 + 3.008 us = 4008 ns,
# half 2004 = 2000 + 4; 64 B 4064/2 = 2032; 1000 B 1.2 + 3.8 us = 5000/2 = 2500 (the repeat,
# 1.5 + 4.0 us, is larger: min takes 2500); 4096 B 2.0 + 6.096 us = 8096/2 = 4048. Sizes come
# in any order.
fit("SimGrid calibrate ping-pong: send + receive is the round trip",
    [os.path.join(DATA, "calibrate-pingpong.csv")],
    "fennel: 1\nnetwork:\n  model: postal\n  alpha: 2000ns\n  beta: 0.5ns/B\n")
# Its receive-only file times the receive's overhead, not a message: nothing to fit.
code, out, err = fennel("fit", os.path.join(DATA, "calibrate-recv.csv"))
check("SimGrid calibrate MPI_Recv rows alone: read, nothing to fit, said",
      code == 1 and "postal needs one-way times" in err and
      err.endswith("the input has 0 (it holds SimGrid calibrate MPI_Recv, not fitted)\n"), err)
# A collective test alone: nothing to fit as a network; the error names what was read and the
# fit that takes collective times.
code, out, err = fennel("fit", os.path.join(DATA, "osu-allreduce-three-runs.txt"))
check("a collective test alone: named, and --model suggested",
      code == 1 and err.endswith("the input has 0 (it holds osu_allreduce, not fitted); "
                                 "collective times fit the reduction's cost under a network "
                                 "model (--model NETWORK.yaml)\n"), err)
# LLNL's mpi_latency: one 1-byte message, deltaT a round trip in seconds. The least of the
# five round trips is 0.00035100 s; half of it 175.5 us. One size: beta cannot be told apart
# from alpha and is written as 0, said.
out = fit("mpi_latency: half the least round trip, one size",
          [os.path.join(DATA, "mpi-latency.txt")],
          "fennel: 1\nnetwork:\n  model: postal\n  alpha: 175500ns\n  beta: 0ns/B\n")
check("mpi_latency: one size, beta undetermined, said",
      "postal fit of 1 size (statistic min)\n" in out and
      "R^2 undetermined: 1 point for 1 parameter, " in out and
      "beta: one size cannot separate alpha from s beta; 0 written" in out, out)
# nxnlatbw: per pair a 0-byte one-way latency (us) and the bandwidth of 4 MiB messages back to
# back (10^6 B/s). The least latency is 0.81 us; the highest bandwidth 12500 MB/s is 4194304 B
# in 4194304 / 12500 us = 335544.32 ns, beta = 1 / 12.5 GB/s = 0.08 ns/B; alpha = the 0-byte
# time less 0 x beta = 810 ns.
out = fit("nxnlatbw: latency of 0 B and the bandwidth test's per-byte cost",
          [os.path.join(DATA, "nxnlatbw.csv")],
          "fennel: 1\nnetwork:\n  model: postal\n  alpha: 810ns\n  beta: 0.08ns/B\n")
check("nxnlatbw: beta from the bandwidth test, said",
      "beta: the bandwidth test's time per byte at its one size (4194304B)" in out, out)
# --statistic median: the median of the six latencies, (0.90 + 0.95) / 2 = 0.925 us, and of
# the six times per byte, those of 12000 and 12100 MB/s: (1000/12000 + 1000/12100) / 2
# = 0.0829889807 ns/B (to the attosecond).
fit("nxnlatbw --statistic median: the median pair",
    [os.path.join(DATA, "nxnlatbw.csv"), "--statistic", "median"],
    "fennel: 1\nnetwork:\n  model: postal\n  alpha: 925ns\n  beta: 0.082988981ns/B\n")

with tempfile.TemporaryDirectory() as tmp:
    # Two points: the line passes through both; R^2 is not reported as 1.
    two = os.path.join(tmp, "two.csv")
    write(two, "size_bytes,time_ns", [(8, 1000), (1024, 2000)])
    code, out, err = fennel("fit", two)
    check("two points: under-determined, said instead of R^2 1",
          code == 0 and "R^2 undetermined: 2 points for 2 parameters, the fit passes through "
          "every point (measure more sizes)\n" in out and "R^2 1" not in out, out + err)
    code, out, err = fennel("fit", two, "--json")
    doc = json.loads(out) if code == 0 else {}
    check("two points: --json r2 is null", doc.get("r2", 0) is None, out + err)

    # A line whose least squares intercept is negative: t = 0.2 s - 100 ns at 1, 2, 4, 8 KiB.
    # The fit holds alpha at 0 and refits beta; with relative weights w = 1/t^2 the
    # through-origin slope is sum(w s t) / sum(w s^2) = sum(s/t) / sum((s/t)^2), which beats
    # the constant (beta 0) here. Before, the fit was refused as non-physical.
    pts = [(1024, 104.8), (2048, 309.6), (4096, 719.2), (8192, 1538.4)]
    neg = os.path.join(tmp, "negative-intercept.csv")
    write(neg, "size_bytes,time_ns", pts)
    r = [s_ / t for s_, t in pts]
    beta = sum(r) / sum(v * v for v in r)
    code, out, err = fennel("fit", neg, "--json")
    doc = json.loads(out) if code == 0 else {"segments": [{}]}
    seg = doc["segments"][0]
    check("negative intercept: alpha held at 0, beta refitted (non-negative least squares)",
          code == 0 and float(seg.get("alpha_ns", -1)) == 0 and
          abs(float(seg.get("beta_ns_per_byte", 0)) - beta) < 1e-9, f"{out} {err} {beta}")
    code, out, err = fennel("fit", neg)
    check("negative intercept: the report says what was held",
          "sizes from 1024B: alpha held at 0, beta refitted (the unconstrained line has "
          "alpha = -100 ns, beta = 0.2 ns/B)" in out, out + err)

    # Segments have at least 4 points unless --min-points asks: 6 sizes allow one segment;
    # --segments 2 --min-points 3 gives two.
    six = os.path.join(tmp, "six.csv")
    write(six, "size_bytes,time_ns", [(8, 1000), (16, 1000), (32, 1000), (64, 5000), (128, 5000),
                                      (256, 5000)])
    code, out, err = fennel("fit", six, "--segments", "2")
    check("--segments 2 on 6 sizes: one segment of 4 points or more, said",
          "--segments 2: 6 sizes allow 1 segment of 4 points or more (--min-points); 1 fitted"
          in out, out + err)
    fit("--segments 2 --min-points 3: two segments of 3", [six, "--segments", "2",
                                                            "--min-points", "3"],
        "fennel: 1\nnetwork:\n  model: postal\n  ranges:\n"
        "    - {from: 0B, to: 64B, alpha: 1000ns, beta: 0ns/B}\n"
        "    - {from: 64B, alpha: 5000ns, beta: 0ns/B}\n")

    # Seeded noise on the two-range model's one-way times: each time x (1 + u), u uniform in
    # [-1 %, 1 %]; the least squares lines recover alpha and beta of each range within 3 %
    # (the relative error of a line over 5 or more points with 1 % noise).
    ranged = os.path.join(tmp, "ranged.yaml")
    with open(ranged, "w") as f:
        f.write("fennel: 1\nnetwork:\n  model: postal\n  ranges:\n"
                "    - {to: 8KiB, alpha: 1us, beta: 0.5ns/B}\n"
                "    - {from: 8KiB, alpha: 4us, beta: 0.1ns/B}\n")
    sizes = [0, 16, 64, 256, 1024, 4096, 8192, 16384, 65536, 262144, 1048576]
    truth = {s_: makespan("-g", "multicast", "--width", "1", "--size", str(s_), "-m", ranged)
             for s_ in sizes}
    rnd = random.Random(3)
    noisy = os.path.join(tmp, "noisy-ranged.csv")
    write(noisy, "size_bytes,time_ns",
          [(s_, round(t * (1 + rnd.uniform(-0.01, 0.01)), 3)) for s_, t in truth.items()])
    code, out, err = fennel("fit", noisy, "--json")
    doc = json.loads(out) if code == 0 else {"segments": []}
    segs = [(x["from_bytes"], float(x["alpha_ns"]), float(x["beta_ns_per_byte"]))
            for x in doc["segments"]]
    ok = len(segs) == 2 and segs[1][0] == 8192
    for (lo, a, b), (ta, tb) in zip(segs, ((1000, 0.5), (4000, 0.1))):
        ok &= abs(a - ta) <= 0.03 * ta and abs(b - tb) <= 0.03 * tb
    check("postal: two ranges with 1 % seeded noise, within 3 %", ok, f"{segs} {err}")

    # A Netgauge table synthesised from a known LogGP model (L 2 us, o 0.5 us, g 1 us,
    # G 0.25 ns/B) as Netgauge defines its columns (netgauge's ptrn_loggp.c): PRTT(1,0,s) =
    # 2 (L + 2o + (s-1)G); PRTT(n,0,s) = PRTT(1,0,s) + (n-1)(g + (s-1)G); a blocking send and
    # receive cover the transfer, o_s = o_r = o + (s-1)G; PRTT(n,d,s) = PRTT(1,0,s) +
    # (n-1)(d + o_s) with d = PRTT(1,0,s); its L column is PRTT(1,0,s_min)/2. The fit must give
    # the model back, and the model must give the table's round trips (within 5 %; here to the
    # nanosecond).
    L, o, g, G, n = 2.0, 0.5, 1.0, 0.00025, 10
    rows = []
    for s_ in [1 << i for i in range(0, 21)]:
        p1 = 2 * (L + 2 * o + (s_ - 1) * G)
        rows.append((s_, n, p1, p1 + (n - 1) * (g + (s_ - 1) * G),
                     p1 + (n - 1) * (p1 + o + (s_ - 1) * G), o + (s_ - 1) * G))
    ng = os.path.join(tmp, "netgauge.txt")
    with open(ng, "w") as f:
        f.write("# size n PRTT(1,0,s) PRTT(n,0,s) PRTT(n,PRTT(1,0,s),s) L o_s o_r g G "
                "lsqu(g,G)\n")
        for s_, nn, p1, pn0, pnd, os_ in rows:
            f.write(f"{s_} {nn} {p1:.6f} {pn0:.6f} {pnd:.6f} {rows[0][2] / 2:.6f} {os_:.6f} "
                    f"{os_:.6f} {g:.6f} {G:.6f} 0.000000\n")
    m = os.path.join(tmp, "ng.yaml")
    fit("Netgauge table of a known LogGP model: the model back", [ng],
        "fennel: 1\nnetwork:\n  model: loggp\n  L: 2000ns\n  o: 500ns\n  g: 1000ns\n"
        "  G: 0.25ns/B\n")
    fennel("fit", ng, "-o", m)
    worst = max(abs(makespan("-g", "pingpong", "--size", str(s_), "-m", m) - p1 * 1000) /
                (p1 * 1000) for s_, _, p1, _, _, _ in rows)
    check("Netgauge table of a known LogGP model: round trips within 5 %", worst <= 0.05,
          f"worst {worst}")
    # With 1 % noise on PRTT(1,0,s): the round trips still within 5 % (L is written per size).
    rnd = random.Random(8)
    with open(ng, "w") as f:
        f.write("# size n PRTT(1,0,s) PRTT(n,0,s) PRTT(n,PRTT(1,0,s),s) L o_s o_r g G "
                "lsqu(g,G)\n")
        noisy_rows = []
        for s_, nn, p1, pn0, pnd, os_ in rows:
            p1n = p1 * (1 + rnd.uniform(-0.01, 0.01))
            noisy_rows.append((s_, p1n))
            f.write(f"{s_} {nn} {p1n:.6f} {pn0:.6f} {pnd:.6f} {rows[0][2] / 2:.6f} {os_:.6f} "
                    f"{os_:.6f} {g:.6f} {G:.6f} 0.000000\n")
    code, out, err = fennel("fit", ng, "-o", m, "--json")
    doc = json.loads(out) if code == 0 else {"model": {"network": {}}}
    net = doc["model"]["network"]
    check("Netgauge table with 1 % noise: G within 3 %, o as measured",
          abs(float(doc["segments"][-1]["G_ns_per_byte"]) - 0.25) <= 0.0075 and
          doc.get("o_ns") == 500, out + err)
    check("--json lists every parameter of the written model",
          all(k_ in net for k_ in ("L_ns", "o_ns", "g_ns", "G_ns_per_byte")), out)
    worst = max(abs(makespan("-g", "pingpong", "--size", str(s_), "-m", m) - p1 * 1000) /
                (p1 * 1000) for s_, p1 in noisy_rows)
    check("Netgauge table with 1 % noise: round trips within 5 %", worst <= 0.05,
          f"worst {worst}")

# The same known LogGP model's table from 4 KiB on (Netgauge run with a large first size):
# o = (o_s + o_r)/2 - 4095 G = 500 ns again, L + 2o the line's value at 1 B, and the report
# says L is extrapolated.
with tempfile.TemporaryDirectory() as tmp:
    L, o, g, G, n = 2.0, 0.5, 1.0, 0.00025, 10
    ng = os.path.join(tmp, "netgauge-large.txt")
    with open(ng, "w") as f:
        f.write("# size n PRTT(1,0,s) PRTT(n,0,s) PRTT(n,PRTT(1,0,s),s) L o_s o_r g G "
                "lsqu(g,G)\n")
        for s_ in [1 << i for i in range(12, 21)]:
            p1 = 2 * (L + 2 * o + (s_ - 1) * G)
            os_ = o + (s_ - 1) * G
            f.write(f"{s_} {n} {p1:.6f} {p1 + (n - 1) * (g + (s_ - 1) * G):.6f} "
                    f"{p1 + (n - 1) * (p1 + os_):.6f} {L + 2 * o + 4095 * G:.6f} "
                    f"{os_:.6f} {os_:.6f} {g:.6f} {G:.6f} 0.000000\n")
    out = fit("Netgauge table from 4 KiB: the model back", [ng],
              "fennel: 1\nnetwork:\n  model: loggp\n  L: 2000ns\n  o: 500ns\n  g: 1000ns\n"
              "  G: 0.25ns/B\n")
    check("Netgauge table from 4 KiB: L is extrapolated, said",
          "L: extrapolated: the smallest size measured is 4096B, so L + 2o is the fitted line's "
          "value at 1 B, not a measured time (measure from 1 B for it)\n" in out, out)

# Usage errors: exit 2, one line.
for args, message in (([], "fit: no measurement file given (fennel fit FILE... -o MODEL.yaml)"),
                      (["x.csv", "--statistic", "max"],
                       "fit: --statistic: expected min, median or mean"),
                      (["x.csv", "--segments", "0"], "fit: --segments: expected auto or a number 1..16"),
                      (["x.csv", "--min-points", "1"],
                       "fit: --min-points: expected a number 2..1000"),
                      (["x.csv", "--network", "bsp"],
                       "fit: --network: expected postal, lbp, logp or loggp")):
    code, out, err = fennel("fit", *args)
    check(f"usage: {message}", code == 2 and err == f"fennel: {message}\n", err)

# Two levels at once (--intra): one-way times fennel simulates between nodes (postal alpha
# 1.3 us, beta 0.37 ns/B) and within a node (postal alpha 250 ns, beta 0.08 ns/B), fitted
# into one model file: the network, a placement of 1 rank per node (the job's layout comes
# with --ppn or --set ranks_per_node) and the intra section.
with tempfile.TemporaryDirectory() as tmp:
    levels = {}
    for name, text in (("inter", "alpha: 1.3us, beta: 0.37ns/B"),
                       ("intra", "alpha: 250ns, beta: 0.08ns/B")):
        model = os.path.join(tmp, f"{name}.yaml")
        with open(model, "w") as f:
            f.write(f"fennel: 1\nnetwork: {{model: postal, {text}}}\n")
        levels[name] = {s: makespan("-g", "multicast", "--width", "1", "--size", str(s), "-m",
                                    model) for s in (0, 8, 64, 512, 4096, 32768, 262144)}
    inter_csv, intra_csv = os.path.join(tmp, "inter.csv"), os.path.join(tmp, "intra.csv")
    write(inter_csv, "size_bytes,time_ns", sorted(levels["inter"].items()))
    write(intra_csv, "size_bytes,time_ns", sorted(levels["intra"].items()))
    both = "fennel: 1\nnetwork:\n  model: postal\n  alpha: 1300ns\n  beta: 0.37ns/B\n" \
        "placement: {ranks_per_node: 1}\nintra:\n  model: postal\n  alpha: 250ns\n" \
        "  beta: 0.08ns/B\n"
    out = fit("--intra: both levels recovered exactly into one model file",
              ["--intra", intra_csv, inter_csv], both)
    check("--intra: the report has the intra-node fit",
          "within a node (--intra): postal fit of 7 sizes" in out, out)
    machine = os.path.join(tmp, "machine.yaml")
    code, _, err = fennel("fit", "--intra", intra_csv, inter_csv, "-o", machine)
    # The fitted model at 2 ranks per node: a put from rank 0 to rank 1 takes the intra level,
    # 250 + 4096 x 0.08 = 577.68 ns; at 1 rank per node the network, 1300 + 4096 x 0.37.
    t2 = makespan("-g", "multicast", "--width", "1", "--size", "4096", "-m", machine,
                  "--set", "ranks_per_node=2")
    t1 = makespan("-g", "multicast", "--width", "1", "--size", "4096", "-m", machine)
    check("--intra: the written model times messages within a node by the intra level",
          code == 0 and abs(t2 - 577.68) < 1e-6 and abs(t1 - (1300 + 4096 * 0.37)) < 1e-6,
          f"{t1} {t2} {err}")
    code, jout, err = fennel("fit", "--intra", intra_csv, inter_csv, "--json")
    doc = json.loads(jout) if code == 0 else {}
    check("--intra: the JSON has the intra fit and the model's intra level",
          doc.get("intra", {}).get("network") == "postal" and
          doc["model"]["intra"]["model"] == "postal" and
          doc["model"]["placement"]["ranks_per_node"] == 1, f"{jout[:300]} {err}")
    # 1 % seeded noise on the intra-node times: its alpha and beta within 5 %.
    rng = random.Random(7)
    noisy = os.path.join(tmp, "intra-noisy.csv")
    write(noisy, "size_bytes,time_ns",
          [(s, t * (1 + rng.uniform(-0.01, 0.01))) for s, t in sorted(levels["intra"].items())])
    code, jout, err = fennel("fit", "--intra", noisy, inter_csv, "--json")
    intra = json.loads(jout)["model"]["intra"] if code == 0 else {}
    check("--intra: within 5 % with 1 % noise",
          abs(intra.get("alpha_ns", 0) - 250) <= 12.5 and
          abs(intra.get("beta_ns_per_byte", 0) - 0.08) <= 0.004, f"{intra} {err}")
    # Without --intra: the model as before, and the report says what times messages within a
    # node where ranks share nodes.
    code, out, err = fennel("fit", inter_csv)
    check("no --intra: the shared-memory default is named",
          code == 0 and "within a node: not measured (--intra FILE fits an intra-node "
          "ping-pong); where ranks share nodes (compare --ppn P, fit --model --ppn P) messages "
          "within a node take the shared-memory default, postal alpha 300ns, beta 0.1ns/B\n"
          in out, out + err)
    code, out, err = fennel("fit", "--intra", os.path.join(DATA, "osu-allreduce-three-runs.txt"), inter_csv)
    check("--intra with no ping-pong in it: an error that names --intra",
          code == 1 and err.startswith("fennel: --intra: "), err)

# The reduction's cost (docs/CALIBRATION.md, The reduction's cost): collective times fennel
# simulates under a postal network (alpha 1 us, beta 0.5 ns/B) with reductions at gamma 0.25
# ns/B, fitted back under the network alone. The ring allreduce at p ranks and n bytes takes
# 2(p-1) alpha + 2 n beta (p-1)/p + n gamma (p-1)/p: 6000 + 768 + 192 = 6960 ns at p 4,
# n 1024.
with tempfile.TemporaryDirectory() as tmp:
    net = os.path.join(tmp, "net.yaml")
    with open(net, "w") as f:
        f.write("fennel: 1\n# the network\nnetwork: {model: postal, alpha: 1us, beta: 0.5ns/B}\n"
                "compute:\n  model: fixed\n  duration: 0ns\n")
    intra = os.path.join(tmp, "intra.yaml")
    with open(intra, "w") as f:
        f.write("fennel: 1\nnetwork: {model: postal, alpha: 1us, beta: 0.5ns/B}\n"
                "placement: {ranks_per_node: 1}\nintra: {model: postal, alpha: 200ns, "
                "beta: 0.1ns/B}\n")
    points = [(g, n, s) for g in ("allreduce-ring", "allreduce-rd") for n in (4, 8)
              for s in (1024, 65536, 1048576)]

    def simulated(model, *extra):
        return {(g, n, s): makespan("-g", g, "--ranks", str(n), "--size", str(s), "-m", model,
                                    "--set", "compute=reduction", "--set", "gamma=0.25ns/B",
                                    *extra) for g, n, s in points}

    truth = simulated(net)
    check("reduction: the simulated ring allreduce follows its formula",
          truth[("allreduce-ring", 4, 1024)] == 6960, f"{truth}")

    def measured(name, times, factor=lambda i: 1.0):
        path = os.path.join(tmp, name)
        write(path, "generator,ranks,size_bytes,schedule,time_ns",
              [(g, n, s, "", t * factor(i)) for i, ((g, n, s), t) in enumerate(times.items())])
        return path

    def fit_gamma(csv, model, *extra):
        out = os.path.join(tmp, "fitted.yaml")
        code, stdout, err = fennel("fit", csv, "--model", model, "-o", out, *extra)
        jcode, jout, jerr = fennel("fit", csv, "--model", model, "--json", *extra)
        doc = json.loads(jout) if jcode == 0 else None
        body = model_body(out) if code == 0 else None
        return doc, stdout, body, err + jerr

    doc, out, body, err = fit_gamma(measured("exact.csv", truth), net)
    check("reduction: gamma recovered exactly from noise-free allreduce times",
          doc is not None and doc["gamma_ns_per_byte"] == 0.25 and not doc["held_at_zero"] and
          doc["points"] == 12 and doc["points_with_reduction"] == 12 and
          doc["worst_relative_error"] < 1e-9, f"{doc} {err}")
    # (model_body leaves out comment lines: the network file's own comment is kept too.)
    check("reduction: the model file is the network's with the fitted compute",
          body == "fennel: 1\nnetwork: {model: postal, alpha: 1us, beta: "
          "0.5ns/B}\ncompute: {model: reduction, gamma: 0.25ns/B}\n", f"{body!r}")
    check("reduction: the report says what was fitted and how",
          "compute reduction: gamma 0.25 ns/B (weighted least squares on the residual measured "
          "- model, gamma >= 0)\n" in out and
          "(12 whose model time grows with it: allreduce-ring, allreduce-rd)" in out, out)
    # 2 % seeded multiplicative noise: gamma within 5 %.
    rng = random.Random(30)
    noise = [1 + rng.uniform(-0.02, 0.02) for _ in points]
    doc, out, body, err = fit_gamma(measured("noisy.csv", truth, lambda i: noise[i]), net)
    check("reduction: gamma within 5 % with 2 % noise",
          doc is not None and abs(doc["gamma_ns_per_byte"] - 0.25) <= 0.0125, f"{doc} {err}")
    # An intra level: 8 ranks at 2 per node, the model's intra model (alpha 200 ns, beta
    # 0.1 ns/B) within the nodes; --ppn 2 places the ranks as the simulation did.
    truth2 = simulated(intra, "--set", "ranks_per_node=2")
    check("reduction: ranks sharing nodes change the simulated times",
          truth2[("allreduce-rd", 8, 65536)] < truth[("allreduce-rd", 8, 65536)])
    # The simulation gave every rank its own NIC: --nic own (--ppn alone shares them).
    doc, out, body, err = fit_gamma(measured("ppn.csv", truth2), intra, "--ppn", "2", "--nic",
                                    "own")
    check("reduction: gamma recovered exactly with an intra level (--ppn 2 --nic own)",
          doc is not None and doc["gamma_ns_per_byte"] == 0.25, f"{doc} {err}")
    # Simulated with the ranks of a node sharing one NIC, fitted with --ppn 2 alone: the
    # default under --ppn shares it (docs/TOPOLOGY.md, Shared NICs), so gamma comes back
    # exactly, and the report says which ports it took.
    truth3 = simulated(intra, "--set", "ranks_per_node=2", "--set", "nic=shared")
    check("reduction: a shared NIC changes the simulated times",
          truth3[("allreduce-rd", 8, 65536)] != truth2[("allreduce-rd", 8, 65536)])
    doc, out, body, err = fit_gamma(measured("shared.csv", truth3), intra, "--ppn", "2")
    check("reduction: gamma recovered exactly under the shared NIC --ppn defaults to",
          doc is not None and doc["gamma_ns_per_byte"] == 0.25 and
          "ports: one NIC per node, shared by its ranks, full duplex (the default under --ppn: "
          "the network model is a ping-pong between nodes, one rank on each; --nic own gives "
          "every rank its own)\n" in out, f"{doc} {out} {err}")
    # --library: each point simulated with the algorithm the library picks. Open MPI 4.1 at 4
    # ranks runs recursive doubling at 1 KiB and Rabenseifner from 8 KiB
    # (docs/LIBRARIES.md, Open MPI 4.1). Under alpha 1 us, beta 0.5 ns/B, gamma 0.25 ns/B:
    # recursive doubling, 2 steps of n bytes sent and reduced: 2 (alpha + n beta) + 2 n gamma
    # = 3024 + 512 = 3536 ns at n 1024; Rabenseifner, halves of n/2 and n/4 reduced and
    # sent, then sent back: 4 alpha + 1.5 n beta + 0.75 n gamma = 4000 + 49152 + 12288 =
    # 65440 ns at 64 KiB, 4000 + 786432 + 196608 = 987040 ns at 1 MiB.
    lib = os.path.join(tmp, "osu-allreduce-lib.txt")
    with open(lib, "w") as f:
        f.write("# OSU MPI Allreduce Latency Test v5.8\n# Size       Avg Latency(us)\n"
                "1024                    3.536\n65536                  65.44\n"
                "1048576               987.04\n")
    doc, out, body, err = fit_gamma(lib, net, "--ranks", "4", "--library", "ompi-4")
    check("reduction: gamma recovered exactly under the library's algorithms (--library)",
          doc is not None and doc["gamma_ns_per_byte"] == 0.25 and doc["points"] == 3 and
          doc["worst_relative_error"] < 1e-9 and
          "  each point simulated with the algorithm ompi-4 picks (compare --library ompi-4)\n"
          in out, f"{doc} {out} {err}")
    # The same times under the default generator (recursive doubling throughout, 2 n bytes
    # reduced): its times at gamma 0 are 3024, 67536 and 1050576 ns, the residuals 512, -2096
    # and -63536 ns, so sum w d r (w = 1 / measured^2, d = 2 n) is 0.0839 - 0.0642 - 0.1368
    # < 0: gamma held at 0.
    doc, out, body, err = fit_gamma(lib, net, "--ranks", "4")
    check("reduction: without --library the same times hold gamma at 0",
          doc is not None and doc["gamma_ns_per_byte"] == 0 and doc["held_at_zero"],
          f"{doc} {err}")
    # A point the library runs by an algorithm fennel has no generator for is left out and
    # said. Open MPI 4.1.6 runs reduce_scatter at 2 ranks as butterfly from 65536 B to
    # 131071 B (coll_tuned_decision_fixed.c v4.1.6 line 860; docs/LIBRARIES.md), and the
    # ring below (line 858) at 4096 B: one step of 2048 B each way and its reduction, 1000 +
    # 1024 + 0.25 x 2048 = 2536 ns.
    rs = os.path.join(tmp, "osu-reduce-scatter-lib.txt")
    with open(rs, "w") as f:
        f.write("# OSU MPI Reduce_scatter Latency Test v5.8\n# Size       Avg Latency(us)\n"
                "4096                      2.536\n65536                    50.00\n")
    doc, out, body, err = fit_gamma(rs, net, "--ranks", "2", "--library", "ompi-4")
    check("reduction: a point without a generator is left out of the fit and said",
          doc is not None and doc["gamma_ns_per_byte"] == 0.25 and doc["points"] == 1 and
          doc["no_generator_points"] == 1 and
          doc["no_generator"] == "reduce_scatter butterfly" and
          "  left out: 1 point where the library runs what no generator of fennel performs "
          "(reduce_scatter butterfly)\n" in out, f"{doc} {out} {err}")
    code, out, err = fennel("fit", lib, "--model", net, "--ranks", "4", "--library", "ompi-9")
    check("reduction: an unknown --library is a usage error that lists the known ones",
          code == 2 and err.startswith("fennel: fit: --library: unknown library 'ompi-9' "
                                       "(known: "), err)
    # Times below the network's own: the unconstrained gamma is negative, held at 0.
    doc, out, body, err = fit_gamma(measured("fast.csv", truth, lambda i: 0.5), net)
    check("reduction: a negative gamma is held at 0 and said",
          doc is not None and doc["gamma_ns_per_byte"] == 0 and doc["held_at_zero"] and
          doc["unconstrained_gamma_ns_per_byte"] < 0, f"{doc} {err}")
    code, out, err = fennel("fit", measured("fast.csv", truth, lambda i: 0.5), "--model", net)
    check("reduction: the text says gamma was held at 0",
          code == 0 and "  gamma held at 0: the unconstrained fit gives -" in out, out + err)
    # Collectives without a reduction cannot determine it.
    bcast = os.path.join(tmp, "bcast.csv")
    write(bcast, "generator,ranks,size_bytes,schedule,time_ns", [("bcast-binomial", 4, 64, "",
                                                                  5000)])
    code, out, err = fennel("fit", bcast, "--model", net)
    check("reduction: no reduction in the measurements is an error",
          code == 1 and err == "fennel: no measured point's model time depends on the "
          "reduction's cost (give allreduce, reduce or reduce_scatter measurements)\n", err)
    code, out, err = fennel("fit", bcast, "--model", net, "--network", "postal")
    check("reduction: --network with --model is a usage error",
          code == 2 and err.startswith("fennel: fit: --model fits the reduction's cost"), err)
    code, out, err = fennel("fit", bcast, "--ppn", "2")
    check("--ppn without --model is a usage error",
          code == 2 and err == "fennel: fit: --ranks, --ppn, --nic, --library and --set go "
          "with --model (the reduction's cost)\n", err)

# Half-duplex ports (docs/CALIBRATION.md): a log with PingPong and PingPing. PingPing's times
# are twice PingPong's at every size (tests/data/fit/README.md), rounded to 0.01 us as IMB
# prints them: the ratios are 1.993-2.006 and their median 2.00, at least 1.5, so the ports
# are half duplex and the model says so.
with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "m.yaml")
    code, text, err = fennel("fit", "tests/data/fit/imb-pingping-half.txt", "-o", out)
    why = ("ports: half duplex: IMB PingPing takes 2.00 times the time per message of IMB "
           "PingPong (median over 10 sizes; 1 on full-duplex ports, 2 on half-duplex ones)")
    written = open(out).read() if code == 0 else ""
    check("fit: PingPing twice PingPong is half duplex, said and written",
          code == 0 and why + "; written as duplex: half\n" in text and
          written.endswith(f"# {why}\nduplex: half\n"), text + err + written)
    code, text, err = fennel("fit", "tests/data/fit/imb-pingping-half.txt", "--json")
    doc = json.loads(text) if code == 0 else {}
    check("fit --json: the model has duplex half", doc.get("model", {}).get("duplex") == "half",
          text + err)
    # --duplex full overrides what the data shows: no key written.
    code, text, err = fennel("fit", "tests/data/fit/imb-pingping-half.txt", "--duplex", "full",
                             "-o", out)
    written = open(out).read() if code == 0 else ""
    check("fit --duplex full: full duplex, as asked",
          code == 0 and "ports: full duplex (--duplex full)\n" in text and
          "duplex:" not in written, text + err + written)
    # Equal times: the median ratio 1.00 is full duplex, and nothing is written.
    code, text, err = fennel("fit", "tests/data/fit/imb-pingping-full.txt", "-o", out)
    written = open(out).read() if code == 0 else ""
    check("fit: PingPing equal to PingPong is full duplex",
          code == 0 and "ports: full duplex: IMB PingPing takes 1.00 times" in text and
          "duplex:" not in written, text + err + written)
    # osu_bibw's bandwidth twice osu_bw's at every size (2000 and 4000 MB/s at 2500 B, ...;
    # bibw counts both directions), so the same time per message: full duplex.
    code, text, err = fennel("fit", "tests/data/fit/osu-bw-v5.txt",
                             "tests/data/fit/osu-bibw-v5.txt")
    check("fit: osu_bibw and osu_bw with the same time per message: full duplex",
          code == 0 and "ports: full duplex: osu_bibw takes 1.00 times the time per message of "
          "osu_bw (median over 6 sizes" in text, text + err)
    # Duplex by size (tests/data/fit/imb-sendrecv-duplex-by-size.txt): Sendrecv twice
    # PingPong below 8 KiB but for a lone 2048 B (equal), equal at 8-32 KiB, twice from 64 KiB.
    # Half from a ratio of 1.5; a mode holds from the first of two sizes in a row that show it,
    # so the lone 2048 B is noise and the ranges are half, full from 8 KiB, half from 64 KiB.
    code, text, err = fennel("fit", "tests/data/fit/imb-sendrecv-duplex-by-size.txt", "-o", out)
    value = "half, full from 8KiB, half from 64KiB"
    why = (f"ports: duplex by size, {value}: IMB Sendrecv against IMB PingPong at each of 10 "
           "sizes (half from 1.5 times the time per message, from the first of two sizes in a "
           "row)")
    written = open(out).read() if code == 0 else ""
    check("fit: Sendrecv against PingPong, duplex by size, said and written",
          code == 0 and why + "; written as duplex: " + value + "\n" in text and
          written.endswith(f"# {why}\nduplex: {value}\n"), text + err + written)
    code, text, err = fennel("fit", "tests/data/fit/imb-sendrecv-duplex-by-size.txt", "--json")
    doc = json.loads(text) if code == 0 else {}
    check("fit --json: the model has the duplex ranges in bytes",
          doc.get("model", {}).get("duplex") == "half, full from 8192B, half from 65536B",
          text + err)
    code, text, err = fennel("fit", "tests/data/fit/imb-pingping-half.txt", "--duplex", "some")
    check("fit --duplex some: a usage error",
          code == 2 and err == "fennel: fit: --duplex: expected full or half (sizes with "
          "--model)\n", err)

finish()
