/* The engine benchmark: generate a program, simulate it, and print one CSV row with the
 * sizes, times, rates and memory (issue: performance). Usage:
 *
 *   bench-engine GENERATOR RANKS MODEL [SIZE]
 *
 * MODEL is a model file. The columns are in the header printed with --header. */
#include "engine.h"
#include "generator.h"
#include "model.h"
#include "summary.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

static double now(void)
{
    return (double)g_get_monotonic_time() / 1e6;
}

static double peak_rss_mib(void)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return (double)u.ru_maxrss / 1024.0;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--header") == 0) {
        printf("generator,ranks,model,tasks,edges,events,makespan_ns,generate_seconds,"
               "simulate_seconds,tasks_per_second,generate_tasks_per_second,program_bytes_per_"
               "task,engine_bytes_per_task,peak_rss_mib\n");
        return 0;
    }
    if (argc < 4) {
        fprintf(stderr, "usage: bench-engine GENERATOR RANKS MODEL [SIZE] | --header\n");
        return 2;
    }
    const FennelGenerator *g = fennel_generator_find(argv[1]);
    if (g == NULL) {
        fprintf(stderr, "bench-engine: unknown generator %s\n", argv[1]);
        return 2;
    }
    GError *error = NULL;
    FennelModel model;
    fennel_model_init(&model);
    if (!fennel_model_read(&model, argv[3], &error)) {
        fprintf(stderr, "bench-engine: %s\n", error->message);
        return 1;
    }
    FennelGenOptions o;
    fennel_gen_options_init(&o);
    o.ranks = (uint32_t)strtoul(argv[2], NULL, 10);
    o.given = FENNEL_GEN_RANKS;
    if (argc > 4) {
        o.size = strtoll(argv[4], NULL, 10);
        o.given |= FENNEL_GEN_SIZE;
    }
    double t0 = now();
    FennelProgram *p = fennel_generate(g, &o, &error);
    if (p == NULL) {
        fprintf(stderr, "bench-engine: %s\n", error->message);
        return 1;
    }
    double t1 = now();
    FennelMachine *m = fennel_machine_new(p->n_ranks, p->processes, &model);
    FennelSummary s;
    fennel_summary_init(&s, p->n_ranks);
    FennelInstrument ins = fennel_summary_instrument(&s);
    fennel_machine_add_instrument(m, &ins);
    double t2 = now();
    if (!fennel_machine_run(m, p, &error)) {
        fprintf(stderr, "bench-engine: %s\n", error->message);
        return 1;
    }
    double t3 = now();
    char makespan[FENNEL_TIME_BUF];
    printf("%s,%u,%s,%u,%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%s,%.3f,%.3f,%.0f,%.0f,%.1f,%.1f,"
           "%.0f\n",
           g->name, p->n_ranks, model.network->name, p->n_tasks, p->n_edges,
           fennel_machine_events(m), fennel_format_ns(s.makespan, makespan), t1 - t0, t3 - t2,
           p->n_tasks / (t3 - t2), p->n_tasks / (t1 - t0),
           (double)fennel_program_bytes(p) / p->n_tasks,
           (double)fennel_machine_run_bytes(p) / p->n_tasks, peak_rss_mib());
    fennel_summary_clear(&s);
    fennel_machine_free(m);
    fennel_program_free(p);
    fennel_model_clear(&model);
    return 0;
}
