#!/usr/bin/env python3
"""The layer rule (HACKING.md): every `#include "..."` of the project's sources names a
header of its own layer or of a layer below it, programs and schedules never include each
other, and the build itself refuses an upward include: a scratch file compiled with a
layer's own compile command can include a header of the layer below but not one above.

Usage: test_layers.py SOURCE_ROOT BUILD_ROOT. Prints TAP.
"""
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

ROOT, BUILD = (os.path.abspath(a) for a in sys.argv[1:3])
results = []

# The layers from the bottom up; a layer may include itself and every layer before it,
# except that programs and schedules share a level and never include each other.
LAYERS = [
    ("base", "src/base"),
    ("models", "models"),
    ("core", "src/core"),
    ("programs", "programs"),
    ("schedules", "schedules"),
    ("run", "src/run"),
    ("viz", "viz"),
    ("sweep", "src/sweep"),
    ("cli", "src/cli"),
]
LEVEL = {name: i for i, (name, _) in enumerate(LAYERS)}
LEVEL["schedules"] = LEVEL["programs"]


def check(name, cond, diag=""):
    results.append((name, bool(cond), diag))


def allowed(src, dst):
    if src == dst:
        return True
    return LEVEL[dst] < LEVEL[src]


# Every header of the project, by file name: the rule needs names to be unique.
owner = {}
sources = []
for layer, folder in LAYERS:
    # A layer's files may sit in subfolders of its own (programs/ has one per format).
    names = []
    for directory, subdirs, files in os.walk(os.path.join(ROOT, folder)):
        subdirs.sort()
        relative = os.path.relpath(directory, os.path.join(ROOT, folder))
        names += [os.path.normpath(os.path.join(relative, f)) for f in sorted(files)]
    for relative in names:
        name = os.path.basename(relative)
        if name.endswith((".c", ".h")):
            sources.append((layer, os.path.join(folder, relative)))
            if name.endswith(".h"):
                check(f"header {name} is defined once", name not in owner,
                      f"in {owner.get(name)} and {layer}")
                owner[name] = layer

violations = []
for layer, path in sources:
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
            if not m:
                continue
            header = os.path.basename(m.group(1))
            target = owner.get(header)
            if target is None:
                violations.append(f"{path}:{number}: {header} belongs to no layer")
            elif not allowed(layer, target):
                violations.append(f"{path}:{number}: {layer} includes {header} of {target}")
check(f"the includes of {len(sources)} files follow the layer rule", not violations,
      "\n".join(violations))


def compile_command(source):
    """The compile command of a source file from the build's compile_commands.json, as
    (directory, arguments)."""
    with open(os.path.join(BUILD, "compile_commands.json"), encoding="utf-8") as f:
        for entry in json.load(f):
            if os.path.normpath(os.path.join(entry["directory"], entry["file"])) == source:
                return entry["directory"], shlex.split(entry["command"])
    return None, None


def compiles(layer_source, text):
    """Whether `text`, compiled as if it were a file of layer_source's folder with that
    file's own command, passes the compiler's syntax check."""
    directory, args = compile_command(os.path.join(ROOT, layer_source))
    if args is None:
        return None
    folder = os.path.dirname(os.path.join(ROOT, layer_source))
    with tempfile.NamedTemporaryFile("w", suffix=".c", dir=folder, delete=False) as f:
        f.write(text)
        scratch = f.name
    try:
        out = []
        skip = False
        for a in args:
            if skip:
                skip = False
                continue
            if a == "-o":
                skip = True
                continue
            if a in ("-MD", "-MQ", "-MF") or a.startswith(("-MQ", "-MF")):
                skip = a in ("-MQ", "-MF")
                continue
            if a == "-c":
                continue
            if os.path.normpath(os.path.join(directory, a)) == os.path.join(ROOT, layer_source):
                continue
            out.append(a)
        p = subprocess.run(out + ["-fsyntax-only", scratch], cwd=directory,
                           capture_output=True, text=True)
        return p.returncode == 0
    finally:
        os.unlink(scratch)


# The build's side: the same scratch file compiles in the core layer with a header from
# below and fails with one from above, so the include directories really are per layer.
below = compiles("src/core/heap.c", '#include "units.h"\nint f(void);\n')
above = compiles("src/core/heap.c", '#include "trace.h"\nint f(void);\n')
check("a core file compiles with a base header", below is True, f"result {below}")
check("a core file including a run header fails to compile", above is False, f"result {above}")
up = compiles("programs/goal/goal_lex.c", '#include "generator.h"\nint f(void);\n')
check("a programs file including a schedules header fails to compile", up is False,
      f"result {up}")
base_up = compiles("src/base/units.c", '#include "model.h"\nint f(void);\n')
check("a base file including a models header fails to compile", base_up is False,
      f"result {base_up}")

print(f"1..{len(results)}")
for i, (name, ok, diag) in enumerate(results, 1):
    print(f"{'ok' if ok else 'not ok'} {i} - {name}")
    if not ok and diag:
        for line in str(diag).splitlines():
            print(f"# {line}")
sys.exit(0 if all(ok for _, ok, _ in results) else 1)
