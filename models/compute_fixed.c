/* Fixed compute: every sized compute takes the same duration, whatever its size. */
#include "model.h"

static const FennelParamSpec params[] = {
    {"duration", FENNEL_PARAM_DURATION, "0ns", "time of every sized compute"},
};

static FennelTime duration(const FennelModel *m, int64_t bytes)
{
    (void)bytes;
    return fennel_model_quantise(m, fennel_as(m->comp[0]));
}

const FennelComputeClass fennel_compute_fixed = {
    .name = "fixed",
    .description = "every sized compute takes `duration`",
    .params = params,
    .n_params = G_N_ELEMENTS(params),
    .duration = duration,
};
