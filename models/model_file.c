/* The model file reader (SPEC §5): `network` and `compute` sections, each naming its
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

/* Reads a section mapping of scalars: `model` first, then the parameters. */
static gboolean read_section(FennelYaml *y, FennelModel *m, gboolean network, GError **error)
{
    const char *section = network ? "network" : "compute";
    if (fennel_yaml_type(y) != YAML_MAPPING_START_EVENT)
        return fennel_yaml_error(y, error, "%s: expected a mapping with 'model', got %s", section,
                                 fennel_yaml_describe(y));
    unsigned line = fennel_yaml_line(y), col = fennel_yaml_col(y);
    GArray *entries = g_array_new(FALSE, TRUE, sizeof(Entry));
    g_array_set_clear_func(entries, entry_clear);
    gboolean ok = fennel_yaml_next(y, error);
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
        for (guint i = 0; i < entries->len; i++) {
            if (strcmp(g_array_index(entries, Entry, i).key, e.key) == 0) {
                ok = fennel_yaml_error(y, error, "%s: duplicate key '%s'", section, e.key);
                break;
            }
        }
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
    if (ok)
        ok = fennel_yaml_next(y, error);

    /* The model first: it decides which parameters exist. */
    const Entry *model = NULL;
    for (guint i = 0; ok && i < entries->len; i++) {
        if (strcmp(g_array_index(entries, Entry, i).key, "model") == 0)
            model = &g_array_index(entries, Entry, i);
    }
    if (ok && model == NULL) {
        fennel_error_at(error, y->file, line, col, "%s: missing 'model'", section);
        ok = FALSE;
    }
    if (ok) {
        const FennelNetworkClass *nc = network ? fennel_network_class_find(model->value) : NULL;
        const FennelComputeClass *cc = network ? NULL : fennel_compute_class_find(model->value);
        if (nc)
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
    const FennelParamSpec *specs = network ? m->network->params : m->compute->params;
    unsigned n = network ? m->network->n_params : m->compute->n_params;
    int64_t *values = network ? m->net : m->comp;
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
                            network ? m->network->name : m->compute->name, *names ? names : "none");
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

static gboolean read_model(FennelYaml *y, FennelModel *m, GError **error)
{
    if (fennel_yaml_type(y) != YAML_MAPPING_START_EVENT)
        return fennel_yaml_error(y, error,
                                 "expected a mapping with 'fennel: 1' and 'network', "
                                 "got %s",
                                 fennel_yaml_describe(y));
    unsigned line = fennel_yaml_line(y), col = fennel_yaml_col(y);
    gboolean seen_version = FALSE;
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
        gboolean known = strcmp(key, "fennel") == 0 || strcmp(key, "network") == 0 ||
                         strcmp(key, "compute") == 0 || strcmp(key, "resolution") == 0 ||
                         strcmp(key, "name") == 0 || strcmp(key, "description") == 0;
        if (!known) {
            ok = fennel_yaml_error(y, error,
                                   "unknown key '%s' (expected one of: fennel, network, compute, "
                                   "resolution, name, description)",
                                   key);
            break;
        }
        ok = fennel_yaml_next(y, error);
        if (!ok)
            break;
        if (strcmp(key, "network") == 0 || strcmp(key, "compute") == 0) {
            ok = read_section(y, m, key[0] == 'n', error);
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
