/* Chakra execution traces (docs/FORMATS.md): the format of MLCommons' Chakra that
 * ASTRA-sim runs. One file per rank, `PREFIX.RANK.et`, each a sequence of protobuf
 * messages, each preceded by its length as a varint: a GlobalMetadata, then Nodes
 * (compute, send, receive, collective, ...) with their dependencies; a file may be
 * gzip-compressed. fennel reads them with a wire-format decoder of its own (protobuf.h),
 * lowers them to a program (collectives expanded by fennel's generators) and writes
 * programs back as Chakra. */
#ifndef FENNEL_CHAKRA_H
#define FENNEL_CHAKRA_H

#include "program.h"

/* Node types and collective kinds, as the schema numbers them. */
enum {
    FENNEL_CHAKRA_INVALID = 0,
    FENNEL_CHAKRA_METADATA = 1,
    FENNEL_CHAKRA_MEM_LOAD = 2,
    FENNEL_CHAKRA_MEM_STORE = 3,
    FENNEL_CHAKRA_COMP = 4,
    FENNEL_CHAKRA_COMM_SEND = 5,
    FENNEL_CHAKRA_COMM_RECV = 6,
    FENNEL_CHAKRA_COMM_COLL = 7,
};
#define FENNEL_CHAKRA_N_COLLECTIVES 10 /* ALL_REDUCE = 0 .. BARRIER = 9 */

/* "all_reduce", "reduce", ... (the schema's names in lower case), or NULL. */
const char *fennel_chakra_collective_name(int64_t kind);

/* Everything a node says, as read (lowering unpacks a held node into one of these). */
typedef struct {
    uint64_t id;
    uint32_t type;
    uint32_t first_dep, n_deps;           /* data dependencies, in FennelChakraRank.deps */
    int64_t duration_ps;                  /* fennel_duration_ps, or duration_micros in ps */
    int64_t comm_size;                    /* bytes, or -1 */
    int64_t comm_type;                    /* a collective kind, or -1 */
    int64_t comm_src, comm_dst, comm_tag; /* -1 when absent */
    gboolean is_cpu_op;                   /* a host operation (the launch of a collective) */
    gboolean timed; /* duration_micros or fennel_duration_ps was given (not 0) */
    /* As fennel writes a program that Chakra's node types do not say alone: the slot of
     * its task (fennel_slot, -1 when absent) and, for a COMP_NODE, whether the task was a
     * proxy or a sleep (fennel_task "proxy" or "sleep": FENNEL_TASK_PROXY or _SLEEP, else
     * 0). */
    int64_t slot;
    uint32_t fennel_task;
    int64_t num_ops;     /* num_ops (a compute's operations), or -1 */
    int64_t tensor_size; /* tensor_size (the bytes a compute or memory node touches), or -1 */
    gboolean rendezvous; /* fennel_rendezvous: a send that follows the model's threshold */
    /* The chunks a message carries (msg_chunk_idx, msg_chunk_cnt, total_chunk_cnt, as
     * ASTRA-sim's MSCCL converter writes them), or -1. */
    int64_t chunk_idx, chunk_cnt, chunk_total;
    uint64_t offset;  /* of the node's message in the (uncompressed) file */
    const char *name; /* in FennelChakraTrace.names, or a constant "" */
    /* pg_name: the process group of a collective (a constant "" when absent: every rank), in
     * FennelChakraTrace.names */
    const char *pg_name;
} FennelChakraNode;

/* A node as a trace holds it, 56 bytes instead of the 176 of a FennelChakraNode (a trace
 * is held whole while it is lowered): what every node has, with the values of the common
 * nodes (a compute, a send or receive of a peer, tag and slot below 2^31) in narrow fields;
 * a send or receive without a duration keeps the chunks it carries in place of the
 * duration, their total in its rank's (FENNEL_CHAKRA_CHUNKS).
 * A node with anything else (a collective's kind and group, num_ops or tensor_size, chunks,
 * a value too wide, an offset past 4 GiB) keeps all of it in a FennelChakraNode of the
 * rank's `extras`: `extra` is its index there, or FENNEL_CHAKRA_NO_EXTRA. */
#define FENNEL_CHAKRA_NO_EXTRA UINT32_MAX
typedef struct {
    uint64_t id;
    union {
        int64_t duration_ps;
        struct {
            uint32_t idx, cnt;
        } chunk; /* FENNEL_CHAKRA_CHUNKS: msg_chunk_idx and msg_chunk_cnt */
    };
    int64_t comm_size;
    const char *name;
    uint32_t first_dep; /* its dependencies end where the next node's begin */
    uint32_t extra;
    uint32_t offset;
    int32_t peer;  /* a send's comm_dst, a receive's comm_src, or -1 */
    int32_t tag;   /* comm_tag, or -1 */
    int16_t slot;  /* fennel_slot, or -1 */
    uint8_t type;  /* the node type, at most 255 */
    uint8_t flags; /* FENNEL_CHAKRA_CPU_OP, ... */
} FennelChakraHeld;
enum {
    FENNEL_CHAKRA_CPU_OP = 1,
    FENNEL_CHAKRA_TIMED = 2,
    FENNEL_CHAKRA_RENDEZVOUS = 4,
    FENNEL_CHAKRA_PROXY = 8,   /* fennel_task "proxy" */
    FENNEL_CHAKRA_SLEEP = 16,  /* fennel_task "sleep" */
    FENNEL_CHAKRA_CHUNKS = 32, /* a message of chunks: `chunk`, of its rank's chunk_total */
};

typedef struct {
    char *file;
    FennelChakraHeld *nodes;
    uint32_t n_nodes, n_deps, n_extras;
    /* Dependencies (node ids): in deps32 when all of the rank's are below 2^32 (4 bytes
     * each instead of 8; deps is NULL then), else in deps. */
    uint64_t *deps;
    uint32_t *deps32;
    FennelChakraNode *extras;
    int64_t chunk_total;            /* total_chunk_cnt of the held messages of chunks, or -1 */
    uint32_t hint_nodes, hint_deps; /* the nodes and dependencies read, kept when freed */
} FennelChakraRank;

/* Dependency d of rank r. */
static inline uint64_t fennel_chakra_dep(const FennelChakraRank *r, uint32_t d)
{
    return r->deps32 ? r->deps32[d] : r->deps[d];
}

/* Node i of rank r, whole. */
void fennel_chakra_node(const FennelChakraRank *r, uint32_t i, FennelChakraNode *node);

typedef struct {
    uint32_t n_ranks;
    FennelChakraRank *ranks;
    GStringChunk *names;
    char *collective;           /* the GlobalMetadata attribute `collective` of rank 0, or NULL */
    int64_t root;               /* its attribute `root`, or -1 */
    int64_t declared_ranks;     /* its attribute `fennel_ranks`, or -1 */
    int64_t declared_processes; /* its attribute `fennel_processes` (slots per rank), or -1 */
} FennelChakraTrace;

/* Whether the data is a Chakra trace: gzip, or a varint length and a GlobalMetadata. */
gboolean fennel_chakra_detect(const char *data, gsize length);

/* Reads the trace that `file` belongs to: PREFIX.0.et, PREFIX.1.et, ... as long as they
 * exist when the file is named PREFIX.RANK.et, else the file alone as rank 0. Errors name
 * the file, the byte offset and the node: "FILE: byte 120 (node 7): ...". What it holds
 * (a file inflated, its nodes) is checked against the limits' memory as it grows. */
FennelChakraTrace *fennel_chakra_read(const char *file, const FennelLimits *limits, GError **error);
/* As fennel_chakra_read, handing each rank to `each` as soon as its file is read (its
 * nodes may be freed there: set n_nodes, n_deps and n_extras to 0); `each` returns FALSE to
 * stop reading, and the trace read so far is returned without an error. */
typedef gboolean (*FennelChakraEach)(FennelChakraTrace *t, uint32_t rank, void *user);
FennelChakraTrace *fennel_chakra_read_each(const char *file, const FennelLimits *limits,
                                           FennelChakraEach each, void *user, GError **error);
/* One rank's file from memory, as a trace of one rank (for tests and fuzzing). */
FennelChakraTrace *fennel_chakra_parse(const char *file, const char *data, gsize length,
                                       GError **error);
void fennel_chakra_free(FennelChakraTrace *t);

/* Builds the program of a collective node: `kind` over `ranks` ranks, `bytes` its
 * comm_size. Supplied by the layer that knows the generators. It makes the same program of
 * the same arguments: lowering may splice one program it returned for several collectives. */
typedef FennelProgram *(*FennelChakraExpand)(void *user, int64_t kind, int64_t bytes,
                                             uint32_t ranks, GError **error);

/* The program of the trace (docs/FORMATS.md): a rank per file, computes, sends and receives
 * as tasks, data dependencies as edges, and the i-th collective node of every rank
 * replaced by the program `expand` builds for it. `size` (0: none) is the collective's
 * buffer for messages and collectives without comm_size (the MSCCL-to-Chakra converter
 * writes none): a message carrying msg_chunk_cnt of total_chunk_cnt chunks moves that share
 * of it, one without chunks all of it; a `size` nothing needs is a usage error. `model`'s
 * GPU (NULL: the default) times a compute recorded by num_ops and tensor_size alone, by its
 * roofline, and a memory load or store, tensor_size over the memory bandwidth. The program
 * takes the trace's names (t->names is NULL after): its tasks are named without a copy; the
 * nodes are freed before the program is made (t->ranks keeps the files). */
struct FennelModel;
FennelProgram *fennel_chakra_lower(FennelChakraTrace *t, FennelChakraExpand expand, void *user,
                                   int64_t size, const struct FennelModel *model,
                                   const FennelLimits *limits, GError **error);

/* Reads and lowers the trace `file` belongs to, as fennel_chakra_read and then
 * fennel_chakra_lower do, with the same program and the same errors; a trace of computes,
 * sends and receives alone, each rank's ids increasing, is lowered a rank at a time as its
 * file is read, so that its nodes are never all held at once (any other trace, or one with
 * an error, is read again whole). */
FennelProgram *fennel_chakra_load(const char *file, FennelChakraExpand expand, void *user,
                                  int64_t size, const struct FennelModel *model,
                                  const FennelLimits *limits, GError **error);

/* Writes p as Chakra, one GString per rank (an array of p->n_ranks). Puts become a send
 * and a receive; fails with a message naming the first task Chakra cannot express.
 * Durations go to duration_micros (what ASTRA-sim reads) and, exactly, to the attribute
 * fennel_duration_ps; sized computes need the model. */
struct FennelModel;
GString **fennel_chakra_write(const FennelProgram *p, const struct FennelModel *model,
                              GError **error);

#endif
