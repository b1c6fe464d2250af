/* Two-sided message matching (docs/SEMANTICS.md): per receiving rank, posted receives and
 * unexpected messages, matched by (source, tag) with wildcards, oldest first, so that
 * messages between a pair match in order (MPI's non-overtaking rule), and per pair of
 * ranks the latest arrival of a send, so that a send never overtakes an earlier one. A
 * rank's first entries are scanned in a few cache lines of its own; beyond them every
 * look-up is O(1) (see match.c). */
#ifndef FENNEL_MATCH_H
#define FENNEL_MATCH_H

#include "map.h"

#include <glib.h>
#include <stdint.h>

#define FENNEL_MATCH_NONE UINT32_MAX

typedef struct FennelMatch FennelMatch;

/* Matching for ranks 0 .. ranks - 1. */
FennelMatch *fennel_match_new(uint32_t ranks);
void fennel_match_free(FennelMatch *m);

/* A message `msg` from src with tag arrived at rank dst. Returns the receive it
 * matches (the one posted first among those that accept it), which is removed, or
 * FENNEL_MATCH_NONE after recording the message as unexpected. */
uint32_t fennel_match_arrive(FennelMatch *m, uint32_t dst, uint32_t src, uint32_t tag,
                             uint32_t msg);

/* A receive `recv` for (src or FENNEL_ANY, tag or FENNEL_ANY) is posted at rank dst.
 * Returns the unexpected message it matches (the oldest that it accepts), which is
 * removed, or FENNEL_MATCH_NONE after recording the receive as posted. */
uint32_t fennel_match_post(FennelMatch *m, uint32_t dst, uint32_t src, uint32_t tag, uint32_t recv);

/* Non-overtaking: a send from src to dst that would arrive at `arrival` arrives no
 * earlier than the previous send between them; returns its arrival, now the pair's latest. */
int64_t fennel_match_channel(FennelMatch *m, uint32_t src, uint32_t dst, int64_t arrival);

/* Messages still unexpected (for the report of a run that did not finish). */
uint64_t fennel_match_unexpected(const FennelMatch *m);

#endif
