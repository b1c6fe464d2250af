/* Messages on a topology (docs/TOPOLOGY.md). Without contention a message's wire time is its
 * route's latency plus its bytes over the narrowest link. With contention `endpoint` or
 * `links` a message crosses its route link by link: a shared link is a first-come
 * first-served server, which the head enters when it is free (waiting if need be) and which
 * then stays busy for size / bandwidth; the head moves on after the link's latency
 * (cut-through), and the tail arrives after the slowest part of the pipeline. A message
 * reaches each shared link as an event, so that a link serves messages in the order their
 * heads reach it; links that are not shared are crossed at once. */
#include "engine_private.h"

#include "topology_graph.h"

/* size / bandwidth on a link of this level, cached per level (programs use few sizes); a
 * graph's links have their own bandwidths, cached by bandwidth (graphs use few). */
HOT FennelTime transfer(Run *run, uint32_t link, uint32_t level, int64_t bytes)
{
    const FennelNetwork *n = run->m->net;
    if (G_UNLIKELY(n->link_rate != NULL)) {
        const FennelRate rate = n->link_rate[link];
        const unsigned slot = (unsigned)(((uint64_t)rate * 0x9e3779b97f4a7c15ull) >> 61);
        if (run->xfer_bytes[slot] != bytes || run->xfer_rate[slot] != rate) {
            run->xfer_bytes[slot] = bytes;
            run->xfer_rate[slot] = rate;
            run->xfer[slot] = fennel_model_quantise(run->m->model, fennel_as_bytes(bytes, rate));
        }
        return run->xfer[slot];
    }
    if (run->xfer_bytes[level] != bytes) {
        run->xfer_bytes[level] = bytes;
        run->xfer[level] =
            fennel_model_quantise(run->m->model, fennel_as_bytes(bytes, n->level_rate[level]));
    }
    return run->xfer[level];
}

/* With faults or slow NICs, the route of a message without contention: the routing's (ECMP
 * among them), avoiding links that are down when it enters the network at t, and its
 * narrowest link at the rate each has when the head reaches it. FALSE when it is cut off. */
static gboolean changed_route(Run *run, uint32_t task, unsigned leg, uint32_t src, uint32_t dst,
                              FennelTime t, FennelTime *latency, FennelRate *slowest)
{
    FennelMachine *m = run->m;
    const FennelNetwork *n = m->net;
    const uint32_t to = port_of(m, dst), from = port_of(m, src);
    const uint32_t choice = fennel__route_alive(run, task, leg, from, to,
                                                fennel__route_choice(m, task, leg, from, to), t);
    if (choice == FENNEL_LINK_NONE)
        return FALSE;
    *latency = 0;
    *slowest = 0;
    for (uint32_t at = from; at != to;) {
        const FennelHop h = fennel_network_hop_via(n, at, to, choice);
        gboolean down;
        const FennelRate rate = fennel__link_rate(
            m, h.link, fennel_network_rate(n, h.link, h.level), t + *latency, &down);
        if (down) {
            fennel__cut(run, task, leg, h.link, t + *latency, FALSE);
            return FALSE;
        }
        *latency = add(run, task, *latency, fennel_network_latency(n, h.link, h.level));
        *slowest = MAX(*slowest, rate);
        at = h.to;
    }
    return TRUE;
}

FennelTime fennel__topology_wire(Run *run, uint32_t task, unsigned leg, uint32_t src, uint32_t dst,
                                 FennelTime t, int64_t bytes, gboolean nic_bytes)
{
    const FennelNetwork *n = run->m->net;
    const uint32_t to = port_of(run->m, dst);
    uint32_t at = port_of(run->m, src);
    FennelTime latency = 0;
    FennelRate slowest = 0;
    if (G_UNLIKELY(run->m->changed != NULL)) {
        if (!changed_route(run, task, leg, src, dst, t, &latency, &slowest))
            return 0; /* cut off: the run stops */
        at = to;
    }
    /* a dragonfly's route may leave the minimal one (valiant) */
    const uint32_t choice = G_UNLIKELY(n->kind == FENNEL_TOPOLOGY_DRAGONFLY)
                                ? fennel__route_choice(run->m, task, leg, at, to)
                                : to;
    while (at != to) {
        const FennelHop h = fennel_network_hop_via(n, at, to, choice);
        /* a sum past the time's range stops the run (add) */
        latency = add(run, task, latency, fennel_network_latency(n, h.link, h.level));
        slowest = MAX(slowest, fennel_network_rate(n, h.link, h.level));
        at = h.to;
    }
    if (nic_bytes)
        bytes = 0;
    /* Routes share few (latency, narrowest link) pairs and programs few sizes: a small
     * direct-mapped cache saves the 128-bit arithmetic of the rounding. */
    WireEntry *e = &run->wires[((uint64_t)bytes * 0x9e3779b97f4a7c15ull ^ (uint64_t)latency ^
                                (uint64_t)slowest * 31) >>
                               58];
    if (e->bytes != bytes || e->latency != latency || e->rate != slowest) {
        e->bytes = bytes;
        e->latency = latency;
        e->rate = slowest;
        e->wire = fennel_model_quantise(run->m->model,
                                        fennel_as(latency) + fennel_as_bytes(bytes, slowest));
    }
    return e->wire;
}

FennelTime fennel__topology_bytes(Run *run, uint32_t task, unsigned leg, uint32_t src, uint32_t dst,
                                  FennelTime t, int64_t bytes)
{
    const FennelNetwork *n = run->m->net;
    const uint32_t to = port_of(run->m, dst);
    FennelRate slowest = 0;
    uint32_t at = port_of(run->m, src);
    if (G_UNLIKELY(run->m->changed != NULL)) {
        FennelTime latency;
        if (!changed_route(run, task, leg, src, dst, t, &latency, &slowest))
            return 0; /* cut off: the run stops */
        at = to;
    }
    const uint32_t choice = G_UNLIKELY(n->kind == FENNEL_TOPOLOGY_DRAGONFLY)
                                ? fennel__route_choice(run->m, task, leg, at, to)
                                : to;
    for (; at != to;) {
        const FennelHop h = fennel_network_hop_via(n, at, to, choice);
        slowest = MAX(slowest, fennel_network_rate(n, h.link, h.level));
        at = h.to;
    }
    return fennel_model_quantise(run->m->model, fennel_as_bytes(bytes, slowest));
}

void fennel__topology_tail(Run *run, uint32_t id, FennelTime head, FennelTime tail)
{
    MessageRoute *route = route_of(run, id);
    const MessageNic *nic = &run->route_nics[id];
    /* Shifted as its head was, by the network's noise (and a send's order on its pair). */
    route->tail = MAX(add(run, message_of(run, id)->task, tail, nic->head - head), nic->head);
    if (nic->taken != FENNEL_TIME_MIN)
        fennel__engine_deliver_late(run, id);
}

/* The message is at its destination node (now being `now`): head and tail there at the
 * given times. */
void fennel__topology_arrived(Run *run, uint32_t id, FennelTime now, FennelTime head,
                              FennelTime tail)
{
    FennelMachine *m = run->m;
    const FennelProgram *p = run->p;
    Message *msg = message_of(run, id);
    MessageRoute *route = route_of(run, id);
    const uint32_t task = msg->task;
    const FennelTaskType type = p->type[task];
    const uint32_t issuer = p->rank[task];
    const uint32_t src = msg->leg ? p->peer[task] : issuer, dst = msg->leg ? issuer : p->peer[task];
    const int64_t *params;
    const FennelNetworkClass *net = network_for(m, src, dst, &params);
    const gboolean contended = (net->flags & FENNEL_NET_CONTENDED) != 0;
    const int64_t bytes = route->bytes;
    FennelTime flight_noise = noise(run, FENNEL_NOISE_NETWORK, task, msg->leg);
    FennelTime arrival = (net->flags & FENNEL_NET_NIC_BYTES) ? head : tail;
    if (net->flags & FENNEL_NET_SENDER_WAITS)
        flight_noise = add(run, task, flight_noise, noise(run, FENNEL_NOISE_HOST, task, 0));
    arrival = MAX(add(run, task, arrival, flight_noise), route->sent);
    if (type == FENNEL_TASK_SEND && !(p->flags[task] & FENNEL_TASK_SOLE)) {
        /* Non-overtaking, as without a topology. */
        arrival = fennel_match_channel(run->match, src, dst, arrival);
    }
    if (net->flags & FENNEL_NET_NIC_BYTES) {
        /* LogP/LogGP: the receiver's NIC and slot take it from here when its head has
         * arrived, and its receive ends no earlier than its tail allows (engine_network.c);
         * under `fair` the tail is known when its flow ends (fennel__topology_tail). It is
         * reported then. */
        run->route_nics[id].head = arrival;
        route->tail = FENNEL_TIME_MIN;
        if (tail != FENNEL_TIME_MIN)
            fennel__topology_tail(run, id, head, tail);
        fennel_queue_push(&run->queue, arrival, KIND_MESSAGE << KIND_SHIFT | id);
        return;
    }
    /* Every model whose receiver takes its messages (LogP, LogGP) times the bytes there. */
    g_assert(!contended);
    emit_message(run, task, src, dst, route->sent, arrival, bytes, flight_noise, route->waited);
    const FennelTime host = noise(run, FENNEL_NOISE_HOST, task, 0);
    if (type == FENNEL_TASK_GET && msg->leg == 0) {
        /* The target's NIC answers at once: the response enters the network. */
        msg->leg = 1;
        msg->ready = arrival;
        route->sent = arrival;
        route->waited = 0;
        fennel__topology_send(run, id, dst, src, now, arrival);
        return;
    }
    if (route->held) {
        /* The sender's slot was held until its message arrived (postal, a blocking put). */
        msg->local = MAX(msg->local, arrival);
        fennel__wait_release(run, issuer, msg->slot, msg->local, now);
    }
    switch (type) {
    case FENNEL_TASK_PUT:
        complete(run, task, msg->slot, msg->aux, msg->local, arrival, arrival, host);
        break;
    case FENNEL_TASK_GET:
        complete(run, task, msg->slot, msg->aux, msg->local, msg->ready, arrival, host);
        break;
    case FENNEL_TASK_SEND:
        /* Eager under postal and lbp: done when its message has arrived. */
        complete(run, task, msg->slot, msg->aux, msg->local, arrival, arrival, host);
        fennel_queue_push(&run->queue, arrival, KIND_MESSAGE << KIND_SHIFT | id);
        break;
    default:
        g_assert_not_reached();
    }
    if (type != FENNEL_TASK_SEND) /* a send is through when it meets its receive */
        message_through(run, id);
}

/* a + b for message `id`'s hop: add() with the message's task read only when the sum
 * overflows (a hop reads nothing of its message but its route). */
HOT FennelTime add_hop(Run *run, uint32_t id, FennelTime a, FennelTime b)
{
    FennelTime sum, next;
    if (G_LIKELY(fennel_time_add(a, b, &sum) && fennel_time_add(sum, 1, &next)))
        return sum;
    return add(run, message_of(run, id)->task, a, b);
}

/* Queues message `id`'s head reaching its next shared link, hop h from route->at, at t. */
HOT void hop_queue(Run *run, MessageRoute *route, uint32_t id, FennelTime t, FennelHop h)
{
    route->next_link = h.link;
    route->next_to = h.to;
    route->next_level = (uint8_t)h.level;
    fennel_queue_push(&run->queue, t, KIND_HOP << KIND_SHIFT | id);
}

/* Message `id`'s head reaches its next shared link at t (the hop route->next_*): under
 * `links` (all) every link is
 * shared, under `endpoint` the nodes' ports. Inlined into the two levels' hops, so that
 * `all` is a constant in each. */
HOT void serial_hop(Run *run, uint32_t id, FennelTime t, gboolean all)
{
    FennelMachine *m = run->m;
    const FennelNetwork *n = m->net;
    MessageRoute *route = route_of(run, id);
    const int64_t bytes = route->bytes;
    FennelTime head = t;
    FennelHop h = {.link = route->next_link, .to = route->next_to, .level = route->next_level};
    for (;;) {
        const gboolean shared = all || h.link < n->endpoint_links;
        const uint32_t l = shared ? link_index(m, h.link) : 0; /* may move link_state */
        LinkState *ls = shared ? &m->link_state[l] : NULL;
        FennelTime start = shared ? MAX(head, ls->free) : head;
        FennelTime x;
        if (G_UNLIKELY(link_changed(m, h.link))) {
            /* A failed or slow link: its rate when the message starts on it. */
            gboolean down;
            const FennelRate rate =
                fennel__link_rate(m, h.link, fennel_network_rate(n, h.link, h.level), start, &down);
            if (down) {
                const Message *msg = message_of(run, id);
                fennel__cut(run, msg->task, msg->leg, h.link, start, FALSE);
                return;
            }
            x = fennel_model_quantise(m->model, fennel_as_bytes(bytes, rate));
        } else {
            x = transfer(run, h.link, h.level, bytes);
        }
        const FennelTime latency = fennel_network_latency(n, h.link, h.level);
        if (shared) {
            /* A shared link: it serves heads in the order they reach it (this event). */
            ls->free = add_hop(run, id, start, x);
            FennelLinkStats *st = &ls->stats;
            st->bytes += (uint64_t)bytes;
            st->messages++;
            st->busy += x;
            st->wait += start - head;
            st->longest = MAX(st->longest, start - head);
            route->waited += start - head;
            m->link_wait += start - head;
            if (G_UNLIKELY(m->mask & FENNEL_EVENT_LINK)) {
                const FennelProgram *p = run->p;
                const Message *msg = message_of(run, id);
                const uint32_t task = msg->task, issuer = p->rank[task], peer = p->peer[task];
                FennelEvent ev = {.kind = FENNEL_EVENT_LINK,
                                  .task = task,
                                  .rank = msg->leg ? peer : issuer,
                                  .peer = msg->leg ? issuer : peer,
                                  .slot = h.link,
                                  .time = start,
                                  .until = ls->free,
                                  .bytes = bytes,
                                  .link_wait = start - head};
                emit(m, p, &ev);
            }
        }
        route->tail = add_hop(run, id, MAX(route->tail, add_hop(run, id, start, x)), latency);
        head = add_hop(run, id, start, latency);
        route->at = h.to;
        if (route->at == route->to_node) {
            if (n->routing == FENNEL_ROUTING_ADAPTIVE)
                fennel__topology_unload(run, id);
            fennel__topology_arrived(run, id, t, head, route->tail);
            return;
        }
        /* The next shared link is reached as an event, at the time the head gets there,
         * which takes the hop found here; under `endpoint` the next hop, found to tell, is
         * the one the loop crosses next when it is not shared. */
        h = fennel_network_hop_via(n, route->at, route->to_node, route->choice);
        if (all || h.link < n->endpoint_links) {
            hop_queue(run, route, id, head, h);
            return;
        }
    }
}

/* The state of the link a hop event's head takes next (route->next_link), fetched
 * some events before the hop. With waits, hops come in an order unrelated to the links'
 * numbers (ECMP's hash), and the state of a large topology's links is far larger than the
 * caches: without it, most of a hop's time was this one read (docs/PERFORMANCE.md, Routing
 * choices at 2^16 ranks). */
void fennel__serial_ahead(const Run *run, uint32_t id)
{
    const MessageRoute *route = route_of(run, id);
    const FennelMachine *m = run->m;
    if (route->at == route->to_node)
        return; /* a switch's operation (engine_nvls.c): its links are not a route */
    const uint32_t link = route->next_link;
    const uint32_t *page = m->link_pages[link >> LINK_PAGE_BITS];
    const uint32_t d = page ? page[link & (LINK_PAGE - 1)] : 0;
    if (d != 0)
        __builtin_prefetch(&m->link_state[d - 1], 1);
}

void fennel__endpoint_hop(Run *run, uint32_t id, FennelTime t)
{
    serial_hop(run, id, t, FALSE);
}

void fennel__links_hop(Run *run, uint32_t id, FennelTime t)
{
    serial_hop(run, id, t, TRUE);
}

/* The bytes message `msg` carries: a get's request, else the task's amount. */
static int64_t message_bytes(const Run *run, const Message *msg)
{
    const FennelProgram *p = run->p;
    return p->type[msg->task] == FENNEL_TASK_GET && msg->leg == 0 ? p->request[msg->task]
                                                                  : p->amount[msg->task];
}

/* Adds `bytes` (possibly negative) to the load of every link of message `id`'s route. */
static void load_route(Run *run, uint32_t id, int64_t bytes)
{
    FennelMachine *m = run->m;
    const MessageRoute *route = route_of(run, id);
    const Message *msg = message_of(run, id);
    /* The issuer's rank sends a request or data (leg 0), its peer a get's response. */
    const uint32_t src = msg->leg ? run->p->peer[msg->task] : run->p->rank[msg->task];
    for (uint32_t v = port_of(m, src); v != route->to_node;) {
        const FennelHop h = fennel_network_hop_via(m->net, v, route->to_node, route->choice);
        const uint32_t l = link_index(m, h.link); /* may move link_state */
        m->link_state[l].load += (uint64_t)bytes;
        v = h.to;
    }
}

void fennel__topology_unload(Run *run, uint32_t id)
{
    load_route(run, id, -route_of(run, id)->bytes);
}

/* The least-loaded of the links choice index k = 0 .. count-1 takes from vertex `at` (k
 * names choice(k) when `step` is 1, or base + step x k), starting from `first` and going
 * round, so that a tie goes to the first. */
static uint32_t least_loaded(FennelMachine *m, uint32_t at, uint32_t dst, uint32_t count,
                             uint32_t first, uint32_t base, uint32_t step)
{
    uint32_t best = first;
    uint64_t lowest = UINT64_MAX;
    for (uint32_t i = 0; i < count; i++) {
        const uint32_t k = (first + i) % count;
        const uint32_t choice = step ? base + step * k : fennel_network_choice(m->net, k);
        const uint32_t l = link_index(m, fennel_network_hop_via(m->net, at, dst, choice).link);
        const uint64_t load = m->link_state[l].load;
        if (load < lowest) {
            lowest = load;
            best = k;
        }
    }
    return best;
}

/* The most a graph's adaptive choice is known modulo: as many routes as the detour round a
 * dead link tries (fennel_network_choices). */
#define GRAPH_CHOICES (1u << 16)

static uint64_t gcd(uint64_t a, uint64_t b)
{
    while (b) {
        const uint64_t r = a % b;
        a = b;
        b = r;
    }
    return a;
}

/* Routing adaptive on a graph, from port src to port dst: a choice c takes candidate c mod
 * their count at every switch (topology_graph.h), so the walk from the source keeps c known
 * mod M, the least common multiple of the counts met so far (c = r mod M). At a switch of
 * `count` candidates, c can still take those i with i = r mod gcd(M, count); of them the
 * one whose link has the least load, a tie to the first from destination modulo's (dst mod
 * count) on in order, so that on an idle network adaptive routes as destination modulo. */
static uint32_t adaptive_graph(FennelMachine *m, uint32_t src, uint32_t dst)
{
    const FennelGraph *g = m->net->graph;
    uint64_t r = 0, M = 1;
    for (uint32_t at = src; at != dst;) {
        FennelGraphStep one;
        const FennelGraphStep *steps;
        const uint32_t count = fennel_graph_candidates(g, at, dst, &one, &steps);
        uint32_t pick = (uint32_t)(r % count);
        const uint64_t d = gcd(M, count);
        if (count > 1 && M / d * count <= GRAPH_CHOICES) {
            uint64_t lowest = UINT64_MAX;
            for (uint32_t j = 0; j < count; j++) {
                const uint32_t i = (dst % count + j) % count;
                if (i % d != r % d)
                    continue;
                const uint32_t l = link_index(m, steps[i].link); /* may move link_state */
                const uint64_t load = m->link_state[l].load;
                if (load < lowest) {
                    lowest = load;
                    pick = i;
                }
            }
            /* c = r mod M and c = pick mod count: step r by M until it takes pick */
            while (r % count != pick)
                r += M;
            M = M / d * count;
        }
        at = steps[pick].to;
    }
    return (uint32_t)r;
}

/* Routing adaptive: where the route may go up several ways (a fat tree's leaf, then its
 * aggregation switch; a rail leaf), the up-link with the least load now, a tie to the one
 * destination modulo takes and then the next ones in order; on a graph, at every switch
 * of several candidates (adaptive_graph). */
/* Routing adaptive on a dragonfly (UGAL with global knowledge): the route whose global links
 * carry the least load in all, the minimal one (one global link) or Valiant's through another
 * group (two), a tie to the minimal one and then the groups in order from the destination's
 * on; on an idle network adaptive routes minimally. */
static uint32_t adaptive_dragonfly(FennelMachine *m, uint32_t src, uint32_t dst)
{
    const FennelNetwork *n = m->net;
    const uint32_t G = n->a, g = src / n->c / n->b, gd = dst / n->c / n->b;
    uint32_t best = gd;
    uint64_t lowest = UINT64_MAX;
    for (uint32_t i = 0; i < G && g != gd; i++) {
        const uint32_t via = (gd + i) % G;
        if (via == g)
            continue;
        uint64_t load = 0;
        for (uint32_t at = src; at != dst;) {
            const FennelHop h = fennel_network_hop_via(n, at, dst, via);
            if (h.level == 2) {
                const uint32_t l = link_index(m, h.link); /* may move link_state */
                load += m->link_state[l].load;
            }
            at = h.to;
        }
        if (load < lowest) {
            lowest = load;
            best = via;
        }
    }
    return best;
}

static uint32_t adaptive_choice(FennelMachine *m, uint32_t src, uint32_t dst)
{
    const FennelNetwork *n = m->net;
    if (n->kind == FENNEL_TOPOLOGY_GRAPH)
        return adaptive_graph(m, src, dst);
    if (n->kind == FENNEL_TOPOLOGY_DRAGONFLY)
        return adaptive_dragonfly(m, src, dst);
    const uint32_t count = fennel_network_choices(n, src, dst);
    if (count <= 1)
        return dst;
    if (n->kind == FENNEL_TOPOLOGY_RAIL) {
        /* up to the rail leaf the route is the same; the leaf picks a spine */
        uint32_t at = src;
        FennelHop h = fennel_network_hop(n, at, dst);
        while (h.level != 3) {
            at = h.to;
            h = fennel_network_hop(n, at, dst);
        }
        return fennel_network_choice(n, least_loaded(m, at, dst, count, dst / n->a % n->c, 0, 0));
    }
    /* a fat tree: the leaf's up-link i, then (to another pod) the aggregation switch's core
     * link j; the choice is i + u j */
    const uint32_t u = n->b, leaf = fennel_network_hop(n, src, dst).to;
    const uint32_t i = least_loaded(m, leaf, dst, u, dst % u, 0, 1);
    if (count == u)
        return i;
    const uint32_t agg = fennel_network_hop_via(n, leaf, dst, i).to;
    return i + u * least_loaded(m, agg, dst, count / u, dst / u % n->c, i, u);
}

void fennel__topology_send(Run *run, uint32_t id, uint32_t src, uint32_t dst, FennelTime t,
                           FennelTime head)
{
    Message *msg = message_of(run, id);
    MessageRoute *route = route_of(run, id);
    FennelMachine *m = run->m;
    route->at = port_of(m, src);
    route->to_node = port_of(m, dst);
    route->tail = FENNEL_TIME_MIN;
    route->bytes = message_bytes(run, msg);
    const gboolean adaptive = m->net->routing == FENNEL_ROUTING_ADAPTIVE;
    route->choice = adaptive
                        ? adaptive_choice(m, route->at, route->to_node)
                        : fennel__route_choice(m, msg->task, msg->leg, route->at, route->to_node);
    if (G_UNLIKELY(m->any_down)) {
        route->choice = fennel__route_alive(run, msg->task, msg->leg, route->at, route->to_node,
                                            route->choice, head);
        if (route->choice == FENNEL_LINK_NONE)
            return; /* cut off: the run stops */
    }
    if (adaptive)
        load_route(run, id, route->bytes);
    m->level->send(run, id, t, head);
}

void fennel__serial_send(Run *run, uint32_t id, FennelTime t, FennelTime head)
{
    /* The node's own link (its first, always one of its ports) serves only its own
     * messages, which start in time order: a head that enters it now needs no event. */
    MessageRoute *route = route_of(run, id);
    const FennelHop h =
        fennel_network_hop_via(run->m->net, route->at, route->to_node, route->choice);
    if (head == t) {
        route->next_link = h.link;
        route->next_to = h.to;
        route->next_level = (uint8_t)h.level;
        run->m->level->hop(run, id, t);
    } else {
        hop_queue(run, route, id, head, h);
    }
}
