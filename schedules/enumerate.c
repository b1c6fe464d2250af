/* Enumeration, counting and branch-and-bound ranking of recursive-multiplying
 * schedules (see enumerate.h). */
#include "enumerate.h"

#include <math.h>
#include <string.h>

/* Stages a schedule can have: at most log2(2^32) factors, a collapse and an expand. */
#define MAX_STAGES 40
/* Divisors of a number below 2^32: at most 1344. */
#define MAX_DIVISORS 1536

const char *fennel_family_name(FennelFamily family)
{
    switch (family) {
    case FENNEL_FAMILY_FACTORED:
        return "factored";
    case FENNEL_FAMILY_COLLAPSED:
        return "collapsed";
    case FENNEL_FAMILY_MERGED:
        return "merged";
    default:
        return "?";
    }
}

typedef struct {
    uint32_t ranks;
    uint32_t *spf; /* smallest prime factor of 0..ranks */
    FennelStage stages[MAX_STAGES];
    uint32_t *divisors[MAX_STAGES];
    FennelFamily family;
    uint32_t start;     /* first stage of the factor search */
    uint32_t remainder; /* merged: R; the core is the product searched */
    uint32_t core;
    FennelStage suffix; /* collapsed: the expand appended to each schedule */
    gboolean has_suffix;
    double suffix_cost;
    uint64_t index;

    /* Visiting. */
    FennelScheduleVisitor visit;
    void *data;
    gboolean stopped;

    /* Ranking. */
    const FennelCost *cost;
    uint32_t limit;
    FennelRankedSchedule *heap; /* max-heap by (cost, index) */
    uint32_t n_heap;
    double *best; /* by P: the least cost of factor stages that multiply to P */
    double issue; /* what one more message adds to a stage */
} Enum;

static int compare_cost(double a, double b)
{
    double tolerance = 1e-9 * MAX(1.0, MAX(fabs(a), fabs(b)));
    if (fabs(a - b) <= tolerance)
        return 0;
    return a < b ? -1 : 1;
}

/* Is x ranked after y? */
static gboolean after(const FennelRankedSchedule *x, const FennelRankedSchedule *y)
{
    int c = compare_cost(x->cost, y->cost);
    return c > 0 || (c == 0 && x->index > y->index);
}

static void heap_sift_down(Enum *e, uint32_t i)
{
    for (;;) {
        uint32_t l = 2 * i + 1, r = l + 1, top = i;
        if (l < e->n_heap && after(&e->heap[l], &e->heap[top]))
            top = l;
        if (r < e->n_heap && after(&e->heap[r], &e->heap[top]))
            top = r;
        if (top == i)
            return;
        FennelRankedSchedule t = e->heap[i];
        e->heap[i] = e->heap[top];
        e->heap[top] = t;
        i = top;
    }
}

static void heap_push(Enum *e, FennelRankedSchedule item)
{
    uint32_t i = e->n_heap++;
    e->heap[i] = item;
    while (i > 0 && after(&e->heap[i], &e->heap[(i - 1) / 2])) {
        FennelRankedSchedule t = e->heap[i];
        e->heap[i] = e->heap[(i - 1) / 2];
        e->heap[(i - 1) / 2] = t;
        i = (i - 1) / 2;
    }
}

/* Can a schedule costing at least `bound` still enter the ranking? */
static gboolean may_enter(const Enum *e, double bound)
{
    return e->n_heap < e->limit || compare_cost(bound, e->heap[0].cost) < 0;
}

/* A lower bound on the cost of the stages that multiply to p: the cheapest run of aF
 * stages (a merge or an inverse merge costs at least its aF). */
static double lower_bound(const Enum *e, uint32_t p)
{
    return e->best[p];
}

static void emit(Enum *e, uint32_t n, double cost)
{
    uint64_t index = e->index++;
    if (e->has_suffix)
        e->stages[n++] = e->suffix;
    FennelSchedule view = {n, e->stages};
    if (e->visit) {
        if (!e->visit(&view, e->family, e->data))
            e->stopped = TRUE;
        return;
    }
    cost += e->suffix_cost;
    FennelRankedSchedule item = {NULL, e->family, cost, index};
    if (e->n_heap < e->limit) {
        item.schedule = fennel_schedule_copy(&view);
        heap_push(e, item);
    } else if (after(&e->heap[0], &item)) {
        fennel_schedule_free(e->heap[0].schedule);
        item.schedule = fennel_schedule_copy(&view);
        e->heap[0] = item;
        heap_sift_down(e, 0);
    }
}

static int compare_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* The divisors >= 2 of p, ascending, from the smallest-prime-factor table. */
static uint32_t divisors(const Enum *e, uint32_t p, uint32_t *out)
{
    uint32_t n = 1;
    out[0] = 1;
    while (p > 1) {
        uint32_t q = e->spf[p], k = 0;
        while (p % q == 0) {
            p /= q;
            k++;
        }
        uint32_t base = n;
        uint64_t power = 1;
        for (uint32_t j = 1; j <= k; j++) {
            power *= q;
            for (uint32_t i = 0; i < base && n < MAX_DIVISORS; i++)
                out[n++] = (uint32_t)(out[i] * power);
        }
    }
    qsort(out, n, sizeof *out, compare_u32);
    memmove(out, out + 1, (n - 1) * sizeof *out);
    return n - 1;
}

/* Chooses the stages from `pos` on, whose factors multiply to p. */
static void search(Enum *e, uint32_t pos, uint32_t p, double partial)
{
    if (e->stopped)
        return;
    if (p == 1) {
        emit(e, pos, partial);
        return;
    }
    if (pos + 2 >= MAX_STAGES)
        return;
    uint32_t *div = e->divisors[pos];
    uint32_t n = divisors(e, p, div);
    gboolean merged = e->family == FENNEL_FAMILY_MERGED;
    for (uint32_t i = 0; i < n && !e->stopped; i++) {
        uint32_t f = div[i];
        FennelStage st = {.kind = FENNEL_STAGE_FACTOR, .factor = f};
        if (merged && pos == e->start) {
            if (f == p)
                continue; /* a merge needs two factor stages */
            st = (FennelStage){FENNEL_STAGE_MERGE, f, 0, 0, e->remainder, e->core / f};
        } else if (merged && f == p) {
            st = (FennelStage){FENNEL_STAGE_UNMERGE, f, 0, 0, e->remainder, e->core / f};
        }
        double cost = 0;
        if (e->cost) {
            cost = fennel_stage_cost(e->cost, &st);
            /* An inverse merge still to come sends at least one message more than an
             * aF stage. */
            double pending = merged && st.kind != FENNEL_STAGE_UNMERGE ? e->issue : 0;
            if (!may_enter(e, partial + cost + lower_bound(e, p / f) + pending + e->suffix_cost))
                continue;
        }
        e->stages[pos] = st;
        search(e, pos + 1, p / f, partial + cost);
    }
}

static void run(Enum *e, unsigned families)
{
    uint32_t n = e->ranks;
    if ((families & FENNEL_FAMILY_FACTORED) && !e->stopped) {
        e->family = FENNEL_FAMILY_FACTORED;
        e->start = 0;
        e->has_suffix = FALSE;
        e->suffix_cost = 0;
        search(e, 0, n, 0);
    }
    if ((families & FENNEL_FAMILY_COLLAPSED) && !e->stopped) {
        e->family = FENNEL_FAMILY_COLLAPSED;
        e->start = 1;
        e->has_suffix = TRUE;
        for (uint32_t b = 2; b <= n && !e->stopped; b++) {
            for (uint32_t t = b; t <= n && !e->stopped; t += b) {
                FennelStage c = {FENNEL_STAGE_COLLAPSE, 0, t, b, 0, 0};
                e->suffix = (FennelStage){FENNEL_STAGE_EXPAND, 0, t, b, 0, 0};
                uint32_t inner = n - t + t / b;
                double cost = 0;
                if (e->cost) {
                    cost = fennel_stage_cost(e->cost, &c);
                    e->suffix_cost = fennel_stage_cost(e->cost, &e->suffix);
                    if (!may_enter(e, cost + lower_bound(e, inner) + e->suffix_cost))
                        continue;
                }
                e->stages[0] = c;
                search(e, 1, inner, cost);
            }
        }
    }
    if ((families & FENNEL_FAMILY_MERGED) && !e->stopped) {
        e->family = FENNEL_FAMILY_MERGED;
        e->start = 0;
        e->has_suffix = FALSE;
        e->suffix_cost = 0;
        for (uint32_t r = 1; n >= 4 && r <= n - 4 && !e->stopped; r++) {
            e->remainder = r;
            e->core = n - r;
            /* The merge and the inverse merge each send a message more than aF. */
            if (e->cost && !may_enter(e, lower_bound(e, e->core) + 2 * e->issue))
                continue;
            search(e, 0, e->core, 0);
        }
    }
}

static void enum_init(Enum *e, uint32_t ranks)
{
    memset(e, 0, sizeof *e);
    e->ranks = ranks;
    e->spf = g_new0(uint32_t, (gsize)ranks + 1);
    for (uint64_t i = 2; i <= ranks; i++) {
        if (e->spf[i])
            continue;
        for (uint64_t j = i; j <= ranks; j += i) {
            if (e->spf[j] == 0)
                e->spf[j] = (uint32_t)i;
        }
    }
    for (uint32_t d = 0; d < MAX_STAGES; d++)
        e->divisors[d] = g_new(uint32_t, MAX_DIVISORS);
}

static void enum_clear(Enum *e)
{
    g_free(e->spf);
    for (uint32_t d = 0; d < MAX_STAGES; d++)
        g_free(e->divisors[d]);
    g_free(e->best);
}

void fennel_enumerate(uint32_t ranks, unsigned families, FennelScheduleVisitor visit, void *data)
{
    Enum e;
    enum_init(&e, ranks);
    e.visit = visit;
    e.data = data;
    run(&e, families);
    enum_clear(&e);
}

static int by_rank(const void *a, const void *b)
{
    const FennelRankedSchedule *x = a, *y = b;
    return after(x, y) ? 1 : after(y, x) ? -1 : 0;
}

FennelRankedSchedule *fennel_enumerate_best(uint32_t ranks, unsigned families,
                                            const FennelCost *cost, uint32_t limit, uint32_t *n)
{
    Enum e;
    enum_init(&e, ranks);
    e.cost = cost;
    e.limit = limit;
    e.heap = g_new0(FennelRankedSchedule, MAX(limit, 1));
    /* best[m] = min over f | m of cost(aF) + best[m / f], by increasing m: every
     * multiple m = d f of a finished d is relaxed, O(N log N) in all. */
    double *factor_cost = g_new(double, (gsize)ranks + 1);
    for (uint32_t f = 2; f <= ranks; f++) {
        FennelStage st = {.kind = FENNEL_STAGE_FACTOR, .factor = f};
        factor_cost[f] = fennel_stage_cost(cost, &st);
    }
    e.best = g_new(double, (gsize)ranks + 1);
    for (uint32_t m = 0; m <= ranks; m++)
        e.best[m] = m <= 1 ? 0 : INFINITY;
    for (uint64_t d = 1; d <= ranks; d++) {
        for (uint64_t f = 2; d * f <= ranks; f++)
            e.best[d * f] = MIN(e.best[d * f], e.best[d] + factor_cost[f]);
    }
    g_free(factor_cost);
    e.issue = cost->model ? cost->busy : cost->alpha_r;
    if (limit > 0)
        run(&e, families);
    qsort(e.heap, e.n_heap, sizeof *e.heap, by_rank);
    *n = e.n_heap;
    FennelRankedSchedule *out = e.heap;
    enum_clear(&e);
    return out;
}

void fennel_ranked_free(FennelRankedSchedule *r, uint32_t n)
{
    for (uint32_t i = 0; r && i < n; i++)
        fennel_schedule_free(r[i].schedule);
    g_free(r);
}

/* Saturating uint64 arithmetic for the counts. */
static uint64_t add_sat(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

void fennel_schedule_counts(uint32_t ranks, FennelScheduleCounts *out)
{
    memset(out, 0, sizeof *out);
    uint32_t n = ranks;
    /* h[m]: ordered factorisations of m, h(1) = 1, h(m) = sum of h(d) over d | m, d < m. */
    uint64_t *h = g_new0(uint64_t, (gsize)n + 1);
    if (n >= 1)
        h[1] = 1;
    for (uint64_t d = 1; d <= n; d++) {
        for (uint64_t m = 2 * d; m <= n; m += d)
            h[m] = add_sat(h[m], h[d]);
    }
    out->factored = n >= 1 ? h[n] : 0;
    for (uint64_t b = 2; b <= n; b++) {
        for (uint64_t t = b; t <= n; t += b)
            out->collapsed = add_sat(out->collapsed, h[n - t + t / b]);
    }
    for (uint32_t r = 1; n >= 4 && r <= n - 4; r++)
        out->merged = add_sat(out->merged, h[n - r] - 1);
    g_free(h);
}
