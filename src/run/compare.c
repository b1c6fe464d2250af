/* fennel compare's simulations (compare.h). */
#include "compare.h"

#include "errors.h"
#include "options.h"
#include "simulate.h"

#include <math.h>
#include <string.h>

const char *fennel_compare_generator(const char *collective)
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
 * allgather (n blocks), fennel's allgather generators take one rank's block. */
static int64_t generator_size(const FennelMeasureTable *t, const char *collective, int64_t bytes)
{
    if (t->nccl && collective && strcmp(collective, "allgather") == 0 && t->ranks)
        return bytes / t->ranks;
    return bytes;
}

static double simulate_ns(const char *generator, const char *schedule, uint32_t ranks,
                          int64_t bytes, const FennelModel *model, GError **error)
{
    const FennelGenerator *g = fennel_generator_find(generator);
    if (g == NULL) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT, "unknown generator '%s'", generator);
        return NAN;
    }
    FennelGenTextOptions text = {0};
    char r[24], s[24];
    g_snprintf(r, sizeof r, "%u", ranks);
    g_snprintf(s, sizeof s, "%" G_GINT64_FORMAT, bytes);
    if (g->options & FENNEL_GEN_RANKS)
        text.ranks = r;
    if (g->options & FENNEL_GEN_SIZE)
        text.size = s;
    text.schedule = (char *)schedule;
    FennelProgram *p = fennel_gen_text_generate_for(generator, &text, 0, model, NULL, error);
    if (p == NULL)
        return NAN;
    FennelProgram *programs[] = {p, NULL};
    FennelSummary sum;
    uint64_t events;
    gboolean ok = fennel_simulate(programs, model, 0, &sum, NULL, &events, error);
    double ns = ok ? (double)sum.makespan / 1000 : NAN;
    fennel_summary_clear(&sum);
    fennel_program_free(p);
    return ns;
}

gboolean fennel_compare(GPtrArray *tables, const FennelModel *model, const FennelCompareOptions *o,
                        FennelComparison *out, GError **error)
{
    out->points = g_array_new(FALSE, TRUE, sizeof(FennelComparePoint));
    out->skipped = g_string_new(NULL);
    double sum = 0, worst = 0;
    for (guint i = 0; i < tables->len; i++) {
        const FennelMeasureTable *t = g_ptr_array_index(tables, i);
        if (t->kind != FENNEL_MEASURE_COLLECTIVE)
            continue;
        const char *generator = o->generator   ? o->generator
                                : t->generator ? t->generator
                                               : fennel_compare_generator(t->collective);
        uint32_t ranks = t->ranks ? t->ranks : o->ranks;
        if (generator == NULL && t->collective == NULL) {
            fennel_error_at(error, t->file, t->line, 1,
                            "the output does not name its collective (give --generator NAME)");
            return FALSE;
        }
        if (generator == NULL) {
            /* A collective fennel has no generator for (alltoall, allgatherv, ...) is left
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
            return FALSE;
        }
        for (guint k = 0; k < t->samples->len; k++) {
            const FennelSample *s = &g_array_index(t->samples, FennelSample, k);
            FennelComparePoint p = {
                .collective = g_strdup(t->collective),
                .generator = g_strdup(generator),
                .schedule = g_strdup(t->schedule),
                .ranks = ranks,
                .bytes = s->bytes,
                .gen_bytes = generator_size(t, t->collective, s->bytes),
                .measured_ns =
                    o->statistic == FENNEL_STAT_MIN && !isnan(s->min_ns) ? s->min_ns : s->ns,
                .busbw_factor = t->nccl ? busbw_factor(t->collective, ranks) : 0,
            };
            g_array_append_val(out->points, p);
            FennelComparePoint *q =
                &g_array_index(out->points, FennelComparePoint, out->points->len - 1);
            GError *why = NULL;
            q->model_ns = simulate_ns(generator, t->schedule, ranks, q->gen_bytes, model, &why);
            if (why) {
                char *valid = g_utf8_make_valid(why->message, -1);
                fennel_error_at(error, t->file, s->line, 1, "%s", valid);
                g_free(valid);
                g_error_free(why);
                return FALSE;
            }
            q->relative = q->model_ns > 0 ? (q->measured_ns - q->model_ns) / q->model_ns : NAN;
            sum += q->relative;
            if (fabs(q->relative) > fabs(worst) || isnan(q->relative))
                worst = q->relative;
        }
    }
    if (out->points->len == 0) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                    "no collective times to compare (OSU or IMB collective tests, nccl-tests, or "
                    "a CSV of generator,ranks,size_bytes,schedule,time_ns)%s%s%s",
                    out->skipped->len ? "; no generator performs " : "", out->skipped->str,
                    out->skipped->len ? " (give --generator NAME)" : "");
        return FALSE;
    }
    out->mean = sum / out->points->len;
    out->worst = worst;
    return TRUE;
}

void fennel_comparison_clear(FennelComparison *c)
{
    for (guint i = 0; c->points && i < c->points->len; i++) {
        FennelComparePoint *p = &g_array_index(c->points, FennelComparePoint, i);
        g_free(p->collective);
        g_free(p->generator);
        g_free(p->schedule);
    }
    if (c->points)
        g_array_free(c->points, TRUE);
    c->points = NULL;
    if (c->skipped)
        g_string_free(c->skipped, TRUE);
    c->skipped = NULL;
}
