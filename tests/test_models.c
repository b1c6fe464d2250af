/* The network models and two-sided messages on hand-computable programs (docs/SEMANTICS.md,
 * docs/SEMANTICS.md). LogP/LogGP values follow LogGOPSim's timing of an eager send whose
 * receive is posted (the textbook o + (s-1)G + L + o for one message); each expected time
 * is derived in the comment above its assertion. */
#include "run_helpers.h"

#include <math.h>

static const char *logp = "fennel: 1\nnetwork: {model: logp, L: 1000ns, o: 100ns, g: 50ns}\n";

static const char *one_put = "fennel: 1\ntasks:\n"
                             "- {id: s0, type: start, rank: 0}\n"
                             "- {id: s1, type: start, rank: 1}\n"
                             "- {id: p, type: put, rank: 0, to: 1, size: 101B, after: [s0]}\n"
                             "- {id: x1, type: proxy, rank: 1, after: [s1, p]}\n";

/* LogP, one message: o + L + o = 100 + 1000 + 100 = 1200; the sender is busy for o. */
static void test_logp_one_message(void)
{
    Result *r = simulate(one_put, logp, 0);
    g_assert_true(r->ok);
    g_assert_cmpint(r->times.completion[T(r, "p")], ==, NS(1200));
    g_assert_cmpint(r->times.start[T(r, "x1")], ==, NS(1200));
    g_assert_cmpint(r->summary.rank_finish[0], ==, NS(100));
    g_assert_cmpint(r->summary.rank_finish[1], ==, NS(1200));
    result_free(r);
}

/* LogGP, one message of s = 101 bytes with G = 2 ns/B: o + (s-1)G + L + o =
 * 100 + 200 + 1000 + 100 = 1400 (the per-byte part is charged at the receiver, as
 * LogGOPSim does). With O = 1 ns/B the sender is busy o + (s-1)O = 200 and the receiver
 * o + max((s-1)O, (s-1)G) = 300: still 1400. */
static void test_loggp_one_message(void)
{
    Result *r = simulate(one_put,
                         "fennel: 1\nnetwork: {model: loggp, L: 1000ns, o: 100ns, g: 50ns, G: "
                         "2ns/B}\n",
                         0);
    g_assert_cmpint(r->times.completion[T(r, "p")], ==, NS(1400));
    result_free(r);
    r = simulate(one_put,
                 "fennel: 1\nnetwork: {model: loggp, L: 1000ns, o: 100ns, g: 50ns, G: 2ns/B, O: "
                 "1ns/B}\n",
                 0);
    g_assert_cmpint(r->times.completion[T(r, "p")], ==, NS(1400));
    g_assert_cmpint(r->summary.rank_finish[0], ==, NS(200));
    result_free(r);
}

/* A zero-byte message costs nothing per byte (no unsigned wrap-around): o + L + o. */
static void test_loggp_zero_bytes(void)
{
    const char *zero = "fennel: 1\ntasks:\n"
                       "- {id: s0, type: start, rank: 0}\n"
                       "- {id: s1, type: start, rank: 1}\n"
                       "- {id: p, type: put, rank: 0, to: 1, size: 0B, after: [s0]}\n"
                       "- {id: x1, type: proxy, rank: 1, after: [s1, p]}\n";
    Result *r = simulate(zero,
                         "fennel: 1\nnetwork: {model: loggp, L: 1000ns, o: 100ns, g: 50ns, G: "
                         "6ns/B}\n",
                         0);
    g_assert_cmpint(r->times.completion[T(r, "p")], ==, NS(1200));
    result_free(r);
}

/* Ping-pong under LogP: 2 (L + 2o) = 2 x 1200 = 2400. */
static void test_logp_pingpong(void)
{
    Result *r = simulate("fennel: 1\ntasks:\n"
                         "- {id: s0, type: start, rank: 0}\n"
                         "- {id: s1, type: start, rank: 1}\n"
                         "- {id: ping, type: put, rank: 0, to: 1, size: 8B, after: [s0]}\n"
                         "- {id: pong, type: put, rank: 1, to: 0, size: 8B, after: [s1, ping]}\n"
                         "- {id: x0, type: proxy, rank: 0, after: [pong]}\n",
                         logp, 0);
    g_assert_cmpint(r->times.start[T(r, "pong")], ==, NS(1200));
    g_assert_cmpint(r->summary.makespan, ==, NS(2400));
    result_free(r);
}

/* Back-to-back puts from one rank start max(o, g) apart. With o = 100, g = 50 they start
 * at 0, 100, 200; with g = 300 at 0, 300, 600; with G = 1 ns/B and 101 bytes the NIC gap
 * is g + (s-1)G = 50 + 100 = 150, so 0, 150, 300. The third arrives at 300 + o + L and
 * completes o + (s-1)G later: 300 + 1100 + 200 = 1600. */
static void test_back_to_back(void)
{
    const char *three = "fennel: 1\ntasks:\n"
                        "- {id: s0, type: start, rank: 0}\n"
                        "- {id: a, type: put, rank: 0, to: 1, size: 101B, after: [s0]}\n"
                        "- {id: b, type: put, rank: 0, to: 2, size: 101B, after: [s0]}\n"
                        "- {id: c, type: put, rank: 0, to: 3, size: 101B, after: [s0]}\n";
    Result *r = simulate(three, logp, 0);
    g_assert_cmpint(r->times.start[T(r, "b")], ==, NS(100));
    g_assert_cmpint(r->times.start[T(r, "c")], ==, NS(200));
    result_free(r);
    r = simulate(three, "fennel: 1\nnetwork: {model: logp, L: 1000ns, o: 100ns, g: 300ns}\n", 0);
    g_assert_cmpint(r->times.start[T(r, "b")], ==, NS(300));
    g_assert_cmpint(r->times.start[T(r, "c")], ==, NS(600));
    result_free(r);
    r = simulate(three,
                 "fennel: 1\nnetwork: {model: loggp, L: 1000ns, o: 100ns, g: 50ns, G: 1ns/B}\n", 0);
    g_assert_cmpint(r->times.start[T(r, "b")], ==, NS(150));
    g_assert_cmpint(r->times.start[T(r, "c")], ==, NS(300));
    g_assert_cmpint(r->times.completion[T(r, "c")], ==, NS(1600));
    result_free(r);
}

/* Incast: ranks 1, 2, 3 put to rank 0 at time 0; all arrive at o + L = 1100. The
 * receiver takes them one at a time in send order, each holding its slot o + (s-1)G =
 * 100 + 100 = 200 and its NIC g + (s-1)G = 150: they complete at 1300, 1500, 1700. */
static void test_incast(void)
{
    Result *r = simulate("fennel: 1\ntasks:\n"
                         "- {id: s0, type: start, rank: 0}\n"
                         "- {id: s1, type: start, rank: 1}\n"
                         "- {id: s2, type: start, rank: 2}\n"
                         "- {id: s3, type: start, rank: 3}\n"
                         "- {id: a, type: put, rank: 1, to: 0, size: 101B, after: [s1]}\n"
                         "- {id: b, type: put, rank: 2, to: 0, size: 101B, after: [s2]}\n"
                         "- {id: c, type: put, rank: 3, to: 0, size: 101B, after: [s3]}\n"
                         "- {id: x, type: proxy, rank: 0, after: [s0, a, b, c]}\n",
                         "fennel: 1\nnetwork: {model: loggp, L: 1000ns, o: 100ns, g: 50ns, G: "
                         "1ns/B}\n",
                         0);
    g_assert_cmpint(r->times.completion[T(r, "a")], ==, NS(1300));
    g_assert_cmpint(r->times.completion[T(r, "b")], ==, NS(1500));
    g_assert_cmpint(r->times.completion[T(r, "c")], ==, NS(1700));
    g_assert_cmpint(r->summary.rank_finish[0], ==, NS(1700));
    result_free(r);
}

static const char *exchange = "fennel: 1\ntasks:\n"
                              "- {id: s0, type: start, rank: 0}\n"
                              "- {id: s1, type: start, rank: 1}\n"
                              "- {id: send, type: send, rank: 0, to: 1, size: 1000B, tag: 7, "
                              "after: [s0]}\n"
                              "- {id: x0, type: proxy, rank: 0, after: [send]}\n"
                              "- {id: nap, type: sleep, rank: 1, duration: 5000ns, after: [s1]}\n"
                              "- {id: recv, type: recv, rank: 1, from: 0, size: 1000B, tag: 7, "
                              "after: [nap]}\n"
                              "- {id: x1, type: proxy, rank: 1, after: [recv]}\n";

/* Eager (S none): the send completes when its overhead ends (100). The data arrives at
 * 1100 while rank 1 sleeps, so it is received at 5000 when the slot frees: busy o until
 * 5100, when the receive (posted at 5000) completes. */
static void test_send_recv_eager(void)
{
    Result *r = simulate(exchange, "fennel: 1\nnetwork: {model: loggp, L: 1000ns, o: 100ns}\n", 0);
    g_assert_true(r->ok);
    g_assert_cmpint(r->times.start[T(r, "x0")], ==, NS(100));
    g_assert_cmpint(r->times.start[T(r, "recv")], ==, NS(5000));
    g_assert_cmpint(r->times.start[T(r, "x1")], ==, NS(5100));
    result_free(r);
}

/* Rendezvous (S = 100 < 1000 bytes): the send completes only when it meets its receive,
 * at 5000, and its sender waits until then; the receive completes at 5100 as before. */
static void test_send_recv_rendezvous(void)
{
    Result *r =
        simulate(exchange, "fennel: 1\nnetwork: {model: loggp, L: 1000ns, o: 100ns, S: 100B}\n", 0);
    g_assert_true(r->ok);
    g_assert_cmpint(r->times.completion[T(r, "send")], ==, NS(5000));
    g_assert_cmpint(r->times.start[T(r, "x0")], ==, NS(5000));
    g_assert_cmpint(r->times.start[T(r, "x1")], ==, NS(5100));
    g_assert_cmpint(r->summary.rank_finish[0], ==, NS(5000));
    result_free(r);
}

/* Under postal and lbp a send is timed like a put and a receive completes when its message
 * has arrived and it has been posted: lbp 500/100, the data arrives at 600 and the receive
 * is posted at 5000, so it completes at 5000; the send completes at its arrival, 600. */
static void test_send_recv_lbp(void)
{
    Result *r =
        simulate(exchange, "fennel: 1\nnetwork: {model: lbp, alpha_p: 500ns, alpha_r: 100ns}\n", 0);
    g_assert_cmpint(r->times.start[T(r, "x0")], ==, NS(600));
    g_assert_cmpint(r->times.start[T(r, "x1")], ==, NS(5000));
    result_free(r);
}

/* Out-of-order tags and wildcards. Rank 0 sends tag 1 (8 B) then tag 2 (16 B) to rank 1;
 * rank 1 posts a receive for tag 2 first and then one for any tag: each gets the right
 * message whatever the posting order. Under postal (alpha 100, sender busy until
 * arrival) the sends arrive at 100 and 200; the tag-2 receive completes at 200, the
 * wildcard one takes the tag-1 message at 100 (posted at 0). A third receive from any
 * source matches rank 2's message. */
static void test_matching(void)
{
    Result *r = simulate("fennel: 1\ntasks:\n"
                         "- {id: s0, type: start, rank: 0}\n"
                         "- {id: s1, type: start, rank: 1}\n"
                         "- {id: s2, type: start, rank: 2}\n"
                         "- {id: t1, type: send, rank: 0, to: 1, size: 8B, tag: 1, after: [s0]}\n"
                         "- {id: t2, type: send, rank: 0, to: 1, size: 16B, tag: 2, after: "
                         "[t1]}\n"
                         "- {id: u, type: send, rank: 2, to: 1, size: 8B, tag: 9, after: [s2]}\n"
                         "- {id: r2, type: recv, rank: 1, from: 0, size: 16B, tag: 2, after: "
                         "[s1]}\n"
                         "- {id: rany, type: recv, rank: 1, from: 0, size: 8B, tag: any, after: "
                         "[s1]}\n"
                         "- {id: rsrc, type: recv, rank: 1, from: any, size: 8B, tag: 9, after: "
                         "[s1]}\n",
                         "fennel: 1\nnetwork: {model: postal, alpha: 100ns}\n", 0);
    g_assert_true(r->ok);
    g_assert_cmpint(r->times.completion[T(r, "r2")], ==, NS(200));
    g_assert_cmpint(r->times.completion[T(r, "rany")], ==, NS(100));
    g_assert_cmpint(r->times.completion[T(r, "rsrc")], ==, NS(100));
    result_free(r);
}

/* Two messages between a pair match in send order even when the second is faster
 * (MPI's non-overtaking rule). Under lbp (alpha_p 500, alpha_r 10, beta 1 ns/B) a 100-byte
 * send issued at 0 arrives at 610, and an 8-byte one issued at 10 would arrive at 528;
 * it may not overtake, so it arrives with the first. The first receive (any tag) gets
 * the first message at 610; had the small one overtaken, it would complete at 528. */
static void test_non_overtaking(void)
{
    Result *r = simulate("fennel: 1\ntasks:\n"
                         "- {id: s0, type: start, rank: 0}\n"
                         "- {id: s1, type: start, rank: 1}\n"
                         "- {id: big, type: send, rank: 0, to: 1, size: 100B, after: [s0]}\n"
                         "- {id: small, type: send, rank: 0, to: 1, size: 8B, after: [s0]}\n"
                         "- {id: r1, type: recv, rank: 1, from: 0, size: 100B, tag: any, after: "
                         "[s1]}\n"
                         "- {id: r2, type: recv, rank: 1, from: 0, size: 8B, tag: any, after: "
                         "[r1]}\n",
                         "fennel: 1\nnetwork: {model: lbp, alpha_p: 500ns, alpha_r: 10ns, beta: "
                         "1ns/B}\n",
                         0);
    g_assert_cmpint(r->times.start[T(r, "small")], ==, NS(10));
    g_assert_cmpint(r->times.completion[T(r, "r1")], ==, NS(610));
    g_assert_cmpint(r->times.completion[T(r, "r2")], ==, NS(610));
    result_free(r);
    /* Listed rank by rank, as GOAL's readers add tasks, the sends' pair is seen whole: two
     * sends, neither the only one of its pair (FENNEL_TASK_SOLE), the same times. */
    r = simulate("fennel: 1\ntasks:\n"
                 "- {id: s0, type: start, rank: 0}\n"
                 "- {id: big, type: send, rank: 0, to: 1, size: 100B, after: [s0]}\n"
                 "- {id: small, type: send, rank: 0, to: 1, size: 8B, after: [s0]}\n"
                 "- {id: s1, type: start, rank: 1}\n"
                 "- {id: r1, type: recv, rank: 1, from: 0, size: 100B, tag: any, after: [s1]}\n"
                 "- {id: r2, type: recv, rank: 1, from: 0, size: 8B, tag: any, after: [r1]}\n",
                 "fennel: 1\nnetwork: {model: lbp, alpha_p: 500ns, alpha_r: 10ns, beta: "
                 "1ns/B}\n",
                 0);
    g_assert_cmpint(r->times.completion[T(r, "r1")], ==, NS(610));
    g_assert_cmpint(r->times.completion[T(r, "r2")], ==, NS(610));
    result_free(r);
}

/* A receive that is never matched is reported with what it waits for. */
static void test_unmatched(void)
{
    Result *r = simulate("fennel: 1\ntasks:\n"
                         "- {id: s0, type: start, rank: 0}\n"
                         "- {id: s1, type: start, rank: 1}\n"
                         "- {id: snd, type: send, rank: 0, to: 1, size: 8B, tag: 3, after: [s0]}\n"
                         "- {id: rcv, type: recv, rank: 1, from: 0, size: 8B, tag: 4, after: "
                         "[s1]}\n"
                         "- {id: x1, type: proxy, rank: 1, after: [rcv]}\n",
                         logp, 0);
    g_assert_false(r->ok);
    g_assert_error(r->error, FENNEL_ERROR, FENNEL_ERROR_RUN);
    g_assert_cmpstr(r->error->message, ==,
                    "test.yaml:6:3: 2 tasks never completed: recv 'rcv' on rank 1 waits for a "
                    "message from rank 0 with tag 4; 'x1' waits for 'rcv'");
    result_free(r);
}

/* Placement: ranks 0 and 1 share a node (intra: postal alpha 10), rank 2 is on another
 * (lbp 500/100): the put to rank 1 takes 10, the one to rank 2 starts at 10 and takes 600. */
static void test_placement(void)
{
    Result *r = simulate("fennel: 1\ntasks:\n"
                         "- {id: s0, type: start, rank: 0}\n"
                         "- {id: near, type: put, rank: 0, to: 1, size: 8B, after: [s0]}\n"
                         "- {id: far, type: put, rank: 0, to: 2, size: 8B, after: [s0]}\n",
                         "fennel: 1\nnetwork: {model: lbp, alpha_p: 500ns, alpha_r: 100ns}\n"
                         "placement: {ranks_per_node: 2}\nintra: {alpha: 10ns}\n",
                         0);
    g_assert_cmpint(r->times.completion[T(r, "near")], ==, NS(10));
    g_assert_cmpint(r->times.start[T(r, "far")], ==, NS(10));
    g_assert_cmpint(r->times.completion[T(r, "far")], ==, NS(610));
    result_free(r);
}

/* A get under LogP: the request costs the issuer o and reaches the target's NIC at o + L =
 * 1100 (no host involved there: successors on other ranks may start then); the NIC
 * answers at once and the data reaches the issuer after L, at 2100, where receiving it
 * takes o: successors on the issuer start at 2200. */
static void test_get_logp(void)
{
    Result *r = simulate("fennel: 1\ntasks:\n"
                         "- {id: s0, type: start, rank: 0}\n"
                         "- {id: s1, type: start, rank: 1}\n"
                         "- {id: g, type: get, rank: 0, from: 1, size: 8B, after: [s0]}\n"
                         "- {id: x0, type: proxy, rank: 0, after: [g]}\n"
                         "- {id: x1, type: proxy, rank: 1, after: [s1, g]}\n",
                         logp, 0);
    g_assert_cmpint(r->times.start[T(r, "x1")], ==, NS(1100));
    g_assert_cmpint(r->times.start[T(r, "x0")], ==, NS(2200));
    result_free(r);
}

static const char *noisy_program = "fennel: 1\ntasks:\n"
                                   "- {id: s0, type: start, rank: 0}\n"
                                   "- {id: s1, type: start, rank: 1}\n"
                                   "- {id: c, type: compute, rank: 0, size: 8B, after: [s0]}\n"
                                   "- {id: p, type: put, rank: 0, to: 1, size: 8B, after: [c]}\n"
                                   "- {id: x, type: proxy, rank: 1, after: [s1, p]}\n";

static const char *noisy_model = "fennel: 1\n"
                                 "network: {model: lbp, alpha_p: 500ns, alpha_r: 100ns}\n"
                                 "compute: {model: fixed, duration: 10ns}\n"
                                 "noise:\n"
                                 "  network: {distribution: normal, mean: 0ns, stddev: 20ns}\n"
                                 "  host: {distribution: exponential, mean: 5ns}\n"
                                 "  compute: {distribution: betaprime, a: 2, b: 3, scale: 5ns}\n";

/* Noise is a pure function of the seed: the same seed gives the same makespan, different
 * seeds differ; without noise the makespan is 10 + 600 = 610. */
static void test_noise_reproducible(void)
{
    Result *a = simulate(noisy_program, noisy_model, 42);
    Result *b = simulate(noisy_program, noisy_model, 42);
    Result *c = simulate(noisy_program, noisy_model, 43);
    g_assert_cmpint(a->summary.makespan, ==, b->summary.makespan);
    g_assert_cmpint(a->summary.makespan, !=, c->summary.makespan);
    g_assert_cmpint(a->summary.makespan, !=, NS(610));
    result_free(a);
    result_free(b);
    result_free(c);
}

/* The sample means of each distribution, over 200 000 samples, lie within 6 standard
 * errors of the distribution's mean. */
static void test_noise_means(void)
{
    const struct {
        const char *yaml;
        double mean, sd; /* ns */
    } cases[] = {
        {"{distribution: constant, value: 7ns}", 7, 0},
        {"{distribution: uniform, min: 2ns, max: 6ns}", 4, 4 / sqrt(12)},
        {"{distribution: normal, mean: 5ns, stddev: 2ns}", 5, 2},
        {"{distribution: exponential, mean: 3ns}", 3, 3},
        {"{distribution: gamma, shape: 2, scale: 3ns}", 6, 3 * 1.41421356},
        /* Lognormal: scale exp(mu + sigma^2 / 2) = exp(0.125); sd sqrt(e^0.25 - 1) e^0.125. */
        {"{distribution: lognormal, mu: 0, sigma: 0.5, scale: 1ns}", 1.133148453, 0.604},
        /* Beta prime (a = 4, b = 6): mean a / (b - 1) = 0.8, variance a (a + b - 1) /
         * ((b - 2)(b - 1)^2) = 0.36, so sd 0.6; times the scale of 5 ns. */
        {"{distribution: betaprime, a: 4, b: 6, scale: 5ns}", 4, 3},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        char *yaml = g_strdup_printf("fennel: 1\nnoise: {compute: %s}\n", cases[i].yaml);
        FennelModel m;
        fennel_model_init(&m);
        GError *error = NULL;
        g_assert_true(fennel_model_parse(&m, "m.yaml", yaml, strlen(yaml), &error));
        const int n = 200000;
        double sum = 0;
        for (int k = 0; k < n; k++)
            sum += fennel_noise_sample_ns(&m.noise[FENNEL_NOISE_COMPUTE], 7, 2, (uint64_t)k);
        double mean = sum / n, tolerance = 6 * cases[i].sd / sqrt(n) + 1e-9;
        if (fabs(mean - cases[i].mean) > tolerance) {
            g_test_message("%s: sample mean %g, expected %g +- %g", cases[i].yaml, mean,
                           cases[i].mean, tolerance);
            g_test_fail();
        }
        fennel_model_clear(&m);
        g_free(yaml);
    }
}

/* A noisy duration never goes below zero: a normal with mean -1 us on a 10 ns compute
 * leaves it at 0. */
static void test_noise_truncated(void)
{
    Result *r = simulate("fennel: 1\ntasks:\n"
                         "- {id: s0, type: start, rank: 0}\n"
                         "- {id: c, type: compute, rank: 0, duration: 10ns, after: [s0]}\n",
                         "fennel: 1\nnoise: {compute: {distribution: normal, mean: -1us, "
                         "stddev: 1ns}}\n",
                         1);
    g_assert_cmpint(r->summary.makespan, ==, 0);
    result_free(r);
}

/* The reduction compute model: a compute of s bytes takes min(s, cache) gamma +
 * max(s - cache, 0) gamma_memory. gamma 0.5 ns/B, cache 1 KiB, gamma_memory 2 ns/B:
 * 512 B -> 256 ns; 1024 B (at the threshold) -> 512 ns; 3072 B -> 1024 x 0.5 + 2048 x 2 =
 * 4608 ns. Without a cache (0) every byte takes gamma: 3072 B -> 1536 ns. */
static void test_reduction_compute(void)
{
    const int64_t sizes[] = {512, 1024, 3072};
    const int64_t with_cache[] = {256, 512, 4608}, without[] = {256, 512, 1536};
    for (int c = 0; c < 2; c++) {
        for (size_t i = 0; i < G_N_ELEMENTS(sizes); i++) {
            char *program = g_strdup_printf("fennel: 1\ntasks:\n"
                                            "- {id: s0, type: start, rank: 0}\n"
                                            "- {id: c, type: compute, rank: 0, size: "
                                            "%" G_GINT64_FORMAT "B, after: [s0]}\n",
                                            sizes[i]);
            Result *r = simulate(program,
                                 c ? "fennel: 1\ncompute: {model: reduction, gamma: 0.5ns/B, "
                                     "cache: 1KiB, gamma_memory: 2ns/B}\n"
                                   : "fennel: 1\ncompute: {model: reduction, gamma: 0.5ns/B, "
                                     "gamma_memory: 2ns/B}\n",
                                 0);
            g_assert_true(r->ok);
            g_assert_cmpint(r->summary.makespan, ==, NS(c ? with_cache[i] : without[i]));
            result_free(r);
            g_free(program);
        }
    }
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/models/reduction-compute", test_reduction_compute);
    g_test_add_func("/models/logp-one-message", test_logp_one_message);
    g_test_add_func("/models/loggp-one-message", test_loggp_one_message);
    g_test_add_func("/models/loggp-zero-bytes", test_loggp_zero_bytes);
    g_test_add_func("/models/logp-pingpong", test_logp_pingpong);
    g_test_add_func("/models/back-to-back", test_back_to_back);
    g_test_add_func("/models/incast", test_incast);
    g_test_add_func("/models/send-recv-eager", test_send_recv_eager);
    g_test_add_func("/models/send-recv-rendezvous", test_send_recv_rendezvous);
    g_test_add_func("/models/send-recv-lbp", test_send_recv_lbp);
    g_test_add_func("/models/matching", test_matching);
    g_test_add_func("/models/non-overtaking", test_non_overtaking);
    g_test_add_func("/models/unmatched", test_unmatched);
    g_test_add_func("/models/placement", test_placement);
    g_test_add_func("/models/get-logp", test_get_logp);
    g_test_add_func("/models/noise-reproducible", test_noise_reproducible);
    g_test_add_func("/models/noise-means", test_noise_means);
    g_test_add_func("/models/noise-truncated", test_noise_truncated);
    return g_test_run();
}
