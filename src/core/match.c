#include "match.h"

#include "program.h"

#include <string.h>

/* ---- a rank's few entries: the slab ---- */

/* Most ranks have only a few receives posted and messages unexpected at any time (a
 * GOAL rank posts its receives at the start, one a round), so each rank has a slab of four
 * cache lines that holds up to SLAB of them in the order they came, and a message or
 * receive is matched by scanning it: no hash look-up, and on large runs one or two cache
 * misses instead of several. A rank that needs more goes over to the index below (its
 * entries are replayed into it in order) until it has none left. */
#define SLAB 20

typedef struct {
    uint32_t src, tag, item;
} Entry;

typedef struct {
    uint32_t msgs;  /* bit i: e[i] is an unexpected message, else a posted receive */
    uint8_t n;      /* entries in e[] */
    uint8_t hashed; /* the rank's entries are in the index, `pending` of them */
    uint16_t unused;
    union {
        Entry e[SLAB];
        uint32_t pending;
    };
    uint32_t pad[2];
} Slab;

G_STATIC_ASSERT(sizeof(Slab) == 256);

/* Non-overtaking, the same way: per sending rank, the latest arrival of a send to each of
 * its first CHANNELS destinations; further pairs are in a hash map. */
#define CHANNELS 20

typedef struct {
    uint32_t n;
    uint32_t dst[CHANNELS];
    int64_t last[CHANNELS];
    uint32_t pad;
} ChannelSlab;

G_STATIC_ASSERT(sizeof(ChannelSlab) == 256);

/* Slabs for every rank, zeroed, on cache-line boundaries. calloc's large blocks are fresh
 * pages the kernel zeroes when first touched, so the slabs of ranks that never use them
 * cost neither time nor memory (g_aligned_alloc0 would write them all). */
static void *lines_new(size_t count, size_t size, void **block)
{
    *block = g_malloc0_n(1, MAX(count, 1) * size + 63);
    return (void *)(((uintptr_t)*block + 63) & ~(uintptr_t)63);
}

/* ---- the index: many entries ---- */

/* Posted receives wait in one FIFO per wildcard pattern and key: exact (source, tag), any
 * source with a tag, a source with any tag, or any of both. A message matches the
 * oldest receive among the four queues that accept it: O(1).
 *
 * Unexpected messages wait in one FIFO per exact (source, tag) and, per rank, in one list
 * in arrival order. An exact receive takes the head of its FIFO: O(1); a wildcard receive
 * scans the rank's list (wildcards are rare in generated schedules). Empty queues leave
 * the index, so programs that use a new tag for every message keep it small. */
enum {
    RQ_EXACT,
    RQ_ANY_SOURCE,
    RQ_ANY_TAG,
    RQ_ANY_BOTH,
    UQ_EXACT,
};

#define NONE FENNEL_MATCH_NONE

typedef struct {
    uint32_t next;                 /* in its FIFO */
    uint32_t item;                 /* a receive task or a message */
    uint32_t prev_rank, next_rank; /* unexpected messages: the rank's arrival list */
    uint32_t src, tag;
    uint64_t seq;
} Node;

typedef struct {
    uint32_t head, tail;
    uint64_t key1, key2; /* its index key, to remove it when it empties */
} Queue;

struct FennelMatch {
    Slab *slabs; /* per rank */
    ChannelSlab *channels;
    void *slabs_block, *channels_block;
    FennelMap more_channels; /* (src, dst) -> latest arrival, beyond the slabs */
    uint32_t ranks;
    FennelMap index; /* queue key -> queue number */
    GArray *queues;  /* Queue */
    GArray *free_queues;
    GArray *nodes; /* Node */
    uint32_t free_nodes;
    uint64_t seq;
    GArray *taken;    /* per message id: matched already (stale in its FIFO) */
    GArray *uq_first; /* per rank: oldest unexpected message node */
    GArray *uq_last;
    uint64_t unexpected;
    uint64_t posted[4]; /* receives waiting per pattern: lookups skip empty patterns */
};

FennelMatch *fennel_match_new(uint32_t ranks)
{
    FennelMatch *m = g_new0(FennelMatch, 1);
    m->ranks = ranks;
    m->slabs = lines_new(ranks, sizeof(Slab), &m->slabs_block);
    m->channels = lines_new(ranks, sizeof(ChannelSlab), &m->channels_block);
    fennel_map_init(&m->more_channels);
    fennel_map_init(&m->index);
    m->queues = g_array_new(FALSE, FALSE, sizeof(Queue));
    m->free_queues = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    m->nodes = g_array_new(FALSE, FALSE, sizeof(Node));
    m->taken = g_array_new(FALSE, TRUE, sizeof(uint8_t));
    m->uq_first = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    m->uq_last = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    m->free_nodes = NONE;
    return m;
}

void fennel_match_free(FennelMatch *m)
{
    if (m == NULL)
        return;
    g_free(m->slabs_block);
    g_free(m->channels_block);
    fennel_map_clear(&m->more_channels);
    fennel_map_clear(&m->index);
    g_array_free(m->queues, TRUE);
    g_array_free(m->free_queues, TRUE);
    g_array_free(m->nodes, TRUE);
    g_array_free(m->taken, TRUE);
    g_array_free(m->uq_first, TRUE);
    g_array_free(m->uq_last, TRUE);
    g_free(m);
}

uint64_t fennel_match_unexpected(const FennelMatch *m)
{
    return m->unexpected;
}

#define NODE(m, n)  (&g_array_index((m)->nodes, Node, (n)))
#define QUEUE(m, q) (&g_array_index((m)->queues, Queue, (q)))

static uint64_t key1(uint32_t rank, int kind)
{
    return (uint64_t)rank << 8 | (uint64_t)kind;
}

/* The queue number for (rank, kind, a, b), or NONE. */
static uint32_t queue_find(FennelMatch *m, uint32_t rank, int kind, uint32_t a, uint32_t b)
{
    uint64_t *slot = fennel_map_find(&m->index, key1(rank, kind), (uint64_t)a << 32 | b);
    return slot ? (uint32_t)*slot : NONE;
}

static uint32_t queue_get(FennelMatch *m, uint32_t rank, int kind, uint32_t a, uint32_t b)
{
    uint64_t k1 = key1(rank, kind), k2 = (uint64_t)a << 32 | b;
    uint64_t *slot = fennel_map_slot(&m->index, k1, k2, UINT64_MAX);
    if (*slot == UINT64_MAX) {
        uint32_t q;
        if (m->free_queues->len > 0) {
            q = g_array_index(m->free_queues, uint32_t, m->free_queues->len - 1);
            g_array_set_size(m->free_queues, m->free_queues->len - 1);
        } else {
            q = m->queues->len;
            g_array_set_size(m->queues, q + 1);
        }
        *QUEUE(m, q) = (Queue){NONE, NONE, k1, k2};
        *slot = q;
    }
    return (uint32_t)*slot;
}

static uint32_t node_new(FennelMatch *m)
{
    uint32_t n;
    if (m->free_nodes != NONE) {
        n = m->free_nodes;
        m->free_nodes = NODE(m, n)->next;
    } else {
        n = m->nodes->len;
        g_array_set_size(m->nodes, n + 1);
    }
    return n;
}

static void node_free(FennelMatch *m, uint32_t n)
{
    NODE(m, n)->next = m->free_nodes;
    m->free_nodes = n;
}

static void push(FennelMatch *m, uint32_t q, uint32_t n)
{
    Queue *queue = QUEUE(m, q);
    NODE(m, n)->next = NONE;
    if (queue->tail == NONE)
        queue->head = n;
    else
        NODE(m, queue->tail)->next = n;
    queue->tail = n;
}

/* Removes the head node of queue q (not freeing it), and the queue if it empties. */
static void pop(FennelMatch *m, uint32_t q)
{
    Queue *queue = QUEUE(m, q);
    queue->head = NODE(m, queue->head)->next;
    if (queue->head == NONE) {
        fennel_map_remove(&m->index, queue->key1, queue->key2);
        g_array_append_val(m->free_queues, q);
    }
}

static gboolean taken(FennelMatch *m, uint32_t msg)
{
    return msg < m->taken->len && g_array_index(m->taken, uint8_t, msg);
}

static void ensure_rank(FennelMatch *m, uint32_t rank)
{
    if (rank >= m->uq_first->len) {
        guint old = m->uq_first->len;
        g_array_set_size(m->uq_first, rank + 1);
        g_array_set_size(m->uq_last, rank + 1);
        for (guint r = old; r <= rank; r++) {
            g_array_index(m->uq_first, uint32_t, r) = NONE;
            g_array_index(m->uq_last, uint32_t, r) = NONE;
        }
    }
}

/* Unlinks an unexpected message's node from its rank's arrival list. */
static void unlink_rank(FennelMatch *m, uint32_t rank, uint32_t n)
{
    Node *node = NODE(m, n);
    if (node->prev_rank == NONE)
        g_array_index(m->uq_first, uint32_t, rank) = node->next_rank;
    else
        NODE(m, node->prev_rank)->next_rank = node->next_rank;
    if (node->next_rank == NONE)
        g_array_index(m->uq_last, uint32_t, rank) = node->prev_rank;
    else
        NODE(m, node->next_rank)->prev_rank = node->prev_rank;
}

static uint32_t hash_arrive(FennelMatch *m, uint32_t dst, uint32_t src, uint32_t tag, uint32_t msg)
{
    /* The receive posted first among the four patterns that accept (src, tag). */
    const int kinds[4] = {RQ_EXACT, RQ_ANY_SOURCE, RQ_ANY_TAG, RQ_ANY_BOTH};
    const uint32_t as[4] = {src, 0, src, 0}, bs[4] = {tag, tag, 0, 0};
    uint32_t best = NONE;
    int best_kind = RQ_EXACT;
    uint64_t best_seq = UINT64_MAX;
    for (int i = 0; i < 4; i++) {
        if (m->posted[i] == 0)
            continue;
        uint32_t q = queue_find(m, dst, kinds[i], as[i], bs[i]);
        if (q == NONE)
            continue;
        const Node *node = NODE(m, QUEUE(m, q)->head);
        if (node->seq < best_seq) {
            best_seq = node->seq;
            best = q;
            best_kind = kinds[i];
        }
    }
    if (best != NONE) {
        uint32_t n = QUEUE(m, best)->head;
        uint32_t recv = NODE(m, n)->item;
        m->posted[best_kind]--;
        pop(m, best);
        node_free(m, n);
        return recv;
    }
    /* Unexpected: into its exact FIFO and its rank's arrival list. */
    if (msg >= m->taken->len)
        g_array_set_size(m->taken, MAX(msg + 1, m->taken->len * 2));
    ensure_rank(m, dst);
    uint32_t n = node_new(m);
    uint32_t last = g_array_index(m->uq_last, uint32_t, dst);
    *NODE(m, n) = (Node){NONE, msg, last, NONE, src, tag, m->seq++};
    if (last == NONE)
        g_array_index(m->uq_first, uint32_t, dst) = n;
    else
        NODE(m, last)->next_rank = n;
    g_array_index(m->uq_last, uint32_t, dst) = n;
    push(m, queue_get(m, dst, UQ_EXACT, src, tag), n);
    m->unexpected++;
    return NONE;
}

/* Takes an unexpected message's node: out of the rank's list; its FIFO entry goes stale
 * unless it is that FIFO's head. */
static uint32_t take(FennelMatch *m, uint32_t dst, uint32_t n, uint32_t exact_queue)
{
    Node *node = NODE(m, n);
    uint32_t msg = node->item;
    unlink_rank(m, dst, n);
    g_array_index(m->taken, uint8_t, msg) = 1;
    m->unexpected--;
    if (exact_queue != NONE) {
        pop(m, exact_queue);
        node_free(m, n);
    }
    return msg;
}

static uint32_t hash_post(FennelMatch *m, uint32_t dst, uint32_t src, uint32_t tag, uint32_t recv)
{
    gboolean any_src = src == FENNEL_ANY, any_tag = tag == FENNEL_ANY;
    if (!any_src && !any_tag) {
        uint32_t q = queue_find(m, dst, UQ_EXACT, src, tag);
        while (q != NONE) {
            uint32_t n = QUEUE(m, q)->head;
            if (!taken(m, NODE(m, n)->item))
                return take(m, dst, n, q);
            /* Taken by a wildcard receive earlier: drop it. */
            gboolean last = NODE(m, n)->next == NONE;
            pop(m, q);
            node_free(m, n);
            if (last)
                q = NONE;
        }
    } else if (dst < m->uq_first->len) {
        /* A wildcard: the oldest unexpected message of the rank that it accepts. */
        for (uint32_t n = g_array_index(m->uq_first, uint32_t, dst); n != NONE;
             n = NODE(m, n)->next_rank) {
            const Node *node = NODE(m, n);
            if ((any_src || node->src == src) && (any_tag || node->tag == tag))
                return take(m, dst, n, NONE);
        }
    }
    int rq = any_src ? (any_tag ? RQ_ANY_BOTH : RQ_ANY_SOURCE) : (any_tag ? RQ_ANY_TAG : RQ_EXACT);
    uint32_t n = node_new(m);
    *NODE(m, n) = (Node){NONE, recv, NONE, NONE, src, tag, m->seq++};
    push(m, queue_get(m, dst, rq, any_src ? 0 : src, any_tag ? 0 : tag), n);
    m->posted[rq]++;
    return NONE;
}

/* ---- matching: the slab, or the index ---- */

static gboolean accepts(uint32_t src, uint32_t tag, uint32_t msg_src, uint32_t msg_tag)
{
    return (src == FENNEL_ANY || src == msg_src) && (tag == FENNEL_ANY || tag == msg_tag);
}

/* Takes e[i] out of the slab, keeping the others in order. */
static uint32_t slab_take(Slab *s, unsigned i)
{
    uint32_t item = s->e[i].item;
    memmove(&s->e[i], &s->e[i + 1], sizeof(Entry) * (s->n - i - 1u));
    s->msgs = (s->msgs & ((1u << i) - 1u)) | (s->msgs >> (i + 1u) << i);
    s->n--;
    return item;
}

/* The slab is full: its entries go to the index in the order they came. None of them
 * matches another (they would have met), so replaying them only records them. */
static void slab_spill(FennelMatch *m, uint32_t dst, Slab *s)
{
    Slab copy = *s;
    s->hashed = 1;
    s->pending = copy.n;
    for (unsigned i = 0; i < copy.n; i++) {
        const Entry *e = &copy.e[i];
        if (copy.msgs >> i & 1u) {
            m->unexpected--; /* counted again by the index */
            hash_arrive(m, dst, e->src, e->tag, e->item);
        } else
            hash_post(m, dst, e->src, e->tag, e->item);
    }
}

/* An entry of a hashed rank left the index: with none left, the rank's slab serves it
 * again. */
static void hashed_taken(Slab *s)
{
    if (--s->pending == 0) {
        s->hashed = 0;
        s->n = 0;
        s->msgs = 0;
    }
}

uint32_t fennel_match_arrive(FennelMatch *m, uint32_t dst, uint32_t src, uint32_t tag, uint32_t msg)
{
    g_assert(dst < m->ranks);
    Slab *s = &m->slabs[dst];
    if (!s->hashed) {
        /* The oldest posted receive that accepts the message. */
        for (unsigned i = 0; i < s->n; i++) {
            if (!(s->msgs >> i & 1u) && accepts(s->e[i].src, s->e[i].tag, src, tag))
                return slab_take(s, i);
        }
        if (s->n < SLAB) {
            s->e[s->n] = (Entry){src, tag, msg};
            s->msgs |= 1u << s->n;
            s->n++;
            m->unexpected++;
            return NONE;
        }
        slab_spill(m, dst, s);
    }
    uint32_t recv = hash_arrive(m, dst, src, tag, msg);
    if (recv != NONE)
        hashed_taken(s);
    else
        s->pending++;
    return recv;
}

uint32_t fennel_match_post(FennelMatch *m, uint32_t dst, uint32_t src, uint32_t tag, uint32_t recv)
{
    g_assert(dst < m->ranks);
    Slab *s = &m->slabs[dst];
    if (!s->hashed) {
        /* The oldest unexpected message that the receive accepts. */
        for (unsigned i = 0; i < s->n; i++) {
            if ((s->msgs >> i & 1u) && accepts(src, tag, s->e[i].src, s->e[i].tag)) {
                m->unexpected--;
                return slab_take(s, i);
            }
        }
        if (s->n < SLAB) {
            s->e[s->n++] = (Entry){src, tag, recv};
            return NONE;
        }
        slab_spill(m, dst, s);
    }
    uint32_t msg = hash_post(m, dst, src, tag, recv);
    if (msg != NONE)
        hashed_taken(s);
    else
        s->pending++;
    return msg;
}

int64_t fennel_match_channel(FennelMatch *m, uint32_t src, uint32_t dst, int64_t arrival)
{
    g_assert(src < m->ranks);
    ChannelSlab *c = &m->channels[src];
    for (uint32_t i = 0; i < c->n; i++) {
        if (c->dst[i] == dst) {
            arrival = MAX(arrival, c->last[i]);
            c->last[i] = arrival;
            return arrival;
        }
    }
    if (c->n < CHANNELS) {
        c->dst[c->n] = dst;
        c->last[c->n++] = arrival;
        return arrival;
    }
    uint64_t *last = fennel_map_slot(&m->more_channels, src, dst, (uint64_t)INT64_MIN);
    arrival = MAX(arrival, (int64_t)*last);
    *last = (uint64_t)arrival;
    return arrival;
}
