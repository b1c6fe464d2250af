/* The outputs of `fennel run` that draw or export the run. */
#include "run_outputs.h"

#include "chrome_trace.h"
#include "dag_view.h"
#include "errors.h"
#include "formats.h"
#include "output.h"
#include "program_io.h"
#include "timeline.h"

#include <string.h>

#define MIN_WIDTH 300
#define MAX_WIDTH 16384

static gboolean usage(GError **error, const char *format, ...) G_GNUC_PRINTF(2, 3);

static gboolean usage(GError **error, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    char *message = g_strdup_vprintf(format, args);
    va_end(args);
    g_set_error_literal(error, FENNEL_ERROR, FENNEL_ERROR_USAGE, message);
    g_free(message);
    return FALSE;
}

static gboolean wants_picture(const FennelVizOptions *o)
{
    return o->timeline != NULL || o->dag != NULL;
}

void fennel_viz_take_width(FennelVizOptions *o, FennelGenTextOptions *gen, const char *generate)
{
    if (gen->width == NULL || !wants_picture(o) || o->picture_width_text)
        return;
    const FennelGenerator *g = generate ? fennel_generator_find(generate) : NULL;
    if (g != NULL && (g->options & FENNEL_GEN_WIDTH))
        return;
    o->width = gen->width;
    gen->width = NULL;
}

static gboolean parse_time(const char *text, const char *whole, FennelTime *out, GError **error)
{
    const char *why;
    if (!fennel_parse_duration(text, out, &why))
        return usage(error, "--time-window %s: %s: %s", whole, text, why);
    return TRUE;
}

static gboolean parse_window(FennelVizOptions *o, GError **error)
{
    o->from = 0;
    o->to = FENNEL_TIME_MAX;
    if (o->window == NULL)
        return TRUE;
    const char *colon = strchr(o->window, ':');
    if (colon == NULL || strchr(colon + 1, ':') != NULL || (colon == o->window && !colon[1]))
        return usage(error,
                     "--time-window %s: expected A:B, two times such as 0:2us (A: or :B "
                     "leave that side open)",
                     o->window);
    char *a = g_strndup(o->window, colon - o->window);
    gboolean ok = (*a == '\0' || parse_time(a, o->window, &o->from, error)) &&
                  (colon[1] == '\0' || parse_time(colon + 1, o->window, &o->to, error));
    g_free(a);
    if (ok && o->to <= o->from)
        return usage(error,
                     "--time-window %s: the window is empty (its end must come after its "
                     "start)",
                     o->window);
    return ok;
}

/* "0-7,12,100-103": ranges of ranks. */
static gboolean parse_ranks(FennelVizOptions *o, GError **error)
{
    if (o->ranks_shown == NULL)
        return TRUE;
    o->ranges = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    char **items = g_strsplit(o->ranks_shown, ",", -1);
    gboolean ok = items[0] != NULL;
    for (char **item = items; ok && *item; item++) {
        char *dash = strchr(*item, '-');
        char *first = dash ? g_strndup(*item, dash - *item) : g_strdup(*item);
        const char *last = dash ? dash + 1 : first;
        int64_t a, b;
        const char *why;
        if (!fennel_parse_int(first, 0, UINT32_MAX - 1, &a, &why) ||
            !fennel_parse_int(last, 0, UINT32_MAX - 1, &b, &why)) {
            ok = usage(error, "--ranks-shown %s: '%s' is not a rank or a range of ranks (0-7)",
                       o->ranks_shown, *item);
        } else if (b < a) {
            ok = usage(error, "--ranks-shown %s: the range %s is empty", o->ranks_shown, *item);
        } else {
            uint32_t pair[2] = {(uint32_t)a, (uint32_t)b};
            g_array_append_vals(o->ranges, pair, 2);
        }
        g_free(first);
    }
    if (items[0] == NULL)
        usage(error, "--ranks-shown: expected a list of ranks, such as 0-7,12");
    g_strfreev(items);
    return ok;
}

static gboolean check_picture_path(const char *option, const char *path, GError **error)
{
    if (path != NULL && fennel_canvas_format(path) == NULL)
        return usage(error, "%s %s: unknown picture format (use .svg, .png or .pdf)", option, path);
    return TRUE;
}

gboolean fennel_viz_parse_size(const char *option, const char *text, double *width, double *height,
                               GError **error)
{
    char *end;
    double w = g_ascii_strtod(text, &end), h = 0;
    gboolean ok = end != text && (*end == 'x' || *end == 'X');
    if (ok) {
        const char *rest = end + 1;
        h = g_ascii_strtod(rest, &end);
        ok = end != rest && *end == '\0';
    }
    if (!ok || !(w >= 10 && w <= 100000) || !(h >= 10 && h <= 100000))
        return usage(error,
                     "%s %s: expected WIDTHxHEIGHT from 10 to 100000 each (points in a PDF, "
                     "pixels otherwise), e.g. 252x180",
                     option, text);
    *width = w;
    *height = h;
    return TRUE;
}

gboolean fennel_viz_options_check(FennelVizOptions *o, GError **error)
{
    if (!check_picture_path("--timeline", o->timeline, error) ||
        !check_picture_path("--dag", o->dag, error))
        return FALSE;
    if (o->window && o->timeline == NULL)
        return usage(error, "--time-window applies to the timeline: add --timeline FILE");
    if (o->ranks_shown && !wants_picture(o))
        return usage(error, "--ranks-shown applies to pictures: add --timeline FILE or --dag FILE");
    o->picture_width = 1200;
    const char *text = o->picture_width_text ? o->picture_width_text : o->width;
    const char *name = o->picture_width_text ? "--picture-width" : "--width";
    if (o->picture_width_text && !wants_picture(o))
        return usage(error, "--picture-width applies to pictures: add --timeline FILE or --dag "
                            "FILE");
    const char *picture_only[] = {"--picture-size", o->picture_size_text,     "--title", o->title,
                                  "--no-caption",   o->no_caption ? "" : NULL};
    for (size_t i = 0; i < G_N_ELEMENTS(picture_only); i += 2) {
        if (picture_only[i + 1] && !wants_picture(o))
            return usage(error, "%s applies to pictures: add --timeline FILE or --dag FILE",
                         picture_only[i]);
    }
    if (o->picture_size_text && !fennel_viz_parse_size("--picture-size", o->picture_size_text,
                                                       &o->page_width, &o->page_height, error))
        return FALSE;
    if (text) {
        int64_t w;
        const char *why;
        if (!fennel_parse_int(text, MIN_WIDTH, MAX_WIDTH, &w, &why))
            return usage(error, "%s %s: expected a whole number of pixels from %d to %d", name,
                         text, MIN_WIDTH, MAX_WIDTH);
        o->picture_width = (double)w;
    }
    return parse_window(o, error) && parse_ranks(o, error);
}

gboolean fennel_viz_check_ranks(FennelVizOptions *o, uint32_t n_ranks, GError **error)
{
    if (o->ranges == NULL)
        return TRUE;
    for (guint i = 0; i < o->ranges->len; i += 2) {
        uint32_t last = g_array_index(o->ranges, uint32_t, i + 1);
        if (last >= n_ranks)
            return usage(error,
                         "--ranks-shown %s: rank %u is out of range (the run has %u rank%s, 0 "
                         "to %u)",
                         o->ranks_shown, last, n_ranks, n_ranks == 1 ? "" : "s", n_ranks - 1);
    }
    /* Ascending and without repeats, whatever order the list gave. */
    guint8 *on = g_new0(guint8, n_ranks);
    for (guint i = 0; i < o->ranges->len; i += 2) {
        for (uint32_t r = g_array_index(o->ranges, uint32_t, i);
             r <= g_array_index(o->ranges, uint32_t, i + 1); r++)
            on[r] = 1;
    }
    g_free(o->ranks);
    o->ranks = g_new(uint32_t, n_ranks);
    o->n_shown = 0;
    for (uint32_t r = 0; r < n_ranks; r++) {
        if (on[r])
            o->ranks[o->n_shown++] = r;
    }
    g_free(on);
    return TRUE;
}

gboolean fennel_viz_needs_trace(const FennelVizOptions *o)
{
    return o->timeline != NULL || o->trace != NULL;
}

static char *caption(FennelProgram *const *programs, const char *about)
{
    GString *s = g_string_new(NULL);
    for (FennelProgram *const *p = programs; *p; p++)
        g_string_append_printf(s, "%s%s", s->len ? ", " : "", (*p)->name ? (*p)->name : "program");
    if (about)
        g_string_append_printf(s, " under %s", about);
    return g_string_free(s, FALSE);
}

static gboolean write_timeline(const FennelVizOptions *o, FennelOutputs *out,
                               const FennelTrace *trace, uint32_t n_ranks, uint32_t processes,
                               const char *title, const FennelCriticalPath *path, GError **error)
{
    FennelTimeline *tl = fennel_timeline_from_trace(trace, n_ranks, processes);
    fennel_timeline_set_path(tl, path);
    FennelTimelineOptions opt;
    fennel_timeline_options_init(&opt);
    opt.width = o->picture_width;
    opt.from = o->from;
    opt.to =
        o->to == FENNEL_TIME_MAX ? MAX(MAX(tl->makespan, tl->end), o->from + FENNEL_NS) : o->to;
    if (o->window == NULL)
        opt.from = opt.to = 0;
    opt.ranks = o->ranks;
    opt.n_shown = o->n_shown;
    opt.title = title;
    opt.no_note = o->no_caption;
    FennelCanvas *c = fennel_timeline_draw(tl, &opt);
    fennel_canvas_set_page(c, o->page_width, o->page_height);
    gboolean ok = fennel_canvas_write_to(c, out, o->timeline, error);
    fennel_canvas_free(c);
    fennel_timeline_free(tl);
    return ok;
}

static gboolean write_dag(const FennelVizOptions *o, FennelOutputs *out,
                          FennelProgram *const *programs, uint32_t n_ranks, const char *title,
                          GError **error)
{
    guint n = 0;
    while (programs[n])
        n++;
    FennelDagOptions opt = {
        .width = o->picture_width, .ranks = o->ranks, .n_shown = o->n_shown, .title = title};
    FennelCanvas *c = fennel_dag_draw(programs, n, n_ranks, &opt, error);
    if (c == NULL)
        return FALSE;
    fennel_canvas_set_page(c, o->page_width, o->page_height);
    gboolean ok = fennel_canvas_write_to(c, out, o->dag, error);
    fennel_canvas_free(c);
    return ok;
}

/* --dot writes each program as `generate --format dot` does: the same row of the format
 * table, so the two never drift apart. */
static gboolean write_dot(const FennelVizOptions *o, FennelOutputs *out,
                          FennelProgram *const *programs, GError **error)
{
    const FennelFormatClass *dot = fennel_format_find("dot");
    FennelSink *sink = fennel_outputs_open(out, o->dot, error);
    if (sink == NULL)
        return FALSE;
    gboolean ok = TRUE;
    for (FennelProgram *const *p = programs; ok && *p; p++)
        ok = dot->write(*p, NULL, sink, error);
    if (!fennel_outputs_close_sink(out, sink, ok ? error : NULL))
        ok = FALSE;
    return ok;
}

gboolean fennel_viz_write(const FennelVizOptions *o, FennelOutputs *out, const FennelTrace *trace,
                          FennelProgram *const *programs, uint32_t n_ranks, uint32_t processes,
                          const char *about, const FennelCriticalPath *path, GError **error)
{
    /* --title replaces the caption's first line; --no-caption drops it. */
    char *title = o->title ? g_strdup(o->title) : o->no_caption ? NULL : caption(programs, about);
    gboolean ok = TRUE;
    if (ok && o->timeline)
        ok = write_timeline(o, out, trace, n_ranks, processes, title, path, error);
    if (ok && o->dag)
        ok = write_dag(o, out, programs, n_ranks, title, error);
    if (ok && o->trace) {
        GString *json = g_string_new(NULL);
        fennel_chrome_trace_write(trace, n_ranks, processes, about, json);
        ok = fennel_outputs_write(out, o->trace, json->str, json->len, error);
        g_string_free(json, TRUE);
    }
    if (ok && o->dot)
        ok = write_dot(o, out, programs, error);
    g_free(title);
    return ok;
}

void fennel_viz_options_clear(FennelVizOptions *o)
{
    char **all[] = {&o->timeline,
                    &o->trace,
                    &o->dag,
                    &o->dot,
                    &o->window,
                    &o->ranks_shown,
                    &o->width,
                    &o->picture_width_text,
                    &o->picture_size_text,
                    &o->title};
    for (size_t i = 0; i < G_N_ELEMENTS(all); i++) {
        g_free(*all[i]);
        *all[i] = NULL;
    }
    if (o->ranges)
        g_array_free(o->ranges, TRUE);
    o->ranges = NULL;
    g_free(o->ranks);
    o->ranks = NULL;
}
