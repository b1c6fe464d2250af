/* Chakra execution traces in the table of formats (formats.h): one PREFIX.RANK.et per rank,
 * read by name and written a file per rank. */
#include "chakra.h"
#include "formats.h"

#include "errors.h"

#include <string.h>

static gboolean detect_chakra(const char *file, const char *data, gsize length)
{
    (void)file;
    return fennel_chakra_detect(data, length);
}

static FennelProgram *no_expand(void *data, int64_t kind, int64_t bytes, uint32_t ranks,
                                GError **error)
{
    (void)data, (void)bytes, (void)ranks;
    g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                "a %s collective, which this command does not expand",
                fennel_chakra_collective_name(kind));
    return NULL;
}

static FennelProgram *read_chakra(const FennelFormatInput *in, const FennelReadOptions *options,
                                  const FennelLimits *limits, GError **error)
{
    const char *file = in->file;
    gboolean custom = options && options->expand;
    FennelProgram *p = fennel_chakra_load(
        file, custom ? options->expand : no_expand, custom ? options->expand_data : NULL,
        options ? options->size : 0, options ? options->model : NULL, limits, error);
    if (p) {
        /* The trace's name: the file's, without its rank and extension. */
        char *base = g_path_get_basename(file);
        char *dot = g_str_has_suffix(base, ".et") ? strrchr(base, '.') : NULL;
        if (dot) {
            *dot = '\0';
            char *rank = strrchr(base, '.');
            if (rank && rank[1] && strspn(rank + 1, "0123456789") == strlen(rank + 1))
                *rank = '\0';
        }
        g_free(p->name);
        p->name = base;
    }
    return p;
}

/* PREFIX for a file named PREFIX.RANK.et (the trace it is one rank of), else NULL. */
static char *trace_prefix(const char *file)
{
    if (!g_str_has_suffix(file, ".et"))
        return NULL;
    gsize end = strlen(file) - 3, digits = end;
    while (digits > 0 && g_ascii_isdigit(file[digits - 1]))
        digits--;
    if (digits == end || digits < 2 || file[digits - 1] != '.')
        return NULL;
    return g_strndup(file, digits - 1);
}

const FennelFormatClass fennel_format_chakra = {
    .name = "chakra",
    .description = "Chakra execution traces (ASTRA-sim), one PREFIX.RANK.et per rank; "
                   "collectives by --collective-algorithm",
    .needs = FENNEL_FORMAT_BY_NAME,
    .detect = detect_chakra,
    .read = read_chakra,
    .write_ranks = fennel_chakra_write,
    .extension = ".et",
    .program_name = trace_prefix,
};
