/* The reader benchmark: generate a program, write it in each text format into memory,
 * read it back, and print one CSV row per reader with the rate in tasks and megabytes
 * per second (issue: performance; the target is 1 M tasks/s). Usage:
 *
 *   bench-readers GENERATOR RANKS MODEL
 *
 * MODEL is a model file (LogGOPSim GOAL needs it for the durations of computes). The
 * rows are: yaml (the reader as fennel uses it: fast scanner, libyaml where it
 * declines), yaml-libyaml (libyaml alone), goal (LogGOPSim GOAL) and fennel-goal. */
#include "generator.h"
#include "goal_readers.h"
#include "model.h"
#include "program_io.h"

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

typedef FennelProgram *(*Parse)(const char *name, const char *data, gsize length, GError **error);

static FennelProgram *parse_libyaml(const char *name, const char *data, gsize length,
                                    GError **error)
{
    return fennel_program_parse_yaml_with(name, data, length, FENNEL_YAML_LIBYAML_ONLY, error);
}

static gboolean measure(const char *reader, const char *generator, uint32_t ranks,
                        const GString *text, Parse parse)
{
    GError *error = NULL;
    double t0 = now();
    FennelProgram *p = parse("bench", text->str, text->len, &error);
    double t1 = now();
    if (p == NULL) {
        fprintf(stderr, "bench-readers: %s: %s\n", reader, error->message);
        g_error_free(error);
        return FALSE;
    }
    double mb = (double)text->len / 1e6;
    printf("%s,%s,%u,%u,%.1f,%.3f,%.0f,%.1f,%.0f\n", reader, generator, ranks, p->n_tasks, mb,
           t1 - t0, p->n_tasks / (t1 - t0), mb / (t1 - t0), peak_rss_mib());
    fennel_program_free(p);
    return TRUE;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--header") == 0) {
        printf("reader,generator,ranks,tasks,megabytes,seconds,tasks_per_second,"
               "megabytes_per_second,peak_rss_mib\n");
        return 0;
    }
    if (argc != 4) {
        fprintf(stderr, "usage: bench-readers GENERATOR RANKS MODEL | --header\n");
        return 2;
    }
    const FennelGenerator *g = fennel_generator_find(argv[1]);
    if (g == NULL) {
        fprintf(stderr, "bench-readers: unknown generator %s\n", argv[1]);
        return 2;
    }
    GError *error = NULL;
    FennelModel model;
    fennel_model_init(&model);
    if (!fennel_model_read(&model, argv[3], &error)) {
        fprintf(stderr, "bench-readers: %s\n", error->message);
        return 1;
    }
    FennelGenOptions o;
    fennel_gen_options_init(&o);
    o.ranks = (uint32_t)strtoul(argv[2], NULL, 10);
    o.given = FENNEL_GEN_RANKS;
    FennelProgram *p = fennel_generate(g, &o, &error);
    if (p == NULL) {
        fprintf(stderr, "bench-readers: %s\n", error->message);
        return 1;
    }
    GString *yaml = g_string_new(NULL), *goal = g_string_new(NULL),
            *fennel_goal = g_string_new(NULL);
    fennel_program_write_yaml(p, yaml);
    if (!fennel_program_write_goal(p, &model, goal, &error) ||
        !fennel_program_write_fennel_goal(p, fennel_goal, &error)) {
        fprintf(stderr, "bench-readers: %s\n", error->message);
        return 1;
    }
    uint32_t ranks = p->n_ranks;
    fennel_program_free(p);
    gboolean ok = measure("yaml", g->name, ranks, yaml, fennel_program_parse_yaml) &&
                  measure("yaml-libyaml", g->name, ranks, yaml, parse_libyaml) &&
                  measure("goal", g->name, ranks, goal, fennel_goal_parse_loggopsim) &&
                  measure("fennel-goal", g->name, ranks, fennel_goal, fennel_goal_parse_fennel);
    g_string_free(yaml, TRUE);
    g_string_free(goal, TRUE);
    g_string_free(fennel_goal, TRUE);
    fennel_model_clear(&model);
    return ok ? 0 : 1;
}
