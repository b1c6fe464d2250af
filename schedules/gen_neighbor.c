/* Neighbor exchange allgather (Chen et al., "Performance Evaluation of Allgather Algorithms
 * on Terascale Linux Cluster with Fast Ethernet", HPC Asia 2005), the allgather Open MPI's
 * coll/tuned picks for mid-sized blocks (docs/LIBRARIES.md). p even, p/2 steps. Ranks 2j
 * and 2j + 1 form pair j, and pair j's blocks are 2j and 2j + 1. Step 0: each rank
 * exchanges its own block with its pair's other rank, so both hold pair j. Step i = 1 ..
 * p/2 - 1: each rank exchanges two blocks with a neighbour: in odd steps an even rank with
 * the rank below it and an odd rank with the rank above it (the neighbouring pairs), in
 * even steps each rank with its pair's other rank; it sends the pair of blocks it received
 * in the step before (pair j in step 1) and receives another. An even rank of pair j so
 * receives pairs j - 1, j + 1, j - 2, j + 2, ... and an odd one j + 1, j - 1, j + 2, ...:
 * p/2 - 1 distinct pairs besides its own. --size is what each rank contributes; the time
 * under the postal model is (p/2) a + (p - 1) n b. */
#include "errors.h"
#include "generator.h"
#include "stages.h"

static FennelProgram *allgather_neighbor(const FennelGenOptions *o, GError **error)
{
    uint32_t p = o->ranks;
    if (p < 2 || p % 2 != 0) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                    "allgather-neighbor-exchange needs an even --ranks, got %u", p);
        return NULL;
    }
    if (o->size > INT64_MAX / p) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                    "allgather-neighbor-exchange: --size x --ranks exceeds the largest size");
        return NULL;
    }
    FennelStages *s = fennel_gen_stages(o, p);
    fennel_builder_set_n_blocks(fennel_stages_builder(s), p);
    for (uint32_t r = 0; r < p; r++)
        fennel_stages_put_blocks(s, r, r ^ 1u, o->size, r, 1);
    fennel_stages_close(s, FALSE);
    /* held[r]: the pair whose two blocks rank r received last (its own after step 0). */
    uint32_t *held = g_new(uint32_t, p), *next = g_new(uint32_t, p);
    for (uint32_t r = 0; r < p; r++)
        held[r] = r / 2;
    for (uint32_t i = 1; i < p / 2; i++) {
        for (uint32_t r = 0; r < p; r++) {
            gboolean down = (i % 2 == 1) == (r % 2 == 0); /* to the rank below */
            uint32_t peer = down ? (r + p - 1) % p : (r + 1) % p;
            fennel_stages_put_blocks(s, r, peer, 2 * o->size, 2 * held[r], 2);
            next[peer] = held[r];
        }
        fennel_stages_close(s, FALSE);
        uint32_t *t = held;
        held = next, next = t;
    }
    g_free(held);
    g_free(next);
    return fennel_stages_finish(s, FALSE, error);
}

const FennelGenerator fennel_gen_allgather_neighbor_exchange = {
    .name = "allgather-neighbor-exchange",
    .summary = "neighbor exchange allgather (Chen et al. 2005), p/2 steps of two blocks "
               "between neighbours; --size per rank; even --ranks",
    .options = FENNEL_GEN_RANKS | FENNEL_GEN_SIZE,
    .collective = "allgather",
    .generate = allgather_neighbor,
};
