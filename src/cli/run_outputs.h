/* The picture and trace outputs of `fennel run` (README, Commands): their options, the checks
 * made before anything runs, and the writing after the run.
 *
 *   --timeline FILE.svg|png|pdf   the run drawn (viz/timeline.h)
 *   --trace FILE.json             Chrome/Perfetto trace (viz/chrome_trace.h)
 *   --dag FILE.svg|png|pdf        the program view (viz/dag_view.h)
 *   --dot FILE.dot                the program for Graphviz
 *   --time-window A:B             the timeline's window (A: or :B leave a side open)
 *   --ranks-shown LIST            ranks drawn, e.g. 0-7,12 (timeline and program view)
 *   --picture-width PX            picture width
 *   --picture-size WxH            the written picture's size (points in a PDF), scaled to fit
 *   --title TEXT                  the pictures' first caption line, instead of program and model
 *   --no-caption                  no caption lines (only --title's, if given)
 *   --width PX                    the same when no generator takes --width (kept for
 *                                 older scripts; see fennel_viz_take_width)
 */
#ifndef FENNEL_RUN_OUTPUTS_H
#define FENNEL_RUN_OUTPUTS_H

#include "cli.h"
#include "critical_path.h"
#include "output.h"
#include "trace.h"

typedef struct {
    char *timeline, *trace, *dag, *dot, *window, *ranks_shown;
    char *picture_width_text; /* --picture-width */
    char *picture_size_text;  /* --picture-size */
    char *title;              /* --title */
    gboolean no_caption;      /* --no-caption */
    char *width;              /* taken from the generator options, see fennel_viz_take_width */

    /* Parsed by fennel_viz_options_check(). */
    double picture_width;
    double page_width, page_height; /* --picture-size, 0 when not given */
    FennelTime from, to;            /* to == FENNEL_TIME_MAX: to the end of the run */
    GArray *ranges;                 /* uint32_t pairs [first, last] of --ranks-shown */
    uint32_t *ranks;                /* the ranks shown, ascending, once the rank count is known */
    uint32_t n_shown;
} FennelVizOptions;

#define FENNEL_VIZ_OPTION_ENTRIES(o)                                                               \
    {"timeline",                                                                                   \
     0,                                                                                            \
     0,                                                                                            \
     G_OPTION_ARG_FILENAME,                                                                        \
     &(o).timeline,                                                                                \
     "Draw the run as a timeline (.svg, .png or .pdf)",                                            \
     "FILE"},                                                                                      \
        {"trace",    0,                                                                            \
         0,          G_OPTION_ARG_FILENAME,                                                        \
         &(o).trace, "Write a Chrome/Perfetto trace of the run (JSON)",                            \
         "FILE.json"},                                                                             \
        {"dag",    0,                                                                              \
         0,        G_OPTION_ARG_FILENAME,                                                          \
         &(o).dag, "Draw the program: ranks by dependency depth (.svg, .png or .pdf)",             \
         "FILE"},                                                                                  \
        {"dot",     0, 0, G_OPTION_ARG_FILENAME, &(o).dot, "Write the program for Graphviz",       \
         "FILE.dot"},                                                                              \
        {"time-window",                                                                            \
         0,                                                                                        \
         0,                                                                                        \
         G_OPTION_ARG_STRING,                                                                      \
         &(o).window,                                                                              \
         "Timeline: draw only this time window (0:2us, 1.5us:, :800ns)",                           \
         "A:B"},                                                                                   \
        {"picture-width",                                                                          \
         0,                                                                                        \
         0,                                                                                        \
         G_OPTION_ARG_STRING,                                                                      \
         &(o).picture_width_text,                                                                  \
         "Timeline and program view: the picture's width in pixels (default 1200)",                \
         "PX"},                                                                                    \
        {"picture-size",                                                                           \
         0,                                                                                        \
         0,                                                                                        \
         G_OPTION_ARG_STRING,                                                                      \
         &(o).picture_size_text,                                                                   \
         "Timeline and program view: write the picture at W x H (points in a PDF), scaled to fit", \
         "WxH"},                                                                                   \
        {"title",                                                                                  \
         0,                                                                                        \
         0,                                                                                        \
         G_OPTION_ARG_STRING,                                                                      \
         &(o).title,                                                                               \
         "Timeline and program view: the caption's first line (default: program and model)",       \
         "TEXT"},                                                                                  \
        {"no-caption",                                                                             \
         0,                                                                                        \
         0,                                                                                        \
         G_OPTION_ARG_NONE,                                                                        \
         &(o).no_caption,                                                                          \
         "Timeline and program view: no caption (only --title, if given)",                         \
         NULL},                                                                                    \
    {                                                                                              \
        "ranks-shown", 0, 0, G_OPTION_ARG_STRING, &(o).ranks_shown,                                \
            "Timeline and program view: the ranks to draw (0-7,12)", "LIST"                        \
    }

/* The picture's width is --picture-width. --width is a generator option (the multicast
 * width); for older scripts it is also taken as the picture width when a picture is asked
 * for (--timeline or --dag), --picture-width is not given, and the generator, if any, has no
 * --width of its own; then it moves from gen to o. */
void fennel_viz_take_width(FennelVizOptions *o, FennelGenTextOptions *gen, const char *generate);

/* Checks what can be checked before a run: picture formats, the window, the syntax of
 * the rank list, the width, and that the picture options have a picture to apply to.
 * Usage errors (exit 2). */
gboolean fennel_viz_options_check(FennelVizOptions *o, GError **error);

/* Parses "WxH" (decimals allowed, each 10..100000) for `option` (--picture-size, plot's
 * --size); a usage error otherwise. */
gboolean fennel_viz_parse_size(const char *option, const char *text, double *width, double *height,
                               GError **error);

/* Once the rank count is known (before simulating): ranks shown must exist. */
gboolean fennel_viz_check_ranks(FennelVizOptions *o, uint32_t n_ranks, GError **error);

/* Whether an output needs the run's trace. */
gboolean fennel_viz_needs_trace(const FennelVizOptions *o);

/* Writes every requested output after the run, as part of `out` (output.h: all or none of a
 * run's files appear). `about` describes the model (for the captions and the trace's
 * metadata); `path` is the critical path to highlight on the timeline, or NULL. */
gboolean fennel_viz_write(const FennelVizOptions *o, FennelOutputs *out, const FennelTrace *trace,
                          FennelProgram *const *programs, uint32_t n_ranks, uint32_t processes,
                          const char *about, const FennelCriticalPath *path, GError **error);

void fennel_viz_options_clear(FennelVizOptions *o);

#endif
