#include "yaml_fast.h"

#include <string.h>

/* Where the scanner is in the shape it takes (see yaml_fast.h). */
enum {
    S_STREAM_START,
    S_DOCUMENT_START,
    S_ROOT_START,
    S_ROOT_KEY,   /* at a root key or the end of the file */
    S_ROOT_VALUE, /* after "key:" */
    S_ITEM,       /* at a block sequence entry, or after the sequence */
    S_MAP_KEY,    /* inside a flow mapping, before a key */
    S_MAP_VALUE,  /* after "key: " */
    S_MAP_AFTER,  /* after a value: ',' or '}' */
    S_SEQ_FIRST,  /* after '[' */
    S_SEQ_AFTER,  /* after an entry of a flow sequence: ',' or ']' */
    S_DOCUMENT_END,
    S_STREAM_END,
    S_DONE,
};

/* Keys longer than this are declined: libyaml limits simple keys to 1024 characters. */
#define KEY_MAX 128

/* Characters of the plain scalars taken here; a plain scalar ends at the first other
 * character, and what follows it must be a space, ':' after a key, ',' or a closing
 * bracket. Colons, hashes and spaces inside plain scalars are declined. */
static inline gboolean plain_char(char c)
{
    return g_ascii_isalnum(c) || c == '_' || c == '.' || c == '-' || c == '/' || c == '+';
}

void fennel_yaml_fast_init(FennelYamlFast *f, const char *data, gsize length)
{
    memset(f, 0, sizeof *f);
    f->text = data;
    f->p = data;
    f->end = data + length;
    f->line_start = data;
    f->state = S_STREAM_START;
    f->scalar_size = 256;
    f->scalar = g_malloc(f->scalar_size);
}

void fennel_yaml_fast_clear(FennelYamlFast *f)
{
    g_free(f->scalar);
    f->scalar = NULL;
}

static void set_event(FennelYamlFast *f, yaml_event_t *e, yaml_event_type_t type, const char *at)
{
    /* A scalar's fields are all set by set_scalar; clearing the rest for every scalar
     * would cost more than the scanner's own work on it. */
    if (type != YAML_SCALAR_EVENT)
        memset(&e->data, 0, sizeof e->data);
    e->type = type;
    e->start_mark.index = (size_t)(at - f->text);
    e->start_mark.line = f->line;
    e->start_mark.column = (size_t)(at - f->line_start);
    e->end_mark = e->start_mark;
}

static void set_scalar(FennelYamlFast *f, yaml_event_t *e, const char *at, const char *text,
                       size_t length, yaml_scalar_style_t style)
{
    set_event(f, e, YAML_SCALAR_EVENT, at);
    if (length >= f->scalar_size) {
        f->scalar_size = length + 1;
        f->scalar = g_realloc(f->scalar, f->scalar_size);
    }
    memcpy(f->scalar, text, length);
    f->scalar[length] = '\0';
    e->data.scalar.anchor = NULL;
    e->data.scalar.tag = NULL;
    e->data.scalar.value = (yaml_char_t *)f->scalar;
    e->data.scalar.length = length;
    e->data.scalar.plain_implicit = style == YAML_PLAIN_SCALAR_STYLE;
    e->data.scalar.quoted_implicit = style != YAML_PLAIN_SCALAR_STYLE;
    e->data.scalar.style = style;
}

static void skip_spaces(FennelYamlFast *f)
{
    while (f->p < f->end && *f->p == ' ')
        f->p++;
}

/* At '#': skips to the end of the line. libyaml refuses control characters and checks
 * UTF-8 even in comments, so anything outside printable ASCII is declined. */
static gboolean skip_comment(FennelYamlFast *f)
{
    for (; f->p < f->end && *f->p != '\n'; f->p++) {
        if ((unsigned char)*f->p < 0x20 || (unsigned char)*f->p > 0x7e)
            return FALSE;
    }
    return TRUE;
}

static void new_line(FennelYamlFast *f)
{
    f->p++;
    f->line++;
    f->line_start = f->p;
}

/* From the start of a line (or its leading spaces), skips blank and comment lines and
 * stops on the first character of the next line with content, or at the end. */
static gboolean to_content(FennelYamlFast *f)
{
    for (;;) {
        skip_spaces(f);
        if (f->p < f->end && *f->p == '#' && !skip_comment(f))
            return FALSE;
        if (f->p == f->end || *f->p != '\n')
            return TRUE;
        new_line(f);
    }
}

/* After a value: spaces, an optional comment (which needs a space before it) and the
 * end of the line. */
static gboolean end_line(FennelYamlFast *f)
{
    const char *before = f->p;
    skip_spaces(f);
    if (f->p < f->end && *f->p == '#' && (f->p == before || !skip_comment(f)))
        return FALSE;
    if (f->p == f->end)
        return TRUE;
    if (*f->p != '\n')
        return FALSE;
    new_line(f);
    return TRUE;
}

/* A key: a plain scalar starting with a letter, then ':' and a space (or, in block
 * context, the end of the line). */
static gboolean scan_key(FennelYamlFast *f, yaml_event_t *e, gboolean flow)
{
    const char *p = f->p, *q = p;
    if (p == f->end || !(g_ascii_isalpha(*p) || *p == '_'))
        return FALSE;
    while (q < f->end && plain_char(*q))
        q++;
    if (q - p > KEY_MAX || q == f->end || *q != ':')
        return FALSE;
    gboolean space = q + 1 < f->end && q[1] == ' ';
    gboolean line_end = q + 1 == f->end || q[1] == '\n';
    if (!(space || (!flow && line_end)))
        return FALSE;
    set_scalar(f, e, p, p, (size_t)(q - p), YAML_PLAIN_SCALAR_STYLE);
    f->p = q + 1;
    return TRUE;
}

/* A value: a plain scalar, or a double-quoted one without escapes on one line. */
static gboolean scan_value(FennelYamlFast *f, yaml_event_t *e)
{
    const char *p = f->p, *q = p + 1;
    if (p == f->end)
        return FALSE;
    if (*p == '"') {
        for (; q < f->end && *q != '"'; q++) {
            if ((unsigned char)*q < 0x20 || (unsigned char)*q > 0x7e || *q == '\\')
                return FALSE;
        }
        if (q == f->end)
            return FALSE;
        set_scalar(f, e, p, p + 1, (size_t)(q - p - 1), YAML_DOUBLE_QUOTED_SCALAR_STYLE);
        f->p = q + 1;
        return TRUE;
    }
    /* '-' starts a plain scalar only when a plain character follows ("- " is an entry). */
    if (!(g_ascii_isalnum(*p) || *p == '_' || *p == '.' ||
          (*p == '-' && q < f->end && plain_char(*q))))
        return FALSE;
    while (q < f->end && plain_char(*q))
        q++;
    set_scalar(f, e, p, p, (size_t)(q - p), YAML_PLAIN_SCALAR_STYLE);
    f->p = q;
    return TRUE;
}

/* After "key:" at the root: a scalar on the same line, or a block sequence below. */
static gboolean root_value(FennelYamlFast *f, yaml_event_t *e)
{
    const char *q = f->p;
    while (q < f->end && *q == ' ')
        q++;
    if (q < f->end && *q != '\n' && *q != '#') {
        f->p = q;
        if (!scan_value(f, e))
            return FALSE;
        /* In block context a plain scalar goes on over spaces ("description: two words"),
         * up to a comment or the end of the line; it ends at its last word. */
        if (e->data.scalar.style == YAML_PLAIN_SCALAR_STYLE) {
            const char *start = f->text + e->start_mark.index, *word_end = f->p;
            for (q = f->p;;) {
                const char *gap = q;
                while (q < f->end && *q == ' ')
                    q++;
                if (q == gap || q == f->end || !plain_char(*q))
                    break;
                while (q < f->end && plain_char(*q))
                    q++;
                word_end = q;
            }
            if (word_end != f->p) {
                set_scalar(f, e, start, start, (size_t)(word_end - start), YAML_PLAIN_SCALAR_STYLE);
                f->p = word_end;
            }
        }
        if (!end_line(f))
            return FALSE;
        f->state = S_ROOT_KEY;
        return TRUE;
    }
    if (!end_line(f) || !to_content(f))
        return FALSE;
    if (f->end - f->p < 2 || f->p[0] != '-' || f->p[1] != ' ')
        return FALSE;
    f->seq_indent = (size_t)(f->p - f->line_start);
    set_event(f, e, YAML_SEQUENCE_START_EVENT, f->p);
    e->data.sequence_start.implicit = 1;
    e->data.sequence_start.style = YAML_BLOCK_SEQUENCE_STYLE;
    f->state = S_ITEM;
    return TRUE;
}

/* At a line of the block sequence: "- {" opens the next entry; a line at column 0 (or
 * the end of the file) closes the sequence. */
static gboolean item(FennelYamlFast *f, yaml_event_t *e)
{
    if (!to_content(f))
        return FALSE;
    size_t indent = (size_t)(f->p - f->line_start);
    if (f->p < f->end && indent == f->seq_indent && *f->p == '-') {
        const char *q = f->p + 1;
        if (q == f->end || *q != ' ')
            return FALSE;
        while (q < f->end && *q == ' ')
            q++;
        if (q == f->end || *q != '{')
            return FALSE;
        set_event(f, e, YAML_MAPPING_START_EVENT, q);
        e->data.mapping_start.implicit = 1;
        e->data.mapping_start.style = YAML_FLOW_MAPPING_STYLE;
        f->p = q + 1;
        f->state = S_MAP_KEY;
        return TRUE;
    }
    if (f->p < f->end && (indent != 0 || *f->p == '-'))
        return FALSE;
    set_event(f, e, YAML_SEQUENCE_END_EVENT, f->p);
    f->state = S_ROOT_KEY;
    return TRUE;
}

static gboolean map_after(FennelYamlFast *f, yaml_event_t *e)
{
    skip_spaces(f);
    if (f->p == f->end)
        return FALSE;
    if (*f->p == ',') {
        f->p++;
        skip_spaces(f);
        f->state = S_MAP_VALUE;
        return scan_key(f, e, TRUE);
    }
    if (*f->p != '}')
        return FALSE;
    set_event(f, e, YAML_MAPPING_END_EVENT, f->p);
    f->p++;
    f->state = S_ITEM;
    return end_line(f);
}

/* After spaces: if the cursor is on `c`, the event `type` there, and the scanner goes on
 * in state `next`. */
static gboolean bracket(FennelYamlFast *f, yaml_event_t *e, char c, yaml_event_type_t type,
                        int next)
{
    skip_spaces(f);
    if (f->p == f->end || *f->p != c)
        return FALSE;
    set_event(f, e, type, f->p);
    f->p++;
    f->state = next;
    return TRUE;
}

static gboolean seq_after(FennelYamlFast *f, yaml_event_t *e)
{
    skip_spaces(f);
    if (f->p < f->end && *f->p == ',') {
        f->p++;
        skip_spaces(f);
        return scan_value(f, e);
    }
    return bracket(f, e, ']', YAML_SEQUENCE_END_EVENT, S_MAP_AFTER);
}

gboolean fennel_yaml_fast_next(FennelYamlFast *f, yaml_event_t *e)
{
    switch (f->state) {
    case S_STREAM_START:
        set_event(f, e, YAML_STREAM_START_EVENT, f->p);
        e->data.stream_start.encoding = YAML_UTF8_ENCODING;
        f->state = S_DOCUMENT_START;
        return TRUE;
    case S_DOCUMENT_START:
        if (!to_content(f) || f->p == f->end)
            return FALSE;
        set_event(f, e, YAML_DOCUMENT_START_EVENT, f->p);
        e->data.document_start.implicit = 1;
        f->state = S_ROOT_START;
        return TRUE;
    case S_ROOT_START:
        if (f->p != f->line_start)
            return FALSE;
        set_event(f, e, YAML_MAPPING_START_EVENT, f->p);
        e->data.mapping_start.implicit = 1;
        e->data.mapping_start.style = YAML_BLOCK_MAPPING_STYLE;
        f->state = S_ROOT_KEY;
        return TRUE;
    case S_ROOT_KEY:
        if (!to_content(f))
            return FALSE;
        if (f->p == f->end) {
            set_event(f, e, YAML_MAPPING_END_EVENT, f->p);
            f->state = S_DOCUMENT_END;
            return TRUE;
        }
        f->state = S_ROOT_VALUE;
        return f->p == f->line_start && scan_key(f, e, FALSE);
    case S_ROOT_VALUE:
        return root_value(f, e);
    case S_ITEM:
        return item(f, e);
    case S_MAP_KEY:
        skip_spaces(f);
        f->state = S_MAP_VALUE;
        return scan_key(f, e, TRUE);
    case S_MAP_VALUE:
        if (bracket(f, e, '[', YAML_SEQUENCE_START_EVENT, S_SEQ_FIRST)) {
            e->data.sequence_start.implicit = 1;
            e->data.sequence_start.style = YAML_FLOW_SEQUENCE_STYLE;
            return TRUE;
        }
        f->state = S_MAP_AFTER;
        return scan_value(f, e);
    case S_MAP_AFTER:
        return map_after(f, e);
    case S_SEQ_FIRST:
        if (bracket(f, e, ']', YAML_SEQUENCE_END_EVENT, S_MAP_AFTER))
            return TRUE;
        f->state = S_SEQ_AFTER;
        return scan_value(f, e);
    case S_SEQ_AFTER:
        return seq_after(f, e);
    case S_DOCUMENT_END:
        set_event(f, e, YAML_DOCUMENT_END_EVENT, f->p);
        e->data.document_end.implicit = 1;
        f->state = S_STREAM_END;
        return TRUE;
    case S_STREAM_END:
        set_event(f, e, YAML_STREAM_END_EVENT, f->p);
        f->state = S_DONE;
        return TRUE;
    default:
        set_event(f, e, YAML_NO_EVENT, f->p);
        return TRUE;
    }
}
