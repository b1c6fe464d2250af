/* The symbolic check of an MSCCL algorithm (docs/FORMATS.md). Every chunk of every buffer
 * holds a value: which chunk of the collective it is and which ranks' contributions it
 * combines. The thread blocks run step by step in an order the runtime could take (a
 * step waits for its dependency and a receive for its message), moving and combining
 * values; at the end the buffers must hold what the collective promises. Beside the values
 * it follows the order every execution keeps (happens-before: a thread block's steps in
 * turn, a dependency before its step, a send before the receive of its message), as a
 * vector clock per step, and finds every read and write of a chunk that no such order puts
 * after the write before it: another legal execution could take them the other way. */
#include "chunks_private.h"
#include "msccl.h"

#include "errors.h"

#include <string.h>

typedef struct {
    uint32_t first, cnt; /* values in the connection's pool */
    uint32_t step;       /* the sending step */
} Message;

typedef struct {
    const FennelMscclAlgo *a;
    FennelChunksColl coll;
    gboolean in_place;
    const char *mode;
    FennelChunks v;       /* the values chunks hold (chunks_private.h) */
    uint32_t *store;      /* value per stored chunk */
    uint32_t *base;       /* per gpu and buffer (3 per gpu): offset into store, or UINT32_MAX */
    uint32_t *user_shift; /* per gpu: where input (allgather) or output (reduce-scatter) sits */
    uint32_t per_rank;    /* chunks of one rank's part: nchunksperloop / ngpus */
    GArray **pool;        /* per connection: Value indices sent on it */
    GArray **queue;       /* per connection: Message */
    uint32_t *head;       /* per connection: the next message to receive */
    GArray *scratch;      /* uint32_t: the values a step moves */
    GString *twice;       /* the ranks a reduction counts twice, for its message */
    /* Happens-before: per step its clock (n_tbs entries: of each thread block, how many
     * of its steps come before it in every execution), NULL when too large to follow. */
    uint32_t *clock;
    uint32_t *step_tb;    /* per step: its thread block */
    uint32_t *last_write; /* per stored chunk: the step that last wrote it, + 1 (0: none) */
    GArray **reads;       /* per stored chunk: the steps that read it since (uint32_t) */
} Checker;

static const char buffer_letter[3] = {'i', 'o', 's'};

/* The index into store of chunk `off` of buffer `buf` on gpu g, with the aliasing of an
 * in-place call: input and output are one user buffer, the input at the rank's part of
 * the output for allgather, the output at the rank's part of the input for
 * reduce-scatter. */
static uint32_t locate(const Checker *c, uint32_t g, uint8_t buf, int32_t off)
{
    if (c->in_place && buf != FENNEL_MSCCL_SCRATCH) {
        uint8_t user =
            c->coll == FENNEL_CHUNKS_REDUCE_SCATTER ? FENNEL_MSCCL_INPUT : FENNEL_MSCCL_OUTPUT;
        uint32_t shift = buf != user ? c->user_shift[g] : 0;
        return c->base[3 * g + FENNEL_MSCCL_OUTPUT] + shift + (uint32_t)off;
    }
    return c->base[3 * g + buf] + (uint32_t)off;
}

/* Whether step w comes before step r in every execution (or is r). */
static gboolean before(const Checker *c, uint32_t w, uint32_t r)
{
    uint32_t t = c->step_tb[w];
    return w == r || c->clock[(size_t)r * c->a->n_tbs + t] > w - c->a->tbs[t].first_step;
}

/* Step `index` of thread block t starts: its clock joins those of the steps before it. */
static void tick(Checker *c, uint32_t t, uint32_t index, uint32_t dep, uint32_t sender)
{
    uint32_t n = c->a->n_tbs;
    uint32_t *mine = c->clock + (size_t)index * n;
    if (index > c->a->tbs[t].first_step)
        memcpy(mine, mine - n, n * sizeof *mine);
    else
        memset(mine, 0, n * sizeof *mine);
    for (int k = 0; k < 2; k++) {
        uint32_t other = k == 0 ? dep : sender;
        if (other == UINT32_MAX)
            continue;
        const uint32_t *theirs = c->clock + (size_t)other * n;
        for (uint32_t i = 0; i < n; i++)
            mine[i] = MAX(mine[i], theirs[i]);
    }
    mine[t] = index - c->a->tbs[t].first_step + 1;
}

static gboolean step_error(const Checker *c, uint32_t g, uint32_t index, GError **error,
                           const char *format, ...) G_GNUC_PRINTF(5, 6);
static gboolean step_error(const Checker *c, uint32_t g, uint32_t index, GError **error,
                           const char *format, ...)
{
    const FennelMscclAlgo *a = c->a;
    const FennelMscclStep *st = &a->steps[index];
    uint32_t t = a->gpus[g].first_tb;
    while (index >= a->tbs[t].first_step + a->tbs[t].n_steps)
        t++;
    va_list args;
    va_start(args, format);
    char *what = g_strdup_vprintf(format, args);
    va_end(args);
    fennel_error_at(error, a->file, st->line, st->col, "gpu %u tb %u step %u (%s, %s): %s", g,
                    t - a->gpus[g].first_tb, index - a->tbs[t].first_step,
                    fennel_msccl_type_name(st->type), c->mode, what);
    g_free(what);
    return FALSE;
}

/* "tb 1 step 2 (cpy)": a step of gpu g. */
static void name_step(const Checker *c, uint32_t g, uint32_t s, char *out, gsize n)
{
    const FennelMscclAlgo *a = c->a;
    uint32_t t = c->step_tb[s];
    g_snprintf(out, n, "tb %u step %u (%s)", t - a->gpus[g].first_tb, s - a->tbs[t].first_step,
               fennel_msccl_type_name(a->steps[s].type));
}

/* Step `index` reads chunk `off` of `buf`: the write before it must come before it in every
 * execution. */
static gboolean race_read(Checker *c, uint32_t g, uint32_t index, uint8_t buf, int32_t off,
                          GError **error)
{
    if (c->clock == NULL)
        return TRUE;
    uint32_t at = locate(c, g, buf, off), w = c->last_write[at];
    char who[64];
    if (w != 0 && !before(c, w - 1, index)) {
        name_step(c, g, w - 1, who, sizeof who);
        return step_error(c, g, index, error,
                          "reads %c[%d] after %s writes it, but no dependency or message orders "
                          "the two: another execution reads it first (a race)",
                          buffer_letter[buf], off, who);
    }
    if (c->reads[at] == NULL)
        c->reads[at] = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    GArray *r = c->reads[at];
    if (r->len == 0 || g_array_index(r, uint32_t, r->len - 1) != index)
        g_array_append_val(r, index);
    return TRUE;
}

/* Step `index` writes chunk `off` of `buf`: the write and the reads before it must come
 * before it in every execution. */
static gboolean race_write(Checker *c, uint32_t g, uint32_t index, uint8_t buf, int32_t off,
                           GError **error)
{
    if (c->clock == NULL)
        return TRUE;
    uint32_t at = locate(c, g, buf, off), w = c->last_write[at];
    char who[64];
    if (w != 0 && !before(c, w - 1, index)) {
        name_step(c, g, w - 1, who, sizeof who);
        return step_error(c, g, index, error,
                          "writes %c[%d], which %s writes too, but no dependency or message "
                          "orders the two: the chunk keeps either (a race)",
                          buffer_letter[buf], off, who);
    }
    GArray *r = c->reads[at];
    for (guint k = 0; r && k < r->len; k++) {
        uint32_t s = g_array_index(r, uint32_t, k);
        if (!before(c, s, index)) {
            name_step(c, g, s, who, sizeof who);
            return step_error(c, g, index, error,
                              "writes %c[%d], which %s reads, but no dependency or message "
                              "orders the two: another execution writes it first (a race)",
                              buffer_letter[buf], off, who);
        }
    }
    if (r)
        g_array_set_size(r, 0);
    c->last_write[at] = index + 1;
    return TRUE;
}

/* Reads operand chunk `i` of a step, which must hold something. */
static gboolean read_chunk(const Checker *c, uint32_t g, uint32_t index, uint8_t buf, int32_t off,
                           uint32_t *value, GError **error)
{
    *value = c->store[locate(c, g, buf, off)];
    if (*value == 0)
        return step_error(c, g, index, error, "reads %c[%d], which holds nothing yet",
                          buffer_letter[buf], off);
    return TRUE;
}

/* Combines two values into a new one: the same chunk, disjoint contributions. */
static gboolean combine(Checker *c, uint32_t g, uint32_t index, uint32_t x, uint32_t y, uint32_t i,
                        uint32_t *out, GError **error)
{
    const FennelMscclStep *st = &c->a->steps[index];
    gboolean different;
    GString *twice = c->twice;
    g_string_truncate(twice, 0);
    *out = fennel__chunks_combine(&c->v, x, y, &different, twice);
    if (*out == 0 && fennel__chunks_refused(&c->v, c->a->file, error))
        return FALSE;
    if (*out == 0 && different) {
        /* x is what was received, or dst for a local reduction; y is src. */
        char what_x[32] = "received";
        if (st->type == FENNEL_MSCCL_REDUCE)
            g_snprintf(what_x, sizeof what_x, "%c[%u]", buffer_letter[st->dstbuf],
                       (uint32_t)st->dstoff + i);
        step_error(c, g, index, error,
                   "reduces chunk %u (%s) with chunk %u (%c[%u]): different chunks of the "
                   "collective",
                   fennel__chunks_chunk(&c->v, x), what_x, fennel__chunks_chunk(&c->v, y),
                   buffer_letter[st->srcbuf], (uint32_t)st->srcoff + i);
    } else if (*out == 0) {
        step_error(c, g, index, error, "counts the contributions of ranks %s to chunk %u twice",
                   twice->str, fennel__chunks_chunk(&c->v, x));
    }
    return *out != 0;
}

/* Executes one step; FALSE with *blocked when it must wait, FALSE with an error when it is
 * wrong. */
static gboolean execute(Checker *c, uint32_t g, uint32_t tb, uint32_t index, const gboolean *done,
                        gboolean *blocked, GError **error)
{
    const FennelMscclAlgo *a = c->a;
    const FennelMscclStep *st = &a->steps[index];
    unsigned does = fennel_msccl_does(st->type);
    *blocked = FALSE;
    uint32_t target = UINT32_MAX, sender = UINT32_MAX;
    if (st->depid >= 0) {
        target = a->tbs[a->gpus[g].first_tb + (uint32_t)st->depid].first_step + (uint32_t)st->deps;
        if (!done[target]) {
            *blocked = TRUE;
            return FALSE;
        }
    }
    uint32_t cnt = (uint32_t)st->cnt;
    g_array_set_size(c->scratch, cnt);
    uint32_t *in = (uint32_t *)(void *)c->scratch->data;
    if (does & FENNEL_MSCCL_DOES_RECV) {
        uint32_t conn = a->recv_conn[tb];
        if (c->head[conn] >= c->queue[conn]->len) {
            *blocked = TRUE;
            return FALSE;
        }
        const Message *m = &g_array_index(c->queue[conn], Message, c->head[conn]);
        if (m->cnt != cnt) {
            uint32_t from = a->tbs[tb].recv >= 0 ? (uint32_t)a->tbs[tb].recv : 0;
            return step_error(c, g, index, error,
                              "receives %u chunk%s, but the message from gpu %u carries %u", cnt,
                              cnt == 1 ? "" : "s", from, m->cnt);
        }
        for (uint32_t i = 0; i < cnt; i++)
            in[i] = g_array_index(c->pool[conn], uint32_t, m->first + i);
        sender = m->step;
        c->head[conn]++;
    }
    if (c->clock)
        tick(c, tb, index, target, sender);
    for (uint32_t i = 0; i < cnt; i++) {
        uint32_t v = in[i];
        if (st->type == FENNEL_MSCCL_SEND || st->type == FENNEL_MSCCL_COPY) {
            if (!race_read(c, g, index, st->srcbuf, st->srcoff + (int32_t)i, error) ||
                !read_chunk(c, g, index, st->srcbuf, st->srcoff + (int32_t)i, &v, error))
                return FALSE;
        } else if (does & FENNEL_MSCCL_DOES_REDUCE) {
            /* A receive reduces with src; a local reduce adds src into dst. */
            gboolean local = st->type == FENNEL_MSCCL_REDUCE;
            uint32_t x = 0, y;
            if (local && (!race_read(c, g, index, st->dstbuf, st->dstoff + (int32_t)i, error) ||
                          !read_chunk(c, g, index, st->dstbuf, st->dstoff + (int32_t)i, &x, error)))
                return FALSE;
            if (!race_read(c, g, index, st->srcbuf, st->srcoff + (int32_t)i, error) ||
                !read_chunk(c, g, index, st->srcbuf, st->srcoff + (int32_t)i, &y, error))
                return FALSE;
            if (!combine(c, g, index, local ? x : v, y, i, &v, error))
                return FALSE;
        }
        in[i] = v;
    }
    if (does & FENNEL_MSCCL_DOES_WRITE)
        for (uint32_t i = 0; i < cnt; i++) {
            if (!race_write(c, g, index, st->dstbuf, st->dstoff + (int32_t)i, error))
                return FALSE;
            c->store[locate(c, g, st->dstbuf, st->dstoff + (int32_t)i)] = in[i];
        }
    if (does & FENNEL_MSCCL_DOES_SEND) {
        uint32_t to = a->send_conn[tb];
        Message m = {c->pool[to]->len, cnt, index};
        g_array_append_vals(c->pool[to], in, cnt);
        g_array_append_val(c->queue[to], m);
    }
    return TRUE;
}

static gboolean check_final(Checker *c, GError **error)
{
    const FennelMscclAlgo *a = c->a;
    uint32_t n = a->ngpus;
    uint32_t out_chunks = c->coll == FENNEL_CHUNKS_REDUCE_SCATTER ? c->per_rank : a->nchunksperloop;
    uint8_t out_buf =
        c->in_place && c->coll != FENNEL_CHUNKS_REDUCE_SCATTER && c->coll != FENNEL_CHUNKS_ALLGATHER
            ? FENNEL_MSCCL_INPUT
            : FENNEL_MSCCL_OUTPUT;
    uint64_t want[c->v.words];
    /* What is wrong, said only when something is (a chunk of the output at a time). */
    GString *why = g_string_new(NULL);
    gboolean ok = TRUE;
    for (uint32_t g = 0; g < n && ok; g++)
        for (uint32_t off = 0; off < out_chunks && ok; off++) {
            uint32_t v = c->store[locate(c, g, out_buf, (int32_t)off)], chunk;
            fennel__chunks_expected(&c->v, c->coll, g, off, c->per_rank, a->nchunksperloop, &chunk,
                                    want);
            if (fennel__chunks_mismatch(&c->v, v, chunk, want, why)) {
                fennel_error_at(error, a->file, a->gpus[g].line, a->gpus[g].col,
                                "gpu %u (%s): %c[%u] %s", g, c->mode, buffer_letter[out_buf], off,
                                why->str);
                ok = FALSE;
            }
        }
    g_string_free(why, TRUE);
    return ok;
}

/* The first thread block that cannot go on, said why. */
static gboolean report_stuck(const Checker *c, const uint32_t *pc, GError **error)
{
    const FennelMscclAlgo *a = c->a;
    for (uint32_t g = 0; g < a->ngpus; g++)
        for (uint32_t t = a->gpus[g].first_tb; t < a->gpus[g].first_tb + a->gpus[g].n_tbs; t++) {
            const FennelMscclTb *tb = &a->tbs[t];
            if (pc[t] >= tb->n_steps)
                continue;
            uint32_t index = tb->first_step + pc[t];
            const FennelMscclStep *st = &a->steps[index];
            if (st->depid >= 0)
                return step_error(c, g, index, error,
                                  "waits for tb %d step %d, which never completes (a cycle of "
                                  "dependencies and messages)",
                                  st->depid, st->deps);
            return step_error(c, g, index, error,
                              "waits for a message from gpu %d on channel %d that is never sent "
                              "(a cycle of dependencies and messages)",
                              tb->recv, tb->chan);
        }
    return TRUE;
}

static gboolean run_mode(Checker *c, GError **error)
{
    const FennelMscclAlgo *a = c->a;
    uint32_t n = a->ngpus;
    /* Storage: in place, input and output share the larger of the two (and the gathered
     * or scattered grid of nchunksperloop chunks). */
    uint64_t need = 0;
    for (uint32_t g = 0; g < n; g++)
        need += 2 * (uint64_t)MAX(a->nchunksperloop,
                                  (uint32_t)MAX(a->gpus[g].chunks[0], a->gpus[g].chunks[1])) +
                c->per_rank + (uint64_t)a->gpus[g].chunks[2];
    if (need > (1u << 24)) {
        fennel_error_at(error, a->file, a->line, a->col,
                        "the buffers hold %" G_GUINT64_FORMAT " chunks over all gpus, more than "
                        "the %u this check can follow",
                        need, 1u << 24);
        return FALSE;
    }
    c->base = g_new(uint32_t, 3 * n);
    c->user_shift = g_new0(uint32_t, n);
    uint32_t total = 0;
    for (uint32_t g = 0; g < n; g++) {
        const int32_t *ch = a->gpus[g].chunks;
        if (c->in_place) {
            uint32_t user = MAX((uint32_t)MAX(ch[0], ch[1]), a->nchunksperloop);
            c->base[3 * g] = c->base[3 * g + 1] = total;
            c->user_shift[g] =
                c->coll == FENNEL_CHUNKS_ALLGATHER || c->coll == FENNEL_CHUNKS_REDUCE_SCATTER
                    ? g * c->per_rank
                    : 0;
            total += user + c->per_rank; /* room for a shifted part */
        } else {
            c->base[3 * g] = total;
            total += MAX((uint32_t)ch[0], a->nchunksperloop);
            c->base[3 * g + 1] = total;
            total += MAX((uint32_t)ch[1], a->nchunksperloop);
        }
        c->base[3 * g + 2] = total;
        total += (uint32_t)ch[2];
    }
    c->store = g_new0(uint32_t, total);
    c->last_write = g_new0(uint32_t, total);
    c->reads = g_new0(GArray *, total);
    /* Every rank's input. */
    uint32_t parts = c->coll == FENNEL_CHUNKS_ALLGATHER ? c->per_rank : a->nchunksperloop;
    if (!fennel__chunks_expect(&c->v, (uint64_t)n * parts, a->file, error)) {
        g_free(c->reads);
        g_free(c->last_write);
        g_free(c->store);
        g_free(c->base);
        g_free(c->user_shift);
        return FALSE;
    }
    for (uint32_t g = 0; g < n; g++) {
        for (uint32_t off = 0; off < parts; off++)
            c->store[locate(c, g, FENNEL_MSCCL_INPUT, (int32_t)off)] = fennel__chunks_input(
                &c->v, fennel__chunks_input_chunk(c->coll, g, off, c->per_rank, a->nchunksperloop),
                g);
    }
    if (fennel__chunks_refused(&c->v, a->file, error)) {
        g_free(c->reads);
        g_free(c->last_write);
        g_free(c->store);
        g_free(c->base);
        g_free(c->user_shift);
        return FALSE;
    }
    uint32_t *pc = g_new0(uint32_t, a->n_tbs);
    gboolean *done = g_new0(gboolean, a->n_steps);
    gboolean progress = TRUE, ok = TRUE, finished = FALSE;
    while (ok && progress) {
        progress = FALSE;
        finished = TRUE;
        for (uint32_t g = 0; ok && g < n; g++)
            for (uint32_t t = a->gpus[g].first_tb; ok && t < a->gpus[g].first_tb + a->gpus[g].n_tbs;
                 t++) {
                while (pc[t] < a->tbs[t].n_steps) {
                    gboolean blocked;
                    uint32_t index = a->tbs[t].first_step + pc[t];
                    if (!execute(c, g, t, index, done, &blocked, error)) {
                        ok = blocked;
                        break;
                    }
                    done[index] = TRUE;
                    pc[t]++;
                    progress = TRUE;
                }
                finished = finished && pc[t] == a->tbs[t].n_steps;
            }
    }
    if (ok && !finished)
        ok = report_stuck(c, pc, error);
    if (ok && c->coll != FENNEL_CHUNKS_NONE)
        ok = check_final(c, error);
    g_free(pc);
    g_free(done);
    for (uint32_t i = 0; i < total; i++)
        if (c->reads[i])
            g_array_unref(c->reads[i]);
    g_free(c->reads);
    g_free(c->last_write);
    g_free(c->store);
    g_free(c->base);
    g_free(c->user_shift);
    return ok;
}

static gboolean check_mode(const FennelMscclAlgo *a, gboolean in_place, uint64_t *combines,
                           GError **error)
{
    Checker c = {.a = a, .coll = fennel__chunks_coll(a->coll), .in_place = in_place};
    c.mode = in_place ? "in place" : "out of place";
    c.per_rank = a->nchunksperloop / a->ngpus;
    if (c.coll != FENNEL_CHUNKS_NONE && c.coll != FENNEL_CHUNKS_ALLREDUCE &&
        (c.per_rank == 0 || a->nchunksperloop % a->ngpus != 0)) {
        fennel_error_at(error, a->file, a->line, a->col,
                        "<algo> nchunksperloop=\"%u\" does not give each of the %u gpus the same "
                        "number of chunks, as %s needs",
                        a->nchunksperloop, a->ngpus, a->coll);
        return FALSE;
    }
    /* Room for every value at once: the inputs and one per chunk a step reduces. */
    uint64_t values = 1;
    for (uint32_t g = 0; g < a->ngpus; g++)
        values += MAX((uint32_t)a->gpus[g].chunks[0], a->nchunksperloop);
    for (uint32_t i = 0; i < a->n_steps; i++)
        if (fennel_msccl_does(a->steps[i].type) & FENNEL_MSCCL_DOES_REDUCE)
            values += (uint32_t)a->steps[i].cnt;
    values = MIN(values, (uint64_t)1 << 26);
    fennel__chunks_init(&c.v, a->ngpus, (guint)values);
    c.pool = g_new(GArray *, a->n_conns);
    c.queue = g_new(GArray *, a->n_conns);
    c.head = g_new0(uint32_t, a->n_conns);
    for (uint32_t t = 0; t < a->n_conns; t++) {
        c.pool[t] = g_array_new(FALSE, FALSE, sizeof(uint32_t));
        c.queue[t] = g_array_new(FALSE, FALSE, sizeof(Message));
    }
    c.scratch = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    c.twice = g_string_new(NULL);
    /* The clocks take n_steps x n_tbs entries: followed up to 2^26 of them (256 MiB). */
    c.step_tb = g_new(uint32_t, a->n_steps + 1);
    for (uint32_t t = 0; t < a->n_tbs; t++)
        for (uint32_t s = 0; s < a->tbs[t].n_steps; s++)
            c.step_tb[a->tbs[t].first_step + s] = t;
    if ((uint64_t)a->n_steps * a->n_tbs <= (uint64_t)1 << 26)
        c.clock = g_new(uint32_t, (gsize)a->n_steps * a->n_tbs + 1);
    gboolean ok = run_mode(&c, error);
    g_free(c.clock);
    g_free(c.step_tb);
    g_array_unref(c.scratch);
    g_string_free(c.twice, TRUE);
    *combines += c.v.combines;
    for (uint32_t t = 0; t < a->n_conns; t++) {
        g_array_unref(c.pool[t]);
        g_array_unref(c.queue[t]);
    }
    g_free(c.pool);
    g_free(c.queue);
    g_free(c.head);
    fennel__chunks_clear(&c.v);
    return ok;
}

gboolean fennel_msccl_verify(const FennelMscclAlgo *a, FennelMscclReport *report, GError **error)
{
    FennelMscclReport r = {0};
    r.postcondition = fennel__chunks_coll(a->coll) != FENNEL_CHUNKS_NONE;
    gboolean ok = TRUE;
    if (a->inplace) {
        ok = check_mode(a, TRUE, &r.combines, error);
        r.checked_in_place = ok;
    }
    if (ok && a->outofplace) {
        ok = check_mode(a, FALSE, &r.combines, error);
        r.checked_out_of_place = ok;
    }
    if (report)
        *report = r;
    return ok;
}
