/* Reading a sweep's CSV into the series of a line chart (plot.h). */
#include "plot.h"

#include "errors.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

GPtrArray *fennel_csv_parse(const char *name, const char *text, gsize length, GArray **lines,
                            GError **error)
{
    GPtrArray *rows = g_ptr_array_new_with_free_func((GDestroyNotify)g_strfreev);
    GArray *starts = g_array_new(FALSE, FALSE, sizeof(FennelCsvRow));
    FennelCsvRow start = {1, 0};
    GPtrArray *fields = g_ptr_array_new();
    GString *field = g_string_new(NULL);
    unsigned line = 1, col = 1;
    gsize i = 0;
    gboolean ok = TRUE, any = FALSE;
    while (i < length && ok) {
        char c = text[i];
        if (c == '"' && field->len == 0 && !any) {
            /* A quoted field: up to the closing quote, "" standing for one. */
            unsigned qline = line, qcol = col;
            i++;
            col++;
            for (;;) {
                if (i >= length) {
                    fennel_error_at(error, name, qline, qcol, "unclosed quote");
                    ok = FALSE;
                    break;
                }
                if (text[i] == '"' && i + 1 < length && text[i + 1] == '"') {
                    g_string_append_c(field, '"');
                    i += 2;
                    col += 2;
                } else if (text[i] == '"') {
                    i++;
                    col++;
                    break;
                } else {
                    if (text[i] == '\n') {
                        line++;
                        col = 0;
                    }
                    g_string_append_c(field, text[i++]);
                    col++;
                }
            }
            if (ok && i < length && text[i] != ',' && text[i] != '\n' && text[i] != '\r') {
                fennel_error_at(error, name, line, col, "text after a closing quote");
                ok = FALSE;
            }
            any = TRUE;
            continue;
        }
        if (c == ',') {
            g_ptr_array_add(fields, g_strndup(field->str, field->len));
            g_string_truncate(field, 0);
            any = FALSE;
            i++;
            col++;
            continue;
        }
        if (c == '\r' && i + 1 < length && text[i + 1] == '\n') {
            i++;
            continue;
        }
        if (c == '\n') {
            g_ptr_array_add(fields, g_strndup(field->str, field->len));
            g_ptr_array_add(fields, NULL);
            g_ptr_array_add(rows, g_ptr_array_free(fields, FALSE));
            g_array_append_val(starts, start);
            fields = g_ptr_array_new();
            g_string_truncate(field, 0);
            any = FALSE;
            i++;
            line++;
            col = 1;
            start = (FennelCsvRow){line, i};
            continue;
        }
        g_string_append_c(field, c);
        any = TRUE;
        i++;
        col++;
    }
    /* A last row without a line end. */
    if (ok && (fields->len || field->len || any)) {
        g_ptr_array_add(fields, g_strndup(field->str, field->len));
        g_ptr_array_add(fields, NULL);
        g_ptr_array_add(rows, g_ptr_array_free(fields, FALSE));
        g_array_append_val(starts, start);
        fields = NULL;
    }
    if (fields) {
        for (guint k = 0; k < fields->len; k++)
            g_free(g_ptr_array_index(fields, k));
        g_ptr_array_free(fields, TRUE);
    }
    g_string_free(field, TRUE);
    if (!ok) {
        g_ptr_array_free(rows, TRUE);
        g_array_free(starts, TRUE);
        return NULL;
    }
    if (lines)
        *lines = starts;
    else
        g_array_free(starts, TRUE);
    return rows;
}

unsigned fennel_csv_column(const char *text, gsize length, gsize offset, guint field)
{
    gboolean quoted = FALSE;
    gsize i = offset;
    for (guint f = 0; f < field && i < length && (quoted || text[i] != '\n'); i++) {
        if (text[i] == '"')
            quoted = !quoted;
        else if (text[i] == ',' && !quoted)
            f++;
    }
    return (unsigned)(i - offset) + 1;
}

static int find_column(char **header, const char *name)
{
    for (int i = 0; header[i]; i++) {
        if (strcmp(header[i], name) == 0)
            return i;
    }
    return -1;
}

static gboolean unknown_column(GError **error, const char *file, const char *option,
                               const char *name, char **header)
{
    char *list = g_strjoinv(", ", header);
    g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE,
                "%s %s: %s has no such column (it has: %s)", option, name, file, list);
    g_free(list);
    return FALSE;
}

typedef struct {
    const char *file, *text;
    gsize length;
    const FennelCsvRow *row;
} Where;

/* A cell of a numeric column: FALSE with an error unless it is a (finite) number. */
static gboolean parse_cell(const Where *w, int column, const char *cell, const char *name,
                           gboolean log_axis, double *out, GError **error)
{
    unsigned line = w->row->line,
             col = fennel_csv_column(w->text, w->length, w->row->offset, (guint)column);
    const char *file = w->file;
    char *end;
    errno = 0;
    double v = g_ascii_strtod(cell, &end);
    if (end == cell || *end != '\0' || errno == ERANGE || !isfinite(v)) {
        fennel_error_at(error, file, line, col, "column '%s' holds '%s' where a number is expected",
                        name, cell);
        return FALSE;
    }
    if (log_axis && v <= 0) {
        fennel_error_at(error, file, line, col,
                        "column '%s' holds %s, which a logarithmic axis cannot show", name, cell);
        return FALSE;
    }
    /* The axis' span, its padding and the mapping to the picture are computed in doubles:
     * values within +-1e300 (and above 1e-300 on a logarithmic axis) keep them finite (two
     * of 1e308 made an infinite span and nan coordinates). */
    if (fabs(v) > 1e300 || (log_axis && v < 1e-300)) {
        fennel_error_at(error, file, line, col,
                        "column '%s' holds %s, beyond the %s a plot can draw", name, cell,
                        log_axis ? "1e-300 to 1e300" : "-1e300 to 1e300");
        return FALSE;
    }
    *out = v;
    return TRUE;
}

typedef struct {
    double x, y;
} Sample;

static int by_x_then_y(const void *a, const void *b)
{
    const Sample *p = a, *q = b;
    if (p->x != q->x)
        return p->x < q->x ? -1 : 1;
    return (p->y > q->y) - (p->y < q->y);
}

/* The q-quantile of n sorted samples' y, interpolated linearly between the two nearest
 * ranks (numpy's default). */
static double quantile(const Sample *v, guint n, double q)
{
    double at = q * (n - 1);
    guint k = (guint)at;
    return k + 1 < n ? v[k].y + (at - k) * (v[k + 1].y - v[k].y) : v[n - 1].y;
}

/* Sorts a group's samples and merges equal x into one point (median, quartiles, min, max). */
static void finish_series(FennelPlotSeries *s, GArray *samples)
{
    qsort(samples->data, samples->len, sizeof(Sample), by_x_then_y);
    s->points = g_new0(FennelPlotPoint, MAX(samples->len, 1));
    for (guint i = 0; i < samples->len;) {
        const Sample *v = &g_array_index(samples, Sample, i);
        guint j = i;
        while (j < samples->len && g_array_index(samples, Sample, j).x == v->x)
            j++;
        guint n = j - i;
        double lo = v[(n - 1) / 2].y, hi = v[n / 2].y;
        s->points[s->n_points++] = (FennelPlotPoint){.x = v->x,
                                                     .min = v[0].y,
                                                     .q1 = quantile(v, n, 0.25),
                                                     .median = (lo + hi) / 2,
                                                     .q3 = quantile(v, n, 0.75),
                                                     .max = v[n - 1].y,
                                                     .n = n};
        s->band |= n > 1;
        i = j;
    }
}

/* An empirical CDF: the fraction of the samples at or below each distinct x. */
static void finish_cdf(FennelPlotSeries *s, GArray *samples)
{
    qsort(samples->data, samples->len, sizeof(Sample), by_x_then_y);
    s->points = g_new0(FennelPlotPoint, MAX(samples->len, 1));
    s->steps = TRUE;
    for (guint i = 0; i < samples->len;) {
        double x = g_array_index(samples, Sample, i).x;
        guint j = i;
        while (j < samples->len && g_array_index(samples, Sample, j).x == x)
            j++;
        double fraction = (double)j / samples->len;
        s->points[s->n_points++] = (FennelPlotPoint){
            .x = x, .min = fraction, .median = fraction, .max = fraction, .n = j - i};
        i = j;
    }
}

/* A histogram over bins of `width` from lo: a point per bin, y its count. */
static void finish_hist(FennelPlotSeries *s, GArray *samples, double lo, double width, guint bins)
{
    s->points = g_new0(FennelPlotPoint, bins);
    s->n_points = bins;
    for (guint b = 0; b < bins; b++)
        s->points[b].x = lo + (b + 0.5) * width;
    for (guint i = 0; i < samples->len; i++) {
        double x = g_array_index(samples, Sample, i).x;
        guint b = width > 0 ? (guint)MIN((x - lo) / width, bins - 1) : 0;
        s->points[b].n++;
    }
    for (guint b = 0; b < bins; b++)
        s->points[b].median = s->points[b].max = s->points[b].q1 = s->points[b].q3 = s->points[b].n;
}

FennelPlotData *fennel_plot_data_read(const char *name, const char *text, gsize length,
                                      const FennelPlotOptions *o, GError **error)
{
    GArray *lines = NULL;
    GPtrArray *rows = fennel_csv_parse(name, text, length, &lines, error);
    if (rows == NULL)
        return NULL;
    FennelPlotData *d = NULL;
    GHashTable *index = g_hash_table_new(g_str_hash, g_str_equal);
    GPtrArray *names = g_ptr_array_new(), *groups = g_ptr_array_new();
    gboolean ok = TRUE;
    if (rows->len == 0) {
        fennel_error_at(error, name, 0, 0, "empty file: expected a header row");
        ok = FALSE;
    }
    char **header = ok ? g_ptr_array_index(rows, 0) : NULL;
    int cx = -1, cy = -1;
    char **by = o->by ? g_strsplit(o->by, ",", -1) : g_new0(char *, 1);
    guint nby = g_strv_length(by), nwhere = o->where ? g_strv_length(o->where) : 0;
    int *cb = g_new0(int, nby + 1), *cw = g_new0(int, nwhere + 1);
    char ***wanted = g_new0(char **, nwhere + 1);
    guint nh = ok ? g_strv_length(header) : 0;
    /* Parameter columns: those before `seed` in a sweep's header (what follows are results,
     * which vary because the parameters do). Rows at one x of one group that differ in a
     * parameter are folded into one point: those parameters are warned about. */
    guint params = 0;
    while (ok && params < nh && strcmp(header[params], "seed") != 0)
        params++;
    if (params == nh)
        params = 0;
    GHashTable *points = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    gboolean *varies = g_new0(gboolean, nh + 1);
    guint left_out = 0; /* rows with numbers that --where left out */
    if (ok) {
        if ((cx = find_column(header, o->x)) < 0)
            ok = unknown_column(error, name, "-x", o->x, header);
        else if (o->cdf || o->hist)
            cy = cx; /* the distribution of x: no second column */
        else if ((cy = find_column(header, o->y)) < 0)
            ok = unknown_column(error, name, "-y", o->y, header);
        for (guint k = 0; ok && k < nby; k++)
            if ((cb[k] = find_column(header, by[k])) < 0)
                ok = unknown_column(error, name, "--by", by[k], header);
        for (guint k = 0; ok && k < nwhere; k++) {
            char *eq = strchr(o->where[k], '=');
            char *col = eq ? g_strndup(o->where[k], eq - o->where[k]) : g_strdup(o->where[k]);
            if (eq == NULL || eq[1] == '\0') {
                g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE,
                            "--where %s: expected COL=VALUE[,VALUE...]", o->where[k]);
                ok = FALSE;
            } else if ((cw[k] = find_column(header, col)) < 0) {
                ok = unknown_column(error, name, "--where", col, header);
            } else {
                wanted[k] = g_strsplit(eq + 1, ",", -1);
            }
            g_free(col);
        }
        for (guint r = 1; ok && r < rows->len; r++) {
            char **f = g_ptr_array_index(rows, r);
            Where w = {name, text, length, &g_array_index(lines, FennelCsvRow, r)};
            if (g_strv_length(f) != nh) {
                fennel_error_at(error, name, w.row->line, 1,
                                "expected %u fields as in the header, found %u", nh,
                                g_strv_length(f));
                ok = FALSE;
                break;
            }
            if (*f[cx] == '\0' || *f[cy] == '\0')
                continue;
            gboolean keep = TRUE;
            for (guint k = 0; keep && k < nwhere; k++)
                keep = g_strv_contains((const char *const *)wanted[k], f[cw[k]]);
            if (!keep) {
                left_out++;
                continue;
            }
            Sample s;
            ok = parse_cell(&w, cx, f[cx], o->x, o->logx, &s.x, error) &&
                 (o->cdf || o->hist ? (s.y = 0, TRUE)
                                    : parse_cell(&w, cy, f[cy], o->y, o->logy, &s.y, error));
            if (!ok)
                break;
            /* A parameter folds rows only where it differs between rows of one group at
             * one x (a parameter that moves with x, a per-size model value, does not). */
            char *at = g_strdup(f[cx]);
            for (guint k = 0; k < nby; k++) {
                char *longer = g_strdup_printf("%s\x1f%s", at, f[cb[k]]);
                g_free(at);
                at = longer;
            }
            char **seen = g_hash_table_lookup(points, at);
            if (seen == NULL) {
                g_hash_table_insert(points, at, f);
            } else {
                g_free(at);
                for (guint c = 0; c < params; c++)
                    if (strcmp(seen[c], f[c]) != 0)
                        varies[c] = TRUE;
            }
            /* An empty --by cell is a group of its own, named so the legend shows it; with
             * several --by columns a group is named by all of them. */
            GString *key = g_string_new(NULL);
            if (nby == 0)
                g_string_append(key, o->y);
            for (guint k = 0; k < nby; k++) {
                const char *v = *f[cb[k]] ? f[cb[k]] : "(empty)";
                if (nby == 1)
                    g_string_append(key, v);
                else
                    g_string_append_printf(key, "%s%s=%s", k ? ", " : "", by[k], v);
            }
            GArray *samples = g_hash_table_lookup(index, key->str);
            if (samples == NULL) {
                samples = g_array_new(FALSE, FALSE, sizeof(Sample));
                char *group = g_string_free(key, FALSE);
                g_hash_table_insert(index, group, samples);
                g_ptr_array_add(names, group);
                g_ptr_array_add(groups, samples);
            } else {
                g_string_free(key, TRUE);
            }
            g_array_append_val(samples, s);
        }
    }
    GString *folded = g_string_new(NULL);
    for (guint c = 0; ok && c < params; c++) {
        gboolean named = (int)c == cx || (int)c == cy;
        for (guint k = 0; k < nby; k++)
            named |= (int)c == cb[k];
        for (guint k = 0; k < nwhere; k++)
            named |= (int)c == cw[k];
        if (varies[c] && !named)
            g_string_append_printf(folded, "%s%s", folded->len ? ", " : "", header[c]);
    }
    g_hash_table_destroy(points);
    g_free(varies);
    g_strfreev(by);
    g_free(cb);
    g_free(cw);
    for (guint k = 0; k < nwhere; k++)
        g_strfreev(wanted[k]);
    g_free(wanted);
    if (ok && groups->len == 0) {
        if (left_out > 0) {
            /* The rows were there: --where left them all out. */
            GString *w = g_string_new(NULL);
            for (guint k = 0; k < nwhere; k++)
                g_string_append_printf(w, "%s--where %s", k ? " " : "", o->where[k]);
            fennel_error_at(error, name, 0, 0, "%s keeps none of the %u rows", w->str, left_out);
            g_string_free(w, TRUE);
        } else if (o->cdf || o->hist)
            fennel_error_at(error, name, 0, 0, "no row has a number in '%s'", o->x);
        else
            fennel_error_at(error, name, 0, 0, "no row has numbers in both '%s' and '%s'", o->x,
                            o->y);
        ok = FALSE;
    }
    if (ok) {
        d = g_new0(FennelPlotData, 1);
        d->folded = folded->len ? g_strdup(folded->str) : NULL;
        d->n_series = groups->len;
        d->series = g_new0(FennelPlotSeries, groups->len);
        /* A histogram's bins span every group's values. */
        double lo = INFINITY, hi = -INFINITY;
        guint total = 0, bins = o->bins;
        for (guint g = 0; o->hist && g < groups->len; g++) {
            GArray *samples = g_ptr_array_index(groups, g);
            total += samples->len;
            for (guint i = 0; i < samples->len; i++) {
                lo = MIN(lo, g_array_index(samples, Sample, i).x);
                hi = MAX(hi, g_array_index(samples, Sample, i).x);
            }
        }
        if (o->hist && bins == 0)
            bins = (guint)ceil(log2(MAX(total, 1u))) + 1;
        if (o->hist)
            d->bin_width = hi > lo ? (hi - lo) / bins : 1;
        if (o->hist && hi == lo)
            lo -= 0.5;
        for (guint g = 0; g < groups->len; g++) {
            d->series[g].name = g_strdup(g_ptr_array_index(names, g));
            if (o->hist)
                finish_hist(&d->series[g], g_ptr_array_index(groups, g), lo, d->bin_width, bins);
            else if (o->cdf)
                finish_cdf(&d->series[g], g_ptr_array_index(groups, g));
            else
                finish_series(&d->series[g], g_ptr_array_index(groups, g));
        }
    }
    for (guint g = 0; g < groups->len; g++)
        g_array_free(g_ptr_array_index(groups, g), TRUE);
    g_ptr_array_free(groups, TRUE);
    g_string_free(folded, TRUE);
    for (guint g = 0; g < names->len; g++)
        g_free(g_ptr_array_index(names, g));
    g_ptr_array_free(names, TRUE);
    g_hash_table_destroy(index);
    g_ptr_array_free(rows, TRUE);
    g_array_free(lines, TRUE);
    return d;
}

void fennel_plot_data_free(FennelPlotData *d)
{
    if (d == NULL)
        return;
    for (guint g = 0; g < d->n_series; g++) {
        g_free(d->series[g].name);
        g_free(d->series[g].points);
    }
    g_free(d->series);
    g_free(d->folded);
    g_free(d);
}
