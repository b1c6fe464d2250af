#include "summary.h"

void fennel_summary_init(FennelSummary *s, uint32_t ranks)
{
    *s = (FennelSummary){.ranks = ranks, .rank_finish = g_new0(FennelTime, ranks ? ranks : 1)};
}

void fennel_summary_clear(FennelSummary *s)
{
    g_free(s->rank_finish);
    s->rank_finish = NULL;
}

/* The summary listens to messages and to the end of each run only, so that it costs
 * nothing per task. */
static void observe(void *data, const FennelProgram *program, const FennelEvent *ev)
{
    (void)program;
    FennelSummary *s = data;
    switch (ev->kind) {
    case FENNEL_EVENT_MESSAGE:
        s->messages++;
        s->bytes += (uint64_t)ev->bytes;
        s->flight_sum += ev->until - ev->time;
        break;
    case FENNEL_EVENT_RANK_FINISHED:
        s->rank_finish[ev->rank] = MAX(s->rank_finish[ev->rank], ev->time);
        break;
    case FENNEL_EVENT_RUN_FINISHED:
        s->makespan = MAX(s->makespan, ev->time);
        s->tasks += ev->task;
        break;
    default:
        break;
    }
}

FennelInstrument fennel_summary_instrument(FennelSummary *s)
{
    return (FennelInstrument){.mask = FENNEL_EVENT_MESSAGE | FENNEL_EVENT_RANK_FINISHED |
                                      FENNEL_EVENT_RUN_FINISHED,
                              .observe = observe,
                              .data = s};
}
