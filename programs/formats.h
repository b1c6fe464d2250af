/* Program formats: one descriptor per format (in the format's folder), one table of them
 * (formats.c) in the order fennel tells them apart by content. Reading, `generate -f`,
 * `verify`, `convert` and `fennel list` all go through the table: a new format is its folder,
 * a line in the table and its files in meson.build (HACKING.md, Adding a format). */
#ifndef FENNEL_FORMATS_H
#define FENNEL_FORMATS_H

#include "output.h"
#include "program_io.h"

struct FennelModel;

/* What a format needs or is, beyond its functions. */
typedef enum {
    /* An algorithm file: read at --size bytes per rank. Every other format refuses --size,
     * since its sizes are its own. */
    FENNEL_FORMAT_SIZED = 1 << 0,
    /* Read by the file's name (one file per rank): the text mapped to tell the format is let
     * go before the reader runs, and in->data is not given. */
    FENNEL_FORMAT_BY_NAME = 1 << 1,
    /* Text checked as UTF-8 before it is read (YAML's reader makes its own check). */
    FENNEL_FORMAT_UTF8 = 1 << 2,
    /* Written by `convert` (a binary cache of any program), not by `generate -f`, whose
     * output starts with a comment line. */
    FENNEL_FORMAT_CONVERTS = 1 << 3,
    /* The format `generate --from` writes with what it can carry of the source's own
     * meaning (the source format's `carry`): YAML. */
    FENNEL_FORMAT_CARRIER = 1 << 4,
} FennelFormatNeeds;

/* A file being read: its name and its text (mapped or read whole). */
typedef struct {
    const char *file;
    GBytes *bytes;
    const char *data;
    gsize length;
    gboolean mapped; /* the text is the page cache's, not the process's */
} FennelFormatInput;

/* What `verify` made of a file in its format's own terms. */
typedef enum {
    FENNEL_FORMAT_CHECKED,        /* line holds the verdict */
    FENNEL_FORMAT_NOT_CHECKED,    /* not an algorithm: verify reads it as a program (*program
                                   * when the check read it already) */
    FENNEL_FORMAT_REFUSED,        /* the file or its check failed: error */
    FENNEL_FORMAT_OWN_COLLECTIVE, /* --collective or --root for a file that names its own
                                   * collective: a usage error, error says it */
} FennelFormatCheck;

typedef struct FennelFormatClass {
    const char *name;
    const char *description; /* one line for `fennel list` */
    unsigned needs;          /* FennelFormatNeeds */

    /* Whether a file is of this format, before it is read (NULL: told by its text only);
     * only for a regular file, never a pipe. */
    gboolean (*detect_file)(const char *file);
    /* Reads a file detect_file recognised, by its name. */
    FennelProgram *(*read_file)(const char *file, const FennelReadOptions *options,
                                const FennelLimits *limits, GError **error);
    /* Whether the text is of this format. NULL for the format every text is when no
     * other claims it (YAML) and for formats fennel does not read. */
    gboolean (*detect)(const char *file, const char *data, gsize length);
    /* Reads the program (NULL: not read). Text formats call fennel_format_check_text first. */
    FennelProgram *(*read)(const FennelFormatInput *in, const FennelReadOptions *options,
                           const FennelLimits *limits, GError **error);

    /* Writes the program into a sink that may go out to the file as it fills (output.h);
     * model is NULL unless the command line gave one (a writer that needs it says so). What
     * the written file does not keep of the program's times, one sentence each, the writer
     * leaves in the sink's notes; generate prints them as warnings. */
    gboolean (*write)(const FennelProgram *p, const struct FennelModel *model, FennelSink *out,
                      GError **error);
    const char *comment; /* starts a comment line (generate writes the command line in one) */
    /* A format of a file per rank: every rank's file (PREFIX.RANK+extension), or NULL with
     * the error. */
    GString **(*write_ranks)(const FennelProgram *p, const struct FennelModel *model,
                             GError **error);
    const char *extension;

    /* `verify` in the format's own terms; collective_given: --collective or --root. NULL:
     * verify reads the file as a program and checks the collective it names. */
    FennelFormatCheck (*verify)(const char *file, const char *data, gsize length,
                                gboolean collective_given, GString *line, FennelProgram **program,
                                GError **error);
    /* `generate --from FILE -f yaml` of a file of this format: writes the program p read
     * from it as YAML that carries the source's own meaning (MSCCL: the algorithm); FALSE
     * when it cannot, and the plain writer then runs. */
    gboolean (*carry)(const char *file, const char *data, gsize length, const FennelProgram *p,
                      GString *out);
    /* A format of a file per rank: the name of the whole program when `file` is named as one
     * rank's file of it (Chakra: PREFIX for PREFIX.RANK.et), else NULL; g_free it. */
    char *(*program_name)(const char *file);
} FennelFormatClass;

/* The formats in detection order, NULL-terminated. */
extern const FennelFormatClass *const fennel_formats[];

/* The format of that name, or NULL. */
const FennelFormatClass *fennel_format_find(const char *name);

/* The format of a text (file names the file, for formats told by its name too). */
const FennelFormatClass *fennel_format_detect(const char *file, const char *data, gsize length);

/* Whether fennel reads, writes the format (for `fennel list`), and whether `generate -f`
 * writes it. */
gboolean fennel_format_reads(const FennelFormatClass *f);
gboolean fennel_format_writes(const FennelFormatClass *f);
gboolean fennel_format_generates(const FennelFormatClass *f);

/* The checks every text format makes before reading, in this order: no NUL byte, no --size
 * unless the format is SIZED, UTF-8 when it asks for it. FALSE with the error. */
gboolean fennel_format_check_text(const FennelFormatClass *f, const FennelFormatInput *in,
                                  const FennelReadOptions *options, GError **error);

/* The error of --size given for a format whose sizes are its own. */
void fennel_format_refuse_size(const char *file, GError **error);

/* `verify` of a file: its format's own check, or FENNEL_FORMAT_NOT_CHECKED (with *program
 * when the check read it) when the format has none or the file is not an algorithm. */
FennelFormatCheck fennel_format_verify(const char *file, gboolean collective_given, GString *line,
                                       FennelProgram **program, GError **error);

/* The files of a command line with every file after the first that names the same program
 * as an earlier one left out (a shell glob over a trace's rank files, trace.*.et, names one
 * trace, not one per file); a new NULL-terminated array of the same strings (g_free it). */
char **fennel_format_distinct_programs(char **files);

/* `generate --from FILE` into a carrier format: the source's format writes p with its own
 * meaning; FALSE when it has nothing to carry (the format's plain writer then runs). */
gboolean fennel_format_carry(const char *from, const FennelFormatClass *to, const FennelProgram *p,
                             FennelSink *out);

#endif
