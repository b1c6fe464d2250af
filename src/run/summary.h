/* The summary instrument: makespan, per-rank finish times, messages and bytes, built
 * from engine events (README, Commands). One summary may observe several runs on one machine. */
#ifndef FENNEL_SUMMARY_H
#define FENNEL_SUMMARY_H

#include "engine.h"
#include "instrument.h"
#include "link_map.h"

typedef struct {
    uint32_t ranks;
    FennelTime makespan;
    FennelTime *rank_finish; /* latest slot-free time per rank */
    uint64_t tasks;          /* tasks completed */
    uint64_t messages;
    uint64_t bytes;
    FennelTime flight_sum; /* sum over messages of arrival - departure */
    /* The topology's links after the runs, when they are shared (contention endpoint or
     * links; docs/TOPOLOGY.md): one CSV row per directed link (only if link_rows is set),
     * the busiest one, and the time messages waited for links. */
    gboolean links;
    gboolean link_rows; /* make links_csv (`run --links`) */
    GString *links_csv;
    char *busiest;           /* "leaf0->spine1 (level1)" */
    FennelTime busiest_busy; /* its transfer time */
    FennelTime link_wait;
    /* The links' map for the topology picture (`run --links-picture`), made only if
     * link_map_wanted; or why it could not be (a topology too large to draw). */
    gboolean link_map_wanted;
    FennelLinkMap *link_map;
    char *link_map_error;
    /* --link-interval (0: off): the links CSV instead has a row per link the last run's
     * messages crossed and per interval of this length (contention endpoint, links or fair). */
    FennelTime link_interval;
    GHashTable *bins, *last_bins; /* link -> GArray of its intervals, this run's and the last */
    FennelTime last_end;          /* the makespan when the last run finished */
    gboolean too_many_intervals;  /* more than FENNEL_SUMMARY_MAX_INTERVALS were needed */
    /* The slow ranks and the faults drawn for the runs (docs/TOPOLOGY.md, Stragglers and
     * faults), each fault named ("leaf0->spine1 (link 37)", "node3's NIC"). */
    uint32_t *stragglers, n_stragglers;
    FennelFault *faults;
    char **fault_names;
    uint32_t n_faults;
} FennelSummary;

void fennel_summary_init(FennelSummary *s, uint32_t ranks);
void fennel_summary_clear(FennelSummary *s);

/* A topology of at most this many link numbers has every link in the links CSV (those no
 * message crossed as rows of zeros); a larger one only the links the last run's messages
 * crossed, so that the CSV of a program of 8 ranks on a torus of 2^23 nodes has a few dozen
 * rows, not 2^25 (docs/TOPOLOGY.md, Seeing it). */
#define FENNEL_SUMMARY_ALL_LINKS 65536u

/* The most intervals --link-interval cuts a run into. */
#define FENNEL_SUMMARY_MAX_INTERVALS (1u << 20)

/* Asks for the links CSV by intervals of `interval` (call after fennel_summary_init and
 * before the runs). */
void fennel_summary_set_link_interval(FennelSummary *s, FennelTime interval);

/* Takes the link statistics of the machine's last run (nothing without shared links); the
 * links CSV if s->link_rows is set. */
void fennel_summary_take_links(FennelSummary *s, const FennelMachine *m,
                               const FennelTopology *topology);

/* Takes the slow ranks and the faults of the machine's runs. */
void fennel_summary_take_faults(FennelSummary *s, const FennelMachine *m);

/* The instrument that fills s. */
FennelInstrument fennel_summary_instrument(FennelSummary *s);

#endif
