/* The fit's building blocks against plain references: the CSV reader's numbers against
 * g_ascii_strtod, the grouping and statistics of fennel__fit_points against sorting, and
 * least squares on exact lines. */
#include "fit_private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Random decimals of 1..18 digits, some with a point, some with an exponent: the reader
 * gives exactly what strtod gives. */
static void test_numbers(void)
{
    GRand *rnd = g_rand_new_with_seed(5);
    GString *csv = g_string_new("size_bytes,time_ns\n");
    GPtrArray *texts = g_ptr_array_new_with_free_func(g_free);
    for (int i = 0; i < 20000; i++) {
        GString *t = g_string_new(NULL);
        int digits = g_rand_int_range(rnd, 1, 19), point = g_rand_int_range(rnd, -1, digits);
        for (int d = 0; d < digits; d++) {
            if (d == point && d > 0)
                g_string_append_c(t, '.');
            g_string_append_c(t, (char)('0' + g_rand_int_range(rnd, 0, 10)));
        }
        if (g_rand_int_range(rnd, 0, 10) == 0)
            g_string_append_printf(t, "e%d", g_rand_int_range(rnd, -5, 6));
        g_string_append_printf(csv, "%d,%s\n", i, t->str);
        g_ptr_array_add(texts, g_string_free(t, FALSE));
    }
    GPtrArray *tables = g_ptr_array_new_with_free_func(fennel_measure_table_free);
    GError *error = NULL;
    g_assert_true(fennel_measure_parse("n.csv", csv->str, csv->len, NULL, tables, &error));
    const FennelMeasureTable *t = g_ptr_array_index(tables, 0);
    g_assert_cmpuint(t->samples->len, ==, texts->len);
    for (guint i = 0; i < texts->len; i++) {
        double want = g_ascii_strtod(g_ptr_array_index(texts, i), NULL);
        double got = g_array_index(t->samples, FennelSample, i).ns;
        if (got != want) {
            g_test_message("'%s': %.17g, strtod %.17g", (char *)g_ptr_array_index(texts, i), got,
                           want);
            g_test_fail();
        }
    }
    g_ptr_array_free(tables, TRUE);
    g_ptr_array_free(texts, TRUE);
    g_string_free(csv, TRUE);
    g_rand_free(rnd);
}

/* Groups of 1..40 samples with duplicates, in random order: min, median and mean per
 * (size, targets) as a sort gives them. */
static void test_statistics(void)
{
    GRand *rnd = g_rand_new_with_seed(9);
    for (int round = 0; round < 50; round++) {
        FennelMeasureTable t = {.file = "x", .tool = "x", .kind = FENNEL_MEASURE_MULTICAST};
        t.samples = g_array_new(FALSE, FALSE, sizeof(FennelSample));
        int n_groups = g_rand_int_range(rnd, 1, 8);
        int counts[8];
        double *values[8];
        for (int g = 0; g < n_groups; g++) {
            counts[g] = g_rand_int_range(rnd, 1, 41);
            values[g] = g_new(double, counts[g]);
            for (int k = 0; k < counts[g]; k++)
                values[g][k] = g_rand_int_range(rnd, 0, 6) * 0.5;
        }
        /* Interleave the groups' samples. */
        int taken[8] = {0};
        for (int left = 1; left;) {
            left = 0;
            for (int g = n_groups - 1; g >= 0; g--) {
                if (taken[g] < counts[g]) {
                    FennelSample s = {.bytes = 8 * (g / 2),
                                      .targets = (uint32_t)(1 + g % 2),
                                      .ns = values[g][taken[g]++],
                                      .min_ns = NAN};
                    g_array_append_val(t.samples, s);
                    left = 1;
                }
            }
        }
        GPtrArray *tables = g_ptr_array_new();
        g_ptr_array_add(tables, &t);
        for (int st = FENNEL_STAT_MIN; st <= FENNEL_STAT_MEAN; st++) {
            GString *src = g_string_new(NULL);
            GArray *points = fennel__fit_points(tables, FENNEL_MEASURE_MULTICAST, st, src);
            g_assert_cmpuint(points->len, ==, (guint)n_groups);
            for (int g = 0; g < n_groups; g++) {
                /* Points come sorted by size, then targets: group g is at index g. */
                const FennelFitPoint *p = &g_array_index(points, FennelFitPoint, g);
                g_assert_cmpint(p->bytes, ==, 8 * (g / 2));
                double *v = g_memdup2(values[g], sizeof(double) * counts[g]);
                qsort(v, counts[g], sizeof(double), compare_double);
                double want = 0, n = counts[g];
                if (st == FENNEL_STAT_MIN)
                    want = v[0];
                else if (st == FENNEL_STAT_MEDIAN)
                    want = counts[g] % 2 ? v[counts[g] / 2]
                                         : (v[counts[g] / 2 - 1] + v[counts[g] / 2]) / 2;
                else
                    for (int k = 0; k < counts[g]; k++)
                        want += v[k] / n;
                g_assert_cmpfloat_with_epsilon(p->measured_ns, want, 1e-12);
                g_free(v);
            }
            g_array_free(points, TRUE);
            g_string_free(src, TRUE);
        }
        g_ptr_array_free(tables, TRUE);
        for (int g = 0; g < n_groups; g++)
            g_free(values[g]);
        g_array_free(t.samples, TRUE);
    }
    g_rand_free(rnd);
}

/* Least squares through an exact line recovers it: y = 1300 + 0.37 x at sizes up to 2^22. */
static void test_line(void)
{
    double x[23], y[23];
    for (int i = 0; i < 23; i++) {
        x[i] = ldexp(1, i);
        y[i] = 1300 + 0.37 * x[i];
    }
    FennelFitLine l = fennel__fit_line(x, y, NULL, 23);
    g_assert_cmpint(fennel__fit_ps(l.a), ==, 1300000);
    g_assert_cmpint(fennel__fit_as_per_byte(l.b), ==, 370000000);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/fit/numbers", test_numbers);
    g_test_add_func("/fit/statistics", test_statistics);
    g_test_add_func("/fit/line", test_line);
    return g_test_run();
}
