/* The critical path on the timeline (README, Commands: highlighted when both are asked for).
 *
 * The detailed view marks what the path runs through: the glyphs of its tasks (up to the
 * time each handed the path on, so a get's response that came back after its target
 * went on is not marked) and the messages that carried it. The density view cannot show
 * single glyphs, so it draws the path as a trail through the rows instead: along a row
 * while a task of it computes, sends or waits, and across rows while one of its messages
 * is in flight. */
#include "timeline_private.h"

#include <stdio.h>

static gboolean is_network(FennelTaskType type)
{
    return type == FENNEL_TASK_PUT || type == FENNEL_TASK_GET || type == FENNEL_TASK_SEND;
}

static void add_trail(FennelTimeline *tl, FennelTime t0, FennelTime t1, uint32_t rank0,
                      uint32_t rank1)
{
    FennelTlTrail piece = {t0, t1, rank0, rank1};
    g_array_append_val(tl->path_trail, piece);
}

void fennel_timeline_set_path(FennelTimeline *tl, const FennelCriticalPath *path)
{
    if (path == NULL || path->run == NULL || path->chain == NULL || path->chain->len == 0)
        return;
    /* The path lies in the last run of its program; several programs on one command line
     * are separate runs of the timeline. */
    const FennelProgram *p = path->run->program;
    guint run = tl->programs->len;
    for (guint i = 0; i < tl->programs->len; i++) {
        if (g_ptr_array_index(tl->programs, i) == p)
            run = i;
    }
    if (run == tl->programs->len)
        return;
    g_free(tl->path_handed);
    g_free(tl->path_from);
    tl->path_run = run;
    tl->path_n_tasks = p->n_tasks;
    tl->path_handed = g_new(FennelTime, p->n_tasks);
    tl->path_from = g_new(FennelTime, p->n_tasks);
    for (uint32_t t = 0; t < p->n_tasks; t++)
        tl->path_handed[t] = tl->path_from[t] = FENNEL_TIME_MIN;
    /* Where each task of the chain is in it, to find the task a message led to. */
    GHashTable *place = g_hash_table_new(g_direct_hash, g_direct_equal);
    for (guint i = 0; i < path->chain->len; i++) {
        const FennelPathLink *link = &g_array_index(path->chain, FennelPathLink, i);
        tl->path_handed[link->task] = link->handed;
        tl->path_from[link->task] = link->from;
        g_hash_table_insert(place, GUINT_TO_POINTER(link->task), GUINT_TO_POINTER(i + 1));
    }

    if (tl->path_trail)
        g_array_set_size(tl->path_trail, 0);
    else
        tl->path_trail = g_array_new(FALSE, FALSE, sizeof(FennelTlTrail));
    for (guint i = 0; i < path->steps->len; i++) {
        const FennelPathStep *s = &g_array_index(path->steps, FennelPathStep, i);
        /* A message's wait for its receiver and its receive overhead are steps on the
         * receiver's rank. */
        uint32_t rank = s->rank < tl->n_ranks ? s->rank : p->rank[s->task], to = rank;
        /* A message in flight crosses to its target. A get's path ends where the task it
         * made ready is: on the target when its request did, else back on the issuer. */
        guint at = GPOINTER_TO_UINT(g_hash_table_lookup(place, GUINT_TO_POINTER(s->task)));
        if (s->kind == FENNEL_PATH_LATENCY && is_network(p->type[s->task])) {
            if (p->type[s->task] != FENNEL_TASK_GET)
                to = fennel_trace_peer(path->run, s->task);
            else if (at > 0 && at < path->chain->len)
                to = p->rank[g_array_index(path->chain, FennelPathLink, at).task];
        }
        add_trail(tl, s->from, s->to, rank, to < tl->n_ranks ? to : rank);
    }
    g_hash_table_destroy(place);
}

/* Whether something `task` draws from t0 to t1 lies on the path: it begins once the path
 * has reached the task and ends by the time the task handed the path on. A task the path only
 * passes through (a receive whose message decided its completion, a rendezvous send completed by
 * its receive's posting) is reached when it hands the path on, so its earlier glyphs (the receive's
 * wait, the send's issue) are not marked. */
static gboolean on_path(const FennelTimeline *tl, uint32_t run, uint32_t task, FennelTime t0,
                        FennelTime t1)
{
    if (tl->path_handed == NULL || run != tl->path_run || task >= tl->path_n_tasks ||
        tl->path_handed[task] == FENNEL_TIME_MIN)
        return FALSE;
    return t0 >= tl->path_from[task] && t1 <= tl->path_handed[task];
}

gboolean fennel_timeline_item_on_path(const FennelTimeline *tl, const FennelTlItem *item)
{
    /* NIC gaps run beside the path and noise lies inside a glyph that is marked whole. */
    if (item->glyph == FENNEL_GLYPH_NIC_SEND || item->glyph == FENNEL_GLYPH_NIC_RECV ||
        item->glyph == FENNEL_GLYPH_NOISE)
        return FALSE;
    /* A glyph that begins in time is marked whole (it may outlast the hand-over). */
    return on_path(tl, item->run, item->task, item->t0, item->t0);
}

gboolean fennel_timeline_message_on_path(const FennelTimeline *tl, const FennelTlMessage *message)
{
    return on_path(tl, message->run, message->task, message->sent, message->arrive);
}

static double row_y(const Frame *f, const int32_t *row_of, uint32_t rank, double pitch)
{
    return f->lanes_top + (row_of[rank] + 0.5) * pitch;
}

static void trail_line(FennelCanvas *c, double x0, double y0, double x1, double y1)
{
    /* A yellow line edged in black stays visible on every colour of the density raster. */
    FennelPaint edge = fennel_paint_stroke(0x000000, 3.2);
    FennelPaint line = fennel_paint_stroke(COLOUR_PATH, 1.6);
    fennel_canvas_line(c, x0, y0, x1, y1, &edge);
    fennel_canvas_line(c, x0, y0, x1, y1, &line);
}

gboolean fennel__timeline_draw_trail(FennelCanvas *c, const Frame *f, const FennelTimeline *tl,
                                     const int32_t *row_of, double pitch)
{
    if (tl->path_trail == NULL || tl->path_trail->len == 0)
        return FALSE;
    char steps[16];
    snprintf(steps, sizeof steps, "%u", tl->path_trail->len);
    const char *attrs[] = {"data-steps", steps, NULL};
    fennel_canvas_group_begin(c, "critical-path", attrs, "critical path");
    /* Clipped at the window's edges, with room above the first row and below the last for
     * the line's width. */
    fennel_canvas_clip_begin(c, f->left, f->lanes_top - 3, f->right - f->left,
                             f->lanes_bottom - f->lanes_top + 6);
    gboolean drawn = FALSE;
    const FennelTlTrail *prev = NULL;
    for (guint i = 0; i < tl->path_trail->len; i++) {
        const FennelTlTrail *t = &g_array_index(tl->path_trail, FennelTlTrail, i);
        gboolean in_window = t->t1 >= f->from && t->t0 <= f->to;
        /* A task on another rank went on where the last piece ended: join them. */
        if (prev && prev->rank1 != t->rank0 && row_of[prev->rank1] >= 0 && row_of[t->rank0] >= 0 &&
            t->t0 >= f->from && t->t0 <= f->to) {
            double x = frame_x(f, t->t0);
            trail_line(c, x, row_y(f, row_of, prev->rank1, pitch), x,
                       row_y(f, row_of, t->rank0, pitch));
        }
        prev = t;
        if (!in_window || row_of[t->rank0] < 0 || row_of[t->rank1] < 0)
            continue;
        trail_line(c, frame_x(f, t->t0), row_y(f, row_of, t->rank0, pitch), frame_x(f, t->t1),
                   row_y(f, row_of, t->rank1, pitch));
        drawn = TRUE;
    }
    fennel_canvas_clip_end(c);
    fennel_canvas_group_end(c);
    return drawn;
}
