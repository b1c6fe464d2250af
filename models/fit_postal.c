/* The postal fit (docs/CALIBRATION.md): one-way times t(s) = alpha + s beta, in K pieces
 * with breakpoints chosen by dynamic programming, K chosen by the Bayesian information
 * criterion unless given. Residuals are weighted by 1/t^2, so each size counts by its
 * relative error: latencies of a few microseconds matter as much as transfers of
 * milliseconds. */
#include "errors.h"
#include "fit_private.h"
#include "json.h"

#include <math.h>
#include <string.h>

/* Above this many sizes only one segment is fitted (the cost table is n^2). */
#define MAX_SEGMENTED_SIZES 2000
#define MAX_AUTO_SEGMENTS   4

/* The weighted SSE of the best non-negative line through the points whose sums these are
 * (fennel__fit_line_nonneg, from sums: the cost table needs it in O(1)). */
static double nonneg_cost(long double sw, long double sx, long double sy, long double sxx,
                          long double sxy, long double syy)
{
    long double cxx = sxx - sx * sx / sw, cxy = sxy - sx * sy / sw, cyy = syy - sy * sy / sw;
    long double b = cxx > 0 ? cxy / cxx : 0, a = (sy - b * sx) / sw;
    long double sse;
    if (a >= 0 && b >= 0) {
        sse = cxx > 0 ? cyy - cxy * cxy / cxx : cyy;
    } else {
        long double bo = sxx > 0 && sxy > 0 ? sxy / sxx : 0;
        long double ac = sy > 0 ? sy / sw : 0;
        long double sse_b = syy - 2 * bo * sxy + bo * bo * sxx;
        long double sse_a = syy - 2 * ac * sy + ac * ac * sw;
        sse = MIN(sse_a, sse_b);
    }
    return sse > 0 ? (double)sse : 0;
}

FennelFitSegment *fennel__fit_segments(const GArray *points, int k, guint min_points,
                                       gboolean less_one, guint *count)
{
    guint n = points->len;
    double *x = g_new(double, n), *y = g_new(double, n), *w = g_new(double, n);
    for (guint i = 0; i < n; i++) {
        const FennelFitPoint *p = &g_array_index(points, FennelFitPoint, i);
        x[i] = (double)(less_one ? p->bytes - 1 : p->bytes);
        y[i] = p->measured_ns;
        w[i] = p->measured_ns > 0 ? 1 / (p->measured_ns * p->measured_ns) : 1;
    }
    min_points = MAX(min_points, 2);
    int kmax = k > 0 ? k : MAX_AUTO_SEGMENTS;
    if (n > MAX_SEGMENTED_SIZES || n < 2 * min_points)
        kmax = 1;
    kmax = MIN(kmax, (int)(n / min_points));
    kmax = MAX(kmax, 1);
    /* cost[i * n + j]: the weighted SSE of one non-negative line through points i..j. */
    double *cost = g_new0(double, kmax > 1 ? (gsize)n * n : 1);
    if (kmax > 1) {
        for (guint i = 0; i < n; i++) {
            long double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0, syy = 0;
            for (guint j = i; j < n; j++) {
                sw += w[j];
                sx += w[j] * x[j];
                sy += w[j] * y[j];
                sxx += w[j] * x[j] * x[j];
                sxy += w[j] * x[j] * y[j];
                syy += w[j] * y[j] * y[j];
                cost[(gsize)i * n + j] = nonneg_cost(sw, sx, sy, sxx, sxy, syy);
            }
        }
    }
    /* best[(k-1) n + j]: the least cost of k segments over points 0..j; from[...]: where
     * the last of them starts. */
    double *best = g_new(double, (gsize)kmax *n);
    guint *from = g_new0(guint, (gsize)kmax * n);
    for (guint j = 0; j < n; j++)
        best[j] = j + 1 >= min_points && kmax > 1 ? cost[j] : INFINITY;
    for (int kk = 2; kk <= kmax; kk++) {
        for (guint j = 0; j < n; j++) {
            double b = INFINITY;
            guint arg = 0;
            for (guint i = min_points * (guint)(kk - 1); i + min_points <= j + 1; i++) {
                double c = best[(gsize)(kk - 2) * n + i - 1] + cost[(gsize)i * n + j];
                if (c < b) {
                    b = c;
                    arg = i;
                }
            }
            best[(gsize)(kk - 1) * n + j] = b;
            from[(gsize)(kk - 1) * n + j] = arg;
        }
    }
    int chosen = kmax > 1 ? kmax : 1;
    if (k <= 0 && kmax > 1) {
        /* BIC: n ln(SSE / n) + p ln n with p = 3K - 1 (two per line, one per break). The
         * mean squared relative error is floored at 1e-6 (0.1 % per point, the rounding of
         * a tool printing two decimals of microseconds), so that more segments are not
         * rewarded for fitting rounding. */
        double best_bic = INFINITY;
        for (int kk = 1; kk <= kmax; kk++) {
            double sse = best[(gsize)(kk - 1) * n + n - 1];
            double bic = n * log(MAX(sse / n, 1e-6)) + (3 * kk - 1) * log((double)n);
            if (bic < best_bic - 1e-9) {
                best_bic = bic;
                chosen = kk;
            }
        }
    }
    FennelFitSegment *seg = g_new0(FennelFitSegment, chosen);
    guint last = n - 1;
    for (int kk = chosen; kk >= 1; kk--) {
        guint first = kk == 1 ? 0 : from[(gsize)(kk - 1) * n + last];
        seg[kk - 1].first = first;
        seg[kk - 1].last = last;
        seg[kk - 1].line =
            fennel__fit_line_nonneg(x + first, y + first, w + first, (size_t)(last - first + 1));
        last = first - 1;
    }
    *count = (guint)chosen;
    g_free(x);
    g_free(y);
    g_free(w);
    g_free(cost);
    g_free(best);
    g_free(from);
    return seg;
}

void fennel__fit_segment_notes(const GArray *points, const FennelFitSegment *seg, guint count,
                               int asked, guint min_points, const char *a_name, const char *b_name,
                               GString *notes)
{
    if (asked > 0 && (guint)asked > count)
        g_string_append_printf(notes,
                               "--segments %d: %u sizes allow %u segment%s of %u points or more "
                               "(--min-points); %u fitted\n",
                               asked, points->len, count, count == 1 ? "" : "s", min_points, count);
    for (guint i = 0; i < count; i++) {
        const FennelFitLine *l = &seg[i].line;
        int64_t from = g_array_index(points, FennelFitPoint, seg[i].first).bytes;
        guint m = seg[i].last - seg[i].first + 1;
        if (m <= 2)
            g_string_append_printf(notes,
                                   "sizes from %" G_GINT64_FORMAT "B: %u point%s for 2 parameters, "
                                   "the line passes through %s (under-determined)\n",
                                   from, m, m == 1 ? "" : "s", m == 1 ? "it" : "both");
        if (l->a_held || l->b_held) {
            /* The unconstrained line has a negative parameter: it is held at 0 and the
             * other refitted (non-negative least squares). */
            g_string_append_printf(notes, "sizes from %" G_GINT64_FORMAT "B: ", from);
            if (l->a_held && l->b_held)
                g_string_append_printf(notes, "%s and %s held at 0", a_name, b_name);
            else
                g_string_append_printf(notes, "%s held at 0, %s refitted",
                                       l->a_held ? a_name : b_name, l->a_held ? b_name : a_name);
            g_string_append_printf(notes,
                                   " (the unconstrained line has %s = %.6g ns, %s = %.6g ns/B)\n",
                                   a_name, l->a_free, b_name, l->b_free);
        }
    }
}

void fennel__fit_comments(const FennelFit *f, GString *yaml, const char *sources,
                          const FennelFitOptions *o)
{
    char a[FENNEL_TIME_BUF], b[FENNEL_TIME_BUF];
    g_string_append_printf(yaml, "# Fitted by fennel fit: %s model, statistic %s%s.\n", f->network,
                           fennel_statistic_name(o->statistic),
                           o->leave_out_nonphysical && strcmp(f->network, "lbp") == 0
                               ? ", non-physical sizes left out"
                               : ", parameters non-negative");
    g_string_append_printf(yaml, "# Data: %s.\n", sources);
    if (isnan(f->r2))
        g_string_append_printf(yaml, "# R^2 undetermined (%u points for %u parameters)",
                               f->points->len, f->parameters);
    else
        g_string_append_printf(yaml, "# R^2 %.6f", f->r2);
    g_string_append_printf(yaml,
                           ", |fitted - measured| / measured: median %.4f %%, worst %.4f %% at "
                           "%" G_GINT64_FORMAT "B",
                           100 * f->median_relative, 100 * f->worst_relative, f->worst_bytes);
    if (f->worst_targets)
        g_string_append_printf(yaml, " and %u targets", f->worst_targets);
    g_string_append_printf(yaml, " (fitted/measured %.4f).\n# Residuals: size_bytes",
                           f->worst_ratio);
    gboolean targets = f->points->len && g_array_index(f->points, FennelFitPoint, 0).targets;
    g_string_append(yaml, targets ? " targets" : "");
    g_string_append(yaml, " measured_ns fitted_ns fitted/measured\n");
    for (guint i = 0; i < f->points->len; i++) {
        const FennelFitPoint *p = &g_array_index(f->points, FennelFitPoint, i);
        g_string_append_printf(yaml, "#   %" G_GINT64_FORMAT, p->bytes);
        if (targets)
            g_string_append_printf(yaml, " %u", p->targets);
        g_string_append_printf(yaml, " %s %s", fennel_format_ns(fennel__fit_ps(p->measured_ns), a),
                               fennel_format_ns(fennel__fit_ps(p->fitted_ns), b));
        if (p->measured_ns > 0)
            g_string_append_printf(yaml, " %.4f\n", p->fitted_ns / p->measured_ns);
        else
            g_string_append(yaml, " -\n");
    }
}

/* The notes as comment lines of the model file. */
static void append_notes(GString *yaml, const char *notes)
{
    char **lines = g_strsplit(notes, "\n", -1);
    for (int i = 0; lines[i] && *lines[i]; i++)
        g_string_append_printf(yaml, "# Note: %s\n", lines[i]);
    g_strfreev(lines);
}

static guint min_points_of(const FennelFitOptions *o)
{
    return o->min_points > 0 ? (guint)o->min_points : 4;
}

/* One-way times at one size only (a latency test of one message size: LLNL's mpi_latency,
 * the latency half of nxnlatbw): alpha is that time, less s beta when a bandwidth test gives
 * beta (its slope, or its time per byte at one size: then all of the time per message is
 * taken as per-byte); without one beta is undetermined and written as 0. */
static gboolean fit_one_size(FennelFit *f, GPtrArray *tables, const FennelFitOptions *o,
                             GString *sources, GString *notes)
{
    FennelFitPoint *p = &g_array_index(f->points, FennelFitPoint, 0);
    GArray *bw = fennel__fit_points(tables, FENNEL_MEASURE_BANDWIDTH, o->statistic, sources);
    double beta = 0;
    if (bw->len >= 2) {
        double *x = g_new(double, bw->len), *y = g_new(double, bw->len);
        for (guint i = 0; i < bw->len; i++) {
            x[i] = (double)g_array_index(bw, FennelFitPoint, i).bytes;
            y[i] = g_array_index(bw, FennelFitPoint, i).measured_ns;
        }
        beta = fennel__fit_line_nonneg(x, y, NULL, bw->len).b;
        g_free(x);
        g_free(y);
        g_string_append_printf(notes, "beta: the slope of the bandwidth test's %u sizes\n",
                               bw->len);
    } else if (bw->len == 1 && g_array_index(bw, FennelFitPoint, 0).bytes > 0) {
        const FennelFitPoint *b = &g_array_index(bw, FennelFitPoint, 0);
        beta = b->measured_ns / (double)b->bytes;
        g_string_append_printf(notes,
                               "beta: the bandwidth test's time per byte at its one size "
                               "(%" G_GINT64_FORMAT "B), its per-message gap counted as "
                               "per-byte\n",
                               b->bytes);
    } else {
        g_string_append(notes, "beta: one size cannot separate alpha from s beta; 0 written, "
                               "alpha holds both (measure two sizes or more for it)\n");
    }
    beta = fennel__fit_as_per_byte(beta) / 1e9;
    double alpha = fennel__fit_ps(MAX(p->measured_ns - (double)p->bytes * beta, 0)) / 1e3;
    p->fitted_ns = alpha + (double)p->bytes * beta;
    f->parameters = bw->len ? 2 : 1;
    fennel__fit_quality(f);
    char a[FENNEL_TIME_BUF], b[FENNEL_TIME_BUF];
    fennel_format_ns(fennel__fit_ps(alpha), a);
    fennel_format_rate(fennel__fit_as_per_byte(beta), b);
    GString *yaml = g_string_new(NULL);
    fennel__fit_comments(f, yaml, sources->str, o);
    append_notes(yaml, notes->str);
    g_string_append_printf(yaml,
                           "fennel: 1\nnetwork:\n  model: postal\n  alpha: %sns\n"
                           "  beta: %sns/B\n",
                           a, b);
    g_string_append_printf(f->report,
                           "postal fit of 1 size%s (statistic %s)\n  size %" G_GINT64_FORMAT
                           "B: alpha %s ns, beta %s ns/B\n",
                           bw->len ? " and a bandwidth test" : "",
                           fennel_statistic_name(o->statistic), p->bytes, a, b);
    g_string_append_printf(f->json,
                           "{\"network\":\"postal\",\"source\":\"one-way\",\"statistic\":\"%s\","
                           "\"sizes\":1,\"latency_determined\":true,\"beta_determined\":%s,"
                           "\"segments\":[{\"from_bytes\":0,\"to_bytes\":null,\"alpha_ns\":%s,"
                           "\"beta_ns_per_byte\":%s,\"points\":1}],\"notes\":",
                           fennel_statistic_name(o->statistic), bw->len ? "true" : "false", a, b);
    fennel_json_string(f->json, notes->str);
    g_string_append_c(f->json, '}');
    g_ptr_array_add(f->lines, g_strdup_printf("alpha %s ns, beta %s ns/B", a, b));
    fennel__fit_report_quality(f, f->report);
    g_string_append(f->report, notes->str);
    f->yaml = g_string_free(yaml, FALSE);
    g_array_free(bw, TRUE);
    return TRUE;
}

gboolean fennel__fit_postal(FennelFit *f, GPtrArray *tables, const FennelFitOptions *o,
                            GError **error)
{
    GString *sources = g_string_new(NULL), *notes = g_string_new(NULL);
    f->points = fennel__fit_points(tables, FENNEL_MEASURE_ONE_WAY, o->statistic, sources);
    gboolean bandwidth = FALSE;
    if (f->points->len == 0) {
        /* Bandwidth tests alone: the per-byte cost, no latency (docs/CALIBRATION.md). */
        g_array_free(f->points, TRUE);
        f->points = fennel__fit_points(tables, FENNEL_MEASURE_BANDWIDTH, o->statistic, sources);
        bandwidth = f->points->len > 0;
    }
    guint n = f->points->len;
    if (n == 1 && !bandwidth) {
        gboolean ok = fit_one_size(f, tables, o, sources, notes);
        g_string_free(sources, TRUE);
        g_string_free(notes, TRUE);
        return ok;
    }
    if (n < 2) {
        /* Say what was read instead (a collective test, a message rate, SimGrid's
         * receive-only file), each tool once. */
        GString *read = g_string_new(NULL);
        gboolean collective = FALSE;
        for (guint i = 0; n == 0 && i < tables->len; i++) {
            collective |= ((const FennelMeasureTable *)g_ptr_array_index(tables, i))->kind ==
                          FENNEL_MEASURE_COLLECTIVE;
            const char *tool = ((const FennelMeasureTable *)g_ptr_array_index(tables, i))->tool;
            gboolean seen = FALSE;
            for (guint j = 0; j < i && !seen; j++)
                seen = strcmp(((const FennelMeasureTable *)g_ptr_array_index(tables, j))->tool,
                              tool) == 0;
            if (!seen)
                g_string_append_printf(read, "%s%s", read->len ? ", " : "", tool);
        }
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                    "postal needs one-way times (ping-pong: osu_latency, IMB PingPong, a CSV of "
                    "size_bytes,time_ns) at one size or more or a bandwidth test (osu_bw, "
                    "osu_bibw, nccl-tests sendrecv) at two sizes or more; the input has %u%s%s%s%s",
                    n, read->len ? " (it holds " : "", read->str, read->len ? ", not fitted)" : "",
                    collective ? "; collective times fit the reduction's cost under a network "
                                 "model (--model NETWORK.yaml)"
                               : "");
        g_string_free(read, TRUE);
        g_string_free(sources, TRUE);
        g_string_free(notes, TRUE);
        return FALSE;
    }
    guint k, min_points = min_points_of(o);
    FennelFitSegment *seg = fennel__fit_segments(f->points, o->segments, min_points, FALSE, &k);
    fennel__fit_segment_notes(f->points, seg, k, o->segments, min_points, "alpha", "beta", notes);
    f->parameters = 2 * k;
    double *alpha = g_new(double, k), *beta = g_new(double, k);
    for (guint i = 0; i < k; i++) {
        alpha[i] = fennel__fit_ps(seg[i].line.a) / 1e3;
        beta[i] = fennel__fit_as_per_byte(seg[i].line.b) / 1e9;
    }
    for (guint i = 0; i < k; i++) {
        for (guint j = seg[i].first; j <= seg[i].last; j++) {
            FennelFitPoint *p = &g_array_index(f->points, FennelFitPoint, j);
            p->fitted_ns = alpha[i] + (double)p->bytes * beta[i];
        }
    }
    fennel__fit_quality(f);
    char a[FENNEL_TIME_BUF], b[FENNEL_TIME_BUF];
    GString *yaml = g_string_new(NULL);
    if (bandwidth) {
        /* The model: the per-byte cost of the largest sizes' segment; no latency. */
        g_string_append_printf(
            notes,
            "latency undetermined: a bandwidth test times messages back to back, so its "
            "per-message intercept is a gap, not a latency; alpha written as 0 (fit a "
            "ping-pong, osu_latency or IMB PingPong, for it)\n"
            "beta: the per-byte cost of the largest sizes' segment (from %" G_GINT64_FORMAT "B)\n",
            g_array_index(f->points, FennelFitPoint, seg[k - 1].first).bytes);
    }
    fennel__fit_comments(f, yaml, sources->str, o);
    append_notes(yaml, notes->str);
    g_string_append_printf(f->report, "postal fit of %u sizes%s (statistic %s), %u segment%s%s\n",
                           n, bandwidth ? " of a bandwidth test" : "",
                           fennel_statistic_name(o->statistic), k, k > 1 ? "s" : "",
                           o->segments ? "" : " (chosen by BIC)");
    g_string_append_printf(f->json,
                           "{\"network\":\"postal\",\"source\":\"%s\",\"statistic\":\"%s\","
                           "\"sizes\":%u,\"latency_determined\":%s,\"segments\":[",
                           bandwidth ? "bandwidth" : "one-way", fennel_statistic_name(o->statistic),
                           n, bandwidth ? "false" : "true");
    g_string_append(yaml, "fennel: 1\nnetwork:\n  model: postal\n");
    if (bandwidth)
        g_string_append_printf(yaml, "  alpha: 0ns\n  beta: %sns/B\n",
                               fennel_format_rate(fennel__fit_as_per_byte(beta[k - 1]), b));
    else if (k > 1)
        g_string_append(yaml, "  ranges:\n");
    for (guint i = 0; i < k; i++) {
        int64_t lo = i == 0 ? 0 : g_array_index(f->points, FennelFitPoint, seg[i].first).bytes;
        int64_t hi =
            i + 1 < k ? g_array_index(f->points, FennelFitPoint, seg[i + 1].first).bytes : -1;
        fennel_format_ns(fennel__fit_ps(alpha[i]), a);
        fennel_format_rate(fennel__fit_as_per_byte(beta[i]), b);
        if (bandwidth)
            ; /* written above */
        else if (k == 1)
            g_string_append_printf(yaml, "  alpha: %sns\n  beta: %sns/B\n", a, b);
        else if (hi >= 0)
            g_string_append_printf(yaml,
                                   "    - {from: %" G_GINT64_FORMAT "B, to: %" G_GINT64_FORMAT
                                   "B, alpha: %sns, beta: %sns/B}\n",
                                   lo, hi, a, b);
        else
            g_string_append_printf(
                yaml, "    - {from: %" G_GINT64_FORMAT "B, alpha: %sns, beta: %sns/B}\n", lo, a, b);
        g_string_append_printf(f->report,
                               "  sizes %" G_GINT64_FORMAT "B..%" G_GINT64_FORMAT
                               "B: %s %s ns, beta %s ns/B\n",
                               g_array_index(f->points, FennelFitPoint, seg[i].first).bytes,
                               g_array_index(f->points, FennelFitPoint, seg[i].last).bytes,
                               bandwidth ? "per-message gap" : "alpha", a, b);
        char to[32];
        if (hi >= 0)
            g_snprintf(to, sizeof to, "%" G_GINT64_FORMAT, hi);
        else
            g_strlcpy(to, "null", sizeof to);
        g_string_append_printf(f->json,
                               "%s{\"from_bytes\":%" G_GINT64_FORMAT ",\"to_bytes\":%s,"
                               "\"%s\":%s,\"beta_ns_per_byte\":%s,\"points\":%u}",
                               i ? "," : "", lo, to, bandwidth ? "gap_ns" : "alpha_ns", a, b,
                               seg[i].last - seg[i].first + 1);
        if (hi >= 0 && !bandwidth) {
            /* The break lies between the last size of this segment and the first of the
             * next: a protocol switch (an eager limit S) sits there. */
            int64_t last = g_array_index(f->points, FennelFitPoint, seg[i].last).bytes;
            g_string_append_printf(f->report,
                                   "  break between %" G_GINT64_FORMAT "B and %" G_GINT64_FORMAT
                                   "B (S = %" G_GINT64_FORMAT "B if it is a protocol switch)\n",
                                   last, hi, last);
        }
        g_ptr_array_add(f->lines, g_strdup_printf("alpha %s ns, beta %s ns/B", a, b));
    }
    g_string_append(f->json, "],\"notes\":");
    fennel_json_string(f->json, notes->str);
    g_string_append_c(f->json, '}');
    fennel__fit_report_quality(f, f->report);
    g_string_append(f->report, notes->str);
    f->yaml = g_string_free(yaml, FALSE);
    g_free(alpha);
    g_free(beta);
    g_free(seg);
    g_string_free(sources, TRUE);
    g_string_free(notes, TRUE);
    return TRUE;
}
