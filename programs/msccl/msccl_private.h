/* What the MSCCL files share beyond msccl.h: the checks of an algorithm's structure that the
 * XML reader and the reader of its YAML form (msccl_yaml_read.c) both make. */
#ifndef FENNEL_MSCCL_PRIVATE_H
#define FENNEL_MSCCL_PRIVATE_H

#include "msccl.h"

/* Whether a step reads its src operand (the types the runtime binds srcbuf to). */
gboolean fennel__msccl_reads_src(FennelMscclType type);

/* Dependencies name an existing step of the same GPU, earlier in its own thread block. */
gboolean fennel__msccl_check_dependencies(const FennelMscclAlgo *a, GError **error);

/* Numbers the connections (msccl.h) and checks that every connection carries as many
 * messages from its senders as its receivers take; errors at a thread block's place. */
gboolean fennel__msccl_connect(FennelMscclAlgo *a, GError **error);

#endif
