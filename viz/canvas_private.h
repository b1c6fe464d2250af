/* The canvas display list, shared by the SVG writer (canvas.c) and the cairo backend
 * (canvas_cairo.c). Not part of the public API.
 *
 * Functions declared here are named fennel__* (two underscores): internal to the module,
 * never called from outside it. */
#ifndef FENNEL_CANVAS_PRIVATE_H
#define FENNEL_CANVAS_PRIVATE_H

#include "canvas.h"

typedef enum {
    OP_LINE,
    OP_RECT,
    OP_POLYGON,
    OP_CIRCLE,
    OP_TEXT,
    OP_IMAGE,
    OP_GROUP,
    OP_GROUP_END,
    OP_CLIP,
    OP_CLIP_END,
} OpKind;

typedef struct {
    OpKind kind;
    FennelAnchor anchor;
    gboolean bold;
    double v[4];        /* line: x0 y0 x1 y1; rect, clip, image: x y w h; circle: cx cy r */
    double size;        /* text */
    FennelPaint paint;  /* shapes; text uses paint.fill */
    guint first, count; /* polygon: offset and count of points in `points` */
    const char *text;   /* text; group: class */
    const char *title;  /* group tooltip, or NULL */
    const char **attrs; /* group: NULL-terminated name/value pairs, or NULL */
    guint image;        /* image: index into `images` */
} Op;

typedef struct {
    GBytes *rgb;
    unsigned columns, rows;
} Image;

struct FennelCanvas {
    double width, height;
    double page_width, page_height; /* the written picture's size; 0: width x height */
    GArray *ops;                    /* Op */
    GArray *points;                 /* double pairs of polygons */
    GStringChunk *strings;
    GPtrArray *attrs; /* const char ** arrays owned by the canvas */
    GArray *images;   /* Image */
    guint shapes;
};

/* An image as a cairo-encoded PNG, for embedding in the SVG. */
GBytes *fennel__canvas_image_png(const Image *image);

#endif
