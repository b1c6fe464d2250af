/* NCCL's ring allreduce, simulated step by step (docs/GPU.md): the figures are those of
 * NCCL 2.30.7's source (src/include/device.h, src/include/collectives.h, src/init.cc,
 * src/enqueue.cc, src/device/all_reduce.h).
 *
 * Each of C channels (--partitions) is a ring over the ranks in rank order, with a thread
 * block of its own on every rank (slot c). The vector is cut into C x L x p x S slices,
 * evenly to the byte: channel c takes the c-th C-th of it, in L loops of p chunks of S
 * slices, L = ceil(n / (C p chunk)), where a chunk holds at most `chunk` bytes of data. In
 * every loop rank r's thread block runs NCCL's runRing: step 0 sends chunk r - 1 to rank
 * r + 1; steps 1 .. p - 2 receive chunk r - s - 1 from rank r - 1, reduce it and send it
 * on; step p - 1 receives chunk r, reduces it (the result) and sends it; steps p .. 2p - 3
 * receive a finished chunk and send it on; a last receive takes chunk r + 1. A step moves
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
} Protocol;

static const Protocol protocols[] = {
    {"simple", 4194304 / 8 * 4, 2, 1, 1},
    {"ll", 8 * 512 * 8 * 16 / 8 / 2, 1, 2, 1},
    {"ll128", 120 * 640 * 8 * 8 / 8 / 16 * 15, 1, 16, 15},
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
    /* prev[r * C + c]: the last task of rank r's thread block c; sent[...]: the puts rank r
     * sent in the step before, one per slice, which rank r + 1 receives in this one. */
    uint32_t *last = g_new(uint32_t, (size_t)p * C);
    uint32_t *sent = g_new(uint32_t, (size_t)p * C * S);
    uint32_t *sending = g_new(uint32_t, (size_t)p * C * S);
    for (uint32_t r = 0; r < p; r++) {
        uint32_t start = fennel_builder_add(b, FENNEL_TASK_START, r);
        for (uint32_t c = 0; c < C; c++)
            last[(size_t)r * C + c] = start;
    }
    const uint32_t steps = p > 1 ? 2 * (p - 1) : 0;
    for (uint64_t l = 0; l < L && p > 1; l++) {
        for (uint32_t s = 0; s <= steps; s++) {
            for (uint32_t r = 0; r < p; r++) {
                const uint32_t from = (r + p - 1) % p;
                /* The chunk rank r sends in step s (NCCL's runRing), or receives last. */
                const uint32_t chunk = s == steps   ? (r + 1) % p
                                       : s < p - 1  ? (r + 2 * p - s - 1) % p
                                       : s == p - 1 ? r
                                                    : (r + 2 * p - (s - p + 1)) % p;
                for (uint32_t c = 0; c < C; c++) {
                    for (uint32_t k = 0; k < S; k++) {
                        const size_t i = ((size_t)r * C + c) * S + k;
                        const size_t j = ((size_t)from * C + c) * S + k;
                        const uint64_t unit = ((c * L + l) * p + chunk) * S + k;
                        const int64_t bytes =
                            fennel_block_offset(o->size, (uint32_t)units, (uint32_t)unit + 1) -
                            fennel_block_offset(o->size, (uint32_t)units, (uint32_t)unit);
                        uint32_t *chain = &last[(size_t)r * C + c];
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
                        fennel_builder_set_peer(b, put, (r + 1) % p);
                        fennel_builder_set_amount(b, put,
                                                  bytes / pr->wire_den * pr->wire_num +
                                                      bytes % pr->wire_den * pr->wire_num /
                                                          pr->wire_den);
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
    g_free(last);
    g_free(sent);
    g_free(sending);
    return fennel_builder_finish(b, "nccl-ring", p, C, error);
}

const FennelGenerator fennel_gen_nccl_ring = {
    .name = "nccl-ring",
    .summary = "NCCL's ring allreduce step by step: --partitions channels (default 2), "
               "--variant protocol simple, ll or ll128, chunks and slices of NCCL 2.30.7; any "
               "--ranks",
    .options = FENNEL_GEN_RANKS | FENNEL_GEN_SIZE | FENNEL_GEN_PARTITIONS | FENNEL_GEN_VARIANT,
    .collective = "allreduce",
    .generate = allreduce_nccl_ring,
    .min_tasks = min_tasks,
};
