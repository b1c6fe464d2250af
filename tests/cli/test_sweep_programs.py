#!/usr/bin/env python3
"""CLI tests of sweeps over program files (docs/SWEEPS.md, "Program files"): the files named
and those --program patterns match, in order; their rows equal `fennel run --json` of each
file; --size over algorithm files; a file that cannot be read gives error rows; the
sidecar; shards and --resume; the usage errors.

Usage: test_sweep_programs.py FENNEL SOURCE_ROOT. Prints TAP.
"""
import csv
import io
import json
import os
import tempfile

from harness import ROOT, check, expect_error, fennel, finish, run_json

MODEL = "models/presets/thesis-figures.yaml"


def rows_of(path):
    with open(path, newline="") as f:
        return list(csv.reader(f))


with tempfile.TemporaryDirectory() as tmp:
    def path(name):
        return os.path.join(tmp, name)

    # Files as arguments first, in the order given, then each pattern's matches sorted by
    # name; the grid is file x --set value.
    args = ["sweep", "programs/examples/rta.yaml", "programs/examples/pingpong.yaml",
            "--program", "programs/examples/a*.yaml", "--model", MODEL,
            "--set", "alpha_p=100ns,200ns", "--progress", "never"]
    code, out, err = fennel(*args, "-o", path("p.csv"))
    check("a sweep over program files succeeds quietly", code == 0 and out == "" and err == "",
          err)
    table = rows_of(path("p.csv"))
    header, body = table[0], table[1:]
    col = {name: i for i, name in enumerate(header)}
    files = ["programs/examples/rta.yaml", "programs/examples/pingpong.yaml",
             "programs/examples/a2.yaml", "programs/examples/a2_a2.yaml",
             "programs/examples/a4.yaml", "programs/examples/asym_band.yaml"]
    want = [[f, a] for f in files for a in ["100", "200"]]
    got = [[r[col["program"]], r[col["alpha_p_ns"]]] for r in body]
    check("rows: the named files, then the pattern's matches sorted, each over --set",
          got == want, got)
    check("a program column and no generator column",
          header[0] == "program" and "generator" not in header and "ranks" not in header,
          header)

    # Ping-pong under lbp (docs/SEMANTICS.md, Network tasks): each of the two 8-byte puts
    # takes alpha_r + alpha_p + 8 beta = 100 + alpha_p + 3.2 ns from issue to arrival, and
    # the reply is issued on the ping's arrival: 2 (103.2 + alpha_p) = 406.4 ns at
    # alpha_p = 100 ns and 606.4 ns at 200 ns.
    ping = [r[col["makespan_ns"]] for r in body if r[col["program"]].endswith("pingpong.yaml")]
    check("ping-pong's makespan at each alpha_p, by hand", ping == ["406.4", "606.4"], ping)

    # Every row equals `fennel run --json` of its file under its model.
    same = True
    for r in body:
        j = run_json(r[col["program"]], "--model", MODEL, "--set",
                     "alpha_p=" + r[col["alpha_p_ns"]] + "ns")
        s = j
        if (r[col["makespan_ns"]] != str(s.get("makespan_ns"))
                or r[col["tasks"]] != str(s.get("tasks"))
                or r[col["messages"]] != str(s.get("messages"))
                or r[col["bytes"]] != str(s.get("bytes"))):
            same = False
            check("row equals fennel run --json: " + r[col["program"]], False, (r, j))
    check("every row equals fennel run --json of its file", same)

    with open(path("p.json")) as f:
        side = json.load(f)
    check("the sidecar lists the files and orders the grid by program",
          side["programs"] == files and side["order"] == ["program", "set:alpha_p", "repeat"]
          and "generators" not in side and side["points"] == 12, side)

    # Shards concatenate to the whole; --resume of a cut file completes it.
    parts = []
    for k in (1, 2, 3):
        code, _, err = fennel(*args, "--shard", f"{k}/3", "-o", path(f"part{k}.csv"))
        with open(path(f"part{k}.csv")) as f:
            parts.append(f.read())
    with open(path("p.csv")) as f:
        whole = f.read()
    check("three shards concatenate to the whole sweep", "".join(parts) == whole)
    with open(path("cut.csv"), "w") as f:
        f.write("".join(whole.splitlines(keepends=True)[:4]))
    code, _, err = fennel(*args, "-o", path("cut.csv"), "--resume")
    with open(path("cut.csv")) as f:
        check("--resume completes a cut sweep over files", code == 0 and f.read() == whole, err)

    # --size over an algorithm file: each size as `fennel run --size`; a program whose sizes
    # are its own refuses a size in its rows, and the sweep goes on.
    ring = "tests/data/msccl/allreduce-ring-4.xml"
    code, out, err = fennel("sweep", ring, "programs/examples/pingpong.yaml", "--size",
                            "1KiB,1MiB", "--model", MODEL, "-o", path("s.csv"))
    table = rows_of(path("s.csv"))
    col = {name: i for i, name in enumerate(table[0])}
    body = table[1:]
    ok = code == 0 and len(body) == 4
    for r, size in zip(body[:2], ["1KiB", "1MiB"]):
        j = run_json(ring, "--size", size, "--model", MODEL)
        ok = ok and r[col["makespan_ns"]] == str(j["makespan_ns"]) and not r[
            col["error"]]
    check("--size sweeps an algorithm file, each row as fennel run --size", ok, (body, err))
    check("a program with sizes of its own refuses --size in its rows",
          [r[col["error"]] for r in body[2:]] == [
              "programs/examples/pingpong.yaml: --size is for algorithm files (MSCCL, MSCCL++); "
              "this program's sizes are its own"] * 2
          and [r[col["size_bytes"]] for r in body[2:]] == ["1024", "1048576"], body)

    # A file that cannot be read gives error rows with its file:line:col reason.
    bad = path("bad.yaml")
    with open(bad, "w") as f:
        f.write("fennel: 1\nranks: 2\ntasks:\n  - {id: a, type: warp, rank: 0}\n")
    code, out, err = fennel("sweep", bad, "programs/examples/pingpong.yaml", "--model", MODEL,
                            "-o", path("b.csv"))
    table = rows_of(path("b.csv"))
    col = {name: i for i, name in enumerate(table[0])}
    check("an unreadable program gives an error row, the sweep goes on",
          code == 0 and table[1][col["error"]].startswith(bad + ":4:")
          and table[1][col["makespan_ns"]] == "" and table[2][col["makespan_ns"]] == "1206.4",
          table)

    # Usage errors.
    base = ["--model", MODEL, "-o", path("e.csv")]
    expect_error("a pattern that matches nothing",
                 ["sweep", "--program", "programs/examples/*.nothing", *base], 2,
                 "--program programs/examples/*.nothing: no file matches")
    expect_error("a missing file", ["sweep", "programs/examples/nothing.yaml", *base], 1,
                 "programs/examples/nothing.yaml: cannot read: no such file or directory")
    expect_error("a directory", ["sweep", "programs/examples", *base], 2,
                 "programs/examples: is a directory (give its files, e.g. --program "
                 "'programs/examples/*.yaml')")
    expect_error("files and --generate", ["sweep", "programs/examples/a2.yaml", "--generate",
                                          "pingpong", *base], 2,
                 "sweep: give --generate or program files, not both")
    expect_error("a generator option with files",
                 ["sweep", "programs/examples/a2.yaml", "--ranks", "4", *base], 2,
                 "sweep: generator options need --generate NAME (program files take --size "
                 "alone, for algorithm files)")
    expect_error("neither generators nor files", ["sweep", *base], 2,
                 "sweep: --generate NAME[,NAME...] or program files are required ('fennel "
                 "list' names the generators)")
    expect_error("--slice with generators", ["sweep", "--generate", "pingpong", "--slice", "1KiB",
                                             *base], 2,
                 "sweep: --slice applies to program files (MSCCL)")
    check("no output file after a usage error", not os.path.exists(path("e.csv")))

finish()
