#include "match.h"

#include "program.h"

#include <string.h>

/* ---- the map ---- */

static uint64_t mix(uint64_t x)
{
    /* splitmix64's finaliser: cheap and good enough to spread structured keys. */
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    x ^= x >> 31;
    return x;
}

void fennel_map_init(FennelMap *map)
{
    memset(map, 0, sizeof *map);
}

void fennel_map_clear(FennelMap *map)
{
    g_free(map->keys);
    g_free(map->values);
    g_free(map->used);
    fennel_map_init(map);
}

static void map_grow(FennelMap *map)
{
    FennelMap old = *map;
    map->capacity = old.capacity ? old.capacity * 2 : 64;
    map->keys = g_new(FennelMapKey, map->capacity);
    map->values = g_new(uint64_t, map->capacity);
    map->used = g_new0(uint8_t, map->capacity);
    map->len = 0;
    for (size_t i = 0; i < old.capacity; i++) {
        if (old.used[i])
            *fennel_map_slot(map, old.keys[i].k1, old.keys[i].k2, old.values[i]) = old.values[i];
    }
    g_free(old.keys);
    g_free(old.values);
    g_free(old.used);
}

static size_t map_probe(const FennelMap *map, uint64_t k1, uint64_t k2)
{
    size_t mask = map->capacity - 1, i = mix(k1 ^ mix(k2)) & mask;
    while (map->used[i] && (map->keys[i].k1 != k1 || map->keys[i].k2 != k2))
        i = (i + 1) & mask;
    return i;
}

uint64_t *fennel_map_find(const FennelMap *map, uint64_t k1, uint64_t k2)
{
    if (map->capacity == 0)
        return NULL;
    size_t i = map_probe(map, k1, k2);
    return map->used[i] ? &map->values[i] : NULL;
}

void fennel_map_remove(FennelMap *map, uint64_t k1, uint64_t k2)
{
    if (map->capacity == 0)
        return;
    size_t mask = map->capacity - 1, i = map_probe(map, k1, k2);
    if (!map->used[i])
        return;
    /* Backward-shift deletion: move later members of the probe run into the hole. */
    size_t hole = i;
    for (size_t j = (i + 1) & mask; map->used[j]; j = (j + 1) & mask) {
        size_t home = mix(map->keys[j].k1 ^ mix(map->keys[j].k2)) & mask;
        /* j may fill the hole if its home is not between the hole and j (cyclically). */
        gboolean movable = hole <= j ? (home <= hole || home > j) : (home <= hole && home > j);
        if (movable) {
            map->keys[hole] = map->keys[j];
            map->values[hole] = map->values[j];
            hole = j;
        }
    }
    map->used[hole] = 0;
    map->len--;
}

uint64_t *fennel_map_slot(FennelMap *map, uint64_t k1, uint64_t k2, uint64_t initial)
{
    if (2 * (map->len + 1) > map->capacity)
        map_grow(map);
    size_t i = map_probe(map, k1, k2);
    if (!map->used[i]) {
        map->used[i] = 1;
        map->keys[i].k1 = k1;
        map->keys[i].k2 = k2;
        map->values[i] = initial;
        map->len++;
    }
    return &map->values[i];
}

/* ---- the queues ---- */

/* Queue kinds: where a posted receive waits (by its wildcards), and the four indexes of
 * an unexpected message. */
enum {
    RQ_EXACT,
    RQ_ANY_SOURCE,
    RQ_ANY_TAG,
    RQ_ANY_BOTH,
    UQ_EXACT,
    UQ_BY_TAG,
    UQ_BY_SOURCE,
    UQ_ALL,
};

typedef struct {
    uint32_t next;
    uint32_t item;
    uint64_t seq; /* posting or arrival order */
} Node;

typedef struct {
    uint32_t head, tail;
} Queue;

struct FennelMatch {
    FennelMap index; /* queue key -> queue number */
    GArray *queues;  /* Queue */
    GArray *nodes;   /* Node */
    uint32_t free_nodes;
    uint64_t seq;
    GArray *taken; /* per message id: matched already (lazy removal) */
    uint64_t unexpected;
};

FennelMatch *fennel_match_new(void)
{
    FennelMatch *m = g_new0(FennelMatch, 1);
    fennel_map_init(&m->index);
    m->queues = g_array_new(FALSE, FALSE, sizeof(Queue));
    m->nodes = g_array_new(FALSE, FALSE, sizeof(Node));
    m->taken = g_array_new(FALSE, TRUE, sizeof(uint8_t));
    m->free_nodes = FENNEL_MATCH_NONE;
    return m;
}

void fennel_match_free(FennelMatch *m)
{
    if (m == NULL)
        return;
    fennel_map_clear(&m->index);
    g_array_free(m->queues, TRUE);
    g_array_free(m->nodes, TRUE);
    g_array_free(m->taken, TRUE);
    g_free(m);
}

uint64_t fennel_match_unexpected(const FennelMatch *m)
{
    return m->unexpected;
}

/* The queue for (rank, kind, a, b): found, or created empty. */
static Queue *queue_find(FennelMatch *m, uint32_t rank, int kind, uint32_t a, uint32_t b)
{
    uint64_t *slot =
        fennel_map_find(&m->index, (uint64_t)rank << 8 | (uint64_t)kind, (uint64_t)a << 32 | b);
    return slot ? &g_array_index(m->queues, Queue, *slot) : NULL;
}

static Queue *queue_get(FennelMatch *m, uint32_t rank, int kind, uint32_t a, uint32_t b)
{
    uint64_t *slot = fennel_map_slot(&m->index, (uint64_t)rank << 8 | (uint64_t)kind,
                                     (uint64_t)a << 32 | b, UINT64_MAX);
    if (*slot == UINT64_MAX) {
        Queue q = {FENNEL_MATCH_NONE, FENNEL_MATCH_NONE};
        *slot = m->queues->len;
        g_array_append_val(m->queues, q);
    }
    return &g_array_index(m->queues, Queue, *slot);
}

static void push(FennelMatch *m, Queue *q, uint32_t item, uint64_t seq)
{
    uint32_t n;
    if (m->free_nodes != FENNEL_MATCH_NONE) {
        n = m->free_nodes;
        m->free_nodes = g_array_index(m->nodes, Node, n).next;
    } else {
        n = m->nodes->len;
        g_array_set_size(m->nodes, n + 1);
    }
    Node *node = &g_array_index(m->nodes, Node, n);
    *node = (Node){FENNEL_MATCH_NONE, item, seq};
    if (q->tail == FENNEL_MATCH_NONE)
        q->head = n;
    else
        g_array_index(m->nodes, Node, q->tail).next = n;
    q->tail = n;
}

static void pop(FennelMatch *m, Queue *q)
{
    uint32_t n = q->head;
    Node *node = &g_array_index(m->nodes, Node, n);
    q->head = node->next;
    if (q->head == FENNEL_MATCH_NONE)
        q->tail = FENNEL_MATCH_NONE;
    node->next = m->free_nodes;
    m->free_nodes = n;
}

static gboolean taken(FennelMatch *m, uint32_t msg)
{
    return msg < m->taken->len && g_array_index(m->taken, uint8_t, msg);
}

/* The head of an unexpected-message queue, dropping messages matched through another
 * index. */
static Node *live_head(FennelMatch *m, Queue *q)
{
    while (q->head != FENNEL_MATCH_NONE) {
        Node *node = &g_array_index(m->nodes, Node, q->head);
        if (!taken(m, node->item))
            return node;
        pop(m, q);
    }
    return NULL;
}

uint32_t fennel_match_arrive(FennelMatch *m, uint32_t dst, uint32_t src, uint32_t tag, uint32_t msg)
{
    /* The receive posted first among the four patterns that accept (src, tag). */
    const int kinds[4] = {RQ_EXACT, RQ_ANY_SOURCE, RQ_ANY_TAG, RQ_ANY_BOTH};
    const uint32_t as[4] = {src, 0, src, 0}, bs[4] = {tag, tag, 0, 0};
    Queue *best = NULL;
    uint64_t best_seq = UINT64_MAX;
    for (int i = 0; i < 4; i++) {
        Queue *q = queue_find(m, dst, kinds[i], as[i], bs[i]);
        if (q == NULL || q->head == FENNEL_MATCH_NONE)
            continue;
        const Node *node = &g_array_index(m->nodes, Node, q->head);
        if (node->seq < best_seq) {
            best_seq = node->seq;
            best = q;
        }
    }
    if (best) {
        uint32_t recv = g_array_index(m->nodes, Node, best->head).item;
        pop(m, best);
        return recv;
    }
    uint64_t seq = m->seq++;
    if (msg >= m->taken->len)
        g_array_set_size(m->taken, MAX(msg + 1, m->taken->len * 2));
    const int uq[4] = {UQ_EXACT, UQ_BY_TAG, UQ_BY_SOURCE, UQ_ALL};
    for (int i = 0; i < 4; i++)
        push(m, queue_get(m, dst, uq[i], as[i], bs[i]), msg, seq);
    m->unexpected++;
    return FENNEL_MATCH_NONE;
}

uint32_t fennel_match_post(FennelMatch *m, uint32_t dst, uint32_t src, uint32_t tag, uint32_t recv)
{
    gboolean any_src = src == FENNEL_ANY, any_tag = tag == FENNEL_ANY;
    uint32_t a = any_src ? 0 : src, b = any_tag ? 0 : tag;
    int uq = any_src ? (any_tag ? UQ_ALL : UQ_BY_TAG) : (any_tag ? UQ_BY_SOURCE : UQ_EXACT);
    Queue *q = queue_find(m, dst, uq, a, b);
    Node *node = q ? live_head(m, q) : NULL;
    if (node) {
        uint32_t msg = node->item;
        g_array_index(m->taken, uint8_t, msg) = 1;
        pop(m, q);
        m->unexpected--;
        return msg;
    }
    int rq = any_src ? (any_tag ? RQ_ANY_BOTH : RQ_ANY_SOURCE) : (any_tag ? RQ_ANY_TAG : RQ_EXACT);
    push(m, queue_get(m, dst, rq, a, b), recv, m->seq++);
    return FENNEL_MATCH_NONE;
}
