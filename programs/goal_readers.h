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
FennelProgram *fennel_goal_parse_fennel(const char *name, const char *data, gsize length,
                                        const FennelLimits *limits, GError **error);

#endif
