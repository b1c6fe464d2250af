#include "radix.h"

#include <string.h>

/* Arrays at least this long go to the spares when their bucket is emptied: as time
 * advances, the buckets of the upper levels fill one after the other, and each would
 * otherwise keep the largest array it ever had. */
#define SPARE_MIN 256

void fennel_radix_init(FennelRadix *r)
{
    memset(r, 0, sizeof *r);
}

void fennel_radix_clear(FennelRadix *r)
{
    for (unsigned l = 0; l < FENNEL_RADIX_LEVELS; l++) {
        if (r->bucket[l] == NULL)
            continue;
        for (unsigned d = 0; d < FENNEL_RADIX_WIDTH; d++)
            g_free(r->bucket[l][d].e);
        g_free(r->bucket[l]);
    }
    for (unsigned i = 0; i < r->n_spare; i++)
        g_free(r->spare[i].e);
    fennel_radix_init(r);
}

FennelRadixBucket *fennel_radix_level_new(FennelRadix *r, unsigned level)
{
    r->bucket[level] = g_new0(FennelRadixBucket, FENNEL_RADIX_WIDTH);
    return r->bucket[level];
}

void fennel_radix_grow(FennelRadix *r, FennelRadixBucket *b)
{
    const uint32_t capacity = b->capacity ? 2 * b->capacity : 8;
    if (b->capacity > UINT32_MAX / 2)
        g_error("the event queue could not grow a bucket beyond %u entries", b->capacity);
    if (capacity >= SPARE_MIN && r->n_spare > 0 && r->spare[r->n_spare - 1].capacity >= capacity) {
        FennelRadixBucket s = r->spare[--r->n_spare];
        memcpy(s.e, b->e, b->len * sizeof *b->e);
        g_free(b->e);
        b->e = s.e;
        b->capacity = s.capacity;
        return;
    }
    b->e = g_renew(FennelHeapEntry, b->e, capacity);
    b->capacity = capacity;
}

void fennel_radix_settle(FennelRadix *r)
{
    g_assert(r->len > 0 && !(r->levels & 1));
    const unsigned level = (unsigned)__builtin_ctz(r->levels);
    uint64_t *used = r->used[level];
    unsigned w = 0;
    while (used[w] == 0)
        w++;
    const unsigned digit = w * 64 + (unsigned)__builtin_ctzll(used[w]);
    used[w] &= ~(1ull << (digit % 64));
    gboolean any = FALSE;
    for (unsigned i = 0; i < FENNEL_RADIX_WORDS; i++)
        any |= used[i] != 0;
    if (!any)
        r->levels &= ~(1u << level);
    /* Its entries agree with every entry of the lower levels and with the last pop above
     * this level; relative to their least time, each goes to a lower level. */
    FennelRadixBucket taken = r->bucket[level][digit];
    r->bucket[level][digit] = (FennelRadixBucket){NULL, 0, 0};
    uint64_t least = UINT64_MAX;
    for (uint32_t i = 0; i < taken.len; i++)
        least = MIN(least, fennel_radix_bias(taken.e[i].time));
    r->last = least;
    for (uint32_t i = 0; i < taken.len; i++)
        fennel__radix_place(r, taken.e[i]);
    taken.len = 0;
    if (taken.capacity >= SPARE_MIN && r->n_spare < FENNEL_RADIX_SPARES)
        r->spare[r->n_spare++] = taken;
    else if (taken.capacity >= SPARE_MIN)
        g_free(taken.e);
    else
        r->bucket[level][digit] = taken;
}
