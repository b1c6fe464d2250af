/* Private to the collective checker (verify.c sets up and checks, verify_exec.c walks
 * the tasks).
 *
 * Functions declared here are named fennel__* (two underscores): internal to the module,
 * never called from outside it. */
#ifndef FENNEL_VERIFY_PRIVATE_H
#define FENNEL_VERIFY_PRIVATE_H

#include "verify.h"
#include "verify_values.h"

#define NONE UINT32_MAX

typedef struct {
    uint32_t refs;
    uint32_t v[]; /* a value id per block */
} State;

/* What a task leaves for its successors. */
typedef struct {
    State *out;            /* its rank's data after the task */
    State *carried;        /* data it delivers (whole vector), or NULL */
    uint32_t *snapshot;    /* or the values of the blocks it delivers, in range order */
    uint32_t first, count; /* the blocks it delivers: first .. first + count - 1 mod B */
} Entry;

typedef struct {
    const FennelProgram *p;
    FennelCollective c;
    uint32_t root, n, blocks;
    FennelValues *values;
    State **initial, **final, **fallback; /* per rank */
    uint64_t *pred_start, *spred_start;   /* regular and start predecessors (CSR) */
    uint32_t *preds, *spreds;
    uint32_t *match; /* per task: the matching send or recv, or NONE; NULL if none */
    uint32_t *readers, *slot;
    GArray *entries;     /* Entry */
    GArray *free_slots;  /* uint32_t */
    GPtrArray *recycled; /* States of refs 0 */
    uint32_t *unheard;   /* per rank: a put to it that no task there depends on */
    uint8_t *last;       /* per task: no successor on its rank */
    uint8_t *sink_kind;  /* per rank: 1 if it has a last task that is not a put or send */
    /* Per-block operand lists of the task being processed. */
    uint32_t *stamp, now;
    int32_t *head, *tail;
    GArray *op_value, *op_next, *touched, *ops, *scratch;
    GPtrArray *same;   /* States of the task's predecessors on its rank */
    GArray *same_task; /* uint32_t: the task each came from */
    GArray *incoming;  /* uint32_t: slots of the entries delivering data to the task */
    GString *problem;  /* the first problem met, or NULL */
} Checker;

/* Makes the record of task t (in topological order: its predecessors' records, and its
 * matched send's, are there) and releases the records read for the last time. */
void fennel__verify_process(Checker *k, uint32_t t);

/* A rank's data at the start (owned by k->initial). */
/* The rank whose own block b is (allgather, gather, reduce-scatter, scatter): b, or with q
 * blocks to a rank (the block count a multiple q of the ranks) b / q. */
uint32_t fennel__verify_owner(const Checker *k, uint32_t b);
State *fennel__verify_initial(Checker *k, uint32_t r);

void fennel__verify_state_unref(Checker *k, State *s);
void fennel__verify_entry_release(Checker *k, uint32_t task);

#endif
