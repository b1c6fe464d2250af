#include "errors.h"

#include <string.h>

G_DEFINE_QUARK(fennel - error - quark, fennel_error)

static char *location(const char *file, unsigned line, unsigned col)
{
    if (file == NULL)
        return line ? g_strdup_printf("%u:%u: ", line, col) : g_strdup("");
    if (line == 0)
        return g_strdup_printf("%s: ", file);
    return g_strdup_printf("%s:%u:%u: ", file, line, col);
}

/* Messages quote the user's text, which may hold line breaks and other control
 * characters (a quoted YAML scalar can); escaped, every error stays one line. */
static char *escape_controls(char *text)
{
    gboolean clean = TRUE;
    for (const char *c = text; *c && clean; c++)
        clean = (unsigned char)*c >= 0x20 && *c != 0x7f;
    if (clean)
        return text;
    GString *out = g_string_new(NULL);
    for (const unsigned char *c = (const unsigned char *)text; *c; c++) {
        if (*c == '\n')
            g_string_append(out, "\\n");
        else if (*c == '\t')
            g_string_append(out, "\\t");
        else if (*c == '\r')
            g_string_append(out, "\\r");
        else if (*c < 0x20 || *c == 0x7f)
            g_string_append_printf(out, "\\x%02x", *c);
        else
            g_string_append_c(out, (char)*c);
    }
    g_free(text);
    return g_string_free(out, FALSE);
}

static void error_at_va(GError **error, FennelErrorCode code, const char *file, unsigned line,
                        unsigned col, const char *format, va_list args)
{
    if (error == NULL)
        return;
    char *what = escape_controls(g_strdup_vprintf(format, args));
    char *where = location(file, line, col);
    g_set_error(error, FENNEL_ERROR, code, "%s%s", where, what);
    g_free(where);
    g_free(what);
}

void fennel_error_at(GError **error, const char *file, unsigned line, unsigned col,
                     const char *format, ...)
{
    va_list args;
    va_start(args, format);
    error_at_va(error, FENNEL_ERROR_INPUT, file, line, col, format, args);
    va_end(args);
}

void fennel_error_at_code(GError **error, FennelErrorCode code, const char *file, unsigned line,
                          unsigned col, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    error_at_va(error, code, file, line, col, format, args);
    va_end(args);
}

void fennel_error_prefix_at(GError **error, const char *file, unsigned line, unsigned col)
{
    if (error == NULL || *error == NULL)
        return;
    char *where = location(file, line, col);
    g_prefix_error(error, "%s", where);
    g_free(where);
}

int fennel_error_exit_status(const GError *error)
{
    if (error != NULL && error->domain == FENNEL_ERROR && error->code == FENNEL_ERROR_USAGE)
        return 2;
    return 1;
}

char *fennel_message_clean(const char *text)
{
    GString *out = g_string_new(NULL);
    const char *p = text, *end = text + strlen(text);
    unsigned chars = 0;
    while (p < end) {
        if (chars == FENNEL_MESSAGE_MAX) {
            g_string_append(out, "\xe2\x80\xa6"); /* an ellipsis */
            break;
        }
        gunichar c = g_utf8_get_char_validated(p, end - p);
        if (c == (gunichar)-1 || c == (gunichar)-2) {
            g_string_append_printf(out, "\\x%02x", (unsigned char)*p);
            p++;
        } else {
            const char *next = g_utf8_next_char(p);
            if (c == '\n')
                g_string_append(out, "\\n");
            else if (c == '\t')
                g_string_append(out, "\\t");
            else if (c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0))
                g_string_append_printf(out, "\\x%02x", (unsigned)c);
            else
                g_string_append_len(out, p, next - p);
            p = next;
        }
        chars++;
    }
    return g_string_free(out, FALSE);
}
