/* Max-min fair filling (src/core/fair_fill.c), the solver of contention `fair`
 * (docs/TOPOLOGY.md): small cases whose rates are derived by hand below, ties, order
 * independence, and random cases checked against the definition of max-min fairness
 * (every link within its capacity; every flow crosses a saturated link on which no flow
 * goes faster) and, to the last bit, against the plain statement of the filling. */
#include "fair_fill.h"

#include <glib.h>
#include <math.h>

#define MAX_FLOWS 64
#define MAX_LINKS 16

typedef struct {
    uint32_t n;
    uint32_t links[MAX_FLOWS][4];
    uint32_t n_links[MAX_FLOWS];
} Flows;

static void add(Flows *f, uint32_t n_links, const uint32_t *links)
{
    for (uint32_t k = 0; k < n_links; k++)
        f->links[f->n][k] = links[k];
    f->n_links[f->n++] = n_links;
}

#define ADD(f, ...)                                                                                \
    do {                                                                                           \
        const uint32_t l_[] = {__VA_ARGS__};                                                       \
        add(f, G_N_ELEMENTS(l_), l_);                                                              \
    } while (0)

static void fill(const Flows *f, const double *capacity, uint32_t n_capacity, double *rate)
{
    FennelFairPath paths[MAX_FLOWS];
    for (uint32_t i = 0; i < f->n; i++)
        paths[i] = (FennelFairPath){.links = f->links[i], .n_links = f->n_links[i]};
    FennelFairFill *s = fennel_fair_fill_new();
    fennel_fair_fill(s, capacity, n_capacity, paths, f->n, rate);
    fennel_fair_fill_free(s);
}

#define near(a, b) g_assert_cmpfloat_with_epsilon((a), (b), 1e-12 * fabs(b))

/* Two flows on one link of 10: 10 / 2 = 5 each. */
static void test_two_flows(void)
{
    const double capacity[] = {10};
    Flows f = {0};
    ADD(&f, 0);
    ADD(&f, 0);
    double rate[2];
    fill(&f, capacity, 1, rate);
    g_assert_cmpfloat(rate[0], ==, 5);
    g_assert_cmpfloat(rate[1], ==, 5);
}

/* A parking lot: links A (0, capacity 10) and B (1, capacity 4) in a row; a long flow
 * crosses both, a short one each. Shares per unfixed flow: A 10 / 2 = 5, B 4 / 2 = 2, so B
 * fixes the long flow and its short one at 2; A has 10 - 2 = 8 left for its one short
 * flow, which gets 8. Equal capacities of 10: both links 10 / 2 = 5, a tie, all three 5. */
static void test_parking_lot(void)
{
    const double capacity[] = {10, 4};
    Flows f = {0};
    ADD(&f, 0, 1); /* long */
    ADD(&f, 0);    /* short on A */
    ADD(&f, 1);    /* short on B */
    double rate[3];
    fill(&f, capacity, 2, rate);
    g_assert_cmpfloat(rate[0], ==, 2);
    g_assert_cmpfloat(rate[1], ==, 8);
    g_assert_cmpfloat(rate[2], ==, 2);
    const double equal[] = {10, 10};
    fill(&f, equal, 2, rate);
    for (int i = 0; i < 3; i++)
        g_assert_cmpfloat(rate[i], ==, 5);
}

/* A chain: f0 on links 0 and 1, f1 on 1 and 2, f2 on 2; capacities 1, 10, 10. Shares:
 * link 0 1 / 1 = 1, link 1 10 / 2 = 5, link 2 10 / 2 = 5: link 0 fixes f0 at 1, link 1 is
 * left 9 for f1 alone (9), link 2 still 5: it fixes f1 and f2 at 5. Link 1 keeps
 * 10 - 1 - 5 = 4 unused: f1 is held by link 2. */
static void test_chain(void)
{
    const double capacity[] = {1, 10, 10};
    Flows f = {0};
    ADD(&f, 0, 1);
    ADD(&f, 1, 2);
    ADD(&f, 2);
    double rate[3];
    fill(&f, capacity, 3, rate);
    g_assert_cmpfloat(rate[0], ==, 1);
    g_assert_cmpfloat(rate[1], ==, 5);
    g_assert_cmpfloat(rate[2], ==, 5);
}

/* Bertsekas and Gallager's example of max-min fairness: link 0 of capacity 1 carries f0,
 * f1 and f2, link 1 of capacity 2 carries f2 and f3. Shares 1 / 3 and 2 / 2 = 1: link 0
 * fixes f0, f1, f2 at 1 / 3; link 1 has 2 - 1 / 3 = 5 / 3 left for f3. */
static void test_textbook(void)
{
    const double capacity[] = {1, 2};
    Flows f = {0};
    ADD(&f, 0);
    ADD(&f, 0);
    ADD(&f, 0, 1);
    ADD(&f, 1);
    double rate[4];
    fill(&f, capacity, 2, rate);
    for (int i = 0; i < 3; i++)
        g_assert_cmpfloat(rate[i], ==, 1.0 / 3);
    near(rate[3], 5.0 / 3);
}

/* Ties: links 0 and 1 of capacity 6 carry f0, f1 (on both) and f2; link 2 of 6 carries f3
 * alone. Shares 3, 3 and 6: links 0 and 1 fix f0, f1, f2 at 3 together; f3 gets 6. With
 * link 1 at 6 (1 + 1e-13) its share 3 (1 + 1e-13) is within 1e-12 of 3: still a tie, so f2
 * gets exactly 3, not the 3 + 6e-13 that link 1 would have left after f1. At 6 (1 + 1e-10)
 * it is no tie: links 0 fixes f0 and f1 at 3, and f2 alone gets what link 1 has left,
 * 6 (1 + 1e-10) - 3. */
static void test_ties(void)
{
    Flows f = {0};
    ADD(&f, 0);
    ADD(&f, 0, 1);
    ADD(&f, 1);
    ADD(&f, 2);
    double rate[4];
    const double capacity[] = {6, 6, 6};
    fill(&f, capacity, 3, rate);
    g_assert_cmpfloat(rate[0], ==, 3);
    g_assert_cmpfloat(rate[1], ==, 3);
    g_assert_cmpfloat(rate[2], ==, 3);
    g_assert_cmpfloat(rate[3], ==, 6);
    const double near_tie[] = {6, 6 * (1 + 1e-13), 6};
    fill(&f, near_tie, 3, rate);
    g_assert_cmpfloat(rate[2], ==, 3);
    const double no_tie[] = {6, 6 * (1 + 1e-10), 6};
    fill(&f, no_tie, 3, rate);
    g_assert_cmpfloat(rate[1], ==, 3);
    g_assert_cmpfloat(rate[2], ==, no_tie[1] - 3);
}

/* Seven flows into one link of 10 GB/s (docs/TOPOLOGY.md's incast, 0.01 B/ps): each gets
 * a seventh; a flow crossing no link is unlimited. */
static void test_incast(void)
{
    const double capacity[] = {0.01};
    Flows f = {0};
    for (int i = 0; i < 7; i++)
        ADD(&f, 0);
    f.n_links[f.n++] = 0;
    double rate[8];
    fill(&f, capacity, 1, rate);
    for (int i = 0; i < 7; i++)
        g_assert_cmpfloat(rate[i], ==, 0.01 / 7);
    g_assert_true(isinf(rate[7]));
}

static void random_flows(GRand *r, Flows *f, double *capacity, uint32_t *n_capacity)
{
    *n_capacity = g_rand_int_range(r, 1, MAX_LINKS + 1);
    for (uint32_t l = 0; l < *n_capacity; l++)
        /* Few distinct capacities, so that ties are frequent. */
        capacity[l] = g_rand_int_range(r, 1, 5) * 2.5;
    f->n = g_rand_int_range(r, 1, MAX_FLOWS + 1);
    for (uint32_t i = 0; i < f->n; i++) {
        uint32_t n = g_rand_int_range(r, 1, MIN(4, *n_capacity) + 1);
        f->n_links[i] = 0;
        while (f->n_links[i] < n) {
            uint32_t l = g_rand_int_range(r, 0, *n_capacity);
            gboolean seen = FALSE;
            for (uint32_t k = 0; k < f->n_links[i]; k++)
                seen |= f->links[i][k] == l;
            if (!seen)
                f->links[i][f->n_links[i]++] = l;
        }
    }
}

/* The definition: no link carries more than its capacity (within rounding), and every flow
 * crosses a bottleneck, a link that is full and on which no flow goes faster than it. */
static void test_random_max_min(void)
{
    GRand *r = g_rand_new_with_seed(36);
    for (int round = 0; round < 2000; round++) {
        Flows f;
        double capacity[MAX_LINKS], rate[MAX_FLOWS], load[MAX_LINKS] = {0},
                                                     fastest[MAX_LINKS] = {0};
        uint32_t n_capacity;
        random_flows(r, &f, capacity, &n_capacity);
        fill(&f, capacity, n_capacity, rate);
        for (uint32_t i = 0; i < f.n; i++) {
            g_assert_cmpfloat(rate[i], >, 0);
            for (uint32_t k = 0; k < f.n_links[i]; k++) {
                load[f.links[i][k]] += rate[i];
                fastest[f.links[i][k]] = MAX(fastest[f.links[i][k]], rate[i]);
            }
        }
        for (uint32_t l = 0; l < n_capacity; l++)
            g_assert_cmpfloat(load[l], <=, capacity[l] * (1 + 1e-9));
        for (uint32_t i = 0; i < f.n; i++) {
            gboolean bottleneck = FALSE;
            for (uint32_t k = 0; k < f.n_links[i]; k++) {
                uint32_t l = f.links[i][k];
                bottleneck |=
                    load[l] >= capacity[l] * (1 - 1e-9) && rate[i] >= fastest[l] * (1 - 1e-9);
            }
            g_assert_true(bottleneck);
        }
    }
    g_rand_free(r);
}

/* The plain statement of progressive filling, level by level over every link and flow:
 * the lowest share (capacity left / unfixed flows) over the links with unfixed flows; every
 * link within 1e-12 of it is a bottleneck; every unfixed flow crossing one gets the share,
 * which each of its links gives out. The solver keeps links in a heap and flows in lists
 * per link; it must give these rates to the last bit (contention fair's times depend on
 * them to the picosecond). */
static void plain_fill(const Flows *f, const double *capacity, uint32_t n_capacity, double *rate)
{
    double left[MAX_LINKS];
    uint32_t count[MAX_LINKS] = {0}, unfixed = f->n;
    for (uint32_t l = 0; l < n_capacity; l++)
        left[l] = capacity[l];
    for (uint32_t i = 0; i < f->n; i++) {
        rate[i] = -1;
        for (uint32_t k = 0; k < f->n_links[i]; k++)
            count[f->links[i][k]]++;
    }
    while (unfixed > 0) {
        double level = G_MAXDOUBLE;
        gboolean bottleneck[MAX_LINKS];
        for (uint32_t l = 0; l < n_capacity; l++)
            if (count[l] > 0)
                level = MIN(level, left[l] / count[l]);
        for (uint32_t l = 0; l < n_capacity; l++)
            bottleneck[l] = count[l] > 0 && left[l] / count[l] <= level * (1 + 1e-12);
        for (uint32_t i = 0; i < f->n; i++) {
            gboolean fix = FALSE;
            for (uint32_t k = 0; k < f->n_links[i]; k++)
                fix |= rate[i] < 0 && bottleneck[f->links[i][k]];
            if (!fix)
                continue;
            rate[i] = level;
            unfixed--;
            for (uint32_t k = 0; k < f->n_links[i]; k++) {
                left[f->links[i][k]] = MAX(left[f->links[i][k]] - level, 0.0);
                count[f->links[i][k]]--;
            }
        }
    }
}

/* Random cases, many with ties and some with capacities that are not round, against the
 * plain statement to the last bit; one scratch for all, as a run uses it. */
static void test_plain(void)
{
    GRand *r = g_rand_new_with_seed(1);
    FennelFairFill *s = fennel_fair_fill_new();
    for (int round = 0; round < 5000; round++) {
        Flows f;
        double capacity[MAX_LINKS], rate[MAX_FLOWS], want[MAX_FLOWS];
        uint32_t n_capacity;
        random_flows(r, &f, capacity, &n_capacity);
        if (round % 2)
            for (uint32_t l = 0; l < n_capacity; l++)
                capacity[l] = g_rand_double_range(r, 0.001, 0.1);
        FennelFairPath paths[MAX_FLOWS];
        for (uint32_t i = 0; i < f.n; i++)
            paths[i] = (FennelFairPath){.links = f.links[i], .n_links = f.n_links[i]};
        fennel_fair_fill(s, capacity, n_capacity, paths, f.n, rate);
        plain_fill(&f, capacity, n_capacity, want);
        for (uint32_t i = 0; i < f.n; i++)
            g_assert_cmpfloat(rate[i], ==, want[i]);
    }
    fennel_fair_fill_free(s);
    g_rand_free(r);
}

/* The rates do not depend on the order of the flows, to the last bit. */
static void test_order(void)
{
    GRand *r = g_rand_new_with_seed(31);
    for (int round = 0; round < 500; round++) {
        Flows f, g;
        double capacity[MAX_LINKS], rate[MAX_FLOWS], shuffled[MAX_FLOWS];
        uint32_t n_capacity, where[MAX_FLOWS];
        random_flows(r, &f, capacity, &n_capacity);
        for (uint32_t i = 0; i < f.n; i++)
            where[i] = i;
        for (uint32_t i = f.n; i > 1; i--) {
            uint32_t j = g_rand_int_range(r, 0, i), t = where[i - 1];
            where[i - 1] = where[j];
            where[j] = t;
        }
        g = f;
        for (uint32_t i = 0; i < f.n; i++) {
            g.n_links[i] = f.n_links[where[i]];
            for (uint32_t k = 0; k < f.n_links[where[i]]; k++)
                g.links[i][k] = f.links[where[i]][k];
        }
        fill(&f, capacity, n_capacity, rate);
        fill(&g, capacity, n_capacity, shuffled);
        for (uint32_t i = 0; i < f.n; i++)
            g_assert_cmpfloat(shuffled[i], ==, rate[where[i]]);
    }
    g_rand_free(r);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/fair_fill/two_flows", test_two_flows);
    g_test_add_func("/fair_fill/parking_lot", test_parking_lot);
    g_test_add_func("/fair_fill/chain", test_chain);
    g_test_add_func("/fair_fill/textbook", test_textbook);
    g_test_add_func("/fair_fill/ties", test_ties);
    g_test_add_func("/fair_fill/incast", test_incast);
    g_test_add_func("/fair_fill/random_max_min", test_random_max_min);
    g_test_add_func("/fair_fill/order", test_order);
    g_test_add_func("/fair_fill/plain", test_plain);
    return g_test_run();
}
