#!/usr/bin/env python3
"""Every error message is one line of valid UTF-8 (docs/RELIABILITY.md, Messages): control
characters and invalid bytes in echoed input are escaped (\\n, \\t, \\xNN) and echoed input is
cut after 1000 characters with an ellipsis.

Usage: test_messages.py FENNEL SOURCE_ROOT. Prints TAP.
"""
import os
import subprocess
import tempfile

from harness import FENNEL, ROOT, check, finish


def run(*args):
    p = subprocess.run([FENNEL, *args], cwd=ROOT, capture_output=True)
    return p.returncode, p.stdout, p.stderr


def one_clean_line(err):
    try:
        text = err.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return text.endswith("\n") and text.count("\n") == 1 and \
        not any(ord(c) < 0x20 and c != "\n" for c in text)


with tempfile.TemporaryDirectory() as tmp:
    # A CSV header with ESC and BEL (a terminal title sequence) echoed by plot.
    csv = os.path.join(tmp, "evil.csv")
    with open(csv, "wb") as f:
        f.write(b"a\x1b]0;evil\x07,b\n1,2\n")
    code, out, err = run("plot", csv, "-x", "nope", "-y", "b", "-o", os.path.join(tmp, "p.svg"))
    check("plot: a header's control characters are escaped",
          code == 2 and one_clean_line(err) and b"a\\x1b]0;evil\\x07, b" in err, err)

    # A file name with a newline.
    name = os.path.join(tmp, "bad\nname.yaml")
    code, out, err = run("run", name)
    check("a file name's newline is written \\n", code == 1 and one_clean_line(err) and
          err.endswith(b"bad\\nname.yaml: cannot read: no such file or directory\n"), err)

    # Invalid UTF-8 in a file name.
    code, out, err = run("run", os.path.join(tmp, b"x\xffy.yaml".decode("utf-8",
                                                                      "surrogateescape")))
    check("a file name's invalid byte is written \\xff", code == 1 and one_clean_line(err) and
          b"x\\xffy.yaml: cannot read" in err, err)

    # A 5000-character unknown generator: cut after 1000 characters with an ellipsis.
    code, out, err = run("run", "--generate", "g" * 5000)
    text = err.decode("utf-8", "replace")
    check("echoed input is cut at 1000 characters with an ellipsis",
          code == 2 and one_clean_line(err) and len(text) == len("fennel: ") + 1000 + 1 + 1
          and text.rstrip("\n").endswith("\u2026"), len(text))

    # The system's reasons are lower case, as every message.
    code, out, err = run("sweep", "--generate", "allreduce-rd", "--ranks", "2", "--model",
                         "postal-unit", "-o", tmp)
    check("sweep: an output that is a directory, in lower case",
          code == 1 and err == f"fennel: {tmp}: cannot write: is a directory\n".encode(), err)

finish()
