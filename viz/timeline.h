/* The timeline of a run (README, Commands): one lane per rank and slot, time left to right, a
 * glyph for every task and a line for every message.
 *
 * Drawing happens in two steps. fennel_timeline_from_trace() turns the engine's record
 * (src/run/trace.h) into a list of glyphs: intervals on a lane, point markers, and messages
 * between ranks, each with a FennelGlyph kind. fennel_timeline_draw() lays them out on
 * a canvas (viz/canvas.h). Adding a kind of glyph means one enum value, one row in the
 * table of glyphs.c, and its producer in timeline_model.c.
 *
 * Above `max_lanes` lanes the picture aggregates ranks (a density view), so that a run
 * of any size renders in time linear in its tasks and in bounded size. */
#ifndef FENNEL_TIMELINE_H
#define FENNEL_TIMELINE_H

#include "canvas.h"
#include "critical_path.h"
#include "trace.h"

typedef enum {
    FENNEL_GLYPH_START,         /* marker: a start task completes (after its skew) */
    FENNEL_GLYPH_SKEW,          /* interval: a start task's skew, holding its slot */
    FENNEL_GLYPH_COMPUTE,       /* interval: a compute */
    FENNEL_GLYPH_SLEEP,         /* interval: a sleep */
    FENNEL_GLYPH_PUT,           /* interval: the sender's busy time of a put */
    FENNEL_GLYPH_GET,           /* interval: the issuer's busy time of a get */
    FENNEL_GLYPH_SEND,          /* interval: the sender's busy time of a send */
    FENNEL_GLYPH_RECV,          /* interval: a receive, from posted to complete */
    FENNEL_GLYPH_RECV_OVERHEAD, /* interval: a slot receiving a message (LogP o) */
    FENNEL_GLYPH_WAIT,          /* interval: a sender's slot waiting for its message */
    FENNEL_GLYPH_NIC_SEND,      /* interval: the NIC's send gap (LogP g) */
    FENNEL_GLYPH_NIC_RECV,      /* interval: the NIC's receive gap */
    FENNEL_GLYPH_NOISE,         /* interval: noise added to a duration */
    FENNEL_GLYPH_TASK,          /* interval: a task of a kind without a glyph of its own */
    FENNEL_GLYPH_DATA,          /* message: the data of a put or send */
    FENNEL_GLYPH_REQUEST,       /* message: a get's request */
    FENNEL_GLYPH_RESPONSE,      /* message: a get's response */
    FENNEL_GLYPH_LINK_WAIT,     /* the start of a message line: its wait for links */
    FENNEL_GLYPH_FLOW,          /* a band along a message: its bytes flowing under contention
                                   fair, as wide as the share of their rate alone they had */
    FENNEL_GLYPH_N,
} FennelGlyph;

/* Something drawn on a lane: an interval [t0, t1], or a marker at t0 = t1. */
typedef struct {
    FennelTime t0, t1;
    uint32_t rank, slot;
    uint32_t peer; /* side glyphs lean toward this rank; FENNEL_NO_RANK when none */
    uint32_t run, task;
    FennelGlyph glyph;
} FennelTlItem;

/* A message: it leaves the sender's lane at `leave` (the end of the sender's busy time
 * when that comes before the arrival, else when it was sent) and reaches the target
 * at `arrive`. */
typedef struct {
    FennelTime sent, leave, arrive;
    FennelTime noise;     /* network noise in its flight (shown in its tooltip) */
    FennelTime link_wait; /* time it waited for links of the topology (drawn at its start) */
    uint32_t src, src_slot, dst;
    uint32_t run, task;
    int64_t bytes;
    FennelGlyph glyph;
    uint32_t first_flow, n_flows; /* its pieces in FennelTimeline.flows (contention fair) */
} FennelTlMessage;

/* A piece of a message's flow (contention fair): from `from` to `until` its bytes went at
 * `share` of the rate they would have had alone. */
typedef struct {
    FennelTime from, until;
    double share;
} FennelTlFlow;

/* A piece of the critical path's trail for the density view: it runs from rank0's row at
 * t0 to rank1's row at t1 (a message in flight between ranks), or along one row. */
typedef struct {
    FennelTime t0, t1;
    uint32_t rank0, rank1;
} FennelTlTrail;

typedef struct {
    uint32_t n_ranks, processes;
    GArray *items;       /* FennelTlItem */
    GArray *messages;    /* FennelTlMessage */
    GArray *flows;       /* FennelTlFlow: the pieces of the messages' flows, message by message */
    GPtrArray *programs; /* const FennelProgram *, one per run, for names in tooltips */
    FennelTime makespan;
    FennelTime end;          /* the last time anything is drawn (a NIC gap may outlast the run) */
    FennelTime *rank_finish; /* per rank: the latest end of the intervals holding a slot */

    /* The critical path to highlight (fennel_timeline_set_path); path_handed is NULL
     * without one. Per task of run path_run: the times the path reached the task and the
     * task handed it on, or FENNEL_TIME_MIN for a task off the path. */
    uint32_t path_run, path_n_tasks;
    FennelTime *path_handed, *path_from;
    GArray *path_trail; /* FennelTlTrail, earliest first */
} FennelTimeline;

/* Builds the timeline of every run in the trace, on a machine of n_ranks ranks with
 * `processes` slots each. The trace's programs must outlive the timeline. */
FennelTimeline *fennel_timeline_from_trace(const FennelTrace *trace, uint32_t n_ranks,
                                           uint32_t processes);
/* An empty timeline, for building one by hand (tests, other producers). */
FennelTimeline *fennel_timeline_new(uint32_t n_ranks, uint32_t processes);
void fennel_timeline_add_item(FennelTimeline *tl, const FennelTlItem *item);
void fennel_timeline_add_message(FennelTimeline *tl, const FennelTlMessage *message);
void fennel_timeline_free(FennelTimeline *tl);

/* Highlights the critical path (src/run/critical_path.h) of the timeline's trace: the glyphs
 * of the tasks on it, the messages that carry it and, in the density view, its trail. */
void fennel_timeline_set_path(FennelTimeline *tl, const FennelCriticalPath *path);
/* Whether an item or a message is part of the critical path. */
gboolean fennel_timeline_item_on_path(const FennelTimeline *tl, const FennelTlItem *item);
gboolean fennel_timeline_message_on_path(const FennelTimeline *tl, const FennelTlMessage *message);

/* Lanes and density: more lanes than this are aggregated. */
#define FENNEL_TIMELINE_MAX_LANES 256

typedef struct {
    double width;          /* picture width in pixels (points for PDF) */
    FennelTime from, to;   /* the window; to <= from means the whole run */
    const uint32_t *ranks; /* ranks shown, ascending; NULL for all */
    uint32_t n_shown;
    const char *title;  /* a caption line (program, model), or NULL */
    gboolean no_note;   /* leave out the second caption line (window, ranks shown, lanes) */
    uint32_t max_lanes; /* 0: FENNEL_TIMELINE_MAX_LANES */
} FennelTimelineOptions;

void fennel_timeline_options_init(FennelTimelineOptions *o);

/* Draws the timeline; the caller frees the canvas. */
FennelCanvas *fennel_timeline_draw(const FennelTimeline *tl, const FennelTimelineOptions *o);

/* The glyph's name: its legend label and SVG class ("compute", "put"). */
const char *fennel_glyph_name(FennelGlyph glyph);

#endif
