/* allgather-rd: recursive doubling AllGather: in stage s each rank sends everything it
 * has gathered (2^s contributions) to its partner. Other rank counts than powers of
 * two collapse and expand like allreduce-rd (c(2r)m2, a2..., e(2r)m2): the collapsed
 * ranks hand their contribution to a partner and receive the whole result at the end. */
#include "errors.h"
#include "generator.h"
#include "recursive_multiplying.h"

static FennelProgram *generate(const FennelGenOptions *o, GError **error)
{
    if (o->ranks < 1) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT, "allgather-rd needs --ranks >= 1");
        return NULL;
    }
    FennelSchedule *s = fennel_schedule_recursive_doubling(o->ranks);
    FennelProgram *p = fennel_rm_program_for(s, o->ranks, o->size, FALSE, o, error);
    fennel_schedule_free(s);
    return p;
}

const FennelGenerator fennel_gen_allgather_rd = {
    .name = "allgather-rd",
    .summary = "recursive doubling AllGather (--size per rank; messages double each stage); "
               "other rank counts by collapse/expand",
    .options = FENNEL_GEN_RANKS | FENNEL_GEN_SIZE,
    .required = FENNEL_GEN_RANKS,
    .collective = "allgather",
    .streams = TRUE,
    .generate = generate,
};
