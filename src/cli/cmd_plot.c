/* fennel plot: a line chart of a sweep's CSV (viz/plot.h), as SVG, PNG or PDF. */
#include "cli.h"
#include "errors.h"
#include "plot.h"
#include "run_outputs.h"

#include <stdio.h>

typedef struct {
    char *x, *y, *by, *output, *title, *kind, *style;
    char **where;
    gboolean logx, logy;
    int bins;
    gint width, height;
    char **files;
} Options;

static int plot(const Options *o)
{
    GError *error = NULL;
    const char *file = o->files[0];
    char *text = NULL;
    gsize length = 0;
    if (!g_file_get_contents(file, &text, &length, &error)) {
        int code = error->code;
        g_clear_error(&error);
        g_set_error(&error, FENNEL_ERROR, FENNEL_ERROR_IO, "%s: cannot read: %s", file,
                    code == G_FILE_ERROR_NOENT   ? "no such file"
                    : code == G_FILE_ERROR_ISDIR ? "a directory"
                                                 : "not a readable file");
        return fennel_cli_fail(error);
    }
    /* A --links CSV without -x and -y: link utilisation per level. */
    if (o->x == NULL && o->y == NULL && fennel_plot_is_links(text, length)) {
        FennelCanvas *c = fennel_plot_links(file, text, length, o->width, o->height, &error);
        g_free(text);
        gboolean ok = c && fennel_canvas_write(c, o->output, &error);
        if (c)
            fennel_canvas_free(c);
        return ok ? 0 : fennel_cli_fail(error);
    }
    gboolean cdf = o->kind && strcmp(o->kind, "cdf") == 0;
    gboolean box = o->kind && strcmp(o->kind, "box") == 0;
    gboolean hist = o->kind && strcmp(o->kind, "hist") == 0;
    if (o->kind && !cdf && !box && !hist && strcmp(o->kind, "line") != 0) {
        g_free(text);
        fennel_cli_error("plot: --kind %s: expected line, box, hist or cdf\n", o->kind);
        return 2;
    }
    if ((cdf || hist) && (o->x == NULL || o->y != NULL)) {
        g_free(text);
        fennel_cli_error("plot: --kind %s draws the distribution of -x COL (and takes no -y)\n",
                         o->kind);
        return 2;
    }
    if (o->bins < 0 || o->bins > 10000 || (o->bins && !hist)) {
        g_free(text);
        fennel_cli_error("plot: --bins takes 1 to 10000 and goes with --kind hist\n");
        return 2;
    }
    if (o->style && !fennel_plot_style_known(o->style)) {
        g_free(text);
        fennel_cli_error("plot: --style %s: expected tableau, okabe-ito or grey\n", o->style);
        return 2;
    }
    if (!cdf && !hist && (o->x == NULL || o->y == NULL)) {
        g_free(text);
        fennel_cli_error("plot: -x COL and -y COL are required\n");
        return 2;
    }
    FennelPlotOptions po = {.x = o->x,
                            .y = cdf    ? "fraction"
                                 : hist ? "rows"
                                        : o->y,
                            .cdf = cdf,
                            .box = box,
                            .hist = hist,
                            .bins = (guint)o->bins,
                            .style = o->style,
                            .by = o->by,
                            .logx = o->logx,
                            .logy = o->logy,
                            .width = o->width,
                            .height = o->height,
                            .where = o->where,
                            .title = o->title};
    FennelPlotData *d = fennel_plot_data_read(file, text, length, &po, &error);
    g_free(text);
    if (d == NULL)
        return fennel_cli_fail(error);
    if (d->folded && !cdf && !box && !hist)
        fennel_cli_error("plot: warning: columns that vary but are neither an axis, --by nor "
                         "--where: %s (their rows are folded into one point: the median, with a "
                         "min-max band)",
                         d->folded);
    FennelCanvas *c = fennel_plot_draw(d, &po);
    gboolean ok = fennel_canvas_write(c, o->output, &error);
    fennel_canvas_free(c);
    fennel_plot_data_free(d);
    return ok ? 0 : fennel_cli_fail(error);
}

static int usage_error(const char *message)
{
    fennel_cli_error("plot: %s\n", message);
    return 2;
}

/* --size WxH: the chart is drawn at that size (its layout follows), rounded to whole
 * units. */
static gboolean parse_size(const char *text, Options *o)
{
    double w, h;
    GError *error = NULL;
    if (!fennel_viz_parse_size("--size", text, &w, &h, &error)) {
        fennel_cli_error("plot: %s\n", error->message);
        g_error_free(error);
        return FALSE;
    }
    o->width = (gint)(w + 0.5);
    o->height = (gint)(h + 0.5);
    return TRUE;
}

/* The defaults, 800 x 500, for what was not given (-1); FALSE out of range. */
static gboolean default_size(Options *o)
{
    o->width = o->width == -1 ? 800 : o->width;
    o->height = o->height == -1 ? 500 : o->height;
    return o->width >= 200 && o->width <= 10000 && o->height >= 150 && o->height <= 10000;
}

int fennel_cmd_plot(int argc, char **argv)
{
    Options o = {.width = -1, .height = -1};
    char *size = NULL;
    GOptionEntry entries[] = {
        {"x", 'x', 0, G_OPTION_ARG_STRING, &o.x, "Column of the horizontal axis", "COL"},
        {"y", 'y', 0, G_OPTION_ARG_STRING, &o.y, "Column of the vertical axis", "COL"},
        {"by", 0, 0, G_OPTION_ARG_STRING, &o.by,
         "One line per value of this column (or of several: COL,COL)", "COL"},
        {"where", 0, 0, G_OPTION_ARG_STRING_ARRAY, &o.where,
         "Only the rows whose COL is one of the values; repeatable", "COL=V[,V]"},
        {"title", 0, 0, G_OPTION_ARG_STRING, &o.title, "A title above the chart", "TEXT"},
        {"style", 0, 0, G_OPTION_ARG_STRING, &o.style,
         "Colours: tableau (default), okabe-ito (safe for colour-vision deficiencies) or grey",
         "NAME"},
        {"bins", 0, 0, G_OPTION_ARG_INT, &o.bins,
         "Bins of --kind hist (default: Sturges' rule, ceil(log2 rows) + 1)", "N"},
        {"kind", 0, 0, G_OPTION_ARG_STRING, &o.kind,
         "line (default); box: quartiles of -y per -x and group; hist and cdf: the "
         "distribution of -x per group",
         "KIND"},
        {"logx", 0, 0, G_OPTION_ARG_NONE, &o.logx, "Logarithmic horizontal axis", NULL},
        {"logy", 0, 0, G_OPTION_ARG_NONE, &o.logy, "Logarithmic vertical axis", NULL},
        {"width", 0, 0, G_OPTION_ARG_INT, &o.width, "Width in pixels (default 800)", "PX"},
        {"height", 0, 0, G_OPTION_ARG_INT, &o.height, "Height in pixels (default 500)", "PX"},
        {"size", 0, 0, G_OPTION_ARG_STRING, &size,
         "Width and height at once, in points for a PDF (e.g. 252x180 for a column)", "WxH"},
        {"output", 'o', 0, G_OPTION_ARG_FILENAME, &o.output,
         "The chart: FILE.svg, FILE.png or FILE.pdf", "FILE"},
        {G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &o.files, NULL, "FILE.csv"},
        {NULL, 0, 0, 0, NULL, NULL, NULL},
    };
    int status = 0;
    if (fennel_cli_parse("plot", "FILE.csv -x COL -y COL [--by COL] -o FILE.svg|png|pdf",
                         "Draw a line chart of a CSV file (a sweep's output): one line per "
                         "value of --by, through the median of rows with the same x, with a "
                         "band from their minimum to maximum. A run's --links CSV without -x "
                         "and -y gives a bar chart of link utilisation per level.",
                         entries, &argc, &argv, &status)) {
        guint n = o.files ? g_strv_length(o.files) : 0;
        if (n == 0)
            status = usage_error("no CSV file given (fennel plot FILE.csv -x COL -y COL -o FILE)");
        else if (n > 1)
            status = usage_error("give one CSV file");
        else if (o.output == NULL)
            status = usage_error("-o FILE.svg|png|pdf is required");
        else if (fennel_canvas_format(o.output) == NULL)
            status = usage_error("-o: the file name must end in .svg, .png or .pdf");
        else if (size && (o.width != -1 || o.height != -1))
            status = usage_error("give --size or --width and --height, not both");
        else if (size && !parse_size(size, &o))
            status = 2;
        else if (!default_size(&o))
            status = usage_error(size ? "--size must be 200..10000 wide and 150..10000 high"
                                      : "--width must be 200..10000 and --height 150..10000 "
                                        "pixels");
        else
            status = plot(&o);
    }
    g_free(o.x);
    g_free(o.y);
    g_free(o.by);
    g_free(o.title);
    g_free(size);
    g_free(o.kind);
    g_free(o.style);
    g_strfreev(o.where);
    g_free(o.output);
    g_strfreev(o.files);
    return status;
}
