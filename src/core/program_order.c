/* Renumbering a program's tasks step by step (program.h, fennel_program_order_by_step).
 *
 * A file that lists each rank's tasks together (GOAL) puts the tasks that run at one
 * instant, one a rank, far apart in every per-task array, and a run of a large program then
 * misses the cache at nearly every access; numbered step by step, as generated programs are
 * numbered stage by stage, they are neighbours. The renumbering is a stable counting sort,
 * first by rank, then by the task's position among its rank's tasks, so a rank's tasks keep
 * their order and ranks go in increasing order within a step. */
#include "program.h"

#include <string.h>

/* The per-task columns: new[to[t]] = old[t], t taken in the order `walk` gives. One column
 * at a time, so that only one is held twice. */
typedef struct {
    void **column;
    size_t size;
} Column;

static void move_columns(const Column *c, unsigned n_columns, const uint32_t *to,
                         const uint32_t *walk, uint32_t n)
{
    for (unsigned j = 0; j < n_columns; j++) {
        const char *from = *c[j].column;
        if (from == NULL)
            continue;
        char *out = g_malloc(MAX((size_t)n, 1) * c[j].size);
        switch (c[j].size) {
        case 1:
            for (uint32_t i = 0; i < n; i++)
                out[to[walk[i]]] = from[walk[i]];
            break;
        case 4:
            for (uint32_t i = 0; i < n; i++)
                memcpy(out + 4 * (size_t)to[walk[i]], from + 4 * (size_t)walk[i], 4);
            break;
        default:
            g_assert(c[j].size == 8);
            for (uint32_t i = 0; i < n; i++)
                memcpy(out + 8 * (size_t)to[walk[i]], from + 8 * (size_t)walk[i], 8);
        }
        g_free(*c[j].column);
        *c[j].column = out;
    }
}

/* A successor list (CSR) renumbered: the new task to[t] has the old list of t, each entry
 * mapped through to[]. */
static void renumber_edges(FennelEdgeIndex **start, uint32_t **list, const uint32_t *to,
                           const uint32_t *walk, uint32_t n)
{
    if (*start == NULL)
        return;
    const FennelEdgeIndex *old_start = *start;
    const uint32_t *old_list = *list;
    FennelEdgeIndex *new_start = g_new0(FennelEdgeIndex, (size_t)n + 1);
    uint32_t *new_list = g_new(uint32_t, MAX(old_start[n], 1));
    for (uint32_t i = 0; i < n; i++) {
        uint32_t t = walk[i];
        new_start[to[t] + 1] = old_start[t + 1] - old_start[t];
    }
    for (uint32_t t = 0; t < n; t++)
        new_start[t + 1] += new_start[t];
    for (uint32_t i = 0; i < n; i++) {
        uint32_t t = walk[i];
        FennelEdgeIndex at = new_start[to[t]];
        for (FennelEdgeIndex i = old_start[t]; i < old_start[t + 1]; i++)
            new_list[at++] = to[old_list[i]];
    }
    g_free(*start);
    g_free(*list);
    *start = new_start;
    *list = new_list;
}

/* Half of the arrays to move: some columns, and the successor lists or the start ones. */
typedef struct {
    FennelProgram *p;
    const uint32_t *to, *walk;
    uint32_t n;
    gboolean edges;
    Column columns[8];
    unsigned n_columns;
} Half;

static gpointer move_half(gpointer data)
{
    Half *h = data;
    move_columns(h->columns, h->n_columns, h->to, h->walk, h->n);
    if (h->edges)
        renumber_edges(&h->p->succ_start, &h->p->succ, h->to, h->walk, h->n);
    else
        renumber_edges(&h->p->start_succ_start, &h->p->start_succ, h->to, h->walk, h->n);
    return NULL;
}

gboolean fennel_program_order_by_step(FennelProgram *p)
{
    /* Programs whose arrays live in a file's mapping, or that name their tasks by stage,
     * keep their numbering. */
    g_return_val_if_fail(p->backing == NULL && p->name_at == NULL && p->n_stage_marks == 0, FALSE);
    const uint32_t n = p->n_tasks, ranks = p->n_ranks;
    if (n == 0 || ranks < 2)
        return FALSE;
    /* Each task's position among its rank's tasks; the tasks at each position. */
    uint32_t *to = g_new(uint32_t, n);
    uint32_t *count = g_new0(uint32_t, ranks);
    uint32_t steps = 0;
    for (uint32_t t = 0; t < n; t++) {
        to[t] = count[p->rank[t]]++;
        steps = MAX(steps, to[t] + 1);
    }
    uint32_t *first = g_new0(uint32_t, (size_t)steps + 1);
    for (uint32_t t = 0; t < n; t++)
        first[to[t] + 1]++;
    for (uint32_t k = 0; k < steps; k++)
        first[k + 1] += first[k];
    /* Ranks in increasing order, a rank's tasks in theirs: each takes the next place of
     * its step. Tasks usually come rank by rank already; otherwise a stable sort by rank
     * gives that order. */
    gboolean by_rank = TRUE;
    for (uint32_t t = 1; t < n && by_rank; t++)
        by_rank = p->rank[t] >= p->rank[t - 1];
    uint32_t *order = NULL;
    if (!by_rank) {
        uint32_t *next = g_new0(uint32_t, (size_t)ranks + 1);
        for (uint32_t r = 0; r < ranks; r++)
            next[r + 1] = next[r] + count[r];
        order = g_new(uint32_t, n);
        for (uint32_t t = 0; t < n; t++)
            order[next[p->rank[t]]++] = t;
        g_free(next);
    }
    gboolean moved = FALSE;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t t = order ? order[i] : i;
        to[t] = first[to[t]]++;
        moved |= to[t] != t;
    }
    g_free(first);
    if (!moved) {
        g_free(order);
        g_free(count);
        g_free(to);
        return FALSE;
    }
    /* The order the arrays are copied in. Task by task, a rank's tasks land a step apart
     * in the new arrays: with 2^k ranks that is a power of two apart, the same cache set,
     * and every write misses. Sixteen ranks at a time, step by step, write whole lines. */
    uint32_t *walk = g_new(uint32_t, n), *next = g_new0(uint32_t, (size_t)ranks + 1);
    for (uint32_t r = 0; r < ranks; r++)
        next[r + 1] = next[r] + count[r];
    uint32_t w = 0;
    for (uint32_t r0 = 0; r0 < ranks; r0 += 16) {
        uint32_t r1 = MIN(r0 + 16, ranks), most = 0;
        for (uint32_t r = r0; r < r1; r++)
            most = MAX(most, count[r]);
        for (uint32_t k = 0; k < most; k++) {
            for (uint32_t r = r0; r < r1; r++) {
                if (k < count[r])
                    walk[w++] = order ? order[next[r] + k] : next[r] + k;
            }
        }
    }
    g_free(next);
    g_free(order);
    g_free(count);
    /* Two halves of about the same bytes, the second in a thread of its own: the copy is
     * bound by memory, and a run reads its program on one core. */
#define COLUMN(field) {(void **)&p->field, sizeof *p->field}
    Half first_half = {.p = p,
                       .to = to,
                       .walk = walk,
                       .n = n,
                       .edges = TRUE,
                       .columns = {COLUMN(type), COLUMN(flags), COLUMN(rank), COLUMN(peer),
                                   COLUMN(tag), COLUMN(request)},
                       .n_columns = 6};
    Half second_half = {.p = p,
                        .to = to,
                        .walk = walk,
                        .n = n,
                        .edges = FALSE,
                        .columns = {COLUMN(amount), COLUMN(line), COLUMN(col), COLUMN(pin),
                                    COLUMN(any), COLUMN(block_first), COLUMN(block_count),
                                    COLUMN(task_name)},
                        .n_columns = 8};
#undef COLUMN
    GThread *thread =
        n >= (1u << 16) ? g_thread_try_new("order", move_half, &second_half, NULL) : NULL;
    move_half(&first_half);
    if (thread)
        g_thread_join(thread);
    else
        move_half(&second_half);
    g_free(walk);
    g_free(to);
    return TRUE;
}
