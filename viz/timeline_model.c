/* From the engine's record of a run to the timeline's glyphs. This is the one place
 * that knows how task types map to glyphs; when the engine reports more (LogP
 * overheads, NIC gaps, noise), their producers go here. */
#include "timeline_private.h"

FennelTimeline *fennel_timeline_new(uint32_t n_ranks, uint32_t processes)
{
    FennelTimeline *tl = g_new0(FennelTimeline, 1);
    tl->n_ranks = MAX(n_ranks, 1);
    tl->processes = MAX(processes, 1);
    tl->items = g_array_new(FALSE, FALSE, sizeof(FennelTlItem));
    tl->messages = g_array_new(FALSE, FALSE, sizeof(FennelTlMessage));
    tl->flows = g_array_new(FALSE, FALSE, sizeof(FennelTlFlow));
    tl->programs = g_ptr_array_new();
    tl->rank_finish = g_new0(FennelTime, tl->n_ranks);
    return tl;
}

void fennel_timeline_free(FennelTimeline *tl)
{
    if (tl == NULL)
        return;
    g_array_free(tl->items, TRUE);
    g_array_free(tl->messages, TRUE);
    g_array_free(tl->flows, TRUE);
    g_ptr_array_free(tl->programs, TRUE);
    g_free(tl->rank_finish);
    g_free(tl->path_handed);
    g_free(tl->path_from);
    if (tl->path_trail)
        g_array_free(tl->path_trail, TRUE);
    g_free(tl);
}

void fennel_timeline_add_item(FennelTimeline *tl, const FennelTlItem *item)
{
    g_array_append_val(tl->items, *item);
    tl->end = MAX(tl->end, item->t1);
    if (!fennel_glyph_styles[item->glyph].holds_slot)
        return;
    tl->makespan = MAX(tl->makespan, item->t1);
    if (item->rank < tl->n_ranks)
        tl->rank_finish[item->rank] = MAX(tl->rank_finish[item->rank], item->t1);
}

/* A message whose bytes flowed in n pieces (contention fair), in time order; the message's
 * own first_flow and n_flows are set from them. */
static void add_message_flow(FennelTimeline *tl, const FennelTlMessage *message,
                             const FennelTlFlow *pieces, uint32_t n)
{
    FennelTlMessage m = *message;
    m.first_flow = tl->flows->len;
    m.n_flows = n;
    g_array_append_val(tl->messages, m);
    tl->makespan = MAX(tl->makespan, message->arrive);
    tl->end = MAX(tl->end, message->arrive);
    for (uint32_t i = 0; i < n; i++) {
        g_array_append_val(tl->flows, pieces[i]);
        /* Under LogP/LogGP the tail can flow after the head arrived. */
        tl->end = MAX(tl->end, pieces[i].until);
    }
}

void fennel_timeline_add_message(FennelTimeline *tl, const FennelTlMessage *message)
{
    add_message_flow(tl, message, NULL, 0);
}

static FennelGlyph task_glyph(FennelTaskType type)
{
    switch (type) {
    case FENNEL_TASK_SLEEP:
        return FENNEL_GLYPH_SLEEP;
    case FENNEL_TASK_COMPUTE:
        return FENNEL_GLYPH_COMPUTE;
    case FENNEL_TASK_PUT:
        return FENNEL_GLYPH_PUT;
    case FENNEL_TASK_GET:
        return FENNEL_GLYPH_GET;
    case FENNEL_TASK_SEND:
        return FENNEL_GLYPH_SEND;
    case FENNEL_TASK_RECV:
        return FENNEL_GLYPH_RECV;
    default:
        return FENNEL_GLYPH_TASK;
    }
}

/* Slots and NICs busy for a message outside its task's own interval: receive
 * overheads, NIC gaps, a sender waiting for a rendezvous or blocking put. */
static void add_busy(FennelTimeline *tl, const FennelTraceRun *r, uint32_t run)
{
    const FennelProgram *p = r->program;
    for (guint i = 0; i < r->busy->len; i++) {
        const FennelTraceBusy *b = &g_array_index(r->busy, FennelTraceBusy, i);
        const uint32_t issuer = p->rank[b->task];
        FennelTlItem item = {.t0 = b->from,
                             .t1 = b->until,
                             .rank = b->rank,
                             .slot = b->slot,
                             .peer = b->rank == issuer ? fennel_trace_peer(r, b->task) : issuer,
                             .run = run,
                             .task = b->task};
        switch (b->kind) {
        case FENNEL_BUSY_RECEIVE:
            item.glyph = FENNEL_GLYPH_RECV_OVERHEAD;
            break;
        case FENNEL_BUSY_WAIT:
            item.glyph = FENNEL_GLYPH_WAIT;
            break;
        case FENNEL_BUSY_NIC_SEND:
            item.glyph = FENNEL_GLYPH_NIC_SEND;
            item.slot = 0;
            break;
        case FENNEL_BUSY_NIC_RECV:
            item.glyph = FENNEL_GLYPH_NIC_RECV;
            item.slot = 0;
            break;
        default:
            item.glyph = FENNEL_GLYPH_TASK;
            break;
        }
        fennel_timeline_add_item(tl, &item);
    }
}

static void add_run(FennelTimeline *tl, const FennelTraceRun *r, uint32_t run)
{
    const FennelProgram *p = r->program;
    for (uint32_t k = 0; k < p->n_tasks; k++) {
        if (r->start[k] == FENNEL_TIME_MIN)
            continue;
        FennelTlItem item = {.t0 = r->start[k],
                             .t1 = r->end[k],
                             .rank = p->rank[k],
                             .slot = r->slot[k],
                             .peer = FENNEL_NO_RANK,
                             .run = run,
                             .task = k};
        /* Successors may start at `completion`, which for a network task can be later
         * than the slot is free: it counts toward the makespan, not the rank's lane. */
        tl->makespan = MAX(tl->makespan, r->completion[k]);
        switch ((FennelTaskType)p->type[k]) {
        case FENNEL_TASK_PROXY:
            /* Not drawn, but a proxy's time is its slot's free time (engine rule 5,
             * docs/SEMANTICS.md). */
            if (item.rank < tl->n_ranks)
                tl->rank_finish[item.rank] = MAX(tl->rank_finish[item.rank], item.t1);
            continue;
        case FENNEL_TASK_START:
            if (item.t1 > item.t0) {
                item.glyph = FENNEL_GLYPH_SKEW;
                fennel_timeline_add_item(tl, &item);
            }
            item.t0 = item.t1;
            item.glyph = FENNEL_GLYPH_START;
            break;
        case FENNEL_TASK_PUT:
        case FENNEL_TASK_GET:
        case FENNEL_TASK_SEND:
            item.peer = fennel_trace_peer(r, k);
            item.glyph = task_glyph(p->type[k]);
            break;
        case FENNEL_TASK_RECV:
            /* Posting takes no time; the line runs until the message completed it. */
            item.peer = fennel_trace_peer(r, k);
            item.t1 = MAX(item.t1, r->completion[k]);
            item.glyph = FENNEL_GLYPH_RECV;
            break;
        default:
            item.glyph = task_glyph(p->type[k]);
            break;
        }
        fennel_timeline_add_item(tl, &item);
        /* Noise lengthened the end of the task's time on its slot (compute noise, or
         * host noise in a send overhead): overlay that part. */
        if (r->noise[k] > 0 && r->end[k] > r->start[k]) {
            item.glyph = FENNEL_GLYPH_NOISE;
            item.t1 = r->end[k];
            item.t0 = MAX(r->start[k], r->end[k] - r->noise[k]);
            fennel_timeline_add_item(tl, &item);
        }
    }
    add_busy(tl, r, run);
    for (guint i = 0; i < r->messages->len; i++) {
        const FennelTraceMessage *m = &g_array_index(r->messages, FennelTraceMessage, i);
        const uint32_t k = m->task;
        gboolean from_issuer = m->src == p->rank[k];
        FennelTlMessage msg = {.sent = m->sent,
                               .leave = m->sent,
                               .arrive = m->arrived,
                               .noise = m->noise,
                               .link_wait = m->link_wait,
                               .src = m->src,
                               .src_slot = from_issuer ? r->slot[k] : 0,
                               .dst = m->dst,
                               .run = run,
                               .task = k,
                               .bytes = m->bytes,
                               .glyph = FENNEL_GLYPH_DATA};
        if (p->type[k] == FENNEL_TASK_GET)
            msg.glyph = from_issuer ? FENNEL_GLYPH_REQUEST : FENNEL_GLYPH_RESPONSE;
        /* The message leaves the sender when its busy time ends (lbp: after alpha_r),
         * unless the sender is busy until the arrival (postal, a blocking put), in
         * which case the busy box and the line both start at the issue. */
        if (from_issuer && r->end[k] > m->sent && r->end[k] < m->arrived)
            msg.leave = r->end[k];
        guint n;
        const FennelTraceFlow *f = fennel_trace_flow(r, k, m->src, &n);
        if (n == 0) {
            fennel_timeline_add_message(tl, &msg);
            continue;
        }
        FennelTlFlow *pieces = g_new(FennelTlFlow, n);
        for (guint j = 0; j < n; j++)
            pieces[j] = (FennelTlFlow){f[j].from, f[j].until, f[j].share};
        add_message_flow(tl, &msg, pieces, n);
        g_free(pieces);
    }
}

FennelTimeline *fennel_timeline_from_trace(const FennelTrace *trace, uint32_t n_ranks,
                                           uint32_t processes)
{
    FennelTimeline *tl = fennel_timeline_new(n_ranks, processes);
    for (guint i = 0; i < trace->runs->len; i++) {
        const FennelTraceRun *r = g_ptr_array_index(trace->runs, i);
        g_ptr_array_add(tl->programs, (gpointer)r->program);
        add_run(tl, r, i);
    }
    return tl;
}
