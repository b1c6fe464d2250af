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
    return TRUE;
}

gboolean fennel_model_options_build(const FennelModelOptions *o, FennelModel *m, GError **error)
{
    fennel_model_init(m);
    if (o->model_file && !fennel_model_read(m, o->model_file, error))
        return FALSE;
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
