/* From an MSCCL algorithm to a fennel program (docs/FORMATS.md, the mapping table). Each
 * GPU is a rank with one execution slot per thread block; a thread block's steps run in
 * order on its slot. A step becomes, in this order, a recv (if it receives), a sized
 * compute (if it reduces or copies) and a send (if it sends); a nop becomes a proxy that
 * carries its dependency. */
#include "msccl.h"

#include "errors.h"

/* The bytes a protocol puts on the wire for `bytes` of data: LL sends 8 data bytes in
 * each 16-byte line (the other 8 are flags), LL128 120 in each 128-byte line, Simple
 * the data alone. */
static int64_t wire_bytes(FennelMscclProto proto, int64_t bytes)
{
    switch (proto) {
    case FENNEL_MSCCL_LL:
        return 2 * bytes;
    case FENNEL_MSCCL_LL128:
        return (bytes + 119) / 120 * 128;
    case FENNEL_MSCCL_SIMPLE:
        break;
    }
    return bytes;
}

static uint32_t add(FennelProgramBuilder *b, FennelTaskType type, uint32_t gpu, uint32_t slot,
                    const FennelMscclStep *st)
{
    uint32_t t = fennel_builder_add(b, type, gpu);
    fennel_builder_set_pin(b, t, slot);
    fennel_builder_set_position(b, t, st->line, st->col);
    return t;
}

/* What the names of the tasks are made from, on the first request (program.h): a name
 * printed per task cost as much as reading the step. The shape of the algorithm (thread
 * blocks per GPU, steps per thread block, each step's type) and the slices say which task
 * is which, as the lowering below made them, in the same order:
 *   g3.start            GPU 3's start
 *   g3.t0.s5.recv       the receive of step 5 of thread block 0 (reduce, copy, send, nop)
 *   g3.t0.s5.i1.recv    the same in slice 1, when chunks are sliced */
typedef struct {
    uint32_t ngpus;
    int64_t iterations;
    uint32_t *n_tbs;   /* per GPU */
    uint32_t *n_steps; /* per thread block */
    uint8_t *type;     /* per step */
} Shape;

static void shape_free(gpointer data)
{
    Shape *s = data;
    g_free(s->n_tbs);
    g_free(s->n_steps);
    g_free(s->type);
    g_free(s);
}

static void name_tasks(FennelProgram *p)
{
    const Shape *s = g_bytes_get_data(p->text, NULL);
    p->names = g_string_chunk_new(64 * 1024);
    char **names = g_new0(char *, MAX(p->n_tasks, 1));
    char name[80];
    uint32_t task = 0, tb = 0, step = 0;
#define NAME(suffix)                                                                               \
    do {                                                                                           \
        g_strlcpy(name + n, suffix, sizeof name - (size_t)n);                                      \
        if (task < p->n_tasks)                                                                     \
            names[task++] = g_string_chunk_insert(p->names, name);                                 \
    } while (0)
    for (uint32_t g = 0; g < s->ngpus; g++) {
        int n = g_snprintf(name, sizeof name, "g%u.", g);
        NAME("start");
        for (uint32_t t = 0; t < s->n_tbs[g]; t++, tb++) {
            for (int64_t it = 0; it < s->iterations; it++)
                for (uint32_t k = 0; k < s->n_steps[tb]; k++) {
                    FennelMscclType type = s->type[step + k];
                    unsigned does = fennel_msccl_does(type);
                    n = s->iterations > 1
                            ? g_snprintf(name, sizeof name, "g%u.t%u.s%u.i%" G_GINT64_FORMAT ".", g,
                                         t, k, it)
                            : g_snprintf(name, sizeof name, "g%u.t%u.s%u.", g, t, k);
                    if (type == FENNEL_MSCCL_NOP)
                        NAME("nop");
                    if (does & FENNEL_MSCCL_DOES_RECV)
                        NAME("recv");
                    if (does & FENNEL_MSCCL_DOES_REDUCE)
                        NAME("reduce");
                    else if (does & FENNEL_MSCCL_DOES_COPY)
                        NAME("copy");
                    if (does & FENNEL_MSCCL_DOES_SEND)
                        NAME("send");
                }
            step += s->n_steps[tb];
        }
    }
#undef NAME
    p->task_name = names;
}

/* The shape of the algorithm, for name_tasks(), in the bytes the program holds. */
static GBytes *shape_new(const FennelMscclAlgo *a, int64_t iterations)
{
    Shape *s = g_new(Shape, 1);
    s->ngpus = a->ngpus;
    s->iterations = iterations;
    s->n_tbs = g_new(uint32_t, MAX(a->ngpus, 1));
    for (uint32_t g = 0; g < a->ngpus; g++)
        s->n_tbs[g] = a->gpus[g].n_tbs;
    s->n_steps = g_new(uint32_t, MAX(a->n_tbs, 1));
    for (uint32_t t = 0; t < a->n_tbs; t++)
        s->n_steps[t] = a->tbs[t].n_steps;
    s->type = g_new(uint8_t, MAX(a->n_steps, 1));
    for (uint32_t i = 0; i < a->n_steps; i++)
        s->type[i] = a->steps[i].type;
    return g_bytes_new_with_free_func(s, sizeof *s, shape_free, s);
}

FennelProgram *fennel_msccl_lower(const FennelMscclAlgo *a, int64_t size, int64_t slice,
                                  const FennelLimits *limits, GError **error)
{
    int64_t chunk = fennel_msccl_chunk_bytes(a, size);
    /* Slices: every thread block runs its steps once per slice of a chunk. */
    int64_t iterations = slice > 0 && chunk > slice ? (chunk + slice - 1) / slice : 1;
    if (iterations > (1 << 20)) {
        fennel_error_at(error, a->file, a->line, a->col,
                        "--slice %" G_GINT64_FORMAT ": %" G_GINT64_FORMAT " slices of a chunk of "
                        "%" G_GINT64_FORMAT " bytes; at most %d",
                        slice, iterations, chunk, 1 << 20);
        return NULL;
    }
    if (slice <= 0 || slice > chunk)
        slice = chunk;
    /* The largest step's wire bytes (LL doubles them) must be a number. */
    int32_t widest = 0;
    for (uint32_t i = 0; i < a->n_steps; i++)
        widest = MAX(widest, a->steps[i].cnt);
    if (chunk > 0 && widest > INT64_MAX / 4 / chunk) {
        fennel_error_at(error, a->file, a->line, a->col,
                        "--size %" G_GINT64_FORMAT ": a step of %d chunks would move more bytes "
                        "than fennel counts",
                        size, widest);
        return NULL;
    }
    uint32_t slots = 1;
    for (uint32_t g = 0; g < a->ngpus; g++)
        slots = MAX(slots, a->gpus[g].n_tbs);
    FennelProgramBuilder *b = fennel_builder_new();
    fennel_builder_set_limits(b, limits);
    /* The exact task count, and an edge per task plus one per dependency. */
    uint64_t tasks = a->ngpus, deps = 0;
    for (uint32_t i = 0; i < a->n_steps; i++) {
        unsigned does = fennel_msccl_does(a->steps[i].type);
        tasks += a->steps[i].type == FENNEL_MSCCL_NOP
                     ? 1
                     : !!(does & FENNEL_MSCCL_DOES_RECV) + !!(does & FENNEL_MSCCL_DOES_SEND) +
                           !!(does & (FENNEL_MSCCL_DOES_REDUCE | FENNEL_MSCCL_DOES_COPY));
        deps += a->steps[i].depid >= 0;
    }
    uint64_t n = (uint64_t)a->n_steps * (uint64_t)iterations;
    if (n > UINT32_MAX) {
        fennel_error_at(error, a->file, a->line, a->col,
                        "%" G_GUINT64_FORMAT " steps in %" G_GINT64_FORMAT " slices: more than "
                        "a program holds",
                        n, iterations);
        fennel_builder_free(b);
        return NULL;
    }
    fennel_builder_reserve(b, a->ngpus + (tasks - a->ngpus) * (uint64_t)iterations,
                           (tasks + deps) * (uint64_t)iterations);
    /* The first and last task of every step of every slice, for the dependencies
     * (indexed by slice * n_steps + step). */
    uint32_t *first_of = g_new(uint32_t, n), *last = g_new(uint32_t, n);
    GBytes *shape = shape_new(a, iterations);
    fennel_builder_set_namer(b, name_tasks, shape);
    g_bytes_unref(shape);
    for (uint32_t g = 0; g < a->ngpus; g++) {
        const FennelMscclGpu *gpu = &a->gpus[g];
        uint32_t start = fennel_builder_add(b, FENNEL_TASK_START, g);
        fennel_builder_set_position(b, start, gpu->line, gpu->col);
        for (uint32_t t = 0; t < gpu->n_tbs; t++) {
            const FennelMscclTb *tb = &a->tbs[gpu->first_tb + t];
            uint32_t prev = start;
            for (int64_t it = 0; it < iterations; it++)
                for (uint32_t k = 0; k < tb->n_steps; k++) {
                    uint32_t index = (uint32_t)it * a->n_steps + tb->first_step + k;
                    const FennelMscclStep *st = &a->steps[tb->first_step + k];
                    unsigned does = fennel_msccl_does(st->type);
                    int64_t bytes = (int64_t)st->cnt * MIN(slice, chunk - it * slice);
                    uint32_t first = FENNEL_NO_RANK, task = FENNEL_NO_RANK;
                    if (st->type == FENNEL_MSCCL_NOP) {
                        first = task = add(b, FENNEL_TASK_PROXY, g, t, st);
                    }
                    if (does & FENNEL_MSCCL_DOES_RECV) {
                        first = task = add(b, FENNEL_TASK_RECV, g, t, st);
                        fennel_builder_set_peer(b, task, (uint32_t)tb->recv);
                        fennel_builder_set_tag(b, task, (uint32_t)tb->chan);
                        fennel_builder_set_amount(b, task, wire_bytes(a->proto, bytes));
                    }
                    if (does & (FENNEL_MSCCL_DOES_REDUCE | FENNEL_MSCCL_DOES_COPY)) {
                        uint32_t c = add(b, FENNEL_TASK_COMPUTE, g, t, st);
                        fennel_builder_set_flags(b, c, FENNEL_TASK_SIZED);
                        fennel_builder_set_amount(b, c, bytes);
                        if (task != FENNEL_NO_RANK)
                            fennel_builder_add_edge(b, task, c);
                        else
                            first = c;
                        task = c;
                    }
                    if (does & FENNEL_MSCCL_DOES_SEND) {
                        uint32_t s = add(b, FENNEL_TASK_SEND, g, t, st);
                        /* An NCCL connection is buffered: a send does not wait for its receive. */
                        fennel_builder_set_flags(b, s, FENNEL_TASK_EAGER);
                        fennel_builder_set_peer(b, s, (uint32_t)tb->send);
                        fennel_builder_set_tag(b, s, (uint32_t)tb->chan);
                        fennel_builder_set_amount(b, s, wire_bytes(a->proto, bytes));
                        if (task != FENNEL_NO_RANK)
                            fennel_builder_add_edge(b, task, s);
                        else
                            first = s;
                        task = s;
                    }
                    fennel_builder_add_edge(b, prev, first);
                    first_of[index] = first;
                    last[index] = task;
                    prev = task;
                }
        }
        /* Dependencies across thread blocks, now that every step of the GPU has tasks. A
         * dependency on a step of the same thread block is already an order. */
        for (uint32_t t = 0; t < gpu->n_tbs; t++) {
            const FennelMscclTb *tb = &a->tbs[gpu->first_tb + t];
            for (uint32_t k = 0; k < tb->n_steps; k++) {
                const FennelMscclStep *st = &a->steps[tb->first_step + k];
                if (st->depid < 0 || (uint32_t)st->depid == t)
                    continue;
                uint32_t target =
                    a->tbs[gpu->first_tb + (uint32_t)st->depid].first_step + (uint32_t)st->deps;
                fennel_builder_add_edge(b, last[target], first_of[tb->first_step + k]);
            }
        }
    }
    g_free(first_of);
    g_free(last);
    FennelProgram *p = fennel_builder_finish(b, a->file, a->ngpus, slots, error);
    if (p) {
        g_free(p->name);
        p->name = g_strdup(a->name);
    }
    return p;
}
