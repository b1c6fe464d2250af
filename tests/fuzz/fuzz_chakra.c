/* libFuzzer harness: the Chakra trace reader (programs/chakra/chakra.h) on one rank's file, its
 * lowering with fennel's default collective algorithms, and the writer on the result.
 * Formats: chakra.
 */
#include "chakra.h"
#include "collective_algorithms.h"
#include "fuzz_program.h"

static FennelProgram *read_chakra(const char *name, const char *data, gsize length,
                                  const FennelLimits *limits, GError **error)
{
    (void)fennel_chakra_detect(data, length);
    FennelChakraTrace *t = fennel_chakra_parse(name, data, length, error);
    if (t == NULL)
        return NULL;
    FennelCollectiveAlgorithms a;
    char *storage;
    (void)fennel_collective_algorithms_parse(NULL, &a, &storage, NULL);
    FennelProgram *p =
        fennel_chakra_lower(t, fennel_collective_algorithms_expand, &a, 0, NULL, limits, error);
    fennel_chakra_free(t);
    if (p) {
        /* Whatever was read writes back, or says why not. */
        GError *why = NULL;
        GString **files = fennel_chakra_write(p, NULL, &why);
        if (files) {
            for (uint32_t r = 0; r < p->n_ranks; r++)
                g_string_free(files[r], TRUE);
            g_free(files);
        } else {
            fuzz_check_message(why, "Chakra cannot express");
            g_error_free(why);
        }
    }
    return p;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_program_input(read_chakra, "fuzz.0.et", data, size);
    return 0;
}
