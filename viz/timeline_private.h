/* Shared pieces of the timeline views (detailed lanes, density): the glyph table, the
 * frame (title, time axis, makespan, legend). Not part of the public API.
 *
 * Functions declared here are named fennel__* (two underscores): internal to the module,
 * never called from outside it. */
#ifndef FENNEL_TIMELINE_PRIVATE_H
#define FENNEL_TIMELINE_PRIVATE_H

#include "axis.h"
#include "timeline.h"

/* How a glyph is drawn on its lane. Vertical extents are fractions of the lane pitch
 * from the lane's centre line, positive downwards; SIDE glyphs are mirrored so that
 * they lean toward the peer's lane. */
typedef enum {
    SHAPE_MARKER,  /* a stem with a triangle on top, at one time */
    SHAPE_BAR,     /* a filled box from t0 to t1 */
    SHAPE_SIDE,    /* a filled box just off the lane, on the side of the peer */
    SHAPE_LINE,    /* a line along the lane */
    SHAPE_MESSAGE, /* a line from one lane to another, with an arrowhead */
} GlyphShape;

/* What the density view adds a glyph's time to. */
typedef enum {
    DENSITY_NONE,
    DENSITY_COMM,    /* a slot is busy with communication (sending, receiving) */
    DENSITY_COMPUTE, /* computing (or sleeping) */
    DENSITY_INBOUND, /* a message to the rank is in flight */
    DENSITY_N,
} DensityClass;

typedef struct {
    const char *name;   /* SVG class */
    const char *legend; /* legend label */
    GlyphShape shape;
    FennelColour fill, edge; /* edge 0 with edge_width 0: none */
    double edge_width;
    double y0, y1; /* extent, in lane pitches from the centre */
    FennelDash dash;
    DensityClass density;
    gboolean holds_slot; /* the interval occupies its slot: it counts toward the rank's
                            finish and the makespan (a NIC gap or noise overlay does not) */
} GlyphStyle;

extern const GlyphStyle fennel_glyph_styles[FENNEL_GLYPH_N];

/* Draws an interval or marker glyph between x0 and x1 on the lane centred at yc;
 * toward is +1 when the peer's lane is below, -1 above (side glyphs). */
void fennel__glyph_item(FennelCanvas *c, FennelGlyph g, double x0, double x1, double yc,
                        double pitch, int toward);
/* Draws a message line from (x0, y0) to (x1, y1) with an arrowhead and an arrival tick;
 * stub: a message to or from a lane not shown (no tick, dashed). */
void fennel__glyph_message(FennelCanvas *c, FennelGlyph g, double x0, double y0, double x1,
                           double y1, double pitch, gboolean stub);
/* Where a message leaves its sender's lane: the outer edge of the sender's side box. */
double fennel__glyph_message_y0(double yc, double pitch, int toward);

/* The critical path (timeline_path.c). A band behind a glyph on the path, drawn before
 * any glyph so that it covers none; a band behind a message's line; the line itself is
 * drawn by fennel__glyph_message with emphasis (twice as thick). */
void fennel__glyph_path_band(FennelCanvas *c, FennelGlyph g, double x0, double x1, double yc,
                             double pitch, int toward);
/* The part of a message line from (x0, y0) to (x1, y1) spent waiting for links. */
void fennel__glyph_link_wait(FennelCanvas *c, double x0, double y0, double x1, double y1);
void fennel__glyph_path_message_band(FennelCanvas *c, double x0, double y0, double x1, double y1);
/* A piece of a message's flow (contention fair): a band from (x0, y0) to (x1, y1) whose width
 * is proportional to the share of its rate alone it had. */
void fennel__glyph_flow(FennelCanvas *c, double x0, double y0, double x1, double y1, double share,
                        double pitch);
void fennel__glyph_message_emphasised(FennelCanvas *c, FennelGlyph g, double x0, double y0,
                                      double x1, double y1, double pitch, gboolean stub);

/* Colours with a meaning outside the glyphs. */
#define COLOUR_TEXT     0x222222
#define COLOUR_MUTED    0x666666
#define COLOUR_LANE     0xb8b8b8
#define COLOUR_GRID     0xe4e4e4
#define COLOUR_MAKESPAN 0xc00000
#define COLOUR_FINISH   0x444444
/* The critical path: the Okabe-Ito yellow, which no glyph uses, as a highlighter. */
#define COLOUR_PATH 0xf0e442

#define FONT_SIZE  12.0
#define FONT_SMALL 10.5

/* The frame: picture width, the plot's horizontal extent, the window and the axis. */
typedef struct {
    double width;
    double left, right; /* plot x extent */
    double y;           /* next free y while laying out */
    double lanes_top, lanes_bottom;
    FennelTime from, to; /* the time window */
    double px_per_ps;
    FennelAxis axis;
} Frame;

static inline double frame_x(const Frame *f, FennelTime t)
{
    return f->left + (double)(t - f->from) * f->px_per_ps;
}

/* Sets the window (from, to: to <= from means [0, the end of the run rounded up to a
 * tick]) and chooses the axis for the plot width. */
void fennel__frame_init(Frame *f, double width, double left, FennelTime from, FennelTime to,
                        FennelTime end);
/* The caption lines at the top (title may be NULL); advances f->y. */
void fennel__frame_header(FennelCanvas *c, Frame *f, const char *title, const char *note);
/* The axis labels and tick marks above the lanes; advances f->y to where lanes start. */
void fennel__frame_axis(FennelCanvas *c, Frame *f);
/* Faint vertical lines at the labelled ticks across the lanes. */
void fennel__frame_grid(FennelCanvas *c, const Frame *f);
/* The makespan line and its label below the lanes. */
void fennel__frame_makespan(FennelCanvas *c, Frame *f, FennelTime makespan);

/* A legend entry: a glyph sample, or (glyph = FENNEL_GLYPH_N) a custom sample drawn
 * by the caller's kind: 'm' makespan, 'f' rank finish, a colour swatch, or the critical
 * path as a band ('p', the detailed view) or a trail ('t', the density view). */
typedef struct {
    FennelGlyph glyph;
    char special; /* 0, 'm', 'f', 's' (swatch of `swatch`), 'p' or 't' */
    FennelColour swatch;
    const char *label;
} LegendEntry;

/* Draws the legend rows from f->y down, wrapping to the picture width; advances f->y. */
void fennel__frame_legend(FennelCanvas *c, Frame *f, const LegendEntry *entries, guint n);

/* The density view (timeline_density.c). */
FennelCanvas *fennel__timeline_draw_density(const FennelTimeline *tl,
                                            const FennelTimelineOptions *o, const uint32_t *ranks,
                                            uint32_t n_shown, const char *note);

/* The critical path's trail over the density rows (row_of: per rank its row, or -1);
 * FALSE when no part of it was drawn. */
gboolean fennel__timeline_draw_trail(FennelCanvas *c, const Frame *f, const FennelTimeline *tl,
                                     const int32_t *row_of, double pitch);

/* The next of the round numbers 1, 2, 5, 10, 20, 50, ... after k (k one of them). */
static inline uint32_t fennel__next_round(uint32_t k)
{
    uint32_t p = 1;
    while (k >= 10 * p)
        p *= 10;
    uint32_t lead = k / p;
    return lead == 1 ? 2 * p : lead == 2 ? 5 * p : 10 * p;
}

/* "603.2 ns", "1.5 µs": a time for people, in the unit that reads best. */
char *fennel__viz_format_time(FennelTime t, char buf[48]);
/* "t0 to t1 UNIT", both ends in the unit of the larger. */
char *fennel__viz_format_range(FennelTime t0, FennelTime t1, char buf[96]);

#endif
