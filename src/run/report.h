/* The run summary as text and as JSON (README, Commands). */
#ifndef FENNEL_REPORT_H
#define FENNEL_REPORT_H

#include "model.h"
#include "summary.h"

typedef struct {
    const char *program;   /* names of the programs run, comma-separated */
    const char *generator; /* or NULL */
    const char *schedule;  /* the schedule a generator chose and why (FennelProgram), or NULL */
    const FennelModel *model;
    uint64_t seed;
    uint32_t ranks;
    uint64_t tasks;
    const FennelSummary *summary;
    uint64_t events;
    double build_seconds, simulate_seconds, wall_seconds;
    /* With --repeat K > 1: the makespans of runs with seeds seed..seed+K-1. */
    uint32_t repeat;
    const FennelTime *makespans;
    uint64_t segments; /* run --stream: the segments the program came in (0 otherwise) */
    const char *critical_path_json; /* run --critical-path: the path as a JSON object, or NULL */
} FennelReport;

void fennel_report_text(const FennelReport *r, GString *out);
void fennel_report_json(const FennelReport *r, GString *out);

#endif
