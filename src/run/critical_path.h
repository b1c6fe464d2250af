/* The critical path (`run --critical-path`, README): the chain of tasks, back from the one
 * that set the makespan, whose completions determined each next start, with the time each
 * part contributed by kind. It is read off a trace (src/run/trace.h) after the run. A recv that
 * was posted before its message was ready hands the path on to the send it matched, and a
 * rendezvous send that met a recv posted after its message had arrived to that recv
 * (docs/SEMANTICS.md, "The critical path"). */
#ifndef FENNEL_CRITICAL_PATH_H
#define FENNEL_CRITICAL_PATH_H

#include "trace.h"

typedef enum {
    FENNEL_PATH_LATENCY,   /* a message in flight */
    FENNEL_PATH_OVERHEAD,  /* a sender busy issuing a message, or a receiver receiving one */
    FENNEL_PATH_COMPUTE,   /* a compute */
    FENNEL_PATH_SLEEP,     /* a sleep, or a start task's skew */
    FENNEL_PATH_SLOT_WAIT, /* a ready task waiting for its slots, or a message that has
                              arrived waiting for its receiver's slot or NIC */
    FENNEL_PATH_LINK_WAIT, /* a message waiting for links of the topology (docs/TOPOLOGY.md) */
    FENNEL_PATH_N_KINDS,
} FennelPathKind;

/* `rank` is where the time is spent: the task's rank, except for the receiving end of a
 * message (its receiver's wait and overhead), which is on the receiver. A latency step is
 * on the sender's rank and ends on the receiver's. */
typedef struct {
    uint32_t task;
    FennelPathKind kind;
    FennelTime from, to;
    uint32_t rank;
} FennelPathStep;

/* A task on the path, the time the path reached it (its start, or `handed` for a task
 * the path only passes through: a recv whose message decided its completion, a
 * rendezvous send completed by its recv's posting) and the time it handed the path on to
 * the next one (the next task's ready time, or the path's end for the last task). A task
 * on the path may contribute no time (a proxy, a start without skew), so the chain of
 * tasks is kept apart from the steps. */
typedef struct {
    uint32_t task;
    FennelTime from, handed;
} FennelPathLink;

typedef struct {
    const FennelTraceRun *run; /* the run the path lies in (the last one) */
    GArray *steps;             /* FennelPathStep, from time 0 to the makespan */
    GArray *chain;             /* FennelPathLink, the path's tasks, earliest first */
    uint32_t tasks;            /* tasks on the path */
    FennelTime by_kind[FENNEL_PATH_N_KINDS];
    FennelTime end;
} FennelCriticalPath;

/* Finds the path in the trace's last run; FALSE if the trace is empty. */
gboolean fennel_critical_path(const FennelTrace *trace, FennelCriticalPath *path);
void fennel_critical_path_clear(FennelCriticalPath *path);

/* The path as text lines (for the summary) and as a JSON object. */
void fennel_critical_path_text(const FennelCriticalPath *path, GString *out);
void fennel_critical_path_json(const FennelCriticalPath *path, GString *out);

#endif
