/* The density view of a large run: ranks are grouped into at most 256 rows and time
 * into one column per pixel; each cell is coloured by the share of its rank-time spent
 * sending, computing, and waiting for a message in flight to the rank. The work is one
 * pass over the glyphs plus one over the cells (difference arrays make a long interval
 * cost O(1)), and the picture is an embedded raster of rows x columns, so a run of any
 * size renders in bounded time per task and bounded size. */
#include "timeline_private.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define MAX_ROWS 256

static const FennelColour density_colour[DENSITY_N] = {
    [DENSITY_COMM] = 0x0072b2,
    [DENSITY_COMPUTE] = 0xe69f00,
    [DENSITY_INBOUND] = 0x56b4e9,
};

static const char *const density_label[DENSITY_N] = {
    [DENSITY_COMM] = "communicating (slot busy sending or receiving)",
    [DENSITY_COMPUTE] = "computing or sleeping",
    [DENSITY_INBOUND] = "message in flight to the rank",
};

typedef struct {
    uint32_t rows, bins;
    double *cover[DENSITY_N]; /* rows x bins: time covered, in bins */
    double *diff[DENSITY_N];  /* rows x (bins + 1): whole bins covered, as differences */
} Grid;

/* Adds [a, b) (in bins, clipped to the grid) to a row. Partial bins at the ends go to
 * `cover`, the whole bins between them to the difference array. */
static void add(Grid *g, DensityClass k, uint32_t row, double a, double b)
{
    a = MAX(a, 0.0);
    b = MIN(b, (double)g->bins);
    if (!(b > a))
        return;
    double *cover = g->cover[k] + (size_t)row * g->bins;
    double *diff = g->diff[k] + (size_t)row * (g->bins + 1);
    uint32_t ia = (uint32_t)a, ib = (uint32_t)b;
    if (ia == ib || (ib == ia + 1 && b == ib)) {
        cover[ia] += b - a;
        return;
    }
    cover[ia] += (ia + 1) - a;
    diff[ia + 1] += 1;
    diff[ib] -= 1;
    if (ib < g->bins)
        cover[ib] += b - ib;
}

static void fill_grid(Grid *g, const FennelTimeline *tl, const Frame *f, const int32_t *row_of)
{
    const double bins_per_ps = g->bins / (double)(f->to - f->from);
    for (guint i = 0; i < tl->items->len; i++) {
        const FennelTlItem *it = &g_array_index(tl->items, FennelTlItem, i);
        DensityClass k = fennel_glyph_styles[it->glyph].density;
        if (k == DENSITY_NONE || it->t1 <= it->t0 || row_of[it->rank] < 0)
            continue;
        add(g, k, (uint32_t)row_of[it->rank], (double)(it->t0 - f->from) * bins_per_ps,
            (double)(it->t1 - f->from) * bins_per_ps);
    }
    for (guint i = 0; i < tl->messages->len; i++) {
        const FennelTlMessage *m = &g_array_index(tl->messages, FennelTlMessage, i);
        if (m->arrive <= m->leave || row_of[m->dst] < 0)
            continue;
        add(g, DENSITY_INBOUND, (uint32_t)row_of[m->dst],
            (double)(m->leave - f->from) * bins_per_ps,
            (double)(m->arrive - f->from) * bins_per_ps);
    }
}

/* The raster: white where nothing happens, each activity's colour in proportion to its
 * share of the cell's rank-time (shares that add up to more than one are scaled). */
static uint8_t *colour_grid(Grid *g, const uint32_t *row_ranks, uint32_t processes)
{
    uint8_t *rgb = g_malloc((size_t)g->rows * g->bins * 3);
    for (uint32_t r = 0; r < g->rows; r++) {
        double running[DENSITY_N] = {0};
        for (uint32_t x = 0; x < g->bins; x++) {
            double share[DENSITY_N] = {0}, total = 0;
            for (int k = DENSITY_COMM; k < DENSITY_N; k++) {
                running[k] += g->diff[k][(size_t)r * (g->bins + 1) + x];
                double slots = k == DENSITY_INBOUND ? 1 : processes;
                share[k] =
                    (running[k] + g->cover[k][(size_t)r * g->bins + x]) / (row_ranks[r] * slots);
                share[k] = CLAMP(share[k], 0.0, 1.0);
                total += share[k];
            }
            double scale = total > 1 ? 1 / total : 1;
            uint8_t *px = rgb + 3 * ((size_t)r * g->bins + x);
            for (int ch = 0; ch < 3; ch++) {
                double v = 255 * (1 - total * scale);
                for (int k = DENSITY_COMM; k < DENSITY_N; k++)
                    v += share[k] * scale * ((density_colour[k] >> (16 - 8 * ch)) & 0xff);
                px[ch] = (uint8_t)CLAMP(lround(v), 0, 255);
            }
        }
    }
    return rgb;
}

static void row_labels(FennelCanvas *c, const Frame *f, const uint32_t *ranks, uint32_t n_shown,
                       uint32_t group, uint32_t rows, double pitch)
{
    /* Every k-th row, k a power of two so that the labelled ranks are round numbers in
     * the usual power-of-two runs. */
    uint32_t k = 1;
    while (k * pitch < 16)
        k *= 2;
    FennelPaint tick = fennel_paint_stroke(COLOUR_TEXT, 1);
    for (uint32_t r = 0; r < rows; r += k) {
        char label[32];
        snprintf(label, sizeof label, "rank %u", ranks[MIN((uint64_t)r * group, n_shown - 1)]);
        double y = f->lanes_top + r * pitch;
        fennel_canvas_line(c, f->left - 5, y, f->left, y, &tick);
        fennel_canvas_text(c, f->left - 8, y + FONT_SMALL * 0.35, label, FONT_SMALL, FALSE,
                           FENNEL_ANCHOR_END, COLOUR_TEXT);
    }
}

FennelCanvas *fennel__timeline_draw_density(const FennelTimeline *tl,
                                            const FennelTimelineOptions *o, const uint32_t *ranks,
                                            uint32_t n_shown, const char *note)
{
    const uint32_t group = (n_shown + MAX_ROWS - 1) / MAX_ROWS;
    const uint32_t rows = (n_shown + group - 1) / group;
    const double pitch = CLAMP(512.0 / rows, 1.0, 4.0);
    char widest[32];
    snprintf(widest, sizeof widest, "rank %u", ranks[n_shown - 1]);
    double left = MAX(fennel_canvas_text_width(widest, FONT_SMALL, FALSE),
                      fennel_canvas_text_width("time (ms)", FONT_SMALL, FALSE)) +
                  22;
    Frame f;
    fennel__frame_init(&f, o->width, left, o->from, o->to, MAX(tl->makespan, tl->end));
    FennelCanvas *c = fennel_canvas_new(o->width, 100);

    char *full = g_strdup_printf("%s. Density view: %u ranks in %u rows of %u; colour shows the "
                                 "share of each row's rank-time",
                                 note, n_shown, rows, group);
    fennel__frame_header(c, &f, o->title, o->no_note ? NULL : full);
    g_free(full);
    fennel__frame_axis(c, &f);
    /* The first row's label sits on the first row's top edge; room for it below the axis
     * caption ("time (ns)"), which it would otherwise cross. */
    f.y += FONT_SMALL;
    f.lanes_top = f.y;
    f.lanes_bottom = f.lanes_top + rows * pitch;

    Grid g = {.rows = rows, .bins = (uint32_t)MAX(1.0, floor(f.right - f.left))};
    for (int k = DENSITY_COMM; k < DENSITY_N; k++) {
        g.cover[k] = g_new0(double, (size_t)rows *g.bins);
        g.diff[k] = g_new0(double, (size_t)rows *(g.bins + 1));
    }
    int32_t *row_of = g_new(int32_t, tl->n_ranks);
    memset(row_of, 0xff, sizeof(int32_t) * tl->n_ranks);
    uint32_t *row_ranks = g_new0(uint32_t, rows);
    for (uint32_t i = 0; i < n_shown; i++) {
        row_of[ranks[i]] = (int32_t)(i / group);
        row_ranks[i / group]++;
    }
    fill_grid(&g, tl, &f, row_of);
    uint8_t *rgb = colour_grid(&g, row_ranks, tl->processes);

    char attr_rows[16], attr_group[16];
    snprintf(attr_rows, sizeof attr_rows, "%u", rows);
    snprintf(attr_group, sizeof attr_group, "%u", group);
    const char *attrs[] = {"data-rows", attr_rows, "data-ranks-per-row", attr_group, NULL};
    fennel_canvas_group_begin(c, "density", attrs, NULL);
    fennel_canvas_image(c, f.left, f.lanes_top, f.right - f.left, rows * pitch, rgb, g.bins, rows);
    FennelPaint frame = fennel_paint_stroke(COLOUR_LANE, 0.8);
    fennel_canvas_rect(c, f.left, f.lanes_top, f.right - f.left, rows * pitch, &frame);
    fennel_canvas_group_end(c);
    fennel__frame_grid(c, &f);
    row_labels(c, &f, ranks, n_shown, group, rows, pitch);
    gboolean trail = fennel__timeline_draw_trail(c, &f, tl, row_of, pitch);
    fennel__frame_makespan(c, &f, tl->makespan);

    LegendEntry entries[DENSITY_N + 1];
    guint n = 0;
    for (int k = DENSITY_COMM; k < DENSITY_N; k++)
        entries[n++] = (LegendEntry){.glyph = FENNEL_GLYPH_N,
                                     .special = 's',
                                     .swatch = density_colour[k],
                                     .label = density_label[k]};
    if (trail)
        entries[n++] =
            (LegendEntry){.glyph = FENNEL_GLYPH_N, .special = 't', .label = "critical path"};
    entries[n++] = (LegendEntry){.glyph = FENNEL_GLYPH_N, .special = 'm', .label = "makespan"};
    fennel__frame_legend(c, &f, entries, n);
    fennel_canvas_set_height(c, f.y + 6);

    g_free(rgb);
    g_free(row_of);
    g_free(row_ranks);
    for (int k = DENSITY_COMM; k < DENSITY_N; k++) {
        g_free(g.cover[k]);
        g_free(g.diff[k]);
    }
    return c;
}
