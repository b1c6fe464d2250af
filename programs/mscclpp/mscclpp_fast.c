/* The fast half of the MSCCL++ reader: one pass over the plain JSON that MSCCL++'s Python
 * writes (json.dumps, with or without indent) into the reader's tree, with every object's
 * position counted on the way. It takes only what it knows for sure means what json-glib
 * reads: ASCII strings without escapes, whole numbers of at most 18 digits (longer ones
 * only where the reader never looks), true, false, null, spaces and newlines between
 * tokens, distinct non-empty keys, nesting at most 32 deep. It declines everything else (and every
 * syntax error) to the careful half (mscclpp_json.c), which reads the text again. data[length] must
 * be a NUL: the scanner stops there without a bound check, since a NUL is nothing it takes. */
#include "mscclpp_private.h"

#include <string.h>

G_STATIC_ASSERT(FENNEL_MSCCLPP_N_KEYS <= 64); /* an object's keys seen, as bits */

#define MAX_DEPTH 32

typedef struct {
    uint32_t node;   /* the container, in pending */
    uint32_t base;   /* its first child in pending */
    uint32_t others; /* its first unknown key in `unknown` */
    uint64_t seen;   /* its known keys */
    gboolean object;
} Frame;

typedef struct {
    const char *p, *line_start;
    uint32_t line;
    FennelMscclppTree *t;
    /* The open containers and their children so far, innermost last: a container's
     * children go to the tree side by side when it closes. */
    FennelMscclppNode *pending;
    uint32_t n_pending, cap_pending;
    GArray *unknown; /* the unknown keys of the open objects: where each starts and ends */
    const FennelMscclppKeyTable *keys;
    Frame stack[MAX_DEPTH];
    int depth;
    gboolean opened; /* the last value opened a container */
} Scan;

/* The bytes a plain string holds: ASCII from the space on (DEL too, as json-glib takes it),
 * but the quote and the backslash. */
static const uint8_t plain[256] = {
    [0x20 ... 0x21] = 1, /* the quote, 0x22, ends it */
    [0x23 ... 0x5b] = 1, /* the backslash, 0x5c, declines */
    [0x5d ... 0x7f] = 1,
};

static inline void skip_space(Scan *s)
{
    const char *p = s->p; /* a local: the stores through s would not stay in registers */
    for (;;) {
        while (*p == ' ')
            p++;
        if (*p != '\n')
            break;
        s->line++;
        s->line_start = ++p;
    }
    s->p = p;
}

/* A string's bytes up to its closing quote; NULL if it is not plain. */
static inline const char *string_end(const char *p)
{
    while (plain[(guchar)*p])
        p++;
    return *p == '"' ? p : NULL;
}

/* A new node, a child of the innermost open container. */
static inline FennelMscclppNode *add(Scan *s, uint8_t type, uint8_t key)
{
    if (s->n_pending == s->cap_pending) {
        s->cap_pending = MAX(64, 2 * s->cap_pending);
        s->pending = g_renew(FennelMscclppNode, s->pending, s->cap_pending);
    }
    FennelMscclppNode *n = &s->pending[s->n_pending++];
    *n = (FennelMscclppNode){.type = type, .key = key};
    return n;
}

/* Reads one value at s->p; FALSE to decline. Containers are opened here and closed by the
 * loop of scan(). `unread`: the value of a member whose key the reader does not know. */
static gboolean value(Scan *s, uint8_t key, gboolean unread)
{
    const char *p = s->p;
    s->opened = *p == '{' || *p == '[';
    switch (*p) {
    case '{':
    case '[': {
        if (s->depth == MAX_DEPTH)
            return FALSE;
        FennelMscclppNode *n =
            add(s, *p == '{' ? FENNEL_MSCCLPP_JOBJECT : FENNEL_MSCCLPP_JARRAY, key);
        if (*p == '{')
            n->v.c.at =
                fennel__mscclpp_tree_where(s->t, s->line, (uint32_t)(p - s->line_start) + 1);
        s->stack[s->depth++] =
            (Frame){s->n_pending - 1, s->n_pending, s->unknown->len, 0, *p == '{'};
        s->p = p + 1;
        return TRUE;
    }
    case '"': {
        const char *end = string_end(p + 1);
        if (end == NULL)
            return FALSE;
        GString *text = s->t->text;
        gsize at = text->len, n = (gsize)(end - p - 1);
        if (at > UINT32_MAX / 2)
            return FALSE;
        add(s, FENNEL_MSCCLPP_JSTRING, key)->v.str = (uint32_t)at;
        /* Copied with its NUL, without a call for each when there is room. */
        if (text->allocated_len - at <= n + 1)
            g_string_set_size(text, at + n + 1);
        memcpy(text->str + at, p + 1, n);
        text->str[at + n] = text->str[at + n + 1] = '\0';
        text->len = at + n + 1;
        s->p = end + 1;
        return TRUE;
    }
    case 't':
    case 'f':
    case 'n': {
        static const char *const words[] = {"true", "false", "null"};
        static const uint8_t types[] = {FENNEL_MSCCLPP_JTRUE, FENNEL_MSCCLPP_JFALSE,
                                        FENNEL_MSCCLPP_JNULL};
        int w = *p == 't' ? 0 : *p == 'f' ? 1 : 2;
        size_t len = strlen(words[w]);
        if (strncmp(p, words[w], len) != 0) /* stops at the NUL */
            return FALSE;
        add(s, types[w], key);
        s->p = p + len;
        return TRUE;
    }
    default: {
        /* Whole numbers without sign or leading zeros: what json-glib reads as a 64-bit
         * integer. Anything with a fraction, an exponent or a sign goes to json-glib. */
        if (*p < '0' || *p > '9')
            return FALSE;
        int64_t v = 0;
        const char *q = p;
        while (*q >= '0' && *q <= '9' && q - p < 18)
            v = 10 * v + (*q++ - '0');
        if ((*p == '0' && q - p > 1) || *q == '.' || *q == 'e' || *q == 'E')
            return FALSE;
        if (*q >= '0' && *q <= '9') {
            /* json-glib wraps longer ones around 2^64. The plans' max_message_size is
             * 2^64 - 1: a longer number is taken only where the reader never looks, as the
             * value of a key it does not know (a JDOUBLE, never read). */
            while (*q >= '0' && *q <= '9')
                q++;
            if (!unread || *q == '.' || *q == 'e' || *q == 'E')
                return FALSE;
            add(s, FENNEL_MSCCLPP_JDOUBLE, key);
            s->p = q;
            return TRUE;
        }
        add(s, FENNEL_MSCCLPP_JINT, key)->v.i = v;
        s->p = q;
        return TRUE;
    }
    }
}

/* Closes the innermost container: its children move from pending to the tree. FALSE to
 * decline a text of more nodes than the tree counts. */
static gboolean close_container(Scan *s)
{
    Frame *f = &s->stack[--s->depth];
    uint32_t n = s->n_pending - f->base;
    if (s->t->n_nodes > UINT32_MAX / 2 - n)
        return FALSE;
    uint32_t first = fennel__mscclpp_tree_nodes(s->t, n);
    if (n > 0)
        memcpy(s->t->nodes + first, s->pending + f->base, n * sizeof *s->pending);
    s->pending[f->node].n = n;
    s->pending[f->node].v.c.first = first;
    s->n_pending = f->base;
    if (s->unknown->len > f->others)
        g_array_set_size(s->unknown, f->others);
    return TRUE;
}

/* A member's key, with the colon after it; FALSE to decline (a repeated key too). */
static gboolean key(Scan *s, uint8_t *id)
{
    if (*s->p != '"')
        return FALSE;
    const char *k = s->p + 1, *end = string_end(k);
    if (end == NULL || end == k)
        return FALSE;
    Frame *f = &s->stack[s->depth - 1];
    *id = FENNEL_MSCCLPP_KEY_OTHER;
    gsize n = (gsize)(end - k);
    for (guint h = fennel__mscclpp_key_slot(k, n); s->keys->slots[h] != 0;
         h = (h + 1) % FENNEL_MSCCLPP_KEY_SLOTS) {
        uint8_t x = s->keys->slots[h];
        if (s->keys->length[x] == n && memcmp(fennel__mscclpp_key_names[x], k, n) == 0) {
            *id = x;
            break;
        }
    }
    if (*id != FENNEL_MSCCLPP_KEY_OTHER) {
        if (f->seen & (UINT64_C(1) << *id))
            return FALSE;
        f->seen |= UINT64_C(1) << *id;
    } else {
        for (guint i = f->others; i < s->unknown->len; i += 2) {
            const char *o = g_array_index(s->unknown, const char *, i);
            const char *o_end = g_array_index(s->unknown, const char *, i + 1);
            if (o_end - o == end - k && memcmp(o, k, (size_t)(end - k)) == 0)
                return FALSE;
        }
        g_array_append_val(s->unknown, k);
        g_array_append_val(s->unknown, end);
    }
    s->p = end + 1;
    skip_space(s);
    if (*s->p != ':')
        return FALSE;
    s->p++;
    skip_space(s);
    return TRUE;
}

static gboolean scan(Scan *s, const char *data, gsize length)
{
    skip_space(s);
    if (*s->p != '{' || !value(s, 0, FALSE))
        return FALSE;
    while (s->depth > 0) {
        Frame *f = &s->stack[s->depth - 1];
        skip_space(s);
        char c = *s->p;
        if (c == (f->object ? '}' : ']')) {
            s->p++;
            if (!close_container(s))
                return FALSE;
            s->opened = FALSE;
            continue;
        }
        if (!s->opened) { /* after a member or element */
            if (c != ',')
                return FALSE;
            s->p++;
            skip_space(s);
        }
        uint8_t id = 0;
        if (f->object && !key(s, &id))
            return FALSE;
        if (!value(s, id, f->object && id == FENNEL_MSCCLPP_KEY_OTHER))
            return FALSE;
    }
    skip_space(s);
    if (s->p != data + length)
        return FALSE;
    s->t->root = fennel__mscclpp_tree_nodes(s->t, 1);
    s->t->nodes[s->t->root] = s->pending[0];
    return TRUE;
}

gboolean fennel__mscclpp_scan_fast(FennelMscclppTree *t, const char *data, gsize length)
{
    Scan s = {.p = data, .line_start = data, .line = 1, .t = t};
    s.keys = fennel__mscclpp_key_table();
    s.unknown = g_array_new(FALSE, FALSE, sizeof(const char *));
    gboolean ok = scan(&s, data, length);
    g_free(s.pending);
    g_array_unref(s.unknown);
    return ok;
}
