/* All-to-all by pairwise exchange (the shift form of MPICH's pairwise algorithm): in step
 * k = 1 .. p-1, rank r sends its --size bytes for rank r + k to it and receives from rank
 * r - k (mod p); p - 1 steps of one message each. --size is what a rank sends to each
 * other rank (MPI_Alltoall's count), so every rank sends and receives (p - 1) --size. The
 * checker of fennel verify has no all-to-all, so the generator names no collective. */
#include "blocks.h"
#include "generator.h"

static uint64_t tasks(const FennelGenOptions *o)
{
    uint64_t p = o->ranks, n;
    return p == 0 || __builtin_mul_overflow(p, p - 1, &n) ? 0 : n;
}

static FennelProgram *alltoall_pairwise(const FennelGenOptions *o, GError **error)
{
    if (!fennel_block_check_ranks("alltoall-pairwise", o, error))
        return NULL;
    uint32_t p = o->ranks;
    FennelStages *s = fennel_gen_stages(o, p);
    for (uint32_t k = 1; k < p; k++) {
        for (uint32_t r = 0; r < p; r++)
            fennel_stages_put(s, r, (r + k) % p, o->size);
        fennel_stages_close(s, FALSE);
    }
    return fennel_stages_finish(s, FALSE, error);
}

const FennelGenerator fennel_gen_alltoall_pairwise = {
    .name = "alltoall-pairwise",
    .summary = "all-to-all by pairwise exchange, p-1 steps sending --size to rank+k; --size per "
               "pair; any --ranks",
    .options = FENNEL_GEN_RANKS | FENNEL_GEN_SIZE,
    .generate = alltoall_pairwise,
    .min_tasks = tasks,
};
