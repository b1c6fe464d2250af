/* fennel tune: algorithm selection. Runs a sweep of a collective's generators over rank
 * counts and message sizes (or reads one), and writes the fastest algorithm of every cell
 * as a decision table, an Open MPI rules file or a heat map (tune.h, docs/TUNING.md). */
#include "canvas.h"
#include "cli.h"
#include "errors.h"
#include "output.h"
#include "sweep.h"
#include "tune.h"

#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    FennelModelOptions model;
    FennelGenTextOptions gen;
    char *collective, *generate, *from, *sweep, *format, *output, *heatmap, *ompi_version;
    char *mpi_library; /* the baseline: this library's choice in every cell */
    int ompi;          /* the Open MPI release line of --format ompi */
    gint64 seed, repeat, jobs;
    gint width, height;
    char **rest;
} Options;

static int usage_error(const char *format, const char *arg)
{
    char *text = g_strdup_printf(format, arg);
    fennel_cli_error("tune: %s", text);
    g_free(text);
    return 2;
}

/* The collectives some generator performs, comma-separated, in registry order. */
static char *known_collectives(void)
{
    GString *out = g_string_new(NULL);
    for (guint i = 0; fennel_generators[i]; i++) {
        const char *c = fennel_generators[i]->collective;
        gboolean seen = c == NULL;
        for (guint j = 0; j < i && !seen; j++)
            seen = g_strcmp0(fennel_generators[j]->collective, c) == 0;
        if (!seen)
            g_string_append_printf(out, "%s%s", out->len ? ", " : "", c);
    }
    return g_string_free(out, FALSE);
}

/* The generators to sweep: those given, each of which must perform the collective, or by
 * default every generator that performs it. NULL after a usage error. */
static char *generators_of(const Options *o)
{
    GString *names = g_string_new(NULL);
    if (o->generate) {
        char **given = g_strsplit(o->generate, ",", -1);
        for (guint i = 0; given[i]; i++) {
            const FennelGenerator *g = fennel_generator_find(given[i]);
            if (g && g_strcmp0(g->collective, o->collective) != 0) {
                char *text =
                    g_strdup_printf("--generate %s: it performs %s, not %s", g->name,
                                    g->collective ? g->collective : "no collective", o->collective);
                usage_error("%s", text);
                g_free(text);
                g_strfreev(given);
                g_string_free(names, TRUE);
                return NULL;
            }
        }
        g_strfreev(given);
        g_string_append(names, o->generate);
    }
    for (guint i = 0; !o->generate && fennel_generators[i]; i++)
        if (g_strcmp0(fennel_generators[i]->collective, o->collective) == 0)
            g_string_append_printf(names, "%s%s", names->len ? "," : "",
                                   fennel_generators[i]->name);
    if (names->len == 0) {
        char *known = known_collectives();
        char *text = g_strdup_printf("--collective %s: no generator performs it (known: %s)",
                                     o->collective, known);
        usage_error("%s", text);
        g_free(text);
        g_free(known);
        g_string_free(names, TRUE);
        return NULL;
    }
    return g_string_free(names, FALSE);
}

/* Runs the sweep into `path` on the thread pool; an exit status, 0 when it ran. */
static int run_sweep(const Options *o, const char *generators, const char *path)
{
    FennelSweepSpec spec = {.generators = generators,
                            .libraries = o->mpi_library,
                            .collective = o->mpi_library ? o->collective : NULL,
                            .gen = &o->gen,
                            .model = &o->model,
                            .seed = (uint64_t)o->seed,
                            .repeat = (uint32_t)o->repeat,
                            .shard = 1,
                            .shards = 1};
    FennelSweepRunOptions ro = {.output = path, .jobs = (guint)o->jobs};
    fennel_cli_sweep_progress(&ro, isatty(STDERR_FILENO) ? FENNEL_CLI_PROGRESS_BAR
                                                         : FENNEL_CLI_PROGRESS_NONE);
    return fennel_cli_run_sweep("tune", &spec, &ro);
}

/* Writes the table (or rules) and the heat map together: both or neither. */
static int write_outputs(const Options *o, const FennelTune *t)
{
    GError *error = NULL;
    GString *text = g_string_new(NULL);
    guint substituted = 0;
    gboolean ok = TRUE;
    if (g_strcmp0(o->format, "json") == 0)
        fennel_tune_write_json(t, text);
    else if (g_strcmp0(o->format, "nccl") == 0) {
        if (!fennel_tune_write_nccl(t, text, &substituted, &error)) {
            g_prefix_error(&error, "tune: ");
            ok = FALSE;
        }
    } else if (g_strcmp0(o->format, "ompi") != 0)
        fennel_tune_write_csv(t, text);
    else if (!fennel_tune_write_ompi(t, o->ompi, text, &substituted, &error)) {
        g_prefix_error(&error, "tune: ");
        ok = FALSE;
    }
    FennelOutputs *outputs = ok ? fennel_outputs_new() : NULL;
    ok = ok && fennel_outputs_write(outputs, o->output, text->str, text->len, &error);
    if (ok && o->heatmap) {
        FennelCanvas *c = fennel_tune_heatmap(t, o->width, o->height);
        ok = fennel_canvas_write_to(c, outputs, o->heatmap, &error);
        fennel_canvas_free(c);
    }
    /* A commit frees the set, failed or not: only a set not committed is aborted. */
    if (ok)
        ok = fennel_outputs_commit(outputs, &error);
    else if (outputs)
        fennel_outputs_abort(outputs);
    g_string_free(text, TRUE);
    if (!ok)
        return fennel_cli_fail(error);
    char vbuf[8];
    if (substituted && g_strcmp0(o->format, "nccl") == 0)
        fennel_cli_error("tune: note: in %u of %u cells the fastest algorithm is not one of "
                         "NCCL's; %s names the fastest that is\n",
                         substituted, t->n_ranks * t->n_sizes, o->output);
    else if (substituted)
        fennel_cli_error("tune: note: in %u of %u cells the fastest algorithm has no "
                         "counterpart in Open MPI %s; %s names the fastest that has one (its "
                         "comments list them)",
                         substituted, t->n_ranks * t->n_sizes,
                         fennel_tune_ompi_version_name(o->ompi, vbuf), o->output);
    return 0;
}

static int tune_file(const Options *o, const char *path, const char *name)
{
    GError *error = NULL;
    char *text = NULL;
    gsize length = 0;
    if (!g_file_get_contents(path, &text, &length, &error)) {
        int code = error->code;
        g_clear_error(&error);
        g_set_error(&error, FENNEL_ERROR, FENNEL_ERROR_IO, "%s: cannot read: %s", name,
                    code == G_FILE_ERROR_NOENT   ? "no such file"
                    : code == G_FILE_ERROR_ISDIR ? "a directory"
                                                 : "not a readable file");
        return fennel_cli_fail(error);
    }
    FennelTune *t = fennel_tune_read(name, text, length, o->collective, &error);
    g_free(text);
    if (t == NULL)
        return fennel_cli_fail(error);
    int status = 0;
    if (g_strcmp0(o->format, "ompi") == 0 && !fennel_tune_ompi_knows(t->collective))
        status = usage_error("--format ompi: Open MPI's rules cover allgather, allreduce, "
                             "barrier, bcast, reduce and reduce-scatter, not %s",
                             t->collective);
    else
        status = write_outputs(o, t);
    fennel_tune_free(t);
    return status;
}

static int tune(const Options *o)
{
    if (o->from)
        return tune_file(o, o->from, o->from);
    if (o->format && strcmp(o->format, "ompi") == 0 && !fennel_tune_ompi_knows(o->collective))
        return usage_error("--format ompi: Open MPI's rules cover allgather, allreduce, barrier, "
                           "bcast, reduce and reduce-scatter, not %s",
                           o->collective);
    char *generators = generators_of(o);
    if (generators == NULL)
        return 2;
    /* Without --sweep the rows go to a private directory, removed at the end. */
    char *dir = NULL, *path = o->sweep ? g_strdup(o->sweep) : NULL;
    if (path == NULL) {
        GError *error = NULL;
        dir = g_dir_make_tmp("fennel-tune-XXXXXX", &error);
        if (dir == NULL) {
            g_free(generators);
            return fennel_cli_fail(error);
        }
        path = g_build_filename(dir, "sweep.csv", NULL);
    }
    int status = run_sweep(o, generators, path);
    if (status == 0)
        status = tune_file(o, path, o->sweep ? o->sweep : "tune");
    if (dir) {
        char *sidecar = fennel_sweep_sidecar_path(path);
        g_remove(sidecar);
        g_remove(path);
        g_rmdir(dir);
        g_free(sidecar);
    }
    g_free(path);
    g_free(dir);
    g_free(generators);
    return status;
}

/* The usage errors found before any work; 0 when there are none. */
static int check(Options *o)
{
    if (o->rest && o->rest[0])
        return usage_error("unexpected argument '%s'", o->rest[0]);
    if (o->output == NULL)
        return usage_error("%s", "-o FILE is required");
    if (o->format && strcmp(o->format, "csv") != 0 && strcmp(o->format, "json") != 0 &&
        strcmp(o->format, "ompi") != 0 && strcmp(o->format, "nccl") != 0)
        return usage_error("--format %s: expected csv, json, ompi or nccl", o->format);
    if (o->ompi_version && g_strcmp0(o->format, "ompi") != 0)
        return usage_error("%s", "--ompi-version goes with --format ompi");
    if (o->ompi_version && !fennel_tune_ompi_version_parse(o->ompi_version, &o->ompi))
        return usage_error("--ompi-version %s: expected an Open MPI release line, 3.0, 3.1, "
                           "4.0, 4.1, 5.0 or 6.0 (a patch level such as 5.0.10 is allowed), or "
                           "main",
                           o->ompi_version);
    if (o->heatmap && fennel_canvas_format(o->heatmap) == NULL)
        return usage_error("%s", "--heatmap: the file name must end in .svg, .png or .pdf");
    if (o->width < 200 || o->width > 10000 || o->height < 150 || o->height > 10000)
        return usage_error("%s", "--picture-width must be 200..10000 and --picture-height "
                                 "150..10000 pixels");
    /* No output may replace an input or another output (the --sweep file was replaced by
     * the table, or cut when the tune failed). */
    char *sidecar = o->sweep ? fennel_sweep_sidecar_path(o->sweep) : NULL;
    const char *clash = NULL;
    if (o->from && fennel_same_file(o->output, o->from))
        clash = "-o %s is the --from file: give another file";
    else if (o->sweep && fennel_same_file(o->output, o->sweep))
        clash = "-o %s is the --sweep file: give another file";
    else if (sidecar && fennel_same_file(o->output, sidecar))
        clash = "-o %s is the --sweep file's sidecar: give another file";
    else if (o->heatmap && fennel_same_file(o->output, o->heatmap))
        clash = "-o %s is the --heatmap file: give another file";
    g_free(sidecar);
    if (clash)
        return usage_error(clash, o->output);
    if (o->heatmap && ((o->sweep && fennel_same_file(o->heatmap, o->sweep)) ||
                       (o->from && fennel_same_file(o->heatmap, o->from))))
        return usage_error("--heatmap %s is the sweep's file: give another file", o->heatmap);
    if (o->from) {
        if (o->generate || o->sweep || o->mpi_library || fennel_gen_text_any(&o->gen) ||
            fennel_model_options_given(&o->model) || o->model.set)
            return usage_error("--from %s reads a sweep's rows: --generate, --library, --sweep, "
                               "the generator and the model options belong to the sweep",
                               o->from);
        return 0;
    }
    if (o->collective == NULL)
        return usage_error("%s", "--collective NAME is required (or --from FILE.csv)");
    if (o->gen.ranks == NULL || o->gen.size == NULL)
        return usage_error("%s", "--ranks LIST and --size LIST are required");
    if (o->seed < 0)
        return usage_error("%s", "--seed must not be negative");
    if (o->repeat < 1 || o->repeat > UINT32_MAX)
        return usage_error("%s", "--repeat must be at least 1");
    if (o->jobs < 1 || o->jobs > 4096)
        return usage_error("%s", "--jobs must be between 1 and 4096");
    return 0;
}

int fennel_cmd_tune(int argc, char **argv)
{
    Options o = {.repeat = 1,
                 .jobs = g_get_num_processors(),
                 .width = 800,
                 .height = 500,
                 .ompi = FENNEL_OMPI_DEFAULT};
    GOptionEntry entries[] = {
        {"collective", 'c', 0, G_OPTION_ARG_STRING, &o.collective,
         "The collective: allreduce, bcast, allgather, reduce-scatter, reduce, barrier, ...",
         "NAME"},
        {"generate", 'g', 0, G_OPTION_ARG_STRING, &o.generate,
         "The algorithms to compare (default: every generator that performs the collective)",
         "NAME[,NAME...]"},
        {"library", 0, 0, G_OPTION_ARG_STRING, &o.mpi_library,
         "Also run the algorithm this library picks in every cell (ompi-1.6, ompi-3, ompi-4, "
         "ompi-5, mpich-3, mpich-4, nccl), and "
         "give its time over the winner's",
         "LIB"},
        FENNEL_GENERATOR_OPTION_ENTRIES(o.gen),
        FENNEL_MODEL_OPTION_ENTRIES(o.model),
        {"seed", 0, 0, G_OPTION_ARG_INT64, &o.seed, "First seed (default 0)", "N"},
        {"repeat", 0, 0, G_OPTION_ARG_INT64, &o.repeat,
         "Runs per cell and algorithm, seeds seed..seed+K-1; their median counts (default 1)", "K"},
        {"jobs", 'j', 0, G_OPTION_ARG_INT64, &o.jobs, "Worker threads (default: every core)", "N"},
        {"from", 0, 0, G_OPTION_ARG_FILENAME, &o.from,
         "Read the rows of a `fennel sweep` instead of running one", "FILE.csv"},
        {"sweep", 0, 0, G_OPTION_ARG_FILENAME, &o.sweep,
         "Keep the sweep's rows in this file (and FILE.json beside it)", "FILE.csv"},
        {"format", 'f', 0, G_OPTION_ARG_STRING, &o.format,
         "csv (default) or json: the decision table; ompi: an Open MPI coll_tuned rules file; "
         "nccl: the CSV of NCCL's example tuner plugin",
         "FORMAT"},
        {"ompi-version", 0, 0, G_OPTION_ARG_STRING, &o.ompi_version,
         "With --format ompi: the Open MPI release line the rules are for, 3.0, 3.1, 4.0, 4.1, "
         "5.0, 6.0 or main (default 5.0, the current release)",
         "VERSION"},
        {"heatmap", 0, 0, G_OPTION_ARG_FILENAME, &o.heatmap,
         "Also draw the winners over ranks and sizes", "FILE.svg|png|pdf"},
        /* --width is the generators' (the multicast width): the heat map's size has names
         * of its own, as run's pictures have; --height is kept for older scripts. */
        {"picture-width", 0, 0, G_OPTION_ARG_INT, &o.width,
         "Heat map width in pixels (default 800)", "PX"},
        {"picture-height", 0, 0, G_OPTION_ARG_INT, &o.height,
         "Heat map height in pixels (default 500)", "PX"},
        {"height", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_INT, &o.height, NULL, "PX"},
        {"output", 'o', 0, G_OPTION_ARG_FILENAME, &o.output, "The table or rules file", "FILE"},
        {G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_STRING_ARRAY, &o.rest, NULL, NULL},
        {NULL, 0, 0, 0, NULL, NULL, NULL},
    };
    int status = 0;
    if (fennel_cli_parse("tune",
                         "--collective NAME --ranks LIST --size LIST [OPTIONS] -o FILE | --from "
                         "FILE.csv -o FILE",
                         "Find the fastest algorithm of a collective for every rank count and "
                         "message size, and its margin over the runner-up: a decision table "
                         "(CSV, JSON), an Open MPI coll_tuned dynamic rules file, a heat map.\n\n"
                         "Lists as in fennel sweep: 8,16,32 | 2..1024*2 | 8B..1MiB*4.",
                         entries, &argc, &argv, &status)) {
        status = check(&o);
        if (status == 0)
            status = tune(&o);
    }
    fennel_model_options_clear(&o.model);
    fennel_gen_text_options_clear(&o.gen);
    g_free(o.collective);
    g_free(o.generate);
    g_free(o.mpi_library);
    g_free(o.from);
    g_free(o.sweep);
    g_free(o.format);
    g_free(o.output);
    g_free(o.heatmap);
    g_free(o.ompi_version);
    g_strfreev(o.rest);
    return status;
}
