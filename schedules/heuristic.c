/* b_opt, b_upper and the schedule heuristic of Rüfenacht's thesis §5.4. */
#include "heuristic.h"

#include <math.h>
#include <stdlib.h>

/* Halley's iteration for w e^w = x from the start w. */
static double lambert_halley(double x, double w)
{
    for (int i = 0; i < 100; i++) {
        double ew = exp(w), f = w * ew - x;
        double step = f / (ew * (w + 1) - (w + 2) * f / (2 * w + 2));
        w -= step;
        if (fabs(step) <= 1e-15 * (1 + fabs(w)))
            break;
    }
    return w;
}

double fennel_lambert_w0(double x)
{
    const double branch = -exp(-1.0);
    if (isnan(x) || x < branch)
        return NAN;
    if (isinf(x))
        return x;
    double w;
    if (x - branch < 1e-15)
        return -1.0;
    if (x < -0.25) {
        /* The series about the branch point, in p = sqrt(2 (e x + 1)). */
        double p = sqrt(2 * (M_E * x + 1));
        w = -1 + p - p * p / 3 + 11.0 / 72 * p * p * p;
    } else if (x < 3) {
        w = log1p(x) * 0.8;
    } else {
        double l = log(x);
        w = l - log(l);
    }
    return lambert_halley(x, w);
}

double fennel_lambert_wm1(double x)
{
    const double branch = -exp(-1.0);
    if (isnan(x) || x < branch || x >= 0)
        return NAN;
    if (x - branch < 1e-15)
        return -1.0;
    double w;
    if (x < -0.25) {
        double p = -sqrt(2 * (M_E * x + 1));
        w = -1 + p - p * p / 3 + 11.0 / 72 * p * p * p;
    } else {
        double l = log(-x);
        w = l - log(-l);
    }
    return lambert_halley(x, w);
}

double fennel_b_opt(double c)
{
    if (isinf(c))
        return INFINITY;
    return exp(fennel_lambert_w0((c - 1) / M_E) + 1) - 1;
}

double fennel_b_upper(double c)
{
    if (isinf(c))
        return INFINITY;
    double arg = -(M_LN2 / (c + 1)) * pow(2.0, (c - 1) / (c + 1));
    return -((c + 1) / M_LN2) * fennel_lambert_wm1(arg) - 1;
}

double fennel_heuristic_machine_ratio(double alpha_p, double alpha_r)
{
    if (alpha_r > 0)
        return alpha_p / alpha_r;
    return alpha_p > 0 ? INFINITY : 0.0;
}

uint32_t fennel_heuristic_max_factor(double c, uint32_t ranks)
{
    double upper = fennel_b_upper(c);
    double limit = isnan(upper) ? 2.0 : floor(upper) + 1;
    uint32_t max = limit >= (double)ranks ? ranks : (uint32_t)limit;
    return MAX(max, 2u);
}

typedef struct {
    uint32_t d;
    double key;
} Candidate;

static int by_key(const void *a, const void *b)
{
    const Candidate *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->d < y->d ? -1 : x->d > y->d;
}

/* Greedy factoring of count by the candidates in order, skipping the candidate `skip`:
 * the number of factors, or 0 when a cofactor is left. */
static uint32_t factor_greedy(uint32_t count, const uint32_t *order, uint32_t n, uint32_t skip,
                              uint32_t *factors)
{
    uint32_t k = 0;
    uint64_t product = 1;
    for (uint32_t i = 0; i < n; i++) {
        if (order[i] == skip)
            continue;
        while (k < 64 && count % (product * order[i]) == 0) {
            factors[k++] = order[i];
            product *= order[i];
        }
    }
    return product == count ? k : 0;
}

/* Algorithm 7 over the candidate divisors in the order given. */
static FennelSchedule *search(uint32_t ranks, const uint32_t *order, uint32_t n)
{
    uint32_t factors[64];
    for (uint32_t count = ranks; count >= 4; count--) {
        uint32_t merge = ranks - count;
        uint32_t k = factor_greedy(count, order, n, 0, factors);
        /* A merge needs at least two factor stages (thesis §5.4.2): when the count is
         * itself the first candidate that divides it, try again without it. */
        if (merge > 0 && k == 1)
            k = factor_greedy(count, order, n, count, factors);
        if (k >= 1 && (merge == 0 || k >= 2))
            return fennel_schedule_factored(factors, k, merge);
    }
    /* Fewer than 4 ranks left: nothing to merge into. Two and three ranks factor
     * directly whenever their factor is a candidate. */
    if (ranks < 4) {
        uint32_t k = factor_greedy(ranks, order, n, 0, factors);
        if (k >= 1)
            return fennel_schedule_factored(factors, k, 0);
    }
    return fennel_schedule_recursive_doubling(ranks);
}

FennelSchedule *fennel_heuristic(uint32_t ranks, double c)
{
    if (ranks <= 1)
        return fennel_schedule_new(0);
    uint32_t max = fennel_heuristic_max_factor(c, ranks), n = max - 1;
    Candidate *cand = g_new(Candidate, n);
    for (uint32_t d = 2; d <= max; d++) {
        /* The time per stage over the log it covers; with an infinite c only alpha_p
         * counts, so the key is 1/ln d. */
        double key = isinf(c) ? 1 / log(d) : (c + d - 1) / log(d);
        cand[d - 2] = (Candidate){d, key};
    }
    qsort(cand, n, sizeof *cand, by_key);
    uint32_t *order = g_new(uint32_t, n);
    for (uint32_t i = 0; i < n; i++)
        order[i] = cand[i].d;
    FennelSchedule *s = search(ranks, order, n);
    g_free(order);
    g_free(cand);
    return s;
}

FennelSchedule *fennel_heuristic_unsorted(uint32_t ranks, uint32_t max_factor)
{
    if (ranks <= 1)
        return fennel_schedule_new(0);
    uint32_t max = MAX(MIN(max_factor, ranks), 2u), n = max - 1;
    uint32_t *order = g_new(uint32_t, n);
    for (uint32_t i = 0; i < n; i++)
        order[i] = max - i;
    FennelSchedule *s = search(ranks, order, n);
    g_free(order);
    return s;
}
