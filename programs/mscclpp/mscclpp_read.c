/* The MSCCL++ execution plan reader (docs/FORMATS.md): the plan, its GPUs, their channels,
 * remote buffers and semaphores and their thread blocks, in the current schema (snake
 * case, channels by type) and in the legacy one of 2024 (camel case, channels by type and
 * buffer pair). Operations are read by mscclpp_ops.c. */
#include "mscclpp_private.h"

#include "errors.h"
#include "input.h"
#include "map.h"

#include <string.h>

gboolean fennel_mscclpp_detect(const char *data, gsize length)
{
    fennel_input_skip_bom(&data, &length);
    gsize i = 0;
    while (i < length && g_ascii_isspace(data[i]))
        i++;
    /* "threadblocks" too, so that a plan with a misspelt "collective" reaches this reader
     * and its message rather than another format's. */
    return i < length && data[i] == '{' && g_strstr_len(data, (gssize)length, "\"gpus\"") &&
           (g_strstr_len(data, (gssize)length, "\"collective\"") ||
            g_strstr_len(data, (gssize)length, "\"threadblocks\""));
}

/* Channel types by name: the current schema's and the legacy one's. */
static gboolean channel_type(FennelMscclppReader *r, JNode *o, FennelMscclppKey key, uint8_t *type)
{
    const char *s = fennel__mscclpp_string(r, o, key, FALSE);
    if (s == NULL)
        return FALSE;
    static const char *const names[] = {"memory", "port", "switch", "sm", "proxy", "nvls"};
    for (unsigned k = 0; k < G_N_ELEMENTS(names); k++)
        if (strcmp(s, names[k]) == 0 && (k < 3) != r->p->legacy) {
            *type = (uint8_t)(k % 3);
            return TRUE;
        }
    return fennel__mscclpp_fail(r, o, "\"%s\": unknown channel type \"%s\" (%s)",
                                fennel__mscclpp_key_names[key], s,
                                r->p->legacy ? "sm, proxy or nvls" : "memory, port or switch");
}

/* The legacy schema keys a channel by its buffer pair too. */
static gboolean channel_key(FennelMscclppReader *r, JNode *o, FennelMscclppKey src,
                            FennelMscclppKey dst, uint8_t *key)
{
    *key = 0;
    if (!r->p->legacy)
        return TRUE;
    uint8_t s, d;
    if (!fennel__mscclpp_buffer(r, o, src, &s) || !fennel__mscclpp_buffer(r, o, dst, &d))
        return FALSE;
    *key = (uint8_t)(3 * s + d);
    return TRUE;
}

static gboolean read_group(FennelMscclppReader *r, JNode *ch, uint8_t buf, JNode *g)
{
    JNode *ranks = fennel__mscclpp_array(r, g, K_ranks, FALSE);
    if (ranks == NULL)
        return FALSE;
    FennelMscclppGroup group = {buf, r->group_ranks->len, ranks->n};
    gboolean self = FALSE;
    for (guint k = 0; k < group.n_ranks; k++) {
        int64_t rank;
        if (!fennel__mscclpp_int_element(r, g, ranks, k, 0, r->p->ngpus - 1, "rank", &rank))
            return FALSE;
        uint32_t v = (uint32_t)rank;
        self |= v == r->gpu;
        g_array_append_val(r->group_ranks, v);
    }
    if (!self)
        return fennel__mscclpp_fail(r, ch, "a switch channel of a group without gpu %u", r->gpu);
    g_array_append_val(r->groups, group);
    return TRUE;
}

static gboolean read_channels(FennelMscclppReader *r, JNode *gpu)
{
    gboolean legacy = r->p->legacy;
    JNode *chans = fennel__mscclpp_array(r, gpu, K_channels, TRUE);
    guint n = chans ? chans->n : 0;
    for (guint i = 0; i < n; i++) {
        JNode *ch = fennel__mscclpp_element(r, gpu, chans, i, "channel");
        uint8_t type, key = 0;
        if (ch == NULL || !channel_type(r, ch, legacy ? K_type : K_channel_type, &type))
            return FALSE;
        if (type == FENNEL_MSCCLPP_SWITCH) {
            uint8_t buf;
            FennelMscclppKey bkey = fennel__mscclpp_has(r, ch, K_buff) ? K_buff : K_buffer_type;
            JNode *groups =
                fennel__mscclpp_array(r, ch, legacy ? K_rankGroups : K_rank_groups, FALSE);
            if (groups == NULL || !fennel__mscclpp_buffer(r, ch, bkey, &buf))
                return FALSE;
            for (guint k = 0; k < groups->n; k++) {
                JNode *g = fennel__mscclpp_element(r, ch, groups, k, "rank group");
                if (g == NULL || !read_group(r, ch, buf, g))
                    return FALSE;
            }
            continue;
        }
        JNode *peers = fennel__mscclpp_array(r, ch, legacy ? K_connectedTo : K_connected_to, FALSE);
        if (peers == NULL || !channel_key(r, ch, K_srcbuff, K_dstbuff, &key))
            return FALSE;
        for (guint k = 0; k < peers->n; k++) {
            int64_t peer;
            if (!fennel__mscclpp_int_element(r, ch, peers, k, 0, r->p->ngpus - 1, "peer", &peer))
                return FALSE;
            if ((uint32_t)peer == r->gpu)
                return fennel__mscclpp_fail(r, ch, "a channel to itself");
            FennelMscclppChannel c = {r->gpu, (uint32_t)peer, type, key, UINT32_MAX};
            g_array_append_val(r->channels, c);
        }
    }
    return TRUE;
}

static gboolean read_remote_buffers(FennelMscclppReader *r, JNode *gpu)
{
    g_array_set_size(r->remote, 0);
    JNode *bufs = r->p->legacy ? NULL : fennel__mscclpp_array(r, gpu, K_remote_buffers, TRUE);
    guint n = bufs ? bufs->n : 0;
    for (guint i = 0; i < n; i++) {
        JNode *b = fennel__mscclpp_element(r, gpu, bufs, i, "remote buffer");
        int64_t rank;
        uint8_t buf;
        if (b == NULL || !fennel__mscclpp_int(r, b, K_rank, 0, r->p->ngpus - 1, FALSE, &rank) ||
            !fennel__mscclpp_buffer(r, b, K_type, &buf))
            return FALSE;
        if ((uint32_t)rank == r->gpu)
            return fennel__mscclpp_fail(r, b, "a remote buffer on gpu %u itself", r->gpu);
        uint32_t v[2] = {(uint32_t)rank, buf};
        g_array_append_vals(r->remote, v, 2);
    }
    return TRUE;
}

/* The thread block's channels by type (and buffer pair) and its remote buffers. */
static gboolean read_tb_refs(FennelMscclppReader *r, JNode *tb, const FennelMscclppGpu *g)
{
    for (unsigned k = 0; k < G_N_ELEMENTS(r->tb_chans); k++)
        g_array_set_size(r->tb_chans[k], 0);
    g_array_set_size(r->tb_bufs[0], 0);
    g_array_set_size(r->tb_bufs[1], 0);
    gboolean legacy = r->p->legacy;
    JNode *chans = fennel__mscclpp_array(r, tb, K_channels, TRUE);
    for (guint i = 0; chans && i < chans->n; i++) {
        JNode *ch = fennel__mscclpp_element(r, tb, chans, i, "channel");
        uint8_t type, key = 0;
        if (ch == NULL || !channel_type(r, ch, legacy ? K_ctype : K_channel_type, &type) ||
            (type != FENNEL_MSCCLPP_SWITCH && !channel_key(r, ch, K_src, K_dst, &key)))
            return FALSE;
        JNode *ids = fennel__mscclpp_array(r, ch, legacy ? K_cids : K_channel_ids, FALSE);
        if (ids == NULL)
            return FALSE;
        /* The k-th channel of this type (and pair) of the GPU, or its k-th switch group. */
        for (guint k = 0; k < ids->n; k++) {
            int64_t id;
            if (!fennel__mscclpp_int_element(r, ch, ids, k, 0, UINT32_MAX, "channel id", &id))
                return FALSE;
            uint32_t global = UINT32_MAX, seen = 0;
            if (type == FENNEL_MSCCLPP_SWITCH) {
                if (id < g->n_groups)
                    global = g->first_group + (uint32_t)id;
            } else {
                /* The GPU's channels are the last ones read. */
                for (uint32_t c = r->gpu_channels; global == UINT32_MAX && c < r->channels->len;
                     c++) {
                    const FennelMscclppChannel *x =
                        &g_array_index(r->channels, FennelMscclppChannel, c);
                    if (x->gpu == r->gpu && x->type == type && x->key == key && seen++ == id)
                        global = c;
                }
            }
            if (global == UINT32_MAX)
                return fennel__mscclpp_fail(
                    r, ch, "channel id %" G_GINT64_FORMAT ": gpu %u has no such channel", id,
                    r->gpu);
            g_array_append_val(r->tb_chans[type * 9 + key], global);
        }
    }
    JNode *refs = legacy ? NULL : fennel__mscclpp_array(r, tb, K_remote_buffer_refs, TRUE);
    for (guint i = 0; refs && i < refs->n; i++) {
        JNode *ref = fennel__mscclpp_element(r, tb, refs, i, "remote buffer ref");
        uint8_t type;
        if (ref == NULL || !channel_type(r, ref, K_access_channel_type, &type))
            return FALSE;
        JNode *ids = fennel__mscclpp_array(r, ref, K_remote_buffer_ids, FALSE);
        if (ids == NULL)
            return FALSE;
        if (type == FENNEL_MSCCLPP_SWITCH)
            return fennel__mscclpp_fail(r, ref, "switch channels reach no remote buffer");
        if (ids->n > 0 && r->remote->len == 0)
            return fennel__mscclpp_fail(r, ref, "gpu %u has no remote buffers", r->gpu);
        for (guint k = 0; k < ids->n; k++) {
            int64_t id;
            if (!fennel__mscclpp_int_element(r, ref, ids, k, 0, (int64_t)r->remote->len / 2 - 1,
                                             "remote buffer id", &id))
                return FALSE;
            g_array_append_vals(r->tb_bufs[type], &g_array_index(r->remote, uint32_t, 2 * id), 2);
        }
    }
    return TRUE;
}

/* A GPU's chunks of its three buffers, which operations on its peers need. */
static gboolean read_counts(FennelMscclppReader *r, JNode *o, int32_t *counts)
{
    static const FennelMscclppKey keys[2][3] = {
        {K_input_chunks, K_output_chunks, K_scratch_chunks},
        {K_inputChunks, K_outputChunks, K_scratchChunks},
    };
    for (int b = 0; b < 3; b++) {
        int64_t v;
        if (!fennel__mscclpp_int(r, o, keys[r->p->legacy][b], 0, 1 << 20, FALSE, &v))
            return FALSE;
        counts[b] = (int32_t)v;
    }
    /* The executor divides the buffer by one of them. */
    if (counts[0] == 0 && counts[1] == 0)
        return fennel__mscclpp_fail(r, o, "no input and no output chunks");
    return TRUE;
}

static gboolean read_gpu(FennelMscclppReader *r, JNode *o, FennelMscclppGpu *g)
{
    int64_t id;
    g->line = fennel__mscclpp_line(r, o);
    g->col = fennel__mscclpp_col(r, o);
    if (!fennel__mscclpp_int(r, o, K_id, 0, UINT32_MAX, FALSE, &id))
        return FALSE;
    if (id != r->gpu)
        return fennel__mscclpp_fail(r, o, "\"id\": %" G_GINT64_FORMAT ", but it is gpu %u", id,
                                    r->gpu);
    memcpy(g->chunks, r->counts + 3 * r->gpu, sizeof g->chunks);
    g->first_group = r->groups->len;
    r->gpu_channels = r->channels->len;
    if (!read_channels(r, o) || !read_remote_buffers(r, o))
        return FALSE;
    g->n_groups = r->groups->len - g->first_group;
    g->first_sem = r->sems->len;
    JNode *sems = fennel__mscclpp_array(r, o, K_semaphores, TRUE);
    for (guint i = 0; sems && i < sems->n; i++) {
        JNode *s = fennel__mscclpp_element(r, o, sems, i, "semaphore");
        int64_t init = 0;
        if (s == NULL || !fennel__mscclpp_int(r, s, K_init_value, 0, 1 << 30, FALSE, &init))
            return FALSE;
        g_array_append_val(r->sems, init);
    }
    g->n_sems = r->sems->len - g->first_sem;
    JNode *tbs = fennel__mscclpp_array(r, o, K_threadblocks, FALSE);
    if (tbs == NULL)
        return FALSE;
    g->first_tb = r->tbs->len;
    g->n_tbs = tbs->n;
    for (guint t = 0; t < g->n_tbs; t++) {
        JNode *tb = fennel__mscclpp_element(r, o, tbs, t, "thread block");
        if (tb == NULL)
            return FALSE;
        r->tb_index = t;
        FennelMscclppTb x = {.first_op = r->ops->len};
        x.line = fennel__mscclpp_line(r, tb);
        x.col = fennel__mscclpp_col(r, tb);
        if (!fennel__mscclpp_int(r, tb, K_id, 0, UINT32_MAX, FALSE, &id))
            return FALSE;
        if (id != t)
            return fennel__mscclpp_fail(r, tb, "\"id\": %" G_GINT64_FORMAT ", but it is tb %u", id,
                                        t);
        JNode *ops = fennel__mscclpp_array(r, tb, K_ops, FALSE);
        if (ops == NULL || !read_tb_refs(r, tb, g) || !fennel__mscclpp_ops(r, tb, ops))
            return FALSE;
        x.n_ops = r->ops->len - x.first_op;
        g_array_append_val(r->tbs, x);
        r->tb_index = UINT32_MAX;
    }
    return TRUE;
}

/* Pairs every channel with the peer's channel back of the same type, pair and ordinal (its
 * rank among the channels of its GPU to the same peer of the same type and pair). Through
 * hash maps: a plan of all pairs of 256 GPUs has 65 280 channels. */
static void pair_channels(FennelMscclppPlan *p)
{
    uint32_t n = p->n_channels;
    FennelMap count, where;
    fennel_map_init(&count);
    fennel_map_init(&where);
    uint32_t *ordinal = g_new0(uint32_t, n);
    for (uint32_t c = 0; c < n; c++) {
        const FennelMscclppChannel *x = &p->channels[c];
        uint64_t kind = (uint64_t)x->type << 8 | x->key;
        ordinal[c] =
            (uint32_t)(*fennel_map_slot(&count, (uint64_t)x->gpu << 32 | x->peer, kind, 0))++;
        *fennel_map_slot(&where, (uint64_t)x->gpu << 32 | x->peer, kind << 32 | ordinal[c], 0) = c;
    }
    for (uint32_t c = 0; c < n; c++) {
        const FennelMscclppChannel *x = &p->channels[c];
        uint64_t kind = (uint64_t)x->type << 8 | x->key;
        const uint64_t *d =
            fennel_map_find(&where, (uint64_t)x->peer << 32 | x->gpu, kind << 32 | ordinal[c]);
        p->channels[c].partner = d ? (uint32_t)*d : UINT32_MAX;
    }
    g_free(ordinal);
    fennel_map_clear(&count);
    fennel_map_clear(&where);
}

static gboolean read_plan(FennelMscclppReader *r, JNode *root)
{
    FennelMscclppPlan *p = r->p;
    p->line = fennel__mscclpp_line(r, root);
    p->col = fennel__mscclpp_col(r, root);
    const char *name = fennel__mscclpp_string(r, root, K_name, FALSE);
    const char *coll = name ? fennel__mscclpp_string(r, root, K_collective, FALSE) : NULL;
    const char *proto = coll ? fennel__mscclpp_string(r, root, K_protocol, FALSE) : NULL;
    JNode *inplace = proto ? fennel__mscclpp_get(r, root, K_inplace) : NULL;
    JNode *gpus = proto ? fennel__mscclpp_array(r, root, K_gpus, FALSE) : NULL;
    if (gpus == NULL)
        return FALSE;
    /* Both reach messages and summaries: kept readable, as fennel's messages are. */
    p->name = fennel_message_clean(name);
    p->coll = fennel_message_clean(coll);
    /* An empty name (or one a NUL, "\u0000", cuts short) names no collective, as in MSCCL
     * XML (docs/RELIABILITY.md, finding 37). */
    gboolean named = *coll != '\0';
    for (const char *c = coll; *c && named; c++)
        named = g_ascii_isalnum(*c) || *c == '_' || *c == '-';
    if (!named)
        return fennel__mscclpp_fail(r, root,
                                    "\"collective\": \"%s\": expected the name of a "
                                    "collective",
                                    p->coll);
    if (strcmp(proto, "LL") == 0)
        p->packets = TRUE;
    else if (strcmp(proto, "Simple") != 0)
        return fennel__mscclpp_fail(r, root, "\"protocol\": \"%s\" (Simple or LL)", proto);
    if (inplace == NULL ||
        (inplace->type != FENNEL_MSCCLPP_JTRUE && inplace->type != FENNEL_MSCCLPP_JFALSE))
        return fennel__mscclpp_fail(r, root, "\"inplace\": expected true or false");
    p->inplace = inplace->type == FENNEL_MSCCLPP_JTRUE;
    /* The unit in which a thread-block group splits a range: the executor's default. */
    int64_t alignment = 16;
    if (!fennel__mscclpp_int(r, root, K_buffer_alignment, 1, 1 << 30, TRUE, &alignment))
        return FALSE;
    p->alignment = (uint32_t)alignment;
    p->parts = 1;
    p->ngpus = gpus->n;
    if (p->ngpus < 1 || p->ngpus > 65536)
        return fennel__mscclpp_fail(r, root, "\"gpus\": %u gpus (1 to 65536)", p->ngpus);
    JNode *first = fennel__mscclpp_element(r, root, gpus, 0, "gpu");
    if (first == NULL)
        return FALSE;
    p->legacy = fennel__mscclpp_has(r, first, K_inputChunks);
    p->gpus = g_new0(FennelMscclppGpu, p->ngpus);
    r->counts = g_new0(int32_t, 3 * p->ngpus);
    for (r->gpu = 0; r->gpu < p->ngpus; r->gpu++) {
        JNode *o = fennel__mscclpp_element(r, root, gpus, r->gpu, "gpu");
        if (o == NULL || !read_counts(r, o, r->counts + 3 * r->gpu))
            return FALSE;
    }
    for (r->gpu = 0; r->gpu < p->ngpus; r->gpu++) {
        JNode *o = fennel__mscclpp_element(r, root, gpus, r->gpu, "gpu");
        if (o == NULL || !read_gpu(r, o, &p->gpus[r->gpu]))
            return FALSE;
    }
    r->gpu = UINT32_MAX;
#define TAKE(field, arr, type)                                                                     \
    do {                                                                                           \
        p->n_##field = r->arr->len;                                                                \
        p->field = (type *)(void *)g_array_free(r->arr, FALSE);                                    \
        r->arr = NULL;                                                                             \
        if (p->field == NULL) /* an empty array has no data; pointers into it must exist */        \
            p->field = g_new0(type, 1);                                                            \
    } while (0)
    TAKE(tbs, tbs, FennelMscclppTb);
    TAKE(ops, ops, FennelMscclppOp);
    TAKE(operands, operands, FennelMscclppOperand);
    TAKE(chan_refs, chan_refs, uint32_t);
    TAKE(channels, channels, FennelMscclppChannel);
    TAKE(groups, groups, FennelMscclppGroup);
#undef TAKE
    p->n_sems = r->sems->len;
    g_array_set_size(r->sems, r->sems->len + 1);
    p->sem_init = (int64_t *)(void *)g_array_free(r->sems, FALSE);
    r->sems = NULL;
    g_array_set_size(r->group_ranks, r->group_ranks->len + 1);
    p->group_ranks = (uint32_t *)(void *)g_array_free(r->group_ranks, FALSE);
    r->group_ranks = NULL;
    if (r->failed)
        return FALSE;
    pair_channels(p);
    return fennel__mscclpp_check_sync(p, r->error);
}

/* Reads the plan from the tree `t`. With error NULL (the fast path), fails without a
 * message. */
static FennelMscclppPlan *read_tree(const char *file, const FennelMscclppTree *t, GError **error)
{
    FennelMscclppPlan *p = g_new0(FennelMscclppPlan, 1);
    p->file = g_strdup(file);
    FennelMscclppReader r = {.file = file, .p = p, .error = error};
    r.nodes = t->nodes;
    r.where = t->where;
    r.text = t->text->str;
    r.gpu = r.tb_index = r.op_index = UINT32_MAX;
    r.tbs = g_array_new(FALSE, FALSE, sizeof(FennelMscclppTb));
    r.ops = g_array_new(FALSE, FALSE, sizeof(FennelMscclppOp));
    r.operands = g_array_new(FALSE, FALSE, sizeof(FennelMscclppOperand));
    r.chan_refs = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    r.channels = g_array_new(FALSE, FALSE, sizeof(FennelMscclppChannel));
    r.groups = g_array_new(FALSE, FALSE, sizeof(FennelMscclppGroup));
    r.group_ranks = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    r.sems = g_array_new(FALSE, FALSE, sizeof(int64_t));
    r.remote = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    for (unsigned k = 0; k < G_N_ELEMENTS(r.tb_chans); k++)
        r.tb_chans[k] = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    r.tb_bufs[0] = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    r.tb_bufs[1] = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    gboolean ok = read_plan(&r, &r.nodes[t->root]) && !r.failed;
    GArray *arrays[] = {r.tbs,  r.ops,    r.operands,   r.chan_refs,  r.channels,   r.groups,
                        r.sems, r.remote, r.tb_bufs[0], r.tb_bufs[1], r.group_ranks};
    for (unsigned k = 0; k < G_N_ELEMENTS(arrays); k++)
        if (arrays[k])
            g_array_unref(arrays[k]);
    for (unsigned k = 0; k < G_N_ELEMENTS(r.tb_chans); k++)
        g_array_unref(r.tb_chans[k]);
    g_free(r.counts);
    if (!ok) {
        fennel_mscclpp_free(p);
        return NULL;
    }
    return p;
}

FennelMscclppPlan *fennel__mscclpp_fast_read(const char *file, const char *data, gsize length)
{
    FennelMscclppTree t;
    fennel__mscclpp_tree_init(&t);
    FennelMscclppPlan *p =
        fennel__mscclpp_scan_fast(&t, data, length) ? read_tree(file, &t, NULL) : NULL;
    fennel__mscclpp_tree_clear(&t);
    return p;
}

FennelMscclppPlan *fennel__mscclpp_careful_read(const char *file, const char *data, gsize length,
                                                GError **error)
{
    fennel_input_skip_bom(&data, &length);
    FennelMscclppTree t;
    fennel__mscclpp_tree_init(&t);
    FennelMscclppPlan *p = fennel__mscclpp_scan_careful(&t, file, data, length, error)
                               ? read_tree(file, &t, error)
                               : NULL;
    fennel__mscclpp_tree_clear(&t);
    return p;
}

/* The fast scanner takes the plain text MSCCL++'s Python writes, and builds the tree the
 * careful half would (tests/test_mscclpp.c holds them equal, messages too), so the plan and
 * its first error are read from its tree; only a text it declines goes to json-glib, whose
 * document is several times larger (docs/RELIABILITY.md: a plan of 100 000 gpus was parsed
 * again by json-glib to report its gpu count, and held 15 times the file). */
FennelMscclppPlan *fennel_mscclpp_parse(const char *file, const char *data, gsize length,
                                        GError **error)
{
    fennel_input_skip_bom(&data, &length);
    FennelMscclppTree t;
    fennel__mscclpp_tree_init(&t);
    gboolean plain = fennel__mscclpp_scan_fast(&t, data, length);
    FennelMscclppPlan *p = plain ? read_tree(file, &t, error) : NULL;
    fennel__mscclpp_tree_clear(&t);
    return plain ? p : fennel__mscclpp_careful_read(file, data, length, error);
}

void fennel_mscclpp_free(FennelMscclppPlan *p)
{
    if (p == NULL)
        return;
    g_free(p->file);
    g_free(p->name);
    g_free(p->coll);
    g_free(p->gpus);
    g_free(p->tbs);
    g_free(p->ops);
    g_free(p->operands);
    g_free(p->chan_refs);
    g_free(p->channels);
    g_free(p->groups);
    g_free(p->group_ranks);
    g_free(p->sem_init);
    g_free(p);
}

uint32_t fennel_mscclpp_rank_chunks(const FennelMscclppPlan *p)
{
    return p->gpus[0].chunks[0] > 0 ? (uint32_t)p->gpus[0].chunks[0]
                                    : (uint32_t)p->gpus[0].chunks[1];
}
