/* The program builder: CSR compilation and the graph rules of README, Program files. */
#include "errors.h"
#include "program.h"

#include <stdlib.h>
#include <string.h>

/* start s (rank 0) -> a -> b, s -> b: a small valid DAG. Built without names, its tasks are
 * named by type, rank and peer (program.h): start.r0, put.r0-r1, proxy.r1. */
static FennelProgramBuilder *small(void)
{
    FennelProgramBuilder *b = fennel_builder_new();
    uint32_t s = fennel_builder_add(b, FENNEL_TASK_START, 0);
    uint32_t a = fennel_builder_add(b, FENNEL_TASK_PUT, 0);
    fennel_builder_set_peer(b, a, 1);
    fennel_builder_set_amount(b, a, 8);
    uint32_t x = fennel_builder_add(b, FENNEL_TASK_PROXY, 1);
    fennel_builder_add_edge(b, s, x);
    fennel_builder_add_edge(b, s, a);
    fennel_builder_add_edge(b, a, x);
    return b;
}

static void test_csr(void)
{
    GError *error = NULL;
    FennelProgram *p = fennel_builder_finish(small(), NULL, 0, 0, &error);
    g_assert_no_error(error);
    g_assert_cmpuint(p->n_tasks, ==, 3);
    g_assert_cmpuint(p->n_ranks, ==, 2); /* the put's peer counts */
    g_assert_cmpuint(p->processes, ==, 1);
    g_assert_cmpuint(p->n_edges, ==, 3);
    uint32_t *in_degree = fennel_program_in_degrees(p);
    g_assert_cmpuint(in_degree[0], ==, 0);
    g_assert_cmpuint(in_degree[2], ==, 2);
    g_free(in_degree);
    /* Successors of s, sorted: a (1), x (2). */
    g_assert_cmpuint(p->succ_start[1] - p->succ_start[0], ==, 2);
    g_assert_cmpuint(p->succ[p->succ_start[0]], ==, 1);
    g_assert_cmpuint(p->succ[p->succ_start[0] + 1], ==, 2);
    FennelProgramStats st;
    fennel_program_stats(p, &st);
    g_assert_cmpuint(st.messages, ==, 1);
    g_assert_cmpuint(st.bytes, ==, 8);
    g_assert_cmpuint(st.critical_path_tasks, ==, 3);
    /* A program built without names is named by type, rank and peer (program.h). */
    char buf[24];
    g_assert_cmpstr(fennel_program_task_name(p, 0, buf), ==, "start.r0");
    g_assert_cmpstr(fennel_program_task_name(p, 1, buf), ==, "put.r0-r1");
    g_assert_cmpstr(fennel_program_task_name(p, 2, buf), ==, "proxy.r1");
    fennel_program_free(p);
}

/* fennel_builder_permute: the program of small() with its tasks added in another order
 * (the proxy first, a named put with a tag last) and moved to small()'s places is small()'s
 * program, fields, edges and names with each task. */
static void test_permute(void)
{
    FennelProgramBuilder *b = fennel_builder_new();
    uint32_t x = fennel_builder_add(b, FENNEL_TASK_PROXY, 1);
    uint32_t s = fennel_builder_add(b, FENNEL_TASK_START, 0);
    uint32_t a = fennel_builder_add(b, FENNEL_TASK_PUT, 0);
    fennel_builder_set_peer(b, a, 1);
    fennel_builder_set_amount(b, a, 8);
    fennel_builder_set_tag(b, a, 7);
    fennel_builder_set_name(b, a, "the put");
    fennel_builder_add_edge(b, a, x);
    fennel_builder_add_edge(b, s, x);
    fennel_builder_add_edge(b, s, a);
    const uint32_t to[3] = {2, 0, 1}; /* x, s, a to places 2, 0, 1 */
    fennel_builder_permute(b, to);
    GError *error = NULL;
    FennelProgram *p = fennel_builder_finish(b, NULL, 0, 0, &error);
    g_assert_no_error(error);
    g_assert_cmpuint(p->n_tasks, ==, 3);
    g_assert_cmpuint(p->type[0], ==, FENNEL_TASK_START);
    g_assert_cmpuint(p->type[1], ==, FENNEL_TASK_PUT);
    g_assert_cmpuint(p->type[2], ==, FENNEL_TASK_PROXY);
    g_assert_cmpuint(p->rank[2], ==, 1);
    g_assert_cmpuint(p->peer[1], ==, 1);
    g_assert_cmpint(p->amount[1], ==, 8);
    g_assert_cmpuint(p->tag[1], ==, 7);
    g_assert_cmpuint(p->tag[0], ==, 0);
    char buf[24];
    g_assert_cmpstr(fennel_program_task_name(p, 1, buf), ==, "the put");
    /* Edges s -> a, s -> x, a -> x, in the new places. */
    g_assert_cmpuint(p->succ_start[1] - p->succ_start[0], ==, 2);
    g_assert_cmpuint(p->succ[p->succ_start[0]], ==, 1);
    g_assert_cmpuint(p->succ[p->succ_start[0] + 1], ==, 2);
    g_assert_cmpuint(p->succ_start[2] - p->succ_start[1], ==, 1);
    g_assert_cmpuint(p->succ[p->succ_start[1]], ==, 2);
    g_assert_cmpuint(p->succ_start[3] - p->succ_start[2], ==, 0);
    fennel_program_free(p);
}

/* Names of a staged program (program.h): the stage, the role, the rank and the peer; a
 * repeat gets .2, .3 in task order; an any-source recv names no peer; a program with names
 * of its own keeps them. */
static void test_task_names(void)
{
    FennelProgramBuilder *b = fennel_builder_new();
    fennel_builder_set_stage(b, 0);
    uint32_t s = fennel_builder_add(b, FENNEL_TASK_START, 1);
    uint32_t x = fennel_builder_add(b, FENNEL_TASK_PROXY, 1);
    fennel_builder_add_edge(b, s, x);
    fennel_builder_set_stage(b, 2);
    uint32_t want[6];
    const char *names[6] = {"s2.put.r1-r0", "s2.put.r1-r0.2", "s2.reduce.r1",
                            "s2.done.r1",   "s2.recv.r1-any", "s2.put.r1-r0.3"};
    FennelTaskType types[6] = {FENNEL_TASK_PUT,   FENNEL_TASK_PUT,  FENNEL_TASK_COMPUTE,
                               FENNEL_TASK_PROXY, FENNEL_TASK_RECV, FENNEL_TASK_PUT};
    for (int i = 0; i < 6; i++) {
        want[i] = fennel_builder_add(b, types[i], 1);
        if (types[i] == FENNEL_TASK_PUT)
            fennel_builder_set_peer(b, want[i], 0);
        if (types[i] == FENNEL_TASK_RECV)
            fennel_builder_set_peer(b, want[i], FENNEL_ANY);
        fennel_builder_add_edge(b, x, want[i]);
    }
    GError *error = NULL;
    FennelProgram *p = fennel_builder_finish(b, NULL, 0, 0, &error);
    g_assert_no_error(error);
    char buf[24];
    g_assert_cmpstr(fennel_program_task_name(p, s, buf), ==, "start.r1");
    g_assert_cmpstr(fennel_program_task_name(p, x, buf), ==, "s0.done.r1");
    for (int i = 0; i < 6; i++)
        g_assert_cmpstr(fennel_program_task_name(p, want[i], buf), ==, names[i]);
    fennel_program_free(p);

    b = small();
    fennel_builder_set_name(b, 0, "mine");
    p = fennel_builder_finish(b, NULL, 0, 0, &error);
    g_assert_no_error(error);
    g_assert_cmpstr(fennel_program_task_name(p, 0, buf), ==, "mine");
    g_assert_cmpstr(fennel_program_task_name(p, 1, buf), ==, "t1");
    fennel_program_free(p);
}

/* Adds a put from rank `from` to `to` after task `after`. */
static uint32_t put_after(FennelProgramBuilder *b, uint32_t after, uint32_t from, uint32_t to)
{
    uint32_t t = fennel_builder_add(b, FENNEL_TASK_PUT, from);
    fennel_builder_set_peer(b, t, to);
    fennel_builder_add_edge(b, after, t);
    return t;
}

/* Checks every task's name against want[] (by the naming rules, program.h), and the
 * identifiers a writer makes of them, one at a time and a rank's list at a time ('.' and
 * '-' made '_'), for rank 1's tasks (all of them but rank 0's start). */
static void expect_names(FennelProgram *p, const char *const *want)
{
    FennelNamer *namer = fennel_namer_new(p);
    g_assert_nonnull(namer);
    uint32_t *own = g_new(uint32_t, p->n_tasks), n_own = 0;
    for (uint32_t t = 0; t < p->n_tasks; t++) {
        if (p->rank[t] == 1)
            own[n_own++] = t;
    }
    GString *text = g_string_new(NULL);
    uint32_t *at = g_new(uint32_t, n_own + 1);
    fennel_namer_append_identifiers(namer, own, n_own, 1, text, at);
    for (uint32_t k = 0; k < n_own; k++) {
        char one[FENNEL_NAMER_ROOM], *end = fennel_namer_put_identifier(namer, own[k], one, NULL);
        *end = '\0';
        char *label = g_strdelimit(g_strdup(want[own[k]]), ".-", '_');
        g_assert_cmpstr(one, ==, label);
        g_assert_cmpuint(at[k + 1] - at[k], ==, strlen(label));
        g_assert_cmpint(memcmp(text->str + at[k], label, strlen(label)), ==, 0);
        g_free(label);
    }
    g_free(at);
    g_string_free(text, TRUE);
    g_free(own);
    fennel_namer_free(namer);
    char buf[24];
    for (uint32_t t = 0; t < p->n_tasks; t++)
        g_assert_cmpstr(fennel_program_task_name(p, t, buf), ==, want[t]);
}

/* Repeats are counted whatever the shape of a rank's tasks: more repeats in one stage than
 * the namer compares one by one (it counts a long run in a table), a rank's second start,
 * a name of an earlier stage again after a later one (stage numbers out of order), and
 * the same put in another stage, which is no repeat. */
static void test_name_repeats(void)
{
    enum { PAIRS = 40 };
    FennelProgramBuilder *b = fennel_builder_new();
    GPtrArray *want = g_ptr_array_new_with_free_func(g_free);
    fennel_builder_set_stage(b, 0);
    uint32_t s0 = fennel_builder_add(b, FENNEL_TASK_START, 0);
    g_ptr_array_add(want, g_strdup("start.r0"));
    uint32_t s = fennel_builder_add(b, FENNEL_TASK_START, 1);
    g_ptr_array_add(want, g_strdup("start.r1"));
    uint32_t x = fennel_builder_add(b, FENNEL_TASK_PROXY, 1);
    fennel_builder_add_edge(b, s, x);
    g_ptr_array_add(want, g_strdup("s0.done.r1"));
    fennel_builder_set_stage(b, 3);
    for (int i = 1; i <= PAIRS; i++) {
        for (uint32_t to = 0; to <= 2; to += 2) {
            put_after(b, x, 1, to);
            g_ptr_array_add(want, i == 1 ? g_strdup_printf("s3.put.r1-r%u", to)
                                         : g_strdup_printf("s3.put.r1-r%u.%d", to, i));
        }
        if (i == PAIRS / 2) {
            fennel_builder_add(b, FENNEL_TASK_START, 1);
            g_ptr_array_add(want, g_strdup("start.r1.2"));
        }
    }
    fennel_builder_set_stage(b, 5);
    put_after(b, x, 1, 0);
    g_ptr_array_add(want, g_strdup("s5.put.r1-r0"));
    put_after(b, s0, 0, 1);
    g_ptr_array_add(want, g_strdup("s5.put.r0-r1"));
    GError *error = NULL;
    FennelProgram *p = fennel_builder_finish(b, NULL, 3, 0, &error);
    g_assert_no_error(error);
    expect_names(p, (const char *const *)want->pdata);
    fennel_program_free(p);
    g_ptr_array_set_size(want, 0);

    /* Stages 3, 1, 3: the second stage 3's put repeats the first's. */
    b = fennel_builder_new();
    s0 = fennel_builder_add(b, FENNEL_TASK_START, 0);
    s = fennel_builder_add(b, FENNEL_TASK_START, 1);
    const uint32_t stages[] = {3, 1, 3};
    const char *const names[] = {"start.r0", "start.r1", "s3.put.r1-r0", "s1.put.r1-r0",
                                 "s3.put.r1-r0.2"};
    for (int i = 0; i < 3; i++) {
        fennel_builder_set_stage(b, stages[i]);
        put_after(b, s, 1, 0);
    }
    for (int i = 0; i < 5; i++)
        g_ptr_array_add(want, g_strdup(names[i]));
    p = fennel_builder_finish(b, NULL, 2, 0, &error);
    g_assert_no_error(error);
    expect_names(p, (const char *const *)want->pdata);
    fennel_program_free(p);
    g_ptr_array_free(want, TRUE);
}

static void expect_error(FennelProgramBuilder *b, uint32_t ranks, const char *message)
{
    GError *error = NULL;
    FennelProgram *p = fennel_builder_finish(b, "x.yaml", ranks, 0, &error);
    g_assert_null(p);
    g_assert_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT);
    g_assert_cmpstr(error->message, ==, message);
    g_error_free(error);
}

static void test_errors(void)
{
    FennelProgramBuilder *b = small();
    fennel_builder_add_edge(b, 2, 0);
    expect_error(b, 0, "x.yaml: start task 'start.r0' cannot have predecessors");

    b = small();
    fennel_builder_add(b, FENNEL_TASK_PROXY, 0);
    expect_error(b, 0, "x.yaml: task 'proxy.r0' has no predecessors (only a start task may)");

    b = small();
    fennel_builder_set_any(b, 2, 3);
    expect_error(b, 0, "x.yaml: any: 3 is outside 1..2, the number of predecessors of 'proxy.r1'");

    b = small();
    fennel_builder_add_edge(b, 1, 2);
    expect_error(b, 0, "x.yaml: task 'proxy.r1' depends on 'put.r0-r1' twice");

    b = small();
    expect_error(b, 1, "x.yaml: rank 1 of task 'put.r0-r1' is outside 0..0");

    /* A cycle a -> b -> c -> a behind a start, reported from its first task. */
    b = fennel_builder_new();
    uint32_t s = fennel_builder_add(b, FENNEL_TASK_START, 0);
    uint32_t c1 = fennel_builder_add(b, FENNEL_TASK_PROXY, 0);
    uint32_t c2 = fennel_builder_add(b, FENNEL_TASK_PROXY, 0);
    uint32_t c3 = fennel_builder_add(b, FENNEL_TASK_PROXY, 0);
    fennel_builder_set_name(b, c1, "a");
    fennel_builder_set_name(b, c2, "b");
    fennel_builder_set_name(b, c3, "c");
    fennel_builder_set_position(b, c1, 4, 5);
    fennel_builder_add_edge(b, s, c1);
    fennel_builder_add_edge(b, c1, c2);
    fennel_builder_add_edge(b, c2, c3);
    fennel_builder_add_edge(b, c3, c1);
    expect_error(b, 0, "x.yaml:4:5: cycle: a -> b -> c -> a");

    /* A self-loop. */
    b = fennel_builder_new();
    s = fennel_builder_add(b, FENNEL_TASK_START, 0);
    c1 = fennel_builder_add(b, FENNEL_TASK_PROXY, 0);
    fennel_builder_add_edge(b, s, c1);
    fennel_builder_add_edge(b, c1, c1);
    expect_error(b, 0, "x.yaml: cycle: proxy.r0 -> proxy.r0");
}

/* The longest chain when an edge goes back in program order: start -> 3 -> 1 -> 2 is four
 * tasks, which a pass in program order alone would count as three. */
static void test_backward_edges(void)
{
    FennelProgramBuilder *b = fennel_builder_new();
    uint32_t s = fennel_builder_add(b, FENNEL_TASK_START, 0);
    uint32_t t1 = fennel_builder_add(b, FENNEL_TASK_PROXY, 0);
    uint32_t t2 = fennel_builder_add(b, FENNEL_TASK_PROXY, 0);
    uint32_t t3 = fennel_builder_add(b, FENNEL_TASK_PROXY, 0);
    fennel_builder_add_edge(b, s, t3);
    fennel_builder_add_edge(b, t3, t1);
    fennel_builder_add_edge(b, t1, t2);
    GError *error = NULL;
    FennelProgram *p = fennel_builder_finish(b, NULL, 0, 0, &error);
    g_assert_no_error(error);
    FennelProgramStats st;
    fennel_program_stats(p, &st);
    g_assert_cmpuint(st.critical_path_tasks, ==, 4);
    fennel_program_free(p);
}

/* A namer (program.h) names the tasks from the bytes the program holds on the first
 * request, messages included; the bytes are freed once, with the program or with a builder
 * whose program fails. */
static int namer_calls, namer_frees;

static void namer(FennelProgram *p)
{
    namer_calls++;
    const char *prefix = g_bytes_get_data(p->text, NULL);
    p->names = g_string_chunk_new(64);
    p->task_name = g_new(char *, MAX(p->n_tasks, 1));
    for (uint32_t t = 0; t < p->n_tasks; t++) {
        char *name = g_strdup_printf("%s%u", prefix, t);
        p->task_name[t] = g_string_chunk_insert(p->names, name);
        g_free(name);
    }
}

static void namer_free(gpointer data)
{
    namer_frees++;
    g_free(data);
}

static void set_namer(FennelProgramBuilder *b, const char *prefix)
{
    char *copy = g_strdup(prefix);
    GBytes *text = g_bytes_new_with_free_func(copy, strlen(copy) + 1, namer_free, copy);
    fennel_builder_set_namer(b, namer, text);
    g_bytes_unref(text);
}

static void test_namer(void)
{
    FennelProgramBuilder *b = small();
    set_namer(b, "n");
    GError *error = NULL;
    FennelProgram *p = fennel_builder_finish(b, NULL, 0, 0, &error);
    g_assert_no_error(error);
    g_assert_cmpint(namer_calls, ==, 0);
    g_assert_null(p->task_name);
    char buf[24];
    g_assert_cmpstr(fennel_program_task_name(p, 2, buf), ==, "n2");
    g_assert_cmpstr(fennel_program_own_names(p)[1], ==, "n1");
    g_assert_cmpint(namer_calls, ==, 1);
    fennel_program_free(p);
    g_assert_cmpint(namer_frees, ==, 1);

    b = small();
    set_namer(b, "m");
    fennel_builder_add(b, FENNEL_TASK_PROXY, 0);
    expect_error(b, 0, "x.yaml: task 'm3' has no predecessors (only a start task may)");
    g_assert_cmpint(namer_frees, ==, 2);

    b = small();
    set_namer(b, "unused");
    fennel_builder_free(b);
    g_assert_cmpint(namer_frees, ==, 3);
    g_assert_cmpint(namer_calls, ==, 2);
}

static void test_empty(void)
{
    GError *error = NULL;
    FennelProgram *p = fennel_builder_finish(fennel_builder_new(), NULL, 0, 0, &error);
    g_assert_no_error(error);
    g_assert_cmpuint(p->n_tasks, ==, 0);
    g_assert_cmpuint(p->n_ranks, ==, 1);
    fennel_program_free(p);
}

/* Step order (fennel_program_order_by_step): tasks added rank 2, rank 0, rank 1, with 2, 3
 * and 1 tasks, are numbered r0#0 r1#0 r2#0 r0#1 r2#1 r0#2; every column, edge and start
 * edge follows its task. Each task's fields are made from its name's number n (rank r,
 * position k: n = 10 r + k), so that a field that did not move shows. */
/* The example's first `count` tasks (all six, or the five of ranks 2 and 0) with every
 * field, its start edge, and rank 0's last task waiting for any 1 of its two. */
static FennelProgramBuilder *example_tasks(int count)
{
    FennelProgramBuilder *b = fennel_builder_new();
    const uint32_t ranks[] = {2, 2, 0, 0, 0, 1}, positions[] = {0, 1, 0, 1, 2, 0};
    uint32_t task[6];
    fennel_builder_set_n_blocks(b, 64);
    for (int i = 0; i < count; i++) {
        uint32_t n = 10 * ranks[i] + positions[i];
        task[i] = fennel_builder_add(b, positions[i] == 0 ? FENNEL_TASK_START : FENNEL_TASK_GET,
                                     ranks[i]);
        char name[8];
        g_snprintf(name, sizeof name, "n%u", n);
        fennel_builder_set_name(b, task[i], name);
        fennel_builder_set_position(b, task[i], 100 + n, 200 + n);
        fennel_builder_set_pin(b, task[i], n % 2);
        if (positions[i] > 0) {
            fennel_builder_set_peer(b, task[i], (ranks[i] + 1) % 3);
            fennel_builder_set_amount(b, task[i], 1000 + n);
            fennel_builder_set_request(b, task[i], 2000 + n);
            fennel_builder_set_blocks(b, task[i], n, 1);
            fennel_builder_add_edge(b, task[i - 1], task[i]);
        }
    }
    fennel_builder_add_start_edge(b, task[2], task[4]);
    fennel_builder_add_edge(b, task[2], task[4]);
    fennel_builder_set_any(b, task[4], 1);
    return b;
}

static void test_order_by_step(void)
{
    FennelProgramBuilder *b = example_tasks(6);
    GError *error = NULL;
    FennelProgram *p = fennel_builder_finish(b, NULL, 3, 2, &error);
    g_assert_no_error(error);
    g_assert_true(fennel_program_order_by_step(p));
    const char *expected[] = {"n0", "n10", "n20", "n1", "n21", "n2"};
    char buf[24];
    for (uint32_t t = 0; t < 6; t++) {
        const char *name = fennel_program_task_name(p, t, buf);
        g_assert_cmpstr(name, ==, expected[t]);
        uint32_t n = (uint32_t)atoi(name + 1), r = n / 10, k = n % 10;
        g_assert_cmpuint(p->rank[t], ==, r);
        g_assert_cmpuint(p->type[t], ==, k == 0 ? FENNEL_TASK_START : FENNEL_TASK_GET);
        g_assert_cmpuint(p->line[t], ==, 100 + n);
        g_assert_cmpuint(p->col[t], ==, 200 + n);
        g_assert_cmpuint(p->pin[t], ==, n % 2);
        if (k > 0) {
            g_assert_cmpuint(p->peer[t], ==, (r + 1) % 3);
            g_assert_cmpint(p->amount[t], ==, 1000 + n);
            g_assert_cmpint(p->request[t], ==, 2000 + n);
            g_assert_cmpuint(p->block_first[t], ==, n);
            g_assert_cmpuint(p->block_count[t], ==, 1);
        }
        g_assert_cmpuint(fennel_program_any(p, t), ==, n == 2 ? 1 : 0);
    }
    /* Edges: n0 -> n1 -> n2 and n0 -> n2; n20 -> n21; start edge n0 -> n2. */
    g_assert_cmpuint(p->n_edges, ==, 5); /* n_edges counts the start edge too */
    g_assert_cmpuint(p->succ_start[1] - p->succ_start[0], ==, 2);
    g_assert_cmpuint(p->succ[p->succ_start[0]], ==, 3);
    g_assert_cmpuint(p->succ[p->succ_start[0] + 1], ==, 5);
    g_assert_cmpuint(p->succ_start[4] - p->succ_start[3], ==, 1);
    g_assert_cmpuint(p->succ[p->succ_start[3]], ==, 5);
    g_assert_cmpuint(p->succ_start[3] - p->succ_start[2], ==, 1);
    g_assert_cmpuint(p->succ[p->succ_start[2]], ==, 4);
    g_assert_cmpuint(p->start_succ_start[1] - p->start_succ_start[0], ==, 1);
    g_assert_cmpuint(p->start_succ[p->start_succ_start[0]], ==, 5);
    g_assert_cmpuint(p->start_succ_start[6] - p->start_succ_start[1], ==, 0);
    /* Numbered so already: nothing moves. */
    g_assert_false(fennel_program_order_by_step(p));
    fennel_program_free(p);
}

/* Step order on a program large enough to be moved by two threads: 331 ranks of 200 to 206
 * tasks, each rank a chain, added rank by rank; read whole, or as parts of whole ranks
 * (ranks below 100, then the rest, joined). Task (r, k) must land at the place its step and
 * rank give, with its fields and its chain edge. */
enum { LARGE_RANKS = 331 };

static FennelProgram *chains(uint32_t from, uint32_t to, const uint32_t *count)
{
    FennelProgramBuilder *b = fennel_builder_new();
    for (uint32_t r = from; r < to; r++) {
        uint32_t prev = 0;
        for (uint32_t k = 0; k < count[r]; k++) {
            uint32_t t = fennel_builder_add(b, k == 0 ? FENNEL_TASK_START : FENNEL_TASK_SLEEP, r);
            fennel_builder_set_amount(b, t, 1000 * (int64_t)r + k);
            fennel_builder_set_position(b, t, r + 1, k + 1);
            if (k > 0)
                fennel_builder_add_edge(b, prev, t);
            prev = t;
        }
    }
    GError *error = NULL;
    FennelProgram *p = fennel_builder_finish(b, NULL, LARGE_RANKS, 1, &error);
    g_assert_no_error(error);
    return p;
}

static void order_by_step_large(unsigned n_parts)
{
    uint32_t count[LARGE_RANKS];
    for (uint32_t r = 0; r < LARGE_RANKS; r++)
        count[r] = 200 + r % 7;
    FennelProgram *p;
    if (n_parts == 1) {
        p = chains(0, LARGE_RANKS, count);
        g_assert_true(fennel_program_order_by_step(p));
    } else {
        FennelProgram *parts[2] = {chains(0, 100, count), chains(100, LARGE_RANKS, count)};
        p = fennel_program_join_by_step(parts, 2);
    }
    g_assert_cmpuint(p->n_tasks, >=, 1u << 16);
    /* Step k holds the ranks with more than k tasks, in increasing order. */
    uint32_t t = 0;
    for (uint32_t k = 0; k < 206; k++) {
        for (uint32_t r = 0; r < LARGE_RANKS; r++) {
            if (k >= count[r])
                continue;
            g_assert_cmpuint(p->rank[t], ==, r);
            g_assert_cmpint(p->amount[t], ==, 1000 * (int64_t)r + k);
            g_assert_cmpuint(p->line[t], ==, r + 1);
            g_assert_cmpuint(p->col[t], ==, k + 1);
            g_assert_cmpuint(p->type[t], ==, k == 0 ? FENNEL_TASK_START : FENNEL_TASK_SLEEP);
            /* Its successor is the rank's next task: one step on. */
            uint32_t n = p->succ_start[t + 1] - p->succ_start[t];
            g_assert_cmpuint(n, ==, k + 1 < count[r] ? 1 : 0);
            if (n) {
                uint32_t u = p->succ[p->succ_start[t]];
                g_assert_cmpuint(p->rank[u], ==, r);
                g_assert_cmpuint(p->col[u], ==, k + 2);
            }
            t++;
        }
    }
    g_assert_cmpuint(t, ==, p->n_tasks);
    g_assert_cmpuint(p->succ_start[p->n_tasks], ==, p->n_tasks - LARGE_RANKS);
    fennel_program_free(p);
}

static void test_order_by_step_large(void)
{
    order_by_step_large(1);
}

/* Joining parts read apart (fennel_program_join_by_step): the example of
 * /program/order-by-step with rank 1 read apart, as a second part that sets no pin, no name
 * and no start edge: the result is that program's order, and rank 1's task has the
 * defaults (no pin, no name, no request, no blocks) and keeps its own position; the slots
 * are the larger part's. */
static void test_join_by_step(void)
{
    FennelProgramBuilder *b = example_tasks(5);
    GError *error = NULL;
    FennelProgram *parts[2];
    parts[0] = fennel_builder_finish(b, NULL, 3, 2, &error);
    g_assert_no_error(error);
    b = fennel_builder_new();
    fennel_builder_set_position(b, fennel_builder_add(b, FENNEL_TASK_START, 1), 110, 210);
    parts[1] = fennel_builder_finish(b, NULL, 3, 1, &error);
    g_assert_no_error(error);
    FennelProgram *p = fennel_program_join_by_step(parts, 2);
    g_assert_true(p == parts[0]);
    g_assert_cmpuint(p->n_tasks, ==, 6);
    g_assert_cmpuint(p->n_edges, ==, 5);
    g_assert_cmpuint(p->processes, ==, 2);
    const uint32_t expected[] = {0, 10, 20, 1, 21, 2};
    char buf[24];
    for (uint32_t t = 0; t < 6; t++) {
        uint32_t n = expected[t], r = n / 10, k = n % 10;
        char want[8];
        g_snprintf(want, sizeof want, n == 10 ? "t%u" : "n%u", n == 10 ? t : n);
        g_assert_cmpstr(fennel_program_task_name(p, t, buf), ==, want);
        g_assert_cmpuint(p->rank[t], ==, r);
        g_assert_cmpuint(p->type[t], ==, k == 0 ? FENNEL_TASK_START : FENNEL_TASK_GET);
        g_assert_cmpuint(p->line[t], ==, 100 + n);
        g_assert_cmpuint(p->col[t], ==, 200 + n);
        g_assert_cmpuint(p->pin[t], ==, n == 10 ? FENNEL_NO_RANK : n % 2);
        if (k > 0) {
            g_assert_cmpuint(p->peer[t], ==, (r + 1) % 3);
            g_assert_cmpint(p->amount[t], ==, 1000 + n);
            g_assert_cmpint(p->request[t], ==, 2000 + n);
            g_assert_cmpuint(p->block_first[t], ==, n);
        } else {
            g_assert_cmpint(p->request[t], ==, 0);
            g_assert_cmpuint(p->block_count[t], ==, 0);
        }
        g_assert_cmpuint(fennel_program_any(p, t), ==, n == 2 ? 1 : 0);
    }
    /* Edges: n0 -> n1 -> n2 and n0 -> n2; n20 -> n21; start edge n0 -> n2. */
    g_assert_cmpuint(p->succ_start[1] - p->succ_start[0], ==, 2);
    g_assert_cmpuint(p->succ[p->succ_start[0]], ==, 3);
    g_assert_cmpuint(p->succ[p->succ_start[0] + 1], ==, 5);
    g_assert_cmpuint(p->succ_start[2] - p->succ_start[1], ==, 0);
    g_assert_cmpuint(p->succ_start[3] - p->succ_start[2], ==, 1);
    g_assert_cmpuint(p->succ[p->succ_start[2]], ==, 4);
    g_assert_cmpuint(p->succ_start[4] - p->succ_start[3], ==, 1);
    g_assert_cmpuint(p->succ[p->succ_start[3]], ==, 5);
    g_assert_cmpuint(p->start_succ_start[1] - p->start_succ_start[0], ==, 1);
    g_assert_cmpuint(p->start_succ[p->start_succ_start[0]], ==, 5);
    g_assert_cmpuint(p->start_succ_start[6] - p->start_succ_start[1], ==, 0);
    fennel_program_free(p);
    order_by_step_large(2);
}

/* FENNEL_TASK_SOLE (finish() marks the only send of each rank-to-peer pair, for ranks whose
 * tasks were added in one run): rank 0 sends to 1, 2, 1 (only the send to 2 is alone);
 * rank 2 sends to 0 twice, the first marked by its producer (finish() clears it); rank 3
 * sends once; rank 1 sends once but is added in two runs, so finish() cannot tell cheaply
 * and leaves it. */
static void test_sole_sends(void)
{
    FennelProgramBuilder *b = fennel_builder_new();
    struct {
        uint32_t rank, peer; /* peer UINT32_MAX: a start */
        gboolean sole;
    } tasks[] = {
        {0, UINT32_MAX, FALSE}, {0, 1, FALSE}, {0, 2, TRUE},           {0, 1, FALSE},
        {1, UINT32_MAX, FALSE}, {1, 0, FALSE}, {2, UINT32_MAX, FALSE}, {2, 0, FALSE},
        {2, 0, FALSE},          {1, 3, FALSE}, {3, UINT32_MAX, FALSE}, {3, 0, TRUE},
    };
    uint32_t start = 0;
    for (size_t i = 0; i < G_N_ELEMENTS(tasks); i++) {
        gboolean is_start = tasks[i].peer == UINT32_MAX;
        uint32_t t =
            fennel_builder_add(b, is_start ? FENNEL_TASK_START : FENNEL_TASK_SEND, tasks[i].rank);
        if (is_start) {
            start = t;
            continue;
        }
        fennel_builder_set_peer(b, t, tasks[i].peer);
        fennel_builder_set_amount(b, t, 8);
        if (i == 7)
            fennel_builder_set_flags(b, t, FENNEL_TASK_SOLE);
        /* Rank 1's second run follows rank 2's: its start is task 4. */
        fennel_builder_add_edge(b, i == 9 ? 4 : start, t);
    }
    GError *error = NULL;
    FennelProgram *p = fennel_builder_finish(b, NULL, 4, 1, &error);
    g_assert_no_error(error);
    for (uint32_t t = 0; t < p->n_tasks; t++)
        g_assert_cmpuint(p->flags[t] & FENNEL_TASK_SOLE, ==, tasks[t].sole ? FENNEL_TASK_SOLE : 0);
    fennel_program_free(p);
}

/* One letter per task type for every picture of a program (the DAG view and the DOT
 * writer once disagreed on the proxy's): the types in their order, and "?" beyond. */
static void test_type_letters(void)
{
    static const char *const want[] = {"S", "X", "Z", "C", "P", "G", "Sd", "R", "L", "M"};
    G_STATIC_ASSERT(G_N_ELEMENTS(want) == FENNEL_TASK_N_TYPES);
    for (int t = 0; t < FENNEL_TASK_N_TYPES; t++)
        g_assert_cmpstr(fennel_task_type_letter((FennelTaskType)t), ==, want[t]);
    g_assert_cmpstr(fennel_task_type_letter(FENNEL_TASK_N_TYPES), ==, "?");
    g_assert_cmpstr(fennel_task_type_letter(FENNEL_TASK_PROXY), ==, "X");
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/program/csr", test_csr);
    g_test_add_func("/program/permute", test_permute);
    g_test_add_func("/program/type-letters", test_type_letters);
    g_test_add_func("/program/task-names", test_task_names);
    g_test_add_func("/program/name-repeats", test_name_repeats);
    g_test_add_func("/program/errors", test_errors);
    g_test_add_func("/program/empty", test_empty);
    g_test_add_func("/program/backward-edges", test_backward_edges);
    g_test_add_func("/program/namer", test_namer);
    g_test_add_func("/program/order-by-step", test_order_by_step);
    g_test_add_func("/program/order-by-step-large", test_order_by_step_large);
    g_test_add_func("/program/join-by-step", test_join_by_step);
    g_test_add_func("/program/sole-sends", test_sole_sends);
    return g_test_run();
}
