/* fennel compare: measured collective times against the model's (src/run/compare.h), with
 * the relative difference of each point (Eq. 5.14), their mean and the worst. */
#include "cli.h"
#include "compare.h"
#include "errors.h"
#include "json.h"
#include "options.h"
#include "plot.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    char *model, *generator, *mpi_library, *statistic, *format, *plot, *collective, *nic, *duplex;
    char **set; /* --set KEY=VALUE over the model */
    gint ranks, ppn;
    gboolean json, in_place;
    char **files;
} Options;

static int usage_error(const char *message)
{
    fennel_cli_error("compare: %s\n", message);
    return 2;
}

static char *series_name(const FennelComparePoint *p)
{
    return g_strdup_printf("%s, %u ranks%s%s", p->mpi_library ? p->mpi_library : p->generator,
                           p->ranks, p->schedule ? ", " : "", p->schedule ? p->schedule : "");
}

/* Whether two points of a library share its choice: the same collective, ranks and row. */
static gboolean same_choice(const FennelComparePoint *a, const FennelComparePoint *b)
{
    return g_strcmp0(a->collective, b->collective) == 0 && a->ranks == b->ranks &&
           strcmp(a->choice->algorithm, b->choice->algorithm) == 0 &&
           strcmp(a->choice->why, b->choice->why) == 0;
}

/* With --library: which algorithm the library picked and why, one line per run of
 * consecutive points that share a row of its table, with their size range. */
static void print_choices(const FennelComparison *c)
{
    for (guint i = 0; i < c->points->len;) {
        const FennelComparePoint *p = &g_array_index(c->points, FennelComparePoint, i);
        guint end = i + 1;
        while (end < c->points->len &&
               same_choice(p, &g_array_index(c->points, FennelComparePoint, end)))
            end++;
        const FennelComparePoint *last = &g_array_index(c->points, FennelComparePoint, end - 1);
        char *line = fennel_library_describe_range(p->mpi_library, p->collective, p->ranks,
                                                   p->gen_bytes, last->gen_bytes, p->choice);
        printf("library: %s\n", line);
        g_free(line);
        i = end;
    }
}

/* Fig. 5.20's picture: the relative difference over the size, one line per generator and
 * rank count. */
static gboolean draw(const FennelComparison *c, const char *file, GError **error)
{
    GString *csv = g_string_new("size_bytes,relative_difference,series\n");
    for (guint i = 0; i < c->points->len; i++) {
        const FennelComparePoint *p = &g_array_index(c->points, FennelComparePoint, i);
        if (!isfinite(p->relative))
            continue;
        char *name = series_name(p);
        g_string_append_printf(csv, "%" G_GINT64_FORMAT ",%.9g,\"%s\"\n", MAX(p->bytes, 1),
                               p->relative, name);
        g_free(name);
    }
    FennelPlotOptions po = {.x = "size_bytes",
                            .y = "relative_difference",
                            .by = "series",
                            .logx = TRUE,
                            .width = 800,
                            .height = 500};
    FennelPlotData *d = fennel_plot_data_read("compare", csv->str, csv->len, &po, error);
    g_string_free(csv, TRUE);
    if (d == NULL)
        return FALSE;
    FennelCanvas *cv = fennel_plot_draw(d, &po);
    gboolean ok = fennel_canvas_write(cv, file, error);
    fennel_canvas_free(cv);
    fennel_plot_data_free(d);
    return ok;
}

/* v in `format`, or "-" where there is no number (a ratio to a time of 0): the text never
 * shows nan or inf. */
static const char *text_number(char buf[48], const char *format, double v)
{
    if (!isfinite(v))
        return "-";
    g_snprintf(buf, 48, format, v);
    return buf;
}

/* The placement --ppn gave: how many ranks share a node and what times their messages. */
static char *placement_line(const FennelModel *m, gboolean intra_default)
{
    char *model = fennel_model_describe(m);
    char *within = strstr(model, "within a node ");
    if (within) {
        within += strlen("within a node ");
        char *end = strstr(within, "; ");
        if (end)
            *end = '\0';
    }
    char *line = g_strdup_printf(
        "ranks per node: %u (consecutive ranks share a node); messages within a node: %s%s",
        m->ranks_per_node, within ? within : "the network model",
        intra_default ? " (the shared-memory default: the model has no intra model)" : "");
    g_free(model);
    return line;
}

static void print_text(const FennelComparison *c, const char *placement)
{
    char a[48], b[48], r[48];
    if (placement)
        printf("%s\n", placement);
    printf("%-22s %6s %12s %14s %14s %9s %9s %9s\n", "generator", "ranks", "size_bytes",
           "measured_ns", "model_ns", "relative", "error", "ratio");
    for (guint i = 0; i < c->points->len; i++) {
        const FennelComparePoint *p = &g_array_index(c->points, FennelComparePoint, i);
        printf("%-22s %6u %12" G_GINT64_FORMAT " %14.3f %14.3f %9s %9s %9s\n", p->generator,
               p->ranks, p->bytes, p->measured_ns, p->model_ns,
               text_number(a, "%+.4f", p->relative), text_number(b, "%.4f", p->error),
               text_number(r, "%.4f", p->ratio));
    }
    if (c->points->len && g_array_index(c->points, FennelComparePoint, 0).mpi_library)
        print_choices(c);
    /* Each table (a collective, its generator or library and rank count) scored by itself. */
    for (guint i = 0; i < c->groups->len; i++) {
        const FennelCompareGroup *g = &g_array_index(c->groups, FennelCompareGroup, i);
        char *by = g->mpi_library ? g_strdup_printf("%s (%s)", g->mpi_library, g->generator)
                                  : g_strdup(g->generator);
        printf("%s%s%s%s, %u ranks: %u points, |model - measured| / measured median %s, "
               "worst %s at %" G_GINT64_FORMAT "B, model/measured median %s\n",
               g->collective ? g->collective : by, g->collective ? " by " : "",
               g->collective ? by : "", g->schedule ? " (schedule given)" : "", g->ranks, g->points,
               text_number(a, "%.2f %%", 100 * g->median_error),
               text_number(b, "%.2f %%", 100 * g->worst_error), g->worst_bytes,
               text_number(r, "%.4f", g->median_ratio));
        g_free(by);
    }
    printf("|model - measured| / measured over %u points: median %s, worst %s\n", c->points->len,
           text_number(a, "%.2f %%", 100 * c->median_error),
           text_number(b, "%.2f %%", 100 * c->worst_error));
    if (c->n_relative)
        printf("relative difference (measured - model) / model over %u points: mean %+.4f, worst "
               "%+.4f\n",
               c->n_relative, c->mean, c->worst);
    else
        printf("relative difference (measured - model) / model: none (the model's times are "
               "0)\n");
    if (c->skipped->len)
        printf("left out (no generator performs them; --generator NAME includes them): %s\n",
               c->skipped->str);
    if (c->no_table->len)
        printf("left out (the library has no table for them): %s\n", c->no_table->str);
    if (c->no_generator_points)
        printf("left out: %u point%s where the library runs what no generator of fennel "
               "performs (%s); the first: %s\n",
               c->no_generator_points, c->no_generator_points == 1 ? "" : "s", c->no_generator->str,
               c->no_generator_first);
    if (c->zero_rows)
        printf("left out: %u row%s of 0 bytes (a collective of no data returns at once)\n",
               c->zero_rows, c->zero_rows == 1 ? "" : "s");
    guint loops = 0;
    for (guint i = 0; i < c->points->len; i++)
        loops += g_array_index(c->points, FennelComparePoint, i).loop > 0;
    if (loops)
        printf("IMB before 2017: %u point%s timed as a rank's loop of its #repetitions calls back "
               "to back, the root moving on at every call, over the calls (docs/CALIBRATION.md, "
               "IMB's loop)\n",
               loops, loops == 1 ? "" : "s");
}

static void json_string_or_null(GString *out, const char *s)
{
    if (s)
        fennel_json_string(out, s);
    else
        g_string_append(out, "null");
}

/* A number, or null for NaN and infinities (JSON has neither). */
static void json_number(GString *out, double v)
{
    if (isfinite(v))
        g_string_append_printf(out, "%.9g", v);
    else
        g_string_append(out, "null");
}

static void print_json(const FennelComparison *c, const FennelModel *m, gboolean ppn,
                       gboolean intra_default, gboolean nic_default)
{
    GString *out = g_string_new("{");
    if (ppn) {
        g_string_append_printf(out,
                               "\"ranks_per_node\":%u,\"intra_default\":%s,\"nic_default\":%s,"
                               "\"model\":",
                               m->ranks_per_node, intra_default ? "true" : "false",
                               nic_default ? "true" : "false");
        fennel_model_append_json(m, out);
        g_string_append_c(out, ',');
    }
    g_string_append(out, "\"points\":[");
    for (guint i = 0; i < c->points->len; i++) {
        const FennelComparePoint *p = &g_array_index(c->points, FennelComparePoint, i);
        g_string_append_printf(out, "%s{\"collective\":", i ? "," : "");
        if (p->collective)
            fennel_json_string(out, p->collective);
        else
            g_string_append(out, "null");
        g_string_append(out, ",\"generator\":");
        fennel_json_string(out, p->generator);
        g_string_append(out, ",\"schedule\":");
        if (p->schedule)
            fennel_json_string(out, p->schedule);
        else
            g_string_append(out, "null");
        g_string_append_printf(out,
                               ",\"ranks\":%u,\"size_bytes\":%" G_GINT64_FORMAT
                               ",\"generator_size_bytes\":%" G_GINT64_FORMAT
                               ",\"samples\":%u,\"measured_ns\":%.9g,\"model_ns\":%.9g",
                               p->ranks, p->bytes, p->gen_bytes, p->samples, p->measured_ns,
                               p->model_ns);
        g_string_append(out, ",\"model_over_ranks\":");
        fennel_json_string(out, fennel_over_ranks_name(p->over_ranks));
        g_string_append_printf(out, ",\"imb_loop_calls\":%u", p->loop);
        g_string_append(out, ",\"relative_difference\":");
        json_number(out, p->relative);
        g_string_append(out, ",\"relative_error\":");
        json_number(out, p->error);
        g_string_append(out, ",\"ratio\":");
        json_number(out, p->ratio);
        g_string_append(out, ",\"library\":");
        json_string_or_null(out, p->mpi_library);
        g_string_append(out, ",\"library_algorithm\":");
        json_string_or_null(out, p->choice ? p->choice->algorithm : NULL);
        g_string_append(out, ",\"library_choice\":");
        if (p->choice) {
            char *line = fennel_library_describe(p->mpi_library, p->collective, p->ranks,
                                                 p->gen_bytes, p->choice);
            fennel_json_string(out, line);
            g_free(line);
        } else {
            g_string_append(out, "null");
        }
        if (p->busbw_factor > 0) {
            /* bytes per ns are GB/s; none from a time of 0 (null, not inf) */
            g_string_append(out, ",\"busbw_measured_gbps\":");
            json_number(out,
                        p->measured_ns > 0 ? p->bytes / p->measured_ns * p->busbw_factor : NAN);
            g_string_append(out, ",\"busbw_model_gbps\":");
            json_number(out, p->model_ns > 0 ? p->bytes / p->model_ns * p->busbw_factor : NAN);
        }
        g_string_append_c(out, '}');
    }
    g_string_append(out, "],\"tables\":[");
    for (guint i = 0; i < c->groups->len; i++) {
        const FennelCompareGroup *g = &g_array_index(c->groups, FennelCompareGroup, i);
        g_string_append_printf(out, "%s{\"collective\":", i ? "," : "");
        if (g->collective)
            fennel_json_string(out, g->collective);
        else
            g_string_append(out, "null");
        g_string_append(out, ",\"generator\":");
        fennel_json_string(out, g->generator);
        g_string_append(out, ",\"schedule\":");
        json_string_or_null(out, g->schedule);
        g_string_append(out, ",\"library\":");
        json_string_or_null(out, g->mpi_library);
        g_string_append_printf(
            out, ",\"ranks\":%u,\"points\":%u,\"median_relative_error\":", g->ranks, g->points);
        json_number(out, g->median_error);
        g_string_append(out, ",\"worst_relative_error\":");
        json_number(out, g->worst_error);
        g_string_append_printf(
            out, ",\"worst_bytes\":%" G_GINT64_FORMAT ",\"median_ratio\":", g->worst_bytes);
        json_number(out, g->median_ratio);
        g_string_append_c(out, '}');
    }
    g_string_append(out, "],\"median_relative_error\":");
    json_number(out, c->median_error);
    g_string_append(out, ",\"worst_relative_error\":");
    json_number(out, c->worst_error);
    g_string_append(out, ",\"mean_relative_difference\":");
    json_number(out, c->mean);
    g_string_append(out, ",\"worst_relative_difference\":");
    json_number(out, c->worst);
    g_string_append(out, ",\"left_out\":");
    fennel_json_string(out, c->skipped->str);
    g_string_append(out, ",\"no_library_table\":");
    fennel_json_string(out, c->no_table->str);
    g_string_append(out, ",\"no_generator\":");
    fennel_json_string(out, c->no_generator->str);
    g_string_append_printf(
        out, ",\"no_generator_points\":%u,\"no_generator_first\":", c->no_generator_points);
    json_string_or_null(out, c->no_generator_first);
    g_string_append_printf(out, ",\"zero_byte_rows_left_out\":%u", c->zero_rows);
    g_string_append_c(out, '}');
    printf("%s\n", out->str);
    g_string_free(out, TRUE);
}

static int compare(const Options *o, const FennelCompareOptions *co)
{
    GError *error = NULL;
    FennelModel model;
    fennel_model_init(&model);
    FennelModelOptions mo = {.model_file = o->model, .set = o->set};
    if (!fennel_model_options_build(&mo, &model, &error)) {
        fennel_model_clear(&model);
        return fennel_cli_fail(error);
    }
    if (!fennel_model_options_ports(&model, o->nic, o->duplex, &error)) {
        fennel_model_clear(&model);
        return fennel_cli_fail(error);
    }
    /* --ppn P: P consecutive ranks per node; messages within a node take the model's intra
     * model, or the shared-memory default when it has none (docs/TOPOLOGY.md). */
    gboolean intra_default = FALSE;
    char *placement = NULL;
    if (o->ppn > 0) {
        model.ranks_per_node = (uint32_t)o->ppn;
        if (!model.intra_given) {
            fennel_model_set_intra_default(&model);
            intra_default = TRUE;
        }
        placement = placement_line(&model, intra_default);
    }
    /* The network model is one node's adapter (its ping-pong ran between two nodes, one rank
     * on each): unless the model or --nic says otherwise, the ranks of a node share it. */
    gboolean nic_default = o->ppn > 0 && fennel_model_share_nic_default(&model);
    if (model.nic_shared || model.half_duplex) {
        /* The ports the messages between nodes take (docs/TOPOLOGY.md). */
        char *duplex = fennel_model_duplex_text(&model);
        char *sized = model.n_duplex ? g_strdup_printf(", duplex %s (half: sends and receives "
                                                       "do not overlap)",
                                                       duplex)
                                     : NULL;
        char *ports = g_strdup_printf(
            "%s%sports: %s%s%s%s", placement ? placement : "", placement ? "\n" : "",
            model.nic_shared ? "one NIC per node, shared by its ranks" : "one NIC per rank",
            sized               ? sized
            : model.half_duplex ? ", half duplex (sends and receives do not overlap)"
                                : "",
            model.half_duplex ? "" : ", full duplex",
            nic_default ? " (the default under --ppn: the network model is a ping-pong between "
                          "nodes, one rank on each; --nic own gives every rank its own)"
                        : "");
        g_free(sized);
        g_free(duplex);
        g_free(placement);
        placement = ports;
    }
    GPtrArray *tables = g_ptr_array_new_with_free_func(fennel_measure_table_free);
    gboolean ok = TRUE;
    for (guint i = 0; ok && o->files[i]; i++)
        ok = fennel_measure_read(o->files[i], o->format, tables, &error);
    /* --collective: the collective of nccl-tests tables whose log does not name it. */
    for (guint i = 0; ok && o->collective && i < tables->len; i++) {
        FennelMeasureTable *t = g_ptr_array_index(tables, i);
        if (t->nccl && t->kind == FENNEL_MEASURE_COLLECTIVE && t->collective == NULL &&
            t->generator == NULL)
            t->collective = g_strdup(o->collective);
    }
    FennelComparison c = {0};
    ok = ok && fennel_compare(tables, &model, co, &c, &error);
    if (ok && o->plot)
        ok = draw(&c, o->plot, &error);
    if (ok) {
        if (o->json)
            print_json(&c, &model, o->ppn > 0 || model.nic_shared || model.half_duplex,
                       intra_default, nic_default);
        else
            print_text(&c, placement);
    }
    g_free(placement);
    fennel_comparison_clear(&c);
    g_ptr_array_free(tables, TRUE);
    fennel_model_clear(&model);
    return ok ? 0 : fennel_cli_fail(error);
}

/* The collectives of nccl-tests' tests as measure.c names them. */
static const char *const nccl_collectives[] = {
    "allreduce", "allgather", "reduce_scatter", "bcast", "reduce", "alltoall", NULL};

int fennel_cmd_compare(int argc, char **argv)
{
    Options o = {.ranks = G_MININT}; /* G_MININT: not given */
    GOptionEntry entries[] = {
        {"model", 'm', 0, G_OPTION_ARG_FILENAME, &o.model, "Model file (YAML)", "FILE"},
        {"generator", 'g', 0, G_OPTION_ARG_STRING, &o.generator,
         "Simulate every point with this generator instead of the collective's default", "NAME"},
        {"library", 0, 0, G_OPTION_ARG_STRING, &o.mpi_library,
         "Simulate every point with the algorithm this library picks for its collective, ranks "
         "and size (ompi-1.6, ompi-3, ompi-4, ompi-5, mpich-3, mpich-4, nccl; docs/LIBRARIES.md)",
         "NAME"},
        {"collective", 0, 0, G_OPTION_ARG_STRING, &o.collective,
         "The collective of nccl-tests tables whose log does not name it (no test line): "
         "allreduce, allgather, reduce_scatter, bcast, reduce or alltoall",
         "NAME"},
        {"in-place", 0, 0, G_OPTION_ARG_NONE, &o.in_place,
         "Score nccl-tests' in-place time column instead of the out-of-place one", NULL},
        {"ranks", 'n', 0, G_OPTION_ARG_INT, &o.ranks,
         "Ranks of tables that do not say (OSU prints no process count)", "N"},
        {"ppn", 0, 0, G_OPTION_ARG_INT, &o.ppn,
         "Ranks per node: P consecutive ranks share a node and their messages take the model's "
         "intra model (the shared-memory default postal alpha=" FENNEL_INTRA_DEFAULT_ALPHA
         " beta=" FENNEL_INTRA_DEFAULT_BETA " when it has none)",
         "P"},
        {"nic", 0, 0, G_OPTION_ARG_STRING, &o.nic,
         "own or shared: the ranks of a node share one NIC, whose sending and receiving ports "
         "each message holds for its bytes (the model's nic key; docs/TOPOLOGY.md); shared "
         "by default with --ppn above 1 where the model names none",
         "NIC"},
        {"duplex", 0, 0, G_OPTION_ARG_STRING, &o.duplex,
         "full or half: a port does not send and receive at once, a message the other way "
         "waiting until the last one has arrived; or by size, 'half, full from 8KiB' (the "
         "model's duplex key)",
         "DUPLEX"},
        {"set", 0, 0, G_OPTION_ARG_STRING_ARRAY, &o.set,
         "Set a model value over the model file (repeatable), as run --set, e.g. eager=64KiB",
         "KEY=VALUE"},
        {"statistic", 0, 0, G_OPTION_ARG_STRING, &o.statistic,
         "Of a point's repeated samples (runs pooled, as fit pools them): min (a tool's minimum "
         "column where it has one; default), median or mean (of its average column)",
         "STAT"},
        {"format", 0, 0, G_OPTION_ARG_STRING, &o.format,
         "Input format: auto (default), csv, osu, imb, nccl, netgauge, calibrate, mpi-latency or "
         "nxnlatbw",
         "FORMAT"},
        {"json", 0, 0, G_OPTION_ARG_NONE, &o.json, "Print the comparison as one JSON object", NULL},
        {"plot", 0, 0, G_OPTION_ARG_FILENAME, &o.plot,
         "Draw the relative differences (.svg, .png or .pdf)", "FILE"},
        {G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &o.files, NULL, "FILE..."},
        {NULL, 0, 0, 0, NULL, NULL, NULL},
    };
    int status = 0;
    FennelCompareOptions co = {.statistic = FENNEL_STAT_MIN};
    if (fennel_cli_parse("compare", "FILE... --model MODEL.yaml",
                         "Simulate each measured collective time (OSU, IMB, nccl-tests, or a CSV "
                         "of generator,ranks,size_bytes,schedule,time_ns) under the model and "
                         "print the relative difference (measured - model) / model.",
                         entries, &argc, &argv, &status)) {
        gboolean format_ok = o.format == NULL || strcmp(o.format, "auto") == 0;
        for (int i = 0; !format_ok && fennel_measure_formats[i]; i++)
            format_ok = strcmp(o.format, fennel_measure_formats[i]) == 0;
        co.generator = o.generator;
        co.mpi_library = o.mpi_library;
        co.ranks = o.ranks > 0 ? (uint32_t)o.ranks : 0;
        co.ppn = o.ppn > 0 ? (uint32_t)o.ppn : 0;
        co.in_place = o.in_place;
        if (o.files == NULL || o.files[0] == NULL)
            status = usage_error("no measurement file given (fennel compare FILE... --model M)");
        else if (o.model == NULL)
            status = usage_error("--model FILE is required");
        else if (o.ranks != G_MININT && o.ranks < 1)
            status = usage_error("--ranks: expected a whole number >= 1");
        else if (o.ppn < 0)
            status = usage_error("--ppn: expected a whole number >= 1");
        else if (o.statistic && !fennel_statistic_parse(o.statistic, &co.statistic))
            status = usage_error("--statistic: expected min, median or mean");
        else if (!format_ok)
            status = usage_error("--format: expected auto, csv, osu, imb, nccl, netgauge, "
                                 "calibrate, mpi-latency or nxnlatbw");
        else if (o.collective && !g_strv_contains(nccl_collectives, o.collective))
            status = usage_error("--collective: expected allreduce, allgather, reduce_scatter, "
                                 "bcast, reduce or alltoall");
        else if (o.generator && o.mpi_library)
            status = usage_error("--generator and --library exclude each other");
        else if (o.mpi_library &&
                 !g_strv_contains((const char *const *)fennel_library_names(), o.mpi_library))
            status = fennel_cli_unknown_library("compare", o.mpi_library);
        else if (o.generator && fennel_generator_find(o.generator) == NULL)
            status = usage_error("--generator: unknown generator ('fennel list' names them)");
        else if (o.plot && fennel_canvas_format(o.plot) == NULL)
            status = usage_error("--plot: the file name must end in .svg, .png or .pdf");
        else
            status = compare(&o, &co);
    }
    g_free(o.model);
    g_free(o.generator);
    g_free(o.mpi_library);
    g_free(o.statistic);
    g_free(o.format);
    g_free(o.plot);
    g_free(o.collective);
    g_free(o.nic);
    g_free(o.duplex);
    g_strfreev(o.set);
    g_strfreev(o.files);
    return status;
}
