/* The model file's `topology:` section (docs/TOPOLOGY.md): scalars, a mapping per level
 * (`node: {bandwidth: 200Gbit/s}`) and `dims`, a list of sizes (torus) or of dimensions
 * (dims). Everything becomes the flat keys of fennel_topology_set, so that the file and
 * `--set topology.KEY=VALUE` mean the same. */
#include "errors.h"
#include "topology.h"

#include <string.h>

typedef struct {
    char *key, *value;
    unsigned key_line, key_col, line, col;
} Key;

static void key_clear(gpointer p)
{
    Key *k = p;
    g_free(k->key);
    g_free(k->value);
}

static void add(GArray *keys, char *key, const char *value, unsigned kl, unsigned kc, unsigned l,
                unsigned c)
{
    Key k = {key, g_strdup(value), kl, kc, l, c};
    g_array_append_val(keys, k);
}

/* A mapping of scalars under `prefix.` (a level or one dimension). */
static gboolean read_level(FennelYaml *y, const char *prefix, GArray *keys, GError **error)
{
    gboolean ok = fennel_yaml_next(y, error);
    while (ok && fennel_yaml_type(y) != YAML_MAPPING_END_EVENT) {
        if (fennel_yaml_type(y) != YAML_SCALAR_EVENT)
            return fennel_yaml_error(y, error, "topology.%s: expected a key, got %s", prefix,
                                     fennel_yaml_describe(y));
        char *key = g_strdup_printf("%s.%s", prefix, fennel_yaml_scalar(y));
        unsigned kl = fennel_yaml_line(y), kc = fennel_yaml_col(y);
        if (!fennel_yaml_next(y, error)) {
            g_free(key);
            return FALSE;
        }
        if (fennel_yaml_type(y) != YAML_SCALAR_EVENT) {
            fennel_yaml_error(y, error, "topology.%s: expected a value, got %s", key,
                              fennel_yaml_describe(y));
            g_free(key);
            return FALSE;
        }
        add(keys, key, fennel_yaml_scalar(y), kl, kc, fennel_yaml_line(y), fennel_yaml_col(y));
        ok = fennel_yaml_next(y, error);
    }
    return ok && fennel_yaml_next(y, error);
}

/* `dims: [4, 4, 4]` or `dims: [{size: 8, shape: switch, ...}, ...]`. */
static gboolean read_dims(FennelYaml *y, GArray *keys, unsigned kl, unsigned kc, GError **error)
{
    unsigned line = fennel_yaml_line(y), col = fennel_yaml_col(y);
    GString *sizes = g_string_new(NULL);
    unsigned index = 0;
    gboolean ok = fennel_yaml_next(y, error);
    while (ok && fennel_yaml_type(y) != YAML_SEQUENCE_END_EVENT) {
        if (fennel_yaml_type(y) == YAML_SCALAR_EVENT) {
            g_string_append_printf(sizes, "%s%s", sizes->len ? "x" : "", fennel_yaml_scalar(y));
            ok = fennel_yaml_next(y, error);
        } else if (fennel_yaml_type(y) == YAML_MAPPING_START_EVENT) {
            char *prefix = g_strdup_printf("dim%u", index);
            ok = read_level(y, prefix, keys, error);
            g_free(prefix);
        } else {
            ok = fennel_yaml_error(y, error,
                                   "topology.dims: expected a size or a dimension {size, shape, "
                                   "bandwidth, latency}, got %s",
                                   fennel_yaml_describe(y));
        }
        index++;
    }
    if (ok && sizes->len)
        add(keys, g_strdup("dims"), sizes->str, kl, kc, line, col);
    g_string_free(sizes, TRUE);
    return ok && fennel_yaml_next(y, error);
}

static gboolean read_keys(FennelYaml *y, GArray *keys, GError **error)
{
    gboolean ok = fennel_yaml_next(y, error);
    GHashTable *seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    while (ok && fennel_yaml_type(y) != YAML_MAPPING_END_EVENT) {
        if (fennel_yaml_type(y) != YAML_SCALAR_EVENT) {
            ok = fennel_yaml_error(y, error, "topology: expected a key, got %s",
                                   fennel_yaml_describe(y));
            break;
        }
        char *key = g_strdup(fennel_yaml_scalar(y));
        unsigned kl = fennel_yaml_line(y), kc = fennel_yaml_col(y);
        if (!g_hash_table_add(seen, g_strdup(key)))
            ok = fennel_yaml_error(y, error, "topology: duplicate key '%s'", key);
        ok = ok && fennel_yaml_next(y, error);
        if (ok && fennel_yaml_type(y) == YAML_SCALAR_EVENT) {
            add(keys, key, fennel_yaml_scalar(y), kl, kc, fennel_yaml_line(y), fennel_yaml_col(y));
            key = NULL;
            ok = fennel_yaml_next(y, error);
        } else if (ok && fennel_yaml_type(y) == YAML_MAPPING_START_EVENT) {
            ok = read_level(y, key, keys, error);
        } else if (ok && fennel_yaml_type(y) == YAML_SEQUENCE_START_EVENT &&
                   strcmp(key, "dims") == 0) {
            ok = read_dims(y, keys, kl, kc, error);
        } else if (ok) {
            ok = fennel_yaml_error(y, error, "topology.%s: expected a value, got %s", key,
                                   fennel_yaml_describe(y));
        }
        g_free(key);
    }
    g_hash_table_destroy(seen);
    return ok && fennel_yaml_next(y, error);
}

gboolean fennel_topology_read(FennelYaml *y, FennelTopology **out, GError **error)
{
    if (fennel_yaml_type(y) != YAML_MAPPING_START_EVENT)
        return fennel_yaml_error(y, error, "topology: expected a mapping with 'kind', got %s",
                                 fennel_yaml_describe(y));
    unsigned line = fennel_yaml_line(y), col = fennel_yaml_col(y);
    GArray *keys = g_array_new(FALSE, TRUE, sizeof(Key));
    g_array_set_clear_func(keys, key_clear);
    gboolean ok = read_keys(y, keys, error);
    const Key *kind = NULL;
    for (guint i = 0; ok && i < keys->len; i++) {
        if (strcmp(g_array_index(keys, Key, i).key, "kind") == 0)
            kind = &g_array_index(keys, Key, i);
    }
    if (ok && kind == NULL) {
        fennel_error_at(error, y->file, line, col,
                        "topology: missing 'kind' (switch, fat-tree, torus, dragonfly, dims, "
                        "rail or graph)");
        ok = FALSE;
    }
    FennelTopology *t = fennel_topology_new(FENNEL_TOPOLOGY_SWITCH);
    char *why = NULL;
    gboolean unknown;
    if (ok && !fennel_topology_set(t, "kind", kind->value, &unknown, &why)) {
        fennel_error_at(error, y->file, kind->line, kind->col, "%s", why);
        ok = FALSE;
    }
    for (guint i = 0; ok && i < keys->len; i++) {
        const Key *k = &g_array_index(keys, Key, i);
        if (k == kind)
            continue;
        g_clear_pointer(&why, g_free);
        if (strcmp(k->key, "file") == 0 && t->kind == FENNEL_TOPOLOGY_GRAPH) {
            /* A graph file is found next to the model file; its errors are its own. */
            char *dir = g_path_get_dirname(y->file);
            char *path = g_path_is_absolute(k->value) ? g_strdup(k->value)
                                                      : g_build_filename(dir, k->value, NULL);
            ok = fennel_topology_load_graph(t, path, error);
            g_free(path);
            g_free(dir);
            continue;
        }
        if (!fennel_topology_set(t, k->key, k->value, &unknown, &why)) {
            fennel_error_at(error, y->file, unknown ? k->key_line : k->line,
                            unknown ? k->key_col : k->col, "%s", why);
            ok = FALSE;
        }
    }
    g_clear_pointer(&why, g_free);
    t->kind_key[0] = '\0'; /* a --set topology.kind after the file's section replaces it */
    if (ok && (why = fennel_topology_problem(t)) != NULL) {
        /* At the key the problem names, else at the section. */
        const Key *at = NULL;
        for (guint i = 0; i < keys->len; i++) {
            const Key *k = &g_array_index(keys, Key, i);
            char *name = g_strdup_printf("topology.%s:", k->key);
            if (g_str_has_prefix(why, name))
                at = k;
            g_free(name);
        }
        fennel_error_at(error, y->file, at ? at->key_line : line, at ? at->key_col : col, "%s",
                        why);
        ok = FALSE;
    }
    g_free(why);
    /* A node count that does not fit is found later, when the program's is known: it is
     * reported at the key that sizes the topology, else at the section. */
    static const char *const sizing[] = {"nodes", "radix", "dims", "dim0.size", "groups"};
    for (guint i = 0; i < keys->len; i++) {
        const Key *k = &g_array_index(keys, Key, i);
        for (size_t j = 0; j < G_N_ELEMENTS(sizing); j++) {
            if (strcmp(k->key, sizing[j]) == 0) {
                line = k->key_line;
                col = k->key_col;
            }
        }
    }
    g_array_free(keys, TRUE);
    if (!ok) {
        fennel_topology_free(t);
        return FALSE;
    }
    t->file = g_strdup(y->file);
    t->line = line;
    t->col = col;
    fennel_topology_free(*out);
    *out = t;
    return TRUE;
}
