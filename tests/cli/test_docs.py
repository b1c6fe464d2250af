#!/usr/bin/env python3
"""The documentation names only commands and options that exist: every `fennel COMMAND`
command line in the README and docs/*.md uses options that `fennel COMMAND --help` lists,
and every option the man page names is an option of some command.

Usage: test_docs.py FENNEL SOURCE_ROOT. Prints TAP.
"""
import glob
import os
import re

from harness import ROOT, check, fennel, finish

code, out, _ = fennel("--help")
commands = []
for line in out.splitlines():
    m = re.match(r"  ([a-z]+) ", line)
    if m:
        commands.append(m.group(1))
check("fennel --help lists commands", code == 0 and commands, out)

options = {}
for command in commands:
    code, out, err = fennel(command, "--help")
    options[command] = set(re.findall(r"(--[a-z][a-z0-9-]*)", out)) | {"--help"}
    check(f"fennel {command} --help works", code == 0 and options[command], err)
every_option = set().union(*options.values()) if options else set()


def command_lines(text):
    """The fennel command lines of a Markdown text: each `fennel CMD ...` with its
    backslash-continued lines, from code blocks and inline code."""
    joined = re.sub(r"\\\n\s*", " ", text)
    for m in re.finditer(r"(?:build/)?\bfennel ([a-z]+)((?: [^`\n|]*)?)", joined):
        yield m.group(1), m.group(2)


unknown = []
for path in [os.path.join(ROOT, "README.md"), os.path.join(ROOT, "HACKING.md")] + \
        sorted(glob.glob(os.path.join(ROOT, "docs", "*.md"))):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    name = os.path.relpath(path, ROOT)
    for command, rest in command_lines(text):
        if command not in options:
            # Prose such as "fennel is a ..." or "fennel reads ...": only words that look
            # like a command line (followed by an option or an argument) count.
            if re.match(r"\s+(--|[A-Za-z0-9_./-]+\.(yaml|goal|csv))", rest or ""):
                unknown.append(f"{name}: unknown command '{command}'")
            continue
        for option in re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", rest):
            if option not in options[command]:
                unknown.append(f"{name}: fennel {command} has no option {option}")
check("the README and docs/*.md use only existing commands and options", not unknown,
      "\n".join(sorted(set(unknown))))

with open(os.path.join(ROOT, "docs", "fennel.1.scd"), encoding="utf-8") as f:
    man = f.read()
named = set(re.findall(r"\*(--[a-z][a-z0-9-]*)", man))
missing = sorted(o for o in named if o not in every_option and o != "--version")
check("every option of the man page exists", named and not missing, missing)

finish()
