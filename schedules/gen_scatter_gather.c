/* Binomial scatter and gather (the trees of gen_trees.c carrying blocks). Rank i's data
 * is block i of p blocks of --size bytes each (MPI_Scatter's and MPI_Gather's count per
 * rank); every put is marked with the blocks it moves, so `fennel verify` follows them.
 * Ranks are counted from the root (v = rank - root mod p), so a subtree's blocks may
 * wrap past rank p - 1; the block ranges wrap with them.
 * - scatter: from the highest distance d = 2^k down, v with v mod 2d = 0 sends v + d the
 *   blocks of v + d's subtree, v + d .. min(v + 2d, p) - 1: p - 1 puts, ceil(log2 p)
 *   stages, root sends (p - 1) blocks in all.
 * - gather: the mirror, distances upwards; v with v mod 2d = d sends v - d the blocks it
 *   has collected, v .. min(v + d, p) - 1.
 * No compute tasks: the data is only moved. */
#include "errors.h"
#include "gen_rooted.h"
#include "stages.h"

static void put_subtree(FennelStages *s, const FennelGenOptions *o, uint64_t from, uint64_t to,
                        uint64_t first, uint64_t count)
{
    uint32_t p = o->ranks;
    fennel_stages_put_blocks(s, fennel_gen_real_rank(from, o->root, p),
                             fennel_gen_real_rank(to, o->root, p), o->size * (int64_t)count,
                             fennel_gen_real_rank(first, o->root, p), (uint32_t)count);
}

static FennelStages *stages_for(const FennelGenOptions *o, uint32_t p)
{
    FennelStages *s = fennel_gen_stages(o, p);
    fennel_builder_set_n_blocks(fennel_stages_builder(s), p);
    return s;
}

static FennelProgram *scatter_binomial(const FennelGenOptions *o, GError **error)
{
    if (!fennel_gen_check_root("scatter-binomial", o, error))
        return NULL;
    uint32_t p = o->ranks;
    uint64_t top = 1;
    while (2 * top < p)
        top *= 2;
    FennelStages *s = stages_for(o, p);
    for (uint64_t d = p > 1 ? top : 0; d >= 1; d /= 2) {
        for (uint64_t v = 0; v + d < p; v += 2 * d)
            put_subtree(s, o, v, v + d, v + d, MIN(d, p - v - d));
        fennel_stages_close(s, FALSE);
    }
    return fennel_stages_finish(s, FALSE, error);
}

const FennelGenerator fennel_gen_scatter_binomial = {
    .name = "scatter-binomial",
    .summary = "scatter --size bytes per rank from --root along a binomial tree",
    .options = FENNEL_GEN_RANKS | FENNEL_GEN_SIZE | FENNEL_GEN_ROOT,
    .collective = "scatter",
    .generate = scatter_binomial,
};

static FennelProgram *gather_binomial(const FennelGenOptions *o, GError **error)
{
    if (!fennel_gen_check_root("gather-binomial", o, error))
        return NULL;
    uint32_t p = o->ranks;
    FennelStages *s = stages_for(o, p);
    for (uint64_t d = 1; d < p; d *= 2) {
        for (uint64_t v = d; v < p; v += 2 * d)
            put_subtree(s, o, v, v - d, v, MIN(d, p - v));
        fennel_stages_close(s, FALSE);
    }
    return fennel_stages_finish(s, FALSE, error);
}

const FennelGenerator fennel_gen_gather_binomial = {
    .name = "gather-binomial",
    .summary = "gather --size bytes per rank to --root along a binomial tree",
    .options = FENNEL_GEN_RANKS | FENNEL_GEN_SIZE | FENNEL_GEN_ROOT,
    .collective = "gather",
    .generate = gather_binomial,
};
