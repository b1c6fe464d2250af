/* The two GOAL dialects (README, Program files): LogGOPSim's (`num_ranks`, send/recv/calc) and the
 * original Fennel's (start/put/compute/sleep with `lA > lB` dependencies). */
#ifndef FENNEL_GOAL_READERS_H
#define FENNEL_GOAL_READERS_H

#include "program.h"

/* Whether the text is LogGOPSim GOAL: its first statement is `num_ranks`. */
gboolean fennel_goal_is_loggopsim(const char *data, gsize length);

/* Each reads within `limits` (capacity.h; NULL: the defaults). */
FennelProgram *fennel_goal_parse_loggopsim(const char *name, const char *data, gsize length,
                                           const FennelLimits *limits, GError **error);
/* The two halves of fennel_goal_parse_loggopsim: the fast path for plain files, which
 * returns NULL without an error when it declines the file (goal_fast.c), and the careful
 * reader, which reads any file and reports every error (goal_loggopsim.c). */
FennelProgram *fennel__goal_fast_read(const char *name, const char *data, gsize length,
                                      const FennelLimits *limits, GError **error);
FennelProgram *fennel__goal_careful_read(const char *name, const char *data, gsize length,
                                         const FennelLimits *limits, GError **error);
FennelProgram *fennel_goal_parse_fennel(const char *name, const char *data, gsize length,
                                        const FennelLimits *limits, GError **error);

#endif
