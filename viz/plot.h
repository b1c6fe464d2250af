/* Line charts of sweep results (`fennel plot`): a CSV file with a header row (README, Commands),
 * one x and one y column, optionally one line per value of a --by column.
 *
 * Reading (plot_data.c): rows whose x or y cell is empty (a sweep's error rows) are left
 * out; any other cell of those columns must be a number. An empty --by cell makes the group
 * "(empty)". The rows of a group are sorted
 * by x; rows with the same x (a sweep's repeats) become one point: the line joins their
 * medians and a band spans their minimum to maximum. Groups keep the order of their
 * first row.
 *
 * Drawing (plot.c): axes with round-number ticks (1, 2 or 5 times a power of ten, or
 * powers of ten on a logarithmic axis), labels from the column names ("makespan_ns"
 * reads "makespan (ns)"), a legend with one entry per group (the picture grows taller when
 * the legend needs it), one coloured line with
 * markers per group, and the band where a group has repeats. Written as SVG, PNG or PDF
 * through the canvas (canvas.h); in the SVG each group is a <g class="series">.
 *
 * With `box`, each x of a group is a box from the first to the third quartile of its
 * rows, a line at the median and whiskers to the minimum and maximum (boxes of several
 * groups at one x stand side by side).
 *
 * With `hist`, the x values of all groups are cut into equal bins from the smallest to the
 * largest (the largest falls in the last bin); each group is a bar per bin of its count,
 * the groups' bars drawn over each other, translucent.
 *
 * With `cdf`, each group is the empirical distribution of its x values (a sweep's
 * makespans over seeds, say): a point per distinct value v at the fraction of the group's
 * rows whose value is at most v, drawn as steps from 0 to 1. */
#ifndef FENNEL_PLOT_H
#define FENNEL_PLOT_H

#include "canvas.h"

#include <glib.h>

typedef struct {
    const char *x, *y, *by; /* column names; by may be NULL or several: "size_bytes,network" */
    gboolean logx, logy;
    double width, height; /* of the picture, in pixels (points for PDF) */
    char **where;         /* NULL-terminated "COL=V[,V...]": only rows with one of the values */
    const char *title;    /* drawn above the chart, or NULL */
    gboolean cdf;         /* an empirical CDF of the x column per group; y is "fraction" */
    gboolean box;         /* a box per x and group instead of lines */
    gboolean hist;        /* a histogram of the x column per group */
    guint bins;           /* its bins; 0: Sturges' rule, ceil(log2 rows) + 1 */
    const char *style;    /* the palette: tableau (default, NULL), okabe-ito or grey */
} FennelPlotOptions;

/* One x of a series: the y values of its rows (quartiles by linear interpolation between
 * the sorted values, numpy's default). */
typedef struct {
    double x, min, q1, median, q3, max;
    guint n;
} FennelPlotPoint;

typedef struct {
    char *name; /* the --by value, or the y column without --by */
    FennelPlotPoint *points;
    guint n_points;
    gboolean band;  /* some x has several rows */
    gboolean steps; /* drawn as a step function (an empirical CDF) */
} FennelPlotSeries;

typedef struct {
    FennelPlotSeries *series;
    guint n_series;
    /* A sweep's parameter columns (those before `seed`) that differ between rows of one
     * group at one x, so that those rows are folded into one point ("schedule, alpha_p_ns"),
     * or NULL. */
    char *folded;
    double bin_width; /* > 0 for a histogram: points are bins (x their centre, y the count) */
} FennelPlotData;

/* Whether a --style names a palette. */
gboolean fennel_plot_style_known(const char *style);

/* Reads the CSV text (`name` for error positions). An unknown column is a usage error
 * (FENNEL_ERROR_USAGE) that lists the columns; a malformed file, a cell that is not a
 * number, a value a logarithmic axis cannot show, or no plottable row are input errors
 * at FILE:LINE:COL. */
FennelPlotData *fennel_plot_data_read(const char *name, const char *text, gsize length,
                                      const FennelPlotOptions *o, GError **error);
void fennel_plot_data_free(FennelPlotData *d);

/* Whether the CSV text is a `run --links` file (its header starts link,from,to,level). */
gboolean fennel_plot_is_links(const char *text, gsize length);

/* The bar chart of link utilisation per level of a --links CSV (plot_links.c), or NULL
 * with an error at FILE:LINE:COL. */
FennelCanvas *fennel_plot_links(const char *name, const char *text, gsize length, double width,
                                double height, GError **error);

/* Where a CSV row starts: its line (from 1) and its byte offset in the text. */
typedef struct {
    unsigned line;
    gsize offset;
} FennelCsvRow;

/* Splits CSV text into rows of fields (RFC 4180: quoted fields with "" for a quote, CRLF
 * or LF line ends). Returns a GPtrArray of NULL-terminated string vectors, and in *rows
 * (if not NULL) an array of FennelCsvRow; an error at FILE:LINE:COL for an unclosed
 * quote or text after a closing quote. */
GPtrArray *fennel_csv_parse(const char *name, const char *text, gsize length, GArray **rows,
                            GError **error);

/* The column (from 1) where field `field` of the row starting at `offset` begins. */
unsigned fennel_csv_column(const char *text, gsize length, gsize offset, guint field);

/* A readable axis label for a column: "makespan_ns" -> "makespan (ns)",
 * "beta_ns_per_byte" -> "beta (ns/B)", "size_bytes" -> "size (bytes)". g_free it. */
char *fennel_plot_label(const char *column);

/* Round-number ticks for [lo, hi] (lo < hi): at most about `max_ticks` labelled values,
 * written to ticks (up to 64), their number returned. On a logarithmic axis (lo > 0) they
 * are powers of ten, with 2 and 5 times them when fewer than three powers fall inside. */
guint fennel_plot_ticks(double lo, double hi, gboolean log_axis, guint max_ticks, double ticks[64]);

/* Draws the chart. */
FennelCanvas *fennel_plot_draw(const FennelPlotData *d, const FennelPlotOptions *o);

#endif
