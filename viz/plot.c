/* Drawing a line chart of sweep results on the canvas (plot.h). */
#include "plot.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define FONT       12.0
#define TICK_FONT  11.0
#define MARGIN     16.0
#define MAX_MARKED 100 /* points per series beyond which markers are left out */

/* Ten distinct colours (Tableau 10); after ten groups the dash pattern changes too. */
/* The palettes of --style: Tableau 10 (the default), Okabe and Ito's eight colours that
 * stay apart for the common colour-vision deficiencies, and greys for print (the line
 * styles then tell the groups apart). */
static const FennelColour tableau[] = {0x4e79a7, 0xf28e2b, 0xe15759, 0x76b7b2, 0x59a14f,
                                       0xedc948, 0xb07aa1, 0xff9da7, 0x9c755f, 0xbab0ac};
static const FennelColour okabe_ito[] = {0xe69f00, 0x56b4e9, 0x009e73, 0xf0e442,
                                         0x0072b2, 0xd55e00, 0xcc79a7, 0x000000};
static const FennelColour greys[] = {0x000000, 0x555555, 0x999999};
static const struct {
    const char *name;
    const FennelColour *colours;
    guint n;
} palettes[] = {
    {"tableau", tableau, G_N_ELEMENTS(tableau)},
    {"okabe-ito", okabe_ito, G_N_ELEMENTS(okabe_ito)},
    {"grey", greys, G_N_ELEMENTS(greys)},
};

gboolean fennel_plot_style_known(const char *style)
{
    for (guint i = 0; i < G_N_ELEMENTS(palettes); i++)
        if (strcmp(palettes[i].name, style) == 0)
            return TRUE;
    return FALSE;
}

/* The palette of a style (the default for NULL). */
static guint palette_index(const char *style)
{
    for (guint i = 0; style && i < G_N_ELEMENTS(palettes); i++)
        if (strcmp(palettes[i].name, style) == 0)
            return i;
    return 0;
}

#define GRID_COLOUR 0xe6e6e6
#define AXIS_COLOUR 0x333333

char *fennel_plot_label(const char *column)
{
    static const struct {
        const char *suffix, *unit;
    } units[] = {
        {"_ns_per_byte", "ns/B"},
        {"_bytes_per_ns", "B/ns"},
        {"_ns", "ns"},
        {"_ps", "ps"},
        {"_us", "µs"},
        {"_bytes", "bytes"},
        {"_seconds", "s"},
        {"_percent", "%"},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(units); i++) {
        size_t n = strlen(column), k = strlen(units[i].suffix);
        if (n > k && strcmp(column + n - k, units[i].suffix) == 0)
            return g_strdup_printf("%.*s (%s)", (int)(n - k), column, units[i].unit);
    }
    return g_strdup(column);
}

/* Linear ticks: multiples of the round step (1, 2 or 5 times a power of ten) that gives
 * at most max_ticks of them. */
static double linear_step(double lo, double hi, guint max_ticks)
{
    double raw = (hi - lo) / MAX(max_ticks, 1);
    double mag = pow(10, floor(log10(raw)));
    const double steps[] = {1, 2, 5, 10};
    for (size_t i = 0; i < G_N_ELEMENTS(steps); i++) {
        if (steps[i] * mag >= raw * (1 - 1e-9))
            return steps[i] * mag;
    }
    return 10 * mag;
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

guint fennel_plot_ticks(double lo, double hi, gboolean log_axis, guint max_ticks, double ticks[64])
{
    guint n = 0;
    double eps = (hi - lo) * 1e-9;
    if (log_axis && lo > 0) {
        int a = (int)ceil(log10(lo) - 1e-9), b = (int)floor(log10(hi) + 1e-9);
        /* Too many decades: every second, fifth, ... power of ten. */
        int every = 1;
        while ((b - a) / every + 1 > (int)MAX(max_ticks, 2))
            every++;
        for (int k = a; k <= b && n < 64; k += every)
            ticks[n++] = pow(10, k);
        if (n < 3) {
            for (int k = a - 1; k <= b && n < 64; k++) {
                for (int m = 2; m <= 5; m += 3) {
                    double v = m * pow(10, k);
                    if (v >= lo - eps && v <= hi + eps && n < 64)
                        ticks[n++] = v;
                }
            }
            qsort(ticks, n, sizeof(double), compare_double);
        }
        if (n >= 2)
            return n;
        n = 0;
    }
    double step = linear_step(lo, hi, max_ticks);
    for (double v = ceil(lo / step - 1e-9) * step; v <= hi + eps && n < 64; v += step)
        ticks[n++] = fabs(v) < step * 1e-9 ? 0 : v;
    return n;
}

static void fennel_plot_range(double *lo, double *hi, gboolean log_axis)
{
    if (log_axis) {
        if (*lo == *hi) {
            *lo /= 2;
            *hi *= 2;
        }
        double margin = pow(*hi / *lo, 0.03);
        *lo /= margin;
        *hi *= margin;
        return;
    }
    if (*lo == *hi) {
        double pad = *lo == 0 ? 1 : fabs(*lo) * 0.1;
        *lo -= pad;
        *hi += pad;
        return;
    }
    /* 3 % of the span on each side, but no negative room under data that are not. */
    double pad = (*hi - *lo) * 0.03;
    *lo = *lo >= 0 && *lo - pad < 0 ? 0 : *lo - pad;
    *hi += pad;
}

/* A tick label: as many decimals as the step needs on a linear axis (step > 0), the
 * shortest exact form on a logarithmic one, exponents only for huge or tiny values. */
/* What a column counts, for readable labels on a logarithmic axis: sizes and rank counts
 * take powers of two ("1 KiB", "2^10"), times in ns SI units ("1 µs"). */
typedef enum { AXIS_PLAIN, AXIS_BYTES, AXIS_RANKS, AXIS_NS } AxisKind;

static AxisKind axis_kind(const char *column)
{
    if (g_str_has_suffix(column, "_bytes") || strcmp(column, "bytes") == 0)
        return AXIS_BYTES;
    if (strcmp(column, "ranks") == 0)
        return AXIS_RANKS;
    if (g_str_has_suffix(column, "_ns"))
        return AXIS_NS;
    return AXIS_PLAIN;
}

/* Powers of two within [lo, hi] (every k-th, at most max_ticks), or 0 when fewer than 2. */
static guint binary_ticks(double lo, double hi, guint max_ticks, double ticks[64])
{
    int a = (int)ceil(log2(lo) - 1e-9), b = (int)floor(log2(hi) + 1e-9);
    if (b - a < 1)
        return 0;
    int every = 1;
    while ((b - a) / every + 1 > (int)MAX(max_ticks, 2))
        every++;
    guint n = 0;
    for (int k = a; k <= b && n < 64; k += every)
        ticks[n++] = ldexp(1, k);
    return n;
}

/* A label of a logarithmic axis of that kind; FALSE for a plain number. */
static gboolean log_label(AxisKind kind, double v, char buf[32])
{
    int k = (int)lround(log2(v));
    gboolean power = kind != AXIS_NS && k >= 0 && ldexp(1, k) == v;
    if (kind == AXIS_BYTES && power) {
        static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
        int u = MIN(k / 10, 5);
        g_snprintf(buf, 32, "%.0f %s", ldexp(1, k - 10 * u), units[u]);
        return TRUE;
    }
    if (kind == AXIS_RANKS && power) {
        if (k < 10)
            g_snprintf(buf, 32, "%.0f", v);
        else
            g_snprintf(buf, 32, "2^%d", k);
        return TRUE;
    }
    if (kind == AXIS_NS && v > 0) {
        static const struct {
            double scale;
            const char *name;
        } si[] = {{1e9, "s"}, {1e6, "ms"}, {1e3, "\xc2\xb5s"}, {1, "ns"}, {1e-3, "ps"}};
        for (size_t i = 0; i < G_N_ELEMENTS(si); i++) {
            if (v >= si[i].scale * (1 - 1e-9) || i + 1 == G_N_ELEMENTS(si)) {
                g_snprintf(buf, 32, "%g %s", v / si[i].scale, si[i].name);
                return TRUE;
            }
        }
    }
    return FALSE;
}

static void format_tick(double v, double step, char buf[32])
{
    if (v != 0 && (fabs(v) >= 1e9 || fabs(v) < 1e-4)) {
        g_snprintf(buf, 32, "%g", v);
    } else if (step <= 0) {
        g_snprintf(buf, 32, "%.10g", v);
    } else {
        int decimals = step < 1 ? (int)ceil(-log10(step) - 1e-9) : 0;
        g_snprintf(buf, 32, "%.*f", decimals, v);
    }
}

typedef struct {
    double left, top, width, height;
    double xlo, xhi, ylo, yhi;
    gboolean logx, logy;
    guint palette; /* index into palettes */
} Frame;

static double map(double v, double lo, double hi, gboolean log_axis)
{
    return log_axis ? (log10(v) - log10(lo)) / (log10(hi) - log10(lo)) : (v - lo) / (hi - lo);
}

static double px(const Frame *f, double x)
{
    return f->left + map(x, f->xlo, f->xhi, f->logx) * f->width;
}

static double py(const Frame *f, double y)
{
    return f->top + f->height - map(y, f->ylo, f->yhi, f->logy) * f->height;
}

static void data_range(const FennelPlotData *d, gboolean box, Frame *f)
{
    f->xlo = f->ylo = INFINITY;
    f->xhi = f->yhi = -INFINITY;
    for (guint s = 0; s < d->n_series; s++) {
        for (guint i = 0; i < d->series[s].n_points; i++) {
            const FennelPlotPoint *p = &d->series[s].points[i];
            f->xlo = MIN(f->xlo, p->x);
            f->xhi = MAX(f->xhi, p->x);
            f->ylo = MIN(f->ylo, p->min);
            f->yhi = MAX(f->yhi, p->max);
        }
    }
    if (box) {
        /* Room for the outermost boxes. */
        double pad = f->logx ? 1.25 : MAX((f->xhi - f->xlo) * 0.08, 0.5);
        f->xlo = f->logx ? f->xlo / pad : f->xlo - pad;
        f->xhi = f->logx ? f->xhi * pad : f->xhi + pad;
    }
    if (d->bin_width > 0) {
        /* The bins' edges, and counts from 0. */
        f->xlo -= d->bin_width / 2;
        f->xhi += d->bin_width / 2;
        f->ylo = 0;
    }
    fennel_plot_range(&f->xlo, &f->xhi, f->logx);
    /* A distribution goes from 0 to 1. */
    if (d->n_series > 0 && d->series[0].steps) {
        f->ylo = 0;
        f->yhi = 1;
    } else {
        fennel_plot_range(&f->ylo, &f->yhi, f->logy);
    }
}

/* The step between the ticks, for the number of decimals in their labels. */
static double tick_step(const double *ticks, guint n)
{
    double step = INFINITY;
    for (guint i = 1; i < n; i++)
        step = MIN(step, ticks[i] - ticks[i - 1]);
    return isfinite(step) ? step : 1;
}

static void draw_axes(FennelCanvas *c, const Frame *f, const FennelPlotOptions *o, const double *xt,
                      guint nx, const double *yt, guint ny)
{
    FennelPaint grid = fennel_paint_stroke(GRID_COLOUR, 1);
    FennelPaint axis = fennel_paint_stroke(AXIS_COLOUR, 1);
    char buf[32];
    fennel_canvas_group_begin(c, "axis", (const char *const[]){"data-axis", "x", NULL}, NULL);
    double xs = f->logx ? 0 : tick_step(xt, nx);
    for (guint i = 0; i < nx; i++) {
        double x = px(f, xt[i]);
        fennel_canvas_line(c, x, f->top, x, f->top + f->height, &grid);
        fennel_canvas_line(c, x, f->top + f->height, x, f->top + f->height + 5, &axis);
        if (!(f->logx && log_label(axis_kind(o->x), xt[i], buf)))
            format_tick(xt[i], xs, buf);
        fennel_canvas_text(c, x, f->top + f->height + 8 + TICK_FONT, buf, TICK_FONT, FALSE,
                           FENNEL_ANCHOR_MIDDLE, AXIS_COLOUR);
    }
    char *label = fennel_plot_label(o->x);
    fennel_canvas_text(c, f->left + f->width / 2, f->top + f->height + 16 + TICK_FONT + FONT, label,
                       FONT, TRUE, FENNEL_ANCHOR_MIDDLE, AXIS_COLOUR);
    g_free(label);
    fennel_canvas_group_end(c);

    fennel_canvas_group_begin(c, "axis", (const char *const[]){"data-axis", "y", NULL}, NULL);
    double ys = f->logy ? 0 : tick_step(yt, ny);
    for (guint i = 0; i < ny; i++) {
        double y = py(f, yt[i]);
        fennel_canvas_line(c, f->left, y, f->left + f->width, y, &grid);
        fennel_canvas_line(c, f->left - 5, y, f->left, y, &axis);
        if (!(f->logy && log_label(axis_kind(o->y), yt[i], buf)))
            format_tick(yt[i], ys, buf);
        fennel_canvas_text(c, f->left - 8, y + TICK_FONT * 0.35, buf, TICK_FONT, FALSE,
                           FENNEL_ANCHOR_END, AXIS_COLOUR);
    }
    label = fennel_plot_label(o->y);
    fennel_canvas_text(c, f->left, f->top - 10, label, FONT, TRUE, FENNEL_ANCHOR_START,
                       AXIS_COLOUR);
    g_free(label);
    fennel_canvas_group_end(c);
    FennelPaint frame = axis;
    fennel_canvas_rect(c, f->left, f->top, f->width, f->height, &frame);
}

static FennelPaint series_paint(const Frame *f, guint s)
{
    guint n = palettes[f->palette].n;
    FennelPaint p = fennel_paint_stroke(palettes[f->palette].colours[s % n], 2);
    p.dash = (FennelDash)((s / n) % 3);
    return p;
}

static void draw_series(FennelCanvas *c, const Frame *f, const FennelPlotSeries *s, guint index)
{
    const char *attrs[] = {"data-series", s->name, NULL};
    char *title = g_strdup_printf("%s: %u points", s->name, s->n_points);
    fennel_canvas_group_begin(c, "series", attrs, title);
    g_free(title);
    FennelPaint line = series_paint(f, index);
    if (s->band) {
        /* The band: along the minima, back along the maxima. */
        double *xy = g_new(double, 4 * s->n_points);
        for (guint i = 0; i < s->n_points; i++) {
            const FennelPlotPoint *p = &s->points[i];
            xy[2 * i] = px(f, p->x);
            xy[2 * i + 1] = py(f, p->min);
            guint k = 2 * s->n_points - 1 - i;
            xy[2 * k] = px(f, p->x);
            xy[2 * k + 1] = py(f, p->max);
        }
        FennelPaint band = {.fill = line.stroke, .fill_alpha = 0.2};
        fennel_canvas_group_begin(c, "band", NULL, "minimum to maximum");
        fennel_canvas_polygon(c, xy, 2 * s->n_points, &band);
        fennel_canvas_group_end(c);
        g_free(xy);
    }
    if (s->steps && s->n_points > 0)
        /* Up from 0 at the smallest value, then along and up at each next one. */
        fennel_canvas_line(c, px(f, s->points[0].x), py(f, f->ylo), px(f, s->points[0].x),
                           py(f, s->points[0].median), &line);
    for (guint i = 1; i < s->n_points; i++) {
        double x0 = px(f, s->points[i - 1].x), y0 = py(f, s->points[i - 1].median);
        double x1 = px(f, s->points[i].x), y1 = py(f, s->points[i].median);
        if (s->steps) {
            fennel_canvas_line(c, x0, y0, x1, y0, &line);
            fennel_canvas_line(c, x1, y0, x1, y1, &line);
        } else {
            fennel_canvas_line(c, x0, y0, x1, y1, &line);
        }
    }
    if (s->n_points <= MAX_MARKED) {
        FennelPaint dot = fennel_paint_fill(line.stroke);
        for (guint i = 0; i < s->n_points; i++)
            fennel_canvas_circle(c, px(f, s->points[i].x), py(f, s->points[i].median), 2.5, &dot);
    }
    fennel_canvas_group_end(c);
}

/* Opens a group's <g class="series"> for boxes or bars ("NAME: N what") and gives its
 * outline (solid, of `width`) and its translucent fill. */
static void begin_shapes(FennelCanvas *c, const Frame *f, const FennelPlotSeries *series, guint s,
                         const char *what, double width, double alpha, FennelPaint *line,
                         FennelPaint *fill)
{
    const char *attrs[] = {"data-series", series->name, NULL};
    char *title = g_strdup_printf("%s: %u %s", series->name, series->n_points, what);
    fennel_canvas_group_begin(c, "series", attrs, title);
    g_free(title);
    *line = series_paint(f, s);
    line->dash = FENNEL_DASH_SOLID;
    line->stroke_width = width;
    *fill = (FennelPaint){.fill = line->stroke, .fill_alpha = alpha};
}

/* Box plots: per x, one box per group side by side, as wide as the closest two x allow. */
static void draw_boxes(FennelCanvas *c, const Frame *f, const FennelPlotData *d)
{
    double gap = f->width / 4;
    for (guint s = 0; s < d->n_series; s++)
        for (guint i = 1; i < d->series[s].n_points; i++)
            gap = MIN(gap, px(f, d->series[s].points[i].x) - px(f, d->series[s].points[i - 1].x));
    double each = MAX(gap * 0.7 / MAX(d->n_series, 1u), 2);
    for (guint s = 0; s < d->n_series; s++) {
        const FennelPlotSeries *series = &d->series[s];
        FennelPaint line, fill;
        begin_shapes(c, f, series, s, "boxes", 2, 0.25, &line, &fill);
        for (guint i = 0; i < series->n_points; i++) {
            const FennelPlotPoint *p = &series->points[i];
            double mid = px(f, p->x) + (s - (d->n_series - 1) / 2.0) * each;
            double left = mid - each * 0.4, width = each * 0.8;
            char *tip =
                g_strdup_printf("%s at %g: min %g, quartiles %g / %g / %g, max %g (%u rows)",
                                series->name, p->x, p->min, p->q1, p->median, p->q3, p->max, p->n);
            fennel_canvas_group_begin(c, "box", NULL, tip);
            g_free(tip);
            fennel_canvas_line(c, mid, py(f, p->min), mid, py(f, p->q1), &line);
            fennel_canvas_line(c, mid, py(f, p->q3), mid, py(f, p->max), &line);
            fennel_canvas_line(c, left, py(f, p->min), left + width, py(f, p->min), &line);
            fennel_canvas_line(c, left, py(f, p->max), left + width, py(f, p->max), &line);
            fennel_canvas_rect(c, left, py(f, p->q3), width, py(f, p->q1) - py(f, p->q3), &fill);
            fennel_canvas_rect(c, left, py(f, p->q3), width, py(f, p->q1) - py(f, p->q3), &line);
            fennel_canvas_line(c, left, py(f, p->median), left + width, py(f, p->median), &line);
            fennel_canvas_group_end(c);
        }
        fennel_canvas_group_end(c);
    }
}

/* Histograms: a translucent bar per bin and group, over each other. */
static void draw_bars(FennelCanvas *c, const Frame *f, const FennelPlotData *d)
{
    for (guint s = 0; s < d->n_series; s++) {
        const FennelPlotSeries *series = &d->series[s];
        FennelPaint line, fill;
        begin_shapes(c, f, series, s, "bins", 1, 0.35, &line, &fill);
        for (guint i = 0; i < series->n_points; i++) {
            const FennelPlotPoint *p = &series->points[i];
            if (p->n == 0)
                continue;
            double left = px(f, p->x - d->bin_width / 2), right = px(f, p->x + d->bin_width / 2);
            char *tip = g_strdup_printf("%s: %u row%s from %g to %g", series->name, p->n,
                                        p->n == 1 ? "" : "s", p->x - d->bin_width / 2,
                                        p->x + d->bin_width / 2);
            fennel_canvas_group_begin(c, "bar", NULL, tip);
            g_free(tip);
            fennel_canvas_rect(c, left, py(f, p->n), right - left, py(f, 0) - py(f, p->n), &fill);
            fennel_canvas_rect(c, left, py(f, p->n), right - left, py(f, 0) - py(f, p->n), &line);
            fennel_canvas_group_end(c);
        }
        fennel_canvas_group_end(c);
    }
}

/* The legend's width: its longest entry, a sample line and some room. */
static double legend_width(const FennelPlotData *d, const FennelPlotOptions *o)
{
    char *title = fennel_plot_label(o->by ? o->by : o->y);
    double w = fennel_canvas_text_width(title, FONT, TRUE);
    g_free(title);
    for (guint s = 0; s < d->n_series; s++)
        w = MAX(w, 30 + fennel_canvas_text_width(d->series[s].name, FONT, FALSE));
    return MIN(w, o->width * 0.4) + MARGIN;
}

/* The legend's entries below its title; returns the y below the last one. */
static double draw_legend(FennelCanvas *c, const Frame *f, const FennelPlotData *d,
                          const FennelPlotOptions *o, double x, double y)
{
    fennel_canvas_group_begin(c, "legend", NULL, NULL);
    char *title = fennel_plot_label(o->by ? o->by : o->y);
    fennel_canvas_text(c, x, y + FONT, title, FONT, TRUE, FENNEL_ANCHOR_START, AXIS_COLOUR);
    g_free(title);
    for (guint s = 0; s < d->n_series; s++) {
        double row = y + FONT + 8 + (s + 1) * (FONT + 6);
        FennelPaint line = series_paint(f, s);
        fennel_canvas_line(c, x, row - FONT * 0.35, x + 22, row - FONT * 0.35, &line);
        FennelPaint dot = fennel_paint_fill(line.stroke);
        fennel_canvas_circle(c, x + 11, row - FONT * 0.35, 2.5, &dot);
        fennel_canvas_text(c, x + 30, row, d->series[s].name, FONT, FALSE, FENNEL_ANCHOR_START,
                           AXIS_COLOUR);
    }
    fennel_canvas_group_end(c);
    return y + FONT + 8 + d->n_series * (FONT + 6) + FONT;
}

FennelCanvas *fennel_plot_draw(const FennelPlotData *d, const FennelPlotOptions *o)
{
    Frame f = {.logx = o->logx, .logy = o->logy, .palette = palette_index(o->style)};
    data_range(d, o->box, &f);
    double xt[64], yt[64];
    guint ny = 0;
    if (f.logy && axis_kind(o->y) != AXIS_PLAIN && axis_kind(o->y) != AXIS_NS)
        ny = binary_ticks(f.ylo, f.yhi, 8, yt);
    if (ny == 0)
        ny = fennel_plot_ticks(f.ylo, f.yhi, f.logy, 8, yt);
    /* Room for the widest y label on the left. */
    double ys = f.logy ? 0 : tick_step(yt, ny), label_w = 0;
    char buf[32];
    for (guint i = 0; i < ny; i++) {
        if (!(f.logy && log_label(axis_kind(o->y), yt[i], buf)))
            format_tick(yt[i], ys, buf);
        label_w = MAX(label_w, fennel_canvas_text_width(buf, TICK_FONT, FALSE));
    }
    double legend = legend_width(d, o);
    f.left = MARGIN + label_w + 10;
    f.top = MARGIN + FONT + 16 + (o->title ? FONT + 12 : 0);
    f.width = MAX(o->width - f.left - legend - 2 * MARGIN, 50);
    f.height = MAX(o->height - f.top - (MARGIN + 24 + TICK_FONT + FONT), 50);
    /* About one x label per 90 pixels. */
    guint max_x = (guint)MAX(f.width / 90, 2), nx = 0;
    if (f.logx && axis_kind(o->x) != AXIS_PLAIN && axis_kind(o->x) != AXIS_NS)
        nx = binary_ticks(f.xlo, f.xhi, max_x, xt);
    if (nx == 0)
        nx = fennel_plot_ticks(f.xlo, f.xhi, f.logx, max_x, xt);

    FennelCanvas *c = fennel_canvas_new(o->width, o->height);
    if (o->title) {
        fennel_canvas_group_begin(c, "title", NULL, NULL);
        fennel_canvas_text(c, f.left, MARGIN + FONT, o->title, FONT + 2, TRUE, FENNEL_ANCHOR_START,
                           AXIS_COLOUR);
        fennel_canvas_group_end(c);
    }
    draw_axes(c, &f, o, xt, nx, yt, ny);
    fennel_canvas_clip_begin(c, f.left, f.top, f.width, f.height);
    for (guint s = 0; s < d->n_series; s++)
        if (!o->box && !o->hist)
            draw_series(c, &f, &d->series[s], s);
    if (o->box)
        draw_boxes(c, &f, d);
    if (o->hist)
        draw_bars(c, &f, d);
    fennel_canvas_clip_end(c);
    /* A long legend makes the picture taller rather than running off it. */
    double bottom = draw_legend(c, &f, d, o, f.left + f.width + MARGIN, f.top);
    if (bottom + MARGIN > o->height)
        fennel_canvas_set_height(c, bottom + MARGIN);
    return c;
}
