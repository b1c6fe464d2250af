/* MSCCL++ execution plans (docs/FORMATS.md): the JSON that the MSCCL++ DSL writes and its
 * executor runs, in the current schema and in the legacy one of 2024. A plan lists GPUs,
 * each with thread blocks, each an ordered list of operations that move chunks of three
 * buffers (input, output, scratch) with one-sided puts and gets through channels to peers
 * and synchronise by signals and waits. This module reads both schemas into one form
 * (every operand resolved to the GPU and buffer it touches, every channel to its peer),
 * lowers a plan to a fennel program for a given buffer size and checks it symbolically. */
#ifndef FENNEL_MSCCLPP_H
#define FENNEL_MSCCLPP_H

#include "program.h"

typedef enum {
    FENNEL_MSCCLPP_NOP,
    FENNEL_MSCCLPP_BARRIER,
    FENNEL_MSCCLPP_SIGNAL, /* signal, rlxsignal */
    FENNEL_MSCCLPP_WAIT,   /* wait, rlxwait */
    FENNEL_MSCCLPP_FLUSH,
    FENNEL_MSCCLPP_PUT,    /* put, pws, pwsf (the last two also signal) */
    FENNEL_MSCCLPP_GET,    /* get */
    FENNEL_MSCCLPP_COPY,   /* copy; cpkt (current schema), tpkt (legacy): into packets */
    FENNEL_MSCCLPP_REDUCE, /* re, res, rre, rres and the legacy rs, rrc, rrcs: dst = srcs combined,
                            * then written to every dst */
    FENNEL_MSCCLPP_PUT_PACKETS,    /* ppkt, rppkt */
    FENNEL_MSCCLPP_UNPACK_PACKETS, /* upkt; the legacy cpkt: out of packets */
    FENNEL_MSCCLPP_REDUCE_PACKETS, /* repkt, respkt, recpkt, recspkt, rpkt, rspkt */
    FENNEL_MSCCLPP_MULTI_REDUCE,   /* glres: every rank of a switch group, combined and stored */
    FENNEL_MSCCLPP_MULTI_STORE,    /* gstore, gstorepkt */
    FENNEL_MSCCLPP_SEM_ACQUIRE,
    FENNEL_MSCCLPP_SEM_RELEASE,
    FENNEL_MSCCLPP_N_KINDS,
} FennelMscclppKind;

typedef enum {
    FENNEL_MSCCLPP_MEMORY,
    FENNEL_MSCCLPP_PORT,
    FENNEL_MSCCLPP_SWITCH
} FennelMscclppChan;

/* An operand: `size` chunks from chunk `index` of buffer `buf` (0 i, 1 o, 2 s) of `gpu`. */
typedef struct {
    uint32_t gpu;
    uint8_t buf;
    uint8_t packets; /* LL: the chunks are flagged packets, whose arrival is their signal */
    int32_t index, size;
} FennelMscclppOperand;

typedef struct {
    uint8_t kind;    /* FennelMscclppKind */
    uint8_t name;    /* index into fennel_mscclpp_op_names */
    uint8_t chan;    /* FennelMscclppChan */
    uint8_t signals; /* a put that also signals (pws, pwsf) */
    uint8_t flushes; /* pwsf */
    uint16_t n_src, n_dst, n_chans;
    /* A thread-block group (tbg_info): this thread block is block tbg_id of tbg_size that
     * share the operation, each doing its part of every operand's range (tbg_size 1: all of
     * it). */
    uint16_t tbg_id, tbg_size;
    uint32_t first_src;  /* operands: n_src sources, then n_dst destinations */
    uint32_t first_chan; /* into chan_refs: global channel ids, semaphore ids or the group */
    int32_t barrier, barrier_tbs;
    uint32_t line, col;
} FennelMscclppOp;

typedef struct {
    uint32_t first_op, n_ops;
    uint32_t line, col;
} FennelMscclppTb;

/* A channel of a GPU to a peer. Signals on it raise the semaphore of its partner, the
 * peer's channel of the same type (and, in the legacy schema, buffer pair) and ordinal. */
typedef struct {
    uint32_t gpu, peer;
    uint8_t type, key;
    uint32_t partner; /* UINT32_MAX: none */
} FennelMscclppChannel;

typedef struct {
    uint8_t buf;
    uint32_t first_rank, n_ranks; /* into group_ranks */
} FennelMscclppGroup;

typedef struct {
    int32_t chunks[3];
    uint32_t first_tb, n_tbs;
    uint32_t first_sem, n_sems; /* semaphore initial values in sem_init */
    uint32_t first_group, n_groups;
    uint32_t line, col;
} FennelMscclppGpu;

typedef struct {
    char *file;
    char *name, *coll;
    gboolean packets; /* protocol LL */
    gboolean inplace;
    gboolean legacy; /* the 2024 schema */
    uint32_t ngpus;
    uint32_t alignment; /* buffer_alignment, in bytes: a group splits ranges in such units */
    uint32_t parts;     /* the least common multiple of the groups' sizes (1: no groups) */
    uint32_t line, col;
    FennelMscclppGpu *gpus;
    FennelMscclppTb *tbs;
    FennelMscclppOp *ops;
    FennelMscclppOperand *operands;
    uint32_t *chan_refs;
    FennelMscclppChannel *channels;
    FennelMscclppGroup *groups;
    uint32_t *group_ranks;
    int64_t *sem_init;
    uint32_t n_tbs, n_ops, n_operands, n_chan_refs, n_channels, n_groups, n_sems;
} FennelMscclppPlan;

/* The part of operand x that operation op's thread block does, in units of 1 / parts of a
 * chunk: from *lo, as many units as it returns. A group's blocks split the range into
 * equal parts, block k the k-th. */
static inline int64_t fennel_mscclpp_span(const FennelMscclppPlan *p, const FennelMscclppOp *op,
                                          const FennelMscclppOperand *x, int64_t *lo)
{
    int64_t whole = (int64_t)x->size * p->parts;
    int64_t a = whole * op->tbg_id / op->tbg_size, b = whole * (op->tbg_id + 1) / op->tbg_size;
    *lo = (int64_t)x->index * p->parts + a;
    return b - a;
}

/* Of an operand's `bytes`, those operation op's thread block moves: the executor's split
 * (calcSize), in units of buffer_alignment, the first blocks one unit more when they do not
 * divide evenly; bytes past the last whole unit (a size the executor refuses) go to the
 * group's last block. */
static inline int64_t fennel_mscclpp_share(const FennelMscclppPlan *p, const FennelMscclppOp *op,
                                           int64_t bytes)
{
    if (op->tbg_size <= 1)
        return bytes;
    int64_t a = p->alignment, e = bytes / a, n = op->tbg_size, k = op->tbg_id;
    int64_t share = (e / n + (k < e % n)) * a;
    return k == n - 1 ? share + bytes - e * a : share;
}

/* The file's own operation names ("rres", "rrcs", ...). */
const char *fennel_mscclpp_op_name(const FennelMscclppOp *op);

/* Whether the text is an execution plan: a JSON object with the keys "gpus" and
 * "collective" or "threadblocks". */
gboolean fennel_mscclpp_detect(const char *data, gsize length);

/* Reads and checks a plan of either schema (every error FILE:LINE:COL). */
FennelMscclppPlan *fennel_mscclpp_parse(const char *file, const char *data, gsize length,
                                        GError **error);
void fennel_mscclpp_free(FennelMscclppPlan *p);

/* The chunks of one rank's call: a rank's input_chunks, or output_chunks when it has no
 * input chunks (the executor's rule); --size is divided by it. */
uint32_t fennel_mscclpp_rank_chunks(const FennelMscclppPlan *p);

/* The fennel program for `size` bytes per rank (docs/FORMATS.md, the mapping). */
FennelProgram *fennel_mscclpp_lower(const FennelMscclppPlan *p, int64_t size,
                                    const FennelLimits *limits, GError **error);

typedef struct {
    uint64_t combines;
    gboolean postcondition; /* FALSE for collectives without one (sendrecv, custom, ...) */
} FennelMscclppReport;

/* Executes the plan symbolically and checks that it performs its collective. Errors name
 * the operation in MSCCL++'s terms: "FILE:LINE:COL: gpu 1 tb 0 op 6 (rre): ...". */
gboolean fennel_mscclpp_verify(const FennelMscclppPlan *p, FennelMscclppReport *report,
                               GError **error);

#endif
