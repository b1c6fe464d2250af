/* libFuzzer harness: the binary program reader (fennel_program_parse_binary). A mutated
 * file almost never matches its checksum, so each input is read twice: as it is (the
 * header's checks) and with its checksum made to match, as a crafted file would be (every
 * check behind it). Whatever is read is exercised like any program, and written and read
 * again as the same program.
 * Formats: fbin.
 */
#include "binary_private.h"
#include "fuzz_program.h"
#include "../program_describe.h"

#include <string.h>

static FennelProgram *read_as_is(const char *name, const char *data, gsize length,
                                 const FennelLimits *limits, GError **error)
{
    GBytes *bytes = g_bytes_new(data, length);
    FennelProgram *p = fennel_program_parse_binary(name, bytes, limits, error);
    g_bytes_unref(bytes);
    return p;
}

static FennelProgram *read_sealed(const char *name, const char *data, gsize length,
                                  const FennelLimits *limits, GError **error)
{
    char *copy = g_memdup2(data, length);
    fennel__binary_seal(copy, length);
    GBytes *bytes = g_bytes_new_take(copy, length);
    FennelProgram *p = fennel_program_parse_binary(name, bytes, limits, error);
    g_bytes_unref(bytes);
    return p;
}

/* Written and read back, the same program. */
static void round_trip(const uint8_t *data, size_t size)
{
    char *copy = g_memdup2(data, size);
    fennel__binary_seal(copy, size);
    GBytes *bytes = g_bytes_new_take(copy, size);
    FennelProgram *p = fennel_program_parse_binary("fuzz.fbin", bytes, &fuzz_limits, NULL);
    g_bytes_unref(bytes);
    if (p == NULL || p->n_tasks > FUZZ_MAX_TASKS) {
        fennel_program_free(p);
        return;
    }
    GString *out = g_string_new(NULL);
    if (!fennel_program_write_binary(p, out, NULL))
        fuzz_fail("a program read cannot be written");
    GBytes *again = g_bytes_new(out->str, out->len);
    GError *error = NULL;
    FennelProgram *q = fennel_program_parse_binary("again.fbin", again, &fuzz_limits, &error);
    if (q == NULL)
        fuzz_fail("a program written does not read back: %s", error->message);
    char *a = program_describe(p), *b = program_describe(q);
    if (strcmp(a, b) != 0)
        fuzz_fail("written and read back, another program:\n%s\n---\n%s", a, b);
    g_free(a);
    g_free(b);
    g_bytes_unref(again);
    g_string_free(out, TRUE);
    fennel_program_free(p);
    fennel_program_free(q);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_program_input(read_as_is, "fuzz.fbin", data, size);
    fuzz_program_input(read_sealed, "fuzz.fbin", data, size);
    round_trip(data, size);
    return 0;
}
