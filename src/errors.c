#include "errors.h"

G_DEFINE_QUARK(fennel - error - quark, fennel_error)

static char *location(const char *file, unsigned line, unsigned col)
{
    if (file == NULL)
        return line ? g_strdup_printf("%u:%u: ", line, col) : g_strdup("");
    if (line == 0)
        return g_strdup_printf("%s: ", file);
    return g_strdup_printf("%s:%u:%u: ", file, line, col);
}

void fennel_error_at(GError **error, const char *file, unsigned line, unsigned col,
                     const char *format, ...)
{
    if (error == NULL)
        return;
    va_list args;
    va_start(args, format);
    char *what = g_strdup_vprintf(format, args);
    va_end(args);
    char *where = location(file, line, col);
    g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT, "%s%s", where, what);
    g_free(where);
    g_free(what);
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
