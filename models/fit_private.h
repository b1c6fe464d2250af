/* What the fits share (fit.c, fit_postal.c, fit_lbp.c, fit_loggp.c); module-internal, so
 * its functions are named fennel__fit_*. */
#ifndef FENNEL_FIT_PRIVATE_H
#define FENNEL_FIT_PRIVATE_H

#include "fit.h"

/* y = a + b x, and the (weighted) sum of squared residuals. */
typedef struct {
    double a, b, sse;
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
/* Piecewise lines through points (by size, relative error weights 1/y^2) with `k` segments
 * of at least two points each, or k = 0: the count of 1..4 with the least BIC. Returns the
 * segments (g_free). */
FennelFitSegment *fennel__fit_segments(const GArray *points, int k, guint *count);
int64_t fennel__fit_ps(double ns);
int64_t fennel__fit_as_per_byte(double ns_per_byte);
/* R^2 and the worst relative error over f->points (measured against fitted). */
void fennel__fit_quality(FennelFit *f);
/* The fit comment lines of the model file: sources, statistic, quality, residuals. */
void fennel__fit_comments(const FennelFit *f, GString *yaml, const char *sources,
                          const FennelFitOptions *o);

/* A fitted value that must not be negative: with --clamp set to 0 (and noted), else an
 * error naming `what`. */
gboolean fennel__fit_physical(double *value, const char *what, const FennelFitOptions *o,
                              GString *notes, GError **error);

gboolean fennel__fit_postal(FennelFit *f, GPtrArray *tables, const FennelFitOptions *o,
                            GError **error);
gboolean fennel__fit_lbp(FennelFit *f, GPtrArray *tables, const FennelFitOptions *o,
                         GError **error);
gboolean fennel__fit_loggp(FennelFit *f, GPtrArray *tables, const FennelFitOptions *o,
                           GError **error);

#endif
