/* Ring algorithms for any rank count (Rabenseifner 2004 §3.2, §3.7; Patarasuk and Yuan
 * 2009): the reduce-scatter by a ring of neighbours (in step k = 0 .. p - 2 each rank sends
 * rank + 1 the partial block (rank - k - 1) mod p, which rank + 1 reduces with its own and
 * forwards in the next step) or by pairwise exchange with increasing strides (in step
 * i = 1 .. p - 1 each rank sends rank + i the block rank + i reduces, and reduces the block
 * it owns with what rank - i sent), the allgather by a ring of stride 1 (each rank forwards
 * to rank + 1 the block it received last, p - 1 steps), their combinations into an
 * allreduce (2(p - 1) steps of n/p, T = 2(p-1)a + 2nb + ng - (2nb + ng)/p under the postal
 * model, for either reduce-scatter: they differ only in who talks to whom, which a topology
 * tells apart), and van de Geijn's bandwidth-optimal broadcast: a binomial scatter from the
 * root followed by the ring allgather.
 *
 * Sizes: for the allreduce, the reduce-scatter and the broadcast, --size is the whole
 * vector, cut into p blocks (block i holds bytes floor(n i / p) .. floor(n (i + 1) / p) - 1,
 * so an uneven n gives blocks that differ by one byte); rank i's result block is block i.
 * For the allgather, --size is what each rank contributes (block i, of rank i), as in
 * MPI_Allgather's count and the original Fennel's ring allgather. The stages that only
 * move finished data (the allgather, the scatter) have no compute task. */
#include "blocks.h"
#include "gen_parts.h"
#include "errors.h"
#include "generator.h"
#include "stages.h"

/* Messages of one ring phase over p ranks: p - 1 steps of p messages (saturating). */
static uint64_t phase(uint64_t p)
{
    uint64_t n;
    return p == 0 || __builtin_mul_overflow(p, p - 1, &n) ? 0 : n;
}

static uint64_t two_phases(const FennelGenOptions *o)
{
    uint64_t n = phase(o->ranks);
    return n > UINT64_MAX / 2 ? UINT64_MAX : 2 * n;
}

static uint64_t one_phase(const FennelGenOptions *o)
{
    return phase(o->ranks);
}

static uint64_t hier_tasks(const FennelGenOptions *o)
{
    uint64_t p = o->ranks, ppn = MAX(o->ppn, 1u), nodes = p / ppn;
    return p * (2 * (ppn - (ppn > 0)) + 2 * (nodes - (nodes > 0)));
}

static FennelStages *stages_for(const FennelGenOptions *o, uint32_t p)
{
    FennelStages *s = fennel_gen_stages(o, p);
    fennel_builder_set_n_blocks(fennel_stages_builder(s), p);
    return s;
}

/* Neighbour-ring reduce-scatter: rank r ends with block r, reduced over all ranks. */
static void ring_reduce_scatter(FennelStages *s, uint32_t p, int64_t n)
{
    for (uint32_t k = 0; k + 1 < p; k++) {
        for (uint32_t r = 0; r < p; r++) {
            uint32_t b = (r + 2 * p - k - 1) % p;
            fennel_block_put(s, r, (r + 1) % p, n, p, b, b + 1);
        }
        fennel_stages_close(s, TRUE);
    }
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
    ring_reduce_scatter(s, o->ranks, o->size);
    ring_allgather(s, o->ranks, 0, o->size, -1);
    return fennel_stages_finish(s, FALSE, error);
}

/* allreduce-ring-segmented: Open MPI's ring_segmented allreduce
 * (ompi_coll_base_allreduce_intra_ring_segmented, coll_base_allreduce.c v3.1.6 lines
 * 615-830, the same at v4.1.6). With n bytes on p ranks and segments of s bytes, the ring's
 * reduce-scatter runs in phases: Phi = floor(n / (p s)), plus one when the rest n mod (p s)
 * is at least p and more than p s / 2 (lines 660-664); each block is cut into Phi parts,
 * and phase f is the ring reduce-scatter of part f of every block (p - 1 reducing steps,
 * a rank sending part f of the block allreduce-ring's step sends), one phase after the
 * other on each rank. Then the ring allgather of the whole blocks, p - 1 steps (lines
 * 797-822). Without a segment, with one of the whole vector, or when n < p s, Open MPI runs
 * the plain ring (lines 650-658): allreduce-ring. Open MPI counts elements where fennel
 * counts bytes; for 4-byte floats and a segment of two of them or more the phase count is
 * the same. For fennel verify the vector is cut into p Phi blocks, part f of block b being
 * block b Phi + f. */
static uint64_t ring_phases(int64_t n, uint32_t p, int64_t seg)
{
    if (p < 2 || seg <= 0 || seg >= n || n / p < seg)
        return 0;
    uint64_t whole = (uint64_t)p * (uint64_t)seg; /* at most n */
    uint64_t phases = (uint64_t)n / whole, rest = (uint64_t)n % whole;
    return phases + (rest >= p && rest > whole / 2);
}

static uint64_t ring_segmented_tasks(const FennelGenOptions *o)
{
    uint64_t phases = ring_phases(o->size, o->ranks, o->segment), n = phase(o->ranks);
    return phases + 1 > UINT64_MAX / MAX(n, 1) ? UINT64_MAX : (phases + 1) * n;
}

static FennelProgram *allreduce_ring_segmented(const FennelGenOptions *o, GError **error)
{
    if (!fennel_block_check_ranks("allreduce-ring-segmented", o, error))
        return NULL;
    uint32_t p = o->ranks;
    uint64_t phases = ring_phases(o->size, p, o->segment);
    if (phases == 0)
        return allreduce_ring(o, error);
    if (phases > (UINT32_MAX - 1) / p) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                    "allreduce-ring-segmented needs at most %u parts (--size / --segment), got "
                    "%" G_GUINT64_FORMAT " phases of %u",
                    UINT32_MAX - 1, phases, p);
        return NULL;
    }
    const uint32_t f_n = (uint32_t)phases, nb = p * f_n;
    FennelStages *s = fennel_gen_stages(o, p);
    fennel_builder_set_n_blocks(fennel_stages_builder(s), nb);
    for (uint32_t f = 0; f < f_n; f++) {
        for (uint32_t k = 0; k + 1 < p; k++) {
            for (uint32_t r = 0; r < p; r++) {
                uint32_t part = ((r + 2 * p - k - 1) % p) * f_n + f;
                fennel_block_put(s, r, (r + 1) % p, o->size, nb, part, part + 1);
            }
            fennel_stages_close(s, TRUE);
        }
    }
    for (uint32_t k = 0; k + 1 < p; k++) {
        for (uint32_t r = 0; r < p; r++) {
            uint32_t b = (r + p - k) % p;
            fennel_block_put(s, r, (r + 1) % p, o->size, nb, b * f_n, (b + 1) * f_n);
        }
        fennel_stages_close(s, FALSE);
    }
    return fennel_stages_finish(s, FALSE, error);
}

static FennelProgram *allreduce_pairwise(const FennelGenOptions *o, GError **error)
{
    if (!fennel_block_check_ranks("allreduce-pairwise", o, error))
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
    ring_reduce_scatter(s, o->ranks, o->size);
    return fennel_stages_finish(s, FALSE, error);
}

static FennelProgram *reduce_scatter_pairwise(const FennelGenOptions *o, GError **error)
{
    if (!fennel_block_check_ranks("reduce-scatter-pairwise", o, error))
        return NULL;
    FennelStages *s = stages_for(o, o->ranks);
    reduce_scatter(s, o->ranks, o->size);
    return fennel_stages_finish(s, FALSE, error);
}

/* Hierarchical allreduce (the GPU-pod pattern): with P ranks per node (--ppn) on N nodes, a
 * ring reduce-scatter inside each node leaves local rank l with part l of the vector, a ring
 * allreduce of part l among the N ranks of local index l (one per node) reduces it over all
 * nodes, and a ring allgather inside each node gives every rank the whole vector. The vector
 * is cut into P x N blocks: part l is blocks l N .. (l + 1) N - 1. Only N ranks per message
 * step cross nodes, each with n / (P N) bytes. */
static FennelProgram *allreduce_hier(const FennelGenOptions *o, GError **error)
{
    uint32_t p = o->ranks, ppn = o->ppn;
    if (p < 1 || ppn < 1 || p % ppn != 0) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                    "allreduce-hier needs --ranks a multiple of --ppn (nodes x ranks per node), "
                    "got %u and %u",
                    p, ppn);
        return NULL;
    }
    const uint32_t nodes = p / ppn, nb = p;
    const int64_t n = o->size;
    FennelStages *s = fennel_gen_stages(o, p);
    fennel_builder_set_n_blocks(fennel_stages_builder(s), nb);
    /* Inside each node: local rank l ends with part l. */
    for (uint32_t k = 0; k + 1 < ppn; k++) {
        for (uint32_t r = 0; r < p; r++) {
            uint32_t l = r % ppn, part = (l + 2 * ppn - k - 1) % ppn;
            uint32_t to = r - l + (l + 1) % ppn;
            fennel_block_put(s, r, to, n, nb, part * nodes, (part + 1) * nodes);
        }
        fennel_stages_close(s, TRUE);
    }
    /* Across nodes, for each local index l: a ring reduce-scatter, then a ring allgather,
     * of part l's N blocks; node j ends the reduce-scatter with block l N + j. */
    for (uint32_t k = 0; k + 1 < nodes; k++) {
        for (uint32_t r = 0; r < p; r++) {
            uint32_t l = r % ppn, j = r / ppn, b = l * nodes + (j + 2 * nodes - k - 1) % nodes;
            fennel_block_put(s, r, ((j + 1) % nodes) * ppn + l, n, nb, b, b + 1);
        }
        fennel_stages_close(s, TRUE);
    }
    for (uint32_t k = 0; k + 1 < nodes; k++) {
        for (uint32_t r = 0; r < p; r++) {
            uint32_t l = r % ppn, j = r / ppn, b = l * nodes + (j + nodes - k) % nodes;
            fennel_block_put(s, r, ((j + 1) % nodes) * ppn + l, n, nb, b, b + 1);
        }
        fennel_stages_close(s, FALSE);
    }
    /* Inside each node: the ring allgather of the parts. */
    for (uint32_t k = 0; k + 1 < ppn; k++) {
        for (uint32_t r = 0; r < p; r++) {
            uint32_t l = r % ppn, part = (l + ppn - k) % ppn;
            fennel_block_put(s, r, r - l + (l + 1) % ppn, n, nb, part * nodes, (part + 1) * nodes);
        }
        fennel_stages_close(s, FALSE);
    }
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
void fennel__gen_bcast_scatter_allgather(FennelStages *s, uint32_t p, uint32_t root, int64_t n)
{
    fennel_builder_set_n_blocks(fennel_stages_builder(s), p);
    uint32_t top = 1;
    while (top < p / 2 + p % 2)
        top <<= 1;
    for (uint32_t mask = p > 1 ? top : 0; mask > 0; mask >>= 1) {
        for (uint32_t q = 0; q + mask < p; q += 2 * mask)
            fennel_block_put(s, (q + root) % p, (q + mask + root) % p, n, p, q + mask,
                             MIN(q + 2 * mask, p));
        fennel_stages_close(s, FALSE);
    }
    ring_allgather(s, p, root, n, -1);
}

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
    FennelStages *s = fennel_gen_stages(o, p);
    fennel__gen_bcast_scatter_allgather(s, p, o->root, o->size);
    return fennel_stages_finish(s, FALSE, error);
}

/* bcast-scatter-rd-allgather: MPICH's scatter_recursive_doubling_allgather
 * (src/mpi/coll/bcast/bcast_intra_scatter_recursive_doubling_allgather.c, v3.3.2), which
 * MPICH 3.3 runs on power-of-two communicators (docs/LIBRARIES.md): the binomial scatter of
 * bcast-scatter-allgather, then a recursive-doubling allgather. Counted from the root, in
 * the step of distance m = 1, 2, 4, ... rank q sends the m blocks it holds, those of the
 * aligned group of m ranks around q, to q xor m, and receives theirs. Power-of-two --ranks
 * only (MPICH's fix-up for the others is not modelled). */
void fennel__gen_bcast_scatter_rd_allgather(FennelStages *s, uint32_t p, uint32_t root, int64_t n)
{
    fennel_builder_set_n_blocks(fennel_stages_builder(s), p);
    for (uint32_t mask = p / 2; mask > 0; mask >>= 1) {
        for (uint32_t q = 0; q + mask < p; q += 2 * mask)
            fennel_block_put(s, (q + root) % p, (q + mask + root) % p, n, p, q + mask,
                             q + 2 * mask);
        fennel_stages_close(s, FALSE);
    }
    for (uint32_t mask = 1; mask < p; mask <<= 1) {
        for (uint32_t q = 0; q < p; q++) {
            uint32_t lo = q & ~(mask - 1);
            fennel_block_put(s, (q + root) % p, ((q ^ mask) + root) % p, n, p, lo, lo + mask);
        }
        fennel_stages_close(s, FALSE);
    }
}

static FennelProgram *bcast_scatter_rd_allgather(const FennelGenOptions *o, GError **error)
{
    if (!fennel_block_check_ranks("bcast-scatter-rd-allgather", o, error))
        return NULL;
    uint32_t p = o->ranks;
    if ((p & (p - 1)) != 0 || o->root >= p) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                    "bcast-scatter-rd-allgather needs a power of two --ranks and --root in "
                    "0..--ranks-1, got --ranks %u --root %u",
                    p, o->root);
        return NULL;
    }
    FennelStages *s = fennel_gen_stages(o, p);
    fennel__gen_bcast_scatter_rd_allgather(s, p, o->root, o->size);
    return fennel_stages_finish(s, FALSE, error);
}

const FennelGenerator fennel_gen_bcast_scatter_rd_allgather = {
    .name = "bcast-scatter-rd-allgather",
    .summary = "binomial scatter of --size from --root + recursive-doubling allgather "
               "(MPICH's); power-of-two --ranks",
    .options = FENNEL_GEN_RANKS | FENNEL_GEN_SIZE | FENNEL_GEN_ROOT,
    .collective = "bcast",
    .generate = bcast_scatter_rd_allgather,
};

const FennelGenerator fennel_gen_allreduce_ring = {
    .name = "allreduce-ring",
    .summary = "ring of neighbours: reduce-scatter + allgather, each rank sending to rank+1, "
               "2(p-1) steps of n/p (Patarasuk-Yuan); any --ranks",
    .options = FENNEL_GEN_RANKS | FENNEL_GEN_SIZE,
    .collective = "allreduce",
    .generate = allreduce_ring,
    .min_tasks = two_phases,
};

const FennelGenerator fennel_gen_allreduce_ring_segmented = {
    .name = "allreduce-ring-segmented",
    .summary = "Open MPI's ring_segmented: the ring's reduce-scatter in phases of --segment "
               "bytes a block, then its allgather; any --ranks",
    .options = FENNEL_GEN_RANKS | FENNEL_GEN_SIZE | FENNEL_GEN_SEGMENT,
    .collective = "allreduce",
    .streams = TRUE,
    .generate = allreduce_ring_segmented,
    .min_tasks = ring_segmented_tasks,
};

const FennelGenerator fennel_gen_allreduce_pairwise = {
    .name = "allreduce-pairwise",
    .summary = "pairwise-exchange reduce-scatter + ring allgather, 2(p-1) steps of n/p "
               "(Rabenseifner 2004 §3.7); any --ranks",
    .options = FENNEL_GEN_RANKS | FENNEL_GEN_SIZE,
    .collective = "allreduce",
    .generate = allreduce_pairwise,
    .min_tasks = two_phases,
};

const FennelGenerator fennel_gen_allreduce_hier = {
    .name = "allreduce-hier",
    .summary = "hierarchical: ring reduce-scatter inside each node of --ppn ranks, ring "
               "allreduce across nodes, ring allgather inside; --ranks a multiple of --ppn",
    .options = FENNEL_GEN_RANKS | FENNEL_GEN_SIZE | FENNEL_GEN_PPN,
    .collective = "allreduce",
    .generate = allreduce_hier,
    .min_tasks = hier_tasks,
};

const FennelGenerator fennel_gen_reduce_scatter_ring = {
    .name = "reduce-scatter-ring",
    .summary = "ring of neighbours, p-1 steps of n/p to rank+1; rank i ends with block i of "
               "--size; any --ranks",
    .options = FENNEL_GEN_RANKS | FENNEL_GEN_SIZE,
    .collective = "reduce-scatter",
    .generate = reduce_scatter_ring,
    .min_tasks = one_phase,
};

const FennelGenerator fennel_gen_reduce_scatter_pairwise = {
    .name = "reduce-scatter-pairwise",
    .summary = "pairwise-exchange reduce-scatter, p-1 steps of n/p; rank i ends with block "
               "i of --size; any --ranks",
    .options = FENNEL_GEN_RANKS | FENNEL_GEN_SIZE,
    .collective = "reduce-scatter",
    .generate = reduce_scatter_pairwise,
    .min_tasks = one_phase,
};

const FennelGenerator fennel_gen_allgather_ring = {
    .name = "allgather-ring",
    .summary = "ring allgather, p-1 steps forwarding to rank+1; --size per rank; any --ranks",
    .options = FENNEL_GEN_RANKS | FENNEL_GEN_SIZE,
    .collective = "allgather",
    .generate = allgather_ring,
    .min_tasks = one_phase,
};

const FennelGenerator fennel_gen_bcast_scatter_allgather = {
    .name = "bcast-scatter-allgather",
    .summary = "binomial scatter of --size from --root + ring allgather (van de Geijn); any "
               "--ranks",
    .options = FENNEL_GEN_RANKS | FENNEL_GEN_SIZE | FENNEL_GEN_ROOT,
    .collective = "bcast",
    .generate = bcast_scatter_allgather,
    .min_tasks = one_phase,
};
