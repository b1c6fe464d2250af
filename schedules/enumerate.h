/* The recursive-multiplying schedules of a rank count (Rüfenacht thesis §5.4.4,
 * Fig. 5.15; the 2017 article §6.1), in three families:
 *   factored   every ordered factorisation of N into factors >= 2 (there are H(N),
 *              OEIS A074206); N = 1 has the empty schedule "()"
 *   collapsed  cTmB, a factored schedule of M = N - T + T/B, eTmB, for every threshold
 *              T in 2..N and base B >= 2 dividing T (M = 1 leaves nothing between)
 *   merged     mRgGaF1, factors, nRgGaFk for every remainder R in 1..N-4 and every
 *              ordered factorisation of the core N - R with at least two factors
 * Enumeration order: the families in that order; B, then T, and R ascending;
 * factorisations in lexicographic order of their factors. It breaks ties between equal
 * costs. */
#ifndef FENNEL_ENUMERATE_H
#define FENNEL_ENUMERATE_H

#include "cost.h"
#include "schedule.h"

typedef enum {
    FENNEL_FAMILY_FACTORED = 1 << 0,
    FENNEL_FAMILY_COLLAPSED = 1 << 1,
    FENNEL_FAMILY_MERGED = 1 << 2,
    FENNEL_FAMILY_ALL = 7,
} FennelFamily;

const char *fennel_family_name(FennelFamily family);

/* Called for every schedule; the schedule is valid during the call only. Returning
 * FALSE stops the enumeration. */
typedef gboolean (*FennelScheduleVisitor)(const FennelSchedule *s, FennelFamily family, void *data);

/* Visits every schedule of the families (a mask of FennelFamily) for `ranks` ranks. */
void fennel_enumerate(uint32_t ranks, unsigned families, FennelScheduleVisitor visit, void *data);

/* How many schedules each family has, without listing them (saturating at
 * UINT64_MAX). Memory and time O(N log N). */
typedef struct {
    uint64_t factored, collapsed, merged;
} FennelScheduleCounts;

void fennel_schedule_counts(uint32_t ranks, FennelScheduleCounts *out);

typedef struct {
    FennelSchedule *schedule;
    FennelFamily family;
    double cost;
    uint64_t index; /* grows with the enumeration order */
} FennelRankedSchedule;

/* The `limit` cheapest schedules of the families by fennel_schedule_cost, cheapest
 * first, ties in enumeration order; *n gets how many (fewer when there are fewer).
 * Branches that cannot beat the limit-th best are pruned with the exact cost of the
 * cheapest run of aF stages for the remaining product (computed for every product up
 * to N first, in O(N log N)), so the search stays fast for large N. Free with
 * fennel_ranked_free. */
FennelRankedSchedule *fennel_enumerate_best(uint32_t ranks, unsigned families,
                                            const FennelCost *cost, uint32_t limit, uint32_t *n);
void fennel_ranked_free(FennelRankedSchedule *r, uint32_t n);

#endif
