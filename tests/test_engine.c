/* The engine rules of docs/SEMANTICS.md, each on a hand-computable program. Expected values are
 * derived in the comments from the rules, or taken from the original Fennel's test
 * suite where named. */
#include "engine.h"
#include "errors.h"
#include "program_io.h"

#include <string.h>

typedef struct {
    FennelTime start[64], local[64], completion[64], own[64];
    unsigned delayed, ready, started, completed, messages, busy;
} Record;

static void observe(void *data, const FennelProgram *p, const FennelEvent *ev)
{
    (void)p;
    Record *r = data;
    switch (ev->kind) {
    case FENNEL_EVENT_READY:
        r->ready++;
        break;
    case FENNEL_EVENT_DELAYED:
        r->delayed++;
        break;
    case FENNEL_EVENT_STARTED:
        r->started++;
        r->start[ev->task] = ev->time;
        break;
    case FENNEL_EVENT_COMPLETED:
        r->completed++;
        r->local[ev->task] = ev->local;
        r->completion[ev->task] = ev->completion;
        r->own[ev->task] = ev->issuer_completion;
        break;
    case FENNEL_EVENT_MESSAGE:
        r->messages++;
        break;
    case FENNEL_EVENT_BUSY:
        r->busy++;
        break;
    case FENNEL_EVENT_RANK_FINISHED:
    case FENNEL_EVENT_RUN_FINISHED:
    case FENNEL_EVENT_FLOW:
    case FENNEL_EVENT_LINK:
    case FENNEL_EVENT_LINK_SHARE:
        break;
    }
}

typedef struct {
    FennelModel model;
    FennelMachine *machine;
    FennelProgram *program;
    Record record;
} Run;

static FennelProgram *parse(const char *yaml)
{
    GError *error = NULL;
    FennelProgram *p = fennel_program_parse_yaml("test.yaml", yaml, strlen(yaml), &error);
    g_assert_no_error(error);
    return p;
}

static void model_from(FennelModel *m, const char *model_yaml)
{
    GError *error = NULL;
    fennel_model_init(m);
    if (model_yaml)
        g_assert_true(fennel_model_parse(m, "model.yaml", model_yaml, strlen(model_yaml), &error));
    g_assert_no_error(error);
}

/* Runs one program with an instrument that observes the events of `mask`; the caller frees
 * with run_free. */
static Run *run_observing(const char *yaml, const char *model_yaml, unsigned mask)
{
    Run *r = g_new0(Run, 1);
    model_from(&r->model, model_yaml);
    r->program = parse(yaml);
    r->machine = fennel_machine_new(r->program->n_ranks, r->program->processes, &r->model);
    FennelInstrument ins = {.mask = mask, .observe = observe, .data = &r->record};
    fennel_machine_add_instrument(r->machine, &ins);
    GError *error = NULL;
    g_assert_true(fennel_machine_run(r->machine, r->program, &error));
    g_assert_no_error(error);
    return r;
}

/* Runs one program observing every event. */
static Run *run(const char *yaml, const char *model_yaml)
{
    return run_observing(yaml, model_yaml, ~0u);
}

static void run_free(Run *r)
{
    fennel_machine_free(r->machine);
    fennel_program_free(r->program);
    g_free(r);
}

#define NS(x) ((FennelTime)((x)*1000))

static const char *gamma1 = "fennel: 1\ncompute: {model: gamma, gamma: 1ns/B}\n";

/* Original test_basic::test_start_proxy: the makespan is the skew. */
static void test_skew(void)
{
    Run *r = run("fennel: 1\ntasks:\n"
                 "- {id: s0, type: start, rank: 0, skew: 37ns}\n"
                 "- {id: x0, type: proxy, rank: 0, after: [s0]}\n",
                 NULL);
    g_assert_cmpint(fennel_machine_makespan(r->machine), ==, NS(37));
    g_assert_cmpint(r->record.start[1], ==, NS(37));
    run_free(r);
}

/* Original test_start_compute_proxy: a 100-byte compute under gamma 1 ns/B. */
static void test_compute(void)
{
    Run *r = run("fennel: 1\ntasks:\n"
                 "- {id: s0, type: start, rank: 0}\n"
                 "- {id: c0, type: compute, rank: 0, size: 100B, after: [s0]}\n"
                 "- {id: c1, type: compute, rank: 0, duration: 5ns, after: [c0]}\n"
                 "- {id: x0, type: proxy, rank: 0, after: [c1]}\n",
                 gamma1);
    /* c1 has its own duration, which the model does not touch: 100 + 5. */
    g_assert_cmpint(fennel_machine_makespan(r->machine), ==, NS(105));
    run_free(r);
}

/* Original test_any_property: c0 (any: 1) is ready at 0, the earliest of its
 * predecessors, but the rank is busy with the 1000 ns sleep: delayed to 1000, ends 1100. */
static void test_any(void)
{
    Run *r = run("fennel: 1\ntasks:\n"
                 "- {id: s0, type: start, rank: 0}\n"
                 "- {id: d0, type: sleep, rank: 0, duration: 1000ns, after: [s0]}\n"
                 "- {id: c0, type: compute, rank: 0, size: 100B, any: 1, after: [s0, d0]}\n"
                 "- {id: x1, type: proxy, rank: 0, after: [c0]}\n",
                 gamma1);
    g_assert_cmpint(r->record.start[2], ==, NS(1000));
    g_assert_cmpint(r->record.completion[2], ==, NS(1100));
    g_assert_cmpint(fennel_machine_makespan(r->machine), ==, NS(1100));
    g_assert_cmpuint(r->record.delayed, ==, 1);
    run_free(r);
}

/* `any: K` takes the K-th smallest completion, whatever order they arrive in; the task
 * may then be queued before the time last popped (engine rule 2, docs/SEMANTICS.md). Rank 0's put
 * reaches rank 1 at 300 (postal alpha 300); rank 1's own sleeps end at 100 and 500; with any: 2 the
 * proxy is ready at 300, after the engine already ran the 500 ns sleep. */
static void test_any_kth(void)
{
    Run *r = run("fennel: 1\nprocesses: 2\ntasks:\n"
                 "- {id: s0, type: start, rank: 0}\n"
                 "- {id: s1, type: start, rank: 1}\n"
                 "- {id: p0, type: put, rank: 0, to: 1, size: 0B, after: [s0]}\n"
                 "- {id: a1, type: sleep, rank: 1, duration: 500ns, after: [s1], concurrent: "
                 "true}\n"
                 "- {id: b1, type: sleep, rank: 1, duration: 100ns, after: [s1], concurrent: "
                 "true}\n"
                 "- {id: x1, type: proxy, rank: 1, any: 2, concurrent: true, after: [a1, p0, "
                 "b1]}\n",
                 "fennel: 1\nnetwork: {model: postal, alpha: 300ns}\n");
    g_assert_cmpint(r->record.start[5], ==, NS(300));
    run_free(r);
}

/* Original test_concurrency: two concurrent computes (100 and 10 ns) after one start;
 * one slot serialises them (110), two slots overlap them (100). */
static void test_concurrency(void)
{
    const char *body = "tasks:\n"
                       "- {id: s0, type: start, rank: 0}\n"
                       "- {id: c0, type: compute, rank: 0, duration: 100ns, concurrent: true, "
                       "after: [s0]}\n"
                       "- {id: c1, type: compute, rank: 0, duration: 10ns, concurrent: true, "
                       "after: [s0]}\n"
                       "- {id: x0, type: proxy, rank: 0, after: [c0, c1]}\n";
    char *one = g_strconcat("fennel: 1\nprocesses: 1\n", body, NULL);
    char *two = g_strconcat("fennel: 1\nprocesses: 2\n", body, NULL);
    Run *r = run(one, gamma1);
    g_assert_cmpint(fennel_machine_makespan(r->machine), ==, NS(110));
    run_free(r);
    r = run(two, gamma1);
    g_assert_cmpint(fennel_machine_makespan(r->machine), ==, NS(100));
    g_assert_cmpint(fennel_machine_slot_time(r->machine, 0, 1), ==, NS(10));
    run_free(r);
    g_free(one);
    g_free(two);
}

/* Original §8.3: B (50 ns) created before A (10 ns), both ready at 0 on one slot: the
 * tie goes to program order, so B runs 0-50 and A 50-60. */
static void test_ties(void)
{
    Run *r = run("fennel: 1\ntasks:\n"
                 "- {id: s, type: start, rank: 0}\n"
                 "- {id: B, type: compute, rank: 0, duration: 50ns, after: [s]}\n"
                 "- {id: A, type: compute, rank: 0, duration: 10ns, after: [s]}\n"
                 "- {id: x, type: proxy, rank: 0, after: [A, B]}\n",
                 NULL);
    g_assert_cmpint(r->record.start[1], ==, 0);
    g_assert_cmpint(r->record.start[2], ==, NS(50));
    g_assert_cmpint(fennel_machine_makespan(r->machine), ==, NS(60));
    run_free(r);
}

/* Original test_partitioned_pattern_manual: three concurrent computes (100, 10, 20) on a
 * 3-slot rank; x1 (any: 2, concurrent) is ready at 20, the second smallest, and x2 on
 * rank 1 follows it. Final slots: rank 0 [100, 20, 20], rank 1 [20, 0, 0]. */
static void test_partitioned_manual(void)
{
    Run *r = run("fennel: 1\nprocesses: 3\ntasks:\n"
                 "- {id: s0, type: start, rank: 0}\n"
                 "- {id: s1, type: start, rank: 1}\n"
                 "- {id: c0, type: compute, rank: 0, duration: 100ns, concurrent: true, after: "
                 "[s0]}\n"
                 "- {id: c1, type: compute, rank: 0, duration: 10ns, concurrent: true, after: "
                 "[s0]}\n"
                 "- {id: c2, type: compute, rank: 0, duration: 20ns, concurrent: true, after: "
                 "[s0]}\n"
                 "- {id: x0, type: proxy, rank: 0, after: [c0, c1, c2]}\n"
                 "- {id: x1, type: proxy, rank: 0, any: 2, concurrent: true, after: [c0, c1, "
                 "c2]}\n"
                 "- {id: x2, type: proxy, rank: 1, after: [s1, x1]}\n",
                 gamma1);
    g_assert_cmpint(r->record.completion[2], ==, NS(100));
    g_assert_cmpint(r->record.completion[3], ==, NS(10));
    g_assert_cmpint(r->record.completion[4], ==, NS(20));
    g_assert_cmpint(r->record.completion[5], ==, NS(100));
    g_assert_cmpint(r->record.completion[6], ==, NS(20));
    g_assert_cmpint(r->record.completion[7], ==, NS(20));
    const FennelTime slots[2][3] = {{NS(100), NS(20), NS(20)}, {NS(20), 0, 0}};
    for (int rank = 0; rank < 2; rank++)
        for (int s = 0; s < 3; s++)
            g_assert_cmpint(fennel_machine_slot_time(r->machine, rank, s), ==, slots[rank][s]);
    run_free(r);
}

static const char *pingpong = "fennel: 1\ntasks:\n"
                              "- {id: s0, type: start, rank: 0}\n"
                              "- {id: s1, type: start, rank: 1}\n"
                              "- {id: p0, type: put, rank: 0, to: 1, size: 8B, after: [s0]}\n"
                              "- {id: p1, type: put, rank: 1, to: 0, size: 8B, after: [s1, p0]}\n"
                              "- {id: x0, type: proxy, rank: 0, after: [p1]}\n"
                              "- {id: x1, type: proxy, rank: 1, after: [p1]}\n";

/* Original test_machine_sequential_programs: two ping-pongs one after the other on one
 * machine (postal alpha 100): the second starts where the first left the slots, 400. */
static void test_sequential(void)
{
    FennelModel m;
    model_from(&m, "fennel: 1\nnetwork: {model: postal, alpha: 100ns}\n");
    FennelProgram *p = parse(pingpong);
    FennelMachine *machine = fennel_machine_new(2, 1, &m);
    GError *error = NULL;
    g_assert_true(fennel_machine_run(machine, p, &error));
    g_assert_cmpint(fennel_machine_makespan(machine), ==, NS(200));
    g_assert_true(fennel_machine_run(machine, p, &error));
    g_assert_cmpint(fennel_machine_makespan(machine), ==, NS(400));
    fennel_machine_free(machine);
    fennel_program_free(p);
}

/* A start's skew is added after any wait for its slots: rank 0 is busy until 200 from
 * the first program, so a start with skew 50 completes at 250. */
static void test_skew_after_delay(void)
{
    FennelModel m;
    model_from(&m, "fennel: 1\nnetwork: {model: postal, alpha: 100ns}\n");
    FennelProgram *p = parse(pingpong);
    FennelProgram *q = parse("fennel: 1\ntasks:\n"
                             "- {id: s, type: start, rank: 0, skew: 50ns}\n"
                             "- {id: x, type: proxy, rank: 0, after: [s]}\n");
    FennelMachine *machine = fennel_machine_new(2, 1, &m);
    GError *error = NULL;
    g_assert_true(fennel_machine_run(machine, p, &error));
    g_assert_true(fennel_machine_run(machine, q, &error));
    g_assert_cmpint(fennel_machine_slot_time(machine, 0, 0), ==, NS(250));
    fennel_machine_free(machine);
    fennel_program_free(p);
    fennel_program_free(q);
}

/* Original pm_fetch: a 1024-byte get under postal(100, 0.1 ns/B), integer ns. The
 * request arrives at 100 + int(0.8) = 100, which releases rank 1's proxy; the data is
 * back at 100 + 100 + int(102.4) = 302, which releases rank 0's proxy. */
static void test_get_postal(void)
{
    Run *r = run("fennel: 1\ntasks:\n"
                 "- {id: s_0, type: start, rank: 0}\n"
                 "- {id: s_1, type: start, rank: 1}\n"
                 "- {id: g, type: get, rank: 0, from: 1, size: 1024B, after: [s_0]}\n"
                 "- {id: x_0, type: proxy, rank: 0, after: [s_0, g]}\n"
                 "- {id: x_1, type: proxy, rank: 1, after: [s_1, g]}\n",
                 "fennel: 1\nnetwork: {model: postal, alpha: 100ns, beta: 0.1ns/B}\n"
                 "resolution: 1ns\n");
    g_assert_cmpint(r->record.completion[2], ==, NS(100));
    g_assert_cmpint(r->record.own[2], ==, NS(302));
    g_assert_cmpint(r->record.start[4], ==, NS(100));
    g_assert_cmpint(r->record.start[3], ==, NS(302));
    g_assert_cmpint(fennel_machine_makespan(r->machine), ==, NS(302));
    g_assert_cmpuint(r->record.messages, ==, 2);
    run_free(r);
}

/* A get under lbp (500/100, beta 0): the request arrives at 100 + 500 = 600; the target's
 * NIC answers without host overhead, so the data takes alpha_p and is back at 1100; the
 * issuer's slot is busy only for alpha_r (docs/SEMANTICS.md). */
static void test_get_lbp(void)
{
    Run *r = run("fennel: 1\ntasks:\n"
                 "- {id: s_0, type: start, rank: 0}\n"
                 "- {id: s_1, type: start, rank: 1}\n"
                 "- {id: g, type: get, rank: 0, from: 1, size: 8B, after: [s_0]}\n"
                 "- {id: c_0, type: compute, rank: 0, duration: 10ns, after: [s_0]}\n"
                 "- {id: x_0, type: proxy, rank: 0, after: [g, c_0]}\n"
                 "- {id: x_1, type: proxy, rank: 1, after: [s_1, g]}\n",
                 "fennel: 1\nnetwork: {model: lbp, alpha_p: 500ns, alpha_r: 100ns}\n");
    g_assert_cmpint(r->record.local[2], ==, NS(100));
    g_assert_cmpint(r->record.start[3], ==, NS(100)); /* the compute waits for alpha_r only */
    g_assert_cmpint(r->record.start[5], ==, NS(600));
    g_assert_cmpint(r->record.start[4], ==, NS(1100));
    run_free(r);
}

/* An 8-byte lbp put with alpha_p 500, alpha_r 100, beta 0.4 ns/B arrives exactly at
 * 603.2 ns (docs/SEMANTICS.md); with resolution 1ns it truncates to the original's 603. A
 * blocking put holds the sender until then; a non-blocking one for alpha_r. */
static void test_put_lbp_resolution(void)
{
    const char *prog = "fennel: 1\ntasks:\n"
                       "- {id: s0, type: start, rank: 0}\n"
                       "- {id: s1, type: start, rank: 1}\n"
                       "- {id: p, type: put, rank: 0, to: 1, size: 8B, after: [s0]}\n"
                       "- {id: q, type: put, rank: 0, to: 1, size: 8B, blocking: true, after: "
                       "[s0]}\n"
                       "- {id: x1, type: proxy, rank: 1, after: [s1, p]}\n";
    const char *lbp = "fennel: 1\nnetwork: {model: lbp, alpha_p: 500ns, alpha_r: 100ns, beta: "
                      "0.4ns/B}\n";
    Run *r = run(prog, lbp);
    g_assert_cmpint(r->record.completion[2], ==, 603200);
    g_assert_cmpint(r->record.local[2], ==, NS(100));
    g_assert_cmpint(r->record.start[3], ==, NS(100));
    g_assert_cmpint(r->record.local[3], ==, NS(100) + 603200);
    run_free(r);
    char *truncating = g_strconcat(lbp, "resolution: 1ns\n", NULL);
    r = run(prog, truncating);
    g_assert_cmpint(r->record.completion[2], ==, NS(603));
    run_free(r);
    g_free(truncating);
}

/* Thesis Eq. 4.6: a multicast of b puts under lbp ends at alpha_p + b alpha_r (here with
 * beta 0: the original's multicast of width 7 on LBP(880, 0, 380) takes 3540). */
static void test_multicast_lbp(void)
{
    GString *yaml = g_string_new("fennel: 1\ntasks:\n- {id: s0, type: start, rank: 0}\n");
    for (int c = 1; c <= 7; c++)
        g_string_append_printf(yaml,
                               "- {id: s%d, type: start, rank: %d}\n"
                               "- {id: p%d, type: put, rank: 0, to: %d, size: 1B, after: [s0]}\n"
                               "- {id: x%d, type: proxy, rank: %d, after: [s%d, p%d]}\n",
                               c, c, c, c, c, c, c, c);
    Run *r = run(yaml->str, "fennel: 1\nnetwork: {model: lbp, alpha_p: 880, alpha_r: 380}\n");
    g_assert_cmpint(fennel_machine_makespan(r->machine), ==, NS(880 + 7 * 380));
    run_free(r);
    g_string_free(yaml, TRUE);
}

/* Tasks that never run are reported by name with what they wait for. The reader
 * cannot produce such a program, so the test forges a missing predecessor. */
static void test_stuck(void)
{
    FennelModel m;
    model_from(&m, NULL);
    FennelProgram *p = parse("fennel: 1\ntasks:\n"
                             "- {id: s0, type: start, rank: 0}\n"
                             "- {id: w, type: proxy, rank: 0, after: [s0]}\n"
                             "- {id: v, type: proxy, rank: 0, after: [w]}\n");
    /* Point s0's edge at v instead of w: w is left with no predecessor to start it. */
    g_assert_cmpuint(p->succ[p->succ_start[0]], ==, 1);
    p->succ[p->succ_start[0]] = 2;
    FennelMachine *machine = fennel_machine_new(1, 1, &m);
    GError *error = NULL;
    g_assert_false(fennel_machine_run(machine, p, &error));
    g_assert_error(error, FENNEL_ERROR, FENNEL_ERROR_RUN);
    g_assert_cmpstr(error->message, ==,
                    "test.yaml:4:3: 2 tasks never completed: 'w' waits for predecessors that "
                    "never completed; 'v' waits for 'w'");
    g_error_free(error);
    /* Without an error to fill, the run fails all the same (it wrote through NULL). */
    g_assert_false(fennel_machine_run(machine, p, NULL));
    fennel_machine_free(machine);
    fennel_program_free(p);
}

/* Simulated time that would overflow int64 is an error, not a wrap-around. */
static void test_overflow(void)
{
    FennelModel m;
    model_from(&m, NULL);
    FennelProgram *p = parse("fennel: 1\ntasks:\n"
                             "- {id: s0, type: start, rank: 0, skew: 5000000s}\n"
                             "- {id: a, type: sleep, rank: 0, duration: 5000000s, after: [s0]}\n");
    FennelMachine *machine = fennel_machine_new(1, 1, &m);
    GError *error = NULL;
    g_assert_false(fennel_machine_run(machine, p, &error));
    g_assert_error(error, FENNEL_ERROR, FENNEL_ERROR_RUN);
    /* Like every error about a program read from a file, it says where the task is. */
    g_assert_cmpstr(error->message, ==,
                    "test.yaml:4:3: simulated time overflows at task 'a' (beyond 9223372 seconds)");
    g_error_free(error);
    fennel_machine_free(machine);
    fennel_program_free(p);
}

/* A model duration too long for int64 picoseconds saturates at FENNEL_TIME_MAX; the run
 * must fail with the overflow error rather than complete at that time, also when noise
 * would take some of it back. */
static void test_overflow_saturated(void)
{
    static const struct {
        const char *model, *task;
    } cases[] = {
        {"fennel: 1\nnetwork: {model: lbp, alpha_p: 500ns, alpha_r: 100ns, beta: 0.4ns/B}\n",
         "{id: x, type: put, rank: 0, to: 1, size: 9000000000000000000B, after: [s0]}"},
        {"fennel: 1\nnetwork: {model: postal, alpha: 1ns, beta: 1ns/B}\n"
         "noise: {network: {distribution: constant, value: -20ns}}\n",
         "{id: x, type: put, rank: 0, to: 1, size: 9000000000000000000B, after: [s0]}"},
        {"fennel: 1\ncompute: {model: gamma, gamma: 1ns/B}\n",
         "{id: x, type: compute, rank: 0, size: 9000000000000000000B, after: [s0]}"},
        {"fennel: 1\ncompute: {model: gamma, gamma: 1ns/B}\n"
         "noise: {compute: {distribution: constant, value: -20ns}}\n",
         "{id: x, type: compute, rank: 0, size: 9000000000000000000B, after: [s0]}"},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        FennelModel m;
        model_from(&m, cases[i].model);
        char *yaml = g_strdup_printf("fennel: 1\nranks: 2\ntasks:\n"
                                     "- {id: s0, type: start, rank: 0}\n- %s\n",
                                     cases[i].task);
        FennelProgram *p = parse(yaml);
        FennelMachine *machine = fennel_machine_new(2, 1, &m);
        GError *error = NULL;
        g_assert_false(fennel_machine_run(machine, p, &error));
        g_assert_error(error, FENNEL_ERROR, FENNEL_ERROR_RUN);
        g_assert_cmpstr(error->message, ==,
                        "test.yaml:5:3: simulated time overflows at task 'x' (beyond 9223372 "
                        "seconds)");
        g_error_free(error);
        fennel_machine_free(machine);
        fennel_program_free(p);
        fennel_model_clear(&m);
        g_free(yaml);
    }
}

/* A program without source positions (a generated one) gets the plain message. */
static void test_overflow_unplaced(void)
{
    FennelModel m;
    model_from(&m, NULL);
    FennelProgramBuilder *b = fennel_builder_new();
    uint32_t s0 = fennel_builder_add(b, FENNEL_TASK_START, 0);
    fennel_builder_set_amount(b, s0, NS(5000000000000000));
    uint32_t a = fennel_builder_add(b, FENNEL_TASK_SLEEP, 0);
    fennel_builder_set_amount(b, a, NS(5000000000000000));
    fennel_builder_add_edge(b, s0, a);
    GError *error = NULL;
    FennelProgram *p = fennel_builder_finish(b, NULL, 0, 0, &error);
    g_assert_no_error(error);
    FennelMachine *machine = fennel_machine_new(1, 1, &m);
    g_assert_false(fennel_machine_run(machine, p, &error));
    g_assert_error(error, FENNEL_ERROR, FENNEL_ERROR_RUN);
    g_assert_cmpstr(error->message, ==,
                    "simulated time overflows at task 'sleep.r0' (beyond 9223372 seconds)");
    g_error_free(error);
    fennel_machine_free(machine);
    fennel_program_free(p);
}

/* Every task is reported ready, started and completed once; a put is one message. */
static void test_events(void)
{
    Run *r = run(pingpong, "fennel: 1\nnetwork: {model: postal, alpha: 1000ns}\n");
    g_assert_cmpuint(r->record.ready, ==, 6);
    g_assert_cmpuint(r->record.started, ==, 6);
    g_assert_cmpuint(r->record.completed, ==, 6);
    g_assert_cmpuint(r->record.messages, ==, 2);
    /* Original test_lbmachine: a zero-byte ping-pong under postal alpha 1000 takes 2000 (here
     * 8 bytes with beta 0). */
    g_assert_cmpint(fennel_machine_makespan(r->machine), ==, NS(2000));
    g_assert_cmpuint(fennel_machine_events(r->machine), ==, 6);
    run_free(r);
}

/* A stand-in displaced by an earlier task at the very time it stands in for (engine rule 3,
 * src/core/engine_wait.c): `late` (a put, ready at 0) waits for rank 0's slot, busy with
 * the 1000 ns sleep `c`, and stands in at 1000; `early` (before it in program order, a
 * 0 ns sleep ready at 500 when rank 1's sleep ends) waits too and takes its place at 1000.
 * At 1000 `early` starts and ends at once, then `late` starts: lbp, busy alpha_r = 100 ns,
 * arrival 1000 + 100 + 500 + 8 x 0.4 = 1603.2 ns. Each task starts exactly once, although
 * `late` has two entries of time 1000 in the queue (the displaced one and its new one). */
static void test_wait_displaced(void)
{
    Run *r = run("fennel: 1\nranks: 2\ntasks:\n"
                 "- {id: s0, type: start, rank: 0}\n"
                 "- {id: s1, type: start, rank: 1}\n"
                 "- {id: c, type: sleep, rank: 0, duration: 1000ns, after: [s0]}\n"
                 "- {id: w, type: sleep, rank: 1, duration: 500ns, after: [s1]}\n"
                 "- {id: early, type: sleep, rank: 0, duration: 0ns, after: [w]}\n"
                 "- {id: late, type: put, rank: 0, to: 1, size: 8B, after: [s0]}\n",
                 "fennel: 1\nnetwork: {model: lbp, alpha_p: 500ns, alpha_r: 100ns, beta: "
                 "0.4ns/B}\n");
    g_assert_cmpuint(r->record.started, ==, 6);
    g_assert_cmpuint(r->record.completed, ==, 6);
    g_assert_cmpint(r->record.start[4], ==, NS(1000));
    g_assert_cmpint(r->record.start[5], ==, NS(1000));
    g_assert_cmpint(r->record.completion[5], ==, NS(1603.2));
    run_free(r);
}

/* Messages waiting for their receiver (engine rule 3 and the network rules): under LogP
 * (L 1000, o 200, g 300 ns) ranks 1, 2 and 3 each put 8 B to rank 0 at 0; all arrive at
 * o + L = 1200 and are received in send order, each needing rank 0's NIC (g) and slot
 * (o): the first at 1200 (slot to 1400, NIC to 1500), the second at 1500 (to 1700, NIC to
 * 1800), the third at 1800 (to 2000). A put completes when its data is received. */
static void test_wait_fan_in(void)
{
    Run *r = run("fennel: 1\nranks: 4\ntasks:\n"
                 "- {id: s0, type: start, rank: 0}\n"
                 "- {id: s1, type: start, rank: 1}\n"
                 "- {id: s2, type: start, rank: 2}\n"
                 "- {id: s3, type: start, rank: 3}\n"
                 "- {id: p1, type: put, rank: 1, to: 0, size: 8B, after: [s1]}\n"
                 "- {id: p2, type: put, rank: 2, to: 0, size: 8B, after: [s2]}\n"
                 "- {id: p3, type: put, rank: 3, to: 0, size: 8B, after: [s3]}\n",
                 "fennel: 1\nnetwork: {model: logp, L: 1000ns, o: 200ns, g: 300ns}\n");
    g_assert_cmpint(r->record.completion[4], ==, NS(1400));
    g_assert_cmpint(r->record.completion[5], ==, NS(1700));
    g_assert_cmpint(r->record.completion[6], ==, NS(2000));
    g_assert_cmpint(fennel_machine_makespan(r->machine), ==, NS(2000));
    run_free(r);
}

/* Tasks made ready while their class's resources are busy join its wait list at once
 * (src/core/engine_wait.c) unless the DELAYED event is observed: the starts must be the
 * same either way. `run` observes everything, so every other test here takes the path
 * through the queue; these run each program both ways. */
static void check_join_same(const char *yaml, const char *model_yaml, Run **joined)
{
    Run *all = run(yaml, model_yaml);
    Run *r = run_observing(yaml, model_yaml, ~0u & ~(unsigned)FENNEL_EVENT_DELAYED);
    g_assert_cmpuint(r->record.started, ==, all->record.started);
    g_assert_cmpuint(r->record.delayed, ==, 0);
    for (uint32_t t = 0; t < r->program->n_tasks; t++) {
        g_assert_cmpint(r->record.start[t], ==, all->record.start[t]);
        g_assert_cmpint(r->record.completion[t], ==, all->record.completion[t]);
    }
    g_assert_cmpuint(fennel_machine_events(r->machine), <, fennel_machine_events(all->machine));
    run_free(all);
    *joined = r;
}

/* A fan-out: s0 releases four puts at 0 on rank 0's one slot. Under lbp (alpha_r 100 ns
 * busy, alpha_p 500 ns, 0.4 ns/B) they start at 0, 100, 200 and 300 ns in program order
 * and arrive 100 + 500 + 8 x 0.4 = 603.2 ns after their start. Joining at once, each put
 * is popped once: one event per task (5 starts and 4 puts). */
static void test_wait_join_fanout(void)
{
    Run *r;
    check_join_same("fennel: 1\nranks: 5\ntasks:\n"
                    "- {id: s0, type: start, rank: 0}\n"
                    "- {id: s1, type: start, rank: 1}\n"
                    "- {id: s2, type: start, rank: 2}\n"
                    "- {id: s3, type: start, rank: 3}\n"
                    "- {id: s4, type: start, rank: 4}\n"
                    "- {id: p1, type: put, rank: 0, to: 1, size: 8B, after: [s0]}\n"
                    "- {id: p2, type: put, rank: 0, to: 2, size: 8B, after: [s0]}\n"
                    "- {id: p3, type: put, rank: 0, to: 3, size: 8B, after: [s0]}\n"
                    "- {id: p4, type: put, rank: 0, to: 4, size: 8B, after: [s0]}\n",
                    "fennel: 1\nnetwork: {model: lbp, alpha_p: 500ns, alpha_r: 100ns, beta: "
                    "0.4ns/B}\n",
                    &r);
    for (uint32_t i = 0; i < 4; i++) {
        g_assert_cmpint(r->record.start[5 + i], ==, NS(100 * i));
        g_assert_cmpint(r->record.completion[5 + i], ==, NS(100 * i + 603.2));
    }
    g_assert_cmpuint(fennel_machine_events(r->machine), ==, 9);
    run_free(r);
}

/* A task joins a list before its stand-in. s0 releases c (a 1000 ns sleep), x1 and x2
 * (puts) at 0 on rank 0: c starts at once, x1 and x2 wait for the slot, x1 standing in at
 * 1000. At 200 rank 1 starts the 300 ns sleep w, which releases `early` (a 0 ns sleep on
 * rank 0, before x1 in program order) for 500: it joins the list and takes x1's place. At
 * 500 early finds the slot busy and stands in at 1000; there it starts and ends at once,
 * then x1 starts (busy 100 ns, arrival 1000 + 603.2), then x2 at 1100 (arrival 1703.2).
 * `late`, a put released at 500 (when w2 starts) for 1500, must not join the list, whose
 * stand-in is due at 1000: it starts at 1500, not behind x2 at 1200. */
static void test_wait_join_displaced(void)
{
    Run *r;
    check_join_same("fennel: 1\nranks: 2\ntasks:\n"
                    "- {id: s0, type: start, rank: 0}\n"
                    "- {id: s1, type: start, rank: 1}\n"
                    "- {id: d, type: sleep, rank: 1, duration: 200ns, after: [s1]}\n"
                    "- {id: w, type: sleep, rank: 1, duration: 300ns, after: [d]}\n"
                    "- {id: early, type: sleep, rank: 0, duration: 0ns, after: [w]}\n"
                    "- {id: c, type: sleep, rank: 0, duration: 1000ns, after: [s0]}\n"
                    "- {id: x1, type: put, rank: 0, to: 1, size: 8B, after: [s0]}\n"
                    "- {id: x2, type: put, rank: 0, to: 1, size: 8B, after: [s0]}\n"
                    "- {id: w2, type: sleep, rank: 1, duration: 1000ns, after: [w]}\n"
                    "- {id: late, type: put, rank: 0, to: 1, size: 8B, after: [w2]}\n",
                    "fennel: 1\nnetwork: {model: lbp, alpha_p: 500ns, alpha_r: 100ns, beta: "
                    "0.4ns/B}\n",
                    &r);
    g_assert_cmpint(r->record.start[3], ==, NS(200));
    g_assert_cmpint(r->record.start[8], ==, NS(500));
    g_assert_cmpint(r->record.start[9], ==, NS(1500));
    g_assert_cmpint(r->record.start[5], ==, NS(0));
    g_assert_cmpint(r->record.start[4], ==, NS(1000));
    g_assert_cmpint(r->record.start[6], ==, NS(1000));
    g_assert_cmpint(r->record.completion[6], ==, NS(1603.2));
    g_assert_cmpint(r->record.start[7], ==, NS(1100));
    g_assert_cmpint(r->record.completion[7], ==, NS(1703.2));
    run_free(r);
}

/* Under LogP (L 1000, o 200, g 300 ns) a put needs its rank's slot and NIC: three puts
 * released together start at 0, 300 and 600 (the gap, longer than o) and complete when
 * received, o + L + o = 1400 after their start (rank 1 receives each before the next
 * arrives); a compute released with them (another class: the slot alone) starts when the
 * first put's o ends, at 200, and runs 50 ns, before the second put. */
static void test_wait_join_classes(void)
{
    Run *r;
    check_join_same("fennel: 1\nranks: 2\ntasks:\n"
                    "- {id: s0, type: start, rank: 0}\n"
                    "- {id: s1, type: start, rank: 1}\n"
                    "- {id: p1, type: put, rank: 0, to: 1, size: 8B, after: [s0]}\n"
                    "- {id: p2, type: put, rank: 0, to: 1, size: 8B, after: [s0]}\n"
                    "- {id: k, type: compute, rank: 0, duration: 50ns, after: [s0]}\n"
                    "- {id: p3, type: put, rank: 0, to: 1, size: 8B, after: [s0]}\n",
                    "fennel: 1\nnetwork: {model: logp, L: 1000ns, o: 200ns, g: 300ns}\n", &r);
    g_assert_cmpint(r->record.start[2], ==, NS(0));
    g_assert_cmpint(r->record.start[3], ==, NS(300));
    g_assert_cmpint(r->record.start[4], ==, NS(200));
    g_assert_cmpint(r->record.start[5], ==, NS(600));
    g_assert_cmpint(r->record.completion[5], ==, NS(2000));
    run_free(r);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/engine/skew", test_skew);
    g_test_add_func("/engine/compute", test_compute);
    g_test_add_func("/engine/any", test_any);
    g_test_add_func("/engine/any-kth", test_any_kth);
    g_test_add_func("/engine/concurrency", test_concurrency);
    g_test_add_func("/engine/ties", test_ties);
    g_test_add_func("/engine/partitioned-manual", test_partitioned_manual);
    g_test_add_func("/engine/sequential", test_sequential);
    g_test_add_func("/engine/skew-after-delay", test_skew_after_delay);
    g_test_add_func("/engine/get-postal", test_get_postal);
    g_test_add_func("/engine/get-lbp", test_get_lbp);
    g_test_add_func("/engine/put-lbp-resolution", test_put_lbp_resolution);
    g_test_add_func("/engine/multicast-lbp", test_multicast_lbp);
    g_test_add_func("/engine/stuck", test_stuck);
    g_test_add_func("/engine/wait-join-fanout", test_wait_join_fanout);
    g_test_add_func("/engine/wait-join-displaced", test_wait_join_displaced);
    g_test_add_func("/engine/wait-join-classes", test_wait_join_classes);
    g_test_add_func("/engine/overflow", test_overflow);
    g_test_add_func("/engine/overflow-unplaced", test_overflow_unplaced);
    g_test_add_func("/engine/overflow-saturated", test_overflow_saturated);
    g_test_add_func("/engine/events", test_events);
    g_test_add_func("/engine/wait-displaced", test_wait_displaced);
    g_test_add_func("/engine/wait-fan-in", test_wait_fan_in);
    return g_test_run();
}
