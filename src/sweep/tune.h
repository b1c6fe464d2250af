/* Algorithm selection (`fennel tune`, docs/TUNING.md): from a sweep's rows, the fastest
 * algorithm of every (ranks, size) cell and its margin over the runner-up, written as a
 * decision table (CSV or JSON), as an Open MPI coll_tuned dynamic rules file, or drawn as
 * a heat map.
 *
 * The rows are a `fennel sweep` CSV (docs/SWEEPS.md). A candidate is a generator with the
 * values of its other generator options (schedule, root, radix, ...): where an option takes
 * several values in the file, each value is a candidate of its own ("bcast-knomial
 * radix=4"). Candidates keep the order of their first row, which is the order of
 * --generate; of equal times the earlier candidate wins. The repeats of a candidate in a
 * cell (several seeds) count with their median. A row with an error (a rank count the
 * generator refuses) leaves its candidate out of that cell: the table lists it as skipped.
 * The model must be the same for all rows of a cell. */
#ifndef FENNEL_TUNE_H
#define FENNEL_TUNE_H

#include "canvas.h"

#include <glib.h>
#include <stdint.h>

typedef struct {
    char *label;        /* "allreduce-ring", "bcast-knomial radix=4" */
    char *generator;    /* the generator's name */
    int64_t radix;      /* the radix column's value, or -1 */
    int64_t partitions; /* the partitions column's value, or -1 */
    int64_t segment;    /* the segment_bytes column's value, or 0 (unsegmented) */
    char *variant;      /* the variant column's value ("" when empty) */
} FennelTuneCandidate;

typedef struct {
    int64_t ranks, size;
    double *ns;               /* per candidate: its median makespan in ns, or NAN: it did not run */
    double baseline_ns;       /* the library's choice (its median), or NAN: none, or it failed */
    char *baseline_algorithm; /* the algorithm the library picked, or NULL */
    guint winner;             /* the fastest candidate */
    guint runner_up;          /* the second fastest, or G_MAXUINT when only one ran */
} FennelTuneCell;

typedef struct {
    char *collective; /* what every candidate performs: "allreduce", "bcast", ... */
    FennelTuneCandidate *candidates;
    guint n_candidates;
    int64_t *ranks, *sizes; /* the distinct values, ascending */
    guint n_ranks, n_sizes;
    FennelTuneCell *cells; /* n_ranks * n_sizes, by rank count, then size */
    char *library;         /* the baseline: rows of `fennel sweep --library L` (docs/TUNING.md),
                            * not a candidate; NULL when the sweep has none */
} FennelTune;

/* Reads a sweep's CSV text (`name` for errors). Rows of one library (a sweep's --library,
 * whose generator column names it) are the baseline each cell's winner is compared with. Every
 * candidate must perform one collective
 * (`collective` when not NULL) and every (ranks, size) pair of the grid must have a row
 * that ran. Errors are FENNEL_ERROR_INPUT at FILE:LINE:COL, or name the cell. */
FennelTune *fennel_tune_read(const char *name, const char *text, gsize length,
                             const char *collective, GError **error);
void fennel_tune_free(FennelTune *t);

static inline const FennelTuneCell *fennel_tune_cell(const FennelTune *t, guint r, guint s)
{
    return &t->cells[(gsize)r * t->n_sizes + s];
}

/* "4 KiB" for sizes that are a whole number of KiB, MiB or GiB, else "1000 B". */
char *fennel_tune_size_text(int64_t bytes);

/* The decision table: one row per cell (tune_write.c). */
void fennel_tune_write_csv(const FennelTune *t, GString *out);
void fennel_tune_write_json(const FennelTune *t, GString *out);

/* The Open MPI release lines a rules file can be written for (docs/TUNING.md, Versions):
 * major x 100 + minor, and the development branch after the newest line. They differ in
 * the algorithm ids they know (some exist from 4.0 only), in how they read a communicator
 * size (3.0 to 5.0: the smallest its rules apply to; 6.0 and main: one more than the
 * largest) and in what FANINOUT means to allgather's Bruck (from 6.0: its radix). */
#define FENNEL_OMPI_MAIN    10000
#define FENNEL_OMPI_DEFAULT 500 /* the current release line, 5.0 */

/* Parses "3.0", "3.1", "4.0", "4.1", "5.0", "6.0" (a patch level such as "5.0.10" and a
 * leading 'v' are allowed) or "main"; FALSE for anything else. */
gboolean fennel_tune_ompi_version_parse(const char *text, int *version);
/* "5.0", "main"; buf holds at least 8 bytes. */
const char *fennel_tune_ompi_version_name(int version, char buf[8]);

/* The Open MPI coll_tuned dynamic rules file (classic format) for one release line: in
 * each cell the fastest candidate that has a counterpart in that line, adjacent message
 * sizes and then rank counts with the same rules collapsed. *substituted counts the cells
 * whose fastest candidate has none (the file says so in a comment). An input error names
 * a cell where no candidate has one, or a collective Open MPI's rules cannot take. */
gboolean fennel_tune_write_ompi(const FennelTune *t, int version, GString *out, guint *substituted,
                                GError **error);

/* Whether a collective has an Open MPI collective id (tune_ompi.c). */
gboolean fennel_tune_ompi_knows(const char *collective);

/* The CSV file of NCCL's example tuner plugin (plugins/tuner/example of NCCL 2.30.7;
 * tune_nccl.c, docs/TUNING.md): one line per run of adjacent message sizes with the same
 * choice, `collective,min_bytes,max_bytes,algorithm,protocol,channels,nNodes,nRanks` for
 * every rank count, from each cell's fastest candidate that is one of NCCL's algorithms
 * (the nccl-* generators: ring, tree or pat, the --variant the protocol, the --partitions the
 * channels), sizes in NCCL's bytes (an allgather's whole output).
 * *substituted counts the cells whose fastest candidate is not. An input error names a
 * cell where no candidate is, or a collective the plugin cannot take. */
gboolean fennel_tune_write_nccl(const FennelTune *t, GString *out, guint *substituted,
                                GError **error);

/* The heat map of the winners, rank counts up, sizes across (tune_write.c). */
FennelCanvas *fennel_tune_heatmap(const FennelTune *t, double width, double height);

#endif
