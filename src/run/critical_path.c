#include "critical_path.h"

#include "json.h"

#include <string.h>

static const char *const kind_names[FENNEL_PATH_N_KINDS] = {
    "latency", "overhead", "compute", "sleep", "waiting for a slot", "waiting for a link",
};

static gboolean is_network(const FennelProgram *p, uint32_t t)
{
    FennelTaskType type = p->type[t];
    return type == FENNEL_TASK_PUT || type == FENNEL_TASK_GET || type == FENNEL_TASK_SEND ||
           type == FENNEL_TASK_RECV;
}

/* The time task u handed to a successor on `rank`: a get's request reaches other ranks
 * before its data is back on its own. */
static FennelTime handed(const FennelTraceRun *r, uint32_t u, uint32_t rank)
{
    const FennelProgram *p = r->program;
    if (p->type[u] == FENNEL_TASK_GET && p->rank[u] != rank)
        return r->arrival[u];
    return r->completion[u];
}

/* How each task's (last) message reached its receiver, gathered from the trace's
 * messages and busy intervals: when it arrived, when the receiver took it (the start of
 * its NIC gap or receive overhead, which a busy receiver delays), and the receive
 * overhead's interval and rank. A task has at most one receive overhead: a put's or
 * send's data, a get's response (its request takes no slot). */
typedef struct {
    FennelTime *arrived, *taken;
    FennelTime *link_wait; /* its messages' waits for links of the topology */
    FennelTime *receive_from, *receive_until;
    uint32_t *receive_rank;
} Delivery;

static void delivery_init(Delivery *d, const FennelTraceRun *r)
{
    uint32_t n = r->program->n_tasks;
    d->arrived = g_new(FennelTime, n);
    d->taken = g_new(FennelTime, n);
    d->link_wait = g_new0(FennelTime, n);
    d->receive_from = g_new(FennelTime, n);
    d->receive_until = g_new(FennelTime, n);
    d->receive_rank = g_new(uint32_t, n);
    for (uint32_t t = 0; t < n; t++) {
        d->arrived[t] = d->taken[t] = d->receive_from[t] = d->receive_until[t] = FENNEL_TIME_MIN;
        d->receive_rank[t] = FENNEL_NO_RANK;
    }
    for (guint i = 0; i < r->messages->len; i++) {
        const FennelTraceMessage *m = &g_array_index(r->messages, FennelTraceMessage, i);
        d->arrived[m->task] = m->arrived;
        d->link_wait[m->task] += m->link_wait;
    }
    for (guint i = 0; i < r->busy->len; i++) {
        const FennelTraceBusy *b = &g_array_index(r->busy, FennelTraceBusy, i);
        if (b->kind != FENNEL_BUSY_RECEIVE && b->kind != FENNEL_BUSY_NIC_RECV)
            continue;
        if (d->taken[b->task] == FENNEL_TIME_MIN || b->from < d->taken[b->task])
            d->taken[b->task] = b->from;
        if (b->kind == FENNEL_BUSY_RECEIVE) {
            d->receive_from[b->task] = b->from;
            d->receive_until[b->task] = b->until;
            d->receive_rank[b->task] = b->rank;
        }
    }
    /* A receiver that costs nothing leaves no busy interval: it took the message as it
     * arrived. */
    for (uint32_t t = 0; t < n; t++) {
        if (d->taken[t] == FENNEL_TIME_MIN)
            d->taken[t] = d->arrived[t];
    }
}

static void delivery_clear(Delivery *d)
{
    g_free(d->arrived);
    g_free(d->taken);
    g_free(d->link_wait);
    g_free(d->receive_from);
    g_free(d->receive_until);
    g_free(d->receive_rank);
}

static void add(FennelCriticalPath *path, uint32_t task, uint32_t rank, FennelPathKind kind,
                FennelTime from, FennelTime to)
{
    if (to <= from)
        return;
    FennelPathStep step = {task, kind, from, to, rank};
    g_array_append_val(path->steps, step);
    path->by_kind[kind] += to - from;
}

/* A message in flight from `from` to `to`: its waits for links (counted first), then
 * latency. Steps are added latest first. */
static void in_flight_waited(FennelCriticalPath *path, uint32_t t, uint32_t rank, FennelTime waited,
                             FennelTime from, FennelTime to)
{
    FennelTime w = MIN(waited, to - from);
    add(path, t, rank, FENNEL_PATH_LATENCY, from + w, to);
    add(path, t, rank, FENNEL_PATH_LINK_WAIT, from, from + w);
}

static void in_flight(FennelCriticalPath *path, const Delivery *d, uint32_t t, uint32_t rank,
                      FennelTime from, FennelTime to)
{
    in_flight_waited(path, t, rank, d->link_wait[t], from, to);
}

/* A network task's message from the end of its sender's busy time `from` to `until`:
 * in flight to its arrival, waiting for the receiver's slot or NIC, and, when `until` is
 * the end of its receive overhead, being received. Steps are added latest first. */
static void deliver(FennelCriticalPath *path, const FennelTraceRun *r, const Delivery *d,
                    uint32_t t, FennelTime from, FennelTime until)
{
    const FennelProgram *p = r->program;
    uint32_t receiver = p->type[t] == FENNEL_TASK_GET ? p->rank[t] : p->peer[t];
    FennelTime waited = d->link_wait[t];
    if (d->receive_until[t] != FENNEL_TIME_MIN && d->receive_from[t] < d->receive_until[t] &&
        d->receive_until[t] < until && until - d->receive_until[t] <= waited &&
        d->receive_until[t] > from) {
        /* LogP/LogGP on a topology: the receive ended late, its bytes still on the links
         * (docs/TOPOLOGY.md); that part of its link wait comes after the receive. */
        add(path, t, d->receive_rank[t], FENNEL_PATH_LINK_WAIT, d->receive_until[t], until);
        waited -= until - d->receive_until[t];
        until = d->receive_until[t];
    }
    FennelTime received = until;
    if (d->receive_until[t] == until && d->receive_from[t] < until) {
        received = MAX(d->receive_from[t], from);
        receiver = d->receive_rank[t];
    }
    FennelTime arrived =
        d->arrived[t] == FENNEL_TIME_MIN ? received : CLAMP(d->arrived[t], from, received);
    add(path, t, receiver, FENNEL_PATH_OVERHEAD, received, until);
    add(path, t, receiver, FENNEL_PATH_SLOT_WAIT, arrived, received);
    in_flight_waited(path, t, p->rank[t], waited, from, arrived);
}

/* What task t did on the path, from its start to `until`. */
static void own_part(FennelCriticalPath *path, const FennelTraceRun *r, const Delivery *d,
                     uint32_t t, FennelTime until)
{
    const FennelProgram *p = r->program;
    const uint32_t rank = p->rank[t];
    FennelTime s = r->start[t], e = r->end[t];
    switch ((FennelTaskType)p->type[t]) {
    case FENNEL_TASK_COMPUTE:
        add(path, t, rank, FENNEL_PATH_COMPUTE, s, until);
        break;
    case FENNEL_TASK_SLEEP:
    case FENNEL_TASK_START:
        add(path, t, rank, FENNEL_PATH_SLEEP, s, until);
        break;
    case FENNEL_TASK_PROXY:
        break;
    default:
        /* A network task: the sender's busy time, then its message. A sender busy until
         * its message is there (postal, a blocking put) spends it all in latency. A recv
         * that gets here handed the path on at its posting, or, unmatched in the trace,
         * waited for its message. */
        if (is_network(p, t) && e > s && e < until && p->type[t] != FENNEL_TASK_RECV) {
            deliver(path, r, d, t, e, until);
            add(path, t, rank, FENNEL_PATH_OVERHEAD, s, e);
        } else {
            in_flight(path, d, t, rank, s, until);
        }
        break;
    }
}

/* Whether send t, on the path up to `until`, was completed by its recv's posting rather
 * than by its own message: a rendezvous send completes when it meets its recv, when the
 * receiver takes the message if the recv was posted by then, else at the recv's posting
 * (docs/SEMANTICS.md). The latter shows as a completion at the recv's start, later than
 * the receiver took the message. An eager send never passes the test: it completes at
 * the end of its overhead (LogP/LogGP), which is its `end`, or at its arrival (postal,
 * lbp), which is no later than the receiver took it. */
static gboolean met_at_posting(const FennelTraceRun *r, const Delivery *d, uint32_t t,
                               FennelTime until)
{
    uint32_t recv = r->matched[t];
    return r->program->type[t] == FENNEL_TASK_SEND && recv != FENNEL_NO_TASK &&
           r->start[recv] != FENNEL_TIME_MIN && until == r->start[recv] &&
           until == r->completion[t] && until != r->end[t] && d->taken[t] < until;
}

/* Latest first -> earliest first. */
static void reverse(GArray *a)
{
    const guint size = g_array_get_element_size(a);
    char *tmp = g_alloca(size);
    for (guint i = 0, j = a->len; i + 1 < j; i++, j--) {
        memcpy(tmp, a->data + (size_t)i * size, size);
        memcpy(a->data + (size_t)i * size, a->data + (size_t)(j - 1) * size, size);
        memcpy(a->data + (size_t)(j - 1) * size, tmp, size);
    }
}

gboolean fennel_critical_path(const FennelTrace *trace, FennelCriticalPath *path)
{
    *path = (FennelCriticalPath){.steps = g_array_new(FALSE, FALSE, sizeof(FennelPathStep)),
                                 .chain = g_array_new(FALSE, FALSE, sizeof(FennelPathLink))};
    if (trace->runs == NULL || trace->runs->len == 0)
        return FALSE;
    const FennelTraceRun *r = g_ptr_array_index(trace->runs, trace->runs->len - 1);
    const FennelProgram *p = r->program;
    path->run = r;
    if (p->n_tasks == 0)
        return FALSE;

    /* Predecessor lists of both kinds (the program stores successors). */
    uint64_t n = p->n_tasks;
    uint64_t *first = g_new0(uint64_t, n + 1);
    uint64_t edges = p->succ_start[n] + (p->start_succ ? p->start_succ_start[n] : 0);
    uint32_t *preds = g_new(uint32_t, edges ? edges : 1);
    gboolean *by_start = g_new(gboolean, edges ? edges : 1);
    for (uint64_t t = 0; t < n; t++) {
        for (uint64_t e = p->succ_start[t]; e < p->succ_start[t + 1]; e++)
            first[p->succ[e] + 1]++;
        for (uint64_t e = p->start_succ ? p->start_succ_start[t] : 0;
             p->start_succ && e < p->start_succ_start[t + 1]; e++)
            first[p->start_succ[e] + 1]++;
    }
    for (uint64_t t = 0; t < n; t++)
        first[t + 1] += first[t];
    uint64_t *fill = g_memdup2(first, sizeof(uint64_t) * (n + 1));
    for (uint64_t t = 0; t < n; t++) {
        for (uint64_t e = p->succ_start[t]; e < p->succ_start[t + 1]; e++) {
            by_start[fill[p->succ[e]]] = FALSE;
            preds[fill[p->succ[e]]++] = (uint32_t)t;
        }
        for (uint64_t e = p->start_succ ? p->start_succ_start[t] : 0;
             p->start_succ && e < p->start_succ_start[t + 1]; e++) {
            by_start[fill[p->start_succ[e]]] = TRUE;
            preds[fill[p->start_succ[e]]++] = (uint32_t)t;
        }
    }
    g_free(fill);
    Delivery d;
    delivery_init(&d, r);

    /* The task that set the makespan: the latest end or completion; among equals the last
     * in the program, which in a program built in order is the deepest. */
    uint32_t t = 0;
    FennelTime until = FENNEL_TIME_MIN;
    for (uint32_t k = 0; k < n; k++) {
        FennelTime finish = MAX(r->end[k], r->completion[k]);
        if (r->start[k] != FENNEL_TIME_MIN && finish >= until) {
            until = finish;
            t = k;
        }
    }
    path->end = until;
    /* Walk back: each task's own part, the wait for its slots, then the predecessor whose
     * completion made it ready. Steps come latest first and are reversed at the end. */
    for (;;) {
        path->tasks++;
        /* A recv completes when it has been posted and its message is ready. Completed
         * after its posting, it waited for the message: the path goes on through the
         * send it matched, whose part ends where the message was received. A rendezvous
         * send completed by its recv's posting takes no time of its own either: the path
         * goes on through that recv, which hands over its start and then continues with
         * its own readiness, since `until` is its start. The path only passes through
         * both at `until`. */
        gboolean waited = p->type[t] == FENNEL_TASK_RECV && until > r->start[t] &&
                          r->matched[t] != FENNEL_NO_TASK;
        if (waited || met_at_posting(r, &d, t, until)) {
            FennelPathLink link = {t, until, until};
            g_array_append_val(path->chain, link);
            t = r->matched[t];
            continue;
        }
        FennelPathLink link = {t, MIN(r->start[t], until), until};
        g_array_append_val(path->chain, link);
        own_part(path, r, &d, t, until);
        add(path, t, p->rank[t], FENNEL_PATH_SLOT_WAIT, r->ready[t], r->start[t]);
        if (p->type[t] == FENNEL_TASK_START) {
            add(path, t, p->rank[t], FENNEL_PATH_SLOT_WAIT, 0, r->ready[t]);
            break;
        }
        uint32_t next = UINT32_MAX;
        for (uint64_t e = first[t]; e < first[t + 1] && next == UINT32_MAX; e++) {
            uint32_t u = preds[e];
            FennelTime h = by_start[e] ? r->start[u] : handed(r, u, p->rank[t]);
            if (h == r->ready[t])
                next = u;
        }
        if (next == UINT32_MAX)
            break;
        until = r->ready[t];
        /* A start dependency hands over the predecessor's start: nothing of it counts. */
        for (uint64_t e = first[t]; e < first[t + 1]; e++) {
            if (preds[e] == next && by_start[e])
                until = r->start[next];
        }
        t = next;
    }
    reverse(path->steps);
    reverse(path->chain);
    delivery_clear(&d);
    g_free(first);
    g_free(preds);
    g_free(by_start);
    return TRUE;
}

void fennel_critical_path_clear(FennelCriticalPath *path)
{
    if (path->steps)
        g_array_free(path->steps, TRUE);
    if (path->chain)
        g_array_free(path->chain, TRUE);
    path->steps = NULL;
    path->chain = NULL;
}

#define SHOWN_STEPS 40

void fennel_critical_path_text(const FennelCriticalPath *path, GString *out)
{
    char a[FENNEL_TIME_BUF], b[FENNEL_TIME_BUF], name[24];
    g_string_append_printf(out, "critical path %u tasks to %s ns:", path->tasks,
                           fennel_format_ns(path->end, a));
    /* Waiting for links only where there was some (a topology with contention). */
    for (int k = 0; k < FENNEL_PATH_N_KINDS; k++)
        if (k != FENNEL_PATH_LINK_WAIT || path->by_kind[k] > 0)
            g_string_append_printf(out, "%s %s %s ns", k ? "," : "", kind_names[k],
                                   fennel_format_ns(path->by_kind[k], a));
    g_string_append_c(out, '\n');
    const FennelProgram *p = path->run->program;
    for (guint i = 0; i < path->steps->len; i++) {
        if (i == SHOWN_STEPS / 2 && path->steps->len > SHOWN_STEPS) {
            g_string_append_printf(out, "  ... %u more steps ...\n",
                                   path->steps->len - SHOWN_STEPS);
            i = path->steps->len - SHOWN_STEPS / 2;
        }
        const FennelPathStep *s = &g_array_index(path->steps, FennelPathStep, i);
        g_string_append_printf(out, "  %14s - %14s ns  %-18s %s (rank %u, %s)\n",
                               fennel_format_ns(s->from, a), fennel_format_ns(s->to, b),
                               kind_names[s->kind], fennel_program_task_name(p, s->task, name),
                               s->rank, fennel_task_type_name(p->type[s->task]));
    }
}

void fennel_critical_path_json(const FennelCriticalPath *path, GString *out)
{
    static const char *const kinds[FENNEL_PATH_N_KINDS] = {"latency", "overhead",  "compute",
                                                           "sleep",   "slot_wait", "link_wait"};
    char a[FENNEL_TIME_BUF], b[FENNEL_TIME_BUF], name[24];
    g_string_append_printf(out, "{\"tasks\":%u,\"end_ns\":%s", path->tasks,
                           fennel_format_ns(path->end, a));
    for (int k = 0; k < FENNEL_PATH_N_KINDS; k++)
        g_string_append_printf(out, ",\"%s_ns\":%s", kinds[k],
                               fennel_format_ns(path->by_kind[k], a));
    g_string_append(out, ",\"steps\":[");
    const FennelProgram *p = path->run->program;
    for (guint i = 0; i < path->steps->len; i++) {
        const FennelPathStep *s = &g_array_index(path->steps, FennelPathStep, i);
        g_string_append_printf(out, "%s{\"task\":", i ? "," : "");
        fennel_json_string(out, fennel_program_task_name(p, s->task, name));
        g_string_append_printf(out, ",\"rank\":%u,\"kind\":\"%s\",\"from_ns\":%s,\"to_ns\":%s}",
                               s->rank, kinds[s->kind], fennel_format_ns(s->from, a),
                               fennel_format_ns(s->to, b));
    }
    g_string_append(out, "]}");
}
