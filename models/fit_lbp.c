/* The lbp fit (docs/CALIBRATION.md, after Rüfenacht's §4.3): for each size s, the time of b
 * back-to-back puts T(b) = alpha_p + s beta + b alpha_r (Eq. 4.6, fennel's lbp makespan of a
 * multicast) is fitted by least squares over b; beta is then the slope of the intercepts
 * across sizes, and alpha_p(s) the intercept less s beta. Each size's line is the non-negative
 * least squares one: where the unconstrained line has a negative intercept or slope (the size
 * is non-physical), that parameter is held at 0 and the other refitted, and the report gives
 * both lines; --leave-out-nonphysical leaves such sizes out instead (the thesis' Table 4.1).
 * alpha_p and alpha_r become tables over the size unless they are equal at every size. */
#include "errors.h"
#include "fit_private.h"

#include <math.h>
#include <string.h>

typedef struct {
    int64_t bytes;
    double intercept, alpha_r, r2;
    double free_intercept, free_alpha_r; /* the unconstrained line */
    gboolean physical;                   /* the unconstrained line is non-negative */
    gboolean used;                       /* in the model (not left out) */
    gboolean intercept_held, alpha_r_held;
    guint first, last; /* its points */
} SizeFit;

static void append_table(GString *yaml, const char *name, const SizeFit *fits, guint n,
                         const double *values)
{
    char buf[FENNEL_TIME_BUF];
    int64_t first = -1;
    gboolean same = TRUE;
    guint used = 0;
    for (guint i = 0; i < n; i++) {
        if (!fits[i].used)
            continue;
        int64_t ps = fennel__fit_ps(values[i]);
        same &= first < 0 || ps == first;
        if (first < 0)
            first = ps;
        used++;
    }
    if (same || used == 1) {
        g_string_append_printf(yaml, "  %s: %sns\n", name, fennel_format_ns(first, buf));
        return;
    }
    g_string_append_printf(yaml, "  %s: {", name);
    guint k = 0;
    for (guint i = 0; i < n; i++) {
        if (fits[i].used)
            g_string_append_printf(yaml, "%s%" G_GINT64_FORMAT "B: %sns", k++ ? ", " : "",
                                   fits[i].bytes, fennel_format_ns(fennel__fit_ps(values[i]), buf));
    }
    g_string_append(yaml, "}\n");
}

gboolean fennel__fit_lbp(FennelFit *f, GPtrArray *tables, const FennelFitOptions *o, GError **error)
{
    GString *sources = g_string_new(NULL), *notes = g_string_new(NULL);
    f->points = fennel__fit_points(tables, FENNEL_MEASURE_MULTICAST, o->statistic, sources);
    GArray *fits = g_array_new(FALSE, FALSE, sizeof(SizeFit));
    gboolean ok = TRUE;
    guint n = f->points->len;
    double *x = g_new(double, MAX(n, 1)), *y = g_new(double, MAX(n, 1));
    for (guint i = 0; ok && i < n;) {
        const FennelFitPoint *p0 = &g_array_index(f->points, FennelFitPoint, i);
        guint j = i, m = 0;
        for (; j < n && g_array_index(f->points, FennelFitPoint, j).bytes == p0->bytes; j++) {
            x[m] = g_array_index(f->points, FennelFitPoint, j).targets;
            y[m++] = g_array_index(f->points, FennelFitPoint, j).measured_ns;
        }
        if (m < 2) {
            g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                        "lbp: size %" G_GINT64_FORMAT
                        "B has one target count; Eq. 4.6 needs at least two (b = 1..16)",
                        p0->bytes);
            ok = FALSE;
            break;
        }
        FennelFitLine l = fennel__fit_line(x, y, NULL, m);
        double mean = 0, ss = 0;
        for (guint k = 0; k < m; k++)
            mean += y[k] / m;
        for (guint k = 0; k < m; k++)
            ss += (y[k] - mean) * (y[k] - mean);
        SizeFit s = {.bytes = p0->bytes,
                     .intercept = l.a,
                     .alpha_r = l.b,
                     .free_intercept = l.a,
                     .free_alpha_r = l.b,
                     .r2 = ss > 0 ? 1 - l.sse / ss : 1,
                     .physical = TRUE,
                     .used = TRUE,
                     .first = i,
                     .last = j - 1};
        if (fennel__fit_ps(l.a) < 0 || fennel__fit_ps(l.b) < 0) {
            /* Non-negative least squares: the negative parameter held at 0, the other
             * refitted (fennel__fit_line_nonneg); or the size left out when asked. */
            FennelFitLine c = fennel__fit_line_nonneg(x, y, NULL, m);
            s.physical = FALSE;
            g_string_append_printf(notes,
                                   "non-physical at %" G_GINT64_FORMAT
                                   "B: the unconstrained line has alpha_p + s beta = %.6g ns, "
                                   "alpha_r = %.6g ns; ",
                                   s.bytes, l.a, l.b);
            if (o->leave_out_nonphysical) {
                s.used = FALSE;
                g_string_append(notes, "left out of the model (--leave-out-nonphysical)\n");
            } else {
                s.intercept = c.a;
                s.alpha_r = c.b;
                s.intercept_held = c.a_held;
                s.alpha_r_held = c.b_held;
                s.r2 = ss > 0 ? 1 - c.sse / ss : 1;
                if (c.a_held && c.b_held)
                    g_string_append(notes, "both held at 0 (every time is 0)\n");
                else
                    g_string_append_printf(notes,
                                           "%s held at 0, %s refitted: alpha_p + s beta = %.6g "
                                           "ns, alpha_r = %.6g ns\n",
                                           c.a_held ? "alpha_p + s beta" : "alpha_r",
                                           c.a_held ? "alpha_r" : "alpha_p + s beta", c.a, c.b);
            }
        }
        for (guint k = i; k < j; k++) {
            FennelFitPoint *p = &g_array_index(f->points, FennelFitPoint, k);
            p->fitted_ns = s.intercept + s.alpha_r * p->targets;
        }
        g_array_append_val(fits, s);
        i = j;
    }
    SizeFit *sf = (SizeFit *)(void *)fits->data;
    guint nf = fits->len, used = 0;
    for (guint i = 0; i < nf; i++)
        used += sf[i].used;
    if (ok && n == 0) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                    "lbp needs multicast times (a CSV of size_bytes,targets,time_ns)");
        ok = FALSE;
    } else if (ok && used == 0) {
        const SizeFit *s = &sf[0];
        g_set_error(
            error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
            "non-physical fit: alpha_p + s beta = %.6g ns, alpha_r = %.6g ns at %" G_GINT64_FORMAT
            "B%s; every size is left out (--leave-out-nonphysical; without it the negative "
            "parameter is held at 0)",
            s->intercept, s->alpha_r, s->bytes, nf > 1 ? " and every other size" : "");
        ok = FALSE;
    }
    if (ok) {
        /* beta: the slope of the intercepts over the sizes in the model, kept within [0, the
         * least intercept / size] so that every alpha_p stays >= 0 (the least squares slope
         * under that constraint, as the profile of the intercept's line is convex in beta). */
        double beta = 0, cap = INFINITY;
        guint k = 0;
        for (guint i = 0; i < nf; i++) {
            if (!sf[i].used)
                continue;
            x[k] = (double)sf[i].bytes;
            y[k++] = sf[i].intercept;
            if (sf[i].bytes > 0)
                cap = MIN(cap, sf[i].intercept / (double)sf[i].bytes);
        }
        if (k >= 2) {
            double fitted = fennel__fit_line(x, y, NULL, k).b;
            beta = CLAMP(fitted, 0, cap);
            if (beta != fitted)
                g_string_append_printf(notes,
                                       "beta: the intercepts' slope %.6g ns/B is outside [0, %.6g] "
                                       "(alpha_p would be negative); %.6g written, alpha_p takes "
                                       "the rest per size\n",
                                       fitted, cap, beta);
        } else {
            g_string_append(notes, "beta: one size cannot separate alpha_p from s beta; 0 "
                                   "written, alpha_p holds both\n");
        }
        beta = fennel__fit_as_per_byte(beta) / 1e9;
        double *alpha_p = g_new(double, nf), *alpha_r = g_new(double, nf);
        for (guint i = 0; i < nf; i++) {
            alpha_p[i] = MAX(sf[i].intercept - (double)sf[i].bytes * beta, 0);
            alpha_r[i] = sf[i].alpha_r;
        }
        f->parameters = 2 * nf + (k >= 2);
        fennel__fit_quality(f);
        GString *yaml = g_string_new(NULL);
        fennel__fit_comments(f, yaml, sources->str, o);
        char buf[FENNEL_TIME_BUF];
        g_string_append_printf(f->report,
                               "lbp fit of %u size%s (statistic %s), T(b) = alpha_p + s beta + b "
                               "alpha_r per size (Eq. 4.6)\n"
                               "%12s %16s %14s %8s %10s\n",
                               nf, nf == 1 ? "" : "s", fennel_statistic_name(o->statistic),
                               "size_bytes", "alpha_p+s*beta", "alpha_r", "ratio", "R^2");
        g_string_append_printf(f->json, "{\"network\":\"lbp\",\"statistic\":\"%s\",\"sizes\":[",
                               fennel_statistic_name(o->statistic));
        g_string_append(yaml, "# Per size: size_bytes alpha_p+s*beta_ns alpha_r_ns ratio\n");
        for (guint i = 0; i < nf; i++) {
            double ratio = sf[i].alpha_r != 0 ? sf[i].intercept / sf[i].alpha_r : INFINITY;
            const char *mark = sf[i].physical       ? ""
                               : !sf[i].used        ? " non-physical, left out"
                               : sf[i].alpha_r_held ? " non-physical, alpha_r held at 0"
                                                    : " non-physical, alpha_p + s beta held at 0";
            g_string_append_printf(f->report,
                                   "%12" G_GINT64_FORMAT " %13.3f ns %11.3f ns %8.3g %10.6f%s%s\n",
                                   sf[i].bytes, sf[i].intercept, sf[i].alpha_r, ratio, sf[i].r2,
                                   *mark ? " " : "", mark);
            g_string_append_printf(yaml, "#   %" G_GINT64_FORMAT " %.3f %.3f %.3g%s\n", sf[i].bytes,
                                   sf[i].intercept, sf[i].alpha_r, ratio, mark);
            g_string_append_printf(
                f->json,
                "%s{\"bytes\":%" G_GINT64_FORMAT ",\"intercept_ns\":%.9g,"
                "\"alpha_r_ns\":%.9g,\"r2\":%.9g,\"physical\":%s,\"in_model\":%s,"
                "\"intercept_held_at_zero\":%s,\"alpha_r_held_at_zero\":%s,"
                "\"unconstrained_intercept_ns\":%.9g,\"unconstrained_alpha_r_ns\":%.9g}",
                i ? "," : "", sf[i].bytes, sf[i].intercept, sf[i].alpha_r, sf[i].r2,
                sf[i].physical ? "true" : "false", sf[i].used ? "true" : "false",
                sf[i].intercept_held ? "true" : "false", sf[i].alpha_r_held ? "true" : "false",
                sf[i].free_intercept, sf[i].free_alpha_r);
            g_ptr_array_add(f->lines, g_strdup_printf("%" G_GINT64_FORMAT " B", sf[i].bytes));
        }
        g_string_append(yaml, "fennel: 1\nnetwork:\n  model: lbp\n");
        append_table(yaml, "alpha_p", sf, nf, alpha_p);
        append_table(yaml, "alpha_r", sf, nf, alpha_r);
        g_string_append_printf(yaml, "  beta: %sns/B\n",
                               fennel_format_rate(fennel__fit_as_per_byte(beta), buf));
        g_string_append_printf(f->report, "beta %s ns/B\n",
                               fennel_format_rate(fennel__fit_as_per_byte(beta), buf));
        g_string_append_printf(f->json, "],\"beta_ns_per_byte\":%s}", buf);
        fennel__fit_report_quality(f, f->report);
        g_string_append(f->report, notes->str);
        f->yaml = g_string_free(yaml, FALSE);
        g_free(alpha_p);
        g_free(alpha_r);
    }
    g_free(x);
    g_free(y);
    g_array_free(fits, TRUE);
    g_string_free(sources, TRUE);
    g_string_free(notes, TRUE);
    return ok;
}
