/* Models from options given as text. */
#include "options.h"

#include "errors.h"

#include <string.h>

gboolean fennel_model_options_apply_sets(FennelModel *m, char **set, GError **error)
{
    for (char **kv = set; kv && *kv; kv++) {
        const char *eq = strchr(*kv, '=');
        if (eq == NULL || eq == *kv) {
            g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE,
                        "--set %s: expected KEY=VALUE, e.g. --set alpha_p=400ns", *kv);
            return FALSE;
        }
        char *key = g_strndup(*kv, (gsize)(eq - *kv));
        gboolean unknown;
        char *why = NULL;
        gboolean ok = fennel_model_set(m, key, eq + 1, &unknown, &why);
        if (!ok)
            g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE, "--set %s: %s", *kv, why);
        g_free(why);
        g_free(key);
        if (!ok)
            return FALSE;
    }
    for (int i = 0; i < FENNEL_NOISE_N_STREAMS; i++) {
        char *why = fennel_noise_check(&m->noise[i]);
        if (why) {
            g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE, "--set: %s", why);
            g_free(why);
            return FALSE;
        }
    }
    /* Only after every setting: --set contention=links may come before topology.kind. */
    char *topology = set ? fennel_model_topology_problem(m) : NULL;
    if (topology) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE, "--set: %s", topology);
        g_free(topology);
        return FALSE;
    }
    /* Only after every setting: --set intra=same may follow --set ranks_per_node=4. */
    if (set && fennel_model_placement_problem(m)) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE, "--set: %s",
                    fennel_model_placement_problem(m));
        return FALSE;
    }
    return TRUE;
}

gboolean fennel_model_options_ports(FennelModel *m, const char *nic, const char *duplex,
                                    GError **error)
{
    char *why = NULL;
    if ((nic && !fennel_model_set_ports(m, "nic", nic, &why)) ||
        (duplex && !fennel_model_set_ports(m, "duplex", duplex, &why)) ||
        (why = fennel_model_ports_problem(m)) != NULL) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE, "--%s", why);
        g_free(why);
        return FALSE;
    }
    return TRUE;
}

/* Where presets are looked for: where `meson install` puts them, then the source tree's
 * (so that a program run from its build directory finds them too). */
static const char *const preset_dirs[] = {FENNEL_PRESET_DIR, FENNEL_SOURCE_PRESET_DIR};

char *fennel_model_preset_find(const char *argument)
{
    if (g_file_test(argument, G_FILE_TEST_EXISTS))
        return g_strdup(argument);
    /* Only a bare name can be a preset: a path that does not exist is not one. */
    if (strchr(argument, '/') != NULL || argument[0] == '\0' || argument[0] == '.')
        return NULL;
    char *file = g_str_has_suffix(argument, ".yaml") ? g_strdup(argument)
                                                     : g_strconcat(argument, ".yaml", NULL);
    char *found = NULL;
    for (size_t i = 0; i < G_N_ELEMENTS(preset_dirs) && found == NULL; i++) {
        char *path = g_build_filename(preset_dirs[i], file, NULL);
        if (g_file_test(path, G_FILE_TEST_IS_REGULAR))
            found = path;
        else
            g_free(path);
    }
    g_free(file);
    return found;
}

static gint compare_names(gconstpointer a, gconstpointer b)
{
    return g_ascii_strcasecmp(*(char *const *)a, *(char *const *)b);
}

static char *fennel_model_preset_names(void)
{
    GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
    for (size_t i = 0; i < G_N_ELEMENTS(preset_dirs); i++) {
        GDir *dir = g_dir_open(preset_dirs[i], 0, NULL);
        if (dir == NULL)
            continue;
        for (const char *entry; (entry = g_dir_read_name(dir)) != NULL;) {
            if (!g_str_has_suffix(entry, ".yaml"))
                continue;
            char *name = g_strndup(entry, strlen(entry) - strlen(".yaml"));
            gboolean seen = FALSE;
            for (guint k = 0; k < names->len && !seen; k++)
                seen = strcmp(g_ptr_array_index(names, k), name) == 0;
            if (seen)
                g_free(name);
            else
                g_ptr_array_add(names, name);
        }
        g_dir_close(dir);
    }
    g_ptr_array_sort(names, compare_names);
    GString *out = g_string_new(NULL);
    for (guint k = 0; k < names->len; k++)
        g_string_append_printf(out, "%s%s", k ? ", " : "", (char *)g_ptr_array_index(names, k));
    g_ptr_array_free(names, TRUE);
    return g_string_free(out, FALSE);
}

gboolean fennel_model_options_given(const FennelModelOptions *o)
{
    return o->model_file != NULL || o->network != NULL;
}

void fennel_model_options_missing(const char *command, GError **error)
{
    char *names = fennel_model_preset_names();
    g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE,
                "%s: no model: give --model FILE, --model PRESET (%s) or --network KIND; "
                "without one every duration would be 0",
                command, names[0] ? names : "none installed");
    g_free(names);
}

gboolean fennel_model_options_build(const FennelModelOptions *o, FennelModel *m, GError **error)
{
    fennel_model_init(m);
    if (o->model_file) {
        /* A path that does not exist is read all the same, for the reader's own error. */
        gboolean path = strchr(o->model_file, '/') || g_str_has_suffix(o->model_file, ".yaml");
        char *file = fennel_model_preset_find(o->model_file);
        if (file == NULL && path)
            file = g_strdup(o->model_file);
        if (file == NULL) {
            char *names = fennel_model_preset_names();
            g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                        "--model %s: no such file, nor a preset of that name (presets: %s)",
                        o->model_file, names[0] ? names : "none installed");
            g_free(names);
            return FALSE;
        }
        gboolean ok = fennel_model_read(m, file, error);
        g_free(file);
        if (!ok)
            return FALSE;
    }
    if (o->network) {
        const FennelNetworkClass *nc = fennel_network_class_find(o->network);
        if (nc == NULL) {
            char *names = fennel_model_class_names(TRUE);
            g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE,
                        "--network: unknown network model '%s' (known: %s)", o->network, names);
            g_free(names);
            return FALSE;
        }
        fennel_model_set_network(m, nc);
    }
    return fennel_model_options_apply_sets(m, o->set, error);
}

void fennel_model_options_clear(FennelModelOptions *o)
{
    g_free(o->model_file);
    g_free(o->network);
    g_strfreev(o->set);
    memset(o, 0, sizeof *o);
}
