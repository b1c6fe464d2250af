/* Shared by the benchmarks in tests/bench: wall time, peak memory, and the program a
 * benchmark measures (a generator run on a number of ranks, with a model file). */
#ifndef FENNEL_BENCH_COMMON_H
#define FENNEL_BENCH_COMMON_H

#include "generator.h"
#include "model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static inline double bench_now(void)
{
    return (double)g_get_monotonic_time() / 1e6;
}

/* The process's CPU time (user and system) in seconds: unlike the wall clock, it does not
 * grow while other work holds the machine's cores. */
static inline double bench_cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static inline double bench_peak_rss_mib(void)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return (double)u.ru_maxrss / 1024.0;
}

/* Reads the model file into *model (initialised here) and runs the generator on `ranks`
 * ranks (unless "-"; with `size` bytes unless NULL or "-", and the options `schedule=S` and
 * `width=W` among the n_extra strings of `extra`); *seconds is the generation's wall time. On a
 * failure prints "TOOL: message" and returns NULL. */
static inline FennelProgram *bench_generate(const char *tool, const char *generator,
                                            const char *ranks, const char *size,
                                            const char *model_file, FennelModel *model,
                                            double *seconds, int n_extra, char **extra)
{
    GError *error = NULL;
    const FennelGenerator *g = fennel_generator_find(generator);
    fennel_model_init(model);
    if (g == NULL) {
        fprintf(stderr, "%s: unknown generator %s\n", tool, generator);
        return NULL;
    }
    if (!fennel_model_read(model, model_file, &error)) {
        fprintf(stderr, "%s: %s\n", tool, error->message);
        g_error_free(error);
        return NULL;
    }
    FennelGenOptions o;
    fennel_gen_options_init(&o);
    if (strcmp(ranks, "-") != 0) {
        o.ranks = (uint32_t)strtoul(ranks, NULL, 10);
        o.given = FENNEL_GEN_RANKS;
    }
    if (size && strcmp(size, "-") != 0) {
        o.size = strtoll(size, NULL, 10);
        o.given |= FENNEL_GEN_SIZE;
    }
    for (int i = 0; i < n_extra; i++) {
        if (g_str_has_prefix(extra[i], "schedule=")) {
            o.schedule = extra[i] + strlen("schedule=");
            o.given |= FENNEL_GEN_SCHEDULE;
        } else if (g_str_has_prefix(extra[i], "width=")) {
            o.width = (uint32_t)strtoul(extra[i] + strlen("width="), NULL, 10);
            o.given |= FENNEL_GEN_WIDTH;
        } else {
            fprintf(stderr, "%s: unknown option %s (schedule=S or width=W)\n", tool, extra[i]);
            return NULL;
        }
    }
    double t0 = bench_now();
    FennelProgram *p = fennel_generate(g, &o, &error);
    *seconds = bench_now() - t0;
    if (p == NULL) {
        fprintf(stderr, "%s: %s\n", tool, error->message);
        g_error_free(error);
    }
    return p;
}

#endif
