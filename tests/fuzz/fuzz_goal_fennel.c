/* libFuzzer harness: the original Fennel's GOAL reader (fennel_goal_parse_fennel), and
 * the dialect detection that chooses between the two.
 * Formats: fennel-goal.
 */
#include "fuzz_program.h"
#include "goal_readers.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    (void)fennel_goal_is_loggopsim((const char *)data, size);
    fuzz_program_input(fennel_goal_parse_fennel, "fuzz.goal", data, size);
    return 0;
}
