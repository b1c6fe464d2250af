/* Output files are written atomically: to a temporary file beside the target, then
 * renamed over it, so a failed run never leaves a half-written file (README, Commands). */
#ifndef FENNEL_OUTPUT_H
#define FENNEL_OUTPUT_H

#include <glib.h>

gboolean fennel_write_file(const char *path, const char *data, gsize length, GError **error);

/* Files written together (a run's --tasks, --trace, --timeline...): each is written to its
 * temporary file at once, and all are renamed into place by fennel_outputs_commit, or all
 * removed by fennel_outputs_abort, so that a failed run leaves none of them. SIGINT, SIGTERM
 * and SIGHUP wait from fennel_outputs_new until then. A device target (/dev/stdout) is
 * written at once, in place. fennel_outputs_write with a NULL set is fennel_write_file. */
typedef struct FennelOutputs FennelOutputs;
FennelOutputs *fennel_outputs_new(void);
gboolean fennel_outputs_write(FennelOutputs *o, const char *path, const char *data, gsize length,
                              GError **error);
gboolean fennel_outputs_commit(FennelOutputs *o, GError **error);
void fennel_outputs_abort(FennelOutputs *o);

#endif
