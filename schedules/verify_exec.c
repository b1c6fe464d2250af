/* The walk of the collective checker: what each task leaves for its successors (see
 * verify.c for the design and verify.h for the rules). */
#include "verify_private.h"

#include <string.h>

/* States */

static State *state_new(Checker *k)
{
    State *s = k->recycled->len ? g_ptr_array_steal_index_fast(k->recycled, k->recycled->len - 1)
                                : g_malloc(sizeof(State) + sizeof(uint32_t) * k->blocks);
    s->refs = 1;
    return s;
}

static State *state_ref(State *s)
{
    s->refs++;
    return s;
}

void fennel__verify_state_unref(Checker *k, State *s)
{
    if (s && --s->refs == 0)
        g_ptr_array_add(k->recycled, s);
}

uint32_t fennel__verify_owner(const Checker *k, uint32_t b)
{
    return k->blocks > k->n && k->blocks % k->n == 0 ? b / (k->blocks / k->n) : b;
}

State *fennel__verify_initial(Checker *k, uint32_t r)
{
    if (k->initial[r])
        return k->initial[r];
    State *s = state_new(k);
    uint32_t mine = fennel_value_leaf(r);
    switch (k->c) {
    case FENNEL_COLLECTIVE_ALLREDUCE:
    case FENNEL_COLLECTIVE_REDUCE:
    case FENNEL_COLLECTIVE_REDUCE_SCATTER:
        for (uint32_t b = 0; b < k->blocks; b++)
            s->v[b] = mine;
        break;
    case FENNEL_COLLECTIVE_BCAST:
    case FENNEL_COLLECTIVE_SCATTER:
        for (uint32_t b = 0; b < k->blocks; b++)
            s->v[b] = r == k->root ? mine : FENNEL_VALUE_EMPTY;
        break;
    case FENNEL_COLLECTIVE_ALLTOALL: /* its part for every rank, blocks r n .. r n + n - 1 */
        memset(s->v, 0, sizeof(uint32_t) * k->blocks);
        for (uint32_t d = 0; d < k->n; d++)
            s->v[r * k->n + d] = mine;
        break;
    default: /* allgather, gather, barrier: a rank holds its own blocks */
        memset(s->v, 0, sizeof(uint32_t) * k->blocks);
        for (uint32_t b = 0; b < k->blocks; b++)
            if (fennel__verify_owner(k, b) == r)
                s->v[b] = mine;
        break;
    }
    return k->initial[r] = s;
}

/* Entries */

static Entry *entry(Checker *k, uint32_t task)
{
    return &g_array_index(k->entries, Entry, k->slot[task]);
}

static uint32_t entry_new(Checker *k)
{
    uint32_t slot;
    if (k->free_slots->len) {
        slot = g_array_index(k->free_slots, uint32_t, k->free_slots->len - 1);
        g_array_set_size(k->free_slots, k->free_slots->len - 1);
    } else {
        slot = k->entries->len;
        g_array_set_size(k->entries, slot + 1);
    }
    memset(&g_array_index(k->entries, Entry, slot), 0, sizeof(Entry));
    return slot;
}

void fennel__verify_entry_release(Checker *k, uint32_t task)
{
    Entry *e = entry(k, task);
    fennel__verify_state_unref(k, e->out);
    fennel__verify_state_unref(k, e->carried);
    g_free(e->snapshot);
    g_array_append_val(k->free_slots, k->slot[task]);
    k->slot[task] = NONE;
}

static void read_done(Checker *k, uint32_t task)
{
    if (--k->readers[task] == 0)
        fennel__verify_entry_release(k, task);
}

/* The value of the i-th block an entry delivers. */
static inline uint32_t carried_value(const Checker *k, const Entry *e, uint32_t i)
{
    if (e->snapshot)
        return e->snapshot[i];
    uint32_t b = e->first + i;
    return e->carried->v[b >= k->blocks ? b - k->blocks : b];
}

/* Makes e deliver the blocks task t moves out of `from` (the whole vector unless the
 * task is marked). A few blocks are copied, so that `from` may change afterwards. */
static void deliver(Checker *k, Entry *e, uint32_t t, State *from)
{
    const FennelProgram *p = k->p;
    e->first = 0;
    e->count = k->blocks;
    if (p->block_count && p->block_count[t] > 0) {
        e->first = p->block_first[t];
        e->count = p->block_count[t];
    }
    if (e->count <= k->blocks / 8) {
        e->snapshot = g_new(uint32_t, e->count);
        for (uint32_t i = 0; i < e->count; i++) {
            uint32_t b = e->first + i;
            e->snapshot[i] = from->v[b >= k->blocks ? b - k->blocks : b];
        }
    } else {
        e->carried = state_ref(from);
    }
}

/* Combining */

static void problem(Checker *k, uint32_t t, uint32_t b, const char *format, ...)
    G_GNUC_PRINTF(4, 5);

static void problem(Checker *k, uint32_t t, uint32_t b, const char *format, ...)
{
    if (k->problem)
        return;
    char buf[24];
    k->problem = g_string_new(NULL);
    g_string_append_printf(k->problem, "rank %u block %u: task '%s' ", k->p->rank[t], b,
                           fennel_program_task_name(k->p, t, buf));
    va_list args;
    va_start(args, format);
    g_string_append_vprintf(k->problem, format, args);
    va_end(args);
}

/* Reports what a combination did wrong, if anything. */
static void judge(Checker *k, uint32_t t, uint32_t b, const FennelCombineInfo *info)
{
    if (k->problem)
        return;
    if (info->overlap) {
        GString *common = g_string_new(NULL);
        fennel_values_append_common(k->values, info->overlap_a, info->overlap_b, common);
        problem(k, t, b, "combines contributions from ranks %s more than once", common->str);
        g_string_free(common, TRUE);
    } else if (info->reduced && k->p->type[t] != FENNEL_TASK_COMPUTE) {
        problem(k, t, b, "(a %s) combines partial results, which only a compute task may",
                fennel_task_type_name(k->p->type[t]));
    }
}

/* Block b after task t: the versions of its rank's data in ops[0 .. versions - 1], with
 * the received values ops[versions .. n - 1] received into them. ops has room for n + 1. */
static uint32_t combine(Checker *k, uint32_t t, uint32_t b, uint32_t *ops, uint32_t versions,
                        uint32_t n)
{
    FennelCombineInfo info;
    uint32_t local = ops[0];
    if (versions > 1) {
        g_array_set_size(k->scratch, versions);
        memcpy(k->scratch->data, ops, sizeof(uint32_t) * versions);
        local = fennel_values_merge(k->values, (uint32_t *)k->scratch->data, versions, &info);
        judge(k, t, b, &info);
    }
    if (n == versions)
        return local;
    if (n == versions + 1 && (ops[versions] == local || ops[versions] == FENNEL_VALUE_EMPTY))
        return local;
    if (n == versions + 1 && local == FENNEL_VALUE_EMPTY)
        return ops[versions];
    uint32_t value = fennel_values_receive(k->values, local, ops + versions, n - versions, &info);
    judge(k, t, b, &info);
    return value;
}

/* Gathers the values the incoming entries bring, block by block in arrival order, into
 * per-block lists (k->head, k->op_next) of the blocks in k->touched. */
static void gather_sparse(Checker *k)
{
    k->now++;
    g_array_set_size(k->touched, 0);
    g_array_set_size(k->op_value, 0);
    g_array_set_size(k->op_next, 0);
    for (guint j = 0; j < k->incoming->len; j++) {
        const Entry *e = &g_array_index(k->entries, Entry, g_array_index(k->incoming, uint32_t, j));
        for (uint32_t i = 0; i < e->count; i++) {
            uint32_t b = e->first + i, value = carried_value(k, e, i);
            int32_t op = (int32_t)k->op_value->len, none = -1;
            b = b >= k->blocks ? b - k->blocks : b;
            g_array_append_val(k->op_value, value);
            g_array_append_val(k->op_next, none);
            if (k->stamp[b] != k->now) {
                k->stamp[b] = k->now;
                k->head[b] = op;
                g_array_append_val(k->touched, b);
            } else {
                g_array_index(k->op_next, int32_t, k->tail[b]) = op;
            }
            k->tail[b] = op;
        }
    }
}

/* The data after task t: the states in k->same (its predecessors on its rank, or its
 * rank's initial data) with the entries in k->incoming received into them. */
static State *merge(Checker *k, uint32_t t)
{
    guint ns = k->same->len, ni = k->incoming->len;
    State *base = g_ptr_array_index(k->same, 0);
    if (ns == 1 && ni == 0)
        return state_ref(base);

    /* Dense: every incoming entry brings the whole vector (a common case, for which
     * per-block lists would cost more than the work). */
    gboolean dense = TRUE;
    const State *in[8];
    for (guint j = 0; j < ni && dense; j++) {
        const Entry *e = &g_array_index(k->entries, Entry, g_array_index(k->incoming, uint32_t, j));
        dense = j < G_N_ELEMENTS(in) && e->carried && e->first == 0 && e->count == k->blocks;
        if (dense)
            in[j] = e->carried;
    }
    if (!dense)
        gather_sparse(k);

    /* The result: the predecessor's state itself when this task is its last reader and
     * nobody else holds it, else a new one. */
    State *out;
    uint32_t from = g_array_index(k->same_task, uint32_t, 0);
    if (ns == 1 && from != NONE && k->readers[from] == 1 && base->refs == 1) {
        out = base;
        entry(k, from)->out = NULL;
    } else {
        out = state_new(k);
        memcpy(out->v, base->v, sizeof(uint32_t) * k->blocks);
    }

    g_array_set_size(k->ops, ns + (dense ? ni : 0) + 1);
    uint32_t *ops = (uint32_t *)k->ops->data;
    if (dense) {
        for (uint32_t b = 0; b < k->blocks; b++) {
            if (ns == 1 && ni == 1) {
                uint32_t l = out->v[b], x = in[0]->v[b];
                if (x == l || x == FENNEL_VALUE_EMPTY)
                    continue;
                if (l == FENNEL_VALUE_EMPTY) {
                    out->v[b] = x;
                    continue;
                }
            }
            for (guint s = 0; s < ns; s++)
                ops[s] = ((State *)g_ptr_array_index(k->same, s))->v[b];
            for (guint j = 0; j < ni; j++)
                ops[ns + j] = in[j]->v[b];
            out->v[b] = combine(k, t, b, ops, ns, ns + ni);
        }
        return out;
    }
    const uint32_t *touched = (const uint32_t *)k->touched->data;
    guint n_blocks = ns == 1 ? k->touched->len : k->blocks;
    for (guint i = 0; i < n_blocks; i++) {
        uint32_t b = ns == 1 ? touched[i] : i;
        g_array_set_size(k->ops, 0);
        for (guint s = 0; s < ns; s++)
            g_array_append_val(k->ops, ((State *)g_ptr_array_index(k->same, s))->v[b]);
        if (k->stamp[b] == k->now) {
            for (int32_t op = k->head[b]; op >= 0; op = g_array_index(k->op_next, int32_t, op))
                g_array_append_val(k->ops, g_array_index(k->op_value, uint32_t, op));
        }
        guint n = k->ops->len;
        g_array_set_size(k->ops, n + 1); /* room for the receiver's own value */
        out->v[b] = combine(k, t, b, (uint32_t *)k->ops->data, ns, n);
    }
    return out;
}

static void add_same(Checker *k, State *s, uint32_t from)
{
    for (guint i = 0; i < k->same->len; i++) {
        if (g_ptr_array_index(k->same, i) == s)
            return;
    }
    g_ptr_array_add(k->same, s);
    g_array_append_val(k->same_task, from);
}

/* TRUE if the entry of task q delivers data to rank r. */
static gboolean delivers_to(const FennelProgram *p, uint32_t q, uint32_t r)
{
    switch (p->type[q]) {
    case FENNEL_TASK_PUT:
        return p->peer[q] == r;
    case FENNEL_TASK_GET:
    case FENNEL_TASK_RECV:
        return p->rank[q] == r;
    case FENNEL_TASK_LOAD_REDUCE: /* its issuer, or every rank of its group (SHARP) */
        return p->rank[q] == r ||
               ((p->flags[q] & FENNEL_TASK_ALLREDUCE) && fennel_program_in_group(p, q, r));
    case FENNEL_TASK_MULTICAST: /* every other rank of its group */
        return r != p->rank[q] && fennel_program_in_group(p, q, r);
    default:
        return FALSE;
    }
}

/* Folds a task that has no successor on its rank into the rank's final data. */
static void fold_final(Checker *k, uint32_t t, Entry *e)
{
    uint32_t r = k->p->rank[t];
    FennelTaskType type = k->p->type[t];
    if (type == FENNEL_TASK_PUT || type == FENNEL_TASK_SEND || type == FENNEL_TASK_MULTICAST) {
        /* A send's own data is an earlier state of its rank; it counts only when the
         * rank has no other last task. */
        if (k->sink_kind[r])
            return;
        fennel__verify_state_unref(k, k->fallback[r]);
        k->fallback[r] = state_ref(e->out);
        return;
    }
    gboolean received =
        type == FENNEL_TASK_GET || type == FENNEL_TASK_RECV || type == FENNEL_TASK_LOAD_REDUCE;
    if (k->final[r] == NULL && !received) {
        k->final[r] = state_ref(e->out);
        return;
    }
    g_ptr_array_set_size(k->same, 0);
    g_array_set_size(k->same_task, 0);
    if (k->final[r])
        add_same(k, k->final[r], NONE);
    add_same(k, e->out, NONE);
    g_array_set_size(k->incoming, 0);
    if (received)
        g_array_append_val(k->incoming, k->slot[t]);
    State *merged = merge(k, t);
    fennel__verify_state_unref(k, k->final[r]);
    k->final[r] = merged;
}

/* What a load-reduce (task t, its rank's data `own` after its predecessors) returns: the
 * switch reads each rank of its group's data as the tasks of that rank it waits for left it
 * (as a get does; the rank's first data without one), and reduces the blocks it moves in
 * one step, which only the switch or a compute may take. */
static State *load_reduce(Checker *k, uint32_t t, State *own)
{
    const FennelProgram *p = k->p;
    const uint32_t size = p->tag[t];
    State **member = g_new(State *, size);
    for (uint32_t i = 0; i < size; i++) {
        const uint32_t g = p->peer[t] + i * fennel_program_stride(p, t);
        if (g == p->rank[t]) {
            member[i] = state_ref(own);
            continue;
        }
        g_ptr_array_set_size(k->same, 0);
        g_array_set_size(k->same_task, 0);
        g_array_set_size(k->incoming, 0);
        for (uint64_t j = k->pred_start[t]; j < k->pred_start[t + 1]; j++) {
            if (p->rank[k->preds[j]] == g)
                add_same(k, entry(k, k->preds[j])->out, NONE);
        }
        if (k->same->len == 0)
            add_same(k, fennel__verify_initial(k, g), NONE);
        /* One state (the usual case: a group of many ranks read as they started) is read
         * as it is, without a copy of the whole vector per rank. */
        member[i] = k->same->len == 1 ? state_ref(g_ptr_array_index(k->same, 0)) : merge(k, t);
    }
    State *sum = state_new(k);
    memcpy(sum->v, own->v, sizeof(uint32_t) * k->blocks);
    uint32_t first = 0, count = k->blocks;
    if (p->block_count && p->block_count[t] > 0) {
        first = p->block_first[t];
        count = p->block_count[t];
    }
    g_array_set_size(k->ops, size + 1);
    for (uint32_t c = 0; c < count; c++) {
        const uint32_t b = first + c >= k->blocks ? first + c - k->blocks : first + c;
        uint32_t *ops = (uint32_t *)k->ops->data;
        for (uint32_t i = 0; i < size; i++)
            ops[i] = member[i]->v[b];
        FennelCombineInfo info;
        sum->v[b] = fennel_values_receive(k->values, FENNEL_VALUE_EMPTY, ops, size, &info);
        if (info.overlap && !k->problem) {
            GString *common = g_string_new(NULL);
            fennel_values_append_common(k->values, info.overlap_a, info.overlap_b, common);
            problem(k, t, b, "reduces contributions from ranks %s more than once", common->str);
            g_string_free(common, TRUE);
        }
    }
    for (uint32_t i = 0; i < size; i++)
        fennel__verify_state_unref(k, member[i]);
    g_free(member);
    return sum;
}

void fennel__verify_process(Checker *k, uint32_t t)
{
    const FennelProgram *p = k->p;
    uint32_t r = p->rank[t];
    uint32_t slot = entry_new(k);
    k->slot[t] = slot;
    State *out;
    if (p->type[t] == FENNEL_TASK_START) {
        out = state_ref(fennel__verify_initial(k, r));
    } else {
        g_ptr_array_set_size(k->same, 0);
        g_array_set_size(k->same_task, 0);
        g_array_set_size(k->incoming, 0);
        for (uint64_t i = k->pred_start[t]; i < k->pred_start[t + 1]; i++) {
            uint32_t q = k->preds[i];
            if (p->rank[q] == r)
                add_same(k, entry(k, q)->out, q);
            if (delivers_to(p, q, r))
                g_array_append_val(k->incoming, k->slot[q]);
        }
        for (uint64_t i = k->spred_start ? k->spred_start[t] : 0;
             k->spred_start && i < k->spred_start[t + 1]; i++) {
            uint32_t q = k->spreds[i];
            if (p->rank[q] == r)
                add_same(k, entry(k, q)->out, q);
        }
        if (k->same->len == 0)
            add_same(k, fennel__verify_initial(k, r), NONE);
        out = merge(k, t);
    }
    Entry *e = &g_array_index(k->entries, Entry, slot);
    e->out = out;

    switch (p->type[t]) {
    case FENNEL_TASK_PUT:
    case FENNEL_TASK_SEND:
    case FENNEL_TASK_MULTICAST:
        deliver(k, e, t, out);
        break;
    case FENNEL_TASK_LOAD_REDUCE: {
        State *sum = load_reduce(k, t, out);
        e = &g_array_index(k->entries, Entry, slot);
        deliver(k, e, t, sum);
        fennel__verify_state_unref(k, sum);
        break;
    }
    case FENNEL_TASK_RECV: {
        const Entry *s = entry(k, k->match[t]);
        e = &g_array_index(k->entries, Entry, slot);
        e->first = s->first;
        e->count = s->count;
        e->carried = s->carried ? state_ref(s->carried) : NULL;
        e->snapshot = s->snapshot ? g_memdup2(s->snapshot, sizeof(uint32_t) * s->count) : NULL;
        read_done(k, k->match[t]);
        break;
    }
    case FENNEL_TASK_GET: {
        /* The target's data as its tasks this get waits for left it. */
        g_ptr_array_set_size(k->same, 0);
        g_array_set_size(k->same_task, 0);
        g_array_set_size(k->incoming, 0);
        for (uint64_t i = k->pred_start[t]; i < k->pred_start[t + 1]; i++) {
            if (p->rank[k->preds[i]] == p->peer[t])
                add_same(k, entry(k, k->preds[i])->out, NONE);
        }
        if (k->same->len == 0)
            add_same(k, fennel__verify_initial(k, p->peer[t]), NONE);
        State *target = merge(k, t);
        e = &g_array_index(k->entries, Entry, slot);
        deliver(k, e, t, target);
        fennel__verify_state_unref(k, target);
        break;
    }
    default:
        break;
    }

    for (uint64_t i = k->pred_start[t]; i < k->pred_start[t + 1]; i++)
        read_done(k, k->preds[i]);
    for (uint64_t i = k->spred_start ? k->spred_start[t] : 0;
         k->spred_start && i < k->spred_start[t + 1]; i++)
        read_done(k, k->spreds[i]);

    if (k->last[t])
        fold_final(k, t, entry(k, t));
    if (k->readers[t] == 0)
        fennel__verify_entry_release(k, t);
}
