/* Reading input files (programs, models, noise samples) with one-line errors in fennel's
 * style ("FILE: cannot read: no such file or directory"). Regular files are read whole;
 * a directory is refused; a pipe or device is read up to FENNEL_INPUT_MAX bytes, so that
 * `fennel run /dev/stdin` works and `/dev/zero` fails instead of exhausting memory. */
#ifndef FENNEL_INPUT_H
#define FENNEL_INPUT_H

#include <glib.h>

#define FENNEL_INPUT_MAX ((gsize)1 << 30) /* a pipe or device */
#define FENNEL_FILE_MAX  ((gsize)8 << 30) /* a regular file, whose size is known first */

/* Reads the file into *data (NUL-terminated after *length bytes; g_free it). Errors are
 * FENNEL_ERROR_IO and name the file. */
gboolean fennel_read_input(const char *path, char **data, gsize *length, GError **error);

#endif
