/* The fast XML scanner (xml_fast.h). */
#include "xml_fast.h"

#include <string.h>

#define MAX_ATTRIBUTES 32
#define MAX_DEPTH      16

typedef struct {
    const char *p, *end, *line_start;
    uint32_t line;
} Cursor;

/* Characters of element and attribute names, as a table: the scanner asks per byte. */
static const uint8_t name_chars[256] = {
    ['-'] = 1, ['.'] = 1, ['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1,
    ['6'] = 1, ['7'] = 1, ['8'] = 1, ['9'] = 1, [':'] = 1, ['_'] = 1, ['A'] = 1, ['B'] = 1,
    ['C'] = 1, ['D'] = 1, ['E'] = 1, ['F'] = 1, ['G'] = 1, ['H'] = 1, ['I'] = 1, ['J'] = 1,
    ['K'] = 1, ['L'] = 1, ['M'] = 1, ['N'] = 1, ['O'] = 1, ['P'] = 1, ['Q'] = 1, ['R'] = 1,
    ['S'] = 1, ['T'] = 1, ['U'] = 1, ['V'] = 1, ['W'] = 1, ['X'] = 1, ['Y'] = 1, ['Z'] = 1,
    ['a'] = 1, ['b'] = 1, ['c'] = 1, ['d'] = 1, ['e'] = 1, ['f'] = 1, ['g'] = 1, ['h'] = 1,
    ['i'] = 1, ['j'] = 1, ['k'] = 1, ['l'] = 1, ['m'] = 1, ['n'] = 1, ['o'] = 1, ['p'] = 1,
    ['q'] = 1, ['r'] = 1, ['s'] = 1, ['t'] = 1, ['u'] = 1, ['v'] = 1, ['w'] = 1, ['x'] = 1,
    ['y'] = 1, ['z'] = 1,
};

static inline gboolean is_name_char(char c)
{
    return name_chars[(uint8_t)c];
}

/* Skips white space, counting lines. */
static inline void skip_space(Cursor *c)
{
    while (c->p < c->end && g_ascii_isspace(*c->p)) {
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

/* Appends n bytes and a NUL. The room for a whole tag is reserved before it (below), so
 * that this is a copy, where g_string_append_len() is a call of about 85 instructions, run
 * twice per attribute; a value holding '>' may still need more. */
static inline void put(GString *s, const char *p, gsize n)
{
    if (G_UNLIKELY(s->len + n + 1 >= s->allocated_len)) {
        g_string_append_len(s, p, (gssize)n);
        g_string_append_c(s, '\0');
        return;
    }
    memcpy(s->str + s->len, p, n);
    s->len += n;
    s->str[s->len++] = '\0';
}

FennelXmlFastResult fennel_xml_fast_parse(FennelXmlFast *x, const char *data, gsize length,
                                          const GMarkupParser *parser, gpointer user_data,
                                          GError **error)
{
    Cursor c = {data, data + length, data, 1};
    /* Names and values are copied NUL-terminated into one buffer per tag. */
    GString *text = g_string_sized_new(512);
    gsize name_at[MAX_ATTRIBUTES + 1], value_at[MAX_ATTRIBUTES];
    const char *names[MAX_ATTRIBUTES + 1], *values[MAX_ATTRIBUTES + 1];
    GString *open = g_string_new(NULL); /* open element names, NUL-separated */
    gsize open_at[MAX_DEPTH];
    int depth = 0;
    FennelXmlFastResult result = FENNEL_XML_FAST_DECLINED;
    for (;;) {
        skip_space(&c);
        if (c.p >= c.end) {
            result = depth == 0 ? FENNEL_XML_FAST_DONE : FENNEL_XML_FAST_DECLINED;
            break;
        }
        if (*c.p != '<')
            break; /* text */
        x->tag_line = c.line;
        x->tag_col = (uint32_t)(c.p - c.line_start) + 1;
        if (c.end - c.p >= 4 && memcmp(c.p, "<!--", 4) == 0) {
            if (!skip_past(&c, "-->"))
                break;
            continue;
        }
        if (c.end - c.p >= 2 && c.p[1] == '?') {
            if (x->tag_line != 1 || x->tag_col != 1 || !skip_past(&c, "?>"))
                break;
            continue;
        }
        if (c.end - c.p >= 2 && c.p[1] == '/') {
            /* A closing tag must close the innermost open element. */
            c.p += 2;
            const char *name = c.p;
            while (c.p < c.end && is_name_char(*c.p))
                c.p++;
            size_t n = (size_t)(c.p - name);
            skip_space(&c);
            if (depth == 0 || c.p >= c.end || *c.p != '>' ||
                strlen(open->str + open_at[depth - 1]) != n ||
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
        c.p++;
        /* Room for the tag's bytes up to its first '>' (or the end), and a NUL after its
         * name and each of at most MAX_ATTRIBUTES names and values. */
        const char *gt = memchr(c.p, '>', (size_t)(c.end - c.p));
        gsize room = (gsize)((gt ? gt : c.end) - c.p) + 2 * MAX_ATTRIBUTES + 2;
        g_string_set_size(text, room);
        g_string_truncate(text, 0);
        const char *name = c.p;
        while (c.p < c.end && is_name_char(*c.p))
            c.p++;
        if (c.p == name || (c.p < c.end && !g_ascii_isspace(*c.p) && *c.p != '>' && *c.p != '/'))
            break;
        put(text, name, (gsize)(c.p - name));
        int n = 0;
        gboolean ok = FALSE, empty = FALSE;
        for (;;) {
            skip_space(&c);
            if (c.p >= c.end)
                break;
            if (*c.p == '>') {
                c.p++;
                ok = TRUE;
                break;
            }
            if (*c.p == '/') {
                if (c.end - c.p < 2 || c.p[1] != '>')
                    break;
                c.p += 2;
                ok = empty = TRUE;
                break;
            }
            const char *key = c.p;
            while (c.p < c.end && is_name_char(*c.p))
                c.p++;
            if (c.p == key || n == MAX_ATTRIBUTES)
                break;
            name_at[n] = text->len;
            put(text, key, (gsize)(c.p - key));
            skip_space(&c);
            if (c.p >= c.end || *c.p != '=')
                break;
            c.p++;
            skip_space(&c);
            if (c.p >= c.end || (*c.p != '"' && *c.p != '\''))
                break;
            char quote = *c.p++;
            const char *value = c.p;
            while (c.p < c.end && *c.p != quote && *c.p != '&' && *c.p != '<' && *c.p != '\n')
                c.p++;
            if (c.p >= c.end || *c.p != quote)
                break;
            value_at[n] = text->len;
            put(text, value, (gsize)(c.p - value));
            c.p++;
            n++;
            /* Attributes are separated by white space. */
            if (c.p < c.end && !g_ascii_isspace(*c.p) && *c.p != '>' && *c.p != '/')
                break;
        }
        if (!ok || depth == MAX_DEPTH)
            break;
        /* A repeated attribute is an error GMarkup words. Names are compared by length and
         * first byte before their bytes: a step has a dozen attributes, 66 pairs. */
        gboolean repeated = FALSE;
        for (int i = 0; i < n && !repeated; i++) {
            const char *a = text->str + name_at[i];
            size_t la = value_at[i] - name_at[i];
            for (int j = 0; j < i && !repeated; j++) {
                const char *b = text->str + name_at[j];
                repeated = value_at[j] - name_at[j] == la && a[0] == b[0] && memcmp(a, b, la) == 0;
            }
        }
        if (repeated)
            break;
        for (int i = 0; i < n; i++) {
            names[i] = text->str + name_at[i];
            values[i] = text->str + value_at[i];
        }
        names[n] = values[n] = NULL;
        open_at[depth] = open->len;
        g_string_append(open, text->str);
        g_string_append_c(open, '\0');
        depth++;
        parser->start_element(NULL, text->str, names, values, user_data, error);
        if (error && *error) {
            result = FENNEL_XML_FAST_ERROR;
            break;
        }
        if (empty) {
            depth--;
            if (parser->end_element)
                parser->end_element(NULL, text->str, user_data, error);
            g_string_truncate(open, open_at[depth]);
            if (error && *error) {
                result = FENNEL_XML_FAST_ERROR;
                break;
            }
        }
    }
    g_string_free(text, TRUE);
    g_string_free(open, TRUE);
    return result;
}
