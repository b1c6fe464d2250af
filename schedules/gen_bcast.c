/* bcast-ring: a chain broadcast from the root, root -> root + 1 -> ... -> root - 1 (the
 * original Fennel's ring broadcast, with its rotation fixed so that every root works).
 * Stage k is one put from rank root + k to root + k + 1, shaped as the stage builder
 * shapes a non-reducing stage: the put follows the sender's entry, both ranks close the
 * stage with a proxy and the receiver's waits for the put. It is built directly rather
 * than through FennelStages, whose stages cost O(p) each, so p - 1 stages stay O(p).
 * Under postal with beta 0 the makespan is (p - 1) alpha. */
#include "errors.h"
#include "gen_rooted.h"

static FennelProgram *bcast_ring(const FennelGenOptions *o, GError **error)
{
    if (!fennel_gen_check_root("bcast-ring", o, error))
        return NULL;
    uint32_t p = o->ranks;
    FennelProgramBuilder *b = fennel_gen_builder(o);
    uint32_t *entry = g_new(uint32_t, p);
    for (uint32_t r = 0; r < p; r++) {
        uint32_t s = fennel_builder_add(b, FENNEL_TASK_START, r);
        entry[r] = fennel_builder_add(b, FENNEL_TASK_PROXY, r);
        fennel_builder_add_edge(b, s, entry[r]);
    }
    for (uint64_t k = 0; k + 1 < p; k++) {
        uint32_t from = fennel_gen_real_rank(k, o->root, p);
        uint32_t to = fennel_gen_real_rank(k + 1, o->root, p);
        uint32_t put = FENNEL_NO_RANK, x_to = FENNEL_NO_RANK;
        /* Tasks rank by rank, as the stage builder creates them. */
        for (int side = 0; side < 2; side++) {
            gboolean sender = (side == 0) == (from < to);
            if (sender) {
                put = fennel_builder_add(b, FENNEL_TASK_PUT, from);
                fennel_builder_set_peer(b, put, to);
                fennel_builder_set_amount(b, put, o->size);
                fennel_builder_add_edge(b, entry[from], put);
                uint32_t x = fennel_builder_add(b, FENNEL_TASK_PROXY, from);
                fennel_builder_add_edge(b, entry[from], x);
                entry[from] = x;
            } else {
                x_to = fennel_builder_add(b, FENNEL_TASK_PROXY, to);
                fennel_builder_add_edge(b, entry[to], x_to);
            }
        }
        fennel_builder_add_edge(b, put, x_to);
        entry[to] = x_to;
    }
    g_free(entry);
    return fennel_builder_finish(b, NULL, p, 1, error);
}

const FennelGenerator fennel_gen_bcast_ring = {
    .name = "bcast-ring",
    .summary = "broadcast from --root along a chain through every rank",
    .options = FENNEL_GEN_RANKS | FENNEL_GEN_SIZE | FENNEL_GEN_ROOT,
    .collective = "bcast",
    .generate = bcast_ring,
};
