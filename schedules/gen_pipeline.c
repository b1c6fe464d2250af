/* Segmented (pipelined) collectives: the buffer cut into segments of --segment bytes that
 * follow each other through the ranks.
 *
 * bcast-pipeline: Open MPI's pipeline broadcast (ompi_coll_base_bcast_intra_pipeline in
 * ompi/mca/coll/base/coll_base_bcast.c, which runs ompi_coll_base_bcast_intra_generic, the
 * segmented bcast of the same file, over a chain of fan-out 1, also the chain bcast's tree
 * with one chain): the ranks form a chain root -> root + 1 -> ... -> root - 1, and each
 * rank forwards segment k to the next as soon as it has received it and has finished sending
 * segment k - 1. With n bytes and a segment of s bytes there are S = ceil(n / s) segments
 * (the last one n - (S - 1) s bytes); s = 0 or s >= n is one segment, the unsegmented
 * chain of bcast-ring. Stage t (t = 0 .. S + p - 3) holds the puts of segment t - i from
 * chain position i to i + 1 for every i with 0 <= t - i < S: each is one block of the
 * S-block vector, so `fennel verify` follows every segment. Under postal (the sender busy
 * until the arrival) every stage lasts alpha + s beta, so the makespan is
 * (S + p - 2)(alpha + s beta) for equal segments. */
#include "blocks.h"
#include "errors.h"
#include "gen_rooted.h"

uint64_t fennel__gen_segments(int64_t n, int64_t s)
{
    if (s <= 0 || s >= n)
        return 1;
    return (uint64_t)(n / s) + (n % s != 0);
}

gboolean fennel__gen_check_segments(const char *name, uint64_t k, GError **error)
{
    if (k <= UINT32_MAX - 1)
        return TRUE;
    g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                "%s needs at most %u segments (--size / --segment), got %" G_GUINT64_FORMAT, name,
                UINT32_MAX - 1, k);
    return FALSE;
}

static uint64_t pipeline_tasks(const FennelGenOptions *o)
{
    uint64_t k = fennel__gen_segments(o->size, o->segment), p = o->ranks;
    return p < 2 || k > UINT64_MAX / (p - 1) ? (p < 2 ? 0 : UINT64_MAX) : k * (p - 1);
}

void fennel__gen_bcast_chain(FennelStages *s, uint32_t p, uint32_t root, int64_t size,
                             int64_t segment, const FennelGenPieces *pieces)
{
    uint64_t k = fennel__gen_segments(size, segment);
    int64_t seg = k == 1 ? size : segment;
    for (uint64_t t = 0; t + 2 < k + p; t++) {
        /* Positions i with 0 <= t - i < k and i + 1 < p. */
        uint64_t first = t >= k ? t - k + 1 : 0;
        for (uint64_t i = first; i <= t && i + 1 < p; i++) {
            uint64_t b = t - i;
            int64_t bytes = b + 1 < k ? seg : size - (int64_t)(k - 1) * seg;
            fennel__gen_put_range(s, fennel_gen_real_rank(i, root, p),
                                  fennel_gen_real_rank(i + 1, root, p), (int64_t)b * seg, bytes,
                                  (uint32_t)b, 1, pieces);
        }
        fennel_stages_close(s, FALSE);
    }
}

static FennelProgram *bcast_pipeline(const FennelGenOptions *o, GError **error)
{
    if (!fennel_gen_check_root("bcast-pipeline", o, error))
        return NULL;
    uint64_t k = fennel__gen_segments(o->size, o->segment);
    if (!fennel__gen_check_segments("bcast-pipeline", k, error))
        return NULL;
    FennelStages *s = fennel_gen_stages(o, o->ranks);
    fennel_builder_set_n_blocks(fennel_stages_builder(s), (uint32_t)k);
    fennel__gen_bcast_chain(s, o->ranks, o->root, o->size, o->segment, NULL);
    return fennel_stages_finish(s, FALSE, error);
}

const FennelGenerator fennel_gen_bcast_pipeline = {
    .name = "bcast-pipeline",
    .summary = "broadcast from --root along a chain, in segments of --segment bytes",
    .options = FENNEL_GEN_RANKS | FENNEL_GEN_SIZE | FENNEL_GEN_ROOT | FENNEL_GEN_SEGMENT,
    .collective = "bcast",
    .streams = TRUE,
    .generate = bcast_pipeline,
    .min_tasks = pipeline_tasks,
};

/* reduce-pipeline: Open MPI's pipeline and chain reduces (ompi_coll_base_reduce_intra_pipeline
 * and _chain in ompi/mca/coll/base/coll_base_reduce.c, v4.1.6, which run
 * ompi_coll_base_reduce_generic over a chain of fan-out 1; the chain's fan-out 0 is forced
 * to 1 by ompi_coll_base_topo_build_chain): bcast-pipeline's chain run backwards. The last
 * rank of the chain root, root + 1, ..., root - 1 sends segment k to the one before it,
 * which reduces it with its own and sends the sum on as soon as it has it and has sent
 * segment k - 1; the root reduces the last. Stage t holds the puts of segment t - j from
 * the rank j places from the chain's end to the one before it, for every j with
 * 0 <= t - j < S; each stage reduces what it brings. Unsegmented (no --segment, or one >=
 * --size) it is p - 1 reducing stages of one put each. */
static FennelProgram *reduce_pipeline(const FennelGenOptions *o, GError **error)
{
    if (!fennel_gen_check_root("reduce-pipeline", o, error))
        return NULL;
    uint32_t p = o->ranks;
    uint64_t k = fennel__gen_segments(o->size, o->segment);
    if (!fennel__gen_check_segments("reduce-pipeline", k, error))
        return NULL;
    int64_t seg = k == 1 ? o->size : o->segment;
    FennelStages *s = fennel_gen_stages(o, p);
    fennel_builder_set_n_blocks(fennel_stages_builder(s), (uint32_t)k);
    for (uint64_t t = 0; t + 2 < k + p; t++) {
        /* Distances j from the chain's end with 0 <= t - j < k and j + 1 < p. */
        uint64_t first = t >= k ? t - k + 1 : 0;
        for (uint64_t j = first; j <= t && j + 1 < p; j++) {
            uint64_t b = t - j;
            int64_t bytes = b + 1 < k ? seg : o->size - (int64_t)(k - 1) * seg;
            fennel_stages_put_blocks(s, fennel_gen_real_rank(p - 1 - j, o->root, p),
                                     fennel_gen_real_rank(p - 2 - j, o->root, p), bytes,
                                     (uint32_t)b, 1);
        }
        fennel_stages_close(s, TRUE);
    }
    return fennel_stages_finish(s, TRUE, error);
}

const FennelGenerator fennel_gen_reduce_pipeline = {
    .name = "reduce-pipeline",
    .summary = "reduce to --root along a chain from rank root-1, in segments of --segment bytes "
               "(Open MPI's pipeline and chain)",
    .options = FENNEL_GEN_RANKS | FENNEL_GEN_SIZE | FENNEL_GEN_ROOT | FENNEL_GEN_SEGMENT,
    .collective = "reduce",
    .streams = TRUE,
    .generate = reduce_pipeline,
    .min_tasks = pipeline_tasks,
};
