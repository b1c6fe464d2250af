/* fennel convert: read a program file of any format and write it as fennel's binary program
 * (docs/FORMATS.md, Binary programs), which run, verify, validate, sweep and generate --from
 * read by mapping it: a cache for traces read many times. */
#include "cli.h"
#include "formats.h"
#include "output.h"
#include "program_io.h"

/* The format convert writes: the table's (formats.h) that says so. */
static const FennelFormatClass *converted_format(void)
{
    for (const FennelFormatClass *const *f = fennel_formats; *f; f++) {
        if ((*f)->needs & FENNEL_FORMAT_CONVERTS)
            return *f;
    }
    g_assert_not_reached();
}

static int convert(const char *input, const char *output, FennelCliRead *read)
{
    GError *error = NULL;
    FennelProgram *p = fennel_program_read_with(input, &read->read, NULL, &error);
    if (p == NULL)
        return fennel_cli_fail(error);
    /* The text read (a GOAL file's, whose names are made from it) is let go once the names
     * are made: the peak is the program and a megabyte of output, not the input too. */
    fennel_program_detach_text(p);
    FennelOutputs *set = fennel_outputs_new();
    FennelSink *out = fennel_outputs_open(set, output, &error);
    gboolean ok = out && converted_format()->write(p, NULL, out, &error);
    if (out && !fennel_outputs_close_sink(set, out, ok ? &error : NULL))
        ok = FALSE;
    if (ok)
        ok = fennel_outputs_commit(set, &error);
    else
        fennel_outputs_abort(set);
    fennel_program_free(p);
    return ok ? 0 : fennel_cli_fail(error);
}

int fennel_cmd_convert(int argc, char **argv)
{
    char **files = NULL;
    char *output = NULL, *size = NULL, *algorithms = NULL, *slice = NULL;
    GOptionEntry entries[] = {
        {"output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
         "Write the binary program to FILE (atomically; required)", "FILE"},
        {"size", 's', 0, G_OPTION_ARG_STRING, &size, "Bytes per rank for algorithm files (MSCCL)",
         "BYTES"},
        FENNEL_SLICE_ENTRY(slice),
        FENNEL_COLLECTIVE_ALGORITHM_ENTRY(algorithms),
        {G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &files, NULL, "PROGRAM"},
        {NULL, 0, 0, 0, NULL, NULL, NULL},
    };
    int status = 0;
    if (!fennel_cli_parse("convert", "PROGRAM -o FILE",
                          "Write a program file of any format as fennel's binary program, which "
                          "fennel reads at memory speed.",
                          entries, &argc, &argv, &status))
        return status;
    if (files == NULL || files[0] == NULL) {
        fennel_cli_error("convert: no program given (fennel convert PROGRAM -o FILE)\n");
        status = 2;
    } else if (files[1] != NULL) {
        fennel_cli_error("convert: one program at a time ('%s' is a second)\n", files[1]);
        status = 2;
    } else if (output == NULL) {
        fennel_cli_error("convert: no output given: -o FILE (a binary file, not for a "
                         "terminal)\n");
        status = 2;
    } else if (fennel_same_file(files[0], output)) {
        /* The binary would replace its own source. */
        fennel_cli_error("convert: -o %s is the program being converted: give another file",
                         output);
        status = 2;
    } else {
        FennelGenTextOptions gen = {.size = size};
        FennelCliRead read;
        GError *error = NULL;
        if (fennel_cli_read_setup("convert", &gen, algorithms, slice, &read, &error))
            status = convert(files[0], output, &read);
        else
            status = fennel_cli_fail(error);
        fennel_cli_read_clear(&read);
    }
    g_strfreev(files);
    g_free(output);
    g_free(size);
    g_free(algorithms);
    g_free(slice);
    return status;
}
