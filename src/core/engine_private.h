/* The engine's private parts, shared by its files: the machine, the state of one run,
 * and the small per-task functions every part of the event loop inlines.
 *
 *   engine.c          the machine, the event loop, starting tasks (docs/SEMANTICS.md)
 *   engine_network.c  puts, gets, sends and receives: message timing and matching
 *   engine_wait.c     wait lists of tasks and messages whose resources are busy
 *   engine_topology.c messages crossing a topology, link by link under contention
 *   engine_contention.c the table of contention levels: what each does in the engine
 *   engine_fair.c     contention fair: max-min sharing of link bandwidth among flows
 *                     (the rates from fair_fill.c, a pure function)
 *   engine_faults.c   slow ranks and failing links: rates, routes around links that are
 *                     down, messages cut off
 *   engine_stuck.c    the report of tasks that never completed
 *
 * Functions declared here are named fennel__* (two underscores): internal to the module,
 * never called from outside it. */
#ifndef FENNEL_ENGINE_PRIVATE_H
#define FENNEL_ENGINE_PRIVATE_H

#include "engine.h"

#include "errors.h"
#include "match.h"
#include "queue.h"

#include <string.h>

#define MAX_INSTRUMENTS 8

/* The per-task path is a handful of small functions; inlining them into the event loop
 * saves their calls and register spills (the engine benchmark counts the difference). */
#define HOT static inline __attribute__((always_inline))

/* Heap keys. Under the default ordering: the event kind in the top bits, then a task index
 * (program order) or a message number (send order). At equal times tasks therefore run
 * before messages are received, tasks in program order and messages in the order they were
 * sent. Under `ordering: loggopsim` (docs/SEMANTICS.md): a sequence number given when the
 * entry is first queued (LOGGOPSIM_SEQ_BITS bits), then the kind (2 bits) and the index (32
 * bits), so that ties go in the order of first insertion; an entry that waits keeps its
 * key. */
#define KIND_SHIFT            62
#define KIND_TASK             0ull
#define KIND_MESSAGE          1ull
#define KIND_HOP              2ull /* a message's head reaches a shared link (engine_topology.c) */
#define KIND_LEVEL            3ull /* the contention level's own event (fair: rates change) */
#define KEY_ID(key)           ((key) & ((1ull << KIND_SHIFT) - 1))
#define FENNEL_TASK_KEY(task) (KIND_TASK << KIND_SHIFT | (task))
#define LOGGOPSIM_SEQ_BITS    30
#define NO_KEY                UINT64_MAX

/* A change of one link's time per byte from a time on: times num / den, den 0 when the link
 * is down (engine_faults.c). `cause` is the fault it comes from (an index of
 * FennelMachine.faults), or NO_CAUSE for a slow rank's NIC. */
typedef struct {
    FennelTime from;
    uint32_t link, cause;
    uint64_t num, den;
} LinkChange;
#define NO_CAUSE UINT32_MAX

/* Link numbers per page of the machine's link table. */
#define LINK_PAGE_BITS 12u
#define LINK_PAGE      (1u << LINK_PAGE_BITS)

/* The state of a link messages have crossed, by its dense index: all that a hop reads and
 * writes of the link, in one cache line (the array is aligned to it). When messages take
 * their links in an order unrelated to the links' numbers (ECMP's hash), each array a hop
 * touched was a cache miss of its own (docs/PERFORMANCE.md, Routing choices at 2^16
 * ranks). */
typedef struct {
    FennelTime free; /* when the link is free again (across runs) */
    /* under routing `adaptive`: the bytes of the messages in flight whose route crosses it
     * (routed over it at their start, until they are through) */
    uint64_t load;
    FennelLinkStats stats; /* for the last run */
} LinkState;

G_STATIC_ASSERT(sizeof(LinkState) == 64);

struct FennelMachine {
    uint32_t ranks, processes;
    FennelTime *slot;     /* ranks x processes free times */
    FennelTime *nic_send; /* per rank: the NIC may send again (LogP gap) */
    FennelTime *nic_recv; /* per rank: the NIC may receive again */
    /* `nic: shared`, `duplex: half` (docs/TOPOLOGY.md, Shared NICs and half-duplex ports):
     * per port (a node's with a shared NIC, else a rank's) when its sending and receiving
     * sides are free again. Under half duplex a port carries one direction at a time:
     * port_drain is when the last message it carried in its present direction, port_dir,
     * has arrived (the line is clear), port_sent when its last message out entered the
     * network and port_got the latest arrival of a message into it (a reply starts a new
     * turn). NULL: no ports (port_drain, port_sent, port_got: no half duplex). */
    FennelTime *port_out, *port_in, *port_drain, *port_sent, *port_got;
    uint8_t *port_dir;
    const FennelModel *model;
    uint64_t seed;
    uint64_t runs; /* programs run so far: part of every noise index */
    FennelInstrument instruments[MAX_INSTRUMENTS];
    unsigned n_instruments;
    unsigned mask; /* union of the instruments' masks */
    FennelTime makespan;
    uint64_t events;
    /* The topology (docs/TOPOLOGY.md): NULL without one. Messages between nodes (rank /
     * ranks_per_node) take their wire time from it; with contention endpoint or links they
     * cross its shared links as events, each link a server free again at its state's `free`. */
    FennelNetwork *net;
    char *net_error; /* why the network could not be built for this machine */
    uint32_t ranks_per_node;
    uint32_t *node; /* per rank, its node when the rank order is not linear; else NULL */
    /* per rank, its NIC's port when the network's nodes have several NICs (a graph's:
     * docs/TOPOLOGY.md, Graphs); else NULL, and a rank's port is its node */
    uint32_t *port;
    const struct ContentionLevel *level; /* the model's contention level (engine_contention.c) */
    gboolean routed; /* a topology and a level whose messages go as events (not none) */
    /* Per-link state exists only for the links messages have crossed (a shared link, under
     * `endpoint` a node link): link_pages[l / LINK_PAGE][l % LINK_PAGE] is 1 + link l's
     * dense index, given in the order links are first crossed (0: none yet), a page of
     * LINK_PAGE numbers allocated when a link of it is first crossed. The dense index
     * indexes link_state. A topology of 2^25 links that a program crosses at 30 of them
     * keeps one page and 30 entries. */
    uint32_t **link_pages;
    uint32_t links_used;   /* dense indices given out */
    uint32_t links_room;   /* of link_state */
    LinkState *link_state; /* per dense index (aligned: fennel__link_add) */
    uint32_t *link_number; /* per dense index, the link's number */
    FennelTime link_wait;  /* total time messages waited for links in the last run */
    /* Stragglers and faults (docs/TOPOLOGY.md), drawn for the machine's seed at its first
     * run (engine_faults.c): per rank a compute and a NIC factor in millionths (NULL when
     * no rank has one), the slow ranks, the faults, and what they do to links: changes
     * sorted by link and time, a bitmap of the links that have any, and whether some link
     * goes down. `left_out` is a fault not applied (FENNEL_NO_RANK: none). */
    gboolean faults_ready;
    int64_t *compute_factor, *nic_factor;
    uint32_t *slow, n_slow;
    FennelFault *faults;
    uint32_t n_faults, left_out;
    LinkChange *changes;
    uint32_t n_changes;
    uint64_t *changed;
    gboolean any_down;
};

/* Link l's dense index, given at the first crossing (engine.c). */
uint32_t fennel__link_add(FennelMachine *m, uint32_t l);
static inline uint32_t link_index(FennelMachine *m, uint32_t l)
{
    const uint32_t *page = m->link_pages[l >> LINK_PAGE_BITS];
    if (G_LIKELY(page != NULL)) {
        const uint32_t d = page[l & (LINK_PAGE - 1)];
        if (G_LIKELY(d != 0))
            return d - 1;
    }
    return fennel__link_add(m, l);
}

static inline void emit(const FennelMachine *m, const FennelProgram *p, const FennelEvent *ev)
{
    for (unsigned i = 0; i < m->n_instruments; i++) {
        if (m->instruments[i].mask & ev->kind)
            m->instruments[i].observe(m->instruments[i].data, p, ev);
    }
}

static inline int compare_time(const void *a, const void *b)
{
    FennelTime x = *(const FennelTime *)a, y = *(const FennelTime *)b;
    return (x > y) - (x < y);
}

typedef struct ContentionLevel ContentionLevel; /* engine_contention.c */

/* A message in flight or waiting to be received. 32 bytes: one is kept for every send of
 * a run (and under LogP/LogGP for every message), so its size is a large part of a
 * two-sided run's memory. */
typedef struct {
    uint32_t task;
    uint16_t slot;    /* the slot its sender ran on (below FENNEL_SLOTS_MAX) */
    uint8_t leg;      /* 0: a put's or send's data, a get's request; 1: a get's response */
    uint8_t state;    /* MESSAGE_FLYING, MESSAGE_WAITING or MESSAGE_TAKEN */
    FennelTime local; /* the issuing task's slot was free again at this time */
    FennelTime aux;   /* a get's response: when its request reached the target */
    FennelTime ready; /* a two-sided message: when a receive may take it */
} Message;

G_STATIC_ASSERT(sizeof(Message) == 32 && FENNEL_SLOTS_MAX <= 65536);

/* A message crossing a topology (engine_topology.c), by message number in Run.routes: the
 * vertex its head is at, its destination port (its receiver's node, or that node's NIC
 * where nodes have several: port_of), when its tail will have arrived
 * (FENNEL_TIME_MIN while unknown: a flow under `fair`), when it was sent, how long it waited
 * for links so far, the bytes it carries (a get's request, else its task's amount), and
 * whether its sender's slot is held until it arrives. The route is the one `choice` names
 * (fennel_network_hop_via) from its source port (its task's rank's, or for a get's response
 * its peer's). 56 bytes, written for every message of a run with contention (in a ring
 * under `endpoint`, `links` and `fair`: Run.route_mask): what only LogP/LogGP need is apart. A hop
 * reads only this record of its message: the messages of a run with waits are handled in an order
 * unrelated to the program's, so each read of the message or its task would be a cache miss of its
 * own (docs/PERFORMANCE.md, Routing choices at 2^16 ranks). */
typedef struct {
    FennelTime tail, sent, waited;
    int64_t bytes;
    uint32_t at, to_node;
    uint32_t choice; /* its equal-cost route (topology.h) */
    /* Under `endpoint` and `links`, while a KIND_HOP event of it is queued: the hop it takes
     * next from `at` (fennel_network_hop_via's, found when the event was queued), so that
     * neither the event nor the look-ahead that fetches its link's state finds it again. */
    uint32_t next_link, next_to;
    uint8_t next_level;
    uint8_t held;
    uint8_t live; /* in a ring (Run.route_mask): its message is not through */
} MessageRoute;

G_STATIC_ASSERT(sizeof(MessageRoute) == 56 && FENNEL_TOPOLOGY_MAX_LEVELS <= 256);

/* Under LogP/LogGP, beside a message's route, by message number in Run.route_nics: when its
 * head arrived, and, once its receiver took it (at `taken`, else FENNEL_TIME_MIN), when the
 * receive would be over (`ready`) and when the NIC would have timed its bytes (`due`), which
 * its tail may make late (fennel__engine_deliver_late). */
typedef struct {
    FennelTime head, taken, due, ready;
} MessageNic;

/* A message's entries in the queue: its arrival, then (under LogP/LogGP) its stand-in
 * while it waits in a wait list for the receiver's NIC and slot; once taken, any entry
 * left for it is stale. */
enum { MESSAGE_FLYING, MESSAGE_WAITING, MESSAGE_TAKEN };

/* TASK_PARKED: waiting in a wait list for its rank's slots or NIC (engine_wait.c). */
enum { TASK_WAITING, TASK_RUNNING, TASK_DONE, TASK_PARKED };

/* A task's run state, kept together so that handing a completion to a successor touches
 * one cache line instead of three: the latest completion of its predecessors so far (tasks
 * without `any`; a recv: when it was posted), and, in one word, its predecessors not yet
 * completed (the high 30 bits) and its state (the low 2). 12 bytes a task. */
typedef struct __attribute__((packed, aligned(4))) {
    FennelTime ready;
    uint32_t left_state;
} TaskRun;
#define STATE_BITS       2u
#define STATE_MASK       3u
#define MAX_PREDECESSORS ((1u << (32 - STATE_BITS)) - 1)

/* The tasks or messages that wait for one set of a rank's resources, by their queue order
 * (their keys), and the one of them that stands in the event queue for all, with the time
 * of its entry (engine_wait.c). While the members' keys are consecutive (a rank's fan-out,
 * ready at once in program order) they are kept as a run, the keys first .. first + len - 1,
 * without an array: no memory per member, and no line of an array to fetch per pop. */
typedef struct {
    uint64_t *id;                 /* the members' queue keys, unless `run` */
    uint64_t first;               /* `run`: the least member's key */
    uint64_t rep;                 /* the key of the member in the queue, or NO_KEY */
    FennelTime at;                /* the time of rep's entry */
    uint32_t head, len, capacity; /* members: id[head .. head + len) (`run`: len of them) */
    uint8_t run;                  /* the members are the run from `first` */
    uint8_t sorted;               /* id[head ..] ascending; else a heap (head 0) */
    /* Formed by fennel__wait_join from tasks made ready together: its members are ready at
     * `at`, and their resources may be free before (engine_wait.c). */
    uint8_t pending;
} WaitList;

/* Message timings are a pure function of (parameters, bytes), and programs use few
 * sizes: a small direct-mapped cache saves the exact 128-bit arithmetic per message. */
#define TIMING_CACHE 64
typedef struct {
    const int64_t *params;
    int64_t bytes;
    FennelMessageTiming timing;
} TimingEntry;

typedef struct {
    int64_t bytes;
    FennelTime duration;
    gboolean valid;
} ComputeEntry;

/* A topology's wire time without contention, cached by (bytes, route latency, narrowest
 * link) (engine_topology.c). */
typedef struct {
    int64_t bytes;
    FennelTime latency;
    FennelRate rate;
    FennelTime wire;
} WireEntry;

/* A task made ready by the event being handled (ordering: loggopsim). */
typedef struct {
    uint32_t task, rank, order, index;
    FennelTime when;
} ReadyTask;

/* The state of one program's run, flat arrays indexed by task. */
typedef struct {
    FennelMachine *m;
    const FennelProgram *p;
    FennelQueue queue;
    TaskRun *tasks;       /* per task: ready time, predecessors left, state */
    uint64_t *any_start;  /* `any` tasks: where their completions are collected */
    uint32_t *any_degree; /* `any` tasks: their number of predecessors */
    FennelTime *any_times;
    /* Sized at once for every message the run can send, or a ring (route_mask). */
    Message *messages;
    uint32_t n_messages, messages_capacity; /* ids given out, and the most there can be */
    /* Per message, on a topology; else NULL. Message id's route is routes[id & route_mask],
     * and its record messages[id & route_mask]: the mask is all ones but under a level
     * whose routes are read no more once their messages have arrived
     * (ContentionLevel.ring), where both arrays are rings of a power of two entries that
     * grow together when the entry a new message takes is still live (message_new). A put
     * or get is live until it has arrived, a send until it meets its receive. Ids stay
     * numbered in send order, so the queue's keys and every tie among them are unchanged;
     * only the memory is used again: a fresh 80 bytes a message were, with their page
     * faults, most of what such a level cost beyond `none` (docs/PERFORMANCE.md). */
    MessageRoute *routes;
    uint32_t route_mask;    /* the ring's mask */
    uint64_t route_limit;   /* the most the ring grows to */
    MessageNic *route_nics; /* per message, on a topology under LogP/LogGP; else NULL */
    FennelMatch *match;
    uint32_t overflow_task;       /* the task whose time overflowed, or FENNEL_NO_RANK */
    uint64_t sent, message_bytes; /* messages sent so far, for RUN_FINISHED */
    FennelTime flight_sum;        /* their flights, saturated at FENNEL_TIME_MAX */
    uint64_t noise_base;          /* makes noise indexes unique across programs */
    /* Tasks and messages that found their rank's slots or NIC busy wait in wait lists, one
     * per rank and set of resources, instead of the event queue; the first of each list
     * stands in the queue for all (engine_wait.c). A rank's lists are allocated on its
     * first wait. */
    WaitList **waits;         /* per rank: NULL or wait_classes lists */
    uint32_t *waiting;        /* per rank: members of its lists */
    uint32_t wait_classes;    /* lists per rank */
    gboolean join_when_ready; /* tasks may join a wait list when ready (fennel__wait_join) */
    /* Some network class of the model times messages at the NIC (LogP, LogGP), so network
     * tasks may need it: else no task's class depends on its peer (task_wait_class). */
    gboolean nic_classes;
    /* ordering: loggopsim: the next sequence number, and the tasks made ready by the event
     * being handled, queued when it is done (flush_ready). */
    gboolean loggopsim;
    uint64_t seq;
    ReadyTask *made_ready, *ready_scratch; /* the scratch: room for the sort of flush_ready */
    /* A message cut off by a link that is down (engine_faults.c): the run stops, and its
     * error names the message, the link and the time. */
    gboolean cut, cut_no_route;
    uint32_t cut_task, cut_leg, cut_link;
    FennelTime cut_time;
    uint32_t n_made_ready, made_ready_capacity, scratch_capacity;
    void *level_state; /* the contention level's state for the run (fair: its flows) */
    gboolean trees;    /* the program has switch operations (engine_nvls.c) */
    FennelTime xfer[FENNEL_TOPOLOGY_MAX_LEVELS]; /* per level: transfer time of xfer_bytes */
    int64_t xfer_bytes[FENNEL_TOPOLOGY_MAX_LEVELS];
    /* a graph's links have their own rates: the same slots, direct-mapped by rate */
    FennelRate xfer_rate[FENNEL_TOPOLOGY_MAX_LEVELS];
    TimingEntry timings[TIMING_CACHE];
    WireEntry wires[64];
    ComputeEntry computes[32];
} Run;

HOT uint32_t task_state(const Run *run, uint32_t task)
{
    return run->tasks[task].left_state & STATE_MASK;
}

HOT void set_task_state(Run *run, uint32_t task, uint32_t state)
{
    run->tasks[task].left_state = (run->tasks[task].left_state & ~STATE_MASK) | state;
}

HOT uint32_t task_left(const Run *run, uint32_t task)
{
    return run->tasks[task].left_state >> STATE_BITS;
}

/* One predecessor of the task completed: whether others are still to come. */
HOT gboolean task_one_done(Run *run, uint32_t task)
{
    return (run->tasks[task].left_state -= 1u << STATE_BITS) >> STATE_BITS > 0;
}

/* Sized computes, cached by size like message timings. */
HOT FennelTime compute_duration(Run *run, int64_t bytes)
{
    ComputeEntry *e = &run->computes[(uint64_t)bytes * 0x9e3779b97f4a7c15ull >> 59];
    if (!e->valid || e->bytes != bytes) {
        e->duration = run->m->model->compute->duration(run->m->model, bytes);
        e->bytes = bytes;
        e->valid = TRUE;
    }
    return e->duration;
}

HOT void message_timing(Run *run, const FennelNetworkClass *net, const int64_t *params,
                        int64_t bytes, FennelMessageTiming *out)
{
    TimingEntry *e = &run->timings[((uint64_t)bytes * 0x9e3779b97f4a7c15ull >> 58) ^
                                   (((uintptr_t)params >> 4) & 1)];
    if (e->params != params || e->bytes != bytes) {
        net->message(run->m->model, params, bytes, &e->timing);
        e->params = params;
        e->bytes = bytes;
    }
    *out = e->timing;
}

/* The timing of a message between nodes whose NIC at one end is slow (factor in
 * millionths): the model's NIC times per byte multiplied (engine_faults.c). */
void fennel__nic_timing(Run *run, const FennelNetworkClass *net, const int64_t *params,
                        int64_t bytes, int64_t factor, FennelMessageTiming *out);

/* A compute's duration on a rank, a slow one's multiplied by its factor. */
HOT FennelTime rank_compute(const Run *run, uint32_t rank, FennelTime d)
{
    const int64_t *f = run->m->compute_factor;
    if (G_LIKELY(f == NULL) || f[rank] == FENNEL_MILLION)
        return d;
    return fennel_times_millionths(d, f[rank]);
}

/* a + b, or FENNEL_TIME_MAX and the task noted as the run's overflow. A model duration
 * too long for int64 picoseconds saturates at FENNEL_TIME_MAX (fennel_model_quantise), so
 * a sum that reaches FENNEL_TIME_MAX is an overflow too: a saturated duration added to a
 * time (never negative) either overflows or gives exactly that value. sum + 1 overflows
 * exactly when sum is FENNEL_TIME_MAX; tested that way, the check is an increment and a
 * jump on the overflow flag rather than a load of a 64-bit constant and a comparison at
 * every call, which the engine benchmark's instruction count shows. */
HOT FennelTime add(Run *run, uint32_t task, FennelTime a, FennelTime b)
{
    FennelTime sum, next;
    if (G_UNLIKELY(!fennel_time_add(a, b, &sum) || !fennel_time_add(sum, 1, &next))) {
        if (run->overflow_task == FENNEL_NO_RANK)
            run->overflow_task = task;
        return FENNEL_TIME_MAX;
    }
    return sum;
}

HOT FennelTime noise(Run *run, FennelNoiseStream stream, uint32_t task, uint32_t leg)
{
    if (run->m->model->noise[stream].kind == FENNEL_NOISE_NONE)
        return 0;
    return fennel_model_noise(run->m->model, run->m->seed, stream,
                              run->noise_base + (uint64_t)task * 4 + leg);
}

/* A duration plus noise never goes below zero. A saturated duration stays saturated
 * whatever the noise, so that add() still reports it as an overflow. Durations are never
 * negative, so without noise (the common case) d is the answer and the checks are skipped. */
HOT FennelTime noisy(FennelTime d, FennelTime n)
{
    if (n == 0)
        return d;
    FennelTime sum;
    if (!fennel_time_add(d, n, &sum))
        return n > 0 ? FENNEL_TIME_MAX : 0;
    return d == FENNEL_TIME_MAX ? d : MAX(sum, 0);
}

/* The key of an entry queued for the first time. */
HOT uint64_t new_key(Run *run, uint64_t kind, uint32_t id)
{
    if (G_LIKELY(!run->loggopsim))
        return kind << KIND_SHIFT | id;
    return run->seq++ << 34 | kind << 32 | id;
}

HOT void push_task(Run *run, FennelTime t, uint32_t task)
{
    fennel_queue_push(&run->queue, t, new_key(run, KIND_TASK, task));
}

/* Message id's record and route (Run.messages, Run.routes). */
HOT Message *message_of(const Run *run, uint32_t id)
{
    return &run->messages[id & run->route_mask];
}

HOT MessageRoute *route_of(const Run *run, uint32_t id)
{
    return &run->routes[id & run->route_mask];
}

/* Whether messages and routes are rings (Run.route_mask). */
HOT gboolean message_ring(const Run *run)
{
    return run->route_mask != UINT32_MAX;
}

/* Makes the rings of messages and routes larger until message id's entries are free
 * (engine.c). */
void fennel__route_grow(Run *run, uint32_t id);

/* A new message's number: messages are numbered in the order they are sent. In a ring, its
 * entries are live from here (route_of(...)->live) until it is through. */
HOT uint32_t message_new(Run *run, const Message *msg)
{
    g_assert(run->n_messages < run->messages_capacity);
    const uint32_t id = run->n_messages++;
    if (G_UNLIKELY(message_ring(run))) {
        if (route_of(run, id)->live)
            fennel__route_grow(run, id);
        route_of(run, id)->live = TRUE;
    }
    *message_of(run, id) = *msg;
    return id;
}

/* A message is through (a put or get arrived, a send met its receive): in a ring, its
 * entries may be taken again. */
HOT void message_through(Run *run, uint32_t id)
{
    if (message_ring(run))
        route_of(run, id)->live = FALSE;
}

/* The route of message id (numbered by message_new), set to `route`. */
HOT MessageRoute *route_new(Run *run, uint32_t id, MessageRoute route)
{
    MessageRoute *r = route_of(run, id);
    route.live = r->live;
    *r = route;
    return r;
}

static inline uint32_t push_message(Run *run, FennelTime t, const Message *msg)
{
    uint32_t id = message_new(run, msg);
    fennel_queue_push(&run->queue, t, new_key(run, KIND_MESSAGE, id));
    return id;
}

static inline void emit_message(Run *run, uint32_t task, uint32_t src, uint32_t dst,
                                FennelTime sent, FennelTime arrived, int64_t bytes,
                                FennelTime net_noise, FennelTime link_wait)
{
    /* The run's totals, reported with RUN_FINISHED: the summary needs no event per message. */
    run->sent++;
    run->message_bytes += (uint64_t)bytes;
    FennelTime flight = arrived - sent;
    run->flight_sum =
        flight > FENNEL_TIME_MAX - run->flight_sum ? FENNEL_TIME_MAX : run->flight_sum + flight;
    if (!(run->m->mask & FENNEL_EVENT_MESSAGE))
        return;
    FennelEvent ev = {.kind = FENNEL_EVENT_MESSAGE,
                      .task = task,
                      .rank = src,
                      .peer = dst,
                      .time = sent,
                      .until = arrived,
                      .bytes = bytes,
                      .noise = net_noise,
                      .link_wait = link_wait};
    emit(run->m, run->p, &ev);
}

static inline void emit_busy(Run *run, uint32_t task, uint32_t rank, uint32_t slot,
                             FennelBusyKind kind, FennelTime from, FennelTime until)
{
    if (!(run->m->mask & FENNEL_EVENT_BUSY) || until <= from)
        return;
    FennelEvent ev = {.kind = FENNEL_EVENT_BUSY,
                      .task = task,
                      .rank = rank,
                      .slot = slot,
                      .busy = kind,
                      .time = from,
                      .until = until};
    emit(run->m, run->p, &ev);
}

/* Whether a task ready at `when` joined its class's wait list at once instead of entering
 * the queue; `batch` is a task made ready at `batch_at` by the same completion and queued
 * (or FENNEL_NO_TASK) (engine_wait.c; inline below). */
HOT gboolean fennel__wait_join(Run *run, uint32_t task, FennelTime when, uint32_t batch,
                               FennelTime batch_at);

/* LogGOPSim queues the operations an event makes ready on a host sends first, then
 * receives, then the rest. */
HOT uint32_t loggopsim_type_order(FennelTaskType type)
{
    switch (type) {
    case FENNEL_TASK_SEND:
    case FENNEL_TASK_PUT:
    case FENNEL_TASK_GET:
        return 0;
    case FENNEL_TASK_RECV:
        return 1;
    default:
        return 2;
    }
}

/* Hands completion times to successors (engine rule 1, docs/SEMANTICS.md): a successor is ready
 * when its last predecessor completes, at the latest completion or, with `any: K`, the K-th
 * smallest. `other` goes to successors on other ranks, `own` to those on the task's rank. */
HOT void release(Run *run, const FennelEdgeIndex *start, const uint32_t *list, uint32_t task,
                 FennelTime other, FennelTime own)
{
    const FennelProgram *p = run->p;
    const uint32_t rank = p->rank[task];
    uint32_t batch = FENNEL_NO_TASK, batch_rank = FENNEL_NO_RANK; /* no rank has that number */
    FennelTime batch_at = 0;
    for (uint64_t i = start[task]; i < start[task + 1]; i++) {
        const uint32_t next = list[i];
        const FennelTime c = p->rank[next] == rank ? own : other;
        FennelTime when;
        if (G_UNLIKELY(p->any != NULL) && p->any[next]) {
            uint64_t base = run->any_start[next];
            uint32_t degree = run->any_degree[next];
            uint32_t seen = degree - task_left(run, next);
            run->any_times[base + seen] = c;
            if (task_one_done(run, next))
                continue;
            qsort(run->any_times + base, degree, sizeof(FennelTime), compare_time);
            when = run->any_times[base + p->any[next] - 1];
        } else {
            TaskRun *tr = &run->tasks[next];
            tr->ready = MAX(tr->ready, c);
            if (task_one_done(run, next))
                continue;
            when = tr->ready;
        }
        if (run->m->mask & FENNEL_EVENT_READY) {
            FennelEvent ev = {
                .kind = FENNEL_EVENT_READY, .task = next, .rank = p->rank[next], .time = when};
            emit(run->m, p, &ev);
        }
        if (G_UNLIKELY(run->loggopsim)) {
            if (G_UNLIKELY(run->n_made_ready == run->made_ready_capacity)) {
                run->made_ready_capacity = 2 * run->made_ready_capacity + 16;
                run->made_ready = g_renew(ReadyTask, run->made_ready, run->made_ready_capacity);
            }
            run->made_ready[run->n_made_ready] =
                (ReadyTask){.task = next,
                            .rank = p->rank[next],
                            .order = loggopsim_type_order(p->type[next]),
                            .index = run->n_made_ready,
                            .when = when};
            run->n_made_ready++;
            continue;
        }
        if (run->join_when_ready) {
            const uint32_t r = p->rank[next];
            /* Whether it is ready with the task queued before it, on its rank, in one test:
             * where a noisy run's pops come in an order unrelated to the program's, each
             * part of it taken apart was a branch the order made unpredictable. */
            const gboolean beside = (batch_at == when) & (batch_rank == r);
            if ((beside || (run->waiting != NULL && run->waiting[r] > 0)) &&
                fennel__wait_join(run, next, when, batch, batch_at))
                continue;
            batch_rank = r;
        }
        push_task(run, when, next);
        batch = next;
        batch_at = when;
    }
}

/* Completes a task. `matched` is the other end of the two-sided message whose meeting
 * completed it, or FENNEL_NO_TASK; it only reaches instruments, so complete() passes a
 * constant that costs nothing unless the COMPLETED event is filled. */
HOT void complete_matched(Run *run, uint32_t task, uint32_t slot, FennelTime start,
                          FennelTime local, FennelTime other, FennelTime own, FennelTime host_noise,
                          uint32_t matched)
{
    FennelMachine *m = run->m;
    set_task_state(run, task, TASK_DONE);
    m->makespan = MAX(m->makespan, MAX(local, MAX(other, own)));
    if (m->mask & FENNEL_EVENT_COMPLETED) {
        FennelEvent ev = {.kind = FENNEL_EVENT_COMPLETED,
                          .task = task,
                          .rank = run->p->rank[task],
                          .slot = slot,
                          .time = start,
                          .local = local,
                          .completion = other,
                          .issuer_completion = own,
                          .noise = host_noise,
                          .matched = matched};
        emit(m, run->p, &ev);
    }
    release(run, run->p->succ_start, run->p->succ, task, other, own);
}

HOT void complete(Run *run, uint32_t task, uint32_t slot, FennelTime start, FennelTime local,
                  FennelTime other, FennelTime own, FennelTime host_noise)
{
    complete_matched(run, task, slot, start, local, other, own, host_noise, FENNEL_NO_TASK);
}

HOT FennelTime *slots_of(FennelMachine *m, uint32_t rank)
{
    return m->slot + (size_t)rank * m->processes;
}

/* The lowest-numbered of a rank's earliest free slots. */
static inline uint32_t earliest_slot(FennelMachine *m, uint32_t rank)
{
    const FennelTime *slots = slots_of(m, rank);
    uint32_t best = 0;
    for (uint32_t i = 1; i < m->processes; i++) {
        if (slots[i] < slots[best])
            best = i;
    }
    return best;
}

/* ---- wait classes (engine_wait.c) ----
 *
 * Per rank, classes 0 .. WAIT_MESSAGE_CLASSES-1 are tasks: 2 kind + nic, where kind 0
 * needs every slot, 1 the earliest free slot (concurrent), 2 + s slot s (pinned), and nic
 * adds the NIC's send side (a network task under LogP/LogGP). On one slot per rank every
 * kind is 0: they all need that slot. Classes from WAIT_MESSAGE_CLASSES on are messages:
 * + s for one receiving on slot s (with the NIC's receive side), + processes for the NIC
 * alone (a get's request). */
#define WAIT_MESSAGE_CLASSES(run) (2 * ((run)->m->processes + 2))

HOT uint32_t task_class(const Run *run, uint32_t task, gboolean nic)
{
    const FennelProgram *p = run->p;
    uint32_t kind = 0;
    if (run->m->processes > 1) {
        if (p->pin && p->pin[task] != FENNEL_NO_RANK)
            kind = 2 + p->pin[task];
        else if (p->flags[task] & FENNEL_TASK_CONCURRENT)
            kind = 1;
    }
    return 2 * kind + (nic ? 1 : 0);
}

HOT uint32_t message_class(const Run *run, uint32_t slot)
{
    return WAIT_MESSAGE_CLASSES(run) + slot;
}

/* When the resources of a class are free on a rank, and the slot a member would take. */
HOT FennelTime wait_earliest(Run *run, uint32_t rank, uint32_t cls, uint32_t *slot)
{
    FennelMachine *m = run->m;
    const FennelTime *slots = slots_of(m, rank);
    const uint32_t tasks = WAIT_MESSAGE_CLASSES(run);
    FennelTime earliest;
    if (cls >= tasks) {
        uint32_t s = cls - tasks;
        earliest = m->nic_recv[rank];
        *slot = 0;
        if (s < m->processes) {
            *slot = s;
            earliest = MAX(earliest, slots[s]);
        }
        return earliest;
    }
    uint32_t kind = cls >> 1;
    if (kind == 0) {
        *slot = 0;
        earliest = slots[0];
        for (uint32_t i = 1; i < m->processes; i++)
            earliest = MAX(earliest, slots[i]);
    } else if (kind == 1) {
        *slot = earliest_slot(m, rank);
        earliest = slots[*slot];
    } else {
        *slot = kind - 2;
        earliest = slots[*slot];
    }
    if (cls & 1)
        earliest = MAX(earliest, m->nic_send[rank]);
    return earliest;
}

/* ---- topologies (engine_topology.c) ---- */

/* The node of a rank. */
HOT uint32_t node_of(const FennelMachine *m, uint32_t rank)
{
    return G_UNLIKELY(m->node != NULL) ? m->node[rank] : rank / m->ranks_per_node;
}

/* The port (the vertex of its node's NIC) a rank's messages leave and enter the network by:
 * its node, but where nodes have several NICs. */
HOT uint32_t port_of(const FennelMachine *m, uint32_t rank)
{
    return G_UNLIKELY(m->port != NULL) ? m->port[rank] : node_of(m, rank);
}

/* The network class and parameters for a message between two ranks (intra-node or not). */
HOT const FennelNetworkClass *network_for(const FennelMachine *m, uint32_t src, uint32_t dst,
                                          const int64_t **params)
{
    if (G_UNLIKELY(m->node != NULL))
        return fennel_model_network_nodes(m->model, m->node[src], m->node[dst], params);
    return fennel_model_network(m->model, src, dst, params);
}

/* A task's wait class: network tasks under LogP/LogGP also need their rank's NIC. */
HOT uint32_t task_wait_class(const Run *run, uint32_t task)
{
    const FennelProgram *p = run->p;
    const FennelTaskType type = p->type[task];
    gboolean nic = FALSE;
    if (run->nic_classes &&
        (type == FENNEL_TASK_PUT || type == FENNEL_TASK_GET || type == FENNEL_TASK_SEND)) {
        const int64_t *params;
        nic = (network_for(run->m, p->rank[task], p->peer[task], &params)->flags &
               FENNEL_NET_CONTENDED) != 0;
    }
    return task_class(run, task, nic);
}

/* message_timing for a message from rank src to rank dst: a slow NIC at either end of a
 * message between nodes multiplies the model's NIC times per byte (the larger factor). */
HOT void pair_timing(Run *run, const FennelNetworkClass *net, const int64_t *params, int64_t bytes,
                     uint32_t src, uint32_t dst, FennelMessageTiming *out)
{
    const FennelMachine *m = run->m;
    if (G_UNLIKELY(m->nic_factor != NULL) && node_of(m, src) != node_of(m, dst)) {
        const int64_t f = MAX(m->nic_factor[src], m->nic_factor[dst]);
        if (f != FENNEL_MILLION) {
            fennel__nic_timing(run, net, params, bytes, f, out);
            return;
        }
    }
    message_timing(run, net, params, bytes, out);
}

/* Whether a message between two ranks goes through the ports of `nic: shared` or
 * `duplex: half` (never with a topology). */
HOT gboolean through_ports(const FennelMachine *m, uint32_t src, uint32_t dst)
{
    return m->port_out != NULL && node_of(m, src) != node_of(m, dst);
}

/* Whether a message between two ranks crosses the topology. */
HOT gboolean crosses(const FennelMachine *m, uint32_t src, uint32_t dst)
{
    return m->net != NULL && node_of(m, src) != node_of(m, dst);
}

/* The wire time of `bytes` from rank src to rank dst without contention: the route's
 * latencies plus, unless the model times bytes at the NIC, the bytes over its narrowest link.
 * The message (task's leg) enters the network at t: with faults, its route avoids the links
 * that are down then, and each link is taken at the rate it has when the head reaches it. */
FennelTime fennel__topology_wire(Run *run, uint32_t task, unsigned leg, uint32_t src, uint32_t dst,
                                 FennelTime t, int64_t bytes, gboolean nic_bytes);
/* Sends message `id` (its task, leg, slot and local set) from rank src to rank dst through
 * shared links: chooses its route and hands it to the contention level's send; its head
 * enters the network at `head`, now being `t`. */
void fennel__topology_send(Run *run, uint32_t id, uint32_t src, uint32_t dst, FennelTime t,
                           FennelTime head);
/* The equal-cost route of task's message `leg` from node src to node dst under routing
 * destination-modulo (dst) or ecmp (the seeded hash of the nodes and 2 x task + leg), on a
 * dragonfly under valiant the intermediate group the same hash picks; under adaptive the
 * route destination modulo takes (a dragonfly's minimal one), the one the load decides
 * from. */
static inline uint32_t fennel__route_choice(const FennelMachine *m, uint32_t task, unsigned leg,
                                            uint32_t src, uint32_t dst)
{
    const FennelRouting routing = m->net->routing;
    if (G_LIKELY(routing == FENNEL_ROUTING_DESTINATION))
        return dst;
    if (routing == FENNEL_ROUTING_ADAPTIVE)
        return fennel_network_minimal(m->net, dst);
    const uint32_t hash = fennel_network_ecmp(m->seed, src, dst, 2 * (uint64_t)task + leg);
    return routing == FENNEL_ROUTING_VALIANT ? fennel_network_valiant(m->net, src, dst, hash)
                                             : hash;
}
/* Under routing adaptive: message `id` is through its route, which is no longer loaded by
 * its bytes. */
void fennel__topology_unload(Run *run, uint32_t id);
/* A message has reached its destination node, now being `now`: its head at `head`, its tail
 * at `tail`. */
void fennel__topology_arrived(Run *run, uint32_t id, FennelTime now, FennelTime head,
                              FennelTime tail);

/* A LogP/LogGP message on a topology: its tail arrived at `tail` (its head, before noise, at
 * `head`); the time its bytes came after the receiving NIC would have timed them delays its
 * receive. */
void fennel__topology_tail(Run *run, uint32_t id, FennelTime head, FennelTime tail);
/* The transfer time of `bytes` over the narrowest link from rank src's node to rank dst's
 * (the message entering the network at t, as for fennel__topology_wire). */
FennelTime fennel__topology_bytes(Run *run, uint32_t task, unsigned leg, uint32_t src, uint32_t dst,
                                  FennelTime t, int64_t bytes);
/* A LogP/LogGP message taken by its receiver (route `taken`, `due`, `ready`) and whose tail is
 * known: reported, and handed on at its receive's end, later by what its tail was late. */
void fennel__engine_deliver_late(Run *run, uint32_t id);

/* ---- contention levels (engine_contention.c) ----
 *
 * What a contention level (docs/TOPOLOGY.md) does in the engine, one row per
 * FennelContention of models/topology.h, whose table holds its name and description. The
 * engine calls through the row of the model's level and never asks which level it is:
 * adding a level is its file, its row and its meson line (HACKING.md). A hook is NULL where
 * a level has nothing to do. */
struct ContentionLevel {
    FennelContention level; /* its value, which indexes the table */
    /* Messages between nodes cross the topology as events (send, hop); FALSE: they take
     * the wire time of fennel__topology_wire at once. */
    gboolean routed;
    /* Only the nodes' ports (links below endpoint_links) are shared: the memory of a
     * run's link state is counted by the program's nodes, not its routes. */
    gboolean ports_only;
    /* A message's route is read no more once the message has arrived (its hops, under
     * `fair` its flow, and fennel__topology_arrived), so routes are kept in a ring
     * (Run.route_mask). A flow names its message by number, read while the flow is under
     * way, when the message is live. */
    gboolean ring;
    /* Bytes of its own state per link a message crosses (for the memory check). */
    uint64_t link_bytes;
    /* Its state for one run (Run.level_state), and that state's free. */
    void *(*setup)(const FennelMachine *m);
    void (*free)(void *state);
    /* Message `id`, its route chosen (Run.routes), enters the network: its head at `head`,
     * now being `t`. */
    void (*send)(Run *run, uint32_t id, FennelTime t, FennelTime head);
    /* A KIND_HOP event of message `id` at t. */
    void (*hop)(Run *run, uint32_t id, FennelTime t);
    /* A switch's operation (a load-reduce or multicast, engine_nvls.c), message `id`, starts
     * at t, and a KIND_HOP event of one at t. */
    void (*tree_send)(Run *run, uint32_t id, FennelTime t);
    void (*tree_hop)(Run *run, uint32_t id, FennelTime t);
    /* Fetches what the KIND_HOP event of message `id`, HOP_AHEAD events from now, will
     * read. A hint: it changes nothing. */
    void (*ahead)(const Run *run, uint32_t id);
    /* A KIND_LEVEL event at t: `id` is what the level queued with it. */
    void (*event)(Run *run, uint64_t id, FennelTime t);
    /* Change `index` of the machine's link changes (a fault from a time on,
     * engine_faults.c) happens at t: a level whose messages hold links over time re-rates
     * them (fair). NULL: a message meets a link's rate when it takes the link. */
    void (*change)(Run *run, uint32_t index, FennelTime t);
};

extern const ContentionLevel fennel__contention_levels[FENNEL_CONTENTION_N_LEVELS];

/* Contention endpoint and links (engine_topology.c): a message's head crosses the shared
 * links first come first served, the first of them at once when it enters at `t`, each
 * next one as a KIND_HOP event; endpoint shares the nodes' ports, links every link. */
void fennel__serial_send(Run *run, uint32_t id, FennelTime t, FennelTime head);
/* How many events before its hop a message's next link state is fetched: about a memory
 * access's time, at some tens of nanoseconds an event. */
#define HOP_AHEAD 4
void fennel__serial_ahead(const Run *run, uint32_t id);
void fennel__endpoint_hop(Run *run, uint32_t id, FennelTime t);
void fennel__links_hop(Run *run, uint32_t id, FennelTime t);

/* Operations of a switch (engine_nvls.c): a load-reduce's or multicast's tree of links, its
 * start on `slot` at t (every level), the links of its stage 0 (into the switch) or 1 (out
 * of it), the latency of its two stages, its end (its last byte there at `done`, now being
 * t), the hooks of `endpoint` and `links`, and the check that a program's trees fit the
 * machine (a topology, every group on one switch, one port per member). */
/* The time per byte of a switch's operation on a link of its tree: the link's own, or the
 * topology's nvls_rate where that is slower (a rail's `nvls_bandwidth`). */
static inline FennelRate fennel__tree_rate(const FennelNetwork *n, uint32_t link, uint32_t level)
{
    /* nvls_rate is the NVLink ports' (level 0); a leaf's way takes its links' own rates. */
    const FennelRate own = fennel_network_rate(n, link, level);
    return level == 0 ? MAX(own, n->nvls_rate) : own;
}
void fennel__engine_start_tree(Run *run, uint32_t task, uint32_t slot, FennelTime t);
uint32_t fennel__tree_links(const Run *run, uint32_t t, unsigned stage, uint32_t *links,
                            uint32_t *levels);
/* The links of a member's way into or out of the switch: 1 at an NVSwitch, 2 at a rail's leaf
 * (the GPU's link to its NIC and the NIC's cable). */
uint32_t fennel__tree_way(const Run *run, uint32_t t);
FennelTime fennel__tree_latency(const Run *run, uint32_t t);
void fennel__tree_done(Run *run, uint32_t id, FennelTime t, FennelTime done);
void fennel__serial_tree_send(Run *run, uint32_t id, FennelTime t);
void fennel__serial_tree_hop(Run *run, uint32_t id, FennelTime t);
gboolean fennel__tree_check(const FennelMachine *m, const FennelProgram *p, GError **error);

/* Contention fair (engine_fair.c): the flows of a run; a message whose route's latency is
 * crossed first (a KIND_HOP event at its end), then its bytes flow from that event on; a
 * KIND_LEVEL event (its id the generation of the rates it was queued for). */
void *fennel__fair_new(const FennelMachine *m);
void fennel__fair_free(void *state);
void fennel__fair_send(Run *run, uint32_t id, FennelTime t, FennelTime head);
void fennel__fair_change(Run *run, uint32_t index, FennelTime t);
void fennel__fair_add(Run *run, uint32_t id, FennelTime t);
void fennel__fair_event(Run *run, uint64_t generation, FennelTime t);
/* A switch's operation: its latency, then one flow over its tree's links. */
void fennel__fair_tree_send(Run *run, uint32_t id, FennelTime t);
void fennel__fair_tree_add(Run *run, uint32_t id, FennelTime t);
/* The per-link bytes of the fair solver's state. */
#define FENNEL_FAIR_LINK_BYTES (2 * sizeof(double) + sizeof(uint32_t) + 1)

/* Lowers a held slot (busy until FENNEL_TIME_MAX) to `until` and lets its waiting tasks
 * stand in again (engine_wait.c). */
void fennel__wait_release(Run *run, uint32_t rank, uint32_t slot, FennelTime until, FennelTime t);

/* Adds a task or message, by its queue key, to its class's list; `free` is when the class's
 * resources are. FALSE when it may not wait behind the list's members: the caller queues
 * it at `free` itself. */
gboolean fennel__wait_park(Run *run, uint32_t rank, uint32_t cls, uint64_t key, FennelTime free);
void fennel__wait_clear(Run *run);

/* The lists of a rank that had none, allocated (engine_wait.c); the parts of a list's
 * removal and join that are not its run's. */
WaitList *fennel__wait_lists_new(Run *run, uint32_t rank);
void fennel__wait_pop_array(WaitList *w);
gboolean fennel__wait_join_slow(Run *run, uint32_t task, FennelTime when, uint32_t batch,
                                FennelTime batch_at);

/* A class's list on a rank. Inline, with the run's removal and join below: in a wide
 * stage every task passes through its rank's list, and the calls were a sixth of a task's
 * instructions. */
HOT WaitList *wait_list(Run *run, uint32_t rank, uint32_t cls)
{
    WaitList *lists = G_LIKELY(run->waits != NULL) ? run->waits[rank] : NULL;
    if (G_UNLIKELY(lists == NULL))
        lists = fennel__wait_lists_new(run, rank);
    return &lists[cls];
}

HOT uint64_t wait_first(const WaitList *w)
{
    return G_LIKELY(w->run) ? w->first : w->id[w->head];
}

/* Whether a popped entry of a waiting member is its list's stand-in (then it leaves the
 * list) rather than a stale entry to skip: an entry of a member that was displaced as the
 * stand-in, or an older entry of the stand-in, is stale (the member is still waiting and
 * its list has another entry). */
HOT gboolean fennel__wait_take(Run *run, uint32_t rank, uint32_t cls, uint64_t key, FennelTime t)
{
    WaitList *w = wait_list(run, rank, cls);
    if (w->rep != key || w->at != t)
        return FALSE;
    g_assert(wait_first(w) == key);
    if (G_LIKELY(w->run)) {
        w->first++;
        w->len--;
    } else {
        fennel__wait_pop_array(w);
    }
    run->waiting[rank]--;
    w->rep = NO_KEY;
    w->pending = FALSE; /* its time has come: every member is ready */
    return TRUE;
}

/* After a stand-in was taken at t: the list's next member stands in, when the resources
 * are free (not before t), unless one stands in already. */
HOT void fennel__wait_next(Run *run, uint32_t rank, uint32_t cls, FennelTime t)
{
    WaitList *w = wait_list(run, rank, cls);
    if (w->len == 0 || w->rep != NO_KEY)
        return;
    uint32_t slot;
    w->rep = wait_first(w);
    w->at = MAX(t, wait_earliest(run, rank, cls, &slot));
    fennel_queue_push(&run->queue, w->at, w->rep);
}

/* Whether a task ready at `when` joined its class's wait list at once instead of entering
 * the queue (engine_wait.c says when it may). Inline: the next of a run of consecutive
 * tasks behind a stand-in due no earlier than `when`, the members of a fan-out after its
 * first two. */
HOT gboolean fennel__wait_join(Run *run, uint32_t task, FennelTime when, uint32_t batch,
                               FennelTime batch_at)
{
    const uint32_t rank = run->p->rank[task];
    WaitList *lists = G_LIKELY(run->waits != NULL) ? run->waits[rank] : NULL;
    if (lists != NULL) {
        WaitList *w = &lists[task_wait_class(run, task)];
        /* Its key is past every member's, so it never displaces the stand-in. */
        if (w->run && w->len > 0 && FENNEL_TASK_KEY(task) == w->first + w->len &&
            w->rep != NO_KEY && when <= w->at && (!w->pending || when == w->at)) {
            w->len++;
            run->waiting[rank]++;
            set_task_state(run, task, TASK_PARKED);
            return TRUE;
        }
    }
    return fennel__wait_join_slow(run, task, when, batch, batch_at);
}

/* engine_network.c */
void fennel__engine_start_network(Run *run, uint32_t task, uint32_t slot, FennelTime t);
void fennel__engine_receive(Run *run, uint32_t id, uint64_t key, FennelTime t);
void fennel__engine_meet(Run *run, uint32_t recv, uint32_t msg_id, FennelTime posted,
                         FennelTime when);

/* ---- stragglers and faults (engine_faults.c) ---- */

/* Draws the slow ranks and the faults for the machine's seed, once (its first run). */
gboolean fennel__faults_resolve(FennelMachine *m, GError **error);
void fennel__faults_free(FennelMachine *m);

/* Whether link l's rate changes at some time (a fault or a slow NIC). */
static inline gboolean link_changed(const FennelMachine *m, uint32_t l)
{
    return G_UNLIKELY(m->changed != NULL) && (m->changed[l / 64] >> (l % 64) & 1);
}

/* Link l's time per byte at time t (`rate` without changes), and whether it is down then
 * (*down; the rate is then meaningless). The faults in effect are marked as met. */
FennelRate fennel__link_rate(FennelMachine *m, uint32_t l, FennelRate rate, FennelTime t,
                             gboolean *down);
/* The route (choice) task's message `leg` takes from node src to node dst when it enters the
 * network at t: `choice` if no link of it is down then, else the next equal-cost route in
 * order that has none; FENNEL_LINK_NONE when every one crosses a link that is down (the
 * message is then cut off: fennel__cut). */
uint32_t fennel__route_alive(Run *run, uint32_t task, unsigned leg, uint32_t src, uint32_t dst,
                             uint32_t choice, FennelTime t);
/* Task's message `leg` is cut off at t by link `link` (no_route: it found no route that
 * avoids the links down when it entered the network): the run stops. */
void fennel__cut(Run *run, uint32_t task, unsigned leg, uint32_t link, FennelTime t,
                 gboolean no_route);
void fennel__report_cut(const Run *run, GError **error);
/* A KIND_LEVEL queue entry for change i of the machine's link changes (above every id a
 * level queues itself, such as fair's generations), for a level with a `change` hook. */
#define LEVEL_CHANGE_BIT (1ull << 61)

/* engine_stuck.c */
void fennel__engine_report_stuck(const Run *run, GError **error);

#endif
