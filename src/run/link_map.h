/* The links of a run's topology with what the run did on them, kept for the topology picture
 * (`run --links-picture`, viz/topology_view.h; docs/TOPOLOGY.md, Seeing it) once the machine
 * is gone: every vertex with its name, every directed link with its ends, level and
 * figures (the numbers the links CSV gives), and what the picture's layout needs of the
 * kind (a torus's dimensions). */
#ifndef FENNEL_LINK_MAP_H
#define FENNEL_LINK_MAP_H

#include "engine.h"

typedef struct {
    uint32_t link, from, to; /* its number and its ends (vertices) */
    char level[16];          /* its level's name */
    uint64_t messages, bytes;
    FennelTime busy, wait;
    double utilisation; /* busy / the makespan (0 when the run takes no time) */
} FennelLinkMapLink;

typedef struct {
    FennelTopologyKind kind;
    uint32_t n_dims, dims[FENNEL_TOPOLOGY_MAX_DIMS]; /* a torus's */
    uint32_t nodes, ports, vertices; /* vertices 0 .. ports-1 are the nodes' NICs (topology.h) */
    char **names;                    /* per vertex */
    uint32_t *node;                  /* per port, its node */
    FennelLinkMapLink *links;        /* in link order */
    uint32_t n_links;
    FennelTime makespan;
} FennelLinkMap;

/* The most vertices and links the map (and the picture) takes. */
#define FENNEL_LINK_MAP_MAX_VERTICES 4096u
#define FENNEL_LINK_MAP_MAX_LINKS    65536u

/* The map of the machine's last run on its topology (links shared: a topology and contention
 * other than none), its utilisation over `makespan`; NULL with *why (g_free it) when the
 * topology has more vertices or links than the map takes. */
FennelLinkMap *fennel_link_map_take(const FennelMachine *m, const FennelTopology *topology,
                                    FennelTime makespan, char **why);
void fennel_link_map_free(FennelLinkMap *map);

#endif
