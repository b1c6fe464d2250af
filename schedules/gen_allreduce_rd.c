/* allreduce-rd: recursive doubling AllReduce (thesis §5.2.2.2, Algorithm 1). Powers of two
 * exchange pairwise in log2 N stages; other rank counts collapse and expand as MPICH
 * does: c(2r)m2, a2 x log2 p, e(2r)m2 with p the largest power of two below N, r = N - p. */
#include "errors.h"
#include "generator.h"
#include "recursive_multiplying.h"

static FennelProgram *generate(const FennelGenOptions *o, GError **error)
{
    if (o->ranks < 1) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT, "allreduce-rd needs --ranks >= 1");
        return NULL;
    }
    FennelSchedule *s = fennel_schedule_recursive_doubling(o->ranks);
    FennelProgram *p = fennel_rm_program_for(s, o->ranks, o->size, TRUE, o, error);
    fennel_schedule_free(s);
    return p;
}

const FennelGenerator fennel_gen_allreduce_rd = {
    .name = "allreduce-rd",
    .summary = "recursive doubling AllReduce; other rank counts by MPICH's collapse/expand "
               "(c(2r)m2, a2..., e(2r)m2)",
    .options = FENNEL_GEN_RANKS | FENNEL_GEN_SIZE,
    .required = FENNEL_GEN_RANKS,
    .collective = "allreduce",
    .streams = TRUE,
    .generate = generate,
};
