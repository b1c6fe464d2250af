/* The pipelining latency-bandwidth model of Rüfenacht's thesis (§4.3): the sender is
 * busy for alpha_r, and the message arrives alpha_r + alpha_p + s beta after issue,
 * so a multicast of b puts ends at alpha_p + b alpha_r (Eq. 4.6). */
#include "model.h"

enum { ALPHA_P, ALPHA_R, BETA };

static const FennelParamSpec params[] = {
    [ALPHA_P] = {"alpha_p", FENNEL_PARAM_DURATION, "0ns",
                 "pipelined part of the latency (overlaps later sends)"},
    [ALPHA_R] = {"alpha_r", FENNEL_PARAM_DURATION, "0ns",
                 "required part: the sender is busy this long per message"},
    [BETA] = {"beta", FENNEL_PARAM_RATE, "0ns/B", "time per byte (inverse bandwidth)"},
};

static FennelTime flight(const FennelModel *m, int64_t bytes)
{
    return fennel_model_quantise(m, fennel_as(m->net[ALPHA_R]) + fennel_as(m->net[ALPHA_P]) +
                                        fennel_as_bytes(bytes, m->net[BETA]));
}

static void put(const FennelModel *m, const FennelNetOp *op, FennelNetTiming *out)
{
    FennelTime arrival = flight(m, op->bytes);
    FennelTime busy = fennel_model_quantise(m, fennel_as(m->net[ALPHA_R]));
    *out = (FennelNetTiming){.issuer_busy = op->blocking ? arrival : busy,
                             .completion = arrival,
                             .issuer_completion = arrival,
                             .arrival = arrival,
                             .back = 0};
}

/* A get: the request is a message of its own; the target's NIC answers with the data
 * as a message timed the same way, without occupying the target's slots. The issuer
 * is busy for alpha_r, like any injection. */
static void get(const FennelModel *m, const FennelNetOp *op, FennelNetTiming *out)
{
    FennelTime there = flight(m, op->request);
    FennelTime back = there + flight(m, op->bytes);
    *out = (FennelNetTiming){.issuer_busy = fennel_model_quantise(m, fennel_as(m->net[ALPHA_R])),
                             .completion = there,
                             .issuer_completion = back,
                             .arrival = there,
                             .back = back};
}

const FennelNetworkClass fennel_model_lbp = {
    .name = "lbp",
    .description = "pipelining latency-bandwidth: sender busy alpha_r, arrival after "
                   "alpha_r + alpha_p + s beta",
    .params = params,
    .n_params = G_N_ELEMENTS(params),
    .put = put,
    .get = get,
};
