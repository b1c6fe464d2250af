/* The two GOAL dialects in the table of formats (formats.h): LogGOPSim's, told by its first
 * statement, and the original Fennel's, a `.goal` file of another shape. */
#include "formats.h"
#include "goal_readers.h"

#include <string.h>

extern const FennelFormatClass fennel_format_goal;        /* below; the table lists it */
extern const FennelFormatClass fennel_format_fennel_goal; /* below; the table lists it */

static gboolean detect_goal(const char *file, const char *data, gsize length)
{
    (void)file;
    return fennel_goal_is_loggopsim(data, length);
}

/* LogGOPSim GOAL's fast path takes only ASCII text without a NUL, so for what it takes the
 * checks of the whole text would find nothing: it goes first, and keeps the text for the
 * names it makes when asked (goal_readers.h). What it declines is checked and read again by
 * the careful reader. */
static FennelProgram *read_goal(const FennelFormatInput *in, const FennelReadOptions *options,
                                const FennelLimits *limits, GError **error)
{
    if (options == NULL || options->size <= 0) {
        GError *fast_error = NULL;
        FennelProgram *p = fennel__goal_fast_read_text(in->file, in->bytes, in->length, in->mapped,
                                                       limits, &fast_error);
        /* A mapped file's pages are the page cache's; a text read from a pipe would be the
         * process's own, and larger than the names. */
        if (p && !in->mapped)
            fennel_program_detach_text(p);
        if (fast_error)
            g_propagate_error(error, fast_error);
        if (p || fast_error)
            return p;
    }
    if (!fennel_format_check_text(&fennel_format_goal, in, options, error))
        return NULL;
    return fennel__goal_careful_read(in->file, in->data, in->length, limits, error);
}

static gboolean write_goal(const FennelProgram *p, const struct FennelModel *model, FennelSink *out,
                           GError **error)
{
    return fennel_program_stream_goal(p, model, out, error);
}

const FennelFormatClass fennel_format_goal = {
    .name = "goal",
    .description = "LogGOPSim's GOAL (starts with num_ranks)",
    .needs = FENNEL_FORMAT_UTF8,
    .detect = detect_goal,
    .read = read_goal,
    .write = write_goal,
    .comment = "// ",
};

static gboolean detect_fennel_goal(const char *file, const char *data, gsize length)
{
    (void)data, (void)length;
    return g_str_has_suffix(file, ".goal");
}

static FennelProgram *read_fennel_goal(const FennelFormatInput *in,
                                       const FennelReadOptions *options, const FennelLimits *limits,
                                       GError **error)
{
    if (!fennel_format_check_text(&fennel_format_fennel_goal, in, options, error))
        return NULL;
    return fennel_goal_parse_fennel(in->file, in->data, in->length, limits, error);
}

static gboolean write_fennel_goal(const FennelProgram *p, const struct FennelModel *model,
                                  FennelSink *out, GError **error)
{
    (void)model;
    return fennel_program_stream_fennel_goal(p, out, error);
}

const FennelFormatClass fennel_format_fennel_goal = {
    .name = "fennel-goal",
    .description = "the original Fennel's GOAL (a .goal file of another shape)",
    .needs = FENNEL_FORMAT_UTF8,
    .detect = detect_fennel_goal,
    .read = read_fennel_goal,
    .write = write_fennel_goal,
    .comment = "# ",
};
