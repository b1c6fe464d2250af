/* Measurements for calibration (docs/CALIBRATION.md): the tables of benchmark outputs that
 * `fennel fit` turns into a model. A file is recognised by its content: fennel's own CSV
 * (`size_bytes,targets,time_ns` or `size_bytes,time_ns`; for comparisons
 * `generator,ranks,size_bytes,schedule,time_ns`), OSU Micro-Benchmarks, Intel MPI Benchmarks,
 * nccl-tests and Netgauge's LogGP table. Times are held in nanoseconds as doubles: they are
 * measurements, not simulated time. */
#ifndef FENNEL_MEASURE_H
#define FENNEL_MEASURE_H

#include <glib.h>
#include <stdint.h>

typedef enum {
    FENNEL_MEASURE_ONE_WAY,    /* a message's time per size: ping-pong (half the round trip) */
    FENNEL_MEASURE_MULTICAST,  /* b back-to-back puts: time per (size, b) */
    FENNEL_MEASURE_COLLECTIVE, /* a collective's time per size */
    FENNEL_MEASURE_LOGGP,      /* Netgauge's LogGP parameters per size */
    FENNEL_MEASURE_BANDWIDTH,  /* back-to-back messages: the time per message of a bandwidth
                                * test (osu_bw, osu_bibw; nccl-tests' sendrecv is read as a
                                * collective and fitted as this) */
    FENNEL_MEASURE_OTHER,      /* a table fennel reads but does not fit (message rates, ...) */
} FennelMeasureKind;

/* Netgauge's columns, in microseconds: L, o_s, o_r, g, G (G per byte). */
enum { FENNEL_NG_L, FENNEL_NG_OS, FENNEL_NG_OR, FENNEL_NG_G, FENNEL_NG_GBYTE, FENNEL_NG_N };

typedef struct {
    int64_t bytes;
    double ns;            /* the time (a tool's average, or the one value) */
    double min_ns;        /* the tool's minimum column (OSU -f, IMB t_min: of a collective, the
                           * fastest rank's time), or NAN */
    double max_ns;        /* the tool's maximum column, or NAN */
    double in_place_ns;   /* nccl-tests: the in-place time column, or NAN */
    uint32_t targets;     /* multicast: the number of puts b; else 0 */
    uint32_t repetitions; /* IMB: the calls it timed at this size (#repetitions); else 0 */
    uint32_t line;
} FennelSample;

/* Netgauge's parameters of one row: ns (G: ns per byte); NAN where it printed -nan. */
typedef struct {
    double v[FENNEL_NG_N];
    double prtt_n0_ns, prtt_nd_ns; /* PRTT(n,0,s) and PRTT(n,PRTT(1,0,s),s) in ns */
    uint32_t n;                    /* Netgauge's n */
} FennelLogGPRow;

typedef struct {
    char *file;
    char *tool;       /* "fennel CSV", "osu_latency", "IMB PingPong", "Netgauge LogGP", ... */
    char *collective; /* collectives: "allreduce", "bcast", ...; else NULL */
    char *generator;  /* a comparison CSV's generator and schedule (schedule may be NULL) */
    char *schedule;
    gboolean nccl; /* nccl-tests: sizes are the tool's S (docs/CALIBRATION.md) */
    FennelMeasureKind kind;
    uint32_t ranks; /* processes, when the output says; else 0 */
    /* IMB before 2017 (its header's version): a rank's time is its loop of #repetitions
     * calls back to back, with no barrier between them and the root of a rooted collective
     * moving to the next rank at every call (IMB 4.1's defaults, -sync 0 and -root_shift 1;
     * docs/CALIBRATION.md, IMB's loop). FALSE: one call after a barrier (IMB 2017 on). */
    gboolean loop;
    uint32_t line;   /* where the table starts */
    GArray *samples; /* FennelSample */
    GArray *loggp;   /* Netgauge: FennelLogGPRow per sample; else NULL */
} FennelMeasureTable;

/* The formats, for --format: "auto" or one of these names. */
extern const char *const fennel_measure_formats[];

/* Reads every table of one file, appending FennelMeasureTable pointers to `tables` (free them
 * with fennel_measure_table_free). `format` is NULL or "auto" to recognise the tool by content.
 * Errors are FENNEL_ERROR_INPUT at FILE:LINE:COL: a file of no known tool, a table with no
 * rows, a cell that is not a number, a negative time, a row with fewer columns than its table
 * (cut short), sizes that do not increase within a tool's table. */
gboolean fennel_measure_read(const char *file, const char *format, GPtrArray *tables,
                             GError **error);
gboolean fennel_measure_parse(const char *file, const char *text, gsize length, const char *format,
                              GPtrArray *tables, GError **error);
void fennel_measure_table_free(gpointer table);

#endif
