/* Fitting a network model to measurements (docs/CALIBRATION.md): postal from one-way
 * (ping-pong) times, lbp from multicast times (Rüfenacht's Eq. 4.6 per size), LogGP as far as
 * the data determines it, each as a model file with the fit recorded in its comments. */
#ifndef FENNEL_FIT_H
#define FENNEL_FIT_H

#include "measure.h"
#include "model.h"

typedef enum { FENNEL_STAT_MIN, FENNEL_STAT_MEDIAN, FENNEL_STAT_MEAN } FennelStatistic;

typedef struct {
    const char *network;            /* "postal", "lbp", "logp", "loggp"; NULL: from the data */
    FennelStatistic statistic;      /* of the repeated samples of one point */
    int segments;                   /* piecewise fits: 0 chooses, K >= 1 asks for K */
    int min_points;                 /* the fewest points of a segment: 0 means 4 */
    gboolean leave_out_nonphysical; /* lbp: leave out a size whose unconstrained line has a
                                     * negative parameter (the thesis' Table 4.1) instead of
                                     * holding that parameter at 0 and refitting the other */
    GPtrArray *intra;               /* tables of an intra-node ping-pong (--intra), fitted too and
                                     * written as the model's intra section; NULL: none */
    const char *duplex;             /* "full" or "half" (--duplex); NULL: from the data, when it
                                     * has a bidirectional test beside a one-way one */
} FennelFitOptions;

/* One measured point and the fitted model's time for it. */
typedef struct {
    int64_t bytes;
    uint32_t targets;
    double measured_ns, fitted_ns;
} FennelFitPoint;

typedef struct {
    char *network;          /* the fitted model */
    char *yaml;             /* the model file, the fit in its comments */
    GString *report;        /* the text report */
    GString *json;          /* the same as one JSON object */
    GArray *points;         /* FennelFitPoint, for the report and the plot */
    GPtrArray *lines;       /* per size (lbp) or per segment: "label" strings for a plot legend */
    double r2;              /* NAN when undetermined (no more points than parameters) */
    double worst_relative;  /* the largest |fitted - measured| / measured */
    double median_relative; /* the median of |fitted - measured| / measured */
    double worst_ratio;     /* fitted / measured at the worst point */
    int64_t worst_bytes;
    uint32_t worst_targets;
    guint parameters; /* of the fitted lines, set by each fit; R^2 needs more points */
    char *intra_json; /* the intra-node fit's JSON (--intra), or NULL */
} FennelFit;

const char *fennel_statistic_name(FennelStatistic s);
gboolean fennel_statistic_parse(const char *text, FennelStatistic *out);

/* The statistic of n values (sorted in place for the median). */
double fennel_statistic_of(FennelStatistic s, double *values, size_t n);

/* Fits the tables (FennelMeasureTable) that suit the model. Lines are fitted by least
 * squares with their parameters constrained non-negative. Errors (FENNEL_ERROR_INPUT): no
 * table the model can be fitted to, too few points, an lbp fit with no physical size. */
FennelFit *fennel_fit(GPtrArray *tables, const FennelFitOptions *o, GError **error);
void fennel_fit_free(FennelFit *f);

#endif
