/* The tree both halves of the MSCCL++ reader build (mscclpp_private.h): its keys, and typed
 * member access that fails at the object with FILE:LINE:COL. */
#include "mscclpp_private.h"

#include "errors.h"

#include <string.h>

G_STATIC_ASSERT(sizeof(FennelMscclppNode) == 16);

const char *const fennel__mscclpp_key_names[FENNEL_MSCCLPP_N_KEYS] = {"",
#define KEY_NAME(k) #k,
                                                                      FENNEL_MSCCLPP_KEYS(KEY_NAME)
#undef KEY_NAME
};

/* Keys by a hash of their length and three of their bytes, in an open-addressed table
 * built once: the fast scanner looks up every key of the file here. */
static FennelMscclppKeyTable key_table;

const FennelMscclppKeyTable *fennel__mscclpp_key_table(void)
{
    static gsize built = 0;
    if (g_once_init_enter(&built)) {
        for (unsigned k = 1; k < FENNEL_MSCCLPP_N_KEYS; k++) {
            const char *name = fennel__mscclpp_key_names[k];
            key_table.length[k] = (uint8_t)strlen(name);
            guint h = fennel__mscclpp_key_slot(name, key_table.length[k]);
            while (key_table.slots[h] != 0)
                h = (h + 1) % FENNEL_MSCCLPP_KEY_SLOTS;
            key_table.slots[h] = (uint8_t)k;
        }
        g_once_init_leave(&built, 1);
    }
    return &key_table;
}

FennelMscclppKey fennel__mscclpp_key(const char *s, gsize length)
{
    const FennelMscclppKeyTable *t = fennel__mscclpp_key_table();
    if (length == 0)
        return FENNEL_MSCCLPP_KEY_OTHER;
    for (guint h = fennel__mscclpp_key_slot(s, length); t->slots[h] != 0;
         h = (h + 1) % FENNEL_MSCCLPP_KEY_SLOTS) {
        uint8_t k = t->slots[h];
        if (t->length[k] == length && memcmp(fennel__mscclpp_key_names[k], s, length) == 0)
            return (FennelMscclppKey)k;
    }
    return FENNEL_MSCCLPP_KEY_OTHER;
}

void fennel__mscclpp_tree_init(FennelMscclppTree *t)
{
    memset(t, 0, sizeof *t);
    /* Never NULL: pointer arithmetic on an empty tree's arrays must stay defined. */
    t->cap_nodes = t->cap_where = 64;
    t->nodes = g_new(FennelMscclppNode, t->cap_nodes);
    t->where = g_new(uint32_t, 2 * t->cap_where);
    t->text = g_string_new(NULL);
}

void fennel__mscclpp_tree_clear(FennelMscclppTree *t)
{
    g_free(t->nodes);
    g_free(t->where);
    g_string_free(t->text, TRUE);
}

gboolean fennel__mscclpp_fail(FennelMscclppReader *r, JNode *o, const char *format, ...)
{
    if (r->failed)
        return FALSE;
    r->failed = TRUE;
    if (r->error == NULL) /* the fast path: the careful reader will say what is wrong */
        return FALSE;
    va_list args;
    va_start(args, format);
    char *raw = g_strdup_vprintf(format, args);
    va_end(args);
    /* Quoted strings may hold what a JSON escape decodes to, a lone surrogate say. */
    char *what = fennel_message_clean(raw);
    g_free(raw);
    GString *s = g_string_new(NULL);
    if (r->gpu != UINT32_MAX)
        g_string_append_printf(s, "gpu %u: ", r->gpu);
    if (r->tb_index != UINT32_MAX) {
        g_string_truncate(s, s->len - 2);
        g_string_append_printf(s, " tb %u: ", r->tb_index);
    }
    if (r->op_index != UINT32_MAX) {
        g_string_truncate(s, s->len - 2);
        g_string_append_printf(s, " op %u: ", r->op_index);
    }
    fennel_error_at(r->error, r->file, fennel__mscclpp_line(r, o), fennel__mscclpp_col(r, o),
                    "%s%s", s->str, what);
    g_string_free(s, TRUE);
    g_free(what);
    return FALSE;
}

static JNode *member(FennelMscclppReader *r, JNode *o, FennelMscclppKey key, gboolean optional,
                     FennelMscclppJType type, const char *what)
{
    JNode *n = fennel__mscclpp_get(r, o, key);
    if (n == NULL) {
        if (!optional)
            fennel__mscclpp_fail(r, o, "no \"%s\"", fennel__mscclpp_key_names[key]);
        return NULL;
    }
    if (n->type != type) {
        fennel__mscclpp_fail(r, o, "\"%s\": expected %s", fennel__mscclpp_key_names[key], what);
        return NULL;
    }
    return n;
}

static gboolean whole(JNode *n, int64_t min, int64_t max, int64_t *value)
{
    if (n->type != FENNEL_MSCCLPP_JINT)
        return FALSE;
    *value = n->v.i;
    return *value >= min && *value <= max;
}

gboolean fennel__mscclpp_int(FennelMscclppReader *r, JNode *o, FennelMscclppKey key, int64_t min,
                             int64_t max, gboolean optional, int64_t *value)
{
    JNode *n = fennel__mscclpp_get(r, o, key);
    if (n == NULL) {
        if (optional)
            return TRUE;
        return fennel__mscclpp_fail(r, o, "no \"%s\"", fennel__mscclpp_key_names[key]);
    }
    if (!whole(n, min, max, value))
        return fennel__mscclpp_fail(
            r, o, "\"%s\": expected a whole number from %" G_GINT64_FORMAT " to %" G_GINT64_FORMAT,
            fennel__mscclpp_key_names[key], min, max);
    return TRUE;
}

JNode *fennel__mscclpp_array(FennelMscclppReader *r, JNode *o, FennelMscclppKey key,
                             gboolean optional)
{
    return member(r, o, key, optional, FENNEL_MSCCLPP_JARRAY, "an array");
}

JNode *fennel__mscclpp_object(FennelMscclppReader *r, JNode *o, FennelMscclppKey key,
                              gboolean optional)
{
    return member(r, o, key, optional, FENNEL_MSCCLPP_JOBJECT, "an object");
}

const char *fennel__mscclpp_string(FennelMscclppReader *r, JNode *o, FennelMscclppKey key,
                                   gboolean optional)
{
    JNode *n = member(r, o, key, optional, FENNEL_MSCCLPP_JSTRING, "a string");
    return n ? r->text + n->v.str : NULL;
}

JNode *fennel__mscclpp_element(FennelMscclppReader *r, JNode *parent, JNode *a, guint i,
                               const char *what)
{
    JNode *n = fennel__mscclpp_at(r, a, i);
    if (n->type != FENNEL_MSCCLPP_JOBJECT) {
        fennel__mscclpp_fail(r, parent, "%s %u: expected an object", what, i);
        return NULL;
    }
    return n;
}

gboolean fennel__mscclpp_int_element(FennelMscclppReader *r, JNode *parent, JNode *a, guint i,
                                     int64_t min, int64_t max, const char *what, int64_t *value)
{
    if (!whole(fennel__mscclpp_at(r, a, i), min, max, value))
        return fennel__mscclpp_fail(r, parent,
                                    "%s %u: expected a whole number from %" G_GINT64_FORMAT
                                    " to %" G_GINT64_FORMAT,
                                    what, i, min, max);
    return TRUE;
}

gboolean fennel__mscclpp_buffer(FennelMscclppReader *r, JNode *o, FennelMscclppKey key,
                                uint8_t *buf)
{
    const char *s = fennel__mscclpp_string(r, o, key, FALSE);
    if (s == NULL)
        return FALSE;
    const char *p = strchr("ios", s[0]);
    if (s[0] == '\0' || s[1] != '\0' || p == NULL)
        return fennel__mscclpp_fail(r, o, "\"%s\": \"%s\" is no buffer (i, o or s)",
                                    fennel__mscclpp_key_names[key], s);
    *buf = (uint8_t)(p - "ios");
    return TRUE;
}
