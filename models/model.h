/* The model interface. A network model (postal, lbp, logp, loggp) times the network
 * tasks (put, get, send, recv), a compute model (fixed, gamma) times sized computes, and
 * seeded noise may lengthen either. Each model is a class with a table of named, typed
 * parameters; a FennelModel holds the chosen classes, their parameter values and the
 * time resolution. Models return durations relative to the task's start; the engine
 * adds them to simulated time. */
#ifndef FENNEL_MODEL_H
#define FENNEL_MODEL_H

#include "faults.h"
#include "topology.h"
#include "units.h"
#include "yaml_reader.h"

typedef enum {
    FENNEL_PARAM_DURATION, /* FennelTime, ps */
    FENNEL_PARAM_RATE,     /* FennelRate, attoseconds per byte */
    FENNEL_PARAM_SIZE,     /* bytes */
} FennelParamKind;

typedef struct {
    const char *name;
    FennelParamKind kind;
    const char *default_text; /* parsed like user input */
    const char *help;
} FennelParamSpec;

#define FENNEL_MAX_PARAMS 8

typedef struct FennelModel FennelModel;

typedef enum {
    FENNEL_ORDER_LINEAR,
    FENNEL_ORDER_ROUND_ROBIN,
    FENNEL_ORDER_LIST,
} FennelRankOrder;

/* A parameter that depends on the message size (docs/SEMANTICS.md, Size-dependent
 * parameters): points (bytes, value) in order of size, at most two at one size (a step:
 * the second holds from that size on). Between points the value is interpolated
 * linearly, outside them the end segments are extended, and the result is rounded to the
 * parameter's unit (ps or attoseconds per byte), halves up, and never negative. */
typedef struct {
    int64_t bytes;
    int64_t value;
} FennelSizePoint;

typedef struct {
    uint32_t n;
    FennelSizePoint points[];
} FennelParamTable;

FennelParamTable *fennel_param_table_new(uint32_t n);
FennelParamTable *fennel_param_table_copy(const FennelParamTable *t);
/* The value at `bytes`. */
int64_t fennel_param_table_at(const FennelParamTable *t, int64_t bytes);
/* "{8B: 0.38ns, 512B: 0.46ns}"; g_free it. */
char *fennel_param_table_format(FennelParamKind kind, const FennelParamTable *t);

/* What one message of s bytes costs, as durations. The engine composes them the same way
 * for every model (docs/SEMANTICS.md): a send starts at t when the sender's slot and
 * NIC are free; the slot is then busy for `busy`, the NIC for `gap`; the data arrives at
 * t + flight. A message the NIC sends on its own (a get's response) arrives `wire`
 * after it leaves. On arrival the receiver's NIC is busy for `recv_gap` and one of its
 * slots for `recv_busy`. A model that times the bytes at the NIC (FENNEL_NET_NIC_BYTES)
 * gives in `nic_bytes` the NIC's time for all s bytes (s G), which a topology's links are
 * compared with (docs/TOPOLOGY.md). */
typedef struct {
    FennelTime busy;
    FennelTime gap;
    FennelTime flight;
    FennelTime wire;
    FennelTime recv_busy;
    FennelTime recv_gap;
    FennelTime nic_bytes;
} FennelMessageTiming;

enum {
    /* The sender's slot stays busy until its message has arrived (postal). */
    FENNEL_NET_SENDER_WAITS = 1 << 0,
    /* An arrival needs the receiver's NIC and a free slot (LogP, LogGP): messages are
     * received through engine events, not timed at the send. */
    FENNEL_NET_CONTENDED = 1 << 1,
    /* The bytes are timed at the NICs (LogGP's G), not on the wire: on a topology the wire
     * part is the route's latency alone (docs/TOPOLOGY.md). */
    FENNEL_NET_NIC_BYTES = 1 << 2,
};

typedef struct {
    const char *name;
    const char *description;
    const FennelParamSpec *params;
    unsigned n_params;
    unsigned flags;
    /* Times a message of `bytes` with the parameter values `p` (of this class). */
    void (*message)(const FennelModel *m, const int64_t *p, int64_t bytes,
                    FennelMessageTiming *out);
    /* Whether a two-sided message of `bytes` uses the rendezvous protocol (its send
     * completes only when the receive has matched it); NULL for never. */
    gboolean (*rendezvous)(const int64_t *p, int64_t bytes);
    /* Bit k: parameter k is a time per byte of the NIC or the wire (postal's and lbp's beta,
     * LogGP's G), which a slow rank's NIC factor multiplies (docs/TOPOLOGY.md, Stragglers). */
    unsigned nic_params;
} FennelNetworkClass;

typedef struct {
    const char *name;
    const char *description;
    const FennelParamSpec *params;
    unsigned n_params;
    FennelTime (*duration)(const FennelModel *m, int64_t bytes);
} FennelComputeClass;

/* Seeded noise (docs/SEMANTICS.md): a distribution and its parameters. */
typedef enum {
    FENNEL_NOISE_NONE,
    FENNEL_NOISE_CONSTANT,    /* value */
    FENNEL_NOISE_UNIFORM,     /* min, max */
    FENNEL_NOISE_NORMAL,      /* mean, stddev */
    FENNEL_NOISE_LOGNORMAL,   /* mu, sigma (of log(x / scale)), scale */
    FENNEL_NOISE_EXPONENTIAL, /* mean */
    FENNEL_NOISE_GAMMA,       /* shape, scale */
    FENNEL_NOISE_BETAPRIME,   /* a, b, scale */
    FENNEL_NOISE_EMPIRICAL,   /* samples from a file */
} FennelNoiseKind;

typedef struct {
    FennelNoiseKind kind;
    double p[3];     /* parameters; durations in ns */
    double *samples; /* empirical: ns */
    size_t n_samples;
} FennelNoise;

/* The noise streams: where a sample is added. */
typedef enum {
    FENNEL_NOISE_NETWORK, /* each message's flight */
    FENNEL_NOISE_HOST,    /* each send overhead (the sender's busy time) */
    FENNEL_NOISE_COMPUTE, /* each compute */
    FENNEL_NOISE_N_STREAMS,
} FennelNoiseStream;

/* The order of events due at the same instant (docs/SEMANTICS.md, Ordering): the original
 * Fennel's (tasks before messages, tasks in program order, messages in send order) or
 * LogGOPSim's (first insertion). */
typedef enum {
    FENNEL_ORDERING_FENNEL,
    FENNEL_ORDERING_LOGGOPSIM,
} FennelOrdering;

/* The most size ranges `duplex` takes. */
#define FENNEL_MAX_DUPLEX_RANGES 8

struct FennelModel {
    const FennelNetworkClass *network; /* every message, or those between nodes */
    int64_t net[FENNEL_MAX_PARAMS];
    const FennelNetworkClass *intra_network; /* messages within a node (placement) */
    int64_t intra[FENNEL_MAX_PARAMS];
    /* Size-dependent parameters (owned; NULL: the constant in net / intra), and whether
     * there is any, which keeps a constant model's message timing free of lookups. */
    FennelParamTable *net_table[FENNEL_MAX_PARAMS];
    FennelParamTable *intra_table[FENNEL_MAX_PARAMS];
    gboolean sized;
    uint32_t ranks_per_node; /* 0: no placement, every message uses `network` */
    /* How ranks are laid out on nodes (docs/TOPOLOGY.md, Rank orders): linear (rank r on
     * node r / ranks_per_node), round-robin (rank r on node r mod nodes), or a given list
     * (rank r at position order[r], on node order[r] / ranks_per_node; owned). */
    FennelRankOrder order;
    uint32_t *order_list;
    uint32_t n_order;
    /* The ports of messages between nodes (docs/TOPOLOGY.md, Shared NICs and half-duplex
     * ports): nic_shared, the ranks of a node share one injection and one ejection port
     * (else each rank has its own); half_duplex, a port carries one direction at a time, a
     * message the other way waiting until the last one has arrived. Postal and lbp, without
     * a topology. */
    gboolean nic_shared;
    gboolean half_duplex; /* some size is half duplex (then the ports are on) */
    /* Duplex by message size (`duplex: half, full from 8KiB, half from 64KiB`): range k
     * holds the sizes from duplex_from[k] (duplex_from[0] = 0) to the next range's start,
     * half duplex when duplex_half[k]; n_duplex 0 is full duplex at every size. */
    uint32_t n_duplex;
    int64_t duplex_from[FENNEL_MAX_DUPLEX_RANGES];
    gboolean duplex_half[FENNEL_MAX_DUPLEX_RANGES];
    /* The library's eager limit (`eager: 64KiB`, docs/SEMANTICS.md, Eager messages): under a
     * model whose sender waits for its message (postal), a put or send of fewer bytes than
     * this returns once its bytes have left the sender; 0: none (every sender waits). */
    int64_t eager_limit;
    gboolean nic_given;   /* nic was named (the file's placement, --set nic, --nic) */
    gboolean intra_given; /* an intra model was named (a section, `intra: same`, --set) */
    gboolean intra_same;  /* `intra: same`: messages within a node use `network` too */
    const FennelComputeClass *compute;
    int64_t comp[FENNEL_MAX_PARAMS];
    FennelNoise noise[FENNEL_NOISE_N_STREAMS];
    FennelTime resolution;
    gboolean resolution_explicit; /* truncate toward zero instead of rounding */
    /* The network between nodes (owned; NULL: none, every message sees an idle network) and
     * which of its links are shared (docs/TOPOLOGY.md). */
    FennelTopology *topology;
    FennelContention contention;
    FennelOrdering ordering;
    /* The GPU of every rank, for traces that record a compute's operations and bytes rather
     * than its time (Chakra's num_ops and tensor_size, docs/FORMATS.md): its peak rate of
     * operations per second and its memory's time per byte; gpu_given when the model or
     * --set named either (else the defaults below). */
    int64_t gpu_flops;
    FennelRate gpu_memory;
    gboolean gpu_given;
    /* Slow ranks and failing links (owned; NULL: none; docs/TOPOLOGY.md). */
    FennelStragglers *stragglers;
    FennelFaults *faults;
};

/* The default GPU: an NVIDIA A100 SXM's dense 16-bit tensor peak and its 40 GB HBM2's
 * bandwidth (NVIDIA A100 Tensor Core GPU datasheet). */
#define FENNEL_GPU_DEFAULT_FLOPS  "312TFLOP/s"
#define FENNEL_GPU_DEFAULT_MEMORY "1555GB/s"

/* A roofline: the time of `ops` operations over `bytes` bytes of the GPU's memory, the
 * larger of ops / flops and bytes / memory bandwidth (as ASTRA-sim's roofline: num_ops
 * over min(peak, bandwidth x num_ops / tensor_size)), rounded to the model's resolution. */
FennelTime fennel_model_roofline(const FennelModel *m, int64_t ops, int64_t bytes);

/* The registries, NULL-terminated, in the order `fennel list` shows them. */
extern const FennelNetworkClass *const fennel_network_classes[];
extern const FennelComputeClass *const fennel_compute_classes[];

const FennelNetworkClass *fennel_network_class_find(const char *name);
const FennelComputeClass *fennel_compute_class_find(const char *name);

/* The default model: postal with zero parameters, fixed compute of 0 ns, 1 ps
 * resolution rounding to nearest, no noise, no placement. */
void fennel_model_init(FennelModel *m);
/* Frees what a model owns (empirical noise samples, parameter tables). */
void fennel_model_clear(FennelModel *m);
/* dst (not initialised) becomes a copy of src owning copies of what src owns. */
void fennel_model_copy(FennelModel *dst, const FennelModel *src);

/* Gives parameter k of the network (intra FALSE) or intra-node network a table (taken
 * over; NULL makes it constant again). */
void fennel_model_set_table(FennelModel *m, gboolean intra, unsigned k, FennelParamTable *t);

void fennel_model_params_fill(const FennelModel *m, const int64_t *p, int64_t bytes, int64_t *out);

/* The parameter values a network class's `message` uses for a message of `bytes`: p itself
 * (m->net or m->intra) when no parameter depends on the size, else `buf` filled with the
 * values at that size. */
static inline const int64_t *fennel_model_params_at(const FennelModel *m, const int64_t *p,
                                                    int64_t bytes, int64_t buf[FENNEL_MAX_PARAMS])
{
    if (G_LIKELY(!m->sized))
        return p;
    fennel_model_params_fill(m, p, bytes, buf);
    return buf;
}

/* The network class and parameters for a message from src to dst (linear order; the
 * engine uses fennel_model_network_nodes with its nodes of the ranks). */
static inline const FennelNetworkClass *fennel_model_network(const FennelModel *m, uint32_t src,
                                                             uint32_t dst, const int64_t **params)
{
    if (m->ranks_per_node && !m->intra_same && src / m->ranks_per_node == dst / m->ranks_per_node) {
        *params = m->intra;
        return m->intra_network;
    }
    *params = m->net;
    return m->network;
}

/* The same for a message whose ends are on the given nodes. */
static inline const FennelNetworkClass *fennel_model_network_nodes(const FennelModel *m,
                                                                   uint32_t src_node,
                                                                   uint32_t dst_node,
                                                                   const int64_t **params)
{
    if (m->ranks_per_node && !m->intra_same && src_node == dst_node) {
        *params = m->intra;
        return m->intra_network;
    }
    *params = m->net;
    return m->network;
}

/* Sets the rank order from text: "linear", "round-robin", or a list of positions
 * ("[2, 0, 3, 1]" or "2,0,3,1", a permutation of 0..n-1). FALSE with *why (to g_free). */
gboolean fennel_model_set_order(FennelModel *m, const char *text, char **why);
/* "linear", "round-robin" or the list; g_free it. */
char *fennel_model_order_describe(const FennelModel *m);

/* Sets the ordering from its name ("fennel" or "loggopsim"); FALSE if unknown. */
gboolean fennel_ordering_parse(const char *text, FennelOrdering *out);

/* The shared-memory default for messages within a node, used where ranks share nodes and
 * no intra model was measured (`fennel compare --ppn`, `fennel fit` without --intra):
 * postal alpha 300 ns, beta 0.1 ns/B (10 GB/s), a single-copy shared-memory ping-pong of a
 * current server (docs/TOPOLOGY.md, Ranks that share a node). */
#define FENNEL_INTRA_DEFAULT_ALPHA "300ns"
#define FENNEL_INTRA_DEFAULT_BETA  "0.1ns/B"
void fennel_model_set_intra_default(FennelModel *m);

/* key "nic" (or "placement.nic"): own or shared; key "duplex": full or half, or by message
 * size, `half, full from 8KiB, half from 64KiB` (docs/TOPOLOGY.md, Shared NICs and
 * half-duplex ports). On failure *why is a message to g_free. */
gboolean fennel_model_set_ports(FennelModel *m, const char *key, const char *value, char **why);

/* Whether a put or send of `bytes` is eager: below the model's eager limit, under a network
 * model whose sender waits for its message. */
static inline gboolean fennel_model_eager_at(const FennelModel *m, const FennelNetworkClass *net,
                                             int64_t bytes)
{
    return bytes < m->eager_limit && (net->flags & FENNEL_NET_SENDER_WAITS) != 0;
}

/* Whether a message of `bytes` goes through half-duplex ports. */
gboolean fennel_model_half_duplex_at(const FennelModel *m, int64_t bytes);

/* The duplex as the key writes it: "full", "half" or its ranges, with sizes in bytes
 * ("half, full from 8192B, half from 65536B"); g_free it. */
char *fennel_model_duplex_text(const FennelModel *m);

/* The NIC of ranks that share a node when nothing names it (compare --ppn, fit --model
 * --ppn): a network model is timed from a ping-pong between two nodes, one rank on each, so
 * it is one node's adapter, which the node's ranks share. Sets nic_shared and returns TRUE
 * when ranks_per_node is above 1, no nic was named and the ports apply (a postal or lbp
 * network, no topology); else leaves the model as it is. */
gboolean fennel_model_share_nic_default(FennelModel *m);

/* What is wrong with the model's placement, or NULL: ranks_per_node without an intra
 * model would make messages within a node free, so it needs one (or `intra: same`). */
const char *fennel_model_placement_problem(const FennelModel *m);

/* What is wrong with the topology, contention, stragglers and faults settings, or NULL
 * (g_free it): contention other than none and faults need a topology, stragglers need
 * ranks (or a fraction) and a factor. */
char *fennel_model_topology_problem(const FennelModel *m);
/* What is wrong with `eager`, or NULL (g_free it): it needs a network model whose sender
 * waits (postal) and no topology. */
char *fennel_model_eager_problem(const FennelModel *m);
/* What is wrong with `nic: shared` or `duplex: half`, or NULL (g_free it): the ports take
 * no topology and a postal or lbp network model. */
char *fennel_model_ports_problem(const FennelModel *m);

/* Whether any of the model's networks receives through engine events. */
gboolean fennel_model_contended(const FennelModel *m);

/* A noise sample in picoseconds for (seed, stream, index): a pure function of them,
 * rounded to the model's resolution; 0 without noise on that stream. */
FennelTime fennel_model_noise(const FennelModel *m, uint64_t seed, FennelNoiseStream stream,
                              uint64_t index);

/* Switch class, resetting its parameters to their defaults. */
void fennel_model_set_network(FennelModel *m, const FennelNetworkClass *klass);
void fennel_model_set_intra(FennelModel *m, const FennelNetworkClass *klass);
void fennel_model_set_compute(FennelModel *m, const FennelComputeClass *klass);

/* The model's keys (docs/SEMANTICS.md, Model keys): one table, models/model_keys.c, that
 * the model file reader and `--set` both go through, so that a key is added in one place
 * and means the same in a file and on the command line. */
typedef enum {
    FENNEL_MODEL_KEY_VALUE,   /* `KEY: VALUE` in a file, `--set KEY=VALUE` */
    FENNEL_MODEL_KEY_SECTION, /* `KEY: {SUB: VALUE, ...}` in a file, `--set KEY.SUB=VALUE` */
    FENNEL_MODEL_KEY_FILE,    /* a model file's own: its version, its name and description */
} FennelModelKeyKind;

/* One value handed to a key's setter. */
typedef struct {
    const char *sub;   /* SUB of `KEY.SUB` ("flops", "network.stddev"), NULL for KEY itself */
    const char *value; /* as written */
    const char *named; /* the key as its writer named it, for messages: "flops" in a file's
                          gpu section, "gpu.flops" on the command line */
    const char *file;  /* the model file, NULL on the command line */
} FennelModelSetting;

typedef struct {
    const char *name;
    FennelModelKeyKind kind;
    /* Sets one value; FALSE with *why (to g_free), and *unknown_key when the key has no
     * such SUB (or no value of its own) rather than a bad value. */
    gboolean (*set)(FennelModel *m, const FennelModelSetting *s, gboolean *unknown_key, char **why);
    /* The file's reader of a section that is more than a mapping of values, at its value;
     * NULL: the file's value, or each key of its mapping, goes through `set`. */
    gboolean (*read)(FennelYaml *y, FennelModel *m, GError **error);
    /* A section that takes a value of its own on the command line too (`--set network=lbp`,
     * `--set intra=same`): its setter is given SUB NULL. */
    gboolean takes_value;
    /* Settings as `--set` writes them that show the key (after what it needs), which a
     * model file written with the same keys must match: tests/test_model_keys.c. */
    const char *example[6];
    /* What it sets, as docs/SEMANTICS.md's table of keys says it. */
    const char *doc;
} FennelModelKey;

/* The keys in the order the file reader's messages list them. */
extern const FennelModelKey fennel_model_keys[];
extern const unsigned fennel_model_n_keys;
const FennelModelKey *fennel_model_key_find(const char *name);
/* "fennel, network, ..." in the table's order; g_free it. */
char *fennel_model_key_names(void);

/* Sets one value from text, `--set KEY=VALUE`: a key of the table (KEY or KEY.SUB: "resolution",
 * "network" (a class name), "network.NAME", "topology.kind", "gpu.flops", ...), "order" and
 * "ranks_per_node" (placement's), or a parameter name of the current network or compute class.
 * On failure *why is a message to g_free, and *unknown_key tells a key the model does not
 * have from a bad value. */
gboolean fennel_model_set(FennelModel *m, const char *key, const char *value, gboolean *unknown_key,
                          char **why);

/* Parameter tables: parse a value of a kind, find a name (-1 if absent), list the
 * names ("a, b, c"; g_free it), list the network or compute class names. */
gboolean fennel_param_parse(FennelParamKind kind, const char *text, int64_t *out, const char **why);
int fennel_param_find(const FennelParamSpec *specs, unsigned n, const char *name);
char *fennel_param_names(const FennelParamSpec *specs, unsigned n);
char *fennel_model_class_names(gboolean network);

/* Reads a model file (docs/SEMANTICS.md) into m, which should be initialised; keys it does not
 * give keep their values. Errors name FILE:LINE:COL. */
gboolean fennel_model_read(FennelModel *m, const char *file, GError **error);
gboolean fennel_model_parse(FennelModel *m, const char *name, const char *data, gsize length,
                            GError **error);

/* Rounds attoseconds to the model's resolution (toward zero when the resolution was
 * given explicitly, to nearest otherwise) and returns picoseconds, saturating. */
FennelTime fennel_model_quantise(const FennelModel *m, __int128 attoseconds);

/* Attoseconds of a duration parameter and of bytes x a rate parameter. */
static inline __int128 fennel_as(FennelTime ps)
{
    return (__int128)ps * FENNEL_AS_PER_PS;
}

static inline __int128 fennel_as_bytes(int64_t bytes, FennelRate rate)
{
    return (__int128)bytes * rate;
}

/* Noise: names, descriptions, parsing of one distribution from key/value text. */
const char *fennel_noise_stream_name(FennelNoiseStream stream);
char *fennel_noise_describe(const FennelNoise *n);
void fennel_noise_append_json(const FennelNoise *n, GString *out);
/* Sets one key of a noise section ("distribution", "mean", "stddev", "a", ...);
 * `base_dir` resolves an empirical `file`. */
gboolean fennel_noise_set(FennelNoise *n, const char *key, const char *value, const char *base_dir,
                          char **why);
/* Checks that the distribution has what it needs; NULL or a message to g_free. */
char *fennel_noise_check(const FennelNoise *n);
/* A sample in ns (may be negative for normal, uniform). */
double fennel_noise_sample_ns(const FennelNoise *n, uint64_t seed, uint32_t stream, uint64_t index);

/* Formats a parameter value with its unit ("500ns", "0.4ns/B", "8B"). */
char *fennel_param_format(FennelParamKind kind, int64_t value, char buf[48]);
const char *fennel_param_unit(FennelParamKind kind);

/* "lbp alpha_p=500ns alpha_r=100ns beta=0.4ns/B; compute fixed duration=10ns" */
char *fennel_model_describe(const FennelModel *m);

/* The model as a JSON object. */
void fennel_model_append_json(const FennelModel *m, GString *out);

#endif
