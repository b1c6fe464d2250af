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

/* Linear scatter and gather, as Open MPI's coll/base runs them (coll_base_scatter.c and
 * coll_base_gather.c, v4.1.6), with real ranks, not counted from the root:
 * - scatter-linear: the root sends each rank its block in rank order 0, 1, ..., p - 1
 *   (skipping itself), back to back, in one stage. basic_linear sends each with a blocking
 *   send; linear_nb with non-blocking ones, a blocking one every
 *   coll_tuned_scatter_algorithm_max_requests of them, whose default 0 means never; fennel's
 *   puts are the same pattern for both.
 * - gather-linear (basic_linear): every other rank sends its block to the root at once; the
 *   root receives them in rank order.
 * - gather-linear-sync (linear_sync, ompi_coll_base_gather_intra_linear_sync in
 *   coll_base_gather.c v3.1.6 and v4.1.6): for each other rank i in rank order, the root
 *   sends i an empty message, i answers with the first segment of its block and then sends
 *   the rest, and the root waits for the first segment (not the rest) before it asks the
 *   next rank; it waits for every rest at the end. The first segment is --segment bytes
 *   when that is less than the block (COLL_BASE_COMPUTED_SEGCOUNT, coll_base_functions.h:
 *   a segment of at least one element and less than the block cuts it; osu_gather and IMB
 *   Gather send bytes, so the segment is whole bytes), and the whole block otherwise, as
 *   Open MPI 4.1's fixed decision runs it (segment size 0): then the rest is an empty
 *   message. An empty message is a put of 0 bytes marked with the asked rank's block (or
 *   first segment), which the root does not have yet: it carries nothing. A cut block is
 *   two blocks of the vector for `fennel verify`, the first segment and the rest. The rest
 *   goes in a last stage: rank i's puts there wait only for its own earlier ones (its
 *   slot), not for the root. */
static FennelProgram *scatter_linear(const FennelGenOptions *o, GError **error)
{
    if (!fennel_gen_check_root("scatter-linear", o, error))
        return NULL;
    uint32_t p = o->ranks;
    FennelStages *s = stages_for(o, p);
    for (uint32_t r = 0; r < p; r++)
        if (r != o->root)
            fennel_stages_put_blocks(s, o->root, r, o->size, r, 1);
    return fennel_stages_finish(s, FALSE, error);
}

const FennelGenerator fennel_gen_scatter_linear = {
    .name = "scatter-linear",
    .summary = "scatter: --root sends each rank its --size bytes in rank order, back to back "
               "(Open MPI's basic_linear and linear_nb)",
    .options = FENNEL_GEN_RANKS | FENNEL_GEN_SIZE | FENNEL_GEN_ROOT,
    .collective = "scatter",
    .generate = scatter_linear,
};

static FennelProgram *gather_linear(const FennelGenOptions *o, GError **error)
{
    if (!fennel_gen_check_root("gather-linear", o, error))
        return NULL;
    uint32_t p = o->ranks;
    FennelStages *s = stages_for(o, p);
    for (uint32_t r = 0; r < p; r++)
        if (r != o->root)
            fennel_stages_put_blocks(s, r, o->root, o->size, r, 1);
    return fennel_stages_finish(s, FALSE, error);
}

const FennelGenerator fennel_gen_gather_linear = {
    .name = "gather-linear",
    .summary = "gather: every rank sends its --size bytes to --root at once (Open MPI's "
               "basic_linear)",
    .options = FENNEL_GEN_RANKS | FENNEL_GEN_SIZE | FENNEL_GEN_ROOT,
    .collective = "gather",
    .generate = gather_linear,
};

static FennelProgram *gather_linear_sync(const FennelGenOptions *o, GError **error)
{
    if (!fennel_gen_check_root("gather-linear-sync", o, error))
        return NULL;
    uint32_t p = o->ranks;
    /* cut: the first segment is o->segment bytes and the rest o->size - o->segment, blocks
     * 2i and 2i + 1 of rank i; otherwise the whole block first and an empty rest. */
    gboolean cut = o->segment > 0 && o->segment < o->size;
    int64_t first = cut ? o->segment : o->size;
    uint32_t per = cut ? 2 : 1;
    FennelStages *s = fennel_gen_stages(o, p);
    fennel_builder_set_n_blocks(fennel_stages_builder(s), per * p);
    for (uint32_t r = 0; r < p; r++) {
        if (r == o->root)
            continue;
        fennel_stages_put_blocks(s, o->root, r, 0, per * r, 1);
        fennel_stages_close(s, FALSE);
        fennel_stages_put_blocks(s, r, o->root, first, per * r, 1);
        fennel_stages_close(s, FALSE);
    }
    for (uint32_t r = 0; r < p; r++)
        if (r != o->root)
            fennel_stages_put_blocks(s, r, o->root, o->size - first, per * r + per - 1, 1);
    return fennel_stages_finish(s, FALSE, error);
}

const FennelGenerator fennel_gen_gather_linear_sync = {
    .name = "gather-linear-sync",
    .summary = "gather: --root asks each rank in rank order with an empty message and waits for "
               "the first --segment bytes of its --size (all of them without --segment) before "
               "the next, the rest after (Open MPI's linear_sync)",
    .options = FENNEL_GEN_RANKS | FENNEL_GEN_SIZE | FENNEL_GEN_ROOT | FENNEL_GEN_SEGMENT,
    .collective = "gather",
    .generate = gather_linear_sync,
};
