/* The summary instrument: makespan, per-rank finish times, messages and bytes, built
 * from engine events (README, Commands). One summary may observe several runs on one machine. */
#ifndef FENNEL_SUMMARY_H
#define FENNEL_SUMMARY_H

#include "instrument.h"

typedef struct {
    uint32_t ranks;
    FennelTime makespan;
    FennelTime *rank_finish; /* latest slot-free time per rank */
    uint64_t tasks;          /* tasks completed */
    uint64_t messages;
    uint64_t bytes;
    FennelTime flight_sum; /* sum over messages of arrival - departure */
} FennelSummary;

void fennel_summary_init(FennelSummary *s, uint32_t ranks);
void fennel_summary_clear(FennelSummary *s);

/* The instrument that fills s. */
FennelInstrument fennel_summary_instrument(FennelSummary *s);

#endif
