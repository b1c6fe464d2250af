/* All-to-all by pairwise exchange (the shift form of MPICH's pairwise algorithm): in step
 * k = 1 .. p-1, rank r sends its --size bytes for rank r + k to it and receives from rank
 * r - k (mod p); p - 1 steps of one message each. --size is what a rank sends to each
 * other rank (MPI_Alltoall's count), so every rank sends and receives (p - 1) --size. For
 * fennel verify each put carries one block of p^2: rank r's part for rank d is r p + d. */
#include "blocks.h"
#include "errors.h"
#include "generator.h"

static uint64_t tasks(const FennelGenOptions *o)
{
    uint64_t p = o->ranks, n;
    return p == 0 || __builtin_mul_overflow(p, p - 1, &n) ? 0 : n;
}

/* One pair's put of `size` bytes from r to d; below 2^16 ranks it carries block r p + d of
 * p^2 so that fennel verify can follow it (beyond, the blocks do not fit 32 bits). */
static void put_pair(FennelStages *s, gboolean marked, uint32_t p, uint32_t r, uint32_t d,
                     int64_t size)
{
    if (marked)
        fennel_stages_put_blocks(s, r, d, size, r * p + d, 1);
    else
        fennel_stages_put(s, r, d, size);
}

static FennelProgram *alltoall_pairwise(const FennelGenOptions *o, GError **error)
{
    if (!fennel_block_check_ranks("alltoall-pairwise", o, error))
        return NULL;
    uint32_t p = o->ranks;
    FennelStages *s = fennel_gen_stages(o, p);
    /* Beyond 2^16 ranks the blocks do not fit 32 bits (nor the p (p - 1) puts a program). */
    gboolean marked = p <= UINT16_MAX;
    if (marked)
        fennel_builder_set_n_blocks(fennel_stages_builder(s), p * p);
    for (uint32_t k = 1; k < p; k++) {
        for (uint32_t r = 0; r < p; r++)
            put_pair(s, marked, p, r, (r + k) % p, o->size);
        fennel_stages_close(s, FALSE);
    }
    return fennel_stages_finish(s, FALSE, error);
}

const FennelGenerator fennel_gen_alltoall_pairwise = {
    .name = "alltoall-pairwise",
    .summary = "all-to-all by pairwise exchange, p-1 steps sending --size to rank+k; --size per "
               "pair; any --ranks",
    .options = FENNEL_GEN_RANKS | FENNEL_GEN_SIZE,
    .collective = "alltoall",
    .generate = alltoall_pairwise,
    .min_tasks = tasks,
};

/* alltoall-linear: Open MPI's basic_linear all-to-all (ompi_coll_base_alltoall_intra_basic_linear
 * in ompi/mca/coll/base/coll_base_alltoall.c, v4.1.6): every rank posts all its receives, then
 * all its sends at once, to rank - 1, rank - 2, ..., rank + 1 (mod p), and waits for them all.
 * Its linear_sync (ompi_coll_base_alltoall_intra_linear_sync) keeps at most
 * coll_tuned_alltoall_algorithm_max_requests sends and receives outstanding; the default 0
 * means all p - 1 of them, so at the defaults it posts the same sends in the same order. One
 * stage: each rank's p - 1 puts of --size bytes back to back. */
static FennelProgram *alltoall_linear(const FennelGenOptions *o, GError **error)
{
    if (!fennel_block_check_ranks("alltoall-linear", o, error))
        return NULL;
    uint32_t p = o->ranks;
    FennelStages *s = fennel_gen_stages(o, p);
    for (uint32_t r = 0; r < p; r++)
        for (uint32_t k = 1; k < p; k++)
            fennel_stages_put(s, r, (r + p - k) % p, o->size);
    return fennel_stages_finish(s, FALSE, error);
}

const FennelGenerator fennel_gen_alltoall_linear = {
    .name = "alltoall-linear",
    .summary = "all-to-all: every rank sends --size to rank-1, rank-2, ... at once (Open MPI's "
               "linear and linear_sync); --size per pair; any --ranks",
    .options = FENNEL_GEN_RANKS | FENNEL_GEN_SIZE,
    .generate = alltoall_linear,
    .min_tasks = tasks,
};

/* alltoall-scattered: MPICH's scattered all-to-all (MPIR_Alltoall_intra_scattered,
 * src/mpi/coll/alltoall/alltoall_intra_scattered.c): the offsets 0 .. p - 1 are cut into
 * batches of MPIR_CVAR_ALLTOALL_THROTTLE (32, its default); for each batch every rank posts
 * its receives from rank + i and its sends to rank - i for the batch's offsets i, and waits
 * for them all before the next batch. One stage per batch: each rank's puts of --size bytes
 * to rank - i in that order, the next batch after the batch's receives (the offset 0, to
 * itself, is a local copy, not timed). Up to 32 ranks one batch: alltoall-linear's sends.
 * Each put carries one block of p^2 for fennel verify, as alltoall-pairwise's. */
#define SCATTERED_BATCH 32

static FennelProgram *alltoall_scattered(const FennelGenOptions *o, GError **error)
{
    if (!fennel_block_check_ranks("alltoall-scattered", o, error))
        return NULL;
    uint32_t p = o->ranks;
    FennelStages *s = fennel_gen_stages(o, p);
    gboolean marked = p <= UINT16_MAX; /* as in alltoall-pairwise */
    if (marked)
        fennel_builder_set_n_blocks(fennel_stages_builder(s), p * p);
    for (uint32_t first = 0; first < p; first += MIN(SCATTERED_BATCH, p - first)) {
        uint32_t end = first + MIN(SCATTERED_BATCH, p - first); /* no overflow near 2^32 */
        for (uint32_t r = 0; r < p; r++)
            for (uint32_t i = MAX(first, 1); i < end; i++)
                put_pair(s, marked, p, r, (r + p - i) % p, o->size);
        fennel_stages_close(s, FALSE);
    }
    return fennel_stages_finish(s, FALSE, error);
}

const FennelGenerator fennel_gen_alltoall_scattered = {
    .name = "alltoall-scattered",
    .summary = "all-to-all: every rank sends --size to rank-1, rank-2, ... in batches of 32 "
               "offsets, waiting for each batch (MPICH's scattered); --size per pair; any --ranks",
    .options = FENNEL_GEN_RANKS | FENNEL_GEN_SIZE,
    .collective = "alltoall",
    .generate = alltoall_scattered,
    .min_tasks = tasks,
};

/* The blocks a Bruck step of distance d moves: those at positions 1 .. p-1 of the rotated
 * buffer whose position has bit d set. */
static uint32_t bruck_blocks(uint32_t p, uint32_t d)
{
    uint32_t n = 0;
    for (uint32_t i = 1; i < p; i++)
        n += (i & d) != 0;
    return n;
}

/* alltoall-bruck: Bruck's all-to-all as Open MPI runs it for modified_bruck
 * (ompi_coll_base_alltoall_intra_bruck, coll_base_alltoall.c v4.1.6): each rank rotates its
 * buffer so that position i holds the block for rank + i, then for d = 1, 2, 4, ... < p sends
 * to rank + d, and receives from rank - d, in one exchange (a sendrecv), the blocks at every
 * position i with bit d set, then rotates back. ceil(lg p) stages, each of one put of (blocks
 * with bit d) x --size bytes; the rotations are local copies, not timed. */
static uint64_t bruck_tasks(const FennelGenOptions *o)
{
    uint64_t steps = 0;
    for (uint64_t d = 1; d < o->ranks; d *= 2)
        steps++;
    return steps * o->ranks;
}

static FennelProgram *alltoall_bruck(const FennelGenOptions *o, GError **error)
{
    if (!fennel_block_check_ranks("alltoall-bruck", o, error))
        return NULL;
    uint32_t p = o->ranks;
    int64_t most;
    if (__builtin_mul_overflow((int64_t)p, o->size, &most)) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                    "alltoall-bruck: %u ranks x --size %" G_GINT64_FORMAT " B is too large", p,
                    o->size);
        return NULL;
    }
    FennelStages *s = fennel_gen_stages(o, p);
    for (uint64_t d = 1; d < p; d *= 2) {
        int64_t bytes = (int64_t)bruck_blocks(p, (uint32_t)d) * o->size;
        for (uint32_t r = 0; r < p; r++)
            fennel_stages_put(s, r, (uint32_t)((r + d) % p), bytes);
        fennel_stages_close(s, FALSE);
    }
    return fennel_stages_finish(s, FALSE, error);
}

const FennelGenerator fennel_gen_alltoall_bruck = {
    .name = "alltoall-bruck",
    .summary = "all-to-all by Bruck's algorithm, ceil(lg p) steps to rank+2^k (Open MPI's "
               "modified_bruck); --size per pair; any --ranks",
    .options = FENNEL_GEN_RANKS | FENNEL_GEN_SIZE,
    .generate = alltoall_bruck,
    .min_tasks = bruck_tasks,
};
