/* Tree collectives (Rabenseifner 2004 §3.3; Rüfenacht thesis §5.2.2.1), built stage by
 * stage. Ranks are numbered relative to the root (v = rank - root mod p), so any root
 * works and trees of any rank count simply skip the children that do not exist.
 *
 * - The binomial reduce: in step k = 0, 1, ... a rank v with v mod 2^(k+1) = 2^k sends
 *   its partial result to v - 2^k and drops out; the receiver reduces.
 * - The binomial broadcast is its mirror: steps run from the highest k down, and v with
 *   v mod 2^(k+1) = 0 sends to v + 2^k (the root first reaches the farthest half).
 * - The k-nomial broadcast: at level m = K^j, from the highest down, v with v mod (K m)
 *   = 0 sends to v + i m for i = 1 .. K - 1, back to back, in that order.
 * - The binary broadcast: the heap-shaped tree, v's children are 2v + 1 and 2v + 2; one
 *   stage per depth.
 * - The binomial fan-in/fan-out allreduce: the reduce to rank 0 and the broadcast back.
 *   Every stage of a reduction has a compute on the receivers, the fan-out's too (the
 *   stage rule of schedules/stages.h), which gives the thesis' T = 2 ceil(log2 p)(alpha + n beta +
 * n gamma) (Eq. 5.1). Every message carries the whole --size vector; broadcasts have no compute
 * tasks. */
#include "errors.h"
#include "gen_rooted.h"
#include "stages.h"

gboolean fennel_gen_check_root(const char *name, const FennelGenOptions *o, GError **error)
{
    if (o->root >= o->ranks) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                    "%s needs --root within 0..%u (--ranks %u), got %u", name, o->ranks - 1,
                    o->ranks, o->root);
        return FALSE;
    }
    return TRUE;
}

static inline uint32_t real(uint64_t v, uint32_t root, uint32_t p)
{
    return fennel_gen_real_rank(v, root, p);
}

void fennel__gen_reduce_binomial(FennelStages *s, uint32_t p, uint32_t root, int64_t bytes)
{
    for (uint64_t d = 1; d < p; d *= 2) {
        for (uint64_t v = d; v < p; v += 2 * d)
            fennel_stages_put(s, real(v, root, p), real(v - d, root, p), bytes);
        fennel_stages_close(s, TRUE);
    }
}

/* The highest power of two below p (0 for p = 1). */
static uint64_t top_distance(uint32_t p)
{
    uint64_t d = 1;
    while (2 * d < p)
        d *= 2;
    return p > 1 ? d : 0;
}

static void fennel__gen_bcast_binomial(FennelStages *s, uint32_t p, uint32_t root, int64_t bytes,
                                       gboolean reducing)
{
    for (uint64_t d = top_distance(p); d >= 1; d /= 2) {
        for (uint64_t v = 0; v + d < p; v += 2 * d)
            fennel_stages_put(s, real(v, root, p), real(v + d, root, p), bytes);
        fennel_stages_close(s, reducing);
    }
}

/* A put of bytes off .. off + bytes - 1 of the vector: blocks first .. first + count - 1 of
 * the caller's own numbering, or with `pieces` the pieces that range covers (its ends are
 * cuts of pieces). */
void fennel__gen_put_range(FennelStages *s, uint32_t src, uint32_t dst, int64_t off, int64_t bytes,
                           uint32_t first, uint32_t count, const FennelGenPieces *pieces)
{
    if (pieces) {
        uint32_t lo = 0, hi = pieces->n;
        while (lo < hi) { /* the first cut at or after off */
            uint32_t mid = lo + (hi - lo) / 2;
            if (pieces->cut[mid] < off)
                lo = mid + 1;
            else
                hi = mid;
        }
        first = lo;
        for (count = 0; first + count < pieces->n && pieces->cut[first + count] < off + bytes;)
            count++;
    }
    fennel_stages_put_blocks(s, src, dst, bytes, first, count);
}

/* Open MPI's segmented tree reduces (ompi_coll_base_reduce_generic in coll_base_reduce.c,
 * v3.1.6, which the binomial and binary reduces run with a segment size): the buffer is
 * cut into k segments of --segment bytes (the last one shorter), and a rank sends segment j
 * to its parent once it has segment j of each child and has reduced it with its own, and
 * has sent segment j - 1. With the height h(v) of v's subtree (0 for a leaf, else one more
 * than its highest child's), stage t holds the sends of segment t - h(v) by every rank v
 * but the root; each stage reduces what it brings. `parent` gives v's parent counted from
 * the root (below v in both trees). Segment j is block j for fennel verify (or the pieces
 * it covers). */
static void reduce_tree_stages(FennelStages *s, uint32_t p, uint32_t root, int64_t size,
                               int64_t segment, uint64_t (*parent)(uint64_t v),
                               const FennelGenPieces *pieces)
{
    uint64_t k = fennel__gen_segments(size, segment);
    int64_t seg = k == 1 ? size : segment;
    uint32_t *height = g_new0(uint32_t, p), top = 0;
    for (uint64_t v = p - 1; v >= 1; v--) {
        uint64_t up = parent(v);
        height[up] = MAX(height[up], height[v] + 1);
        top = MAX(top, height[v]);
    }
    for (uint64_t t = 0; p > 1 && t < k + top; t++) {
        for (uint64_t v = 1; v < p; v++) {
            if (t < height[v] || t - height[v] >= k)
                continue;
            uint64_t j = t - height[v];
            int64_t bytes = j + 1 < k ? seg : size - (int64_t)(k - 1) * seg;
            fennel__gen_put_range(s, real(v, root, p), real(parent(v), root, p), (int64_t)j * seg,
                                  bytes, (uint32_t)j, 1, pieces);
        }
        fennel_stages_close(s, TRUE);
    }
    g_free(height);
}

static FennelProgram *reduce_tree_segmented(const char *name, const FennelGenOptions *o,
                                            uint64_t (*parent)(uint64_t v), GError **error)
{
    uint64_t k = fennel__gen_segments(o->size, o->segment);
    if (!fennel__gen_check_segments(name, k, error))
        return NULL;
    FennelStages *s = fennel_gen_stages(o, o->ranks);
    fennel_builder_set_n_blocks(fennel_stages_builder(s), (uint32_t)k);
    reduce_tree_stages(s, o->ranks, o->root, o->size, o->segment, parent, NULL);
    return fennel_stages_finish(s, TRUE, error);
}

/* The binomial tree's parent: v with its lowest set bit cleared. */
static uint64_t binomial_parent(uint64_t v)
{
    return v & (v - 1);
}

void fennel__gen_reduce_binomial_segmented(FennelStages *s, uint32_t p, uint32_t root, int64_t size,
                                           int64_t segment, const FennelGenPieces *pieces)
{
    reduce_tree_stages(s, p, root, size, segment, binomial_parent, pieces);
}

static FennelProgram *reduce_binomial(const FennelGenOptions *o, GError **error)
{
    if (!fennel_gen_check_root("reduce-binomial", o, error))
        return NULL;
    if (fennel__gen_segments(o->size, o->segment) > 1)
        return reduce_tree_segmented("reduce-binomial", o, binomial_parent, error);
    FennelStages *s = fennel_gen_stages(o, o->ranks);
    fennel__gen_reduce_binomial(s, o->ranks, o->root, o->size);
    return fennel_stages_finish(s, TRUE, error);
}

const FennelGenerator fennel_gen_reduce_binomial = {
    .name = "reduce-binomial",
    .summary = "reduce to --root along a binomial tree, in segments of --segment bytes",
    .options = FENNEL_GEN_RANKS | FENNEL_GEN_SIZE | FENNEL_GEN_ROOT | FENNEL_GEN_SEGMENT,
    .collective = "reduce",
    .generate = reduce_binomial,
};

static FennelProgram *allreduce_tree(const FennelGenOptions *o, GError **error)
{
    FennelStages *s = fennel_gen_stages(o, o->ranks);
    fennel__gen_reduce_binomial(s, o->ranks, 0, o->size);
    fennel__gen_bcast_binomial(s, o->ranks, 0, o->size, TRUE);
    return fennel_stages_finish(s, TRUE, error);
}

const FennelGenerator fennel_gen_allreduce_tree = {
    .name = "allreduce-tree",
    .summary = "binomial fan-in to rank 0, then fan-out back (2 ceil(log2 p) stages)",
    .options = FENNEL_GEN_RANKS | FENNEL_GEN_SIZE,
    .collective = "allreduce",
    .generate = allreduce_tree,
};

static FennelProgram *bcast_binomial(const FennelGenOptions *o, GError **error)
{
    if (!fennel_gen_check_root("bcast-binomial", o, error))
        return NULL;
    FennelStages *s = fennel_gen_stages(o, o->ranks);
    fennel__gen_bcast_binomial(s, o->ranks, o->root, o->size, FALSE);
    return fennel_stages_finish(s, FALSE, error);
}

const FennelGenerator fennel_gen_bcast_binomial = {
    .name = "bcast-binomial",
    .summary = "broadcast from --root along a binomial tree, farthest half first",
    .options = FENNEL_GEN_RANKS | FENNEL_GEN_SIZE | FENNEL_GEN_ROOT,
    .collective = "bcast",
    .generate = bcast_binomial,
};

void fennel__gen_bcast_knomial(FennelStages *s, uint32_t p, uint32_t root, uint32_t radix,
                               int64_t bytes)
{
    uint64_t k = radix, m = 1;
    while (m * k < p)
        m *= k;
    for (; p > 1 && m >= 1; m /= k) {
        for (uint64_t v = 0; v < p; v += k * m) {
            for (uint64_t i = 1; i < k && v + i * m < p; i++)
                fennel_stages_put(s, real(v, root, p), real(v + i * m, root, p), bytes);
        }
        fennel_stages_close(s, FALSE);
    }
}

/* Open MPI's binomial tree (ompi_coll_base_topo_build_bmtree in coll_base_topo.c, v4.1.6):
 * counted from the root, v's parent is v with its highest bit cleared and its children are
 * v + m for the powers of two m above v's highest bit (m > v), nearest first. A rank sends to
 * all its children back to back once it has the data, so stage t holds the puts of the ranks
 * with t - 1 bits set. It is the binomial tree of bcast-binomial numbered the other way:
 * the root's first child, rank 1, heads the odd ranks (half of them), as bcast-binomial's
 * first child p/2 heads the upper half. */
void fennel__gen_bcast_bmtree(FennelStages *s, uint32_t p, uint32_t root, int64_t bytes)
{
    for (int bits = 0; bits < 32; bits++) {
        gboolean any = FALSE;
        for (uint64_t v = 0; v < p; v++) {
            if (__builtin_popcountll(v) != bits)
                continue;
            uint64_t m = 1;
            while (m <= v)
                m *= 2;
            for (; v + m < p; m *= 2) {
                fennel_stages_put(s, real(v, root, p), real(v + m, root, p), bytes);
                any = TRUE;
            }
        }
        if (!any)
            break;
        fennel_stages_close(s, FALSE);
    }
}

static FennelProgram *bcast_bmtree(const FennelGenOptions *o, GError **error)
{
    if (!fennel_gen_check_root("bcast-bmtree", o, error))
        return NULL;
    FennelStages *s = fennel_gen_stages(o, o->ranks);
    fennel__gen_bcast_bmtree(s, o->ranks, o->root, o->size);
    return fennel_stages_finish(s, FALSE, error);
}

const FennelGenerator fennel_gen_bcast_bmtree = {
    .name = "bcast-bmtree",
    .summary = "broadcast from --root along Open MPI's binomial tree: children v + 2^k above "
               "v's highest bit, nearest first",
    .options = FENNEL_GEN_RANKS | FENNEL_GEN_SIZE | FENNEL_GEN_ROOT,
    .collective = "bcast",
    .generate = bcast_bmtree,
};

static FennelProgram *bcast_knomial(const FennelGenOptions *o, GError **error)
{
    if (!fennel_gen_check_root("bcast-knomial", o, error))
        return NULL;
    FennelStages *s = fennel_gen_stages(o, o->ranks);
    fennel__gen_bcast_knomial(s, o->ranks, o->root, o->radix, o->size);
    return fennel_stages_finish(s, FALSE, error);
}

const FennelGenerator fennel_gen_bcast_knomial = {
    .name = "bcast-knomial",
    .summary = "broadcast from --root along a k-nomial tree of --radix K",
    .options = FENNEL_GEN_RANKS | FENNEL_GEN_SIZE | FENNEL_GEN_ROOT | FENNEL_GEN_RADIX,
    .collective = "bcast",
    .generate = bcast_knomial,
};

void fennel__gen_bcast_binary(FennelStages *s, uint32_t p, uint32_t root, int64_t bytes)
{
    /* Depth d holds the relative ranks 2^d - 1 .. 2^(d+1) - 2. */
    for (uint64_t first = 0; 2 * first + 1 < p; first = 2 * first + 1) {
        for (uint64_t v = first; v <= 2 * first && 2 * v + 1 < p; v++) {
            for (uint64_t c = 2 * v + 1; c <= 2 * v + 2 && c < p; c++)
                fennel_stages_put(s, real(v, root, p), real(c, root, p), bytes);
        }
        fennel_stages_close(s, FALSE);
    }
}

static FennelProgram *bcast_binary(const FennelGenOptions *o, GError **error)
{
    if (!fennel_gen_check_root("bcast-binary", o, error))
        return NULL;
    FennelStages *s = fennel_gen_stages(o, o->ranks);
    fennel__gen_bcast_binary(s, o->ranks, o->root, o->size);
    return fennel_stages_finish(s, FALSE, error);
}

const FennelGenerator fennel_gen_bcast_binary = {
    .name = "bcast-binary",
    .summary = "broadcast from --root along a binary tree (children 2v+1, 2v+2)",
    .options = FENNEL_GEN_RANKS | FENNEL_GEN_SIZE | FENNEL_GEN_ROOT,
    .collective = "bcast",
    .generate = bcast_binary,
};

/* bcast-split-bintree: Open MPI's split binary tree broadcast
 * (ompi_coll_base_bcast_intra_split_bintree, coll_base_bcast.c v3.1.6 and v4.1.6). The
 * buffer is cut into halves of ceil(n/2) and floor(n/2) bytes; on Open MPI's binary tree
 * (ompi_coll_base_topo_build_tree with fan-out 2, reduce-bintree's: counted from the root,
 * level L holds v = 2^L - 1 .. 2^(L+1) - 2, children v + 2^L and v + 2^(L+1)) the root sends
 * the first half to child 1 and the second to child 2, and each rank forwards its half to
 * its children: the odd ranks (the left subtree) get the first half, the even ones the
 * second. With --segment s each half goes in segments of s bytes (the last one shorter),
 * one after the other: the root sends segment j of the first half to child 1, then segment
 * j of the second to child 2, then segment j + 1; a rank forwards segment j to its children
 * (in order) once it has it and its sends of segment j - 1 are done. Stage t holds the
 * sends of segment t - L by every rank of level L. Unsegmented (no --segment, or one that
 * holds a half) each half is one segment: one stage per level. Then one stage exchanges
 * the halves, whole: odd v and v + 1 swap theirs (a sendrecv); on an even number of ranks
 * the last, p - 1, has no pair and gets the second half from the root. With an empty half
 * (n < 2) or a segment larger than a half Open MPI runs its chain instead, with the same
 * segments: bcast-pipeline's. For fennel verify the blocks are the first half's segments,
 * then the second's. */
/* Whether Open MPI runs its chain instead: an empty half, or a segment larger than a half. */
static gboolean split_bintree_chain(int64_t size, int64_t segment)
{
    return size / 2 == 0 || segment > size / 2;
}

void fennel__gen_bcast_split_bintree(FennelStages *s, uint32_t p, uint32_t root, int64_t size,
                                     int64_t segment, const FennelGenPieces *pieces)
{
    int64_t half[2] = {size - size / 2, size / 2};
    if (split_bintree_chain(size, segment)) {
        fennel__gen_bcast_chain(s, p, root, size, segment, pieces);
        return;
    }
    uint64_t k[2], depth = 0;
    int64_t seg[2];
    for (int h = 0; h < 2; h++) {
        k[h] = fennel__gen_segments(half[h], segment);
        seg[h] = k[h] == 1 ? half[h] : segment;
    }
    uint32_t first_of_second = (uint32_t)k[0];
    while ((UINT64_C(2) << depth) - 1 < p) /* levels 0 .. depth */
        depth++;
    for (uint64_t t = 0; t < k[0] + depth; t++) {
        for (uint64_t level = t >= k[0] ? t - k[0] + 1 : 0; level <= t && level < depth; level++) {
            uint64_t j = t - level, step = UINT64_C(1) << level, first = step - 1;
            for (uint64_t v = first; v < first + step && v < p; v++) {
                for (uint64_t c = v + step; c <= v + 2 * step && c < p; c += step) {
                    /* The root's children take the half of their own side, as every rank. */
                    uint32_t h = c % 2 == 1 ? 0 : 1;
                    if (j >= k[h])
                        continue;
                    int64_t bytes = j + 1 < k[h] ? seg[h] : half[h] - (int64_t)(k[h] - 1) * seg[h];
                    uint32_t block = (uint32_t)j + (h ? first_of_second : 0);
                    fennel__gen_put_range(s, real(v, root, p), real(c, root, p),
                                          (h ? half[0] : 0) + (int64_t)j * seg[h], bytes, block, 1,
                                          pieces);
                }
            }
        }
        fennel_stages_close(s, FALSE);
    }
    for (uint64_t v = 1; v + 1 < p; v += 2) {
        fennel__gen_put_range(s, real(v, root, p), real(v + 1, root, p), 0, half[0], 0,
                              (uint32_t)k[0], pieces);
        fennel__gen_put_range(s, real(v + 1, root, p), real(v, root, p), half[0], half[1],
                              first_of_second, (uint32_t)k[1], pieces);
    }
    if (p % 2 == 0)
        fennel__gen_put_range(s, root, real(p - 1, root, p), half[0], half[1], first_of_second,
                              (uint32_t)k[1], pieces);
    fennel_stages_close(s, FALSE);
}

static FennelProgram *bcast_split_bintree(const FennelGenOptions *o, GError **error)
{
    if (!fennel_gen_check_root("bcast-split-bintree", o, error))
        return NULL;
    int64_t half = o->size / 2;
    /* The segment count of either half fits 32 bits whenever the whole buffer's does. */
    uint64_t blocks = split_bintree_chain(o->size, o->segment)
                          ? fennel__gen_segments(o->size, o->segment)
                          : fennel__gen_segments(o->size - half, o->segment) +
                                fennel__gen_segments(half, o->segment);
    if (!fennel__gen_check_segments("bcast-split-bintree", blocks, error))
        return NULL;
    FennelStages *s = fennel_gen_stages(o, o->ranks);
    fennel_builder_set_n_blocks(fennel_stages_builder(s), (uint32_t)blocks);
    fennel__gen_bcast_split_bintree(s, o->ranks, o->root, o->size, o->segment, NULL);
    return fennel_stages_finish(s, FALSE, error);
}

/* Every rank but the root receives each segment of its half, and the shorter half has at
 * least (k - 1) / 2 of the k segments the whole buffer would be cut into. */
static uint64_t split_bintree_tasks(const FennelGenOptions *o)
{
    uint64_t k = (fennel__gen_segments(o->size, o->segment) - 1) / 2, p = o->ranks;
    return p < 2 || (k > 0 && k > UINT64_MAX / (p - 1)) ? (p < 2 ? 0 : UINT64_MAX) : k * (p - 1);
}

const FennelGenerator fennel_gen_bcast_split_bintree = {
    .name = "bcast-split-bintree",
    .summary = "broadcast from --root: each half down one subtree of Open MPI's binary tree, "
               "in segments of --segment bytes, then exchanged between pairs (Open MPI's "
               "split_binary_tree)",
    .options = FENNEL_GEN_RANKS | FENNEL_GEN_SIZE | FENNEL_GEN_ROOT | FENNEL_GEN_SEGMENT,
    .collective = "bcast",
    .streams = TRUE,
    .generate = bcast_split_bintree,
    .min_tasks = split_bintree_tasks,
};

/* reduce-bintree: Open MPI's binary tree (ompi_coll_base_topo_build_tree with fan-out 2,
 * coll_base_topo.c), the tree of its `binary` reduce. Counted from the root, level L holds
 * v = 2^L - 1 .. 2^(L+1) - 2, and v's children are v + 2^L and v + 2^(L+1) when below p;
 * so v's parent is v - 2^(L-1), or v - 2^L when that is still on level L. (The heap of
 * bcast-binary has the same levels but other children when the last level is not full:
 * at 5 ranks Open MPI's 1 and 2 have one child each, the heap's 1 has two.) One reducing
 * stage per level, the deepest first: every rank of the level sends its partial result to
 * its parent, which reduces what its children sent. With --segment, the segmented tree
 * reduce above. */
static uint64_t bintree_parent(uint64_t v)
{
    uint64_t first = 1; /* 2^L for v on level L, 2^L - 1 <= v < 2^(L+1) - 1 */
    while (2 * first - 1 <= v)
        first *= 2;
    uint64_t half = first / 2, parent = v - half;
    return parent >= first - 1 ? v - 2 * half : parent;
}

static FennelProgram *reduce_bintree(const FennelGenOptions *o, GError **error)
{
    if (!fennel_gen_check_root("reduce-bintree", o, error))
        return NULL;
    if (fennel__gen_segments(o->size, o->segment) > 1)
        return reduce_tree_segmented("reduce-bintree", o, bintree_parent, error);
    FennelStages *s = fennel_gen_stages(o, o->ranks);
    fennel__gen_reduce_bintree(s, o->ranks, o->root, o->size);
    return fennel_stages_finish(s, TRUE, error);
}

void fennel__gen_reduce_bintree(FennelStages *s, uint32_t p, uint32_t root, int64_t bytes)
{
    uint64_t top = 0; /* the first rank of the deepest level */
    while (2 * top + 1 < p)
        top = 2 * top + 1;
    for (uint64_t first = top; first >= 1; first = (first - 1) / 2) {
        uint64_t half = (first + 1) / 2; /* 2^(L-1) */
        for (uint64_t v = first; v <= 2 * first && v < p; v++) {
            uint64_t parent = v - half;
            if (parent >= first)
                parent = v - 2 * half;
            fennel_stages_put(s, real(v, root, p), real(parent, root, p), bytes);
        }
        fennel_stages_close(s, TRUE);
    }
}

const FennelGenerator fennel_gen_reduce_bintree = {
    .name = "reduce-bintree",
    .summary = "reduce to --root along Open MPI's binary tree (level L: children v + 2^L, "
               "v + 2^(L+1)), the deepest level first, in segments of --segment bytes",
    .options = FENNEL_GEN_RANKS | FENNEL_GEN_SIZE | FENNEL_GEN_ROOT | FENNEL_GEN_SEGMENT,
    .collective = "reduce",
    .generate = reduce_bintree,
};

/* Open MPI's in-order binary tree (ompi_coll_base_topo_build_in_order_bintree,
 * coll_base_topo.c v4.1.6) over the real ranks lo .. lo + n - 1: its root is the last of
 * them; with n >= 3 its children are the roots of the left subtree, lo + n/2 .. lo + n - 2,
 * and of the right one, lo .. lo + n/2 - 1 (n/2 rounded down); with n = 2 the one child is
 * lo. Records each rank's parent and returns the subtree's height (a leaf's is 0), the
 * stage in which its root sends. */
static uint32_t inorder_tree(uint32_t lo, uint32_t n, uint32_t *parent, uint32_t *height)
{
    uint32_t top = lo + n - 1, h = 0;
    if (n == 2) {
        parent[lo] = top;
        h = inorder_tree(lo, 1, parent, height) + 1;
    } else if (n >= 3) {
        uint32_t right = n / 2, left = n - right - 1;
        parent[lo + right + left - 1] = top;
        parent[lo + right - 1] = top;
        uint32_t hl = inorder_tree(lo + right, left, parent, height);
        uint32_t hr = inorder_tree(lo, right, parent, height);
        h = MAX(hl, hr) + 1;
    }
    height[top] = h;
    return h;
}

/* Open MPI's in-order_binary reduce (ompi_coll_base_reduce_intra_in_order_binary,
 * coll_base_reduce.c v4.1.6), unsegmented: the generic reduce over the in-order binary tree,
 * whose root is rank p - 1, then, when the root is another rank, rank p - 1 sends it the
 * result. A rank sends its partial result to its parent in the stage of its subtree's
 * height (leaves first), after its children, whose subtrees are lower; the parent reduces
 * what each stage brings. The last send moves the result and reduces nothing. */
void fennel__gen_reduce_inorder_binary(FennelStages *s, uint32_t p, uint32_t root, int64_t bytes)
{
    uint32_t *parent = g_new(uint32_t, p), *height = g_new(uint32_t, p);
    uint32_t levels = inorder_tree(0, p, parent, height);
    for (uint32_t h = 0; h < levels; h++) {
        for (uint32_t r = 0; r + 1 < p; r++)
            if (height[r] == h)
                fennel_stages_put(s, r, parent[r], bytes);
        fennel_stages_close(s, TRUE);
    }
    if (root != p - 1) {
        fennel_stages_put(s, p - 1, root, bytes);
        fennel_stages_close(s, FALSE);
    }
    g_free(parent);
    g_free(height);
}

static FennelProgram *reduce_inorder_binary(const FennelGenOptions *o, GError **error)
{
    if (!fennel_gen_check_root("reduce-inorder-binary", o, error))
        return NULL;
    FennelStages *s = fennel_gen_stages(o, o->ranks);
    fennel__gen_reduce_inorder_binary(s, o->ranks, o->root, o->size);
    return fennel_stages_finish(s, FALSE, error);
}

const FennelGenerator fennel_gen_reduce_inorder_binary = {
    .name = "reduce-inorder-binary",
    .summary = "reduce along Open MPI's in-order binary tree rooted at rank p-1, which sends the "
               "result to --root (Open MPI's in-order_binary)",
    .options = FENNEL_GEN_RANKS | FENNEL_GEN_SIZE | FENNEL_GEN_ROOT,
    .collective = "reduce",
    .generate = reduce_inorder_binary,
};
