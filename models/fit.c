/* Model fits (fit.h, docs/CALIBRATION.md). Each fit gathers the points it needs (the
 * statistic of the repeated samples of one size, or of one size and target count), fits
 * lines by least squares, and writes a model file whose comments record the fit; the file is
 * read back by the model reader, so what is written is what fennel runs. */
#include "fit.h"

#include "errors.h"
#include "fit_private.h"
#include "map.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *fennel_statistic_name(FennelStatistic s)
{
    return s == FENNEL_STAT_MIN ? "min" : s == FENNEL_STAT_MEDIAN ? "median" : "mean";
}

gboolean fennel_statistic_parse(const char *text, FennelStatistic *out)
{
    for (int s = FENNEL_STAT_MIN; s <= FENNEL_STAT_MEAN; s++) {
        if (strcmp(text, fennel_statistic_name(s)) == 0) {
            *out = s;
            return TRUE;
        }
    }
    return FALSE;
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double fennel_statistic_of(FennelStatistic s, double *v, size_t n)
{
    if (n == 0)
        return NAN;
    if (s == FENNEL_STAT_MEDIAN) {
        qsort(v, n, sizeof *v, compare_double);
        return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    }
    double r = s == FENNEL_STAT_MIN ? v[0] : 0;
    for (size_t i = 0; i < n; i++)
        r = s == FENNEL_STAT_MIN ? MIN(r, v[i]) : r + v[i];
    return s == FENNEL_STAT_MIN ? r : r / (double)n;
}

/* The k-th smallest of v[0..n) (0-based), reordering v: Hoare's selection, O(n) on average. */
static double select_kth(double *v, size_t n, size_t k)
{
    size_t lo = 0, hi = n - 1;
    while (lo < hi) {
        double pivot = v[lo + (hi - lo) / 2];
        size_t i = lo, j = hi;
        while (i <= j) {
            while (v[i] < pivot)
                i++;
            while (v[j] > pivot)
                j--;
            if (i <= j) {
                double t = v[i];
                v[i] = v[j];
                v[j] = t;
                i++;
                if (j == 0)
                    break;
                j--;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            return v[k];
    }
    return v[k];
}

static double statistic_of(FennelStatistic s, double *v, size_t n)
{
    if (s != FENNEL_STAT_MEDIAN)
        return fennel_statistic_of(s, v, n);
    double upper = select_kth(v, n, n / 2);
    if (n % 2)
        return upper;
    /* The lower middle is the largest of the part below the upper one. */
    double lower = v[0];
    for (size_t i = 1; i < n / 2; i++)
        lower = MAX(lower, v[i]);
    return (lower + upper) / 2;
}

typedef struct {
    int64_t bytes;
    uint32_t targets;
    size_t offset, count;
} Group;

static int compare_group(const void *a, const void *b)
{
    const Group *x = a, *y = b;
    if (x->bytes != y->bytes)
        return x->bytes < y->bytes ? -1 : 1;
    return (x->targets > y->targets) - (x->targets < y->targets);
}

/* Whether the table holds times of this kind: nccl-tests' sendrecv, read as a collective,
 * is a bandwidth test (each rank sends and receives S bytes at once, back to back). */
static gboolean table_is(const FennelMeasureTable *t, FennelMeasureKind kind)
{
    if (t->kind == kind)
        return TRUE;
    return kind == FENNEL_MEASURE_BANDWIDTH && t->kind == FENNEL_MEASURE_COLLECTIVE && t->nccl &&
           g_strcmp0(t->collective, "sendrecv") == 0;
}

/* Samples are grouped by (size, targets) through a hash map, their values laid out group by
 * group, and each group's statistic taken by selection: linear in the samples, where a sort
 * of them all cost most of a fit of 10^6 samples (docs/PERFORMANCE.md). */
GArray *fennel__fit_points(GPtrArray *tables, FennelMeasureKind kind, FennelStatistic st,
                           GString *sources)
{
    FennelMap map;
    fennel_map_init(&map);
    GArray *groups = g_array_new(FALSE, FALSE, sizeof(Group));
    GArray *ids = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    for (guint i = 0; i < tables->len; i++) {
        const FennelMeasureTable *t = g_ptr_array_index(tables, i);
        if (!table_is(t, kind))
            continue;
        g_string_append_printf(sources, "%s%s (%s, line %u)", sources->len ? ", " : "", t->file,
                               t->tool, t->line);
        for (guint k = 0; k < t->samples->len; k++) {
            const FennelSample *s = &g_array_index(t->samples, FennelSample, k);
            uint64_t *slot = fennel_map_slot(&map, (uint64_t)s->bytes, s->targets, UINT64_MAX);
            if (*slot == UINT64_MAX) {
                *slot = groups->len;
                Group g = {s->bytes, s->targets, 0, 0};
                g_array_append_val(groups, g);
            }
            uint32_t id = (uint32_t)*slot;
            g_array_index(groups, Group, id).count++;
            g_array_append_val(ids, id);
        }
    }
    fennel_map_clear(&map);
    size_t offset = 0;
    for (guint g = 0; g < groups->len; g++) {
        Group *gr = &g_array_index(groups, Group, g);
        gr->offset = offset;
        offset += gr->count;
        gr->count = 0;
    }
    double *values = g_new(double, MAX(offset, 1));
    guint next = 0;
    for (guint i = 0; i < tables->len; i++) {
        const FennelMeasureTable *t = g_ptr_array_index(tables, i);
        if (!table_is(t, kind))
            continue;
        for (guint k = 0; k < t->samples->len; k++) {
            const FennelSample *s = &g_array_index(t->samples, FennelSample, k);
            Group *gr = &g_array_index(groups, Group, g_array_index(ids, uint32_t, next++));
            /* The minimum of a tool that prints its minimum is that column. */
            values[gr->offset + gr->count++] =
                st == FENNEL_STAT_MIN && !isnan(s->min_ns) ? s->min_ns : s->ns;
        }
    }
    if (groups->len > 1)
        qsort(groups->data, groups->len, sizeof(Group), compare_group);
    GArray *points = g_array_new(FALSE, FALSE, sizeof(FennelFitPoint));
    for (guint g = 0; g < groups->len; g++) {
        const Group *gr = &g_array_index(groups, Group, g);
        FennelFitPoint p = {gr->bytes, gr->targets,
                            statistic_of(st, values + gr->offset, gr->count), NAN};
        g_array_append_val(points, p);
    }
    g_free(values);
    g_array_free(ids, TRUE);
    g_array_free(groups, TRUE);
    return points;
}

FennelFitLine fennel__fit_line(const double *x, const double *y, const double *w, size_t n)
{
    long double sw = 0, sx = 0, sy = 0;
    for (size_t i = 0; i < n; i++) {
        long double wi = w ? w[i] : 1;
        sw += wi;
        sx += wi * x[i];
        sy += wi * y[i];
    }
    long double mx = sx / sw, my = sy / sw, sxx = 0, sxy = 0;
    for (size_t i = 0; i < n; i++) {
        long double wi = w ? w[i] : 1;
        sxx += wi * (x[i] - mx) * (x[i] - mx);
        sxy += wi * (x[i] - mx) * (y[i] - my);
    }
    FennelFitLine l = {0};
    l.b = sxx > 0 ? (double)(sxy / sxx) : 0;
    l.a = (double)(my - (long double)l.b * mx);
    l.sse = 0;
    for (size_t i = 0; i < n; i++) {
        double r = y[i] - (l.a + l.b * x[i]);
        l.sse += (w ? w[i] : 1) * r * r;
    }
    l.a_free = l.a;
    l.b_free = l.b;
    return l;
}

static double line_sse(const double *x, const double *y, const double *w, size_t n, double a,
                       double b)
{
    long double sse = 0;
    for (size_t i = 0; i < n; i++) {
        long double r = y[i] - (a + b * x[i]);
        sse += (w ? w[i] : 1) * r * r;
    }
    return (double)sse;
}

/* Non-negative least squares of two parameters by its active sets: with the unconstrained
 * line infeasible, the optimum has a = 0 or b = 0 (the objective is convex, so its minimum
 * over the quadrant lies on the boundary), and on each axis the one-parameter fit, kept
 * >= 0, is optimal. */
FennelFitLine fennel__fit_line_nonneg(const double *x, const double *y, const double *w, size_t n)
{
    FennelFitLine free_line = fennel__fit_line(x, y, w, n);
    if (free_line.a >= 0 && free_line.b >= 0)
        return free_line;
    long double sw = 0, sy = 0, sxx = 0, sxy = 0;
    for (size_t i = 0; i < n; i++) {
        long double wi = w ? w[i] : 1;
        sw += wi;
        sy += wi * y[i];
        sxx += wi * x[i] * x[i];
        sxy += wi * x[i] * y[i];
    }
    double through_origin = sxx > 0 && sxy > 0 ? (double)(sxy / sxx) : 0;
    double constant = sw > 0 && sy > 0 ? (double)(sy / sw) : 0;
    double sse_b = line_sse(x, y, w, n, 0, through_origin);
    double sse_a = line_sse(x, y, w, n, constant, 0);
    FennelFitLine l = free_line;
    if (sse_b <= sse_a) {
        l.a = 0;
        l.b = through_origin;
        l.sse = sse_b;
        l.a_held = TRUE;
        l.b_held = through_origin == 0;
    } else {
        l.a = constant;
        l.b = 0;
        l.sse = sse_a;
        l.b_held = TRUE;
        l.a_held = constant == 0;
    }
    return l;
}

/* x rounded to an integer, saturating (llround of a value beyond int64 is unspecified);
 * NaN gives 0. */
static int64_t round_saturating(double x)
{
    if (isnan(x))
        return 0;
    if (x >= 9.2e18)
        return INT64_MAX;
    if (x <= -9.2e18)
        return INT64_MIN + 1;
    return (int64_t)llround(x);
}

int64_t fennel__fit_ps(double ns)
{
    return round_saturating(ns * 1e3);
}

int64_t fennel__fit_as_per_byte(double ns_per_byte)
{
    return round_saturating(ns_per_byte * 1e9);
}

/* Errors are relative to the measurement, |fitted - measured| / measured, and the ratio
 * fitted / measured says in which direction: above 1 the model is too slow. A measured time
 * of 0 has no relative error and is left out of them. */
void fennel__fit_quality(FennelFit *f)
{
    double mean = 0, ss = 0, sse = 0;
    guint n = f->points->len;
    for (guint i = 0; i < n; i++)
        mean += g_array_index(f->points, FennelFitPoint, i).measured_ns / n;
    f->worst_relative = 0;
    f->worst_ratio = 1;
    f->worst_bytes = -1;
    double *errors = g_new(double, MAX(n, 1));
    size_t counted = 0;
    for (guint i = 0; i < n; i++) {
        const FennelFitPoint *p = &g_array_index(f->points, FennelFitPoint, i);
        ss += (p->measured_ns - mean) * (p->measured_ns - mean);
        sse += (p->measured_ns - p->fitted_ns) * (p->measured_ns - p->fitted_ns);
        if (p->measured_ns <= 0 || !isfinite(p->fitted_ns))
            continue;
        double rel = fabs(p->fitted_ns - p->measured_ns) / p->measured_ns;
        errors[counted++] = rel;
        if (rel > f->worst_relative || f->worst_bytes < 0) {
            f->worst_relative = rel;
            f->worst_ratio = p->fitted_ns / p->measured_ns;
            f->worst_bytes = p->bytes;
            f->worst_targets = p->targets;
        }
    }
    f->median_relative = counted ? fennel_statistic_of(FENNEL_STAT_MEDIAN, errors, counted) : 0;
    g_free(errors);
    /* With no more points than parameters the lines pass through every point: R^2 says
     * nothing. */
    if (n <= f->parameters)
        f->r2 = NAN;
    else
        f->r2 = ss > 0 ? 1 - sse / ss : (sse == 0 ? 1 : 0);
    f->worst_bytes = MAX(f->worst_bytes, 0);
}

void fennel__fit_report_quality(const FennelFit *f, GString *report)
{
    guint n = f->points->len;
    if (isnan(f->r2))
        g_string_append_printf(report,
                               "R^2 undetermined: %u point%s for %u parameter%s, the fit passes "
                               "through every point (measure more sizes)\n",
                               n, n == 1 ? "" : "s", f->parameters, f->parameters == 1 ? "" : "s");
    else
        g_string_append_printf(report, "R^2 %.6f\n", f->r2);
    g_string_append_printf(report,
                           "|fitted - measured| / measured: median %.2f %%, worst %.2f %% at "
                           "%" G_GINT64_FORMAT "B",
                           100 * f->median_relative, 100 * f->worst_relative, f->worst_bytes);
    if (f->worst_targets)
        g_string_append_printf(report, ", b = %u", f->worst_targets);
    g_string_append_printf(report, " (fitted/measured %.4f)\n", f->worst_ratio);
}

static void json_number(GString *out, double v)
{
    if (isfinite(v))
        g_string_append_printf(out, "%.9g", v);
    else
        g_string_append(out, "null");
}

/* What every fit's JSON ends with: the quality, every point, and the written model's
 * parameters as the model reader holds them (every parameter of every level). */
static void json_finish(FennelFit *f, const FennelModel *m)
{
    if (f->json->len && f->json->str[f->json->len - 1] == '}')
        g_string_truncate(f->json, f->json->len - 1);
    g_string_append(f->json, ",\"r2\":");
    json_number(f->json, f->r2);
    g_string_append_printf(f->json,
                           ",\"parameters_fitted\":%u,\"median_relative_error\":%.9g,"
                           "\"worst_relative_error\":%.9g,\"worst_ratio\":%.9g,"
                           "\"worst_bytes\":%" G_GINT64_FORMAT ",\"points\":[",
                           f->parameters, f->median_relative, f->worst_relative, f->worst_ratio,
                           f->worst_bytes);
    for (guint i = 0; i < f->points->len; i++) {
        const FennelFitPoint *p = &g_array_index(f->points, FennelFitPoint, i);
        g_string_append_printf(f->json, "%s{\"size_bytes\":%" G_GINT64_FORMAT, i ? "," : "",
                               p->bytes);
        if (p->targets)
            g_string_append_printf(f->json, ",\"targets\":%u", p->targets);
        g_string_append(f->json, ",\"measured_ns\":");
        json_number(f->json, p->measured_ns);
        g_string_append(f->json, ",\"fitted_ns\":");
        json_number(f->json, p->fitted_ns);
        g_string_append(f->json, ",\"ratio\":");
        json_number(f->json, p->measured_ns > 0 ? p->fitted_ns / p->measured_ns : NAN);
        g_string_append_c(f->json, '}');
    }
    g_string_append(f->json, "],\"intra\":");
    g_string_append(f->json, f->intra_json ? f->intra_json : "null");
    g_string_append(f->json, ",\"model\":");
    fennel_model_append_json(m, f->json);
    g_string_append_c(f->json, '}');
}

/* The network to fit when none is named: what the data was measured for. */
static const char *network_for(GPtrArray *tables)
{
    gboolean multicast = FALSE, loggp = FALSE;
    for (guint i = 0; i < tables->len; i++) {
        const FennelMeasureTable *t = g_ptr_array_index(tables, i);
        multicast |= t->kind == FENNEL_MEASURE_MULTICAST;
        loggp |= t->kind == FENNEL_MEASURE_LOGGP;
    }
    return multicast ? "lbp" : loggp ? "loggp" : "postal";
}

/* The longest time fitted: 10^15 ns (11.6 days), so that every parameter a fit can derive
 * stays far inside a model's int64 picoseconds and attoseconds per byte. */
#define MAX_TIME_NS 1e15

static gboolean times_in_range(GPtrArray *tables, GError **error)
{
    for (guint i = 0; i < tables->len; i++) {
        const FennelMeasureTable *t = g_ptr_array_index(tables, i);
        for (guint k = 0; k < t->samples->len; k++) {
            const FennelSample *s = &g_array_index(t->samples, FennelSample, k);
            if (fabs(s->ns) > MAX_TIME_NS || fabs(s->min_ns) > MAX_TIME_NS) {
                fennel_error_at(error, t->file, s->line, 1,
                                "a time beyond 10^15 ns (11.6 days) cannot be fitted");
                return FALSE;
            }
        }
    }
    return TRUE;
}

/* The intra-node fit (--intra): the same options on the intra-node tables, a ping-pong
 * model (postal unless postal, logp or loggp is asked), written into f's model as
 * `placement: {ranks_per_node: 1}` and an `intra` section. Without it, a note says how
 * messages within a node are timed. */
static gboolean add_intra(FennelFit *f, const FennelFitOptions *o, GError **error)
{
    if (o->intra == NULL) {
        const char *note =
            "within a node: not measured (--intra FILE fits an intra-node "
            "ping-pong); where ranks share nodes (compare --ppn P, fit --model "
            "--ppn P) messages within a node take the shared-memory default, "
            "postal alpha " FENNEL_INTRA_DEFAULT_ALPHA ", beta " FENNEL_INTRA_DEFAULT_BETA "\n";
        g_string_append(f->report, note);
        char *yaml = g_strconcat("# ", note, f->yaml, NULL);
        g_free(f->yaml);
        f->yaml = yaml;
        return TRUE;
    }
    FennelFitOptions io = *o;
    io.intra = NULL;
    io.duplex = NULL;
    if (o->network && strcmp(o->network, "lbp") == 0)
        io.network = NULL;
    FennelFit *in = fennel_fit(o->intra, &io, error);
    if (in == NULL) {
        g_prefix_error(error, "--intra: ");
        return FALSE;
    }
    if (strcmp(in->network, "lbp") == 0) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                    "--intra: expected an intra-node ping-pong (one-way times), got multicast "
                    "times");
        fennel_fit_free(in);
        return FALSE;
    }
    GString *yaml = g_string_new(f->yaml);
    GString *body = g_string_new(NULL);
    g_string_append(yaml, "# Within a node (intra), fitted from the --intra measurements:\n");
    gboolean in_network = FALSE;
    char **lines = g_strsplit(in->yaml, "\n", -1);
    for (char **l = lines; *l; l++) {
        if ((*l)[0] == '#')
            g_string_append_printf(yaml, "%s\n", *l);
        else if (strcmp(*l, "network:") == 0)
            in_network = TRUE;
        else if (in_network && (*l)[0] == ' ')
            g_string_append_printf(body, "%s\n", *l);
        else
            in_network = FALSE;
    }
    g_strfreev(lines);
    g_string_append(yaml, "# ranks_per_node 1 until the job's layout is given: compare --ppn P, "
                          "or --set ranks_per_node=P\nplacement: {ranks_per_node: 1}\nintra:\n");
    g_string_append(yaml, body->str);
    g_string_free(body, TRUE);
    g_free(f->yaml);
    f->yaml = g_string_free(yaml, FALSE);
    g_string_append(f->report, "within a node (--intra): ");
    g_string_append(f->report, in->report->str);
    f->intra_json = g_strdup(in->json->str);
    fennel_fit_free(in);
    return TRUE;
}

/* The pairs a file may hold: a test of one direction at a time and one of both directions at
 * once, whose time per message is the same on full-duplex ports and twice it on half-duplex
 * ones (docs/CALIBRATION.md, Half-duplex ports). Sendrecv comes before PingPing: it posts its
 * receive before its send, as the libraries' collective exchanges do, where PingPing sends
 * first and may meet a protocol's other path. */
static const char *const duplex_pairs[][2] = {
    {"IMB PingPong", "IMB Sendrecv"},
    {"IMB PingPong", "IMB PingPing"},
    {"osu_bw", "osu_bibw"},
};

/* Both directions at once against one, at a size both tables of a pair measured. */
typedef struct {
    int64_t bytes;
    double ratio;
} DuplexPoint;

static int compare_duplex_point(const void *a, const void *b)
{
    const DuplexPoint *x = a, *y = b;
    return (x->bytes > y->bytes) - (x->bytes < y->bytes);
}

/* The ratio of the two tables' times per message at each size both measured (each size's
 * samples pooled by their median), by increasing size; empty when they share no size. */
static GArray *duplex_points(GPtrArray *tables, const char *one, const char *both)
{
    GHashTable *a = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
    GHashTable *b = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
    for (guint i = 0; i < tables->len; i++) {
        const FennelMeasureTable *t = g_ptr_array_index(tables, i);
        GHashTable *h = strcmp(t->tool, one) == 0 ? a : strcmp(t->tool, both) == 0 ? b : NULL;
        for (guint k = 0; h && k < t->samples->len; k++) {
            const FennelSample *x = &g_array_index(t->samples, FennelSample, k);
            if (x->ns <= 0)
                continue;
            GArray *v = g_hash_table_lookup(h, &x->bytes);
            if (v == NULL) {
                v = g_array_new(FALSE, FALSE, sizeof(double));
                g_hash_table_insert(h, g_memdup2(&x->bytes, sizeof x->bytes), v);
            }
            g_array_append_val(v, x->ns);
        }
    }
    GArray *points = g_array_new(FALSE, FALSE, sizeof(DuplexPoint));
    GHashTableIter it;
    gpointer key, value;
    g_hash_table_iter_init(&it, a);
    while (g_hash_table_iter_next(&it, &key, &value)) {
        GArray *other = g_hash_table_lookup(b, key);
        if (other == NULL)
            continue;
        GArray *mine = value;
        DuplexPoint p = {
            *(const int64_t *)key,
            fennel_statistic_of(FENNEL_STAT_MEDIAN, (double *)other->data, other->len) /
                fennel_statistic_of(FENNEL_STAT_MEDIAN, (double *)mine->data, mine->len)};
        g_array_append_val(points, p);
    }
    for (GHashTable *h = a; h; h = h == a ? b : NULL) {
        g_hash_table_iter_init(&it, h);
        while (g_hash_table_iter_next(&it, NULL, &value))
            g_array_free(value, TRUE);
        g_hash_table_destroy(h);
    }
    g_array_sort(points, compare_duplex_point);
    return points;
}

/* Half duplex when both directions at once take at least 1.5 times one (nearer 2 than 1). */
static gboolean duplex_point_half(const GArray *points, guint i)
{
    return g_array_index(points, DuplexPoint, i).ratio >= 1.5;
}

/* A size as a model file writes it: KiB, MiB or GiB when it is a whole number of them. */
static void append_size(GString *s, int64_t bytes)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB"};
    int u = 0;
    while (u < 3 && bytes >= 1024 && bytes % 1024 == 0) {
        bytes /= 1024;
        u++;
    }
    g_string_append_printf(s, "%" G_GINT64_FORMAT "%s", bytes, units[u]);
}

/* The duplex by size the points show, as the `duplex` key writes it ("half, full from 8KiB,
 * half from 64KiB"), or NULL when every size agrees (after the rule below) or the ranges would
 * be more than a model holds. A mode holds from the first size of at least two in a row that
 * show it: a lone size that disagrees with the sizes before it is taken as noise, and so is a
 * lone first size that disagrees with the sizes after it. */
static char *duplex_ranges(const GArray *points)
{
    if (points->len < 4)
        return NULL;
    gboolean half[FENNEL_MAX_DUPLEX_RANGES];
    int64_t from[FENNEL_MAX_DUPLEX_RANGES];
    guint n = 0;
    /* The first mode: the first size's, unless the second and third both disagree with it. */
    gboolean mode = duplex_point_half(points, 0);
    if (duplex_point_half(points, 1) != mode && duplex_point_half(points, 2) != mode)
        mode = !mode;
    half[n] = mode;
    from[n++] = 0;
    for (guint i = 1; i + 1 < points->len; i++) {
        if (duplex_point_half(points, i) == mode || duplex_point_half(points, i + 1) == mode)
            continue;
        if (n == FENNEL_MAX_DUPLEX_RANGES)
            return NULL;
        mode = !mode;
        half[n] = mode;
        from[n++] = g_array_index(points, DuplexPoint, i).bytes;
    }
    if (n == 1)
        return NULL;
    GString *s = g_string_new(half[0] ? "half" : "full");
    for (guint k = 1; k < n; k++) {
        g_string_append_printf(s, ", %s from ", half[k] ? "half" : "full");
        append_size(s, from[k]);
    }
    return g_string_free(s, FALSE);
}

/* Whether the ports are half duplex: --duplex, or the first pair of tests the file has. Half
 * when both directions at once take at least 1.5 times one (closer to 2 than to 1): by size
 * when the sizes disagree (duplex_ranges), otherwise by the median over the sizes of the
 * ratio. Writes the `duplex` key into the model (postal and lbp) and says why. */
static void add_duplex(FennelFit *f, GPtrArray *tables, const FennelFitOptions *o)
{
    gboolean half = FALSE;
    char *why = NULL, *value = NULL;
    if (o->duplex) {
        half = strcmp(o->duplex, "half") == 0;
        why = g_strdup_printf("ports: %s duplex (--duplex %s)", o->duplex, o->duplex);
    } else {
        for (size_t i = 0; i < G_N_ELEMENTS(duplex_pairs) && why == NULL; i++) {
            GArray *points = duplex_points(tables, duplex_pairs[i][0], duplex_pairs[i][1]);
            if (points->len == 0) {
                g_array_free(points, TRUE);
                continue;
            }
            value = duplex_ranges(points);
            if (value != NULL) {
                half = TRUE;
                why = g_strdup_printf(
                    "ports: duplex by size, %s: %s against %s at each of %u sizes (half from "
                    "1.5 times the time per message, from the first of two sizes in a row)",
                    value, duplex_pairs[i][1], duplex_pairs[i][0], points->len);
            } else {
                double *ratios = g_new(double, points->len);
                for (guint k = 0; k < points->len; k++)
                    ratios[k] = g_array_index(points, DuplexPoint, k).ratio;
                double r = fennel_statistic_of(FENNEL_STAT_MEDIAN, ratios, points->len);
                g_free(ratios);
                half = r >= 1.5;
                why = g_strdup_printf(
                    "ports: %s duplex: %s takes %.2f times the time per message of %s (median "
                    "over %u sizes; 1 on full-duplex ports, 2 on half-duplex ones)",
                    half ? "half" : "full", duplex_pairs[i][1], r, duplex_pairs[i][0], points->len);
            }
            g_array_free(points, TRUE);
        }
    }
    if (why == NULL)
        return;
    if (value == NULL)
        value = g_strdup("half");
    const gboolean writable = strcmp(f->network, "postal") == 0 || strcmp(f->network, "lbp") == 0;
    g_string_append_printf(f->report, "%s%s%s\n", why,
                           !half      ? ""
                           : writable ? "; written as duplex: "
                                      : "; not written: LogP and LogGP time each rank's NIC "
                                        "with g and G",
                           half && writable ? value : "");
    if (half && writable) {
        char *yaml = g_strdup_printf("%s# %s\nduplex: %s\n", f->yaml, why, value);
        g_free(f->yaml);
        f->yaml = yaml;
    }
    g_free(value);
    g_free(why);
}

FennelFit *fennel_fit(GPtrArray *tables, const FennelFitOptions *o, GError **error)
{
    if (!times_in_range(tables, error))
        return NULL;
    FennelFit *f = g_new0(FennelFit, 1);
    f->network = g_strdup(o->network ? o->network : network_for(tables));
    f->report = g_string_new(NULL);
    f->json = g_string_new(NULL);
    f->lines = g_ptr_array_new_with_free_func(g_free);
    gboolean ok;
    if (strcmp(f->network, "lbp") == 0)
        ok = fennel__fit_lbp(f, tables, o, error);
    else if (strcmp(f->network, "postal") == 0)
        ok = fennel__fit_postal(f, tables, o, error);
    else if (strcmp(f->network, "loggp") == 0 || strcmp(f->network, "logp") == 0)
        ok = fennel__fit_loggp(f, tables, o, error);
    else {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE,
                    "--network: expected postal, lbp, logp or loggp, got '%s'", f->network);
        ok = FALSE;
    }
    if (ok)
        ok = add_intra(f, o, error);
    if (ok)
        add_duplex(f, tables, o);
    if (ok) {
        /* What is written must read back: the model reader checks it. */
        FennelModel m;
        fennel_model_init(&m);
        GError *why = NULL;
        if (!fennel_model_parse(&m, "fitted model", f->yaml, strlen(f->yaml), &why)) {
            /* A parameter beyond what a model holds (a slope of 10^10 ns/B from wild data). */
            g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                        "the fitted model cannot be written: %s", why->message);
            g_error_free(why);
            ok = FALSE;
        } else {
            json_finish(f, &m);
        }
        fennel_model_clear(&m);
    }
    if (!ok) {
        fennel_fit_free(f);
        return NULL;
    }
    return f;
}

void fennel_fit_free(FennelFit *f)
{
    if (f == NULL)
        return;
    g_free(f->network);
    g_free(f->yaml);
    g_free(f->intra_json);
    g_string_free(f->report, TRUE);
    g_string_free(f->json, TRUE);
    if (f->points)
        g_array_free(f->points, TRUE);
    g_ptr_array_free(f->lines, TRUE);
    g_free(f);
}
