/* The model file reader (docs/SEMANTICS.md): `network` and `compute` sections, each naming its
 * model and giving its parameters, and an optional `resolution`. */
#include "errors.h"
#include "model.h"
#include "yaml_reader.h"

#include <string.h>

/* A key and its value: a scalar, or (in a network section) a table over sizes
 * (`table`: entries size -> value) or the `ranges` list (`ranges`: entries whose `table`
 * holds a range's keys, positioned at the range's mapping). */
typedef struct {
    char *key, *value;
    unsigned key_line, key_col, line, col;
    GArray *table;
    GArray *ranges;
} Entry;

static void entry_clear(gpointer p)
{
    Entry *e = p;
    g_free(e->key);
    g_free(e->value);
    if (e->table)
        g_array_free(e->table, TRUE);
    if (e->ranges)
        g_array_free(e->ranges, TRUE);
}

static GArray *entries_new(void)
{
    GArray *entries = g_array_new(FALSE, TRUE, sizeof(Entry));
    g_array_set_clear_func(entries, entry_clear);
    return entries;
}

static gboolean read_entries(FennelYaml *y, const char *section, GArray *entries, gboolean sized,
                             GError **error);

/* `ranges:` a sequence of mappings of scalars. */
static gboolean read_ranges(FennelYaml *y, const char *section, Entry *e, GError **error)
{
    e->ranges = entries_new();
    gboolean ok = fennel_yaml_next(y, error);
    while (ok && fennel_yaml_type(y) != YAML_SEQUENCE_END_EVENT) {
        Entry r = {0};
        r.line = fennel_yaml_line(y);
        r.col = fennel_yaml_col(y);
        r.table = entries_new();
        g_array_append_val(e->ranges, r);
        if (fennel_yaml_type(y) != YAML_MAPPING_START_EVENT)
            return fennel_yaml_error(y, error,
                                     "%s.ranges: expected a range {from: SIZE, to: SIZE, "
                                     "PARAMETER: VALUE, ...}, got %s",
                                     section, fennel_yaml_describe(y));
        ok = read_entries(y, section, r.table, FALSE, error);
    }
    return ok && fennel_yaml_next(y, error);
}

/* Reads a mapping of scalars into entries (keys unique); with `sized`, a value may also be a
 * mapping (a table over sizes) and `ranges` a sequence of ranges. */
static gboolean read_entries(FennelYaml *y, const char *section, GArray *entries, gboolean sized,
                             GError **error)
{
    if (fennel_yaml_type(y) != YAML_MAPPING_START_EVENT)
        return fennel_yaml_error(y, error, "%s: expected a mapping, got %s", section,
                                 fennel_yaml_describe(y));
    gboolean ok = fennel_yaml_next(y, error);
    /* Keys seen, so that a section of many keys is not checked in quadratic time. */
    GHashTable *seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    while (ok && fennel_yaml_type(y) != YAML_MAPPING_END_EVENT) {
        Entry e = {0};
        if (fennel_yaml_type(y) != YAML_SCALAR_EVENT) {
            ok = fennel_yaml_error(y, error, "%s: expected a key, got %s", section,
                                   fennel_yaml_describe(y));
            break;
        }
        e.key = g_strdup(fennel_yaml_scalar(y));
        e.key_line = fennel_yaml_line(y);
        e.key_col = fennel_yaml_col(y);
        if (!g_hash_table_add(seen, g_strdup(e.key)))
            ok = fennel_yaml_error(y, error, "%s: duplicate key '%s'", section, e.key);
        if (ok)
            ok = fennel_yaml_next(y, error);
        if (ok) {
            e.line = fennel_yaml_line(y);
            e.col = fennel_yaml_col(y);
        }
        if (ok && sized && fennel_yaml_type(y) == YAML_MAPPING_START_EVENT) {
            char *where = g_strdup_printf("%s.%s", section, e.key);
            e.table = entries_new();
            ok = read_entries(y, where, e.table, FALSE, error);
            g_free(where);
        } else if (ok && sized && strcmp(e.key, "ranges") == 0 &&
                   fennel_yaml_type(y) == YAML_SEQUENCE_START_EVENT) {
            ok = read_ranges(y, section, &e, error);
        } else if (ok && fennel_yaml_type(y) != YAML_SCALAR_EVENT) {
            ok = fennel_yaml_error(y, error, "%s.%s: expected a value, got %s", section, e.key,
                                   fennel_yaml_describe(y));
        } else if (ok) {
            e.value = g_strdup(fennel_yaml_scalar(y));
            ok = fennel_yaml_next(y, error);
        }
        g_array_append_val(entries, e);
    }
    g_hash_table_destroy(seen);
    return ok && fennel_yaml_next(y, error);
}

/* An error at (line, col) of the file; returns FALSE. */
G_GNUC_PRINTF(5, 6)
static gboolean fail(FennelYaml *y, GError **error, unsigned line, unsigned col, const char *format,
                     ...)
{
    va_list args;
    va_start(args, format);
    char *text = g_strdup_vprintf(format, args);
    va_end(args);
    fennel_error_at(error, y->file, line, col, "%s", text);
    g_free(text);
    return FALSE;
}

/* Whether parameter `spec` may depend on the size; if not, an error at (line, col). */
static gboolean sizable(FennelYaml *y, const FennelParamSpec *spec, unsigned line, unsigned col,
                        GError **error)
{
    if (spec->kind != FENNEL_PARAM_SIZE)
        return TRUE;
    fennel_error_at(error, y->file, line, col,
                    "%s: a size threshold cannot depend on the message size", spec->name);
    return FALSE;
}

/* A table `{8B: 0.38us, 512B: 0.46us}`: sizes increasing, values of the parameter's kind. */
static gboolean parse_table(FennelYaml *y, const Entry *e, const FennelParamSpec *spec,
                            FennelParamTable **out, GError **error)
{
    if (!sizable(y, spec, e->key_line, e->key_col, error))
        return FALSE;
    if (e->table->len == 0) {
        fennel_error_at(error, y->file, e->line, e->col,
                        "%s: empty table (expected SIZE: VALUE pairs)", e->key);
        return FALSE;
    }
    FennelParamTable *t = fennel_param_table_new(e->table->len);
    for (guint i = 0; i < e->table->len; i++) {
        const Entry *p = &g_array_index(e->table, Entry, i);
        const char *why;
        FennelSizePoint *pt = &t->points[i];
        if (!fennel_parse_size(p->key, &pt->bytes, &why)) {
            fennel_error_at(error, y->file, p->key_line, p->key_col, "%s: size '%s': %s", e->key,
                            p->key, why);
        } else if (!fennel_param_parse(spec->kind, p->value, &pt->value, &why)) {
            fennel_error_at(error, y->file, p->line, p->col, "%s: %s", e->key, why);
        } else if (i > 0 && pt->bytes <= pt[-1].bytes) {
            fennel_error_at(error, y->file, p->key_line, p->key_col,
                            "%s: sizes must increase (%s after %" G_GINT64_FORMAT "B)", e->key,
                            p->key, pt[-1].bytes);
        } else {
            continue;
        }
        g_free(t);
        return FALSE;
    }
    *out = t;
    return TRUE;
}

static const Entry *find_entry(GArray *entries, const char *key)
{
    for (guint i = 0; i < entries->len; i++) {
        if (strcmp(g_array_index(entries, Entry, i).key, key) == 0)
            return &g_array_index(entries, Entry, i);
    }
    return NULL;
}

/* `ranges: [{from, to, PARAMETER: VALUE...}, ...]`: every range gives the same parameters,
 * each range starts where the previous one ends (`from` may be left out: 0B for the first
 * range, the previous `to` after), and only the last may leave `to` out. Each parameter
 * becomes a table that is constant over each range and steps at its ends. */
static gboolean apply_ranges(FennelYaml *y, FennelModel *m, gboolean intra, const Entry *e,
                             GArray *section_entries, const FennelParamSpec *specs, unsigned n,
                             GError **error)
{
    guint count = e->ranges->len;
    if (count == 0) {
        fennel_error_at(error, y->file, e->line, e->col, "ranges: empty list");
        return FALSE;
    }
    int64_t *from = g_new(int64_t, count), *to = g_new(int64_t, count);
    gboolean ok = TRUE;
    for (guint r = 0; ok && r < count; r++) {
        const Entry *range = &g_array_index(e->ranges, Entry, r);
        const Entry *f = find_entry(range->table, "from"), *t = find_entry(range->table, "to");
        const char *why;
        from[r] = r == 0 ? 0 : to[r - 1];
        to[r] = -1;
        if (f && !fennel_parse_size(f->value, &from[r], &why))
            ok = fail(y, error, f->line, f->col, "from: %s", why);
        else if (t && !fennel_parse_size(t->value, &to[r], &why))
            ok = fail(y, error, t->line, t->col, "to: %s", why);
        else if (r > 0 && f && from[r] != to[r - 1])
            ok = fail(y, error, f->line, f->col,
                      "from: a range starts where the previous one ends (%" G_GINT64_FORMAT "B)",
                      to[r - 1]);
        else if (t && to[r] <= from[r])
            ok = fail(y, error, t->line, t->col, "to: must be above from");
        else if (!t && r + 1 < count)
            ok = fail(y, error, range->line, range->col,
                      "ranges: only the last range may leave out 'to'");
    }
    const Entry *first = &g_array_index(e->ranges, Entry, 0);
    for (guint i = 0; ok && i < first->table->len; i++) {
        const Entry *key = &g_array_index(first->table, Entry, i);
        if (strcmp(key->key, "from") == 0 || strcmp(key->key, "to") == 0)
            continue;
        int k = fennel_param_find(specs, n, key->key);
        if (k < 0) {
            char *names = fennel_param_names(specs, n);
            ok = fail(y, error, key->key_line, key->key_col,
                      "ranges: unknown parameter '%s' (it has: from, to, %s)", key->key, names);
            g_free(names);
            break;
        }
        if (!sizable(y, &specs[k], key->key_line, key->key_col, error)) {
            ok = FALSE;
            break;
        }
        if (find_entry(section_entries, key->key)) {
            ok = fail(y, error, key->key_line, key->key_col,
                      "%s: given both in ranges and on its own", key->key);
            break;
        }
        gboolean open_end = to[count - 1] < 0;
        FennelParamTable *table = fennel_param_table_new(2 * count - open_end);
        uint32_t next = 0;
        for (guint r = 0; ok && r < count; r++) {
            const Entry *range = &g_array_index(e->ranges, Entry, r);
            const Entry *v = find_entry(range->table, key->key);
            const char *why;
            int64_t value = 0;
            if (v == NULL)
                ok = fail(y, error, range->line, range->col,
                          "ranges: missing '%s' (every range gives the same parameters)", key->key);
            else if (!fennel_param_parse(specs[k].kind, v->value, &value, &why))
                ok = fail(y, error, v->line, v->col, "%s: %s", v->key, why);
            table->points[next++] = (FennelSizePoint){from[r], value};
            if (to[r] >= 0)
                table->points[next++] = (FennelSizePoint){to[r], value};
        }
        if (ok)
            fennel_model_set_table(m, intra, (unsigned)k, table);
        else
            g_free(table);
    }
    /* A key of a later range that the first does not give. */
    for (guint r = 1; ok && r < count; r++) {
        const Entry *range = &g_array_index(e->ranges, Entry, r);
        for (guint i = 0; ok && i < range->table->len; i++) {
            const Entry *key = &g_array_index(range->table, Entry, i);
            if (find_entry(first->table, key->key) == NULL &&
                (strcmp(key->key, "from") != 0 && strcmp(key->key, "to") != 0))
                ok = fail(y, error, key->key_line, key->key_col,
                          "ranges: '%s' is not in the first range (every range gives "
                          "the same parameters)",
                          key->key);
        }
    }
    g_free(from);
    g_free(to);
    return ok;
}

typedef enum { SECTION_NETWORK, SECTION_INTRA, SECTION_COMPUTE } Section;

/* A model section: `model` first (intra defaults to postal), then the parameters. */
static gboolean read_section(FennelYaml *y, FennelModel *m, Section which, GError **error)
{
    static const char *const section_names[] = {"network", "intra", "compute"};
    const char *section = section_names[which];
    gboolean network = which != SECTION_COMPUTE;
    if (fennel_yaml_type(y) != YAML_MAPPING_START_EVENT)
        return fennel_yaml_error(y, error, "%s: expected a mapping with 'model', got %s", section,
                                 fennel_yaml_describe(y));
    unsigned line = fennel_yaml_line(y), col = fennel_yaml_col(y);
    GArray *entries = entries_new();
    gboolean ok = read_entries(y, section, entries, network, error);

    /* The model first: it decides which parameters exist. */
    const Entry *model = NULL;
    for (guint i = 0; ok && i < entries->len; i++) {
        if (strcmp(g_array_index(entries, Entry, i).key, "model") == 0)
            model = &g_array_index(entries, Entry, i);
    }
    if (ok && model == NULL && which != SECTION_INTRA) {
        fennel_error_at(error, y->file, line, col, "%s: missing 'model'", section);
        ok = FALSE;
    }
    if (ok && model && model->value == NULL)
        ok = fail(y, error, model->line, model->col, "%s.model: expected a model name", section);
    if (ok) {
        const char *name = model ? model->value : "postal";
        const FennelNetworkClass *nc = network ? fennel_network_class_find(name) : NULL;
        const FennelComputeClass *cc = network ? NULL : fennel_compute_class_find(name);
        if (nc && which == SECTION_INTRA)
            fennel_model_set_intra(m, nc);
        else if (nc)
            fennel_model_set_network(m, nc);
        else if (cc)
            fennel_model_set_compute(m, cc);
        else {
            char *known = fennel_model_class_names(network);
            fennel_error_at(error, y->file, model->line, model->col,
                            "unknown %s model '%s' (known: %s)", section, model->value, known);
            g_free(known);
            ok = FALSE;
        }
    }
    const FennelNetworkClass *nc = which == SECTION_INTRA ? m->intra_network : m->network;
    const FennelParamSpec *specs = network ? nc->params : m->compute->params;
    unsigned n = network ? nc->n_params : m->compute->n_params;
    int64_t *values = which == SECTION_INTRA ? m->intra : network ? m->net : m->comp;
    for (guint i = 0; ok && i < entries->len; i++) {
        const Entry *e = &g_array_index(entries, Entry, i);
        if (e == model)
            continue;
        if (e->ranges) {
            ok = apply_ranges(y, m, which == SECTION_INTRA, e, entries, specs, n, error);
            continue;
        }
        int k = fennel_param_find(specs, n, e->key);
        const char *why;
        if (k < 0) {
            char *known = fennel_param_names(specs, n);
            fennel_error_at(error, y->file, e->key_line, e->key_col,
                            "unknown parameter '%s' for %s model %s (it has: %s)", e->key, section,
                            network ? nc->name : m->compute->name, *known ? known : "none");
            g_free(known);
            ok = FALSE;
        } else if (e->table) {
            FennelParamTable *t = NULL;
            ok = parse_table(y, e, &specs[k], &t, error);
            if (ok) {
                values[k] = t->points[0].value;
                fennel_model_set_table(m, which == SECTION_INTRA, (unsigned)k, t);
            }
        } else if (!fennel_param_parse(specs[k].kind, e->value, &values[k], &why)) {
            fennel_error_at(error, y->file, e->line, e->col, "%s: %s", e->key, why);
            ok = FALSE;
        }
    }
    g_array_free(entries, TRUE);
    return ok;
}

/* noise: {network: {...}, host: {...}, compute: {...}} */
static gboolean read_noise(FennelYaml *y, FennelModel *m, GError **error)
{
    if (fennel_yaml_type(y) != YAML_MAPPING_START_EVENT)
        return fennel_yaml_error(y, error,
                                 "noise: expected a mapping of network, host, compute, "
                                 "got %s",
                                 fennel_yaml_describe(y));
    char *dir = g_path_get_dirname(y->file);
    gboolean ok = fennel_yaml_next(y, error);
    while (ok && fennel_yaml_type(y) != YAML_MAPPING_END_EVENT) {
        int stream = -1;
        for (int i = 0; fennel_yaml_type(y) == YAML_SCALAR_EVENT && i < FENNEL_NOISE_N_STREAMS;
             i++) {
            if (strcmp(fennel_yaml_scalar(y), fennel_noise_stream_name(i)) == 0)
                stream = i;
        }
        if (stream < 0) {
            ok = fennel_yaml_error(y, error,
                                   "noise: unknown stream %s%s%s (expected network, "
                                   "host or compute)",
                                   fennel_yaml_type(y) == YAML_SCALAR_EVENT ? "'" : "",
                                   fennel_yaml_type(y) == YAML_SCALAR_EVENT ? fennel_yaml_scalar(y)
                                                                            : "key",
                                   fennel_yaml_type(y) == YAML_SCALAR_EVENT ? "'" : "");
            break;
        }
        unsigned line = fennel_yaml_line(y), col = fennel_yaml_col(y);
        GArray *entries = entries_new();
        FennelNoise *n = &m->noise[stream];
        char *why = NULL;
        ok = fennel_yaml_next(y, error) && read_entries(y, "noise", entries, FALSE, error);
        /* The distribution first: it decides which parameters exist. */
        const Entry *dist = NULL;
        for (guint i = 0; ok && i < entries->len; i++) {
            if (strcmp(g_array_index(entries, Entry, i).key, "distribution") == 0)
                dist = &g_array_index(entries, Entry, i);
        }
        if (ok && dist == NULL) {
            fennel_error_at(error, y->file, line, col, "noise: %s: missing 'distribution'",
                            fennel_noise_stream_name(stream));
            ok = FALSE;
        }
        if (ok && !fennel_noise_set(n, "distribution", dist->value, dir, &why)) {
            fennel_error_at(error, y->file, dist->line, dist->col, "%s", why);
            ok = FALSE;
        }
        for (guint i = 0; ok && i < entries->len; i++) {
            const Entry *e = &g_array_index(entries, Entry, i);
            if (e != dist && !fennel_noise_set(n, e->key, e->value, dir, &why)) {
                fennel_error_at(error, y->file, e->key_line, e->key_col, "%s", why);
                ok = FALSE;
            }
        }
        if (ok && (why = fennel_noise_check(n)) != NULL) {
            fennel_error_at(error, y->file, line, col, "%s", why);
            ok = FALSE;
        }
        g_free(why);
        g_array_free(entries, TRUE);
    }
    g_free(dir);
    return ok && fennel_yaml_next(y, error);
}

/* placement: {ranks_per_node: K, order: ORDER, nic: own|shared} */
static gboolean read_placement(FennelYaml *y, FennelModel *m, GError **error)
{
    GArray *entries = entries_new();
    gboolean ok = read_entries(y, "placement", entries, FALSE, error);
    for (guint i = 0; ok && i < entries->len; i++) {
        const Entry *e = &g_array_index(entries, Entry, i);
        int64_t v;
        const char *why;
        char *order_why = NULL;
        if (strcmp(e->key, "order") == 0) {
            if (!fennel_model_set_order(m, e->value, &order_why)) {
                fennel_error_at(error, y->file, e->line, e->col, "%s", order_why);
                ok = FALSE;
            }
            g_free(order_why);
        } else if (strcmp(e->key, "nic") == 0) {
            if (!fennel_model_set_ports(m, "nic", e->value, &order_why)) {
                fennel_error_at(error, y->file, e->line, e->col, "%s", order_why);
                ok = FALSE;
            }
            g_free(order_why);
        } else if (strcmp(e->key, "ranks_per_node") != 0) {
            fennel_error_at(error, y->file, e->key_line, e->key_col,
                            "placement: unknown key '%s' (expected ranks_per_node, order, nic)",
                            e->key);
            ok = FALSE;
        } else if (!fennel_parse_int(e->value, 1, UINT32_MAX, &v, &why)) {
            fennel_error_at(error, y->file, e->line, e->col,
                            "ranks_per_node: expected a whole number >= 1");
            ok = FALSE;
        } else {
            m->ranks_per_node = (uint32_t)v;
        }
    }
    g_array_free(entries, TRUE);
    return ok;
}

/* gpu: {flops: 312TFLOP/s, memory_bandwidth: 1555GB/s} (model.h). */
static gboolean read_gpu(FennelYaml *y, FennelModel *m, GError **error)
{
    GArray *entries = entries_new();
    gboolean ok = read_entries(y, "gpu", entries, FALSE, error);
    for (guint i = 0; ok && i < entries->len; i++) {
        const Entry *e = &g_array_index(entries, Entry, i);
        const char *why;
        if (strcmp(e->key, "flops") == 0) {
            if (!fennel_parse_flops(e->value, &m->gpu_flops, &why)) {
                fennel_error_at(error, y->file, e->line, e->col, "flops: %s", why);
                ok = FALSE;
            }
        } else if (strcmp(e->key, "memory_bandwidth") == 0) {
            if (!fennel_parse_bandwidth(e->value, &m->gpu_memory, &why)) {
                fennel_error_at(error, y->file, e->line, e->col, "memory_bandwidth: %s", why);
                ok = FALSE;
            }
        } else {
            fennel_error_at(error, y->file, e->key_line, e->key_col,
                            "gpu: unknown key '%s' (expected flops, memory_bandwidth)", e->key);
            ok = FALSE;
        }
        m->gpu_given = TRUE;
    }
    g_array_free(entries, TRUE);
    return ok;
}

static const char *value_of_contention(const FennelModel *m)
{
    return fennel_contention_name(m->contention);
}

static gboolean read_model(FennelYaml *y, FennelModel *m, GError **error)
{
    if (fennel_yaml_type(y) != YAML_MAPPING_START_EVENT)
        return fennel_yaml_error(y, error,
                                 "expected a mapping with 'fennel: 1' and 'network', "
                                 "got %s",
                                 fennel_yaml_describe(y));
    unsigned line = fennel_yaml_line(y), col = fennel_yaml_col(y);
    gboolean seen_version = FALSE;
    unsigned intra_line = 0, intra_col = 0, placement_line = 0, placement_col = 0;
    unsigned contention_line = 0, contention_col = 0, ports_line = 0, ports_col = 0;
    GHashTable *seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    gboolean ok = fennel_yaml_next(y, error);
    while (ok && fennel_yaml_type(y) != YAML_MAPPING_END_EVENT) {
        if (fennel_yaml_type(y) != YAML_SCALAR_EVENT) {
            ok = fennel_yaml_error(y, error, "expected a key, got %s", fennel_yaml_describe(y));
            break;
        }
        char *key = g_strdup(fennel_yaml_scalar(y));
        if (g_hash_table_contains(seen, key)) {
            ok = fennel_yaml_error(y, error, "duplicate key '%s'", key);
            g_free(key);
            break;
        }
        g_hash_table_add(seen, key);
        static const char *const known[] = {"fennel",      "network",    "compute",    "noise",
                                            "placement",   "intra",      "resolution", "name",
                                            "description", "topology",   "contention", "ordering",
                                            "gpu",         "stragglers", "faults",     "duplex"};
        gboolean is_known = FALSE;
        for (size_t i = 0; i < G_N_ELEMENTS(known); i++)
            is_known |= strcmp(key, known[i]) == 0;
        if (!is_known) {
            /* A program given as the model is a likely mix-up: say so. */
            gboolean program = strcmp(key, "tasks") == 0 || strcmp(key, "ranks") == 0 ||
                               strcmp(key, "processes") == 0;
            ok = fennel_yaml_error(
                y, error,
                "unknown key '%s' (expected one of: fennel, network, compute, "
                "noise, placement, intra, topology, contention, ordering, "
                "gpu, stragglers, faults, duplex, resolution, name, description)%s",
                key, program ? "; this looks like a program file" : "");
            break;
        }
        if (strcmp(key, "intra") == 0) {
            intra_line = fennel_yaml_line(y);
            intra_col = fennel_yaml_col(y);
        }
        if (strcmp(key, "placement") == 0 || strcmp(key, "duplex") == 0) {
            ports_line = fennel_yaml_line(y);
            ports_col = fennel_yaml_col(y);
        }
        if (strcmp(key, "placement") == 0) {
            placement_line = fennel_yaml_line(y);
            placement_col = fennel_yaml_col(y);
        }
        ok = fennel_yaml_next(y, error);
        if (!ok)
            break;
        if (strcmp(key, "intra") == 0 && fennel_yaml_type(y) == YAML_SCALAR_EVENT) {
            if (strcmp(fennel_yaml_scalar(y), "same") != 0) {
                ok = fennel_yaml_error(y, error,
                                       "intra: expected a model section or 'same', got '%s'",
                                       fennel_yaml_scalar(y));
                break;
            }
            m->intra_given = m->intra_same = TRUE;
            ok = fennel_yaml_next(y, error);
            continue;
        }
        if (strcmp(key, "intra") == 0)
            m->intra_given = TRUE;
        if (strcmp(key, "network") == 0 || strcmp(key, "compute") == 0 ||
            strcmp(key, "intra") == 0) {
            ok = read_section(y, m,
                              key[0] == 'n'   ? SECTION_NETWORK
                              : key[0] == 'i' ? SECTION_INTRA
                                              : SECTION_COMPUTE,
                              error);
            continue;
        }
        if (strcmp(key, "noise") == 0) {
            ok = read_noise(y, m, error);
            continue;
        }
        if (strcmp(key, "placement") == 0) {
            ok = read_placement(y, m, error);
            continue;
        }
        if (strcmp(key, "topology") == 0) {
            ok = fennel_topology_read(y, &m->topology, error);
            continue;
        }
        if (strcmp(key, "gpu") == 0) {
            ok = read_gpu(y, m, error);
            continue;
        }
        if (strcmp(key, "stragglers") == 0) {
            ok = fennel_stragglers_read(y, &m->stragglers, error);
            continue;
        }
        if (strcmp(key, "faults") == 0) {
            ok = fennel_faults_read(y, &m->faults, error);
            continue;
        }
        if (fennel_yaml_type(y) != YAML_SCALAR_EVENT) {
            ok = fennel_yaml_error(y, error, "%s: expected a value, got %s", key,
                                   fennel_yaml_describe(y));
            break;
        }
        const char *value = fennel_yaml_scalar(y);
        int64_t v;
        const char *why;
        if (strcmp(key, "fennel") == 0) {
            seen_version = TRUE;
            if (!fennel_parse_int(value, 1, 1, &v, &why))
                ok = fennel_yaml_error(
                    y, error, "fennel: unsupported format version (this fennel reads version 1)");
        } else if (strcmp(key, "ordering") == 0) {
            if (!fennel_ordering_parse(value, &m->ordering))
                ok = fennel_yaml_error(
                    y, error, "ordering: unknown order '%s' (known: fennel, loggopsim)", value);
        } else if (strcmp(key, "contention") == 0) {
            contention_line = fennel_yaml_line(y);
            contention_col = fennel_yaml_col(y);
            if (!fennel_contention_parse(value, &m->contention)) {
                char *names = fennel_contention_names();
                ok = fennel_yaml_error(y, error, "contention: unknown level '%s' (known: %s)",
                                       value, names);
                g_free(names);
            }
        } else if (strcmp(key, "duplex") == 0) {
            char *duplex_why = NULL;
            if (!fennel_model_set_ports(m, "duplex", value, &duplex_why))
                ok = fennel_yaml_error(y, error, "%s", duplex_why);
            g_free(duplex_why);
        } else if (strcmp(key, "resolution") == 0) {
            if (!fennel_parse_duration(value, &v, &why))
                ok = fennel_yaml_error(y, error, "resolution: %s", why);
            else if (v <= 0)
                ok = fennel_yaml_error(y, error, "resolution: must be positive");
            else {
                m->resolution = v;
                m->resolution_explicit = TRUE;
            }
        }
        if (ok)
            ok = fennel_yaml_next(y, error);
    }
    g_hash_table_destroy(seen);
    if (ok && placement_line && fennel_model_placement_problem(m)) {
        fennel_error_at(error, y->file, placement_line, placement_col, "placement: %s",
                        fennel_model_placement_problem(m));
        ok = FALSE;
    }
    if (ok && intra_line && m->ranks_per_node == 0) {
        fennel_error_at(error, y->file, intra_line, intra_col,
                        "intra: needs placement: {ranks_per_node: K} to say which ranks share a "
                        "node");
        ok = FALSE;
    }
    if (ok && contention_line && m->contention != FENNEL_CONTENTION_NONE && m->topology == NULL) {
        fennel_error_at(error, y->file, contention_line, contention_col,
                        "contention: %s needs a topology section", value_of_contention(m));
        ok = FALSE;
    }
    if (ok && fennel_faults_any(m->faults) && m->topology == NULL) {
        fennel_error_at(error, y->file, m->faults->line, m->faults->col,
                        "faults: links and NICs fail on a topology (a topology section)");
        ok = FALSE;
    }
    char *ports = ok ? fennel_model_ports_problem(m) : NULL;
    if (ports) {
        fennel_error_at(error, y->file, ports_line, ports_col, "%s", ports);
        g_free(ports);
        ok = FALSE;
    }
    if (ok && !seen_version) {
        fennel_error_at(error, y->file, line, col, "missing 'fennel: 1' (the format version)");
        ok = FALSE;
    }
    return ok && fennel_yaml_next(y, error) && fennel_yaml_finish(y, error);
}

gboolean fennel_model_read(FennelModel *m, const char *file, GError **error)
{
    FennelYaml y;
    gboolean ok = fennel_yaml_open(&y, file, error) && read_model(&y, m, error);
    fennel_yaml_close(&y);
    return ok;
}

gboolean fennel_model_parse(FennelModel *m, const char *name, const char *data, gsize length,
                            GError **error)
{
    FennelYaml y;
    gboolean ok = fennel_yaml_open_data(&y, name, data, length, error) && read_model(&y, m, error);
    fennel_yaml_close(&y);
    return ok;
}
