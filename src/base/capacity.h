/* Size limits: a program that would need more memory than the machine has fails early,
 * with a message naming the size asked for, instead of being killed by the kernel
 * halfway through (docs/RELIABILITY.md). Every producer of programs goes through the program
 * builder, which stops storing tasks once the guard trips (fennel_builder_finish then
 * reports the error); readers and generators that know their size before they build
 * call fennel_check_size() first, so that they fail before allocating anything.
 *
 * The estimate is deliberately simple: a fixed number of bytes per task, per edge and
 * per rank, measured on generated programs (docs/RELIABILITY.md). It covers building the
 * program and running it; the per-task outputs (--tasks, --trace, --timeline) need more
 * and are not counted. */
#ifndef FENNEL_CAPACITY_H
#define FENNEL_CAPACITY_H

#include <glib.h>
#include <stdint.h>

/* Peak bytes per task while building and simulating a program (the builder's arrays
 * with their growth slack, the compiled DAG, the engine's per-task state), per
 * dependency edge, and per rank (per-rank machine state plus one slot). */
#define FENNEL_BYTES_PER_TASK 48
#define FENNEL_BYTES_PER_EDGE 12
#define FENNEL_BYTES_PER_RANK 64
#define FENNEL_BYTES_PER_SLOT 8

/* Bytes per task of the per-task outputs (the trace behind --tasks, --trace and
 * --timeline, and the text of the CSV), measured like the figures above. */
#define FENNEL_BYTES_PER_TRACED_TASK 128

/* Task indices are uint32_t; the last values are reserved. */
#define FENNEL_TASKS_MAX ((uint64_t)UINT32_MAX - 2)
/* Slots per rank (`processes`): a bound on work, not memory (docs/RELIABILITY.md, Limits). */
#define FENNEL_SLOTS_MAX 65536u

/* The limits a program is checked against. There is no process-wide setting: whoever
 * builds a program (a reader, a generator, the program builder) is handed the limits by
 * its caller, and every function below takes them; NULL stands for the defaults (no cap
 * on tasks, the machine's memory). */
typedef struct {
    uint64_t max_tasks; /* `--max-tasks N`; 0: no cap */
    uint64_t memory;    /* bytes the estimates are compared with; 0: the machine's */
} FennelLimits;

/* Sets l->max_tasks from the text of `--max-tasks N` (NULL: leaves it alone). A usage
 * error (FENNEL_ERROR_USAGE) unless N is a whole number >= 1. */
gboolean fennel_limits_parse_max_tasks(FennelLimits *l, const char *text, GError **error);

/* The cap on tasks (0: none) and the memory the guard compares against: l->memory, or
 * the machine's physical memory (or its cgroup's limit, if lower). */
uint64_t fennel_limits_max_tasks(const FennelLimits *l);
uint64_t fennel_limits_memory(const FennelLimits *l);

/* The estimated peak bytes of a program of this size (saturating). */
uint64_t fennel_limits_estimate(uint64_t tasks, uint64_t edges, uint64_t ranks,
                                uint64_t slots_per_rank);

/* Whether a program of this size may be built and run: at most --max-tasks and
 * FENNEL_TASKS_MAX tasks, and an estimate within the memory. Otherwise FALSE with a
 * FENNEL_ERROR_INPUT error such as "would need about 37.2 GiB for 400000000 tasks on
 * 1048576 ranks; the machine has 23.4 GiB" or "1000000 tasks asked for, more than
 * --max-tasks 1000". */
gboolean fennel_check_size(const FennelLimits *l, uint64_t tasks, uint64_t edges, uint64_t ranks,
                           uint64_t slots_per_rank, GError **error);

/* Whether `bytes` more fit the memory, for what is not a program (a reader's buffers, a
 * topology's links): otherwise FALSE with "would need about 1.2 GiB for WHAT; the address
 * space limit (ulimit -v) leaves 0.3 GiB". */
gboolean fennel_check_memory(const FennelLimits *l, uint64_t bytes, const char *what,
                             GError **error);

/* Whether the per-task outputs of a run of this many tasks fit as well: "the per-task
 * outputs would need about 19.1 GiB more for 160000000 tasks; the machine has 23.5 GiB". */
gboolean fennel_check_outputs(const FennelLimits *l, uint64_t tasks, GError **error);

/* Shorthand for a count of tasks alone (edges estimated as two per task). */
gboolean fennel_check_tasks(const FennelLimits *l, uint64_t tasks, GError **error);

/* Asks the kernel to back a large array with transparent huge pages (the system's
 * setting `madvise` leaves them to the program): a run reads its per-task arrays in an
 * order unrelated to their layout, and with 4 KiB pages nearly every such read of a
 * program of millions of tasks misses the TLB as well as the cache. Blocks under 4 MiB
 * are left alone. */
void fennel_huge_pages(void *block, size_t bytes);

/* The most tasks and edges a builder stores before it stops and lets finish report
 * the size asked for: what fits the memory on its own, and --max-tasks. */
uint64_t fennel_limits_task_cap(const FennelLimits *l);
uint64_t fennel_limits_edge_cap(const FennelLimits *l);

/* An allocation that failed although the estimate let it through: "out of memory: N bytes
 * for WHAT could not be allocated (LIMIT)", naming what limits the memory. */
void fennel_out_of_memory(GError **error, const FennelLimits *l, uint64_t bytes, const char *what);

#endif
