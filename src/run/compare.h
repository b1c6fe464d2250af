/* Measured collective times against the model's (docs/CALIBRATION.md, Comparing): each
 * measured point is simulated with the generator that performs its collective, and the
 * relative difference (measured - model) / model (Rüfenacht's Eq. 5.14) is reported. */
#ifndef FENNEL_COMPARE_H
#define FENNEL_COMPARE_H

#include "fit.h"
#include "library.h"
#include "measure.h"
#include "model.h"

typedef struct {
    const char *generator;     /* instead of the collective's default generator, or NULL */
    const char *mpi_library;   /* the algorithm this library picks at each point (library.h),
                                * or NULL; excludes generator */
    uint32_t ranks;            /* for tables that do not say (OSU), or 0 */
    FennelStatistic statistic; /* of a point's repeated samples (min: a tool's minimum
                                * column where it has one) */
    uint32_t ppn;              /* ranks per node (--ppn), handed to the generators that take
                                * --ppn; 0: not given */
    gboolean in_place;         /* nccl-tests: score the in-place time column instead */
} FennelCompareOptions;

/* Which of the ranks' times a measured time stands for, and so which one the model's is:
 * benchmarks time the call on every rank and print the average over the ranks (OSU's
 * Avg Latency, IMB's t_avg, nccl-tests' time) and the fastest and slowest rank (OSU -f, IMB
 * t_min and t_max); a comparison CSV's time is the makespan (the last rank's return). */
typedef enum {
    FENNEL_OVER_RANKS_MEAN,
    FENNEL_OVER_RANKS_MIN,
    FENNEL_OVER_RANKS_MAX,
} FennelOverRanks;

/* "mean", "min" or "max". */
const char *fennel_over_ranks_name(FennelOverRanks over);

typedef struct {
    char *collective; /* NULL for a comparison CSV */
    char *generator, *schedule;
    uint32_t ranks;
    int64_t bytes;     /* the tool's size */
    int64_t gen_bytes; /* the generator's --size */
    double measured_ns, model_ns;
    FennelOverRanks over_ranks; /* model_ns: this of each rank's time from the start to its
                                 * last task's end, as measured_ns is of the ranks' times */
    double relative;            /* (measured - model) / model, Eq. 5.14 */
    double error;               /* |model - measured| / measured */
    double ratio;               /* model / measured: above 1 the model is too slow */
    uint32_t loop;              /* IMB before 2017: model_ns is a rank's time over this many
                                 * calls back to back, the root rotating (docs/CALIBRATION.md,
                                 * IMB's loop), over the calls; 0: one call */
    guint samples;              /* the repeated samples pooled into measured_ns */
    double busbw_factor;        /* nccl-tests: busbw = algbw x this; 0 for other tools */
    char *mpi_library;          /* with --library: the library and its choice at this point (the
                                 * algorithm and the row of its table); NULL otherwise */
    FennelLibraryChoice *choice;
} FennelComparePoint;

/* The points of one collective, generator, schedule and rank count (a table, or the tables of
 * repeated runs of one test), scored together. */
typedef struct {
    char *collective, *generator, *schedule;
    char *mpi_library; /* with --library: the library; generator then lists the generators its
                        * choices ran, comma-separated, in the order of their first point */
    uint32_t ranks;
    guint points;
    double median_error, worst_error, median_ratio;
    int64_t worst_bytes;
} FennelCompareGroup;

typedef struct {
    GArray *points;                   /* FennelComparePoint */
    GArray *groups;                   /* FennelCompareGroup, in the order of their first point */
    GString *skipped;                 /* the collectives left out: no generator performs them */
    GString *no_table;                /* with a library: the collectives it has no table for */
    GString *no_generator;            /* with a library: "collective algorithm" of the choices
                                       * fennel has no generator for, comma-separated */
    guint no_generator_points;        /* the points left out for them */
    char *no_generator_first;         /* the first one's FILE:LINE: message, or NULL */
    guint zero_rows;                  /* rows of 0 bytes of a collective test, left out */
    double mean, worst;               /* of the relative differences; worst by absolute value;
                                         NAN when no point has one */
    guint n_relative;                 /* the points with one: a model time above 0 */
    double median_error, worst_error; /* of |model - measured| / measured over all points */
} FennelComparison;

gboolean fennel_compare(GPtrArray *tables, const FennelModel *model, const FennelCompareOptions *o,
                        FennelComparison *out, GError **error);
void fennel_comparison_clear(FennelComparison *c);

#endif
