#!/usr/bin/env python3
"""CLI tests of seeded noise: makespans that a seed fixes, derived here by hand.

A noise sample is a pure function of (seed, stream, task) (docs/SEMANTICS.md, Noise), so
the times of a noisy run are fixed by its seed whatever the engine does to go fast. This
test computes the samples independently of fennel, from the generator models/noise.c
documents (a splitmix64 step seeded from a hash of the seed, the stream and the index; a
normal by Box-Muller, an exponential by inversion), rounds them to the picosecond as every
model duration is, and derives the makespan of a small program from the engine's rules.

Usage: test_noise_seed.py FENNEL SOURCE_ROOT. Prints TAP.
"""
import json
import math
from decimal import Decimal

from harness import check, fennel, finish

MASK = (1 << 64) - 1
NETWORK, HOST, COMPUTE = 0, 1, 2  # the streams' numbers


class Rng:
    def __init__(self, state):
        self.state = state

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    def uniform(self):
        """In (0, 1): the top 53 bits and a half, over 2^53."""
        return ((self.next() >> 11) + 0.5) * (1.0 / 9007199254740992.0)


def rng(seed, stream, index):
    r = Rng(((seed * 0x9E3779B97F4A7C15) & MASK) ^ (stream << 56) ^ index)
    r.state = r.next() ^ ((index * 0xD1B54A32D192ED03) & MASK)
    r.next()
    return r


def normal_ns(seed, stream, index, mean, stddev):
    r = rng(seed, stream, index)
    u1, u2 = r.uniform(), r.uniform()
    return mean + stddev * (math.sqrt(-2.0 * math.log(u1)) * math.cos(2.0 * math.pi * u2))


def exponential_ns(seed, stream, index, mean):
    return -mean * math.log(rng(seed, stream, index).uniform())


def to_ps(ns):
    """A sample in ns to picoseconds: attoseconds truncated, then rounded to the nearest
    picosecond, halves away from zero (the default resolution of 1 ps)."""
    a = int(ns * 1e9)
    q = (abs(a) + 500_000) // 1_000_000
    return q if a >= 0 else -q


def noisy(d, n):
    """A duration plus noise never goes below zero."""
    return max(d + n, 0)


# allreduce-rd on 2 ranks in program order (`fennel generate allreduce-rd --ranks 2`):
#   0 start.r0, 1 s0.done.r0, 2 start.r1, 3 s0.done.r1,
#   4 s1.put.r0-r1, 5 s1.reduce.r0, 6 s1.done.r0, 7 s1.put.r1-r0, 8 s1.reduce.r1, 9 s1.done.r1.
# Under thesis-figures (lbp: an 8-byte put keeps its sender busy alpha_r = 100 ns and arrives
# 100 + 500 + 8 x 0.4 = 603.2 ns after issue; a compute takes 10 ns): both puts start at 0;
# the put from rank s arrives at noisy(603.2 ns, network sample of the put); the reduce on the
# receiving rank is ready then, its slot free since 100 ns, so it starts at the later of the
# two and takes noisy(10 ns, compute sample of the reduce); the done proxies take no time.
# A sample's index is 4 x task (+ leg, 0 here) in the first run of a machine.
PUT = {0: 4, 1: 7}
REDUCE = {0: 5, 1: 8}


def makespan_ps(net, comp):
    """net(task), comp(task): the samples in ps."""
    ends = []
    for rank in (0, 1):
        arrival = noisy(603_200, net(PUT[1 - rank]))
        start = max(arrival, 100_000)
        ends.append(start + noisy(10_000, comp(REDUCE[rank])))
    return max(ends + [100_000])


def run_makespan(seed, *noise):
    code, out, err = fennel("run", "--generate", "allreduce-rd", "--ranks", "2", "--model",
                            "models/presets/thesis-figures.yaml", "--seed", str(seed), *noise,
                            "--json")
    if code != 0:
        return err
    return json.loads(out, parse_float=Decimal)["makespan_ns"]


NORMAL = ["--set", "noise.network.distribution=normal", "--set", "noise.network.stddev=20ns",
          "--set", "noise.compute.distribution=normal", "--set", "noise.compute.stddev=5ns"]
for seed in (0, 1, 42):
    want = makespan_ps(lambda t: to_ps(normal_ns(seed, NETWORK, 4 * t, 0.0, 20.0)),
                       lambda t: to_ps(normal_ns(seed, COMPUTE, 4 * t, 0.0, 5.0)))
    got = run_makespan(seed, *NORMAL)
    check(f"normal noise, seed {seed}: makespan {Decimal(want) / 1000} ns",
          got == Decimal(want) / 1000, f"fennel: {got}, by hand: {Decimal(want) / 1000}")

# Exponential compute noise (a logarithm of one uniform) and a negative mean on the network.
EXPO = ["--set", "noise.network.distribution=normal", "--set", "noise.network.mean=-300ns",
        "--set", "noise.network.stddev=50ns", "--set", "noise.compute.distribution=exponential",
        "--set", "noise.compute.mean=7ns"]
for seed in (3, 1000):
    want = makespan_ps(lambda t: to_ps(normal_ns(seed, NETWORK, 4 * t, -300.0, 50.0)),
                       lambda t: to_ps(exponential_ns(seed, COMPUTE, 4 * t, 7.0)))
    got = run_makespan(seed, *EXPO)
    check(f"exponential noise, seed {seed}: makespan {Decimal(want) / 1000} ns",
          got == Decimal(want) / 1000, f"fennel: {got}, by hand: {Decimal(want) / 1000}")

# The samples differ between seeds, so the checks above could tell a changed draw apart.
check("the seeds give different makespans",
      len({run_makespan(s, *NORMAL) for s in (0, 1, 42)}) == 3)

finish()
