/* The topology picture (topology_view.h). */
#include "topology_view.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define FONT      13.0
#define SMALL     10.0
#define INK       0x333333
#define UNUSED    0xbbbbbb
#define WAITED    0xd55e00
#define IDLE      0xc6dbef
#define BUSY      0x08306b
#define MARGIN    40.0
#define TIER_GAP  140.0
#define CELL      110.0
#define ARC_STEPS 16

FennelColour fennel_topology_view_colour(double u)
{
    u = CLAMP(u, 0.0, 1.0);
    FennelColour c = 0;
    for (int shift = 16; shift >= 0; shift -= 8) {
        const double a = (IDLE >> shift) & 0xff, b = (BUSY >> shift) & 0xff;
        c |= (FennelColour)(a + (b - a) * u + 0.5) << shift;
    }
    return c;
}

typedef struct {
    double *x, *y;
    gboolean *arc; /* per link of the map: drawn as an arc */
    double width, height, top, spacing;
} Layout;

/* ---- tiers ---- */

typedef struct {
    uint32_t v;
    double key;
} Placed;

static int compare_placed(const void *a, const void *b)
{
    const Placed *p = a, *q = b;
    if (p->key != q->key)
        return p->key < q->key ? -1 : 1;
    return (p->v > q->v) - (p->v < q->v);
}

static void layout_tiers(const FennelLinkMap *map, Layout *lay)
{
    const uint32_t V = map->vertices;
    /* undirected neighbours */
    uint32_t *first = g_new0(uint32_t, (gsize)V + 1),
             *adj = g_new(uint32_t, 2 * (gsize)map->n_links + 1);
    for (uint32_t i = 0; i < map->n_links; i++) {
        first[map->links[i].from + 1]++;
        first[map->links[i].to + 1]++;
    }
    for (uint32_t v = 0; v < V; v++)
        first[v + 1] += first[v];
    uint32_t *at = g_memdup2(first, sizeof *at * V);
    for (uint32_t i = 0; i < map->n_links; i++) {
        adj[at[map->links[i].from]++] = map->links[i].to;
        adj[at[map->links[i].to]++] = map->links[i].from;
    }
    g_free(at);
    /* hops from the nodes' NICs */
    uint32_t *tier = g_new(uint32_t, V), *queue = g_new(uint32_t, V), head = 0, tail = 0;
    for (uint32_t v = 0; v < V; v++)
        tier[v] = v < map->ports ? 0 : UINT32_MAX;
    for (uint32_t v = 0; v < map->ports; v++)
        queue[tail++] = v;
    uint32_t tiers = 1;
    while (head < tail) {
        const uint32_t v = queue[head++];
        for (uint32_t k = first[v]; k < first[v + 1]; k++) {
            if (tier[adj[k]] == UINT32_MAX) {
                tier[adj[k]] = tier[v] + 1;
                tiers = MAX(tiers, tier[v] + 2);
                queue[tail++] = adj[k];
            }
        }
    }
    for (uint32_t v = 0; v < V; v++) {
        if (tier[v] == UINT32_MAX)
            tier[v] = tiers++; /* unreachable: a tier of its own above */
    }
    /* each tier's order, bottom up; `place` is a vertex's place in its tier in [0, 1) */
    double *place = g_new0(double, V);
    Placed *row = g_new(Placed, V);
    uint32_t widest = 1;
    uint32_t *count = g_new0(uint32_t, tiers);
    for (uint32_t v = 0; v < V; v++)
        count[tier[v]]++;
    for (uint32_t t = 0; t < tiers; t++)
        widest = MAX(widest, count[t]);
    lay->spacing = CLAMP(1600.0 / widest, 6.0, 40.0);
    lay->width = MAX(900.0, widest * lay->spacing + 2 * MARGIN);
    const double bottom = lay->top + (tiers - 1) * TIER_GAP;
    for (uint32_t t = 0; t < tiers; t++) {
        uint32_t n = 0;
        for (uint32_t v = 0; v < V; v++) {
            if (tier[v] != t)
                continue;
            double key;
            if (t == 0) {
                key = (double)map->node[v] + (double)v / (2.0 * V);
            } else {
                double sum = 0;
                uint32_t below = 0;
                for (uint32_t k = first[v]; k < first[v + 1]; k++) {
                    if (tier[adj[k]] + 1 == t) {
                        sum += place[adj[k]];
                        below++;
                    }
                }
                key = below ? sum / below : 2.0;
            }
            row[n++] = (Placed){.v = v, .key = key};
        }
        qsort(row, n, sizeof *row, compare_placed);
        const double step = (lay->width - 2 * MARGIN) / MAX(n, 1u);
        for (uint32_t i = 0; i < n; i++) {
            place[row[i].v] = (double)i / n;
            lay->x[row[i].v] = MARGIN + step * (i + 0.5);
            lay->y[row[i].v] = bottom - t * TIER_GAP;
        }
    }
    lay->height = bottom + MARGIN;
    for (uint32_t i = 0; i < map->n_links; i++)
        lay->arc[i] = tier[map->links[i].from] == tier[map->links[i].to];
    g_free(place);
    g_free(row);
    g_free(count);
    g_free(tier);
    g_free(queue);
    g_free(first);
    g_free(adj);
}

/* ---- a torus: routers on a grid, node i beside router i (vertex nodes + i) ---- */

static void layout_grid(const FennelLinkMap *map, Layout *lay)
{
    const uint32_t N = map->nodes, X = map->dims[0], Y = map->n_dims > 1 ? map->dims[1] : 1;
    const uint32_t blocks = N / (X * Y);
    lay->spacing = 60.0; /* room for a node's name */
    lay->width = MAX(900.0, 2 * MARGIN + (double)blocks * (X + 1) * CELL);
    for (uint32_t i = 0; i < N; i++) {
        const uint32_t cx = i % X, cy = i / X % Y, b = i / (X * Y);
        const double x = MARGIN + ((double)b * (X + 1) + cx + 0.5) * CELL,
                     y = lay->top + (cy + 0.5) * CELL;
        lay->x[N + i] = x;
        lay->y[N + i] = y;
        lay->x[i] = x - 0.32 * CELL;
        lay->y[i] = y + 0.32 * CELL;
    }
    lay->height = lay->top + Y * CELL + MARGIN;
    for (uint32_t i = 0; i < map->n_links; i++) {
        const uint32_t a = map->links[i].from, b = map->links[i].to;
        if (a < N || b < N) {
            lay->arc[i] = FALSE;
            continue;
        }
        const double dx = fabs(lay->x[a] - lay->x[b]), dy = fabs(lay->y[a] - lay->y[b]);
        lay->arc[i] = !((dx < 1 && dy < CELL * 1.5) || (dy < 1 && dx < CELL * 1.5));
    }
}

/* ---- drawing ---- */

/* The line of a link from (ax, ay) to (bx, by), shifted `shift` to its right, or an arc
 * bulging to its right. */
static void link_line(FennelCanvas *c, double ax, double ay, double bx, double by, gboolean arc,
                      double shift, const FennelPaint *paint)
{
    const double dx = bx - ax, dy = by - ay, len = MAX(hypot(dx, dy), 1e-9);
    const double nx = -dy / len, ny = dx / len; /* to the right of the way, y down */
    if (!arc) {
        fennel_canvas_line(c, ax + nx * shift, ay + ny * shift, bx + nx * shift, by + ny * shift,
                           paint);
        return;
    }
    const double h = 0.22 * len + 12, mx = (ax + bx) / 2 + nx * h, my = (ay + by) / 2 + ny * h;
    double px = ax, py = ay;
    for (int k = 1; k <= ARC_STEPS; k++) {
        const double t = (double)k / ARC_STEPS, s = 1 - t;
        const double qx = s * s * ax + 2 * s * t * mx + t * t * bx,
                     qy = s * s * ay + 2 * s * t * my + t * t * by;
        fennel_canvas_line(c, px, py, qx, qy, paint);
        px = qx;
        py = qy;
    }
}

static void draw_link(FennelCanvas *c, const FennelLinkMap *map, const Layout *lay, uint32_t i,
                      double width)
{
    const FennelLinkMapLink *k = &map->links[i];
    char number[16], messages[24], bytes[24], busy[FENNEL_TIME_BUF], wait[FENNEL_TIME_BUF], use[32],
        colour[8];
    const gboolean used = k->messages > 0;
    const FennelColour line = used ? fennel_topology_view_colour(k->utilisation) : UNUSED;
    g_snprintf(number, sizeof number, "%u", k->link);
    g_snprintf(messages, sizeof messages, "%" G_GUINT64_FORMAT, k->messages);
    g_snprintf(bytes, sizeof bytes, "%" G_GUINT64_FORMAT, k->bytes);
    fennel_format_ns(k->busy, busy);
    fennel_format_ns(k->wait, wait);
    g_snprintf(use, sizeof use, "%.6f", k->utilisation);
    g_snprintf(colour, sizeof colour, "#%06x", line);
    const char *attrs[] = {"data-link",
                           number,
                           "data-from",
                           map->names[k->from],
                           "data-to",
                           map->names[k->to],
                           "data-level",
                           k->level,
                           "data-messages",
                           messages,
                           "data-bytes",
                           bytes,
                           "data-busy-ns",
                           busy,
                           "data-utilisation",
                           use,
                           "data-wait-ns",
                           wait,
                           "data-colour",
                           colour,
                           NULL};
    char *title = g_strdup_printf("link %u: %s->%s (%s): %s messages, %s B, busy %s ns (%.1f%% "
                                  "of the run), waited for %s ns",
                                  k->link, map->names[k->from], map->names[k->to], k->level,
                                  messages, bytes, busy, k->utilisation * 100, wait);
    fennel_canvas_group_begin(c, "link", attrs, title);
    g_free(title);
    const double ax = lay->x[k->from], ay = lay->y[k->from], bx = lay->x[k->to], by = lay->y[k->to];
    const double shift = used ? width * 0.8 : 1.0;
    if (k->wait > 0) {
        const double share = map->makespan > 0 ? (double)k->wait / (double)map->makespan : 1;
        FennelPaint band = fennel_paint_stroke(WAITED, width + 2 + 6 * MIN(share, 1.0));
        link_line(c, ax, ay, bx, by, lay->arc[i], shift, &band);
    }
    FennelPaint paint = fennel_paint_stroke(line, used ? width : 1.0);
    link_line(c, ax, ay, bx, by, lay->arc[i], shift, &paint);
    fennel_canvas_group_end(c);
}

static void draw_vertex(FennelCanvas *c, const FennelLinkMap *map, const Layout *lay, uint32_t v)
{
    char x[32], y[32];
    g_snprintf(x, sizeof x, "%.1f", lay->x[v]);
    g_snprintf(y, sizeof y, "%.1f", lay->y[v]);
    const char *attrs[] = {"data-vertex", map->names[v], "data-x", x, "data-y", y, NULL};
    fennel_canvas_group_begin(c, "vertex", attrs, map->names[v]);
    const double r = MIN(6.0, lay->spacing / 3);
    FennelPaint paint = {.fill = 0xffffff, .fill_alpha = 1, .stroke = INK, .stroke_width = 1};
    const double w = fennel_canvas_text_width(map->names[v], SMALL, FALSE);
    if (v < map->ports) {
        fennel_canvas_circle(c, lay->x[v], lay->y[v], r, &paint);
        if (w + 4 <= lay->spacing)
            fennel_canvas_text(c, lay->x[v], lay->y[v] + r + SMALL + 2, map->names[v], SMALL, FALSE,
                               FENNEL_ANCHOR_MIDDLE, INK);
    } else {
        fennel_canvas_rect(c, lay->x[v] - 2 * r, lay->y[v] - r, 4 * r, 2 * r, &paint);
        if (w + 4 <= lay->spacing)
            fennel_canvas_text(c, lay->x[v], lay->y[v] - r - 4, map->names[v], SMALL, FALSE,
                               FENNEL_ANCHOR_MIDDLE, INK);
    }
    fennel_canvas_group_end(c);
}

/* The legend: the colour ramp with its ends and middle, the grey of an unused link and the
 * vermilion of waits. */
static void draw_legend(FennelCanvas *c, double y)
{
    const double x0 = MARGIN, w = 240, h = 12;
    for (int k = 0; k < 48; k++) {
        FennelPaint p = fennel_paint_fill(fennel_topology_view_colour((k + 0.5) / 48));
        fennel_canvas_rect(c, x0 + w * k / 48, y, w / 48 + 0.5, h, &p);
    }
    const char *ticks[] = {"0%", "50%", "100%"};
    for (int k = 0; k < 3; k++)
        fennel_canvas_text(c, x0 + w * k / 2, y + h + SMALL + 2, ticks[k], SMALL, FALSE,
                           FENNEL_ANCHOR_MIDDLE, INK);
    fennel_canvas_text(c, x0 + w + 10, y + h - 2, "utilisation (busy time / makespan)", SMALL,
                       FALSE, FENNEL_ANCHOR_START, INK);
    const double x1 = x0 + w + 230;
    FennelPaint grey = fennel_paint_stroke(UNUSED, 1), band = fennel_paint_stroke(WAITED, 6);
    fennel_canvas_line(c, x1, y + h / 2, x1 + 30, y + h / 2, &grey);
    fennel_canvas_text(c, x1 + 36, y + h - 2, "no message", SMALL, FALSE, FENNEL_ANCHOR_START, INK);
    const double x2 = x1 + 120;
    fennel_canvas_line(c, x2, y + h / 2, x2 + 30, y + h / 2, &band);
    fennel_canvas_text(c, x2 + 36, y + h - 2, "messages waited for it", SMALL, FALSE,
                       FENNEL_ANCHOR_START, INK);
}

FennelCanvas *fennel_topology_view_draw(const FennelLinkMap *map, const char *title)
{
    Layout lay = {.x = g_new0(double, MAX(map->vertices, 1u)),
                  .y = g_new0(double, MAX(map->vertices, 1u)),
                  .arc = g_new0(gboolean, MAX(map->n_links, 1u)),
                  .top = 110};
    const gboolean grid = map->kind == FENNEL_TOPOLOGY_TORUS && map->n_dims >= 1;
    if (grid)
        layout_grid(map, &lay);
    else
        layout_tiers(map, &lay);
    /* Below the caption and legend: everything drawn, arcs included, moved down to start
     * there. An arc's peak is half its bulge from its chord's middle (link_line). */
    double low = G_MAXDOUBLE, high = -G_MAXDOUBLE;
    for (uint32_t v = 0; v < map->vertices; v++) {
        low = MIN(low, lay.y[v]);
        high = MAX(high, lay.y[v]);
    }
    for (uint32_t i = 0; i < map->n_links; i++) {
        if (!lay.arc[i])
            continue;
        const FennelLinkMapLink *k = &map->links[i];
        const double dx = lay.x[k->to] - lay.x[k->from], dy = lay.y[k->to] - lay.y[k->from];
        const double len = MAX(hypot(dx, dy), 1e-9), h = 0.22 * len + 12;
        const double peak = (lay.y[k->from] + lay.y[k->to]) / 2 + dx / len * h / 2;
        low = MIN(low, peak);
        high = MAX(high, peak);
    }
    FennelCanvas *c = fennel_canvas_new(lay.width, lay.height);
    double y = 12;
    if (title)
        y = fennel_canvas_text_wrapped(c, MARGIN, y, title, FONT, TRUE, INK,
                                       lay.width - 2 * MARGIN);
    char span[FENNEL_TIME_BUF];
    char *line = g_strdup_printf("each link coloured by its utilisation over the run of %s ns; "
                                 "a cable's two ways side by side, each to the right of its way",
                                 fennel_format_ns(map->makespan, span));
    y = fennel_canvas_text_wrapped(c, MARGIN, y + 2, line, SMALL, FALSE, INK,
                                   lay.width - 2 * MARGIN);
    g_free(line);
    draw_legend(c, y + 8);
    const double move = y + 8 + 12 + SMALL + 30 - low;
    for (uint32_t v = 0; v < map->vertices; v++)
        lay.y[v] += move;
    fennel_canvas_set_height(c, high + move + MARGIN);
    const double width = CLAMP(lay.spacing / 8, 1.0, 2.5);
    for (uint32_t i = 0; i < map->n_links; i++)
        draw_link(c, map, &lay, i, width);
    for (uint32_t v = 0; v < map->vertices; v++)
        draw_vertex(c, map, &lay, v);
    g_free(lay.x);
    g_free(lay.y);
    g_free(lay.arc);
    return c;
}
