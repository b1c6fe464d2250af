/* The size guard (src/base/capacity.h), input files (src/base/input.h) and the regressions of the
 * reader fixes made while fuzzing (docs/RELIABILITY.md). */
#include "capacity.h"
#include "errors.h"
#include "input.h"
#include "model.h"
#include "program.h"
#include "units.h"

#include <glib/gstdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

/* The estimate is the sum of the per-item figures of capacity.h:
 * 1000 x 48 + 2000 x 12 + 10 x 64 + (10 x 2) x 8 = 48000 + 24000 + 640 + 160 = 72800. */
static void test_estimate(void)
{
    g_assert_cmpuint(fennel_limits_estimate(1000, 2000, 10, 2), ==, 72800);
    g_assert_cmpuint(fennel_limits_estimate(0, 0, 1, 1), ==, 64 + 8);
    /* Saturates instead of wrapping around. */
    g_assert_cmpuint(fennel_limits_estimate(UINT64_MAX / 2, 0, 0, 0), ==, UINT64_MAX);
    g_assert_cmpuint(fennel_limits_estimate(0, 0, UINT32_MAX, UINT32_MAX), ==, UINT64_MAX);
}

/* Against a machine of 1 MiB = 1048576 B: 21000 tasks need 21000 x 48 = 1008000 B (they
 * fit), 22000 need 1056000 B. */
static void test_check_memory(void)
{
    FennelLimits l = {.memory = 1 << 20};
    GError *error = NULL;
    g_assert_true(fennel_check_size(&l, 21000, 0, 0, 0, &error));
    g_assert_false(fennel_check_size(&l, 22000, 0, 0, 0, &error));
    g_assert_true(g_error_matches(error, FENNEL_ERROR, FENNEL_ERROR_INPUT));
    /* 1056000 B = 0.000983 GiB against 1 MiB = 0.000977 GiB: the memory reads 0 up to
     * three decimals, so four are printed, the need rounded up, the memory down. */
    g_assert_cmpstr(error->message, ==,
                    "would need about 0.0010 GiB for 22000 tasks; the machine has 0.0009 GiB");
    g_clear_error(&error);
    /* Ranks alone: 20000 ranks x 72 B = 1440000 B = 0.00134 GiB, up to 0.0014. */
    g_assert_false(fennel_check_size(&l, 0, 0, 20000, 1, &error));
    g_assert_cmpstr(error->message, ==,
                    "would need about 0.0014 GiB for 20000 ranks; the machine has 0.0009 GiB");
    g_clear_error(&error);
    /* 1 task on 3 ranks with 60000 slots: 48 + 3 x (64 + 480000) B = 0.00134 GiB, up to
     * 0.0014. */
    g_assert_false(fennel_check_size(&l, 1, 0, 3, 60000, &error));
    g_assert_cmpstr(error->message, ==,
                    "would need about 0.0014 GiB for 1 task on 3 ranks with 60000 slots each; "
                    "the machine has 0.0009 GiB");
    g_clear_error(&error);
    /* More than 65536 slots per rank is refused for the work, whatever the memory. */
    g_assert_false(fennel_check_size(NULL, 1, 0, 1, 65537, &error));
    g_assert_cmpstr(error->message, ==,
                    "65537 slots per rank, more than the 65536 fennel runs (a task chooses "
                    "among its rank's slots one by one)");
    g_clear_error(&error);
    /* With the per-task outputs, 128 B more per task (and edges counted as two per task):
     * 1000 tasks need 1000 x (48 + 2 x 12 + 128) = 200000 B, 6000 need 1200000 B =
     * 0.0011176 GiB, up to 0.0012. */
    g_assert_true(fennel_check_outputs(&l, 1000, &error));
    g_assert_false(fennel_check_outputs(&l, 6000, &error));
    g_assert_cmpstr(error->message, ==,
                    "would need about 0.0012 GiB for 6000 tasks with their per-task outputs "
                    "(--tasks, --trace, --timeline); the machine has 0.0009 GiB");
    g_clear_error(&error);
    /* Without limits, or with memory 0, the guard compares with the machine's memory. */
    g_assert_cmpuint(fennel_limits_memory(NULL), >, 1 << 20);
    g_assert_cmpuint(fennel_limits_memory(&(FennelLimits){.max_tasks = 4}), >, 1 << 20);
}

static void test_check_max_tasks(void)
{
    GError *error = NULL;
    FennelLimits l = {0};
    g_assert_true(fennel_limits_parse_max_tasks(&l, "4", &error));
    g_assert_cmpuint(fennel_limits_max_tasks(&l), ==, 4);
    g_assert_true(fennel_check_tasks(&l, 4, &error));
    g_assert_false(fennel_check_tasks(&l, 5, &error));
    g_assert_cmpstr(error->message, ==, "5 tasks asked for, more than --max-tasks 4");
    g_clear_error(&error);
    g_assert_false(fennel_limits_parse_max_tasks(&l, "0", &error));
    g_assert_true(g_error_matches(error, FENNEL_ERROR, FENNEL_ERROR_USAGE));
    g_assert_cmpstr(error->message, ==, "--max-tasks 0: expected a whole number >= 1");
    g_clear_error(&error);
    g_assert_true(fennel_limits_parse_max_tasks(&l, NULL, &error));
    g_assert_cmpuint(fennel_limits_max_tasks(&l), ==, 4);
    /* The limits are the caller's alone: no limits, no cap. */
    g_assert_cmpuint(fennel_limits_max_tasks(NULL), ==, 0);
    g_assert_true(fennel_check_tasks(NULL, 5, &error));
}

/* A chain of n tasks (a start, then proxies), every field set, through the builder. */
static FennelProgram *chain(uint32_t n, const FennelLimits *limits, GError **error)
{
    FennelProgramBuilder *b = fennel_builder_new();
    fennel_builder_set_limits(b, limits);
    uint32_t previous = fennel_builder_add(b, FENNEL_TASK_START, 0);
    for (uint32_t i = 1; i < n; i++) {
        uint32_t t = fennel_builder_add(b, FENNEL_TASK_PROXY, 0);
        fennel_builder_set_name(b, t, "x");
        fennel_builder_set_position(b, t, i, 1);
        fennel_builder_set_any(b, t, 1);
        fennel_builder_add_edge(b, previous, t);
        previous = t;
    }
    return fennel_builder_finish(b, "chain.yaml", 1, 1, error);
}

/* Past the cap the builder stores nothing more but counts: finish reports the whole size,
 * with the file's name. */
static void test_builder_guard(void)
{
    GError *error = NULL;
    FennelLimits ten = {.max_tasks = 10};
    g_assert_null(chain(100000, &ten, &error));
    g_assert_cmpstr(error->message, ==,
                    "chain.yaml: 100000 tasks asked for, more than --max-tasks 10");
    g_clear_error(&error);
    FennelProgram *p = chain(10, &ten, &error);
    g_assert_no_error(error);
    g_assert_cmpuint(p->n_tasks, ==, 10);
    fennel_program_free(p);

    /* 64 KiB of memory holds 65536 / 48 = 1365 tasks: 100000 tasks and 99999 edges need
     * 100000 x 48 + 99999 x 12 + 64 + 8 = 6000060 B = 0.0055880 GiB, printed to five
     * decimals because 64 KiB = 0.000061 GiB reads 0 to four. */
    FennelLimits small = {.memory = 1 << 16};
    g_assert_null(chain(100000, &small, &error));
    g_assert_cmpstr(error->message, ==,
                    "chain.yaml: would need about 0.00559 GiB for 100000 tasks; the machine has "
                    "0.00006 GiB");
    g_clear_error(&error);
}

/* A mapped file has a NUL after its text even when it fills its last page exactly (the
 * byte after it is then on a page of its own); pages given back are read again from the
 * file; an empty file and a device are read, not mapped. */
static void test_map_input(void)
{
    char *dir = g_dir_make_tmp("fennel-map-XXXXXX", NULL);
    char *file = g_build_filename(dir, "page.txt", NULL);
    gsize page = (gsize)sysconf(_SC_PAGESIZE), size = 3 * page;
    char *content = g_malloc(size);
    for (gsize i = 0; i < size; i++)
        content[i] = (char)('a' + i % 26);
    g_assert_true(g_file_set_contents(file, content, (gssize)size, NULL));
    GError *error = NULL;
    gboolean mapped = FALSE;
    GBytes *text = fennel_map_input(file, &mapped, &error);
    g_assert_no_error(error);
    g_assert_true(mapped);
    gsize length;
    const char *data = g_bytes_get_data(text, &length);
    g_assert_cmpuint(length, ==, size);
    g_assert_cmpint(data[size], ==, '\0');
    g_assert_true(memcmp(data, content, size) == 0);
    fennel_input_release(data, 1, size); /* the second and third pages */
    g_assert_true(memcmp(data, content, size) == 0);
    g_bytes_unref(text);

    g_assert_true(g_file_set_contents(file, "", 0, NULL));
    text = fennel_map_input(file, &mapped, &error);
    g_assert_no_error(error);
    g_assert_false(mapped);
    data = g_bytes_get_data(text, &length);
    g_assert_cmpuint(length, ==, 0);
    g_assert_cmpint(data[0], ==, '\0');
    g_bytes_unref(text);

    text = fennel_map_input("/dev/null", &mapped, &error);
    g_assert_no_error(error);
    g_assert_false(mapped);
    g_assert_cmpuint(g_bytes_get_size(text), ==, 0);
    g_bytes_unref(text);

    g_assert_null(fennel_map_input(dir, &mapped, &error));
    char *expected = g_strdup_printf("%s: cannot read: is a directory, not a file", dir);
    g_assert_cmpstr(error->message, ==, expected);
    g_free(expected);
    g_clear_error(&error);

    g_unlink(file);
    g_rmdir(dir);
    g_free(content);
    g_free(file);
    g_free(dir);
}

static void test_read_input(void)
{
    char *dir = g_dir_make_tmp("fennel-input-XXXXXX", NULL);
    char *file = g_build_filename(dir, "p.yaml", NULL);
    char *missing = g_build_filename(dir, "missing.yaml", NULL);
    g_assert_true(g_file_set_contents(file, "fennel: 1\n", -1, NULL));
    char *data;
    gsize length;
    GError *error = NULL;
    g_assert_true(fennel_read_input(file, &data, &length, &error));
    g_assert_cmpuint(length, ==, 10);
    g_assert_cmpstr(data, ==, "fennel: 1\n");
    g_free(data);

    g_assert_false(fennel_read_input(missing, &data, &length, &error));
    char *expected = g_strdup_printf("%s: cannot read: no such file or directory", missing);
    g_assert_cmpstr(error->message, ==, expected);
    g_free(expected);
    g_clear_error(&error);

    g_assert_false(fennel_read_input(dir, &data, &length, &error));
    expected = g_strdup_printf("%s: cannot read: is a directory, not a file", dir);
    g_assert_cmpstr(error->message, ==, expected);
    g_free(expected);
    g_clear_error(&error);

    /* A device is read like a pipe, to its end. */
    g_assert_true(fennel_read_input("/dev/null", &data, &length, &error));
    g_assert_cmpuint(length, ==, 0);
    g_assert_cmpstr(data, ==, "");
    g_free(data);

    g_unlink(file);
    g_rmdir(dir);
    g_free(missing);
    g_free(file);
    g_free(dir);
}

/* Found by fuzzing (tests/fuzz/regressions/units/size-mantissa-overflow): a size with more
 * significant digits than an __int128 product holds overflowed; trailing zeros do not
 * count, so an exact 1 TiB written with 30 decimal zeros still parses. */
static void test_size_digits(void)
{
    int64_t v;
    const char *why = NULL;
    g_assert_false(fennel_parse_size("92.090002770736832547758223320016TiB", &v, &why));
    g_assert_cmpstr(why, ==, "has too many digits");
    g_assert_true(fennel_parse_size("1.000000000000000000000000000000TiB", &v, &why));
    g_assert_cmpint(v, ==, (int64_t)1 << 40);
    g_assert_false(fennel_parse_size("99999999999999999999999999999999TiB", &v, &why));
    g_assert_cmpstr(why, ==, "value is too large");
}

/* Found by fuzzing (tests/fuzz/regressions/program_yaml/id-with-line-breaks.yaml): a
 * quoted value with a line break made a message of several lines. */
static void test_one_line_errors(void)
{
    GError *error = NULL;
    fennel_error_at(&error, "p.yaml", 3, 7, "id '%s': bad", "a\nb\tc\x01");
    g_assert_cmpstr(error->message, ==, "p.yaml:3:7: id 'a\\nb\\tc\\x01': bad");
    g_clear_error(&error);
}

/* Found by fuzzing the model reader (tests/fuzz/regressions/model/): a lognormal noise of
 * scale 0 whose exp() overflows sampled 0 x inf = NaN, which was converted to an integer
 * (undefined; in practice a huge negative noise). A scale of 0 is now refused, and a
 * sample that is not a number (a betaprime of tiny shapes draws 0 / 0) counts as 0: a
 * betaprime noise is never negative. */
static void test_noise_nan(void)
{
    FennelNoise lognormal = {0};
    char *why = NULL;
    g_assert_true(fennel_noise_set(&lognormal, "distribution", "lognormal", NULL, &why));
    g_assert_true(fennel_noise_set(&lognormal, "sigma", "66", NULL, &why));
    g_assert_true(fennel_noise_set(&lognormal, "scale", "0ns", NULL, &why));
    why = fennel_noise_check(&lognormal);
    g_assert_cmpstr(why, ==, "lognormal noise: scale must be positive (it is 0ns)");
    g_free(why);

    FennelModel m;
    fennel_model_init(&m);
    FennelNoise *n = &m.noise[FENNEL_NOISE_COMPUTE];
    why = NULL;
    g_assert_true(fennel_noise_set(n, "distribution", "betaprime", NULL, &why));
    g_assert_true(fennel_noise_set(n, "a", "1e-300", NULL, &why));
    g_assert_true(fennel_noise_set(n, "b", "1e-300", NULL, &why));
    g_assert_null(fennel_noise_check(n));
    for (uint64_t i = 0; i < 64; i++)
        g_assert_cmpint(fennel_model_noise(&m, 1, FENNEL_NOISE_COMPUTE, i), >=, 0);
    fennel_model_clear(&m);
}

/* An allocation that fails although the estimate let it through (here the estimate is told
 * the machine has 1 TiB, and the address space is limited to 256 MiB) ends in one error
 * naming the size asked for, not in GLib's abort. Address sanitizer builds cannot run under
 * an address space limit: the child only runs in normal builds. */
static void test_builder_out_of_memory(void)
{
#if defined(__SANITIZE_ADDRESS__)
    g_test_skip("an address space limit and the address sanitizer do not mix");
#else
    if (g_test_subprocess()) {
        struct rlimit rl = {256u << 20, 256u << 20};
        g_assert_cmpint(setrlimit(RLIMIT_AS, &rl), ==, 0);
        FennelLimits l = {.memory = (uint64_t)1 << 40};
        FennelProgramBuilder *b = fennel_builder_new();
        fennel_builder_set_limits(b, &l);
        for (uint32_t i = 0; i < 100000000; i++)
            fennel_builder_add(b, FENNEL_TASK_START, 0);
        GError *error = NULL;
        FennelProgram *p = fennel_builder_finish(b, "big", 1, 1, &error);
        g_assert_null(p);
        g_print("%s\n", error->message);
        g_error_free(error);
        return;
    }
    g_test_trap_subprocess(NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
    g_test_trap_assert_passed();
    g_test_trap_assert_stdout("big: out of memory: * bytes for the program's tasks could not be "
                              "allocated (the machine has 1024.0 GiB)*");
#endif
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/capacity/estimate", test_estimate);
    g_test_add_func("/capacity/check-memory", test_check_memory);
    g_test_add_func("/capacity/check-max-tasks", test_check_max_tasks);
    g_test_add_func("/capacity/builder-guard", test_builder_guard);
    g_test_add_func("/capacity/builder-out-of-memory", test_builder_out_of_memory);
    g_test_add_func("/input/read", test_read_input);
    g_test_add_func("/input/map", test_map_input);
    g_test_add_func("/regressions/size-digits", test_size_digits);
    g_test_add_func("/regressions/one-line-errors", test_one_line_errors);
    g_test_add_func("/regressions/noise-nan", test_noise_nan);
    return g_test_run();
}
