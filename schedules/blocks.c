#include "blocks.h"

#include "errors.h"

gboolean fennel_block_check_ranks(const char *name, const FennelGenOptions *o, GError **error)
{
    if (o->ranks < 1) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT, "%s needs --ranks >= 1", name);
        return FALSE;
    }
    return TRUE;
}
