/* The parts of two-sided matching (match.c) shared by its files. Functions are named
 * fennel__match_* (two underscores): internal to the module.
 *
 *   match.c        a rank's first entries in its slab and row, scanned; non-overtaking
 *   match_index.c  the hashed index that takes a rank's entries beyond those */
#ifndef FENNEL_MATCH_PRIVATE_H
#define FENNEL_MATCH_PRIVATE_H

#include "match.h"

#define NONE FENNEL_MATCH_NONE

typedef struct MatchIndex MatchIndex;

MatchIndex *fennel__match_index_new(void);
void fennel__match_index_free(MatchIndex *m);

/* As fennel_match_arrive and fennel_match_post, for the entries held in the index. */
uint32_t fennel__match_index_arrive(MatchIndex *m, uint32_t dst, uint32_t src, uint32_t tag,
                                    uint32_t msg);
uint32_t fennel__match_index_post(MatchIndex *m, uint32_t dst, uint32_t src, uint32_t tag,
                                  uint32_t recv);

/* Messages unexpected in the index. */
uint64_t fennel__match_index_unexpected(const MatchIndex *m);

#endif
