/* Per-byte compute: a compute of s bytes takes s gamma (the reduction cost of the
 * papers' latency-bandwidth-compute model). */
#include "model.h"

static const FennelParamSpec params[] = {
    {"gamma", FENNEL_PARAM_RATE, "0ns/B", "compute time per byte"},
};

static FennelTime duration(const FennelModel *m, int64_t bytes)
{
    return fennel_model_quantise(m, fennel_as_bytes(bytes, m->comp[0]));
}

const FennelComputeClass fennel_compute_gamma = {
    .name = "gamma",
    .description = "a compute of s bytes takes s gamma",
    .params = params,
    .n_params = G_N_ELEMENTS(params),
    .duration = duration,
};
