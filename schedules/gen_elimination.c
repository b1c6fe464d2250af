/* Rabenseifner–Träff allreduce for any rank count (Rabenseifner and Träff 2004 §2-3):
 * the butterfly for the factor 2^k of p = 2^k q (q odd), then the non-overlapping
 * elimination protocol of §3.3 for q: one 3-2 elimination step and pairs of 2-1
 * elimination steps remove the q - 2^floor(lg q) excess "processes" in the first two
 * rounds, after which butterfly steps finish the reduction. Because the butterfly
 * comes first, each of the q "processes" is a unit of 2^k ranks that hold the same
 * partial result (latency variant) or 2^k different pieces of it (bandwidth variant),
 * and a step on units is 2^k independent steps of their members (member i with
 * member i). A butterfly of units U, V makes the unit U ++ V; a 3-2 step on U0, U1, U2
 * leaves U0 ++ U1 and eliminates U2; a 2-1 step of V into U leaves U.
 *
 * --variant latency (vectors of at most the paper's threshold b): whole vectors are
 * exchanged and reduced. 3-2 step on p0, p1, p2: round 1, p1 and p2 exchange and
 * reduce (v1 + v2); round 2, p2 sends v1 + v2 to p0 and p0 sends v0 to p1, both reduce
 * v0 + (v1 + v2). 2-1 step: the eliminated rank sends its vector, the survivor reduces.
 * A last round returns the result to every eliminated rank (p1 to p2; the survivor
 * of a 2-1 step to its partner). Rounds: ceil(lg p) + 1; time under the postal model
 * (ceil(lg p) + 1)(a + mb) + ceil(lg p) mg (§3.3). For q = 3 and q = 9 the odd factor
 * is reduced by rings of 3 instead (§3.4): ceil(lg p) rounds, the optimum. In a ring
 * of 3 with whole vectors every member must see the other two vectors and reduce all
 * three in canonical order; fennel builds those two ring rounds as one stage in which
 * each member sends its vector to the other two (2 messages per member, as in the ring,
 * and the same 2a + 2mb + 2mg under the postal model), because a put carries its
 * sender's own data and cannot forward a vector that was not reduced into it.
 *
 * --variant bandwidth (vectors above b): every step halves. Butterfly: the lower unit
 * keeps the lower half of each member's piece. 3-2 step (§3.1): round 1, p2 sends the
 * upper half to p1 and p1 the lower half to p2, both reduce; round 2, p2 sends its
 * reduced lower half to p0 and p0 its upper half to p1, both reduce; p0 keeps the lower
 * and p1 the upper half of v0 + (v1 + v2). 2-1 step: the eliminated pair sends each
 * survivor the half it holds. The routing phase replays every message backwards, last
 * round first, without computes, which returns the result to the eliminated ranks too.
 * Rounds: 2 ceil(lg p); time 2 ceil(lg p) a + 2m(1.5 - 1/p')b + m(1.5 - 1/p')g for odd p,
 * p' = 2^floor(lg p) (§3.3). The vector is cut into p' blocks (bytes floor(m i / p') ..
 * floor(m (i + 1) / p') - 1 of block i; uneven m gives blocks differing by one byte).
 *
 * Rounds become stages: a rank's messages of one round depend on its state after the
 * previous round it took part in, and each rank that receives in a round reduces
 * everything it received there in one compute; the rounds of different groups need not
 * line up, so a rank waits only for the data it needs. */
#include "errors.h"
#include "generator.h"
#include "stages.h"

#include <string.h>

typedef struct {
    uint32_t src, dst, first, count, round; /* count 0: the whole vector */
} Msg;

typedef struct {
    uint32_t nb;      /* blocks (bandwidth variant) */
    gboolean halving; /* bandwidth variant */
    uint32_t *lo, *hi;
    uint32_t *ready; /* per rank: first round it is free for */
    GArray *msgs;
    GArray *returns; /* latency variant: (survivor, eliminated) pairs */
} Elim;

static void send(Elim *e, uint32_t src, uint32_t dst, uint32_t first, uint32_t count,
                 uint32_t round)
{
    Msg m = {src, dst, first, count, round};
    g_array_append_val(e->msgs, m);
}

/* Member pieces of the lower and upper half of rank r's current piece. */
static uint32_t mid_of(const Elim *e, uint32_t r)
{
    return (e->lo[r] + e->hi[r]) / 2;
}

/* Butterfly step of ranks a (lower) and b. */
static void butterfly(Elim *e, uint32_t a, uint32_t b)
{
    uint32_t round = MAX(e->ready[a], e->ready[b]);
    if (e->halving) {
        uint32_t mid = mid_of(e, a);
        send(e, a, b, mid, e->hi[a] - mid, round);
        send(e, b, a, e->lo[a], mid - e->lo[a], round);
        e->hi[a] = mid;
        e->lo[b] = mid;
    } else {
        send(e, a, b, 0, 0, round);
        send(e, b, a, 0, 0, round);
    }
    e->ready[a] = e->ready[b] = round + 1;
}

/* 3-2 elimination step on p0 = a, p1 = b, p2 = c (c is eliminated). */
static void three_two(Elim *e, uint32_t a, uint32_t b, uint32_t c)
{
    uint32_t r1 = MAX(e->ready[b], e->ready[c]), r2 = MAX(r1 + 1, e->ready[a]);
    if (e->halving) {
        uint32_t lo = e->lo[a], mid = mid_of(e, a), hi = e->hi[a];
        send(e, b, c, lo, mid - lo, r1);
        send(e, c, b, mid, hi - mid, r1);
        send(e, a, b, mid, hi - mid, r2);
        send(e, c, a, lo, mid - lo, r2);
        e->hi[a] = mid;
        e->lo[b] = mid;
    } else {
        send(e, b, c, 0, 0, r1);
        send(e, c, b, 0, 0, r1);
        send(e, a, b, 0, 0, r2);
        send(e, c, a, 0, 0, r2);
        uint32_t pair[2] = {b, c};
        g_array_append_vals(e->returns, pair, 2);
    }
    e->ready[a] = e->ready[b] = r2 + 1;
}

/* 2-1 elimination step: c's piece is reduced into a (same piece), c is eliminated. */
static void two_one(Elim *e, uint32_t a, uint32_t c)
{
    uint32_t round = MAX(e->ready[a], e->ready[c]);
    if (e->halving)
        send(e, c, a, e->lo[c], e->hi[c] - e->lo[c], round);
    else {
        send(e, c, a, 0, 0, round);
        uint32_t pair[2] = {a, c};
        g_array_append_vals(e->returns, pair, 2);
    }
    e->ready[a] = round + 1;
}

/* Ring of three (latency variant): members exchange whole vectors with both others. */
static void ring3(Elim *e, uint32_t a, uint32_t b, uint32_t c)
{
    uint32_t round = MAX(MAX(e->ready[a], e->ready[b]), e->ready[c]);
    /* Peer order as in the original's multicast stages: (i + 1) mod 3, then (i + 2)
     * mod 3, so that in each of the two sends every member also receives one. */
    uint32_t m[3] = {a, b, c};
    for (int i = 0; i < 3; i++) {
        send(e, m[i], m[(i + 1) % 3], 0, 0, round);
        send(e, m[i], m[(i + 2) % 3], 0, 0, round);
    }
    e->ready[a] = e->ready[b] = e->ready[c] = round + 2;
}

/* Unit-level steps: the units are consecutive slices of `act` of `u` members. */
static void units_butterfly(Elim *e, const uint32_t *x, const uint32_t *y, uint32_t u)
{
    for (uint32_t i = 0; i < u; i++)
        butterfly(e, x[i], y[i]);
}

/* Butterfly levels until one unit is left; returns the new unit size. */
static uint32_t butterfly_levels(Elim *e, const uint32_t *act, uint32_t count, uint32_t u)
{
    for (; count > u; u *= 2) {
        for (uint32_t k = 0; k < count; k += 2 * u)
            units_butterfly(e, act + k, act + k + u, u);
    }
    return u;
}

static gboolean parse_variant(const FennelGenOptions *o, gboolean *halving, GError **error)
{
    if (o->variant == NULL || strcmp(o->variant, "latency") == 0)
        *halving = FALSE;
    else if (strcmp(o->variant, "bandwidth") == 0)
        *halving = TRUE;
    else {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                    "allreduce-elimination: unknown --variant '%s' (latency or bandwidth)",
                    o->variant);
        return FALSE;
    }
    return TRUE;
}

static FennelProgram *allreduce_elimination(const FennelGenOptions *o, GError **error)
{
    uint32_t p = o->ranks;
    Elim e = {0};
    if (!parse_variant(o, &e.halving, error))
        return NULL;
    if (p < 1) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                    "allreduce-elimination needs --ranks >= 1");
        return NULL;
    }
    uint32_t u = 1, q = p;
    while (q % 2 == 0) {
        q /= 2;
        u *= 2;
    }
    gboolean rings = !e.halving && (q == 3 || q == 9);
    if (rings && o->size > INT64_MAX / 2) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                    "allreduce-elimination needs --size <= %" G_GINT64_FORMAT
                    " B here: a ring of three reduces two vectors at once",
                    (gint64)(INT64_MAX / 2));
        return NULL;
    }
    uint32_t qpow = 1; /* 2^floor(lg q) */
    while (2 * qpow <= q)
        qpow *= 2;
    e.nb = u * qpow;
    e.lo = g_new0(uint32_t, p);
    e.hi = g_new(uint32_t, p);
    e.ready = g_new0(uint32_t, p);
    for (uint32_t r = 0; r < p; r++)
        e.hi[r] = e.nb;
    e.msgs = g_array_new(FALSE, FALSE, sizeof(Msg));
    e.returns = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    uint32_t *act = g_new(uint32_t, p);
    for (uint32_t r = 0; r < p; r++)
        act[r] = r;

    /* The factor 2^k: butterfly levels inside groups of u consecutive ranks. */
    for (uint32_t w = 1; w < u; w *= 2) {
        for (uint32_t k = 0; k < p; k += 2 * w)
            units_butterfly(&e, act + k, act + k + w, w);
    }
    if (rings) {
        /* Rings of three units, then (q = 9) of three triples. */
        for (uint32_t w = u; w < p; w *= 3) {
            for (uint32_t k = 0; k < p; k += 3 * w) {
                for (uint32_t i = 0; i < w; i++)
                    ring3(&e, act[k + i], act[k + w + i], act[k + 2 * w + i]);
            }
        }
    } else if (q > 1) {
        /* Non-overlapping elimination on q units: a 3-2 step on units 0-2, pairs of 2-1
         * steps on groups of four units (butterflies in round 1, then the second pair
         * into the first), butterflies on the remaining pairs. */
        uint32_t excess = q - qpow, groups = (excess - 1) / 2, n_surv = 0;
        uint32_t *surv = g_new(uint32_t, p);
        for (uint32_t i = 0; i < u; i++)
            three_two(&e, act[i], act[u + i], act[2 * u + i]);
        memcpy(surv, act, sizeof(uint32_t) * 2 * u);
        n_surv = 2 * u;
        uint32_t k = 3 * u;
        for (uint32_t g = 0; g < groups; g++, k += 4 * u) {
            const uint32_t *x = act + k;
            units_butterfly(&e, x, x + u, u);
            units_butterfly(&e, x + 2 * u, x + 3 * u, u);
            for (uint32_t i = 0; i < 2 * u; i++)
                two_one(&e, x[i], x[2 * u + i]);
            memcpy(surv + n_surv, x, sizeof(uint32_t) * 2 * u);
            n_surv += 2 * u;
        }
        for (; k < p; k += 2 * u) {
            units_butterfly(&e, act + k, act + k + u, u);
            memcpy(surv + n_surv, act + k, sizeof(uint32_t) * 2 * u);
            n_surv += 2 * u;
        }
        butterfly_levels(&e, surv, n_surv, 2 * u);
        g_free(surv);
    }

    /* Emit the rounds as stages: the reduction, then the return or the routing phase. */
    FennelStages *s = fennel_gen_stages(o, p);
    if (e.halving)
        fennel_builder_set_n_blocks(fennel_stages_builder(s), e.nb);
    uint32_t rounds = 0;
    const Msg *m = (const Msg *)e.msgs->data;
    for (guint i = 0; i < e.msgs->len; i++)
        rounds = MAX(rounds, m[i].round + 1);
    /* Counting sort of the messages by round, keeping their order. */
    guint *start = g_new0(guint, rounds + 1), *order = g_new(guint, e.msgs->len);
    for (guint i = 0; i < e.msgs->len; i++)
        start[m[i].round + 1]++;
    for (uint32_t r = 0; r < rounds; r++)
        start[r + 1] += start[r];
    guint *fill = g_memdup2(start, sizeof(guint) * (rounds + 1));
    for (guint i = 0; i < e.msgs->len; i++)
        order[fill[m[i].round]++] = i;
    g_free(fill);
    int64_t n = o->size;
    uint64_t bq = (uint64_t)n / e.nb, br = (uint64_t)n % e.nb;
#define OFFSET(i) ((int64_t)(bq * (i) + (br * (i)) / e.nb))
    for (uint32_t r = 0; r < rounds; r++) {
        for (guint j = start[r]; j < start[r + 1]; j++) {
            const Msg *x = &m[order[j]];
            if (x->count == 0)
                fennel_stages_put(s, x->src, x->dst, n);
            else
                fennel_stages_put_blocks(s, x->src, x->dst,
                                         OFFSET(x->first + x->count) - OFFSET(x->first), x->first,
                                         x->count);
        }
        fennel_stages_close(s, TRUE);
    }
    if (e.halving) {
        for (uint32_t r = rounds; r-- > 0;) {
            for (guint j = start[r]; j < start[r + 1]; j++) {
                const Msg *x = &m[order[j]];
                fennel_stages_put_blocks(s, x->dst, x->src,
                                         OFFSET(x->first + x->count) - OFFSET(x->first), x->first,
                                         x->count);
            }
            fennel_stages_close(s, FALSE);
        }
    } else {
        const uint32_t *pair = (const uint32_t *)e.returns->data;
        for (guint i = 0; i + 1 < e.returns->len; i += 2)
            fennel_stages_put(s, pair[i], pair[i + 1], n);
        fennel_stages_close(s, FALSE);
    }
#undef OFFSET
    g_free(start);
    g_free(order);
    g_free(act);
    g_free(e.lo);
    g_free(e.hi);
    g_free(e.ready);
    g_array_free(e.msgs, TRUE);
    g_array_free(e.returns, TRUE);
    return fennel_stages_finish(s, FALSE, error);
}

const FennelGenerator fennel_gen_allreduce_elimination = {
    .name = "allreduce-elimination",
    .summary = "Rabenseifner-Träff: butterfly + 3-2/2-1 elimination (rings of 3 for q = 3, 9), "
               "--variant latency (default) or bandwidth; any --ranks",
    .options = FENNEL_GEN_RANKS | FENNEL_GEN_SIZE | FENNEL_GEN_VARIANT,
    .collective = "allreduce",
    .generate = allreduce_elimination,
};
