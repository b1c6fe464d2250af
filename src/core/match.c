#include "match_private.h"

#include "map.h"
#include "program.h"

#include <string.h>

/* Most ranks have few receives posted and messages unexpected at any time, so each rank
 * keeps its first ones in order in 32 bytes of its own, its slab, and, once it needs more,
 * in an array of its own, its row; a message or receive is matched by scanning them: no
 * hash look-up, and on large runs one cache miss or two instead of several. A rank that
 * needs more than a row (a rank that posts a receive for every message to come, say) goes
 * over to the hashed index of match_index.c (its entries replayed into it in order) until
 * it has none left. The slabs of all ranks are allocated at once as fresh pages, so a rank
 * that never receives costs nothing. */
#define INLINE 2  /* entries in a slab */
#define ROW    32 /* entries in a row (at most the bits of `msgs`) */

typedef struct {
    uint32_t src, tag, item;
} Entry;

typedef struct {
    uint32_t msgs;  /* bit i: entry i is an unexpected message, else a posted receive */
    uint8_t n;      /* entries */
    uint8_t hashed; /* the rank's entries are in the index, `pending` of them */
    uint8_t big;    /* the entries are in `row` */
    uint8_t unused;
    union {
        Entry e[INLINE];
        struct {
            Entry *row; /* ROW entries, kept once allocated */
            uint32_t pending;
        };
    };
} Slab;

G_STATIC_ASSERT(sizeof(Slab) == 32);

/* Non-overtaking, the same way: per sending rank, the latest arrival of a send to each of
 * its first destinations, two in its slab, then CHANNEL_ROW in a row of its own; further
 * pairs are in a hash map. */
#define CHANNEL_ROW 32

typedef struct {
    uint32_t n;
    uint32_t big;
    union {
        struct {
            uint32_t dst[INLINE];
            int64_t last[INLINE];
        } in;
        struct {
            uint32_t *dst;
            int64_t *last;
        } row;
    };
} ChannelSlab;

G_STATIC_ASSERT(sizeof(ChannelSlab) == 32);

struct FennelMatch {
    uint32_t ranks;
    Slab *slabs;
    ChannelSlab *channels;
    void *slabs_block, *channels_block;
    GPtrArray *rows;      /* every row allocated */
    uint64_t unexpected;  /* messages in slabs and rows */
    MatchIndex *index;    /* created when a rank first needs it */
    FennelMap more_pairs; /* (src, dst) -> latest arrival, beyond the channel rows */
};

/* count * size zeroed bytes on a cache-line boundary. calloc's large blocks are fresh pages
 * the kernel zeroes when first touched, so the slabs of ranks that never use them cost
 * neither time nor memory (g_aligned_alloc0 would write them all). */
static void *lines_new(size_t count, size_t size, void **block)
{
    *block = g_malloc0_n(1, MAX(count, 1) * size + 63);
    return (void *)(((uintptr_t)*block + 63) & ~(uintptr_t)63);
}

FennelMatch *fennel_match_new(uint32_t ranks)
{
    FennelMatch *m = g_new0(FennelMatch, 1);
    m->ranks = ranks;
    m->slabs = lines_new(ranks, sizeof(Slab), &m->slabs_block);
    m->channels = lines_new(ranks, sizeof(ChannelSlab), &m->channels_block);
    m->rows = g_ptr_array_new_with_free_func(g_free);
    fennel_map_init(&m->more_pairs);
    return m;
}

void fennel_match_free(FennelMatch *m)
{
    if (m == NULL)
        return;
    g_free(m->slabs_block);
    g_free(m->channels_block);
    g_ptr_array_free(m->rows, TRUE);
    if (m->index)
        fennel__match_index_free(m->index);
    fennel_map_clear(&m->more_pairs);
    g_free(m);
}

uint64_t fennel_match_unexpected(const FennelMatch *m)
{
    return m->unexpected + (m->index ? fennel__match_index_unexpected(m->index) : 0);
}

static gboolean accepts(uint32_t src, uint32_t tag, uint32_t msg_src, uint32_t msg_tag)
{
    return (src == FENNEL_ANY || src == msg_src) && (tag == FENNEL_ANY || tag == msg_tag);
}

static Entry *entries(Slab *s)
{
    return s->big ? s->row : s->e;
}

/* Takes entry i out, keeping the others in order. */
static uint32_t take(Slab *s, unsigned i)
{
    Entry *e = entries(s);
    uint32_t item = e[i].item;
    memmove(&e[i], &e[i + 1], sizeof(Entry) * (s->n - i - 1u));
    s->msgs = (s->msgs & ((1u << i) - 1u)) | (s->msgs >> (i + 1u) << i);
    s->n--;
    return item;
}

/* The slab and row are full: their entries go to the index in the order they came. None
 * of them matches another (they would have met), so replaying them only records them. */
static void spill(FennelMatch *m, uint32_t dst, Slab *s)
{
    Entry copy[ROW];
    unsigned n = s->n;
    uint32_t msgs = s->msgs;
    memcpy(copy, entries(s), sizeof(Entry) * n);
    if (m->index == NULL)
        m->index = fennel__match_index_new();
    s->hashed = 1;
    s->pending = n;
    for (unsigned i = 0; i < n; i++) {
        if (msgs >> i & 1u) {
            m->unexpected--;
            fennel__match_index_arrive(m->index, dst, copy[i].src, copy[i].tag, copy[i].item);
        } else
            fennel__match_index_post(m->index, dst, copy[i].src, copy[i].tag, copy[i].item);
    }
}

/* Appends an entry, moving the slab's entries to a row when it is full; FALSE when the
 * row is full too. */
static gboolean append(FennelMatch *m, Slab *s, Entry entry, gboolean msg)
{
    if (!s->big && s->n == INLINE) {
        Entry *row = g_new(Entry, ROW);
        memcpy(row, s->e, sizeof(Entry) * INLINE);
        g_ptr_array_add(m->rows, row);
        s->row = row;
        s->big = 1;
    }
    if (s->n == (s->big ? ROW : INLINE))
        return FALSE;
    entries(s)[s->n] = entry;
    s->msgs |= (uint32_t)msg << s->n;
    s->n++;
    return TRUE;
}

/* The index of a hashed rank matched (an entry left it) or recorded an entry; with none
 * left, the rank's slab (and row) serve it again. Returns what was matched. */
static uint32_t hashed(Slab *s, uint32_t matched)
{
    if (matched == NONE) {
        s->pending++;
    } else if (--s->pending == 0) {
        s->hashed = 0;
        s->n = 0;
        s->msgs = 0;
    }
    return matched;
}

uint32_t fennel_match_arrive(FennelMatch *m, uint32_t dst, uint32_t src, uint32_t tag, uint32_t msg)
{
    g_assert(dst < m->ranks);
    Slab *s = &m->slabs[dst];
    if (!s->hashed) {
        /* The oldest posted receive that accepts the message. */
        const Entry *e = entries(s);
        for (unsigned i = 0; i < s->n; i++) {
            if (!(s->msgs >> i & 1u) && accepts(e[i].src, e[i].tag, src, tag))
                return take(s, i);
        }
        if (append(m, s, (Entry){src, tag, msg}, TRUE)) {
            m->unexpected++;
            return NONE;
        }
        spill(m, dst, s);
    }
    return hashed(s, fennel__match_index_arrive(m->index, dst, src, tag, msg));
}

uint32_t fennel_match_post(FennelMatch *m, uint32_t dst, uint32_t src, uint32_t tag, uint32_t recv)
{
    g_assert(dst < m->ranks);
    Slab *s = &m->slabs[dst];
    if (!s->hashed) {
        /* The oldest unexpected message that the receive accepts. */
        const Entry *e = entries(s);
        for (unsigned i = 0; i < s->n; i++) {
            if ((s->msgs >> i & 1u) && accepts(src, tag, e[i].src, e[i].tag)) {
                m->unexpected--;
                return take(s, i);
            }
        }
        if (append(m, s, (Entry){src, tag, recv}, FALSE))
            return NONE;
        spill(m, dst, s);
    }
    return hashed(s, fennel__match_index_post(m->index, dst, src, tag, recv));
}

int64_t fennel_match_channel(FennelMatch *m, uint32_t src, uint32_t dst, int64_t arrival)
{
    g_assert(src < m->ranks);
    ChannelSlab *c = &m->channels[src];
    uint32_t *dsts = c->big ? c->row.dst : c->in.dst;
    int64_t *lasts = c->big ? c->row.last : c->in.last;
    for (uint32_t i = 0; i < c->n; i++) {
        if (dsts[i] == dst) {
            arrival = MAX(arrival, lasts[i]);
            lasts[i] = arrival;
            return arrival;
        }
    }
    if (!c->big && c->n == INLINE) {
        /* One block: the destinations, then the (8-byte aligned) arrivals. */
        uint32_t *row = g_malloc(CHANNEL_ROW * (sizeof(uint32_t) + sizeof(int64_t)));
        int64_t *last = (int64_t *)(void *)(row + CHANNEL_ROW);
        memcpy(row, c->in.dst, sizeof(uint32_t) * INLINE);
        memcpy(last, c->in.last, sizeof(int64_t) * INLINE);
        g_ptr_array_add(m->rows, row);
        c->row.dst = dsts = row;
        c->row.last = lasts = last;
        c->big = 1;
    }
    if (c->n < (c->big ? CHANNEL_ROW : INLINE)) {
        dsts[c->n] = dst;
        lasts[c->n++] = arrival;
        return arrival;
    }
    uint64_t *last = fennel_map_slot(&m->more_pairs, src, dst, (uint64_t)INT64_MIN);
    arrival = MAX(arrival, (int64_t)*last);
    *last = (uint64_t)arrival;
    return arrival;
}
