"""The shared harness of the CLI tests: runs build/fennel from the source root and prints
TAP. A test script is run as `test_X.py FENNEL SOURCE_ROOT`, imports what it needs from here,
records checks with check(), and ends with finish()."""
import json
import os
import subprocess
import sys
import tempfile

FENNEL, ROOT = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
results = []


def fennel(*args, timeout=120):
    """Runs fennel with args in the source root: (exit status, stdout, stderr)."""
    p = subprocess.run([FENNEL, *args], cwd=ROOT, capture_output=True, text=True,
                       timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def check(name, cond, diag=""):
    results.append((name, bool(cond), diag))


def expect_error(name, args, status, stderr):
    """The command fails with `status` and exactly one stderr line, `fennel: STDERR`."""
    code, out, err = fennel(*args)
    ok = code == status and err == "fennel: " + stderr + "\n" and out == ""
    check(name, ok, f"status {code}, stderr {err!r}, stdout {out[:200]!r}")


def run_json(*args):
    """`fennel run --json ARGS` as a dict, or {"error": stderr, "status": code}."""
    code, out, err = fennel("run", "--json", *args)
    try:
        return json.loads(out)
    except ValueError:
        return {"error": err, "status": code}


def write(directory, name, text):
    """Writes text to directory/name and returns the path."""
    path = os.path.join(directory, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def tasks(*args):
    """The --tasks CSV of `fennel run ARGS`, or its error."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "t.csv")
        code, _, err = fennel("run", *args, "--tasks", out)
        if code != 0:
            return err
        with open(out) as f:
            return f.read()


def puts(pairs, size):
    """A program of puts issued at time 0: (from, to) pairs."""
    ranks = 1 + max(max(p) for p in pairs)
    lines = ["fennel: 1", f"ranks: {ranks}", "tasks:"]
    for i, (a, b) in enumerate(pairs):
        lines.append(f"  - {{id: s{i}, rank: {a}, type: start}}")
        lines.append(f"  - {{id: p{i}, rank: {a}, type: put, to: {b}, size: {size}, "
                     f"after: [s{i}]}}")
    return "\n".join(lines) + "\n"


def finish():
    """Prints the TAP plan and results; exits 1 if any check failed."""
    print(f"1..{len(results)}")
    for i, (name, ok, diag) in enumerate(results, 1):
        print(f"{'ok' if ok else 'not ok'} {i} - {name}")
        if not ok and diag:
            for line in str(diag).splitlines():
                print(f"# {line}")
    sys.exit(0 if all(ok for _, ok, _ in results) else 1)
