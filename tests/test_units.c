/* Units: exact decimal parsing of durations, sizes and per-byte times, and printing
 * in nanoseconds (README, Program files; docs/SEMANTICS.md). */
#include "units.h"

static void test_duration(void)
{
    static const struct {
        const char *text;
        FennelTime ps;
    } cases[] = {
        {"250ps", 250},        {"500ns", 500000},       {"1.5us", 1500000}, {"2ms", 2000000000},
        {"1s", 1000000000000}, {"10", 10000},           {"0.4", 400},       {"603.2ns", 603200},
        {"1e3ns", 1000000},    {"0.0004ns", 0},         {"0.0005ns", 1},    {" 7 ns", 7000},
        {"\xc2\xb5s", -1},     {"3\xc2\xb5s", 3000000}, {"0", 0},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        FennelTime t = -1;
        const char *why = NULL;
        gboolean ok = fennel_parse_duration(cases[i].text, &t, &why);
        if (cases[i].ps < 0) {
            g_assert_false(ok);
            continue;
        }
        g_assert_true(ok);
        g_assert_cmpint(t, ==, cases[i].ps);
    }
    const char *bad[] = {"", "ns", "-1ns", "5 parsecs", "1.2.3", "99999999999s", "1e40s", "abc"};
    for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
        FennelTime t;
        const char *why = NULL;
        g_assert_false(fennel_parse_duration(bad[i], &t, &why));
        g_assert_nonnull(why);
    }
}

static void test_size(void)
{
    static const struct {
        const char *text;
        int64_t bytes;
    } cases[] = {
        {"8", 8},          {"8B", 8},     {"4KiB", 4096},
        {"1MiB", 1048576}, {"1kB", 1000}, {"2GB", 2000000000},
        {"1.5KiB", 1536},  {"0", 0},      {"1TiB", 1099511627776},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        int64_t v;
        const char *why;
        g_assert_true(fennel_parse_size(cases[i].text, &v, &why));
        g_assert_cmpint(v, ==, cases[i].bytes);
    }
    const char *bad[] = {"-8B", "0.5B", "8 bytes", "", "99999999999999999999B", "1e30B"};
    for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
        int64_t v;
        const char *why = NULL;
        g_assert_false(fennel_parse_size(bad[i], &v, &why));
        g_assert_nonnull(why);
    }
}

static void test_rate(void)
{
    FennelRate r;
    const char *why;
    g_assert_true(fennel_parse_rate("0.4ns/B", &r, &why));
    g_assert_cmpint(r, ==, 400000000); /* attoseconds per byte */
    g_assert_true(fennel_parse_rate("0.4", &r, &why));
    g_assert_cmpint(r, ==, 400000000);
    g_assert_true(fennel_parse_rate("400ps/B", &r, &why));
    g_assert_cmpint(r, ==, 400000000);
    g_assert_true(fennel_parse_rate("0.02ns / B", &r, &why));
    g_assert_cmpint(r, ==, 20000000);
    /* 8 B x 0.4 ns/B is exactly 3.2 ns: no binary floating point on the way. */
    g_assert_cmpint((int64_t)8 * 400000000 / FENNEL_AS_PER_PS, ==, 3200);
    g_assert_false(fennel_parse_rate("0.4ns", &r, &why));
    g_assert_false(fennel_parse_rate("-1ns/B", &r, &why));
    g_assert_false(fennel_parse_rate("1ns/KB", &r, &why));
}

static void test_flops(void)
{
    int64_t f;
    const char *why;
    g_assert_true(fennel_parse_flops("312TFLOP/s", &f, &why));
    g_assert_cmpint(f, ==, 312000000000000);
    g_assert_true(fennel_parse_flops("19.5 TFLOP/s", &f, &why));
    g_assert_cmpint(f, ==, 19500000000000);
    g_assert_true(fennel_parse_flops("1e15", &f, &why)); /* a bare number: FLOP/s */
    g_assert_cmpint(f, ==, 1000000000000000);
    g_assert_true(fennel_parse_flops("1.5kFLOP/s", &f, &why));
    g_assert_cmpint(f, ==, 1500);
    g_assert_false(fennel_parse_flops("0TFLOP/s", &f, &why));
    g_assert_cmpstr(why, ==, "must be positive");
    g_assert_false(fennel_parse_flops("-1TFLOP/s", &f, &why));
    g_assert_false(fennel_parse_flops("0.1FLOP/s", &f, &why)); /* below one a second */
    g_assert_false(fennel_parse_flops("1TFLOPS", &f, &why));
    g_assert_false(fennel_parse_flops("1e30PFLOP/s", &f, &why));
}

static void test_format(void)
{
    char buf[FENNEL_TIME_BUF];
    g_assert_cmpstr(fennel_format_ns(603200, buf), ==, "603.2");
    g_assert_cmpstr(fennel_format_ns(2000000, buf), ==, "2000");
    g_assert_cmpstr(fennel_format_ns(1, buf), ==, "0.001");
    g_assert_cmpstr(fennel_format_ns(1839600, buf), ==, "1839.6");
    g_assert_cmpstr(fennel_format_ns(-500, buf), ==, "-0.5");
    g_assert_cmpstr(fennel_format_ns(0, buf), ==, "0");
    g_assert_cmpstr(fennel_format_ns(INT64_MIN, buf), ==, "-9223372036854775.808");
    g_assert_cmpstr(fennel_format_rate(400000000, buf), ==, "0.4");
}

/* Decimal numbers as the writers append them: every digit count and both ends, each
 * against printf's own decimal, into a string that must grow on the way. */
static void test_append_uint(void)
{
    GString *out = g_string_sized_new(1);
    GString *want = g_string_new(NULL);
    uint64_t values[] = {0,
                         1,
                         9,
                         10,
                         99,
                         100,
                         101,
                         999,
                         1000,
                         65535,
                         262144,
                         4294967295u,
                         9999999999999999999u,
                         10000000000000000000u,
                         UINT64_MAX};
    for (size_t i = 0; i < G_N_ELEMENTS(values); i++) {
        fennel_append_uint(out, values[i]);
        FENNEL_APPEND(out, ",");
        g_string_append_printf(want, "%" G_GUINT64_FORMAT ",", values[i]);
    }
    for (uint64_t power = 1; power <= UINT64_MAX / 10; power *= 10) {
        fennel_append_uint(out, power - 1);
        fennel_append_uint(out, power);
        FENNEL_APPEND(out, ";");
        g_string_append_printf(want, "%" G_GUINT64_FORMAT "%" G_GUINT64_FORMAT ";", power - 1,
                               power);
    }
    g_assert_cmpstr(out->str, ==, want->str);
    g_assert_cmpuint(out->len, ==, want->len);
    g_string_free(out, TRUE);
    g_string_free(want, TRUE);
}

static void test_int(void)
{
    int64_t v;
    const char *why;
    g_assert_true(fennel_parse_int("42", 0, 100, &v, &why));
    g_assert_cmpint(v, ==, 42);
    g_assert_false(fennel_parse_int("101", 0, 100, &v, &why));
    g_assert_false(fennel_parse_int("4.2", 0, 100, &v, &why));
    g_assert_false(fennel_parse_int("99999999999999999999999", 0, INT64_MAX, &v, &why));
    g_assert_true(fennel_parse_int("-3", -5, 5, &v, &why));
    g_assert_cmpint(v, ==, -3);
}

static void test_add_overflow(void)
{
    FennelTime t;
    g_assert_true(fennel_time_add(1, 2, &t));
    g_assert_cmpint(t, ==, 3);
    g_assert_false(fennel_time_add(FENNEL_TIME_MAX, 1, &t));
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/units/duration", test_duration);
    g_test_add_func("/units/size", test_size);
    g_test_add_func("/units/rate", test_rate);
    g_test_add_func("/units/flops", test_flops);
    g_test_add_func("/units/format", test_format);
    g_test_add_func("/units/append-uint", test_append_uint);
    g_test_add_func("/units/int", test_int);
    g_test_add_func("/units/add-overflow", test_add_overflow);
    return g_test_run();
}
