#include "units.h"

#include <string.h>

/* A decimal number split into an integer mantissa and a power of ten, read without
 * any binary floating point so that unit conversions are exact. */
typedef struct {
    __int128 mantissa;
    int exponent;
    gboolean negative;
} Decimal;

#define MANTISSA_LIMIT ((__int128)1 << 100)

/* Reads "[-+]digits[.digits][e[-+]digits]" from *p; advances *p past it. */
static gboolean read_decimal(const char **p, Decimal *d, const char **why)
{
    const char *s = *p;
    d->mantissa = 0;
    d->exponent = 0;
    d->negative = FALSE;
    if (*s == '-' || *s == '+')
        d->negative = (*s++ == '-');
    gboolean digits = FALSE;
    for (; g_ascii_isdigit(*s); s++, digits = TRUE) {
        if (d->mantissa < MANTISSA_LIMIT)
            d->mantissa = d->mantissa * 10 + (*s - '0');
        else
            d->exponent++;
    }
    if (*s == '.') {
        for (s++; g_ascii_isdigit(*s); s++, digits = TRUE) {
            if (d->mantissa < MANTISSA_LIMIT) {
                d->mantissa = d->mantissa * 10 + (*s - '0');
                d->exponent--;
            }
        }
    }
    if (!digits) {
        *why = "expected a number";
        return FALSE;
    }
    if ((*s == 'e' || *s == 'E') &&
        (g_ascii_isdigit(s[1]) || ((s[1] == '-' || s[1] == '+') && g_ascii_isdigit(s[2])))) {
        s++;
        gboolean neg = FALSE;
        if (*s == '-' || *s == '+')
            neg = (*s++ == '-');
        int e = 0;
        for (; g_ascii_isdigit(*s); s++) {
            if (e < 10000)
                e = e * 10 + (*s - '0');
        }
        d->exponent += neg ? -e : e;
    }
    *p = s;
    return TRUE;
}

/* Converts d x 10^scale to an integer, rounding to nearest (halves away from zero).
 * FALSE if the magnitude exceeds INT64_MAX. */
static gboolean decimal_to_int(const Decimal *d, int scale, int64_t *out, const char **why)
{
    __int128 v = d->mantissa;
    int e = d->exponent + scale;
    if (v == 0) {
        *out = 0;
        return TRUE;
    }
    for (; e > 0; e--) {
        if (v > (__int128)INT64_MAX) {
            *why = "value is too large";
            return FALSE;
        }
        v *= 10;
    }
    if (e < 0) {
        __int128 div = 1;
        for (; e < 0 && div <= v; e++)
            div *= 10;
        v = e < 0 ? 0 : (v + div / 2) / div;
    }
    if (v > (__int128)INT64_MAX) {
        *why = "value is too large";
        return FALSE;
    }
    *out = d->negative ? -(int64_t)v : (int64_t)v;
    return TRUE;
}

typedef struct {
    const char *name;
    int scale; /* power of ten of the unit in the target unit */
} Unit;

/* Duration units, as powers of ten of a picosecond. */
static const Unit time_units[] = {
    {"ps", 0}, {"ns", 3}, {"us", 6}, {"\xc2\xb5s", 6}, {"ms", 9}, {"s", 12}, {NULL, 0},
};

static const Unit *find_unit(const Unit *units, const char *s, size_t len)
{
    for (const Unit *u = units; u->name; u++) {
        if (strlen(u->name) == len && strncmp(u->name, s, len) == 0)
            return u;
    }
    return NULL;
}

static const char *skip_space(const char *s)
{
    while (*s == ' ')
        s++;
    return s;
}

gboolean fennel_parse_duration(const char *text, FennelTime *out, const char **why)
{
    const char *s = skip_space(text);
    Decimal d;
    if (!read_decimal(&s, &d, why))
        return FALSE;
    s = skip_space(s);
    int scale = 3; /* a bare number is nanoseconds */
    if (*s) {
        const Unit *u = find_unit(time_units, s, strlen(s));
        if (u == NULL) {
            *why = "unknown time unit (expected ps, ns, us, ms or s)";
            return FALSE;
        }
        scale = u->scale;
    }
    if (d.negative && d.mantissa != 0) {
        *why = "must not be negative";
        return FALSE;
    }
    return decimal_to_int(&d, scale, out, why);
}

gboolean fennel_parse_rate(const char *text, FennelRate *out, const char **why)
{
    const char *s = skip_space(text);
    Decimal d;
    if (!read_decimal(&s, &d, why))
        return FALSE;
    s = skip_space(s);
    int scale = 9; /* a bare number is ns per byte, i.e. 10^9 attoseconds per byte */
    if (*s) {
        const char *slash = strchr(s, '/');
        if (slash == NULL || strcmp(skip_space(slash + 1), "B") != 0) {
            *why = "expected a time per byte such as 0.4ns/B";
            return FALSE;
        }
        size_t len = (size_t)(slash - s);
        while (len > 0 && s[len - 1] == ' ')
            len--;
        const Unit *u = find_unit(time_units, s, len);
        if (u == NULL) {
            *why = "unknown time unit (expected ps, ns, us, ms or s per B)";
            return FALSE;
        }
        scale = u->scale + 6;
    }
    if (d.negative && d.mantissa != 0) {
        *why = "must not be negative";
        return FALSE;
    }
    return decimal_to_int(&d, scale, out, why);
}

/* Bandwidth units: bytes per second of one unit, times 8 (so that bits are whole). */
static const struct {
    const char *name;
    int64_t eighths;
} bandwidth_units[] = {
    {"B/s", 8},          {"kB/s", 8000},         {"KB/s", 8000},
    {"MB/s", 8000000},   {"GB/s", 8000000000},   {"TB/s", 8000000000000},
    {"KiB/s", 8 * 1024}, {"MiB/s", 8 * 1048576}, {"GiB/s", 8 * (int64_t)1073741824},
    {"bit/s", 1},        {"kbit/s", 1000},       {"Kbit/s", 1000},
    {"Mbit/s", 1000000}, {"Gbit/s", 1000000000}, {"Tbit/s", 1000000000000},
};

gboolean fennel_parse_bandwidth(const char *text, FennelRate *out, const char **why)
{
    const char *s = skip_space(text);
    Decimal d;
    if (!read_decimal(&s, &d, why))
        return FALSE;
    s = skip_space(s);
    int64_t eighths = 0;
    for (size_t i = 0; i < G_N_ELEMENTS(bandwidth_units); i++) {
        if (strcmp(s, bandwidth_units[i].name) == 0)
            eighths = bandwidth_units[i].eighths;
    }
    if (eighths == 0) {
        *why = "expected a bandwidth such as 100Gbit/s or 12.5GB/s (B/s, kB/s, MB/s, GB/s, "
               "TB/s, KiB/s, MiB/s, GiB/s, bit/s, Mbit/s, Gbit/s, Tbit/s)";
        return FALSE;
    }
    if (d.negative || d.mantissa == 0) {
        *why = "must be positive";
        return FALSE;
    }
    /* A mantissa of more than 24 digits (read_decimal keeps up to 31) times the eighths
     * would overflow __int128: it is rounded to 24 digits, far finer than the attosecond
     * the result is rounded to. */
    while (d.mantissa >= ((__int128)1 << 80)) {
        d.mantissa = (d.mantissa + 5) / 10;
        d.exponent++;
    }
    /* attoseconds per byte = 8e18 / (mantissa 10^exponent eighths), rounded to nearest:
     * numerator and denominator as integers by moving the power of ten to one side. */
    __int128 num = 8, den = d.mantissa * eighths;
    int e = 18 - d.exponent;
    for (; e > 0; e--) {
        if (num > ((__int128)1 << 100)) {
            *why = "bandwidth is too low";
            return FALSE;
        }
        num *= 10;
    }
    for (; e < 0; e++) {
        if (den > ((__int128)1 << 100))
            break;
        den *= 10;
    }
    __int128 v = e < 0 ? 0 : (num + den / 2) / den;
    if (v > INT64_MAX) {
        *why = "bandwidth is too low";
        return FALSE;
    }
    if (v == 0) {
        *why = "bandwidth is too high (below one attosecond per byte)";
        return FALSE;
    }
    *out = (FennelRate)v;
    return TRUE;
}

/* Operation rate units, as powers of ten of one operation per second. */
static const Unit flops_units[] = {
    {"FLOP/s", 0},   {"kFLOP/s", 3},  {"MFLOP/s", 6}, {"GFLOP/s", 9},
    {"TFLOP/s", 12}, {"PFLOP/s", 15}, {NULL, 0},
};

gboolean fennel_parse_flops(const char *text, int64_t *out, const char **why)
{
    const char *s = skip_space(text);
    Decimal d;
    if (!read_decimal(&s, &d, why))
        return FALSE;
    s = skip_space(s);
    int scale = 0;
    if (*s) {
        const Unit *u = find_unit(flops_units, s, strlen(s));
        if (u == NULL) {
            *why = "expected a rate such as 312TFLOP/s (FLOP/s, kFLOP/s, MFLOP/s, GFLOP/s, "
                   "TFLOP/s, PFLOP/s)";
            return FALSE;
        }
        scale = u->scale;
    }
    int64_t v;
    if (d.negative || d.mantissa == 0) {
        *why = "must be positive";
        return FALSE;
    }
    if (!decimal_to_int(&d, scale, &v, why))
        return FALSE;
    if (v <= 0) {
        *why = "must be at least 1FLOP/s";
        return FALSE;
    }
    *out = v;
    return TRUE;
}

char *fennel_format_bandwidth(FennelRate r, char buf[FENNEL_TIME_BUF])
{
    /* Gbit/s with up to three decimals: 8e18 / r bits per second / 1e9. */
    double gbit = 8e9 / (double)r;
    g_snprintf(buf, FENNEL_TIME_BUF, "%.3f", gbit);
    char *end = buf + strlen(buf) - 1;
    while (*end == '0')
        *end-- = '\0';
    if (*end == '.')
        *end = '\0';
    g_strlcat(buf, "Gbit/s", FENNEL_TIME_BUF);
    return buf;
}

gboolean fennel_parse_size(const char *text, int64_t *out, const char **why)
{
    static const struct {
        const char *name;
        int64_t factor;
    } units[] = {
        {"B", 1},
        {"kB", 1000},
        {"KB", 1000},
        {"MB", 1000000},
        {"GB", 1000000000},
        {"TB", 1000000000000},
        {"KiB", (int64_t)1 << 10},
        {"MiB", (int64_t)1 << 20},
        {"GiB", (int64_t)1 << 30},
        {"TiB", (int64_t)1 << 40},
    };
    const char *s = skip_space(text);
    Decimal d;
    if (!read_decimal(&s, &d, why))
        return FALSE;
    s = skip_space(s);
    int64_t factor = 1;
    if (*s) {
        gboolean found = FALSE;
        for (size_t i = 0; i < G_N_ELEMENTS(units); i++) {
            if (strcmp(s, units[i].name) == 0) {
                factor = units[i].factor;
                found = TRUE;
            }
        }
        if (!found) {
            *why = "unknown size unit (expected B, kB, MB, GB, TB, KiB, MiB, GiB or TiB)";
            return FALSE;
        }
    }
    if (d.negative && d.mantissa != 0) {
        *why = "must not be negative";
        return FALSE;
    }
    /* Scale exactly: value = mantissa x 10^exponent x factor must be whole. Trailing
     * zeros go first, so that the product cannot overflow for any number of them; what
     * still overflows has more significant digits than any size needs. */
    __int128 v = d.mantissa;
    int e = d.exponent;
    for (; e < 0 && v != 0 && v % 10 == 0; e++)
        v /= 10;
    if (__builtin_mul_overflow(v, (__int128)factor, &v)) {
        *why = e >= 0 ? "value is too large" : "has too many digits";
        return FALSE;
    }
    for (; e > 0; e--) {
        if (v > (__int128)INT64_MAX) {
            *why = "value is too large";
            return FALSE;
        }
        v *= 10;
    }
    for (; e < 0; e++) {
        if (v % 10 != 0) {
            *why = "must be a whole number of bytes";
            return FALSE;
        }
        v /= 10;
    }
    if (v > (__int128)INT64_MAX) {
        *why = "value is too large";
        return FALSE;
    }
    *out = (int64_t)v;
    return TRUE;
}

gboolean fennel_parse_int(const char *text, int64_t min, int64_t max, int64_t *out,
                          const char **why)
{
    const char *s = skip_space(text);
    gboolean negative = FALSE;
    if (*s == '-' || *s == '+')
        negative = (*s++ == '-');
    if (!g_ascii_isdigit(*s)) {
        *why = "expected a whole number";
        return FALSE;
    }
    __int128 v = 0;
    for (; g_ascii_isdigit(*s); s++) {
        if (v <= (__int128)INT64_MAX)
            v = v * 10 + (*s - '0');
    }
    if (*skip_space(s) != '\0') {
        *why = "expected a whole number";
        return FALSE;
    }
    if (negative)
        v = -v;
    if (v < min || v > max) {
        *why = "value is out of range";
        return FALSE;
    }
    *out = (int64_t)v;
    return TRUE;
}

static char *format_fixed(int64_t value, int64_t unit, int decimals, char *buf)
{
    /* Work on the magnitude in unsigned arithmetic so INT64_MIN is safe. */
    uint64_t mag = value < 0 ? -(uint64_t)value : (uint64_t)value;
    uint64_t whole = mag / (uint64_t)unit, frac = mag % (uint64_t)unit;
    int n = g_snprintf(buf, FENNEL_TIME_BUF, "%s%" G_GUINT64_FORMAT, value < 0 ? "-" : "", whole);
    if (frac != 0) {
        char digits[24];
        g_snprintf(digits, sizeof digits, "%0*" G_GUINT64_FORMAT, decimals, frac);
        for (int i = decimals - 1; i > 0 && digits[i] == '0'; i--)
            digits[i] = '\0';
        g_snprintf(buf + n, FENNEL_TIME_BUF - n, ".%s", digits);
    }
    return buf;
}

char *fennel_format_ns(FennelTime t, char buf[FENNEL_TIME_BUF])
{
    return format_fixed(t, FENNEL_NS, 3, buf);
}

char *fennel_format_rate(FennelRate r, char buf[FENNEL_TIME_BUF])
{
    return format_fixed(r, 1000000000, 9, buf);
}

const char fennel_digit_pairs[200] = "00010203040506070809101112131415161718192021222324"
                                     "25262728293031323334353637383940414243444546474849"
                                     "50515253545556575859606162636465666768697071727374"
                                     "75767778798081828384858687888990919293949596979899";
const uint64_t fennel_powers_of_ten[20] = {1u,
                                           10u,
                                           100u,
                                           1000u,
                                           10000u,
                                           100000u,
                                           1000000u,
                                           10000000u,
                                           100000000u,
                                           1000000000u,
                                           10000000000u,
                                           100000000000u,
                                           1000000000000u,
                                           10000000000000u,
                                           100000000000000u,
                                           1000000000000000u,
                                           10000000000000000u,
                                           100000000000000000u,
                                           1000000000000000000u,
                                           10000000000000000000u};
