/* The algorithm an MPI library runs by default for a collective, a communicator size and
 * a message size (docs/LIBRARIES.md): data tables read from each library's public source,
 * one per library and version, with the file and version named beside each table in
 * library.c. Facts only: the thresholds and the algorithm each range selects, then the
 * fall-backs the algorithm itself takes for small counts. */
#ifndef FENNEL_LIBRARY_H
#define FENNEL_LIBRARY_H

#include "model.h"

#include <glib.h>
#include <stdint.h>

/* The element the decision counts in: 4 bytes (MPI_FLOAT, as osu_allreduce, osu_bcast
 * and IMB use) with a commutative operation (MPI_SUM). */
#define FENNEL_LIBRARY_ELEMENT 4

typedef struct {
    const char *algorithm;     /* the library's own name for what runs ("ring", "knomial") */
    const char *selected;      /* what the table selected, when a fall-back changed it, or NULL */
    int64_t segment;           /* segment size in bytes; 0: unsegmented */
    int fanout;                /* k-nomial radix or chain fan-out; 0 where it has none */
    const char *generator;     /* fennel's generator that performs it, or NULL: none yet */
    int radix;                 /* the generator's --radix, or 0 */
    const char *variant;       /* the generator's --variant, or NULL */
    int channels;              /* NCCL's channel count: the generator's --partitions, or 0 */
    const char *nccl_protocol; /* NCCL's protocol ("LL", "LL128", "Simple"), or NULL */
    char why[512];             /* the table row: source file, line and the conditions that held */
} FennelLibraryChoice;

/* The libraries, NULL-terminated ("ompi-1.6", "ompi-3", "ompi-4", "ompi-5", "mpich-3",
 * "mpich-4", "nccl"). */
const char *const *fennel_library_names(void);
/* Whether a table of `library` covers `collective`: allreduce, bcast and reduce for the MPI
 * libraries, allgather for all but mpich-3, alltoall, reduce_scatter, gather and scatter for
 * ompi-1.6, ompi-3, ompi-4, ompi-5 and mpich-4; allreduce, allgather,
 * reduce_scatter, bcast and reduce for nccl. */
gboolean fennel_library_covers(const char *library, const char *collective);

/* The choice for `ranks` ranks and `bytes` bytes (the whole buffer of an allreduce or a
 * bcast). An unknown library or a collective without a table is a usage error naming the
 * known ones. A choice with generator NULL is still a fact: fennel has no generator for
 * that algorithm, and fennel_library_generator says so as an error. */
gboolean fennel_library_choose(const char *library, const char *collective, uint32_t ranks,
                               int64_t bytes, FennelLibraryChoice *out, GError **error);

/* The same with the ranks' layout: `ppn` consecutive ranks share a node (0 or 1: one rank
 * per node, or not known). Open MPI 5 runs coll/han when ranks share nodes and span several
 * (docs/LIBRARIES.md); the other libraries' tables do not depend on it. */
gboolean fennel_library_choose_on(const char *library, const char *collective, uint32_t ranks,
                                  uint32_t ppn, int64_t bytes, FennelLibraryChoice *out,
                                  GError **error);

/* The machine a GPU library decides for, beyond the rank count: `ppn` as above, and whether
 * the servers' NVLink switch reduces and multicasts (NVLink SHARP; a rail topology's `nvls`,
 * docs/TOPOLOGY.md), without which NCCL has no NVLS or NVLS_TREE (docs/LIBRARIES.md); the
 * GPUs' and CPUs' architectures (a rail topology's `gpu_arch`, `cpu_arch`), which pick the
 * rows of NCCL's tables; and the NICs of a server and one NIC's bandwidth in GB/s (0: 8
 * NICs, 50 GB/s), from which its search finds the graphs across servers. Zeros are the H100
 * SXM server with Intel CPUs and eight 400 Gbit/s NICs. */
typedef struct {
    uint32_t ppn;
    gboolean nvls;
    FennelGpuArch gpu_arch;
    FennelCpuArch cpu_arch;
    uint32_t nics;
    double nic_gbps;
} FennelLibraryMachine;

/* The machine of a model: its rail topology's keys (none without one) and `ppn`. */
FennelLibraryMachine fennel_library_machine_of(const FennelModel *model, uint32_t ppn);

/* The same on such a machine; fennel_library_choose_on is this with `nvls` FALSE. */
gboolean fennel_library_choose_at(const char *library, const char *collective, uint32_t ranks,
                                  const FennelLibraryMachine *machine, int64_t bytes,
                                  FennelLibraryChoice *out, GError **error);

/* The generator of a choice, or an input error naming the algorithm fennel lacks. */
const char *fennel_library_generator(const char *library, const char *collective,
                                     const FennelLibraryChoice *c, GError **error);

/* The generator's --segment in bytes: the choice's segment when its generator takes one,
 * else 0. */
int64_t fennel_library_generator_segment(const FennelLibraryChoice *c);

/* One line: "ompi-4 allreduce, 64 ranks, 1 MiB: rabenseifner (...)". */
char *fennel_library_describe(const char *library, const char *collective, uint32_t ranks,
                              int64_t bytes, const FennelLibraryChoice *c);
/* The same for the sizes lo..hi that share the choice: "..., 64 ranks, 4 B..128 KiB: ...". */
char *fennel_library_describe_range(const char *library, const char *collective, uint32_t ranks,
                                    int64_t lo, int64_t hi, const FennelLibraryChoice *c);

#endif
