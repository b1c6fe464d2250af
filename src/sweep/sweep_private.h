/* The inside of a sweep, shared by sweep_grid.c (the grid and its rows), sweep_models.c
 * (the model variants and their columns) and sweep_point.c (running one grid point).
 *
 * Functions declared here are named fennel__* (two underscores): internal to the module,
 * never called from outside it. */
#ifndef FENNEL_SWEEP_PRIVATE_H
#define FENNEL_SWEEP_PRIVATE_H

#include "generator.h"
#include "model.h"
#include "sweep.h"

/* One generator option's values; n == 0 when the option was not given. */
typedef struct {
    guint n;
    int64_t *num; /* numeric options: the values */
    char **text;  /* the column text of each value (NULL-terminated) */
} FennelSweepDim;

/* One --set key and its values as text for fennel_model_set. */
typedef struct {
    char *key;
    GPtrArray *values;
} FennelSweepSet;

/* A model column: which value of a model it shows. */
typedef enum {
    FENNEL_SWEEP_COL_NETWORK,
    FENNEL_SWEEP_COL_NET_PARAM,
    FENNEL_SWEEP_COL_COMPUTE,
    FENNEL_SWEEP_COL_COMP_PARAM,
    FENNEL_SWEEP_COL_RESOLUTION,
    FENNEL_SWEEP_COL_TRUNCATES,
    FENNEL_SWEEP_COL_RANKS_PER_NODE,
    FENNEL_SWEEP_COL_INTRA,
    FENNEL_SWEEP_COL_INTRA_PARAM,
    FENNEL_SWEEP_COL_ORDER,
    FENNEL_SWEEP_COL_NIC,
    FENNEL_SWEEP_COL_DUPLEX,
    FENNEL_SWEEP_COL_TOPOLOGY,
    FENNEL_SWEEP_COL_TOPO_SIZE,
    FENNEL_SWEEP_COL_TOPO_LATENCY,
    FENNEL_SWEEP_COL_TOPO_RATE,
    FENNEL_SWEEP_COL_CONTENTION,
    FENNEL_SWEEP_COL_ORDERING,
    FENNEL_SWEEP_COL_NOISE,
    FENNEL_SWEEP_COL_STRAGGLERS,
    FENNEL_SWEEP_COL_FAULTS,
    FENNEL_SWEEP_COL_SET, /* a --set value as written (noise.STREAM.file) */
} FennelSweepColumnKind;

typedef struct {
    FennelSweepColumnKind kind;
    char *name;
    const char *param; /* the parameter's name, for the *_PARAM kinds; the size's key, for
                          TOPO_SIZE */
    int stream;        /* the noise stream, for NOISE; the --set key's index, for SET */
    char *level;       /* the level's name, for TOPO_LATENCY and TOPO_RATE (owned) */
} FennelSweepModelColumn;

struct FennelSweep {
    const FennelGenerator **generators;
    guint n_generators;
    const char **libraries;        /* per generator: the library it stands for, or NULL */
    FennelGenerator *library_gens; /* the libraries' stand-ins: ranks and size, no generate */
    char *collective;              /* of the libraries */
    gboolean library_columns;      /* some outer item is a library */
    char **list;                   /* the generators' and libraries' names as given */
    char **programs;               /* a sweep over program files: their names, NULL-terminated */
    guint n_programs;
    uint64_t *program_bytes; /* each file's size */
    FennelReadOptions read;  /* how to read them; the size is the row's */
    guint n_outer;           /* n_generators, or n_programs */
    uint64_t *gen_start;     /* the first grid point of each generator or file; n_outer + 1 */
    FennelSweepDim dims[FENNEL_GEN_N_OPTIONS];
    unsigned columns_gen; /* the option bits with a column: those any generator uses */
    gboolean rm;          /* some generator takes --schedule: schedule_used column */
    gboolean analytic;    /* allreduce-rm is swept: analytic_ns column */

    char *model_file, *network;
    FennelSweepSet *sets;
    guint n_sets;
    FennelModel base;
    FennelModel *models; /* every combination of the --set values, the last key fastest */
    char **model_cells;  /* each model's columns, each followed by a comma */
    guint n_models;
    GArray *model_columns; /* FennelSweepModelColumn */

    uint64_t seed;
    uint32_t repeat, shard, shards;
    uint64_t n_points, first, end;
    GPtrArray *columns; /* the header's names */
};

/* A grid point decoded: the generator (or program file), each option's value index
 * (G_MAXUINT when the generator runs without it) and the model. */
typedef struct {
    guint gen;
    guint idx[FENNEL_GEN_N_OPTIONS];
    guint model;
} FennelSweepPoint;

void fennel__sweep_decode(const FennelSweep *s, uint64_t point, FennelSweepPoint *pt);

/* sweep_programs.c: expands the spec's files and patterns into s->programs, each of which
 * must exist; a pattern that matches nothing is a usage error. */
gboolean fennel__sweep_add_programs(FennelSweep *s, const FennelSweepSpec *spec, GError **error);
/* Reads the program file of a grid point with the point's size. */
FennelProgram *fennel__sweep_read_program(const FennelSweep *s, const FennelSweepPoint *pt,
                                          GError **error);

/* Appends text as one CSV field (quoted when it holds a comma, quote or line break). */
void fennel__csv_field(GString *out, const char *text);

/* sweep_models.c: builds s->models, s->model_cells and s->model_columns from the model
 * options and s->sets. */
gboolean fennel__sweep_build_models(FennelSweep *s, const FennelModelOptions *o, GError **error);
/* Parses the --set options into s->sets (lists and ranges expanded to text). */
gboolean fennel__sweep_parse_sets(FennelSweep *s, char **set, GError **error);
void fennel__sweep_clear_models(FennelSweep *s);

/* The names of the result columns that follow the seed. */
void fennel__sweep_result_columns(const FennelSweep *s, GPtrArray *columns);

#endif
