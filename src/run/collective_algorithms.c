/* Collectives of imported traces, performed by fennel's generators
 * (collective_algorithms.h). */
#include "collective_algorithms.h"

#include "errors.h"
#include "generator.h"
#include "options.h"

#include <string.h>

/* Rings for the bandwidth-bound collectives (what NCCL runs), binomial trees for the
 * rooted ones, pairwise exchange for all-to-all. */
static const char *const defaults[FENNEL_CHAKRA_N_COLLECTIVES] = {
    "allreduce-ring",      /* all_reduce */
    "reduce-binomial",     /* reduce */
    "allgather-ring",      /* all_gather */
    "gather-binomial",     /* gather */
    "scatter-binomial",    /* scatter */
    "bcast-binomial",      /* broadcast */
    "alltoall-pairwise",   /* all_to_all */
    "reduce-scatter-ring", /* reduce_scatter */
    "reduce-scatter-ring", /* reduce_scatter_block */
    "barrier-dissemination",
};

/* What a generator must perform to stand for each kind, as FennelGenerator.collective
 * says; all-to-all also by the generators named so that name none (they are not all
 * checked by fennel verify). */
enum { ALL_TO_ALL = 6 };
static const char *const performs[FENNEL_CHAKRA_N_COLLECTIVES] = {
    "allreduce", "reduce",   "allgather",      "gather",         "scatter",
    "bcast",     "alltoall", "reduce-scatter", "reduce-scatter", "barrier",
};

static gboolean stands_for(const FennelGenerator *g, int kind)
{
    if (kind == ALL_TO_ALL && g->collective == NULL)
        return g_str_has_prefix(g->name, "alltoall");
    return g->collective != NULL && strcmp(g->collective, performs[kind]) == 0;
}

gboolean fennel_collective_algorithms_parse(const char *text, FennelCollectiveAlgorithms *a,
                                            char **storage, GError **error)
{
    for (int k = 0; k < FENNEL_CHAKRA_N_COLLECTIVES; k++)
        a->generator[k] = defaults[k];
    *storage = NULL;
    if (text == NULL)
        return TRUE;
    *storage = g_strdup(text);
    for (char *item = *storage, *next; item; item = next) {
        next = strchr(item, ',');
        if (next)
            *next++ = '\0';
        char *eq = strchr(item, '=');
        int kind = -1;
        if (eq) {
            *eq = '\0';
            for (int k = 0; k < FENNEL_CHAKRA_N_COLLECTIVES; k++)
                if (strcmp(item, fennel_chakra_collective_name(k)) == 0)
                    kind = k;
        }
        if (kind < 0) {
            g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE,
                        "--collective-algorithm %s: expected KIND=GENERATOR, KIND one of "
                        "all_reduce, reduce, all_gather, gather, scatter, broadcast, all_to_all, "
                        "reduce_scatter, reduce_scatter_block, barrier",
                        item);
            g_clear_pointer(storage, g_free);
            return FALSE;
        }
        const FennelGenerator *g = fennel_generator_find(eq + 1);
        if (g == NULL) {
            g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE,
                        "--collective-algorithm %s=%s: no generator of that name ('fennel list' "
                        "names them)",
                        item, eq + 1);
            g_clear_pointer(storage, g_free);
            return FALSE;
        }
        if (!stands_for(g, kind)) {
            const char *what = g->collective               ? g->collective
                               : stands_for(g, ALL_TO_ALL) ? "alltoall"
                                                           : "no collective";
            g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE,
                        "--collective-algorithm %s=%s: %s performs %s, not %s", item, eq + 1,
                        eq + 1, what, item);
            g_clear_pointer(storage, g_free);
            return FALSE;
        }
        a->generator[kind] = eq + 1;
    }
    return TRUE;
}

FennelProgram *fennel_collective_algorithms_expand(void *algorithms, int64_t kind, int64_t bytes,
                                                   uint32_t ranks, GError **error)
{
    const FennelCollectiveAlgorithms *a = algorithms;
    const char *name = a->generator[kind];
    if (name == NULL) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                    "%s: no generator performs it by default; name one with "
                    "--collective-algorithm %s=GENERATOR",
                    fennel_chakra_collective_name(kind), fennel_chakra_collective_name(kind));
        return NULL;
    }
    /* ASTRA-sim's all-to-all (its Ring, system/collective/Ring.cc) sends comm_size / p,
     * rounded down, to each peer; fennel's alltoall generators take what goes to each peer. */
    if (kind == ALL_TO_ALL && ranks > 0)
        bytes /= ranks;
    char r[16], s[32];
    g_snprintf(r, sizeof r, "%u", ranks);
    g_snprintf(s, sizeof s, "%" G_GINT64_FORMAT, bytes);
    FennelGenTextOptions o = {.ranks = r, .size = s};
    const FennelGenerator *g = fennel_generator_find(name);
    if (g && !(g->options & FENNEL_GEN_RANKS))
        o.ranks = NULL;
    FennelProgram *p = fennel_gen_text_generate(name, &o, 0, error);
    if (p == NULL)
        g_prefix_error(error, "%s by %s: ", fennel_chakra_collective_name(kind), name);
    return p;
}
