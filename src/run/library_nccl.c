/* NCCL's own choice of algorithm, protocol and channel count for an allreduce, allgather,
 * reduce-scatter, broadcast or reduce (docs/LIBRARIES.md, NCCL): its tuning model, time = latency +
 * bytes / bandwidth for every algorithm and protocol, the smallest time wins, then the channels cut
 * down by the thread threshold. Figures read from github.com/NVIDIA/nccl at tag v2.30.7-1; facts
 * only, never its code:
 * - src/graph/tuning.cc: the default tuner constants (baseLatencies, hwLatencies, llMaxBws,
 *   perChMaxRingLL128Bws, perChMaxTreeLL128Bws, perChMaxTreeBws, perChMaxNVLSTreeBws and
 *   nvlsEfficiency by compute capability, lines 139-211), the network overhead by CPU
 *   (getNetOverhead, lines 228-233), ncclTopoTuneModel (the bus
 *   bandwidths and latencies per algorithm and protocol, lines 243-437), treeCorrectionFactor
 *   and ncclTopoGetAlgoTime (lines 623-653);
 * - src/enqueue.cc: topoGetAlgoInfo (the smallest time, ties to the first algorithm and
 *   protocol in NCCL's order, then the ring/tree channel tuning);
 * - src/include/comm.h: NCCL_LL_THREAD_THRESHOLD 8, NCCL_LL128_THREAD_THRESHOLD 8,
 *   NCCL_SIMPLE_THREAD_THRESHOLD 64; src/include/device.h: NCCL_SIMPLE_MAX_NTHREADS 512,
 *   NCCL_LL_MAX_NTHREADS 512, NCCL_LL128_MAX_NTHREADS 640.
 *
 * The machine: the model's inputs that NCCL's topology search supplies are not found by
 * running that search; fennel derives them by the search's rules as docs/LIBRARIES.md reads
 * them from src/graph/search.cc (ring_graph, nvls_graph below), from the machine's rows: the
 * GPUs' architecture (Ampere, Hopper, Blackwell: archs[], a rail topology's `gpu_arch`), the
 * CPUs' (Intel, AMD, Arm: cpus[], its `cpu_arch`), and a server's NICs and their bandwidth.
 * Without a rail topology they are an H100 SXM server's (compute capability 9.0, NVLink
 * through NVSwitch, eight 400 Gbit/s NICs, Intel x86 CPUs). NCCL's NVLS allreduce on one node
 * and NVLS_TREE across nodes are among
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

/* The rows of NCCL's tables by the GPUs' compute capability (tuning.cc: compCapIndex,
 * lines 263-266; src/graph/search.cc and topo.h for the search's figures), one per
 * FennelGpuArch (a rail topology's `gpu_arch`): an extension point, a new architecture is a
 * row. By 1, 2, more nodes (index2) where there are three. */
typedef struct {
    const char *name;
    int compcap;            /* minCompCap: 80, 90, 100 */
    double ll_max_one_node; /* llMaxBws[compCapIndex][0] (lines 177-183: one node, the GPU) */
    double ring_ll128[3];   /* perChMaxRingLL128Bws (lines 184-189) */
    double tree_ll128[3];   /* perChMaxTreeLL128Bws (lines 191-196) */
    double tree[3];         /* perChMaxTreeBws (lines 198-203) */
    double nvls_tree[3];    /* perChMaxNVLSTreeBws (lines 205-210) */
    double nvls_efficiency; /* nvlsEfficiency (lines 138-144) */
    /* a GPU's NVLink each way as NCCL counts it: SMxx_NVLINK_BW (topo.h lines 19-24) x the
     * GPU's links */
    double nvlink;
    /* the GPU's and its NIC's PCIe as NCCL counts it: width x speed / 80 (topo.cc line 657,
     * kvDictPciGen lines 545-549): Gen4 x16 24 GB/s, Gen5 x16 48 */
    double pcie;
    const double *intra, *inter; /* the search's speeds (search.cc lines 1051-1067) */
    size_t n_intra, n_inter;
    int nvls_channels_one, nvls_channels_more; /* nvlsChannels (nvls.cc lines 155-213) */
    /* the most GPUs a node whose NVLS graph fennel derives (0: no NVLS, which needs SM90) */
    uint32_t nvls_max_per_node;
} Arch;

static const double speeds_intra[] = {40.0, 30.0, 20.0, 18.0, 15.0, 12.0, 10.0,
                                      9.0,  7.0,  6.0,  5.0,  4.0,  3.0};
static const double speeds_inter[] = {48.0, 30.0, 28.0, 24.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0,
                                      7.0,  6.0,  5.0,  4.0,  3.0,  2.4,  1.2,  0.24, 0.12};
static const double sm90_intra[] = {60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 15.0, 12.0, 11.0, 6.0, 3.0};
static const double sm90_inter[] = {48.0, 45.0, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5,
                                    15.0, 12.0, 6.0,  3.0,  2.4,  1.2,  0.24, 0.12};
static const double sm100_intra[] = {90.0, 80.0, 70.0, 60.0, 50.0, 45.0,
                                     40.0, 30.0, 24.0, 20.0, 19.0, 18.0};
static const double sm100_inter[] = {96.0, 86.0, 80.0, 48.0, 45.1, 42.0, 40.0, 30.0, 24.0, 22.0,
                                     20.0, 17.5, 15.0, 12.0, 6.0,  3.0,  2.4,  1.2,  0.24, 0.12};
#define SPEEDS(a) a, G_N_ELEMENTS(a)

static const Arch archs[FENNEL_GPU_ARCH_N] = {
    /* Hopper (H100 SXM, GH200): 18 NVLinks of 20.6 (SM90_NVLINK_BW), PCIe Gen5; NVLS's
     * graph derived up to an H100 server's 8 GPUs */
    [FENNEL_GPU_ARCH_SM90] = {"sm90",
                              90,
                              141.0,
                              {36.7, 36.7, 36.7},
                              {36.7, 36.7, 29.0},
                              {38.7, 41.4, 36.0},
                              {0.0, 57.7, 45.5},
                              0.85,
                              18 * 20.6,
                              48.0,
                              sm90_intra,
                              sm90_inter,
                              G_N_ELEMENTS(sm90_intra),
                              G_N_ELEMENTS(sm90_inter),
                              16,
                              16,
                              8},
    /* Ampere (A100 SXM): 12 NVLinks of 20.0 (SM80_NVLINK_BW), PCIe Gen4; no NVLS */
    [FENNEL_GPU_ARCH_SM80] = {"sm80",
                              80,
                              87.7,
                              {20.0, 20.0, 20.0},
                              {20.0, 20.0, 20.0},
                              {24.0, 23.6, 17.8},
                              {24.0, 23.6, 17.8},
                              0.0,
                              12 * 20.0,
                              24.0,
                              speeds_intra,
                              speeds_inter,
                              G_N_ELEMENTS(speeds_intra),
                              G_N_ELEMENTS(speeds_inter),
                              0,
                              0,
                              0},
    /* Blackwell (B200, GB200): 18 NVLinks of 40.1 (SM100_NVLINK_BW), PCIe Gen5; NVLS's graph
     * up to a GB200 NVL72 rack, one NVLink domain (NCCL's MNNVL: one node) */
    [FENNEL_GPU_ARCH_SM100] = {"sm100",
                               100,
                               2 * 141.0,
                               {40.0, 40.0, 40.0},
                               {55.6, 31.67, 20.0},
                               {70.0, 42.8, 24.0},
                               {0.0, 96.0, 80.0},
                               0.74,
                               18 * 40.1,
                               48.0,
                               sm100_intra,
                               sm100_inter,
                               G_N_ELEMENTS(sm100_intra),
                               G_N_ELEMENTS(sm100_inter),
                               24,
                               32,
                               72},
};

/* The rows by the CPU (a rail topology's `cpu_arch`): llMaxBws across nodes is row 1 for an
 * AMD CPU and row 0 otherwise (tuning.cc lines 269-271: index1), {39.0, 39.0, 20.4} and
 * {87.7, 22.5, 19.0} (lines 177-183, of which 2 and more nodes are read); getNetOverhead
 * (lines 228-233) 2 us on AMD x86, 1 us otherwise; and NVLS_TREE's correction factor, on
 * Blackwell with x86 CPUs only (lines 643-646). */
typedef struct {
    const char *name;
    double ll_max[3];
    double net_overhead;
    gboolean x86;
} Cpu;

static const Cpu cpus[FENNEL_CPU_ARCH_N] = {
    [FENNEL_CPU_ARCH_INTEL] = {"intel", {39.0, 39.0, 20.4}, 1.0, TRUE},
    [FENNEL_CPU_ARCH_AMD] = {"amd", {87.7, 22.5, 19.0}, 2.0, TRUE},
    [FENNEL_CPU_ARCH_ARM] = {"arm", {39.0, 39.0, 20.4}, 1.0, FALSE},
};

/* The search's results for the machine (docs/LIBRARIES.md, The machine): the ring and tree
 * graphs' channels and bandwidth per channel (GB/s), and the communicator's channels after
 * ncclTopoPostset doubles them. */
typedef struct {
    int graph_channels;
    double bw;
    int comm_channels;
} Graph;

/* The graph's channels (at most MAXCHANNELS / 2 = 32, device.h line 91) at `speed` GB/s
 * each, the most that fit in the GPU's NVLink and, across nodes, one a NIC. */
static int fit(const Arch *a, double speed, uint32_t nics)
{
    int ch = (int)floor(a->nvlink / speed + 1e-9);
    if (nics > 0 && (uint32_t)ch > nics)
        ch = (int)nics;
    return MIN(ch, 32);
}

/* ncclTopoCompute as fennel reads it for a ring through every GPU of a node, on one node
 * (nics 0) or across nodes through `nics` NICs of `nic` GB/s: the speeds from the fastest
 * within the path (the NVLink on one node; the NIC and the PCIe across), each tried while
 * above .49 of the best found, the most channels x speed kept (ties to the first); then
 * ncclTopoDupChannels (search.cc lines 1036-1049: doubled, at half the speed, from 25 GB/s,
 * not above SM80 below 50 GB/s with more than 4 channels), and the communicator's channels
 * twice the graph's (connect.cc line 460, at most MAXCHANNELS 64). */
static Graph ring_graph(const Arch *a, uint32_t nics, double nic)
{
    const double *speeds = nics ? a->inter : a->intra;
    const size_t n = nics ? a->n_inter : a->n_intra;
    const double limit = nics ? MIN(nic, a->pcie) : a->nvlink;
    Graph g = {0, 0, 0};
    for (size_t i = 0; i < n; i++) {
        if (speeds[i] > limit)
            continue;
        if (g.graph_channels && speeds[i] / g.bw <= .49)
            break;
        int ch = fit(a, speeds[i], nics);
        if (ch * speeds[i] > g.graph_channels * g.bw) {
            g.graph_channels = ch;
            g.bw = speeds[i];
        }
    }
    if (g.bw >= 25.0 && !(a->compcap > 80 && g.bw < 50.0 && g.graph_channels > 4)) {
        int dup = MIN(2 * g.graph_channels, 32);
        g.bw /= (dup + g.graph_channels - 1) / g.graph_channels;
        g.graph_channels = dup;
    }
    g.comm_channels = MIN(2 * g.graph_channels, 64);
    return g;
}

/* The tree's bwIntra across nodes: ncclTopoCompute's second pass raises a tree graph's
 * bwIntra alone (search.cc lines 1278-1281: "increase bwIntra for trees (2 nodes or
 * collnet)"), one inter speed at a time while it is below twice bwInter and its channels
 * still fit in the GPU's NVLink; ncclTopoTuneModel takes bwIntra on up to 2 nodes (tuning.cc
 * line 306), bwInter beyond. The channels are the ring's (found by the same first pass). */
static double tree_intra(const Arch *a, const Graph *g)
{
    double bw = g->bw;
    size_t i = 0;
    while (i < a->n_inter && a->inter[i] > bw)
        i++;
    while (i > 0 && bw < 2 * g->bw && g->graph_channels * a->inter[i - 1] <= a->nvlink + 1e-9)
        bw = a->inter[--i];
    return bw;
}

/* The machine the model decides for: its rows and graphs. */
typedef struct {
    const Arch *arch;
    const Cpu *cpu;
    uint32_t nics;
    double nic;
    Graph one_node, across_nodes;
    /* the tree's graph on two nodes: across_nodes with bwIntra raised (tree_intra) */
    double tree_intra;
} Machine;

static void machine_init(Machine *m, const FennelLibraryMachine *in)
{
    m->arch = &archs[in->gpu_arch < FENNEL_GPU_ARCH_N ? in->gpu_arch : 0];
    m->cpu = &cpus[in->cpu_arch < FENNEL_CPU_ARCH_N ? in->cpu_arch : 0];
    /* a server's NICs, whatever GPUs of it the ranks take (NCCL sees every NIC) */
    m->nics = in->nics ? in->nics : 8;
    m->nic = in->nic_gbps > 0 ? in->nic_gbps : 50.0;
    m->one_node = ring_graph(m->arch, 0, 0);
    m->across_nodes = ring_graph(m->arch, m->nics, m->nic);
    m->tree_intra = tree_intra(m->arch, &m->across_nodes);
}

/* The NVLS graph's channels and bandwidths (bwIntra, bwInter, GB/s) for `per_node` GPUs a
 * node, as src/graph/search.cc finds them (docs/LIBRARIES.md, NVLS's graph): a head's channel
 * takes bwIntra from every GPU's link to the NVLink switch and back and twice from its own
 * (ncclTopoSearchTryNvls), so G channels (a head each, G at most NCCL_MAX_NVLS_ARITY 32)
 * need (G + 1) bwIntra within the GPU's NVLink. One node: G the node's GPUs
 * (minChannels = maxChannels), bwIntra the fastest intra speed that fits, bwInter raised by
 * the second pass while below twice bwIntra. Across nodes: a channel per GPU (the rail
 * presets' NIC each), the fastest inter speed that fits, and bwInter the fastest inter speed
 * within the NIC and the PCIe (48 GB/s on an H100 server: PCIe Gen5 x16 under the NIC's
 * 50). FALSE where NCCL has no NVLS: before SM90 (search.cc line 1124), one GPU a node
 * (ncclNvlsInit), or more GPUs a node than the row derives. */
static gboolean nvls_graph(const Machine *m, uint32_t per_node, uint32_t nodes, int *channels,
                           double *intra, double *inter)
{
    const Arch *a = m->arch;
    if (per_node < 2 || per_node > a->nvls_max_per_node)
        return FALSE;
    *channels = (int)MIN(per_node, 32);
    const double *speeds = nodes == 1 ? a->intra : a->inter;
    const size_t n = nodes == 1 ? a->n_intra : a->n_inter;
    size_t i = 0;
    while (i + 1 < n && (*channels + 1) * speeds[i] > a->nvlink)
        i++;
    *intra = speeds[i];
    if (nodes > 1) {
        i = 0;
        while (i + 1 < n && speeds[i] > MIN(m->nic, a->pcie))
            i++;
        *inter = speeds[i];
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
static gboolean available(const Machine *mc, Func f, int a, int p, uint32_t ranks, uint32_t nodes,
                          gboolean sharp)
{
    if (a == RING)
        return TRUE;
    if (a == TREE)
        return f == ALLREDUCE;
    if (a == NVLS || a == NVLS_TREE) {
        int channels;
        double intra, inter;
        return sharp && f == ALLREDUCE && p == SIMPLE && (a == NVLS) == (nodes == 1) &&
               nvls_graph(mc, ranks / nodes, nodes, &channels, &intra, &inter) && channels >= 2;
    }
    return (f == ALLGATHER || f == REDUCE_SCATTER) && p == SIMPLE && nodes == ranks;
}

/* ncclTopoTuneModel for collective f on `nodes` nodes of ranks / nodes GPUs. */
static void tune_model(const Machine *mc, Func f, uint32_t ranks, uint32_t nodes, gboolean sharp,
                       Model *m)
{
    const Arch *ar = mc->arch;
    const Graph *g = nodes == 1 ? &mc->one_node : &mc->across_nodes;
    int i2 = nodes <= 2 ? (int)nodes - 1 : 2;
    /* index1: the GPU's row on one node, the CPU's across nodes */
    double ll_max = nodes == 1 ? ar->ll_max_one_node : mc->cpu->ll_max[i2];
    double nsteps = f == ALLREDUCE                          ? 2.0 * (ranks - 1)
                    : f == ALLGATHER || f == REDUCE_SCATTER ? ranks - 1.0
                                                            : ranks;
    double ppn = (double)ranks / nodes;
    for (int a = 0; a < N_ALGOS; a++)
        for (int p = 0; p < N_PROTOS; p++) {
            m->bw[a][p] = 0;
            m->lat[a][p] = 0;
            if (!available(mc, f, a, p, ranks, nodes, sharp))
                continue;
            double bus = g->graph_channels *
                         (nodes == 2 && (a == TREE || a == PAT) ? mc->tree_intra : g->bw);
            if (a == NVLS || a == NVLS_TREE) {
                /* lines 307-323: the NVLS graph's bus bandwidth per channel, twice for an
                 * allreduce's two operations, within the network's (twice it for NVLS_TREE
                 * on 2 nodes) and NVLS_TREE's cap */
                int channels;
                double intra, inter;
                nvls_graph(mc, ranks / nodes, nodes, &channels, &intra, &inter);
                double per = intra * ar->nvls_efficiency * (channels - 1) / channels * 2;
                per = MIN(per, inter * (a == NVLS_TREE && nodes <= 2 ? 2 : 1));
                if (a == NVLS_TREE)
                    per = MIN(per, ar->nvls_tree[i2]);
                bus = channels * per;
            }
            if (a == RING && p == LL)
                bus = MIN(ll_max, bus * .5);
            if (a == RING && p == LL128)
                bus = MIN(bus * .92, g->graph_channels * ar->ring_ll128[i2]);
            if (a == TREE && f == ALLREDUCE)
                bus = MIN(bus * .92, g->graph_channels * ar->tree[i2]);
            if (a == TREE && p == LL)
                bus = MIN(bus / 3.8, ll_max);
            if (a == TREE && p == LL128)
                bus = MIN(bus * (nodes == 1 ? 7.0 / 9.0 : 120.0 / 128.0),
                          g->graph_channels * ar->tree_ll128[i2]);
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
                double over = nodes > 1 ? mc->cpu->net_overhead * (p == SIMPLE ? 3 : 1) : 0;
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
static double algo_time(const Machine *mc, const Model *m, Func f, int a, int p, uint32_t ranks,
                        uint32_t nodes, int64_t bytes)
{
    double bw = m->bw[a][p], lat = m->lat[a][p];
    if (bw == 0)
        return -1;
    int log_size = log2_floor(bytes >> 6);
    if (a == TREE && f == ALLREDUCE && log_size >= 0 && log_size < 23)
        bw *= tree_correction[p][log_size];
    /* lines 643-646: NVLS_TREE's correction on Blackwell with x86 CPUs */
    if (a == NVLS_TREE && f == ALLREDUCE && log_size >= 0 && log_size < 24 &&
        mc->arch->compcap >= 100 && mc->cpu->x86)
        bw *= tree_correction[p][log_size];
    const Graph *g = nodes == 1 ? &mc->one_node : &mc->across_nodes;
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

gboolean fennel_library_nccl(const char *collective, uint32_t ranks,
                             const FennelLibraryMachine *machine, int64_t bytes,
                             FennelLibraryChoice *c, GError **error)
{
    const uint32_t ppn = machine->ppn;
    const gboolean sharp = machine->nvls;
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
    Machine mc;
    machine_init(&mc, machine);
    Model m;
    tune_model(&mc, f, ranks, nodes, sharp, &m);
    double t[N_ALGOS][N_PROTOS], best = INFINITY;
    int ba = RING, bp = SIMPLE;
    for (int a = 0; a < N_ALGOS; a++)
        for (int p = 0; p < N_PROTOS; p++) {
            t[a][p] = algo_time(&mc, &m, f, a, p, ranks, nodes, total);
            if (t[a][p] >= 0 && t[a][p] < best) {
                best = t[a][p];
                ba = a;
                bp = p;
            }
        }
    /* topoGetAlgoInfo: channels while bytes < channels x threads x threshold (PAT has no
     * thread count of its own in the tuning model: all the channels). */
    const Graph *g = nodes == 1 ? &mc.one_node : &mc.across_nodes;
    const gboolean nvls = ba == NVLS || ba == NVLS_TREE;
    int64_t nc = nvls ? (nodes == 1 ? mc.arch->nvls_channels_one : mc.arch->nvls_channels_more)
                      : g->comm_channels;
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
    /* the rows by architecture, named where they are not the H100 server's */
    char rows[48] = "";
    if (mc.arch != &archs[FENNEL_GPU_ARCH_SM90] || mc.cpu != &cpus[FENNEL_CPU_ARCH_INTEL])
        g_snprintf(rows, sizeof rows, " (%s GPUs, %s CPUs)", mc.arch->name, mc.cpu->name);
    g_snprintf(c->why, sizeof c->why,
               "NCCL v2.30.7 tuning.cc, %u node%s of %u GPU%s%s: time = latency + size / "
               "bandwidth, ",
               nodes, nodes == 1 ? "" : "s", per_node, per_node == 1 ? "" : "s", rows);
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
                   "; enqueue.cc: NVLS's %" G_GINT64_FORMAT " channels (nvls.cc, %s)", nc,
                   mc.arch->compcap >= 100 ? "SM100" : "SM90");
    else
        g_snprintf(c->why + used, sizeof c->why - used,
                   "; enqueue.cc: %" G_GINT64_FORMAT " of %d channels, the most with size >= "
                   "channels x %" G_GINT64_FORMAT " threads x %" G_GINT64_FORMAT " B, at least 1",
                   nc, g->comm_channels, nt, threshold);
    return TRUE;
}
