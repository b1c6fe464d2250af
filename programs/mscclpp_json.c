/* The JSON side of the MSCCL++ reader (docs/FORMATS.md): json-glib parses the text, a
 * scan of the text gives every object its position, and typed member access fails at the
 * object with FILE:LINE:COL. */
#include "mscclpp_private.h"

#include "errors.h"

#include <stdio.h>
#include <string.h>

/* json-glib keeps no positions in its nodes. It announces every object as it closes, in
 * the order the closing braces come, so one scan of the text that pairs braces gives the
 * k-th closed object its opening brace. */
/* json-glib descends recursively, so deep nesting would exhaust the stack; a plan needs
 * eight levels, and a pipeline's operations two more. */
#define MAX_DEPTH 64

/* Also finds where the nesting first grows too deep (*deep_line 0 if nowhere). */
static GArray *scan_starts(const char *data, gsize length, uint32_t *deep_line, uint32_t *deep_col)
{
    guint depth = 0;
    *deep_line = *deep_col = 0;
    GArray *starts = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    GArray *stack = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    uint32_t line = 1, col = 1;
    gboolean in_string = FALSE;
    for (gsize i = 0; i < length; i++, col++) {
        char c = data[i];
        if (depth > MAX_DEPTH && *deep_line == 0) {
            *deep_line = line;
            *deep_col = col - 1;
        }
        if (c == '\n') {
            line++;
            col = 0;
        } else if (in_string) {
            if (c == '\\' && i + 1 < length && data[i + 1] != '\n')
                i++, col++;
            else if (c == '"')
                in_string = FALSE;
        } else if (c == '"') {
            in_string = TRUE;
        } else if (c == '[' || c == ']') {
            depth = c == '[' ? depth + 1 : depth - (depth > 0);
        } else if (c == '{') {
            uint32_t at[2] = {line, col};
            g_array_append_vals(stack, at, 2);
            depth++;
        } else if (c == '}' && stack->len >= 2) {
            depth -= depth > 0;
            g_array_append_vals(starts, &g_array_index(stack, uint32_t, stack->len - 2), 2);
            g_array_set_size(stack, stack->len - 2);
        }
    }
    g_array_unref(stack);
    return starts;
}

static void on_object_end(JsonParser *parser, JsonObject *object, gpointer data)
{
    (void)parser;
    FennelMscclppReader *r = data;
    g_hash_table_insert(r->where, object, GUINT_TO_POINTER(r->closed + 1));
    r->closed++;
}

void fennel__mscclpp_where(const FennelMscclppReader *r, JsonObject *o, uint32_t *line,
                           uint32_t *col)
{
    guint k = GPOINTER_TO_UINT(g_hash_table_lookup(r->where, o));
    *line = *col = 0;
    if (k > 0 && 2 * k <= r->starts->len) {
        *line = g_array_index(r->starts, uint32_t, 2 * (k - 1));
        *col = g_array_index(r->starts, uint32_t, 2 * (k - 1) + 1);
    }
}

gboolean fennel__mscclpp_fail(FennelMscclppReader *r, JsonObject *o, const char *format, ...)
{
    if (r->failed)
        return FALSE;
    r->failed = TRUE;
    uint32_t line, col;
    fennel__mscclpp_where(r, o, &line, &col);
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
    fennel_error_at(r->error, r->file, line, col, "%s%s", s->str, what);
    g_string_free(s, TRUE);
    g_free(what);
    return FALSE;
}

static JsonNode *member(FennelMscclppReader *r, JsonObject *o, const char *key, gboolean optional,
                        JsonNodeType type, const char *what)
{
    JsonNode *n = json_object_get_member(o, key);
    if (n == NULL) {
        if (!optional)
            fennel__mscclpp_fail(r, o, "no \"%s\"", key);
        return NULL;
    }
    if (JSON_NODE_TYPE(n) != type) {
        fennel__mscclpp_fail(r, o, "\"%s\": expected %s", key, what);
        return NULL;
    }
    return n;
}

static gboolean whole(JsonNode *n, int64_t min, int64_t max, int64_t *value)
{
    if (JSON_NODE_TYPE(n) != JSON_NODE_VALUE || json_node_get_value_type(n) != G_TYPE_INT64)
        return FALSE;
    *value = json_node_get_int(n);
    return *value >= min && *value <= max;
}

gboolean fennel__mscclpp_int(FennelMscclppReader *r, JsonObject *o, const char *key, int64_t min,
                             int64_t max, gboolean optional, int64_t *value)
{
    JsonNode *n = json_object_get_member(o, key);
    if (n == NULL) {
        if (optional)
            return TRUE;
        return fennel__mscclpp_fail(r, o, "no \"%s\"", key);
    }
    if (!whole(n, min, max, value))
        return fennel__mscclpp_fail(
            r, o, "\"%s\": expected a whole number from %" G_GINT64_FORMAT " to %" G_GINT64_FORMAT,
            key, min, max);
    return TRUE;
}

JsonArray *fennel__mscclpp_array(FennelMscclppReader *r, JsonObject *o, const char *key,
                                 gboolean optional)
{
    JsonNode *n = member(r, o, key, optional, JSON_NODE_ARRAY, "an array");
    return n ? json_node_get_array(n) : NULL;
}

JsonObject *fennel__mscclpp_object(FennelMscclppReader *r, JsonObject *o, const char *key,
                                   gboolean optional)
{
    JsonNode *n = member(r, o, key, optional, JSON_NODE_OBJECT, "an object");
    return n ? json_node_get_object(n) : NULL;
}

const char *fennel__mscclpp_string(FennelMscclppReader *r, JsonObject *o, const char *key,
                                   gboolean optional)
{
    JsonNode *n = member(r, o, key, optional, JSON_NODE_VALUE, "a string");
    if (n && json_node_get_value_type(n) != G_TYPE_STRING) {
        fennel__mscclpp_fail(r, o, "\"%s\": expected a string", key);
        return NULL;
    }
    return n ? json_node_get_string(n) : NULL;
}

JsonObject *fennel__mscclpp_element(FennelMscclppReader *r, JsonObject *parent, JsonArray *a,
                                    guint i, const char *what)
{
    JsonNode *n = json_array_get_element(a, i);
    if (JSON_NODE_TYPE(n) != JSON_NODE_OBJECT) {
        fennel__mscclpp_fail(r, parent, "%s %u: expected an object", what, i);
        return NULL;
    }
    return json_node_get_object(n);
}

gboolean fennel__mscclpp_int_element(FennelMscclppReader *r, JsonObject *parent, JsonArray *a,
                                     guint i, int64_t min, int64_t max, const char *what,
                                     int64_t *value)
{
    if (!whole(json_array_get_element(a, i), min, max, value))
        return fennel__mscclpp_fail(r, parent,
                                    "%s %u: expected a whole number from %" G_GINT64_FORMAT
                                    " to %" G_GINT64_FORMAT,
                                    what, i, min, max);
    return TRUE;
}

gboolean fennel__mscclpp_buffer(FennelMscclppReader *r, JsonObject *o, const char *key,
                                uint8_t *buf)
{
    const char *s = fennel__mscclpp_string(r, o, key, FALSE);
    if (s == NULL)
        return FALSE;
    const char *p = strchr("ios", s[0]);
    if (s[0] == '\0' || s[1] != '\0' || p == NULL)
        return fennel__mscclpp_fail(r, o, "\"%s\": \"%s\" is no buffer (i, o or s)", key, s);
    *buf = (uint8_t)(p - "ios");
    return TRUE;
}

/* json-glib says "<data>:LINE:COL: Parse error: WHAT"; fennel says FILE:LINE:COL: WHAT. */
static void syntax_error(const char *file, const char *data, gsize length, const GError *e,
                         GError **error)
{
    unsigned line = 0, col = 0;
    int used = 0;
    const char *m = e->message;
    if (sscanf(m, "<data>:%u:%u: %n", &line, &col, &used) == 2 && used > 0)
        m += used;
    if (g_str_has_prefix(m, "Parse error: "))
        m += strlen("Parse error: ");
    if (g_str_has_prefix(m, "scanner: "))
        m += strlen("scanner: ");
    /* At the end of a cut text json-glib names the last token it read; say what happened. */
    gsize at = 0;
    for (unsigned l = 1; l < line && at < length; at++)
        l += data[at] == '\n';
    at += col > 0 ? col - 1 : 0;
    while (at < length && !g_ascii_isspace(data[at]))
        at++;
    while (at < length && g_ascii_isspace(data[at]))
        at++;
    if (line > 0 && at >= length && g_str_has_prefix(m, "unexpected") &&
        strstr(m, "end of file") == NULL)
        m = "the text ends inside an object or array";
    /* json-glib quotes the text it stumbled on, whatever its bytes. */
    char *clean = fennel_message_clean(m);
    fennel_error_at(error, file, line, col, "%s", clean);
    g_free(clean);
}

/* Parses the text; the root object, or NULL with the error. */
JsonObject *fennel__mscclpp_load(FennelMscclppReader *r, JsonParser *parser, const char *data,
                                 gsize length)
{
    /* JSON is UTF-8, and messages quote the file's strings. */
    const char *bad;
    if (!g_utf8_validate(data, (gssize)length, &bad)) {
        unsigned line = 1, col = 1;
        for (const char *c = data; c < bad; c++, col++)
            if (*c == '\n')
                line++, col = 0;
        fennel_error_at(r->error, r->file, line, col, "not UTF-8 text (a NUL or an invalid byte)");
        return NULL;
    }
    uint32_t deep_line, deep_col;
    r->starts = scan_starts(data, length, &deep_line, &deep_col);
    if (deep_line > 0) {
        fennel_error_at(r->error, r->file, deep_line, deep_col,
                        "objects and arrays nested more than %d deep", MAX_DEPTH);
        return NULL;
    }
    r->where = g_hash_table_new(g_direct_hash, g_direct_equal);
    g_signal_connect(parser, "object-end", G_CALLBACK(on_object_end), r);
    GError *e = NULL;
    if (!json_parser_load_from_data(parser, data, (gssize)length, &e)) {
        syntax_error(r->file, data, length, e, r->error);
        g_error_free(e);
        return NULL;
    }
    JsonNode *root = json_parser_get_root(parser);
    if (root == NULL || JSON_NODE_TYPE(root) != JSON_NODE_OBJECT) {
        fennel_error_at(r->error, r->file, 1, 1, "an execution plan is a JSON object");
        return NULL;
    }
    return json_node_get_object(root);
}
