/* fennel run: read program files (or generate one), simulate them one after another on
 * one machine, print the summary. */
#include "capacity.h"
#include "cli.h"
#include "critical_path.h"
#include "engine.h"
#include "errors.h"
#include "jobs.h"
#include "library.h"
#include "output.h"
#include "program_io.h"
#include "report.h"
#include "run_stream.h"
#include "simulate.h"
#include "run_outputs.h"
#include "trace.h"
#include "topology_view.h"

#include <stdio.h>

typedef struct {
    FennelModelOptions model;
    FennelGenTextOptions gen;
    char *generate;
    char *collective, *mpi_library; /* --collective with --library: the library's algorithm */
    gint64 seed;
    gint repeat;
    char *max_tasks;
    FennelLimits limits; /* --max-tasks */
    gboolean stream;
    gboolean together;
    char *jobs; /* --jobs FILE */
    gint64 stream_tasks;
    gboolean json;
    gboolean critical_path;
    char *tasks_csv;
    char *links_csv;
    char *links_picture; /* --links-picture FILE */
    char *link_interval; /* --link-interval DURATION */
    FennelTime link_every;
    char *repeats_csv;
    char *finishes_csv;
    FennelVizOptions viz;
    char **programs;
    FennelCliRead read; /* --size for MSCCL files, collectives of Chakra traces */
    char *algorithms;
    char *slice;
} RunOptions;

/* --collective C --library L: the generator of the algorithm the library runs for --ranks
 * and --size (src/run/library.c), set as --generate (and --radix where it has one); the
 * choice and its reason are printed first, on stderr under --json (docs/LIBRARIES.md). */
static gboolean library_generator(RunOptions *o, GError **error)
{
    if (o->gen.ranks == NULL || o->gen.size == NULL) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE,
                    "run: --library needs --ranks and --size");
        return FALSE;
    }
    if (o->gen.radix || o->gen.schedule || o->gen.variant || o->gen.partitions || o->gen.segment) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE,
                    "run: --library chooses the algorithm and its parameters (no --radix, "
                    "--schedule, --variant, --partitions or --segment)");
        return FALSE;
    }
    FennelGenOptions parsed;
    if (!fennel_gen_text_parse(&o->gen, 0, &parsed, error))
        return FALSE;
    FennelLibraryChoice c;
    /* --ppn is the layout the library decides on; the generator takes it when it can. Whether
     * the NVLink switch reduces (NCCL's NVLS) is the model's: read here as the run reads it. */
    FennelLibraryMachine machine = {.ppn = parsed.ppn};
    if (fennel_model_options_given(&o->model)) {
        FennelModel model;
        gboolean ok = fennel_model_options_build(&o->model, &model, error);
        if (ok)
            machine = fennel_library_machine_of(&model, parsed.ppn);
        fennel_model_clear(&model);
        if (!ok)
            return FALSE;
    }
    if (!fennel_library_choose_at(o->mpi_library, o->collective, parsed.ranks, &machine,
                                  parsed.size, &c, error))
        return FALSE;
    char *line =
        fennel_library_describe(o->mpi_library, o->collective, parsed.ranks, parsed.size, &c);
    fprintf(o->json ? stderr : stdout, "library: %s\n", line);
    g_free(line);
    const char *g = fennel_library_generator(o->mpi_library, o->collective, &c, error);
    if (g == NULL)
        return FALSE;
    o->generate = g_strdup(g);
    const FennelGenerator *gen = fennel_generator_find(g);
    if (gen && !(gen->options & FENNEL_GEN_PPN))
        g_clear_pointer(&o->gen.ppn, g_free);
    if (c.radix)
        o->gen.radix = g_strdup_printf("%d", c.radix);
    if (c.variant)
        o->gen.variant = g_strdup(c.variant);
    if (c.channels)
        o->gen.partitions = g_strdup_printf("%d", c.channels);
    if (fennel_library_generator_segment(&c))
        o->gen.segment = g_strdup_printf("%" G_GINT64_FORMAT, fennel_library_generator_segment(&c));
    return TRUE;
}

/* The programs to run, read or generated; NULL-terminated. */
static FennelProgram **load_programs(const RunOptions *o, const FennelModel *model, GError **error)
{
    if (o->generate) {
        FennelProgram **programs = g_new0(FennelProgram *, 2);
        programs[0] = fennel_gen_text_generate_for(o->generate, &o->gen, (uint64_t)o->seed, model,
                                                   &o->limits, error);
        if (programs[0] == NULL) {
            g_free(programs);
            return NULL;
        }
        return programs;
    }
    guint n = g_strv_length(o->programs);
    FennelProgram **programs = g_new0(FennelProgram *, n + 1);
    /* The model's GPU times a Chakra trace's computes recorded as operations and bytes. */
    FennelReadOptions read = o->read.read;
    read.model = model;
    for (guint i = 0; i < n; i++) {
        programs[i] = fennel_program_read_with(o->programs[i], &read, &o->limits, error);
        if (programs[i] == NULL) {
            for (guint k = 0; k < i; k++)
                fennel_program_free(programs[k]);
            g_free(programs);
            return NULL;
        }
    }
    if (o->together && n > 1) {
        FennelProgram *one = fennel_programs_together(programs, &o->limits, error);
        for (guint i = 0; i < n; i++)
            fennel_program_free(programs[i]);
        if (one == NULL) {
            g_free(programs);
            return NULL;
        }
        programs[0] = one;
        programs[1] = NULL;
    }
    return programs;
}

/* Writes the requested per-task and per-link outputs. */
static gboolean write_outputs(const RunOptions *o, FennelOutputs *out, const FennelTrace *trace,
                              const FennelSummary *summary, const char *names, const char *about,
                              GError **error)
{
    if (o->links_csv && !fennel_outputs_write(out, o->links_csv, summary->links_csv->str,
                                              summary->links_csv->len, error))
        return FALSE;
    if (o->links_picture) {
        char *title = g_strdup_printf("%s on %s", names, about);
        FennelCanvas *c = fennel_topology_view_draw(summary->link_map, title);
        g_free(title);
        const gboolean ok = fennel_canvas_write_to(c, out, o->links_picture, error);
        fennel_canvas_free(c);
        if (!ok)
            return FALSE;
    }
    if (o->tasks_csv == NULL)
        return TRUE;
    GString *csv = g_string_new(NULL);
    fennel_trace_write_tasks_csv(trace, csv);
    gboolean ok = fennel_outputs_write(out, o->tasks_csv, csv->str, csv->len, error);
    g_string_free(csv, TRUE);
    return ok;
}

static void append_seed_row(GString *csv, uint64_t seed, const FennelSummary *s, uint32_t ranks)
{
    FennelTime first = s->rank_finish[0], last = s->rank_finish[0];
    for (uint32_t r = 1; r < ranks; r++) {
        first = MIN(first, s->rank_finish[r]);
        last = MAX(last, s->rank_finish[r]);
    }
    char a[FENNEL_TIME_BUF], b[FENNEL_TIME_BUF], c[FENNEL_TIME_BUF], d[FENNEL_TIME_BUF];
    g_string_append_printf(csv, "%" G_GUINT64_FORMAT ",%s,%s,%s,%s\n", seed,
                           fennel_format_ns(s->makespan, a), fennel_format_ns(first, b),
                           fennel_format_ns(last, c), fennel_format_ns(last - first, d));
}

/* --finishes: a row per rank of one seed's run. */
static void append_finish_rows(GString *csv, uint64_t seed, const FennelSummary *s, uint32_t ranks)
{
    char a[FENNEL_TIME_BUF];
    for (uint32_t r = 0; r < ranks; r++)
        g_string_append_printf(csv, "%" G_GUINT64_FORMAT ",%u,%s\n", seed, r,
                               fennel_format_ns(s->rank_finish[r], a));
}

/* run --stream: the generated program in segments (src/run/run_stream.c). */
static int run_streamed(RunOptions *o, double t0)
{
    GError *error = NULL;
    FennelModel model;
    const FennelGenerator *g;
    FennelGenOptions gen;
    fennel_model_init(&model);
    if (!fennel_model_options_given(&o->model))
        fennel_model_options_missing("run", &error);
    if (error || !fennel_model_options_build(&o->model, &model, &error) ||
        !fennel_gen_text_resolve(o->generate, &o->gen, (uint64_t)o->seed, &model, &g, &gen,
                                 &error)) {
        fennel_model_clear(&model);
        return fennel_cli_fail(error);
    }
    gen.limits = &o->limits;
    FennelSummary summary = {0};
    FennelStreamStats stats = {0};
    uint64_t segment = (uint64_t)o->stream_tasks;
    int status = 0;
    if (!fennel_run_streamed(g, &gen, &model, (uint64_t)o->seed, segment, &summary, &stats, &error))
        status = fennel_cli_fail(error);
    if (status == 0) {
        double wall = g_get_monotonic_time() / 1e6 - t0;
        FennelReport report = {.program = g->name,
                               .generator = g->name,
                               .model = &model,
                               .seed = (uint64_t)o->seed,
                               .ranks = summary.ranks,
                               .tasks = stats.tasks,
                               .summary = &summary,
                               .events = stats.events,
                               .build_seconds = wall - stats.simulate_seconds,
                               .simulate_seconds = stats.simulate_seconds,
                               .wall_seconds = wall,
                               .repeat = 1,
                               .segments = stats.segments,
                               .worst_fault = -1};
        GString *out = g_string_new(NULL);
        if (o->json)
            fennel_report_json(&report, out);
        else
            fennel_report_text(&report, out);
        fwrite(out->str, 1, out->len, stdout);
        g_string_free(out, TRUE);
    }
    fennel_summary_clear(&summary);
    fennel_model_clear(&model);
    return status;
}

/* run --jobs: several jobs on the machine's nodes, each also alone (src/run/jobs.c). */
static int run_jobs(RunOptions *o)
{
    GError *error = NULL;
    FennelModel model;
    FennelJobs jobs;
    FennelJobsRun result = {0};
    fennel_model_init(&model);
    gboolean ok = fennel_jobs_read(o->jobs, &jobs, &error) &&
                  fennel_cli_read_setup("run", &o->gen, o->algorithms, o->slice, &o->read, &error);
    if (ok && !fennel_model_options_given(&o->model)) {
        fennel_model_options_missing("run", &error);
        ok = FALSE;
    }
    ok = ok && fennel_model_options_build(&o->model, &model, &error);
    FennelReadOptions read = o->read.read;
    read.model = &model;
    ok =
        ok && fennel_jobs_run(&jobs, &read, &model, (uint64_t)o->seed, &o->limits, &result, &error);
    int status = ok ? 0 : fennel_cli_fail(error);
    if (ok) {
        GString *out = g_string_new(NULL);
        if (o->json)
            fennel_jobs_json(&jobs, &result, out);
        else
            fennel_jobs_text(&jobs, &result, out);
        fwrite(out->str, 1, out->len, stdout);
        g_string_free(out, TRUE);
    }
    fennel_jobs_run_clear(&result);
    fennel_jobs_clear(&jobs);
    fennel_model_clear(&model);
    return status;
}

/* --link-interval: a duration above 0. */
static gboolean parse_interval(RunOptions *o)
{
    const char *why;
    if (!fennel_parse_duration(o->link_interval, &o->link_every, &why)) {
        fennel_cli_error("run: --link-interval: expected a duration such as 10us, got '%s' (%s)\n",
                         o->link_interval, why);
        return FALSE;
    }
    if (o->link_every <= 0) {
        fennel_cli_error("run: --link-interval must be above 0, got '%s'\n", o->link_interval);
        return FALSE;
    }
    return TRUE;
}

static int run(RunOptions *o, double t0)
{
    if (o->stream)
        return run_streamed(o, t0);
    GError *error = NULL;
    FennelModel model;
    if (!fennel_model_options_build(&o->model, &model, &error)) {
        fennel_model_clear(&model);
        return fennel_cli_fail(error);
    }
    FennelProgram **programs = load_programs(o, &model, &error);
    if (programs == NULL) {
        fennel_model_clear(&model);
        return fennel_cli_fail(error);
    }
    /* The programs are read first, so that what is wrong with them is said first. */
    if (!fennel_model_options_given(&o->model)) {
        for (FennelProgram **p = programs; *p; p++)
            fennel_program_free(*p);
        g_free(programs);
        fennel_model_clear(&model);
        fennel_model_options_missing("run", &error);
        return fennel_cli_fail(error);
    }
    if ((o->links_csv || o->links_picture) &&
        (model.topology == NULL || model.contention == FENNEL_CONTENTION_NONE)) {
        for (FennelProgram **p = programs; *p; p++)
            fennel_program_free(*p);
        g_free(programs);
        fennel_model_clear(&model);
        g_set_error(&error, FENNEL_ERROR, FENNEL_ERROR_USAGE,
                    "%s: the model shares no links (it needs a topology and contention "
                    "endpoint, links or fair)",
                    o->links_csv ? "--links" : "--links-picture");
        return fennel_cli_fail(error);
    }
    char *warning = fennel_parallel_senders_warning(programs, &model);
    if (warning)
        fennel_cli_error("run: %s", warning);
    g_free(warning);
    double t1 = g_get_monotonic_time() / 1e6;

    uint32_t ranks, processes;
    fennel_programs_size(programs, &ranks, &processes);
    uint64_t tasks = 0;
    GString *names = g_string_new(NULL);
    for (FennelProgram **p = programs; *p; p++) {
        tasks += (*p)->n_tasks;
        g_string_append_printf(names, "%s%s", names->len ? ", " : "", (*p)->name);
    }

    /* The first run (seed) gives the summary and the per-task outputs; the others only
     * their makespans. */
    uint32_t repeat = (uint32_t)MAX(o->repeat, 1);
    FennelTime *makespans = g_new(FennelTime, repeat);
    FennelSummary summary = {0};
    FennelTrace trace;
    fennel_trace_init(&trace);
    uint64_t events = 0;
    gboolean traced = o->tasks_csv || o->critical_path || fennel_viz_needs_trace(&o->viz);
    /* The pieces of fair flows only for the pictures and the trace that draw them. */
    trace.flows = fennel_viz_needs_trace(&o->viz);
    gboolean ok =
        fennel_viz_check_ranks(&o->viz, ranks, &error) &&
        (!traced || fennel_check_outputs(&o->limits, tasks, &error)) &&
        (o->links_csv || o->links_picture
             ? fennel_simulate_links(programs, &model, (uint64_t)o->seed, o->links_csv != NULL,
                                     o->link_every, o->links_picture != NULL, &summary,
                                     traced ? &trace : NULL, &events, &error)
             : fennel_simulate(programs, &model, (uint64_t)o->seed, &summary,
                               traced ? &trace : NULL, &events, &error));
    if (ok && o->links_picture && summary.link_map == NULL) {
        g_set_error(&error, FENNEL_ERROR, FENNEL_ERROR_INPUT, "%s", summary.link_map_error);
        ok = FALSE;
    }
    if (ok && summary.too_many_intervals) {
        char a[FENNEL_TIME_BUF], b[FENNEL_TIME_BUF];
        g_set_error(&error, FENNEL_ERROR, FENNEL_ERROR_USAGE,
                    "--link-interval: %s ns cuts the run of %s ns into more than %u intervals; "
                    "give a longer one",
                    fennel_format_ns(o->link_every, a), fennel_format_ns(summary.makespan, b),
                    FENNEL_SUMMARY_MAX_INTERVALS);
        ok = FALSE;
    }
    makespans[0] = summary.makespan;
    /* --repeats: one row per seed (the makespan and the earliest and latest rank finish). */
    GString *per_seed = o->repeats_csv ? g_string_new("seed,makespan_ns,first_finish_ns,"
                                                      "last_finish_ns,skew_ns\n")
                                       : NULL;
    if (per_seed && ok)
        append_seed_row(per_seed, (uint64_t)o->seed, &summary, ranks);
    /* --finishes: every rank's finish time of every seed. */
    GString *finishes = o->finishes_csv ? g_string_new("seed,rank,finish_ns\n") : NULL;
    if (finishes && ok)
        append_finish_rows(finishes, (uint64_t)o->seed, &summary, ranks);
    /* Seeds whose faults cut a message off are counted apart (only the first must finish:
     * it gives the summary). */
    uint64_t *cut = g_new(uint64_t, repeat);
    uint32_t n_cut = 0, finished = 1;
    for (uint32_t k = 1; k < repeat && ok; k++) {
        FennelSummary other;
        uint64_t other_events;
        ok = fennel_simulate(programs, &model, (uint64_t)o->seed + k, &other, NULL, &other_events,
                             &error);
        if (!ok && g_error_matches(error, FENNEL_ERROR, FENNEL_ERROR_CUT)) {
            g_clear_error(&error);
            cut[n_cut++] = (uint64_t)o->seed + k;
            fennel_summary_clear(&other);
            ok = TRUE;
            continue;
        }
        makespans[finished++] = other.makespan;
        if (per_seed && ok)
            append_seed_row(per_seed, (uint64_t)o->seed + k, &other, ranks);
        if (finishes && ok)
            append_finish_rows(finishes, (uint64_t)o->seed + k, &other, ranks);
        fennel_summary_clear(&other);
    }
    double t2 = g_get_monotonic_time() / 1e6;
    int status = ok ? 0 : fennel_cli_fail(error);
    /* The output files appear together, or none of them. */
    FennelOutputs *out = status == 0 ? fennel_outputs_new() : NULL;
    if (status == 0 && per_seed &&
        !fennel_outputs_write(out, o->repeats_csv, per_seed->str, per_seed->len, &error))
        status = fennel_cli_fail(error);
    if (per_seed)
        g_string_free(per_seed, TRUE);
    if (status == 0 && finishes &&
        !fennel_outputs_write(out, o->finishes_csv, finishes->str, finishes->len, &error))
        status = fennel_cli_fail(error);
    if (finishes)
        g_string_free(finishes, TRUE);
    char *about = fennel_model_describe(&model);
    if (status == 0 && !write_outputs(o, out, &trace, &summary, names->str, about, &error))
        status = fennel_cli_fail(error);
    /* The path is found before the pictures are drawn: the timeline highlights it. */
    FennelCriticalPath path = {0};
    gboolean have_path = status == 0 && o->critical_path && fennel_critical_path(&trace, &path);
    if (status == 0 && !fennel_viz_write(&o->viz, out, &trace, programs, ranks, processes, about,
                                         have_path ? &path : NULL, &error))
        status = fennel_cli_fail(error);
    g_free(about);
    if (out && status == 0 && !fennel_outputs_commit(out, &error))
        status = fennel_cli_fail(error);
    else if (out && status != 0)
        fennel_outputs_abort(out);
    if (status == 0) {
        FennelReport report = {.program = names->str,
                               .generator = o->generate,
                               .schedule = o->generate ? programs[0]->schedule : NULL,
                               .model = &model,
                               .seed = (uint64_t)o->seed,
                               .ranks = ranks,
                               .tasks = tasks,
                               .summary = &summary,
                               .events = events,
                               .build_seconds = t1 - t0,
                               .simulate_seconds = t2 - t1,
                               .wall_seconds = g_get_monotonic_time() / 1e6 - t0,
                               .repeat = repeat,
                               .makespans = makespans,
                               .cut_seeds = cut,
                               .n_cut = n_cut,
                               .worst_fault = -1};
        if (fennel_faults_any(model.faults))
            fennel_simulate_worst_fault(programs, &model, (uint64_t)o->seed, &summary,
                                        FENNEL_WORST_FAULT_RERUNS, &report.faults_rerun,
                                        &report.worst_fault, &report.without_worst);
        GString *path_json = g_string_new(NULL);
        if (have_path && o->json) {
            fennel_critical_path_json(&path, path_json);
            report.critical_path_json = path_json->str;
        }
        GString *text = g_string_new(NULL);
        if (o->json) {
            fennel_report_json(&report, text);
        } else {
            fennel_report_text(&report, text);
            if (have_path)
                fennel_critical_path_text(&path, text);
        }
        g_string_free(path_json, TRUE);
        fwrite(text->str, 1, text->len, stdout);
        g_string_free(text, TRUE);
    }
    fennel_critical_path_clear(&path);
    g_free(makespans);
    g_free(cut);
    fennel_trace_clear(&trace);
    fennel_summary_clear(&summary);
    for (FennelProgram **p = programs; *p; p++)
        fennel_program_free(*p);
    g_free(programs);
    g_string_free(names, TRUE);
    fennel_model_clear(&model);
    return status;
}

int fennel_cmd_run(int argc, char **argv)
{
    double t0 = g_get_monotonic_time() / 1e6;
    /* Defaults set here, so that an option given as 0 is told from one not given. */
    RunOptions o = {.repeat = 1, .stream_tasks = 16 << 20};
    GOptionEntry entries[] = {
        FENNEL_MODEL_OPTION_ENTRIES(o.model),
        {"generate", 'g', 0, G_OPTION_ARG_STRING, &o.generate,
         "Simulate a generated program instead of files ('fennel list' names them)", "NAME"},
        FENNEL_GENERATOR_OPTION_ENTRIES(o.gen),
        {"collective", 0, 0, G_OPTION_ARG_STRING, &o.collective,
         "With --library: run the collective (allreduce, bcast, reduce, allgather, alltoall, "
         "reduce_scatter, gather, scatter) as the library would",
         "NAME"},
        {"library", 0, 0, G_OPTION_ARG_STRING, &o.mpi_library,
         "With --collective: the library whose default algorithm runs (ompi-1.6, ompi-3, "
         "ompi-4, ompi-5, mpich-3, mpich-4, nccl; docs/LIBRARIES.md)",
         "NAME"},
        {"seed", 0, 0, G_OPTION_ARG_INT64, &o.seed, "Noise seed (default 0)", "N"},
        {"repeat", 0, 0, G_OPTION_ARG_INT, &o.repeat,
         "Run K times with seeds seed..seed+K-1; report makespan statistics", "K"},
        {"json", 0, 0, G_OPTION_ARG_NONE, &o.json, "Print the summary as one JSON object", NULL},
        {"stream", 0, 0, G_OPTION_ARG_NONE, &o.stream,
         "Generate and simulate in segments, holding one at a time (--generate; postal, lbp)",
         NULL},
        {"together", 0, 0, G_OPTION_ARG_NONE, &o.together,
         "Run the program files at the same time as one program, each file's ranks after the "
         "previous file's (ATLAHS's multi-job traces)",
         NULL},
        {"jobs", 0, 0, G_OPTION_ARG_FILENAME, &o.jobs,
         "Run the jobs the file lists on the machine's nodes at once, each with its start and "
         "placement, and each alone: its slowdown (docs/TOPOLOGY.md, Several jobs)",
         "FILE.yaml"},
        {"stream-tasks", 0, 0, G_OPTION_ARG_INT64, &o.stream_tasks,
         "Tasks per segment with --stream (default 16777216)", "N"},
        {"max-tasks", 0, 0, G_OPTION_ARG_STRING, &o.max_tasks,
         "Refuse a program of more than N tasks (default: what fits in memory)", "N"},
        {"critical-path", 0, 0, G_OPTION_ARG_NONE, &o.critical_path,
         "Print the chain of tasks that set the makespan, with time by kind", NULL},
        {"tasks", 0, 0, G_OPTION_ARG_FILENAME, &o.tasks_csv,
         "Write one CSV row per task (ready, start, end, arrival, completion)", "FILE.csv"},
        {"repeats", 0, 0, G_OPTION_ARG_FILENAME, &o.repeats_csv,
         "Write one CSV row per seed of --repeat (makespan, first and last rank finish, skew)",
         "FILE.csv"},
        {"finishes", 0, 0, G_OPTION_ARG_FILENAME, &o.finishes_csv,
         "Write one CSV row per rank and seed (seed, rank, finish time)", "FILE.csv"},
        {"links", 0, 0, G_OPTION_ARG_FILENAME, &o.links_csv,
         "Write one CSV row per directed link of the topology (bytes, busy time, waits)",
         "FILE.csv"},
        {"links-picture", 0, 0, G_OPTION_ARG_FILENAME, &o.links_picture,
         "Draw the topology, each link coloured by its utilisation (.svg, .png or .pdf)", "FILE"},
        {"link-interval", 0, 0, G_OPTION_ARG_STRING, &o.link_interval,
         "With --links, one row per link and interval of this length (busy time, waits)",
         "DURATION"},
        FENNEL_VIZ_OPTION_ENTRIES(o.viz),
        FENNEL_COLLECTIVE_ALGORITHM_ENTRY(o.algorithms),
        FENNEL_SLICE_ENTRY(o.slice),
        {G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &o.programs, NULL, "PROGRAM..."},
        {NULL, 0, 0, 0, NULL, NULL, NULL},
    };
    int status = 0;
    if (fennel_cli_parse("run", "[PROGRAM...]",
                         "Simulate program files one after another on one machine, or a "
                         "generated program (--generate).",
                         entries, &argc, &argv, &status)) {
        GError *error = NULL;
        fennel_viz_take_width(&o.viz, &o.gen, o.generate);
        fennel_cli_distinct_programs(&o.programs);
        gboolean files = o.programs != NULL && o.programs[0] != NULL;
        if ((o.collective == NULL) != (o.mpi_library == NULL)) {
            fennel_cli_error("run: --collective and --library go together\n");
            status = 2;
        } else if (o.mpi_library && (files || o.generate)) {
            fennel_cli_error("run: --library runs the library's algorithm: no --generate and no "
                             "program files\n");
            status = 2;
        } else if (o.mpi_library && !library_generator(&o, &error)) {
            status = fennel_cli_fail(error);
            error = NULL;
        } else if (o.jobs &&
                   (files || o.generate || o.together || o.stream || o.repeat > 1 || o.tasks_csv ||
                    o.links_csv || o.links_picture || o.repeats_csv || o.finishes_csv ||
                    o.critical_path || fennel_viz_needs_trace(&o.viz))) {
            fennel_cli_error("run: --jobs takes its programs from the jobs file: no program "
                             "files, --generate, --together, --stream, --repeat or outputs of "
                             "a single run\n");
            status = 2;
        } else if (o.links_picture && fennel_canvas_format(o.links_picture) == NULL) {
            fennel_cli_error("run: --links-picture %s: unknown picture format (use .svg, .png or "
                             ".pdf)\n",
                             o.links_picture);
            status = 2;
        } else if (o.links_picture && o.stream) {
            fennel_cli_error("run: --links-picture needs links shared, which --stream does not "
                             "run (contention none)\n");
            status = 2;
        } else if (o.link_interval && o.links_csv == NULL) {
            fennel_cli_error("run: --link-interval needs --links\n");
            status = 2;
        } else if (o.link_interval && !parse_interval(&o)) {
            status = 2;
        } else if (o.jobs) {
            status = o.seed < 0 ? (fennel_cli_error("run: --seed must not be negative\n"), 2)
                     : !fennel_limits_parse_max_tasks(&o.limits, o.max_tasks, &error)
                         ? fennel_cli_fail(error)
                         : run_jobs(&o);
        } else if (!files && o.generate == NULL) {
            fennel_cli_error("run: no program given (fennel run PROGRAM... or fennel run "
                             "--generate NAME)\n");
            status = 2;
        } else if (files && o.generate) {
            fennel_cli_error("run: give program files or --generate, not both\n");
            status = 2;
        } else if (files &&
                   !fennel_cli_read_setup("run", &o.gen, o.algorithms, o.slice, &o.read, &error)) {
            status = fennel_cli_fail(error);
            error = NULL;
        } else if (o.together && !files) {
            fennel_cli_error("run: --together needs program files\n");
            status = 2;
        } else if (o.seed < 0) {
            fennel_cli_error("run: --seed must not be negative\n");
            status = 2;
        } else if (o.stream &&
                   (o.generate == NULL || o.repeat > 1 || o.tasks_csv || o.repeats_csv ||
                    o.finishes_csv || o.critical_path || fennel_viz_needs_trace(&o.viz))) {
            fprintf(stderr, "fennel: run: --stream needs --generate and no --repeat, --repeats, "
                            "--finishes, --tasks, --critical-path, --timeline or --trace (segments "
                            "are freed as they are run)\n");
            status = 2;
        } else if (o.repeat < 1) {
            fennel_cli_error("run: --repeat must be at least 1\n");
            status = 2;
        } else if (o.stream_tasks < 1) {
            fennel_cli_error("run: --stream-tasks must be at least 1\n");
            status = 2;
        } else if (!fennel_limits_parse_max_tasks(&o.limits, o.max_tasks, &error)) {
            status = fennel_cli_fail(error);
        } else if (!fennel_viz_options_check(&o.viz, &error)) {
            status = fennel_cli_fail(error);
        } else {
            status = run(&o, t0);
        }
    }
    fennel_model_options_clear(&o.model);
    fennel_gen_text_options_clear(&o.gen);
    g_free(o.generate);
    g_free(o.jobs);
    g_free(o.collective);
    g_free(o.mpi_library);
    g_free(o.algorithms);
    g_free(o.slice);
    fennel_cli_read_clear(&o.read);
    g_strfreev(o.programs);
    g_free(o.tasks_csv);
    g_free(o.links_csv);
    g_free(o.links_picture);
    g_free(o.link_interval);
    g_free(o.repeats_csv);
    g_free(o.finishes_csv);
    g_free(o.max_tasks);
    fennel_viz_options_clear(&o.viz);
    return status;
}
