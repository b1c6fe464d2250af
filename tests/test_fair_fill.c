/* Max-min fair filling (src/core/fair_fill.c), the solver of contention `fair`
 * (docs/TOPOLOGY.md): small cases whose rates are derived by hand below, ties, order
 * independence, and random cases checked against the definition of max-min fairness
 * (every link within its capacity; every flow crosses a saturated link on which no flow
 * goes faster) and, to the last bit, against the plain statement of the filling; and the
 * twelve cases compared with SimGrid (tests/data/topology/simgrid/), their rates and ends. */
#include "fair_fill.h"

#include <glib.h>
#include <math.h>
#include <string.h>

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

static void fill_paths(const FennelFairPath *paths, uint32_t n_flows, const double *capacity,
                       uint32_t n_capacity, double *rate)
{
    FennelFairFill *s = fennel_fair_fill_new();
    fennel_fair_fill(s, capacity, n_capacity, paths, n_flows, rate);
    fennel_fair_fill_free(s);
}

/* The SimGrid comparison cases (tests/data/topology/simgrid/: cases.json, and simgrid.csv,
 * the time each transfer ended in SimGrid 3.32's max-min model, CM02 without corrections)
 * as direct calls of the filling. Each case's transfers start at time 0 and every link has
 * 10 GB/s = 0.01 B/ps; the routes are docs/TOPOLOGY.md's rules (the rules the SimGrid side
 * was given its routes by, simgrid_side.py). Each case checks the rates at time 0 that the
 * recorded ends imply, derived by hand in its comment, and then replays the fluid flows
 * (fill, run to the first end, drop the flows that ended, fill again) to every recorded end
 * within 2 ps, as tests/cli/test_topology.py requires of the whole engine. */

#define SG_LINK      0.01 /* B/ps */
#define SG_MAX_FLOWS 240
#define SG_MAX_HOPS  8
#define SG_MAX_LINKS 256

typedef enum { SG_SWITCH, SG_FAT_TREE, SG_TORUS } SgKind;

typedef struct {
    const char *name; /* the case's name in simgrid.csv */
    SgKind kind;
    uint32_t nodes;
    uint32_t radix, oversubscription; /* fat tree (two levels) */
    uint32_t dims[2], n_dims;         /* torus */
    double latency;                   /* ps per link (a torus node's own links: none) */
    uint32_t n;                       /* transfers */
    uint32_t src[SG_MAX_FLOWS], dst[SG_MAX_FLOWS];
    double bytes[SG_MAX_FLOWS];
} SgCase;

typedef struct {
    uint32_t links[SG_MAX_FLOWS][SG_MAX_HOPS], n_links[SG_MAX_FLOWS];
    double latency[SG_MAX_FLOWS]; /* the route's */
} SgRoutes;

/* Link numbers: node n's link up (to its switch or router) n, down N + n; then a fat
 * tree's leaf-to-spine and spine-to-leaf links, or a torus router's link per dimension and
 * direction. */
static uint32_t sg_route(const SgCase *c, uint32_t s, uint32_t d, uint32_t *links, double *latency)
{
    uint32_t N = c->nodes, n = 0;
    links[n++] = s;
    if (c->kind == SG_SWITCH) {
        *latency = 2 * c->latency;
    } else if (c->kind == SG_FAT_TREE) {
        /* k / 2 nodes per leaf, k / (2 r) up-links, up-link dst mod k / (2 r). */
        uint32_t down = c->radix / 2, up = down / c->oversubscription,
                 leaves = (N + down - 1) / down, ls = s / down, ld = d / down, i = d % up;
        if (ls != ld) {
            links[n++] = 2 * N + ls * up + i;
            links[n++] = 2 * N + leaves * up + ld * up + i;
        }
        *latency = (n + 1) * c->latency;
    } else {
        /* Dimension 0 first, the shorter way round, positive on a tie. */
        uint32_t cur = s, stride = 1, hops = 0;
        for (uint32_t k = 0; k < c->n_dims; k++) {
            uint32_t X = c->dims[k];
            while (cur / stride % X != d / stride % X) {
                uint32_t x = cur / stride % X, ahead = (d / stride % X + X - x) % X;
                gboolean positive = ahead <= X - ahead;
                links[n++] = 2 * N + (cur * c->n_dims + k) * 2 + !positive;
                cur = cur - x * stride + (positive ? (x + 1) % X : (x + X - 1) % X) * stride;
                hops++;
            }
            stride *= X;
        }
        *latency = hops * c->latency;
    }
    links[n++] = N + d;
    g_assert_cmpuint(n, <=, SG_MAX_HOPS);
    return n;
}

static void sg_add(SgCase *c, uint32_t s, uint32_t d, double bytes)
{
    g_assert_cmpuint(c->n, <, SG_MAX_FLOWS);
    c->src[c->n] = s;
    c->dst[c->n] = d;
    c->bytes[c->n++] = bytes;
}

/* Every ordered pair of distinct nodes, by source then destination (cases.json's order). */
static void sg_all_to_all(SgCase *c, double bytes)
{
    for (uint32_t s = 0; s < c->nodes; s++)
        for (uint32_t d = 0; d < c->nodes; d++)
            if (s != d)
                sg_add(c, s, d, bytes);
}

static void sg_routes(const SgCase *c, SgRoutes *r)
{
    for (uint32_t i = 0; i < c->n; i++)
        r->n_links[i] = sg_route(c, c->src[i], c->dst[i], r->links[i], &r->latency[i]);
}

/* The rates of all the case's transfers at time 0. */
static void sg_rates(const SgCase *c, double *rate)
{
    SgRoutes r;
    double capacity[SG_MAX_LINKS];
    FennelFairPath paths[SG_MAX_FLOWS];
    for (uint32_t l = 0; l < SG_MAX_LINKS; l++)
        capacity[l] = SG_LINK;
    sg_routes(c, &r);
    for (uint32_t i = 0; i < c->n; i++)
        paths[i] = (FennelFairPath){.links = r.links[i], .n_links = r.n_links[i]};
    fill_paths(paths, c->n, capacity, SG_MAX_LINKS, rate);
}

/* Runs the flows to their ends and compares each with simgrid.csv's, within 2 ps. */
static void sg_replay(const SgCase *c)
{
    SgRoutes r;
    double capacity[SG_MAX_LINKS], left[SG_MAX_FLOWS], end[SG_MAX_FLOWS], rate[SG_MAX_FLOWS];
    uint32_t live[SG_MAX_FLOWS], n_live = c->n;
    FennelFairPath paths[SG_MAX_FLOWS];
    for (uint32_t l = 0; l < SG_MAX_LINKS; l++)
        capacity[l] = SG_LINK;
    sg_routes(c, &r);
    for (uint32_t i = 0; i < c->n; i++) {
        left[i] = c->bytes[i];
        live[i] = i;
    }
    double now = 0;
    while (n_live > 0) {
        for (uint32_t j = 0; j < n_live; j++)
            paths[j] = (FennelFairPath){.links = r.links[live[j]], .n_links = r.n_links[live[j]]};
        fill_paths(paths, n_live, capacity, SG_MAX_LINKS, rate);
        double step = G_MAXDOUBLE;
        for (uint32_t j = 0; j < n_live; j++)
            step = MIN(step, left[live[j]] / rate[j]);
        now += step;
        uint32_t kept = 0;
        for (uint32_t j = 0; j < n_live; j++) {
            uint32_t i = live[j];
            if (left[i] / rate[j] <= step * (1 + 1e-12)) {
                end[i] = now;
                continue;
            }
            left[i] -= rate[j] * step;
            live[kept++] = i;
        }
        n_live = kept;
    }

    char *path =
        g_test_build_filename(G_TEST_DIST, "data", "topology", "simgrid", "simgrid.csv", NULL);
    char *text;
    g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
    char **lines = g_strsplit(text, "\n", -1);
    uint32_t seen = 0;
    for (char **line = lines + 1; *line && **line; line++) {
        char **f = g_strsplit(*line, ",", 3);
        if (strcmp(f[0], c->name) == 0) {
            uint32_t i = (uint32_t)g_ascii_strtoull(f[1], NULL, 10);
            g_assert_cmpuint(i, <, c->n);
            double want = g_ascii_strtod(f[2], NULL) * 1000; /* ns to ps */
            g_assert_cmpfloat_with_epsilon(r.latency[i] + end[i], want, 2);
            seen++;
        }
        g_strfreev(f);
    }
    g_assert_cmpuint(seen, ==, c->n);
    g_strfreev(lines);
    g_free(text);
    g_free(path);
}

#define MIB 1048576.0

/* Incast 4 -> 1 on a switch of 5, 2 MiB each, 100 ns links: SimGrid ends all four at
 * 839 060.8 ns = 2 x 100 ns + 2 MiB / rate, so rate = 2097152 B / 838 860.8 ns = 2.5 GB/s:
 * the destination's link of 0.01 B/ps shared by 4. */
static void test_simgrid_switch_incast4(void)
{
    SgCase c = {.name = "switch-incast4", .kind = SG_SWITCH, .nodes = 5, .latency = 1e5};
    double rate[SG_MAX_FLOWS];
    for (uint32_t s = 1; s <= 4; s++)
        sg_add(&c, s, 0, 2 * MIB);
    sg_rates(&c, rate);
    for (uint32_t i = 0; i < c.n; i++)
        near(rate[i], SG_LINK / 4);
    sg_replay(&c);
}

/* All-to-all of 2 MiB on a switch of 8, 100 ns links: 1 468 206.4 ns = 200 ns + 2 MiB /
 * rate, rate = 2097152 / 1 468 006.4 ns = 10/7 GB/s: each node's links carry 7 flows. */
static void test_simgrid_switch_alltoall8(void)
{
    SgCase c = {.name = "switch-alltoall8", .kind = SG_SWITCH, .nodes = 8, .latency = 1e5};
    double rate[SG_MAX_FLOWS];
    sg_all_to_all(&c, 2 * MIB);
    sg_rates(&c, rate);
    for (uint32_t i = 0; i < c.n; i++)
        near(rate[i], SG_LINK / 7);
    sg_replay(&c);
}

/* Incast of 2, 1 and 0.5 MiB on a switch of 4, 100 ns links. SimGrid's ends less 200 ns:
 * 157 286.4, 262 144 and 367 001.6 ns. The 0.5 MiB flow ends first: 524288 B / 157 286.4 ns
 * = 10/3 GB/s, a third of node 0's link each. The 1 MiB flow then has 524288 B left, done
 * in 262 144 - 157 286.4 = 104 857.6 ns: 5 GB/s, a half. The 2 MiB flow has 2 MiB - 2 x
 * 524288 B = 1 MiB left, done in 367 001.6 - 262 144 = 104 857.6 ns: 10 GB/s, the link. */
static void test_simgrid_switch_incast_mixed(void)
{
    SgCase c = {.name = "switch-incast-mixed", .kind = SG_SWITCH, .nodes = 4, .latency = 1e5};
    double rate[SG_MAX_FLOWS];
    sg_add(&c, 1, 0, 2 * MIB);
    sg_add(&c, 2, 0, MIB);
    sg_add(&c, 3, 0, MIB / 2);
    sg_rates(&c, rate);
    for (uint32_t i = 0; i < 3; i++)
        near(rate[i], SG_LINK / 3);
    c.n = 2; /* the 0.5 MiB flow has ended */
    sg_rates(&c, rate);
    near(rate[0], SG_LINK / 2);
    near(rate[1], SG_LINK / 2);
    c.n = 1;
    sg_rates(&c, rate);
    near(rate[0], SG_LINK);
    c.n = 3;
    sg_replay(&c);
}

/* A permutation of 16 nodes on a switch, 2 MiB, 100 ns: 209 915.2 ns = 200 ns + 2 MiB /
 * rate, rate = 2097152 / 209 715.2 ns = 10 GB/s: no link is shared. */
static void test_simgrid_switch_permutation16(void)
{
    SgCase c = {.name = "switch-permutation16", .kind = SG_SWITCH, .nodes = 16, .latency = 1e5};
    const uint32_t to[] = {3, 14, 7, 9, 13, 11, 4, 5, 12, 8, 1, 0, 15, 6, 2, 10};
    double rate[SG_MAX_FLOWS];
    for (uint32_t s = 0; s < 16; s++)
        sg_add(&c, s, to[s], 2 * MIB);
    sg_rates(&c, rate);
    for (uint32_t i = 0; i < c.n; i++)
        near(rate[i], SG_LINK);
    sg_replay(&c);
}

/* Shifts by 8 (i -> i + 8 mod 16, and i xor 4) on a fat tree of radix 8 (4 nodes per leaf),
 * 2 MiB, 100 ns links, 4 links a route. Oversubscription 1 (4 up-links a leaf, dst mod 4
 * gives the 4 flows of a leaf 4 of them): 210 115.2 ns = 400 ns + 2 MiB / rate, rate =
 * 2097152 / 209 715.2 ns = 10 GB/s. Oversubscription 2 (2 up-links, dst mod 2 puts 2 flows
 * on each): 419 830.4 ns - 400 = 419 430.4 ns, 5 GB/s, half a link. */
static void test_simgrid_fat_tree_shifts(void)
{
    SgCase r1 = {.name = "fattree-shift-r1",
                 .kind = SG_FAT_TREE,
                 .nodes = 16,
                 .radix = 8,
                 .oversubscription = 1,
                 .latency = 1e5};
    SgCase r2 = {.name = "fattree-shift-r2",
                 .kind = SG_FAT_TREE,
                 .nodes = 16,
                 .radix = 8,
                 .oversubscription = 2,
                 .latency = 1e5};
    SgCase rd = {.name = "fattree-rd-stage-r2",
                 .kind = SG_FAT_TREE,
                 .nodes = 16,
                 .radix = 8,
                 .oversubscription = 2,
                 .latency = 1e5};
    double rate[SG_MAX_FLOWS];
    for (uint32_t s = 0; s < 16; s++) {
        sg_add(&r1, s, (s + 8) % 16, 2 * MIB);
        sg_add(&r2, s, (s + 8) % 16, 2 * MIB);
        sg_add(&rd, s, s ^ 4, 2 * MIB);
    }
    sg_rates(&r1, rate);
    for (uint32_t i = 0; i < r1.n; i++)
        near(rate[i], SG_LINK);
    sg_rates(&r2, rate);
    for (uint32_t i = 0; i < r2.n; i++)
        near(rate[i], SG_LINK / 2);
    sg_rates(&rd, rate);
    for (uint32_t i = 0; i < rd.n; i++)
        near(rate[i], SG_LINK / 2);
    sg_replay(&r1);
    sg_replay(&r2);
    sg_replay(&rd);
}

/* All-to-all of 2 MiB on a fat tree of radix 8, oversubscription 2, 8 nodes on 2 leaves, no
 * latency. SimGrid: 1 258 291.2 ns for the 3 flows to the same leaf of each node,
 * 1 677 721.6 ns for the 4 to the other leaf. The latter: 2097152 / 1 677 721.6 ns =
 * 1.25 GB/s, an eighth of a link: each leaf's 2 up-links carry the 4 x 4 flows between the
 * leaves, 8 each. Node links carry 7 flows, 4 of them at 1.25 GB/s: 10 - 5 = 5 GB/s left for
 * the 3 within the leaf, 5/3 GB/s: 2097152 / 1 258 291.2 ns. When those end, the others
 * have 2097152 - 1.25 x 1 258 291.2 = 524288 B left, which at 1.25 GB/s takes 419 430.4 ns:
 * the 1 677 721.6 ns. */
static void test_simgrid_fat_tree_alltoall(void)
{
    SgCase c = {.name = "fattree-alltoall-r2",
                .kind = SG_FAT_TREE,
                .nodes = 8,
                .radix = 8,
                .oversubscription = 2,
                .latency = 0};
    double rate[SG_MAX_FLOWS];
    sg_all_to_all(&c, 2 * MIB);
    sg_rates(&c, rate);
    for (uint32_t i = 0; i < c.n; i++)
        near(rate[i], c.src[i] / 4 == c.dst[i] / 4 ? SG_LINK / 2 / 3 : SG_LINK / 8);
    sg_replay(&c);
}

/* Tori. Shift +1 in x on 4x4, 2 MiB, 100 ns links (a node's own links have none): each
 * flow crosses one router link, alone: 209 815.2 ns = 100 ns + 2097152 / 209 715.2 ns, 10
 * GB/s. A ring of 8 both ways: every router link carries one flow, but every node sends
 * two and receives two through its own links: 419 530.4 ns = 100 + 419 430.4 ns, 5 GB/s. */
static void test_simgrid_torus_shifts(void)
{
    SgCase x = {.name = "torus-shift-x",
                .kind = SG_TORUS,
                .nodes = 16,
                .dims = {4, 4},
                .n_dims = 2,
                .latency = 1e5};
    SgCase ring = {.name = "torus-ring-both",
                   .kind = SG_TORUS,
                   .nodes = 8,
                   .dims = {8},
                   .n_dims = 1,
                   .latency = 1e5};
    double rate[SG_MAX_FLOWS];
    for (uint32_t s = 0; s < 16; s++)
        sg_add(&x, s, s / 4 * 4 + (s + 1) % 4, 2 * MIB);
    for (uint32_t s = 0; s < 8; s++)
        sg_add(&ring, s, (s + 1) % 8, 2 * MIB);
    for (uint32_t s = 0; s < 8; s++)
        sg_add(&ring, s, (s + 7) % 8, 2 * MIB);
    sg_rates(&x, rate);
    for (uint32_t i = 0; i < x.n; i++)
        near(rate[i], SG_LINK);
    sg_rates(&ring, rate);
    for (uint32_t i = 0; i < ring.n; i++)
        near(rate[i], SG_LINK / 2);
    sg_replay(&x);
    sg_replay(&ring);
}

/* Transpose on a 4x4 torus, (x, y) -> (y, x) for x != y, 2 MiB, no latency: all 12 end at
 * 419 430.4 ns, 2097152 B / 419 430.4 ns = 5 GB/s, half a link. By hand: x first, so 1 ->
 * 4, (1,0) -> (0,1), takes x- at router 1 then y+ at router 0; 2 -> 8, (2,0) -> (0,2), x+
 * from 2 and from 3 (half the ring, a tie: positive), then y+ from 0 and from 4; 3 -> 12
 * x+ from 3, y- from 0; and so on. Router 0's y+ link (0 -> 4) carries 1 -> 4 and 2 -> 8,
 * router 3's x+ link 2 -> 8 and 3 -> 12: no link carries more than two flows, each flow
 * crosses one that carries two (a node's own links carry one), so each gets half. */
static void test_simgrid_torus_transpose(void)
{
    SgCase c = {.name = "torus-transpose",
                .kind = SG_TORUS,
                .nodes = 16,
                .dims = {4, 4},
                .n_dims = 2,
                .latency = 0};
    double rate[SG_MAX_FLOWS];
    for (uint32_t s = 0; s < 16; s++)
        if (s % 4 != s / 4)
            sg_add(&c, s, s % 4 * 4 + s / 4, 2 * MIB);
    sg_rates(&c, rate);
    for (uint32_t i = 0; i < c.n; i++)
        near(rate[i], SG_LINK / 2);
    sg_replay(&c);
}

/* All-to-all of 0.5 MiB on a 4x4 torus, no latency: all 240 end at 786 432 ns, 524288 B /
 * 786 432 ns = 2/3 GB/s, a fifteenth of a link: every node sends 15 flows through its own
 * link (and receives 15), and a router link carries at most 12 (an x+ link from x to
 * x + 1: its router's flows to x + 1 and x + 2, half the ring, a tie taken positive, and
 * the flows of the router behind to x + 1, each to 4 y's: (2 + 1) x 4), so the nodes'
 * links decide. */
static void test_simgrid_torus_alltoall(void)
{
    SgCase c = {.name = "torus-alltoall",
                .kind = SG_TORUS,
                .nodes = 16,
                .dims = {4, 4},
                .n_dims = 2,
                .latency = 0};
    double rate[SG_MAX_FLOWS];
    sg_all_to_all(&c, MIB / 2);
    sg_rates(&c, rate);
    for (uint32_t i = 0; i < c.n; i++)
        near(rate[i], SG_LINK / 15);
    sg_replay(&c);
}

/* The rates of the live flows of pool, by their slots, against the plain statement for
 * them, to the last bit; a live flow that crosses no link gets INFINITY (the plain
 * statement takes only the flows that cross links). */
static void check_live(FennelFairFill *s, const Flows *pool, const gboolean *live,
                       const uint32_t *slot, const double *capacity, uint32_t n_capacity)
{
    Flows now = {0};
    uint32_t which[MAX_FLOWS];
    for (uint32_t j = 0; j < pool->n; j++) {
        if (!live[j] || pool->n_links[j] == 0)
            continue;
        which[now.n] = j;
        add(&now, pool->n_links[j], pool->links[j]);
    }
    double want[MAX_FLOWS];
    plain_fill(&now, capacity, n_capacity, want);
    const double *rate = fennel_fair_fill_rates(s, capacity, n_capacity);
    for (uint32_t k = 0; k < now.n; k++) {
        g_assert_cmpuint(slot[which[k]], <, fennel_fair_fill_slots(s));
        g_assert_cmpfloat(rate[slot[which[k]]], ==, want[k]);
    }
    for (uint32_t j = 0; j < pool->n; j++)
        if (live[j] && pool->n_links[j] == 0)
            g_assert_cmpfloat(rate[slot[j]], ==, INFINITY);
}

/* Removes pool flow i (slot[i]); the flow in the last slot takes its slot (fair_fill.h). */
static void drop(FennelFairFill *s, const gboolean *live, uint32_t n, uint32_t *slot, uint32_t i)
{
    fennel_fair_fill_remove(s, slot[i]);
    const uint32_t last = fennel_fair_fill_slots(s);
    for (uint32_t j = 0; j < n; j++) {
        if (j != i && live[j] && slot[j] == last)
            slot[j] = slot[i];
    }
}

/* Flows added and removed one at a time, as a run's start and end (fair_fill_add,
 * fair_fill_remove): after every change the rates by slot are those of the plain statement
 * for the flows present, to the last bit, whatever the slots and the order of each link's
 * list after removals. Some flows cross no link (INFINITY). */
static void test_add_remove(void)
{
    GRand *r = g_rand_new_with_seed(3636);
    for (int round = 0; round < 200; round++) {
        Flows pool;
        double capacity[MAX_LINKS];
        uint32_t n_capacity, slot[MAX_FLOWS];
        gboolean live[MAX_FLOWS] = {FALSE};
        random_flows(r, &pool, capacity, &n_capacity);
        for (uint32_t i = 0; i < pool.n; i++)
            if (g_rand_int_range(r, 0, 16) == 0)
                pool.n_links[i] = 0;
        FennelFairFill *s = fennel_fair_fill_new();
        for (int step = 0; step < 150; step++) {
            uint32_t i = g_rand_int_range(r, 0, pool.n);
            if (live[i]) {
                drop(s, live, pool.n, slot, i);
            } else {
                slot[i] = fennel_fair_fill_add(s, pool.links[i], pool.n_links[i]);
                for (uint32_t j = 0; j < pool.n; j++)
                    g_assert_true(j == i || !live[j] || slot[j] != slot[i]);
            }
            live[i] = !live[i];
            /* Every flow's path is the links it was added with, in their order, wherever
             * removals moved its slot. */
            for (uint32_t j = 0; j < pool.n; j++) {
                const uint32_t *links;
                if (!live[j])
                    continue;
                g_assert_cmpuint(fennel_fair_fill_path(s, slot[j], &links), ==, pool.n_links[j]);
                for (uint32_t k = 0; k < pool.n_links[j]; k++)
                    g_assert_cmpuint(links[k], ==, pool.links[j][k]);
            }
            check_live(s, &pool, live, slot, capacity, n_capacity);
        }
        fennel_fair_fill_free(s);
    }
    g_rand_free(r);
}

/* Several flows removed between two calls, as flows that end at the same time, and now and
 * then a link's capacity changed, as a slowed link: a call takes up the last one's levels
 * from the earliest removed flow's (fair_fill.c), which must give the plain statement's
 * rates to the last bit; runs of removals only, so that calls resume from calls that
 * resumed themselves. */
static void test_resume(void)
{
    GRand *r = g_rand_new_with_seed(3637);
    for (int round = 0; round < 300; round++) {
        Flows pool;
        double capacity[MAX_LINKS];
        uint32_t n_capacity, slot[MAX_FLOWS];
        gboolean live[MAX_FLOWS] = {FALSE};
        random_flows(r, &pool, capacity, &n_capacity);
        FennelFairFill *s = fennel_fair_fill_new();
        for (int step = 0; step < 60; step++) {
            /* Mostly removals: a third of the steps add flows back. */
            const gboolean adding = g_rand_int_range(r, 0, 3) == 0;
            const int changes = g_rand_int_range(r, 1, 4);
            for (int c = 0; c < changes; c++) {
                uint32_t i = g_rand_int_range(r, 0, pool.n);
                if (live[i] && !adding) {
                    drop(s, live, pool.n, slot, i);
                    live[i] = FALSE;
                } else if (!live[i] && adding) {
                    slot[i] = fennel_fair_fill_add(s, pool.links[i], pool.n_links[i]);
                    live[i] = TRUE;
                }
            }
            if (g_rand_int_range(r, 0, 10) == 0)
                capacity[g_rand_int_range(r, 0, n_capacity)] = g_rand_int_range(r, 1, 5) * 2.5;
            check_live(s, &pool, live, slot, capacity, n_capacity);
        }
        fennel_fair_fill_free(s);
    }
    g_rand_free(r);
}

/* Calls after flows were added, and removed, in any mix (flows of no link among them), with
 * now and then a changed capacity: every call against the plain statement to the last bit.
 * A call after additions takes up the last filling at a level above 0 when the added flows'
 * links stay clear of the earlier levels' shares; enough calls here do (counted), so that a
 * resume at a wrong level would show as a wrong rate. */
static void test_resume_added(void)
{
    GRand *r = g_rand_new_with_seed(3638);
    uint32_t calls_adding = 0, resumed_adding = 0;
    for (int round = 0; round < 300; round++) {
        Flows pool;
        double capacity[MAX_LINKS];
        uint32_t n_capacity, slot[MAX_FLOWS];
        gboolean live[MAX_FLOWS] = {FALSE};
        random_flows(r, &pool, capacity, &n_capacity);
        for (uint32_t i = 0; i < pool.n; i++)
            if (g_rand_int_range(r, 0, 16) == 0)
                pool.n_links[i] = 0;
        FennelFairFill *s = fennel_fair_fill_new();
        for (int step = 0; step < 60; step++) {
            const int changes = g_rand_int_range(r, 1, 5);
            gboolean added = FALSE;
            for (int c = 0; c < changes; c++) {
                uint32_t i = g_rand_int_range(r, 0, pool.n);
                if (live[i]) {
                    drop(s, live, pool.n, slot, i);
                } else {
                    slot[i] = fennel_fair_fill_add(s, pool.links[i], pool.n_links[i]);
                    added |= pool.n_links[i] > 0;
                }
                live[i] = !live[i];
            }
            if (g_rand_int_range(r, 0, 20) == 0)
                capacity[g_rand_int_range(r, 0, n_capacity)] = g_rand_int_range(r, 1, 5) * 2.5;
            check_live(s, &pool, live, slot, capacity, n_capacity);
            calls_adding += added;
            resumed_adding += added && fennel_fair_fill_resumed(s) > 0;
        }
        fennel_fair_fill_free(s);
    }
    g_test_message("%u of %u calls after additions resumed", resumed_adding, calls_adding);
    g_assert_cmpuint(resumed_adding, >=, calls_adding / 10);
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
    g_test_add_func("/fair_fill/simgrid/switch_incast4", test_simgrid_switch_incast4);
    g_test_add_func("/fair_fill/simgrid/switch_alltoall8", test_simgrid_switch_alltoall8);
    g_test_add_func("/fair_fill/simgrid/switch_incast_mixed", test_simgrid_switch_incast_mixed);
    g_test_add_func("/fair_fill/simgrid/switch_permutation16", test_simgrid_switch_permutation16);
    g_test_add_func("/fair_fill/simgrid/fat_tree_shifts", test_simgrid_fat_tree_shifts);
    g_test_add_func("/fair_fill/simgrid/fat_tree_alltoall", test_simgrid_fat_tree_alltoall);
    g_test_add_func("/fair_fill/simgrid/torus_shifts", test_simgrid_torus_shifts);
    g_test_add_func("/fair_fill/simgrid/torus_transpose", test_simgrid_torus_transpose);
    g_test_add_func("/fair_fill/simgrid/torus_alltoall", test_simgrid_torus_alltoall);
    g_test_add_func("/fair_fill/add_remove", test_add_remove);
    g_test_add_func("/fair_fill/resume", test_resume);
    g_test_add_func("/fair_fill/resume_added", test_resume_added);
    return g_test_run();
}
