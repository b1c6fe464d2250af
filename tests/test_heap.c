/* The event queue: pops in (time, key) order, including pushes earlier than the last
 * pop (SPEC §6.2), checked against a sorted reference on random sequences. */
#include "heap.h"

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

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/heap/order", test_order);
    g_test_add_func("/heap/random", test_random);
    return g_test_run();
}
