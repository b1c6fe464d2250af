/* The careful half of the MSCCL++ reader (docs/FORMATS.md): json-glib parses any text and
 * reports every syntax error, a scan of the text gives every object its position, and the
 * document becomes the reader's tree (mscclpp_private.h). */
#include "mscclpp_private.h"

#include "capacity.h"
#include "errors.h"

#include <json-glib/json-glib.h>

#include <stdio.h>
#include <string.h>

/* json-glib keeps no positions in its nodes. It announces every object as it closes, in
 * the order the closing braces come, so one scan of the text that pairs braces gives the
 * k-th closed object its opening brace. */
/* json-glib descends recursively, so deep nesting would exhaust the stack; a plan needs
 * eight levels, and a pipeline's operations two more. */
#define MAX_DEPTH 64

/* What json-glib's document of a text will hold, counted by the scan below: values (one
 * more than the commas, and one for each container that is not empty), objects and
 * members (colons). Strings count by their bytes, which the text has already. */
typedef struct {
    uint64_t values, objects, members;
} Counts;

/* Bytes json-glib's document and the reader's tree take, measured with /usr/bin/time -f %M
 * on plans of 3 million numbers in an array (95 bytes a value), of a million one-member
 * objects and of 100 000 gpus (330 bytes an object, 100 a member beyond its value), with
 * a sixth more for what the shapes do not show (docs/RELIABILITY.md, Limits). */
#define DOC_BYTES_PER_VALUE  112
#define DOC_BYTES_PER_OBJECT 384
#define DOC_BYTES_PER_MEMBER 128

/* Also finds where the nesting first grows too deep (*deep_line 0 if nowhere) and counts
 * what the document will hold. */
static GArray *scan_starts(const char *data, gsize length, uint32_t *deep_line, uint32_t *deep_col,
                           Counts *n)
{
    guint depth = 0;
    *deep_line = *deep_col = 0;
    *n = (Counts){.values = 1};
    char last = 0; /* the last byte outside strings and blanks */
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
            continue;
        }
        if (g_ascii_isspace(c))
            continue;
        n->values += c == ',' || ((last == '[' || last == '{') && c != ']' && c != '}');
        n->objects += c == '{';
        n->members += c == ':';
        last = c;
        if (c == '"') {
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

typedef struct {
    GHashTable *where; /* JsonObject * -> index into starts, from 1 */
    GArray *starts;    /* uint32_t pairs: line, col of each object's '{', in closing order */
    guint closed;      /* objects closed so far while parsing */
    FennelMscclppTree *t;
} Careful;

static void on_object_end(JsonParser *parser, JsonObject *object, gpointer data)
{
    (void)parser;
    Careful *c = data;
    g_hash_table_insert(c->where, object, GUINT_TO_POINTER(c->closed + 1));
    c->closed++;
}

/* Fills node `at` from n, its children side by side after every node so far. Members keep
 * json-glib's meaning: one per name, the last value a repeated name had. */
static void convert(Careful *c, JsonNode *n, uint8_t key, uint32_t at)
{
    FennelMscclppTree *t = c->t;
    FennelMscclppNode x = {.key = key};
    GList *members = NULL;
    JsonArray *array = NULL;
    JsonObject *object = NULL;
    switch (JSON_NODE_TYPE(n)) {
    case JSON_NODE_OBJECT: {
        object = json_node_get_object(n);
        x.type = FENNEL_MSCCLPP_JOBJECT;
        guint k = GPOINTER_TO_UINT(g_hash_table_lookup(c->where, object));
        gboolean known = k > 0 && 2 * k <= c->starts->len;
        x.v.c.at = fennel__mscclpp_tree_where(
            t, known ? g_array_index(c->starts, uint32_t, 2 * (k - 1)) : 0,
            known ? g_array_index(c->starts, uint32_t, 2 * (k - 1) + 1) : 0);
        members = json_object_get_members(object);
        x.n = g_list_length(members);
        break;
    }
    case JSON_NODE_ARRAY:
        array = json_node_get_array(n);
        x.type = FENNEL_MSCCLPP_JARRAY;
        x.n = json_array_get_length(array);
        break;
    case JSON_NODE_NULL:
        x.type = FENNEL_MSCCLPP_JNULL;
        break;
    case JSON_NODE_VALUE:
        switch (json_node_get_value_type(n)) {
        case G_TYPE_INT64:
            x.type = FENNEL_MSCCLPP_JINT;
            x.v.i = json_node_get_int(n);
            break;
        case G_TYPE_BOOLEAN:
            x.type = json_node_get_boolean(n) ? FENNEL_MSCCLPP_JTRUE : FENNEL_MSCCLPP_JFALSE;
            break;
        case G_TYPE_STRING: {
            const char *s = json_node_get_string(n);
            x.type = FENNEL_MSCCLPP_JSTRING;
            x.v.str = (uint32_t)t->text->len;
            g_string_append_len(t->text, s, (gssize)strlen(s) + 1);
            break;
        }
        default:
            x.type = FENNEL_MSCCLPP_JDOUBLE;
            break;
        }
        break;
    }
    if (object || array)
        x.v.c.first = fennel__mscclpp_tree_nodes(t, x.n);
    t->nodes[at] = x;
    guint i = 0;
    for (GList *m = members; m; m = m->next, i++) {
        const char *name = m->data;
        convert(c, json_object_get_member(object, name),
                (uint8_t)fennel__mscclpp_key(name, strlen(name)), x.v.c.first + i);
    }
    for (i = 0; array && i < x.n; i++)
        convert(c, json_array_get_element(array, i), 0, x.v.c.first + i);
    g_list_free(members);
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

gboolean fennel__mscclpp_scan_careful(FennelMscclppTree *t, const char *file, const char *data,
                                      gsize length, GError **error)
{
    /* JSON is UTF-8, and messages quote the file's strings. */
    const char *bad;
    if (!g_utf8_validate(data, (gssize)length, &bad)) {
        unsigned line = 1, col = 1;
        for (const char *c = data; c < bad; c++, col++)
            if (*c == '\n')
                line++, col = 0;
        fennel_error_at(error, file, line, col, "not UTF-8 text (a NUL or an invalid byte)");
        return FALSE;
    }
    uint32_t deep_line, deep_col;
    Careful c = {.t = t};
    Counts n;
    c.starts = scan_starts(data, length, &deep_line, &deep_col, &n);
    if (deep_line > 0) {
        fennel_error_at(error, file, deep_line, deep_col,
                        "objects and arrays nested more than %d deep", MAX_DEPTH);
        g_array_unref(c.starts);
        return FALSE;
    }
    /* json-glib's document is many times the text (a plan of 100 000 gpus in 15 MB took
     * 200 MB), and held with the tree made from it: checked before it is made. */
    uint64_t need = n.values * DOC_BYTES_PER_VALUE + n.objects * DOC_BYTES_PER_OBJECT +
                    n.members * DOC_BYTES_PER_MEMBER;
    char *what =
        g_strdup_printf("the JSON document of %s (%" G_GUINT64_FORMAT " values)", file, n.values);
    gboolean fits = fennel_check_memory(NULL, need, what, error);
    g_free(what);
    if (!fits) {
        g_array_unref(c.starts);
        return FALSE;
    }
    c.where = g_hash_table_new(g_direct_hash, g_direct_equal);
    JsonParser *parser = json_parser_new_immutable();
    g_signal_connect(parser, "object-end", G_CALLBACK(on_object_end), &c);
    GError *e = NULL;
    gboolean ok = json_parser_load_from_data(parser, data, (gssize)length, &e);
    JsonNode *root = ok ? json_parser_get_root(parser) : NULL;
    if (!ok) {
        syntax_error(file, data, length, e, error);
        g_error_free(e);
    } else if (root == NULL || JSON_NODE_TYPE(root) != JSON_NODE_OBJECT) {
        fennel_error_at(error, file, 1, 1, "an execution plan is a JSON object");
        ok = FALSE;
    } else {
        t->root = fennel__mscclpp_tree_nodes(t, 1);
        convert(&c, root, FENNEL_MSCCLPP_KEY_OTHER, t->root);
    }
    g_object_unref(parser);
    g_hash_table_unref(c.where);
    g_array_unref(c.starts);
    return ok;
}
