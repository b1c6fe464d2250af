/* allreduce-nonoverlapping: Open MPI's "nonoverlapping" allreduce
 * (ompi_coll_base_allreduce_intra_nonoverlapping in ompi/mca/coll/base/coll_base_allreduce.c,
 * read at v4.1.6; docs/LIBRARIES.md): the communicator's reduce to rank 0, then its bcast from
 * rank 0, one after the other. Open MPI calls whatever reduce and bcast the communicator
 * runs (coll/tuned's own decisions), so --variant REDUCE:BCAST names them:
 *
 *   REDUCE  binomial (reduce-binomial's tree), inorder-binary (reduce-inorder-binary's
 *           tree, rooted at rank p - 1, which then sends the result to rank 0) or linear
 *           (reduce-linear's order)
 *   BCAST   binomial (Open MPI's numbering, as bcast-bmtree), knomial (radix --radix),
 *           binary, linear, split-bintree or pipeline (as bcast-knomial, bcast-binary,
 *           bcast-linear, bcast-split-bintree and bcast-pipeline)
 *
 * The default is binomial:binomial. The bcast's stages have no compute (it moves the
 * result, it does not reduce).
 *
 * --segment S cuts the buffer into segments of S bytes for both parts, as Open MPI 3.1's
 * decisions do where they run nonoverlapping (docs/LIBRARIES.md, Open MPI 3.1): the binomial
 * reduce as reduce-binomial --segment, the split-bintree and pipeline bcasts as theirs; the
 * bcast starts once the reduce has ended (Open MPI calls one after the other). The other
 * parts have no segments in fennel, so a --segment that cuts the buffer needs REDUCE
 * binomial and BCAST split-bintree or pipeline. For fennel verify the vector is cut at
 * every segment boundary of either part: the reduce's segment j ends at (j + 1) S, the
 * split tree's halves at their own. */
#include "errors.h"
#include "gen_rooted.h"

#include <stdlib.h>
#include <string.h>

static gboolean one_of(const char *word, const char *const *names)
{
    for (; word && *names; names++)
        if (strcmp(word, *names) == 0)
            return TRUE;
    return FALSE;
}

static int compare_cuts(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static void add_cuts(int64_t *cut, uint64_t *m, int64_t from, int64_t to, int64_t segment)
{
    int64_t seg = fennel__gen_segments(to - from, segment) > 1 ? segment : to - from;
    for (int64_t at = from; at < to; at += seg)
        cut[(*m)++] = at;
}

/* Every segment boundary of the reduce and of the bcast (the split tree's halves, or the
 * chain's segments), sorted and unique: *n pieces. */
static int64_t *segment_cuts(int64_t size, int64_t segment, gboolean split, uint32_t *n)
{
    int64_t half0 = size - size / 2;
    gboolean chain = !split || size / 2 == 0 || segment > size / 2;
    uint64_t room = 2 * fennel__gen_segments(size, segment) + 4, m = 0;
    int64_t *cut = g_new(int64_t, room);
    add_cuts(cut, &m, 0, size, segment); /* the reduce's segments, and the chain's */
    if (!chain) {
        add_cuts(cut, &m, 0, half0, segment);
        add_cuts(cut, &m, half0, size, segment);
    }
    cut[m++] = size;
    qsort(cut, m, sizeof *cut, compare_cuts);
    uint64_t u = 1;
    for (uint64_t i = 1; i < m; i++)
        if (cut[i] != cut[u - 1])
            cut[u++] = cut[i];
    *n = u > 1 ? (uint32_t)(u - 1) : 1; /* an empty vector: one piece of 0 bytes */
    if (u == 1)
        cut[1] = size;
    return cut;
}

static FennelProgram *allreduce_nonoverlapping(const FennelGenOptions *o, GError **error)
{
    static const char *const reduces[] = {"binomial", "inorder-binary", "linear", NULL};
    static const char *const bcasts[] = {"binomial",      "knomial",  "binary", "linear",
                                         "split-bintree", "pipeline", NULL};
    const char *variant = o->variant ? o->variant : "binomial:binomial";
    const char *colon = strchr(variant, ':');
    char *reduce = colon ? g_strndup(variant, (gsize)(colon - variant)) : NULL;
    const char *bcast = colon ? colon + 1 : NULL;
    if (!one_of(reduce, reduces) || !one_of(bcast, bcasts)) {
        g_free(reduce);
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE,
                    "allreduce-nonoverlapping: --variant %s: expected REDUCE:BCAST with REDUCE "
                    "binomial, inorder-binary or linear and BCAST binomial, knomial, binary, "
                    "linear, split-bintree or pipeline",
                    variant);
        return NULL;
    }
    uint32_t p = o->ranks;
    uint64_t k = fennel__gen_segments(o->size, o->segment);
    gboolean split = strcmp(bcast, "split-bintree") == 0, chain = strcmp(bcast, "pipeline") == 0;
    if (k > 1 && (strcmp(reduce, "binomial") != 0 || !(split || chain))) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE,
                    "allreduce-nonoverlapping: --segment %" G_GINT64_FORMAT
                    " cuts the buffer, which only REDUCE binomial and BCAST split-bintree or "
                    "pipeline take, not --variant %s",
                    o->segment, variant);
        g_free(reduce);
        return NULL;
    }
    /* The bcast's pieces are at most its segments plus one per half: twice the whole
     * buffer's, and the reduce's are the whole buffer's. */
    if (!fennel__gen_check_segments("allreduce-nonoverlapping", 3 * k, error)) {
        g_free(reduce);
        return NULL;
    }
    FennelStages *s = fennel_gen_stages(o, p);
    FennelGenPieces pieces = {NULL, 0};
    int64_t *cut = NULL;
    /* The split tree and the chain mark their puts with blocks, segmented or not. */
    if (k > 1 || split || chain) {
        pieces.cut = cut = segment_cuts(o->size, o->segment, split, &pieces.n);
        fennel_builder_set_n_blocks(fennel_stages_builder(s), pieces.n);
    }
    if (strcmp(reduce, "binomial") == 0 && k > 1)
        fennel__gen_reduce_binomial_segmented(s, p, 0, o->size, o->segment, &pieces);
    else if (strcmp(reduce, "binomial") == 0)
        fennel__gen_reduce_binomial(s, p, 0, o->size);
    else if (strcmp(reduce, "inorder-binary") == 0)
        fennel__gen_reduce_inorder_binary(s, p, 0, o->size);
    else
        fennel__gen_reduce_linear(s, p, 0, o->size);
    const FennelGenPieces *cuts = cut ? &pieces : NULL;
    if (strcmp(bcast, "binomial") == 0)
        fennel__gen_bcast_bmtree(s, p, 0, o->size);
    else if (strcmp(bcast, "knomial") == 0)
        fennel__gen_bcast_knomial(s, p, 0, o->radix, o->size);
    else if (strcmp(bcast, "binary") == 0)
        fennel__gen_bcast_binary(s, p, 0, o->size);
    else if (split)
        fennel__gen_bcast_split_bintree(s, p, 0, o->size, o->segment, cuts);
    else if (chain)
        fennel__gen_bcast_chain(s, p, 0, o->size, o->segment, cuts);
    else
        fennel__gen_bcast_linear(s, p, 0, o->size);
    g_free(reduce);
    FennelProgram *program = fennel_stages_finish(s, FALSE, error);
    g_free(cut);
    return program;
}

const FennelGenerator fennel_gen_allreduce_nonoverlapping = {
    .name = "allreduce-nonoverlapping",
    .summary = "reduce to rank 0, then bcast from it; --variant REDUCE:BCAST "
               "(binomial|inorder-binary|linear : "
               "binomial|knomial|binary|linear|split-bintree|pipeline, default "
               "binomial:binomial; knomial takes --radix; --segment cuts a binomial reduce "
               "and a split-bintree or pipeline bcast) (Open MPI's nonoverlapping)",
    .options = FENNEL_GEN_RANKS | FENNEL_GEN_SIZE | FENNEL_GEN_RADIX | FENNEL_GEN_VARIANT |
               FENNEL_GEN_SEGMENT,
    .collective = "allreduce",
    .generate = allreduce_nonoverlapping,
};

/* reduce-scatter-nonoverlapping: Open MPI's "nonoverlapping" reduce_scatter
 * (ompi_coll_tuned_reduce_scatter_intra_nonoverlapping in coll_tuned_reduce_scatter.c
 * v1.6.5, ompi_coll_base_reduce_scatter_intra_nonoverlapping in coll_base_reduce_scatter.c
 * v3.1.6 and v4.1.6; docs/LIBRARIES.md): the communicator's reduce of the whole buffer to
 * rank 0, then its scatterv from rank 0. Open MPI 1.6 runs it when some rank's receive
 * count is 0, and 4.1's and 5.0's tables at some small sizes. --variant REDUCE names the
 * reduce: binomial, inorder-binary or linear as allreduce-nonoverlapping's, or binary
 * (reduce-bintree's tree); default binomial; unsegmented. The scatterv is
 * coll/basic's (coll/tuned has none: coll_tuned_module.c v1.6.5 line 113): the root sends
 * each other rank its part in rank order, one blocking send after the other, and nothing to
 * a rank whose part is empty (coll_basic_scatterv.c v1.6.5).
 *
 * The parts: the buffer as 4-byte elements (the MPI_FLOAT that IMB Reduce_scatter and
 * osu_reduce_scatter reduce, and that the libraries' decisions count), split as evenly as
 * they go with the first ranks one element more (IMB_get_rank_portion, src_c/IMB_init.c:
 * ceil(size / 4) elements, the last part cut at --size; osu_reduce_scatter's recvcounts are
 * the same split). So a --size below 4 x ranks leaves
 * the last ranks empty parts, which is when Open MPI 1.6 takes this algorithm. For `fennel
 * verify` part i is block i, which rank i holds at the end; a rank with an empty part gets
 * no message (as in Open MPI), so verify, which wants every rank's block, holds only at a
 * --size that gives every rank an element (4 x ranks or more). */
#define NONOVERLAPPING_ELEMENT 4

/* Rank i's part in bytes: IMB_get_rank_portion's split in 4-byte units, cut at size. */
static int64_t part_bytes(int64_t size, uint32_t p, uint32_t i)
{
    const int64_t unit = NONOVERLAPPING_ELEMENT;
    int64_t ne = (size + unit - 1) / unit, bas = ne / p, mod = ne % p;
    int64_t units = bas + ((int64_t)i < mod), first = (int64_t)i * bas + MIN((int64_t)i, mod);
    int64_t from = first * unit, to = MIN((first + units) * unit, size);
    return to > from ? to - from : 0;
}

static FennelProgram *reduce_scatter_nonoverlapping(const FennelGenOptions *o, GError **error)
{
    static const char *const reduces[] = {"binomial", "inorder-binary", "binary", "linear", NULL};
    const char *reduce = o->variant ? o->variant : "binomial";
    if (!one_of(reduce, reduces)) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE,
                    "reduce-scatter-nonoverlapping: --variant %s: expected REDUCE binomial, "
                    "inorder-binary, binary or linear",
                    reduce);
        return NULL;
    }
    uint32_t p = o->ranks;
    FennelStages *s = fennel_gen_stages(o, p);
    fennel_builder_set_n_blocks(fennel_stages_builder(s), p);
    if (strcmp(reduce, "binomial") == 0)
        fennel__gen_reduce_binomial(s, p, 0, o->size);
    else if (strcmp(reduce, "inorder-binary") == 0)
        fennel__gen_reduce_inorder_binary(s, p, 0, o->size);
    else if (strcmp(reduce, "binary") == 0)
        fennel__gen_reduce_bintree(s, p, 0, o->size);
    else
        fennel__gen_reduce_linear(s, p, 0, o->size);
    for (uint32_t i = 1; i < p; i++) {
        int64_t bytes = part_bytes(o->size, p, i);
        if (bytes > 0)
            fennel_stages_put_blocks(s, 0, i, bytes, i, 1);
    }
    return fennel_stages_finish(s, FALSE, error);
}

const FennelGenerator fennel_gen_reduce_scatter_nonoverlapping = {
    .name = "reduce-scatter-nonoverlapping",
    .summary = "reduce --size bytes to rank 0, then rank 0 sends each rank its part (4-byte "
               "elements split as IMB does, none to an empty part) in rank order; --variant "
               "REDUCE (binomial|inorder-binary|binary|linear, default binomial) (Open MPI's "
               "nonoverlapping)",
    .options = FENNEL_GEN_RANKS | FENNEL_GEN_SIZE | FENNEL_GEN_VARIANT,
    .collective = "reduce-scatter",
    .generate = reduce_scatter_nonoverlapping,
};
