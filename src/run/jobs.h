/* Several jobs on one machine (docs/TOPOLOGY.md, Several jobs): a jobs file lists programs,
 * each with its start time and its nodes; they run together on the machine's nodes, sharing
 * its links, and each is also run alone with the same nodes, so that its slowdown is known. */
#ifndef FENNEL_JOBS_H
#define FENNEL_JOBS_H

#include "model.h"
#include "options.h"
#include "program_io.h"

typedef enum {
    FENNEL_PLACE_CONTIGUOUS, /* the first run of free nodes long enough */
    FENNEL_PLACE_RANDOM,     /* free nodes drawn by the seed */
    FENNEL_PLACE_SPREAD,     /* free nodes evenly apart */
    FENNEL_PLACE_LIST,       /* the nodes the file names */
} FennelPlacement;

typedef struct {
    char *name;
    char *program;  /* a program file (relative to the jobs file's folder), or */
    char *generate; /* a generator with its options */
    FennelGenTextOptions gen;
    FennelTime start;
    FennelPlacement placement;
    uint32_t *nodes; /* the list given, then the nodes placed: rank r is on nodes[r / P] */
    uint32_t n_nodes;
    unsigned line, col;             /* the job's entry */
    unsigned *node_line, *node_col; /* each listed node's position */
} FennelJob;

typedef struct {
    char *file;
    FennelJob *jobs;
    uint32_t n_jobs;
} FennelJobs;

/* Reads a jobs file; every error names FILE:LINE:COL. */
gboolean fennel_jobs_read(const char *file, FennelJobs *out, GError **error);
gboolean fennel_jobs_parse(const char *name, const char *data, gsize length, FennelJobs *out,
                           GError **error);
void fennel_jobs_clear(FennelJobs *jobs);

/* What a run of the jobs found, per job. */
typedef struct {
    uint32_t ranks;
    FennelTime alone, together; /* from its start to its last task's end */
} FennelJobResult;

/* Pairs are run for at most this many jobs (n (n - 1) / 2 runs more). */
#define FENNEL_JOBS_PAIRS_MAX 16

/* What job `job`'s messages waited on one link while job `by`'s held it (the run together,
 * contention endpoint or links). */
typedef struct {
    uint32_t job, by, link;
    char *from, *to; /* the link's ends, as --links names them */
    FennelTime wait;
} FennelJobLinkWait;

typedef struct {
    uint32_t nodes; /* the machine's */
    FennelTime makespan;
    FennelJobResult *jobs;
    /* With 2 .. FENNEL_JOBS_PAIRS_MAX jobs (else NULL): delay[j * n + i] is what job i costs
     * job j when the two run without the others: j's time beside i less j's time alone. */
    FennelTime *delay;
    /* Under contention endpoint or links, every (job, by, link) whose wait is not zero, by
     * job, then by, then link; `attributed` says whether they were looked for. */
    gboolean attributed;
    FennelJobLinkWait *link_waits;
    uint32_t n_link_waits;
} FennelJobsRun;

/* Loads the jobs' programs, places them on the machine's nodes (filling each job's nodes),
 * runs them together and each alone. `read` is for program files (may be NULL). */
gboolean fennel_jobs_run(FennelJobs *jobs, const FennelReadOptions *read, const FennelModel *model,
                         uint64_t seed, const FennelLimits *limits, FennelJobsRun *out,
                         GError **error);
void fennel_jobs_run_clear(FennelJobsRun *run);

/* The report: a table, or one JSON object. */
void fennel_jobs_text(const FennelJobs *jobs, const FennelJobsRun *run, GString *out);
void fennel_jobs_json(const FennelJobs *jobs, const FennelJobsRun *run, GString *out);

#endif
