/* NCCL's algorithms, simulated step by step (docs/GPU.md): its rings for the allreduce,
 * allgather, reduce-scatter, broadcast and reduce, and its tree allreduce. The figures are
 * those of NCCL 2.30.7's source (src/include/device.h, src/include/collectives.h,
 * src/init.cc, src/enqueue.cc, src/device/all_reduce.h and its neighbours).
 *
 * Protocols (--variant): simple (NCCL_STEPS 8, a 4 MiB buffer: steps of 512 KiB, chunks of
 * ALLREDUCE_CHUNKSTEPS 4 steps = 2 MiB in ALLREDUCE_CHUNKSTEPS / ALLREDUCE_SLICESTEPS = 2
 * slices; the wire carries the data), ll (a buffer of 8 lines x 512 threads x 8 steps x
 * 16 B: steps of 64 KiB of lines, chunks of half that, 32 KiB of data, in one slice; each
 * 16-byte line carries 8 bytes of data, so the wire carries twice the data), ll128 (120
 * elements x 640 threads x 8 steps x 8 B: steps of 600 KiB of lines, chunks of 15/16 of
 * that, 576000 B of data, in one slice; each 128-byte line carries 120 bytes of data). Not
 * modelled: the FIFO's NCCL_STEPS slots (a sender never waits for room at the receiver),
 * NCCL's exact partition across channels and its smaller last loop. NCCL's latencies are
 * added as below (base_ns, wait_hop_latency). */
#include "blocks.h"
#include "errors.h"
#include "generator.h"

#include <string.h>

typedef struct {
    const char *name;
    int64_t chunk; /* data bytes per chunk of a ring's loop */
    uint32_t slices;
    int64_t wire_num, wire_den; /* wire bytes per data byte */
    int64_t tree_chunk;         /* data bytes per chunk of a tree or chain: one step */
    int latency;                /* the protocol's column in NCCL's latency tables */
} Protocol;

static const Protocol protocols[] = {
    {"simple", 4194304 / 8 * 4, 2, 1, 1, 4194304 / 8, 2},
    {"ll", 8 * 512 * 8 * 16 / 8 / 2, 1, 2, 1, 8 * 512 * 8 * 16 / 8 / 2, 0},
    {"ll128", 120 * 640 * 8 * 8 / 8 / 16 * 15, 1, 16, 15, 120 * 640 * 8 * 8 / 8 / 16 * 15, 1},
};

/* NCCL's latencies (docs/GPU.md, Latencies), ns, from NCCL 2.30.7's src/graph/tuning.cc, by
 * algorithm (its tree, its ring) and protocol (LL, LL128, Simple): baseLatencies, which
 * every rank waits once before the collective (its start's skew), and hwLatencies, a
 * step's latency over NVLink and over the network. The model's route already gives a put
 * a latency, which the presets take as the ring LL's (the lowest); the first chunk's puts
 * wait the rest, their protocol's and algorithm's per-hop latency minus the ring LL's (a
 * ring's, the mean of that over its hops). */
enum { ALGO_TREE, ALGO_RING };
static const int64_t base_ns[2][3] = {{6800, 14000, 8400}, {6600, 14000, 8400}};
static const int64_t nvlink_ns[2][3] = {{600, 1250, 4000}, {600, 1900, 3400}};
static const int64_t net_ns[2][3] = {{5000, 8500, 14000}, {2700, 4000, 14000}};

/* Sets every rank's start (start[r]) to wait NCCL's base latency of the algorithm. */
static void wait_base_latency(FennelProgramBuilder *b, const Protocol *pr, int algo,
                              const uint32_t *start, uint32_t p)
{
    for (uint32_t r = 0; r < p; r++)
        fennel_builder_set_amount(b, start[r], base_ns[algo][pr->latency] * 1000);
}

/* Whether a put from r to `to` crosses servers: r and `to` are in different groups of --ppn
 * ranks. */
static gboolean crosses(const FennelGenOptions *o, uint32_t r, uint32_t to)
{
    return r / o->ppn != to / o->ppn;
}

/* A hop's latency beyond the route's (docs/GPU.md, Latencies), ps. */
static int64_t hop_rest_ps(const Protocol *pr, int algo, gboolean across)
{
    const int64_t(*hw)[3] = across ? net_ns : nvlink_ns;
    return (hw[algo][pr->latency] - hw[ALGO_RING][0]) * 1000;
}

/* NCCL's network overhead per step, ns, by protocol: getNetOverhead of an Intel x86 CPU,
 * 1 us, three times for Simple (src/graph/tuning.cc). NCCL's model makes a ring
 * allreduce's, allgather's or reduce-scatter's hop inside a server take at least that when
 * the ring spans servers (intraLat = max(intraLat, netOverhead)). */
static const int64_t net_overhead_ns[3] = {1000, 1000, 3000};

/* A ring hop's latency beyond the route's, ps, on a ring that spans servers or not. */
static int64_t ring_hop_rest_ps(const Protocol *pr, gboolean across, gboolean spans)
{
    if (across || !spans)
        return hop_rest_ps(pr, ALGO_RING, across);
    const int64_t ns = MAX(nvlink_ns[ALGO_RING][pr->latency], net_overhead_ns[pr->latency]);
    return (ns - nvlink_ns[ALGO_RING][0]) * 1000;
}

/* The task a first-chunk put of rank r on thread block `slot` follows: `after`, or a sleep
 * of `ps` after `after` and, when it is not NO_TASK, `data` (what the put sends on). */
#define NO_TASK UINT32_MAX
static uint32_t wait_latency(FennelProgramBuilder *b, int64_t ps, uint32_t r, uint32_t slot,
                             uint32_t after, uint32_t data)
{
    if (ps <= 0)
        return after;
    uint32_t x = fennel_builder_add(b, FENNEL_TASK_SLEEP, r);
    fennel_builder_set_amount(b, x, ps);
    fennel_builder_set_pin(b, x, slot);
    fennel_builder_add_edge(b, after, x);
    if (data != NO_TASK)
        fennel_builder_add_edge(b, data, x);
    return x;
}

/* --variant's protocol, Simple by default; NULL, with an error naming `name`, for another. */
static const Protocol *protocol_of(const char *name, const FennelGenOptions *o, GError **error)
{
    if (!(o->given & FENNEL_GEN_VARIANT))
        return &protocols[0];
    for (size_t i = 0; i < G_N_ELEMENTS(protocols); i++) {
        if (strcmp(o->variant, protocols[i].name) == 0)
            return &protocols[i];
    }
    g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                "%s: --variant is the protocol: simple, ll or ll128, not '%s'", name, o->variant);
    return NULL;
}

/* The bytes on the wire for `bytes` of data. */
static int64_t wire_bytes(const Protocol *pr, int64_t bytes)
{
    return bytes / pr->wire_den * pr->wire_num + bytes % pr->wire_den * pr->wire_num / pr->wire_den;
}

/* ceil(bytes / per), at least 1: the loops or chunks of a channel. --partitions is the
 * channel count; its default (2) is every generator's, so that a sweep's partitions column
 * names the channels a run used. */
static uint64_t pieces(uint64_t bytes, uint64_t per)
{
    return MAX((bytes + per - 1) / per, 1u);
}

static uint64_t size_of(const FennelGenOptions *o)
{
    return o->size > 0 ? (uint64_t)o->size : 0;
}

/* first x factors[0] x ... without overflow: UINT64_MAX when it does not fit. */
static uint64_t product(uint64_t first, const uint64_t *factors, size_t n)
{
    uint64_t t = first;
    for (size_t i = 0; i < n; i++) {
        if (__builtin_mul_overflow(t, factors[i], &t))
            return UINT64_MAX;
    }
    return t;
}

/* A put of block `unit` (`bytes` of data) from r to `to` on thread block `slot`, after
 * task `after`. */
static uint32_t put_unit(FennelProgramBuilder *b, const Protocol *pr, uint32_t r, uint32_t to,
                         uint32_t slot, uint32_t unit, int64_t bytes, uint32_t after)
{
    uint32_t put = fennel_builder_add(b, FENNEL_TASK_PUT, r);
    fennel_builder_set_peer(b, put, to);
    fennel_builder_set_amount(b, put, wire_bytes(pr, bytes));
    fennel_builder_set_pin(b, put, slot);
    fennel_builder_set_blocks(b, put, unit, 1);
    fennel_builder_add_edge(b, after, put);
    return put;
}

/* Thread block `slot` of rank r receives what `from` sent, after its task `after`: reduces
 * `bytes` (a sized compute) or only takes the data (a proxy). */
static uint32_t receive(FennelProgramBuilder *b, gboolean reduce, uint32_t r, uint32_t slot,
                        int64_t bytes, uint32_t after, uint32_t from)
{
    uint32_t x = fennel_builder_add(b, reduce ? FENNEL_TASK_COMPUTE : FENNEL_TASK_PROXY, r);
    if (reduce) {
        fennel_builder_set_amount(b, x, bytes);
        fennel_builder_set_flags(b, x, FENNEL_TASK_SIZED);
    }
    fennel_builder_set_pin(b, x, slot);
    fennel_builder_add_edge(b, after, x);
    fennel_builder_add_edge(b, from, x);
    return x;
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
 * except the last one back to server 0 when N is odd.
 *
 * On servers of `nics` NICs fewer than the G GPUs (NIC j next to GPUs j G / nics to
 * (j + 1) G / nics - 1, models/topology.h's rails; 0: one per GPU) NCCL 2.30.7's ring graph
 * is the first one its search finds, crossNic 0 (search.cc, ncclTopoCompute: crossNic 2 is
 * tried only after it fails): graph channel k starts at NIC nets[k mod netCount]
 * (ncclTopoSearchRecNet), the NICs listed GPU by GPU (ncclTopoPrefNetsChannelFirst), enters
 * at the NIC's localGpu, the first GPU next to it (topo.cc, ncclTopoGetLocalGpu), and must
 * leave by the same NIC (ncclTopoSearchCheckNet, crossNic 0), through a GPU next to it. On an
 * NVSwitch server the search steps to a neighbour, the previous GPU first
 * (ncclTopoSearchNextGpuSort), so the ring goes down from its entry h = j G / nics to h + 1,
 * next to the same NIC. No rings are swapped (connect.cc swaps only for crossNic 2), and
 * the runtime channels repeat the graph's (connect.cc, ncclTopoPostset), so channel c takes
 * NIC c mod nics on every server: with 8 channels on p4de's 4 NICs, as with fewer, every
 * NIC takes channels while it can. */
static void ring_order(uint32_t p, uint32_t G, uint32_t nics, uint32_t c, uint32_t *order)
{
    const uint32_t N = G > 0 ? p / G : 0;
    if (G < 2 || N < 2 || p % G != 0) {
        for (uint32_t q = 0; q < p; q++)
            order[q] = q;
        return;
    }
    if (nics > 0 && nics < G && G % nics == 0) {
        const uint32_t h = c % nics * (G / nics);
        for (uint32_t m = 0, q = 0; m < N; m++)
            for (uint32_t j = 0; j < G; j++)
                order[q++] = m * G + (h + G - j) % G;
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

/* Checks --ranks and --partitions (NCCL's channels, 1 to 255); FALSE after an error. */
static gboolean channels_check(const char *name, const FennelGenOptions *o, GError **error)
{
    if (o->ranks >= 1 && o->partitions >= 1 && o->partitions <= 255)
        return TRUE;
    g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                "%s needs --ranks >= 1 and --partitions (channels) 1 to 255, got %u and %u", name,
                o->ranks, o->partitions);
    return FALSE;
}

/* Checks a ring's protocol, channels and --ppn (GPUs per server: 1, the default, or a
 * divisor of --ranks); NULL after an error. */
static const Protocol *ring_checks(const char *name, const FennelGenOptions *o, GError **error)
{
    const Protocol *pr = protocol_of(name, o, error);
    if (pr == NULL)
        return NULL;
    if (!channels_check(name, o, error))
        return NULL;
    if (o->ppn >= 1 && o->ranks % o->ppn == 0)
        return pr;
    g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                "%s needs --ranks a multiple of --ppn (GPUs per server), got %u and %u", name,
                o->ranks, o->ppn);
    return NULL;
}

/* Checks the protocol and channels of an algorithm NCCL runs with the protocol Simple
 * only (`algorithm`: PAT, NVLS): the protocol, or NULL after an error. */
/* Servers of --ppn GPUs and channels of `blocks` thread blocks each, whose slots must fit in
 * the 255 a GPU numbers. */
static gboolean check_servers_and_blocks(const char *name, uint32_t blocks,
                                         const FennelGenOptions *o, GError **error)
{
    const uint32_t p = o->ranks, C = o->partitions, G = o->ppn;
    if (G >= 1 && p % G == 0 && C <= 255 / blocks)
        return TRUE;
    g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                "%s needs --ranks a multiple of --ppn (GPUs per node) and --partitions "
                "(channels) 1 to %u (%u thread blocks a channel), got %u, %u and %u",
                name, 255 / blocks, blocks, p, G, C);
    return FALSE;
}

static const Protocol *simple_only_checks(const char *name, const char *algorithm,
                                          const FennelGenOptions *o, GError **error)
{
    const Protocol *pr = protocol_of(name, o, error);
    if (pr == NULL)
        return NULL;
    if (pr != &protocols[0]) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                    "%s: NCCL runs %s with the protocol simple only, not '%s'", name, algorithm,
                    pr->name);
        return NULL;
    }
    if (!channels_check(name, o, error))
        return NULL;
    return pr;
}

/* NCCL's runRing for the allreduce, allgather and reduce-scatter (src/device/all_reduce.h,
 * all_gather.h, reduce_scatter.h), one builder for the three. Each of C channels
 * (--partitions) is a ring over the ranks (ring_order) with a thread block of its own on
 * every rank (slot c). A channel's data is processed in L loops of one chunk per ring
 * position, each chunk in S slices. In a loop, the thread block at position q does steps
 * 0 .. last; in step s it moves chunk q - s - shift (mod p): step 0 sends its own data to
 * position q + 1; steps 1 .. last - 1 receive the chunk position q - 1 sent in the step
 * before and send it on, reducing it with their own data first (a sized compute) in steps
 * 1 .. reduces; step `last` only receives, reducing too when last <= reduces. Every slice
 * of a step is one put of the slice's bytes on the wire, and a thread block does its steps
 * and slices in order: a slice's reduction (or, for a copy, its put) waits for the block's
 * previous slice and for the slice position q - 1 sent in the step before.
 *
 * The allreduce (shift 1, last 2(p - 1), reduces p - 1): step 0 sends chunk q - 1, steps
 * 1 .. p - 2 reduce and send, step p - 1 reduces chunk q to the result and sends it, steps
 * p .. 2p - 3 pass finished chunks on, the last receives chunk q + 1; the vector is cut
 * into C x L x p x S slices, channel c taking the c-th C-th, L = ceil(n / (C p chunk)).
 * The allgather (shift 0, last p - 1, no reductions) and the reduce-scatter (shift 1, last
 * p - 1, every receive reduced): rank r's block (--size bytes of an allgather; a p-th of
 * --size of a reduce-scatter) is cut into C parts, one per channel, each in L =
 * ceil(block / (C chunk)) loops; rank r owns block units r U .. r U + U - 1, U = C L S,
 * so that `fennel verify` follows each slice. */
typedef struct {
    const char *name;
    uint32_t last;     /* the step of the last receive */
    uint32_t reduces;  /* steps 1 .. reduces reduce what they receive */
    uint32_t shift;    /* in step s position q moves chunk q - s - shift */
    gboolean by_owner; /* block units numbered by the rank that owns the chunk */
    gboolean per_rank; /* --size is one rank's block (the allgather) */
    uint64_t loops, slices;
} Ring;

typedef enum { RING_ALLREDUCE, RING_ALLGATHER, RING_REDUCE_SCATTER } RingKind;

static const char *const ring_names[] = {"nccl-ring", "nccl-ring-allgather",
                                         "nccl-ring-reduce-scatter"};

static Ring ring_of(RingKind kind, const FennelGenOptions *o, const Protocol *pr)
{
    const uint32_t p = MAX(o->ranks, 1u);
    const uint64_t per = (uint64_t)o->partitions * (uint64_t)pr->chunk;
    Ring g = {.name = ring_names[kind], .last = p - 1, .slices = pr->slices};
    switch (kind) {
    case RING_ALLREDUCE:
        g.last = 2 * (p - 1);
        g.reduces = p - 1;
        g.shift = 1;
        g.loops = pieces(size_of(o), per * p);
        break;
    case RING_ALLGATHER:
        g.by_owner = g.per_rank = TRUE;
        g.loops = pieces(size_of(o), per);
        break;
    case RING_REDUCE_SCATTER:
        g.reduces = p - 1;
        g.shift = 1;
        g.by_owner = TRUE;
        g.loops = pieces((size_of(o) + p - 1) / p, per);
        break;
    }
    return g;
}

/* A lower bound of a ring's tasks: `last` puts per rank, slice, loop and channel. */
static uint64_t ring_min_tasks(RingKind kind, const FennelGenOptions *o)
{
    const Protocol *pr = protocol_of(ring_names[kind], o, NULL);
    if (pr == NULL || o->ranks < 2)
        return 0;
    const Ring g = ring_of(kind, o, pr);
    const uint64_t factors[] = {o->partitions, g.loops, g.slices};
    return product((uint64_t)o->ranks * g.last, factors, G_N_ELEMENTS(factors));
}

static FennelProgram *nccl_ring(RingKind kind, const FennelGenOptions *o, GError **error)
{
    const Protocol *pr = ring_checks(ring_names[kind], o, error);
    if (pr == NULL)
        return NULL;
    const Ring g = ring_of(kind, o, pr);
    const uint32_t p = o->ranks, C = o->partitions;
    const uint64_t L = g.loops, S = g.slices, U = C * L * S, units = U * p;
    if (units > UINT32_MAX) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                    "%s: %" G_GUINT64_FORMAT " slices are more than this fennel numbers", g.name,
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
    wait_base_latency(b, pr, ALGO_RING, start, p);
    /* hop_ps[c]: what every first-loop step of channel c waits, the mean over its ring's
     * hops of their latency beyond the route's, so that the steps add NCCL's sum of its hops'
     * latencies however the slow hops hold up the others. */
    int64_t *hop_ps = g_new(int64_t, C);
    for (uint32_t c = 0; c < C; c++) {
        ring_order(p, o->ppn, o->nics, c, order + (size_t)c * p);
        int64_t sum = 0;
        for (uint32_t q = 0; q < p; q++) {
            const uint32_t r = order[(size_t)c * p + q], to = order[(size_t)c * p + (q + 1) % p];
            last[(size_t)q * C + c] = start[r];
            sum += ring_hop_rest_ps(pr, crosses(o, r, to), p > o->ppn);
        }
        hop_ps[c] = sum / p;
    }
    for (uint64_t l = 0; l < L && p > 1; l++) {
        for (uint32_t s = 0; s <= g.last; s++) {
            for (uint32_t q = 0; q < p; q++) {
                const uint32_t from = (q + p - 1) % p;
                const uint32_t chunk = (uint32_t)((q + 3ull * p - s - g.shift) % p);
                for (uint32_t c = 0; c < C; c++) {
                    const uint32_t r = order[(size_t)c * p + q];
                    const uint32_t owner = order[(size_t)c * p + chunk];
                    for (uint32_t k = 0; k < S; k++) {
                        const size_t i = ((size_t)q * C + c) * S + k;
                        const size_t j = ((size_t)from * C + c) * S + k;
                        const uint64_t inside = (c * L + l) * S + k;
                        const uint32_t unit =
                            (uint32_t)(g.by_owner ? owner * U + inside
                                                  : ((c * L + l) * p + chunk) * S + k);
                        const int64_t bytes =
                            g.per_rank
                                ? fennel_block_span(o->size, (uint32_t)U, (uint32_t)inside,
                                                    (uint32_t)inside + 1)
                                : fennel_block_span(o->size, (uint32_t)units, unit, unit + 1);
                        uint32_t *chain = &last[(size_t)q * C + c];
                        uint32_t before = *chain;
                        const gboolean reduce = s >= 1 && s <= g.reduces;
                        if (reduce || s == g.last)
                            before = receive(b, reduce, r, c, bytes, before, sent[j]);
                        if (s == g.last) {
                            *chain = before;
                            continue;
                        }
                        const uint32_t to = order[(size_t)c * p + (q + 1) % p];
                        const uint32_t data = s >= 1 && !reduce ? sent[j] : NO_TASK;
                        if (l == 0 && k == 0)
                            before = wait_latency(b, hop_ps[c], r, c, before, data);
                        uint32_t put = put_unit(b, pr, r, to, c, unit, bytes, before);
                        if (data != NO_TASK)
                            fennel_builder_add_edge(b, data, put);
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
    g_free(hop_ps);
    return fennel_builder_finish(b, g.name, p, C, error);
}

/* The options of every NCCL generator: channels, protocol and GPUs per server. */
#define NCCL_OPTIONS                                                                               \
    (FENNEL_GEN_RANKS | FENNEL_GEN_SIZE | FENNEL_GEN_PARTITIONS | FENNEL_GEN_VARIANT |             \
     FENNEL_GEN_PPN)

static FennelProgram *allreduce_nccl_ring(const FennelGenOptions *o, GError **error)
{
    return nccl_ring(RING_ALLREDUCE, o, error);
}

static FennelProgram *allgather_nccl_ring(const FennelGenOptions *o, GError **error)
{
    return nccl_ring(RING_ALLGATHER, o, error);
}

static FennelProgram *reduce_scatter_nccl_ring(const FennelGenOptions *o, GError **error)
{
    return nccl_ring(RING_REDUCE_SCATTER, o, error);
}

static uint64_t allreduce_min_tasks(const FennelGenOptions *o)
{
    return ring_min_tasks(RING_ALLREDUCE, o);
}

static uint64_t allgather_min_tasks(const FennelGenOptions *o)
{
    return ring_min_tasks(RING_ALLGATHER, o);
}

static uint64_t reduce_scatter_min_tasks(const FennelGenOptions *o)
{
    return ring_min_tasks(RING_REDUCE_SCATTER, o);
}

const FennelGenerator fennel_gen_nccl_ring = {
    .name = "nccl-ring",
    .summary = "NCCL's ring allreduce step by step: --partitions channels (default 2), "
               "--variant protocol simple, ll or ll128, chunks and slices of NCCL 2.30.7, "
               "rings across servers of --ppn GPUs on matching rails; --ranks a multiple of "
               "--ppn",
    .options = NCCL_OPTIONS,
    .collective = "allreduce",
    .generate = allreduce_nccl_ring,
    .min_tasks = allreduce_min_tasks,
};

const FennelGenerator fennel_gen_nccl_ring_allgather = {
    .name = "nccl-ring-allgather",
    .summary = "NCCL's ring allgather step by step: --size per rank, --partitions channels "
               "(default 2), --variant protocol simple, ll or ll128, rings across servers of "
               "--ppn GPUs on matching rails; --ranks a multiple of --ppn",
    .options = NCCL_OPTIONS,
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
    .options = NCCL_OPTIONS,
    .collective = "reduce-scatter",
    .generate = reduce_scatter_nccl_ring,
    .min_tasks = reduce_scatter_min_tasks,
};

/* Broadcast and reduce (src/device/broadcast.h, reduce.h): a chain along channel c's ring,
 * from --root on (broadcast: the root sends, each next rank receives and sends on, the one
 * before the root only receives) or to it (reduce: the rank after the root sends, each next
 * rank receives, reduces and sends on, the root receives and reduces). Each channel takes a
 * C-th of the vector in K = ceil(n / (C chunk)) chunks of one slice, a chunk one buffer
 * step (BROADCAST_CHUNKSTEPS and REDUCE_CHUNKSTEPS are 1: 512 KiB for Simple, the tree's
 * chunks for LL and LL128), and the chain pipelines them: a rank's thread block moves chunk
 * after chunk. */

/* Chunks per channel of a tree or a chain: ceil(n / (C chunk)), at least 1. */
static uint64_t step_chunks(const FennelGenOptions *o, const Protocol *pr)
{
    return pieces(size_of(o), (uint64_t)o->partitions * (uint64_t)pr->tree_chunk);
}

/* A lower bound of a chain's tasks: p - 1 puts per chunk and channel. */
static uint64_t chain_min_tasks(const FennelGenOptions *o)
{
    const Protocol *pr = protocol_of("", o, NULL);
    if (pr == NULL || o->ranks < 2)
        return 0;
    const uint64_t factors[] = {o->partitions, step_chunks(o, pr)};
    return product(o->ranks - 1ull, factors, G_N_ELEMENTS(factors));
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
    const uint64_t K = step_chunks(o, pr), units = C * K;
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
    wait_base_latency(b, pr, ALGO_RING, start, p);
    for (uint32_t c = 0; c < C && p > 1; c++) {
        ring_order(p, o->ppn, o->nics, c, order);
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
            const int64_t bytes = fennel_block_span(o->size, (uint32_t)units, unit, unit + 1);
            uint32_t put = 0;
            for (uint32_t i = 0; i < p; i++) {
                uint32_t before = last[i];
                if (i > 0)
                    before = receive(b, reduce, chain[i], c, bytes, before, put);
                if (i + 1 < p) {
                    if (k == 0)
                        before = wait_latency(
                            b, hop_rest_ps(pr, ALGO_RING, crosses(o, chain[i], chain[i + 1])),
                            chain[i], c, before, NO_TASK);
                    put = put_unit(b, pr, chain[i], chain[i + 1], c, unit, bytes, before);
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
    .options = NCCL_OPTIONS | FENNEL_GEN_ROOT,
    .collective = "bcast",
    .generate = bcast_nccl_ring,
    .min_tasks = chain_min_tasks,
};

const FennelGenerator fennel_gen_nccl_ring_reduce = {
    .name = "nccl-ring-reduce",
    .summary = "NCCL's ring reduce step by step: a chain to --root along each channel's ring, "
               "pipelined over chunks; --partitions channels (default 2), --variant protocol "
               "simple, ll or ll128, rings across servers of --ppn GPUs",
    .options = NCCL_OPTIONS | FENNEL_GEN_ROOT,
    .collective = "reduce",
    .generate = reduce_nccl_ring,
    .min_tasks = chain_min_tasks,
};

/* NCCL's tree allreduce (docs/GPU.md, nccl-tree), from NCCL 2.30.7's src/graph/trees.cc
 * (ncclGetBtree, ncclGetDtree), src/graph/connect.cc (the chain inside a node) and
 * src/device/all_reduce.h (runTreeSplit).
 *
 * Ranks are --ppn GPUs per node, node m holding ranks m ppn .. m ppn + ppn - 1. Inside a
 * node the GPUs form a chain from local GPU h on (channel c's NIC's first GPU, tree_head:
 * each pair of channels, one on each tree, on a NIC after the other, as NCCL's tree graph
 * gives each of its channels a NIC and the GPU next to it first): local GPU h + i's parent is h + i
 * - 1, its child h + i + 1. Between nodes, local GPU h of every node is on a binary tree of the
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

/* The local GPU at the head of the tree graph's channel k (the pair of channels 2k, 2k + 1)
 * on a node of ppn GPUs and `nics` NICs (0: one per GPU). NCCL 2.30.7's search starts
 * channel k at NIC nets[k mod netCount] (src/graph/search.cc, ncclTopoSearchRecNet), the NICs
 * listed GPU by GPU (ncclTopoPrefNetsChannelFirst), and enters the node first at that NIC's
 * localGpu, the first of the GPUs next to it (src/graph/topo.cc, ncclTopoGetLocalGpu). With
 * NIC j next to GPUs j ppn / nics to (j + 1) ppn / nics - 1 (models/topology.h's rails), the
 * head is GPU (k mod nics) x ppn / nics: every NIC takes channels, not the first NICs alone;
 * with a NIC a GPU, GPU k mod ppn. */
static uint32_t tree_head(uint32_t ppn, uint32_t nics, uint32_t k)
{
    if (nics == 0 || nics >= ppn || ppn % nics != 0)
        return k % ppn;
    return k % nics * (ppn / nics);
}

/* A lower bound of nccl-tree's tasks: 2(p - 1) puts per chunk and channel. */
static uint64_t tree_min_tasks(const FennelGenOptions *o)
{
    const Protocol *pr = protocol_of("", o, NULL);
    if (pr == NULL || o->ranks < 2)
        return 0;
    const uint64_t factors[] = {o->partitions, step_chunks(o, pr)};
    return product(2ull * (o->ranks - 1), factors, G_N_ELEMENTS(factors));
}

/* Whether any of a tree rank's puts down crosses servers: its first chunk's puts wait the
 * larger latency once. */
static gboolean down_crosses(const FennelGenOptions *o, uint32_t r, const TreeLinks *l)
{
    gboolean across = FALSE;
    for (uint32_t d = 0; d < l->n_down; d++)
        across = across || crosses(o, r, l->down[d]);
    return across;
}

/* A put of chunk `unit` of the tree. */
static uint32_t tree_put(FennelProgramBuilder *b, const FennelGenOptions *o, const Protocol *pr,
                         uint32_t units, uint32_t r, uint32_t to, uint32_t slot, uint32_t unit,
                         uint32_t after)
{
    return put_unit(b, pr, r, to, slot, unit, fennel_block_span(o->size, units, unit, unit + 1),
                    after);
}

static FennelProgram *allreduce_nccl_tree(const FennelGenOptions *o, GError **error)
{
    const Protocol *pr = protocol_of("nccl-tree", o, error);
    if (pr == NULL)
        return NULL;
    const uint32_t p = o->ranks, C = o->partitions, ppn = o->ppn;
    if (p < 1 || ppn < 1 || p % ppn != 0 || C < 1 || C > 127) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                    "nccl-tree needs --ranks a multiple of --ppn (GPUs per node) and "
                    "--partitions (channels) 1 to 127, got %u, %u and %u",
                    p, ppn, C);
        return NULL;
    }
    const uint32_t nodes = p / ppn;
    const uint64_t K = step_chunks(o, pr), units64 = (uint64_t)C * K;
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
    wait_base_latency(b, pr, ALGO_TREE, start, p);
    for (uint32_t c = 0; c < C && p > 1; c++) {
        /* The ranks leaves first (up) and root first (down): a breadth-first order from
         * the root, read backwards for the way up. */
        uint32_t root = 0, n_order = 0;
        for (uint32_t r = 0; r < p; r++) {
            links[r] = tree_links(r, ppn, nodes, (int)(c % 2), tree_head(ppn, o->nics, c / 2));
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
            const int64_t bytes = fennel_block_span(o->size, units, unit, unit + 1);
            for (uint32_t q = p; q-- > 0;) {
                const uint32_t r = order[q];
                const TreeLinks *l = &links[r];
                uint32_t before = upc[r];
                if (l->n_down > 0) {
                    /* receive from the children, reduce: a compute of their bytes */
                    before =
                        receive(b, TRUE, r, 2 * c, bytes * l->n_down, before, upput[l->down[0]]);
                    for (uint32_t d = 1; d < l->n_down; d++)
                        fennel_builder_add_edge(b, upput[l->down[d]], before);
                }
                if (k == 0 && l->up >= 0)
                    before =
                        wait_latency(b, hop_rest_ps(pr, ALGO_TREE, crosses(o, r, (uint32_t)l->up)),
                                     r, 2 * c, before, NO_TASK);
                else if (k == 0 && l->n_down > 0)
                    before = wait_latency(b, hop_rest_ps(pr, ALGO_TREE, down_crosses(o, r, l)), r,
                                          2 * c, before, NO_TASK);
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
                uint32_t x = receive(b, FALSE, r, 2 * c + 1, 0, downc[r],
                                     downput[(size_t)l->up * 3 + d_of_r]);
                downc[r] = x;
                if (k == 0 && l->n_down > 0)
                    x = wait_latency(b, hop_rest_ps(pr, ALGO_TREE, down_crosses(o, r, l)), r,
                                     2 * c + 1, x, NO_TASK);
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
    .options = NCCL_OPTIONS,
    .collective = "allreduce",
    .generate = allreduce_nccl_tree,
    .min_tasks = tree_min_tasks,
};

/* NCCL's PAT allgather and reduce-scatter (docs/GPU.md, nccl-pat), from NCCL 2.30.7's
 * src/include/collectives.h (the step order of PatAGAlgorithm and PatRSAlgorithm), src/device/
 * prims_simple.h (the peers of each dimension, when a step posts its data) and src/enqueue.cc
 * (PAT's chunk size). NCCL runs PAT with Simple only and at one GPU per node.
 *
 * Rank r's peers are r + 2^d and r - 2^d (mod p) for every dimension d with 2^d < p. An
 * allgather step s (1 <= s < N, N the power of two at or above p) takes the data of rank
 * r + s' (s' = s less its lowest bit, L), received from rank r + lowbit(s') unless s' is 0
 * (r's own data), and puts it to rank r - L, where it is the data of offset s: the data of
 * every rank goes down a binomial tree towards the lower ranks, its hops of decreasing
 * powers of two. A final step s (s odd) only receives the data of rank r + s from r + 1.
 * The reduce-scatter is the transpose: a step s receives from r - L the partial sum of the
 * block of rank r + s' (s' = s - L), reduces it with r's own data, and once every partial
 * of that block has arrived (at its step s' + 1) puts the sum to r + lowbit(s') (into r's
 * result when s' is 0); a final step s (s odd) puts r's own data of the block of r + s to
 * r + 1.
 *
 * The order of the steps: with A = min(8, the power of two at or above p / 2) trees (the
 * `aggFactor` NCCL_STEPS deep, 1 under 4 ranks) and D = N / A, the allgather first sends
 * along the dimensions of D and above (for scale = A/2, ..., 1: s = (2a + 1) scale D, a = 0
 * .. A / (2 scale) - 1), then for each low part `as` of 1 .. D - 1 in the order O(log2 D)
 * (O(k) = 2^(k-1), 2^(k-1) + O(k - 1), O(k - 1); O(0) empty) does the steps s = a D + as (a
 * = 0 .. A - 1), followed, when as is odd, by the final steps of the same s. The reduce-
 * scatter goes the other way: for as = D - 1 down to 2, the final steps of s = m(a) D + as
 * when as is odd, then the steps of those s (m(a) the a-th of 0 .. A - 1 in NCCL's
 * `mirrorInvert` order: a's bits complemented and reversed); then the final steps of as =
 * 1; then for scale = 1, 2, ... < A the steps s = (2 m(a) + 1) scale D + 1 and then (2 m(a)
 * + 1) scale D (a = 0 .. A / (2 scale) - 1, m over A / (2 scale)); and last step 1. A step
 * whose s is p or more is skipped, except that the allgather's step s with lowbit 1 still
 * receives the data of s' when s' < p, and the reduce-scatter's still puts the block of s'
 * (its own data) when s' < p. (These orders were checked against NCCL's own enumeration at
 * every rank count from 2 to 300 and at 511 to 4096.)
 *
 * Each rank's block is cut into C parts, one per channel (--partitions), each in L chunks;
 * a channel's thread block (slot c) runs every step of a chunk, one after the other, then
 * the next chunk. A step is one put of the chunk. NCCL's chunk (src/enqueue.cc): one Simple
 * buffer step, 512 KiB, halved while chunk x C x 32 (allgather) or x 16 (reduce-scatter)
 * exceeds the collective's bytes, down to 64 KiB.
 *
 * Not modelled: when a channel's part of a rank's block is at most half a chunk, NCCL takes
 * more trees (a larger aggFactor, which changes the order), packs the steps of several trees
 * into one buffer step and runs several steps at once (`postFreq` and `parallelFactor` above
 * 1); here the order is always the one above, every step is a put of its own and a thread
 * block does one step at a time. */
enum { PAT_STEP, PAT_FINAL };
typedef struct {
    uint32_t s;
    uint32_t kind;
} PatStep;

/* NCCL's tuning model for PAT (src/graph/tuning.cc): latency = base 8.0 us + floor(log2
 * nodes) x the network's 14 us / 3.5 + ranks x 2.8 us. Here every rank waits the first two
 * once (its start's skew), and each put of the first chunk waits 2.8 us less the route's
 * own latency, which the presets take as the ring LL's network hop (2.7 us, as for the
 * other generators, Latencies in docs/GPU.md): a rank's p - 1 puts go one after another,
 * so they add about ranks x 2.8 us. */
static const int64_t pat_base_ns = 8000, pat_level_ns = 4000, pat_step_rest_ns = 2800 - 2700;

static uint32_t pow2_at_least(uint32_t n)
{
    uint32_t q = 1;
    while (q < n)
        q <<= 1;
    return q;
}

/* NCCL's mirrorInvert: a's bits below max (a power of two) complemented and reversed. */
static uint32_t mirror_invert(uint32_t a, uint32_t max)
{
    uint32_t r = 0;
    for (uint32_t m = 1, i = max / 2; m < max; m <<= 1, i >>= 1) {
        if ((a & m) == 0)
            r += i;
    }
    return r;
}

/* The steps of PAT in order (above) for p ranks, into steps (room for 3 N); their count. */
static uint32_t pat_steps(gboolean rs, uint32_t p, PatStep *steps)
{
    const uint32_t N = pow2_at_least(p);
    uint32_t A = 1, q = 0;
    for (uint32_t d = 8; d > 1 && A < p / 2; d /= 2)
        A *= 2;
    const uint32_t D = N / A;
    if (!rs) {
        for (uint32_t scale = A / 2; scale >= 1; scale /= 2)
            for (uint32_t a = 0; a < A / (2 * scale); a++)
                steps[q++] = (PatStep){(2 * a + 1) * scale * D, PAT_STEP};
        /* O(log2 D), built up from O(1) = 1: order[0 .. n) holds O(k) */
        uint32_t *order = g_new(uint32_t, D), *next = g_new(uint32_t, D), n = 0;
        for (uint32_t h = 1; h < D; h <<= 1) {
            uint32_t m = 0;
            next[m++] = h;
            for (uint32_t i = 0; i < n; i++)
                next[m++] = h + order[i];
            for (uint32_t i = 0; i < n; i++)
                next[m++] = order[i];
            uint32_t *t = order;
            order = next;
            next = t;
            n = m;
        }
        for (uint32_t i = 0; i < n; i++) {
            for (uint32_t a = 0; a < A; a++)
                steps[q++] = (PatStep){a * D + order[i], PAT_STEP};
            for (uint32_t a = 0; a < A && order[i] % 2 == 1; a++)
                steps[q++] = (PatStep){a * D + order[i], PAT_FINAL};
        }
        g_free(order);
        g_free(next);
        return q;
    }
    for (uint32_t as = D - 1; as >= 1; as--) {
        for (uint32_t a = 0; a < A && as % 2 == 1; a++)
            steps[q++] = (PatStep){mirror_invert(a, A) * D + as, PAT_FINAL};
        if (as == 1)
            break;
        for (uint32_t a = 0; a < A; a++)
            steps[q++] = (PatStep){mirror_invert(a, A) * D + as, PAT_STEP};
    }
    for (uint32_t scale = 1; scale < A; scale *= 2) {
        const uint32_t m = A / (2 * scale);
        for (uint32_t a = 0; a < m; a++)
            steps[q++] = (PatStep){(2 * mirror_invert(a, m) + 1) * scale * D + 1, PAT_STEP};
        for (uint32_t a = 0; a < m; a++)
            steps[q++] = (PatStep){(2 * mirror_invert(a, m) + 1) * scale * D, PAT_STEP};
    }
    steps[q++] = (PatStep){1, PAT_STEP};
    return q;
}

static uint32_t lowest_bit(uint32_t x)
{
    return x & (~x + 1);
}

/* Thread block `slot` of rank r receives a chunk after its task `after`: reduces `bytes` (a
 * sized compute) or only takes the data (a proxy); the put it waits for is joined later. */
static uint32_t pat_receive(FennelProgramBuilder *b, gboolean reduce, uint32_t r, uint32_t slot,
                            int64_t bytes, uint32_t after)
{
    uint32_t x = fennel_builder_add(b, reduce ? FENNEL_TASK_COMPUTE : FENNEL_TASK_PROXY, r);
    if (reduce) {
        fennel_builder_set_amount(b, x, bytes);
        fennel_builder_set_flags(b, x, FENNEL_TASK_SIZED);
    }
    fennel_builder_set_pin(b, x, slot);
    fennel_builder_add_edge(b, after, x);
    return x;
}

/* PAT's chunk (src/enqueue.cc): 512 KiB, halved while chunk x C x 32 (allgather) or 16
 * (reduce-scatter) is more than `total` bytes, down to 64 KiB. */
static int64_t pat_chunk(gboolean rs, uint32_t C, uint64_t total)
{
    uint64_t chunk = 4194304 / 8;
    while (chunk * C * (rs ? 16u : 32u) > total && chunk > 65536)
        chunk /= 2;
    return (int64_t)chunk;
}

/* Chunks per channel: ceil(block / (C chunk)), block one rank's bytes. */
static uint64_t pat_loops(gboolean rs, const FennelGenOptions *o)
{
    const uint32_t p = MAX(o->ranks, 1u), C = MAX(o->partitions, 1u);
    const uint64_t n = size_of(o);
    const uint64_t block = rs ? (n + p - 1) / p : n;
    const uint64_t total = rs ? n : n * p;
    return pieces(block, (uint64_t)C * (uint64_t)pat_chunk(rs, C, total));
}

/* A lower bound of PAT's tasks: p - 1 puts per rank, chunk and channel. */
static uint64_t pat_min_tasks_of(gboolean rs, const FennelGenOptions *o)
{
    if (o->ranks < 2 || o->partitions < 1)
        return 0;
    const uint64_t factors[] = {o->partitions, pat_loops(rs, o)};
    return product((uint64_t)o->ranks * (o->ranks - 1), factors, G_N_ELEMENTS(factors));
}

static uint64_t pat_allgather_min_tasks(const FennelGenOptions *o)
{
    return pat_min_tasks_of(FALSE, o);
}

static uint64_t pat_reduce_scatter_min_tasks(const FennelGenOptions *o)
{
    return pat_min_tasks_of(TRUE, o);
}

static FennelProgram *nccl_pat(gboolean rs, const FennelGenOptions *o, GError **error)
{
    const char *name = rs ? "nccl-pat-reduce-scatter" : "nccl-pat-allgather";
    const Protocol *pr = simple_only_checks(name, "PAT", o, error);
    if (pr == NULL)
        return NULL;
    const uint32_t p = o->ranks, C = o->partitions;
    const uint64_t L = pat_loops(rs, o), U = (uint64_t)C * L;
    if (U * p > UINT32_MAX) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                    "%s: %" G_GUINT64_FORMAT " chunks are more than this fennel numbers", name,
                    U * p);
        return NULL;
    }
    FennelProgramBuilder *b = fennel_gen_builder(o);
    fennel_builder_set_n_blocks(b, (uint32_t)(U * p));
    const uint32_t N = pow2_at_least(p);
    PatStep *steps = g_new(PatStep, 3 * (size_t)N);
    const uint32_t n_steps = p > 1 ? pat_steps(rs, p, steps) : 0;
    /* put[r N + s]: rank r's put of the chunk at offset s (the data r sends at step s, for
     * the allgather; its partial sum of the block of r + s, for the reduce-scatter);
     * last[r C + c]: the last task of rank r's thread block c. Receives wait for a put that
     * a rank later in the building may make: they are listed (wait, rank, offset) and
     * joined once the chunk's puts all exist. */
    uint32_t *put = g_new(uint32_t, (size_t)p * N);
    uint32_t *last = g_new(uint32_t, (size_t)p * C);
    int64_t log2_p = 0;
    while ((2ull << log2_p) <= p)
        log2_p++;
    for (uint32_t r = 0; r < p; r++) {
        const uint32_t start = fennel_builder_add(b, FENNEL_TASK_START, r);
        fennel_builder_set_amount(b, start, (pat_base_ns + log2_p * pat_level_ns) * 1000);
        for (uint32_t c = 0; c < C; c++)
            last[(size_t)r * C + c] = start;
    }
    for (uint32_t c = 0; c < C && p > 1; c++) {
        for (uint64_t l = 0; l < L; l++) {
            const uint64_t inside = c * L + l;
            const int64_t bytes = rs ? fennel_block_span(o->size, (uint32_t)(U * p),
                                                         (uint32_t)inside, (uint32_t)inside + 1)
                                     : fennel_block_span(o->size, (uint32_t)U, (uint32_t)inside,
                                                         (uint32_t)inside + 1);
            GArray *joins = g_array_new(FALSE, FALSE, sizeof(uint32_t));
            for (uint32_t r = 0; r < p; r++) {
                uint32_t *chain = &last[(size_t)r * C + c];
                for (uint32_t i = 0; i < n_steps; i++) {
                    const uint32_t s = steps[i].s, low = lowest_bit(s), t = s - low;
                    /* recv: the step waits for the put of offset from_s by from_rank
                     * (a proxy, or a reduction: a sized compute); sends: it puts the
                     * chunk of rank `data` to `to`, as its put of offset `at` */
                    gboolean recv = FALSE, reduces = FALSE, sends = FALSE;
                    uint32_t from_rank = 0, from_s = 0, to = 0, data = 0, at = s;
                    if (steps[i].kind == PAT_FINAL) {
                        if (s >= p)
                            continue;
                        recv = !rs, from_rank = (r + 1) % p, from_s = s;
                        sends = rs, to = (r + 1) % p, data = (r + s) % p;
                    } else if (!rs) {
                        if (s >= p && !(low == 1 && t < p && t > 0))
                            continue;
                        recv = t > 0, from_rank = (r + lowest_bit(t)) % p, from_s = t;
                        sends = s < p, to = (r + p - low % p) % p, data = (r + t) % p;
                    } else {
                        if (t >= p || (s >= p && low != 1))
                            continue;
                        recv = reduces = s < p, from_rank = (r + p - low % p) % p, from_s = s;
                        sends = low == 1 && t > 0, to = (r + lowest_bit(t)) % p;
                        data = (r + t) % p, at = t;
                    }
                    if (recv) {
                        const uint32_t x = pat_receive(b, reduces, r, c, bytes, *chain);
                        const uint32_t join[] = {x, from_rank, from_s};
                        g_array_append_vals(joins, join, 3);
                        *chain = x;
                    }
                    if (sends) {
                        const uint32_t unit = (uint32_t)(data * U + inside);
                        uint32_t before = *chain;
                        if (l == 0)
                            before =
                                wait_latency(b, pat_step_rest_ns * 1000, r, c, before, NO_TASK);
                        *chain = put[(size_t)r * N + at] =
                            put_unit(b, pr, r, to, c, unit, bytes, before);
                    }
                }
            }
            for (guint j = 0; j < joins->len; j += 3) {
                const uint32_t *join = &g_array_index(joins, uint32_t, j);
                fennel_builder_add_edge(b, put[(size_t)join[1] * N + join[2]], join[0]);
            }
            g_array_free(joins, TRUE);
        }
    }
    g_free(steps);
    g_free(put);
    g_free(last);
    return fennel_builder_finish(b, name, p, C, error);
}

static FennelProgram *allgather_nccl_pat(const FennelGenOptions *o, GError **error)
{
    return nccl_pat(FALSE, o, error);
}

static FennelProgram *reduce_scatter_nccl_pat(const FennelGenOptions *o, GError **error)
{
    return nccl_pat(TRUE, o, error);
}

const FennelGenerator fennel_gen_nccl_pat_allgather = {
    .name = "nccl-pat-allgather",
    .summary = "NCCL's PAT allgather step by step (one GPU per node): every rank's data down a "
               "binomial tree of distances 2^d, in NCCL 2.30.7's step order; --size per rank, "
               "--partitions channels (default 2), --variant simple only",
    .options = FENNEL_GEN_RANKS | FENNEL_GEN_SIZE | FENNEL_GEN_PARTITIONS | FENNEL_GEN_VARIANT,
    .collective = "allgather",
    .generate = allgather_nccl_pat,
    .min_tasks = pat_allgather_min_tasks,
};

const FennelGenerator fennel_gen_nccl_pat_reduce_scatter = {
    .name = "nccl-pat-reduce-scatter",
    .summary = "NCCL's PAT reduce-scatter step by step (one GPU per node): partial sums up "
               "binomial trees of distances 2^d, in NCCL 2.30.7's step order; rank i ends with "
               "block i of --size, --partitions channels (default 2), --variant simple only",
    .options = FENNEL_GEN_RANKS | FENNEL_GEN_SIZE | FENNEL_GEN_PARTITIONS | FENNEL_GEN_VARIANT,
    .collective = "reduce-scatter",
    .generate = reduce_scatter_nccl_pat,
    .min_tasks = pat_reduce_scatter_min_tasks,
};

/* ---- NVLS: the allreduce of NVLink SHARP on one node ----
 *
 * NCCL 2.30.7's RunWorkColl<ncclFuncAllReduce, ..., NCCL_ALGO_NVLS, NCCL_PROTO_SIMPLE> of
 * src/device/all_reduce.h, its one-node branch: each channel's part of the vector goes in
 * loops of nHeads chunks, one per GPU of the node (every GPU is a head); the reduce warps of
 * head h load-reduce chunk h of the loop through the switch (multimem.ld_reduce) and
 * multicast the result to every GPU (multimem.st), loop after loop; the scatter and gather
 * warps copy the input into NVLS's buffer and the results out of it, copies inside each GPU
 * that are not modelled. The chunk is src/enqueue.cc's for NVLS: one Simple buffer step
 * (512 KiB), at most NCCL_NVLS_CHUNKSIZE (128 KiB, src/transport/nvls.cc), halved to 64 KiB
 * when the vector is below 64 x (channels x heads) chunks, to 32 KiB below 8 x and to 16 KiB
 * below 2 x. Its latency is NCCL's model's for NVLS on one node (src/graph/tuning.cc:
 * baseLatencies 0, hwLatencies over NVLink 25 us for Simple), once, as every rank's start's
 * skew. */
static const int64_t nvls_latency_ns = 25000;

static int64_t nvls_chunk(uint64_t n, uint32_t C, uint32_t p)
{
    const uint64_t ops = (uint64_t)C * p;
    uint64_t chunk = MIN(4194304 / 8, 128 * 1024);
    if (n < 64 * ops * chunk && chunk > 65536)
        chunk = 65536;
    if (n < 8 * ops * chunk && chunk > 32768)
        chunk = 32768;
    if (n < 2 * ops * chunk && chunk > 16384)
        chunk = 16384;
    return (int64_t)chunk;
}

/* Loops per channel: ceil(part / (p chunk)), the channel's part n / C. */
static uint64_t nvls_loops(const FennelGenOptions *o)
{
    const uint32_t p = MAX(o->ranks, 1u), C = MAX(o->partitions, 1u);
    const uint64_t n = size_of(o);
    return pieces((n + C - 1) / C, (uint64_t)p * (uint64_t)nvls_chunk(n, C, p));
}

/* A lower bound of its tasks: per rank a start, and per channel two per chunk and an end. */
static uint64_t nvls_min_tasks(const FennelGenOptions *o)
{
    if (o->ranks < 1 || o->partitions < 1)
        return 0;
    const uint64_t factors[] = {o->partitions, 2 * nvls_loops(o) + 1};
    return product(o->ranks, factors, G_N_ELEMENTS(factors));
}

/* An operation of node `m`'s switch (FENNEL_TASK_LOAD_REDUCE or _MULTICAST) by rank r of
 * block `block`, on thread block `slot`, after `after`. */
static uint32_t switch_op(FennelProgramBuilder *b, FennelTaskType type, uint32_t r, uint32_t m,
                          uint32_t G, uint32_t slot, uint32_t block, int64_t bytes, uint32_t after)
{
    const uint32_t x = fennel_builder_add(b, type, r);
    fennel_builder_set_peer(b, x, m * G);
    fennel_builder_set_tag(b, x, G);
    fennel_builder_set_amount(b, x, bytes);
    fennel_builder_set_pin(b, x, slot);
    fennel_builder_set_blocks(b, x, block, 1);
    fennel_builder_add_edge(b, after, x);
    return x;
}

/* The builder of an NVLS program of `chunks` chunks (one block each), with every rank's start
 * holding NCCL's NVLS latency (*start, one a rank); NULL with the error when the chunks (or
 * what the caller counts, `too_many`) are more than a program numbers. */
static FennelProgramBuilder *nvls_builder(const FennelGenOptions *o, const char *name,
                                          uint64_t chunks, gboolean too_many, uint32_t **start,
                                          GError **error)
{
    if (chunks > UINT32_MAX || too_many) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                    "%s: %" G_GUINT64_FORMAT " chunks are more than this fennel numbers", name,
                    chunks);
        return NULL;
    }
    FennelProgramBuilder *b = fennel_gen_builder(o);
    fennel_builder_set_n_blocks(b, (uint32_t)chunks);
    *start = g_new(uint32_t, o->ranks);
    for (uint32_t r = 0; r < o->ranks; r++) {
        (*start)[r] = fennel_builder_add(b, FENNEL_TASK_START, r);
        fennel_builder_set_amount(b, (*start)[r], nvls_latency_ns * 1000);
    }
    return b;
}

static FennelProgram *allreduce_nccl_nvls(const FennelGenOptions *o, GError **error)
{
    const char *name = "nccl-nvls";
    const Protocol *pr = simple_only_checks(name, "NVLS", o, error);
    if (pr == NULL)
        return NULL;
    const uint32_t p = o->ranks, C = o->partitions;
    if ((o->given & FENNEL_GEN_PPN) && o->ppn != p) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                    "%s runs on one node: --ppn is the rank count (%u) or absent, not %u (NVLS "
                    "across nodes, NCCL's NVLS_TREE, is nccl-nvls-tree)",
                    name, p, o->ppn);
        return NULL;
    }
    if (C > 127) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                    "%s needs --partitions (channels) 1 to 127 (two thread blocks a channel), "
                    "got %u",
                    name, C);
        return NULL;
    }
    const uint64_t L = nvls_loops(o), U = (uint64_t)C * L * p;
    uint32_t *start;
    FennelProgramBuilder *b = nvls_builder(o, name, U, FALSE, &start, error);
    if (b == NULL)
        return NULL;
    /* mc[l p + h]: head h's multicast of loop l of the channel being built. */
    uint32_t *mc = g_new(uint32_t, (size_t)L * p);
    for (uint32_t c = 0; c < C; c++) {
        for (uint32_t h = 0; h < p; h++) {
            /* The reduce warps stream: the multicast of a chunk runs while the next chunk is
             * load-reduced, each on a thread block of its own (slots 2c and 2c + 1), the
             * load-reduces one after another, and a chunk's multicast after its load-reduce
             * and the previous multicast. */
            uint32_t lr = start[h], prev = G_MAXUINT32;
            for (uint64_t l = 0; l < L; l++) {
                const uint32_t block = (uint32_t)(((uint64_t)c * L + l) * p + h);
                const int64_t bytes = fennel_block_span(o->size, (uint32_t)U, block, block + 1);
                lr = switch_op(b, FENNEL_TASK_LOAD_REDUCE, h, 0, p, 2 * c, block, bytes, lr);
                const uint32_t x =
                    switch_op(b, FENNEL_TASK_MULTICAST, h, 0, p, 2 * c + 1, block, bytes, lr);
                if (prev != G_MAXUINT32)
                    fennel_builder_add_edge(b, prev, x);
                /* The first load-reduce reads every GPU's input, there once each starts. */
                for (uint32_t g = 0; l == 0 && g < p; g++) {
                    if (g != h)
                        fennel_builder_add_edge(b, start[g], lr);
                }
                prev = mc[l * p + h] = x;
            }
        }
        /* Each rank's gather ends the channel once every head's results are there. */
        for (uint32_t r = 0; r < p; r++) {
            const uint32_t end = fennel_builder_add(b, FENNEL_TASK_PROXY, r);
            fennel_builder_set_pin(b, end, 2 * c + 1);
            for (uint64_t i = 0; i < L * p; i++)
                fennel_builder_add_edge(b, mc[i], end);
        }
    }
    g_free(mc);
    g_free(start);
    return fennel_builder_finish(b, name, p, 2 * C, error);
}

const FennelGenerator fennel_gen_nccl_nvls = {
    .name = "nccl-nvls",
    .summary = "NCCL's NVLS allreduce on one node step by step: each GPU load-reduces its chunk "
               "of every loop through the NVLink switch and multicasts the sum, NCCL 2.30.7's "
               "chunks and latency; --partitions channels (default 2; NCCL takes 16 on H100), "
               "--variant simple only",
    .options = FENNEL_GEN_RANKS | FENNEL_GEN_SIZE | FENNEL_GEN_PARTITIONS | FENNEL_GEN_VARIANT |
               FENNEL_GEN_PPN,
    .collective = "allreduce",
    .generate = allreduce_nccl_nvls,
    .min_tasks = nvls_min_tasks,
};

/* ---- NVLS_TREE: NVLS inside each node, a tree between nodes ----
 *
 * NCCL 2.30.7's RunWorkColl<ncclFuncAllReduce, ..., NCCL_ALGO_NVLS_TREE, NCCL_PROTO_SIMPLE>
 * of src/device/all_reduce.h, with its trees from connectNvls in src/graph/connect.cc. A
 * node has nHeads heads, one per channel of NCCL's NVLS graph, the GPU next to each of its
 * NICs (src/graph/search.cc); here every GPU of a node has a NIC (the rail presets), so
 * every GPU is a head: head h of node m is rank m ppn + h. Head h of every node is on the
 * tree of NCCL's double binary tree (ncclGetDtree) of the nodes: tree c mod 2 for channel c,
 * its parent and children the heads h of the parent and child nodes (one rail). Each
 * channel's part goes in loops of nHeads chunks; in a loop head h's reduce warps
 * load-reduce chunk h through the node's switch, receive the partial sums of its child
 * nodes and reduce them in (a sized compute), and put the sum to its parent; at the root
 * they multicast it into the node and put it to the children. Its broadcast warps (not at
 * the root) receive the sum from the parent, multicast it into the node and put it to the
 * children. NCCL's warps stream (directRecvDirectSend: each piece is read from the switch
 * and the children and written to the parent, or to the switch and the children, as the
 * next is read), so here each kind of operation of a head has a thread block of its own
 * (slots NVLS_TREE_SLOTS c + k: the load-reduces, the reductions and puts up, the
 * multicasts, the puts to child 0, to child 1), each doing its chunks in order: a chunk's
 * put up runs while the next is load-reduced, and a chunk's multicast and puts down run at
 * once. The scatter and gather warps' copies inside a GPU are not modelled; each rank's
 * gather ends the channel once every head's multicasts have arrived.
 *
 * The chunk (src/enqueue.cc, NVLS_TREE): min(NCCL_NVLS_CHUNKSIZE 128 KiB, the tree's
 * largest, 64 KiB from 4 nodes on and 128 KiB below, src/transport/nvls.cc on Hopper),
 * halved to 64 KiB when the vector is below 4 x (channels x heads) chunks and to 32 KiB
 * below 1 x. Latency (src/graph/tuning.cc, NVLS_TREE): base 0, 25 us over NVLink once (every
 * rank's start's skew, as for nccl-nvls) and 20.9 us over the network for each of the
 * 2 log2(nodes) levels up and down: each network put of the first loop waits 20.9 us less
 * the route's own latency, which the presets take as the ring LL's (2.7 us). */
static const int64_t nvls_tree_hop_rest_ns = 20900 - 2700;

static int64_t nvls_tree_chunk(uint64_t n, uint32_t C, uint32_t heads, uint32_t nodes)
{
    const uint64_t ops = (uint64_t)C * heads;
    uint64_t chunk = nodes >= 4 ? 65536 : 131072;
    if (n < 4 * ops * chunk && chunk > 65536)
        chunk = 65536;
    if (n < ops * chunk && chunk > 32768)
        chunk = 32768;
    return (int64_t)chunk;
}

/* Loops per channel: ceil(part / (heads chunk)), the channel's part n / C. */
static uint64_t nvls_tree_loops(const FennelGenOptions *o)
{
    const uint32_t p = MAX(o->ranks, 1u), C = MAX(o->partitions, 1u);
    const uint32_t G = o->ppn >= 1 && p % o->ppn == 0 ? o->ppn : 1;
    const uint64_t n = size_of(o);
    return pieces((n + C - 1) / C, (uint64_t)G * (uint64_t)nvls_tree_chunk(n, C, G, p / G));
}

static uint64_t nvls_tree_min_tasks(const FennelGenOptions *o)
{
    if (o->ranks < 1 || o->partitions < 1)
        return 0;
    const uint64_t factors[] = {o->partitions, 2 * nvls_tree_loops(o) + 1};
    return product(o->ranks, factors, G_N_ELEMENTS(factors));
}

/* Thread blocks of channel c on a head (NVLS_TREE_SLOTS a channel): its load-reduces, its
 * reductions and puts up the tree, its multicasts, and its puts to each child node. */
enum { NVLS_TREE_LR, NVLS_TREE_UP, NVLS_TREE_MC, NVLS_TREE_DOWN, NVLS_TREE_SLOTS = 5 };

/* Task x on thread block `slot` of a rank, after the block's previous task *last (no edge when
 * x already waits for it); *last becomes x. */
static void chain(FennelProgramBuilder *b, uint32_t *last, uint32_t after, uint32_t x)
{
    if (*last != after)
        fennel_builder_add_edge(b, *last, x);
    *last = x;
}

/* Head r (GPU h of node m) passes the sum x of chunk `block` on: a multicast into its node,
 * and a put to the head of each child node on a thread block of its own (the first loop's
 * after the hop's latency, `rest`), into sent[d]; returns the multicast. */
static uint32_t nvls_tree_down(FennelProgramBuilder *b, const Protocol *pr, uint32_t *own,
                               uint32_t r, uint32_t m, uint32_t G, uint32_t h, uint32_t slot0,
                               uint32_t block, int64_t bytes, uint32_t x, gboolean first,
                               int64_t rest, const uint32_t *children, uint32_t n_children,
                               uint32_t *sent)
{
    const uint32_t mc =
        switch_op(b, FENNEL_TASK_MULTICAST, r, m, G, slot0 + NVLS_TREE_MC, block, bytes, x);
    chain(b, &own[NVLS_TREE_MC], x, mc);
    for (uint32_t d = 0; d < n_children; d++) {
        const uint32_t slot = slot0 + NVLS_TREE_DOWN + d;
        uint32_t y = x;
        if (first) {
            y = wait_latency(b, rest, r, slot, x, NO_TASK);
            chain(b, &own[NVLS_TREE_DOWN + d], x, y);
        }
        sent[d] = put_unit(b, pr, r, children[d] * G + h, slot, block, bytes, y);
        chain(b, &own[NVLS_TREE_DOWN + d], y, sent[d]);
    }
    return mc;
}

static FennelProgram *allreduce_nccl_nvls_tree(const FennelGenOptions *o, GError **error)
{
    const char *name = "nccl-nvls-tree";
    const Protocol *pr = simple_only_checks(name, "NVLS_TREE", o, error);
    if (pr == NULL)
        return NULL;
    const uint32_t p = o->ranks, C = o->partitions, G = o->ppn;
    if (!check_servers_and_blocks(name, NVLS_TREE_SLOTS, o, error))
        return NULL;
    const uint32_t N = p / G;
    const uint64_t L = nvls_tree_loops(o), U = (uint64_t)C * L * G;
    uint32_t *start;
    FennelProgramBuilder *b = nvls_builder(o, name, U, (uint64_t)L * p > UINT32_MAX, &start, error);
    if (b == NULL)
        return NULL;
    /* last[r NVLS_TREE_SLOTS + k]: the last task of rank r's thread block k in the channel;
     * upput[r], downput[3 r + d]: its puts of the current chunk up and to child d. */
    uint32_t *last = g_new(uint32_t, (size_t)p * NVLS_TREE_SLOTS);
    uint32_t *upput = g_new(uint32_t, p), *downput = g_new(uint32_t, (size_t)p * 3);
    /* The nodes' tree of the channel: parent (-1 at the root), children, breadth-first. */
    int *up = g_new(int, N);
    uint32_t *n_down = g_new(uint32_t, N), *down = g_new(uint32_t, (size_t)N * 2);
    uint32_t *order = g_new(uint32_t, N);
    /* mc[l p + r]: the multicast by rank r of loop l of the channel being built. */
    uint32_t *mc = g_new(uint32_t, (size_t)L * p);
    const int64_t rest = nvls_tree_hop_rest_ns * 1000;
    for (uint32_t c = 0; c < C; c++) {
        const uint32_t slot0 = NVLS_TREE_SLOTS * c;
        uint32_t root = 0, n_order = 0;
        for (uint32_t m = 0; m < N; m++) {
            int u, d0, d1;
            nccl_dtree((int)N, (int)m, (int)(c % 2), &u, &d0, &d1);
            up[m] = u;
            n_down[m] = 0;
            if (d0 >= 0)
                down[2 * m + n_down[m]++] = (uint32_t)d0;
            if (d1 >= 0)
                down[2 * m + n_down[m]++] = (uint32_t)d1;
            if (u < 0)
                root = m;
        }
        order[n_order++] = root;
        for (uint32_t k = 0; k < n_order; k++) {
            for (uint32_t d = 0; d < n_down[order[k]]; d++)
                order[n_order++] = down[2 * order[k] + d];
        }
        for (uint32_t r = 0; r < p; r++) {
            for (uint32_t k = 0; k < NVLS_TREE_SLOTS; k++)
                last[(size_t)r * NVLS_TREE_SLOTS + k] = start[r];
        }
        for (uint64_t l = 0; l < L; l++) {
            for (uint32_t h = 0; h < G; h++) {
                const uint32_t block = (uint32_t)(((uint64_t)c * L + l) * G + h);
                const int64_t bytes = fennel_block_span(o->size, (uint32_t)U, block, block + 1);
                /* Up the tree, leaves first. */
                for (uint32_t q = N; q-- > 0;) {
                    const uint32_t m = order[q], r = m * G + h;
                    uint32_t *own = &last[(size_t)r * NVLS_TREE_SLOTS];
                    const uint32_t lr =
                        switch_op(b, FENNEL_TASK_LOAD_REDUCE, r, m, G, slot0 + NVLS_TREE_LR, block,
                                  bytes, own[NVLS_TREE_LR]);
                    own[NVLS_TREE_LR] = lr;
                    /* The first load-reduce reads every GPU's input, there once each starts. */
                    for (uint32_t g = 0; l == 0 && g < G; g++) {
                        if (g != h)
                            fennel_builder_add_edge(b, start[m * G + g], lr);
                    }
                    /* The sum of the node's and the child nodes' (a reduction on the block
                     * that sends up), ready once both are. */
                    uint32_t x = lr;
                    if (n_down[m] > 0) {
                        x = receive(b, TRUE, r, slot0 + NVLS_TREE_UP, bytes * n_down[m], lr,
                                    upput[down[2 * m] * G + h]);
                        for (uint32_t d = 1; d < n_down[m]; d++)
                            fennel_builder_add_edge(b, upput[down[2 * m + d] * G + h], x);
                        chain(b, &own[NVLS_TREE_UP], lr, x);
                    }
                    if (up[m] >= 0) {
                        uint32_t y = x;
                        if (l == 0) {
                            y = wait_latency(b, rest, r, slot0 + NVLS_TREE_UP, x, NO_TASK);
                            chain(b, &own[NVLS_TREE_UP], x, y);
                        }
                        upput[r] = put_unit(b, pr, r, (uint32_t)up[m] * G + h, slot0 + NVLS_TREE_UP,
                                            block, bytes, y);
                        chain(b, &own[NVLS_TREE_UP], y, upput[r]);
                        continue;
                    }
                    /* The root: its sum goes into the node and to the child nodes at once,
                     * each on a thread block of its own. */
                    mc[l * p + r] =
                        nvls_tree_down(b, pr, own, r, m, G, h, slot0, block, bytes, x, l == 0, rest,
                                       &down[2 * m], n_down[m], &downput[(size_t)r * 3]);
                }
                /* Down the tree, from the root's children on: the parent's sum goes into the
                 * node and on to the child nodes at once. */
                for (uint32_t q = 1; q < N; q++) {
                    const uint32_t m = order[q], r = m * G + h, pm = (uint32_t)up[m];
                    uint32_t *own = &last[(size_t)r * NVLS_TREE_SLOTS];
                    uint32_t d_of_m = 0;
                    while (d_of_m + 1 < n_down[pm] && down[2 * pm + d_of_m] != m)
                        d_of_m++;
                    const uint32_t x = downput[(size_t)(pm * G + h) * 3 + d_of_m];
                    mc[l * p + r] =
                        nvls_tree_down(b, pr, own, r, m, G, h, slot0, block, bytes, x, l == 0, rest,
                                       &down[2 * m], n_down[m], &downput[(size_t)r * 3]);
                }
            }
        }
        /* Each rank's gather ends the channel once every head of its node has multicast
         * every loop's sum. */
        for (uint32_t r = 0; r < p; r++) {
            const uint32_t m = r / G, end = fennel_builder_add(b, FENNEL_TASK_PROXY, r);
            fennel_builder_set_pin(b, end, slot0 + NVLS_TREE_LR);
            for (uint64_t l = 0; l < L; l++) {
                for (uint32_t h = 0; h < G; h++)
                    fennel_builder_add_edge(b, mc[l * p + m * G + h], end);
            }
        }
    }
    g_free(mc);
    g_free(order);
    g_free(down);
    g_free(n_down);
    g_free(up);
    g_free(downput);
    g_free(upput);
    g_free(last);
    g_free(start);
    return fennel_builder_finish(b, name, p, NVLS_TREE_SLOTS * C, error);
}

const FennelGenerator fennel_gen_nccl_nvls_tree = {
    .name = "nccl-nvls-tree",
    .summary = "NCCL's NVLS_TREE allreduce step by step: NVLS in each node of --ppn GPUs (every "
               "GPU a head) and NCCL's double binary tree between nodes, one per head's rail, "
               "each head's operations streaming on five thread blocks; --partitions channels "
               "(default 2, at most 51; NCCL takes 16 on H100), --variant simple only",
    .options = NCCL_OPTIONS,
    .collective = "allreduce",
    .generate = allreduce_nccl_nvls_tree,
    .min_tasks = nvls_tree_min_tasks,
};

/* ---- CollNet Direct: a reduce-scatter to the heads, SHARP between nodes, a broadcast ----
 *
 * NCCL 2.30.7's RunWorkColl<ncclFuncAllReduce, ..., NCCL_ALGO_COLLNET_DIRECT,
 * NCCL_PROTO_SIMPLE> of src/device/all_reduce.h, its heads from connectCollNet in
 * src/graph/connect.cc. A node has nHeads heads, the first GPU of each channel of NCCL's
 * CollNet graph, the GPU next to each NIC; here every GPU of a node has a NIC (the rail
 * presets), so every GPU is a head: head h of node m is rank m ppn + h. Each channel's part
 * goes in loops of nHeads chunks, chunk h of a loop head h's: every GPU's scatter warps put
 * chunk h to head h (its other heads in turn, from the next one on: NCCL's `shift` keeps the
 * GPUs from sending to one head at once); head h's reduce warps receive them, reduce them
 * with its own chunk (a sized compute of the received bytes) and send the sum to the
 * network, where the CollNet plugin has the switches reduce it with the other nodes' heads h
 * and return the sum to every one of them (SHARP: here a load-reduce with `allreduce` at the
 * leaf of head h's rail, issued by node 0's head h for all of them); head h's broadcast warps
 * then put the sum to every other GPU of the node. Each kind of warp is a thread block of its
 * own (COLLNET_SLOTS a channel: scatter, reduce, the network, broadcast) doing its chunks in
 * order, so the loops pipeline.
 *
 * The chunk (src/enqueue.cc, COLLNET_DIRECT): one Simple buffer step (512 KiB; chunkSteps 1
 * for every algorithm but the ring), halved while n / (channels x heads x chunk) is below
 * depth x 64 and the chunk above 128 KiB, then below depth x 8 and above 64 KiB, then below
 * depth x 8 and above 32 KiB (integer divisions; depth 2, or 1 on a node of one GPU:
 * connectCollNet). Latency (src/graph/tuning.cc): base 0, then 2 (min(1, ppn - 1) 3.7 us +
 * (ppn - 1) 0.4 us) inside the node (hwLatencies over NVLink for CollNet Direct, Simple, and
 * the "arity serialization" of 0.4 us a peer), every rank's start's skew, and 31 us over the
 * network (14 us, the tree's, with one GPU a node), which the first loop's network operation
 * waits less the route's own latency (the presets' 2.7 us, Latencies in docs/GPU.md). */
enum { COLLNET_SCATTER, COLLNET_REDUCE, COLLNET_NET, COLLNET_BCAST, COLLNET_SLOTS };

static int64_t collnet_chunk(uint64_t n, uint32_t C, uint32_t heads)
{
    const uint64_t ops = (uint64_t)C * heads, depth = heads > 1 ? 2 : 1;
    uint64_t chunk = 4194304 / 8;
    while (n / (ops * chunk) < depth * 64 && chunk > 131072)
        chunk /= 2;
    while (n / (ops * chunk) < depth * 8 && chunk > 65536)
        chunk /= 2;
    while (n / (ops * chunk) < depth * 8 && chunk > 32768)
        chunk /= 2;
    return (int64_t)chunk;
}

static uint64_t collnet_loops(const FennelGenOptions *o)
{
    const uint32_t p = MAX(o->ranks, 1u), C = MAX(o->partitions, 1u);
    const uint32_t G = o->ppn >= 1 && p % o->ppn == 0 ? o->ppn : 1;
    const uint64_t n = size_of(o);
    return pieces((n + C - 1) / C, (uint64_t)G * (uint64_t)collnet_chunk(n, C, G));
}

/* A lower bound of its tasks: per rank a start, and per channel a reduction a loop and an end. */
static uint64_t collnet_min_tasks(const FennelGenOptions *o)
{
    if (o->ranks < 1 || o->partitions < 1)
        return 0;
    const uint64_t factors[] = {o->partitions, collnet_loops(o) + 1};
    return product(o->ranks, factors, G_N_ELEMENTS(factors));
}

/* NCCL's latency of CollNet Direct inside a node, in ps (tuning.cc, above). */
static int64_t collnet_intra_ps(uint32_t G)
{
    return 2 * ((G > 1 ? 3700 : 0) + (int64_t)(G - 1) * 400) * 1000;
}

static FennelProgram *allreduce_nccl_collnet(const FennelGenOptions *o, GError **error)
{
    const char *name = "nccl-collnet";
    const Protocol *pr = simple_only_checks(name, "CollNet", o, error);
    if (pr == NULL)
        return NULL;
    const uint32_t p = o->ranks, C = o->partitions, G = o->ppn;
    if (!check_servers_and_blocks(name, COLLNET_SLOTS, o, error))
        return NULL;
    const uint32_t N = p / G;
    const uint64_t L = collnet_loops(o), U = (uint64_t)C * L * G;
    if (U > UINT32_MAX || (uint64_t)L * p > UINT32_MAX) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                    "%s: %" G_GUINT64_FORMAT " chunks are more than this fennel numbers", name, U);
        return NULL;
    }
    FennelProgramBuilder *b = fennel_gen_builder(o);
    fennel_builder_set_n_blocks(b, (uint32_t)U);
    uint32_t *start = g_new(uint32_t, p);
    for (uint32_t r = 0; r < p; r++) {
        start[r] = fennel_builder_add(b, FENNEL_TASK_START, r);
        fennel_builder_set_amount(b, start[r], collnet_intra_ps(G));
    }
    const int64_t rest = ((G > 1 ? 31000 : 14000) - 2700) * 1000;
    /* last[r COLLNET_SLOTS + k]: the last task of rank r's thread block k in the channel;
     * inbox[r]: the puts of the current loop's chunk to head r; sum[m]: node m's head's
     * reduction of it; ends[r]: what rank r's end of the channel waits for. */
    uint32_t *last = g_new(uint32_t, (size_t)p * COLLNET_SLOTS);
    uint32_t *sum = g_new(uint32_t, N);
    GArray **inbox = g_new(GArray *, p), **ends = g_new(GArray *, p);
    for (uint32_t r = 0; r < p; r++) {
        inbox[r] = g_array_new(FALSE, FALSE, sizeof(uint32_t));
        ends[r] = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    }
    for (uint32_t c = 0; c < C; c++) {
        const uint32_t slot0 = COLLNET_SLOTS * c;
        for (uint32_t r = 0; r < p; r++) {
            for (uint32_t k = 0; k < COLLNET_SLOTS; k++)
                last[(size_t)r * COLLNET_SLOTS + k] = start[r];
            g_array_set_size(ends[r], 0);
        }
        for (uint64_t l = 0; l < L; l++) {
            /* Every GPU's scatter: chunk h of the loop to head h, from its next head on. */
            for (uint32_t g = 0; g < p; g++) {
                const uint32_t m = g / G, j = g % G;
                uint32_t *own = &last[(size_t)g * COLLNET_SLOTS + COLLNET_SCATTER];
                for (uint32_t k = 1; k < G; k++) {
                    const uint32_t h = (j + k) % G;
                    const uint32_t block = (uint32_t)(((uint64_t)c * L + l) * G + h);
                    const int64_t bytes = fennel_block_span(o->size, (uint32_t)U, block, block + 1);
                    *own =
                        put_unit(b, pr, g, m * G + h, slot0 + COLLNET_SCATTER, block, bytes, *own);
                    g_array_append_val(inbox[m * G + h], *own);
                }
            }
            for (uint32_t h = 0; h < G; h++) {
                const uint32_t block = (uint32_t)(((uint64_t)c * L + l) * G + h);
                const int64_t bytes = fennel_block_span(o->size, (uint32_t)U, block, block + 1);
                /* Head h of every node reduces what its node's GPUs put to it. */
                for (uint32_t m = 0; m < N; m++) {
                    const uint32_t r = m * G + h;
                    uint32_t *own = &last[(size_t)r * COLLNET_SLOTS + COLLNET_REDUCE];
                    if (G > 1) {
                        const uint32_t x = fennel_builder_add(b, FENNEL_TASK_COMPUTE, r);
                        fennel_builder_set_amount(b, x, bytes * (G - 1));
                        fennel_builder_set_flags(b, x, FENNEL_TASK_SIZED);
                        fennel_builder_set_pin(b, x, slot0 + COLLNET_REDUCE);
                        fennel_builder_add_edge(b, *own, x);
                        for (guint i = 0; i < inbox[r]->len; i++)
                            fennel_builder_add_edge(b, g_array_index(inbox[r], uint32_t, i), x);
                        g_array_set_size(inbox[r], 0);
                        *own = x;
                    }
                    sum[m] = *own;
                }
                /* The network: node 0's head h has the rail's leaf reduce every node's sum
                 * and return it to every head h (the first loop's after the network's
                 * latency); on one node there is no network. */
                uint32_t net = sum[0];
                if (N > 1) {
                    uint32_t *own = &last[(size_t)h * COLLNET_SLOTS + COLLNET_NET];
                    uint32_t after = *own;
                    if (l == 0)
                        after = *own = wait_latency(b, rest, h, slot0 + COLLNET_NET, *own, NO_TASK);
                    net = fennel_builder_add(b, FENNEL_TASK_LOAD_REDUCE, h);
                    fennel_builder_set_peer(b, net, h);
                    fennel_builder_set_tag(b, net, N);
                    if (G > 1)
                        fennel_builder_set_request(b, net, G);
                    fennel_builder_set_flags(b, net, FENNEL_TASK_ALLREDUCE);
                    fennel_builder_set_amount(b, net, bytes);
                    fennel_builder_set_pin(b, net, slot0 + COLLNET_NET);
                    fennel_builder_set_blocks(b, net, block, 1);
                    fennel_builder_add_edge(b, after, net);
                    for (uint32_t m = 0; m < N; m++)
                        fennel_builder_add_edge(b, sum[m], net);
                    *own = net;
                }
                /* Every head h broadcasts the sum into its node, its next GPU first. */
                for (uint32_t m = 0; m < N; m++) {
                    const uint32_t r = m * G + h;
                    uint32_t *own = &last[(size_t)r * COLLNET_SLOTS + COLLNET_BCAST];
                    const uint32_t got = N > 1 ? net : sum[m];
                    for (uint32_t k = 1; k < G; k++) {
                        const uint32_t to = m * G + (h + k) % G;
                        const uint32_t x =
                            put_unit(b, pr, r, to, slot0 + COLLNET_BCAST, block, bytes, got);
                        fennel_builder_add_edge(b, *own, x);
                        *own = x;
                        g_array_append_val(ends[to], x);
                    }
                    /* (on one GPU alone, every loop's sum is its start) */
                    if (ends[r]->len == 0 ||
                        g_array_index(ends[r], uint32_t, ends[r]->len - 1) != got)
                        g_array_append_val(ends[r], got);
                }
            }
        }
        /* Each rank's gather ends the channel once every head's sums are there. */
        for (uint32_t r = 0; r < p; r++) {
            const uint32_t end = fennel_builder_add(b, FENNEL_TASK_PROXY, r);
            fennel_builder_set_pin(b, end, slot0 + COLLNET_BCAST);
            if (last[(size_t)r * COLLNET_SLOTS + COLLNET_BCAST] != start[r])
                fennel_builder_add_edge(b, last[(size_t)r * COLLNET_SLOTS + COLLNET_BCAST], end);
            for (guint i = 0; i < ends[r]->len; i++)
                fennel_builder_add_edge(b, g_array_index(ends[r], uint32_t, i), end);
        }
    }
    for (uint32_t r = 0; r < p; r++) {
        g_array_free(inbox[r], TRUE);
        g_array_free(ends[r], TRUE);
    }
    g_free(inbox);
    g_free(ends);
    g_free(sum);
    g_free(last);
    g_free(start);
    return fennel_builder_finish(b, name, p, COLLNET_SLOTS * C, error);
}

const FennelGenerator fennel_gen_nccl_collnet = {
    .name = "nccl-collnet",
    .summary = "NCCL's CollNet Direct allreduce step by step: every GPU puts chunk h of each loop "
               "to head h of its node, the heads reduce, SHARP at each rail's leaf sums the "
               "nodes' heads and returns the sum (a topology with sharp: true), the heads "
               "broadcast it into the node; NCCL 2.30.7's chunks and latency; --partitions "
               "channels (default 2, at most 63), --variant simple only",
    .options = NCCL_OPTIONS,
    .collective = "allreduce",
    .generate = allreduce_nccl_collnet,
    .min_tasks = collnet_min_tasks,
};
