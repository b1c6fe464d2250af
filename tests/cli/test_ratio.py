#!/usr/bin/env python3
"""`--schedule heuristic` follows the model's ratio alpha_p / alpha_r whatever its value, and
run, generate, sweep and schedules make the same choice: for every preset and for lbp models
of ratio 0, 0.5, 2.3, 5, 1000 and infinity (alpha_r = 0), at 7, 64 and 100 ranks.

`fennel schedules` names the heuristic's schedule; `fennel sweep` must report it in
`schedule_used`, `fennel generate --schedule heuristic` must write the same program as
`--schedule` with that schedule spelled out, and `fennel run` must give the same makespan.

Usage: test_ratio.py FENNEL SOURCE_ROOT. Prints TAP.
"""
import csv
import io
import json
import os
import tempfile

from harness import ROOT, check, fennel, finish, run_json

PRESETS = os.path.join(ROOT, "models", "presets")
MODELS = {name[:-5]: ["--model", os.path.join(PRESETS, name)]
          for name in sorted(os.listdir(PRESETS)) if name.endswith(".yaml")}
for label, alpha_p, alpha_r in [("ratio 0", "0", "100ns"), ("ratio 0.5", "50ns", "100ns"),
                                ("ratio 2.3", "230ns", "100ns"), ("ratio 5", "500ns", "100ns"),
                                ("ratio 1000", "100us", "100ns"),
                                ("ratio infinity", "500ns", "0")]:
    MODELS[label] = ["--network", "lbp", "--set", "alpha_p=" + alpha_p,
                     "--set", "alpha_r=" + alpha_r, "--set", "beta=0"]

# Choices derived from the thesis' heuristic (docs/SCHEDULES.md): with c = 0, b_upper = 1
# and only factor 2 is a candidate, so 64 ranks are recursive doubling, a2 six times
# (postal's alpha_p is 0: the same). With c = 1000 every factor up to the rank count is a
# candidate and the key (c + d - 1) / ln d falls with d up to 64 ((1063)/ln 64 = 255.6
# against 1031/ln 32 = 297.5), so 64 ranks take one stage of 64; with alpha_r = 0 the key
# is 1 / ln d, smallest for the largest d: the same.
EXPECTED = {("ratio 0", 64): "a2,a2,a2,a2,a2,a2",
            ("postal-unit", 64): "a2,a2,a2,a2,a2,a2",
            ("ratio 1000", 64): "a64",
            ("ratio infinity", 64): "a64"}

with tempfile.TemporaryDirectory() as tmp:
    for label, model in MODELS.items():
        for ranks in (7, 64, 100):
            n = str(ranks)
            code, out, err = fennel("schedules", "--ranks", n, *model, "--json", "--limit", "1")
            chosen = json.loads(out)["heuristic"]["schedule"] if code == 0 else None
            check(f"{label}, {ranks} ranks: schedules names the heuristic's choice",
                  chosen is not None, err)
            if chosen is None:
                continue
            if (label, ranks) in EXPECTED:
                check(f"{label}, {ranks} ranks: the choice is {EXPECTED[label, ranks]}",
                      chosen == EXPECTED[label, ranks], chosen)

            csv_path = os.path.join(tmp, "s.csv")
            code, out, err = fennel("sweep", "--generate", "allreduce-rm", "--ranks", n,
                                    "--schedule", "heuristic", *model, "-o", csv_path)
            used = None
            if code == 0:
                with open(csv_path, encoding="utf-8") as f:
                    rows = list(csv.DictReader(f))
                used = rows[0]["schedule_used"] if rows else None
            check(f"{label}, {ranks} ranks: sweep uses the same schedule", used == chosen,
                  f"sweep {used!r}, schedules {chosen!r}, {err}")

            gen = ["generate", "allreduce-rm", "--ranks", n, *model]
            code1, heuristic, err1 = fennel(*gen, "--schedule", "heuristic")
            code2, spelled, err2 = fennel(*gen, "--schedule", chosen)
            # The first line echoes the command, which differs; the program must not.
            check(f"{label}, {ranks} ranks: generate writes the chosen schedule's program",
                  code1 == 0 and code2 == 0 and heuristic.startswith("# fennel generate") and
                  heuristic.split("\n", 1)[1] == spelled.split("\n", 1)[1], err1 + err2)

            run = ["run", "--generate", "allreduce-rm", "--ranks", n, *model, "--json"]
            code1, a, err1 = fennel(*run, "--schedule", "heuristic")
            code2, b, err2 = fennel(*run, "--schedule", chosen)
            same = (code1 == 0 and code2 == 0 and
                    json.loads(a)["makespan_ns"] == json.loads(b)["makespan_ns"])
            check(f"{label}, {ranks} ranks: run times the chosen schedule", same, err1 + err2)

# `run` says which schedule the heuristic chose and why (text and JSON): the one `fennel
# schedules` names, with the ratio used. Ratio 0 at 64 ranks is recursive doubling (above).
out = run_json("--generate", "allreduce-rm", "--ranks", "64", *MODELS["ratio 0"])
check("run --json: the heuristic's schedule and its ratio",
      out.get("schedule") == "a2,a2,a2,a2,a2,a2 (heuristic, ratio alpha_p/alpha_r 0)", out)
code, out, err = fennel("schedules", "--ranks", "100", *MODELS["ratio 5"], "--json", "--limit", "1")
chosen = json.loads(out)["heuristic"]["schedule"] if code == 0 else None
code, text, err = fennel("run", "--generate", "allreduce-rm", "--ranks", "100", *MODELS["ratio 5"])
check("run: a line names the heuristic's schedule at 100 ranks, ratio 5",
      chosen is not None and f"schedule     {chosen} (heuristic, ratio alpha_p/alpha_r 5)\n"
      in text, (chosen, text))
code, text, err = fennel("run", "--generate", "allreduce-rm", "--ranks", "8", "--schedule", "rd",
                         *MODELS["ratio 5"])
check("run: --schedule rd is named as recursive doubling",
      "schedule     a2,a2,a2 (recursive doubling)\n" in text, text)

finish()
