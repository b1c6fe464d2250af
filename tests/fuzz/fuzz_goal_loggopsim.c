/* libFuzzer harness: the LogGOPSim GOAL reader (fennel_goal_parse_loggopsim). Besides the
 * checks every reader gets, it compares the reader's two halves: whenever the fast path
 * takes an input, the careful reader must read the same program from it (or fail with the
 * same message, for an error found once the program is built). The fast path reads each
 * input twice: whole, and in the two halves it reads a large file in.
 * Formats: goal.
 */
#include "fuzz_program.h"
#include "goal_readers.h"
#include "../program_describe.h"

#include <string.h>

static void compare_halves(const char *text, size_t size)
{
    GError *fast_error = NULL, *careful_error = NULL;
    FennelProgram *fast =
        fennel__goal_fast_read("fuzz.goal", text, size, &fuzz_limits, &fast_error);
    if (fast == NULL && fast_error == NULL)
        return;
    FennelProgram *careful =
        fennel__goal_careful_read("fuzz.goal", text, size, &fuzz_limits, &careful_error);
    if (fast_error) {
        if (careful_error == NULL || strcmp(fast_error->message, careful_error->message) != 0)
            fuzz_fail("the fast path and the careful reader fail differently: %s / %s",
                      fast_error->message, careful_error ? careful_error->message : "(none)");
    } else if (careful == NULL) {
        fuzz_fail("the fast path takes what the careful reader refuses: %s",
                  careful_error->message);
    } else if (fast->n_tasks <= FUZZ_MAX_TASKS) {
        char *a = program_describe(fast), *b = program_describe(careful);
        if (strcmp(a, b) != 0)
            fuzz_fail("the fast path and the careful reader read different programs:\n%s\n---\n%s",
                      a, b);
        g_free(a);
        g_free(b);
    }
    g_clear_error(&fast_error);
    g_clear_error(&careful_error);
    fennel_program_free(fast);
    fennel_program_free(careful);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_program_input(fennel_goal_parse_loggopsim, "fuzz.goal", data, size);
    char *text = g_malloc(size + 1); /* with its NUL, as every reader gets it */
    memcpy(text, data, size);
    text[size] = '\0';
    compare_halves(text, size);
    fennel__goal_fast_set_split(0);
    compare_halves(text, size);
    fennel__goal_fast_set_split((gsize)16 << 20);
    g_free(text);
    return 0;
}
