#!/usr/bin/env python3
"""CLI tests of `fennel fit` (docs/CALIBRATION.md).

Usage: test_fit.py FENNEL SOURCE_ROOT. Prints TAP.

- Recovery: times that fennel itself simulates (a multicast of b = 1..16 puts per size under
  lbp, a single put per size under postal, a postal model of two size ranges) give back the
  model's parameters exactly; the same times with seeded noise within a stated tolerance,
  with --statistic min and median.
- The thesis (Rüfenacht 2020): Table 4.1's rows are recovered from times synthesised from
  them (T(b) = alpha_p + b alpha_r, Eq. 4.6), the 128 KB and 512 KB rows reported as
  non-physical and left out; the blocking fit (alpha_p 1.50 us, alpha_r -0.72 us, §4.3) is
  refused as non-physical and written with 0 under --clamp.
- Readers: hand-written outputs of OSU, IMB and Netgauge and fennel's CSV (tests/data/fit/,
  whose numbers lie on known lines) give those lines' parameters.
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
    rows = [(x["bytes"], round(x["intercept_ns"] / 1000, 3), round(x["alpha_r_ns"] / 1000, 3),
             x["physical"]) for x in r["sizes"]]
    check("Table 4.1: every row recovered, 128 KB and 512 KB non-physical",
          rows == [(s, ap, ar, ap >= 0) for s, ap, ar in table], f"{rows} {err}")
    with tempfile.TemporaryDirectory() as t2:
        m = os.path.join(t2, "m.yaml")
        code, out, err = fennel("fit", t41, "-o", m)
        text = open(m).read() if os.path.exists(m) else ""
        check("Table 4.1: the model leaves the negative rows out and says so",
              code == 0 and "131072B" not in text.split("fennel: 1")[1] and
              "non-physical, left out" in text and "non-physical" in out, text + err)

        # The fitted model times multicasts as the preset of Table 4.1 does, at the table's
        # sizes, between them and beyond them.
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
    code, out, err = fennel("fit", blocking)
    check("blocking fit: refused as non-physical",
          code == 1 and err == "fennel: non-physical fit: alpha_p + s beta = 1500 ns, alpha_r = "
          "-720 ns at 8B; no size gives a physical model (--clamp writes 0 instead)\n", err)
    fit("blocking fit: --clamp writes 0", [blocking, "--clamp"],
        "fennel: 1\nnetwork:\n  model: lbp\n  alpha_p: 1500ns\n  alpha_r: 0ns\n  beta: 0ns/B\n")

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
fit("Netgauge LogGP table (-nan cells left out)", [os.path.join(DATA, "netgauge-loggp.txt")],
    "fennel: 1\nnetwork:\n  model: loggp\n  L: 5000ns\n"
    "  o: {1B: 1001ns, 2B: 1002ns, 4B: 1004ns, 8B: 1008ns, 1024B: 2024ns}\n"
    "  g: {2B: 2000ns, 4B: 2000ns, 8B: 2000ns, 1024B: 2000ns}\n  G: 0.5ns/B\n")
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

# Usage errors: exit 2, one line.
for args, message in (([], "fit: no measurement file given (fennel fit FILE... -o MODEL.yaml)"),
                      (["x.csv", "--statistic", "max"],
                       "fit: --statistic: expected min, median or mean"),
                      (["x.csv", "--segments", "0"], "fit: --segments: expected auto or a number 1..16"),
                      (["x.csv", "--network", "bsp"],
                       "fit: --network: expected postal, lbp, logp or loggp")):
    code, out, err = fennel("fit", *args)
    check(f"usage: {message}", code == 2 and err == f"fennel: {message}\n", err)

finish()
