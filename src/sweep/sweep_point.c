/* One grid point of a sweep: its program, built once, run for every repeat, and its
 * result columns. Called from the worker threads: everything here reads the sweep
 * and owns what it allocates. */
#include "sweep_private.h"

#include "cost.h"
#include "enumerate.h"
#include "errors.h"
#include "library.h"
#include "recursive_multiplying.h"
#include "simulate.h"

#include <math.h>
#include <string.h>

/* The generators whose --schedule is the recursive-multiplying notation, which the
 * sweep resolves itself so that every row names the schedule it ran (schedule_used). */
static gboolean rm_generator(const FennelGenerator *g, gboolean *reducing)
{
    *reducing = strcmp(g->name, "allreduce-rm") == 0;
    return *reducing || strcmp(g->name, "allgather-rm") == 0;
}

void fennel__sweep_result_columns(const FennelSweep *s, GPtrArray *columns)
{
    if (s->rm)
        g_ptr_array_add(columns, g_strdup("schedule_used"));
    if (s->analytic)
        g_ptr_array_add(columns, g_strdup("analytic_ns"));
    if (s->library_columns) {
        g_ptr_array_add(columns, g_strdup("library_generator"));
        g_ptr_array_add(columns, g_strdup("library_algorithm"));
        g_ptr_array_add(columns, g_strdup("library_choice"));
    }
    const char *results[] = {"tasks",
                             "makespan_ns",
                             "skew_ns",
                             "messages",
                             "bytes",
                             "events",
                             "bandwidth_bytes_per_ns",
                             "message_rate_bytes_per_ns",
                             "error"};
    for (size_t i = 0; i < G_N_ELEMENTS(results); i++)
        g_ptr_array_add(columns, g_strdup(results[i]));
}

#define N_RESULTS 8 /* the result columns before error */

typedef struct {
    FennelProgram *program;
    char *used;                                      /* the schedule run, in the notation */
    const char *picked_generator, *picked_algorithm; /* a library's choice, or NULL */
    char *picked_choice;                             /* its line (library.h) */
    double analytic;                                 /* ps, NAN when there is none */
    GError *error;
} Built;

static void set_options(const FennelSweep *s, const FennelSweepPoint *pt, FennelGenOptions *o)
{
    fennel_gen_options_init(o);
    o->seed = s->seed;
    uint32_t *counts[FENNEL_GEN_N_OPTIONS] = {
        &o->ranks, NULL,           NULL,          &o->root, &o->rounds, &o->width, &o->radix,
        &o->ppn,   &o->partitions, &o->threshold, NULL,     NULL,       NULL};
    for (int i = 0; i < FENNEL_GEN_N_OPTIONS; i++) {
        guint k = pt->idx[i];
        if (k == G_MAXUINT)
            continue;
        o->given |= 1u << i;
        if (counts[i])
            *counts[i] = (uint32_t)s->dims[i].num[k];
        else if (i == 1)
            o->size = s->dims[i].num[k];
        else if (i == 2)
            o->schedule = s->dims[i].text[k];
        else if (i == 10)
            o->variant = s->dims[i].text[k];
        else if (i == 12)
            o->segment = s->dims[i].num[k];
        else
            o->parallel = s->dims[i].text[k];
    }
}

typedef struct {
    const FennelCost *cost;
    FennelSchedule *best;
    double cost_best;
} Search;

/* Keeps the cheapest merged schedule whose remainder is below its first factor (the
 * first found among equal costs). */
static gboolean visit_merged(const FennelSchedule *s, FennelFamily family, void *data)
{
    (void)family;
    Search *search = data;
    if (s->stages[0].remainder >= s->stages[0].factor)
        return TRUE;
    double c = fennel_schedule_cost(search->cost, s);
    if (c < search->cost_best) {
        fennel_schedule_free(search->best);
        search->best = fennel_schedule_copy(s);
        search->cost_best = c;
    }
    return TRUE;
}

/* The cheapest AllReduce schedule by the analytic cost, as `fennel schedules` ranks it
 * first; with `thesis`, among the factored and collapsed schedules and the merged ones
 * whose remainder is below their first factor, the search space that reproduces
 * Rüfenacht thesis Table 5.2. Ties go to the earlier schedule in enumeration order
 * (factored, collapsed, merged). */
static FennelSchedule *best_schedule(const FennelCost *cost, uint32_t ranks, gboolean thesis,
                                     GError **error)
{
    unsigned families =
        thesis ? FENNEL_FAMILY_FACTORED | FENNEL_FAMILY_COLLAPSED : FENNEL_FAMILY_ALL;
    uint32_t n;
    FennelRankedSchedule *best = fennel_enumerate_best(ranks, families, cost, 1, &n);
    Search search = {cost, n ? fennel_schedule_copy(best[0].schedule) : NULL,
                     n ? best[0].cost : INFINITY};
    fennel_ranked_free(best, n);
    if (thesis)
        fennel_enumerate(ranks, FENNEL_FAMILY_MERGED, visit_merged, &search);
    if (search.best == NULL)
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                    "allreduce-rm: --schedule best: no schedule for %u ranks", ranks);
    return search.best;
}

/* A library's point: the generator of the algorithm it picks for the point's ranks and size,
 * with its radix where it has one; NULL with the reason in b->error. */
static const FennelGenerator *picked_generator(const FennelSweep *s, const char *library,
                                               const FennelModel *model, FennelGenOptions *o,
                                               Built *b)
{
    FennelLibraryChoice c;
    /* NVLS only where the model's NVLink switch reduces (a rail topology's nvls); NCCL's
     * rows by its architectures and NICs */
    const FennelLibraryMachine machine = fennel_library_machine_of(model, o->ppn);
    if (!fennel_library_choose_at(library, s->collective, o->ranks, &machine, o->size, &c,
                                  &b->error))
        return NULL;
    b->picked_algorithm = c.algorithm;
    b->picked_choice = fennel_library_describe(library, s->collective, o->ranks, o->size, &c);
    const char *name = fennel_library_generator(library, s->collective, &c, &b->error);
    if (name == NULL)
        return NULL;
    b->picked_generator = name;
    const FennelGenerator *g = fennel_generator_find(name);
    if (g && !(g->options & FENNEL_GEN_PPN)) {
        o->given &= ~(unsigned)FENNEL_GEN_PPN; /* --ppn served the choice only */
        o->ppn = 1;
    }
    if (c.radix) {
        o->radix = (uint32_t)c.radix;
        o->given |= FENNEL_GEN_RADIX;
    }
    if (c.variant) {
        o->variant = c.variant;
        o->given |= FENNEL_GEN_VARIANT;
    }
    if (fennel_library_generator_segment(&c)) {
        o->segment = fennel_library_generator_segment(&c);
        o->given |= FENNEL_GEN_SEGMENT;
    }
    if (c.channels) {
        o->partitions = (uint32_t)c.channels;
        o->given |= FENNEL_GEN_PARTITIONS;
    }
    return g;
}

static void build(const FennelSweep *s, const FennelSweepPoint *pt, Built *b)
{
    const FennelGenerator *g = s->generators[pt->gen];
    const FennelModel *model = &s->models[pt->model];
    FennelGenOptions o;
    set_options(s, pt, &o);
    if (s->libraries[pt->gen]) {
        g = picked_generator(s, s->libraries[pt->gen], model, &o, b);
        if (g == NULL)
            return;
    }
    /* `--schedule heuristic` follows the row's model, as `fennel run` does. */
    o.machine_ratio = fennel_heuristic_ratio_for(model);
    /* and places channels on the model's NICs, as `fennel run` does */
    o.nics = fennel_gen_model_nics(model, o.ppn);
    b->analytic = NAN;
    gboolean reducing;
    if ((g->options & FENNEL_GEN_SCHEDULE) && rm_generator(g, &reducing)) {
        const char *text = o.schedule ? o.schedule : "heuristic";
        FennelCost cost;
        fennel_cost_init_model(&cost, model, o.size);
        gboolean thesis = strcmp(text, "best:thesis") == 0;
        FennelSchedule *sch =
            thesis || strcmp(text, "best") == 0
                ? best_schedule(&cost, o.ranks, thesis, &b->error)
                : fennel_rm_schedule(g->name, text, o.ranks, o.machine_ratio, &b->error);
        if (sch == NULL)
            return;
        b->used = fennel_schedule_format(sch);
        if (reducing)
            b->analytic = fennel_schedule_cost(&cost, sch);
        fennel_schedule_free(sch);
        o.schedule = b->used;
        o.given |= FENNEL_GEN_SCHEDULE;
    }
    b->program = fennel_generate(g, &o, &b->error);
}

static void results(GString *out, const FennelProgram *p, const FennelSummary *sum, uint64_t events)
{
    char a[FENNEL_TIME_BUF];
    FennelTime lo = sum->ranks ? sum->rank_finish[0] : 0, hi = lo;
    for (uint32_t r = 1; r < sum->ranks; r++) {
        lo = MIN(lo, sum->rank_finish[r]);
        hi = MAX(hi, sum->rank_finish[r]);
    }
    double ns = (double)sum->makespan / FENNEL_NS;
    double flight = (double)sum->flight_sum / FENNEL_NS;
    g_string_append_printf(out, "%u,%s,", p->n_tasks, fennel_format_ns(sum->makespan, a));
    g_string_append_printf(out, "%s,%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT,
                           fennel_format_ns(hi - lo, a), sum->messages, sum->bytes, events);
    /* The same figures, formatted the same way, as `fennel run --json`. */
    g_string_append_printf(out, ",%.9g,%.9g,", sum->makespan > 0 ? (double)sum->bytes / ns : 0.0,
                           sum->flight_sum > 0 ? (double)sum->bytes / flight : 0.0);
}

uint64_t fennel_sweep_point_weight(const FennelSweep *s, uint64_t point)
{
    FennelSweepPoint pt;
    fennel__sweep_decode(s, point, &pt);
    if (s->programs)
        return MAX(s->program_bytes[pt.gen] / 32, 1);
    const FennelGenerator *g = s->generators[pt.gen];
    FennelGenOptions o;
    set_options(s, &pt, &o);
    uint64_t tasks = g->min_tasks ? g->min_tasks(&o) : 0;
    if (tasks == 0) {
        uint64_t p = MAX(o.ranks, 1), stages = 1;
        while (((uint64_t)1 << (stages - 1)) < p)
            stages++;
        uint64_t factors[] = {p, stages, g->options & FENNEL_GEN_ROUNDS ? o.rounds : 1,
                              g->options & FENNEL_GEN_WIDTH ? o.width : 1,
                              g->options & FENNEL_GEN_PARTITIONS ? o.partitions : 1};
        tasks = 1;
        for (size_t i = 0; i < G_N_ELEMENTS(factors); i++) {
            if (__builtin_mul_overflow(tasks, MAX(factors[i], 1), &tasks))
                tasks = UINT64_MAX;
        }
    }
    return MAX(tasks, 1);
}

void fennel_sweep_point(const FennelSweep *s, uint64_t point, GString *out)
{
    FennelSweepPoint pt;
    fennel__sweep_decode(s, point, &pt);
    Built b = {0};
    if (s->programs)
        b.program = fennel__sweep_read_program(s, &pt, &b.error);
    else
        build(s, &pt, &b);
    const FennelModel *model = &s->models[pt.model];
    FennelProgram *programs[2] = {b.program, NULL};
    for (uint32_t k = 0; k < s->repeat; k++) {
        fennel_sweep_row_prefix(s, point * s->repeat + k, out);
        if (s->rm) {
            fennel__csv_field(out, b.used ? b.used : "");
            g_string_append_c(out, ',');
        }
        if (s->analytic) {
            char a[FENNEL_TIME_BUF];
            if (isfinite(b.analytic))
                g_string_append(out, fennel_format_ns((FennelTime)llround(b.analytic), a));
            g_string_append_c(out, ',');
        }
        if (s->library_columns) {
            g_string_append_printf(out, "%s,%s,", b.picked_generator ? b.picked_generator : "",
                                   b.picked_algorithm ? b.picked_algorithm : "");
            fennel__csv_field(out, b.picked_choice ? b.picked_choice : "");
            g_string_append_c(out, ',');
        }
        GError *error = NULL;
        if (b.program) {
            FennelSummary sum;
            uint64_t events = 0;
            if (fennel_simulate(programs, model, s->seed + k, &sum, NULL, &events, &error))
                results(out, b.program, &sum, events);
            fennel_summary_clear(&sum);
        }
        const GError *why = b.error ? b.error : error;
        if (why) {
            for (int i = 0; i < N_RESULTS; i++)
                g_string_append_c(out, ',');
            fennel__csv_field(out, why->message);
        }
        g_string_append_c(out, '\n');
        g_clear_error(&error);
    }
    if (b.program)
        fennel_program_free(b.program);
    g_free(b.used);
    g_free(b.picked_choice);
    g_clear_error(&b.error);
}
