/* Kind graph (docs/TOPOLOGY.md, Graphs): a topology read from a file of nodes, switches
 * and links. A node has one or several NICs, each a link to the network and a link back
 * (its j-th link out and its j-th link in, in the file's order). Every NIC is a vertex of
 * its own, a port: port i < nodes is node i's first NIC (so that a node with one NIC is
 * vertex i, as in every kind), the nodes' further NICs follow, node by node, and the
 * switches after them. Port p's link to the network is link 2p and the link back 2p + 1;
 * the other links follow in the file's order (a full-duplex link is two: its way as
 * written, then back). Routes lead to ports and are shortest paths in hops, computed once
 * for every destination port when the file is read: from vertex v towards port d the links
 * that lead one hop closer are candidates, in link order, and a route's choice c takes
 * candidate c mod their count; a route the file gives for a switch and a destination node
 * (`routes`) is its one candidate towards each of the node's NICs. Ports do not forward. */
#ifndef FENNEL_TOPOLOGY_GRAPH_H
#define FENNEL_TOPOLOGY_GRAPH_H

#include "topology.h"

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
    /* The candidates from vertex v towards port d: cand[first[e] .. first[e + 1]), e = d V + v
     * (fennel_graph_entry). */
    uint32_t *first, *cand;
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
static inline size_t fennel_graph_entry(const FennelGraph *g, uint32_t v, uint32_t d)
{
    return (size_t)d * g->vertices + v;
}

/* The most route entries (ports x vertices) a graph may have: 64 MiB of them. */
#define FENNEL_GRAPH_MAX_ENTRIES (1u << 24)

#endif
