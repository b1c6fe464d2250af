/* Time and units. Simulated time is an int64 count of picoseconds. Per-byte times
 * are int64 attoseconds per byte, so that size x rate products are exact before they
 * are rounded to the model's resolution. Text is parsed exactly (decimal, no binary
 * floating point), so "0.4ns/B" times 8 bytes is exactly 3.2 ns. */
#ifndef FENNEL_UNITS_H
#define FENNEL_UNITS_H

#include <glib.h>
#include <string.h>
#include <stdint.h>

typedef int64_t FennelTime; /* picoseconds */
typedef int64_t FennelRate; /* attoseconds per byte */

#define FENNEL_PS       ((FennelTime)1)
#define FENNEL_NS       ((FennelTime)1000)
#define FENNEL_US       ((FennelTime)1000000)
#define FENNEL_TIME_MAX INT64_MAX
#define FENNEL_TIME_MIN INT64_MIN

/* Attoseconds in one picosecond: converts a duration to the unit of rate x size. */
#define FENNEL_AS_PER_PS ((int64_t)1000000)

/* Each parser returns FALSE and sets *why to a static, lower-case reason when the
 * text is not a valid value. Negative values are rejected by all three. */

/* "250ps", "500ns", "1.5us", "2ms", "1s"; a bare number is nanoseconds. Rounded to
 * the nearest picosecond. */
gboolean fennel_parse_duration(const char *text, FennelTime *out, const char **why);

/* "8", "8B", "4KiB", "1MiB", "1kB", "2GB": a whole number of bytes. */
gboolean fennel_parse_size(const char *text, int64_t *out, const char **why);

/* "0.4ns/B", "400ps/B"; a bare number is nanoseconds per byte. Rounded to the nearest
 * attosecond per byte. */
gboolean fennel_parse_rate(const char *text, FennelRate *out, const char **why);

/* A whole number within [min, max]. */
gboolean fennel_parse_int(const char *text, int64_t min, int64_t max, int64_t *out,
                          const char **why);

/* Formats picoseconds as nanoseconds with up to three decimals and no trailing
 * zeros ("603.2", "2000", "-0.5"). Returns buf. */
#define FENNEL_TIME_BUF 32
char *fennel_format_ns(FennelTime t, char buf[FENNEL_TIME_BUF]);

/* Appends n bytes: for writers of millions of pieces, a copy into the string's room, GLib
 * called only to grow it (g_string_append is a call and a strlen per piece). */
static inline void fennel_append_len(GString *out, const char *s, gsize n)
{
    if (G_LIKELY(out->len + n < out->allocated_len)) {
        memcpy(out->str + out->len, s, n);
        out->len += n;
        out->str[out->len] = '\0';
    } else {
        g_string_append_len(out, s, (gssize)n);
    }
}
/* A string literal, its length known at compile time. */
#define FENNEL_APPEND(out, literal) fennel_append_len(out, literal, sizeof(literal) - 1)

/* Room for n more bytes (and the terminator) in out's allocation. */
static inline void fennel_string_reserve(GString *out, gsize n)
{
    if (G_UNLIKELY(out->len + n >= out->allocated_len)) {
        const gsize len = out->len;
        g_string_set_size(out, len + n);
        g_string_truncate(out, len);
    }
}

/* The two digits of each number below 100, "00" to "99"; 10^0 to 10^19. */
extern const char fennel_digit_pairs[200];
extern const uint64_t fennel_powers_of_ten[20];

/* Writes v in decimal at `at` (1 to 20 bytes, no terminator) and returns the end: two
 * digits a step, since writers spend much of their time on numbers. */
static inline char *fennel_put_uint(char *at, uint64_t v)
{
    /* The digits: about log10(2) = 1233 / 4096 per bit, then one comparison (v | 1 makes 0
     * one digit and moves no other number across a power of ten, all of which are even). */
    const int bits = 64 - __builtin_clzll(v | 1);
    const int power = (bits * 1233) >> 12;
    const int n = power + ((v | 1) >= fennel_powers_of_ten[power]);
    char *end = at + n, *c = end;
    while (v >= 100) {
        c -= 2;
        memcpy(c, fennel_digit_pairs + 2 * (v % 100), 2);
        v /= 100;
    }
    if (v >= 10)
        memcpy(c - 2, fennel_digit_pairs + 2 * v, 2);
    else
        c[-1] = (char)('0' + v);
    return end;
}

/* Appends v in decimal: for writers of millions of numbers, where printf costs most. */
static inline void fennel_append_uint(GString *out, uint64_t v)
{
    fennel_string_reserve(out, 20);
    char *end = fennel_put_uint(out->str + out->len, v);
    *end = '\0';
    out->len = (gsize)(end - out->str);
}

/* Formats a rate as nanoseconds per byte with up to nine decimals ("0.4"). */
char *fennel_format_rate(FennelRate r, char buf[FENNEL_TIME_BUF]);

/* A bandwidth ("100Gbit/s", "12.5GB/s", "1GiB/s") as the time per byte, rounded to the
 * nearest attosecond per byte; must be positive. */
gboolean fennel_parse_bandwidth(const char *text, FennelRate *out, const char **why);

/* A peak rate of operations ("312TFLOP/s", "19.5TFLOP/s", "1e15FLOP/s"; FLOP/s, kFLOP/s,
 * MFLOP/s, GFLOP/s, TFLOP/s, PFLOP/s; a bare number is FLOP/s) as whole operations per
 * second, rounded to the nearest; must be positive. */
gboolean fennel_parse_flops(const char *text, int64_t *out, const char **why);

/* A time per byte as a bandwidth in Gbit/s with up to three decimals ("100Gbit/s"). */
char *fennel_format_bandwidth(FennelRate r, char buf[FENNEL_TIME_BUF]);

/* Adds two times; FALSE on int64 overflow. */
static inline gboolean fennel_time_add(FennelTime a, FennelTime b, FennelTime *out)
{
    return !__builtin_add_overflow(a, b, out);
}

#endif
