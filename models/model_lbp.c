/* The pipelining latency-bandwidth model of Rüfenacht's thesis (§4.3): the sender is
 * busy for alpha_r, and the message arrives alpha_r + alpha_p + s beta after issue,
 * so a multicast of b puts ends at alpha_p + b alpha_r (Eq. 4.6). A message the NIC
 * sends by itself (a get's response) has no alpha_r. */
#include "model.h"

enum { ALPHA_P, ALPHA_R, BETA };

static const FennelParamSpec params[] = {
    [ALPHA_P] = {"alpha_p", FENNEL_PARAM_DURATION, "0ns",
                 "pipelined part of the latency (overlaps later sends)"},
    [ALPHA_R] = {"alpha_r", FENNEL_PARAM_DURATION, "0ns",
                 "required part: the sender is busy this long per message"},
    [BETA] = {"beta", FENNEL_PARAM_RATE, "0ns/B", "time per byte (inverse bandwidth)"},
};

static void message(const FennelModel *m, const int64_t *values, int64_t bytes,
                    FennelMessageTiming *out)
{
    int64_t buf[FENNEL_MAX_PARAMS];
    const int64_t *p = fennel_model_params_at(m, values, bytes, buf);
    __int128 wire = fennel_as(p[ALPHA_P]) + fennel_as_bytes(bytes, p[BETA]);
    *out = (FennelMessageTiming){
        .busy = fennel_model_quantise(m, fennel_as(p[ALPHA_R])),
        .flight = fennel_model_quantise(m, fennel_as(p[ALPHA_R]) + wire),
        .wire = fennel_model_quantise(m, wire),
    };
}

const FennelNetworkClass fennel_model_lbp = {
    .name = "lbp",
    .description = "pipelining latency-bandwidth: sender busy alpha_r, arrival after "
                   "alpha_r + alpha_p + s beta",
    .params = params,
    .n_params = G_N_ELEMENTS(params),
    .message = message,
    .nic_params = 1u << BETA,
};
