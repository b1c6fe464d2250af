/* The Open MPI coll_tuned dynamic rules file of a tune (tune.h; docs/TUNING.md).
 *
 * The classic format, as Open MPI 3.0 to main read it (coll_tuned_dynamic_file.c): whole
 * numbers separated by white space, '#' starting a comment to the end of its line. The
 * number of collectives; for each, its id (COLLTYPE in coll_base_functions.h) and the
 * number of communicator sizes; for each, the size and the number of message sizes; for
 * each, "msg_size algorithm faninout segsize". The first message rule must be for size 0,
 * and a call takes the last message rule whose size is at most its own. The communicator
 * sizes are read two ways: Open MPI 3.0 to 5.0 take the last rule whose size is at most
 * the communicator's (the first when all are larger); 6.0 and main read each size as one
 * more than the largest communicator of its rules (the first rule from 0, the last without
 * limit). docs/TUNING.md, Versions, names the file and release of every fact used here. */
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
 * coll_tuned_*_decision.c (unchanged since each was added) and the release line that added
 * it: Open MPI 3.x returns MPI_ERR_ARG for an id it does not know, which aborts the run.
 * Segment size 0 means no segmentation; a generator's --segment (bcast-pipeline,
 * reduce-pipeline, bcast-split-bintree, reduce-binomial, reduce-bintree,
 * allreduce-ring-segmented) is the rule's SEGSIZE. */
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
    int since;     /* the first release line with this id */
    int faninout6; /* FANINOUT from 6.0: the radix Open MPI reads from it, or 0 */
} counterparts[] = {
    {"allreduce-linear", 1, "basic_linear", 0, ANY_RANKS, 300, 0},
    {"allreduce-rd", 3, "recursive_doubling", 0, ANY_RANKS, 300, 0},
    {"allreduce-ring", 4, "ring", 0, ANY_RANKS, 300, 0},
    /* ring_segmented with the candidate's --segment (0: the plain ring, as Open MPI's). */
    {"allreduce-ring-segmented", 5, "segmented_ring", 0, ANY_RANKS, 300, 0},
    {"allreduce-rabenseifner", 6, "rabenseifner", 0, ANY_RANKS, 400, 0},
    {"bcast-linear", 1, "basic_linear", 0, ANY_RANKS, 300, 0},
    {"bcast-ring", 3, "pipeline", 0, ANY_RANKS, 300, 0},
    /* The pipeline in segments of the candidate's --segment (its segment_bytes column). */
    {"bcast-pipeline", 3, "pipeline", 0, ANY_RANKS, 300, 0},
    {"bcast-split-bintree", 4, "split_binary_tree", 0, ANY_RANKS, 300, 0},
    {"bcast-binary", 5, "binary_tree", 0, ANY_RANKS, 300, 0},
    {"bcast-binomial", 6, "binomial", 0, ANY_RANKS, 300, 0},
    /* Open MPI's k-nomial radix is the MCA parameter coll_tuned_bcast_algorithm_knomial_radix,
     * 4 unless set, not a field of the rule. */
    {"bcast-knomial", 7, "knomial", 4, ANY_RANKS, 400, 0},
    {"bcast-scatter-allgather", 9, "scatter_allgather_ring", 0, ANY_RANKS, 400, 0},
    /* Open MPI's scatter_allgather at other rank counts ends its allgather with a halving
     * step that fennel's generator does not have. */
    {"bcast-scatter-rd-allgather", 8, "scatter_allgather", 0, POWER_OF_TWO, 400, 0},
    /* From 6.0 algorithm 2 is the k-ary Bruck with FANINOUT as its radix (0 would never end):
     * 2 is the Bruck of 3.0 to 5.0 and fennel's. */
    {"allgather-bruck", 2, "bruck", 0, ANY_RANKS, 300, 2},
    {"allgather-rd", 3, "recursive_doubling", 0, POWER_OF_TWO, 300, 0},
    {"allgather-ring", 4, "ring", 0, ANY_RANKS, 300, 0},
    /* Open MPI runs the ring at odd rank counts; fennel's generator takes even ones only. */
    {"allgather-neighbor-exchange", 5, "neighbor", 0, ANY_RANKS, 300, 0},
    {"reduce-scatter-halving", 2, "recursive_halving", 0, ANY_RANKS, 300, 0},
    {"reduce-scatter-ring", 3, "ring", 0, ANY_RANKS, 300, 0},
    {"reduce-linear", 1, "linear", 0, ANY_RANKS, 300, 0},
    /* The chain of fan-out 1, in segments of the candidate's --segment. */
    {"reduce-pipeline", 3, "pipeline", 0, ANY_RANKS, 300, 0},
    {"reduce-bintree", 4, "binary", 0, ANY_RANKS, 300, 0},
    {"reduce-binomial", 5, "binomial", 0, ANY_RANKS, 300, 0},
    {"reduce-inorder-binary", 6, "in-order_binary", 0, ANY_RANKS, 300, 0},
    {"reduce-rabenseifner", 7, "rabenseifner", 0, ANY_RANKS, 400, 0},
    {"barrier-dissemination", 4, "bruck", 2, ANY_RANKS, 300, 0},
};

/* The release lines, oldest first. */
static const struct {
    const char *name;
    int version;
} versions[] = {
    {"3.0", 300},
    {"3.1", 301},
    {"4.0", 400},
    {"4.1", 401},
    {"5.0", 500},
    {"6.0", 600},
    {"main", FENNEL_OMPI_MAIN},
};

gboolean fennel_tune_ompi_version_parse(const char *text, int *version)
{
    if (text[0] == 'v')
        text++;
    for (guint i = 0; i < G_N_ELEMENTS(versions); i++) {
        size_t n = strlen(versions[i].name);
        if (strncmp(text, versions[i].name, n) != 0)
            continue;
        /* A patch level: "5.0.10". */
        const char *rest = text + n;
        gboolean patch =
            rest[0] == '.' && g_ascii_isdigit(rest[1]) && versions[i].version != FENNEL_OMPI_MAIN;
        for (rest += patch ? 1 : 0; patch && g_ascii_isdigit(*rest);)
            rest++;
        if (*rest == '\0') {
            *version = versions[i].version;
            return TRUE;
        }
    }
    return FALSE;
}

const char *fennel_tune_ompi_version_name(int version, char buf[8])
{
    if (version == FENNEL_OMPI_MAIN)
        return "main";
    g_snprintf(buf, 8, "%d.%d", version / 100, version % 100);
    return buf;
}

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

/* The counterpart of a candidate at a rank count in any release line, or -1. */
static int counterpart_any(const FennelTuneCandidate *c, int64_t ranks)
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

/* The counterpart of a candidate at a rank count in a release line, or -1. */
static int counterpart(const FennelTuneCandidate *c, int64_t ranks, int version)
{
    int i = counterpart_any(c, ranks);
    return i >= 0 && counterparts[i].since <= version ? i : -1;
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
    int map;         /* index in counterparts */
    int64_t segsize; /* SEGSIZE: the candidate's segment, 0 unsegmented */
} Rule;

static gboolean same_rule(Rule x, Rule y)
{
    return counterparts[x.map].algorithm == counterparts[y.map].algorithm && x.segsize == y.segsize;
}

/* The rules of one rank count: the fastest candidate with a counterpart in each cell,
 * adjacent sizes with the same algorithm collapsed; notes on substitutions. */
static gboolean rules_of(const FennelTune *t, int version, guint r, GArray *rules, GString *notes,
                         guint *substituted, GError **error)
{
    char vbuf[8];
    const char *vname = fennel_tune_ompi_version_name(version, vbuf);
    /* Barrier calls have no message size: one rule, from the smallest size's cell. */
    guint n_sizes = strcmp(t->collective, "barrier") == 0 ? 1 : t->n_sizes;
    for (guint s = 0; s < n_sizes; s++) {
        const FennelTuneCell *cell = fennel_tune_cell(t, r, s);
        guint best = G_MAXUINT;
        for (guint k = 0; k < t->n_candidates; k++)
            if (!isnan(cell->ns[k]) && counterpart(&t->candidates[k], cell->ranks, version) >= 0 &&
                (best == G_MAXUINT || cell->ns[k] < cell->ns[best]))
                best = k;
        char *size = fennel_tune_size_text(cell->size);
        if (best == G_MAXUINT) {
            g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                        "%" G_GINT64_FORMAT " ranks, %s: no algorithm that ran there has a "
                        "counterpart in Open MPI %s (docs/TUNING.md lists them)",
                        cell->ranks, size, vname);
            g_free(size);
            return FALSE;
        }
        if (best != cell->winner) {
            (*substituted)++;
            int later = counterpart_any(&t->candidates[cell->winner], cell->ranks);
            g_string_append_printf(notes, "# %" G_GINT64_FORMAT " ranks, %s: %s is fastest but ",
                                   cell->ranks, size, t->candidates[cell->winner].label);
            if (later >= 0)
                g_string_append_printf(notes, "Open MPI %s has no %s (%d, from %d.%d)", vname,
                                       counterparts[later].ompi_name, counterparts[later].algorithm,
                                       counterparts[later].since / 100,
                                       counterparts[later].since % 100);
            else
                g_string_append(notes, "has no Open MPI counterpart");
            if (cell->ns[cell->winner] > 0)
                g_string_append_printf(notes, "; %s is %.2f%% slower\n", t->candidates[best].label,
                                       100 * (cell->ns[best] - cell->ns[cell->winner]) /
                                           cell->ns[cell->winner]);
            else { /* no percentage of 0 ns */
                char ns[G_ASCII_DTOSTR_BUF_SIZE];
                g_ascii_formatd(ns, sizeof ns, "%.15g", cell->ns[best] - cell->ns[cell->winner]);
                g_string_append_printf(notes, "; %s is %s ns slower\n", t->candidates[best].label,
                                       ns);
            }
        }
        g_free(size);
        Rule rule = {s == 0 ? 0 : ompi_size(t->collective, cell->ranks, cell->size),
                     counterpart(&t->candidates[best], cell->ranks, version),
                     t->candidates[best].segment};
        if (rules->len == 0 || !same_rule(g_array_index(rules, Rule, rules->len - 1), rule))
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
        if (x.size != y.size || !same_rule(x, y))
            return FALSE;
    }
    return TRUE;
}

gboolean fennel_tune_write_ompi(const FennelTune *t, int version, GString *out, guint *substituted,
                                GError **error)
{
    char vbuf[8];
    const char *vname = fennel_tune_ompi_version_name(version, vbuf);
    /* 6.0 and main read a communicator size as one more than the largest of its rules. */
    const gboolean upper = version >= 600;
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
        if (!rules_of(t, version, r, rules, notes, substituted, error)) {
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
                           "# Open MPI coll_tuned dynamic rules (classic format) for Open MPI %s, "
                           "written by fennel tune --ompi-version %s.\n"
                           "# Use: mpirun --mca coll_tuned_use_dynamic_rules 1 --mca "
                           "coll_tuned_dynamic_rules_filename FILE ...\n"
                           "# Message sizes are in bytes as Open MPI counts them for %s%s.\n",
                           vname, vname, t->collective,
                           strcmp(t->collective, "allgather") == 0 ? " (the block per rank "
                                                                     "times the ranks)"
                           : strcmp(t->collective, "barrier") == 0 ? " (always 0)"
                                                                   : " (the whole buffer)");
    g_string_append(out, upper ? "# Each communicator size is one more than the largest its "
                                 "rules apply to (the first's from 1, the last's without limit).\n"
                               : "# Each communicator size is the smallest its rules apply to "
                                 "(the first's to smaller ones too).\n");
    g_string_append(out, notes->str);
    g_string_append_printf(out, "1 # collectives\n%d # %s\n%u # communicator sizes\n", id,
                           t->collective, kept);
    for (guint r = 0; r < t->n_ranks; r++) {
        if (!keep[r])
            continue;
        GArray *rules = per_ranks->pdata[r];
        if (upper) {
            guint next = r + 1;
            while (next < t->n_ranks && !keep[next])
                next++;
            if (next < t->n_ranks)
                g_string_append_printf(out,
                                       "%" G_GINT64_FORMAT " # ranks below %" G_GINT64_FORMAT
                                       ": the rules of %" G_GINT64_FORMAT "\n",
                                       t->ranks[next], t->ranks[next], t->ranks[r]);
            else
                g_string_append_printf(out, "%d # no limit: the rules of %" G_GINT64_FORMAT "\n",
                                       G_MAXINT, t->ranks[r]);
        } else {
            g_string_append_printf(out, "%" G_GINT64_FORMAT " # ranks\n", t->ranks[r]);
        }
        g_string_append_printf(out, "%u # message sizes\n", rules->len);
        for (guint i = 0; i < rules->len; i++) {
            Rule rule = g_array_index(rules, Rule, i);
            g_string_append_printf(out, "%" G_GINT64_FORMAT " %d %d %" G_GINT64_FORMAT " # %s\n",
                                   rule.size, counterparts[rule.map].algorithm,
                                   upper ? counterparts[rule.map].faninout6 : 0, rule.segsize,
                                   counterparts[rule.map].ompi_name);
        }
    }
    g_free(keep);
    g_ptr_array_free(per_ranks, TRUE);
    g_string_free(notes, TRUE);
    return TRUE;
}
