#include "program.h"

#include "capacity.h"
#include "errors.h"

#include <string.h>

/* The builder keeps one raw array per field, grown together; optional fields stay NULL
 * until a task sets them, so a generated program pays only for what it uses. Edges are
 * packed (pred << 32 | succ) and turned into CSR lists by finish(). */
struct FennelProgramBuilder {
    uint32_t len, capacity;
    uint8_t *type, *flags;
    uint32_t *rank, *peer;
    int64_t *amount;
    /* Optional. */
    int64_t *request;
    uint32_t *tag, *pin, *any, *line, *col, *block_first, *block_count;
    char **task_name;
    GStringChunk *names;
    void (*namer)(FennelProgram *p);
    GBytes *text; /* what namer reads */
    /* Stages (fennel_builder_set_stage): the first task of each and its number. Tasks come
     * stage by stage, so a list of where each begins names them all. */
    GArray *stage_first, *stage_number;
    uint32_t n_blocks;
    uint64_t *edges, *start_edges;
    uint64_t n_edges, edges_capacity, n_start, start_capacity;
    /* The size guard (capacity.h): a task beyond task_cap is stored in one scratch entry
     * (the last), an edge beyond edge_cap not at all; both are only counted, so that a
     * producer can carry on without a check of its own and finish() reports the size
     * asked for instead of the kernel killing the process. */
    FennelLimits limits;
    uint64_t task_cap, edge_cap, extra_tasks, extra_edges;
    gboolean acyclic;          /* the producer guarantees it (fennel_builder_set_acyclic) */
    gboolean merge_duplicates; /* repeated edges count once */
    uint64_t oom_bytes;        /* an allocation that failed: its size; nothing more is stored */
    const char *oom_what;
};

static const char *const type_names[FENNEL_TASK_N_TYPES] = {
    "start", "proxy", "sleep", "compute", "put", "get", "send", "recv", "load-reduce", "multicast",
};

const char *fennel_task_type_name(FennelTaskType type)
{
    return type < FENNEL_TASK_N_TYPES ? type_names[type] : "unknown";
}

/* One table for every picture of a program (the DAG view, the DOT writer): "Sd" tells a
 * send from a start; a proxy is drawn as a point or not at all, and has a letter only for
 * a legend. */
static const char *const type_letters[FENNEL_TASK_N_TYPES] = {
    "S", "X", "Z", "C", "P", "G", "Sd", "R", "L", "M",
};

const char *fennel_task_type_letter(FennelTaskType type)
{
    return type < FENNEL_TASK_N_TYPES ? type_letters[type] : "?";
}

FennelProgramBuilder *fennel_builder_new(void)
{
    FennelProgramBuilder *b = g_new0(FennelProgramBuilder, 1);
    fennel_builder_set_limits(b, NULL);
    return b;
}

void fennel_builder_set_limits(FennelProgramBuilder *b, const FennelLimits *limits)
{
    b->limits = limits ? *limits : (FennelLimits){0};
    b->task_cap = fennel_limits_task_cap(&b->limits);
    b->edge_cap = fennel_limits_edge_cap(&b->limits);
}

/* Every per-task array, for growing and freeing them together: those every task has, and
 * the optional ones. */
#define FOR_EACH_REQUIRED(X) X(type) X(flags) X(rank) X(peer) X(amount)
#define FOR_EACH_OPTIONAL(X)                                                                       \
    X(request)                                                                                     \
    X(tag) X(pin) X(any) X(line) X(col) X(block_first) X(block_count) X(task_name)
#define FOR_EACH_COLUMN(X) FOR_EACH_REQUIRED(X) FOR_EACH_OPTIONAL(X)

static void free_columns(FennelProgramBuilder *b)
{
#define FREE_COLUMN(name) g_free(b->name);
    FOR_EACH_COLUMN(FREE_COLUMN)
#undef FREE_COLUMN
}

void fennel_builder_free(FennelProgramBuilder *b)
{
    if (b == NULL)
        return;
    free_columns(b);
    if (b->names)
        g_string_chunk_free(b->names);
    if (b->stage_first) {
        g_array_free(b->stage_first, TRUE);
        g_array_free(b->stage_number, TRUE);
    }
    g_free(b->edges);
    g_free(b->start_edges);
    if (b->text)
        g_bytes_unref(b->text);
    g_free(b);
}

/* An allocation failed: the builder stops storing, as past its size guard, and finish()
 * reports the size asked for. */
static void out_of_memory(FennelProgramBuilder *b, uint64_t bytes, const char *what)
{
    if (b->oom_bytes == 0) {
        b->oom_bytes = MAX(bytes, 1);
        b->oom_what = what;
    }
    b->task_cap = b->len ? b->len - 1 : 0;
    b->edge_cap = 0;
}

/* Grows every column to `capacity` tasks; FALSE if memory ran out (the columns that grew
 * keep their new size, the others their old one, all at least b->capacity). */
static gboolean resize(FennelProgramBuilder *b, uint32_t capacity)
{
    gboolean ok = TRUE;
    uint64_t bytes = 0;
#define RESIZE(name)                                                                               \
    if (ok) {                                                                                      \
        void *grown = g_try_realloc_n(b->name, capacity ? capacity : 1, sizeof *b->name);          \
        bytes += (uint64_t)capacity * sizeof *b->name;                                             \
        if (grown) {                                                                               \
            b->name = grown;                                                                       \
            fennel_huge_pages(grown, (size_t)capacity * sizeof *b->name);                          \
        } else {                                                                                   \
            ok = FALSE;                                                                            \
        }                                                                                          \
    }
#define RESIZE_IF_USED(name)                                                                       \
    if (b->name)                                                                                   \
    RESIZE(name)
    FOR_EACH_REQUIRED(RESIZE)
    FOR_EACH_OPTIONAL(RESIZE_IF_USED)
#undef RESIZE_IF_USED
#undef RESIZE
    if (!ok) {
        out_of_memory(b, bytes, "the program's tasks");
        return FALSE;
    }
    b->capacity = capacity;
    return TRUE;
}

void fennel_builder_set_merge_duplicates(FennelProgramBuilder *b)
{
    b->merge_duplicates = TRUE;
}

void fennel_builder_set_acyclic(FennelProgramBuilder *b)
{
    b->acyclic = TRUE;
}

void fennel_builder_reserve(FennelProgramBuilder *b, uint64_t tasks, uint64_t edges)
{
    if (tasks > b->capacity && tasks <= UINT32_MAX && !resize(b, (uint32_t)tasks))
        return;
    if (edges > b->edges_capacity) {
        uint64_t *more = g_try_realloc_n(b->edges, edges, sizeof *b->edges);
        if (more == NULL) {
            out_of_memory(b, edges * sizeof *b->edges, "the program's dependencies");
            return;
        }
        b->edges = more;
        b->edges_capacity = edges;
        fennel_huge_pages(more, edges * sizeof *more);
    }
}

uint32_t fennel_builder_n_tasks(const FennelProgramBuilder *b)
{
    return b->len;
}

uint32_t fennel_builder_rank(const FennelProgramBuilder *b, uint32_t task)
{
    return b->rank[task];
}

uint32_t fennel_builder_add(FennelProgramBuilder *b, FennelTaskType type, uint32_t rank)
{
    if (G_UNLIKELY(b->len == b->capacity || b->len > b->task_cap)) {
        if (b->len > b->task_cap) {
            b->extra_tasks++;
            return b->len - 1;
        }
        g_assert(b->capacity < UINT32_MAX - 1);
        uint64_t grown = b->capacity < 1024 ? 1024 : (uint64_t)b->capacity + b->capacity / 2;
        if (!resize(b, (uint32_t)MIN(grown, (uint64_t)UINT32_MAX - 1))) {
            b->extra_tasks++;
            return b->len ? b->len - 1 : 0;
        }
    }
    uint32_t t = b->len++;
    b->type[t] = (uint8_t)type;
    b->flags[t] = 0;
    b->rank[t] = rank;
    b->peer[t] = FENNEL_NO_RANK;
    b->amount[t] = 0;
    /* Optional columns in use get their defaults. */
    if (b->request)
        b->request[t] = 0;
    if (b->tag)
        b->tag[t] = 0;
    if (b->pin)
        b->pin[t] = FENNEL_NO_RANK;
    if (b->any)
        b->any[t] = 0;
    if (b->line) {
        b->line[t] = 0;
        b->col[t] = 0;
    }
    if (b->block_first) {
        b->block_first[t] = 0;
        b->block_count[t] = 0;
    }
    if (b->task_name)
        b->task_name[t] = NULL;
    return t;
}

/* Allocates an optional column on first use, every existing task at `fill`. */
#define ENSURE_COLUMN(b, name, fill)                                                               \
    do {                                                                                           \
        if ((b)->name == NULL) {                                                                   \
            (b)->name = g_malloc_n((b)->capacity ? (b)->capacity : 1, sizeof *(b)->name);          \
            for (uint32_t i_ = 0; i_ < (b)->len; i_++)                                             \
                (b)->name[i_] = (fill);                                                            \
        }                                                                                          \
    } while (0)

void fennel_builder_set_amount(FennelProgramBuilder *b, uint32_t task, int64_t amount)
{
    b->amount[task] = amount;
}

void fennel_builder_set_peer(FennelProgramBuilder *b, uint32_t task, uint32_t peer)
{
    b->peer[task] = peer;
}

void fennel_builder_set_request(FennelProgramBuilder *b, uint32_t task, int64_t bytes)
{
    ENSURE_COLUMN(b, request, 0);
    b->request[task] = bytes;
}

void fennel_builder_set_tag(FennelProgramBuilder *b, uint32_t task, uint32_t tag)
{
    ENSURE_COLUMN(b, tag, 0);
    b->tag[task] = tag;
}

void fennel_builder_set_pin(FennelProgramBuilder *b, uint32_t task, uint32_t slot)
{
    ENSURE_COLUMN(b, pin, FENNEL_NO_RANK);
    b->pin[task] = slot;
}

void fennel_builder_set_flags(FennelProgramBuilder *b, uint32_t task, unsigned flags)
{
    b->flags[task] = (uint8_t)flags;
}

void fennel_builder_set_any(FennelProgramBuilder *b, uint32_t task, uint32_t k)
{
    ENSURE_COLUMN(b, any, 0);
    b->any[task] = k;
}

void fennel_builder_set_name(FennelProgramBuilder *b, uint32_t task, const char *name)
{
    ENSURE_COLUMN(b, task_name, NULL);
    if (b->names == NULL)
        b->names = g_string_chunk_new(4096);
    b->task_name[task] = g_string_chunk_insert(b->names, name);
}

void fennel_builder_take_names(FennelProgramBuilder *b, GStringChunk *names)
{
    g_return_if_fail(b->names == NULL);
    b->names = names;
}

void fennel_builder_set_held_name(FennelProgramBuilder *b, uint32_t task, const char *name)
{
    ENSURE_COLUMN(b, task_name, NULL);
    b->task_name[task] = (char *)name;
}

void fennel_builder_set_namer(FennelProgramBuilder *b, void (*namer)(FennelProgram *p),
                              GBytes *text)
{
    if (b->text)
        g_bytes_unref(b->text);
    b->namer = namer;
    b->text = g_bytes_ref(text);
}

void fennel_builder_set_stage(FennelProgramBuilder *b, uint32_t stage)
{
    if (b->stage_first == NULL) {
        b->stage_first = g_array_new(FALSE, FALSE, sizeof(uint32_t));
        b->stage_number = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    }
    guint n = b->stage_first->len;
    /* A stage that holds no task yet gives way to the next one. */
    if (n && g_array_index(b->stage_first, uint32_t, n - 1) == b->len) {
        g_array_index(b->stage_number, uint32_t, n - 1) = stage;
        return;
    }
    g_array_append_val(b->stage_first, b->len);
    g_array_append_val(b->stage_number, stage);
}

void fennel_builder_set_position(FennelProgramBuilder *b, uint32_t task, uint32_t line,
                                 uint32_t col)
{
    ENSURE_COLUMN(b, line, 0);
    ENSURE_COLUMN(b, col, 0);
    b->line[task] = line;
    b->col[task] = col;
}

void fennel_builder_set_n_blocks(FennelProgramBuilder *b, uint32_t n_blocks)
{
    b->n_blocks = n_blocks;
}

void fennel_builder_set_blocks(FennelProgramBuilder *b, uint32_t task, uint32_t first,
                               uint32_t count)
{
    ENSURE_COLUMN(b, block_first, 0);
    ENSURE_COLUMN(b, block_count, 0);
    b->block_first[task] = first;
    b->block_count[task] = count;
}

static gboolean push_edge(uint64_t **edges, uint64_t *n, uint64_t *capacity, uint32_t pred,
                          uint32_t succ)
{
    if (G_UNLIKELY(*n == *capacity)) {
        uint64_t grown = *capacity < 1024 ? 1024 : *capacity + *capacity / 2;
        uint64_t *more = g_try_realloc_n(*edges, grown, sizeof **edges);
        if (more == NULL)
            return FALSE;
        *edges = more;
        *capacity = grown;
        fennel_huge_pages(more, grown * sizeof *more);
    }
    (*edges)[(*n)++] = (uint64_t)pred << 32 | succ;
    return TRUE;
}

void fennel_builder_add_edge(FennelProgramBuilder *b, uint32_t pred, uint32_t succ)
{
    if (G_UNLIKELY(b->n_edges + b->n_start >= b->edge_cap)) {
        b->extra_edges++;
        return;
    }
    if (!push_edge(&b->edges, &b->n_edges, &b->edges_capacity, pred, succ)) {
        out_of_memory(b, (b->edges_capacity + b->edges_capacity / 2) * sizeof *b->edges,
                      "the program's dependencies");
        b->extra_edges++;
    }
}

void fennel_builder_add_start_edge(FennelProgramBuilder *b, uint32_t pred, uint32_t succ)
{
    if (G_UNLIKELY(b->n_edges + b->n_start >= b->edge_cap)) {
        b->extra_edges++;
        return;
    }
    if (!push_edge(&b->start_edges, &b->n_start, &b->start_capacity, pred, succ)) {
        out_of_memory(b, (b->start_capacity + b->start_capacity / 2) * sizeof *b->start_edges,
                      "the program's dependencies");
        b->extra_edges++;
    }
}

/* A column at a time, into a fresh array of the tasks' count: the memory it takes beside
 * the builder is one column's (8 bytes a task at most). */
void fennel_builder_permute(FennelProgramBuilder *b, const uint32_t *to)
{
    g_return_if_fail(b->stage_first == NULL && b->extra_tasks == 0 && b->oom_bytes == 0);
    uint32_t n = b->len;
    /* Gathered into place (each column read where its tasks were, written in order):
     * writing each task to its new place, a store that misses at every task, took about
     * 1.6 times as long on a Chakra ring of 512 ranks (perf). */
    uint32_t *from = g_new(uint32_t, n ? n : 1);
    for (uint32_t t = 0; t < n; t++)
        from[to[t]] = t;
#define PERMUTE(name)                                                                              \
    if (b->name) {                                                                                 \
        __typeof__(b->name) moved = g_malloc_n(n ? n : 1, sizeof *b->name);                        \
        fennel_huge_pages(moved, (size_t)n * sizeof *b->name);                                     \
        for (uint32_t t = 0; t < n; t++)                                                           \
            moved[t] = b->name[from[t]];                                                           \
        g_free(b->name);                                                                           \
        b->name = moved;                                                                           \
    }
    FOR_EACH_COLUMN(PERMUTE)
#undef PERMUTE
    g_free(from);
    b->capacity = n ? n : 1;
    for (uint64_t e = 0; e < b->n_edges; e++)
        b->edges[e] = (uint64_t)to[b->edges[e] >> 32] << 32 | to[(uint32_t)b->edges[e]];
    for (uint64_t e = 0; e < b->n_start; e++)
        b->start_edges[e] =
            (uint64_t)to[b->start_edges[e] >> 32] << 32 | to[(uint32_t)b->start_edges[e]];
}

const char *fennel_program_task_name(const FennelProgram *p, uint32_t task, char buf[24])
{
    fennel_program_name_tasks(p);
    if (p->task_name && p->task_name[task])
        return p->task_name[task];
    g_snprintf(buf, 24, "t%u", task);
    return buf;
}

static int compare_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static void task_error(GError **error, const FennelProgram *p, uint32_t task, const char *format,
                       ...) G_GNUC_PRINTF(4, 5);

static void task_error(GError **error, const FennelProgram *p, uint32_t task, const char *format,
                       ...)
{
    va_list args;
    va_start(args, format);
    char *what = g_strdup_vprintf(format, args);
    va_end(args);
    fennel_error_at(error, p->source, p->line ? p->line[task] : 0, p->col ? p->col[task] : 0, "%s",
                    what);
    g_free(what);
}

/* Finds a cycle among the tasks Kahn's algorithm could not order (remaining > 0) by
 * walking predecessors, which every such task has among the remaining ones. */
static void report_cycle(const FennelProgram *p, const uint32_t *remaining, const uint32_t *preds,
                         const uint64_t *pred_start, GError **error)
{
    uint32_t start = 0;
    while (remaining[start] == 0)
        start++;
    uint32_t *seen_at = g_new(uint32_t, p->n_tasks);
    for (uint32_t i = 0; i < p->n_tasks; i++)
        seen_at[i] = UINT32_MAX;
    GArray *walk = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    uint32_t t = start;
    while (seen_at[t] == UINT32_MAX) {
        seen_at[t] = walk->len;
        g_array_append_val(walk, t);
        for (uint64_t e = pred_start[t]; e < pred_start[t + 1]; e++) {
            if (remaining[preds[e]] > 0) {
                t = preds[e];
                break;
            }
        }
    }
    /* The walk went backwards from successor to predecessor; the cycle forwards is
     * walk[first], walk[last], walk[last - 1], ..., walk[first + 1]. Print it from
     * its first task in program order. */
    uint32_t first = seen_at[t], n = walk->len - first;
    uint32_t *cycle = g_new(uint32_t, n);
    cycle[0] = g_array_index(walk, uint32_t, first);
    for (uint32_t k = 1; k < n; k++)
        cycle[k] = g_array_index(walk, uint32_t, walk->len - k);
    uint32_t lowest = 0;
    for (uint32_t k = 1; k < n; k++) {
        if (cycle[k] < cycle[lowest])
            lowest = k;
    }
    /* A long cycle is named by its first and last few tasks, so the message stays one
     * readable line (a cycle through a whole program would print every task). */
    GString *text = g_string_new(NULL);
    if (n > 12)
        g_string_printf(text, "cycle of %u tasks: ", n);
    else
        g_string_assign(text, "cycle: ");
    char buf[24];
    for (uint32_t k = 0; k <= n; k++) {
        if (n > 12 && k == 6) {
            g_string_append(text, "... -> ");
            k = n - 3;
        }
        g_string_append(text, fennel_program_task_name(p, cycle[(lowest + k) % n], buf));
        if (k < n)
            g_string_append(text, " -> ");
    }
    task_error(error, p, cycle[lowest], "%s", text->str);
    g_free(cycle);
    g_string_free(text, TRUE);
    g_array_free(walk, TRUE);
    g_free(seen_at);
}

/* Calls visit(succ) for both kinds of successor of t. */
#define FOR_EACH_SUCC(p, t, v, body)                                                               \
    do {                                                                                           \
        for (uint64_t e_ = (p)->succ_start[t]; e_ < (p)->succ_start[(t) + 1]; e_++) {              \
            uint32_t v = (p)->succ[e_];                                                            \
            body;                                                                                  \
        }                                                                                          \
        if ((p)->start_succ_start) {                                                               \
            for (uint64_t e_ = (p)->start_succ_start[t]; e_ < (p)->start_succ_start[(t) + 1];      \
                 e_++) {                                                                           \
                uint32_t v = (p)->start_succ[e_];                                                  \
                body;                                                                              \
            }                                                                                      \
        }                                                                                          \
    } while (0)

static gboolean check_duplicates(const FennelProgram *p, const FennelEdgeIndex *start,
                                 const uint32_t *list, uint32_t t, GError **error)
{
    char buf[24], buf2[24];
    for (uint64_t e = start[t]; e + 1 < start[t + 1]; e++) {
        if (list[e] == list[e + 1]) {
            task_error(error, p, list[e], "task '%s' depends on '%s' twice",
                       fennel_program_task_name(p, list[e], buf2),
                       fennel_program_task_name(p, t, buf));
            return FALSE;
        }
    }
    return TRUE;
}

/* Uses up in_degree: Kahn's algorithm counts it down in place (a copy was as much fresh
 * memory again, 4 bytes a task, and finish() frees it after this). Lists whose repeats were
 * merged (`merged`) have none left to look for. An acyclic program without `any` may come
 * with a bit per task instead (has_pred, in_degree NULL): whether it has a predecessor is
 * then all there is to check. */
static gboolean check_graph(FennelProgram *p, uint32_t *in_degree, const uint64_t *has_pred,
                            gboolean acyclic, gboolean merged, GError **error)
{
    char buf[24];
    for (uint32_t t = 0; t < p->n_tasks; t++) {
        gboolean is_start = p->type[t] == FENNEL_TASK_START;
        const uint32_t degree =
            in_degree ? in_degree[t] : (uint32_t)(has_pred[t / 64] >> (t % 64) & 1);
        if (G_LIKELY(is_start == (degree == 0) && fennel_program_any(p, t) <= degree))
            goto edges;
        const char *name = fennel_program_task_name(p, t, buf);
        if (is_start)
            task_error(error, p, t, "start task '%s' cannot have predecessors", name);
        else if (degree == 0)
            task_error(error, p, t, "task '%s' has no predecessors (only a start task may)", name);
        else
            task_error(error, p, t, "any: %u is outside 1..%u, the number of predecessors of '%s'",
                       fennel_program_any(p, t), degree, name);
        return FALSE;
    edges:
        if (!merged &&
            (!check_duplicates(p, p->succ_start, p->succ, t, error) ||
             (p->start_succ && !check_duplicates(p, p->start_succ_start, p->start_succ, t, error))))
            return FALSE;
    }
    if (acyclic)
        return TRUE;
    g_assert(in_degree != NULL);
    /* Kahn's algorithm; anything left over lies on or behind a cycle. */
    uint32_t *remaining = in_degree;
    uint32_t *stack = g_new(uint32_t, p->n_tasks ? p->n_tasks : 1);
    uint32_t top = 0, ordered = 0;
    for (uint32_t t = 0; t < p->n_tasks; t++) {
        if (remaining[t] == 0)
            stack[top++] = t;
    }
    while (top > 0) {
        uint32_t t = stack[--top];
        ordered++;
        FOR_EACH_SUCC(p, t, v, if (--remaining[v] == 0) stack[top++] = v);
    }
    gboolean ok = ordered == p->n_tasks;
    if (!ok) {
        /* Predecessor lists of both kinds, for the walk (error path only). */
        uint64_t *pred_start = g_new0(uint64_t, (size_t)p->n_tasks + 1);
        uint32_t *preds = g_new(uint32_t, p->n_edges ? p->n_edges : 1);
        for (uint32_t t = 0; t < p->n_tasks; t++)
            FOR_EACH_SUCC(p, t, v, pred_start[v + 1]++);
        for (uint32_t t = 0; t < p->n_tasks; t++)
            pred_start[t + 1] += pred_start[t];
        uint64_t *fill = g_memdup2(pred_start, sizeof(uint64_t) * (p->n_tasks + 1));
        for (uint32_t t = 0; t < p->n_tasks; t++)
            FOR_EACH_SUCC(p, t, v, preds[fill[v]++] = t);
        report_cycle(p, remaining, preds, pred_start, error);
        g_free(fill);
        g_free(preds);
        g_free(pred_start);
    }
    g_free(stack);
    return ok;
}

/* Sorts a short successor list in place (most have one to three entries). */
static void sort_list(uint32_t *list, uint64_t n)
{
    uint64_t sorted = 1;
    while (sorted < n && list[sorted - 1] <= list[sorted])
        sorted++;
    if (sorted >= n)
        return; /* as producers usually add them */
    if (n > 32) {
        qsort(list, n, sizeof(uint32_t), compare_u32);
        return;
    }
    for (uint64_t i = 1; i < n; i++) {
        uint32_t v = list[i];
        uint64_t j = i;
        for (; j > 0 && list[j - 1] > v; j--)
            list[j] = list[j - 1];
        list[j] = v;
    }
}

/* Builds sorted CSR lists from packed (pred << 32 | succ) edges, counts in-degrees (or,
 * with in_degree NULL, marks the tasks that have a predecessor in has_pred), and frees the
 * edges. Returns whether every edge goes from a task to a later one, which proves the graph
 * acyclic without a search (readers of files whose dependencies point backwards, and
 * generators, build them so). */
static gboolean build_csr(uint32_t n_tasks, uint64_t n, uint64_t *edges,
                          FennelEdgeIndex **start_out, uint32_t **list_out, uint32_t *in_degree,
                          uint64_t *has_pred)
{
    FennelEdgeIndex *start = g_new0(FennelEdgeIndex, (size_t)n_tasks + 1);
    fennel_huge_pages(start, ((size_t)n_tasks + 1) * sizeof *start);
    gboolean forward = TRUE;
    if (in_degree) {
        for (uint64_t e = 0; e < n; e++) {
            start[(edges[e] >> 32) + 1]++;
            in_degree[(uint32_t)edges[e]]++;
            forward &= (edges[e] >> 32) < (uint32_t)edges[e];
        }
    } else {
        for (uint64_t e = 0; e < n; e++) {
            const uint32_t succ = (uint32_t)edges[e];
            start[(edges[e] >> 32) + 1]++;
            has_pred[succ / 64] |= 1ull << (succ % 64);
            forward &= (edges[e] >> 32) < succ;
        }
    }
    for (uint32_t t = 0; t < n_tasks; t++)
        start[t + 1] += start[t];
    uint32_t *list = g_new(uint32_t, n ? n : 1);
    fennel_huge_pages(list, n * sizeof *list);
    /* Fill with a moving cursor per task, then restore the starts. */
    for (uint64_t e = 0; e < n; e++)
        list[start[edges[e] >> 32]++] = (uint32_t)edges[e];
    g_free(edges);
    for (uint32_t t = n_tasks; t > 0; t--)
        start[t] = start[t - 1];
    start[0] = 0;
    for (uint32_t t = 0; t < n_tasks; t++)
        sort_list(list + start[t], start[t + 1] - start[t]);
    *start_out = start;
    *list_out = list;
    return forward;
}

/* Removes repeated successors from sorted CSR lists in place (each counted once in
 * in_degree); returns the edges left. */
static uint64_t merge_duplicates(uint32_t n_tasks, FennelEdgeIndex *start, uint32_t *list,
                                 uint32_t *in_degree)
{
    uint64_t kept = 0;
    for (uint32_t t = 0; t < n_tasks; t++) {
        uint64_t from = start[t], to = start[t + 1];
        start[t] = kept;
        for (uint64_t e = from; e < to; e++) {
            if (e > from && list[e] == list[e - 1]) {
                in_degree[list[e]]--;
                continue;
            }
            list[kept++] = list[e];
        }
    }
    start[n_tasks] = kept;
    return kept;
}

/* A load-reduce's or multicast's group: size ranks from first, every stride-th. */
static gboolean switch_task(const FennelProgram *p, uint32_t t)
{
    return p->type[t] == FENNEL_TASK_LOAD_REDUCE || p->type[t] == FENNEL_TASK_MULTICAST;
}

static gboolean check_ranks(FennelProgram *p, uint32_t n_ranks, GError **error)
{
    uint32_t highest = 0;
    char buf[24];
    for (uint32_t t = 0; t < p->n_tasks; t++) {
        highest = MAX(highest, p->rank[t]);
        if (p->peer[t] != FENNEL_NO_RANK && p->peer[t] != FENNEL_ANY)
            highest = MAX(highest, p->peer[t]);
        if (switch_task(p, t)) {
            /* The issuer is one of its group, whose ranks are numbers. */
            const uint32_t size = p->tag ? p->tag[t] : 0;
            const uint64_t stride = p->request ? (uint64_t)MAX(p->request[t], 1) : 1;
            if (size == 0 || (uint64_t)p->peer[t] + (size - 1) * stride >= FENNEL_ANY ||
                !fennel_program_in_group(p, t, p->rank[t])) {
                if (stride > 1)
                    task_error(error, p, t,
                               "%s '%s': its group (%u ranks from %u, every %" G_GUINT64_FORMAT
                               "th) must hold its rank %u",
                               fennel_task_type_name(p->type[t]),
                               fennel_program_task_name(p, t, buf), size, p->peer[t], stride,
                               p->rank[t]);
                else
                    task_error(error, p, t,
                               "%s '%s': its group (%u ranks from %u) must hold its rank %u",
                               fennel_task_type_name(p->type[t]),
                               fennel_program_task_name(p, t, buf), size, p->peer[t], p->rank[t]);
                return FALSE;
            }
            highest = MAX(highest, fennel_program_group_last(p, t));
        }
    }
    p->n_ranks = n_ranks ? n_ranks : (p->n_tasks ? highest + 1 : 1);
    for (uint32_t t = 0; t < p->n_tasks; t++) {
        uint32_t r = p->rank[t] >= p->n_ranks ? p->rank[t]
                     : switch_task(p, t)      ? fennel_program_group_last(p, t)
                                              : p->peer[t];
        if (r != FENNEL_NO_RANK && r != FENNEL_ANY && r >= p->n_ranks) {
            task_error(error, p, t, "rank %u of task '%s' is outside 0..%u", r,
                       fennel_program_task_name(p, t, buf), p->n_ranks - 1);
            return FALSE;
        }
        if (p->pin && p->pin[t] != FENNEL_NO_RANK && p->pin[t] >= p->processes) {
            task_error(error, p, t, "slot %u of task '%s' is outside 0..%u (processes: %u)",
                       p->pin[t], fennel_program_task_name(p, t, buf), p->processes - 1,
                       p->processes);
            return FALSE;
        }
    }
    return TRUE;
}

/* Block ranges lie within the vector (a range may wrap, but not cover it twice). */
static gboolean check_blocks(FennelProgram *p, GError **error)
{
    char buf[24];
    for (uint32_t t = 0; p->block_first && t < p->n_tasks; t++) {
        if (p->block_count[t] > 0 &&
            (p->block_first[t] >= p->n_blocks || p->block_count[t] > p->n_blocks)) {
            task_error(error, p, t, "task '%s' moves blocks %u+%u, outside the vector's %u blocks",
                       fennel_program_task_name(p, t, buf), p->block_first[t], p->block_count[t],
                       p->n_blocks);
            return FALSE;
        }
    }
    return TRUE;
}

/* Gives an array back to the allocator beyond `n` elements. */
#define SHRINK(ptr, n) ((ptr) ? g_realloc_n((ptr), (n) ? (n) : 1, sizeof *(ptr)) : NULL)

/* A builder that stopped storing (the size guard): the size asked for, as an error. */
static FennelProgram *too_big(FennelProgramBuilder *b, const char *source, uint32_t n_ranks,
                              uint32_t processes, GError **error)
{
    uint64_t tasks = b->len + b->extra_tasks, edges = b->n_edges + b->n_start + b->extra_edges;
    if (b->oom_bytes)
        fennel_out_of_memory(error, &b->limits, b->oom_bytes, b->oom_what);
    else if (fennel_check_size(&b->limits, tasks, edges, n_ranks, processes, error))
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                    "%" G_GUINT64_FORMAT " tasks and %" G_GUINT64_FORMAT
                    " edges asked for, more than fit in memory",
                    tasks, edges);
    fennel_error_prefix_at(error, source, 0, 0);
    fennel_builder_free(b);
    return NULL;
}

/* Marks each send that is the only one from its rank to its peer (FENNEL_TASK_SOLE), for
 * the ranks whose tasks form one run in program order (readers that read rank by rank, as
 * GOAL's); a rank added in several runs keeps its sends unmarked. Linear: the peers of a
 * run's sends are counted in a small table of the run's own. */
static void mark_sole_sends(FennelProgram *p)
{
    const uint32_t n = p->n_tasks;
    gboolean any = FALSE;
    for (uint32_t t = 0; t < n; t++) {
        p->flags[t] &= (uint8_t)~FENNEL_TASK_SOLE;
        any |= p->type[t] == FENNEL_TASK_SEND;
    }
    if (!any)
        return;
    uint8_t *runs = g_new0(uint8_t, p->n_ranks);
    for (uint32_t t = 0; t < n; t++) {
        if ((t == 0 || p->rank[t] != p->rank[t - 1]) && runs[p->rank[t]] < 2)
            runs[p->rank[t]]++;
    }
    uint64_t *table = NULL; /* peer << 32 | count, or 0 (counts start at 1) */
    uint32_t capacity = 0;
    for (uint32_t a = 0, z; a < n; a = z) {
        uint32_t sends = 0;
        for (z = a; z < n && p->rank[z] == p->rank[a]; z++)
            sends += p->type[z] == FENNEL_TASK_SEND;
        if (sends == 0 || runs[p->rank[a]] != 1)
            continue;
        uint32_t size = 16;
        while (size < 2 * sends)
            size *= 2;
        if (size > capacity) {
            g_free(table);
            table = g_new(uint64_t, size);
            capacity = size;
        }
        memset(table, 0, size * sizeof *table);
        const uint32_t mask = size - 1;
        for (int pass = 0; pass < 2; pass++) {
            for (uint32_t t = a; t < z; t++) {
                if (p->type[t] != FENNEL_TASK_SEND)
                    continue;
                uint32_t peer = p->peer[t], i = (peer * 0x9e3779b1u) & mask;
                while (table[i] != 0 && table[i] >> 32 != peer)
                    i = (i + 1) & mask;
                if (pass == 0)
                    table[i] = table[i] ? table[i] + 1 : (uint64_t)peer << 32 | 1;
                else if ((table[i] & UINT32_MAX) == 1)
                    p->flags[t] |= FENNEL_TASK_SOLE;
            }
        }
    }
    g_free(table);
    g_free(runs);
}

FennelProgram *fennel_builder_finish(FennelProgramBuilder *b, const char *source, uint32_t n_ranks,
                                     uint32_t processes, GError **error)
{
    if (b->len > b->task_cap || b->extra_edges > 0 || b->oom_bytes)
        return too_big(b, source, n_ranks, processes, error);
    FennelProgram *p = g_new0(FennelProgram, 1);
    uint32_t n = b->len;
    p->n_tasks = n;
    p->n_edges = b->n_edges + b->n_start;
    p->processes = processes ? processes : 1;
    p->source = g_strdup(source);
    p->root = FENNEL_NO_RANK;
    p->type = SHRINK(b->type, n);
    p->flags = SHRINK(b->flags, n);
    p->rank = SHRINK(b->rank, n);
    p->peer = SHRINK(b->peer, n);
    p->amount = SHRINK(b->amount, n);
    p->request = SHRINK(b->request, n);
    p->tag = SHRINK(b->tag, n);
    p->pin = SHRINK(b->pin, n);
    p->line = SHRINK(b->line, n);
    p->col = SHRINK(b->col, n);
    p->task_name = SHRINK(b->task_name, n);
    if (b->stage_first) {
        p->n_stage_marks = b->stage_first->len;
        p->stage_first = (uint32_t *)g_array_free(b->stage_first, FALSE);
        p->stage_number = (uint32_t *)g_array_free(b->stage_number, FALSE);
        b->stage_first = b->stage_number = NULL;
    }
    p->names = b->names;
    p->name_from_text = b->namer;
    p->text = b->text;
    b->text = NULL;
    if (b->block_first) {
        p->n_blocks = b->n_blocks;
        p->block_first = SHRINK(b->block_first, n);
        p->block_count = SHRINK(b->block_count, n);
    }
    p->any = SHRINK(b->any, n);
    if (b->n_edges > UINT32_MAX || b->n_start > UINT32_MAX) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                    "program has %" G_GUINT64_FORMAT " dependencies, more than the %u a program "
                    "may have",
                    MAX(b->n_edges, b->n_start), UINT32_MAX);
        g_free(b->edges);
        g_free(b->start_edges);
        g_free(b);
        fennel_program_free(p);
        return NULL;
    }
    gboolean acyclic = b->acyclic;
    FennelLimits limits = b->limits;
    /* A program declared acyclic, without `any` and without repeats to merge needs no
     * in-degrees, only a bit per task for the check of its starts: 4 bytes a task less of
     * fresh memory, whose page zeroing is as dear as counting them. */
    uint32_t *in_degree = NULL;
    uint64_t *has_pred = NULL;
    if (acyclic && b->any == NULL && !b->merge_duplicates) {
        has_pred = g_new0(uint64_t, (size_t)n / 64 + 1);
    } else {
        in_degree = g_new0(uint32_t, (size_t)n + 1);
        fennel_huge_pages(in_degree, ((size_t)n + 1) * sizeof *in_degree);
    }
    gboolean forward =
        build_csr(n, b->n_edges, b->edges, &p->succ_start, &p->succ, in_degree, has_pred);
    if (b->n_start > 0)
        forward = build_csr(n, b->n_start, b->start_edges, &p->start_succ_start, &p->start_succ,
                            in_degree, has_pred) &&
                  forward;
    else
        g_free(b->start_edges);
    acyclic = acyclic || forward;
    gboolean merged = b->merge_duplicates;
    if (merged) {
        uint64_t edges = merge_duplicates(n, p->succ_start, p->succ, in_degree);
        if (p->start_succ)
            edges += merge_duplicates(n, p->start_succ_start, p->start_succ, in_degree);
        p->n_edges = edges;
    }
    g_free(b);

    gboolean ok = check_ranks(p, n_ranks, error);
    /* The whole run's memory, now that the rank count is known (capacity.h). */
    if (ok &&
        !fennel_check_size(&limits, p->n_tasks, p->n_edges, p->n_ranks, p->processes, error)) {
        fennel_error_prefix_at(error, p->source, 0, 0);
        ok = FALSE;
    }
    ok =
        ok && check_blocks(p, error) && check_graph(p, in_degree, has_pred, acyclic, merged, error);
    g_free(in_degree);
    g_free(has_pred);
    if (!ok) {
        fennel_program_free(p);
        return NULL;
    }
    mark_sole_sends(p);
    return p;
}

void fennel_program_free(FennelProgram *p)
{
    if (p == NULL)
        return;
    void *arrays[] = {p->type,        p->flags,
                      p->rank,        p->peer,
                      p->amount,      p->request,
                      p->tag,         p->pin,
                      p->any,         p->succ_start,
                      p->succ,        p->start_succ,
                      p->name,        p->start_succ_start,
                      p->task_name,   p->source,
                      p->line,        p->col,
                      p->block_first, p->block_count,
                      p->collective,  p->schedule,
                      p->stage_first, p->stage_number};
    /* Arrays inside the backing bytes belong to them. */
    gsize size = 0;
    const char *base = p->backing ? g_bytes_get_data(p->backing, &size) : NULL;
    for (size_t i = 0; i < G_N_ELEMENTS(arrays); i++) {
        const char *a = arrays[i];
        if (base == NULL || a < base || a >= base + size)
            g_free(arrays[i]);
    }
    if (p->names)
        g_string_chunk_free(p->names);
    if (p->backing)
        g_bytes_unref(p->backing);
    if (p->text)
        g_bytes_unref(p->text);
    g_free(p);
}

uint64_t fennel_program_bytes(const FennelProgram *p)
{
    uint64_t n = p->n_tasks, b = 0;
    b += n * (sizeof *p->type + sizeof *p->flags + sizeof *p->rank + sizeof *p->peer +
              sizeof *p->amount);
    if (p->any)
        b += n * sizeof *p->any;
    b += (n + 1) * sizeof *p->succ_start + p->succ_start[n] * sizeof *p->succ;
    if (p->request)
        b += n * sizeof *p->request;
    if (p->tag)
        b += n * sizeof *p->tag;
    if (p->pin)
        b += n * sizeof *p->pin;
    if (p->start_succ)
        b += (n + 1) * sizeof *p->start_succ_start + p->start_succ_start[n] * sizeof *p->start_succ;
    if (p->block_first)
        b += n * (sizeof *p->block_first + sizeof *p->block_count);
    if (p->task_name)
        b += n * sizeof *p->task_name;
    b += (uint64_t)p->n_stage_marks * (sizeof *p->stage_first + sizeof *p->stage_number);
    if (p->line)
        b += n * (sizeof *p->line + sizeof *p->col);
    return b;
}

uint32_t *fennel_program_in_degrees(const FennelProgram *p)
{
    uint32_t *in_degree = g_new0(uint32_t, (size_t)p->n_tasks + 1);
    fennel_huge_pages(in_degree, ((size_t)p->n_tasks + 1) * sizeof *in_degree);
    for (uint64_t e = 0; e < p->succ_start[p->n_tasks]; e++)
        in_degree[p->succ[e]]++;
    for (uint64_t e = 0; p->start_succ && e < p->start_succ_start[p->n_tasks]; e++)
        in_degree[p->start_succ[e]]++;
    return in_degree;
}

void fennel_program_topological_order(const FennelProgram *p, uint32_t *order)
{
    uint32_t *remaining = fennel_program_in_degrees(p);
    uint32_t head = 0, tail = 0;
    for (uint32_t t = 0; t < p->n_tasks; t++) {
        if (remaining[t] == 0)
            order[tail++] = t;
    }
    while (head < tail) {
        uint32_t t = order[head++];
        FOR_EACH_SUCC(p, t, v, if (--remaining[v] == 0) order[tail++] = v);
    }
    g_free(remaining);
}

void fennel_program_stats(const FennelProgram *p, FennelProgramStats *s)
{
    memset(s, 0, sizeof *s);
    for (uint32_t t = 0; t < p->n_tasks; t++) {
        s->by_type[p->type[t]]++;
        if (p->type[t] == FENNEL_TASK_PUT || p->type[t] == FENNEL_TASK_SEND) {
            s->messages += 1;
            s->bytes += (uint64_t)p->amount[t];
        } else if (p->type[t] == FENNEL_TASK_GET) {
            s->messages += 2;
            s->bytes += (uint64_t)p->amount[t] + (uint64_t)(p->request ? p->request[t] : 0);
        } else if (switch_task(p, t)) {
            /* One operation of the switch: the group's size in bytes on each side of it. */
            s->messages += 1;
            s->bytes += (uint64_t)p->amount[t];
        }
    }
    /* Longest chain in tasks: dynamic programming over a topological order. When every
     * edge goes forward, as in nearly every file and generated program, program order is
     * one, and walks memory in order: a breadth-first order jumps between far tasks, a
     * cache miss each in programs of millions. */
    gboolean forward = TRUE;
    for (uint32_t t = 0; t < p->n_tasks && forward; t++)
        FOR_EACH_SUCC(p, t, v, forward = forward && v > t);
    uint32_t *order = forward ? NULL : g_new(uint32_t, p->n_tasks + 1);
    uint32_t *depth = g_new0(uint32_t, p->n_tasks + 1);
    if (order)
        fennel_program_topological_order(p, order);
    for (uint32_t i = 0; i < p->n_tasks; i++) {
        uint32_t t = order ? order[i] : i;
        depth[t] += 1;
        s->critical_path_tasks = MAX(s->critical_path_tasks, depth[t]);
        FOR_EACH_SUCC(p, t, v, depth[v] = MAX(depth[v], depth[t]));
    }
    g_free(depth);
    g_free(order);
}
