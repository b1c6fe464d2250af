/* LogP and LogGP(S), timed as LogGOPSim times an eager send whose receive is posted
 * (docs/SEMANTICS.md): the sender's slot is busy o + (s-1)O and its NIC g + (s-1)G; the data
 * arrives o + L after the send starts; the receiver's NIC is then busy g + (s-1)G and
 * one of its slots o + max((s-1)O, (s-1)G). Unlike LogGOPSim, a 0-byte message costs
 * nothing per byte (no unsigned wrap-around). LogP is LogGP with G = O = 0. */
#include "model.h"

enum { L, O_, G_, G, O, S };

static const FennelParamSpec loggp_params[] = {
    [L] = {"L", FENNEL_PARAM_DURATION, "0ns", "latency: send start to arrival, after o"},
    [O_] = {"o", FENNEL_PARAM_DURATION, "0ns", "CPU overhead per message, send and receive"},
    [G_] = {"g", FENNEL_PARAM_DURATION, "0ns", "NIC gap per message, send and receive"},
    [G] = {"G", FENNEL_PARAM_RATE, "0ns/B", "NIC gap per byte (for s-1 bytes)"},
    [O] = {"O", FENNEL_PARAM_RATE, "0ns/B", "CPU overhead per byte (for s-1 bytes)"},
    [S] = {"S", FENNEL_PARAM_SIZE, "none",
           "rendezvous threshold: two-sided messages above it wait for their receive"},
};

static void message(const FennelModel *m, const int64_t *params, int64_t bytes,
                    FennelMessageTiming *out)
{
    int64_t buf[FENNEL_MAX_PARAMS];
    const int64_t *p = fennel_model_params_at(m, params, bytes, buf);
    int64_t extra = bytes > 0 ? bytes - 1 : 0;
    __int128 o = fennel_as(p[O_]), g = fennel_as(p[G_]);
    __int128 per_o = fennel_as_bytes(extra, p[O]), per_g = fennel_as_bytes(extra, p[G]);
    *out = (FennelMessageTiming){
        .busy = fennel_model_quantise(m, o + per_o),
        .gap = fennel_model_quantise(m, g + per_g),
        .flight = fennel_model_quantise(m, o + fennel_as(p[L])),
        .wire = fennel_model_quantise(m, fennel_as(p[L])),
        .recv_busy = fennel_model_quantise(m, o + MAX(per_o, per_g)),
        .recv_gap = fennel_model_quantise(m, g + per_g),
        .nic_bytes = fennel_model_quantise(m, fennel_as_bytes(bytes, p[G])),
    };
}

static gboolean rendezvous(const int64_t *p, int64_t bytes)
{
    return p[S] >= 0 && bytes > p[S];
}

const FennelNetworkClass fennel_model_loggp = {
    .name = "loggp",
    .description = "LogGP(S) as LogGOPSim times it: CPU overheads o + (s-1)O, NIC gaps "
                   "g + (s-1)G, latency L, rendezvous above S",
    .params = loggp_params,
    .n_params = G_N_ELEMENTS(loggp_params),
    .flags = FENNEL_NET_CONTENDED | FENNEL_NET_NIC_BYTES,
    .message = message,
    .rendezvous = rendezvous,
    .nic_params = 1u << G,
};

/* LogP: the first three parameters of LogGP, in the same slots, with G, O and S left at
 * their zero / "none" defaults. */
const FennelNetworkClass fennel_model_logp = {
    .name = "logp",
    .description = "LogP: CPU overhead o per message at each end, NIC gap g, latency L",
    .params = loggp_params,
    .n_params = 3,
    .flags = FENNEL_NET_CONTENDED | FENNEL_NET_NIC_BYTES,
    .message = message,
};
