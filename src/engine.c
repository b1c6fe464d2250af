#include "engine.h"

#include "errors.h"
#include "heap.h"

#include <string.h>

#define MAX_INSTRUMENTS 8

/* Heap keys: program order in the high bits, the event kind in the low two. Only
 * task-ready events exist so far; the kind bits leave room for message arrivals. */
#define KEY_SHIFT  2
#define KIND_READY 0u

struct FennelMachine {
    uint32_t ranks, processes;
    FennelTime *slot; /* ranks x processes free times */
    const FennelModel *model;
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
    m->model = model;
    return m;
}

void fennel_machine_free(FennelMachine *m)
{
    if (m == NULL)
        return;
    g_free(m->slot);
    g_free(m);
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

/* Per-run state, all flat arrays indexed by task. */
typedef struct {
    uint32_t *remaining; /* predecessors not yet completed */
    FennelTime *ready;   /* latest completion so far (tasks without `any`) */
    uint64_t *any_start; /* `any` tasks: where their completions are collected */
    FennelTime *any_times;
} RunState;

static void run_state_init(RunState *s, const FennelProgram *p)
{
    s->remaining = g_memdup2(p->in_degree, sizeof(uint32_t) * (p->n_tasks + 1));
    s->ready = g_new(FennelTime, p->n_tasks + 1);
    for (uint32_t t = 0; t < p->n_tasks; t++)
        s->ready[t] = FENNEL_TIME_MIN;
    s->any_start = NULL;
    s->any_times = NULL;
    uint64_t total = 0;
    for (uint32_t t = 0; t < p->n_tasks; t++) {
        if (p->any[t])
            total += p->in_degree[t];
    }
    if (total > 0) {
        s->any_start = g_new0(uint64_t, p->n_tasks);
        s->any_times = g_new(FennelTime, total);
        uint64_t next = 0;
        for (uint32_t t = 0; t < p->n_tasks; t++) {
            if (p->any[t]) {
                s->any_start[t] = next;
                next += p->in_degree[t];
            }
        }
    }
}

static void run_state_clear(RunState *s)
{
    g_free(s->remaining);
    g_free(s->ready);
    g_free(s->any_start);
    g_free(s->any_times);
}

/* Names the tasks that never ran and what each still waits for. */
static void report_stuck(const FennelProgram *p, const RunState *s, GError **error)
{
    uint32_t stuck = 0, first = 0;
    for (uint32_t t = 0; t < p->n_tasks; t++) {
        if (s->remaining[t] > 0 && stuck++ == 0)
            first = t;
    }
    GString *text = g_string_new(NULL);
    g_string_append_printf(text, "%u task%s never ran:", stuck, stuck == 1 ? "" : "s");
    char buf[24], buf2[24];
    uint32_t shown = 0;
    for (uint32_t t = 0; t < p->n_tasks && shown < 5; t++) {
        if (s->remaining[t] == 0)
            continue;
        g_string_append_printf(text, "%s '%s' waits for", shown ? ";" : "",
                               fennel_program_task_name(p, t, buf));
        /* Predecessors that never completed: scan the successor lists (error path). */
        uint32_t listed = 0;
        for (uint32_t q = 0; q < p->n_tasks && listed < 4; q++) {
            if (s->remaining[q] == 0 && p->type[q] == FENNEL_TASK_START)
                continue;
            for (uint64_t e = p->succ_start[q]; e < p->succ_start[q + 1]; e++) {
                if (p->succ[e] == t && s->remaining[q] > 0) {
                    g_string_append_printf(text, "%s '%s'", listed ? "," : "",
                                           fennel_program_task_name(p, q, buf2));
                    listed++;
                }
            }
        }
        if (listed == 0)
            g_string_append(text, " predecessors that never completed");
        shown++;
    }
    if (stuck > shown)
        g_string_append_printf(text, "; and %u more", stuck - shown);
    fennel_error_at(error, p->source, p->line ? p->line[first] : 0, p->col ? p->col[first] : 0,
                    "%s", text->str);
    (*error)->code = FENNEL_ERROR_RUN;
    g_string_free(text, TRUE);
}

static gboolean overflow(GError **error, const FennelProgram *p, uint32_t task)
{
    char buf[24];
    g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_RUN,
                "simulated time overflows at task '%s' (beyond %.0f seconds)",
                fennel_program_task_name(p, task, buf), (double)FENNEL_TIME_MAX * 1e-12);
    return FALSE;
}

/* Times one task that starts at t: sets *local (its slot is busy until then), and the
 * completion times handed to successors on other ranks and on its own rank. */
static gboolean execute(FennelMachine *m, const FennelProgram *p, uint32_t task, FennelTime t,
                        FennelTime *local, FennelTime *completion, FennelTime *own)
{
    const FennelModel *model = m->model;
    FennelTime d = 0;
    switch ((FennelTaskType)p->type[task]) {
    case FENNEL_TASK_START:
    case FENNEL_TASK_SLEEP:
        d = p->amount[task];
        break;
    case FENNEL_TASK_PROXY:
        break;
    case FENNEL_TASK_COMPUTE:
        d = (p->flags[task] & FENNEL_TASK_SIZED) ? model->compute->duration(model, p->amount[task])
                                                 : p->amount[task];
        break;
    case FENNEL_TASK_PUT:
    case FENNEL_TASK_GET: {
        gboolean is_get = p->type[task] == FENNEL_TASK_GET;
        FennelNetOp op = {.src = p->rank[task],
                          .dst = p->peer[task],
                          .bytes = p->amount[task],
                          .request = is_get ? p->request[task] : 0,
                          .blocking = (p->flags[task] & FENNEL_TASK_BLOCKING) != 0};
        FennelNetTiming nt;
        if (is_get)
            model->network->get(model, &op, &nt);
        else
            model->network->put(model, &op, &nt);
        if (!fennel_time_add(t, nt.issuer_busy, local) ||
            !fennel_time_add(t, nt.completion, completion) ||
            !fennel_time_add(t, nt.issuer_completion, own) ||
            !fennel_time_add(t, MAX(nt.arrival, nt.back), &d))
            return overflow(NULL, p, task);
        if (m->mask & FENNEL_EVENT_MESSAGE) {
            FennelEvent ev = {.kind = FENNEL_EVENT_MESSAGE,
                              .task = task,
                              .rank = op.src,
                              .peer = op.dst,
                              .time = t,
                              .until = t + nt.arrival,
                              .bytes = is_get ? op.request : op.bytes};
            emit(m, p, &ev);
            if (is_get) {
                ev.rank = op.dst;
                ev.peer = op.src;
                ev.time = t + nt.arrival;
                ev.until = t + nt.back;
                ev.bytes = op.bytes;
                emit(m, p, &ev);
            }
        }
        return TRUE;
    }
    case FENNEL_TASK_SEND:
    case FENNEL_TASK_RECV:
    case FENNEL_TASK_N_TYPES:
        g_assert_not_reached();
    }
    if (!fennel_time_add(t, d, local))
        return FALSE;
    *completion = *own = *local;
    return TRUE;
}

gboolean fennel_machine_run(FennelMachine *m, const FennelProgram *p, GError **error)
{
    if (p->n_ranks > m->ranks || p->processes > m->processes) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_RUN,
                    "program needs %u ranks with %u slots, the machine has %u with %u", p->n_ranks,
                    p->processes, m->ranks, m->processes);
        return FALSE;
    }
    RunState s;
    run_state_init(&s, p);
    FennelHeap heap;
    fennel_heap_init(&heap);
    const uint32_t procs = m->processes;
    gboolean ok = TRUE;
    FennelEvent ev;

    /* Rule 1: every start task is ready at time 0. */
    for (uint32_t t = 0; t < p->n_tasks; t++) {
        if (p->type[t] == FENNEL_TASK_START) {
            if (m->mask & FENNEL_EVENT_READY) {
                ev = (FennelEvent){.kind = FENNEL_EVENT_READY, .task = t, .rank = p->rank[t]};
                emit(m, p, &ev);
            }
            fennel_heap_push(&heap, 0, (uint64_t)t << KEY_SHIFT | KIND_READY);
        }
    }

    while (heap.len > 0) {
        FennelHeapEntry e;
        fennel_heap_pop(&heap, &e);
        m->events++;
        const uint32_t task = (uint32_t)(e.key >> KEY_SHIFT);
        const uint32_t rank = p->rank[task];
        const FennelTime t = e.time;
        FennelTime *slots = m->slot + (size_t)rank * procs;

        /* Rule 3: a concurrent task takes the lowest-numbered of the earliest free
         * slots; any other task needs every slot free and occupies slot 0. */
        uint32_t slot = 0;
        FennelTime earliest = slots[0];
        if (p->flags[task] & FENNEL_TASK_CONCURRENT) {
            for (uint32_t i = 1; i < procs; i++) {
                if (slots[i] < earliest) {
                    earliest = slots[i];
                    slot = i;
                }
            }
        } else {
            for (uint32_t i = 1; i < procs; i++)
                earliest = MAX(earliest, slots[i]);
        }
        if (earliest > t) {
            if (m->mask & FENNEL_EVENT_DELAYED) {
                ev = (FennelEvent){.kind = FENNEL_EVENT_DELAYED,
                                   .task = task,
                                   .rank = rank,
                                   .time = t,
                                   .until = earliest};
                emit(m, p, &ev);
            }
            fennel_heap_push(&heap, earliest, e.key);
            continue;
        }
        if (m->mask & FENNEL_EVENT_STARTED) {
            ev = (FennelEvent){
                .kind = FENNEL_EVENT_STARTED, .task = task, .rank = rank, .slot = slot, .time = t};
            emit(m, p, &ev);
        }

        FennelTime local, completion, own;
        if (!execute(m, p, task, t, &local, &completion, &own)) {
            ok = overflow(error, p, task);
            break;
        }
        slots[slot] = local;
        m->makespan = MAX(m->makespan, MAX(local, MAX(completion, own)));
        if (m->mask & FENNEL_EVENT_COMPLETED) {
            ev = (FennelEvent){.kind = FENNEL_EVENT_COMPLETED,
                               .task = task,
                               .rank = rank,
                               .slot = slot,
                               .time = t,
                               .local = local,
                               .completion = completion,
                               .issuer_completion = own};
            emit(m, p, &ev);
        }

        /* Rule 1: a successor is ready when its last predecessor completes, at the
         * latest completion or, with `any: K`, the K-th smallest. */
        for (uint64_t i = p->succ_start[task]; i < p->succ_start[task + 1]; i++) {
            const uint32_t next = p->succ[i];
            const FennelTime c = p->rank[next] == rank ? own : completion;
            FennelTime when;
            if (p->any[next]) {
                uint64_t base = s.any_start[next];
                uint32_t seen = p->in_degree[next] - s.remaining[next];
                s.any_times[base + seen] = c;
                if (--s.remaining[next] > 0)
                    continue;
                qsort(s.any_times + base, p->in_degree[next], sizeof(FennelTime), compare_time);
                when = s.any_times[base + p->any[next] - 1];
            } else {
                s.ready[next] = MAX(s.ready[next], c);
                if (--s.remaining[next] > 0)
                    continue;
                when = s.ready[next];
            }
            if (m->mask & FENNEL_EVENT_READY) {
                ev = (FennelEvent){
                    .kind = FENNEL_EVENT_READY, .task = next, .rank = p->rank[next], .time = when};
                emit(m, p, &ev);
            }
            fennel_heap_push(&heap, when, (uint64_t)next << KEY_SHIFT | KIND_READY);
        }
    }

    if (ok) {
        for (uint32_t t = 0; t < p->n_tasks; t++) {
            if (s.remaining[t] > 0) {
                report_stuck(p, &s, error);
                ok = FALSE;
                break;
            }
        }
    }
    fennel_heap_clear(&heap);
    run_state_clear(&s);
    return ok;
}
