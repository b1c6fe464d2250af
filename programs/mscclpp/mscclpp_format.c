/* MSCCL++ execution plans in the table of formats (formats.h): read at --size and checked by
 * `verify` in MSCCL++'s own terms. */
#include "formats.h"
#include "mscclpp.h"

#include "errors.h"

extern const FennelFormatClass fennel_format_mscclpp; /* below; the table lists it */

static gboolean detect_mscclpp(const char *file, const char *data, gsize length)
{
    (void)file;
    return fennel_mscclpp_detect(data, length);
}

static FennelProgram *read_mscclpp(const FennelFormatInput *in, const FennelReadOptions *options,
                                   const FennelLimits *limits, GError **error)
{
    if (!fennel_format_check_text(&fennel_format_mscclpp, in, options, error))
        return NULL;
    const char *file = in->file;
    FennelMscclppPlan *plan = fennel_mscclpp_parse(file, in->data, in->length, error);
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

/* The plan names its collective and whether it runs in place; the reader makes its own
 * text checks, with a position. */
static FennelFormatCheck verify_mscclpp(const char *file, const char *data, gsize length,
                                        gboolean collective_given, GString *line,
                                        FennelProgram **program, GError **error)
{
    (void)program;
    FennelMscclppPlan *p = fennel_mscclpp_parse(file, data, length, error);
    if (p == NULL)
        return FENNEL_FORMAT_REFUSED;
    FennelFormatCheck result = FENNEL_FORMAT_CHECKED;
    FennelMscclppReport report;
    if (collective_given) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE,
                    "%s: an MSCCL++ execution plan names its collective (\"collective\": "
                    "\"%s\"); --collective and --root are for fennel programs",
                    file, p->coll);
        result = FENNEL_FORMAT_OWN_COLLECTIVE;
    } else if (!fennel_mscclpp_verify(p, &report, error)) {
        result = FENNEL_FORMAT_REFUSED;
    } else {
        uint32_t chunks = fennel_mscclpp_rank_chunks(p);
        g_string_append_printf(
            line, "%s: ok: %s over %u gpus%s, %s, %u chunk%s, %" G_GUINT64_FORMAT " reduction%s\n",
            file, p->coll, p->ngpus,
            report.postcondition ? "" : " (no collective to compare with: data flow only)",
            p->inplace ? "in place" : "out of place", chunks, chunks == 1 ? "" : "s",
            report.combines, report.combines == 1 ? "" : "s");
    }
    fennel_mscclpp_free(p);
    return result;
}

const FennelFormatClass fennel_format_mscclpp = {
    .name = "mscclpp",
    .description = "MSCCL++ execution plans (JSON with \"gpus\" and \"collective\"), current and "
                   "2024 schemas; needs --size; verify checks it in MSCCL++'s terms",
    .needs = FENNEL_FORMAT_SIZED | FENNEL_FORMAT_UTF8,
    .detect = detect_mscclpp,
    .read = read_mscclpp,
    .verify = verify_mscclpp,
};
