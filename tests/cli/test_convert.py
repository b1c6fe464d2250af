#!/usr/bin/env python3
"""fennel convert and the binary program file (docs/FORMATS.md, Binary programs): a program
converted from any format runs with the same times (every field of `run --json` but the
wall-clock ones), validates to the same statistics, verifies to the same verdict and converts
back to the same YAML as its source, whichever command reads it (run, validate, verify,
generate --from, sweep) and whether it comes from a file or a pipe; usage errors and damaged
files are refused with one line (the byte-level cases are in tests/test_binary.c and
tests/data/bad/MANIFEST).

Usage: test_convert.py FENNEL SOURCE_ROOT. Prints TAP.
"""
import glob
import json
import os
import subprocess
import tempfile

from harness import FENNEL, ROOT, check, expect_error, fennel, finish

CLOCKS = ("build_seconds", "simulate_seconds", "wall_seconds")
MODELS = [["--model", "thesis-figures"], ["--model", "loggopsim-default"]]


def run(path, *args):
    code, out, err = fennel("run", "--json", path, *args)
    if code != 0:
        return {"status": code, "error": err}
    d = json.loads(out)
    for key in CLOCKS:
        d.pop(key, None)
    return d


def same(name, args_a, args_b, replace=None, status=(0,)):
    """Two fennel commands print the same (status, stdout, stderr), the status one of `status`;
    `replace` maps the second's file name onto the first's."""
    a, b = fennel(*args_a), fennel(*args_b)
    if replace:
        b = tuple(x.replace(replace[1], replace[0]) if isinstance(x, str) else x for x in b)
    check(name, a == b and a[0] in status, f"{a}\n---\n{b}")


def convert(source, target, *extra):
    code, out, err = fennel("convert", source, "-o", target, *extra)
    check(f"convert {os.path.relpath(source, ROOT)}", code == 0 and out == "" and err == "",
          err)


# convert refuses to write over its source (issue 29: `convert a.yaml -o a.yaml` replaced
# the program with its binary), however the output is spelled.
with tempfile.TemporaryDirectory() as tmp:
    a = os.path.join(tmp, "a.yaml")
    with open(os.path.join(ROOT, "programs/examples/pingpong.yaml")) as f:
        source_text = f.read()
    with open(a, "w") as f:
        f.write(source_text)
    os.symlink("a.yaml", os.path.join(tmp, "l.yaml"))
    for spelling in (a, os.path.join(tmp, ".", "a.yaml"), os.path.join(tmp, "l.yaml")):
        code, out, err = fennel("convert", a, "-o", spelling)
        check(f"convert a.yaml -o {spelling[len(tmp) + 1:]}: exit 2, the source kept",
              code == 2 and err == f"fennel: convert: -o {spelling} is the program being "
              "converted: give another file\n" and open(a).read() == source_text, (code, err))

with tempfile.TemporaryDirectory() as tmp:
    sources = []
    # Generated programs (stages, names made on request, collectives and blocks for verify).
    for gen, extra in [("allreduce-rd", ["--ranks", "16"]),
                       ("allreduce-rm", ["--ranks", "12", "--schedule", "heuristic"]),
                       ("bcast-binomial", ["--ranks", "9"]),
                       ("allreduce-ring", ["--ranks", "6"]),
                       ("reduce-scatter-ring", ["--ranks", "5"])]:
        path = os.path.join(tmp, f"{gen}.yaml")
        fennel("generate", gen, *extra, "--model", "thesis-figures", "-o", path)
        sources.append(path)
    # YAML files, and LogGOPSim GOAL: Schedgen's files, start dependencies and pinned CPUs.
    sources += sorted(glob.glob(os.path.join(ROOT, "programs/examples/*.yaml")))[:6]
    sources += [os.path.join(ROOT, "tests/data/verify/allreduce-rd-4.yaml")]
    sources += sorted(glob.glob(os.path.join(ROOT, "tests/data/goal/*.goal")))
    sources += sorted(glob.glob(os.path.join(ROOT, "tests/data/goal/schedgen/*.goal")))[:6]

    for i, source in enumerate(sources):
        target = os.path.join(tmp, f"p{i}.fbin")
        convert(source, target)
        rel = os.path.relpath(source, ROOT)
        for model in MODELS:
            a, b = run(source, *model), run(target, *model)
            # A deadlock is reported alike, naming the source's positions.
            check(f"{rel} {model[1]}: the same run", a == b, f"{a}\n---\n{b}")
        same(f"{rel}: the same statistics", ["validate", source], ["validate", target])
        # A program that names no collective is checked as an allreduce: passed or failed,
        # the verdict must be the same.
        code, out, err = fennel("verify", source)
        what = ["--collective", "allreduce"] if "says no collective" in err else []
        same(f"{rel}: the same verdict", ["verify", source, *what], ["verify", target, *what],
             (source, target), (0, 1))
        a = fennel("generate", "--from", source)
        b = fennel("generate", "--from", target)
        check(f"{rel}: generate --from writes the same program",
              a[1].split("\n", 1)[1] == b[1].split("\n", 1)[1], f"{a}\n---\n{b}")

    # Algorithm files are lowered at their size once, when converted.
    xml = os.path.join(ROOT, "tests/data/msccl/allreduce-ring-4.xml")
    target = os.path.join(tmp, "ring.fbin")
    convert(xml, target, "--size", "4000")
    for model in MODELS:
        a, b = run(xml, "--size", "4000", *model), run(target, *model)
        check(f"msccl ring at 4000 B {model[1]}: the same run", a == b, f"{a}\n---\n{b}")
    expect_error("run a binary program with --size", ["run", target, "--size", "8",
                                                      "--model", "thesis-figures"], 2,
                 f"{target}: --size is for algorithm files (MSCCL, MSCCL++); this program's sizes are "
                 "its own")
    # Chakra traces, expanded with their collectives when converted.
    trace = os.path.join(ROOT, "tests/data/chakra/allgather-coll.0.et")
    target = os.path.join(tmp, "allgather.fbin")
    convert(trace, target)
    a, b = run(trace, *MODELS[0]), run(target, *MODELS[0])
    check("chakra allgather: the same run", a == b, f"{a}\n---\n{b}")

    # A sweep over program files reads it as it reads the source.
    goal = os.path.join(ROOT, "tests/data/goal/irequires-cpu.goal")
    target = os.path.join(tmp, "irequires.fbin")
    convert(goal, target)
    csv_a, csv_b = os.path.join(tmp, "a.csv"), os.path.join(tmp, "b.csv")
    fennel("sweep", goal, "--model", "loggopsim-default", "-o", csv_a)
    fennel("sweep", target, "--model", "loggopsim-default", "-o", csv_b)
    with open(csv_a) as fa, open(csv_b) as fb:
        rows_a = [r.split(",")[1:] for r in fa.read().splitlines()]
        rows_b = [r.split(",")[1:] for r in fb.read().splitlines()]
    check("sweep: the same rows but for the program column", rows_a == rows_b and len(rows_a) == 2,
          f"{rows_a}\n---\n{rows_b}")

    # From a pipe, the bytes read are used in place.
    with open(target, "rb") as f:
        p = subprocess.run([FENNEL, "validate", "/dev/stdin"], stdin=f, capture_output=True,
                           text=True, cwd=ROOT)
    check("validate from a pipe", p.returncode == 0 and
          p.stdout == fennel("validate", target)[1], p.stdout + p.stderr)

    # A GOAL file of more than 16 MiB: the names are made from its mapped text, which is
    # given back behind the walk 16 MiB at a time (docs/PERFORMANCE.md, Writers); they are
    # those made from the same text read from a pipe, held whole.
    big = os.path.join(tmp, "big.goal")
    fennel("generate", "allreduce-rd", "--ranks", "6000", "-f", "goal", "--model",
           "loggopsim-default", "-o", big)
    check("the large GOAL file is over 16 MiB", os.path.getsize(big) > 16 << 20,
          os.path.getsize(big))
    big_bin = os.path.join(tmp, "big.fbin")
    convert(big, big_bin)
    csv_a, csv_b = os.path.join(tmp, "big-a.csv"), os.path.join(tmp, "big-b.csv")
    fennel("run", big_bin, "--model", "loggopsim-default", "--tasks", csv_a)
    with open(big, "rb") as f:
        subprocess.run([FENNEL, "run", "/dev/stdin", "--model", "loggopsim-default", "--tasks",
                        csv_b], stdin=f, capture_output=True, cwd=ROOT)
    with open(csv_a) as fa, open(csv_b) as fb:
        # The first column names the program file.
        rows_a = [r.split(",", 1)[1] for r in fa.read().splitlines()]
        rows_b = [r.split(",", 1)[1] for r in fb.read().splitlines()]
    check("large GOAL: the converted file's task names and times are those of the text",
          rows_a == rows_b and len(rows_a) > 200000 and
          any(r.startswith("r5999:") for r in rows_a),
          f"{len(rows_a)} {len(rows_b)} {rows_a[-1:]} {rows_b[-1:]}")

    # Converting a binary program gives the same bytes.
    again = os.path.join(tmp, "again.fbin")
    convert(target, again)
    with open(target, "rb") as fa, open(again, "rb") as fb:
        check("convert of a binary program: the same bytes", fa.read() == fb.read())

    # Usage and input errors: one line, nothing written.
    expect_error("no program", ["convert", "-o", again], 2,
                 "convert: no program given (fennel convert PROGRAM -o FILE)")
    expect_error("two programs", ["convert", goal, goal, "-o", again], 2,
                 f"convert: one program at a time ('{goal}' is a second)")
    expect_error("no output", ["convert", goal], 2,
                 "convert: no output given: -o FILE (a binary file, not for a terminal)")
    expect_error("a generator option", ["convert", goal, "--ranks", "4", "-o", again], 2,
                 "convert: unknown option --ranks")
    missing = os.path.join(tmp, "missing.goal")
    expect_error("a missing program", ["convert", missing, "-o", again], 1,
                 f"{missing}: cannot read: no such file or directory")
    bad = os.path.join(ROOT, "tests/data/goal/deadlock.goal")
    out = os.path.join(tmp, "no-such-dir", "x.fbin")
    code, _, err = fennel("convert", bad, "-o", out)
    check("an output that cannot be written: exit 1, one line",
          code == 1 and err.startswith(f"fennel: {out}: cannot write: ") and
          err.count("\n") == 1, err)
    broken = os.path.join(tmp, "broken.fbin")
    with open(target, "rb") as f:
        data = bytearray(f.read())
    data[len(data) // 2] ^= 0x40
    with open(broken, "wb") as f:
        f.write(data)
    expect_error("a damaged file", ["run", broken, "--model", "thesis-figures"], 1,
                 f"{broken}: byte 16: checksum mismatch: the file changed after fennel wrote it; "
                 "convert the source again (fennel convert SOURCE -o FILE)")
    code, out, _ = fennel("list")
    check("fennel list names the format", "fbin" in out)

finish()
