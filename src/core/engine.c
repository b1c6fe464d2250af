/* The machine and the event loop (docs/SEMANTICS.md): tasks are popped in (time, program order),
 * wait for their slots, run, and hand their completion times to their successors. */
#include "engine_private.h"

#include "capacity.h"

/* Where nodes have several NICs: rank r's is NIC (its place on its node) mod the node's NIC
 * count, its place being r mod ranks_per_node in the linear order, r / nodes in the
 * round-robin one, and its position mod ranks_per_node in a list (docs/TOPOLOGY.md, Graphs). */
static void place_ports(FennelMachine *m, const FennelModel *model, uint32_t nodes)
{
    m->port = g_new(uint32_t, m->ranks);
    for (uint32_t r = 0; r < m->ranks; r++) {
        const uint32_t place = model->order == FENNEL_ORDER_ROUND_ROBIN ? r / nodes
                               : model->order == FENNEL_ORDER_LIST
                                   ? model->order_list[r] % m->ranks_per_node
                                   : r % m->ranks_per_node;
        const uint32_t node = node_of(m, r);
        m->port[r] = fennel_network_port(m->net, node, place % fennel_network_nics(m->net, node));
    }
}

FennelMachine *fennel_machine_new(uint32_t ranks, uint32_t processes, const FennelModel *model)
{
    FennelMachine *m = g_new0(FennelMachine, 1);
    m->ranks = ranks ? ranks : 1;
    m->processes = processes ? processes : 1;
    m->slot = g_new0(FennelTime, (size_t)m->ranks * m->processes);
    m->nic_send = g_new0(FennelTime, m->ranks);
    m->nic_recv = g_new0(FennelTime, m->ranks);
    m->model = model;
    m->ranks_per_node = model->ranks_per_node ? model->ranks_per_node : 1;
    const uint32_t nodes = (m->ranks + m->ranks_per_node - 1) / m->ranks_per_node;
    if (model->order == FENNEL_ORDER_LIST && model->n_order != m->ranks) {
        m->net_error = g_strdup_printf("order: the list has %u positions, the program %u ranks",
                                       model->n_order, m->ranks);
    } else if (model->order != FENNEL_ORDER_LINEAR) {
        m->node = g_new(uint32_t, m->ranks);
        for (uint32_t r = 0; r < m->ranks; r++)
            m->node[r] = model->order == FENNEL_ORDER_ROUND_ROBIN
                             ? r % nodes
                             : model->order_list[r] / m->ranks_per_node;
    }
    if ((model->nic_shared || model->half_duplex) && model->topology == NULL) {
        const uint32_t ports = model->nic_shared ? nodes : m->ranks;
        m->port_out = g_new0(FennelTime, ports);
        m->port_in = g_new0(FennelTime, ports);
        if (model->half_duplex) {
            m->port_drain = g_new0(FennelTime, ports);
            m->port_dir = g_new0(uint8_t, ports);
            m->port_sent = g_new0(FennelTime, ports);
            m->port_got = g_new0(FennelTime, ports);
        }
    }
    m->level = &fennel__contention_levels[model->contention];
    g_assert(m->level->level == model->contention); /* every level has its row */
    m->left_out = FENNEL_NO_RANK;
    if (model->topology && m->net_error == NULL) {
        m->net = fennel_network_build(model->topology, nodes, &m->net_error);
        m->routed = m->net && m->level->routed;
        if (m->net && m->net->ports != m->net->nodes)
            place_ports(m, model, nodes);
        if (m->routed) {
            m->link_pages = g_new0(uint32_t *, m->net->links / LINK_PAGE + 1);
        }
    }
    return m;
}

void fennel_machine_free(FennelMachine *m)
{
    if (m == NULL)
        return;
    g_free(m->slot);
    g_free(m->nic_send);
    g_free(m->nic_recv);
    g_free(m->port_in);
    g_free(m->port_out);
    g_free(m->port_drain);
    g_free(m->port_sent);
    g_free(m->port_got);
    g_free(m->port_dir);
    if (m->link_pages) {
        for (uint32_t i = 0; i <= m->net->links / LINK_PAGE; i++)
            g_free(m->link_pages[i]);
        g_free(m->link_pages);
    }
    fennel_network_free(m->net);
    g_free(m->net_error);
    g_free(m->node);
    g_free(m->port);
    free(m->link_state);
    g_free(m->link_number);
    fennel__faults_free(m);
    g_free(m);
}

void fennel_machine_set_seed(FennelMachine *m, uint64_t seed)
{
    m->seed = seed;
}

void fennel_machine_add_instrument(FennelMachine *m, const FennelInstrument *instrument)
{
    g_return_if_fail(m->n_instruments < MAX_INSTRUMENTS);
    m->instruments[m->n_instruments++] = *instrument;
    m->mask |= instrument->mask;
}

FennelTime fennel_machine_slot_time(const FennelMachine *m, uint32_t rank, uint32_t slot)
{
    return m->slot[(size_t)rank * m->processes + slot];
}

FennelTime fennel_machine_makespan(const FennelMachine *m)
{
    return m->makespan;
}

const FennelNetwork *fennel_machine_network(const FennelMachine *m)
{
    return m->net;
}

gboolean fennel_machine_shares_links(const FennelMachine *m)
{
    return m->routed;
}

const FennelLinkStats *fennel_machine_link_stats(const FennelMachine *m, uint32_t link)
{
    if (!m->routed || link >= m->net->links)
        return NULL;
    const uint32_t *page = m->link_pages[link >> LINK_PAGE_BITS];
    const uint32_t d = page ? page[link & (LINK_PAGE - 1)] : 0;
    return d ? &m->link_state[d - 1].stats : NULL;
}

uint32_t *fennel_machine_links_used(const FennelMachine *m, uint32_t *count)
{
    /* In increasing number: the link table's pages in order (a hash's routes give the
     * dense indices in any order, and sorting them took a twentieth of a run). */
    uint32_t *ids = g_new(uint32_t, MAX(m->links_used, 1u)), n = 0;
    for (uint32_t i = 0; m->link_pages && i <= m->net->links / LINK_PAGE; i++) {
        const uint32_t *page = m->link_pages[i];
        for (uint32_t k = 0; page && k < LINK_PAGE; k++) {
            if (page[k] != 0 && m->link_state[page[k] - 1].stats.messages > 0)
                ids[n++] = i * LINK_PAGE + k;
        }
    }
    *count = n;
    return ids;
}

/* The link states grown to `room`: aligned to a cache line, so that a hop touches one,
 * and from 4 MiB on to a huge page and backed by huge pages (capacity.h), since hops read
 * them in any order. */
static LinkState *grow_states(LinkState *old, uint32_t used, uint32_t room)
{
    const size_t bytes = (size_t)room * sizeof(LinkState);
    const size_t align = bytes >= (4u << 20) ? (2u << 20) : 64;
    void *block;
    if (posix_memalign(&block, align, bytes) != 0)
        g_error("out of memory: %zu bytes for the links' state", bytes);
    fennel_huge_pages(block, bytes);
    if (used > 0)
        memcpy(block, old, (size_t)used * sizeof(LinkState));
    free(old);
    return block;
}

uint32_t fennel__link_add(FennelMachine *m, uint32_t l)
{
    if (m->links_used == m->links_room) {
        /* The run's estimate (check_links) covers what is allocated here. */
        m->links_room = MAX(2 * m->links_room, 64u);
        m->link_state = grow_states(m->link_state, m->links_used, m->links_room);
        m->link_number = g_renew(uint32_t, m->link_number, m->links_room);
    }
    m->link_number[m->links_used] = l;
    uint32_t **page = &m->link_pages[l >> LINK_PAGE_BITS];
    if (*page == NULL)
        *page = g_new0(uint32_t, LINK_PAGE);
    const uint32_t index = m->links_used++;
    (*page)[l & (LINK_PAGE - 1)] = index + 1;
    m->link_state[index] = (LinkState){0};
    return index;
}

FennelTime fennel_machine_link_wait(const FennelMachine *m)
{
    return m->link_wait;
}

uint64_t fennel_machine_events(const FennelMachine *m)
{
    return m->events;
}

/* Runs a task whose resources are free at t on `slot`. */
static void run_task(Run *run, uint32_t task, uint32_t slot, FennelTime t);

/* The slot a receive is posted on without waiting (ordering: loggopsim). */
static uint32_t recv_slot(const Run *run, uint32_t task)
{
    const FennelProgram *p = run->p;
    return p->pin && p->pin[task] != FENNEL_NO_RANK ? p->pin[task] % run->m->processes : 0;
}

/* A popped task whose resources are busy until `earliest` waits in its class's wait list
 * (engine_wait.c), or is queued again at `earliest` when it may not wait behind the list. */
static void wait_for(Run *run, uint32_t task, uint32_t rank, uint32_t cls, uint64_t key,
                     FennelTime t, FennelTime earliest)
{
    FennelMachine *m = run->m;
    /* A slot held for a message still crossing the topology has no known end yet. */
    if ((m->mask & FENNEL_EVENT_DELAYED) && earliest != FENNEL_TIME_MAX) {
        FennelEvent ev = {
            .kind = FENNEL_EVENT_DELAYED, .task = task, .rank = rank, .time = t, .until = earliest};
        emit(m, run->p, &ev);
    }
    set_task_state(run, task, TASK_PARKED);
    if (!fennel__wait_park(run, rank, cls, key, earliest)) {
        set_task_state(run, task, TASK_WAITING);
        fennel_queue_push(&run->queue, earliest, key);
    }
}

/* Task `task` of `rank` (its wait class cls, its queue entry key) starts at t on the slot rule
 * 3 of docs/SEMANTICS.md gives, if that slot is free by then: TRUE; else it waits in its
 * class's wait list (engine_wait.c) until its resources are free: FALSE. */
HOT gboolean start_or_wait(Run *run, uint32_t task, uint32_t rank, uint32_t cls, uint64_t key,
                           FennelTime t)
{
    uint32_t slot;
    const FennelTime earliest = wait_earliest(run, rank, cls, &slot);
    if (earliest > t) {
        wait_for(run, task, rank, cls, key, t, earliest);
        return FALSE;
    }
    run_task(run, task, slot, t);
    return TRUE;
}

/* The pop of a task that waits in a wait list: the list's stand-in starts, or waits again,
 * and the list's next member stands in once it has taken its resources; any other entry is
 * stale. Apart from start_task, whose path for tasks that never waited (every task of most
 * programs) then saves the registers the lists' inlined paths need. */
static __attribute__((noinline)) void start_parked(Run *run, uint32_t task, uint64_t key,
                                                   FennelTime t)
{
    const FennelProgram *p = run->p;
    const uint32_t rank = p->rank[task];
    if (G_UNLIKELY(run->loggopsim) && p->type[task] == FENNEL_TASK_RECV) {
        run_task(run, task, recv_slot(run, task), t);
        return;
    }
    const uint32_t cls = task_wait_class(run, task);
    if (!fennel__wait_take(run, rank, cls, key, t))
        return;
    set_task_state(run, task, TASK_WAITING);
    /* The next waiting member stands in, once this one has taken its resources. */
    if (start_or_wait(run, task, rank, cls, key, t))
        fennel__wait_next(run, rank, cls, t);
}

/* Pops of a task (`key`, its queue entry): rule 3 of docs/SEMANTICS.md decides the slot, or
 * the task waits in its class's wait list (engine_wait.c) until its resources are free. */
static void start_task(Run *run, uint32_t task, uint64_t key, FennelTime t)
{
    const FennelProgram *p = run->p;
    const uint32_t state = task_state(run, task);
    if (G_UNLIKELY(state != TASK_WAITING)) {
        if (state == TASK_PARKED)
            start_parked(run, task, key, t);
        return; /* else a stale entry of a task that started already (engine_wait.c) */
    }
    if (G_UNLIKELY(run->loggopsim) && p->type[task] == FENNEL_TASK_RECV) {
        /* LogGOPSim posts a receive when it is popped, whatever its CPU is doing. */
        run_task(run, task, recv_slot(run, task), t);
        return;
    }
    const uint32_t rank = p->rank[task];
    start_or_wait(run, task, rank, task_wait_class(run, task), key, t);
}

static void run_task(Run *run, uint32_t task, uint32_t slot, FennelTime t)
{
    FennelMachine *m = run->m;
    const FennelProgram *p = run->p;
    const uint32_t rank = p->rank[task];
    const FennelTaskType type = p->type[task];
    FennelTime *slots = slots_of(m, rank);
    set_task_state(run, task, TASK_RUNNING);
    /* A compute's noise, drawn here only when the STARTED event reports it, else in the
     * compute's case below: a test of the type before the switch on it was a second
     * branch on something the order of a noisy run's pops leaves unpredictable. */
    FennelTime compute_noise = 0;
    if (m->mask & FENNEL_EVENT_STARTED) {
        if (type == FENNEL_TASK_COMPUTE)
            compute_noise = noise(run, FENNEL_NOISE_COMPUTE, task, 0);
        FennelEvent ev = {.kind = FENNEL_EVENT_STARTED,
                          .task = task,
                          .rank = rank,
                          .slot = slot,
                          .time = t,
                          .noise = compute_noise};
        emit(m, p, &ev);
    }
    if (p->start_succ)
        release(run, p->start_succ_start, p->start_succ, task, t, t);

    FennelTime d = 0;
    switch (type) {
    case FENNEL_TASK_START:
    case FENNEL_TASK_SLEEP:
        d = p->amount[task];
        break;
    case FENNEL_TASK_PROXY:
        break;
    case FENNEL_TASK_COMPUTE:
        d = (p->flags[task] & FENNEL_TASK_SIZED) ? compute_duration(run, p->amount[task])
                                                 : p->amount[task];
        if (!(m->mask & FENNEL_EVENT_STARTED))
            compute_noise = noise(run, FENNEL_NOISE_COMPUTE, task, 0);
        d = noisy(rank_compute(run, rank, d), compute_noise);
        break;
    case FENNEL_TASK_RECV: {
        /* Posting a receive takes no time; it completes when its message is ready. (Under
         * ordering: loggopsim the slot may still be busy.) */
        slots[slot] = MAX(slots[slot], t);
        run->tasks[task].ready = t; /* from now on: when it was posted */
        uint32_t tag = p->tag ? p->tag[task] : 0;
        uint32_t msg = fennel_match_post(run->match, rank, p->peer[task], tag, task);
        if (msg != FENNEL_MATCH_NONE)
            fennel__engine_meet(run, task, msg, t, t);
        return;
    }
    case FENNEL_TASK_PUT:
    case FENNEL_TASK_GET:
    case FENNEL_TASK_SEND:
        fennel__engine_start_network(run, task, slot, t);
        return;
    case FENNEL_TASK_LOAD_REDUCE:
    case FENNEL_TASK_MULTICAST:
        fennel__engine_start_tree(run, task, slot, t);
        return;
    case FENNEL_TASK_N_TYPES:
        g_assert_not_reached();
    }
    FennelTime local = add(run, task, t, d);
    slots[slot] = local;
    complete(run, task, slot, t, local, local, local, 0);
}

/* ---- the run ---- */

static int compare_ready(const void *a, const void *b)
{
    const ReadyTask *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    if (x->order != y->order)
        return x->order < y->order ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* ordering: loggopsim: the tasks the last event made ready are queued as LogGOPSim queues
 * them when the event is done: host by host in rank order, on a host sends, then receives,
 * then the rest, each group in the order its tasks became ready. A receive is queued at the
 * time its slot is free (LogGOPSim queues a receive at its CPU's next free time and then
 * posts it without waiting). */
static void flush_ready(Run *run)
{
    ReadyTask *ready = run->made_ready;
    const uint32_t n = run->n_made_ready;
    gboolean one_rank = TRUE;
    for (uint32_t i = 1; i < n && one_rank; i++)
        one_rank = ready[i].rank == ready[0].rank;
    if (n > 16 && one_rank) {
        /* An event's tasks are usually one rank's (a start that posts a whole schedule's
         * receives releases thousands): they come in the order they became ready, so a
         * stable split into the three groups sorts them. */
        if (run->scratch_capacity < n) {
            g_free(run->ready_scratch);
            run->scratch_capacity = run->made_ready_capacity;
            run->ready_scratch = g_new(ReadyTask, run->scratch_capacity);
        }
        uint32_t at[4] = {0};
        for (uint32_t i = 0; i < n; i++)
            at[ready[i].order + 1]++;
        at[2] += at[1];
        at[3] += at[2];
        for (uint32_t i = 0; i < n; i++)
            run->ready_scratch[at[ready[i].order]++] = ready[i];
        ready = run->ready_scratch;
    } else if (n > 16) {
        qsort(ready, n, sizeof(ReadyTask), compare_ready);
    } else {
        /* The usual few: an insertion sort, nothing to move when they are in order. */
        for (uint32_t i = 1; i < n; i++) {
            ReadyTask r = ready[i];
            uint32_t k = i;
            for (; k > 0 && compare_ready(&ready[k - 1], &r) > 0; k--)
                ready[k] = ready[k - 1];
            ready[k] = r;
        }
    }
    for (uint32_t i = 0; i < n; i++) {
        FennelTime when = ready[i].when;
        if (run->p->type[ready[i].task] == FENNEL_TASK_RECV)
            when = MAX(when, slots_of(run->m, ready[i].rank)[recv_slot(run, ready[i].task)]);
        push_task(run, when, ready[i].task);
    }
    run->n_made_ready = 0;
}

/* With noise nearly every entry comes from the queue's heap of entries, in an order
 * unrelated to the program's, so each task's data misses the cache, and the engine's reads
 * of a task depend on each other: its rank, then the rank's slots; its successor offsets,
 * then its successors, then their states and ranks. The queue keeps its next entries sorted
 * in a window (queue.h), so their data is fetched in steps some events apart, each step
 * from what the step before brought in: the arrays indexed by the task, then its rank's
 * slots and its successor list, then the same two steps for its first successors, which a
 * task without duration (a proxy) starts at once, so that they are often popped from the
 * queue's FIFO right after it without ever being in the window, and last the states of
 * their successors. Hints only: nothing here
 * changes a result. */
#define PREFETCH_TASK       14 /* the task's own arrays, this many entries ahead */
#define PREFETCH_LISTS      11 /* its rank's slots and its successor list */
#define PREFETCH_SUCC_TASK  8  /* its first successors' arrays */
#define PREFETCH_SUCC_LISTS 5  /* their ranks' slots and successor lists */
#define PREFETCH_SUCC_SUCC  2  /* the states of their first successors */
G_STATIC_ASSERT(PREFETCH_TASK < FENNEL_QUEUE_AHEAD);

HOT gboolean ahead_task(const Run *run, uint32_t i, uint32_t *task)
{
    uint64_t key;
    if (!fennel_queue_ahead_key(&run->queue, i, &key) || key >> KIND_SHIFT != KIND_TASK)
        return FALSE;
    *task = (uint32_t)KEY_ID(key);
    return TRUE;
}

HOT void prefetch_task(const Run *run, uint32_t task)
{
    const FennelProgram *p = run->p;
    __builtin_prefetch(&p->rank[task]);
    __builtin_prefetch(&run->tasks[task]);
    __builtin_prefetch(&p->succ_start[task]);
    __builtin_prefetch(&p->type[task]);
    __builtin_prefetch(&p->flags[task]);
    __builtin_prefetch(&p->amount[task]);
    __builtin_prefetch(&p->peer[task]);
}

HOT void prefetch_lists(const Run *run, uint32_t task)
{
    const FennelProgram *p = run->p;
    __builtin_prefetch(slots_of(run->m, p->rank[task]));
    __builtin_prefetch(&p->succ[p->succ_start[task]]);
}

/* The first two successors of a task (the first twice when it has one); FALSE when it has
 * none. Chosen without a branch on the count: the tasks in the window come in an order
 * unrelated to the program's, so their successor counts (one for a put, two for a stage's
 * end) cannot be predicted, and a loop over them missed its exit on about every other
 * task (docs/PERFORMANCE.md, Noise). */
HOT gboolean first_two(const FennelProgram *p, uint32_t task, uint32_t *a, uint32_t *b)
{
    const FennelEdgeIndex first = p->succ_start[task], end = p->succ_start[task + 1];
    if (G_UNLIKELY(first == end))
        return FALSE;
    *a = p->succ[first];
    *b = p->succ[first + (end - first > 1)];
    return TRUE;
}

HOT void prefetch_ahead(const Run *run)
{
    if (G_UNLIKELY(run->loggopsim))
        return;
    const FennelProgram *p = run->p;
    uint32_t task, a, b;
    if (ahead_task(run, PREFETCH_TASK, &task))
        prefetch_task(run, task);
    if (ahead_task(run, PREFETCH_LISTS, &task))
        prefetch_lists(run, task);
    if (ahead_task(run, PREFETCH_SUCC_TASK, &task) && first_two(p, task, &a, &b)) {
        prefetch_task(run, a);
        prefetch_task(run, b);
    }
    if (ahead_task(run, PREFETCH_SUCC_LISTS, &task) && first_two(p, task, &a, &b)) {
        prefetch_lists(run, a);
        prefetch_lists(run, b);
    }
    if (ahead_task(run, PREFETCH_SUCC_SUCC, &task) && first_two(p, task, &a, &b)) {
        uint32_t c, d;
        if (first_two(p, a, &c, &d)) {
            __builtin_prefetch(&run->tasks[c]);
            __builtin_prefetch(&run->tasks[d]);
        }
        if (first_two(p, b, &c, &d)) {
            __builtin_prefetch(&run->tasks[c]);
            __builtin_prefetch(&run->tasks[d]);
        }
    }
}

/* A hop some events ahead fetches its link's state (the contention level's `ahead`). */
HOT void hop_ahead(const Run *run)
{
    uint64_t key;
    if (fennel_queue_peek(&run->queue, HOP_AHEAD, &key) && key >> KIND_SHIFT == KIND_HOP)
        run->m->level->ahead(run, (uint32_t)KEY_ID(key));
}

/* The first size of the rings of messages and routes: 2048 messages (160 KiB), grown as
 * messages in flight need (a build may set it lower, down to 1, to make every run grow its
 * rings). */
#ifndef ROUTE_RING_FIRST
#define ROUTE_RING_FIRST 2048u
#endif

void fennel__route_grow(Run *run, uint32_t id)
{
    /* Ids below id have been given out, so the live entries of rings of `room` are ids
     * id - room .. id - 1 (those before are through): slot s holds the one of them that is
     * s modulo room. The entry id takes is free in a ring twice as large. */
    do {
        const uint32_t room = run->route_mask + 1;
        g_assert(room < run->route_limit); /* ids below route_limit never meet */
        MessageRoute *ring = g_new0(MessageRoute, 2 * (size_t)room);
        Message *messages = g_new(Message, 2 * (size_t)room);
        for (uint32_t s = 0; s < room; s++) {
            if (!run->routes[s].live)
                continue;
            const uint32_t from = id - room; /* id >= room: slot id & mask is taken */
            const uint32_t owner = from + ((s - from) & run->route_mask);
            ring[owner & (2 * room - 1)] = run->routes[s];
            messages[owner & (2 * room - 1)] = run->messages[s];
        }
        g_free(run->routes);
        g_free(run->messages);
        run->routes = ring;
        run->messages = messages;
        run->route_mask = 2 * room - 1;
    } while (run->routes[id & run->route_mask].live);
}

/* Whether a message of the model may be timed by its receiver's NIC (LogP, LogGP), within
 * a node or between nodes: its route then needs a MessageNic beside it. */
static gboolean nic_bytes_model(const FennelModel *model)
{
    return (model->network->flags & FENNEL_NET_NIC_BYTES) ||
           (model->intra_network && (model->intra_network->flags & FENNEL_NET_NIC_BYTES));
}

static void run_init(Run *run, FennelMachine *m, const FennelProgram *p)
{
    memset(run, 0, sizeof *run);
    run->m = m;
    run->p = p;
    fennel_queue_init(&run->queue);
    run->tasks = g_new(TaskRun, p->n_tasks + 1);
    fennel_huge_pages(run->tasks, ((size_t)p->n_tasks + 1) * sizeof *run->tasks);
    /* Each task's predecessors are counted in its record, whose count field no program
     * can overflow when it has fewer edges in all: an array of in-degrees beside it was
     * 4 bytes a task of fresh memory (the kernel's page zeroing, as dear as the count) and
     * a second pass over the tasks. */
    const uint64_t edges =
        p->succ_start[p->n_tasks] + (p->start_succ ? p->start_succ_start[p->n_tasks] : 0);
    if (edges <= MAX_PREDECESSORS) {
        for (uint32_t t = 0; t < p->n_tasks; t++)
            run->tasks[t] = (TaskRun){FENNEL_TIME_MIN, TASK_WAITING};
        for (uint64_t e = 0; e < p->succ_start[p->n_tasks]; e++)
            run->tasks[p->succ[e]].left_state += 1u << STATE_BITS;
        for (uint64_t e = 0; p->start_succ && e < p->start_succ_start[p->n_tasks]; e++)
            run->tasks[p->start_succ[e]].left_state += 1u << STATE_BITS;
    } else {
        uint32_t *in_degree = fennel_program_in_degrees(p);
        for (uint32_t t = 0; t < p->n_tasks; t++) {
            /* The builder refuses more edges than 32 bits count; a task with more than
             * 2^30 - 1 of them would need a program of tens of gigabytes. */
            g_assert(in_degree[t] <= MAX_PREDECESSORS);
            run->tasks[t] = (TaskRun){FENNEL_TIME_MIN, in_degree[t] << STATE_BITS | TASK_WAITING};
        }
        g_free(in_degree);
    }
    /* Every send's message is kept, and on a topology with contention or under LogP/LogGP
     * every network task's (two for a get): sized at once, the array is never copied as it
     * grows. */
    const gboolean all = m->routed || fennel_model_contended(m->model);
    guint expected = 0;
    for (uint32_t t = 0; t < p->n_tasks; t++) {
        const gboolean tree =
            p->type[t] == FENNEL_TASK_LOAD_REDUCE || p->type[t] == FENNEL_TASK_MULTICAST;
        run->trees |= tree;
        expected += p->type[t] == FENNEL_TASK_SEND         ? 1
                    : all && p->type[t] == FENNEL_TASK_PUT ? 1
                    : all && p->type[t] == FENNEL_TASK_GET ? 2
                    : m->routed && tree                    ? 1
                                                           : 0;
    }
    run->messages_capacity = expected;
    run->route_mask = UINT32_MAX;
    if (m->net && m->routed && m->level->ring && !run->trees && !nic_bytes_model(m->model) &&
        !fennel_model_contended(m->model)) {
        /* Rings of messages and routes (Run.route_mask), no larger than whole arrays. */
        run->route_limit = 1;
        while (run->route_limit < expected)
            run->route_limit *= 2;
        const uint32_t room = (uint32_t)MIN(run->route_limit, ROUTE_RING_FIRST);
        run->routes = g_new0(MessageRoute, room);
        run->messages = g_new(Message, room);
        run->route_mask = room - 1;
    } else {
        run->messages = g_new(Message, MAX(expected, 1));
        fennel_huge_pages(run->messages, (size_t)expected * sizeof *run->messages);
    }
    if (m->net && !message_ring(run)) {
        run->routes = g_new0(MessageRoute, expected);
        fennel_huge_pages(run->routes, (size_t)expected * sizeof *run->routes);
        if (nic_bytes_model(m->model)) {
            run->route_nics = g_new0(MessageNic, expected);
            fennel_huge_pages(run->route_nics, (size_t)expected * sizeof *run->route_nics);
        }
    }
    run->overflow_task = FENNEL_NO_RANK;
    run->noise_base = m->runs << 36;
    run->wait_classes = 2 * (m->processes + 2) + m->processes + 1;
    /* Joining at once skips the pop that would find the resources busy, and so the DELAYED
     * event it would emit; a held slot's time can go down (fennel__wait_release), which
     * could let a member joined early start before it is ready. */
    run->loggopsim = m->model->ordering == FENNEL_ORDERING_LOGGOPSIM;
    run->join_when_ready = !(m->mask & FENNEL_EVENT_DELAYED) && !m->routed && !run->loggopsim;
    const FennelModel *model = m->model;
    run->nic_classes =
        (model->network->flags & FENNEL_NET_CONTENDED) ||
        (model->intra_network && (model->intra_network->flags & FENNEL_NET_CONTENDED));
    for (unsigned i = 0; i < G_N_ELEMENTS(run->wires); i++)
        run->wires[i].bytes = -1;
    if (m->routed && m->level->setup)
        run->level_state = m->level->setup(m);
    if (m->routed) {
        for (uint32_t i = 0; i < m->links_used; i++) {
            m->link_state[i].stats = (FennelLinkStats){0};
            m->link_state[i].load = 0;
        }
        m->link_wait = 0;
        for (unsigned l = 0; l < FENNEL_TOPOLOGY_MAX_LEVELS; l++)
            run->xfer_bytes[l] = -1;
    }
    uint64_t any_total = 0;
    gboolean two_sided = FALSE;
    for (uint32_t t = 0; t < p->n_tasks; t++) {
        if (fennel_program_any(p, t))
            any_total += task_left(run, t);
        two_sided |= p->type[t] == FENNEL_TASK_SEND || p->type[t] == FENNEL_TASK_RECV;
    }
    if (any_total > 0) {
        run->any_start = g_new0(uint64_t, p->n_tasks);
        run->any_degree = g_new0(uint32_t, p->n_tasks);
        run->any_times = g_new(FennelTime, any_total);
        uint64_t next = 0;
        for (uint32_t t = 0; t < p->n_tasks; t++) {
            if (p->any[t]) {
                run->any_start[t] = next;
                run->any_degree[t] = task_left(run, t);
                next += task_left(run, t);
            }
        }
    }
    if (two_sided)
        run->match = fennel_match_new(p->n_ranks);
}

static void run_clear(Run *run)
{
    fennel_queue_clear(&run->queue);
    g_free(run->tasks);
    g_free(run->any_start);
    g_free(run->any_degree);
    g_free(run->any_times);
    g_free(run->messages);
    g_free(run->routes);
    g_free(run->route_nics);
    fennel_match_free(run->match);
    fennel__wait_clear(run);
    if (run->level_state)
        run->m->level->free(run->level_state);
    g_free(run->made_ready);
    g_free(run->ready_scratch);
}

/* Bytes kept per link a message crosses: its dense entries (room for up to twice the links
 * used, as the arrays double), its place in the map (at most half full, and the old map
 * while it doubles) and the contention level's own (under `fair`, the solver's entries). */
static uint64_t bytes_per_used_link(const FennelMachine *m)
{
    uint64_t dense = sizeof(LinkState);
    dense += m->level->link_bytes;
    return 2 * dense;
}

/* The links program p's messages cross, counted exactly by marking each link of every
 * route in a bitmap of the network's link numbers, and the pages of the link table they
 * fall in (*pages), when the estimate by the network's link count is too large: a program
 * of 8 ranks on a torus of 2^23 nodes crosses 30 of its 2^25 links. Under `endpoint` only
 * the ports of the program's nodes have state, the first link numbers. */
static uint64_t links_crossed(const FennelMachine *m, const FennelProgram *p, uint64_t *pages)
{
    const FennelNetwork *n = m->net;
    const uint64_t nodes = ((uint64_t)m->ranks + m->ranks_per_node - 1) / m->ranks_per_node;
    *pages = n->links / LINK_PAGE + 1;
    if (m->level->ports_only) {
        /* 2 links per port, 4 per node in a rail topology (whose node count is the
         * program's); a graph's nodes may have several ports */
        const uint64_t links = MIN((uint64_t)n->links,
                                   ((uint64_t)n->endpoint_links * nodes + n->nodes - 1) / n->nodes);
        *pages = links / LINK_PAGE + 1;
        return links;
    }
    if (n->routing == FENNEL_ROUTING_ADAPTIVE) {
        /* routes chosen by the load as the run goes: any link may be crossed */
        *pages = n->links / LINK_PAGE + 1;
        return n->links;
    }
    uint64_t *seen = g_try_new0(uint64_t, (size_t)n->links / 64 + 1);
    uint8_t *page_seen = g_try_new0(uint8_t, (size_t)*pages);
    uint64_t count = n->links;
    if (seen && page_seen) {
        count = *pages = 0;
        for (uint32_t t = 0; t < p->n_tasks && count < n->links; t++) {
            const FennelTaskType type = p->type[t];
            if (type != FENNEL_TASK_PUT && type != FENNEL_TASK_GET && type != FENNEL_TASK_SEND)
                continue;
            for (unsigned leg = 0; leg < (type == FENNEL_TASK_GET ? 2u : 1u); leg++) {
                const uint32_t a = port_of(m, p->rank[t]), b = port_of(m, p->peer[t]);
                const uint32_t to = leg ? a : b;
                const uint32_t choice = fennel__route_choice(m, t, leg, leg ? b : a, to);
                for (uint32_t at = leg ? b : a; at != to;) {
                    const FennelHop h = fennel_network_hop_via(n, at, to, choice);
                    if (!(seen[h.link / 64] >> (h.link % 64) & 1)) {
                        seen[h.link / 64] |= 1ull << (h.link % 64);
                        count++;
                        if (!page_seen[h.link / LINK_PAGE]) {
                            page_seen[h.link / LINK_PAGE] = 1;
                            ++*pages;
                        }
                    }
                    at = h.to;
                }
            }
        }
    }
    g_free(seen);
    g_free(page_seen);
    return count;
}

/* Whether the state of the links p's messages cross fits the memory (capacity.h): by the
 * network's link count when that fits, else by the links the routes cross. */
static gboolean check_links(const FennelMachine *m, const FennelProgram *p, GError **error)
{
    if (!m->routed)
        return TRUE;
    const uint64_t per_link = bytes_per_used_link(m), per_page = LINK_PAGE * sizeof(uint32_t);
    const uint64_t all = m->net->links;
    if (fennel_check_memory(NULL, all * per_link + (all / LINK_PAGE + 1) * per_page, "links", NULL))
        return TRUE;
    uint64_t pages;
    const uint64_t links = links_crossed(m, p, &pages);
    char *what = g_strdup_printf("%" G_GUINT64_FORMAT " links its messages cross", links);
    GError *local = NULL;
    gboolean fits = fennel_check_memory(NULL, links * per_link + pages * per_page, what, &local);
    g_free(what);
    if (!fits) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_RUN, "topology: %s", local->message);
        g_error_free(local);
    }
    return fits;
}

/* The overflow error names the task whose time overflowed and, when the program was read
 * from a file with positions, where that task is written, like the reader's errors. */
static void report_overflow(const Run *run, GError **error)
{
    const FennelProgram *p = run->p;
    const uint32_t task = run->overflow_task;
    char buf[24];
    fennel_error_at_code(error, FENNEL_ERROR_RUN, p->source, p->line ? p->line[task] : 0,
                         p->col ? p->col[task] : 0,
                         "simulated time overflows at task '%s' (beyond %.0f seconds)",
                         fennel_program_task_name(p, task, buf), (double)FENNEL_TIME_MAX * 1e-12);
}

gboolean fennel_machine_run(FennelMachine *m, const FennelProgram *p, GError **error)
{
    if (p->n_ranks > m->ranks || p->processes > m->processes) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_RUN,
                    "program needs %u ranks with %u slots, the machine has %u with %u", p->n_ranks,
                    p->processes, m->ranks, m->processes);
        return FALSE;
    }
    if (m->net_error) {
        /* A topology too small for the program is reported where the file sizes it. */
        const FennelTopology *t = m->model->topology;
        if (t && m->model->order != FENNEL_ORDER_LIST)
            fennel_error_at_code(error, FENNEL_ERROR_RUN, t->file, t->line, t->col, "%s",
                                 m->net_error);
        else
            g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_RUN, "%s", m->net_error);
        return FALSE;
    }
    if (m->model->ordering == FENNEL_ORDERING_LOGGOPSIM) {
        if (m->net) {
            g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_RUN,
                        "ordering: loggopsim cannot be combined with a topology (LogGOPSim's "
                        "LogGP network has none)");
            return FALSE;
        }
        uint64_t entries = p->n_tasks;
        for (uint32_t t = 0; t < p->n_tasks; t++)
            entries += p->type[t] == FENNEL_TASK_GET                                     ? 2
                       : p->type[t] == FENNEL_TASK_PUT || p->type[t] == FENNEL_TASK_SEND ? 1
                                                                                         : 0;
        if (entries >= 1ull << LOGGOPSIM_SEQ_BITS) {
            g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_RUN,
                        "ordering: loggopsim orders at most %llu tasks and messages, this "
                        "program has %" G_GUINT64_FORMAT,
                        (1ull << LOGGOPSIM_SEQ_BITS) - 1, entries);
            return FALSE;
        }
    }
    if (!check_links(m, p, error) || !fennel__faults_resolve(m, error) ||
        !fennel__tree_check(m, p, error))
        return FALSE;
    Run run;
    run_init(&run, m, p);
    m->runs++;
    if (m->routed && m->level->change) {
        /* The level re-rates what crosses a link when the link's rate changes (a fault from
         * a time on, engine_faults.c); changes from the start are in effect when a message
         * first takes the link. */
        for (uint32_t i = 0; i < m->n_changes; i++) {
            if (m->changes[i].from > 0)
                fennel_queue_push(&run.queue, m->changes[i].from,
                                  KIND_LEVEL << KIND_SHIFT | LEVEL_CHANGE_BIT | i);
        }
    }

    /* Rule 1: every start task is ready at time 0. */
    for (uint32_t t = 0; t < p->n_tasks; t++) {
        if (p->type[t] == FENNEL_TASK_START) {
            if (m->mask & FENNEL_EVENT_READY) {
                FennelEvent ev = {.kind = FENNEL_EVENT_READY, .task = t, .rank = p->rank[t]};
                emit(m, p, &ev);
            }
            push_task(&run, 0, t);
        }
    }
    FennelTime time;
    uint64_t key;
    while (run.overflow_task == FENNEL_NO_RANK && !run.cut &&
           fennel_queue_pop(&run.queue, &time, &key)) {
        m->events++;
        if (run.queue.ahead_len > 0)
            prefetch_ahead(&run);
        if (m->routed && m->level->ahead)
            hop_ahead(&run);
        if (G_UNLIKELY(run.loggopsim)) {
            if ((key >> 32 & 3) == KIND_TASK)
                start_task(&run, (uint32_t)key, key, time);
            else
                fennel__engine_receive(&run, (uint32_t)key, key, time);
            if (run.n_made_ready)
                flush_ready(&run);
        } else if (key >> KIND_SHIFT == KIND_TASK)
            start_task(&run, (uint32_t)KEY_ID(key), key, time);
        else if (G_LIKELY(key >> KIND_SHIFT == KIND_MESSAGE))
            fennel__engine_receive(&run, (uint32_t)KEY_ID(key), key, time);
        else if (key >> KIND_SHIFT == KIND_HOP) {
            const uint32_t id = (uint32_t)KEY_ID(key);
            const FennelTaskType type = run.trees ? p->type[message_of(&run, id)->task] : 0;
            if (G_UNLIKELY(type == FENNEL_TASK_LOAD_REDUCE || type == FENNEL_TASK_MULTICAST))
                m->level->tree_hop(&run, id, time);
            else
                m->level->hop(&run, id, time);
        } else if (KEY_ID(key) & LEVEL_CHANGE_BIT)
            m->level->change(&run, (uint32_t)(KEY_ID(key) & ~LEVEL_CHANGE_BIT), time);
        else
            m->level->event(&run, KEY_ID(key), time);
    }

    gboolean ok = TRUE;
    if (m->mask & (FENNEL_EVENT_RANK_FINISHED | FENNEL_EVENT_RUN_FINISHED)) {
        for (uint32_t r = 0; r < p->n_ranks; r++) {
            const FennelTime *slots = slots_of(m, r);
            FennelTime free = slots[0];
            for (uint32_t i = 1; i < m->processes; i++)
                free = MAX(free, slots[i]);
            FennelEvent ev = {.kind = FENNEL_EVENT_RANK_FINISHED, .rank = r, .time = free};
            emit(m, p, &ev);
        }
        FennelEvent ev = {.kind = FENNEL_EVENT_RUN_FINISHED,
                          .task = p->n_tasks,
                          .time = m->makespan,
                          .messages = run.sent,
                          .bytes = (int64_t)run.message_bytes,
                          .until = run.flight_sum};
        emit(m, p, &ev);
    }
    if (run.cut) {
        fennel__report_cut(&run, error);
        ok = FALSE;
    } else if (run.overflow_task != FENNEL_NO_RANK) {
        report_overflow(&run, error);
        ok = FALSE;
    } else {
        for (uint32_t t = 0; t < p->n_tasks && ok; t++) {
            if (task_state(&run, t) != TASK_DONE) {
                fennel__engine_report_stuck(&run, error);
                ok = FALSE;
            }
        }
    }
    run_clear(&run);
    return ok;
}

uint64_t fennel_machine_run_bytes(const FennelProgram *p)
{
    Run run;
    uint64_t n = p->n_tasks;
    return n * sizeof *run.tasks;
}
