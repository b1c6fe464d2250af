#!/usr/bin/env python3
"""The plug-in tables and HACKING.md's checklists, checked rather than only written.

Usage: test_formats.py FENNEL SOURCE_ROOT. Prints TAP.

- Formats: every row of the table in programs/formats.c has its descriptor in a folder of
  its own under programs/, listed in programs/meson.build; a `fennel list` row (in the
  table's order); a row and a section in docs/FORMATS.md; a fuzz harness that says it
  covers it and that tests/fuzz/meson.build builds; and, when `generate` writes it, its name
  in the man page's generate paragraph and in the completion's list. src/cli includes no
  header of a format's folder.
- Contention levels: every level `fennel list` shows has its row in the engine's table
  (src/core/engine_contention.c) and in the model's table of names (models/topology.c), both
  in the order of the enum (models/topology.h), its entry in docs/TOPOLOGY.md and a case of
  its own in the hand-timed incast of tests/cli/test_topology.py.
- Generators: every generator of schedules/registry.c is defined in a schedules/gen_*.c and
  shown by `fennel list`.
- HACKING.md's checklists (adding a command, a generator, a model, a model key, a format, a
  contention level, an output): every file or folder they name exists.
"""
import glob
import os
import re
import subprocess

from harness import FENNEL, ROOT, check, fennel, finish


def read(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        return f.read()


def list_section(text, title):
    """The names of a `fennel list` section: its indented rows' first words."""
    names, inside = [], False
    for line in text.splitlines():
        if re.match(r"[a-z]", line):
            inside = line.startswith(title)
        elif inside:
            m = re.match(r"  ([a-z0-9][a-z0-9_+-]*)\s", line)
            if m:
                names.append(m.group(1))
    return names


code, listing, err = fennel("list")
check("fennel list", code == 0, err)

# ---- Formats ----
table = re.search(r"#define FENNEL_FORMAT_TABLE\(X\)(.*?)\n\n", read("programs/formats.c"), re.S)
idents = re.findall(r"X\((\w+)\)", table.group(1)) if table else []
check("programs/formats.c has the table of formats", len(idents) >= 8, idents)

descriptors = {}  # ident -> (name, file)
for path in sorted(glob.glob(os.path.join(ROOT, "programs", "**", "*.c"), recursive=True)):
    text = open(path, encoding="utf-8").read()
    for m in re.finditer(r"const FennelFormatClass fennel_format_(\w+) = \{(.*?)\n\};", text, re.S):
        name = re.search(r'\.name = "([^"]+)"', m.group(2))
        descriptors[m.group(1)] = (name.group(1) if name else None,
                                   os.path.relpath(path, ROOT))
names = []
meson = read("programs/meson.build")
for ident in idents:
    name, path = descriptors.get(ident, (None, None))
    check(f"format {ident}: a descriptor with a name", name is not None, descriptors.keys())
    if name is None:
        continue
    names.append(name)
    parts = path.split(os.sep)
    check(f"format {name}: its descriptor is in a folder of its own ({path})",
          len(parts) == 3 and parts[0] == "programs", path)
    check(f"format {name}: its file is in programs/meson.build",
          f"'{'/'.join(parts[1:])}'" in meson, path)

check("fennel list shows the table's formats in its order",
      list_section(listing, "program formats") == names,
      f"{list_section(listing, 'program formats')} against {names}")

formats_md = read("docs/FORMATS.md")
headings = [line for line in formats_md.splitlines() if line.startswith("#")]
harnesses = {}
for path in sorted(glob.glob(os.path.join(ROOT, "tests", "fuzz", "fuzz_*.c"))):
    head = open(path, encoding="utf-8").read().split("*/", 1)[0]
    m = re.search(r"Formats: ([^.]*)\.", head)
    if m:
        target = os.path.basename(path)[len("fuzz_"):-len(".c")]
        for covered in re.findall(r"[a-z][a-z0-9+-]*", m.group(1).split("(")[0]):
            harnesses.setdefault(covered, []).append(target)
fuzz_meson = read("tests/fuzz/meson.build")
for name in names:
    check(f"format {name}: a row in docs/FORMATS.md's table",
          re.search(rf"^\| `{re.escape(name)}` \|", formats_md, re.M), name)
    check(f"format {name}: a section in docs/FORMATS.md",
          any(f"`{name}`" in h for h in headings), headings)
    targets = [t for t in harnesses.get(name, []) if f"'{t}' :" in fuzz_meson]
    check(f"format {name}: a fuzz harness that tests/fuzz/meson.build builds", targets,
          harnesses.get(name))

# What generate writes: the names its error for an unknown format gives, from the table.
code, _, err = fennel("generate", "send", "--format", "?")
m = re.search(r"\(known: (.*)\)$", err.strip())
generated = m.group(1).split(", ") if m else []
check("generate names the formats it writes", generated and set(generated) <= set(names), err)
man = read("docs/fennel.1.scd")
paragraph = man[man.index("*generate* _NAME_"):man.index("*convert* _PROGRAM_")]
for name in generated:
    check(f"format {name}: the man page's generate paragraph names it",
          f"*{name}*" in paragraph, paragraph)
completion = subprocess.run(
    ["bash", "-c", 'source "$1"; COMP_WORDS=("$2" generate -f ""); COMP_CWORD=3; _fennel; '
     'echo "${COMPREPLY[@]}"', "-", os.path.join(ROOT, "completions", "fennel.bash"), FENNEL],
    capture_output=True, text=True)
check("the completion offers generate's formats", completion.stdout.split() == generated,
      completion.stdout + completion.stderr)

# src/cli includes no header of a format's own folder, only the table's (formats.h).
own = {os.path.basename(p) for p in glob.glob(os.path.join(ROOT, "programs", "*", "*.h"))}
reaching = []
for path in sorted(glob.glob(os.path.join(ROOT, "src", "cli", "*.[ch]"))):
    for number, line in enumerate(open(path, encoding="utf-8"), 1):
        m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
        if m and os.path.basename(m.group(1)) in own:
            reaching.append(f"{os.path.relpath(path, ROOT)}:{number}: {m.group(1)}")
check("src/cli includes no format's own header", own and not reaching, "\n".join(reaching))

# ---- Contention levels ----
levels = list_section(listing, "contention")
check("fennel list shows the contention levels", {"none", "endpoint", "links", "fair"} <= set(levels),
      levels)
topology = read("docs/TOPOLOGY.md")
section = topology[topology.index("## Contention levels"):]
section = section[:section.index("\n## ", 1)]
for level in levels:
    check(f"contention level {level}: an entry in docs/TOPOLOGY.md", f"**`{level}`**" in section,
          level)
enum = re.search(r"typedef enum \{([^}]*)\} FennelContention;", read("models/topology.h"))
enum = re.findall(r"FENNEL_CONTENTION_(\w+)", enum.group(1)) if enum else []
enum = [e for e in enum if e != "N_LEVELS"]
check("fennel list shows the levels of the enum, in its order",
      [e.lower() for e in enum] == levels, (enum, levels))
names = re.search(r"\} contentions\[\] = \{(.*?)\n\};", read("models/topology.c"), re.S)
names = re.findall(r"\[FENNEL_CONTENTION_(\w+)\] = \{\"([a-z-]+)\"", names.group(1)) if names else []
check("models/topology.c names every level, in the enum's order",
      [n[0] for n in names] == enum and all(n[1] == n[0].lower() for n in names), names)
rows = re.search(r"fennel__contention_levels\[FENNEL_CONTENTION_N_LEVELS\] = \{(.*?)\n\};",
                 read("src/core/engine_contention.c"), re.S)
rows = re.findall(r"\[FENNEL_CONTENTION_(\w+)\] = \{\.level = FENNEL_CONTENTION_(\w+)",
                  rows.group(1)) if rows else []
check("src/core/engine_contention.c has a row per level, in the enum's order",
      [r[0] for r in rows] == enum and all(r[0] == r[1] for r in rows), rows)
incast = read("tests/cli/test_topology.py")
for level in levels:
    check(f"contention level {level}: a case in test_topology.py's hand-timed incast",
          re.search(r'\("' + re.escape(level) + r'", \d+\)', incast) is not None, level)

# ---- Generators ----
registry = read("schedules/registry.c")
listed = re.search(r"fennel_generators\[\] = \{(.*?)\};", registry, re.S)
generators = re.findall(r"&fennel_gen_(\w+)", listed.group(1)) if listed else []
defined = set()
for path in glob.glob(os.path.join(ROOT, "schedules", "gen_*.c")):
    defined |= set(re.findall(r"^const FennelGenerator fennel_gen_(\w+)",
                              open(path, encoding="utf-8").read(), re.M))
check("every generator of the registry is defined in a schedules/gen_*.c",
      generators and set(generators) <= defined, set(generators) - defined)
shown = set(list_section(listing, "generators"))
check("fennel list shows as many generators as the registry lists",
      len(shown) == len(generators), f"{len(shown)} shown, {len(generators)} listed")

# ---- HACKING.md's checklists ----
hacking = read("HACKING.md")
for title in ["Adding a command", "Adding a generator", "Adding a model", "Adding a model key",
              "Adding a format", "Adding a contention level", "Adding an output"]:
    start = hacking.find(f"## {title}\n")
    check(f"HACKING.md has '{title}'", start >= 0, title)
    if start < 0:
        continue
    end = hacking.find("\n## ", start + 1)
    text = hacking[start:end if end > 0 else len(hacking)]
    missing = []
    for path in re.findall(r"`((?:src|programs|schedules|models|viz|tests|docs|completions)"
                           r"/[A-Za-z0-9_./*-]*)`", text):
        # NAME is the new entry's: its folder must exist.
        probe = path.split("NAME")[0] if "NAME" in path else path
        probe = probe.split("*")[0]
        if not glob.glob(os.path.join(ROOT, probe) + "*"):
            missing.append(path)
    check(f"every place '{title}' names exists", not missing, missing)

finish()
