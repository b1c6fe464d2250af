/* Choosing recursive-multiplying schedules from the machine ratio c = alpha_p / alpha_r
 * of the pipelining latency-bandwidth model (Rüfenacht thesis §5.4.1, §5.4.4).
 *
 * With T(b) = (alpha_p + b alpha_r) log_{b+1} N the time of a schedule whose stages
 * all send b messages, b_opt minimises T over real b and b_upper is the b > 1 where T
 * equals recursive doubling's T(1); factors up to floor(b_upper) + 1 beat recursive
 * doubling in the model. Both depend on c only. */
#ifndef FENNEL_HEURISTIC_H
#define FENNEL_HEURISTIC_H

#include "schedule.h"

/* The ratio the generators' `--schedule heuristic` uses: the thesis figure model,
 * alpha_p 500 ns over alpha_r 100 ns (thesis §5.6.1). */
#define FENNEL_HEURISTIC_DEFAULT_RATIO 5.0

/* The principal branch W0 of the Lambert W function (x >= -1/e) and the lower branch
 * W-1 (-1/e <= x < 0); NAN outside their domains. */
double fennel_lambert_w0(double x);
double fennel_lambert_wm1(double x);

/* b_opt = exp(W0((c - 1)/e) + 1) - 1 (thesis Eq. 5.8; the 2017 article's Eq. 5 lacks
 * the 1/e). Infinite for an infinite c (alpha_r = 0). */
double fennel_b_opt(double c);

/* b_upper = -((c + 1)/ln 2) W-1(-(ln 2/(c + 1)) 2^((c - 1)/(c + 1))) - 1 (thesis Eq. 5.9).
 * 3 for c = 1, 7 for c = 2; infinite for an infinite c. */
double fennel_b_upper(double c);

/* The ratio of a model's alpha_p and alpha_r: +infinity when alpha_r is 0 and alpha_p
 * is not, 0 when both are 0. */
double fennel_heuristic_machine_ratio(double alpha_p, double alpha_r);

/* The heuristic of thesis Algorithm 7 (sorted variant) for `ranks` ranks and ratio c:
 * candidate factors d = 2 .. floor(b_upper) + 1 (at most `ranks`), sorted by the
 * modelled time per stage and log, (c + d - 1)/ln d (ties: smaller d first); each is
 * taken as often as it divides the count; if a cofactor is left, the count is lowered
 * by one and the lowered rank becomes a merge remainder. A merge needs at least two
 * factors: when a lowered count is itself the first candidate dividing it, it is
 * factored again without that candidate, and skipped if that fails. When no
 * count of at least 4 ranks works, the result is recursive doubling with MPICH's
 * collapse/expand, which every rank count has. The factors are in the order found. */
FennelSchedule *fennel_heuristic(uint32_t ranks, double c);

/* The same search with the factors 2 .. max_factor tried from the largest down (the
 * unsorted variant the thesis mentions, which avoids the sort). */
FennelSchedule *fennel_heuristic_unsorted(uint32_t ranks, uint32_t max_factor);

/* The largest factor the heuristic tries for ratio c: floor(b_upper) + 1, capped to
 * `ranks` (and at least 2). */
uint32_t fennel_heuristic_max_factor(double c, uint32_t ranks);

#endif
