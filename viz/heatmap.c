/* Drawing a heat map of categories on the canvas (heatmap.h). */
#include "heatmap.h"

#include <stdio.h>

#define FONT      12.0
#define TICK_FONT 11.0
#define MARGIN    16.0
#define SWATCH    12.0

/* Tableau 10, as `fennel plot` colours its lines by default, so that a winner's colour
 * reads the same in both pictures; past ten categories the colours repeat. */
static const FennelColour colours[] = {0x4e79a7, 0xf28e2b, 0xe15759, 0x76b7b2, 0x59a14f,
                                       0xedc948, 0xb07aa1, 0xff9da7, 0x9c755f, 0xbab0ac};

#define TEXT_COLOUR 0x333333

static FennelColour colour_of(guint category)
{
    return colours[category % G_N_ELEMENTS(colours)];
}

/* Dark text on light colours and white text on dark ones (the ITU-R BT.601 luma). */
static FennelColour text_on(FennelColour c)
{
    double luma = 0.299 * (c >> 16) + 0.587 * ((c >> 8) & 0xff) + 0.114 * (c & 0xff);
    return luma > 140 ? 0x000000 : 0xffffff;
}

static double widest(const char *const *texts, guint n, double size)
{
    double w = 0;
    for (guint i = 0; i < n; i++)
        w = MAX(w, fennel_canvas_text_width(texts[i], size, FALSE));
    return w;
}

/* The legend to the right of the map, one swatch and name per category; returns the y
 * below its last entry. */
static double draw_legend(FennelCanvas *c, const FennelHeatmap *h, double x, double y)
{
    fennel_canvas_group_begin(c, "legend", NULL, NULL);
    for (guint k = 0; k < h->n_categories; k++) {
        const char *attrs[] = {"data-category", h->categories[k], NULL};
        fennel_canvas_group_begin(c, "legend-entry", attrs, NULL);
        FennelPaint paint = fennel_paint_fill(colour_of(k));
        fennel_canvas_rect(c, x, y, SWATCH, SWATCH, &paint);
        fennel_canvas_text(c, x + SWATCH + 6, y + SWATCH - 2, h->categories[k], FONT, FALSE,
                           FENNEL_ANCHOR_START, TEXT_COLOUR);
        fennel_canvas_group_end(c);
        y += SWATCH + 8;
    }
    fennel_canvas_group_end(c);
    return y;
}

static void draw_cell(FennelCanvas *c, const FennelHeatmap *h, guint i, guint j, double x, double y,
                      double w, double hh)
{
    guint k = h->cells[(gsize)j * h->nx + i];
    const char *category = k == FENNEL_HEATMAP_NONE ? "" : h->categories[k];
    const char *attrs[] = {"data-x",        h->columns[i], "data-y", h->rows[j],
                           "data-category", category,      NULL};
    fennel_canvas_group_begin(c, "cell", attrs,
                              h->tooltips ? h->tooltips[(gsize)j * h->nx + i] : NULL);
    FennelPaint paint = {.fill = k == FENNEL_HEATMAP_NONE ? 0xffffff : colour_of(k),
                         .fill_alpha = 1.0,
                         .stroke = 0xffffff,
                         .stroke_width = 1.0};
    fennel_canvas_rect(c, x, y, w, hh, &paint);
    const char *label = h->labels ? h->labels[(gsize)j * h->nx + i] : NULL;
    /* A label is drawn only where it fits; the tooltip always has it. */
    if (label && *label && hh >= TICK_FONT + 4 &&
        fennel_canvas_text_width(label, TICK_FONT, FALSE) < w - 4)
        fennel_canvas_text(c, x + w / 2, y + hh / 2 + TICK_FONT / 3, label, TICK_FONT, FALSE,
                           FENNEL_ANCHOR_MIDDLE,
                           k == FENNEL_HEATMAP_NONE ? TEXT_COLOUR : text_on(colour_of(k)));
    fennel_canvas_group_end(c);
}

FennelCanvas *fennel_heatmap_draw(const FennelHeatmap *h)
{
    FennelCanvas *c = fennel_canvas_new(h->width, h->height);
    double top = MARGIN + (h->title ? FONT + 10 : 0) + FONT + 6; /* room for the y label */
    double left =
        MARGIN +
        MAX(widest(h->rows, h->ny, TICK_FONT), fennel_canvas_text_width(h->y_label, FONT, TRUE)) +
        8;
    double legend = SWATCH + 6 + widest(h->categories, h->n_categories, FONT) + MARGIN;
    double bottom = TICK_FONT + 8 + FONT + 8 + MARGIN;
    double width = MAX(h->width - left - legend - MARGIN, 20);
    double height = MAX(h->height - top - bottom, 20);
    double cw = width / MAX(h->nx, 1), ch = height / MAX(h->ny, 1);

    if (h->title)
        fennel_canvas_text(c, h->width / 2, MARGIN + FONT, h->title, FONT + 2, TRUE,
                           FENNEL_ANCHOR_MIDDLE, TEXT_COLOUR);
    fennel_canvas_text(c, left - 8, top - 8, h->y_label, FONT, TRUE, FENNEL_ANCHOR_END,
                       TEXT_COLOUR);
    fennel_canvas_group_begin(c, "cells", NULL, NULL);
    for (guint j = 0; j < h->ny; j++)
        for (guint i = 0; i < h->nx; i++)
            draw_cell(c, h, i, j, left + i * cw, top + (h->ny - 1 - j) * ch, cw, ch);
    fennel_canvas_group_end(c);

    /* Row labels at every row; column labels at every k-th column so they do not touch. */
    for (guint j = 0; j < h->ny; j++)
        fennel_canvas_text(c, left - 8, top + (h->ny - 1 - j) * ch + ch / 2 + TICK_FONT / 3,
                           h->rows[j], TICK_FONT, FALSE, FENNEL_ANCHOR_END, TEXT_COLOUR);
    double label_width = widest(h->columns, h->nx, TICK_FONT) + 8;
    guint every = (guint)MAX(1.0, label_width / cw + 0.999);
    for (guint i = 0; i < h->nx; i += every)
        fennel_canvas_text(c, left + i * cw + cw / 2, top + height + TICK_FONT + 6, h->columns[i],
                           TICK_FONT, FALSE, FENNEL_ANCHOR_MIDDLE, TEXT_COLOUR);
    fennel_canvas_text(c, left + width / 2, top + height + TICK_FONT + 8 + FONT + 4, h->x_label,
                       FONT, TRUE, FENNEL_ANCHOR_MIDDLE, TEXT_COLOUR);

    double below = draw_legend(c, h, left + width + MARGIN, top);
    if (below + MARGIN > h->height)
        fennel_canvas_set_height(c, below + MARGIN);
    return c;
}
