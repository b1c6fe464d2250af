/* What the graph file readers share (models/topology_graph.c reads YAML graph files,
 * models/topology_simgrid.c SimGrid platform files): the graph as read, by names, before its
 * vertices and links are numbered and routed by fennel__graph_build. */
#ifndef FENNEL_TOPOLOGY_GRAPH_PRIVATE_H
#define FENNEL_TOPOLOGY_GRAPH_PRIVATE_H

#include "topology_graph.h"

/* A link as written, before its ends are known to exist. */
typedef struct {
    char *from, *to;
    unsigned line, col, from_line, from_col, to_line, to_col;
    FennelTime latency;
    FennelRate rate;
    gboolean latency_set, rate_set, directed;
} Written;

/* A forwarding entry as written: at switch `at`, messages for the nodes `to` go to `next`. */
typedef struct {
    char *at, *next;
    GPtrArray *to;  /* names */
    GArray *to_pos; /* (line, col) pairs */
    unsigned line, col, at_line, at_col, next_line, next_col;
} Forward;

typedef struct {
    GPtrArray *nodes, *switches;   /* names */
    GArray *routes;                /* Forward */
    GArray *node_pos, *switch_pos; /* (line, col) pairs */
    GArray *links;                 /* Written */
} Reading;

/* Whether a vertex name can be written: names go into fault lists (`FROM>TO from 10us`) and
 * CSV columns, so no spaces or separators (graph files and SimGrid platforms alike). */
gboolean fennel__graph_name_ok(const char *s);

void fennel__graph_written_clear(gpointer p);
void fennel__graph_forward_clear(gpointer p);
void fennel__graph_reading_init(Reading *r);
void fennel__graph_reading_clear(Reading *r);

/* The graph of a reading, numbered and routed (topology_graph.h), or NULL with an error at
 * FILE:LINE:COL (the positions the reading gives; too many routes at nodes_line:nodes_col). */
FennelGraph *fennel__graph_build(const char *file, const Reading *r, unsigned nodes_line,
                                 unsigned nodes_col, GError **error);

/* A SimGrid platform file's text (docs/TOPOLOGY.md, SimGrid platforms) as a graph, or NULL
 * with an error at FILE:LINE:COL. */
FennelGraph *fennel__graph_simgrid(const char *file, const char *data, gsize length,
                                   GError **error);

#endif
