/* Output files written together (src/base/output.h, docs/RELIABILITY.md "Output files"):
 * all of a set or none of it, also when a rename fails after others succeeded. The failures
 * are injected: this program defines rename() and link(), which the library's calls reach
 * instead of the C library's, and fails one of them on request. */
#include "errors.h"
#include "output.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The next rename to this path fails (once) with EIO; link() fails with EPERM while set, as
 * on a file system without hard links. */
static const char *fail_rename_to;
static gboolean fail_link;

int rename(const char *from, const char *to)
{
    if (fail_rename_to && strcmp(to, fail_rename_to) == 0) {
        fail_rename_to = NULL;
        errno = EIO;
        return -1;
    }
    return renameat(AT_FDCWD, from, AT_FDCWD, to);
}

int link(const char *from, const char *to)
{
    if (fail_link) {
        errno = EPERM;
        return -1;
    }
    return linkat(AT_FDCWD, from, AT_FDCWD, to, 0);
}

typedef struct {
    char *dir, *a, *b, *c;
} Files;

/* a and c exist with "old a", "old c"; b does not. */
static void files_init(Files *f)
{
    f->dir = g_dir_make_tmp("fennel-output-XXXXXX", NULL);
    g_assert_nonnull(f->dir);
    f->a = g_build_filename(f->dir, "a.csv", NULL);
    f->b = g_build_filename(f->dir, "b.json", NULL);
    f->c = g_build_filename(f->dir, "c.dot", NULL);
    g_assert_true(g_file_set_contents(f->a, "old a", -1, NULL));
    g_assert_true(g_file_set_contents(f->c, "old c", -1, NULL));
}

static void files_clear(Files *f)
{
    GDir *d = g_dir_open(f->dir, 0, NULL);
    for (const char *name; (name = g_dir_read_name(d));) {
        char *path = g_build_filename(f->dir, name, NULL);
        if (g_rmdir(path) != 0)
            g_remove(path);
        g_free(path);
    }
    g_dir_close(d);
    g_rmdir(f->dir);
    g_free(f->dir);
    g_free(f->a);
    g_free(f->b);
    g_free(f->c);
}

static gint by_name(gconstpointer a, gconstpointer b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The folder's names, sorted and joined by spaces. */
static char *listing(const char *dir)
{
    GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
    GDir *d = g_dir_open(dir, 0, NULL);
    for (const char *name; (name = g_dir_read_name(d));)
        g_ptr_array_add(names, g_strdup(name));
    g_dir_close(d);
    g_ptr_array_sort(names, by_name);
    g_ptr_array_add(names, NULL);
    char *out = g_strjoinv(" ", (char **)names->pdata);
    g_ptr_array_free(names, TRUE);
    return out;
}

static void assert_contents(const char *path, const char *want)
{
    char *got = NULL;
    g_assert_true(g_file_get_contents(path, &got, NULL, NULL));
    g_assert_cmpstr(got, ==, want);
    g_free(got);
}

static FennelOutputs *stage_three(const Files *f)
{
    FennelOutputs *o = fennel_outputs_new();
    GError *error = NULL;
    g_assert_true(fennel_outputs_write(o, f->a, "new a", 5, &error));
    g_assert_true(fennel_outputs_write(o, f->b, "new b", 5, &error));
    g_assert_true(fennel_outputs_write(o, f->c, "new c", 5, &error));
    g_assert_no_error(error);
    return o;
}

static void test_commit(void)
{
    Files f;
    files_init(&f);
    GError *error = NULL;
    g_assert_true(fennel_outputs_commit(stage_three(&f), &error));
    g_assert_no_error(error);
    assert_contents(f.a, "new a");
    assert_contents(f.b, "new b");
    assert_contents(f.c, "new c");
    char *names = listing(f.dir);
    g_assert_cmpstr(names, ==, "a.csv b.json c.dot"); /* no temporary or kept file left */
    g_free(names);
    files_clear(&f);
}

/* The last rename fails after a and b were placed: a gets its old content back, b (new) is
 * removed, c keeps its own; nothing else is left. With `no_links` the old files were moved
 * aside instead of linked. */
static void rename_fails(gboolean no_links)
{
    Files f;
    files_init(&f);
    GError *error = NULL;
    FennelOutputs *o = stage_three(&f);
    fail_rename_to = f.c;
    fail_link = no_links;
    g_assert_false(fennel_outputs_commit(o, &error));
    fail_link = FALSE;
    g_assert_null(fail_rename_to); /* the injected failure happened */
    char *want = g_strdup_printf("%s: cannot write: input/output error", f.c);
    g_assert_cmpstr(error->message, ==, want);
    g_free(want);
    g_clear_error(&error);
    assert_contents(f.a, "old a");
    g_assert_false(g_file_test(f.b, G_FILE_TEST_EXISTS));
    assert_contents(f.c, "old c");
    char *names = listing(f.dir);
    g_assert_cmpstr(names, ==, "a.csv c.dot");
    g_free(names);
    files_clear(&f);
}

static void test_rename_fails(void)
{
    rename_fails(FALSE);
}

static void test_rename_fails_without_links(void)
{
    rename_fails(TRUE);
}

/* A directory as a target is refused when its file is written, before anything is renamed
 * (it used to fail at its rename, after the files before it were in place, and `-o .` said
 * "device or resource busy"). */
static void test_directory_target(void)
{
    Files f;
    files_init(&f);
    GError *error = NULL;
    FennelOutputs *o = fennel_outputs_new();
    g_assert_true(fennel_outputs_write(o, f.a, "new a", 5, &error));
    g_assert_false(fennel_outputs_write(o, f.dir, "x", 1, &error));
    char *want = g_strdup_printf("%s: cannot write: is a directory", f.dir);
    g_assert_cmpstr(error->message, ==, want);
    g_free(want);
    g_clear_error(&error);
    fennel_outputs_abort(o);
    assert_contents(f.a, "old a");
    g_assert_false(fennel_write_file(f.dir, "x", 1, &error));
    g_clear_error(&error);
    /* A directory made after b was staged: found before the first rename. */
    o = stage_three(&f);
    g_assert_cmpint(g_mkdir(f.b, 0700), ==, 0);
    g_assert_false(fennel_outputs_commit(o, &error));
    want = g_strdup_printf("%s: cannot write: is a directory", f.b);
    g_assert_cmpstr(error->message, ==, want);
    g_free(want);
    g_clear_error(&error);
    assert_contents(f.a, "old a");
    assert_contents(f.c, "old c");
    char *names = listing(f.dir);
    g_assert_cmpstr(names, ==, "a.csv b.json c.dot");
    g_free(names);
    files_clear(&f);
}

/* fennel_same_file: through another spelling or a link when the files exist, by name in the
 * resolved folder when they do not. */
static void test_same_file(void)
{
    Files f;
    files_init(&f);
    char *dotted = g_build_filename(f.dir, ".", "a.csv", NULL);
    char *linked = g_build_filename(f.dir, "l.csv", NULL);
    g_assert_cmpint(symlink(f.a, linked), ==, 0);
    g_assert_true(fennel_same_file(f.a, dotted));
    g_assert_true(fennel_same_file(f.a, linked));
    g_assert_false(fennel_same_file(f.a, f.c));
    g_assert_false(fennel_same_file(f.a, f.b)); /* one exists, the other not */
    char *new_dotted = g_build_filename(f.dir, ".", "b.json", NULL);
    g_assert_true(fennel_same_file(f.b, new_dotted));
    g_assert_false(fennel_same_file(f.b, "b.json"));
    g_free(dotted);
    g_free(linked);
    g_free(new_dotted);
    files_clear(&f);
}

/* A sink on a file: text goes out as it passes FENNEL_SINK_SPILL (the temporary file grows
 * while the sink holds less than that), the whole text is there once the set is committed,
 * and a set aborted after spills leaves neither the target nor a temporary file. */
static void test_sink(void)
{
    Files f;
    files_init(&f);
    GError *error = NULL;
    FennelOutputs *o = fennel_outputs_new();
    FennelSink *sink = fennel_outputs_open(o, f.b, &error);
    g_assert_no_error(error);
    GString *want = g_string_new(NULL);
    for (int i = 0; i < 300000; i++) {
        g_string_append_printf(sink->text, "line %d\n", i);
        g_string_append_printf(want, "line %d\n", i);
        fennel_sink_spill(sink);
        g_assert_cmpuint(sink->text->len, <, FENNEL_SINK_SPILL);
    }
    g_assert_cmpuint(want->len, >, 2 * FENNEL_SINK_SPILL); /* it spilled at least twice */
    g_assert_false(g_file_test(f.b, G_FILE_TEST_EXISTS));  /* not in place before the commit */
    g_assert_true(fennel_outputs_close_sink(o, sink, &error));
    g_assert_true(fennel_outputs_commit(o, &error));
    g_assert_no_error(error);
    assert_contents(f.b, want->str);

    o = fennel_outputs_new();
    sink = fennel_outputs_open(o, f.a, &error);
    for (int i = 0; i < 300000; i++) {
        g_string_append_printf(sink->text, "line %d\n", i);
        fennel_sink_spill(sink);
    }
    g_assert_true(fennel_outputs_close_sink(o, sink, &error));
    fennel_outputs_abort(o);
    assert_contents(f.a, "old a");
    char *names = listing(f.dir);
    g_assert_cmpstr(names, ==, "a.csv b.json c.dot");
    g_free(names);
    g_string_free(want, TRUE);
    files_clear(&f);
}

/* A write that fails after the first spill (a full device) is reported when the sink is
 * closed, naming the target; later text is dropped, not written. */
static void test_sink_full(void)
{
    if (!g_file_test("/dev/full", G_FILE_TEST_EXISTS)) {
        g_test_skip("no /dev/full");
        return;
    }
    GError *error = NULL;
    FennelOutputs *o = fennel_outputs_new();
    FennelSink *sink = fennel_outputs_open(o, "/dev/full", &error);
    g_assert_no_error(error);
    for (int i = 0; i < 300000; i++) {
        g_string_append_printf(sink->text, "line %d\n", i);
        fennel_sink_spill(sink);
    }
    g_assert_cmpint(sink->failed, ==, ENOSPC);
    g_assert_false(fennel_outputs_close_sink(o, sink, &error));
    g_assert_cmpstr(error->message, ==, "/dev/full: cannot write: no space left on device");
    g_clear_error(&error);
    fennel_outputs_abort(o);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/output/commit", test_commit);
    g_test_add_func("/output/rename-fails", test_rename_fails);
    g_test_add_func("/output/rename-fails-without-links", test_rename_fails_without_links);
    g_test_add_func("/output/directory-target", test_directory_target);
    g_test_add_func("/output/same-file", test_same_file);
    g_test_add_func("/output/sink", test_sink);
    g_test_add_func("/output/sink-full", test_sink_full);
    return g_test_run();
}
