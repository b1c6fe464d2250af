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

static void observe(void *data, const FennelProgram *program, const FennelEvent *ev)
{
    (void)program;
    FennelSummary *s = data;
    if (ev->kind == FENNEL_EVENT_COMPLETED) {
        s->tasks++;
        s->makespan = MAX(s->makespan, MAX(ev->local, MAX(ev->completion, ev->issuer_completion)));
        s->rank_finish[ev->rank] = MAX(s->rank_finish[ev->rank], ev->local);
    } else if (ev->kind == FENNEL_EVENT_BUSY) {
        /* Receive overheads and rendezvous waits occupy slots too. */
        if (ev->busy == FENNEL_BUSY_RECEIVE || ev->busy == FENNEL_BUSY_WAIT) {
            s->rank_finish[ev->rank] = MAX(s->rank_finish[ev->rank], ev->until);
            s->makespan = MAX(s->makespan, ev->until);
        }
    } else if (ev->kind == FENNEL_EVENT_MESSAGE) {
        s->messages++;
        s->bytes += (uint64_t)ev->bytes;
        s->flight_sum += ev->until - ev->time;
    }
}

FennelInstrument fennel_summary_instrument(FennelSummary *s)
{
    return (FennelInstrument){.mask =
                                  FENNEL_EVENT_COMPLETED | FENNEL_EVENT_MESSAGE | FENNEL_EVENT_BUSY,
                              .observe = observe,
                              .data = s};
}
