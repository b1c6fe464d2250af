#include "heap.h"

#include <stdlib.h>
#include <string.h>

/* The entries sit HEAP_SHIFT entries into a block aligned to a cache line, so that every
 * group of four siblings (entries 4i + 1 .. 4i + 4) fills exactly one line: a pop reads one
 * line per level instead of two. (A large heap's lower levels miss the cache: the queue
 * keeps the entries of distinct times, an entry per rank or more under noise, in a radix
 * heap instead, radix.h.) */
#define HEAP_LINE  64
#define HEAP_SHIFT (HEAP_LINE / sizeof(FennelHeapEntry) - 1)

G_STATIC_ASSERT(HEAP_LINE % sizeof(FennelHeapEntry) == 0);

void fennel_heap_init(FennelHeap *h)
{
    h->entries = NULL;
    h->len = 0;
    h->capacity = 0;
}

void fennel_heap_clear(FennelHeap *h)
{
    if (h->entries)
        free(h->entries - HEAP_SHIFT);
    fennel_heap_init(h);
}

void fennel_heap_grow(FennelHeap *h)
{
    size_t capacity = h->capacity ? h->capacity * 2 : 256;
    void *raw = NULL;
    if (capacity > (SIZE_MAX / sizeof(FennelHeapEntry)) - HEAP_SHIFT ||
        posix_memalign(&raw, HEAP_LINE, (capacity + HEAP_SHIFT) * sizeof(FennelHeapEntry)) != 0)
        g_error("the event queue could not grow to %zu entries", capacity);
    FennelHeapEntry *block = raw;
    if (h->entries) {
        memcpy(block + HEAP_SHIFT, h->entries, h->len * sizeof(FennelHeapEntry));
        free(h->entries - HEAP_SHIFT);
    }
    h->entries = block + HEAP_SHIFT;
    h->capacity = capacity;
}
