#!/usr/bin/env python3
"""CLI tests: exit statuses, one-line errors and output shapes of build/fennel.

Usage: test_cli.py FENNEL SOURCE_ROOT. Prints TAP.
"""
import json
import os
import resource
import subprocess
import re
import tempfile
import zlib

from harness import FENNEL, ROOT, check, expect_error, fennel, finish


with tempfile.TemporaryDirectory() as tmp:
    def write(name, text):
        path = os.path.join(tmp, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        return path

    pp = "programs/examples/pingpong.yaml"
    bad = write("bad.yaml", "fennel: 1\ntasks:\n- {id: a, type: start, rank: 0}\n"
                            "- {id: b, type: proxy, rank: 0, after: [a, c]}\n")

    # Usage errors exit 2, input errors exit 1; one line on stderr, nothing on stdout.
    code, out, err = fennel()
    check("no command: usage, exit 2", code == 2 and "usage: fennel COMMAND" in err)
    code, out, err = fennel("frobnicate")
    check("unknown command: lists the commands, exit 2",
          code == 2 and err.startswith("fennel: unknown command 'frobnicate' (commands: run ")
          and err.count("\n") == 1, err)
    expect_error("run without program", ["run"], 2,
                 "run: no program given (fennel run PROGRAM... or fennel run --generate NAME)")
    expect_error("unknown option", ["run", pp, "--colour"], 2, "run: unknown option --colour")
    expect_error("unknown network", ["run", pp, "--network", "logq"], 2,
                 "--network: unknown network model 'logq' (known: postal, lbp, logp, loggp)")
    expect_error("unknown parameter", ["run", pp, "--network", "lbp", "--set", "alpha=1ns"], 2,
                 "--set alpha=1ns: unknown parameter 'alpha' (network model lbp has: alpha_p, "
                 "alpha_r, beta; compute model fixed has: duration; also: resolution, network, "
                 "compute, ranks_per_node, intra, intra.NAME)")
    expect_error("set without =", ["run", pp, "--set", "alpha"], 2,
                 "--set alpha: expected KEY=VALUE, e.g. --set alpha_p=400ns")
    expect_error("bad value", ["run", pp, "--set", "alpha=fast"], 2,
                 "--set alpha=fast: alpha: expected a number")
    expect_error("input error names file:line:col", ["run", bad], 1,
                 f"{bad}:4:44: unknown task 'c' in after")
    expect_error("validate input error", ["validate", bad], 1,
                 f"{bad}:4:44: unknown task 'c' in after")
    missing = os.path.join(tmp, "missing.yaml")
    code, out, err = fennel("run", missing)
    check("missing file: exit 1, one line", code == 1 and err.count("\n") == 1 and
          err.startswith("fennel: ") and "missing.yaml" in err, err)
    code, out, err = fennel("run", tmp)
    check("directory as file: exit 1, one line", code == 1 and err.count("\n") == 1 and
          err.startswith("fennel: "), err)
    binary = os.path.join(tmp, "binary.yaml")
    with open(binary, "wb") as f:
        f.write(b"fennel: 1\x00\xff\xfe")
    expect_error("binary file", ["run", binary], 1,
                 f"{binary}: binary data (a NUL byte) in a text file")
    latin1 = os.path.join(tmp, "latin1.yaml")
    with open(latin1, "wb") as f:
        f.write(b"fennel: 1\nname: caf\xe9\ntasks: []\n")
    code, out, err = fennel("run", latin1)
    check("non-UTF-8 file: exit 1 with position", code == 1 and err.startswith(
        f"fennel: {latin1}:2:") and err.count("\n") == 1, err)
    model_bad = write("m.yaml", "fennel: 1\nnetwork: {model: lbp, alpha: 1}\n")
    expect_error("model file error", ["run", pp, "--model", model_bad], 1,
                 f"{model_bad}:2:23: unknown parameter 'alpha' for network model lbp "
                 "(it has: alpha_p, alpha_r, beta)")

    # --json: one object, keys of README, Commands.
    code, out, err = fennel("run", pp, "--network", "postal", "--set", "alpha=1000ns", "--json")
    try:
        doc = json.loads(out)
    except ValueError:
        doc = {}
    keys = ["fennel", "program", "generator", "model", "seed", "ranks", "tasks", "makespan_ns",
            "rank_finish_ns", "skew_ns", "messages", "bytes", "events", "build_seconds",
            "simulate_seconds", "wall_seconds"]
    check("json has the documented keys", code == 0 and all(k in doc for k in keys), out)
    check("json model echoes parameters",
          doc.get("model", {}).get("network") == {"model": "postal", "alpha_ns": 1000,
                                                   "beta_ns_per_byte": 0}, out)
    check("json seed", doc.get("seed") == 0)
    code, out, err = fennel("run", pp, "--seed", "7", "--json", "--model", "postal-unit")
    check("--seed is echoed", code == 0 and json.loads(out)["seed"] == 7, out)

    # Text summary: the lines of the README's first run, in order.
    code, out, err = fennel("run", pp, "--network", "postal", "--set", "alpha=1000ns")
    labels = [line.split()[0] for line in out.splitlines()]
    check("text summary lines",
          labels == ["program", "ranks", "tasks", "model", "seed", "makespan", "rank",
                     "messages", "bandwidth", "events", "wall"], out)
    check("text makespan", "makespan     2000 ns\n" in out, out)

    # Same input, same bytes (outside the wall-clock fields).
    def strip_clock(text):
        return "\n".join(l for l in text.splitlines() if not l.startswith("wall"))
    a = fennel("run", pp, "--model", "models/presets/thesis-figures.yaml")[1]
    b = fennel("run", pp, "--model", "models/presets/thesis-figures.yaml")[1]
    check("deterministic output", strip_clock(a) == strip_clock(b) and a)

    # --tasks: a CSV row per task; a failed write leaves no file and says why.
    csv_path = os.path.join(tmp, "tasks.csv")
    code, out, err = fennel("run", pp, "--network", "postal", "--set", "alpha=1000ns",
                            "--tasks", csv_path)
    rows = open(csv_path, encoding="utf-8").read().splitlines() if os.path.exists(csv_path) else []
    check("--tasks writes a header and one row per task",
          code == 0 and len(rows) == 9 and rows[0].startswith("program,id,rank,slot,type,"), rows)
    check("--tasks: the pong put ends at 2000",
          any(r.split(",")[1] == "p1_0" and r.split(",")[7] == "2000" for r in rows[1:]), rows)
    nowhere = os.path.join(tmp, "no", "such", "dir", "t.csv")
    expect_error("--tasks into a missing directory", ["run", pp, "--model", "postal-unit", "--tasks", nowhere], 1,
                 f"{nowhere}: cannot write: no such file or directory")
    leftovers = [f for f in os.listdir(tmp) if f.startswith("tasks.csv.")]
    check("no temporary file left behind", not leftovers, leftovers)

    # validate: statistics.
    code, out, err = fennel("validate", "--json", pp)
    try:
        v = json.loads(out)
    except ValueError:
        v = {}
    check("validate json", code == 0 and v.get("tasks_by_type", {}).get("put") == 2 and
          v.get("messages") == 2 and v.get("critical_path_tasks", 0) >= 3, out)

    # list: every model and parameter with its unit.
    code, out, err = fennel("list")
    check("list shows models and units", code == 0 and all(
        s in out for s in ["postal", "lbp", "alpha_p", "ns/B", "fixed", "gamma", "resolution"]))
    code, out, err = fennel("--version")
    check("--version", code == 0 and out.startswith("fennel "))
    code, out, err = fennel("run", "--help")
    check("run --help", code == 0 and "--model" in out and "--set" in out)

    # Every command's --help starts with a usage line that names the command once, after
    # "fennel": GLib's own program name (argv[0]) must not be printed as well.
    code, out, err = fennel("--help")
    commands = [line.split()[0] for line in out.split("commands:\n", 1)[-1].splitlines()
                if line.startswith("  ")]
    check("fennel --help lists the commands", code == 0 and "run" in commands, out)
    for command in commands:
        code, out, err = fennel(command, "--help")
        lines = out.splitlines()
        usage = lines[1].strip() if len(lines) > 1 and lines[0] == "Usage:" else ""
        words = usage.split()
        check(f"{command} --help: the usage line names the command once",
              code == 0 and words[:2] == ["fennel", command] and words.count(command) == 1,
              f"status {code}, usage line {usage!r}")

# Every command of `fennel --help` is completed by the bash completion (HACKING.md's
# checklist for a new command), and the completion offers no command that does not exist.
code, out, _ = fennel("--help")
commands = []
listing = False
for line in out.splitlines():
    if line.startswith("commands:"):
        listing = True
    elif listing and line.startswith("  "):
        commands.append(line.split()[0])
    elif listing and not line.strip():
        listing = False
with open(os.path.join(ROOT, "completions", "fennel.bash"), encoding="utf-8") as f:
    m = re.search(r'local commands="([^"]*)"', f.read())
completed = m.group(1).split() if m else []
check("the completion lists the commands of --help", code == 0 and commands and
      sorted(commands) == sorted(completed), f"--help {commands}, completion {completed}")

# No silent zero model: run and sweep refuse without --model or --network, naming the
# presets; --model NAME finds a preset by name.
presets = sorted((n[:-5] for n in os.listdir(os.path.join(ROOT, "models", "presets"))
                  if n.endswith(".yaml")), key=str.lower)
missing = ("no model: give --model FILE, --model PRESET (" + ", ".join(presets) +
           ") or --network KIND; without one every duration would be 0")
expect_error("run without a model", ["run", "programs/examples/pingpong.yaml"], 2,
             "run: " + missing)
expect_error("run --generate without a model", ["run", "--generate", "allreduce-rd", "--ranks",
                                                "4"], 2, "run: " + missing)
with tempfile.TemporaryDirectory() as tmp:
    expect_error("sweep without a model", ["sweep", "--generate", "allreduce-rd", "--ranks", "4",
                                           "-o", os.path.join(tmp, "s.csv")], 2,
                 "sweep: " + missing)
    check("sweep without a model writes no file", os.listdir(tmp) == [], os.listdir(tmp))
by_name = fennel("run", "programs/examples/pingpong.yaml", "--model", "thesis-figures", "--json")
by_path = fennel("run", "programs/examples/pingpong.yaml", "--model",
                 "models/presets/thesis-figures.yaml", "--json")
check("--model NAME reads the preset of that name",
      by_name[0] == 0 and json.loads(by_name[1])["makespan_ns"] == 1206.4 and
      json.loads(by_name[1])["model"] == json.loads(by_path[1])["model"], by_name)
expect_error("--model with an unknown name", ["run", "programs/examples/pingpong.yaml",
                                              "--model", "nope"], 1,
             "--model nope: no such file, nor a preset of that name (presets: " +
             ", ".join(presets) + ")")

# A failed write to standard output is an error: exit 1 and one line, for every command
# that prints (to /dev/full the write fails with ENOSPC, at the last flush or earlier).
if os.path.exists("/dev/full"):
    import subprocess
    for name, args in [
            ("run", ["run", "programs/examples/pingpong.yaml", "--model", "thesis-figures"]),
            ("run --json", ["run", "programs/examples/pingpong.yaml", "--model",
                            "thesis-figures", "--json"]),
            ("validate", ["validate", "programs/examples/pingpong.yaml"]),
            ("list", ["list"]),
            ("schedules", ["schedules", "--ranks", "12"]),
            ("verify", ["verify", "--generate", "allreduce-rd", "--ranks", "4"]),
            ("generate", ["generate", "allreduce-rd", "--ranks", "4"]),
            ("--version", ["--version"])]:
        with open("/dev/full", "w") as full:
            p = subprocess.run([FENNEL, *args], cwd=ROOT, stdout=full, stderr=subprocess.PIPE,
                               text=True, timeout=120)
        check(f"{name} > /dev/full: exit 1 and one line", p.returncode == 1 and
              p.stderr.startswith("fennel: standard output: cannot write: ") and
              p.stderr.count("\n") == 1, (p.returncode, p.stderr))

# A run's output files appear together or not at all (docs/RELIABILITY.md, Output files):
# when one cannot be written, the others written before it are removed.
with tempfile.TemporaryDirectory() as tmp:
    for bad in (os.path.join(tmp, "no-such-dir", "t.json"), "/dev/full"):
        if bad == "/dev/full" and not os.path.exists(bad):
            continue
        code, out, err = fennel("run", "programs/examples/pingpong.yaml", "--model", "postal-unit",
                                "--tasks", os.path.join(tmp, "t.csv"), "--dot",
                                os.path.join(tmp, "t.dot"), "--trace", bad)
        left = sorted(os.listdir(tmp))
        check(f"--trace {os.path.basename(bad)} fails: exit 1, --tasks and --dot not left",
              code == 1 and out == "" and err.count("\n") == 1 and
              left in ([], ["no-such-dir"]), (code, err, left))

# A set of outputs one of which is a directory (issue 29): checked before the first file is
# renamed into place, so none is written and an existing one keeps its content; this used to
# leave or replace the files renamed before the directory's turn.
with tempfile.TemporaryDirectory() as tmp:
    def at(name):
        return os.path.join(tmp, name)
    os.mkdir(at("D"))
    with open(at("t.json"), "w") as f:
        f.write("old trace\n")
    with open(at("x.0.et"), "w") as f:
        f.write("old rank 0\n")
    os.mkdir(at("x.2.et"))
    PINGPONG = ["programs/examples/pingpong.yaml", "--model", "postal-unit"]
    for what, args, failing in [
            ("run --tasks t.csv --trace DIR", ["run", *PINGPONG, "--tasks", at("t.csv"),
                                               "--trace", at("D")], at("D")),
            ("run --trace t.json (existing) --dot DIR", ["run", *PINGPONG, "--trace",
                                                         at("t.json"), "--dot", at("D")], at("D")),
            ("run --repeats r.csv --finishes DIR", ["run", *PINGPONG, "--repeat", "2", "--repeats",
                                                    at("r.csv"), "--finishes", at("D")], at("D")),
            ("generate -f chakra -o x with x.2.et a folder",
             ["generate", "allreduce-rd", "--ranks", "4", "-f", "chakra", "--model", "postal-unit",
              "-o", at("x")], at("x.2.et"))]:
        code, out, err = fennel(*args)
        with open(at("t.json")) as f:
            trace = f.read()
        with open(at("x.0.et"), "rb") as f:
            rank0 = f.read()
        left = sorted(os.listdir(tmp))
        check(f"{what}: exit 1, one line, nothing written or replaced",
              code == 1 and err == f"fennel: {failing}: cannot write: is a directory\n" and
              left == ["D", "t.json", "x.0.et", "x.2.et"] and trace == "old trace\n" and
              rank0 == b"old rank 0\n", (code, err, left, trace, rank0))

# Memory limits set by the shell are read like the machine's size: under `ulimit -v 1 GiB`
# a run that would need 17 GiB is refused with one line naming the limit, not killed by the
# allocator (docs/RELIABILITY.md, Limits). The sanitizer build maps terabytes of shadow
# memory and cannot start under such a limit: the check is skipped there.
def one_gib():
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))


probe = subprocess.run([FENNEL, "--version"], cwd=ROOT, capture_output=True, text=True,
                       preexec_fn=one_gib)
if probe.returncode == 0:
    p = subprocess.run([FENNEL, "run", "--generate", "allreduce-rd", "--ranks", "4194304",
                        "--model", "postal-unit"], cwd=ROOT, capture_output=True, text=True,
                       preexec_fn=one_gib)
    check("ulimit -v 1 GiB: a run that needs 17 GiB is refused in one line naming the limit",
          p.returncode == 1 and p.stdout == "" and p.stderr.count("\n") == 1 and
          p.stderr.startswith("fennel: would need about 17.3 GiB for 285212672 tasks") and
          "the address space limit (ulimit -v) leaves" in p.stderr, (p.returncode, p.stderr))
    # The same for what is not a program (docs/RELIABILITY.md, Limits): the state of the
    # links a program's messages cross, a Chakra file that inflates to more than the limit
    # leaves (a gzip bomb of 600 MiB of zeros in 0.6 MB), and a file of zero bytes, which is
    # no Chakra trace (it was read as one of empty nodes, 130 bytes held per byte, and
    # aborted in GLib's allocator). A torus of 2^22 nodes (2^24 links) was refused here when
    # every link had state; only the links crossed have it now, and pingpong crosses 6:
    # rank 0's 8 B put crosses node0->router0 (0 ns, 100 Gbit/s: 0.64 ns for 8 B),
    # router0->router1 (500 ns) and router1->node1 (0 ns), cut-through, so its tail arrives
    # at 500 + 0.64 = 500.64 ns, when the postal sender is free; the put back the same way
    # round: 2 x 500.64 = 1001.28 ns (docs/TOPOLOGY.md, Contention levels).
    p = subprocess.run([FENNEL, "run", "programs/examples/pingpong.yaml", "--network", "postal",
                        "--set", "topology.kind=torus", "--set", "topology.dims=4194304",
                        "--set", "contention=links"], cwd=ROOT, capture_output=True, text=True,
                       preexec_fn=one_gib)
    check("ulimit -v 1 GiB: a torus of 2^22 nodes under links runs, state only for its links",
          p.returncode == 0 and "makespan     1001.28 ns\n" in p.stdout, (p.stdout, p.stderr))
    # A put from rank 0 to rank 2999999 on a ring of 2^23 nodes crosses 2999999 ring links
    # and two node links: 3000001 links of state are more than the limit leaves (each link's
    # state is one 64-byte record, doubled for the room the arrays keep while they grow:
    # 3000001 x 128 B = 0.36 GiB, rounded up to one decimal: 0.4 GiB).
    with tempfile.TemporaryDirectory() as tmp:
        far = os.path.join(tmp, "far.yaml")
        with open(far, "w") as f:
            f.write("fennel: 1\nranks: 3000000\ntasks:\n  - {id: s, type: start, rank: 0}\n"
                    "  - {id: p, type: put, rank: 0, to: 2999999, size: 8B, after: [s]}\n")
        p = subprocess.run([FENNEL, "run", far, "--network", "postal", "--set",
                            "topology.kind=torus", "--set", "topology.dims=8388608", "--set",
                            "contention=links"], cwd=ROOT, capture_output=True, text=True,
                           preexec_fn=one_gib)
        check("ulimit -v 1 GiB: the links a program crosses are refused in one line naming the "
              "limit", p.returncode == 1 and p.stdout == "" and p.stderr.count("\n") == 1 and
              p.stderr.startswith("fennel: topology: would need about 0.4 GiB for 3000001 links "
                                  "its messages cross; the address space limit (ulimit -v) "
                                  "leaves"), p.stderr)
    with tempfile.TemporaryDirectory() as tmp:
        bomb = os.path.join(tmp, "bomb.0.et")
        z = zlib.compressobj(9, zlib.DEFLATED, 31)  # gzip
        parts = [z.compress(b"\x07\x0a\x050.0.4")]  # a GlobalMetadata with its version
        for _ in range(600):
            parts.append(z.compress(bytes(1 << 20)))
        parts.append(z.flush())
        with open(bomb, "wb") as f:
            f.write(b"".join(parts))
        p = subprocess.run([FENNEL, "run", bomb, "--model", "postal-unit"], cwd=ROOT,
                           capture_output=True, text=True, preexec_fn=one_gib)
        check("ulimit -v 1 GiB: a Chakra gzip bomb is refused while inflating, naming the limit",
              p.returncode == 1 and p.stderr.count("\n") == 1 and
              p.stderr.startswith(f"fennel: would need about 0.4 GiB for {bomb} inflated "
                                  "(134217728 bytes so far); the address space limit (ulimit -v) "
                                  "leaves"), p.stderr)
        zeros = os.path.join(tmp, "zeros")
        with open(zeros, "wb") as f:
            f.write(bytes(16 << 20))
        p = subprocess.run([FENNEL, "run", zeros, "--model", "postal-unit"], cwd=ROOT,
                           capture_output=True, text=True, preexec_fn=one_gib)
        check("ulimit -v 1 GiB: 16 MiB of zero bytes are no Chakra trace: one line",
              p.returncode == 1 and
              p.stderr == f"fennel: {zeros}: binary data (a NUL byte) in a text file\n", p.stderr)
    # A text is held once: a file of 100 MB was read into a buffer of twice its size, and
    # under 150 MiB that allocation aborted in GLib; it is checked and refused instead. An
    # OSU title of 100 MB (50 million words) was split into words that took more than
    # 2 GiB; only the first words of a title are read (its one size is then fitted). An MSCCL++ plan of 65536 gpus (8 KiB
    # of contributions per chunk value) or one of 8192 gpus with 2048 chunks each (a file
    # of 1.2 MB asking for 16 GiB) is refused before its check makes the values.
    def limit(mib):
        return lambda: resource.setrlimit(resource.RLIMIT_AS, (mib << 20, mib << 20))

    with tempfile.TemporaryDirectory() as tmp:
        title = os.path.join(tmp, "osu.txt")
        with open(title, "w") as f:
            f.write("# OSU MPI Latency Test" + " a" * 50_000_000 + "\n# Size Latency (us)\n"
                    "1 1.0\n")
        p = subprocess.run([FENNEL, "fit", title], cwd=ROOT, capture_output=True, text=True,
                           preexec_fn=limit(150))
        check("ulimit -v 150 MiB: fit of a 100 MB file is refused naming the limit",
              p.returncode == 1 and p.stderr.count("\n") == 1 and
              p.stderr.startswith(f"fennel: would need about 0.10 GiB for the text of {title}; "
                                  "the address space limit (ulimit -v) leaves"), p.stderr)
        p = subprocess.run([FENNEL, "fit", title], cwd=ROOT, capture_output=True, text=True,
                           preexec_fn=one_gib)
        # One size of 1.0 us: alpha is that one-way time, beta undetermined (docs/
        # CALIBRATION.md, One size).
        check("ulimit -v 1 GiB: an OSU title of 100 MB is read as a title (one size: alpha)",
              p.returncode == 0 and "postal fit of 1 size (statistic min)\n  size 1B: alpha "
              "1000 ns, beta 0 ns/B\n" in p.stdout, p.stdout + p.stderr)
        for gpus, chunks, need in [(65536, 1, "1.1"), (8192, 2048, "32.3")]:
            plan = os.path.join(tmp, f"plan-{gpus}.json")
            with open(plan, "w") as f:
                f.write('{"name": "big", "collective": "allreduce", "protocol": "Simple", '
                        '"inplace": true, "gpus": [\n')
                f.write(",\n".join(
                    f'{{"id": {g}, "input_chunks": {chunks}, "output_chunks": {chunks}, '
                    '"scratch_chunks": 0, "threadblocks": [], "channels": [], '
                    '"remote_buffers": [], "semaphores": []}' for g in range(gpus)))
                f.write('\n], "num_threads_per_block": 1024, "use_double_scratch_buffer": '
                        'false, "buffer_alignment": 16, "min_message_size": 0, '
                        '"max_message_size": 18446744073709551615}\n')
            p = subprocess.run([FENNEL, "verify", plan], cwd=ROOT, capture_output=True,
                               text=True, preexec_fn=one_gib)
            # Each value: 8 bytes and a set of gpus/64 words; twice that, for the growth.
            check(f"ulimit -v 1 GiB: an MSCCL++ plan of {gpus} gpus with {chunks} chunks each "
                  "is refused before its check, naming the limit",
                  p.returncode == 1 and p.stderr.count("\n") == 1 and
                  p.stderr.startswith(f"fennel: {plan}: would need about {need} GiB for the "
                                      f"chunk values of a check over {gpus} ranks; the address "
                                      "space limit (ulimit -v) leaves"), p.stderr)
    # An MSCCL++ plan of 100 000 gpus (15 MB) is refused for its gpu count. The plain text
    # MSCCL++ writes is read into a tree of 16 bytes a value (about 38 MB in all); it was
    # parsed a second time by json-glib to say so, which held 15 times the file and under
    # 200 MiB ended in GLib's abort. A text the fast scanner declines (here a tab after each
    # "id":) goes to json-glib, whose document is estimated first and refused naming the
    # limit: 100000 gpus of 9 values (the object and its 8 members) and the root's 11 (itself
    # and its 10 members) make 900011 values, 100001 objects and 800010 members, at 112, 384
    # and 128 bytes: 241602896 bytes, 0.23 GiB (docs/RELIABILITY.md, Limits).
    with tempfile.TemporaryDirectory() as tmp:
        for name, gap in [("plain.json", " "), ("tabs.json", "\t")]:
            plan = os.path.join(tmp, name)
            with open(plan, "w") as f:
                f.write('{"name": "big", "collective": "allreduce", "protocol": "Simple", '
                        '"inplace": true, "gpus": [\n')
                f.write(",\n".join(
                    f'{{"id":{gap}{g}, "input_chunks": 1, "output_chunks": 1, '
                    '"scratch_chunks": 0, "threadblocks": [], "channels": [], '
                    '"remote_buffers": [], "semaphores": []}' for g in range(100000)))
                f.write('\n], "num_threads_per_block": 1024, "use_double_scratch_buffer": '
                        'false, "buffer_alignment": 16, "min_message_size": 0, '
                        '"max_message_size": 18446744073709551615}\n')
            p = subprocess.run([FENNEL, "verify", plan], cwd=ROOT, capture_output=True,
                               text=True, preexec_fn=limit(200))
            if gap == " ":
                check("ulimit -v 200 MiB: a plain MSCCL++ plan of 100000 gpus is refused for "
                      "its gpu count, read once", p.returncode == 1 and
                      p.stderr == f'fennel: {plan}:1:1: "gpus": 100000 gpus (1 to 65536)\n',
                      p.stderr)
            else:
                check("ulimit -v 200 MiB: json-glib's document of a 15 MB plan is estimated and "
                      "refused naming the limit", p.returncode == 1 and
                      p.stderr.count("\n") == 1 and
                      p.stderr.startswith("fennel: would need about 0.23 GiB for the JSON "
                                          f"document of {plan} (900011 values); the address "
                                          "space limit (ulimit -v) leaves"), p.stderr)
else:
    check("ulimit -v: skipped (this build cannot start under an address space limit)", True)

# A reader that closes the pipe early ends fennel by SIGPIPE, silently, as any Unix filter
# (docs/RELIABILITY.md, Output files).
p = subprocess.Popen([FENNEL, "generate", "allreduce-rd", "--ranks", "4096", "--format", "yaml"],
                     cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
p.stdout.read(100)
p.stdout.close()
err = p.stderr.read()
p.wait()
check("a closed pipe: fennel ends by SIGPIPE, nothing on stderr",
      p.returncode == -13 and err == b"", (p.returncode, err))

finish()
