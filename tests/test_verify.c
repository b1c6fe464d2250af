/* The collective data-flow checker (schedules/verify.h) on hand-made programs, and the
 * generators' YAML round trip. The sweeps over every generator and rank count are in
 * test_verify_sweeps.c (meson's `slow` suite).
 *
 * - Hand-broken programs fail with the message of docs/SCHEDULES.md ("rank R block B lacks
 *   contributions from ranks ..."): every put removed in turn, or sent to a wrong peer,
 *   from tree, ring and butterfly programs whose messages are all necessary.
 * - Hand-made programs show the other failures (a contribution combined twice, partial
 *   results combined outside a compute, two ranks combining in different orders) and the
 *   two-sided and get paths.
 * - Every generator's program survives the YAML round trip: written, read back, the same
 *   tasks, edges and makespan. */
#include "capacity.h"
#include "engine.h"
#include "errors.h"
#include "generator.h"
#include "model.h"
#include "program_io.h"
#include "verify.h"

#include <string.h>

/* Small builders for hand-made programs. */
static uint32_t task(FennelProgramBuilder *b, FennelTaskType type, uint32_t rank, uint32_t pred)
{
    uint32_t t = fennel_builder_add(b, type, rank);
    if (pred != UINT32_MAX)
        fennel_builder_add_edge(b, pred, t);
    if (type == FENNEL_TASK_COMPUTE) {
        fennel_builder_set_flags(b, t, FENNEL_TASK_SIZED);
        fennel_builder_set_amount(b, t, 8);
    }
    return t;
}

static uint32_t put(FennelProgramBuilder *b, uint32_t rank, uint32_t to, uint32_t pred)
{
    uint32_t t = task(b, FENNEL_TASK_PUT, rank, pred);
    fennel_builder_set_peer(b, t, to);
    fennel_builder_set_amount(b, t, 8);
    return t;
}

static FennelProgram *finish(FennelProgramBuilder *b, uint32_t ranks)
{
    GError *error = NULL;
    FennelProgram *p = fennel_builder_finish(b, NULL, ranks, 1, &error);
    g_assert_no_error(error);
    return p;
}

/* The checker's verdict: NULL when the program performs c, else the message. */
static char *verdict(const FennelProgram *p, FennelCollective c, uint32_t root)
{
    GError *error = NULL;
    if (fennel_verify(p, c, root, NULL, &error))
        return NULL;
    g_assert_true(g_error_matches(error, FENNEL_ERROR, FENNEL_ERROR_INPUT));
    char *message = g_strdup(error->message);
    g_error_free(error);
    return message;
}

static FennelProgram *generate(const char *name, uint32_t ranks)
{
    const FennelGenerator *g = fennel_generator_find(name);
    g_assert_nonnull(g);
    FennelGenOptions o;
    fennel_gen_options_init(&o);
    o.ranks = ranks;
    o.given = FENNEL_GEN_RANKS;
    GError *error = NULL;
    FennelProgram *p = fennel_generate(g, &o, &error);
    g_assert_no_error(error);
    return p;
}

/* ---- Hand-broken programs ---- */

/* A copy of p without task `drop` and its edges (NONE keeps all), with put `retarget`
 * sent to `to` instead. Tasks keep their order. */
static FennelProgram *altered(const FennelProgram *p, uint32_t drop, uint32_t retarget, uint32_t to)
{
    FennelProgramBuilder *b = fennel_builder_new();
    uint32_t *index = g_new(uint32_t, p->n_tasks);
    for (uint32_t t = 0; t < p->n_tasks; t++) {
        if (t == drop) {
            index[t] = UINT32_MAX;
            continue;
        }
        index[t] = fennel_builder_add(b, p->type[t], p->rank[t]);
        fennel_builder_set_flags(b, index[t], p->flags[t]);
        fennel_builder_set_amount(b, index[t], p->amount[t]);
        fennel_builder_set_peer(b, index[t], t == retarget ? to : p->peer[t]);
        if (p->block_count && p->block_count[t])
            fennel_builder_set_blocks(b, index[t], p->block_first[t], p->block_count[t]);
    }
    fennel_builder_set_n_blocks(b, p->n_blocks);
    for (uint32_t t = 0; t < p->n_tasks; t++) {
        for (uint64_t e = p->succ_start[t]; e < p->succ_start[t + 1]; e++) {
            if (t != drop && p->succ[e] != drop)
                fennel_builder_add_edge(b, index[t], index[p->succ[e]]);
        }
    }
    g_free(index);
    return finish(b, p->n_ranks);
}

typedef struct {
    const char *generator;
    uint32_t ranks;
} Broken;

/* Programs whose every message is needed: removing any put, or sending it elsewhere,
 * must leave some rank without some contribution. */
static void every_put_matters(gconstpointer data)
{
    const Broken *k = data;
    const FennelGenerator *g = fennel_generator_find(k->generator);
    FennelCollective c;
    g_assert_true(fennel_collective_parse(g->collective, &c));
    FennelProgram *p = generate(k->generator, k->ranks);
    char *ok = verdict(p, c, 0);
    g_assert_null(ok);
    unsigned puts = 0;
    for (uint32_t t = 0; t < p->n_tasks; t++) {
        if (p->type[t] != FENNEL_TASK_PUT)
            continue;
        puts++;
        uint32_t wrong = (p->peer[t] + 1) % p->n_ranks;
        if (wrong == p->rank[t])
            wrong = (wrong + 1) % p->n_ranks;
        for (int mode = 0; mode < 2; mode++) {
            FennelProgram *q =
                mode == 0 ? altered(p, t, UINT32_MAX, 0) : altered(p, UINT32_MAX, t, wrong);
            char *message = verdict(q, c, 0);
            if (message == NULL || strstr(message, "lacks contributions from ranks") == NULL)
                g_test_fail_printf("%s --ranks %u, put t%u (%u -> %u) %s: %s", k->generator,
                                   k->ranks, t, p->rank[t], p->peer[t],
                                   mode == 0 ? "removed" : "sent elsewhere",
                                   message ? message : "still verifies");
            g_free(message);
            fennel_program_free(q);
        }
    }
    g_assert_cmpuint(puts, >, 0);
    fennel_program_free(p);
}

/* The messages name the rank, the block and the missing contributions exactly. */
static void broken_messages(void)
{
    /* Recursive doubling on 4 ranks, stage 1: the first put is rank 0's to rank 1
     * (tasks: 4 starts and 4 entries, then rank 0's put). Without it rank 1 ends with
     * 1, 2, 3 (its partner 3 brings 2 and 3 in stage 2) but not 0. */
    FennelProgram *p = generate("allreduce-rd", 4);
    g_assert_cmpuint(p->type[8], ==, FENNEL_TASK_PUT);
    g_assert_cmpuint(p->peer[8], ==, 1);
    FennelProgram *q = altered(p, 8, UINT32_MAX, 0);
    char *message = verdict(q, FENNEL_COLLECTIVE_ALLREDUCE, 0);
    g_assert_cmpstr(message, ==, "rank 1 block 0 lacks contributions from ranks 0");
    g_free(message);
    fennel_program_free(q);
    /* The same put sent to rank 2 instead: rank 1 still lacks 0, and the hint names the
     * put nobody on rank 2 waits for only when rank 2 is the one that lacks. */
    q = altered(p, UINT32_MAX, 8, 2);
    message = verdict(q, FENNEL_COLLECTIVE_ALLREDUCE, 0);
    g_assert_cmpstr(message, ==, "rank 1 block 0 lacks contributions from ranks 0");
    g_free(message);
    fennel_program_free(q);
    fennel_program_free(p);

    /* A binomial broadcast from rank 0 on 8 ranks: the first stage is 0 -> 4; without
     * it ranks 4, 5, 6, 7 never get the root's data. */
    p = generate("bcast-binomial", 8);
    g_assert_cmpuint(p->type[16], ==, FENNEL_TASK_PUT);
    g_assert_cmpuint(p->peer[16], ==, 4);
    q = altered(p, UINT32_MAX, 16, 3);
    message = verdict(q, FENNEL_COLLECTIVE_BCAST, 0);
    g_assert_cmpstr(message, ==, "rank 4 block 0 lacks contributions from ranks 0");
    g_free(message);
    fennel_program_free(q);
    fennel_program_free(p);

    /* An allreduce program checked as the wrong collective, and a gather whose root is
     * not the rank the data went to. */
    p = generate("allgather-ring", 4);
    message = verdict(p, FENNEL_COLLECTIVE_ALLREDUCE, 0);
    g_assert_nonnull(message);
    g_free(message);
    fennel_program_free(p);
    p = generate("gather-binomial", 5);
    message = verdict(p, FENNEL_COLLECTIVE_GATHER, 2);
    g_assert_cmpstr(message, ==, "rank 2 block 0 lacks contributions from ranks 0");
    g_free(message);
    fennel_program_free(p);
}

/* ---- Hand-made programs ---- */

/* Two ranks; rank r's tasks: start, entry proxy. Returns the builder; e[r] = entries. */
static FennelProgramBuilder *two_or_three(uint32_t ranks, uint32_t *e)
{
    FennelProgramBuilder *b = fennel_builder_new();
    for (uint32_t r = 0; r < ranks; r++)
        e[r] = task(b, FENNEL_TASK_PROXY, r, task(b, FENNEL_TASK_START, r, UINT32_MAX));
    return b;
}

/* Rank 1 puts to rank 0, but rank 0's compute does not wait for it: the data is not
 * there as far as rank 0 knows, and the message says which put went unheard. */
static void unheard_put(void)
{
    uint32_t e[2];
    FennelProgramBuilder *b = two_or_three(2, e);
    put(b, 1, 0, e[1]); /* put.r1-r0 */
    task(b, FENNEL_TASK_COMPUTE, 0, e[0]);
    FennelProgram *p = finish(b, 2);
    char *message = verdict(p, FENNEL_COLLECTIVE_REDUCE, 0);
    g_assert_cmpstr(message, ==,
                    "rank 0 block 0 lacks contributions from ranks 1 (put 'put.r1-r0' from rank 1 "
                    "reaches rank 0, but no task there depends on it)");
    g_free(message);
    fennel_program_free(p);
}

/* Rank 1's contribution reaches rank 0 twice: once in stage 1, again in stage 2, where
 * rank 0 already holds 0+1. A sum would count rank 1 twice. */
static void double_count(void)
{
    uint32_t e[2];
    FennelProgramBuilder *b = two_or_three(2, e);
    uint32_t p1 = put(b, 1, 0, e[1]);
    uint32_t c1 = task(b, FENNEL_TASK_COMPUTE, 0, e[0]);
    fennel_builder_add_edge(b, p1, c1);
    uint32_t p2 = put(b, 1, 0, e[1]);
    uint32_t c2 = task(b, FENNEL_TASK_COMPUTE, 0, c1); /* compute.r0.2 */
    fennel_builder_add_edge(b, p2, c2);
    FennelProgram *p = finish(b, 2);
    char *message = verdict(p, FENNEL_COLLECTIVE_REDUCE, 0);
    g_assert_cmpstr(message, ==,
                    "rank 0 block 0: task 'compute.r0.2' combines contributions from ranks 1 more "
                    "than once");
    g_free(message);
    fennel_program_free(p);
}

/* Rank 0 receives rank 1's contribution into a proxy: a reduction needs a compute. */
static void reduction_without_compute(void)
{
    uint32_t e[2];
    FennelProgramBuilder *b = two_or_three(2, e);
    uint32_t p1 = put(b, 1, 0, e[1]);
    uint32_t x = task(b, FENNEL_TASK_PROXY, 0, e[0]); /* proxy.r0.2 */
    fennel_builder_add_edge(b, p1, x);
    FennelProgram *p = finish(b, 2);
    char *message = verdict(p, FENNEL_COLLECTIVE_REDUCE, 0);
    g_assert_cmpstr(message, ==,
                    "rank 0 block 0: task 'proxy.r0.2' (a proxy) combines partial results, which "
                    "only a compute task may");
    g_free(message);
    /* As a gather of rank 1's block to rank 0 the same program is fine: nothing is
     * reduced, block 1 is only moved. */
    message = verdict(p, FENNEL_COLLECTIVE_GATHER, 0);
    g_assert_null(message);
    fennel_program_free(p);
}

/* Three ranks that all end with every contribution, but rank 0 computed (0+1)+2 and
 * rank 2 computed 0+(1+2): floating-point sums may differ, which MPI forbids.
 *   stage 1: rank 1 puts to 0 and to 2; rank 0 computes 0+1, rank 2 computes 1+2
 *   stage 2: rank 0 puts its own 0 (from its entry) to 2, rank 2 its own 2 to 0;
 *            rank 0 computes (0+1)+2, rank 2 computes 0+(1+2)
 *   stage 3: rank 0 puts its result to rank 1, which computes it in (a copy). */
static void different_orders(void)
{
    uint32_t e[3];
    FennelProgramBuilder *b = two_or_three(3, e);
    uint32_t p10 = put(b, 1, 0, e[1]), p12 = put(b, 1, 2, e[1]);
    uint32_t c0 = task(b, FENNEL_TASK_COMPUTE, 0, e[0]);
    fennel_builder_add_edge(b, p10, c0);
    uint32_t c2 = task(b, FENNEL_TASK_COMPUTE, 2, e[2]);
    fennel_builder_add_edge(b, p12, c2);
    uint32_t p02 = put(b, 0, 2, e[0]), p20 = put(b, 2, 0, e[2]);
    uint32_t d0 = task(b, FENNEL_TASK_COMPUTE, 0, c0);
    fennel_builder_add_edge(b, p20, d0);
    uint32_t d2 = task(b, FENNEL_TASK_COMPUTE, 2, c2);
    fennel_builder_add_edge(b, p02, d2);
    uint32_t p01 = put(b, 0, 1, d0);
    uint32_t d1 = task(b, FENNEL_TASK_COMPUTE, 1, e[1]);
    fennel_builder_add_edge(b, p01, d1);
    FennelProgram *p = finish(b, 3);
    char *message = verdict(p, FENNEL_COLLECTIVE_ALLREDUCE, 0);
    g_assert_cmpstr(message, ==,
                    "ranks 0 and 2 combine block 0 in different orders: ((0+1)+2) vs "
                    "(0+(1+2))");
    g_free(message);
    /* Reduced to rank 0 or 2 alone, the order does not matter. */
    message = verdict(p, FENNEL_COLLECTIVE_REDUCE, 2);
    g_assert_null(message);
    fennel_program_free(p);
}

/* Two-sided: each rank sends its vector and receives the other's, then reduces; the
 * sends are matched to the receives by (source, destination, tag). */
static FennelProgram *send_recv(uint32_t tag1, uint32_t from1)
{
    uint32_t e[2];
    FennelProgramBuilder *b = two_or_three(2, e);
    for (uint32_t r = 0; r < 2; r++) {
        uint32_t s = task(b, FENNEL_TASK_SEND, r, e[r]);
        fennel_builder_set_peer(b, s, 1 - r);
        fennel_builder_set_amount(b, s, 8);
        fennel_builder_set_tag(b, s, 5);
        uint32_t v = task(b, FENNEL_TASK_RECV, r, e[r]);
        fennel_builder_set_peer(b, v, r == 1 ? from1 : 1);
        fennel_builder_set_amount(b, v, 8);
        fennel_builder_set_tag(b, v, r == 1 ? tag1 : 5);
        uint32_t c = task(b, FENNEL_TASK_COMPUTE, r, v);
        task(b, FENNEL_TASK_PROXY, r, c);
    }
    return finish(b, 2);
}

static void two_sided(void)
{
    FennelProgram *p = send_recv(5, 0);
    char *message = verdict(p, FENNEL_COLLECTIVE_ALLREDUCE, 0);
    g_assert_null(message);
    fennel_program_free(p);
    /* Rank 1 waits for tag 6 instead of 5: rank 0's send has no receive, and rank 1's
     * recv no send. Tasks are named by type, rank and peer (program.h). */
    p = send_recv(6, 0);
    message = verdict(p, FENNEL_COLLECTIVE_ALLREDUCE, 0);
    g_assert_cmpstr(message, ==,
                    "send 'send.r0-r1' has no matching recv (from rank 0 to rank 1, tag 5)");
    g_free(message);
    fennel_program_free(p);
    p = send_recv(5, FENNEL_ANY);
    message = verdict(p, FENNEL_COLLECTIVE_ALLREDUCE, 0);
    g_assert_cmpstr(message, ==,
                    "recv 'recv.r1-any' accepts any source or any tag, which the checker cannot "
                    "match before the run");
    g_free(message);
    fennel_program_free(p);
}

/* One-sided read: rank 0 gets rank 1's vector and reduces it: a reduce to rank 0. */
static void get_reduce(void)
{
    uint32_t e[2];
    FennelProgramBuilder *b = two_or_three(2, e);
    uint32_t g = task(b, FENNEL_TASK_GET, 0, e[0]);
    fennel_builder_set_peer(b, g, 1);
    fennel_builder_set_amount(b, g, 8);
    task(b, FENNEL_TASK_COMPUTE, 0, g);
    FennelProgram *p = finish(b, 2);
    char *message = verdict(p, FENNEL_COLLECTIVE_REDUCE, 0);
    g_assert_null(message);
    message = verdict(p, FENNEL_COLLECTIVE_ALLREDUCE, 0);
    g_assert_cmpstr(message, ==, "rank 1 block 0 lacks contributions from ranks 0");
    g_free(message);
    fennel_program_free(p);
}

/* Block ranges must lie inside the declared vector. */
static void blocks_out_of_range(void)
{
    uint32_t e[2];
    FennelProgramBuilder *b = two_or_three(2, e);
    uint32_t t = put(b, 0, 1, e[0]);
    task(b, FENNEL_TASK_PROXY, 1, t);
    fennel_builder_set_n_blocks(b, 2);
    fennel_builder_set_blocks(b, t, 2, 1);
    GError *error = NULL;
    g_assert_null(fennel_builder_finish(b, NULL, 2, 1, &error));
    g_assert_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT);
    g_assert_cmpstr(error->message, ==,
                    "task 'put.r0-r1' moves blocks 2+1, outside the vector's 2 blocks");
    g_error_free(error);
}

/* A block range may wrap around the vector. Rank 0 scatters to ranks 1 and 2 the
 * ranges 1+1 (block 1) and 2+2 (blocks 2 and 3); rank 2 passes on the wrapping range
 * 3+2 (blocks 3 and 0) to rank 3, which ends with block 3 (and block 0, which a scatter
 * does not ask about). */
static void wrapping_range(void)
{
    uint32_t e[4];
    FennelProgramBuilder *b = two_or_three(4, e);
    uint32_t a = put(b, 0, 1, e[0]), c = put(b, 0, 2, e[0]);
    fennel_builder_set_blocks(b, a, 1, 1);
    fennel_builder_set_blocks(b, c, 2, 2);
    uint32_t x1 = task(b, FENNEL_TASK_PROXY, 1, e[1]), x2 = task(b, FENNEL_TASK_PROXY, 2, e[2]);
    fennel_builder_add_edge(b, a, x1);
    fennel_builder_add_edge(b, c, x2);
    uint32_t d = put(b, 2, 3, x2);
    fennel_builder_set_blocks(b, d, 3, 2);
    fennel_builder_add_edge(b, d, task(b, FENNEL_TASK_PROXY, 3, e[3]));
    fennel_builder_set_n_blocks(b, 4);
    FennelProgram *p = finish(b, 4);
    char *message = verdict(p, FENNEL_COLLECTIVE_SCATTER, 0);
    g_assert_null(message);
    /* As a broadcast, rank 1 lacks the root's blocks other than 1. */
    message = verdict(p, FENNEL_COLLECTIVE_BCAST, 0);
    g_assert_cmpstr(message, ==, "rank 1 block 0 lacks contributions from ranks 0");
    g_free(message);
    fennel_program_free(p);
}

/* Recursive doubling on 1024 ranks is checked quickly (reported, not asserted). */
static void large_recursive_doubling(void)
{
    FennelProgram *p = generate("allreduce-rd", 1024);
    gint64 t0 = g_get_monotonic_time();
    FennelVerifyReport report;
    GError *error = NULL;
    g_assert_true(fennel_verify(p, FENNEL_COLLECTIVE_ALLREDUCE, 0, &report, &error));
    g_test_message("allreduce-rd on 1024 ranks (%u tasks) verified in %.3f s", p->n_tasks,
                   (g_get_monotonic_time() - t0) / 1e6);
    /* Recursive doubling forms 512 + 256 + ... + 1 = 1023 distinct partial results:
     * both partners of a pair form the same one. */
    g_assert_cmpuint(report.combines, ==, 1023);
    g_assert_cmpuint(report.blocks, ==, 1);
    fennel_program_free(p);
}

/* A check that cannot fit in memory is refused with the size it would need: an
 * allgather on 256 ranks holds 256 blocks on each rank, 3 x 256 x 256 x 4 B = 768 KiB of
 * values, more than half of a machine of 1 MiB. */
static void too_big(void)
{
    FennelProgram *p = generate("allgather-bruck", 256);
    FennelLimits small = {.memory = 1 << 20};
    GError *error = NULL;
    g_assert_false(fennel_verify_within(p, FENNEL_COLLECTIVE_ALLGATHER, 0, &small, NULL, &error));
    char *message = g_strdup(error->message);
    g_error_free(error);
    g_assert_true(g_str_has_prefix(message, "checking allgather on 256 ranks would need about "));
    g_assert_true(g_str_has_suffix(message, "GiB (a value for each of 256 blocks on each rank); "
                                            "the machine has 0.0 GiB"));
    g_free(message);
    g_assert_null(verdict(p, FENNEL_COLLECTIVE_ALLGATHER, 0));
    fennel_program_free(p);
}

/* ---- The YAML round trip of every generator ---- */

static FennelTime makespan(const FennelProgram *p, const FennelModel *m)
{
    FennelMachine *machine = fennel_machine_new(p->n_ranks, p->processes, m);
    GError *error = NULL;
    g_assert_true(fennel_machine_run(machine, p, &error));
    g_assert_no_error(error);
    FennelTime t = fennel_machine_makespan(machine);
    fennel_machine_free(machine);
    return t;
}

#define SAME_ARRAY(a, b, n) g_assert_cmpmem((a), sizeof(*(a)) * (n), (b), sizeof(*(b)) * (n))

static void round_trip(gconstpointer data)
{
    const FennelGenerator *g = data;
    FennelModel model;
    fennel_model_init(&model);
    GError *error = NULL;
    char *preset =
        g_test_build_filename(G_TEST_DIST, "..", "models", "presets", "thesis-figures.yaml", NULL);
    g_assert_true(fennel_model_read(&model, preset, &error));
    g_free(preset);
    static const uint32_t counts[] = {1, 5, 8};
    for (size_t i = 0; i < G_N_ELEMENTS(counts); i++) {
        FennelGenOptions o;
        fennel_gen_options_init(&o);
        if (g->options & FENNEL_GEN_RANKS) {
            o.ranks = counts[i];
            o.given = FENNEL_GEN_RANKS;
        } else if (i > 0) {
            break;
        }
        FennelProgram *p = fennel_generate(g, &o, &error);
        if (p == NULL) { /* outside the generator's domain */
            g_assert_true(g_error_matches(error, FENNEL_ERROR, FENNEL_ERROR_INPUT));
            g_clear_error(&error);
            continue;
        }
        GString *yaml = g_string_new(NULL);
        fennel_program_write_yaml(p, yaml);
        FennelProgram *q = fennel_program_parse_yaml(g->name, yaml->str, yaml->len, &error);
        if (q == NULL)
            g_error("%s --ranks %u: the YAML does not read back: %s\n%s", g->name, o.ranks,
                    error->message, yaml->str);
        g_assert_cmpuint(q->n_tasks, ==, p->n_tasks);
        g_assert_cmpuint(q->n_ranks, ==, p->n_ranks);
        g_assert_cmpuint(q->processes, ==, p->processes);
        g_assert_cmpuint(q->n_edges, ==, p->n_edges);
        SAME_ARRAY(q->type, p->type, p->n_tasks);
        SAME_ARRAY(q->flags, p->flags, p->n_tasks);
        SAME_ARRAY(q->rank, p->rank, p->n_tasks);
        SAME_ARRAY(q->peer, p->peer, p->n_tasks);
        SAME_ARRAY(q->amount, p->amount, p->n_tasks);
        SAME_ARRAY(q->succ_start, p->succ_start, p->n_tasks + 1);
        SAME_ARRAY(q->succ, p->succ, p->succ_start[p->n_tasks]);
        gboolean trees = FALSE;
        for (uint32_t t = 0; t < p->n_tasks; t++) {
            g_assert_cmpuint(fennel_program_any(q, t), ==, fennel_program_any(p, t));
            if (p->type[t] == FENNEL_TASK_GET)
                g_assert_cmpint(q->request[t], ==, p->request[t]);
            if (p->type[t] == FENNEL_TASK_LOAD_REDUCE || p->type[t] == FENNEL_TASK_MULTICAST) {
                g_assert_cmpuint(q->tag[t], ==, p->tag[t]);
                trees = TRUE;
            }
        }
        if (trees) {
            /* A switch's operations need a topology: one server of 8 GPUs on an NVSwitch. */
            FennelModel rail;
            fennel_model_init(&rail);
            char *file =
                g_test_build_filename(G_TEST_DIST, "data", "topology", "rail.model.yaml", NULL);
            g_assert_true(fennel_model_read(&rail, file, &error));
            g_free(file);
            g_assert_cmpint(makespan(q, &rail), ==, makespan(p, &rail));
            fennel_model_clear(&rail);
        } else {
            g_assert_cmpint(makespan(q, &model), ==, makespan(p, &model));
        }
        g_string_free(yaml, TRUE);
        fennel_program_free(q);
        fennel_program_free(p);
    }
    fennel_model_clear(&model);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    for (const FennelGenerator *const *g = fennel_generators; *g; g++) {
        char *path = g_strdup_printf("/generators/yaml-round-trip/%s", (*g)->name);
        g_test_add_data_func(path, *g, round_trip);
        g_free(path);
    }
    static const Broken minimal[] = {
        {"allreduce-rd", 8},
        {"allreduce-tree", 6},
        {"allreduce-tree", 8},
        {"reduce-binomial", 7},
        {"bcast-binomial", 6},
        {"bcast-knomial", 10},
        {"bcast-binary", 7},
        {"bcast-ring", 5},
        {"scatter-binomial", 6},
        {"gather-binomial", 6},
        {"barrier-dissemination", 8},
        {"bcast-linear", 5},
        {"reduce-linear", 5},
        {"allreduce-linear", 5},
        {"allreduce-nonoverlapping", 6},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(minimal); i++) {
        char *path = g_strdup_printf("/verify/every-put-matters/%s-%u", minimal[i].generator,
                                     minimal[i].ranks);
        g_test_add_data_func(path, &minimal[i], every_put_matters);
        g_free(path);
    }
    g_test_add_func("/verify/broken-messages", broken_messages);
    g_test_add_func("/verify/unheard-put", unheard_put);
    g_test_add_func("/verify/double-count", double_count);
    g_test_add_func("/verify/reduction-without-compute", reduction_without_compute);
    g_test_add_func("/verify/different-orders", different_orders);
    g_test_add_func("/verify/two-sided", two_sided);
    g_test_add_func("/verify/get", get_reduce);
    g_test_add_func("/verify/blocks-out-of-range", blocks_out_of_range);
    g_test_add_func("/verify/wrapping-range", wrapping_range);
    g_test_add_func("/verify/large-recursive-doubling", large_recursive_doubling);
    g_test_add_func("/verify/too-big", too_big);
    return g_test_run();
}
