#include "match_private.h"

#include "map.h"
#include "program.h"

#include <string.h>

/* A rank's posted receives and its unexpected messages wait in two rows of its own, each in
 * the order they came, and a message or receive is matched by scanning the other row from
 * its oldest entry: no hash look-up, and in the usual case (the oldest matches, or one of the
 * first few) a cache miss or two. Rows grow as needed, so a rank that posts thousands of
 * receives at once (a GOAL ring, every step's receive posted at the start) keeps 12 bytes a
 * receive. A scan that passes SCAN_LIMIT entries of a long row without a match (receives
 * and messages in very different orders, where scanning would be quadratic) sends the rank
 * over to the hashed index of match_index.c, its entries replayed into it in order, until
 * it has none left. The rows of all ranks are allocated at once as fresh pages, so a rank
 * that never receives costs nothing. */
#define SCAN_LIMIT 64

typedef struct {
    uint32_t src, tag, item;
} Entry;

/* Entries e[head .. head + n) of cap. */
typedef struct {
    Entry *e;
    uint32_t head, n, cap;
} Row;

typedef struct {
    Row recvs, msgs;
    uint32_t hashed; /* the rank's entries are in the index, `pending` of them */
    uint32_t pending;
    uint32_t pad[2];
} Slab;

G_STATIC_ASSERT(sizeof(Slab) == 64);

/* Non-overtaking, the same way: per sending rank, the latest arrival of a send to each of
 * its first destinations, two in its slab, then CHANNEL_ROW in a row of its own; further
 * pairs are in a hash map. */
#define INLINE      2
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
    GPtrArray *rows;      /* the channels' rows */
    GArray *with_rows;    /* ranks whose slab holds receive or message rows */
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
    m->with_rows = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    fennel_map_init(&m->more_pairs);
    return m;
}

void fennel_match_free(FennelMatch *m)
{
    if (m == NULL)
        return;
    for (guint i = 0; i < m->with_rows->len; i++) {
        Slab *s = &m->slabs[g_array_index(m->with_rows, uint32_t, i)];
        g_free(s->recvs.e);
        g_free(s->msgs.e);
    }
    g_array_free(m->with_rows, TRUE);
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

/* The row's oldest entry. A row that never held one has no array, and NULL + 0 is undefined
 * behaviour in C (UBSan says so), so it is not computed then. */
static inline const Entry *oldest(const Row *row)
{
    return row->e ? row->e + row->head : NULL;
}

/* Takes entry i out of the row, keeping the others in order: the shorter side moves. */
static uint32_t take(Row *row, uint32_t i)
{
    Entry *e = row->e + row->head;
    uint32_t item = e[i].item;
    if (i < row->n / 2) {
        memmove(e + 1, e, sizeof(Entry) * i);
        row->head++;
    } else {
        memmove(e + i, e + i + 1, sizeof(Entry) * (row->n - i - 1));
    }
    if (--row->n == 0)
        row->head = 0;
    return item;
}

static void append(FennelMatch *m, uint32_t rank, Row *row, Entry entry)
{
    if (row->head + row->n == row->cap) {
        if (row->head == 0 || row->n > row->cap / 2) {
            Slab *s = &m->slabs[rank];
            if (s->recvs.e == NULL && s->msgs.e == NULL)
                g_array_append_val(m->with_rows, rank);
            row->cap = MAX(4, 2 * row->cap);
            row->e = g_renew(Entry, row->e, row->cap);
        }
        memmove(row->e, row->e + row->head, sizeof(Entry) * row->n);
        row->head = 0;
    }
    row->e[row->head + row->n++] = entry;
}

/* The rank's scans grew long: its entries go to the index, receives and messages each in the
 * order they came (none matches another, they would have met, so replaying them only
 * records them; the order between a receive and a message never decides anything). */
static void spill(FennelMatch *m, uint32_t dst, Slab *s)
{
    if (m->index == NULL)
        m->index = fennel__match_index_new();
    s->hashed = 1;
    s->pending = s->recvs.n + s->msgs.n;
    const Entry *e = oldest(&s->recvs);
    for (uint32_t i = 0; i < s->recvs.n; i++)
        fennel__match_index_post(m->index, dst, e[i].src, e[i].tag, e[i].item);
    e = oldest(&s->msgs);
    for (uint32_t i = 0; i < s->msgs.n; i++)
        fennel__match_index_arrive(m->index, dst, e[i].src, e[i].tag, e[i].item);
    m->unexpected -= s->msgs.n;
    s->recvs.n = s->recvs.head = 0;
    s->msgs.n = s->msgs.head = 0;
}

/* The index of a hashed rank matched (an entry left it) or recorded an entry; with none
 * left, the rank's rows serve it again. Returns what was matched. */
static uint32_t hashed(Slab *s, uint32_t matched)
{
    if (matched == NONE)
        s->pending++;
    else if (--s->pending == 0)
        s->hashed = 0;
    return matched;
}

uint32_t fennel_match_arrive(FennelMatch *m, uint32_t dst, uint32_t src, uint32_t tag, uint32_t msg)
{
    g_assert(dst < m->ranks);
    Slab *s = &m->slabs[dst];
    if (!s->hashed) {
        /* The oldest posted receive that accepts the message. */
        const Entry *e = oldest(&s->recvs);
        for (uint32_t i = 0; i < s->recvs.n; i++) {
            if ((e[i].src == FENNEL_ANY || e[i].src == src) &&
                (e[i].tag == FENNEL_ANY || e[i].tag == tag)) {
                uint32_t recv = take(&s->recvs, i);
                if (i >= SCAN_LIMIT)
                    spill(m, dst, s);
                return recv;
            }
        }
        append(m, dst, &s->msgs, (Entry){src, tag, msg});
        m->unexpected++;
        if (s->recvs.n >= SCAN_LIMIT)
            spill(m, dst, s);
        return NONE;
    }
    return hashed(s, fennel__match_index_arrive(m->index, dst, src, tag, msg));
}

uint32_t fennel_match_post(FennelMatch *m, uint32_t dst, uint32_t src, uint32_t tag, uint32_t recv)
{
    g_assert(dst < m->ranks);
    Slab *s = &m->slabs[dst];
    if (!s->hashed) {
        /* The oldest unexpected message that the receive accepts. */
        const Entry *e = oldest(&s->msgs);
        for (uint32_t i = 0; i < s->msgs.n; i++) {
            if ((src == FENNEL_ANY || src == e[i].src) && (tag == FENNEL_ANY || tag == e[i].tag)) {
                m->unexpected--;
                uint32_t msg = take(&s->msgs, i);
                if (i >= SCAN_LIMIT)
                    spill(m, dst, s);
                return msg;
            }
        }
        append(m, dst, &s->recvs, (Entry){src, tag, recv});
        if (s->msgs.n >= SCAN_LIMIT)
            spill(m, dst, s);
        return NONE;
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
