/* NCCL's own choice of algorithm, protocol and channel count for an allreduce, allgather,
 * reduce-scatter, broadcast or reduce (docs/LIBRARIES.md, NCCL): its tuning model, time = latency +
 * bytes / bandwidth for every algorithm and protocol, the smallest time wins, then the channels cut
 * down by the thread threshold. Figures read from github.com/NVIDIA/nccl at tag v2.30.7-1; facts
 * only, never its code:
 * - src/graph/tuning.cc: the default tuner constants (baseLatencies, hwLatencies, llMaxBws,
 *   perChMaxRingLL128Bws, perChMaxTreeLL128Bws, perChMaxTreeBws, lines 149-204), the network
 *   overhead of an Intel x86 CPU (getNetOverhead, line 230), ncclTopoTuneModel (the bus
 *   bandwidths and latencies per algorithm and protocol, lines 243-437), treeCorrectionFactor
 *   and ncclTopoGetAlgoTime (lines 623-653);
 * - src/enqueue.cc: topoGetAlgoInfo (the smallest time, ties to the first algorithm and
 *   protocol in NCCL's order, then the ring/tree channel tuning);
 * - src/include/comm.h: NCCL_LL_THREAD_THRESHOLD 8, NCCL_LL128_THREAD_THRESHOLD 8,
 *   NCCL_SIMPLE_THREAD_THRESHOLD 64; src/include/device.h: NCCL_SIMPLE_MAX_NTHREADS 512,
 *   NCCL_LL_MAX_NTHREADS 512, NCCL_LL128_MAX_NTHREADS 640.
 *
 * The machine: the model's inputs that NCCL's topology search supplies are not computed
 * here (fennel does not run that search); they are those of an H100 SXM server (compute
 * capability 9.0, NVLink through NVSwitch, one 400 Gbit/s NIC per GPU, Intel x86 CPUs) as
 * docs/LIBRARIES.md derives them from src/graph/search.cc. NCCL's NVLS allreduce on one node
 * and NVLS_TREE across nodes, their graph derived the same way (nvls_graph below), are among
 * the candidates only where the caller says the NVSwitch reduces (NVLink SHARP, the model's
 * `nvls`): NCCL enables NVLS only where the GPU reports multicast support (ncclNvlsInit,
 * src/transport/nvls.cc), which an A100's NVSwitch or a PCIe H100 does not have; CollNet is left
 * out (no plugin). PAT, which NCCL enables for allgather and reduce-scatter at one GPU per node,
 * runs as nccl-pat-allgather or nccl-pat-reduce-scatter; NVLS and NVLS_TREE as nccl-nvls and
 * nccl-nvls-tree. */
#include "library_nccl.h"

#include "errors.h"

#include <math.h>
#include <string.h>

/* NCCL's orders: algorithms Tree 0, Ring 1, NVLS 4, NVLS_TREE 5, PAT 6 (CollNet, 2 and 3,
 * is not modelled); protocols LL 0, LL128 1, Simple 2. */
enum { TREE, RING, NVLS, NVLS_TREE, PAT, N_ALGOS };
enum { LL, LL128, SIMPLE, N_PROTOS };

static const char *const algo_names[] = {"tree", "ring", "nvls", "nvls-tree", "pat"};
static const char *const proto_names[] = {"LL", "LL128", "Simple"};
static const char *const proto_variants[] = {"ll", "ll128", "simple"};

/* NCCL's collectives (ncclFunc_t), by fennel's names. */
typedef enum { ALLREDUCE, ALLGATHER, REDUCE_SCATTER, BCAST, REDUCE, N_FUNCS } Func;
static const char *const func_names[] = {"allreduce", "allgather", "reduce-scatter", "bcast",
                                         "reduce"};
/* The generators of each collective's ring and tree (NULL: NCCL has no such algorithm for
 * it, or fennel no generator). */
static const char *const ring_generators[] = {"nccl-ring", "nccl-ring-allgather",
                                              "nccl-ring-reduce-scatter", "nccl-ring-bcast",
                                              "nccl-ring-reduce"};
static const char *const pat_generators[] = {NULL, "nccl-pat-allgather", "nccl-pat-reduce-scatter",
                                             NULL, NULL};

/* tuning.cc lines 150-153: baseLatencies, us, of Tree, Ring, NVLS, NVLS_TREE and PAT (LL,
 * LL128, Simple). */
static const double base_latency[N_ALGOS][N_PROTOS] = {
    {6.8, 14.0, 8.4}, {6.6, 14.0, 8.4}, {0, 0, 0}, {0, 0, 0}, {8.0, 8.0, 8.0}};
/* lines 158-177: hwLatencies over NVLink and over the network, the same algorithms. */
static const double nvlink_latency[N_ALGOS][N_PROTOS] = {
    {0.6, 1.25, 4.0}, {0.6, 1.9, 3.4}, {0, 0, 25}, {0, 0, 25}, {0, 0, 4.0}};
static const double net_latency[N_ALGOS][N_PROTOS] = {
    {5.0, 8.5, 14}, {2.7, 4.0, 14.0}, {0, 0, 18}, {0, 0, 20.9}, {0, 0, 14}};
/* line 139: nvlsEfficiency of Hopper; lines 205-210: perChMaxNVLSTreeBws of Hopper (by 1, 2,
 * more nodes). */
static const double nvls_efficiency = 0.85;
static const double nvls_tree_per_channel[3] = {0.0, 57.7, 45.5};
/* lines 178-210, by nodes 1, 2, more (index2): llMaxBws of Hopper on one node and of an
 * Intel CPU across nodes (index1: the GPU type on one node, the CPU type across nodes);
 * the Hopper rows of perChMaxRingLL128Bws, perChMaxTreeLL128Bws and perChMaxTreeBws. */
static const double ll_max_bw_hopper_one_node = 141.0;
static const double ll_max_bw_intel[3] = {39.0, 39.0, 20.4};
static const double ring_ll128_per_channel[3] = {36.7, 36.7, 36.7};
static const double tree_ll128_per_channel[3] = {36.7, 36.7, 29.0};
static const double tree_per_channel[3] = {38.7, 41.4, 36.0};
/* line 230: getNetOverhead of an Intel x86 CPU, us. */
static const double net_overhead = 1.0;
/* lines 623-627: treeCorrectionFactor, powers of two from 64 B (LL, LL128, Simple). */
static const double tree_correction[N_PROTOS][24] = {
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7,  .7,  .7,  .6,  .5,
     .4,  .4,  .5,  .6,  .7, .8, .9, 1.0, 1.0, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7,  .6,  .6,
     .6,  .6,  .6,  .6,  .8,  .9, .9, .9, .9, 1.0, 1.0, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5,
     .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9, .9}};
/* comm.h and device.h: the thread thresholds and the threads of a channel. */
static const int64_t thread_threshold[N_PROTOS] = {8, 8, 64};
static const int64_t max_threads[N_PROTOS] = {512, 640, 512};

/* The search's results for the machine (docs/LIBRARIES.md): the ring and tree graphs'
 * channels and bandwidth per channel (GB/s), and the communicator's channels after
 * ncclTopoPostset doubles them. */
typedef struct {
    int graph_channels;
    double bw;
    int comm_channels;
} Graph;
static const Graph one_node = {12, 30.0, 24};
static const Graph across_nodes = {8, 45.0, 16};

/* NVLS's channels: nvlsChannels, NVLS_NCHANNELS_SM90 (src/transport/nvls.cc), for NVLS and
 * NVLS_TREE alike (topoGetAlgoInfo). */
static const int nvls_channels = 16;

/* The NVLS graph's channels and bandwidths (bwIntra, bwInter, GB/s) for `per_node` GPUs a
 * node, as src/graph/search.cc finds them on H100 SXM servers (docs/LIBRARIES.md, NVLS's
 * graph): every GPU on the NVSwitch by 18 NVLinks of NCCL's 20.6 GB/s (SM90_NVLINK_BW,
 * src/graph/topo.h), 370.8 GB/s each way; a head's channel takes bwIntra from every GPU's
 * link to the switch and back and twice from its own (ncclTopoSearchTryNvls), so G channels,
 * one per GPU, need (G + 1) bwIntra within 370.8. One node: G channels (minChannels =
 * maxChannels), bwIntra the fastest sm90SpeedArrayIntra speed that fits, bwInter raised by
 * the second pass while below twice bwIntra, to 60 at most. Across nodes: a channel per NIC,
 * one per GPU (the rail presets), the fastest sm90SpeedArrayInter speed that fits, and
 * bwInter raised to 48 GB/s, the GPU's and the NIC's PCIe Gen5 x16 (16 x 240 / 80,
 * src/graph/topo.cc), under the NIC's 50 GB/s. FALSE where NCCL has no NVLS: one GPU a node
 * (ncclNvlsInit), or more than an H100 server's 8, whose search is not derived here. */
static gboolean nvls_graph(uint32_t per_node, uint32_t nodes, int *channels, double *intra,
                           double *inter)
{
    static const double speeds_intra[] = {60.0, 50.0, 40.0, 30.0, 24.0, 20.0,
                                          15.0, 12.0, 11.0, 6.0,  3.0};
    static const double speeds_inter[] = {48.0, 45.0, 42.0, 40.0, 30.0, 24.0};
    const double nvlink = 18 * 20.6;
    if (per_node < 2 || per_node > 8)
        return FALSE;
    *channels = (int)per_node;
    const double *speeds = nodes == 1 ? speeds_intra : speeds_inter;
    size_t i = 0;
    while ((per_node + 1) * speeds[i] > nvlink)
        i++;
    *intra = speeds[i];
    if (nodes > 1) {
        *inter = 48.0;
        return TRUE;
    }
    while (i > 0 && speeds[i] < 2 * *intra)
        i--;
    *inter = speeds[i];
    return TRUE;
}

static int log2_floor(int64_t n)
{
    int l = -1;
    while (n > 0) {
        n >>= 1;
        l++;
    }
    return l;
}

typedef struct {
    double bw[N_ALGOS][N_PROTOS];  /* algorithm bandwidth, GB/s; 0: not available */
    double lat[N_ALGOS][N_PROTOS]; /* latency, us */
} Model;

/* Whether NCCL has algorithm a with protocol p for the collective (tuning.cc lines 293-304:
 * broadcast and reduce only the ring; allgather and reduce-scatter the ring and PAT, PAT
 * with Simple only and at one GPU per node (ncclPatEnable, lines 212-219); allreduce the
 * tree, the ring, and with Simple NVLS on one node and NVLS_TREE across nodes (lines 500-508,
 * and NVLS across nodes only with CollNet) where the NVSwitch reduces (`sharp`) and the NVLS
 * graph has 2 channels or more). NVLS
 * for an allgather or a reduce-scatter on one node is left out: at 8 GPUs its bus bandwidth,
 * 8 x 40 x 0.85 x 7/8 x 7/8 = 208.25 GB/s with 25 us, is below LL128's 378.5 with 27.3 us
 * from 1.07 MB on and above LL's 10.8 us below 10.1 MB, so it is never the fastest. */
static gboolean available(Func f, int a, int p, uint32_t ranks, uint32_t nodes, gboolean sharp)
{
    if (a == RING)
        return TRUE;
    if (a == TREE)
        return f == ALLREDUCE;
    if (a == NVLS || a == NVLS_TREE) {
        int channels;
        double intra, inter;
        return sharp && f == ALLREDUCE && p == SIMPLE && (a == NVLS) == (nodes == 1) &&
               nvls_graph(ranks / nodes, nodes, &channels, &intra, &inter) && channels >= 2;
    }
    return (f == ALLGATHER || f == REDUCE_SCATTER) && p == SIMPLE && nodes == ranks;
}

/* ncclTopoTuneModel for collective f on `nodes` nodes of ranks / nodes GPUs. */
static void tune_model(Func f, uint32_t ranks, uint32_t nodes, gboolean sharp, Model *m)
{
    const Graph *g = nodes == 1 ? &one_node : &across_nodes;
    int i2 = nodes <= 2 ? (int)nodes - 1 : 2;
    double ll_max = nodes == 1 ? ll_max_bw_hopper_one_node : ll_max_bw_intel[i2];
    double nsteps = f == ALLREDUCE                          ? 2.0 * (ranks - 1)
                    : f == ALLGATHER || f == REDUCE_SCATTER ? ranks - 1.0
                                                            : ranks;
    double ppn = (double)ranks / nodes;
    for (int a = 0; a < N_ALGOS; a++)
        for (int p = 0; p < N_PROTOS; p++) {
            m->bw[a][p] = 0;
            m->lat[a][p] = 0;
            if (!available(f, a, p, ranks, nodes, sharp))
                continue;
            double bus = g->graph_channels * g->bw;
            if (a == NVLS || a == NVLS_TREE) {
                /* lines 307-323: the NVLS graph's bus bandwidth per channel, twice for an
                 * allreduce's two operations, within the network's (twice it for NVLS_TREE
                 * on 2 nodes) and NVLS_TREE's cap */
                int channels;
                double intra, inter;
                nvls_graph(ranks / nodes, nodes, &channels, &intra, &inter);
                double per = intra * nvls_efficiency * (channels - 1) / channels * 2;
                per = MIN(per, inter * (a == NVLS_TREE && nodes <= 2 ? 2 : 1));
                if (a == NVLS_TREE)
                    per = MIN(per, nvls_tree_per_channel[i2]);
                bus = channels * per;
            }
            if (a == RING && p == LL)
                bus = MIN(ll_max, bus * .5);
            if (a == RING && p == LL128)
                bus = MIN(bus * .92, g->graph_channels * ring_ll128_per_channel[i2]);
            if (a == TREE && f == ALLREDUCE)
                bus = MIN(bus * .92, g->graph_channels * tree_per_channel[i2]);
            if (a == TREE && p == LL)
                bus = MIN(bus / 3.8, ll_max);
            if (a == TREE && p == LL128)
                bus = MIN(bus * (nodes == 1 ? 7.0 / 9.0 : 120.0 / 128.0),
                          g->graph_channels * tree_ll128_per_channel[i2]);
            if (a == PAT)
                bus *= .75;
            /* the algorithm bandwidth: a ring's x ranks / steps, a tree's x 0.5; PAT's bus
             * bandwidth is not converted (lines 362-368) */
            if (a == RING || a == NVLS || a == NVLS_TREE)
                bus *= ranks / nsteps;
            else if (a == TREE)
                bus *= .5;
            m->bw[a][p] = bus;
            double lat = base_latency[a][p];
            double intra = nvlink_latency[a][p];
            double inter = ppn == 1 ? net_latency[TREE][p] : net_latency[a][p];
            if (a == RING && (f == BCAST || f == REDUCE)) {
                /* the ring graph's channels taken as the same (sameChannels 1, LIBRARIES.md):
                 * one hop's latency */
                lat += nodes == 1 ? intra : net_latency[RING][p];
            } else if (a == RING) {
                double over = nodes > 1 ? net_overhead * (p == SIMPLE ? 3 : 1) : 0;
                intra = MAX(intra, over);
                double inter_steps = nodes == 1       ? 0
                                     : f == ALLREDUCE ? 2.0 * (nodes - 1)
                                                      : nodes - 1.0;
                lat += (nsteps - inter_steps) * intra + inter_steps * inter;
            } else if (a == TREE) {
                lat += 2 * ((ranks / nodes - 1) * intra + log2_floor(nodes) * inter);
            } else if (a == NVLS) {
                lat = intra; /* lines 424-426: one node here */
            } else if (a == NVLS_TREE) {
                lat += intra + 2 * log2_floor(nodes) * inter;
            } else {
                lat += log2_floor(nodes) * (inter / 3.5) + ranks * 2.8;
            }
            m->lat[a][p] = lat;
        }
}

/* ncclTopoGetAlgoTime with one operation: us, or a negative time where the algorithm is not
 * available. */
static double algo_time(const Model *m, Func f, int a, int p, uint32_t ranks, uint32_t nodes,
                        int64_t bytes)
{
    double bw = m->bw[a][p], lat = m->lat[a][p];
    if (bw == 0)
        return -1;
    int log_size = log2_floor(bytes >> 6);
    if (a == TREE && f == ALLREDUCE && log_size >= 0 && log_size < 23)
        bw *= tree_correction[p][log_size];
    const Graph *g = nodes == 1 ? &one_node : &across_nodes;
    if (a == RING && p == SIMPLE && nodes > 1 && f == ALLREDUCE &&
        bytes / ((int64_t)g->comm_channels * ranks) >= 64)
        lat *= 1.4;
    return lat + (double)bytes / (1000 * bw);
}

static int func_of(const char *collective)
{
    if (collective && strcmp(collective, "reduce_scatter") == 0)
        collective = "reduce-scatter";
    for (int f = 0; collective && f < N_FUNCS; f++)
        if (strcmp(collective, func_names[f]) == 0)
            return f;
    return -1;
}

gboolean fennel_library_nccl_covers(const char *collective)
{
    return func_of(collective) >= 0;
}

gboolean fennel_library_nccl(const char *collective, uint32_t ranks, uint32_t ppn, gboolean sharp,
                             int64_t bytes, FennelLibraryChoice *c, GError **error)
{
    const int fi = func_of(collective);
    if (fi < 0) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE,
                    "nccl: no model for the collective '%s'", collective ? collective : "");
        return FALSE;
    }
    const Func f = (Func)fi;
    if (ppn > 1 && ranks % ppn != 0) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE,
                    "nccl %s: %u ranks is not a multiple of --ppn %u (GPUs per node)", collective,
                    ranks, ppn);
        return FALSE;
    }
    uint32_t per_node = ppn > 1 ? ppn : 1, nodes = ranks / per_node;
    /* NCCL's size (ncclFuncMaxSendRecvCount, src/include/enqueue.h): an allgather's whole
     * output, of which the generators' --size is one rank's block. */
    const int64_t total = f == ALLGATHER ? bytes * ranks : bytes;
    Model m;
    tune_model(f, ranks, nodes, sharp, &m);
    double t[N_ALGOS][N_PROTOS], best = INFINITY;
    int ba = RING, bp = SIMPLE;
    for (int a = 0; a < N_ALGOS; a++)
        for (int p = 0; p < N_PROTOS; p++) {
            t[a][p] = algo_time(&m, f, a, p, ranks, nodes, total);
            if (t[a][p] >= 0 && t[a][p] < best) {
                best = t[a][p];
                ba = a;
                bp = p;
            }
        }
    /* topoGetAlgoInfo: channels while bytes < channels x threads x threshold (PAT has no
     * thread count of its own in the tuning model: all the channels). */
    const Graph *g = nodes == 1 ? &one_node : &across_nodes;
    const gboolean nvls = ba == NVLS || ba == NVLS_TREE;
    int64_t nc = nvls ? nvls_channels : g->comm_channels;
    int64_t nt = ba == PAT || nvls ? 0 : max_threads[bp];
    int64_t threshold = thread_threshold[bp] * (ba == RING && bp == LL ? ranks : 1);
    while (total < nc * nt * threshold && nc >= 2)
        nc--;
    c->algorithm = algo_names[ba];
    c->variant = proto_variants[bp];
    c->generator = ba == RING        ? ring_generators[f]
                   : ba == TREE      ? "nccl-tree"
                   : ba == NVLS      ? "nccl-nvls"
                   : ba == NVLS_TREE ? "nccl-nvls-tree"
                                     : pat_generators[f];
    c->channels = (int)nc;
    c->nccl_protocol = proto_names[bp];
    g_snprintf(c->why, sizeof c->why,
               "NCCL v2.30.7 tuning.cc, %u node%s of %u GPU%s: time = latency + size / "
               "bandwidth, ",
               nodes, nodes == 1 ? "" : "s", per_node, per_node == 1 ? "" : "s");
    size_t used = strlen(c->why);
    gboolean first = TRUE;
    for (int a = 0; a < N_ALGOS; a++)
        for (int p = 0; p < N_PROTOS; p++) {
            if (t[a][p] < 0)
                continue;
            used = strlen(c->why);
            g_snprintf(c->why + used, sizeof c->why - used, "%s%s/%s %.1f us", first ? "" : ", ",
                       algo_names[a], proto_names[p], t[a][p]);
            first = FALSE;
        }
    used = strlen(c->why);
    if (ba == PAT)
        g_snprintf(c->why + used, sizeof c->why - used,
                   "; enqueue.cc: all %" G_GINT64_FORMAT " channels", nc);
    else if (nvls)
        g_snprintf(c->why + used, sizeof c->why - used,
                   "; enqueue.cc: NVLS's %" G_GINT64_FORMAT " channels (nvls.cc, SM90)", nc);
    else
        g_snprintf(c->why + used, sizeof c->why - used,
                   "; enqueue.cc: %" G_GINT64_FORMAT " of %d channels, the most with size >= "
                   "channels x %" G_GINT64_FORMAT " threads x %" G_GINT64_FORMAT " B, at least 1",
                   nc, g->comm_channels, nt, threshold);
    return TRUE;
}
