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
    /* With --repeat K > 1: the makespans of runs with seeds seed..seed+K-1, but for the
     * n_cut seeds (cut_seeds) whose faults cut a message off: K - n_cut of them. */
    uint32_t repeat;
    const FennelTime *makespans;
    const uint64_t *cut_seeds;
    uint32_t n_cut;
    uint64_t segments; /* run --stream: the segments the program came in (0 otherwise) */
    const char *critical_path_json; /* run --critical-path: the path as a JSON object, or NULL */
    /* run with faults: how many of the faults the messages met were each left out of a
     * rerun (0: none were; see FENNEL_WORST_FAULT_RERUNS), the one whose absence shortened
     * the makespan most (an index of the summary's faults, or -1 when none did), and the
     * makespan without it. */
    uint32_t faults_rerun;
    int64_t worst_fault;
    FennelTime without_worst;
} FennelReport;

/* `run` reruns without each fault the messages met when there are at most this many. */
#define FENNEL_WORST_FAULT_RERUNS 16

void fennel_report_text(const FennelReport *r, GString *out);
void fennel_report_json(const FennelReport *r, GString *out);

#endif
