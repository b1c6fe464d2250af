/* The model's keys: one table that the model file reader (model_file.c) and `--set`
 * (fennel_model_set) both go through, so that a key is added in one place and means the
 * same in a file and on the command line (docs/SEMANTICS.md, Model keys). A section's
 * `KEY: {SUB: VALUE}` is `--set KEY.SUB=VALUE`; a message names a key as its writer
 * named it ("flops" in a file's gpu section, "gpu.flops" on the command line). */
#include "model_private.h"

#include <string.h>

/* ---- the setters ---- */

static gboolean set_version(FennelModel *m, const FennelModelSetting *s, gboolean *unknown_key,
                            char **why)
{
    (void)m;
    (void)unknown_key;
    int64_t v;
    const char *reason;
    if (fennel_parse_int(s->value, 1, 1, &v, &reason))
        return TRUE;
    *why = g_strdup("fennel: unsupported format version (this fennel reads version 1)");
    return FALSE;
}

/* `name` and `description` are words for the file's readers. */
static gboolean set_words(FennelModel *m, const FennelModelSetting *s, gboolean *unknown_key,
                          char **why)
{
    (void)m;
    (void)s;
    (void)unknown_key;
    (void)why;
    return TRUE;
}

/* A parameter `name` of the network class (try_net) or of the compute class (try_comp),
 * the network's first; `key` as written. Makes a size-dependent parameter constant. */
static gboolean set_parameter(FennelModel *m, const char *key, const char *name, const char *value,
                              gboolean try_net, gboolean try_comp, gboolean *unknown_key,
                              char **why)
{
    int i = try_net ? fennel_param_find(m->network->params, m->network->n_params, name) : -1;
    const FennelParamSpec *spec = NULL;
    int64_t *slot = NULL;
    if (i >= 0) {
        spec = &m->network->params[i];
        slot = &m->net[i];
    } else if (try_comp &&
               (i = fennel_param_find(m->compute->params, m->compute->n_params, name)) >= 0) {
        spec = &m->compute->params[i];
        slot = &m->comp[i];
    }
    if (spec == NULL) {
        char *net = fennel_param_names(m->network->params, m->network->n_params);
        char *comp = fennel_param_names(m->compute->params, m->compute->n_params);
        *why = g_strdup_printf(
            "unknown parameter '%s' (network model %s has: %s; compute model "
            "%s has: %s; also: resolution, network, compute, ranks_per_node, intra, "
            "intra.NAME)",
            key, m->network->name, net, m->compute->name, comp);
        g_free(net);
        g_free(comp);
        *unknown_key = TRUE;
        return FALSE;
    }
    int64_t v;
    const char *reason;
    if (!fennel_param_parse(spec->kind, value, &v, &reason)) {
        *why = g_strdup_printf("%s: %s", spec->name, reason);
        return FALSE;
    }
    *slot = v;
    if (slot >= m->net && slot < m->net + FENNEL_MAX_PARAMS)
        fennel_model_set_table(m, FALSE, (unsigned)(slot - m->net), NULL);
    return TRUE;
}

/* `network` and `compute`: the class (KEY, or KEY.model), or one of its parameters. */
static gboolean set_class(FennelModel *m, const FennelModelSetting *s, gboolean network,
                          gboolean *unknown_key, char **why)
{
    if (s->sub && strcmp(s->sub, "model") != 0)
        return set_parameter(m, s->named, s->sub, s->value, network, !network, unknown_key, why);
    const FennelNetworkClass *nc = network ? fennel_network_class_find(s->value) : NULL;
    const FennelComputeClass *cc = network ? NULL : fennel_compute_class_find(s->value);
    if (nc == NULL && cc == NULL) {
        char *names = fennel_model_class_names(network);
        *why = g_strdup_printf("unknown %s model '%s' (known: %s)", network ? "network" : "compute",
                               s->value, names);
        g_free(names);
        return FALSE;
    }
    if (nc)
        fennel_model_set_network(m, nc);
    else
        fennel_model_set_compute(m, cc);
    return TRUE;
}

static gboolean set_network(FennelModel *m, const FennelModelSetting *s, gboolean *unknown_key,
                            char **why)
{
    return set_class(m, s, TRUE, unknown_key, why);
}

static gboolean set_compute(FennelModel *m, const FennelModelSetting *s, gboolean *unknown_key,
                            char **why)
{
    return set_class(m, s, FALSE, unknown_key, why);
}

/* `intra`: `same`, a network class (KEY or KEY.model), or one of its parameters. */
static gboolean set_intra(FennelModel *m, const FennelModelSetting *s, gboolean *unknown_key,
                          char **why)
{
    if (s->sub == NULL || strcmp(s->sub, "model") == 0) {
        if (strcmp(s->value, "same") == 0) {
            m->intra_given = m->intra_same = TRUE;
            return TRUE;
        }
        const FennelNetworkClass *nc = fennel_network_class_find(s->value);
        if (nc == NULL) {
            char *names = fennel_model_class_names(TRUE);
            *why = g_strdup_printf("unknown network model '%s' (known: %s)", s->value, names);
            g_free(names);
            return FALSE;
        }
        fennel_model_set_intra(m, nc);
        m->intra_given = TRUE;
        m->intra_same = FALSE;
        return TRUE;
    }
    m->intra_given = TRUE;
    const FennelNetworkClass *nc = m->intra_network;
    int k = fennel_param_find(nc->params, nc->n_params, s->sub);
    const char *reason;
    if (k < 0) {
        char *names = fennel_param_names(nc->params, nc->n_params);
        *why = g_strdup_printf("unknown parameter '%s' (intra-node model %s has: %s)", s->named,
                               nc->name, names);
        g_free(names);
        *unknown_key = TRUE;
        return FALSE;
    }
    if (!fennel_param_parse(nc->params[k].kind, s->value, &m->intra[k], &reason)) {
        *why = g_strdup_printf("%s: %s", s->sub, reason);
        return FALSE;
    }
    fennel_model_set_table(m, TRUE, (unsigned)k, NULL);
    return TRUE;
}

/* `noise.STREAM.KEY` (the file's noise section has a reader of its own, which takes the
 * distribution first and finds an empirical file next to the model file). */
static gboolean set_noise(FennelModel *m, const FennelModelSetting *s, gboolean *unknown_key,
                          char **why)
{
    for (int i = 0; i < FENNEL_NOISE_N_STREAMS; i++) {
        const char *name = fennel_noise_stream_name(i);
        size_t len = strlen(name);
        if (strncmp(s->sub, name, len) == 0 && s->sub[len] == '.') {
            if (fennel_noise_set(&m->noise[i], s->sub + len + 1, s->value, NULL, why))
                return TRUE;
            *unknown_key = g_str_has_prefix(*why, "unknown key");
            return FALSE;
        }
    }
    *why = g_strdup_printf("unknown noise stream in '%s' (expected noise.network.KEY, "
                           "noise.host.KEY or noise.compute.KEY)",
                           s->named);
    *unknown_key = TRUE;
    return FALSE;
}

/* `placement`: ranks_per_node, order and nic. A file's placement places (ranks_per_node at
 * least 1); `--set ranks_per_node=0` takes a file's placement away. */
static gboolean set_placement(FennelModel *m, const FennelModelSetting *s, gboolean *unknown_key,
                              char **why)
{
    if (strcmp(s->sub, "order") == 0)
        return fennel_model_set_order(m, s->value, why);
    if (strcmp(s->sub, "nic") == 0)
        return fennel_model_set_ports(m, "nic", s->value, why);
    if (strcmp(s->sub, "ranks_per_node") != 0) {
        *why = g_strdup_printf("placement: unknown key '%s' (expected ranks_per_node, order, nic)",
                               s->sub);
        *unknown_key = TRUE;
        return FALSE;
    }
    int64_t v;
    const char *reason;
    if (!fennel_parse_int(s->value, s->file ? 1 : 0, UINT32_MAX, &v, &reason)) {
        *why =
            g_strdup_printf("%s: %s", s->named, s->file ? "expected a whole number >= 1" : reason);
        return FALSE;
    }
    m->ranks_per_node = (uint32_t)v;
    return TRUE;
}

/* `duplex`: full or half, the ports' (docs/TOPOLOGY.md, Shared NICs and half-duplex ports). */
static gboolean set_duplex(FennelModel *m, const FennelModelSetting *s, gboolean *unknown_key,
                           char **why)
{
    (void)unknown_key;
    return fennel_model_set_ports(m, "duplex", s->value, why);
}

/* `eager`: the library's eager limit, a size (docs/SEMANTICS.md, Eager messages). */
static gboolean set_eager(FennelModel *m, const FennelModelSetting *s, gboolean *unknown_key,
                          char **why)
{
    (void)unknown_key;
    int64_t v;
    const char *reason;
    if (!fennel_parse_size(s->value, &v, &reason)) {
        *why = g_strdup_printf("%s: %s, got '%s'", s->named, reason, s->value);
        return FALSE;
    }
    m->eager_limit = v;
    return TRUE;
}

/* `topology.KEY` (a file's topology section has a reader of its own, for its levels and
 * dimensions, which hands the same keys to fennel_topology_set). */
static gboolean set_topology(FennelModel *m, const FennelModelSetting *s, gboolean *unknown_key,
                             char **why)
{
    if (m->topology == NULL && strcmp(s->sub, "kind") != 0) {
        *why = g_strdup_printf("%s: set topology.kind first (switch, fat-tree, torus, "
                               "dragonfly or dims)",
                               s->named);
        return FALSE;
    }
    if (m->topology == NULL)
        m->topology = fennel_topology_new(FENNEL_TOPOLOGY_SWITCH);
    return fennel_topology_set(m->topology, s->sub, s->value, unknown_key, why);
}

static gboolean set_contention(FennelModel *m, const FennelModelSetting *s, gboolean *unknown_key,
                               char **why)
{
    (void)unknown_key;
    if (fennel_contention_parse(s->value, &m->contention))
        return TRUE;
    char *names = fennel_contention_names();
    *why = g_strdup_printf("%s: unknown level '%s' (known: %s)", s->named, s->value, names);
    g_free(names);
    return FALSE;
}

static gboolean set_ordering(FennelModel *m, const FennelModelSetting *s, gboolean *unknown_key,
                             char **why)
{
    (void)unknown_key;
    if (fennel_ordering_parse(s->value, &m->ordering))
        return TRUE;
    *why = g_strdup_printf("%s: unknown order '%s' (known: fennel, loggopsim)", s->named, s->value);
    return FALSE;
}

/* `gpu`: flops and memory_bandwidth. */
static gboolean set_gpu(FennelModel *m, const FennelModelSetting *s, gboolean *unknown_key,
                        char **why)
{
    const char *reason = NULL;
    gboolean ok;
    if (strcmp(s->sub, "flops") == 0) {
        ok = fennel_parse_flops(s->value, &m->gpu_flops, &reason);
    } else if (strcmp(s->sub, "memory_bandwidth") == 0) {
        ok = fennel_parse_bandwidth(s->value, &m->gpu_memory, &reason);
    } else {
        *why = g_strdup_printf("gpu: unknown key '%s' (expected flops, memory_bandwidth)", s->sub);
        *unknown_key = TRUE;
        return FALSE;
    }
    if (!ok) {
        *why = g_strdup_printf("%s: %s", s->named, reason);
        return FALSE;
    }
    m->gpu_given = TRUE;
    return TRUE;
}

static gboolean set_stragglers(FennelModel *m, const FennelModelSetting *s, gboolean *unknown_key,
                               char **why)
{
    if (m->stragglers == NULL)
        m->stragglers = fennel_stragglers_new();
    return fennel_stragglers_set(m->stragglers, s->sub, s->value, unknown_key, why);
}

static gboolean set_faults(FennelModel *m, const FennelModelSetting *s, gboolean *unknown_key,
                           char **why)
{
    if (m->faults == NULL)
        m->faults = fennel_faults_new();
    return fennel_faults_set(m->faults, s->sub, s->value, unknown_key, why);
}

static gboolean set_resolution(FennelModel *m, const FennelModelSetting *s, gboolean *unknown_key,
                               char **why)
{
    (void)unknown_key;
    FennelTime r;
    const char *reason;
    if (!fennel_parse_duration(s->value, &r, &reason)) {
        *why = g_strdup_printf("%s: %s", s->named, reason);
        return FALSE;
    }
    if (r <= 0) {
        *why = g_strdup_printf("%s: must be positive", s->named);
        return FALSE;
    }
    m->resolution = r;
    m->resolution_explicit = TRUE;
    return TRUE;
}

/* ---- the table ---- */

#define VALUE_KEY   FENNEL_MODEL_KEY_VALUE
#define SECTION_KEY FENNEL_MODEL_KEY_SECTION
#define FILE_KEY    FENNEL_MODEL_KEY_FILE

const FennelModelKey fennel_model_keys[] = {
    {"fennel", FILE_KEY, set_version, NULL, FALSE, {NULL}, "the format version, 1"},
    {"network",
     SECTION_KEY,
     set_network,
     fennel__model_read_network,
     TRUE,
     {"network.model=lbp", "network.alpha_p=400ns", "network.beta=0.5ns/B"},
     "the network model (`model`) and its parameters"},
    {"compute",
     SECTION_KEY,
     set_compute,
     fennel__model_read_compute,
     TRUE,
     {"compute.model=gamma", "compute.gamma=2ns/B"},
     "the compute model (`model`) and its parameters"},
    {"noise",
     SECTION_KEY,
     set_noise,
     fennel__model_read_noise,
     FALSE,
     {"noise.network.distribution=normal", "noise.network.stddev=20ns",
      "noise.compute.distribution=constant", "noise.compute.value=5ns"},
     "noise per stream: a distribution and its parameters"},
    {"placement",
     SECTION_KEY,
     set_placement,
     NULL,
     FALSE,
     {"placement.ranks_per_node=2", "placement.order=round-robin", "intra=same"},
     "ranks per node, the rank order and whether a node's ranks share its NIC"},
    {"intra",
     SECTION_KEY,
     set_intra,
     fennel__model_read_intra,
     TRUE,
     {"placement.ranks_per_node=4", "intra.model=postal", "intra.alpha=200ns",
      "intra.beta=0.05ns/B"},
     "the network model of messages within a node, or `same`"},
    {"topology",
     SECTION_KEY,
     set_topology,
     fennel__model_read_topology,
     FALSE,
     {"topology.kind=torus", "topology.dims=4x2", "topology.bandwidth=100Gbit/s",
      "topology.latency=1us"},
     "the network's topology: its kind, sizes and links"},
    {"contention",
     VALUE_KEY,
     set_contention,
     NULL,
     FALSE,
     {"topology.kind=switch", "contention=links"},
     "the contention level on the topology's links"},
    {"ordering",
     VALUE_KEY,
     set_ordering,
     NULL,
     FALSE,
     {"ordering=loggopsim"},
     "the order of simultaneous events"},
    {"gpu",
     SECTION_KEY,
     set_gpu,
     NULL,
     FALSE,
     {"gpu.flops=989TFLOP/s", "gpu.memory_bandwidth=3350GB/s"},
     "the GPU that times computes recorded as operations and bytes"},
    {"stragglers",
     SECTION_KEY,
     set_stragglers,
     fennel__model_read_stragglers,
     FALSE,
     {"stragglers.ranks=1 3", "stragglers.compute=2", "stragglers.nic=1.5"},
     "slow ranks"},
    {"faults",
     SECTION_KEY,
     set_faults,
     fennel__model_read_faults,
     FALSE,
     {"topology.kind=switch", "faults.list=node1 from 10us bandwidth 0.5", "faults.links=0.25",
      "faults.from=5us", "faults.bandwidth=0"},
     "failing links and NICs"},
    {"duplex",
     VALUE_KEY,
     set_duplex,
     NULL,
     FALSE,
     {"network.model=postal", "duplex=half"},
     "whether a port's sends and receives overlap: `full` or `half`, or by message size "
     "(`half, full from 8KiB`)"},
    {"eager",
     VALUE_KEY,
     set_eager,
     NULL,
     FALSE,
     {"network.model=postal", "eager=64KiB"},
     "the library's eager limit: a put or send of fewer bytes returns once its bytes have "
     "left the sender (postal)"},
    {"resolution",
     VALUE_KEY,
     set_resolution,
     NULL,
     FALSE,
     {"resolution=1ns"},
     "the unit model durations are truncated to"},
    {"name", FILE_KEY, set_words, NULL, FALSE, {NULL}, "the model's name, for its readers"},
    {"description", FILE_KEY, set_words, NULL, FALSE, {NULL}, "what the model is, for its readers"},
};

const unsigned fennel_model_n_keys = G_N_ELEMENTS(fennel_model_keys);

#undef VALUE_KEY
#undef SECTION_KEY
#undef FILE_KEY

const FennelModelKey *fennel_model_key_find(const char *name)
{
    for (unsigned i = 0; i < fennel_model_n_keys; i++) {
        if (strcmp(fennel_model_keys[i].name, name) == 0)
            return &fennel_model_keys[i];
    }
    return NULL;
}

char *fennel_model_key_names(void)
{
    GString *s = g_string_new(NULL);
    for (unsigned i = 0; i < fennel_model_n_keys; i++)
        g_string_append_printf(s, "%s%s", i ? ", " : "", fennel_model_keys[i].name);
    return g_string_free(s, FALSE);
}

/* ---- --set ---- */

gboolean fennel_model_set(FennelModel *m, const char *key, const char *value, gboolean *unknown_key,
                          char **why)
{
    *unknown_key = FALSE;
    /* placement's keys are also keys of their own on the command line */
    const char *full = strcmp(key, "order") == 0            ? "placement.order"
                       : strcmp(key, "ranks_per_node") == 0 ? "placement.ranks_per_node"
                       : strcmp(key, "nic") == 0            ? "placement.nic"
                                                            : key;
    const char *dot = strchr(full, '.');
    char *head = dot ? g_strndup(full, (gsize)(dot - full)) : g_strdup(full);
    const FennelModelKey *row = fennel_model_key_find(head);
    g_free(head);
    if (row && ((row->kind == FENNEL_MODEL_KEY_VALUE && dot == NULL) ||
                (row->kind == FENNEL_MODEL_KEY_SECTION && (dot || row->takes_value)))) {
        FennelModelSetting s = {dot ? dot + 1 : NULL, value, key, NULL};
        return row->set(m, &s, unknown_key, why);
    }
    /* a parameter of the network or the compute class, by its name alone */
    return set_parameter(m, key, key, value, TRUE, TRUE, unknown_key, why);
}
