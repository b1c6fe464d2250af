/* The glyph table: how each kind of interval, marker and message is drawn. The
 * conventions start from the original Fennel's figures (thesis §5, a stem and triangle
 * for a start, a box for a compute, a small box off the lane on the target's side for
 * the sender's share of a put, a slanted line to the arrival) and add colour with a
 * meaning (Okabe-Ito palette: distinguishable with colour-vision deficiencies and in
 * grey print, where the shapes alone still tell the kinds apart), arrowheads, and a
 * legend. */
#include "timeline_private.h"

#include <math.h>

/* Okabe-Ito colours. */
#define OI_ORANGE    0xe69f00
#define OI_SKY       0x56b4e9
#define OI_GREEN     0x009e73
#define OI_BLUE      0x0072b2
#define OI_VERMILION 0xd55e00
#define OI_PURPLE    0xcc79a7

/* Shorthands for the table. */
#define BAR(lo, hi)  .shape = SHAPE_BAR, .y0 = (lo), .y1 = (hi)
#define SIDE(lo, hi) .shape = SHAPE_SIDE, .y0 = (lo), .y1 = (hi)
#define EDGE(c, w)   .edge = (c), .edge_width = (w)

const GlyphStyle fennel_glyph_styles[FENNEL_GLYPH_N] = {
    [FENNEL_GLYPH_START] = {.name = "start",
                            .legend = "start",
                            .shape = SHAPE_MARKER,
                            .fill = 0x000000,
                            .y0 = -0.36,
                            .holds_slot = TRUE},
    [FENNEL_GLYPH_SKEW] = {.name = "skew",
                           .legend = "start skew",
                           .shape = SHAPE_LINE,
                           .fill = 0x555555,
                           .dash = FENNEL_DASH_DOTTED,
                           .holds_slot = TRUE},
    [FENNEL_GLYPH_COMPUTE] = {.name = "compute",
                              .legend = "compute",
                              BAR(-0.2, 0.2),
                              .fill = OI_ORANGE,
                              EDGE(0x8a5d00, 0.6),
                              .density = DENSITY_COMPUTE,
                              .holds_slot = TRUE},
    [FENNEL_GLYPH_SLEEP] = {.name = "sleep",
                            .legend = "sleep",
                            BAR(-0.14, 0.14),
                            .fill = 0xf0f0f0,
                            EDGE(0x666666, 0.8),
                            .density = DENSITY_COMPUTE,
                            .holds_slot = TRUE},
    [FENNEL_GLYPH_PUT] = {.name = "put",
                          .legend = "put: sender busy",
                          SIDE(0.04, 0.22),
                          .fill = OI_BLUE,
                          EDGE(0xffffff, 0.6),
                          .density = DENSITY_COMM,
                          .holds_slot = TRUE},
    [FENNEL_GLYPH_GET] = {.name = "get",
                          .legend = "get: issuer busy",
                          SIDE(0.04, 0.22),
                          .fill = OI_PURPLE,
                          EDGE(0xffffff, 0.6),
                          .density = DENSITY_COMM,
                          .holds_slot = TRUE},
    [FENNEL_GLYPH_SEND] = {.name = "send",
                           .legend = "send: sender busy",
                           SIDE(0.04, 0.22),
                           .fill = 0x00456b,
                           EDGE(0xffffff, 0.6),
                           .density = DENSITY_COMM,
                           .holds_slot = TRUE},
    [FENNEL_GLYPH_RECV] = {.name = "recv",
                           .legend = "recv: posted until complete",
                           .shape = SHAPE_LINE,
                           .fill = OI_GREEN,
                           .dash = FENNEL_DASH_DASHED},
    [FENNEL_GLYPH_RECV_OVERHEAD] = {.name = "recv-overhead",
                                    .legend = "receive overhead",
                                    BAR(-0.3, -0.08),
                                    .fill = OI_GREEN,
                                    .density = DENSITY_COMM,
                                    .holds_slot = TRUE},
    [FENNEL_GLYPH_WAIT] = {.name = "wait",
                           .legend = "sender waits for its message",
                           BAR(-0.05, 0.05),
                           .fill = 0xffffff,
                           EDGE(OI_BLUE, 0.8),
                           .density = DENSITY_COMM,
                           .holds_slot = TRUE},
    [FENNEL_GLYPH_NIC_SEND] = {.name = "nic-send",
                               .legend = "NIC send gap",
                               BAR(0.31, 0.38),
                               .fill = OI_SKY},
    [FENNEL_GLYPH_NIC_RECV] = {.name = "nic-recv",
                               .legend = "NIC receive gap",
                               BAR(0.4, 0.47),
                               .fill = 0xa6d5f2},
    [FENNEL_GLYPH_NOISE] = {.name = "noise",
                            .legend = "noise",
                            BAR(0.2, 0.29),
                            .fill = OI_VERMILION},
    [FENNEL_GLYPH_TASK] = {.name = "task",
                           .legend = "other task",
                           BAR(-0.14, 0.14),
                           .fill = 0x999999,
                           EDGE(0x555555, 0.6),
                           .density = DENSITY_COMPUTE,
                           .holds_slot = TRUE},
    [FENNEL_GLYPH_DATA] = {.name = "data",
                           .legend = "message",
                           .shape = SHAPE_MESSAGE,
                           .fill = OI_BLUE,
                           .edge_width = 1.1,
                           .density = DENSITY_INBOUND},
    [FENNEL_GLYPH_REQUEST] = {.name = "request",
                              .legend = "get: request",
                              .shape = SHAPE_MESSAGE,
                              .fill = OI_PURPLE,
                              .edge_width = 1.1,
                              .dash = FENNEL_DASH_DASHED,
                              .density = DENSITY_INBOUND},
    [FENNEL_GLYPH_RESPONSE] = {.name = "response",
                               .legend = "get: response",
                               .shape = SHAPE_MESSAGE,
                               .fill = OI_PURPLE,
                               .edge_width = 1.1,
                               .density = DENSITY_INBOUND},
    [FENNEL_GLYPH_LINK_WAIT] = {.name = "link-wait",
                                .legend = "message waiting for links",
                                .shape = SHAPE_MESSAGE,
                                .fill = OI_VERMILION,
                                .edge_width = 3.0},
    [FENNEL_GLYPH_FLOW] = {.name = "flow",
                           .legend = "bytes flowing (width: share of the rate alone)",
                           .shape = SHAPE_MESSAGE,
                           .fill = 0xf2b58c,
                           .edge_width = 1.1},
};

const char *fennel_glyph_name(FennelGlyph glyph)
{
    return glyph < FENNEL_GLYPH_N ? fennel_glyph_styles[glyph].name : "unknown";
}

/* Half the width of a marker's triangle. */
static double marker_half(double pitch)
{
    return CLAMP(pitch * 0.12, 2.5, 5.0);
}

static void marker(FennelCanvas *c, const GlyphStyle *s, double x, double yc, double pitch)
{
    double top = yc + s->y0 * pitch;
    double half = marker_half(pitch);
    FennelPaint stem = fennel_paint_stroke(s->fill, 1.2);
    fennel_canvas_line(c, x, yc, x, top, &stem);
    double tri[] = {x - half, top, x + half, top, x, top + 1.6 * half};
    FennelPaint fill = fennel_paint_fill(s->fill);
    fennel_canvas_polygon(c, tri, 3, &fill);
}

void fennel__glyph_item(FennelCanvas *c, FennelGlyph g, double x0, double x1, double yc,
                        double pitch, int toward)
{
    const GlyphStyle *s = &fennel_glyph_styles[g];
    if (s->shape == SHAPE_MARKER) {
        marker(c, s, x0, yc, pitch);
        return;
    }
    if (s->shape == SHAPE_LINE) {
        FennelPaint p = fennel_paint_stroke(s->fill, 1.4);
        p.dash = s->dash;
        fennel_canvas_line(c, x0, yc, x1, yc, &p);
        return;
    }
    double a = s->y0, b = s->y1;
    if (s->shape == SHAPE_SIDE && toward < 0) {
        a = -s->y1;
        b = -s->y0;
    }
    /* Very short intervals (a 10 ns compute in a microsecond picture) stay visible. */
    double w = MAX(x1 - x0, 1.5);
    FennelPaint p = fennel_paint_fill(s->fill);
    p.stroke = s->edge;
    p.stroke_width = s->edge_width;
    fennel_canvas_rect(c, x0, yc + a * pitch, w, (b - a) * pitch, &p);
}

double fennel__glyph_message_y0(double yc, double pitch, int toward)
{
    const GlyphStyle *s = &fennel_glyph_styles[FENNEL_GLYPH_PUT];
    return yc + (toward < 0 ? -s->y1 : s->y1) * pitch;
}

/* A message line of `weight` times the glyph's width. */
static void message(FennelCanvas *c, FennelGlyph g, double x0, double y0, double x1, double y1,
                    double pitch, gboolean stub, double weight)
{
    const GlyphStyle *s = &fennel_glyph_styles[g];
    FennelPaint line = fennel_paint_stroke(s->fill, s->edge_width * weight);
    line.dash = stub ? FENNEL_DASH_DASHED : s->dash;
    double dx = x1 - x0, dy = y1 - y0, len = hypot(dx, dy);
    double head = CLAMP(pitch * 0.22, 3.0, 7.0);
    double ux = len > 0 ? dx / len : 1, uy = len > 0 ? dy / len : 0;
    double back = MIN(head, len);
    /* The line runs to the arrival itself: its end point is the arrival time on the
     * target's lane. */
    fennel_canvas_line(c, x0, y0, x1, y1, &line);
    double tri[] = {x1,
                    y1,
                    x1 - ux * back - uy * head * 0.45,
                    y1 - uy * back + ux * head * 0.45,
                    x1 - ux * back + uy * head * 0.45,
                    y1 - uy * back - ux * head * 0.45};
    FennelPaint fill = fennel_paint_fill(s->fill);
    fennel_canvas_polygon(c, tri, 3, &fill);
    if (!stub) {
        FennelPaint tick = fennel_paint_stroke(s->fill, 1.2 * weight);
        double h = CLAMP(pitch * 0.16, 2.0, 6.0);
        fennel_canvas_line(c, x1, y1 - h, x1, y1 + h, &tick);
    }
}

void fennel__glyph_message(FennelCanvas *c, FennelGlyph g, double x0, double y0, double x1,
                           double y1, double pitch, gboolean stub)
{
    if (g == FENNEL_GLYPH_FLOW) {
        /* A band, wide then half as wide (the legend's sample, or a message of this kind
         * drawn by hand). */
        double xm = (x0 + x1) / 2, ym = (y0 + y1) / 2;
        fennel__glyph_flow(c, x0, y0, xm, ym, 1.0, pitch);
        fennel__glyph_flow(c, xm, ym, x1, y1, 0.5, pitch);
        return;
    }
    message(c, g, x0, y0, x1, y1, pitch, stub, 1.0);
}

void fennel__glyph_message_emphasised(FennelCanvas *c, FennelGlyph g, double x0, double y0,
                                      double x1, double y1, double pitch, gboolean stub)
{
    message(c, g, x0, y0, x1, y1, pitch, stub, 2.0);
}

void fennel__glyph_path_band(FennelCanvas *c, FennelGlyph g, double x0, double x1, double yc,
                             double pitch, int toward)
{
    const GlyphStyle *s = &fennel_glyph_styles[g];
    /* The band reaches a few units past the glyph on every side, so that a glyph too
     * short to see at the picture's scale (a 10 ns compute) is still marked. */
    double pad = CLAMP(pitch * 0.1, 2.0, 4.0);
    double left = x0 - pad, right = x0 + MAX(x1 - x0, 1.5) + pad, top, bottom;
    if (s->shape == SHAPE_MARKER) {
        left = x0 - marker_half(pitch) - pad;
        right = x0 + marker_half(pitch) + pad;
        top = yc + s->y0 * pitch - pad;
        bottom = yc + pad;
    } else if (s->shape == SHAPE_LINE) {
        top = yc - pad;
        bottom = yc + pad;
    } else {
        double a = s->y0, b = s->y1;
        if (s->shape == SHAPE_SIDE && toward < 0) {
            a = -s->y1;
            b = -s->y0;
        }
        top = yc + a * pitch - pad;
        bottom = yc + b * pitch + pad;
    }
    FennelPaint p = fennel_paint_fill(COLOUR_PATH);
    fennel_canvas_rect(c, left, top, right - left, bottom - top, &p);
}

void fennel__glyph_link_wait(FennelCanvas *c, double x0, double y0, double x1, double y1)
{
    const GlyphStyle *s = &fennel_glyph_styles[FENNEL_GLYPH_LINK_WAIT];
    FennelPaint p = fennel_paint_stroke(s->fill, s->edge_width);
    fennel_canvas_line(c, x0, y0, x1, y1, &p);
}

/* The widest flow band, at a share of 1. */
static double flow_width(double pitch)
{
    return CLAMP(pitch * 0.36, 3.0, 12.0);
}

void fennel__glyph_flow(FennelCanvas *c, double x0, double y0, double x1, double y1, double share,
                        double pitch)
{
    double dx = x1 - x0, dy = y1 - y0, len = hypot(dx, dy);
    if (len <= 0 || share <= 0)
        return;
    /* Half the width, at right angles to the line. */
    double h = 0.5 * flow_width(pitch) * MIN(share, 1.0), nx = -dy / len * h, ny = dx / len * h;
    double quad[] = {x0 + nx, y0 + ny, x1 + nx, y1 + ny, x1 - nx, y1 - ny, x0 - nx, y0 - ny};
    FennelPaint p = fennel_paint_fill(fennel_glyph_styles[FENNEL_GLYPH_FLOW].fill);
    fennel_canvas_polygon(c, quad, 4, &p);
}

void fennel__glyph_path_message_band(FennelCanvas *c, double x0, double y0, double x1, double y1)
{
    FennelPaint p = fennel_paint_stroke(COLOUR_PATH, 6);
    fennel_canvas_line(c, x0, y0, x1, y1, &p);
}
