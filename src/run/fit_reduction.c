/* fennel fit --model: the reduction's per-byte cost (fit_reduction.h). The model time of
 * each point is simulated at gamma and at a slightly larger gamma; the slope (the bytes
 * reduced along the critical path) linearises the model around gamma, and a Gauss-Newton
 * step solves the weighted least squares for gamma, held at 0 when negative. When the
 * critical path does not change with gamma (the usual case) one step is exact; a few more
 * follow it until gamma settles. */
#include "fit_reduction.h"

#include "errors.h"
#include "json.h"

#include <math.h>
#include <string.h>

/* attoseconds per byte of g ns/B */
static FennelRate rate_of(double g_ns)
{
    return (FennelRate)llround(g_ns * 1e9);
}

static gboolean run_at(GPtrArray *tables, const FennelModel *base, double g_ns,
                       const FennelCompareOptions *co, FennelComparison *c, GError **error)
{
    FennelModel m;
    fennel_model_copy(&m, base);
    fennel_model_set_compute(&m, fennel_compute_class_find("reduction"));
    m.comp[0] = rate_of(g_ns);
    memset(c, 0, sizeof *c);
    gboolean ok = fennel_compare(tables, &m, co, c, error);
    fennel_model_clear(&m);
    return ok;
}

static double weight(const FennelComparePoint *p)
{
    return p->measured_ns > 0 ? 1 / (p->measured_ns * p->measured_ns) : 0;
}

/* The text of a model file without its top-level `compute` entry (a line `compute:` and the
 * indented lines under it). */
static GString *without_compute(const char *text)
{
    GString *out = g_string_new(NULL);
    gboolean skipping = FALSE;
    for (const char *line = text; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) + 1 : strlen(line);
        gboolean top = line[0] != ' ' && line[0] != '\t' && line[0] != '\n' && line[0] != '\r';
        if (top)
            skipping = strncmp(line, "compute:", strlen("compute:")) == 0;
        if (!skipping)
            g_string_append_len(out, line, (gssize)len);
        line += len;
    }
    if (out->len && out->str[out->len - 1] != '\n')
        g_string_append_c(out, '\n');
    return out;
}

static void json_number(GString *out, double v)
{
    if (isfinite(v))
        g_string_append_printf(out, "%.9g", v);
    else
        g_string_append(out, "null");
}

gboolean fennel_fit_reduction(GPtrArray *tables, const FennelModel *model, const char *model_text,
                              const char *model_name, const FennelCompareOptions *co,
                              FennelReductionFit *out, GError **error)
{
    memset(out, 0, sizeof *out);
    FennelComparison c0, c1;
    if (!run_at(tables, model, 0, co, &c0, error))
        return FALSE;
    out->points = c0.points->len;
    out->left_out = c0.no_generator_points;
    if (out->left_out)
        out->left_out_what = g_strdup(c0.no_generator->str);
    out->median_before = c0.median_error;
    out->worst_before = c0.worst_error;
    /* The slope of each point's time in gamma, from gamma 0 to 1 ns/B. */
    if (!run_at(tables, model, 1, co, &c1, error)) {
        fennel_comparison_clear(&c0);
        return FALSE;
    }
    double num = 0, den = 0;
    GString *kinds = g_string_new(NULL);
    for (guint i = 0; i < c0.points->len; i++) {
        const FennelComparePoint *p = &g_array_index(c0.points, FennelComparePoint, i);
        const FennelComparePoint *q = &g_array_index(c1.points, FennelComparePoint, i);
        double d = q->model_ns - p->model_ns;
        if (d <= 0)
            continue;
        out->reducing++;
        const char *kind = p->collective ? p->collective : p->generator;
        char *quoted = g_strdup_printf(", %s,", kind);
        char *listed = g_strdup_printf(", %s,", kinds->str);
        if (!strstr(listed, quoted))
            g_string_append_printf(kinds, "%s%s", kinds->len ? ", " : "", kind);
        g_free(quoted);
        g_free(listed);
        num += weight(p) * d * (p->measured_ns - p->model_ns);
        den += weight(p) * d * d;
    }
    fennel_comparison_clear(&c1);
    fennel_comparison_clear(&c0);
    if (den <= 0) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                    "no measured point's model time depends on the reduction's cost (give "
                    "allreduce, reduce or reduce_scatter measurements)");
        g_string_free(kinds, TRUE);
        return FALSE;
    }
    double g = num / den;
    out->unconstrained_ns = g;
    /* Gauss-Newton steps from the first estimate, while gamma moves (a critical path that
     * changes with gamma makes the model piecewise linear in it). */
    for (int step = 0; step < 8 && g > 0; step++) {
        double h = MAX(g * 1e-3, 1e-6);
        if (!run_at(tables, model, g, co, &c0, error)) {
            g_string_free(kinds, TRUE);
            return FALSE;
        }
        if (!run_at(tables, model, g + h, co, &c1, error)) {
            fennel_comparison_clear(&c0);
            g_string_free(kinds, TRUE);
            return FALSE;
        }
        num = den = 0;
        for (guint i = 0; i < c0.points->len; i++) {
            const FennelComparePoint *p = &g_array_index(c0.points, FennelComparePoint, i);
            const FennelComparePoint *q = &g_array_index(c1.points, FennelComparePoint, i);
            double d = (q->model_ns - p->model_ns) / h;
            num += weight(p) * d * (p->measured_ns - p->model_ns);
            den += weight(p) * d * d;
        }
        fennel_comparison_clear(&c1);
        fennel_comparison_clear(&c0);
        double next = den > 0 ? g + num / den : g;
        gboolean settled = fabs(next - g) <= 1e-9 * MAX(fabs(g), 1e-3);
        g = next;
        out->unconstrained_ns = g;
        if (settled)
            break;
    }
    out->held = g < 0;
    out->gamma_ns = out->held ? 0 : (double)rate_of(g) / 1e9;
    FennelComparison c;
    if (!run_at(tables, model, out->gamma_ns, co, &c, error)) {
        g_string_free(kinds, TRUE);
        return FALSE;
    }
    out->median_after = c.median_error;
    out->worst_after = c.worst_error;
    fennel_comparison_clear(&c);

    char rate[FENNEL_TIME_BUF], raw[64];
    fennel_format_rate(rate_of(out->gamma_ns), rate);
    g_snprintf(raw, sizeof raw, "%.6g", out->unconstrained_ns);
    out->report = g_string_new(NULL);
    g_string_append_printf(out->report,
                           "reduction cost fitted from %u collective points under %s (%u whose "
                           "model time grows with it: %s)\n",
                           out->points, model_name, out->reducing, kinds->str);
    g_string_append_printf(out->report,
                           "  compute reduction: gamma %s ns/B (weighted least squares on the "
                           "residual measured - model, gamma >= 0)\n",
                           rate);
    if (co->mpi_library)
        g_string_append_printf(out->report,
                               "  each point simulated with the algorithm %s picks (compare "
                               "--library %s)\n",
                               co->mpi_library, co->mpi_library);
    if (out->left_out)
        g_string_append_printf(out->report,
                               "  left out: %u point%s where the library runs what no generator "
                               "of fennel performs (%s)\n",
                               out->left_out, out->left_out == 1 ? "" : "s", out->left_out_what);
    if (out->held)
        g_string_append_printf(out->report,
                               "  gamma held at 0: the unconstrained fit gives %s ns/B (the "
                               "model is already slower than the measurements)\n",
                               raw);
    g_string_append_printf(out->report,
                           "|model - measured| / measured without a reduction cost: median "
                           "%.2f %%, worst %.2f %%; with it: median %.2f %%, worst %.2f %%\n",
                           100 * out->median_before, 100 * out->worst_before,
                           100 * out->median_after, 100 * out->worst_after);

    GString *yaml = g_string_new(NULL);
    g_string_append_printf(yaml,
                           "# The reduction's cost fitted by fennel fit from %u collective points "
                           "under %s\n# (%u whose time grows with it: %s): gamma %s ns/B by "
                           "weighted least squares on\n# the residual measured - model, gamma "
                           ">= 0%s%s%s.\n",
                           out->points, model_name, out->reducing, kinds->str, rate,
                           out->held ? " (held at 0: the unconstrained fit gives " : "",
                           out->held ? raw : "", out->held ? " ns/B)" : "");
    g_string_append_printf(yaml,
                           "# |model - measured| / measured without it: median %.2f %%, worst "
                           "%.2f %%; with it: median %.2f %%, worst %.2f %%.\n",
                           100 * out->median_before, 100 * out->worst_before,
                           100 * out->median_after, 100 * out->worst_after);
    if (co->ppn)
        g_string_append_printf(yaml,
                               "# Fitted with %u ranks per node (--ppn %u): compare --ppn %u "
                               "places the ranks so again.\n",
                               co->ppn, co->ppn, co->ppn);
    if (co->mpi_library)
        g_string_append_printf(yaml,
                               "# Fitted with the algorithm %s picks at each point (--library "
                               "%s): compare --library %s runs them again.\n",
                               co->mpi_library, co->mpi_library, co->mpi_library);
    if (out->left_out)
        g_string_append_printf(yaml,
                               "# Left out: %u point%s where the library runs what no generator "
                               "of fennel performs (%s).\n",
                               out->left_out, out->left_out == 1 ? "" : "s", out->left_out_what);
    if (model->nic_shared || model->half_duplex) {
        char *duplex = fennel_model_duplex_text(model);
        char *option = !model->half_duplex ? NULL
                       : model->n_duplex   ? g_strdup_printf(" --duplex '%s'", duplex)
                                           : g_strdup(" --duplex half");
        g_string_append_printf(yaml,
                               "# Fitted with%s%s%s: compare%s%s times the messages so again.\n",
                               model->nic_shared ? " a NIC shared by the ranks of a node" : "",
                               model->nic_shared && model->half_duplex ? " and" : "",
                               model->half_duplex ? " half-duplex ports" : "",
                               model->nic_shared ? " --nic shared" : "", option ? option : "");
        g_free(option);
        g_free(duplex);
    }
    GString *body = without_compute(model_text);
    g_string_append(yaml, body->str);
    g_string_free(body, TRUE);
    g_string_append_printf(yaml, "compute: {model: reduction, gamma: %sns/B}\n", rate);
    out->yaml = g_string_free(yaml, FALSE);

    FennelModel written;
    fennel_model_init(&written);
    GError *why = NULL;
    gboolean ok = fennel_model_parse(&written, model_name, out->yaml, strlen(out->yaml), &why);
    if (!ok) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                    "the fitted model cannot be written: %s", why->message);
        g_error_free(why);
    } else {
        out->json = g_string_new("{\"fit\":\"reduction\",\"gamma_ns_per_byte\":");
        json_number(out->json, out->gamma_ns);
        g_string_append(out->json, ",\"unconstrained_gamma_ns_per_byte\":");
        json_number(out->json, out->unconstrained_ns);
        g_string_append_printf(out->json,
                               ",\"held_at_zero\":%s,\"points\":%u,\"points_with_reduction\":%u,",
                               out->held ? "true" : "false", out->points, out->reducing);
        g_string_append_printf(out->json,
                               "\"no_generator_points\":%u,\"no_generator\":", out->left_out);
        fennel_json_string(out->json, out->left_out_what ? out->left_out_what : "");
        g_string_append(out->json, ",\"collectives\":");
        fennel_json_string(out->json, kinds->str);
        g_string_append(out->json, ",\"median_relative_error_before\":");
        json_number(out->json, out->median_before);
        g_string_append(out->json, ",\"worst_relative_error_before\":");
        json_number(out->json, out->worst_before);
        g_string_append(out->json, ",\"median_relative_error\":");
        json_number(out->json, out->median_after);
        g_string_append(out->json, ",\"worst_relative_error\":");
        json_number(out->json, out->worst_after);
        g_string_append(out->json, ",\"model\":");
        fennel_model_append_json(&written, out->json);
        g_string_append_c(out->json, '}');
    }
    fennel_model_clear(&written);
    g_string_free(kinds, TRUE);
    return ok;
}

void fennel_reduction_fit_clear(FennelReductionFit *f)
{
    g_free(f->yaml);
    g_free(f->left_out_what);
    if (f->report)
        g_string_free(f->report, TRUE);
    if (f->json)
        g_string_free(f->json, TRUE);
    memset(f, 0, sizeof *f);
}
