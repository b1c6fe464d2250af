/* Bruck's allgather (Bruck et al. 1997; named in Rabenseifner–Träff 2004 §1 and
 * PiP-MColl §III-A2 as the allgather for non-powers of two): ceil(lg p) steps for any p.
 * In step k rank r sends everything it holds, blocks r .. r + c - 1 (mod p) with
 * c = min(2^k, p - 2^k), to rank r - 2^k, and receives blocks r + 2^k .. r + 2^k + c - 1
 * from rank r + 2^k; afterwards it holds blocks r .. r + 2^k + c - 1. The final local
 * rotation of the paper's buffer is a memory move, not a message. --size is what each
 * rank contributes (block r of rank r), so the time under the postal model is
 * ceil(lg p) a + (p - 1) n b. */
#include "errors.h"
#include "generator.h"
#include "stages.h"

static FennelProgram *allgather_bruck(const FennelGenOptions *o, GError **error)
{
    uint32_t p = o->ranks;
    if (p < 1) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT, "allgather-bruck needs --ranks >= 1");
        return NULL;
    }
    if (o->size > INT64_MAX / p) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                    "allgather-bruck: --size x --ranks exceeds the largest size");
        return NULL;
    }
    FennelStages *s = fennel_gen_stages(o, p);
    fennel_builder_set_n_blocks(fennel_stages_builder(s), p);
    for (uint64_t dist = 1; dist < p; dist *= 2) {
        uint32_t count = (uint32_t)MIN(dist, p - dist);
        for (uint32_t r = 0; r < p; r++)
            fennel_stages_put_blocks(s, r, (uint32_t)((r + p - dist) % p), o->size * count, r,
                                     count);
        fennel_stages_close(s, FALSE);
    }
    return fennel_stages_finish(s, FALSE, error);
}

const FennelGenerator fennel_gen_allgather_bruck = {
    .name = "allgather-bruck",
    .summary = "Bruck's allgather, ceil(lg p) steps sending to rank-2^k; --size per rank; any "
               "--ranks",
    .options = FENNEL_GEN_RANKS | FENNEL_GEN_SIZE,
    .collective = "allgather",
    .generate = allgather_bruck,
};
