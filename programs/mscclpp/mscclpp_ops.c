/* The operations of an MSCCL++ thread block (docs/FORMATS.md), in either schema, with
 * every operand resolved to the GPU and buffer it touches: a local buffer by its type, a
 * remote one through the thread block's remote buffer references (current schema) or the
 * channel's buffer pair (legacy), a switch group through the thread block's switch
 * channels. A pipeline's nested operations are read in its place. */
#include "mscclpp_private.h"

#include "errors.h"

#include <string.h>

enum { SIGNALS = 1, FLUSHES = 2, CURRENT = 4, LEGACY = 8, BOTH = CURRENT | LEGACY };

static const struct {
    const char *name;
    uint8_t kind, flags;
} op_names[] = {
    {"nop", FENNEL_MSCCLPP_NOP, BOTH},
    {"barrier", FENNEL_MSCCLPP_BARRIER, BOTH},
    {"signal", FENNEL_MSCCLPP_SIGNAL, BOTH},
    {"rlxsignal", FENNEL_MSCCLPP_SIGNAL, CURRENT},
    {"wait", FENNEL_MSCCLPP_WAIT, BOTH},
    {"rlxwait", FENNEL_MSCCLPP_WAIT, CURRENT},
    {"flush", FENNEL_MSCCLPP_FLUSH, BOTH},
    {"put", FENNEL_MSCCLPP_PUT, BOTH},
    {"pws", FENNEL_MSCCLPP_PUT, BOTH | SIGNALS},
    {"pwsf", FENNEL_MSCCLPP_PUT, BOTH | SIGNALS | FLUSHES},
    {"get", FENNEL_MSCCLPP_GET, BOTH},
    {"copy", FENNEL_MSCCLPP_COPY, BOTH},
    {"re", FENNEL_MSCCLPP_REDUCE, BOTH},
    {"res", FENNEL_MSCCLPP_REDUCE, CURRENT},
    {"rre", FENNEL_MSCCLPP_REDUCE, CURRENT},
    {"rres", FENNEL_MSCCLPP_REDUCE, CURRENT},
    {"rs", FENNEL_MSCCLPP_REDUCE, LEGACY},
    {"rrc", FENNEL_MSCCLPP_REDUCE, LEGACY},
    {"rrcs", FENNEL_MSCCLPP_REDUCE, LEGACY},
    {"ppkt", FENNEL_MSCCLPP_PUT_PACKETS, BOTH},
    {"rppkt", FENNEL_MSCCLPP_PUT_PACKETS, CURRENT},
    /* cpkt copies into packets in the current schema; in the 2024 one it copies out of
     * them, each packet waited for by its flag (the legacy executor's COPY_PACKET), and
     * tpkt copies into them (TRANSFORM_TO_PACKET). */
    {"cpkt", FENNEL_MSCCLPP_COPY, CURRENT},
    {"cpkt", FENNEL_MSCCLPP_UNPACK_PACKETS, LEGACY},
    {"tpkt", FENNEL_MSCCLPP_COPY, LEGACY},
    {"upkt", FENNEL_MSCCLPP_UNPACK_PACKETS, CURRENT},
    {"repkt", FENNEL_MSCCLPP_REDUCE_PACKETS, CURRENT},
    {"respkt", FENNEL_MSCCLPP_REDUCE_PACKETS, CURRENT},
    {"recpkt", FENNEL_MSCCLPP_REDUCE_PACKETS, CURRENT},
    {"recspkt", FENNEL_MSCCLPP_REDUCE_PACKETS, CURRENT},
    {"rpkt", FENNEL_MSCCLPP_REDUCE_PACKETS, LEGACY},
    {"rspkt", FENNEL_MSCCLPP_REDUCE_PACKETS, LEGACY},
    {"glres", FENNEL_MSCCLPP_MULTI_REDUCE, BOTH},
    {"gstore", FENNEL_MSCCLPP_MULTI_STORE, CURRENT},
    {"gstorepkt", FENNEL_MSCCLPP_MULTI_STORE, CURRENT},
    {"sem_acquire", FENNEL_MSCCLPP_SEM_ACQUIRE, CURRENT},
    {"sem_release", FENNEL_MSCCLPP_SEM_RELEASE, CURRENT},
};

const char *fennel_mscclpp_op_name(const FennelMscclppOp *op)
{
    return op_names[op->name].name;
}

static gboolean add_chan(FennelMscclppReader *r, JNode *o, FennelMscclppOpBuild *b, uint8_t type,
                         uint8_t key, int64_t id)
{
    GArray *list = r->tb_chans[type * 9 + key];
    if (id < 0 || id >= list->len)
        return fennel__mscclpp_fail(r, o, "channel %" G_GINT64_FORMAT ": tb %u has %u %s channel%s",
                                    id, r->tb_index, list->len,
                                    (const char *[]){"memory", "port", "switch"}[type],
                                    list->len == 1 ? "" : "s");
    uint32_t global = g_array_index(list, uint32_t, id);
    for (guint k = 0; k < b->refs->len; k++)
        if (g_array_index(b->refs, uint32_t, k) == global)
            return TRUE;
    g_array_append_val(b->refs, global);
    return TRUE;
}

/* A current-schema operand: {type|buffer_id|switch_channel_id, index, size}. */
static gboolean current_operand(FennelMscclppReader *r, JNode *o, FennelMscclppOpBuild *b,
                                GArray *into)
{
    FennelMscclppOperand x = {.gpu = r->gpu};
    int64_t index, size, id;
    if (!fennel__mscclpp_int(r, o, K_index, 0, 1 << 20, FALSE, &index) ||
        !fennel__mscclpp_int(r, o, K_size, 0, 1 << 20, FALSE, &size))
        return FALSE;
    x.index = (int32_t)index;
    x.size = (int32_t)size;
    if (fennel__mscclpp_has(r, o, K_buffer_id)) {
        uint8_t type = b->op.chan;
        if (type == FENNEL_MSCCLPP_SWITCH)
            return fennel__mscclpp_fail(r, o,
                                        "a remote buffer needs a memory or port channel_type");
        GArray *bufs = r->tb_bufs[type];
        if (!fennel__mscclpp_int(r, o, K_buffer_id, 0, UINT32_MAX, FALSE, &id))
            return FALSE;
        if (id >= bufs->len / 2)
            return fennel__mscclpp_fail(
                r, o, "buffer_id %" G_GINT64_FORMAT ": tb %u references %u remote buffers by %s",
                id, r->tb_index, bufs->len / 2, type == FENNEL_MSCCLPP_PORT ? "port" : "memory");
        x.gpu = g_array_index(bufs, uint32_t, 2 * id);
        x.buf = (uint8_t)g_array_index(bufs, uint32_t, 2 * id + 1);
    } else if (fennel__mscclpp_has(r, o, K_switch_channel_id)) {
        if (!fennel__mscclpp_int(r, o, K_switch_channel_id, 0, UINT32_MAX, FALSE, &id) ||
            !add_chan(r, o, b, FENNEL_MSCCLPP_SWITCH, 0, id))
            return FALSE;
        uint32_t group = g_array_index(b->refs, uint32_t, b->refs->len - 1);
        x.buf = g_array_index(r->groups, FennelMscclppGroup, group).buf;
    } else if (!fennel__mscclpp_buffer(r, o, K_type, &x.buf)) {
        return FALSE;
    }
    g_array_append_val(into, x);
    return TRUE;
}

static gboolean current_operands(FennelMscclppReader *r, JNode *op, FennelMscclppOpBuild *b,
                                 FennelMscclppKey key, GArray *into)
{
    JNode *a = fennel__mscclpp_array(r, op, key, TRUE);
    for (guint i = 0; a && i < a->n; i++) {
        JNode *o = fennel__mscclpp_element(r, op, a, i, fennel__mscclpp_key_names[key]);
        if (o == NULL || !current_operand(r, o, b, into))
            return FALSE;
    }
    return TRUE;
}

/* A legacy channel list, i_cids or o_cids: [{id, off}], through the channels of the buffer
 * pair i_buff/o_buff; `into` (if not NULL) receives the peers' `dst` buffers at off. */
static gboolean legacy_cids(FennelMscclppReader *r, JNode *op, FennelMscclppOpBuild *b,
                            FennelMscclppKey cids, FennelMscclppKey pair, int32_t cnt, GArray *into)
{
    JNode *a = fennel__mscclpp_array(r, op, cids, TRUE);
    if (a == NULL)
        return TRUE;
    uint8_t key = 0, type = b->op.chan;
    if (type == FENNEL_MSCCLPP_SWITCH) {
        /* An nvls operation names its group in cids and its buffer in srcbuff/dstbuff. */
        JNode *c = fennel__mscclpp_element(r, op, a, 0, fennel__mscclpp_key_names[cids]);
        int64_t id;
        if (c == NULL || !fennel__mscclpp_int(r, c, K_id, 0, UINT32_MAX, FALSE, &id))
            return FALSE;
        return add_chan(r, op, b, type, 0, id);
    }
    JNode *bp = fennel__mscclpp_object(r, op, pair, FALSE);
    uint8_t s, d;
    if (bp == NULL || !fennel__mscclpp_buffer(r, bp, K_src, &s) ||
        !fennel__mscclpp_buffer(r, bp, K_dst, &d))
        return FALSE;
    key = (uint8_t)(3 * s + d);
    for (guint i = 0; i < a->n; i++) {
        JNode *c = fennel__mscclpp_element(r, op, a, i, fennel__mscclpp_key_names[cids]);
        int64_t id, off = 0;
        if (c == NULL || !fennel__mscclpp_int(r, c, K_id, 0, UINT32_MAX, FALSE, &id) ||
            !fennel__mscclpp_int(r, c, K_off, 0, 1 << 20, into == NULL, &off) ||
            !add_chan(r, c, b, type, key, id))
            return FALSE;
        if (into) {
            uint32_t global = g_array_index(r->tb_chans[type * 9 + key], uint32_t, id);
            FennelMscclppOperand x = {g_array_index(r->channels, FennelMscclppChannel, global).peer,
                                      d, 0, (int32_t)off, cnt};
            g_array_append_val(into, x);
        }
    }
    return TRUE;
}

/* Legacy local operands: a single src/srcbuff/srcoff or a list srcs: [{buff, off}]. */
static gboolean legacy_local(FennelMscclppReader *r, JNode *op, FennelMscclppKey buff,
                             FennelMscclppKey off, FennelMscclppKey list, int32_t cnt, GArray *into)
{
    if (fennel__mscclpp_has(r, op, buff)) {
        FennelMscclppOperand x = {.gpu = r->gpu, .size = cnt};
        int64_t v;
        if (!fennel__mscclpp_buffer(r, op, buff, &x.buf) ||
            !fennel__mscclpp_int(r, op, off, 0, 1 << 20, FALSE, &v))
            return FALSE;
        x.index = (int32_t)v;
        g_array_append_val(into, x);
    }
    JNode *a = fennel__mscclpp_array(r, op, list, TRUE);
    for (guint i = 0; a && i < a->n; i++) {
        JNode *o = fennel__mscclpp_element(r, op, a, i, fennel__mscclpp_key_names[list]);
        FennelMscclppOperand x = {.gpu = r->gpu, .size = cnt};
        int64_t v;
        if (o == NULL || !fennel__mscclpp_buffer(r, o, K_buff, &x.buf) ||
            !fennel__mscclpp_int(r, o, K_off, 0, 1 << 20, FALSE, &v))
            return FALSE;
        x.index = (int32_t)v;
        g_array_append_val(into, x);
    }
    return TRUE;
}

static gboolean legacy_op(FennelMscclppReader *r, JNode *op, FennelMscclppOpBuild *b)
{
    int64_t cnt = 0;
    if (!fennel__mscclpp_int(r, op, K_cnt, 0, 1 << 20, TRUE, &cnt))
        return FALSE;
    /* Waits read their channels from i_cids, everything else writes through o_cids. */
    GArray *reads = b->op.kind == FENNEL_MSCCLPP_WAIT ? NULL : b->srcs;
    GArray *writes = b->op.kind == FENNEL_MSCCLPP_SIGNAL ? NULL : b->dsts;
    return legacy_local(r, op, K_srcbuff, K_srcoff, K_srcs, (int32_t)cnt, b->srcs) &&
           legacy_cids(r, op, b, K_i_cids, K_i_buff, (int32_t)cnt, reads) &&
           legacy_local(r, op, K_dstbuff, K_dstoff, K_dsts, (int32_t)cnt, b->dsts) &&
           legacy_cids(r, op, b, K_o_cids, K_o_buff, (int32_t)cnt, writes);
}

static gboolean current_op(FennelMscclppReader *r, JNode *op, FennelMscclppOpBuild *b)
{
    JNode *ids = fennel__mscclpp_array(r, op, K_channel_ids, TRUE);
    for (guint i = 0; ids && i < ids->n; i++) {
        int64_t id;
        if (!fennel__mscclpp_int_element(r, op, ids, i, 0, UINT32_MAX, "channel id", &id) ||
            !add_chan(r, op, b, b->op.chan, 0, id))
            return FALSE;
    }
    if (b->op.kind == FENNEL_MSCCLPP_SEM_ACQUIRE || b->op.kind == FENNEL_MSCCLPP_SEM_RELEASE) {
        uint32_t n = r->sems->len - r->p->gpus[r->gpu].first_sem;
        JNode *sems = fennel__mscclpp_array(r, op, K_semaphore_ids, FALSE);
        for (guint i = 0; sems && i < sems->n; i++) {
            int64_t id;
            if (!fennel__mscclpp_int_element(r, op, sems, i, 0, (int64_t)n - 1, "semaphore", &id))
                return FALSE;
            uint32_t v = (uint32_t)id;
            g_array_append_val(b->refs, v);
        }
        if (sems == NULL)
            return FALSE;
    }
    if (b->op.kind == FENNEL_MSCCLPP_BARRIER) {
        int64_t id, n;
        if (!fennel__mscclpp_int(r, op, K_barrier_id, 0, INT32_MAX, FALSE, &id) ||
            !fennel__mscclpp_int(r, op, K_num_threadblocks, 1, INT32_MAX, FALSE, &n))
            return FALSE;
        b->op.barrier = (int32_t)id;
        b->op.barrier_tbs = (int32_t)n;
    }
    JNode *tbg = fennel__mscclpp_object(r, op, K_tbg_info, TRUE);
    if (tbg) {
        /* tbg_size thread blocks share the operation, this one as block tb_id. */
        int64_t id, n;
        if (!fennel__mscclpp_int(r, tbg, K_tbg_size, 1, 1024, FALSE, &n) ||
            !fennel__mscclpp_int(r, tbg, K_tb_id, 0, n - 1, FALSE, &id))
            return FALSE;
        b->op.tbg_id = (uint16_t)id;
        b->op.tbg_size = (uint16_t)n;
        uint32_t a = r->p->parts, m = (uint32_t)n;
        while (m != 0) {
            uint32_t t = a % m;
            a = m;
            m = t;
        }
        uint64_t lcm = (uint64_t)r->p->parts / a * (uint64_t)n;
        if (lcm > 1024)
            return fennel__mscclpp_fail(r, tbg,
                                        "tbg_size %" G_GINT64_FORMAT ": the plan's thread-block "
                                        "groups divide a chunk into %" G_GUINT64_FORMAT
                                        " parts (at most 1024)",
                                        n, lcm);
        r->p->parts = (uint32_t)lcm;
    }
    return current_operands(r, op, b, K_src_buff, b->srcs) &&
           current_operands(r, op, b, K_dst_buff, b->dsts);
}

static void mark_packets(FennelMscclppOpBuild *b, uint32_t self)
{
    FennelMscclppOperand *s = (FennelMscclppOperand *)(void *)b->srcs->data;
    FennelMscclppOperand *d = (FennelMscclppOperand *)(void *)b->dsts->data;
    const char *name = op_names[b->op.name].name;
    switch ((FennelMscclppKind)b->op.kind) {
    case FENNEL_MSCCLPP_PUT_PACKETS:
        for (guint i = 0; i < b->dsts->len; i++)
            d[i].packets = 1;
        if (strcmp(name, "rppkt") == 0)
            s[0].packets = 1;
        break;
    case FENNEL_MSCCLPP_UNPACK_PACKETS:
        s[0].packets = 1;
        break;
    case FENNEL_MSCCLPP_COPY:
        if (strcmp(name, "copy") != 0)
            d[0].packets = 1;
        break;
    case FENNEL_MSCCLPP_REDUCE_PACKETS:
        for (guint i = 1; i < b->srcs->len; i++)
            s[i].packets = 1;
        for (guint i = 0; i < b->dsts->len; i++)
            d[i].packets = d[i].gpu != self;
        break;
    case FENNEL_MSCCLPP_MULTI_STORE:
        d[0].packets = strcmp(name, "gstorepkt") == 0;
        break;
    default:
        break;
    }
}

static gboolean read_op(FennelMscclppReader *r, JNode *o, FennelMscclppOpBuild *b)
{
    const char *name = fennel__mscclpp_string(r, o, K_name, FALSE);
    if (name == NULL)
        return FALSE;
    unsigned want = r->p->legacy ? LEGACY : CURRENT, k = 0;
    while (k < G_N_ELEMENTS(op_names) &&
           (op_names[k].name[0] != name[0] || strcmp(op_names[k].name, name) != 0 ||
            !(op_names[k].flags & want)))
        k++;
    if (strcmp(name, "pipeline") == 0 && !r->p->legacy) {
        /* Its nested operations run once per slice of the range; fennel runs them once
         * over the whole of it (docs/FORMATS.md). */
        JNode *ops = fennel__mscclpp_array(r, o, K_ops, FALSE);
        return ops && fennel__mscclpp_ops(r, o, ops);
    }
    if (k == G_N_ELEMENTS(op_names))
        return fennel__mscclpp_fail(r, o, "\"name\": unknown operation \"%s\"", name);
    memset(&b->op, 0, sizeof b->op);
    b->op.kind = op_names[k].kind;
    b->op.name = (uint8_t)k;
    b->op.signals = (op_names[k].flags & SIGNALS) != 0;
    b->op.flushes = (op_names[k].flags & FLUSHES) != 0;
    b->op.barrier = -1;
    b->op.tbg_size = 1;
    b->op.line = fennel__mscclpp_line(r, o);
    b->op.col = fennel__mscclpp_col(r, o);
    b->srcs->len = b->dsts->len = b->refs->len = 0; /* kept, for the next operation */
    FennelMscclppKey ct = r->p->legacy ? K_ctype : K_channel_type;
    const char *chan = fennel__mscclpp_string(r, o, ct, TRUE);
    if (chan && strcmp(chan, "none") != 0) {
        static const char *const names[] = {"memory", "port", "switch", "sm", "proxy", "nvls"};
        unsigned c = r->p->legacy ? 3 : 0, end = c + 3;
        while (c < end && strcmp(names[c], chan) != 0)
            c++;
        if (c == end)
            return fennel__mscclpp_fail(r, o, "\"%s\": unknown channel type \"%s\"",
                                        fennel__mscclpp_key_names[ct], chan);
        b->op.chan = (uint8_t)(c % 3);
    }
    if (!(r->p->legacy ? legacy_op(r, o, b) : current_op(r, o, b)) ||
        !fennel__mscclpp_check_op(r, o, b))
        return FALSE;
    mark_packets(b, r->gpu);
    b->op.n_src = (uint16_t)MIN(b->srcs->len, UINT16_MAX);
    b->op.n_dst = (uint16_t)MIN(b->dsts->len, UINT16_MAX);
    b->op.n_chans = (uint16_t)MIN(b->refs->len, UINT16_MAX);
    b->op.first_src = r->operands->len;
    b->op.first_chan = r->chan_refs->len;
    g_array_append_vals(r->operands, b->srcs->data, b->op.n_src);
    g_array_append_vals(r->operands, b->dsts->data, b->op.n_dst);
    g_array_append_vals(r->chan_refs, b->refs->data, b->op.n_chans);
    g_array_append_val(r->ops, b->op);
    return TRUE;
}

gboolean fennel__mscclpp_ops(FennelMscclppReader *r, JNode *tb, JNode *ops)
{
    (void)tb;
    FennelMscclppOpBuild b = {0};
    b.srcs = g_array_new(FALSE, FALSE, sizeof(FennelMscclppOperand));
    b.dsts = g_array_new(FALSE, FALSE, sizeof(FennelMscclppOperand));
    b.refs = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    gboolean ok = TRUE;
    guint n = ops->n;
    uint32_t outer = r->op_index;
    for (guint i = 0; ok && i < n; i++) {
        if (outer == UINT32_MAX)
            r->op_index = i;
        JNode *o = fennel__mscclpp_element(r, tb, ops, i, "op");
        ok = o && read_op(r, o, &b);
    }
    r->op_index = outer;
    g_array_unref(b.srcs);
    g_array_unref(b.dsts);
    g_array_unref(b.refs);
    return ok;
}
