/* A small vector canvas for the pictures fennel draws (timelines, the program view).
 *
 * Drawing code appends shapes to a display list; the list is then written as SVG (our
 * own writer, so that text stays text and every element carries its meaning as a class
 * and a tooltip), or replayed on a cairo surface for PNG and PDF. Both outputs come from
 * the same list, so they agree to the coordinate. Coordinates are in pixels (PNG) or
 * points (PDF, SVG user units), y downwards, origin at the top left.
 *
 * Groups carry semantics for the SVG (a class, data attributes, a <title> tooltip); the
 * cairo backend ignores them. A clip rectangle applies to everything up to its end. */
#ifndef FENNEL_CANVAS_H
#define FENNEL_CANVAS_H

#include "output.h"

#include <glib.h>
#include <stdint.h>

/* 0xRRGGBB colours; alpha is given separately where it matters. */
typedef uint32_t FennelColour;

typedef enum {
    FENNEL_DASH_SOLID,
    FENNEL_DASH_DASHED,
    FENNEL_DASH_DOTTED,
} FennelDash;

typedef enum {
    FENNEL_ANCHOR_START,
    FENNEL_ANCHOR_MIDDLE,
    FENNEL_ANCHOR_END,
} FennelAnchor;

/* How a shape is painted. fill_alpha 0 means no fill, stroke_width 0 no stroke. */
typedef struct {
    FennelColour fill;
    double fill_alpha;
    FennelColour stroke;
    double stroke_width;
    FennelDash dash;
} FennelPaint;

typedef struct FennelCanvas FennelCanvas;

/* A canvas of width x height units. */
FennelCanvas *fennel_canvas_new(double width, double height);
void fennel_canvas_free(FennelCanvas *c);
double fennel_canvas_width(const FennelCanvas *c);
double fennel_canvas_height(const FennelCanvas *c);
/* The height may grow while drawing (a legend that wraps); it is fixed when written. */
void fennel_canvas_set_height(FennelCanvas *c, double height);
/* Writes the picture at width x height units (points in a PDF, pixels in a PNG, the SVG's
 * width and height) whatever size it was drawn at: the drawing is scaled by the same factor
 * in both directions to fit and centred, so text keeps its shape. 0 x 0: as drawn. */
void fennel_canvas_set_page(FennelCanvas *c, double width, double height);

/* Shapes. */
void fennel_canvas_line(FennelCanvas *c, double x0, double y0, double x1, double y1,
                        const FennelPaint *paint);
void fennel_canvas_rect(FennelCanvas *c, double x, double y, double w, double h,
                        const FennelPaint *paint);
/* A closed polygon of n points (xy holds 2n numbers). */
void fennel_canvas_polygon(FennelCanvas *c, const double *xy, unsigned n, const FennelPaint *paint);
void fennel_canvas_circle(FennelCanvas *c, double cx, double cy, double r,
                          const FennelPaint *paint);
/* Text with its baseline at y. size in units; bold or regular sans-serif. */
void fennel_canvas_text(FennelCanvas *c, double x, double y, const char *text, double size,
                        gboolean bold, FennelAnchor anchor, FennelColour colour);
/* Text wrapped at spaces to max_width, left-aligned, its first baseline at y + size;
 * returns the y below its last line. */
double fennel_canvas_text_wrapped(FennelCanvas *c, double x, double y, const char *text,
                                  double size, gboolean bold, FennelColour colour,
                                  double max_width);
/* An RGB raster (3 bytes per pixel, rows top to bottom) drawn into the rectangle,
 * scaled without smoothing. The canvas copies the pixels. */
void fennel_canvas_image(FennelCanvas *c, double x, double y, double w, double h,
                         const uint8_t *rgb, unsigned columns, unsigned rows);

/* Semantic groups for the SVG: class names the kind of element ("lane", "message"),
 * attrs is NULL or a NULL-terminated list of name, value pairs ("data-rank", "3"), and
 * title (or NULL) becomes the element's tooltip. Groups nest. */
void fennel_canvas_group_begin(FennelCanvas *c, const char *klass, const char *const *attrs,
                               const char *title);
void fennel_canvas_group_end(FennelCanvas *c);

/* Everything drawn until the matching clip_end is clipped to the rectangle. */
void fennel_canvas_clip_begin(FennelCanvas *c, double x, double y, double w, double h);
void fennel_canvas_clip_end(FennelCanvas *c);

/* The advance width of text at a size, measured with the same font cairo draws with. */
double fennel_canvas_text_width(const char *text, double size, gboolean bold);

/* The number of shapes drawn (lines, rectangles, polygons, circles, text, images). */
guint fennel_canvas_n_shapes(const FennelCanvas *c);

/* Outputs. The format is chosen by the extension of path (.svg, .png, .pdf, any case);
 * the file is written atomically. FENNEL_ERROR_USAGE for an unknown extension,
 * FENNEL_ERROR_IO when writing fails. */
gboolean fennel_canvas_write(const FennelCanvas *c, const char *path, GError **error);
/* The same as one of a set of files written together (output.h). */
gboolean fennel_canvas_write_to(const FennelCanvas *c, FennelOutputs *outputs, const char *path,
                                GError **error);

/* The format of an output path, for checking options before a run: "svg", "png",
 * "pdf", or NULL for an unknown extension. */
const char *fennel_canvas_format(const char *path);

/* The SVG document as text (appended to out). */
void fennel_canvas_write_svg(const FennelCanvas *c, GString *out);
/* PNG or PDF bytes ("png" / "pdf"), appended to out; FALSE with an error if cairo
 * fails (for instance an image too large). */
gboolean fennel_canvas_render(const FennelCanvas *c, const char *format, GByteArray *out,
                              GError **error);

/* Convenience paints. */
static inline FennelPaint fennel_paint_stroke(FennelColour colour, double width)
{
    return (FennelPaint){.stroke = colour, .stroke_width = width};
}

static inline FennelPaint fennel_paint_fill(FennelColour colour)
{
    return (FennelPaint){.fill = colour, .fill_alpha = 1.0};
}

#endif
