/* The YAML form of an MSCCL algorithm's program (docs/FORMATS.md, "The round trip through
 * YAML"): the program fennel_msccl_lower() made, as the YAML writer writes any program,
 * with the algorithm's meaning beside it, so that `fennel verify` can check the file in
 * MSCCL's terms. The algorithm, its GPUs and its thread blocks are the rows of a top-level
 * `msccl` section, one line each, in the XML's order; each task a step became carries the
 * step's fields. Both are flow mappings on one line, the shape the fast YAML scanner takes. */
#include "msccl_private.h"
#include "yaml_notes_private.h"

typedef struct {
    const FennelMscclAlgo *a;
    uint32_t *step_of;          /* per task: the step it comes from, or UINT32_MAX */
    uint32_t *tb_of, *index_of; /* per step: its thread block within the GPU, its number */
} Writer;

static const char buffer_letter[3] = {'i', 'o', 's'};

static void write_section(void *data, GString *out)
{
    const Writer *w = data;
    const FennelMscclAlgo *a = w->a;
    static const char *const protos[] = {"Simple", "LL", "LL128"};
    g_string_append(out, "msccl:\n  - {algo: ");
    fennel__yaml_append_quoted(out, a->name ? a->name : "");
    g_string_append_printf(out,
                           ", coll: %s, ngpus: %u, nchunksperloop: %u, proto: %s, nchannels: %u, "
                           "inplace: %s, outofplace: %s}\n",
                           a->coll, a->ngpus, a->nchunksperloop, protos[a->proto], a->nchannels,
                           a->inplace ? "true" : "false", a->outofplace ? "true" : "false");
    for (uint32_t g = 0; g < a->ngpus; g++) {
        const FennelMscclGpu *gpu = &a->gpus[g];
        g_string_append_printf(out, "  - {gpu: %u, i_chunks: %d, o_chunks: %d, s_chunks: %d}\n", g,
                               gpu->chunks[0], gpu->chunks[1], gpu->chunks[2]);
        for (uint32_t t = 0; t < gpu->n_tbs; t++) {
            const FennelMscclTb *tb = &a->tbs[gpu->first_tb + t];
            g_string_append_printf(out,
                                   "  - {gpu: %u, tb: %u, send: %d, recv: %d, chan: %d, "
                                   "steps: %u}\n",
                                   g, t, tb->send, tb->recv, tb->chan, tb->n_steps);
        }
    }
}

static void write_task(void *data, uint32_t task, GString *out)
{
    const Writer *w = data;
    uint32_t i = w->step_of[task];
    if (i == UINT32_MAX)
        return;
    const FennelMscclStep *st = &w->a->steps[i];
    unsigned does = fennel_msccl_does(st->type);
    g_string_append_printf(out, ", tb: %u, step: %u, op: %s", w->tb_of[i], w->index_of[i],
                           fennel_msccl_type_name(st->type));
    /* Only the operands the step uses: the others mean nothing to the runtime. */
    if (fennel__msccl_reads_src(st->type))
        g_string_append_printf(out, ", src: %c%d", buffer_letter[st->srcbuf], st->srcoff);
    if (does & FENNEL_MSCCL_DOES_WRITE)
        g_string_append_printf(out, ", dst: %c%d", buffer_letter[st->dstbuf], st->dstoff);
    g_string_append_printf(out, ", cnt: %d", st->cnt);
    if (st->depid >= 0)
        g_string_append_printf(out, ", dep: t%d.s%d", st->depid, st->deps);
    if (st->hasdep)
        g_string_append(out, ", hasdep: true");
}

/* The tasks of a step, as fennel_msccl_lower() makes them. */
static uint32_t step_tasks(const FennelMscclStep *st)
{
    unsigned does = fennel_msccl_does(st->type);
    if (st->type == FENNEL_MSCCL_NOP)
        return 1;
    return !!(does & FENNEL_MSCCL_DOES_RECV) + !!(does & FENNEL_MSCCL_DOES_SEND) +
           !!(does & (FENNEL_MSCCL_DOES_REDUCE | FENNEL_MSCCL_DOES_COPY));
}

gboolean fennel_msccl_write_yaml(const FennelMscclAlgo *a, const FennelProgram *p, GString *out)
{
    Writer w = {.a = a};
    w.step_of = g_new(uint32_t, MAX(p->n_tasks, 1));
    w.tb_of = g_new(uint32_t, MAX(a->n_steps, 1));
    w.index_of = g_new(uint32_t, MAX(a->n_steps, 1));
    /* The lowering's order: per GPU its start, then thread block by thread block the tasks
     * of each step. A program of another shape (sliced) is not this algorithm's. */
    uint32_t task = 0;
    gboolean ok = TRUE;
    for (uint32_t g = 0; g < a->ngpus && ok; g++) {
        ok = task < p->n_tasks && p->type[task] == FENNEL_TASK_START;
        if (ok)
            w.step_of[task++] = UINT32_MAX;
        for (uint32_t t = 0; t < a->gpus[g].n_tbs && ok; t++) {
            const FennelMscclTb *tb = &a->tbs[a->gpus[g].first_tb + t];
            for (uint32_t k = 0; k < tb->n_steps && ok; k++) {
                uint32_t i = tb->first_step + k, n = step_tasks(&a->steps[i]);
                w.tb_of[i] = t;
                w.index_of[i] = k;
                ok = (uint64_t)task + n <= p->n_tasks;
                for (uint32_t j = 0; j < n && ok; j++)
                    w.step_of[task++] = i;
            }
        }
    }
    if (ok && task == p->n_tasks) {
        FennelYamlExtra extra = {write_section, write_task, &w};
        fennel__yaml_write_with(p, &extra, out);
    }
    g_free(w.step_of);
    g_free(w.tb_of);
    g_free(w.index_of);
    return ok && task == p->n_tasks;
}
