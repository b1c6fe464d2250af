/* libFuzzer harness: the MSCCL algorithm reader (programs/msccl.h), its symbolic check and
 * its lowering to a program, which fuzz_program_input then runs. */
#include "fuzz_program.h"
#include "msccl.h"

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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_program_input(read_msccl, "fuzz.xml", data, size);
    return 0;
}
