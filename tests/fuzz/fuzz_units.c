/* libFuzzer harness: the unit parsers (src/base/units.h) and the model parameter parser. The
 * first byte picks the parser, the rest is the text. What parses must print and parse
 * back to the same value. */
#include "fuzz_program.h"

#include "model.h"
#include "units.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_setup();
    if (size == 0)
        return 0;
    char *text = g_strndup((const char *)data + 1, size - 1);
    const char *why = NULL;
    int64_t v = 0, back = 0;
    char buf[FENNEL_TIME_BUF];
    switch (data[0] % 5) {
    case 0:
        if (fennel_parse_duration(text, &v, &why)) {
            /* fennel_format_ns prints whole picoseconds exactly, as nanoseconds. */
            fennel_format_ns(v, buf);
            if (v < 0 || !fennel_parse_duration(buf, &back, &why) || back != v)
                fuzz_fail("duration '%s' = %" G_GINT64_FORMAT " ps prints as '%s'", text, v, buf);
        }
        break;
    case 1:
        if (fennel_parse_size(text, &v, &why)) {
            g_snprintf(buf, sizeof buf, "%" G_GINT64_FORMAT "B", v);
            if (v < 0 || !fennel_parse_size(buf, &back, &why) || back != v)
                fuzz_fail("size '%s' = %" G_GINT64_FORMAT " B", text, v);
        }
        break;
    case 2:
        if (fennel_parse_rate(text, &v, &why)) {
            fennel_format_rate(v, buf);
            if (v < 0 || !fennel_parse_rate(buf, &back, &why) || back != v)
                fuzz_fail("rate '%s' = %" G_GINT64_FORMAT " as/B prints as '%s'", text, v, buf);
        }
        break;
    case 3:
        if (fennel_parse_int(text, -1000, 1000, &v, &why) && (v < -1000 || v > 1000))
            fuzz_fail("whole number '%s' = %" G_GINT64_FORMAT " outside -1000..1000", text, v);
        if (fennel_parse_int(text, 0, INT64_MAX, &v, &why))
            g_snprintf(buf, sizeof buf, "%" G_GINT64_FORMAT, v);
        break;
    default:
        for (int kind = FENNEL_PARAM_DURATION; kind <= FENNEL_PARAM_SIZE; kind++) {
            char out[48];
            if (fennel_param_parse((FennelParamKind)kind, text, &v, &why)) {
                fennel_param_format((FennelParamKind)kind, v, out);
                if (!fennel_param_parse((FennelParamKind)kind, out, &back, &why) || back != v)
                    fuzz_fail("parameter '%s' = %" G_GINT64_FORMAT " prints as '%s'", text, v, out);
            }
        }
        break;
    }
    if (why != NULL && (why[0] == '\0' || strchr(why, '\n')))
        fuzz_fail("bad reason '%s'", why);
    g_free(text);
    return 0;
}
