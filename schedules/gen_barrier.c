/* barrier-dissemination: the dissemination barrier (Hensgen, Finkel and Manber; its
 * f-way form by Hoefler et al., cited in the Rüfenacht thesis §5.3). In round j (distance
 * m = f^j, while m < p) every rank r sends a --size message to r + i m mod p for
 * i = 1 .. f - 1 with i m < p, back to back, and waits for the messages of round j
 * before the next. After the round of distance m a rank has heard, directly or not,
 * from the ranks up to f m - 1 behind it, so ceil(log_f p) rounds reach all p. --radix is
 * f (2: the classic barrier). No compute tasks. */
#include "errors.h"
#include "generator.h"
#include "stages.h"

static FennelProgram *barrier_dissemination(const FennelGenOptions *o, GError **error)
{
    uint32_t p = o->ranks;
    uint64_t f = o->radix;
    FennelStages *s = fennel_gen_stages(o, p);
    for (uint64_t m = 1; m < p; m *= f) {
        for (uint32_t r = 0; r < p; r++) {
            for (uint64_t i = 1; i < f && i * m < p; i++)
                fennel_stages_put(s, r, (uint32_t)((r + i * m) % p), o->size);
        }
        fennel_stages_close(s, FALSE);
    }
    return fennel_stages_finish(s, FALSE, error);
}

const FennelGenerator fennel_gen_barrier_dissemination = {
    .name = "barrier-dissemination",
    .summary = "dissemination barrier; --radix f for the f-way form",
    .options = FENNEL_GEN_RANKS | FENNEL_GEN_SIZE | FENNEL_GEN_RADIX,
    .collective = "barrier",
    .generate = barrier_dissemination,
};
