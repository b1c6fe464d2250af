/* libFuzzer harness: the LogGOPSim GOAL reader (fennel_goal_parse_loggopsim). */
#include "fuzz_program.h"
#include "goal_readers.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_program_input(fennel_goal_parse_loggopsim, "fuzz.goal", data, size);
    return 0;
}
