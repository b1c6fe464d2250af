/* The critical path (README, Commands) through two-sided messages: a receive posted before its
 * message is reached through the send it matched, one posted after its message had
 * arrived through its own readiness, and a rendezvous send through its own message or,
 * when its receive was posted after the message had arrived, through that receive. The
 * programs are in tests/data/critical-path, each with the derivation of its path from
 * the model rules of docs/SEMANTICS.md in its header comment; the expected steps below are
 * those derivations. Every path must tile [0, makespan]. */
#include "critical_path.h"
#include "engine.h"
#include "program_io.h"

#include <string.h>

#define NS(x) ((FennelTime)((x)*1000))

static const char *const logp = "fennel: 1\nnetwork: {model: logp, L: 500ns, o: 100ns, g: 0ns}\n";
static const char *const loggp_s100 =
    "fennel: 1\nnetwork: {model: loggp, L: 500ns, o: 100ns, g: 0ns, S: 100B}\n";
static const char *const lbp =
    "fennel: 1\nnetwork: {model: lbp, alpha_p: 500ns, alpha_r: 100ns, beta: 0ns/B}\n";

typedef struct {
    FennelModel model;
    FennelProgram *program;
    FennelTrace trace;
    FennelCriticalPath path;
} Traced;

static void traced_run(Traced *t, const char *file, const char *model)
{
    GError *error = NULL;
    fennel_model_init(&t->model);
    g_assert_true(fennel_model_parse(&t->model, "model.yaml", model, strlen(model), &error));
    g_assert_no_error(error);
    char *path = g_test_build_filename(G_TEST_DIST, "data", "critical-path", file, NULL);
    t->program = fennel_program_read(path, NULL, &error);
    g_assert_no_error(error);
    g_free(path);
    fennel_trace_init(&t->trace);
    FennelMachine *m = fennel_machine_new(t->program->n_ranks, t->program->processes, &t->model);
    FennelInstrument tracer = fennel_trace_instrument(&t->trace);
    fennel_machine_add_instrument(m, &tracer);
    g_assert_true(fennel_machine_run(m, t->program, &error));
    g_assert_no_error(error);
    fennel_machine_free(m);
    g_assert_true(fennel_critical_path(&t->trace, &t->path));
}

static void traced_clear(Traced *t)
{
    fennel_critical_path_clear(&t->path);
    fennel_trace_clear(&t->trace);
    fennel_program_free(t->program);
    fennel_model_clear(&t->model);
}

static uint32_t task(const FennelProgram *p, const char *name)
{
    char buf[24];
    for (uint32_t k = 0; k < p->n_tasks; k++) {
        if (strcmp(fennel_program_task_name(p, k, buf), name) == 0)
            return k;
    }
    g_error("no task %s", name);
}

typedef struct {
    const char *task;
    uint32_t rank;
    FennelPathKind kind;
    double from_ns, to_ns;
} Step;

/* The path's steps are exactly `steps`, they tile [0, makespan], the kinds add up to the
 * same sums, and its tasks are `chain` (NULL-terminated), earliest first. */
static void check_path(const Traced *t, const Step *steps, guint n, const char *const *chain)
{
    const FennelCriticalPath *path = &t->path;
    const FennelProgram *p = t->program;
    g_assert_cmpuint(path->steps->len, ==, n);
    FennelTime by_kind[FENNEL_PATH_N_KINDS] = {0};
    for (guint i = 0; i < n; i++) {
        const FennelPathStep *s = &g_array_index(path->steps, FennelPathStep, i);
        g_assert_cmpuint(s->task, ==, task(p, steps[i].task));
        g_assert_cmpuint(s->rank, ==, steps[i].rank);
        g_assert_cmpint(s->kind, ==, steps[i].kind);
        g_assert_cmpint(s->from, ==, NS(steps[i].from_ns));
        g_assert_cmpint(s->to, ==, NS(steps[i].to_ns));
        g_assert_cmpint(s->from, ==,
                        i == 0 ? 0 : g_array_index(path->steps, FennelPathStep, i - 1).to);
        by_kind[s->kind] += s->to - s->from;
    }
    FennelTime total = 0;
    for (int k = 0; k < FENNEL_PATH_N_KINDS; k++) {
        g_assert_cmpint(path->by_kind[k], ==, by_kind[k]);
        total += by_kind[k];
    }
    g_assert_cmpint(total, ==, path->end);
    g_assert_cmpint(path->end, ==, NS(steps[n - 1].to_ns));
    guint len = 0;
    while (chain[len])
        len++;
    g_assert_cmpuint(path->chain->len, ==, len);
    g_assert_cmpuint(path->tasks, ==, len);
    for (guint i = 0; i < len; i++)
        g_assert_cmpuint(g_array_index(path->chain, FennelPathLink, i).task, ==, task(p, chain[i]));
    /* The last task hands the path on at its end: the makespan. */
    g_assert_cmpint(g_array_index(path->chain, FennelPathLink, len - 1).handed, ==, path->end);
}

/* A receive posted at 0, its message sent after 1 us of compute (posted-first.yaml):
 * compute(rank 0) -> send overhead -> latency -> receive overhead -> the receive's
 * successor, not the receive's own start. */
static void test_posted_first(void)
{
    Traced t;
    traced_run(&t, "posted-first.yaml", logp);
    static const Step steps[] = {
        {"c0", 0, FENNEL_PATH_COMPUTE, 0, 1000},      {"send", 0, FENNEL_PATH_OVERHEAD, 1000, 1100},
        {"send", 0, FENNEL_PATH_LATENCY, 1100, 1600}, {"send", 1, FENNEL_PATH_OVERHEAD, 1600, 1700},
        {"work", 1, FENNEL_PATH_COMPUTE, 1700, 1900},
    };
    static const char *const chain[] = {"s0", "c0", "send", "recv", "work", NULL};
    check_path(&t, steps, G_N_ELEMENTS(steps), chain);
    g_assert_cmpint(t.path.by_kind[FENNEL_PATH_COMPUTE], ==, NS(1200));
    g_assert_cmpint(t.path.by_kind[FENNEL_PATH_OVERHEAD], ==, NS(200));
    g_assert_cmpint(t.path.by_kind[FENNEL_PATH_LATENCY], ==, NS(500));
    /* The send hands the path on when its message has been received, the receive when it
     * completes: both at 1700. */
    g_assert_cmpint(g_array_index(t.path.chain, FennelPathLink, 2).handed, ==, NS(1700));
    g_assert_cmpint(g_array_index(t.path.chain, FennelPathLink, 3).handed, ==, NS(1700));
    /* The trace knows the match both ways. */
    const FennelTraceRun *r = t.path.run;
    g_assert_cmpuint(r->matched[task(t.program, "recv")], ==, task(t.program, "send"));
    g_assert_cmpuint(r->matched[task(t.program, "send")], ==, task(t.program, "recv"));
    g_assert_cmpuint(r->matched[task(t.program, "c0")], ==, FENNEL_NO_TASK);
    traced_clear(&t);
}

/* The same program under lbp: the send is timed like a put, with no receive overhead. */
static void test_posted_first_lbp(void)
{
    Traced t;
    traced_run(&t, "posted-first.yaml", lbp);
    static const Step steps[] = {
        {"c0", 0, FENNEL_PATH_COMPUTE, 0, 1000},
        {"send", 0, FENNEL_PATH_OVERHEAD, 1000, 1100},
        {"send", 0, FENNEL_PATH_LATENCY, 1100, 1600},
        {"work", 1, FENNEL_PATH_COMPUTE, 1600, 1800},
    };
    static const char *const chain[] = {"s0", "c0", "send", "recv", "work", NULL};
    check_path(&t, steps, G_N_ELEMENTS(steps), chain);
    traced_clear(&t);
}

/* The message arrived (600, received by 700) before the receive was posted (1700): the
 * receive's readiness decides, through rank 2's put (arrived-first.yaml). */
static void test_arrived_first(void)
{
    Traced t;
    traced_run(&t, "arrived-first.yaml", logp);
    static const Step steps[] = {
        {"c2", 2, FENNEL_PATH_COMPUTE, 0, 1000},      {"put2", 2, FENNEL_PATH_OVERHEAD, 1000, 1100},
        {"put2", 2, FENNEL_PATH_LATENCY, 1100, 1600}, {"put2", 1, FENNEL_PATH_OVERHEAD, 1600, 1700},
        {"work", 1, FENNEL_PATH_COMPUTE, 1700, 1900},
    };
    static const char *const chain[] = {"s2", "c2", "put2", "recv", "work", NULL};
    check_path(&t, steps, G_N_ELEMENTS(steps), chain);
    g_assert_cmpuint(t.path.run->matched[task(t.program, "recv")], ==, task(t.program, "send"));
    traced_clear(&t);
}

/* The message arrived at 600 but waited for the receiver's slot until 1000, after the
 * receive was posted (receiver-busy.yaml): through the send, with the wait. */
static void test_receiver_busy(void)
{
    Traced t;
    traced_run(&t, "receiver-busy.yaml", logp);
    static const Step steps[] = {
        {"send", 0, FENNEL_PATH_OVERHEAD, 0, 100},
        {"send", 0, FENNEL_PATH_LATENCY, 100, 600},
        {"send", 1, FENNEL_PATH_SLOT_WAIT, 600, 1000},
        {"send", 1, FENNEL_PATH_OVERHEAD, 1000, 1100},
        {"work", 1, FENNEL_PATH_COMPUTE, 1100, 1300},
    };
    static const char *const chain[] = {"s0", "send", "recv", "work", NULL};
    check_path(&t, steps, G_N_ELEMENTS(steps), chain);
    traced_clear(&t);
}

/* A rendezvous send that meets its receive, posted long before, when its message arrives
 * (rendezvous-early-recv.yaml): its own message decides its completion. */
static void test_rendezvous_early_recv(void)
{
    Traced t;
    traced_run(&t, "rendezvous-early-recv.yaml", loggp_s100);
    static const Step steps[] = {
        {"c0", 0, FENNEL_PATH_COMPUTE, 0, 1000},
        {"send", 0, FENNEL_PATH_OVERHEAD, 1000, 1100},
        {"send", 0, FENNEL_PATH_LATENCY, 1100, 1600},
        {"after", 0, FENNEL_PATH_COMPUTE, 1600, 2100},
    };
    static const char *const chain[] = {"s0", "c0", "send", "after", NULL};
    check_path(&t, steps, G_N_ELEMENTS(steps), chain);
    traced_clear(&t);
}

/* A rendezvous send whose receive was posted (1700) after its message had been received
 * (700): the receive's posting completes the send, and the path goes on through the
 * receive's readiness (rendezvous-late-recv.yaml). */
static void test_rendezvous_late_recv(void)
{
    Traced t;
    traced_run(&t, "rendezvous-late-recv.yaml", loggp_s100);
    static const Step steps[] = {
        {"c2", 2, FENNEL_PATH_COMPUTE, 0, 1000},
        {"put2", 2, FENNEL_PATH_OVERHEAD, 1000, 1100},
        {"put2", 2, FENNEL_PATH_LATENCY, 1100, 1600},
        {"put2", 1, FENNEL_PATH_OVERHEAD, 1600, 1700},
        {"after", 0, FENNEL_PATH_COMPUTE, 1700, 2200},
    };
    static const char *const chain[] = {"s2", "c2", "put2", "recv", "send", "after", NULL};
    check_path(&t, steps, G_N_ELEMENTS(steps), chain);
    /* The receive and the send hand the path on at the receive's posting. */
    g_assert_cmpint(g_array_index(t.path.chain, FennelPathLink, 3).handed, ==, NS(1700));
    g_assert_cmpint(g_array_index(t.path.chain, FennelPathLink, 4).handed, ==, NS(1700));
    traced_clear(&t);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/critical-path/posted-first", test_posted_first);
    g_test_add_func("/critical-path/posted-first-lbp", test_posted_first_lbp);
    g_test_add_func("/critical-path/arrived-first", test_arrived_first);
    g_test_add_func("/critical-path/receiver-busy", test_receiver_busy);
    g_test_add_func("/critical-path/rendezvous-early-recv", test_rendezvous_early_recv);
    g_test_add_func("/critical-path/rendezvous-late-recv", test_rendezvous_late_recv);
    return g_test_run();
}
