/* Renumbering a program's tasks step by step (program.h, fennel_program_order_by_step), and
 * joining programs read apart into one so numbered (fennel_program_join_by_step).
 *
 * A file that lists each rank's tasks together (GOAL) puts the tasks that run at one
 * instant, one a rank, far apart in every per-task array, and a run of a large program then
 * misses the cache at nearly every access; numbered step by step, as generated programs are
 * numbered stage by stage, they are neighbours. The renumbering is a stable counting sort,
 * first by rank, then by the task's position among its rank's tasks, so a rank's tasks keep
 * their order and ranks go in increasing order within a step. Parts are taken as one
 * program, the first part's tasks first; each rank's tasks lie in one part. */
#include "program.h"

#include <stddef.h>
#include <string.h>

/* A per-task column: where it is in a program, its element size, and the value of a task
 * of a part that lacks it (as the builder's defaults). */
typedef struct {
    size_t offset, size;
    uint64_t fill;
} Column;

#define COLUMN(field, fill)                                                                        \
    {                                                                                              \
        offsetof(FennelProgram, field), sizeof *((FennelProgram *)0)->field, fill                  \
    }
static const Column first_columns[] = {COLUMN(type, 0), COLUMN(flags, 0), COLUMN(rank, 0),
                                       COLUMN(peer, 0), COLUMN(tag, 0),   COLUMN(request, 0)};
static const Column second_columns[] = {
    COLUMN(amount, 0), COLUMN(line, 0),        COLUMN(col, 0),         COLUMN(pin, UINT32_MAX),
    COLUMN(any, 0),    COLUMN(block_first, 0), COLUMN(block_count, 0), COLUMN(task_name, 0),
};
#undef COLUMN

static inline void **column_of(FennelProgram *p, const Column *c)
{
    return (void **)(void *)((char *)p + c->offset);
}

/* The parts and, per part, where its tasks go (to) and the order they are copied in (walk,
 * the part's own task numbers). */
typedef struct {
    FennelProgram **parts;
    unsigned n_parts;
    uint32_t n;       /* tasks in all */
    uint32_t **to;    /* per part: new number of each of its tasks */
    uint32_t **walk;  /* per part */
    uint32_t *n_walk; /* per part: its tasks */
} Plan;

/* new[to[t]] = old[t] for every part, its tasks taken in walk order. One column at a time,
 * so that only one is held twice. */
static void move_columns(const Plan *plan, const Column *columns, unsigned n_columns)
{
    for (unsigned j = 0; j < n_columns; j++) {
        const Column *c = &columns[j];
        gboolean any = FALSE;
        for (unsigned k = 0; k < plan->n_parts; k++)
            any |= *column_of(plan->parts[k], c) != NULL;
        if (!any)
            continue;
        char *out = g_malloc(MAX((size_t)plan->n, 1) * c->size);
        for (unsigned k = 0; k < plan->n_parts; k++) {
            const char *from = *column_of(plan->parts[k], c);
            const uint32_t *to = plan->to[k], *walk = plan->walk[k];
            const uint32_t m = plan->n_walk[k];
            if (from == NULL) {
                for (uint32_t i = 0; i < m; i++)
                    memcpy(out + c->size * to[walk[i]], &c->fill, c->size);
                continue;
            }
            switch (c->size) {
            case 1:
                for (uint32_t i = 0; i < m; i++)
                    out[to[walk[i]]] = from[walk[i]];
                break;
            case 4:
                for (uint32_t i = 0; i < m; i++)
                    memcpy(out + 4 * (size_t)to[walk[i]], from + 4 * (size_t)walk[i], 4);
                break;
            default:
                g_assert(c->size == 8);
                for (uint32_t i = 0; i < m; i++)
                    memcpy(out + 8 * (size_t)to[walk[i]], from + 8 * (size_t)walk[i], 8);
            }
        }
        for (unsigned k = 0; k < plan->n_parts; k++) {
            void **column = column_of(plan->parts[k], c);
            g_free(*column);
            *column = NULL;
        }
        *column_of(plan->parts[0], c) = out;
    }
}

/* The successor lists (CSR) at `start_offset`/`list_offset` renumbered: the new task to[t]
 * has the old list of t, each entry mapped through to[]. */
static void renumber_edges(const Plan *plan, size_t start_offset, size_t list_offset)
{
    FennelEdgeIndex *new_start = NULL;
    uint32_t *new_list = NULL;
    FennelEdgeIndex total = 0;
    for (unsigned k = 0; k < plan->n_parts; k++) {
        const FennelEdgeIndex *old_start =
            *(FennelEdgeIndex **)(void *)((char *)plan->parts[k] + start_offset);
        if (old_start == NULL)
            continue;
        if (new_start == NULL)
            new_start = g_new0(FennelEdgeIndex, (size_t)plan->n + 1);
        const uint32_t *to = plan->to[k], *walk = plan->walk[k];
        for (uint32_t i = 0; i < plan->n_walk[k]; i++) {
            uint32_t t = walk[i];
            new_start[to[t] + 1] = old_start[t + 1] - old_start[t];
        }
        total += old_start[plan->parts[k]->n_tasks];
    }
    if (new_start == NULL)
        return;
    for (uint32_t t = 0; t < plan->n; t++)
        new_start[t + 1] += new_start[t];
    new_list = g_new(uint32_t, MAX(total, 1));
    for (unsigned k = 0; k < plan->n_parts; k++) {
        FennelEdgeIndex **start =
            (FennelEdgeIndex **)(void *)((char *)plan->parts[k] + start_offset);
        uint32_t **list = (uint32_t **)(void *)((char *)plan->parts[k] + list_offset);
        if (*start == NULL)
            continue;
        const FennelEdgeIndex *old_start = *start;
        const uint32_t *old_list = *list, *to = plan->to[k], *walk = plan->walk[k];
        for (uint32_t i = 0; i < plan->n_walk[k]; i++) {
            uint32_t t = walk[i];
            FennelEdgeIndex at = new_start[to[t]];
            for (FennelEdgeIndex e = old_start[t]; e < old_start[t + 1]; e++)
                new_list[at++] = to[old_list[e]];
        }
        g_free(*start);
        g_free(*list);
        *start = NULL;
        *list = NULL;
    }
    *(FennelEdgeIndex **)(void *)((char *)plan->parts[0] + start_offset) = new_start;
    *(uint32_t **)(void *)((char *)plan->parts[0] + list_offset) = new_list;
}

/* Half of the arrays to move: some columns, and the successor lists or the start ones. */
typedef struct {
    const Plan *plan;
    gboolean first;
} Half;

static gpointer move_half(gpointer data)
{
    const Half *h = data;
    if (h->first) {
        move_columns(h->plan, first_columns, G_N_ELEMENTS(first_columns));
        renumber_edges(h->plan, offsetof(FennelProgram, succ_start), offsetof(FennelProgram, succ));
    } else {
        move_columns(h->plan, second_columns, G_N_ELEMENTS(second_columns));
        renumber_edges(h->plan, offsetof(FennelProgram, start_succ_start),
                       offsetof(FennelProgram, start_succ));
    }
    return NULL;
}

/* Renumbers the parts' tasks into parts[0]; with one part, only if a task moves. */
static gboolean order_parts(FennelProgram **parts, unsigned n_parts)
{
    const uint32_t ranks = parts[0]->n_ranks;
    uint64_t total = 0;
    for (unsigned k = 0; k < n_parts; k++)
        total += parts[k]->n_tasks;
    g_return_val_if_fail(total <= UINT32_MAX, FALSE);
    const uint32_t n = (uint32_t)total;
    if (n_parts == 1 && (n == 0 || ranks < 2))
        return FALSE;
    /* Per rank: its tasks, its part, and where its tasks begin in the part's sequence
     * (the part's own numbers, or a stable order by rank when its tasks do not come rank
     * by rank). */
    uint32_t *count = g_new0(uint32_t, (size_t)ranks + 1);
    uint8_t *part_of = g_new0(uint8_t, MAX(ranks, 1));
    uint32_t *base = g_new(uint32_t, MAX(ranks, 1));
    uint32_t **order = g_new0(uint32_t *, n_parts);
    uint32_t steps = 0;
    for (unsigned k = 0; k < n_parts; k++) {
        const FennelProgram *p = parts[k];
        gboolean by_rank = TRUE;
        for (uint32_t t = 0; t < p->n_tasks; t++) {
            uint32_t r = p->rank[t];
            count[r]++;
            steps = MAX(steps, count[r]);
            part_of[r] = (uint8_t)k;
            by_rank = by_rank && (t == 0 || r >= p->rank[t - 1]);
        }
        if (!by_rank) {
            uint32_t *next = g_new0(uint32_t, (size_t)ranks + 1);
            for (uint32_t t = 0; t < p->n_tasks; t++)
                next[p->rank[t] + 1]++;
            for (uint32_t r = 0; r < ranks; r++)
                next[r + 1] += next[r];
            order[k] = g_new(uint32_t, MAX(p->n_tasks, 1));
            for (uint32_t t = 0; t < p->n_tasks; t++)
                order[k][next[p->rank[t]]++] = t;
            g_free(next);
        }
    }
    /* A rank's first task in its part's sequence: ranks of a part come in increasing order
     * in that sequence. */
    {
        uint32_t *at = g_new0(uint32_t, n_parts);
        for (uint32_t r = 0; r < ranks; r++) {
            base[r] = at[part_of[r]];
            at[part_of[r]] += count[r];
        }
        g_free(at);
    }
#define TASK_OF(r, i) (order[part_of[r]] ? order[part_of[r]][base[r] + (i)] : base[r] + (i))
    /* Where each step begins: step k holds a task of every rank with more than k tasks.
     * first[c] counts the ranks with c tasks, then first[k + 1] the tasks of step k, then
     * first[k] the tasks before step k. Each task then takes the next place of its step,
     * ranks in increasing order, a rank's tasks in theirs. */
    uint32_t *first = g_new0(uint32_t, (size_t)steps + 1);
    for (uint32_t r = 0; r < ranks; r++)
        first[count[r]]++;
    for (uint32_t k = steps, more = 0; k-- > 0;) {
        more += first[k + 1];
        first[k + 1] = more;
    }
    first[0] = 0;
    for (uint32_t k = 0; k < steps; k++)
        first[k + 1] += first[k];
    Plan plan = {.parts = parts,
                 .n_parts = n_parts,
                 .n = n,
                 .to = g_new(uint32_t *, n_parts),
                 .walk = g_new(uint32_t *, n_parts),
                 .n_walk = g_new(uint32_t, n_parts)};
    gboolean moved = n_parts > 1;
    for (unsigned k = 0; k < n_parts; k++) {
        plan.n_walk[k] = 0;
        plan.to[k] = g_new(uint32_t, MAX(parts[k]->n_tasks, 1));
    }
    for (uint32_t r = 0; r < ranks; r++) {
        uint32_t *to = plan.to[part_of[r]];
        for (uint32_t i = 0; i < count[r]; i++) {
            uint32_t t = TASK_OF(r, i);
            to[t] = first[i]++;
            moved |= to[t] != t;
        }
    }
    g_free(first);
    if (!moved) {
        g_free(plan.to[0]);
        g_free(plan.to);
        g_free(plan.walk);
        g_free(plan.n_walk);
        g_free(order[0]);
        g_free(order);
        g_free(count);
        g_free(part_of);
        g_free(base);
        return FALSE;
    }
    /* The order the arrays are copied in. Task by task, a rank's tasks land a step apart
     * in the new arrays: with 2^k ranks that is a power of two apart, the same cache set,
     * and every write misses. Sixteen ranks at a time, step by step, write whole lines. */
    for (unsigned k = 0; k < n_parts; k++)
        plan.walk[k] = g_new(uint32_t, MAX(parts[k]->n_tasks, 1));
    for (uint32_t r0 = 0; r0 < ranks; r0 += 16) {
        uint32_t r1 = MIN(r0 + 16, ranks), most = 0;
        for (uint32_t r = r0; r < r1; r++)
            most = MAX(most, count[r]);
        for (uint32_t i = 0; i < most; i++) {
            for (uint32_t r = r0; r < r1; r++) {
                if (i < count[r])
                    plan.walk[part_of[r]][plan.n_walk[part_of[r]]++] = TASK_OF(r, i);
            }
        }
    }
#undef TASK_OF
    for (unsigned k = 0; k < n_parts; k++)
        g_free(order[k]);
    g_free(order);
    g_free(count);
    g_free(part_of);
    g_free(base);
    /* Two halves of about the same bytes, the second in a thread of its own: the copy is
     * bound by memory, and a run reads its program on one core. */
    Half first_half = {.plan = &plan, .first = TRUE}, second_half = {.plan = &plan, .first = FALSE};
    GThread *thread =
        n >= (1u << 16) ? g_thread_try_new("order", move_half, &second_half, NULL) : NULL;
    move_half(&first_half);
    if (thread)
        g_thread_join(thread);
    else
        move_half(&second_half);
    for (unsigned k = 0; k < n_parts; k++) {
        g_free(plan.to[k]);
        g_free(plan.walk[k]);
    }
    g_free(plan.to);
    g_free(plan.walk);
    g_free(plan.n_walk);
    return TRUE;
}

gboolean fennel_program_order_by_step(FennelProgram *p)
{
    /* Programs whose arrays live in a file's mapping, or that name their tasks by stage,
     * keep their numbering. */
    g_return_val_if_fail(p->backing == NULL && p->name_at == NULL && p->n_stage_marks == 0, FALSE);
    return order_parts(&p, 1);
}

FennelProgram *fennel_program_join_by_step(FennelProgram **parts, unsigned n_parts)
{
    g_return_val_if_fail(n_parts >= 1 && n_parts <= 256, NULL);
    FennelProgram *p = parts[0];
    uint64_t n = 0, edges = 0;
    for (unsigned k = 0; k < n_parts; k++) {
        const FennelProgram *q = parts[k];
        g_return_val_if_fail(q->backing == NULL && q->name_at == NULL && q->n_stage_marks == 0 &&
                                 q->n_ranks == p->n_ranks && (k == 0 || q->task_name == NULL),
                             NULL);
        n += q->n_tasks;
        edges += q->n_edges;
    }
    g_return_val_if_fail(n <= UINT32_MAX, NULL);
    if (n_parts == 1) {
        order_parts(parts, 1);
        return p;
    }
    order_parts(parts, n_parts);
    p->n_tasks = (uint32_t)n;
    p->n_edges = edges;
    for (unsigned k = 1; k < n_parts; k++) {
        p->processes = MAX(p->processes, parts[k]->processes);
        p->n_blocks = MAX(p->n_blocks, parts[k]->n_blocks);
        fennel_program_free(parts[k]);
        parts[k] = NULL;
    }
    return p;
}
