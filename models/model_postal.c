/* The postal (latency-bandwidth, Hockney) model: a message of s bytes takes
 * alpha + s beta, and the sender is busy until it arrives (SPEC §5). */
#include "model.h"

enum { ALPHA, BETA };

static const FennelParamSpec params[] = {
    [ALPHA] = {"alpha", FENNEL_PARAM_DURATION, "0ns", "start-up latency of a message"},
    [BETA] = {"beta", FENNEL_PARAM_RATE, "0ns/B", "time per byte (inverse bandwidth)"},
};

static FennelTime message(const FennelModel *m, int64_t bytes)
{
    return fennel_model_quantise(m,
                                 fennel_as(m->net[ALPHA]) + fennel_as_bytes(bytes, m->net[BETA]));
}

static void put(const FennelModel *m, const FennelNetOp *op, FennelNetTiming *out)
{
    FennelTime d = message(m, op->bytes);
    *out = (FennelNetTiming){
        .issuer_busy = d, .completion = d, .issuer_completion = d, .arrival = d, .back = 0};
}

/* A get is two messages: the request out and the data back. The issuer is busy for
 * the whole round trip, as the sender of a postal message is. */
static void get(const FennelModel *m, const FennelNetOp *op, FennelNetTiming *out)
{
    FennelTime there = message(m, op->request);
    FennelTime back = there + message(m, op->bytes);
    *out = (FennelNetTiming){.issuer_busy = back,
                             .completion = there,
                             .issuer_completion = back,
                             .arrival = there,
                             .back = back};
}

const FennelNetworkClass fennel_model_postal = {
    .name = "postal",
    .description = "latency-bandwidth (Hockney): alpha + s beta, sender busy until arrival",
    .params = params,
    .n_params = G_N_ELEMENTS(params),
    .put = put,
    .get = get,
};
