/* The fast YAML scanner (src/base/yaml_fast.h): whatever it takes must read as the same
 * program as with libyaml (same tasks, edges, names and source positions); what it
 * declines must fall back to libyaml, so that results and error messages are libyaml's;
 * and it must take what `fennel generate` writes, or the reader loses its speed. */
#include "generator.h"
#include "program_io.h"
#include "program_describe.h"

#include <string.h>

static FennelProgram *parse(const char *text, FennelYamlPath path, GError **error)
{
    return fennel_program_parse_yaml_with("p.yaml", text, strlen(text), path, NULL, error);
}

/* If the fast scanner takes the text, libyaml must read the same program. Returns
 * whether the scanner took it. */
static gboolean check_agrees(const char *text, gsize length)
{
    GError *fast_error = NULL, *lib_error = NULL;
    FennelProgram *fast = fennel_program_parse_yaml_with("p.yaml", text, length,
                                                         FENNEL_YAML_FAST_ONLY, NULL, &fast_error);
    FennelProgram *lib = fennel_program_parse_yaml_with("p.yaml", text, length,
                                                        FENNEL_YAML_LIBYAML_ONLY, NULL, &lib_error);
    gboolean taken = fast != NULL;
    /* Event by event: the scanner gives libyaml's events wherever it goes to the end. */
    char *fast_events = yaml_events(text, length, TRUE);
    if (fast_events) {
        char *lib_events = yaml_events(text, length, FALSE);
        g_assert_cmpstr(fast_events, ==, lib_events);
        g_free(lib_events);
    }
    g_free(fast_events);
    if (fast) {
        if (lib == NULL)
            g_error("the fast scanner takes what libyaml refuses (%s):\n%s", lib_error->message,
                    text);
        char *a = program_describe(fast), *b = program_describe(lib);
        g_assert_cmpstr(a, ==, b);
        g_free(a);
        g_free(b);
    }
    /* The reader as fennel uses it gives libyaml's result in every case. */
    GError *auto_error = NULL;
    FennelProgram *automatic = fennel_program_parse_yaml("p.yaml", text, length, &auto_error);
    g_assert_true((automatic == NULL) == (lib == NULL));
    if (lib) {
        char *a = program_describe(automatic), *b = program_describe(lib);
        g_assert_cmpstr(a, ==, b);
        g_free(a);
        g_free(b);
    } else {
        g_assert_cmpstr(auto_error->message, ==, lib_error->message);
    }
    g_clear_error(&fast_error);
    g_clear_error(&lib_error);
    g_clear_error(&auto_error);
    if (fast)
        fennel_program_free(fast);
    if (lib)
        fennel_program_free(lib);
    if (automatic)
        fennel_program_free(automatic);
    return taken;
}

/* Every field of every task type, comments, blank lines, keys after the tasks and
 * both indentations of the task list. */
static const char *const taken_texts[] = {
    "fennel: 1\n"
    "name: \"every field\"   # a comment after a value\n"
    "description: \"hand written\"\n"
    "processes: 2\n"
    "tasks:   # the list\n"
    "\n"
    "  # a comment line\n"
    "  - {id: s0, type: start, rank: 0}\n"
    "  - {id: s1, type: start, rank: 1, skew: 400ns}\n"
    "  -   {id: p0, type: put, rank: 0, to: 1, size: 8B, blocking: true, after: [s0]}\n"
    "  - {id: g0, type: get, rank: 1, from: 0, size: 1KiB, request: 16B, after: [s1]}\n"
    "  - {id: c.1, type: compute, rank: 1, size: 8B, after: [s1, p0], any: 1}\n"
    "  - {id: c-2, type: compute, rank: 0, duration: 1.5us, after: [s0], concurrent: true}\n"
    "  - {id: z_3, type: sleep, rank: 0, duration: 250ps, after: [c-2]}\n"
    "  - {id: x, type: send, rank: 0, to: 1, size: 0B, tag: 7, after: [z_3]}\n"
    "  - {id: y, type: recv, rank: 1, from: any, size: 0B, tag: any, after: [g0]}\n"
    "  - {id: w, type: recv, rank: 1, from: 0, size: 4B, after: [ y ,c.1 ]}\n"
    "  - {id: v, type: send, rank: 0, to: 1, size: 4B, after: [x]}   # trailing comment\n"
    "ranks: 2\n",

    "fennel: 1\n"
    "tasks:\n"
    "- {id: a, type: start, rank: 0}\n"
    "- {id: b, type: proxy, rank: 0, after: [a]}\n",

    /* Plain scalars with spaces as values of root keys. */
    "fennel: 1\nname: a program  of mine   # its name\ndescription: two - words\n"
    "tasks:\n- {id: a, type: start, rank: 0}\n",

    /* No newline at the end, and an after that names a later task. */
    "fennel: 1\ntasks:\n    - {id: b, type: proxy, rank: 0, after: [a]}\n"
    "    - {id: a, type: start, rank: 0}",
};

static void test_taken(void)
{
    for (gsize i = 0; i < G_N_ELEMENTS(taken_texts); i++) {
        if (!check_agrees(taken_texts[i], strlen(taken_texts[i])))
            g_error("the fast scanner declines:\n%s", taken_texts[i]);
    }
}

/* Valid YAML outside the scanner's shape, and broken YAML: the scanner declines each,
 * and the reader still gives libyaml's program or message. */
static const char *const declined_texts[] = {
    "fennel: 1\nname: two words: no\ntasks:\n- {id: a, type: start, rank: 0}\n",
    "fennel: 1\nname: two words#x\ntasks:\n- {id: a, type: start, rank: 0}\n",
    "fennel: 1\nname: two, words\ntasks:\n- {id: a, type: start, rank: 0}\n",
    "fennel: 1\nname: two\twords\ntasks:\n- {id: a, type: start, rank: 0}\n",
    "fennel: 1\nname: two\n  words\ntasks:\n- {id: a, type: start, rank: 0}\n",
    "fennel: 1\ntasks:\n- {id: a b, type: start, rank: 0}\n",
    "fennel: 1\nname: \"esc\\\"aped\"\ntasks:\n- {id: a, type: start, rank: 0}\n",
    "fennel: 1\nname: 'single'\ntasks:\n- {id: a, type: start, rank: 0}\n",
    "fennel: 1\ntasks:\n- {id: a:b, type: start, rank: 0}\n",
    "fennel: 1\ntasks:\n- {id: a, type: start, rank: 0,}\n",
    "fennel: 1\ntasks:\n- {id: a, type: start,\n   rank: 0}\n",
    "fennel: 1\ntasks:\n- id: a\n  type: start\n  rank: 0\n",
    "fennel: 1\ntasks:\n- {id: a, type: start, rank: 0}#c\n",
    "fennel: 1\ntasks:\n- {id: a, type: start, rank: 0} # caf\xc3\xa9\n",
    "fennel: 1\ntasks:\n- {id: a, type: start, rank: 0} # \xff\n",
    "fennel: 1\r\ntasks:\r\n- {id: a, type: start, rank: 0}\r\n",
    "fennel: 1\ntasks:\n-\t{id: a, type: start, rank: 0}\n",
    "---\nfennel: 1\ntasks:\n- {id: a, type: start, rank: 0}\n",
    "fennel: 1\ntasks:\n- {id: a, type: start, rank: 0}\n...\n",
    "fennel: 1\ntasks: []\n",
    "fennel: 1\ntasks:\n- &x {id: a, type: start, rank: 0}\n",
    "fennel: !!int 1\ntasks:\n- {id: a, type: start, rank: 0}\n",
    "fennel: 1\ntasks:\n  - {id: a, type: start, rank: 0}\n - {id: b, type: start, rank: 1}\n",
    "fennel: 1\ntasks:\n  - {id: a, type: start, rank: 0}\n   - {id: b, type: start, rank: 1}\n",
    "fennel: 1\ntasks:\n- {id: a, type: start, rank: 0}\n  more: 1\n",
    "fennel: 1\nranks: 2\n  3\ntasks:\n- {id: a, type: start, rank: 0}\n",
    "fennel: 1\ntasks:\n- {id: a, type: start, rank: 0}\n- {id: b, type: proxy, rank: 0, "
    "after: [a,]}\n",
    "fennel: 1\ntasks:\n- {id: a, type: start, rank: 0}\n- {id: b, type: proxy, rank: 0, "
    "after: [{a: 1}]}\n",
    "fennel: 1\ntasks:\n- {id: a, type: start, rank: 0, rank:1}\n",
    "fennel: 1\ntasks:\n- {id: a, type: start, rank: 0 0}\n",
    "fennel: 1\ntasks:\n- {id: -, type: start, rank: 0}\n",
    "fennel: 1\ntasks:\n- {}\n",
    "fennel:1\ntasks:\n- {id: a, type: start, rank: 0}\n",
    "fennel: 1\ntasks:\n",
    "fennel: 1\ntasks:\n- {id: a, type: start, rank: 0}\n-\n",
    " fennel: 1\n tasks:\n - {id: a, type: start, rank: 0}\n",
    "",
    "# only a comment\n",
    "fennel: 1\ntasks:\n- {id: a, type: start, rank: 0}\n- {id: a, type: start, rank: 0\n",
    "fennel: 1\ntasks:\n- {id: a, type: start, rank: 0}\n- {id: \"b\x01\", type: start, rank: 1}\n",
};

static void test_declined(void)
{
    for (gsize i = 0; i < G_N_ELEMENTS(declined_texts); i++) {
        if (check_agrees(declined_texts[i], strlen(declined_texts[i])))
            g_error("the fast scanner takes:\n%s", declined_texts[i]);
    }
}

/* A text in the scanner's shape with a mistake in it: the message is libyaml's and
 * names the right place. */
static void test_errors_are_libyaml(void)
{
    static const struct {
        const char *text, *message;
    } cases[] = {
        {"fennel: 1\ntasks:\n- {id: a, type: start, rank: 0}\n- {id: b, type: proxy, rank: 0, "
         "after: [c]}\n",
         "p.yaml:4:41: unknown task 'c' in after"},
        {"fennel: 1\ntasks:\n- {id: a, type: start, rank: 0, colour: red}\n",
         "p.yaml:3:33: unknown key 'colour' (expected one of: id, type, rank, after, any, "
         "concurrent, skew, duration, size, to, from, blocking, request, tag, data, slot, eager, "
         "group, allreduce, tb, step, op, src, dst, cnt, dep, hasdep)"},
        {"fennel: 1\ntasks:\n- {id: a, type: start, rank: 0}\n- {id: a, type: start, rank: 1}\n",
         "p.yaml:4:8: duplicate id 'a' (first defined at 3:8)"},
    };
    for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
        GError *error = NULL;
        g_assert_null(parse(cases[i].text, FENNEL_YAML_AUTO, &error));
        g_assert_cmpstr(error->message, ==, cases[i].message);
        g_clear_error(&error);
        g_assert_true(check_agrees(cases[i].text, strlen(cases[i].text)) == FALSE);
    }
}

/* What the writer produces for every generator (on 7 ranks where it takes --ranks):
 * taken, and read as libyaml reads it. */
static void test_generated(void)
{
    unsigned written = 0;
    for (const FennelGenerator *const *g = fennel_generators; *g; g++) {
        FennelGenOptions o;
        fennel_gen_options_init(&o);
        if ((*g)->options & FENNEL_GEN_RANKS) {
            o.ranks = 7;
            o.given |= FENNEL_GEN_RANKS;
        }
        GError *error = NULL;
        FennelProgram *p = fennel_generate(*g, &o, &error);
        if (p == NULL) { /* a generator that needs more options than these */
            g_test_message("%s: %s", (*g)->name, error->message);
            g_clear_error(&error);
            continue;
        }
        GString *text = g_string_new(NULL);
        fennel_program_write_yaml(p, text);
        if (!check_agrees(text->str, text->len))
            g_error("the fast scanner declines the writer's output for %s", (*g)->name);
        g_string_free(text, TRUE);
        fennel_program_free(p);
        written++;
    }
    g_assert_cmpuint(written, >=, 30);
}

/* Every YAML program file of the project: whatever the scanner takes reads the same. The
 * examples are in the scanner's shape, so it must take them. */
static void check_directory(const char *dir, gboolean must_take)
{
    GDir *d = g_dir_open(dir, 0, NULL);
    g_assert_nonnull(d);
    const char *entry;
    while ((entry = g_dir_read_name(d)) != NULL) {
        if (!g_str_has_suffix(entry, ".yaml"))
            continue;
        char *path = g_build_filename(dir, entry, NULL), *text;
        gsize length;
        if (!g_file_test(path, G_FILE_TEST_IS_REGULAR)) { /* a directory named *.yaml */
            g_free(path);
            continue;
        }
        g_assert_true(g_file_get_contents(path, &text, &length, NULL));
        if (!check_agrees(text, length) && must_take)
            g_error("the fast scanner declines %s", path);
        g_free(text);
        g_free(path);
    }
    g_dir_close(d);
}

static void test_files(void)
{
    char *examples = g_test_build_filename(G_TEST_DIST, "..", "programs", "examples", NULL);
    char *bad = g_test_build_filename(G_TEST_DIST, "data", "bad", NULL);
    check_directory(examples, TRUE);
    check_directory(bad, FALSE);
    g_free(examples);
    g_free(bad);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/yaml-fast/taken", test_taken);
    g_test_add_func("/yaml-fast/declined", test_declined);
    g_test_add_func("/yaml-fast/errors-are-libyaml", test_errors_are_libyaml);
    g_test_add_func("/yaml-fast/generated", test_generated);
    g_test_add_func("/yaml-fast/files", test_files);
    return g_test_run();
}
