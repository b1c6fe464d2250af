/* Analytic schedule costs: the sum of per-stage multicast times (see cost.h). */
#include "cost.h"

#include "heuristic.h"

static uint32_t fennel_stage_sends(const FennelStage *st)
{
    switch (st->kind) {
    case FENNEL_STAGE_FACTOR:
        return st->factor - 1;
    case FENNEL_STAGE_COLLAPSE:
        return 1;
    case FENNEL_STAGE_EXPAND:
        return st->base - 1;
    case FENNEL_STAGE_MERGE:
        return st->factor;
    case FENNEL_STAGE_UNMERGE:
        return st->factor - 1 + (st->remainder + st->groups - 1) / st->groups;
    }
    return 0;
}

static uint32_t fennel_stage_receives(const FennelStage *st)
{
    switch (st->kind) {
    case FENNEL_STAGE_FACTOR:
        return st->factor - 1;
    case FENNEL_STAGE_COLLAPSE:
        return st->base - 1;
    case FENNEL_STAGE_EXPAND:
        return 1;
    case FENNEL_STAGE_MERGE:
        /* A core rank hears from its F - 1 peers and the remainders of its group. */
        return st->factor - 1 + (st->remainder + st->groups - 1) / st->groups;
    case FENNEL_STAGE_UNMERGE:
        /* A remainder hears from the F ranks of one group. */
        return st->factor;
    }
    return 0;
}

/* A message's issue interval (how soon the sender can issue the next one) and its
 * flight (issue to arrival), in ps. */
static void message_times(const FennelModel *model, int64_t bytes, double *issue, double *flight)
{
    const int64_t *params;
    const FennelNetworkClass *net = fennel_model_network(model, 0, 1, &params);
    FennelMessageTiming t;
    net->message(model, params, bytes, &t);
    FennelTime interval = (net->flags & FENNEL_NET_SENDER_WAITS) ? t.flight : MAX(t.busy, t.gap);
    *issue = (double)interval;
    *flight = (double)t.flight;
}

void fennel_cost_init_model(FennelCost *c, const FennelModel *model, int64_t size)
{
    *c = (FennelCost){.model = model, .size = size};
    message_times(model, size, &c->busy, &c->flight);
}

void fennel_cost_init_alpha(FennelCost *c, double alpha_p, double alpha_r)
{
    *c = (FennelCost){.alpha_p = alpha_p, .alpha_r = alpha_r};
}

double fennel_stage_cost(const FennelCost *c, const FennelStage *st)
{
    uint32_t b = fennel_stage_sends(st);
    if (c->model == NULL)
        return c->alpha_p + b * c->alpha_r;
    __int128 bytes = (__int128)fennel_stage_receives(st) * c->size;
    int64_t received = bytes > INT64_MAX ? INT64_MAX : (int64_t)bytes;
    double compute = (double)c->model->compute->duration(c->model, received);
    return (b - 1) * c->busy + c->flight + compute;
}

double fennel_schedule_cost(const FennelCost *c, const FennelSchedule *s)
{
    double total = 0;
    for (uint32_t i = 0; i < s->n_stages; i++)
        total += fennel_stage_cost(c, &s->stages[i]);
    return total;
}

double fennel_heuristic_ratio_for(const FennelModel *model)
{
    if (model == NULL)
        return FENNEL_HEURISTIC_DEFAULT_RATIO;
    double alpha_p, alpha_r;
    fennel_model_alphas(model, &alpha_p, &alpha_r);
    return fennel_heuristic_machine_ratio(alpha_p, alpha_r);
}

void fennel_model_alphas(const FennelModel *model, double *alpha_p, double *alpha_r)
{
    double issue, flight;
    message_times(model, 0, &issue, &flight);
    *alpha_r = issue / 1000.0;
    *alpha_p = MAX(flight - issue, 0.0) / 1000.0;
}
