/* Stages of bandwidth-oriented collectives, for generators that compose them (the SMP
 * ones run them among one rank per node through fennel_stages_map). Each adds its stages
 * to s for ranks 0 .. p - 1 and declares the vector's blocks (blocks.h) for `fennel
 * verify`; a put without blocks still carries the whole vector. */
#ifndef FENNEL_GEN_PARTS_H
#define FENNEL_GEN_PARTS_H

#include "stages.h"

/* allreduce-rabenseifner: recursive halving reduce-scatter + recursive doubling allgather. */
void fennel__gen_allreduce_rabenseifner(FennelStages *s, uint32_t p, int64_t n);
/* reduce-rabenseifner: the same reduce-scatter + a binary-tree gather to root. */
void fennel__gen_reduce_rabenseifner(FennelStages *s, uint32_t p, uint32_t root, int64_t n);
/* bcast-scatter-allgather: binomial scatter from root + ring allgather. */
void fennel__gen_bcast_scatter_allgather(FennelStages *s, uint32_t p, uint32_t root, int64_t n);
/* bcast-scatter-rd-allgather: binomial scatter + recursive doubling allgather; p a power
 * of two. */
void fennel__gen_bcast_scatter_rd_allgather(FennelStages *s, uint32_t p, uint32_t root, int64_t n);

#endif
