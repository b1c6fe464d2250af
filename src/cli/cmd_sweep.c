/* fennel sweep: batch runs over a grid of generators, generator options and model values,
 * or of program files and model values, on a thread pool, written as CSV in grid order
 * (docs/SWEEPS.md; sweep.h has the syntax). */
#include "cli.h"
#include "errors.h"
#include "sweep.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

typedef struct {
    FennelModelOptions model;
    FennelGenTextOptions gen;
    char *generate, *output, *shard;
    char *mpi_library, *collective; /* libraries whose choice for the collective runs */
    gint64 seed, repeat, jobs;
    gboolean resume;
    char *progress;
    char **patterns; /* --program */
    char *algorithms, *slice;
    char **files; /* the program files named as arguments */
} Options;

/* "K/N" with 1 <= K <= N. */
static gboolean parse_shard(const char *text, uint32_t *k, uint32_t *n)
{
    const char *slash = strchr(text, '/');
    if (slash == NULL)
        return FALSE;
    char *left = g_strndup(text, (gsize)(slash - text));
    int64_t a = 0, b = 0;
    const char *why;
    gboolean ok = fennel_parse_int(left, 1, UINT32_MAX, &a, &why) &&
                  fennel_parse_int(slash + 1, 1, UINT32_MAX, &b, &why) && a <= b;
    g_free(left);
    *k = (uint32_t)a;
    *n = (uint32_t)b;
    return ok;
}

static int usage_error(const char *format, const char *arg)
{
    char *text = g_strdup_printf(format, arg);
    fennel_cli_error("sweep: %s", text);
    g_free(text);
    return 2;
}

/* A sweep allocates and frees a machine and a program for every small run. With glibc's
 * defaults the freed memory goes back to the system (trimmed, or unmapped above 128 KiB)
 * and comes back as fresh page faults on the next run: 165 000 faults and 0.2 s of system
 * time for 9 120 runs on two threads, whose page-table updates serialise the threads.
 * Keeping up to 256 MiB of freed memory, and serving blocks up to 32 MiB (glibc's largest
 * mmap threshold) from the heap, removes them. */
static void keep_freed_memory(void)
{
#ifdef __GLIBC__
    mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);
    mallopt(M_TRIM_THRESHOLD, 256 * 1024 * 1024);
#endif
}

/* --progress auto (the default): a bar on a terminal, nothing otherwise; always: a bar on a
 * terminal, a line every few seconds otherwise; never. */
static FennelCliProgress progress_mode(const char *text)
{
    gboolean tty = isatty(STDERR_FILENO);
    if (g_strcmp0(text, "never") == 0)
        return FENNEL_CLI_PROGRESS_NONE;
    if (g_strcmp0(text, "always") == 0)
        return tty ? FENNEL_CLI_PROGRESS_BAR : FENNEL_CLI_PROGRESS_LINES;
    return tty ? FENNEL_CLI_PROGRESS_BAR : FENNEL_CLI_PROGRESS_NONE;
}

/* 0:07, 1:02:03; "-" while unknown. */
static void format_duration(char *buf, size_t size, double seconds)
{
    if (seconds < 0) {
        g_snprintf(buf, size, "-");
        return;
    }
    long s = seconds < 1e9 ? (long)(seconds + 0.5) : 0;
    if (s >= 3600)
        g_snprintf(buf, size, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
    else
        g_snprintf(buf, size, "%ld:%02ld", s / 60, s % 60);
}

/* "[#########           ]  45%  4500/10000 rows  1234 rows/s  ETA 0:04" on one line, or
 * "fennel: sweep: 45% 4500/10000 rows, 1234 rows/s, ETA 0:04" as a line of a log; a note
 * when a signal interrupts the sweep, and the bar cleared at its end. */
static void show_progress(const FennelSweepProgress *pr, void *data)
{
    const gboolean bar = *(const FennelCliProgress *)data == FENNEL_CLI_PROGRESS_BAR;
    if (pr->stage == FENNEL_SWEEP_INTERRUPTED) {
        fprintf(stderr,
                "%sfennel: sweep: interrupted; finishing the rows in flight (at most "
                "%" G_GUINT64_FORMAT ")\n",
                bar ? "\r\033[K" : "", pr->in_flight);
        return;
    }
    if (pr->stage == FENNEL_SWEEP_FINISHED) {
        if (bar) {
            fprintf(stderr, "\r\033[K");
            fflush(stderr);
        }
        return;
    }
    enum { WIDTH = 24 };
    char line[WIDTH + 1], eta[32];
    const int full = (int)(pr->fraction * WIDTH);
    for (int i = 0; i < WIDTH; i++)
        line[i] = i < full ? '#' : ' ';
    line[WIDTH] = '\0';
    format_duration(eta, sizeof eta, pr->seconds_left);
    if (!bar) {
        fprintf(stderr,
                "fennel: sweep: %d%% %" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT
                " rows, %.0f rows/s, ETA %s\n",
                (int)(pr->fraction * 100), pr->rows, pr->total, pr->rows_per_second, eta);
        return;
    }
    fprintf(stderr,
            "\r[%s] %3d%%  %" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT
            " rows  %.0f rows/s  ETA %s\033[K",
            line, (int)(pr->fraction * 100), pr->rows, pr->total, pr->rows_per_second, eta);
    fflush(stderr);
}

void fennel_cli_sweep_progress(FennelSweepRunOptions *ro, FennelCliProgress mode)
{
    /* Redraw the bar at most every 0.1 s; a line in a log at most every 5 s. */
    static const FennelCliProgress modes[] = {FENNEL_CLI_PROGRESS_NONE, FENNEL_CLI_PROGRESS_BAR,
                                              FENNEL_CLI_PROGRESS_LINES};
    ro->progress = mode == FENNEL_CLI_PROGRESS_NONE ? NULL : show_progress;
    ro->progress_data = (void *)&modes[mode];
    ro->progress_seconds = mode == FENNEL_CLI_PROGRESS_LINES ? 5.0 : 0.1;
}

static int run_sweep(const Options *o, const FennelReadOptions *read);

static int run(const Options *o)
{
    FennelCliRead read;
    GError *error = NULL;
    if (o->generate == NULL && o->mpi_library == NULL) {
        /* The size is a list here, each row's own: the reader gets it point by point. */
        FennelGenTextOptions sizeless = o->gen;
        sizeless.size = NULL;
        if (!fennel_cli_read_setup("sweep", &sizeless, o->algorithms, o->slice, &read, &error))
            return fennel_cli_fail(error);
    }
    gboolean files = o->generate == NULL && o->mpi_library == NULL;
    int status = run_sweep(o, files ? &read.read : NULL);
    if (files)
        fennel_cli_read_clear(&read);
    return status;
}

static int run_sweep(const Options *o, const FennelReadOptions *read)
{
    FennelSweepSpec spec = {.generators = o->generate,
                            .libraries = o->mpi_library,
                            .collective = o->collective,
                            .files = o->files,
                            .patterns = o->patterns,
                            .read = read,
                            .gen = &o->gen,
                            .model = &o->model,
                            .seed = (uint64_t)o->seed,
                            .repeat = (uint32_t)o->repeat,
                            .shard = 1,
                            .shards = 1};
    if (o->shard && !parse_shard(o->shard, &spec.shard, &spec.shards))
        return usage_error("--shard %s: expected K/N with 1 <= K <= N, e.g. --shard 2/8", o->shard);
    FennelSweepRunOptions ro = {.output = o->output, .jobs = (guint)o->jobs, .resume = o->resume};
    fennel_cli_sweep_progress(&ro, progress_mode(o->progress));
    return fennel_cli_run_sweep("sweep", &spec, &ro);
}

int fennel_cli_run_sweep(const char *command, const FennelSweepSpec *spec,
                         const FennelSweepRunOptions *ro)
{
    GError *error = NULL;
    if (!fennel_model_options_given(spec->model)) {
        fennel_model_options_missing(command, &error);
        return fennel_cli_fail(error);
    }
    FennelSweep *s = fennel_sweep_new(spec, &error);
    if (s == NULL)
        return fennel_cli_fail(error);
    keep_freed_memory();
    int signal = 0, status = 0;
    if (!fennel_sweep_run(s, ro, &signal, &error)) {
        status = fennel_cli_fail(error);
        if (signal)
            status = 128 + signal;
    }
    fennel_sweep_free(s);
    return status;
}

int fennel_cmd_sweep(int argc, char **argv)
{
    Options o = {.repeat = 1, .jobs = g_get_num_processors()};
    GOptionEntry entries[] = {
        {"generate", 'g', 0, G_OPTION_ARG_STRING, &o.generate,
         "Generators to sweep, comma-separated ('fennel list' names them)", "NAME[,NAME...]"},
        {"library", 0, 0, G_OPTION_ARG_STRING, &o.mpi_library,
         "Libraries to sweep after the generators, comma-separated (ompi-1.6, ompi-3, ompi-4, "
         "ompi-5, mpich-3, mpich-4, nccl): "
         "each point runs the algorithm the library picks for --collective (docs/LIBRARIES.md)",
         "LIB[,LIB...]"},
        {"collective", 0, 0, G_OPTION_ARG_STRING, &o.collective,
         "With --library: the collective (allreduce, bcast, reduce, allgather, alltoall, "
         "reduce_scatter, gather, scatter)",
         "NAME"},
        {"program", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &o.patterns,
         "Program files to sweep, as a pattern fennel expands (quote it: 'runs/*.goal'); "
         "repeatable",
         "PATTERN"},
        FENNEL_GENERATOR_OPTION_ENTRIES(o.gen),
        FENNEL_MODEL_OPTION_ENTRIES(o.model),
        {"seed", 0, 0, G_OPTION_ARG_INT64, &o.seed, "First seed (default 0)", "N"},
        {"repeat", 0, 0, G_OPTION_ARG_INT64, &o.repeat,
         "Rows per grid point, with seeds seed..seed+K-1 (default 1)", "K"},
        {"jobs", 'j', 0, G_OPTION_ARG_INT64, &o.jobs,
         "Worker threads (default: every core); the output does not depend on it", "N"},
        {"shard", 0, 0, G_OPTION_ARG_STRING, &o.shard,
         "Run the K-th of N equal parts of the grid (only part 1 writes the header)", "K/N"},
        {"progress", 0, 0, G_OPTION_ARG_STRING, &o.progress,
         "auto (a bar on a terminal), always (also a line every 5 s in a log) or never", "WHEN"},
        {"resume", 0, 0, G_OPTION_ARG_NONE, &o.resume,
         "Keep the rows already in the output and run the rest", NULL},
        {"output", 'o', 0, G_OPTION_ARG_FILENAME, &o.output,
         "The CSV file to write (and FILE.json beside it, the configuration)", "FILE.csv"},
        FENNEL_COLLECTIVE_ALGORITHM_ENTRY(o.algorithms),
        FENNEL_SLICE_ENTRY(o.slice),
        {G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &o.files, NULL, "PROGRAM..."},
        {NULL, 0, 0, 0, NULL, NULL, NULL},
    };
    int status = 0;
    if (fennel_cli_parse(
            "sweep",
            "{--generate NAME[,NAME...] | --library LIB[,LIB...] --collective C | PROGRAM... | "
            "--program PATTERN} [OPTIONS] -o FILE.csv",
            "Run a grid of simulations and write one CSV row per grid point and repeat, in grid "
            "order.\n\nPrograms: generated (--generate), or program files given as arguments "
            "or by --program patterns, swept over --size (algorithm files) and --set.\n\nLists and "
            "ranges (any generator option, --set KEY=...): 8,16,32 | 2..1024 "
            "| 2..1024:2 (step) | 2..1024*2 (factor) | 100ns..1us:100ns | 8B..1MiB*2.\n"
            "Schedules: rd,heuristic | a2,a4 (one schedule) | (a2,a4),(8) | a2,a4;a8 | best | "
            "best:thesis.\n"
            "Grid order, outermost first: --generate, --ranks, --size, --schedule, the other "
            "generator options, each --set in order, the repeat.",
            entries, &argc, &argv, &status)) {
        gboolean files = (o.files && o.files[0]) || o.patterns;
        gboolean generated = o.generate || o.mpi_library;
        if ((o.mpi_library == NULL) != (o.collective == NULL))
            status = usage_error("%s", "--library and --collective go together");
        else if (o.generate && files)
            status = usage_error("%s", "give --generate or program files, not both");
        else if (o.mpi_library && files)
            status = usage_error("%s", "give --library or program files, not both");
        else if (!generated && !files)
            status = usage_error("%s", "--generate NAME[,NAME...] or program files are required "
                                       "('fennel list' names the generators)");
        else if (generated && (o.algorithms || o.slice))
            status = usage_error("%s", o.algorithms ? "--collective-algorithm applies to program "
                                                      "files (Chakra traces)"
                                                    : "--slice applies to program files (MSCCL)");
        else if (o.output == NULL)
            status = usage_error("%s", "-o FILE.csv is required");
        else if (o.seed < 0)
            status = usage_error("%s", "--seed must not be negative");
        else if (o.repeat < 1 || o.repeat > UINT32_MAX)
            status = usage_error("%s", "--repeat must be at least 1");
        else if (o.jobs < 1 || o.jobs > 4096)
            status = usage_error("%s", "--jobs must be between 1 and 4096");
        else if (o.progress && strcmp(o.progress, "auto") != 0 &&
                 strcmp(o.progress, "always") != 0 && strcmp(o.progress, "never") != 0)
            status = usage_error("--progress %s: expected auto, always or never", o.progress);
        else
            status = run(&o);
    }
    fennel_model_options_clear(&o.model);
    fennel_gen_text_options_clear(&o.gen);
    g_free(o.generate);
    g_free(o.mpi_library);
    g_free(o.collective);
    g_free(o.output);
    g_free(o.progress);
    g_free(o.shard);
    g_strfreev(o.patterns);
    g_free(o.algorithms);
    g_free(o.slice);
    g_strfreev(o.files);
    return status;
}
