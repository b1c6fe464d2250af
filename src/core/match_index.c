/* The hashed index of two-sided matching (match.c): for ranks with more receives posted or
 * messages unexpected than their slab and row hold. */
#include "match_private.h"

#include "map.h"
#include "program.h"

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

struct MatchIndex {
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

MatchIndex *fennel__match_index_new(void)
{
    MatchIndex *m = g_new0(MatchIndex, 1);
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

void fennel__match_index_free(MatchIndex *m)
{
    fennel_map_clear(&m->index);
    g_array_free(m->queues, TRUE);
    g_array_free(m->free_queues, TRUE);
    g_array_free(m->nodes, TRUE);
    g_array_free(m->taken, TRUE);
    g_array_free(m->uq_first, TRUE);
    g_array_free(m->uq_last, TRUE);
    g_free(m);
}

uint64_t fennel__match_index_unexpected(const MatchIndex *m)
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
static uint32_t queue_find(MatchIndex *m, uint32_t rank, int kind, uint32_t a, uint32_t b)
{
    uint64_t *slot = fennel_map_find(&m->index, key1(rank, kind), (uint64_t)a << 32 | b);
    return slot ? (uint32_t)*slot : NONE;
}

static uint32_t queue_get(MatchIndex *m, uint32_t rank, int kind, uint32_t a, uint32_t b)
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

static uint32_t node_new(MatchIndex *m)
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

static void node_free(MatchIndex *m, uint32_t n)
{
    NODE(m, n)->next = m->free_nodes;
    m->free_nodes = n;
}

static void push(MatchIndex *m, uint32_t q, uint32_t n)
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
static void pop(MatchIndex *m, uint32_t q)
{
    Queue *queue = QUEUE(m, q);
    queue->head = NODE(m, queue->head)->next;
    if (queue->head == NONE) {
        fennel_map_remove(&m->index, queue->key1, queue->key2);
        g_array_append_val(m->free_queues, q);
    }
}

static gboolean taken(MatchIndex *m, uint32_t msg)
{
    return msg < m->taken->len && g_array_index(m->taken, uint8_t, msg);
}

static void ensure_rank(MatchIndex *m, uint32_t rank)
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
static void unlink_rank(MatchIndex *m, uint32_t rank, uint32_t n)
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

uint32_t fennel__match_index_arrive(MatchIndex *m, uint32_t dst, uint32_t src, uint32_t tag,
                                    uint32_t msg)
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
static uint32_t take(MatchIndex *m, uint32_t dst, uint32_t n, uint32_t exact_queue)
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

uint32_t fennel__match_index_post(MatchIndex *m, uint32_t dst, uint32_t src, uint32_t tag,
                                  uint32_t recv)
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
