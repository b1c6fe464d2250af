#include "program.h"

#include "errors.h"

#include <string.h>

struct FennelProgramBuilder {
    GArray *type, *flags, *rank, *peer, *amount, *request, *tag, *pin, *any, *line, *col;
    GPtrArray *task_name;
    GStringChunk *names;
    GArray *edge_pred, *edge_succ, *start_pred, *start_succ;
    gboolean has_request, has_tag, has_pin, has_names, has_positions;
    GArray *block_first, *block_count; /* NULL until a task is marked */
    uint32_t n_blocks;
};

static const char *const type_names[FENNEL_TASK_N_TYPES] = {
    "start", "proxy", "sleep", "compute", "put", "get", "send", "recv",
};

const char *fennel_task_type_name(FennelTaskType type)
{
    return type < FENNEL_TASK_N_TYPES ? type_names[type] : "unknown";
}

FennelProgramBuilder *fennel_builder_new(void)
{
    FennelProgramBuilder *b = g_new0(FennelProgramBuilder, 1);
    b->type = g_array_new(FALSE, TRUE, sizeof(uint8_t));
    b->flags = g_array_new(FALSE, TRUE, sizeof(uint8_t));
    b->rank = g_array_new(FALSE, TRUE, sizeof(uint32_t));
    b->peer = g_array_new(FALSE, TRUE, sizeof(uint32_t));
    b->amount = g_array_new(FALSE, TRUE, sizeof(int64_t));
    b->request = g_array_new(FALSE, TRUE, sizeof(int64_t));
    b->tag = g_array_new(FALSE, TRUE, sizeof(uint32_t));
    b->pin = g_array_new(FALSE, TRUE, sizeof(uint32_t));
    b->any = g_array_new(FALSE, TRUE, sizeof(uint32_t));
    b->line = g_array_new(FALSE, TRUE, sizeof(uint32_t));
    b->col = g_array_new(FALSE, TRUE, sizeof(uint32_t));
    b->task_name = g_ptr_array_new();
    b->names = g_string_chunk_new(4096);
    b->edge_pred = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    b->edge_succ = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    b->start_pred = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    b->start_succ = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    return b;
}

void fennel_builder_free(FennelProgramBuilder *b)
{
    if (b == NULL)
        return;
    GArray *arrays[] = {b->type, b->flags, b->rank, b->peer,      b->amount,   b->request,
                        b->any,  b->line,  b->col,  b->edge_pred, b->edge_succ};
    for (size_t i = 0; i < G_N_ELEMENTS(arrays); i++)
        g_array_free(arrays[i], TRUE);
    g_ptr_array_free(b->task_name, TRUE);
    if (b->names)
        g_string_chunk_free(b->names);
    if (b->block_first) {
        g_array_free(b->block_first, TRUE);
        g_array_free(b->block_count, TRUE);
    }
    g_free(b);
}

uint32_t fennel_builder_n_tasks(const FennelProgramBuilder *b)
{
    return b->type->len;
}

uint32_t fennel_builder_rank(const FennelProgramBuilder *b, uint32_t task)
{
    return g_array_index(b->rank, uint32_t, task);
}

uint32_t fennel_builder_add(FennelProgramBuilder *b, FennelTaskType type, uint32_t rank)
{
    uint32_t index = b->type->len;
    uint8_t t = (uint8_t)type, zero8 = 0;
    uint32_t zero32 = 0, no_rank = FENNEL_NO_RANK;
    int64_t zero64 = 0;
    g_array_append_val(b->type, t);
    g_array_append_val(b->flags, zero8);
    g_array_append_val(b->rank, rank);
    g_array_append_val(b->peer, no_rank);
    g_array_append_val(b->amount, zero64);
    g_array_append_val(b->request, zero64);
    g_array_append_val(b->tag, zero32);
    g_array_append_val(b->pin, no_rank);
    g_array_append_val(b->any, zero32);
    g_array_append_val(b->line, zero32);
    g_array_append_val(b->col, zero32);
    g_ptr_array_add(b->task_name, NULL);
    if (b->block_first) {
        g_array_append_val(b->block_first, zero32);
        g_array_append_val(b->block_count, zero32);
    }
    return index;
}

void fennel_builder_set_amount(FennelProgramBuilder *b, uint32_t task, int64_t amount)
{
    g_array_index(b->amount, int64_t, task) = amount;
}

void fennel_builder_set_peer(FennelProgramBuilder *b, uint32_t task, uint32_t peer)
{
    g_array_index(b->peer, uint32_t, task) = peer;
}

void fennel_builder_set_request(FennelProgramBuilder *b, uint32_t task, int64_t bytes)
{
    g_array_index(b->request, int64_t, task) = bytes;
    b->has_request = TRUE;
}

void fennel_builder_set_tag(FennelProgramBuilder *b, uint32_t task, uint32_t tag)
{
    g_array_index(b->tag, uint32_t, task) = tag;
    b->has_tag = TRUE;
}

void fennel_builder_set_pin(FennelProgramBuilder *b, uint32_t task, uint32_t slot)
{
    g_array_index(b->pin, uint32_t, task) = slot;
    b->has_pin = TRUE;
}

void fennel_builder_set_flags(FennelProgramBuilder *b, uint32_t task, unsigned flags)
{
    g_array_index(b->flags, uint8_t, task) = (uint8_t)flags;
}

void fennel_builder_set_any(FennelProgramBuilder *b, uint32_t task, uint32_t k)
{
    g_array_index(b->any, uint32_t, task) = k;
}

void fennel_builder_set_name(FennelProgramBuilder *b, uint32_t task, const char *name)
{
    g_ptr_array_index(b->task_name, task) = g_string_chunk_insert(b->names, name);
    b->has_names = TRUE;
}

void fennel_builder_set_position(FennelProgramBuilder *b, uint32_t task, uint32_t line,
                                 uint32_t col)
{
    g_array_index(b->line, uint32_t, task) = line;
    g_array_index(b->col, uint32_t, task) = col;
    b->has_positions = TRUE;
}

void fennel_builder_set_n_blocks(FennelProgramBuilder *b, uint32_t n_blocks)
{
    b->n_blocks = n_blocks;
}

void fennel_builder_set_blocks(FennelProgramBuilder *b, uint32_t task, uint32_t first,
                               uint32_t count)
{
    if (b->block_first == NULL) {
        b->block_first = g_array_new(FALSE, TRUE, sizeof(uint32_t));
        b->block_count = g_array_new(FALSE, TRUE, sizeof(uint32_t));
        g_array_set_size(b->block_first, b->type->len);
        g_array_set_size(b->block_count, b->type->len);
    }
    g_array_index(b->block_first, uint32_t, task) = first;
    g_array_index(b->block_count, uint32_t, task) = count;
}

void fennel_builder_add_edge(FennelProgramBuilder *b, uint32_t pred, uint32_t succ)
{
    g_array_append_val(b->edge_pred, pred);
    g_array_append_val(b->edge_succ, succ);
}

void fennel_builder_add_start_edge(FennelProgramBuilder *b, uint32_t pred, uint32_t succ)
{
    g_array_append_val(b->start_pred, pred);
    g_array_append_val(b->start_succ, succ);
}

const char *fennel_program_task_name(const FennelProgram *p, uint32_t task, char buf[24])
{
    if (p->task_name && p->task_name[task])
        return p->task_name[task];
    g_snprintf(buf, 24, "t%u", task);
    return buf;
}

/* Steals a GArray's storage. */
static void *steal(GArray *a)
{
    return g_array_free(a, FALSE);
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
    GString *text = g_string_new("cycle: ");
    char buf[24];
    for (uint32_t k = 0; k <= n; k++) {
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

static gboolean check_duplicates(const FennelProgram *p, const uint64_t *start,
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

static gboolean check_graph(FennelProgram *p, const uint32_t *edge_pred, const uint32_t *edge_succ,
                            uint64_t n_all_edges, GError **error)
{
    char buf[24];
    for (uint32_t t = 0; t < p->n_tasks; t++) {
        const char *name = fennel_program_task_name(p, t, buf);
        if (p->type[t] == FENNEL_TASK_START && p->in_degree[t] > 0) {
            task_error(error, p, t, "start task '%s' cannot have predecessors", name);
            return FALSE;
        }
        if (p->type[t] != FENNEL_TASK_START && p->in_degree[t] == 0) {
            task_error(error, p, t, "task '%s' has no predecessors (only a start task may)", name);
            return FALSE;
        }
        if (p->any[t] > p->in_degree[t]) {
            task_error(error, p, t, "any: %u is outside 1..%u, the number of predecessors of '%s'",
                       p->any[t], p->in_degree[t], name);
            return FALSE;
        }
        if (!check_duplicates(p, p->succ_start, p->succ, t, error) ||
            (p->start_succ && !check_duplicates(p, p->start_succ_start, p->start_succ, t, error)))
            return FALSE;
    }
    /* Kahn's algorithm; anything left over lies on or behind a cycle. */
    uint32_t *remaining = g_memdup2(p->in_degree, sizeof(uint32_t) * (p->n_tasks + 1));
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
        uint64_t *pred_start = g_new0(uint64_t, p->n_tasks + 1);
        uint32_t *preds = g_new(uint32_t, n_all_edges ? n_all_edges : 1);
        for (uint64_t e = 0; e < n_all_edges; e++)
            pred_start[edge_succ[e] + 1]++;
        for (uint32_t t = 0; t < p->n_tasks; t++)
            pred_start[t + 1] += pred_start[t];
        uint64_t *fill = g_memdup2(pred_start, sizeof(uint64_t) * (p->n_tasks + 1));
        for (uint64_t e = 0; e < n_all_edges; e++)
            preds[fill[edge_succ[e]]++] = edge_pred[e];
        report_cycle(p, remaining, preds, pred_start, error);
        g_free(fill);
        g_free(preds);
        g_free(pred_start);
    }
    g_free(stack);
    g_free(remaining);
    return ok;
}

/* Builds sorted CSR lists from (pred, succ) pairs and counts in-degrees. */
static void build_csr(uint32_t n_tasks, uint64_t n, const uint32_t *pred, const uint32_t *succ,
                      uint64_t **start_out, uint32_t **list_out, uint32_t *in_degree)
{
    uint64_t *start = g_new0(uint64_t, n_tasks + 1);
    uint32_t *list = g_new(uint32_t, n ? n : 1);
    for (uint64_t e = 0; e < n; e++) {
        start[pred[e] + 1]++;
        in_degree[succ[e]]++;
    }
    for (uint32_t t = 0; t < n_tasks; t++)
        start[t + 1] += start[t];
    uint64_t *fill = g_memdup2(start, sizeof(uint64_t) * (n_tasks + 1));
    for (uint64_t e = 0; e < n; e++)
        list[fill[pred[e]]++] = succ[e];
    g_free(fill);
    for (uint32_t t = 0; t < n_tasks; t++) {
        uint64_t k = start[t + 1] - start[t];
        if (k > 1)
            qsort(list + start[t], k, sizeof(uint32_t), compare_u32);
    }
    *start_out = start;
    *list_out = list;
}

static gboolean check_ranks(FennelProgram *p, uint32_t n_ranks, GError **error)
{
    uint32_t highest = 0;
    for (uint32_t t = 0; t < p->n_tasks; t++) {
        highest = MAX(highest, p->rank[t]);
        if (p->peer[t] != FENNEL_NO_RANK && p->peer[t] != FENNEL_ANY)
            highest = MAX(highest, p->peer[t]);
    }
    p->n_ranks = n_ranks ? n_ranks : (p->n_tasks ? highest + 1 : 1);
    char buf[24];
    for (uint32_t t = 0; t < p->n_tasks; t++) {
        uint32_t r = p->rank[t] >= p->n_ranks ? p->rank[t] : p->peer[t];
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

/* Moves an optional array out of the builder, or frees it. */
static void *steal_if(GArray *a, gboolean keep)
{
    if (keep)
        return steal(a);
    g_array_free(a, TRUE);
    return NULL;
}

FennelProgram *fennel_builder_finish(FennelProgramBuilder *b, const char *source, uint32_t n_ranks,
                                     uint32_t processes, GError **error)
{
    FennelProgram *p = g_new0(FennelProgram, 1);
    p->n_tasks = b->type->len;
    p->n_edges = b->edge_pred->len + b->start_pred->len;
    p->processes = processes ? processes : 1;
    p->source = g_strdup(source);
    p->type = steal(b->type);
    p->flags = steal(b->flags);
    p->rank = steal(b->rank);
    p->peer = steal(b->peer);
    p->amount = steal(b->amount);
    p->any = steal(b->any);
    p->request = steal_if(b->request, b->has_request);
    p->tag = steal_if(b->tag, b->has_tag);
    p->pin = steal_if(b->pin, b->has_pin);
    p->line = steal_if(b->line, b->has_positions);
    p->col = steal_if(b->col, b->has_positions);
    if (b->has_names) {
        p->task_name = (char **)g_ptr_array_free(b->task_name, FALSE);
        p->names = b->names;
    } else {
        g_ptr_array_free(b->task_name, TRUE);
        g_string_chunk_free(b->names);
    }
    /* All edges, regular ones first, for the cycle report; then the two CSR lists. */
    uint64_t n_regular = b->edge_pred->len, n_start = b->start_pred->len;
    g_array_append_vals(b->edge_pred, b->start_pred->data, (guint)n_start);
    g_array_append_vals(b->edge_succ, b->start_succ->data, (guint)n_start);
    g_array_free(b->start_pred, TRUE);
    g_array_free(b->start_succ, TRUE);
    uint32_t *edge_pred = steal(b->edge_pred), *edge_succ = steal(b->edge_succ);
    if (b->block_first) {
        p->n_blocks = b->n_blocks;
        p->block_first = steal(b->block_first);
        p->block_count = steal(b->block_count);
    }
    g_free(b);

    p->in_degree = g_new0(uint32_t, p->n_tasks + 1);
    build_csr(p->n_tasks, n_regular, edge_pred, edge_succ, &p->succ_start, &p->succ, p->in_degree);
    if (n_start > 0)
        build_csr(p->n_tasks, n_start, edge_pred + n_regular, edge_succ + n_regular,
                  &p->start_succ_start, &p->start_succ, p->in_degree);

    gboolean ok = check_ranks(p, n_ranks, error) && check_blocks(p, error) &&
                  check_graph(p, edge_pred, edge_succ, n_regular + n_start, error);
    g_free(edge_pred);
    g_free(edge_succ);
    if (!ok) {
        fennel_program_free(p);
        return NULL;
    }
    return p;
}

void fennel_program_free(FennelProgram *p)
{
    if (p == NULL)
        return;
    void *arrays[] = {p->type,       p->flags,  p->rank,       p->peer, p->amount,
                      p->request,    p->tag,    p->pin,        p->any,  p->in_degree,
                      p->succ_start, p->succ,   p->start_succ, p->name, p->start_succ_start,
                      p->task_name,  p->source, p->line,       p->col,  p->block_first,
                      p->block_count};
    for (size_t i = 0; i < G_N_ELEMENTS(arrays); i++)
        g_free(arrays[i]);
    if (p->names)
        g_string_chunk_free(p->names);
    g_free(p);
}

uint64_t fennel_program_bytes(const FennelProgram *p)
{
    uint64_t n = p->n_tasks, b = 0;
    b += n * (sizeof *p->type + sizeof *p->flags + sizeof *p->rank + sizeof *p->peer +
              sizeof *p->amount + sizeof *p->any + sizeof *p->in_degree);
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
    if (p->line)
        b += n * (sizeof *p->line + sizeof *p->col);
    return b;
}

void fennel_program_topological_order(const FennelProgram *p, uint32_t *order)
{
    uint32_t *remaining = g_memdup2(p->in_degree, sizeof(uint32_t) * (p->n_tasks + 1));
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
        }
    }
    /* Longest chain in tasks: dynamic programming over a topological order. */
    uint32_t *order = g_new(uint32_t, p->n_tasks + 1);
    uint32_t *depth = g_new0(uint32_t, p->n_tasks + 1);
    fennel_program_topological_order(p, order);
    for (uint32_t i = 0; i < p->n_tasks; i++) {
        uint32_t t = order[i];
        depth[t] += 1;
        s->critical_path_tasks = MAX(s->critical_path_tasks, depth[t]);
        FOR_EACH_SUCC(p, t, v, depth[v] = MAX(depth[v], depth[t]));
    }
    g_free(depth);
    g_free(order);
}
