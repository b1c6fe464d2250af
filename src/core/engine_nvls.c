/* Operations of an NVLink switch (NVLS, docs/SEMANTICS.md): a load-reduce (the switch reads
 * the same bytes from every rank of a group, reduces them and returns the result to the
 * issuer) and a multicast (the issuer writes once, the switch delivers to every rank of the
 * group). Either is a tree of links of the group's switch: its first stage is the links into
 * the switch (a load-reduce: every member's; a multicast: the issuer's), its second the links
 * out of it (the issuer's; every member's). The switch streams what it reduces or copies, so
 * the tree moves the operation's bytes as one message whose head enters every link of a stage
 * at once: without contention it takes the latencies of its two stages and its bytes over its
 * narrowest link; under `endpoint` and `links` each link is a first-come first-served server
 * (the first stage's links entered when the operation starts, the second's when the head
 * reaches the switch, a KIND_HOP event); under `fair` it is one flow over all its links. A
 * rail's `nvls_bandwidth` slows the operation's bytes on each link to that rate (a byte takes
 * the link for the longer of its two times per byte, fennel__tree_rate). The issuer's slot is
 * held until the last byte has arrived. The network model's overheads do not apply: no CPU or
 * NIC takes part. */
#include "engine_private.h"

/* The links of stage `stage` (0 into the switch, 1 out of it) of switch task t's tree, into
 * links (room for the group's size); returns their number. */
uint32_t fennel__tree_links(const Run *run, uint32_t t, unsigned stage, uint32_t *links)
{
    const FennelProgram *p = run->p;
    const FennelMachine *m = run->m;
    const gboolean every = (p->type[t] == FENNEL_TASK_LOAD_REDUCE) == (stage == 0);
    if (!every) {
        const uint32_t port = port_of(m, p->rank[t]);
        links[0] = stage == 0 ? fennel_network_up(port) : fennel_network_down(port);
        return 1;
    }
    const uint32_t first = p->peer[t], size = p->tag[t];
    for (uint32_t i = 0; i < size; i++) {
        const uint32_t port = port_of(m, first + i);
        links[i] = stage == 0 ? fennel_network_up(port) : fennel_network_down(port);
    }
    return size;
}

/* A stage's latency: its slowest link's (a node link each). */
static FennelTime stage_latency(const Run *run, const uint32_t *links, uint32_t n)
{
    FennelTime latency = 0;
    for (uint32_t i = 0; i < n; i++)
        latency = MAX(latency, fennel_network_latency(run->m->net, links[i], 0));
    return latency;
}

FennelTime fennel__tree_latency(const Run *run, uint32_t t)
{
    uint32_t *links = g_new(uint32_t, run->p->tag[t]);
    FennelTime latency = stage_latency(run, links, fennel__tree_links(run, t, 0, links));
    latency += stage_latency(run, links, fennel__tree_links(run, t, 1, links));
    g_free(links);
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
        uint32_t *links = g_new(uint32_t, p->tag[task]);
        FennelRate slowest = 0;
        for (unsigned stage = 0; stage < 2; stage++) {
            const uint32_t n = fennel__tree_links(run, task, stage, links);
            for (uint32_t i = 0; i < n; i++)
                slowest = MAX(slowest, fennel__tree_rate(m->net, links[i]));
        }
        g_free(links);
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

/* Under `endpoint` and `links`: the links of a stage, entered by the head at t, each a
 * first-come first-served server busy for the bytes' time; returns when the head leaves
 * the stage and raises *tail to when its last byte does. */
static FennelTime serial_stage(Run *run, uint32_t id, unsigned stage, FennelTime t,
                               FennelTime *tail)
{
    FennelMachine *m = run->m;
    const FennelProgram *p = run->p;
    const uint32_t task = message_of(run, id)->task;
    const int64_t bytes = p->amount[task];
    uint32_t *links = g_new(uint32_t, p->tag[task]);
    const uint32_t n = fennel__tree_links(run, task, stage, links);
    FennelTime head = t, last = *tail;
    for (uint32_t i = 0; i < n; i++) {
        const uint32_t l = link_index(m, links[i]); /* may move link_state */
        LinkState *ls = &m->link_state[l];
        const FennelTime start = MAX(t, ls->free);
        const FennelTime x = fennel_model_quantise(
            m->model, fennel_as_bytes(bytes, fennel__tree_rate(m->net, links[i])));
        const FennelTime latency = fennel_network_latency(m->net, links[i], 0);
        ls->free = add(run, task, start, x);
        FennelLinkStats *st = &ls->stats;
        st->bytes += (uint64_t)bytes;
        st->messages++;
        st->busy += x;
        st->wait += start - t;
        st->longest = MAX(st->longest, start - t);
        m->link_wait += start - t;
        route_of(run, id)->waited += start - t;
        if (G_UNLIKELY(m->mask & FENNEL_EVENT_LINK)) {
            /* The member whose link it is, as the peer. */
            const gboolean every = (p->type[task] == FENNEL_TASK_LOAD_REDUCE) == (stage == 0);
            const uint32_t member = every ? p->peer[task] + i : p->rank[task];
            FennelEvent ev = {.kind = FENNEL_EVENT_LINK,
                              .task = task,
                              .rank = p->rank[task],
                              .peer = member,
                              .slot = links[i],
                              .time = start,
                              .until = ls->free,
                              .bytes = bytes,
                              .link_wait = start - t};
            emit(m, p, &ev);
        }
        /* Cut-through, as a message's hop: the head leaves after the latency, the tail after
         * the slowest part of the pipeline. */
        head = MAX(head, add(run, task, start, latency));
        last = MAX(last, add(run, task, MAX(*tail, add(run, task, start, x)), latency));
    }
    g_free(links);
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
        /* Every member on a port of its own, all of them on one switch. */
        uint32_t sw = FENNEL_NO_RANK;
        for (uint32_t i = 0; i < p->tag[t]; i++) {
            const uint32_t r = p->peer[t] + i, port = port_of(m, r);
            uint32_t from, to, level;
            fennel_network_link(m->net, fennel_network_up(port), &from, &to, &level);
            for (uint32_t j = 0; j < i; j++) {
                if (port_of(m, p->peer[t] + j) == port) {
                    g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_RUN,
                                "task '%s': ranks %u and %u of its group share a port of the "
                                "topology; a %s needs one GPU per port",
                                fennel_program_task_name(p, t, buf), p->peer[t] + j, r, what);
                    return FALSE;
                }
            }
            if (sw != FENNEL_NO_RANK && to != sw) {
                g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_RUN,
                            "task '%s': ranks %u and %u of its group are on different switches "
                            "of the topology; a %s is done by one switch",
                            fennel_program_task_name(p, t, buf), p->peer[t], r, what);
                return FALSE;
            }
            sw = to;
        }
    }
    return TRUE;
}
