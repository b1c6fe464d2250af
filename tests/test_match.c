/* Two-sided matching (src/core/match.c) against the rule of docs/SEMANTICS.md written
 * out as plainly as possible: per rank, the posted receives and the unexpected messages
 * each in the order they came; a message takes the oldest receive that accepts it, a
 * receive the oldest message it accepts. The matcher keeps a rank's first entries in a
 * small slab, then a row, and moves a rank with more to a hashed index and back, so the
 * sequences are long enough to cross between them many times. Non-overtaking's record per pair is
 * checked by hand. */
#include "match.h"
#include "program.h"

#define RANKS       3
#define MAX_PENDING 4096

typedef struct {
    uint32_t src, tag, item;
} Pending;

typedef struct {
    Pending recvs[RANKS][MAX_PENDING], msgs[RANKS][MAX_PENDING];
    unsigned n_recvs[RANKS], n_msgs[RANKS];
} Reference;

static gboolean accepts(uint32_t src, uint32_t tag, uint32_t msg_src, uint32_t msg_tag)
{
    return (src == FENNEL_ANY || src == msg_src) && (tag == FENNEL_ANY || tag == msg_tag);
}

static uint32_t take(Pending *list, unsigned *n, unsigned i)
{
    uint32_t item = list[i].item;
    memmove(&list[i], &list[i + 1], sizeof *list * (*n - i - 1));
    (*n)--;
    return item;
}

static uint32_t ref_arrive(Reference *r, uint32_t dst, uint32_t src, uint32_t tag, uint32_t msg)
{
    for (unsigned i = 0; i < r->n_recvs[dst]; i++) {
        const Pending *p = &r->recvs[dst][i];
        if (accepts(p->src, p->tag, src, tag))
            return take(r->recvs[dst], &r->n_recvs[dst], i);
    }
    g_assert_cmpuint(r->n_msgs[dst], <, MAX_PENDING);
    r->msgs[dst][r->n_msgs[dst]++] = (Pending){src, tag, msg};
    return FENNEL_MATCH_NONE;
}

static uint32_t ref_post(Reference *r, uint32_t dst, uint32_t src, uint32_t tag, uint32_t recv)
{
    for (unsigned i = 0; i < r->n_msgs[dst]; i++) {
        const Pending *p = &r->msgs[dst][i];
        if (accepts(src, tag, p->src, p->tag))
            return take(r->msgs[dst], &r->n_msgs[dst], i);
    }
    g_assert_cmpuint(r->n_recvs[dst], <, MAX_PENDING);
    r->recvs[dst][r->n_recvs[dst]++] = (Pending){src, tag, recv};
    return FENNEL_MATCH_NONE;
}

/* A source or tag out of `values`, or the wildcard once in `wild` draws (never for a
 * message). */
static uint32_t draw(GRand *rand, int32_t values, int32_t wild)
{
    if (wild > 0 && g_rand_int_range(rand, 0, wild) == 0)
        return FENNEL_ANY;
    return (uint32_t)g_rand_int_range(rand, 0, values);
}

/* `steps` random arrivals and posts; `bias` in percent of them are posts, so that one kind
 * piles up (a rank with many receives posted ahead, or many messages unexpected) and then
 * drains when the bias turns. */
static void random_run(guint32 seed, unsigned steps, int32_t sources, int32_t tags, int32_t wild)
{
    GRand *rand = g_rand_new_with_seed(seed);
    Reference *ref = g_new0(Reference, 1);
    FennelMatch *m = fennel_match_new(RANKS);
    uint32_t next = 0;
    uint64_t unexpected = 0;
    for (unsigned step = 0; step < steps; step++) {
        /* The bias turns every 300 steps: posts pile up, then messages, then neither. */
        int32_t bias = (step / 300) % 3 == 0 ? 80 : (step / 300) % 3 == 1 ? 20 : 50;
        uint32_t dst = (uint32_t)g_rand_int_range(rand, 0, RANKS);
        uint32_t item = next++;
        if (g_rand_int_range(rand, 0, 100) < bias) {
            uint32_t src = draw(rand, sources, wild), tag = draw(rand, tags, wild);
            uint32_t want = ref_post(ref, dst, src, tag, item);
            uint32_t got = fennel_match_post(m, dst, src, tag, item);
            g_assert_cmpuint(got, ==, want);
            if (want != FENNEL_MATCH_NONE)
                unexpected--;
        } else {
            uint32_t src = draw(rand, sources, 0), tag = draw(rand, tags, 0);
            uint32_t want = ref_arrive(ref, dst, src, tag, item);
            uint32_t got = fennel_match_arrive(m, dst, src, tag, item);
            g_assert_cmpuint(got, ==, want);
            if (want == FENNEL_MATCH_NONE)
                unexpected++;
        }
        g_assert_cmpuint(fennel_match_unexpected(m), ==, unexpected);
    }
    fennel_match_free(m);
    g_free(ref);
    g_rand_free(rand);
}

/* Exact sources and tags only, from few values: long same-pair FIFOs. */
static void test_exact(void)
{
    for (guint32 seed = 1; seed <= 20; seed++)
        random_run(seed, 3000, 3, 2, 0);
}

/* Wildcard receives, one draw in four: the oldest of several patterns must win. */
static void test_wildcards(void)
{
    for (guint32 seed = 1; seed <= 20; seed++)
        random_run(seed, 3000, 4, 3, 4);
}

/* Many distinct pairs, like a program with a new tag for every message. */
static void test_many_tags(void)
{
    for (guint32 seed = 1; seed <= 10; seed++)
        random_run(seed, 3000, 8, 64, 16);
}

/* By hand: receives posted ahead are matched oldest first, and a wildcard posted after 100
 * of them takes its turn (found past the scan limit, which sends the rank to the hashed
 * index); afterwards the rank works as new. */
static void test_posted_ahead(void)
{
    FennelMatch *m = fennel_match_new(2);
    /* Receives 0..99 from rank 0 with tag 7, then 100: any source, tag 7. */
    for (uint32_t r = 0; r < 100; r++)
        g_assert_cmpuint(fennel_match_post(m, 1, 0, 7, r), ==, FENNEL_MATCH_NONE);
    g_assert_cmpuint(fennel_match_post(m, 1, FENNEL_ANY, 7, 100), ==, FENNEL_MATCH_NONE);
    /* A message from rank 1 with tag 7 is accepted only by the wildcard. */
    g_assert_cmpuint(fennel_match_arrive(m, 1, 1, 7, 1000), ==, 100);
    /* Messages from rank 0 take the receives in the order they were posted. */
    for (uint32_t r = 0; r < 100; r++)
        g_assert_cmpuint(fennel_match_arrive(m, 1, 0, 7, 1001 + r), ==, r);
    /* None is left: the next message is unexpected, and the next receive takes it. */
    g_assert_cmpuint(fennel_match_arrive(m, 1, 0, 7, 2000), ==, FENNEL_MATCH_NONE);
    g_assert_cmpuint(fennel_match_unexpected(m), ==, 1);
    g_assert_cmpuint(fennel_match_post(m, 1, FENNEL_ANY, FENNEL_ANY, 41), ==, 2000);
    g_assert_cmpuint(fennel_match_unexpected(m), ==, 0);
    /* Receives posted again go to the rank's rows, and messages take them, newest tag
     * first (each one scan of the row). */
    for (uint32_t r = 0; r < 10; r++)
        g_assert_cmpuint(fennel_match_post(m, 1, 0, (uint32_t)r, 300 + r), ==, FENNEL_MATCH_NONE);
    for (uint32_t r = 10; r-- > 0;)
        g_assert_cmpuint(fennel_match_arrive(m, 1, 0, r, 400 + r), ==, 300 + r);
    fennel_match_free(m);
}

/* Non-overtaking: a send arrives no earlier than the previous one between the same pair,
 * whichever other pairs came between, for more destinations than a rank's slab holds. */
static void test_channels(void)
{
    FennelMatch *m = fennel_match_new(2);
    /* Rank 0 sends to 40 destinations (ranks need not exist for the pair's record) at
     * arrival 100 * d; then again to each, with an arrival 1000 earlier: the first
     * arrival holds. */
    for (uint32_t d = 0; d < 40; d++)
        g_assert_cmpint(fennel_match_channel(m, 0, d, 100 * (int64_t)d), ==, 100 * (int64_t)d);
    for (uint32_t d = 0; d < 40; d++)
        g_assert_cmpint(fennel_match_channel(m, 0, d, 100 * (int64_t)d - 1000), ==,
                        100 * (int64_t)d);
    /* A later arrival is its own, and is now the pair's latest. */
    for (uint32_t d = 0; d < 40; d++)
        g_assert_cmpint(fennel_match_channel(m, 0, d, 5000 + (int64_t)d), ==, 5000 + (int64_t)d);
    for (uint32_t d = 0; d < 40; d++)
        g_assert_cmpint(fennel_match_channel(m, 0, d, 0), ==, 5000 + (int64_t)d);
    /* Another sender to the same destinations is a different pair. */
    g_assert_cmpint(fennel_match_channel(m, 1, 39, -7), ==, -7);
    fennel_match_free(m);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/match/exact", test_exact);
    g_test_add_func("/match/wildcards", test_wildcards);
    g_test_add_func("/match/many-tags", test_many_tags);
    g_test_add_func("/match/posted-ahead", test_posted_ahead);
    g_test_add_func("/match/channels", test_channels);
    return g_test_run();
}
