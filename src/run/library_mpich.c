/* MPICH 4's default algorithm choice (docs/LIBRARIES.md, MPICH 4): the library "mpich-4" of
 * library.h. MPICH 4 chooses through its collective selection ("csel"): decision trees read
 * from JSON files compiled into the library, walked key by key, the first child that holds
 * winning. Read from github.com/pmodels/mpich at tag v4.3.2; the three files are the same
 * at every tag from v4.1 to v4.3.2 (git diff shows no change). Facts only, never its code:
 *
 * - maint/tuning/coll/ch4/generic.json (cited "ch4.json"): the ch4 device's choice of a
 *   composition: node-aware (alpha, beta: inside the nodes, then among one leader per node)
 *   or flat (the network module over the whole communicator);
 * - maint/tuning/coll/mpir/generic.json (cited "mpir.json"): the algorithm that a flat
 *   collective, or the leaders' part of a node-aware one, runs (the ofi and ucx network
 *   modules call MPIR's collectives: src/mpid/ch4/netmod/ofi/ofi_coll.h);
 * - maint/tuning/coll/ch4/posix_generic.json: inside a node, the shared-memory module runs
 *   its release_gather algorithms (a tree over shared-memory flags), which fennel times as
 *   binomial trees over the intra-node model (the SMP generators' levels).
 *
 * The keys: a communicator is the "parent" of a hierarchy when its ranks share nodes
 * (src/mpi/comm/commutil.c v4.3.2 line 725: not when every rank is on a node of its own);
 * avg_msg_size is count x type size (src/mpi/coll/src/csel.c get_avg_msgsize),
 * total_msg_size that times the ranks (get_total_msgsize), count<pow2 the count below the
 * largest power of two not above the ranks; comm_size keys are decided when the
 * communicator is made (prune_tree, csel.c line 598: "<" is strictly less). */
#include "library_mpich.h"

#include "errors.h"

#include <string.h>

static uint32_t floor_pow2(uint32_t p)
{
    uint32_t q = 1;
    while (q <= p / 2)
        q *= 2;
    return q;
}

static gboolean is_pow2(uint32_t p)
{
    return (p & (p - 1)) == 0;
}

static void set(FennelLibraryChoice *c, const char *algorithm, const char *generator,
                const char *fmt, ...) G_GNUC_PRINTF(4, 5);
static void set(FennelLibraryChoice *c, const char *algorithm, const char *generator,
                const char *fmt, ...)
{
    c->algorithm = algorithm;
    c->generator = generator;
    va_list ap;
    va_start(ap, fmt);
    g_vsnprintf(c->why, sizeof c->why, fmt, ap);
    va_end(ap);
}

/* mpir.json lines 114-132, an allreduce of `ranks` ranks (whole communicator or leaders):
 * recursive doubling up to 8 B or below the power of two in elements, else
 * reduce_scatter_allgather (Rabenseifner). */
static void mpir_allreduce(uint32_t ranks, int64_t bytes, FennelLibraryChoice *c)
{
    int64_t count = bytes / FENNEL_LIBRARY_ELEMENT;
    if (bytes <= 8)
        set(c, "recursive_doubling", "allreduce-rd", "mpir.json line 114: message <= 8 B");
    else if (count < floor_pow2(ranks))
        set(c, "recursive_doubling", "allreduce-rd",
            "mpir.json line 126: count %" G_GINT64_FORMAT " < %u (the power of two)", count,
            floor_pow2(ranks));
    else
        set(c, "reduce_scatter_allgather", "allreduce-rabenseifner",
            "mpir.json line 130: message > 8 B, count %" G_GINT64_FORMAT
            " >= %u (the power of two)",
            count, floor_pow2(ranks));
}

/* mpir.json lines 6-89 for a communicator whose hierarchy branch does not matter at 1 B or
 * more (the "parent" branches differ only in avg_msg_size <= 0): binomial below 8 ranks or
 * up to 12288 B; scatter + recursive doubling allgather up to 524288 B on a power of two;
 * scatter + ring allgather otherwise. */
static void mpir_bcast(uint32_t ranks, int64_t bytes, FennelLibraryChoice *c)
{
    if (ranks < 8)
        set(c, "binomial", "bcast-binomial", "mpir.json line 21: comm size %u < 8", ranks);
    else if (bytes <= 12288)
        set(c, "binomial", "bcast-binomial", "mpir.json line %d: message <= 12288 B",
            is_pow2(ranks) ? 50 : 83);
    else if (is_pow2(ranks) && bytes <= 524288)
        set(c, "scatter_recursive_doubling_allgather", "bcast-scatter-rd-allgather",
            "mpir.json line 54: comm size a power of two, message 12289..524288 B");
    else
        set(c, "scatter_ring_allgather", "bcast-scatter-allgather",
            "mpir.json line %d: message > %d B", is_pow2(ranks) ? 58 : 87,
            is_pow2(ranks) ? 524288 : 12288);
}

/* mpir.json lines 246-262 (the same as the parent branch at 1 B or more): binomial up to
 * 2048 B or below the power of two in elements, else reduce_scatter_gather. */
static void mpir_reduce(uint32_t ranks, int64_t bytes, FennelLibraryChoice *c)
{
    int64_t count = bytes / FENNEL_LIBRARY_ELEMENT;
    if (bytes <= 2048)
        set(c, "binomial", "reduce-binomial", "mpir.json line 248: message <= 2048 B");
    else if (count < floor_pow2(ranks))
        set(c, "binomial", "reduce-binomial",
            "mpir.json line 256: count %" G_GINT64_FORMAT " < %u (the power of two)", count,
            floor_pow2(ranks));
    else
        set(c, "reduce_scatter_gather", "reduce-rabenseifner",
            "mpir.json line 260: message > 2048 B, count %" G_GINT64_FORMAT
            " >= %u (the power of two); fennel's gathers the blocks along a binary tree, "
            "MPICH's along a binomial one",
            count, floor_pow2(ranks));
}

/* mpir.json lines 146-165: `bytes` is one rank's block, total_msg_size that times the
 * ranks. */
static void mpir_allgather(uint32_t ranks, int64_t bytes, FennelLibraryChoice *c)
{
    int64_t total = bytes * ranks;
    if (is_pow2(ranks) && total < 524288)
        set(c, "recursive_doubling", "allgather-rd",
            "mpir.json line 148: comm size a power of two, total %" G_GINT64_FORMAT " B < 524288",
            total);
    else if (!is_pow2(ranks) && total < 81920)
        set(c, "brucks", "allgather-bruck",
            "mpir.json line 159: comm size not a power of two, total %" G_GINT64_FORMAT
            " B < 81920",
            total);
    else
        set(c, "ring", "allgather-ring", "mpir.json line %d: total %" G_GINT64_FORMAT " B >= %d",
            is_pow2(ranks) ? 152 : 163, total, is_pow2(ranks) ? 524288 : 81920);
}

/* mpir.json lines 442-467, not in place: `bytes` is one rank's block for one other rank.
 * brucks (alltoall_intra_brucks.c) sends at distance 1, 2, 4, ... the blocks whose index
 * has that bit, as alltoall-bruck does; scattered (alltoall_intra_scattered.c) posts its
 * receives and its sends to rank, rank - 1, ... in batches of MPIR_CVAR_ALLTOALL_THROTTLE
 * (32) and waits for each batch, as alltoall-scattered does (up to 32 ranks one batch). */
static void mpir_alltoall(uint32_t ranks, int64_t bytes, FennelLibraryChoice *c)
{
    if (ranks >= 8 && bytes <= 256)
        set(c, "brucks", "alltoall-bruck", "mpir.json line 457: comm size >= 8, message <= 256 B");
    else if (bytes <= 32768)
        set(c, "scattered", "alltoall-scattered",
            "mpir.json line %d: message <= 32768 B; MPICH's scattered posts the sends and "
            "receives in batches of MPIR_CVAR_ALLTOALL_THROTTLE (32) and waits for each batch",
            ranks < 8 ? 446 : 461);
    else
        set(c, "pairwise", "alltoall-pairwise",
            "mpir.json line %d: message > 32768 B; MPICH pairs rank ^ k on a power of two, "
            "rank + k otherwise: the same steps without a topology",
            ranks < 8 ? 450 : 465);
}

/* mpir.json lines 281-289, commutative: `bytes` is the whole buffer (total_msg_size is the
 * sum of the receive counts). */
static void mpir_reduce_scatter(int64_t bytes, FennelLibraryChoice *c)
{
    if (bytes < 524288)
        set(c, "recursive_halving", "reduce-scatter-halving",
            "mpir.json line 283: total %" G_GINT64_FORMAT " B < 524288", bytes);
    else
        set(c, "pairwise", "reduce-scatter-pairwise",
            "mpir.json line 287: total %" G_GINT64_FORMAT " B >= 524288", bytes);
}

/* The node-aware allreduce (ch4.json line 64: MPIDI_Allreduce_intra_composition_alpha,
 * ch4_coll_impl.h): reduce inside each node to its first rank, MPIR's allreduce among the
 * N leaders, bcast inside each node: allreduce-smp, whose --variant is the leaders'
 * algorithm. */
static void allreduce_node_aware(uint32_t nodes, int64_t bytes, FennelLibraryChoice *c)
{
    if (nodes == 1) {
        set(c, "composition_gamma", "allreduce-smp",
            "ch4.json line 52: every rank on one node: the shared memory's allreduce "
            "(release_gather: a reduce up a 4-ary tree, a release down a 64-ary one), which "
            "fennel times as allreduce-smp's binomial reduce and bcast");
        return;
    }
    FennelLibraryChoice leaders = {0};
    mpir_allreduce(nodes, bytes, &leaders);
    gboolean rd = strcmp(leaders.algorithm, "recursive_doubling") == 0;
    set(c, "composition_alpha", "allreduce-smp",
        "ch4.json line 64: ranks share nodes, commutative: reduce in each node, allreduce among "
        "the %u leaders (%s: %s), bcast in each node; fennel's allreduce-smp%s with binomial "
        "trees inside the nodes, where MPICH's shared memory runs release_gather",
        nodes, leaders.algorithm, leaders.why, rd ? "" : " --variant rabenseifner");
    c->variant = rd ? NULL : "rabenseifner";
}

/* ch4.json lines 6-45. Node-aware: alpha (the root to its leader, MPIR's bcast among the
 * leaders, bcast in each node) below 8 ranks or 12288 B; beta (the root's node first when
 * the root is not its first rank, then the leaders, then the other nodes) up to 524287 B
 * on a power of two; gamma (flat, MPIR's over all ranks) otherwise. With the root its
 * node's first rank alpha and beta have the same levels, bcast-smp's. */
static void bcast_node_aware(uint32_t ranks, uint32_t nodes, int64_t bytes, FennelLibraryChoice *c)
{
    int line;
    const char *comp;
    if (ranks < 8)
        comp = "alpha", line = 8;
    else if (is_pow2(ranks) && bytes < 12288)
        comp = "alpha", line = 17;
    else if (is_pow2(ranks) && bytes < 524288)
        comp = "beta", line = 21;
    else if (is_pow2(ranks))
        comp = "gamma", line = 25;
    else if (bytes < 12288)
        comp = "alpha", line = 31;
    else
        comp = "gamma", line = 35;
    if (strcmp(comp, "gamma") == 0) {
        FennelLibraryChoice flat = {0};
        mpir_bcast(ranks, bytes, &flat);
        set(c, flat.algorithm, flat.generator,
            "ch4.json line %d: ranks share nodes, composition gamma: MPIR's bcast over all "
            "ranks, %s",
            line, flat.why);
        return;
    }
    FennelLibraryChoice leaders = {0};
    mpir_bcast(nodes, bytes, &leaders);
    set(c, strcmp(comp, "alpha") == 0 ? "composition_alpha" : "composition_beta", "bcast-smp",
        "ch4.json line %d: ranks share nodes, composition %s: bcast among the %u leaders (%s: "
        "%s), bcast in each node; fennel's bcast-smp%s%s with binomial trees inside the nodes, "
        "where MPICH's shared memory runs release_gather",
        line, comp, nodes, leaders.algorithm, leaders.why,
        fennel__mpich_bcast_variant(leaders.algorithm) ? " --variant " : "",
        fennel__mpich_bcast_variant(leaders.algorithm)
            ? fennel__mpich_bcast_variant(leaders.algorithm)
            : "");
    c->variant = fennel__mpich_bcast_variant(leaders.algorithm);
}

/* ch4.json lines 83-93, commutative. Node-aware, up to 2048 B: beta, whose root node
 * reduces only after the leaders have (ch4_coll_impl.h, MPIDI_Reduce_intra_composition_beta):
 * reduce-smp --variant root-last, the leaders binomial as MPIR's reduce is up to 2048 B.
 * Above: alpha (reduce in each node, MPIR's reduce among the leaders to the root's, the
 * result to the root): reduce-smp with the leaders' algorithm. */
static void reduce_node_aware(uint32_t nodes, int64_t bytes, FennelLibraryChoice *c)
{
    if (bytes <= 2048) {
        set(c, "composition_beta", "reduce-smp",
            "ch4.json line 87: ranks share nodes, commutative, message <= 2048 B: reduce in the "
            "other nodes, binomial reduce among the %u leaders, then reduce in the root's node "
            "(fennel's reduce-smp --variant root-last, binomial trees inside the nodes where "
            "MPICH's shared memory runs release_gather)",
            nodes);
        c->variant = "root-last";
        return;
    }
    FennelLibraryChoice leaders = {0};
    mpir_reduce(nodes, bytes, &leaders);
    gboolean binomial = strcmp(leaders.algorithm, "binomial") == 0;
    set(c, "composition_alpha", "reduce-smp",
        "ch4.json line 91: ranks share nodes, commutative, message > 2048 B: reduce in each node, "
        "reduce among the %u leaders (%s: %s); fennel's reduce-smp%s with binomial trees "
        "inside the nodes, where MPICH's shared memory runs release_gather",
        nodes, leaders.algorithm, leaders.why, binomial ? "" : " --variant rabenseifner");
    c->variant = binomial ? NULL : "rabenseifner";
}

const char *fennel__mpich_bcast_variant(const char *algorithm)
{
    if (strcmp(algorithm, "scatter_recursive_doubling_allgather") == 0)
        return "scatter-rd-allgather";
    if (strcmp(algorithm, "scatter_ring_allgather") == 0)
        return "scatter-allgather";
    return NULL;
}

gboolean fennel_library_mpich4_covers(const char *collective)
{
    static const char *const covered[] = {"allreduce", "bcast",          "reduce", "allgather",
                                          "alltoall",  "reduce_scatter", "gather", "scatter"};
    for (size_t i = 0; collective && i < G_N_ELEMENTS(covered); i++)
        if (strcmp(collective, covered[i]) == 0)
            return TRUE;
    return collective && strcmp(collective, "reduce-scatter") == 0;
}

void fennel_library_mpich4(const char *collective, uint32_t ranks, uint32_t ppn, int64_t bytes,
                           FennelLibraryChoice *out)
{
    /* The parent of a hierarchy: some node holds two ranks or more (one node included). */
    gboolean shared = ppn > 1;
    uint32_t nodes = shared ? (ranks + ppn - 1) / ppn : ranks;
    memset(out, 0, sizeof *out);
    if (strcmp(collective, "allreduce") == 0) {
        if (shared) {
            allreduce_node_aware(nodes, bytes, out);
        } else {
            mpir_allreduce(ranks, bytes, out);
            char *why = g_strdup(out->why);
            set(out, out->algorithm, out->generator,
                "ch4.json line 74: one rank per node, composition beta: MPIR's allreduce, %s", why);
            g_free(why);
        }
    } else if (strcmp(collective, "bcast") == 0) {
        if (shared) {
            bcast_node_aware(ranks, nodes, bytes, out);
        } else {
            mpir_bcast(ranks, bytes, out);
            char *why = g_strdup(out->why);
            set(out, out->algorithm, out->generator,
                "ch4.json line 42: one rank per node, composition gamma: MPIR's bcast, %s", why);
            g_free(why);
        }
    } else if (strcmp(collective, "reduce") == 0) {
        if (shared) {
            reduce_node_aware(nodes, bytes, out);
        } else {
            mpir_reduce(ranks, bytes, out);
            char *why = g_strdup(out->why);
            set(out, out->algorithm, out->generator,
                "ch4.json line 103: one rank per node, composition gamma: MPIR's reduce, %s", why);
            g_free(why);
        }
    } else {
        /* ch4.json lines 121-188: one composition each, MPIR's algorithm over all ranks
         * (inside one node the shared-memory module's, which is MPIR's too). */
        int line;
        if (strcmp(collective, "allgather") == 0)
            mpir_allgather(ranks, bytes, out), line = 174;
        else if (strcmp(collective, "alltoall") == 0)
            mpir_alltoall(ranks, bytes, out), line = 153;
        else if (strcmp(collective, "gather") == 0)
            set(out, "binomial", "gather-binomial", "mpir.json line 352: always"), line = 125;
        else if (strcmp(collective, "scatter") == 0)
            set(out, "binomial", "scatter-binomial", "mpir.json line 370: always"), line = 139;
        else
            mpir_reduce_scatter(bytes, out), line = 188;
        char *why = g_strdup(out->why);
        set(out, out->algorithm, out->generator, "ch4.json line %d: MPIR's over all ranks, %s",
            line, why);
        g_free(why);
    }
}
