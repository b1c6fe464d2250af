/* allreduce-rm: recursive multiplying AllReduce (thesis §5.4, Algorithms 2-6) of any
 * schedule in the notation, "rd", or the heuristic's choice (the default). */
#include "errors.h"
#include "generator.h"
#include "recursive_multiplying.h"

static FennelProgram *generate(const FennelGenOptions *o, GError **error)
{
    if (o->ranks < 1) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT, "allreduce-rm needs --ranks >= 1");
        return NULL;
    }
    FennelSchedule *s = fennel_rm_schedule("allreduce-rm", o->schedule ? o->schedule : "heuristic",
                                           o->ranks, o->machine_ratio, error);
    if (s == NULL)
        return NULL;
    FennelProgram *p = fennel_rm_program_for(s, o->ranks, o->size, TRUE, o, error);
    if (p)
        p->schedule = fennel_rm_schedule_reason(s, o->schedule, o->machine_ratio);
    fennel_schedule_free(s);
    return p;
}

const FennelGenerator fennel_gen_allreduce_rm = {
    .name = "allreduce-rm",
    .summary = "recursive multiplying AllReduce; --schedule in the notation (a4,a3 | "
               "c6m2,a2,a2,e6m2 | m1g2a3,n1g3a2 | (3,3)+2), rd, or heuristic[:RATIO] (default)",
    .options = FENNEL_GEN_RANKS | FENNEL_GEN_SIZE | FENNEL_GEN_SCHEDULE,
    .required = FENNEL_GEN_RANKS,
    .collective = "allreduce",
    .streams = TRUE,
    .generate = generate,
};
