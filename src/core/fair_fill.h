/* Max-min fair rates of flows sharing links, by progressive filling: the pure function
 * behind contention `fair` (engine_fair.c, docs/TOPOLOGY.md), with its own unit test
 * (tests/test_fair_fill.c). */
#ifndef FENNEL_FAIR_FILL_H
#define FENNEL_FAIR_FILL_H

#include <stdint.h>

/* The links one flow crosses, as indices into the capacities (each at most once). */
typedef struct {
    const uint32_t *links;
    uint32_t n_links;
} FennelFairPath;

/* The flows of a run, and scratch kept between calls so that a run's many recomputations
 * allocate nothing. */
typedef struct FennelFairFill FennelFairFill;

FennelFairFill *fennel_fair_fill_new(void);
void fennel_fair_fill_free(FennelFairFill *s);

/* A run's flows come and go one at a time, and each link keeps the list of flows crossing it
 * from one recomputation to the next instead of sorting them out again every time. A flow is
 * known by a slot, below fennel_fair_fill_slots(): fennel_fair_fill_add() gives a new flow
 * the next one (the links are copied), and fennel_fair_fill_remove() gives the removed
 * flow's slot to the flow in the last one (unless it was the last), as an array whose last
 * element fills a removed one's place, so that the slots of the flows present are always 0
 * to fennel_fair_fill_slots() - 1. */
uint32_t fennel_fair_fill_add(FennelFairFill *s, const uint32_t *links, uint32_t n_links);
void fennel_fair_fill_remove(FennelFairFill *s, uint32_t slot);
uint32_t fennel_fair_fill_slots(const FennelFairFill *s);
/* The links of the flow in `slot` (their count returned, in *links), in the order
 * fennel_fair_fill_add() was given them; valid until the next add or remove. A caller need not
 * keep a copy of its flows' paths. */
uint32_t fennel_fair_fill_path(const FennelFairFill *s, uint32_t slot, const uint32_t **links);

/* The rates of the flows added and not removed, by slot (fennel_fair_fill_slots() entries),
 * as fennel_fair_fill() would give them for the same flows. The
 * array is the filling's, valid until the next call. When no capacity changed since the
 * last call, the call redoes only the levels of the last filling from the first one that
 * the flows removed and added since change: the one that fixed the earliest removed flow,
 * or an earlier one at which a link of an added flow, with it, would have had a share
 * within the tie tolerance of the level's or was a bottleneck. The result is the same. */
const double *fennel_fair_fill_rates(FennelFairFill *s, const double *capacity,
                                     uint32_t n_capacity);

/* The same filling as fennel_fair_fill_rates(), told by level: by slot, the level of the
 * filling that fixed each flow, FENNEL_FAIR_NO_LEVEL for a flow crossing no link (its rate
 * is INFINITY), and in *share each level's rate; a flow's rate is share[level]. Fixing a
 * flow then writes one number, and a caller reading every flow's rate reads them in order.
 * Both arrays are the filling's, valid until the next call or add or remove. */
#define FENNEL_FAIR_NO_LEVEL UINT32_MAX
const uint32_t *fennel_fair_fill_levels(FennelFairFill *s, const double *capacity,
                                        uint32_t n_capacity, const double **share);

/* The level of the last filling the last call (fennel_fair_fill_rates() or
 * fennel_fair_fill_levels()) took up (0: it filled from the start), so that tests can check
 * that a call resumed and profiles can count it. */
uint32_t fennel_fair_fill_resumed(const FennelFairFill *s);

/* The links the flows added and not removed cross (the count returned, in *links), and by
 * link a rate at most the lowest the last call (fennel_fair_fill_rates() or
 * fennel_fair_fill_levels()) gave a flow crossing it and at least the lowest any call gave
 * one (*lowest, indexed by link): their running
 * minimum over the calls is that of the calls' lowest rates. Valid until the next add or
 * remove. */
uint32_t fennel_fair_fill_links(const FennelFairFill *s, const uint32_t **links,
                                const double **lowest);

/* Sets rate[i] to flow i's max-min fair rate (in the unit of the capacities) among the
 * n_flows flows of `paths`, capacity[l] being link l's (n_capacity entries, every link of a
 * path below n_capacity). Progressive filling: the links whose capacity not yet given out
 * per flow not yet fixed is the lowest (within a relative 1e-12: ties) fix that share as the
 * rate of every unfixed flow crossing them, which takes it from the other links those flows
 * cross; and so on until every flow is fixed. The result depends only on the set of flows
 * and links, not on their order, to the last bit. A flow crossing no link gets INFINITY. */
void fennel_fair_fill(FennelFairFill *s, const double *capacity, uint32_t n_capacity,
                      const FennelFairPath *paths, uint32_t n_flows, double *rate);
/* (s must hold no flows added by fennel_fair_fill_add(): it adds these, and removes them.) */

#endif
