/* Topology descriptions: kinds, keys, defaults and their text forms (docs/TOPOLOGY.md). */
#include "topology.h"

#include "json.h"
#include "topology_graph.h"

#include <stdlib.h>
#include <string.h>

static const struct {
    const char *name, *description;
} kinds[] = {
    [FENNEL_TOPOLOGY_SWITCH] = {"switch", "every node on one non-blocking crossbar"},
    [FENNEL_TOPOLOGY_FAT_TREE] = {"fat-tree", "two- or three-level folded Clos, up/down routing "
                                              "(levels, radix, oversubscription)"},
    [FENNEL_TOPOLOGY_TORUS] = {"torus", "wrap-around grid (dims), dimension-order routing"},
    [FENNEL_TOPOLOGY_DRAGONFLY] = {"dragonfly",
                                   "groups of all-to-all routers, one global link per pair of "
                                   "groups, minimal routing (groups, routers, nodes_per_router)"},
    [FENNEL_TOPOLOGY_DIMS] = {"dims",
                              "a hierarchy of dimensions, each a switch, ring or "
                              "fully-connected (dims: [{size, shape, bandwidth, latency}, ...])"},
    [FENNEL_TOPOLOGY_RAIL] = {"rail", "GPU servers: an NVSwitch per server, a NIC per rail on "
                                      "that rail's leaf, leaves joined by spines "
                                      "(gpus_per_node, nics_per_node)"},
    [FENNEL_TOPOLOGY_GRAPH] = {"graph", "nodes, switches and links read from a file, each link "
                                        "with its own bandwidth and latency, shortest routes "
                                        "(file)"},
};

static const struct {
    const char *name, *description;
} contentions[] = {
    [FENNEL_CONTENTION_NONE] = {"none",
                                "route latencies plus size over the narrowest link, nothing "
                                "shared"},
    [FENNEL_CONTENTION_ENDPOINT] = {"endpoint", "each node's injection and ejection link is a "
                                                "first-come first-served server"},
    [FENNEL_CONTENTION_LINKS] = {"links", "every directed link is a first-come first-served "
                                          "server (cut-through)"},
    [FENNEL_CONTENTION_FAIR] = {"fair", "max-min fair sharing of every link among the messages "
                                        "crossing it"},
};

static const char *const shapes[] = {
    [FENNEL_SHAPE_SWITCH] = "switch",
    [FENNEL_SHAPE_RING] = "ring",
    [FENNEL_SHAPE_FULL] = "fully-connected",
};

static const char *const routings[] = {
    [FENNEL_ROUTING_DESTINATION] = "destination-modulo",
    [FENNEL_ROUTING_ECMP] = "ecmp",
    [FENNEL_ROUTING_ADAPTIVE] = "adaptive",
    [FENNEL_ROUTING_VALIANT] = "valiant",
};

static const char *const ties[] = {
    [FENNEL_TIES_POSITIVE] = "positive",
    [FENNEL_TIES_SPLIT] = "split",
};

const char *fennel_shape_name(FennelShape shape)
{
    return shapes[shape];
}

const char *fennel_topology_kind_name(FennelTopologyKind kind)
{
    return kinds[kind].name;
}

const char *fennel_topology_kind_description(FennelTopologyKind kind)
{
    return kinds[kind].description;
}

const char *fennel_contention_name(FennelContention c)
{
    return contentions[c].name;
}

const char *fennel_contention_description(FennelContention c)
{
    return contentions[c].description;
}

char *fennel_contention_names(void)
{
    GString *s = g_string_new(NULL);
    for (int i = 0; i < FENNEL_CONTENTION_N_LEVELS; i++)
        g_string_append_printf(s, "%s%s", i ? ", " : "", contentions[i].name);
    return g_string_free(s, FALSE);
}

gboolean fennel_contention_parse(const char *text, FennelContention *out)
{
    for (int i = 0; i < FENNEL_CONTENTION_N_LEVELS; i++) {
        if (strcmp(text, contentions[i].name) == 0) {
            *out = i;
            return TRUE;
        }
    }
    return FALSE;
}

static const char *const gpu_archs[FENNEL_GPU_ARCH_N] = {"sm90", "sm80", "sm100"};
static const char *const cpu_archs[FENNEL_CPU_ARCH_N] = {"intel", "amd", "arm"};

const char *fennel_gpu_arch_name(FennelGpuArch a)
{
    return a < FENNEL_GPU_ARCH_N ? gpu_archs[a] : "?";
}

const char *fennel_cpu_arch_name(FennelCpuArch a)
{
    return a < FENNEL_CPU_ARCH_N ? cpu_archs[a] : "?";
}

/* The defaults of a kind's sizes; link parameters are kept. */
static void set_kind(FennelTopology *t, FennelTopologyKind kind)
{
    t->kind = kind;
    t->nodes = 0;
    t->levels = 2;
    t->radix = 64;
    t->oversubscription = 1;
    t->n_dims = 0;
    t->groups = t->routers = t->nodes_per_router = 0;
    t->gpus_per_node = 8;
    t->nics_per_node = 0;
    t->nvls = FALSE;
    t->sharp = FALSE;
    t->pxn = FALSE;
    t->nvls_rate = 0;
    t->gpu_arch = FENNEL_GPU_ARCH_SM90;
    t->cpu_arch = FENNEL_CPU_ARCH_INTEL;
    g_clear_pointer(&t->graph, fennel_graph_unref);
    t->kind_key[0] = '\0';
}

FennelTopology *fennel_topology_new(FennelTopologyKind kind)
{
    FennelTopology *t = g_new0(FennelTopology, 1);
    t->all.latency = 500 * FENNEL_NS;
    t->all.rate = 80000000; /* 100 Gbit/s: 0.08 ns per byte */
    set_kind(t, kind);
    return t;
}

FennelTopology *fennel_topology_copy(const FennelTopology *t)
{
    if (t == NULL)
        return NULL;
    FennelTopology *c = g_memdup2(t, sizeof *t);
    c->file = g_strdup(t->file);
    c->graph = fennel_graph_ref(t->graph);
    return c;
}

void fennel_topology_free(FennelTopology *t)
{
    if (t == NULL)
        return;
    g_free(t->file);
    fennel_graph_unref(t->graph);
    g_free(t);
}

uint32_t fennel_topology_nics(const FennelTopology *t)
{
    return t->nics_per_node ? t->nics_per_node : t->gpus_per_node;
}

unsigned fennel_topology_n_levels(const FennelTopology *t)
{
    switch (t->kind) {
    case FENNEL_TOPOLOGY_SWITCH:
        return 1;
    case FENNEL_TOPOLOGY_FAT_TREE:
        return t->levels;
    case FENNEL_TOPOLOGY_TORUS:
    case FENNEL_TOPOLOGY_DIMS:
        return 1 + t->n_dims;
    case FENNEL_TOPOLOGY_DRAGONFLY:
        return 3;
    case FENNEL_TOPOLOGY_RAIL:
        return 4;
    case FENNEL_TOPOLOGY_GRAPH:
        return 2;
    case FENNEL_TOPOLOGY_N_KINDS:
        break;
    }
    return 1;
}

const char *fennel_topology_level_name(const FennelTopology *t, unsigned level, char buf[16])
{
    if (level == 0)
        return "node";
    if (t->kind == FENNEL_TOPOLOGY_DRAGONFLY)
        return level == 1 ? "local" : "global";
    if (t->kind == FENNEL_TOPOLOGY_RAIL)
        return level == 1 ? "pcie" : level == 2 ? "rail" : "spine";
    if (t->kind == FENNEL_TOPOLOGY_GRAPH)
        return "link";
    if (t->kind == FENNEL_TOPOLOGY_TORUS || t->kind == FENNEL_TOPOLOGY_DIMS)
        g_snprintf(buf, 16, "dim%u", level - 1);
    else
        g_snprintf(buf, 16, "level%u", level);
    return buf;
}

/* The level a name stands for in this kind, or -1. */
static int level_find(const FennelTopology *t, const char *name, size_t len)
{
    char buf[16];
    /* dimK may name a dimension of a dims topology not yet given its size. */
    unsigned n = t->kind == FENNEL_TOPOLOGY_DIMS || t->kind == FENNEL_TOPOLOGY_TORUS
                     ? 1 + FENNEL_TOPOLOGY_MAX_DIMS
                 : t->kind == FENNEL_TOPOLOGY_FAT_TREE ? 3
                                                       : fennel_topology_n_levels(t);
    for (unsigned l = 0; l < n; l++) {
        const char *s = fennel_topology_level_name(t, l, buf);
        if (strlen(s) == len && strncmp(s, name, len) == 0)
            return (int)l;
    }
    return -1;
}

FennelLinkParams fennel_topology_level_params(const FennelTopology *t, unsigned level)
{
    FennelLinkParams p = t->all;
    const gboolean direct = t->kind == FENNEL_TOPOLOGY_TORUS || t->kind == FENNEL_TOPOLOGY_DIMS;
    /* The node links of a direct network join a node to its own router: no latency by
     * default, and the bandwidth of the first dimension. */
    if (level == 0 && direct) {
        p.latency = 0;
        if (t->kind == FENNEL_TOPOLOGY_DIMS && t->level[1].rate_set)
            p.rate = t->level[1].rate;
    }
    /* A GPU's link to its NIC: no latency by default, and the bandwidth of the rail, so
     * that by default it is only the GPU's port into the network. */
    if (level == 1 && t->kind == FENNEL_TOPOLOGY_RAIL) {
        p.latency = 0;
        if (t->level[2].rate_set)
            p.rate = t->level[2].rate;
    }
    const FennelLinkParams *o = &t->level[level];
    if (o->latency_set)
        p.latency = o->latency;
    if (o->rate_set)
        p.rate = o->rate;
    return p;
}

static gboolean parse_count(const char *key, const char *value, uint32_t min, uint32_t *out,
                            char **why)
{
    int64_t v;
    const char *reason;
    if (!fennel_parse_int(value, min, UINT32_MAX, &v, &reason)) {
        *why = g_strdup_printf("topology.%s: expected a whole number >= %u", key, min);
        return FALSE;
    }
    *out = (uint32_t)v;
    return TRUE;
}

/* "4x4x4", "[4, 4, 4]" or "4, 4, 4". */
static gboolean parse_dims(FennelTopology *t, const char *value, char **why)
{
    char *text = g_strdup(value);
    g_strstrip(g_strdelimit(text, "[]", ' '));
    char **parts = g_strsplit_set(text, "x,", -1);
    guint n = g_strv_length(parts);
    gboolean ok = n >= 1 && n <= FENNEL_TOPOLOGY_MAX_DIMS;
    for (guint i = 0; ok && i < n; i++) {
        int64_t v;
        const char *reason;
        ok = fennel_parse_int(g_strstrip(parts[i]), 1, UINT32_MAX, &v, &reason);
        t->dims[i] = (uint32_t)v;
    }
    if (ok) {
        t->n_dims = n;
        for (guint i = 0; i < n; i++)
            t->shape[i] = FENNEL_SHAPE_RING;
    } else {
        *why = g_strdup_printf("topology.dims: expected 1 to %d sizes >= 1 such as [4, 4, 4] "
                               "or 4x4x4, got '%s'",
                               FENNEL_TOPOLOGY_MAX_DIMS, value);
    }
    g_strfreev(parts);
    g_free(text);
    return ok;
}

static gboolean set_link(FennelLinkParams *p, const char *key, const char *param, const char *value,
                         gboolean *unknown_key, char **why)
{
    const char *reason;
    if (strcmp(param, "bandwidth") == 0) {
        if (!fennel_parse_bandwidth(value, &p->rate, &reason)) {
            *why = g_strdup_printf("topology.%s: %s", key, reason);
            return FALSE;
        }
        p->rate_set = TRUE;
        return TRUE;
    }
    if (strcmp(param, "latency") == 0) {
        if (!fennel_parse_duration(value, &p->latency, &reason)) {
            *why = g_strdup_printf("topology.%s: %s", key, reason);
            return FALSE;
        }
        p->latency_set = TRUE;
        return TRUE;
    }
    *unknown_key = TRUE;
    *why = g_strdup_printf("topology: unknown key '%s' (a level has bandwidth and latency)", key);
    return FALSE;
}

static gboolean set_kind_key(FennelTopology *t, const char *key, const char *value,
                             gboolean *unknown_key, char **why);

gboolean fennel_topology_set(FennelTopology *t, const char *key, const char *value,
                             gboolean *unknown_key, char **why)
{
    *unknown_key = FALSE;
    if (strcmp(key, "kind") == 0) {
        for (int k = 0; k < FENNEL_TOPOLOGY_N_KINDS; k++) {
            if (strcmp(value, kinds[k].name) != 0)
                continue;
            if (t->kind_key[0] && (FennelTopologyKind)k != t->kind) {
                /* docs/TOPOLOGY.md, Errors: a key of another kind. */
                *why = g_strdup_printf("topology: '%s' is a key of kind %s, not of %s", t->kind_key,
                                       kinds[t->kind].name, kinds[k].name);
                return FALSE;
            }
            if (!t->kind_key[0])
                set_kind(t, k);
            return TRUE;
        }
        *why = g_strdup_printf("topology.kind: unknown kind '%s' (known: switch, fat-tree, "
                               "torus, dragonfly, dims, rail, graph)",
                               value);
        return FALSE;
    }
    if (strcmp(key, "bandwidth") == 0 || strcmp(key, "latency") == 0)
        return set_link(&t->all, key, key, value, unknown_key, why);
    /* Routing keys belong to no kind: whether the kind has a use for them is known once
     * every key is read (fennel_topology_problem). */
    if (strcmp(key, "routing") == 0) {
        for (int r = 0; r < FENNEL_ROUTING_N; r++) {
            if (strcmp(value, routings[r]) == 0) {
                t->routing = r;
                return TRUE;
            }
        }
        *why = g_strdup_printf("topology.routing: unknown routing '%s' (known: "
                               "destination-modulo, ecmp, adaptive, valiant)",
                               value);
        return FALSE;
    }
    if (strcmp(key, "torus_ties") == 0) {
        for (int r = 0; r < FENNEL_TIES_N; r++) {
            if (strcmp(value, ties[r]) == 0) {
                t->ties = r;
                return TRUE;
            }
        }
        *why = g_strdup_printf("topology.torus_ties: unknown way '%s' (known: positive, split)",
                               value);
        return FALSE;
    }
    gboolean ok = set_kind_key(t, key, value, unknown_key, why);
    if (ok && !t->kind_key[0])
        g_strlcpy(t->kind_key, key, sizeof t->kind_key);
    return ok;
}

/* A key whose meaning depends on the kind: its sizes, and its levels' links. */
static gboolean set_kind_key(FennelTopology *t, const char *key, const char *value,
                             gboolean *unknown_key, char **why)
{
    const struct {
        const char *name;
        FennelTopologyKind kind;
        uint32_t *field;
        uint32_t min;
    } counts[] = {
        {"nodes", FENNEL_TOPOLOGY_SWITCH, &t->nodes, 1},
        {"levels", FENNEL_TOPOLOGY_FAT_TREE, &t->levels, 2},
        {"radix", FENNEL_TOPOLOGY_FAT_TREE, &t->radix, 2}, /* at most 65536, below */
        {"oversubscription", FENNEL_TOPOLOGY_FAT_TREE, &t->oversubscription, 1},
        {"groups", FENNEL_TOPOLOGY_DRAGONFLY, &t->groups, 1},
        {"routers", FENNEL_TOPOLOGY_DRAGONFLY, &t->routers, 1},
        {"nodes_per_router", FENNEL_TOPOLOGY_DRAGONFLY, &t->nodes_per_router, 1},
        {"gpus_per_node", FENNEL_TOPOLOGY_RAIL, &t->gpus_per_node, 1},
        {"nics_per_node", FENNEL_TOPOLOGY_RAIL, &t->nics_per_node, 1},
    };
    if (strcmp(key, "file") == 0) {
        if (t->kind != FENNEL_TOPOLOGY_GRAPH) {
            *unknown_key = TRUE;
            *why = g_strdup_printf("topology: 'file' is a key of kind graph, not of %s",
                                   kinds[t->kind].name);
            return FALSE;
        }
        GError *error = NULL;
        if (!fennel_topology_load_graph(t, value, &error)) {
            *why = g_strdup(error->message);
            g_error_free(error);
            return FALSE;
        }
        return TRUE;
    }
    for (size_t i = 0; i < G_N_ELEMENTS(counts); i++) {
        if (strcmp(key, counts[i].name) != 0)
            continue;
        if (t->kind != counts[i].kind) {
            *unknown_key = TRUE;
            *why = g_strdup_printf("topology: '%s' is a key of kind %s, not of %s", key,
                                   kinds[counts[i].kind].name, kinds[t->kind].name);
            return FALSE;
        }
        return parse_count(key, value, counts[i].min, counts[i].field, why);
    }
    if (strcmp(key, "dims") == 0 && t->kind == FENNEL_TOPOLOGY_TORUS)
        return parse_dims(t, value, why);
    if ((strcmp(key, "nvls") == 0 || strcmp(key, "pxn") == 0 || strcmp(key, "sharp") == 0) &&
        t->kind == FENNEL_TOPOLOGY_RAIL) {
        if (strcmp(value, "true") != 0 && strcmp(value, "false") != 0) {
            *why = g_strdup_printf("topology.%s: '%s' is not true or false", key, value);
            return FALSE;
        }
        *(key[0] == 'n'   ? &t->nvls
          : key[0] == 'p' ? &t->pxn
                          : &t->sharp) = strcmp(value, "true") == 0;
        return TRUE;
    }
    if ((strcmp(key, "gpu_arch") == 0 || strcmp(key, "cpu_arch") == 0) &&
        t->kind == FENNEL_TOPOLOGY_RAIL) {
        const gboolean gpu = key[0] == 'g';
        const char *const *names = gpu ? gpu_archs : cpu_archs;
        const int n = gpu ? FENNEL_GPU_ARCH_N : FENNEL_CPU_ARCH_N;
        for (int i = 0; i < n; i++) {
            if (strcmp(value, names[i]) != 0)
                continue;
            if (gpu)
                t->gpu_arch = (FennelGpuArch)i;
            else
                t->cpu_arch = (FennelCpuArch)i;
            return TRUE;
        }
        *why = g_strdup_printf("topology.%s: unknown architecture '%s' (known: %s)", key, value,
                               gpu ? "sm90, sm80, sm100" : "intel, amd, arm");
        return FALSE;
    }
    if (strcmp(key, "nvls_bandwidth") == 0 && t->kind == FENNEL_TOPOLOGY_RAIL) {
        const char *reason;
        if (!fennel_parse_bandwidth(value, &t->nvls_rate, &reason)) {
            *why = g_strdup_printf("topology.nvls_bandwidth: %s", reason);
            return FALSE;
        }
        return TRUE;
    }
    const char *dot = strchr(key, '.');
    if (dot) {
        int level = level_find(t, key, (size_t)(dot - key));
        const char *param = dot + 1;
        if (level >= 0 && t->kind == FENNEL_TOPOLOGY_DIMS && level > 0 &&
            (strcmp(param, "size") == 0 || strcmp(param, "shape") == 0)) {
            unsigned d = (unsigned)level - 1;
            if (d > t->n_dims) {
                *why = g_strdup_printf("topology.%s: dimensions are given in order (dim%u "
                                       "first)",
                                       key, t->n_dims);
                return FALSE;
            }
            if (d == t->n_dims) {
                t->n_dims++;
                t->dims[d] = 1;
                t->shape[d] = FENNEL_SHAPE_SWITCH;
            }
            if (param[1] == 'i')
                return parse_count(key, value, 1, &t->dims[d], why);
            for (int s = 0; s < (int)G_N_ELEMENTS(shapes); s++) {
                if (strcmp(value, shapes[s]) == 0) {
                    t->shape[d] = s;
                    return TRUE;
                }
            }
            *why = g_strdup_printf("topology.%s: unknown shape '%s' (known: switch, ring, "
                                   "fully-connected)",
                                   key, value);
            return FALSE;
        }
        if (level >= 0)
            return set_link(&t->level[level], key, param, value, unknown_key, why);
    }
    *unknown_key = TRUE;
    char buf[16];
    GString *levels = g_string_new(NULL);
    for (unsigned l = 0; l < fennel_topology_n_levels(t); l++)
        g_string_append_printf(levels, ", %s.bandwidth, %s.latency",
                               fennel_topology_level_name(t, l, buf),
                               fennel_topology_level_name(t, l, buf));
    static const char *const own[] = {
        [FENNEL_TOPOLOGY_SWITCH] = ", nodes",
        [FENNEL_TOPOLOGY_FAT_TREE] = ", levels, radix, oversubscription",
        [FENNEL_TOPOLOGY_TORUS] = ", dims",
        [FENNEL_TOPOLOGY_DRAGONFLY] = ", groups, routers, nodes_per_router",
        [FENNEL_TOPOLOGY_DIMS] = ", dims (dimK.size, dimK.shape)",
        [FENNEL_TOPOLOGY_RAIL] =
            ", gpus_per_node, nics_per_node, nvls, nvls_bandwidth, pxn, sharp, gpu_arch, "
            "cpu_arch",
        [FENNEL_TOPOLOGY_GRAPH] = ", file",
    };
    *why = g_strdup_printf("topology: unknown key '%s' for kind %s (it has: kind, bandwidth, "
                           "latency%s%s)",
                           key, kinds[t->kind].name, own[t->kind], levels->str);
    g_string_free(levels, TRUE);
    return FALSE;
}

char *fennel_topology_problem(const FennelTopology *t)
{
    /* A level may be set before the key that makes it exist (`level2` before `levels: 3`,
     * `dim2` before `dims`): whether it exists is known only now. */
    for (unsigned l = fennel_topology_n_levels(t); l < FENNEL_TOPOLOGY_MAX_LEVELS; l++) {
        if (!t->level[l].rate_set && !t->level[l].latency_set)
            continue;
        char buf[16], name[16];
        g_strlcpy(name, fennel_topology_level_name(t, l, buf), sizeof name);
        GString *have = g_string_new(NULL);
        for (unsigned k = 0; k < fennel_topology_n_levels(t); k++)
            g_string_append_printf(have, "%s%s", k ? ", " : "",
                                   fennel_topology_level_name(t, k, buf));
        char *why = g_strdup_printf("topology.%s.%s: this %s has no level %s (its levels: %s)",
                                    name, t->level[l].rate_set ? "bandwidth" : "latency",
                                    kinds[t->kind].name, name, have->str);
        g_string_free(have, TRUE);
        return why;
    }
    /* a graph's equal-cost routes are its shortest paths; a dragonfly has one minimal route
     * and the non-minimal ones of Valiant */
    if (t->routing == FENNEL_ROUTING_VALIANT && t->kind != FENNEL_TOPOLOGY_DRAGONFLY)
        return g_strdup_printf("topology.routing: valiant applies to dragonfly, not to %s",
                               kinds[t->kind].name);
    if (t->kind == FENNEL_TOPOLOGY_DRAGONFLY && t->routing == FENNEL_ROUTING_ECMP)
        return g_strdup("topology.routing: a dragonfly has one minimal route between two nodes, "
                        "ecmp applies to fat-tree, rail and graph (valiant and adaptive to "
                        "dragonfly)");
    if (t->routing != FENNEL_ROUTING_DESTINATION && t->kind != FENNEL_TOPOLOGY_FAT_TREE &&
        t->kind != FENNEL_TOPOLOGY_RAIL && t->kind != FENNEL_TOPOLOGY_GRAPH &&
        t->kind != FENNEL_TOPOLOGY_DRAGONFLY) {
        return g_strdup_printf("topology.routing: a %s has one minimal route between two nodes, "
                               "%s applies to fat-tree, rail, graph and dragonfly",
                               kinds[t->kind].name, routings[t->routing]);
    }
    if (t->ties != FENNEL_TIES_POSITIVE && t->kind != FENNEL_TOPOLOGY_TORUS &&
        t->kind != FENNEL_TOPOLOGY_DIMS)
        return g_strdup_printf("topology.torus_ties: a %s has no rings (torus and dims have)",
                               kinds[t->kind].name);
    switch (t->kind) {
    case FENNEL_TOPOLOGY_SWITCH:
        break;
    case FENNEL_TOPOLOGY_FAT_TREE:
        if (t->levels != 2 && t->levels != 3)
            return g_strdup_printf("topology.levels: a fat tree has 2 or 3 levels, not %u",
                                   t->levels);
        if (t->radix > 65536)
            return g_strdup_printf("topology.radix: at most 65536, not %u", t->radix);
        if (t->radix % 2 != 0 || (t->radix / 2) % t->oversubscription != 0)
            return g_strdup_printf("topology.oversubscription: %u must divide half the radix "
                                   "(%u), which must be whole",
                                   t->oversubscription, t->radix);
        break;
    case FENNEL_TOPOLOGY_TORUS:
    case FENNEL_TOPOLOGY_DIMS:
        if (t->n_dims == 0)
            return g_strdup("topology.dims: missing (the sizes of the dimensions)");
        break;
    case FENNEL_TOPOLOGY_DRAGONFLY:
        if (t->groups == 0 || t->routers == 0 || t->nodes_per_router == 0)
            return g_strdup("topology: a dragonfly needs groups, routers and nodes_per_router");
        break;
    case FENNEL_TOPOLOGY_RAIL:
        if (t->nics_per_node && t->gpus_per_node % t->nics_per_node != 0)
            return g_strdup_printf("topology.nics_per_node: %u must divide gpus_per_node (%u)",
                                   t->nics_per_node, t->gpus_per_node);
        break;
    case FENNEL_TOPOLOGY_GRAPH:
        if (t->graph == NULL)
            return g_strdup("topology.file: missing (the graph file of a graph)");
        break;
    case FENNEL_TOPOLOGY_N_KINDS:
        break;
    }
    return NULL;
}

static void append_sizes(const FennelTopology *t, GString *s, gboolean json)
{
    const char *eq = json ? "\":" : "=";
    const char *q = json ? ",\"" : " ";
    switch (t->kind) {
    case FENNEL_TOPOLOGY_SWITCH:
        if (t->nodes)
            g_string_append_printf(s, "%snodes%s%u", q, eq, t->nodes);
        break;
    case FENNEL_TOPOLOGY_FAT_TREE:
        g_string_append_printf(s, "%slevels%s%u%sradix%s%u%soversubscription%s%u", q, eq, t->levels,
                               q, eq, t->radix, q, eq, t->oversubscription);
        break;
    case FENNEL_TOPOLOGY_TORUS:
    case FENNEL_TOPOLOGY_DIMS:
        g_string_append_printf(s, "%sdims%s%s", q, eq, json ? "[" : "");
        for (uint32_t d = 0; d < t->n_dims; d++) {
            g_string_append_printf(s, "%s%u", d ? (json ? "," : "x") : "", t->dims[d]);
            if (t->kind == FENNEL_TOPOLOGY_DIMS && !json)
                g_string_append_printf(s, "(%s)", shapes[t->shape[d]]);
        }
        if (json)
            g_string_append(s, "]");
        break;
    case FENNEL_TOPOLOGY_DRAGONFLY:
        g_string_append_printf(s, "%sgroups%s%u%srouters%s%u%snodes_per_router%s%u", q, eq,
                               t->groups, q, eq, t->routers, q, eq, t->nodes_per_router);
        break;
    case FENNEL_TOPOLOGY_RAIL:
        g_string_append_printf(s, "%sgpus_per_node%s%u%snics_per_node%s%u", q, eq, t->gpus_per_node,
                               q, eq, fennel_topology_nics(t));
        /* only when set, so that what was written before reads the same */
        if (t->nvls)
            g_string_append_printf(s, "%snvls%strue", q, eq);
        if (t->pxn)
            g_string_append_printf(s, "%spxn%strue", q, eq);
        if (t->sharp)
            g_string_append_printf(s, "%ssharp%strue", q, eq);
        if (t->gpu_arch != FENNEL_GPU_ARCH_SM90)
            g_string_append_printf(s, "%sgpu_arch%s%s%s%s", q, eq, json ? "\"" : "",
                                   gpu_archs[t->gpu_arch], json ? "\"" : "");
        if (t->cpu_arch != FENNEL_CPU_ARCH_INTEL)
            g_string_append_printf(s, "%scpu_arch%s%s%s%s", q, eq, json ? "\"" : "",
                                   cpu_archs[t->cpu_arch], json ? "\"" : "");
        if (t->nvls_rate) {
            char r[FENNEL_TIME_BUF];
            if (json)
                g_string_append_printf(s, "%snvls_ns_per_byte%s%s", q, eq,
                                       fennel_format_rate(t->nvls_rate, r));
            else
                g_string_append_printf(s, "%snvls_bandwidth%s%s", q, eq,
                                       fennel_format_bandwidth(t->nvls_rate, r));
        }
        break;
    case FENNEL_TOPOLOGY_GRAPH:
        if (t->graph && json) {
            g_string_append_printf(s, "%sfile%s", q, eq);
            fennel_json_string(s, t->graph->file);
        } else if (t->graph) {
            g_string_append_printf(s, "%sfile%s%s", q, eq, t->graph->file);
        }
        break;
    case FENNEL_TOPOLOGY_N_KINDS:
        break;
    }
    /* Only when not the default, so that what was written before reads the same. */
    if (t->routing != FENNEL_ROUTING_DESTINATION)
        g_string_append_printf(s, "%srouting%s%s%s%s", q, eq, json ? "\"" : "",
                               routings[t->routing], json ? "\"" : "");
    if (t->ties != FENNEL_TIES_POSITIVE)
        g_string_append_printf(s, "%storus_ties%s%s%s%s", q, eq, json ? "\"" : "", ties[t->ties],
                               json ? "\"" : "");
}

char *fennel_topology_describe(const FennelTopology *t)
{
    GString *s = g_string_new(kinds[t->kind].name);
    append_sizes(t, s, FALSE);
    char buf[16], a[FENNEL_TIME_BUF], b[FENNEL_TIME_BUF];
    for (unsigned l = 0; l < fennel_topology_n_levels(t); l++) {
        FennelLinkParams p = fennel_topology_level_params(t, l);
        g_string_append_printf(s, " %s=%s/%sns", fennel_topology_level_name(t, l, buf),
                               fennel_format_bandwidth(p.rate, a), fennel_format_ns(p.latency, b));
    }
    return g_string_free(s, FALSE);
}

void fennel_topology_append_json(const FennelTopology *t, FennelContention c, GString *out)
{
    g_string_append_printf(out, "{\"kind\":\"%s\",\"contention\":\"%s\"", kinds[t->kind].name,
                           contentions[c].name);
    append_sizes(t, out, TRUE);
    if (t->kind == FENNEL_TOPOLOGY_DIMS) {
        g_string_append(out, ",\"shapes\":[");
        for (uint32_t d = 0; d < t->n_dims; d++)
            g_string_append_printf(out, "%s\"%s\"", d ? "," : "", shapes[t->shape[d]]);
        g_string_append(out, "]");
    }
    g_string_append(out, ",\"levels\":[");
    char buf[16], a[FENNEL_TIME_BUF];
    for (unsigned l = 0; l < fennel_topology_n_levels(t); l++) {
        FennelLinkParams p = fennel_topology_level_params(t, l);
        g_string_append_printf(out, "%s{\"name\":\"%s\",\"latency_ns\":%s,", l ? "," : "",
                               fennel_topology_level_name(t, l, buf),
                               fennel_format_ns(p.latency, a));
        g_string_append_printf(out, "\"ns_per_byte\":%s}", fennel_format_rate(p.rate, a));
    }
    g_string_append(out, "]}");
}

gboolean fennel_topology_load_graph(FennelTopology *t, const char *path, GError **error)
{
    FennelGraph *g = fennel_graph_load(path, error);
    if (g == NULL)
        return FALSE;
    fennel_graph_unref(t->graph);
    t->graph = g;
    return TRUE;
}
