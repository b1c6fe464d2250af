/* Contention `fair` (docs/TOPOLOGY.md): max-min fair sharing of every link among the messages
 * crossing it, the flow model SimGrid validated. A message first travels its route's latency,
 * then is a flow: its bytes go at a rate that is recomputed, for all flows at once, whenever a
 * flow starts or ends (progressive filling: the links whose capacity per unfixed flow is the
 * lowest fix the rate of the flows crossing them, and so on). Between such changes rates are
 * constant, so one queue entry stands for the next completion; the recomputation for a time is
 * done once, after every other event of that time (its entry has the highest kind). */
#include "engine_private.h"
#include "fair_fill.h"

#include <math.h>

typedef struct {
    uint32_t msg;
    uint32_t slot; /* in the filling's flows (fair_fill.h) */
    uint32_t n_links;
    uint32_t *links;
    double remaining;     /* bytes, as of fair->updated */
    double rate;          /* bytes per ps */
    double solo;          /* the rate it would have alone: its narrowest link's */
    FennelTime start;     /* when its bytes began to flow */
    FennelTime solo_time; /* its transfer time alone, exact */
    gboolean shared;      /* its rate was below `solo` at some time */
    /* Only when an instrument asks for FENNEL_EVENT_FLOW: the rate it has had since
     * piece_from, not reported yet. */
    double piece_rate;
    FennelTime piece_from;
} Flow;

typedef struct {
    GArray *flows; /* Flow */
    FennelTime updated;
    uint64_t generation;  /* of the queue entry that is current */
    uint32_t room;        /* links of `capacity` */
    double *capacity;     /* bytes per ps, by the machine's dense link index (engine.c) */
    FennelFairFill *fill; /* the flows' paths, kept from one recomputation to the next */
} Fair;

void *fennel__fair_new(const FennelMachine *m)
{
    (void)m;
    Fair *f = g_new0(Fair, 1);
    f->flows = g_array_new(FALSE, FALSE, sizeof(Flow));
    f->fill = fennel_fair_fill_new();
    return f;
}

void fennel__fair_free(void *state)
{
    Fair *f = state;
    if (f == NULL)
        return;
    for (guint i = 0; i < f->flows->len; i++)
        g_free(g_array_index(f->flows, Flow, i).links);
    g_array_free(f->flows, TRUE);
    fennel_fair_fill_free(f->fill);
    g_free(f->capacity);
    g_free(f);
}

/* Makes room for dense link index l, a link of capacity `rate`. */
static void fair_link(Fair *f, uint32_t l, FennelRate rate)
{
    if (l >= f->room) {
        uint32_t room = MAX(MAX(2 * f->room, l + 1), 64u);
        f->capacity = g_renew(double, f->capacity, room);
        f->room = room;
    }
    f->capacity[l] = rate > 0 ? (double)FENNEL_AS_PER_PS / (double)rate : 0;
}

static int64_t flow_bytes(const Run *run, const Message *msg)
{
    const FennelProgram *p = run->p;
    return p->type[msg->task] == FENNEL_TASK_GET && msg->leg == 0 ? p->request[msg->task]
                                                                  : p->amount[msg->task];
}

/* Whether the message's model times its bytes at the receiving NIC (LogP, LogGP). */
static gboolean nic_bytes(const Run *run, const Message *msg)
{
    const FennelProgram *p = run->p;
    const uint32_t issuer = p->rank[msg->task], peer = p->peer[msg->task];
    const int64_t *params;
    return (network_for(run->m, msg->leg ? peer : issuer, msg->leg ? issuer : peer, &params)
                ->flags &
            FENNEL_NET_NIC_BYTES) != 0;
}

static int compare_flows(const void *a, const void *b)
{
    uint32_t x = ((const Flow *)a)->msg, y = ((const Flow *)b)->msg;
    return (x > y) - (x < y);
}

/* Brings every flow's remaining bytes to time t. */
static void advance(Fair *f, FennelTime t)
{
    double dt = (double)(t - f->updated);
    if (dt > 0) {
        for (guint i = 0; i < f->flows->len; i++) {
            Flow *fl = &g_array_index(f->flows, Flow, i);
            fl->remaining = MAX(fl->remaining - fl->rate * dt, 0.0);
        }
    }
    f->updated = t;
}

/* Max-min fair rates (fair_fill.h), and what they tell the statistics: a flow whose rate
 * did not change has told them already. Returns the time of the next completion after t. */
static FennelTime share(Run *run, Fair *f, FennelTime t)
{
    GArray *flows = f->flows;
    const double *rates = fennel_fair_fill_rates(f->fill, f->capacity, f->room);
    double soonest = INFINITY;
    for (guint i = 0; i < flows->len; i++) {
        Flow *fl = &g_array_index(flows, Flow, i);
        const double rate = rates[fl->slot];
        if (rate != fl->rate) {
            fl->rate = rate;
            fl->shared |= rate < fl->solo * (1 - 1e-12);
            for (uint32_t k = 0; k < fl->n_links; k++) {
                FennelLinkStats *st = &run->m->link_stats[fl->links[k]];
                if (st->lowest_share == 0 || rate < st->lowest_share)
                    st->lowest_share = rate;
            }
        }
        soonest = MIN(soonest, (double)t + fl->remaining / rate);
    }
    /* Rounded once: the rounding is monotonic, so the least rounded is the rounded least. */
    return soonest >= (double)FENNEL_TIME_MAX ? FENNEL_TIME_MAX : (FennelTime)(soonest + 0.5);
}

/* Reports the piece of a flow that ran at `rate` from `from` to `until` (FENNEL_EVENT_FLOW). */
static void emit_piece(Run *run, const Flow *fl, FennelTime from, FennelTime until, double rate)
{
    if (until <= from || rate <= 0)
        return;
    const Message *msg = &run->messages[fl->msg];
    const FennelProgram *p = run->p;
    const uint32_t issuer = p->rank[msg->task], peer = p->peer[msg->task];
    double share = rate / fl->solo;
    FennelEvent ev = {.kind = FENNEL_EVENT_FLOW,
                      .task = msg->task,
                      .rank = msg->leg ? peer : issuer,
                      .peer = msg->leg ? issuer : peer,
                      .time = from,
                      .until = until,
                      .bytes = flow_bytes(run, msg),
                      .share = share > 1 - 1e-12 ? 1.0 : share};
    emit(run->m, p, &ev);
}

/* After a recomputation at t: the flows whose rate changed end a piece at t. */
static void report_pieces(Run *run, Fair *f, FennelTime t)
{
    for (guint i = 0; i < f->flows->len; i++) {
        Flow *fl = &g_array_index(f->flows, Flow, i);
        if (fabs(fl->rate - fl->piece_rate) <= 1e-12 * fl->rate)
            continue;
        emit_piece(run, fl, fl->piece_from, t, fl->piece_rate);
        fl->piece_rate = fl->rate;
        fl->piece_from = t;
    }
}

/* Queues the recomputation at t (superseding any queued one). */
static void schedule(Run *run, Fair *f, FennelTime t)
{
    f->generation++;
    fennel_queue_push(&run->queue, t,
                      KIND_LEVEL << KIND_SHIFT | (f->generation & ((1ull << KIND_SHIFT) - 1)));
}

void fennel__fair_send(Run *run, uint32_t id, FennelTime t, FennelTime head)
{
    /* The route's latency first, then the bytes as a flow (fennel__fair_add, at the
     * KIND_HOP event the latency's end is). */
    (void)t;
    const FennelNetwork *n = run->m->net;
    const MessageRoute *route = &run->routes[id];
    FennelTime latency = 0;
    for (uint32_t v = route->at; v != route->to_node;) {
        const FennelHop h = fennel_network_hop_via(n, v, route->to_node, route->choice);
        latency += fennel_network_latency(n, h.link, h.level);
        v = h.to;
    }
    fennel_queue_push(&run->queue, add(run, run->messages[id].task, head, latency),
                      KIND_HOP << KIND_SHIFT | id);
}

void fennel__fair_add(Run *run, uint32_t id, FennelTime t)
{
    Fair *f = run->level_state;
    FennelMachine *m = run->m;
    const FennelNetwork *n = m->net;
    Message *msg = &run->messages[id];
    MessageRoute *route = &run->routes[id];
    const int64_t bytes = flow_bytes(run, msg);
    advance(f, t);
    Flow fl = {.msg = id, .start = t, .piece_from = t};
    uint32_t count = 0, at = route->at;
    FennelRate slowest = 0;
    for (uint32_t v = at; v != route->to_node;
         v = fennel_network_hop_via(n, v, route->to_node, route->choice).to)
        count++;
    fl.links = g_new(uint32_t, MAX(count, 1u));
    for (uint32_t v = at; v != route->to_node;) {
        const FennelHop h = fennel_network_hop_via(n, v, route->to_node, route->choice);
        FennelRate rate = fennel_network_rate(n, h.link, h.level);
        if (G_UNLIKELY(link_changed(m, h.link))) {
            /* A failed or slow link: its rate now, changed by fennel__fair_change later. */
            gboolean down;
            rate = fennel__link_rate(m, h.link, rate, t, &down);
            if (down) {
                g_free(fl.links);
                fennel__cut(run, msg->task, msg->leg, h.link, t, FALSE);
                return;
            }
        }
        const uint32_t l = link_index(m, h.link); /* the flow keeps dense indices */
        fair_link(f, l, rate);
        fl.links[fl.n_links++] = l;
        slowest = MAX(slowest, rate);
        m->link_stats[l].bytes += (uint64_t)bytes;
        m->link_stats[l].messages++;
        m->link_stats[l].busy += fennel_model_quantise(m->model, fennel_as_bytes(bytes, rate));
        v = h.to;
    }
    fl.solo = (double)FENNEL_AS_PER_PS / (double)slowest;
    fl.solo_time = fennel_model_quantise(m->model, fennel_as_bytes(bytes, slowest));
    fl.remaining = (double)bytes;
    fl.slot = fennel_fair_fill_add(f->fill, fl.links, fl.n_links);
    g_array_append_val(f->flows, fl);
    schedule(run, f, t);
    if (nic_bytes(run, msg)) {
        /* LogP/LogGP: the receiver may take it now that its head is there; the flow's end
         * gives its tail (fennel__topology_tail). */
        fennel__topology_arrived(run, id, t, t, FENNEL_TIME_MIN);
    }
}

void fennel__fair_event(Run *run, uint64_t generation, FennelTime t)
{
    Fair *f = run->level_state;
    if (generation != (f->generation & ((1ull << KIND_SHIFT) - 1)))
        return; /* superseded */
    /* Every flow's bytes brought to t, and the flows done by now (within half a picosecond),
     * in the order they started. */
    const double dt = (double)(t - f->updated);
    f->updated = t;
    GArray *done = g_array_new(FALSE, FALSE, sizeof(Flow));
    for (guint i = 0; i < f->flows->len;) {
        Flow *fl = &g_array_index(f->flows, Flow, i);
        if (dt > 0)
            fl->remaining = MAX(fl->remaining - fl->rate * dt, 0.0);
        if (fl->remaining <= 0 || (fl->rate > 0 && fl->remaining / fl->rate <= 0.5)) {
            fennel_fair_fill_remove(f->fill, fl->slot);
            g_array_append_val(done, *fl);
            g_array_remove_index_fast(f->flows, i);
        } else {
            i++;
        }
    }
    g_array_sort(done, compare_flows);
    /* Arrivals may start flows at t: they queue their own recomputation. */
    FennelTime next = f->flows->len > 0 ? share(run, f, t) : FENNEL_TIME_MAX;
    const gboolean pieces = (run->m->mask & FENNEL_EVENT_FLOW) != 0;
    if (pieces)
        report_pieces(run, f, t);
    if (f->flows->len > 0)
        schedule(run, f, MAX(next, t + 1));
    for (guint i = 0; i < done->len; i++) {
        Flow *fl = &g_array_index(done, Flow, i);
        /* A flow that was never slowed ends exactly when it would have alone. */
        FennelTime end = fl->shared ? t : add(run, 0, fl->start, fl->solo_time);
        if (pieces)
            emit_piece(run, fl, fl->piece_from, end, fl->piece_rate);
        g_free(fl->links);
        if (run->m->net->routing == FENNEL_ROUTING_ADAPTIVE)
            fennel__topology_unload(run, fl->msg);
        if (nic_bytes(run, &run->messages[fl->msg])) {
            /* Its receiver took it when its head arrived: the sharing delays the receive
             * only where the bytes come after the NIC would have timed them. */
            fennel__topology_tail(run, fl->msg, fl->start, end);
            continue;
        }
        FennelTime extra = end - fl->start - fl->solo_time;
        run->m->link_wait += MAX(extra, 0);
        run->routes[fl->msg].waited = MAX(extra, 0);
        fennel__topology_arrived(run, fl->msg, t, MAX(fl->start, end - fl->solo_time), end);
    }
    g_array_free(done, TRUE);
}

void fennel__fair_change(Run *run, uint32_t index, FennelTime t)
{
    Fair *f = run->level_state;
    FennelMachine *m = run->m;
    const uint32_t link = m->changes[index].link;
    /* Only a link some flow crosses now: a flow that takes it later takes its rate then
     * (fennel__fair_add), and rates that cannot change are not recomputed. */
    const uint32_t *page = m->link_pages[link >> LINK_PAGE_BITS];
    const uint32_t d = page ? page[link & (LINK_PAGE - 1)] : 0;
    if (d == 0)
        return;
    const uint32_t l = d - 1;
    const Flow *crossing = NULL;
    for (guint i = 0; i < f->flows->len; i++) {
        const Flow *fl = &g_array_index(f->flows, Flow, i);
        for (uint32_t k = 0; k < fl->n_links; k++) {
            if (fl->links[k] == l && (crossing == NULL || fl->msg < crossing->msg))
                crossing = fl;
        }
    }
    if (crossing == NULL)
        return;
    uint32_t from, to, level;
    fennel_network_link(m->net, link, &from, &to, &level);
    gboolean down;
    const FennelRate rate =
        fennel__link_rate(m, link, fennel_network_rate(m->net, link, level), t, &down);
    if (down) {
        const Message *msg = &run->messages[crossing->msg];
        fennel__cut(run, msg->task, msg->leg, link, t, FALSE);
        return;
    }
    advance(f, t);
    fair_link(f, l, rate);
    schedule(run, f, t);
}
