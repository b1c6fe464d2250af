/* Slow ranks and failing links (docs/TOPOLOGY.md, Stragglers and faults). The model file's
 * `stragglers:` and `faults:` sections, and `--set stragglers.KEY=...`, `--set
 * faults.KEY=...`, are descriptions: which ranks are slow and which links fail is decided
 * for a run (src/core/engine_faults.c), once the machine's rank count, its network and the
 * seed are known, so that the same description draws other ranks and links under another
 * seed. Factors and fractions are decimals of at most six places, kept exactly in
 * millionths. */
#ifndef FENNEL_FAULTS_H
#define FENNEL_FAULTS_H

#include "units.h"

#define FENNEL_MILLION ((int64_t)1000000)

/* Slow ranks: the listed ones, or round(fraction x ranks) of them drawn by the seed; each
 * with a compute factor (its computes take that many times as long) and a NIC factor (its
 * NIC takes that many times as long per byte). A factor list has one factor for all ranks
 * or one per listed rank; 1 (one million millionths) is not slow. */
typedef struct {
    uint32_t *ranks; /* `ranks`, or NULL */
    uint32_t n_ranks;
    int64_t fraction; /* `fraction` in millionths, or -1 when not given */
    int64_t *compute, *nic;
    uint32_t n_compute, n_nic;
    /* Where the section was written (NULL file: --set), for errors found at run time. */
    char *file;
    unsigned line, col;
} FennelStragglers;

/* One fault as written: a link (its number or FROM>TO, vertex names as `--links` gives
 * them) or a node's NIC (`nodeN`: its links to and from the network), down (bandwidth 0)
 * or keeping a fraction of its bandwidth, from a time on. */
typedef struct {
    char *where;
    FennelTime from;
    int64_t bandwidth; /* millionths of its bandwidth it keeps; 0: down */
} FennelFaultSpec;

/* Faults: the listed ones, and fractions of the links (between switches or routers) and of
 * the NICs drawn by the seed, which fail from `from` keeping `bandwidth`. */
typedef struct {
    FennelFaultSpec *list;
    uint32_t n_list;
    int64_t links, nics; /* fractions, in millionths */
    FennelTime from;
    int64_t bandwidth;
    char *file;
    unsigned line, col;
} FennelFaults;

FennelStragglers *fennel_stragglers_new(void);
FennelStragglers *fennel_stragglers_copy(const FennelStragglers *s);
void fennel_stragglers_free(FennelStragglers *s);
/* Sets one key: ranks ("3 7", "3,7" or "[3, 7]"; "none" clears), fraction, compute, nic
 * (a factor, or one per listed rank). `ranks` and `fraction` replace each other. FALSE with
 * *why (to g_free) on an unknown key (*unknown_key) or a bad value. */
gboolean fennel_stragglers_set(FennelStragglers *s, const char *key, const char *value,
                               gboolean *unknown_key, char **why);
/* What is wrong with the description as a whole, or NULL (g_free it). */
char *fennel_stragglers_problem(const FennelStragglers *s);
/* Whether it makes any rank slow at all (ranks or a fraction above 0). */
gboolean fennel_stragglers_any(const FennelStragglers *s);
/* "ranks=3,7 compute=2 nic=4"; g_free it. */
char *fennel_stragglers_describe(const FennelStragglers *s);
void fennel_stragglers_append_json(const FennelStragglers *s, GString *out);
/* The compute and NIC factors of the listed rank at index i (or of every drawn rank). */
int64_t fennel_stragglers_compute(const FennelStragglers *s, uint32_t i);
int64_t fennel_stragglers_nic(const FennelStragglers *s, uint32_t i);

FennelFaults *fennel_faults_new(void);
FennelFaults *fennel_faults_copy(const FennelFaults *f);
void fennel_faults_free(FennelFaults *f);
/* Sets one key: list ("WHERE [from TIME] [bandwidth FACTOR]; ..."; "none" clears), links,
 * nics (fractions), from (a duration), bandwidth (a factor from 0 to 1). */
gboolean fennel_faults_set(FennelFaults *f, const char *key, const char *value,
                           gboolean *unknown_key, char **why);
/* Whether it makes any link fail (a listed fault, or a fraction above 0). */
gboolean fennel_faults_any(const FennelFaults *f);
char *fennel_faults_describe(const FennelFaults *f);
void fennel_faults_append_json(const FennelFaults *f, GString *out);

/* "2", "1.5", "0.000001": millionths as a decimal without trailing zeros. */
char *fennel_format_millionths(int64_t v, char buf[32]);

/* k distinct numbers of 0 .. n-1 (k <= n) drawn by the seed for `stream`, in increasing
 * order: a pure function of its arguments (Floyd's algorithm on splitmix64). */
void fennel_draw(uint64_t seed, uint64_t stream, uint32_t k, uint32_t n, uint32_t *out);

/* round(fraction x n), halves up, of a fraction in millionths. */
static inline uint32_t fennel_fraction_of(int64_t fraction, uint32_t n)
{
    return (uint32_t)(((__int128)n * fraction + FENNEL_MILLION / 2) / FENNEL_MILLION);
}

/* v x factor, a factor in millionths, rounded to the nearest unit (halves up), saturating at
 * INT64_MAX. */
static inline int64_t fennel_times_millionths(int64_t v, int64_t factor)
{
    __int128 x = ((__int128)v * factor + FENNEL_MILLION / 2) / FENNEL_MILLION;
    return x > (__int128)INT64_MAX ? INT64_MAX : (int64_t)x;
}

#endif
