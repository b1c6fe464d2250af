/* What a plan's operations must satisfy (docs/FORMATS.md, the reader refuses): each kind's
 * operands and channels, every operand inside its buffer, and on every channel as many
 * signals as waits. */
#include "mscclpp_private.h"

#include "errors.h"

/* The GPU and thread block of operation `op`. */
static void locate(const FennelMscclppPlan *p, uint32_t op, uint32_t *gpu, uint32_t *tb)
{
    uint32_t t = 0;
    while (t + 1 < p->n_tbs && op >= p->tbs[t].first_op + p->tbs[t].n_ops)
        t++;
    uint32_t g = 0;
    while (g + 1 < p->ngpus && t >= p->gpus[g].first_tb + p->gpus[g].n_tbs)
        g++;
    *gpu = g;
    *tb = t - p->gpus[g].first_tb;
}

/* Whether the operand lies inside its buffer (`counts`: the chunks of its GPU's three). */
static gboolean check_range(FennelMscclppReader *r, JNode *o, const char *what, guint i,
                            const FennelMscclppOperand *x, const int32_t *counts)
{
    int32_t have = counts[x->buf];
    /* In place, input and output are one buffer: a plan may name it by either. */
    if (r->p->inplace && x->buf < 2 && have == 0)
        have = counts[1 - x->buf];
    if ((int64_t)x->index + x->size > have)
        return fennel__mscclpp_fail(
            r, o, "%s %u: chunks %d-%d of gpu %u's %c, which has %d chunk%s", what, i, x->index,
            x->index + x->size - 1, x->gpu, "ios"[x->buf], have, have == 1 ? "" : "s");
    return TRUE;
}

static gboolean is_local(const FennelMscclppReader *r, const FennelMscclppOperand *x)
{
    return x->gpu == r->gpu;
}

/* What each kind needs of its operands and channels. */
gboolean fennel__mscclpp_check_op(FennelMscclppReader *r, JNode *o, const FennelMscclppOpBuild *b)
{
    const FennelMscclppOp *op = &b->op;
    guint ns = b->srcs->len, nd = b->dsts->len;
    FennelMscclppOperand *s = (FennelMscclppOperand *)(void *)b->srcs->data;
    FennelMscclppOperand *d = (FennelMscclppOperand *)(void *)b->dsts->data;
    const char *name = fennel_mscclpp_op_name(op);
    switch ((FennelMscclppKind)op->kind) {
    case FENNEL_MSCCLPP_SIGNAL:
    case FENNEL_MSCCLPP_WAIT:
    case FENNEL_MSCCLPP_FLUSH:
        if (b->refs->len == 0 || op->chan == FENNEL_MSCCLPP_SWITCH)
            return fennel__mscclpp_fail(r, o, "%s names no memory or port channel", name);
        break;
    case FENNEL_MSCCLPP_PUT:
    case FENNEL_MSCCLPP_PUT_PACKETS:
    case FENNEL_MSCCLPP_GET: {
        gboolean get = op->kind == FENNEL_MSCCLPP_GET;
        if (ns == 0 || nd == 0 || (ns != nd && ns != 1 && !get) || (get && nd != ns))
            return fennel__mscclpp_fail(r, o, "%s with %u sources and %u destinations", name, ns,
                                        nd);
        for (guint i = 0; i < nd; i++)
            if (is_local(r, get ? &s[i] : &d[i]) || !is_local(r, get ? &d[i] : &s[MIN(i, ns - 1)]))
                return fennel__mscclpp_fail(r, o, "%s %u: %s", name, i,
                                            get ? "a get reads a peer's buffer into its own"
                                                : "a put writes its own buffer to a peer's");
        if (op->chan == FENNEL_MSCCLPP_PORT && b->refs->len == 0)
            return fennel__mscclpp_fail(r, o, "a put through a port channel names no channel");
        /* A port put goes through its channel: the buffer must be the channel's peer's. */
        for (guint i = 0; op->chan == FENNEL_MSCCLPP_PORT && !get && i < nd; i++) {
            uint32_t c = g_array_index(b->refs, uint32_t, MIN(i, b->refs->len - 1));
            uint32_t peer = g_array_index(r->channels, FennelMscclppChannel, c).peer;
            if (d[i].gpu != peer)
                return fennel__mscclpp_fail(r, o,
                                            "%s %u: through its port channel to gpu %u into a "
                                            "buffer of gpu %u",
                                            name, i, peer, d[i].gpu);
        }
        break;
    }
    case FENNEL_MSCCLPP_COPY:
    case FENNEL_MSCCLPP_UNPACK_PACKETS:
        if (ns != 1 || nd != 1 || !is_local(r, s) || !is_local(r, d))
            return fennel__mscclpp_fail(r, o, "%s copies one local operand into one", name);
        break;
    case FENNEL_MSCCLPP_REDUCE:
    case FENNEL_MSCCLPP_REDUCE_PACKETS:
        if (ns < 1 || nd < 1 || !is_local(r, s) || !is_local(r, d))
            return fennel__mscclpp_fail(r, o,
                                        "%s reduces into a local destination from a local "
                                        "source and others",
                                        name);
        break;
    case FENNEL_MSCCLPP_MULTI_REDUCE:
    case FENNEL_MSCCLPP_MULTI_STORE:
        if (ns != 1 || nd != 1 || b->refs->len == 0)
            return fennel__mscclpp_fail(r, o,
                                        "%s needs one source, one destination and a "
                                        "switch channel",
                                        name);
        break;
    default:
        break;
    }
    for (guint i = 0; i < ns + nd; i++) {
        const FennelMscclppOperand *x = i < ns ? &s[i] : &d[i - ns], *first = ns ? s : d;
        if (x->size != first->size)
            return fennel__mscclpp_fail(r, o, "%s: operands of %d and %d chunks", name, first->size,
                                        x->size);
        if (!check_range(r, o, i < ns ? "source" : "destination", i < ns ? i : i - ns, x,
                         r->counts + 3 * x->gpu))
            return FALSE;
    }
    return TRUE;
}

/* Signals raise the partner channel's semaphore; waits on a channel take them. Each must
 * be met: a wait without its signal hangs, a signal without its wait is a plan whose
 * semaphores do not return to zero. */
gboolean fennel__mscclpp_check_sync(const FennelMscclppPlan *p, GError **error)
{
    uint32_t *in = g_new0(uint32_t, p->n_channels), *taken = g_new0(uint32_t, p->n_channels);
    for (uint32_t i = 0; i < p->n_ops; i++) {
        const FennelMscclppOp *op = &p->ops[i];
        gboolean sig = op->kind == FENNEL_MSCCLPP_SIGNAL || op->signals;
        if (!sig && op->kind != FENNEL_MSCCLPP_WAIT)
            continue;
        for (uint32_t k = 0; k < op->n_chans; k++) {
            uint32_t c = p->chan_refs[op->first_chan + k];
            if (sig && p->channels[c].partner == UINT32_MAX) {
                uint32_t g, t;
                locate(p, i, &g, &t);
                fennel_error_at(error, p->file, op->line, op->col,
                                "gpu %u tb %u op %u (%s): signals gpu %u, which has no channel "
                                "of this type back to gpu %u",
                                g, t, i - p->tbs[p->gpus[g].first_tb + t].first_op,
                                fennel_mscclpp_op_name(op), p->channels[c].peer, g);
                g_free(in);
                g_free(taken);
                return FALSE;
            }
            if (sig)
                in[p->channels[c].partner]++;
            else
                taken[c]++;
        }
    }
    gboolean ok = TRUE;
    for (uint32_t c = 0; ok && c < p->n_channels; c++) {
        if (in[c] == taken[c])
            continue;
        const FennelMscclppChannel *ch = &p->channels[c];
        uint32_t ordinal = 0; /* among the GPU's channels of its type, as the file counts */
        for (uint32_t d = 0; d < c; d++)
            ordinal += p->channels[d].gpu == ch->gpu && p->channels[d].type == ch->type;
        fennel_error_at(error, p->file, p->gpus[ch->gpu].line, p->gpus[ch->gpu].col,
                        "gpu %u waits %u time%s on its %s channel %u from gpu %u, which signals "
                        "it %u time%s",
                        ch->gpu, taken[c], taken[c] == 1 ? "" : "s",
                        (const char *[]){"memory", "port", "switch"}[ch->type], ordinal, ch->peer,
                        in[c], in[c] == 1 ? "" : "s");
        ok = FALSE;
    }
    g_free(in);
    g_free(taken);
    return ok;
}
