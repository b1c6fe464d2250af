/* The engine's event queue: pops entries in (time, key) order, exactly as a heap would,
 * but built for what collective schedules look like: thousands of entries share each
 * time (every rank of a stage is ready at once), and they tend to arrive in key order.
 *
 * Entries of a future time collect in a bucket (an unsorted array found through a small
 * cache and a hash map); a heap holds only the distinct future times. When a time comes, its
 * bucket is sorted once (usually it is sorted already) and read in order. Entries pushed for
 * the current time go to a FIFO while their keys increase, and to "the entries" (below)
 * otherwise, as do entries for earlier times (engine rule 2 of docs/SEMANTICS.md allows them); a
 * pop takes the least of the heads. Pushes and pops of clustered entries cost O(1).
 *
 * With noise nearly every time is distinct, and a bucket, a map entry and a time per entry
 * cost several times what the entry itself does. The queue watches how many entries share
 * a time: when buckets hold two entries or fewer on average, future entries that miss the
 * cache go to the entries instead (the "distinct" mode), and when the times popped from
 * those repeat sixteen times or more on average, to buckets again. An entry's place never
 * changes the order: a time may have entries both in a bucket and in the entries, and a
 * pop still takes the least (time, key) of all heads.
 *
 * The entries are a radix heap (radix.h), whose pops read its arrays in sequence where a
 * binary heap's miss the caches at its lower levels, and a heap (`behind`) for the few
 * whose time is before the radix heap's last pop (an entry for an earlier time, or the
 * window's last sent back once the radix heap has popped later ones). Their least entries wait
 * sorted in a short window (`ahead`) in front of both, refilled by one pop per pop: every
 * entry in the window precedes every other entry, and an entry pushed before the window's
 * last goes into the window in its place. The engine reads the window to fetch the data of
 * the tasks it will pop a few events later (engine.c), since with noise it pops them in an
 * order unrelated to the program's and each task's data misses the cache; the window
 * changes no order. */
#ifndef FENNEL_QUEUE_H
#define FENNEL_QUEUE_H

#include "heap.h"
#include "map.h"
#include "radix.h"

typedef struct {
    uint64_t *keys;
    size_t len, capacity;
} FennelBucket;

/* Entries kept in the window ahead of the others, and its room (the window slides
 * along it and is moved back to the start when it reaches the end). */
#define FENNEL_QUEUE_AHEAD      16
#define FENNEL_QUEUE_AHEAD_ROOM 64

typedef struct {
    FennelTime now;       /* the time being popped */
    gboolean started;     /* whether `now` is set */
    gboolean distinct;    /* future entries that miss the cache go to the entries */
    FennelBucket current; /* keys at `now`, sorted */
    size_t current_pos;
    uint64_t *fifo; /* keys at `now` pushed after it began, increasing */
    size_t fifo_head, fifo_len, fifo_capacity;
    /* The entries in no bucket and not in the FIFO, at any time ("the entries"): the least
     * of them sorted in ahead[ahead_head .. ahead_head + ahead_len), each before every other
     * one, and the window full whenever there are others; the others in `radix` when their
     * time is not before its floor (radix.h), else in `behind`. */
    FennelHeapEntry ahead[FENNEL_QUEUE_AHEAD_ROOM];
    uint32_t ahead_head, ahead_len;
    FennelRadix radix;
    FennelHeap behind;
    FennelHeap times; /* distinct future times (key unused) */
    FennelMap index;  /* future time -> bucket number */
    GArray *buckets;  /* FennelBucket, reused through `free_buckets` */
    GArray *free_buckets;
    FennelTime cache_time[4]; /* recent future times and their buckets */
    uint32_t cache_bucket[4];
    unsigned cache_next;
    uint64_t *scratch; /* for sorting buckets */
    size_t scratch_capacity;
    size_t len;
    /* What decides the mode: entries and distinct times popped since the last decision. */
    uint64_t seen_entries, seen_times;
} FennelQueue;

void fennel_queue_init(FennelQueue *q);
void fennel_queue_clear(FennelQueue *q);
/* The out-of-line halves of push and pop. */
void fennel_queue_push_slow(FennelQueue *q, FennelTime time, uint64_t key);
gboolean fennel_queue_pop_slow(FennelQueue *q, FennelTime *time, uint64_t *key);

/* Whether there are entries (see `radix` above): the window holds one whenever there are. */
static inline gboolean fennel_queue_has_entries(const FennelQueue *q)
{
    return q->ahead_len > 0;
}

/* The least of them; there must be one (so the window has it). */
static inline const FennelHeapEntry *fennel_queue_entries_top(const FennelQueue *q)
{
    return &q->ahead[q->ahead_head];
}

/* The key of the i-th entry of the window (0: the least), if there is one: an entry the
 * queue will pop after every entry before it in the window, though others may come
 * between. */
static inline gboolean fennel_queue_ahead_key(const FennelQueue *q, uint32_t i, uint64_t *key)
{
    if (i >= q->ahead_len)
        return FALSE;
    *key = q->ahead[q->ahead_head + i].key;
    return TRUE;
}

/* The key of the entry i places after the next pop's, as far as the queue can tell without
 * work: the window's when there are entries, else the current time's bucket's.
 * A hint for fetching data ahead: entries pushed meanwhile, or the FIFO's, may come
 * between. */
static inline gboolean fennel_queue_peek(const FennelQueue *q, uint32_t i, uint64_t *key)
{
    if (fennel_queue_has_entries(q))
        return fennel_queue_ahead_key(q, i, key);
    const size_t at = q->current_pos + i;
    if (at >= q->current.len)
        return FALSE;
    *key = q->current.keys[at];
    return TRUE;
}

static inline void fennel_queue_push(FennelQueue *q, FennelTime time, uint64_t key)
{
    /* The common cases: a future time just seen, or the current time in key order. */
    if (q->started && time > q->now) {
        for (int i = 0; i < 4; i++) {
            if (q->cache_time[i] == time && q->cache_bucket[i] != UINT32_MAX) {
                FennelBucket *b = &((FennelBucket *)(void *)q->buckets->data)[q->cache_bucket[i]];
                if (G_LIKELY(b->len < b->capacity)) {
                    b->keys[b->len++] = key;
                    q->len++;
                    return;
                }
                break;
            }
        }
    } else if (q->started && time == q->now && q->fifo_len > 0 &&
               q->fifo_head + q->fifo_len < q->fifo_capacity &&
               key > q->fifo[q->fifo_head + q->fifo_len - 1]) {
        q->fifo[q->fifo_head + q->fifo_len++] = key;
        q->len++;
        return;
    }
    fennel_queue_push_slow(q, time, key);
}

/* Pops the least (time, key); FALSE when empty. */
static inline gboolean fennel_queue_pop(FennelQueue *q, FennelTime *time, uint64_t *key)
{
    /* The common case: the least of the current bucket's and the FIFO's heads, there being
     * no entries. */
    if (!fennel_queue_has_entries(q)) {
        gboolean in_bucket = q->current_pos < q->current.len;
        if (in_bucket &&
            (q->fifo_len == 0 || q->current.keys[q->current_pos] < q->fifo[q->fifo_head])) {
            *time = q->now;
            *key = q->current.keys[q->current_pos++];
            q->len--;
            return TRUE;
        }
        if (q->fifo_len > 0) {
            *time = q->now;
            *key = q->fifo[q->fifo_head++];
            q->fifo_len--;
            q->len--;
            return TRUE;
        }
    }
    return fennel_queue_pop_slow(q, time, key);
}

static inline size_t fennel_queue_len(const FennelQueue *q)
{
    return q->len;
}

#endif
