/* allgather-rm: recursive multiplying AllGather, the data movement of allreduce-rm's
 * schedule without the reductions: each put carries every contribution its sender
 * holds, so messages grow with the data gathered. */
#include "errors.h"
#include "generator.h"
#include "recursive_multiplying.h"

static FennelProgram *generate(const FennelGenOptions *o, GError **error)
{
    if (o->ranks < 1) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT, "allgather-rm needs --ranks >= 1");
        return NULL;
    }
    FennelSchedule *s = fennel_rm_schedule("allgather-rm", o->schedule ? o->schedule : "heuristic",
                                           o->ranks, o->machine_ratio, error);
    if (s == NULL)
        return NULL;
    FennelProgram *p = fennel_rm_program_for(s, o->ranks, o->size, FALSE, o, error);
    if (p)
        p->schedule = fennel_rm_schedule_reason(s, o->schedule, o->machine_ratio);
    fennel_schedule_free(s);
    return p;
}

const FennelGenerator fennel_gen_allgather_rm = {
    .name = "allgather-rm",
    .summary = "recursive multiplying AllGather (--size per rank); --schedule as for "
               "allreduce-rm, default heuristic",
    .options = FENNEL_GEN_RANKS | FENNEL_GEN_SIZE | FENNEL_GEN_SCHEDULE,
    .required = FENNEL_GEN_RANKS,
    .collective = "allgather",
    .streams = TRUE,
    .generate = generate,
};
