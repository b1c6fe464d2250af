#include "yaml_reader.h"

#include "errors.h"
#include "input.h"

#include <string.h>

gboolean fennel_yaml_error(FennelYaml *y, GError **error, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    char *what = g_strdup_vprintf(format, args);
    va_end(args);
    fennel_error_at(error, y->file, fennel_yaml_line(y), fennel_yaml_col(y), "%s", what);
    g_free(what);
    return FALSE;
}

const char *fennel_yaml_describe(const FennelYaml *y)
{
    switch (y->event.type) {
    case YAML_SCALAR_EVENT:
        return "a scalar";
    case YAML_SEQUENCE_START_EVENT:
        return "a sequence";
    case YAML_MAPPING_START_EVENT:
        return "a mapping";
    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT:
        return "the end of a collection";
    case YAML_DOCUMENT_END_EVENT:
    case YAML_STREAM_END_EVENT:
        return "the end of the file";
    default:
        return "something else";
    }
}

gboolean fennel_yaml_next(FennelYaml *y, GError **error)
{
    if (y->has_event)
        yaml_event_delete(&y->event);
    y->has_event = FALSE;
    if (y->fast) {
        if (fennel_yaml_fast_next(&y->scan, &y->event))
            return TRUE;
        fennel_error_at(error, y->file, (unsigned)y->scan.line + 1,
                        (unsigned)(y->scan.p - y->scan.line_start) + 1,
                        "outside the shape the fast reader takes");
        return FALSE;
    }
    if (!yaml_parser_parse(&y->parser, &y->event)) {
        if (y->parser.error == YAML_READER_ERROR) {
            /* Encoding errors carry a byte offset, not a mark. */
            size_t offset = y->parser.problem_offset;
            /* A bad continuation byte: point at the character it continues. */
            gboolean trailing = strstr(y->parser.problem, "trailing") != NULL;
            for (int k = 0; trailing && k < 3 && offset > 0 && offset < y->length &&
                            ((unsigned char)y->contents[offset] & 0xc0) != 0xc0;
                 k++)
                offset--;
            if (offset < y->length && ((unsigned char)y->contents[offset] & 0xc0) != 0xc0)
                offset = y->parser.problem_offset;
            unsigned line = 1, col = 1;
            for (size_t i = 0; i < offset && i < y->length; i++) {
                if (y->contents[i] == '\n') {
                    line++;
                    col = 1;
                } else if (((unsigned char)y->contents[i] & 0xc0) != 0x80) {
                    col++;
                }
            }
            char *problem = g_ascii_strdown(y->parser.problem, -1);
            fennel_error_at(error, y->file, line, col, "the file is not UTF-8 text (%s)", problem);
            g_free(problem);
            return FALSE;
        }
        const yaml_mark_t *mark = y->parser.problem_mark.line || y->parser.problem_mark.column
                                      ? &y->parser.problem_mark
                                      : &y->parser.context_mark;
        char *problem = g_ascii_strdown(y->parser.problem ? y->parser.problem : "invalid YAML", -1);
        /* libyaml's complaint about a tab says nothing of tabs. */
        if (mark->index < y->length && y->contents[mark->index] == '\t') {
            g_free(problem);
            problem = g_strdup("a tab cannot indent YAML (use spaces)");
            fennel_error_at(error, y->file, (unsigned)mark->line + 1, (unsigned)mark->column + 1,
                            "%s", problem);
            g_free(problem);
            return FALSE;
        }
        if (y->parser.context)
            fennel_error_at(error, y->file, (unsigned)mark->line + 1, (unsigned)mark->column + 1,
                            "%s %s", problem, y->parser.context);
        else
            fennel_error_at(error, y->file, (unsigned)mark->line + 1, (unsigned)mark->column + 1,
                            "%s", problem);
        g_free(problem);
        return FALSE;
    }
    y->has_event = TRUE;
    if (y->event.type == YAML_ALIAS_EVENT)
        return fennel_yaml_error(y, error, "aliases are not supported");
    return TRUE;
}

/* Reads the first events up to the root node. */
static gboolean open_events(FennelYaml *y, GError **error)
{
    if (!fennel_yaml_next(y, error)) /* stream start */
        return FALSE;
    if (!fennel_yaml_next(y, error))
        return FALSE;
    if (y->event.type != YAML_DOCUMENT_START_EVENT) {
        fennel_error_at(error, y->file, 0, 0, "empty file");
        return FALSE;
    }
    return fennel_yaml_next(y, error);
}

static void set_text(FennelYaml *y, const char *name, char *data, gsize length, gboolean fast)
{
    memset(y, 0, sizeof *y);
    y->file = g_strdup(name);
    y->contents = data;
    y->length = length;
    y->fast = fast;
    if (fast) {
        fennel_yaml_fast_init(&y->scan, data, length);
        return;
    }
    yaml_parser_initialize(&y->parser);
    y->parser_ready = TRUE;
    yaml_parser_set_input_string(&y->parser, (const unsigned char *)y->contents, length);
}

gboolean fennel_yaml_open_text(FennelYaml *y, const char *name, const char *data, gsize length,
                               gboolean fast, GError **error)
{
    set_text(y, name, (char *)data, length, fast);
    y->borrowed = TRUE;
    return open_events(y, error);
}

gboolean fennel_yaml_open_data(FennelYaml *y, const char *name, const char *data, gsize length,
                               GError **error)
{
    char *copy = g_malloc(length + 1);
    memcpy(copy, data, length);
    copy[length] = '\0';
    set_text(y, name, copy, length, FALSE);
    return open_events(y, error);
}

/* Reads FILE into *data (g_free it), refusing binary data. */
static gboolean load(const char *file, char **data, gsize *length, GError **error)
{
    if (!fennel_read_input(file, data, length, error))
        return FALSE;
    if (memchr(*data, '\0', *length) != NULL) {
        g_free(*data);
        *data = NULL;
        fennel_error_at(error, file, 0, 0, "binary data (a NUL byte) in a text file");
        return FALSE;
    }
    return TRUE;
}

gboolean fennel_yaml_open(FennelYaml *y, const char *file, GError **error)
{
    char *data;
    gsize length;
    if (!load(file, &data, &length, error)) {
        memset(y, 0, sizeof *y);
        y->file = g_strdup(file);
        return FALSE;
    }
    set_text(y, file, data, length, FALSE);
    return open_events(y, error);
}

void fennel_yaml_close(FennelYaml *y)
{
    if (y->has_event)
        yaml_event_delete(&y->event);
    y->has_event = FALSE;
    if (y->parser_ready)
        yaml_parser_delete(&y->parser);
    y->parser_ready = FALSE;
    if (y->fast)
        fennel_yaml_fast_clear(&y->scan);
    g_free(y->file);
    if (!y->borrowed)
        g_free(y->contents);
    y->file = NULL;
    y->contents = NULL;
}

gboolean fennel_yaml_skip(FennelYaml *y, GError **error)
{
    int depth = 0;
    do {
        switch (y->event.type) {
        case YAML_SEQUENCE_START_EVENT:
        case YAML_MAPPING_START_EVENT:
            depth++;
            break;
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT:
            depth--;
            break;
        default:
            break;
        }
        if (!fennel_yaml_next(y, error))
            return FALSE;
    } while (depth > 0);
    return TRUE;
}

gboolean fennel_yaml_finish(FennelYaml *y, GError **error)
{
    if (y->event.type != YAML_DOCUMENT_END_EVENT)
        return fennel_yaml_error(y, error, "unexpected content after the document");
    if (!fennel_yaml_next(y, error))
        return FALSE;
    if (y->event.type != YAML_STREAM_END_EVENT)
        return fennel_yaml_error(y, error, "only one document per file is allowed");
    return TRUE;
}
