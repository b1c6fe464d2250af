/* Reading a program file of any format: the format is told by the content (and, for the
 * original Fennel's GOAL, by the `.goal` name) through the table of formats (formats.c),
 * then the file goes to its reader: one indirect call per file. */
#include "formats.h"
#include "program_io.h"

#include "input.h"

FennelProgram *fennel_program_read_with(const char *file, const FennelReadOptions *options,
                                        const FennelLimits *limits, GError **error)
{
    /* A format told before the file is read (a binary program, which is mapped, not read). */
    for (const FennelFormatClass *const *f = fennel_formats; *f; f++) {
        if ((*f)->detect_file && (*f)->detect_file(file))
            return (*f)->read_file(file, options, limits, error);
    }
    FennelFormatInput in = {.file = file};
    in.bytes = fennel_map_input(file, &in.mapped, error);
    if (in.bytes == NULL)
        return NULL;
    in.data = g_bytes_get_data(in.bytes, &in.length);
    const FennelFormatClass *format = fennel_format_detect(file, in.data, in.length);
    if (format->needs & FENNEL_FORMAT_BY_NAME) {
        g_clear_pointer(&in.bytes, g_bytes_unref);
        in.data = NULL;
        in.length = 0;
    }
    FennelProgram *p = format->read(&in, options, limits, error);
    if (in.bytes)
        g_bytes_unref(in.bytes);
    return p;
}

FennelProgram *fennel_program_read(const char *file, const FennelLimits *limits, GError **error)
{
    return fennel_program_read_with(file, NULL, limits, error);
}
