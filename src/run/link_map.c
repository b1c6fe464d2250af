/* The topology picture's data (link_map.h): taken from the machine after its last run. */
#include "link_map.h"

#include <string.h>

FennelLinkMap *fennel_link_map_take(const FennelMachine *m, const FennelTopology *topology,
                                    FennelTime makespan, char **why)
{
    const FennelNetwork *n = fennel_machine_network(m);
    if (n->vertices > FENNEL_LINK_MAP_MAX_VERTICES || n->links > FENNEL_LINK_MAP_MAX_LINKS) {
        *why = g_strdup_printf("--links-picture: the topology has %u vertices and %u link "
                               "numbers; the picture draws at most %u and %u",
                               n->vertices, n->links, FENNEL_LINK_MAP_MAX_VERTICES,
                               FENNEL_LINK_MAP_MAX_LINKS);
        return NULL;
    }
    FennelLinkMap *map = g_new0(FennelLinkMap, 1);
    map->kind = n->kind;
    if (n->kind == FENNEL_TOPOLOGY_TORUS) {
        map->n_dims = n->n_dims;
        memcpy(map->dims, n->dims, sizeof map->dims);
    }
    map->nodes = n->nodes;
    map->ports = n->ports;
    map->vertices = n->vertices;
    map->makespan = makespan;
    map->names = g_new0(char *, (gsize)n->vertices + 1);
    for (uint32_t v = 0; v < n->vertices; v++) {
        char buf[32];
        map->names[v] = g_strdup(fennel_network_vertex_name(n, v, buf));
    }
    map->node = g_new(uint32_t, MAX(n->ports, 1u));
    for (uint32_t p = 0; p < n->ports; p++)
        map->node[p] = fennel_network_port_node(n, p);
    map->links = g_new0(FennelLinkMapLink, MAX(n->links, 1u));
    const FennelLinkStats zero = {0};
    for (uint32_t l = 0; l < n->links; l++) {
        uint32_t from, to, level;
        if (!fennel_network_link(n, l, &from, &to, &level))
            continue;
        const FennelLinkStats *st = fennel_machine_link_stats(m, l);
        st = st ? st : &zero;
        FennelLinkMapLink *k = &map->links[map->n_links++];
        k->link = l;
        k->from = from;
        k->to = to;
        char buf[16];
        g_strlcpy(k->level, fennel_topology_level_name(topology, level, buf), sizeof k->level);
        k->messages = st->messages;
        k->bytes = st->bytes;
        k->busy = st->busy;
        k->wait = st->wait;
        /* as the links CSV computes it (summary.c) */
        k->utilisation = makespan > 0 ? (double)st->busy / (double)makespan : 0;
    }
    return map;
}

void fennel_link_map_free(FennelLinkMap *map)
{
    if (map == NULL)
        return;
    g_strfreev(map->names);
    g_free(map->node);
    g_free(map->links);
    g_free(map);
}
