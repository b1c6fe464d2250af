/* The symbolic check of an MSCCL++ execution plan (docs/FORMATS.md). Every chunk of every
 * buffer holds a value (chunks_private.h). The thread blocks run operation by operation in
 * an order the executor could take: a wait waits for its signal, an acquire for its
 * release, a barrier for its thread blocks, a read of packets for their arrival; puts,
 * gets, copies and reductions move and combine values at once. At the end the buffers
 * must hold what the collective promises. When thread-block groups share operations, each
 * chunk is followed in p->parts parts, of which each block of a group moves its share. */
#include "chunks_private.h"
#include "mscclpp_private.h"

#include "errors.h"

#include <string.h>

typedef struct {
    const FennelMscclppPlan *p;
    FennelChunks v;
    FennelChunksColl coll;
    uint32_t k, grid;     /* chunks per rank, a rank's alltoall input */
    uint32_t parts;       /* parts per chunk (p->parts) */
    uint32_t *store;      /* value per part of a chunk */
    uint32_t *base;       /* per gpu and buffer, in parts */
    uint32_t *shift;      /* per gpu: where the smaller user buffer sits in the larger, in place */
    uint32_t *sem;        /* per channel: signals not yet taken */
    int64_t *sems;        /* per semaphore */
    GHashTable *bars;     /* (gpu, barrier id) -> arrivals */
    int64_t *arrival;     /* per thread block: its arrival number at the barrier it is at, or -1 */
    GArray *scratch;      /* uint32_t: a result */
    uint32_t gpu, tb, op; /* the operation executing, for messages */
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

/* Part i of a buffer of gpu g, operand x's buffer. */
static gboolean read_chunk(const Checker *c, const FennelMscclppOperand *x, uint32_t g, int64_t i,
                           uint32_t *value, GError **error)
{
    *value = *at(c, g, x->buf, i);
    if (*value != 0)
        return TRUE;
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

static gboolean execute(Checker *c, const FennelMscclppOp *op, GError **error)
{
    const FennelMscclppPlan *p = c->p;
    const uint32_t *refs = p->chan_refs + op->first_chan;
    const FennelMscclppOperand *src = p->operands + op->first_src, *dst = src + op->n_src;
    /* The operands' parts this thread block does: every operand as long as the first. */
    int64_t slo = 0, dlo = 0, lo;
    int64_t size = op->n_src ? fennel_mscclpp_span(p, op, &src[0], &slo) : 0;
    g_array_set_size(c->scratch, (guint)size);
    uint32_t *v = (uint32_t *)(void *)c->scratch->data;
    switch ((FennelMscclppKind)op->kind) {
    case FENNEL_MSCCLPP_WAIT:
        for (uint32_t k = 0; k < op->n_chans; k++)
            c->sem[refs[k]]--;
        return TRUE;
    case FENNEL_MSCCLPP_SEM_ACQUIRE:
    case FENNEL_MSCCLPP_SEM_RELEASE:
        for (uint32_t k = 0; k < op->n_chans; k++)
            c->sems[p->gpus[c->gpu].first_sem + refs[k]] +=
                op->kind == FENNEL_MSCCLPP_SEM_ACQUIRE ? -1 : 1;
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
                *at(c, dst[d].gpu, dst[d].buf, dlo + i) = v[i];
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
                    *at(c, ranks[r], dst[0].buf, dlo + i) = v[i];
            break;
        }
        for (uint32_t d = 0; d < op->n_dst; d++) {
            fennel_mscclpp_span(p, op, &dst[d], &dlo);
            for (int64_t i = 0; i < size; i++)
                *at(c, dst[d].gpu, dst[d].buf, dlo + i) = v[i];
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
                *at(c, ranks[r], dst[0].buf, dlo + i) = v[i];
        break;
    }
    default:
        break;
    }
    if (op->kind == FENNEL_MSCCLPP_SIGNAL || op->signals)
        for (uint32_t k = 0; k < op->n_chans; k++)
            c->sem[p->channels[refs[k]].partner]++;
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
                    ok = execute(c, &p->ops[c->op], error);
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
    return ok;
}
