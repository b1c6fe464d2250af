/* Programs of recursive-multiplying schedules (Rüfenacht thesis §5.4.3, Algorithms
 * 2-6): the AllReduce and the AllGather of any schedule in the notation of
 * schedule.h, built stage by stage with stages.h (docs/SCHEDULES.md). */
#ifndef FENNEL_RECURSIVE_MULTIPLYING_H
#define FENNEL_RECURSIVE_MULTIPLYING_H

#include "program.h"
#include "schedule.h"
#include "generator.h"

/* The program of a schedule that passed fennel_schedule_check for `ranks`. With
 * `reducing` it is an AllReduce: every put carries `size` bytes and receivers reduce
 * (one compute per stage). Otherwise it is an AllGather of `size` bytes per rank:
 * a put carries every contribution its sender holds, so messages grow with the data
 * gathered, and there are no computes.
 *
 * The stages, as in the thesis' algorithms: in aF with stage mask S (the product of
 * the block's earlier factors), working rank w sends to block + (w + j S) mod F S for
 * j = 1..F-1, block = floor(w / F S) F S. cTmB: below T, each rank sends to the highest
 * rank of its group of B and goes quiet; the survivors take working ranks 0..T/B-1
 * and the ranks from T on follow. eTmB: each survivor sends the result to the other
 * B - 1 members of its group. mRgGaF: the first R working ranks are the remainder,
 * the rest the core; the core does aF while remainder k sends to the F members of core
 * group k mod G. nRgGaF: the core does its last aF (mask G) and each core rank w also
 * sends its pre-stage value to every remainder k with k = w (mod G). */
FennelProgram *fennel_rm_program(const FennelSchedule *s, uint32_t ranks, int64_t size,
                                 gboolean reducing, GError **error);
/* The same for a generator: within o's limits and streamed to o's sink (generator.h). */
FennelProgram *fennel_rm_program_for(const FennelSchedule *s, uint32_t ranks, int64_t size,
                                     gboolean reducing, const FennelGenOptions *o, GError **error);

/* The schedule a generator's --schedule names for `ranks` ranks: the notation,
 * "rd" (recursive doubling, fennel_schedule_recursive_doubling), "heuristic" (the
 * heuristic at machine_ratio, which may be 0 or +infinity) or
 * "heuristic:C" (at ratio C). Errors
 * (FENNEL_ERROR_INPUT) start with "GENERATOR: --schedule TEXT" and say why the
 * schedule is malformed or impossible for `ranks`. */
FennelSchedule *fennel_rm_schedule(const char *generator, const char *text, uint32_t ranks,
                                   double machine_ratio, GError **error);

/* The schedule chosen for --schedule `text` (NULL: the heuristic) and why: "a4,a4,a4
 * (heuristic, ratio alpha_p/alpha_r 5)", "a2,a2 (recursive doubling)", or the schedule alone
 * when it was given. g_free it. */
char *fennel_rm_schedule_reason(const FennelSchedule *s, const char *text, double machine_ratio);

#endif
