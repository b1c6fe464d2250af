/* Output files are written atomically: to a temporary file beside the target, then
 * renamed over it, so a failed run never leaves a half-written file (README, Commands). */
#ifndef FENNEL_OUTPUT_H
#define FENNEL_OUTPUT_H

#include <glib.h>

gboolean fennel_write_file(const char *path, const char *data, gsize length, GError **error);

#endif
