/* The model file reader (docs/SEMANTICS.md): `network` and `compute` sections, each naming its
 * model and giving its parameters, and an optional `resolution`. */
#include "errors.h"
#include "model.h"
#include "yaml_reader.h"

#include <string.h>

typedef struct {
    char *key, *value;
    unsigned key_line, key_col, line, col;
} Entry;

static void entry_clear(gpointer p)
{
    Entry *e = p;
    g_free(e->key);
    g_free(e->value);
}

/* Reads a mapping of scalars into entries (keys unique). */
static gboolean read_entries(FennelYaml *y, const char *section, GArray *entries, GError **error)
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
        if (ok && fennel_yaml_type(y) != YAML_SCALAR_EVENT)
            ok = fennel_yaml_error(y, error, "%s.%s: expected a value, got %s", section, e.key,
                                   fennel_yaml_describe(y));
        if (ok) {
            e.value = g_strdup(fennel_yaml_scalar(y));
            e.line = fennel_yaml_line(y);
            e.col = fennel_yaml_col(y);
            ok = fennel_yaml_next(y, error);
        }
        g_array_append_val(entries, e);
    }
    g_hash_table_destroy(seen);
    return ok && fennel_yaml_next(y, error);
}

typedef enum { SECTION_NETWORK, SECTION_INTRA, SECTION_COMPUTE } Section;

/* A model section: `model` first (intra defaults to postal), then the parameters. */
static gboolean read_section(FennelYaml *y, FennelModel *m, Section which, GError **error)
{
    static const char *const names[] = {"network", "intra", "compute"};
    const char *section = names[which];
    gboolean network = which != SECTION_COMPUTE;
    if (fennel_yaml_type(y) != YAML_MAPPING_START_EVENT)
        return fennel_yaml_error(y, error, "%s: expected a mapping with 'model', got %s", section,
                                 fennel_yaml_describe(y));
    unsigned line = fennel_yaml_line(y), col = fennel_yaml_col(y);
    GArray *entries = g_array_new(FALSE, TRUE, sizeof(Entry));
    g_array_set_clear_func(entries, entry_clear);
    gboolean ok = read_entries(y, section, entries, error);

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
            char *names = fennel_model_class_names(network);
            fennel_error_at(error, y->file, model->line, model->col,
                            "unknown %s model '%s' (known: %s)", section, model->value, names);
            g_free(names);
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
        int k = fennel_param_find(specs, n, e->key);
        const char *why;
        if (k < 0) {
            char *names = fennel_param_names(specs, n);
            fennel_error_at(error, y->file, e->key_line, e->key_col,
                            "unknown parameter '%s' for %s model %s (it has: %s)", e->key, section,
                            network ? nc->name : m->compute->name, *names ? names : "none");
            g_free(names);
            ok = FALSE;
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
        GArray *entries = g_array_new(FALSE, TRUE, sizeof(Entry));
        g_array_set_clear_func(entries, entry_clear);
        FennelNoise *n = &m->noise[stream];
        char *why = NULL;
        ok = fennel_yaml_next(y, error) && read_entries(y, "noise", entries, error);
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

/* placement: {ranks_per_node: K} */
static gboolean read_placement(FennelYaml *y, FennelModel *m, GError **error)
{
    GArray *entries = g_array_new(FALSE, TRUE, sizeof(Entry));
    g_array_set_clear_func(entries, entry_clear);
    gboolean ok = read_entries(y, "placement", entries, error);
    for (guint i = 0; ok && i < entries->len; i++) {
        const Entry *e = &g_array_index(entries, Entry, i);
        int64_t v;
        const char *why;
        if (strcmp(e->key, "ranks_per_node") != 0) {
            fennel_error_at(error, y->file, e->key_line, e->key_col,
                            "placement: unknown key '%s' (expected ranks_per_node)", e->key);
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

static gboolean read_model(FennelYaml *y, FennelModel *m, GError **error)
{
    if (fennel_yaml_type(y) != YAML_MAPPING_START_EVENT)
        return fennel_yaml_error(y, error,
                                 "expected a mapping with 'fennel: 1' and 'network', "
                                 "got %s",
                                 fennel_yaml_describe(y));
    unsigned line = fennel_yaml_line(y), col = fennel_yaml_col(y);
    gboolean seen_version = FALSE;
    unsigned intra_line = 0, intra_col = 0;
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
        static const char *const known[] = {"fennel",     "network",   "compute",
                                            "noise",      "placement", "intra",
                                            "resolution", "name",      "description"};
        gboolean is_known = FALSE;
        for (size_t i = 0; i < G_N_ELEMENTS(known); i++)
            is_known |= strcmp(key, known[i]) == 0;
        if (!is_known) {
            /* A program given as the model is a likely mix-up: say so. */
            gboolean program = strcmp(key, "tasks") == 0 || strcmp(key, "ranks") == 0 ||
                               strcmp(key, "processes") == 0;
            ok = fennel_yaml_error(y, error,
                                   "unknown key '%s' (expected one of: fennel, network, compute, "
                                   "noise, placement, intra, resolution, name, description)%s",
                                   key, program ? "; this looks like a program file" : "");
            break;
        }
        if (strcmp(key, "intra") == 0) {
            intra_line = fennel_yaml_line(y);
            intra_col = fennel_yaml_col(y);
        }
        ok = fennel_yaml_next(y, error);
        if (!ok)
            break;
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
    if (ok && intra_line && m->ranks_per_node == 0) {
        fennel_error_at(error, y->file, intra_line, intra_col,
                        "intra: needs placement: {ranks_per_node: K} to say which ranks share a "
                        "node");
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
