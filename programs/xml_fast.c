/* The fast XML scanner (xml_fast.h). */
#include "xml_fast.h"

#include <string.h>

#define MAX_ATTRIBUTES FENNEL_XML_FAST_MAX_ATTRIBUTES
#define MAX_DEPTH      16

typedef struct {
    const char *p, *end, *line_start;
    uint32_t line;
} Cursor;

/* Character classes, one table look-up per byte: the characters of element and attribute
 * names and those a name may start with (as GMarkup has them, in ASCII: not a digit, '-'
 * or '.'), white space as XML and GMarkup have it (not '\f'), and the bytes that stop an
 * attribute value: either quote, '&' and '<', the white space GMarkup turns into spaces
 * ('\t', '\n', '\r'), and the NUL that ends a copied tag. */
enum { NAME = 1, SPACE = 2, STOP = 4, START = 8 };

/* clang-format off */
#define N NAME
#define L (NAME | START)
static const uint8_t cls[256] = {
    ['\0'] = STOP, ['\t'] = SPACE | STOP, ['\n'] = SPACE | STOP, ['\r'] = SPACE | STOP,
    [' '] = SPACE, ['"'] = STOP, ['&'] = STOP, ['\''] = STOP, ['<'] = STOP,
    ['-'] = N, ['.'] = N, ['0'] = N, ['1'] = N, ['2'] = N, ['3'] = N, ['4'] = N, ['5'] = N,
    ['6'] = N, ['7'] = N, ['8'] = N, ['9'] = N, [':'] = L, ['_'] = L,
    ['A'] = L, ['B'] = L, ['C'] = L, ['D'] = L, ['E'] = L, ['F'] = L, ['G'] = L, ['H'] = L,
    ['I'] = L, ['J'] = L, ['K'] = L, ['L'] = L, ['M'] = L, ['N'] = L, ['O'] = L, ['P'] = L,
    ['Q'] = L, ['R'] = L, ['S'] = L, ['T'] = L, ['U'] = L, ['V'] = L, ['W'] = L, ['X'] = L,
    ['Y'] = L, ['Z'] = L, ['a'] = L, ['b'] = L, ['c'] = L, ['d'] = L, ['e'] = L, ['f'] = L,
    ['g'] = L, ['h'] = L, ['i'] = L, ['j'] = L, ['k'] = L, ['l'] = L, ['m'] = L, ['n'] = L,
    ['o'] = L, ['p'] = L, ['q'] = L, ['r'] = L, ['s'] = L, ['t'] = L, ['u'] = L, ['v'] = L,
    ['w'] = L, ['x'] = L, ['y'] = L, ['z'] = L,
};
/* clang-format on */
#undef N
#undef L

static inline gboolean is(char c, uint8_t what)
{
    return (cls[(uint8_t)c] & what) != 0;
}

/* Skips white space, counting lines. */
static inline void skip_space(Cursor *c)
{
    while (c->p < c->end && is(*c->p, SPACE)) {
        if (*c->p == '\n') {
            c->line++;
            c->line_start = c->p + 1;
        }
        c->p++;
    }
}

/* Skips to just after `stop` (counting lines); FALSE if it never comes. */
static gboolean skip_past(Cursor *c, const char *stop)
{
    size_t n = strlen(stop);
    while (c->p + n <= c->end) {
        if (memcmp(c->p, stop, n) == 0) {
            c->p += n;
            return TRUE;
        }
        if (*c->p == '\n') {
            c->line++;
            c->line_start = c->p + 1;
        }
        c->p++;
    }
    return FALSE;
}

/* A copy of the tag being read, NUL-terminated: names and values are ended in place, so
 * that a tag costs one copy and no call per attribute. */
typedef struct {
    char *buf;
    gsize size, room;
} Tag;

/* Copies data[from, to] after what the tag holds. */
static void tag_append(Tag *t, const char *from, const char *to)
{
    gsize n = (gsize)(to - from) + 1;
    if (t->size + n + 1 > t->room) {
        t->room = MAX(2 * t->room, t->size + n + 1);
        t->buf = g_realloc(t->buf, t->room);
    }
    memcpy(t->buf + t->size, from, n);
    t->size += n;
    t->buf[t->size] = '\0';
}

/* An attribute name's length and its first, middle and last bytes in a word: names with
 * different keys differ. */
static inline uint32_t name_key(const char *s, uint32_t n)
{
    return (n & 0xff) | (uint32_t)(uint8_t)s[0] << 8 | (uint32_t)(uint8_t)s[n / 2] << 16 |
           (uint32_t)(uint8_t)s[n - 1] << 24;
}

/* Whether name i repeats one before it (an error GMarkup words). Each name sets a bit of
 * `seen` picked by a hash of its key; only a name whose bit is already set is compared with
 * the others. The multiplier gives the names of MSCCL's <gpu>, <tb> and <step> distinct
 * bits, so those tags need no compare; any other collision costs one. */
static inline gboolean repeated(uint64_t *seen, const char *const *names, const uint32_t *len,
                                int i)
{
    uint64_t bit = 1ull << ((name_key(names[i], len[i]) * 0x414c343du) >> 26);
    if (*seen & bit)
        for (int j = 0; j < i; j++)
            if (len[j] == len[i] && memcmp(names[j], names[i], len[i]) == 0)
                return TRUE;
    *seen |= bit;
    return FALSE;
}

/* Skips white space inside the copy of a tag, counting lines (`from` is where the copy
 * starts in the data). */
static inline char *skip_tag_space(char *q, Cursor *c, const Tag *t, const char *from)
{
    while (is(*q, SPACE)) {
        if (*q == '\n') {
            c->line++;
            c->line_start = from + (q - t->buf) + 1;
        }
        q++;
    }
    return q;
}

/* Reads the start tag whose name begins at data `from` into t, its name at the start of
 * t->buf and its attributes' names and values into names[] and values[] (pointers into
 * t->buf, NUL-terminated, NULL after the last), the names' lengths into name_len[].
 * Returns where the tag ends in the data (just past its '>'), or NULL to decline; *empty
 * says whether it closed itself ("/>"). */
static const char *read_tag(Tag *t, Cursor *c, const char *from, const char **names,
                            const char **values, uint32_t *name_len, gboolean *empty)
{
    const char *gt = memchr(from, '>', (size_t)(c->end - from));
    if (gt == NULL)
        return NULL;
    t->size = 0;
    tag_append(t, from, gt);
    uint64_t seen = 0;
    char *q = t->buf;
    if (!is(*q, START))
        return NULL;
    while (is(*q, NAME))
        q++;
    /* Each name and value is ended in place once the byte after it has been looked at;
     * the element's name at the end, since that byte may be the '>' or '/' that ends the
     * tag (and the copy may move before). */
    gsize element_len = (gsize)(q - t->buf);
    if (is(*q, SPACE))
        q = skip_tag_space(q, c, t, from);
    else if (*q != '>' && *q != '/')
        return NULL;
    int n = 0;
    for (;;) {
        if (*q == '>') {
            q++;
            *empty = FALSE;
            break;
        }
        if (*q == '/') {
            if (q[1] != '>')
                return NULL;
            q += 2;
            *empty = TRUE;
            break;
        }
        char *key = q;
        if (!is(*q, START) || n == MAX_ATTRIBUTES)
            return NULL;
        while (is(*q, NAME))
            q++;
        names[n] = key;
        name_len[n] = (uint32_t)(q - key);
        if (*q == '=') {
            *q++ = '\0';
        } else {
            char *end = q;
            q = skip_tag_space(q, c, t, from);
            if (*q != '=')
                return NULL;
            *end = '\0';
            q++;
        }
        if (repeated(&seen, names, name_len, n))
            return NULL;
        q = skip_tag_space(q, c, t, from);
        if (*q != '"' && *q != '\'')
            return NULL;
        char quote = *q++;
        values[n] = q;
        for (;;) {
            while (!is(*q, STOP))
                q++;
            if (*q == quote)
                break;
            /* The other quote, and a NUL byte before the end of the copy, are text. */
            if (*q == '"' || *q == '\'' || (*q == '\0' && q != t->buf + t->size)) {
                q++;
                continue;
            }
            if (*q != '\0')
                return NULL; /* '&', '<' or white space GMarkup would normalise */
            /* The value holds the '>' the copy stopped at: copy up to the next one. */
            const char *more = from + t->size;
            const char *next = memchr(more, '>', (size_t)(c->end - more));
            if (next == NULL)
                return NULL;
            /* The copy may move: what points into it is kept as offsets meanwhile. */
            gsize at = (gsize)(q - t->buf), name_at[MAX_ATTRIBUTES], value_at[MAX_ATTRIBUTES];
            for (int i = 0; i <= n; i++) {
                name_at[i] = (gsize)(names[i] - t->buf);
                value_at[i] = (gsize)(values[i] - t->buf);
            }
            tag_append(t, more, next);
            q = t->buf + at;
            for (int i = 0; i <= n; i++) {
                names[i] = t->buf + name_at[i];
                values[i] = t->buf + value_at[i];
            }
        }
        *q++ = '\0';
        n++;
        /* Attributes are separated by white space. */
        if (is(*q, SPACE))
            q = skip_tag_space(q, c, t, from);
        else if (*q != '>' && *q != '/')
            return NULL;
    }
    names[n] = values[n] = NULL;
    t->buf[element_len] = '\0';
    return from + (q - t->buf);
}

FennelXmlFastResult fennel_xml_fast_parse(FennelXmlFast *x, const char *data, gsize length,
                                          const GMarkupParser *parser, gpointer user_data,
                                          GError **error)
{
    Cursor c = {data, data + length, data, 1};
    Tag tag = {g_malloc(512), 0, 512};
    uint32_t name_len[MAX_ATTRIBUTES];
    const char *names[MAX_ATTRIBUTES + 1], *values[MAX_ATTRIBUTES + 1];
    GString *open = g_string_new(NULL); /* open element names, NUL-separated */
    gsize open_at[MAX_DEPTH + 1];       /* where each name starts, and where the last ends */
    int depth = 0;
    FennelXmlFastResult result = FENNEL_XML_FAST_DECLINED;
    x->name_len = name_len;
    for (;;) {
        skip_space(&c);
        if (c.p >= c.end) {
            result = depth == 0 ? FENNEL_XML_FAST_DONE : FENNEL_XML_FAST_DECLINED;
            break;
        }
        if (*c.p != '<' || c.end - c.p < 2)
            break; /* text, or a '<' that ends the text */
        x->tag_line = c.line;
        x->tag_col = (uint32_t)(c.p - c.line_start) + 1;
        char kind = c.p[1];
        if (kind == '!') {
            if (c.end - c.p < 4 || memcmp(c.p, "<!--", 4) != 0 || !skip_past(&c, "-->"))
                break;
            continue;
        }
        if (kind == '?') {
            if (x->tag_line != 1 || x->tag_col != 1 || !skip_past(&c, "?>"))
                break;
            continue;
        }
        if (kind == '/') {
            /* A closing tag must close the innermost open element. */
            c.p += 2;
            const char *name = c.p;
            while (c.p < c.end && is(*c.p, NAME))
                c.p++;
            size_t n = (size_t)(c.p - name);
            skip_space(&c);
            if (depth == 0 || c.p >= c.end || *c.p != '>' ||
                open_at[depth] - open_at[depth - 1] != n + 1 ||
                memcmp(open->str + open_at[depth - 1], name, n) != 0)
                break;
            c.p++;
            depth--;
            if (parser->end_element)
                parser->end_element(NULL, open->str + open_at[depth], user_data, error);
            g_string_truncate(open, open_at[depth]);
            if (error && *error) {
                result = FENNEL_XML_FAST_ERROR;
                break;
            }
            continue;
        }
        /* A start tag. */
        gboolean empty = FALSE;
        const char *after = read_tag(&tag, &c, c.p + 1, names, values, name_len, &empty);
        if (after == NULL || depth == MAX_DEPTH)
            break;
        c.p = after;
        /* An element that closes itself is never on the stack of open ones. */
        if (!empty) {
            open_at[depth] = open->len;
            g_string_append_len(open, tag.buf, (gssize)strlen(tag.buf) + 1);
            open_at[++depth] = open->len;
        }
        parser->start_element(NULL, tag.buf, names, values, user_data, error);
        if (error && *error) {
            result = FENNEL_XML_FAST_ERROR;
            break;
        }
        if (empty && parser->end_element) {
            parser->end_element(NULL, tag.buf, user_data, error);
            if (error && *error) {
                result = FENNEL_XML_FAST_ERROR;
                break;
            }
        }
    }
    x->name_len = NULL;
    g_free(tag.buf);
    g_string_free(open, TRUE);
    return result;
}
