/* The protobuf wire format, as far as fennel's Chakra reader and writer need it
 * (docs/FORMATS.md): varints, length-delimited fields, and fixed 32- and 64-bit values to
 * skip. Written from the encoding's definition; no schema compiler is involved. */
#ifndef FENNEL_PROTOBUF_H
#define FENNEL_PROTOBUF_H

#include <glib.h>
#include <stdint.h>

enum {
    FENNEL_PB_VARINT = 0,
    FENNEL_PB_FIXED64 = 1,
    FENNEL_PB_BYTES = 2, /* length-delimited: strings, messages, packed repeated fields */
    FENNEL_PB_FIXED32 = 5,
};

/* A message being read: its bytes and a cursor. */
typedef struct {
    const uint8_t *p, *end;
} FennelPbReader;

/* Reads a varint (at most ten bytes); FALSE if it runs past the end or is too long. The
 * readers are inline: a Chakra trace is mostly one-byte keys and small varints. */
gboolean fennel__pb_varint_long(FennelPbReader *r, uint64_t *value);
static inline gboolean fennel_pb_varint(FennelPbReader *r, uint64_t *value)
{
    if (G_LIKELY(r->p < r->end && *r->p < 0x80)) {
        *value = *r->p++;
        return TRUE;
    }
    /* Two bytes (a node's id, a rank), the next most common. */
    if (G_LIKELY(r->end - r->p >= 2 && r->p[1] < 0x80)) {
        *value = (r->p[0] & 0x7fu) | (uint64_t)r->p[1] << 7;
        r->p += 2;
        return TRUE;
    }
    /* Three bytes: node ids and dependencies of traces of 16 384 nodes and more. */
    if (G_LIKELY(r->end - r->p >= 3 && r->p[2] < 0x80)) {
        *value = (r->p[0] & 0x7fu) | (uint64_t)(r->p[1] & 0x7fu) << 7 | (uint64_t)r->p[2] << 14;
        r->p += 3;
        return TRUE;
    }
    return fennel__pb_varint_long(r, value);
}

/* Reads the next field's key; FALSE at the end of the message. *ok is FALSE when the key
 * is malformed (a bad varint, field 0, an unknown wire type). */
static inline gboolean fennel_pb_next(FennelPbReader *r, uint32_t *field, uint32_t *wire,
                                      gboolean *ok)
{
    *ok = TRUE;
    if (r->p >= r->end)
        return FALSE;
    uint64_t key;
    if (!fennel_pb_varint(r, &key) || (key >> 3) == 0 || (key >> 3) > UINT32_MAX) {
        *ok = FALSE;
        return FALSE;
    }
    *field = (uint32_t)(key >> 3);
    *wire = (uint32_t)(key & 7);
    /* One test for the four wire types, bits 0, 1, 2 and 5 of 0x27. */
    G_STATIC_ASSERT(FENNEL_PB_VARINT == 0 && FENNEL_PB_FIXED64 == 1 && FENNEL_PB_BYTES == 2 &&
                    FENNEL_PB_FIXED32 == 5);
    if (!((0x27u >> *wire) & 1u)) {
        *ok = FALSE;
        return FALSE;
    }
    return TRUE;
}

/* Reads a length-delimited field's contents into *inner; FALSE if it overruns. */
static inline gboolean fennel_pb_bytes(FennelPbReader *r, FennelPbReader *inner)
{
    uint64_t n;
    if (!fennel_pb_varint(r, &n) || n > (uint64_t)(r->end - r->p))
        return FALSE;
    inner->p = r->p;
    inner->end = r->p + n;
    r->p += n;
    return TRUE;
}

/* Skips a field of the given wire type; FALSE if it overruns. */
gboolean fennel_pb_skip(FennelPbReader *r, uint32_t wire);

/* Writers append to out. */
void fennel_pb_put_varint(GString *out, uint64_t value);
void fennel_pb_put_key(GString *out, uint32_t field, uint32_t wire);
void fennel_pb_put_uint(GString *out, uint32_t field, uint64_t value); /* omitted when 0 */
void fennel_pb_put_bytes(GString *out, uint32_t field, const void *data, gsize length);
void fennel_pb_put_string(GString *out, uint32_t field, const char *s);

#endif
