#!/usr/bin/env python3
"""Several jobs on one machine (docs/TOPOLOGY.md, Several jobs): `fennel run --jobs`.

Every expected time is derived by hand in the comment above its check.

The machine (tests/data/jobs/fat-tree-4.model.yaml): a two-level fat tree of radix 4, so 8
nodes, leaf i holding nodes 2i and 2i + 1, and with oversubscription 2 a single up-link per
leaf; every link 100 ns and 10 GB/s; contention links; postal. The program of every file job
(put.yaml) is one put of 100000 B from rank 0 to rank 1: 10000 ns on a link. Within a leaf
its route is 2 links (node up, node down): 200 + 10000 = 10200 ns alone; between leaves 4
(node, leaf up, spine down, node): 400 + 10000 = 10400 ns alone.

Usage: test_jobs.py FENNEL SOURCE_ROOT. Prints TAP.
"""
import json

from harness import check, expect_error, fennel, finish, run_json

DATA = "tests/data/jobs"
MODEL = ["--model", f"{DATA}/fat-tree-4.model.yaml"]


def jobs(name, *extra, model=MODEL):
    out = run_json("--jobs", f"{DATA}/{name}.jobs.yaml", *model, *extra)
    if "jobs" not in out:
        return out, {}
    return out, {j["name"]: j for j in out["jobs"]}


def times(job):
    return job.get("nodes"), job.get("alone_ns"), job.get("together_ns")


# ---- one shared link ----
#
# a on nodes [0, 2], b on [1, 3]: both puts leave leaf 0 for leaf 1 through its single
# up-link. Alone each takes 10400 ns. Together both heads reach the up-link at 100 ns; a
# (first in the file, so first in program order) takes it until 100 + 10000 = 10100 ns, and
# b starts there then and arrives at 10100 + 10000 + 3 x 100 = 20400 ns: a slowdown of
# 20400 / 10400 = 1.9615...
out, j = jobs("shared")
check("shared: a alone and together 10400 ns", times(j.get("a", {})) == ([0, 2], 10400, 10400), out)
check("shared: b waits a's transfer: 20400 ns", times(j.get("b", {})) == ([1, 3], 10400, 20400), out)
check("shared: slowdown 1.962", abs(j.get("b", {}).get("slowdown", 0) - 20400 / 10400) < 1e-6, out)
check("shared: the machine has 8 nodes, makespan 20400 ns",
      out.get("nodes") == 8 and out.get("makespan_ns") == 20400, out)

# The table: its figures are those of the JSON object.
code, text, err = fennel("run", "--jobs", f"{DATA}/shared.jobs.yaml", *MODEL)
check("shared: the text table", code == 0 and text == (
    "jobs: 2 on a machine of 8 nodes, makespan 20400 ns\n"
    "job  ranks  nodes  start_ns  alone_ns  together_ns  slowdown\n"
    "a        2    0,2         0     10400        10400     1.000\n"
    "b        2    1,3         0     10400        20400     1.962\n"
    "delay_ns: what the column's job costs the row's, the two alone\n"
    f"{'job':<5}  {'a':>5}  {'b':>5}\n"
    f"{'a':<5}  {'-':>5}  {'0':>5}\n"
    f"{'b':<5}  {'10000':>5}  {'-':>5}\n"
    "link_wait_ns: what the job waited on the link for the job by's messages, together\n"
    "job  by  link  from   to      wait_ns\n"
    "b    a     16  leaf0  spine0    10000\n"), text + err)

# Attribution by pairs: with only a beside it, b loses 20400 - 10400 = 10000 ns; a loses
# nothing to b.
check("shared: a delays b by 10000 ns, b delays a by 0",
      j.get("b", {}).get("delayed_by_ns") == {"a": 10000}
      and j.get("a", {}).get("delayed_by_ns") == {"b": 0}, out)

# Attribution by links, together: b's head waited at leaf 0's up-link (leaf0 -> spine0,
# link 16: the 8 nodes' 16 links come first) from 100 ns to 10100 ns, while a's put held
# it: 10000 ns. On spine0 -> leaf1 b's head arrives at 10100 + 100 = 10200 ns, when a's
# transfer there (200 to 10200 ns) is over: no wait. a waited for nothing.
check("shared: b waited 10000 ns on leaf0 -> spine0 for a",
      j.get("b", {}).get("link_waits") == [
          {"by": "a", "link": 16, "from": "leaf0", "to": "spine0", "wait_ns": 10000}]
      and j.get("a", {}).get("link_waits") == [], out)

# ---- a start offset ----
#
# b starts 5 us later: its put leaves node 1 at 5000 ns and reaches the up-link at 5100 ns,
# which a holds until 10100 ns; b then arrives at 20400 ns as before, 15400 ns after its
# start. Alone it takes 10400 ns from its start. a is unchanged.
out, j = jobs("offset")
check("offset: b 15400 ns from its start", times(j.get("b", {})) == ([1, 3], 10400, 15400)
      and j["b"].get("start_ns") == 5000, out)
check("offset: a delays b by 15400 - 10400 = 5000 ns",
      j.get("b", {}).get("delayed_by_ns") == {"a": 5000}, out)
check("offset: a unchanged", times(j.get("a", {})) == ([0, 2], 10400, 10400), out)
# b's head reaches the up-link at 5100 ns, a holds it until 10100 ns: 5000 ns there.
check("offset: b waited 5000 ns on leaf0 -> spine0 for a",
      [(w["by"], w["from"], w["to"], w["wait_ns"]) for w in j.get("b", {}).get("link_waits", [])]
      == [("a", "leaf0", "spine0", 5000)], out)

# ---- a wait through two jobs' transfers ----
#
# fat-tree-8.model.yaml: radix 8 and oversubscription 4, so 4 nodes and a single up-link
# per leaf. a (0 -> 4) and b (1 -> 5) start at 0, c (2 -> 6) at 5 us; all three cross leaf
# 0's up-link, whose heads arrive at 100, 100 and 5100 ns. a holds it 100-10100 ns; b waits
# 10000 ns (for a) and holds it 10100-20100 ns; c waits from 5100 to 20100 ns, 15000 ns, of
# which 10100 - 5100 = 5000 ns for a's transfer and 10000 ns for b's. On spine0 -> leaf1 the
# heads arrive 100 ns after they left the up-link's start (200, 10200, 20200 ns), each as the
# one before has finished there: no wait. c together: 20100 + 10000 + 3 x 100 = 30400 ns, 25400
# ns from its start; alone 10400 ns.
out, j = jobs("queue3", model=["--model", f"{DATA}/fat-tree-8.model.yaml"])
waits = {(n, w["by"], w["from"], w["to"]): w["wait_ns"] for n, job in j.items()
         for w in job.get("link_waits", [])}
check("queue of three: b 10000 ns for a; c 5000 ns for a and 10000 ns for b, on leaf0 -> spine0",
      waits == {("b", "a", "leaf0", "spine0"): 10000, ("c", "a", "leaf0", "spine0"): 5000,
                ("c", "b", "leaf0", "spine0"): 10000}, out)
check("queue of three: c 25400 ns together", times(j.get("c", {})) == ([2, 6], 10400, 25400), out)

# Under fair the links are shared by rates, not waits: no table of link waits (the pairs'
# delays remain). Under endpoint only a node's own ports are shared, and no two jobs share a
# node: the table is there and empty.
out, j = jobs("shared", "--set", "contention=fair")
check("fair: no link_waits", "link_waits" not in j.get("b", {"link_waits": 1})
      and j["b"].get("delayed_by_ns") == {"a": 10000}, out)
out, j = jobs("shared", "--set", "contention=endpoint")
check("endpoint: no job waits for another on a link",
      j.get("a", {}).get("link_waits") == [] and j.get("b", {}).get("link_waits") == [], out)
code, text, err = fennel("run", "--jobs", f"{DATA}/shared.jobs.yaml", *MODEL, "--set",
                         "contention=endpoint")
check("endpoint: the text says none", code == 0 and text.endswith(
    "link_wait_ns: none (no job's message waited on a link for another job's)\n"), text + err)

# ---- placements ----
#
# contiguous (given for a, the default for b): a takes nodes 0-1 (leaf 0), b the next two
# free in a row, 2-3 (leaf 1): each put stays in its leaf, 10200 ns, and they share nothing.
out, j = jobs("contiguous")
check("contiguous: a on 0-1, 10200 ns", times(j.get("a", {})) == ([0, 1], 10200, 10200), out)
check("contiguous: b on 2-3, 10200 ns", times(j.get("b", {})) == ([2, 3], 10200, 10200), out)

# spread: a takes the free nodes at 0 x 8 / 2 and 1 x 8 / 2, nodes 0 and 4; b the free nodes
# (1, 2, 3, 5, 6, 7) at 0 and 1 x 6 / 2 = 3, nodes 1 and 5. Both go from leaf 0 to leaf 2
# through leaf 0's up-link: 10400 and 20400 ns, as in the shared case.
out, j = jobs("spread")
check("spread: a on 0 and 4", times(j.get("a", {})) == ([0, 4], 10400, 10400), out)
check("spread: b on 1 and 5, waits for a", times(j.get("b", {})) == ([1, 5], 10400, 20400), out)

# A list is placed before the jobs without one: b takes [1, 2], then a (contiguous) the first
# two free nodes in a row, 3-4. a crosses leaf 1's up-link (3 -> 4), b leaf 0's (1 -> 2):
# nothing shared, 10400 ns each.
out, j = jobs("lists-first")
check("lists first: b on 1-2", times(j.get("b", {})) == ([1, 2], 10400, 10400), out)
check("lists first: a on 3-4", times(j.get("a", {})) == ([3, 4], 10400, 10400), out)

# Three jobs: a on 0, 4 and b on 1, 5 as in the spread case; c (contiguous) on the first
# free pair in a row, 2-3, within leaf 1, where neither a nor b goes: c delays neither and
# neither delays it, while a costs b 10000 ns as before.
out, j = jobs("spread3")
check("three jobs: c on 2-3 costs a and b nothing, b loses 10000 ns to a",
      j.get("a", {}).get("delayed_by_ns") == {"b": 0, "c": 0}
      and j.get("b", {}).get("delayed_by_ns") == {"a": 10000, "c": 0}
      and j.get("c", {}).get("delayed_by_ns") == {"a": 0, "b": 0}
      and times(j.get("c", {})) == ([2, 3], 10200, 10200), out)

# random: three jobs of 2 nodes each drawn from the free nodes by the seed. Whatever is drawn,
# the nodes are distinct, and each job alone takes 10200 ns when its two nodes share a leaf
# (n // 2 equal), 10400 ns otherwise; the same seed draws the same nodes.
for seed in ("0", "1", "7"):
    out, j = jobs("random", "--seed", seed)
    nodes = [n for job in j.values() for n in job["nodes"]]
    check(f"random seed {seed}: 6 distinct nodes of 0-7",
          len(j) == 3 and len(set(nodes)) == 6 and all(0 <= n < 8 for n in nodes), out)
    check(f"random seed {seed}: times alone follow the leaves",
          all(job["alone_ns"] == (10200 if job["nodes"][0] // 2 == job["nodes"][1] // 2 else 10400)
              and job["together_ns"] >= job["alone_ns"] for job in j.values()), out)
    again, _ = jobs("random", "--seed", seed)
    check(f"random seed {seed}: the same nodes again", again == out, again)
draws = {tuple(tuple(job["nodes"]) for job in jobs("random", "--seed", str(s))[1].values())
         for s in range(8)}
check("random: eight seeds do not all draw the same nodes", len(draws) > 1, draws)

# A generator job on nodes 0-1 (leaf 0): the ring allreduce of 2 ranks and 100000 B is two
# steps, each a put of 50000 B each way within the leaf (200 + 5000 ns, the two directions on
# different links; postal without a compute model reduces in no time): 10400 ns, as `run
# --generate` runs it on the machine's first nodes. The file job takes 2-3 and stays in
# leaf 1: 10200 ns. They share no link: neither is slowed.
out, j = jobs("generated")
_, plain, _ = fennel("run", "--json", "--generate", "allreduce-ring", "--ranks", "2", "--size",
                     "100000", *MODEL)
plain_ns = json.loads(plain).get("makespan_ns") if plain.startswith("{") else None
g = j.get("gen", {})
check("generated: alone as run --generate, not slowed",
      g.get("alone_ns") == plain_ns == 10400 and g.get("together_ns") == 10400, (out, plain))
check("generated: the file job on 2-3, 10200 ns",
      times(j.get("file", {})) == ([2, 3], 10200, 10200), out)

# ---- errors ----
F = f"{DATA}/"
expect_error("unknown key", ["run", "--jobs", F + "bad-unknown-key.jobs.yaml", *MODEL], 1,
             F + "bad-unknown-key.jobs.yaml:2:34: job: unknown key 'colour' (expected name, "
             "program, generate and its options such as ranks and size, start, placement)")
expect_error("overlapping lists", ["run", "--jobs", F + "bad-overlap.jobs.yaml", *MODEL], 1,
             F + "bad-overlap.jobs.yaml:3:49: placement: node 2 is taken by job 'a'")
# 8 ranks need 8 nodes; a has taken 2 of the 8.
expect_error("more ranks than free nodes", ["run", "--jobs", F + "bad-too-many.jobs.yaml", *MODEL],
             1, F + "bad-too-many.jobs.yaml:3:5: job 'big' needs 8 nodes, 6 of the machine's 8 "
             "are free")
expect_error("a node off the machine", ["run", "--jobs", F + "bad-off-machine.jobs.yaml", *MODEL],
             1, F + "bad-off-machine.jobs.yaml:2:49: placement: node 8 is not on the machine "
             "(nodes 0-7)")
expect_error("a list of the wrong length", ["run", "--jobs", F + "bad-list-length.jobs.yaml",
                                            *MODEL], 1,
             F + "bad-list-length.jobs.yaml:2:46: placement: job 'a' needs 2 nodes, the list "
             "names 1")
expect_error("program and generate", ["run", "--jobs", F + "bad-both.jobs.yaml", *MODEL], 1,
             F + "bad-both.jobs.yaml:2:5: job: give a program file (program) or a generator "
             "(generate), one of them")
expect_error("a generator option beside a program", ["run", "--jobs", F + "bad-option.jobs.yaml",
                                                     *MODEL], 1,
             F + "bad-option.jobs.yaml:2:34: ranks: a generator option, but the job runs a "
             "program file")
expect_error("an unknown top key", ["run", "--jobs", F + "bad-top-key.jobs.yaml", *MODEL], 1,
             F + "bad-top-key.jobs.yaml:1:1: unknown key 'job' (expected jobs)")
expect_error("an unknown placement", ["run", "--jobs", F + "bad-placement.jobs.yaml", *MODEL], 1,
             F + "bad-placement.jobs.yaml:2:45: placement: expected contiguous, random, spread "
             "or a list of nodes such as [0, 4], got 'packed'")
expect_error("a bad start", ["run", "--jobs", F + "bad-start.jobs.yaml", *MODEL], 1,
             F + "bad-start.jobs.yaml:2:41: start: expected a duration such as 10us, got 'soon' "
             "(expected a number)")
expect_error("jobs and program files", ["run", "--jobs", F + "shared.jobs.yaml", *MODEL,
                                        F + "put.yaml"], 2,
             "run: --jobs takes its programs from the jobs file: no program files, --generate, "
             "--together, --stream, --repeat or outputs of a single run")
# The usual message for a run without a model (its list of presets is checked elsewhere).
code, text, err = fennel("run", "--jobs", F + "shared.jobs.yaml")
check("jobs without a model", code == 2 and text == "" and err.startswith("fennel: run: no model:")
      and err.count("\n") == 1, err)
finish()
