#include "cli.h"

#include "errors.h"

#include <stdio.h>
#include <string.h>

int fennel_cli_fail(GError *error)
{
    int status = fennel_error_exit_status(error);
    fprintf(stderr, "fennel: %s\n", error->message);
    g_error_free(error);
    return status;
}

/* A copy of the NULL-terminated entries whose G_OPTION_REMAINING entry has no argument
 * description, since the usage string already names the positional arguments. */
static GOptionEntry *copy_entries_without_rest(const GOptionEntry *entries)
{
    gsize n = 0;
    while (entries[n].long_name != NULL)
        n++;
    GOptionEntry *own = g_memdup2(entries, (n + 1) * sizeof *entries);
    for (gsize i = 0; i < n; i++) {
        if (strcmp(own[i].long_name, G_OPTION_REMAINING) == 0)
            own[i].arg_description = NULL;
    }
    return own;
}

gboolean fennel_cli_parse(const char *command, const char *usage, const char *summary,
                          GOptionEntry *entries, int *argc, char ***argv, int *status)
{
    /* GLib's usage line is "PRGNAME [OPTION…] REST USAGE", where PRGNAME defaults to the
     * base name of argv[0] (here the command itself) and REST is the description of the
     * remaining arguments. Naming the program "fennel COMMAND" and leaving the arguments to
     * the usage string alone makes it "fennel COMMAND [OPTION…] USAGE". */
    char *prgname = g_strdup_printf("fennel %s", command);
    g_set_prgname(prgname);
    g_free(prgname);
    GOptionEntry *own = copy_entries_without_rest(entries);
    GOptionContext *context = g_option_context_new(usage);
    g_option_context_set_summary(context, summary);
    g_option_context_add_main_entries(context, own, NULL);
    GError *error = NULL;
    gboolean ok = g_option_context_parse(context, argc, argv, &error);
    g_option_context_free(context);
    g_free(own);
    if (!ok) {
        char *lower = g_ascii_strdown(error->message, 1);
        fprintf(stderr, "fennel: %s: %s%s\n", command, lower, error->message + 1);
        g_free(lower);
        g_error_free(error);
        *status = 2;
    }
    return ok;
}

gboolean fennel_cli_apply_sets(FennelModel *m, char **set, GError **error)
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

gboolean fennel_cli_build_model(const FennelModelOptions *o, FennelModel *m, GError **error)
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
    return fennel_cli_apply_sets(m, o->set, error);
}

void fennel_model_options_clear(FennelModelOptions *o)
{
    g_free(o->model_file);
    g_free(o->network);
    g_strfreev(o->set);
    memset(o, 0, sizeof *o);
}

void fennel_json_string(GString *out, const char *s)
{
    g_string_append_c(out, '"');
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        if (*c == '"' || *c == '\\')
            g_string_append_printf(out, "\\%c", *c);
        else if (*c < 0x20)
            g_string_append_printf(out, "\\u%04x", *c);
        else
            g_string_append_c(out, (char)*c);
    }
    g_string_append_c(out, '"');
}
