/* Shared by the files of the MSCCL++ reader: the JSON document with the position of every
 * object, typed member access that fails with FILE:LINE:COL, and the plan under
 * construction. */
#ifndef FENNEL_MSCCLPP_PRIVATE_H
#define FENNEL_MSCCLPP_PRIVATE_H

#include "mscclpp.h"

#include <json-glib/json-glib.h>

typedef struct {
    const char *file;
    GHashTable *where; /* JsonObject * -> index into starts */
    GArray *starts;    /* uint32_t pairs: line, col of each object's '{', in closing order */
    guint closed;      /* objects closed so far while parsing */
    FennelMscclppPlan *p;
    GArray *tbs, *ops, *operands, *chan_refs, *channels, *groups, *group_ranks, *sems;
    /* Per thread block of the GPU being read: its channels by type (global ids; for the
     * legacy schema by buffer pair too) and its remote buffers by channel type. */
    GArray *tb_chans[3 * 9]; /* uint32_t, index type * 9 + key */
    GArray *tb_bufs[2];      /* uint32_t pairs: rank, buffer */
    GArray *remote;          /* the GPU's remote_buffers: uint32_t pairs rank, buffer */
    int32_t *counts;         /* every GPU's chunks of i, o, s, read before their thread blocks */
    uint32_t gpu;
    uint32_t tb_index, op_index; /* for messages */
    GError **error;
    /* Set by the first failure: an optional member of the wrong type fails without its
     * caller noticing at once, and the parse must not go on to succeed or fail again. */
    gboolean failed;
} FennelMscclppReader;

/* Where an object starts (line 0 when unknown). */
void fennel__mscclpp_where(const FennelMscclppReader *r, JsonObject *o, uint32_t *line,
                           uint32_t *col);

/* Fails at object o: "FILE:LINE:COL: gpu G tb T op K: ..." with as much of the context as
 * is being read. Returns FALSE. */
gboolean fennel__mscclpp_fail(FennelMscclppReader *r, JsonObject *o, const char *format, ...)
    G_GNUC_PRINTF(3, 4);

/* Members by type. A missing member fails unless `optional` (then *found is FALSE). */
gboolean fennel__mscclpp_int(FennelMscclppReader *r, JsonObject *o, const char *key, int64_t min,
                             int64_t max, gboolean optional, int64_t *value);
JsonArray *fennel__mscclpp_array(FennelMscclppReader *r, JsonObject *o, const char *key,
                                 gboolean optional);
JsonObject *fennel__mscclpp_object(FennelMscclppReader *r, JsonObject *o, const char *key,
                                   gboolean optional);
const char *fennel__mscclpp_string(FennelMscclppReader *r, JsonObject *o, const char *key,
                                   gboolean optional);
/* Element i of an array, which must be an object (or a whole number). */
JsonObject *fennel__mscclpp_element(FennelMscclppReader *r, JsonObject *parent, JsonArray *a,
                                    guint i, const char *what);
gboolean fennel__mscclpp_int_element(FennelMscclppReader *r, JsonObject *parent, JsonArray *a,
                                     guint i, int64_t min, int64_t max, const char *what,
                                     int64_t *value);
/* "i", "o", "s" -> 0, 1, 2. */
gboolean fennel__mscclpp_buffer(FennelMscclppReader *r, JsonObject *o, const char *key,
                                uint8_t *buf);

/* Parses the text; the root object, or NULL with the error. */
JsonObject *fennel__mscclpp_load(FennelMscclppReader *r, JsonParser *parser, const char *data,
                                 gsize length);

/* Every channel's signals and waits balance (ops.c). */
gboolean fennel__mscclpp_check_sync(const FennelMscclppPlan *p, GError **error);

/* The GPU and thread block of operation `op`. */
void fennel__mscclpp_locate(const FennelMscclppPlan *p, uint32_t op, uint32_t *gpu, uint32_t *tb);

/* The thread block's operations (ops.c): every op of `ops` appended to r->ops. */
gboolean fennel__mscclpp_ops(FennelMscclppReader *r, JsonObject *tb, JsonArray *ops);

#endif
