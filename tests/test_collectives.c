/* The bandwidth-oriented and non-power-of-two collectives (docs/SCHEDULES.md): Rabenseifner's
 * halving and doubling and binary blocks, rings, Bruck, Rabenseifner–Träff elimination
 * and the PiP-MColl multi-object collectives. Every expected time is derived in its
 * comment from the papers' cost formulas or, where the paper gives none, from the
 * engine rules (docs/SEMANTICS.md) applied to the algorithm's steps.
 *
 * Most checks pin the terms of a formula a x alpha + b x n beta + c x n gamma one at a
 * time: a run under the postal model with alpha = 1000 ns only, one with beta = 1 ns/B
 * only, one with a gamma compute of 0.5 ns/B only, and one with all three, so that a
 * wrong coefficient cannot hide behind another term. Under the postal model a sender is
 * busy until its message arrives, and receiving costs nothing, which is the full-duplex
 * model of the papers (alpha + n beta per message, n gamma per reduction). */
#include "engine.h"
#include "errors.h"
#include "generator.h"

#include <math.h>
#include <string.h>

static const char *const ALPHA = "fennel: 1\nnetwork: {model: postal, alpha: 1000ns}\n";
static const char *const BETA = "fennel: 1\nnetwork: {model: postal, beta: 1ns/B}\n";
static const char *const GAMMA = "fennel: 1\ncompute: {model: gamma, gamma: 0.5ns/B}\n";
static const char *const ALL = "fennel: 1\nnetwork: {model: postal, alpha: 1000ns, beta: 1ns/B}\n"
                               "compute: {model: gamma, gamma: 0.5ns/B}\n";

/* LogP with L = g = 1000 ns and o = 0: a rank's NIC sends one message and receives one
 * message per 1000 ns, the 1-ported full-duplex model in which Rabenseifner and Träff
 * count rounds (their §1: "each process can send and receive a message at the same
 * time"). A message received while the NIC is still receiving another waits, so the
 * makespan is 1000 ns times the rounds. */
static const char *const ROUNDS = "fennel: 1\nnetwork: {model: logp, L: 1000ns, g: 1000ns}\n";

typedef struct {
    const char *name;
    uint32_t ranks;
    int64_t size;
    uint32_t root, ppn;
    const char *variant;
} Gen;

static FennelProgram *try_generate(const Gen *g, GError **error)
{
    const FennelGenerator *gen = fennel_generator_find(g->name);
    g_assert_nonnull(gen);
    FennelGenOptions o;
    fennel_gen_options_init(&o);
    o.ranks = g->ranks;
    o.size = g->size;
    o.given = FENNEL_GEN_RANKS | FENNEL_GEN_SIZE;
    if (gen->options & FENNEL_GEN_ROOT) {
        o.root = g->root;
        o.given |= FENNEL_GEN_ROOT;
    }
    if (g->ppn) {
        o.ppn = g->ppn;
        o.given |= FENNEL_GEN_PPN;
    }
    if (g->variant) {
        o.variant = g->variant;
        o.given |= FENNEL_GEN_VARIANT;
    }
    return fennel_generate(gen, &o, error);
}

static FennelProgram *generate(const Gen *g)
{
    GError *error = NULL;
    FennelProgram *p = try_generate(g, &error);
    g_assert_no_error(error);
    g_assert_nonnull(p);
    return p;
}

/* The makespan of p under a model file's text, in ps. */
static FennelTime makespan(const FennelProgram *p, const char *model_yaml)
{
    FennelModel model;
    GError *error = NULL;
    fennel_model_init(&model);
    g_assert_true(fennel_model_parse(&model, "model.yaml", model_yaml, strlen(model_yaml), &error));
    g_assert_no_error(error);
    FennelMachine *m = fennel_machine_new(p->n_ranks, p->processes, &model);
    g_assert_true(fennel_machine_run(m, p, &error));
    g_assert_no_error(error);
    FennelTime t = fennel_machine_makespan(m);
    fennel_machine_free(m);
    return t;
}

#define NS(x) ((FennelTime)llround((x)*1000.0))

/* Checks a alpha + b n beta + c n gamma with alpha 1000 ns, beta 1 ns/B, gamma 0.5 ns/B. */
static void check_terms(const Gen *g, double a, double b, double c)
{
    FennelProgram *p = generate(g);
    double n = (double)g->size;
    g_assert_cmpint(makespan(p, ALPHA), ==, NS(a * 1000));
    g_assert_cmpint(makespan(p, BETA), ==, NS(b * n));
    g_assert_cmpint(makespan(p, GAMMA), ==, NS(c * n * 0.5));
    g_assert_cmpint(makespan(p, ALL), ==, NS(a * 1000 + b * n + c * n * 0.5));
    fennel_program_free(p);
}

static void check_rounds(const Gen *g, unsigned rounds)
{
    FennelProgram *p = generate(g);
    g_assert_cmpint(makespan(p, ROUNDS), ==, NS(1000.0 * rounds));
    fennel_program_free(p);
}

static void check_messages(const Gen *g, uint64_t messages, uint64_t bytes)
{
    FennelProgram *p = generate(g);
    FennelProgramStats st;
    fennel_program_stats(p, &st);
    g_assert_cmpuint(st.messages, ==, messages);
    g_assert_cmpuint(st.bytes, ==, bytes);
    g_assert_cmpuint(st.by_type[FENNEL_TASK_PUT], ==, messages);
    fennel_program_free(p);
}

/* Rabenseifner 2004 §3.5 with f_alpha = f_beta = 1 (full duplex), as worked out in
 * the reference values: T_all = 2 lg p a + 2nb + ng - (2nb + ng)/p for p = 2^k, so
 * p = 8 gives 6a + 1.75nb + 0.875ng and p = 16 gives 8a + 1.875nb + 0.9375ng. For p not
 * a power of two, (2 lg p' + 2 + f_a)a + (3 + (1 + f_b)/2)nb + 1.5ng - (2nb + ng)/p' with
 * p' = 2^floor(lg p): p = 13 (p' = 8) gives 9a + 3.75nb + 1.375ng. */
static void test_rabenseifner_allreduce(void)
{
    check_terms(&(Gen){"allreduce-rabenseifner", 8, 1024, 0, 0, NULL}, 6, 1.75, 0.875);
    check_terms(&(Gen){"allreduce-rabenseifner", 16, 1024, 0, 0, NULL}, 8, 1.875, 0.9375);
    check_terms(&(Gen){"allreduce-rabenseifner", 13, 1024, 0, 0, NULL}, 9, 3.75, 1.375);
    /* p = 2: one halving and one doubling step of n/2: 2a + nb + 0.5ng. */
    check_terms(&(Gen){"allreduce-rabenseifner", 2, 1024, 0, 0, NULL}, 2, 1, 0.5);
    /* p = 8: 3 halving steps and 3 doubling steps, 8 messages each; every rank sends
     * n/2 + n/4 + n/8 in each half: 2 x 8 x 896 = 14336 bytes of n = 1024. p = 13:
     * the pre-step adds 2 x 5 exchanged halves and 5 returned halves (15 x 512 B) and
     * the final return 5 whole vectors (5 x 1024 B): 48 + 20 = 68 messages and
     * 14336 + 7680 + 5120 = 27136 bytes. */
    check_messages(&(Gen){"allreduce-rabenseifner", 8, 1024, 0, 0, NULL}, 48, 14336);
    check_messages(&(Gen){"allreduce-rabenseifner", 13, 1024, 0, 0, NULL}, 68, 27136);
}

/* Rabenseifner 2004 §3.5, reduce: T_red = lg p (1 + f_a)a + (1 + f_b)nb + ng -
 * (n(b + b_uni) + ng)/p = 6a + 1.75nb + 0.875ng at p = 8; for p = 13,
 * lg p'(1 + f_a)a + (1 + f_a)a + (1 + (1 + f_b)/2 + f_b)nb + 1.5ng - ((1 + f_b)nb + ng)/p'
 * = 8a + 2.75nb + 1.375ng. The root's place changes nothing: a removed root (5 is odd
 * and below 2r = 10) swaps roles with its partner "at no extra cost". */
static void test_rabenseifner_reduce(void)
{
    check_terms(&(Gen){"reduce-rabenseifner", 8, 1024, 0, 0, NULL}, 6, 1.75, 0.875);
    check_terms(&(Gen){"reduce-rabenseifner", 8, 1024, 5, 0, NULL}, 6, 1.75, 0.875);
    check_terms(&(Gen){"reduce-rabenseifner", 13, 1024, 0, 0, NULL}, 8, 2.75, 1.375);
    check_terms(&(Gen){"reduce-rabenseifner", 13, 1024, 5, 0, NULL}, 8, 2.75, 1.375);
    check_terms(&(Gen){"reduce-rabenseifner", 13, 1024, 12, 0, NULL}, 8, 2.75, 1.375);
    /* The gather sends 4 + 2 + 1 messages of n/8, n/4, n/2: 7 messages, 4 x 128 +
     * 2 x 256 + 512 = 1536 bytes, after the reduce-scatter's 24 messages of 7168 B. */
    check_messages(&(Gen){"reduce-rabenseifner", 8, 1024, 3, 0, NULL}, 31, 8704);
}

/* Rabenseifner 2004 §3.5: the reduce-scatter's recursive steps cost
 * lg p a + (1 - 1/p)(nb + ng): p = 8 gives 3a + 0.875(nb + ng), p = 16 4a + 0.9375(...). */
static void test_reduce_scatter_halving(void)
{
    check_terms(&(Gen){"reduce-scatter-halving", 8, 1024, 0, 0, NULL}, 3, 0.875, 0.875);
    check_terms(&(Gen){"reduce-scatter-halving", 16, 1024, 0, 0, NULL}, 4, 0.9375, 0.9375);
    /* p = 13, n = 13 x 64: blocks of 64 B, rank i's result is block i. New ranks 0-4
     * (real 0, 2, 4, 6, 8) stand for two blocks each ("shares" 2v, 2v + 1), new ranks
     * 5-7 (real 10-12) for one (blocks 10-12). The pre-step splits where the first
     * halving step does, after the shares of new ranks 0-3, i.e. blocks 0-7 (512 B) |
     * 8-12 (320 B): 5 pairs exchange 512 + 320 B and return 320 B: 15 messages,
     * 5760 B. Halving, distance 4: 4 x 320 + 4 x 512 = 3328 B; distance 2: new ranks
     * 0-3 send 4 blocks (256 B), ranks 4, 5 send blocks 11-12 (128 B), ranks 6, 7 blocks
     * 8-10 (192 B): 1664 B; distance 1: ranks 0-3 send 128 B, rank 4 block 10 (64 B),
     * rank 5 blocks 8-9 (128 B), ranks 6, 7 64 B: 832 B. Last, 5 blocks of 64 B go to
     * the removed ranks. 15 + 24 + 5 = 44 messages, 5760 + 3328 + 1664 + 832 + 320 =
     * 11904 B. */
    check_messages(&(Gen){"reduce-scatter-halving", 13, 13 * 64, 0, 0, NULL}, 44, 11904);
}

/* Rabenseifner 2004 §3.7: T_all,ring = 2(p - 1)a + 2nb + ng - (2nb + ng)/p, so p = 5
 * gives 8a + 1.6nb + 0.8ng (n = 1000, blocks of 200 B) and p = 8 gives
 * 14a + 1.75nb + 0.875ng. The reduce-scatter alone is its first half:
 * (p - 1)(a + (n/p)(b + g)) = 4a + 0.8nb + 0.8ng at p = 5. */
static void test_ring(void)
{
    check_terms(&(Gen){"allreduce-ring", 5, 1000, 0, 0, NULL}, 8, 1.6, 0.8);
    check_terms(&(Gen){"allreduce-ring", 8, 1024, 0, 0, NULL}, 14, 1.75, 0.875);
    check_terms(&(Gen){"reduce-scatter-ring", 5, 1000, 0, 0, NULL}, 4, 0.8, 0.8);
    /* 2(p - 1) steps of p messages of n/p: 40 messages, 8000 B at p = 5, n = 1000. */
    check_messages(&(Gen){"allreduce-ring", 5, 1000, 0, 0, NULL}, 40, 8000);
    /* Allgather of 100 B per rank: p - 1 steps of a + 100b, no reduction:
     * 4a + 4 x 100 b at p = 5, i.e. 4a + 4nb with n = 100. */
    check_terms(&(Gen){"allgather-ring", 5, 100, 0, 0, NULL}, 4, 4, 0);
    /* The pairwise-exchange versions have the same terms (only the peers differ). */
    check_terms(&(Gen){"allreduce-pairwise", 5, 1000, 0, 0, NULL}, 8, 1.6, 0.8);
    check_terms(&(Gen){"allreduce-pairwise", 8, 1024, 0, 0, NULL}, 14, 1.75, 0.875);
    check_terms(&(Gen){"reduce-scatter-pairwise", 5, 1000, 0, 0, NULL}, 4, 0.8, 0.8);
    check_messages(&(Gen){"allreduce-pairwise", 5, 1000, 0, 0, NULL}, 40, 8000);
}

/* The hierarchical allreduce with P ranks per node on N nodes: a ring reduce-scatter of n
 * over P ranks ((P - 1)(a + (n/P)(b + g))), a ring allreduce of n/P over N ranks
 * (2(N - 1)a + 2(N - 1)(n/(PN))b + (N - 1)(n/(PN))g) and a ring allgather of n over P
 * ranks ((P - 1)(a + (n/P)b)). P = 4, N = 2, n = 1024: 3 + 2 + 3 = 8 a; b: 0.75 + 0.25 +
 * 0.75 = 1.75 n; g: 0.75 + 0.125 = 0.875 n. Messages: 3 x 8 of 256 B, 2 x 8 of 128 B,
 * 3 x 8 of 256 B: 64 messages, 14336 B. */
static void test_hier(void)
{
    check_terms(&(Gen){"allreduce-hier", 8, 1024, 0, 4, NULL}, 8, 1.75, 0.875);
    check_messages(&(Gen){"allreduce-hier", 8, 1024, 0, 4, NULL}, 64, 14336);
}

/* The original Fennel's ring allgather drawing test (4 ranks, 1024 B, postal alpha
 * 100 ns, beta 0.1 ns/B, whole nanoseconds): 3 rounds of 100 + int(102.4) = 202 ns =
 * 606 ns; 12 messages of 1024 B. */
static void test_ring_reference(void)
{
    FennelProgram *p = generate(&(Gen){"allgather-ring", 4, 1024, 0, 0, NULL});
    g_assert_cmpint(makespan(p, "fennel: 1\nnetwork: {model: postal, alpha: 100ns, "
                                "beta: 0.1ns/B}\nresolution: 1ns\n"),
                    ==, NS(606));
    fennel_program_free(p);
    check_messages(&(Gen){"allgather-ring", 4, 1024, 0, 0, NULL}, 12, 12288);
}

/* Scatter + allgather broadcast at p = 8, n = 1024 from root 3. The binomial scatter:
 * the root sends n/2, n/4, n/8 one after another (postal: busy until each arrives),
 * the first receiver forwards n/4 and n/8, and so on; every rank holds its n/8 at
 * 3a + (n/2 + n/4 + n/8)b = 3a + 0.875nb (van de Geijn's lg p a + (1 - 1/p)nb). Then
 * the ring allgather: 7 steps of a + (n/8)b. Total 10a + 1.75nb, no computes. */
static void test_bcast_scatter_allgather(void)
{
    check_terms(&(Gen){"bcast-scatter-allgather", 8, 1024, 3, 0, NULL}, 10, 1.75, 0);
    /* Scatter 1 + 2 + 4 messages (512 + 2 x 256 + 4 x 128 = 1536 B), ring 7 x 8 of
     * 128 B (7168 B). */
    check_messages(&(Gen){"bcast-scatter-allgather", 8, 1024, 3, 0, NULL}, 63, 8704);
}

/* Bruck's allgather at p = 13 with 100 B per rank: ceil(lg 13) = 4 steps sending
 * 1, 2, 4, 5 blocks: 4a + (1 + 2 + 4 + 5)nb = 4a + 12nb; 13 x 4 messages, 13 x 12 x
 * 100 B. */
static void test_bruck(void)
{
    check_terms(&(Gen){"allgather-bruck", 13, 100, 0, 0, NULL}, 4, 12, 0);
    check_messages(&(Gen){"allgather-bruck", 13, 100, 0, 0, NULL}, 52, 15600);
}

/* Binary blocks: for a power of two "identical to the halving and doubling algorithm"
 * (Rabenseifner 2004 §3.6): 6a + 1.75nb + 0.875ng at p = 8. For p = 13 = 8 + 4 + 1
 * under alpha only: block 8 reduces inside itself by 3a, block 4 by 2a; rank 12 sends
 * its 4 pieces one after another (a, 2a, 3a, 4a), so rank 11 has reduced its piece at
 * 4a and sends its 2 pieces to block 8 at 5a and 6a. The allgather mirrors that: block
 * 8 sends to block 4 (7a), then continues its 3 doubling steps (8a, 9a, 10a) while
 * block 4 feeds rank 12 (8a) and doubles twice (9a, 10a): 10a. Messages: block 8
 * 3 x 8, block 4 2 x 4, rank 12 4, block 4 to 8 4 x 2 = 44 per phase, 88 in all; bytes
 * 8 x 896 + 4 x 768 + 4 x 256 + 8 x 128 = 12288 per phase. */
static void test_binary_blocks(void)
{
    check_terms(&(Gen){"allreduce-binary-blocks", 8, 1024, 0, 0, NULL}, 6, 1.75, 0.875);
    FennelProgram *p = generate(&(Gen){"allreduce-binary-blocks", 13, 1024, 0, 0, NULL});
    g_assert_cmpint(makespan(p, ALPHA), ==, NS(10000));
    fennel_program_free(p);
    check_messages(&(Gen){"allreduce-binary-blocks", 13, 1024, 0, 0, NULL}, 88, 24576);
}

/* Rabenseifner and Träff 2004 §3.3-3.4, rounds for small vectors (latency variant):
 * ceil(lg p) + 1 in general, the optimal ceil(lg p) for p = 3 x 2^n and 9 x 2^n with
 * rings of 3 ("p = 12 = 3 x 2^2 ... needs 2 + 2 = 4 rounds, whereas the general
 * algorithm would take 5"). For large vectors (bandwidth variant) 2 ceil(lg p). */
static void test_elimination_rounds(void)
{
    static const struct {
        uint32_t p;
        unsigned latency, bandwidth;
    } cases[] = {
        {2, 1, 2},   {4, 2, 4},   {8, 3, 6},   {5, 4, 6},   {7, 4, 6},   {13, 5, 8},
        {15, 5, 8},  {23, 6, 10}, {63, 7, 12}, {3, 2, 4},   {6, 3, 6},   {12, 4, 8},
        {24, 5, 10}, {9, 4, 8},   {18, 5, 10}, {36, 6, 12}, {40, 7, 12}, {1, 0, 0},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        check_rounds(&(Gen){"allreduce-elimination", cases[i].p, 1024, 0, 0, "latency"},
                     cases[i].latency);
        check_rounds(&(Gen){"allreduce-elimination", cases[i].p, 1024, 0, 0, "bandwidth"},
                     cases[i].bandwidth);
    }
}

/* Rabenseifner and Träff 2004 §3.3, large vectors: t = 2 ceil(lg p) a +
 * 2m(1.5 - 1/p')b + m(1.5 - 1/p')g for odd p, p' = 2^floor(lg p). For p = q 2^n the
 * butterfly halves n times first and the elimination works on m/2^n: data
 * m(1 - 1/2^n) + (m/2^n)(1.5 - 2^n/p') = m(1 + 1/2^(n+1) - 1/p'), the paper's
 * "(1 + 1/2^(n+1))(2mb + mg)" bound (§4) with its 1/p' term; p = 24 gives exactly
 * 10a + 2mb + mg, the 47 % cut against 2(2mb + mg). */
static void test_elimination_bandwidth(void)
{
    static const struct {
        uint32_t p, lg, pprime, n;
    } cases[] = {{3, 2, 2, 0},   {5, 3, 4, 0}, {7, 3, 4, 0},  {13, 4, 8, 0},  {23, 5, 16, 0},
                 {63, 6, 32, 0}, {6, 3, 4, 1}, {12, 4, 8, 2}, {24, 5, 16, 3}, {40, 6, 32, 3}};
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        double data = 1 + 1.0 / (2u << cases[i].n) - 1.0 / cases[i].pprime;
        check_terms(&(Gen){"allreduce-elimination", cases[i].p, 1024, 0, 0, "bandwidth"},
                    2.0 * cases[i].lg, 2 * data, data);
    }
}

/* Latency variant, §3.3: t = (ceil(lg p) + 1)(a + mb) + ceil(lg p) mg: p = 13 gives
 * 5a + 5mb + 4mg. With rings of 3 (§3.4) every one of the ceil(lg p) rounds receives a
 * whole vector and reduces it: p = 12 (2 butterfly rounds, then the ring's 2) gives
 * 4a + 4mb + 4mg, and p = 3, t_ring,lat-opt = a ceil(lg p) + bm(p - 1) + gm(p - 1) =
 * 2a + 2mb + 2mg. */
static void test_elimination_latency(void)
{
    check_terms(&(Gen){"allreduce-elimination", 13, 1024, 0, 0, "latency"}, 5, 5, 4);
    check_terms(&(Gen){"allreduce-elimination", 12, 1024, 0, 0, "latency"}, 4, 4, 4);
    check_terms(&(Gen){"allreduce-elimination", 3, 1024, 0, 0, "latency"}, 2, 2, 2);
    /* p = 13 = 8 + 5: a 3-2 step (4 messages), two groups of four (2 butterflies and
     * 2 2-1 steps: 6 messages each), one pair (2); then 2 butterfly levels on the 8
     * survivors (16), and 5 returns: 39 whole vectors. The bandwidth variant has the
     * same 34 reduction messages, halved, and mirrors them: 68. */
    check_messages(&(Gen){"allreduce-elimination", 13, 1024, 0, 0, "latency"}, 39, 39 * 1024);
    FennelProgram *p = generate(&(Gen){"allreduce-elimination", 13, 1024, 0, 0, "bandwidth"});
    FennelProgramStats st;
    fennel_program_stats(p, &st);
    g_assert_cmpuint(st.messages, ==, 68);
    fennel_program_free(p);
}

/* A postal network between nodes (alpha 1000 ns) and free messages inside a node: the
 * makespan counts the inter-node rounds. */
static char *placed(uint32_t ppn)
{
    return g_strdup_printf("fennel: 1\nnetwork: {model: postal, alpha: 1000ns}\n"
                           "placement: {ranks_per_node: %u}\nintra: {model: postal}\n",
                           ppn);
}

static void check_placed_rounds(const Gen *g, unsigned rounds)
{
    FennelProgram *p = generate(g);
    char *model = placed(g->ppn ? g->ppn : 1);
    g_assert_cmpint(makespan(p, model), ==, NS(1000.0 * rounds));
    g_free(model);
    fennel_program_free(p);
}

/* PiP-MColl (Huang et al. 2023 §III): the multi-object Bruck allgather and the scatter
 * take ceil(log_{P+1} N) inter-node rounds; N = 128 nodes of P = 18 need
 * ceil(log_19 128) = 2, N = 9 nodes of P = 2 need 2, N = 19 nodes of 18 need 1. The
 * ring allgather takes N - 1. The allreduce: each local rank sends N/P chunks (one
 * fewer on the nodes it owns) one after another, 2 rounds for N = 8, P = 4, then the
 * ring of N - 1 = 7 steps: 9 rounds. */
static void test_mo_rounds(void)
{
    check_placed_rounds(&(Gen){"allgather-mo", 128 * 18, 8, 0, 18, "small"}, 2);
    check_placed_rounds(&(Gen){"allgather-mo", 18, 8, 0, 2, "small"}, 2);
    check_placed_rounds(&(Gen){"allgather-mo", 10 * 3, 8, 0, 3, "small"}, 2);
    check_placed_rounds(&(Gen){"allgather-mo", 8, 8, 0, 2, "large"}, 3);
    check_placed_rounds(&(Gen){"scatter-mo", 18, 8, 0, 2, NULL}, 2);
    check_placed_rounds(&(Gen){"scatter-mo", 19 * 18, 8, 36, 18, NULL}, 1);
    check_placed_rounds(&(Gen){"allreduce-mo", 32, 1024, 0, 4, NULL}, 9);
    /* With one rank per node the multi-object Bruck is Bruck's allgather. */
    check_placed_rounds(&(Gen){"allgather-mo", 13, 8, 0, 1, "small"}, 4);
}

/* Message counts of the multi-object collectives, from the steps of §III. */
static void test_mo_messages(void)
{
    /* allreduce-mo, N = 8 nodes of P = 4: intra reduce-scatter 32 x 3, inter reduce-
     * scatter 4 columns x (8 nodes x 2 chunks - 2 own) = 56, ring 7 x 8 = 56, intra
     * allgather 96: 304. Bytes with C_b = 1024: chunks of 128 B; intra steps move 2
     * chunks (256 B) per message: 2 x 96 x 256 + 112 x 128 = 63488. */
    check_messages(&(Gen){"allreduce-mo", 32, 1024, 0, 4, NULL}, 304, 63488);
    /* scatter-mo, N = 9 nodes of P = 2, C_b = 8: round 1 one intra put of 3 nodes
     * (48 B) and 2 inter puts of 48 B; round 2 three intra puts and 6 inter puts of one
     * node (16 B); then 9 intra puts of the ranks' own 8 B: 21 messages,
     * 48 + 96 + 48 + 96 + 72 = 360 B. */
    check_messages(&(Gen){"scatter-mo", 18, 8, 0, 2, NULL}, 21, 360);
}

/* Outside its domain a generator says which values it accepts. */
static void check_error(const Gen *g, const char *message)
{
    GError *error = NULL;
    FennelProgram *p = try_generate(g, &error);
    g_assert_null(p);
    g_assert_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT);
    g_assert_cmpstr(error->message, ==, message);
    g_error_free(error);
}

static void test_domains(void)
{
    check_error(&(Gen){"reduce-rabenseifner", 4, 8, 4, 0, NULL},
                "reduce-rabenseifner needs --root in 0..3 (the --ranks)");
    check_error(&(Gen){"bcast-scatter-allgather", 4, 8, 7, 0, NULL},
                "bcast-scatter-allgather needs --root in 0..3 (the --ranks)");
    check_error(&(Gen){"allreduce-elimination", 4, 8, 0, 0, "fast"},
                "allreduce-elimination: unknown --variant 'fast' (latency or bandwidth)");
    check_error(&(Gen){"allgather-mo", 4, 8, 0, 0, "medium"},
                "allgather-mo: unknown --variant 'medium' (small or large)");
    check_error(&(Gen){"allreduce-mo", 10, 8, 0, 4, NULL},
                "allreduce-mo needs --ranks a multiple of --ppn (nodes x ranks per node), got "
                "10 and 4");
    check_error(&(Gen){"allreduce-mo", 18, 8, 0, 2, NULL},
                "allreduce-mo needs a node count (--ranks / --ppn) that is a multiple of --ppn, "
                "got 9 nodes of 2 ranks");
    check_error(&(Gen){"scatter-mo", 12, 8, 0, 2, NULL},
                "scatter-mo needs a node count (--ranks / --ppn) that is a power of --ppn + 1, "
                "got 6 nodes");
    check_error(&(Gen){"scatter-mo", 18, 8, 3, 2, NULL},
                "scatter-mo needs --root to be the first rank of a node (a multiple of --ppn "
                "below --ranks), got 3");
    check_error(&(Gen){"allreduce-ring", 0, 8, 0, 0, NULL}, "allreduce-ring needs --ranks >= 1");
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/collectives/rabenseifner-allreduce", test_rabenseifner_allreduce);
    g_test_add_func("/collectives/rabenseifner-reduce", test_rabenseifner_reduce);
    g_test_add_func("/collectives/reduce-scatter-halving", test_reduce_scatter_halving);
    g_test_add_func("/collectives/ring", test_ring);
    g_test_add_func("/collectives/hier", test_hier);
    g_test_add_func("/collectives/ring-reference", test_ring_reference);
    g_test_add_func("/collectives/bcast-scatter-allgather", test_bcast_scatter_allgather);
    g_test_add_func("/collectives/bruck", test_bruck);
    g_test_add_func("/collectives/binary-blocks", test_binary_blocks);
    g_test_add_func("/collectives/elimination-rounds", test_elimination_rounds);
    g_test_add_func("/collectives/elimination-bandwidth", test_elimination_bandwidth);
    g_test_add_func("/collectives/elimination-latency", test_elimination_latency);
    g_test_add_func("/collectives/mo-rounds", test_mo_rounds);
    g_test_add_func("/collectives/mo-messages", test_mo_messages);
    g_test_add_func("/collectives/domains", test_domains);
    return g_test_run();
}
