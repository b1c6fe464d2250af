/* The engine benchmark: generate a program, simulate it, and print one CSV row with the
 * sizes, times, rates and memory (issue: performance). Usage:
 *
 *   bench-engine GENERATOR RANKS|- MODEL [SIZE|- [schedule=S] [width=W]]
 *
 * MODEL is a model file; "-" leaves the ranks or the size to the generator. The columns are in the
 * header printed with --header. */
#include "bench_common.h"
#include "engine.h"
#include "summary.h"

#include <string.h>

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--header") == 0) {
        printf("generator,ranks,model,tasks,edges,events,makespan_ns,generate_seconds,"
               "simulate_seconds,tasks_per_second,generate_tasks_per_second,program_bytes_per_"
               "task,engine_bytes_per_task,peak_rss_mib,simulate_cpu_seconds\n");
        return 0;
    }
    if (argc < 4) {
        fprintf(stderr,
                "usage: bench-engine GENERATOR RANKS|- MODEL [SIZE|- [schedule=S] [width=W]] | "
                "--header\n");
        return 2;
    }
    FennelModel model;
    double generate_seconds;
    FennelProgram *p =
        bench_generate("bench-engine", argv[1], argv[2], argc > 4 ? argv[4] : NULL, argv[3], &model,
                       &generate_seconds, argc > 5 ? argc - 5 : 0, argv + 5);
    if (p == NULL)
        return 1;
    GError *error = NULL;
    FennelMachine *m = fennel_machine_new(p->n_ranks, p->processes, &model);
    FennelSummary s;
    fennel_summary_init(&s, p->n_ranks);
    FennelInstrument ins = fennel_summary_instrument(&s);
    fennel_machine_add_instrument(m, &ins);
    double t2 = bench_now(), c2 = bench_cpu_now();
    if (!fennel_machine_run(m, p, &error)) {
        fprintf(stderr, "bench-engine: %s\n", error->message);
        return 1;
    }
    double t3 = bench_now(), c3 = bench_cpu_now();
    char makespan[FENNEL_TIME_BUF];
    printf(
        "%s,%u,%s,%u,%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%s,%.3f,%.3f,%.0f,%.0f,%.1f,%.1f,"
        "%.0f,%.3f\n",
        argv[1], p->n_ranks, model.network->name, p->n_tasks, p->n_edges, fennel_machine_events(m),
        fennel_format_ns(s.makespan, makespan), generate_seconds, t3 - t2, p->n_tasks / (t3 - t2),
        p->n_tasks / generate_seconds, (double)fennel_program_bytes(p) / p->n_tasks,
        (double)fennel_machine_run_bytes(p) / p->n_tasks, bench_peak_rss_mib(), c3 - c2);
    fennel_summary_clear(&s);
    fennel_machine_free(m);
    fennel_program_free(p);
    fennel_model_clear(&model);
    return 0;
}
