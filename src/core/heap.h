/* A 4-ary min-heap on a flat array, ordered by (time, key), behind the engine's event
 * queue (queue.h). The engine's key holds the event kind in its top bits and a task's
 * program order or a message's send order below (engine_private.h), so ties in time are
 * broken by kind, then by that order, and the order is total: the same program always
 * pops in the same sequence. Pushing a time earlier than the last pop
 * is allowed (engine rule 2, docs/SEMANTICS.md). */
#ifndef FENNEL_HEAP_H
#define FENNEL_HEAP_H

#include "units.h"

typedef struct {
    FennelTime time;
    uint64_t key;
} FennelHeapEntry;

typedef struct {
    FennelHeapEntry *entries;
    size_t len;
    size_t capacity;
} FennelHeap;

void fennel_heap_init(FennelHeap *h);
void fennel_heap_clear(FennelHeap *h);

static inline gboolean fennel_heap_less(const FennelHeapEntry *a, const FennelHeapEntry *b)
{
    return a->time < b->time || (a->time == b->time && a->key < b->key);
}

void fennel_heap_grow(FennelHeap *h);

static inline void fennel_heap_push(FennelHeap *h, FennelTime time, uint64_t key)
{
    if (G_UNLIKELY(h->len == h->capacity))
        fennel_heap_grow(h);
    FennelHeapEntry e = {time, key};
    size_t i = h->len++;
    while (i > 0) {
        size_t parent = (i - 1) / 4;
        if (!fennel_heap_less(&e, &h->entries[parent]))
            break;
        h->entries[i] = h->entries[parent];
        i = parent;
    }
    h->entries[i] = e;
}

/* Removes the minimum into *out. The heap must not be empty. Always inlined: the queue
 * pops its heaps on its hot path, and the compiler stopped inlining this by itself once the
 * tournament below made it longer (the call showed in the engine's instruction counts). */
static inline __attribute__((always_inline)) void fennel_heap_pop(FennelHeap *h,
                                                                  FennelHeapEntry *out)
{
    *out = h->entries[0];
    FennelHeapEntry last = h->entries[--h->len];
    size_t n = h->len, i = 0;
    for (;;) {
        size_t child = 4 * i + 1;
        if (child >= n)
            break;
        size_t best = child;
        if (4 * child + 1 < n) {
            /* The four groups of grandchildren, one of which the next level reads: fetched
             * while this level compares, the levels' misses overlap instead of following
             * one another. */
            const FennelHeapEntry *g = &h->entries[4 * child + 1];
            __builtin_prefetch(g);
            __builtin_prefetch(g + 4);
            __builtin_prefetch(g + 8);
            __builtin_prefetch(g + 12);
        }
        if (G_LIKELY(child + 4 <= n)) {
            /* A tournament of two independent pairs, then their winners: the same three
             * comparisons as a scan, without its loop and its chain of dependent steps. */
            const FennelHeapEntry *c = &h->entries[child];
            size_t a = fennel_heap_less(&c[1], &c[0]);
            size_t b = 2 + fennel_heap_less(&c[3], &c[2]);
            best += fennel_heap_less(&c[b], &c[a]) ? b : a;
        } else {
            for (size_t c = child + 1; c < n; c++) {
                if (fennel_heap_less(&h->entries[c], &h->entries[best]))
                    best = c;
            }
        }
        if (!fennel_heap_less(&h->entries[best], &last))
            break;
        h->entries[i] = h->entries[best];
        i = best;
    }
    if (n > 0)
        h->entries[i] = last;
}

#endif
