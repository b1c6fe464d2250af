/* Parameter sweeps (README, Commands; docs/SWEEPS.md): a grid of generators, generator options and
 * model values (or of program files, --size and model values), run in parallel, written as one CSV
 * row per grid point and repeat.
 *
 * Values. Every swept option takes a comma-separated list whose items are values or
 * ranges, expanded in the order written:
 *   8,16,32          a list
 *   2..1024          every whole number from 2 to 1024 (a range includes both ends)
 *   2..1024:2        an arithmetic range with step 2 (2, 4, 6, ..., 1024)
 *   2..1024*2        a geometric range with factor 2 (2, 4, 8, ..., 1024); a factor may
 *                    have decimals (1..100*1.5), values are rounded and repeats dropped
 *   8B..1MiB*2       sizes, durations and per-byte times take their units on the ends
 *   100ns..1us:100ns and on the step
 * A range that holds no value (its start after its end) is an error, as is a range of
 * durations or per-byte times without a step or factor.
 *
 * Schedules (--schedule) are separated by ';' or listed with commas: each name (rd,
 * heuristic, heuristic:C, best, best:thesis) and each parenthesised schedule is one item,
 * and a run of bare stages joins into one schedule, so "rd,heuristic" is two schedules,
 * "a2,a4" is one, and "(a2,a4),(a4,a2),(8)" or "a2,a4;a4,a2;a8" are three. `best` is the
 * cheapest AllReduce schedule by the analytic cost (schedules/cost.h) under the row's
 * model and size, as `fennel schedules` ranks it first; `best:thesis` the cheapest of
 * those whose merge, if any, has a remainder below its first factor: the search space that
 * reproduces Rüfenacht thesis Table 5.2 (both for allreduce-rm only).
 *
 * The grid, outermost first: --generate, then --ranks, --size, --schedule, --root,
 * --rounds, --width, --radix, --ppn, --partitions, --threshold, --variant, --segment, then each
 * --set key in the order given (the last one varies fastest), then the repeat (seeds
 * seed..seed+K-1). Each generator runs over the options it uses; an option it does not
 * use is left empty on its rows. A grid point whose program cannot be built or run (a
 * schedule impossible for its rank count, say) gives rows with the reason in the
 * `error` column and empty results; the sweep goes on.
 *
 * Shards: --shard K/N takes the K-th of N contiguous, near-equal parts of the grid
 * points; only shard 1 writes the header, so the parts concatenate to the whole. */
#ifndef FENNEL_SWEEP_H
#define FENNEL_SWEEP_H

#include "options.h"
#include "program_io.h"

#include <glib.h>
#include <stdint.h>

/* What the items of a numeric list are. */
typedef enum {
    FENNEL_SWEEP_INT,      /* whole numbers */
    FENNEL_SWEEP_SIZE,     /* bytes: 8, 8B, 4KiB */
    FENNEL_SWEEP_DURATION, /* picoseconds: 250ps, 500ns, 1.5us; a bare number is ns */
    FENNEL_SWEEP_RATE,     /* attoseconds per byte: 0.4ns/B; a bare number is ns/B */
} FennelSweepKind;

/* Expands a list of values and ranges (above) of a kind into out (an array of int64_t),
 * each within [min, max]. `option` names the option in errors (FENNEL_ERROR_USAGE), e.g.
 * "--ranks 8..2: empty range (the start is after the end)". */
gboolean fennel_sweep_expand(const char *option, const char *text, FennelSweepKind kind,
                             int64_t min, int64_t max, GArray *out, GError **error);

/* Expands a list of plain decimal numbers with an optional unit that every end and step
 * shares ("0..2:0.5", "10ns..50ns:10ns"), as text values ("0", "0.5", ...); for model
 * values whose kind fennel does not know (noise parameters). */
gboolean fennel_sweep_expand_decimal(const char *option, const char *text, GPtrArray *out,
                                     GError **error);

/* Splits a --schedule list into schedules (above); g_strfreev the result. */
char **fennel_sweep_split_schedules(const char *text, GError **error);

/* The most values one list may expand to, and the most grid points a sweep may have. */
#define FENNEL_SWEEP_MAX_VALUES 10000000
#define FENNEL_SWEEP_MAX_POINTS ((uint64_t)1 << 40)
#define FENNEL_SWEEP_MAX_MODELS 100000

typedef struct FennelSweep FennelSweep;

/* A sweep as the command line gives it. Generator options are lists (above). A sweep
 * runs either generators or program files: the files named, then those each pattern
 * matches (glob(7), sorted), in that order; their grid is file x --size (for algorithm
 * files, which take a size) x model, and their rows start with a `program` column. */
typedef struct {
    const char *generators;        /* comma-separated names, or NULL with programs */
    const char *libraries;         /* comma-separated libraries whose choice for `collective`
                                    * runs at each point (docs/LIBRARIES.md), after the
                                    * generators; or NULL */
    const char *collective;        /* with libraries */
    char *const *files;            /* program files, NULL-terminated; may be NULL */
    char *const *patterns;         /* patterns of program files, NULL-terminated; may be NULL */
    const FennelReadOptions *read; /* how to read them; its size is each row's */
    const FennelGenTextOptions *gen;
    const FennelModelOptions *model; /* each --set is KEY=LIST */
    uint64_t seed;
    uint32_t repeat;        /* >= 1 */
    uint32_t shard, shards; /* 1 <= shard <= shards */
} FennelSweepSpec;

/* Libraries (--library ompi-4,ompi-5 with --collective allreduce) are outer items after the
 * generators: each runs over --ranks and --size, and at every point the generator of the
 * algorithm that library picks (library.h) builds its program; the `generator` column names
 * the library, and the columns library_generator, library_algorithm and library_choice say
 * what ran and why (empty on rows of plain generators). A choice fennel has no generator for
 * is that row's error. */

/* Builds and checks the grid: every list, every model variant, the options each
 * generator needs. Errors are usage errors (exit 2) that name the option. */
FennelSweep *fennel_sweep_new(const FennelSweepSpec *spec, GError **error);
void fennel_sweep_free(FennelSweep *s);

/* The grid points of this shard are [first, end); rows are points x repeat. */
void fennel_sweep_range(const FennelSweep *s, uint64_t *first, uint64_t *end);
uint32_t fennel_sweep_repeat(const FennelSweep *s);
/* Whether this shard writes the header (shard 1). */
gboolean fennel_sweep_has_header(const FennelSweep *s);

/* The header row, with its newline. */
void fennel_sweep_header(const FennelSweep *s, GString *out);

/* The leading columns of a row (the grid point's parameters and the seed), each followed
 * by a comma: every row of the output starts with it. `row` counts from the grid's first
 * row (point x repeat + k). */
void fennel_sweep_row_prefix(const FennelSweep *s, uint64_t row, GString *out);

/* Builds the program of a grid point and runs it `repeat` times, appending its rows
 * (with newlines). Safe to call from several threads at once. */
void fennel_sweep_point(const FennelSweep *s, uint64_t point, GString *out);

/* How much work a grid point is, in arbitrary units proportional to its tasks, for the
 * progress' estimate of the time left: a generator's lower bound of its tasks where it
 * has one (the rings and all-to-all), p (ceil(log2 p) + 1) tasks for p ranks otherwise
 * (times rounds, width or partitions where the generator takes them), and for a program
 * file its size in bytes over 32 (about a task per line of YAML or GOAL). At least 1. */
uint64_t fennel_sweep_point_weight(const FennelSweep *s, uint64_t point);

/* The effective configuration as a JSON object, for the sidecar FILE.json. */
void fennel_sweep_json(const FennelSweep *s, const char *output, GString *out);

/* Running a sweep into a file (sweep_run.c). */

/* Where a sweep is, as reported to FennelSweepRunOptions.progress. */
typedef enum {
    FENNEL_SWEEP_RUNNING,     /* rows were written */
    FENNEL_SWEEP_INTERRUPTED, /* a stop signal came: the rows in flight are being finished */
    FENNEL_SWEEP_FINISHED,    /* the last report: no rows will follow */
} FennelSweepStage;

typedef struct {
    FennelSweepStage stage;
    uint64_t rows, total;   /* rows of the shard in the output so far (resumed ones too), of all */
    double fraction;        /* of the shard's work (fennel_sweep_point_weight), 0 .. 1 */
    double rows_per_second; /* rows this run wrote, per second */
    double seconds_left;    /* the work left at this run's rate of work; < 0 while unknown */
    uint64_t in_flight;     /* FENNEL_SWEEP_INTERRUPTED: at most this many rows still to come */
} FennelSweepProgress;

/* Receives a sweep's progress, on the thread that called fennel_sweep_run. The library
 * writes nothing but its output files: showing progress is the caller's. */
typedef void (*FennelSweepProgressFunc)(const FennelSweepProgress *progress, void *data);

typedef struct {
    const char *output; /* the CSV file */
    guint jobs;         /* worker threads, >= 1 */
    gboolean resume;    /* keep the rows already in the output and add the rest */
    /* NULL, or called at most every progress_seconds as rows are written, once with the
     * last row (RUNNING), once when a stop signal comes (INTERRUPTED) and once at the end
     * (FINISHED), with progress_data. */
    FennelSweepProgressFunc progress;
    void *progress_data;
    double progress_seconds;
} FennelSweepRunOptions;

/* Runs the shard's rows on a thread pool and writes them in grid order, whatever the
 * number of jobs, flushing whole rows, after writing the sidecar (below). SIGINT or
 * SIGTERM stops it after the rows in flight: the file then holds a prefix of whole rows
 * that --resume completes, *interrupted is the signal's number, and the return is FALSE
 * with an error that says so. With resume, the existing header must match and every
 * existing row must be the grid's row at its place; rows after the last whole grid point
 * (a killed sweep's partial row) are cut off. */
gboolean fennel_sweep_run(const FennelSweep *s, const FennelSweepRunOptions *o, int *interrupted,
                          GError **error);

/* The sidecar of an output: FILE.csv gives FILE.json, any other name NAME.json. */
char *fennel_sweep_sidecar_path(const char *output);

#endif
