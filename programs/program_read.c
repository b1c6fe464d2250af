/* Reading a program file of any format: the format is told by the content (and, for the
 * original Fennel's GOAL, by the `.goal` name), then the file goes to its reader. */
#include "program_io.h"

#include "errors.h"
#include "goal_readers.h"
#include "input.h"
#include "chakra.h"
#include "msccl.h"
#include "mscclpp.h"

#include <string.h>

const FennelFormatInfo fennel_program_formats[] = {
    {"yaml", TRUE, TRUE, "fennel's program format (tasks with after: lists)"},
    {"goal", TRUE, TRUE, "LogGOPSim's GOAL (starts with num_ranks)"},
    {"fennel-goal", TRUE, TRUE, "the original Fennel's GOAL (a .goal file of another shape)"},
    {"msccl", TRUE, FALSE,
     "MSCCL algorithm XML (starts with <algo>); needs --size; verify checks it in MSCCL's terms"},
    {"mscclpp", TRUE, FALSE,
     "MSCCL++ execution plans (JSON with \"gpus\" and \"collective\"), current and 2024 "
     "schemas; needs --size; verify checks it in MSCCL++'s terms"},
    {"chakra", TRUE, TRUE,
     "Chakra execution traces (ASTRA-sim), one PREFIX.RANK.et per rank; collectives by "
     "--collective-algorithm"},
    {"fbin", TRUE, TRUE,
     "fennel's binary program (fennel convert): any program, read at memory speed"},
    {"dot", FALSE, TRUE, "Graphviz, to look at the DAG"},
    {NULL, FALSE, FALSE, NULL},
};

FennelFormat fennel_program_detect(const char *file, const char *data, gsize length)
{
    if (fennel_program_is_binary(data, length))
        return FENNEL_FORMAT_BINARY;
    if (fennel_chakra_detect(data, length))
        return FENNEL_FORMAT_CHAKRA;
    if (fennel_msccl_detect(data, length))
        return FENNEL_FORMAT_MSCCL;
    if (fennel_mscclpp_detect(data, length))
        return FENNEL_FORMAT_MSCCLPP;
    if (fennel_goal_is_loggopsim(data, length))
        return FENNEL_FORMAT_GOAL;
    if (g_str_has_suffix(file, ".goal"))
        return FENNEL_FORMAT_FENNEL_GOAL;
    return FENNEL_FORMAT_YAML;
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

static FennelProgram *read_chakra(const char *file, const FennelReadOptions *options,
                                  const FennelLimits *limits, GError **error)
{
    FennelChakraTrace *t = fennel_chakra_read(file, limits, error);
    if (t == NULL)
        return NULL;
    gboolean custom = options && options->expand;
    FennelProgram *p = fennel_chakra_lower(t, custom ? options->expand : no_expand,
                                           custom ? options->expand_data : NULL, limits, error);
    fennel_chakra_free(t);
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

static FennelProgram *read_msccl(const char *file, const char *data, gsize length,
                                 const FennelReadOptions *options, const FennelLimits *limits,
                                 GError **error)
{
    FennelMscclAlgo *a = fennel_msccl_parse(file, data, length, error);
    if (a == NULL)
        return NULL;
    FennelProgram *p = NULL;
    int64_t size = options ? options->size : 0;
    if (size <= 0 && options && options->chunk_bytes)
        size = a->nchunksperloop / fennel_msccl_multiplier(a);
    if (size <= 0)
        fennel_error_at_code(error, FENNEL_ERROR_USAGE, file, 0, 0,
                             "an MSCCL algorithm needs --size BYTES, the buffer of one rank "
                             "(NCCL's count times the element size)");
    else if (fennel_msccl_chunk_bytes(a, size) == 0)
        fennel_error_at_code(error, FENNEL_ERROR_USAGE, file, 0, 0,
                             "--size %" G_GINT64_FORMAT " is smaller than one of the algorithm's "
                             "%u chunks",
                             size, a->nchunksperloop / fennel_msccl_multiplier(a));
    else
        p = fennel_msccl_lower(a, size, options ? options->slice : 0, limits, error);
    fennel_msccl_free(a);
    return p;
}

static FennelProgram *read_mscclpp(const char *file, const char *data, gsize length,
                                   const FennelReadOptions *options, const FennelLimits *limits,
                                   GError **error)
{
    FennelMscclppPlan *plan = fennel_mscclpp_parse(file, data, length, error);
    if (plan == NULL)
        return NULL;
    FennelProgram *p = NULL;
    int64_t size = options ? options->size : 0;
    uint32_t chunks = fennel_mscclpp_rank_chunks(plan);
    if (size <= 0 && options && options->chunk_bytes)
        size = chunks;
    if (size <= 0)
        fennel_error_at_code(error, FENNEL_ERROR_USAGE, file, 0, 0,
                             "an MSCCL++ execution plan needs --size BYTES, the input buffer of "
                             "one rank");
    else if (size < chunks)
        fennel_error_at_code(error, FENNEL_ERROR_USAGE, file, 0, 0,
                             "--size %" G_GINT64_FORMAT " is smaller than one of the plan's %u "
                             "chunks",
                             size, chunks);
    else
        p = fennel_mscclpp_lower(plan, size, limits, error);
    fennel_mscclpp_free(plan);
    return p;
}

/* Whether every byte is below 0x80: such text is UTF-8, so the validation (7 instructions a
 * byte, an eighth of reading a large GOAL file) is needed only when this finds a byte above.
 * The OR of all words is one pass the compiler vectorises. */
static gboolean plain_ascii(const char *data, gsize length)
{
    uint64_t any = 0;
    gsize i = 0;
    for (; i + 8 <= length; i += 8) {
        uint64_t w;
        memcpy(&w, data + i, 8);
        any |= w;
    }
    for (; i < length; i++)
        any |= (uint8_t)data[i];
    return (any & 0x8080808080808080ull) == 0;
}

/* A binary program's sizes are its own: --size is refused (TRUE, with the error). */
static gboolean sized(const char *file, const FennelReadOptions *options, GError **error)
{
    if (options == NULL || options->size <= 0)
        return FALSE;
    fennel_error_at_code(error, FENNEL_ERROR_USAGE, file, 0, 0,
                         "--size is for algorithm files (MSCCL, MSCCL++); this program's sizes "
                         "are its own");
    return TRUE;
}

FennelProgram *fennel_program_read_with(const char *file, const FennelReadOptions *options,
                                        const FennelLimits *limits, GError **error)
{
    /* A binary program is mapped, not read. */
    if (fennel_program_file_is_binary(file))
        return sized(file, options, error) ? NULL : fennel_program_read_binary(file, limits, error);
    gboolean mapped;
    GBytes *text = fennel_map_input(file, &mapped, error);
    if (text == NULL)
        return NULL;
    gsize length;
    const char *data = g_bytes_get_data(text, &length);
    FennelProgram *p = NULL;
    FennelFormat format = fennel_program_detect(file, data, length);
    if (format == FENNEL_FORMAT_BINARY) {
        /* From a pipe: the program keeps the bytes read. */
        if (!sized(file, options, error))
            p = fennel_program_parse_binary(file, text, limits, error);
        g_bytes_unref(text);
        return p;
    }
    if (format == FENNEL_FORMAT_CHAKRA) {
        g_bytes_unref(text);
        if (options && options->size > 0) {
            fennel_error_at_code(error, FENNEL_ERROR_USAGE, file, 0, 0,
                                 "--size is for MSCCL files; a Chakra trace's sizes are its own");
            return NULL;
        }
        return read_chakra(file, options, limits, error);
    }
    /* LogGOPSim GOAL's fast path takes only ASCII text without a NUL, so for what it takes
     * the checks of the whole text below would find nothing: it goes first, and keeps the
     * text for the names it makes when asked (goal_readers.h). What it declines is checked
     * and read again by the careful reader. */
    GError *fast_error = NULL;
    if (format == FENNEL_FORMAT_GOAL && (options == NULL || options->size <= 0)) {
        p = fennel__goal_fast_read_text(file, text, length, mapped, limits, &fast_error);
        /* A mapped file's pages are the page cache's; a text read from a pipe would be
         * the process's own, and larger than the names. */
        if (p && !mapped)
            fennel_program_detach_text(p);
        if (p || fast_error) {
            if (fast_error)
                g_propagate_error(error, fast_error);
            g_bytes_unref(text);
            return p;
        }
    }
    if (memchr(data, '\0', length) != NULL) {
        fennel_error_at(error, file, 0, 0, "binary data (a NUL byte) in a text file");
    } else if (format != FENNEL_FORMAT_MSCCL && format != FENNEL_FORMAT_MSCCLPP && options &&
               options->size > 0) {
        fennel_error_at_code(error, FENNEL_ERROR_USAGE, file, 0, 0,
                             "--size is for algorithm files (MSCCL, MSCCL++); this program's "
                             "sizes are its own");
    } else if (format == FENNEL_FORMAT_YAML) {
        p = fennel_program_parse_yaml_with(file, data, length, FENNEL_YAML_AUTO, limits, error);
    } else if (!plain_ascii(data, length) && !g_utf8_validate(data, (gssize)length, NULL)) {
        fennel_error_at(error, file, 0, 0, "the file is not UTF-8 text");
    } else if (format == FENNEL_FORMAT_MSCCL) {
        p = read_msccl(file, data, length, options, limits, error);
    } else if (format == FENNEL_FORMAT_MSCCLPP) {
        p = read_mscclpp(file, data, length, options, limits, error);
    } else if (format == FENNEL_FORMAT_GOAL) {
        p = fennel__goal_careful_read(file, data, length, limits, error);
    } else {
        p = fennel_goal_parse_fennel(file, data, length, limits, error);
    }
    g_bytes_unref(text);
    return p;
}

FennelProgram *fennel_program_read(const char *file, const FennelLimits *limits, GError **error)
{
    return fennel_program_read_with(file, NULL, limits, error);
}
