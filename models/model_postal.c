/* The postal (latency-bandwidth, Hockney) model: a message of s bytes takes
 * alpha + s beta, and the sender is busy until it arrives (docs/SEMANTICS.md). */
#include "model.h"

enum { ALPHA, BETA };

static const FennelParamSpec params[] = {
    [ALPHA] = {"alpha", FENNEL_PARAM_DURATION, "0ns", "start-up latency of a message"},
    [BETA] = {"beta", FENNEL_PARAM_RATE, "0ns/B", "time per byte (inverse bandwidth)"},
};

static void message(const FennelModel *m, const int64_t *values, int64_t bytes,
                    FennelMessageTiming *out)
{
    int64_t buf[FENNEL_MAX_PARAMS];
    const int64_t *p = fennel_model_params_at(m, values, bytes, buf);
    FennelTime d = fennel_model_quantise(m, fennel_as(p[ALPHA]) + fennel_as_bytes(bytes, p[BETA]));
    *out = (FennelMessageTiming){.busy = d, .flight = d, .wire = d};
}

const FennelNetworkClass fennel_model_postal = {
    .name = "postal",
    .description = "latency-bandwidth (Hockney): alpha + s beta, sender busy until arrival",
    .params = params,
    .n_params = G_N_ELEMENTS(params),
    .flags = FENNEL_NET_SENDER_WAITS,
    .message = message,
    .nic_params = 1u << BETA,
};
