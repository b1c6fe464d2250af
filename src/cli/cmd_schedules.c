/* fennel schedules: the recursive-multiplying AllReduce schedules of a rank count,
 * ranked by analytic time (or simulated through the engine), with the heuristic's
 * choice, recursive doubling, b_opt and b_upper (Rüfenacht thesis §5.4). */
#include "cli.h"
#include "json.h"
#include "cost.h"
#include "engine.h"
#include "enumerate.h"
#include "errors.h"
#include "heuristic.h"
#include "recursive_multiplying.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The largest rank count: the counts and bounds take O(N) memory, and the collapsed
 * family alone has about N ln N thresholds and bases to consider. */
#define MAX_RANKS (1u << 20)
#define MAX_SIZE  ((int64_t)1 << 40)

typedef struct {
    FennelModelOptions model;
    char *ranks, *size;
    gboolean simulate, json;
    gint64 limit, candidates, seed;
} Options;

/* One schedule's row: its analytic and (with --simulate) simulated time in ps. */
typedef struct {
    FennelSchedule *schedule;
    FennelFamily family;
    double analytic;
    FennelTime simulated;
    uint64_t index;
} Row;

typedef struct {
    uint32_t ranks;
    int64_t size;
    FennelModel model;
    FennelCost cost;
    double alpha_p, alpha_r, ratio;
    uint64_t seed;
} Context;

/* The thesis figure model (thesis §5.6.1), then --network and --set, or the model the
 * options describe when they name a file or a network. */
static gboolean build_model(const Options *o, FennelModel *m, GError **error)
{
    if (o->model.model_file || o->model.network)
        return fennel_model_options_build(&o->model, m, error);
    fennel_model_init(m);
    const char *thesis[][2] = {{"network", "lbp"},  {"alpha_p", "500ns"}, {"alpha_r", "100ns"},
                               {"beta", "0.4ns/B"}, {"compute", "fixed"}, {"duration", "10ns"}};
    for (size_t i = 0; i < G_N_ELEMENTS(thesis); i++) {
        gboolean unknown;
        char *why = NULL;
        gboolean ok = fennel_model_set(m, thesis[i][0], thesis[i][1], &unknown, &why);
        g_assert(ok);
        g_free(why);
    }
    return fennel_model_options_apply_sets(m, o->model.set, error);
}

static gboolean simulate(const Context *c, Row *row, GError **error)
{
    FennelProgram *p = fennel_rm_program(row->schedule, c->ranks, c->size, TRUE, error);
    if (p == NULL)
        return FALSE;
    FennelMachine *m = fennel_machine_new(c->ranks, 1, &c->model);
    fennel_machine_set_seed(m, c->seed);
    gboolean ok = fennel_machine_run(m, p, error);
    row->simulated = fennel_machine_makespan(m);
    fennel_machine_free(m);
    fennel_program_free(p);
    return ok;
}

static int by_simulated(const void *a, const void *b)
{
    const Row *x = a, *y = b;
    if (x->simulated != y->simulated)
        return x->simulated < y->simulated ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

static char *ns(double ps)
{
    char buf[FENNEL_TIME_BUF];
    return g_strdup(fennel_format_ns((FennelTime)llround(ps), buf));
}

static void json_number(GString *out, const char *key, double v)
{
    if (isfinite(v))
        g_string_append_printf(out, ",\"%s\":%.6g", key, v);
    else
        g_string_append_printf(out, ",\"%s\":null", key);
}

static void json_row(GString *out, const Context *c, const Row *r, gboolean simulated)
{
    char *text = fennel_schedule_format(r->schedule),
         *brief = fennel_schedule_format_short(r->schedule);
    char *analytic = ns(r->analytic);
    g_string_append(out, "{\"schedule\":");
    fennel_json_string(out, text);
    g_string_append(out, ",\"short\":");
    if (brief)
        fennel_json_string(out, brief);
    else
        g_string_append(out, "null");
    g_string_append_printf(out,
                           ",\"family\":\"%s\",\"stages\":%u,\"messages\":%" G_GUINT64_FORMAT
                           ",\"analytic_ns\":%s",
                           fennel_family_name(r->family), r->schedule->n_stages,
                           fennel_schedule_messages(r->schedule, c->ranks), analytic);
    if (simulated) {
        char buf[FENNEL_TIME_BUF];
        g_string_append_printf(out, ",\"simulated_ns\":%s", fennel_format_ns(r->simulated, buf));
    }
    g_string_append_c(out, '}');
    g_free(text);
    g_free(brief);
    g_free(analytic);
}

static void text_row(GString *out, const Context *c, const char *label, const Row *r,
                     gboolean simulated)
{
    char *text = fennel_schedule_format(r->schedule),
         *brief = fennel_schedule_format_short(r->schedule);
    char *analytic = ns(r->analytic), buf[FENNEL_TIME_BUF];
    g_string_append_printf(out, "%-6s %12s %12s %9" G_GUINT64_FORMAT " %6u  %-9s  %s", label,
                           analytic, simulated ? fennel_format_ns(r->simulated, buf) : "-",
                           fennel_schedule_messages(r->schedule, c->ranks), r->schedule->n_stages,
                           fennel_family_name(r->family), text);
    if (brief && strcmp(brief, text) != 0)
        g_string_append_printf(out, " = %s", brief);
    g_string_append_c(out, '\n');
    g_free(text);
    g_free(brief);
    g_free(analytic);
}

/* The family a schedule belongs to, for the heuristic's and recursive doubling's rows. */
static FennelFamily family_of(const FennelSchedule *s)
{
    if (s->n_stages && s->stages[0].kind == FENNEL_STAGE_COLLAPSE)
        return FENNEL_FAMILY_COLLAPSED;
    if (s->n_stages && s->stages[0].kind == FENNEL_STAGE_MERGE)
        return FENNEL_FAMILY_MERGED;
    return FENNEL_FAMILY_FACTORED;
}

static void report(GString *out, const Options *o, const Context *c, Row *rows, uint32_t n,
                   Row *special, uint64_t total, const FennelScheduleCounts *counts)
{
    double b_opt = fennel_b_opt(c->ratio), b_upper = fennel_b_upper(c->ratio);
    /* The largest useful factor, floor(b_upper) + 1, whatever the rank count. */
    double max_factor = isfinite(b_upper) ? floor(b_upper) + 1 : INFINITY;
    const char *ranked = o->simulate ? "simulated" : "analytic";
    char *model = fennel_model_describe(&c->model);
    if (o->json) {
        g_string_append_printf(out, "{\"fennel\":1,\"ranks\":%u,\"model\":", c->ranks);
        fennel_model_append_json(&c->model, out);
        g_string_append_printf(out, ",\"size\":%" G_GINT64_FORMAT ",\"seed\":%" G_GUINT64_FORMAT,
                               c->size, c->seed);
        json_number(out, "alpha_p_ns", c->alpha_p);
        json_number(out, "alpha_r_ns", c->alpha_r);
        json_number(out, "ratio", c->ratio);
        json_number(out, "b_opt", b_opt);
        json_number(out, "b_upper", b_upper);
        json_number(out, "max_factor", max_factor);
        g_string_append_printf(out,
                               ",\"counts\":{\"factored\":%" G_GUINT64_FORMAT
                               ",\"collapsed\":%" G_GUINT64_FORMAT ",\"merged\":%" G_GUINT64_FORMAT
                               "},\"ranked_by\":\"%s\",\"compared\":%u,\"heuristic\":",
                               counts->factored, counts->collapsed, counts->merged, ranked, n);
        json_row(out, c, &special[0], o->simulate);
        g_string_append(out, ",\"recursive_doubling\":");
        json_row(out, c, &special[1], o->simulate);
        g_string_append(out, ",\"schedules\":[");
        for (uint32_t i = 0; i < n && i < o->limit; i++) {
            if (i)
                g_string_append_c(out, ',');
            json_row(out, c, &rows[i], o->simulate);
        }
        g_string_append(out, "]}\n");
        g_free(model);
        return;
    }
    g_string_append_printf(
        out, "ranks        %u\nmodel        %s\nsize         %" G_GINT64_FORMAT " B\n", c->ranks,
        model, c->size);
    g_string_append_printf(out, "ratio        alpha_p/alpha_r = %.4g/%.4g = %.4g\n", c->alpha_p,
                           c->alpha_r, c->ratio);
    g_string_append_printf(out, "b_opt        %.4f\nb_upper      %.4f (factors up to %.0f)\n",
                           b_opt, b_upper, max_factor);
    g_string_append_printf(out,
                           "schedules    %" G_GUINT64_FORMAT " factored, %" G_GUINT64_FORMAT
                           " collapsed, %" G_GUINT64_FORMAT " merged\n",
                           counts->factored, counts->collapsed, counts->merged);
    if (o->simulate)
        g_string_append_printf(out,
                               "ranked by    simulated time, of the %u analytically best of "
                               "%" G_GUINT64_FORMAT " schedules\n",
                               n, total);
    else
        g_string_append(out, "ranked by    analytic time (sum of stage multicasts)\n");
    g_string_append_printf(out, "\n%-6s %12s %12s %9s %6s  %-9s  %s\n", "rank", "analytic_ns",
                           "simulated_ns", "messages", "stages", "family", "schedule");
    text_row(out, c, "heur", &special[0], o->simulate);
    text_row(out, c, "rd", &special[1], o->simulate);
    for (uint32_t i = 0; i < n && i < o->limit; i++) {
        char label[16];
        g_snprintf(label, sizeof label, "%u", i + 1);
        text_row(out, c, label, &rows[i], o->simulate);
    }
    g_free(model);
}

static int run(const Options *o)
{
    GError *error = NULL;
    Context c = {0};
    int64_t v;
    const char *why;
    if (!fennel_parse_int(o->ranks, 1, UINT32_MAX - 1, &v, &why)) {
        fennel_cli_error("schedules: --ranks %s: expected a whole number >= 1\n", o->ranks);
        return 2;
    }
    if (v > MAX_RANKS) {
        fprintf(stderr,
                "fennel: schedules: --ranks %" G_GINT64_FORMAT " is more than the %u "
                "ranks the enumeration supports\n",
                v, MAX_RANKS);
        return 1;
    }
    c.ranks = (uint32_t)v;
    c.size = 8;
    if (o->size && !fennel_parse_size(o->size, &c.size, &why)) {
        fennel_cli_error("schedules: --size %s: %s\n", o->size, why);
        return 2;
    }
    /* Times must stay far from the int64 picoseconds limit after sums over stages. */
    if (c.size > MAX_SIZE) {
        fennel_cli_error("schedules: --size %s is more than 1TiB\n", o->size);
        return 2;
    }
    if (o->limit < 1 || o->candidates < 1 || o->seed < 0) {
        fennel_cli_error("schedules: --limit and --candidates must be at least 1, --seed "
                         "not negative\n");
        return 2;
    }
    c.seed = (uint64_t)o->seed;
    if (!build_model(o, &c.model, &error))
        return fennel_cli_fail(error);
    fennel_cost_init_model(&c.cost, &c.model, c.size);
    fennel_model_alphas(&c.model, &c.alpha_p, &c.alpha_r);
    c.ratio = fennel_heuristic_ratio_for(&c.model);

    FennelScheduleCounts counts;
    fennel_schedule_counts(c.ranks, &counts);
    uint64_t total = counts.factored;
    total = MIN(total + counts.collapsed, UINT64_MAX - counts.merged) + counts.merged;
    uint32_t want = (uint32_t)MIN(o->simulate ? o->candidates : o->limit, (gint64)UINT32_MAX);
    uint32_t n;
    FennelRankedSchedule *best =
        fennel_enumerate_best(c.ranks, FENNEL_FAMILY_ALL, &c.cost, want, &n);
    Row *rows = g_new0(Row, MAX(n, 1));
    for (uint32_t i = 0; i < n; i++)
        rows[i] = (Row){best[i].schedule, best[i].family, best[i].cost, 0, i};
    Row special[2];
    special[0].schedule = fennel_heuristic(c.ranks, c.ratio);
    special[1].schedule = fennel_schedule_recursive_doubling(c.ranks);
    for (int i = 0; i < 2; i++) {
        special[i].family = family_of(special[i].schedule);
        special[i].analytic = fennel_schedule_cost(&c.cost, special[i].schedule);
        special[i].index = 0;
    }
    int status = 0;
    if (o->simulate) {
        for (uint32_t i = 0; i < n + 2 && status == 0; i++) {
            if (!simulate(&c, i < n ? &rows[i] : &special[i - n], &error))
                status = fennel_cli_fail(error);
        }
        qsort(rows, n, sizeof *rows, by_simulated);
    }
    if (status == 0) {
        GString *out = g_string_new(NULL);
        report(out, o, &c, rows, n, special, total, &counts);
        fwrite(out->str, 1, out->len, stdout);
        g_string_free(out, TRUE);
    }
    fennel_schedule_free(special[0].schedule);
    fennel_schedule_free(special[1].schedule);
    g_free(rows);
    fennel_ranked_free(best, n);
    fennel_model_clear(&c.model);
    return status;
}

int fennel_cmd_schedules(int argc, char **argv)
{
    Options o = {.limit = 20, .candidates = 1000};
    GOptionEntry entries[] = {
        {"ranks", 'n', 0, G_OPTION_ARG_STRING, &o.ranks, "Number of ranks (required)", "N"},
        FENNEL_MODEL_OPTION_ENTRIES(o.model),
        {"size", 0, 0, G_OPTION_ARG_STRING, &o.size, "Message size (default 8B)", "BYTES"},
        {"simulate", 0, 0, G_OPTION_ARG_NONE, &o.simulate,
         "Rank by the engine's makespan of the --candidates analytically best schedules", NULL},
        {"limit", 'k', 0, G_OPTION_ARG_INT64, &o.limit, "Schedules to list (default 20)", "K"},
        {"candidates", 0, 0, G_OPTION_ARG_INT64, &o.candidates,
         "Schedules to simulate with --simulate (default 1000)", "C"},
        {"seed", 0, 0, G_OPTION_ARG_INT64, &o.seed, "Noise seed for --simulate (default 0)", "N"},
        {"json", 0, 0, G_OPTION_ARG_NONE, &o.json, "Print one JSON object", NULL},
        {NULL, 0, 0, 0, NULL, NULL, NULL},
    };
    int status = 0;
    if (fennel_cli_parse("schedules", "--ranks N",
                         "Rank the recursive-multiplying AllReduce schedules (factored, collapsed, "
                         "merged) of N ranks by analytic time under the model (default: the "
                         "thesis figure model, lbp 500/100 ns, 0.4 ns/B, compute 10 ns), or by "
                         "simulated time; show the heuristic's choice, recursive doubling, b_opt "
                         "and b_upper.",
                         entries, &argc, &argv, &status)) {
        if (argc > 1) {
            fennel_cli_error("schedules: unexpected argument '%s'\n", argv[1]);
            status = 2;
        } else if (o.ranks == NULL) {
            fennel_cli_error("schedules: --ranks N is required\n");
            status = 2;
        } else {
            status = run(&o);
        }
    }
    fennel_model_options_clear(&o.model);
    g_free(o.ranks);
    g_free(o.size);
    return status;
}
