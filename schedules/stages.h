/* Stage-by-stage program construction, the DAG shape every collective generator uses
 * (docs/SCHEDULES.md): each rank has a start and a first stage-entry proxy; in a stage, a rank's
 * puts depend on its entry and are created in the order given; a rank that receives
 * in a reducing stage gets one compute (of the bytes it received) that depends on its
 * entry and on every put it receives; a proxy closes the stage and is the next entry. It
 * depends on the compute, or on the entry and (in a non-reducing stage) on the puts
 * received. Tasks are created rank by rank: puts, then compute, then proxy. A rank that
 * neither sends nor receives in a stage gets no tasks in it. */
#ifndef FENNEL_STAGES_H
#define FENNEL_STAGES_H

#include "program.h"

typedef struct FennelStages FennelStages;

/* Streaming (for programs too large to hold whole): a stage builder given a sink hands
 * its program over in segments of about `max_tasks` tasks, cut between stages. Each
 * segment after the first begins with a start task per rank in place of the rank's last
 * stage-closing proxy; run one after another on one machine, the segments give the times
 * of the whole program under a model that times messages at the send (postal, lbp; see
 * docs/PERFORMANCE.md). The sink takes ownership of each segment; returning FALSE (with
 * an error) stops the program. fennel_stages_finish() then returns an empty program. */
typedef gboolean (*FennelSegmentFunc)(FennelProgram *segment, void *data, GError **error);
typedef struct {
    FennelSegmentFunc func;
    void *data;
    uint64_t max_tasks; /* 0 counts as 1 */
} FennelSegmentSink;

/* A program of `ranks` ranks: a start and an entry proxy per rank, built within `limits`
 * (capacity.h; NULL: the defaults), streamed to `sink` (NULL: the whole program is built).
 * Generators call it through fennel_gen_stages(). */
FennelStages *fennel_stages_new_within(uint32_t ranks, const FennelLimits *limits,
                                       const FennelSegmentSink *sink);

/* Queues a put of `bytes` from src to dst in the current stage. */
void fennel_stages_put(FennelStages *s, uint32_t src, uint32_t dst, int64_t bytes);

/* The same for a put that moves only blocks first .. first + count - 1 (modulo the
 * vector's blocks, declared with fennel_builder_set_n_blocks) of the data vector, for
 * `fennel verify` (see FennelProgram.n_blocks). */
void fennel_stages_put_blocks(FennelStages *s, uint32_t src, uint32_t dst, int64_t bytes,
                              uint32_t first, uint32_t count);

/* Until called again with NULL, the src and dst of every put are indices into `map` (which
 * the caller keeps alive), whose entries are the real ranks: a collective's stages written
 * for ranks 0 .. n - 1 then run on any n ranks, e.g. one per node. */
void fennel_stages_map(FennelStages *s, const uint32_t *map);

/* Materialises the current stage; `reducing` gives receivers a compute. A stage with no
 * puts adds nothing. */
void fennel_stages_close(FennelStages *s, gboolean reducing);

/* The builder, for generators that add tasks of their own between stages. */
FennelProgramBuilder *fennel_stages_builder(FennelStages *s);

/* Closes a pending stage (as reducing if `reducing`), compiles and frees s. */
FennelProgram *fennel_stages_finish(FennelStages *s, gboolean reducing, GError **error);

#endif
