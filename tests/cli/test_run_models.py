#!/usr/bin/env python3
"""CLI tests of the models: GOAL files, LogGP presets, noise reproducibility, --repeat.

Usage: test_run_models.py FENNEL SOURCE_ROOT. Prints TAP.
"""
import csv
import json
import os
import tempfile

from harness import FENNEL, ROOT, check, fennel, finish

TIMING = ("build_seconds", "simulate_seconds", "wall_seconds")


def summary(*args):
    code, out, err = fennel("run", *args, "--json")
    try:
        return json.loads(out), out
    except ValueError:
        return {"error": err}, out


def without_timing(text):
    doc = json.loads(text)
    for key in TIMING:
        doc.pop(key, None)
    return json.dumps(doc, sort_keys=True)


# LogGOPSim's binomial broadcast under its defaults: host end times from the hand
# derivation in tests/test_goal.c.
doc, _ = summary("tests/data/goal/binomial-bcast.goal", "--model",
                 "models/presets/loggopsim-default.yaml")
check("goal: binomial broadcast end times",
      doc.get("rank_finish_ns") == [8638, 13138, 18776, 23276], doc)
check("goal: messages and bytes", doc.get("messages") == 3 and doc.get("bytes") == 3072, doc)
# The same file with `l2 requires l1` written twice, as Schedgen does: one dependency, the
# same times (LogGOPSim counts it once).
dup, _ = summary("tests/data/goal/binomial-bcast-dup.goal", "--model",
                 "models/presets/loggopsim-default.yaml")
check("goal: a repeated requires counts once", dup.get("rank_finish_ns") ==
      [8638, 13138, 18776, 23276] and dup.get("tasks") == doc.get("tasks"), dup)

# A deadlock in GOAL: both ranks receive before they send.
code, out, err = fennel("run", "tests/data/goal/deadlock.goal", "--model",
                        "models/presets/loggopsim-default.yaml")
check("goal: a deadlock is reported by name, exit 1",
      code == 1 and "never completed: recv 'r0:r' on rank 0 waits for a message from rank 1 "
      "with tag 0" in err and err.count("\n") == 1, err)

# Noise: same seed, same bytes (outside the wall-clock fields); another seed, another
# makespan.
noisy = ["programs/examples/a2_a2.yaml", "--model", "models/presets/thesis-figures.yaml",
         "--set", "noise.network.distribution=normal", "--set", "noise.network.stddev=20ns",
         "--set", "noise.compute.distribution=exponential", "--set", "noise.compute.mean=5ns"]
a = fennel("run", *noisy, "--seed", "11", "--json")[1]
b = fennel("run", *noisy, "--seed", "11", "--json")[1]
c = fennel("run", *noisy, "--seed", "12", "--json")[1]
check("noise: same seed, same JSON", a and without_timing(a) == without_timing(b))
check("noise: another seed, another makespan",
      json.loads(a)["makespan_ns"] != json.loads(c)["makespan_ns"])
check("noise: the model echoes it",
      json.loads(a)["model"].get("noise_network", {}).get("distribution") == "normal", a)

# --repeat: K runs with seeds seed..seed+K-1; the statistics agree with single runs.
doc, _ = summary(*noisy, "--seed", "11", "--repeat", "5")
singles = [summary(*noisy, "--seed", str(s))[0]["makespan_ns"] for s in range(11, 16)]
stats = doc.get("makespan_stats_ns", {})
check("--repeat: min and max are those of the single runs",
      stats.get("min") == min(singles) and stats.get("max") == max(singles), (stats, singles))
check("--repeat: median of 5 is the third", stats.get("median") == sorted(singles)[2],
      (stats, singles))
check("--repeat: mean", abs(stats.get("mean", 0) - sum(singles) / 5) < 0.001, (stats, singles))
check("--repeat: the summary is the first run's", doc.get("makespan_ns") == singles[0])


def percentile(values, q):
    """numpy's default (linear interpolation between closest ranks), rounded to 1 ps."""
    v = sorted(values)
    pos = q / 100 * (len(v) - 1)
    i = int(pos)
    x = v[i] if i + 1 >= len(v) else v[i] + (pos - i) * (v[i + 1] - v[i])
    return round(x * 1000) / 1000


mean = sum(singles) / 5
stddev = round((sum((x - mean) ** 2 for x in singles) / 5) ** 0.5 * 1000) / 1000
check("--repeat: p5, p95, p99 by linear interpolation, population stddev",
      all(abs(stats.get(k, -1) - v) < 0.0015 for k, v in
          (("p5", percentile(singles, 5)), ("p95", percentile(singles, 95)),
           ("p99", percentile(singles, 99)), ("stddev", stddev))), (stats, singles))
with tempfile.TemporaryDirectory() as tmp:
    per_seed = os.path.join(tmp, "r.csv")
    code, _, err = fennel("run", *noisy, "--seed", "11", "--repeat", "5", "--repeats", per_seed)
    rows = list(csv.DictReader(open(per_seed))) if code == 0 else []
    check("--repeats: one row per seed, equal to the single runs",
          [int(r["seed"]) for r in rows] == list(range(11, 16)) and
          [float(r["makespan_ns"]) for r in rows] == singles, (rows, singles, err))
# --finishes: a row per rank and seed, equal to the rows of the single runs, whose earliest
# and latest finish are the --repeats row's.
with tempfile.TemporaryDirectory() as tmp:
    both, per_seed = os.path.join(tmp, "f.csv"), os.path.join(tmp, "r.csv")
    code, _, err = fennel("run", *noisy, "--seed", "11", "--repeat", "3", "--finishes", both,
                          "--repeats", per_seed)
    rows = list(csv.DictReader(open(both))) if code == 0 else []
    singles_rows = []
    for k in range(11, 14):
        one = os.path.join(tmp, f"f{k}.csv")
        fennel("run", *noisy, "--seed", str(k), "--finishes", one)
        singles_rows += list(csv.DictReader(open(one))) if os.path.exists(one) else []
    seeds = list(csv.DictReader(open(per_seed))) if code == 0 else []
    extremes = all(
        min(float(r["finish_ns"]) for r in rows if r["seed"] == s["seed"]) ==
        float(s["first_finish_ns"]) and
        max(float(r["finish_ns"]) for r in rows if r["seed"] == s["seed"]) ==
        float(s["last_finish_ns"]) for s in seeds)
    check("--finishes: every rank of every seed, as the single runs give them",
          rows and rows == singles_rows and extremes and len(seeds) == 3, (rows, err))
code, out, err = fennel("run", *noisy, "--repeat", "-1")
check("--repeat -1 is a usage error", code == 2 and err.startswith("fennel: run: --repeat"), err)

# Without noise, repeats are identical.
doc, _ = summary("programs/examples/a4.yaml", "--model", "models/presets/thesis-figures.yaml",
                 "--repeat", "3")
s = doc.get("makespan_stats_ns", {})
check("--repeat without noise: all equal",
      s.get("min") == s.get("max") == doc.get("makespan_ns") == 903.2, doc)

# Bad noise settings are usage errors that name the problem.
code, out, err = fennel("run", "programs/examples/a4.yaml", "--set",
                        "noise.network.distribution=normal")
check("noise without its parameter: exit 2",
      code == 2 and err == "fennel: --set: normal noise needs 'stddev'\n", err)
code, out, err = fennel("run", "programs/examples/a4.yaml", "--set", "noise.disk.mean=1ns")
check("unknown noise stream: exit 2", code == 2 and "unknown noise stream" in err, err)

# Placement from the command line: ranks 0-1 on one node with a fast intra-node postal.
doc, _ = summary("programs/examples/pingpong.yaml", "--network", "lbp", "--set",
                 "alpha_p=500ns", "--set", "alpha_r=100ns", "--set", "ranks_per_node=2",
                 "--set", "intra.alpha=10ns")
check("placement: a ping-pong inside a node takes 2 x 10 ns", doc.get("makespan_ns") == 20, doc)

# generate --format fennel-goal round-trips the schedule exactly; --format goal turns each
# put into a send and its recv (same message count), which then runs to completion.
import tempfile

with tempfile.TemporaryDirectory() as tmp:
    fg = os.path.join(tmp, "rd.goal")
    code, out, err = fennel("generate", "allreduce-rd", "--ranks", "8", "--format", "fennel-goal",
                            "-o", fg)
    a, _ = summary("--generate", "allreduce-rd", "--ranks", "8", "--model",
                   "models/presets/thesis-figures.yaml")
    b, _ = summary(fg, "--model", "models/presets/thesis-figures.yaml")
    check("fennel-goal round trip: same makespan (3 x 613.2 = 1839.6)",
          code == 0 and a.get("makespan_ns") == b.get("makespan_ns") == 1839.6, (a, b, err))
    lg = os.path.join(tmp, "rd-loggopsim.goal")
    code, out, err = fennel("generate", "allreduce-rd", "--ranks", "8", "--format", "goal",
                            "--model", "models/presets/thesis-figures.yaml", "-o", lg)
    c, _ = summary(lg, "--model", "models/presets/loggopsim-default.yaml")
    check("goal: a put becomes a send and a recv", code == 0 and c.get("messages") == 24, (c, err))
    code, out, err = fennel("generate", "allreduce-rd", "--ranks", "8", "--format", "goal")
    check("goal: sized computes need --model",
          code == 1 and "give --model for its duration" in err, err)

# --stream: the same program in segments gives the same summary as the whole program, for a
# large run and for skewed schedules cut after every stage.
SAME = ("makespan_ns", "rank_finish_ns", "skew_ns", "messages", "bytes")
for args, seg in ((["allreduce-rd", "--ranks", "65536"], "1000000"),
                  (["allreduce-rd", "--ranks", "1000"], "1"),
                  (["allreduce-rm", "--ranks", "7", "--schedule", "c6m2,a2,a2,e6m2"], "1"),
                  (["allgather-rm", "--ranks", "48", "--size", "1KiB"], "1")):
    whole, _ = summary("--generate", *args, "--model", "models/presets/thesis-figures.yaml")
    parts, _ = summary("--generate", *args, "--model", "models/presets/thesis-figures.yaml",
                       "--stream", "--stream-tasks", seg)
    check(f"--stream {' '.join(args)}: same summary in {parts.get('segments')} segments",
          all(k in whole and whole[k] == parts.get(k) for k in SAME) and parts.get("segments", 0) > 1,
          ({k: (whole.get(k), parts.get(k)) for k in SAME if k != "rank_finish_ns"}))
code, out, err = fennel("run", "--generate", "allreduce-rd", "--ranks", "8", "--stream",
                        "--network", "loggp")
check("--stream refuses LogGP (exit 2)", code == 2 and "--stream: the loggp model" in err, err)
code, out, err = fennel("run", "--generate", "bcast-binomial", "--ranks", "8", "--stream",
                        "--model", "postal-unit")
check("--stream refuses generators that cannot stream", code == 2 and "cannot stream" in err, err)

# --critical-path (README, Commands). A LogP ping-pong (L=500, o=100, g=0): each message is o
# of the sender's overhead, then L in flight and o of receive overhead at its target, so
# the path is 2 (2o + L) = 1400 ns with 400 ns of overhead and 1000 ns of latency (LogP's
# rules); a receive overhead is spent on the receiving rank.
doc, _ = summary("--generate", "pingpong", "--network", "logp", "-s", "L=500ns", "-s",
                 "o=100ns", "-s", "g=0ns", "--critical-path")
path = doc.get("critical_path", {})
check("critical path: LogP ping-pong is 2(2o+L) = 1400 ns",
      path.get("end_ns") == 1400 and path.get("overhead_ns") == 400 and
      path.get("latency_ns") == 1000, path)
check("critical path: steps alternate send overhead, latency and receive overhead",
      [(s["kind"], s["rank"], s["from_ns"], s["to_ns"]) for s in path.get("steps", [])] ==
      [("overhead", 0, 0, 100), ("latency", 0, 100, 600), ("overhead", 1, 600, 700),
       ("overhead", 1, 700, 800), ("latency", 1, 800, 1300), ("overhead", 0, 1300, 1400)],
      path)


def tiles(doc):
    """The path's steps are contiguous from 0 to the makespan and its kinds sum to it."""
    path = doc.get("critical_path", {})
    steps = path.get("steps", [])
    kinds = sum(path.get(k, 0) for k in ("latency_ns", "overhead_ns", "compute_ns", "sleep_ns",
                                         "slot_wait_ns"))
    tiled = bool(steps) and steps[0]["from_ns"] == 0 and all(
        a["to_ns"] == b["from_ns"] for a, b in zip(steps, steps[1:])) and \
        steps[-1]["to_ns"] == path.get("end_ns")
    return tiled and kinds == path.get("end_ns") == doc.get("makespan_ns")


# On any program the parts tile [0, makespan]: contiguous steps whose kinds sum to the end.
for gen in (["allreduce-rd", "--ranks", "12", "--size", "4KiB"],
            ["allreduce-ring", "--ranks", "7", "--size", "1KiB"],
            ["bsp", "--ranks", "5", "--rounds", "3", "--size", "1KiB"]):
    doc, _ = summary("--generate", *gen, "--model", "models/presets/loggopsim-default.yaml",
                     "--critical-path")
    check("critical path: %s tiles [0, makespan]" % gen[0], tiles(doc), doc.get("critical_path"))

# Two-sided programs tile too: generated schedules written as LogGOPSim GOAL (every put a
# send and its recv), eager under LogP and LogGP and rendezvous above a small S, and the
# send/recv examples of the unit tests (tests/test_critical_path.c).
with tempfile.TemporaryDirectory() as tmp:
    for gen in (["allreduce-rd", "--ranks", "12", "--size", "4KiB"],
                ["allreduce-ring", "--ranks", "7", "--size", "1KiB"],
                ["allreduce-rabenseifner", "--ranks", "6", "--size", "4KiB"]):
        goal = os.path.join(tmp, gen[0] + ".goal")
        code, out, err = fennel("generate", *gen, "--format", "goal", "--model",
                                "models/presets/loggopsim-default.yaml", "-o", goal)
        for extra in ([], ["-s", "S=1KiB"], ["-s", "S=0B", "-s", "O=1ns/B"]):
            doc, _ = summary(goal, "--model", "models/presets/loggopsim-default.yaml", *extra,
                             "--critical-path")
            check("critical path: %s as GOAL %s tiles [0, makespan]" % (gen[0], " ".join(extra)),
                  code == 0 and tiles(doc), (err, doc.get("critical_path")))
LOGP = ["--network", "logp", "-s", "L=500ns", "-s", "o=100ns", "-s", "g=0ns"]
for name, model in (("posted-first", LOGP), ("arrived-first", LOGP), ("receiver-busy", LOGP),
                    ("rendezvous-early-recv", LOGP[2:] + ["--network", "loggp", "-s", "S=100B"]),
                    ("rendezvous-late-recv", LOGP[2:] + ["--network", "loggp", "-s", "S=100B"])):
    doc, _ = summary("tests/data/critical-path/%s.yaml" % name, *model, "--critical-path")
    check("critical path: %s tiles [0, makespan]" % name, tiles(doc), doc.get("critical_path"))
# The receive posted first: the path runs through the send that the receive waited for.
doc, _ = summary("tests/data/critical-path/posted-first.yaml", *LOGP, "--critical-path")
check("critical path: a receive posted first is reached through its send",
      [(s["task"], s["rank"], s["kind"], s["from_ns"], s["to_ns"])
       for s in doc.get("critical_path", {}).get("steps", [])] ==
      [("c0", 0, "compute", 0, 1000), ("send", 0, "overhead", 1000, 1100),
       ("send", 0, "latency", 1100, 1600), ("send", 1, "overhead", 1600, 1700),
       ("work", 1, "compute", 1700, 1900)], doc.get("critical_path"))

# A GOAL file (LogGOPSim's binomial broadcast under its defaults, L 2500, o 1500, G 6/B,
# 1024 B): the makespan is rank 3's receive, whose message came from rank 1's send, which
# waited for rank 1's receive of rank 0's send. The path therefore crosses 0 -> 1 -> 3
# through the two sends, each o = 1500 of overhead, L = 2500 in flight and o + 1023 G =
# 7638 of receive overhead on its target: 2 x 11638 = 23276 ns, the makespan; not, as a
# path that stops at the receive would have it, 23276 ns of latency in one recv.
doc, _ = summary("tests/data/goal/binomial-bcast.goal", "--model",
                 "models/presets/loggopsim-default.yaml", "--critical-path")
path = doc.get("critical_path", {})
check("critical path: GOAL binomial broadcast goes 0 -> 1 -> 3 through the two sends",
      [(s["task"], s["rank"], s["kind"], s["from_ns"], s["to_ns"]) for s in path.get("steps", [])]
      == [("r0:l1", 0, "overhead", 0, 1500), ("r0:l1", 0, "latency", 1500, 4000),
          ("r0:l1", 1, "overhead", 4000, 11638), ("r1:l2", 1, "overhead", 11638, 13138),
          ("r1:l2", 1, "latency", 13138, 15638), ("r1:l2", 3, "overhead", 15638, 23276)] and
      path.get("tasks") == 5 and path.get("latency_ns") == 5000 and
      path.get("overhead_ns") == 18276 and tiles(doc), path)

# The zero model, asked for explicitly: every duration is 0.
code, out, err = fennel("run", "--generate", "pingpong", "--critical-path", "--network",
                        "postal")
check("critical path: text summary line",
      code == 0 and "\ncritical path " in out and " tasks to 0 ns: latency 0 ns" in out, out + err)
code, out, err = fennel("run", "--generate", "pingpong", "--stream", "--critical-path")
check("critical path: refused with --stream, exit 2", code == 2 and err.count("\n") == 1, err)

# A recv from any source shows the sender it matched as its peer, in the tasks CSV, the
# Chrome trace and the timeline's tooltip (it showed the wildcard, 4294967294).
with tempfile.TemporaryDirectory() as tmp:
    csv_path, trace_path, svg_path = (os.path.join(tmp, n) for n in ("t.csv", "t.json", "t.svg"))
    code, out, err = fennel("run", "tests/data/peers/any-source.yaml", "--model",
                            "models/presets/loggopsim-default.yaml", "--tasks", csv_path,
                            "--trace", trace_path, "--timeline", svg_path)
    check("any source: run succeeds", code == 0, err)
    rows = {}
    if code == 0:
        with open(csv_path, encoding="utf-8") as f:
            lines = f.read().splitlines()
        header = lines[0].split(",")
        for line in lines[1:]:
            cells = line.split(",")
            rows[cells[header.index("id")]] = cells[header.index("peer")]
    check("any source: the CSV names the matched sender as the recv's peer",
          rows.get("r0") == "2" and rows.get("d2") == "0", rows)
    peers = {}
    if code == 0:
        with open(trace_path, encoding="utf-8") as f:
            for e in json.load(f)["traceEvents"]:
                if e.get("name") in ("r0", "d2") and "peer" in e.get("args", {}):
                    peers[e["name"]] = e["args"]["peer"]
    check("any source: the trace names the matched sender", peers == {"r0": 2, "d2": 0}, peers)
    svg = open(svg_path, encoding="utf-8").read() if code == 0 else ""
    check("any source: the timeline's tooltips show no wildcard rank",
          "4294967294" not in svg and "peer rank 2" in svg, svg[:300])

# Every noise sample that changes a time is in the trace and in the timeline, under every
# network model and on every stream: constant noise of 300 ns on one stream at a time.
# Host noise lengthens the send overhead of the put, the get and the send; compute noise
# the sized compute; network noise every message's flight (shown on the message).
NOISE_MODELS = {
    "postal": ["--model", "models/presets/postal-unit.yaml"],
    "lbp": ["--model", "models/presets/thesis-figures.yaml"],
    "logp": ["--network", "logp", "--set", "L=1000ns", "--set", "o=200ns", "--set", "g=100ns"],
    "loggp": ["--model", "models/presets/loggopsim-default.yaml"],
}
NOISE_TASKS = {"host": {"p0", "g0", "d0"}, "compute": {"c0"}}
with tempfile.TemporaryDirectory() as tmp:
    for model_name, model in NOISE_MODELS.items():
        for stream in ("network", "host", "compute"):
            trace_path, svg_path = os.path.join(tmp, "n.json"), os.path.join(tmp, "n.svg")
            code, out, err = fennel("run", "tests/data/noise/every-task.yaml", *model,
                                    "--set", f"noise.{stream}.distribution=constant",
                                    "--set", f"noise.{stream}.value=300ns",
                                    "--trace", trace_path, "--timeline", svg_path)
            name = f"noise on {stream} under {model_name}"
            check(f"{name}: runs", code == 0, err)
            if code != 0:
                continue
            with open(trace_path, encoding="utf-8") as f:
                events = json.load(f)["traceEvents"]
            with open(svg_path, encoding="utf-8") as f:
                svg = f.read()
            if stream == "network":
                arrivals = [e for e in events if e.get("name", "").startswith("arrival of ")]
                noisy = [e for e in arrivals if e.get("args", {}).get("noise_ns") == 300]
                check(f"{name}: every message carries its noise in the trace",
                      arrivals and len(noisy) == len(arrivals), arrivals)
                check(f"{name}: every message shows its noise in the timeline",
                      svg.count('data-noise-ns="300"') == len(arrivals) and
                      svg.count("network noise 300 ns") == len(arrivals),
                      svg.count('data-noise-ns="300"'))
            else:
                recorded = {e["name"] for e in events
                            if e.get("args", {}).get("noise_ns") == 300 and "cat" in e and
                            e["name"] in NOISE_TASKS[stream]}
                check(f"{name}: the trace records the noise of {sorted(NOISE_TASKS[stream])}",
                      recorded == NOISE_TASKS[stream], recorded)
                drawn = {t for t in NOISE_TASKS[stream]
                         if f'<g class="noise" data-task="{t}"' in svg}
                check(f"{name}: the timeline draws it", drawn == NOISE_TASKS[stream], drawn)

# `intra: same` times messages within a node like the others: the same times as no
# placement at all.
same = fennel("run", "programs/examples/a4.yaml", "--model", "postal-unit", "--set", "alpha=1us",
              "--set", "ranks_per_node=2", "--set", "intra=same", "--json")
plain = fennel("run", "programs/examples/a4.yaml", "--model", "postal-unit", "--set",
               "alpha=1us", "--json")
check("intra: same gives the times of no placement",
      same[0] == 0 and plain[0] == 0 and
      json.loads(same[1])["makespan_ns"] == json.loads(plain[1])["makespan_ns"] > 0,
      same[2] + plain[1])

# ... and says so: not "postal alpha=0ns beta=0ns/B", which would time them as free.
text = fennel("run", "programs/examples/a4.yaml", "--model", "postal-unit", "--set",
              "alpha=1us", "--set", "ranks_per_node=2", "--set", "intra=same")
check("intra: same in the text summary",
      text[0] == 0 and "; 2 ranks per node, within a node the same model;" in text[1] and
      "within a node postal" not in text[1], text[1] + text[2])
model = json.loads(same[1]).get("model", {}) if same[0] == 0 else {}
check("intra: same in the JSON", model.get("intra") == {"model": "same"} and
      model.get("placement") == {"ranks_per_node": 2}, model)
with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "s.csv")
    code, _, err = fennel("sweep", "programs/examples/a4.yaml", "--model", "postal-unit",
                          "--set", "alpha=1us", "--set", "ranks_per_node=2",
                          "--set", "intra=same,postal", "-o", out)
    rows = list(csv.DictReader(open(out))) if code == 0 else []
    cells = [(r["intra_network"], r.get("intra_alpha_ns"), r.get("intra_beta_ns_per_byte"))
             for r in rows]
    check("intra: same in a sweep's columns, without the postal parameters it does not use",
          cells == [("same", "", ""), ("postal", "0", "0")], err + str(rows[:1]))

finish()
