#!/usr/bin/env python3
"""The training-step generator (docs/TRAINING.md): times derived by hand there, under postal
(alpha 100 ns, beta 0.1 ns/B: a message of n bytes takes 100 + 0.1 n ns), forward 1 us and
backward 2 us per layer; bad shapes refused with one line.

Usage: test_training.py FENNEL SOURCE_ROOT. Prints TAP.
"""
import csv
import os
import tempfile

from harness import check, expect_error, fennel, finish, run_json

POSTAL = ["--network", "postal", "--set", "alpha=100ns", "--set", "beta=0.1ns/B"]


def step(parallel, size="0", *extra):
    out = run_json("--generate", "training", "--parallel", parallel, "--size", size, *POSTAL,
                   *extra)
    return out.get("makespan_ns", out), out


# Pipeline of 2 stages, 2 micro-batches: stage 0 forward 0-1000 and 1000-2000 (puts of
# 1000 B, 200 ns, arrive 1200 and 2200); stage 1 forward 1200-2200, 2200-3200, backward
# 3200-5200, 5200-7200 (puts arrive 5400, 7400); stage 0 backward 5400-7400, 7400-9400.
got, out = step("dp=1,tp=1,pp=2,layers=2,micro-batches=2,activation=1000,forward=1us")
check("GPipe, 2 stages, 2 micro-batches: 9400 ns", got == 9400, out)
check("GPipe: 4 pipeline puts of 1000 B", out.get("messages") == 4, out)

# Tensor and data parallel: a 2-rank ring allreduce of n bytes is 2 puts of n/2, 300 ns for
# 1000 B. Forward 0-1000, +300, 1300-2300, +300; backward 2600-4600, then the tensor
# allreduce (slot 1) and the gradient allreduce (slot 2) side by side to 4900; 4900-6900,
# both again to 7200.
shape = "dp=2,tp=2,pp=1,layers=2,activation=1000,forward=1us"
got, out = step(shape + ",bucket=1000", "1000")
check("gradients overlap the backward pass, one bucket a layer: 7200 ns", got == 7200, out)
# One bucket of 2000 B, after the last layer's backward (6900): 2 puts of 1000 B, 400 ns.
got, out = step(shape + ",bucket=2000", "1000")
check("one bucket of both layers: 7300 ns", got == 7300, out)
# The same step without gradients ends with the last tensor allreduce, at 7200 ns too; its
# messages: 4 tensor allreduces (2 layers, forward and backward) x 2 groups x 2 ranks x 2
# puts = 32 puts of 500 B.
got, out = step(shape, "0")
check("no gradients: 7200 ns, 32 puts of 500 B",
      got == 7200 and out.get("messages") == 32 and out.get("bytes") == 16000, out)

# Expert parallel, dp=4, ep=2, one layer: each all-to-all is one put of 500 B (150 ns) per
# rank; forward 0-1000, dispatch and combine to 1300; backward 1300-3300, again to 3600.
got, out = step("dp=4,ep=2,activation=1000,forward=1us")
check("expert all-to-alls: 3600 ns, 16 puts of 500 B",
      got == 3600 and out.get("messages") == 16 and out.get("bytes") == 8000, out)

# Tensor parallel over 4 ranks with no compute: two ring allreduces of 1000 B, each 6 steps
# of 250 B (125 ns): 1500 ns; by recursive doubling instead, 2 steps of 1000 B (200 ns)
# each: 800 ns.
got, out = step("tp=4,activation=1000")
check("tensor ring allreduces: 1500 ns", got == 1500, out)
got, out = step("tp=4,activation=1000,tp-allreduce=allreduce-rd")
check("tp-allreduce=allreduce-rd: 800 ns", got == 800, out)

# --ranks, when given, is dp x tp x pp.
got, out = step("dp=2,tp=2,pp=2", "0", "--ranks", "8")
check("--ranks 8 = 2 x 2 x 2", out.get("ranks") == 8, out)

for spec, message in [
        ("dp=3,ep=2", "training --parallel dp 3 x tp 1 x pp 1: ep must divide dp (expert "
                      "groups are made of data replicas)"),
        ("dp=0", "training --parallel dp=0: expected a whole number >= 1"),
        ("xx=1", "training --parallel xx=1: unknown key (known: dp, tp, pp, ep, layers, "
                 "micro-batches, activation, forward, backward, bucket, tp-allreduce, "
                 "dp-allreduce, ep-alltoall)"),
        ("dp", "training --parallel dp: expected KEY=VALUE"),
        ("tp=2,tp-allreduce=bcast-binomial",
         "training --parallel tp-allreduce=bcast-binomial: the generator does not perform an "
         "allreduce"),
        ("ep-alltoall=allreduce-ring",
         "training --parallel ep-alltoall=allreduce-ring: the generator does not perform an "
         "all-to-all"),
        ("dp-allreduce=nope", "training --parallel dp-allreduce=nope: no generator of that name "
                              "('fennel list' names them)"),
        ("pp=4,layers=2", "training --parallel dp 1 x tp 1 x pp 4: needs at least one layer per "
                          "pipeline stage"),
        ("bucket=0", "training --parallel bucket=0: a bucket needs at least 1 byte"),
        ("forward=-1us", "training --parallel forward=-1us: "),
        ("dp=65536,tp=65536", "training --parallel dp 65536 x tp 65536 x pp 1: more ranks than "
                              "fennel numbers")]:
    code, out, err = fennel("run", "--generate", "training", "--parallel", spec, *POSTAL)
    check(f"refused: {spec}", code == 1 and out == "" and err.startswith("fennel: " + message)
          and err.count("\n") == 1, (code, err))
expect_error("--ranks other than dp x tp x pp",
             ["run", "--generate", "training", "--parallel", "dp=2", "--ranks", "3", *POSTAL], 1,
             "training --parallel dp 2 x tp 1 x pp 1: gives another rank count than --ranks")
expect_error("other generators do not take --parallel",
             ["run", "--generate", "allreduce-ring", "--parallel", "dp=2", *POSTAL], 2,
             "generator allreduce-ring does not use --parallel (it uses: --ranks, --size)")

# The step is counted before it is built: one beyond --max-tasks is refused at once. This
# one has more than 20 tasks: 8 starts and 16 computes (one layer forward and backward on 8
# ranks) before any collective.
code, out, err = fennel("run", "--generate", "training", "--parallel", "dp=4,tp=2,activation=1KiB",
                        "--max-tasks", "20", *POSTAL)
check("a step beyond --max-tasks is refused", code == 1 and err.startswith("fennel: ") and
      "more than --max-tasks 20" in err and err.count("\n") == 1, (code, err))

# A sweep lists shapes with ';' and names them in a `parallel` column.
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "s.csv")
    code, out, err = fennel("sweep", "--generate", "training", "--parallel",
                            "dp=1,pp=2,layers=2,micro-batches=2,activation=1000,forward=1us;"
                            "dp=4,ep=2,activation=1000,forward=1us", "--size", "0", *POSTAL,
                            "-o", path)
    rows = list(csv.DictReader(open(path))) if code == 0 else []
    check("sweep over two shapes: 9400 and 3600 ns",
          [(r.get("parallel"), r.get("makespan_ns")) for r in rows] ==
          [("dp=1,pp=2,layers=2,micro-batches=2,activation=1000,forward=1us", "9400"),
           ("dp=4,ep=2,activation=1000,forward=1us", "3600")], (code, err, rows))

finish()
