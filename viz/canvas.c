/* The canvas display list and its SVG writer. The SVG is written by hand rather than by
 * cairo's SVG surface: cairo turns text into glyph outlines and loses what each shape
 * means, while this writer keeps labels as <text> (searchable, editable in a drawing
 * program) and wraps every task, message and lane in a <g> with a class, data attributes
 * and a tooltip. The geometry is the same display list that cairo replays for PNG and
 * PDF. */
#include "canvas_private.h"

#include "errors.h"
#include "output.h"

#include <string.h>

FennelCanvas *fennel_canvas_new(double width, double height)
{
    FennelCanvas *c = g_new0(FennelCanvas, 1);
    c->width = width;
    c->height = height;
    c->ops = g_array_new(FALSE, FALSE, sizeof(Op));
    c->points = g_array_new(FALSE, FALSE, sizeof(double));
    c->strings = g_string_chunk_new(4096);
    c->attrs = g_ptr_array_new_with_free_func(g_free);
    c->images = g_array_new(FALSE, FALSE, sizeof(Image));
    return c;
}

void fennel_canvas_free(FennelCanvas *c)
{
    if (c == NULL)
        return;
    g_array_free(c->ops, TRUE);
    g_array_free(c->points, TRUE);
    g_string_chunk_free(c->strings);
    g_ptr_array_free(c->attrs, TRUE);
    for (guint i = 0; i < c->images->len; i++)
        g_bytes_unref(g_array_index(c->images, Image, i).rgb);
    g_array_free(c->images, TRUE);
    g_free(c);
}

double fennel_canvas_width(const FennelCanvas *c)
{
    return c->width;
}

double fennel_canvas_height(const FennelCanvas *c)
{
    return c->height;
}

void fennel_canvas_set_height(FennelCanvas *c, double height)
{
    c->height = height;
}

guint fennel_canvas_n_shapes(const FennelCanvas *c)
{
    return c->shapes;
}

static Op *push(FennelCanvas *c, OpKind kind)
{
    Op op = {.kind = kind};
    g_array_append_val(c->ops, op);
    if (kind <= OP_IMAGE)
        c->shapes++;
    return &g_array_index(c->ops, Op, c->ops->len - 1);
}

void fennel_canvas_line(FennelCanvas *c, double x0, double y0, double x1, double y1,
                        const FennelPaint *paint)
{
    Op *op = push(c, OP_LINE);
    op->v[0] = x0;
    op->v[1] = y0;
    op->v[2] = x1;
    op->v[3] = y1;
    op->paint = *paint;
}

void fennel_canvas_rect(FennelCanvas *c, double x, double y, double w, double h,
                        const FennelPaint *paint)
{
    Op *op = push(c, OP_RECT);
    op->v[0] = x;
    op->v[1] = y;
    op->v[2] = w;
    op->v[3] = h;
    op->paint = *paint;
}

void fennel_canvas_polygon(FennelCanvas *c, const double *xy, unsigned n, const FennelPaint *paint)
{
    Op *op = push(c, OP_POLYGON);
    op->first = c->points->len / 2;
    op->count = n;
    op->paint = *paint;
    g_array_append_vals(c->points, xy, 2 * n);
}

void fennel_canvas_circle(FennelCanvas *c, double cx, double cy, double r, const FennelPaint *paint)
{
    Op *op = push(c, OP_CIRCLE);
    op->v[0] = cx;
    op->v[1] = cy;
    op->v[2] = r;
    op->paint = *paint;
}

void fennel_canvas_text(FennelCanvas *c, double x, double y, const char *text, double size,
                        gboolean bold, FennelAnchor anchor, FennelColour colour)
{
    Op *op = push(c, OP_TEXT);
    op->v[0] = x;
    op->v[1] = y;
    op->size = size;
    op->bold = bold;
    op->anchor = anchor;
    op->paint = fennel_paint_fill(colour);
    op->text = g_string_chunk_insert_const(c->strings, text);
}

double fennel_canvas_text_wrapped(FennelCanvas *c, double x, double y, const char *text,
                                  double size, gboolean bold, FennelColour colour, double max_width)
{
    char **words = g_strsplit(text, " ", -1);
    GString *line = g_string_new(NULL);
    for (char **w = words; *w; w++) {
        gsize before = line->len;
        g_string_append_printf(line, "%s%s", line->len ? " " : "", *w);
        if (before > 0 && fennel_canvas_text_width(line->str, size, bold) > max_width) {
            g_string_truncate(line, before);
            y += size;
            fennel_canvas_text(c, x, y, line->str, size, bold, FENNEL_ANCHOR_START, colour);
            y += size * 0.3;
            g_string_assign(line, *w);
        }
    }
    if (line->len) {
        y += size;
        fennel_canvas_text(c, x, y, line->str, size, bold, FENNEL_ANCHOR_START, colour);
        y += size * 0.3;
    }
    g_string_free(line, TRUE);
    g_strfreev(words);
    return y;
}

void fennel_canvas_image(FennelCanvas *c, double x, double y, double w, double h,
                         const uint8_t *rgb, unsigned columns, unsigned rows)
{
    Image image = {g_bytes_new(rgb, (gsize)columns * rows * 3), columns, rows};
    g_array_append_val(c->images, image);
    Op *op = push(c, OP_IMAGE);
    op->v[0] = x;
    op->v[1] = y;
    op->v[2] = w;
    op->v[3] = h;
    op->image = c->images->len - 1;
}

void fennel_canvas_group_begin(FennelCanvas *c, const char *klass, const char *const *attrs,
                               const char *title)
{
    const char **copy = NULL;
    if (attrs != NULL) {
        guint n = 0;
        while (attrs[n] != NULL)
            n++;
        copy = g_new0(const char *, n + 1);
        for (guint i = 0; i < n; i++)
            copy[i] = g_string_chunk_insert_const(c->strings, attrs[i]);
        g_ptr_array_add(c->attrs, copy);
    }
    Op *op = push(c, OP_GROUP);
    op->text = g_string_chunk_insert_const(c->strings, klass);
    op->title = title ? g_string_chunk_insert(c->strings, title) : NULL;
    op->attrs = copy;
}

void fennel_canvas_group_end(FennelCanvas *c)
{
    push(c, OP_GROUP_END);
}

void fennel_canvas_clip_begin(FennelCanvas *c, double x, double y, double w, double h)
{
    Op *op = push(c, OP_CLIP);
    op->v[0] = x;
    op->v[1] = y;
    op->v[2] = w;
    op->v[3] = h;
}

void fennel_canvas_clip_end(FennelCanvas *c)
{
    push(c, OP_CLIP_END);
}

const char *fennel_canvas_format(const char *path)
{
    const char *dot = strrchr(path, '.');
    if (dot == NULL || strchr(dot, '/') != NULL)
        return NULL;
    static const char *const formats[] = {"svg", "png", "pdf"};
    for (size_t i = 0; i < G_N_ELEMENTS(formats); i++) {
        if (g_ascii_strcasecmp(dot + 1, formats[i]) == 0)
            return formats[i];
    }
    return NULL;
}

gboolean fennel_canvas_write(const FennelCanvas *c, const char *path, GError **error)
{
    return fennel_canvas_write_to(c, NULL, path, error);
}

gboolean fennel_canvas_write_to(const FennelCanvas *c, FennelOutputs *outputs, const char *path,
                                GError **error)
{
    const char *format = fennel_canvas_format(path);
    if (format == NULL) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE,
                    "%s: unknown picture format (use .svg, .png or .pdf)", path);
        return FALSE;
    }
    if (strcmp(format, "svg") == 0) {
        GString *svg = g_string_new(NULL);
        fennel_canvas_write_svg(c, svg);
        gboolean ok = fennel_outputs_write(outputs, path, svg->str, svg->len, error);
        g_string_free(svg, TRUE);
        return ok;
    }
    GByteArray *bytes = g_byte_array_new();
    gboolean ok = fennel_canvas_render(c, format, bytes, error) &&
                  fennel_outputs_write(outputs, path, (const char *)bytes->data, bytes->len, error);
    g_byte_array_free(bytes, TRUE);
    return ok;
}

/* ---- SVG ---- */

/* Numbers with at most two decimals and no trailing zeros: short files, and exact
 * enough (1/100 unit) for every coordinate. */
static void num(GString *out, double v)
{
    char buf[G_ASCII_DTOSTR_BUF_SIZE];
    g_ascii_formatd(buf, sizeof buf, "%.2f", v);
    char *end = buf + strlen(buf);
    if (strchr(buf, '.') != NULL) {
        while (end[-1] == '0')
            *--end = '\0';
        if (end[-1] == '.')
            *--end = '\0';
    }
    if (strcmp(buf, "-0") == 0)
        strcpy(buf, "0");
    g_string_append(out, buf);
}

static void attr_num(GString *out, const char *name, double v)
{
    g_string_append_printf(out, " %s=\"", name);
    num(out, v);
    g_string_append_c(out, '"');
}

static void escape(GString *out, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '<':
            g_string_append(out, "&lt;");
            break;
        case '>':
            g_string_append(out, "&gt;");
            break;
        case '&':
            g_string_append(out, "&amp;");
            break;
        case '"':
            g_string_append(out, "&quot;");
            break;
        default:
            g_string_append_c(out, *s);
        }
    }
}

static void paint_attrs(GString *out, const FennelPaint *p)
{
    if (p->fill_alpha > 0) {
        g_string_append_printf(out, " fill=\"#%06x\"", p->fill & 0xffffff);
        if (p->fill_alpha < 1)
            attr_num(out, "fill-opacity", p->fill_alpha);
    } else {
        g_string_append(out, " fill=\"none\"");
    }
    if (p->stroke_width > 0) {
        g_string_append_printf(out, " stroke=\"#%06x\"", p->stroke & 0xffffff);
        attr_num(out, "stroke-width", p->stroke_width);
        if (p->dash == FENNEL_DASH_DASHED)
            g_string_append(out, " stroke-dasharray=\"5 3\"");
        else if (p->dash == FENNEL_DASH_DOTTED)
            g_string_append(out, " stroke-dasharray=\"1 2\"");
    }
}

static void svg_image(const FennelCanvas *c, const Op *op, GString *out)
{
    const Image *image = &g_array_index(c->images, Image, op->image);
    GBytes *png = fennel__canvas_image_png(image);
    gsize len;
    const guchar *data = g_bytes_get_data(png, &len);
    char *b64 = g_base64_encode(data, len);
    g_string_append(out, "<image");
    attr_num(out, "x", op->v[0]);
    attr_num(out, "y", op->v[1]);
    attr_num(out, "width", op->v[2]);
    attr_num(out, "height", op->v[3]);
    g_string_append_printf(out,
                           " preserveAspectRatio=\"none\" style=\"image-rendering:pixelated\" "
                           "xlink:href=\"data:image/png;base64,%s\"/>\n",
                           b64);
    g_free(b64);
    g_bytes_unref(png);
}

void fennel_canvas_set_page(FennelCanvas *c, double width, double height)
{
    c->page_width = width;
    c->page_height = height;
}

void fennel_canvas_write_svg(const FennelCanvas *c, GString *out)
{
    g_string_append(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                         "<svg xmlns=\"http://www.w3.org/2000/svg\" "
                         "xmlns:xlink=\"http://www.w3.org/1999/xlink\" version=\"1.1\"");
    /* A page size scales the viewBox into it; SVG's default preserveAspectRatio (xMidYMid
     * meet) keeps the proportions and centres it, as the PDF and PNG writers do. */
    attr_num(out, "width", c->page_width > 0 ? c->page_width : c->width);
    attr_num(out, "height", c->page_height > 0 ? c->page_height : c->height);
    g_string_append(out, " viewBox=\"0 0 ");
    num(out, c->width);
    g_string_append_c(out, ' ');
    num(out, c->height);
    g_string_append(out, "\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n"
                         "<rect class=\"background\" width=\"100%\" height=\"100%\" "
                         "fill=\"#ffffff\"/>\n");
    guint clips = 0;
    for (guint i = 0; i < c->ops->len; i++) {
        const Op *op = &g_array_index(c->ops, Op, i);
        switch (op->kind) {
        case OP_LINE:
            g_string_append(out, "<line");
            attr_num(out, "x1", op->v[0]);
            attr_num(out, "y1", op->v[1]);
            attr_num(out, "x2", op->v[2]);
            attr_num(out, "y2", op->v[3]);
            paint_attrs(out, &op->paint);
            g_string_append(out, "/>\n");
            break;
        case OP_RECT:
            g_string_append(out, "<rect");
            attr_num(out, "x", op->v[0]);
            attr_num(out, "y", op->v[1]);
            attr_num(out, "width", op->v[2]);
            attr_num(out, "height", op->v[3]);
            paint_attrs(out, &op->paint);
            g_string_append(out, "/>\n");
            break;
        case OP_POLYGON: {
            g_string_append(out, "<polygon points=\"");
            const double *xy = &g_array_index(c->points, double, 2 * op->first);
            for (guint k = 0; k < op->count; k++) {
                if (k)
                    g_string_append_c(out, ' ');
                num(out, xy[2 * k]);
                g_string_append_c(out, ',');
                num(out, xy[2 * k + 1]);
            }
            g_string_append_c(out, '"');
            paint_attrs(out, &op->paint);
            g_string_append(out, "/>\n");
            break;
        }
        case OP_CIRCLE:
            g_string_append(out, "<circle");
            attr_num(out, "cx", op->v[0]);
            attr_num(out, "cy", op->v[1]);
            attr_num(out, "r", op->v[2]);
            paint_attrs(out, &op->paint);
            g_string_append(out, "/>\n");
            break;
        case OP_TEXT: {
            static const char *const anchors[] = {"start", "middle", "end"};
            g_string_append(out, "<text");
            attr_num(out, "x", op->v[0]);
            attr_num(out, "y", op->v[1]);
            attr_num(out, "font-size", op->size);
            if (op->bold)
                g_string_append(out, " font-weight=\"bold\"");
            if (op->anchor != FENNEL_ANCHOR_START)
                g_string_append_printf(out, " text-anchor=\"%s\"", anchors[op->anchor]);
            g_string_append_printf(out, " fill=\"#%06x\">", op->paint.fill & 0xffffff);
            escape(out, op->text);
            g_string_append(out, "</text>\n");
            break;
        }
        case OP_IMAGE:
            svg_image(c, op, out);
            break;
        case OP_GROUP:
            g_string_append(out, "<g class=\"");
            escape(out, op->text);
            g_string_append_c(out, '"');
            for (const char **a = op->attrs; a && a[0] && a[1]; a += 2) {
                g_string_append_printf(out, " %s=\"", a[0]);
                escape(out, a[1]);
                g_string_append_c(out, '"');
            }
            g_string_append(out, ">");
            if (op->title) {
                g_string_append(out, "<title>");
                escape(out, op->title);
                g_string_append(out, "</title>");
            }
            g_string_append_c(out, '\n');
            break;
        case OP_GROUP_END:
        case OP_CLIP_END:
            g_string_append(out, "</g>\n");
            break;
        case OP_CLIP:
            g_string_append_printf(out, "<clipPath id=\"clip%u\"><rect", clips);
            attr_num(out, "x", op->v[0]);
            attr_num(out, "y", op->v[1]);
            attr_num(out, "width", op->v[2]);
            attr_num(out, "height", op->v[3]);
            g_string_append_printf(out, "/></clipPath>\n<g clip-path=\"url(#clip%u)\">\n", clips);
            clips++;
            break;
        }
    }
    g_string_append(out, "</svg>\n");
}
