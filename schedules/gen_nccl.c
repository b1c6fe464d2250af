/* NCCL's ring allreduce, simulated step by step (docs/GPU.md): the figures are those of
 * NCCL 2.30.7's source (src/include/device.h, src/include/collectives.h, src/init.cc,
 * src/enqueue.cc, src/device/all_reduce.h).
 *
 * Each of C channels (--partitions) is a ring over the ranks (ring_order: rank order, or
 * across servers of --ppn GPUs an order that leaves and enters each server on matching
 * rails), with a thread block of its own on every rank (slot c). The vector is cut into
 * C x L x p x S slices,
 * evenly to the byte: channel c takes the c-th C-th of it, in L loops of p chunks of S
 * slices, L = ceil(n / (C p chunk)), where a chunk holds at most `chunk` bytes of data. In
 * every loop the thread block at ring position q runs NCCL's runRing: step 0 sends chunk
 * q - 1 to position q + 1; steps 1 .. p - 2 receive chunk q - s - 1 from position q - 1,
 * reduce it and send it on; step p - 1 receives chunk q, reduces it (the result) and sends
 * it; steps p .. 2p - 3 receive a finished chunk and send it on; a last receive takes chunk
 * q + 1. A step moves
 * its chunk slice by slice, each slice one put of the slice's bytes on the wire, and the
 * thread block does its steps and slices in order: a slice's reduction (or, for a copy
 * step, its put) waits for the block's previous slice and for the slice rank r - 1 sent
 * in the step before.
 *
 * Protocols (--variant): simple (NCCL_STEPS 8, a 4 MiB buffer: steps of 512 KiB, chunks of
 * ALLREDUCE_CHUNKSTEPS 4 steps = 2 MiB in ALLREDUCE_CHUNKSTEPS / ALLREDUCE_SLICESTEPS = 2
 * slices; the wire carries the data), ll (a buffer of 8 lines x 512 threads x 8 steps x
 * 16 B: steps of 64 KiB of lines, chunks of half that, 32 KiB of data, in one slice; each
 * 16-byte line carries 8 bytes of data, so the wire carries twice the data), ll128 (120
 * elements x 640 threads x 8 steps x 8 B: steps of 600 KiB of lines, chunks of 15/16 of
 * that, 576000 B of data, in one slice; each 128-byte line carries 120 bytes of data). Not
 * modelled: the FIFO's NCCL_STEPS slots (a sender never waits for room at the receiver),
 * NCCL's exact partition across channels and its smaller last loop, and its per-protocol
 * latencies, which are the model's. */
#include "blocks.h"
#include "errors.h"
#include "generator.h"

#include <string.h>

typedef struct {
    const char *name;
    int64_t chunk; /* data bytes per chunk */
    uint32_t slices;
    int64_t wire_num, wire_den; /* wire bytes per data byte */
    int64_t tree_chunk;         /* data bytes per chunk of a tree: one step */
} Protocol;

static const Protocol protocols[] = {
    {"simple", 4194304 / 8 * 4, 2, 1, 1, 4194304 / 8},
    {"ll", 8 * 512 * 8 * 16 / 8 / 2, 1, 2, 1, 8 * 512 * 8 * 16 / 8 / 2},
    {"ll128", 120 * 640 * 8 * 8 / 8 / 16 * 15, 1, 16, 15, 120 * 640 * 8 * 8 / 8 / 16 * 15},
};

static const Protocol *protocol_of(const FennelGenOptions *o)
{
    if (!(o->given & FENNEL_GEN_VARIANT))
        return &protocols[0];
    for (size_t i = 0; i < G_N_ELEMENTS(protocols); i++) {
        if (strcmp(o->variant, protocols[i].name) == 0)
            return &protocols[i];
    }
    return NULL;
}

/* The bytes on the wire for `bytes` of data. */
static int64_t wire_bytes(const Protocol *pr, int64_t bytes)
{
    return bytes / pr->wire_den * pr->wire_num + bytes % pr->wire_den * pr->wire_num / pr->wire_den;
}

/* --partitions, whose default (2) is every generator's, so that a sweep's partitions column
 * names the channels a run used. */
static uint32_t channels_of(const FennelGenOptions *o)
{
    return o->partitions;
}

/* Loops per channel: ceil(n / (C p chunk)), at least 1. */
static uint64_t loops_of(const FennelGenOptions *o, const Protocol *pr)
{
    uint64_t per_loop = (uint64_t)channels_of(o) * o->ranks * (uint64_t)pr->chunk;
    uint64_t n = o->size > 0 ? (uint64_t)o->size : 0;
    return MAX((n + per_loop - 1) / per_loop, 1u);
}

/* A lower bound of the tasks: 2(p - 1) puts per slice, loop, channel and rank. */
static uint64_t min_tasks(const FennelGenOptions *o)
{
    const Protocol *pr = protocol_of(o);
    if (pr == NULL || o->ranks < 2)
        return 0;
    uint64_t t = 2ull * (o->ranks - 1), r;
    uint64_t factors[] = {o->ranks, channels_of(o), loops_of(o, pr), pr->slices};
    for (size_t i = 0; i < G_N_ELEMENTS(factors); i++) {
        if (__builtin_mul_overflow(t, factors[i], &r))
            return UINT64_MAX;
        t = r;
    }
    return t;
}

/* The ring of channel c over p ranks, --ppn G GPUs to a server (docs/GPU.md, rings across
 * servers): order[q] is the rank at position q, each position sending to the next. On one
 * server, or with one GPU per server, the ranks in order. Across N servers NCCL pairs its
 * channels (src/graph/search.cc, crossNic 2: channel 2k + 1 returns to the NIC channel 2k
 * came in by) and swaps the two rings of a pair on odd servers (src/graph/connect.cc,
 * "Alternate rings to avoid crossing rails"), so that the ring leaves a server on the rail
 * the next server is entered on: here pair k takes rails a = 2k mod G and b = a + 1 mod G;
 * an even server of channel 2k (an odd server of channel 2k + 1) is entered at its GPU a
 * and left at its GPU b, the others the other way round, the GPUs between in their order
 * from the entry on. Every crossing is then GPU i to GPU i of the next server, rail i,
 * except the last one back to server 0 when N is odd. */
static void ring_order(uint32_t p, uint32_t G, uint32_t c, uint32_t *order)
{
    const uint32_t N = G > 0 ? p / G : 0;
    if (G < 2 || N < 2 || p % G != 0) {
        for (uint32_t q = 0; q < p; q++)
            order[q] = q;
        return;
    }
    const uint32_t a = (c / 2 * 2) % G, b = (a + 1) % G;
    uint32_t q = 0;
    for (uint32_t m = 0; m < N; m++) {
        const gboolean forward = (m + c) % 2 == 0;
        const uint32_t enter = forward ? a : b, leave = forward ? b : a;
        order[q++] = m * G + enter;
        for (uint32_t j = 1; j < G; j++) {
            const uint32_t i = (enter + j) % G;
            if (i != leave)
                order[q++] = m * G + i;
        }
        order[q++] = m * G + leave;
    }
}

/* --ppn (GPUs per server) for a ring: 1 (the default) or a divisor of --ranks. */
static gboolean ppn_fits(const char *name, const FennelGenOptions *o, GError **error)
{
    if (o->ppn >= 1 && o->ranks % o->ppn == 0)
        return TRUE;
    g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                "%s needs --ranks a multiple of --ppn (GPUs per server), got %u and %u", name,
                o->ranks, o->ppn);
    return FALSE;
}

static FennelProgram *allreduce_nccl_ring(const FennelGenOptions *o, GError **error)
{
    const Protocol *pr = protocol_of(o);
    if (pr == NULL) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                    "nccl-ring: --variant is the protocol: simple, ll or ll128, not '%s'",
                    o->variant);
        return NULL;
    }
    const uint32_t p = o->ranks, C = channels_of(o);
    if (p < 1 || C < 1 || C > 255) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                    "nccl-ring needs --ranks >= 1 and --partitions (channels) 1 to 255, got %u "
                    "and %u",
                    p, C);
        return NULL;
    }
    if (!ppn_fits("nccl-ring", o, error))
        return NULL;
    const uint64_t L = loops_of(o, pr), S = pr->slices;
    const uint64_t units = (uint64_t)C * L * p * S;
    if (units > UINT32_MAX) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                    "nccl-ring: %" G_GUINT64_FORMAT " slices are more than this fennel numbers",
                    units);
        return NULL;
    }
    FennelProgramBuilder *b = fennel_gen_builder(o);
    fennel_builder_set_n_blocks(b, (uint32_t)units);
    /* order[c p + q]: the rank at position q of channel c's ring. last[q C + c]: the last
     * task of that rank's thread block c; sent[...]: the puts it sent in the step before,
     * one per slice, which position q + 1 receives in this one. */
    uint32_t *order = g_new(uint32_t, (size_t)p * C);
    uint32_t *start = g_new(uint32_t, p);
    uint32_t *last = g_new(uint32_t, (size_t)p * C);
    uint32_t *sent = g_new(uint32_t, (size_t)p * C * S);
    uint32_t *sending = g_new(uint32_t, (size_t)p * C * S);
    for (uint32_t r = 0; r < p; r++)
        start[r] = fennel_builder_add(b, FENNEL_TASK_START, r);
    for (uint32_t c = 0; c < C; c++) {
        ring_order(p, o->ppn, c, order + (size_t)c * p);
        for (uint32_t q = 0; q < p; q++)
            last[(size_t)q * C + c] = start[order[(size_t)c * p + q]];
    }
    const uint32_t steps = p > 1 ? 2 * (p - 1) : 0;
    for (uint64_t l = 0; l < L && p > 1; l++) {
        for (uint32_t s = 0; s <= steps; s++) {
            for (uint32_t q = 0; q < p; q++) {
                const uint32_t from = (q + p - 1) % p;
                /* The chunk position q sends in step s (NCCL's runRing), or receives last. */
                const uint32_t chunk = s == steps   ? (q + 1) % p
                                       : s < p - 1  ? (q + 2 * p - s - 1) % p
                                       : s == p - 1 ? q
                                                    : (q + 2 * p - (s - p + 1)) % p;
                for (uint32_t c = 0; c < C; c++) {
                    const uint32_t r = order[(size_t)c * p + q];
                    for (uint32_t k = 0; k < S; k++) {
                        const size_t i = ((size_t)q * C + c) * S + k;
                        const size_t j = ((size_t)from * C + c) * S + k;
                        const uint64_t unit = ((c * L + l) * p + chunk) * S + k;
                        const int64_t bytes =
                            fennel_block_offset(o->size, (uint32_t)units, (uint32_t)unit + 1) -
                            fennel_block_offset(o->size, (uint32_t)units, (uint32_t)unit);
                        uint32_t *chain = &last[(size_t)q * C + c];
                        uint32_t before = *chain;
                        if (s >= 1 && s <= p - 1) {
                            /* receive, reduce: a compute of the slice */
                            uint32_t x = fennel_builder_add(b, FENNEL_TASK_COMPUTE, r);
                            fennel_builder_set_amount(b, x, bytes);
                            fennel_builder_set_flags(b, x, FENNEL_TASK_SIZED);
                            fennel_builder_set_pin(b, x, c);
                            fennel_builder_add_edge(b, before, x);
                            fennel_builder_add_edge(b, sent[j], x);
                            before = x;
                        } else if (s == steps) {
                            /* the last receive: the data is there */
                            uint32_t x = fennel_builder_add(b, FENNEL_TASK_PROXY, r);
                            fennel_builder_set_pin(b, x, c);
                            fennel_builder_add_edge(b, before, x);
                            fennel_builder_add_edge(b, sent[j], x);
                            *chain = x;
                            continue;
                        }
                        uint32_t put = fennel_builder_add(b, FENNEL_TASK_PUT, r);
                        fennel_builder_set_peer(b, put, order[(size_t)c * p + (q + 1) % p]);
                        fennel_builder_set_amount(b, put, wire_bytes(pr, bytes));
                        fennel_builder_set_pin(b, put, c);
                        fennel_builder_set_blocks(b, put, (uint32_t)unit, 1);
                        fennel_builder_add_edge(b, before, put);
                        if (s >= p)
                            fennel_builder_add_edge(b, sent[j], put);
                        sending[i] = put;
                        *chain = put;
                    }
                }
            }
            uint32_t *t = sent;
            sent = sending;
            sending = t;
        }
    }
    g_free(order);
    g_free(start);
    g_free(last);
    g_free(sent);
    g_free(sending);
    return fennel_builder_finish(b, "nccl-ring", p, C, error);
}

const FennelGenerator fennel_gen_nccl_ring = {
    .name = "nccl-ring",
    .summary = "NCCL's ring allreduce step by step: --partitions channels (default 2), "
               "--variant protocol simple, ll or ll128, chunks and slices of NCCL 2.30.7, "
               "rings across servers of --ppn GPUs on matching rails; --ranks a multiple of "
               "--ppn",
    .options = FENNEL_GEN_RANKS | FENNEL_GEN_SIZE | FENNEL_GEN_PARTITIONS | FENNEL_GEN_VARIANT |
               FENNEL_GEN_PPN,
    .collective = "allreduce",
    .generate = allreduce_nccl_ring,
    .min_tasks = min_tasks,
};

/* NCCL's tree allreduce (docs/GPU.md, nccl-tree), from NCCL 2.30.7's src/graph/trees.cc
 * (ncclGetBtree, ncclGetDtree), src/graph/connect.cc (the chain inside a node) and
 * src/device/all_reduce.h (runTreeSplit).
 *
 * Ranks are --ppn GPUs per node, node m holding ranks m ppn .. m ppn + ppn - 1. Inside a
 * node the GPUs form a chain from local GPU h = c / 2 mod ppn on (channel c's NIC: each
 * pair of channels, one on each tree, on a rail of its own, as NCCL's tree graph gives each
 * of its channels a NIC and the GPU next to it first): local GPU h + i's parent is h + i - 1,
 * its child h + i + 1. Between nodes, local GPU h of every node is on a binary tree of the
 * nodes: channel c uses the first tree of NCCL's double binary tree when c is even, the
 * second (mirrored for an even node count, shifted by one for an odd one) when c is odd. A
 * rank's children are its next GPU in the chain and, for the chain's head, the heads of its
 * child nodes.
 *
 * Each channel takes a C-th of the vector in K = ceil(n / (C chunk)) chunks. On every rank
 * but the tree's root a channel has two thread blocks (slots 2c and 2c + 1), as
 * runTreeSplit splits its threads: the first reduces chunk after chunk up the tree (a
 * leaf puts its chunk to its parent; an inner rank waits for its children's puts, reduces
 * them with its own data in a sized compute, and puts the sum to its parent), the second
 * sends the result down (it waits for the parent's put of the chunk, a proxy, and puts it
 * to its children). The root's one thread block (slot 2c) reduces each chunk and puts it
 * to its children. Each thread block does its chunks in order. */

/* ncclGetBtree: parent and children of `rank` in NCCL's binary tree of n ranks rooted at
 * 0; -1 for none. */
static void nccl_btree(int n, int rank, int *up, int *d0, int *d1)
{
    int bit;
    for (bit = 1; bit < n; bit <<= 1) {
        if (bit & rank)
            break;
    }
    if (rank == 0) {
        *up = -1;
        *d0 = -1;
        *d1 = n > 1 ? bit >> 1 : -1;
        return;
    }
    int u = (rank ^ bit) | (bit << 1);
    if (u >= n)
        u = rank ^ bit;
    *up = u;
    int lowbit = bit >> 1;
    *d0 = lowbit == 0 ? -1 : rank - lowbit;
    int down1 = lowbit == 0 ? -1 : rank + lowbit;
    while (down1 >= n) {
        down1 = lowbit == 0 ? -1 : rank + lowbit;
        lowbit >>= 1;
    }
    *d1 = down1;
}

/* ncclGetDtree: tree t (0 or 1) of NCCL's double binary tree; the second tree is the
 * first mirrored (n even) or shifted by one rank (n odd). */
static void nccl_dtree(int n, int rank, int t, int *up, int *d0, int *d1)
{
    if (t == 0) {
        nccl_btree(n, rank, up, d0, d1);
        return;
    }
    int u, a, c;
    if (n % 2 == 1) {
        nccl_btree(n, (rank - 1 + n) % n, &u, &a, &c);
        *up = u == -1 ? -1 : (u + 1) % n;
        *d0 = a == -1 ? -1 : (a + 1) % n;
        *d1 = c == -1 ? -1 : (c + 1) % n;
    } else {
        nccl_btree(n, n - 1 - rank, &u, &a, &c);
        *up = u == -1 ? -1 : n - 1 - u;
        *d0 = a == -1 ? -1 : n - 1 - a;
        *d1 = c == -1 ? -1 : n - 1 - c;
    }
}

typedef struct {
    int up;           /* the parent rank, -1 at the root */
    uint32_t n_down;  /* children */
    uint32_t down[3]; /* the next GPU in the chain, then child nodes' first GPUs */
} TreeLinks;

/* Rank r's links in tree t, ppn GPUs per node, the chains starting at local GPU `head`:
 * the chain of node m is its GPUs head, head + 1, ... (mod ppn), and the nodes meet
 * through their GPUs `head`, all on one rail. */
static TreeLinks tree_links(uint32_t r, uint32_t ppn, uint32_t nodes, int t, uint32_t head)
{
    const uint32_t m = r / ppn, i = (r % ppn + ppn - head) % ppn;
    TreeLinks l = {.up = -1};
    if (i + 1 < ppn)
        l.down[l.n_down++] = m * ppn + (head + i + 1) % ppn;
    if (i > 0) {
        l.up = (int)(m * ppn + (head + i - 1) % ppn);
        return l;
    }
    int up, d0, d1;
    nccl_dtree((int)nodes, (int)m, t, &up, &d0, &d1);
    l.up = up < 0 ? -1 : up * (int)ppn + (int)head;
    if (d0 >= 0)
        l.down[l.n_down++] = (uint32_t)d0 * ppn + head;
    if (d1 >= 0)
        l.down[l.n_down++] = (uint32_t)d1 * ppn + head;
    return l;
}

/* Chunks per channel of nccl-tree: ceil(n / (C chunk)), at least 1. */
static uint64_t tree_chunks(const FennelGenOptions *o, const Protocol *pr)
{
    uint64_t per = (uint64_t)o->partitions * (uint64_t)pr->tree_chunk;
    uint64_t n = o->size > 0 ? (uint64_t)o->size : 0;
    return MAX((n + per - 1) / per, 1u);
}

/* A lower bound of nccl-tree's tasks: 2(p - 1) puts per chunk and channel. */
static uint64_t tree_min_tasks(const FennelGenOptions *o)
{
    const Protocol *pr = protocol_of(o);
    if (pr == NULL || o->ranks < 2)
        return 0;
    uint64_t t = 2ull * (o->ranks - 1), r;
    uint64_t factors[] = {o->partitions, tree_chunks(o, pr)};
    for (size_t i = 0; i < G_N_ELEMENTS(factors); i++) {
        if (__builtin_mul_overflow(t, factors[i], &r))
            return UINT64_MAX;
        t = r;
    }
    return t;
}

static uint32_t tree_put(FennelProgramBuilder *b, const FennelGenOptions *o, const Protocol *pr,
                         uint32_t units, uint32_t r, uint32_t to, uint32_t slot, uint32_t unit,
                         uint32_t after)
{
    const int64_t bytes =
        fennel_block_offset(o->size, units, unit + 1) - fennel_block_offset(o->size, units, unit);
    uint32_t put = fennel_builder_add(b, FENNEL_TASK_PUT, r);
    fennel_builder_set_peer(b, put, to);
    fennel_builder_set_amount(b, put, wire_bytes(pr, bytes));
    fennel_builder_set_pin(b, put, slot);
    fennel_builder_set_blocks(b, put, unit, 1);
    fennel_builder_add_edge(b, after, put);
    return put;
}

static FennelProgram *allreduce_nccl_tree(const FennelGenOptions *o, GError **error)
{
    const Protocol *pr = protocol_of(o);
    if (pr == NULL) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                    "nccl-tree: --variant is the protocol: simple, ll or ll128, not '%s'",
                    o->variant);
        return NULL;
    }
    const uint32_t p = o->ranks, C = o->partitions, ppn = o->ppn;
    if (p < 1 || ppn < 1 || p % ppn != 0 || C < 1 || C > 127) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                    "nccl-tree needs --ranks a multiple of --ppn (GPUs per node) and "
                    "--partitions (channels) 1 to 127, got %u, %u and %u",
                    p, ppn, C);
        return NULL;
    }
    const uint32_t nodes = p / ppn;
    const uint64_t K = tree_chunks(o, pr), units64 = (uint64_t)C * K;
    if (units64 > UINT32_MAX) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                    "nccl-tree: %" G_GUINT64_FORMAT " chunks are more than this fennel numbers",
                    units64);
        return NULL;
    }
    const uint32_t units = (uint32_t)units64;
    FennelProgramBuilder *b = fennel_gen_builder(o);
    fennel_builder_set_n_blocks(b, units);
    /* upc[r], downc[r]: the last task of rank r's reducing and broadcasting thread blocks
     * in the channel; upput[r], downput[r]: the put rank r made of the current chunk. */
    uint32_t *start = g_new(uint32_t, p);
    uint32_t *upc = g_new(uint32_t, p), *downc = g_new(uint32_t, p);
    uint32_t *upput = g_new(uint32_t, p);
    uint32_t *downput = g_new(uint32_t, (size_t)p * 3);
    uint32_t *order = g_new(uint32_t, p);
    TreeLinks *links = g_new(TreeLinks, p);
    for (uint32_t r = 0; r < p; r++)
        start[r] = fennel_builder_add(b, FENNEL_TASK_START, r);
    for (uint32_t c = 0; c < C && p > 1; c++) {
        /* The ranks leaves first (up) and root first (down): a breadth-first order from
         * the root, read backwards for the way up. */
        uint32_t root = 0, n_order = 0;
        for (uint32_t r = 0; r < p; r++) {
            links[r] = tree_links(r, ppn, nodes, (int)(c % 2), c / 2 % ppn);
            if (links[r].up < 0)
                root = r;
            upc[r] = downc[r] = start[r];
        }
        order[n_order++] = root;
        for (uint32_t k = 0; k < n_order; k++) {
            for (uint32_t d = 0; d < links[order[k]].n_down; d++)
                order[n_order++] = links[order[k]].down[d];
        }
        for (uint64_t k = 0; k < K; k++) {
            const uint32_t unit = (uint32_t)(c * K + k);
            const int64_t bytes = fennel_block_offset(o->size, units, unit + 1) -
                                  fennel_block_offset(o->size, units, unit);
            for (uint32_t q = p; q-- > 0;) {
                const uint32_t r = order[q];
                const TreeLinks *l = &links[r];
                uint32_t before = upc[r];
                if (l->n_down > 0) {
                    /* receive from the children, reduce: a compute of their bytes */
                    uint32_t x = fennel_builder_add(b, FENNEL_TASK_COMPUTE, r);
                    fennel_builder_set_amount(b, x, bytes * l->n_down);
                    fennel_builder_set_flags(b, x, FENNEL_TASK_SIZED);
                    fennel_builder_set_pin(b, x, 2 * c);
                    fennel_builder_add_edge(b, before, x);
                    for (uint32_t d = 0; d < l->n_down; d++)
                        fennel_builder_add_edge(b, upput[l->down[d]], x);
                    before = x;
                }
                if (l->up >= 0) {
                    upput[r] = tree_put(b, o, pr, units, r, (uint32_t)l->up, 2 * c, unit, before);
                    upc[r] = upput[r];
                } else {
                    /* the root: the sum goes down from the same thread block */
                    for (uint32_t d = 0; d < l->n_down; d++)
                        downput[(size_t)r * 3 + d] =
                            tree_put(b, o, pr, units, r, l->down[d], 2 * c, unit, before);
                    upc[r] = before;
                    if (l->n_down > 0) {
                        /* the block's next chunk waits for all its puts; the chunk's
                         * result stays on the rank */
                        uint32_t x = fennel_builder_add(b, FENNEL_TASK_PROXY, r);
                        fennel_builder_set_pin(b, x, 2 * c);
                        for (uint32_t d = 0; d < l->n_down; d++)
                            fennel_builder_add_edge(b, downput[(size_t)r * 3 + d], x);
                        upc[r] = x;
                    }
                }
            }
            for (uint32_t q = 1; q < p; q++) {
                const uint32_t r = order[q];
                const TreeLinks *l = &links[r];
                const TreeLinks *pl = &links[l->up];
                uint32_t d_of_r = 0;
                while (d_of_r + 1 < pl->n_down && pl->down[d_of_r] != r)
                    d_of_r++;
                /* the result arrives from the parent */
                uint32_t x = fennel_builder_add(b, FENNEL_TASK_PROXY, r);
                fennel_builder_set_pin(b, x, 2 * c + 1);
                fennel_builder_add_edge(b, downc[r], x);
                fennel_builder_add_edge(b, downput[(size_t)l->up * 3 + d_of_r], x);
                downc[r] = x;
                for (uint32_t d = 0; d < l->n_down; d++)
                    downput[(size_t)r * 3 + d] =
                        tree_put(b, o, pr, units, r, l->down[d], 2 * c + 1, unit, x);
                if (l->n_down > 0) {
                    uint32_t y = fennel_builder_add(b, FENNEL_TASK_PROXY, r);
                    fennel_builder_set_pin(b, y, 2 * c + 1);
                    for (uint32_t d = 0; d < l->n_down; d++)
                        fennel_builder_add_edge(b, downput[(size_t)r * 3 + d], y);
                    downc[r] = y;
                }
            }
        }
    }
    g_free(start);
    g_free(upc);
    g_free(downc);
    g_free(upput);
    g_free(downput);
    g_free(order);
    g_free(links);
    return fennel_builder_finish(b, "nccl-tree", p, 2 * C, error);
}

const FennelGenerator fennel_gen_nccl_tree = {
    .name = "nccl-tree",
    .summary = "NCCL's tree allreduce step by step: a chain in each node of --ppn GPUs, "
               "NCCL's double binary tree between nodes, --partitions channels (default 2), "
               "--variant protocol simple, ll or ll128; --ranks a multiple of --ppn",
    .options = FENNEL_GEN_RANKS | FENNEL_GEN_SIZE | FENNEL_GEN_PARTITIONS | FENNEL_GEN_VARIANT |
               FENNEL_GEN_PPN,
    .collective = "allreduce",
    .generate = allreduce_nccl_tree,
    .min_tasks = tree_min_tasks,
};

/* NCCL's rings for the other collectives (docs/GPU.md, nccl-ring-allgather ...), from
 * NCCL 2.30.7's src/device/all_gather.h, reduce_scatter.h, broadcast.h and reduce.h (runRing)
 * and src/include/collectives.h (their chunk and slice steps). Every channel c has its ring
 * (ring_order) and a thread block on every rank (slot c).
 *
 * Allgather and reduce-scatter: rank r's block (--size bytes of an allgather; a p-th of
 * --size of a reduce-scatter) is cut into C parts, one per channel, each processed in L =
 * ceil(block / (C chunk)) loops of one chunk per rank in S slices (the allreduce's chunks
 * and slices: ALLGATHER_CHUNKSTEPS and REDUCESCATTER_CHUNKSTEPS are ALLREDUCE_CHUNKSTEPS). In
 * a loop, position q's thread block sends, step s = 0 .. p - 2, the chunk of position q - s
 * (allgather: its own first, then those it received) or q - s - 1 (reduce-scatter: the
 * partial sum it received, reduced with its own data) to position q + 1, and in step p - 1
 * receives its last one (the allgather's chunk of q + 1; the reduce-scatter's own chunk,
 * which it reduces into its result): p - 1 puts per slice. Block units: rank r owns units
 * r U .. r U + U - 1, U = C L S, so that `fennel verify` follows each slice. */

static uint64_t pass_loops(const FennelGenOptions *o, const Protocol *pr, gboolean reduce)
{
    uint64_t n = o->size > 0 ? (uint64_t)o->size : 0;
    uint64_t block = reduce ? (n + o->ranks - 1) / MAX(o->ranks, 1u) : n;
    uint64_t per_loop = (uint64_t)o->partitions * (uint64_t)pr->chunk;
    return MAX((block + per_loop - 1) / per_loop, 1u);
}

static uint64_t pass_min_tasks(const FennelGenOptions *o, gboolean reduce)
{
    const Protocol *pr = protocol_of(o);
    if (pr == NULL || o->ranks < 2)
        return 0;
    uint64_t t = (uint64_t)o->ranks * (o->ranks - 1), r;
    uint64_t factors[] = {o->partitions, pass_loops(o, pr, reduce), pr->slices};
    for (size_t i = 0; i < G_N_ELEMENTS(factors); i++) {
        if (__builtin_mul_overflow(t, factors[i], &r))
            return UINT64_MAX;
        t = r;
    }
    return t;
}

static uint64_t allgather_min_tasks(const FennelGenOptions *o)
{
    return pass_min_tasks(o, FALSE);
}

static uint64_t reduce_scatter_min_tasks(const FennelGenOptions *o)
{
    return pass_min_tasks(o, TRUE);
}

/* Checks a ring's protocol, channels and --ppn; NULL after an error. */
static const Protocol *ring_checks(const char *name, const FennelGenOptions *o, GError **error)
{
    const Protocol *pr = protocol_of(o);
    if (pr == NULL) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                    "%s: --variant is the protocol: simple, ll or ll128, not '%s'", name,
                    o->variant);
        return NULL;
    }
    if (o->ranks < 1 || o->partitions < 1 || o->partitions > 255) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                    "%s needs --ranks >= 1 and --partitions (channels) 1 to 255, got %u and %u",
                    name, o->ranks, o->partitions);
        return NULL;
    }
    return ppn_fits(name, o, error) ? pr : NULL;
}

static FennelProgram *nccl_ring_pass(const FennelGenOptions *o, const char *name, gboolean reduce,
                                     GError **error)
{
    const Protocol *pr = ring_checks(name, o, error);
    if (pr == NULL)
        return NULL;
    const uint32_t p = o->ranks, C = o->partitions;
    const uint64_t L = pass_loops(o, pr, reduce), S = pr->slices, U = C * L * S;
    if (U * p > UINT32_MAX) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                    "%s: %" G_GUINT64_FORMAT " slices are more than this fennel numbers", name,
                    U * p);
        return NULL;
    }
    FennelProgramBuilder *b = fennel_gen_builder(o);
    fennel_builder_set_n_blocks(b, (uint32_t)(U * p));
    /* as in allreduce_nccl_ring: by position q and channel c */
    uint32_t *order = g_new(uint32_t, (size_t)p * C);
    uint32_t *start = g_new(uint32_t, p);
    uint32_t *last = g_new(uint32_t, (size_t)p * C);
    uint32_t *sent = g_new(uint32_t, (size_t)p * C * S);
    uint32_t *sending = g_new(uint32_t, (size_t)p * C * S);
    for (uint32_t r = 0; r < p; r++)
        start[r] = fennel_builder_add(b, FENNEL_TASK_START, r);
    for (uint32_t c = 0; c < C; c++) {
        ring_order(p, o->ppn, c, order + (size_t)c * p);
        for (uint32_t q = 0; q < p; q++)
            last[(size_t)q * C + c] = start[order[(size_t)c * p + q]];
    }
    for (uint64_t l = 0; l < L && p > 1; l++) {
        for (uint32_t s = 0; s < p; s++) {
            for (uint32_t q = 0; q < p; q++) {
                const uint32_t from = (q + p - 1) % p;
                const uint32_t chunk = (q + 2 * p - s - (reduce ? 1 : 0)) % p;
                for (uint32_t c = 0; c < C; c++) {
                    const uint32_t r = order[(size_t)c * p + q];
                    const uint32_t owner = order[(size_t)c * p + chunk];
                    for (uint32_t k = 0; k < S; k++) {
                        const size_t i = ((size_t)q * C + c) * S + k;
                        const size_t j = ((size_t)from * C + c) * S + k;
                        const uint64_t inside = (c * L + l) * S + k, unit = owner * U + inside;
                        const int64_t bytes =
                            reduce
                                ? fennel_block_offset(o->size, (uint32_t)(U * p),
                                                      (uint32_t)unit + 1) -
                                      fennel_block_offset(o->size, (uint32_t)(U * p),
                                                          (uint32_t)unit)
                                : fennel_block_offset(o->size, (uint32_t)U, (uint32_t)inside + 1) -
                                      fennel_block_offset(o->size, (uint32_t)U, (uint32_t)inside);
                        uint32_t *chain = &last[(size_t)q * C + c];
                        uint32_t before = *chain;
                        if (s >= 1 && reduce) {
                            /* receive, reduce: a compute of the slice */
                            uint32_t x = fennel_builder_add(b, FENNEL_TASK_COMPUTE, r);
                            fennel_builder_set_amount(b, x, bytes);
                            fennel_builder_set_flags(b, x, FENNEL_TASK_SIZED);
                            fennel_builder_set_pin(b, x, c);
                            fennel_builder_add_edge(b, before, x);
                            fennel_builder_add_edge(b, sent[j], x);
                            before = x;
                        } else if (s == p - 1) {
                            /* the allgather's last receive: the data is there */
                            uint32_t x = fennel_builder_add(b, FENNEL_TASK_PROXY, r);
                            fennel_builder_set_pin(b, x, c);
                            fennel_builder_add_edge(b, before, x);
                            fennel_builder_add_edge(b, sent[j], x);
                            before = x;
                        }
                        if (s == p - 1) {
                            *chain = before;
                            continue;
                        }
                        uint32_t put = fennel_builder_add(b, FENNEL_TASK_PUT, r);
                        fennel_builder_set_peer(b, put, order[(size_t)c * p + (q + 1) % p]);
                        fennel_builder_set_amount(b, put, wire_bytes(pr, bytes));
                        fennel_builder_set_pin(b, put, c);
                        fennel_builder_set_blocks(b, put, (uint32_t)unit, 1);
                        fennel_builder_add_edge(b, before, put);
                        if (s >= 1 && !reduce)
                            fennel_builder_add_edge(b, sent[j], put);
                        sending[i] = put;
                        *chain = put;
                    }
                }
            }
            uint32_t *t = sent;
            sent = sending;
            sending = t;
        }
    }
    g_free(order);
    g_free(start);
    g_free(last);
    g_free(sent);
    g_free(sending);
    return fennel_builder_finish(b, name, p, C, error);
}

static FennelProgram *allgather_nccl_ring(const FennelGenOptions *o, GError **error)
{
    return nccl_ring_pass(o, "nccl-ring-allgather", FALSE, error);
}

static FennelProgram *reduce_scatter_nccl_ring(const FennelGenOptions *o, GError **error)
{
    return nccl_ring_pass(o, "nccl-ring-reduce-scatter", TRUE, error);
}

const FennelGenerator fennel_gen_nccl_ring_allgather = {
    .name = "nccl-ring-allgather",
    .summary = "NCCL's ring allgather step by step: --size per rank, --partitions channels "
               "(default 2), --variant protocol simple, ll or ll128, rings across servers of "
               "--ppn GPUs on matching rails; --ranks a multiple of --ppn",
    .options = FENNEL_GEN_RANKS | FENNEL_GEN_SIZE | FENNEL_GEN_PARTITIONS | FENNEL_GEN_VARIANT |
               FENNEL_GEN_PPN,
    .collective = "allgather",
    .generate = allgather_nccl_ring,
    .min_tasks = allgather_min_tasks,
};

const FennelGenerator fennel_gen_nccl_ring_reduce_scatter = {
    .name = "nccl-ring-reduce-scatter",
    .summary = "NCCL's ring reduce-scatter step by step: rank i ends with block i of --size, "
               "--partitions channels (default 2), --variant protocol simple, ll or ll128, "
               "rings across servers of --ppn GPUs on matching rails; --ranks a multiple of "
               "--ppn",
    .options = FENNEL_GEN_RANKS | FENNEL_GEN_SIZE | FENNEL_GEN_PARTITIONS | FENNEL_GEN_VARIANT |
               FENNEL_GEN_PPN,
    .collective = "reduce-scatter",
    .generate = reduce_scatter_nccl_ring,
    .min_tasks = reduce_scatter_min_tasks,
};

/* Broadcast and reduce: a chain along channel c's ring, from --root on (broadcast: the root
 * sends, each next rank receives and sends on, the one before the root only receives) or
 * to it (reduce: the rank after the root sends, each next rank receives, reduces and sends
 * on, the root receives and reduces). Each channel takes a C-th of the vector in K =
 * ceil(n / (C chunk)) chunks of one slice, a chunk one buffer step (BROADCAST_CHUNKSTEPS
 * and REDUCE_CHUNKSTEPS are 1: 512 KiB for Simple, the tree's chunks for LL and LL128), and
 * the chain pipelines them: a rank's thread block moves chunk after chunk. */

static uint64_t chain_chunks(const FennelGenOptions *o, const Protocol *pr)
{
    uint64_t per = (uint64_t)o->partitions * (uint64_t)pr->tree_chunk;
    uint64_t n = o->size > 0 ? (uint64_t)o->size : 0;
    return MAX((n + per - 1) / per, 1u);
}

static uint64_t chain_min_tasks(const FennelGenOptions *o)
{
    const Protocol *pr = protocol_of(o);
    if (pr == NULL || o->ranks < 2)
        return 0;
    uint64_t t = o->ranks - 1ull, r;
    uint64_t factors[] = {o->partitions, chain_chunks(o, pr)};
    for (size_t i = 0; i < G_N_ELEMENTS(factors); i++) {
        if (__builtin_mul_overflow(t, factors[i], &r))
            return UINT64_MAX;
        t = r;
    }
    return t;
}

static FennelProgram *nccl_ring_chain(const FennelGenOptions *o, const char *name, gboolean reduce,
                                      GError **error)
{
    const Protocol *pr = ring_checks(name, o, error);
    if (pr == NULL)
        return NULL;
    const uint32_t p = o->ranks, C = o->partitions;
    if (o->root >= p) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT, "%s needs --root in 0..%u", name,
                    p - 1);
        return NULL;
    }
    const uint64_t K = chain_chunks(o, pr), units = C * K;
    if (units > UINT32_MAX) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                    "%s: %" G_GUINT64_FORMAT " chunks are more than this fennel numbers", name,
                    units);
        return NULL;
    }
    FennelProgramBuilder *b = fennel_gen_builder(o);
    fennel_builder_set_n_blocks(b, (uint32_t)units);
    uint32_t *start = g_new(uint32_t, p);
    uint32_t *order = g_new(uint32_t, p);
    uint32_t *chain = g_new(uint32_t, p);
    uint32_t *last = g_new(uint32_t, p);
    for (uint32_t r = 0; r < p; r++)
        start[r] = fennel_builder_add(b, FENNEL_TASK_START, r);
    for (uint32_t c = 0; c < C && p > 1; c++) {
        ring_order(p, o->ppn, c, order);
        uint32_t root_at = 0;
        while (order[root_at] != o->root)
            root_at++;
        /* chain[i]: the i-th rank the data passes, from the root (broadcast) or from the
         * rank after it, ending at the root (reduce) */
        for (uint32_t i = 0; i < p; i++) {
            chain[i] = order[(root_at + i + (reduce ? 1 : 0)) % p];
            last[i] = start[chain[i]];
        }
        for (uint64_t k = 0; k < K; k++) {
            const uint32_t unit = (uint32_t)(c * K + k);
            const int64_t bytes = fennel_block_offset(o->size, (uint32_t)units, unit + 1) -
                                  fennel_block_offset(o->size, (uint32_t)units, unit);
            uint32_t put = 0;
            for (uint32_t i = 0; i < p; i++) {
                const uint32_t r = chain[i];
                uint32_t before = last[i];
                if (i > 0) {
                    /* receive: reduce (a compute of the chunk) or take it (a proxy) */
                    uint32_t x =
                        fennel_builder_add(b, reduce ? FENNEL_TASK_COMPUTE : FENNEL_TASK_PROXY, r);
                    if (reduce) {
                        fennel_builder_set_amount(b, x, bytes);
                        fennel_builder_set_flags(b, x, FENNEL_TASK_SIZED);
                    }
                    fennel_builder_set_pin(b, x, c);
                    fennel_builder_add_edge(b, before, x);
                    fennel_builder_add_edge(b, put, x);
                    before = x;
                }
                if (i + 1 < p) {
                    put = fennel_builder_add(b, FENNEL_TASK_PUT, r);
                    fennel_builder_set_peer(b, put, chain[i + 1]);
                    fennel_builder_set_amount(b, put, wire_bytes(pr, bytes));
                    fennel_builder_set_pin(b, put, c);
                    fennel_builder_set_blocks(b, put, unit, 1);
                    fennel_builder_add_edge(b, before, put);
                    before = put;
                }
                last[i] = before;
            }
        }
        /* A broadcast's rank that passes the data on has it too: its thread block ends on
         * the data received (a proxy after its last put), not on the put. */
        for (uint32_t i = 1; i + 1 < p && !reduce; i++) {
            uint32_t x = fennel_builder_add(b, FENNEL_TASK_PROXY, chain[i]);
            fennel_builder_set_pin(b, x, c);
            fennel_builder_add_edge(b, last[i], x);
        }
    }
    g_free(start);
    g_free(order);
    g_free(chain);
    g_free(last);
    return fennel_builder_finish(b, name, p, C, error);
}

static FennelProgram *bcast_nccl_ring(const FennelGenOptions *o, GError **error)
{
    return nccl_ring_chain(o, "nccl-ring-bcast", FALSE, error);
}

static FennelProgram *reduce_nccl_ring(const FennelGenOptions *o, GError **error)
{
    return nccl_ring_chain(o, "nccl-ring-reduce", TRUE, error);
}

const FennelGenerator fennel_gen_nccl_ring_bcast = {
    .name = "nccl-ring-bcast",
    .summary = "NCCL's ring broadcast step by step: a chain from --root along each channel's "
               "ring, pipelined over chunks; --partitions channels (default 2), --variant "
               "protocol simple, ll or ll128, rings across servers of --ppn GPUs",
    .options = FENNEL_GEN_RANKS | FENNEL_GEN_SIZE | FENNEL_GEN_ROOT | FENNEL_GEN_PARTITIONS |
               FENNEL_GEN_VARIANT | FENNEL_GEN_PPN,
    .collective = "bcast",
    .generate = bcast_nccl_ring,
    .min_tasks = chain_min_tasks,
};

const FennelGenerator fennel_gen_nccl_ring_reduce = {
    .name = "nccl-ring-reduce",
    .summary = "NCCL's ring reduce step by step: a chain to --root along each channel's ring, "
               "pipelined over chunks; --partitions channels (default 2), --variant protocol "
               "simple, ll or ll128, rings across servers of --ppn GPUs",
    .options = FENNEL_GEN_RANKS | FENNEL_GEN_SIZE | FENNEL_GEN_ROOT | FENNEL_GEN_PARTITIONS |
               FENNEL_GEN_VARIANT | FENNEL_GEN_PPN,
    .collective = "reduce",
    .generate = reduce_nccl_ring,
    .min_tasks = chain_min_tasks,
};
