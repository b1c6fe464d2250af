/* The YAML form of MSCCL algorithms (docs/FORMATS.md, "The round trip through YAML"): the
 * writer's output reads back, through the fast scanner, as the same algorithm with the same
 * verdict, and edits of the file are refused with the messages and places derived by hand
 * below. */
#include "errors.h"
#include "msccl.h"
#include "msccl_describe.h"
#include "program_io.h"

#include <string.h>

/* Every file of tests/data/msccl that lowers: XML -> program -> YAML -> algorithm gives the
 * algorithm back (what it means; the places are the YAML's) and the same verdict. */
static void test_round_trip(void)
{
    const char *files[] = {
        "allgather-ring-4.xml",
        "allreduce-ring-4.xml",
        "alltoall-direct-4.xml",
        "bad-double-count.xml",
        "bad-empty-read.xml",
        "bad-missing-reduction.xml",
        "bad-wrong-offset.xml",
        "chain-3.xml",
        "names-2.xml",
        "reducescatter-ring-4.xml",
        "allreduce-2chan-ll.xml",
    };
    for (gsize i = 0; i < G_N_ELEMENTS(files); i++) {
        char *path = g_test_build_filename(G_TEST_DIST, "data", "msccl", files[i], NULL);
        GError *error = NULL;
        FennelMscclAlgo *a = fennel_msccl_read(path, &error);
        g_assert_no_error(error);
        /* One byte a chunk. */
        FennelProgram *p =
            fennel_msccl_lower(a, a->nchunksperloop / fennel_msccl_multiplier(a), 0, NULL, &error);
        g_assert_no_error(error);
        GString *yaml = g_string_new(NULL);
        g_assert_true(fennel_msccl_write_yaml(a, p, yaml));
        /* The fast scanner takes the file: the meaning costs no slow path. */
        FennelProgram *fast = fennel_program_parse_yaml_with("t.yaml", yaml->str, yaml->len,
                                                             FENNEL_YAML_FAST_ONLY, NULL, &error);
        g_assert_no_error(error);
        g_assert_cmpuint(fast->n_tasks, ==, p->n_tasks);
        /* libyaml skips the meaning as well, for the program alone. */
        FennelProgram *lib = fennel_program_parse_yaml_with("t.yaml", yaml->str, yaml->len,
                                                            FENNEL_YAML_LIBYAML_ONLY, NULL, &error);
        g_assert_no_error(error);
        g_assert_cmpuint(lib->n_tasks, ==, p->n_tasks);
        g_assert_cmpuint(lib->n_edges, ==, p->n_edges);
        fennel_program_free(lib);
        gboolean found;
        FennelMscclAlgo *b =
            fennel_msccl_from_yaml("t.yaml", yaml->str, yaml->len, NULL, &found, NULL, &error);
        g_assert_no_error(error);
        g_assert_true(found);
        char *x = msccl_describe_meaning(a), *y = msccl_describe_meaning(b);
        g_assert_cmpstr(x, ==, y);
        char *va = msccl_verdict(a), *vb = msccl_verdict(b);
        g_assert_cmpstr(va, ==, vb);
        g_free(va);
        g_free(vb);
        g_free(x);
        g_free(y);
        fennel_msccl_free(b);
        fennel_program_free(fast);
        fennel_program_free(p);
        g_string_free(yaml, TRUE);
        fennel_msccl_free(a);
        g_free(path);
    }
}

/* Two GPUs: GPU 0 sends its chunk (step 0) and waits (a nop, step 1); GPU 1 receives it and
 * reduces it into its own (rrc): a recv and a compute. Lines are numbered from 1. */
static const char *const base[] = {
    "fennel: 1",
    "msccl:",
    "  - {algo: \"pair\", coll: custom, ngpus: 2, nchunksperloop: 1, proto: Simple, nchannels: "
    "1, inplace: true, outofplace: false}",
    "  - {gpu: 0, i_chunks: 1, o_chunks: 0, s_chunks: 0}",
    "  - {gpu: 0, tb: 0, send: 1, recv: -1, chan: 0, steps: 2}",
    "  - {gpu: 1, i_chunks: 1, o_chunks: 0, s_chunks: 0}",
    "  - {gpu: 1, tb: 0, send: -1, recv: 0, chan: 0, steps: 1}",
    "tasks:",
    "  - {id: a, type: start, rank: 0}",
    "  - {id: b, type: start, rank: 1}",
    "  - {id: s, type: send, rank: 0, to: 1, size: 1B, after: [a], tb: 0, step: 0, op: s, "
    "src: i0, cnt: 1}",
    "  - {id: n, type: proxy, rank: 0, after: [s], tb: 0, step: 1, op: nop, cnt: 0}",
    "  - {id: r, type: recv, rank: 1, from: 0, size: 1B, after: [b], tb: 0, step: 0, op: rrc, "
    "src: i0, dst: i0, cnt: 1}",
    "  - {id: c, type: compute, rank: 1, size: 1B, after: [r], tb: 0, step: 0, op: rrc, src: "
    "i0, dst: i0, cnt: 1}",
};

/* The base with line `line` replaced by `text` (NULL: deleted), and `extra` appended. */
static GString *edited(guint line, const char *text, const char *extra)
{
    GString *s = g_string_new(NULL);
    for (guint i = 0; i < G_N_ELEMENTS(base); i++) {
        const char *l = i + 1 == line ? text : base[i];
        if (l)
            g_string_append_printf(s, "%s\n", l);
    }
    if (extra)
        g_string_append_printf(s, "%s\n", extra);
    return s;
}

static char *check(const GString *text)
{
    GError *error = NULL;
    gboolean found;
    FennelMscclAlgo *a =
        fennel_msccl_from_yaml("t.yaml", text->str, text->len, NULL, &found, NULL, &error);
    if (a == NULL) {
        char *m = g_strdup(error->message);
        g_error_free(error);
        return m;
    }
    GError *v = NULL;
    char *m = fennel_msccl_verify(a, NULL, &v) ? g_strdup("ok") : g_strdup(v->message);
    g_clear_error(&v);
    fennel_msccl_free(a);
    return m;
}

static void test_edits(void)
{
    static const struct {
        guint line;
        const char *text, *extra, *message;
    } cases[] = {
        /* The file as written, and with a sleep between the two steps of GPU 0 (timing). */
        {0, NULL, NULL, "ok"},
        {12, "  - {id: n, type: proxy, rank: 0, after: [z], tb: 0, step: 1, op: nop, cnt: 0}",
         "  - {id: z, type: sleep, rank: 0, duration: 5ns, after: [s]}", "ok"},
        /* The compute of GPU 1's rrc deleted: the step's first task (its recv, line 13,
         * column 5 after "  - ") says so. */
        {14, NULL, NULL,
         "t.yaml:13:5: gpu 1 tb 0 step 0 (rrc): no compute task (an rrc step is a recv and a "
         "compute)"},
        /* GPU 0's nop deleted: its thread block's row (line 5) still says steps: 2. */
        {12, NULL, NULL, "t.yaml:5:5: gpu 0 tb 0 has steps: 2, but no task of step 1"},
        /* The compute's offset changed alone: "  - {id: c, type: compute, rank: 1, size: 1B,
         * after: [r], tb: 0, step: 0, op: rrc, src: " is 88 characters, so i1 is at 89. */
        {14,
         "  - {id: c, type: compute, rank: 1, size: 1B, after: [r], tb: 0, step: 0, op: rrc, "
         "src: i1, dst: i0, cnt: 1}",
         NULL, "t.yaml:14:89: src: i1, but the step's task at 13:5 says i0"},
        /* GPU 1's thread block says it receives from nobody. */
        {7, "  - {gpu: 1, tb: 0, send: -1, recv: -1, chan: 0, steps: 1}", NULL,
         "t.yaml:13:5: gpu 1 tb 0 step 0 (rrc): its recv comes from gpu 0, but its thread "
         "block's row says recv: -1 (at 7:5)"},
        /* The nop after the start instead of after step 0. */
        {12, "  - {id: n, type: proxy, rank: 0, after: [a], tb: 0, step: 1, op: nop, cnt: 0}", NULL,
         "t.yaml:12:5: gpu 0 tb 0 step 1 (nop): task 'n' must follow 's' (the step before it in "
         "its thread block)"},
        /* A message outside every step. */
        {0, NULL, "  - {id: x, type: send, rank: 0, to: 1, size: 1B, after: [a]}",
         "t.yaml:15:5: task 'x': a send without step fields; the MSCCL check cannot follow its "
         "data"},
        /* A row's key twice: the second "gpu" after "  - {gpu: 0, " (13 characters). */
        {4, "  - {gpu: 0, gpu: 0, i_chunks: 1, o_chunks: 0, s_chunks: 0}", NULL,
         "t.yaml:4:14: msccl: duplicate key 'gpu'"},
        /* Neither mode: the value of inplace follows 100 characters of line 3. */
        {3,
         "  - {algo: \"pair\", coll: custom, ngpus: 2, nchunksperloop: 1, proto: Simple, "
         "nchannels: "
         "1, inplace: false, outofplace: false}",
         NULL, "t.yaml:3:101: inplace: false and outofplace: false: the algorithm runs in no mode"},
        /* A thread block with more steps than the file could hold: 99 + 1 steps for 4 tasks
         * with step fields, past twice that and 16. */
        {5, "  - {gpu: 0, tb: 0, send: 1, recv: -1, chan: 0, steps: 99}", NULL,
         "t.yaml:5:5: steps: 99: the thread blocks have more steps than the 4 tasks that carry "
         "step fields"},
        /* GPU 0's send without its source. */
        {11,
         "  - {id: s, type: send, rank: 0, to: 1, size: 1B, after: [a], tb: 0, step: 0, op: s, "
         "cnt: 1}",
         NULL, "t.yaml:11:5: task 's': an s step needs 'src'"},
        /* Its source outside GPU 0's one input chunk: "src: " ends at column 90. */
        {11,
         "  - {id: s, type: send, rank: 0, to: 1, size: 1B, after: [a], tb: 0, step: 0, op: s, "
         "src: i1, cnt: 1}",
         NULL, "t.yaml:11:91: src: chunks i[1..1] are outside gpu 0's i_chunks: 1"},
        /* It moves nothing: "cnt: " ends at column 99. */
        {11,
         "  - {id: s, type: send, rank: 0, to: 1, size: 1B, after: [a], tb: 0, step: 0, op: s, "
         "src: i0, cnt: 0}",
         NULL, "t.yaml:11:100: cnt: 0: gpu 0 tb 0 step 0 (s) moves nothing"},
        /* A second recv for GPU 1's step, and a send it does not have (line 15). */
        {0, NULL,
         "  - {id: x, type: recv, rank: 1, from: 0, size: 1B, after: [c], tb: 0, step: 0, op: rrc, "
         "src: i0, dst: i0, cnt: 1}",
         "t.yaml:15:5: gpu 1 tb 0 step 0 (rrc): a second recv task (the first at 13:5)"},
        {0, NULL,
         "  - {id: x, type: send, rank: 1, to: 0, size: 1B, after: [c], tb: 0, step: 0, op: rrc, "
         "src: i0, dst: i0, cnt: 1}",
         "t.yaml:15:5: gpu 1 tb 0 step 0 (rrc): a send task, but an rrc step is a recv and a "
         "compute"},
        /* Step fields on a sleep, and on a task of a rank the algorithm has no gpu for. */
        {0, NULL,
         "  - {id: x, type: sleep, rank: 0, duration: 1ns, after: [n], tb: 0, step: 1, op: nop, "
         "cnt: 0}",
         "t.yaml:15:5: task 'x': a sleep task is no part of a step (steps are recv, compute, send "
         "and proxy tasks)"},
        {0, NULL,
         "  - {id: z, type: start, rank: 2}\n  - {id: x, type: proxy, rank: 2, after: [z], tb: 0, "
         "step: 0, op: nop, cnt: 0}",
         "t.yaml:16:5: task 'x': rank 2 is no gpu (ngpus: 2)"},
        /* `any` on a step's task, and on a task between two steps. */
        {12,
         "  - {id: n, type: proxy, rank: 0, after: [s, a], any: 1, tb: 0, step: 1, op: nop, "
         "cnt: 0}",
         NULL,
         "t.yaml:12:5: gpu 0 tb 0 step 1 (nop): 'any' on a step's task, which waits for all its "
         "predecessors"},
        {12, "  - {id: n, type: proxy, rank: 0, after: [z], tb: 0, step: 1, op: nop, cnt: 0}",
         "  - {id: z, type: sleep, rank: 0, duration: 1ns, after: [s, a], any: 1}",
         "t.yaml:15:5: task 'z': 'any' on a task between steps, which would let a step start "
         "before the one it follows"},
        /* A dependency written wrong: "  - {id: n, type: proxy, rank: 0, after: [s], tb: 0,
         * step: 1, op: nop, cnt: 0, dep: " is 84 characters. */
        {12,
         "  - {id: n, type: proxy, rank: 0, after: [s], tb: 0, step: 1, op: nop, cnt: 0, dep: "
         "t0}",
         NULL,
         "t.yaml:12:85: dep: expected a step of the gpu's thread blocks, e.g. t1.s4 (tb 1 step "
         "4)"},
    };
    for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
        GString *text = edited(cases[i].line, cases[i].text, cases[i].extra);
        char *got = check(text);
        g_assert_cmpstr(got, ==, cases[i].message);
        g_free(got);
        g_string_free(text, TRUE);
    }
    /* Without the section (lines 2 to 7), step fields are refused where the first is: tb, on
     * line 11 of the base (line 5 now), after "  - {id: s, type: send, rank: 0, to: 1,
     * size: 1B, after: [a], tb: ", 66 characters. */
    GString *s = g_string_new(NULL);
    for (guint i = 0; i < G_N_ELEMENTS(base); i++)
        if (i + 1 < 2 || i + 1 > 7)
            g_string_append_printf(s, "%s\n", base[i]);
    char *got = check(s);
    g_assert_cmpstr(got, ==,
                    "t.yaml:5:67: tb: a step field, but the file has no 'msccl' section to say "
                    "whose");
    g_free(got);
    g_string_free(s, TRUE);
    /* A program without either is no algorithm, and no error: verify checks it as fennel's. */
    GError *error = NULL;
    gboolean found = TRUE;
    FennelProgram *p = NULL;
    const char *plain = "fennel: 1\ntasks:\n  - {id: a, type: start, rank: 0}\n";
    g_assert_null(fennel_msccl_from_yaml("p.yaml", plain, strlen(plain), NULL, &found, &p, &error));
    g_assert_no_error(error);
    g_assert_false(found);
    g_assert_nonnull(p);
    g_assert_cmpuint(p->n_tasks, ==, 1);
    fennel_program_free(p);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/msccl-yaml/round-trip", test_round_trip);
    g_test_add_func("/msccl-yaml/edits", test_edits);
    return g_test_run();
}
