/* SMP-aware (hierarchical) collectives, as MPI libraries run them when ranks share nodes:
 * MPICH's MPIR_Allreduce_intra_smp, MPIR_Bcast_intra_smp and MPIR_Reduce_intra_smp
 * (src/mpi/coll/allreduce/allreduce_intra_smp.c and the like), and the structure of Open MPI
 * 5's coll/han allreduce (intra-node reduce, allreduce among the node leaders, intra-node
 * bcast), without HAN's pipelining of segments (docs/COLLECTIVES.md, Ranks that share a
 * node).
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
 * Except in allgather-smp, every message carries the whole --size vector; reduction stages give
 * their receivers a compute of the bytes received (schedules/stages.h), broadcast stages none. With
 * --ppn 1 every rank is a leader and the generators are their flat algorithms. */
#include "errors.h"
#include "gen_rooted.h"
#include "stages.h"

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

/* Binomial reduce inside every node to its leader (local rank 0), all nodes at once. */
static void intra_reduce(FennelStages *s, const Layout *l, int64_t bytes)
{
    for (uint64_t d = 1; d < l->ppn; d *= 2) {
        for (uint32_t j = 0; j < l->nodes; j++) {
            uint32_t base = j * l->ppn, m = node_size(l, j);
            for (uint64_t v = d; v < m; v += 2 * d)
                fennel_stages_put(s, base + (uint32_t)v, base + (uint32_t)(v - d), bytes);
        }
        fennel_stages_close(s, TRUE);
    }
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

static FennelProgram *allreduce_smp(const FennelGenOptions *o, GError **error)
{
    if (o->ranks < 1) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT, "allreduce-smp needs --ranks >= 1");
        return NULL;
    }
    Layout l = layout_of(o);
    FennelStages *s = fennel_gen_stages(o, l.p);
    intra_reduce(s, &l, o->size);
    leaders_allreduce(s, &l, o->size);
    intra_bcast(s, &l, o->size);
    return fennel_stages_finish(s, FALSE, error);
}

static FennelProgram *bcast_smp(const FennelGenOptions *o, GError **error)
{
    if (!fennel_gen_check_root("bcast-smp", o, error))
        return NULL;
    Layout l = layout_of(o);
    uint32_t root_node = o->root / l.ppn, root_leader = root_node * l.ppn;
    FennelStages *s = fennel_gen_stages(o, l.p);
    if (o->root != root_leader) {
        fennel_stages_put(s, o->root, root_leader, o->size);
        fennel_stages_close(s, FALSE);
    }
    uint64_t top = 1;
    while (2 * top < l.nodes)
        top *= 2;
    for (uint64_t d = l.nodes > 1 ? top : 0; d >= 1; d /= 2) {
        for (uint64_t v = 0; v + d < l.nodes; v += 2 * d)
            fennel_stages_put(s, leader(&l, v, root_node), leader(&l, v + d, root_node), o->size);
        fennel_stages_close(s, FALSE);
    }
    intra_bcast(s, &l, o->size);
    return fennel_stages_finish(s, FALSE, error);
}

static FennelProgram *reduce_smp(const FennelGenOptions *o, GError **error)
{
    if (!fennel_gen_check_root("reduce-smp", o, error))
        return NULL;
    Layout l = layout_of(o);
    uint32_t root_node = o->root / l.ppn, root_leader = root_node * l.ppn;
    FennelStages *s = fennel_gen_stages(o, l.p);
    intra_reduce(s, &l, o->size);
    for (uint64_t d = 1; d < l.nodes; d *= 2) {
        for (uint64_t v = d; v < l.nodes; v += 2 * d)
            fennel_stages_put(s, leader(&l, v, root_node), leader(&l, v - d, root_node), o->size);
        fennel_stages_close(s, TRUE);
    }
    if (o->root != root_leader) {
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
               "recursive doubling among them, binomial bcast in each node (MPICH's SMP "
               "allreduce, Open MPI 5 coll/han's structure); any --ranks",
    .options = FENNEL_GEN_RANKS | FENNEL_GEN_SIZE | FENNEL_GEN_PPN,
    .collective = "allreduce",
    .generate = allreduce_smp,
};

const FennelGenerator fennel_gen_bcast_smp = {
    .name = "bcast-smp",
    .summary = "ranks sharing nodes (--ppn): the root to its node's first rank, binomial bcast "
               "among the nodes' first ranks, binomial bcast in each node (MPICH's SMP bcast)",
    .options = FENNEL_GEN_RANKS | FENNEL_GEN_SIZE | FENNEL_GEN_ROOT | FENNEL_GEN_PPN,
    .collective = "bcast",
    .generate = bcast_smp,
};

const FennelGenerator fennel_gen_reduce_smp = {
    .name = "reduce-smp",
    .summary = "ranks sharing nodes (--ppn): binomial reduce to each node's first rank, "
               "binomial reduce among them to the root's node, then to --root (MPICH's SMP "
               "reduce)",
    .options = FENNEL_GEN_RANKS | FENNEL_GEN_SIZE | FENNEL_GEN_ROOT | FENNEL_GEN_PPN,
    .collective = "reduce",
    .generate = reduce_smp,
};
