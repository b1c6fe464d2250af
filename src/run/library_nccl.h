/* NCCL's own choice of algorithm, protocol and channel count (src/run/library_nccl.c,
 * docs/LIBRARIES.md): the library "nccl" of library.h. */
#ifndef FENNEL_LIBRARY_NCCL_H
#define FENNEL_LIBRARY_NCCL_H

#include "library.h"

/* Whether the model covers the collective: allreduce, allgather, reduce-scatter (or
 * reduce_scatter), bcast, reduce. */
gboolean fennel_library_nccl_covers(const char *collective);

/* The choice for a collective of `bytes` bytes (the generators' --size: one rank's block of
 * an allgather, the whole vector otherwise) on `ranks` GPUs of `machine`: its `ppn` GPUs to
 * a node (0 or 1: one GPU per node), NVLS and NVLS_TREE among the candidates only if its
 * `nvls` (the node's NVLink switch reduces: NVLink SHARP), the rows of NCCL's tables by its
 * GPU and CPU architectures, the graphs across nodes from its NICs; ranks not a multiple of
 * ppn is a usage error. */
gboolean fennel_library_nccl(const char *collective, uint32_t ranks,
                             const FennelLibraryMachine *machine, int64_t bytes,
                             FennelLibraryChoice *out, GError **error);

#endif
