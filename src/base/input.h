/* Reading input files (programs, models, noise samples) with one-line errors in fennel's
 * style ("FILE: cannot read: no such file or directory"). Regular files are read whole;
 * a directory is refused; a pipe or device is read up to FENNEL_INPUT_MAX bytes, so that
 * `fennel run /dev/stdin` works and `/dev/zero` fails instead of exhausting memory. */
#ifndef FENNEL_INPUT_H
#define FENNEL_INPUT_H

#include <glib.h>
#include <string.h>

#define FENNEL_INPUT_MAX ((gsize)1 << 30) /* a pipe or device */
#define FENNEL_FILE_MAX  ((gsize)8 << 30) /* a regular file, whose size is known first */

/* Reads the file into *data (NUL-terminated after *length bytes; g_free it). Errors are
 * FENNEL_ERROR_IO and name the file. */
gboolean fennel_read_input(const char *path, char **data, gsize *length, GError **error);

/* The file's text, which stays valid while the bytes are referenced: a regular file is
 * mapped (nothing is copied, and its pages are the system's page cache), anything else is
 * read as fennel_read_input() reads it. Either way the byte after the text is a NUL, as
 * readers require. *mapped says which. The file must not change while it is mapped. */
GBytes *fennel_map_input(const char *path, gboolean *mapped, GError **error);

/* Gives back the pages of a mapped text (fennel_map_input() said *mapped) that lie wholly
 * within [from, to): they leave the process's memory but stay in the page cache, and are
 * mapped again from it when touched. A reader that passed them calls it to keep the text
 * it holds at any time small. */
void fennel_input_release(const char *data, gsize from, gsize to);

/* Steps over a UTF-8 byte-order mark at the start of a text, which editors on Windows
 * write and which says nothing more than "UTF-8"; for the readers that tell their format
 * by its first characters (MSCCL XML, MSCCL++ JSON). Positions count from after it, as an
 * editor shows them. */
static inline void fennel_input_skip_bom(const char **data, gsize *length)
{
    if (*length >= 3 && memcmp(*data, "\xef\xbb\xbf", 3) == 0) {
        *data += 3;
        *length -= 3;
    }
}

#endif
