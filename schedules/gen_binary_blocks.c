/* Rabenseifner's binary blocks allreduce (Rabenseifner 2004 §3.6, Fig. 3), any rank
 * count. p is written as a sum of powers of two, 2^e0 + 2^e1 + ... with e0 > e1 > ...;
 * block j is 2^ej consecutive ranks, the largest first (13 = 8 + 4 + 1: ranks 0-7, 8-11,
 * 12). The vector is cut into 2^e0 blocks of data ("segments"; floor(n i / 2^e0) ..
 * floor(n (i + 1) / 2^e0) - 1 are the bytes of segment i, so uneven n gives segments
 * that differ by one byte).
 *
 * Reduce-scatter, stage t = 0, 1, ...:
 * - every block j with ej > t does step t of recursive vector halving with distance
 *   doubling inside itself (as in §3.5): local rank i exchanges half of its segments with
 *   local rank i XOR 2^t; after ej steps local rank i holds 2^(e0-ej) consecutive
 *   segments;
 * - at stage t = ej, block j + 1 (already reduced inside itself and fed by block j + 2)
 *   sends its partial result to block j: each of its ranks splits its segments into the
 *   pieces held by ranks of block j and sends each piece there, 2^(ej - ej+1) messages;
 *   each rank of block j receives one piece and reduces it. In the 13-rank example rank
 *   12 sends 4 messages to ranks 8-11 at stage 2 (while block 0 does its third step),
 *   and each of ranks 8-11 sends 2 to ranks 0-7 at stage 3, as the paper describes.
 * The allgather mirrors it: the same messages in the opposite direction, stages in
 * reverse order, without computes, so that the smaller blocks are fed from the next
 * larger one and then gather inside themselves by vector doubling and distance
 * halving. For a power of two this is exactly §3.5's halving and doubling. */
#include "blocks.h"
#include "errors.h"
#include "generator.h"
#include "stages.h"

#include <stdlib.h>

typedef struct {
    uint32_t src, dst, first, count, stage;
} Message;

static int by_dst(const void *a, const void *b)
{
    uint32_t x = ((const Message *)a)->dst, y = ((const Message *)b)->dst;
    return (x > y) - (x < y);
}

static void record(GArray *msgs, uint32_t src, uint32_t dst, uint32_t first, uint32_t count,
                   uint32_t stage)
{
    Message m = {src, dst, first, count, stage};
    g_array_append_val(msgs, m);
}

static FennelProgram *allreduce_binary_blocks(const FennelGenOptions *o, GError **error)
{
    uint32_t p = o->ranks;
    if (p < 1) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                    "allreduce-binary-blocks needs --ranks >= 1");
        return NULL;
    }
    /* The blocks: exponents and first ranks, largest first. */
    uint32_t n_blk = 0, e[32], base[32];
    for (int bit = 31, first = 0; bit >= 0; bit--) {
        if (p & (1u << bit)) {
            e[n_blk] = (uint32_t)bit;
            base[n_blk++] = (uint32_t)first;
            first += 1 << bit;
        }
    }
    uint32_t nb = 1u << e[0];
    uint32_t *lo = g_new(uint32_t, p), *hi = g_new(uint32_t, p);
    uint32_t *owner = g_new(uint32_t, nb); /* segment -> rank of the block being fed */
    for (uint32_t r = 0; r < p; r++) {
        lo[r] = 0;
        hi[r] = nb;
    }
    GArray *msgs = g_array_new(FALSE, FALSE, sizeof(Message));
    uint32_t n_stages = e[0] + (n_blk > 1 ? 1 : 0);
    for (uint32_t t = 0; t < n_stages; t++) {
        for (uint32_t j = 0; j < n_blk; j++) {
            if (e[j] > t) {
                /* Step t of halving with distance doubling inside block j. */
                for (uint32_t i = 0; i < (1u << e[j]); i++) {
                    uint32_t r = base[j] + i, w = base[j] + (i ^ (1u << t));
                    uint32_t mid = (lo[r] + hi[r]) / 2;
                    if (i & (1u << t))
                        record(msgs, r, w, lo[r], mid - lo[r], t);
                    else
                        record(msgs, r, w, mid, hi[r] - mid, t);
                }
            } else if (e[j] == t && j + 1 < n_blk) {
                /* Block j + 1 feeds block j, whose ranks hold one piece each. */
                for (uint32_t i = 0; i < (1u << e[j]); i++)
                    owner[lo[base[j] + i]] = base[j] + i;
                uint32_t width = nb >> e[j];
                for (uint32_t i = 0; i < (1u << e[j + 1]); i++) {
                    /* A rank's puts go out in peer order (docs/SCHEDULES.md). */
                    uint32_t r = base[j + 1] + i;
                    guint from = msgs->len;
                    for (uint32_t seg = lo[r]; seg < hi[r]; seg += width)
                        record(msgs, r, owner[seg], seg, width, t);
                    qsort(&g_array_index(msgs, Message, from), msgs->len - from, sizeof(Message),
                          by_dst);
                }
            }
        }
        /* Apply the halving steps of this stage to the ranks' segments. */
        for (uint32_t j = 0; j < n_blk; j++) {
            for (uint32_t i = 0; e[j] > t && i < (1u << e[j]); i++) {
                uint32_t r = base[j] + i, mid = (lo[r] + hi[r]) / 2;
                if (i & (1u << t))
                    lo[r] = mid;
                else
                    hi[r] = mid;
            }
        }
    }

    FennelStages *s = fennel_gen_stages(o, p);
    fennel_builder_set_n_blocks(fennel_stages_builder(s), nb);
    const Message *m = (const Message *)msgs->data;
    guint k = 0;
    for (uint32_t t = 0; t < n_stages; t++) {
        for (; k < msgs->len && m[k].stage == t; k++)
            fennel_stages_put_blocks(s, m[k].src, m[k].dst,
                                     fennel_block_offset(o->size, nb, m[k].first + m[k].count) -
                                         fennel_block_offset(o->size, nb, m[k].first),
                                     m[k].first, m[k].count);
        fennel_stages_close(s, TRUE);
    }
    /* The allgather: stage t's messages reversed, stages from last to first. */
    guint end = msgs->len;
    for (uint32_t t = n_stages; t-- > 0;) {
        guint begin = end;
        while (begin > 0 && m[begin - 1].stage == t)
            begin--;
        for (guint i = begin; i < end; i++)
            fennel_stages_put_blocks(s, m[i].dst, m[i].src,
                                     fennel_block_offset(o->size, nb, m[i].first + m[i].count) -
                                         fennel_block_offset(o->size, nb, m[i].first),
                                     m[i].first, m[i].count);
        fennel_stages_close(s, FALSE);
        end = begin;
    }
    g_array_free(msgs, TRUE);
    g_free(lo);
    g_free(hi);
    g_free(owner);
    return fennel_stages_finish(s, FALSE, error);
}

const FennelGenerator fennel_gen_allreduce_binary_blocks = {
    .name = "allreduce-binary-blocks",
    .summary = "Rabenseifner's binary blocks: halving/doubling inside power-of-two blocks of "
               "ranks, smaller blocks feeding larger ones (Rabenseifner 2004 §3.6); any --ranks",
    .options = FENNEL_GEN_RANKS | FENNEL_GEN_SIZE,
    .collective = "allreduce",
    .generate = allreduce_binary_blocks,
};
