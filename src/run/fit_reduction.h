/* The reduction's cost from collective measurements (docs/CALIBRATION.md, The reduction's
 * cost): given a network model, the per-byte cost gamma of the reduction steps is fitted by
 * weighted least squares (weights 1 / measured^2, so relative errors count) on the residual
 * measured - model, constrained non-negative. */
#ifndef FENNEL_FIT_REDUCTION_H
#define FENNEL_FIT_REDUCTION_H

#include "compare.h"

typedef struct {
    double gamma_ns;         /* the fitted per-byte cost, ns/B */
    double unconstrained_ns; /* the least-squares value before the constraint */
    gboolean held;           /* unconstrained_ns < 0: gamma held at 0 */
    guint points, reducing;  /* points compared, and those whose time grows with gamma */
    guint left_out;          /* with a library: points it runs by an algorithm fennel lacks */
    char *left_out_what;     /* their "collective algorithm" list, or NULL */
    double median_before, worst_before, median_after, worst_after;
    char *yaml;      /* the model file: the given model with compute: reduction, gamma */
    GString *report; /* the text report */
    GString *json;   /* the same as one JSON object */
} FennelReductionFit;

/* Fits gamma to the collective tables under `model` (its compute is replaced by the
 * `reduction` model); `model_text` is the model file's text, written back with its compute
 * replaced, `model_name` names it in the report. FALSE with an error (FENNEL_ERROR_INPUT)
 * when no point's time depends on the reduction. */
gboolean fennel_fit_reduction(GPtrArray *tables, const FennelModel *model, const char *model_text,
                              const char *model_name, const FennelCompareOptions *co,
                              FennelReductionFit *out, GError **error);
void fennel_reduction_fit_clear(FennelReductionFit *f);

#endif
