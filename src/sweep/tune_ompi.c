/* The Open MPI coll_tuned dynamic rules file of a tune (tune.h; docs/TUNING.md).
 *
 * The classic format, as Open MPI 3.x to 5.x read it (coll_tuned_dynamic_file.c): whole
 * numbers separated by white space, '#' starting a comment to the end of its line. The
 * number of collectives; for each, its id (COLLTYPE in coll_base_functions.h) and the
 * number of communicator sizes; for each, the size and the number of message sizes; for
 * each, "msg_size algorithm faninout segsize". Open MPI takes the last communicator rule
 * whose size is at most the communicator's (the first when all are larger), and in it the
 * last message rule whose size is at most the call's; the first message rule must be for
 * size 0. */
#include "tune.h"

#include "errors.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The collectives Open MPI's rules can name, with their COLLTYPE ids (the same in 3.x, 4.x
 * and 5.x), and how Open MPI sizes a call's message: the whole buffer (datatype size x
 * count) for allreduce, bcast, reduce and reduce-scatter (the sum of the receive counts),
 * the block times the communicator size for allgather, and 0 for barrier. fennel's --size
 * is the whole buffer of the first four and the block per rank of allgather. */
static const struct {
    const char *collective;
    int id;
} collectives[] = {
    {"allgather", 0}, {"allreduce", 2}, {"barrier", 6},
    {"bcast", 7},     {"reduce", 11},   {"reduce-scatter", 12},
};

/* fennel's generators with an Open MPI counterpart: the algorithm numbers of
 * coll_tuned_*_decision.c (stable since they were added). Segment size 0 means no
 * segmentation, which is what fennel's generators do. */
enum {
    ANY_RANKS = 0,
    POWER_OF_TWO = 1, /* Open MPI falls back to another algorithm for other rank counts */
};

static const struct {
    const char *generator;
    int algorithm;
    const char *ompi_name;
    int radix; /* the generator's --radix that matches, or 0 for any */
    unsigned ranks;
} counterparts[] = {
    {"allreduce-rd", 3, "recursive_doubling", 0, ANY_RANKS},
    {"allreduce-ring", 4, "ring", 0, ANY_RANKS},
    {"allreduce-rabenseifner", 6, "rabenseifner", 0, ANY_RANKS},
    {"bcast-ring", 3, "pipeline", 0, ANY_RANKS},
    {"bcast-binary", 5, "binary_tree", 0, ANY_RANKS},
    {"bcast-binomial", 6, "binomial", 0, ANY_RANKS},
    /* Open MPI's k-nomial radix is the MCA parameter coll_tuned_bcast_algorithm_knomial_radix,
     * 4 unless set, not a field of the rule. */
    {"bcast-knomial", 7, "knomial", 4, ANY_RANKS},
    {"bcast-scatter-allgather", 9, "scatter_allgather_ring", 0, ANY_RANKS},
    {"allgather-bruck", 2, "bruck", 0, ANY_RANKS},
    {"allgather-rd", 3, "recursive_doubling", 0, POWER_OF_TWO},
    {"allgather-ring", 4, "ring", 0, ANY_RANKS},
    {"reduce-scatter-halving", 2, "recursive_halving", 0, ANY_RANKS},
    {"reduce-scatter-ring", 3, "ring", 0, ANY_RANKS},
    {"reduce-binomial", 5, "binomial", 0, ANY_RANKS},
    {"reduce-rabenseifner", 7, "rabenseifner", 0, ANY_RANKS},
    {"barrier-dissemination", 4, "bruck", 2, ANY_RANKS},
};

static int collective_id(const char *collective)
{
    for (guint i = 0; i < G_N_ELEMENTS(collectives); i++)
        if (strcmp(collectives[i].collective, collective) == 0)
            return collectives[i].id;
    return -1;
}

gboolean fennel_tune_ompi_knows(const char *collective)
{
    return collective_id(collective) >= 0;
}

/* The counterpart of a candidate at a rank count, or -1. */
static int counterpart(const FennelTuneCandidate *c, int64_t ranks)
{
    for (guint i = 0; i < G_N_ELEMENTS(counterparts); i++) {
        if (strcmp(counterparts[i].generator, c->generator) != 0)
            continue;
        if (counterparts[i].radix && c->radix != counterparts[i].radix)
            return -1;
        if (counterparts[i].ranks == POWER_OF_TWO && (ranks & (ranks - 1)) != 0)
            return -1;
        return (int)i;
    }
    return -1;
}

/* The message size Open MPI computes for a cell's call. */
static int64_t ompi_size(const char *collective, int64_t ranks, int64_t size)
{
    if (strcmp(collective, "barrier") == 0)
        return 0;
    if (strcmp(collective, "allgather") == 0)
        return size * ranks;
    return size;
}

typedef struct {
    int64_t size;
    int map; /* index in counterparts */
} Rule;

/* The rules of one rank count: the fastest candidate with a counterpart in each cell,
 * adjacent sizes with the same algorithm collapsed; notes on substitutions. */
static gboolean rules_of(const FennelTune *t, guint r, GArray *rules, GString *notes,
                         guint *substituted, GError **error)
{
    /* Barrier calls have no message size: one rule, from the smallest size's cell. */
    guint n_sizes = strcmp(t->collective, "barrier") == 0 ? 1 : t->n_sizes;
    for (guint s = 0; s < n_sizes; s++) {
        const FennelTuneCell *cell = fennel_tune_cell(t, r, s);
        guint best = G_MAXUINT;
        for (guint k = 0; k < t->n_candidates; k++)
            if (!isnan(cell->ns[k]) && counterpart(&t->candidates[k], cell->ranks) >= 0 &&
                (best == G_MAXUINT || cell->ns[k] < cell->ns[best]))
                best = k;
        char *size = fennel_tune_size_text(cell->size);
        if (best == G_MAXUINT) {
            g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                        "%" G_GINT64_FORMAT " ranks, %s: no algorithm that ran there has an "
                        "Open MPI counterpart (docs/TUNING.md lists them)",
                        cell->ranks, size);
            g_free(size);
            return FALSE;
        }
        if (best != cell->winner) {
            (*substituted)++;
            g_string_append_printf(
                notes,
                "# %" G_GINT64_FORMAT " ranks, %s: %s is fastest but has no "
                "Open MPI counterpart; %s is %.2f%% slower\n",
                cell->ranks, size, t->candidates[cell->winner].label, t->candidates[best].label,
                100 * (cell->ns[best] - cell->ns[cell->winner]) / cell->ns[cell->winner]);
        }
        g_free(size);
        Rule rule = {s == 0 ? 0 : ompi_size(t->collective, cell->ranks, cell->size),
                     counterpart(&t->candidates[best], cell->ranks)};
        if (rules->len == 0 ||
            counterparts[g_array_index(rules, Rule, rules->len - 1).map].algorithm !=
                counterparts[rule.map].algorithm)
            g_array_append_val(rules, rule);
    }
    return TRUE;
}

static gboolean same_rules(GArray *a, GArray *b)
{
    if (a->len != b->len)
        return FALSE;
    for (guint i = 0; i < a->len; i++) {
        Rule x = g_array_index(a, Rule, i), y = g_array_index(b, Rule, i);
        if (x.size != y.size || counterparts[x.map].algorithm != counterparts[y.map].algorithm)
            return FALSE;
    }
    return TRUE;
}

gboolean fennel_tune_write_ompi(const FennelTune *t, GString *out, guint *substituted,
                                GError **error)
{
    int id = collective_id(t->collective);
    *substituted = 0;
    if (id < 0) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE,
                    "--format ompi: Open MPI's rules cover allgather, allreduce, barrier, bcast, "
                    "reduce and reduce-scatter, not %s",
                    t->collective);
        return FALSE;
    }
    GPtrArray *per_ranks = g_ptr_array_new_with_free_func((GDestroyNotify)g_array_unref);
    GString *notes = g_string_new(NULL);
    for (guint r = 0; r < t->n_ranks; r++) {
        GArray *rules = g_array_new(FALSE, FALSE, sizeof(Rule));
        g_ptr_array_add(per_ranks, rules);
        if (!rules_of(t, r, rules, notes, substituted, error)) {
            g_ptr_array_free(per_ranks, TRUE);
            g_string_free(notes, TRUE);
            return FALSE;
        }
    }
    /* Adjacent rank counts with the same rules collapse into the first of them. */
    guint kept = 0;
    gboolean *keep = g_new0(gboolean, t->n_ranks);
    for (guint r = 0; r < t->n_ranks; r++) {
        keep[r] = r == 0 || !same_rules(per_ranks->pdata[r], per_ranks->pdata[r - 1]);
        kept += keep[r];
    }
    g_string_append_printf(out,
                           "# Open MPI coll_tuned dynamic rules (classic format, read by Open MPI "
                           "3.x to 5.x), written by fennel tune.\n"
                           "# Use: mpirun --mca coll_tuned_use_dynamic_rules 1 --mca "
                           "coll_tuned_dynamic_rules_filename FILE ...\n"
                           "# Message sizes are in bytes as Open MPI counts them for %s%s.\n",
                           t->collective,
                           strcmp(t->collective, "allgather") == 0 ? " (the block per rank "
                                                                     "times the ranks)"
                           : strcmp(t->collective, "barrier") == 0 ? " (always 0)"
                                                                   : " (the whole buffer)");
    g_string_append(out, notes->str);
    g_string_append_printf(out, "1 # collectives\n%d # %s\n%u # communicator sizes\n", id,
                           t->collective, kept);
    for (guint r = 0; r < t->n_ranks; r++) {
        if (!keep[r])
            continue;
        GArray *rules = per_ranks->pdata[r];
        g_string_append_printf(out, "%" G_GINT64_FORMAT " # ranks\n%u # message sizes\n",
                               t->ranks[r], rules->len);
        for (guint i = 0; i < rules->len; i++) {
            Rule rule = g_array_index(rules, Rule, i);
            g_string_append_printf(out, "%" G_GINT64_FORMAT " %d 0 0 # %s\n", rule.size,
                                   counterparts[rule.map].algorithm,
                                   counterparts[rule.map].ompi_name);
        }
    }
    g_free(keep);
    g_ptr_array_free(per_ranks, TRUE);
    g_string_free(notes, TRUE);
    return TRUE;
}
