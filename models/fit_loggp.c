/* LogP and LogGP fits (docs/CALIBRATION.md), as far as the data determines them. fennel's
 * LogGP times one message of s bytes, from the send to the end of its receive, as
 * L + 2o + (s-1)G (O = 0), and spaces messages of one sender by g + (s-1)G.
 *
 * From one-way (ping-pong) times: per segment, the non-negative line t(s) = c + (s-1)G gives
 * G and L + 2o = c. Ping-pong cannot separate L from o, nor say anything of g: o and g are
 * written as 0 and L holds L + 2o. LogP has no per-byte term: L + 2o is the time of the
 * smallest size.
 *
 * From Netgauge's LogGP table (its PRTT method, netgauge's ptrn_loggp.c): the one-way time
 * PRTT(1,0,s)/2 is fitted as above; o is Netgauge's (o_s + o_r)/2 at its smallest size and
 * L = c - 2o; g per size is (PRTT(n,0,s) - PRTT(1,0,s))/(n-1) - (s-1)G. Netgauge's own L
 * column is PRTT(1,0,s_min)/2, a whole one-way time, and its o_s and o_r at large sizes
 * include the transfer: taken as printed they time a message two to three times too slow.
 *
 * From a bandwidth test alone: G is the per-byte cost of the largest sizes' segment; the
 * latency is undetermined and L and o are written as 0. */
#include "errors.h"
#include "fit_private.h"
#include "json.h"

#include <math.h>
#include <string.h>

/* Netgauge's small-message overhead: (o_s + o_r)/2 of the smallest size that has both, or
 * NAN. */
static double netgauge_overhead(GPtrArray *tables, int64_t *at)
{
    double o = NAN;
    *at = -1;
    for (guint i = 0; i < tables->len; i++) {
        const FennelMeasureTable *t = g_ptr_array_index(tables, i);
        if (t->kind != FENNEL_MEASURE_LOGGP)
            continue;
        for (guint k = 0; k < t->samples->len; k++) {
            const FennelSample *s = &g_array_index(t->samples, FennelSample, k);
            const double *ng = g_array_index(t->loggp, FennelLogGPRow, k).v;
            if (!isfinite(ng[FENNEL_NG_OS]) || !isfinite(ng[FENNEL_NG_OR]) ||
                ng[FENNEL_NG_OS] < 0 || ng[FENNEL_NG_OR] < 0 || s->ns <= 0)
                continue;
            if (*at < 0 || s->bytes < *at) {
                *at = s->bytes;
                o = (ng[FENNEL_NG_OS] + ng[FENNEL_NG_OR]) / 2;
            }
        }
    }
    return o;
}

/* Netgauge's L column (PRTT(1,0,s_min)/2), for the report; NAN if it printed none. */
static double netgauge_l(GPtrArray *tables)
{
    for (guint i = 0; i < tables->len; i++) {
        const FennelMeasureTable *t = g_ptr_array_index(tables, i);
        for (guint k = 0; t->kind == FENNEL_MEASURE_LOGGP && k < t->samples->len; k++) {
            double l = g_array_index(t->loggp, FennelLogGPRow, k).v[FENNEL_NG_L];
            if (isfinite(l))
                return l;
        }
    }
    return NAN;
}

/* The segment of the fitted points that holds `bytes` (the last one that starts at or
 * below it). */
static guint segment_of(const GArray *points, const FennelFitSegment *seg, guint k, int64_t bytes)
{
    guint i = 0;
    while (i + 1 < k && g_array_index(points, FennelFitPoint, seg[i + 1].first).bytes <= bytes)
        i++;
    return i;
}

/* g per size: Netgauge's (PRTT(n,0,s) - PRTT(1,0,s))/(n-1), the spacing of n back-to-back
 * messages, is g + (s-1)G; the fitted G of the size's segment is taken off, and a negative
 * rest is 0 (counted in `negative`). */
static void netgauge_gap(GString *yaml, GPtrArray *tables, const GArray *points,
                         const FennelFitSegment *seg, guint k, const double *G, GString *notes)
{
    char buf[FENNEL_TIME_BUF];
    GString *t = g_string_new(NULL);
    int64_t last = -1, first_gap = -1;
    gboolean same = TRUE;
    guint used = 0, negative = 0, left_out = 0;
    for (guint i = 0; i < tables->len; i++) {
        const FennelMeasureTable *mt = g_ptr_array_index(tables, i);
        if (mt->kind != FENNEL_MEASURE_LOGGP)
            continue;
        for (guint r = 0; r < mt->samples->len; r++) {
            const FennelSample *s = &g_array_index(mt->samples, FennelSample, r);
            const FennelLogGPRow *row = &g_array_index(mt->loggp, FennelLogGPRow, r);
            if (s->bytes <= last || row->n < 2 || s->ns <= 0) {
                left_out++;
                continue;
            }
            last = s->bytes;
            double all = (row->prtt_n0_ns - 2 * s->ns) / (row->n - 1);
            double gap =
                all - (double)MAX(s->bytes - 1, 0) * G[segment_of(points, seg, k, s->bytes)];
            if (gap < 0) {
                negative++;
                gap = 0;
            }
            same &= first_gap < 0 || fennel__fit_ps(gap) == first_gap;
            if (first_gap < 0)
                first_gap = fennel__fit_ps(gap);
            g_string_append_printf(t, "%s%" G_GINT64_FORMAT "B: %sns", used++ ? ", " : "", s->bytes,
                                   fennel_format_ns(fennel__fit_ps(gap), buf));
        }
    }
    if (used && same)
        g_string_append_printf(yaml, "  g: %sns\n", fennel_format_ns(first_gap, buf));
    else if (used)
        g_string_append_printf(yaml, "  g: {%s}\n", t->str);
    else
        g_string_append(yaml, "  g: 0ns\n");
    g_string_append(notes, "g: per size, Netgauge's (PRTT(n,0,s) - PRTT(1,0,s))/(n-1) = g + (s-1)G "
                           "less the fitted (s-1)G\n");
    if (negative)
        g_string_append_printf(notes, "g: %u sizes below the fitted (s-1)G, written as 0\n",
                               negative);
    if (left_out)
        g_string_append_printf(notes, "g: %u rows left out (a repeated size, n < 2)\n", left_out);
    g_string_free(t, TRUE);
}

/* The first Netgauge table, for an error's position. */
static const FennelMeasureTable *first_of(GPtrArray *tables, FennelMeasureKind kind)
{
    for (guint i = 0; i < tables->len; i++) {
        const FennelMeasureTable *t = g_ptr_array_index(tables, i);
        if (t->kind == kind)
            return t;
    }
    return NULL;
}

static gboolean has_points(GPtrArray *tables, FennelMeasureKind kind, const FennelFitOptions *o)
{
    GString *ignored = g_string_new(NULL);
    GArray *p = fennel__fit_points(tables, kind, o->statistic, ignored);
    gboolean any = p->len > 0;
    g_array_free(p, TRUE);
    g_string_free(ignored, TRUE);
    return any;
}

gboolean fennel__fit_loggp(FennelFit *f, GPtrArray *tables, const FennelFitOptions *o,
                           GError **error)
{
    GString *sources = g_string_new(NULL), *notes = g_string_new(NULL);
    const FennelMeasureTable *ng_table = first_of(tables, FENNEL_MEASURE_LOGGP);
    gboolean netgauge = ng_table != NULL;
    gboolean loggp = strcmp(f->network, "loggp") == 0;
    gboolean bandwidth = !netgauge && !has_points(tables, FENNEL_MEASURE_ONE_WAY, o) &&
                         has_points(tables, FENNEL_MEASURE_BANDWIDTH, o);
    if (!loggp && bandwidth) {
        /* LogP has no per-byte term, the one thing a bandwidth test determines. */
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                    "logp has no per-byte term, and a bandwidth test determines only the per-byte "
                    "cost (its latency is undetermined): fit it with --network postal or loggp, "
                    "or give a ping-pong for LogP");
        g_string_free(sources, TRUE);
        g_string_free(notes, TRUE);
        return FALSE;
    }
    f->points = fennel__fit_points(tables,
                                   netgauge    ? FENNEL_MEASURE_LOGGP
                                   : bandwidth ? FENNEL_MEASURE_BANDWIDTH
                                               : FENNEL_MEASURE_ONE_WAY,
                                   o->statistic, sources);
    if (netgauge) {
        /* A round trip of 0 says nothing of the network: such rows are left out, and a table
         * with no other row is refused, not written as a model of zeros. */
        guint kept = 0, zero = 0;
        for (guint i = 0; i < f->points->len; i++) {
            FennelFitPoint p = g_array_index(f->points, FennelFitPoint, i);
            if (p.measured_ns > 0)
                g_array_index(f->points, FennelFitPoint, kept++) = p;
            else
                zero++;
        }
        g_array_set_size(f->points, kept);
        if (kept == 0) {
            fennel_error_at(error, ng_table->file, ng_table->line, 1,
                            "the Netgauge LogGP table has no usable row (every round trip "
                            "PRTT(1,0,s) is 0)");
            g_string_free(sources, TRUE);
            g_string_free(notes, TRUE);
            return FALSE;
        }
        if (zero)
            g_string_append_printf(notes, "%u sizes with a round trip of 0 left out\n", zero);
    }
    guint n = f->points->len;
    if (n < (loggp && !netgauge ? 2u : 1u)) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                    "%s needs Netgauge's LogGP table, one-way times (ping-pong) or a bandwidth "
                    "test at %s%s",
                    f->network, loggp ? "two sizes or more" : "one size or more",
                    n == 1 ? "; the input has one size, which postal (the default) fits as "
                             "alpha + s beta, LogGP's L + 2o + (s-1)G"
                           : "");
        g_string_free(sources, TRUE);
        g_string_free(notes, TRUE);
        return FALSE;
    }
    guint k = 1, min_points = o->min_points > 0 ? (guint)o->min_points : 4;
    FennelFitSegment *seg;
    if (loggp) {
        seg = fennel__fit_segments(f->points, o->segments, min_points, TRUE, &k);
        fennel__fit_segment_notes(f->points, seg, k, o->segments, min_points, "L + 2o", "G", notes);
    } else {
        /* LogP: the smallest size's time, no per-byte term. */
        seg = g_new0(FennelFitSegment, 1);
        seg[0].last = n - 1;
        seg[0].line.a = g_array_index(f->points, FennelFitPoint, 0).measured_ns;
        g_string_append(notes, "logp has no per-byte term: L + 2o is the smallest size's time\n");
    }
    f->parameters = loggp ? 2 * k : 1;
    double *c = g_new0(double, k), *G = g_new0(double, k), *L = g_new0(double, k);
    double least = INFINITY;
    for (guint i = 0; i < k; i++) {
        G[i] = fennel__fit_as_per_byte(seg[i].line.b) / 1e9;
        c[i] = fennel__fit_ps(seg[i].line.a) / 1e3;
        least = MIN(least, c[i]);
    }
    /* o: Netgauge's small-message overhead, no more than half the least L + 2o. */
    double ov = 0;
    int64_t o_at = -1;
    if (netgauge) {
        double measured = netgauge_overhead(tables, &o_at);
        if (isnan(measured)) {
            g_string_append(notes, "o: no row has both o_s and o_r; 0 written, L holds L + 2o\n");
        } else {
            /* A blocking send's o_s is o + (s-1)G: the transfer is taken off (nothing at 1 B). */
            double transfer = (double)MAX(o_at - 1, 0) * G[segment_of(f->points, seg, k, o_at)];
            measured = MAX(measured - transfer, 0);
            ov = fennel__fit_ps(MIN(measured, least / 2)) / 1e3;
            g_string_append_printf(
                notes,
                "o: Netgauge's (o_s + o_r)/2 at its smallest size (%" G_GINT64_FORMAT
                "B) less (s-1)G; at larger sizes its o_s and o_r include the transfer (a "
                "blocking send or receive returns when the data has passed), "
                "which fennel times as (s-1)G\n",
                o_at);
            if (ov < measured)
                g_string_append_printf(notes,
                                       "o: Netgauge's %.6g ns is more than half of L + 2o; %.6g ns "
                                       "written\n",
                                       measured, ov);
        }
    }
    for (guint i = 0; i < k; i++)
        L[i] = bandwidth ? 0 : fennel__fit_ps(c[i] - 2 * ov) / 1e3;
    for (guint i = 0; i < k; i++) {
        for (guint j = seg[i].first; j <= seg[i].last; j++) {
            FennelFitPoint *p = &g_array_index(f->points, FennelFitPoint, j);
            p->fitted_ns = c[i] + (p->bytes > 0 ? (double)(p->bytes - 1) * G[i] : 0);
        }
    }
    fennel__fit_quality(f);
    /* Netgauge: L per size, so that the model gives each measured one-way time (to the
     * picosecond) and not only the lines' approximation of it; G is the size's segment's. */
    gboolean per_size = netgauge && loggp;
    GString *l_table = g_string_new(NULL);
    if (per_size) {
        char lb[FENNEL_TIME_BUF];
        guint held = 0;
        int64_t first_l = -1;
        gboolean same = TRUE;
        g_string_append_printf(notes,
                               "the lines L + 2o + (s-1)G fit PRTT(1,0,s)/2 with R^2 %.6f, "
                               "|line - measured| / measured median %.2f %%, worst %.2f %% at "
                               "%" G_GINT64_FORMAT "B; L is written per size so that the model "
                               "gives every measured round trip\n",
                               f->r2, 100 * f->median_relative, 100 * f->worst_relative,
                               f->worst_bytes);
        for (guint i = 0; i < k; i++) {
            for (guint j = seg[i].first; j <= seg[i].last; j++) {
                FennelFitPoint *p = &g_array_index(f->points, FennelFitPoint, j);
                double transfer = (double)MAX(p->bytes - 1, 0) * G[i];
                double l = fennel__fit_ps(p->measured_ns - 2 * ov - transfer) / 1e3;
                if (l < 0) {
                    held++;
                    l = 0;
                }
                p->fitted_ns = l + 2 * ov + transfer;
                same &= first_l < 0 || fennel__fit_ps(l) == first_l;
                if (first_l < 0)
                    first_l = fennel__fit_ps(l);
                g_string_append_printf(l_table, "%s%" G_GINT64_FORMAT "B: %sns", j ? ", " : "{",
                                       p->bytes, fennel_format_ns(fennel__fit_ps(l), lb));
            }
        }
        g_string_append_c(l_table, '}');
        if (same)
            g_string_printf(l_table, "%sns", fennel_format_ns(first_l, lb));
        if (held)
            g_string_append_printf(notes,
                                   "L: %u sizes measured faster than 2o + (s-1)G; L written as 0 "
                                   "there\n",
                                   held);
        /* The model's parameters: the tables, plus o; R^2 of a model that passes through
         * every point says nothing. */
        f->parameters = n + 2 * k;
        fennel__fit_quality(f);
    }

    char buf[FENNEL_TIME_BUF], buf2[FENNEL_TIME_BUF];
    GString *body = g_string_new(NULL);
    g_string_append_printf(body, "fennel: 1\nnetwork:\n  model: %s\n", f->network);
    if (per_size)
        g_string_append_printf(body, "  L: %s\n", l_table->str);
    else if (k == 1 || bandwidth)
        g_string_append_printf(body, "  L: %sns\n",
                               fennel_format_ns(fennel__fit_ps(bandwidth ? 0 : L[0]), buf));
    fennel_format_ns(fennel__fit_ps(ov), buf);
    g_string_append_printf(body, "  o: %sns\n", buf);
    if (netgauge && loggp)
        netgauge_gap(body, tables, f->points, seg, k, G, notes);
    else
        g_string_append(body, "  g: 0ns\n");
    if (per_size) {
        if (k == 1)
            g_string_append_printf(body, "  G: %sns/B\n",
                                   fennel_format_rate(fennel__fit_as_per_byte(G[0]), buf));
        else
            g_string_append(body, "  ranges:\n");
        for (guint i = 0; k > 1 && i < k; i++) {
            int64_t lo = i == 0 ? 0 : g_array_index(f->points, FennelFitPoint, seg[i].first).bytes;
            fennel_format_rate(fennel__fit_as_per_byte(G[i]), buf2);
            if (i + 1 == k) {
                g_string_append_printf(body, "    - {from: %" G_GINT64_FORMAT "B, G: %sns/B}\n", lo,
                                       buf2);
                break;
            }
            int64_t end = g_array_index(f->points, FennelFitPoint, seg[i].last).bytes;
            int64_t hi = g_array_index(f->points, FennelFitPoint, seg[i + 1].first).bytes;
            g_string_append_printf(
                body, "    - {from: %" G_GINT64_FORMAT "B, to: %" G_GINT64_FORMAT "B, G: %sns/B}\n",
                lo, hi, buf2);
            g_string_append_printf(notes,
                                   "break between %" G_GINT64_FORMAT "B and %" G_GINT64_FORMAT
                                   "B: S = %" G_GINT64_FORMAT
                                   "B if it is an eager/rendezvous switch (not written: S "
                                   "also makes two-sided messages above it wait for their "
                                   "receive)\n",
                                   end, hi, end);
        }
    } else if (bandwidth) {
        g_string_append_printf(body, "  G: %sns/B\n",
                               fennel_format_rate(fennel__fit_as_per_byte(G[k - 1]), buf));
    } else if (k == 1) {
        if (loggp)
            g_string_append_printf(body, "  G: %sns/B\n",
                                   fennel_format_rate(fennel__fit_as_per_byte(G[0]), buf));
    } else {
        g_string_append(body, "  ranges:\n");
        for (guint i = 0; i < k; i++) {
            int64_t lo = i == 0 ? 0 : g_array_index(f->points, FennelFitPoint, seg[i].first).bytes;
            fennel_format_ns(fennel__fit_ps(L[i]), buf);
            fennel_format_rate(fennel__fit_as_per_byte(G[i]), buf2);
            if (i + 1 < k) {
                int64_t hi = g_array_index(f->points, FennelFitPoint, seg[i + 1].first).bytes;
                int64_t end = g_array_index(f->points, FennelFitPoint, seg[i].last).bytes;
                g_string_append_printf(body,
                                       "    - {from: %" G_GINT64_FORMAT "B, to: %" G_GINT64_FORMAT
                                       "B, L: %sns, G: %sns/B}\n",
                                       lo, hi, buf, buf2);
                g_string_append_printf(notes,
                                       "break between %" G_GINT64_FORMAT "B and %" G_GINT64_FORMAT
                                       "B: S = %" G_GINT64_FORMAT
                                       "B if it is an eager/rendezvous switch (not written: S "
                                       "also makes two-sided messages above it wait for their "
                                       "receive)\n",
                                       end, hi, end);
            } else {
                g_string_append_printf(body,
                                       "    - {from: %" G_GINT64_FORMAT "B, L: %sns, G: %sns/B}\n",
                                       lo, buf, buf2);
            }
        }
    }
    int64_t smallest = g_array_index(f->points, FennelFitPoint, 0).bytes;
    if (netgauge) {
        double ngl = netgauge_l(tables);
        if (isfinite(ngl))
            g_string_append_printf(notes,
                                   "L: Netgauge's L column (%.6g ns) is half the round trip of "
                                   "its smallest size, a one-way time with both overheads in it; "
                                   "fennel's L is L + 2o of the fit less 2o\n",
                                   ngl);
        if (smallest > 1024)
            g_string_append_printf(
                notes,
                "L: extrapolated: the smallest size measured is %" G_GINT64_FORMAT
                "B, so L + 2o is the fitted line's value at 1 B, not a "
                "measured time (measure from 1 B for it)\n",
                smallest);
        g_string_append(notes, "O: Netgauge does not measure a per-byte CPU overhead; 0 written\n");
    } else if (bandwidth) {
        g_string_append_printf(
            notes,
            "latency undetermined: a bandwidth test times messages back to back, so its "
            "per-message intercept is a gap, not a latency; L and o written as 0 (fit a "
            "ping-pong, osu_latency or IMB PingPong, for them)\n"
            "G: the per-byte cost of the largest sizes' segment (from %" G_GINT64_FORMAT "B)\n",
            g_array_index(f->points, FennelFitPoint, seg[k - 1].first).bytes);
    } else {
        g_string_append(notes, "o: ping-pong cannot separate L from o; L holds L + 2o and o is 0\n"
                               "g: ping-pong cannot determine g (a message-rate test or "
                               "Netgauge's PRTT(n) can); 0 written\n");
        if (loggp)
            g_string_append(notes, "O: assumed 0 (ping-pong sees only max(O, G) per byte)\n");
    }

    GString *yaml = g_string_new(NULL);
    fennel__fit_comments(f, yaml, sources->str, o);
    char **lines = g_strsplit(notes->str, "\n", -1);
    for (int i = 0; lines[i] && *lines[i]; i++)
        g_string_append_printf(yaml, "# Note: %s\n", lines[i]);
    g_strfreev(lines);
    g_string_append(yaml, body->str);
    f->yaml = g_string_free(yaml, FALSE);
    const char *source = netgauge    ? "Netgauge's LogGP table, one-way time PRTT(1,0,s)/2"
                         : bandwidth ? "a bandwidth test"
                                     : "one-way times";
    g_string_append_printf(f->report, "%s fit from %s (%u sizes), %u segment%s%s\n", f->network,
                           source, n, k, k > 1 ? "s" : "",
                           !loggp || o->segments ? "" : " (chosen by BIC)");
    g_string_append(f->report, body->str + strlen("fennel: 1\nnetwork:\n"));
    fennel__fit_report_quality(f, f->report);
    g_string_append(f->report, notes->str);
    g_string_append_printf(f->json,
                           "{\"network\":\"%s\",\"source\":\"%s\",\"sizes\":%u,"
                           "\"latency_determined\":%s,\"segments\":[",
                           f->network,
                           netgauge    ? "netgauge"
                           : bandwidth ? "bandwidth"
                                       : "one-way",
                           n, bandwidth ? "false" : "true");
    for (guint i = 0; i < k; i++) {
        g_string_append_printf(f->json,
                               "%s{\"from_bytes\":%" G_GINT64_FORMAT
                               ",\"L_plus_2o_ns\":%.9g,\"G_ns_per_byte\":%.9g,\"points\":%u}",
                               i ? "," : "",
                               i ? g_array_index(f->points, FennelFitPoint, seg[i].first).bytes : 0,
                               c[i], G[i], seg[i].last - seg[i].first + 1);
    }
    g_string_append_printf(f->json, "],\"o_ns\":%.9g,\"notes\":", ov);
    fennel_json_string(f->json, notes->str);
    g_string_append_c(f->json, '}');
    g_string_free(l_table, TRUE);
    g_free(c);
    g_free(G);
    g_free(L);
    g_free(seg);
    g_string_free(body, TRUE);
    g_string_free(sources, TRUE);
    g_string_free(notes, TRUE);
    return TRUE;
}
