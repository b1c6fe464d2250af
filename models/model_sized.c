/* Size-dependent parameters (docs/SEMANTICS.md): a network parameter given as a table over
 * the message size or as a list of size ranges is held as points (bytes, value); the value
 * for a message is interpolated between them in exact integer arithmetic. */
#include "model.h"

#include <string.h>

FennelParamTable *fennel_param_table_new(uint32_t n)
{
    FennelParamTable *t = g_malloc0(sizeof *t + (size_t)n * sizeof(FennelSizePoint));
    t->n = n;
    return t;
}

FennelParamTable *fennel_param_table_copy(const FennelParamTable *t)
{
    return t ? g_memdup2(t, sizeof *t + (size_t)t->n * sizeof(FennelSizePoint)) : NULL;
}

/* The value at s on the line through points a and b (a.bytes < b.bytes), rounded to the
 * nearest unit, halves up (the value is rounded, not the step from a), and kept within
 * [0, INT64_MAX]. The product of a value difference (below 2^64) and a size difference
 * (below 2^63) fits in 128 bits. */
static int64_t on_line(FennelSizePoint a, FennelSizePoint b, int64_t s)
{
    __int128 num = ((__int128)b.value - a.value) * ((__int128)s - a.bytes);
    __int128 den = (__int128)b.bytes - a.bytes;
    /* Floor division, so that the remainder r is in [0, den): the exact value is
     * a + q + r / den, which rounds up when 2r >= den. */
    __int128 q = num / den, r = num % den;
    if (r < 0) {
        q -= 1;
        r += den;
    }
    __int128 v = a.value + q + (2 * r >= den);
    if (v < 0)
        return 0;
    if (v > INT64_MAX)
        return INT64_MAX;
    return (int64_t)v;
}

int64_t fennel_param_table_at(const FennelParamTable *t, int64_t s)
{
    const FennelSizePoint *p = t->points;
    uint32_t n = t->n;
    if (n == 1)
        return p[0].value;
    /* Below the first point: the first segment extended (a step there: its first value). */
    if (s < p[0].bytes)
        return p[1].bytes > p[0].bytes ? on_line(p[0], p[1], s) : p[0].value;
    /* The last point at or below s (the later of a step's two). */
    uint32_t lo = 0, hi = n; /* p[lo].bytes <= s < p[hi].bytes, p[n] taken as infinite */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (p[mid].bytes <= s)
            lo = mid;
        else
            hi = mid;
    }
    if (lo == n - 1)
        return p[n - 2].bytes < p[n - 1].bytes ? on_line(p[n - 2], p[n - 1], s) : p[n - 1].value;
    return on_line(p[lo], p[lo + 1], s);
}

char *fennel_param_table_format(FennelParamKind kind, const FennelParamTable *t)
{
    GString *s = g_string_new("{");
    char buf[48];
    for (uint32_t i = 0; i < t->n; i++)
        g_string_append_printf(s, "%s%" G_GINT64_FORMAT "B: %s", i ? ", " : "", t->points[i].bytes,
                               fennel_param_format(kind, t->points[i].value, buf));
    g_string_append_c(s, '}');
    return g_string_free(s, FALSE);
}

void fennel_model_params_fill(const FennelModel *m, const int64_t *p, int64_t bytes, int64_t *out)
{
    FennelParamTable *const *tables = p == m->intra ? m->intra_table : m->net_table;
    for (unsigned k = 0; k < FENNEL_MAX_PARAMS; k++)
        out[k] = tables[k] ? fennel_param_table_at(tables[k], bytes) : p[k];
}

static void update_sized(FennelModel *m)
{
    m->sized = FALSE;
    for (unsigned k = 0; k < FENNEL_MAX_PARAMS; k++)
        m->sized |= m->net_table[k] != NULL || m->intra_table[k] != NULL;
}

void fennel_model_set_table(FennelModel *m, gboolean intra, unsigned k, FennelParamTable *t)
{
    FennelParamTable **slot = intra ? &m->intra_table[k] : &m->net_table[k];
    g_free(*slot);
    *slot = t;
    update_sized(m);
}
