/* Compute-only programs of the original Fennel (its compute.py and bsp.py). */
#include "generator.h"

/* compute: --rounds computes of --size bytes one after another on rank 0, each between
 * two proxies (created, as in the original, proxy before compute). Makespan rounds x
 * the compute model's time for --size. */
static FennelProgram *compute(const FennelGenOptions *o, GError **error)
{
    FennelProgramBuilder *b = fennel_gen_builder(o);
    uint32_t s = fennel_builder_add(b, FENNEL_TASK_START, 0);
    uint32_t x = fennel_builder_add(b, FENNEL_TASK_PROXY, 0);
    fennel_builder_add_edge(b, s, x);
    for (uint32_t round = 0; round < o->rounds; round++) {
        uint32_t next = fennel_builder_add(b, FENNEL_TASK_PROXY, 0);
        uint32_t c = fennel_builder_add(b, FENNEL_TASK_COMPUTE, 0);
        fennel_builder_set_amount(b, c, o->size);
        fennel_builder_set_flags(b, c, FENNEL_TASK_SIZED);
        fennel_builder_add_edge(b, x, c);
        fennel_builder_add_edge(b, c, next);
        x = next;
    }
    return fennel_builder_finish(b, NULL, 1, 1, error);
}

const FennelGenerator fennel_gen_compute = {
    .name = "compute",
    .summary = "--rounds computes of --size bytes in a row on one rank",
    .options = FENNEL_GEN_SIZE | FENNEL_GEN_ROUNDS,
    .generate = compute,
};

/* A whole number in lo..hi from the generator. */
static int64_t draw(GRand *rand, int64_t lo, int64_t hi)
{
    uint64_t span = (uint64_t)(hi - lo) + 1;
    if (span <= G_MAXINT32)
        return lo + g_rand_int_range(rand, 0, (gint32)span);
    uint64_t x = (uint64_t)g_rand_int(rand) << 32 | g_rand_int(rand);
    return lo + (int64_t)(x % span);
}

/* bsp: bulk-synchronous supersteps without communication. Every rank starts with a
 * skew of 0..100 ns; a barrier (a proxy on rank 0, free) waits for all starts; each of
 * --rounds supersteps is a compute of 10..--size bytes per rank (all --size bytes when
 * that is below 10) between two barriers;
 * every rank ends after the last barrier. The skews and sizes are drawn from GLib's
 * GRand (Mersenne Twister) seeded with --seed, skews first in rank order, then the sizes
 * round by round in rank order: the program is a pure function of its options and the
 * seed. (The original reseeded Python's global generator with 12345 instead.) */
static FennelProgram *bsp(const FennelGenOptions *o, GError **error)
{
    uint32_t n = o->ranks;
    guint32 seed[2] = {(guint32)o->seed, (guint32)(o->seed >> 32)};
    GRand *rand = g_rand_new_with_seed_array(seed, 2);
    FennelProgramBuilder *b = fennel_gen_builder(o);
    uint32_t barrier = fennel_builder_add(b, FENNEL_TASK_PROXY, 0);
    for (uint32_t r = 0; r < n; r++) {
        uint32_t s = fennel_builder_add(b, FENNEL_TASK_START, r);
        fennel_builder_set_amount(b, s, draw(rand, 0, 100) * FENNEL_NS);
        fennel_builder_add_edge(b, s, barrier);
    }
    for (uint32_t round = 0; round < o->rounds; round++) {
        uint32_t next = fennel_builder_add(b, FENNEL_TASK_PROXY, 0);
        for (uint32_t r = 0; r < n; r++) {
            uint32_t c = fennel_builder_add(b, FENNEL_TASK_COMPUTE, r);
            fennel_builder_set_amount(b, c, draw(rand, MIN(10, o->size), o->size));
            fennel_builder_set_flags(b, c, FENNEL_TASK_SIZED);
            fennel_builder_add_edge(b, barrier, c);
            fennel_builder_add_edge(b, c, next);
        }
        barrier = next;
    }
    for (uint32_t r = 0; r < n; r++) {
        uint32_t x = fennel_builder_add(b, FENNEL_TASK_PROXY, r);
        fennel_builder_add_edge(b, barrier, x);
    }
    g_rand_free(rand);
    return fennel_builder_finish(b, NULL, n, 1, error);
}

const FennelGenerator fennel_gen_bsp = {
    .name = "bsp",
    .summary = "supersteps of random computes between free barriers (seeded by --seed)",
    .options = FENNEL_GEN_RANKS | FENNEL_GEN_SIZE | FENNEL_GEN_ROUNDS,
    .generate = bsp,
};
