/* The trace instrument: records when every task was ready, started and ended, on which
 * slot, and every message, for the per-task outputs (the --tasks CSV, and later the
 * timeline and trace exporters). It costs about 56 bytes per task, so it is only
 * attached when an output needs it. */
#ifndef FENNEL_TRACE_H
#define FENNEL_TRACE_H

#include "instrument.h"

typedef struct {
    uint32_t task;
    uint32_t src, dst;
    int64_t bytes;
    FennelTime sent, arrived;
    FennelTime noise;     /* network noise included in the flight (0 without noise) */
    FennelTime link_wait; /* time spent waiting for links of the topology */
} FennelTraceMessage;

/* A slot or NIC busy for a task's message (receive overheads, NIC gaps, waits). */
typedef struct {
    uint32_t task;
    uint32_t rank, slot;
    FennelBusyKind kind;
    FennelTime from, until;
} FennelTraceBusy;

/* A piece of a message's flow under contention fair: its bytes went at `share` of the rate
 * they would have had alone from `from` to `until`. */
typedef struct {
    uint32_t task;
    uint32_t src, dst;
    FennelTime from, until;
    double share;
} FennelTraceFlow;

/* One program's run. Times are FENNEL_TIME_MIN for a task that never started. */
typedef struct {
    const FennelProgram *program;
    FennelTime *ready, *start, *end, *completion, *arrival;
    uint32_t *slot;
    GArray *messages;  /* FennelTraceMessage, in the order they were sent */
    GArray *busy;      /* FennelTraceBusy, in event order */
    FennelTime *noise; /* per task: compute noise in its duration, host noise in a send's */
    uint32_t *matched; /* per task: a recv's send, a send's recv; FENNEL_NO_TASK otherwise */
    GArray *flows;     /* FennelTraceFlow, by task, then source, then time (FennelTrace.flows) */
} FennelTraceRun;

typedef struct {
    GPtrArray *runs; /* FennelTraceRun *, one per program run, in order */
    gboolean flows;  /* also record the pieces of fair flows (for pictures and the trace: they
                        can be many, one per flow and change of its rate); FALSE after init */
} FennelTrace;

void fennel_trace_init(FennelTrace *t);
void fennel_trace_clear(FennelTrace *t);
FennelInstrument fennel_trace_instrument(FennelTrace *t);

/* The peer of a network task as every output shows it: the program's, except for a recv
 * from any source, whose peer is the rank of the send it matched (FENNEL_NO_RANK when it
 * matched none). */
uint32_t fennel_trace_peer(const FennelTraceRun *r, uint32_t task);

/* The pieces of the flow of `task`'s message from `src`, in time order (*n of them, none
 * without contention fair or when the trace did not record flows). */
const FennelTraceFlow *fennel_trace_flow(const FennelTraceRun *r, uint32_t task, uint32_t src,
                                         guint *n);

/* The --tasks CSV: one row per task, in run order then program order. */
void fennel_trace_write_tasks_csv(const FennelTrace *t, GString *out);

#endif
