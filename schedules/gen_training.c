/* One training step of a model split by data, tensor, pipeline and expert parallelism
 * (docs/SCHEDULES.md, Training steps): the generator `training`, shaped by `--parallel`.
 *
 * Ranks: rank = t + tp (s + pp d) for tensor rank t < tp, pipeline stage s < pp and data
 * replica d < dp, so a tensor-parallel group is tp consecutive ranks (one node when
 * ranks_per_node = tp). Stage s holds layers [first(s), first(s + 1)), the layers split as
 * evenly as they go, the first stages taking one more.
 *
 * Every rank has three streams, each an execution slot (docs/SEMANTICS.md, rule 3): slot 0
 * computes, slot 1 carries the model's own communication (tensor-parallel allreduces, expert
 * all-to-alls, pipeline sends), slot 2 the gradient allreduces. Only dependencies order
 * tasks of different streams, so gradients travel while the backward pass computes.
 *
 * The step is GPipe's: every micro-batch forward (m = 0 .. M-1), then every micro-batch
 * backward (m = 0 .. M-1). For each micro-batch a stage runs, layer by layer, a compute
 * (`forward`, or `backward` going back), then with tp > 1 an allreduce of `activation`
 * bytes over its tensor-parallel group, then with ep > 1 two all-to-alls (dispatch and
 * combine) of `activation` bytes in all over its expert group (ep consecutive replicas of
 * the same tensor rank and stage); the next layer's compute waits for them. A stage sends
 * its `activation` bytes to the next stage (forward) or the previous one (backward) as one
 * put; the receiver's first compute of that micro-batch waits for it. With activation 0
 * nothing but gradients travels.
 *
 * Gradients: --size bytes per layer and rank. In the last micro-batch's backward pass, a
 * stage collects its layers' gradients from its last layer down into buckets of at least
 * `bucket` bytes (PyTorch DDP's 25 MiB by default); a bucket is allreduced over the
 * data-parallel group (the dp ranks of one tensor rank and stage) as soon as the compute of
 * its last layer ends, and the stage's first layer closes the last bucket.
 *
 * Collectives over a group are the programs of fennel's generators (`tp-allreduce`,
 * `dp-allreduce`, `ep-alltoall`; allreduce-ring, allreduce-ring and alltoall-pairwise by
 * default) spliced onto the group's ranks. */
#include "errors.h"
#include "generator.h"

#include <string.h>

typedef struct {
    uint32_t dp, tp, pp, ep, layers, micro;
    int64_t activation, bucket; /* bytes */
    FennelTime forward, backward;
    const char *tp_allreduce, *dp_allreduce, *ep_alltoall;
} Shape;

enum { SLOT_COMPUTE, SLOT_MODEL, SLOT_GRADIENT, N_SLOTS };

static gboolean bad(GError **error, const char *item, const char *why)
{
    g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT, "training --parallel %s: %s", item, why);
    return FALSE;
}

static gboolean parse_shape(const FennelGenOptions *o, Shape *sh, GError **error)
{
    *sh = (Shape){1,
                  1,
                  1,
                  1,
                  0,
                  1,
                  0,
                  25 << 20,
                  0,
                  -1,
                  "allreduce-ring",
                  "allreduce-ring",
                  "alltoall-pairwise"};
    char **items = g_strsplit(o->parallel ? o->parallel : "", ",", -1);
    gboolean ok = TRUE;
    for (char **it = items; ok && *it; it++) {
        char *item = g_strstrip(*it);
        if (*item == '\0')
            continue;
        char *eq = strchr(item, '=');
        if (eq == NULL) {
            ok = bad(error, item, "expected KEY=VALUE");
            break;
        }
        *eq = '\0';
        const char *key = item, *value = eq + 1, *why = NULL;
        struct {
            const char *key;
            uint32_t *target;
        } counts[] = {{"dp", &sh->dp}, {"tp", &sh->tp},         {"pp", &sh->pp},
                      {"ep", &sh->ep}, {"layers", &sh->layers}, {"micro-batches", &sh->micro}};
        struct {
            const char *key;
            const char **target;
        } generators[] = {{"tp-allreduce", &sh->tp_allreduce},
                          {"dp-allreduce", &sh->dp_allreduce},
                          {"ep-alltoall", &sh->ep_alltoall}};
        gboolean known = FALSE;
        for (size_t i = 0; i < G_N_ELEMENTS(counts); i++) {
            if (strcmp(key, counts[i].key) == 0) {
                int64_t v;
                known = TRUE;
                if (!fennel_parse_int(value, 1, UINT32_MAX - 2, &v, &why))
                    why = "expected a whole number >= 1";
                else
                    *counts[i].target = (uint32_t)v;
            }
        }
        for (size_t i = 0; i < G_N_ELEMENTS(generators); i++) {
            if (strcmp(key, generators[i].key) == 0) {
                known = TRUE;
                const FennelGenerator *g = fennel_generator_find(value);
                gboolean alltoall = strstr(key, "alltoall") != NULL;
                if (g == NULL)
                    why = "no generator of that name ('fennel list' names them)";
                else if (alltoall ? !(g->collective ? strcmp(g->collective, "alltoall") == 0
                                                    : g_str_has_prefix(g->name, "alltoall"))
                                  : !(g->collective && strcmp(g->collective, "allreduce") == 0))
                    why = alltoall ? "the generator does not perform an all-to-all"
                                   : "the generator does not perform an allreduce";
                else
                    *generators[i].target = g->name;
            }
        }
        if (strcmp(key, "activation") == 0 || strcmp(key, "bucket") == 0) {
            known = TRUE;
            int64_t *target = key[0] == 'a' ? &sh->activation : &sh->bucket;
            if (fennel_parse_size(value, target, &why) && key[0] == 'b' && *target == 0)
                why = "a bucket needs at least 1 byte";
        }
        if (strcmp(key, "forward") == 0 || strcmp(key, "backward") == 0) {
            known = TRUE;
            fennel_parse_duration(value, key[0] == 'f' ? &sh->forward : &sh->backward, &why);
        }
        *eq = '=';
        if (!known)
            ok = bad(error, item,
                     "unknown key (known: dp, tp, pp, ep, layers, micro-batches, activation, "
                     "forward, backward, bucket, tp-allreduce, dp-allreduce, ep-alltoall)");
        else if (why)
            ok = bad(error, item, why);
    }
    g_strfreev(items);
    if (!ok)
        return FALSE;
    if (sh->backward < 0)
        sh->backward = 2 * sh->forward;
    if (sh->layers == 0)
        sh->layers = sh->pp;
    uint64_t ranks = (uint64_t)sh->dp * sh->tp * sh->pp;
    char *shape = g_strdup_printf("dp %u x tp %u x pp %u", sh->dp, sh->tp, sh->pp);
    if (ranks > UINT32_MAX - 2)
        ok = bad(error, shape, "more ranks than fennel numbers");
    else if ((o->given & FENNEL_GEN_RANKS) && ranks != o->ranks)
        ok = bad(error, shape, "gives another rank count than --ranks");
    else if (sh->dp % sh->ep)
        ok = bad(error, shape, "ep must divide dp (expert groups are made of data replicas)");
    else if (sh->layers < sh->pp)
        ok = bad(error, shape, "needs at least one layer per pipeline stage");
    g_free(shape);
    return ok;
}

typedef struct {
    FennelProgramBuilder *b; /* NULL: counting the tasks and edges, to reserve them */
    uint64_t tasks, edges;   /* counted */
    const FennelGenOptions *o;
    GHashTable *programs; /* "generator/ranks/bytes" -> FennelProgram, built once */
    uint32_t *members;    /* the ranks of the group being spliced, in group order */
    uint32_t *exits;      /* per member: the proxy that ends its part */
    GError **error;
    gboolean failed;
} Build;

/* The program of generator `name` over n ranks for `bytes`, built once. */
static const FennelProgram *program_of(Build *B, const char *name, uint32_t n, int64_t bytes)
{
    char *key = g_strdup_printf("%s/%u/%" G_GINT64_FORMAT, name, n, bytes);
    FennelProgram *p = g_hash_table_lookup(B->programs, key);
    if (p) {
        g_free(key);
        return p;
    }
    FennelGenOptions o;
    fennel_gen_options_init(&o);
    o.ranks = n;
    o.size = bytes;
    o.given = FENNEL_GEN_RANKS | FENNEL_GEN_SIZE;
    o.limits = B->o->limits;
    p = fennel_generate(fennel_generator_find(name), &o, B->error);
    if (p == NULL) {
        g_prefix_error(B->error, "training: %s over %u ranks: ", name, n);
        B->failed = TRUE;
        g_free(key);
        return NULL;
    }
    g_hash_table_insert(B->programs, key, p);
    return p;
}

static void edge(Build *B, uint32_t from, uint32_t to)
{
    if (from == FENNEL_NO_RANK)
        return;
    if (B->b)
        fennel_builder_add_edge(B->b, from, to);
    else
        B->edges++;
}

/* A task pinned to a slot; while counting, only its number. */
static uint32_t task(Build *B, FennelTaskType type, uint32_t rank, uint32_t slot)
{
    if (B->b == NULL)
        return (uint32_t)B->tasks++;
    uint32_t t = fennel_builder_add(B->b, type, rank);
    fennel_builder_set_pin(B->b, t, slot);
    return t;
}

/* Splices the program of generator `name` over the n ranks of B->members onto `slot`:
 * member i's part starts after stream[i] and after[i] (FENNEL_NO_RANK: nothing) and ends
 * in B->exits[i], which becomes stream[i]'s last task. */
static void splice(Build *B, const char *name, uint32_t n, int64_t bytes, uint32_t slot,
                   uint32_t *stream, const uint32_t *after)
{
    const FennelProgram *c = program_of(B, name, n, bytes);
    if (c == NULL)
        return;
    FennelProgramBuilder *b = B->b;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t r = B->members[i];
        uint32_t e = task(B, FENNEL_TASK_PROXY, r, slot);
        edge(B, stream[r], e);
        if (after[i] != stream[r])
            edge(B, after[i], e);
        B->exits[i] = e; /* the entry, until the exit replaces it */
    }
    if (b == NULL) {
        /* Counting: every task of c, an edge into each of its starts and out of each task
         * (at most one to the exit besides its own). */
        B->tasks += c->n_tasks;
        B->edges += c->n_edges + 2 * (uint64_t)c->n_tasks;
        for (uint32_t i = 0; i < n; i++)
            stream[B->members[i]] = B->exits[i] = task(B, FENNEL_TASK_PROXY, 0, slot);
        return;
    }
    uint32_t base = fennel_builder_n_tasks(b);
    for (uint32_t t = 0; t < c->n_tasks; t++) {
        gboolean start = c->type[t] == FENNEL_TASK_START;
        uint32_t u = task(B, start ? FENNEL_TASK_PROXY : c->type[t], B->members[c->rank[t]], slot);
        if (!start)
            fennel_builder_set_amount(b, u, c->amount[t]);
        fennel_builder_set_flags(b, u, c->flags[t] & ~FENNEL_TASK_SOLE);
        if (c->type[t] == FENNEL_TASK_PUT || c->type[t] == FENNEL_TASK_GET)
            fennel_builder_set_peer(b, u, B->members[c->peer[t]]);
        if (c->request && c->type[t] == FENNEL_TASK_GET)
            fennel_builder_set_request(b, u, c->request[t]);
        if (start)
            edge(B, B->exits[c->rank[t]], u);
    }
    for (uint32_t i = 0; i < n; i++)
        B->exits[i] = task(B, FENNEL_TASK_PROXY, B->members[i], slot);
    for (uint32_t t = 0; t < c->n_tasks; t++) {
        if (c->succ_start[t] == c->succ_start[t + 1])
            edge(B, base + t, B->exits[c->rank[t]]);
        for (FennelEdgeIndex e = c->succ_start[t]; e < c->succ_start[t + 1]; e++)
            edge(B, base + t, base + c->succ[e]);
    }
    for (uint32_t i = 0; i < n; i++)
        stream[B->members[i]] = B->exits[i];
}

/* The first layer of stage s. */
static uint32_t first_layer(const Shape *sh, uint32_t s)
{
    uint32_t each = sh->layers / sh->pp, extra = sh->layers % sh->pp;
    return s * each + MIN(s, extra);
}

static inline uint32_t rank_of(const Shape *sh, uint32_t t, uint32_t s, uint32_t d)
{
    return t + sh->tp * (s + sh->pp * d);
}

typedef struct {
    uint32_t *compute, *model, *gradient; /* per rank: the last task of each stream */
    uint32_t *computed;                   /* per rank: its last compute (gradients ready) */
    uint32_t *arrived;                    /* per rank: the put its next micro-batch waits for */
    uint32_t *after;                      /* per group member: what its part waits for */
    int64_t *pending;                     /* per stage: gradient bytes not yet in a bucket */
} Streams;

/* One layer's compute on every rank of stage s, then its collectives. */
static void layer(Build *B, const Shape *sh, Streams *st, uint32_t s, FennelTime duration,
                  gboolean first)
{
    for (uint32_t d = 0; d < sh->dp; d++) {
        for (uint32_t t = 0; t < sh->tp; t++) {
            uint32_t r = rank_of(sh, t, s, d);
            uint32_t c = task(B, FENNEL_TASK_COMPUTE, r, SLOT_COMPUTE);
            if (B->b)
                fennel_builder_set_amount(B->b, c, duration);
            edge(B, st->compute[r], c);
            if (first)
                edge(B, st->arrived[r], c);
            if (first)
                st->arrived[r] = FENNEL_NO_RANK;
            st->compute[r] = st->computed[r] = c;
        }
    }
    if (sh->activation == 0)
        return;
    if (sh->tp > 1) {
        for (uint32_t d = 0; d < sh->dp && !B->failed; d++) {
            for (uint32_t t = 0; t < sh->tp; t++) {
                B->members[t] = rank_of(sh, t, s, d);
                st->after[t] = st->compute[B->members[t]];
            }
            splice(B, sh->tp_allreduce, sh->tp, sh->activation, SLOT_MODEL, st->model, st->after);
            for (uint32_t t = 0; t < sh->tp; t++)
                st->compute[B->members[t]] = B->exits[t];
        }
    }
    if (sh->ep > 1) {
        for (uint32_t g = 0; g < sh->dp / sh->ep && !B->failed; g++) {
            for (uint32_t t = 0; t < sh->tp; t++) {
                for (int pass = 0; pass < 2; pass++) { /* dispatch, combine */
                    for (uint32_t i = 0; i < sh->ep; i++) {
                        B->members[i] = rank_of(sh, t, s, g * sh->ep + i);
                        st->after[i] = st->compute[B->members[i]];
                    }
                    splice(B, sh->ep_alltoall, sh->ep, sh->activation / sh->ep, SLOT_MODEL,
                           st->model, st->after);
                    for (uint32_t i = 0; i < sh->ep; i++)
                        st->compute[B->members[i]] = B->exits[i];
                }
            }
        }
    }
}

/* Stage s sends micro-batch's activations (or their gradients) to stage `to`. */
static void send_stage(Build *B, const Shape *sh, Streams *st, uint32_t s, uint32_t to)
{
    for (uint32_t d = 0; d < sh->dp; d++) {
        for (uint32_t t = 0; t < sh->tp; t++) {
            uint32_t r = rank_of(sh, t, s, d), peer = rank_of(sh, t, to, d);
            uint32_t p = task(B, FENNEL_TASK_PUT, r, SLOT_MODEL);
            if (B->b) {
                fennel_builder_set_amount(B->b, p, sh->activation);
                fennel_builder_set_peer(B->b, p, peer);
            }
            edge(B, st->model[r], p);
            if (st->compute[r] != st->model[r])
                edge(B, st->compute[r], p);
            st->model[r] = p;
            st->arrived[peer] = p;
        }
    }
}

/* The gradient allreduce of stage s's pending bucket, over every data-parallel group. */
static void reduce_bucket(Build *B, const Shape *sh, Streams *st, uint32_t s)
{
    if (sh->dp > 1) {
        for (uint32_t t = 0; t < sh->tp && !B->failed; t++) {
            for (uint32_t d = 0; d < sh->dp; d++) {
                B->members[d] = rank_of(sh, t, s, d);
                st->after[d] = st->computed[B->members[d]];
            }
            splice(B, sh->dp_allreduce, sh->dp, st->pending[s], SLOT_GRADIENT, st->gradient,
                   st->after);
        }
    }
    st->pending[s] = 0;
}

/* Builds (or counts) the whole step into B. */
static void walk(Build *B, const Shape *sh, uint32_t p)
{
    uint32_t widest = MAX(MAX(sh->dp, sh->tp), sh->ep);
    Streams st = {g_new(uint32_t, p),     g_new(uint32_t, p), g_new(uint32_t, p),
                  g_new(uint32_t, p),     g_new(uint32_t, p), g_new(uint32_t, widest),
                  g_new0(int64_t, sh->pp)};
    for (uint32_t r = 0; r < p; r++) {
        uint32_t start = task(B, FENNEL_TASK_START, r, SLOT_COMPUTE);
        st.compute[r] = st.model[r] = st.gradient[r] = st.computed[r] = start;
        st.arrived[r] = FENNEL_NO_RANK;
    }
    for (uint32_t m = 0; m < sh->micro && !B->failed; m++) {
        for (uint32_t s = 0; s < sh->pp && !B->failed; s++) {
            for (uint32_t l = first_layer(sh, s); l < first_layer(sh, s + 1); l++)
                layer(B, sh, &st, s, sh->forward, l == first_layer(sh, s));
            if (s + 1 < sh->pp && sh->activation > 0)
                send_stage(B, sh, &st, s, s + 1);
        }
    }
    for (uint32_t m = 0; m < sh->micro && !B->failed; m++) {
        for (uint32_t s = sh->pp; s-- > 0 && !B->failed;) {
            uint32_t top = first_layer(sh, s + 1) - 1;
            for (uint32_t l = top + 1; l-- > first_layer(sh, s) && !B->failed;) {
                layer(B, sh, &st, s, sh->backward, l == top);
                if (m + 1 == sh->micro && B->o->size > 0) {
                    st.pending[s] += B->o->size;
                    if (st.pending[s] >= sh->bucket || l == first_layer(sh, s))
                        reduce_bucket(B, sh, &st, s);
                }
            }
            if (s > 0 && sh->activation > 0)
                send_stage(B, sh, &st, s, s - 1);
        }
    }
    g_free(st.compute);
    g_free(st.model);
    g_free(st.gradient);
    g_free(st.computed);
    g_free(st.arrived);
    g_free(st.after);
    g_free(st.pending);
}

static FennelProgram *training(const FennelGenOptions *o, GError **error)
{
    Shape sh;
    if (!parse_shape(o, &sh, error))
        return NULL;
    uint32_t p = sh.dp * sh.tp * sh.pp, widest = MAX(MAX(sh.dp, sh.tp), sh.ep);
    Build B = {
        NULL,
        0,
        0,
        o,
        g_hash_table_new_full(g_str_hash, g_str_equal, g_free, (GDestroyNotify)fennel_program_free),
        g_new(uint32_t, widest),
        g_new(uint32_t, widest),
        error,
        FALSE};
    /* Counted first, so that the builder takes its memory at once, and a step beyond
     * --max-tasks or memory is refused before it is built. */
    walk(&B, &sh, p);
    if (!B.failed && B.tasks > UINT32_MAX - 1) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                    "training: %" G_GUINT64_FORMAT " tasks, more than a program holds", B.tasks);
        B.failed = TRUE;
    }
    if (!B.failed && fennel_check_size(o->limits, B.tasks, B.edges, p, N_SLOTS, error)) {
        B.b = fennel_gen_builder(o);
        fennel_builder_reserve(B.b, B.tasks, B.edges);
        walk(&B, &sh, p);
    } else {
        B.failed = TRUE;
    }
    g_hash_table_destroy(B.programs);
    g_free(B.members);
    g_free(B.exits);
    if (B.failed) {
        if (B.b)
            fennel_builder_free(B.b);
        return NULL;
    }
    fennel_builder_set_acyclic(B.b);
    return fennel_builder_finish(B.b, NULL, p, N_SLOTS, error);
}

const FennelGenerator fennel_gen_training = {
    .name = "training",
    .summary = "one training step: data, tensor, pipeline and expert parallel collectives "
               "around the layers' computes (--parallel dp=D,tp=T,pp=P,...); --size: gradient "
               "bytes per layer and rank",
    .options = FENNEL_GEN_RANKS | FENNEL_GEN_SIZE | FENNEL_GEN_PARALLEL,
    .generate = training,
};
