/* Graphviz DOT in the table of formats (formats.h): written, to look at the DAG. */
#include "formats.h"

static gboolean write_dot(const FennelProgram *p, const struct FennelModel *model, FennelSink *out,
                          GError **error)
{
    (void)model, (void)error;
    fennel_program_write_dot(p, out->text);
    return TRUE;
}

const FennelFormatClass fennel_format_dot = {
    .name = "dot",
    .description = "Graphviz, to look at the DAG",
    .write = write_dot,
    .comment = "// ",
};
