/* Ring algorithms for any rank count (Rabenseifner 2004 §3.2, §3.7): the reduce-scatter
 * by pairwise exchange with increasing strides (in step i = 1 .. p - 1 each rank sends
 * rank + i the block rank + i reduces, and reduces the block it owns with what rank - i
 * sent), the allgather by a ring of stride 1 (each rank forwards to rank + 1 the block it
 * received last, p - 1 steps), their combination into an allreduce (2(p - 1) steps of
 * n/p, T = 2(p-1)a + 2nb + ng - (2nb + ng)/p under the postal model), and van de Geijn's
 * bandwidth-optimal broadcast: a binomial scatter from the root followed by the ring
 * allgather.
 *
 * Sizes: for the allreduce, the reduce-scatter and the broadcast, --size is the whole
 * vector, cut into p blocks (block i holds bytes floor(n i / p) .. floor(n (i + 1) / p) - 1,
 * so an uneven n gives blocks that differ by one byte); rank i's result block is block i.
 * For the allgather, --size is what each rank contributes (block i, of rank i), as in
 * MPI_Allgather's count and the original Fennel's ring allgather. The stages that only
 * move finished data (the allgather, the scatter) have no compute task. */
#include "blocks.h"
#include "errors.h"
#include "generator.h"
#include "stages.h"

static FennelStages *stages_for(const FennelGenOptions *o, uint32_t p)
{
    FennelStages *s = fennel_gen_stages(o, p);
    fennel_builder_set_n_blocks(fennel_stages_builder(s), p);
    return s;
}

/* Pairwise-exchange reduce-scatter: rank r ends with block r, reduced over all ranks. */
static void reduce_scatter(FennelStages *s, uint32_t p, int64_t n)
{
    for (uint32_t i = 1; i < p; i++) {
        for (uint32_t r = 0; r < p; r++) {
            uint32_t to = (r + i) % p;
            fennel_block_put(s, r, to, n, p, to, to + 1);
        }
        fennel_stages_close(s, TRUE);
    }
}

/* Ring allgather over p ranks: in step k, rank `rank(r)` sends block (r - k) mod p to
 * rank(r + 1), where r runs over positions 0 .. p - 1 of the ring (position r starts with
 * block r). With per_rank >= 0 every block is per_rank bytes (an allgather's
 * contribution); otherwise the blocks are those of the n-byte vector. */
static void ring_allgather(FennelStages *s, uint32_t p, uint32_t shift, int64_t n, int64_t per_rank)
{
    for (uint32_t k = 0; k + 1 < p; k++) {
        for (uint32_t r = 0; r < p; r++) {
            uint32_t b = (r + p - k) % p;
            uint32_t src = (r + shift) % p, dst = (r + 1 + shift) % p;
            if (per_rank >= 0)
                fennel_stages_put_blocks(s, src, dst, per_rank, b, 1);
            else
                fennel_block_put(s, src, dst, n, p, b, b + 1);
        }
        fennel_stages_close(s, FALSE);
    }
}

static FennelProgram *allreduce_ring(const FennelGenOptions *o, GError **error)
{
    if (!fennel_block_check_ranks("allreduce-ring", o, error))
        return NULL;
    FennelStages *s = stages_for(o, o->ranks);
    reduce_scatter(s, o->ranks, o->size);
    ring_allgather(s, o->ranks, 0, o->size, -1);
    return fennel_stages_finish(s, FALSE, error);
}

static FennelProgram *reduce_scatter_ring(const FennelGenOptions *o, GError **error)
{
    if (!fennel_block_check_ranks("reduce-scatter-ring", o, error))
        return NULL;
    FennelStages *s = stages_for(o, o->ranks);
    reduce_scatter(s, o->ranks, o->size);
    return fennel_stages_finish(s, FALSE, error);
}

static FennelProgram *allgather_ring(const FennelGenOptions *o, GError **error)
{
    if (!fennel_block_check_ranks("allgather-ring", o, error))
        return NULL;
    FennelStages *s = stages_for(o, o->ranks);
    ring_allgather(s, o->ranks, 0, o->size, o->size);
    return fennel_stages_finish(s, FALSE, error);
}

/* Broadcast by scatter + allgather (van de Geijn; Rüfenacht thesis §5.2.2.3). Ranks are
 * taken relative to the root (relative rank q is rank (q + root) mod p, block q is its
 * block). The scatter is binomial, as in MPICH: for mask from the highest power of two
 * below p down to 1, each relative rank q that is a multiple of 2 mask and holds blocks
 * q .. min(q + 2 mask, p) - 1 sends the upper part, from q + mask on, to q + mask. */
static FennelProgram *bcast_scatter_allgather(const FennelGenOptions *o, GError **error)
{
    if (!fennel_block_check_ranks("bcast-scatter-allgather", o, error))
        return NULL;
    uint32_t p = o->ranks;
    if (o->root >= p) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                    "bcast-scatter-allgather needs --root in 0..%u (the --ranks)", p - 1);
        return NULL;
    }
    FennelStages *s = stages_for(o, p);
    uint32_t top = 1;
    while (top < p / 2 + p % 2)
        top <<= 1;
    for (uint32_t mask = p > 1 ? top : 0; mask > 0; mask >>= 1) {
        for (uint32_t q = 0; q + mask < p; q += 2 * mask)
            fennel_block_put(s, (q + o->root) % p, (q + mask + o->root) % p, o->size, p, q + mask,
                             MIN(q + 2 * mask, p));
        fennel_stages_close(s, FALSE);
    }
    ring_allgather(s, p, o->root, o->size, -1);
    return fennel_stages_finish(s, FALSE, error);
}

const FennelGenerator fennel_gen_allreduce_ring = {
    .name = "allreduce-ring",
    .summary = "pairwise-exchange reduce-scatter + ring allgather, 2(p-1) steps of n/p "
               "(Rabenseifner 2004 §3.7); any --ranks",
    .options = FENNEL_GEN_RANKS | FENNEL_GEN_SIZE,
    .collective = "allreduce",
    .generate = allreduce_ring,
};

const FennelGenerator fennel_gen_reduce_scatter_ring = {
    .name = "reduce-scatter-ring",
    .summary = "pairwise-exchange reduce-scatter, p-1 steps of n/p; rank i ends with block "
               "i of --size; any --ranks",
    .options = FENNEL_GEN_RANKS | FENNEL_GEN_SIZE,
    .collective = "reduce-scatter",
    .generate = reduce_scatter_ring,
};

const FennelGenerator fennel_gen_allgather_ring = {
    .name = "allgather-ring",
    .summary = "ring allgather, p-1 steps forwarding to rank+1; --size per rank; any --ranks",
    .options = FENNEL_GEN_RANKS | FENNEL_GEN_SIZE,
    .collective = "allgather",
    .generate = allgather_ring,
};

const FennelGenerator fennel_gen_bcast_scatter_allgather = {
    .name = "bcast-scatter-allgather",
    .summary = "binomial scatter of --size from --root + ring allgather (van de Geijn); any "
               "--ranks",
    .options = FENNEL_GEN_RANKS | FENNEL_GEN_SIZE | FENNEL_GEN_ROOT,
    .collective = "bcast",
    .generate = bcast_scatter_allgather,
};
