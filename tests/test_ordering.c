/* `ordering: loggopsim` (docs/SEMANTICS.md, Ordering): LogGOPSim's order of events due at
 * the same instant, on hand-computable programs. Each expected time is derived step by
 * step from LogGOPSim's rules in the comment above it; the same programs written as GOAL
 * and run by LogGOPSim itself (spcl/LogGOPSim at commit 76451de, built from its public
 * source) print the rank finishing times asserted here. "seq" is the order of first
 * insertion into the event queue; every program's ranks start with a start task, whose
 * successors are queued when it is popped, as LogGOPSim queues a host's root operations. */
#include "run_helpers.h"

/* LogGP with L 500 or 1000 ns, o 500 ns, no gaps and no per-byte costs; S is LogGOPSim's
 * default, so 8-byte messages are eager and 100000-byte ones rendezvous. */
#define LOGGP(L)                                                                                   \
    "fennel: 1\nnetwork: {model: loggp, L: " L ", o: 500ns, g: 0ns, G: 0ns/B, S: 65535B}\n"
#define LOGGOPSIM_ORDER "ordering: loggopsim\n"

/* A message that arrives while its receiver's CPU is busy keeps its place (its send's) when
 * it waits, so it goes before a compute made ready later. L = 500.
 * seq: s0 0, s1 1; s0 releases snd (2); s1 releases rcv (3, receives before the rest) and c1
 * (4). At 0 snd runs (CPU to 500) and its message is queued for o + L = 1000 (5); rcv is
 * posted; c1 runs to 1500 and releases c2 for 1500 (6). At 1000 the message finds rank 1's
 * CPU busy and waits until 1500. At 1500 it goes first (5 < 6): received in o, 1500-2000,
 * which completes rcv; c2 then waits until 2000 and ends at 2100 (LogGOPSim: host 1 2100).
 * Under the default order tasks go first at 1500: c2 1500-1600, the message 1600-2100. */
static const char *arrival_while_busy = "fennel: 1\ntasks:\n"
                                        "- {id: s0, type: start, rank: 0}\n"
                                        "- {id: s1, type: start, rank: 1}\n"
                                        "- {id: snd, type: send, rank: 0, to: 1, size: 8B, "
                                        "after: [s0]}\n"
                                        "- {id: c1, type: compute, rank: 1, duration: 1500ns, "
                                        "after: [s1]}\n"
                                        "- {id: rcv, type: recv, rank: 1, from: 0, size: 8B, "
                                        "after: [s1]}\n"
                                        "- {id: c2, type: compute, rank: 1, duration: 100ns, "
                                        "after: [c1]}\n";

static void test_arrival_while_busy(void)
{
    Result *r = simulate(arrival_while_busy, LOGGP("500ns") LOGGOPSIM_ORDER, 0);
    g_assert_true(r->ok);
    g_assert_cmpint(r->times.completion[T(r, "rcv")], ==, NS(2000));
    g_assert_cmpint(r->times.start[T(r, "c2")], ==, NS(2000));
    g_assert_cmpint(r->summary.rank_finish[1], ==, NS(2100));
    result_free(r);

    r = simulate(arrival_while_busy, LOGGP("500ns"), 0);
    g_assert_cmpint(r->times.start[T(r, "c2")], ==, NS(1500));
    g_assert_cmpint(r->times.completion[T(r, "rcv")], ==, NS(2100));
    result_free(r);
}

/* Operations made ready by different events run in the order they became ready, not in
 * file order. L = 1000.
 * seq: s0 0, s1 1, s2 2; s0 releases rx (3) and ry (4), both posted at 0; s1 releases t1 (5),
 * s2 t2 (6). t1 and t2 run at 0 and their messages are queued for 1500: M1 (7) from rank 1,
 * M2 (8) from rank 2. At 1500 M1 is received (1500-2000), completing ry, which releases y
 * for 2000 (9); M2 waits for the CPU. At 2000 M2 (8) goes before y (9): received 2000-2500,
 * completing rx, which releases x for 2500 (10); y waits. At 2500 y (9) goes before x (10):
 * y 2500-2600, x 2600-2700 (LogGOPSim: host 0 2700). In file order x would go first. */
static void test_readiness_order(void)
{
    Result *r = simulate("fennel: 1\ntasks:\n"
                         "- {id: s0, type: start, rank: 0}\n"
                         "- {id: s1, type: start, rank: 1}\n"
                         "- {id: s2, type: start, rank: 2}\n"
                         "- {id: rx, type: recv, rank: 0, from: 2, size: 8B, after: [s0]}\n"
                         "- {id: ry, type: recv, rank: 0, from: 1, size: 8B, after: [s0]}\n"
                         "- {id: x, type: compute, rank: 0, duration: 100ns, after: [rx]}\n"
                         "- {id: y, type: compute, rank: 0, duration: 100ns, after: [ry]}\n"
                         "- {id: t1, type: send, rank: 1, to: 0, size: 8B, after: [s1]}\n"
                         "- {id: t2, type: send, rank: 2, to: 0, size: 8B, after: [s2]}\n",
                         LOGGP("1000ns") LOGGOPSIM_ORDER, 0);
    g_assert_true(r->ok);
    g_assert_cmpint(r->times.completion[T(r, "ry")], ==, NS(2000));
    g_assert_cmpint(r->times.completion[T(r, "rx")], ==, NS(2500));
    g_assert_cmpint(r->times.start[T(r, "y")], ==, NS(2500));
    g_assert_cmpint(r->times.start[T(r, "x")], ==, NS(2600));
    g_assert_cmpint(r->summary.rank_finish[0], ==, NS(2700));
    result_free(r);
}

/* Operations released together are taken sends first, then receives, then the rest,
 * whatever their file order. L = 1000.
 * seq: s0 0, s1 1; s0 releases c, r and snd, queued as snd (2), r (3), c (4); s1 releases
 * snd1 (5) and r1 (6). At 0 snd runs (CPU 0-500), r is posted, c waits for the CPU and runs
 * 500-600; on rank 1 snd1 runs 0-500 and r1 is posted. Both messages arrive at 1500 and are
 * received 1500-2000, completing r and r1 (LogGOPSim: hosts 0 and 1 2000). In file order c
 * would run 0-100 and delay the send to 100, so rank 1 would finish at 2100. */
static void test_released_together(void)
{
    static const char *program = "fennel: 1\ntasks:\n"
                                 "- {id: s0, type: start, rank: 0}\n"
                                 "- {id: s1, type: start, rank: 1}\n"
                                 "- {id: c, type: compute, rank: 0, duration: 100ns, after: "
                                 "[s0]}\n"
                                 "- {id: r, type: recv, rank: 0, from: 1, size: 8B, after: [s0]}\n"
                                 "- {id: snd, type: send, rank: 0, to: 1, size: 8B, after: [s0]}\n"
                                 "- {id: snd1, type: send, rank: 1, to: 0, size: 8B, after: "
                                 "[s1]}\n"
                                 "- {id: r1, type: recv, rank: 1, from: 0, size: 8B, after: "
                                 "[s1]}\n";
    Result *r = simulate(program, LOGGP("1000ns") LOGGOPSIM_ORDER, 0);
    g_assert_true(r->ok);
    g_assert_cmpint(r->times.start[T(r, "snd")], ==, NS(0));
    g_assert_cmpint(r->times.start[T(r, "c")], ==, NS(500));
    g_assert_cmpint(r->times.completion[T(r, "r")], ==, NS(2000));
    g_assert_cmpint(r->summary.rank_finish[0], ==, NS(2000));
    g_assert_cmpint(r->summary.rank_finish[1], ==, NS(2000));
    result_free(r);

    r = simulate(program, LOGGP("1000ns"), 0);
    g_assert_cmpint(r->times.start[T(r, "c")], ==, NS(0));
    g_assert_cmpint(r->times.start[T(r, "snd")], ==, NS(100));
    g_assert_cmpint(r->summary.rank_finish[1], ==, NS(2100));
    result_free(r);
}

/* The same rule when one event releases many (more than the few the engine sorts by
 * insertion): rank 0's start releases 17 computes of 100 ns and then a send, queued send
 * first. L = 1000. The send runs 0-500 and arrives at 1500, received 1500-2000 on rank 1;
 * the computes follow it in file order, c1 500-600, ..., c17 2100-2200 (LogGOPSim, the
 * same program as GOAL: host 0 2200, host 1 2000). In file order the send would wait for
 * the computes until 1700 and rank 1 would finish at 3700. */
static void test_released_together_many(void)
{
    GString *program = g_string_new("fennel: 1\ntasks:\n- {id: s0, type: start, rank: 0}\n"
                                    "- {id: s1, type: start, rank: 1}\n");
    for (int i = 1; i <= 17; i++)
        g_string_append_printf(program,
                               "- {id: c%d, type: compute, rank: 0, duration: 100ns, after: "
                               "[s0]}\n",
                               i);
    g_string_append(program, "- {id: snd, type: send, rank: 0, to: 1, size: 8B, after: [s0]}\n"
                             "- {id: r, type: recv, rank: 1, from: 0, size: 8B, after: [s1]}\n");
    Result *r = simulate(program->str, LOGGP("1000ns") LOGGOPSIM_ORDER, 0);
    g_assert_true(r->ok);
    g_assert_cmpint(r->times.start[T(r, "snd")], ==, NS(0));
    g_assert_cmpint(r->times.start[T(r, "c1")], ==, NS(500));
    g_assert_cmpint(r->times.start[T(r, "c17")], ==, NS(2100));
    g_assert_cmpint(r->summary.rank_finish[0], ==, NS(2200));
    g_assert_cmpint(r->summary.rank_finish[1], ==, NS(2000));
    result_free(r);
    g_string_free(program, TRUE);
}

/* A receive is posted when it is popped, without waiting for its CPU, and a rendezvous
 * send completes when its receive is posted. L = 1000, a 100000-byte send (> S).
 * seq: s0 0, s1 1; s0 releases snd (2); s1 releases c1 (3). At 0 snd runs (CPU 0-500; it
 * completes only when matched) and its message is queued for 1500 (4); c1 runs 0-2000 and
 * releases r (5, a receive first) and c2 (6), queued at rank 1's CPU time, 2000. At 1500
 * the message waits for the CPU. At 2000 it is received (2000-2500) with no receive posted
 * yet; r (5) is then posted and finds it: the send completes at 2000, so c0 runs 2000-2010
 * on rank 0 (LogGOPSim: host 0 2010); c2 waits for the CPU until 2500 and ends at 3500.
 * Under the default order c2 (before r in the file) takes the CPU at 2000, r is posted at
 * 3000, and the send completes then: c0 runs 3000-3010. */
static void test_rendezvous_late_recv(void)
{
    static const char *program = "fennel: 1\ntasks:\n"
                                 "- {id: s0, type: start, rank: 0}\n"
                                 "- {id: s1, type: start, rank: 1}\n"
                                 "- {id: snd, type: send, rank: 0, to: 1, size: 100000B, after: "
                                 "[s0]}\n"
                                 "- {id: c0, type: compute, rank: 0, duration: 10ns, after: "
                                 "[snd]}\n"
                                 "- {id: c1, type: compute, rank: 1, duration: 2000ns, after: "
                                 "[s1]}\n"
                                 "- {id: c2, type: compute, rank: 1, duration: 1000ns, after: "
                                 "[c1]}\n"
                                 "- {id: r, type: recv, rank: 1, from: 0, size: 100000B, after: "
                                 "[c1]}\n";
    Result *r = simulate(program, LOGGP("1000ns") LOGGOPSIM_ORDER, 0);
    g_assert_true(r->ok);
    g_assert_cmpint(r->times.completion[T(r, "snd")], ==, NS(2000));
    g_assert_cmpint(r->times.start[T(r, "c0")], ==, NS(2000));
    g_assert_cmpint(r->times.start[T(r, "c2")], ==, NS(2500));
    g_assert_cmpint(r->summary.rank_finish[0], ==, NS(2010));
    g_assert_cmpint(r->summary.rank_finish[1], ==, NS(3500));
    result_free(r);

    r = simulate(program, LOGGP("1000ns"), 0);
    g_assert_cmpint(r->times.start[T(r, "c0")], ==, NS(3000));
    g_assert_cmpint(r->summary.rank_finish[0], ==, NS(3010));
    result_free(r);
}

/* LogGOPSim's LogGP network has no topology: the combination is refused before running. */
static void test_no_topology(void)
{
    Result *r = simulate(
        arrival_while_busy,
        LOGGP("500ns") LOGGOPSIM_ORDER "topology: {kind: switch}\ncontention: endpoint\n", 0);
    g_assert_false(r->ok);
    g_assert_error(r->error, FENNEL_ERROR, FENNEL_ERROR_RUN);
    g_assert_cmpstr(r->error->message, ==,
                    "ordering: loggopsim cannot be combined with a topology (LogGOPSim's LogGP "
                    "network has none)");
    result_free(r);
}

/* The setting's values, in a model file and through --set's path. */
static void test_setting(void)
{
    FennelModel m;
    fennel_model_init(&m);
    g_assert_cmpint(m.ordering, ==, FENNEL_ORDERING_FENNEL);
    gboolean unknown;
    char *why = NULL;
    g_assert_true(fennel_model_set(&m, "ordering", "loggopsim", &unknown, &why));
    g_assert_cmpint(m.ordering, ==, FENNEL_ORDERING_LOGGOPSIM);
    g_assert_false(fennel_model_set(&m, "ordering", "fifo", &unknown, &why));
    g_assert_cmpstr(why, ==, "ordering: unknown order 'fifo' (known: fennel, loggopsim)");
    g_free(why);
    fennel_model_clear(&m);

    static const char *bad = "fennel: 1\nordering: lifo\n";
    GError *error = NULL;
    fennel_model_init(&m);
    g_assert_false(fennel_model_parse(&m, "m.yaml", bad, strlen(bad), &error));
    g_assert_cmpstr(error->message, ==,
                    "m.yaml:2:11: ordering: unknown order 'lifo' (known: fennel, loggopsim)");
    g_error_free(error);
    fennel_model_clear(&m);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/ordering/arrival-while-busy", test_arrival_while_busy);
    g_test_add_func("/ordering/readiness-order", test_readiness_order);
    g_test_add_func("/ordering/released-together", test_released_together);
    g_test_add_func("/ordering/released-together-many", test_released_together_many);
    g_test_add_func("/ordering/rendezvous-late-recv", test_rendezvous_late_recv);
    g_test_add_func("/ordering/no-topology", test_no_topology);
    g_test_add_func("/ordering/setting", test_setting);
    return g_test_run();
}
