/* The two GOAL dialects (README, Program files): LogGOPSim's (`num_ranks`, send/recv/calc) and the
 * original Fennel's (start/put/compute/sleep with `lA > lB` dependencies). */
#ifndef FENNEL_GOAL_READERS_H
#define FENNEL_GOAL_READERS_H

#include "map.h"
#include "program.h"

/* GOAL tags are numbers of any size to txt2bin, and the ATLAHS generators for NCCL write
 * tags of 10 to 20 digits (an index, channel, sequence number, kind and communicator,
 * concatenated). fennel's tags are 32 bits: tags below 2^31 are kept, larger ones are
 * numbered from 2^31 in the order they first appear, so that distinct tags stay distinct
 * (docs/FORMATS.md, ATLAHS). Both halves of the reader number them alike. */
/* The fewest bytes a LogGOPSim rank block takes, `rank 0{}`: every rank of `num_ranks` has
 * one after it, so the rest of the file bounds the count (docs/RELIABILITY.md, Limits). */
#define FENNEL_GOAL_MIN_BLOCK 8

#define FENNEL_GOAL_TAG_MAPPED (UINT32_C(1) << 31)
#define FENNEL_GOAL_TAG_MAX    UINT64_MAX
typedef struct {
    FennelMap map;
    uint32_t next; /* the next number to hand out; 0 before the first */
} FennelGoalTags;
/* The 32-bit tag of `tag`; FALSE when the numbers ran out (2^31 - 2 large tags). */
gboolean fennel__goal_tag(FennelGoalTags *t, uint64_t tag, uint32_t *out);
void fennel__goal_tags_clear(FennelGoalTags *t);

/* Whether the text is LogGOPSim GOAL: its first statement is `num_ranks`. */
gboolean fennel_goal_is_loggopsim(const char *data, gsize length);

/* Each reads within `limits` (capacity.h; NULL: the defaults). data[length] must be a NUL,
 * as fennel_read_input() leaves it: the scanners stop there without a bound check. */
FennelProgram *fennel_goal_parse_loggopsim(const char *name, const char *data, gsize length,
                                           const FennelLimits *limits, GError **error);
/* The two halves of fennel_goal_parse_loggopsim: the fast path for plain files, which
 * returns NULL without an error when it declines the file (goal_fast.c), and the careful
 * reader, which reads any file and reports every error (goal_loggopsim.c). */
FennelProgram *fennel__goal_fast_read(const char *name, const char *data, gsize length,
                                      const FennelLimits *limits, GError **error);
/* The fast path on a text the program may keep: `text` holds the file's `length` bytes and
 * a NUL. The program refers to it for its task names, made when first asked for (program.h),
 * instead of a string per task. `mapped`: the text is a mapping of the file
 * (fennel_map_input()), whose pages the scan gives back behind it. */
FennelProgram *fennel__goal_fast_read_text(const char *name, GBytes *text, gsize length,
                                           gboolean mapped, const FennelLimits *limits,
                                           GError **error);
/* Files of at least `length` bytes are read by the fast path in two halves at once when
 * the machine has two processors (16 MiB unless set; tests set it lower, and then on any
 * machine). */
void fennel__goal_fast_set_split(gsize length);
FennelProgram *fennel__goal_careful_read(const char *name, const char *data, gsize length,
                                         const FennelLimits *limits, GError **error);
FennelProgram *fennel_goal_parse_fennel(const char *name, const char *data, gsize length,
                                        const FennelLimits *limits, GError **error);

#endif
