/* MSCCL algorithm files (docs/FORMATS.md): the XML that MSCCLang, TACCL and TE-CCL write
 * and the MSCCL runtimes of NCCL and RCCL read. An algorithm is a list of GPUs, each with
 * thread blocks, each an ordered list of steps that send, receive, reduce and copy chunks
 * of three buffers (input, output, scratch). This module reads it into flat arrays,
 * checks its structure, lowers it to a fennel program for a given buffer size, and
 * checks symbolically that it performs its collective. */
#ifndef FENNEL_MSCCL_H
#define FENNEL_MSCCL_H

#include "formats.h"
#include "program.h"

typedef enum {
    FENNEL_MSCCL_SEND,                  /* s */
    FENNEL_MSCCL_RECV,                  /* r */
    FENNEL_MSCCL_RECV_COPY_SEND,        /* rcs */
    FENNEL_MSCCL_RECV_REDUCE_SEND,      /* rrs */
    FENNEL_MSCCL_RECV_REDUCE_COPY,      /* rrc */
    FENNEL_MSCCL_RECV_REDUCE_COPY_SEND, /* rrcs */
    FENNEL_MSCCL_COPY,                  /* cpy */
    FENNEL_MSCCL_REDUCE,                /* re */
    FENNEL_MSCCL_NOP,                   /* nop */
    FENNEL_MSCCL_N_TYPES,
} FennelMscclType;

/* What a step type does, in the order it does it. */
enum {
    FENNEL_MSCCL_DOES_RECV = 1 << 0,
    FENNEL_MSCCL_DOES_REDUCE = 1 << 1, /* the received data (or dst, for re) with src */
    FENNEL_MSCCL_DOES_WRITE = 1 << 2,  /* writes dst */
    FENNEL_MSCCL_DOES_SEND = 1 << 3,
    FENNEL_MSCCL_DOES_COPY = 1 << 4, /* local copy src -> dst */
};
unsigned fennel_msccl_does(FennelMscclType type);
/* "s", "rrc", ...: the file's own names. */
const char *fennel_msccl_type_name(FennelMscclType type);

typedef enum { FENNEL_MSCCL_INPUT, FENNEL_MSCCL_OUTPUT, FENNEL_MSCCL_SCRATCH } FennelMscclBuffer;

typedef enum { FENNEL_MSCCL_SIMPLE, FENNEL_MSCCL_LL, FENNEL_MSCCL_LL128 } FennelMscclProto;

typedef struct {
    uint8_t type; /* FennelMscclType */
    uint8_t srcbuf, dstbuf;
    uint8_t hasdep;
    int32_t srcoff, dstoff, cnt;
    int32_t depid, deps; /* the step `deps` of thread block `depid` on the same GPU, or -1 */
    uint32_t line, col;
} FennelMscclStep;

typedef struct {
    int32_t send, recv, chan; /* peers, or -1 */
    uint32_t first_step, n_steps;
    uint32_t line, col;
} FennelMscclTb;

typedef struct {
    int32_t chunks[3]; /* i_chunks, o_chunks, s_chunks */
    uint32_t first_tb, n_tbs;
    uint32_t line, col;
} FennelMscclGpu;

typedef struct {
    char *file;
    char *name;
    char *coll; /* as written: allreduce, allgather, reducescatter, alltoall, custom, ... */
    FennelMscclProto proto;
    uint32_t nchannels, nchunksperloop, ngpus;
    gboolean inplace, outofplace;
    uint32_t line, col; /* of <algo> */
    FennelMscclGpu *gpus;
    FennelMscclTb *tbs;
    FennelMscclStep *steps;
    uint32_t n_tbs, n_steps;
    /* Connections: messages from gpu A to gpu B on channel c share one, first in first
     * out, whichever thread blocks send and receive them (one NCCL connection per peer
     * and channel). The lowered messages carry the channel as their tag. */
    uint32_t *send_conn, *recv_conn; /* per thread block, or UINT32_MAX */
    uint32_t n_conns;
} FennelMscclAlgo;

/* Whether the text is an MSCCL algorithm: its first element is <algo>. */
gboolean fennel_msccl_detect(const char *data, gsize length);

/* Reads and checks the XML text (every error FILE:LINE:COL). */
FennelMscclAlgo *fennel_msccl_parse(const char *file, const char *data, gsize length,
                                    GError **error);

/* Which parser reads the XML. AUTO, what fennel_msccl_parse() does, tries the fast scanner
 * (xml_fast.h) and reads with GMarkup what it declines; the other two use one alone, for
 * tests and fuzzing: FAST_ONLY fails where the scanner declines, with the message
 * FENNEL_MSCCL_DECLINED after the position. */
#define FENNEL_MSCCL_DECLINED "the fast scanner declines the text"
typedef enum {
    FENNEL_MSCCL_XML_AUTO,
    FENNEL_MSCCL_XML_FAST_ONLY,
    FENNEL_MSCCL_XML_MARKUP_ONLY,
} FennelMscclXmlSource;
FennelMscclAlgo *fennel_msccl_parse_with(const char *file, const char *data, gsize length,
                                         FennelMscclXmlSource source, GError **error);
FennelMscclAlgo *fennel_msccl_read(const char *file, GError **error);
void fennel_msccl_free(FennelMscclAlgo *a);

/* The multiplier from the per-rank count to the chunk grid: ngpus for allgather,
 * reducescatter and alltoall (the grid spans the gathered buffer), 1 otherwise. */
uint32_t fennel_msccl_multiplier(const FennelMscclAlgo *a);

/* The bytes of one chunk for a call of `size` bytes per rank (NCCL's count times the
 * element size): size * multiplier / nchunksperloop, rounded down as the runtime does. */
int64_t fennel_msccl_chunk_bytes(const FennelMscclAlgo *a, int64_t size);

/* The fennel program of the algorithm for `size` bytes per rank (docs/FORMATS.md): one
 * execution slot per thread block, a step's send, receive, reduction and copy as tasks
 * pinned to it, edges for the order of the thread block and for depid/deps. With `slice`
 * > 0, every thread block runs its steps once per slice of `slice` bytes of a chunk, as the
 * runtime pipelines long chunks; 0 moves whole chunks. */
FennelProgram *fennel_msccl_lower(const FennelMscclAlgo *a, int64_t size, int64_t slice,
                                  const FennelLimits *limits, GError **error);

/* The YAML form of an algorithm (docs/FORMATS.md, "The round trip through YAML"). The writer
 * writes `p`, the program fennel_msccl_lower() made of `a` without slices, as the YAML
 * writer does, with the algorithm's meaning beside it: a top-level `msccl` section and
 * each step's fields on its tasks. FALSE, with nothing written, for a program of another
 * shape. */
gboolean fennel_msccl_write_yaml(const FennelMscclAlgo *a, const FennelProgram *p, GString *out);

/* Rebuilds the algorithm of a YAML program from its `msccl` section and the tasks it holds
 * with their step fields, checking that they agree (every error FILE:LINE:COL). A program
 * without the section gives NULL with *found FALSE and no error, and, when `program` is not
 * NULL, the program it read in *program (so that the caller need not read it again). */
FennelMscclAlgo *fennel_msccl_from_yaml(const char *file, const char *data, gsize length,
                                        const FennelLimits *limits, gboolean *found,
                                        FennelProgram **program, GError **error);

typedef struct {
    gboolean checked_in_place, checked_out_of_place;
    uint64_t combines;      /* reductions performed, over the modes checked */
    gboolean postcondition; /* FALSE for coll="custom" and others without one */
} FennelMscclReport;

/* Executes the algorithm symbolically (chunks carry which ranks' contributions to which
 * chunk of the collective they hold) in the modes the file declares (inplace,
 * outofplace) and checks that it performs `coll`. Errors name the step in MSCCL's
 * terms: "FILE:LINE:COL: gpu 2 tb 0 step 3 (rrc): ...". */
gboolean fennel_msccl_verify(const FennelMscclAlgo *a, FennelMscclReport *report, GError **error);

/* `verify` of a YAML program (the YAML format's check, formats.h): one that carries an MSCCL
 * algorithm (fennel_msccl_from_yaml) is checked as the XML is; any other is not checked, and
 * *program holds it when it was read. */
FennelFormatCheck fennel_msccl_check_yaml(const char *file, const char *data, gsize length,
                                          gboolean collective_given, GString *line,
                                          FennelProgram **program, GError **error);

#endif
