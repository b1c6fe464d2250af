#include "trace.h"

static void run_free(gpointer data)
{
    FennelTraceRun *r = data;
    g_free(r->ready);
    g_free(r->start);
    g_free(r->end);
    g_free(r->completion);
    g_free(r->arrival);
    g_free(r->slot);
    g_array_free(r->messages, TRUE);
    g_array_free(r->busy, TRUE);
    g_free(r->noise);
    g_free(r->matched);
    g_array_free(r->flows, TRUE);
    g_free(r);
}

void fennel_trace_init(FennelTrace *t)
{
    t->runs = g_ptr_array_new_with_free_func(run_free);
    t->flows = FALSE;
}

void fennel_trace_clear(FennelTrace *t)
{
    g_ptr_array_free(t->runs, TRUE);
    t->runs = NULL;
}

static FennelTime *times(uint32_t n)
{
    FennelTime *a = g_new(FennelTime, n ? n : 1);
    for (uint32_t i = 0; i < n; i++)
        a[i] = FENNEL_TIME_MIN;
    return a;
}

static FennelTraceRun *current(FennelTrace *t, const FennelProgram *p)
{
    if (t->runs->len > 0) {
        FennelTraceRun *last = g_ptr_array_index(t->runs, t->runs->len - 1);
        if (last->program == p)
            return last;
    }
    FennelTraceRun *r = g_new0(FennelTraceRun, 1);
    r->program = p;
    r->ready = times(p->n_tasks);
    r->start = times(p->n_tasks);
    r->end = times(p->n_tasks);
    r->completion = times(p->n_tasks);
    r->arrival = times(p->n_tasks);
    r->slot = g_new0(uint32_t, p->n_tasks ? p->n_tasks : 1);
    r->messages = g_array_new(FALSE, FALSE, sizeof(FennelTraceMessage));
    r->busy = g_array_new(FALSE, FALSE, sizeof(FennelTraceBusy));
    r->flows = g_array_new(FALSE, FALSE, sizeof(FennelTraceFlow));
    r->noise = g_new0(FennelTime, p->n_tasks ? p->n_tasks : 1);
    r->matched = g_new(uint32_t, p->n_tasks ? p->n_tasks : 1);
    for (uint32_t i = 0; i < p->n_tasks; i++)
        r->matched[i] = FENNEL_NO_TASK;
    g_ptr_array_add(t->runs, r);
    return r;
}

/* By task, then source (a get's request and response), then time. */
static int compare_flows(const void *a, const void *b)
{
    const FennelTraceFlow *x = a, *y = b;
    if (x->task != y->task)
        return x->task < y->task ? -1 : 1;
    if (x->src != y->src)
        return x->src < y->src ? -1 : 1;
    return (x->from > y->from) - (x->from < y->from);
}

const FennelTraceFlow *fennel_trace_flow(const FennelTraceRun *r, uint32_t task, uint32_t src,
                                         guint *n)
{
    const FennelTraceFlow *a = (const FennelTraceFlow *)(void *)r->flows->data;
    guint lo = 0, hi = r->flows->len;
    while (lo < hi) {
        guint mid = lo + (hi - lo) / 2;
        if (a[mid].task < task || (a[mid].task == task && a[mid].src < src))
            lo = mid + 1;
        else
            hi = mid;
    }
    guint end = lo;
    while (end < r->flows->len && a[end].task == task && a[end].src == src)
        end++;
    *n = end - lo;
    return a + lo;
}

static void observe(void *data, const FennelProgram *p, const FennelEvent *ev)
{
    FennelTraceRun *r = current(data, p);
    switch (ev->kind) {
    case FENNEL_EVENT_READY:
        r->ready[ev->task] = ev->time;
        break;
    case FENNEL_EVENT_STARTED:
        r->start[ev->task] = ev->time;
        r->slot[ev->task] = ev->slot;
        r->noise[ev->task] += ev->noise;
        break;
    case FENNEL_EVENT_COMPLETED:
        r->end[ev->task] = ev->local;
        r->noise[ev->task] += ev->noise;
        r->completion[ev->task] = MAX(ev->completion, ev->issuer_completion);
        /* A put's, get's or send's arrival is its message's, which may be reported after
         * its completion (an eager LogGP send on a topology); a recv's is its completion. */
        if (r->arrival[ev->task] == FENNEL_TIME_MIN && p->type[ev->task] != FENNEL_TASK_PUT &&
            p->type[ev->task] != FENNEL_TASK_GET && p->type[ev->task] != FENNEL_TASK_SEND)
            r->arrival[ev->task] = ev->completion;
        /* A recv completes at its meeting with its message, and its event names the send;
         * the send (an eager one completed before it was matched) learns its recv here. */
        if (ev->matched != FENNEL_NO_TASK) {
            r->matched[ev->task] = ev->matched;
            r->matched[ev->matched] = ev->task;
        }
        break;
    case FENNEL_EVENT_MESSAGE: {
        FennelTraceMessage m = {ev->task, ev->rank,  ev->peer,  ev->bytes,
                                ev->time, ev->until, ev->noise, ev->link_wait};
        g_array_append_val(r->messages, m);
        /* The first message of a task is its data (put) or its request (get). */
        if (r->arrival[ev->task] == FENNEL_TIME_MIN)
            r->arrival[ev->task] = ev->until;
        break;
    }
    case FENNEL_EVENT_BUSY: {
        FennelTraceBusy b = {ev->task, ev->rank, ev->slot, ev->busy, ev->time, ev->until};
        g_array_append_val(r->busy, b);
        break;
    }
    case FENNEL_EVENT_FLOW: {
        FennelTraceFlow f = {ev->task, ev->rank, ev->peer, ev->time, ev->until, ev->share};
        g_array_append_val(r->flows, f);
        break;
    }
    case FENNEL_EVENT_RUN_FINISHED:
        g_array_sort(r->flows, compare_flows);
        break;
    case FENNEL_EVENT_DELAYED:
    case FENNEL_EVENT_RANK_FINISHED:
    case FENNEL_EVENT_LINK:
    case FENNEL_EVENT_LINK_SHARE:
        break;
    }
}

FennelInstrument fennel_trace_instrument(FennelTrace *t)
{
    unsigned flows = t->flows ? FENNEL_EVENT_FLOW | FENNEL_EVENT_RUN_FINISHED : 0;
    return (FennelInstrument){.mask = FENNEL_EVENT_READY | FENNEL_EVENT_STARTED |
                                      FENNEL_EVENT_COMPLETED | FENNEL_EVENT_MESSAGE |
                                      FENNEL_EVENT_BUSY | flows,
                              .observe = observe,
                              .data = t};
}

static void append_time(GString *out, FennelTime t)
{
    char buf[FENNEL_TIME_BUF];
    g_string_append_c(out, ',');
    if (t != FENNEL_TIME_MIN)
        g_string_append(out, fennel_format_ns(t, buf));
}

static void append_csv_field(GString *out, const char *s)
{
    gboolean quote = FALSE;
    for (const char *c = s; *c; c++)
        quote |= (*c == ',' || *c == '"' || *c == '\n');
    if (!quote) {
        g_string_append(out, s);
        return;
    }
    g_string_append_c(out, '"');
    for (const char *c = s; *c; c++) {
        if (*c == '"')
            g_string_append_c(out, '"');
        g_string_append_c(out, *c);
    }
    g_string_append_c(out, '"');
}

uint32_t fennel_trace_peer(const FennelTraceRun *r, uint32_t task)
{
    const FennelProgram *p = r->program;
    if (p->type[task] != FENNEL_TASK_RECV || p->peer[task] != FENNEL_ANY)
        return p->peer[task];
    uint32_t send = r->matched ? r->matched[task] : FENNEL_NO_TASK;
    return send == FENNEL_NO_TASK ? FENNEL_NO_RANK : p->rank[send];
}

void fennel_trace_write_tasks_csv(const FennelTrace *t, GString *out)
{
    g_string_append(out, "program,id,rank,slot,type,ready_ns,start_ns,end_ns,arrival_ns,"
                         "completion_ns,peer,bytes\n");
    char buf[24];
    for (guint i = 0; i < t->runs->len; i++) {
        const FennelTraceRun *r = g_ptr_array_index(t->runs, i);
        const FennelProgram *p = r->program;
        for (uint32_t k = 0; k < p->n_tasks; k++) {
            gboolean network = p->type[k] == FENNEL_TASK_PUT || p->type[k] == FENNEL_TASK_GET ||
                               p->type[k] == FENNEL_TASK_SEND || p->type[k] == FENNEL_TASK_RECV;
            append_csv_field(out, p->name ? p->name : "");
            g_string_append_c(out, ',');
            append_csv_field(out, fennel_program_task_name(p, k, buf));
            g_string_append_printf(out, ",%u,%u,%s", p->rank[k], r->slot[k],
                                   fennel_task_type_name(p->type[k]));
            append_time(out, r->ready[k]);
            append_time(out, r->start[k]);
            append_time(out, r->end[k]);
            append_time(out, network ? r->arrival[k] : FENNEL_TIME_MIN);
            append_time(out, r->completion[k]);
            uint32_t peer = network ? fennel_trace_peer(r, k) : FENNEL_NO_RANK;
            if (network && peer != FENNEL_NO_RANK)
                g_string_append_printf(out, ",%u,%" G_GINT64_FORMAT "\n", peer, p->amount[k]);
            else if (network)
                g_string_append_printf(out, ",,%" G_GINT64_FORMAT "\n", p->amount[k]);
            else
                g_string_append(out, ",,\n");
        }
    }
}
