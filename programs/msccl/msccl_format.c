/* MSCCL algorithm XML in the table of formats (formats.h): read at --size, checked by
 * `verify` in MSCCL's own terms, and carried into the YAML `generate --from` writes. */
#include "formats.h"
#include "msccl.h"

#include "errors.h"

extern const FennelFormatClass fennel_format_msccl; /* below; the table lists it */

static gboolean detect_msccl(const char *file, const char *data, gsize length)
{
    (void)file;
    return fennel_msccl_detect(data, length);
}

static FennelProgram *read_msccl(const FennelFormatInput *in, const FennelReadOptions *options,
                                 const FennelLimits *limits, GError **error)
{
    if (!fennel_format_check_text(&fennel_format_msccl, in, options, error))
        return NULL;
    const char *file = in->file;
    FennelMscclAlgo *a = fennel_msccl_parse(file, in->data, in->length, error);
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

/* The verdict on an algorithm, in its own terms: the file says its collective and whether it
 * runs in place. Takes the algorithm. */
static FennelFormatCheck report(const char *file, FennelMscclAlgo *a, gboolean collective_given,
                                GString *line, GError **error)
{
    if (collective_given) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE,
                    "%s: an MSCCL algorithm names its collective (coll=\"%s\"); --collective "
                    "and --root are for fennel programs",
                    file, a->coll);
        fennel_msccl_free(a);
        return FENNEL_FORMAT_OWN_COLLECTIVE;
    }
    FennelMscclReport r;
    if (!fennel_msccl_verify(a, &r, error)) {
        fennel_msccl_free(a);
        return FENNEL_FORMAT_REFUSED;
    }
    g_string_append_printf(line, "%s: ok: %s over %u gpus", file, a->coll, a->ngpus);
    if (!r.postcondition)
        g_string_append(line, " (no collective to compare with: data flow only)");
    g_string_append_printf(line, ", %s, %u chunk%s, %" G_GUINT64_FORMAT " reduction%s\n",
                           r.checked_in_place && r.checked_out_of_place
                               ? "in place and out of place"
                           : r.checked_in_place ? "in place"
                                                : "out of place",
                           a->nchunksperloop, a->nchunksperloop == 1 ? "" : "s", r.combines,
                           r.combines == 1 ? "" : "s");
    fennel_msccl_free(a);
    return FENNEL_FORMAT_CHECKED;
}

/* The text checks `run` makes before it reads MSCCL XML, then the algorithm's check. */
static FennelFormatCheck verify_msccl(const char *file, const char *data, gsize length,
                                      gboolean collective_given, GString *line,
                                      FennelProgram **program, GError **error)
{
    (void)program;
    FennelFormatInput in = {.file = file, .data = data, .length = length};
    if (!fennel_format_check_text(&fennel_format_msccl, &in, NULL, error))
        return FENNEL_FORMAT_REFUSED;
    FennelMscclAlgo *a = fennel_msccl_parse(file, data, length, error);
    return a ? report(file, a, collective_given, line, error) : FENNEL_FORMAT_REFUSED;
}

FennelFormatCheck fennel_msccl_check_yaml(const char *file, const char *data, gsize length,
                                          gboolean collective_given, GString *line,
                                          FennelProgram **program, GError **error)
{
    GError *local = NULL;
    gboolean found;
    FennelMscclAlgo *a = fennel_msccl_from_yaml(file, data, length, NULL, &found, program, &local);
    if (a)
        return report(file, a, collective_given, line, error);
    if (found || local) {
        g_propagate_error(error, local);
        return FENNEL_FORMAT_REFUSED;
    }
    return FENNEL_FORMAT_NOT_CHECKED;
}

/* Its YAML carries the algorithm's meaning (docs/FORMATS.md). */
static gboolean carry_msccl(const char *file, const char *data, gsize length,
                            const FennelProgram *p, GString *out)
{
    FennelMscclAlgo *a = fennel_msccl_parse(file, data, length, NULL);
    gboolean written = a && fennel_msccl_write_yaml(a, p, out);
    fennel_msccl_free(a);
    return written;
}

const FennelFormatClass fennel_format_msccl = {
    .name = "msccl",
    .description =
        "MSCCL algorithm XML (starts with <algo>); needs --size; verify checks it in MSCCL's terms",
    .needs = FENNEL_FORMAT_SIZED | FENNEL_FORMAT_UTF8,
    .detect = detect_msccl,
    .read = read_msccl,
    .verify = verify_msccl,
    .carry = carry_msccl,
};
