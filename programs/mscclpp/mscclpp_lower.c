/* From an MSCCL++ execution plan to a fennel program (docs/FORMATS.md, the mapping). Each
 * GPU is a rank with one execution slot per thread block; a thread block's operations run
 * in order on its slot. Data moves with one-sided tasks: a put per remote destination, a
 * get per remote source. Signals are puts of no data whose arrival releases the matching
 * wait; port channels post their puts without holding the thread block, and a flush or a
 * later signal on the channel waits for them. */
#include "mscclpp.h"

#include "errors.h"

typedef struct {
    const FennelMscclppPlan *p;
    FennelProgramBuilder *b;
    int64_t chunk;
    uint32_t gpu, tb, index, tb_first; /* the operation being lowered */
    const FennelMscclppOp *op;
    GArray **signals, **waits;     /* per channel: the tasks that raise / take its semaphore */
    GArray **releases, **acquires; /* per semaphore */
    GArray *pending;               /* uint32_t pairs peer, put: port puts of the thread block */
    GHashTable *barriers;          /* (gpu, barrier, occurrence) -> the joining task */
    GHashTable *packets; /* (gpu, buffer, chunk) -> GArray of writing puts: triples task, and
                          * the part written, from and to, in 1 / parts of a chunk */
    GArray *readers;     /* uint32_t pairs op, task: operations that read packets */
    char name[96];
} Lower;

/* Writes v in decimal at s; the end. */
static char *decimal(char *s, uint32_t v)
{
    char digits[10];
    int n = 0;
    do
        digits[n++] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    while (n > 0)
        *s++ = digits[--n];
    return s;
}

static uint32_t task(Lower *l, FennelTaskType type, const char *what, gboolean pinned)
{
    uint32_t t = fennel_builder_add(l->b, type, l->gpu);
    if (pinned)
        fennel_builder_set_pin(l->b, t, l->tb);
    fennel_builder_set_position(l->b, t, l->op->line, l->op->col);
    /* "g%u.t%u.o%u.%s" without printf, which took most of the lowering's time. The numbers
     * take at most 35 bytes; the name is cut where snprintf would cut it. */
    char *s = l->name;
    *s++ = 'g';
    s = decimal(s, l->gpu);
    *s++ = '.';
    *s++ = 't';
    s = decimal(s, l->tb);
    *s++ = '.';
    *s++ = 'o';
    s = decimal(s, l->index - l->tb_first);
    *s++ = '.';
    g_strlcpy(s, what, sizeof l->name - (gsize)(s - l->name));
    fennel_builder_set_name(l->b, t, l->name);
    return t;
}

static GArray *list_at(GArray **lists, uint32_t i)
{
    if (lists[i] == NULL)
        lists[i] = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    return lists[i];
}

static gpointer chunk_key(uint32_t gpu, uint8_t buf, int64_t chunk)
{
    return GSIZE_TO_POINTER((((gsize)gpu * 3 + buf) << 24 | (gsize)chunk) + 1);
}

/* The bytes of operand x that the operation's thread block moves (its share when a group
 * of thread blocks shares the operation). */
static int64_t bytes_of(const Lower *l, const FennelMscclppOperand *x)
{
    int64_t bytes = fennel_mscclpp_share(l->p, l->op, (int64_t)x->size * l->chunk);
    return x->packets && l->p->packets ? 2 * bytes : bytes; /* LL: 8 data bytes in 16 */
}

/* A put of operand `src` into `dst` on its GPU: in the thread block's order for memory
 * channels (the thread block's threads copy), posted aside for port channels. */
static uint32_t put(Lower *l, const FennelMscclppOperand *dst, int64_t bytes, uint32_t *prev)
{
    gboolean port = l->op->chan == FENNEL_MSCCLPP_PORT;
    uint32_t t = task(l, FENNEL_TASK_PUT, "put", TRUE);
    fennel_builder_set_peer(l->b, t, dst->gpu);
    fennel_builder_set_amount(l->b, t, bytes);
    fennel_builder_add_edge(l->b, *prev, t);
    if (port) {
        uint32_t pair[2] = {dst->gpu, t};
        g_array_append_vals(l->pending, pair, 2);
    } else {
        fennel_builder_set_flags(l->b, t, FENNEL_TASK_BLOCKING);
        *prev = t;
    }
    int64_t lo, n = fennel_mscclpp_span(l->p, l->op, dst, &lo), parts = l->p->parts;
    if (dst->packets)
        for (int64_t i = lo / parts; n > 0 && i <= (lo + n - 1) / parts; i++) {
            gpointer key = chunk_key(dst->gpu, dst->buf, i);
            GArray *w = g_hash_table_lookup(l->packets, key);
            if (w == NULL) {
                w = g_array_new(FALSE, FALSE, sizeof(int64_t));
                g_hash_table_insert(l->packets, key, w);
            }
            int64_t entry[3] = {t, lo, lo + n};
            g_array_append_vals(w, entry, 3);
        }
    return t;
}

/* Port puts to `peer` (or all) that a flush or a signal waits for, then forgotten. */
static void drain(Lower *l, uint32_t peer, uint32_t into)
{
    for (guint k = 0; k < l->pending->len;) {
        uint32_t *pair = &g_array_index(l->pending, uint32_t, k);
        if (peer != UINT32_MAX && pair[0] != peer) {
            k += 2;
            continue;
        }
        fennel_builder_add_edge(l->b, pair[1], into);
        g_array_remove_range(l->pending, k, 2);
    }
}

static uint32_t signal_channels(Lower *l, uint32_t prev)
{
    const FennelMscclppOp *op = l->op;
    for (uint32_t k = 0; k < op->n_chans; k++) {
        const FennelMscclppChannel *c = &l->p->channels[l->p->chan_refs[op->first_chan + k]];
        uint32_t t = task(l, FENNEL_TASK_PUT, "signal", TRUE);
        fennel_builder_set_peer(l->b, t, c->peer);
        fennel_builder_set_amount(l->b, t, 0);
        fennel_builder_add_edge(l->b, prev, t);
        drain(l, c->peer, t);
        g_array_append_val(list_at(l->signals, c->partner), t);
    }
    return prev;
}

/* The tasks of one operation: its first and last in the thread block's order. */
static void lower_op(Lower *l, uint32_t *first, uint32_t *last)
{
    const FennelMscclppPlan *p = l->p;
    const FennelMscclppOp *op = l->op;
    const FennelMscclppOperand *src = p->operands + op->first_src, *dst = src + op->n_src;
    const uint32_t *refs = p->chan_refs + op->first_chan;
    uint32_t head = task(l, FENNEL_TASK_PROXY, fennel_mscclpp_op_name(op), TRUE), prev = head;
    *first = head;
    switch ((FennelMscclppKind)op->kind) {
    case FENNEL_MSCCLPP_SIGNAL:
        prev = signal_channels(l, prev);
        break;
    case FENNEL_MSCCLPP_WAIT:
        for (uint32_t k = 0; k < op->n_chans; k++)
            g_array_append_val(list_at(l->waits, refs[k]), head);
        break;
    case FENNEL_MSCCLPP_FLUSH:
        drain(l, UINT32_MAX, head);
        break;
    case FENNEL_MSCCLPP_SEM_ACQUIRE:
    case FENNEL_MSCCLPP_SEM_RELEASE:
        for (uint32_t k = 0; k < op->n_chans; k++)
            g_array_append_val(
                list_at(op->kind == FENNEL_MSCCLPP_SEM_ACQUIRE ? l->acquires : l->releases,
                        p->gpus[l->gpu].first_sem + refs[k]),
                head);
        break;
    case FENNEL_MSCCLPP_BARRIER: {
        /* The thread blocks' n-th barrier of one id meet in a task they all precede. */
        uint32_t seen = 0;
        for (uint32_t i = p->tbs[p->gpus[l->gpu].first_tb + l->tb].first_op; i < l->index; i++)
            seen += p->ops[i].kind == FENNEL_MSCCLPP_BARRIER && p->ops[i].barrier == op->barrier;
        char *key = g_strdup_printf("%u/%d/%u", l->gpu, op->barrier, seen);
        gpointer joined = g_hash_table_lookup(l->barriers, key);
        if (joined == NULL) {
            joined = GUINT_TO_POINTER(task(l, FENNEL_TASK_PROXY, "barrier", FALSE) + 1);
            g_hash_table_insert(l->barriers, key, joined);
        } else {
            g_free(key);
        }
        prev = GPOINTER_TO_UINT(joined) - 1;
        fennel_builder_add_edge(l->b, head, prev);
        break;
    }
    case FENNEL_MSCCLPP_PUT:
    case FENNEL_MSCCLPP_PUT_PACKETS:
        for (uint32_t d = 0; d < op->n_dst; d++) {
            uint32_t t = put(l, &dst[d], bytes_of(l, &dst[d]), &prev);
            if (op->signals) {
                /* pws: the data's arrival is the signal. */
                uint32_t c = refs[MIN(d, op->n_chans - 1u)];
                g_array_append_val(list_at(l->signals, p->channels[c].partner), t);
            }
        }
        if (op->flushes) {
            uint32_t done = task(l, FENNEL_TASK_PROXY, "flush", TRUE);
            drain(l, UINT32_MAX, done);
            fennel_builder_add_edge(l->b, prev, done);
            prev = done;
        }
        break;
    case FENNEL_MSCCLPP_GET:
    case FENNEL_MSCCLPP_COPY:
    case FENNEL_MSCCLPP_UNPACK_PACKETS:
    case FENNEL_MSCCLPP_REDUCE:
    case FENNEL_MSCCLPP_REDUCE_PACKETS:
    case FENNEL_MSCCLPP_MULTI_REDUCE:
    case FENNEL_MSCCLPP_MULTI_STORE: {
        gboolean multi =
            op->kind == FENNEL_MSCCLPP_MULTI_REDUCE || op->kind == FENNEL_MSCCLPP_MULTI_STORE;
        const FennelMscclppGroup *g = multi ? &p->groups[refs[0]] : NULL;
        /* Reads from peers: remote sources, or every other rank of a switch group. */
        uint32_t reads = op->kind == FENNEL_MSCCLPP_MULTI_REDUCE ? g->n_ranks : op->n_src;
        for (uint32_t s = 0; s < reads; s++) {
            uint32_t from = multi ? p->group_ranks[g->first_rank + s] : src[s].gpu;
            if (from == l->gpu || op->kind == FENNEL_MSCCLPP_MULTI_STORE)
                continue;
            uint32_t t = task(l, FENNEL_TASK_GET, "get", TRUE);
            fennel_builder_set_peer(l->b, t, from);
            fennel_builder_set_amount(l->b, t, bytes_of(l, &src[0]));
            fennel_builder_set_request(l->b, t, 8); /* the default request of a get */
            fennel_builder_add_edge(l->b, prev, t);
            prev = t;
        }
        if (op->kind != FENNEL_MSCCLPP_GET) {
            gboolean reduces = op->kind != FENNEL_MSCCLPP_COPY &&
                               op->kind != FENNEL_MSCCLPP_UNPACK_PACKETS &&
                               op->kind != FENNEL_MSCCLPP_MULTI_STORE;
            uint32_t t = task(l, FENNEL_TASK_COMPUTE, reduces ? "reduce" : "copy", TRUE);
            fennel_builder_set_flags(l->b, t, FENNEL_TASK_SIZED);
            fennel_builder_set_amount(l->b, t,
                                      fennel_mscclpp_share(p, op, (int64_t)src[0].size * l->chunk));
            fennel_builder_add_edge(l->b, prev, t);
            prev = t;
        }
        /* Writes to peers: remote destinations, or every other rank of the group. */
        uint32_t writes = multi ? g->n_ranks : op->n_dst;
        for (uint32_t d = 0; d < writes; d++) {
            FennelMscclppOperand to = dst[multi ? 0 : d];
            if (multi)
                to.gpu = p->group_ranks[g->first_rank + d];
            if (to.gpu != l->gpu)
                put(l, &to, bytes_of(l, &to), &prev);
        }
        break;
    }
    default:
        break;
    }
    for (uint32_t s = 0; s < op->n_src; s++)
        if (src[s].packets) {
            uint32_t pair[2] = {(uint32_t)(op - p->ops), head};
            g_array_append_vals(l->readers, pair, 2);
            break;
        }
    *last = prev;
}

/* The edges between thread blocks: k-th signal to k-th wait, a release to the acquire it
 * allows, packet writes to their readers. */
static void synchronise(Lower *l)
{
    const FennelMscclppPlan *p = l->p;
    for (uint32_t c = 0; c < p->n_channels; c++) {
        guint n = l->waits[c] ? l->waits[c]->len : 0;
        for (guint k = 0; k < n && l->signals[c] && k < l->signals[c]->len; k++)
            fennel_builder_add_edge(l->b, g_array_index(l->signals[c], uint32_t, k),
                                    g_array_index(l->waits[c], uint32_t, k));
    }
    for (uint32_t s = 0; s < p->n_sems; s++) {
        guint n = l->acquires[s] ? l->acquires[s]->len : 0;
        for (guint k = (guint)MIN(p->sem_init[s], (int64_t)n); k < n; k++) {
            guint r = k - (guint)p->sem_init[s];
            if (l->releases[s] && r < l->releases[s]->len)
                fennel_builder_add_edge(l->b, g_array_index(l->releases[s], uint32_t, r),
                                        g_array_index(l->acquires[s], uint32_t, k));
        }
    }
    for (guint k = 0; k < l->readers->len; k += 2) {
        const FennelMscclppOp *op = &p->ops[g_array_index(l->readers, uint32_t, k)];
        uint32_t reader = g_array_index(l->readers, uint32_t, k + 1);
        const FennelMscclppOperand *src = p->operands + op->first_src;
        /* The packets of the reader's part of its sources, whichever puts wrote them. */
        for (uint32_t s = 0; s < op->n_src; s++) {
            int64_t lo, n = fennel_mscclpp_span(p, op, &src[s], &lo), parts = p->parts;
            for (int64_t i = lo / parts; src[s].packets && n > 0 && i <= (lo + n - 1) / parts;
                 i++) {
                GArray *w = g_hash_table_lookup(l->packets, chunk_key(src[s].gpu, src[s].buf, i));
                for (guint j = 0; w && j < w->len; j += 3) {
                    const int64_t *e = &g_array_index(w, int64_t, j);
                    if (e[1] < lo + n && lo < e[2])
                        fennel_builder_add_edge(l->b, (uint32_t)e[0], reader);
                }
            }
        }
    }
}

static void free_lists(GArray **lists, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (lists[i])
            g_array_unref(lists[i]);
    g_free(lists);
}

FennelProgram *fennel_mscclpp_lower(const FennelMscclppPlan *p, int64_t size,
                                    const FennelLimits *limits, GError **error)
{
    Lower l = {.p = p, .chunk = size / fennel_mscclpp_rank_chunks(p)};
    int32_t widest = 1;
    for (uint32_t i = 0; i < p->n_operands; i++)
        widest = MAX(widest, p->operands[i].size);
    if (l.chunk > INT64_MAX / 4 / widest) {
        fennel_error_at(error, p->file, p->line, p->col,
                        "--size %" G_GINT64_FORMAT ": an operation of %d chunks would move more "
                        "bytes than fennel counts",
                        size, widest);
        return NULL;
    }
    uint32_t slots = 1;
    for (uint32_t g = 0; g < p->ngpus; g++)
        slots = MAX(slots, p->gpus[g].n_tbs);
    l.b = fennel_builder_new();
    fennel_builder_set_limits(l.b, limits);
    l.signals = g_new0(GArray *, p->n_channels + 1);
    l.waits = g_new0(GArray *, p->n_channels + 1);
    l.releases = g_new0(GArray *, p->n_sems + 1);
    l.acquires = g_new0(GArray *, p->n_sems + 1);
    l.pending = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    l.readers = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    l.barriers = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    l.packets =
        g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, (GDestroyNotify)g_array_unref);
    for (l.gpu = 0; l.gpu < p->ngpus; l.gpu++) {
        const FennelMscclppGpu *gpu = &p->gpus[l.gpu];
        uint32_t start = fennel_builder_add(l.b, FENNEL_TASK_START, l.gpu);
        g_snprintf(l.name, sizeof l.name, "g%u.start", l.gpu);
        fennel_builder_set_name(l.b, start, l.name);
        fennel_builder_set_position(l.b, start, gpu->line, gpu->col);
        for (l.tb = 0; l.tb < gpu->n_tbs; l.tb++) {
            const FennelMscclppTb *tb = &p->tbs[gpu->first_tb + l.tb];
            uint32_t prev = start;
            g_array_set_size(l.pending, 0);
            l.tb_first = tb->first_op;
            for (l.index = tb->first_op; l.index < tb->first_op + tb->n_ops; l.index++) {
                uint32_t first, last;
                l.op = &p->ops[l.index];
                lower_op(&l, &first, &last);
                fennel_builder_add_edge(l.b, prev, first);
                prev = last;
            }
        }
    }
    synchronise(&l);
    free_lists(l.signals, p->n_channels + 1);
    free_lists(l.waits, p->n_channels + 1);
    free_lists(l.releases, p->n_sems + 1);
    free_lists(l.acquires, p->n_sems + 1);
    g_array_unref(l.pending);
    g_array_unref(l.readers);
    g_hash_table_unref(l.barriers);
    g_hash_table_unref(l.packets);
    FennelProgram *prog = fennel_builder_finish(l.b, p->file, p->ngpus, slots, error);
    if (prog) {
        g_free(prog->name);
        prog->name = g_strdup(p->name);
    }
    return prog;
}
