/* The symbolic check of an MSCCL++ execution plan (docs/FORMATS.md). Every chunk of every
 * buffer holds a value (chunks_private.h). The thread blocks run operation by operation in
 * an order the executor could take: a wait waits for its signal, an acquire for its
 * release, a barrier for its thread blocks, a read of packets for their arrival; puts,
 * gets, copies and reductions move and combine values at once. At the end the buffers
 * must hold what the collective promises. When thread-block groups share operations, each
 * chunk is followed in p->parts parts, of which each block of a group moves its share.
 * Beside the values it follows the order every execution keeps (happens-before: a thread
 * block's operations in turn, the k-th signal on a channel before the k-th wait on its
 * partner, a release before the acquire that needs it, a barrier's arrivals before its
 * departures, a packet's write before its read), as a vector clock per operation, and finds
 * every read and write of a part that no such order puts after the write before it. */
#include "chunks_private.h"
#include "mscclpp_private.h"

#include "errors.h"

#include <string.h>

typedef struct {
    const FennelMscclppPlan *p;
    FennelChunks v;
    FennelChunksColl coll;
    uint32_t k, grid; /* chunks per rank, a rank's alltoall input */
    uint32_t parts;   /* parts per chunk (p->parts) */
    uint32_t *store;  /* value per part of a chunk */
    size_t n_store;
    uint32_t *base;       /* per gpu and buffer, in parts */
    uint32_t *shift;      /* per gpu: where the smaller user buffer sits in the larger, in place */
    uint32_t *sem;        /* per channel: signals not yet taken */
    int64_t *sems;        /* per semaphore */
    GHashTable *bars;     /* (gpu, barrier id) -> arrivals */
    int64_t *arrival;     /* per thread block: its arrival number at the barrier it is at, or -1 */
    GArray *scratch;      /* uint32_t: a result */
    uint32_t gpu, tb, op; /* the operation executing, for messages */
    /* Happens-before: per operation its clock (n_tbs entries: of each thread block, how
     * many of its operations come before it in every execution), NULL when too large. */
    uint32_t *clock;
    uint32_t *op_tb;      /* per operation: its thread block (global index) */
    uint32_t *tb_gpu;     /* per thread block: its gpu */
    uint32_t *last_write; /* per part of the store: the operation that last wrote it, + 1 */
    GArray **reads;       /* per part of the store: the operations that read it since */
    GArray **signals;     /* per channel: the operations whose signals it received */
    uint32_t *taken;      /* per channel: the signals its waits took */
    GArray **releases;    /* per semaphore: the operations that released it */
    int64_t *acquires;    /* per semaphore: its acquires so far */
    GHashTable *joins;    /* (gpu, barrier, round) -> the clock of its arrivals */
} Checker;

static gboolean op_error(const Checker *c, GError **error, const char *format, ...)
    G_GNUC_PRINTF(3, 4);
static gboolean op_error(const Checker *c, GError **error, const char *format, ...)
{
    const FennelMscclppPlan *p = c->p;
    const FennelMscclppOp *op = &p->ops[c->op];
    va_list args;
    va_start(args, format);
    char *what = g_strdup_vprintf(format, args);
    va_end(args);
    fennel_error_at(error, p->file, op->line, op->col, "gpu %u tb %u op %u (%s): %s", c->gpu, c->tb,
                    c->op - p->tbs[p->gpus[c->gpu].first_tb + c->tb].first_op,
                    fennel_mscclpp_op_name(op), what);
    g_free(what);
    return FALSE;
}

/* Part `index` (chunk index / parts) of a buffer. In place, input and output are one user
 * buffer: the input at the rank's part of the output for allgather, the output at the rank's
 * part of the input for reducescatter. */
static uint32_t *at(const Checker *c, uint32_t g, uint8_t buf, int64_t index)
{
    uint32_t shift = 0;
    if (c->p->inplace && buf < 2) {
        uint8_t small = c->coll == FENNEL_CHUNKS_REDUCE_SCATTER ? 1 : 0;
        shift = buf == small ? c->shift[g] * c->parts : 0;
        buf = 0;
    }
    return &c->store[c->base[3 * g + buf] + shift + (uint32_t)index];
}

/* "i[3]", or with groups "i[3] (part 2 of 4)", for part `i` of buffer `buf`. */
static void name_part(GString *s, const Checker *c, char buf, int64_t i)
{
    g_string_append_printf(s, "%c[%" G_GINT64_FORMAT "]", buf, i / c->parts);
    if (c->parts > 1)
        g_string_append_printf(s, " (part %" G_GINT64_FORMAT " of %u)", i % c->parts + 1, c->parts);
}

static void name_chunk(GString *s, const Checker *c, const FennelMscclppOperand *x, int64_t i)
{
    if (x->gpu != c->gpu)
        g_string_append_printf(s, "gpu %u's ", x->gpu);
    name_part(s, c, "ios"[x->buf], i);
}

/* "gpu 1 tb 0 op 2 (copy)": operation o. */
static void name_op(GString *s, const Checker *c, uint32_t o)
{
    const FennelMscclppPlan *p = c->p;
    uint32_t t = c->op_tb[o], g = c->tb_gpu[t];
    g_string_append_printf(s, "gpu %u tb %u op %u (%s)", g, t - p->gpus[g].first_tb,
                           o - p->tbs[t].first_op, fennel_mscclpp_op_name(&p->ops[o]));
}

/* Whether operation w comes before operation r in every execution (or is r). */
static gboolean before(const Checker *c, uint32_t w, uint32_t r)
{
    uint32_t t = c->op_tb[w];
    return w == r || c->clock[(size_t)r * c->p->n_tbs + t] > w - c->p->tbs[t].first_op;
}

static void join(Checker *c, uint32_t *mine, uint32_t other)
{
    uint32_t n = c->p->n_tbs;
    const uint32_t *theirs = c->clock + (size_t)other * n;
    for (uint32_t i = 0; i < n; i++)
        mine[i] = MAX(mine[i], theirs[i]);
}

/* The part at store index `at` (part i of operand x) is read by the operation executing:
 * the write before it must come before it in every execution. */
static gboolean race_read(Checker *c, const FennelMscclppOperand *x, int64_t i, size_t at,
                          GError **error)
{
    if (c->clock == NULL)
        return TRUE;
    uint32_t w = c->last_write[at];
    if (w != 0 && !before(c, w - 1, c->op)) {
        GString *s = g_string_new(NULL), *who = g_string_new(NULL);
        name_chunk(s, c, x, i);
        name_op(who, c, w - 1);
        op_error(c, error,
                 "reads %s after %s writes it, but no signal, semaphore, barrier or packet "
                 "orders the two: another execution reads it first (a race)",
                 s->str, who->str);
        g_string_free(s, TRUE);
        g_string_free(who, TRUE);
        return FALSE;
    }
    if (c->reads[at] == NULL)
        c->reads[at] = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    GArray *r = c->reads[at];
    if (r->len == 0 || g_array_index(r, uint32_t, r->len - 1) != c->op)
        g_array_append_val(r, c->op);
    return TRUE;
}

/* The operation executing writes `value` into part i of operand x's buffer on gpu g: the
 * write and the reads before it must come before it in every execution. */
static gboolean write_part(Checker *c, const FennelMscclppOperand *x, uint32_t g, int64_t i,
                           uint32_t value, GError **error)
{
    uint32_t *cell = at(c, g, x->buf, i);
    *cell = value;
    if (c->clock == NULL)
        return TRUE;
    size_t where = (size_t)(cell - c->store);
    uint32_t w = c->last_write[where], other = UINT32_MAX;
    const char *what = NULL;
    if (w != 0 && !before(c, w - 1, c->op)) {
        other = w - 1;
        what = "writes too";
    }
    GArray *r = c->reads[where];
    for (guint k = 0; what == NULL && r && k < r->len; k++)
        if (!before(c, g_array_index(r, uint32_t, k), c->op)) {
            other = g_array_index(r, uint32_t, k);
            what = "reads";
        }
    if (what != NULL) {
        FennelMscclppOperand y = *x;
        y.gpu = g;
        GString *s = g_string_new(NULL), *who = g_string_new(NULL);
        name_chunk(s, c, &y, i);
        name_op(who, c, other);
        op_error(c, error,
                 "writes %s, which %s %s, but no signal, semaphore, barrier or packet orders "
                 "the two: %s (a race)",
                 s->str, who->str, what,
                 what[0] == 'w' ? "the chunk keeps either" : "another execution writes it first");
        g_string_free(s, TRUE);
        g_string_free(who, TRUE);
        return FALSE;
    }
    if (r)
        g_array_set_size(r, 0);
    c->last_write[where] = c->op + 1;
    return TRUE;
}

/* Part i of a buffer of gpu g, operand x's buffer. */
static gboolean read_chunk(Checker *c, const FennelMscclppOperand *x, uint32_t g, int64_t i,
                           uint32_t *value, GError **error)
{
    *value = *at(c, g, x->buf, i);
    if (*value != 0)
        return race_read(c, x, i, (size_t)(at(c, g, x->buf, i) - c->store), error);
    GString *s = g_string_new(NULL);
    name_chunk(s, c, x, i);
    op_error(c, error, "reads %s, which holds nothing yet (a read before its write)", s->str);
    g_string_free(s, TRUE);
    return FALSE;
}

/* Folds value y (operand y, chunk i) into *acc. */
static gboolean fold(Checker *c, uint32_t *acc, const FennelMscclppOperand *xa, int64_t ia,
                     uint32_t y, const FennelMscclppOperand *xy, int64_t i, GError **error)
{
    gboolean different;
    GString *twice = g_string_new(NULL);
    uint32_t before = *acc;
    *acc = fennel__chunks_combine(&c->v, before, y, &different, twice);
    if (*acc == 0 && fennel__chunks_refused(&c->v, c->p->file, error)) {
        g_string_free(twice, TRUE);
        return FALSE;
    }
    if (*acc == 0) {
        GString *a = g_string_new(NULL), *b = g_string_new(NULL);
        name_chunk(a, c, xa, ia);
        name_chunk(b, c, xy, i);
        if (different)
            op_error(c, error,
                     "reduces chunk %u (%s) with chunk %u (%s): different chunks of "
                     "the collective",
                     fennel__chunks_chunk(&c->v, before), a->str, fennel__chunks_chunk(&c->v, y),
                     b->str);
        else
            op_error(c, error, "counts the contributions of ranks %s to chunk %u twice (%s)",
                     twice->str, fennel__chunks_chunk(&c->v, y), b->str);
        g_string_free(a, TRUE);
        g_string_free(b, TRUE);
    }
    g_string_free(twice, TRUE);
    return *acc != 0;
}

static const uint32_t *group_ranks(const Checker *c, const FennelMscclppOp *op, uint32_t *n)
{
    const FennelMscclppGroup *g = &c->p->groups[c->p->chan_refs[op->first_chan]];
    *n = g->n_ranks;
    return c->p->group_ranks + g->first_rank;
}

/* The clock of round `round` of the barrier of the operation executing, made on first use. */
static uint32_t *round_clock(Checker *c, uint32_t round)
{
    const FennelMscclppOp *op = &c->p->ops[c->op];
    char *key = g_strdup_printf("%u/%d/%u", c->gpu, op->barrier, round);
    uint32_t *clock = g_hash_table_lookup(c->joins, key);
    if (clock == NULL) {
        clock = g_new0(uint32_t, c->p->n_tbs);
        g_hash_table_insert(c->joins, key, clock);
    } else {
        g_free(key);
    }
    return clock;
}

/* Thread block t arrives at the barrier of the operation executing: what came before it
 * comes before every block's departure. */
static void arrive(Checker *c, uint32_t t, int64_t round)
{
    if (c->clock == NULL || c->op == c->p->tbs[t].first_op)
        return;
    uint32_t *clock = round_clock(c, (uint32_t)round);
    const uint32_t *mine = c->clock + (size_t)(c->op - 1) * c->p->n_tbs;
    for (uint32_t i = 0; i < c->p->n_tbs; i++)
        clock[i] = MAX(clock[i], mine[i]);
}

/* The operation executing (of thread block t) starts: its clock joins those of the
 * operations every execution puts before it. */
static void tick(Checker *c, const FennelMscclppOp *op, uint32_t t)
{
    const FennelMscclppPlan *p = c->p;
    uint32_t n = p->n_tbs;
    uint32_t *mine = c->clock + (size_t)c->op * n;
    if (c->op > p->tbs[t].first_op)
        memcpy(mine, mine - n, n * sizeof *mine);
    else
        memset(mine, 0, n * sizeof *mine);
    const uint32_t *refs = p->chan_refs + op->first_chan;
    const FennelMscclppOperand *x = p->operands + op->first_src;
    switch ((FennelMscclppKind)op->kind) {
    case FENNEL_MSCCLPP_WAIT:
        for (uint32_t k = 0; k < op->n_chans; k++) {
            GArray *q = c->signals[refs[k]];
            uint32_t from = c->taken[refs[k]]++;
            if (q && from < q->len)
                join(c, mine, g_array_index(q, uint32_t, from));
        }
        break;
    case FENNEL_MSCCLPP_SEM_ACQUIRE:
        for (uint32_t k = 0; k < op->n_chans; k++) {
            uint32_t sem = p->gpus[c->gpu].first_sem + refs[k];
            int64_t need = c->acquires[sem]++ - p->sem_init[sem];
            GArray *q = c->releases[sem];
            if (need >= 0 && q && need < (int64_t)q->len)
                join(c, mine, g_array_index(q, uint32_t, need));
        }
        break;
    case FENNEL_MSCCLPP_BARRIER: {
        const uint32_t *all = round_clock(c, (uint32_t)(c->arrival[t] / op->barrier_tbs));
        for (uint32_t i = 0; i < n; i++)
            mine[i] = MAX(mine[i], all[i]);
        break;
    }
    default:
        for (uint32_t s = 0; s < op->n_src; s++)
            if (x[s].packets) {
                int64_t lo, m = fennel_mscclpp_span(p, op, &x[s], &lo);
                for (int64_t i = lo; i < lo + m; i++) {
                    uint32_t w = c->last_write[at(c, x[s].gpu, x[s].buf, i) - c->store];
                    if (w != 0)
                        join(c, mine, w - 1);
                }
            }
        break;
    }
    mine[t] = c->op - p->tbs[t].first_op + 1;
}

/* Whether every synchronisation the operation waits for has come. */
static gboolean ready(Checker *c, const FennelMscclppOp *op, uint32_t t)
{
    const FennelMscclppPlan *p = c->p;
    const uint32_t *refs = p->chan_refs + op->first_chan;
    const FennelMscclppOperand *x = p->operands + op->first_src;
    switch ((FennelMscclppKind)op->kind) {
    case FENNEL_MSCCLPP_WAIT:
        for (uint32_t k = 0; k < op->n_chans; k++)
            if (c->sem[refs[k]] == 0)
                return FALSE;
        return TRUE;
    case FENNEL_MSCCLPP_SEM_ACQUIRE:
        for (uint32_t k = 0; k < op->n_chans; k++)
            if (c->sems[p->gpus[c->gpu].first_sem + refs[k]] <= 0)
                return FALSE;
        return TRUE;
    case FENNEL_MSCCLPP_BARRIER: {
        gpointer key = GSIZE_TO_POINTER(((gsize)c->gpu << 20) ^ (gsize)op->barrier);
        int64_t seen = GPOINTER_TO_SIZE(g_hash_table_lookup(c->bars, key));
        if (c->arrival[t] < 0) {
            c->arrival[t] = seen++;
            g_hash_table_insert(c->bars, key, GSIZE_TO_POINTER((gsize)seen));
            arrive(c, t, c->arrival[t] / op->barrier_tbs);
        }
        return seen >= (c->arrival[t] / op->barrier_tbs + 1) * op->barrier_tbs;
    }
    default:
        break;
    }
    for (uint32_t s = 0; s < op->n_src; s++)
        if (x[s].packets) {
            int64_t lo, n = fennel_mscclpp_span(p, op, &x[s], &lo);
            for (int64_t i = lo; i < lo + n; i++)
                if (*at(c, x[s].gpu, x[s].buf, i) == 0)
                    return FALSE;
        }
    return TRUE;
}

/* Operation c->op records that it signals channel `to` or releases semaphore `to`. */
static void post(Checker *c, GArray **queues, uint32_t to)
{
    if (c->clock == NULL)
        return;
    if (queues[to] == NULL)
        queues[to] = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    g_array_append_val(queues[to], c->op);
}

static gboolean execute(Checker *c, const FennelMscclppOp *op, uint32_t t, GError **error)
{
    const FennelMscclppPlan *p = c->p;
    const uint32_t *refs = p->chan_refs + op->first_chan;
    const FennelMscclppOperand *src = p->operands + op->first_src, *dst = src + op->n_src;
    /* The operands' parts this thread block does: every operand as long as the first. */
    int64_t slo = 0, dlo = 0, lo;
    int64_t size = op->n_src ? fennel_mscclpp_span(p, op, &src[0], &slo) : 0;
    g_array_set_size(c->scratch, (guint)size);
    uint32_t *v = (uint32_t *)(void *)c->scratch->data;
    if (c->clock)
        tick(c, op, t);
    switch ((FennelMscclppKind)op->kind) {
    case FENNEL_MSCCLPP_WAIT:
        for (uint32_t k = 0; k < op->n_chans; k++)
            c->sem[refs[k]]--;
        return TRUE;
    case FENNEL_MSCCLPP_SEM_ACQUIRE:
    case FENNEL_MSCCLPP_SEM_RELEASE:
        for (uint32_t k = 0; k < op->n_chans; k++) {
            uint32_t sem = p->gpus[c->gpu].first_sem + refs[k];
            c->sems[sem] += op->kind == FENNEL_MSCCLPP_SEM_ACQUIRE ? -1 : 1;
            if (op->kind == FENNEL_MSCCLPP_SEM_RELEASE)
                post(c, c->releases, sem);
        }
        return TRUE;
    case FENNEL_MSCCLPP_PUT:
    case FENNEL_MSCCLPP_PUT_PACKETS:
    case FENNEL_MSCCLPP_GET:
        for (uint32_t d = 0; d < op->n_dst; d++) {
            const FennelMscclppOperand *s = &src[MIN(d, op->n_src - 1u)];
            int64_t n = fennel_mscclpp_span(p, op, s, &lo);
            fennel_mscclpp_span(p, op, &dst[d], &dlo);
            g_array_set_size(c->scratch, (guint)n);
            v = (uint32_t *)(void *)c->scratch->data;
            for (int64_t i = 0; i < n; i++)
                if (!read_chunk(c, s, s->gpu, lo + i, &v[i], error))
                    return FALSE;
            for (int64_t i = 0; i < n; i++)
                if (!write_part(c, &dst[d], dst[d].gpu, dlo + i, v[i], error))
                    return FALSE;
        }
        break;
    case FENNEL_MSCCLPP_COPY:
    case FENNEL_MSCCLPP_UNPACK_PACKETS:
    case FENNEL_MSCCLPP_REDUCE:
    case FENNEL_MSCCLPP_REDUCE_PACKETS:
    case FENNEL_MSCCLPP_MULTI_STORE:
        for (uint32_t s = 0; s < op->n_src; s++) {
            fennel_mscclpp_span(p, op, &src[s], &lo);
            for (int64_t i = 0; i < size; i++) {
                uint32_t y;
                if (!read_chunk(c, &src[s], src[s].gpu, lo + i, s ? &y : &v[i], error) ||
                    (s && !fold(c, &v[i], &src[0], slo + i, y, &src[s], lo + i, error)))
                    return FALSE;
            }
        }
        if (op->kind == FENNEL_MSCCLPP_MULTI_STORE) {
            uint32_t n;
            const uint32_t *ranks = group_ranks(c, op, &n);
            fennel_mscclpp_span(p, op, &dst[0], &dlo);
            for (uint32_t r = 0; r < n; r++)
                for (int64_t i = 0; i < size; i++)
                    if (!write_part(c, &dst[0], ranks[r], dlo + i, v[i], error))
                        return FALSE;
            break;
        }
        for (uint32_t d = 0; d < op->n_dst; d++) {
            fennel_mscclpp_span(p, op, &dst[d], &dlo);
            for (int64_t i = 0; i < size; i++)
                if (!write_part(c, &dst[d], dst[d].gpu, dlo + i, v[i], error))
                    return FALSE;
        }
        break;
    case FENNEL_MSCCLPP_MULTI_REDUCE: {
        uint32_t n;
        const uint32_t *ranks = group_ranks(c, op, &n);
        for (int64_t i = 0; i < size; i++)
            for (uint32_t r = 0; r < n; r++) {
                FennelMscclppOperand x = src[0];
                x.gpu = ranks[r];
                uint32_t y;
                if (!read_chunk(c, &x, ranks[r], slo + i, r ? &y : &v[i], error) ||
                    (r && !fold(c, &v[i], &src[0], slo + i, y, &x, slo + i, error)))
                    return FALSE;
            }
        fennel_mscclpp_span(p, op, &dst[0], &dlo);
        for (uint32_t r = 0; r < n; r++)
            for (int64_t i = 0; i < size; i++)
                if (!write_part(c, &dst[0], ranks[r], dlo + i, v[i], error))
                    return FALSE;
        break;
    }
    default:
        break;
    }
    if (op->kind == FENNEL_MSCCLPP_SIGNAL || op->signals)
        for (uint32_t k = 0; k < op->n_chans; k++) {
            c->sem[p->channels[refs[k]].partner]++;
            post(c, c->signals, p->channels[refs[k]].partner);
        }
    return TRUE;
}

/* The first thread block that cannot go on, said why. */
static gboolean report_stuck(Checker *c, const uint32_t *pc, GError **error)
{
    const FennelMscclppPlan *p = c->p;
    for (c->gpu = 0; c->gpu < p->ngpus; c->gpu++)
        for (c->tb = 0; c->tb < p->gpus[c->gpu].n_tbs; c->tb++) {
            uint32_t t = p->gpus[c->gpu].first_tb + c->tb;
            if (pc[t] >= p->tbs[t].n_ops)
                continue;
            c->op = p->tbs[t].first_op + pc[t];
            const FennelMscclppOp *op = &p->ops[c->op];
            const uint32_t *refs = p->chan_refs + op->first_chan;
            const char *cycle = "(a cycle of waits)";
            if (op->kind == FENNEL_MSCCLPP_WAIT) {
                uint32_t k = 0;
                while (k + 1 < op->n_chans && c->sem[refs[k]] > 0)
                    k++;
                return op_error(c, error, "waits for a signal from gpu %u that never comes %s",
                                p->channels[refs[k]].peer, cycle);
            }
            if (op->kind == FENNEL_MSCCLPP_SEM_ACQUIRE)
                return op_error(c, error, "acquires a semaphore that is never released %s", cycle);
            if (op->kind == FENNEL_MSCCLPP_BARRIER)
                return op_error(c, error,
                                "waits at barrier %d for %d thread blocks that never "
                                "all come %s",
                                op->barrier, op->barrier_tbs, cycle);
            return op_error(c, error, "waits for packets that are never written %s", cycle);
        }
    return TRUE;
}

/* The chunks of the output the collective promises, and the buffer that holds them. */
static uint32_t output_chunks(const Checker *c, char *letter)
{
    const FennelMscclppPlan *p = c->p;
    *letter =
        p->inplace && c->coll != FENNEL_CHUNKS_ALLGATHER && c->coll != FENNEL_CHUNKS_REDUCE_SCATTER
            ? 'i'
            : 'o';
    return c->coll == FENNEL_CHUNKS_ALLREDUCE        ? fennel_mscclpp_rank_chunks(p)
           : c->coll == FENNEL_CHUNKS_REDUCE_SCATTER ? c->k
           : c->coll == FENNEL_CHUNKS_ALLGATHER      ? p->ngpus * c->k
                                                     : c->grid;
}

static gboolean check_final(Checker *c, GError **error)
{
    const FennelMscclppPlan *p = c->p;
    uint32_t n = p->ngpus;
    char letter;
    uint32_t out = output_chunks(c, &letter);
    uint64_t want[c->v.words];
    /* The mismatch writes only when there is one: the chunk's name is printed then. */
    GString *s = g_string_new(NULL);
    for (uint32_t g = 0; g < n; g++)
        for (uint32_t off = 0; off < out; off++) {
            uint32_t chunk;
            fennel__chunks_expected(&c->v, c->coll, g, off, c->k, c->grid, &chunk, want);
            for (int64_t i = (int64_t)off * c->parts; i < (int64_t)(off + 1) * c->parts; i++) {
                uint32_t value = *at(c, g, letter == 'i' ? 0 : 1, i);
                if (fennel__chunks_mismatch(&c->v, value, chunk, want, s)) {
                    GString *name = g_string_new(NULL);
                    name_part(name, c, letter, i);
                    fennel_error_at(error, p->file, p->gpus[g].line, p->gpus[g].col,
                                    "gpu %u: %s %s", g, name->str, s->str);
                    g_string_free(name, TRUE);
                    g_string_free(s, TRUE);
                    return FALSE;
                }
            }
        }
    g_string_free(s, TRUE);
    return TRUE;
}

/* Buffers: each GPU's three, in place its input and output as one of the larger size. */
static gboolean layout(Checker *c, GError **error)
{
    const FennelMscclppPlan *p = c->p;
    uint64_t total = 0;
    for (uint32_t g = 0; g < p->ngpus; g++) {
        const int32_t *ch = p->gpus[g].chunks;
        uint64_t parts = c->parts;
        c->base[3 * g] = (uint32_t)total;
        if (p->inplace) {
            uint32_t small = (uint32_t)MIN(ch[0], ch[1]), large = (uint32_t)MAX(ch[0], ch[1]);
            c->shift[g] =
                c->coll == FENNEL_CHUNKS_ALLGATHER || c->coll == FENNEL_CHUNKS_REDUCE_SCATTER
                    ? MIN(g * small, large - MIN(small, large))
                    : 0;
            c->base[3 * g + 1] = c->base[3 * g];
            total += large * parts;
        } else {
            c->base[3 * g + 1] = (uint32_t)(total + (uint64_t)ch[0] * parts);
            total += ((uint64_t)ch[0] + (uint64_t)ch[1]) * parts;
        }
        c->base[3 * g + 2] = (uint32_t)total;
        total += (uint64_t)ch[2] * parts;
        if (total > (1u << 24)) {
            fennel_error_at(error, p->file, p->line, p->col,
                            "the buffers hold more than the %u chunks%s this check can follow",
                            1u << 24, parts > 1 ? " and parts of chunks" : "");
            return FALSE;
        }
    }
    c->store = g_new0(uint32_t, total);
    c->n_store = (size_t)total;
    if (c->clock) {
        c->last_write = g_new0(uint32_t, total + 1);
        c->reads = g_new0(GArray *, total + 1);
    }
    return TRUE;
}

static gboolean run(Checker *c, GError **error)
{
    const FennelMscclppPlan *p = c->p;
    if (!layout(c, error))
        return FALSE;
    uint64_t inputs = 0;
    for (uint32_t g = 0; g < p->ngpus; g++)
        inputs += (uint64_t)p->gpus[g].chunks[0];
    if (!fennel__chunks_expect(&c->v, inputs, p->file, error))
        return FALSE;
    for (uint32_t g = 0; g < p->ngpus; g++)
        for (int32_t off = 0; off < p->gpus[g].chunks[0]; off++) {
            uint32_t value = fennel__chunks_input(
                &c->v, fennel__chunks_input_chunk(c->coll, g, (uint32_t)off, c->k, c->grid), g);
            for (uint32_t i = 0; i < c->parts; i++)
                *at(c, g, 0, (int64_t)off * c->parts + i) = value;
        }
    if (fennel__chunks_refused(&c->v, p->file, error))
        return FALSE;
    uint32_t *pc = g_new0(uint32_t, p->n_tbs);
    gboolean progress = TRUE, ok = TRUE, finished = FALSE;
    while (ok && progress) {
        progress = FALSE;
        finished = TRUE;
        for (c->gpu = 0; ok && c->gpu < p->ngpus; c->gpu++)
            for (c->tb = 0; ok && c->tb < p->gpus[c->gpu].n_tbs; c->tb++) {
                uint32_t t = p->gpus[c->gpu].first_tb + c->tb;
                while (ok && pc[t] < p->tbs[t].n_ops) {
                    c->op = p->tbs[t].first_op + pc[t];
                    if (!ready(c, &p->ops[c->op], t))
                        break;
                    ok = execute(c, &p->ops[c->op], t, error);
                    c->arrival[t] = -1;
                    pc[t]++;
                    progress = TRUE;
                }
                finished = finished && pc[t] == p->tbs[t].n_ops;
            }
    }
    if (ok && !finished)
        ok = report_stuck(c, pc, error);
    if (ok && c->coll != FENNEL_CHUNKS_NONE)
        ok = check_final(c, error);
    g_free(pc);
    return ok;
}

/* The chunks per rank the collective's promise is counted in. */
static gboolean shape(Checker *c, GError **error)
{
    const FennelMscclppPlan *p = c->p;
    const int32_t *ch = p->gpus[0].chunks;
    uint32_t n = p->ngpus;
    c->k = (uint32_t)(c->coll == FENNEL_CHUNKS_REDUCE_SCATTER ? ch[1] : ch[0]);
    c->grid = (uint32_t)ch[0];
    if (c->coll == FENNEL_CHUNKS_ALLTOALL)
        c->k = (uint32_t)ch[0] / n;
    gboolean same = TRUE;
    for (uint32_t g = 1; g < n; g++)
        same &= memcmp(p->gpus[g].chunks, ch, 2 * sizeof *ch) == 0;
    uint32_t big = c->coll == FENNEL_CHUNKS_ALLGATHER ? (uint32_t)ch[1] : (uint32_t)ch[0];
    gboolean fits = c->coll == FENNEL_CHUNKS_NONE || c->coll == FENNEL_CHUNKS_ALLREDUCE ||
                    (c->k > 0 && big == n * c->k);
    char letter;
    uint32_t out = output_chunks(c, &letter);
    uint32_t room = p->inplace ? (uint32_t)MAX(ch[0], ch[1]) : (uint32_t)ch[letter == 'o'];
    if (same && fits && c->k > 0 && out <= room)
        return TRUE;
    fennel_error_at(error, p->file, p->gpus[0].line, p->gpus[0].col,
                    "input_chunks %d and output_chunks %d over %u gpus do not make a %s", ch[0],
                    ch[1], n, p->coll);
    return FALSE;
}

gboolean fennel_mscclpp_verify(const FennelMscclppPlan *p, FennelMscclppReport *report,
                               GError **error)
{
    Checker c = {.p = p, .coll = fennel__chunks_coll(p->coll), .parts = MAX(p->parts, 1u)};
    gboolean ok = c.coll == FENNEL_CHUNKS_NONE || shape(&c, error);
    if (c.coll == FENNEL_CHUNKS_NONE)
        c.k = c.grid = 1;
    if (!ok)
        return FALSE;
    fennel__chunks_init(&c.v, p->ngpus, 1024);
    c.base = g_new(uint32_t, 3 * p->ngpus);
    c.shift = g_new0(uint32_t, p->ngpus);
    c.sem = g_new0(uint32_t, p->n_channels);
    c.sems = g_new(int64_t, p->n_sems + 1);
    if (p->n_sems > 0)
        memcpy(c.sems, p->sem_init, p->n_sems * sizeof *c.sems);
    c.arrival = g_new(int64_t, p->n_tbs + 1);
    for (uint32_t t = 0; t < p->n_tbs; t++)
        c.arrival[t] = -1;
    c.bars = g_hash_table_new(g_direct_hash, g_direct_equal);
    c.scratch = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    /* The clocks take n_ops x n_tbs entries: followed up to 2^26 of them (256 MiB). */
    if ((uint64_t)p->n_ops * p->n_tbs <= (1u << 26)) {
        c.clock = g_new(uint32_t, (gsize)p->n_ops * p->n_tbs + 1);
        c.op_tb = g_new(uint32_t, p->n_ops + 1);
        c.tb_gpu = g_new(uint32_t, p->n_tbs + 1);
        for (uint32_t g = 0; g < p->ngpus; g++)
            for (uint32_t t = p->gpus[g].first_tb; t < p->gpus[g].first_tb + p->gpus[g].n_tbs;
                 t++) {
                c.tb_gpu[t] = g;
                for (uint32_t o = p->tbs[t].first_op; o < p->tbs[t].first_op + p->tbs[t].n_ops; o++)
                    c.op_tb[o] = t;
            }
        c.signals = g_new0(GArray *, p->n_channels + 1);
        c.taken = g_new0(uint32_t, p->n_channels + 1);
        c.releases = g_new0(GArray *, p->n_sems + 1);
        c.acquires = g_new0(int64_t, p->n_sems + 1);
        c.joins = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    }
    ok = run(&c, error);
    if (report) {
        /* Counted in whole chunks: a reduction that a group shares is one. */
        report->combines = c.v.combines / c.parts;
        report->postcondition = c.coll != FENNEL_CHUNKS_NONE;
    }
    fennel__chunks_clear(&c.v);
    g_free(c.store);
    g_free(c.base);
    g_free(c.shift);
    g_free(c.sem);
    g_free(c.sems);
    g_free(c.arrival);
    g_hash_table_unref(c.bars);
    g_array_unref(c.scratch);
    if (c.clock) {
        for (size_t i = 0; i < c.n_store; i++)
            if (c.reads[i])
                g_array_unref(c.reads[i]);
        for (uint32_t i = 0; i < p->n_channels; i++)
            if (c.signals[i])
                g_array_unref(c.signals[i]);
        for (uint32_t i = 0; i < p->n_sems; i++)
            if (c.releases[i])
                g_array_unref(c.releases[i]);
        g_free(c.reads);
        g_free(c.last_write);
        g_free(c.clock);
        g_free(c.op_tb);
        g_free(c.tb_gpu);
        g_free(c.signals);
        g_free(c.taken);
        g_free(c.releases);
        g_free(c.acquires);
        g_hash_table_unref(c.joins);
    }
    return ok;
}
