/* From a Chakra trace to a fennel program (docs/FORMATS.md, the mapping table). Each file
 * is a rank; a node becomes a task (a collective node, a stand-in pair that the
 * collective's program is spliced between); its data dependencies become edges, as in
 * ASTRA-sim's feeder, which ignores ctrl_deps. An NPU runs computes on one stream and
 * communication on others, as ASTRA-sim does: computes (and the other nodes) are pinned to
 * slot 0, sends, receives and collectives to slots 1 and up, so that only dependencies
 * order a compute and a message. */
#include "chakra.h"

#include "errors.h"
#include "model.h"

#include <string.h>

typedef struct {
    uint32_t entry, exit; /* proxies around a collective on one rank */
} Stand;

/* The slots of an NPU: its compute stream, then its communication streams (a collective's
 * program's slot k runs on COMM_SLOT + k). */
enum { COMPUTE_SLOT = 0, COMM_SLOT = 1 };

static gboolean fail_node(GError **error, const FennelChakraRank *r, const FennelChakraNode *n,
                          const char *format, ...) G_GNUC_PRINTF(4, 5);
static gboolean fail_node(GError **error, const FennelChakraRank *r, const FennelChakraNode *n,
                          const char *format, ...)
{
    va_list args;
    va_start(args, format);
    char *what = g_strdup_vprintf(format, args);
    va_end(args);
    fennel_error_at(error, r->file, 0, 0,
                    "byte %" G_GUINT64_FORMAT " (node %" G_GUINT64_FORMAT "): %s", n->offset, n->id,
                    what);
    g_free(what);
    return FALSE;
}

static gboolean rank_of(const FennelChakraTrace *t, const FennelChakraRank *r,
                        const FennelChakraNode *n, int64_t v, const char *key, GError **error)
{
    if (v < 0 || v >= (int64_t)t->n_ranks)
        return fail_node(error, r, n, "%s %" G_GINT64_FORMAT " is not a rank of the %u-file trace",
                         key, v, t->n_ranks);
    return TRUE;
}

/* Copies the program of one collective into b, its rank i on trace rank member[i] (stand
 * is indexed by i): its start tasks become proxies after the entries, its tasks without
 * successors come before the exits. */
static void splice(FennelProgramBuilder *b, const FennelProgram *c, const Stand *stand,
                   const uint32_t *member, uint32_t tag_base, gboolean blocks)
{
    uint32_t base = fennel_builder_n_tasks(b);
    for (uint32_t t = 0; t < c->n_tasks; t++) {
        uint32_t type = c->type[t] == FENNEL_TASK_START ? FENNEL_TASK_PROXY : c->type[t];
        uint32_t u = fennel_builder_add(b, type, member[c->rank[t]]);
        g_assert(u == base + t);
        if (c->type[t] != FENNEL_TASK_START)
            fennel_builder_set_amount(b, u, c->amount[t]);
        fennel_builder_set_flags(b, u, c->flags[t]);
        fennel_builder_set_pin(b, u,
                               COMM_SLOT + (c->pin && c->pin[t] != FENNEL_NO_RANK ? c->pin[t] : 0));
        if (c->type[t] == FENNEL_TASK_PUT || c->type[t] == FENNEL_TASK_GET ||
            c->type[t] == FENNEL_TASK_SEND || c->type[t] == FENNEL_TASK_RECV)
            fennel_builder_set_peer(b, u,
                                    c->peer[t] < c->n_ranks ? member[c->peer[t]] : c->peer[t]);
        if (c->request && c->type[t] == FENNEL_TASK_GET)
            fennel_builder_set_request(b, u, c->request[t]);
        if (c->tag && (c->type[t] == FENNEL_TASK_SEND || c->type[t] == FENNEL_TASK_RECV))
            fennel_builder_set_tag(b, u,
                                   c->tag[t] == FENNEL_ANY ? FENNEL_ANY : tag_base + c->tag[t]);
        if (c->any && c->any[t])
            fennel_builder_set_any(b, u, c->any[t]);
        if (blocks && c->block_count && c->block_count[t] > 0)
            fennel_builder_set_blocks(b, u, c->block_first[t], c->block_count[t]);
        if (c->type[t] == FENNEL_TASK_START)
            fennel_builder_add_edge(b, stand[c->rank[t]].entry, u);
        if (c->succ_start[t] == c->succ_start[t + 1])
            fennel_builder_add_edge(b, u, stand[c->rank[t]].exit);
        for (FennelEdgeIndex e = c->succ_start[t]; e < c->succ_start[t + 1]; e++)
            fennel_builder_add_edge(b, u, base + c->succ[e]);
        if (c->start_succ_start)
            for (FennelEdgeIndex e = c->start_succ_start[t]; e < c->start_succ_start[t + 1]; e++)
                fennel_builder_add_start_edge(b, u, base + c->start_succ[e]);
    }
}

/* A message's bytes: its comm_size, or its share of the buffer `size` (-1: neither). */
static int64_t message_bytes(const FennelChakraNode *nd, int64_t size, gboolean *used)
{
    if (nd->comm_size >= 0)
        return nd->comm_size;
    if (size <= 0)
        return -1;
    *used = TRUE;
    if (nd->chunk_total > 0 && nd->chunk_cnt > 0 && nd->chunk_cnt <= nd->chunk_total)
        return (int64_t)((__int128)size * nd->chunk_cnt / nd->chunk_total);
    return size;
}

static const char *const node_type_names[] = {"INVALID_NODE",   "METADATA_NODE", "MEM_LOAD_NODE",
                                              "MEM_STORE_NODE", "COMP_NODE",     "COMM_SEND_NODE",
                                              "COMM_RECV_NODE", "COMM_COLL_NODE"};

/* The time of a compute node: its recorded duration, or, without one, the roofline of its
 * num_ops and tensor_size on the model's GPU (a host operation keeps its recorded time);
 * -1 with the error for values no trace can mean. */
static int64_t compute_time(const FennelChakraRank *r, const FennelChakraNode *nd,
                            const FennelModel *gpu, GError **error)
{
    if (nd->num_ops < -1 || nd->tensor_size < -1) {
        fail_node(error, r, nd, "a negative (or beyond 2^63) %s",
                  nd->num_ops < -1 ? "num_ops" : "tensor_size");
        return -1;
    }
    if (nd->timed || nd->is_cpu_op || (nd->num_ops <= 0 && nd->tensor_size <= 0))
        return nd->duration_ps;
    return fennel_model_roofline(gpu, MAX(nd->num_ops, 0), MAX(nd->tensor_size, 0));
}

/* The time of a memory load or store: its recorded duration, or its tensor_size over the
 * GPU's memory bandwidth; -1 with the error when it has neither. */
static int64_t memory_time(const FennelChakraRank *r, const FennelChakraNode *nd,
                           const FennelModel *gpu, GError **error)
{
    if (nd->timed)
        return nd->duration_ps;
    if (nd->tensor_size < 0) {
        fail_node(error, r, nd,
                  "a %s without tensor_size or a duration: its bytes are needed to time it",
                  node_type_names[nd->type]);
        return -1;
    }
    return fennel_model_roofline(gpu, 0, nd->tensor_size);
}

/* A collective's program, by what it was expanded from (FennelChakraExpand makes the same
 * program of the same arguments). */
typedef struct {
    int64_t kind, bytes;
    uint32_t ranks;
    FennelProgram *program; /* kept, or NULL: expanded once and freed */
} Expansion;

static guint expansion_hash(gconstpointer p)
{
    const Expansion *e = p;
    uint64_t h = (uint64_t)e->bytes * 0x9e3779b97f4a7c15u ^ (uint64_t)e->kind << 40 ^ e->ranks;
    return (guint)(h ^ h >> 32);
}

static gboolean expansion_equal(gconstpointer a, gconstpointer b)
{
    const Expansion *x = a, *y = b;
    return x->kind == y->kind && x->bytes == y->bytes && x->ranks == y->ranks;
}

static void free_expansion(gpointer p)
{
    Expansion *e = p;
    if (e->program)
        fennel_program_free(e->program);
    g_free(e);
}

/* A node of the trace, by id and by place. */
typedef struct {
    uint64_t id;
    uint32_t rank, index;
} NodeRef;

static int compare_ref(const void *a, const void *b)
{
    const NodeRef *x = a, *y = b;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    return x->rank != y->rank ? (x->rank < y->rank ? -1 : 1)
                              : (x->index > y->index) - (x->index < y->index);
}

/* Where the node of each id is, in a trace whose ids are unique across its ranks and span
 * at most a few times their count (a trace fennel wrote: ids are the tasks' places in the
 * program it wrote): a table indexed by id - lo, a free entry's rank UINT32_MAX. It puts
 * the nodes in the order of their ids, and finds a dependency, without sorting or hashing.
 * NULL when the ids are too sparse for it or one repeats. */
typedef struct {
    uint32_t rank, index;
} Place;

static Place *id_table(const FennelChakraTrace *t, uint64_t n_nodes, uint64_t *lo_out,
                       uint64_t *span_out)
{
    if (n_nodes == 0 || n_nodes >= UINT32_MAX)
        return NULL;
    uint64_t lo = UINT64_MAX, hi = 0;
    for (uint32_t r = 0; r < t->n_ranks; r++)
        for (uint32_t i = 0; i < t->ranks[r].n_nodes; i++) {
            lo = MIN(lo, t->ranks[r].nodes[i].id);
            hi = MAX(hi, t->ranks[r].nodes[i].id);
        }
    if (hi - lo >= 4 * n_nodes + 64)
        return NULL;
    uint64_t span = hi - lo + 1;
    Place *at = g_new(Place, span);
    memset(at, 0xff, span * sizeof *at);
    for (uint32_t r = 0; r < t->n_ranks; r++)
        for (uint32_t i = 0; i < t->ranks[r].n_nodes; i++) {
            Place *e = &at[t->ranks[r].nodes[i].id - lo];
            if (e->rank != UINT32_MAX) {
                g_free(at);
                return NULL;
            }
            *e = (Place){r, i};
        }
    *lo_out = lo;
    *span_out = span;
    return at;
}

/* The index of the node with this id in a rank whose ids increase, or -1: a search from
 * node i (whose dependency it is: mostly a node shortly before it) by doubling steps, then
 * by halving. It replaces a hash table of every node's id. */
static int64_t find_increasing(const FennelChakraHeld *nodes, uint32_t n, uint32_t i, uint64_t id)
{
    uint64_t lo, hi; /* the node, if any, is in [lo, hi) */
    if (nodes[i].id == id)
        return i;
    if (nodes[i].id > id) {
        uint64_t step = 1;
        hi = i;
        while (step <= hi && nodes[hi - step].id > id) {
            hi -= step;
            step *= 2;
        }
        lo = step <= hi ? hi - step : 0;
    } else {
        uint64_t step = 1;
        lo = (uint64_t)i + 1;
        while (lo + step <= n && nodes[lo + step - 1].id < id) {
            lo += step;
            step *= 2;
        }
        hi = MIN(n, lo + step);
    }
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (nodes[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && nodes[lo].id == id ? (int64_t)lo : -1;
}

/* What lowering a trace gathers as it adds the nodes' tasks. */
typedef struct {
    const FennelChakraTrace *t;
    FennelProgramBuilder *b;
    int64_t size;
    const FennelModel *gpu;
    uint32_t **first, **last; /* per rank, per node: its first and last task */
    GArray *memory;           /* memory tasks, pinned once the streams are counted */
    gboolean size_used;
    int64_t max_tag;
    uint32_t chunks;    /* total_chunk_cnt of the messages that carry chunks */
    uint32_t processes; /* slots so far */
} Lowering;

/* The slot of a node's task: the one fennel wrote (fennel_slot), or its stream's. */
static gboolean pin(Lowering *lw, const FennelChakraRank *cr, const FennelChakraNode *nd,
                    uint32_t task, uint32_t stream, GError **error)
{
    if (nd->slot < 0) {
        fennel_builder_set_pin(lw->b, task, stream);
        return TRUE;
    }
    if (nd->slot >= FENNEL_SLOTS_MAX)
        return fail_node(error, cr, nd, "fennel_slot %" G_GINT64_FORMAT " is too large", nd->slot);
    fennel_builder_set_pin(lw->b, task, (uint32_t)nd->slot);
    lw->processes = MAX(lw->processes, (uint32_t)nd->slot + 1);
    return TRUE;
}

/* A rank without nodes: a proxy after its start, on its compute stream. */
static void add_stand_in(FennelProgramBuilder *b, uint32_t start, uint32_t r)
{
    uint32_t task = fennel_builder_add(b, FENNEL_TASK_PROXY, r);
    fennel_builder_set_pin(b, task, COMPUTE_SLOT);
    fennel_builder_add_edge(b, start, task);
}

/* The task of a held node without an extra that is a compute, a send or a receive (all of
 * a ring's nodes), read in place: what add_node does for it, without unpacking the node
 * (95 instructions a node). NO_TASK, having added nothing, for anything add_node would
 * refuse, which add_node then says. */
#define NO_TASK UINT32_MAX
static uint32_t plain_task(Lowering *lw, uint32_t r, uint32_t i)
{
    const FennelChakraRank *cr = &lw->t->ranks[r];
    const FennelChakraHeld *h = &cr->nodes[i];
    FennelProgramBuilder *b = lw->b;
    uint32_t task;
    if (h->extra != FENNEL_CHAKRA_NO_EXTRA)
        return NO_TASK;
    if (h->type == FENNEL_CHAKRA_COMP) {
        /* No num_ops nor tensor_size: its recorded time. */
        uint32_t as = h->flags & FENNEL_CHAKRA_PROXY   ? FENNEL_TASK_PROXY
                      : h->flags & FENNEL_CHAKRA_SLEEP ? FENNEL_TASK_SLEEP
                                                       : FENNEL_TASK_COMPUTE;
        task = fennel_builder_add(b, as, r);
        if (as != FENNEL_TASK_PROXY)
            fennel_builder_set_amount(b, task, h->duration_ps);
        fennel_builder_set_pin(b, task, h->slot < 0 ? COMPUTE_SLOT : (uint32_t)h->slot);
    } else if (h->type == FENNEL_CHAKRA_COMM_SEND || h->type == FENNEL_CHAKRA_COMM_RECV) {
        gboolean send = h->type == FENNEL_CHAKRA_COMM_SEND;
        gboolean chunks = (h->flags & FENNEL_CHAKRA_CHUNKS) != 0;
        int64_t bytes = h->comm_size, tag = h->tag < 0 ? 0 : h->tag;
        if (h->peer < 0 || (uint32_t)h->peer >= lw->t->n_ranks || tag >= FENNEL_ANY / 2)
            return NO_TASK;
        if (bytes < 0) {
            if (lw->size <= 0)
                return NO_TASK;
            bytes =
                chunks && cr->chunk_total > 0 && h->chunk.cnt > 0 && h->chunk.cnt <= cr->chunk_total
                    ? (int64_t)((__int128)lw->size * h->chunk.cnt / cr->chunk_total)
                    : lw->size;
        }
        gboolean blocks = send && chunks && cr->chunk_total > 0;
        if (blocks &&
            (h->chunk.cnt == 0 || cr->chunk_total > UINT32_MAX || h->chunk.idx >= cr->chunk_total ||
             h->chunk.cnt > cr->chunk_total || (lw->chunks != 0 && cr->chunk_total != lw->chunks)))
            return NO_TASK;
        if (h->comm_size < 0)
            lw->size_used = TRUE;
        lw->max_tag = MAX(lw->max_tag, tag);
        task = fennel_builder_add(b, send ? FENNEL_TASK_SEND : FENNEL_TASK_RECV, r);
        fennel_builder_set_pin(b, task, h->slot < 0 ? COMM_SLOT : (uint32_t)h->slot);
        fennel_builder_set_peer(b, task, (uint32_t)h->peer);
        if (send && !(h->flags & FENNEL_CHAKRA_RENDEZVOUS))
            fennel_builder_set_flags(b, task, FENNEL_TASK_EAGER);
        if (blocks) {
            lw->chunks = (uint32_t)cr->chunk_total;
            fennel_builder_set_n_blocks(b, lw->chunks);
            fennel_builder_set_blocks(b, task, h->chunk.idx, h->chunk.cnt);
        }
        fennel_builder_set_tag(b, task, (uint32_t)tag);
        fennel_builder_set_amount(b, task, bytes);
    } else {
        return NO_TASK;
    }
    if (h->slot >= 0)
        lw->processes = MAX(lw->processes, (uint32_t)h->slot + 1);
    if (h->name[0])
        fennel_builder_set_held_name(b, task, h->name);
    return task;
}

/* Adds the task (or, for a collective, the two stand-ins) of node i of rank r. */
static gboolean add_node(Lowering *lw, uint32_t r, uint32_t i, GError **error)
{
    uint32_t plain = plain_task(lw, r, i);
    if (plain != NO_TASK) {
        lw->first[r][i] = lw->last[r][i] = plain;
        return TRUE;
    }
    const FennelChakraTrace *t = lw->t;
    FennelProgramBuilder *b = lw->b;
    const FennelChakraRank *cr = &t->ranks[r];
    FennelChakraNode node;
    fennel_chakra_node(cr, i, &node);
    const FennelChakraNode *nd = &node;
    uint32_t task;
    /* A collective node on the host side (is_cpu_op, as PyTorch traces record the launch of
     * c10d calls) takes its recorded time, as a compute does. */
    uint32_t type =
        nd->type == FENNEL_CHAKRA_COMM_COLL && nd->is_cpu_op ? FENNEL_CHAKRA_COMP : nd->type;
    int64_t d;
    switch (type) {
    case FENNEL_CHAKRA_COMP:
        if ((d = compute_time(cr, nd, lw->gpu, error)) < 0)
            return FALSE;
        /* A proxy or a sleep fennel wrote as a compute is one again. */
        task = fennel_builder_add(b, nd->fennel_task ? nd->fennel_task : FENNEL_TASK_COMPUTE, r);
        if (nd->fennel_task != FENNEL_TASK_PROXY)
            fennel_builder_set_amount(b, task, d);
        if (!pin(lw, cr, nd, task, COMPUTE_SLOT, error))
            return FALSE;
        break;
    case FENNEL_CHAKRA_MEM_LOAD:
    case FENNEL_CHAKRA_MEM_STORE:
        /* On a memory stream of their own, pinned once the streams are counted. */
        if ((d = memory_time(cr, nd, lw->gpu, error)) < 0)
            return FALSE;
        task = fennel_builder_add(b, FENNEL_TASK_COMPUTE, r);
        fennel_builder_set_amount(b, task, d);
        g_array_append_val(lw->memory, task);
        break;
    case FENNEL_CHAKRA_COMM_SEND:
    case FENNEL_CHAKRA_COMM_RECV: {
        gboolean send = nd->type == FENNEL_CHAKRA_COMM_SEND;
        int64_t peer = send ? nd->comm_dst : nd->comm_src;
        if (!rank_of(t, cr, nd, peer, send ? "comm_dst" : "comm_src", error))
            return FALSE;
        int64_t bytes = message_bytes(nd, lw->size, &lw->size_used);
        if (bytes < 0)
            return fail_node(error, cr, nd,
                             "a %s without comm_size (give --size, the collective's buffer, as "
                             "for MSCCL files)",
                             send ? "send" : "receive");
        int64_t tag = nd->comm_tag < 0 ? 0 : nd->comm_tag;
        if (tag >= FENNEL_ANY / 2)
            return fail_node(error, cr, nd, "comm_tag %" G_GINT64_FORMAT " is too large", tag);
        lw->max_tag = MAX(lw->max_tag, tag);
        task = fennel_builder_add(b, send ? FENNEL_TASK_SEND : FENNEL_TASK_RECV, r);
        if (!pin(lw, cr, nd, task, COMM_SLOT, error))
            return FALSE;
        fennel_builder_set_peer(b, task, (uint32_t)peer);
        /* ASTRA-sim completes a send without its receive; a send fennel wrote as following
         * the model's rendezvous threshold does so again. */
        if (send && !nd->rendezvous)
            fennel_builder_set_flags(b, task, FENNEL_TASK_EAGER);
        if (send && nd->chunk_total > 0) {
            /* The chunks it carries, for fennel verify. */
            if (nd->chunk_idx < 0 || nd->chunk_cnt <= 0 || nd->chunk_total > UINT32_MAX ||
                nd->chunk_idx >= nd->chunk_total || nd->chunk_cnt > nd->chunk_total ||
                (lw->chunks != 0 && nd->chunk_total != lw->chunks))
                return fail_node(error, cr, nd,
                                 "chunks %" G_GINT64_FORMAT "+%" G_GINT64_FORMAT
                                 " of %" G_GINT64_FORMAT " do not fit the trace's vector",
                                 nd->chunk_idx, nd->chunk_cnt, nd->chunk_total);
            lw->chunks = (uint32_t)nd->chunk_total;
            fennel_builder_set_n_blocks(b, lw->chunks);
            fennel_builder_set_blocks(b, task, (uint32_t)nd->chunk_idx, (uint32_t)nd->chunk_cnt);
        }
        fennel_builder_set_tag(b, task, (uint32_t)tag);
        fennel_builder_set_amount(b, task, bytes);
        break;
    }
    case FENNEL_CHAKRA_COMM_COLL:
        if (fennel_chakra_collective_name(nd->comm_type) == NULL ||
            message_bytes(nd, lw->size, &lw->size_used) < 0)
            return fail_node(error, cr, nd,
                             "a collective without a known comm_type (0..9) and comm_size (or "
                             "--size)");
        /* Entry and exit proxies; the collective goes between them. */
        task = fennel_builder_add(b, FENNEL_TASK_PROXY, r);
        lw->first[r][i] = task;
        lw->last[r][i] = fennel_builder_add(b, FENNEL_TASK_PROXY, r);
        fennel_builder_set_pin(b, task, COMM_SLOT);
        fennel_builder_set_pin(b, lw->last[r][i], COMM_SLOT);
        if (nd->name[0])
            fennel_builder_set_held_name(b, task, nd->name);
        return TRUE;
    case FENNEL_CHAKRA_INVALID:
    case FENNEL_CHAKRA_METADATA:
        /* Order only, as ASTRA-sim skips them (docs/FORMATS.md); a time on one would be
         * lost. */
        if (nd->timed)
            return fail_node(error, cr, nd,
                             "node type %s with a duration, which ASTRA-sim skips; give the "
                             "node its type (COMP_NODE for a computation)",
                             node_type_names[type]);
        task = fennel_builder_add(b, FENNEL_TASK_PROXY, r);
        fennel_builder_set_pin(b, task, COMPUTE_SLOT);
        break;
    default:
        return fail_node(error, cr, nd,
                         "node type %u, which Chakra does not define (0 INVALID_NODE to 7 "
                         "COMM_COLL_NODE)",
                         type);
    }
    if (nd->name[0])
        fennel_builder_set_held_name(b, task, nd->name);
    lw->first[r][i] = lw->last[r][i] = task;
    return TRUE;
}

FennelProgram *fennel_chakra_lower(FennelChakraTrace *t, FennelChakraExpand expand, void *user,
                                   int64_t size, const FennelModel *model,
                                   const FennelLimits *limits, GError **error)
{
    FennelModel default_gpu;
    if (model == NULL) {
        fennel_model_init(&default_gpu);
        model = &default_gpu;
    }
    Lowering lw = {.t = t,
                   .b = fennel_builder_new(),
                   .size = size,
                   .gpu = model,
                   .memory = g_array_new(FALSE, FALSE, sizeof(uint32_t)),
                   .max_tag = -1,
                   .processes = COMM_SLOT + 1};
    FennelProgramBuilder *b = lw.b;
    fennel_builder_set_limits(b, limits);
    /* A node may list a dependency twice; it is one. */
    fennel_builder_set_merge_duplicates(b);
    /* The nodes' names become the tasks' as they are (fennel_builder_set_name copied each,
     * a second copy of every name beside the trace's). */
    fennel_builder_take_names(b, t->names);
    t->names = NULL;
    uint32_t n = t->n_ranks;
    /* Per rank: the task of each node (first and last), by node index; collectives; the
     * node of each id (index + 1). */
    uint32_t **first = g_new0(uint32_t *, n), **last = g_new0(uint32_t *, n);
    lw.first = first, lw.last = last;
    GArray **colls = g_new0(GArray *, n); /* node indices of collective nodes */
    /* The node of each id: by the table of every id, else in a rank whose ids increase by
     * a search, else by a hash table of the rank's ids (index + 1). */
    uint64_t n_nodes = 0, id_lo = 0, id_span = 0;
    for (uint32_t r = 0; r < n; r++)
        n_nodes += t->ranks[r].n_nodes;
    Place *by_place = id_table(t, n_nodes, &id_lo, &id_span);
    GHashTable **ids = g_new0(GHashTable *, MAX(n, 1));
    uint32_t *start = g_new(uint32_t, MAX(n, 1));
    gboolean ok = TRUE;
    for (uint32_t r = 0; r < n; r++) {
        const FennelChakraRank *cr = &t->ranks[r];
        first[r] = g_new(uint32_t, cr->n_nodes + 1);
        last[r] = g_new(uint32_t, cr->n_nodes + 1);
        colls[r] = g_array_new(FALSE, FALSE, sizeof(uint32_t));
        gboolean increasing = TRUE;
        for (uint32_t i = 1; increasing && i < cr->n_nodes; i++)
            increasing = cr->nodes[i].id > cr->nodes[i - 1].id;
        if (!increasing && by_place == NULL)
            ids[r] = g_hash_table_new(g_int64_hash, g_int64_equal);
        for (uint32_t i = 0; ok && i < cr->n_nodes; i++) {
            const FennelChakraHeld *nd = &cr->nodes[i];
            if (ids[r] &&
                !g_hash_table_insert(ids[r], (gpointer)&nd->id, GUINT_TO_POINTER(i + 1))) {
                FennelChakraNode node;
                fennel_chakra_node(cr, i, &node);
                ok =
                    fail_node(error, cr, &node, "a second node with id %" G_GUINT64_FORMAT, nd->id);
            } else if (nd->type == FENNEL_CHAKRA_COMM_COLL && !(nd->flags & FENNEL_CHAKRA_CPU_OP)) {
                g_array_append_val(colls[r], i);
            }
        }
    }
    /* The order of the tasks, which decides ties of time (docs/SEMANTICS.md): rank by rank,
     * each rank's start and then its nodes in the order of its file, except in a trace
     * fennel wrote, whose node ids are the tasks' places in the program it wrote (unique
     * across ranks): every start, then the nodes in the order of their ids, so that the
     * program read back breaks ties as the one written did. */
    gboolean by_id = ok && t->declared_ranks > 0;
    /* The builder's room, known but for the collectives' programs: a start per rank, a task
     * per node, two per collective node, a stand-in per rank without nodes; an edge per
     * dependency, from its start for a node without any. (Growing by half as much again
     * left up to a third of the columns unused at their largest.) */
    uint64_t n_tasks = n_nodes + n, n_edges = 0;
    for (uint32_t r = 0; r < n; r++) {
        const FennelChakraRank *cr = &t->ranks[r];
        n_tasks += colls[r]->len + (cr->n_nodes == 0);
        n_edges += cr->n_deps + (cr->n_nodes == 0);
        for (uint32_t i = 0; i < cr->n_nodes; i++)
            n_edges += cr->nodes[i].first_dep ==
                       (i + 1 < cr->n_nodes ? cr->nodes[i + 1].first_dep : cr->n_deps);
    }
    fennel_builder_reserve(b, n_tasks, n_edges);
    NodeRef *order = NULL;
    if (by_id && !by_place) {
        order = g_new(NodeRef, MAX(n_nodes, 1));
        uint64_t placed = 0;
        for (uint32_t r = 0; r < n; r++)
            for (uint32_t i = 0; i < t->ranks[r].n_nodes; i++)
                order[placed++] = (NodeRef){t->ranks[r].nodes[i].id, r, i};
        qsort(order, n_nodes, sizeof *order, compare_ref);
        for (uint64_t j = 1; j < n_nodes; j++)
            by_id = by_id && order[j].id != order[j - 1].id;
        if (!by_id)
            g_clear_pointer(&order, g_free); /* rank by rank, below */
    }
    if (by_id) {
        for (uint32_t r = 0; r < n; r++)
            start[r] = fennel_builder_add(b, FENNEL_TASK_START, r);
        /* The nodes in the order of their ids: through the table of ids, or sorted. */
        if (by_place) {
            for (uint64_t x = 0; ok && x < id_span; x++)
                if (by_place[x].rank != UINT32_MAX)
                    ok = add_node(&lw, by_place[x].rank, by_place[x].index, error);
        } else {
            for (uint64_t j = 0; ok && j < n_nodes; j++)
                ok = add_node(&lw, order[j].rank, order[j].index, error);
        }
        for (uint32_t r = 0; ok && r < n; r++)
            if (t->ranks[r].n_nodes == 0)
                add_stand_in(b, start[r], r);
    } else {
        /* Rank by rank: the start of each rank (and a stand-in for a rank without nodes)
         * before its nodes, in the order of its file. */
        for (uint32_t r = 0; ok && r < n; r++) {
            start[r] = fennel_builder_add(b, FENNEL_TASK_START, r);
            if (t->ranks[r].n_nodes == 0)
                add_stand_in(b, start[r], r);
            for (uint32_t i = 0; ok && i < t->ranks[r].n_nodes; i++)
                ok = add_node(&lw, r, i, error);
        }
    }
    g_free(order);
    for (uint32_t r = 0; ok && r < n; r++) {
        const FennelChakraRank *cr = &t->ranks[r];
        for (uint32_t i = 0; ok && i < cr->n_nodes; i++) {
            const FennelChakraHeld *nd = &cr->nodes[i];
            uint32_t end = i + 1 < cr->n_nodes ? nd[1].first_dep : cr->n_deps;
            if (nd->first_dep == end)
                fennel_builder_add_edge(b, start[r], first[r][i]);
            for (uint32_t d = nd->first_dep; ok && d < end; d++) {
                uint64_t dep = fennel_chakra_dep(cr, d);
                uint32_t j;
                if (ids[r])
                    j = GPOINTER_TO_UINT(g_hash_table_lookup(ids[r], &dep));
                else if (by_place == NULL)
                    j = (uint32_t)(find_increasing(cr->nodes, cr->n_nodes, i, dep) + 1);
                else
                    j = dep >= id_lo && dep - id_lo < id_span && by_place[dep - id_lo].rank == r
                            ? by_place[dep - id_lo].index + 1
                            : 0;
                if (j == 0) {
                    FennelChakraNode node;
                    fennel_chakra_node(cr, i, &node);
                    ok = fail_node(error, cr, &node,
                                   "depends on node %" G_GUINT64_FORMAT ", which %s does not have",
                                   dep, cr->file);
                } else
                    fennel_builder_add_edge(b, last[r][j - 1], first[r][i]);
            }
        }
    }
    for (uint32_t r = 0; r < n; r++)
        if (ids[r])
            g_hash_table_unref(ids[r]);
    g_free(ids);
    g_free(by_place);
    g_free(start);
    int64_t max_tag = lw.max_tag;
    uint32_t chunks = lw.chunks;
    gboolean size_used = lw.size_used;
    /* The collectives of a process group (pg_name; none: every rank) are those of its
     * members, the ranks whose traces name it: the k-th of every member is one collective
     * over the members, rank i of its program on the i-th member. */
    GPtrArray *groups = g_ptr_array_new(); /* pg names in order of first appearance */
    GHashTable *group_of = g_hash_table_new(g_str_hash, g_str_equal);
    for (uint32_t r = 0; ok && r < n; r++)
        for (guint k = 0; k < colls[r]->len; k++) {
            FennelChakraNode c;
            fennel_chakra_node(&t->ranks[r], g_array_index(colls[r], uint32_t, k), &c);
            const char *pg = c.pg_name;
            if (!g_hash_table_contains(group_of, pg)) {
                g_hash_table_insert(group_of, (gpointer)pg, GUINT_TO_POINTER(groups->len));
                g_ptr_array_add(groups, (gpointer)pg);
            }
        }
    uint32_t tag_base = (uint32_t)(max_tag + 1), processes = lw.processes;
    /* Block ranges (for fennel verify) when every collective cuts the vector alike. */
    uint32_t n_blocks = chunks;
    gboolean alike = TRUE;
    Stand *stand = g_new(Stand, MAX(n, 1));
    uint32_t *member = g_new(uint32_t, MAX(n, 1));
    /* Collectives expanded before: a trace of training steps repeats each layer's
     * collectives every step, and layers of one shape share sizes. A program is kept from
     * the second time it is asked for, while the kept ones total at most a quarter of the
     * tasks built (each was spliced in at least once), and reused from the third. */
    GHashTable *expanded =
        g_hash_table_new_full(expansion_hash, expansion_equal, free_expansion, NULL);
    uint64_t kept = 0;
    GArray **of = g_new0(GArray *, MAX(n, 1)); /* a member's nodes of the group, in order */
    for (guint g = 0; ok && g < groups->len; g++) {
        const char *pg = g_ptr_array_index(groups, g);
        uint32_t m = 0, first_member = 0;
        for (uint32_t r = 0; r < n; r++) {
            if (of[r] == NULL)
                of[r] = g_array_new(FALSE, FALSE, sizeof(uint32_t));
            g_array_set_size(of[r], 0);
            for (guint k = 0; k < colls[r]->len; k++) {
                uint32_t i = g_array_index(colls[r], uint32_t, k);
                FennelChakraNode c;
                fennel_chakra_node(&t->ranks[r], i, &c);
                if (strcmp(c.pg_name, pg) == 0)
                    g_array_append_val(of[r], i);
            }
            /* Without a process group every rank takes part. */
            if (of[r]->len > 0 || *pg == '\0') {
                if (m == 0)
                    first_member = r;
                member[m++] = r;
            }
        }
        for (uint32_t i = 1; ok && i < m; i++) {
            uint32_t r = member[i], r0 = first_member;
            if (of[r]->len != of[r0]->len) {
                if (*pg)
                    fennel_error_at(error, t->ranks[r].file, 0, 0,
                                    "%u collective node%s of process group '%s', but %s has %u: "
                                    "every member takes part in every collective of its group",
                                    of[r]->len, of[r]->len == 1 ? "" : "s", pg, t->ranks[r0].file,
                                    of[r0]->len);
                else
                    fennel_error_at(error, t->ranks[r].file, 0, 0,
                                    "%u collective node%s, but %s has %u: every rank takes part "
                                    "in every collective",
                                    of[r]->len, of[r]->len == 1 ? "" : "s", t->ranks[r0].file,
                                    of[r0]->len);
                ok = FALSE;
            }
        }
        for (guint k = 0; ok && m > 0 && k < of[first_member]->len; k++) {
            const FennelChakraRank *rank0 = &t->ranks[first_member];
            FennelChakraNode c0_node;
            fennel_chakra_node(rank0, g_array_index(of[first_member], uint32_t, k), &c0_node);
            const FennelChakraNode *c0 = &c0_node;
            for (uint32_t x = 0; ok && x < m; x++) {
                uint32_t r = member[x];
                uint32_t i = g_array_index(of[r], uint32_t, k);
                FennelChakraNode c_node;
                fennel_chakra_node(&t->ranks[r], i, &c_node);
                const FennelChakraNode *c = &c_node;
                if (c->comm_type != c0->comm_type || c->comm_size != c0->comm_size) {
                    ok = fail_node(error, &t->ranks[r], c,
                                   "collective %u is %s of %" G_GINT64_FORMAT
                                   " bytes here, %s of %" G_GINT64_FORMAT " bytes on rank %u",
                                   k, fennel_chakra_collective_name(c->comm_type), c->comm_size,
                                   fennel_chakra_collective_name(c0->comm_type), c0->comm_size,
                                   first_member);
                    break;
                }
                stand[x].entry = first[r][i];
                stand[x].exit = last[r][i];
            }
            if (!ok)
                break;
            Expansion key = {c0->comm_type, message_bytes(c0, size, &size_used), m, NULL};
            Expansion *seen = g_hash_table_lookup(expanded, &key);
            FennelProgram *c =
                seen && seen->program ? seen->program : expand(user, key.kind, key.bytes, m, error);
            if (c == NULL) {
                g_prefix_error(error,
                               "%s: byte %" G_GUINT64_FORMAT " (node %" G_GUINT64_FORMAT "): ",
                               rank0->file, c0->offset, c0->id);
                ok = FALSE;
                break;
            }
            uint32_t top = 0;
            for (uint32_t u = 0; c->tag && u < c->n_tasks; u++)
                if (c->tag[u] != FENNEL_ANY)
                    top = MAX(top, c->tag[u] + 1);
            if (c->n_blocks && n_blocks == 0) {
                n_blocks = c->n_blocks;
                fennel_builder_set_n_blocks(b, n_blocks);
            }
            alike = alike && (c->n_blocks == 0 || c->n_blocks == n_blocks);
            splice(b, c, stand, member, tag_base, alike);
            tag_base += top;
            processes = MAX(processes, COMM_SLOT + c->processes);
            if (seen == NULL) {
                g_hash_table_add(expanded, g_memdup2(&key, sizeof key));
                fennel_program_free(c);
            } else if (seen->program == NULL &&
                       kept + c->n_tasks <= fennel_builder_n_tasks(b) / 4) {
                seen->program = c;
                kept += c->n_tasks;
            } else if (seen->program != c) {
                fennel_program_free(c);
            }
        }
    }
    g_hash_table_destroy(expanded);
    for (uint32_t r = 0; r < n; r++)
        if (of[r])
            g_array_unref(of[r]);
    g_free(of);
    g_free(member);
    /* Only a collective over every rank can be what the whole trace performs. */
    gboolean over_all = groups->len == 1 && *(const char *)g_ptr_array_index(groups, 0) == '\0';
    g_hash_table_destroy(group_of);
    g_ptr_array_free(groups, TRUE);
    g_free(stand);
    /* A trace that is one collective node per rank and nothing else performs it. */
    static const char *const performs[FENNEL_CHAKRA_N_COLLECTIVES] = {
        "allreduce", "reduce",   "allgather",      "gather",         "scatter",
        "bcast",     "alltoall", "reduce-scatter", "reduce-scatter", "barrier"};
    int64_t only = -1;
    if (ok && n > 0 && over_all && colls[0]->len == 1) {
        FennelChakraNode c;
        fennel_chakra_node(&t->ranks[0], g_array_index(colls[0], uint32_t, 0), &c);
        only = c.comm_type;
        for (uint32_t r = 0; r < n; r++)
            if (t->ranks[r].n_nodes != 1)
                only = -1;
    }
    for (uint32_t r = 0; r < n; r++) {
        g_free(first[r]);
        g_free(last[r]);
        if (colls[r])
            g_array_unref(colls[r]);
    }
    g_free(first);
    g_free(last);
    g_free(colls);
    /* Memory loads and stores: a stream after the communication streams. */
    for (guint i = 0; i < lw.memory->len; i++)
        fennel_builder_set_pin(b, g_array_index(lw.memory, uint32_t, i), processes);
    if (lw.memory->len > 0)
        processes++;
    g_array_unref(lw.memory);
    /* A trace fennel wrote keeps its program's slots. */
    if (t->declared_processes > (int64_t)processes && t->declared_processes <= FENNEL_SLOTS_MAX)
        processes = (uint32_t)t->declared_processes;
    if (ok && size > 0 && !size_used) {
        fennel_error_at_code(error, FENNEL_ERROR_USAGE, t->ranks[0].file, 0, 0,
                             "--size is for messages without comm_size; every message and "
                             "collective of this trace has its own");
        ok = FALSE;
    }
    /* The nodes are done with: their room goes to the program's. */
    for (uint32_t r = 0; r < n; r++) {
        g_clear_pointer(&t->ranks[r].nodes, g_free);
        g_clear_pointer(&t->ranks[r].deps, g_free);
        g_clear_pointer(&t->ranks[r].deps32, g_free);
        g_clear_pointer(&t->ranks[r].extras, g_free);
        t->ranks[r].n_nodes = t->ranks[r].n_deps = t->ranks[r].n_extras = 0;
    }
    if (!ok) {
        fennel_builder_free(b);
        return NULL;
    }
    FennelProgram *p = fennel_builder_finish(b, t->ranks[0].file, n, processes, error);
    if (p && t->collective == NULL && only >= 0 && performs[only]) {
        p->collective = g_strdup(performs[only]);
        p->root = 0;
    } else if (p && t->collective) {
        p->collective = g_strdup(t->collective);
        p->root = t->root >= 0 && t->root < (int64_t)n ? (uint32_t)t->root : FENNEL_NO_RANK;
    }
    return p;
}

/* Lowering a rank at a time as its file is read (fennel_chakra_load): what
 * fennel_chakra_lower makes of a trace whose nodes are all computes, sends and receives
 * (plain_task takes each) and whose ranks' ids increase, without holding every node at
 * once (they were 56 bytes a node beside the builder's columns, most of the peak). Any
 * other trace, and any trace with an error, is declined and read again whole, so that the
 * program and every message stay those of fennel_chakra_lower. */
typedef struct {
    Lowering lw;
    uint32_t n;       /* ranks, once rank 0 is read */
    gboolean by_id;   /* a trace fennel wrote: its tasks go in the order of their ids */
    gboolean decline; /* not a trace for this path */
    uint32_t *start;  /* per rank: its start task */
    uint32_t *empty;  /* ranks without nodes, in order (their stand-ins come last by id) */
    uint32_t n_empty;
    uint64_t *id; /* by_id: per task, its node's id (a start's is not read) */
    uint64_t id_room, lo, hi, n_nodes;
} Stream;

enum { MAX_RUNS = 16 };

static gboolean stream_rank(FennelChakraTrace *t, uint32_t r, void *user)
{
    Stream *s = user;
    Lowering *lw = &s->lw;
    FennelProgramBuilder *b = lw->b;
    FennelChakraRank *cr = &t->ranks[r];
    if (r == 0) {
        lw->t = t;
        s->n = t->n_ranks;
        s->by_id = t->declared_ranks > 0;
        s->start = g_new(uint32_t, s->n);
        s->empty = g_new(uint32_t, s->n);
    }
    /* The runs of increasing ids: one in a trace of ASTRA-sim's, two in one fennel wrote (a
     * put's receives, then the rank's tasks). Ids repeated in two runs are caught by the
     * table of ids of order_by_id. */
    uint32_t run[MAX_RUNS + 1], n_runs = 1;
    run[0] = 0;
    for (uint32_t i = 1; i < cr->n_nodes; i++)
        if (cr->nodes[i].id <= cr->nodes[i - 1].id) {
            if (n_runs == MAX_RUNS || !s->by_id)
                return s->decline = TRUE, FALSE;
            run[n_runs++] = i;
        }
    run[n_runs] = cr->n_nodes;
    uint32_t near[MAX_RUNS] = {0};
    uint32_t start = fennel_builder_add(b, FENNEL_TASK_START, r);
    s->start[r] = start;
    if (cr->n_nodes == 0) {
        if (s->by_id)
            s->empty[s->n_empty++] = r;
        else
            add_stand_in(b, start, r);
    }
    uint32_t base = fennel_builder_n_tasks(b);
    if (s->by_id && base + (uint64_t)cr->n_nodes > s->id_room) {
        s->id_room = MAX(base + (uint64_t)cr->n_nodes, s->id_room + s->id_room / 2);
        s->id = g_renew(uint64_t, s->id, s->id_room);
    }
    for (uint32_t i = 0; i < cr->n_nodes; i++) {
        if (plain_task(lw, r, i) != base + i)
            return s->decline = TRUE, FALSE;
        if (s->by_id) {
            uint64_t id = cr->nodes[i].id;
            s->id[base + i] = id;
            s->lo = MIN(s->lo, id);
            s->hi = MAX(s->hi, id);
        }
    }
    s->n_nodes += cr->n_nodes;
    for (uint32_t i = 0, k = 0; i < cr->n_nodes; i++) {
        uint32_t end = i + 1 < cr->n_nodes ? cr->nodes[i + 1].first_dep : cr->n_deps;
        if (i == run[k + 1])
            k++;
        if (cr->nodes[i].first_dep == end)
            fennel_builder_add_edge(b, start, base + i);
        for (uint32_t d = cr->nodes[i].first_dep; d < end; d++) {
            uint64_t dep = fennel_chakra_dep(cr, d);
            /* In node i's own run, from node i; else in the run whose ids span it. */
            int64_t j = -1;
            if (cr->nodes[run[k]].id <= dep && dep <= cr->nodes[run[k + 1] - 1].id) {
                j = find_increasing(cr->nodes + run[k], run[k + 1] - run[k], i - run[k], dep);
                if (j >= 0)
                    j += run[k];
            }
            for (uint32_t q = 0; j < 0 && q < n_runs; q++)
                if (q != k && cr->nodes[run[q]].id <= dep && dep <= cr->nodes[run[q + 1] - 1].id) {
                    /* From where the last search of that run ended: the dependencies of
                     * a rank's nodes on another run (its receives of puts) follow it. */
                    j = find_increasing(cr->nodes + run[q], run[q + 1] - run[q], near[q], dep);
                    if (j >= 0)
                        near[q] = (uint32_t)j, j += run[q];
                }
            if (j < 0)
                return s->decline = TRUE, FALSE;
            fennel_builder_add_edge(b, base + (uint32_t)j, base + i);
        }
    }
    /* Room for every rank, from the first one's size: reserved, not yet touched (growing
     * copied the columns: the nodes freed rank by rank raise malloc's threshold for
     * mapping, and blocks below it are not remapped). */
    if (r == 0 && s->n > 1) {
        uint64_t tasks = (uint64_t)s->n * (fennel_builder_n_tasks(b) + 1) + 1024;
        fennel_builder_reserve(b, tasks, (uint64_t)s->n * (cr->n_deps + cr->n_nodes + 1) + 1024);
        if (s->by_id && tasks > s->id_room) {
            s->id_room = tasks;
            s->id = g_renew(uint64_t, s->id, s->id_room);
        }
    }
    g_clear_pointer(&cr->nodes, g_free);
    g_clear_pointer(&cr->deps, g_free);
    g_clear_pointer(&cr->deps32, g_free);
    g_clear_pointer(&cr->extras, g_free);
    cr->n_nodes = cr->n_deps = cr->n_extras = 0;
    return TRUE;
}

/* A trace fennel wrote: every start, then the nodes in the order of their ids, then the
 * stand-ins of ranks without nodes, as fennel_chakra_lower orders them. FALSE (declined)
 * when the ids are too sparse for a table or one repeats across ranks (lowering sorts
 * those, or orders them rank by rank). */
static gboolean order_by_id(Stream *s)
{
    FennelProgramBuilder *b = s->lw.b;
    for (uint32_t k = 0; k < s->n_empty; k++)
        add_stand_in(b, s->start[s->empty[k]], s->empty[k]);
    if (s->n_nodes == 0)
        return TRUE;
    if (s->hi - s->lo >= 4 * s->n_nodes + 64)
        return FALSE;
    uint64_t span = s->hi - s->lo + 1;
    uint32_t n_tasks = fennel_builder_n_tasks(b);
    uint32_t *at = g_new(uint32_t, span); /* the task of each id - lo */
    memset(at, 0xff, span * sizeof *at);
    for (uint32_t r = 0; r < s->n; r++) {
        uint32_t end = r + 1 < s->n ? s->start[r + 1] : n_tasks - s->n_empty;
        for (uint32_t u = s->start[r] + 1; u < end; u++) {
            uint32_t *e = &at[s->id[u] - s->lo];
            if (*e != UINT32_MAX) {
                g_free(at);
                return FALSE;
            }
            *e = u;
        }
    }
    g_clear_pointer(&s->id, g_free);
    uint32_t *to = g_new(uint32_t, MAX(n_tasks, 1)), next = s->n;
    for (uint32_t r = 0; r < s->n; r++)
        to[s->start[r]] = r;
    for (uint64_t x = 0; x < span; x++)
        if (at[x] != UINT32_MAX)
            to[at[x]] = next++;
    g_free(at);
    for (uint32_t u = next; u < n_tasks; u++)
        to[u] = u; /* the stand-ins, already last and in rank order */
    fennel_builder_permute(b, to);
    g_free(to);
    return TRUE;
}

/* The program of a trace lowered a rank at a time, or NULL with *declined (and nothing
 * set in error) when it is not a trace for that path. */
static FennelProgram *stream(const char *file, int64_t size, const FennelModel *model,
                             const FennelLimits *limits, gboolean *declined, GError **error)
{
    FennelModel default_gpu;
    if (model == NULL) {
        fennel_model_init(&default_gpu);
        model = &default_gpu;
    }
    Stream s = {.lw = {.b = fennel_builder_new(),
                       .size = size,
                       .gpu = model,
                       .max_tag = -1,
                       .processes = COMM_SLOT + 1},
                .lo = UINT64_MAX};
    FennelProgramBuilder *b = s.lw.b;
    fennel_builder_set_limits(b, limits);
    fennel_builder_set_merge_duplicates(b);
    FennelChakraTrace *t = fennel_chakra_read_each(file, limits, stream_rank, &s, error);
    *declined = t != NULL && s.decline;
    gboolean ok = t != NULL && !s.decline;
    /* A trace fennel_chakra_lower would refuse, or whose order it sorts: read again. */
    if (ok && (size > 0 && !s.lw.size_used))
        ok = FALSE, *declined = TRUE;
    if (ok && s.by_id && !order_by_id(&s))
        ok = FALSE, *declined = TRUE;
    FennelProgram *p = NULL;
    if (ok) {
        uint32_t processes = s.lw.processes;
        if (t->declared_processes > (int64_t)processes && t->declared_processes <= FENNEL_SLOTS_MAX)
            processes = (uint32_t)t->declared_processes;
        fennel_builder_take_names(b, t->names);
        t->names = NULL;
        GError *local = NULL;
        p = fennel_builder_finish(b, t->ranks[0].file, s.n, processes, &local);
        b = NULL;
        if (p == NULL) {
            g_error_free(local);
            *declined = TRUE;
        } else if (t->collective) {
            p->collective = g_strdup(t->collective);
            p->root = t->root >= 0 && t->root < (int64_t)s.n ? (uint32_t)t->root : FENNEL_NO_RANK;
        }
    }
    fennel_builder_free(b);
    g_free(s.start);
    g_free(s.empty);
    g_free(s.id);
    fennel_chakra_free(t);
    return p;
}

FennelProgram *fennel_chakra_load(const char *file, FennelChakraExpand expand, void *user,
                                  int64_t size, const FennelModel *model,
                                  const FennelLimits *limits, GError **error)
{
    gboolean declined;
    FennelProgram *p = stream(file, size, model, limits, &declined, error);
    if (p || !declined)
        return p;
    FennelChakraTrace *t = fennel_chakra_read(file, limits, error);
    if (t == NULL)
        return NULL;
    p = fennel_chakra_lower(t, expand, user, size, model, limits, error);
    fennel_chakra_free(t);
    return p;
}
