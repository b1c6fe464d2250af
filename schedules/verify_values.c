#include "verify_values.h"

#include <string.h>

/* A rank range lo..hi, both included. */
typedef struct {
    uint32_t lo, hi;
} Range;

typedef struct {
    uint32_t count;      /* contributing ranks */
    uint32_t min, max;   /* the lowest and highest of them */
    uint32_t n_ranges;   /* maximal ranges, sorted */
    uint32_t n_children; /* 0 for the empty value and the leaves */
    uint64_t ranges;     /* offset into FennelValues.ranges */
    uint64_t children;   /* offset into FennelValues.children */
    uint64_t hash;
} Value;

struct FennelValues {
    GArray *values;   /* Value */
    GArray *ranges;   /* Range */
    GArray *children; /* uint32_t value ids */
    uint32_t *table;  /* hash-consing of nodes: value ids, 0 = free slot */
    uint64_t capacity, used;
    GArray *scratch_ranges;   /* Range, for unions and overlap checks */
    GArray *scratch_children; /* uint32_t */
};

static inline const Value *value_at(const FennelValues *v, uint32_t id)
{
    return &g_array_index(v->values, Value, id);
}

static inline const Range *ranges_of(const FennelValues *v, const Value *x)
{
    return &g_array_index(v->ranges, Range, x->ranges);
}

static inline const uint32_t *children_of(const FennelValues *v, const Value *x)
{
    return &g_array_index(v->children, uint32_t, x->children);
}

static uint64_t mix(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    return h;
}

FennelValues *fennel_values_new(uint32_t ranks)
{
    FennelValues *v = g_new0(FennelValues, 1);
    v->values = g_array_sized_new(FALSE, FALSE, sizeof(Value), ranks + 1);
    v->ranges = g_array_sized_new(FALSE, FALSE, sizeof(Range), ranks);
    v->children = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    v->scratch_ranges = g_array_new(FALSE, FALSE, sizeof(Range));
    v->scratch_children = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    Value empty = {0};
    g_array_append_val(v->values, empty);
    for (uint32_t r = 0; r < ranks; r++) {
        Value leaf = {.count = 1, .min = r, .max = r, .n_ranges = 1, .ranges = v->ranges->len};
        Range range = {r, r};
        g_array_append_val(v->ranges, range);
        g_array_append_val(v->values, leaf);
    }
    v->capacity = 1024;
    v->table = g_new0(uint32_t, v->capacity);
    return v;
}

void fennel_values_free(FennelValues *v)
{
    if (v == NULL)
        return;
    g_array_free(v->values, TRUE);
    g_array_free(v->ranges, TRUE);
    g_array_free(v->children, TRUE);
    g_array_free(v->scratch_ranges, TRUE);
    g_array_free(v->scratch_children, TRUE);
    g_free(v->table);
    g_free(v);
}

uint32_t fennel_values_size(const FennelValues *v)
{
    return v->values->len;
}

uint32_t fennel_values_count(const FennelValues *v, uint32_t value)
{
    return value_at(v, value)->count;
}

/* A ⊆ B. Both lists are sorted and maximal, so each range of A must lie inside one
 * range of B. */
static gboolean subset(const FennelValues *v, const Value *a, const Value *b)
{
    if (a->count > b->count || a->min < b->min || a->max > b->max)
        return FALSE;
    const Range *ra = ranges_of(v, a), *rb = ranges_of(v, b);
    uint32_t j = 0;
    for (uint32_t i = 0; i < a->n_ranges; i++) {
        while (j < b->n_ranges && rb[j].hi < ra[i].lo)
            j++;
        if (j == b->n_ranges || rb[j].lo > ra[i].lo || rb[j].hi < ra[i].hi)
            return FALSE;
    }
    return TRUE;
}

static gboolean intersects(const FennelValues *v, const Value *a, const Value *b)
{
    if (a->max < b->min || b->max < a->min)
        return FALSE;
    const Range *ra = ranges_of(v, a), *rb = ranges_of(v, b);
    uint32_t i = 0, j = 0;
    while (i < a->n_ranges && j < b->n_ranges) {
        if (ra[i].hi < rb[j].lo)
            i++;
        else if (rb[j].hi < ra[i].lo)
            j++;
        else
            return TRUE;
    }
    return FALSE;
}

static int compare_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static int compare_range(const void *a, const void *b)
{
    const Range *x = a, *y = b;
    return (x->lo > y->lo) - (x->lo < y->lo);
}

/* Sorts small arrays by insertion, larger ones with qsort. */
static void sort_ids(uint32_t *ids, uint32_t n)
{
    if (n > 16) {
        qsort(ids, n, sizeof(uint32_t), compare_u32);
        return;
    }
    for (uint32_t i = 1; i < n; i++) {
        uint32_t x = ids[i], j = i;
        for (; j > 0 && ids[j - 1] > x; j--)
            ids[j] = ids[j - 1];
        ids[j] = x;
    }
}

/* The canonical operand order: by lowest contributing rank, then by id (ties only
 * happen when operands overlap, which is reported anyway). */
static gboolean canonical_before(const FennelValues *v, uint32_t a, uint32_t b)
{
    uint32_t ma = value_at(v, a)->min, mb = value_at(v, b)->min;
    return ma < mb || (ma == mb && a < b);
}

/* TRUE when the operands' sets are pairwise disjoint. */
static gboolean disjoint(FennelValues *v, const uint32_t *ops, uint32_t n)
{
    if (n == 2)
        return !intersects(v, value_at(v, ops[0]), value_at(v, ops[1]));
    /* All ranges of all operands, sorted by their start, must not overlap. */
    GArray *s = v->scratch_ranges;
    g_array_set_size(s, 0);
    for (uint32_t i = 0; i < n; i++) {
        const Value *x = value_at(v, ops[i]);
        g_array_append_vals(s, ranges_of(v, x), x->n_ranges);
    }
    Range *r = (Range *)s->data;
    qsort(r, s->len, sizeof(Range), compare_range);
    for (guint i = 1; i < s->len; i++) {
        if (r[i].lo <= r[i - 1].hi)
            return FALSE;
    }
    return TRUE;
}

/* Finds or creates the node whose operands are ops (in canonical order). */
static uint32_t intern_node(FennelValues *v, const uint32_t *ops, uint32_t n)
{
    uint64_t h = mix(n);
    for (uint32_t i = 0; i < n; i++)
        h = mix(h ^ (ops[i] + 0x9e3779b97f4a7c15ULL * (i + 1)));
    uint64_t mask = v->capacity - 1;
    for (uint64_t slot = h & mask;; slot = (slot + 1) & mask) {
        uint32_t id = v->table[slot];
        if (id == 0)
            break;
        const Value *x = value_at(v, id);
        if (x->hash == h && x->n_children == n &&
            memcmp(children_of(v, x), ops, n * sizeof(uint32_t)) == 0)
            return id;
    }

    /* A new node: its contribution set is the union of its operands' sets. */
    GArray *s = v->scratch_ranges;
    g_array_set_size(s, 0);
    for (uint32_t i = 0; i < n; i++) {
        const Value *x = value_at(v, ops[i]);
        g_array_append_vals(s, ranges_of(v, x), x->n_ranges);
    }
    Range *r = (Range *)s->data;
    qsort(r, s->len, sizeof(Range), compare_range);
    Value node = {
        .n_children = n, .hash = h, .ranges = v->ranges->len, .children = v->children->len};
    Range cur = r[0];
    for (guint i = 1; i <= s->len; i++) {
        if (i < s->len && r[i].lo <= cur.hi + 1) {
            cur.hi = MAX(cur.hi, r[i].hi);
            continue;
        }
        g_array_append_val(v->ranges, cur);
        node.n_ranges++;
        node.count += cur.hi - cur.lo + 1;
        if (i < s->len)
            cur = r[i];
    }
    node.min = r[0].lo;
    node.max = g_array_index(v->ranges, Range, v->ranges->len - 1).hi;
    g_array_append_vals(v->children, ops, n);
    uint32_t id = v->values->len;
    g_array_append_val(v->values, node);

    if (2 * (v->used + 1) > v->capacity) {
        uint64_t capacity = v->capacity * 2;
        uint32_t *table = g_new0(uint32_t, capacity);
        for (uint64_t i = 0; i < v->capacity; i++) {
            uint32_t k = v->table[i];
            if (k == 0)
                continue;
            uint64_t slot = value_at(v, k)->hash & (capacity - 1);
            while (table[slot])
                slot = (slot + 1) & (capacity - 1);
            table[slot] = k;
        }
        g_free(v->table);
        v->table = table;
        v->capacity = capacity;
    }
    uint64_t slot = h & (v->capacity - 1);
    while (v->table[slot])
        slot = (slot + 1) & (v->capacity - 1);
    v->table[slot] = id;
    v->used++;
    return id;
}

/* Drops empty operands and repeats (and `also`, unless it is empty); returns the count. */
static uint32_t clean(uint32_t *ops, uint32_t n, uint32_t also)
{
    sort_ids(ops, n);
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (ops[i] != FENNEL_VALUE_EMPTY && ops[i] != also && (k == 0 || ops[k - 1] != ops[i]))
            ops[k++] = ops[i];
    }
    return k;
}

static void note_overlap(FennelCombineInfo *info, uint32_t a, uint32_t b)
{
    if (!info->overlap) {
        info->overlap = TRUE;
        info->overlap_a = a;
        info->overlap_b = b;
    }
}

/* Combines k operands in one step; `checked` when they are known to be disjoint. */
static uint32_t combine_step(FennelValues *v, uint32_t *ops, uint32_t k, gboolean checked,
                             FennelCombineInfo *info)
{
    if (k == 1)
        return ops[0];
    if (!checked && !info->overlap && !disjoint(v, ops, k)) {
        for (uint32_t i = 0; i < k && !info->overlap; i++) {
            for (uint32_t j = i + 1; j < k && !info->overlap; j++) {
                if (intersects(v, value_at(v, ops[i]), value_at(v, ops[j])))
                    note_overlap(info, ops[i], ops[j]);
            }
        }
    }
    for (uint32_t i = 1; i < k; i++) {
        uint32_t x = ops[i], j = i;
        for (; j > 0 && canonical_before(v, x, ops[j - 1]); j--)
            ops[j] = ops[j - 1];
        ops[j] = x;
    }
    info->reduced = TRUE;
    return intern_node(v, ops, k);
}

uint32_t fennel_values_merge(FennelValues *v, uint32_t *ops, uint32_t n, FennelCombineInfo *info)
{
    memset(info, 0, sizeof *info);
    uint32_t k = clean(ops, n, FENNEL_VALUE_EMPTY);
    if (k <= 1)
        return k ? ops[0] : FENNEL_VALUE_EMPTY;
    if (!disjoint(v, ops, k)) {
        /* Keep only the versions not contained in another (of equal sets, the lower id). */
        uint32_t kept = 0;
        for (uint32_t i = 0; i < k; i++) {
            const Value *a = value_at(v, ops[i]);
            gboolean drop = FALSE;
            for (uint32_t j = 0; j < k && !drop; j++) {
                const Value *b = value_at(v, ops[j]);
                drop = j != i && subset(v, a, b) && (a->count < b->count || j < i);
            }
            if (!drop)
                ops[kept++] = ops[i];
        }
        k = kept;
    }
    return combine_step(v, ops, k, FALSE, info);
}

uint32_t fennel_values_receive(FennelValues *v, uint32_t local, uint32_t *ops, uint32_t n,
                               FennelCombineInfo *info)
{
    memset(info, 0, sizeof *info);
    uint32_t k = clean(ops, n, local);
    if (k == 0)
        return local;
    if (local == FENNEL_VALUE_EMPTY && k == 1)
        return ops[0];
    /* The usual case: everything disjoint, one reduction step. */
    if (local != FENNEL_VALUE_EMPTY)
        ops[k++] = local;
    if (disjoint(v, ops, k))
        return combine_step(v, ops, k, TRUE, info);
    if (local != FENNEL_VALUE_EMPTY)
        k--;

    /* Received data the rank already holds, or that another message also brings, would
     * be combined twice. A received result that contains all the rank holds replaces it
     * (a copy of a final or larger partial result). */
    const Value *l = value_at(v, local);
    gboolean replaced = FALSE;
    uint32_t kept = 0;
    for (uint32_t i = 0; i < k; i++) {
        const Value *a = value_at(v, ops[i]);
        if (local != FENNEL_VALUE_EMPTY && subset(v, a, l)) {
            note_overlap(info, ops[i], local);
            continue;
        }
        gboolean drop = FALSE;
        for (uint32_t j = 0; j < k && !drop; j++) {
            const Value *b = value_at(v, ops[j]);
            drop = j != i && subset(v, a, b) && (a->count < b->count || j < i);
            if (drop)
                note_overlap(info, ops[i], ops[j]);
        }
        if (drop)
            continue;
        if (local != FENNEL_VALUE_EMPTY && subset(v, l, a))
            replaced = TRUE;
        ops[kept++] = ops[i];
    }
    k = kept;
    if (local != FENNEL_VALUE_EMPTY && !replaced)
        ops[k++] = local;
    if (k == 0)
        return local;
    return combine_step(v, ops, k, FALSE, info);
}

/* Appends a list of ranges as "0, 2-5", at most a dozen of them. */
static void append_ranges(const Range *r, guint n, GString *out)
{
    const guint shown = 12;
    uint64_t total = 0;
    for (guint i = 0; i < n; i++) {
        total += r[i].hi - r[i].lo + 1;
        if (i >= shown)
            continue;
        g_string_append_printf(out, "%s%u", i ? ", " : "", r[i].lo);
        if (r[i].hi > r[i].lo)
            g_string_append_printf(out, "-%u", r[i].hi);
    }
    if (n > shown)
        g_string_append_printf(out, ", ... (%" G_GUINT64_FORMAT " ranks)", total);
}

gboolean fennel_values_append_missing(const FennelValues *v, uint32_t value, uint32_t lo,
                                      uint32_t hi, GString *out)
{
    const Value *x = value_at(v, value);
    const Range *r = ranges_of(v, x);
    GArray *gaps = g_array_new(FALSE, FALSE, sizeof(Range));
    uint64_t next = lo; /* the first rank not yet accounted for */
    for (uint32_t i = 0; i < x->n_ranges && next <= hi; i++) {
        if (r[i].hi < next)
            continue;
        if (r[i].lo > next) {
            Range gap = {(uint32_t)next, MIN(r[i].lo - 1, hi)};
            g_array_append_val(gaps, gap);
        }
        next = (uint64_t)r[i].hi + 1;
    }
    if (next <= hi) {
        Range gap = {(uint32_t)next, hi};
        g_array_append_val(gaps, gap);
    }
    gboolean any = gaps->len > 0;
    append_ranges((const Range *)gaps->data, gaps->len, out);
    g_array_free(gaps, TRUE);
    return any;
}

void fennel_values_append_common(const FennelValues *v, uint32_t a, uint32_t b, GString *out)
{
    const Value *x = value_at(v, a), *y = value_at(v, b);
    const Range *rx = ranges_of(v, x), *ry = ranges_of(v, y);
    GArray *common = g_array_new(FALSE, FALSE, sizeof(Range));
    uint32_t i = 0, j = 0;
    while (i < x->n_ranges && j < y->n_ranges) {
        Range c = {MAX(rx[i].lo, ry[j].lo), MIN(rx[i].hi, ry[j].hi)};
        if (c.lo <= c.hi)
            g_array_append_val(common, c);
        if (rx[i].hi < ry[j].hi)
            i++;
        else
            j++;
    }
    append_ranges((const Range *)common->data, common->len, out);
    g_array_free(common, TRUE);
}

static void append_tree(const FennelValues *v, uint32_t value, gsize limit, GString *out)
{
    if (out->len > limit)
        return;
    const Value *x = value_at(v, value);
    if (value == FENNEL_VALUE_EMPTY) {
        g_string_append(out, "nothing");
        return;
    }
    if (x->n_children == 0) {
        g_string_append_printf(out, "%u", x->min);
        return;
    }
    g_string_append_c(out, '(');
    for (uint32_t i = 0; i < x->n_children; i++) {
        if (i)
            g_string_append_c(out, '+');
        append_tree(v, children_of(v, x)[i], limit, out);
        if (out->len > limit)
            return;
    }
    g_string_append_c(out, ')');
}

void fennel_values_append_tree(const FennelValues *v, uint32_t value, gsize limit, GString *out)
{
    gsize start = out->len;
    append_tree(v, value, start + limit, out);
    if (out->len > start + limit) {
        g_string_truncate(out, start + limit);
        g_string_append(out, "...");
    }
}
