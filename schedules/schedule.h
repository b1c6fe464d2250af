/* The recursive-multiplying schedule notation (docs/SCHEDULES.md; Rüfenacht thesis §5.4.3, §5.6).
 *
 * A schedule is a list of stages, comma-separated, optionally in parentheses:
 *   aF      all-to-all within groups of F ranks (a factor stage, F >= 2)
 *   cTmB    collapse: the ranks below the threshold T, in groups of B, send to the
 *           group's highest rank and go quiet
 *   eTmB    expand: the inverse of cTmB, the survivors send the result back
 *   mRgGaF  merge: R remainder ranks send their value to the F members of a group of
 *           the core (G groups, R + G F = ranks), which does an aF stage meanwhile
 *   nRgGaF  inverse merge: the core's last aF stage (G groups), whose groups also send
 *           their partials to the remainder ranks
 * A bare number F stands for aF, so "(4,4,3)" is "a4,a4,a3"; "(3,3)+2" is the merged
 * schedule with remainder 2 (the form the heuristic reports): "m2g3a3,n2g3a3" for 11
 * ranks. "()" is the empty schedule of a single rank.
 *
 * Structure: a schedule is a block; a block is a run of factor stages, or a collapse
 * followed by a block and the matching expand, or a merge, factor stages and the
 * matching inverse merge. Collapse and merge therefore only open and close a schedule
 * (possibly nested: a collapse around a merge), as in the thesis. */
#ifndef FENNEL_SCHEDULE_H
#define FENNEL_SCHEDULE_H

#include <glib.h>
#include <stdint.h>

typedef enum {
    FENNEL_STAGE_FACTOR,   /* aF */
    FENNEL_STAGE_COLLAPSE, /* cTmB */
    FENNEL_STAGE_EXPAND,   /* eTmB */
    FENNEL_STAGE_MERGE,    /* mRgGaF */
    FENNEL_STAGE_UNMERGE,  /* nRgGaF */
} FennelStageKind;

typedef struct {
    FennelStageKind kind;
    uint32_t factor;    /* a, m, n: the group size F */
    uint32_t threshold; /* c, e: T */
    uint32_t base;      /* c, e: B */
    uint32_t remainder; /* m, n: R */
    uint32_t groups;    /* m, n: G */
} FennelStage;

typedef struct {
    uint32_t n_stages;
    FennelStage *stages;
} FennelSchedule;

FennelSchedule *fennel_schedule_new(uint32_t n_stages);
FennelSchedule *fennel_schedule_copy(const FennelSchedule *s);
void fennel_schedule_free(FennelSchedule *s);

/* Parses the notation (the structure is checked by fennel_schedule_check). Errors
 * (FENNEL_ERROR_INPUT) say which stage is malformed and why. "heuristic" and "rd" are
 * names, not notation: see fennel_rm_schedule(). */
FennelSchedule *fennel_schedule_parse(const char *text, GError **error);

/* Checks that the schedule is a valid block for `ranks` ranks: the structure above,
 * factors that multiply to the active ranks, T divisible by B, R + G F equal to the
 * active ranks, ... The error (FENNEL_ERROR_INPUT) says why it is impossible. With
 * `active` (n_stages entries) it also gives the number of ranks active in each stage
 * (for m and n, remainder and core together; for the factor stages between them, the
 * core). */
gboolean fennel_schedule_check(const FennelSchedule *s, uint32_t ranks, uint32_t *active,
                               GError **error);

/* The printed form in the notation: "a4,a2", "c6m2,a2,a2,e6m2", "m1g2a3,n1g3a2", "()"
 * for the empty schedule. g_free the result. */
char *fennel_schedule_format(const FennelSchedule *s);

/* The compact form the heuristic reports, "(4,3)" or "(4,3)+1", when the schedule is
 * purely factored or a merge around factor stages; NULL otherwise. g_free it. */
char *fennel_schedule_format_short(const FennelSchedule *s);

/* Factor stages f[0..n-1], merged with `remainder` ranks when it is not zero (then
 * n >= 2 and the core is the product of the factors). */
FennelSchedule *fennel_schedule_factored(const uint32_t *factors, uint32_t n, uint32_t remainder);

/* Recursive doubling as MPICH does it: a2 stages for a power of two, otherwise
 * c(2r)m2, a2 x log2(p), e(2r)m2 with p the largest power of two <= ranks, r = ranks - p. */
FennelSchedule *fennel_schedule_recursive_doubling(uint32_t ranks);

/* Messages (puts) the schedule sends on `ranks` ranks: thesis Eq. 5.12 generalised,
 * sum over factor stages of M (F - 1) for M active ranks, plus R F for a merge and an
 * inverse merge, and (T/B)(B - 1) for a collapse and an expand. The schedule must
 * have passed fennel_schedule_check for `ranks`. */
uint64_t fennel_schedule_messages(const FennelSchedule *s, uint32_t ranks);

#endif
