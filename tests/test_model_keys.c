/* The table of model keys (models/model_keys.c), checked rather than only written: every
 * key of the table means the same in a model file as with `--set` (its examples, set one by
 * one, and a model file that writes the same keys as YAML give the same model, and one
 * other than the default), a model file's own keys are refused by `--set`, and every key has
 * its row in docs/SEMANTICS.md's table of model keys, which lists no other. */
#include "model.h"

#include <string.h>

/* `--set` writes `a.b.c=v`; a file writes `a: {b: {c: "v"}}`. The settings from `from` to
 * `to` share their first `depth` components; each mapping is written in the order its keys
 * first appear. */
static void write_mapping(GString *out, char ***paths, const char *const *values, guint from,
                          guint to, guint depth)
{
    gboolean top = depth == 0, first = TRUE;
    if (!top)
        g_string_append_c(out, '{');
    for (guint i = from; i < to; i++) {
        const char *name = paths[i][depth];
        gboolean earlier = FALSE;
        for (guint j = from; j < i; j++)
            earlier |= strcmp(paths[j][depth], name) == 0;
        if (earlier)
            continue;
        g_string_append_printf(out, "%s%s: ", top || first ? "" : ", ", name);
        first = FALSE;
        if (paths[i][depth + 1] == NULL) {
            g_string_append_printf(out, "\"%s\"", values[i]);
        } else {
            /* the settings under `name`, gathered in order */
            GPtrArray *sub_paths = g_ptr_array_new(), *sub_values = g_ptr_array_new();
            for (guint j = i; j < to; j++) {
                if (strcmp(paths[j][depth], name) == 0) {
                    g_ptr_array_add(sub_paths, paths[j]);
                    g_ptr_array_add(sub_values, (gpointer)values[j]);
                }
            }
            write_mapping(out, (char ***)sub_paths->pdata, (const char *const *)sub_values->pdata,
                          0, sub_paths->len, depth + 1);
            g_ptr_array_free(sub_paths, TRUE);
            g_ptr_array_free(sub_values, TRUE);
        }
        if (top)
            g_string_append_c(out, '\n');
    }
    if (!top)
        g_string_append_c(out, '}');
}

static char *json_of(const FennelModel *m)
{
    GString *s = g_string_new(NULL);
    fennel_model_append_json(m, s);
    char *d = fennel_model_describe(m);
    g_string_append_printf(s, "\n%s", d);
    g_free(d);
    return g_string_free(s, FALSE);
}

static void test_file_and_set_agree(void)
{
    FennelModel plain;
    fennel_model_init(&plain);
    char *default_json = json_of(&plain);
    for (unsigned k = 0; k < fennel_model_n_keys; k++) {
        const FennelModelKey *key = &fennel_model_keys[k];
        if (key->kind == FENNEL_MODEL_KEY_FILE)
            continue;
        g_test_message("key %s", key->name);
        FennelModel by_set;
        fennel_model_init(&by_set);
        guint n = 0;
        gboolean shown = FALSE;
        char **paths[G_N_ELEMENTS(key->example)];
        const char *values[G_N_ELEMENTS(key->example)];
        for (; key->example[n]; n++) {
            const char *eq = strchr(key->example[n], '=');
            g_assert_nonnull(eq);
            char *name = g_strndup(key->example[n], (gsize)(eq - key->example[n]));
            gboolean unknown;
            char *why = NULL;
            if (!fennel_model_set(&by_set, name, eq + 1, &unknown, &why))
                g_error("--set %s: %s", key->example[n], why);
            paths[n] = g_strsplit(name, ".", -1);
            values[n] = eq + 1;
            shown |= strcmp(paths[n][0], key->name) == 0;
            g_free(name);
        }
        /* The examples set the key itself, to something other than the default. */
        g_assert_true(shown);
        char *set_json = json_of(&by_set);
        g_assert_cmpstr(set_json, !=, default_json);

        GString *file = g_string_new("fennel: 1\n");
        write_mapping(file, paths, values, 0, n, 0);
        g_test_message("%s", file->str);
        FennelModel by_file;
        fennel_model_init(&by_file);
        GError *error = NULL;
        if (!fennel_model_parse(&by_file, "keys.yaml", file->str, file->len, &error))
            g_error("%s", error->message);
        char *file_json = json_of(&by_file);
        g_assert_cmpstr(file_json, ==, set_json);

        g_free(file_json);
        g_free(set_json);
        g_string_free(file, TRUE);
        for (guint i = 0; i < n; i++)
            g_strfreev(paths[i]);
        fennel_model_clear(&by_file);
        fennel_model_clear(&by_set);
    }
    g_free(default_json);
    fennel_model_clear(&plain);
}

/* A file's version, name and description are no model values: `--set fennel=1` is an
 * unknown key, as it was before the table. */
static void test_file_keys_not_set(void)
{
    for (unsigned k = 0; k < fennel_model_n_keys; k++) {
        const FennelModelKey *key = &fennel_model_keys[k];
        if (key->kind != FENNEL_MODEL_KEY_FILE)
            continue;
        FennelModel m;
        fennel_model_init(&m);
        gboolean unknown = FALSE;
        char *why = NULL;
        g_assert_false(fennel_model_set(&m, key->name, "1", &unknown, &why));
        g_assert_true(unknown);
        g_free(why);
        fennel_model_clear(&m);
    }
}

/* docs/SEMANTICS.md, Model keys: a row `| `NAME` | ... | DOC |` per key, in the table's
 * order, and no other row. */
static void test_documented(void)
{
    char *path = g_test_build_filename(G_TEST_DIST, "..", "docs", "SEMANTICS.md", NULL);
    char *text = NULL;
    g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
    const char *start = strstr(text, "\n## Model keys\n");
    g_assert_nonnull(start);
    const char *end = strstr(start + 1, "\n## ");
    char *section = end ? g_strndup(start, (gsize)(end - start)) : g_strdup(start);
    char **lines = g_strsplit(section, "\n", -1);
    unsigned next = 0;
    for (char **line = lines; *line; line++) {
        if (!g_str_has_prefix(*line, "| `"))
            continue;
        g_assert_cmpuint(next, <, fennel_model_n_keys);
        const FennelModelKey *key = &fennel_model_keys[next++];
        char *head = g_strdup_printf("| `%s` |", key->name);
        g_test_message("%s", *line);
        g_assert_true(g_str_has_prefix(*line, head));
        g_assert_nonnull(strstr(*line, key->doc));
        g_free(head);
    }
    g_assert_cmpuint(next, ==, fennel_model_n_keys);
    g_strfreev(lines);
    g_free(section);
    g_free(text);
    g_free(path);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/model-keys/file-and-set-agree", test_file_and_set_agree);
    g_test_add_func("/model-keys/file-keys-not-set", test_file_keys_not_set);
    g_test_add_func("/model-keys/documented", test_documented);
    return g_test_run();
}
