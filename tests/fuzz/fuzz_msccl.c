/* libFuzzer harness: the MSCCL algorithm reader (programs/msccl/msccl.h), its symbolic check and
 * its lowering to a program, which fuzz_program_input then runs. Besides, it compares the
 * reader's two parsers: whatever the fast scanner takes, GMarkup must read as the same
 * algorithm, or refuse with the same message; and it takes the algorithm through its YAML
 * form, which must read back as the same algorithm with the same verdict.
 * Formats: msccl.
 */
#include "fuzz_program.h"
#include "msccl.h"
#include "../msccl_describe.h"

#include <string.h>

static void round_trip(const FennelMscclAlgo *a);

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
    round_trip(a);
    /* Sixteen bytes a chunk. */
    int64_t size = (int64_t)a->nchunksperloop * 16 / fennel_msccl_multiplier(a) + 16;
    /* Two slices a chunk, which unrolls every thread block twice. */
    FennelProgram *p = fennel_msccl_lower(a, size, 8, limits, error);
    fennel_msccl_free(a);
    return p;
}

/* XML -> program -> YAML -> algorithm: the same meaning, the same verdict. */
static void round_trip(const FennelMscclAlgo *a)
{
    int64_t size = (int64_t)a->nchunksperloop * 16 / fennel_msccl_multiplier(a) + 16;
    FennelProgram *p = fennel_msccl_lower(a, size, 0, &fuzz_limits, NULL);
    if (p == NULL || p->n_tasks > FUZZ_MAX_TASKS) {
        if (p)
            fennel_program_free(p);
        return;
    }
    GString *yaml = g_string_new(NULL);
    if (!fennel_msccl_write_yaml(a, p, yaml))
        fuzz_fail("the YAML writer declines the algorithm's own program");
    GError *error = NULL;
    gboolean found;
    FennelMscclAlgo *b = fennel_msccl_from_yaml("fuzz.yaml", yaml->str, yaml->len, &fuzz_limits,
                                                &found, NULL, &error);
    if (b == NULL)
        fuzz_fail("the algorithm's YAML does not read back: %s\n%s",
                  error ? error->message : "(no section)", yaml->str);
    char *x = msccl_describe_meaning(a), *y = msccl_describe_meaning(b);
    if (strcmp(x, y) != 0)
        fuzz_fail("the YAML reads back as another algorithm:\n%s\n---\n%s", x, y);
    char *vx = msccl_verdict(a), *vy = msccl_verdict(b);
    if (strcmp(vx, vy) != 0)
        fuzz_fail("the YAML's verdict differs: %s / %s", vx, vy);
    g_free(x);
    g_free(y);
    g_free(vx);
    g_free(vy);
    fennel_msccl_free(b);
    g_string_free(yaml, TRUE);
    fennel_program_free(p);
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
