/* The values of the symbolic checks of algorithm files (msccl_verify.c, mscclpp_verify.c):
 * every chunk of every buffer holds a value, which chunk of the collective it is and which
 * ranks' contributions it combines, and the collectives' promises in those terms. */
#ifndef FENNEL_CHUNKS_PRIVATE_H
#define FENNEL_CHUNKS_PRIVATE_H

#include <glib.h>
#include <stdint.h>

typedef enum {
    FENNEL_CHUNKS_NONE,
    FENNEL_CHUNKS_ALLREDUCE,
    FENNEL_CHUNKS_ALLGATHER,
    FENNEL_CHUNKS_REDUCE_SCATTER,
    FENNEL_CHUNKS_ALLTOALL,
} FennelChunksColl;

/* allreduce, allgather, reducescatter (or reduce_scatter), alltoall; else NONE. */
FennelChunksColl fennel__chunks_coll(const char *name);

typedef struct {
    GArray *values; /* {chunk, offset of its rank set}; value 0 is "nothing" */
    GArray *sets;   /* uint64_t words */
    uint32_t ranks, words;
    uint64_t combines;
    uint64_t room;   /* bytes of values and sets checked against the memory so far */
    GError *refused; /* set when another value would not fit the memory */
} FennelChunks;

/* `reserve` values are room asked for ahead, as far as the memory holds them. */
void fennel__chunks_init(FennelChunks *c, uint32_t ranks, guint reserve);
void fennel__chunks_clear(FennelChunks *c);
/* Every value carries a set of `ranks` bits, so a check of many ranks may need much more
 * memory than its file (65536 gpus: 8 KiB a value): the values are checked against the
 * memory as they grow (fennel_check_memory), and a value that would not fit is 0, with
 * c->refused saying why ("would need about 1.1 GiB for the chunk values of a check over
 * 65536 ranks; ..."). The checks test it where they make a value
 * (fennel__chunks_refused). */
gboolean fennel__chunks_refused(FennelChunks *c, const char *file, GError **error);
/* Whether n values will fit, asked before the inputs are made, so that the message names
 * what they need at least rather than where the memory ran out (else as above). */
gboolean fennel__chunks_expect(FennelChunks *c, uint64_t n, const char *file, GError **error);
/* Rank `rank`'s own contribution to chunk `chunk` (0: refused). */
uint32_t fennel__chunks_input(FennelChunks *c, uint32_t chunk, uint32_t rank);
uint32_t fennel__chunks_chunk(const FennelChunks *c, uint32_t value);
/* x and y combined: their chunk must be the same (else 0 with *different) and their
 * contributions disjoint (else 0 and the ranks counted twice in `twice`, "0, 2-5"); 0 with
 * c->refused when the memory would not hold the new value. */
uint32_t fennel__chunks_combine(FennelChunks *c, uint32_t x, uint32_t y, gboolean *different,
                                GString *twice);

/* What output chunk `off` of rank g must hold: its chunk and, in `set`, its contributors;
 * k chunks per rank, `grid` chunks in a rank's alltoall input. */
void fennel__chunks_expected(const FennelChunks *c, FennelChunksColl coll, uint32_t g, uint32_t off,
                             uint32_t k, uint32_t grid, uint32_t *chunk, uint64_t *set);
/* Rank g's input chunk `off` (the numbering of fennel__chunks_expected). */
uint32_t fennel__chunks_input_chunk(FennelChunksColl coll, uint32_t g, uint32_t off, uint32_t k,
                                    uint32_t grid);
/* Appends to s why `value` is not chunk `chunk` from `want` ("is never written; ...",
 * "holds chunk 5, not chunk 4 (a wrong offset)", "(chunk 0) lacks contributions from ranks
 * 1"); FALSE when it is. */
gboolean fennel__chunks_mismatch(const FennelChunks *c, uint32_t value, uint32_t chunk,
                                 const uint64_t *want, GString *s);

#endif
