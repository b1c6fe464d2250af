/* Shared by the files of the MSCCL++ reader: the JSON text as a tree of our own (nodes with
 * the position of every object), typed member access that fails with FILE:LINE:COL, and the
 * plan under construction. Two halves build the tree: the fast scanner for the plain JSON
 * that MSCCL++'s Python writes (mscclpp_fast.c), which declines anything else, and the
 * careful one through json-glib (mscclpp_json.c), which reads any text and reports every
 * syntax error. The plan is read from the tree alike in both. */
#ifndef FENNEL_MSCCLPP_PRIVATE_H
#define FENNEL_MSCCLPP_PRIVATE_H

#include "mscclpp.h"

#include <string.h>

/* Every key the reader looks up; any other key is FENNEL_MSCCLPP_KEY_OTHER. */
/* clang-format off */
#define FENNEL_MSCCLPP_KEYS(X)                                                                \
    X(name) X(collective) X(protocol) X(inplace) X(gpus) X(id)                                \
    X(input_chunks) X(output_chunks) X(scratch_chunks)                                        \
    X(inputChunks) X(outputChunks) X(scratchChunks)                                           \
    X(channels) X(channel_type) X(type) X(buff) X(buffer_type) X(rank_groups) X(rankGroups)   \
    X(ranks) X(connected_to) X(connectedTo) X(srcbuff) X(dstbuff) X(remote_buffers) X(rank)   \
    X(semaphores) X(init_value) X(threadblocks) X(ops) X(ctype) X(cids) X(channel_ids)        \
    X(src) X(dst) X(remote_buffer_refs) X(access_channel_type) X(remote_buffer_ids)           \
    X(index) X(size) X(buffer_id) X(switch_channel_id) X(src_buff) X(dst_buff)                \
    X(i_cids) X(o_cids) X(i_buff) X(o_buff) X(off) X(srcoff) X(dstoff) X(srcs) X(dsts)        \
    X(cnt) X(semaphore_ids) X(barrier_id) X(num_threadblocks)                                 \
    X(tbg_info) X(tb_id) X(tbg_size) X(buffer_alignment)
/* clang-format on */

typedef enum {
    FENNEL_MSCCLPP_KEY_OTHER,
#define FENNEL_MSCCLPP_KEY_ENUM(k) K_##k,
    FENNEL_MSCCLPP_KEYS(FENNEL_MSCCLPP_KEY_ENUM)
#undef FENNEL_MSCCLPP_KEY_ENUM
        FENNEL_MSCCLPP_N_KEYS
} FennelMscclppKey;

/* The keys' names, by FennelMscclppKey. */
extern const char *const fennel__mscclpp_key_names[FENNEL_MSCCLPP_N_KEYS];

/* A key's id from its text (not NUL-terminated); FENNEL_MSCCLPP_KEY_OTHER if unknown. */
FennelMscclppKey fennel__mscclpp_key(const char *s, gsize length);

/* The table fennel__mscclpp_key looks keys up in, for the fast scanner to do the same
 * inline: key ids by fennel__mscclpp_key_slot (0: none), open-addressed, and the keys'
 * lengths by id. */
#define FENNEL_MSCCLPP_KEY_SLOTS 256
typedef struct {
    uint8_t slots[FENNEL_MSCCLPP_KEY_SLOTS];
    uint8_t length[FENNEL_MSCCLPP_N_KEYS];
} FennelMscclppKeyTable;
const FennelMscclppKeyTable *fennel__mscclpp_key_table(void);

static inline guint fennel__mscclpp_key_slot(const char *s, gsize n)
{
    return (guint)(n * 7 + (guchar)s[0] * 31 + (guchar)s[n - 1] * 17 + (guchar)s[n / 2] * 5) %
           FENNEL_MSCCLPP_KEY_SLOTS;
}

typedef enum {
    FENNEL_MSCCLPP_JNULL,
    FENNEL_MSCCLPP_JFALSE,
    FENNEL_MSCCLPP_JTRUE,
    FENNEL_MSCCLPP_JINT,
    FENNEL_MSCCLPP_JDOUBLE, /* any number that is not a 64-bit integer to json-glib */
    FENNEL_MSCCLPP_JSTRING,
    FENNEL_MSCCLPP_JARRAY,
    FENNEL_MSCCLPP_JOBJECT,
} FennelMscclppJType;

typedef struct {
    uint8_t type; /* FennelMscclppJType */
    uint8_t key;  /* as an object's member, its key */
    uint32_t n;   /* an array's elements, an object's members */
    union {
        int64_t i;    /* JINT */
        uint32_t str; /* JSTRING: offset of its NUL-terminated text in text */
        struct {
            uint32_t first; /* JARRAY, JOBJECT: its n children are nodes first, first + 1, ... */
            uint32_t at;    /* JOBJECT: its position, line and col at where[2 at] */
        } c;
    } v;
} FennelMscclppNode; /* 16 bytes: a large plan has millions */

/* The tree under construction: the nodes, every container's children side by side, and
 * the strings' text. */
typedef struct {
    FennelMscclppNode *nodes;
    uint32_t *where; /* line, col of every object's opening brace (0 when unknown) */
    uint32_t n_nodes, cap_nodes, n_where, cap_where;
    uint32_t root;
    GString *text;
} FennelMscclppTree;

void fennel__mscclpp_tree_init(FennelMscclppTree *t);
void fennel__mscclpp_tree_clear(FennelMscclppTree *t);

/* Room for n more nodes, not initialised; the index of the first. */
static inline uint32_t fennel__mscclpp_tree_nodes(FennelMscclppTree *t, uint32_t n)
{
    if (t->cap_nodes - t->n_nodes < n) {
        t->cap_nodes = MAX(t->n_nodes + n, t->cap_nodes + t->cap_nodes / 2);
        t->nodes = g_renew(FennelMscclppNode, t->nodes, t->cap_nodes);
    }
    t->n_nodes += n;
    return t->n_nodes - n;
}

/* Records an object's position; the index for its node's v.c.at. */
static inline uint32_t fennel__mscclpp_tree_where(FennelMscclppTree *t, uint32_t line, uint32_t col)
{
    if (t->n_where == t->cap_where) {
        t->cap_where = t->cap_where + t->cap_where / 2;
        t->where = g_renew(uint32_t, t->where, 2 * (gsize)t->cap_where);
    }
    t->where[2 * t->n_where] = line;
    t->where[2 * t->n_where + 1] = col;
    return t->n_where++;
}

/* The two halves fill `t` with the text's tree. The fast one returns FALSE when it declines
 * the text, the careful one with the error. */
gboolean fennel__mscclpp_scan_fast(FennelMscclppTree *t, const char *data, gsize length);
gboolean fennel__mscclpp_scan_careful(FennelMscclppTree *t, const char *file, const char *data,
                                      gsize length, GError **error);

typedef const FennelMscclppNode JNode;

typedef struct {
    const char *file;
    const FennelMscclppNode *nodes;
    const uint32_t *where;
    const char *text;
    FennelMscclppPlan *p;
    GArray *tbs, *ops, *operands, *chan_refs, *channels, *groups, *group_ranks, *sems;
    /* Per thread block of the GPU being read: its channels by type (global ids; for the
     * legacy schema by buffer pair too) and its remote buffers by channel type. */
    GArray *tb_chans[3 * 9]; /* uint32_t, index type * 9 + key */
    GArray *tb_bufs[2];      /* uint32_t pairs: rank, buffer */
    GArray *remote;          /* the GPU's remote_buffers: uint32_t pairs rank, buffer */
    int32_t *counts;         /* every GPU's chunks of i, o, s, read before their thread blocks */
    uint32_t gpu;
    uint32_t gpu_channels;       /* the GPU's first channel */
    uint32_t tb_index, op_index; /* for messages */
    GError **error;
    /* Set by the first failure: an optional member of the wrong type fails without its
     * caller noticing at once, and the parse must not go on to succeed or fail again. */
    gboolean failed;
} FennelMscclppReader;

/* Element i of an array or member i of an object. */
static inline JNode *fennel__mscclpp_at(const FennelMscclppReader *r, JNode *a, guint i)
{
    return &r->nodes[a->v.c.first + i];
}

/* Where an object starts (0 and 0 when unknown). */
static inline uint32_t fennel__mscclpp_line(const FennelMscclppReader *r, JNode *o)
{
    return o->type == FENNEL_MSCCLPP_JOBJECT ? r->where[2 * o->v.c.at] : 0;
}

static inline uint32_t fennel__mscclpp_col(const FennelMscclppReader *r, JNode *o)
{
    return o->type == FENNEL_MSCCLPP_JOBJECT ? r->where[2 * o->v.c.at + 1] : 0;
}

/* The member `key` of an object, NULL if it has none. */
static inline JNode *fennel__mscclpp_get(const FennelMscclppReader *r, JNode *o,
                                         FennelMscclppKey key)
{
    JNode *k = r->nodes + o->v.c.first;
    for (uint32_t i = 0; i < o->n; i++)
        if (k[i].key == key)
            return &k[i];
    return NULL;
}

static inline gboolean fennel__mscclpp_has(const FennelMscclppReader *r, JNode *o,
                                           FennelMscclppKey key)
{
    return fennel__mscclpp_get(r, o, key) != NULL;
}

/* Fails at object o: "FILE:LINE:COL: gpu G tb T op K: ..." with as much of the context as
 * is being read. Returns FALSE. */
gboolean fennel__mscclpp_fail(FennelMscclppReader *r, JNode *o, const char *format, ...)
    G_GNUC_PRINTF(3, 4);

/* Members by type. A missing member fails unless `optional` (then *found is FALSE). */
gboolean fennel__mscclpp_int(FennelMscclppReader *r, JNode *o, FennelMscclppKey key, int64_t min,
                             int64_t max, gboolean optional, int64_t *value);
JNode *fennel__mscclpp_array(FennelMscclppReader *r, JNode *o, FennelMscclppKey key,
                             gboolean optional);
JNode *fennel__mscclpp_object(FennelMscclppReader *r, JNode *o, FennelMscclppKey key,
                              gboolean optional);
const char *fennel__mscclpp_string(FennelMscclppReader *r, JNode *o, FennelMscclppKey key,
                                   gboolean optional);
/* Element i of an array, which must be an object (or a whole number). */
JNode *fennel__mscclpp_element(FennelMscclppReader *r, JNode *parent, JNode *a, guint i,
                               const char *what);
gboolean fennel__mscclpp_int_element(FennelMscclppReader *r, JNode *parent, JNode *a, guint i,
                                     int64_t min, int64_t max, const char *what, int64_t *value);
/* "i", "o", "s" -> 0, 1, 2. */
gboolean fennel__mscclpp_buffer(FennelMscclppReader *r, JNode *o, FennelMscclppKey key,
                                uint8_t *buf);

/* The two halves of fennel_mscclpp_parse: the fast path, which returns NULL without an
 * error when it declines the text or finds anything wrong in it, and the careful reader,
 * which reads any text and reports every error. data[length] must be a NUL. */
FennelMscclppPlan *fennel__mscclpp_fast_read(const char *file, const char *data, gsize length);
FennelMscclppPlan *fennel__mscclpp_careful_read(const char *file, const char *data, gsize length,
                                                GError **error);

/* An operation being read: its operands and channels, gathered before it is checked. */
typedef struct {
    FennelMscclppOp op;
    GArray *srcs, *dsts; /* FennelMscclppOperand */
    GArray *refs;        /* uint32_t */
} FennelMscclppOpBuild;

/* What the operation's kind needs of its operands and channels (check.c); fails at o. */
gboolean fennel__mscclpp_check_op(FennelMscclppReader *r, JNode *o, const FennelMscclppOpBuild *b);

/* Every channel's signals and waits balance (check.c). */
gboolean fennel__mscclpp_check_sync(const FennelMscclppPlan *p, GError **error);

/* The thread block's operations (ops.c): every op of `ops` appended to r->ops. */
gboolean fennel__mscclpp_ops(FennelMscclppReader *r, JNode *tb, JNode *ops);

#endif
