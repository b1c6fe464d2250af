/* What the fits share (fit.c, fit_postal.c, fit_lbp.c, fit_loggp.c); module-internal, so
 * its functions are named fennel__fit_*. */
#ifndef FENNEL_FIT_PRIVATE_H
#define FENNEL_FIT_PRIVATE_H

#include "fit.h"

/* y = a + b x, and the (weighted) sum of squared residuals. A line fitted with a, b >= 0
 * keeps the unconstrained line's parameters and says which one was held at 0. */
typedef struct {
    double a, b, sse;
    double a_free, b_free; /* the unconstrained least squares line */
    gboolean a_held, b_held;
} FennelFitLine;

/* A segment of a piecewise fit: points first..last, its line. */
typedef struct {
    guint first, last;
    FennelFitLine line;
} FennelFitSegment;

/* The statistic of every (size, targets) point of the tables of one kind, sorted by size
 * and targets; the sources are appended to `sources`. */
GArray *fennel__fit_points(GPtrArray *tables, FennelMeasureKind kind, FennelStatistic st,
                           GString *sources);
/* Least squares with weights w (NULL: 1); centred sums in long double. */
FennelFitLine fennel__fit_line(const double *x, const double *y, const double *w, size_t n);
/* The same with a >= 0 and b >= 0: the unconstrained line when it is feasible, else the best
 * of a = 0 (b refitted), b = 0 (a refitted) and both 0 (the active set of two parameters). */
FennelFitLine fennel__fit_line_nonneg(const double *x, const double *y, const double *w, size_t n);
/* Piecewise non-negative lines through points (relative error weights 1/y^2) over x = size,
 * or x = size - 1 with `less_one` (LogGP's (s-1)G: the intercept is then the time at 1 B, L + 2o),
 * with `k` segments of at least `min_points` points each (fewer segments when the points do not
 * allow k), or k = 0: the count of 1..4 with the least BIC. Returns the segments (g_free). */
FennelFitSegment *fennel__fit_segments(const GArray *points, int k, guint min_points,
                                       gboolean less_one, guint *count);
/* The notes of a segmented fit: a parameter held at 0 (and the unconstrained value), fewer
 * segments than asked, a segment of two points. */
void fennel__fit_segment_notes(const GArray *points, const FennelFitSegment *seg, guint count,
                               int asked, guint min_points, const char *a_name, const char *b_name,
                               GString *notes);
/* The quality lines of the text report (R^2 or why it is undetermined, the errors). */
void fennel__fit_report_quality(const FennelFit *f, GString *report);
int64_t fennel__fit_ps(double ns);
int64_t fennel__fit_as_per_byte(double ns_per_byte);
/* R^2 and the worst relative error over f->points (measured against fitted). */
void fennel__fit_quality(FennelFit *f);
/* The fit comment lines of the model file: sources, statistic, quality, residuals. */
void fennel__fit_comments(const FennelFit *f, GString *yaml, const char *sources,
                          const FennelFitOptions *o);

gboolean fennel__fit_postal(FennelFit *f, GPtrArray *tables, const FennelFitOptions *o,
                            GError **error);
gboolean fennel__fit_lbp(FennelFit *f, GPtrArray *tables, const FennelFitOptions *o,
                         GError **error);
gboolean fennel__fit_loggp(FennelFit *f, GPtrArray *tables, const FennelFitOptions *o,
                           GError **error);

#endif
