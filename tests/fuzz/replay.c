/* A main() for the fuzz harnesses in builds without libFuzzer: runs every file named on
 * the command line, or every file in a named directory, through LLVMFuzzerTestOneInput
 * once. `meson test` runs each harness this way over its seed corpus and the inputs
 * that once crashed it (tests/fuzz/regressions/), so the normal and sanitizer builds
 * keep them fixed. */
#include "fuzz_common.h"

#include <stdio.h>
#include <stdlib.h>

static int run_file(const char *path)
{
    char *data;
    gsize length;
    GError *error = NULL;
    if (!g_file_get_contents(path, &data, &length, &error)) {
        fprintf(stderr, "replay: %s\n", error->message);
        g_error_free(error);
        return 1;
    }
    LLVMFuzzerTestOneInput((const uint8_t *)data, length);
    g_free(data);
    return 0;
}

static int compare(const void *a, const void *b)
{
    return g_strcmp0(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
    LLVMFuzzerInitialize(&argc, &argv);
    int failures = 0, inputs = 0;
    for (int i = 1; i < argc; i++) {
        /* A target without regressions yet has no directory for them. */
        if (!g_file_test(argv[i], G_FILE_TEST_EXISTS))
            continue;
        if (!g_file_test(argv[i], G_FILE_TEST_IS_DIR)) {
            failures += run_file(argv[i]);
            inputs++;
            continue;
        }
        GDir *dir = g_dir_open(argv[i], 0, NULL);
        GPtrArray *paths = g_ptr_array_new_with_free_func(g_free);
        for (const char *name; dir && (name = g_dir_read_name(dir));) {
            char *path = g_build_filename(argv[i], name, NULL);
            if (g_file_test(path, G_FILE_TEST_IS_REGULAR))
                g_ptr_array_add(paths, path);
            else
                g_free(path);
        }
        if (dir)
            g_dir_close(dir);
        qsort(paths->pdata, paths->len, sizeof(gpointer), compare);
        for (guint k = 0; k < paths->len; k++) {
            failures += run_file(g_ptr_array_index(paths, k));
            inputs++;
        }
        g_ptr_array_free(paths, TRUE);
    }
    printf("%d inputs, %d unreadable\n", inputs, failures);
    return failures ? 1 : 0;
}
