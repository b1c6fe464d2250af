/* Streaming runs of generated programs (run --stream). */
#ifndef FENNEL_RUN_STREAM_H
#define FENNEL_RUN_STREAM_H

#include "generator.h"
#include "model.h"
#include "summary.h"

typedef struct {
    uint64_t tasks, segments, events;
    double simulate_seconds;
} FennelStreamStats;

/* Generates g's program in segments of about segment_tasks tasks and simulates each as it
 * comes with the seed, filling summary (initialised here; clear it even on failure). A
 * usage error if g does not stream or the model is contended (LogP, LogGP). */
gboolean fennel_run_streamed(const FennelGenerator *g, const FennelGenOptions *o,
                             const FennelModel *model, uint64_t seed, uint64_t segment_tasks,
                             FennelSummary *summary, FennelStreamStats *stats, GError **error);

#endif
