/* The reduction's cost: a compute of s bytes (a reduction step of a generator reduces the
 * bytes it received) takes s gamma while s fits in the cache, and each byte beyond `cache`
 * takes gamma_memory: min(s, cache) gamma + max(s - cache, 0) gamma_memory. A cache of 0
 * means no threshold: s gamma at every size. */
#include "model.h"

enum { GAMMA, CACHE, GAMMA_MEMORY };

static const FennelParamSpec params[] = {
    [GAMMA] = {"gamma", FENNEL_PARAM_RATE, "0ns/B", "reduction time per byte"},
    [CACHE] = {"cache", FENNEL_PARAM_SIZE, "0B",
               "bytes reduced at gamma per step (0: no threshold, every byte at gamma)"},
    [GAMMA_MEMORY] = {"gamma_memory", FENNEL_PARAM_RATE, "0ns/B",
                      "reduction time per byte beyond the cache"},
};

static FennelTime duration(const FennelModel *m, int64_t bytes)
{
    int64_t cache = m->comp[CACHE];
    if (cache <= 0 || bytes <= cache)
        return fennel_model_quantise(m, fennel_as_bytes(bytes, m->comp[GAMMA]));
    return fennel_model_quantise(m, fennel_as_bytes(cache, m->comp[GAMMA]) +
                                        fennel_as_bytes(bytes - cache, m->comp[GAMMA_MEMORY]));
}

const FennelComputeClass fennel_compute_reduction = {
    .name = "reduction",
    .description = "a compute of s bytes takes min(s, cache) gamma + max(s - cache, 0) "
                   "gamma_memory (cache 0: s gamma)",
    .params = params,
    .n_params = G_N_ELEMENTS(params),
    .duration = duration,
};
