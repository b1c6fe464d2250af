/* Progressive filling (fair_fill.h) with a heap of links.
 *
 * The plain statement of the filling visits every link and every flow once per level:
 * O(levels x (flows + links)) per call, and an all-to-all of P ranks on a switch has up to
 * 2 P levels among its P (P - 1) flows. Here each link lists the flows crossing it, and the
 * links not yet fixed wait in a binary heap by their share (capacity not yet given out /
 * unfixed flows crossing it). A level pops the links within 1e-12 of the lowest share, fixes
 * the unfixed flows on them, and looks once at each link those flows also cross: every flow
 * is fixed once. Such a link's share grows, so its key mostly stays as a lower bound of it,
 * and the share is divided out when the link comes to the top of the heap. The lists are
 * kept from call to call, a flow added to its links' lists when it starts and taken out when
 * it ends, so that a call does no work per flow but fixing it.
 *
 * A link's list holds, beside each flow, the flow's other links. A flow is fixed by the first
 * of its links whose list is gone through, so a flow met again on a later link is known as
 * fixed by a look at its other links (one of them was gone through this call), and fixing a
 * flow reads its other links from the same place: going through a list reads it in order and
 * looks only at arrays by link, never at the flows' own records, which a run of many flows
 * scatters over more memory than the caches hold.
 *
 * The results are those of the plain statement to the last bit: a link's share is computed
 * by the same division of the same two numbers; its capacity left is reduced by the same
 * levels in the same order (within a level every subtraction is of the same value, so the
 * order of the flows and of the bottlenecks does not matter); the lowest share of the heap
 * is the minimum of the shares (every key is at most its link's share, and the top's is
 * its share); the links popped are exactly those within the tie tolerance of it. */
#include "fair_fill.h"

#include <float.h>
#include <glib.h>
#include <math.h>
#include <string.h>

#define NOT_HEAPED UINT32_MAX

typedef struct {
    double key; /* the link's share, as `key` */
    uint32_t link;
} Entry;

/* The flows crossing a link, in no particular order: `stride` numbers each, the flow's slot
 * and then its other links, the link itself in the places left (a flow of the most links, or
 * of two when the most is two, leaves none; one of a single link leaves one, so that every
 * entry has a link to look at). The link itself stands in for
 * "no link" because it answers both questions a level asks of an entry the same way: it is
 * not gone through while its own list is (so it does not make the flow fixed already) and it
 * is out of the heap (so fixing the flow skips it). Every entry then has the same number of
 * links to look at, and the loops over them no test for the end. */
typedef struct {
    uint32_t *flows;
    uint32_t n, room;
    uint32_t active_at; /* its place in `active` while n > 0 */
} LinkFlows;

/* A flow: its links, then for each its place in that link's `flows`. */
typedef struct {
    uint32_t *links;
    uint32_t n_links;
} Slot;

#define ADDED FENNEL_FAIR_NO_LEVEL /* fixed_at of a flow added since the last call */

/* A link's state before a level changed it; `fixed` counts its flows fixed before the level,
 * which removing a flow fixed later does not change (its unfixed count would). Its lowest
 * rate is not kept: it only goes down, to rates that some call gave (fair_fill.h). */
typedef struct {
    double left;
    uint32_t link, fixed;
    uint32_t popped : 1; /* the level made it a bottleneck */
    uint32_t prev : 31;  /* the link's entry before, or NO_UNDO */
} Undo;

#define NO_UNDO 0x7fffffffu

struct FennelFairFill {
    uint32_t room;    /* links the per-link arrays below hold */
    double *left;     /* capacity not yet given out */
    uint8_t *stale;   /* its heap key is a lower bound of its share, not the share */
    uint32_t *count;  /* unfixed flows crossing it, during a call */
    uint32_t *where;  /* its place in the heap, or NOT_HEAPED */
    uint8_t *dirty;   /* re-key after this level */
    uint8_t *gone;    /* its flows were gone through (it was a bottleneck) */
    double *lowest;   /* the lowest rate of its flows, in the last call or before */
    double *cap;      /* its capacity in the last call */
    LinkFlows *of;    /* the flows crossing it */
    uint32_t *active; /* the links with flows */
    uint32_t n_active;
    Entry *heap;              /* links by key */
    uint32_t *bottleneck;     /* links fixing this level */
    uint32_t *moved;          /* links to re-key after this level */
    const uint32_t **pending; /* the entries of a bottleneck's list to fix */
    uint32_t pending_room;
    uint32_t n_heap;
    Slot *slots; /* the flows, 0 to n_slots - 1 with none free (fennel_fair_fill_remove) */
    uint32_t n_slots, slots_room;
    double *rate;       /* by slot, made by fennel_fair_fill_rates() only */
    uint32_t *fixed_at; /* by slot: the level that fixed it in the last call, or ADDED */
    /* What the last call did, to take it up again at a level (see Resuming below). */
    Undo *undo;
    uint32_t n_undo, undo_room;
    uint32_t *level_undo;  /* by level: its first entry of `undo` */
    uint32_t *level_fixed; /* by level: the flows fixed before it */
    double *level_share;   /* by level: its share (the lowest key) */
    uint32_t n_levels, levels_room;
    uint32_t *last_undo;   /* by link: its last entry of `undo`, or NO_UNDO */
    uint32_t last_fixed;   /* flows fixed by the last call */
    uint32_t resume;       /* the first level a removal since the last call changes */
    uint32_t resumed;      /* the level the last call took up */
    gboolean full;         /* a changed capacity, or no call yet: from level 0 */
    uint32_t *added;       /* by link: flows added to it since the last call */
    uint32_t *added_links; /* the links with added[] > 0 (or that had), once each */
    uint8_t *listed;       /* in added_links */
    uint32_t n_added_links;
    uint32_t stride;     /* numbers per flow in a link's list: the most links of a flow, >= 2 */
    uint32_t with_links; /* flows crossing a link at least */
};

FennelFairFill *fennel_fair_fill_new(void)
{
    FennelFairFill *s = g_new0(FennelFairFill, 1);
    s->full = TRUE;
    return s;
}

void fennel_fair_fill_free(FennelFairFill *s)
{
    if (s == NULL)
        return;
    for (uint32_t l = 0; l < s->room; l++)
        g_free(s->of[l].flows);
    for (uint32_t i = 0; i < s->n_slots; i++)
        g_free(s->slots[i].links);
    g_free(s->left);
    g_free(s->stale);
    g_free(s->count);
    g_free(s->where);
    g_free(s->dirty);
    g_free(s->gone);
    g_free(s->lowest);
    g_free(s->cap);
    g_free(s->fixed_at);
    g_free(s->undo);
    g_free(s->level_undo);
    g_free(s->level_fixed);
    g_free(s->level_share);
    g_free(s->last_undo);
    g_free(s->added);
    g_free(s->added_links);
    g_free(s->listed);
    g_free(s->of);
    g_free(s->active);
    g_free(s->heap);
    g_free(s->bottleneck);
    g_free(s->moved);
    g_free(s->pending);
    g_free(s->slots);
    g_free(s->rate);
    g_free(s);
}

static void make_room(FennelFairFill *s, uint32_t n)
{
    if (n <= s->room)
        return;
    uint32_t room = MAX(MAX(2 * s->room, n), 64u);
    s->left = g_renew(double, s->left, room);
    s->stale = g_renew(uint8_t, s->stale, room);
    s->count = g_renew(uint32_t, s->count, room);
    s->where = g_renew(uint32_t, s->where, room);
    s->dirty = g_renew(uint8_t, s->dirty, room);
    s->gone = g_renew(uint8_t, s->gone, room);
    s->lowest = g_renew(double, s->lowest, room);
    s->cap = g_renew(double, s->cap, room);
    s->of = g_renew(LinkFlows, s->of, room);
    s->active = g_renew(uint32_t, s->active, room);
    s->heap = g_renew(Entry, s->heap, room);
    s->bottleneck = g_renew(uint32_t, s->bottleneck, room);
    s->moved = g_renew(uint32_t, s->moved, room);
    s->last_undo = g_renew(uint32_t, s->last_undo, room);
    s->added = g_renew(uint32_t, s->added, room);
    s->added_links = g_renew(uint32_t, s->added_links, room);
    s->listed = g_renew(uint8_t, s->listed, room);
    memset(s->listed + s->room, 0, room - s->room);
    for (uint32_t l = s->room; l < room; l++)
        s->last_undo[l] = NO_UNDO;
    memset(s->added + s->room, 0, (room - s->room) * sizeof *s->added);
    memset(s->where + s->room, 0xff, (room - s->room) * sizeof *s->where);
    memset(s->dirty + s->room, 0, room - s->room);
    memset(s->gone + s->room, 0, room - s->room);
    memset(s->of + s->room, 0, (room - s->room) * sizeof *s->of);
    s->room = room;
}

/* Widens every link's entries to `stride` numbers (a flow of more links than any before). */
static void widen(FennelFairFill *s, uint32_t stride)
{
    const uint32_t was = s->stride;
    for (uint32_t l = 0; l < s->room; l++) {
        LinkFlows *lf = &s->of[l];
        if (lf->room == 0)
            continue;
        uint32_t *wide = g_new(uint32_t, (size_t)lf->room * stride);
        for (uint32_t m = 0; m < lf->n; m++) {
            memcpy(wide + (size_t)m * stride, lf->flows + (size_t)m * was, was * sizeof *wide);
            for (uint32_t k = was; k < stride; k++)
                wide[(size_t)m * stride + k] = l;
        }
        g_free(lf->flows);
        lf->flows = wide;
    }
    s->stride = stride;
}

uint32_t fennel_fair_fill_add(FennelFairFill *s, const uint32_t *links, uint32_t n_links)
{
    if (s->n_slots == s->slots_room) {
        s->slots_room = MAX(2 * s->slots_room, 64u);
        s->slots = g_renew(Slot, s->slots, s->slots_room);
        s->fixed_at = g_renew(uint32_t, s->fixed_at, s->slots_room);
    }
    const uint32_t slot = s->n_slots++;
    if (n_links > s->stride)
        widen(s, MAX(n_links, 2u));
    const uint32_t stride = s->stride;
    Slot *f = &s->slots[slot];
    f->n_links = n_links;
    s->fixed_at[slot] = ADDED; /* not in the last call; for good if it crosses no link */
    f->links = g_new(uint32_t, 2 * MAX(n_links, 1u));
    for (uint32_t k = 0; k < n_links; k++) {
        const uint32_t l = links[k];
        make_room(s, l + 1);
        LinkFlows *lf = &s->of[l];
        if (lf->n == lf->room) {
            lf->room = MAX(2 * lf->room, 4u);
            lf->flows = g_renew(uint32_t, lf->flows, (size_t)lf->room * stride);
        }
        if (lf->n == 0) {
            lf->active_at = s->n_active;
            s->active[s->n_active++] = l;
        }
        f->links[k] = l;
        f->links[n_links + k] = lf->n;
        if (!s->full && s->added[l]++ == 0 && !s->listed[l]) {
            s->listed[l] = 1;
            s->added_links[s->n_added_links++] = l;
        }
        uint32_t *e = lf->flows + (size_t)lf->n++ * stride, o = 1;
        e[0] = slot;
        for (uint32_t j = 0; j < n_links; j++) {
            if (j != k)
                e[o++] = links[j];
        }
        while (o < stride)
            e[o++] = l;
    }
    s->with_links += n_links > 0;
    return slot;
}

void fennel_fair_fill_remove(FennelFairFill *s, uint32_t slot)
{
    Slot *f = &s->slots[slot];
    const uint32_t n = f->n_links, stride = s->stride;
    const gboolean added = s->fixed_at[slot] == ADDED;
    if (n > 0 && !s->full && !added) {
        /* The last call's levels before the one that fixed it stay as they were. */
        s->resume = MIN(s->resume, s->fixed_at[slot]);
    }
    for (uint32_t k = 0; k < n; k++) {
        const uint32_t l = f->links[k], at = f->links[n + k];
        if (added && !s->full)
            s->added[l]--; /* never in a call: as if it had not come */
        LinkFlows *lf = &s->of[l];
        const uint32_t *last = lf->flows + (size_t)--lf->n * stride;
        if (at != lf->n) {
            /* The link's last flow takes the place, and learns it. */
            memcpy(lf->flows + (size_t)at * stride, last, stride * sizeof *last);
            Slot *g = &s->slots[last[0]];
            uint32_t j = 0;
            while (g->links[j] != l)
                j++;
            g->links[g->n_links + j] = at;
        }
        if (lf->n == 0) {
            const uint32_t other = s->active[--s->n_active];
            s->active[lf->active_at] = other;
            s->of[other].active_at = lf->active_at;
        }
    }
    s->with_links -= n > 0;
    g_free(f->links);
    /* The last slot's flow takes its place, in its links' entries too, so that the slots
     * stay dense (a caller keeping its flows in an array by slot moves its last one the
     * same way, and reads the rates in order). */
    const uint32_t last = --s->n_slots;
    if (slot == last)
        return;
    *f = s->slots[last];
    s->fixed_at[slot] = s->fixed_at[last];
    for (uint32_t k = 0; k < f->n_links; k++)
        s->of[f->links[k]].flows[(size_t)f->links[f->n_links + k] * stride] = slot;
}

uint32_t fennel_fair_fill_links(const FennelFairFill *s, const uint32_t **links,
                                const double **lowest)
{
    *links = s->active;
    *lowest = s->lowest;
    return s->n_active;
}

uint32_t fennel_fair_fill_resumed(const FennelFairFill *s)
{
    return s->resumed;
}

uint32_t fennel_fair_fill_slots(const FennelFairFill *s)
{
    return s->n_slots;
}

uint32_t fennel_fair_fill_path(const FennelFairFill *s, uint32_t slot, const uint32_t **links)
{
    *links = s->slots[slot].links; /* the links first, then their places in the links' lists */
    return s->slots[slot].n_links;
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
        /* The lesser child without a branch: which one it is follows no pattern. */
        if (c + 1 < n)
            c += h[c + 1].key < h[c].key;
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

/* Notes a link's state before this level changes it. */
static inline void keep(FennelFairFill *s, uint32_t l, uint32_t popped)
{
    if (s->n_undo == s->undo_room) {
        s->undo_room = MAX(2 * s->undo_room, 256u);
        s->undo = g_renew(Undo, s->undo, s->undo_room);
    }
    s->undo[s->n_undo++] = (Undo){.left = s->left[l],
                                  .link = l,
                                  .fixed = s->of[l].n - s->count[l],
                                  .popped = popped,
                                  .prev = s->last_undo[l]};
    s->last_undo[l] = s->n_undo - 1;
}

/* Resuming. A removed flow was fixed at some level of the last call; before that level it
 * only counted among the unfixed flows of its links, none of which was a bottleneck yet, and
 * without it their shares are no lower (the same capacity left over fewer flows): every
 * earlier level pops the same bottlenecks at the same share and fixes the same flows, and
 * leaves every link as it did. So the call undoes the last call's levels from the earliest
 * removed flow's on (a link's unfixed count comes back as its flows now less those fixed
 * before, so without the removed ones) and fills on from there: the same numbers as from
 * level 0, to the last bit. Every link a removed flow crossed was changed at or after the
 * level that fixed it, so it is among those undone.
 *
 * An added flow counts among the unfixed flows of its links from level 0 on, which lowers
 * their shares (the same capacity left over more flows) and nothing else while it is not
 * fixed: a level of the last call is taken again as it was as long as none of those links
 * has, with the added flows, a share within the tie tolerance of that level's (it would be
 * popped, or lower the level) and none was a bottleneck. added_level() finds the first level
 * at which one does, from each link's states in the undo entries; the call resumes at the
 * earliest of it and the removed flows' level. A changed capacity starts again from level
 * 0. */

/* The level of undo entry e: the last level whose first entry is at or before it. */
static uint32_t level_of(const FennelFairFill *s, uint32_t e)
{
    uint32_t lo = 0, hi = s->n_levels; /* level_undo[lo] <= e < level_undo[hi] */
    while (hi - lo > 1) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (s->level_undo[mid] <= e)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* The first level below `bound` of the last call that link l, with the flows added to it
 * since, would not go through as it did (bound if none). Its states are read backwards: the
 * last call's end, then each undo entry (its state before its level, back to the one
 * before); in each stretch of levels its share with its flows now is compared with each
 * level's as the filling compares them. Its unfixed count there is its flows now less those
 * fixed before, which is exact before the earliest removed flow's level (no removed flow was
 * fixed yet); the caller resumes at that level at the latest. */
static uint32_t added_level(const FennelFairFill *s, uint32_t l, const double *capacity,
                            uint32_t bound)
{
    const uint32_t n = s->of[l].n;
    uint32_t e = s->last_undo[l], first = bound;
    double left = e == NO_UNDO ? capacity[l] : s->left[l];
    uint32_t count = e == NO_UNDO ? n : s->count[l] + s->added[l];
    uint32_t hi = s->n_levels; /* the stretch of levels [lo, hi) has this state */
    for (;;) {
        const uint32_t at = e == NO_UNDO ? 0 : level_of(s, e);
        const uint32_t lo = e == NO_UNDO ? 0 : at + 1;
        if (count > 0 && lo < first) {
            const double share = left / count;
            for (uint32_t j = lo; j < MIN(hi, first); j++) {
                if (!(share > s->level_share[j] * (1 + 1e-12))) {
                    first = j;
                    break;
                }
            }
        }
        if (e == NO_UNDO || first == 0)
            break;
        const Undo *u = &s->undo[e];
        if (u->popped)
            first = MIN(first, at);
        left = u->left;
        count = n - u->fixed;
        hi = at + 1;
        e = u->prev;
    }
    return first;
}

static uint32_t start(FennelFairFill *s, const double *capacity)
{
    /* A link no flow crossed in the last call starts as it would at level 0. */
    for (uint32_t i = 0; i < s->n_added_links && !s->full; i++) {
        const uint32_t l = s->added_links[i];
        if (s->added[l] > 0 && s->last_undo[l] == NO_UNDO) {
            s->left[l] = s->cap[l] = capacity[l];
            s->lowest[l] = INFINITY;
            s->gone[l] = 0;
        }
    }
    for (uint32_t i = 0; i < s->n_active && !s->full; i++)
        s->full = capacity[s->active[i]] != s->cap[s->active[i]];
    uint32_t fixed;
    if (s->full) {
        for (uint32_t e = 0; e < s->n_undo; e++)
            s->last_undo[s->undo[e].link] = NO_UNDO;
        for (uint32_t i = 0; i < s->n_active; i++) {
            const uint32_t l = s->active[i];
            s->count[l] = s->of[l].n;
            s->left[l] = s->cap[l] = capacity[l];
            s->lowest[l] = INFINITY;
            s->gone[l] = 0;
        }
        s->n_undo = s->n_levels = fixed = 0;
    } else {
        uint32_t k = MIN(s->resume, s->n_levels);
        for (uint32_t i = 0; i < s->n_added_links; i++) {
            const uint32_t l = s->added_links[i];
            if (s->added[l] > 0)
                k = added_level(s, l, capacity, k);
        }
        /* The links the added flows cross that no undone level restores keep their state
         * at the last call's end, with the added flows among their unfixed ones. */
        for (uint32_t i = 0; i < s->n_added_links; i++) {
            const uint32_t l = s->added_links[i];
            if (s->added[l] > 0)
                s->count[l] = s->last_undo[l] == NO_UNDO ? s->of[l].n : s->count[l] + s->added[l];
        }
        const uint32_t first = k < s->n_levels ? s->level_undo[k] : s->n_undo;
        while (s->n_undo > first) {
            const Undo *u = &s->undo[--s->n_undo];
            s->left[u->link] = u->left;
            s->count[u->link] = s->of[u->link].n - u->fixed;
            s->last_undo[u->link] = u->prev;
            if (u->popped)
                s->gone[u->link] = 0;
        }
        fixed = k < s->n_levels ? s->level_fixed[k] : s->last_fixed;
        s->n_levels = k;
    }
    for (uint32_t i = 0; i < s->n_added_links; i++)
        s->added[s->added_links[i]] = s->listed[s->added_links[i]] = 0;
    s->n_added_links = 0;
    s->resumed = s->n_levels;
    s->full = FALSE;
    s->resume = UINT32_MAX;
    /* The heap of the links not yet bottlenecks with unfixed flows, by share. */
    s->n_heap = 0;
    for (uint32_t i = 0; i < s->n_active; i++) {
        const uint32_t l = s->active[i];
        if (s->gone[l] || s->count[l] == 0)
            continue;
        s->stale[l] = 0;
        heap_set(s, s->n_heap++, (Entry){.key = s->left[l] / s->count[l], .link = l});
    }
    for (uint32_t i = s->n_heap / 2; i-- > 0;)
        sift_down(s, i);
    return s->with_links - fixed;
}

/* The top of the heap, a stale link, given its share and moved down to its place. */
static void refresh_top(FennelFairFill *s)
{
    const uint32_t l = s->heap[0].link;
    s->heap[0].key = s->left[l] / s->count[l];
    s->stale[l] = 0;
    sift_down(s, 0);
}

/* The lowest share of the links in the heap: every key is at most its link's share (equal
 * when not stale), so once the top is not stale its key is the lowest share. */
static double lowest_share(FennelFairFill *s)
{
    while (s->stale[s->heap[0].link])
        refresh_top(s);
    return s->heap[0].key;
}

/* Fixes at `level` (level number `this`) the flows of a bottleneck's list not fixed yet,
 * taking each one's rate from its other links; returns how many. */
static inline __attribute__((always_inline)) uint32_t fix_list(FennelFairFill *s,
                                                               const LinkFlows *lf, uint32_t stride,
                                                               double level, uint32_t this,
                                                               uint32_t *n_moved)
{
    if (lf->n > s->pending_room) {
        s->pending_room = MAX(2 * s->pending_room, lf->n);
        s->pending = g_renew(const uint32_t *, s->pending, s->pending_room);
    }
    /* The flows not fixed yet: those none of whose other links was gone through. Fixing one
     * changes no `gone`, so they are found first, without a branch per flow (whether a flow
     * was fixed before follows no pattern), then fixed in the list's order. */
    uint32_t n_pending = 0;
    const uint32_t *end = lf->flows + (size_t)lf->n * stride;
    for (const uint32_t *e = lf->flows; e < end; e += stride) {
        uint8_t fixed = 0;
        for (uint32_t k = 1; k < stride; k++)
            fixed |= s->gone[e[k]];
        s->pending[n_pending] = e;
        n_pending += !fixed;
    }
    for (uint32_t p = 0; p < n_pending; p++) {
        const uint32_t *e = s->pending[p];
        s->fixed_at[e[0]] = this;
        for (uint32_t k = 1; k < stride; k++) {
            uint32_t x = e[k];
            /* A link out of the heap (a bottleneck of this level or an earlier one, or the
             * list's own link standing for none) has no unfixed flow left once this level
             * is done: neither its capacity left nor its count is read again. */
            if (s->where[x] == NOT_HEAPED)
                continue;
            if (!s->dirty[x]) {
                /* Its first flow fixed at this level: its lowest rate is the level's, if
                 * lower (the level's other flows on it give it the same). */
                keep(s, x, 0);
                s->dirty[x] = 1;
                s->moved[(*n_moved)++] = x;
                s->lowest[x] = MIN(s->lowest[x], level);
            }
            s->left[x] = MAX(s->left[x] - level, 0.0);
            s->count[x]--;
        }
    }
    return n_pending;
}

const uint32_t *fennel_fair_fill_levels(FennelFairFill *s, const double *capacity,
                                        uint32_t n_capacity, const double **share)
{
    (void)n_capacity; /* every link of a flow is below it (fair_fill.h) */
    const uint32_t stride = s->stride;
    uint32_t unfixed = start(s, capacity);
    while (unfixed > 0) {
        g_assert(s->n_heap > 0); /* the unfixed flows cross links still in the heap */
        if (s->n_levels == s->levels_room) {
            s->levels_room = MAX(2 * s->levels_room, 64u);
            s->level_undo = g_renew(uint32_t, s->level_undo, s->levels_room);
            s->level_fixed = g_renew(uint32_t, s->level_fixed, s->levels_room);
            s->level_share = g_renew(double, s->level_share, s->levels_room);
        }
        const uint32_t this = s->n_levels++;
        s->level_undo[this] = s->n_undo;
        s->level_fixed[this] = s->with_links - unfixed;
        const double level = s->level_share[this] = lowest_share(s);
        /* The bottlenecks: every link within the tolerance of the lowest share. A link
         * whose bound is within it may have a share that is not: its share is computed, and
         * it goes down the heap if so. */
        uint32_t n_bottleneck = 0, n_moved = 0;
        while (s->n_heap > 0 && s->heap[0].key <= level * (1 + 1e-12)) {
            uint32_t l = s->heap[0].link;
            if (s->stale[l]) {
                refresh_top(s);
                continue;
            }
            keep(s, l, 1);
            /* Levels only rise: the first flow fixed on a link has its lowest rate. */
            s->lowest[l] = MIN(s->lowest[l], level);
            s->bottleneck[n_bottleneck++] = l;
            heap_remove(s, l);
        }
        for (uint32_t b = 0; b < n_bottleneck; b++) {
            const LinkFlows *lf = &s->of[s->bottleneck[b]];
            /* The usual strides as constants, so that the loops over an entry's links
             * unroll. */
            switch (stride) {
            case 2:
                unfixed -= fix_list(s, lf, 2, level, this, &n_moved);
                break;
            case 3:
                unfixed -= fix_list(s, lf, 3, level, this, &n_moved);
                break;
            case 4:
                unfixed -= fix_list(s, lf, 4, level, this, &n_moved);
                break;
            default:
                unfixed -= fix_list(s, lf, stride, level, this, &n_moved);
                break;
            }
            s->gone[s->bottleneck[b]] = 1;
        }
        /* The links that lost flows: their shares only grow, but rounding may move one
         * either way. A link keeps its key, as a lower bound of its share, when the bound
         * times its unfixed flows, with a margin above the product's two roundings, is at
         * most its capacity left: then left / count > key, so its rounded quotient is at
         * least the key (rounding is monotonic and the key is a double). Its share is
         * computed when it comes to the top of the heap (lowest_share). Otherwise it is
         * re-keyed now, up or down the heap. */
        for (uint32_t i = 0; i < n_moved; i++) {
            uint32_t x = s->moved[i];
            s->dirty[x] = 0;
            if (s->count[x] == 0) {
                heap_remove(s, x);
                continue;
            }
            const uint32_t at = s->where[x];
            const double was = s->heap[at].key;
            const double bound = was * s->count[x] * (1 + 0x1p-50);
            if (s->left[x] >= bound && bound >= DBL_MIN) {
                s->stale[x] = 1;
                continue;
            }
            const double key = s->heap[at].key = s->left[x] / s->count[x];
            s->stale[x] = 0;
            if (key > was)
                sift_down(s, at);
            else if (key < was)
                sift_up(s, at);
        }
    }
    for (uint32_t i = 0; i < s->n_active; i++)
        s->where[s->active[i]] = NOT_HEAPED;
    s->n_heap = 0;
    s->last_fixed = s->with_links;
    *share = s->level_share;
    return s->fixed_at;
}

const double *fennel_fair_fill_rates(FennelFairFill *s, const double *capacity, uint32_t n_capacity)
{
    const double *share;
    const uint32_t *level = fennel_fair_fill_levels(s, capacity, n_capacity, &share);
    s->rate = g_renew(double, s->rate, s->slots_room);
    for (uint32_t i = 0; i < s->n_slots; i++)
        s->rate[i] = level[i] == FENNEL_FAIR_NO_LEVEL ? INFINITY : share[level[i]];
    return s->rate;
}

void fennel_fair_fill(FennelFairFill *s, const double *capacity, uint32_t n_capacity,
                      const FennelFairPath *paths, uint32_t n_flows, double *rate)
{
    g_return_if_fail(s->n_slots == 0);
    make_room(s, n_capacity);
    for (uint32_t i = 0; i < n_flows; i++)
        fennel_fair_fill_add(s, paths[i].links, paths[i].n_links); /* slot i */
    const double *by_slot = fennel_fair_fill_rates(s, capacity, n_capacity);
    if (n_flows > 0)
        memcpy(rate, by_slot, n_flows * sizeof *rate);
    for (uint32_t i = n_flows; i-- > 0;)
        fennel_fair_fill_remove(s, i); /* the last each time: no slot moves */
}
