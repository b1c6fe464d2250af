/* The YAML program and model readers: every error of README, Program files; docs/SEMANTICS.md names
 * FILE:LINE:COL and says what is wrong. */
#include "errors.h"
#include "model.h"
#include "program_io.h"

#include <string.h>

#define HEAD "fennel: 1\ntasks:\n- {id: s0, type: start, rank: 0}\n"

static const struct {
    const char *yaml;
    const char *message;
} program_errors[] = {
    {"", "p.yaml: empty file"},
    {"[1, 2]", "p.yaml:1:1: expected a mapping with 'fennel: 1' and 'tasks', got a sequence"},
    {"tasks: []\n", "p.yaml:1:1: missing 'fennel: 1' (the format version)"},
    {"fennel: 2\ntasks: []\n",
     "p.yaml:1:9: fennel: unsupported format version (this fennel reads version 1)"},
    {"fennel: 1\n", "p.yaml:1:1: missing 'tasks'"},
    {"fennel: 1\nrnaks: 3\ntasks: []\n",
     "p.yaml:2:1: unknown key 'rnaks' (expected one of: fennel, ranks, processes, tasks, name, "
     "description, collective, root, blocks, msccl)"},
    {"fennel: 1\nranks: 0\ntasks: []\n", "p.yaml:2:8: ranks: expected a whole number >= 1"},
    {"fennel: 1\nprocesses: two\ntasks: []\n",
     "p.yaml:2:12: processes: expected a whole number >= 1"},
    {"fennel: 1\ntasks: {a: 1}\n", "p.yaml:2:8: tasks: expected a sequence, got a mapping"},
    {"fennel: 1\ntasks:\n- 5\n", "p.yaml:3:3: expected a task mapping, got a scalar"},
    {HEAD "- {id: x, type: proxy, rank: 0, after: [s0], colour: red}\n",
     "p.yaml:4:46: unknown key 'colour' (expected one of: id, type, rank, after, any, concurrent, "
     "skew, duration, size, to, from, blocking, request, tag, data, slot, eager, group, allreduce, "
     "tb, "
     "step, op, "
     "src, dst, cnt, dep, hasdep)"},
    {HEAD "- {id: x, type: proxy, rank: 0, rank: 1, after: [s0]}\n",
     "p.yaml:4:33: duplicate key 'rank'"},
    {HEAD "- {type: proxy, rank: 0, after: [s0]}\n", "p.yaml:4:3: task is missing 'id'"},
    {HEAD "- {id: x, rank: 0, after: [s0]}\n", "p.yaml:4:3: task is missing 'type'"},
    {HEAD "- {id: x, type: proxy, after: [s0]}\n", "p.yaml:4:3: task is missing 'rank'"},
    {HEAD "- {id: 'a b', type: proxy, rank: 0, after: [s0]}\n",
     "p.yaml:4:8: id 'a b': use letters, digits and _ . : - only"},
    {HEAD "- {id: s0, type: proxy, rank: 0, after: [s0]}\n",
     "p.yaml:4:8: duplicate id 's0' (first defined at 3:8)"},
    {HEAD "- {id: x, type: barrier, rank: 0, after: [s0]}\n",
     "p.yaml:4:17: unknown task type 'barrier' (expected start, proxy, sleep, compute, put, get, "
     "send, recv, load-reduce or multicast)"},
    {HEAD "- {id: x, type: proxy, rank: 0, size: 8B, after: [s0]}\n",
     "p.yaml:4:33: 'size' does not apply to a proxy task"},
    {HEAD "- {id: x, type: proxy, rank: -1, after: [s0]}\n",
     "p.yaml:4:30: rank: a rank must be >= 0"},
    {HEAD "- {id: x, type: proxy, rank: one, after: [s0]}\n",
     "p.yaml:4:30: rank: expected a whole number"},
    {"fennel: 1\nranks: 2\ntasks:\n- {id: s0, type: start, rank: 0}\n"
     "- {id: p, type: put, rank: 0, to: 2, size: 8B, after: [s0]}\n",
     "p.yaml:5:35: rank 2 is outside 0..1 (ranks: 2 at 2:8)"},
    {HEAD "- {id: x, type: proxy, rank: 0, after: [s0, nope]}\n",
     "p.yaml:4:45: unknown task 'nope' in after"},
    {HEAD "- {id: x, type: proxy, rank: 0, after: [s0, {a: 1}]}\n",
     "p.yaml:4:45: after: expected a task id, got a mapping"},
    {HEAD "- {id: s1, type: start, rank: 1, after: [s0]}\n",
     "p.yaml:4:34: start task 's1' cannot have predecessors"},
    {HEAD "- {id: x, type: proxy, rank: 0}\n",
     "p.yaml:4:3: task 'x' has no predecessors: give it 'after' (only a start task may have "
     "none)"},
    {HEAD "- {id: x, type: proxy, rank: 0, after: []}\n",
     "p.yaml:4:3: task 'x' has no predecessors: give it 'after' (only a start task may have "
     "none)"},
    {HEAD "- {id: x, type: proxy, rank: 0, any: 2, after: [s0]}\n",
     "p.yaml:4:38: any: '2' is outside 1..1, the number of predecessors"},
    {HEAD "- {id: x, type: proxy, rank: 0, any: 0, after: [s0]}\n",
     "p.yaml:4:38: any: '0' is outside 1..1, the number of predecessors"},
    {HEAD "- {id: x, type: sleep, rank: 0, duration: -5ns, after: [s0]}\n",
     "p.yaml:4:43: duration: must not be negative"},
    {HEAD "- {id: x, type: sleep, rank: 0, after: [s0]}\n",
     "p.yaml:4:3: sleep task 'x' needs a 'duration'"},
    {HEAD "- {id: x, type: compute, rank: 0, after: [s0]}\n",
     "p.yaml:4:3: compute task 'x' needs exactly one of 'size' and 'duration'"},
    {HEAD "- {id: x, type: compute, rank: 0, size: 8B, duration: 1ns, after: [s0]}\n",
     "p.yaml:4:3: compute task 'x' needs exactly one of 'size' and 'duration'"},
    {HEAD "- {id: x, type: put, rank: 0, to: 1, size: -8B, after: [s0]}\n",
     "p.yaml:4:44: size: must not be negative"},
    {HEAD "- {id: x, type: put, rank: 0, size: 8B, after: [s0]}\n",
     "p.yaml:4:3: put task 'x' needs 'to' and 'size'"},
    {HEAD "- {id: x, type: put, rank: 0, to: 1, size: 8B, blocking: maybe, after: [s0]}\n",
     "p.yaml:4:58: blocking: expected true or false"},
    {HEAD "- {id: x, type: get, rank: 0, from: 1, size: 8B, request: lots, after: [s0]}\n",
     "p.yaml:4:59: request: expected a number"},
    {HEAD "- {id: x, type: proxy, rank: 0, after: [s0, y]}\n- {id: y, type: proxy, rank: 0, "
          "after: [x]}\n",
     "p.yaml:4:3: cycle: x -> y -> x"},
    {HEAD "- {id: x, type: proxy, rank: 0, after: [s0, s0]}\n",
     "p.yaml:4:3: task 'x' depends on 's0' twice"},
    {"fennel: 1\nname: &a x\ntasks: *a\n", "p.yaml:3:8: aliases are not supported"},
    {"fennel: 1\ntasks: []\n---\nfennel: 1\n", "p.yaml:3:1: only one document per file is allowed"},
    {"fennel: 1\ntasks: [\n", "p.yaml:3:1: did not find expected node content while parsing a "
                              "flow node"},
    {"fennel: 1\n\ttasks: []\n", "p.yaml:2:1: a tab cannot indent YAML (use spaces)"},
    {"fennel: 1\nname: caf\xe9\ntasks: []\n",
     "p.yaml:2:10: the file is not UTF-8 text (invalid trailing utf-8 octet)"},
};

static void test_program_errors(void)
{
    for (size_t i = 0; i < G_N_ELEMENTS(program_errors); i++) {
        GError *error = NULL;
        const char *yaml = program_errors[i].yaml;
        FennelProgram *p = fennel_program_parse_yaml("p.yaml", yaml, strlen(yaml), &error);
        if (p != NULL) {
            g_test_message("case %zu parsed: %s", i, yaml);
            g_test_fail();
            fennel_program_free(p);
            continue;
        }
        g_assert_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT);
        if (strcmp(error->message, program_errors[i].message) != 0) {
            g_test_message("case %zu: got '%s', expected '%s'", i, error->message,
                           program_errors[i].message);
            g_test_fail();
        }
        g_error_free(error);
    }
}

static void test_program_fields(void)
{
    const char *yaml = "fennel: 1\nranks: 4\nprocesses: 2\nname: demo\ntasks:\n"
                       "- {id: s0, type: start, rank: 0, skew: 1.5us}\n"
                       "- id: g\n  type: get\n  rank: 0\n  from: 3\n  size: 1KiB\n  after: s0\n"
                       "- {id: p, type: put, rank: 0, to: 1, size: 8, blocking: true, after: [g]}\n"
                       "- {id: c, type: compute, rank: 0, size: 2kB, concurrent: True, after: "
                       "[p, g], any: 1}\n";
    GError *error = NULL;
    FennelProgram *p = fennel_program_parse_yaml("p.yaml", yaml, strlen(yaml), &error);
    g_assert_no_error(error);
    g_assert_cmpuint(p->n_ranks, ==, 4);
    g_assert_cmpuint(p->processes, ==, 2);
    g_assert_cmpuint(p->n_tasks, ==, 4);
    g_assert_cmpint(p->amount[0], ==, 1500000);
    g_assert_cmpuint(p->type[1], ==, FENNEL_TASK_GET);
    g_assert_cmpuint(p->peer[1], ==, 3);
    g_assert_cmpint(p->amount[1], ==, 1024);
    g_assert_cmpint(p->request[1], ==, 8);
    g_assert_cmpuint(p->flags[2], ==, FENNEL_TASK_BLOCKING);
    g_assert_cmpuint(p->flags[3], ==, FENNEL_TASK_CONCURRENT | FENNEL_TASK_SIZED);
    g_assert_cmpint(p->amount[3], ==, 2000);
    g_assert_cmpuint(p->any[3], ==, 1);
    uint32_t *in_degree = fennel_program_in_degrees(p);
    g_assert_cmpuint(in_degree[3], ==, 2);
    g_free(in_degree);
    g_assert_cmpstr(p->task_name[2], ==, "p");
    g_assert_cmpuint(p->line[1], ==, 7);
    fennel_program_free(p);
}

static const struct {
    const char *yaml;
    const char *message;
} model_errors[] = {
    {"fennel: 1\nnetwork: {model: logq}\n",
     "m.yaml:2:18: unknown network model 'logq' (known: postal, lbp, logp, loggp)"},
    {"fennel: 1\nnetwork: {alpha: 1}\n", "m.yaml:2:10: network: missing 'model'"},
    {"fennel: 1\nnetwork: {model: lbp, alpha: 1ns}\n",
     "m.yaml:2:23: unknown parameter 'alpha' for network model lbp (it has: alpha_p, alpha_r, "
     "beta)"},
    {"fennel: 1\nnetwork: {model: lbp, beta: 0.4ns}\n",
     "m.yaml:2:29: beta: expected a time per byte such as 0.4ns/B"},
    {"fennel: 1\ncompute: {model: fixed, duration: -1ns}\n",
     "m.yaml:2:35: duration: must not be negative"},
    {"fennel: 1\ncompute: {model: gpu}\n",
     "m.yaml:2:18: unknown compute model 'gpu' (known: fixed, gamma, reduction)"},
    {"fennel: 1\nresolution: 0ns\n", "m.yaml:2:13: resolution: must be positive"},
    {"fennel: 1\nnoisy: true\n",
     "m.yaml:2:1: unknown key 'noisy' (expected one of: fennel, network, compute, noise, "
     "placement, intra, topology, contention, ordering, gpu, stragglers, faults, duplex, "
     "eager, resolution, name, description)"},
    {"fennel: 1\nintra: {alpha: 1ns}\n",
     "m.yaml:2:1: intra: needs placement: {ranks_per_node: K} to say which ranks share a node"},
    {"fennel: 1\nplacement: {ranks_per_node: 0}\n",
     "m.yaml:2:29: ranks_per_node: expected a whole number >= 1"},
    {"fennel: 1\nplacement: {nodes: 2}\n",
     "m.yaml:2:13: placement: unknown key 'nodes' (expected ranks_per_node, order, nic)"},
    {"fennel: 1\nnoise: {network: {mean: 1ns}}\n",
     "m.yaml:2:9: noise: network: missing 'distribution'"},
    {"fennel: 1\nnoise: {disk: {distribution: normal}}\n",
     "m.yaml:2:9: noise: unknown stream 'disk' (expected network, host or compute)"},
    {"fennel: 1\nnoise: {host: {distribution: cauchy}}\n",
     "m.yaml:2:30: unknown distribution 'cauchy' (known: constant, uniform, normal, lognormal, "
     "exponential, gamma, betaprime, empirical, none)"},
    {"fennel: 1\nnoise: {host: {distribution: normal, mean: 1ns}}\n",
     "m.yaml:2:9: normal noise needs 'stddev'"},
    {"fennel: 1\nnoise: {host: {distribution: normal, stddev: 1ns, shape: 2}}\n",
     "m.yaml:2:51: unknown key 'shape' for normal noise (it has: distribution, mean, stddev)"},
    {"fennel: 1\nnoise: {compute: {distribution: gamma, shape: -1, scale: 1ns}}\n",
     "m.yaml:2:9: gamma noise: shape must be positive (it is -1)"},
    {"fennel: 1\nnoise: {compute: {distribution: empirical, file: /nonexistent/samples}}\n",
     "m.yaml:2:44: file: /nonexistent/samples: cannot read: no such file or directory"},
    {"network: {model: postal}\n", "m.yaml:1:1: missing 'fennel: 1' (the format version)"},
    {"fennel: 1\nnetwork: {model: postal}\nnetwork: {model: lbp}\n",
     "m.yaml:3:1: duplicate key 'network'"},
    {"fennel: 1\nnetwork: postal\n",
     "m.yaml:2:10: network: expected a mapping with 'model', got a scalar"},
};

static void test_model_errors(void)
{
    for (size_t i = 0; i < G_N_ELEMENTS(model_errors); i++) {
        FennelModel m;
        fennel_model_init(&m);
        GError *error = NULL;
        const char *yaml = model_errors[i].yaml;
        if (fennel_model_parse(&m, "m.yaml", yaml, strlen(yaml), &error)) {
            g_test_message("case %zu parsed: %s", i, yaml);
            g_test_fail();
            continue;
        }
        if (strcmp(error->message, model_errors[i].message) != 0) {
            g_test_message("case %zu: got '%s', expected '%s'", i, error->message,
                           model_errors[i].message);
            g_test_fail();
        }
        g_error_free(error);
    }
}

static void test_model_values(void)
{
    FennelModel m;
    fennel_model_init(&m);
    const char *yaml = "fennel: 1\nnetwork:\n  beta: 0.4ns/B\n  model: lbp\n  alpha_p: 500ns\n"
                       "  alpha_r: 0.1us\ncompute: {model: gamma, gamma: 1}\nresolution: 1ns\n";
    GError *error = NULL;
    g_assert_true(fennel_model_parse(&m, "m.yaml", yaml, strlen(yaml), &error));
    g_assert_cmpstr(m.network->name, ==, "lbp");
    g_assert_cmpint(m.net[0], ==, 500000);
    g_assert_cmpint(m.net[1], ==, 100000);
    g_assert_cmpint(m.net[2], ==, 400000000);
    g_assert_cmpstr(m.compute->name, ==, "gamma");
    g_assert_cmpint(m.comp[0], ==, 1000000000);
    g_assert_true(m.resolution_explicit);
    char *d = fennel_model_describe(&m);
    g_assert_cmpstr(d, ==,
                    "lbp alpha_p=500ns alpha_r=100ns beta=0.4ns/B; compute gamma gamma=1ns/B; "
                    "resolution 1ns (truncating)");
    g_free(d);

    /* --set: plain and qualified names, class switches, unknown keys. */
    gboolean unknown;
    char *why = NULL;
    g_assert_true(fennel_model_set(&m, "alpha_p", "400ns", &unknown, &why));
    g_assert_cmpint(m.net[0], ==, 400000);
    g_assert_true(fennel_model_set(&m, "compute.gamma", "2ns/B", &unknown, &why));
    g_assert_cmpint(m.comp[0], ==, 2000000000);
    g_assert_true(fennel_model_set(&m, "network", "postal", &unknown, &why));
    g_assert_cmpint(m.net[0], ==, 0);
    g_assert_false(fennel_model_set(&m, "alpha_p", "1ns", &unknown, &why));
    g_assert_true(unknown);
    g_assert_cmpstr(why, ==,
                    "unknown parameter 'alpha_p' (network model postal has: alpha, beta; compute "
                    "model gamma has: gamma; also: resolution, network, compute, ranks_per_node, "
                    "intra, intra.NAME)");
    g_free(why);
    g_assert_false(fennel_model_set(&m, "alpha", "fast", &unknown, &why));
    g_assert_false(unknown);
    g_assert_cmpstr(why, ==, "alpha: expected a number");
    g_free(why);
}

/* Rounding: to nearest by default, toward zero with an explicit resolution. */
static void test_quantise(void)
{
    FennelModel m;
    fennel_model_init(&m);
    g_assert_cmpint(fennel_model_quantise(&m, 1499999), ==, 1);
    g_assert_cmpint(fennel_model_quantise(&m, 1500000), ==, 2);
    m.resolution = FENNEL_NS;
    m.resolution_explicit = TRUE;
    g_assert_cmpint(fennel_model_quantise(&m, (__int128)603200 * FENNEL_AS_PER_PS), ==, 603000);
    g_assert_cmpint(fennel_model_quantise(&m, (__int128)603999 * FENNEL_AS_PER_PS), ==, 603000);
    g_assert_cmpint(fennel_model_quantise(&m, (__int128)1 << 120), ==, FENNEL_TIME_MAX);
}

/* The reference of the test below: the rounding in 128-bit arithmetic throughout. */
static FennelTime quantise_wide(const FennelModel *m, __int128 as)
{
    __int128 unit = (__int128)m->resolution * FENNEL_AS_PER_PS, half = unit / 2;
    __int128 q = m->resolution_explicit ? as / unit
                 : as >= 0              ? (as + half) / unit
                                        : -((-as + half) / unit);
    __int128 ps = q * m->resolution;
    return ps > FENNEL_TIME_MAX    ? FENNEL_TIME_MAX
           : ps < -FENNEL_TIME_MAX ? -FENNEL_TIME_MAX
                                   : (FennelTime)ps;
}

/* Quantising takes a 64-bit path when nothing can overflow: it gives what 128 bits give,
 * around its limits (2^62 attoseconds) and at halves, whatever the resolution. */
static void test_quantise_paths(void)
{
    FennelModel m;
    fennel_model_init(&m);
    const int64_t resolutions[] = {1, 3, FENNEL_NS, 1000003, (int64_t)1 << 40, (int64_t)1 << 50};
    GRand *rand = g_rand_new_with_seed(5);
    for (size_t r = 0; r < G_N_ELEMENTS(resolutions); r++) {
        for (int explicit_ = 0; explicit_ < 2; explicit_++) {
            m.resolution = resolutions[r];
            m.resolution_explicit = explicit_;
            __int128 unit = (__int128)m.resolution * FENNEL_AS_PER_PS;
            const __int128 around[] = {
                0, unit / 2, unit, (__int128)1 << 62, (__int128)1 << 63, (__int128)1 << 80};
            for (size_t a = 0; a < G_N_ELEMENTS(around); a++) {
                for (int i = 0; i < 200; i++) {
                    __int128 as = around[a] + g_rand_int_range(rand, -3, 4);
                    if (i >= 20)
                        as = (__int128)(g_rand_double(rand) * 2.0 * (double)around[a]) - around[a];
                    g_assert_cmpint(fennel_model_quantise(&m, as), ==, quantise_wide(&m, as));
                    g_assert_cmpint(fennel_model_quantise(&m, -as), ==, quantise_wide(&m, -as));
                }
            }
        }
    }
    g_rand_free(rand);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/readers/program-errors", test_program_errors);
    g_test_add_func("/readers/program-fields", test_program_fields);
    g_test_add_func("/readers/model-errors", test_model_errors);
    g_test_add_func("/readers/model-values", test_model_values);
    g_test_add_func("/readers/quantise", test_quantise);
    g_test_add_func("/readers/quantise-paths", test_quantise_paths);
    return g_test_run();
}
