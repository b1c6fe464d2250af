/* libFuzzer harness: the MSCCL++ execution plan reader (programs/mscclpp.h), its symbolic
 * check and its lowering to a program, which fuzz_program_input then runs. */
#include "fuzz_program.h"
#include "mscclpp.h"

static FennelProgram *read_mscclpp(const char *name, const char *data, gsize length,
                                   const FennelLimits *limits, GError **error)
{
    (void)fennel_mscclpp_detect(data, length);
    FennelMscclppPlan *p = fennel_mscclpp_parse(name, data, length, error);
    if (p == NULL)
        return NULL;
    GError *verdict = NULL;
    if (!fennel_mscclpp_verify(p, NULL, &verdict)) {
        fuzz_check_message(verdict, name);
        g_error_free(verdict);
    }
    /* Sixteen bytes a chunk. */
    FennelProgram *program =
        fennel_mscclpp_lower(p, (int64_t)fennel_mscclpp_rank_chunks(p) * 16 + 16, limits, error);
    fennel_mscclpp_free(p);
    return program;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_program_input(read_mscclpp, "fuzz.json", data, size);
    return 0;
}
