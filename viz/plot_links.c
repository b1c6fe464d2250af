/* `fennel plot LINKS.csv`: the link utilisation of a run's --links CSV per level, as a bar
 * chart (docs/TOPOLOGY.md). Each level's bar is the mean utilisation of its links that
 * carried at least one message; a dark tick marks its busiest link. A file by intervals
 * (--link-interval) is drawn as a heat map instead: a row per link, a cell per interval. */
#include "errors.h"
#include "plot.h"

#include <string.h>

#define FONT       13.0
#define TICK_FONT  11.0
#define AXIS       0x333333
#define GRID       0xe4e4e4
#define BAR_COLOUR 0x0072b2

gboolean fennel_plot_is_links(const char *text, gsize length)
{
    static const char header[] = "link,from,to,level,";
    return length >= sizeof header - 1 && strncmp(text, header, sizeof header - 1) == 0;
}

typedef struct {
    char *level;
    double sum, max;
    guint used, links;
} Level;

/* The colour of a utilisation u in [0, 1]: from white to dark blue, linearly per channel. */
static guint32 heat(double u)
{
    static const guint32 lo = 0xf7fbff, hi = 0x08306b;
    u = CLAMP(u, 0.0, 1.0);
    guint32 c = 0;
    for (int shift = 16; shift >= 0; shift -= 8) {
        double a = (lo >> shift) & 0xff, b = (hi >> shift) & 0xff;
        c |= (guint32)(a + (b - a) * u + 0.5) << shift;
    }
    return c;
}

/* The heat map of a --links file by intervals: links in the file's order, top to bottom;
 * time left to right; a cell per interval with busy time, coloured by its utilisation. */
static FennelCanvas *heat_map(const char *name, const char *text, gsize length, GPtrArray *rows,
                              GArray *rows_at, double width, double height, GError **error)
{
    char **head = g_ptr_array_index(rows, 0);
    int col[7];
    static const char *const need[7] = {"link",    "from",     "to",         "level",
                                        "from_ns", "until_ns", "utilisation"};
    for (int k = 0; k < 7; k++) {
        col[k] = -1;
        for (int i = 0; head[i]; i++)
            if (strcmp(head[i], need[k]) == 0)
                col[k] = i;
        if (col[k] < 0) {
            fennel_error_at(error, name, 1, 1,
                            "a --links CSV by intervals needs the columns link, from, to, "
                            "level, from_ns, until_ns and utilisation");
            return NULL;
        }
    }
    /* Parse first: links (their first row) and every cell's numbers. */
    GArray *first = g_array_new(FALSE, FALSE, sizeof(guint)); /* each link's first row */
    double *num = g_new0(double, (gsize)rows->len * 3);       /* from, until, utilisation */
    double end = 0;
    gboolean ok = TRUE;
    for (guint r = 1; ok && r < rows->len; r++) {
        char **row = g_ptr_array_index(rows, r);
        if (g_strv_length(row) <= 6u || g_strv_length(row) <= (guint)col[6])
            continue;
        for (int k = 0; k < 3 && ok; k++) {
            const int c = col[4 + k];
            char *stop;
            double v = g_ascii_strtod(row[c], &stop);
            if (*row[c] == '\0' || *stop != '\0' || v < 0) {
                FennelCsvRow at = g_array_index(rows_at, FennelCsvRow, r);
                fennel_error_at(error, name, at.line,
                                fennel_csv_column(text, length, at.offset, (guint)c),
                                "%s: expected a number >= 0, got '%s'", need[4 + k], row[c]);
                ok = FALSE;
            }
            num[r * 3 + k] = v;
        }
        end = MAX(end, num[r * 3 + 1]);
        const char *prev = first->len
                               ? ((char **)g_ptr_array_index(
                                     rows, g_array_index(first, guint, first->len - 1)))[col[0]]
                               : NULL;
        if (prev == NULL || strcmp(prev, row[col[0]]) != 0)
            g_array_append_val(first, r);
    }
    if (ok && (first->len == 0 || end <= 0)) {
        fennel_error_at(error, name, 1, 1, "no links in the file");
        ok = FALSE;
    }
    FennelCanvas *c = NULL;
    if (ok) {
        /* Names as from->to, in a margin as wide as the longest (at most a third). */
        double label = 0;
        const double row_h = (height - 110) / first->len;
        const gboolean named = row_h >= 9;
        for (guint i = 0; named && i < first->len; i++) {
            char **row = g_ptr_array_index(rows, g_array_index(first, guint, i));
            char *s = g_strdup_printf("%s->%s", row[col[1]], row[col[2]]);
            label = MAX(label, fennel_canvas_text_width(s, TICK_FONT, FALSE));
            g_free(s);
        }
        double left = MIN(20 + label + 8, width / 3), right = width - 20, top = 50,
               bottom = height - 60;
        double h = (bottom - top) / first->len;
        c = fennel_canvas_new(width, height);
        FennelPaint axis = fennel_paint_stroke(AXIS, 1);
        fennel_canvas_text(c, 20, 24,
                           "link utilisation over time (a row per link, white idle, "
                           "dark blue busy all the interval)",
                           FONT, TRUE, FENNEL_ANCHOR_START, AXIS);
        for (guint i = 0; i < first->len; i++) {
            const guint from_row = g_array_index(first, guint, i),
                        to_row =
                            i + 1 < first->len ? g_array_index(first, guint, i + 1) : rows->len;
            char **row = g_ptr_array_index(rows, from_row);
            char title[160];
            g_snprintf(title, sizeof title, "link %s: %s->%s (%s)", row[col[0]], row[col[1]],
                       row[col[2]], row[col[3]]);
            const char *attrs[] = {"data-link", row[col[0]], NULL};
            fennel_canvas_group_begin(c, "link", attrs, title);
            const double y = top + h * i;
            for (guint r = from_row; r < to_row; r++) {
                const double a = num[r * 3], b = num[r * 3 + 1], u = num[r * 3 + 2];
                if (u <= 0 || b <= a)
                    continue;
                FennelPaint fill = fennel_paint_fill(heat(u));
                const double x0 = left + a / end * (right - left),
                             x1 = left + MIN(b, end) / end * (right - left);
                fennel_canvas_rect(c, x0, y, x1 - x0, h, &fill);
            }
            if (named) {
                char *s = g_strdup_printf("%s->%s", row[col[1]], row[col[2]]);
                fennel_canvas_text(c, left - 8, y + h / 2 + TICK_FONT * 0.35, s, TICK_FONT, FALSE,
                                   FENNEL_ANCHOR_END, AXIS);
                g_free(s);
            }
            fennel_canvas_group_end(c);
        }
        double ticks[64];
        guint n = fennel_plot_ticks(0, end, FALSE, 6, ticks);
        char buf[32];
        for (guint i = 0; i < n; i++) {
            const double x = left + ticks[i] / end * (right - left);
            fennel_canvas_line(c, x, bottom, x, bottom + 4, &axis);
            g_snprintf(buf, sizeof buf, "%g", ticks[i]);
            fennel_canvas_text(c, x, bottom + 8 + TICK_FONT, buf, TICK_FONT, FALSE,
                               FENNEL_ANCHOR_MIDDLE, AXIS);
        }
        fennel_canvas_rect(c, left, top, right - left, bottom - top, &axis);
        fennel_canvas_text(c, left + (right - left) / 2, height - 18, "time (ns)", FONT, TRUE,
                           FENNEL_ANCHOR_MIDDLE, AXIS);
    }
    g_array_free(first, TRUE);
    g_free(num);
    return c;
}

FennelCanvas *fennel_plot_links(const char *name, const char *text, gsize length, double width,
                                double height, GError **error)
{
    GArray *rows_at = NULL;
    GPtrArray *rows = fennel_csv_parse(name, text, length, &rows_at, error);
    if (rows == NULL)
        return NULL;
    char **head = g_ptr_array_index(rows, 0);
    for (int i = 0; head[i]; i++)
        if (strcmp(head[i], "from_ns") == 0) {
            FennelCanvas *c = heat_map(name, text, length, rows, rows_at, width, height, error);
            g_ptr_array_free(rows, TRUE);
            g_array_free(rows_at, TRUE);
            return c;
        }
    int level_col = -1, use_col = -1, msg_col = -1;
    for (int i = 0; head[i]; i++) {
        if (strcmp(head[i], "level") == 0)
            level_col = i;
        else if (strcmp(head[i], "utilisation") == 0)
            use_col = i;
        else if (strcmp(head[i], "messages") == 0)
            msg_col = i;
    }
    GArray *levels = g_array_new(FALSE, TRUE, sizeof(Level));
    gboolean ok = level_col >= 0 && use_col >= 0 && msg_col >= 0;
    if (!ok)
        fennel_error_at(error, name, 1, 1,
                        "a --links CSV needs the columns level, messages and "
                        "utilisation");
    for (guint r = 1; ok && r < rows->len; r++) {
        char **row = g_ptr_array_index(rows, r);
        if (g_strv_length(row) <= (guint)MAX(level_col, MAX(use_col, msg_col)))
            continue;
        char *end;
        double use = g_ascii_strtod(row[use_col], &end);
        if (*row[use_col] == '\0' || *end != '\0' || use < 0) {
            FennelCsvRow at = g_array_index(rows_at, FennelCsvRow, r);
            fennel_error_at(error, name, at.line,
                            fennel_csv_column(text, length, at.offset, (guint)use_col),
                            "utilisation: expected a number >= 0, got '%s'", row[use_col]);
            ok = FALSE;
            break;
        }
        Level *l = NULL;
        for (guint i = 0; i < levels->len && l == NULL; i++) {
            if (strcmp(g_array_index(levels, Level, i).level, row[level_col]) == 0)
                l = &g_array_index(levels, Level, i);
        }
        if (l == NULL) {
            Level fresh = {.level = g_strdup(row[level_col])};
            g_array_append_val(levels, fresh);
            l = &g_array_index(levels, Level, levels->len - 1);
        }
        l->links++;
        if (strcmp(row[msg_col], "0") != 0) {
            l->used++;
            l->sum += use;
            l->max = MAX(l->max, use);
        }
    }
    if (ok && levels->len == 0) {
        fennel_error_at(error, name, 1, 1, "no links in the file");
        ok = FALSE;
    }
    FennelCanvas *c = NULL;
    if (ok) {
        double top = 50, bottom = height - 60, left = 70, right = width - 20;
        double hi = 1.0;
        for (guint i = 0; i < levels->len; i++)
            hi = MAX(hi, g_array_index(levels, Level, i).max);
        c = fennel_canvas_new(width, height);
        FennelPaint grid = fennel_paint_stroke(GRID, 1), axis = fennel_paint_stroke(AXIS, 1);
        fennel_canvas_text(c, left, 24,
                           "link utilisation per level (bar: mean of the links used, "
                           "tick: busiest)",
                           FONT, TRUE, FENNEL_ANCHOR_START, AXIS);
        double ticks[64];
        guint n = fennel_plot_ticks(0, hi, FALSE, 6, ticks);
        char buf[32];
        for (guint i = 0; i < n; i++) {
            double y = bottom - ticks[i] / hi * (bottom - top);
            fennel_canvas_line(c, left, y, right, y, &grid);
            g_snprintf(buf, sizeof buf, "%g%%", ticks[i] * 100);
            fennel_canvas_text(c, left - 8, y + TICK_FONT * 0.35, buf, TICK_FONT, FALSE,
                               FENNEL_ANCHOR_END, AXIS);
        }
        double slot = (right - left) / levels->len;
        for (guint i = 0; i < levels->len; i++) {
            const Level *l = &g_array_index(levels, Level, i);
            double mean = l->used ? l->sum / l->used : 0;
            char used[64], title[160];
            g_snprintf(used, sizeof used, "%u", l->used);
            g_snprintf(title, sizeof title,
                       "%s: %u of %u links used, mean utilisation %.1f%%, busiest %.1f%%", l->level,
                       l->used, l->links, mean * 100, l->max * 100);
            const char *attrs[] = {"data-level", l->level, "data-links-used", used, NULL};
            fennel_canvas_group_begin(c, "bar", attrs, title);
            double x = left + slot * i + slot * 0.2, w = slot * 0.6;
            double y = bottom - mean / hi * (bottom - top);
            FennelPaint fill = fennel_paint_fill(BAR_COLOUR);
            fennel_canvas_rect(c, x, y, w, bottom - y, &fill);
            double ym = bottom - l->max / hi * (bottom - top);
            FennelPaint tick = fennel_paint_stroke(AXIS, 2.5);
            fennel_canvas_line(c, x - 4, ym, x + w + 4, ym, &tick);
            fennel_canvas_text(c, x + w / 2, bottom + 8 + TICK_FONT, l->level, TICK_FONT, FALSE,
                               FENNEL_ANCHOR_MIDDLE, AXIS);
            fennel_canvas_group_end(c);
        }
        fennel_canvas_rect(c, left, top, right - left, bottom - top, &axis);
        fennel_canvas_text(c, left + (right - left) / 2, height - 18, "level", FONT, TRUE,
                           FENNEL_ANCHOR_MIDDLE, AXIS);
    }
    for (guint i = 0; i < levels->len; i++)
        g_free(g_array_index(levels, Level, i).level);
    g_array_free(levels, TRUE);
    g_ptr_array_free(rows, TRUE);
    g_array_free(rows_at, TRUE);
    return c;
}
