/* Topologies (docs/TOPOLOGY.md): bandwidth units, routes and hop counts derived by hand from
 * each kind's routing rule, and routes that are connected chains of links. */
#include "topology.h"

#include <stdlib.h>

static void test_bandwidth(void)
{
    static const struct {
        const char *text;
        FennelRate as_per_byte;
    } cases[] = {
        /* 1e18 attoseconds per second over bytes per second. */
        {"10GB/s", 100000000},  {"100Gbit/s", 80000000},         {"1B/s", 1000000000000000000},
        {"12.5GB/s", 80000000}, {"400Gbit/s", 20000000},         {"1GiB/s", 931322575},
        {"450GB/s", 2222222},   {"8bit/s", 1000000000000000000},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        FennelRate r = -1;
        const char *why = NULL;
        g_assert_true(fennel_parse_bandwidth(cases[i].text, &r, &why));
        g_assert_cmpint(r, ==, cases[i].as_per_byte);
    }
    /* the last: 1.03e69 GB/s, whose 31 kept digits times 8e9 eighths overflowed */
    const char *bad[] = {
        "0GB/s",
        "-1GB/s",
        "10",
        "10GB",
        "fast",
        "1e30GB/s",
        "10333333333333333333333333333333333333333333333333333333333333333333333GB/s"};
    for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
        FennelRate r;
        const char *why = NULL;
        g_assert_false(fennel_parse_bandwidth(bad[i], &r, &why));
        g_assert_nonnull(why);
    }
}

static FennelTopology *topology(const char *const *keys)
{
    FennelTopology *t = fennel_topology_new(FENNEL_TOPOLOGY_SWITCH);
    for (; *keys; keys += 2) {
        gboolean unknown;
        char *why = NULL;
        if (!fennel_topology_set(t, keys[0], keys[1], &unknown, &why))
            g_error("%s", why);
    }
    char *problem = fennel_topology_problem(t);
    g_assert_null(problem);
    return t;
}

/* Link l's ends and level, by its number (the network keeps no array per link). */
static uint32_t link_end(const FennelNetwork *n, uint32_t l, gboolean to_end)
{
    uint32_t from, to, level;
    g_assert_true(fennel_network_link(n, l, &from, &to, &level));
    return to_end ? to : from;
}

static uint32_t link_to(const FennelNetwork *n, uint32_t l)
{
    return link_end(n, l, TRUE);
}

static uint32_t link_level(const FennelNetwork *n, uint32_t l)
{
    uint32_t from, to, level;
    g_assert_true(fennel_network_link(n, l, &from, &to, &level));
    return level;
}

/* Every route is a chain of links from src to dst (each link starts where the previous
 * ended), never longer than `max_links`; each step the router takes (fennel_network_hop)
 * has the link's ends and level that its number gives. */
static void check_routes(const FennelNetwork *n, uint32_t max_links)
{
    uint32_t links[64];
    for (uint32_t s = 0; s < n->nodes; s++) {
        for (uint32_t d = 0; d < n->nodes; d++) {
            if (s == d)
                continue;
            uint32_t count = fennel_network_route(n, s, d, links, 64);
            g_assert_cmpuint(count, <=, max_links);
            uint32_t at = s;
            for (uint32_t i = 0; i < count; i++) {
                FennelHop h = fennel_network_hop(n, at, d);
                g_assert_cmpuint(h.link, ==, links[i]);
                g_assert_cmpuint(link_end(n, links[i], FALSE), ==, at);
                g_assert_cmpuint(link_to(n, links[i]), ==, h.to);
                g_assert_cmpuint(link_level(n, links[i]), ==, h.level);
                at = h.to;
            }
            g_assert_cmpuint(at, ==, d);
            g_assert_cmpuint(links[0], ==, fennel_network_up(s));
            g_assert_cmpuint(links[count - 1], ==, fennel_network_down(d));
        }
    }
}

static uint32_t hops(const FennelNetwork *n, uint32_t s, uint32_t d)
{
    uint32_t links[64];
    return fennel_network_route(n, s, d, links, 64);
}

static void test_switch(void)
{
    const char *keys[] = {"kind", "switch", NULL};
    FennelTopology *t = topology(keys);
    char *why = NULL;
    FennelNetwork *n = fennel_network_build(t, 5, &why);
    g_assert_nonnull(n);
    g_assert_cmpuint(n->links, ==, 10);
    check_routes(n, 2);
    fennel_network_free(n);
    gboolean unknown;
    g_assert_true(fennel_topology_set(t, "nodes", "4", &unknown, &why));
    g_assert_null(fennel_network_build(t, 5, &why));
    g_assert_cmpstr(why, ==, "topology: the program needs 5 nodes, the switch has 4");
    g_free(why);
    fennel_topology_free(t);
}

/* A 4x4x4 torus: dimension-order routes take min(delta, 4 - delta) links in each dimension,
 * ties (delta 2) in the positive direction, plus the two node links. */
static void test_torus(void)
{
    const char *keys[] = {"kind", "torus", "dims", "4x4x4", NULL};
    FennelTopology *t = topology(keys);
    char *why = NULL;
    FennelNetwork *n = fennel_network_build(t, 64, &why);
    g_assert_nonnull(n);
    check_routes(n, 2 + 6);
    for (uint32_t s = 0; s < 64; s++) {
        for (uint32_t d = 0; d < 64; d++) {
            if (s == d)
                continue;
            uint32_t expect = 2;
            for (uint32_t k = 0, stride = 1; k < 3; k++, stride *= 4) {
                uint32_t delta = (d / stride % 4 + 4 - s / stride % 4) % 4;
                expect += MIN(delta, 4 - delta);
            }
            g_assert_cmpuint(hops(n, s, d), ==, expect);
        }
    }
    /* 0 -> (2, 2, 2) = 42: x first, positive on the tie: routers 1, 2, then y, then z. */
    uint32_t links[16];
    uint32_t count = fennel_network_route(n, 0, 42, links, 16);
    static const uint32_t visited[] = {64 + 0,  64 + 1,  64 + 2,  64 + 6,
                                       64 + 10, 64 + 26, 64 + 42, 42};
    g_assert_cmpuint(count, ==, 8);
    for (uint32_t i = 0; i < count; i++)
        g_assert_cmpuint(link_to(n, links[i]), ==, visited[i]);
    /* 0 -> 3: one step backwards in x. */
    count = fennel_network_route(n, 0, 3, links, 16);
    g_assert_cmpuint(count, ==, 3);
    g_assert_cmpuint(link_to(n, links[1]), ==, 64 + 3);
    g_assert_null(fennel_network_build(t, 65, &why));
    g_assert_cmpstr(why, ==, "topology: the program needs 65 nodes, the torus has 64");
    g_free(why);
    fennel_network_free(n);
    fennel_topology_free(t);
}

/* A dragonfly of 4 groups of 2 routers with 2 nodes each. Group g's link to group h is on
 * router ((h - g - 1) mod 4) mod 2 of g. Minimal routes: same router 2 links, same group 3,
 * otherwise up, at most one local hop on each side of the global link, down. */
static void test_dragonfly(void)
{
    const char *keys[] = {"kind", "dragonfly",        "groups", "4", "routers",
                          "2",    "nodes_per_router", "2",      NULL};
    FennelTopology *t = topology(keys);
    char *why = NULL;
    FennelNetwork *n = fennel_network_build(t, 16, &why);
    g_assert_nonnull(n);
    check_routes(n, 5);
    for (uint32_t s = 0; s < 16; s++) {
        for (uint32_t d = 0; d < 16; d++) {
            if (s == d)
                continue;
            uint32_t rs = s / 2, rd = d / 2, gs = rs / 2, gd = rd / 2;
            uint32_t expect;
            if (rs == rd)
                expect = 2;
            else if (gs == gd)
                expect = 3;
            else
                expect = 3 + (rs % 2 != (gd + 4 - gs - 1) % 4 % 2) +
                         (rd % 2 != (gs + 4 - gd - 1) % 4 % 2);
            g_assert_cmpuint(hops(n, s, d), ==, expect);
        }
    }
    /* Node 0 (group 0, router 0) to node 10 (group 2, router 1 of it): group 0's link to
     * group 2 is on its router 1, group 2's link to group 0 on its router 1: up, local,
     * global, down. */
    uint32_t links[8];
    g_assert_cmpuint(fennel_network_route(n, 0, 10, links, 8), ==, 4);
    g_assert_cmpuint(link_level(n, links[1]), ==, 1);
    g_assert_cmpuint(link_level(n, links[2]), ==, 2);
    fennel_network_free(n);
    fennel_topology_free(t);
}

/* Fat trees of radix 4: two nodes per leaf; up-link dst mod u, core dst / u mod 2. */
static void test_fat_tree(void)
{
    const char *two[] = {"kind", "fat-tree", "radix", "4", NULL};
    FennelTopology *t = topology(two);
    char *why = NULL;
    FennelNetwork *n = fennel_network_build(t, 8, &why);
    g_assert_nonnull(n);
    check_routes(n, 4);
    g_assert_cmpuint(hops(n, 0, 1), ==, 2);
    g_assert_cmpuint(hops(n, 0, 5), ==, 4);
    uint32_t links[8];
    fennel_network_route(n, 0, 5, links, 8);
    /* Up-link 5 mod 2 = 1 of leaf 0 leads to spine 1 (vertex 8 + 4 leaves + 1). */
    g_assert_cmpuint(link_to(n, links[1]), ==, 8 + 4 + 1);
    g_assert_null(fennel_network_build(t, 9, &why));
    g_free(why);
    fennel_network_free(n);
    fennel_topology_free(t);

    const char *three[] = {"kind", "fat-tree", "levels", "3", "radix", "4", NULL};
    t = topology(three);
    n = fennel_network_build(t, 16, &why);
    g_assert_nonnull(n);
    check_routes(n, 6);
    g_assert_cmpuint(hops(n, 0, 1), ==, 2);  /* same leaf */
    g_assert_cmpuint(hops(n, 0, 3), ==, 4);  /* same pod: leaf, aggregation, leaf */
    g_assert_cmpuint(hops(n, 0, 15), ==, 6); /* through a core */
    fennel_network_free(n);
    fennel_topology_free(t);

    /* Oversubscription 2 at radix 4: one up-link per leaf. */
    const char *over[] = {"kind", "fat-tree", "radix", "4", "oversubscription", "2", NULL};
    t = topology(over);
    n = fennel_network_build(t, 8, &why);
    g_assert_cmpuint(n->links, ==, 16 + 2 * 4 * 1);
    check_routes(n, 4);
    fennel_network_free(n);
    fennel_topology_free(t);
}

/* dims: a switch of 2, then a ring of 4 (8 nodes, dimension 0 varies fastest). */
static void test_dims(void)
{
    const char *keys[] = {"kind",      "dims", "dim0.size",  "2",    "dim0.shape", "switch",
                          "dim1.size", "4",    "dim1.shape", "ring", NULL};
    FennelTopology *t = topology(keys);
    char *why = NULL;
    FennelNetwork *n = fennel_network_build(t, 8, &why);
    g_assert_nonnull(n);
    check_routes(n, 2 + 2 + 2);
    /* 0 -> 7 = (1, 3): up, to the dim-0 switch, down to router (1, 0), one ring step
     * backwards to (1, 3), down. */
    uint32_t links[8];
    g_assert_cmpuint(fennel_network_route(n, 0, 7, links, 8), ==, 5);
    g_assert_cmpuint(link_to(n, links[2]), ==, 8 + 1);
    g_assert_cmpuint(link_to(n, links[3]), ==, 8 + 7);
    g_assert_cmpuint(hops(n, 0, 1), ==, 4);
    fennel_network_free(n);
    fennel_topology_free(t);

    const char *full[] = {"kind", "dims", "dim0.size", "4", "dim0.shape", "fully-connected", NULL};
    t = topology(full);
    n = fennel_network_build(t, 4, &why);
    check_routes(n, 3);
    fennel_network_free(n);
    fennel_topology_free(t);
}

/* rail: servers of 4 GPUs with 2 NICs (GPUs 0-1 of a server on rail 0, 2-3 on rail 1), 10
 * GPUs (the third server has two). Within a server: up to the NVSwitch, down (2 links, level
 * node). To another server on the same rail: the GPU's link to its NIC, the NIC's to the
 * rail's leaf, down to the peer's NIC, to the peer (4: pcie, rail, rail, pcie). On another
 * rail: up from the leaf to the destination server's spine and down to the destination's
 * rail's leaf in between (6). */
static void test_rail(void)
{
    const char *keys[] = {"kind", "rail", "gpus_per_node", "4", "nics_per_node", "2", NULL};
    FennelTopology *t = topology(keys);
    char *why = NULL;
    FennelNetwork *n = fennel_network_build(t, 10, &why);
    g_assert_nonnull(n);
    /* vertices: 10 GPUs, 3 NVSwitches, 6 NICs, 2 leaves, 3 spines */
    g_assert_cmpuint(n->vertices, ==, 10 + 3 + 6 + 2 + 3);
    /* links: 20 node, 20 GPU-NIC, 12 NIC-leaf, 2 x 2 x 3 leaf-spine */
    g_assert_cmpuint(n->links, ==, 20 + 20 + 12 + 12);
    g_assert_cmpuint(n->endpoint_links, ==, 40);
    static const uint32_t levels_same_rail[] = {1, 2, 2, 1};
    static const uint32_t levels_other_rail[] = {1, 2, 3, 3, 2, 1};
    for (uint32_t s = 0; s < 10; s++) {
        for (uint32_t d = 0; d < 10; d++) {
            if (s == d)
                continue;
            uint32_t links[8], at = s;
            uint32_t count = fennel_network_route(n, s, d, links, 8);
            const gboolean server = s / 4 == d / 4, rail = s % 4 / 2 == d % 4 / 2;
            g_assert_cmpuint(count, ==, server ? 2 : rail ? 4 : 6);
            for (uint32_t i = 0; i < count; i++) {
                g_assert_cmpuint(link_end(n, links[i], FALSE), ==, at);
                g_assert_cmpuint(link_level(n, links[i]), ==,
                                 server ? 0u
                                 : rail ? levels_same_rail[i]
                                        : levels_other_rail[i]);
                at = link_to(n, links[i]);
            }
            g_assert_cmpuint(at, ==, d);
            /* The first and the last link are the GPUs' own ports (contention endpoint). */
            g_assert_cmpuint(links[0], <, n->endpoint_links);
            g_assert_cmpuint(links[count - 1], <, n->endpoint_links);
            g_assert_cmpuint(links[0], ==, server ? 2 * s : 20 + 2 * s);
            g_assert_cmpuint(links[count - 1], ==, server ? 2 * d + 1 : 20 + 2 * d + 1);
        }
    }
    /* GPU 1 (server 0, rail 0) to GPU 7 (server 1, rail 1): NIC 0, leaf 0, spine 1, leaf 1,
     * NIC 3 (server 1's second), GPU 7. */
    uint32_t links[8];
    g_assert_cmpuint(fennel_network_route(n, 1, 7, links, 8), ==, 6);
    char buf[32];
    const char *names[] = {"nic0", "rail0", "spine1", "rail1", "nic3", "node7"};
    for (int i = 0; i < 6; i++)
        g_assert_cmpstr(fennel_network_vertex_name(n, link_to(n, links[i]), buf), ==, names[i]);
    g_assert_cmpstr(fennel_network_vertex_name(n, 10, buf), ==, "nvswitch0");
    fennel_network_free(n);

    /* One NIC per server: one leaf, no spine. */
    gboolean unknown;
    g_assert_true(fennel_topology_set(t, "nics_per_node", "1", &unknown, &why));
    n = fennel_network_build(t, 8, &why);
    g_assert_cmpuint(n->links, ==, 16 + 16 + 4);
    g_assert_cmpuint(hops(n, 1, 6), ==, 4);
    fennel_network_free(n);
    g_assert_true(fennel_topology_set(t, "nics_per_node", "3", &unknown, &why));
    why = fennel_topology_problem(t);
    g_assert_cmpstr(why, ==, "topology.nics_per_node: 3 must divide gpus_per_node (4)");
    g_free(why);
    /* The GPU's link to its NIC defaults to no latency and the rail's bandwidth. */
    g_assert_true(fennel_topology_set(t, "rail.bandwidth", "400Gbit/s", &unknown, &why));
    FennelLinkParams pcie = fennel_topology_level_params(t, 1);
    g_assert_cmpint(pcie.latency, ==, 0);
    g_assert_cmpint(pcie.rate, ==, 20000000);
    fennel_topology_free(t);
}

static void test_bad_keys(void)
{
    FennelTopology *t = fennel_topology_new(FENNEL_TOPOLOGY_SWITCH);
    gboolean unknown;
    char *why = NULL;
    g_assert_false(fennel_topology_set(t, "kind", "hypercube", &unknown, &why));
    g_assert_cmpstr(why, ==,
                    "topology.kind: unknown kind 'hypercube' (known: switch, fat-tree, torus, "
                    "dragonfly, dims, rail, graph)");
    g_clear_pointer(&why, g_free);
    g_assert_false(fennel_topology_set(t, "bandwidth", "0GB/s", &unknown, &why));
    g_assert_false(unknown);
    g_assert_cmpstr(why, ==, "topology.bandwidth: must be positive");
    g_clear_pointer(&why, g_free);
    g_assert_false(fennel_topology_set(t, "radix", "8", &unknown, &why));
    g_assert_true(unknown);
    g_clear_pointer(&why, g_free);
    g_assert_true(fennel_topology_set(t, "kind", "fat-tree", &unknown, &why));
    g_assert_true(fennel_topology_set(t, "radix", "6", &unknown, &why));
    g_assert_true(fennel_topology_set(t, "oversubscription", "2", &unknown, &why));
    why = fennel_topology_problem(t);
    g_assert_cmpstr(why, ==,
                    "topology.oversubscription: 2 must divide half the radix (6), which must be "
                    "whole");
    g_free(why);
    fennel_topology_free(t);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/topology/bandwidth", test_bandwidth);
    g_test_add_func("/topology/switch", test_switch);
    g_test_add_func("/topology/torus", test_torus);
    g_test_add_func("/topology/dragonfly", test_dragonfly);
    g_test_add_func("/topology/fat-tree", test_fat_tree);
    g_test_add_func("/topology/dims", test_dims);
    g_test_add_func("/topology/rail", test_rail);
    g_test_add_func("/topology/bad-keys", test_bad_keys);
    return g_test_run();
}
