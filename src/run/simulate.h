/* One simulation: programs run one after another on a fresh machine, observed by the
 * summary instrument (and a trace when asked), as `fennel run` and `fennel sweep` do. */
#ifndef FENNEL_SIMULATE_H
#define FENNEL_SIMULATE_H

#include "model.h"
#include "summary.h"
#include "trace.h"

/* The machine size the programs need: the most ranks and slots any of them uses. */
void fennel_programs_size(FennelProgram *const *programs, uint32_t *ranks, uint32_t *processes);

/* `run --together`: the programs as one, run at the same time (ATLAHS's multi-job mode with
 * the packed placement): the ranks of each follow those of the programs before it, its
 * messages stay among its own ranks, and tasks are named FILE/NAME. */
FennelProgram *fennel_programs_together(FennelProgram *const *programs, const FennelLimits *limits,
                                        GError **error);

/* A warning (to g_free) when a program's ranks send on several slots at once (thread blocks,
 * channels, CPU indices) and the model gives each of those sends the whole bandwidth: the
 * network model does not time the bytes at a NIC of the rank (postal, lbp), and no topology
 * with contention gives every rank ports of its own (one rank per node). NULL otherwise
 * (docs/TOPOLOGY.md, GPU servers and rails). */
char *fennel_parallel_senders_warning(FennelProgram *const *programs, const FennelModel *model);

/* Runs the NULL-terminated programs with the noise seed. Fills summary (initialised here;
 * clear it with fennel_summary_clear even on failure) and, if trace is not NULL, the trace.
 * events receives the number of events popped. The summary has no links CSV. */
gboolean fennel_simulate(FennelProgram *const *programs, const FennelModel *model, uint64_t seed,
                         FennelSummary *summary, FennelTrace *trace, uint64_t *events,
                         GError **error);

/* The same, with the links' figures (a topology and contention other than none): the links
 * CSV if `rows` (by intervals of `link_interval`, or per link if it is 0), and the map the
 * topology picture draws if `map` (summary.h: link_map, or link_map_error). */
gboolean fennel_simulate_links(FennelProgram *const *programs, const FennelModel *model,
                               uint64_t seed, gboolean rows, FennelTime link_interval, gboolean map,
                               FennelSummary *summary, FennelTrace *trace, uint64_t *events,
                               GError **error);

/* With faults: reruns the programs with the same seed once without each fault the
 * summary's runs met (when at most `max` did; *tried says how many were left out in turn, 0
 * otherwise), and gives the one whose absence shortens the makespan most (an index of the
 * summary's faults; the lowest on a tie) and the makespan without it, or -1 when none
 * shortens it. A rerun that fails (another fault cuts a message off) counts as no shorter. */
void fennel_simulate_worst_fault(FennelProgram *const *programs, const FennelModel *model,
                                 uint64_t seed, const FennelSummary *summary, uint32_t max,
                                 uint32_t *tried, int64_t *worst, FennelTime *without);

#endif
