/* Reading Chakra execution traces (chakra.h): the files of a trace, gzip, the framing and
 * the messages GlobalMetadata and Node, by the field numbers of Chakra's et_def.proto
 * (GlobalMetadata: version 1, attr 2; Node: id 1, name 2, type 3, ctrl_deps 4, data_deps
 * 5, duration_micros 7, attr 10; AttributeProto: name 1, then one value field). */
#include "chakra.h"

#include "errors.h"
#include "input.h"
#include "protobuf.h"

#include <gio/gio.h>
#include <string.h>

static const char *const collective_names[FENNEL_CHAKRA_N_COLLECTIVES] = {
    "all_reduce", "reduce",         "all_gather",           "gather",  "scatter", "broadcast",
    "all_to_all", "reduce_scatter", "reduce_scatter_block", "barrier",
};

const char *fennel_chakra_collective_name(int64_t kind)
{
    return kind >= 0 && kind < FENNEL_CHAKRA_N_COLLECTIVES ? collective_names[kind] : NULL;
}

static gboolean is_gzip(const char *data, gsize length)
{
    return length >= 2 && (uint8_t)data[0] == 0x1f && (uint8_t)data[1] == 0x8b;
}

/* Whether the message is a GlobalMetadata: fields 1 (its version) and 2 (attributes), both
 * length-delimited, at least one of them: ASTRA-sim's converters write the version, Chakra's
 * PyTorch feeder and its newer converters only attributes (a "schema" attribute). An empty
 * message would do for the wire format, but then any run of zero bytes would be a trace of
 * empty nodes, each held in memory a hundred times larger than its one byte. */
static gboolean is_metadata(FennelPbReader m)
{
    uint32_t field, wire;
    gboolean ok, any = FALSE;
    while (fennel_pb_next(&m, &field, &wire, &ok)) {
        if ((field != 1 && field != 2) || wire != FENNEL_PB_BYTES || !fennel_pb_skip(&m, wire))
            return FALSE;
        any = TRUE;
    }
    return ok && any;
}

gboolean fennel_chakra_detect(const char *data, gsize length)
{
    if (is_gzip(data, length))
        return TRUE;
    FennelPbReader r = {(const uint8_t *)data, (const uint8_t *)data + length}, m;
    return length > 0 && fennel_pb_bytes(&r, &m) && is_metadata(m);
}

/* Inflates a gzip stream with GIO's zlib converter. */
static gboolean gunzip(const char *file, const char *data, gsize length, char **out,
                       gsize *out_length, const FennelLimits *limits, GError **error)
{
    GConverter *z = G_CONVERTER(g_zlib_decompressor_new(G_ZLIB_COMPRESSOR_FORMAT_GZIP));
    GByteArray *buf = g_byte_array_new();
    gsize in_at = 0;
    guint8 chunk[65536];
    GError *local = NULL;
    for (;;) {
        gsize read = 0, written = 0;
        GConverterResult r =
            g_converter_convert(z, data + in_at, length - in_at, chunk, sizeof chunk,
                                G_CONVERTER_INPUT_AT_END, &read, &written, &local);
        if (r == G_CONVERTER_ERROR) {
            fennel_error_at(error, file, 0, 0, "gzip: %s", local->message);
            g_error_free(local);
            g_byte_array_unref(buf);
            g_object_unref(z);
            return FALSE;
        }
        in_at += read;
        /* The array doubles as it grows: the larger copy (a power of two) must fit beside
         * the smaller and the compressed file, or the reader is refused. */
        gsize after = buf->len + written;
        if (after >= 65536 && g_bit_storage(after) != g_bit_storage(buf->len)) {
            uint64_t larger = (uint64_t)1 << g_bit_storage(after);
            char *what =
                g_strdup_printf("%s inflated (%" G_GSIZE_FORMAT " bytes so far)", file, after);
            gboolean fits = fennel_check_memory(limits, larger + larger / 2 + length, what, error);
            g_free(what);
            if (!fits) {
                g_byte_array_unref(buf);
                g_object_unref(z);
                return FALSE;
            }
        }
        g_byte_array_append(buf, chunk, (guint)written);
        if (buf->len > FENNEL_INPUT_MAX) {
            fennel_error_at(error, file, 0, 0, "gzip: more than %" G_GSIZE_FORMAT " bytes inflated",
                            (gsize)FENNEL_INPUT_MAX);
            g_byte_array_unref(buf);
            g_object_unref(z);
            return FALSE;
        }
        if (r == G_CONVERTER_FINISHED)
            break;
    }
    g_object_unref(z);
    *out_length = buf->len;
    g_byte_array_append(buf, (const guint8 *)"", 1);
    *out = (char *)g_byte_array_free(buf, FALSE);
    return TRUE;
}

/* A varint value field of an AttributeProto: int32/int64/uint32/uint64/bool as is;
 * sint32 (15), sint64 (17) zigzag. */
static inline void varint_value(uint32_t field, uint64_t v, int64_t *value, gboolean *integer)
{
    if (field == 15 || field == 17)
        *value = (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
    else if (field == 7)
        *value = (int32_t)(uint32_t)v;
    else
        *value = (int64_t)v;
    *integer = field == 7 || field == 9 || field == 11 || field == 13 || field == 15 ||
               field == 17 || field == 27;
}

/* The value of an AttributeProto as an integer, if it is one (int, uint, sint, bool). */
static gboolean attribute(FennelPbReader m, const char **name, gsize *name_length, int64_t *value,
                          gboolean *integer, gboolean *ok)
{
    uint32_t field, wire;
    *name = NULL;
    *integer = FALSE;
    /* What the traces hold: a short name (field 1), then one varint value whose key takes
     * one or two bytes, read straight; anything else by the loop below, which reads it
     * alike. */
    const uint8_t *p = m.p;
    if (m.end - p >= 2 && p[0] == 0x0a && p[1] < 0x80 && p[1] + 3 <= m.end - p) {
        const uint8_t *q = p + 2 + p[1];
        uint32_t key = q[0] < 0x80                    ? q[0]
                       : q + 1 < m.end && q[1] < 0x80 ? (q[0] & 0x7fu) | (uint32_t)q[1] << 7
                                                      : 0;
        FennelPbReader v = {q + (q[0] < 0x80 ? 1 : 2), m.end};
        uint64_t raw;
        if ((key & 7) == FENNEL_PB_VARINT && (key >> 3) != 0 && fennel_pb_varint(&v, &raw) &&
            v.p == m.end) {
            *name = (const char *)p + 2;
            *name_length = p[1];
            varint_value(key >> 3, raw, value, integer);
            return *ok = TRUE;
        }
    }
    while (fennel_pb_next(&m, &field, &wire, ok)) {
        if (field == 1 && wire == FENNEL_PB_BYTES) {
            FennelPbReader s;
            if (!fennel_pb_bytes(&m, &s))
                return *ok = FALSE;
            *name = (const char *)s.p;
            *name_length = (gsize)(s.end - s.p);
            continue;
        }
        if (wire == FENNEL_PB_VARINT) {
            uint64_t v;
            if (!fennel_pb_varint(&m, &v))
                return *ok = FALSE;
            varint_value(field, v, value, integer);
            continue;
        }
        if (!fennel_pb_skip(&m, wire))
            return *ok = FALSE;
    }
    return *ok;
}

/* The string value (string_val, field 29) of an attribute. */
static gboolean string_value(FennelPbReader m, FennelPbReader *text)
{
    uint32_t field, wire;
    gboolean ok, found = FALSE;
    while (fennel_pb_next(&m, &field, &wire, &ok)) {
        if (field == 29 && wire == FENNEL_PB_BYTES) {
            if (!fennel_pb_bytes(&m, text))
                return FALSE;
            found = TRUE;
        } else if (!fennel_pb_skip(&m, wire)) {
            return FALSE;
        }
    }
    return ok && found;
}

/* Whether an attribute's name (length 0 when it has none) is the literal `key`: by its
 * length first, then a compare of constant size (a strlen of the key per test was a
 * tenth of reading a node). */
#define named(name, length, key)                                                                   \
    ((length) == sizeof(key) - 1 && memcmp((name), (key), sizeof(key) - 1) == 0)

typedef struct {
    const char *file;
    const uint8_t *base;
    /* The nodes and dependencies read so far, in arrays that double (GArray's append was
     * a call and a copy of its own per node and per dependency). */
    FennelChakraHeld *nodes;
    uint64_t *deps;
    FennelChakraNode *extras;
    guint n_nodes, n_deps, n_extras;
    gsize nodes_room, deps_room, extras_room;
    int64_t chunk_total; /* of the messages of chunks held, or -1 */
    GStringChunk *names;
    const FennelLimits *limits;
} RankReader;

static gboolean node_error(RankReader *rr, const uint8_t *at, int64_t id, GError **error,
                           const char *what)
{
    if (id >= 0)
        fennel_error_at(error, rr->file, 0, 0,
                        "byte %" G_GSIZE_FORMAT " (node %" G_GINT64_FORMAT "): %s",
                        (gsize)(at - rr->base), id, what);
    else
        fennel_error_at(error, rr->file, 0, 0, "byte %" G_GSIZE_FORMAT ": %s",
                        (gsize)(at - rr->base), what);
    return FALSE;
}

static inline void push_dep(RankReader *rr, uint64_t v)
{
    if (G_UNLIKELY(rr->n_deps == rr->deps_room)) {
        rr->deps_room = MAX(rr->deps_room * 2, 16);
        rr->deps = g_renew(uint64_t, rr->deps, rr->deps_room);
    }
    rr->deps[rr->n_deps++] = v;
}

static inline gboolean narrow(int64_t v)
{
    return v >= -1 && v <= INT32_MAX;
}

/* Keeps a node read: narrow, with the rest in an extra when it has more (chakra.h). */
static inline void hold(RankReader *rr, const FennelChakraNode *n)
{
    gboolean send = n->type == FENNEL_CHAKRA_COMM_SEND;
    int64_t peer = send ? n->comm_dst : n->type == FENNEL_CHAKRA_COMM_RECV ? n->comm_src : -1;
    FennelChakraHeld h = {
        .id = n->id,
        .comm_size = n->comm_size,
        .name = n->name,
        .first_dep = n->first_dep,
        .extra = FENNEL_CHAKRA_NO_EXTRA,
        .offset = (uint32_t)n->offset,
        .peer = (int32_t)peer,
        .tag = (int32_t)n->comm_tag,
        .slot = (int16_t)(n->slot < 0 ? -1 : n->slot),
        .type = (uint8_t)n->type,
        .flags = (uint8_t)((n->is_cpu_op ? FENNEL_CHAKRA_CPU_OP : 0) |
                           (n->timed ? FENNEL_CHAKRA_TIMED : 0) |
                           (n->rendezvous ? FENNEL_CHAKRA_RENDEZVOUS : 0) |
                           (n->fennel_task == FENNEL_TASK_PROXY ? FENNEL_CHAKRA_PROXY : 0) |
                           (n->fennel_task == FENNEL_TASK_SLEEP ? FENNEL_CHAKRA_SLEEP : 0)),
    };
    /* A message's chunks (fennel writes them on every send of a collective) in place of
     * its duration, which a message has not, their total once a rank. */
    gboolean chunks_fit = n->chunk_idx == -1 && n->chunk_cnt == -1 && n->chunk_total == -1;
    if (chunks_fit)
        h.duration_ps = n->duration_ps;
    else if (peer != -1 && n->duration_ps == 0 && n->chunk_idx >= 0 && n->chunk_idx <= UINT32_MAX &&
             n->chunk_cnt >= 0 && n->chunk_cnt <= UINT32_MAX && n->chunk_total >= 0 &&
             (rr->chunk_total == -1 || rr->chunk_total == n->chunk_total)) {
        /* (peer is -1 for any node but a message: a message of peer -1 keeps an extra) */
        chunks_fit = TRUE;
        rr->chunk_total = n->chunk_total;
        h.chunk.idx = (uint32_t)n->chunk_idx;
        h.chunk.cnt = (uint32_t)n->chunk_cnt;
        h.flags |= FENNEL_CHAKRA_CHUNKS;
    }
    if (G_UNLIKELY(n->comm_type != -1 || n->num_ops != -1 || n->tensor_size != -1 || !chunks_fit ||
                   *n->pg_name || n->offset > UINT32_MAX || !narrow(peer) || !narrow(n->comm_tag) ||
                   n->slot > INT16_MAX)) {
        if (rr->n_extras == rr->extras_room) {
            rr->extras_room = MAX(rr->extras_room * 2, 16);
            rr->extras = g_renew(FennelChakraNode, rr->extras, rr->extras_room);
        }
        h.extra = rr->n_extras;
        rr->extras[rr->n_extras++] = *n;
        h.flags &= (uint8_t)~FENNEL_CHAKRA_CHUNKS;
    }
    if (G_UNLIKELY(rr->n_nodes == rr->nodes_room)) {
        rr->nodes_room = MAX(rr->nodes_room * 2, 16);
        rr->nodes = g_renew(FennelChakraHeld, rr->nodes, rr->nodes_room);
    }
    rr->nodes[rr->n_nodes++] = h;
}

void fennel_chakra_node(const FennelChakraRank *r, uint32_t i, FennelChakraNode *node)
{
    const FennelChakraHeld *h = &r->nodes[i];
    uint32_t end = i + 1 < r->n_nodes ? r->nodes[i + 1].first_dep : r->n_deps;
    if (h->extra != FENNEL_CHAKRA_NO_EXTRA) {
        *node = r->extras[h->extra];
        return;
    }
    gboolean send = h->type == FENNEL_CHAKRA_COMM_SEND, recv = h->type == FENNEL_CHAKRA_COMM_RECV;
    *node = (FennelChakraNode){
        .id = h->id,
        .type = h->type,
        .first_dep = h->first_dep,
        .n_deps = end - h->first_dep,
        .duration_ps = h->flags & FENNEL_CHAKRA_CHUNKS ? 0 : h->duration_ps,
        .comm_size = h->comm_size,
        .comm_type = -1,
        .comm_src = recv ? h->peer : -1,
        .comm_dst = send ? h->peer : -1,
        .comm_tag = h->tag,
        .is_cpu_op = (h->flags & FENNEL_CHAKRA_CPU_OP) != 0,
        .timed = (h->flags & FENNEL_CHAKRA_TIMED) != 0,
        .slot = h->slot,
        .fennel_task = h->flags & FENNEL_CHAKRA_PROXY   ? FENNEL_TASK_PROXY
                       : h->flags & FENNEL_CHAKRA_SLEEP ? FENNEL_TASK_SLEEP
                                                        : 0,
        .num_ops = -1,
        .tensor_size = -1,
        .rendezvous = (h->flags & FENNEL_CHAKRA_RENDEZVOUS) != 0,
        .chunk_idx = h->flags & FENNEL_CHAKRA_CHUNKS ? (int64_t)h->chunk.idx : -1,
        .chunk_cnt = h->flags & FENNEL_CHAKRA_CHUNKS ? (int64_t)h->chunk.cnt : -1,
        .chunk_total = h->flags & FENNEL_CHAKRA_CHUNKS ? r->chunk_total : -1,
        .offset = h->offset,
        .name = h->name,
        .pg_name = "",
    };
}

/* Takes an integer attribute by its name: a switch on the name's length, then a compare of
 * constant size (a chain of compares was a tenth of reading a node). */
static inline void integer_attribute(FennelChakraNode *n, int64_t *exact, const char *name,
                                     gsize length, int64_t value)
{
    switch (length) {
    case 7:
        if (named(name, length, "num_ops"))
            n->num_ops = value;
        break;
    case 8:
        if (named(name, length, "comm_src"))
            n->comm_src = value;
        else if (named(name, length, "comm_dst"))
            n->comm_dst = value;
        else if (named(name, length, "comm_tag"))
            n->comm_tag = value;
        break;
    case 9:
        if (named(name, length, "comm_size"))
            n->comm_size = value;
        else if (named(name, length, "comm_type"))
            n->comm_type = value;
        else if (named(name, length, "is_cpu_op"))
            n->is_cpu_op = value != 0;
        break;
    case 11:
        if (named(name, length, "fennel_slot"))
            n->slot = value;
        else if (named(name, length, "tensor_size"))
            n->tensor_size = value;
        break;
    case 13:
        if (named(name, length, "msg_chunk_idx"))
            n->chunk_idx = value;
        else if (named(name, length, "msg_chunk_cnt"))
            n->chunk_cnt = value;
        break;
    case 15:
        if (named(name, length, "total_chunk_cnt"))
            n->chunk_total = value;
        break;
    case 17:
        if (named(name, length, "fennel_rendezvous"))
            n->rendezvous = value != 0;
        break;
    case 18:
        if (named(name, length, "fennel_duration_ps"))
            *exact = value;
        break;
    default:
        break;
    }
}

static gboolean read_node(RankReader *rr, const uint8_t *at, FennelPbReader m, GError **error)
{
    FennelChakraNode n = {.comm_size = -1,
                          .comm_type = -1,
                          .comm_src = -1,
                          .comm_dst = -1,
                          .comm_tag = -1,
                          .chunk_idx = -1,
                          .chunk_cnt = -1,
                          .chunk_total = -1,
                          .slot = -1,
                          .num_ops = -1,
                          .tensor_size = -1};
    n.offset = (uint64_t)(at - rr->base);
    n.first_dep = rr->n_deps;
    int64_t micros = 0, exact = -1;
    uint32_t field, wire;
    gboolean ok;
    int64_t id = -1;
    while (fennel_pb_next(&m, &field, &wire, &ok)) {
        uint64_t v;
        FennelPbReader inner;
        if ((field == 1 || field == 3 || field == 7) && wire == FENNEL_PB_VARINT) {
            if (!fennel_pb_varint(&m, &v))
                return node_error(rr, at, id, error, "a malformed varint");
            if (field == 1)
                n.id = v, id = (int64_t)MIN(v, (uint64_t)INT64_MAX);
            else if (field == 3)
                n.type = (uint32_t)MIN(v, 255);
            else
                micros = v > (uint64_t)(INT64_MAX / 1000000) ? -1 : (int64_t)v;
        } else if (field == 2 && wire == FENNEL_PB_BYTES) {
            if (!fennel_pb_bytes(&m, &inner))
                return node_error(rr, at, id, error, "a name that runs past the node");
            /* Names appear in messages, which are one line of UTF-8. Printable ASCII, what
             * the traces hold, is stored as it is; anything else is made valid first. */
            const uint8_t *c = inner.p;
            /* Eight bytes at a time: a byte below 0x20 sets its top bit less 0x20, one of
             * 0x7f and up its top bit or that of itself plus 1 (a borrow or carry into the
             * next byte needs a byte already out of range below it). */
            for (uint64_t w; inner.end - c >= 8; c += 8) {
                memcpy(&w, c, 8);
                if (((w - 0x2020202020202020u) | (w + 0x0101010101010101u) | w) &
                    0x8080808080808080u)
                    break;
            }
            while (c < inner.end && *c >= 0x20 && *c < 0x7f)
                c++;
            if (c == inner.end) {
                n.name = g_string_chunk_insert_len(rr->names, (const char *)inner.p,
                                                   inner.end - inner.p);
                continue;
            }
            char *name = g_utf8_make_valid((const char *)inner.p, inner.end - inner.p);
            for (char *d = name; *d; d++)
                if ((unsigned char)*d < 0x20 || *d == 0x7f)
                    *d = '?';
            n.name = g_string_chunk_insert(rr->names, name);
            g_free(name);
        } else if (field == 5 && (wire == FENNEL_PB_BYTES || wire == FENNEL_PB_VARINT)) {
            /* data_deps: packed (proto3's default) or one per field. */
            if (wire == FENNEL_PB_VARINT) {
                if (!fennel_pb_varint(&m, &v))
                    return node_error(rr, at, id, error, "a malformed dependency");
                push_dep(rr, v);
            } else {
                if (!fennel_pb_bytes(&m, &inner))
                    return node_error(rr, at, id, error, "dependencies that run past the node");
                while (inner.p < inner.end) {
                    if (!fennel_pb_varint(&inner, &v))
                        return node_error(rr, at, id, error, "a malformed dependency");
                    push_dep(rr, v);
                }
            }
        } else if (field == 10 && wire == FENNEL_PB_BYTES) {
            const char *name;
            gsize length = 0;
            int64_t value = 0;
            gboolean integer, good;
            if (!fennel_pb_bytes(&m, &inner))
                return node_error(rr, at, id, error, "a malformed attribute");
            /* What the traces hold, read here: a short name (field 1) and one varint value
             * whose key takes one or two bytes; anything else, and the names of the string
             * attributes, by attribute() below. */
            const uint8_t *p = inner.p;
            /* fennel_task "proxy" or "sleep" exactly as fennel writes it (name, then
             * string_val: key 234 in two bytes, length 5), which attribute() and
             * string_value() below read alike in 280 instructions. */
            if (inner.end - p == 21 && memcmp(p,
                                              "\x0a\x0b"
                                              "fennel_task\xea\x01\x05",
                                              16) == 0) {
                if (memcmp(p + 16, "proxy", 5) == 0) {
                    n.fennel_task = FENNEL_TASK_PROXY;
                    continue;
                }
                if (memcmp(p + 16, "sleep", 5) == 0) {
                    n.fennel_task = FENNEL_TASK_SLEEP;
                    continue;
                }
            }
            if (G_LIKELY(inner.end - p >= 4 && p[0] == 0x0a && p[1] + 3 <= inner.end - p)) {
                const uint8_t *q = p + 2 + p[1];
                uint32_t key = q[0] < 0x80 ? q[0]
                               : q + 1 < inner.end && q[1] < 0x80
                                   ? (q[0] & 0x7fu) | (uint32_t)q[1] << 7
                                   : 0;
                FennelPbReader val = {q + (q[0] < 0x80 ? 1 : 2), inner.end};
                uint64_t raw;
                gsize name_length = p[1];
                if ((key & 7) == FENNEL_PB_VARINT && (key >> 3) != 0 &&
                    !named(p + 2, name_length, "pg_name") &&
                    !named(p + 2, name_length, "fennel_task") && val.p < val.end &&
                    fennel_pb_varint(&val, &raw) && val.p == inner.end) {
                    varint_value(key >> 3, raw, &value, &integer);
                    if (integer)
                        integer_attribute(&n, &exact, (const char *)p + 2, name_length, value);
                    continue;
                }
            }
            if (!attribute(inner, &name, &length, &value, &integer, &good))
                return node_error(rr, at, id, error, "a malformed attribute");
            if (named(name, length, "pg_name")) {
                FennelPbReader text;
                if (!string_value(inner, &text))
                    return node_error(rr, at, id, error, "a pg_name that is not a string");
                char *pg = g_utf8_make_valid((const char *)text.p, text.end - text.p);
                for (char *d = pg; *d; d++)
                    if ((unsigned char)*d < 0x20 || *d == 0x7f)
                        *d = '?';
                n.pg_name = g_string_chunk_insert(rr->names, pg);
                g_free(pg);
                continue;
            }
            if (named(name, length, "fennel_task")) {
                FennelPbReader text;
                if (!string_value(inner, &text))
                    return node_error(rr, at, id, error, "a fennel_task that is not a string");
                gsize len = (gsize)(text.end - text.p);
                if (len == 5 && memcmp(text.p, "proxy", 5) == 0)
                    n.fennel_task = FENNEL_TASK_PROXY;
                else if (len == 5 && memcmp(text.p, "sleep", 5) == 0)
                    n.fennel_task = FENNEL_TASK_SLEEP;
                else
                    return node_error(rr, at, id, error,
                                      "a fennel_task other than \"proxy\" and \"sleep\"");
                continue;
            }
            if (integer)
                integer_attribute(&n, &exact, name, length, value);
        } else if (!fennel_pb_skip(&m, wire)) {
            return node_error(rr, at, id, error, "a field that runs past the node");
        }
    }
    if (!ok)
        return node_error(rr, at, id, error, "a malformed field key");
    n.n_deps = rr->n_deps - n.first_dep;
    /* A duration beyond int64 picoseconds stays saturated, so that the engine reports the
     * overflow at this task rather than running it for the largest whole microsecond. */
    n.duration_ps = exact >= 0 ? exact : micros < 0 ? INT64_MAX : micros * 1000000;
    n.timed = n.duration_ps != 0;
    /* No name: a constant "" (interning one per node was a hash look-up a node). */
    if (n.name == NULL)
        n.name = "";
    if (n.pg_name == NULL)
        n.pg_name = "";
    hold(rr, &n);
    return TRUE;
}

/* The attributes `collective` (a string) and `root` (an integer) of a GlobalMetadata, as
 * fennel writes them. */
static void metadata(FennelPbReader m, char **collective, int64_t *root, int64_t *ranks,
                     int64_t *processes)
{
    uint32_t field, wire;
    gboolean ok;
    FennelPbReader a, v;
    while (fennel_pb_next(&m, &field, &wire, &ok)) {
        if (field != 2 || wire != FENNEL_PB_BYTES) {
            if (!fennel_pb_skip(&m, wire))
                return;
            continue;
        }
        if (!fennel_pb_bytes(&m, &a))
            return;
        const char *name;
        gsize length = 0;
        int64_t value;
        gboolean integer, good;
        if (attribute(a, &name, &length, &value, &integer, &good) && integer &&
            named(name, length, "root"))
            *root = value;
        if (integer && named(name, length, "fennel_ranks"))
            *ranks = value;
        if (integer && named(name, length, "fennel_processes"))
            *processes = value;
        if (!named(name, length, "collective"))
            continue;
        while (fennel_pb_next(&a, &field, &wire, &ok)) {
            if (wire == FENNEL_PB_BYTES && field == 29) {
                if (!fennel_pb_bytes(&a, &v))
                    break;
                g_clear_pointer(collective, g_free);
                /* A collective's name (allreduce, reduce-scatter, ...: a letter, then
                 * letters, digits and dashes), or nothing. */
                gboolean word = v.p < v.end && g_ascii_isalpha(*v.p);
                for (const uint8_t *c = v.p; c < v.end; c++)
                    word = word && (g_ascii_isalnum(*c) || *c == '-');
                if (word)
                    *collective = g_strndup((const char *)v.p, (gsize)(v.end - v.p));
            } else if (!fennel_pb_skip(&a, wire)) {
                break;
            }
        }
    }
}

/* Whether what the reader holds fits the memory when its arrays next double, checked at
 * every power of two of nodes: the file, its nodes and their dependencies. */
static gboolean held_fits(RankReader *rr, gsize length, GError **error)
{
    guint n = rr->n_nodes;
    if (n < 4096 || (n & (n - 1)) != 0)
        return TRUE;
    uint64_t bytes = length + 2 * ((uint64_t)n * sizeof(FennelChakraHeld) +
                                   (uint64_t)rr->n_extras * sizeof(FennelChakraNode) +
                                   (uint64_t)rr->n_deps * sizeof(uint64_t));
    char *what = g_strdup_printf("the %u nodes of %s read so far", n, rr->file);
    gboolean fits = fennel_check_memory(rr->limits, bytes, what, error);
    g_free(what);
    return fits;
}

/* Parses one rank's file (data stays the caller's: a mapped file is read in place). */
static gboolean parse_rank(FennelChakraTrace *t, uint32_t rank, const char *file, const char *data,
                           gsize length, const FennelLimits *limits, GError **error)
{
    char *plain = NULL;
    if (is_gzip(data, length)) {
        if (!gunzip(file, data, length, &plain, &length, limits, error))
            return FALSE;
        data = plain;
    }
    RankReader rr = {.file = file,
                     .base = (const uint8_t *)data,
                     .names = t->names,
                     .limits = limits,
                     .chunk_total = -1};
    /* Room for as many nodes and dependencies as the rank before had (the ranks of a trace
     * are mostly alike): growing them by doubling copied each rank's arrays about ten times,
     * 2 % of the instructions of the 256-rank ring. */
    if (rank > 0) {
        const FennelChakraRank *before = &t->ranks[rank - 1];
        rr.nodes_room = before->hint_nodes;
        rr.deps_room = before->hint_deps;
        rr.nodes = g_new(FennelChakraHeld, MAX(rr.nodes_room, 1));
        rr.deps = g_new(uint64_t, MAX(rr.deps_room, 1));
    }
    FennelPbReader r = {(const uint8_t *)data, (const uint8_t *)data + length}, m;
    gboolean ok = TRUE;
    const uint8_t *at = r.p;
    if (!fennel_pb_bytes(&r, &m) || !is_metadata(m))
        ok = node_error(&rr, at, -1, error,
                        "not a Chakra trace: it must start with a length and a GlobalMetadata");
    else if (rank == 0)
        metadata(m, &t->collective, &t->root, &t->declared_ranks, &t->declared_processes);
    while (ok && r.p < r.end) {
        at = r.p;
        if (!fennel_pb_bytes(&r, &m))
            ok =
                node_error(&rr, at, -1, error, "a node whose length runs past the end of the file");
        else
            ok = read_node(&rr, at, m, error) && held_fits(&rr, length, error);
    }
    FennelChakraRank *cr = &t->ranks[rank];
    cr->file = g_strdup(file);
    /* Held while the trace is lowered: without the room left for doubling. */
    cr->n_nodes = cr->hint_nodes = rr.n_nodes;
    cr->n_deps = cr->hint_deps = rr.n_deps;
    cr->n_extras = rr.n_extras;
    cr->chunk_total = rr.chunk_total;
    cr->nodes = g_renew(FennelChakraHeld, rr.nodes, rr.n_nodes);
    /* Dependencies below 2^32 (all in any trace of fewer nodes) narrowed in place, in
     * increasing order so that each is read before its bytes are written over. */
    gboolean narrow_deps = TRUE;
    for (guint d = 0; narrow_deps && d < rr.n_deps; d++)
        narrow_deps = rr.deps[d] <= UINT32_MAX;
    if (narrow_deps && rr.n_deps > 0) {
        char *bytes = (char *)rr.deps;
        for (guint d = 0; d < rr.n_deps; d++) {
            uint64_t wide;
            memcpy(&wide, bytes + 8 * (gsize)d, 8);
            uint32_t dep = (uint32_t)wide;
            memcpy(bytes + 4 * (gsize)d, &dep, 4);
        }
        cr->deps32 = g_realloc(bytes, 4 * (gsize)rr.n_deps);
    } else {
        cr->deps = g_renew(uint64_t, rr.deps, rr.n_deps);
    }
    cr->extras = g_renew(FennelChakraNode, rr.extras, rr.n_extras);
    g_free(plain);
    return ok;
}

/* A rank's file is mapped, not copied: the copy was a tenth of the reading, and the
 * pages of a file already read stay the page cache's. */
static gboolean read_rank(FennelChakraTrace *t, uint32_t rank, const char *file,
                          const FennelLimits *limits, GError **error)
{
    gboolean mapped;
    GBytes *text = fennel_map_input(file, &mapped, error);
    if (text == NULL)
        return FALSE;
    gsize length;
    const char *data = g_bytes_get_data(text, &length);
    gboolean ok = parse_rank(t, rank, file, data ? data : "", length, limits, error);
    g_bytes_unref(text);
    return ok;
}

static FennelChakraTrace *new_trace(uint32_t n_ranks)
{
    FennelChakraTrace *t = g_new0(FennelChakraTrace, 1);
    t->n_ranks = n_ranks;
    t->ranks = g_new0(FennelChakraRank, n_ranks);
    t->names = g_string_chunk_new(1 << 16);
    t->root = -1;
    t->declared_ranks = -1;
    t->declared_processes = -1;
    return t;
}

FennelChakraTrace *fennel_chakra_parse(const char *file, const char *data, gsize length,
                                       GError **error)
{
    FennelChakraTrace *t = new_trace(1);
    if (!parse_rank(t, 0, file, length ? data : "", length, NULL, error)) {
        fennel_chakra_free(t);
        return NULL;
    }
    return t;
}

/* The files of the trace `file` belongs to. */
static GPtrArray *trace_files(const char *file)
{
    GPtrArray *files = g_ptr_array_new_with_free_func(g_free);
    gsize n = strlen(file);
    gsize digits_end = n >= 3 && strcmp(file + n - 3, ".et") == 0 ? n - 3 : n;
    gsize digits = digits_end;
    while (digits > 0 && g_ascii_isdigit(file[digits - 1]))
        digits--;
    if (digits == digits_end || digits == 0 || file[digits - 1] != '.' || digits_end == n) {
        g_ptr_array_add(files, g_strdup(file));
        return files;
    }
    char *prefix = g_strndup(file, digits - 1);
    for (uint32_t r = 0;; r++) {
        char *name = g_strdup_printf("%s.%u.et", prefix, r);
        if (!g_file_test(name, G_FILE_TEST_EXISTS)) {
            g_free(name);
            break;
        }
        g_ptr_array_add(files, name);
    }
    g_free(prefix);
    if (files->len == 0)
        g_ptr_array_add(files, g_strdup(file));
    return files;
}

FennelChakraTrace *fennel_chakra_read_each(const char *file, const FennelLimits *limits,
                                           FennelChakraEach each, void *user, GError **error)
{
    GPtrArray *files = trace_files(file);
    FennelChakraTrace *t = new_trace(files->len);
    gboolean ok = TRUE, stopped = FALSE;
    for (guint r = 0; ok && r < files->len; r++) {
        ok = read_rank(t, r, g_ptr_array_index(files, r), limits, error);
        /* A trace fennel wrote says how many files it has: older files of a larger trace
         * under the same prefix are not part of it. */
        if (ok && r == 0 && t->declared_ranks > 0 && t->declared_ranks < (int64_t)files->len) {
            g_ptr_array_set_size(files, (gint)t->declared_ranks);
            t->n_ranks = files->len;
        }
        if (ok && each && !each(t, r, user)) {
            stopped = TRUE;
            break;
        }
    }
    if (ok && !stopped && t->declared_ranks > (int64_t)t->n_ranks) {
        fennel_error_at(error, t->ranks[0].file, 0, 0,
                        "the trace has %" G_GINT64_FORMAT " ranks (fennel_ranks), but only %u "
                        "files",
                        t->declared_ranks, t->n_ranks);
        ok = FALSE;
    }
    g_ptr_array_unref(files);
    if (!ok) {
        fennel_chakra_free(t);
        return NULL;
    }
    return t;
}

FennelChakraTrace *fennel_chakra_read(const char *file, const FennelLimits *limits, GError **error)
{
    return fennel_chakra_read_each(file, limits, NULL, NULL, error);
}

void fennel_chakra_free(FennelChakraTrace *t)
{
    if (t == NULL)
        return;
    for (uint32_t r = 0; r < t->n_ranks; r++) {
        g_free(t->ranks[r].file);
        g_free(t->ranks[r].nodes);
        g_free(t->ranks[r].deps);
        g_free(t->ranks[r].deps32);
        g_free(t->ranks[r].extras);
    }
    g_free(t->ranks);
    if (t->names) /* the program took them */
        g_string_chunk_free(t->names);
    g_free(t->collective);
    g_free(t);
}
