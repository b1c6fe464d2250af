/* The frame around a timeline: caption, time axis, grid, makespan, legend. Shared by the
 * detailed and the density views. */
#include "timeline_private.h"

#include <stdio.h>
#include <string.h>

static const struct {
    FennelTime below, ps;
    const char *name;
} time_units[] = {
    {1000, 1, "ps"},
    {10000000, 1000, "ns"},
    {10000000000, 1000000, "µs"},
    {10000000000000, 1000000000, "ms"},
    {INT64_MAX, 1000000000000, "s"},
};

/* The unit a time is written in: the largest whose count stays readable. */
static size_t unit_of(FennelTime t)
{
    size_t i = 0;
    while (i + 1 < G_N_ELEMENTS(time_units) && (t < 0 ? -t : t) >= time_units[i].below)
        i++;
    return i;
}

/* t in unit i with three decimals at most, trailing zeros trimmed, without the unit. */
static char *number_in(FennelTime t, size_t i, char buf[48])
{
    FennelTime whole = t / time_units[i].ps, rest = t % time_units[i].ps;
    FennelTime milli = time_units[i].ps >= 1000 ? rest / (time_units[i].ps / 1000) : 0;
    if (milli < 0)
        milli = -milli;
    if (milli == 0) {
        snprintf(buf, 48, "%" G_GINT64_FORMAT, whole);
    } else {
        char frac[24];
        snprintf(frac, sizeof frac, "%03" G_GINT64_FORMAT, milli);
        for (int k = 2; k > 0 && frac[k] == '0'; k--)
            frac[k] = '\0';
        snprintf(buf, 48, "%s%" G_GINT64_FORMAT ".%s", t < 0 && whole == 0 ? "-" : "", whole, frac);
    }
    return buf;
}

char *fennel__viz_format_time(FennelTime t, char buf[48])
{
    size_t i = unit_of(t);
    char number[48];
    snprintf(buf, 48, "%s %s", number_in(t, i, number), time_units[i].name);
    return buf;
}

char *fennel__viz_format_range(FennelTime t0, FennelTime t1, char buf[96])
{
    /* One unit for both ends, the one the larger needs ("0 to 100 ns", not "0 ps to ..."). */
    size_t i = unit_of(MAX(t0 < 0 ? -t0 : t0, t1 < 0 ? -t1 : t1));
    char a[48], b[48];
    snprintf(buf, 96, "%s to %s %s", number_in(t0, i, a), number_in(t1, i, b), time_units[i].name);
    return buf;
}

void fennel__frame_init(Frame *f, double width, double left, FennelTime from, FennelTime to,
                        FennelTime end)
{
    memset(f, 0, sizeof *f);
    f->width = width;
    f->left = left;
    gboolean whole = to <= from;
    if (whole) {
        from = 0;
        to = MAX(end, FENNEL_NS);
    }
    /* Room on the right for half of the last tick label. */
    f->right = width - 28;
    fennel_axis_choose(from, to, f->right - f->left, FONT_SMALL, &f->axis);
    if (whole)
        to = fennel_axis_ceil(to, f->axis.minor);
    f->from = from;
    f->to = to;
    f->px_per_ps = (f->right - f->left) / (double)(to - from);
    f->y = 8;
}

void fennel__frame_header(FennelCanvas *c, Frame *f, const char *title, const char *note)
{
    if (title != NULL)
        f->y = fennel_canvas_text_wrapped(c, 8, f->y, title, FONT_SIZE, TRUE, COLOUR_TEXT,
                                          f->width - 16) +
               2;
    if (note != NULL)
        f->y = fennel_canvas_text_wrapped(c, 8, f->y, note, FONT_SMALL, FALSE, COLOUR_MUTED,
                                          f->width - 16);
    f->y += 8;
}

void fennel__frame_axis(FennelCanvas *c, Frame *f)
{
    const FennelAxis *a = &f->axis;
    double label_y = f->y + FONT_SMALL, base = label_y + 9;
    char caption[32];
    snprintf(caption, sizeof caption, "time (%s)", a->unit_name);
    fennel_canvas_group_begin(c, "axis", NULL, NULL);
    /* Level with the axis line, below the tick labels: the first label, centred on the
     * left edge, never runs into it. */
    fennel_canvas_text(c, f->left - 10, base + 4, caption, FONT_SMALL, FALSE, FENNEL_ANCHOR_END,
                       COLOUR_TEXT);
    FennelPaint axis = fennel_paint_stroke(COLOUR_TEXT, 1);
    fennel_canvas_line(c, f->left, base, f->right, base, &axis);
    for (FennelTime t = fennel_axis_ceil(f->from, a->minor); t <= f->to; t += a->minor) {
        double x = frame_x(f, t);
        if (t % a->step != 0) {
            fennel_canvas_line(c, x, base - 3, x, base, &axis);
            continue;
        }
        char ns[FENNEL_TIME_BUF], label[32];
        const char *attrs[] = {"data-ns", fennel_format_ns(t, ns), NULL};
        fennel_canvas_group_begin(c, "tick", attrs, NULL);
        fennel_canvas_line(c, x, base - 6, x, base, &axis);
        fennel_canvas_text(c, x, label_y, fennel_axis_label(a, t, label), FONT_SMALL, FALSE,
                           FENNEL_ANCHOR_MIDDLE, COLOUR_TEXT);
        fennel_canvas_group_end(c);
    }
    fennel_canvas_group_end(c);
    f->y = base + 6;
}

void fennel__frame_grid(FennelCanvas *c, const Frame *f)
{
    FennelPaint grid = fennel_paint_stroke(COLOUR_GRID, 1);
    fennel_canvas_group_begin(c, "grid", NULL, NULL);
    for (FennelTime t = fennel_axis_ceil(f->from, f->axis.step); t <= f->to; t += f->axis.step)
        fennel_canvas_line(c, frame_x(f, t), f->lanes_top, frame_x(f, t), f->lanes_bottom, &grid);
    fennel_canvas_group_end(c);
}

void fennel__frame_makespan(FennelCanvas *c, Frame *f, FennelTime makespan)
{
    f->y = f->lanes_bottom + 4;
    if (makespan < f->from || makespan > f->to)
        return;
    double x = frame_x(f, makespan);
    char ns[FENNEL_TIME_BUF], when[48], label[80];
    const char *attrs[] = {"data-ns", fennel_format_ns(makespan, ns), NULL};
    snprintf(label, sizeof label, "makespan %s", fennel__viz_format_time(makespan, when));
    fennel_canvas_group_begin(c, "makespan", attrs, label);
    FennelPaint p = fennel_paint_stroke(COLOUR_MAKESPAN, 1.5);
    p.dash = FENNEL_DASH_DASHED;
    fennel_canvas_line(c, x, f->lanes_top - 4, x, f->lanes_bottom + 4, &p);
    double half = fennel_canvas_text_width(label, FONT_SMALL, TRUE) / 2;
    FennelAnchor anchor = FENNEL_ANCHOR_MIDDLE;
    if (x + half > f->width - 4)
        anchor = FENNEL_ANCHOR_END;
    else if (x - half < 4)
        anchor = FENNEL_ANCHOR_START;
    fennel_canvas_text(c, x, f->lanes_bottom + 6 + FONT_SMALL, label, FONT_SMALL, TRUE, anchor,
                       COLOUR_MAKESPAN);
    fennel_canvas_group_end(c);
    f->y = f->lanes_bottom + 10 + FONT_SMALL;
}

static void sample(FennelCanvas *c, const LegendEntry *e, double x, double yc)
{
    const double w = 26, pitch = 22;
    if (e->special == 'm') {
        FennelPaint p = fennel_paint_stroke(COLOUR_MAKESPAN, 1.5);
        p.dash = FENNEL_DASH_DASHED;
        fennel_canvas_line(c, x + w / 2, yc - 8, x + w / 2, yc + 8, &p);
        return;
    }
    if (e->special == 't') {
        FennelPaint edge = fennel_paint_stroke(0x000000, 3.2);
        FennelPaint line = fennel_paint_stroke(COLOUR_PATH, 1.6);
        fennel_canvas_line(c, x + 2, yc + 5, x + w - 2, yc - 5, &edge);
        fennel_canvas_line(c, x + 2, yc + 5, x + w - 2, yc - 5, &line);
        return;
    }
    if (e->special == 'p') {
        FennelPaint band = fennel_paint_fill(COLOUR_PATH);
        FennelPaint lane = fennel_paint_stroke(COLOUR_LANE, 0.8);
        fennel_canvas_rect(c, x + 2, yc - 6, w - 4, 12, &band);
        fennel_canvas_line(c, x, yc, x + w, yc, &lane);
        return;
    }
    if (e->special == 's') {
        FennelPaint p = fennel_paint_fill(e->swatch);
        p.stroke = COLOUR_MUTED;
        p.stroke_width = 0.5;
        fennel_canvas_rect(c, x + 4, yc - 6, w - 8, 12, &p);
        return;
    }
    /* A glyph drawn off its lane (a NIC gap below it) is shifted, lane and all, so that
     * it sits in the middle of the legend's row. */
    const GlyphStyle *s = &fennel_glyph_styles[e->glyph < FENNEL_GLYPH_N ? e->glyph : 0];
    if (e->special == 0 && (s->shape == SHAPE_BAR || s->shape == SHAPE_SIDE))
        yc -= (s->y0 + s->y1) / 2 * pitch;
    FennelPaint lane = fennel_paint_stroke(COLOUR_LANE, 0.8);
    fennel_canvas_line(c, x, yc, x + w, yc, &lane);
    if (e->special == 'f') {
        FennelPaint p = fennel_paint_stroke(COLOUR_FINISH, 2);
        fennel_canvas_line(c, x + w / 2, yc - 7, x + w / 2, yc + 7, &p);
        return;
    }
    switch (s->shape) {
    case SHAPE_MARKER:
        fennel__glyph_item(c, e->glyph, x + w / 2, x + w / 2, yc + 3, pitch, 1);
        break;
    case SHAPE_MESSAGE:
        fennel__glyph_message(c, e->glyph, x + 2, yc - 7, x + w - 2, yc + 6, pitch, FALSE);
        break;
    default:
        fennel__glyph_item(c, e->glyph, x + 4, x + w - 4, yc, pitch, 1);
        break;
    }
}

void fennel__frame_legend(FennelCanvas *c, Frame *f, const LegendEntry *entries, guint n)
{
    const double row = 20, gap = 18, sample_w = 26;
    double x = 8, y = f->y + 8 + row / 2;
    fennel_canvas_group_begin(c, "legend", NULL, NULL);
    for (guint i = 0; i < n; i++) {
        double w = sample_w + 5 + fennel_canvas_text_width(entries[i].label, FONT_SMALL, FALSE);
        if (x > 8 && x + w > f->width - 8) {
            x = 8;
            y += row;
        }
        const char *attrs[] = {"data-label", entries[i].label, NULL};
        fennel_canvas_group_begin(c, "legend-entry", attrs, NULL);
        sample(c, &entries[i], x, y);
        fennel_canvas_text(c, x + sample_w + 5, y + FONT_SMALL * 0.35, entries[i].label, FONT_SMALL,
                           FALSE, FENNEL_ANCHOR_START, COLOUR_TEXT);
        fennel_canvas_group_end(c);
        x += w + gap;
    }
    fennel_canvas_group_end(c);
    f->y = y + row / 2 + 4;
}
