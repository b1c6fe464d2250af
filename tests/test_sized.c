/* Size-dependent parameters (docs/SEMANTICS.md, Size-dependent parameters): the
 * interpolation rule on hand-computed points, the model file's tables and ranges with their
 * errors, and a model of one size range giving exactly the constant model's times on every
 * generator. */
#include "engine.h"
#include "generator.h"
#include "model.h"

#include <string.h>

static FennelParamTable *table(uint32_t n, const int64_t *pairs)
{
    FennelParamTable *t = fennel_param_table_new(n);
    for (uint32_t i = 0; i < n; i++)
        t->points[i] = (FennelSizePoint){pairs[2 * i], pairs[2 * i + 1]};
    return t;
}

/* Points (8, 380 000 ps) and (512, 460 000 ps): the line has slope 80 000 / 504 ps per
 * byte. At 100 B: 380 000 + 80 000 x 92 / 504 = 394 603.17..., rounded 394 603. Below 8 B
 * the first segment goes on: at 0 B, 380 000 - 80 000 x 8 / 504 = 378 730.15 -> 378 730.
 * Above 512 B the last segment goes on: at 1016 B, 460 000 + 80 000 = 540 000. */
static void test_interpolation(void)
{
    FennelParamTable *t = table(2, (int64_t[]){8, 380000, 512, 460000});
    g_assert_cmpint(fennel_param_table_at(t, 8), ==, 380000);
    g_assert_cmpint(fennel_param_table_at(t, 512), ==, 460000);
    g_assert_cmpint(fennel_param_table_at(t, 100), ==, 394603);
    g_assert_cmpint(fennel_param_table_at(t, 0), ==, 378730);
    g_assert_cmpint(fennel_param_table_at(t, 1016), ==, 540000);
    g_free(t);

    /* Halves round up, the value and not the step from the first point: (0, 0) to (2, 1)
     * gives 0.5 at 1 B -> 1, and (0, 1) to (2, 0) gives 0.5 -> 1 as well. */
    t = table(2, (int64_t[]){0, 0, 2, 1});
    g_assert_cmpint(fennel_param_table_at(t, 1), ==, 1);
    g_free(t);
    t = table(2, (int64_t[]){0, 1, 2, 0});
    g_assert_cmpint(fennel_param_table_at(t, 1), ==, 1);
    /* A falling end segment extended stops at zero: at 10 B it would be -4. */
    g_assert_cmpint(fennel_param_table_at(t, 10), ==, 0);
    g_free(t);

    /* One point: a constant everywhere. */
    t = table(1, (int64_t[]){64, 7});
    g_assert_cmpint(fennel_param_table_at(t, 0), ==, 7);
    g_assert_cmpint(fennel_param_table_at(t, INT64_MAX), ==, 7);
    g_free(t);

    /* Ranges [0, 100) at 5 and [100, ...) at 9: points (0,5) (100,5) (100,9). The step
     * holds from 100 on; beyond the last point the last range stays constant. */
    t = table(3, (int64_t[]){0, 5, 100, 5, 100, 9});
    g_assert_cmpint(fennel_param_table_at(t, 0), ==, 5);
    g_assert_cmpint(fennel_param_table_at(t, 99), ==, 5);
    g_assert_cmpint(fennel_param_table_at(t, 100), ==, 9);
    g_assert_cmpint(fennel_param_table_at(t, 1000000), ==, 9);
    g_free(t);

    /* Extreme values saturate instead of wrapping: a slope of INT64_MAX per byte. */
    t = table(2, (int64_t[]){0, 0, 1, INT64_MAX});
    g_assert_cmpint(fennel_param_table_at(t, INT64_MAX), ==, INT64_MAX);
    g_free(t);
}

static void parse(FennelModel *m, const char *yaml)
{
    GError *error = NULL;
    fennel_model_init(m);
    g_assert_true(fennel_model_parse(m, "m.yaml", yaml, strlen(yaml), &error));
    g_assert_no_error(error);
}

static FennelMessageTiming timing(const FennelModel *m, int64_t bytes)
{
    FennelMessageTiming t;
    m->network->message(m, m->net, bytes, &t);
    return t;
}

/* lbp with alpha_r as a table and beta constant 0.4 ns/B: a 100-byte message keeps the
 * sender busy alpha_r(100) = 394.603 ns (above) and arrives after alpha_r + alpha_p + 100 x
 * 0.4 = 394.603 + 500 + 40 = 934.603 ns. */
static void test_table_file(void)
{
    FennelModel m;
    parse(&m, "fennel: 1\nnetwork:\n  model: lbp\n  alpha_p: 500ns\n"
              "  alpha_r: {8B: 0.38us, 512B: 0.46us}\n  beta: 0.4ns/B\n");
    g_assert_true(m.sized);
    FennelMessageTiming t = timing(&m, 100);
    g_assert_cmpint(t.busy, ==, 394603);
    g_assert_cmpint(t.flight, ==, 934603);
    g_assert_cmpint(t.wire, ==, 540000);
    /* --set makes the parameter constant again. */
    gboolean unknown;
    char *why = NULL;
    g_assert_true(fennel_model_set(&m, "alpha_r", "100ns", &unknown, &why));
    g_assert_false(m.sized);
    g_assert_cmpint(timing(&m, 100).busy, ==, 100000);
    fennel_model_clear(&m);
}

/* Postal ranges: below 64 KiB alpha 1.2 us and beta 0.08 ns/B, from 64 KiB on 5 us and
 * 0.1 ns/B. 65 535 B: 1200 + 5242.8 = 6442.8 ns; 65 536 B: 5000 + 6553.6 = 11 553.6 ns. The
 * intra-node section takes ranges too. */
static void test_ranges_file(void)
{
    FennelModel m;
    parse(&m, "fennel: 1\nnetwork:\n  model: postal\n  ranges:\n"
              "    - {from: 0B, to: 64KiB, alpha: 1.2us, beta: 0.08ns/B}\n"
              "    - {from: 64KiB, alpha: 5us, beta: 0.1ns/B}\n"
              "placement: {ranks_per_node: 2}\n"
              "intra:\n  ranges:\n  - {to: 1KiB, alpha: 10ns}\n  - {alpha: 20ns}\n");
    g_assert_cmpint(timing(&m, 65535).flight, ==, 6442800);
    g_assert_cmpint(timing(&m, 65536).flight, ==, 11553600);
    g_assert_cmpint(timing(&m, 0).flight, ==, 1200000);
    FennelMessageTiming t;
    m.intra_network->message(&m, m.intra, 1023, &t);
    g_assert_cmpint(t.flight, ==, 10000);
    m.intra_network->message(&m, m.intra, 1024, &t);
    g_assert_cmpint(t.flight, ==, 20000);
    fennel_model_clear(&m);
}

/* Bad tables and ranges: one message with the position of the offending text. */
static void test_errors(void)
{
    static const struct {
        const char *yaml, *message;
    } cases[] = {
        {"fennel: 1\nnetwork: {model: lbp, alpha_r: {}}\n", "m.yaml:2:32: alpha_r: empty table"},
        {"fennel: 1\nnetwork: {model: lbp, alpha_r: {8B: 1ns, 4B: 2ns}}\n",
         "m.yaml:2:42: alpha_r: sizes must increase (4B after 8B)"},
        {"fennel: 1\nnetwork: {model: lbp, alpha_r: {8X: 1ns}}\n",
         "m.yaml:2:33: alpha_r: size '8X'"},
        {"fennel: 1\nnetwork: {model: lbp, alpha_r: {8B: fast}}\n",
         "m.yaml:2:37: alpha_r: expected a number"},
        {"fennel: 1\nnetwork: {model: loggp, S: {8B: 1KiB}}\n",
         "m.yaml:2:25: S: a size threshold cannot depend on the message size"},
        {"fennel: 1\ncompute: {model: fixed, duration: {8B: 1ns}}\n",
         "m.yaml:2:35: compute.duration: expected a value, got a mapping"},
        {"fennel: 1\nnetwork: {model: postal, ranges: [{to: 1KiB, alpha: 1ns}, {from: 2KiB, "
         "alpha: 2ns}]}\n",
         "m.yaml:2:66: from: a range starts where the previous one ends (1024B)"},
        {"fennel: 1\nnetwork: {model: postal, ranges: [{alpha: 1ns}, {alpha: 2ns}]}\n",
         "m.yaml:2:35: ranges: only the last range may leave out 'to'"},
        {"fennel: 1\nnetwork: {model: postal, ranges: [{to: 8B, alpha: 1ns}, {beta: 2ns/B}]}\n",
         "m.yaml:2:57: ranges: missing 'alpha'"},
        {"fennel: 1\nnetwork: {model: postal, alpha: 1ns, ranges: [{alpha: 1ns}]}\n",
         "m.yaml:2:48: alpha: given both in ranges and on its own"},
        {"fennel: 1\nnetwork: {model: postal, ranges: [{to: 8B, gamma: 1ns}]}\n",
         "m.yaml:2:44: ranges: unknown parameter 'gamma'"},
        {"fennel: 1\nnetwork: {model: postal, ranges: [{from: 8B, to: 8B, alpha: 1ns}]}\n",
         "m.yaml:2:50: to: must be above from"},
        {"fennel: 1\nnetwork: {model: postal, ranges: []}\n", "m.yaml:2:34: ranges: empty list"},
        {"fennel: 1\nnetwork: {model: postal, ranges: [5]}\n", "m.yaml:2:35: network.ranges: "},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        FennelModel m;
        fennel_model_init(&m);
        GError *error = NULL;
        g_assert_false(
            fennel_model_parse(&m, "m.yaml", cases[i].yaml, strlen(cases[i].yaml), &error));
        g_assert_nonnull(error);
        if (!g_str_has_prefix(error->message, cases[i].message)) {
            g_test_message("%s: got '%s', expected '%s...'", cases[i].yaml, error->message,
                           cases[i].message);
            g_test_fail();
        }
        g_error_free(error);
        fennel_model_clear(&m);
    }
}

/* Every event's kind, task and times, hashed. */
static void hash_event(void *data, const FennelProgram *p, const FennelEvent *ev)
{
    (void)p;
    uint64_t *h = data;
    const int64_t fields[] = {ev->kind,  ev->task,       ev->time, ev->until,
                              ev->local, ev->completion, ev->rank, ev->issuer_completion};
    for (size_t i = 0; i < G_N_ELEMENTS(fields); i++)
        *h = (*h ^ (uint64_t)fields[i]) * 0x100000001b3ull;
}

static uint64_t run_hash(const FennelProgram *p, const FennelModel *model)
{
    uint64_t h = 0xcbf29ce484222325ull;
    FennelMachine *m = fennel_machine_new(p->n_ranks, p->processes, model);
    FennelInstrument ins = {.mask = ~0u, .observe = hash_event, .data = &h};
    fennel_machine_add_instrument(m, &ins);
    GError *error = NULL;
    gboolean ok = fennel_machine_run(m, p, &error);
    g_assert_no_error(error);
    g_assert_true(ok);
    fennel_machine_free(m);
    return h;
}

/* Whether p has a load-reduce or a multicast, which a run times only on a topology. */
static gboolean has_switch_operations(const FennelProgram *p)
{
    for (uint32_t t = 0; t < p->n_tasks; t++) {
        if (p->type[t] == FENNEL_TASK_LOAD_REDUCE || p->type[t] == FENNEL_TASK_MULTICAST)
            return TRUE;
    }
    return FALSE;
}

/* A model whose parameters are each one range from 0 B (and, for the second form, tables
 * of one point) times every generator's programs exactly as the constant model does. */
static void test_one_range_is_constant(void)
{
    static const struct {
        const char *constant, *range, *table;
    } models[] = {
        {"network: {model: postal, alpha: 1.3us, beta: 0.37ns/B}",
         "network: {model: postal, ranges: [{from: 0B, alpha: 1.3us, beta: 0.37ns/B}]}",
         "network: {model: postal, alpha: {1KiB: 1.3us}, beta: {8B: 0.37ns/B}}"},
        {"network: {model: lbp, alpha_p: 777ns, alpha_r: 123.4ns, beta: 0.11ns/B}",
         "network: {model: lbp, ranges: [{alpha_p: 777ns, alpha_r: 123.4ns, beta: 0.11ns/B}]}",
         "network: {model: lbp, alpha_p: {0B: 777ns}, alpha_r: {9B: 123.4ns}, beta: {1B: "
         "0.11ns/B}}"},
        {"network: {model: loggp, L: 900ns, o: 150ns, g: 60ns, G: 0.2ns/B, O: 0.01ns/B, S: 64B}",
         "network: {model: loggp, S: 64B, ranges: [{L: 900ns, o: 150ns, g: 60ns, G: 0.2ns/B, O: "
         "0.01ns/B}]}",
         "network: {model: loggp, S: 64B, L: {0B: 900ns}, o: {3B: 150ns}, g: 60ns, G: {0B: "
         "0.2ns/B}, O: 0.01ns/B}"},
    };
    static const uint32_t ranks[] = {1, 2, 3, 4, 5, 7, 8, 12, 16, 17, 33, 64};
    unsigned runs = 0;
    for (size_t k = 0; k < G_N_ELEMENTS(models); k++) {
        FennelModel forms[3];
        for (int f = 0; f < 3; f++) {
            const char *text = f == 0   ? models[k].constant
                               : f == 1 ? models[k].range
                                        : models[k].table;
            char *yaml = g_strdup_printf("fennel: 1\n%s\n", text);
            parse(&forms[f], yaml);
            g_assert_cmpint(forms[f].sized, ==, f != 0);
            g_free(yaml);
        }
        for (const FennelGenerator *const *g = fennel_generators; *g; g++) {
            for (size_t r = 0; r < G_N_ELEMENTS(ranks); r++) {
                for (int64_t size = 8; size <= 4096; size *= 8) {
                    FennelGenOptions o;
                    fennel_gen_options_init(&o);
                    if ((*g)->options & FENNEL_GEN_RANKS) {
                        o.ranks = ranks[r];
                        o.given |= FENNEL_GEN_RANKS;
                    } else if (r > 0) {
                        continue;
                    }
                    if ((*g)->options & FENNEL_GEN_SIZE) {
                        o.size = size;
                        o.given |= FENNEL_GEN_SIZE;
                    } else if (size > 8) {
                        continue;
                    }
                    GError *error = NULL;
                    FennelProgram *p = fennel_generate(*g, &o, &error);
                    if (p == NULL) {
                        /* A rank count or size outside the generator's domain. */
                        g_clear_error(&error);
                        continue;
                    }
                    if (has_switch_operations(p)) {
                        /* Timed by a topology's switch, not by these models (nccl-nvls). */
                        fennel_program_free(p);
                        continue;
                    }
                    uint64_t want = run_hash(p, &forms[0]);
                    for (int f = 1; f < 3; f++) {
                        if (run_hash(p, &forms[f]) != want) {
                            g_test_message("%s --ranks %u --size %" G_GINT64_FORMAT
                                           ": form %d differs under %s",
                                           (*g)->name, o.ranks, size, f, forms[0].network->name);
                            g_test_fail();
                        }
                    }
                    runs++;
                    fennel_program_free(p);
                }
            }
        }
        for (int f = 0; f < 3; f++)
            fennel_model_clear(&forms[f]);
    }
    /* The comparison ran on many programs, not on a few that happened to build. */
    g_test_message("%u programs compared", runs);
    g_assert_cmpuint(runs, >, 300);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/sized/interpolation", test_interpolation);
    g_test_add_func("/sized/table-file", test_table_file);
    g_test_add_func("/sized/ranges-file", test_ranges_file);
    g_test_add_func("/sized/errors", test_errors);
    g_test_add_func("/sized/one-range-is-constant", test_one_range_is_constant);
    return g_test_run();
}
