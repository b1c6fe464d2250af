/* The event queue: pops in (time, key) order, including pushes earlier than the last
 * pop (engine rule 2, docs/SEMANTICS.md), checked against a sorted reference on random sequences.
 */
#include "heap.h"
#include "queue.h"
#include "radix.h"

static int compare_entry(const void *a, const void *b)
{
    const FennelHeapEntry *x = a, *y = b;
    return fennel_heap_less(x, y) ? -1 : fennel_heap_less(y, x) ? 1 : 0;
}

static void test_order(void)
{
    FennelHeap h;
    fennel_heap_init(&h);
    fennel_heap_push(&h, 10, 5);
    fennel_heap_push(&h, 10, 2);
    fennel_heap_push(&h, 5, 9);
    FennelHeapEntry e;
    fennel_heap_pop(&h, &e);
    g_assert_cmpint(e.time, ==, 5);
    /* Earlier than the last pop: it comes out next. */
    fennel_heap_push(&h, 1, 7);
    fennel_heap_pop(&h, &e);
    g_assert_cmpint(e.time, ==, 1);
    fennel_heap_pop(&h, &e);
    g_assert_cmpint(e.key, ==, 2);
    fennel_heap_pop(&h, &e);
    g_assert_cmpint(e.key, ==, 5);
    g_assert_cmpuint(h.len, ==, 0);
    fennel_heap_clear(&h);
}

static void test_random(void)
{
    GRand *rand = g_rand_new_with_seed(42);
    for (int round = 0; round < 50; round++) {
        FennelHeap h;
        fennel_heap_init(&h);
        GArray *pushed = g_array_new(FALSE, FALSE, sizeof(FennelHeapEntry));
        GArray *popped = g_array_new(FALSE, FALSE, sizeof(FennelHeapEntry));
        int n = g_rand_int_range(rand, 1, 3000);
        for (int i = 0; i < n; i++) {
            FennelHeapEntry e = {g_rand_int_range(rand, 0, 50), (uint64_t)i};
            fennel_heap_push(&h, e.time, e.key);
            g_array_append_val(pushed, e);
            if (g_rand_boolean(rand) && h.len > 0) {
                FennelHeapEntry out;
                fennel_heap_pop(&h, &out);
                g_array_append_val(popped, out);
                /* Whatever was popped must be the minimum of what is left or equal. */
                for (size_t k = 0; k < h.len; k++)
                    g_assert_false(fennel_heap_less(&h.entries[k], &out));
            }
        }
        while (h.len > 0) {
            FennelHeapEntry out;
            fennel_heap_pop(&h, &out);
            g_array_append_val(popped, out);
        }
        /* Same multiset. */
        g_assert_cmpuint(pushed->len, ==, popped->len);
        g_array_sort(pushed, compare_entry);
        g_array_sort(popped, compare_entry);
        for (guint k = 0; k < pushed->len; k++)
            g_assert_cmpint(compare_entry(&g_array_index(pushed, FennelHeapEntry, k),
                                          &g_array_index(popped, FennelHeapEntry, k)),
                            ==, 0);
        g_array_free(pushed, TRUE);
        g_array_free(popped, TRUE);
        fennel_heap_clear(&h);
    }
    g_rand_free(rand);
}

/* The bucket queue pops exactly what a reference priority queue pops, whatever mix of
 * clustered times, increasing and decreasing keys, and pushes before the current time. */
static void test_queue_random(void)
{
    GRand *rand = g_rand_new_with_seed(7);
    for (int round = 0; round < 200; round++) {
        FennelQueue q;
        fennel_queue_init(&q);
        GArray *ref = g_array_new(FALSE, FALSE, sizeof(FennelHeapEntry));
        int n = g_rand_int_range(rand, 1, 2000);
        int spread = g_rand_int_range(rand, 1, 40); /* few distinct times: heavy clustering */
        FennelTime last = 0;
        uint64_t next_key = 0;
        for (int i = 0; i < n || ref->len > 0;) {
            gboolean push = i < n && (ref->len == 0 || g_rand_int_range(rand, 0, 3) > 0);
            if (push) {
                FennelHeapEntry e;
                int kind = g_rand_int_range(rand, 0, 4);
                e.time = kind == 0 ? last : last + g_rand_int_range(rand, 0, spread);
                if (kind == 1 && last > 5)
                    e.time = last - g_rand_int_range(rand, 1, 5); /* before now */
                e.key =
                    g_rand_boolean(rand) ? next_key++ : (uint64_t)g_rand_int_range(rand, 0, 5000);
                fennel_queue_push(&q, e.time, e.key);
                g_array_append_val(ref, e);
                i++;
                continue;
            }
            guint best = 0;
            for (guint k = 1; k < ref->len; k++) {
                if (fennel_heap_less(&g_array_index(ref, FennelHeapEntry, k),
                                     &g_array_index(ref, FennelHeapEntry, best)))
                    best = k;
            }
            FennelHeapEntry want = g_array_index(ref, FennelHeapEntry, best);
            g_array_remove_index_fast(ref, best);
            FennelTime t;
            uint64_t key;
            g_assert_true(fennel_queue_pop(&q, &t, &key));
            g_assert_cmpint(t, ==, want.time);
            g_assert_cmpuint(key, ==, want.key);
            last = t;
        }
        FennelTime t;
        uint64_t key;
        g_assert_false(fennel_queue_pop(&q, &t, &key));
        g_assert_cmpuint(fennel_queue_len(&q), ==, 0);
        g_array_free(ref, TRUE);
        fennel_queue_clear(&q);
    }
    g_rand_free(rand);
}

/* The reference of the long test below: a sorted sequence of (time, key). */
static gint compare_sequence(gconstpointer a, gconstpointer b, gpointer data)
{
    (void)data;
    return compare_entry(a, b);
}

/* How the long test picks a pushed entry's time: the queue changes how it stores entries
 * when times stop (or start) sharing values, so the test moves between the patterns. */
enum { DISTINCT, CLUSTERED, MIXED, SAME, EARLIER, N_PATTERNS };

static FennelTime pattern_time(GRand *rand, int pattern, FennelTime last)
{
    switch (pattern) {
    case DISTINCT:
        return last + g_rand_int_range(rand, 1, 1000000000);
    case CLUSTERED:
        return last + 1000 * g_rand_int_range(rand, 0, 4);
    case MIXED:
        return g_rand_boolean(rand) ? pattern_time(rand, DISTINCT, last)
                                    : pattern_time(rand, CLUSTERED, last);
    case SAME:
        return g_rand_int_range(rand, 0, 4) > 0 ? last : pattern_time(rand, MIXED, last);
    default:
        return last > 100 ? last - g_rand_int_range(rand, 1, 100) : last;
    }
}

/* Pops the queue's head, which must be the reference's least entry, and removes that
 * from the reference; returns its time. */
static FennelTime pop_least(FennelQueue *q, GSequence *ref)
{
    GSequenceIter *first = g_sequence_get_begin_iter(ref);
    const FennelHeapEntry *want = g_sequence_get(first);
    FennelTime t;
    uint64_t key;
    g_assert_true(fennel_queue_pop(q, &t, &key));
    g_assert_cmpint(t, ==, want->time);
    g_assert_cmpuint(key, ==, want->key);
    g_sequence_remove(first);
    return t;
}

/* Long runs of each pattern of times, with the queue growing and draining, popped in
 * exactly the order of a sorted reference: enough entries for the queue to switch between
 * its ways of storing them many times, in every state. */
static void test_queue_patterns(void)
{
    GRand *rand = g_rand_new_with_seed(11);
    guint steps_in_mode[2] = {0, 0}, switches = 0;
    for (int round = 0; round < 12; round++) {
        FennelQueue q;
        fennel_queue_init(&q);
        GSequence *ref = g_sequence_new(NULL);
        FennelHeapEntry *entries = g_new(FennelHeapEntry, 40000);
        size_t n_entries = 0;
        FennelTime last = 0;
        uint64_t next_key = 0;
        int pattern = DISTINCT;
        int push_percent = 60;
        for (int step = 0; step < 60000; step++) {
            gboolean distinct_before = q.distinct;
            if (step % 1500 == 0) {
                pattern = g_rand_int_range(rand, 0, N_PATTERNS);
                push_percent = g_rand_int_range(rand, 30, 80);
            }
            gboolean push = n_entries < 40000 && (g_sequence_is_empty(ref) ||
                                                  g_rand_int_range(rand, 0, 100) < push_percent);
            if (push) {
                FennelHeapEntry *e = &entries[n_entries++];
                e->time = pattern_time(rand, pattern, last);
                /* Mostly in program order, as tasks are released; sometimes any key. */
                e->key = g_rand_int_range(rand, 0, 8) > 0
                             ? next_key++
                             : (uint64_t)g_rand_int_range(rand, 0, 1 << 20);
                fennel_queue_push(&q, e->time, e->key);
                g_sequence_insert_sorted(ref, e, compare_sequence, NULL);
            } else {
                last = pop_least(&q, ref);
            }
            g_assert_cmpuint(fennel_queue_len(&q), ==, (guint)g_sequence_get_length(ref));
            switches += step > 0 && q.distinct != distinct_before;
            steps_in_mode[q.distinct != 0]++;
            if (n_entries == 40000 && g_sequence_is_empty(ref))
                n_entries = 0; /* every entry is popped: reuse the storage */
        }
        while (!g_sequence_is_empty(ref)) {
            pop_least(&q, ref);
        }
        FennelTime t;
        uint64_t key;
        g_assert_false(fennel_queue_pop(&q, &t, &key));
        g_sequence_free(ref);
        g_free(entries);
        fennel_queue_clear(&q);
    }
    /* The test means something only if the queue used both of its ways of storing
     * entries, and changed between them often. */
    g_assert_cmpuint(steps_in_mode[0], >, 10000);
    g_assert_cmpuint(steps_in_mode[1], >, 10000);
    g_assert_cmpuint(switches, >, 20);
    g_rand_free(rand);
}

/* The radix heap pops exactly what a sorted reference pops, for every spread of times
 * above the last pop: one time with keys in any order (level 0's heaps of keys), times a
 * few apart, and times up to 2^62 apart (every level, and buckets emptied into each level
 * below), negative times included, in batches large enough that emptied buckets' arrays
 * are reused. */
static void test_radix(void)
{
    GRand *rand = g_rand_new_with_seed(5);
    for (int round = 0; round < 40; round++) {
        FennelRadix r;
        fennel_radix_init(&r);
        GSequence *ref = g_sequence_new(NULL);
        FennelHeapEntry *entries = g_new(FennelHeapEntry, 30000);
        size_t n_entries = 0;
        FennelTime floor = round % 2 ? -((FennelTime)1 << 40) : 0;
        const int bits = g_rand_int_range(rand, 0, 63);
        while (n_entries < 30000) {
            /* A batch of pushes, then of pops. */
            int pushes = g_rand_int_range(rand, 1, round % 3 == 0 ? 5000 : 60);
            for (int i = 0; i < pushes && n_entries < 30000; i++) {
                FennelHeapEntry *e = &entries[n_entries++];
                uint64_t spread = bits == 0 ? 1 : (uint64_t)1 << g_rand_int_range(rand, 0, bits);
                spread = MIN(spread, (uint64_t)(G_MAXINT64 - floor) + 1); /* no overflow */
                e->time =
                    floor +
                    (FennelTime)(((uint64_t)g_rand_int(rand) << 31 ^ g_rand_int(rand)) % spread);
                e->key = (uint64_t)g_rand_int_range(rand, 0, 1 << 20);
                fennel_radix_push(&r, e->time, e->key);
                g_sequence_insert_sorted(ref, e, compare_sequence, NULL);
            }
            int pops = g_rand_int_range(rand, 0, (int)r.len + 1);
            for (int i = 0; i < pops; i++) {
                GSequenceIter *first = g_sequence_get_begin_iter(ref);
                const FennelHeapEntry *want = g_sequence_get(first);
                g_assert_cmpint(fennel_radix_top(&r)->time, ==, want->time);
                FennelHeapEntry got;
                fennel_radix_pop(&r, &got);
                g_assert_cmpint(got.time, ==, want->time);
                g_assert_cmpuint(got.key, ==, want->key);
                g_assert_cmpint(fennel_radix_floor(&r), ==, got.time);
                floor = got.time;
                g_sequence_remove(first);
            }
            g_assert_cmpuint(r.len, ==, (guint)g_sequence_get_length(ref));
        }
        while (r.len > 0) {
            GSequenceIter *first = g_sequence_get_begin_iter(ref);
            const FennelHeapEntry *want = g_sequence_get(first);
            FennelHeapEntry got;
            fennel_radix_pop(&r, &got);
            g_assert_cmpint(got.time, ==, want->time);
            g_assert_cmpuint(got.key, ==, want->key);
            g_sequence_remove(first);
        }
        g_assert_true(g_sequence_is_empty(ref));
        g_sequence_free(ref);
        g_free(entries);
        fennel_radix_clear(&r);
    }
    g_rand_free(rand);
}

/* The map's removal keeps every other key findable (backward-shift deletion). */
static void test_map_remove(void)
{
    FennelMap map;
    fennel_map_init(&map);
    GRand *rand = g_rand_new_with_seed(3);
    GHashTable *ref = g_hash_table_new(g_int64_hash, g_int64_equal);
    gint64 *keys = g_new(gint64, 5000);
    for (int i = 0; i < 5000; i++) {
        keys[i] = g_rand_int_range(rand, 0, 3000);
        if (g_rand_boolean(rand)) {
            *fennel_map_slot(&map, (uint64_t)keys[i], 0, (uint64_t)i) = (uint64_t)i;
            g_hash_table_insert(ref, &keys[i], GINT_TO_POINTER(i + 1));
        } else {
            fennel_map_remove(&map, (uint64_t)keys[i], 0);
            g_hash_table_remove(ref, &keys[i]);
        }
        g_assert_cmpuint(map.len, ==, g_hash_table_size(ref));
    }
    for (gint64 k = 0; k < 3000; k++) {
        gpointer v = g_hash_table_lookup(ref, &k);
        uint64_t *slot = fennel_map_find(&map, (uint64_t)k, 0);
        g_assert_true((v == NULL) == (slot == NULL));
        if (v)
            g_assert_cmpuint(*slot, ==, (uint64_t)(GPOINTER_TO_INT(v) - 1));
    }
    g_hash_table_destroy(ref);
    g_free(keys);
    g_rand_free(rand);
    fennel_map_clear(&map);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/heap/order", test_order);
    g_test_add_func("/heap/random", test_random);
    g_test_add_func("/heap/queue-random", test_queue_random);
    g_test_add_func("/heap/queue-patterns", test_queue_patterns);
    g_test_add_func("/heap/radix", test_radix);
    g_test_add_func("/heap/map-remove", test_map_remove);
    return g_test_run();
}
