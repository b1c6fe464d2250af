#!/usr/bin/env python3
"""Reference-value tests for `fennel run`.

Usage: python3 tests/cli/test_reference.py BUILD/fennel SOURCE_ROOT

Runs `fennel run PROGRAM... (--model FILE | --network KIND --set K=V ...) --json` for
every case below and checks the summary's `makespan_ns`, `rank_finish_ns`,
`messages` and `bytes` against values derived by hand from the engine rules
(fennel's specification, §5 and §6). The derivation of every value is written
next to it. Prints TAP (one test point per case) and exits 1 if any case fails.

The cases are:
  * the numeric assertions of the original Python Fennel's test suite and of its
    drawing tests (programs and models in tests/data/reference, integer
    nanoseconds through `resolution: 1ns`), plus the reference runs of
    Rüfenacht's thesis figures;
  * every program of programs/examples under the preset named in its header;
  * the exact-resolution cases of the thesis figure model (603.2 ns vs 603 ns).

A get counts as two messages, its request (8 B unless given) and its response
(docs/SEMANTICS.md), so a get of 1024 B adds 2 messages and 1032 bytes.

Per-task times (start, completion) recorded with some cases are checked through
`fennel run ... --tasks FILE.csv` (set FENNEL_CHECK_TASKS=0 to skip them).

Standard library only.
"""

import csv
import json
import os
import subprocess
import sys
import tempfile

REF = "tests/data/reference"
EX = "programs/examples"
PRESETS = "models/presets"

# Reports print nanoseconds with up to three decimals.
TOLERANCE_NS = 5e-4

CASES = []


def case(name, programs, model=None, args=(), makespan=None, rank_finish=None,
         messages=None, nbytes=None, tasks=None):
    """Register a case. `programs` and `model` are relative to the source root;
    `args` are extra command-line arguments; `tasks` maps a task id to a dict with
    its expected `start` and/or `completion` in ns."""
    CASES.append({
        "name": name,
        "programs": list(programs),
        "model": model,
        "args": list(args),
        "makespan": makespan,
        "rank_finish": rank_finish,
        "messages": messages,
        "bytes": nbytes,
        "tasks": tasks or {},
    })


def lbp_thesis_flags():
    """The thesis figure network given on the command line instead of a file."""
    return ["--network", "lbp", "--set", "alpha_p=500ns", "--set", "alpha_r=100ns",
            "--set", "beta=0.4ns/B"]


def postal_100_01_flags():
    """The original's LBModel(100, 0.1) in integer nanoseconds, as flags."""
    return ["--network", "postal", "--set", "alpha=100ns", "--set", "beta=0.1ns/B",
            "--set", "resolution=1ns"]


# ---------------------------------------------------------------------------------
# 1. The original Python Fennel's test suite (non-drawing tests).
# ---------------------------------------------------------------------------------

# test_lbmachine: pingpong(0, 1) on LB(1000, 0):
# rounds x 2 x latency = 1 x 2 x 1000 = 2000; both ranks end at 2000.
case("original test_lbmachine: 0-byte ping-pong, postal alpha 1000 -> 2000",
     [f"{REF}/pingpong-0B-1round.yaml"], f"{REF}/lb-1000-0-gamma-0.model.yaml",
     makespan=2000, rank_finish=[2000, 2000], messages=2, nbytes=0,
     tasks={"p0_0": {"start": 0, "completion": 1000},
            "p1_0": {"start": 1000, "completion": 2000}})

# test_machine_sequential_programs: two pingpong(8, 1) one after the other on one
# machine with LB(100, 0): first run 0..200 (two puts of 100), the second run's
# starts wait for the slots (free at 200) and it ends at 200 + 200 = 400.
case("original test_machine_sequential_programs: two ping-pongs in one run -> 400",
     [f"{REF}/pingpong-8B-1round.yaml", f"{REF}/pingpong-8B-1round.yaml"],
     f"{REF}/lb-100-0-gamma-0.model.yaml",
     makespan=400, rank_finish=[400, 400])

# test_start_proxy: start with skew s -> proxy gives s (s = 777 here).
case("original test_start_proxy: start skew 777 -> 777",
     [f"{REF}/start-skew.yaml"], f"{REF}/gamma-1.model.yaml",
     makespan=777, rank_finish=[777], messages=0, nbytes=0,
     tasks={"s0": {"completion": 777}, "x0": {"start": 777}})

# test_start_compute_proxy: compute of 100 B at gamma 1 ns/B = 100.
case("original test_start_compute_proxy: 100 B at gamma 1 -> 100",
     [f"{REF}/start-compute-proxy.yaml"], f"{REF}/gamma-1.model.yaml",
     makespan=100, rank_finish=[100], messages=0, nbytes=0,
     tasks={"c0": {"start": 0, "completion": 100}})

# test_any_property: d0 sleeps 0..1000; c0 (any 1) is ready at 0 (s0) but the
# rank is busy until 1000, so it runs 1000..1000 + 100 x 1 = 1100; x1 at 1100.
case("original test_any_property: any 1 waits for the busy rank -> 1100",
     [f"{REF}/any.yaml"], f"{REF}/gamma-1.model.yaml",
     makespan=1100, rank_finish=[1100], messages=0, nbytes=0,
     tasks={"d0": {"start": 0, "completion": 1000},
            "c0": {"start": 1000, "completion": 1100},
            "x1": {"start": 1100}})

# A random program of the differential runs against the original Python Fennel (the
# original's own times, recorded by running it on this program: completions of every
# task). t18 is ready at 0 (through t2, any: 1) and waits for t0's alpha_r = 98 ns on
# rank 0 only; t15 is ready at 2273 (t13) on a free slot and ends 344 ns later. Tasks
# made ready together for later (t6, t7, t19 at t0's arrival 1474) must not hold back
# a task ready before them.
case("original Fennel: any: K among tasks made ready together -> 6667",
     [f"{REF}/any-fanout.yaml"], f"{REF}/lbp-878-0.75-98-fixed-52.model.yaml",
     makespan=6667, rank_finish=[6667, 4751],
     tasks={"t0": {"completion": 1474}, "t3": {"completion": 1643},
            "t4": {"completion": 5145}, "t5": {"completion": 444},
            "t6": {"completion": 4666}, "t7": {"completion": 3353},
            "t8": {"completion": 1793}, "t9": {"completion": 2221},
            "t10": {"completion": 4425}, "t11": {"completion": 1722},
            "t12": {"completion": 542}, "t13": {"completion": 2273},
            "t14": {"completion": 6667}, "t15": {"completion": 2617},
            "t16": {"completion": 6541}, "t17": {"completion": 2853},
            "t18": {"start": 98, "completion": 98}, "t19": {"completion": 3622},
            "t20": {"completion": 4751}, "t21": {"completion": 6283},
            "end0": {"completion": 6667}, "end1": {"completion": 4751}})

# test_concurrent_on_non_concurrent: one slot; c0 0..100, c1 waits, 100..110.
case("original test_concurrent_on_non_concurrent: processes 1 -> 110",
     [f"{REF}/concurrent-1proc.yaml"], f"{REF}/gamma-1.model.yaml",
     makespan=110, rank_finish=[110], messages=0, nbytes=0,
     tasks={"c0": {"start": 0, "completion": 100},
            "c1": {"start": 100, "completion": 110}})

# test_concurrent_compute: two slots; c0 0..100 on slot 0, c1 0..10 on slot 1;
# x0 waits for both slots: 100.
case("original test_concurrent_compute: processes 2 -> 100",
     [f"{REF}/concurrent-2proc.yaml"], f"{REF}/gamma-1.model.yaml",
     makespan=100, rank_finish=[100], messages=0, nbytes=0,
     tasks={"c0": {"start": 0, "completion": 100},
            "c1": {"start": 0, "completion": 10},
            "x0": {"start": 100}})

# test_partitioned_pattern_manual: the test's own record: s0 = s1 = 0, c0 = 100,
# c1 = 10, c2 = 20, x0 = 100, x1 = 20 (2nd of 10, 20, 100; slot 1 free at 10),
# x2 = 20. Slots after: rank 0 [100, 20, 20], rank 1 [20, 0, 0].
case("original test_partitioned_pattern_manual: x1 = x2 = 20, makespan 100",
     [f"{REF}/partitioned-manual.yaml"], f"{REF}/gamma-1.model.yaml",
     makespan=100, rank_finish=[100, 20], messages=0, nbytes=0,
     tasks={"s0": {"completion": 0}, "s1": {"completion": 0},
            "c0": {"completion": 100}, "c1": {"completion": 10},
            "c2": {"completion": 20}, "x0": {"completion": 100},
            "x1": {"start": 20, "completion": 20},
            "x2": {"start": 20, "completion": 20}})

# test_partitioned_generator: send_partitioned(16384, 2, 1, 1), LB(1000, 0.1),
# gamma 0.1, 2 slots per rank. Compute int(16384 x 0.1) = 1638, put
# 1000 + int(1638.4) = 2638.
#   c_0_1_0, c_0_1_1: 0..1638 (slots 0 and 1)
#   p_0_1_l: 1638..4276;  p_0_1_h waits for both slots: 4276..6914
#   c_1_1_0: 4276..5914;  c_1_1_1: 6914..8552
#   p_1_1_l (any 1: ready 5914, slot free 6914): 6914..9552
#   p_1_1_h (ready 8552, all slots free 9552): 9552..12190
#   r_0_1_h, r_1_1_h at 12190 -> makespan 12190, both ranks end at 12190;
#   4 puts of 16384 B = 65536 B.
case("original test_partitioned_generator: send_partitioned(16384,2,1,1) -> 12190",
     [f"{REF}/partitioned-16384-2-1-1.yaml"],
     f"{REF}/lb-1000-0.1-gamma-0.1.model.yaml",
     makespan=12190, rank_finish=[12190, 12190], messages=4, nbytes=65536,
     tasks={"c_0_1_0": {"start": 0, "completion": 1638},
            "c_0_1_1": {"start": 0, "completion": 1638},
            "c_1_1_0": {"start": 4276, "completion": 5914},
            "c_1_1_1": {"start": 6914, "completion": 8552},
            "p_0_1_l": {"start": 1638, "completion": 4276},
            "p_0_1_h": {"start": 4276, "completion": 6914},
            "p_1_1_l": {"start": 6914, "completion": 9552},
            "p_1_1_h": {"start": 9552, "completion": 12190},
            "r_0_1_l": {"completion": 9552},
            "r_1_1_l": {"start": 12190}})

# test_bandwidth_single_put: send(125000, True) on LB(100, 1):
# 100 + 125000 x 1 = 125100 (the test itself checks the bandwidth instrument).
case("original test_bandwidth_single_put: 125000 B at beta 1 -> 125100",
     [f"{REF}/send-125000B-blocking.yaml"], f"{REF}/lb-100-1.model.yaml",
     makespan=125100, rank_finish=[125100, 125100], messages=1, nbytes=125000)

# ---------------------------------------------------------------------------------
# 2. The original's drawing tests (each draws one run; these are its times).
# ---------------------------------------------------------------------------------

# send: send(10, True) on LB(100, 0): 100.
case("original drawing send: 10 B put, postal alpha 100 -> 100",
     [f"{REF}/send-10B-blocking.yaml"], f"{REF}/lb-100-0-gamma-0.model.yaml",
     makespan=100, rank_finish=[100, 100], messages=1, nbytes=10,
     tasks={"p": {"start": 0, "completion": 100}, "x1": {"start": 100}})

# send_compute: send(10, False) then simple_compute(1024) on LBP(300, 0.1, 100),
# gamma 0.1: the put frees rank 0 at 100 and arrives at int(100 + 300 + 1) = 401;
# the second program's compute runs 100..100 + int(102.4) = 202.
case("original drawing send_compute: put then compute in one run -> 401",
     [f"{REF}/send-10B-nonblocking.yaml", f"{REF}/simple-compute-1024B.yaml"],
     f"{REF}/lbp-300-0.1-100-gamma-0.1.model.yaml",
     makespan=401, rank_finish=[202, 401])

# ppm_double_send: multicast(1, 2, False) on LBP(500, 0, 100): puts issued at 0
# and 100, arriving at 600 and 700; x_0 at 700.
case("original drawing ppm_double_send: multicast width 2, LBP -> 700",
     [f"{REF}/multicast-1B-width2.yaml"], f"{REF}/lbp-500-0-100-gamma-0.model.yaml",
     makespan=700, rank_finish=[700, 600, 700], messages=2, nbytes=2,
     tasks={"p_1": {"start": 0, "completion": 600},
            "p_2": {"start": 100, "completion": 700},
            "x_0": {"start": 700}})

# pm_rd_allreduce: RD allreduce N = 8, 100 B, LB(200, 0), gamma 1:
# 3 rounds x (200 + 100) = 900; 8 ranks x 3 puts of 100 B.
case("original drawing pm_rd_allreduce: RD allreduce N=8 100 B -> 900",
     [f"{REF}/allreduce-rd-8-100B.yaml"], f"{REF}/lb-200-0-gamma-1.model.yaml",
     makespan=900, rank_finish=[900] * 8, messages=24, nbytes=2400,
     tasks={"p_0_1": {"start": 0, "completion": 200},
            "c_0_1": {"start": 200, "completion": 300},
            "p_0_2": {"start": 300, "completion": 500},
            "c_0_2": {"start": 500, "completion": 600},
            "p_0_3": {"start": 600, "completion": 800},
            "c_0_3": {"start": 800, "completion": 900}})

# pm_rd_allgather: RD allgather N = 8, 4096 B doubling, LB(100, 0.02):
# 100 + int(81.92) = 181, 100 + int(163.84) = 263, 100 + int(327.68) = 427;
# 181 + 263 + 427 = 871; bytes 8 x (4096 + 8192 + 16384) = 229376.
case("original drawing pm_rd_allgather: RD allgather N=8 4096 B -> 871",
     [f"{REF}/allgather-rd-8-4096B.yaml"], f"{REF}/lb-100-0.02-gamma-1.model.yaml",
     makespan=871, rank_finish=[871] * 8, messages=24, nbytes=229376,
     tasks={"p_0_0": {"start": 0, "completion": 181},
            "p_0_1": {"start": 181, "completion": 444},
            "p_0_2": {"start": 444, "completion": 871}})

# compute: simple_compute(1024, 5), gamma 0.05: 5 x int(51.2) = 5 x 51 = 255.
case("original drawing compute: 5 computes of 1024 B at gamma 0.05 -> 255",
     [f"{REF}/simple-compute-1024B-5rounds.yaml"], f"{REF}/lb-0-0-gamma-0.05.model.yaml",
     makespan=255, rank_finish=[255], messages=0, nbytes=0,
     tasks={"c_1": {"start": 0, "completion": 51},
            "c_2": {"start": 51, "completion": 102},
            "c_3": {"start": 102, "completion": 153},
            "c_4": {"start": 153, "completion": 204},
            "c_5": {"start": 204, "completion": 255}})

# bsp_single: single_superstep(4, 1024, 2), gamma 0.1: b_0 = max skew 93;
# round 1 ends max(181, 131, 189, 113) = 189; round 2 ends
# max(217, 247, 234, 206) = 247.
case("original drawing bsp_single: two supersteps on 4 ranks -> 247",
     [f"{REF}/bsp-single-4-1024-2.yaml"], f"{REF}/lb-0-0-gamma-0.1.model.yaml",
     makespan=247, rank_finish=[247] * 4, messages=0, nbytes=0,
     tasks={"s_0": {"completion": 53}, "s_1": {"completion": 93},
            "s_2": {"completion": 1}, "s_3": {"completion": 38},
            "b_0": {"start": 93},
            "c_0_1": {"completion": 181}, "c_1_1": {"completion": 131},
            "c_2_1": {"completion": 189}, "c_3_1": {"completion": 113},
            "c_0_2": {"completion": 217}, "c_1_2": {"completion": 247},
            "c_2_2": {"completion": 234}, "c_3_2": {"completion": 206}})

# pm_allgather_ring: ring allgather N = 4, 1024 B, LB(100, 0.1):
# 3 rounds x (100 + int(102.4)) = 3 x 202 = 606; 12 puts x 1024 B = 12288 B.
case("original drawing pm_allgather_ring: ring allgather N=4 1024 B -> 606",
     [f"{REF}/allgather-ring-4-1024B.yaml"], f"{REF}/lb-100-0.1-gamma-0.1.model.yaml",
     makespan=606, rank_finish=[606] * 4, messages=12, nbytes=12288,
     tasks={"p_0_1": {"start": 0, "completion": 202},
            "p_0_2": {"start": 202, "completion": 404},
            "p_0_3": {"start": 404, "completion": 606}})

# pm_fetch: fetch(1024) on LB(100, 0.1): request at 100 + int(0.8) = 100 (x_1),
# data back at 100 + 100 + int(102.4) = 302 (x_0); slots [[302], [100]].
case("original drawing pm_fetch: get of 1024 B -> 302",
     [f"{REF}/fetch-1024B.yaml"], f"{REF}/lb-100-0.1-gamma-0.1.model.yaml",
     makespan=302, rank_finish=[302, 100], messages=2, nbytes=1032,
     tasks={"g": {"start": 0}, "x_1": {"start": 100}, "x_0": {"start": 302}})

# pm_rat: request 0..100, response 100..200, transfer 200..402 (100 + 102),
# ack 402..502; 8 + 8 + 1024 + 8 = 1048 B.
case("original drawing pm_rat: request/response/transfer/ack -> 502",
     [f"{REF}/rat-1024B.yaml"], f"{REF}/lb-100-0.1-gamma-0.1.model.yaml",
     makespan=502, rank_finish=[502, 502], messages=4, nbytes=1048,
     tasks={"p_0": {"start": 0, "completion": 100},
            "p_1": {"start": 100, "completion": 200},
            "t_0": {"start": 200, "completion": 402},
            "a_0": {"start": 402, "completion": 502}})

# pm_rta: request 0..100; get issued at 100, request reaches rank 0 at 200, data
# back at 402; ack 402..502; 8 + (8 + 1024) + 8 = 1048 B in 4 messages.
case("original drawing pm_rta: request, get, ack -> 502",
     [f"{REF}/rta-1024B.yaml"], f"{REF}/lb-100-0.1-gamma-0.1.model.yaml",
     makespan=502, rank_finish=[502, 502], messages=4, nbytes=1048,
     tasks={"p_0": {"start": 0, "completion": 100},
            "t_1": {"start": 100},
            "a_1": {"start": 402, "completion": 502}})

# pingpong: pingpong(8, 3) on LB(100, 0): 3 x 2 x 100 = 600.
case("original drawing pingpong: 3 rounds, postal alpha 100 -> 600",
     [f"{REF}/pingpong-8B-3rounds.yaml"], f"{REF}/lb-100-0-gamma-0.model.yaml",
     makespan=600, rank_finish=[600, 600], messages=6, nbytes=48,
     tasks={"p0_0": {"completion": 100}, "p1_0": {"completion": 200},
            "p0_1": {"completion": 300}, "p1_1": {"completion": 400},
            "p0_2": {"completion": 500}, "p1_2": {"completion": 600}})

# ---------------------------------------------------------------------------------
# 3. Reference runs of the original's programs under LBP.
# ---------------------------------------------------------------------------------

# ping-pong, 1 round, LBP(500, 0, 100): ping arrives 100 + 500 = 600, pong
# issued at 600 arrives 1200.
case("reference ping-pong 1 round, LBP(500,0,100) -> 1200",
     [f"{REF}/pingpong-8B-1round.yaml"], f"{REF}/lbp-500-0-100-gamma-0.model.yaml",
     makespan=1200, rank_finish=[1200, 1200], messages=2, nbytes=16,
     tasks={"p0_0": {"start": 0, "completion": 600},
            "p1_0": {"start": 600, "completion": 1200}})

# multicast width 7, LBP(880, 0, 380): alpha_p + 7 alpha_r = 880 + 2660 = 3540;
# rank c receives at (c-1) x 380 + 1260.
case("reference multicast width 7, LBP(880,0,380) -> 3540",
     [f"{REF}/multicast-8B-width7.yaml"], f"{REF}/lbp-880-0-380.model.yaml",
     makespan=3540, rank_finish=[3540, 1260, 1640, 2020, 2400, 2780, 3160, 3540],
     messages=7, nbytes=56,
     tasks={"p_7": {"start": 2280, "completion": 3540}})

# ---------------------------------------------------------------------------------
# 4. Exact resolution and the command-line model.
# ---------------------------------------------------------------------------------

# One 8-byte put, lbp 500/100/0.4 on the command line, default resolution (1 ps):
# 100 + 500 + 8 x 0.4 = 603.2; the sender is busy only alpha_r = 100.
case("8 B put, --network lbp, default resolution -> 603.2",
     [f"{REF}/put-8B.yaml"], None, lbp_thesis_flags(),
     makespan=603.2, rank_finish=[100, 603.2], messages=1, nbytes=8,
     tasks={"p": {"start": 0, "completion": 603.2}})

# The same with `--set resolution=1ns`: trunc(603.2) = 603, as the original.
case("8 B put, --network lbp, --set resolution=1ns -> 603",
     [f"{REF}/put-8B.yaml"], None, lbp_thesis_flags() + ["--set", "resolution=1ns"],
     makespan=603, rank_finish=[100, 603], messages=1, nbytes=8,
     tasks={"p": {"start": 0, "completion": 603}})

# The preset file with one value overridden: 100 + 400 + 3.2 = 503.2.
case("8 B put, thesis-figures preset with --set alpha_p=400ns -> 503.2",
     [f"{REF}/put-8B.yaml"], f"{PRESETS}/thesis-figures.yaml", ["--set", "alpha_p=400ns"],
     makespan=503.2, rank_finish=[100, 503.2], messages=1, nbytes=8)

# The example get programs under the original's LB(100, 0.1) given as flags
# (cross-checks of section 2 through the example files).
case("examples/fetch.yaml, --network postal alpha 100 beta 0.1, 1 ns -> 302",
     [f"{EX}/fetch.yaml"], None, postal_100_01_flags(),
     makespan=302, rank_finish=[302, 100], messages=2, nbytes=1032)
case("examples/rat.yaml, --network postal alpha 100 beta 0.1, 1 ns -> 502",
     [f"{EX}/rat.yaml"], None, postal_100_01_flags(),
     makespan=502, rank_finish=[502, 502], messages=4, nbytes=1048)
case("examples/rta.yaml, --network postal alpha 100 beta 0.1, 1 ns -> 502",
     [f"{EX}/rta.yaml"], None, postal_100_01_flags(),
     makespan=502, rank_finish=[502, 502], messages=4, nbytes=1048)

# ---------------------------------------------------------------------------------
# 5. programs/examples under the preset named in each header.
#    thesis-figures: lbp alpha_p 500, alpha_r 100, beta 0.4 ns/B, computes 10 ns.
#    An 8-byte put issued at t keeps its rank busy until t + 100 and arrives at
#    t + 100 + 500 + 3.2 = t + 603.2.
# ---------------------------------------------------------------------------------

TF = f"{PRESETS}/thesis-figures.yaml"

# ping at 0 arrives 603.2; pong issued at 603.2 arrives 1206.4.
case("examples/pingpong.yaml, thesis-figures -> 1206.4",
     [f"{EX}/pingpong.yaml"], TF,
     makespan=1206.4, rank_finish=[1206.4, 1206.4], messages=2, nbytes=16,
     tasks={"p0_0": {"start": 0, "completion": 603.2},
            "p1_0": {"start": 603.2, "completion": 1206.4}})

# archer-8B: lbp 880/380/0: 7 puts issued at 0, 380, ..., 2280; the last arrives
# at 2280 + 380 + 880 = 3540 (= 880 + 7 x 380); rank c at 1260 + (c-1) x 380.
case("examples/multicast.yaml, archer-8B -> 3540",
     [f"{EX}/multicast.yaml"], f"{PRESETS}/archer-8B.yaml",
     makespan=3540, rank_finish=[3540, 1260, 1640, 2020, 2400, 2780, 3160, 3540],
     messages=7, nbytes=56)

# rank 1 starts at 400 (skew) and puts then, arriving 1003.2; rank 0's compute
# 1003.2..1103.2; rank 1's compute max(400, 603.2) = 603.2..703.2.
case("examples/a2.yaml, thesis-figures -> 1103.2",
     [f"{EX}/a2.yaml"], TF,
     makespan=1103.2, rank_finish=[1103.2, 703.2], messages=2, nbytes=16,
     tasks={"r1l1": {"completion": 400},
            "r1l2": {"start": 400, "completion": 1003.2},
            "r0l3": {"start": 1003.2, "completion": 1103.2},
            "r1l3": {"start": 603.2, "completion": 703.2}})

# puts at 0, 100, 200 arrive 603.2, 703.2, 803.2; ranks 0 and 3 receive a 3rd
# put (803.2) -> compute 803.2..903.2; ranks 1 and 2 receive at most a 2nd
# (703.2) -> 803.2.
case("examples/a4.yaml, thesis-figures -> 903.2",
     [f"{EX}/a4.yaml"], TF,
     makespan=903.2, rank_finish=[903.2, 803.2, 803.2, 903.2], messages=12, nbytes=96)

# stage 1: put 0 -> 603.2, compute 603.2..703.2; stage 2: put 703.2 -> 1306.4,
# compute 1306.4..1406.4, on every rank.
case("examples/a2_a2.yaml, thesis-figures -> 1406.4",
     [f"{EX}/a2_a2.yaml"], TF,
     makespan=1406.4, rank_finish=[1406.4] * 4, messages=8, nbytes=64,
     tasks={"r0l4": {"start": 703.2, "completion": 1306.4},
            "r0l5": {"start": 1306.4, "completion": 1406.4}})

# 256 B put arrives 100 + 500 + 102.4 = 702.4 -> rank 0 computes 702.4..712.4;
# 8 B put arrives 603.2 -> rank 1 computes 603.2..613.2.
case("examples/asym_band.yaml, thesis-figures -> 712.4",
     [f"{EX}/asym_band.yaml"], TF,
     makespan=712.4, rank_finish=[712.4, 613.2], messages=2, nbytes=264,
     tasks={"r1l2": {"start": 0, "completion": 702.4},
            "r0l2": {"start": 702.4, "completion": 712.4}})

# 0 -> 1, 2, 4 at 0, 100, 200 (arrive 603.2, 703.2, 803.2); 1 -> 3, 5 at 603.2,
# 703.2 (arrive 1206.4, 1306.4); 2 -> 6 at 703.2 (1306.4); 3 -> 7 at 1206.4
# (1809.6); rank 7 computes 1809.6..1819.6.
case("examples/binomial2_broadcast.yaml, thesis-figures -> 1819.6",
     [f"{EX}/binomial2_broadcast.yaml"], TF,
     makespan=1819.6,
     rank_finish=[300, 803.2, 803.2, 1306.4, 813.2, 1316.4, 1316.4, 1819.6],
     messages=7, nbytes=56)

# 0 -> 1..4 at 0..300 (arrive 603.2..903.2); 1 -> 5, 6 at 603.2, 703.2 (arrive
# 1206.4, 1306.4); 2 -> 7 at 703.2 (1306.4); computes end 1316.4 at the latest.
case("examples/binomial3_broadcast.yaml, thesis-figures -> 1316.4",
     [f"{EX}/binomial3_broadcast.yaml"], TF,
     makespan=1316.4,
     rank_finish=[400, 803.2, 803.2, 813.2, 913.2, 1216.4, 1316.4, 1316.4],
     messages=7, nbytes=56)

# 0 -> 1..4 at 0..300; 1, 2, 3 forward at 603.2, 703.2, 803.2 (arrive 1206.4,
# 1306.4, 1406.4); rank 7 computes 1406.4..1416.4.
case("examples/binomial4_broadcast.yaml, thesis-figures -> 1416.4",
     [f"{EX}/binomial4_broadcast.yaml"], TF,
     makespan=1416.4,
     rank_finish=[400, 703.2, 803.2, 903.2, 913.2, 1216.4, 1316.4, 1416.4],
     messages=7, nbytes=56)

# 0 -> 1, 2, 3, 4, 5, 7 at 0..500 (rank 7 at 1103.2); 1 -> 6 at 603.2 (arrives
# 1206.4); rank 6 computes 1206.4..1216.4.
case("examples/binomial5_broadcast.yaml, thesis-figures -> 1216.4",
     [f"{EX}/binomial5_broadcast.yaml"], TF,
     makespan=1216.4,
     rank_finish=[600, 703.2, 713.2, 813.2, 913.2, 1013.2, 1216.4, 1113.2],
     messages=7, nbytes=56)

# 0 -> 1..6 at 0..500; 1 -> 7 at 603.2 (arrives 1206.4); rank 7 computes
# 1206.4..1216.4.
case("examples/binomial6_broadcast.yaml, thesis-figures -> 1216.4",
     [f"{EX}/binomial6_broadcast.yaml"], TF,
     makespan=1216.4,
     rank_finish=[600, 703.2, 713.2, 813.2, 913.2, 1013.2, 1113.2, 1216.4],
     messages=7, nbytes=56)

# flat: 0 -> 1..7 at 0..600; rank 7's put arrives 600 + 603.2 = 1203.2
# (= 500 + 7 x 100 + 3.2); its compute ends 1213.2.
case("examples/binomial7_broadcast.yaml, thesis-figures -> 1213.2",
     [f"{EX}/binomial7_broadcast.yaml"], TF,
     makespan=1213.2,
     rank_finish=[700, 613.2, 713.2, 813.2, 913.2, 1013.2, 1113.2, 1213.2],
     messages=7, nbytes=56)

# 0 -> 1, 2 at 0, 100 (arrive 603.2, 703.2); 1 -> 3, 4 at 603.2, 703.2; 2 -> 5, 6
# at 703.2, 803.2 (rank 6 at 1406.4); leaves compute 100 ns: 1506.4.
case("examples/binary_broadcast.yaml, thesis-figures -> 1506.4",
     [f"{EX}/binary_broadcast.yaml"], TF,
     makespan=1506.4,
     rank_finish=[200, 803.2, 903.2, 1306.4, 1406.4, 1406.4, 1506.4],
     messages=6, nbytes=48)

# sleeps 10, 35, 50, 75, 80, 15, 65 then puts: latest arrival 80 + 603.2 = 683.2;
# rank 7 computes 683.2..693.2; senders are free at sleep + 100.
case("examples/nic_congest.yaml, thesis-figures -> 693.2",
     [f"{EX}/nic_congest.yaml"], TF,
     makespan=693.2, rank_finish=[110, 135, 150, 175, 180, 115, 165, 693.2],
     messages=7, nbytes=56,
     tasks={"r7l2": {"start": 683.2, "completion": 693.2}})

# blocking put 0..603.2 holds rank 0, so its independent compute runs
# 603.2..653.2; rank 1: sleep 0..200, compute 603.2..653.2.
case("examples/putcompute.yaml, thesis-figures -> 653.2",
     [f"{EX}/putcompute.yaml"], TF,
     makespan=653.2, rank_finish=[653.2, 653.2], messages=1, nbytes=8,
     tasks={"r0l3": {"start": 603.2, "completion": 653.2},
            "r1l3": {"start": 603.2, "completion": 653.2}})

# blocking put 0..603.2; both computes 603.2..653.2.
case("examples/putblockcompute.yaml, thesis-figures -> 653.2",
     [f"{EX}/putblockcompute.yaml"], TF,
     makespan=653.2, rank_finish=[653.2, 653.2], messages=1, nbytes=8)

# 603.2 (request) + 603.2 (response) + (600 + 409.6) (transfer, ends 2216)
# + 603.2 (ack) = 2819.2.
case("examples/rat.yaml, thesis-figures -> 2819.2",
     [f"{EX}/rat.yaml"], TF,
     makespan=2819.2, rank_finish=[2819.2, 2819.2], messages=4, nbytes=1048,
     tasks={"t_0": {"start": 1206.4, "completion": 2216},
            "a_0": {"start": 2216, "completion": 2819.2}})

# postal-unit: every message 1 ns. Request reaches rank 1 at 1 (x_1), data back
# at 2 (x_0).
case("examples/fetch.yaml, postal-unit -> 2",
     [f"{EX}/fetch.yaml"], f"{PRESETS}/postal-unit.yaml",
     makespan=2, rank_finish=[2, 1], messages=2, nbytes=1032)

# postal-unit: put 0..1, get 1..3 (request at 2, data back at 3), ack 3..4.
case("examples/rta.yaml, postal-unit -> 4",
     [f"{EX}/rta.yaml"], f"{PRESETS}/postal-unit.yaml",
     makespan=4, rank_finish=[4, 4], messages=4, nbytes=1048)


# ---------------------------------------------------------------------------------
# The runner.
# ---------------------------------------------------------------------------------

def close(a, b):
    return isinstance(a, (int, float)) and not isinstance(a, bool) \
        and abs(a - b) <= TOLERANCE_NS


def column(header, name):
    """Index of column `name` or `name_ns` in a CSV header, or None."""
    for i, h in enumerate(header):
        if h.strip() in (name, name + "_ns"):
            return i
    return None


def check_tasks(path, expected):
    problems = []
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    if not rows:
        return ["--tasks wrote an empty file"]
    header, body = rows[0], rows[1:]
    cid = column(header, "id")
    if cid is None:
        return [f"--tasks CSV has no id column: {header}"]
    by_id = {r[cid]: r for r in body if len(r) > cid}
    for tid, want in expected.items():
        row = by_id.get(tid)
        if row is None:
            problems.append(f"task {tid}: missing from --tasks CSV")
            continue
        for key, value in want.items():
            col = column(header, key)
            if col is None:
                problems.append(f"--tasks CSV has no {key} column: {header}")
                continue
            try:
                got = float(row[col])
            except ValueError:
                problems.append(f"task {tid}: {key} is {row[col]!r}")
                continue
            if not close(got, value):
                problems.append(f"task {tid}: {key} {got}, expected {value}")
    return problems


def run_case(fennel, root, c, tmpdir, check_task_times):
    cmd = [fennel, "run"] + [os.path.join(root, p) for p in c["programs"]]
    if c["model"]:
        cmd += ["--model", os.path.join(root, c["model"])]
    cmd += c["args"] + ["--json"]
    tasks_csv = None
    if check_task_times and c["tasks"]:
        tasks_csv = os.path.join(tmpdir, "tasks.csv")
        if os.path.exists(tasks_csv):
            os.unlink(tasks_csv)
        cmd += ["--tasks", tasks_csv]
    shown = " ".join(cmd)
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        return [f"command: {shown}", f"could not run: {e}"]
    if proc.returncode != 0:
        return [f"command: {shown}", f"exit status {proc.returncode}",
                "stderr: " + (proc.stderr.strip() or "(empty)")]
    try:
        summary = json.loads(proc.stdout)
    except ValueError as e:
        return [f"command: {shown}", f"stdout is not JSON ({e}): {proc.stdout[:200]!r}"]
    problems = []
    got = summary.get("makespan_ns")
    if c["makespan"] is not None and not close(got, c["makespan"]):
        problems.append(f"makespan_ns {got}, expected {c['makespan']}")
    if c["rank_finish"] is not None:
        got = summary.get("rank_finish_ns")
        if not isinstance(got, list) or len(got) != len(c["rank_finish"]) or \
                not all(close(g, w) for g, w in zip(got, c["rank_finish"])):
            problems.append(f"rank_finish_ns {got}, expected {c['rank_finish']}")
    for key, want in (("messages", c["messages"]), ("bytes", c["bytes"])):
        if want is not None and summary.get(key) != want:
            problems.append(f"{key} {summary.get(key)}, expected {want}")
    if tasks_csv:
        problems += check_tasks(tasks_csv, c["tasks"])
    if problems:
        problems.insert(0, f"command: {shown}")
    return problems


def main(argv):
    if len(argv) != 3:
        print("usage: test_reference.py FENNEL SOURCE_ROOT", file=sys.stderr)
        return 2
    fennel, root = os.path.abspath(argv[1]), os.path.abspath(argv[2])
    check_task_times = os.environ.get("FENNEL_CHECK_TASKS", "1") == "1"
    print(f"1..{len(CASES)}")
    failed = 0
    with tempfile.TemporaryDirectory(prefix="fennel-ref-") as tmpdir:
        for k, c in enumerate(CASES, 1):
            problems = run_case(fennel, root, c, tmpdir, check_task_times)
            if problems:
                failed += 1
                print(f"not ok {k} - {c['name']}")
                for p in problems:
                    for line in str(p).splitlines() or [""]:
                        print(f"# {line}")
            else:
                print(f"ok {k} - {c['name']}")
            sys.stdout.flush()
    if failed:
        print(f"# {failed} of {len(CASES)} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
