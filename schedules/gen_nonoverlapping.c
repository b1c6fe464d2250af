/* allreduce-nonoverlapping: Open MPI's "nonoverlapping" allreduce
 * (ompi_coll_base_allreduce_intra_nonoverlapping in ompi/mca/coll/base/coll_base_allreduce.c,
 * read at v4.1.6; docs/LIBRARIES.md): the communicator's reduce to rank 0, then its bcast from
 * rank 0, one after the other. Open MPI calls whatever reduce and bcast the communicator
 * runs (coll/tuned's own decisions), so --variant REDUCE:BCAST names them:
 *
 *   REDUCE  binomial (reduce-binomial's tree), inorder-binary (reduce-inorder-binary's
 *           tree, rooted at rank p - 1, which then sends the result to rank 0) or linear
 *           (reduce-linear's order)
 *   BCAST   binomial (Open MPI's numbering, as bcast-bmtree), knomial (radix --radix),
 *           binary or linear (as bcast-knomial, bcast-binary and bcast-linear)
 *
 * The default is binomial:binomial. The bcast's stages have no compute (it moves the
 * result, it does not reduce). */
#include "errors.h"
#include "gen_rooted.h"

#include <string.h>

static FennelProgram *allreduce_nonoverlapping(const FennelGenOptions *o, GError **error)
{
    const char *variant = o->variant ? o->variant : "binomial:binomial";
    const char *colon = strchr(variant, ':');
    char *reduce = colon ? g_strndup(variant, (gsize)(colon - variant)) : NULL;
    const char *bcast = colon ? colon + 1 : NULL;
    gboolean reduce_ok =
        reduce && (strcmp(reduce, "binomial") == 0 || strcmp(reduce, "inorder-binary") == 0 ||
                   strcmp(reduce, "linear") == 0);
    gboolean bcast_ok = bcast && (strcmp(bcast, "binomial") == 0 || strcmp(bcast, "knomial") == 0 ||
                                  strcmp(bcast, "binary") == 0 || strcmp(bcast, "linear") == 0);
    if (!reduce_ok || !bcast_ok) {
        g_free(reduce);
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE,
                    "allreduce-nonoverlapping: --variant %s: expected REDUCE:BCAST with REDUCE "
                    "binomial, inorder-binary or linear and BCAST binomial, knomial, binary or "
                    "linear",
                    variant);
        return NULL;
    }
    uint32_t p = o->ranks;
    FennelStages *s = fennel_gen_stages(o, p);
    if (strcmp(reduce, "binomial") == 0)
        fennel__gen_reduce_binomial(s, p, 0, o->size);
    else if (strcmp(reduce, "inorder-binary") == 0)
        fennel__gen_reduce_inorder_binary(s, p, 0, o->size);
    else
        fennel__gen_reduce_linear(s, p, 0, o->size);
    if (strcmp(bcast, "binomial") == 0)
        fennel__gen_bcast_bmtree(s, p, 0, o->size);
    else if (strcmp(bcast, "knomial") == 0)
        fennel__gen_bcast_knomial(s, p, 0, o->radix, o->size);
    else if (strcmp(bcast, "binary") == 0)
        fennel__gen_bcast_binary(s, p, 0, o->size);
    else
        fennel__gen_bcast_linear(s, p, 0, o->size);
    g_free(reduce);
    return fennel_stages_finish(s, FALSE, error);
}

const FennelGenerator fennel_gen_allreduce_nonoverlapping = {
    .name = "allreduce-nonoverlapping",
    .summary = "reduce to rank 0, then bcast from it; --variant REDUCE:BCAST "
               "(binomial|inorder-binary|linear : binomial|knomial|binary|linear, default "
               "binomial:binomial; knomial takes --radix) (Open MPI's nonoverlapping)",
    .options = FENNEL_GEN_RANKS | FENNEL_GEN_SIZE | FENNEL_GEN_RADIX | FENNEL_GEN_VARIANT,
    .collective = "allreduce",
    .generate = allreduce_nonoverlapping,
};
