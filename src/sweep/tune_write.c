/* A tune's decision table as CSV or JSON, and its heat map (tune.h). */
#include "heatmap.h"
#include "json.h"
#include "sweep_private.h"
#include "tune.h"

#include <math.h>
#include <stdio.h>

/* Times as fennel prints them elsewhere: the shortest text that reads back the same to
 * the picosecond (sweep times are whole picoseconds). */
static void append_ns(GString *out, double ns)
{
    char buf[G_ASCII_DTOSTR_BUF_SIZE];
    g_ascii_formatd(buf, sizeof buf, "%.15g", ns);
    g_string_append(out, buf);
}

/* The margin over the winner's time in percent; NAN when the winner takes 0 ns (a size of 0
 * under a model of free latency): no percentage of nothing. */
static double margin_percent(const FennelTuneCell *c)
{
    if (!(c->ns[c->winner] > 0))
        return NAN;
    return 100 * (c->ns[c->runner_up] - c->ns[c->winner]) / c->ns[c->winner];
}

/* The candidates that did not run in a cell, separated by ';'. */
static void append_skipped(const FennelTune *t, const FennelTuneCell *c, GString *out)
{
    gboolean first = TRUE;
    for (guint k = 0; k < t->n_candidates; k++)
        if (isnan(c->ns[k])) {
            if (!first)
                g_string_append_c(out, ';');
            g_string_append(out, t->candidates[k].label);
            first = FALSE;
        }
}

/* The library's time over the winner's: above 1, the library's choice is slower. */
static double library_over_winner(const FennelTuneCell *c)
{
    return c->baseline_ns / c->ns[c->winner];
}

void fennel_tune_write_csv(const FennelTune *t, GString *out)
{
    g_string_append(out, "ranks,size_bytes,winner,winner_ns,runner_up,runner_up_ns,margin_ns,"
                         "margin_percent,skipped");
    g_string_append(out, t->library ? ",library,library_algorithm,library_ns,library_over_winner\n"
                                    : "\n");
    for (guint c = 0; c < t->n_ranks * t->n_sizes; c++) {
        const FennelTuneCell *cell = &t->cells[c];
        g_string_append_printf(out, "%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT ",", cell->ranks,
                               cell->size);
        fennel__csv_field(out, t->candidates[cell->winner].label);
        g_string_append_c(out, ',');
        append_ns(out, cell->ns[cell->winner]);
        g_string_append_c(out, ',');
        if (cell->runner_up != G_MAXUINT) {
            fennel__csv_field(out, t->candidates[cell->runner_up].label);
            g_string_append_c(out, ',');
            append_ns(out, cell->ns[cell->runner_up]);
            g_string_append_c(out, ',');
            append_ns(out, cell->ns[cell->runner_up] - cell->ns[cell->winner]);
            if (isfinite(margin_percent(cell)))
                g_string_append_printf(out, ",%.2f,", margin_percent(cell));
            else
                g_string_append(out, ",,"); /* an empty cell, never nan */
        } else
            g_string_append(out, ",,,,");
        GString *skipped = g_string_new(NULL);
        append_skipped(t, cell, skipped);
        fennel__csv_field(out, skipped->str);
        g_string_free(skipped, TRUE);
        if (t->library) {
            g_string_append_printf(out, ",%s,%s,", t->library,
                                   cell->baseline_algorithm ? cell->baseline_algorithm : "");
            if (!isnan(cell->baseline_ns)) {
                append_ns(out, cell->baseline_ns);
                g_string_append_printf(out, ",%.4f", library_over_winner(cell));
            } else
                g_string_append_c(out, ',');
        }
        g_string_append_c(out, '\n');
    }
}

void fennel_tune_write_json(const FennelTune *t, GString *out)
{
    g_string_append(out, "{\"collective\":");
    fennel_json_string(out, t->collective);
    if (t->library) {
        g_string_append(out, ",\"library\":");
        fennel_json_string(out, t->library);
    }
    g_string_append(out, ",\"candidates\":[");
    for (guint k = 0; k < t->n_candidates; k++) {
        if (k)
            g_string_append_c(out, ',');
        fennel_json_string(out, t->candidates[k].label);
    }
    g_string_append(out, "],\"cells\":[");
    for (guint c = 0; c < t->n_ranks * t->n_sizes; c++) {
        const FennelTuneCell *cell = &t->cells[c];
        g_string_append_printf(out,
                               "%s\n{\"ranks\":%" G_GINT64_FORMAT
                               ",\"size_bytes\":%" G_GINT64_FORMAT ",\"winner\":",
                               c ? "," : "", cell->ranks, cell->size);
        fennel_json_string(out, t->candidates[cell->winner].label);
        g_string_append(out, ",\"winner_ns\":");
        append_ns(out, cell->ns[cell->winner]);
        if (cell->runner_up != G_MAXUINT) {
            g_string_append(out, ",\"runner_up\":");
            fennel_json_string(out, t->candidates[cell->runner_up].label);
            g_string_append(out, ",\"runner_up_ns\":");
            append_ns(out, cell->ns[cell->runner_up]);
            g_string_append(out, ",\"margin_ns\":");
            append_ns(out, cell->ns[cell->runner_up] - cell->ns[cell->winner]);
            if (isfinite(margin_percent(cell)))
                g_string_append_printf(out, ",\"margin_percent\":%.2f", margin_percent(cell));
            else
                g_string_append(out, ",\"margin_percent\":null");
        } else
            g_string_append(out, ",\"runner_up\":null,\"runner_up_ns\":null,\"margin_ns\":null,"
                                 "\"margin_percent\":null");
        g_string_append(out, ",\"times_ns\":{");
        gboolean first = TRUE;
        for (guint k = 0; k < t->n_candidates; k++) {
            if (isnan(cell->ns[k]))
                continue;
            g_string_append(out, first ? "" : ",");
            fennel_json_string(out, t->candidates[k].label);
            g_string_append_c(out, ':');
            append_ns(out, cell->ns[k]);
            first = FALSE;
        }
        g_string_append(out, "},\"skipped\":[");
        first = TRUE;
        for (guint k = 0; k < t->n_candidates; k++)
            if (isnan(cell->ns[k])) {
                g_string_append(out, first ? "" : ",");
                fennel_json_string(out, t->candidates[k].label);
                first = FALSE;
            }
        g_string_append_c(out, ']');
        if (t->library) {
            g_string_append(out, ",\"library_algorithm\":");
            if (cell->baseline_algorithm)
                fennel_json_string(out, cell->baseline_algorithm);
            else
                g_string_append(out, "null");
            if (!isnan(cell->baseline_ns)) {
                g_string_append(out, ",\"library_ns\":");
                append_ns(out, cell->baseline_ns);
                g_string_append_printf(out, ",\"library_over_winner\":%.4f",
                                       library_over_winner(cell));
            } else
                g_string_append(out, ",\"library_ns\":null,\"library_over_winner\":null");
        }
        g_string_append_c(out, '}');
    }
    g_string_append(out, "\n]}\n");
}

FennelCanvas *fennel_tune_heatmap(const FennelTune *t, double width, double height)
{
    guint n = t->n_ranks * t->n_sizes;
    char **columns = g_new0(char *, t->n_sizes + 1);
    char **rows = g_new0(char *, t->n_ranks + 1);
    char **labels = g_new0(char *, n + 1);
    char **tooltips = g_new0(char *, n + 1);
    char **categories = g_new0(char *, t->n_candidates + 1);
    guint *cells = g_new(guint, n);
    for (guint s = 0; s < t->n_sizes; s++)
        columns[s] = fennel_tune_size_text(t->sizes[s]);
    for (guint r = 0; r < t->n_ranks; r++)
        rows[r] = g_strdup_printf("%" G_GINT64_FORMAT, t->ranks[r]);
    /* The legend names the candidates that win somewhere, in the candidates' order. */
    guint *category = g_new(guint, t->n_candidates), n_categories = 0;
    for (guint k = 0; k < t->n_candidates; k++) {
        category[k] = G_MAXUINT;
        for (guint c = 0; c < n && category[k] == G_MAXUINT; c++)
            if (t->cells[c].winner == k) {
                category[k] = n_categories;
                categories[n_categories++] = t->candidates[k].label;
            }
    }
    for (guint c = 0; c < n; c++) {
        const FennelTuneCell *cell = &t->cells[c];
        cells[c] = category[cell->winner];
        GString *tip = g_string_new(NULL);
        g_string_append_printf(tip, "%" G_GINT64_FORMAT " ranks, %s: %s, ", cell->ranks,
                               columns[c % t->n_sizes], t->candidates[cell->winner].label);
        append_ns(tip, cell->ns[cell->winner]);
        g_string_append(tip, " ns");
        if (cell->runner_up != G_MAXUINT) {
            if (isfinite(margin_percent(cell))) {
                labels[c] = g_strdup_printf("+%.1f%%", margin_percent(cell));
                g_string_append_printf(tip, "; %s %.2f%% slower",
                                       t->candidates[cell->runner_up].label, margin_percent(cell));
            } else {
                /* A winner of 0 ns: the margin in ns, not a percentage of nothing. */
                GString *margin = g_string_new("+");
                append_ns(margin, cell->ns[cell->runner_up] - cell->ns[cell->winner]);
                g_string_append(margin, " ns");
                labels[c] = g_strdup(margin->str);
                g_string_append_printf(tip, "; %s %s slower", t->candidates[cell->runner_up].label,
                                       margin->str + 1);
                g_string_free(margin, TRUE);
            }
        } else
            labels[c] = g_strdup("");
        tooltips[c] = g_string_free(tip, FALSE);
    }
    char *title = g_strdup_printf("fastest %s (cell: margin over the runner-up)", t->collective);
    FennelHeatmap h = {.title = title,
                       .x_label = "message size",
                       .y_label = "ranks",
                       .columns = (const char *const *)columns,
                       .nx = t->n_sizes,
                       .rows = (const char *const *)rows,
                       .ny = t->n_ranks,
                       .categories = (const char *const *)categories,
                       .n_categories = n_categories,
                       .cells = cells,
                       .labels = (const char *const *)labels,
                       .tooltips = (const char *const *)tooltips,
                       .width = width,
                       .height = height};
    FennelCanvas *canvas = fennel_heatmap_draw(&h);
    g_free(title);
    g_strfreev(columns);
    g_strfreev(rows);
    g_strfreev(labels);
    g_strfreev(tooltips);
    g_free(categories);
    g_free(category);
    g_free(cells);
    return canvas;
}
