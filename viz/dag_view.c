/* The program view: nodes in rank lanes and depth columns, edges through proxies drawn
 * directly. */
#include "dag_view.h"

#include "errors.h"

#include <math.h>
#include <stdio.h>

#define COLOUR_TEXT  0x222222
#define COLOUR_MUTED 0x666666
#define COLOUR_EDGE  0x8c8c8c
#define COLOUR_MSG   0x0072b2
#define COLOUR_ANY   0x009e73
#define FONT         12.0
#define FONT_SMALL   10.5

static void node_colours(FennelTaskType type, FennelColour *fill, FennelColour *text)
{
    *text = 0xffffff;
    switch (type) {
    case FENNEL_TASK_START:
        *fill = 0x000000;
        break;
    case FENNEL_TASK_PUT:
        *fill = 0x0072b2;
        break;
    case FENNEL_TASK_GET:
        *fill = 0xcc79a7;
        *text = 0x000000;
        break;
    case FENNEL_TASK_COMPUTE:
        *fill = 0xe69f00;
        *text = 0x000000;
        break;
    default:
        *fill = 0xdddddd;
        *text = 0x000000;
        break;
    }
}

typedef struct {
    FennelProgram *p;
    uint32_t *column; /* per task: its depth column (global, after earlier programs) */
    uint32_t *row;    /* per task: its place among the nodes of its rank and column */
} Placed;

static gboolean visible(const FennelProgram *p, uint32_t t)
{
    return p->type[t] != FENNEL_TASK_PROXY;
}

/* Depth = the most visible tasks on any path from a start to the task, not counting
 * the task itself: starts are in column 0, what follows them in column 1, and so on. */
static uint32_t place_columns(Placed *pl, uint32_t offset)
{
    const FennelProgram *p = pl->p;
    uint32_t *order = g_new(uint32_t, p->n_tasks ? p->n_tasks : 1);
    fennel_program_topological_order(p, order);
    uint32_t *depth = g_new0(uint32_t, p->n_tasks ? p->n_tasks : 1);
    uint32_t columns = 0;
    for (uint32_t i = 0; i < p->n_tasks; i++) {
        uint32_t t = order[i];
        uint32_t next = depth[t] + (visible(p, t) ? 1 : 0);
        if (visible(p, t))
            columns = MAX(columns, depth[t] + 1);
        for (uint64_t e = p->succ_start[t]; e < p->succ_start[t + 1]; e++)
            depth[p->succ[e]] = MAX(depth[p->succ[e]], next);
    }
    pl->column = depth;
    for (uint32_t t = 0; t < p->n_tasks; t++)
        pl->column[t] += offset;
    g_free(order);
    return columns;
}

typedef struct {
    const Placed *placed;
    guint n;
    const int32_t *lane_of; /* per rank: lane index, -1 when hidden */
    const double *lane_top;
    double left, col_w, row_h, radius;
} Geometry;

static double node_x(const Geometry *g, uint32_t column)
{
    return g->left + (column + 0.5) * g->col_w;
}

static double node_y(const Geometry *g, const FennelProgram *p, const Placed *pl, uint32_t t)
{
    return g->lane_top[g->lane_of[p->rank[t]]] + (pl->row[t] + 0.5) * g->row_h;
}

static void edge(FennelCanvas *c, const Geometry *g, double x0, double y0, double x1, double y1,
                 FennelColour colour, FennelDash dash)
{
    double dx = x1 - x0, dy = y1 - y0, len = hypot(dx, dy);
    if (len <= 2 * g->radius)
        return;
    double ux = dx / len, uy = dy / len, r = g->radius + 1;
    double head = CLAMP(g->radius * 0.8, 3.5, 7.0);
    FennelPaint p = fennel_paint_stroke(colour, 1.0);
    p.dash = dash;
    double ex = x1 - ux * r, ey = y1 - uy * r;
    fennel_canvas_line(c, x0 + ux * r, y0 + uy * r, ex, ey, &p);
    double tri[] = {ex,
                    ey,
                    ex - ux * head - uy * head * 0.45,
                    ey - uy * head + ux * head * 0.45,
                    ex - ux * head + uy * head * 0.45,
                    ey - uy * head - ux * head * 0.45};
    FennelPaint fill = fennel_paint_fill(colour);
    fennel_canvas_polygon(c, tri, 3, &fill);
}

/* Edges from each shown visible task to the visible tasks it enables, through proxies. */
static void draw_edges(FennelCanvas *c, const Geometry *g, const Placed *pl)
{
    const FennelProgram *p = pl->p;
    uint32_t *seen = g_new0(uint32_t, p->n_tasks);
    GArray *stack = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    for (uint32_t t = 0; t < p->n_tasks; t++) {
        if (!visible(p, t) || g->lane_of[p->rank[t]] < 0)
            continue;
        double x0 = node_x(g, pl->column[t]), y0 = node_y(g, p, pl, t);
        g_array_set_size(stack, 0);
        g_array_append_val(stack, t);
        while (stack->len > 0) {
            uint32_t u = g_array_index(stack, uint32_t, stack->len - 1);
            g_array_set_size(stack, stack->len - 1);
            for (uint64_t e = p->succ_start[u]; e < p->succ_start[u + 1]; e++) {
                uint32_t s = p->succ[e];
                if (seen[s] == t + 1)
                    continue;
                seen[s] = t + 1;
                if (!visible(p, s)) {
                    g_array_append_val(stack, s);
                    continue;
                }
                if (g->lane_of[p->rank[s]] < 0)
                    continue;
                gboolean cross = p->rank[s] != p->rank[t];
                edge(c, g, x0, y0, node_x(g, pl->column[s]), node_y(g, p, pl, s),
                     fennel_program_any(p, s) ? COLOUR_ANY
                     : cross                  ? COLOUR_MSG
                                              : COLOUR_EDGE,
                     fennel_program_any(p, s) ? FENNEL_DASH_DASHED : FENNEL_DASH_SOLID);
            }
        }
    }
    g_array_free(stack, TRUE);
    g_free(seen);
}

static void draw_nodes(FennelCanvas *c, const Geometry *g, const Placed *pl)
{
    const FennelProgram *p = pl->p;
    char name[24], r[16];
    for (uint32_t t = 0; t < p->n_tasks; t++) {
        if (!visible(p, t) || g->lane_of[p->rank[t]] < 0)
            continue;
        FennelColour fill, text;
        node_colours(p->type[t], &fill, &text);
        snprintf(r, sizeof r, "%u", p->rank[t]);
        const char *task = fennel_program_task_name(p, t, name);
        const char *attrs[] = {"data-task", task,        "data-rank",
                               r,           "data-type", fennel_task_type_name(p->type[t]),
                               NULL};
        char *title = g_strdup_printf("%s: %s on rank %u", task, fennel_task_type_name(p->type[t]),
                                      p->rank[t]);
        fennel_canvas_group_begin(c, "node", attrs, title);
        g_free(title);
        double x = node_x(g, pl->column[t]), y = node_y(g, p, pl, t);
        FennelPaint paint = fennel_paint_fill(fill);
        paint.stroke = 0x000000;
        paint.stroke_width = 0.8;
        fennel_canvas_circle(c, x, y, g->radius, &paint);
        if (g->radius >= 6)
            fennel_canvas_text(c, x, y + g->radius * 0.42, fennel_task_type_letter(p->type[t]),
                               g->radius * 1.15, TRUE, FENNEL_ANCHOR_MIDDLE, text);
        fennel_canvas_group_end(c);
    }
}

static int compare_cell(const void *a, const void *b, void *data)
{
    const Placed *pl = data;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    uint32_t rx = pl->p->rank[x], ry = pl->p->rank[y];
    if (rx != ry)
        return rx < ry ? -1 : 1;
    if (pl->column[x] != pl->column[y])
        return pl->column[x] < pl->column[y] ? -1 : 1;
    return x < y ? -1 : x > y;
}

/* Stacks the nodes that share a rank and a column, in program order; returns per rank
 * the most any of its cells holds (rows[rank] grows). */
static void place_rows(Placed *pl, const int32_t *lane_of, uint32_t *rows)
{
    const FennelProgram *p = pl->p;
    pl->row = g_new0(uint32_t, p->n_tasks ? p->n_tasks : 1);
    GArray *nodes = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    for (uint32_t t = 0; t < p->n_tasks; t++) {
        if (visible(p, t) && lane_of[p->rank[t]] >= 0)
            g_array_append_val(nodes, t);
    }
    g_array_sort_with_data(nodes, compare_cell, pl);
    for (guint i = 0; i < nodes->len; i++) {
        uint32_t t = g_array_index(nodes, uint32_t, i);
        if (i > 0) {
            uint32_t prev = g_array_index(nodes, uint32_t, i - 1);
            if (p->rank[prev] == p->rank[t] && pl->column[prev] == pl->column[t])
                pl->row[t] = pl->row[prev] + 1;
        }
        uint32_t lane = (uint32_t)lane_of[p->rank[t]];
        rows[lane] = MAX(rows[lane], pl->row[t] + 1);
    }
    g_array_free(nodes, TRUE);
}

/* The legend: a sample of each node type present, and the edge kinds; `any` only when a
 * program uses it. */
static double legend(FennelCanvas *c, double width, double y, const gboolean *types, gboolean any,
                     double radius)
{
    double x = 8, row = 22;
    y += row / 2;
    for (int t = 0; t < FENNEL_TASK_N_TYPES + 3; t++) {
        char label[48];
        gboolean is_node = t < FENNEL_TASK_N_TYPES;
        if ((is_node && !types[t]) || (t == FENNEL_TASK_N_TYPES + 2 && !any))
            continue;
        static const char *const edges[] = {"dependency on the same rank",
                                            "dependency on another rank (message)",
                                            "any: K (first K of its predecessors)"};
        if (is_node)
            snprintf(label, sizeof label, "%s", fennel_task_type_name(t));
        else
            snprintf(label, sizeof label, "%s", edges[t - FENNEL_TASK_N_TYPES]);
        double w = 30 + fennel_canvas_text_width(label, FONT_SMALL, FALSE);
        if (x > 8 && x + w > width - 8) {
            x = 8;
            y += row;
        }
        if (is_node) {
            FennelColour fill, text;
            node_colours(t, &fill, &text);
            FennelPaint paint = fennel_paint_fill(fill);
            paint.stroke = 0x000000;
            paint.stroke_width = 0.8;
            double r = MIN(radius, 8);
            fennel_canvas_circle(c, x + 12, y, r, &paint);
            fennel_canvas_text(c, x + 12, y + r * 0.42, fennel_task_type_letter(t), r * 1.15, TRUE,
                               FENNEL_ANCHOR_MIDDLE, text);
        } else {
            static const FennelColour colours[] = {COLOUR_EDGE, COLOUR_MSG, COLOUR_ANY};
            FennelPaint p = fennel_paint_stroke(colours[t - FENNEL_TASK_N_TYPES], 1.2);
            p.dash = t == FENNEL_TASK_N_TYPES + 2 ? FENNEL_DASH_DASHED : FENNEL_DASH_SOLID;
            fennel_canvas_line(c, x, y, x + 24, y, &p);
        }
        fennel_canvas_text(c, x + 30, y + FONT_SMALL * 0.35, label, FONT_SMALL, FALSE,
                           FENNEL_ANCHOR_START, COLOUR_TEXT);
        x += w + 18;
    }
    return y + row / 2 + 4;
}

FennelCanvas *fennel_dag_draw(FennelProgram *const *programs, guint n_programs, uint32_t n_ranks,
                              const FennelDagOptions *o, GError **error)
{
    const uint32_t n_shown = o->ranks ? o->n_shown : n_ranks;
    int32_t *lane_of = g_new(int32_t, n_ranks ? n_ranks : 1);
    for (uint32_t r = 0; r < n_ranks; r++)
        lane_of[r] = o->ranks ? -1 : (int32_t)r;
    for (uint32_t i = 0; o->ranks && i < n_shown; i++)
        lane_of[o->ranks[i]] = (int32_t)i;
    uint64_t nodes = 0, hidden = 0, tasks = 0;
    gboolean types[FENNEL_TASK_N_TYPES] = {0}, any = FALSE;
    for (guint k = 0; k < n_programs; k++) {
        const FennelProgram *p = programs[k];
        tasks += p->n_tasks;
        for (uint32_t t = 0; p->any && t < p->n_tasks && !any; t++)
            any = p->any[t] != 0;
        for (uint32_t t = 0; t < p->n_tasks; t++) {
            if (!visible(p, t))
                hidden++;
            else if (lane_of[p->rank[t]] >= 0) {
                nodes++;
                if (p->type[t] < FENNEL_TASK_N_TYPES)
                    types[p->type[t]] = TRUE;
            }
        }
    }
    if (nodes > FENNEL_DAG_MAX_NODES) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE,
                    "--dag: %" G_GUINT64_FORMAT " tasks to draw, the program view draws at most %d "
                    "(show fewer ranks with --ranks-shown, or write Graphviz with --dot)",
                    nodes, FENNEL_DAG_MAX_NODES);
        g_free(lane_of);
        return NULL;
    }

    Placed *placed = g_new0(Placed, n_programs);
    uint32_t columns = 0;
    uint32_t *rows = g_new0(uint32_t, n_shown ? n_shown : 1);
    for (guint k = 0; k < n_programs; k++) {
        placed[k].p = programs[k];
        uint32_t offset = columns;
        columns += place_columns(&placed[k], offset);
        place_rows(&placed[k], lane_of, rows);
    }
    columns = MAX(columns, 1);

    char widest[32];
    snprintf(widest, sizeof widest, "rank %u", n_ranks ? n_ranks - 1 : 0);
    Geometry g = {.placed = placed, .n = n_programs, .lane_of = lane_of};
    g.left = fennel_canvas_text_width(widest, FONT, FALSE) + 22;
    /* Columns of 16 to 110 units: the picture is at most --width wide unless the
     * program needs more than 16 units per column, and narrower for short programs. */
    g.col_w = CLAMP((o->width - g.left - 16) / columns, 16.0, 110.0);
    double width = MAX(MIN(o->width, 480.0), g.left + g.col_w * columns + 16);
    g.radius = CLAMP(g.col_w * 0.3, 3.0, 11.0);
    g.row_h = 2 * g.radius + 8;

    FennelCanvas *c = fennel_canvas_new(width, 100);
    double y = 8;
    if (o->title)
        y = fennel_canvas_text_wrapped(c, 8, y, o->title, FONT, TRUE, COLOUR_TEXT, width - 16) + 2;
    char *note =
        g_strdup_printf("program view: %u rank%s, %" G_GUINT64_FORMAT " tasks (%" G_GUINT64_FORMAT
                        " proxies not drawn), %u columns by dependency depth%s",
                        n_ranks, n_ranks == 1 ? "" : "s", tasks, hidden, columns,
                        n_shown < n_ranks ? "; edges to ranks not shown are omitted" : "");
    y = fennel_canvas_text_wrapped(c, 8, y, note, FONT_SMALL, FALSE, COLOUR_MUTED, width - 16);
    g_free(note);
    y += 8;

    double *lane_top = g_new(double, n_shown ? n_shown : 1);
    g.lane_top = lane_top;
    FennelPaint band = fennel_paint_fill(0xf4f4f4);
    for (uint32_t i = 0; i < n_shown; i++) {
        uint32_t rank = o->ranks ? o->ranks[i] : i;
        double h = MAX(rows[i], 1) * g.row_h;
        lane_top[i] = y;
        char r[16], label[32];
        snprintf(r, sizeof r, "%u", rank);
        snprintf(label, sizeof label, "rank %u", rank);
        const char *attrs[] = {"data-rank", r, NULL};
        fennel_canvas_group_begin(c, "lane", attrs, NULL);
        if (i % 2 == 0)
            fennel_canvas_rect(c, 4, y, width - 8, h, &band);
        fennel_canvas_text(c, g.left - 10, y + h / 2 + FONT * 0.35, label, FONT, FALSE,
                           FENNEL_ANCHOR_END, COLOUR_TEXT);
        fennel_canvas_group_end(c);
        y += h;
    }
    /* Where one program ends and the next begins. */
    FennelPaint sep = fennel_paint_stroke(COLOUR_MUTED, 1);
    sep.dash = FENNEL_DASH_DASHED;
    for (guint k = 1; k < n_programs; k++) {
        double x = g.left + placed[k].column[0] * g.col_w;
        for (uint32_t t = 0; t < placed[k].p->n_tasks; t++)
            x = MIN(x, g.left + placed[k].column[t] * g.col_w);
        fennel_canvas_line(c, x, lane_top[0], x, y, &sep);
    }
    fennel_canvas_group_begin(c, "edges", NULL, NULL);
    for (guint k = 0; k < n_programs; k++)
        draw_edges(c, &g, &placed[k]);
    fennel_canvas_group_end(c);
    for (guint k = 0; k < n_programs; k++)
        draw_nodes(c, &g, &placed[k]);
    y = legend(c, width, y + 6, types, any, g.radius);
    fennel_canvas_set_height(c, y + 6);

    for (guint k = 0; k < n_programs; k++) {
        g_free(placed[k].column);
        g_free(placed[k].row);
    }
    g_free(placed);
    g_free(rows);
    g_free(lane_top);
    g_free(lane_of);
    return c;
}
