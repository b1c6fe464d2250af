/* Rabenseifner's recursive halving and doubling (Rabenseifner 2004 §3.5, Fig. 2):
 * allreduce = reduce-scatter by recursive vector halving with distance doubling +
 * allgather by recursive vector doubling with distance halving; reduce = the same
 * reduce-scatter + a binary-tree gather to the root; and a stand-alone reduce-scatter by
 * recursive halving whose result lands in rank order.
 *
 * Non-powers of two (Rabenseifner 2004 §3.5, first step): p' = 2^floor(lg p) and
 * r = p - p'. Among the first 2r ranks, each even rank sends the second half of its
 * vector to rank + 1 and each odd rank the first half to rank - 1; both reduce their
 * half (one stage); then the odd rank sends its reduced half back (one stage) and is
 * "removed". The r even survivors and the ranks >= 2r are renumbered 0 .. p' - 1 (new
 * rank v is real rank 2v for v < r, else v + r). At the end, an allreduce sends the
 * whole result to each removed rank, a reduce-scatter its own block; a reduce needs
 * nothing more (when the root is a removed rank it swaps roles with its partner in the
 * second pre-step stage, at no extra cost, as the paper says).
 *
 * Stages that only move finished data (the allgather, the gather, the return to the
 * removed ranks, the pre-step's second stage) have no compute task: the paper's cost
 * formulas count a reduction only where partial results are combined, e.g.
 * 6a + 1.75nb + 0.875ng for the allreduce at p = 8.
 *
 * Blocks: the vector is cut into p' blocks (p blocks for the reduce-scatter, one per
 * rank), block i holding bytes floor(n i / B) .. floor(n (i + 1) / B) - 1 of the n bytes,
 * so an uneven n gives blocks that differ by at most one byte; a message's size is the
 * sum of the blocks it moves. */
#include "blocks.h"
#include "errors.h"
#include "gen_parts.h"
#include "generator.h"
#include "stages.h"

/* The fold of p ranks onto p' = 2^floor(lg p). */
typedef struct {
    uint32_t p, pof2, rem, lg;
    uint32_t *real;    /* per new rank: the real rank */
    uint32_t *partner; /* per new rank < rem: the removed partner, else FENNEL_NO_RANK */
    uint32_t *lo, *hi; /* per new rank: its current blocks */
} Fold;

/* The survivor of pair (2i, 2i + 1) is the even rank, unless `root` is the odd one. */
static void fold_init(Fold *f, uint32_t p, uint32_t root)
{
    f->p = p;
    f->lg = 0;
    while ((2u << f->lg) <= p)
        f->lg++;
    f->pof2 = 1u << f->lg;
    f->rem = p - f->pof2;
    f->real = g_new(uint32_t, f->pof2);
    f->partner = g_new(uint32_t, f->pof2);
    f->lo = g_new(uint32_t, f->pof2);
    f->hi = g_new(uint32_t, f->pof2);
    for (uint32_t v = 0; v < f->pof2; v++) {
        if (v < f->rem) {
            gboolean odd_root = root == 2 * v + 1;
            f->real[v] = odd_root ? 2 * v + 1 : 2 * v;
            f->partner[v] = odd_root ? 2 * v : 2 * v + 1;
        } else {
            f->real[v] = v + f->rem;
            f->partner[v] = FENNEL_NO_RANK;
        }
    }
}

static void fold_clear(Fold *f)
{
    g_free(f->real);
    g_free(f->partner);
    g_free(f->lo);
    g_free(f->hi);
}

/* The pre-step: the pairs exchange halves (blocks [0, mid) go to the even rank, [mid,
 * nb) to the odd one) and reduce, then the removed rank returns its reduced half. */
static void fold_in(FennelStages *s, const Fold *f, int64_t n, uint32_t nb, uint32_t mid)
{
    if (f->rem == 0)
        return;
    for (uint32_t v = 0; v < f->rem; v++) {
        fennel_block_put(s, 2 * v, 2 * v + 1, n, nb, mid, nb);
        fennel_block_put(s, 2 * v + 1, 2 * v, n, nb, 0, mid);
    }
    fennel_stages_close(s, TRUE);
    for (uint32_t v = 0; v < f->rem; v++) {
        uint32_t survivor = f->real[v], removed = f->partner[v];
        if (survivor % 2 == 0)
            fennel_block_put(s, removed, survivor, n, nb, mid, nb);
        else
            fennel_block_put(s, removed, survivor, n, nb, 0, mid);
    }
    fennel_stages_close(s, FALSE);
}

/* Reduce-scatter by recursive vector halving and distance doubling on the p' new
 * ranks (Rabenseifner 2004 §3.5): at step k the partner is v XOR 2^k; the rank with bit k
 * clear keeps the lower half of its blocks. New rank v ends with block bitreverse(v). */
static void halving_doubling(FennelStages *s, Fold *f, int64_t n)
{
    for (uint32_t v = 0; v < f->pof2; v++) {
        f->lo[v] = 0;
        f->hi[v] = f->pof2;
    }
    for (uint32_t k = 0; k < f->lg; k++) {
        uint32_t mask = 1u << k;
        for (uint32_t v = 0; v < f->pof2; v++) {
            uint32_t mid = (f->lo[v] + f->hi[v]) / 2, w = v ^ mask;
            if (v & mask)
                fennel_block_put(s, f->real[v], f->real[w], n, f->pof2, f->lo[v], mid);
            else
                fennel_block_put(s, f->real[v], f->real[w], n, f->pof2, mid, f->hi[v]);
        }
        fennel_stages_close(s, TRUE);
        for (uint32_t v = 0; v < f->pof2; v++) {
            uint32_t mid = (f->lo[v] + f->hi[v]) / 2;
            if (v & mask)
                f->lo[v] = mid;
            else
                f->hi[v] = mid;
        }
    }
}

/* After partners v and v XOR mask exchanged their blocks, both hold the union. */
static void grow(Fold *f, uint32_t mask)
{
    for (uint32_t v = 0; v < f->pof2; v++) {
        uint32_t w = v ^ mask;
        if (w < v)
            continue;
        f->lo[v] = f->lo[w] = MIN(f->lo[v], f->lo[w]);
        f->hi[v] = f->hi[w] = MAX(f->hi[v], f->hi[w]);
    }
}

static FennelStages *stages_for(const FennelGenOptions *o, uint32_t p, uint32_t nb)
{
    FennelStages *s = fennel_gen_stages(o, p);
    fennel_builder_set_n_blocks(fennel_stages_builder(s), nb);
    return s;
}

void fennel__gen_allreduce_rabenseifner(FennelStages *s, uint32_t p, int64_t n)
{
    Fold f;
    fold_init(&f, p, FENNEL_NO_RANK);
    fennel_builder_set_n_blocks(fennel_stages_builder(s), f.pof2);
    fold_in(s, &f, n, f.pof2, f.pof2 / 2);
    halving_doubling(s, &f, n);
    /* Allgather by recursive vector doubling and distance halving: the reverse. */
    for (uint32_t k = f.lg; k-- > 0;) {
        uint32_t mask = 1u << k;
        for (uint32_t v = 0; v < f.pof2; v++)
            fennel_block_put(s, f.real[v], f.real[v ^ mask], n, f.pof2, f.lo[v], f.hi[v]);
        fennel_stages_close(s, FALSE);
        grow(&f, mask);
    }
    for (uint32_t v = 0; v < f.rem; v++)
        fennel_block_put(s, f.real[v], f.partner[v], n, f.pof2, 0, f.pof2);
    fennel_stages_close(s, FALSE);
    fold_clear(&f);
}

static FennelProgram *allreduce_rabenseifner(const FennelGenOptions *o, GError **error)
{
    if (!fennel_block_check_ranks("allreduce-rabenseifner", o, error))
        return NULL;
    FennelStages *s = fennel_gen_stages(o, o->ranks);
    fennel__gen_allreduce_rabenseifner(s, o->ranks, o->size);
    return fennel_stages_finish(s, FALSE, error);
}

/* The reduce: the reduce-scatter, then a binary-tree gather to the root (Rabenseifner
 * 2004 §3.5, "Reduce"): at the step for bit k (from p'/2 down to 1), of each pair of
 * still active new ranks differing in bit k, the one whose bit k equals the root's
 * receives the other's blocks; only receivers stay active. */
void fennel__gen_reduce_rabenseifner(FennelStages *s, uint32_t p, uint32_t root, int64_t n)
{
    Fold f;
    fold_init(&f, p, root);
    fennel_builder_set_n_blocks(fennel_stages_builder(s), f.pof2);
    fold_in(s, &f, n, f.pof2, f.pof2 / 2);
    halving_doubling(s, &f, n);
    uint32_t root_v = root < 2 * f.rem ? root / 2 : root - f.rem;
    for (uint32_t k = f.lg; k-- > 0;) {
        uint32_t mask = 1u << k;
        for (uint32_t v = 0; v < f.pof2; v++) {
            if (((v ^ root_v) >> (k + 1)) == 0 && (v & mask) != (root_v & mask))
                fennel_block_put(s, f.real[v], f.real[v ^ mask], n, f.pof2, f.lo[v], f.hi[v]);
        }
        fennel_stages_close(s, FALSE);
        grow(&f, mask);
    }
    fold_clear(&f);
}

static FennelProgram *reduce_rabenseifner(const FennelGenOptions *o, GError **error)
{
    if (!fennel_block_check_ranks("reduce-rabenseifner", o, error))
        return NULL;
    if (o->root >= o->ranks) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                    "reduce-rabenseifner needs --root in 0..%u (the --ranks)", o->ranks - 1);
        return NULL;
    }
    FennelStages *s = fennel_gen_stages(o, o->ranks);
    fennel__gen_reduce_rabenseifner(s, o->ranks, o->root, o->size);
    return fennel_stages_finish(s, FALSE, error);
}

/* First block of new rank v's share of a reduce-scatter over p blocks: a survivor of
 * the pre-step also holds its removed partner's block. */
static uint32_t share(const Fold *f, uint32_t v)
{
    return v < f->rem ? 2 * v : v + f->rem;
}

/* The reduce-scatter: recursive vector halving with distance halving (the variant of
 * Thakur and Gropp that Rabenseifner 2004 §3.5, footnote 1, contrasts), so that rank i
 * ends with block i. At the step for bit k (from p'/2 down to 1) new rank v and
 * v XOR 2^k split their common range of shares; the one with bit k clear keeps the
 * lower half. */
static FennelProgram *reduce_scatter_halving(const FennelGenOptions *o, GError **error)
{
    if (!fennel_block_check_ranks("reduce-scatter-halving", o, error))
        return NULL;
    Fold f;
    fold_init(&f, o->ranks, FENNEL_NO_RANK);
    uint32_t nb = f.p;
    FennelStages *s = stages_for(o, f.p, nb);
    fold_in(s, &f, o->size, nb, share(&f, f.pof2 / 2));
    for (uint32_t k = f.lg; k-- > 0;) {
        uint32_t mask = 1u << k;
        for (uint32_t v = 0; v < f.pof2; v++) {
            uint32_t lo = v & ~(2 * mask - 1), mid = lo + mask, hi = lo + 2 * mask;
            uint32_t w = v ^ mask;
            if (v & mask)
                fennel_block_put(s, f.real[v], f.real[w], o->size, nb, share(&f, lo),
                                 share(&f, mid));
            else
                fennel_block_put(s, f.real[v], f.real[w], o->size, nb, share(&f, mid),
                                 share(&f, hi));
        }
        fennel_stages_close(s, TRUE);
    }
    for (uint32_t v = 0; v < f.rem; v++)
        fennel_block_put(s, f.real[v], f.partner[v], o->size, nb, f.partner[v], f.partner[v] + 1);
    fold_clear(&f);
    return fennel_stages_finish(s, FALSE, error);
}

const FennelGenerator fennel_gen_allreduce_rabenseifner = {
    .name = "allreduce-rabenseifner",
    .summary = "reduce-scatter by recursive halving + allgather by recursive doubling "
               "(Rabenseifner 2004); any --ranks",
    .options = FENNEL_GEN_RANKS | FENNEL_GEN_SIZE,
    .collective = "allreduce",
    .generate = allreduce_rabenseifner,
};

const FennelGenerator fennel_gen_reduce_rabenseifner = {
    .name = "reduce-rabenseifner",
    .summary = "reduce-scatter by recursive halving + binary-tree gather to --root "
               "(Rabenseifner 2004); any --ranks",
    .options = FENNEL_GEN_RANKS | FENNEL_GEN_SIZE | FENNEL_GEN_ROOT,
    .collective = "reduce",
    .generate = reduce_rabenseifner,
};

const FennelGenerator fennel_gen_reduce_scatter_halving = {
    .name = "reduce-scatter-halving",
    .summary = "recursive vector halving, rank i ends with block i of --size; any --ranks",
    .options = FENNEL_GEN_RANKS | FENNEL_GEN_SIZE,
    .collective = "reduce-scatter",
    .generate = reduce_scatter_halving,
};
