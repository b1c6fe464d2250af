/* Blocks of a data vector, shared by the bandwidth-oriented generators: an n-byte vector
 * cut into nb blocks as evenly as whole bytes allow (the first n mod nb blocks are a byte
 * larger), and puts that carry a contiguous run of blocks (docs/COLLECTIVES.md). */
#ifndef FENNEL_BLOCKS_H
#define FENNEL_BLOCKS_H

#include "generator.h"
#include "stages.h"

/* The byte offset of block i (0 <= i <= nb) of an n-byte vector of nb blocks, without
 * overflow: i = nb gives n. */
static inline int64_t fennel_block_offset(int64_t n, uint32_t nb, uint32_t i)
{
    uint64_t q = (uint64_t)n / nb, r = (uint64_t)n % nb;
    return (int64_t)(q * i + (r * i) / nb);
}

/* The bytes of blocks lo .. hi - 1. */
static inline int64_t fennel_block_span(int64_t n, uint32_t nb, uint32_t lo, uint32_t hi)
{
    return fennel_block_offset(n, nb, hi) - fennel_block_offset(n, nb, lo);
}

/* Queues a put of blocks lo .. hi - 1 (hi <= nb) from src to dst in the current stage. */
static inline void fennel_block_put(FennelStages *s, uint32_t src, uint32_t dst, int64_t n,
                                    uint32_t nb, uint32_t lo, uint32_t hi)
{
    fennel_stages_put_blocks(s, src, dst, fennel_block_span(n, nb, lo, hi), lo, hi - lo);
}

/* Whether o has at least one rank; otherwise an input error "NAME needs --ranks >= 1". */
gboolean fennel_block_check_ranks(const char *name, const FennelGenOptions *o, GError **error);

#endif
