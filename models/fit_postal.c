/* The postal fit (docs/CALIBRATION.md): one-way times t(s) = alpha + s beta, in K pieces
 * with breakpoints chosen by dynamic programming, K chosen by the Bayesian information
 * criterion unless given. Residuals are weighted by 1/t^2, so each size counts by its
 * relative error: latencies of a few microseconds matter as much as transfers of
 * milliseconds. */
#include "errors.h"
#include "fit_private.h"

#include <math.h>
#include <string.h>

/* Above this many sizes only one segment is fitted (the cost table is n^2). */
#define MAX_SEGMENTED_SIZES 2000
#define MAX_AUTO_SEGMENTS   4

FennelFitSegment *fennel__fit_segments(const GArray *points, int k, guint *count)
{
    guint n = points->len;
    double *x = g_new(double, n), *y = g_new(double, n), *w = g_new(double, n);
    for (guint i = 0; i < n; i++) {
        const FennelFitPoint *p = &g_array_index(points, FennelFitPoint, i);
        x[i] = (double)p->bytes;
        y[i] = p->measured_ns;
        w[i] = p->measured_ns > 0 ? 1 / (p->measured_ns * p->measured_ns) : 1;
    }
    /* A segment needs two points; a chosen one three, since two always fit exactly. */
    guint min_points = k > 0 ? 2 : 3;
    int kmax = k > 0 ? k : MAX_AUTO_SEGMENTS;
    if (n > MAX_SEGMENTED_SIZES || n < 2 * min_points)
        kmax = 1;
    kmax = MIN(kmax, (int)(n / min_points));
    kmax = MAX(kmax, 1);
    /* cost[i * n + j]: the weighted SSE of one line through points i..j (j > i). */
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
                long double cxx = sxx - sx * sx / sw, cxy = sxy - sx * sy / sw,
                            cyy = syy - sy * sy / sw;
                double sse = (double)(cxx > 0 ? cyy - cxy * cxy / cxx : cyy);
                cost[(gsize)i * n + j] = sse > 0 ? sse : 0;
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
            fennel__fit_line(x + first, y + first, w + first, (size_t)(last - first + 1));
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

void fennel__fit_comments(const FennelFit *f, GString *yaml, const char *sources,
                          const FennelFitOptions *o)
{
    char a[FENNEL_TIME_BUF], b[FENNEL_TIME_BUF];
    g_string_append_printf(yaml, "# Fitted by fennel fit: %s model, statistic %s%s.\n", f->network,
                           fennel_statistic_name(o->statistic),
                           o->clamp ? ", negative parameters clamped to 0" : "");
    g_string_append_printf(yaml, "# Data: %s.\n", sources);
    if (isnan(f->r2))
        return; /* parameters taken as printed (Netgauge): nothing was fitted */
    g_string_append_printf(yaml,
                           "# R^2 %.6f, worst relative error %.4f %% at %" G_GINT64_FORMAT "B",
                           f->r2, 100 * f->worst_relative, f->worst_bytes);
    if (f->worst_targets)
        g_string_append_printf(yaml, " and %u targets", f->worst_targets);
    g_string_append(yaml, ".\n# Residuals: size_bytes");
    gboolean targets = f->points->len && g_array_index(f->points, FennelFitPoint, 0).targets;
    g_string_append(yaml, targets ? " targets" : "");
    g_string_append(yaml, " measured_ns fitted_ns relative\n");
    for (guint i = 0; i < f->points->len; i++) {
        const FennelFitPoint *p = &g_array_index(f->points, FennelFitPoint, i);
        g_string_append_printf(yaml, "#   %" G_GINT64_FORMAT, p->bytes);
        if (targets)
            g_string_append_printf(yaml, " %u", p->targets);
        g_string_append_printf(
            yaml, " %s %s %+.4f\n", fennel_format_ns(fennel__fit_ps(p->measured_ns), a),
            fennel_format_ns(fennel__fit_ps(p->fitted_ns), b),
            p->fitted_ns != 0 ? (p->measured_ns - p->fitted_ns) / p->fitted_ns : 0);
    }
}

/* A negative value: 0 with --clamp (noted), else an error. */
gboolean fennel__fit_physical(double *value, const char *what, const FennelFitOptions *o,
                              GString *notes, GError **error)
{
    if (*value >= 0)
        return TRUE;
    if (!o->clamp) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                    "non-physical fit: %s = %g < 0 (--clamp writes 0 instead)", what, *value);
        return FALSE;
    }
    g_string_append_printf(notes, "non-physical: %s = %g < 0, clamped to 0\n", what, *value);
    *value = 0;
    return TRUE;
}

gboolean fennel__fit_postal(FennelFit *f, GPtrArray *tables, const FennelFitOptions *o,
                            GError **error)
{
    GString *sources = g_string_new(NULL), *notes = g_string_new(NULL);
    f->points = fennel__fit_points(tables, FENNEL_MEASURE_ONE_WAY, o->statistic, sources);
    guint n = f->points->len;
    if (n < 2) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                    "postal needs one-way times (ping-pong: osu_latency, IMB PingPong, a CSV of "
                    "size_bytes,time_ns) at two sizes or more; the input has %u",
                    n);
        g_string_free(sources, TRUE);
        g_string_free(notes, TRUE);
        return FALSE;
    }
    guint k;
    FennelFitSegment *seg = fennel__fit_segments(f->points, o->segments, &k);
    gboolean ok = TRUE;
    double *alpha = g_new(double, k), *beta = g_new(double, k);
    for (guint i = 0; ok && i < k; i++) {
        char *what_a =
            g_strdup_printf("alpha (from %" G_GINT64_FORMAT "B)",
                            g_array_index(f->points, FennelFitPoint, seg[i].first).bytes);
        char *what_b =
            g_strdup_printf("beta (from %" G_GINT64_FORMAT "B)",
                            g_array_index(f->points, FennelFitPoint, seg[i].first).bytes);
        alpha[i] = fennel__fit_ps(seg[i].line.a) / 1e3;
        beta[i] = fennel__fit_as_per_byte(seg[i].line.b) / 1e9;
        ok = fennel__fit_physical(&alpha[i], what_a, o, notes, error) &&
             fennel__fit_physical(&beta[i], what_b, o, notes, error);
        g_free(what_a);
        g_free(what_b);
    }
    if (ok) {
        for (guint i = 0; i < k; i++) {
            for (guint j = seg[i].first; j <= seg[i].last; j++) {
                FennelFitPoint *p = &g_array_index(f->points, FennelFitPoint, j);
                p->fitted_ns = alpha[i] + (double)p->bytes * beta[i];
            }
        }
        fennel__fit_quality(f);
        char a[FENNEL_TIME_BUF], b[FENNEL_TIME_BUF];
        GString *yaml = g_string_new(NULL);
        fennel__fit_comments(f, yaml, sources->str, o);
        g_string_append_printf(f->report, "postal fit of %u sizes (statistic %s), %u segment%s%s\n",
                               n, fennel_statistic_name(o->statistic), k, k > 1 ? "s" : "",
                               o->segments ? "" : " (chosen by BIC)");
        g_string_append_printf(
            f->json, "{\"network\":\"postal\",\"statistic\":\"%s\",\"sizes\":%u,\"segments\":[",
            fennel_statistic_name(o->statistic), n);
        g_string_append(yaml, "fennel: 1\nnetwork:\n  model: postal\n");
        if (k > 1)
            g_string_append(yaml, "  ranges:\n");
        for (guint i = 0; i < k; i++) {
            int64_t lo = i == 0 ? 0 : g_array_index(f->points, FennelFitPoint, seg[i].first).bytes;
            int64_t hi =
                i + 1 < k ? g_array_index(f->points, FennelFitPoint, seg[i + 1].first).bytes : -1;
            fennel_format_ns(fennel__fit_ps(alpha[i]), a);
            fennel_format_rate(fennel__fit_as_per_byte(beta[i]), b);
            if (k == 1)
                g_string_append_printf(yaml, "  alpha: %sns\n  beta: %sns/B\n", a, b);
            else if (hi >= 0)
                g_string_append_printf(yaml,
                                       "    - {from: %" G_GINT64_FORMAT "B, to: %" G_GINT64_FORMAT
                                       "B, alpha: %sns, beta: %sns/B}\n",
                                       lo, hi, a, b);
            else
                g_string_append_printf(
                    yaml, "    - {from: %" G_GINT64_FORMAT "B, alpha: %sns, beta: %sns/B}\n", lo, a,
                    b);
            g_string_append_printf(
                f->report,
                "  sizes %" G_GINT64_FORMAT "B..%" G_GINT64_FORMAT "B: alpha %s ns, beta %s ns/B\n",
                g_array_index(f->points, FennelFitPoint, seg[i].first).bytes,
                g_array_index(f->points, FennelFitPoint, seg[i].last).bytes, a, b);
            char to[32];
            if (hi >= 0)
                g_snprintf(to, sizeof to, "%" G_GINT64_FORMAT, hi);
            else
                g_strlcpy(to, "null", sizeof to);
            g_string_append_printf(f->json,
                                   "%s{\"from_bytes\":%" G_GINT64_FORMAT ",\"to_bytes\":%s,"
                                   "\"alpha_ns\":%s,\"beta_ns_per_byte\":%s}",
                                   i ? "," : "", lo, to, a, b);
            if (hi >= 0) {
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
        g_string_append_printf(
            f->json,
            "],\"r2\":%.9g,\"worst_relative_error\":%.9g,\"worst_bytes\":%" G_GINT64_FORMAT "}",
            f->r2, f->worst_relative, f->worst_bytes);
        g_string_append_printf(f->report,
                               "R^2 %.6f, worst relative error %.2f %% at %" G_GINT64_FORMAT "B\n",
                               f->r2, 100 * f->worst_relative, f->worst_bytes);
        g_string_append(f->report, notes->str);
        f->yaml = g_string_free(yaml, FALSE);
    }
    g_free(alpha);
    g_free(beta);
    g_free(seg);
    g_string_free(sources, TRUE);
    g_string_free(notes, TRUE);
    return ok;
}
