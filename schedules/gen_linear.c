/* Linear collectives, as Open MPI's coll/base runs them (its "basic_linear" algorithms,
 * ompi/mca/coll/base/coll_base_bcast.c, coll_base_reduce.c and coll_base_allreduce.c,
 * read at v4.1.6; docs/LIBRARIES.md):
 *
 * - bcast-linear: the root sends the whole buffer to every other rank, in rank order
 *   0, 1, ..., p - 1 (skipping itself), back to back, in one stage.
 * - reduce-linear: every other rank sends its buffer to the root at once; the root
 *   receives them from rank p - 1 down to rank 0 and reduces each as it comes (p - 1
 *   reductions of --size bytes). One reducing stage per sender: a rank outside a stage
 *   keeps its entry, so every put depends only on its sender's start and the senders all
 *   send at time 0, while the root's computes follow each other in that order.
 * - allreduce-linear: reduce-linear to rank 0, then bcast-linear from rank 0.
 *
 * Ranks are real ranks, not counted from the root: the order is the library's. */
#include "errors.h"
#include "gen_rooted.h"

void fennel__gen_bcast_linear(FennelStages *s, uint32_t p, uint32_t root, int64_t bytes)
{
    for (uint32_t r = 0; r < p; r++)
        if (r != root)
            fennel_stages_put(s, root, r, bytes);
    fennel_stages_close(s, FALSE);
}

void fennel__gen_reduce_linear(FennelStages *s, uint32_t p, uint32_t root, int64_t bytes)
{
    for (uint32_t r = p; r-- > 0;) {
        if (r == root)
            continue;
        fennel_stages_put(s, r, root, bytes);
        fennel_stages_close(s, TRUE);
    }
}

static FennelProgram *bcast_linear(const FennelGenOptions *o, GError **error)
{
    if (!fennel_gen_check_root("bcast-linear", o, error))
        return NULL;
    FennelStages *s = fennel_gen_stages(o, o->ranks);
    fennel__gen_bcast_linear(s, o->ranks, o->root, o->size);
    return fennel_stages_finish(s, FALSE, error);
}

const FennelGenerator fennel_gen_bcast_linear = {
    .name = "bcast-linear",
    .summary = "broadcast: --root sends to every rank in rank order, back to back (Open MPI's "
               "basic_linear)",
    .options = FENNEL_GEN_RANKS | FENNEL_GEN_SIZE | FENNEL_GEN_ROOT,
    .collective = "bcast",
    .generate = bcast_linear,
};

static FennelProgram *reduce_linear(const FennelGenOptions *o, GError **error)
{
    if (!fennel_gen_check_root("reduce-linear", o, error))
        return NULL;
    FennelStages *s = fennel_gen_stages(o, o->ranks);
    fennel__gen_reduce_linear(s, o->ranks, o->root, o->size);
    return fennel_stages_finish(s, TRUE, error);
}

const FennelGenerator fennel_gen_reduce_linear = {
    .name = "reduce-linear",
    .summary = "reduce: every rank sends to --root at once, which reduces them from rank p-1 "
               "down (Open MPI's basic_linear)",
    .options = FENNEL_GEN_RANKS | FENNEL_GEN_SIZE | FENNEL_GEN_ROOT,
    .collective = "reduce",
    .generate = reduce_linear,
};

static FennelProgram *allreduce_linear(const FennelGenOptions *o, GError **error)
{
    FennelStages *s = fennel_gen_stages(o, o->ranks);
    fennel__gen_reduce_linear(s, o->ranks, 0, o->size);
    fennel__gen_bcast_linear(s, o->ranks, 0, o->size);
    return fennel_stages_finish(s, FALSE, error);
}

const FennelGenerator fennel_gen_allreduce_linear = {
    .name = "allreduce-linear",
    .summary = "reduce-linear to rank 0, then bcast-linear from it (Open MPI's basic_linear)",
    .options = FENNEL_GEN_RANKS | FENNEL_GEN_SIZE,
    .collective = "allreduce",
    .generate = allreduce_linear,
};
