/* The collective data-flow checker (schedules/verify.h) over every generator, rank count by
 * rank count: the exhaustive sweeps, in meson's `slow` suite (HACKING.md, Tests), which
 * `meson test` leaves out on a developer's machine and scripts/test.sh (CI) runs.
 *
 * - Every registered generator that declares a collective verifies at every rank count
 *   1..64, at the powers of two up to 1024 and at a sample of larger composite and prime
 *   counts, with its default options and, for small counts, other roots, radices, ranks
 *   per node and variants; those that take --schedule with every recursive-multiplying
 *   schedule of rank counts up to 48. Generators added to the registry are picked up.
 * - A program written by `fennel generate` says what it performs, at every rank count to
 *   64. The hand-made and hand-broken programs are in test_verify.c. */
#include "enumerate.h"
#include "errors.h"
#include "generator.h"
#include "program_io.h"
#include "verify.h"

#include <string.h>

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

/* ---- Every collective generator ---- */

typedef struct {
    const FennelGenerator *g;
    FennelCollective c;
    unsigned verified, outside; /* programs checked, rank counts outside the domain */
} Sweep;

/* Generates with o and checks; a rank count outside the generator's domain (an input
 * error, docs/SCHEDULES.md) is counted, not failed. */
static void check_one(Sweep *s, const FennelGenOptions *o, const char *what)
{
    GError *error = NULL;
    FennelProgram *p = fennel_generate(s->g, o, &error);
    if (p == NULL) {
        if (g_error_matches(error, FENNEL_ERROR, FENNEL_ERROR_INPUT))
            s->outside++;
        else
            g_test_fail_printf("%s --ranks %u%s: %s", s->g->name, o->ranks, what, error->message);
        g_error_free(error);
        return;
    }
    if (p->n_ranks != o->ranks)
        g_test_fail_printf("%s --ranks %u%s: the program has %u ranks", s->g->name, o->ranks, what,
                           p->n_ranks);
    char *message = verdict(p, s->c, o->root);
    if (message)
        g_test_fail_printf("%s --ranks %u%s: %s", s->g->name, o->ranks, what, message);
    g_free(message);
    s->verified++;
    fennel_program_free(p);
}

static FennelGenOptions options_for(const FennelGenerator *g, uint32_t ranks)
{
    FennelGenOptions o;
    fennel_gen_options_init(&o);
    o.ranks = ranks;
    o.given = FENNEL_GEN_RANKS;
    /* reduce-scatter-nonoverlapping cuts --size into 4-byte elements and sends nothing to a
     * rank whose part is empty (as Open MPI does), so every rank holds its block only from
     * 4 bytes a rank: one element each. */
    if (strcmp(g->name, "reduce-scatter-nonoverlapping") == 0) {
        o.size = 4 * (int64_t)ranks;
        o.given |= FENNEL_GEN_SIZE;
    }
    return o;
}

/* Tasks of the generator's default program at `ranks`, 0 outside its domain. */
static uint32_t tasks_at(const FennelGenerator *g, uint32_t ranks)
{
    FennelGenOptions o = options_for(g, ranks);
    GError *error = NULL;
    FennelProgram *p = fennel_generate(g, &o, &error);
    g_clear_error(&error);
    uint32_t n = p ? p->n_tasks : 0;
    fennel_program_free(p);
    return n;
}

static void sweep_generator(gconstpointer data)
{
    Sweep s = {.g = data};
    g_assert_true(fennel_collective_parse(s.g->collective, &s.c));
    g_assert_true(s.g->options & FENNEL_GEN_RANKS);
    gboolean rooted = fennel_collective_has_root(s.c) && (s.g->options & FENNEL_GEN_ROOT);
    static const char *const variants[] = {"latency",
                                           "bandwidth",
                                           "small",
                                           "large",
                                           "blocking",
                                           "nonblocking",
                                           "pipelined",
                                           "binomial:binomial",
                                           "binomial:knomial",
                                           "binomial:binary",
                                           "inorder-binary:knomial",
                                           "inorder-binary:linear",
                                           "linear:linear",
                                           "linear:knomial",
                                           "binomial:split-bintree",
                                           "binomial:pipeline",
                                           "rd",
                                           "rabenseifner",
                                           "root-last",
                                           "scatter-allgather",
                                           "scatter-rd-allgather"};

    /* Every rank count to 64, with the variations of the options it takes. */
    for (uint32_t n = 1; n <= 64; n++) {
        FennelGenOptions o = options_for(s.g, n);
        check_one(&s, &o, "");
        if (rooted && n > 1) {
            char what[64];
            for (uint32_t root = 1; root < n; root += (n + 2) / 3) {
                o = options_for(s.g, n);
                o.root = root;
                o.given |= FENNEL_GEN_ROOT;
                g_snprintf(what, sizeof what, " --root %u", root);
                check_one(&s, &o, what);
            }
        }
        static const uint32_t counts[] = {3, 4, 7};
        for (size_t i = 0; i < G_N_ELEMENTS(counts); i++) {
            char what[64];
            if (s.g->options & FENNEL_GEN_RADIX) {
                o = options_for(s.g, n);
                o.radix = counts[i];
                o.given |= FENNEL_GEN_RADIX;
                g_snprintf(what, sizeof what, " --radix %u", counts[i]);
                check_one(&s, &o, what);
            }
            if (s.g->options & FENNEL_GEN_PPN) {
                o = options_for(s.g, n);
                o.ppn = counts[i] - 1;
                o.given |= FENNEL_GEN_PPN;
                g_snprintf(what, sizeof what, " --ppn %u", counts[i] - 1);
                check_one(&s, &o, what);
            }
        }
        /* Segments: 8 B in segments of 1 B (8 of them) and of 3 B (3, 3 and 2). */
        static const int64_t segments[] = {1, 3};
        for (size_t i = 0; (s.g->options & FENNEL_GEN_SEGMENT) && i < G_N_ELEMENTS(segments); i++) {
            char what[64];
            o = options_for(s.g, n);
            o.segment = segments[i];
            o.given |= FENNEL_GEN_SEGMENT;
            /* A generator with variants may take segments only with some of them
             * (allreduce-nonoverlapping): those are checked with the variants below. */
            GError *error = NULL;
            FennelProgram *p = fennel_generate(s.g, &o, &error);
            gboolean usage = p == NULL && g_error_matches(error, FENNEL_ERROR, FENNEL_ERROR_USAGE);
            g_clear_error(&error);
            fennel_program_free(p);
            if (usage && (s.g->options & FENNEL_GEN_VARIANT))
                continue;
            g_snprintf(what, sizeof what, " --segment %" G_GINT64_FORMAT, segments[i]);
            check_one(&s, &o, what);
            /* With ranks sharing nodes, 3 to a node (coll/han's pipeline of bcast-smp and
             * reduce-smp). */
            if (s.g->options & FENNEL_GEN_PPN) {
                FennelGenOptions node = o;
                node.ppn = 3;
                node.given |= FENNEL_GEN_PPN;
                g_snprintf(what, sizeof what, " --segment %" G_GINT64_FORMAT " --ppn 3",
                           segments[i]);
                check_one(&s, &node, what);
            }
            if (rooted && n > 1) {
                o.root = n - 1;
                o.given |= FENNEL_GEN_ROOT;
                g_snprintf(what, sizeof what, " --segment %" G_GINT64_FORMAT " --root n-1",
                           segments[i]);
                check_one(&s, &o, what);
            }
        }
        for (size_t i = 0; (s.g->options & FENNEL_GEN_VARIANT) && i < G_N_ELEMENTS(variants); i++) {
            o = options_for(s.g, n);
            o.variant = variants[i];
            o.given |= FENNEL_GEN_VARIANT;
            GError *error = NULL;
            FennelProgram *p = fennel_generate(s.g, &o, &error);
            gboolean known = p != NULL || !g_error_matches(error, FENNEL_ERROR, FENNEL_ERROR_USAGE);
            g_clear_error(&error);
            fennel_program_free(p);
            if (known) {
                char what[64];
                g_snprintf(what, sizeof what, " --variant %s", variants[i]);
                check_one(&s, &o, what);
                /* In segments of 3 B (8 B: 3, 3 and 2), where the variant takes them. */
                if (s.g->options & FENNEL_GEN_SEGMENT) {
                    FennelGenOptions seg = o;
                    seg.segment = 3;
                    seg.given |= FENNEL_GEN_SEGMENT;
                    p = fennel_generate(s.g, &seg, &error);
                    gboolean takes =
                        p != NULL || !g_error_matches(error, FENNEL_ERROR, FENNEL_ERROR_USAGE);
                    g_clear_error(&error);
                    fennel_program_free(p);
                    g_snprintf(what, sizeof what, " --variant %s --segment 3", variants[i]);
                    if (takes)
                        check_one(&s, &seg, what);
                }
                /* With ranks sharing nodes too: 3 to a node, so the last node is smaller
                 * when 3 does not divide n. */
                if (s.g->options & FENNEL_GEN_PPN) {
                    o.ppn = 3;
                    o.given |= FENNEL_GEN_PPN;
                    g_snprintf(what, sizeof what, " --variant %s --ppn 3", variants[i]);
                    check_one(&s, &o, what);
                }
            }
        }
    }

    /* Powers of two to 1024, and a sample of larger composite and prime counts; the
     * latter only up to 360 ranks for generators whose programs grow quadratically
     * (rings), to keep the test short. */
    uint32_t t32 = tasks_at(s.g, 32), t64 = tasks_at(s.g, 64);
    gboolean quadratic = t32 > 0 && t64 > 3 * t32;
    static const uint32_t larger[] = {100, 127, 128, 256, 257, 360, 509, 512, 1000, 1021, 1024};
    for (size_t i = 0; i < G_N_ELEMENTS(larger); i++) {
        uint32_t n = larger[i];
        if (quadratic && (n & (n - 1)) != 0 && n > 360)
            continue;
        /* An all-to-all's check holds p^2 blocks on each of p ranks: 1.5 GiB at 512 ranks,
         * and at 1024 more than half of most machines, which the checker refuses. */
        if (s.c == FENNEL_COLLECTIVE_ALLTOALL && n > 256)
            continue;
        FennelGenOptions o = options_for(s.g, n);
        check_one(&s, &o, "");
        if (rooted) {
            o.root = n - 1;
            o.given |= FENNEL_GEN_ROOT;
            check_one(&s, &o, " --root n-1");
        }
    }
    g_test_message("%s: %u programs verified, %u rank counts outside its domain", s.g->name,
                   s.verified, s.outside);
    g_assert_cmpuint(s.verified, >, 0);
}

/* Generators that take --schedule, with every recursive-multiplying schedule of the
 * rank count (factored, collapsed and merged, as `fennel schedules` enumerates them). */
typedef struct {
    Sweep *sweep;
    uint32_t ranks;
} ScheduleVisit;

static gboolean visit_schedule(const FennelSchedule *schedule, FennelFamily family, void *data)
{
    (void)family;
    ScheduleVisit *v = data;
    char *text = fennel_schedule_format(schedule), what[256];
    FennelGenOptions o = options_for(v->sweep->g, v->ranks);
    o.schedule = text;
    o.given |= FENNEL_GEN_SCHEDULE;
    g_snprintf(what, sizeof what, " --schedule %s", text);
    check_one(v->sweep, &o, what);
    g_free(text);
    return TRUE;
}

static void sweep_schedules(gconstpointer data)
{
    Sweep s = {.g = data};
    g_assert_true(fennel_collective_parse(s.g->collective, &s.c));
    static const uint32_t counts[] = {2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12,
                                      13, 14, 15, 16, 17, 18, 24, 30, 32, 36, 48};
    for (size_t i = 0; i < G_N_ELEMENTS(counts); i++) {
        ScheduleVisit v = {&s, counts[i]};
        fennel_enumerate(counts[i], FENNEL_FAMILY_ALL, visit_schedule, &v);
    }
    g_test_message("%s: %u schedules verified, %u outside its domain", s.g->name, s.verified,
                   s.outside);
    g_assert_cmpuint(s.verified, >, 0);
}

/* A program written by `fennel generate` says what it performs: verifying the file, with
 * no options, gives the verdict of verifying the generated program, for every generator
 * that performs a collective, at every rank count from 1 to 64 it accepts (rooted ones
 * with the root at the last rank too). Before the files carried `collective`, `root`,
 * `blocks` and `data`, the ring allreduce of 6 ranks read back failed (blocks lost). */
static char *verdict_of(const FennelProgram *p, const char *collective, uint32_t root)
{
    FennelCollective c;
    g_assert_true(fennel_collective_parse(collective, &c));
    return verdict(p, c, fennel_collective_has_root(c) ? root : 0);
}

static void files_say_what_they_perform(void)
{
    unsigned compared = 0;
    for (const FennelGenerator *const *g = fennel_generators; *g; g++) {
        if ((*g)->collective == NULL)
            continue;
        for (uint32_t ranks = 1; ranks <= 64; ranks++) {
            for (int last_root = 0; last_root < 2; last_root++) {
                if (last_root && !((*g)->options & FENNEL_GEN_ROOT))
                    continue;
                FennelGenOptions o;
                fennel_gen_options_init(&o);
                o.ranks = ranks;
                o.given = FENNEL_GEN_RANKS;
                if (last_root) {
                    o.root = ranks - 1;
                    o.given |= FENNEL_GEN_ROOT;
                }
                GError *error = NULL;
                FennelProgram *p = fennel_generate(*g, &o, &error);
                if (p == NULL) {
                    g_clear_error(&error); /* outside the generator's domain */
                    continue;
                }
                g_assert_cmpstr(p->collective, ==, (*g)->collective);
                uint32_t root = (o.given & FENNEL_GEN_ROOT) ? o.root : 0;
                char *direct = verdict_of(p, (*g)->collective, root);
                GString *yaml = g_string_new(NULL);
                fennel_program_write_yaml(p, yaml);
                FennelProgram *q =
                    fennel_program_parse_yaml("g.yaml", yaml->str, yaml->len, &error);
                g_assert_no_error(error);
                g_assert_nonnull(q->collective);
                char *from_file =
                    verdict_of(q, q->collective, q->root == FENNEL_NO_RANK ? 0 : q->root);
                if (g_strcmp0(direct, from_file) != 0)
                    g_error("%s, %u ranks%s: generated %s, read back %s", (*g)->name, ranks,
                            last_root ? ", last root" : "", direct ? direct : "ok",
                            from_file ? from_file : "ok");
                g_assert_cmpuint(q->n_blocks, ==, p->block_first ? p->n_blocks : 0);
                compared++;
                g_free(direct);
                g_free(from_file);
                g_string_free(yaml, TRUE);
                fennel_program_free(q);
                fennel_program_free(p);
            }
        }
    }
    g_assert_cmpuint(compared, >, 1000);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    for (const FennelGenerator *const *g = fennel_generators; *g; g++) {
        if ((*g)->collective == NULL)
            continue;
        char *path = g_strdup_printf("/verify/generators/%s", (*g)->name);
        g_test_add_data_func(path, *g, sweep_generator);
        g_free(path);
        if ((*g)->options & FENNEL_GEN_SCHEDULE) {
            path = g_strdup_printf("/verify/schedules/%s", (*g)->name);
            g_test_add_data_func(path, *g, sweep_schedules);
            g_free(path);
        }
    }
    g_test_add_func("/verify/files-say-what-they-perform", files_say_what_they_perform);
    return g_test_run();
}
