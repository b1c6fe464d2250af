/* Instruments observe the engine (docs/SEMANTICS.md): every output (summary, traces, timelines)
 * is built from these events, and the engine knows nothing about outputs. An
 * instrument subscribes to a mask of event kinds; the engine skips the work of
 * filling events nobody asked for. */
#ifndef FENNEL_INSTRUMENT_H
#define FENNEL_INSTRUMENT_H

#include "program.h"

/* No task (FennelEvent.matched). */
#define FENNEL_NO_TASK UINT32_MAX

typedef enum {
    FENNEL_EVENT_READY = 1 << 0,         /* all predecessors done: time = ready time */
    FENNEL_EVENT_DELAYED = 1 << 1,       /* popped at time, its slots are busy until `until` */
    FENNEL_EVENT_STARTED = 1 << 2,       /* runs on slot from time */
    FENNEL_EVENT_COMPLETED = 1 << 3,     /* slot free at `local`, successors from `completion` */
    FENNEL_EVENT_MESSAGE = 1 << 4,       /* a message left src at time and arrived at `until` */
    FENNEL_EVENT_BUSY = 1 << 5,          /* a slot or NIC of `rank` is busy from time to `until`
                                            for a task's message (receive overheads, NIC gaps,
                                            a rendezvous sender's wait) */
    FENNEL_EVENT_RANK_FINISHED = 1 << 6, /* after a run: `rank`'s slots are all free at time */
    FENNEL_EVENT_RUN_FINISHED = 1 << 7,  /* after a run of `task` tasks: time is the makespan
                                            (latest slot-free time or completion so far) */
    FENNEL_EVENT_FLOW = 1 << 8,          /* contention fair: the bytes of `task`'s message from
                                            `rank` to `peer` flowed from time to `until` at
                                            `share` of the rate they would have had alone; a
                                            flow's pieces follow each other without gaps */
    FENNEL_EVENT_LINK = 1 << 9,          /* contention endpoint or links: `task`'s message from
                                            `rank` to `peer` held shared link `slot` from time to
                                            `until`, having waited `link_wait` for it; a link's
                                            events come in the order it serves the messages */
    FENNEL_EVENT_LINK_SHARE = 1 << 10,   /* contention fair: the flow of `task`'s message from
                                            `rank` to `peer` took `share` of link `slot`'s
                                            bandwidth from time to `until` (a piece of the flow,
                                            as FENNEL_EVENT_FLOW's); its bytes began to flow at
                                            `local` */
} FennelEventKind;

typedef enum {
    FENNEL_BUSY_RECEIVE,  /* a slot receives a message (LogP/LogGP overhead) */
    FENNEL_BUSY_WAIT,     /* a slot waits for a rendezvous or blocking send to complete */
    FENNEL_BUSY_NIC_SEND, /* the NIC's send gap */
    FENNEL_BUSY_NIC_RECV, /* the NIC's receive gap */
} FennelBusyKind;

typedef struct {
    FennelEventKind kind;
    uint32_t task;
    uint32_t rank; /* the task's rank; for a message, its source */
    uint32_t slot; /* started, completed; link: the directed link's number */
    uint32_t peer; /* message: its destination */
    FennelTime time;
    FennelTime until;             /* delayed: the new time; message: arrival */
    FennelTime local;             /* completed: the issuing slot is free again */
    FennelTime completion;        /* completed: when successors on other ranks may start */
    FennelTime issuer_completion; /* completed: successors on the task's own rank */
    int64_t bytes;                /* message: payload */
    FennelBusyKind busy;          /* busy: what is busy (slot: `slot`) */
    uint32_t matched;             /* completed: a recv's matched send, else FENNEL_NO_TASK;
                                     beside `busy`, in what would be padding, so that
                                     events keep their size */
    FennelTime link_wait;         /* message: the time it waited for links of the topology (a share
                                     under contention fair: its transfer's delay) */
    FennelTime noise;             /* started: compute noise; message: network noise;
                                     completed: host noise in the send overhead */
    uint64_t messages;            /* run finished: the messages of the run, whose payload is
                                     then in `bytes` and the sum of their flights (saturated)
                                     in `until`, so that counting them needs no MESSAGE event */
    double share;                 /* flow: the fraction (0, 1] of its rate alone; link share:
                                     of the link's bandwidth */
} FennelEvent;

typedef struct {
    unsigned mask;
    void (*observe)(void *data, const FennelProgram *program, const FennelEvent *event);
    void *data;
} FennelInstrument;

#endif
