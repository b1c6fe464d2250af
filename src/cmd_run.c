/* fennel run: read program files, simulate them one after another on one machine,
 * print the summary. */
#include "cli.h"
#include "engine.h"
#include "program_io.h"
#include "output.h"
#include "report.h"
#include "trace.h"

#include <stdio.h>

typedef struct {
    FennelModelOptions model;
    gint64 seed;
    gboolean json;
    char *tasks_csv;
    char **programs;
} RunOptions;

static int run(RunOptions *o, double t0)
{
    GError *error = NULL;
    FennelModel model;
    if (!fennel_cli_build_model(&o->model, &model, &error))
        return fennel_cli_fail(error);

    guint n = g_strv_length(o->programs);
    FennelProgram **programs = g_new0(FennelProgram *, n);
    uint32_t ranks = 1, processes = 1;
    uint64_t tasks = 0;
    int status = 0;
    for (guint i = 0; i < n && status == 0; i++) {
        programs[i] = fennel_program_read(o->programs[i], &error);
        if (programs[i] == NULL) {
            status = fennel_cli_fail(error);
            break;
        }
        ranks = MAX(ranks, programs[i]->n_ranks);
        processes = MAX(processes, programs[i]->processes);
        tasks += programs[i]->n_tasks;
    }
    double t1 = g_get_monotonic_time() / 1e6;

    if (status == 0) {
        FennelMachine *machine = fennel_machine_new(ranks, processes, &model);
        FennelSummary summary;
        fennel_summary_init(&summary, ranks);
        FennelInstrument instrument = fennel_summary_instrument(&summary);
        fennel_machine_add_instrument(machine, &instrument);
        FennelTrace trace;
        fennel_trace_init(&trace);
        if (o->tasks_csv) {
            FennelInstrument tracer = fennel_trace_instrument(&trace);
            fennel_machine_add_instrument(machine, &tracer);
        }
        for (guint i = 0; i < n && status == 0; i++) {
            if (!fennel_machine_run(machine, programs[i], &error))
                status = fennel_cli_fail(error);
        }
        double t2 = g_get_monotonic_time() / 1e6;
        if (status == 0) {
            GString *names = g_string_new(NULL);
            for (guint i = 0; i < n; i++)
                g_string_append_printf(names, "%s%s", i ? ", " : "", programs[i]->name);
            FennelReport report = {.program = names->str,
                                   .model = &model,
                                   .seed = (uint64_t)o->seed,
                                   .ranks = ranks,
                                   .tasks = tasks,
                                   .summary = &summary,
                                   .events = fennel_machine_events(machine),
                                   .build_seconds = t1 - t0,
                                   .simulate_seconds = t2 - t1,
                                   .wall_seconds = g_get_monotonic_time() / 1e6 - t0};
            GString *out = g_string_new(NULL);
            if (o->tasks_csv) {
                fennel_trace_write_tasks_csv(&trace, out);
                if (!fennel_write_file(o->tasks_csv, out->str, out->len, &error))
                    status = fennel_cli_fail(error);
                g_string_truncate(out, 0);
            }
            if (status == 0) {
                if (o->json)
                    fennel_report_json(&report, out);
                else
                    fennel_report_text(&report, out);
                fwrite(out->str, 1, out->len, stdout);
            }
            g_string_free(out, TRUE);
            g_string_free(names, TRUE);
        }
        fennel_trace_clear(&trace);
        fennel_summary_clear(&summary);
        fennel_machine_free(machine);
    }
    for (guint i = 0; i < n; i++)
        fennel_program_free(programs[i]);
    g_free(programs);
    return status;
}

int fennel_cmd_run(int argc, char **argv)
{
    double t0 = g_get_monotonic_time() / 1e6;
    RunOptions o = {0};
    GOptionEntry entries[] = {
        FENNEL_MODEL_OPTION_ENTRIES(o.model),
        {"seed", 0, 0, G_OPTION_ARG_INT64, &o.seed, "Noise seed (default 0)", "N"},
        {"json", 0, 0, G_OPTION_ARG_NONE, &o.json, "Print the summary as one JSON object", NULL},
        {"tasks", 0, 0, G_OPTION_ARG_FILENAME, &o.tasks_csv,
         "Write one CSV row per task (ready, start, end, arrival, completion)", "FILE.csv"},
        {G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &o.programs, NULL, "PROGRAM..."},
        {NULL, 0, 0, 0, NULL, NULL, NULL},
    };
    int status = 0;
    if (fennel_cli_parse("run", "PROGRAM...",
                         "Simulate program files one after another on one machine.", entries, &argc,
                         &argv, &status)) {
        if (o.programs == NULL || o.programs[0] == NULL) {
            fprintf(stderr,
                    "fennel: run: no program given (fennel run PROGRAM... [--model FILE])\n");
            status = 2;
        } else if (o.seed < 0) {
            fprintf(stderr, "fennel: run: --seed must not be negative\n");
            status = 2;
        } else {
            status = run(&o, t0);
        }
    }
    fennel_model_options_clear(&o.model);
    g_strfreev(o.programs);
    g_free(o.tasks_csv);
    return status;
}
