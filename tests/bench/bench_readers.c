/* The reader benchmark: generate a program, write it in each text format into memory,
 * read it back, and print one CSV row per reader with the rate in tasks and megabytes
 * per second (issue: performance; the target is 1 M tasks/s). Usage:
 *
 *   bench-readers GENERATOR RANKS MODEL
 *
 * MODEL is a model file (LogGOPSim GOAL needs it for the durations of computes). The
 * rows are: yaml (the reader as fennel uses it: fast scanner, libyaml where it
 * declines), yaml-libyaml (libyaml alone), goal (LogGOPSim GOAL as fennel reads it: the fast
 * path, the careful reader where it declines), goal-careful (the careful reader alone),
 * fennel-goal, and fbin: the program the goal row read (names, positions, tags), converted to
 * fennel's binary program (`fennel convert`), written to a temporary file and read back by
 * mapping it, as `fennel run F.fbin` does (the file is in the page cache: it was just
 * written), five times: the row is the median, since one read takes a few tens of
 * milliseconds, which other work on the machine easily doubles. Its megabytes are the binary
 * file's. */
#include "bench_common.h"
#include "goal_readers.h"
#include "program_io.h"

#include <string.h>
#include <unistd.h>

static const char *fbin_file;

typedef FennelProgram *(*Parse)(const char *name, const char *data, gsize length, GError **error);

static FennelProgram *parse_libyaml(const char *name, const char *data, gsize length,
                                    GError **error)
{
    return fennel_program_parse_yaml_with(name, data, length, FENNEL_YAML_LIBYAML_ONLY, NULL,
                                          error);
}

static FennelProgram *parse_goal(const char *name, const char *data, gsize length, GError **error)
{
    return fennel_goal_parse_loggopsim(name, data, length, NULL, error);
}

static FennelProgram *parse_goal_careful(const char *name, const char *data, gsize length,
                                         GError **error)
{
    return fennel__goal_careful_read(name, data, length, NULL, error);
}

static FennelProgram *parse_fennel_goal(const char *name, const char *data, gsize length,
                                        GError **error)
{
    return fennel_goal_parse_fennel(name, data, length, NULL, error);
}

/* Reads the binary program of `text` from a file, as fennel does. */
static FennelProgram *read_fbin(const char *name, const char *data, gsize length, GError **error)
{
    (void)name, (void)data, (void)length;
    return fennel_program_read_binary(fbin_file, NULL, error);
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of `repeat` reads (odd; the text readers are read once). */
static gboolean measure_median(const char *reader, const char *generator, uint32_t ranks,
                               const GString *text, Parse parse, int repeat)
{
    GError *error = NULL;
    FennelProgram *p = NULL;
    double seconds[16];
    for (int i = 0; i < repeat; i++) {
        fennel_program_free(p);
        double t0 = bench_now();
        p = parse("bench", text->str, text->len, &error);
        seconds[i] = bench_now() - t0;
        if (p == NULL)
            break;
    }
    qsort(seconds, (size_t)repeat, sizeof *seconds, compare_double);
    double t0 = 0, t1 = seconds[repeat / 2];
    if (p == NULL) {
        fprintf(stderr, "bench-readers: %s: %s\n", reader, error->message);
        g_error_free(error);
        return FALSE;
    }
    double mb = (double)text->len / 1e6;
    printf("%s,%s,%u,%u,%.1f,%.3f,%.0f,%.1f,%.0f\n", reader, generator, ranks, p->n_tasks, mb,
           t1 - t0, p->n_tasks / (t1 - t0), mb / (t1 - t0), bench_peak_rss_mib());
    fennel_program_free(p);
    return TRUE;
}

static gboolean measure(const char *reader, const char *generator, uint32_t ranks,
                        const GString *text, Parse parse)
{
    return measure_median(reader, generator, ranks, text, parse, 1);
}

/* The fbin row: the GOAL text read, converted, written to a temporary file, read back. */
static gboolean measure_fbin(const char *generator, uint32_t ranks, const GString *goal)
{
    GError *error = NULL;
    FennelProgram *p = parse_goal("bench.goal", goal->str, goal->len, &error);
    GString *bin = g_string_new(NULL);
    char *path = NULL;
    int fd = -1;
    gboolean ok = p && fennel_program_write_binary(p, bin, &error) &&
                  (fd = g_file_open_tmp("bench-readers-XXXXXX.fbin", &path, &error)) >= 0 &&
                  g_file_set_contents(path, bin->str, (gssize)bin->len, &error);
    fennel_program_free(p);
    if (fd >= 0)
        close(fd);
    if (!ok) {
        fprintf(stderr, "bench-readers: fbin: %s\n", error->message);
        g_error_free(error);
    } else {
        fbin_file = path;
        ok = measure_median("fbin", generator, ranks, bin, read_fbin, 5);
    }
    if (path)
        unlink(path);
    g_free(path);
    g_string_free(bin, TRUE);
    return ok;
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
    FennelModel model;
    double generate_seconds;
    FennelProgram *p = bench_generate("bench-readers", argv[1], argv[2], NULL, argv[3], &model,
                                      &generate_seconds, 0, NULL);
    if (p == NULL)
        return 1;
    GError *error = NULL;
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
    gboolean ok = measure("yaml", argv[1], ranks, yaml, fennel_program_parse_yaml) &&
                  measure("yaml-libyaml", argv[1], ranks, yaml, parse_libyaml) &&
                  measure("goal", argv[1], ranks, goal, parse_goal) &&
                  measure("goal-careful", argv[1], ranks, goal, parse_goal_careful) &&
                  measure("fennel-goal", argv[1], ranks, fennel_goal, parse_fennel_goal) &&
                  measure_fbin(argv[1], ranks, goal);
    g_string_free(yaml, TRUE);
    g_string_free(goal, TRUE);
    g_string_free(fennel_goal, TRUE);
    fennel_model_clear(&model);
    return ok ? 0 : 1;
}
