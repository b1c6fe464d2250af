/* libFuzzer harness: the MSCCL algorithm reader (programs/msccl.h), its symbolic check and
 * its lowering to a program, which fuzz_program_input then runs. Besides, it compares the
 * reader's two parsers: whatever the fast scanner takes, GMarkup must read as the same
 * algorithm, or refuse with the same message. */
#include "fuzz_program.h"
#include "msccl.h"
#include "../msccl_describe.h"

#include <string.h>

static FennelProgram *read_msccl(const char *name, const char *data, gsize length,
                                 const FennelLimits *limits, GError **error)
{
    (void)fennel_msccl_detect(data, length);
    FennelMscclAlgo *a = fennel_msccl_parse(name, data, length, error);
    if (a == NULL)
        return NULL;
    GError *verdict = NULL;
    if (!fennel_msccl_verify(a, NULL, &verdict)) {
        fuzz_check_message(verdict, name);
        g_error_free(verdict);
    }
    /* Sixteen bytes a chunk. */
    int64_t size = (int64_t)a->nchunksperloop * 16 / fennel_msccl_multiplier(a) + 16;
    /* Two slices a chunk, which unrolls every thread block twice. */
    FennelProgram *p = fennel_msccl_lower(a, size, 8, limits, error);
    fennel_msccl_free(a);
    return p;
}

static void compare_parsers(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    /* fennel reads only UTF-8 text without NUL bytes (program_read.c refuses the rest
     * before parsing), and GMarkup words its refusals of the rest in messages the scanner
     * does not repeat. */
    if (!g_utf8_validate_len(text, size, NULL))
        return;
    GError *fast_error = NULL, *markup_error = NULL;
    FennelMscclAlgo *fast =
        fennel_msccl_parse_with("fuzz.xml", text, size, FENNEL_MSCCL_XML_FAST_ONLY, &fast_error);
    if (fast == NULL && g_str_has_suffix(fast_error->message, FENNEL_MSCCL_DECLINED)) {
        g_error_free(fast_error);
        return;
    }
    FennelMscclAlgo *markup = fennel_msccl_parse_with("fuzz.xml", text, size,
                                                      FENNEL_MSCCL_XML_MARKUP_ONLY, &markup_error);
    if (fast && markup == NULL)
        fuzz_fail("the fast scanner takes what GMarkup refuses: %s", markup_error->message);
    if (fast == NULL && markup)
        fuzz_fail("the fast scanner refuses what GMarkup takes: %s", fast_error->message);
    /* A text without elements: the scanner finds no <algo>, GMarkup no document. Both
     * refuse it; fennel has always said the former. */
    gboolean no_element = fast == NULL && strstr(fast_error->message, "no <algo> element") &&
                          strstr(markup_error->message, "Document ");
    if (fast == NULL && !no_element && strcmp(fast_error->message, markup_error->message) != 0)
        fuzz_fail("the fast scanner and GMarkup refuse differently:\n%s\n%s", fast_error->message,
                  markup_error->message);
    if (fast) {
        char *a = msccl_describe(fast), *b = msccl_describe(markup);
        if (strcmp(a, b) != 0)
            fuzz_fail("the fast scanner and GMarkup read different algorithms:\n%s\n---\n%s", a, b);
        g_free(a);
        g_free(b);
    }
    fennel_msccl_free(fast);
    fennel_msccl_free(markup);
    g_clear_error(&fast_error);
    g_clear_error(&markup_error);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_program_input(read_msccl, "fuzz.xml", data, size);
    compare_parsers(data, size);
    return 0;
}
