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

/* A flow; its remaining bytes, rate and what tells whether it was slowed are kept apart
 * (Fair), in arrays that the passes over every flow at every recomputation read in order. A
 * flow's place in them is its slot in the filling (fair_fill.h): both append a new flow and
 * move their last one into a removed one's place. */
typedef struct {
    uint32_t msg;
    uint32_t n_links;
    /* Its links are the filling's (fennel_fair_fill_path, by its place); NULL but for a flow
     * done, whose pieces are still to be reported: a copy, taken before it left the
     * filling. */
    uint32_t *links;
    double solo;          /* the rate it would have alone: its narrowest link's */
    FennelTime start;     /* when its bytes began to flow */
    FennelTime solo_time; /* its transfer time alone, exact */
    gboolean shared;      /* its rate was below `solo` at some time (Fair's, once done) */
    /* Only when an instrument asks for FENNEL_EVENT_FLOW or FENNEL_EVENT_LINK_SHARE: the
     * rate it has had since piece_from, not reported yet. */
    double piece_rate;
    FennelTime piece_from;
} Flow;

typedef struct {
    GArray *flows;     /* Flow */
    double *remaining; /* bytes, as of `updated`, by place in `flows` */
    double *rate;      /* bytes per ps, by place in `flows` */
    double *below;     /* solo x (1 - 1e-12): a rate under it is shared, by place */
    uint8_t *shared;   /* its rate was under `below` at some time, by place */
    uint32_t *near;    /* scratch: the places of flows within a picosecond of their end */
    uint32_t flows_room;
    uint32_t *path; /* scratch: a new flow's links, which the filling copies */
    uint32_t path_room;
    GArray *done; /* scratch: the flows done at an event (Flow) */
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
    f->done = g_array_new(FALSE, FALSE, sizeof(Flow));
    f->fill = fennel_fair_fill_new();
    return f;
}

void fennel__fair_free(void *state)
{
    Fair *f = state;
    if (f == NULL)
        return;
    g_array_free(f->flows, TRUE);
    g_array_free(f->done, TRUE);
    g_free(f->path);
    g_free(f->remaining);
    g_free(f->rate);
    g_free(f->below);
    g_free(f->shared);
    g_free(f->near);
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
    /* Records beside the routes exist exactly when some class of the model times bytes at
     * the NIC (engine.c): without them, no message asks which class it is. */
    if (run->route_nics == NULL)
        return FALSE;
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

/* Appends a flow of `remaining` bytes, not yet given a rate, at its slot in the filling. */
static void flow_append(Fair *f, const Flow *fl, double remaining, uint32_t slot)
{
    const uint32_t i = f->flows->len;
    g_assert(slot == i);
    if (i == f->flows_room) {
        f->flows_room = MAX(2 * f->flows_room, 64u);
        f->remaining = g_renew(double, f->remaining, f->flows_room);
        f->rate = g_renew(double, f->rate, f->flows_room);
        f->below = g_renew(double, f->below, f->flows_room);
        f->shared = g_renew(uint8_t, f->shared, f->flows_room);
        f->near = g_renew(uint32_t, f->near, f->flows_room);
    }
    g_array_append_val(f->flows, *fl);
    f->remaining[i] = remaining;
    f->rate[i] = 0;
    f->below[i] = fl->solo * (1 - 1e-12);
    f->shared[i] = 0;
}

/* Takes out the flow at place i: the last one takes its place. */
static void flow_remove(Fair *f, uint32_t i)
{
    const uint32_t last = f->flows->len - 1;
    f->remaining[i] = f->remaining[last];
    f->rate[i] = f->rate[last];
    f->below[i] = f->below[last];
    f->shared[i] = f->shared[last];
    g_array_remove_index_fast(f->flows, i);
}

/* Brings every flow's remaining bytes to time t. */
static void advance(Fair *f, FennelTime t)
{
    double dt = (double)(t - f->updated);
    if (dt > 0) {
        const uint32_t n = f->flows->len;
        double *remaining = f->remaining;
        const double *rate = f->rate;
        for (uint32_t i = 0; i < n; i++)
            remaining[i] = MAX(remaining[i] - rate[i] * dt, 0.0);
    }
    f->updated = t;
}

/* Max-min fair rates (fair_fill.h), and what they tell the statistics: a flow whose rate
 * did not change has told them already. Returns the time of the next completion after t. */
static FennelTime share(Run *run, Fair *f, FennelTime t)
{
    const double *rate_of;
    const uint32_t *level = fennel_fair_fill_levels(f->fill, f->capacity, f->room, &rate_of);
    const uint32_t n = f->flows->len;
    const double *remaining = f->remaining;
    double *rate = f->rate;
    /* The least time left of a flow, remaining / rate. Its division is skipped for a flow
     * whose remaining bytes exceed what the least so far gives at its rate, with a margin
     * larger than the product's rounding: its exact quotient is then above the least so far,
     * and so is its rounded one (rounding is monotonic), so it could not be the least. */
    double least = INFINITY;
    for (uint32_t i = 0; i < n; i++) {
        const double r = level[i] == FENNEL_FAIR_NO_LEVEL ? INFINITY : rate_of[level[i]];
        /* Without a branch on whether it changed (which follows no pattern): a rate it had
         * already was counted when it got it. */
        rate[i] = r;
        f->shared[i] |= r < f->below[i];
        if (!(remaining[i] > least * r * (1 + 1e-12)))
            least = MIN(least, remaining[i] / r);
    }
    /* A link's lowest share, the running minimum of the lowest rate of the flows crossing
     * it: the filling's is at most the lowest now and at least the lowest of an earlier
     * call (fair_fill.h), which was counted then. */
    const uint32_t *links;
    const double *lowest;
    const uint32_t n_links = fennel_fair_fill_links(f->fill, &links, &lowest);
    for (uint32_t k = 0; k < n_links; k++) {
        FennelLinkStats *st = &run->m->link_state[links[k]].stats;
        const double low = lowest[links[k]];
        if (st->lowest_share == 0 || low < st->lowest_share)
            st->lowest_share = low;
    }
    /* Rounded once: t + x and the rounding are monotonic in x, so the least of the rounded
     * times is the rounded time of the least x. */
    const double soonest = (double)t + least;
    return soonest >= (double)FENNEL_TIME_MAX ? FENNEL_TIME_MAX : (FennelTime)(soonest + 0.5);
}

/* Reports the piece of a flow that ran at `rate` from `from` to `until` (FENNEL_EVENT_FLOW),
 * and what it took of each of its links (FENNEL_EVENT_LINK_SHARE). */
static void emit_piece(Run *run, const Fair *f, const Flow *fl, const uint32_t *links,
                       FennelTime from, FennelTime until, double rate)
{
    if (until <= from || rate <= 0)
        return;
    const Message *msg = message_of(run, fl->msg);
    const FennelProgram *p = run->p;
    const uint32_t issuer = p->rank[msg->task], peer = p->peer[msg->task];
    double share = rate / fl->solo;
    FennelEvent ev = {.kind = FENNEL_EVENT_FLOW,
                      .task = msg->task,
                      .rank = msg->leg ? peer : issuer,
                      .peer = msg->leg ? issuer : peer,
                      .time = from,
                      .until = until,
                      .local = fl->start,
                      .bytes = flow_bytes(run, msg),
                      .share = share > 1 - 1e-12 ? 1.0 : share};
    if (run->m->mask & FENNEL_EVENT_FLOW)
        emit(run->m, p, &ev);
    if (!(run->m->mask & FENNEL_EVENT_LINK_SHARE))
        return;
    ev.kind = FENNEL_EVENT_LINK_SHARE;
    for (uint32_t k = 0; k < fl->n_links; k++) {
        const double capacity = f->capacity[links[k]];
        ev.slot = run->m->link_number[links[k]];
        ev.share = capacity > 0 ? MIN(rate / capacity, 1.0) : 0;
        emit(run->m, p, &ev);
    }
}

/* After a recomputation at t: the flows whose rate changed end a piece at t. */
static void report_pieces(Run *run, Fair *f, FennelTime t)
{
    for (guint i = 0; i < f->flows->len; i++) {
        Flow *fl = &g_array_index(f->flows, Flow, i);
        const double rate = f->rate[i];
        if (fabs(rate - fl->piece_rate) <= 1e-12 * rate)
            continue;
        const uint32_t *links;
        fennel_fair_fill_path(f->fill, i, &links);
        emit_piece(run, f, fl, links, fl->piece_from, t, fl->piece_rate);
        fl->piece_rate = rate;
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
    const MessageRoute *route = route_of(run, id);
    FennelTime latency = 0;
    for (uint32_t v = route->at; v != route->to_node;) {
        const FennelHop h = fennel_network_hop_via(n, v, route->to_node, route->choice);
        /* a sum past the time's range stops the run (add) */
        latency = add(run, message_of(run, id)->task, latency,
                      fennel_network_latency(n, h.link, h.level));
        v = h.to;
    }
    fennel_queue_push(&run->queue, add(run, message_of(run, id)->task, head, latency),
                      KIND_HOP << KIND_SHIFT | id);
}

/* A new flow's link (a network link number) at its rate now: the flow keeps the link's
 * dense index, and the link's statistics count the flow's bytes, each busy for `busy` (the
 * link's own time per byte, or a switch's operation's, fennel__tree_rate). */
static void flow_take_link(Fair *f, FennelMachine *m, Flow *fl, uint32_t link, FennelRate rate,
                           int64_t bytes, FennelRate busy)
{
    const uint32_t l = link_index(m, link);
    fair_link(f, l, rate);
    if (fl->n_links == f->path_room) {
        f->path_room = MAX(2 * f->path_room, 16u);
        f->path = g_renew(uint32_t, f->path, f->path_room);
    }
    f->path[fl->n_links++] = l;
    FennelLinkStats *st = &m->link_state[l].stats;
    st->bytes += (uint64_t)bytes;
    st->messages++;
    st->busy += fennel_model_quantise(m->model, fennel_as_bytes(bytes, busy));
}

/* Starts a flow whose links are taken: its time alone (over its slowest link), then the
 * filling and the next event. */
static void flow_start(Run *run, Fair *f, Flow *fl, int64_t bytes, FennelRate slowest, FennelTime t)
{
    fl->solo = (double)FENNEL_AS_PER_PS / (double)slowest;
    fl->solo_time = fennel_model_quantise(run->m->model, fennel_as_bytes(bytes, slowest));
    flow_append(f, fl, (double)bytes, fennel_fair_fill_add(f->fill, f->path, fl->n_links));
    schedule(run, f, t);
}

void fennel__fair_add(Run *run, uint32_t id, FennelTime t)
{
    Fair *f = run->level_state;
    FennelMachine *m = run->m;
    const FennelNetwork *n = m->net;
    Message *msg = message_of(run, id);
    MessageRoute *route = route_of(run, id);
    const int64_t bytes = flow_bytes(run, msg);
    advance(f, t);
    Flow fl = {.msg = id, .start = t, .piece_from = t};
    FennelRate slowest = 0;
    for (uint32_t v = route->at; v != route->to_node;) {
        const FennelHop h = fennel_network_hop_via(n, v, route->to_node, route->choice);
        FennelRate rate = fennel_network_rate(n, h.link, h.level);
        if (G_UNLIKELY(link_changed(m, h.link))) {
            /* A failed or slow link: its rate now, changed by fennel__fair_change later. */
            gboolean down;
            rate = fennel__link_rate(m, h.link, rate, t, &down);
            if (down) {
                fennel__cut(run, msg->task, msg->leg, h.link, t, FALSE);
                return;
            }
        }
        flow_take_link(f, m, &fl, h.link, rate, bytes, rate);
        slowest = MAX(slowest, rate);
        v = h.to;
    }
    flow_start(run, f, &fl, bytes, slowest, t);
    if (nic_bytes(run, msg)) {
        /* LogP/LogGP: the receiver may take it now that its head is there; the flow's end
         * gives its tail (fennel__topology_tail). */
        fennel__topology_arrived(run, id, t, t, FENNEL_TIME_MIN);
    }
}

void fennel__fair_tree_send(Run *run, uint32_t id, FennelTime t)
{
    fennel_queue_push(&run->queue,
                      add(run, message_of(run, id)->task, t,
                          fennel__tree_latency(run, message_of(run, id)->task)),
                      KIND_HOP << KIND_SHIFT | id);
}

void fennel__fair_tree_add(Run *run, uint32_t id, FennelTime t)
{
    Fair *f = run->level_state;
    FennelMachine *m = run->m;
    const uint32_t task = message_of(run, id)->task;
    const int64_t bytes = run->p->amount[task];
    advance(f, t);
    Flow fl = {.msg = id, .start = t, .piece_from = t};
    /* Both stages' links, the first's then the second's. */
    const uint32_t size = run->p->tag[task];
    uint32_t *links = g_new(uint32_t, 4 * (size_t)size);
    uint32_t *levels = g_new(uint32_t, 4 * (size_t)size);
    uint32_t n = fennel__tree_links(run, task, 0, links, levels);
    n += fennel__tree_links(run, task, 1, links + n, levels + n);
    FennelRate slowest = 0, op = 0;
    for (uint32_t i = 0; i < n; i++) {
        const FennelRate rate = fennel_network_rate(m->net, links[i], levels[i]);
        const FennelRate own = fennel__tree_rate(m->net, links[i], levels[i]);
        flow_take_link(f, m, &fl, links[i], rate, bytes, own);
        slowest = MAX(slowest, rate);
        op = MAX(op, own);
    }
    g_free(links);
    g_free(levels);
    if (op == slowest) {
        flow_start(run, f, &fl, bytes, slowest, t);
        return;
    }
    /* The switch's rate (nvls_rate) below its ports': each byte takes a port for op instead of
     * `slowest` (a rail's node links all have one rate), so the flow carries bytes x op /
     * slowest of the ports' bytes, alone in bytes x op. */
    fl.solo = (double)FENNEL_AS_PER_PS / (double)slowest;
    fl.solo_time = fennel_model_quantise(m->model, fennel_as_bytes(bytes, op));
    flow_append(f, &fl, (double)bytes * ((double)op / (double)slowest),
                fennel_fair_fill_add(f->fill, f->path, fl.n_links));
    schedule(run, f, t);
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
    GArray *done = f->done;
    g_array_set_size(done, 0);
    const gboolean pieces = (run->m->mask & (FENNEL_EVENT_FLOW | FENNEL_EVENT_LINK_SHARE)) != 0;
    double *remaining = f->remaining;
    const double *rate = f->rate;
    /* A flow with more bytes than its rate has more than a picosecond left (rates are not
     * negative): only the others, listed in the same pass without a branch per flow, are
     * looked at closer. */
    const uint32_t n = f->flows->len;
    uint32_t *near = f->near, n_near = 0;
    if (dt > 0) {
        for (uint32_t i = 0; i < n; i++) {
            const double left = MAX(remaining[i] - rate[i] * dt, 0.0);
            remaining[i] = left;
            near[n_near] = i;
            n_near += !(left > rate[i]);
        }
    } else {
        for (uint32_t i = 0; i < n; i++) {
            near[n_near] = i;
            n_near += !(remaining[i] > rate[i]);
        }
    }
    /* The flows done, taken out in increasing place, each replaced by the last flow, which
     * is looked at in its new place if it was listed (then it is the last listed): the
     * places and the filling's slots end as they would going through every flow in order. */
    for (uint32_t h = 0, tail = n_near; h < tail;) {
        const uint32_t i = near[h];
        if (remaining[i] <= 0 || (rate[i] > 0 && remaining[i] / rate[i] <= 0.5)) {
            const uint32_t last = f->flows->len - 1;
            Flow *fl = &g_array_index(f->flows, Flow, i);
            fl->shared = f->shared[i];
            if (pieces) {
                const uint32_t *links;
                const uint32_t n_links = fennel_fair_fill_path(f->fill, i, &links);
                fl->links = g_memdup2(links, sizeof *links * n_links);
            }
            g_array_append_val(done, *fl);
            fennel_fair_fill_remove(f->fill, i);
            flow_remove(f, i);
            if (last != i && near[tail - 1] == last && tail - 1 > h) {
                near[h] = i; /* the last flow, now at i */
                tail--;
                continue;
            }
        }
        h++;
    }
    g_array_sort(done, compare_flows);
    /* Arrivals may start flows at t: they queue their own recomputation. */
    FennelTime next = f->flows->len > 0 ? share(run, f, t) : FENNEL_TIME_MAX;
    if (pieces)
        report_pieces(run, f, t);
    if (f->flows->len > 0)
        schedule(run, f, MAX(next, t + 1));
    for (guint i = 0; i < done->len; i++) {
        Flow *fl = &g_array_index(done, Flow, i);
        /* A flow that was never slowed ends exactly when it would have alone. */
        FennelTime end = fl->shared ? t : add(run, 0, fl->start, fl->solo_time);
        if (pieces)
            emit_piece(run, f, fl, fl->links, fl->piece_from, end, fl->piece_rate);
        g_free(fl->links);
        const FennelTaskType type = run->p->type[message_of(run, fl->msg)->task];
        if (G_UNLIKELY(type == FENNEL_TASK_LOAD_REDUCE || type == FENNEL_TASK_MULTICAST)) {
            const FennelTime extra = end - fl->start - fl->solo_time;
            run->m->link_wait += MAX(extra, 0);
            route_of(run, fl->msg)->waited = MAX(extra, 0);
            fennel__tree_done(run, fl->msg, t, end);
            continue;
        }
        if (run->m->net->routing == FENNEL_ROUTING_ADAPTIVE)
            fennel__topology_unload(run, fl->msg);
        if (nic_bytes(run, message_of(run, fl->msg))) {
            /* Its receiver took it when its head arrived: the sharing delays the receive
             * only where the bytes come after the NIC would have timed them. */
            fennel__topology_tail(run, fl->msg, fl->start, end);
            continue;
        }
        FennelTime extra = end - fl->start - fl->solo_time;
        run->m->link_wait += MAX(extra, 0);
        route_of(run, fl->msg)->waited = MAX(extra, 0);
        fennel__topology_arrived(run, fl->msg, t, MAX(fl->start, end - fl->solo_time), end);
    }
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
        const uint32_t *links;
        fennel_fair_fill_path(f->fill, i, &links);
        for (uint32_t k = 0; k < fl->n_links; k++) {
            if (links[k] == l && (crossing == NULL || fl->msg < crossing->msg))
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
        const Message *msg = message_of(run, crossing->msg);
        fennel__cut(run, msg->task, msg->leg, link, t, FALSE);
        return;
    }
    advance(f, t);
    fair_link(f, l, rate);
    schedule(run, f, t);
}
