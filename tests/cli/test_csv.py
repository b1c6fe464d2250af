#!/usr/bin/env python3
"""CLI tests of the CSV task-list writer (`fennel generate -f csv`, docs/FORMATS.md, Task lists
as CSV).

Usage: test_csv.py FENNEL SOURCE_ROOT. Prints TAP.

Every expected row is derived by hand from the input file and the columns' rules in
docs/FORMATS.md, never taken from fennel's output.
"""
import csv
import io
import os
import tempfile

from harness import ROOT, check, fennel, finish

DATA = os.path.join(ROOT, "tests", "data", "csv")
HEADER = "task,rank,type,peer,bytes,ns,tag,after,after_start"

# tests/data/csv/tasks.yaml, row by row. A YAML program keeps the file's task order, so the
# task numbers are the file's lines 0..9 (s0 s1 p0 c1 r1 x0 z0 g1 d0 q0).
# - s0: a start without skew: ns 0. s1: skew 400ns: ns 400.
# - p0: put to 1 of 8B: peer 1, bytes 8, after s0 = 0.
# - c1: a sized compute of 8B: bytes 8 and no ns; after s1 and p0 = 1 2.
# - r1: recv from any of 4B, tag any: peer any, bytes 4, tag any; after c1 = 3.
# - x0: send to 1 of 4B, tag 3: after p0 = 2.
# - z0: sleep 1.5us = 1500 ns; after x0 = 5.
# - g1: get from 0 of 16B: peer 0, bytes 16; after r1 = 4.
# - d0: compute of 250ps = 0.25 ns; after z0 = 6.
# - q0: a proxy has no fields; after d0 and z0, listed in ascending order: 6 8.
# No task has a start dependency: after_start is empty everywhere.
EXPECTED = [
    "0,0,start,,,0,,,",
    "1,1,start,,,400,,,",
    "2,0,put,1,8,,,0,",
    "3,1,compute,,8,,,1 2,",
    "4,1,recv,any,4,,any,3,",
    "5,0,send,1,4,,3,2,",
    "6,0,sleep,,,1500,,5,",
    "7,1,get,0,16,,,4,",
    "8,0,compute,,,0.25,,6,",
    "9,0,proxy,,,,,6 8,",
]

source = os.path.join(DATA, "tasks.yaml")
code, out, err = fennel("generate", "--from", source, "-f", "csv")
lines = out.split("\n")
check("generate -f csv: exit 0, nothing on stderr", code == 0 and err == "", err)
check("the first line is the command line as a comment",
      lines[0] == f"# fennel generate --from {source} -f csv", lines[:1])
check("then the header", lines[1:2] == [HEADER], lines[1:2])
check("then one row per task in program order, as derived by hand",
      lines[2:] == EXPECTED + [""], "\n".join(lines[2:]))

# The same through a CSV reader that skips comment lines: nine columns on every row.
rows = list(csv.reader(line for line in io.StringIO(out) if not line.startswith("#")))
check("every row has the header's nine columns",
      len(rows) == 11 and all(len(r) == 9 for r in rows), rows)

# -o FILE: the same bytes, written atomically.
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "tasks.csv")
    code, out_file, err = fennel("generate", "--from", source, "-f", "csv", "-o", path)
    with open(path, encoding="utf-8") as f:
        written = f.read()
    check("-o FILE: exit 0 and the same rows as standard output",
          code == 0 and out_file == "" and written.split("\n")[1:] == lines[1:], written)

# Start dependencies: in tests/data/goal/irequires-cpu.goal rank 0's `calc 5000` may start
# once its `send 4096b to 1` has started (`l2 irequires l1`) and has no other predecessor.
# The GOAL reader numbers tasks step by step, so the rows are found by what they hold: the
# compute's after is empty and its after_start is the send's task number; no other task
# has a start dependency.
code, out, err = fennel("generate", "--from", os.path.join(ROOT, "tests", "data", "goal",
                                                          "irequires-cpu.goal"), "-f", "csv")
rows = list(csv.DictReader(line for line in io.StringIO(out) if not line.startswith("#")))
send = [r for r in rows if r["rank"] == "0" and r["type"] == "send" and r["bytes"] == "4096"]
calc = [r for r in rows if r["rank"] == "0" and r["type"] == "compute" and r["ns"] == "5000"]
check("a GOAL start dependency is in after_start, not after",
      code == 0 and len(send) == 1 and len(calc) == 1 and calc[0]["after"] == "" and
      calc[0]["after_start"] == send[0]["task"] and
      sum(1 for r in rows if r["after_start"]) == 1, out + err)

# A generated program: `send` is "one put from rank 0 to rank 1" (fennel list) of --size
# bytes: one put row, on rank 0, to peer 1, of 1024 bytes.
code, out, err = fennel("generate", "send", "--size", "1KiB", "-f", "csv")
rows = list(csv.DictReader(line for line in io.StringIO(out) if not line.startswith("#")))
check("a generator's program: its one put",
      code == 0 and [(r["rank"], r["peer"], r["bytes"]) for r in rows if r["type"] == "put"] ==
      [("0", "1", "1024")], out + err)

code, out, err = fennel("list")
check("fennel list shows the writer", "\n  csv          write        the tasks as CSV" in out, out)

finish()
