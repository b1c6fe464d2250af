/* The symbolic values of the collective checker (verify.c). A value is what one block of
 * the data vector holds on a rank: nothing, one rank's own contribution (a leaf), or a
 * combination of other values (a node). Nodes are hash-consed on their canonically
 * ordered operands, so two ranks that combined the same contributions in the same
 * bracketing hold the same value id, and comparing bracketings is comparing ids.
 *
 * Each value also stores the set of ranks that contributed to it, as a sorted list of
 * maximal rank ranges. The schedules the checker sees build sets that are one or two
 * intervals (blocks of a butterfly, a ring segment, a subtree), so the usual set is a
 * few words however many ranks there are. */
#ifndef FENNEL_VERIFY_VALUES_H
#define FENNEL_VERIFY_VALUES_H

#include <glib.h>
#include <stdint.h>

typedef struct FennelValues FennelValues;

/* The empty value: no contribution at all. */
#define FENNEL_VALUE_EMPTY 0u

/* A store for the values of a program of `ranks` ranks; it starts with one leaf per
 * rank. */
FennelValues *fennel_values_new(uint32_t ranks);
void fennel_values_free(FennelValues *v);

/* The value of rank r's own contribution. */
static inline uint32_t fennel_value_leaf(uint32_t rank)
{
    return rank + 1;
}

/* Values created so far, leaves included. */
uint32_t fennel_values_size(const FennelValues *v);

/* What a combination did. */
typedef struct {
    gboolean reduced; /* two or more disjoint partial results were combined into a node */
    gboolean overlap; /* two operands share contributions that neither subsumes */
    uint32_t overlap_a, overlap_b; /* such a pair, for the message */
} FennelCombineInfo;

/* Merges n versions of one rank's data (from several predecessors on the rank):
 * empty versions and repeats are dropped, a version whose contributions are all in
 * another is an older one and is dropped too, and whatever is left (versions with
 * disjoint contributions) is combined in one step. ops is scratch and is reordered. */
uint32_t fennel_values_merge(FennelValues *v, uint32_t *ops, uint32_t n, FennelCombineInfo *info);

/* Receives n values into a rank's `local` value. Empty values and values equal to one
 * already there are dropped. A received value that contains every contribution of
 * `local` replaces it (the copy of a larger result); a received value whose
 * contributions the rank already holds, or that another received value contains, would
 * count them twice (info->overlap). What is left, pairwise disjoint, is combined in one
 * step into a node whose operands are ordered by their lowest contributing rank (the
 * canonical order an implementation uses so that all ranks combine alike). ops needs
 * room for n + 1 values and is reordered. */
uint32_t fennel_values_receive(FennelValues *v, uint32_t local, uint32_t *ops, uint32_t n,
                               FennelCombineInfo *info);

/* The number of ranks that contributed to a value. */
uint32_t fennel_values_count(const FennelValues *v, uint32_t value);

/* Appends the ranks of lo..hi that did not contribute to the value, as "0, 2-5"; FALSE
 * (and nothing appended) when none is missing. */
gboolean fennel_values_append_missing(const FennelValues *v, uint32_t value, uint32_t lo,
                                      uint32_t hi, GString *out);

/* Appends the ranks that contributed to both values, as "0, 2-5". */
void fennel_values_append_common(const FennelValues *v, uint32_t a, uint32_t b, GString *out);

/* Appends the value's bracketing, e.g. "((0+1)+(2+3))", cut short with "..." after
 * about `limit` characters. */
void fennel_values_append_tree(const FennelValues *v, uint32_t value, gsize limit, GString *out);

#endif
