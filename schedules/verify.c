/* The collective data-flow checker (see verify.h for the rules). Data is kept per task,
 * not per rank, because a put carries its sender's data as it was when the put
 * started, whatever the rank did afterwards. A rank's data is a State: one value id
 * per block, reference-counted and shared by the tasks that do not change it (puts,
 * proxies without incoming data), and updated in place by the last task that reads it.
 * A put that moves a few blocks keeps a copy of just those values. Each task's record
 * is freed once its last successor has read it, so memory follows the DAG's width, not
 * its size. */
#include "verify.h"

#include "capacity.h"
#include "errors.h"
#include "verify_private.h"

#include <string.h>

static const char *const collective_names[FENNEL_COLLECTIVE_N] = {
    "allreduce", "reduce", "bcast",   "allgather", "reduce-scatter",
    "scatter",   "gather", "barrier", "alltoall",
};

const char *fennel_collective_name(FennelCollective c)
{
    return c < FENNEL_COLLECTIVE_N ? collective_names[c] : "?";
}

gboolean fennel_collective_parse(const char *name, FennelCollective *c)
{
    for (int i = 0; i < FENNEL_COLLECTIVE_N; i++) {
        if (strcmp(name, collective_names[i]) == 0) {
            *c = (FennelCollective)i;
            return TRUE;
        }
    }
    return FALSE;
}

const char *fennel_collective_names(void)
{
    return "allreduce, reduce, bcast, allgather, reduce-scatter, scatter, gather, barrier, "
           "alltoall";
}

gboolean fennel_collective_has_root(FennelCollective c)
{
    return c == FENNEL_COLLECTIVE_REDUCE || c == FENNEL_COLLECTIVE_BCAST ||
           c == FENNEL_COLLECTIVE_SCATTER || c == FENNEL_COLLECTIVE_GATHER;
}

/* The collectives whose block b belongs to rank b. */
static gboolean block_per_rank(FennelCollective c)
{
    return c == FENNEL_COLLECTIVE_ALLGATHER || c == FENNEL_COLLECTIVE_REDUCE_SCATTER ||
           c == FENNEL_COLLECTIVE_SCATTER || c == FENNEL_COLLECTIVE_GATHER ||
           c == FENNEL_COLLECTIVE_BARRIER;
}

/* Setup */

typedef struct {
    uint32_t src, dst, tag, is_recv, task;
} Message;

static int compare_message(const void *a, const void *b)
{
    const Message *x = a, *y = b;
    const uint32_t kx[5] = {x->src, x->dst, x->tag, x->is_recv, x->task},
                   ky[5] = {y->src, y->dst, y->tag, y->is_recv, y->task};
    for (int i = 0; i < 5; i++) {
        if (kx[i] != ky[i])
            return kx[i] < ky[i] ? -1 : 1;
    }
    return 0;
}

/* Pairs receives with sends: the k-th send from s to d with tag g (in program order)
 * with the k-th receive at d from s with tag g. */
static gboolean match_messages(Checker *k, GError **error)
{
    const FennelProgram *p = k->p;
    GArray *messages = g_array_new(FALSE, FALSE, sizeof(Message));
    char buf[24];
    for (uint32_t t = 0; t < p->n_tasks; t++) {
        if (p->type[t] != FENNEL_TASK_SEND && p->type[t] != FENNEL_TASK_RECV)
            continue;
        gboolean recv = p->type[t] == FENNEL_TASK_RECV;
        Message m = {recv ? p->peer[t] : p->rank[t], recv ? p->rank[t] : p->peer[t],
                     p->tag ? p->tag[t] : 0, recv, t};
        if (recv && (m.src == FENNEL_ANY || m.tag == FENNEL_ANY)) {
            g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                        "recv '%s' accepts any source or any tag, which the checker cannot "
                        "match before the run",
                        fennel_program_task_name(p, t, buf));
            g_array_free(messages, TRUE);
            return FALSE;
        }
        g_array_append_val(messages, m);
    }
    if (messages->len > 0) {
        k->match = g_new(uint32_t, p->n_tasks);
        memset(k->match, 0xff, sizeof(uint32_t) * p->n_tasks);
    }
    Message *m = (Message *)messages->data;
    if (messages->len > 1)
        qsort(m, messages->len, sizeof(Message), compare_message);
    gboolean ok = TRUE;
    for (guint i = 0; i < messages->len && ok;) {
        /* One channel: its sends, then its receives. */
        guint j = i, sends, recvs;
        while (j < messages->len && m[j].src == m[i].src && m[j].dst == m[i].dst &&
               m[j].tag == m[i].tag && !m[j].is_recv)
            j++;
        sends = j - i;
        while (j < messages->len && m[j].src == m[i].src && m[j].dst == m[i].dst &&
               m[j].tag == m[i].tag)
            j++;
        recvs = j - i - sends;
        for (guint x = 0; x < MIN(sends, recvs); x++) {
            k->match[m[i + x].task] = m[i + sends + x].task;
            k->match[m[i + sends + x].task] = m[i + x].task;
        }
        if (sends != recvs) {
            uint32_t t = m[i + MIN(sends, recvs) + (sends > recvs ? 0 : sends)].task;
            g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                        "%s '%s' has no matching %s (from rank %u to rank %u, tag %u)",
                        sends > recvs ? "send" : "recv", fennel_program_task_name(p, t, buf),
                        sends > recvs ? "recv" : "send", m[i].src, m[i].dst, m[i].tag);
            ok = FALSE;
        }
        i = j;
    }
    g_array_free(messages, TRUE);
    return ok;
}

/* Predecessor lists of one edge kind, from the successor lists. */
static void invert(uint32_t n, const FennelEdgeIndex *succ_start, const uint32_t *succ,
                   uint64_t **pred_start_out, uint32_t **preds_out)
{
    uint64_t *start = g_new0(uint64_t, n + 1);
    uint32_t *preds = g_new(uint32_t, succ_start[n] ? succ_start[n] : 1);
    for (uint64_t e = 0; e < succ_start[n]; e++)
        start[succ[e] + 1]++;
    for (uint32_t t = 0; t < n; t++)
        start[t + 1] += start[t];
    uint64_t *fill = g_memdup2(start, sizeof(uint64_t) * (n + 1));
    for (uint32_t t = 0; t < n; t++) {
        for (uint64_t e = succ_start[t]; e < succ_start[t + 1]; e++)
            preds[fill[succ[e]]++] = t;
    }
    g_free(fill);
    *pred_start_out = start;
    *preds_out = preds;
}

/* Runs the tasks in an order where each comes after its predecessors and a receive
 * after its send. FALSE if the matching makes a cycle (the program would deadlock). */
static gboolean run(Checker *k, GError **error)
{
    const FennelProgram *p = k->p;
    uint32_t n = p->n_tasks;
    uint32_t *waiting = fennel_program_in_degrees(p), *queue = g_new(uint32_t, n + 1);
    uint32_t head = 0, tail = 0;
    for (uint32_t t = 0; t < n; t++) {
        if (k->match && p->type[t] == FENNEL_TASK_RECV)
            waiting[t]++;
        if (waiting[t] == 0)
            queue[tail++] = t;
    }
#define RELEASE(v)                                                                                 \
    do {                                                                                           \
        if (--waiting[v] == 0)                                                                     \
            queue[tail++] = (v);                                                                   \
    } while (0)
    while (head < tail) {
        uint32_t t = queue[head++];
        fennel__verify_process(k, t);
        for (uint64_t i = p->succ_start[t]; i < p->succ_start[t + 1]; i++)
            RELEASE(p->succ[i]);
        for (uint64_t i = p->start_succ_start ? p->start_succ_start[t] : 0;
             p->start_succ_start && i < p->start_succ_start[t + 1]; i++)
            RELEASE(p->start_succ[i]);
        if (k->match && p->type[t] == FENNEL_TASK_SEND)
            RELEASE(k->match[t]);
    }
#undef RELEASE
    gboolean ok = tail == n;
    if (!ok) {
        char buf[24];
        uint32_t t = 0;
        while (waiting[t] == 0)
            t++;
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                    "the program deadlocks: task '%s' waits for a message sent only after it",
                    fennel_program_task_name(p, t, buf));
    }
    g_free(waiting);
    g_free(queue);
    return ok;
}

/* Checks */

/* A rank's data at the end. */
static State *final_state(Checker *k, uint32_t r)
{
    if (k->final[r])
        return k->final[r];
    if (k->fallback[r])
        return k->fallback[r];
    return fennel__verify_initial(k, r);
}

/* rank r must hold block b with contributions from ranks lo..hi. */
static gboolean expect(Checker *k, uint32_t r, uint32_t b, uint32_t lo, uint32_t hi, GError **error)
{
    uint32_t value = final_state(k, r)->v[b];
    if (fennel_values_count(k->values, value) == k->n && lo == 0 && hi == k->n - 1)
        return TRUE;
    GString *text = g_string_new(NULL);
    g_string_append_printf(text, "rank %u block %u ", r, b);
    if (k->c == FENNEL_COLLECTIVE_ALLTOALL)
        g_string_append_printf(text, "(rank %u's part for rank %u) ", b / k->n, b % k->n);
    g_string_append(text, "lacks contributions from ranks ");
    if (!fennel_values_append_missing(k->values, value, lo, hi, text)) {
        g_string_free(text, TRUE);
        return TRUE;
    }
    if (k->unheard[r] != NONE) {
        char buf[24];
        uint32_t put = k->unheard[r];
        g_string_append_printf(text,
                               " (put '%s' from rank %u reaches rank %u, but no task there "
                               "depends on it)",
                               fennel_program_task_name(k->p, put, buf), k->p->rank[put], r);
    }
    g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT, "%s", text->str);
    g_string_free(text, TRUE);
    return FALSE;
}

static gboolean check_result(Checker *k, GError **error)
{
    uint32_t n = k->n, last = n - 1;
    for (uint32_t r = 0; r < n; r++) {
        for (uint32_t b = 0; b < k->blocks; b++) {
            gboolean ok = TRUE;
            const uint32_t owner = fennel__verify_owner(k, b);
            switch (k->c) {
            case FENNEL_COLLECTIVE_ALLREDUCE:
                ok = expect(k, r, b, 0, last, error);
                break;
            case FENNEL_COLLECTIVE_REDUCE:
                ok = r != k->root || expect(k, r, b, 0, last, error);
                break;
            case FENNEL_COLLECTIVE_REDUCE_SCATTER:
                ok = r != owner || expect(k, r, b, 0, last, error);
                break;
            case FENNEL_COLLECTIVE_BCAST:
                ok = expect(k, r, b, k->root, k->root, error);
                break;
            case FENNEL_COLLECTIVE_SCATTER:
                ok = r != owner || expect(k, r, b, k->root, k->root, error);
                break;
            case FENNEL_COLLECTIVE_GATHER:
                ok = r != k->root || expect(k, r, b, owner, owner, error);
                break;
            case FENNEL_COLLECTIVE_ALLTOALL:
                ok = r != b % n || expect(k, r, b, b / n, b / n, error);
                break;
            default: /* allgather, barrier */
                ok = expect(k, r, b, owner, owner, error);
                break;
            }
            if (!ok)
                return FALSE;
        }
    }
    if (k->problem) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT, "%s", k->problem->str);
        return FALSE;
    }
    if (k->c != FENNEL_COLLECTIVE_ALLREDUCE)
        return TRUE;
    for (uint32_t b = 0; b < k->blocks; b++) {
        uint32_t first = final_state(k, 0)->v[b];
        for (uint32_t r = 1; r < n; r++) {
            uint32_t other = final_state(k, r)->v[b];
            if (other == first)
                continue;
            GString *text = g_string_new(NULL);
            g_string_append_printf(text, "ranks 0 and %u combine block %u in different orders: ", r,
                                   b);
            fennel_values_append_tree(k->values, first, 160, text);
            g_string_append(text, " vs ");
            fennel_values_append_tree(k->values, other, 160, text);
            g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT, "%s", text->str);
            g_string_free(text, TRUE);
            return FALSE;
        }
    }
    return TRUE;
}

/* Puts whose destination has no task depending on them, by destination; the tasks
 * without a successor on their rank, and the ranks where one is not a put or send. */
static void find_ends(Checker *k)
{
    const FennelProgram *p = k->p;
    for (uint32_t t = 0; t < p->n_tasks; t++) {
        uint32_t r = p->rank[t];
        gboolean last = TRUE;
        for (uint64_t i = p->succ_start[t]; i < p->succ_start[t + 1] && last; i++)
            last = p->rank[p->succ[i]] != r;
        for (uint64_t i = p->start_succ_start ? p->start_succ_start[t] : 0;
             p->start_succ_start && i < p->start_succ_start[t + 1] && last; i++)
            last = p->rank[p->start_succ[i]] != r;
        k->last[t] = (uint8_t)last;
        if (last && p->type[t] != FENNEL_TASK_PUT && p->type[t] != FENNEL_TASK_SEND &&
            p->type[t] != FENNEL_TASK_MULTICAST)
            k->sink_kind[r] = 1;
    }
    for (uint32_t t = 0; t < p->n_tasks; t++) {
        if (p->type[t] != FENNEL_TASK_PUT || k->unheard[p->peer[t]] != NONE)
            continue;
        gboolean heard = FALSE;
        for (uint64_t i = p->succ_start[t]; i < p->succ_start[t + 1] && !heard; i++)
            heard = p->rank[p->succ[i]] == p->peer[t];
        if (!heard)
            k->unheard[p->peer[t]] = t;
    }
}

static void checker_clear(Checker *k)
{
    for (uint32_t t = 0; t < k->p->n_tasks; t++) {
        if (k->slot[t] != NONE)
            fennel__verify_entry_release(k, t);
    }
    for (uint32_t r = 0; r < k->n; r++) {
        fennel__verify_state_unref(k, k->initial[r]);
        fennel__verify_state_unref(k, k->final[r]);
        fennel__verify_state_unref(k, k->fallback[r]);
    }
    g_free(k->initial);
    g_free(k->final);
    g_free(k->fallback);
    g_free(k->pred_start);
    g_free(k->preds);
    g_free(k->spred_start);
    g_free(k->spreds);
    g_free(k->match);
    g_free(k->readers);
    g_free(k->slot);
    g_free(k->unheard);
    g_free(k->last);
    g_free(k->sink_kind);
    g_free(k->stamp);
    g_free(k->head);
    g_free(k->tail);
    g_array_free(k->entries, TRUE);
    g_array_free(k->free_slots, TRUE);
    g_ptr_array_free(k->recycled, TRUE);
    g_array_free(k->op_value, TRUE);
    g_array_free(k->op_next, TRUE);
    g_array_free(k->touched, TRUE);
    g_array_free(k->ops, TRUE);
    g_array_free(k->scratch, TRUE);
    g_ptr_array_free(k->same, TRUE);
    g_array_free(k->same_task, TRUE);
    g_array_free(k->incoming, TRUE);
    if (k->problem)
        g_string_free(k->problem, TRUE);
    fennel_values_free(k->values);
}

gboolean fennel_verify(const FennelProgram *p, FennelCollective c, uint32_t root,
                       FennelVerifyReport *report, GError **error)
{
    return fennel_verify_within(p, c, root, NULL, report, error);
}

gboolean fennel_verify_within(const FennelProgram *p, FennelCollective c, uint32_t root,
                              const FennelLimits *limits, FennelVerifyReport *report,
                              GError **error)
{
    uint32_t n = p->n_ranks;
    if (fennel_collective_has_root(c) && root >= n) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                    "root %u is outside 0..%u (the program has %u ranks)", root, n - 1, n);
        return FALSE;
    }
    /* All-to-all: rank s's part for rank d is block s n + d, so n^2 blocks. */
    if (c == FENNEL_COLLECTIVE_ALLTOALL && n > UINT16_MAX) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                    "checking alltoall on %u ranks needs %u^2 blocks, more than 2^32", n, n);
        return FALSE;
    }
    /* A collective that gives each rank its own part: as many blocks as ranks, or q to a
     * rank (fennel__verify_owner). */
    uint32_t blocks = c == FENNEL_COLLECTIVE_ALLTOALL ? n * n
                      : block_per_rank(c)             ? (p->n_blocks ? p->n_blocks : n)
                                                      : MAX(p->n_blocks, 1);
    if (c == FENNEL_COLLECTIVE_ALLTOALL && p->n_blocks != 0 && p->n_blocks != blocks) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                    "alltoall gives each rank a block for each rank, so it needs the vector in "
                    "%u blocks, but the program cuts it in %u",
                    blocks, p->n_blocks);
        return FALSE;
    }
    if (block_per_rank(c) && p->n_blocks != 0 && p->n_blocks % n != 0) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                    "%s gives each rank its own blocks, so it needs the vector in a multiple of "
                    "%u blocks, but the program cuts it in %u",
                    fennel_collective_name(c), n, p->n_blocks);
        return FALSE;
    }
    /* Each rank's initial, current and final data hold a value per block: refuse what
     * cannot fit rather than be killed halfway (the program itself is in memory too). */
    double need = 3.0 * n * blocks * sizeof(uint32_t) + 48.0 * p->n_tasks;
    if (need > fennel_limits_memory(limits) / 2.0) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                    "checking %s on %u ranks would need about %.1f GiB (a value for each of "
                    "%u blocks on each rank); the machine has %.1f GiB",
                    fennel_collective_name(c), n, need / (1u << 30), blocks,
                    fennel_limits_memory(limits) / (double)(1u << 30));
        return FALSE;
    }
    Checker k = {.p = p, .c = c, .root = root, .n = n, .blocks = blocks};
    k.values = fennel_values_new(n);
    k.initial = g_new0(State *, n);
    k.final = g_new0(State *, n);
    k.fallback = g_new0(State *, n);
    k.unheard = g_new(uint32_t, n);
    memset(k.unheard, 0xff, sizeof(uint32_t) * n);
    k.last = g_new0(uint8_t, p->n_tasks + 1);
    k.sink_kind = g_new0(uint8_t, n);
    invert(p->n_tasks, p->succ_start, p->succ, &k.pred_start, &k.preds);
    if (p->start_succ_start)
        invert(p->n_tasks, p->start_succ_start, p->start_succ, &k.spred_start, &k.spreds);
    k.readers = g_new(uint32_t, p->n_tasks + 1);
    k.slot = g_new(uint32_t, p->n_tasks + 1);
    memset(k.slot, 0xff, sizeof(uint32_t) * (p->n_tasks + 1));
    k.stamp = g_new0(uint32_t, blocks);
    k.head = g_new(int32_t, blocks);
    k.tail = g_new(int32_t, blocks);
    k.entries = g_array_new(FALSE, FALSE, sizeof(Entry));
    k.free_slots = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    k.recycled = g_ptr_array_new_with_free_func(g_free);
    k.op_value = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    k.op_next = g_array_new(FALSE, FALSE, sizeof(int32_t));
    k.touched = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    k.ops = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    k.scratch = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    k.same = g_ptr_array_new();
    k.same_task = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    k.incoming = g_array_new(FALSE, FALSE, sizeof(uint32_t));

    gboolean ok = match_messages(&k, error);
    if (ok) {
        for (uint32_t t = 0; t < p->n_tasks; t++) {
            k.readers[t] = (uint32_t)(p->succ_start[t + 1] - p->succ_start[t]);
            if (p->start_succ_start)
                k.readers[t] += (uint32_t)(p->start_succ_start[t + 1] - p->start_succ_start[t]);
            if (k.match && p->type[t] == FENNEL_TASK_SEND)
                k.readers[t]++;
        }
        find_ends(&k);
        ok = run(&k, error) && check_result(&k, error);
    }
    if (report) {
        report->blocks = blocks;
        report->combines = fennel_values_size(k.values) - n - 1;
    }
    checker_clear(&k);
    return ok;
}
