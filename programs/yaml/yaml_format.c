/* fennel's YAML program format in the table of formats (formats.h): every text no other
 * format claims, and the format `generate --from` writes an MSCCL algorithm's meaning in. */
#include "formats.h"
#include "msccl.h"

#include <string.h>

extern const FennelFormatClass fennel_format_yaml; /* below; the table lists it */

static FennelProgram *read_yaml(const FennelFormatInput *in, const FennelReadOptions *options,
                                const FennelLimits *limits, GError **error)
{
    if (!fennel_format_check_text(&fennel_format_yaml, in, options, error))
        return NULL;
    return fennel_program_parse_yaml_with(in->file, in->data, in->length, FENNEL_YAML_AUTO, limits,
                                          error);
}

static gboolean write_yaml(const FennelProgram *p, const struct FennelModel *model, FennelSink *out,
                           GError **error)
{
    (void)model, (void)error;
    fennel_program_stream_yaml(p, out);
    return TRUE;
}

/* A YAML program written from an MSCCL algorithm carries it (docs/FORMATS.md) and is checked
 * as the XML is; any other is a program (the reader refuses binary data with its own
 * message). */
static FennelFormatCheck verify_yaml(const char *file, const char *data, gsize length,
                                     gboolean collective_given, GString *line,
                                     FennelProgram **program, GError **error)
{
    if (memchr(data, '\0', length) != NULL)
        return FENNEL_FORMAT_NOT_CHECKED;
    return fennel_msccl_check_yaml(file, data, length, collective_given, line, program, error);
}

const FennelFormatClass fennel_format_yaml = {
    .name = "yaml",
    .description = "fennel's program format (tasks with after: lists)",
    .needs = FENNEL_FORMAT_CARRIER,
    .read = read_yaml,
    .write = write_yaml,
    .comment = "# ",
    .verify = verify_yaml,
};
