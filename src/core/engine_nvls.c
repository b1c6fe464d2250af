/* Operations of a switch (NVLS and SHARP, docs/SEMANTICS.md): a load-reduce (the switch reads
 * the same bytes from every rank of a group, reduces them and returns the result to the
 * issuer, or to every rank of the group: FENNEL_TASK_ALLREDUCE) and a multicast (the issuer
 * writes once, the switch delivers to every rank of the group). Either is a tree of links of
 * the group's switch: its first stage is the ways into the switch (a load-reduce: every
 * member's; a multicast: the issuer's), its second the ways out of it (the issuer's; every
 * member's, and a load-reduce's to every member). A way is a member's NVLink port at its
 * server's NVSwitch, or, for a group of one GPU on each of several servers of one rail of a
 * `rail` topology whose leaves reduce (`sharp`), the GPU's link to its NIC and the NIC's cable
 * to the rail's leaf (SHARP), two links one after the other. The switch streams what it
 * reduces or copies, so the tree moves the operation's bytes as one message whose head enters
 * every way of a stage at once: without contention it takes the latencies of its two stages
 * (each its slowest way's) and its bytes over its narrowest link; under `endpoint` and `links`
 * each link is a first-come first-served server (the first stage's ways entered when the
 * operation starts, the second's when the head reaches the switch, a KIND_HOP event; within a
 * way, its second link when the head leaves the first); under `fair` it is one flow over all
 * its links. A rail's `nvls_bandwidth` slows the operation's bytes on each NVLink port to that
 * rate (a byte takes the link for the longer of its two times per byte, fennel__tree_rate).
 * The issuer's slot is held until the last byte has arrived. The network model's overheads do
 * not apply: no CPU or NIC takes part. */
#include "engine_private.h"

/* Whether switch task t runs at a rail's leaf (its group spans servers of a rail topology
 * whose leaves reduce) rather than at an NVSwitch (or any other topology's switch). */
static gboolean at_leaf(const FennelMachine *m, const FennelProgram *p, uint32_t t)
{
    return m->net->sharp &&
           fennel_network_server(m->net, port_of(m, p->peer[t])) !=
               fennel_network_server(m->net, port_of(m, fennel_program_group_last(p, t)));
}

uint32_t fennel__tree_way(const Run *run, uint32_t t)
{
    return at_leaf(run->m, run->p, t) ? 2 : 1;
}

/* Member i's way at stage `stage` into links and levels (fennel__tree_way of them). */
static void way(const Run *run, uint32_t t, uint32_t member, unsigned stage, uint32_t *links,
                uint32_t *levels)
{
    const FennelMachine *m = run->m;
    const uint32_t port = port_of(m, member);
    if (!at_leaf(m, run->p, t)) {
        links[0] = stage == 0 ? fennel_network_up(port) : fennel_network_down(port);
        if (levels)
            levels[0] = 0;
        return;
    }
    uint32_t up[2], down[2], level[2];
    fennel_network_leaf_way(m->net, port, up, down, level);
    for (unsigned k = 0; k < 2; k++) {
        links[k] = stage == 0 ? up[k] : down[k];
        if (levels)
            levels[k] = stage == 0 ? level[k] : level[1 - k];
    }
}

/* Whether stage `stage` of switch task t takes every member's way (else the issuer's). */
static gboolean every_member(const FennelProgram *p, uint32_t t, unsigned stage)
{
    if (p->type[t] == FENNEL_TASK_LOAD_REDUCE)
        return stage == 0 || (p->flags[t] & FENNEL_TASK_ALLREDUCE);
    return stage == 1;
}

/* The member whose way is the i-th of stage `stage`. */
static uint32_t member_of(const FennelProgram *p, uint32_t t, unsigned stage, uint32_t i)
{
    return every_member(p, t, stage) ? p->peer[t] + i * fennel_program_stride(p, t) : p->rank[t];
}

/* The links of stage `stage` (0 into the switch, 1 out of it) of switch task t's tree, way
 * after way (room for the group's size x 2), and their levels if asked; returns their number. */
uint32_t fennel__tree_links(const Run *run, uint32_t t, unsigned stage, uint32_t *links,
                            uint32_t *levels)
{
    const FennelProgram *p = run->p;
    const uint32_t per = fennel__tree_way(run, t);
    const uint32_t ways = every_member(p, t, stage) ? p->tag[t] : 1;
    for (uint32_t i = 0; i < ways; i++)
        way(run, t, member_of(p, t, stage, i), stage, links + i * per,
            levels ? levels + i * per : NULL);
    return ways * per;
}

/* A stage's latency: its slowest way's, a way's being the sum of its links'. */
static FennelTime stage_latency(const Run *run, const uint32_t *links, const uint32_t *levels,
                                uint32_t n, uint32_t per)
{
    FennelTime latency = 0;
    for (uint32_t i = 0; i < n; i += per) {
        FennelTime way_latency = 0;
        for (uint32_t k = 0; k < per; k++)
            way_latency += fennel_network_latency(run->m->net, links[i + k], levels[i + k]);
        latency = MAX(latency, way_latency);
    }
    return latency;
}

FennelTime fennel__tree_latency(const Run *run, uint32_t t)
{
    const uint32_t per = fennel__tree_way(run, t);
    uint32_t *links = g_new(uint32_t, 2 * (size_t)run->p->tag[t]);
    uint32_t *levels = g_new(uint32_t, 2 * (size_t)run->p->tag[t]);
    FennelTime latency = 0;
    for (unsigned stage = 0; stage < 2; stage++) {
        const uint32_t n = fennel__tree_links(run, t, stage, links, levels);
        latency += stage_latency(run, links, levels, n, per);
    }
    g_free(links);
    g_free(levels);
    return latency;
}

/* The operation is done: its last byte arrived at `done` (now being t). */
void fennel__tree_done(Run *run, uint32_t id, FennelTime t, FennelTime done)
{
    const Message *msg = message_of(run, id);
    const uint32_t task = msg->task;
    fennel__wait_release(run, run->p->rank[task], msg->slot, done, t);
    complete(run, task, msg->slot, msg->aux, done, done, done, 0);
}

void fennel__engine_start_tree(Run *run, uint32_t task, uint32_t slot, FennelTime t)
{
    FennelMachine *m = run->m;
    const FennelProgram *p = run->p;
    const int64_t bytes = p->amount[task];
    if (!m->routed) {
        /* Without contention: both stages' latencies, then the bytes over the narrowest link
         * of the tree. */
        uint32_t *links = g_new(uint32_t, 2 * (size_t)p->tag[task]);
        uint32_t *levels = g_new(uint32_t, 2 * (size_t)p->tag[task]);
        FennelRate slowest = 0;
        for (unsigned stage = 0; stage < 2; stage++) {
            const uint32_t n = fennel__tree_links(run, task, stage, links, levels);
            for (uint32_t i = 0; i < n; i++)
                slowest = MAX(slowest, fennel__tree_rate(m->net, links[i], levels[i]));
        }
        g_free(links);
        g_free(levels);
        const FennelTime wire = fennel_model_quantise(
            m->model, fennel_as(fennel__tree_latency(run, task)) + fennel_as_bytes(bytes, slowest));
        const FennelTime done = add(run, task, t, wire);
        slots_of(m, p->rank[task])[slot] = done;
        complete(run, task, slot, t, done, done, done, 0);
        return;
    }
    slots_of(m, p->rank[task])[slot] = FENNEL_TIME_MAX;
    Message msg = {.task = task, .slot = (uint16_t)slot, .local = t, .aux = t};
    const uint32_t id = message_new(run, &msg);
    route_new(run, id, (MessageRoute){.held = TRUE, .sent = t, .tail = FENNEL_TIME_MIN});
    m->level->tree_send(run, id, t);
}

/* Under `endpoint` and `links`: the ways of a stage, entered by the head at t, each link a
 * first-come first-served server busy for the bytes' time (a way's second link entered when
 * the head leaves its first); returns when the head leaves the stage and raises *tail to
 * when its last byte does. */
static FennelTime serial_stage(Run *run, uint32_t id, unsigned stage, FennelTime t,
                               FennelTime *tail)
{
    FennelMachine *m = run->m;
    const FennelProgram *p = run->p;
    const uint32_t task = message_of(run, id)->task;
    const int64_t bytes = p->amount[task];
    const uint32_t per = fennel__tree_way(run, task);
    uint32_t *links = g_new(uint32_t, 2 * (size_t)p->tag[task]);
    uint32_t *levels = g_new(uint32_t, 2 * (size_t)p->tag[task]);
    const uint32_t n = fennel__tree_links(run, task, stage, links, levels);
    FennelTime head = t, last = *tail;
    for (uint32_t w = 0; w < n; w += per) {
        /* Cut-through, as a message's hops: the head leaves a link after its latency, the
         * tail after the slowest part of the pipeline. */
        FennelTime at = t, behind = *tail;
        for (uint32_t k = 0; k < per; k++) {
            const uint32_t i = w + k;
            const uint32_t l = link_index(m, links[i]); /* may move link_state */
            LinkState *ls = &m->link_state[l];
            const FennelTime start = MAX(at, ls->free);
            const FennelTime x = fennel_model_quantise(
                m->model, fennel_as_bytes(bytes, fennel__tree_rate(m->net, links[i], levels[i])));
            const FennelTime latency = fennel_network_latency(m->net, links[i], levels[i]);
            ls->free = add(run, task, start, x);
            FennelLinkStats *st = &ls->stats;
            st->bytes += (uint64_t)bytes;
            st->messages++;
            st->busy += x;
            st->wait += start - at;
            st->longest = MAX(st->longest, start - at);
            m->link_wait += start - at;
            route_of(run, id)->waited += start - at;
            if (G_UNLIKELY(m->mask & FENNEL_EVENT_LINK)) {
                /* The member whose link it is, as the peer. */
                FennelEvent ev = {.kind = FENNEL_EVENT_LINK,
                                  .task = task,
                                  .rank = p->rank[task],
                                  .peer = member_of(p, task, stage, w / per),
                                  .slot = links[i],
                                  .time = start,
                                  .until = ls->free,
                                  .bytes = bytes,
                                  .link_wait = start - at};
                emit(m, p, &ev);
            }
            behind = add(run, task, MAX(behind, add(run, task, start, x)), latency);
            at = add(run, task, start, latency);
        }
        head = MAX(head, at);
        last = MAX(last, behind);
    }
    g_free(links);
    g_free(levels);
    *tail = last;
    return head;
}

void fennel__serial_tree_send(Run *run, uint32_t id, FennelTime t)
{
    MessageRoute *route = route_of(run, id);
    FennelTime tail = FENNEL_TIME_MIN;
    const FennelTime head = serial_stage(run, id, 0, t, &tail);
    route->tail = tail;
    /* The links out of the switch serve heads in the order they reach them: an event. */
    fennel_queue_push(&run->queue, head, KIND_HOP << KIND_SHIFT | id);
}

void fennel__serial_tree_hop(Run *run, uint32_t id, FennelTime t)
{
    FennelTime tail = route_of(run, id)->tail;
    serial_stage(run, id, 1, t, &tail);
    fennel__tree_done(run, id, t, tail);
}

gboolean fennel__tree_check(const FennelMachine *m, const FennelProgram *p, GError **error)
{
    char buf[24];
    for (uint32_t t = 0; t < p->n_tasks; t++) {
        if (p->type[t] != FENNEL_TASK_LOAD_REDUCE && p->type[t] != FENNEL_TASK_MULTICAST)
            continue;
        const char *what = fennel_task_type_name(p->type[t]);
        if (m->net == NULL) {
            g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_RUN,
                        "task '%s': a %s needs a topology (its group's switch); the model has "
                        "none",
                        fennel_program_task_name(p, t, buf), what);
            return FALSE;
        }
        if (m->changed != NULL) {
            g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_RUN,
                        "task '%s': a %s cannot be timed with failing or slow links",
                        fennel_program_task_name(p, t, buf), what);
            return FALSE;
        }
        if (at_leaf(m, p, t)) {
            /* At a rail's leaf (SHARP): one member per server, all on the leaf of one rail. */
            uint32_t up[2], down[2], level[2], leaf = FENNEL_LINK_NONE;
            for (uint32_t i = 0; i < p->tag[t]; i++) {
                const uint32_t r = p->peer[t] + i * fennel_program_stride(p, t);
                const uint32_t port = port_of(m, r);
                /* at_leaf: a rail topology whose leaves reduce, so every GPU has a way */
                const uint32_t at = fennel_network_leaf_way(m->net, port, up, down, level);
                if (i > 0 && fennel_network_server(m->net, port) ==
                                 fennel_network_server(
                                     m->net, port_of(m, r - fennel_program_stride(p, t)))) {
                    g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_RUN,
                                "task '%s': ranks %u and %u of its group are on one server; a "
                                "%s at a rail's leaf takes one GPU of each server",
                                fennel_program_task_name(p, t, buf),
                                r - fennel_program_stride(p, t), r, what);
                    return FALSE;
                }
                if (leaf != FENNEL_LINK_NONE && at != leaf) {
                    g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_RUN,
                                "task '%s': ranks %u and %u of its group are on different rails; "
                                "a %s is done by one rail's leaf",
                                fennel_program_task_name(p, t, buf), p->peer[t], r, what);
                    return FALSE;
                }
                leaf = at;
            }
            continue;
        }
        /* Every member on a port of its own, all of them on one switch. */
        const uint32_t stride = fennel_program_stride(p, t);
        uint32_t sw = FENNEL_NO_RANK;
        for (uint32_t i = 0; i < p->tag[t]; i++) {
            const uint32_t r = p->peer[t] + i * stride, port = port_of(m, r);
            uint32_t from, to, level;
            fennel_network_link(m->net, fennel_network_up(port), &from, &to, &level);
            for (uint32_t j = 0; j < i; j++) {
                if (port_of(m, p->peer[t] + j * stride) == port) {
                    g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_RUN,
                                "task '%s': ranks %u and %u of its group share a port of the "
                                "topology; a %s needs one GPU per port",
                                fennel_program_task_name(p, t, buf), p->peer[t] + j * stride, r,
                                what);
                    return FALSE;
                }
            }
            if (sw != FENNEL_NO_RANK && to != sw) {
                g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_RUN,
                            "task '%s': ranks %u and %u of its group are on different switches "
                            "of the topology; a %s is done by one switch%s",
                            fennel_program_task_name(p, t, buf), p->peer[t], r, what,
                            m->net->kind == FENNEL_TOPOLOGY_RAIL
                                ? " (across servers, a rail's leaf with `sharp: true`)"
                                : "");
                return FALSE;
            }
            sw = to;
        }
    }
    return TRUE;
}
