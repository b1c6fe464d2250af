/* Kind graph (docs/TOPOLOGY.md, Graphs): a topology read from a file of nodes, switches
 * and links. Nodes are vertices 0 .. nodes-1 in the file's order, switches follow. Node
 * i's one link to the network is link 2i and the link back 2i + 1, as in every kind; the
 * other links follow in the file's order (a full-duplex link is two: its way as written,
 * then back). Routes are shortest paths in hops, computed once for every destination when
 * the file is read: from vertex v towards node d the links that lead one hop closer are
 * candidates, in link order, and a route's choice c takes candidate c mod their count; a
 * route the file gives for a switch and a destination (`routes`) is its one candidate. */
#ifndef FENNEL_TOPOLOGY_GRAPH_H
#define FENNEL_TOPOLOGY_GRAPH_H

#include "topology.h"

struct FennelGraph {
    int refs;   /* a gatomicrefcount */
    char *file; /* as given, for messages */
    uint32_t nodes, vertices, links;
    char **names;         /* per vertex */
    unsigned *line, *col; /* where each vertex is named */
    uint32_t *from, *to;  /* per link */
    FennelTime *latency;  /* per link, when latency_set */
    FennelRate *rate;     /* per link, when rate_set */
    uint8_t *latency_set, *rate_set;
    /* The candidates from vertex v towards node d: cand[first[d V + v] .. first[d V + v + 1]). */
    uint32_t *first, *cand;
};

/* Reads a graph file (or the same text from memory): NULL with an error at FILE:LINE:COL. */
FennelGraph *fennel_graph_load(const char *path, GError **error);
FennelGraph *fennel_graph_parse(const char *name, const char *data, gsize length, GError **error);
FennelGraph *fennel_graph_ref(FennelGraph *g);
void fennel_graph_unref(FennelGraph *g);

/* The most route entries (nodes x vertices) a graph may have: 64 MiB of them. */
#define FENNEL_GRAPH_MAX_ENTRIES (1u << 24)

#endif
