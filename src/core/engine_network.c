/* Network tasks: puts, gets and sends start here, messages are received and two-sided
 * ones matched (docs/SEMANTICS.md). */
#include "engine_private.h"

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
void fennel__engine_meet(Run *run, uint32_t recv, uint32_t msg_id, FennelTime posted,
                         FennelTime when)
{
    const FennelProgram *p = run->p;
    Message *msg = message_of(run, msg_id);
    uint32_t send = msg->task;
    FennelTime done = MAX(posted, msg->ready);
    /* Instruments learn here which send each recv matched (the critical path follows a
     * receive's message back to its sender). The send's own event does not repeat it:
     * keeping `recv` live for it costs a saved register in every meeting. */
    complete_matched(run, recv, 0, posted, posted, done, done, 0, send);
    if (task_state(run, send) != TASK_DONE) {
        uint32_t rank = p->rank[send];
        hold_slot(run, send, rank, msg->slot, when);
        run->m->nic_send[rank] = MAX(run->m->nic_send[rank], when);
        complete(run, send, msg->slot, msg->aux, msg->local, when, when, 0);
    }
    message_through(run, msg_id);
}

/* ---- shared NICs and half-duplex ports (docs/TOPOLOGY.md) ---- */

HOT uint32_t port_index(const FennelMachine *m, uint32_t rank)
{
    return m->model->nic_shared ? node_of(m, rank) : rank;
}

/* The time of a message's bytes: the model's time per byte (postal's and lbp's beta) times
 * its size, times a slow NIC's factor. */
static FennelTime bytes_time(const FennelMachine *m, const FennelNetworkClass *net,
                             const int64_t *params, uint32_t src, uint32_t dst, int64_t bytes)
{
    int64_t buf[FENNEL_MAX_PARAMS];
    const int64_t *p = fennel_model_params_at(m->model, params, bytes, buf);
    __int128 per_byte = 0;
    for (unsigned k = 0; k < net->n_params; k++) {
        if (net->nic_params >> k & 1)
            per_byte += fennel_as_bytes(bytes, p[k]);
    }
    FennelTime t = fennel_model_quantise(m->model, per_byte);
    if (G_UNLIKELY(m->nic_factor != NULL))
        t = fennel_times_millionths(t, MAX(m->nic_factor[src], m->nic_factor[dst]));
    return t;
}

/* What a port of `nic: shared` or `duplex: half` carries: nothing yet, or (half duplex) the
 * direction of its last message. */
enum { PORT_IDLE, PORT_SENDING, PORT_RECEIVING };

/* A half-duplex port turns to `dir` for a message that arrives at `arrival`: the line stays
 * busy in that direction until the last of its messages has arrived. */
static void port_turn(FennelMachine *m, uint32_t port, uint8_t dir, FennelTime arrival)
{
    m->port_drain[port] = m->port_dir[port] == dir ? MAX(m->port_drain[port], arrival) : arrival;
    m->port_dir[port] = dir;
}

/* The wire time of a message of `bytes` from rank src to rank dst on another node that
 * enters the network at t with the model's wire time `wire`, through the ports of
 * `nic: shared` and `duplex: half`. */
static FennelTime port_wire(Run *run, const FennelNetworkClass *net, const int64_t *params,
                            uint32_t task, uint32_t src, uint32_t dst, FennelTime t, int64_t bytes,
                            FennelTime wire)
{
    FennelMachine *m = run->m;
    /* A port is held for the message's bytes; its latency overlaps the next message's. */
    const FennelTime hold = MIN(bytes_time(m, net, params, src, dst, bytes), wire);
    /* The ports serve messages in the order they start: the sender's sending side from t,
     * then the receiver's receiving side from when the head can reach it. */
    const uint32_t from = port_index(m, src), to = port_index(m, dst);
    FennelTime out = MAX(t, m->port_out[from]);
    const gboolean half = m->port_dir != NULL && fennel_model_half_duplex_at(m->model, bytes);
    /* Half duplex: a port carries one direction at a time. A message in its present
     * direction follows the previous one's bytes, as under full duplex; one in the other
     * direction waits until the line is clear, the port's last message arrived (so an
     * exchange between two ranks takes twice a one-way message, latency included, as the
     * machines that show it measure). */
    if (half && m->port_dir[from] == PORT_RECEIVING)
        out = MAX(out, m->port_drain[from]);
    /* A reply starts a new turn: a message that enters after its port received one (since
     * its previous message out entered) waits for the line to clear too, instead of
     * following that message's bytes. Without it an eager sender's next call in a loop of
     * exchanges joins its previous message, one turn for two calls, where Juno's IMB
     * `Sendrecv` loop takes two a call (docs/VALIDATION.md, Juno's worst points). */
    if (half && m->port_dir[from] == PORT_SENDING && m->port_got[from] > m->port_sent[from] &&
        m->port_got[from] <= t)
        out = MAX(out, m->port_drain[from]);
    if (half)
        m->port_sent[from] = t;
    m->port_out[from] = add(run, task, out, hold);
    FennelTime in = MAX(add(run, task, out, wire - hold), m->port_in[to]);
    if (half && m->port_dir[to] == PORT_SENDING)
        in = MAX(in, m->port_drain[to]);
    m->port_in[to] = add(run, task, in, hold);
    if (half) {
        port_turn(m, from, PORT_SENDING, m->port_in[to]);
        port_turn(m, to, PORT_RECEIVING, m->port_in[to]);
        m->port_got[to] = MAX(m->port_got[to], m->port_in[to]);
    }
    return add(run, task, in, hold) - t;
}

/* ---- starting a task ---- */

/* A LogP/LogGP message between nodes without contention, sent at `sent`: its head arrives at
 * `head`, its tail its bytes' time over the route's narrowest link later (docs/TOPOLOGY.md). */
static void route_unshared(Run *run, uint32_t id, uint32_t src, uint32_t dst, FennelTime sent,
                           FennelTime head, int64_t bytes)
{
    route_new(
        run, id,
        (MessageRoute){
            .sent = sent,
            .tail = add(run, message_of(run, id)->task, head,
                        fennel__topology_bytes(run, message_of(run, id)->task,
                                               message_of(run, id)->leg, src, dst, sent, bytes)),
        });
    run->route_nics[id] = (MessageNic){.head = head, .taken = FENNEL_TIME_MIN};
}

/* Starts a put, send or get whose message crosses the topology link by link (contention
 * endpoint or links, engine_topology.c): the sender's part is the model's, the wire part
 * is timed as the message goes. A sender that waits for its message (postal, a blocking
 * put) holds its slot until it arrives. */
static void start_routed(Run *run, const FennelNetworkClass *net, const int64_t *params,
                         const FennelMessageTiming *mt, uint32_t task, uint32_t slot, FennelTime t,
                         FennelTime host)
{
    FennelMachine *m = run->m;
    const FennelProgram *p = run->p;
    const uint32_t src = p->rank[task], dst = p->peer[task];
    const FennelTaskType type = p->type[task];
    const gboolean contended = (net->flags & FENNEL_NET_CONTENDED) != 0;
    const gboolean waits = (net->flags & FENNEL_NET_SENDER_WAITS) != 0;
    const gboolean held =
        waits || (type == FENNEL_TASK_PUT && (p->flags[task] & FENNEL_TASK_BLOCKING) && !contended);
    FennelTime local = waits ? t : add(run, task, t, noisy(mt->busy, host));
    slots_of(m, src)[slot] = held ? FENNEL_TIME_MAX : local;
    if (!held)
        m->makespan = MAX(m->makespan, local);
    if (mt->gap > 0) {
        m->nic_send[src] = add(run, task, t, mt->gap);
        emit_busy(run, task, src, 0, FENNEL_BUSY_NIC_SEND, t, m->nic_send[src]);
    }
    Message msg = {.task = task, .leg = 0, .local = local, .aux = t, .slot = slot};
    uint32_t id = message_new(run, &msg);
    route_new(run, id, (MessageRoute){.held = held, .sent = t});
    if (run->route_nics)
        run->route_nics[id].taken = FENNEL_TIME_MIN;
    if (type == FENNEL_TASK_SEND) {
        /* An eager send under LogP/LogGP is done when its overhead is (under postal and lbp
         * when its message arrives, engine_topology.c); a rendezvous one when it is matched. */
        if (contended && !(net->rendezvous && !(p->flags[task] & FENNEL_TASK_EAGER) &&
                           net->rendezvous(params, p->amount[task])))
            complete(run, task, slot, t, local, local, local, host);
    }
    fennel__topology_send(run, id, src, dst, t, add(run, task, t, mt->flight - mt->wire));
}

/* Starts a put, send or get at t on `slot` (its resources are free). */
void fennel__engine_start_network(Run *run, uint32_t task, uint32_t slot, FennelTime t)
{
    FennelMachine *m = run->m;
    const FennelProgram *p = run->p;
    const uint32_t src = p->rank[task], dst = p->peer[task];
    const FennelTaskType type = p->type[task];
    const int64_t *params;
    const FennelNetworkClass *net = network_for(m, src, dst, &params);
    const gboolean contended = (net->flags & FENNEL_NET_CONTENDED) != 0;
    int64_t bytes = type == FENNEL_TASK_GET ? p->request[task] : p->amount[task];
    FennelMessageTiming mt;
    pair_timing(run, net, params, bytes, src, dst, &mt);
    FennelTime host = noise(run, FENNEL_NOISE_HOST, task, 0);
    gboolean ported = FALSE;
    if (G_UNLIKELY(crosses(m, src, dst))) {
        if (m->routed) {
            start_routed(run, net, params, &mt, task, slot, t, host);
            return;
        }
        /* The topology replaces the wire part of the model's flight. */
        FennelTime wire = fennel__topology_wire(run, task, 0, src, dst, t + mt.flight - mt.wire,
                                                bytes, (net->flags & FENNEL_NET_NIC_BYTES) != 0);
        mt.flight = mt.flight - mt.wire + wire;
        mt.wire = wire;
    } else if (G_UNLIKELY(through_ports(m, src, dst))) {
        FennelTime wire =
            port_wire(run, net, params, task, src, dst, t + mt.flight - mt.wire, bytes, mt.wire);
        mt.flight = mt.flight - mt.wire + wire;
        mt.wire = wire;
        ported = TRUE;
    }
    /* An eager put or send (below the model's eager limit, docs/SEMANTICS.md) holds its sender
     * until its bytes have left it: through its port, or for its bytes' time on the link. */
    const gboolean eager = (type == FENNEL_TASK_PUT || type == FENNEL_TASK_SEND) &&
                           G_UNLIKELY(fennel_model_eager_at(m->model, net, bytes));
    FennelTime left = t;
    if (G_UNLIKELY(eager))
        left = ported
                   ? m->port_out[port_index(m, src)]
                   : add(run, task, t, MIN(bytes_time(m, net, params, src, dst, bytes), mt.flight));
    FennelTime flight_noise = noise(run, FENNEL_NOISE_NETWORK, task, 0);
    FennelTime flight = noisy(mt.flight, flight_noise);
    FennelTime busy = noisy(mt.busy, host);
    if (net->flags & FENNEL_NET_SENDER_WAITS)
        busy = flight = noisy(mt.flight, add(run, task, flight_noise, host));
    FennelTime arrival = add(run, task, t, flight);
    FennelTime local = eager ? add(run, task, left, host) : add(run, task, t, busy);
    if (type == FENNEL_TASK_PUT && (p->flags[task] & FENNEL_TASK_BLOCKING) && !contended)
        local = MAX(local, arrival);
    slots_of(m, src)[slot] = local;
    if (mt.gap > 0) {
        m->nic_send[src] = add(run, task, t, mt.gap);
        emit_busy(run, task, src, 0, FENNEL_BUSY_NIC_SEND, t, m->nic_send[src]);
    }
    m->makespan = MAX(m->makespan, local);

    if (type == FENNEL_TASK_SEND && !(p->flags[task] & FENNEL_TASK_SOLE)) {
        /* Non-overtaking: a send never arrives before an earlier one between the pair
         * (the only send of its pair needs no record). */
        arrival = fennel_match_channel(run->match, src, dst, arrival);
    }
    /* A LogP/LogGP message between nodes is reported when its receive knows whether the
     * links made it late (fennel__engine_deliver_late). */
    const gboolean late =
        G_UNLIKELY(crosses(m, src, dst)) && (net->flags & FENNEL_NET_NIC_BYTES) != 0;
    if (!late)
        emit_message(run, task, src, dst, t, arrival, bytes, flight_noise, 0);

    if (type == FENNEL_TASK_SEND) {
        Message msg = {.task = task, .leg = 0, .local = local, .aux = t, .slot = slot};
        uint32_t id = push_message(run, arrival, &msg);
        if (late)
            route_unshared(run, id, src, dst, t, arrival, bytes);
        gboolean rendezvous = net->rendezvous && !(p->flags[task] & FENNEL_TASK_EAGER) &&
                              net->rendezvous(params, p->amount[task]);
        if (!rendezvous) {
            /* Eager: under LogP/LogGP the send is done when its overhead is; under
             * postal and lbp it is timed like a put. */
            FennelTime done = contended ? local : arrival;
            complete(run, task, slot, t, local, done, eager ? local : done, host);
        }
        return;
    }
    if (contended) {
        Message msg = {.task = task, .leg = 0, .local = local, .aux = t, .slot = slot};
        uint32_t id = push_message(run, arrival, &msg);
        if (late)
            route_unshared(run, id, src, dst, t, arrival, bytes);
        return;
    }
    if (type == FENNEL_TASK_PUT) {
        /* The data is there for the target at the arrival; an eager sender goes on at once. */
        complete(run, task, slot, t, local, arrival, eager ? local : arrival, host);
        return;
    }
    /* A get without contention: the target's NIC answers at once. */
    const int64_t *rparams;
    const FennelNetworkClass *rnet = network_for(m, dst, src, &rparams);
    FennelMessageTiming rt;
    pair_timing(run, rnet, rparams, p->amount[task], dst, src, &rt);
    if (G_UNLIKELY(crosses(m, dst, src)))
        rt.wire = fennel__topology_wire(run, task, 1, dst, src, arrival, p->amount[task],
                                        (rnet->flags & FENNEL_NET_NIC_BYTES) != 0);
    else if (G_UNLIKELY(through_ports(m, dst, src)))
        rt.wire = port_wire(run, rnet, rparams, task, dst, src, arrival, p->amount[task], rt.wire);
    FennelTime back_noise = noise(run, FENNEL_NOISE_NETWORK, task, 1);
    FennelTime back = add(run, task, arrival, noisy(rt.wire, back_noise));
    emit_message(run, task, dst, src, arrival, back, p->amount[task], back_noise, 0);
    if (net->flags & FENNEL_NET_SENDER_WAITS) {
        local = back;
        slots_of(m, src)[slot] = local;
    }
    complete(run, task, slot, t, local, arrival, back, host);
}

static void deliver(Run *run, uint32_t id, FennelTime t, FennelTime ready);

/* A message event (its queue entry's key): a put's data or a get's request or response
 * reaching a contended rank, or any two-sided message reaching its receiver. */
void fennel__engine_receive(Run *run, uint32_t id, uint64_t key, FennelTime t)
{
    FennelMachine *m = run->m;
    const FennelProgram *p = run->p;
    Message msg = *message_of(run, id);
    if (G_UNLIKELY(msg.state == MESSAGE_TAKEN))
        return; /* a stale entry (engine_wait.c) */
    const uint32_t task = msg.task;
    const FennelTaskType type = p->type[task];
    const uint32_t issuer = p->rank[task];
    const uint32_t src = msg.leg ? p->peer[task] : issuer, dst = msg.leg ? issuer : p->peer[task];
    const int64_t *params;
    const FennelNetworkClass *net = network_for(m, src, dst, &params);
    const gboolean contended = (net->flags & FENNEL_NET_CONTENDED) != 0;
    int64_t bytes = type == FENNEL_TASK_GET && msg.leg == 0 ? p->request[task] : p->amount[task];
    FennelMessageTiming mt;
    pair_timing(run, net, params, bytes, src, dst, &mt);

    /* A get's request only needs the target's NIC: no host is involved. */
    const gboolean needs_slot = !(type == FENNEL_TASK_GET && msg.leg == 0);
    uint32_t slot = 0;
    FennelTime ready = t;
    if (contended) {
        /* The slot with the sender's number, as LogGOPSim charges the receive to the CPU
         * index the message carries (a get's response: the issuer's own slot); a get's
         * request needs the NIC alone. A message that finds them busy waits for them in
         * its class's wait list (engine_wait.c). */
        const uint32_t cls =
            message_class(run, needs_slot ? msg.slot % m->processes : m->processes);
        if (G_UNLIKELY(msg.state == MESSAGE_WAITING)) {
            if (!fennel__wait_take(run, dst, cls, key, t))
                return;
        }
        FennelTime earliest = wait_earliest(run, dst, cls, &slot);
        if (earliest > t) {
            message_of(run, id)->state = MESSAGE_WAITING;
            if (!fennel__wait_park(run, dst, cls, key, earliest)) {
                message_of(run, id)->state = msg.state;
                fennel_queue_push(&run->queue, earliest, key);
            }
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
        message_of(run, id)->state = MESSAGE_TAKEN;
        if (G_UNLIKELY(msg.state == MESSAGE_WAITING))
            fennel__wait_next(run, dst, cls, t);
        if (G_UNLIKELY(run->routes != NULL) && (net->flags & FENNEL_NET_NIC_BYTES) &&
            crosses(m, src, dst)) {
            /* On a topology the bytes must also have crossed the links (docs/TOPOLOGY.md). */
            MessageNic *nic = &run->route_nics[id];
            nic->taken = t;
            nic->due = add(run, task, t, mt.nic_bytes);
            nic->ready = ready;
            if (route_of(run, id)->tail != FENNEL_TIME_MIN)
                fennel__engine_deliver_late(run, id);
            /* else a flow still under way: fennel__topology_tail delivers it. */
            return;
        }
    }
    deliver(run, id, t, ready);
}

void fennel__engine_deliver_late(Run *run, uint32_t id)
{
    MessageRoute *route = route_of(run, id);
    const MessageNic *nic = &run->route_nics[id];
    const Message *msg = message_of(run, id);
    const FennelProgram *p = run->p;
    const uint32_t task = msg->task;
    const uint32_t issuer = p->rank[task];
    const uint32_t src = msg->leg ? p->peer[task] : issuer, dst = msg->leg ? issuer : p->peer[task];
    const int64_t bytes =
        p->type[task] == FENNEL_TASK_GET && msg->leg == 0 ? p->request[task] : p->amount[task];
    const FennelTime late = MAX(route->tail - nic->due, 0);
    route->waited += late;
    if (run->m->routed)
        run->m->link_wait += late;
    emit_message(run, task, src, dst, route->sent, nic->head, bytes,
                 noise(run, FENNEL_NOISE_NETWORK, task, msg->leg), route->waited);
    deliver(run, id, add(run, task, nic->taken, late), add(run, task, nic->ready, late));
}

/* A message received at t, its data there at `ready`: what it completes or sends. */
static void deliver(Run *run, uint32_t id, FennelTime t, FennelTime ready)
{
    FennelMachine *m = run->m;
    const FennelProgram *p = run->p;
    Message msg = *message_of(run, id);
    const uint32_t task = msg.task;
    const FennelTaskType type = p->type[task];
    const uint32_t issuer = p->rank[task];
    const uint32_t src = msg.leg ? p->peer[task] : issuer, dst = msg.leg ? issuer : p->peer[task];
    switch (type) {
    case FENNEL_TASK_PUT:
        if (p->flags[task] & FENNEL_TASK_BLOCKING)
            hold_slot(run, task, issuer, msg.slot, ready);
        /* The host noise in its send overhead, sampled again (a sample is a pure function
         * of the task): the completion event records it, as an uncontended put's does. */
        complete(run, task, msg.slot, msg.aux, msg.local, ready, ready,
                 noise(run, FENNEL_NOISE_HOST, task, 0));
        break;
    case FENNEL_TASK_GET:
        if (msg.leg == 0) {
            /* The target's NIC sends the data back as soon as its send gap allows. */
            const int64_t *rparams;
            const FennelNetworkClass *rnet = network_for(m, dst, src, &rparams);
            FennelMessageTiming rt;
            pair_timing(run, rnet, rparams, p->amount[task], dst, src, &rt);
            FennelTime leave = MAX(t, m->nic_send[dst]);
            m->nic_send[dst] = add(run, task, leave, rt.gap);
            emit_busy(run, task, dst, 0, FENNEL_BUSY_NIC_SEND, leave, m->nic_send[dst]);
            if (G_UNLIKELY(crosses(m, dst, src))) {
                if (m->routed) {
                    Message response = msg;
                    response.leg = 1;
                    response.state = MESSAGE_FLYING;
                    response.ready = t;
                    uint32_t rid = message_new(run, &response);
                    route_new(run, rid,
                              (MessageRoute){.held = route_of(run, id)->held, .sent = leave});
                    if (run->route_nics)
                        run->route_nics[rid].taken = FENNEL_TIME_MIN;
                    fennel__topology_send(run, rid, dst, src, t, leave);
                    break;
                }
                rt.wire = fennel__topology_wire(run, task, 1, dst, src, leave, p->amount[task],
                                                (rnet->flags & FENNEL_NET_NIC_BYTES) != 0);
            }
            FennelTime back_noise = noise(run, FENNEL_NOISE_NETWORK, task, 1);
            FennelTime back = add(run, task, leave, noisy(rt.wire, back_noise));
            const gboolean late = crosses(m, dst, src) && (rnet->flags & FENNEL_NET_NIC_BYTES) != 0;
            if (!late)
                emit_message(run, task, dst, src, leave, back, p->amount[task], back_noise, 0);
            Message response = msg;
            response.leg = 1;
            response.state = MESSAGE_FLYING;
            response.ready = t; /* when the request reached the target */
            uint32_t rid = push_message(run, back, &response);
            if (late)
                route_unshared(run, rid, dst, src, leave, back, p->amount[task]);
        } else {
            complete(run, task, msg.slot, msg.aux, msg.local, msg.ready, ready,
                     noise(run, FENNEL_NOISE_HOST, task, 0));
        }
        break;
    case FENNEL_TASK_SEND: {
        message_of(run, id)->ready = ready;
        uint32_t tag = p->tag ? p->tag[task] : 0;
        uint32_t recv = fennel_match_arrive(run->match, dst, src, tag, id);
        if (recv != FENNEL_MATCH_NONE)
            fennel__engine_meet(run, recv, id, run->tasks[recv].ready, t);
        break;
    }
    default:
        g_assert_not_reached();
    }
}
