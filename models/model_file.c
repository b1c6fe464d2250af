/* The model file reader (docs/SEMANTICS.md): `network` and `compute` sections, each naming its
 * model and giving its parameters, and an optional `resolution`. */
#include "errors.h"
#include "model_private.h"

#include <string.h>

typedef FennelModelEntry Entry;

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

GArray *fennel__model_entries_new(void)
{
    GArray *entries = g_array_new(FALSE, TRUE, sizeof(Entry));
    g_array_set_clear_func(entries, entry_clear);
    return entries;
}

/* `ranges:` a sequence of mappings of scalars. */
static gboolean read_ranges(FennelYaml *y, const char *section, Entry *e, GError **error)
{
    e->ranges = fennel__model_entries_new();
    gboolean ok = fennel_yaml_next(y, error);
    while (ok && fennel_yaml_type(y) != YAML_SEQUENCE_END_EVENT) {
        Entry r = {0};
        r.line = fennel_yaml_line(y);
        r.col = fennel_yaml_col(y);
        r.table = fennel__model_entries_new();
        g_array_append_val(e->ranges, r);
        if (fennel_yaml_type(y) != YAML_MAPPING_START_EVENT)
            return fennel_yaml_error(y, error,
                                     "%s.ranges: expected a range {from: SIZE, to: SIZE, "
                                     "PARAMETER: VALUE, ...}, got %s",
                                     section, fennel_yaml_describe(y));
        ok = fennel__model_read_entries(y, section, r.table, FENNEL_ENTRIES_SCALARS, NULL, error);
    }
    return ok && fennel_yaml_next(y, error);
}

/* A list of scalars joined with `join`. */
static gboolean read_list(FennelYaml *y, const char *section, Entry *e, const char *join,
                          GError **error)
{
    GString *joined = g_string_new(NULL);
    gboolean ok = fennel_yaml_next(y, error);
    while (ok && fennel_yaml_type(y) == YAML_SCALAR_EVENT) {
        g_string_append_printf(joined, "%s%s", joined->len ? join : "", fennel_yaml_scalar(y));
        ok = fennel_yaml_next(y, error);
    }
    if (ok && fennel_yaml_type(y) != YAML_SEQUENCE_END_EVENT)
        ok = fennel_yaml_error(y, error, "%s.%s: expected a value, got %s", section, e->key,
                               fennel_yaml_describe(y));
    e->value = g_string_free(joined, FALSE);
    return ok && fennel_yaml_next(y, error);
}

gboolean fennel__model_read_entries(FennelYaml *y, const char *section, GArray *entries,
                                    FennelEntriesShape shape, const char *join, GError **error)
{
    if (fennel_yaml_type(y) != YAML_MAPPING_START_EVENT)
        return fennel_yaml_error(y, error, "%s: expected a mapping, got %s", section,
                                 fennel_yaml_describe(y));
    gboolean ok = fennel_yaml_next(y, error);
    /* Keys seen, so that a section of many keys is not checked in quadratic time. */
    GHashTable *seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    gboolean sized = shape == FENNEL_ENTRIES_SIZED, lists = shape == FENNEL_ENTRIES_LISTS;
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
            e.table = fennel__model_entries_new();
            ok = fennel__model_read_entries(y, where, e.table, FENNEL_ENTRIES_SCALARS, NULL, error);
            g_free(where);
        } else if (ok && sized && strcmp(e.key, "ranges") == 0 &&
                   fennel_yaml_type(y) == YAML_SEQUENCE_START_EVENT) {
            ok = read_ranges(y, section, &e, error);
        } else if (ok && lists && fennel_yaml_type(y) == YAML_SEQUENCE_START_EVENT) {
            ok = read_list(y, section, &e, join, error);
        } else if (ok && fennel_yaml_type(y) != YAML_SCALAR_EVENT) {
            ok = fennel_yaml_error(y, error, "%s.%s: expected a value%s, got %s", section, e.key,
                                   lists ? " or a list" : "", fennel_yaml_describe(y));
        } else if (ok) {
            e.value = g_strdup(fennel_yaml_scalar(y));
            ok = fennel_yaml_next(y, error);
        }
        g_array_append_val(entries, e);
    }
    g_hash_table_destroy(seen);
    return ok && fennel_yaml_next(y, error);
}

const FennelModelEntry *fennel__model_entry_find(GArray *entries, const char *key)
{
    for (guint i = 0; i < entries->len; i++) {
        if (strcmp(g_array_index(entries, Entry, i).key, key) == 0)
            return &g_array_index(entries, Entry, i);
    }
    return NULL;
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
        const Entry *f = fennel__model_entry_find(range->table, "from"),
                    *t = fennel__model_entry_find(range->table, "to");
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
        if (fennel__model_entry_find(section_entries, key->key)) {
            ok = fail(y, error, key->key_line, key->key_col,
                      "%s: given both in ranges and on its own", key->key);
            break;
        }
        gboolean open_end = to[count - 1] < 0;
        FennelParamTable *table = fennel_param_table_new(2 * count - open_end);
        uint32_t next = 0;
        for (guint r = 0; ok && r < count; r++) {
            const Entry *range = &g_array_index(e->ranges, Entry, r);
            const Entry *v = fennel__model_entry_find(range->table, key->key);
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
            if (fennel__model_entry_find(first->table, key->key) == NULL &&
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
    GArray *entries = fennel__model_entries_new();
    gboolean ok = fennel__model_read_entries(
        y, section, entries, network ? FENNEL_ENTRIES_SIZED : FENNEL_ENTRIES_SCALARS, NULL, error);

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
gboolean fennel__model_read_noise(FennelYaml *y, FennelModel *m, GError **error)
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
        GArray *entries = fennel__model_entries_new();
        FennelNoise *n = &m->noise[stream];
        char *why = NULL;
        ok = fennel_yaml_next(y, error) &&
             fennel__model_read_entries(y, "noise", entries, FENNEL_ENTRIES_SCALARS, NULL, error);
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

gboolean fennel__model_read_network(FennelYaml *y, FennelModel *m, GError **error)
{
    return read_section(y, m, SECTION_NETWORK, error);
}

gboolean fennel__model_read_compute(FennelYaml *y, FennelModel *m, GError **error)
{
    return read_section(y, m, SECTION_COMPUTE, error);
}

/* intra: a model section, or `same`. */
gboolean fennel__model_read_intra(FennelYaml *y, FennelModel *m, GError **error)
{
    m->intra_given = TRUE;
    if (fennel_yaml_type(y) != YAML_SCALAR_EVENT)
        return read_section(y, m, SECTION_INTRA, error);
    if (strcmp(fennel_yaml_scalar(y), "same") != 0)
        return fennel_yaml_error(y, error, "intra: expected a model section or 'same', got '%s'",
                                 fennel_yaml_scalar(y));
    m->intra_same = TRUE;
    return fennel_yaml_next(y, error);
}

gboolean fennel__model_read_topology(FennelYaml *y, FennelModel *m, GError **error)
{
    return fennel_topology_read(y, &m->topology, error);
}

/* A section of values (the table's `read` is NULL): each key set through the table's
 * setter, as `--set KEY.SUB=VALUE` would, errors at the key when the section has no such
 * key and at the value when it is bad. */
static gboolean read_values(FennelYaml *y, FennelModel *m, const FennelModelKey *key,
                            GError **error)
{
    GArray *entries = fennel__model_entries_new();
    gboolean ok =
        fennel__model_read_entries(y, key->name, entries, FENNEL_ENTRIES_SCALARS, NULL, error);
    for (guint i = 0; ok && i < entries->len; i++) {
        const Entry *e = &g_array_index(entries, Entry, i);
        FennelModelSetting s = {e->key, e->value, e->key, y->file};
        gboolean unknown = FALSE;
        char *why = NULL;
        if (!key->set(m, &s, &unknown, &why)) {
            ok = fail(y, error, unknown ? e->key_line : e->line, unknown ? e->key_col : e->col,
                      "%s", why);
            g_free(why);
        }
    }
    g_array_free(entries, TRUE);
    return ok;
}

/* Where a key of the file is: its key and its value. */
typedef struct {
    unsigned key_line, key_col, line, col;
} Place;

static gboolean read_model(FennelYaml *y, FennelModel *m, GError **error)
{
    if (fennel_yaml_type(y) != YAML_MAPPING_START_EVENT)
        return fennel_yaml_error(y, error,
                                 "expected a mapping with 'fennel: 1' and 'network', "
                                 "got %s",
                                 fennel_yaml_describe(y));
    unsigned line = fennel_yaml_line(y), col = fennel_yaml_col(y);
    const FennelModelKey *version = fennel_model_key_find("fennel"),
                         *intra = fennel_model_key_find("intra"),
                         *placement = fennel_model_key_find("placement"),
                         *contention = fennel_model_key_find("contention");
    Place *places = g_new0(Place, fennel_model_n_keys); /* line 0: not given */
    GHashTable *seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    gboolean ok = fennel_yaml_next(y, error);
    while (ok && fennel_yaml_type(y) != YAML_MAPPING_END_EVENT) {
        if (fennel_yaml_type(y) != YAML_SCALAR_EVENT) {
            ok = fennel_yaml_error(y, error, "expected a key, got %s", fennel_yaml_describe(y));
            break;
        }
        const char *name = fennel_yaml_scalar(y);
        if (!g_hash_table_add(seen, g_strdup(name))) {
            ok = fennel_yaml_error(y, error, "duplicate key '%s'", name);
            break;
        }
        const FennelModelKey *key = fennel_model_key_find(name);
        if (key == NULL) {
            /* A program given as the model is a likely mix-up: say so. */
            gboolean program = strcmp(name, "tasks") == 0 || strcmp(name, "ranks") == 0 ||
                               strcmp(name, "processes") == 0;
            char *names = fennel_model_key_names();
            ok = fennel_yaml_error(y, error, "unknown key '%s' (expected one of: %s)%s", name,
                                   names, program ? "; this looks like a program file" : "");
            g_free(names);
            break;
        }
        Place *at = &places[key - fennel_model_keys];
        at->key_line = fennel_yaml_line(y);
        at->key_col = fennel_yaml_col(y);
        ok = fennel_yaml_next(y, error);
        if (!ok)
            break;
        at->line = fennel_yaml_line(y);
        at->col = fennel_yaml_col(y);
        if (key->read) {
            ok = key->read(y, m, error);
            continue;
        }
        if (key->kind == FENNEL_MODEL_KEY_SECTION) {
            ok = read_values(y, m, key, error);
            continue;
        }
        if (fennel_yaml_type(y) != YAML_SCALAR_EVENT) {
            ok = fennel_yaml_error(y, error, "%s: expected a value, got %s", key->name,
                                   fennel_yaml_describe(y));
            break;
        }
        FennelModelSetting s = {NULL, fennel_yaml_scalar(y), key->name, y->file};
        gboolean unknown = FALSE;
        char *why = NULL;
        if (!key->set(m, &s, &unknown, &why))
            ok = fennel_yaml_error(y, error, "%s", why);
        g_free(why);
        if (ok)
            ok = fennel_yaml_next(y, error);
    }
    g_hash_table_destroy(seen);
    const Place *at_placement = &places[placement - fennel_model_keys],
                *at_intra = &places[intra - fennel_model_keys],
                *at_contention = &places[contention - fennel_model_keys];
    if (ok && at_placement->key_line && fennel_model_placement_problem(m))
        ok = fail(y, error, at_placement->key_line, at_placement->key_col, "placement: %s",
                  fennel_model_placement_problem(m));
    if (ok && at_intra->key_line && m->ranks_per_node == 0)
        ok = fail(y, error, at_intra->key_line, at_intra->key_col,
                  "intra: needs placement: {ranks_per_node: K} to say which ranks share a node");
    if (ok && at_contention->key_line && m->contention != FENNEL_CONTENTION_NONE &&
        m->topology == NULL)
        ok = fail(y, error, at_contention->line, at_contention->col,
                  "contention: %s needs a topology section", fennel_contention_name(m->contention));
    if (ok && fennel_faults_any(m->faults) && m->topology == NULL)
        ok = fail(y, error, m->faults->line, m->faults->col,
                  "faults: links and NICs fail on a topology (a topology section)");
    /* nic and duplex: a problem of the ports is the later of placement's and duplex's. */
    const FennelModelKey *duplex = fennel_model_key_find("duplex");
    const Place *at_ports = &places[duplex - fennel_model_keys];
    if (at_placement->key_line > at_ports->key_line)
        at_ports = at_placement;
    char *ports = ok ? fennel_model_ports_problem(m) : NULL;
    if (ports) {
        ok = fail(y, error, at_ports->key_line, at_ports->key_col, "%s", ports);
        g_free(ports);
    }
    const Place *at_eager = &places[fennel_model_key_find("eager") - fennel_model_keys];
    char *eager = ok && at_eager->key_line ? fennel_model_eager_problem(m) : NULL;
    if (eager) {
        ok = fail(y, error, at_eager->key_line, at_eager->key_col, "%s", eager);
        g_free(eager);
    }
    if (ok && places[version - fennel_model_keys].key_line == 0)
        ok = fail(y, error, line, col, "missing 'fennel: 1' (the format version)");
    g_free(places);
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
