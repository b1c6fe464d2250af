/* The cairo backend of the canvas: replays the display list on an image surface (PNG) or
 * a PDF surface, and measures text with the same font, so that layouts computed from
 * text widths fit in every output. */
#include "canvas_private.h"

#include "errors.h"

#include <cairo-pdf.h>
#include <cairo.h>
#include <math.h>
#include <string.h>

/* The font every output uses: fontconfig's sans-serif (DejaVu Sans on Debian), which is
 * also first in the SVG's font-family list. */
#define FONT_FAMILY "DejaVu Sans"

G_LOCK_DEFINE_STATIC(measure);

static void select_font(cairo_t *cr, double size, gboolean bold)
{
    cairo_select_font_face(cr, FONT_FAMILY, CAIRO_FONT_SLANT_NORMAL,
                           bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, size);
}

double fennel_canvas_text_width(const char *text, double size, gboolean bold)
{
    static cairo_t *cr;
    G_LOCK(measure);
    if (cr == NULL) {
        cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_A8, 1, 1);
        cr = cairo_create(s);
        cairo_surface_destroy(s);
    }
    select_font(cr, size, bold);
    cairo_text_extents_t e;
    cairo_text_extents(cr, text, &e);
    G_UNLOCK(measure);
    return e.x_advance;
}

static void set_colour(cairo_t *cr, FennelColour c, double alpha)
{
    cairo_set_source_rgba(cr, ((c >> 16) & 0xff) / 255.0, ((c >> 8) & 0xff) / 255.0,
                          (c & 0xff) / 255.0, alpha);
}

/* Fills and strokes the current path as the paint says. */
static void paint_path(cairo_t *cr, const FennelPaint *p)
{
    if (p->fill_alpha > 0) {
        set_colour(cr, p->fill, p->fill_alpha);
        if (p->stroke_width > 0)
            cairo_fill_preserve(cr);
        else
            cairo_fill(cr);
    }
    if (p->stroke_width > 0) {
        static const double dashed[] = {5, 3}, dotted[] = {1, 2};
        set_colour(cr, p->stroke, 1);
        cairo_set_line_width(cr, p->stroke_width);
        if (p->dash == FENNEL_DASH_DASHED)
            cairo_set_dash(cr, dashed, 2, 0);
        else if (p->dash == FENNEL_DASH_DOTTED)
            cairo_set_dash(cr, dotted, 2, 0);
        else
            cairo_set_dash(cr, NULL, 0, 0);
        cairo_stroke(cr);
    }
    cairo_new_path(cr);
}

static cairo_surface_t *image_surface(const Image *image)
{
    cairo_surface_t *s =
        cairo_image_surface_create(CAIRO_FORMAT_RGB24, (int)image->columns, (int)image->rows);
    cairo_surface_flush(s);
    unsigned char *data = cairo_image_surface_get_data(s);
    int stride = cairo_image_surface_get_stride(s);
    const uint8_t *rgb = g_bytes_get_data(image->rgb, NULL);
    for (unsigned y = 0; y < image->rows; y++) {
        uint32_t *row = (uint32_t *)(data + (size_t)y * stride);
        for (unsigned x = 0; x < image->columns; x++) {
            const uint8_t *px = rgb + 3 * ((size_t)y * image->columns + x);
            row[x] = (uint32_t)px[0] << 16 | (uint32_t)px[1] << 8 | px[2];
        }
    }
    cairo_surface_mark_dirty(s);
    return s;
}

static void draw_image(cairo_t *cr, const Image *image, const double *v)
{
    cairo_surface_t *s = image_surface(image);
    cairo_save(cr);
    cairo_rectangle(cr, v[0], v[1], v[2], v[3]);
    cairo_clip(cr);
    cairo_translate(cr, v[0], v[1]);
    cairo_scale(cr, v[2] / image->columns, v[3] / image->rows);
    cairo_set_source_surface(cr, s, 0, 0);
    cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_NEAREST);
    cairo_paint(cr);
    cairo_restore(cr);
    cairo_surface_destroy(s);
}

static void replay(const FennelCanvas *c, cairo_t *cr)
{
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    cairo_set_line_cap(cr, CAIRO_LINE_CAP_BUTT);
    cairo_set_line_join(cr, CAIRO_LINE_JOIN_MITER);
    for (guint i = 0; i < c->ops->len; i++) {
        const Op *op = &g_array_index(c->ops, Op, i);
        switch (op->kind) {
        case OP_LINE:
            cairo_move_to(cr, op->v[0], op->v[1]);
            cairo_line_to(cr, op->v[2], op->v[3]);
            paint_path(cr, &op->paint);
            break;
        case OP_RECT:
            cairo_rectangle(cr, op->v[0], op->v[1], op->v[2], op->v[3]);
            paint_path(cr, &op->paint);
            break;
        case OP_POLYGON: {
            const double *xy = &g_array_index(c->points, double, 2 * op->first);
            for (guint k = 0; k < op->count; k++)
                cairo_line_to(cr, xy[2 * k], xy[2 * k + 1]);
            cairo_close_path(cr);
            paint_path(cr, &op->paint);
            break;
        }
        case OP_CIRCLE:
            cairo_new_sub_path(cr);
            cairo_arc(cr, op->v[0], op->v[1], op->v[2], 0, 2 * G_PI);
            paint_path(cr, &op->paint);
            break;
        case OP_TEXT: {
            select_font(cr, op->size, op->bold);
            cairo_text_extents_t e;
            cairo_text_extents(cr, op->text, &e);
            double x = op->v[0];
            if (op->anchor == FENNEL_ANCHOR_MIDDLE)
                x -= e.x_advance / 2;
            else if (op->anchor == FENNEL_ANCHOR_END)
                x -= e.x_advance;
            set_colour(cr, op->paint.fill, 1);
            cairo_move_to(cr, x, op->v[1]);
            cairo_show_text(cr, op->text);
            cairo_new_path(cr);
            break;
        }
        case OP_IMAGE:
            draw_image(cr, &g_array_index(c->images, Image, op->image), op->v);
            break;
        case OP_CLIP:
            cairo_save(cr);
            cairo_rectangle(cr, op->v[0], op->v[1], op->v[2], op->v[3]);
            cairo_clip(cr);
            break;
        case OP_CLIP_END:
            cairo_restore(cr);
            break;
        case OP_GROUP:
        case OP_GROUP_END:
            break;
        }
    }
}

static cairo_status_t append_bytes(void *closure, const unsigned char *data, unsigned int length)
{
    g_byte_array_append(closure, data, length);
    return CAIRO_STATUS_SUCCESS;
}

static gboolean cairo_failed(cairo_status_t status, GError **error)
{
    g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_IO, "cannot draw the picture: %s",
                cairo_status_to_string(status));
    return FALSE;
}

static void pdf_date(char buf[32])
{
    gint64 seconds = 0;
    const char *env = g_getenv("SOURCE_DATE_EPOCH");
    if (env != NULL) {
        char *end;
        gint64 v = g_ascii_strtoll(env, &end, 10);
        if (*env && *end == '\0' && v >= 0)
            seconds = v;
    }
    GDateTime *t = g_date_time_new_from_unix_utc(seconds);
    char *text = g_date_time_format(t, "%Y-%m-%dT%H:%M:%SZ");
    g_strlcpy(buf, text, 32);
    g_free(text);
    g_date_time_unref(t);
}

gboolean fennel_canvas_render(const FennelCanvas *c, const char *format, GByteArray *out,
                              GError **error)
{
    cairo_surface_t *s;
    gboolean png = strcmp(format, "png") == 0;
    gboolean paged = c->page_width > 0 && c->page_height > 0;
    double width = paged ? c->page_width : c->width, height = paged ? c->page_height : c->height;
    if (png) {
        s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, (int)ceil(width), (int)ceil(height));
    } else {
        s = cairo_pdf_surface_create_for_stream(append_bytes, out, width, height);
        cairo_pdf_surface_set_metadata(s, CAIRO_PDF_METADATA_CREATOR, "fennel " FENNEL_VERSION);
        /* The same run gives the same bytes (engine rule 7, docs/SEMANTICS.md), so the document's
         * creation date is not the clock's: it is SOURCE_DATE_EPOCH (the reproducible-builds
         * convention) or, without it, the epoch. */
        char date[32];
        pdf_date(date);
        cairo_pdf_surface_set_metadata(s, CAIRO_PDF_METADATA_CREATE_DATE, date);
    }
    cairo_status_t status = cairo_surface_status(s);
    if (status != CAIRO_STATUS_SUCCESS) {
        cairo_surface_destroy(s);
        return cairo_failed(status, error);
    }
    cairo_t *cr = cairo_create(s);
    if (paged) {
        double k = MIN(width / c->width, height / c->height);
        cairo_translate(cr, (width - k * c->width) / 2, (height - k * c->height) / 2);
        cairo_scale(cr, k, k);
    }
    replay(c, cr);
    status = cairo_status(cr);
    cairo_destroy(cr);
    if (png) {
        cairo_surface_flush(s);
        if (status == CAIRO_STATUS_SUCCESS)
            status = cairo_surface_write_to_png_stream(s, append_bytes, out);
    } else {
        cairo_surface_finish(s);
    }
    if (status == CAIRO_STATUS_SUCCESS)
        status = cairo_surface_status(s);
    cairo_surface_destroy(s);
    if (status != CAIRO_STATUS_SUCCESS)
        return cairo_failed(status, error);
    return TRUE;
}

GBytes *fennel__canvas_image_png(const Image *image)
{
    cairo_surface_t *s = image_surface(image);
    GByteArray *bytes = g_byte_array_new();
    cairo_surface_write_to_png_stream(s, append_bytes, bytes);
    cairo_surface_destroy(s);
    return g_byte_array_free_to_bytes(bytes);
}
