/* The value lists of a sweep: lists, arithmetic and geometric ranges with units, and
 * lists of schedules (sweep.h describes the syntax). */
#include "sweep.h"

#include "errors.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static gboolean usage(GError **error, const char *option, const char *item, const char *format, ...)
    G_GNUC_PRINTF(4, 5);

static gboolean usage(GError **error, const char *option, const char *item, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    char *why = g_strdup_vprintf(format, args);
    va_end(args);
    /* "--ranks 8..2: ..." but "--set alpha_p=1..2: ..." */
    const char *space = g_str_has_suffix(option, "=") ? "" : " ";
    g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE, "%s%s%s: %s", option, space, item, why);
    g_free(why);
    return FALSE;
}

static gboolean parse_kind(FennelSweepKind kind, const char *text, int64_t *out, const char **why)
{
    switch (kind) {
    case FENNEL_SWEEP_INT:
        return fennel_parse_int(text, 0, INT64_MAX, out, why);
    case FENNEL_SWEEP_SIZE:
        return fennel_parse_size(text, out, why);
    case FENNEL_SWEEP_DURATION:
        return fennel_parse_duration(text, out, why);
    case FENNEL_SWEEP_RATE:
        return fennel_parse_rate(text, out, why);
    }
    return FALSE;
}

/* One end or step of a range, with the option and item in the error. */
static gboolean parse_part(const char *option, const char *item, FennelSweepKind kind,
                           const char *text, int64_t *out, GError **error)
{
    const char *why = NULL;
    if (*text == '\0')
        return usage(error, option, item, "expected A..B, A..B:STEP or A..B*FACTOR");
    if (!parse_kind(kind, text, out, &why))
        return usage(error, option, item, "'%s': %s", text, why);
    return TRUE;
}

/* A geometric factor: a number greater than 1. */
static gboolean parse_factor(const char *option, const char *item, const char *text, double *out,
                             GError **error)
{
    char *end;
    errno = 0;
    double f = g_ascii_strtod(text, &end);
    if (*text == '\0' || *end != '\0' || errno || !(f > 1) || isinf(f))
        return usage(error, option, item, "the factor after '*' must be a number greater than 1");
    *out = f;
    return TRUE;
}

static gboolean push(const char *option, const char *item, GArray *out, int64_t v, GError **error)
{
    if (out->len >= FENNEL_SWEEP_MAX_VALUES)
        return usage(error, option, item, "more than %d values", FENNEL_SWEEP_MAX_VALUES);
    g_array_append_val(out, v);
    return TRUE;
}

/* The values of A..B*F: exact products for a whole factor, otherwise A F^k rounded to
 * the nearest whole unit, dropping repeats. */
static gboolean expand_geometric(const char *option, const char *item, int64_t a, int64_t b,
                                 double f, GArray *out, GError **error)
{
    if (a <= 0)
        return usage(error, option, item, "a geometric range must start above 0");
    if (log((double)b / (double)a) / log(f) > FENNEL_SWEEP_MAX_VALUES)
        return usage(error, option, item, "more than %d values", FENNEL_SWEEP_MAX_VALUES);
    if (f == floor(f) && f < 9.2e18) {
        int64_t whole = (int64_t)f;
        for (int64_t v = a; v <= b;) {
            if (!push(option, item, out, v, error))
                return FALSE;
            if (__builtin_mul_overflow(v, whole, &v))
                break;
        }
        return TRUE;
    }
    int64_t last = -1;
    for (int k = 0;; k++) {
        double v = (double)a * pow(f, k);
        if (v > (double)b + 0.5)
            break;
        int64_t r = llround(v);
        if (r > b)
            break;
        if (r != last && !push(option, item, out, r, error))
            return FALSE;
        last = r;
    }
    return TRUE;
}

/* Expands one item: a value or a range. */
static gboolean expand_item(const char *option, const char *item, FennelSweepKind kind, GArray *out,
                            GError **error)
{
    const char *dots = strstr(item, "..");
    if (dots == NULL) {
        int64_t v;
        return parse_part(option, item, kind, item, &v, error) && push(option, item, out, v, error);
    }
    char *first = g_strndup(item, (gsize)(dots - item));
    const char *rest = dots + 2;
    const char *sep = strpbrk(rest, ":*");
    char *last = sep ? g_strndup(rest, (gsize)(sep - rest)) : g_strdup(rest);
    int64_t a, b;
    gboolean ok = parse_part(option, item, kind, first, &a, error) &&
                  parse_part(option, item, kind, last, &b, error);
    g_free(first);
    g_free(last);
    if (!ok)
        return FALSE;
    if (a > b)
        return usage(error, option, item, "empty range (the start is after the end)");
    if (sep && *sep == '*') {
        double f = 0;
        return parse_factor(option, item, sep + 1, &f, error) &&
               expand_geometric(option, item, a, b, f, out, error);
    }
    int64_t step = 1;
    if (sep) {
        if (!parse_part(option, item, kind, sep + 1, &step, error))
            return FALSE;
        if (step <= 0)
            return usage(error, option, item, "the step must be greater than 0");
    } else if (kind == FENNEL_SWEEP_DURATION || kind == FENNEL_SWEEP_RATE) {
        return usage(error, option, item,
                     "a range of durations or per-byte times needs a step (A..B:STEP) or a "
                     "factor (A..B*FACTOR)");
    }
    if ((uint64_t)(b - a) / (uint64_t)step >= FENNEL_SWEEP_MAX_VALUES)
        return usage(error, option, item, "more than %d values", FENNEL_SWEEP_MAX_VALUES);
    for (int64_t v = a; v <= b; v += step) {
        if (!push(option, item, out, v, error))
            return FALSE;
        if (b - v < step)
            break;
    }
    return TRUE;
}

gboolean fennel_sweep_expand(const char *option, const char *text, FennelSweepKind kind,
                             int64_t min, int64_t max, GArray *out, GError **error)
{
    char **items = g_strsplit(text, ",", -1);
    gboolean ok = TRUE;
    for (char **it = items; *it && ok; it++) {
        char *item = g_strstrip(*it);
        if (*item == '\0') {
            ok = usage(error, option, text, "empty item in the list");
            break;
        }
        guint before = out->len;
        ok = expand_item(option, item, kind, out, error);
        for (guint i = before; i < out->len && ok; i++) {
            int64_t v = g_array_index(out, int64_t, i);
            if (v < min)
                ok = usage(error, option, item, "values must be at least %" G_GINT64_FORMAT, min);
            else if (v > max)
                ok = usage(error, option, item, "values must be at most %" G_GINT64_FORMAT, max);
        }
    }
    g_strfreev(items);
    return ok;
}

/* A decimal number followed by a unit: "2.5ns" gives 2.5 and "ns". */
static gboolean split_decimal(const char *text, double *value, const char **unit)
{
    char *end;
    errno = 0;
    *value = g_ascii_strtod(text, &end);
    if (end == text || errno || !isfinite(*value))
        return FALSE;
    *unit = end;
    return TRUE;
}

static void push_decimal(GPtrArray *out, double v, const char *unit)
{
    char buf[G_ASCII_DTOSTR_BUF_SIZE];
    /* Twelve significant digits hide the binary rounding of a + k step. */
    g_ascii_formatd(buf, sizeof buf, "%.12g", v);
    g_ptr_array_add(out, g_strconcat(buf, unit, NULL));
}

static gboolean expand_decimal_item(const char *option, const char *item, GPtrArray *out,
                                    GError **error)
{
    const char *dots = strstr(item, "..");
    if (dots == NULL) {
        g_ptr_array_add(out, g_strdup(item));
        return TRUE;
    }
    char *first = g_strndup(item, (gsize)(dots - item));
    const char *rest = dots + 2;
    const char *sep = strpbrk(rest, ":*");
    char *last = sep ? g_strndup(rest, (gsize)(sep - rest)) : g_strdup(rest);
    double a, b, step = 1;
    const char *ua, *ub, *us = "";
    gboolean ok = split_decimal(first, &a, &ua) && split_decimal(last, &b, &ub) &&
                  (sep == NULL || split_decimal(sep + 1, &step, &us));
    if (!ok) {
        g_free(first);
        g_free(last);
        return usage(error, option, item, "expected numbers in A..B, A..B:STEP or A..B*FACTOR");
    }
    char *unit = g_strdup(ua);
    ok = strcmp(ua, ub) == 0 && (*us == '\0' || strcmp(us, ua) == 0 || (sep && *sep == '*'));
    g_free(first);
    g_free(last);
    if (!ok) {
        g_free(unit);
        return usage(error, option, item, "the ends and the step of the range need one unit");
    }
    if (a > b) {
        g_free(unit);
        return usage(error, option, item, "empty range (the start is after the end)");
    }
    gboolean geometric = sep && *sep == '*';
    if (geometric ? !(step > 1) || *us != '\0' || !(a > 0) : !(step > 0)) {
        g_free(unit);
        return usage(error, option, item,
                     geometric ? "a geometric range needs a start above 0 and a factor above 1"
                               : "the step must be greater than 0");
    }
    double count = geometric ? log(b / a) / log(step) : (b - a) / step;
    if (count >= FENNEL_SWEEP_MAX_VALUES) {
        g_free(unit);
        return usage(error, option, item, "more than %d values", FENNEL_SWEEP_MAX_VALUES);
    }
    /* A relative slack of 1e-9 keeps the end when a + k step lands just past it. */
    double slack = 1e-9 * MAX(fabs(a), fabs(b));
    for (int k = 0;; k++) {
        double v = geometric ? a * pow(step, k) : a + k * step;
        if (v > b + slack)
            break;
        push_decimal(out, v, unit);
    }
    g_free(unit);
    return TRUE;
}

gboolean fennel_sweep_expand_decimal(const char *option, const char *text, GPtrArray *out,
                                     GError **error)
{
    char **items = g_strsplit(text, ",", -1);
    gboolean ok = TRUE;
    for (char **it = items; *it && ok; it++) {
        char *item = g_strstrip(*it);
        if (*item == '\0')
            ok = usage(error, option, text, "empty item in the list");
        else
            ok = expand_decimal_item(option, item, out, error);
    }
    g_strfreev(items);
    return ok;
}

/* Whether a list item names a schedule rather than being one stage of it. */
static gboolean is_schedule_name(const char *t)
{
    return strcmp(t, "rd") == 0 || strcmp(t, "heuristic") == 0 ||
           g_str_has_prefix(t, "heuristic:") || strcmp(t, "best") == 0 ||
           strcmp(t, "best:thesis") == 0;
}

static gboolean add_schedule(GPtrArray *out, const char *text, const char *all, GError **error)
{
    char *s = g_strstrip(g_strdup(text));
    if (*s == '\0') {
        g_free(s);
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE,
                    "--schedule %s: empty schedule in the list", all);
        return FALSE;
    }
    g_ptr_array_add(out, s);
    return TRUE;
}

char **fennel_sweep_split_schedules(const char *text, GError **error)
{
    GPtrArray *out = g_ptr_array_new_with_free_func(g_free);
    gboolean ok = TRUE;
    if (strchr(text, ';')) {
        char **parts = g_strsplit(text, ";", -1);
        for (char **p = parts; *p && ok; p++)
            ok = add_schedule(out, *p, text, error);
        g_strfreev(parts);
    } else {
        /* Top-level comma-separated tokens; a run of bare stages forms one schedule. */
        GString *run = g_string_new(NULL);
        int depth = 0;
        const char *start = text;
        for (const char *c = text;; c++) {
            if (*c == '(')
                depth++;
            else if (*c == ')')
                depth--;
            if (depth < 0)
                break;
            if ((*c != ',' || depth > 0) && *c != '\0')
                continue;
            char *token = g_strstrip(g_strndup(start, (gsize)(c - start)));
            if (*token == '(' || is_schedule_name(token) || *token == '\0') {
                if (run->len)
                    ok = add_schedule(out, run->str, text, error);
                g_string_truncate(run, 0);
                if (ok)
                    ok = add_schedule(out, token, text, error);
            } else {
                g_string_append_printf(run, "%s%s", run->len ? "," : "", token);
            }
            g_free(token);
            if (*c == '\0' || !ok)
                break;
            start = c + 1;
        }
        if (ok && depth != 0) {
            g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE,
                        "--schedule %s: unbalanced parentheses", text);
            ok = FALSE;
        }
        if (ok && run->len)
            ok = add_schedule(out, run->str, text, error);
        g_string_free(run, TRUE);
    }
    if (!ok) {
        g_ptr_array_free(out, TRUE);
        return NULL;
    }
    g_ptr_array_add(out, NULL);
    return (char **)g_ptr_array_free(out, FALSE);
}
