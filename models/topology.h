/* Topologies and contention (docs/TOPOLOGY.md). A topology is the network between the
 * nodes: links with a latency and a bandwidth, switches or routers, and a deterministic
 * route between any two nodes. The model file's `topology:` section is a FennelTopology (a
 * description: kind, sizes, link parameters per level); fennel_network_build turns it into
 * a FennelNetwork for a node count (dense link and vertex numbers given by formulas, no
 * array per link) whose fennel_network_hop gives a message's next link in O(1). The contention
 * level says which links are shared: none, the node links (endpoint), every link (links), or every
 * link by max-min fair sharing (fair). Ranks are placed on nodes by `placement`. */
#ifndef FENNEL_TOPOLOGY_H
#define FENNEL_TOPOLOGY_H

#include "units.h"
#include "yaml_reader.h"

typedef enum {
    FENNEL_TOPOLOGY_SWITCH,
    FENNEL_TOPOLOGY_FAT_TREE,
    FENNEL_TOPOLOGY_TORUS,
    FENNEL_TOPOLOGY_DRAGONFLY,
    FENNEL_TOPOLOGY_DIMS,
    FENNEL_TOPOLOGY_RAIL,
    FENNEL_TOPOLOGY_GRAPH,
    FENNEL_TOPOLOGY_N_KINDS,
} FennelTopologyKind;

typedef enum {
    FENNEL_CONTENTION_NONE,
    FENNEL_CONTENTION_ENDPOINT,
    FENNEL_CONTENTION_LINKS,
    FENNEL_CONTENTION_FAIR,
    FENNEL_CONTENTION_N_LEVELS,
} FennelContention;

/* How a message picks among equal-cost routes (docs/TOPOLOGY.md, Routing): by its
 * destination, by a seeded hash of its source, destination and number, or by the least
 * load when it starts; on a dragonfly, Valiant's route through an intermediate group the
 * same hash picks, and adaptive between the minimal route and those. */
typedef enum {
    FENNEL_ROUTING_DESTINATION,
    FENNEL_ROUTING_ECMP,
    FENNEL_ROUTING_ADAPTIVE,
    FENNEL_ROUTING_VALIANT,
    FENNEL_ROUTING_N,
} FennelRouting;

/* A torus ring's tie (a distance of exactly half the ring): the positive way, or split
 * (routers at an even coordinate go the positive way, at an odd one the negative way). */
typedef enum {
    FENNEL_TIES_POSITIVE,
    FENNEL_TIES_SPLIT,
    FENNEL_TIES_N,
} FennelTies;

/* A rail topology's GPU architecture and CPU architecture, by which `--library nccl` picks
 * the rows of NCCL's tuning tables (docs/LIBRARIES.md, The machine): the first of each is
 * the default (H100-class servers with Intel CPUs, as the model was first derived for). */
typedef enum {
    FENNEL_GPU_ARCH_SM90,  /* Hopper: H100, H200, GH200 */
    FENNEL_GPU_ARCH_SM80,  /* Ampere: A100 */
    FENNEL_GPU_ARCH_SM100, /* Blackwell: B200, GB200 */
    FENNEL_GPU_ARCH_N,
} FennelGpuArch;

typedef enum {
    FENNEL_CPU_ARCH_INTEL, /* x86, Intel */
    FENNEL_CPU_ARCH_AMD,   /* x86, AMD */
    FENNEL_CPU_ARCH_ARM,   /* Arm: NVIDIA Grace */
    FENNEL_CPU_ARCH_N,
} FennelCpuArch;

/* Their names as the rail keys `gpu_arch` and `cpu_arch` spell them. */
const char *fennel_gpu_arch_name(FennelGpuArch a);
const char *fennel_cpu_arch_name(FennelCpuArch a);

/* Shapes of one dimension of a `dims` topology. */
typedef enum {
    FENNEL_SHAPE_SWITCH,
    FENNEL_SHAPE_RING,
    FENNEL_SHAPE_FULL,
} FennelShape;

/* A topology read from a file (kind graph, topology_graph.c): its vertices and links, and
 * the shortest routes between its nodes, computed once when it is read. Shared by the
 * topologies and networks that use it (reference counted). */
typedef struct FennelGraph FennelGraph;

/* Link levels: 0 is always the node links (a node to its switch or router and back); the
 * others depend on the kind (fat tree: 1 leaf-spine or leaf-aggregation, 2
 * aggregation-core; torus and dims: 1 + d for dimension d; dragonfly: 1 local, 2 global;
 * rail: 1 a GPU to its NIC, 2 a NIC to its rail's leaf, 3 a leaf to a spine; graph: 1 every
 * link that is not a node's, each with its own parameters). In a rail
 * topology a node is a GPU: level 0 is its NVLink port to its server's NVSwitch. */
#define FENNEL_TOPOLOGY_MAX_LEVELS 10
#define FENNEL_TOPOLOGY_MAX_DIMS   8

typedef struct {
    FennelTime latency;
    FennelRate rate; /* attoseconds per byte: the inverse of the bandwidth */
    gboolean latency_set, rate_set;
} FennelLinkParams;

typedef struct {
    FennelTopologyKind kind;
    FennelLinkParams all;                               /* `bandwidth`, `latency` */
    FennelLinkParams level[FENNEL_TOPOLOGY_MAX_LEVELS]; /* overrides per level */
    uint32_t nodes;                                     /* switch: 0 = as many as needed */
    uint32_t levels, radix, oversubscription;           /* fat-tree */
    uint32_t n_dims;                                    /* torus, dims */
    uint32_t dims[FENNEL_TOPOLOGY_MAX_DIMS];
    FennelShape shape[FENNEL_TOPOLOGY_MAX_DIMS];
    uint32_t groups, routers, nodes_per_router; /* dragonfly */
    uint32_t gpus_per_node, nics_per_node;      /* rail (nics 0: one per GPU) */
    /* rail: the servers' NVLink switch reduces and multicasts (NVLink SHARP, `nvls: true`),
     * so that NCCL's choice may take NVLS (docs/LIBRARIES.md); FALSE by default. */
    gboolean nvls;
    /* rail: every rail's leaf switch reduces and multicasts (SHARP, `sharp: true`): a
     * load-reduce or multicast whose group has one GPU on each of several servers, all on
     * one rail, runs at that rail's leaf (docs/TOPOLOGY.md), as nccl-collnet's network
     * operations do; FALSE by default. */
    gboolean sharp;
    /* rail: NCCL's PXN, a message for a GPU of another server on another rail crosses its
     * own server's NVLink to the GPU on the destination's rail first (`pxn: true`). */
    gboolean pxn;
    /* rail: the rate at which a GPU's NVLink port carries the switch's operations (a
     * load-reduce's or a multicast's bytes, each way; `nvls_bandwidth`), in attoseconds per
     * byte; 0 (the default) is the port's own rate, and a rate above the port's changes
     * nothing (docs/TOPOLOGY.md, GPU servers and rails). */
    FennelRate nvls_rate;
    /* rail: the GPUs' and the CPUs' architectures (`gpu_arch`, `cpu_arch`), for NCCL's
     * choice only; the defaults are sm90 and intel. */
    FennelGpuArch gpu_arch;
    FennelCpuArch cpu_arch;
    FennelRouting routing; /* fat-tree, rail, graph, dragonfly */
    FennelTies ties;       /* torus, dims */
    FennelGraph *graph;    /* graph: the file read (a reference) */
    /* The first key of the kind set after its `kind` by --set (empty if none): another
     * kind after it would drop it silently, so that is an error. */
    char kind_key[24];
    /* Where the section was written (for errors found when the node count is known). */
    char *file;
    unsigned line, col;
} FennelTopology;

const char *fennel_topology_kind_name(FennelTopologyKind kind);
const char *fennel_topology_kind_description(FennelTopologyKind kind);
const char *fennel_contention_name(FennelContention c);
/* "switch", "ring" or "fully-connected". */
const char *fennel_shape_name(FennelShape shape);
const char *fennel_contention_description(FennelContention c);
gboolean fennel_contention_parse(const char *text, FennelContention *out);
/* The levels' names in their order, comma-separated, for messages (g_free). */
char *fennel_contention_names(void);

/* A new topology of a kind with its defaults (a switch, fat tree of 2 levels, radix 64,
 * oversubscription 1; 100 Gbit/s and 500 ns links). */
FennelTopology *fennel_topology_new(FennelTopologyKind kind);
FennelTopology *fennel_topology_copy(const FennelTopology *t);
void fennel_topology_free(FennelTopology *t);

/* Sets one key from text: kind, bandwidth, latency, nodes, levels, radix, oversubscription,
 * dims ("4x4x4" or "[4, 4, 4]"), groups, routers, nodes_per_router, and LEVEL.bandwidth or
 * LEVEL.latency for a level name (node, level1, level2, dim0.., local, global), and for
 * `dims`: dimK.size, dimK.shape. FALSE with *why (to g_free) on an unknown key or a bad
 * value; *unknown_key tells them apart. Setting `kind` resets the kind's sizes, unless a
 * key of the kind was set since the last `kind` (fennel_topology_read forgets its keys):
 * then the same kind changes nothing and another is an error. */
gboolean fennel_topology_set(FennelTopology *t, const char *key, const char *value,
                             gboolean *unknown_key, char **why);

/* Kind graph: reads the graph file at `path` into t (replacing any), or FALSE with an error
 * at its FILE:LINE:COL. */
gboolean fennel_topology_load_graph(FennelTopology *t, const char *path, GError **error);

/* Reads a `topology:` section (the reader is at its value) into a new topology that
 * replaces *out. Errors name FILE:LINE:COL. */
gboolean fennel_topology_read(FennelYaml *y, FennelTopology **out, GError **error);

/* What is wrong with the description itself, or NULL (g_free it). */
char *fennel_topology_problem(const FennelTopology *t);

/* The name of a level of this kind ("node", "level1", "dim0", "global"...). */
const char *fennel_topology_level_name(const FennelTopology *t, unsigned level, char buf[16]);
unsigned fennel_topology_n_levels(const FennelTopology *t);
/* A rail topology's NICs per server (nics_per_node, or one per GPU). */
uint32_t fennel_topology_nics(const FennelTopology *t);
/* A level's latency and time per byte, after the defaults and overrides. */
FennelLinkParams fennel_topology_level_params(const FennelTopology *t, unsigned level);

/* "fat-tree levels=2 radix=64 oversubscription=1 bandwidth=100Gbit/s latency=500ns" */
char *fennel_topology_describe(const FennelTopology *t);
void fennel_topology_append_json(const FennelTopology *t, FennelContention c, GString *out);

/* ---- the built network ---- */

/* A built network keeps no array per link: a link's ends and level follow from its number
 * by the formulas that number it (topology_route.c), and its latency and bandwidth from
 * its level, so that building even the largest topology costs nothing, and what is kept
 * per link is kept only for the links messages cross (the engine's link state). */
typedef struct {
    FennelTopologyKind kind;
    uint32_t nodes; /* nodes 0 .. nodes-1 are vertices 0 .. nodes-1 */
    /* A node's NICs (ports) are vertices 0 .. ports-1: port i < nodes is node i's (its first
     * NIC), and in a graph whose nodes have several NICs the further ones follow
     * (fennel_network_port). Routes lead from port to port. ports == nodes in every other
     * kind. */
    uint32_t ports;
    uint32_t vertices; /* ports, then switches or routers */
    uint32_t links;    /* directed link numbers 0 .. links-1, some unused (fennel_network_link) */
    /* Links 0 .. endpoint_links-1 are the nodes' own ports, the servers of contention
     * `endpoint`: the node links (2 per port), and in a rail topology a GPU's links to its
     * NIC too (4 per node). */
    uint32_t endpoint_links;
    FennelTime level_latency[FENNEL_TOPOLOGY_MAX_LEVELS];
    FennelRate level_rate[FENNEL_TOPOLOGY_MAX_LEVELS];
    /* Routing constants of the kind. */
    uint32_t a, b, c, d, e;
    uint32_t n_dims, dims[FENNEL_TOPOLOGY_MAX_DIMS], stride[FENNEL_TOPOLOGY_MAX_DIMS];
    uint32_t base[FENNEL_TOPOLOGY_MAX_DIMS + 3], vbase[FENNEL_TOPOLOGY_MAX_DIMS + 3];
    FennelShape shape[FENNEL_TOPOLOGY_MAX_DIMS];
    FennelRouting routing;
    FennelTies ties;
    /* Kind graph: the graph, and each link's latency and time per byte (NULL for the other
     * kinds, whose links take their level's). */
    const FennelGraph *graph;
    FennelTime *link_latency;
    FennelRate *link_rate;
    /* Rail: the topology's nvls_rate, the least time per byte of a switch's operation on a
     * node link (0: the link's own). */
    FennelRate nvls_rate;
    /* Rail: the leaves reduce and multicast (the topology's `sharp`). */
    gboolean sharp;
} FennelNetwork;

/* The latency and time per byte of the link a hop takes. */
static inline FennelTime fennel_network_latency(const FennelNetwork *n, uint32_t link,
                                                uint32_t level)
{
    return G_UNLIKELY(n->link_latency != NULL) ? n->link_latency[link] : n->level_latency[level];
}
static inline FennelRate fennel_network_rate(const FennelNetwork *n, uint32_t link, uint32_t level)
{
    return G_UNLIKELY(n->link_rate != NULL) ? n->link_rate[link] : n->level_rate[level];
}

#define FENNEL_LINK_NONE UINT32_MAX

/* The network of `t` for `nodes` nodes (at least 1), or NULL with *why (to g_free) when
 * they do not fit: a torus, dragonfly or dims topology has exactly its own node count, a
 * fat tree at most what its radix allows, a switch any number unless `nodes` is given. */
FennelNetwork *fennel_network_build(const FennelTopology *t, uint32_t nodes, char **why);
void fennel_network_free(FennelNetwork *n);

/* One step of a route: the link taken, the vertex it leads to and its level. */
typedef struct {
    uint32_t link, to, level;
} FennelHop;

/* The step a message for port `dst` (a node's NIC: the node itself but in a graph with
 * several NICs per node) takes next from vertex `at` (a port, switch or router; never dst
 * itself). */
FennelHop fennel_network_hop(const FennelNetwork *n, uint32_t at, uint32_t dst);
/* The same step on the equal-cost route `choice` names: a fat tree's leaf takes up-link
 * choice mod u (u up-links per leaf), its aggregation switch core (choice / u) mod k/2; a
 * rail leaf goes up to spine (choice / gpus_per_node) mod servers. fennel_network_hop is
 * this with choice = dst (destination modulo); any 32-bit value names a route, and a
 * message keeps its choice for its whole route. Kinds without equal-cost routes ignore it. */
FennelHop fennel_network_hop_via(const FennelNetwork *n, uint32_t at, uint32_t dst,
                                 uint32_t choice);
/* How many equal-cost routes lead from port src to port dst (1 if one), and the choice
 * value of route k of them (k < that count): routes k and k' differ for k != k'. On a
 * dragonfly routed `valiant` or `adaptive` they are the routes through each group k between
 * two groups (choice k), the minimal one through the source's or the destination's group. */
uint32_t fennel_network_choices(const FennelNetwork *n, uint32_t src, uint32_t dst);
uint32_t fennel_network_choice(const FennelNetwork *n, uint32_t k);
/* On a dragonfly: the choice of the minimal route from node src to node dst, and of
 * Valiant's route through the intermediate group `hash` picks among those of neither node
 * (the minimal one when there is none). */
uint32_t fennel_network_minimal(const FennelNetwork *n, uint32_t dst);
uint32_t fennel_network_valiant(const FennelNetwork *n, uint32_t src, uint32_t dst, uint32_t hash);
/* The choice of ECMP for a message: a hash of the seed, its source and destination nodes and
 * its number (a pure function of them). */
uint32_t fennel_network_ecmp(uint64_t seed, uint32_t src, uint32_t dst, uint64_t number);

/* Link l's ends and level: FALSE if the number is unused (l < n->links). */
gboolean fennel_network_link(const FennelNetwork *n, uint32_t l, uint32_t *from, uint32_t *to,
                             uint32_t *level);

/* Node i's NIC count (1 but in a graph that gives it several), the port (vertex) of its
 * NIC j < that count, and the node a port belongs to (any other vertex: itself). */
uint32_t fennel_network_nics(const FennelNetwork *n, uint32_t node);
uint32_t fennel_network_port(const FennelNetwork *n, uint32_t node, uint32_t nic);
uint32_t fennel_network_port_node(const FennelNetwork *n, uint32_t vertex);

/* Node links: port i's link to its switch or router, and the link back (in a rail
 * topology, GPU i's NVLink port; its link to its NIC is 2 nodes + 2i, and back + 1). */
static inline uint32_t fennel_network_up(uint32_t node)
{
    return 2 * node;
}
static inline uint32_t fennel_network_down(uint32_t node)
{
    return 2 * node + 1;
}

/* In a rail topology whose leaves reduce (`sharp`), the way of GPU g into its rail's leaf and
 * back for a switch's operation there: up[0] its link to its NIC, up[1] the NIC's cable to the
 * leaf, down[0] the cable back, down[1] the NIC's link to the GPU, their levels (1 and 2,
 * `pcie` and `rail`), and the leaf (a vertex) as the return value; FENNEL_LINK_NONE in any
 * other topology. */
uint32_t fennel_network_leaf_way(const FennelNetwork *n, uint32_t g, uint32_t up[2],
                                 uint32_t down[2], uint32_t level[2]);

/* The server of node g in a rail topology (g / gpus_per_node); g itself in any other. */
static inline uint32_t fennel_network_server(const FennelNetwork *n, uint32_t g)
{
    return n->kind == FENNEL_TOPOLOGY_RAIL ? g / n->a : g;
}

/* A vertex's name: "node3", "switch", "leaf2", "spine1", "agg4", "core0", "router5",
 * "dim1-switch2". Returns buf. */
const char *fennel_network_vertex_name(const FennelNetwork *n, uint32_t v, char buf[32]);

/* The route from port src to port dst (src != dst): fills `links` with up to `max` links and
 * returns how many there are (which may exceed max). */
uint32_t fennel_network_route(const FennelNetwork *n, uint32_t src, uint32_t dst, uint32_t *links,
                              uint32_t max);

#endif
