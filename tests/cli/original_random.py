#!/usr/bin/env python3
"""Seeded random programs and models for the differential oracle against the original
Python Fennel (tests/data/original-fennel/README.md).

`program(seed)` returns (program YAML, model YAML) as text, the same on every machine and
Python version: the random numbers come from splitmix64, not from Python's `random`.
The programs use only what the original Fennel's engine has and times the same way
(docs/SEMANTICS.md lists fennel's deliberate differences, which the programs avoid):
one start per rank (with or without skew), proxy, sleep, compute by size or by its own
duration, put and (under postal, the original's LB model) get; `after` lists across
ranks, `any: K`, `concurrent` on any task, 1 to 3 slots per rank; sinks are proxies
(the original requires it); no `blocking` (the original ignores it); a get has no
successor on its own rank (fennel lets those wait for the data, the original only for the
request's arrival). Models: lbp or
postal, fixed or gamma compute, resolution 1ns (the original counts whole ns); per-byte
costs are dyadic fractions, so that the original's float products are exact.

`model_of(seed)` and `processes_of(seed)` say which of the 16 models and how many slots
a seed's program has, without making it.

Usage: original_random.py SEED [DIR]  writes DIR/SEED.yaml and DIR/SEED.model.yaml
(default DIR .) and prints their paths.

Standard library only.
"""

import os
import sys

MASK = (1 << 64) - 1


class SplitMix64:
    def __init__(self, seed):
        self.state = seed & MASK

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    def below(self, n):
        """A number in [0, n) (n small: the bias of the modulo is below 2^-50)."""
        return self.next() % n

    def between(self, lo, hi):
        return lo + self.below(hi - lo + 1)

    def chance(self, percent):
        return self.below(100) < percent

    def pick(self, items):
        return items[self.below(len(items))]


BETAS = ["0", "0.0625", "0.125", "0.25", "0.5", "0.75", "1", "1.5", "2.25"]
GAMMAS = ["0.0625", "0.125", "0.25", "0.5", "1", "1.25", "3"]


MODELS = 16


def model(index):
    """Model `index` of MODELS: (its YAML, whether it is postal, the one with gets). The
    programs share a few models so that the test can run those of one model together."""
    rng = SplitMix64(1000 + index)
    lines = ["fennel: 1"]
    get_ok = rng.chance(50)
    if get_ok:
        lines.append(f"network: {{model: postal, alpha: {rng.between(0, 2000)}ns, "
                     f"beta: {rng.pick(BETAS)}ns/B}}")
    else:
        lines.append(f"network: {{model: lbp, alpha_p: {rng.between(0, 2000)}ns, "
                     f"alpha_r: {rng.between(0, 600)}ns, beta: {rng.pick(BETAS)}ns/B}}")
    if rng.chance(50):
        lines.append(f"compute: {{model: fixed, duration: {rng.between(1, 400)}ns}}")
    else:
        lines.append(f"compute: {{model: gamma, gamma: {rng.pick(GAMMAS)}ns/B}}")
    lines.append("resolution: 1ns")
    return "\n".join(lines) + "\n", get_ok


def program(seed):
    rng = SplitMix64(seed)
    model_text, get_ok = model(rng.below(MODELS))
    ranks = rng.between(1, 5)
    processes = rng.pick([1, 1, 2, 3])
    tasks = []
    for r in range(ranks):
        t = {"id": f"s{r}", "type": "start", "rank": r}
        if rng.chance(30):
            t["skew"] = rng.between(1, 500)
        tasks.append(t)
    kinds = ["proxy", "sleep", "compute", "compute-duration"]
    if ranks > 1:
        kinds += ["put", "put", "put"] + (["get", "get"] if get_ok else [])
    for i in range(rng.between(3, 40)):
        kind = rng.pick(kinds)
        r = rng.below(ranks)
        t = {"id": f"t{i}", "type": kind, "rank": r}
        if kind == "sleep":
            t["duration"] = rng.between(1, 600)
        elif kind == "compute":
            t["size"] = rng.between(1, 4096)
        elif kind == "compute-duration":
            t["type"] = "compute"
            t["duration"] = rng.between(1, 600)
        elif kind in ("put", "get"):
            peer = (r + rng.between(1, ranks - 1)) % ranks
            t["to" if kind == "put" else "from"] = peer
            t["size"] = rng.between(0, 4096)
            if kind == "get" and rng.chance(40):
                t["request"] = rng.between(0, 64)
        preds = []
        for _ in range(rng.pick([1, 1, 2, 2, 3, 4])):
            p = rng.pick(tasks)
            # A get's successors on its own rank wait for the data in fennel, for the
            # request's arrival in the original (docs/SEMANTICS.md, differences).
            if p["type"] == "get" and p["rank"] == r:
                continue
            if p["id"] not in preds:
                preds.append(p["id"])
        if not preds:
            preds.append(tasks[r]["id"])
        t["after"] = preds
        if rng.chance(25):
            t["any"] = rng.between(1, len(preds))
        if rng.chance(25):
            t["concurrent"] = True
        tasks.append(t)
    # Sinks must be proxies: every other task without successors goes to an end proxy.
    has_succ = {p for t in tasks for p in t.get("after", [])}
    ends = {}
    for t in tasks:
        if t["id"] not in has_succ and t["type"] != "proxy":
            r = rng.below(ranks)
            ends.setdefault(r, []).append(t["id"])
    for r in sorted(ends):
        tasks.append({"id": f"end{r}", "type": "proxy", "rank": r, "after": ends[r]})

    out = [f"# original_random.py {seed}", "fennel: 1", f"ranks: {ranks}",
           f"processes: {processes}", "tasks:"]
    order = ["id", "type", "rank", "to", "from", "size", "request", "duration", "skew",
             "concurrent", "after", "any"]
    for t in tasks:
        fields = []
        for key in order:
            if key not in t:
                continue
            v = t[key]
            if key == "after":
                v = "[" + ", ".join(v) + "]"
            elif v is True:
                v = "true"
            fields.append(f"{key}: {v}")
        out.append("  - {" + ", ".join(fields) + "}")
    return "\n".join(out) + "\n", model_text


def model_of(seed):
    return SplitMix64(seed).below(MODELS)


def processes_of(seed):
    for line in program(seed)[0].splitlines():
        if line.startswith("processes: "):
            return int(line.split()[1])
    raise ValueError(seed)


def main():
    seed = int(sys.argv[1])
    folder = sys.argv[2] if len(sys.argv) > 2 else "."
    prog, mod = program(seed)
    paths = (os.path.join(folder, f"{seed}.yaml"), os.path.join(folder, f"{seed}.model.yaml"))
    for path, text in zip(paths, (prog, mod)):
        with open(path, "w") as f:
            f.write(text)
    print(*paths)


if __name__ == "__main__":
    main()
