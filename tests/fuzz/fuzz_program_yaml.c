/* libFuzzer harness: the YAML program reader (fennel_program_parse_yaml). */
#include "fuzz_program.h"
#include "program_io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_program_input(fennel_program_parse_yaml, "fuzz.yaml", data, size);
    return 0;
}
