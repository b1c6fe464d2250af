/* PiP-MColl multi-object collectives (Huang et al. 2023 §III): all P ranks of a node
 * send and receive inter-node messages at once. --ppn P gives the ranks per node; node
 * x holds ranks x P .. x P + P - 1 ("local rank" l = rank - x P), so --ranks must be a
 * multiple of P, and N = ranks / P is the node count.
 *
 * PiP shares one address space per node, so a local rank reads its node root's buffer
 * without a message. fennel has no shared memory: every such access is an intra-node
 * put (which a model with a placement of P ranks per node can time with its intra-node
 * parameters). That adds intra-node stages the paper's shared buffers avoid, and
 * fennel's intra-node steps are not overlapped with the inter-node ones as the paper's
 * are; the inter-node pattern, message sizes and round counts are the paper's.
 *
 * - scatter-mo (§III-A1, Fig. 2): a (P+1)-nomial tree over nodes driven by P senders
 *   per node. While a node holds the data of S nodes, its local rank l sends the data
 *   of the S/(P+1) nodes starting (l + 1) S/(P+1) nodes further on to that node's
 *   first rank; an intra-node put first gives each local rank what it forwards, and
 *   after the last round each node's first rank hands its ranks their blocks (the
 *   paper overlaps this intra-node scatter with the tree). Defined, as in the paper, for N a power
 * of P + 1 and a root that is a node's first rank. --size is what each rank receives (C_b).
 * - allgather-mo (§III-A2 and §III-B1): --variant small is the multi-object Bruck
 *   allgather: in round k with S = (P+1)^k nodes gathered, local rank l sends the node's
 *   S nodes of data to local rank l of node x - (l + 1) S and receives from node
 *   x + (l + 1) S; a last round covers the N - S remaining nodes when N is not a power
 *   of P + 1: ceil(log_{P+1} N) inter-node rounds. Intra-node puts share what each local
 *   rank gathered. --variant large is the multi-object ring: local rank l forwards
 *   local rank l's blocks around the ring of nodes (N - 1 steps) and shares each with
 *   its node. The default follows the paper's switch point: small below 64 KiB per rank,
 *   large from there. Any N. --size is what each rank contributes (C_b).
 * - allreduce-mo (§III-B2, Fig. 5): intra-node reduce-scatter (the vector cut into P
 *   chunks, local rank l reduces chunk l), inter-node reduce-scatter (the vector cut
 *   into N chunks; local rank l owns nodes l N/P .. (l+1) N/P - 1 and sends chunk y of
 *   its node's partial result to local rank l of node y, which reduces the N - 1 chunks
 *   it receives), then the ring allgather of the node chunks (chunk c travels along
 *   local rank l = c P / N of every node) and an intra-node allgather of the P chunks.
 *   Defined, as in the paper, for N a multiple of P. The paper's small-message
 *   allreduce ("recursive Bruck") is not provided: every node combines the
 *   contributions in a different order, which breaks the consistency MPI asks for and
 *   `fennel verify` checks. --size is the vector (C_b); chunk i of K is bytes
 *   floor(C_b i / K) .. floor(C_b (i + 1) / K) - 1, so an uneven size gives chunks that
 *   differ by one byte. */
#include "blocks.h"
#include "errors.h"
#include "generator.h"
#include "stages.h"

#include <string.h>

typedef struct {
    uint32_t dst, first, count;
    int64_t bytes;
} Out;

/* A rank's puts of one stage, issued in peer order: by distance from the sender
 * around the ranks, as the original's multicast stages did (peer = self + 1, + 2, ...). */
typedef struct {
    FennelStages *s;
    uint32_t ranks, src;
    GArray *out;
} Sender;

static gint by_distance(gconstpointer a, gconstpointer b, gpointer data)
{
    const Sender *t = data;
    uint32_t x = (((const Out *)a)->dst + t->ranks - t->src) % t->ranks;
    uint32_t y = (((const Out *)b)->dst + t->ranks - t->src) % t->ranks;
    return (x > y) - (x < y);
}

static void sender_begin(Sender *t, uint32_t src)
{
    t->src = src;
    g_array_set_size(t->out, 0);
}

static void sender_put(Sender *t, uint32_t dst, int64_t bytes, uint32_t first, uint32_t count)
{
    Out o = {dst, first, count, bytes};
    g_array_append_val(t->out, o);
}

static void sender_end(Sender *t)
{
    g_array_sort_with_data(t->out, by_distance, t);
    for (guint i = 0; i < t->out->len; i++) {
        const Out *o = &g_array_index(t->out, Out, i);
        fennel_stages_put_blocks(t->s, t->src, o->dst, o->bytes, o->first, o->count);
    }
}

/* Checks --ranks and --ppn; sets the node count. */
static gboolean nodes_of(const char *name, const FennelGenOptions *o, uint32_t *nodes,
                         GError **error)
{
    if (o->ranks < 1 || o->ppn < 1 || o->ranks % o->ppn != 0) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                    "%s needs --ranks a multiple of --ppn (nodes x ranks per node), got %u and %u",
                    name, o->ranks, o->ppn);
        return FALSE;
    }
    *nodes = o->ranks / o->ppn;
    return TRUE;
}

static gboolean total_fits(const char *name, const FennelGenOptions *o, GError **error)
{
    if (o->size > INT64_MAX / o->ranks) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                    "%s: --size x --ranks exceeds the largest size", name);
        return FALSE;
    }
    return TRUE;
}

static FennelStages *stages_for(const FennelGenOptions *o, uint32_t ranks, uint32_t n_blocks,
                                Sender *t)
{
    FennelStages *s = fennel_gen_stages(o, ranks);
    fennel_builder_set_n_blocks(fennel_stages_builder(s), n_blocks);
    t->s = s;
    t->ranks = ranks;
    t->out = g_array_new(FALSE, FALSE, sizeof(Out));
    return s;
}

static FennelProgram *finish(FennelStages *s, Sender *t, GError **error)
{
    g_array_free(t->out, TRUE);
    return fennel_stages_finish(s, FALSE, error);
}

/* scatter-mo. Nodes are numbered relative to the root's node; node y's blocks are those
 * of its ranks, y' P .. y' P + P - 1 with y' the real node, so the data of consecutive
 * relative nodes is a (possibly wrapping) range of blocks. */
static FennelProgram *scatter_mo(const FennelGenOptions *o, GError **error)
{
    uint32_t n_nodes, P = o->ppn;
    if (!nodes_of("scatter-mo", o, &n_nodes, error) || !total_fits("scatter-mo", o, error))
        return NULL;
    uint64_t span = 1;
    while (span < n_nodes)
        span *= (uint64_t)P + 1;
    if (span != n_nodes) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                    "scatter-mo needs a node count (--ranks / --ppn) that is a power of "
                    "--ppn + 1, got %u nodes",
                    n_nodes);
        return NULL;
    }
    if (o->root >= o->ranks || o->root % P != 0) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                    "scatter-mo needs --root to be the first rank of a node (a multiple of "
                    "--ppn below --ranks), got %u",
                    o->root);
        return NULL;
    }
    uint32_t root_node = o->root / P;
#define NODE(y) (((y) + root_node) % n_nodes)
    Sender t;
    FennelStages *s = stages_for(o, o->ranks, o->ranks, &t);
    for (uint32_t S = n_nodes; S > 1; S /= P + 1) {
        uint32_t sub = S / (P + 1);
        /* Intra-node: each local rank gets the data it forwards. */
        for (uint32_t y = 0; y < n_nodes && P > 1; y += S) {
            for (uint32_t l = 1; l < P; l++) {
                uint32_t from = NODE(y + (l + 1) * sub) * P;
                fennel_stages_put_blocks(s, NODE(y) * P, NODE(y) * P + l,
                                         (int64_t)sub * P * o->size, from, sub * P);
            }
        }
        fennel_stages_close(s, FALSE);
        /* Inter-node: local rank l sends to node y + (l + 1) sub. */
        for (uint32_t y = 0; y < n_nodes; y += S) {
            for (uint32_t l = 0; l < P; l++) {
                uint32_t to = NODE(y + (l + 1) * sub) * P;
                fennel_stages_put_blocks(s, NODE(y) * P + l, to, (int64_t)sub * P * o->size, to,
                                         sub * P);
            }
        }
        fennel_stages_close(s, FALSE);
    }
    /* Intra-node scatter: every node's first rank hands out its ranks' blocks. */
    for (uint32_t x = 0; x < n_nodes && P > 1; x++) {
        for (uint32_t l = 1; l < P; l++)
            fennel_stages_put_blocks(s, x * P, x * P + l, o->size, x * P + l, 1);
    }
#undef NODE
    return finish(s, &t, error);
}

static gboolean allgather_variant(const FennelGenOptions *o, gboolean *small, GError **error)
{
    if (o->variant == NULL)
        *small = o->size < 64 * 1024;
    else if (strcmp(o->variant, "small") == 0)
        *small = TRUE;
    else if (strcmp(o->variant, "large") == 0)
        *small = FALSE;
    else {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                    "allgather-mo: unknown --variant '%s' (small or large)", o->variant);
        return FALSE;
    }
    return TRUE;
}

/* Every local rank of every node sends the blocks first .. first + count - 1 (mod the
 * block count) that `range` gives it to the other local ranks of its node. */
static void share_in_node(FennelStages *s, Sender *t, uint32_t n_nodes, uint32_t P, int64_t size,
                          void (*range)(uint32_t x, uint32_t l, const void *data, uint32_t *first,
                                        uint32_t *count),
                          const void *data)
{
    for (uint32_t x = 0; x < n_nodes && P > 1; x++) {
        for (uint32_t l = 0; l < P; l++) {
            uint32_t first, count;
            range(x, l, data, &first, &count);
            if (count == 0)
                continue;
            sender_begin(t, x * P + l);
            for (uint32_t k = 0; k < P; k++) {
                if (k != l)
                    sender_put(t, x * P + k, (int64_t)count * size, first, count);
            }
            sender_end(t);
        }
    }
    fennel_stages_close(s, FALSE);
}

typedef struct {
    uint32_t n_nodes, P, S;
} BruckRound;

/* Blocks received by local rank l of node x in the Bruck round with S nodes gathered:
 * nodes x + (l + 1) S .. x + (l + 1) S + c - 1, c = min(S, N - (l + 1) S) (clipped at 0). */
static uint32_t bruck_count(const BruckRound *b, uint32_t l)
{
    uint64_t start = (uint64_t)(l + 1) * b->S;
    if (start >= b->n_nodes)
        return 0;
    return (uint32_t)MIN(b->S, b->n_nodes - start);
}

static void bruck_received(uint32_t x, uint32_t l, const void *data, uint32_t *first,
                           uint32_t *count)
{
    const BruckRound *b = data;
    uint32_t c = bruck_count(b, l);
    *first = (uint32_t)((x + (uint64_t)(l + 1) * b->S) % b->n_nodes) * b->P;
    *count = c * b->P;
}

static void own_block(uint32_t x, uint32_t l, const void *data, uint32_t *first, uint32_t *count)
{
    const uint32_t *P = data;
    *first = x * *P + l;
    *count = 1;
}

typedef struct {
    uint32_t n_nodes, P, step;
} RingStep;

/* Block held newest by local rank l of node x at ring step s: node x - s's block l. */
static void ring_newest(uint32_t x, uint32_t l, const void *data, uint32_t *first, uint32_t *count)
{
    const RingStep *r = data;
    *first = ((x + r->n_nodes - r->step % r->n_nodes) % r->n_nodes) * r->P + l;
    *count = 1;
}

static FennelProgram *allgather_mo(const FennelGenOptions *o, GError **error)
{
    uint32_t n_nodes, P = o->ppn;
    gboolean small;
    if (!allgather_variant(o, &small, error) || !nodes_of("allgather-mo", o, &n_nodes, error) ||
        !total_fits("allgather-mo", o, error))
        return NULL;
    Sender t;
    FennelStages *s = stages_for(o, o->ranks, o->ranks, &t);
    if (small) {
        share_in_node(s, &t, n_nodes, P, o->size, own_block, &P);
        BruckRound b = {.n_nodes = n_nodes, .P = P, .S = 1};
        while (b.S < n_nodes) {
            for (uint32_t x = 0; x < n_nodes; x++) {
                for (uint32_t l = 0; l < P; l++) {
                    uint32_t c = bruck_count(&b, l);
                    if (c == 0)
                        continue;
                    uint32_t to =
                        (uint32_t)((x + n_nodes - ((uint64_t)(l + 1) * b.S) % n_nodes) % n_nodes);
                    fennel_stages_put_blocks(s, x * P + l, to * P + l, (int64_t)c * P * o->size,
                                             x * P, c * P);
                }
            }
            fennel_stages_close(s, FALSE);
            share_in_node(s, &t, n_nodes, P, o->size, bruck_received, &b);
            b.S = (uint32_t)MIN((uint64_t)b.S * (P + 1), n_nodes);
        }
    } else {
        for (uint32_t step = 0; step < n_nodes; step++) {
            RingStep r = {n_nodes, P, step};
            for (uint32_t x = 0; x < n_nodes; x++) {
                for (uint32_t l = 0; l < P; l++) {
                    uint32_t first, count, me = x * P + l;
                    ring_newest(x, l, &r, &first, &count);
                    sender_begin(&t, me);
                    if (step + 1 < n_nodes)
                        sender_put(&t, ((x + 1) % n_nodes) * P + l, o->size, first, 1);
                    for (uint32_t k = 0; k < P; k++) {
                        if (k != l)
                            sender_put(&t, x * P + k, o->size, first, 1);
                    }
                    sender_end(&t);
                }
            }
            fennel_stages_close(s, FALSE);
        }
    }
    return finish(s, &t, error);
}

static FennelProgram *allreduce_mo(const FennelGenOptions *o, GError **error)
{
    uint32_t n_nodes, P = o->ppn;
    if (!nodes_of("allreduce-mo", o, &n_nodes, error))
        return NULL;
    if (n_nodes % P != 0) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                    "allreduce-mo needs a node count (--ranks / --ppn) that is a multiple of "
                    "--ppn, got %u nodes of %u ranks",
                    n_nodes, P);
        return NULL;
    }
    uint32_t per = n_nodes / P; /* node chunks per local rank */
    int64_t n = o->size;
#define BYTES(first, count)                                                                        \
    (fennel_block_offset(n, n_nodes, (first) + (count)) - fennel_block_offset(n, n_nodes, (first)))
    Sender t;
    FennelStages *s = stages_for(o, o->ranks, n_nodes, &t);
    /* Intra-node reduce-scatter: local rank k sends chunk l (node chunks l per ..) to l. */
    for (uint32_t x = 0; x < n_nodes && P > 1; x++) {
        for (uint32_t k = 0; k < P; k++) {
            sender_begin(&t, x * P + k);
            for (uint32_t l = 0; l < P; l++) {
                if (l != k)
                    sender_put(&t, x * P + l, BYTES(l * per, per), l * per, per);
            }
            sender_end(&t);
        }
    }
    fennel_stages_close(s, TRUE);
    /* Inter-node reduce-scatter: chunk y goes to local rank y / per of node y. */
    for (uint32_t x = 0; x < n_nodes; x++) {
        for (uint32_t l = 0; l < P; l++) {
            sender_begin(&t, x * P + l);
            for (uint32_t y = l * per; y < (l + 1) * per; y++) {
                if (y != x)
                    sender_put(&t, y * P + l, BYTES(y, 1), y, 1);
            }
            sender_end(&t);
        }
    }
    fennel_stages_close(s, TRUE);
    /* Ring allgather of the node chunks: at step k node x forwards chunk x - k. */
    for (uint32_t k = 0; k + 1 < n_nodes; k++) {
        for (uint32_t x = 0; x < n_nodes; x++) {
            uint32_t c = (x + n_nodes - k) % n_nodes, l = c / per;
            fennel_stages_put_blocks(s, x * P + l, ((x + 1) % n_nodes) * P + l, BYTES(c, 1), c, 1);
        }
        fennel_stages_close(s, FALSE);
    }
    /* Intra-node allgather of the P chunks. */
    for (uint32_t x = 0; x < n_nodes && P > 1; x++) {
        for (uint32_t k = 0; k < P; k++) {
            sender_begin(&t, x * P + k);
            for (uint32_t l = 0; l < P; l++) {
                if (l != k)
                    sender_put(&t, x * P + l, BYTES(k * per, per), k * per, per);
            }
            sender_end(&t);
        }
    }
#undef BYTES
    return finish(s, &t, error);
}

const FennelGenerator fennel_gen_scatter_mo = {
    .name = "scatter-mo",
    .summary = "PiP-MColl multi-object scatter, a (P+1)-nomial tree over nodes with --ppn "
               "senders per node; nodes a power of P+1; --size per rank",
    .options = FENNEL_GEN_RANKS | FENNEL_GEN_SIZE | FENNEL_GEN_PPN | FENNEL_GEN_ROOT,
    .collective = "scatter",
    .generate = scatter_mo,
};

const FennelGenerator fennel_gen_allgather_mo = {
    .name = "allgather-mo",
    .summary = "PiP-MColl multi-object allgather, --variant small (Bruck, log_{P+1} N rounds) "
               "or large (ring); --ppn ranks per node; --size per rank",
    .options = FENNEL_GEN_RANKS | FENNEL_GEN_SIZE | FENNEL_GEN_PPN | FENNEL_GEN_VARIANT,
    .collective = "allgather",
    .generate = allgather_mo,
};

const FennelGenerator fennel_gen_allreduce_mo = {
    .name = "allreduce-mo",
    .summary = "PiP-MColl multi-object allreduce: intra- and inter-node reduce-scatter, ring "
               "allgather; --ppn ranks per node, nodes a multiple of it",
    .options = FENNEL_GEN_RANKS | FENNEL_GEN_SIZE | FENNEL_GEN_PPN,
    .collective = "allreduce",
    .generate = allreduce_mo,
};
