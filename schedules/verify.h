/* The collective data-flow checker behind `fennel verify` (docs/SCHEDULES.md).
 *
 * It executes a program symbolically. The data vector is cut into blocks (one unless a
 * generator marked its puts with block ranges, the rank count for the collectives
 * that give every rank its own block, its square for all-to-all: block s p + d is rank s's
 * part for rank d). Every rank starts with the data the collective
 * gives it: its own contribution to every block for the reductions, the root's data
 * for bcast and scatter, its own block for allgather, gather and barrier. Walking the
 * DAG in dependency order, a task's data is what its predecessors on its own rank
 * held, plus what arrives through the puts, gets and matched receives it depends on;
 * a put carries its sender's data of the blocks it moves as they were when the put
 * started (after its predecessors). Receiving a block combines the partial results:
 * a copy of a result supersedes the stale partials it contains, disjoint partial
 * results are reduced in one step, and that step must be a compute task. At the end,
 * each rank's data is what its last tasks hold; it must be what the collective
 * promises, and for allreduce every rank must hold each block combined in the same
 * bracketing (the consistency MPI asks of reductions).
 *
 * A put that reaches a rank where no task depends on it delivers nothing (nothing
 * there could know that the data has arrived). Start dependencies order tasks but
 * carry no data. Receives are matched to sends in program order per (source,
 * destination, tag); receives from any source or with any tag are not supported. */
#ifndef FENNEL_VERIFY_H
#define FENNEL_VERIFY_H

#include "program.h"

typedef enum {
    FENNEL_COLLECTIVE_ALLREDUCE,
    FENNEL_COLLECTIVE_REDUCE,
    FENNEL_COLLECTIVE_BCAST,
    FENNEL_COLLECTIVE_ALLGATHER,
    FENNEL_COLLECTIVE_REDUCE_SCATTER,
    FENNEL_COLLECTIVE_SCATTER,
    FENNEL_COLLECTIVE_GATHER,
    FENNEL_COLLECTIVE_BARRIER,  /* every rank hears from every rank: allgather of nothing */
    FENNEL_COLLECTIVE_ALLTOALL, /* every rank's block for each rank reaches that rank */
    FENNEL_COLLECTIVE_N,
} FennelCollective;

/* "allreduce", "reduce-scatter", ... */
const char *fennel_collective_name(FennelCollective c);

/* Parses a name; FALSE if unknown. */
gboolean fennel_collective_parse(const char *name, FennelCollective *c);

/* "allreduce, reduce, ..." for messages; static storage. */
const char *fennel_collective_names(void);

/* TRUE for the collectives with a root (reduce, bcast, scatter, gather). */
gboolean fennel_collective_has_root(FennelCollective c);

typedef struct {
    uint32_t blocks;   /* blocks of the vector */
    uint64_t combines; /* distinct partial results formed by reductions */
} FennelVerifyReport;

/* Checks that p performs collective c (with root `root` where it has one). On failure
 * returns FALSE with a FENNEL_ERROR_INPUT error whose message says what is wrong first:
 *   "rank R block B lacks contributions from ranks 0, 2-5"
 *   "rank R block B: task T combines contributions from ranks ... more than once"
 *   "rank R block B: task T combines partial results but is not a compute"
 *   "ranks A and B combine block K in different orders: (0+1)+2 vs 0+(1+2)"
 * report may be NULL. A check whose values would not fit half the memory of the
 * default limits (capacity.h) is refused with the size it would need. */
gboolean fennel_verify(const FennelProgram *p, FennelCollective c, uint32_t root,
                       FennelVerifyReport *report, GError **error);
/* The same within `limits` (NULL: the defaults). */
gboolean fennel_verify_within(const FennelProgram *p, FennelCollective c, uint32_t root,
                              const FennelLimits *limits, FennelVerifyReport *report,
                              GError **error);

#endif
