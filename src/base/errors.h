/* Error reporting for fennel: one GError domain, a few codes, and helpers that
 * format messages as "FILE:LINE:COL: what is wrong" (README, Commands). */
#ifndef FENNEL_ERRORS_H
#define FENNEL_ERRORS_H

#include <glib.h>

#define FENNEL_ERROR (fennel_error_quark())

typedef enum {
    FENNEL_ERROR_INPUT, /* a file or value is malformed or inconsistent: exit 1 */
    FENNEL_ERROR_RUN,   /* the simulation could not complete: exit 1 */
    FENNEL_ERROR_IO,    /* a file could not be read or written: exit 1 */
    FENNEL_ERROR_USAGE, /* the command line is wrong: exit 2 */
    FENNEL_ERROR_CUT,   /* a fault cut a message off, the program cannot finish: exit 1 */
} FennelErrorCode;

GQuark fennel_error_quark(void);

/* Sets an FENNEL_ERROR_INPUT error located at FILE:LINE:COL (1-based). A line of 0
 * omits the position, a NULL file omits the file. */
void fennel_error_at(GError **error, const char *file, unsigned line, unsigned col,
                     const char *format, ...) G_GNUC_PRINTF(5, 6);
/* The same with another code (a run that failed, say). error may be NULL. */
void fennel_error_at_code(GError **error, FennelErrorCode code, const char *file, unsigned line,
                          unsigned col, const char *format, ...) G_GNUC_PRINTF(6, 7);

/* Prefixes an existing error's message with "FILE:LINE:COL: ". */
void fennel_error_prefix_at(GError **error, const char *file, unsigned line, unsigned col);

/* A message made fit for one line of a terminal or log: valid UTF-8, control characters and
 * invalid bytes escaped (\n, \t, \xNN), cut after FENNEL_MESSAGE_MAX characters with an
 * ellipsis. g_free it. */
#define FENNEL_MESSAGE_MAX 1000
char *fennel_message_clean(const char *text);

/* The process exit status for an error: 2 for usage errors, 1 otherwise. */
int fennel_error_exit_status(const GError *error);

#endif
