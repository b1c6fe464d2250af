/* Seeded noise (docs/SEMANTICS.md). A sample is a pure function of (seed, stream, index): a
 * small generator is seeded from a hash of the three and draws as many uniforms as the
 * distribution needs, so results never depend on event order or thread count. */
#include "model.h"

#include "input.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const stream_names[FENNEL_NOISE_N_STREAMS] = {"network", "host", "compute"};

const char *fennel_noise_stream_name(FennelNoiseStream stream)
{
    return stream < FENNEL_NOISE_N_STREAMS ? stream_names[stream] : "?";
}

typedef struct {
    const char *name;
    const char *keys[3];
    gboolean duration[3]; /* parsed as a duration (ns) rather than a plain number */
    const char *defaults[3];
} Distribution;

static const Distribution distributions[] = {
    [FENNEL_NOISE_NONE] = {"none", {NULL}, {0}, {NULL}},
    [FENNEL_NOISE_CONSTANT] = {"constant", {"value"}, {TRUE}, {NULL}},
    [FENNEL_NOISE_UNIFORM] = {"uniform", {"min", "max"}, {TRUE, TRUE}, {NULL, NULL}},
    [FENNEL_NOISE_NORMAL] = {"normal", {"mean", "stddev"}, {TRUE, TRUE}, {"0", NULL}},
    [FENNEL_NOISE_LOGNORMAL] = {"lognormal",
                                {"mu", "sigma", "scale"},
                                {FALSE, FALSE, TRUE},
                                {"0", NULL, "1ns"}},
    [FENNEL_NOISE_EXPONENTIAL] = {"exponential", {"mean"}, {TRUE}, {NULL}},
    [FENNEL_NOISE_GAMMA] = {"gamma", {"shape", "scale"}, {FALSE, TRUE}, {NULL, NULL}},
    [FENNEL_NOISE_BETAPRIME] = {"betaprime",
                                {"a", "b", "scale"},
                                {FALSE, FALSE, TRUE},
                                {NULL, NULL, "1ns"}},
    [FENNEL_NOISE_EMPIRICAL] = {"empirical", {"file"}, {FALSE}, {NULL}},
};

#define N_DISTRIBUTIONS ((int)G_N_ELEMENTS(distributions))

/* NaN marks a parameter not given yet. */
static void reset(FennelNoise *n, FennelNoiseKind kind)
{
    g_free(n->samples);
    *n = (FennelNoise){.kind = kind, .p = {NAN, NAN, NAN}};
}

/* A duration in ns, which may be negative here (a normal's mean, a uniform's min). */
static gboolean parse_signed_duration(const char *text, double *out, const char **why)
{
    gboolean negative = text[0] == '-';
    FennelTime ps;
    if (!fennel_parse_duration(negative ? text + 1 : text, &ps, why))
        return FALSE;
    *out = (negative ? -1.0 : 1.0) * (double)ps / FENNEL_NS;
    return TRUE;
}

static gboolean parse_number(const char *text, double *out)
{
    char *end;
    *out = g_ascii_strtod(text, &end);
    return end != text && *end == '\0' && isfinite(*out);
}

static gboolean load_samples(FennelNoise *n, const char *path, char **why)
{
    char *data;
    gsize length;
    GError *error = NULL;
    if (!fennel_read_input(path, &data, &length, &error)) {
        *why = g_strdup_printf("file: %s", error->message);
        g_error_free(error);
        return FALSE;
    }
    GArray *samples = g_array_new(FALSE, FALSE, sizeof(double));
    char **lines = g_strsplit(data, "\n", -1);
    gboolean ok = TRUE;
    for (int i = 0; lines[i] && ok; i++) {
        char *line = g_strstrip(lines[i]);
        if (*line == '\0' || *line == '#')
            continue;
        double v;
        const char *reason;
        if (!parse_signed_duration(line, &v, &reason)) {
            *why = g_strdup_printf("file %s:%d: %s", path, i + 1, reason);
            ok = FALSE;
        }
        g_array_append_val(samples, v);
    }
    g_strfreev(lines);
    g_free(data);
    if (ok && samples->len == 0) {
        *why = g_strdup_printf("file %s: no samples", path);
        ok = FALSE;
    }
    n->n_samples = samples->len;
    n->samples = (double *)g_array_free(samples, !ok);
    if (!ok)
        n->n_samples = 0;
    return ok;
}

gboolean fennel_noise_set(FennelNoise *n, const char *key, const char *value, const char *base_dir,
                          char **why)
{
    if (strcmp(key, "distribution") == 0) {
        for (int k = 0; k < N_DISTRIBUTIONS; k++) {
            if (strcmp(distributions[k].name, value) == 0) {
                reset(n, (FennelNoiseKind)k);
                return TRUE;
            }
        }
        *why = g_strdup_printf("unknown distribution '%s' (known: constant, uniform, normal, "
                               "lognormal, exponential, gamma, betaprime, empirical, none)",
                               value);
        return FALSE;
    }
    const Distribution *d = &distributions[n->kind];
    for (int i = 0; i < 3 && d->keys[i]; i++) {
        if (strcmp(d->keys[i], key) != 0)
            continue;
        if (n->kind == FENNEL_NOISE_EMPIRICAL) {
            char *path = g_path_is_absolute(value) || base_dir == NULL
                             ? g_strdup(value)
                             : g_build_filename(base_dir, value, NULL);
            gboolean ok = load_samples(n, path, why);
            g_free(path);
            return ok;
        }
        const char *reason = "expected a number";
        gboolean ok = d->duration[i] ? parse_signed_duration(value, &n->p[i], &reason)
                                     : parse_number(value, &n->p[i]);
        if (!ok) {
            *why = g_strdup_printf("%s: %s", key, reason);
            return FALSE;
        }
        return TRUE;
    }
    GString *keys = g_string_new("distribution");
    for (int i = 0; i < 3 && d->keys[i]; i++)
        g_string_append_printf(keys, ", %s", d->keys[i]);
    *why = g_strdup_printf("unknown key '%s' for %s noise (it has: %s)", key, d->name, keys->str);
    g_string_free(keys, TRUE);
    return FALSE;
}

char *fennel_noise_check(const FennelNoise *n)
{
    const Distribution *d = &distributions[n->kind];
    if (n->kind == FENNEL_NOISE_EMPIRICAL)
        return n->n_samples ? NULL : g_strdup("empirical noise needs a 'file' of samples");
    for (int i = 0; i < 3 && d->keys[i]; i++) {
        if (isnan(n->p[i]) && d->defaults[i] == NULL)
            return g_strdup_printf("%s noise needs '%s'", d->name, d->keys[i]);
    }
    FennelNoise full = *n;
    for (int i = 0; i < 3 && d->keys[i]; i++) {
        if (isnan(full.p[i])) {
            const char *reason;
            if (d->duration[i])
                parse_signed_duration(d->defaults[i], &full.p[i], &reason);
            else
                parse_number(d->defaults[i], &full.p[i]);
        }
    }
    /* The first parameter out of its range, named with the rule it breaks. */
    switch (n->kind) {
    case FENNEL_NOISE_UNIFORM:
        if (full.p[1] < full.p[0])
            return g_strdup_printf("uniform noise: max (%gns) is below min (%gns)", full.p[1],
                                   full.p[0]);
        break;
    case FENNEL_NOISE_NORMAL:
    case FENNEL_NOISE_LOGNORMAL:
        if (full.p[1] < 0)
            return g_strdup_printf("%s noise: %s must not be negative (it is %g)", d->name,
                                   d->keys[1], full.p[1]);
        /* A scale of 0 times an exp() that overflows would sample 0 x inf = NaN. */
        if (n->kind == FENNEL_NOISE_LOGNORMAL && !(full.p[2] > 0))
            return g_strdup_printf("lognormal noise: scale must be positive (it is %gns)",
                                   full.p[2]);
        break;
    default:
        for (int i = 0; i < 3 && d->keys[i]; i++) {
            gboolean positive = n->kind == FENNEL_NOISE_EXPONENTIAL ||
                                n->kind == FENNEL_NOISE_GAMMA || n->kind == FENNEL_NOISE_BETAPRIME;
            if (positive && !(full.p[i] > 0))
                return g_strdup_printf("%s noise: %s must be positive (it is %g%s)", d->name,
                                       d->keys[i], full.p[i], d->duration[i] ? "ns" : "");
        }
        break;
    }
    return NULL;
}

/* Fills unset parameters with their defaults; called once the section is complete. */
static double param(const FennelNoise *n, int i)
{
    if (!isnan(n->p[i]))
        return n->p[i];
    const Distribution *d = &distributions[n->kind];
    double v = 0;
    const char *reason;
    if (d->defaults[i] && d->duration[i])
        parse_signed_duration(d->defaults[i], &v, &reason);
    else if (d->defaults[i])
        parse_number(d->defaults[i], &v);
    return v;
}

/* ---- sampling ---- */

typedef struct {
    uint64_t state;
} Rng;

static uint64_t next(Rng *r)
{
    uint64_t z = (r->state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform in (0, 1), never 0 or 1. */
static double uniform(Rng *r)
{
    return ((double)(next(r) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

static double normal(Rng *r)
{
    double u1 = uniform(r), u2 = uniform(r);
    return sqrt(-2.0 * log(u1)) * cos(2.0 * G_PI * u2);
}

/* Marsaglia and Tsang's method; shapes below 1 through the boost X * U^(1/k). */
static double gamma_draw(Rng *r, double k)
{
    if (k < 1.0)
        return gamma_draw(r, k + 1.0) * pow(uniform(r), 1.0 / k);
    double d = k - 1.0 / 3.0, c = 1.0 / sqrt(9.0 * d);
    for (;;) {
        double x = normal(r), v = 1.0 + c * x;
        if (v <= 0)
            continue;
        v = v * v * v;
        double u = uniform(r);
        if (log(u) < 0.5 * x * x + d - d * v + d * log(v))
            return d * v;
    }
}

double fennel_noise_sample_ns(const FennelNoise *n, uint64_t seed, uint32_t stream, uint64_t index)
{
    if (n->kind == FENNEL_NOISE_NONE)
        return 0;
    Rng r = {seed * 0x9e3779b97f4a7c15ull ^ ((uint64_t)stream << 56) ^ index};
    r.state = next(&r) ^ index * 0xd1b54a32d192ed03ull;
    next(&r);
    switch (n->kind) {
    case FENNEL_NOISE_CONSTANT:
        return param(n, 0);
    case FENNEL_NOISE_UNIFORM:
        return param(n, 0) + (param(n, 1) - param(n, 0)) * uniform(&r);
    case FENNEL_NOISE_NORMAL:
        return param(n, 0) + param(n, 1) * normal(&r);
    case FENNEL_NOISE_LOGNORMAL:
        return param(n, 2) * exp(param(n, 0) + param(n, 1) * normal(&r));
    case FENNEL_NOISE_EXPONENTIAL:
        return -param(n, 0) * log(uniform(&r));
    case FENNEL_NOISE_GAMMA:
        return param(n, 1) * gamma_draw(&r, param(n, 0));
    case FENNEL_NOISE_BETAPRIME:
        return param(n, 2) * gamma_draw(&r, param(n, 0)) / gamma_draw(&r, param(n, 1));
    case FENNEL_NOISE_EMPIRICAL:
        return n->samples[(size_t)(uniform(&r) * (double)n->n_samples) % n->n_samples];
    case FENNEL_NOISE_NONE:
        break;
    }
    return 0;
}

char *fennel_noise_describe(const FennelNoise *n)
{
    const Distribution *d = &distributions[n->kind];
    GString *s = g_string_new(d->name);
    if (n->kind == FENNEL_NOISE_EMPIRICAL) {
        g_string_append_printf(s, " (%zu samples)", n->n_samples);
        return g_string_free(s, FALSE);
    }
    for (int i = 0; i < 3 && d->keys[i]; i++)
        g_string_append_printf(s, " %s=%g%s", d->keys[i], param(n, i), d->duration[i] ? "ns" : "");
    return g_string_free(s, FALSE);
}

void fennel_noise_append_json(const FennelNoise *n, GString *out)
{
    const Distribution *d = &distributions[n->kind];
    g_string_append_printf(out, "\"distribution\":\"%s\"", d->name);
    if (n->kind == FENNEL_NOISE_EMPIRICAL) {
        g_string_append_printf(out, ",\"samples\":%zu", n->n_samples);
        return;
    }
    char buf[G_ASCII_DTOSTR_BUF_SIZE];
    for (int i = 0; i < 3 && d->keys[i]; i++)
        g_string_append_printf(out, ",\"%s%s\":%s", d->keys[i], d->duration[i] ? "_ns" : "",
                               g_ascii_dtostr(buf, sizeof buf, param(n, i)));
}

FennelTime fennel_model_noise(const FennelModel *m, uint64_t seed, FennelNoiseStream stream,
                              uint64_t index)
{
    const FennelNoise *n = &m->noise[stream];
    if (n->kind == FENNEL_NOISE_NONE)
        return 0;
    double ns = fennel_noise_sample_ns(n, seed, stream, index);
    /* Extreme parameters can draw inf / inf (a betaprime of tiny shapes): no number, no
     * noise. Infinities are clamped below. */
    if (isnan(ns))
        return 0;
    /* Clamp far outside any real run before converting to attoseconds. */
    double as = CLAMP(ns * 1e9, -1e30, 1e30);
    /* Converting a double to 128 bits is a library call; below 2^62 a 64-bit conversion
     * truncates toward zero to the same integer. */
    return fennel_model_quantise(m, fabs(as) < 0x1p62 ? (__int128)(int64_t)as : (__int128)as);
}
