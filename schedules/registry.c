/* Every generator, in the order `fennel list` shows them. A new generator is a gen_*.c
 * file defining a FennelGenerator, declared and listed here. */
#include "generator.h"

extern const FennelGenerator fennel_gen_pingpong;
extern const FennelGenerator fennel_gen_allreduce_rabenseifner;
extern const FennelGenerator fennel_gen_reduce_rabenseifner;
extern const FennelGenerator fennel_gen_reduce_scatter_halving;
extern const FennelGenerator fennel_gen_allreduce_ring;
extern const FennelGenerator fennel_gen_reduce_scatter_ring;
extern const FennelGenerator fennel_gen_allgather_ring;
extern const FennelGenerator fennel_gen_bcast_scatter_allgather;
extern const FennelGenerator fennel_gen_allreduce_binary_blocks;
extern const FennelGenerator fennel_gen_allgather_bruck;
extern const FennelGenerator fennel_gen_allreduce_elimination;

const FennelGenerator *const fennel_generators[] = {
    &fennel_gen_pingpong,
    &fennel_gen_allreduce_rabenseifner,
    &fennel_gen_reduce_rabenseifner,
    &fennel_gen_reduce_scatter_halving,
    &fennel_gen_allreduce_ring,
    &fennel_gen_reduce_scatter_ring,
    &fennel_gen_allgather_ring,
    &fennel_gen_bcast_scatter_allgather,
    &fennel_gen_allreduce_binary_blocks,
    &fennel_gen_allgather_bruck,
    &fennel_gen_allreduce_elimination,
    NULL,
};
