/* The protobuf wire format (protobuf.h). */
#include "protobuf.h"

#include <string.h>

gboolean fennel__pb_varint_long(FennelPbReader *r, uint64_t *value)
{
    /* Ten bytes or more left (all but a file's last fields): no bound to test per byte. */
    if (r->end - r->p >= 10) {
        const uint8_t *p = r->p;
        uint64_t v = 0;
        for (int i = 0; i < 10; i++) {
            uint8_t b = p[i];
            v |= (uint64_t)(b & 0x7f) << (7 * i);
            if (b < 0x80) {
                r->p = p + i + 1;
                *value = v;
                return i < 9 || b <= 1;
            }
        }
        r->p = p + 10;
        return FALSE;
    }
    uint64_t v = 0;
    for (int shift = 0; shift < 70; shift += 7) {
        if (r->p >= r->end)
            return FALSE;
        uint8_t b = *r->p++;
        if (shift == 63 && b > 1)
            return FALSE;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *value = v;
            return TRUE;
        }
    }
    return FALSE;
}

gboolean fennel_pb_skip(FennelPbReader *r, uint32_t wire)
{
    uint64_t v;
    FennelPbReader inner;
    switch (wire) {
    case FENNEL_PB_VARINT:
        return fennel_pb_varint(r, &v);
    case FENNEL_PB_BYTES:
        return fennel_pb_bytes(r, &inner);
    case FENNEL_PB_FIXED64:
    case FENNEL_PB_FIXED32: {
        gsize n = wire == FENNEL_PB_FIXED64 ? 8 : 4;
        if ((gsize)(r->end - r->p) < n)
            return FALSE;
        r->p += n;
        return TRUE;
    }
    default:
        return FALSE;
    }
}

void fennel_pb_put_varint(GString *out, uint64_t value)
{
    do {
        uint8_t b = value & 0x7f;
        value >>= 7;
        g_string_append_c(out, (char)(b | (value ? 0x80 : 0)));
    } while (value);
}

void fennel_pb_put_key(GString *out, uint32_t field, uint32_t wire)
{
    fennel_pb_put_varint(out, (uint64_t)field << 3 | wire);
}

void fennel_pb_put_uint(GString *out, uint32_t field, uint64_t value)
{
    if (value == 0)
        return;
    fennel_pb_put_key(out, field, FENNEL_PB_VARINT);
    fennel_pb_put_varint(out, value);
}

void fennel_pb_put_bytes(GString *out, uint32_t field, const void *data, gsize length)
{
    fennel_pb_put_key(out, field, FENNEL_PB_BYTES);
    fennel_pb_put_varint(out, length);
    g_string_append_len(out, data, (gssize)length);
}

void fennel_pb_put_string(GString *out, uint32_t field, const char *s)
{
    fennel_pb_put_bytes(out, field, s, strlen(s));
}
