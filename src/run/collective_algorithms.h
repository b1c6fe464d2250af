/* Which generator performs each collective of an imported trace (Chakra's COMM_COLL
 * nodes, docs/FORMATS.md): defaults, overridden by `--collective-algorithm
 * KIND=GENERATOR[,KIND=GENERATOR...]`, KIND one of Chakra's collective names
 * (all_reduce, all_gather, reduce_scatter, all_to_all, broadcast, reduce, gather,
 * scatter, barrier). */
#ifndef FENNEL_COLLECTIVE_ALGORITHMS_H
#define FENNEL_COLLECTIVE_ALGORITHMS_H

#include "chakra.h"

typedef struct {
    const char *generator[FENNEL_CHAKRA_N_COLLECTIVES]; /* NULL: none performs it */
} FennelCollectiveAlgorithms;

/* The defaults, then the settings of `text` (may be NULL); a usage error names a wrong
 * kind or generator. The names point into static storage or into text's copy, kept in
 * *storage (g_free it). */
gboolean fennel_collective_algorithms_parse(const char *text, FennelCollectiveAlgorithms *a,
                                            char **storage, GError **error);

/* A FennelChakraExpand over a FennelCollectiveAlgorithms: the generator of the kind, with
 * --ranks and --size (comm_size bytes; for all_to_all comm_size / ranks, what goes to each
 * peer, as ASTRA-sim sends), root 0. */
FennelProgram *fennel_collective_algorithms_expand(void *algorithms, int64_t kind, int64_t bytes,
                                                   uint32_t ranks, GError **error);

#endif
