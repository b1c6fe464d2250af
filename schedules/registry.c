/* Every generator, in the order `fennel list` shows them. A new generator is a gen_*.c
 * file defining a FennelGenerator, declared and listed here. */
#include "generator.h"

extern const FennelGenerator fennel_gen_pingpong;

const FennelGenerator *const fennel_generators[] = {
    &fennel_gen_pingpong,
    NULL,
};
