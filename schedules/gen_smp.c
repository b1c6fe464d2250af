/* SMP-aware (hierarchical) collectives, as MPI libraries run them when ranks share nodes:
 * MPICH's MPIR_Allreduce_intra_smp, MPIR_Bcast_intra_smp and MPIR_Reduce_intra_smp
 * (src/mpi/coll/allreduce/allreduce_intra_smp.c and the like), and the structure of Open MPI
 * 5's coll/han allreduce (intra-node reduce, allreduce among the node leaders, intra-node
 * bcast), and with --segment HAN's pipelining of segments (han_pipeline below;
 * docs/COLLECTIVES.md, Ranks that share a node).
 *
 * With P ranks per node (--ppn), node j holds ranks j P .. min((j + 1) P, p) - 1 and its
 * leader is j P, its first rank; when P does not divide p the last node holds the p mod P
 * remaining ranks (a smaller node, nothing refused). Within a node the trees are binomial
 * over the node's local ranks; among the N = ceil(p / P) leaders:
 *
 * - allreduce-smp: binomial reduce to each leader; recursive doubling among the leaders
 *   (MPICH's: with N not a power of two, N' = 2^floor(lg N) and r = N - N', leader i < 2r
 *   of even index first sends its vector to i + 1 and drops out, and gets the result from it
 *   at the end); binomial bcast from each leader.
 * - bcast-smp (--root): a root that is not its node's leader first sends to its leader;
 *   binomial bcast among the leaders from the root's leader; binomial bcast in each node from
 *   its leader (the root's node included, as MPICH does).
 * - reduce-smp (--root): binomial reduce to each leader; binomial reduce among the leaders
 *   to the root's leader; the leader sends the result to the root when it is another rank.
 * - allgather-smp (Open MPI 5 coll/han's allgather: coll_han_allgather.c, gather in each
 *   node, allgather among the leaders, bcast in each node): binomial gather of the node's
 *   blocks to each leader (the in-order tree of gather-binomial); a ring among the leaders,
 *   step k sending leader i's copy of node i - k's blocks to leader i + 1; binomial bcast
 *   of all p blocks from each leader. --size is one rank's block, as for every allgather
 *   generator, and every put names the blocks it carries, so `fennel verify` follows them.
 *
 * --variant picks what runs among the leaders, as MPICH does by the leaders' count and the
 * message (docs/LIBRARIES.md, MPICH 4): allreduce-smp `rd` (the default) or `rabenseifner`
 * (allreduce-rabenseifner's stages on the leaders); bcast-smp `binomial` (the default),
 * `scatter-allgather` or `scatter-rd-allgather` (a power-of-two node count); reduce-smp
 * `binomial` (the default), `rabenseifner`, or `root-last`: MPICH's own order
 * (MPIR_Reduce_intra_smp in 3.3, composition beta in 4), the other nodes reduce to their
 * leaders, the leaders reduce binomially to the root's leader, and only then the root's node
 * reduces to the root, its leader bringing the other nodes' result.
 *
 * Except in allgather-smp, every message carries the whole --size vector; reduction stages give
 * their receivers a compute of the bytes received (schedules/stages.h), broadcast stages none. With
 * --ppn 1 every rank is a leader and the generators are their flat algorithms. */
#include "errors.h"
#include "gen_parts.h"
#include "gen_rooted.h"
#include "stages.h"

#include <string.h>

typedef struct {
    uint32_t p, ppn, nodes;
} Layout;

static Layout layout_of(const FennelGenOptions *o)
{
    Layout l = {o->ranks, MAX(o->ppn, 1u), 0};
    l.nodes = (uint32_t)(((uint64_t)l.p + l.ppn - 1) / l.ppn);
    return l;
}

/* The ranks of node j. */
static uint32_t node_size(const Layout *l, uint32_t j)
{
    return MIN(l->ppn, l->p - j * l->ppn);
}

/* Binomial reduce inside every node but `skip` (FENNEL_NO_RANK: none) to its leader (local
 * rank 0), all nodes at once. */
static void intra_reduce(FennelStages *s, const Layout *l, int64_t bytes, uint32_t skip)
{
    for (uint64_t d = 1; d < l->ppn; d *= 2) {
        for (uint32_t j = 0; j < l->nodes; j++) {
            uint32_t base = j * l->ppn, m = node_size(l, j);
            for (uint64_t v = d; v < m && j != skip; v += 2 * d)
                fennel_stages_put(s, base + (uint32_t)v, base + (uint32_t)(v - d), bytes);
        }
        fennel_stages_close(s, TRUE);
    }
}

/* Binomial reduce inside node j to its rank `root`, local ranks counted from the root's. */
static void node_reduce(FennelStages *s, const Layout *l, uint32_t j, uint32_t root, int64_t bytes)
{
    uint32_t base = j * l->ppn, m = node_size(l, j), lroot = root - base;
    for (uint64_t d = 1; d < m; d *= 2) {
        for (uint64_t v = d; v < m; v += 2 * d)
            fennel_stages_put(s, base + (uint32_t)((v + lroot) % m),
                              base + (uint32_t)((v - d + lroot) % m), bytes);
        fennel_stages_close(s, TRUE);
    }
}

/* The leaders' ranks, node by node: the map under which a flat collective's stages run
 * among them (fennel_stages_map). */
static uint32_t *leaders_map(const Layout *l)
{
    uint32_t *map = g_new(uint32_t, l->nodes);
    for (uint32_t j = 0; j < l->nodes; j++)
        map[j] = j * l->ppn;
    return map;
}

/* The index of o->variant in `names` (NULL-terminated; no variant: 0), or -1 with a usage
 * error naming them. */
static int variant_of(const char *generator, const FennelGenOptions *o, const char *const *names,
                      GError **error)
{
    if (o->variant == NULL)
        return 0;
    for (int i = 0; names[i]; i++)
        if (strcmp(o->variant, names[i]) == 0)
            return i;
    char *known = g_strjoinv(", ", (char **)names);
    g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE, "%s: unknown --variant '%s' (%s)",
                generator, o->variant, known);
    g_free(known);
    return -1;
}

/* Binomial bcast inside every node from its leader, farthest half first. */
static void intra_bcast(FennelStages *s, const Layout *l, int64_t bytes)
{
    uint64_t top = 1;
    while (2 * top < l->ppn)
        top *= 2;
    for (uint64_t d = l->ppn > 1 ? top : 0; d >= 1; d /= 2) {
        for (uint32_t j = 0; j < l->nodes; j++) {
            uint32_t base = j * l->ppn, m = node_size(l, j);
            for (uint64_t v = 0; v + d < m; v += 2 * d)
                fennel_stages_put(s, base + (uint32_t)v, base + (uint32_t)(v + d), bytes);
        }
        fennel_stages_close(s, FALSE);
    }
}

/* The leader of node i counted from node `first` (i = 0 is node first). */
static uint32_t leader(const Layout *l, uint64_t i, uint32_t first)
{
    return (uint32_t)((i + first) % l->nodes) * l->ppn;
}

/* Recursive doubling among the leaders, MPICH's way for a node count that is not a power
 * of two (see above). */
static void leaders_allreduce(FennelStages *s, const Layout *l, int64_t bytes)
{
    uint32_t n = l->nodes, pof2 = 1;
    while (2 * (uint64_t)pof2 <= n)
        pof2 *= 2;
    uint32_t rem = n - pof2;
    for (uint32_t i = 0; i < 2 * rem; i += 2)
        fennel_stages_put(s, leader(l, i, 0), leader(l, i + 1, 0), bytes);
    fennel_stages_close(s, TRUE);
    /* New index q of the leaders that take part: the odd ones below 2 rem, then the rest. */
    for (uint32_t mask = 1; mask < pof2; mask *= 2) {
        for (uint32_t q = 0; q < pof2; q++) {
            uint32_t to = q ^ mask;
            uint32_t from_i = q < rem ? 2 * q + 1 : q + rem,
                     to_i = to < rem ? 2 * to + 1 : to + rem;
            fennel_stages_put(s, leader(l, from_i, 0), leader(l, to_i, 0), bytes);
        }
        fennel_stages_close(s, TRUE);
    }
    for (uint32_t i = 0; i < 2 * rem; i += 2)
        fennel_stages_put(s, leader(l, i + 1, 0), leader(l, i, 0), bytes);
    fennel_stages_close(s, FALSE);
}

/* Open MPI 5 coll/han's pipeline of segments (coll_han_bcast.c, coll_han_reduce.c and
 * coll_han_allreduce.c, v5.0.8; docs/COLLECTIVES.md, Ranks that share a node): the buffer in
 * k segments of --segment bytes (the last one shorter), and in each step a leader starts the
 * levels among the leaders on some segments and runs the levels inside its node on others,
 * then waits for all: bcast, step t = 0 .. k: the leaders' bcast of segment t and the node's
 * of segment t - 1; reduce, step t = 0 .. k: the leaders' reduce of segment t - 1 and the
 * node's of segment t; allreduce, step t = 0 .. k + 2: the node's reduce of segment t, the
 * leaders' reduce of segment t - 1, the leaders' bcast of segment t - 2 and the node's bcast
 * of segment t - 3. Each level is a binomial tree (as unsegmented); a step's reducing levels
 * run as many stages as the longer has rounds, stage r holding round r of both (the
 * leaders' puts first, as HAN issues its nonblocking calls first), then its broadcasting
 * levels likewise, so a rank's next round waits for what it receives in this one. Segment j
 * is block j for fennel verify. */
typedef enum { UP_BCAST, LOW_BCAST, UP_REDUCE, LOW_REDUCE } HanLevel;

typedef struct {
    const Layout *l;
    uint32_t root_node;
    int64_t size, seg;
    uint64_t k, up_top, low_top, up_rounds, low_rounds;
} Han;

/* Round r of a level on segment j (nothing when j is not a segment or the level has fewer
 * rounds). */
static void han_round(FennelStages *s, const Han *h, HanLevel level, uint64_t r, int64_t j)
{
    gboolean up = level == UP_BCAST || level == UP_REDUCE;
    gboolean reduce = level == UP_REDUCE || level == LOW_REDUCE;
    if (j < 0 || (uint64_t)j >= h->k || r >= (up ? h->up_rounds : h->low_rounds))
        return;
    int64_t bytes = (uint64_t)j + 1 < h->k ? h->seg : h->size - (int64_t)(h->k - 1) * h->seg;
    uint64_t d = reduce ? UINT64_C(1) << r : (up ? h->up_top : h->low_top) >> r;
    for (uint32_t node = 0; node < (up ? 1 : h->l->nodes); node++) {
        uint32_t base = node * h->l->ppn, m = up ? h->l->nodes : node_size(h->l, node);
        for (uint64_t v = reduce ? d : 0; v < m; v += 2 * d) {
            if (!reduce && v + d >= m)
                continue;
            uint64_t w = reduce ? v - d : v + d;
            uint32_t from = up ? leader(h->l, v, h->root_node) : base + (uint32_t)v,
                     to = up ? leader(h->l, w, h->root_node) : base + (uint32_t)w;
            fennel_stages_put_blocks(s, from, to, bytes, (uint32_t)j, 1);
        }
    }
}

/* Two levels' rounds side by side, stage by stage. */
static void han_levels(FennelStages *s, const Han *h, HanLevel a, int64_t ja, HanLevel b,
                       int64_t jb, gboolean reducing)
{
    for (uint64_t r = 0; r < MAX(h->up_rounds, h->low_rounds); r++) {
        han_round(s, h, a, r, ja);
        han_round(s, h, b, r, jb);
        fennel_stages_close(s, reducing);
    }
}

static void han_pipeline(FennelStages *s, const Layout *l, uint32_t root_node, int64_t size,
                         int64_t segment, const char *collective)
{
    Han h = {l, root_node, size, 0, fennel__gen_segments(size, segment), 1, 1, 0, 0};
    h.seg = h.k == 1 ? size : segment;
    while (2 * h.up_top < l->nodes)
        h.up_top *= 2;
    while (2 * h.low_top < l->ppn)
        h.low_top *= 2;
    for (uint64_t d = 1; d < l->nodes; d *= 2)
        h.up_rounds++;
    for (uint64_t d = 1; d < l->ppn; d *= 2)
        h.low_rounds++;
    int64_t k = (int64_t)h.k;
    if (strcmp(collective, "bcast") == 0) {
        for (int64_t t = 0; t <= k; t++)
            han_levels(s, &h, UP_BCAST, t, LOW_BCAST, t - 1, FALSE);
    } else if (strcmp(collective, "reduce") == 0) {
        for (int64_t t = 0; t <= k; t++)
            han_levels(s, &h, UP_REDUCE, t - 1, LOW_REDUCE, t, TRUE);
    } else {
        for (int64_t t = 0; t <= k + 2; t++) {
            han_levels(s, &h, UP_REDUCE, t - 1, LOW_REDUCE, t, TRUE);
            han_levels(s, &h, UP_BCAST, t - 2, LOW_BCAST, t - 3, FALSE);
        }
    }
}

/* --segment for allreduce-smp, bcast-smp and reduce-smp: coll/han's pipeline, with the
 * binomial levels (allreduce-smp: a binomial reduce and bcast among the leaders, HAN's, in
 * place of the unsegmented recursive doubling) and a root that heads its node (HAN's levels are
 * rooted at the root's local rank in every node; the unsegmented generators' extra hop from the
 * root to its node's first rank is MPICH's). FALSE with an error otherwise; *segmented TRUE when
 * the buffer is cut. */
static gboolean han_segments(const char *name, const FennelGenOptions *o, const Layout *l,
                             int variant, gboolean *segmented, GError **error)
{
    uint64_t k = fennel__gen_segments(o->size, o->segment);
    *segmented = k > 1;
    if (k <= 1)
        return TRUE;
    if (variant != 0) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE,
                    "%s: --segment (coll/han's pipeline) runs the binomial levels only, not "
                    "--variant %s",
                    name, o->variant);
        return FALSE;
    }
    if (o->root % l->ppn != 0) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                    "%s: --segment (coll/han's pipeline) needs a --root that is its node's first "
                    "rank (a multiple of --ppn %u), got %u",
                    name, l->ppn, o->root);
        return FALSE;
    }
    return fennel__gen_check_segments(name, k, error);
}

static FennelProgram *allreduce_smp(const FennelGenOptions *o, GError **error)
{
    if (o->ranks < 1) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT, "allreduce-smp needs --ranks >= 1");
        return NULL;
    }
    static const char *const variants[] = {"rd", "rabenseifner", NULL};
    int variant = variant_of("allreduce-smp", o, variants, error);
    if (variant < 0)
        return NULL;
    Layout l = layout_of(o);
    gboolean segmented;
    if (!han_segments("allreduce-smp", o, &l, variant, &segmented, error))
        return NULL;
    FennelStages *s = fennel_gen_stages(o, l.p);
    if (segmented) {
        fennel_builder_set_n_blocks(fennel_stages_builder(s),
                                    (uint32_t)fennel__gen_segments(o->size, o->segment));
        han_pipeline(s, &l, 0, o->size, o->segment, "allreduce");
        return fennel_stages_finish(s, FALSE, error);
    }
    intra_reduce(s, &l, o->size, FENNEL_NO_RANK);
    if (variant == 0) {
        leaders_allreduce(s, &l, o->size);
    } else {
        uint32_t *map = leaders_map(&l);
        fennel_stages_map(s, map);
        fennel__gen_allreduce_rabenseifner(s, l.nodes, o->size);
        fennel_stages_map(s, NULL);
        g_free(map);
    }
    intra_bcast(s, &l, o->size);
    return fennel_stages_finish(s, FALSE, error);
}

static FennelProgram *bcast_smp(const FennelGenOptions *o, GError **error)
{
    static const char *const variants[] = {"binomial", "scatter-allgather", "scatter-rd-allgather",
                                           NULL};
    int variant = variant_of("bcast-smp", o, variants, error);
    if (variant < 0 || !fennel_gen_check_root("bcast-smp", o, error))
        return NULL;
    Layout l = layout_of(o);
    if (variant == 2 && (l.nodes & (l.nodes - 1)) != 0) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                    "bcast-smp --variant scatter-rd-allgather needs a power-of-two node count, "
                    "got %u nodes",
                    l.nodes);
        return NULL;
    }
    uint32_t root_node = o->root / l.ppn, root_leader = root_node * l.ppn;
    gboolean segmented;
    if (!han_segments("bcast-smp", o, &l, variant, &segmented, error))
        return NULL;
    FennelStages *s = fennel_gen_stages(o, l.p);
    if (segmented) {
        fennel_builder_set_n_blocks(fennel_stages_builder(s),
                                    (uint32_t)fennel__gen_segments(o->size, o->segment));
        han_pipeline(s, &l, root_node, o->size, o->segment, "bcast");
        return fennel_stages_finish(s, FALSE, error);
    }
    if (o->root != root_leader) {
        fennel_stages_put(s, o->root, root_leader, o->size);
        fennel_stages_close(s, FALSE);
    }
    if (variant == 0) {
        uint64_t top = 1;
        while (2 * top < l.nodes)
            top *= 2;
        for (uint64_t d = l.nodes > 1 ? top : 0; d >= 1; d /= 2) {
            for (uint64_t v = 0; v + d < l.nodes; v += 2 * d)
                fennel_stages_put(s, leader(&l, v, root_node), leader(&l, v + d, root_node),
                                  o->size);
            fennel_stages_close(s, FALSE);
        }
    } else {
        uint32_t *map = leaders_map(&l);
        fennel_stages_map(s, map);
        if (variant == 1)
            fennel__gen_bcast_scatter_allgather(s, l.nodes, root_node, o->size);
        else
            fennel__gen_bcast_scatter_rd_allgather(s, l.nodes, root_node, o->size);
        fennel_stages_map(s, NULL);
        g_free(map);
    }
    intra_bcast(s, &l, o->size);
    return fennel_stages_finish(s, FALSE, error);
}

static FennelProgram *reduce_smp(const FennelGenOptions *o, GError **error)
{
    static const char *const variants[] = {"binomial", "rabenseifner", "root-last", NULL};
    int variant = variant_of("reduce-smp", o, variants, error);
    if (variant < 0 || !fennel_gen_check_root("reduce-smp", o, error))
        return NULL;
    Layout l = layout_of(o);
    uint32_t root_node = o->root / l.ppn, root_leader = root_node * l.ppn;
    gboolean segmented;
    if (!han_segments("reduce-smp", o, &l, variant, &segmented, error))
        return NULL;
    FennelStages *s = fennel_gen_stages(o, l.p);
    if (segmented) {
        fennel_builder_set_n_blocks(fennel_stages_builder(s),
                                    (uint32_t)fennel__gen_segments(o->size, o->segment));
        han_pipeline(s, &l, root_node, o->size, o->segment, "reduce");
        return fennel_stages_finish(s, FALSE, error);
    }
    intra_reduce(s, &l, o->size, variant == 2 ? root_node : FENNEL_NO_RANK);
    if (variant == 1) {
        uint32_t *map = leaders_map(&l);
        fennel_stages_map(s, map);
        fennel__gen_reduce_rabenseifner(s, l.nodes, root_node, o->size);
        fennel_stages_map(s, NULL);
        g_free(map);
    } else {
        for (uint64_t d = 1; d < l.nodes; d *= 2) {
            for (uint64_t v = d; v < l.nodes; v += 2 * d)
                fennel_stages_put(s, leader(&l, v, root_node), leader(&l, v - d, root_node),
                                  o->size);
            fennel_stages_close(s, TRUE);
        }
    }
    if (variant == 2) {
        node_reduce(s, &l, root_node, o->root, o->size);
    } else if (o->root != root_leader) {
        fennel_stages_put(s, root_leader, o->root, o->size);
        fennel_stages_close(s, FALSE);
    }
    return fennel_stages_finish(s, FALSE, error);
}

/* Node j's blocks, base .. base + m - 1, carried from src to dst. */
static void put_node_blocks(FennelStages *s, const Layout *l, uint32_t src, uint32_t dst,
                            uint32_t j, int64_t size)
{
    uint32_t m = node_size(l, j);
    fennel_stages_put_blocks(s, src, dst, size * (int64_t)m, j * l->ppn, m);
}

static FennelProgram *allgather_smp(const FennelGenOptions *o, GError **error)
{
    if (o->ranks < 1) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT, "allgather-smp needs --ranks >= 1");
        return NULL;
    }
    Layout l = layout_of(o);
    FennelStages *s = fennel_gen_stages(o, l.p);
    fennel_builder_set_n_blocks(fennel_stages_builder(s), l.p);
    /* Gather in each node: local v sends its subtree's blocks v .. v + d - 1 to v - d. */
    for (uint64_t d = 1; d < l.ppn; d *= 2) {
        for (uint32_t j = 0; j < l.nodes; j++) {
            uint32_t base = j * l.ppn, m = node_size(&l, j);
            for (uint64_t v = d; v < m; v += 2 * d) {
                uint32_t n = (uint32_t)MIN(d, m - v);
                fennel_stages_put_blocks(s, base + (uint32_t)v, base + (uint32_t)(v - d),
                                         o->size * (int64_t)n, base + (uint32_t)v, n);
            }
        }
        fennel_stages_close(s, FALSE);
    }
    /* Ring among the leaders. */
    for (uint32_t k = 0; k + 1 < l.nodes; k++) {
        for (uint32_t i = 0; i < l.nodes; i++)
            put_node_blocks(s, &l, leader(&l, i, 0), leader(&l, i + 1, 0),
                            (i + l.nodes - k) % l.nodes, o->size);
        fennel_stages_close(s, FALSE);
    }
    /* Bcast of all p blocks in each node, farthest half first. */
    uint64_t top = 1;
    while (2 * top < l.ppn)
        top *= 2;
    for (uint64_t d = l.ppn > 1 ? top : 0; d >= 1; d /= 2) {
        for (uint32_t j = 0; j < l.nodes; j++) {
            uint32_t base = j * l.ppn, m = node_size(&l, j);
            for (uint64_t v = 0; v + d < m; v += 2 * d)
                fennel_stages_put_blocks(s, base + (uint32_t)v, base + (uint32_t)(v + d),
                                         o->size * (int64_t)l.p, 0, l.p);
        }
        fennel_stages_close(s, FALSE);
    }
    return fennel_stages_finish(s, FALSE, error);
}

const FennelGenerator fennel_gen_allgather_smp = {
    .name = "allgather-smp",
    .summary = "ranks sharing nodes (--ppn): binomial gather to each node's first rank, ring "
               "among them, binomial bcast in each node (Open MPI 5 coll/han's structure); "
               "--size per rank; any --ranks",
    .options = FENNEL_GEN_RANKS | FENNEL_GEN_SIZE | FENNEL_GEN_PPN,
    .collective = "allgather",
    .generate = allgather_smp,
};

const FennelGenerator fennel_gen_allreduce_smp = {
    .name = "allreduce-smp",
    .summary = "ranks sharing nodes (--ppn): binomial reduce to each node's first rank, "
               "recursive doubling (--variant rd) or Rabenseifner (rabenseifner) among them, "
               "binomial bcast in each node (MPICH's SMP allreduce, Open MPI 5 coll/han's "
               "structure); --segment: coll/han's pipeline of four levels; any --ranks",
    .options = FENNEL_GEN_RANKS | FENNEL_GEN_SIZE | FENNEL_GEN_PPN | FENNEL_GEN_VARIANT |
               FENNEL_GEN_SEGMENT,
    .collective = "allreduce",
    .generate = allreduce_smp,
};

const FennelGenerator fennel_gen_bcast_smp = {
    .name = "bcast-smp",
    .summary = "ranks sharing nodes (--ppn): the root to its node's first rank, a bcast among "
               "the nodes' first ranks (--variant binomial, scatter-allgather, "
               "scatter-rd-allgather), binomial bcast in each node (MPICH's SMP bcast); "
               "--segment: the two levels pipelined in segments (Open MPI 5 coll/han's)",
    .options = FENNEL_GEN_RANKS | FENNEL_GEN_SIZE | FENNEL_GEN_ROOT | FENNEL_GEN_PPN |
               FENNEL_GEN_VARIANT | FENNEL_GEN_SEGMENT,
    .collective = "bcast",
    .generate = bcast_smp,
};

const FennelGenerator fennel_gen_reduce_smp = {
    .name = "reduce-smp",
    .summary = "ranks sharing nodes (--ppn): binomial reduce to each node's first rank, "
               "a reduce among them to the root's node (--variant binomial, rabenseifner), "
               "then to --root; --variant root-last: MPICH's order, the root's node last "
               "(MPICH's SMP reduce); --segment: the two levels pipelined in segments (Open "
               "MPI 5 coll/han's)",
    .options = FENNEL_GEN_RANKS | FENNEL_GEN_SIZE | FENNEL_GEN_ROOT | FENNEL_GEN_PPN |
               FENNEL_GEN_VARIANT | FENNEL_GEN_SEGMENT,
    .collective = "reduce",
    .generate = reduce_smp,
};
