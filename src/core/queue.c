#include "queue.h"

#include <stdlib.h>
#include <string.h>

#define NO_BUCKET UINT32_MAX

/* The mode is decided again after this many buckets made current (bucket mode) or this
 * many popped from the entries (distinct mode). Buckets pay when their times hold
 * more than a few entries each; the gap between the two thresholds keeps a workload near
 * the break-even point from switching back and forth. */
#define BUCKET_WINDOW    64
#define HEAP_WINDOW      256
#define TO_DISTINCT_MEAN 2  /* at most this many entries per time: distinct mode */
#define TO_BUCKET_MEAN   16 /* at least this many entries per time: buckets again */

void fennel_queue_init(FennelQueue *q)
{
    memset(q, 0, sizeof *q);
    fennel_radix_init(&q->radix);
    fennel_heap_init(&q->behind);
    fennel_heap_init(&q->times);
    fennel_map_init(&q->index);
    q->buckets = g_array_new(FALSE, FALSE, sizeof(FennelBucket));
    q->free_buckets = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    for (int i = 0; i < 4; i++)
        q->cache_bucket[i] = NO_BUCKET;
}

void fennel_queue_clear(FennelQueue *q)
{
    for (guint i = 0; i < q->buckets->len; i++)
        g_free(g_array_index(q->buckets, FennelBucket, i).keys);
    g_array_free(q->buckets, TRUE);
    g_array_free(q->free_buckets, TRUE);
    g_free(q->current.keys);
    g_free(q->fifo);
    g_free(q->scratch);
    fennel_radix_clear(&q->radix);
    fennel_heap_clear(&q->behind);
    fennel_heap_clear(&q->times);
    fennel_map_clear(&q->index);
}

/* Moves the window back to the start of its room. */
static void ahead_rewind(FennelQueue *q)
{
    memmove(q->ahead, q->ahead + q->ahead_head, q->ahead_len * sizeof *q->ahead);
    q->ahead_head = 0;
}

/* Keeps an entry that is not in the window: in the radix heap unless its time is before the
 * radix heap's floor (an entry for a time before the current one, engine rule 2 of
 * docs/SEMANTICS.md, or the window's last sent back after a later pop from the radix). */
static inline void entries_keep(FennelQueue *q, FennelTime time, uint64_t key)
{
    if (G_LIKELY(time >= fennel_radix_floor(&q->radix)))
        fennel_radix_push(&q->radix, time, key);
    else
        fennel_heap_push(&q->behind, time, key);
}

/* Adds an entry to the entries: to the window while it is not full (there are no others
 * then) or when the entry comes before its last (which then leaves it), else kept. */
static void entries_push(FennelQueue *q, FennelTime time, uint64_t key)
{
    const FennelHeapEntry e = {time, key};
    if (q->ahead_len == FENNEL_QUEUE_AHEAD) {
        if (!fennel_heap_less(&e, &q->ahead[q->ahead_head + q->ahead_len - 1])) {
            entries_keep(q, time, key);
            return;
        }
        /* It still precedes every other entry. */
        const FennelHeapEntry *last = &q->ahead[q->ahead_head + --q->ahead_len];
        entries_keep(q, last->time, last->key);
    }
    if (q->ahead_head + q->ahead_len == FENNEL_QUEUE_AHEAD_ROOM)
        ahead_rewind(q);
    uint32_t i = q->ahead_head + q->ahead_len;
    for (; i > q->ahead_head && fennel_heap_less(&e, &q->ahead[i - 1]); i--)
        q->ahead[i] = q->ahead[i - 1];
    q->ahead[i] = e;
    q->ahead_len++;
}

/* Removes the least entry outside the window (there must be one) into *out. */
static inline void entries_take(FennelQueue *q, FennelHeapEntry *out)
{
    if (G_LIKELY(q->behind.len == 0)) {
        fennel_radix_pop(&q->radix, out);
    } else if (q->radix.len == 0 ||
               fennel_heap_less(&q->behind.entries[0], fennel_radix_top(&q->radix))) {
        fennel_heap_pop(&q->behind, out);
    } else {
        fennel_radix_pop(&q->radix, out);
    }
}

/* Removes the least entry (there must be one) into *out, and fills the window again. */
static void entries_pop(FennelQueue *q, FennelHeapEntry *out)
{
    *out = q->ahead[q->ahead_head++];
    q->ahead_len--;
    if (q->ahead_len == 0)
        q->ahead_head = 0;
    while (q->ahead_len < FENNEL_QUEUE_AHEAD && q->radix.len + q->behind.len > 0) {
        if (q->ahead_head + q->ahead_len == FENNEL_QUEUE_AHEAD_ROOM)
            ahead_rewind(q);
        entries_take(q, &q->ahead[q->ahead_head + q->ahead_len++]);
    }
}

static void bucket_append(FennelBucket *b, uint64_t key)
{
    if (G_UNLIKELY(b->len == b->capacity)) {
        b->capacity = b->capacity ? b->capacity * 2 : 64;
        b->keys = g_renew(uint64_t, b->keys, b->capacity);
    }
    b->keys[b->len++] = key;
}

/* The bucket of a future time, created when new. */
static uint32_t bucket_for(FennelQueue *q, FennelTime time)
{
    for (int i = 0; i < 4; i++) {
        if (q->cache_bucket[i] != NO_BUCKET && q->cache_time[i] == time)
            return q->cache_bucket[i];
    }
    uint64_t *slot = fennel_map_slot(&q->index, (uint64_t)time, 0, UINT64_MAX);
    if (*slot == UINT64_MAX) {
        uint32_t id;
        if (q->free_buckets->len > 0) {
            id = g_array_index(q->free_buckets, uint32_t, q->free_buckets->len - 1);
            g_array_set_size(q->free_buckets, q->free_buckets->len - 1);
        } else {
            FennelBucket empty = {NULL, 0, 0};
            id = q->buckets->len;
            g_array_append_val(q->buckets, empty);
        }
        *slot = id;
        fennel_heap_push(&q->times, time, 0);
    }
    /* Replace cache entries round robin. */
    int victim = (int)(q->cache_next++ & 3);
    q->cache_time[victim] = time;
    q->cache_bucket[victim] = (uint32_t)*slot;
    return (uint32_t)*slot;
}

void fennel_queue_push_slow(FennelQueue *q, FennelTime time, uint64_t key)
{
    q->len++;
    if (!q->started || time > q->now) {
        if (q->distinct) {
            entries_push(q, time, key);
            return;
        }
        uint32_t id = bucket_for(q, time); /* may grow the bucket array: look up after */
        bucket_append(&g_array_index(q->buckets, FennelBucket, id), key);
        return;
    }
    if (time == q->now && (q->fifo_len == 0 || key > q->fifo[q->fifo_head + q->fifo_len - 1])) {
        if (q->fifo_head + q->fifo_len == q->fifo_capacity) {
            /* Compact only when at least half is consumed, else grow: each key is then
             * moved O(1) times on average. */
            if (q->fifo_capacity > 0 && q->fifo_head >= q->fifo_capacity / 2) {
                memmove(q->fifo, q->fifo + q->fifo_head, q->fifo_len * sizeof *q->fifo);
                q->fifo_head = 0;
            } else {
                q->fifo_capacity = q->fifo_capacity ? q->fifo_capacity * 2 : 64;
                q->fifo = g_renew(uint64_t, q->fifo, q->fifo_capacity);
            }
        }
        q->fifo[q->fifo_head + q->fifo_len++] = key;
        return;
    }
    entries_push(q, time, key);
}

/* Sorts a bucket's keys: insertion sort when short, else an LSD radix sort over the bits
 * the keys use (11 bits a pass), ping-ponging with a scratch array. */
static void sort_keys(FennelQueue *q, uint64_t *keys, size_t n)
{
    if (n < 48) {
        for (size_t i = 1; i < n; i++) {
            uint64_t v = keys[i];
            size_t j = i;
            for (; j > 0 && keys[j - 1] > v; j--)
                keys[j] = keys[j - 1];
            keys[j] = v;
        }
        return;
    }
    /* Only the bits in which keys differ need passes: every key of a bucket usually has the
     * same event kind in its top bits (engine_private.h), so a pass over a digit that is
     * the same in all keys, which would move nothing, is skipped. */
    uint64_t any = 0, all = UINT64_MAX;
    for (size_t i = 0; i < n; i++) {
        any |= keys[i];
        all &= keys[i];
    }
    const uint64_t bits = any ^ all;
    if (q->scratch_capacity < n) {
        q->scratch = g_renew(uint64_t, q->scratch, n);
        q->scratch_capacity = n;
    }
    uint64_t *from = keys, *to = q->scratch;
    /* Narrower digits for smaller buckets, so that clearing the counts stays cheap. */
    const unsigned width = n < 4096 ? 8 : 11;
    const uint64_t mask = ((uint64_t)1 << width) - 1;
    size_t count[2048];
    for (unsigned shift = 0; shift < 64 && (bits >> shift) != 0; shift += width) {
        if (((bits >> shift) & mask) == 0)
            continue; /* a stable pass over this digit would keep the order */
        memset(count, 0, sizeof(size_t) << width);
        for (size_t i = 0; i < n; i++)
            count[(from[i] >> shift) & mask]++;
        size_t sum = 0;
        for (size_t d = 0; d <= mask; d++) {
            size_t c = count[d];
            count[d] = sum;
            sum += c;
        }
        for (size_t i = 0; i < n; i++)
            to[count[(from[i] >> shift) & mask]++] = from[i];
        uint64_t *swap = from;
        from = to;
        to = swap;
    }
    if (from != keys)
        memcpy(keys, from, n * sizeof *keys);
}

/* Makes the next future time current; FALSE when there is none. */
static gboolean advance(FennelQueue *q)
{
    if (q->times.len == 0)
        return FALSE;
    FennelHeapEntry e;
    fennel_heap_pop(&q->times, &e);
    uint64_t *slot = fennel_map_find(&q->index, (uint64_t)e.time, 0);
    uint32_t id = (uint32_t)*slot;
    fennel_map_remove(&q->index, (uint64_t)e.time, 0);
    for (int i = 0; i < 4; i++) {
        if (q->cache_bucket[i] == id)
            q->cache_bucket[i] = NO_BUCKET;
    }
    /* Swap the bucket's storage with the spent current array. */
    FennelBucket *b = &g_array_index(q->buckets, FennelBucket, id);
    FennelBucket spent = q->current;
    q->current = *b;
    *b = (FennelBucket){spent.keys, 0, spent.capacity};
    g_array_append_val(q->free_buckets, id);
    q->current_pos = 0;
    q->now = e.time;
    q->started = TRUE;
    q->fifo_head = q->fifo_len = 0;
    if (!q->distinct) {
        q->seen_entries += q->current.len;
        if (++q->seen_times >= BUCKET_WINDOW) {
            q->distinct = q->seen_entries <= TO_DISTINCT_MEAN * q->seen_times;
            q->seen_entries = q->seen_times = 0;
        }
    }
    for (size_t i = 1; i < q->current.len; i++) {
        if (q->current.keys[i] < q->current.keys[i - 1]) {
            sort_keys(q, q->current.keys, q->current.len);
            break;
        }
    }
    return TRUE;
}

/* Pops the least of the entries, which is the queue's least. A time after `now` becomes the
 * current one: the current bucket and the FIFO are empty then (their entries, at `now`,
 * would come first), and every bucket's time is later (a bucket's time equal to the
 * entry's would have been made current first), so every part keeps its meaning. */
static void pop_heap(FennelQueue *q, FennelTime *time, uint64_t *key)
{
    FennelHeapEntry e;
    entries_pop(q, &e);
    gboolean new_time = e.time > q->now;
    if (new_time) {
        q->now = e.time;
        q->fifo_head = 0;
    }
    if (q->distinct) {
        q->seen_times += new_time;
        if (++q->seen_entries >= HEAP_WINDOW) {
            q->distinct = q->seen_entries < TO_BUCKET_MEAN * q->seen_times;
            q->seen_entries = q->seen_times = 0;
        }
    }
    *time = e.time;
    *key = e.key;
}

gboolean fennel_queue_pop_slow(FennelQueue *q, FennelTime *time, uint64_t *key)
{
    for (;;) {
        /* The least of the current bucket's head, the FIFO's head and the entries'. */
        int source = -1;
        FennelTime best_time = 0;
        uint64_t best_key = 0;
        if (q->current_pos < q->current.len) {
            source = 0;
            best_time = q->now;
            best_key = q->current.keys[q->current_pos];
        }
        if (q->fifo_len > 0) {
            uint64_t k = q->fifo[q->fifo_head];
            if (source < 0 || k < best_key) {
                source = 1;
                best_time = q->now;
                best_key = k;
            }
        }
        if (fennel_queue_has_entries(q)) {
            const FennelHeapEntry *top = fennel_queue_entries_top(q);
            /* With nothing at `now`, the entries' head competes with the next bucket: a
             * bucket of the same time is made current first, and the keys decide. */
            if (source < 0
                    ? q->times.len == 0 || top->time < q->times.entries[0].time
                    : top->time < best_time || (top->time == best_time && top->key < best_key)) {
                q->len--;
                pop_heap(q, time, key);
                return TRUE;
            }
        }
        switch (source) {
        case 0:
            q->current_pos++;
            break;
        case 1:
            q->fifo_head++;
            q->fifo_len--;
            break;
        default:
            if (!advance(q))
                return FALSE;
            continue;
        }
        q->len--;
        *time = best_time;
        *key = best_key;
        return TRUE;
    }
}
