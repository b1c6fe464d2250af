#!/usr/bin/env python3
"""The C sources follow .clang-format (HACKING.md): `clang-format --dry-run --Werror` over
every .c and .h file of the project's folders. A file it would change fails, named with its
first difference. Skipped (TAP) when clang-format is not installed (scripts/test.sh installs
it).

Usage: test_clang_format.py FENNEL SOURCE_ROOT. Prints TAP.
"""
import os
import shutil
import subprocess
import sys

ROOT = os.path.abspath(sys.argv[2])
FOLDERS = ["src", "models", "programs", "schedules", "viz", "tests"]

tool = shutil.which("clang-format")
if tool is None:
    print("1..0 # SKIP clang-format is not installed")
    sys.exit(0)
files = []
for folder in FOLDERS:
    for top, dirs, names in os.walk(os.path.join(ROOT, folder)):
        dirs[:] = sorted(d for d in dirs if not d.startswith("build"))
        files += [os.path.join(top, n) for n in sorted(names) if n.endswith((".c", ".h"))]
# One run over every file (a run per file would cost a process start each); it names each
# difference as FILE:LINE:COL.
p = subprocess.run([tool, "--dry-run", "--Werror", *files], cwd=ROOT, capture_output=True,
                   text=True)
diffs = {}
for line in p.stderr.splitlines():
    for path in files:
        if line.startswith(path + ":"):
            diffs.setdefault(path, []).append(line)
print(f"1..{len(files) + 1}")
print(f"{'ok' if p.returncode == 0 or diffs else 'not ok'} 1 - clang-format ran"
      + ("" if p.returncode == 0 or diffs else f"\n# {p.stderr[:300]!r}"))
for i, path in enumerate(files, 2):
    name = os.path.relpath(path, ROOT)
    if path not in diffs:
        print(f"ok {i} - {name}")
    else:
        print(f"not ok {i} - {name} is not formatted as .clang-format says")
        for line in diffs[path][:3]:
            print("# " + line)
