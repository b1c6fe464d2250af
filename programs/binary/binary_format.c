/* fennel's binary program in the table of formats (formats.h): told by its magic number,
 * mapped rather than read, written by `convert`. */
#include "formats.h"

/* A binary program's sizes are its own: --size is refused (TRUE, with the error). */
static gboolean sized(const char *file, const FennelReadOptions *options, GError **error)
{
    if (options == NULL || options->size <= 0)
        return FALSE;
    fennel_format_refuse_size(file, error);
    return TRUE;
}

static FennelProgram *read_binary_file(const char *file, const FennelReadOptions *options,
                                       const FennelLimits *limits, GError **error)
{
    return sized(file, options, error) ? NULL : fennel_program_read_binary(file, limits, error);
}

static gboolean detect_binary(const char *file, const char *data, gsize length)
{
    (void)file;
    return fennel_program_is_binary(data, length);
}

/* From a pipe: the program keeps the bytes read. */
static FennelProgram *read_binary(const FennelFormatInput *in, const FennelReadOptions *options,
                                  const FennelLimits *limits, GError **error)
{
    return sized(in->file, options, error)
               ? NULL
               : fennel_program_parse_binary(in->file, in->bytes, limits, error);
}

static gboolean write_binary(const FennelProgram *p, const struct FennelModel *model,
                             FennelSink *out, GError **error)
{
    (void)model;
    return fennel_program_stream_binary(p, out, error);
}

const FennelFormatClass fennel_format_binary = {
    .name = "fbin",
    .description = "fennel's binary program (fennel convert): any program, read at memory speed",
    .needs = FENNEL_FORMAT_CONVERTS,
    .detect_file = fennel_program_file_is_binary,
    .read_file = read_binary_file,
    .detect = detect_binary,
    .read = read_binary,
    .write = write_binary,
};
