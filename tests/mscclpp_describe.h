/* MSCCL++ plans as text, for comparisons of the reader's two halves in tests and fuzz
 * harnesses. */
#ifndef FENNEL_TESTS_MSCCLPP_DESCRIBE_H
#define FENNEL_TESTS_MSCCLPP_DESCRIBE_H

#include "mscclpp.h"

/* Every field of the plan, one line per item. Equal texts mean equal plans. */
static inline char *mscclpp_describe(const FennelMscclppPlan *p)
{
    GString *s = g_string_new(NULL);
    g_string_append_printf(s, "plan %s %s %s packets %d inplace %d legacy %d gpus %u at %u:%u\n",
                           p->file, p->name, p->coll, p->packets, p->inplace, p->legacy, p->ngpus,
                           p->line, p->col);
    for (uint32_t g = 0; g < p->ngpus; g++) {
        const FennelMscclppGpu *x = &p->gpus[g];
        g_string_append_printf(
            s, "gpu %u chunks %d %d %d tbs %u+%u sems %u+%u groups %u+%u at %u:%u\n", g,
            x->chunks[0], x->chunks[1], x->chunks[2], x->first_tb, x->n_tbs, x->first_sem,
            x->n_sems, x->first_group, x->n_groups, x->line, x->col);
    }
    for (uint32_t t = 0; t < p->n_tbs; t++)
        g_string_append_printf(s, "tb %u ops %u+%u at %u:%u\n", t, p->tbs[t].first_op,
                               p->tbs[t].n_ops, p->tbs[t].line, p->tbs[t].col);
    for (uint32_t i = 0; i < p->n_ops; i++) {
        const FennelMscclppOp *o = &p->ops[i];
        g_string_append_printf(s,
                               "op %u %s kind %u chan %u signals %u flushes %u srcs %u dsts %u "
                               "from %u chans %u from %u barrier %d %d at %u:%u\n",
                               i, fennel_mscclpp_op_name(o), o->kind, o->chan, o->signals,
                               o->flushes, o->n_src, o->n_dst, o->first_src, o->n_chans,
                               o->first_chan, o->barrier, o->barrier_tbs, o->line, o->col);
    }
    for (uint32_t i = 0; i < p->n_operands; i++) {
        const FennelMscclppOperand *x = &p->operands[i];
        g_string_append_printf(s, "operand %u gpu %u buf %u packets %u index %d size %d\n", i,
                               x->gpu, x->buf, x->packets, x->index, x->size);
    }
    for (uint32_t i = 0; i < p->n_chan_refs; i++)
        g_string_append_printf(s, "ref %u %u\n", i, p->chan_refs[i]);
    for (uint32_t i = 0; i < p->n_channels; i++) {
        const FennelMscclppChannel *c = &p->channels[i];
        g_string_append_printf(s, "channel %u gpu %u peer %u type %u key %u partner %u\n", i,
                               c->gpu, c->peer, c->type, c->key, c->partner);
    }
    for (uint32_t i = 0; i < p->n_groups; i++) {
        const FennelMscclppGroup *g = &p->groups[i];
        g_string_append_printf(s, "group %u buf %u ranks", i, g->buf);
        for (uint32_t k = 0; k < g->n_ranks; k++)
            g_string_append_printf(s, " %u", p->group_ranks[g->first_rank + k]);
        g_string_append_c(s, '\n');
    }
    for (uint32_t i = 0; i < p->n_sems; i++)
        g_string_append_printf(s, "sem %u init %" G_GINT64_FORMAT "\n", i, p->sem_init[i]);
    return g_string_free(s, FALSE);
}

#endif
