/* The machine and the event loop (docs/SEMANTICS.md): tasks are popped in (time, program order),
 * wait for their slots, run, and hand their completion times to their successors. */
#include "engine_private.h"

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

/* ---- the park ----
 *
 * Rule 3 re-queues a task whose slots are busy at the time they are free. b tasks that
 * become ready at once on a rank would then be popped and re-queued again each time one
 * of them starts, O(b^2) events. On a machine of one slot per rank they wait in their
 * rank's park instead, and only the first of them in program order stands in the queue,
 * at the time the slot was last known to be free; when it is popped it starts or parks
 * again, and the next one takes its place. The order of starts is the same: a rank's
 * slot time only grows, so every parked task would have been popped at that same time
 * (or failed earlier, which changes nothing), and at a time the slot is free the parked
 * task first in program order is the one the queue would have popped first. A task that
 * was displaced as the stand-in leaves a stale entry, which is skipped when popped. */

static void park_push(Park *k, uint32_t task)
{
    if (k->len == k->capacity) {
        k->capacity = k->capacity ? 2 * k->capacity : 8;
        k->task = g_renew(uint32_t, k->task, k->capacity);
    }
    uint32_t i = k->len++;
    while (i > 0 && k->task[(i - 1) / 2] > task) {
        k->task[i] = k->task[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    k->task[i] = task;
}

static void park_pop(Park *k)
{
    uint32_t last = k->task[--k->len], i = 0;
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= k->len)
            break;
        if (c + 1 < k->len && k->task[c + 1] < k->task[c])
            c++;
        if (k->task[c] >= last)
            break;
        k->task[i] = k->task[c];
        i = c;
    }
    if (k->len)
        k->task[i] = last;
}

/* Puts the rank's first parked task in the queue at `at`, if the rank has parked tasks
 * and none in the queue. */
static void park_stand_in(Run *run, uint32_t rank, FennelTime at)
{
    Park *k = &run->park[rank];
    if (k->len == 0 || run->park_rep[rank] != FENNEL_NO_TASK)
        return;
    run->park_rep[rank] = k->task[0];
    run->park_at[rank] = at;
    push_task(run, at, k->task[0]);
}

/* Parks a task that can start at `free` at the earliest. */
static void park(Run *run, uint32_t task, uint32_t rank, FennelTime free)
{
    if (run->park == NULL) {
        uint32_t ranks = run->m->ranks;
        run->park = g_new0(Park, ranks);
        run->park_rep = g_new(uint32_t, ranks);
        run->park_at = g_new(FennelTime, ranks);
        memset(run->park_rep, 0xff, sizeof(uint32_t) * ranks);
    }
    run->state[task] = TASK_PARKED;
    park_push(&run->park[rank], task);
    /* A task before the stand-in in program order takes its place. */
    if (run->park_rep[rank] != FENNEL_NO_TASK && task < run->park_rep[rank])
        run->park_rep[rank] = FENNEL_NO_TASK;
    park_stand_in(run, rank, free);
}

/* Pops of a task: rule 3 of docs/SEMANTICS.md decides the slot, or re-queues the task. */
static void start_task(Run *run, uint32_t task, FennelTime t)
{
    FennelMachine *m = run->m;
    const FennelProgram *p = run->p;
    const uint32_t rank = p->rank[task];
    const FennelTaskType type = p->type[task];
    FennelTime *slots = slots_of(m, rank);
    gboolean stand_in = FALSE;
    if (G_UNLIKELY(run->state[task] == TASK_PARKED)) {
        if (run->park_rep[rank] != task || run->park_at[rank] != t)
            return; /* a stale entry */
        park_pop(&run->park[rank]);
        run->park_rep[rank] = FENNEL_NO_TASK;
        run->state[task] = TASK_WAITING;
        stand_in = TRUE;
    }

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
    gboolean network_waits = FALSE;
    if (network) {
        const int64_t *params;
        if (fennel_model_network(m->model, rank, p->peer[task], &params)->flags &
            FENNEL_NET_CONTENDED) {
            earliest = MAX(earliest, m->nic_send[rank]);
            network_waits = TRUE;
        }
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
        /* One slot and no NIC to wait for: the slot decides alone, so the task parks. */
        if (m->processes == 1 && !network_waits)
            park(run, task, rank, earliest);
        else
            push_task(run, earliest, task);
        return;
    }
    /* The task starts: the next parked one stands in, at this time (the slot may still be
     * free after it, if it takes no time). */
    if (stand_in || (run->park && run->park[rank].len))
        park_stand_in(run, rank, t);
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
            fennel__engine_meet(run, task, msg, t, t);
        return;
    }
    case FENNEL_TASK_PUT:
    case FENNEL_TASK_GET:
    case FENNEL_TASK_SEND:
        fennel__engine_start_network(run, task, slot, t);
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
    if (run->park) {
        for (uint32_t r = 0; r < run->m->ranks; r++)
            g_free(run->park[r].task);
        g_free(run->park);
        g_free(run->park_rep);
        g_free(run->park_at);
    }
    g_free(run->recv_message);
    g_free(run->send_message);
}

/* The overflow error names the task whose time overflowed and, when the program was read
 * from a file with positions, where that task is written, like the reader's errors. */
static void report_overflow(const Run *run, GError **error)
{
    const FennelProgram *p = run->p;
    const uint32_t task = run->overflow_task;
    char buf[24];
    fennel_error_at_code(error, FENNEL_ERROR_RUN, p->source, p->line ? p->line[task] : 0,
                         p->col ? p->col[task] : 0,
                         "simulated time overflows at task '%s' (beyond %.0f seconds)",
                         fennel_program_task_name(p, task, buf), (double)FENNEL_TIME_MAX * 1e-12);
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
            fennel__engine_receive(&run, (uint32_t)KEY_ID(key), time, key);
    }

    gboolean ok = TRUE;
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
        report_overflow(&run, error);
        ok = FALSE;
    } else {
        for (uint32_t t = 0; t < p->n_tasks && ok; t++) {
            if (run.state[t] != TASK_DONE) {
                fennel__engine_report_stuck(&run, error);
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
