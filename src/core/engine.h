/* The machine: ranks with execution slots, and the event engine that walks a program
 * on them under a model (docs/SEMANTICS.md). Slot times persist across runs, so several
 * programs run on one machine one after another, as in the original Fennel. */
#ifndef FENNEL_ENGINE_H
#define FENNEL_ENGINE_H

#include "instrument.h"
#include "model.h"
#include "program.h"

typedef struct FennelMachine FennelMachine;

/* A machine of `ranks` ranks with `processes` slots each. The model must outlive it. */
FennelMachine *fennel_machine_new(uint32_t ranks, uint32_t processes, const FennelModel *model);
void fennel_machine_free(FennelMachine *m);

/* The noise seed (default 0); samples are a pure function of it, the stream and the
 * task, so a run is reproducible. */
void fennel_machine_set_seed(FennelMachine *m, uint64_t seed);

/* Adds an observer; at most 8. The instrument's data must outlive the runs. */
void fennel_machine_add_instrument(FennelMachine *m, const FennelInstrument *instrument);

/* Runs a program to the end. Fails (FENNEL_ERROR_RUN) if the program needs more ranks
 * or slots than the machine has, if a time overflows, or if some tasks never ran (the
 * message names them and what they wait for), and (FENNEL_ERROR_CUT) if a fault cut a
 * message off (the message names it, the link and the time). */
gboolean fennel_machine_run(FennelMachine *m, const FennelProgram *p, GError **error);

/* Bytes of per-task state a run of p allocates (not counting the queue), for benchmarks. */
uint64_t fennel_machine_run_bytes(const FennelProgram *p);

/* The time slot `slot` of `rank` is free. */
FennelTime fennel_machine_slot_time(const FennelMachine *m, uint32_t rank, uint32_t slot);

/* Latest slot-free time and latest completion seen over all runs. */
FennelTime fennel_machine_makespan(const FennelMachine *m);

/* Per directed link of the machine's topology, what the last run did on it. */
typedef struct {
    uint64_t bytes;      /* carried */
    uint64_t messages;   /* crossing it */
    FennelTime busy;     /* transferring (sum of size / bandwidth) */
    FennelTime wait;     /* messages waited for it, in total */
    FennelTime longest;  /* the longest wait of one message */
    double lowest_share; /* contention fair: the lowest rate it gave a message, bytes per ps */
} FennelLinkStats;

/* The machine's network (NULL without a topology); whether its links are shared (a
 * topology and contention other than none), and then what the last run did on link
 * `link`: NULL if no message of any run has crossed it (its figures are all zero). Only
 * the links messages cross have state (docs/TOPOLOGY.md). */
const FennelNetwork *fennel_machine_network(const FennelMachine *m);
gboolean fennel_machine_shares_links(const FennelMachine *m);
const FennelLinkStats *fennel_machine_link_stats(const FennelMachine *m, uint32_t link);
/* The links the last run's messages crossed (under `endpoint`: the node links), in
 * increasing number; *count of them (g_free the array). */
uint32_t *fennel_machine_links_used(const FennelMachine *m, uint32_t *count);
/* Total time messages waited for links in the last run. */
FennelTime fennel_machine_link_wait(const FennelMachine *m);

/* Stragglers and faults (docs/TOPOLOGY.md), as drawn for the machine's seed at its first run:
 * the slow ranks (*count of them, in increasing order), and the faults, each a directed link
 * or a node's NIC (its links to and from the network; `link` is then the first of them) that
 * keeps `bandwidth` millionths of its bandwidth (0: down) from `from` on. `met` says whether
 * a message of some run met it: crossed the link while it was in effect, took another route
 * to avoid it, or was cut off by it (a fault no message met changes nothing). */
typedef struct {
    uint32_t link;
    uint32_t node; /* a NIC's node, else FENNEL_NO_RANK */
    FennelTime from;
    int64_t bandwidth;
    gboolean met;
} FennelFault;

const uint32_t *fennel_machine_stragglers(const FennelMachine *m, uint32_t *count);
const FennelFault *fennel_machine_faults(const FennelMachine *m, uint32_t *count);
/* Leaves fault `index` (of the list the same model and seed give) out of the machine's runs,
 * to see what it cost; call before the first run. */
void fennel_machine_leave_out_fault(FennelMachine *m, uint32_t index);

/* Events popped from the queue over all runs. */
uint64_t fennel_machine_events(const FennelMachine *m);

#endif
