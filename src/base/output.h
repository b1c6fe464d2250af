/* Output files are written atomically: to a temporary file beside the target, then
 * renamed over it, so a failed run never leaves a half-written file (README, Commands). */
#ifndef FENNEL_OUTPUT_H
#define FENNEL_OUTPUT_H

#include <glib.h>

gboolean fennel_write_file(const char *path, const char *data, gsize length, GError **error);

/* Files written together (a run's --tasks, --trace, --timeline...): each is written to its
 * temporary file at once, and all are renamed into place by fennel_outputs_commit, or all
 * removed by fennel_outputs_abort, so that a failed run leaves none of them. SIGINT, SIGTERM
 * and SIGHUP wait from fennel_outputs_new until then. A device target (/dev/null) or the
 * process's own descriptor (/dev/stdout, fennel_output_descriptor) is written at once, in place.
 * fennel_outputs_write with a NULL set is fennel_write_file. */
typedef struct FennelOutputs FennelOutputs;
FennelOutputs *fennel_outputs_new(void);
gboolean fennel_outputs_write(FennelOutputs *o, const char *path, const char *data, gsize length,
                              GError **error);
/* Renames every staged file into place, or none: each target is checked before the first
 * rename, an existing one is kept aside until all renames succeeded, and after a failure what
 * was replaced is put back and what was added removed. A target that is a directory is
 * refused when its file is written ("cannot write: is a directory"). Frees the set either
 * way: fennel_outputs_abort is for a set that is not committed. */
gboolean fennel_outputs_commit(FennelOutputs *o, GError **error);
void fennel_outputs_abort(FennelOutputs *o);

/* Text written in pieces (a program's YAML or GOAL): a writer appends to `text` and calls
 * fennel_sink_spill where a piece ends; a sink on a file writes the text out once it holds
 * FENNEL_SINK_SPILL bytes or more, so that a writer holds a megabyte, not its whole output. A
 * sink on a string (fennel_sink_on_string) keeps everything. After a failed write `failed`
 * holds its errno and later text is dropped: the owner reports it when it closes the sink. */
typedef struct {
    GString *text;
    int fd;     /* -1: none (a string) */
    int failed; /* errno of the first failed write, or 0 */
    /* What a writer has to say of the program beside its text (the GOAL writer's caveats,
     * formats.h), NULL-terminated, or NULL: the sink's owner prints them and g_strfreev()s
     * them (fennel_outputs_close_sink frees what is left). */
    char **notes;
} FennelSink;

#define FENNEL_SINK_SPILL (1u << 20)

FennelSink fennel_sink_on_string(GString *text);
void fennel_sink_flush(FennelSink *s);
static inline void fennel_sink_spill(FennelSink *s)
{
    if (s->text->len >= FENNEL_SINK_SPILL && s->fd >= 0)
        fennel_sink_flush(s);
}

/* Stages `path` in the set as fennel_outputs_write does and returns a sink on its temporary
 * file (or on the device itself): text goes out as it spills. fennel_outputs_close_sink writes
 * the rest, closes the file and frees the sink, reporting the first failed write; the file is
 * then placed or removed with the set's other files. */
FennelSink *fennel_outputs_open(FennelOutputs *o, const char *path, GError **error);
gboolean fennel_outputs_close_sink(FennelOutputs *o, FennelSink *sink, GError **error);

/* The descriptor a path names, or -1: 1 for /dev/stdout, 2 for /dev/stderr, N for /dev/fd/N
 * and /proc/self/fd/N. Outputs to these are written through the process's own descriptor
 * (at its offset, in place), never staged and renamed: a rename would replace the file the
 * shell opened, or the /dev/stdout link itself. */
int fennel_output_descriptor(const char *path);

/* Whether two paths name one file: the same file through any name or link when both exist,
 * the same name in the same folder (links resolved) when neither does. For commands that
 * must not write over one of their inputs. */
gboolean fennel_same_file(const char *a, const char *b);

#endif
