/* Progressive filling (fair_fill.h) with a heap of links.
 *
 * The plain statement of the filling visits every link and every flow once per level:
 * O(levels x (flows + links)) per call, and an all-to-all of P ranks on a switch has up to
 * 2 P levels among its P (P - 1) flows. Here each link lists the flows crossing it, and the
 * links not yet fixed wait in a binary heap by their share (capacity not yet given out /
 * unfixed flows crossing it). A level pops the links within 1e-12 of the lowest share, fixes
 * the unfixed flows on them, and re-keys once each link those flows also cross: every flow is
 * fixed once and every link moves in the heap once per level that touches it.
 *
 * The results are those of the plain statement to the last bit: a link's share is computed
 * by the same division of the same two numbers; its capacity left is reduced by the same
 * levels in the same order (within a level every subtraction is of the same value, so the
 * order of the flows does not matter); the lowest share of the heap is the minimum of the
 * shares; the links popped are exactly those within the tie tolerance of it. */
#include "fair_fill.h"

#include <glib.h>
#include <math.h>
#include <string.h>

#define NOT_HEAPED UINT32_MAX

typedef struct {
    double key; /* the link's share, as `key` */
    uint32_t link;
} Entry;

struct FennelFairFill {
    uint32_t room;        /* links the per-link arrays below hold */
    double *left;         /* capacity not yet given out */
    double *key;          /* left / count while in the heap */
    uint32_t *count;      /* unfixed flows crossing it; 0 outside a call */
    uint32_t *first;      /* its flows' place in `members` */
    uint32_t *fill;       /* the end of its flows in `members` */
    uint32_t *where;      /* its place in the heap, or NOT_HEAPED */
    uint8_t *dirty;       /* re-key after this level */
    uint32_t *touched;    /* links with flows */
    Entry *heap;          /* links by key */
    uint32_t *bottleneck; /* links fixing this level */
    uint32_t *moved;      /* links to re-key after this level */
    uint32_t n_heap;
    uint32_t *members; /* the flows of each link, link by link */
    uint32_t members_room;
};

FennelFairFill *fennel_fair_fill_new(void)
{
    return g_new0(FennelFairFill, 1);
}

void fennel_fair_fill_free(FennelFairFill *s)
{
    if (s == NULL)
        return;
    g_free(s->left);
    g_free(s->key);
    g_free(s->count);
    g_free(s->first);
    g_free(s->fill);
    g_free(s->where);
    g_free(s->dirty);
    g_free(s->touched);
    g_free(s->heap);
    g_free(s->bottleneck);
    g_free(s->moved);
    g_free(s->members);
    g_free(s);
}

static void make_room(FennelFairFill *s, uint32_t n)
{
    if (n <= s->room)
        return;
    uint32_t room = MAX(MAX(2 * s->room, n), 64u);
    s->left = g_renew(double, s->left, room);
    s->key = g_renew(double, s->key, room);
    s->count = g_renew(uint32_t, s->count, room);
    s->first = g_renew(uint32_t, s->first, room);
    s->fill = g_renew(uint32_t, s->fill, room);
    s->where = g_renew(uint32_t, s->where, room);
    s->dirty = g_renew(uint8_t, s->dirty, room);
    s->touched = g_renew(uint32_t, s->touched, room);
    s->heap = g_renew(Entry, s->heap, room);
    s->bottleneck = g_renew(uint32_t, s->bottleneck, room);
    s->moved = g_renew(uint32_t, s->moved, room);
    memset(s->count + s->room, 0, (room - s->room) * sizeof *s->count);
    memset(s->dirty + s->room, 0, room - s->room);
    s->room = room;
}

/* The binary heap of links by key (ties in any order: all links within the tolerance of
 * the lowest key leave it together). */
static inline void heap_set(FennelFairFill *s, uint32_t i, Entry e)
{
    s->heap[i] = e;
    s->where[e.link] = i;
}

static void sift_up(FennelFairFill *s, uint32_t i)
{
    Entry *h = s->heap, e = h[i];
    while (i > 0) {
        uint32_t up = (i - 1) / 2;
        if (!(e.key < h[up].key))
            break;
        heap_set(s, i, h[up]);
        i = up;
    }
    heap_set(s, i, e);
}

static void sift_down(FennelFairFill *s, uint32_t i)
{
    Entry *h = s->heap, e = h[i];
    const uint32_t n = s->n_heap;
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && h[c + 1].key < h[c].key)
            c++;
        if (!(h[c].key < e.key))
            break;
        heap_set(s, i, h[c]);
        i = c;
    }
    heap_set(s, i, e);
}

static void heap_remove(FennelFairFill *s, uint32_t l)
{
    uint32_t i = s->where[l];
    Entry last = s->heap[--s->n_heap];
    s->where[l] = NOT_HEAPED;
    if (i == s->n_heap)
        return;
    heap_set(s, i, last);
    sift_down(s, i);
    sift_up(s, s->where[last.link]);
}

void fennel_fair_fill(FennelFairFill *s, const double *capacity, uint32_t n_capacity,
                      const FennelFairPath *paths, uint32_t n_flows, double *rate)
{
    make_room(s, n_capacity);
    uint32_t unfixed = 0, crossings = 0, n_touched = 0;
    for (uint32_t i = 0; i < n_flows; i++) {
        const FennelFairPath *p = &paths[i];
        rate[i] = p->n_links > 0 ? -1 : INFINITY;
        unfixed += p->n_links > 0;
        crossings += p->n_links;
        for (uint32_t k = 0; k < p->n_links; k++) {
            uint32_t l = p->links[k];
            if (s->count[l]++ == 0)
                s->touched[n_touched++] = l;
        }
    }
    /* Each link's flows, and the heap of links by share. */
    if (crossings > s->members_room) {
        s->members_room = MAX(crossings, 2 * s->members_room);
        s->members = g_renew(uint32_t, s->members, s->members_room);
    }
    uint32_t at = 0;
    for (uint32_t i = 0; i < n_touched; i++) {
        uint32_t l = s->touched[i];
        s->first[l] = s->fill[l] = at;
        at += s->count[l];
        s->left[l] = capacity[l];
        s->key[l] = s->left[l] / s->count[l];
        heap_set(s, i, (Entry){.key = s->key[l], .link = l});
    }
    s->n_heap = n_touched;
    uint32_t *members = s->members;
    for (uint32_t i = 0; i < n_flows; i++)
        for (uint32_t k = 0; k < paths[i].n_links; k++)
            members[s->fill[paths[i].links[k]]++] = i;
    for (uint32_t i = s->n_heap / 2; i-- > 0;)
        sift_down(s, i);
    while (unfixed > 0) {
        const double level = s->heap[0].key;
        /* The bottlenecks: every link within the tolerance of the lowest share. */
        uint32_t n_bottleneck = 0, n_moved = 0;
        while (s->n_heap > 0 && s->heap[0].key <= level * (1 + 1e-12)) {
            uint32_t l = s->heap[0].link;
            s->bottleneck[n_bottleneck++] = l;
            heap_remove(s, l);
        }
        for (uint32_t b = 0; b < n_bottleneck; b++) {
            uint32_t l = s->bottleneck[b];
            for (uint32_t m = s->first[l]; m < s->fill[l]; m++) {
                uint32_t i = members[m];
                if (rate[i] >= 0)
                    continue;
                rate[i] = level;
                unfixed--;
                const FennelFairPath *p = &paths[i];
                for (uint32_t k = 0; k < p->n_links; k++) {
                    uint32_t x = p->links[k];
                    s->left[x] = MAX(s->left[x] - level, 0.0);
                    s->count[x]--;
                    if (!s->dirty[x] && s->where[x] != NOT_HEAPED) {
                        s->dirty[x] = 1;
                        s->moved[n_moved++] = x;
                    }
                }
            }
        }
        /* Re-key the links that lost flows (their shares only grow, but rounding may
         * move one either way). */
        for (uint32_t i = 0; i < n_moved; i++) {
            uint32_t x = s->moved[i];
            s->dirty[x] = 0;
            if (s->count[x] == 0) {
                heap_remove(s, x);
                continue;
            }
            const double was = s->key[x];
            s->key[x] = s->heap[s->where[x]].key = s->left[x] / s->count[x];
            if (s->key[x] > was)
                sift_down(s, s->where[x]);
            else if (s->key[x] < was)
                sift_up(s, s->where[x]);
        }
    }
    for (uint32_t i = 0; i < n_touched; i++) {
        uint32_t l = s->touched[i];
        s->count[l] = 0;
        s->where[l] = NOT_HEAPED;
    }
    s->n_heap = 0;
}
