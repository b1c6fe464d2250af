/* Kind graph (docs/TOPOLOGY.md, Graphs): a topology read from a file of nodes, switches
 * and links. A node has one or several NICs, each a link to the network and a link back
 * (its j-th link out and its j-th link in, in the file's order). Every NIC is a vertex of
 * its own, a port: port i < nodes is node i's first NIC (so that a node with one NIC is
 * vertex i, as in every kind), the nodes' further NICs follow, node by node, and the
 * switches after them. Port p's link to the network is link 2p and the link back 2p + 1;
 * the other links follow in the file's order (a full-duplex link is two: its way as
 * written, then back). Routes lead to ports and are shortest paths in hops, computed once
 * when the file is read: from vertex v towards port d the links that lead one hop closer are
 * candidates, in link order, and a route's choice c takes candidate c mod their count; a
 * route the file gives for a switch and a destination node (`routes`) is its one candidate
 * towards each of the node's NICs. Ports do not forward.
 *
 * A port has one link in (2d + 1, from the switch it hangs on), so the routes towards it are
 * those towards that switch and then that link: the ports on one switch whose given routes
 * agree share one route group, searched once, and a hop reads one step record of its group
 * and the switch it is at (a few tens of kilobytes for a fat tree of 2048 nodes, where a
 * table per port and vertex was 17 MB: docs/PERFORMANCE.md, Routing choices at 2^16
 * ranks). */
#ifndef FENNEL_TOPOLOGY_GRAPH_H
#define FENNEL_TOPOLOGY_GRAPH_H

#include "topology.h"

/* One step of a route: the link and the vertex it leads to. In the step table, a link of
 * FENNEL_GRAPH_LAST is the destination port's own link in, FENNEL_GRAPH_NONE no way on, and
 * FENNEL_GRAPH_LIST several candidates, list `to`. */
typedef struct {
    uint32_t link, to;
} FennelGraphStep;

#define FENNEL_GRAPH_LIST (UINT32_MAX - 2)
#define FENNEL_GRAPH_LAST (UINT32_MAX - 1)
#define FENNEL_GRAPH_NONE UINT32_MAX

struct FennelGraph {
    int refs;   /* a gatomicrefcount */
    char *file; /* as given, for messages */
    uint32_t nodes, vertices, links;
    /* Ports (NICs): nodes .. ports-1 are the further NICs, node i's from nodes + extra[i]
     * to nodes + extra[i + 1] - 1; extra is NULL when every node has one NIC. */
    uint32_t ports;
    uint32_t *extra;
    char **names;         /* per vertex (a port has its node's name) */
    unsigned *line, *col; /* where each vertex is named */
    uint32_t *from, *to;  /* per link */
    FennelTime *latency;  /* per link, when latency_set */
    FennelRate *rate;     /* per link, when rate_set */
    uint8_t *latency_set, *rate_set;
    /* Routes: port d's group group[d]; from switch v towards it the step record
     * step[group[d] x switches + v - ports] (fennel_graph_candidates reads it). */
    uint32_t groups, switches;
    uint32_t *group;
    FennelGraphStep *step;
    uint32_t *list_first; /* several candidates: list i is list[list_first[i] .. [i + 1]) */
    FennelGraphStep *list;
};

/* Reads a graph file (or the same text from memory): NULL with an error at FILE:LINE:COL. */
FennelGraph *fennel_graph_load(const char *path, GError **error);
FennelGraph *fennel_graph_parse(const char *name, const char *data, gsize length, GError **error);
FennelGraph *fennel_graph_ref(FennelGraph *g);
void fennel_graph_unref(FennelGraph *g);

/* Node i's NIC count, its NIC j's port, and a port's node. */
static inline uint32_t fennel_graph_nics(const FennelGraph *g, uint32_t node)
{
    return g->extra ? 1 + g->extra[node + 1] - g->extra[node] : 1;
}
static inline uint32_t fennel_graph_port(const FennelGraph *g, uint32_t node, uint32_t nic)
{
    return nic == 0 ? node : g->nodes + g->extra[node] + nic - 1;
}
uint32_t fennel_graph_port_node(const FennelGraph *g, uint32_t port);

/* The candidates from vertex v (not d) towards port d, in link order: their count (0 when
 * there is no way on), *steps pointing at them (at `one` when there is one). A port's is its
 * one link out. */
static inline uint32_t fennel_graph_candidates(const FennelGraph *g, uint32_t v, uint32_t d,
                                               FennelGraphStep *one, const FennelGraphStep **steps)
{
    *steps = one;
    if (v < g->ports) {
        *one = (FennelGraphStep){2 * v, g->to[2 * v]};
        return 1;
    }
    const FennelGraphStep s = g->step[(size_t)g->group[d] * g->switches + v - g->ports];
    if (G_LIKELY(s.link < FENNEL_GRAPH_LIST)) {
        *one = s;
        return 1;
    }
    if (s.link == FENNEL_GRAPH_LAST) {
        *one = (FennelGraphStep){2 * d + 1, d};
        return 1;
    }
    if (s.link == FENNEL_GRAPH_NONE) {
        *one = s;
        return 0;
    }
    *steps = g->list + g->list_first[s.to];
    return g->list_first[s.to + 1] - g->list_first[s.to];
}

/* The step from vertex v towards port d on the route `choice` names: candidate choice mod
 * their count. */
static inline FennelGraphStep fennel_graph_next(const FennelGraph *g, uint32_t v, uint32_t d,
                                                uint32_t choice)
{
    FennelGraphStep one;
    const FennelGraphStep *steps;
    const uint32_t count = fennel_graph_candidates(g, v, d, &one, &steps);
    return steps[count > 1 ? choice % count : 0];
}

/* The most step records (route groups x switches) a graph may have: 128 MiB of them. */
#define FENNEL_GRAPH_MAX_ENTRIES (1u << 24)

#endif
