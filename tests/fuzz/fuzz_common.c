#include "fuzz_common.h"

#include "errors.h"
#include "capacity.h"
#include "program_io.h"
#include "simulate.h"
#include "topology_graph.h"
#include "verify.h"

#include <stdio.h>
#include <stdlib.h>

void fuzz_fail(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    fprintf(stderr, "fuzz invariant broken: ");
    vfprintf(stderr, format, args);
    fprintf(stderr, "\n");
    va_end(args);
    abort();
}

static void quiet_log(const gchar *domain, GLogLevelFlags level, const gchar *message,
                      gpointer data)
{
    (void)domain;
    (void)level;
    (void)message;
    (void)data;
}

void fuzz_setup(void)
{
    static gboolean done;
    if (done)
        return;
    done = TRUE;
    /* Warnings are not failures here; criticals and errors still abort through GLib. */
    g_log_set_handler(
        NULL, G_LOG_LEVEL_WARNING | G_LOG_LEVEL_MESSAGE | G_LOG_LEVEL_INFO | G_LOG_LEVEL_DEBUG,
        quiet_log, NULL);
}

/* libFuzzer stops at 2 GiB of RSS; the guard must refuse well before that. */
const FennelLimits fuzz_limits = {.memory = (uint64_t)256 << 20};

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_setup();
    return 0;
}

static void set(FennelModel *m, const char *key, const char *value)
{
    gboolean unknown = FALSE;
    char *why = NULL;
    if (!fennel_model_set(m, key, value, &unknown, &why))
        fuzz_fail("model --set %s=%s: %s", key, value, why ? why : "?");
}

void fuzz_model(FennelModel *m, unsigned which)
{
    fennel_model_init(m);
    switch (which % 4) {
    case 0:
        set(m, "network", "postal");
        set(m, "alpha", "100ns");
        set(m, "beta", "0.1ns/B");
        break;
    case 1:
        set(m, "network", "lbp");
        set(m, "alpha_p", "500ns");
        set(m, "alpha_r", "100ns");
        set(m, "beta", "0.4ns/B");
        set(m, "duration", "10ns");
        break;
    case 2:
        set(m, "network", "logp");
        set(m, "L", "2500ns");
        set(m, "o", "1500ns");
        set(m, "g", "1000ns");
        set(m, "resolution", "1ns");
        break;
    default:
        set(m, "network", "loggp");
        set(m, "L", "2500ns");
        set(m, "o", "1500ns");
        set(m, "g", "1000ns");
        set(m, "G", "6ns/B");
        set(m, "S", "65535B");
        set(m, "noise.network.distribution", "normal");
        set(m, "noise.network.stddev", "20ns");
        set(m, "noise.compute.distribution", "exponential");
        set(m, "noise.compute.mean", "5ns");
        break;
    }
}

FennelProgram *fuzz_small_program(int64_t bytes)
{
    FennelProgramBuilder *b = fennel_builder_new();
    uint32_t s0 = fennel_builder_add(b, FENNEL_TASK_START, 0);
    uint32_t s1 = fennel_builder_add(b, FENNEL_TASK_START, 1);
    fennel_builder_set_amount(b, s1, 400 * FENNEL_NS);
    uint32_t put = fennel_builder_add(b, FENNEL_TASK_PUT, 0);
    fennel_builder_set_peer(b, put, 1);
    fennel_builder_set_amount(b, put, bytes);
    fennel_builder_add_edge(b, s0, put);
    uint32_t bput = fennel_builder_add(b, FENNEL_TASK_PUT, 1);
    fennel_builder_set_peer(b, bput, 0);
    fennel_builder_set_amount(b, bput, bytes);
    fennel_builder_set_flags(b, bput, FENNEL_TASK_BLOCKING);
    fennel_builder_add_edge(b, put, bput);
    fennel_builder_add_edge(b, s1, bput);
    uint32_t get = fennel_builder_add(b, FENNEL_TASK_GET, 0);
    fennel_builder_set_peer(b, get, 1);
    fennel_builder_set_amount(b, get, bytes);
    fennel_builder_set_request(b, get, 8);
    fennel_builder_add_edge(b, bput, get);
    uint32_t sized = fennel_builder_add(b, FENNEL_TASK_COMPUTE, 1);
    fennel_builder_set_amount(b, sized, bytes);
    fennel_builder_set_flags(b, sized, FENNEL_TASK_SIZED);
    fennel_builder_add_edge(b, get, sized);
    uint32_t fixed = fennel_builder_add(b, FENNEL_TASK_COMPUTE, 0);
    fennel_builder_set_amount(b, fixed, 10 * FENNEL_NS);
    fennel_builder_add_edge(b, get, fixed);
    uint32_t send = fennel_builder_add(b, FENNEL_TASK_SEND, 0);
    fennel_builder_set_peer(b, send, 1);
    fennel_builder_set_amount(b, send, bytes);
    fennel_builder_set_tag(b, send, 3);
    fennel_builder_add_edge(b, fixed, send);
    uint32_t recv = fennel_builder_add(b, FENNEL_TASK_RECV, 1);
    fennel_builder_set_peer(b, recv, FENNEL_ANY);
    fennel_builder_set_amount(b, recv, bytes);
    fennel_builder_set_tag(b, recv, FENNEL_ANY);
    fennel_builder_add_edge(b, sized, recv);
    uint32_t sleep = fennel_builder_add(b, FENNEL_TASK_SLEEP, 1);
    fennel_builder_set_amount(b, sleep, 5 * FENNEL_NS);
    fennel_builder_add_edge(b, recv, sleep);
    uint32_t proxy = fennel_builder_add(b, FENNEL_TASK_PROXY, 0);
    fennel_builder_set_any(b, proxy, 1);
    fennel_builder_add_edge(b, send, proxy);
    fennel_builder_add_edge(b, sleep, proxy);
    GError *error = NULL;
    FennelProgram *p = fennel_builder_finish(b, NULL, 2, 2, &error);
    if (p == NULL)
        fuzz_fail("the small program: %s", error->message);
    return p;
}

int64_t fuzz_simulate(const FennelProgram *p, const FennelModel *m, uint64_t seed, gboolean trace)
{
    FennelProgram *programs[2] = {(FennelProgram *)p, NULL};
    FennelSummary summary;
    FennelTrace t;
    fennel_trace_init(&t);
    uint64_t events = 0;
    GError *error = NULL;
    gboolean ok = fennel_simulate(programs, m, seed, &summary, trace ? &t : NULL, &events, &error);
    if (!ok && (error == NULL || error->message[0] == '\0'))
        fuzz_fail("a failed run without a message");
    int64_t makespan = ok ? summary.makespan : -1;
    if (ok && makespan < 0)
        fuzz_fail("negative makespan %" G_GINT64_FORMAT, makespan);
    if (ok && trace) {
        GString *csv = g_string_new(NULL);
        fennel_trace_write_tasks_csv(&t, csv);
        g_string_free(csv, TRUE);
    }
    g_clear_error(&error);
    fennel_summary_clear(&summary);
    fennel_trace_clear(&t);
    return makespan;
}

/* Writes p as YAML, reads it back: same tasks, edges and ranks, and the same makespan. */
static void round_trip(const FennelProgram *p, const FennelModel *m, int64_t makespan)
{
    GString *yaml = g_string_new(NULL);
    fennel_program_write_yaml(p, yaml);
    GError *error = NULL;
    FennelProgram *q = fennel_program_parse_yaml_with("round-trip.yaml", yaml->str, yaml->len,
                                                      FENNEL_YAML_AUTO, &fuzz_limits, &error);
    if (q == NULL)
        fuzz_fail("the YAML writer's output does not read back: %s\n%s", error->message, yaml->str);
    if (q->n_tasks != p->n_tasks || q->n_edges != p->n_edges || q->n_ranks != p->n_ranks ||
        q->processes != p->processes)
        fuzz_fail(
            "the YAML round trip changed the program: tasks %u -> %u, edges %" G_GUINT64_FORMAT
            " -> %" G_GUINT64_FORMAT ", ranks %u -> %u",
            p->n_tasks, q->n_tasks, p->n_edges, q->n_edges, p->n_ranks, q->n_ranks);
    if (makespan >= 0) {
        int64_t again = fuzz_simulate(q, m, 1, FALSE);
        if (again != makespan)
            fuzz_fail("the YAML round trip changed the makespan: %" G_GINT64_FORMAT
                      " -> %" G_GINT64_FORMAT " ps\n%s",
                      makespan, again, yaml->str);
    }
    fennel_program_free(q);
    g_string_free(yaml, TRUE);
}

void fuzz_exercise_program(const FennelProgram *p, unsigned which)
{
    FennelProgramStats stats;
    fennel_program_stats(p, &stats);
    if (stats.critical_path_tasks > p->n_tasks)
        fuzz_fail("critical path of %" G_GUINT64_FORMAT " tasks in a program of %u",
                  stats.critical_path_tasks, p->n_tasks);
    if (p->n_tasks > FUZZ_MAX_TASKS || (uint64_t)p->n_ranks * p->processes > FUZZ_MAX_SLOTS)
        return;

    FennelModel m;
    fuzz_model(&m, which);
    int64_t makespan = fuzz_simulate(p, &m, 1, TRUE);
    /* The same seed gives the same run (engine rule 7, docs/SEMANTICS.md). */
    if (fuzz_simulate(p, &m, 1, FALSE) != makespan)
        fuzz_fail("two runs with one seed differ");
    if (p->start_succ == NULL && p->pin == NULL)
        round_trip(p, &m, makespan);

    GString *out = g_string_new(NULL);
    GError *error = NULL;
    fennel_program_write_dot(p, out);
    g_string_truncate(out, 0);
    if (!fennel_program_write_goal(p, &m, out, &error))
        g_clear_error(&error);
    g_string_truncate(out, 0);
    if (!fennel_program_write_fennel_goal(p, out, &error))
        g_clear_error(&error);
    g_string_free(out, TRUE);

    FennelCollective c = (FennelCollective)(which / 4 % FENNEL_COLLECTIVE_N);
    if (!fennel_verify_within(p, c, 0, &fuzz_limits, NULL, &error))
        g_clear_error(&error);
    fennel_model_clear(&m);
}

void fuzz_exercise_graph(FennelGraph *g)
{
    FennelTopology *t = fennel_topology_new(FENNEL_TOPOLOGY_GRAPH);
    t->graph = g;
    char *why = NULL;
    FennelNetwork *n = fennel_network_build(t, 1, &why);
    if (n == NULL)
        fuzz_fail("a graph that reads does not build: %s", why);
    const uint32_t nodes = MIN(n->nodes, 32u);
    for (uint32_t src = 0; src < nodes; src++) {
        for (uint32_t dst = 0; dst < nodes; dst++) {
            for (uint32_t choice = 0; src != dst && choice < 3; choice++) {
                uint32_t at = src, hops = 0;
                while (at != dst) {
                    const FennelHop h = fennel_network_hop_via(n, at, dst, choice);
                    uint32_t from, to, level;
                    if (!fennel_network_link(n, h.link, &from, &to, &level) || from != at ||
                        to != h.to || ++hops > n->vertices)
                        fuzz_fail("the route from %u to %u is broken at %u", src, dst, at);
                    at = h.to;
                }
            }
        }
    }
    fennel_network_free(n);
    FennelModel m;
    fuzz_model(&m, 0);
    m.topology = t;
    FennelProgram *p = fuzz_small_program(4096);
    for (int c = 0; c < FENNEL_CONTENTION_N_LEVELS; c++) {
        m.contention = (FennelContention)c;
        (void)fuzz_simulate(p, &m, 0, FALSE);
    }
    fennel_program_free(p);
    fennel_model_clear(&m);
}
