#include "heap.h"

void fennel_heap_init(FennelHeap *h)
{
    h->entries = NULL;
    h->len = 0;
    h->capacity = 0;
}

void fennel_heap_clear(FennelHeap *h)
{
    g_free(h->entries);
    fennel_heap_init(h);
}

void fennel_heap_grow(FennelHeap *h)
{
    h->capacity = h->capacity ? h->capacity * 2 : 256;
    h->entries = g_renew(FennelHeapEntry, h->entries, h->capacity);
}
