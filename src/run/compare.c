/* fennel compare's simulations (compare.h). */
#include "compare.h"

#include "errors.h"
#include "library.h"
#include "options.h"
#include "simulate.h"

#include <math.h>
#include <string.h>

static const char *fennel_compare_generator(const char *collective)
{
    static const char *const map[][2] = {
        {"allreduce", "allreduce-rd"},
        {"bcast", "bcast-binomial"},
        {"reduce", "reduce-binomial"},
        {"allgather", "allgather-ring"},
        {"reduce_scatter", "reduce-scatter-ring"},
        {"scatter", "scatter-binomial"},
        {"gather", "gather-binomial"},
        {"barrier", "barrier-dissemination"},
        {"alltoall", "alltoall-pairwise"},
    };
    for (size_t i = 0; collective && i < G_N_ELEMENTS(map); i++) {
        if (strcmp(collective, map[i][0]) == 0)
            return map[i][1];
    }
    return NULL;
}

/* nccl-tests' bus bandwidth factor (its doc/PERFORMANCE.md): busbw = algbw x factor with
 * algbw = S / t; allreduce 2(n-1)/n, reduce_scatter, allgather and alltoall (n-1)/n,
 * broadcast and reduce 1. */
static double busbw_factor(const char *collective, uint32_t n)
{
    if (collective == NULL || n == 0)
        return 0;
    if (strcmp(collective, "allreduce") == 0)
        return 2.0 * (n - 1) / n;
    if (strcmp(collective, "reduce_scatter") == 0 || strcmp(collective, "allgather") == 0 ||
        strcmp(collective, "alltoall") == 0)
        return (double)(n - 1) / n;
    return 1;
}

/* The generator's --size for a tool's size: nccl-tests prints the whole buffer of an
 * allgather (n blocks) and of an alltoall (n blocks, one for each rank); fennel's allgather
 * generators take one rank's block, alltoall-pairwise the block for one rank. */
static int64_t generator_size(const FennelMeasureTable *t, const char *collective, int64_t bytes)
{
    if (t->nccl && collective && t->ranks &&
        (strcmp(collective, "allgather") == 0 || strcmp(collective, "alltoall") == 0))
        return bytes / t->ranks;
    return bytes;
}

const char *fennel_over_ranks_name(FennelOverRanks over)
{
    static const char *const names[] = {"mean", "min", "max"};
    return names[over];
}

/* The ranks' times of a run (each rank's last task's end: all start together, as the
 * benchmarks' ranks leave the barrier before the timed call) taken over the ranks. */
static double over_ranks_ns(const FennelSummary *sum, FennelOverRanks over)
{
    if (over == FENNEL_OVER_RANKS_MAX || sum->rank_finish == NULL || sum->ranks == 0)
        return (double)sum->makespan / 1000;
    double total = 0, least = INFINITY;
    for (uint32_t r = 0; r < sum->ranks; r++) {
        double ns = (double)sum->rank_finish[r] / 1000;
        total += ns;
        least = MIN(least, ns);
    }
    return over == FENNEL_OVER_RANKS_MIN ? least : total / sum->ranks;
}

/* IMB's loop (docs/CALIBRATION.md, IMB's loop): `reps` calls of the one-call program p back
 * to back on every rank, a rank's call k + 1 starting when its call k has ended there (its
 * tasks that no task of its own follows are done); the root of a rooted collective is rank
 * k mod n in call k, p's ranks renumbered (r + k) mod n, as an MPI library's trees are laid
 * out from the root on ranks counted from it. Each call's start tasks but the first's become
 * proxies after the rank's previous call. */
static FennelProgram *imb_loop(const FennelProgram *p, uint32_t reps, GError **error)
{
    const uint32_t n = p->n_ranks, per = p->n_tasks;
    const gboolean rotate = p->root != FENNEL_NO_RANK;
    FennelProgramBuilder *b = fennel_builder_new();
    fennel_builder_set_acyclic(b);
    fennel_builder_reserve(b, (uint64_t)reps * (per + n), (uint64_t)reps * (p->n_edges + 2 * per));
    /* Per rank: whether a task of its own follows each task (the others end its call), and
     * whether it has tasks at all (a rank with none has no call to end). */
    gboolean *followed = g_new0(gboolean, per), *busy = g_new0(gboolean, n);
    for (uint32_t t = 0; t < per; t++) {
        busy[p->rank[t]] = TRUE;
        for (FennelEdgeIndex e = p->succ_start[t]; e < p->succ_start[t + 1]; e++)
            followed[t] |= p->rank[p->succ[e]] == p->rank[t];
    }
    uint32_t *end = g_new(uint32_t, n), *prev_end = g_new(uint32_t, n);
    for (uint32_t r = 0; r < n; r++)
        prev_end[r] = FENNEL_NO_RANK;
    for (uint32_t k = 0; k < reps; k++) {
        const uint32_t shift = rotate ? k % n : 0, first = fennel_builder_n_tasks(b);
        for (uint32_t t = 0; t < per; t++) {
            const uint32_t rank = (p->rank[t] + shift) % n;
            FennelTaskType type = p->type[t];
            if (type == FENNEL_TASK_START && prev_end[rank] != FENNEL_NO_RANK)
                type = FENNEL_TASK_PROXY;
            uint32_t id = fennel_builder_add(b, type, rank);
            if (type == p->type[t])
                fennel_builder_set_amount(b, id, p->amount[t]);
            fennel_builder_set_flags(b, id, p->flags[t] & ~FENNEL_TASK_SOLE);
            if (type == FENNEL_TASK_PUT || type == FENNEL_TASK_GET || type == FENNEL_TASK_SEND ||
                type == FENNEL_TASK_RECV)
                fennel_builder_set_peer(
                    b, id, p->peer[t] == FENNEL_ANY ? FENNEL_ANY : (p->peer[t] + shift) % n);
            if (p->request && type == FENNEL_TASK_GET)
                fennel_builder_set_request(b, id, p->request[t]);
            if (p->tag && (type == FENNEL_TASK_SEND || type == FENNEL_TASK_RECV))
                fennel_builder_set_tag(b, id, p->tag[t]);
            if (p->pin && p->pin[t] != FENNEL_NO_RANK)
                fennel_builder_set_pin(b, id, p->pin[t]);
            if (fennel_program_any(p, t))
                fennel_builder_set_any(b, id, fennel_program_any(p, t));
            if (type == FENNEL_TASK_PROXY && p->type[t] == FENNEL_TASK_START)
                fennel_builder_add_edge(b, prev_end[rank], id);
        }
        for (uint32_t r = 0; r < n; r++)
            end[r] = busy[(r + n - shift) % n] ? fennel_builder_add(b, FENNEL_TASK_PROXY, r)
                                               : prev_end[r];
        for (uint32_t t = 0; t < per; t++) {
            for (FennelEdgeIndex e = p->succ_start[t]; e < p->succ_start[t + 1]; e++)
                fennel_builder_add_edge(b, first + t, first + p->succ[e]);
            for (FennelEdgeIndex e = p->start_succ ? p->start_succ_start[t] : 0;
                 p->start_succ && e < p->start_succ_start[t + 1]; e++)
                fennel_builder_add_start_edge(b, first + t, first + p->start_succ[e]);
            if (!followed[t])
                fennel_builder_add_edge(b, first + t, end[(p->rank[t] + shift) % n]);
        }
        uint32_t *swap = prev_end;
        prev_end = end;
        end = swap;
    }
    g_free(followed);
    g_free(busy);
    g_free(end);
    g_free(prev_end);
    return fennel_builder_finish(b, p->name, n, p->processes, error);
}

static double simulate_ns(const char *generator, const char *schedule,
                          const FennelLibraryChoice *choice, uint32_t ranks, int64_t bytes,
                          uint32_t ppn, FennelOverRanks over, uint32_t loop,
                          const FennelModel *model, GError **error)
{
    const FennelGenerator *g = fennel_generator_find(generator);
    if (g == NULL) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT, "unknown generator '%s'", generator);
        return NAN;
    }
    FennelGenTextOptions text = {0};
    char r[24], s[24], n[24], k[24], c[24], seg[24];
    g_snprintf(r, sizeof r, "%u", ranks);
    g_snprintf(n, sizeof n, "%u", ppn);
    if (ppn && (g->options & FENNEL_GEN_PPN))
        text.ppn = n;
    g_snprintf(s, sizeof s, "%" G_GINT64_FORMAT, bytes);
    if (choice && choice->radix && (g->options & FENNEL_GEN_RADIX)) {
        g_snprintf(k, sizeof k, "%d", choice->radix);
        text.radix = k;
    }
    if (choice && choice->variant && (g->options & FENNEL_GEN_VARIANT))
        text.variant = (char *)choice->variant;
    if (choice && choice->channels && (g->options & FENNEL_GEN_PARTITIONS)) {
        g_snprintf(c, sizeof c, "%d", choice->channels);
        text.partitions = c;
    }
    if (choice && fennel_library_generator_segment(choice)) {
        g_snprintf(seg, sizeof seg, "%" G_GINT64_FORMAT, fennel_library_generator_segment(choice));
        text.segment = seg;
    }
    if (g->options & FENNEL_GEN_RANKS)
        text.ranks = r;
    if (g->options & FENNEL_GEN_SIZE)
        text.size = s;
    text.schedule = (char *)schedule;
    FennelProgram *p = fennel_gen_text_generate_for(generator, &text, 0, model, NULL, error);
    if (p != NULL && loop > 0) {
        FennelProgram *one = p;
        p = imb_loop(one, loop, error);
        fennel_program_free(one);
    }
    if (p == NULL)
        return NAN;
    FennelProgram *programs[] = {p, NULL};
    FennelSummary sum;
    uint64_t events;
    gboolean ok = fennel_simulate(programs, model, 0, &sum, NULL, &events, error);
    /* A rank's time in IMB's loop is its loop's over the calls. */
    double ns = ok ? over_ranks_ns(&sum, over) / (loop ? loop : 1) : NAN;
    fennel_summary_clear(&sum);
    fennel_program_free(p);
    return ns;
}

static void free_point(FennelComparePoint *p)
{
    g_free(p->collective);
    g_free(p->generator);
    g_free(p->schedule);
    g_free(p->mpi_library);
    g_free(p->choice);
}

/* Whether a comma-separated list holds the name. */
static gboolean has_name(const char *list, const char *name)
{
    char **names = g_strsplit(list, ",", -1);
    gboolean found = g_strv_contains((const char *const *)names, name);
    g_strfreev(names);
    return found;
}

/* What the library's choice at a point came to. */
typedef enum {
    CHOICE_RUNS,         /* a generator performs it */
    CHOICE_NO_GENERATOR, /* an algorithm fennel has no generator for: the point is left out */
    CHOICE_FAILED,       /* the library cannot choose (an error) */
} ChoiceOutcome;

/* The library's choice at a point (its collective, ranks and generator size): the generator
 * and radix that perform it, and the line that says which row chose it. An algorithm fennel
 * has no generator for is CHOICE_NO_GENERATOR, with the message naming it and the row. */
static ChoiceOutcome library_choice(const char *library, const FennelLibraryMachine *machine,
                                    FennelComparePoint *p, GError **error)
{
    FennelLibraryChoice c;
    if (!fennel_library_choose_at(library, p->collective, p->ranks, machine, p->gen_bytes, &c,
                                  error))
        return CHOICE_FAILED;
    const char *g = fennel_library_generator(library, p->collective, &c, error);
    if (g == NULL) {
        char *message = g_strdup_printf("%s (%s)", (*error)->message, c.why);
        g_clear_error(error);
        g_set_error_literal(error, FENNEL_ERROR, FENNEL_ERROR_INPUT, message);
        g_free(message);
        return CHOICE_NO_GENERATOR;
    }
    g_free(p->generator);
    p->generator = g_strdup(g);
    p->mpi_library = g_strdup(library);
    p->choice = g_memdup2(&c, sizeof c);
    return CHOICE_RUNS;
}

/* Notes a point left out because the library's choice has no generator: its collective and
 * algorithm once in the list, the first such point's message (at its line) in full. */
static void note_no_generator(FennelComparison *out, const FennelMeasureTable *t, uint32_t line,
                              const char *library, const FennelComparePoint *p, const GError *why)
{
    FennelLibraryChoice c;
    char *name = NULL;
    if (fennel_library_choose_on(library, p->collective, p->ranks, 0, p->gen_bytes, &c, NULL))
        name = g_strdup_printf("%s %s", p->collective, c.algorithm);
    else
        name = g_strdup(p->collective);
    if (!has_name(out->no_generator->str, name))
        g_string_append_printf(out->no_generator, "%s%s", out->no_generator->len ? "," : "", name);
    g_free(name);
    if (out->no_generator_points++ == 0)
        out->no_generator_first = g_strdup_printf("%s:%u:1: %s", t->file, line, why->message);
}

/* The ranks per node a library decides on: --ppn, or else the GPUs per server of a rail
 * topology (a GPU preset such as dgx-h100, whose servers are its own; docs/LIBRARIES.md). */
static uint32_t library_ppn(const FennelCompareOptions *o, const FennelModel *model)
{
    if (o->ppn || model->topology == NULL || model->topology->kind != FENNEL_TOPOLOGY_RAIL)
        return o->ppn;
    return model->topology->gpus_per_node;
}

/* The index's mark of a point left out (the library's choice has no generator). */
#define LEFT_OUT G_MAXUINT

/* A point being gathered: every sample of one collective, generator, schedule, rank count
 * and size, from every table (repeated runs of a test are pooled as fit pools them). */
typedef struct {
    FennelComparePoint p;
    GArray *values;
    const FennelMeasureTable *table; /* of the first sample, for an error's position */
    uint32_t line;
} Pending;

static double median_of(GArray *v)
{
    return v->len ? fennel_statistic_of(FENNEL_STAT_MEDIAN, (double *)(void *)v->data, v->len)
                  : NAN;
}

/* The groups' summaries: points of one collective, generator (or library), schedule and
 * rank count. */
static void summarise(FennelComparison *out)
{
    GHashTable *index = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    GPtrArray *errors = g_ptr_array_new(), *ratios = g_ptr_array_new();
    for (guint i = 0; i < out->points->len; i++) {
        const FennelComparePoint *p = &g_array_index(out->points, FennelComparePoint, i);
        /* With a library, one group per collective and rank count whatever its choices. */
        char *key = g_strdup_printf("%s\x1f%s\x1f%s\x1f%u", p->collective ? p->collective : "",
                                    p->mpi_library ? p->mpi_library : p->generator,
                                    p->schedule ? p->schedule : "", p->ranks);
        gpointer found;
        guint g;
        if (g_hash_table_lookup_extended(index, key, NULL, &found)) {
            g = GPOINTER_TO_UINT(found);
            g_free(key);
            FennelCompareGroup *gr = &g_array_index(out->groups, FennelCompareGroup, g);
            if (p->mpi_library && !has_name(gr->generator, p->generator)) {
                char *more = g_strdup_printf("%s,%s", gr->generator, p->generator);
                g_free(gr->generator);
                gr->generator = more;
            }
        } else {
            g = out->groups->len;
            g_hash_table_insert(index, key, GUINT_TO_POINTER(g));
            FennelCompareGroup gr = {.collective = g_strdup(p->collective),
                                     .generator = g_strdup(p->generator),
                                     .schedule = g_strdup(p->schedule),
                                     .mpi_library = g_strdup(p->mpi_library),
                                     .ranks = p->ranks,
                                     .median_error = NAN,
                                     .worst_error = NAN,
                                     .median_ratio = NAN};
            g_array_append_val(out->groups, gr);
            g_ptr_array_add(errors, g_array_new(FALSE, FALSE, sizeof(double)));
            g_ptr_array_add(ratios, g_array_new(FALSE, FALSE, sizeof(double)));
        }
        FennelCompareGroup *gr = &g_array_index(out->groups, FennelCompareGroup, g);
        gr->points++;
        if (isfinite(p->error)) {
            g_array_append_val(g_ptr_array_index(errors, g), p->error);
            g_array_append_val(g_ptr_array_index(ratios, g), p->ratio);
            if (isnan(gr->worst_error) || p->error > gr->worst_error) {
                gr->worst_error = p->error;
                gr->worst_bytes = p->bytes;
            }
        }
    }
    GArray *all = g_array_new(FALSE, FALSE, sizeof(double));
    for (guint g = 0; g < out->groups->len; g++) {
        FennelCompareGroup *gr = &g_array_index(out->groups, FennelCompareGroup, g);
        GArray *e = g_ptr_array_index(errors, g), *r = g_ptr_array_index(ratios, g);
        g_array_append_vals(all, e->data, e->len);
        gr->median_error = median_of(e);
        gr->median_ratio = median_of(r);
        g_array_free(e, TRUE);
        g_array_free(r, TRUE);
    }
    out->worst_error = NAN;
    for (guint i = 0; i < all->len; i++) {
        double e = g_array_index(all, double, i);
        if (isnan(out->worst_error) || e > out->worst_error)
            out->worst_error = e;
    }
    out->median_error = median_of(all);
    g_array_free(all, TRUE);
    g_ptr_array_free(errors, TRUE);
    g_ptr_array_free(ratios, TRUE);
    g_hash_table_destroy(index);
}

gboolean fennel_compare(GPtrArray *tables, const FennelModel *model, const FennelCompareOptions *o,
                        FennelComparison *out, GError **error)
{
    out->points = g_array_new(FALSE, TRUE, sizeof(FennelComparePoint));
    out->groups = g_array_new(FALSE, TRUE, sizeof(FennelCompareGroup));
    out->skipped = g_string_new(NULL);
    out->no_table = g_string_new(NULL);
    out->no_generator = g_string_new(NULL);
    GArray *pending = g_array_new(FALSE, TRUE, sizeof(Pending));
    GHashTable *index = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    gboolean ok = TRUE;
    for (guint i = 0; ok && i < tables->len; i++) {
        const FennelMeasureTable *t = g_ptr_array_index(tables, i);
        if (t->kind != FENNEL_MEASURE_COLLECTIVE)
            continue;
        const char *generator = o->generator   ? o->generator
                                : t->generator ? t->generator
                                               : fennel_compare_generator(t->collective);
        uint32_t ranks = t->ranks ? t->ranks : o->ranks;
        if (o->mpi_library && t->collective == NULL && t->nccl) {
            fennel_error_at(error, t->file, t->line, 1,
                            "the nccl-tests log does not name its collective (give "
                            "--collective NAME)");
            ok = FALSE;
            break;
        }
        if (o->mpi_library && t->collective == NULL) {
            fennel_error_at(error, t->file, t->line, 1,
                            "the table names its generator, not its collective: --library "
                            "chooses for the collectives of OSU, IMB and nccl-tests outputs");
            ok = FALSE;
            break;
        }
        if (o->mpi_library && !fennel_library_covers(o->mpi_library, t->collective)) {
            /* Left out and named in the summary, never run by another algorithm. */
            if (!has_name(out->no_table->str, t->collective))
                g_string_append_printf(out->no_table, "%s%s", out->no_table->len ? "," : "",
                                       t->collective);
            continue;
        }
        if (o->mpi_library)
            generator = o->mpi_library; /* the point's own choice, below */
        if (generator == NULL && t->collective == NULL) {
            fennel_error_at(error, t->file, t->line, 1,
                            "the output does not name its collective (give --generator NAME)");
            ok = FALSE;
            break;
        }
        if (generator == NULL) {
            /* A collective fennel has no generator for (allgatherv, scatterv, ...) is left
             * out and named in the summary; --generator includes it. */
            if (!strstr(out->skipped->str, t->collective))
                g_string_append_printf(out->skipped, "%s%s", out->skipped->len ? ", " : "",
                                       t->collective);
            continue;
        }
        if (ranks == 0) {
            fennel_error_at(error, t->file, t->line, 1,
                            "the %s table does not say how many ranks ran it (give --ranks N)",
                            t->tool);
            ok = FALSE;
            break;
        }
        for (guint k = 0; k < t->samples->len; k++) {
            const FennelSample *s = &g_array_index(t->samples, FennelSample, k);
            /* A collective of no data returns at once in MPI and NCCL (IMB's 0-byte rows of
             * reductions: 0.02 us): nothing to model, so the row is counted and left out
             * (docs/CALIBRATION.md). A barrier has no size and stays. */
            if (s->bytes == 0 && t->collective && strcmp(t->collective, "barrier") != 0) {
                out->zero_rows++;
                continue;
            }
            if (o->in_place && (!t->nccl || isnan(s->in_place_ns))) {
                fennel_error_at(error, t->file, s->line, 1,
                                t->nccl ? "--in-place: the row has no in-place time"
                                        : "--in-place: only nccl-tests logs have an in-place "
                                          "time");
                ok = FALSE;
                break;
            }
            gboolean min_column = o->statistic == FENNEL_STAT_MIN && !isnan(s->min_ns);
            FennelOverRanks over = t->collective == NULL ? FENNEL_OVER_RANKS_MAX
                                   : min_column          ? FENNEL_OVER_RANKS_MIN
                                                         : FENNEL_OVER_RANKS_MEAN;
            /* IMB before 2017: the loop of the row's repetitions (one call without them). */
            const uint32_t loop = t->loop ? s->repetitions : 0;
            char *key = g_strdup_printf(
                "%s\x1f%s\x1f%s\x1f%u\x1f%" G_GINT64_FORMAT "\x1f%d\x1f%d\x1f%u",
                t->collective ? t->collective : "", generator, t->schedule ? t->schedule : "",
                ranks, s->bytes, t->nccl, (int)over, loop);
            gpointer found;
            guint at;
            if (g_hash_table_lookup_extended(index, key, NULL, &found)) {
                at = GPOINTER_TO_UINT(found);
                g_free(key);
            } else {
                at = pending->len;
                Pending pd = {
                    .p =
                        {
                            .collective = g_strdup(t->collective),
                            .generator = g_strdup(generator),
                            .schedule = g_strdup(t->schedule),
                            .ranks = ranks,
                            .bytes = s->bytes,
                            .gen_bytes = generator_size(t, t->collective, s->bytes),
                            .over_ranks = over,
                            .loop = loop,
                            .busbw_factor = t->nccl ? busbw_factor(t->collective, ranks) : 0,
                        },
                    .values = g_array_new(FALSE, FALSE, sizeof(double)),
                    .table = t,
                    .line = s->line,
                };
                /* the machine: its servers, whether their NVLink switch reduces (the rail
                 * topology's nvls, without which NCCL has no NVLS), its architectures and
                 * NICs */
                const FennelLibraryMachine machine =
                    fennel_library_machine_of(model, library_ppn(o, model));
                ChoiceOutcome outcome = o->mpi_library
                                            ? library_choice(o->mpi_library, &machine, &pd.p, error)
                                            : CHOICE_RUNS;
                if (outcome == CHOICE_FAILED) {
                    char *message = g_strdup((*error)->message);
                    g_clear_error(error);
                    fennel_error_at(error, t->file, s->line, 1, "%s", message);
                    g_free(message);
                    free_point(&pd.p);
                    g_array_free(pd.values, TRUE);
                    g_free(key);
                    ok = FALSE;
                    break;
                }
                if (outcome == CHOICE_NO_GENERATOR) {
                    /* Left out and named (docs/CALIBRATION.md): the other points of the
                     * file are still scored. */
                    note_no_generator(out, t, s->line, o->mpi_library, &pd.p, *error);
                    g_clear_error(error);
                    free_point(&pd.p);
                    g_array_free(pd.values, TRUE);
                    at = LEFT_OUT;
                } else {
                    g_array_append_val(pending, pd);
                }
                g_hash_table_insert(index, key, GUINT_TO_POINTER(at));
            }
            if (at == LEFT_OUT)
                continue; /* a point left out: its other samples too */
            double v = o->in_place ? s->in_place_ns : min_column ? s->min_ns : s->ns;
            g_array_append_val(g_array_index(pending, Pending, at).values, v);
        }
    }
    double sum = 0, worst = 0;
    for (guint i = 0; i < pending->len; i++) {
        Pending *pd = &g_array_index(pending, Pending, i);
        FennelComparePoint *q = &pd->p;
        if (!ok) {
            free_point(q);
            g_array_free(pd->values, TRUE);
            continue;
        }
        q->samples = pd->values->len;
        q->measured_ns =
            fennel_statistic_of(o->statistic, (double *)(void *)pd->values->data, pd->values->len);
        g_array_free(pd->values, TRUE);
        g_array_append_val(out->points, *q);
        q = &g_array_index(out->points, FennelComparePoint, out->points->len - 1);
        GError *why = NULL;
        q->model_ns = simulate_ns(q->generator, q->schedule, q->choice, q->ranks, q->gen_bytes,
                                  q->choice ? library_ppn(o, model) : o->ppn, q->over_ranks,
                                  q->loop, model, &why);
        if (why) {
            char *valid = g_utf8_make_valid(why->message, -1);
            fennel_error_at(error, pd->table->file, pd->line, 1, "%s", valid);
            g_free(valid);
            g_error_free(why);
            ok = FALSE;
            continue;
        }
        q->relative = q->model_ns > 0 ? (q->measured_ns - q->model_ns) / q->model_ns : NAN;
        q->error = q->measured_ns > 0 ? fabs(q->model_ns - q->measured_ns) / q->measured_ns : NAN;
        q->ratio = q->measured_ns > 0 ? q->model_ns / q->measured_ns : NAN;
        if (isnan(q->relative))
            continue; /* no ratio to a model time of 0 */
        sum += q->relative;
        if (out->n_relative++ == 0 || fabs(q->relative) > fabs(worst))
            worst = q->relative;
    }
    g_array_free(pending, TRUE);
    g_hash_table_destroy(index);
    if (!ok)
        return FALSE;
    if (out->points->len == 0 && out->no_generator_first) {
        /* Every point's choice lacks a generator: the first one's message, at its line. */
        g_set_error_literal(error, FENNEL_ERROR, FENNEL_ERROR_INPUT, out->no_generator_first);
        return FALSE;
    }
    if (out->points->len == 0) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                    "no collective times to compare (OSU or IMB collective tests, nccl-tests, or "
                    "a CSV of generator,ranks,size_bytes,schedule,time_ns)%s%s%s%s",
                    out->skipped->len ? "; no generator performs " : "", out->skipped->str,
                    out->skipped->len ? " (give --generator NAME)" : "",
                    out->zero_rows ? "; rows of 0 bytes are left out" : "");
        return FALSE;
    }
    out->mean = out->n_relative ? sum / out->n_relative : NAN;
    out->worst = out->n_relative ? worst : NAN;
    summarise(out);
    return TRUE;
}

void fennel_comparison_clear(FennelComparison *c)
{
    for (guint i = 0; c->points && i < c->points->len; i++)
        free_point(&g_array_index(c->points, FennelComparePoint, i));
    if (c->points)
        g_array_free(c->points, TRUE);
    c->points = NULL;
    for (guint i = 0; c->groups && i < c->groups->len; i++) {
        FennelCompareGroup *g = &g_array_index(c->groups, FennelCompareGroup, i);
        g_free(g->collective);
        g_free(g->generator);
        g_free(g->schedule);
        g_free(g->mpi_library);
    }
    if (c->groups)
        g_array_free(c->groups, TRUE);
    c->groups = NULL;
    if (c->skipped)
        g_string_free(c->skipped, TRUE);
    c->skipped = NULL;
    if (c->no_table)
        g_string_free(c->no_table, TRUE);
    c->no_table = NULL;
    if (c->no_generator)
        g_string_free(c->no_generator, TRUE);
    c->no_generator = NULL;
    g_free(c->no_generator_first);
    c->no_generator_first = NULL;
}
