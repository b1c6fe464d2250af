/* fennel fit: measurements (models/measure.h) to a model file (models/fit.h), with a report
 * and optionally a plot of the measurements and the fitted lines (viz/plot.h). */
#include "canvas.h"
#include "cli.h"
#include "errors.h"
#include "fit.h"
#include "fit_reduction.h"
#include "options.h"
#include "output.h"
#include "plot.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    char *network, *statistic, *segments, *format, *output, *plot, *model, *nic, *duplex;
    char **set; /* with --model: --set KEY=VALUE over the model */
    char *mpi_library;
    char **intra;
    gint min_points, ranks, ppn;
    gboolean clamp, leave_out, json;
    char **files;
} Options;

static int usage_error(const char *message)
{
    fennel_cli_error("fit: %s\n", message);
    return 2;
}

/* The plot: measured points and the fit's values, one series each (per size for lbp, whose
 * x axis is the number of targets b, as the thesis' Fig. 4.7 and 4.8). */
static gboolean draw(const FennelFit *f, FennelOutputs *out, const char *file, GError **error)
{
    gboolean lbp = strcmp(f->network, "lbp") == 0;
    GString *csv = g_string_new(lbp ? "targets,time_ns,series\n" : "size_bytes,time_ns,series\n");
    for (int fitted = 0; fitted < 2; fitted++) {
        for (guint i = 0; i < f->points->len; i++) {
            const FennelFitPoint *p = &g_array_index(f->points, FennelFitPoint, i);
            double x = lbp ? p->targets : (double)MAX(p->bytes, 1);
            double y = fitted ? p->fitted_ns : p->measured_ns;
            if (!isfinite(y) || y <= 0)
                continue;
            if (lbp)
                g_string_append_printf(csv, "%g,%.6f,%" G_GINT64_FORMAT " B %s\n", x, y, p->bytes,
                                       fitted ? "fit" : "measured");
            else
                g_string_append_printf(csv, "%g,%.6f,%s\n", x, y, fitted ? "fit" : "measured");
        }
    }
    FennelPlotOptions po = {.x = lbp ? "targets" : "size_bytes",
                            .y = "time_ns",
                            .by = "series",
                            .logx = !lbp,
                            .logy = !lbp,
                            .width = 800,
                            .height = 500};
    FennelPlotData *d = fennel_plot_data_read("fit", csv->str, csv->len, &po, error);
    g_string_free(csv, TRUE);
    if (d == NULL)
        return FALSE;
    FennelCanvas *c = fennel_plot_draw(d, &po);
    gboolean ok = fennel_canvas_write_to(c, out, file, error);
    fennel_canvas_free(c);
    fennel_plot_data_free(d);
    return ok;
}

/* --model M: the reduction's per-byte cost from collective measurements under M. */
static int fit_reduction(const Options *o, const FennelFitOptions *fo)
{
    GError *error = NULL;
    FennelModel model;
    fennel_model_init(&model);
    FennelModelOptions mo = {.model_file = o->model, .set = o->set};
    if (!fennel_model_options_build(&mo, &model, &error)) {
        fennel_model_clear(&model);
        return fennel_cli_fail(error);
    }
    char *path = fennel_model_preset_find(o->model), *text = NULL;
    if (path == NULL || !g_file_get_contents(path, &text, NULL, &error)) {
        g_free(path);
        fennel_model_clear(&model);
        return fennel_cli_fail(error);
    }
    if (!fennel_model_options_ports(&model, o->nic, o->duplex, &error)) {
        fennel_model_clear(&model);
        return fennel_cli_fail(error);
    }
    FennelCompareOptions co = {.statistic = fo->statistic,
                               .ranks = o->ranks > 0 ? (uint32_t)o->ranks : 0,
                               .ppn = o->ppn > 0 ? (uint32_t)o->ppn : 0,
                               .mpi_library = o->mpi_library};
    gboolean intra_default = FALSE;
    if (co.ppn) {
        model.ranks_per_node = co.ppn;
        if (!model.intra_given) {
            fennel_model_set_intra_default(&model);
            intra_default = TRUE;
        }
    }
    /* As compare --ppn: the ranks of a node share the adapter the ping-pong measured. */
    gboolean nic_default = co.ppn && fennel_model_share_nic_default(&model);
    GPtrArray *tables = g_ptr_array_new_with_free_func(fennel_measure_table_free);
    gboolean ok = TRUE;
    for (guint i = 0; ok && o->files[i]; i++)
        ok = fennel_measure_read(o->files[i], o->format, tables, &error);
    FennelReductionFit f = {0};
    ok = ok && fennel_fit_reduction(tables, &model, text, o->model, &co, &f, &error);
    FennelOutputs *out = fennel_outputs_new();
    if (ok && o->output)
        ok = fennel_outputs_write(out, o->output, f.yaml, strlen(f.yaml), &error);
    if (ok)
        ok = fennel_outputs_commit(out, &error);
    else
        fennel_outputs_abort(out);
    if (ok && o->json) {
        printf("%s\n", f.json->str);
    } else if (ok) {
        if (co.ppn)
            printf("ranks per node: %u; messages within a node: %s\n", co.ppn,
                   intra_default
                       ? "the shared-memory default postal alpha=" FENNEL_INTRA_DEFAULT_ALPHA
                         " beta=" FENNEL_INTRA_DEFAULT_BETA " (the model has no intra model)"
                       : "the model's intra model");
        if (nic_default) {
            char *duplex = fennel_model_duplex_text(&model);
            printf("ports: one NIC per node, shared by its ranks, %s duplex (the default "
                   "under --ppn: the network model is a ping-pong between nodes, one rank on "
                   "each; --nic own gives every rank its own)\n",
                   duplex);
            g_free(duplex);
        }
        fputs(f.report->str, stdout);
    }
    fennel_reduction_fit_clear(&f);
    g_ptr_array_free(tables, TRUE);
    g_free(text);
    g_free(path);
    fennel_model_clear(&model);
    return ok ? 0 : fennel_cli_fail(error);
}

static int fit(const Options *o, const FennelFitOptions *fo)
{
    GError *error = NULL;
    GPtrArray *tables = g_ptr_array_new_with_free_func(fennel_measure_table_free);
    for (guint i = 0; o->files[i]; i++) {
        if (!fennel_measure_read(o->files[i], o->format, tables, &error)) {
            g_ptr_array_free(tables, TRUE);
            return fennel_cli_fail(error);
        }
    }
    GPtrArray *intra = NULL;
    if (o->intra) {
        intra = g_ptr_array_new_with_free_func(fennel_measure_table_free);
        for (guint i = 0; o->intra[i]; i++) {
            if (!fennel_measure_read(o->intra[i], o->format, intra, &error)) {
                g_ptr_array_free(intra, TRUE);
                g_ptr_array_free(tables, TRUE);
                return fennel_cli_fail(error);
            }
        }
    }
    FennelFitOptions with_intra = *fo;
    with_intra.intra = intra;
    FennelFit *f = fennel_fit(tables, &with_intra, &error);
    g_ptr_array_free(tables, TRUE);
    if (intra)
        g_ptr_array_free(intra, TRUE);
    if (f == NULL)
        return fennel_cli_fail(error);
    /* The model and the plot are written together: both or neither. */
    FennelOutputs *out = fennel_outputs_new();
    gboolean ok = TRUE;
    if (o->output)
        ok = fennel_outputs_write(out, o->output, f->yaml, strlen(f->yaml), &error);
    if (ok && o->plot)
        ok = draw(f, out, o->plot, &error);
    if (ok)
        ok = fennel_outputs_commit(out, &error);
    else
        fennel_outputs_abort(out);
    if (ok) {
        if (o->json)
            printf("%s\n", f->json->str);
        else
            fputs(f->report->str, stdout);
    }
    fennel_fit_free(f);
    return ok ? 0 : fennel_cli_fail(error);
}

int fennel_cmd_fit(int argc, char **argv)
{
    Options o = {0};
    GOptionEntry entries[] = {
        {"network", 0, 0, G_OPTION_ARG_STRING, &o.network,
         "Model to fit: postal, lbp, logp or loggp (default: lbp for multicast data, loggp for "
         "Netgauge's table, postal otherwise)",
         "KIND"},
        {"statistic", 0, 0, G_OPTION_ARG_STRING, &o.statistic,
         "Of the repeated samples of a point: min (default), median or mean", "STAT"},
        {"segments", 0, 0, G_OPTION_ARG_STRING, &o.segments,
         "Pieces of a postal or LogGP fit: auto (default, by BIC, up to 4) or K", "auto|K"},
        {"min-points", 0, 0, G_OPTION_ARG_INT, &o.min_points,
         "The fewest sizes of a segment (default 4; 2 lets a line pass through two points)", "N"},
        {"clamp", 0, 0, G_OPTION_ARG_NONE, &o.clamp,
         "Hold a parameter the unconstrained line makes negative at 0 and refit the others: "
         "the default of every fit (non-negative least squares), accepted so that command "
         "lines that name it keep working",
         NULL},
        {"leave-out-nonphysical", 0, 0, G_OPTION_ARG_NONE, &o.leave_out,
         "lbp: leave out of the model a size whose unconstrained line has a negative "
         "parameter (as the thesis' Table 4.1), instead of fitting it with that parameter "
         "held at 0",
         NULL},
        {"format", 0, 0, G_OPTION_ARG_STRING, &o.format,
         "Input format: auto (default), csv, osu, imb, nccl, netgauge, calibrate, mpi-latency or "
         "nxnlatbw",
         "FORMAT"},
        {"json", 0, 0, G_OPTION_ARG_NONE, &o.json, "Print the fit report as one JSON object", NULL},
        {"plot", 0, 0, G_OPTION_ARG_FILENAME, &o.plot,
         "Draw the measurements and the fit (.svg, .png or .pdf)", "FILE"},
        {"output", 'o', 0, G_OPTION_ARG_FILENAME, &o.output, "Write the model file", "FILE"},
        {"intra", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &o.intra,
         "An intra-node ping-pong (two ranks on one node), fitted too and written as the "
         "model's intra section (without it, messages within a node take the shared-memory "
         "default postal alpha=" FENNEL_INTRA_DEFAULT_ALPHA " beta=" FENNEL_INTRA_DEFAULT_BETA
         "); repeatable",
         "FILE"},
        {"model", 'm', 0, G_OPTION_ARG_FILENAME, &o.model,
         "Fit the reduction's per-byte cost (compute: reduction, gamma) to collective "
         "measurements under this network model, instead of a network model",
         "MODEL.yaml"},
        {"ranks", 'n', 0, G_OPTION_ARG_INT, &o.ranks,
         "With --model: ranks of tables that do not say (OSU prints no process count)", "N"},
        {"ppn", 0, 0, G_OPTION_ARG_INT, &o.ppn, "With --model: ranks per node, as compare --ppn",
         "P"},
        {"nic", 0, 0, G_OPTION_ARG_STRING, &o.nic, "With --model: own or shared, as compare --nic",
         "NIC"},
        {"duplex", 0, 0, G_OPTION_ARG_STRING, &o.duplex,
         "full or half: with --model as compare --duplex (sizes too); in a network fit, "
         "written into the model instead of what the measurements show",
         "DUPLEX"},
        {"set", 0, 0, G_OPTION_ARG_STRING_ARRAY, &o.set,
         "With --model: set a model value over the model file (repeatable), as compare --set",
         "KEY=VALUE"},
        {"library", 0, 0, G_OPTION_ARG_STRING, &o.mpi_library,
         "With --model: simulate every point with the algorithm this library picks, as "
         "compare --library",
         "NAME"},
        {G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &o.files, NULL, "FILE..."},
        {NULL, 0, 0, 0, NULL, NULL, NULL},
    };
    int status = 0;
    FennelFitOptions fo = {.statistic = FENNEL_STAT_MIN};
    if (fennel_cli_parse("fit", "FILE... [--network KIND] [-o MODEL.yaml]",
                         "Fit a network model to measurements (fennel's CSV, OSU, IMB or Netgauge "
                         "output) and write it as a model file, with the fit in its comments; "
                         "--intra FILE adds the intra-node level, --model NETWORK.yaml fits the "
                         "reduction's per-byte cost to collective measurements instead.",
                         entries, &argc, &argv, &status)) {
        gboolean format_ok = o.format == NULL || strcmp(o.format, "auto") == 0;
        for (int i = 0; !format_ok && fennel_measure_formats[i]; i++)
            format_ok = strcmp(o.format, fennel_measure_formats[i]) == 0;
        char *end = NULL;
        long k = o.segments && strcmp(o.segments, "auto") != 0 ? strtol(o.segments, &end, 10) : 0;
        fo.network = o.network;
        fo.leave_out_nonphysical = o.leave_out;
        fo.segments = (int)k;
        fo.min_points = o.min_points;
        fo.duplex = o.duplex;
        if (o.files == NULL || o.files[0] == NULL)
            status = usage_error("no measurement file given (fennel fit FILE... -o MODEL.yaml)");
        else if (o.network && strcmp(o.network, "postal") != 0 && strcmp(o.network, "lbp") != 0 &&
                 strcmp(o.network, "logp") != 0 && strcmp(o.network, "loggp") != 0)
            status = usage_error("--network: expected postal, lbp, logp or loggp");
        else if (o.statistic && !fennel_statistic_parse(o.statistic, &fo.statistic))
            status = usage_error("--statistic: expected min, median or mean");
        else if (end && (*end || k < 1 || k > 16))
            status = usage_error("--segments: expected auto or a number 1..16");
        else if (o.clamp && o.leave_out)
            status = usage_error("--clamp and --leave-out-nonphysical exclude each other");
        else if (o.min_points != 0 && (o.min_points < 2 || o.min_points > 1000))
            status = usage_error("--min-points: expected a number 2..1000");
        else if (!format_ok)
            status = usage_error("--format: expected auto, csv, osu, imb, nccl, netgauge, "
                                 "calibrate, mpi-latency or nxnlatbw");
        else if (o.plot && fennel_canvas_format(o.plot) == NULL)
            status = usage_error("--plot: the file name must end in .svg, .png or .pdf");
        else if (o.ranks < 0 || o.ppn < 0)
            status = usage_error(o.ranks < 0 ? "--ranks: expected a whole number >= 1"
                                             : "--ppn: expected a whole number >= 1");
        else if (o.model == NULL && (o.ranks || o.ppn || o.nic || o.mpi_library || o.set))
            status = usage_error("--ranks, --ppn, --nic, --library and --set go with --model "
                                 "(the reduction's cost)");
        else if (o.mpi_library &&
                 !g_strv_contains((const char *const *)fennel_library_names(), o.mpi_library))
            status = fennel_cli_unknown_library("fit", o.mpi_library);
        else if (o.duplex && !o.model && strcmp(o.duplex, "full") != 0 &&
                 strcmp(o.duplex, "half") != 0)
            status = usage_error("--duplex: expected full or half (sizes with --model)");
        else if (o.model && (o.network || o.segments || o.plot || o.clamp || o.leave_out ||
                             o.min_points || o.intra))
            status = usage_error("--model fits the reduction's cost: --network, --segments, "
                                 "--min-points, --clamp, --leave-out-nonphysical, --plot and "
                                 "--intra belong to a network fit");
        else if (o.model)
            status = fit_reduction(&o, &fo);
        else
            status = fit(&o, &fo);
    }
    g_free(o.network);
    g_free(o.statistic);
    g_free(o.segments);
    g_free(o.format);
    g_free(o.output);
    g_free(o.plot);
    g_free(o.model);
    g_free(o.nic);
    g_free(o.duplex);
    g_strfreev(o.set);
    g_free(o.mpi_library);
    g_strfreev(o.intra);
    g_strfreev(o.files);
    return status;
}
