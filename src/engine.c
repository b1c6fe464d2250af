#include "engine.h"

#include "errors.h"
#include "match.h"
#include "queue.h"

#include <string.h>

#define MAX_INSTRUMENTS 8

/* The per-task path is a handful of small functions; inlining them into the event loop
 * saves their calls and register spills (the engine benchmark counts the difference). */
#define HOT static inline __attribute__((always_inline))

/* Heap keys: the event kind in the top bits, then a task index (program order) or a
 * message number (send order). At equal times tasks therefore run before messages are
 * received, tasks in program order and messages in the order they were sent. */
#define KIND_SHIFT   62
#define KIND_TASK    0ull
#define KIND_MESSAGE 1ull
#define KEY_ID(key)  ((key) & ((1ull << KIND_SHIFT) - 1))

struct FennelMachine {
    uint32_t ranks, processes;
    FennelTime *slot;     /* ranks x processes free times */
    FennelTime *nic_send; /* per rank: the NIC may send again (LogP gap) */
    FennelTime *nic_recv; /* per rank: the NIC may receive again */
    const FennelModel *model;
    uint64_t seed;
    uint64_t runs; /* programs run so far: part of every noise index */
    FennelInstrument instruments[MAX_INSTRUMENTS];
    unsigned n_instruments;
    unsigned mask; /* union of the instruments' masks */
    FennelTime makespan;
    uint64_t events;
};

FennelMachine *fennel_machine_new(uint32_t ranks, uint32_t processes, const FennelModel *model)
{
    FennelMachine *m = g_new0(FennelMachine, 1);
    m->ranks = ranks ? ranks : 1;
    m->processes = processes ? processes : 1;
    m->slot = g_new0(FennelTime, (size_t)m->ranks * m->processes);
    m->nic_send = g_new0(FennelTime, m->ranks);
    m->nic_recv = g_new0(FennelTime, m->ranks);
    m->model = model;
    return m;
}

void fennel_machine_free(FennelMachine *m)
{
    if (m == NULL)
        return;
    g_free(m->slot);
    g_free(m->nic_send);
    g_free(m->nic_recv);
    g_free(m);
}

void fennel_machine_set_seed(FennelMachine *m, uint64_t seed)
{
    m->seed = seed;
}

void fennel_machine_add_instrument(FennelMachine *m, const FennelInstrument *instrument)
{
    g_return_if_fail(m->n_instruments < MAX_INSTRUMENTS);
    m->instruments[m->n_instruments++] = *instrument;
    m->mask |= instrument->mask;
}

uint32_t fennel_machine_ranks(const FennelMachine *m)
{
    return m->ranks;
}

uint32_t fennel_machine_processes(const FennelMachine *m)
{
    return m->processes;
}

FennelTime fennel_machine_slot_time(const FennelMachine *m, uint32_t rank, uint32_t slot)
{
    return m->slot[(size_t)rank * m->processes + slot];
}

FennelTime fennel_machine_makespan(const FennelMachine *m)
{
    return m->makespan;
}

uint64_t fennel_machine_events(const FennelMachine *m)
{
    return m->events;
}

static void emit(const FennelMachine *m, const FennelProgram *p, const FennelEvent *ev)
{
    for (unsigned i = 0; i < m->n_instruments; i++) {
        if (m->instruments[i].mask & ev->kind)
            m->instruments[i].observe(m->instruments[i].data, p, ev);
    }
}

static int compare_time(const void *a, const void *b)
{
    FennelTime x = *(const FennelTime *)a, y = *(const FennelTime *)b;
    return (x > y) - (x < y);
}

/* A message in flight or waiting to be received. */
typedef struct {
    uint32_t task;
    uint32_t leg;     /* 0: a put's or send's data, a get's request; 1: a get's response */
    FennelTime local; /* the issuing task's slot was free again at this time */
    FennelTime aux;   /* a get's response: when its request reached the target */
    FennelTime ready; /* a two-sided message: when a receive may take it */
    uint32_t slot;    /* the slot its sender ran on */
    gboolean done;    /* a rendezvous send completed */
} Message;

enum { TASK_WAITING, TASK_RUNNING, TASK_DONE };

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

/* The state of one program's run, flat arrays indexed by task. */
typedef struct {
    FennelMachine *m;
    const FennelProgram *p;
    FennelQueue queue;
    uint32_t *remaining;  /* predecessors not yet completed */
    FennelTime *ready;    /* latest completion so far (tasks without `any`) */
    uint64_t *any_start;  /* `any` tasks: where their completions are collected */
    uint32_t *any_degree; /* `any` tasks: their number of predecessors */
    FennelTime *any_times;
    uint8_t *state;
    GArray *messages; /* Message */
    FennelMatch *match;
    FennelMap channels;     /* (src, dst) -> latest arrival of a send between them */
    uint32_t *recv_message; /* per task: the message a recv matched, or NONE */
    uint32_t *send_message; /* per task: a send's message */
    uint32_t overflow_task; /* the task whose time overflowed, or FENNEL_NO_RANK */
    uint64_t noise_base;    /* makes noise indexes unique across programs */
    TimingEntry timings[TIMING_CACHE];
    ComputeEntry computes[32];
} Run;

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

HOT FennelTime add(Run *run, uint32_t task, FennelTime a, FennelTime b)
{
    FennelTime sum;
    if (!fennel_time_add(a, b, &sum)) {
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

/* A duration plus noise never goes below zero. */
HOT FennelTime noisy(FennelTime d, FennelTime n)
{
    FennelTime sum;
    if (!fennel_time_add(d, n, &sum))
        return n > 0 ? FENNEL_TIME_MAX : 0;
    return MAX(sum, 0);
}

HOT void push_task(Run *run, FennelTime t, uint32_t task)
{
    fennel_queue_push(&run->queue, t, KIND_TASK << KIND_SHIFT | task);
}

static uint32_t push_message(Run *run, FennelTime t, const Message *msg)
{
    uint32_t id = run->messages->len;
    g_array_append_val(run->messages, *msg);
    fennel_queue_push(&run->queue, t, KIND_MESSAGE << KIND_SHIFT | id);
    return id;
}

static void emit_message(Run *run, uint32_t task, uint32_t src, uint32_t dst, FennelTime sent,
                         FennelTime arrived, int64_t bytes, FennelTime net_noise)
{
    if (!(run->m->mask & FENNEL_EVENT_MESSAGE))
        return;
    FennelEvent ev = {.kind = FENNEL_EVENT_MESSAGE,
                      .task = task,
                      .rank = src,
                      .peer = dst,
                      .time = sent,
                      .until = arrived,
                      .bytes = bytes,
                      .noise = net_noise};
    emit(run->m, run->p, &ev);
}

static void emit_busy(Run *run, uint32_t task, uint32_t rank, uint32_t slot, FennelBusyKind kind,
                      FennelTime from, FennelTime until)
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

/* Hands completion times to successors (SPEC §6.1): a successor is ready when its last
 * predecessor completes, at the latest completion or, with `any: K`, the K-th smallest.
 * `other` goes to successors on other ranks, `own` to those on the task's rank. */
HOT void release(Run *run, const FennelEdgeIndex *start, const uint32_t *list, uint32_t task,
                 FennelTime other, FennelTime own)
{
    const FennelProgram *p = run->p;
    const uint32_t rank = p->rank[task];
    for (uint64_t i = start[task]; i < start[task + 1]; i++) {
        const uint32_t next = list[i];
        const FennelTime c = p->rank[next] == rank ? own : other;
        FennelTime when;
        if (G_UNLIKELY(p->any != NULL) && p->any[next]) {
            uint64_t base = run->any_start[next];
            uint32_t degree = run->any_degree[next];
            uint32_t seen = degree - run->remaining[next];
            run->any_times[base + seen] = c;
            if (--run->remaining[next] > 0)
                continue;
            qsort(run->any_times + base, degree, sizeof(FennelTime), compare_time);
            when = run->any_times[base + p->any[next] - 1];
        } else {
            run->ready[next] = MAX(run->ready[next], c);
            if (--run->remaining[next] > 0)
                continue;
            when = run->ready[next];
        }
        if (run->m->mask & FENNEL_EVENT_READY) {
            FennelEvent ev = {
                .kind = FENNEL_EVENT_READY, .task = next, .rank = p->rank[next], .time = when};
            emit(run->m, p, &ev);
        }
        push_task(run, when, next);
    }
}

HOT void complete(Run *run, uint32_t task, uint32_t slot, FennelTime start, FennelTime local,
                  FennelTime other, FennelTime own, FennelTime host_noise)
{
    FennelMachine *m = run->m;
    run->state[task] = TASK_DONE;
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
                          .noise = host_noise};
        emit(m, run->p, &ev);
    }
    release(run, run->p->succ_start, run->p->succ, task, other, own);
}

HOT FennelTime *slots_of(FennelMachine *m, uint32_t rank)
{
    return m->slot + (size_t)rank * m->processes;
}

/* The lowest-numbered of a rank's earliest free slots. */
static uint32_t earliest_slot(FennelMachine *m, uint32_t rank)
{
    const FennelTime *slots = slots_of(m, rank);
    uint32_t best = 0;
    for (uint32_t i = 1; i < m->processes; i++) {
        if (slots[i] < slots[best])
            best = i;
    }
    return best;
}

/* Raises a slot's free time to `until` (a sender that must wait for its message). */
static void hold_slot(Run *run, uint32_t task, uint32_t rank, uint32_t slot, FennelTime until)
{
    FennelTime *s = &slots_of(run->m, rank)[slot];
    if (until > *s) {
        emit_busy(run, task, rank, slot, FENNEL_BUSY_WAIT, *s, until);
        *s = until;
        run->m->makespan = MAX(run->m->makespan, until);
    }
}

/* ---- two-sided messages ---- */

/* A receive and its message met at time `when`: the receive completes once both the
 * message is ready and the receive was posted; a rendezvous send completes at the
 * meeting, and its sender's slot and NIC wait until then (as in LogGOPSim). */
static void meet(Run *run, uint32_t recv, uint32_t msg_id, FennelTime posted, FennelTime when)
{
    const FennelProgram *p = run->p;
    Message *msg = &g_array_index(run->messages, Message, msg_id);
    uint32_t send = msg->task;
    run->recv_message[recv] = msg_id;
    FennelTime done = MAX(posted, msg->ready);
    complete(run, recv, 0, posted, posted, done, done, 0);
    if (run->state[send] != TASK_DONE) {
        uint32_t rank = p->rank[send];
        hold_slot(run, send, rank, msg->slot, when);
        run->m->nic_send[rank] = MAX(run->m->nic_send[rank], when);
        complete(run, send, msg->slot, msg->aux, msg->local, when, when, 0);
    }
}

/* ---- starting a task ---- */

/* Starts a put, send or get at t on `slot` (its resources are free). */
static void start_network(Run *run, uint32_t task, uint32_t slot, FennelTime t)
{
    FennelMachine *m = run->m;
    const FennelProgram *p = run->p;
    const uint32_t src = p->rank[task], dst = p->peer[task];
    const FennelTaskType type = p->type[task];
    const int64_t *params;
    const FennelNetworkClass *net = fennel_model_network(m->model, src, dst, &params);
    const gboolean contended = (net->flags & FENNEL_NET_CONTENDED) != 0;
    int64_t bytes = type == FENNEL_TASK_GET ? p->request[task] : p->amount[task];
    FennelMessageTiming mt;
    message_timing(run, net, params, bytes, &mt);
    FennelTime host = noise(run, FENNEL_NOISE_HOST, task, 0);
    FennelTime flight_noise = noise(run, FENNEL_NOISE_NETWORK, task, 0);
    FennelTime flight = noisy(mt.flight, flight_noise);
    FennelTime busy = noisy(mt.busy, host);
    if (net->flags & FENNEL_NET_SENDER_WAITS)
        busy = flight = noisy(mt.flight, flight_noise + host);
    FennelTime arrival = add(run, task, t, flight);
    FennelTime local = add(run, task, t, busy);
    if (type == FENNEL_TASK_PUT && (p->flags[task] & FENNEL_TASK_BLOCKING) && !contended)
        local = MAX(local, arrival);
    slots_of(m, src)[slot] = local;
    if (mt.gap > 0) {
        m->nic_send[src] = add(run, task, t, mt.gap);
        emit_busy(run, task, src, 0, FENNEL_BUSY_NIC_SEND, t, m->nic_send[src]);
    }
    m->makespan = MAX(m->makespan, local);

    if (type == FENNEL_TASK_SEND) {
        /* Non-overtaking: a send never arrives before an earlier one between the pair. */
        uint64_t *last = fennel_map_slot(&run->channels, src, dst, (uint64_t)FENNEL_TIME_MIN);
        arrival = MAX(arrival, (FennelTime)*last);
        *last = (uint64_t)arrival;
    }
    emit_message(run, task, src, dst, t, arrival, bytes, flight_noise);
    Message msg = {.task = task, .leg = 0, .local = local, .aux = t, .slot = slot};

    if (type == FENNEL_TASK_SEND) {
        run->send_message[task] = push_message(run, arrival, &msg);
        gboolean rendezvous = net->rendezvous && net->rendezvous(params, p->amount[task]);
        if (!rendezvous) {
            /* Eager: under LogP/LogGP the send is done when its overhead is; under
             * postal and lbp it is timed like a put. */
            FennelTime done = contended ? local : arrival;
            complete(run, task, slot, t, local, done, done, host);
        }
        return;
    }
    if (contended) {
        push_message(run, arrival, &msg);
        return;
    }
    if (type == FENNEL_TASK_PUT) {
        complete(run, task, slot, t, local, arrival, arrival, host);
        return;
    }
    /* A get without contention: the target's NIC answers at once. */
    const int64_t *rparams;
    const FennelNetworkClass *rnet = fennel_model_network(m->model, dst, src, &rparams);
    FennelMessageTiming rt;
    message_timing(run, rnet, rparams, p->amount[task], &rt);
    FennelTime back_noise = noise(run, FENNEL_NOISE_NETWORK, task, 1);
    FennelTime back = add(run, task, arrival, noisy(rt.wire, back_noise));
    emit_message(run, task, dst, src, arrival, back, p->amount[task], back_noise);
    if (net->flags & FENNEL_NET_SENDER_WAITS) {
        local = back;
        slots_of(m, src)[slot] = local;
    }
    complete(run, task, slot, t, local, arrival, back, host);
}

/* A message event: a put's data or a get's request or response reaching a contended
 * rank, or any two-sided message reaching its receiver. */
static void receive(Run *run, uint32_t id, FennelTime t, uint64_t key)
{
    FennelMachine *m = run->m;
    const FennelProgram *p = run->p;
    Message msg = g_array_index(run->messages, Message, id);
    const uint32_t task = msg.task;
    const FennelTaskType type = p->type[task];
    const uint32_t issuer = p->rank[task];
    const uint32_t src = msg.leg ? p->peer[task] : issuer, dst = msg.leg ? issuer : p->peer[task];
    const int64_t *params;
    const FennelNetworkClass *net = fennel_model_network(m->model, src, dst, &params);
    const gboolean contended = (net->flags & FENNEL_NET_CONTENDED) != 0;
    int64_t bytes = type == FENNEL_TASK_GET && msg.leg == 0 ? p->request[task] : p->amount[task];
    FennelMessageTiming mt;
    message_timing(run, net, params, bytes, &mt);

    /* A get's request only needs the target's NIC: no host is involved. */
    const gboolean needs_slot = !(type == FENNEL_TASK_GET && msg.leg == 0);
    uint32_t slot = 0;
    FennelTime ready = t;
    if (contended) {
        FennelTime earliest = m->nic_recv[dst];
        if (needs_slot) {
            /* The slot with the sender's number, as LogGOPSim charges the receive to the
             * CPU index the message carries (a get's response: the issuer's own slot). */
            slot = msg.slot % m->processes;
            earliest = MAX(earliest, slots_of(m, dst)[slot]);
        }
        if (earliest > t) {
            fennel_queue_push(&run->queue, earliest, key);
            return;
        }
        m->nic_recv[dst] = add(run, task, t, mt.recv_gap);
        emit_busy(run, task, dst, 0, FENNEL_BUSY_NIC_RECV, t, m->nic_recv[dst]);
        if (needs_slot) {
            ready = add(run, task, t, mt.recv_busy);
            slots_of(m, dst)[slot] = ready;
            emit_busy(run, task, dst, slot, FENNEL_BUSY_RECEIVE, t, ready);
            m->makespan = MAX(m->makespan, ready);
        }
    }

    switch (type) {
    case FENNEL_TASK_PUT:
        if (p->flags[task] & FENNEL_TASK_BLOCKING)
            hold_slot(run, task, issuer, msg.slot, ready);
        complete(run, task, msg.slot, msg.aux, msg.local, ready, ready, 0);
        break;
    case FENNEL_TASK_GET:
        if (msg.leg == 0) {
            /* The target's NIC sends the data back as soon as its send gap allows. */
            const int64_t *rparams;
            const FennelNetworkClass *rnet = fennel_model_network(m->model, dst, src, &rparams);
            FennelMessageTiming rt;
            message_timing(run, rnet, rparams, p->amount[task], &rt);
            FennelTime leave = MAX(t, m->nic_send[dst]);
            m->nic_send[dst] = add(run, task, leave, rt.gap);
            emit_busy(run, task, dst, 0, FENNEL_BUSY_NIC_SEND, leave, m->nic_send[dst]);
            FennelTime back_noise = noise(run, FENNEL_NOISE_NETWORK, task, 1);
            FennelTime back = add(run, task, leave, noisy(rt.wire, back_noise));
            emit_message(run, task, dst, src, leave, back, p->amount[task], back_noise);
            Message response = msg;
            response.leg = 1;
            response.ready = t; /* when the request reached the target */
            push_message(run, back, &response);
        } else {
            complete(run, task, msg.slot, msg.aux, msg.local, msg.ready, ready, 0);
        }
        break;
    case FENNEL_TASK_SEND: {
        g_array_index(run->messages, Message, id).ready = ready;
        uint32_t tag = p->tag ? p->tag[task] : 0;
        uint32_t recv = fennel_match_arrive(run->match, dst, src, tag, id);
        if (recv != FENNEL_MATCH_NONE)
            meet(run, recv, id, run->ready[recv], t);
        break;
    }
    default:
        g_assert_not_reached();
    }
}

/* Pops of a task: rule 3 of SPEC §6 decides the slot, or re-queues the task. */
static void start_task(Run *run, uint32_t task, FennelTime t)
{
    FennelMachine *m = run->m;
    const FennelProgram *p = run->p;
    const uint32_t rank = p->rank[task];
    const FennelTaskType type = p->type[task];
    FennelTime *slots = slots_of(m, rank);

    /* A pinned task needs its own slot; a concurrent one the lowest-numbered of the
     * earliest free; any other needs every slot and occupies slot 0. */
    uint32_t slot = 0;
    FennelTime earliest = slots[0];
    if (p->pin && p->pin[task] != FENNEL_NO_RANK) {
        slot = p->pin[task];
        earliest = slots[slot];
    } else if (p->flags[task] & FENNEL_TASK_CONCURRENT) {
        slot = earliest_slot(m, rank);
        earliest = slots[slot];
    } else {
        for (uint32_t i = 1; i < m->processes; i++)
            earliest = MAX(earliest, slots[i]);
    }
    gboolean network =
        type == FENNEL_TASK_PUT || type == FENNEL_TASK_GET || type == FENNEL_TASK_SEND;
    if (network) {
        const int64_t *params;
        if (fennel_model_network(m->model, rank, p->peer[task], &params)->flags &
            FENNEL_NET_CONTENDED)
            earliest = MAX(earliest, m->nic_send[rank]);
    }
    if (earliest > t) {
        if (m->mask & FENNEL_EVENT_DELAYED) {
            FennelEvent ev = {.kind = FENNEL_EVENT_DELAYED,
                              .task = task,
                              .rank = rank,
                              .time = t,
                              .until = earliest};
            emit(m, p, &ev);
        }
        push_task(run, earliest, task);
        return;
    }
    run->state[task] = TASK_RUNNING;
    FennelTime compute_noise = 0;
    if (type == FENNEL_TASK_COMPUTE)
        compute_noise = noise(run, FENNEL_NOISE_COMPUTE, task, 0);
    if (m->mask & FENNEL_EVENT_STARTED) {
        FennelEvent ev = {.kind = FENNEL_EVENT_STARTED,
                          .task = task,
                          .rank = rank,
                          .slot = slot,
                          .time = t,
                          .noise = compute_noise};
        emit(m, p, &ev);
    }
    if (p->start_succ)
        release(run, p->start_succ_start, p->start_succ, task, t, t);

    FennelTime d = 0;
    switch (type) {
    case FENNEL_TASK_START:
    case FENNEL_TASK_SLEEP:
        d = p->amount[task];
        break;
    case FENNEL_TASK_PROXY:
        break;
    case FENNEL_TASK_COMPUTE:
        d = (p->flags[task] & FENNEL_TASK_SIZED) ? compute_duration(run, p->amount[task])
                                                 : p->amount[task];
        d = noisy(d, compute_noise);
        break;
    case FENNEL_TASK_RECV: {
        /* Posting a receive takes no time; it completes when its message is ready. */
        slots[slot] = t;
        run->ready[task] = t; /* from now on: when it was posted */
        uint32_t tag = p->tag ? p->tag[task] : 0;
        uint32_t msg = fennel_match_post(run->match, rank, p->peer[task], tag, task);
        if (msg != FENNEL_MATCH_NONE)
            meet(run, task, msg, t, t);
        return;
    }
    case FENNEL_TASK_PUT:
    case FENNEL_TASK_GET:
    case FENNEL_TASK_SEND:
        start_network(run, task, slot, t);
        return;
    case FENNEL_TASK_N_TYPES:
        g_assert_not_reached();
    }
    FennelTime local = add(run, task, t, d);
    slots[slot] = local;
    complete(run, task, slot, t, local, local, local, 0);
}

/* ---- the run ---- */

static void run_init(Run *run, FennelMachine *m, const FennelProgram *p)
{
    memset(run, 0, sizeof *run);
    run->m = m;
    run->p = p;
    fennel_queue_init(&run->queue);
    run->remaining = fennel_program_in_degrees(p);
    run->ready = g_new(FennelTime, p->n_tasks + 1);
    for (uint32_t t = 0; t < p->n_tasks; t++)
        run->ready[t] = FENNEL_TIME_MIN;
    run->state = g_new0(uint8_t, p->n_tasks + 1);
    run->messages = g_array_new(FALSE, FALSE, sizeof(Message));
    fennel_map_init(&run->channels);
    run->overflow_task = FENNEL_NO_RANK;
    run->noise_base = m->runs << 36;
    uint64_t any_total = 0;
    gboolean two_sided = FALSE;
    for (uint32_t t = 0; t < p->n_tasks; t++) {
        if (fennel_program_any(p, t))
            any_total += run->remaining[t];
        two_sided |= p->type[t] == FENNEL_TASK_SEND || p->type[t] == FENNEL_TASK_RECV;
    }
    if (any_total > 0) {
        run->any_start = g_new0(uint64_t, p->n_tasks);
        run->any_degree = g_new0(uint32_t, p->n_tasks);
        run->any_times = g_new(FennelTime, any_total);
        uint64_t next = 0;
        for (uint32_t t = 0; t < p->n_tasks; t++) {
            if (p->any[t]) {
                run->any_start[t] = next;
                run->any_degree[t] = run->remaining[t];
                next += run->remaining[t];
            }
        }
    }
    if (two_sided) {
        run->match = fennel_match_new();
        run->recv_message = g_new(uint32_t, p->n_tasks);
        run->send_message = g_new(uint32_t, p->n_tasks);
        memset(run->recv_message, 0xff, sizeof(uint32_t) * p->n_tasks);
        memset(run->send_message, 0xff, sizeof(uint32_t) * p->n_tasks);
    }
}

static void run_clear(Run *run)
{
    fennel_queue_clear(&run->queue);
    g_free(run->remaining);
    g_free(run->ready);
    g_free(run->any_start);
    g_free(run->any_degree);
    g_free(run->any_times);
    g_free(run->state);
    g_array_free(run->messages, TRUE);
    fennel_match_free(run->match);
    fennel_map_clear(&run->channels);
    g_free(run->recv_message);
    g_free(run->send_message);
}

/* What a task that never completed waits for, for the error message. */
static void describe_wait(const Run *run, uint32_t t, GString *text)
{
    const FennelProgram *p = run->p;
    char buf[24], buf2[24];
    const char *name = fennel_program_task_name(p, t, buf);
    if (p->type[t] == FENNEL_TASK_RECV && run->state[t] == TASK_RUNNING) {
        char src[24], tag[24];
        uint32_t tg = p->tag ? p->tag[t] : 0;
        g_snprintf(src, sizeof src, "rank %u", p->peer[t]);
        g_snprintf(tag, sizeof tag, "tag %u", tg);
        g_string_append_printf(text, "recv '%s' on rank %u waits for a message from %s with %s",
                               name, p->rank[t], p->peer[t] == FENNEL_ANY ? "any rank" : src,
                               tg == FENNEL_ANY ? "any tag" : tag);
        return;
    }
    if (p->type[t] == FENNEL_TASK_SEND && run->state[t] == TASK_RUNNING) {
        g_string_append_printf(text, "send '%s' waits for a matching recv on rank %u", name,
                               p->peer[t]);
        return;
    }
    g_string_append_printf(text, "'%s' waits for", name);
    /* Predecessors that never completed: scan the successor lists (error path only). */
    uint32_t listed = 0;
    for (uint32_t q = 0; q < p->n_tasks && listed < 4; q++) {
        if (run->state[q] == TASK_DONE)
            continue;
        gboolean found = FALSE;
        for (uint64_t e = p->succ_start[q]; e < p->succ_start[q + 1]; e++)
            found |= p->succ[e] == t;
        for (uint64_t e = p->start_succ ? p->start_succ_start[q] : 0;
             p->start_succ && e < p->start_succ_start[q + 1]; e++)
            found |= p->start_succ[e] == t && run->state[q] == TASK_WAITING;
        if (found)
            g_string_append_printf(text, "%s '%s'", listed++ ? "," : "",
                                   fennel_program_task_name(p, q, buf2));
    }
    if (listed == 0)
        g_string_append(text, " predecessors that never completed");
}

/* Names the tasks that never completed and what each waits for (SPEC §6.6). The tasks
 * shown first are those blocked on a message, then the others in program order. */
static void report_stuck(const Run *run, GError **error)
{
    const FennelProgram *p = run->p;
    uint32_t stuck = 0, first = UINT32_MAX;
    for (uint32_t t = 0; t < p->n_tasks; t++) {
        if (run->state[t] == TASK_DONE)
            continue;
        stuck++;
        if (first == UINT32_MAX ||
            (run->state[t] == TASK_RUNNING && run->state[first] != TASK_RUNNING))
            first = t;
    }
    GString *text = g_string_new(NULL);
    g_string_append_printf(text, "%u task%s never completed: ", stuck, stuck == 1 ? "" : "s");
    uint32_t shown = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t t = 0; t < p->n_tasks && shown < 5; t++) {
            if (run->state[t] == TASK_DONE || (run->state[t] == TASK_RUNNING) != (pass == 0))
                continue;
            if (shown++)
                g_string_append(text, "; ");
            describe_wait(run, t, text);
        }
    }
    if (stuck > shown)
        g_string_append_printf(text, "; and %u more", stuck - shown);
    fennel_error_at(error, p->source, p->line ? p->line[first] : 0, p->col ? p->col[first] : 0,
                    "%s", text->str);
    (*error)->code = FENNEL_ERROR_RUN;
    g_string_free(text, TRUE);
}

gboolean fennel_machine_run(FennelMachine *m, const FennelProgram *p, GError **error)
{
    if (p->n_ranks > m->ranks || p->processes > m->processes) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_RUN,
                    "program needs %u ranks with %u slots, the machine has %u with %u", p->n_ranks,
                    p->processes, m->ranks, m->processes);
        return FALSE;
    }
    Run run;
    run_init(&run, m, p);
    m->runs++;

    /* Rule 1: every start task is ready at time 0. */
    for (uint32_t t = 0; t < p->n_tasks; t++) {
        if (p->type[t] == FENNEL_TASK_START) {
            if (m->mask & FENNEL_EVENT_READY) {
                FennelEvent ev = {.kind = FENNEL_EVENT_READY, .task = t, .rank = p->rank[t]};
                emit(m, p, &ev);
            }
            push_task(&run, 0, t);
        }
    }
    FennelTime time;
    uint64_t key;
    while (run.overflow_task == FENNEL_NO_RANK && fennel_queue_pop(&run.queue, &time, &key)) {
        m->events++;
        if (key >> KIND_SHIFT == KIND_TASK)
            start_task(&run, (uint32_t)KEY_ID(key), time);
        else
            receive(&run, (uint32_t)KEY_ID(key), time, key);
    }

    gboolean ok = TRUE;
    char buf[24];
    if (m->mask & (FENNEL_EVENT_RANK_FINISHED | FENNEL_EVENT_RUN_FINISHED)) {
        for (uint32_t r = 0; r < p->n_ranks; r++) {
            const FennelTime *slots = slots_of(m, r);
            FennelTime free = slots[0];
            for (uint32_t i = 1; i < m->processes; i++)
                free = MAX(free, slots[i]);
            FennelEvent ev = {.kind = FENNEL_EVENT_RANK_FINISHED, .rank = r, .time = free};
            emit(m, p, &ev);
        }
        FennelEvent ev = {
            .kind = FENNEL_EVENT_RUN_FINISHED, .task = p->n_tasks, .time = m->makespan};
        emit(m, p, &ev);
    }
    if (run.overflow_task != FENNEL_NO_RANK) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_RUN,
                    "simulated time overflows at task '%s' (beyond %.0f seconds)",
                    fennel_program_task_name(p, run.overflow_task, buf),
                    (double)FENNEL_TIME_MAX * 1e-12);
        ok = FALSE;
    } else {
        for (uint32_t t = 0; t < p->n_tasks && ok; t++) {
            if (run.state[t] != TASK_DONE) {
                report_stuck(&run, error);
                ok = FALSE;
            }
        }
    }
    run_clear(&run);
    return ok;
}

uint64_t fennel_machine_run_bytes(const FennelProgram *p)
{
    Run run;
    uint64_t n = p->n_tasks;
    return n * (sizeof *run.remaining + sizeof *run.ready + sizeof *run.state);
}
