/* MSCCL algorithms as text, for comparisons in tests and fuzz harnesses. */
#ifndef FENNEL_TESTS_MSCCL_DESCRIBE_H
#define FENNEL_TESTS_MSCCL_DESCRIBE_H

#include "msccl.h"

#include <string.h>

/* Everything the reader stores, positions included: equal texts mean equal algorithms. */
static inline char *msccl_describe(const FennelMscclAlgo *a)
{
    GString *s = g_string_new(NULL);
    g_string_append_printf(s,
                           "%s %s %s proto %d channels %u chunks %u gpus %u modes %d %d at %u:%u\n",
                           a->file, a->name, a->coll, (int)a->proto, a->nchannels,
                           a->nchunksperloop, a->ngpus, a->inplace, a->outofplace, a->line, a->col);
    for (uint32_t g = 0; g < a->ngpus; g++) {
        const FennelMscclGpu *x = &a->gpus[g];
        g_string_append_printf(s, "gpu %d %d %d tbs %u+%u at %u:%u\n", x->chunks[0], x->chunks[1],
                               x->chunks[2], x->first_tb, x->n_tbs, x->line, x->col);
    }
    for (uint32_t t = 0; t < a->n_tbs; t++) {
        const FennelMscclTb *x = &a->tbs[t];
        g_string_append_printf(s, "tb %d %d %d steps %u+%u conns %u %u at %u:%u\n", x->send,
                               x->recv, x->chan, x->first_step, x->n_steps, a->send_conn[t],
                               a->recv_conn[t], x->line, x->col);
    }
    for (uint32_t i = 0; i < a->n_steps; i++) {
        const FennelMscclStep *x = &a->steps[i];
        g_string_append_printf(s, "step %u %u %u %u %d %d %d %d %d at %u:%u\n", x->type, x->srcbuf,
                               x->dstbuf, x->hasdep, x->srcoff, x->dstoff, x->cnt, x->depid,
                               x->deps, x->line, x->col);
    }
    g_string_append_printf(s, "conns %u\n", a->n_conns);
    return g_string_free(s, FALSE);
}

/* What an algorithm means, without the places it was read from or the operands its steps
 * do not use (the YAML form leaves those out): an algorithm and the one rebuilt from its
 * YAML must give the same text. */
static inline char *msccl_describe_meaning(const FennelMscclAlgo *a)
{
    GString *s = g_string_new(NULL);
    g_string_append_printf(s, "%s %s proto %d channels %u chunks %u gpus %u modes %d %d\n", a->name,
                           a->coll, (int)a->proto, a->nchannels, a->nchunksperloop, a->ngpus,
                           a->inplace, a->outofplace);
    for (uint32_t g = 0; g < a->ngpus; g++) {
        const FennelMscclGpu *x = &a->gpus[g];
        g_string_append_printf(s, "gpu %d %d %d tbs %u+%u\n", x->chunks[0], x->chunks[1],
                               x->chunks[2], x->first_tb, x->n_tbs);
    }
    for (uint32_t t = 0; t < a->n_tbs; t++) {
        const FennelMscclTb *x = &a->tbs[t];
        g_string_append_printf(s, "tb %d %d %d steps %u+%u conns %u %u\n", x->send, x->recv,
                               x->chan, x->first_step, x->n_steps, a->send_conn[t],
                               a->recv_conn[t]);
    }
    for (uint32_t i = 0; i < a->n_steps; i++) {
        const FennelMscclStep *x = &a->steps[i];
        unsigned does = fennel_msccl_does(x->type);
        gboolean src = x->type == FENNEL_MSCCL_SEND ||
                       (does & (FENNEL_MSCCL_DOES_REDUCE | FENNEL_MSCCL_DOES_COPY));
        gboolean dst = (does & FENNEL_MSCCL_DOES_WRITE) != 0;
        g_string_append_printf(s, "step %s", fennel_msccl_type_name(x->type));
        if (src)
            g_string_append_printf(s, " src %u %d", x->srcbuf, x->srcoff);
        if (dst)
            g_string_append_printf(s, " dst %u %d", x->dstbuf, x->dstoff);
        g_string_append_printf(s, " cnt %d dep %d %d hasdep %u\n", x->cnt, x->depid, x->deps,
                               x->hasdep);
    }
    g_string_append_printf(s, "conns %u\n", a->n_conns);
    return g_string_free(s, FALSE);
}

/* The verdict of the check without its place: "ok", or the message after FILE:LINE:COL. */
static inline char *msccl_verdict(const FennelMscclAlgo *a)
{
    GError *error = NULL;
    if (fennel_msccl_verify(a, NULL, &error))
        return g_strdup("ok");
    const char *what = error->message;
    for (int colons = 0; colons < 3 && what; colons++)
        what = strchr(what, ':') ? strchr(what, ':') + 1 : NULL;
    char *v = g_strdup(what ? what : error->message);
    g_error_free(error);
    return v;
}

#endif
