/* The program: a DAG of tasks compiled to dense arrays. Tasks are numbered in
 * program order (the order of the file or of the generator), which is also the order
 * that breaks every tie in the engine. Successors are stored in CSR form. Names and
 * source positions are kept only for reporting; the engine never looks at them. */
#ifndef FENNEL_PROGRAM_H
#define FENNEL_PROGRAM_H

#include "capacity.h"
#include "units.h"

typedef enum {
    FENNEL_TASK_START,
    FENNEL_TASK_PROXY,
    FENNEL_TASK_SLEEP,
    FENNEL_TASK_COMPUTE,
    FENNEL_TASK_PUT,
    FENNEL_TASK_GET,
    FENNEL_TASK_SEND,
    FENNEL_TASK_RECV,
    /* In-switch operations (docs/SEMANTICS.md): of an NVLink switch (NVLS) or of a network's
     * leaf switch (SHARP). A group of ranks, tag of them from peer, every stride-th
     * (fennel_program_stride: the issuer among them), whose GPUs hang off one switch. A
     * load-reduce has the switch read `amount` bytes from every rank of the group, reduce
     * them and return the result to the issuer, or with FENNEL_TASK_ALLREDUCE to every rank
     * of the group; a multicast has the issuer write `amount` bytes once and the switch
     * deliver them to every rank of the group. */
    FENNEL_TASK_LOAD_REDUCE,
    FENNEL_TASK_MULTICAST,
    FENNEL_TASK_N_TYPES,
} FennelTaskType;

enum {
    FENNEL_TASK_CONCURRENT =
        1 << 0, /* takes the earliest free slot (engine rule 3, docs/SEMANTICS.md) */
    FENNEL_TASK_BLOCKING = 1 << 1, /* put: the issuing slot is busy until completion */
    FENNEL_TASK_SIZED = 1 << 2,    /* compute: timed by the compute model from its size */
    FENNEL_TASK_EAGER = 1 << 3,    /* send: never waits for its recv, whatever its size (a
                                      buffered connection, as NCCL's) */
    /* send: the only send from its rank to its peer, so no other message of the pair can
     * overtake it or be overtaken. fennel_builder_finish() works it out (producers' bits are
     * cleared) where that is cheap: for the ranks whose tasks were added together. The
     * engine then keeps no record of the pair. Not written to files. */
    FENNEL_TASK_SOLE = 1 << 4,
    /* load-reduce: the switch returns the sum to every rank of the group, not only to the
     * issuer: an allreduce in the switch, as a network's SHARP does (docs/SEMANTICS.md). */
    FENNEL_TASK_ALLREDUCE = 1 << 5,
};

/* Offsets into the successor lists: 32 bits keep a task at 22 bytes plus 4 per edge; a
 * program may have at most UINT32_MAX edges of each kind. */
typedef uint32_t FennelEdgeIndex;

/* Rank and peer indices. */
#define FENNEL_NO_RANK UINT32_MAX
/* A recv's source or tag that matches any (MPI_ANY_SOURCE, MPI_ANY_TAG). */
#define FENNEL_ANY (UINT32_MAX - 1)

typedef struct FennelProgram {
    uint32_t n_tasks;
    uint32_t n_ranks;   /* ranks the program uses (1 + highest, or the file's `ranks`) */
    uint32_t processes; /* execution slots per rank */
    uint64_t n_edges;

    /* Per task, indexed by task number. */
    uint8_t *type;
    uint8_t *flags;
    uint32_t *rank;
    uint32_t *peer;              /* put, send: target; get: the rank read from; recv: source or
                                    FENNEL_ANY; load-reduce, multicast: the group's first rank */
    int64_t *amount;             /* bytes (put, get, sized compute) or ps (start skew, sleep,
                                    fixed compute) */
    int64_t *request;            /* get: bytes of the request; load-reduce, multicast: the
                                    distance between the group's ranks (0: 1, consecutive
                                    ranks); NULL when no task has either: read a group's with
                                    fennel_program_stride() */
    uint32_t *tag;               /* send, recv: the tag (recv: or FENNEL_ANY); load-reduce,
                                    multicast: the group's size; NULL without them */
    uint32_t *pin;               /* the slot a task must run on, or FENNEL_NO_RANK; NULL if none is
                                    pinned (GOAL's `cpu C`) */
    uint32_t *any;               /* the K of `any: K` (0: all predecessors); NULL when no task
                                    has one: read it with fennel_program_any() */
    FennelEdgeIndex *succ_start; /* n_tasks + 1 offsets into succ */
    uint32_t *succ;
    /* Start dependencies (GOAL's `irequires`): these successors may start once the task
     * has started. NULL when the program has none. */
    FennelEdgeIndex *start_succ_start;
    uint32_t *start_succ;

    /* The data vector's blocks, for `fennel verify` only (the engine ignores them). A
     * generator whose puts move parts of the vector declares n_blocks and marks each
     * such put with the blocks it carries: block_first, block_first + 1, ... (block_count
     * of them), taken modulo n_blocks so that a range may wrap. A put with block_count 0
     * carries the whole vector. n_blocks is 0 and both arrays are NULL when no task is
     * marked. */
    uint32_t n_blocks;
    uint32_t *block_first;
    uint32_t *block_count;

    /* Reporting only. */
    char *name;          /* optional label, e.g. the file's name or the generator's */
    char **task_name;    /* NULL when tasks are unnamed; fennel_program_name_tasks() then
                            names them when a name is first asked for */
    GStringChunk *names; /* storage of task_name */
    /* A binary program file's names (docs/FORMATS.md): each task's offset into name_text
     * (UINT64_MAX: none), which the file's mapping holds. task_name is made from them on
     * the first request, as fennel_program_name_tasks() makes names: a run that prints no
     * name never pays for them. NULL otherwise. */
    const uint64_t *name_at;
    const char *name_text;
    /* A reader that keeps the text it read instead of a name per task (LogGOPSim GOAL's
     * fast path) makes the names from it on the first request: name_from_text fills
     * task_name and names. NULL otherwise; text is held until the program is freed. */
    void (*name_from_text)(struct FennelProgram *p);
    GBytes *text;
    /* A generated program's stages, for the names: stage stage_number[i] begins at task
     * stage_first[i] and runs to the next mark (stage 0: the set-up). NULL without stages. */
    uint32_t n_stage_marks;
    uint32_t *stage_first, *stage_number;
    gsize named;         /* fennel_program_name_tasks() has run */
    gboolean made_names; /* it made the names (program_names.c: distinct, of letters, digits,
                            '.' and '-', each ending in a digit or "any") */
    char *source;        /* file the program was read from, or NULL */
    /* What the program performs, for `fennel verify` (the engine ignores it): the
     * collective's name (e.g. "allreduce") or NULL, and its root or FENNEL_NO_RANK. A
     * generator sets them; `fennel generate` writes them and the YAML reader reads them. */
    char *collective;
    char *schedule; /* a generator that chose a schedule (recursive multiplying): which one and
                       why, e.g. "a4,a4,a4 (heuristic, ratio alpha_p/alpha_r 5)"; or NULL */
    uint32_t root;
    uint32_t *line; /* source position of each task, or NULL */
    uint32_t *col;
    /* The bytes a program read from fennel's binary file lives in (docs/FORMATS.md), or
     * NULL: arrays that point into them are not freed one by one, and the program holds
     * them (a mapping of the file) until it is freed. */
    GBytes *backing;
} FennelProgram;

/* Renumbers the tasks step by step: every rank's first task (ranks in increasing order),
 * then every rank's second, and so on; a rank's tasks keep their order, and edges, names
 * and positions follow their tasks. LogGOPSim GOAL's readers number a file so
 * (docs/FORMATS.md): its tasks of one instant are then neighbours in memory. Programs whose
 * arrays are a file's mapping, or that name tasks by stage, are left alone. Returns whether
 * any task moved. */
gboolean fennel_program_order_by_step(FennelProgram *p);

/* Joins programs read apart (parts of one file, each rank's tasks all in one part, every
 * part with the file's rank count) into one, numbered step by step as
 * fennel_program_order_by_step() numbers the parts taken as one program, the first part's
 * tasks first. The first part keeps its names, source and reporting fields and becomes the
 * whole, which is returned; the others are freed. Only the first part may name its tasks. */
FennelProgram *fennel_program_join_by_step(FennelProgram **parts, unsigned n_parts);

/* Builds a program task by task. Edges may name later tasks; finish() compiles and
 * validates. */
typedef struct FennelProgramBuilder FennelProgramBuilder;

FennelProgramBuilder *fennel_builder_new(void);
void fennel_builder_free(FennelProgramBuilder *b);
/* The limits the program is built within (capacity.h; NULL: the defaults): the builder
 * stops storing tasks past them and finish() reports the size asked for. Set them before
 * adding tasks. */
void fennel_builder_set_limits(FennelProgramBuilder *b, const FennelLimits *limits);
/* A generator that builds its DAG stage by stage declares it acyclic: finish() then skips
 * the cycle search, a random walk over the whole graph that costs as much as simulating
 * it. (Were a generator wrong, the engine would still report the stuck tasks.) */
void fennel_builder_set_acyclic(FennelProgramBuilder *b);

/* A reader whose format allows a dependency to be written twice (LogGOPSim's GOAL, where
 * Schedgen repeats `A requires B`) asks for repeated edges to count once; otherwise
 * finish() refuses them. */
void fennel_builder_set_merge_duplicates(FennelProgramBuilder *b);

/* Reserves room for this many tasks and edges (a generator that knows its size saves
 * the growth and its slack). */
void fennel_builder_reserve(FennelProgramBuilder *b, uint64_t tasks, uint64_t edges);

/* Appends a task and returns its index. All per-type fields start at zero. */
uint32_t fennel_builder_add(FennelProgramBuilder *b, FennelTaskType type, uint32_t rank);
void fennel_builder_set_amount(FennelProgramBuilder *b, uint32_t task, int64_t amount);
void fennel_builder_set_peer(FennelProgramBuilder *b, uint32_t task, uint32_t peer);
void fennel_builder_set_request(FennelProgramBuilder *b, uint32_t task, int64_t bytes);
void fennel_builder_set_tag(FennelProgramBuilder *b, uint32_t task, uint32_t tag);
void fennel_builder_set_pin(FennelProgramBuilder *b, uint32_t task, uint32_t slot);
void fennel_builder_set_flags(FennelProgramBuilder *b, uint32_t task, unsigned flags);
void fennel_builder_set_any(FennelProgramBuilder *b, uint32_t task, uint32_t k);
void fennel_builder_set_name(FennelProgramBuilder *b, uint32_t task, const char *name);
/* For a reader whose names are already in a string chunk of its own: the builder takes the
 * chunk (it becomes the program's, freed with it; call before any set_name), and
 * set_held_name gives a task a name in it (or a string constant) without a copy. */
void fennel_builder_take_names(FennelProgramBuilder *b, GStringChunk *names);
void fennel_builder_set_held_name(FennelProgramBuilder *b, uint32_t task, const char *name);
/* Instead of names set task by task: the program names its tasks from `text` (held) with
 * `namer` when a name is first asked for (FennelProgram.name_from_text); errors found by
 * finish() name tasks that way too. */
void fennel_builder_set_namer(FennelProgramBuilder *b, void (*namer)(FennelProgram *p),
                              GBytes *text);
void fennel_builder_set_position(FennelProgramBuilder *b, uint32_t task, uint32_t line,
                                 uint32_t col);
/* The tasks added from now on belong to `stage` (0: the set-up); a stage builder numbers
 * its stages so that generated tasks get names that say where they are. The program keeps
 * where each stage begins, not a number per task. */
void fennel_builder_set_stage(FennelProgramBuilder *b, uint32_t stage);
/* Declares the vector's block count and marks a put with the blocks it moves (see
 * FennelProgram.n_blocks); finish() checks the ranges. Programs that never mark a task
 * carry no block arrays. */
void fennel_builder_set_n_blocks(FennelProgramBuilder *b, uint32_t n_blocks);
void fennel_builder_set_blocks(FennelProgramBuilder *b, uint32_t task, uint32_t first,
                               uint32_t count);
/* succ depends on pred. */
void fennel_builder_add_edge(FennelProgramBuilder *b, uint32_t pred, uint32_t succ);
/* succ may start once pred has started. */
void fennel_builder_add_start_edge(FennelProgramBuilder *b, uint32_t pred, uint32_t succ);
/* Moves task t to place to[t] (to is a permutation of the tasks), its fields and edges
 * with it: a reader that adds the tasks in the order its input comes (a file per rank) but
 * numbers them in another (which decides ties of time) puts them in that order before
 * finish(). For a builder without stages that stayed within its limits. */
void fennel_builder_permute(FennelProgramBuilder *b, const uint32_t *to);
uint32_t fennel_builder_n_tasks(const FennelProgramBuilder *b);
uint32_t fennel_builder_rank(const FennelProgramBuilder *b, uint32_t task);

/* Compiles to a program and checks the graph rules of README, Program files: no cycle, start tasks
 * have no predecessors and other tasks have some, `any` within 1..in-degree, no
 * duplicate edge, ranks and peers within 0..n_ranks-1, pinned slots within
 * 0..processes-1. n_ranks 0 means 1 + the
 * highest rank or peer used; processes 0 means 1. Errors name the task and, when the
 * builder has positions, source:line:col. Frees the builder in every case. */
FennelProgram *fennel_builder_finish(FennelProgramBuilder *b, const char *source, uint32_t n_ranks,
                                     uint32_t processes, GError **error);

void fennel_program_free(FennelProgram *p);

/* Bytes the program's arrays take (names and positions included), for benchmarks. */
uint64_t fennel_program_bytes(const FennelProgram *p);

/* The distance between the ranks of a load-reduce's or multicast's group: member i is rank
 * peer + i x stride. */
static inline uint32_t fennel_program_stride(const FennelProgram *p, uint32_t task)
{
    return p->request && p->request[task] > 1 ? (uint32_t)p->request[task] : 1;
}

/* The last rank of a load-reduce's or multicast's group. */
static inline uint32_t fennel_program_group_last(const FennelProgram *p, uint32_t task)
{
    return p->peer[task] + (p->tag[task] - 1) * fennel_program_stride(p, task);
}

/* Whether rank r is in a load-reduce's or multicast's group. */
static inline gboolean fennel_program_in_group(const FennelProgram *p, uint32_t task, uint32_t r)
{
    const uint32_t s = fennel_program_stride(p, task);
    return r >= p->peer[task] && (r - p->peer[task]) % s == 0 &&
           (r - p->peer[task]) / s < p->tag[task];
}

static inline uint32_t fennel_program_any(const FennelProgram *p, uint32_t task)
{
    return p->any ? p->any[task] : 0;
}

/* The number of predecessors of every task (both kinds), in a new array (g_free it). The
 * program does not store it: the engine and checkers count it when they need it. */
uint32_t *fennel_program_in_degrees(const FennelProgram *p);

/* The task's name for messages and outputs: its label, or for a program read or built
 * without names, the name fennel_program_name_tasks() gives it. Returns buf or the name. */
const char *fennel_program_task_name(const FennelProgram *p, uint32_t task, char buf[24]);

/* Names the tasks of a program that has none (a generated one), once, so that outputs say
 * where a task is rather than "t116" (program_names.c; docs/SCHEDULES.md, Task names):
 *   start.r3           a rank's start
 *   s2.put.r3-r5       a put from rank 3 to rank 5 in stage 2 (get, send, recv alike)
 *   s2.reduce.r3       the reduction of what rank 3 received in stage 2
 *   s2.done.r3         the proxy that closes stage 2 on rank 3 (s0: the set-up)
 *   put.r0-r1          a task of a program without stages: its type, rank and peer
 * A name that repeats gets .2, .3, ... in task order. Safe to call from several threads;
 * a program with names of its own keeps them. */
void fennel_program_name_tasks(const FennelProgram *p);

/* The names fennel_program_name_tasks() would make, made one at a time instead of held:
 * for a writer of a large generated program, whose names would take more memory than the
 * program (about 33 bytes a task). NULL when the program has names of its own, read, built
 * or already made (then fennel_program_task_name() has them). fennel_namer_append() appends
 * task t's name to out. */
typedef struct FennelNamer FennelNamer;
FennelNamer *fennel_namer_new(const FennelProgram *p);
/* The same for a writer that holds the tasks of each rank in task order already (rank r's
 * are rank_list[rank_start[r] .. rank_start[r + 1]), every task within 0..n_ranks-1): the
 * namer then needs no such list of its own (4 bytes a task). */
FennelNamer *fennel_namer_new_by_rank(const FennelProgram *p, const uint32_t *rank_start,
                                      const uint32_t *rank_list);
void fennel_namer_append(const FennelNamer *namer, uint32_t t, GString *out);
/* The same name with '_' for every '.' and '-' (a GOAL label). */
void fennel_namer_append_identifier(const FennelNamer *namer, uint32_t t, GString *out);
/* The room a name takes at most (its terminator included). */
#define FENNEL_NAMER_ROOM 96
/* Writes the identifier at `at`, which has FENNEL_NAMER_ROOM bytes, without a terminator,
 * and returns its end: for a writer that places its text itself. `cursor` (NULL, or a
 * number set to 0 before the first call) carries where the last task asked was among the
 * program's stages: a writer that asks for tasks in increasing order through one cursor
 * saves each name a search of the stages. Any order gives the same names. */
char *fennel_namer_put_identifier(const FennelNamer *namer, uint32_t t, char *at, uint32_t *cursor);
/* Appends the identifiers of tasks[0..count) to text one after another, without
 * terminators between them: identifier k is text[at[k] .. at[k + 1]); returns the length
 * of the longest. The same identifiers as fennel_namer_put_identifier(), made a list at a
 * time for a writer of a rank's labels: `rank`'s number (its tasks', and the peer of those
 * aimed at it) is written from digits made once, and each name's stage and role are copied
 * whole. Tasks in increasing order find their stages fastest; any order gives the same
 * text. The text stays below 4 GiB. */
gsize fennel_namer_append_identifiers(const FennelNamer *namer, const uint32_t *tasks,
                                      uint32_t count, uint32_t rank, GString *text, uint32_t *at);
void fennel_namer_free(FennelNamer *namer);

/* Makes the names of a program that makes them from its text (FennelProgram.text) now, and
 * lets the text go: for a text read into memory, which is larger than the names. */
void fennel_program_detach_text(FennelProgram *p);

/* The names the program's tasks were given (read from a file or set by a builder), or
 * NULL when it has none (yet: names fennel_program_name_tasks() made count once made); for
 * writers that keep names but do not make them up. */
char *const *fennel_program_own_names(const FennelProgram *p);

const char *fennel_task_type_name(FennelTaskType type);

/* The letter pictures of programs draw a task of this type with ("S", "P", "Sd", ...; "?"
 * for a value outside the types). */
const char *fennel_task_type_letter(FennelTaskType type);

/* Statistics for `fennel validate`. */
typedef struct {
    uint64_t by_type[FENNEL_TASK_N_TYPES];
    uint64_t messages;            /* network messages: a put is one, a get two */
    uint64_t bytes;               /* their payload bytes */
    uint64_t critical_path_tasks; /* tasks on the longest dependency chain */
} FennelProgramStats;

void fennel_program_stats(const FennelProgram *p, FennelProgramStats *stats);

/* Fills order with a topological order of the tasks (stable: ties in program order is
 * not guaranteed, only validity). The program is acyclic by construction. */
void fennel_program_topological_order(const FennelProgram *p, uint32_t *order);

#endif
