/* Shared by the generators of rooted collectives (trees, ring broadcast, scatter and
 * gather). */
#ifndef FENNEL_GEN_ROOTED_H
#define FENNEL_GEN_ROOTED_H

#include "generator.h"
#include "stages.h"

/* FALSE with "NAME needs --root within 0..p-1 ..." (an input error) unless the root is
 * one of the ranks. */
gboolean fennel_gen_check_root(const char *name, const FennelGenOptions *o, GError **error);

/* Stages of rooted collectives, for generators that chain them (allreduce-linear,
 * allreduce-tree, allreduce-nonoverlapping): each adds its stages to s for p ranks. */
void fennel__gen_reduce_binomial(FennelStages *s, uint32_t p, uint32_t root, int64_t bytes);
void fennel__gen_reduce_linear(FennelStages *s, uint32_t p, uint32_t root, int64_t bytes);
void fennel__gen_reduce_inorder_binary(FennelStages *s, uint32_t p, uint32_t root, int64_t bytes);
void fennel__gen_reduce_bintree(FennelStages *s, uint32_t p, uint32_t root, int64_t bytes);
void fennel__gen_bcast_knomial(FennelStages *s, uint32_t p, uint32_t root, uint32_t radix,
                               int64_t bytes);
void fennel__gen_bcast_bmtree(FennelStages *s, uint32_t p, uint32_t root, int64_t bytes);
void fennel__gen_bcast_binary(FennelStages *s, uint32_t p, uint32_t root, int64_t bytes);
void fennel__gen_bcast_linear(FennelStages *s, uint32_t p, uint32_t root, int64_t bytes);

/* The vector cut into pieces for fennel verify, where parts of one program cut it at
 * different places (allreduce-nonoverlapping's segmented reduce and bcast): piece i is
 * bytes cut[i] .. cut[i + 1] - 1, with cut[0] = 0 < cut[1] < ... < cut[n] = the size. */
typedef struct {
    const int64_t *cut;
    uint32_t n;
} FennelGenPieces;

/* A put of bytes off .. off + bytes - 1: without pieces it carries blocks first .. first +
 * count - 1 of the caller's numbering; with them, the pieces of that range (its ends must
 * be cuts). */
void fennel__gen_put_range(FennelStages *s, uint32_t src, uint32_t dst, int64_t off, int64_t bytes,
                           uint32_t first, uint32_t count, const FennelGenPieces *pieces);

/* Open MPI's segmented binomial reduce (reduce-binomial --segment) and split binary tree
 * bcast (bcast-split-bintree --segment, its chain when a half is smaller than a segment),
 * added to s; the caller declares the blocks: segment j as block j (the split tree's first
 * half, then its second), or `pieces`. */
void fennel__gen_reduce_binomial_segmented(FennelStages *s, uint32_t p, uint32_t root, int64_t size,
                                           int64_t segment, const FennelGenPieces *pieces);
void fennel__gen_bcast_split_bintree(FennelStages *s, uint32_t p, uint32_t root, int64_t size,
                                     int64_t segment, const FennelGenPieces *pieces);

/* Segments of n bytes cut into s-byte pieces, the last one shorter: 1 when unsegmented
 * (s <= 0, or s >= n). */
uint64_t fennel__gen_segments(int64_t n, int64_t s);

/* FALSE with an input error naming generator `name` when k segments are more than a
 * program's blocks can number (UINT32_MAX - 1). */
gboolean fennel__gen_check_segments(const char *name, uint64_t k, GError **error);

/* Open MPI's chain (pipeline) broadcast of bcast-pipeline: `size` bytes in segments of
 * `segment` bytes down root, root + 1, ..., root - 1, segment b as block b (the caller
 * declares fennel__gen_segments(size, segment) blocks) or as its `pieces`. */
void fennel__gen_bcast_chain(FennelStages *s, uint32_t p, uint32_t root, int64_t size,
                             int64_t segment, const FennelGenPieces *pieces);

/* The real rank of rank v counted from the root. */
static inline uint32_t fennel_gen_real_rank(uint64_t v, uint32_t root, uint32_t p)
{
    return (uint32_t)((v + root) % p);
}

#endif
