/* The model variants of a sweep: the base model (file, --network) with every
 * combination of the --set lists applied, each built once, and the model columns of the
 * CSV (every parameter of every model class the sweep uses, in canonical units). */
#include "sweep_private.h"

#include "errors.h"

#include <string.h>

/* The kind of a parameter name in any network or compute class, for ranges. */
static gboolean param_kind(const char *name, gboolean net, gboolean comp, FennelSweepKind *kind)
{
    const FennelParamSpec *found = NULL;
    for (const FennelNetworkClass *const *c = fennel_network_classes; net && *c && !found; c++) {
        int i = fennel_param_find((*c)->params, (*c)->n_params, name);
        if (i >= 0)
            found = &(*c)->params[i];
    }
    for (const FennelComputeClass *const *c = fennel_compute_classes; comp && *c && !found; c++) {
        int i = fennel_param_find((*c)->params, (*c)->n_params, name);
        if (i >= 0)
            found = &(*c)->params[i];
    }
    if (found == NULL)
        return FALSE;
    *kind = found->kind == FENNEL_PARAM_DURATION ? FENNEL_SWEEP_DURATION
            : found->kind == FENNEL_PARAM_RATE   ? FENNEL_SWEEP_RATE
                                                 : FENNEL_SWEEP_SIZE;
    return TRUE;
}

typedef enum { VALUE_TEXT, VALUE_KIND, VALUE_DECIMAL } ValueType;

/* How the ranges of a key expand: by a known kind, as decimals, or not at all (names). */
static ValueType key_type(const char *key, FennelSweepKind *kind)
{
    if (strcmp(key, "network") == 0 || strcmp(key, "compute") == 0 || strcmp(key, "intra") == 0 ||
        g_str_has_suffix(key, ".distribution") || g_str_has_suffix(key, ".file"))
        return VALUE_TEXT;
    if (strcmp(key, "resolution") == 0) {
        *kind = FENNEL_SWEEP_DURATION;
        return VALUE_KIND;
    }
    if (strcmp(key, "ranks_per_node") == 0) {
        *kind = FENNEL_SWEEP_INT;
        return VALUE_KIND;
    }
    if (g_str_has_prefix(key, "noise."))
        return VALUE_DECIMAL;
    if (g_str_has_prefix(key, "network.") || g_str_has_prefix(key, "intra."))
        return param_kind(strchr(key, '.') + 1, TRUE, FALSE, kind) ? VALUE_KIND : VALUE_DECIMAL;
    if (g_str_has_prefix(key, "compute."))
        return param_kind(key + strlen("compute."), FALSE, TRUE, kind) ? VALUE_KIND : VALUE_DECIMAL;
    return param_kind(key, TRUE, TRUE, kind) ? VALUE_KIND : VALUE_DECIMAL;
}

static char *format_value(FennelSweepKind kind, int64_t v)
{
    char buf[FENNEL_TIME_BUF];
    switch (kind) {
    case FENNEL_SWEEP_DURATION:
        return g_strconcat(fennel_format_ns(v, buf), "ns", NULL);
    case FENNEL_SWEEP_RATE:
        return g_strconcat(fennel_format_rate(v, buf), "ns/B", NULL);
    case FENNEL_SWEEP_SIZE:
        return g_strdup_printf("%" G_GINT64_FORMAT "B", v);
    case FENNEL_SWEEP_INT:
        break;
    }
    return g_strdup_printf("%" G_GINT64_FORMAT, v);
}

/* The values of one KEY=LIST: items without ".." are kept as written (the model parses
 * them), ranges are expanded by the key's kind. */
static gboolean expand_set(const char *key, const char *list, GPtrArray *values, GError **error)
{
    char *option = g_strdup_printf("--set %s=", key);
    FennelSweepKind kind = FENNEL_SWEEP_INT;
    ValueType type = key_type(key, &kind);
    char **items = g_strsplit(list, ",", -1);
    gboolean ok = TRUE;
    for (char **it = items; *it && ok; it++) {
        char *item = g_strstrip(*it);
        if (*item == '\0') {
            g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE,
                        "--set %s=%s: empty item in the list", key, list);
            ok = FALSE;
        } else if (strstr(item, "..") == NULL) {
            g_ptr_array_add(values, g_strdup(item));
        } else if (type == VALUE_TEXT) {
            g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE,
                        "--set %s=%s: %s takes names, not ranges", key, item, key);
            ok = FALSE;
        } else if (type == VALUE_DECIMAL) {
            ok = fennel_sweep_expand_decimal(option, item, values, error);
        } else {
            GArray *nums = g_array_new(FALSE, FALSE, sizeof(int64_t));
            ok = fennel_sweep_expand(option, item, kind, 0, INT64_MAX, nums, error);
            for (guint i = 0; ok && i < nums->len; i++)
                g_ptr_array_add(values, format_value(kind, g_array_index(nums, int64_t, i)));
            g_array_free(nums, TRUE);
        }
    }
    g_strfreev(items);
    g_free(option);
    return ok;
}

gboolean fennel__sweep_parse_sets(FennelSweep *s, char **set, GError **error)
{
    guint n = set ? g_strv_length(set) : 0;
    s->sets = g_new0(FennelSweepSet, MAX(n, 1));
    for (guint i = 0; i < n; i++) {
        const char *eq = strchr(set[i], '=');
        if (eq == NULL || eq == set[i]) {
            g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE,
                        "--set %s: expected KEY=VALUE or KEY=LIST, e.g. --set "
                        "alpha_p=100ns..1000ns:100ns",
                        set[i]);
            return FALSE;
        }
        char *key = g_strndup(set[i], (gsize)(eq - set[i]));
        for (guint k = 0; k < s->n_sets; k++) {
            if (strcmp(s->sets[k].key, key) == 0) {
                g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE,
                            "--set %s is given twice (give one list of its values)", key);
                g_free(key);
                return FALSE;
            }
        }
        FennelSweepSet *d = &s->sets[s->n_sets++];
        d->key = key;
        d->values = g_ptr_array_new_with_free_func(g_free);
        if (!expand_set(key, eq + 1, d->values, error))
            return FALSE;
    }
    return TRUE;
}

static gboolean apply(FennelModel *m, const FennelSweepSet *set, const char *value, GError **error)
{
    gboolean unknown;
    char *why = NULL;
    if (fennel_model_set(m, set->key, value, &unknown, &why)) {
        return TRUE;
    }
    g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE, "--set %s=%s: %s", set->key, value, why);
    g_free(why);
    return FALSE;
}

static void add_column_at(FennelSweep *s, FennelSweepColumnKind kind, char *name, const char *param,
                          int stream, char *level)
{
    for (guint i = 0; i < s->model_columns->len; i++) {
        if (strcmp(g_array_index(s->model_columns, FennelSweepModelColumn, i).name, name) == 0) {
            g_free(name);
            g_free(level);
            return;
        }
    }
    FennelSweepModelColumn c = {kind, name, param, stream, level};
    g_array_append_val(s->model_columns, c);
}

static void add_column(FennelSweep *s, FennelSweepColumnKind kind, char *name, const char *param,
                       int stream)
{
    add_column_at(s, kind, name, param, stream, NULL);
}

/* The size keys of each kind of topology, as `--set topology.KEY` names them. */
static const char *const topology_sizes[FENNEL_TOPOLOGY_N_KINDS][4] = {
    [FENNEL_TOPOLOGY_SWITCH] = {"nodes"},
    [FENNEL_TOPOLOGY_FAT_TREE] = {"levels", "radix", "oversubscription"},
    [FENNEL_TOPOLOGY_TORUS] = {"dims"},
    [FENNEL_TOPOLOGY_DRAGONFLY] = {"groups", "routers", "nodes_per_router"},
    [FENNEL_TOPOLOGY_DIMS] = {"dims"},
    [FENNEL_TOPOLOGY_RAIL] = {"gpus_per_node", "nics_per_node"},
};

/* The topology columns: its kind, the sizes of every kind a variant has, the latency and
 * time per byte of every level a variant has (after defaults and overrides), and the
 * contention level. */
static void topology_columns(FennelSweep *s)
{
    add_column(s, FENNEL_SWEEP_COL_TOPOLOGY, g_strdup("topology"), NULL, 0);
    for (guint m = 0; m < s->n_models; m++) {
        const FennelTopology *t = s->models[m].topology;
        for (int i = 0; t && i < 4 && topology_sizes[t->kind][i]; i++)
            add_column(s, FENNEL_SWEEP_COL_TOPO_SIZE,
                       g_strdup_printf("topology_%s", topology_sizes[t->kind][i]),
                       topology_sizes[t->kind][i], 0);
    }
    for (guint m = 0; m < s->n_models; m++) {
        const FennelTopology *t = s->models[m].topology;
        char buf[16];
        for (unsigned l = 0; t && l < fennel_topology_n_levels(t); l++) {
            const char *level = fennel_topology_level_name(t, l, buf);
            add_column_at(s, FENNEL_SWEEP_COL_TOPO_LATENCY,
                          g_strdup_printf("topology_%s_latency_ns", level), NULL, 0,
                          g_strdup(level));
            add_column_at(s, FENNEL_SWEEP_COL_TOPO_RATE,
                          g_strdup_printf("topology_%s_ns_per_byte", level), NULL, 0,
                          g_strdup(level));
        }
    }
    add_column(s, FENNEL_SWEEP_COL_CONTENTION, g_strdup("contention"), NULL, 0);
}

static char *param_column(const char *prefix, const FennelParamSpec *p)
{
    const char *unit = p->kind == FENNEL_PARAM_DURATION ? "ns"
                       : p->kind == FENNEL_PARAM_RATE   ? "ns_per_byte"
                                                        : "bytes";
    return g_strdup_printf("%s%s_%s", prefix, p->name, unit);
}

/* The model columns: the classes and every parameter any variant has, in the order the
 * variants meet them; placement, rank order, topology, ordering and noise columns only when
 * some variant has them (docs/SWEEPS.md, Columns). */
static void build_columns(FennelSweep *s)
{
    s->model_columns = g_array_new(FALSE, FALSE, sizeof(FennelSweepModelColumn));
    gboolean placement = FALSE, noise[FENNEL_NOISE_N_STREAMS] = {FALSE};
    gboolean order = FALSE, topology = FALSE, loggopsim = FALSE, stragglers = FALSE, faults = FALSE;
    gboolean ports = FALSE;
    add_column(s, FENNEL_SWEEP_COL_NETWORK, g_strdup("network"), NULL, 0);
    for (guint m = 0; m < s->n_models; m++) {
        const FennelNetworkClass *c = s->models[m].network;
        for (unsigned i = 0; i < c->n_params; i++)
            add_column(s, FENNEL_SWEEP_COL_NET_PARAM, param_column("", &c->params[i]),
                       c->params[i].name, 0);
        placement |= s->models[m].ranks_per_node > 0;
        topology |= s->models[m].topology != NULL;
        order |= s->models[m].ranks_per_node > 0 || s->models[m].topology != NULL ||
                 s->models[m].order != FENNEL_ORDER_LINEAR;
        loggopsim |= s->models[m].ordering == FENNEL_ORDERING_LOGGOPSIM;
        ports |= s->models[m].nic_shared || s->models[m].half_duplex;
        stragglers |= fennel_stragglers_any(s->models[m].stragglers);
        faults |= fennel_faults_any(s->models[m].faults);
        for (int k = 0; k < FENNEL_NOISE_N_STREAMS; k++)
            noise[k] |= s->models[m].noise[k].kind != FENNEL_NOISE_NONE;
    }
    add_column(s, FENNEL_SWEEP_COL_COMPUTE, g_strdup("compute"), NULL, 0);
    for (guint m = 0; m < s->n_models; m++) {
        const FennelComputeClass *c = s->models[m].compute;
        for (unsigned i = 0; i < c->n_params; i++)
            add_column(s, FENNEL_SWEEP_COL_COMP_PARAM, param_column("compute_", &c->params[i]),
                       c->params[i].name, 0);
    }
    add_column(s, FENNEL_SWEEP_COL_RESOLUTION, g_strdup("resolution_ns"), NULL, 0);
    add_column(s, FENNEL_SWEEP_COL_TRUNCATES, g_strdup("resolution_truncates"), NULL, 0);
    if (placement) {
        add_column(s, FENNEL_SWEEP_COL_RANKS_PER_NODE, g_strdup("ranks_per_node"), NULL, 0);
        add_column(s, FENNEL_SWEEP_COL_INTRA, g_strdup("intra_network"), NULL, 0);
        for (guint m = 0; m < s->n_models; m++) {
            const FennelNetworkClass *c = s->models[m].intra_network;
            for (unsigned i = 0; c && i < c->n_params; i++)
                add_column(s, FENNEL_SWEEP_COL_INTRA_PARAM, param_column("intra_", &c->params[i]),
                           c->params[i].name, 0);
        }
    }
    if (order)
        add_column(s, FENNEL_SWEEP_COL_ORDER, g_strdup("order"), NULL, 0);
    if (ports) {
        add_column(s, FENNEL_SWEEP_COL_NIC, g_strdup("nic"), NULL, 0);
        add_column(s, FENNEL_SWEEP_COL_DUPLEX, g_strdup("duplex"), NULL, 0);
    }
    if (topology)
        topology_columns(s);
    if (loggopsim)
        add_column(s, FENNEL_SWEEP_COL_ORDERING, g_strdup("ordering"), NULL, 0);
    for (int k = 0; k < FENNEL_NOISE_N_STREAMS; k++) {
        if (noise[k])
            add_column(s, FENNEL_SWEEP_COL_NOISE,
                       g_strdup_printf("noise_%s", fennel_noise_stream_name(k)), NULL, k);
    }
    if (stragglers)
        add_column(s, FENNEL_SWEEP_COL_STRAGGLERS, g_strdup("stragglers"), NULL, 0);
    if (faults)
        add_column(s, FENNEL_SWEEP_COL_FAULTS, g_strdup("faults"), NULL, 0);
    /* An empirical noise's description counts its samples but cannot name its file: a swept
     * file is a column of its own, as written. */
    for (guint k = 0; k < s->n_sets; k++) {
        if (g_str_has_suffix(s->sets[k].key, ".file")) {
            char *name = g_strdup(s->sets[k].key);
            g_strdelimit(name, ".", '_');
            add_column(s, FENNEL_SWEEP_COL_SET, name, NULL, (int)k);
        }
    }
}

/* The value index of each --set key in model variant m (mixed radix, the last key
 * fastest). */
static void variant_values(const FennelSweep *s, guint m, guint *idx)
{
    guint rest = m;
    for (guint k = s->n_sets; k-- > 0;) {
        idx[k] = rest % s->sets[k].values->len;
        rest /= s->sets[k].values->len;
    }
}

/* A size of the topology, empty where its kind has no such key (and for a switch's nodes
 * when not given: as many as the program needs). */
static void topology_size_cell(GString *out, const FennelTopology *t, const char *key)
{
    if (t == NULL)
        return;
    gboolean has = FALSE;
    for (int i = 0; i < 4 && topology_sizes[t->kind][i]; i++)
        has |= strcmp(topology_sizes[t->kind][i], key) == 0;
    if (!has)
        return;
    if (strcmp(key, "dims") == 0) {
        for (uint32_t d = 0; d < t->n_dims; d++) {
            g_string_append_printf(out, "%s%u", d ? "x" : "", t->dims[d]);
            if (t->kind == FENNEL_TOPOLOGY_DIMS)
                g_string_append_printf(out, "(%s)", fennel_shape_name(t->shape[d]));
        }
        return;
    }
    uint32_t v = strcmp(key, "nodes") == 0              ? t->nodes
                 : strcmp(key, "levels") == 0           ? t->levels
                 : strcmp(key, "radix") == 0            ? t->radix
                 : strcmp(key, "oversubscription") == 0 ? t->oversubscription
                 : strcmp(key, "groups") == 0           ? t->groups
                 : strcmp(key, "routers") == 0          ? t->routers
                 : strcmp(key, "gpus_per_node") == 0    ? t->gpus_per_node
                 : strcmp(key, "nics_per_node") == 0    ? fennel_topology_nics(t)
                                                        : t->nodes_per_router;
    if (v > 0 || strcmp(key, "nodes") != 0)
        g_string_append_printf(out, "%u", v);
}

/* A level's latency (ns) or time per byte (ns/B), empty where the topology has no such
 * level. */
static void topology_level_cell(GString *out, const FennelTopology *t, const char *level,
                                gboolean latency)
{
    char buf[16], num[FENNEL_TIME_BUF];
    for (unsigned l = 0; t && l < fennel_topology_n_levels(t); l++) {
        if (strcmp(fennel_topology_level_name(t, l, buf), level) != 0)
            continue;
        FennelLinkParams p = fennel_topology_level_params(t, l);
        g_string_append(out, latency ? fennel_format_ns(p.latency, num)
                                     : fennel_format_rate(p.rate, num));
        return;
    }
}

/* A parameter's value without its unit (the column name has it); empty for "none" and for a
 * parameter that depends on the message size (a table has no one value). */
static void param_cell(GString *out, const FennelParamSpec *specs, unsigned n,
                       const int64_t *values, FennelParamTable *const *tables, const char *name)
{
    int i = fennel_param_find(specs, n, name);
    if (i < 0 || (tables && tables[i]))
        return;
    char buf[FENNEL_TIME_BUF];
    if (specs[i].kind == FENNEL_PARAM_DURATION)
        g_string_append(out, fennel_format_ns(values[i], buf));
    else if (specs[i].kind == FENNEL_PARAM_RATE)
        g_string_append(out, fennel_format_rate(values[i], buf));
    else if (values[i] >= 0)
        g_string_append_printf(out, "%" G_GINT64_FORMAT, values[i]);
}

static char *model_cells(const FennelSweep *s, guint variant)
{
    const FennelModel *m = &s->models[variant];
    GString *out = g_string_new(NULL);
    char buf[FENNEL_TIME_BUF];
    guint idx[s->n_sets + 1];
    variant_values(s, variant, idx);
    for (guint i = 0; i < s->model_columns->len; i++) {
        const FennelSweepModelColumn *c =
            &g_array_index(s->model_columns, FennelSweepModelColumn, i);
        switch (c->kind) {
        case FENNEL_SWEEP_COL_NETWORK:
            g_string_append(out, m->network->name);
            break;
        case FENNEL_SWEEP_COL_NET_PARAM:
            param_cell(out, m->network->params, m->network->n_params, m->net, m->net_table,
                       c->param);
            break;
        case FENNEL_SWEEP_COL_COMPUTE:
            g_string_append(out, m->compute->name);
            break;
        case FENNEL_SWEEP_COL_COMP_PARAM:
            param_cell(out, m->compute->params, m->compute->n_params, m->comp, NULL, c->param);
            break;
        case FENNEL_SWEEP_COL_RESOLUTION:
            g_string_append(out, fennel_format_ns(m->resolution, buf));
            break;
        case FENNEL_SWEEP_COL_TRUNCATES:
            g_string_append(out, m->resolution_explicit ? "true" : "false");
            break;
        case FENNEL_SWEEP_COL_RANKS_PER_NODE:
            g_string_append_printf(out, "%u", m->ranks_per_node);
            break;
        case FENNEL_SWEEP_COL_INTRA:
            /* `intra: same`: the network model times those messages, not a postal 0. */
            if (m->ranks_per_node)
                g_string_append(out, m->intra_same ? "same" : m->intra_network->name);
            break;
        case FENNEL_SWEEP_COL_INTRA_PARAM:
            if (m->ranks_per_node && !m->intra_same)
                param_cell(out, m->intra_network->params, m->intra_network->n_params, m->intra,
                           m->intra_table, c->param);
            break;
        case FENNEL_SWEEP_COL_ORDER: {
            char *d = fennel_model_order_describe(m);
            fennel__csv_field(out, d);
            g_free(d);
            break;
        }
        case FENNEL_SWEEP_COL_NIC:
            g_string_append(out, m->nic_shared ? "shared" : "own");
            break;
        case FENNEL_SWEEP_COL_DUPLEX: {
            char *d = fennel_model_duplex_text(m);
            g_string_append(out, d);
            g_free(d);
            break;
        }
        case FENNEL_SWEEP_COL_TOPOLOGY:
            if (m->topology)
                g_string_append(out, fennel_topology_kind_name(m->topology->kind));
            break;
        case FENNEL_SWEEP_COL_TOPO_SIZE:
            topology_size_cell(out, m->topology, c->param);
            break;
        case FENNEL_SWEEP_COL_TOPO_LATENCY:
        case FENNEL_SWEEP_COL_TOPO_RATE:
            topology_level_cell(out, m->topology, c->level,
                                c->kind == FENNEL_SWEEP_COL_TOPO_LATENCY);
            break;
        case FENNEL_SWEEP_COL_CONTENTION:
            g_string_append(out, fennel_contention_name(m->contention));
            break;
        case FENNEL_SWEEP_COL_ORDERING:
            g_string_append(out, m->ordering == FENNEL_ORDERING_LOGGOPSIM ? "loggopsim" : "fennel");
            break;
        case FENNEL_SWEEP_COL_NOISE: {
            char *d = fennel_noise_describe(&m->noise[c->stream]);
            fennel__csv_field(out, d);
            g_free(d);
            break;
        }
        case FENNEL_SWEEP_COL_STRAGGLERS:
            if (fennel_stragglers_any(m->stragglers)) {
                char *d = fennel_stragglers_describe(m->stragglers);
                fennel__csv_field(out, d);
                g_free(d);
            }
            break;
        case FENNEL_SWEEP_COL_FAULTS:
            if (fennel_faults_any(m->faults)) {
                char *d = fennel_faults_describe(m->faults);
                fennel__csv_field(out, d);
                g_free(d);
            }
            break;
        case FENNEL_SWEEP_COL_SET:
            fennel__csv_field(out, g_ptr_array_index(s->sets[c->stream].values, idx[c->stream]));
            break;
        }
        g_string_append_c(out, ',');
    }
    return g_string_free(out, FALSE);
}

gboolean fennel__sweep_build_models(FennelSweep *s, const FennelModelOptions *o, GError **error)
{
    FennelModelOptions base = {.model_file = o->model_file, .network = o->network};
    if (!fennel_model_options_build(&base, &s->base, error))
        return FALSE;
    uint64_t n = 1;
    for (guint k = 0; k < s->n_sets; k++) {
        n *= s->sets[k].values->len;
        if (n > FENNEL_SWEEP_MAX_MODELS) {
            g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE,
                        "--set: the lists make more than %d model variants; split the sweep",
                        FENNEL_SWEEP_MAX_MODELS);
            return FALSE;
        }
    }
    s->models = g_new0(FennelModel, n);
    for (guint m = 0; m < n; m++) {
        FennelModel *model = &s->models[m];
        fennel_model_copy(model, &s->base);
        s->n_models = m + 1;
        guint idx[s->n_sets + 1];
        variant_values(s, m, idx);
        for (guint k = 0; k < s->n_sets; k++) {
            if (!apply(model, &s->sets[k], g_ptr_array_index(s->sets[k].values, idx[k]), error))
                return FALSE;
        }
        for (int i = 0; i < FENNEL_NOISE_N_STREAMS; i++) {
            char *why = fennel_noise_check(&model->noise[i]);
            if (why) {
                g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE, "--set: %s", why);
                g_free(why);
                return FALSE;
            }
        }
        char *topology = fennel_model_topology_problem(model);
        if (topology) {
            g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE, "--set: %s", topology);
            g_free(topology);
            return FALSE;
        }
        if (fennel_model_placement_problem(model)) {
            g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE, "--set: %s",
                        fennel_model_placement_problem(model));
            return FALSE;
        }
    }
    build_columns(s);
    s->model_cells = g_new0(char *, n + 1);
    for (guint m = 0; m < n; m++)
        s->model_cells[m] = model_cells(s, m);
    return TRUE;
}

void fennel__sweep_clear_models(FennelSweep *s)
{
    for (guint m = 0; m < s->n_models; m++)
        fennel_model_clear(&s->models[m]);
    g_free(s->models);
    fennel_model_clear(&s->base);
    g_strfreev(s->model_cells);
    if (s->model_columns) {
        for (guint i = 0; i < s->model_columns->len; i++) {
            g_free(g_array_index(s->model_columns, FennelSweepModelColumn, i).name);
            g_free(g_array_index(s->model_columns, FennelSweepModelColumn, i).level);
        }
        g_array_free(s->model_columns, TRUE);
    }
    for (guint k = 0; k < s->n_sets; k++) {
        g_free(s->sets[k].key);
        g_ptr_array_free(s->sets[k].values, TRUE);
    }
    g_free(s->sets);
}
