/* LogP and LogGP fits (docs/CALIBRATION.md), as far as the data determines them.
 *
 * From Netgauge's LogGP table (its PRTT method): L is the median of its L column, o the mean
 * of o_s and o_r per size (a table), g its g per size (a table) and G the median of its G
 * column; rows where Netgauge printed -nan or a negative value are left out per parameter.
 *
 * From one-way (ping-pong) times alone, fennel's LogGP times a message as
 * L + 2o + (s-1)G (O = 0): the line t(s) = a + s b gives G = b and L + 2o = a + b. Ping-pong
 * cannot separate L from o, nor say anything of g: o and g are written as 0 and L holds
 * L + 2o, and the report says so. LogP has no per-byte term: L + 2o is the time of the
 * smallest size. */
#include "errors.h"
#include "fit_private.h"
#include "json.h"

#include <math.h>
#include <string.h>

static double median_of(GArray *v)
{
    return v->len ? fennel_statistic_of(FENNEL_STAT_MEDIAN, (double *)(void *)v->data, v->len)
                  : NAN;
}

/* A table of the column's finite, non-negative values per size. */
static void column_table(GString *yaml, const char *name, GPtrArray *tables, int column,
                         GString *notes)
{
    char buf[FENNEL_TIME_BUF];
    GString *t = g_string_new(NULL);
    int64_t last = -1;
    guint left_out = 0, used = 0;
    for (guint i = 0; i < tables->len; i++) {
        const FennelMeasureTable *mt = g_ptr_array_index(tables, i);
        if (mt->kind != FENNEL_MEASURE_LOGGP)
            continue;
        for (guint k = 0; k < mt->samples->len; k++) {
            const FennelSample *s = &g_array_index(mt->samples, FennelSample, k);
            const double *ng = g_array_index(mt->loggp, FennelLogGPRow, k).v;
            double v = column < 0 ? (ng[FENNEL_NG_OS] + ng[FENNEL_NG_OR]) / 2 : ng[column];
            if (!isfinite(v) || v < 0 || s->bytes <= last) {
                left_out++;
                continue;
            }
            last = s->bytes;
            g_string_append_printf(t, "%s%" G_GINT64_FORMAT "B: %sns", used++ ? ", " : "", s->bytes,
                                   fennel_format_ns(fennel__fit_ps(v), buf));
        }
    }
    if (used)
        g_string_append_printf(yaml, "  %s: {%s}\n", name, t->str);
    else
        g_string_append_printf(yaml, "  %s: 0ns\n", name);
    if (left_out)
        g_string_append_printf(notes, "%s: %u rows left out (-nan, negative, or a repeated size)\n",
                               name, left_out);
    g_string_free(t, TRUE);
}

static gboolean from_netgauge(FennelFit *f, GPtrArray *tables, const FennelFitOptions *o,
                              GString *yaml, GString *notes)
{
    GArray *l = g_array_new(FALSE, FALSE, sizeof(double));
    GArray *gbyte = g_array_new(FALSE, FALSE, sizeof(double));
    for (guint i = 0; i < tables->len; i++) {
        const FennelMeasureTable *t = g_ptr_array_index(tables, i);
        if (t->kind != FENNEL_MEASURE_LOGGP)
            continue;
        for (guint k = 0; k < t->samples->len; k++) {
            const double *ng = g_array_index(t->loggp, FennelLogGPRow, k).v;
            if (isfinite(ng[FENNEL_NG_L]) && ng[FENNEL_NG_L] >= 0)
                g_array_append_val(l, ng[FENNEL_NG_L]);
            if (isfinite(ng[FENNEL_NG_GBYTE]) && ng[FENNEL_NG_GBYTE] >= 0)
                g_array_append_val(gbyte, ng[FENNEL_NG_GBYTE]);
        }
    }
    char buf[FENNEL_TIME_BUF];
    double L = median_of(l), G = median_of(gbyte);
    g_string_append_printf(yaml, "fennel: 1\nnetwork:\n  model: %s\n  L: %sns\n", f->network,
                           fennel_format_ns(fennel__fit_ps(isnan(L) ? 0 : L), buf));
    column_table(yaml, "o", tables, -1, notes);
    column_table(yaml, "g", tables, FENNEL_NG_G, notes);
    if (strcmp(f->network, "loggp") == 0)
        g_string_append_printf(yaml, "  G: %sns/B\n",
                               fennel_format_rate(fennel__fit_as_per_byte(isnan(G) ? 0 : G), buf));
    g_string_append(notes, "O: Netgauge does not measure a per-byte CPU overhead; 0 written\n");
    (void)o;
    g_array_free(l, TRUE);
    g_array_free(gbyte, TRUE);
    return TRUE;
}

gboolean fennel__fit_loggp(FennelFit *f, GPtrArray *tables, const FennelFitOptions *o,
                           GError **error)
{
    GString *sources = g_string_new(NULL), *notes = g_string_new(NULL);
    gboolean netgauge = FALSE;
    for (guint i = 0; i < tables->len; i++)
        netgauge |= ((const FennelMeasureTable *)g_ptr_array_index(tables, i))->kind ==
                    FENNEL_MEASURE_LOGGP;
    gboolean loggp = strcmp(f->network, "loggp") == 0;
    f->points = fennel__fit_points(tables, netgauge ? FENNEL_MEASURE_LOGGP : FENNEL_MEASURE_ONE_WAY,
                                   o->statistic, sources);
    guint n = f->points->len;
    if (n < (loggp && !netgauge ? 2u : 1u)) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                    "%s needs Netgauge's LogGP table or one-way times (ping-pong) at %s",
                    f->network, loggp ? "two sizes or more" : "one size or more");
        g_string_free(sources, TRUE);
        g_string_free(notes, TRUE);
        return FALSE;
    }
    GString *body = g_string_new(NULL);
    gboolean ok = TRUE;
    if (netgauge) {
        ok = from_netgauge(f, tables, o, body, notes);
        /* The fitted one-way time is not what Netgauge's table predicts in one number;
         * residuals compare its PRTT(1,0,s)/2 with itself. */
        for (guint i = 0; i < n; i++) {
            FennelFitPoint *p = &g_array_index(f->points, FennelFitPoint, i);
            p->fitted_ns = p->measured_ns;
        }
        g_string_append(notes, "no residuals: Netgauge's parameters are taken as printed, not "
                               "fitted to its round trips\n");
    } else {
        char buf[FENNEL_TIME_BUF], buf2[FENNEL_TIME_BUF];
        guint k = 1;
        FennelFitSegment *seg = NULL;
        double *L = g_new0(double, n), *G = g_new0(double, n);
        if (loggp) {
            /* Per segment t(s) = a + s b: G = b, L + 2o = a + b; more than one segment is
             * written as ranges of L and G, and each break reported (S). */
            seg = fennel__fit_segments(f->points, o->segments, &k);
            for (guint i = 0; ok && i < k; i++) {
                int64_t from = g_array_index(f->points, FennelFitPoint, seg[i].first).bytes;
                char *what_g = g_strdup_printf("G (from %" G_GINT64_FORMAT "B)", from);
                char *what_l = g_strdup_printf("L + 2o (from %" G_GINT64_FORMAT "B)", from);
                G[i] = fennel__fit_as_per_byte(seg[i].line.b) / 1e9;
                L[i] = fennel__fit_ps(seg[i].line.a + G[i]) / 1e3;
                ok = fennel__fit_physical(&G[i], what_g, o, notes, error) &&
                     fennel__fit_physical(&L[i], what_l, o, notes, error);
                g_free(what_g);
                g_free(what_l);
            }
        } else {
            L[0] = g_array_index(f->points, FennelFitPoint, 0).measured_ns;
            g_string_append(notes,
                            "logp has no per-byte term: L + 2o is the smallest size's time\n");
        }
        for (guint i = 0; ok && i < k; i++) {
            guint first = seg ? seg[i].first : 0, last = seg ? seg[i].last : n - 1;
            for (guint j = first; j <= last; j++) {
                FennelFitPoint *p = &g_array_index(f->points, FennelFitPoint, j);
                p->fitted_ns = L[i] + (p->bytes > 0 ? (double)(p->bytes - 1) * G[i] : 0);
            }
        }
        g_string_append_printf(body, "fennel: 1\nnetwork:\n  model: %s\n", f->network);
        if (k == 1) {
            g_string_append_printf(body, "  L: %sns\n  o: 0ns\n  g: 0ns\n",
                                   fennel_format_ns(fennel__fit_ps(L[0]), buf));
            if (loggp)
                g_string_append_printf(body, "  G: %sns/B\n",
                                       fennel_format_rate(fennel__fit_as_per_byte(G[0]), buf));
        } else {
            g_string_append(body, "  o: 0ns\n  g: 0ns\n  ranges:\n");
            for (guint i = 0; i < k; i++) {
                int64_t lo =
                    i == 0 ? 0 : g_array_index(f->points, FennelFitPoint, seg[i].first).bytes;
                fennel_format_ns(fennel__fit_ps(L[i]), buf);
                fennel_format_rate(fennel__fit_as_per_byte(G[i]), buf2);
                if (i + 1 < k) {
                    int64_t hi = g_array_index(f->points, FennelFitPoint, seg[i + 1].first).bytes;
                    int64_t end = g_array_index(f->points, FennelFitPoint, seg[i].last).bytes;
                    g_string_append_printf(body,
                                           "    - {from: %" G_GINT64_FORMAT
                                           "B, to: %" G_GINT64_FORMAT "B, L: %sns, G: %sns/B}\n",
                                           lo, hi, buf, buf2);
                    g_string_append_printf(notes,
                                           "break between %" G_GINT64_FORMAT
                                           "B and %" G_GINT64_FORMAT "B: S = %" G_GINT64_FORMAT
                                           "B if it is an eager/rendezvous switch (not written: S "
                                           "also makes two-sided messages above it wait for their "
                                           "receive)\n",
                                           end, hi, end);
                } else {
                    g_string_append_printf(
                        body, "    - {from: %" G_GINT64_FORMAT "B, L: %sns, G: %sns/B}\n", lo, buf,
                        buf2);
                }
            }
        }
        g_free(seg);
        g_free(L);
        g_free(G);
        g_string_append(notes, "o: ping-pong cannot separate L from o; L holds L + 2o and o is 0\n"
                               "g: ping-pong cannot determine g (a message-rate test or "
                               "Netgauge's PRTT(n) can); 0 written\n");
        if (loggp)
            g_string_append(notes, "O: assumed 0 (ping-pong sees only max(O, G) per byte)\n");
    }
    if (ok) {
        fennel__fit_quality(f);
        if (netgauge)
            f->r2 = NAN;
        GString *yaml = g_string_new(NULL);
        fennel__fit_comments(f, yaml, sources->str, o);
        GString *commented = g_string_new(NULL);
        char **lines = g_strsplit(notes->str, "\n", -1);
        for (int i = 0; lines[i] && *lines[i]; i++)
            g_string_append_printf(commented, "# Note: %s\n", lines[i]);
        g_strfreev(lines);
        g_string_append(yaml, commented->str);
        g_string_free(commented, TRUE);
        g_string_append(yaml, body->str);
        f->yaml = g_string_free(yaml, FALSE);
        g_string_append_printf(f->report, "%s fit from %s (%u sizes)\n", f->network,
                               netgauge ? "Netgauge's LogGP table" : "one-way times", n);
        g_string_append(f->report, body->str + strlen("fennel: 1\nnetwork:\n"));
        /* Netgauge's parameters are taken as printed: there is no fit to judge. */
        if (!netgauge)
            g_string_append_printf(
                f->report, "R^2 %.6f, worst relative error %.2f %% at %" G_GINT64_FORMAT "B\n",
                f->r2, 100 * f->worst_relative, f->worst_bytes);
        g_string_append(f->report, notes->str);
        g_string_append_printf(f->json, "{\"network\":\"%s\",\"source\":\"%s\",\"sizes\":%u,",
                               f->network, netgauge ? "netgauge" : "one-way", n);
        if (netgauge)
            g_string_append(f->json, "\"r2\":null,\"worst_relative_error\":null,\"notes\":");
        else
            g_string_append_printf(f->json,
                                   "\"r2\":%.9g,\"worst_relative_error\":%.9g,\"notes\":", f->r2,
                                   f->worst_relative);
        fennel_json_string(f->json, notes->str);
        g_string_append_c(f->json, '}');
    }
    g_string_free(body, TRUE);
    g_string_free(sources, TRUE);
    g_string_free(notes, TRUE);
    return ok;
}
