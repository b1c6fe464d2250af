/* libFuzzer harness: the MSCCL++ execution plan reader (programs/mscclpp/mscclpp.h), its symbolic
 * check and its lowering to a program, which fuzz_program_input then runs. Besides, it
 * compares the reader's two halves: whatever the fast path takes, the careful reader must
 * read as the same plan, lowered to the same program.
 * Formats: mscclpp.
 */
#include "fuzz_program.h"
#include "mscclpp_private.h"
#include "../mscclpp_describe.h"
#include "../program_describe.h"

#include <string.h>

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

static FennelProgram *lower(const FennelMscclppPlan *p, char **message)
{
    GError *error = NULL;
    FennelProgram *program = fennel_mscclpp_lower(
        p, (int64_t)fennel_mscclpp_rank_chunks(p) * 16 + 16, &fuzz_limits, &error);
    *message = error ? g_strdup(error->message) : NULL;
    g_clear_error(&error);
    return program;
}

static void compare_halves(const uint8_t *data, size_t size)
{
    char *text = g_malloc(size + 1); /* with its NUL, as every reader gets it */
    memcpy(text, data, size);
    text[size] = '\0';
    FennelMscclppPlan *fast = fennel__mscclpp_fast_read("fuzz.json", text, size);
    if (fast == NULL) {
        g_free(text);
        return;
    }
    GError *error = NULL;
    FennelMscclppPlan *careful = fennel__mscclpp_careful_read("fuzz.json", text, size, &error);
    if (careful == NULL)
        fuzz_fail("the fast path takes what the careful reader refuses: %s", error->message);
    char *a = mscclpp_describe(fast), *b = mscclpp_describe(careful);
    if (strcmp(a, b) != 0)
        fuzz_fail("the fast path and the careful reader read different plans:\n%s\n---\n%s", a, b);
    g_free(a);
    g_free(b);
    char *fast_error, *careful_error;
    FennelProgram *x = lower(fast, &fast_error), *y = lower(careful, &careful_error);
    if (g_strcmp0(fast_error, careful_error) != 0)
        fuzz_fail("the two plans lower differently: %s / %s", fast_error, careful_error);
    if (x && y && x->n_tasks <= FUZZ_MAX_TASKS) {
        char *da = program_describe(x), *db = program_describe(y);
        if (strcmp(da, db) != 0)
            fuzz_fail("the two plans lower to different programs:\n%s\n---\n%s", da, db);
        g_free(da);
        g_free(db);
    }
    fennel_program_free(x);
    fennel_program_free(y);
    g_free(fast_error);
    g_free(careful_error);
    fennel_mscclpp_free(fast);
    fennel_mscclpp_free(careful);
    g_free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_program_input(read_mscclpp, "fuzz.json", data, size);
    compare_halves(data, size);
    return 0;
}
