/* Point-to-point building blocks of the original Fennel (its p2p.py), task for task and
 * in its creation order (which breaks ties in the engine), with the defects its
 * reference describes fixed: send gives the sender an end proxy, rta repeats for
 * --rounds, rat's acknowledgement goes back from the receiver, and partitioned's second
 * put carries the partitions above the threshold. Puts are non-blocking unless
 * `--variant blocking` asks otherwise (send, multicast). */
#include "errors.h"
#include "generator.h"

#include <string.h>

/* The put flags for --variant blocking|nonblocking. */
static gboolean put_flags(const char *name, const FennelGenOptions *o, unsigned *flags,
                          GError **error)
{
    *flags = 0;
    if (o->variant == NULL || strcmp(o->variant, "nonblocking") == 0)
        return TRUE;
    if (strcmp(o->variant, "blocking") == 0) {
        *flags = FENNEL_TASK_BLOCKING;
        return TRUE;
    }
    g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE,
                "--variant %s: %s knows blocking and nonblocking", o->variant, name);
    return FALSE;
}

static uint32_t add_task(FennelProgramBuilder *b, FennelTaskType type, uint32_t rank, uint32_t pred)
{
    uint32_t t = fennel_builder_add(b, type, rank);
    if (pred != FENNEL_NO_RANK)
        fennel_builder_add_edge(b, pred, t);
    return t;
}

static uint32_t add_put(FennelProgramBuilder *b, uint32_t rank, uint32_t to, int64_t bytes,
                        unsigned flags, uint32_t pred)
{
    uint32_t t = add_task(b, FENNEL_TASK_PUT, rank, pred);
    fennel_builder_set_peer(b, t, to);
    fennel_builder_set_amount(b, t, bytes);
    fennel_builder_set_flags(b, t, flags);
    return t;
}

/* pingpong: rounds of a put from rank 0 to rank 1 and one back; each round's pong
 * waits for the ping's arrival. Makespan under postal: rounds x 2 (alpha + s beta). */
static FennelProgram *pingpong(const FennelGenOptions *o, GError **error)
{
    if (o->rounds < 1) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT, "pingpong needs --rounds >= 1");
        return NULL;
    }
    FennelProgramBuilder *b = fennel_gen_builder(o);
    uint32_t x[2];
    for (uint32_t r = 0; r < 2; r++) {
        uint32_t s = fennel_builder_add(b, FENNEL_TASK_START, r);
        x[r] = fennel_builder_add(b, FENNEL_TASK_PROXY, r);
        fennel_builder_add_edge(b, s, x[r]);
    }
    for (uint32_t round = 0; round < o->rounds; round++) {
        uint32_t ping = fennel_builder_add(b, FENNEL_TASK_PUT, 0);
        fennel_builder_set_peer(b, ping, 1);
        fennel_builder_set_amount(b, ping, o->size);
        fennel_builder_add_edge(b, x[0], ping);
        uint32_t pong = fennel_builder_add(b, FENNEL_TASK_PUT, 1);
        fennel_builder_set_peer(b, pong, 0);
        fennel_builder_set_amount(b, pong, o->size);
        fennel_builder_add_edge(b, x[1], pong);
        fennel_builder_add_edge(b, ping, pong);
        uint32_t x0 = fennel_builder_add(b, FENNEL_TASK_PROXY, 0);
        uint32_t x1 = fennel_builder_add(b, FENNEL_TASK_PROXY, 1);
        fennel_builder_add_edge(b, ping, x0);
        fennel_builder_add_edge(b, pong, x0);
        fennel_builder_add_edge(b, pong, x1);
        x[0] = x0;
        x[1] = x1;
    }
    return fennel_builder_finish(b, NULL, 2, 1, error);
}

const FennelGenerator fennel_gen_pingpong = {
    .name = "pingpong",
    .summary = "rounds of a put from rank 0 to rank 1 and one back",
    .options = FENNEL_GEN_SIZE | FENNEL_GEN_ROUNDS,
    .generate = pingpong,
};

/* send: one put from rank 0 to rank 1; each rank ends with a proxy, the sender's right
 * after its start (a rank never waits for its own sends). Makespan alpha + s beta under
 * postal. */
static FennelProgram *send(const FennelGenOptions *o, GError **error)
{
    unsigned flags;
    if (!put_flags("send", o, &flags, error))
        return NULL;
    FennelProgramBuilder *b = fennel_gen_builder(o);
    uint32_t s0 = add_task(b, FENNEL_TASK_START, 0, FENNEL_NO_RANK);
    uint32_t s1 = add_task(b, FENNEL_TASK_START, 1, FENNEL_NO_RANK);
    uint32_t p = add_put(b, 0, 1, o->size, flags, s0);
    add_task(b, FENNEL_TASK_PROXY, 0, s0);
    uint32_t x1 = add_task(b, FENNEL_TASK_PROXY, 1, s1);
    fennel_builder_add_edge(b, p, x1);
    return fennel_builder_finish(b, NULL, 2, 1, error);
}

const FennelGenerator fennel_gen_send = {
    .name = "send",
    .summary = "one put from rank 0 to rank 1 (--variant blocking for a blocking put)",
    .options = FENNEL_GEN_SIZE | FENNEL_GEN_VARIANT,
    .generate = send,
};

/* fetch: rank 0 gets --size bytes from rank 1 (an 8-byte request). Rank 1's end proxy
 * waits for the request's arrival, rank 0's for the data. */
static FennelProgram *fetch(const FennelGenOptions *o, GError **error)
{
    FennelProgramBuilder *b = fennel_gen_builder(o);
    uint32_t s0 = add_task(b, FENNEL_TASK_START, 0, FENNEL_NO_RANK);
    uint32_t s1 = add_task(b, FENNEL_TASK_START, 1, FENNEL_NO_RANK);
    uint32_t g = add_task(b, FENNEL_TASK_GET, 0, s0);
    fennel_builder_set_peer(b, g, 1);
    fennel_builder_set_amount(b, g, o->size);
    fennel_builder_set_request(b, g, 8);
    uint32_t x0 = add_task(b, FENNEL_TASK_PROXY, 0, s0);
    uint32_t x1 = add_task(b, FENNEL_TASK_PROXY, 1, s1);
    fennel_builder_add_edge(b, g, x0);
    fennel_builder_add_edge(b, g, x1);
    return fennel_builder_finish(b, NULL, 2, 1, error);
}

const FennelGenerator fennel_gen_fetch = {
    .name = "fetch",
    .summary = "rank 0 gets --size bytes from rank 1",
    .options = FENNEL_GEN_SIZE,
    .generate = fetch,
};

/* multicast: rank 0 puts to ranks 1 .. width one after another; each target's end
 * waits for its put, the root's for all of them. Under lbp the last arrival is at
 * alpha_p + width alpha_r (+ s beta): thesis Eq. 4.6. */
static FennelProgram *multicast(const FennelGenOptions *o, GError **error)
{
    unsigned flags;
    if (!put_flags("multicast", o, &flags, error))
        return NULL;
    uint32_t width = o->width;
    FennelProgramBuilder *b = fennel_gen_builder(o);
    uint32_t s0 = 0, x0 = 1;
    for (uint32_t c = 0; c <= width; c++) {
        uint32_t s = add_task(b, FENNEL_TASK_START, c, FENNEL_NO_RANK);
        add_task(b, FENNEL_TASK_PROXY, c, s);
    }
    for (uint32_t c = 1; c <= width; c++) {
        uint32_t p = add_put(b, 0, c, o->size, flags, s0);
        fennel_builder_add_edge(b, p, 2 * c + 1);
        fennel_builder_add_edge(b, p, x0);
    }
    return fennel_builder_finish(b, NULL, width + 1, 1, error);
}

const FennelGenerator fennel_gen_multicast = {
    .name = "multicast",
    .summary = "rank 0 puts to ranks 1..--width back to back (--variant blocking)",
    .options = FENNEL_GEN_SIZE | FENNEL_GEN_WIDTH | FENNEL_GEN_VARIANT,
    .generate = multicast,
};

/* rta, request-transfer-ack (a rendezvous with an RDMA read): rank 0 puts an 8-byte
 * request, rank 1 gets the --size bytes from rank 0 and puts an 8-byte acknowledgement
 * back; both ends wait for it. --rounds repeats the protocol, each round after the last
 * one's ends. */
static FennelProgram *rta(const FennelGenOptions *o, GError **error)
{
    FennelProgramBuilder *b = fennel_gen_builder(o);
    uint32_t e0 = add_task(b, FENNEL_TASK_START, 0, FENNEL_NO_RANK);
    uint32_t e1 = add_task(b, FENNEL_TASK_START, 1, FENNEL_NO_RANK);
    for (uint32_t round = 0; round < o->rounds; round++) {
        uint32_t request = add_put(b, 0, 1, 8, 0, e0);
        uint32_t get = add_task(b, FENNEL_TASK_GET, 1, e1);
        fennel_builder_set_peer(b, get, 0);
        fennel_builder_set_amount(b, get, o->size);
        fennel_builder_set_request(b, get, 8);
        fennel_builder_add_edge(b, request, get);
        uint32_t ack = add_put(b, 1, 0, 8, 0, get);
        e0 = add_task(b, FENNEL_TASK_PROXY, 0, ack);
        e1 = add_task(b, FENNEL_TASK_PROXY, 1, ack);
    }
    return fennel_builder_finish(b, NULL, 2, 1, error);
}

const FennelGenerator fennel_gen_rta = {
    .name = "rta",
    .summary = "request, transfer by get, acknowledgement (rendezvous); --rounds repeats it",
    .options = FENNEL_GEN_SIZE | FENNEL_GEN_ROUNDS,
    .generate = rta,
};

/* rat, request-response-transfer-ack: rank 0 puts an 8-byte request, rank 1 answers
 * with 8 bytes, rank 0 puts the --size bytes and rank 1 acknowledges them with 8 bytes;
 * both ends wait for the acknowledgement. */
static FennelProgram *rat(const FennelGenOptions *o, GError **error)
{
    FennelProgramBuilder *b = fennel_gen_builder(o);
    uint32_t s0 = add_task(b, FENNEL_TASK_START, 0, FENNEL_NO_RANK);
    uint32_t s1 = add_task(b, FENNEL_TASK_START, 1, FENNEL_NO_RANK);
    uint32_t request = add_put(b, 0, 1, 8, 0, s0);
    uint32_t response = add_put(b, 1, 0, 8, 0, s1);
    fennel_builder_add_edge(b, request, response);
    uint32_t transfer = add_put(b, 0, 1, o->size, 0, response);
    uint32_t ack = add_put(b, 1, 0, 8, 0, transfer);
    add_task(b, FENNEL_TASK_PROXY, 0, ack);
    add_task(b, FENNEL_TASK_PROXY, 1, ack);
    return fennel_builder_finish(b, NULL, 2, 1, error);
}

const FennelGenerator fennel_gen_rat = {
    .name = "rat",
    .summary = "request, response, transfer, acknowledgement between ranks 0 and 1",
    .options = FENNEL_GEN_SIZE,
    .generate = rat,
};

/* partitioned: MPI-4 partitioned communication between ranks 0 and 1, --rounds rounds.
 * Each rank computes --partitions partitions of --size bytes concurrently (one slot per
 * partition: the program has that many processes) and sends them in two puts: the low
 * one (threshold partitions, concurrent) as soon as --threshold computes are done
 * (any: threshold), the high one (the other partitions) when all are. Rank 1 computes
 * after rank 0's data has arrived, partition by partition: the low partitions after the
 * low put, the high ones after the high put; the next round waits for rank 1's puts. */
static FennelProgram *partitioned(const FennelGenOptions *o, GError **error)
{
    uint32_t k = o->partitions, threshold = o->threshold;
    if (threshold < 1 || threshold >= k) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                    "partitioned needs 0 < --threshold < --partitions (got %u and %u)", threshold,
                    k);
        return NULL;
    }
    FennelProgramBuilder *b = fennel_gen_builder(o);
    uint32_t s[2], r[2][2], w[2][2], p[2][2], c[2];
    for (int i = 0; i < 2; i++)
        s[i] = add_task(b, FENNEL_TASK_START, i, FENNEL_NO_RANK);
    for (int i = 0; i < 2; i++) {
        for (int h = 0; h < 2; h++)
            r[i][h] = add_task(b, FENNEL_TASK_PROXY, i, s[i]);
    }
    const int64_t bytes[2] = {o->size * threshold, o->size * (k - threshold)};
    for (uint32_t round = 0; round < o->rounds; round++) {
        for (int i = 0; i < 2; i++) {
            for (int h = 0; h < 2; h++)
                w[i][h] = add_task(b, FENNEL_TASK_PROXY, i, r[i][h]);
        }
        for (int i = 0; i < 2; i++) {
            for (int h = 0; h < 2; h++) {
                p[i][h] = fennel_builder_add(b, FENNEL_TASK_PUT, i);
                fennel_builder_set_peer(b, p[i][h], 1 - i);
                fennel_builder_set_amount(b, p[i][h], bytes[h]);
            }
            fennel_builder_set_any(b, p[i][0], threshold);
            fennel_builder_set_flags(b, p[i][0], FENNEL_TASK_CONCURRENT);
        }
        for (int h = 0; h < 2; h++)
            fennel_builder_add_edge(b, p[0][h], w[1][h]);
        for (int i = 0; i < 2; i++) {
            for (int h = 0; h < 2; h++)
                r[i][h] = add_task(b, FENNEL_TASK_PROXY, i, p[1][h]);
        }
        for (uint32_t part = 0; part < k; part++) {
            for (int i = 0; i < 2; i++) {
                c[i] = add_task(b, FENNEL_TASK_COMPUTE, i, w[i][part < threshold ? 0 : 1]);
                fennel_builder_set_amount(b, c[i], o->size);
                fennel_builder_set_flags(b, c[i], FENNEL_TASK_SIZED | FENNEL_TASK_CONCURRENT);
                fennel_builder_add_edge(b, c[i], p[i][0]);
                fennel_builder_add_edge(b, c[i], p[i][1]);
            }
        }
    }
    return fennel_builder_finish(b, NULL, 2, k, error);
}

const FennelGenerator fennel_gen_partitioned = {
    .name = "partitioned",
    .summary = "partitioned send/receive between ranks 0 and 1 (one slot per partition)",
    .options = FENNEL_GEN_SIZE | FENNEL_GEN_PARTITIONS | FENNEL_GEN_THRESHOLD | FENNEL_GEN_ROUNDS,
    .generate = partitioned,
};
