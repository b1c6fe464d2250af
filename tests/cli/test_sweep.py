#!/usr/bin/env python3
"""CLI tests of fennel sweep and fennel plot: rows in grid order whatever --jobs, shards
that concatenate to the whole, --resume, interruption, values equal to `fennel run --json`,
error rows, the JSON sidecar, the progress bar, bad input, and valid SVG/PNG/PDF charts.

Usage: test_sweep.py FENNEL SOURCE_ROOT. Prints TAP.
"""
import csv
import io
import itertools
import json
import os
import pty
import re
import resource
import select
import signal
import subprocess
import tempfile
import time
import xml.etree.ElementTree as ET

from harness import FENNEL, ROOT, check, expect_error, finish

MODEL = os.path.join(ROOT, "models", "presets", "thesis-figures.yaml")


def fennel(*args, timeout=120):
    p = subprocess.run([FENNEL, *args], cwd=ROOT, capture_output=True, text=True,
                       timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def read(path):
    with open(path, "rb") as f:
        return f.read()


def rows_of(data):
    return list(csv.reader(io.StringIO(data.decode())))


with tempfile.TemporaryDirectory() as tmp:
    def path(name):
        return os.path.join(tmp, name)

    # A small grid: 2 generators, ranks 4, 6, 8, sizes 8 B and 1 KiB, three schedules
    # for allreduce-rm only, two alpha_p values, two seeds.
    grid = ["sweep", "--generate", "allreduce-rd,allreduce-rm", "--ranks", "4..8:2",
            "--size", "8,1KiB", "--schedule", "rd;a2,a2;heuristic", "--model", MODEL,
            "--set", "alpha_p=400ns,500ns", "--repeat", "2", "--seed", "7"]
    code, out, err = fennel(*grid, "--jobs", "1", "-o", path("j1.csv"))
    check("sweep --jobs 1 succeeds quietly", code == 0 and out == "" and err == "", err)
    j1 = read(path("j1.csv"))
    table = rows_of(j1)
    header, body = table[0], table[1:]
    col = {name: i for i, name in enumerate(header)}

    # The documented order: generator, ranks, size, schedule, then --set, then the
    # repeat innermost; allreduce-rd does not use --schedule.
    want = []
    for gen in ["allreduce-rd", "allreduce-rm"]:
        schedules = ["rd", "a2,a2", "heuristic"] if gen == "allreduce-rm" else [""]
        for ranks, size, sched, alpha_p, seed in itertools.product(
                ["4", "6", "8"], ["8", "1024"], schedules, ["400", "500"], ["7", "8"]):
            want.append([gen, ranks, size, sched, alpha_p, seed])
    got = [[r[col["generator"]], r[col["ranks"]], r[col["size_bytes"]], r[col["schedule"]],
            r[col["alpha_p_ns"]], r[col["seed"]]] for r in body]
    check("one row per grid point and repeat, in grid order (6 x 2 x 2 + 18 x 2 x 2 = 96)",
          got == want and len(body) == 96, f"{len(body)} rows")
    check("units in the column names, seed and parameters on every row",
          all(c in header for c in ["size_bytes", "makespan_ns", "alpha_r_ns", "beta_ns_per_byte",
                                    "compute_duration_ns", "seed", "error"])
          and all(len(r) == len(header) for r in body))
    # a2,a2 runs on 4 ranks only: on 6 and 8, error rows (2 sizes x 2 alpha_p x 2 seeds
    # each), and the sweep goes on.
    bad = [r for r in body if r[col["error"]]]
    check("an impossible schedule gives error rows with empty results",
          len(bad) == 16 and all(r[col["schedule"]] == "a2,a2" and r[col["ranks"]] in "68"
                                 and f"impossible for {r[col['ranks']]} ranks" in r[col["error"]]
                                 and r[col["makespan_ns"]] == "" for r in bad))
    good = [r for r in body if not r[col["error"]]]
    check("the other rows have results",
          len(good) == 80 and all(float(r[col["makespan_ns"]]) > 0 for r in good))

    for jobs in ["2", "3"]:
        code, out, err = fennel(*grid, "--jobs", jobs, "-o", path(f"j{jobs}.csv"))
        check(f"--jobs {jobs} gives the same bytes as --jobs 1",
              code == 0 and read(path(f"j{jobs}.csv")) == j1)

    # The JSON sidecar echoes the configuration.
    with open(path("j1.json")) as f:
        side = json.load(f)
    check("the sidecar FILE.json echoes the configuration",
          side["columns"] == header and side["rows"] == 96 and side["points"] == 48
          and side["repeat"] == 2 and side["seed"] == 7
          and side["options"]["ranks"] == [4, 6, 8]
          and side["options"]["schedule"] == ["rd", "a2,a2", "heuristic"]
          and side["set"] == [{"key": "alpha_p", "values": ["400ns", "500ns"]}]
          and side["order"] == ["generator", "ranks", "size_bytes", "schedule", "set:alpha_p",
                                "repeat"], json.dumps(side)[:300])

    # Every value equals `fennel run --json` for the same point and seed.
    mismatches = []
    for r in good[::7]:
        args = ["run", "--generate", r[col["generator"]], "--ranks", r[col["ranks"]],
                "--size", r[col["size_bytes"]], "--model", MODEL,
                "--set", "alpha_p=" + r[col["alpha_p_ns"]] + "ns", "--seed", r[col["seed"]],
                "--json"]
        if r[col["schedule"]]:
            args += ["--schedule", r[col["schedule"]]]
        code, out, err = fennel(*args)
        j = json.loads(out)
        for key in ["makespan_ns", "skew_ns", "tasks", "messages", "bytes", "events",
                    "bandwidth_bytes_per_ns", "message_rate_bytes_per_ns"]:
            if float(r[col[key]]) != float(j[key]):
                mismatches.append((r[:4], key, r[col[key]], j[key]))
    check("values equal fennel run --json for the same point", not mismatches, mismatches[:3])

    # Shards concatenate to the whole; only shard 1 has the header.
    parts = []
    for k in (1, 2, 3):
        code, out, err = fennel(*grid, "--shard", f"{k}/3", "-o", path(f"s{k}.csv"))
        parts.append(read(path(f"s{k}.csv")))
    check("the union of --shard 1/3..3/3 equals the unsharded file", b"".join(parts) == j1)
    check("shards 2 and 3 have no header, near-equal parts",
          parts[0].startswith(j1.split(b"\n")[0]) and not parts[1].startswith(b"generator")
          and [p.count(b"\n") for p in parts] == [33, 32, 32])

    # --resume completes a cut file: at a row boundary, inside a row, after the header,
    # an empty file, and a complete file.
    lines = j1.split(b"\n")
    cuts = {"after 10 rows": b"\n".join(lines[:11]) + b"\n",
            "inside row 41": b"\n".join(lines[:41]) + b"\n" + lines[41][:17],
            "inside the second repeat of a point": b"\n".join(lines[:12]) + b"\n",
            "header only": lines[0] + b"\n",
            "empty": b"",
            "complete": j1}
    for name, data in cuts.items():
        with open(path("r.csv"), "wb") as f:
            f.write(data)
        code, out, err = fennel(*grid, "--resume", "-o", path("r.csv"))
        check(f"--resume after a cut ({name}) produces the full file",
              code == 0 and read(path("r.csv")) == j1, err)
    with open(path("r2.csv"), "wb") as f:
        f.write(b"\n".join(parts[1].split(b"\n")[:5]) + b"\n")
    code, out, err = fennel(*grid, "--shard", "2/3", "--resume", "-o", path("r2.csv"))
    check("--resume of a shard", code == 0 and read(path("r2.csv")) == parts[1], err)

    # --resume refuses a file of another sweep and leaves it alone: here the sweep of
    # allreduce-rd alone, which has no schedule column.
    with open(path("other.csv"), "wb") as f:
        f.write(b"\n".join(lines[:5]) + b"\n")
    before = read(path("other.csv"))
    rd_only = ["sweep", "--generate", "allreduce-rd"] + grid[3:7] + grid[9:]
    code, out, err = fennel(*rd_only, "--resume", "-o", path("other.csv"))
    check("--resume with another header: exit 1, one line, file untouched",
          code == 1 and err == f"fennel: {path('other.csv')}:1:1: the header does not match "
          "this sweep (column 4 is 'schedule' there but 'network' in this sweep); use another "
          "-o, or the options that wrote it\n" and read(path("other.csv")) == before, err)
    changed = lines[:5]
    changed[3] = changed[3].replace(b"allreduce-rd,4,", b"allreduce-rd,6,", 1)
    with open(path("other.csv"), "wb") as f:
        f.write(b"\n".join(changed) + b"\n")
    code, out, err = fennel(*grid, "--resume", "-o", path("other.csv"))
    check("--resume with a row of another grid point: exit 1 naming the line",
          code == 1 and f"{path('other.csv')}:4:1: the row is not this sweep's row 3" in err,
          err)

    # --resume never destroys what it did not write (a file whose last line has no
    # newline used to be taken for a cut header and truncated).
    small = ["sweep", "--generate", "allreduce-rd", "--ranks", "2..4", "--model", MODEL]

    def untouched(name, data, sidecar=None):
        """Writes `data` (and its sidecar), runs --resume: exit status, stderr, and
        whether the file kept its bytes, size and modification time."""
        p = path(name)
        with open(p, "wb") as f:
            f.write(data)
        side = p[:-4] + ".json"
        if sidecar is None:
            if os.path.exists(side):
                os.unlink(side)
        else:
            with open(side, "wb") as f:
                f.write(sidecar)
        os.utime(p, ns=(1_000_000_000, 1_000_000_000))
        before = os.stat(p)
        code, out, err = fennel(*small, "--resume", "-o", p)
        after = os.stat(p)
        same = (read(p) == data and after.st_size == before.st_size
                and after.st_mtime_ns == before.st_mtime_ns)
        return code, err, same

    code, err, same = untouched("precious.csv", b"important data without newline")
    check("--resume refuses a foreign one-line file without newline, file untouched",
          code == 1 and same and err == f"fennel: {path('precious.csv')}:1:1: the last line "
          "has no newline and is not the start of this sweep's header; the file was not "
          "written by this sweep (use another -o, or the options that wrote it)\n", err)
    code, err, same = untouched("junk.csv", bytes(range(256)) * 4)
    check("--resume refuses binary junk, file untouched",
          code == 1 and same and err.count("\n") == 1, err)

    code, out, err = fennel(*small, "-o", path("whole.csv"))
    whole, whole_side = read(path("whole.csv")), read(path("whole.json"))
    header_end = whole.index(b"\n") + 1
    failures = []
    for cut in range(0, len(whole)):
        with open(path("cut.csv"), "wb") as f:
            f.write(whole[:cut])
        code, out, err = fennel(*small, "--resume", "-o", path("cut.csv"))
        if code != 0 or read(path("cut.csv")) != whole:
            failures.append((cut, code, err))
    check(f"this sweep cut at every byte offset (0..{len(whole) - 1}, header of "
          f"{header_end} bytes) resumes to the uninterrupted file", not failures, failures[:3])

    code, err, same = untouched("empty.csv", b"")
    check("--resume of a 0-byte file writes the whole sweep", code == 0 and
          read(path("empty.csv")) == whole, err)

    # A CSV of another sweep (ranks 3..6), with its own sidecar and without one.
    code, out, err = fennel(*small[:4], "3..6", *small[5:], "-o", path("another.csv"))
    other, other_side = read(path("another.csv")), read(path("another.json"))
    code, err, same = untouched("another.csv", other, other_side)
    check("--resume refuses another sweep's CSV with its sidecar, naming what differs",
          code == 1 and same and err == f"fennel: {path('another.json')} describes another "
          "sweep (its \"options\" differs); use another -o, or the options that wrote it\n",
          err)
    code, err, same = untouched("another.csv", other)
    check("--resume refuses another sweep's CSV without its sidecar (its rows differ)",
          code == 1 and same and f"{path('another.csv')}:2:1: the row is not this sweep's "
          "row 1" in err, err)
    # Cut inside its first row, after "allreduce-rd,3" where this sweep has "allreduce-rd,2".
    code, err, same = untouched("another.csv", other[:other.index(b"\n") + 16])
    check("--resume refuses another sweep's cut CSV without its sidecar, untouched",
          code == 1 and same and err.count("\n") == 1, err)
    code, err, same = untouched("mine.csv", whole[:header_end + 3], other_side)
    check("--resume refuses this sweep's partial file beside another sweep's sidecar",
          code == 1 and same and "describes another sweep" in err, err)
    code, err, same = untouched("mine.csv", whole[:header_end + 3], whole_side)
    check("--resume completes this sweep's partial file beside its own sidecar",
          code == 0 and read(path("mine.csv")) == whole, err)

    # A pipe is not a file to complete: refused at once instead of reading it forever.
    fifo = path("fifo.csv")
    os.mkfifo(fifo)
    code, out, err = fennel(*small, "--resume", "-o", fifo, timeout=20)
    check("--resume refuses a FIFO with one line", code == 1 and err == f"fennel: {fifo}: "
          "--resume needs a regular file to complete, not a pipe, device or directory\n", err)

    # Bad input: one line, exit 2, no output file (nor sidecar).
    for name, args, message in [
        ("an empty range", ["--ranks", "8..2"], "--ranks 8..2: empty range (the start is after "
                                                "the end)"),
        ("a parameter the model does not have", ["--ranks", "4", "--set", "alpha=1ns,2ns"],
         "--set alpha=1ns: unknown parameter 'alpha'"),
        ("a range of durations without a step", ["--ranks", "4", "--set", "alpha_p=1ns..2ns"],
         "--set alpha_p=1ns..2ns: a range of durations or per-byte times needs a step"),
        ("an option no generator uses", ["--ranks", "4", "--radix", "2"],
         "--radix: no generator of the sweep uses it"),
    ]:
        out_csv = path("bad.csv")
        code, out, err = fennel("sweep", "-g", "allreduce-rd", "--model", MODEL, *args,
                                "-o", out_csv)
        check(f"bad input ({name}): one line, exit 2, no output file",
              code == 2 and err.startswith("fennel: " + message) and err.count("\n") == 1
              and not os.path.exists(out_csv) and not os.path.exists(path("bad.json")), err)
    code, out, err = fennel("sweep", "-g", "allreduce-rd", "--ranks", "4")
    check("sweep without -o: exit 2", code == 2 and "-o FILE.csv is required" in err)

    # Interrupted by SIGINT: whole rows, exit 130; --resume finishes it. The sweep takes a
    # few seconds; the signal goes as soon as the first rows are on disk.
    long = ["sweep", "-g", "allreduce-rd", "--ranks", "2..1000", "--size", "8,64,512",
            "--model", MODEL, "--jobs", "2"]
    code, out, err = fennel(*long, "-o", path("full.csv"), timeout=600)
    full = read(path("full.csv"))
    proc = subprocess.Popen([FENNEL, *long, "-o", path("int.csv")], cwd=ROOT,
                            stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 120
    while time.time() < deadline and proc.poll() is None:
        if os.path.exists(path("int.csv")) and read(path("int.csv")).count(b"\n") > 2:
            break
        time.sleep(0.01)
    proc.send_signal(signal.SIGINT)
    err = proc.communicate(timeout=120)[1]
    cut = read(path("int.csv"))
    ncols = full.split(b"\n")[0].count(b",")
    whole_rows = cut.endswith(b"\n") and all(
        line.count(b",") == ncols for line in cut.split(b"\n")[:-1])
    check("SIGINT: exit 130, a message, a prefix of whole rows",
          proc.returncode == 130 and "interrupted by SIGINT" in err and "--resume" in err
          and whole_rows and full.startswith(cut) and len(cut) < len(full),
          f"status {proc.returncode}, {len(cut)} of {len(full)} bytes, {err!r}")
    code, out, err = fennel(*long, "--resume", "-o", path("int.csv"), timeout=600)
    check("--resume after SIGINT completes the file", code == 0 and read(path("int.csv")) == full)

    # --progress always in a log (no terminal): progress lines, and on SIGINT a note that the
    # rows in flight are being finished before the sweep stops.
    proc = subprocess.Popen([FENNEL, *long, "--progress", "always", "-o", path("log.csv")],
                            cwd=ROOT, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 120
    while time.time() < deadline and proc.poll() is None:
        if os.path.exists(path("log.csv")) and read(path("log.csv")).count(b"\n") > 2:
            break
        time.sleep(0.01)
    proc.send_signal(signal.SIGINT)
    err = proc.communicate(timeout=120)[1]
    check("--progress always: a progress line in the log, the interruption noted",
          proc.returncode == 130 and re.search(r"fennel: sweep: \d+% \d+/2997 rows, \d+ rows/s", err)
          and re.search(r"fennel: sweep: interrupted; finishing the rows in flight \(at most \d+\)\n",
                    err),
          err)
    code, out, err = fennel(*long[:3], "--ranks", "2", "--progress", "sometimes", "-o",
                            path("x.csv"))
    check("--progress sometimes: a usage error",
          code == 2 and err == "fennel: sweep: --progress sometimes: expected auto, always or "
          "never\n", err)

    # The progress bar: on a terminal only.
    master, slave = pty.openpty()
    proc = subprocess.Popen([FENNEL, *grid, "-o", path("tty.csv")], cwd=ROOT, stdin=slave,
                            stdout=subprocess.DEVNULL, stderr=slave)
    os.close(slave)
    shown = b""
    while True:
        ready, _, _ = select.select([master], [], [], 30)
        if not ready:
            break
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        shown += chunk
    proc.wait(timeout=60)
    os.close(master)
    check("a progress bar with rate and ETA on a terminal",
          proc.returncode == 0 and b"96/96 rows" in shown and b"rows/s" in shown
          and b"ETA" in shown and b"100%" in shown, shown[-200:])

    # fennel plot: valid SVG with one series per group, PNG and PDF.
    code, out, err = fennel("plot", path("j1.csv"), "-x", "ranks", "-y", "makespan_ns",
                            "--by", "generator", "-o", path("p.svg"))
    ok = code == 0
    series = []
    if ok:
        svg = ET.parse(path("p.svg")).getroot()
        series = [g for g in svg.iter("{http://www.w3.org/2000/svg}g")
                  if g.get("class") == "series"]
    check("plot writes valid SVG with one series per group",
          ok and [g.get("data-series") for g in series] == ["allreduce-rd", "allreduce-rm"], err)
    # Several --by columns: one series per pair; a title; --where keeps only its rows; a
    # warning names the parameter columns (before `seed`) that vary among the rows plotted
    # but are neither an axis, --by nor --where: here schedule and alpha_p_ns (the grid's
    # --schedule and --set lists).
    code, out, err = fennel("plot", path("j1.csv"), "-x", "ranks", "-y", "makespan_ns",
                            "--by", "generator,size_bytes", "--title", "RD against RM",
                            "-o", path("p2.svg"))
    svg = ET.parse(path("p2.svg")).getroot() if code == 0 else None
    names = [g.get("data-series") for g in svg.iter("{http://www.w3.org/2000/svg}g")
             if g.get("class") == "series"] if svg is not None else []
    check("plot --by generator,size_bytes: one series per pair, and the title",
          names == ["generator=allreduce-rd, size_bytes=8", "generator=allreduce-rd, "
                    "size_bytes=1024", "generator=allreduce-rm, size_bytes=8",
                    "generator=allreduce-rm, size_bytes=1024"] and
          "RD against RM" in open(path("p2.svg")).read(), (names, err))
    code, out, err = fennel("plot", path("j1.csv"), "-x", "ranks", "-y", "makespan_ns",
                            "--by", "generator", "--where", "size_bytes=8", "-o", path("p3.svg"))
    check("plot --where: the warning names the folded columns, not the filtered one",
          code == 0 and err.split("\n")[0] == "fennel: plot: warning: columns that vary but "
          "are neither an axis, --by nor --where: schedule, alpha_p_ns (their rows are folded "
          "into one point: the median, with a min-max band)", err)
    code, out, err = fennel("plot", path("j1.csv"), "-x", "ranks", "-y", "makespan_ns",
                            "--by", "generator", "--where", "size_bytes=8", "--where",
                            "schedule=rd", "--where", "alpha_p_ns=400", "-o", path("p4.svg"))
    check("plot --where on every varying column: no warning", code == 0 and "warning" not in err,
          err)
    only = [r for r in body if r[col["size_bytes"]] == "8" and r[col["schedule"]] == "rd" and
            r[col["alpha_p_ns"]] == "400" and r[col["generator"]] == "allreduce-rm"]
    text = open(path("p4.svg")).read() if code == 0 else ""
    points = re.findall(r'data-series="([^"]*)"[^>]*>\s*<title>[^<]*: (\d+) points', text)
    check("plot --where: only the kept rows are points (allreduce-rm's 3 rank counts; "
          "allreduce-rd has no schedule rd)",
          points == [("allreduce-rm", "3")] and len(only) == 6, (points, len(only)))
    code, out, err = fennel("plot", path("j1.csv"), "-x", "ranks", "-y", "makespan_ns",
                            "--where", "size=8", "-o", path("p5.svg"))
    check("plot --where with an unknown column: exit 2", code == 2 and "--where" in err and
          "size" in err, err)
    # A --where that keeps no row says so, with the rows it left out (those with numbers in
    # both axes), instead of calling the numbers missing.
    code, out, err = fennel("plot", path("j1.csv"), "-x", "ranks", "-y", "makespan_ns",
                            "--where", "size_bytes=3", "-o", path("p6.svg"))
    rows = len([r for r in body if r[col["ranks"]] and r[col["makespan_ns"]]])
    check("plot --where that keeps no row: exit 1, named",
          code == 1 and err == f"fennel: {path('j1.csv')}: --where size_bytes=3 keeps none "
          f"of the {rows} rows\n" and not os.path.exists(path("p6.svg")), err)
    code, out, err = fennel("plot", path("j1.csv"), "-x", "size_bytes", "-y", "makespan_ns",
                            "--by", "schedule_used", "--logx", "--logy", "-o", path("p.svg"))
    groups = {r[col["schedule_used"]] for r in body if r[col["makespan_ns"]]}
    svg = ET.parse(path("p.svg")).getroot() if code == 0 else None
    n = len([g for g in svg.iter("{http://www.w3.org/2000/svg}g") if g.get("class") == "series"]) \
        if svg is not None else -1
    check("plot --by schedule_used --logx --logy: one series per schedule", n == len(groups),
          f"{n} series, {len(groups)} groups, {err}")
    code, out, err = fennel("plot", path("j1.csv"), "-x", "ranks", "-y", "makespan_ns",
                            "-o", path("p.png"))
    check("plot writes PNG", code == 0 and read(path("p.png")).startswith(b"\x89PNG\r\n\x1a\n"))
    code, out, err = fennel("plot", path("j1.csv"), "-x", "ranks", "-y", "makespan_ns",
                            "--by", "alpha_p_ns", "-o", path("p.pdf"))
    check("plot writes PDF", code == 0 and read(path("p.pdf")).startswith(b"%PDF-"))
    for name, args, status, message in [
        ("an unknown column", ["-x", "ranks", "-y", "latency_ns"], 2,
         f"-y latency_ns: {path('j1.csv')} has no such column (it has: generator, ranks,"),
        ("an unknown --by column", ["-x", "ranks", "-y", "makespan_ns", "--by", "x"], 2,
         f"--by x: {path('j1.csv')} has no such column"),
        # Lines 2 to 25 are allreduce-rd's, whose schedule_used is empty (left out);
        # line 26 is the first of allreduce-rm, rd on 4 ranks.
        ("a column of text", ["-x", "schedule_used", "-y", "makespan_ns"], 1,
         f"{path('j1.csv')}:26:60: column 'schedule_used' holds 'a2,a2' where a number is "
         "expected"),
    ]:
        code, out, err = fennel("plot", path("j1.csv"), *args, "-o", path("bad.svg"))
        check(f"plot with {name}: one line, exit {status}, no output file",
              code == status and err.startswith("fennel: " + message) and err.count("\n") == 1
              and not os.path.exists(path("bad.svg")), err)
    code, out, err = fennel("plot", path("j1.csv"), "-x", "ranks", "-y", "makespan_ns",
                            "-o", path("p.gif"))
    check("plot with an unknown format: exit 2",
          code == 2 and "must end in .svg, .png or .pdf" in err)

# A disk that fills up (RLIMIT_FSIZE, SIGXFSZ ignored: the write fails with EFBIG partway):
# the sweep stops with one line, the file keeps whole rows only, and --resume completes it
# with the rows a run without the limit writes (docs/RELIABILITY.md, Output files).
def small_disk():
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (6000, 6000))


with tempfile.TemporaryDirectory() as tmp:
    grid = ["sweep", "--generate", "allreduce-rd", "--ranks", "2..120", "--size", "8B,1KiB",
            "--model", "models/presets/postal-unit.yaml"]
    full = os.path.join(tmp, "full.csv")
    p = subprocess.run([FENNEL, *grid, "-o", full], cwd=ROOT, capture_output=True, text=True)
    cut = os.path.join(tmp, "cut.csv")
    q = subprocess.run([FENNEL, *grid, "-o", cut], cwd=ROOT, capture_output=True, text=True,
                       preexec_fn=small_disk)
    text = open(cut).read() if os.path.exists(cut) else ""
    lines = text.split("\n")
    fields = lines[0].count(",") if lines else -1
    check("full disk: exit 1, one line, only whole rows left",
          q.returncode == 1 and q.stderr.count("\n") == 1 and "cannot write" in q.stderr and
          text.endswith("\n") and 0 < len(text) <= 6000 and
          all(line.count(",") == fields for line in lines[:-1] if line), (q.stderr, text[-300:]))
    r = subprocess.run([FENNEL, *grid, "--resume", "-o", cut], cwd=ROOT, capture_output=True,
                       text=True)
    def rows(path):
        with open(path) as f:
            return sorted(tuple(row.values()) for row in csv.DictReader(f))
    check("full disk: --resume completes the file with the rows of an unlimited run",
          p.returncode == 0 and r.returncode == 0 and rows(cut) == rows(full), r.stderr)

    # The same limit with SIGXFSZ as the shell leaves it (issue 29: the signal killed the
    # sweep with its last row cut): fennel ignores it, so the write fails the same way.
    def small_disk_default():
        signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
        resource.setrlimit(resource.RLIMIT_FSIZE, (6000, 6000))
    cut2 = os.path.join(tmp, "cut2.csv")
    q = subprocess.run([FENNEL, *grid, "-o", cut2], cwd=ROOT, capture_output=True, text=True,
                       preexec_fn=small_disk_default)
    text = open(cut2).read() if os.path.exists(cut2) else ""
    lines = text.split("\n")
    check("ulimit -f (SIGXFSZ not ignored by the caller): exit 1, one line, whole rows, no "
          "temporary file",
          q.returncode == 1 and q.stderr == f"fennel: {cut2}: cannot write: file too large\n"
          and text.endswith("\n") and all(line.count(",") == fields for line in lines[:-1])
          and sorted(os.listdir(tmp)) == ["cut.csv", "cut.json", "cut2.csv", "cut2.json",
                                          "full.csv", "full.json"],
          (q.returncode, q.stderr, sorted(os.listdir(tmp))))
    # Single files under the limit: generate -o, run --tasks, convert -o, fit --plot (the
    # binary program of 64 ranks and the fit's SVG are each larger than 6000 bytes).
    big = os.path.join(tmp, "in.yaml")
    subprocess.run([FENNEL, "generate", "allreduce-rd", "--ranks", "64", "-o", big], cwd=ROOT,
                   check=True)
    for what, args, target in [
            ("convert -o", ["convert", big, "-o", os.path.join(tmp, "c.fbin")], "c.fbin"),
            ("fit --plot", ["fit", "tests/data/fit/imb-pingpong-2019.txt", "-o",
                            os.path.join(tmp, "f.yaml"), "--plot",
                            os.path.join(tmp, "f.svg")], "f.svg"),
            ("generate -o", ["generate", "allreduce-rd", "--ranks", "64", "-o",
                             os.path.join(tmp, "g.yaml")], "g.yaml"),
            ("run --tasks", ["run", "--generate", "allreduce-rd", "--ranks", "64", "--model",
                             "models/presets/postal-unit.yaml", "--tasks",
                             os.path.join(tmp, "t.csv")], "t.csv")]:
        q = subprocess.run([FENNEL, *args], cwd=ROOT, capture_output=True, text=True,
                           preexec_fn=small_disk_default)
        path = os.path.join(tmp, target)
        # fit writes its model and its plot as one set: neither is left.
        check(f"ulimit -f: {what}: exit 1, one line, no file, no temporary file",
              q.returncode == 1 and q.stderr == f"fennel: {path}: cannot write: file too large\n"
              and not any(n.startswith(target.split(".")[0] + ".") for n in os.listdir(tmp)),
              (q.returncode, q.stderr, sorted(os.listdir(tmp))))

# Two sweeps into one file at once (issue 29: both exited 0 and the file held rows of both
# and NUL bytes): the output is locked, and the second is refused with one line while the
# first writes its rows undisturbed. A sidecar that cannot be written (a folder in its
# place) leaves no CSV (it used to leave one of its header alone).
with tempfile.TemporaryDirectory() as tmp:
    long = ["sweep", "-g", "allreduce-rd", "--ranks", "2..1000", "--size", "8,64,512",
            "--model", "models/presets/postal-unit.yaml", "--jobs", "1"]
    alone = os.path.join(tmp, "alone.csv")
    fennel(*long, "-o", alone, timeout=600)
    both = os.path.join(tmp, "both.csv")
    first = subprocess.Popen([FENNEL, *long, "-o", both], cwd=ROOT, stderr=subprocess.PIPE,
                             text=True)
    deadline = time.time() + 120
    while time.time() < deadline and first.poll() is None:
        if os.path.exists(both) and read(both).count(b"\n") > 2:
            break
        time.sleep(0.01)
    running = first.poll() is None
    code, out, err = fennel(*long, "-o", both)
    first_err = first.communicate(timeout=600)[1]
    check("a second sweep into a file being written: exit 1, one line; the first undisturbed",
          running and code == 1 and err == f"fennel: {both}: cannot write: another sweep is "
          "writing it\n" and first.returncode == 0 and read(both) == read(alone),
          (running, code, err, first.returncode, first_err))
    os.mkdir(os.path.join(tmp, "s.json"))
    code, out, err = fennel("sweep", "-g", "allreduce-rd", "--ranks", "2,4", "--model",
                            "models/presets/postal-unit.yaml", "-o", os.path.join(tmp, "s.csv"))
    check("a sidecar that cannot be written: exit 1, one line, no CSV",
          code == 1 and err == f"fennel: {os.path.join(tmp, 's.json')}: cannot write: is a "
          "directory\n" and not os.path.exists(os.path.join(tmp, "s.csv")), (code, err))
    with open(alone, "rb") as f:
        kept = f.read()
    os.rename(alone, os.path.join(tmp, "s.csv"))
    code, out, err = fennel("sweep", "-g", "allreduce-rd", "--ranks", "2,4", "--model",
                            "models/presets/postal-unit.yaml", "-o", os.path.join(tmp, "s.csv"))
    check("a sidecar that cannot be written: an existing CSV is left as it was",
          code == 1 and read(os.path.join(tmp, "s.csv")) == kept, (code, err))

# A device output has no sidecar: -o /dev/stdout writes the rows there and no
# /dev/stdout.json (docs/SWEEPS.md).
stray = "/dev/stdout.json"
existed = os.path.exists(stray)
p = subprocess.run([FENNEL, "sweep", "--generate", "allreduce-rd", "--ranks", "2,4", "--model",
                    "models/presets/postal-unit.yaml", "-o", "/dev/stdout"], cwd=ROOT,
                   capture_output=True, text=True)
made = not existed and os.path.exists(stray)
if made:
    os.unlink(stray)
check("-o /dev/stdout: the rows on stdout, no sidecar beside the device",
      p.returncode == 0 and p.stdout.count("\n") == 3 and not made, (p.stderr, made))

# The same with stdout on a regular file: /dev/stdout is the process's own descriptor,
# written through (no sidecar, no lock, nothing renamed over the shell's file).
with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "rows.csv")
    existed = os.path.exists(stray)
    with open(out, "w", encoding="utf-8") as f:
        p = subprocess.run([FENNEL, "sweep", "--generate", "allreduce-rd", "--ranks", "2,4",
                            "--model", "models/presets/postal-unit.yaml", "-o", "/dev/stdout"],
                           cwd=ROOT, stdout=f, stderr=subprocess.PIPE, text=True)
    made = not existed and os.path.exists(stray)
    if made:
        os.unlink(stray)
    rows = read(out).decode()
    check("-o /dev/stdout on a file: the rows there, no sidecar beside /dev/stdout",
          p.returncode == 0 and rows.count("\n") == 3 and rows.startswith("generator,") and
          not made and os.listdir(tmp) == ["rows.csv"], (p.stderr, made, rows))

# Logarithmic axes read as what the column counts: sizes and rank counts at powers of two
# ("1 KiB" .. "1 MiB", "2^10" .. "2^20"), times in SI units ("1 µs" .. "1 ms"), never a raw
# 1048576 (tests/data/plot/powers.csv: x = 2^10 .. 2^20, time 1 us .. 1.024 ms).
with tempfile.TemporaryDirectory() as tmp:
    a, b = os.path.join(tmp, "a.svg"), os.path.join(tmp, "b.svg")
    fennel("plot", "tests/data/plot/powers.csv", "-x", "size_bytes", "-y", "makespan_ns",
           "--logx", "--logy", "-o", a)
    fennel("plot", "tests/data/plot/powers.csv", "-x", "ranks", "-y", "makespan_ns", "--logx",
           "-o", b)
    la = re.findall(r">([^<>]*)</text>", open(a).read()) if os.path.exists(a) else []
    lb = re.findall(r">([^<>]*)</text>", open(b).read()) if os.path.exists(b) else []
    check("log axes: sizes in KiB and MiB, times in µs and ms",
          {"1 KiB", "4 KiB", "1 MiB", "1 µs", "10 µs", "1 ms"} <= set(la) and "1048576" not in la,
          la)
    check("log axes: rank counts as powers of two 2^10 .. 2^20",
          [x for x in lb if x.startswith("2^")] == ["2^10", "2^12", "2^14", "2^16", "2^18", "2^20"],
          lb)

# --kind cdf: the empirical distribution of -x per group, as steps from 0 to 1
# (tests/data/plot/cdf.csv). Group a (100, 200, 200, 300 ns) rises to 1/4, 3/4 and 1 at
# its three values; group b (150, 150) to 1 at once. In the SVG a step is a horizontal
# and a vertical line; the y of 0 and 1 are the frame's bottom and top.
with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "cdf.svg")
    code, _, err = fennel("plot", "tests/data/plot/cdf.csv", "--kind", "cdf", "-x", "makespan_ns",
                          "--by", "network", "-o", out)
    svg = open(out).read() if code == 0 else ""
    series = re.findall(r'<g class="series".*?</g>', svg, re.S)
    ys = [sorted({round(float(y), 2) for y in re.findall(r'y[12]="([0-9.]+)"', g)})
          for g in series]
    top, bottom = (min(ys[1]), max(ys[1])) if len(ys) == 2 else (0, 1)
    frac = [round((bottom - y) / (bottom - top), 4) for y in ys[0]] if ys else []
    check("plot --kind cdf: group a at 0, 1/4, 3/4 and 1; group b from 0 to 1 at once",
          code == 0 and len(series) == 2 and sorted(frac) == [0, 0.25, 0.75, 1.0] and
          len(ys[1]) == 2, f"{err} {frac} {ys}")
    expect_error("plot --kind cdf takes no -y",
                 ["plot", "tests/data/plot/cdf.csv", "--kind", "cdf", "-x", "makespan_ns", "-y",
                  "seed", "-o", out], 2,
                 "plot: --kind cdf draws the distribution of -x COL (and takes no -y)")
    expect_error("plot --kind: line or cdf",
                 ["plot", "tests/data/plot/cdf.csv", "--kind", "pie", "-x", "seed", "-o", out], 2,
                 "plot: --kind pie: expected line, box, hist or cdf")

# --kind box: per x, quartiles by linear interpolation between the sorted values (numpy's
# default): 100..500 at 4 ranks gives 200 / 300 / 400, and 10, 20, 30 at 8 gives 15 / 20 / 25
# (tests/data/plot/box.csv); each box says so in its tooltip.
with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "box.svg")
    code, _, err = fennel("plot", "tests/data/plot/box.csv", "--kind", "box", "-x", "ranks", "-y",
                          "makespan_ns", "-o", out)
    titles = re.findall(r"<title>([^<]*)</title>", open(out).read()) if code == 0 else []
    check("plot --kind box: min, quartiles and max of each x",
          "makespan_ns at 4: min 100, quartiles 200 / 300 / 400, max 500 (5 rows)" in titles and
          "makespan_ns at 8: min 10, quartiles 15 / 20 / 25, max 30 (3 rows)" in titles,
          f"{err} {titles}")

# --kind hist: the values of every group cut into equal bins from the smallest to the
# largest; Sturges' rule gives ceil(log2 6) + 1 = 4 bins for the 6 rows of cdf.csv, of
# 50 ns from 100: group a has 100 | - | 200, 200 | 300, group b 150, 150 in the second.
with tempfile.TemporaryDirectory() as tmp:
    for args in ([], ["--bins", "4"]):
        out = os.path.join(tmp, "hist.svg")
        code, _, err = fennel("plot", "tests/data/plot/cdf.csv", "--kind", "hist", "-x",
                              "makespan_ns", "--by", "network", *args, "-o", out)
        titles = re.findall(r"<title>([^<]*)</title>", open(out).read()) if code == 0 else []
        check(f"plot --kind hist {args}: the rows of each bin",
              titles == ["a: 4 bins", "a: 1 row from 100 to 150", "a: 2 rows from 200 to 250",
                         "a: 1 row from 250 to 300", "b: 4 bins", "b: 2 rows from 150 to 200"],
              f"{err} {titles}")
    expect_error("--bins goes with --kind hist",
                 ["plot", "tests/data/plot/cdf.csv", "-x", "seed", "-y", "makespan_ns", "--bins",
                  "3", "-o", out], 2, "plot: --bins takes 1 to 10000 and goes with --kind hist")

# --style: the groups take the palette's colours in order (Okabe and Ito's first two are
# #e69f00 and #56b4e9; grey's are black and #555555).
with tempfile.TemporaryDirectory() as tmp:
    for style, first, second in (("okabe-ito", "#e69f00", "#56b4e9"),
                                 ("grey", "#000000", "#555555")):
        out = os.path.join(tmp, style + ".svg")
        code, _, err = fennel("plot", "tests/data/plot/cdf.csv", "--kind", "cdf", "-x",
                              "makespan_ns", "--by", "network", "--style", style, "-o", out)
        series = re.findall(r'<g class="series".*?</g>', open(out).read(), re.S) if code == 0 else []
        check(f"plot --style {style}: the groups in the palette's first colours",
              len(series) == 2 and f'stroke="{first}"' in series[0] and
              f'stroke="{second}"' in series[1], err)
    expect_error("--style names a palette",
                 ["plot", "tests/data/plot/cdf.csv", "--kind", "cdf", "-x", "seed", "--style",
                  "neon", "-o", os.path.join(tmp, "x.svg")], 2,
                 "plot: --style neon: expected tableau, okabe-ito or grey")

# Every key a sweep varies, and every model key in force, is a column (docs/SWEEPS.md,
# Columns): docs/TOPOLOGY.md's sweep of oversubscription and contention over the shift
# permutation of test_topology.py (rank i puts 100000 B to rank i + 4 mod 8; a radix-8
# fat tree of 100 ns, 10 GB/s links, so 100000 B take 10 us on a link; postal 0, 0).
# Every route is node link, leaf up-link (dst mod u, u = 4 / oversubscription up-links per
# leaf), spine down-link, node link: 400 ns of latency. Only `links` shares the up-links:
# with u = 4 each message has its own, 400 + 10000 = 10400 ns; with u = 2 two messages
# share each, the second starts on it 10 us after the first: 10400 and 20400 ns; with
# u = 1 all four of a leaf share one: 10400, 20400, 30400, 40400 ns. `none` and
# `endpoint` (the node links, one message each way per node) give 10400 ns throughout.
# Each rank finishes when its put arrives (postal), so skew = last - first arrival;
# bandwidth = 800000 B / makespan, message rate = 800000 B / the sum of the 8 flights.
TOPOLOGY_MODEL_COLUMNS = ["network", "alpha_ns", "beta_ns_per_byte", "compute",
                          "compute_duration_ns", "resolution_ns", "resolution_truncates"]
TOPOLOGY_COLUMNS = ["order", "topology", "topology_levels", "topology_radix",
                    "topology_oversubscription", "topology_node_latency_ns",
                    "topology_node_ns_per_byte", "topology_level1_latency_ns",
                    "topology_level1_ns_per_byte", "contention"]
RESULT_COLUMNS = ["seed", "tasks", "makespan_ns", "skew_ns", "messages", "bytes", "events",
                  "bandwidth_bytes_per_ns", "message_rate_bytes_per_ns", "error"]


def g9(x):
    return f"{x:.9g}"


def arrivals_row(arrivals):
    """The result cells after the seed (events left out: not a figure derived by hand)."""
    makespan = max(arrivals)
    return ["16", str(makespan), str(makespan - min(arrivals)), "8", "800000",
            g9(800000 / makespan), g9(800000 / sum(arrivals)), ""]


with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "topo.csv")
    shift = "tests/data/topology/shift.yaml"
    code, _, err = fennel("sweep", shift, "--model", "tests/data/topology/fat-tree.model.yaml",
                          "--set", "topology.oversubscription=1,2,4", "--set",
                          "contention=none,endpoint,links", "-o", out)
    table = rows_of(read(out)) if code == 0 else [[]]
    check("sweep over topology keys: a column for every topology key, the order and the "
          "contention",
          table[0] == ["program"] + TOPOLOGY_MODEL_COLUMNS + TOPOLOGY_COLUMNS + RESULT_COLUMNS,
          (err, table[0]))
    alone = [10400] * 8
    expect = {("1", c): alone for c in ("none", "endpoint", "links")}
    expect.update({(r, c): alone for r in ("2", "4") for c in ("none", "endpoint")})
    expect[("2", "links")] = [10400, 20400] * 4
    expect[("4", "links")] = [10400, 20400, 30400, 40400] * 2
    want = [[shift, "postal", "0", "0", "fixed", "0", "0.001", "false", "linear", "fat-tree",
             "2", "8", r, "100", "0.1", "100", "0.1", c, "0"] + arrivals_row(expect[(r, c)])
            for r in ("1", "2", "4") for c in ("none", "endpoint", "links")]
    events = table[0].index("events") if "events" in table[0] else 0
    got = [row[:events] + row[events + 1:] for row in table[1:]]
    check("sweep over topology keys: the rows, oversubscription and contention on each",
          got == want, "\n".join(",".join(r) for r in got))
    # fennel plot folds the rows of one x that differ in a column other than the axes, --by
    # and --where, and says so: here contention (oversubscription is the x axis).
    code, _, err = fennel("plot", out, "-x", "topology_oversubscription", "-y", "makespan_ns",
                          "-o", os.path.join(tmp, "topo.svg"))
    # (A sanitizer build may add its own report after fennel's lines.)
    check("plot of a topology sweep: one warning line naming contention",
          code == 0 and [line for line in err.splitlines() if line.startswith("fennel")] ==
          ["fennel: plot: warning: columns that vary but are neither an axis, --by nor "
           "--where: contention (their rows are folded into one point: the median, with a "
           "min-max band)"], err)
    code, _, err = fennel("plot", out, "-x", "topology_oversubscription", "-y", "makespan_ns",
                          "--by", "contention", "-o", os.path.join(tmp, "topo.svg"))
    check("plot of a topology sweep --by contention: no warning",
          code == 0 and "fennel" not in err, err)

    # The rank order and the placement: 2 ranks per node (4 nodes, all on leaf 0), an intra
    # postal of 50 ns. Linear: rank r on node r / 2, each node's two puts go to one other
    # node over its up-link and that node's down-link (200 ns of latency): 200 + 10000 =
    # 10200 ns without contention; under `endpoint` the second of each up-link starts 10 us
    # later, 20200 ns. Round-robin: rank r on node r mod 4, so r and r + 4 share a node and
    # every put is within a node: 50 ns.
    code, _, err = fennel("sweep", shift, "--model", "tests/data/topology/fat-tree.model.yaml",
                          "--set", "ranks_per_node=2", "--set", "intra=postal", "--set",
                          "intra.alpha=50ns", "--set", "order=linear,round-robin", "--set",
                          "contention=none,endpoint", "-o", out)
    table = rows_of(read(out)) if code == 0 else [[]]
    placement = ["ranks_per_node", "intra_network", "intra_alpha_ns", "intra_beta_ns_per_byte"]
    check("sweep over the rank order: an order column after the placement's",
          table[0] == ["program"] + TOPOLOGY_MODEL_COLUMNS + placement + TOPOLOGY_COLUMNS
          + RESULT_COLUMNS, (err, table[0]))
    expect = {("linear", "none"): [10200] * 8, ("linear", "endpoint"): [10200, 20200] * 4,
              ("round-robin", "none"): [50] * 8, ("round-robin", "endpoint"): [50] * 8}
    want = [[shift, "postal", "0", "0", "fixed", "0", "0.001", "false", "2", "postal", "50",
             "0", o, "fat-tree", "2", "8", "1", "100", "0.1", "100", "0.1", c, "0"]
            + arrivals_row(expect[(o, c)])
            for o in ("linear", "round-robin") for c in ("none", "endpoint")]
    events = table[0].index("events") if "events" in table[0] else 0
    got = [row[:events] + row[events + 1:] for row in table[1:]]
    check("sweep over the rank order: the rows", got == want,
          "\n".join(",".join(r) for r in got))

    # The event ordering and an empirical noise's file: one put of 0 B, postal alpha 1 us,
    # under network noise whose only sample is 100 ns (a.txt) or 300 ns (b.txt): the put
    # arrives at 1000 + 100 or 1000 + 300 ns under either ordering (one event per instant).
    # Rank 1 has no task and finishes at 0, so the skew is the makespan. Both files have one
    # sample, so the noise column alone would not tell them apart.
    put = os.path.join(tmp, "put.yaml")
    with open(put, "w") as f:
        f.write("fennel: 1\nranks: 2\ntasks:\n  - {id: s0, rank: 0, type: start}\n"
                "  - {id: p, rank: 0, type: put, to: 1, size: 0, after: [s0]}\n")
    for name, sample in (("a.txt", "100"), ("b.txt", "300")):
        with open(os.path.join(tmp, name), "w") as f:
            f.write(sample + "\n")
    code, _, err = fennel("sweep", put, "--network", "postal", "--set", "alpha=1us", "--set",
                          "ordering=fennel,loggopsim", "--set",
                          "noise.network.distribution=empirical", "--set",
                          f"noise.network.file={tmp}/a.txt,{tmp}/b.txt", "-o", out)
    table = rows_of(read(out)) if code == 0 else [[]]
    check("sweep over the ordering and a noise file: a column for each",
          table[0] == ["program"] + TOPOLOGY_MODEL_COLUMNS + ["ordering", "noise_network",
                                                              "noise_network_file"]
          + RESULT_COLUMNS, (err, table[0]))
    want = [[put, "postal", "1000", "0", "fixed", "0", "0.001", "false", o,
             "empirical (1 samples)", f"{tmp}/{name}", "0", "2", str(1000 + noise),
             str(1000 + noise), "1",
             "0", "0", "0", ""]
            for o in ("fennel", "loggopsim") for name, noise in (("a.txt", 100), ("b.txt", 300))]
    events = table[0].index("events") if "events" in table[0] else 0
    got = [row[:events] + row[events + 1:] for row in table[1:]]
    check("sweep over the ordering and a noise file: the rows", got == want,
          "\n".join(",".join(r) for r in got))

finish()
