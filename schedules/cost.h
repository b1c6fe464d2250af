/* Analytic cost of recursive-multiplying AllReduce schedules under the pipelining
 * latency-bandwidth model (Rüfenacht thesis §5.4.1-5.4.2).
 *
 * A stage in which the busiest sender issues b messages costs alpha_p + b alpha_r
 * (the multicast of thesis Eq. 4.6), and a schedule costs the sum of its stages. The
 * busiest sender issues:
 *   aF       F - 1
 *   cTmB     1
 *   eTmB     B - 1
 *   mRgGaF   F (a remainder's multicast to its group, thesis §5.4.2)
 *   nRgGaF   F - 1 + ceil(R/G) (thesis Eq. 5.11, G the number of groups)
 *
 * With a model the same sum also counts the message size and the reduction: a stage
 * takes (b - 1) issue intervals plus one flight (issue to arrival of an n-byte
 * message) plus one compute of the most bytes a rank receives in it. The issue
 * interval is the sender's busy time (or the NIC gap if longer), or the whole flight
 * under a model whose sender waits for the arrival (postal). Receive overheads
 * (LogP) are not counted. Under lbp this is
 * alpha_p + b alpha_r + n beta + compute, exactly what the engine gives for a purely
 * factored schedule; for collapsed and merged schedules, whose ranks run skewed, the
 * simulation can finish earlier (thesis §5.6.2). */
#ifndef FENNEL_COST_H
#define FENNEL_COST_H

#include "model.h"
#include "schedule.h"

typedef struct {
    /* With a model: picoseconds from the model's put and compute timings of `size`
     * bytes. Without one (NULL): alpha_p + b alpha_r in the units of alpha_p and
     * alpha_r, message terms zero, as in thesis §5.4. */
    const FennelModel *model;
    int64_t size;
    double alpha_p, alpha_r;
    /* Set by fennel_cost_init_model: a message's issue interval and flight, in ps. */
    double busy, flight;
} FennelCost;

/* Prepares a cost from a model (which must outlive it) and a message size. */
void fennel_cost_init_model(FennelCost *c, const FennelModel *model, int64_t size);
/* Prepares the pure alpha form. */
void fennel_cost_init_alpha(FennelCost *c, double alpha_p, double alpha_r);

double fennel_stage_cost(const FennelCost *c, const FennelStage *st);
double fennel_schedule_cost(const FennelCost *c, const FennelSchedule *s);

/* The alpha_p and alpha_r a model implies for the heuristic, in nanoseconds: a 0-byte
 * message lets its sender issue the next one after alpha_r and arrives alpha_p after
 * that (lbp: its parameters; postal, whose sender waits for the arrival: alpha_r =
 * alpha, alpha_p = 0; LogP: alpha_r = max(o, g)). Placement is ignored: the messages
 * are timed as between ranks 0 and 1. */
void fennel_model_alphas(const FennelModel *model, double *alpha_p, double *alpha_r);

/* The ratio alpha_p / alpha_r that `--schedule heuristic` uses for a program that will run
 * under `model`, the one place that decides it for run, generate, sweep and schedules: the
 * model's ratio whatever it is (0 when alpha_p is 0, as under postal; +infinity when
 * alpha_r is 0 and alpha_p is not), and FENNEL_HEURISTIC_DEFAULT_RATIO without a model. */
double fennel_heuristic_ratio_for(const FennelModel *model);

#endif
