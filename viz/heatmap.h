/* A heat map of categories over a grid: each cell of a table of rows by columns takes the
 * colour of its category, with a legend naming the categories (`fennel tune` draws the
 * fastest algorithm of every rank count and message size with it; docs/TUNING.md).
 *
 * Columns run left to right, rows bottom to top (the first row at the bottom, as on a
 * chart's y axis). Written as SVG, PNG or PDF through the canvas (canvas.h); in the SVG
 * each cell is a <g class="cell"> with data-x, data-y and data-category attributes and a
 * tooltip, and each legend entry a <g class="legend-entry" data-category="...">. */
#ifndef FENNEL_HEATMAP_H
#define FENNEL_HEATMAP_H

#include "canvas.h"

#include <glib.h>

#define FENNEL_HEATMAP_NONE G_MAXUINT /* a cell without a category: left white */

typedef struct {
    const char *title;             /* drawn above the map, or NULL */
    const char *x_label, *y_label; /* the axes' names */
    const char *const *columns;    /* the column labels, nx of them */
    guint nx;
    const char *const *rows; /* the row labels, ny of them, the first at the bottom */
    guint ny;
    const char *const *categories; /* the legend's names, in colour order */
    guint n_categories;
    const guint *cells;          /* ny * nx category indices, row by row from the bottom */
    const char *const *labels;   /* ny * nx short texts drawn in the cells, or NULL */
    const char *const *tooltips; /* ny * nx tooltips, or NULL */
    double width, height;        /* of the picture; the height grows for a long legend */
} FennelHeatmap;

/* Draws the map. */
FennelCanvas *fennel_heatmap_draw(const FennelHeatmap *h);

#endif
