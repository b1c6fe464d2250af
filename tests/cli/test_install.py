#!/usr/bin/env python3
"""`meson install` into a scratch DESTDIR: it installs fennel, its man page (when scdoc
was found) and its bash completion, and they work: the installed program prints its
version, the man page is a manual page for fennel(1), and the completion completes
subcommands and generator names.

Usage: test_install.py FENNEL SOURCE_ROOT BUILD_ROOT MAN_PAGE(yes|no). Prints TAP.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

FENNEL, ROOT, BUILD = (os.path.abspath(a) for a in sys.argv[1:4])
MAN_PAGE = sys.argv[4] == "yes"
results = []


def check(name, cond, diag="", skip=None):
    results.append((name, bool(cond), diag, skip))


def find(top, suffix):
    for directory, _, files in os.walk(top):
        for name in files:
            path = os.path.join(directory, name)
            if path.endswith(suffix):
                return path
    return None


# The version fennel reports is the project's, from meson.build.
with open(os.path.join(ROOT, "meson.build"), encoding="utf-8") as f:
    version = re.search(r"version\s*:\s*'([^']+)'", f.read()).group(1)

with tempfile.TemporaryDirectory() as dest:
    meson = shutil.which("meson")
    p = subprocess.run([meson or "meson", "install", "-C", BUILD, "--destdir", dest,
                        "--no-rebuild", "--quiet"], capture_output=True, text=True, timeout=300)
    check("meson install into a DESTDIR succeeds", p.returncode == 0, p.stdout + p.stderr)

    binary = find(dest, "/bin/fennel")
    check("fennel is installed in bin/", binary is not None)
    if binary:
        v = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=30)
        check("the installed fennel prints its version",
              v.returncode == 0 and v.stdout == f"fennel {version}\n", repr(v.stdout))

    man = find(dest, "/man1/fennel.1")
    skip = None if MAN_PAGE else "scdoc was not found, so no man page was built"
    text = ""
    if man:
        with open(man, encoding="utf-8") as f:
            text = f.read()
    check("the man page is installed in man1/", man is not None, skip=skip)
    check("the man page is roff for fennel(1) with its sections",
          re.search(r'^\.TH "?fennel"? "?1"?', text, re.M) and all(
              s in text for s in ("NAME", "SYNOPSIS", "COMMANDS", "EXIT STATUS")),
          text[:200], skip=skip)

    # Every preset of the source tree is installed, for `--model NAME`.
    presets = sorted(n for n in os.listdir(os.path.join(ROOT, "models", "presets"))
                     if n.endswith(".yaml"))
    installed = [find(dest, "/fennel/presets/" + n) for n in presets]
    check("every preset is installed under share/fennel/presets",
          presets and all(installed), list(zip(presets, installed)))

    completion = find(dest, "/bash-completion/completions/fennel")
    check("the bash completion is installed", completion is not None)
    bash = shutil.which("bash")
    if completion and binary and bash:
        # Complete "fennel ru", "fennel run --generate allreduce-r" and "fennel run --js"
        # with the installed fennel first on PATH, as a shell would.
        script = f"""
source {completion!r}
complete_words() {{
    COMP_WORDS=("$@"); COMP_CWORD=$((${{#COMP_WORDS[@]}} - 1)); COMPREPLY=()
    _fennel; echo "${{COMPREPLY[*]}}"
}}
complete_words fennel ru
complete_words fennel run --generate allreduce-r
complete_words fennel run --js
complete_words fennel generate bcast-b
"""
        env = dict(os.environ, PATH=os.path.dirname(binary) + os.pathsep + os.environ["PATH"])
        c = subprocess.run([bash, "--norc", "-c", script], capture_output=True, text=True,
                           env=env, timeout=60)
        lines = c.stdout.splitlines() + ["", "", "", ""]
        check("completion of a subcommand", lines[0] == "run", repr(lines[0]))
        # docs/SCHEDULES.md names the recursive doubling and multiplying, Rabenseifner and ring
        # AllReduce generators.
        names = set(lines[1].split())
        check("completion of generator names after --generate",
              {"allreduce-rd", "allreduce-rm", "allreduce-rabenseifner",
               "allreduce-ring"} <= names and all(n.startswith("allreduce-r") for n in names),
              repr(lines[1]))
        check("completion of a subcommand's options", lines[2] == "--json", repr(lines[2]))
        names = set(lines[3].split())
        check("completion of the generate command's argument",
              {"bcast-binomial", "bcast-binary"} <= names and
              all(n.startswith("bcast-b") for n in names), repr(lines[3]))

print(f"1..{len(results)}")
for i, (name, ok, diag, skip) in enumerate(results, 1):
    if skip:
        print(f"ok {i} - {name} # SKIP {skip}")
        continue
    print(f"{'ok' if ok else 'not ok'} {i} - {name}")
    if not ok:
        print(f"# {diag}")
