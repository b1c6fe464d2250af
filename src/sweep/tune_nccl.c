/* The CSV file of NCCL's example tuner plugin from a tune (tune.h; docs/TUNING.md).
 *
 * NCCL 2.30.7's plugins/tuner/example (README.md, plugin.c) reads one configuration per
 * line, `collective_type,min_bytes,max_bytes,algorithm,protocol,channels,nNodes,nRanks`
 * (two optional fields after them, numPipeOps and regBuff, match anything when absent):
 * lines of at most 255 characters, '#' in the first column or an empty line skipped, fields
 * split at commas with blanks trimmed, sizes by strtoull, the rest by atoi. For a call it
 * takes the first line whose collective matches, with min_bytes <= nBytes <= max_bytes and
 * nNodes and nRanks equal or -1, and sets that algorithm and protocol's cost to 0 and, unless
 * -1, the channel count. */
#include "tune.h"

#include "errors.h"

#include <math.h>
#include <string.h>

/* fennel's collectives under the names the plugin parses (parseCollType), and what NCCL's
 * nBytes is in fennel's --size: the whole buffer (ncclFuncMaxSendRecvCount in NCCL 2.30.7's
 * src/include/enqueue.h), which for an allgather is its output, ranks x fennel's --size of
 * one rank's block. */
static const struct {
    const char *collective, *nccl;
    gboolean per_rank;
} collectives[] = {{"allreduce", "allreduce", FALSE},
                   {"allgather", "allgather", TRUE},
                   {"reduce-scatter", "reducescatter", FALSE},
                   {"bcast", "broadcast", FALSE},
                   {"reduce", "reduce", FALSE}};

/* fennel's generators that are NCCL algorithms (parseAlgorithm's names), docs/GPU.md. */
static const struct {
    const char *generator, *algorithm;
} algorithms[] = {{"nccl-ring", "ring"},           {"nccl-tree", "tree"},
                  {"nccl-ring-allgather", "ring"}, {"nccl-ring-reduce-scatter", "ring"},
                  {"nccl-ring-bcast", "ring"},     {"nccl-ring-reduce", "ring"},
                  {"nccl-pat-allgather", "pat"},   {"nccl-pat-reduce-scatter", "pat"}};

static int collective_index(const char *collective)
{
    for (guint i = 0; i < G_N_ELEMENTS(collectives); i++)
        if (strcmp(collectives[i].collective, collective) == 0)
            return (int)i;
    return -1;
}

static const char *nccl_algorithm(const FennelTuneCandidate *c)
{
    for (guint i = 0; i < G_N_ELEMENTS(algorithms); i++)
        if (strcmp(algorithms[i].generator, c->generator) == 0)
            return algorithms[i].algorithm;
    return NULL;
}

/* The protocol (parseProtocol's names): the generator's --variant, Simple when none. */
static const char *nccl_protocol(const FennelTuneCandidate *c)
{
    return c->variant && *c->variant ? c->variant : "simple";
}

/* The fastest candidate of the cell that is an NCCL algorithm, or G_MAXUINT. */
static guint fastest_nccl(const FennelTune *t, const FennelTuneCell *cell)
{
    guint best = G_MAXUINT;
    for (guint c = 0; c < t->n_candidates; c++) {
        if (isnan(cell->ns[c]) || nccl_algorithm(&t->candidates[c]) == NULL)
            continue;
        if (best == G_MAXUINT || cell->ns[c] < cell->ns[best])
            best = c;
    }
    return best;
}

static gboolean same_choice(const FennelTuneCandidate *a, const FennelTuneCandidate *b)
{
    return strcmp(nccl_algorithm(a), nccl_algorithm(b)) == 0 &&
           strcmp(nccl_protocol(a), nccl_protocol(b)) == 0 && a->partitions == b->partitions;
}

gboolean fennel_tune_write_nccl(const FennelTune *t, GString *out, guint *substituted,
                                GError **error)
{
    const int k = collective_index(t->collective);
    if (k < 0) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE,
                    "--format nccl: NCCL's tuner takes allreduce, allgather, reduce-scatter, "
                    "bcast and reduce, not %s",
                    t->collective);
        return FALSE;
    }
    const char *collective = collectives[k].nccl;
    for (guint r = 0; collectives[k].per_rank && r < t->n_ranks; r++)
        if (t->ranks[r] > 0 && t->sizes[t->n_sizes - 1] > INT64_MAX / t->ranks[r]) {
            g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                        "--format nccl: %" G_GINT64_FORMAT " ranks x %" G_GINT64_FORMAT
                        " bytes is more than NCCL's sizes hold",
                        t->ranks[r], t->sizes[t->n_sizes - 1]);
            return FALSE;
        }
    *substituted = 0;
    guint *choice = g_new(guint, (gsize)t->n_ranks * t->n_sizes);
    for (guint r = 0; r < t->n_ranks; r++)
        for (guint s = 0; s < t->n_sizes; s++) {
            const FennelTuneCell *cell = fennel_tune_cell(t, r, s);
            guint c = fastest_nccl(t, cell);
            if (c == G_MAXUINT) {
                g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                            "--format nccl: at %" G_GINT64_FORMAT " ranks and %" G_GINT64_FORMAT
                            " bytes no candidate is one of NCCL's algorithms (the nccl-* "
                            "generators)",
                            t->ranks[r], t->sizes[s]);
                g_free(choice);
                return FALSE;
            }
            *substituted += c != cell->winner;
            choice[(gsize)r * t->n_sizes + s] = c;
        }
    g_string_append_printf(out,
                           "# NCCL tuner configuration (plugins/tuner/example) written by fennel "
                           "tune: %s\n"
                           "# collective_type,min_bytes,max_bytes,algorithm,protocol,channels,"
                           "nNodes,nRanks\n",
                           t->collective);
    for (guint r = 0; r < t->n_ranks; r++) {
        for (guint s = 0; s < t->n_sizes;) {
            const FennelTuneCandidate *c = &t->candidates[choice[(gsize)r * t->n_sizes + s]];
            guint e = s + 1;
            while (e < t->n_sizes &&
                   same_choice(c, &t->candidates[choice[(gsize)r * t->n_sizes + e]]))
                e++;
            /* A call takes the cell at or below its size: the first from 0, the last to the
             * largest size_t. */
            const int64_t scale = collectives[k].per_rank ? t->ranks[r] : 1;
            int64_t min = s == 0 ? 0 : t->sizes[s] * scale;
            g_string_append_printf(out, "%s,%" G_GINT64_FORMAT ",", collective, min);
            if (e < t->n_sizes)
                g_string_append_printf(out, "%" G_GINT64_FORMAT, t->sizes[e] * scale - 1);
            else
                g_string_append(out, "18446744073709551615");
            g_string_append_printf(out, ",%s,%s,%" G_GINT64_FORMAT ",-1,%" G_GINT64_FORMAT "\n",
                                   nccl_algorithm(c), nccl_protocol(c), c->partitions, t->ranks[r]);
            s = e;
        }
    }
    g_free(choice);
    return TRUE;
}
