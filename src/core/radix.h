/* A radix heap of (time, key) entries for the event queue's entries of distinct times
 * (queue.h): pops them in (time, key) order, as fennel_heap_pop would, provided no entry is
 * pushed with a time before the last one popped (fennel_radix_floor; the queue keeps such
 * entries elsewhere). Equal times may come in any key order.
 *
 * Times are cut into digits of 8 bits. An entry sits at the level of the highest digit in
 * which its time differs from the last popped time, in the bucket of its own digit there;
 * at level 0 (only the lowest digit differs, or none) a bucket holds one exact time and is a
 * binary heap of its keys. A pop takes the least key of the first bucket of level 0; when
 * level 0 is empty, the first bucket of the lowest level in use is emptied into the levels
 * below it, relative to its least time. An entry therefore moves at most once per level its
 * time spans above the last pop (two or three for noise of tens of nanoseconds on times of
 * microseconds), each move an append to an array read in sequence, where a heap of a
 * hundred thousand entries reads a line of a lower level at each of its eight levels on
 * every pop, and those lines miss the caches (docs/PERFORMANCE.md, Noise). */
#ifndef FENNEL_RADIX_H
#define FENNEL_RADIX_H

#include "heap.h"

#define FENNEL_RADIX_BITS   8
#define FENNEL_RADIX_WIDTH  (1u << FENNEL_RADIX_BITS)
#define FENNEL_RADIX_LEVELS (64 / FENNEL_RADIX_BITS)
#define FENNEL_RADIX_WORDS  (FENNEL_RADIX_WIDTH / 64)
/* Large arrays of emptied buckets kept for the buckets that fill next. */
#define FENNEL_RADIX_SPARES 16

typedef struct {
    FennelHeapEntry *e;
    uint32_t len, capacity;
} FennelRadixBucket;

typedef struct {
    uint64_t last; /* the last popped time, biased (fennel_radix_bias); 0 before any */
    size_t len;
    unsigned levels;                                        /* bit l: level l has entries */
    uint64_t used[FENNEL_RADIX_LEVELS][FENNEL_RADIX_WORDS]; /* bit d: bucket d of the level */
    FennelRadixBucket *bucket[FENNEL_RADIX_LEVELS];         /* per level, at its first use */
    FennelRadixBucket spare[FENNEL_RADIX_SPARES];
    unsigned n_spare;
} FennelRadix;

void fennel_radix_init(FennelRadix *r);
void fennel_radix_clear(FennelRadix *r);
/* The out-of-line parts: a level's buckets, a full bucket's growth, and the emptying of the
 * first bucket of the lowest level in use into the levels below (level 0 must be empty). */
FennelRadixBucket *fennel_radix_level_new(FennelRadix *r, unsigned level);
void fennel_radix_grow(FennelRadix *r, FennelRadixBucket *b);
void fennel_radix_settle(FennelRadix *r);

/* Times as unsigned numbers in the same order. */
static inline uint64_t fennel_radix_bias(FennelTime t)
{
    return (uint64_t)t ^ (1ull << 63);
}

/* The earliest time a push may have. */
static inline FennelTime fennel_radix_floor(const FennelRadix *r)
{
    return (FennelTime)(r->last ^ (1ull << 63));
}

static inline void fennel__radix_place(FennelRadix *r, FennelHeapEntry e)
{
    const uint64_t u = fennel_radix_bias(e.time), x = u ^ r->last;
    const unsigned level = x ? (unsigned)(63 - __builtin_clzll(x)) / FENNEL_RADIX_BITS : 0;
    const unsigned digit = (unsigned)(u >> (level * FENNEL_RADIX_BITS)) & (FENNEL_RADIX_WIDTH - 1);
    FennelRadixBucket *row = r->bucket[level];
    if (G_UNLIKELY(row == NULL))
        row = fennel_radix_level_new(r, level);
    FennelRadixBucket *b = &row[digit];
    if (G_UNLIKELY(b->len == b->capacity))
        fennel_radix_grow(r, b);
    if (level == 0) {
        /* One time: a binary heap of keys. */
        uint32_t i = b->len++;
        while (i > 0 && e.key < b->e[(i - 1) / 2].key) {
            b->e[i] = b->e[(i - 1) / 2];
            i = (i - 1) / 2;
        }
        b->e[i] = e;
    } else {
        b->e[b->len++] = e;
    }
    r->used[level][digit / 64] |= 1ull << (digit % 64);
    r->levels |= 1u << level;
}

/* Adds an entry; its time must not be before fennel_radix_floor(r). */
static inline void fennel_radix_push(FennelRadix *r, FennelTime time, uint64_t key)
{
    fennel__radix_place(r, (FennelHeapEntry){time, key});
    r->len++;
}

/* The bucket of level 0 that holds the least entry; there must be an entry. */
static inline FennelRadixBucket *fennel__radix_first(FennelRadix *r, unsigned *digit)
{
    if (!(r->levels & 1))
        fennel_radix_settle(r);
    /* The first word in use, found without a loop: which word holds the next time is
     * as random as the noise (docs/PERFORMANCE.md, Noise). */
    unsigned words = 0;
    for (unsigned i = 0; i < FENNEL_RADIX_WORDS; i++)
        words |= (unsigned)(r->used[0][i] != 0) << i;
    const unsigned w = (unsigned)__builtin_ctz(words);
    *digit = w * 64 + (unsigned)__builtin_ctzll(r->used[0][w]);
    return &r->bucket[0][*digit];
}

/* The least entry; there must be one. */
static inline const FennelHeapEntry *fennel_radix_top(FennelRadix *r)
{
    unsigned digit;
    return &fennel__radix_first(r, &digit)->e[0];
}

/* Removes the least entry into *out; there must be one. */
static inline void fennel_radix_pop(FennelRadix *r, FennelHeapEntry *out)
{
    unsigned digit;
    FennelRadixBucket *b = fennel__radix_first(r, &digit);
    *out = b->e[0];
    r->last = fennel_radix_bias(out->time);
    r->len--;
    const uint32_t n = --b->len;
    if (n == 0) {
        r->used[0][digit / 64] &= ~(1ull << (digit % 64));
        gboolean any = FALSE;
        for (unsigned w = 0; w < FENNEL_RADIX_WORDS; w++)
            any |= r->used[0][w] != 0;
        if (!any)
            r->levels &= ~1u;
        return;
    }
    const FennelHeapEntry moved = b->e[n];
    uint32_t i = 0;
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && b->e[c + 1].key < b->e[c].key)
            c++;
        if (b->e[c].key >= moved.key)
            break;
        b->e[i] = b->e[c];
        i = c;
    }
    b->e[i] = moved;
}

#endif
