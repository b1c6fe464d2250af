/* MPICH 4's default algorithm choice (src/run/library_mpich.c, docs/LIBRARIES.md): the
 * library "mpich-4" of library.h. */
#ifndef FENNEL_LIBRARY_MPICH_H
#define FENNEL_LIBRARY_MPICH_H

#include "library.h"

/* Whether mpich-4 has a decision for `collective` (allreduce, bcast, reduce, allgather,
 * alltoall, reduce_scatter or reduce-scatter, gather, scatter). */
gboolean fennel_library_mpich4_covers(const char *collective);

/* The choice for a collective it covers, `ranks` ranks at least 2, `ppn` to a node (0 or 1:
 * one rank per node) and `bytes` as fennel_library_choose counts them. */
void fennel_library_mpich4(const char *collective, uint32_t ranks, uint32_t ppn, int64_t bytes,
                           FennelLibraryChoice *out);

/* bcast-smp's --variant for MPICH's bcast algorithm among the leaders (its own name:
 * "scatter_ring_allgather"), or NULL for binomial, its default. */
const char *fennel__mpich_bcast_variant(const char *algorithm);

#endif
