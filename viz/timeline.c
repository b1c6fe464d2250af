/* The detailed timeline: one lane per rank and slot, a glyph per task, a line per
 * message. Above max_lanes lanes it hands over to the density view. */
#include "timeline_private.h"

#include <stdio.h>
#include <string.h>

void fennel_timeline_options_init(FennelTimelineOptions *o)
{
    memset(o, 0, sizeof *o);
    o->width = 1200;
}

typedef struct {
    const FennelTimeline *tl;
    FennelCanvas *c;
    Frame f;
    double pitch;
    int32_t *lane_of; /* per rank: its first lane, or -1 when not shown */
    gboolean used[FENNEL_GLYPH_N];
    gboolean finish_drawn, path_drawn;
} Layout;

static double lane_y(const Layout *l, uint32_t rank, uint32_t slot)
{
    return l->f.lanes_top + (l->lane_of[rank] + slot + 0.5) * l->pitch;
}

static gboolean shown(const Layout *l, uint32_t rank)
{
    return rank < l->tl->n_ranks && l->lane_of[rank] >= 0;
}

static const char *task_name(const Layout *l, uint32_t run, uint32_t task, char buf[24])
{
    if (run < l->tl->programs->len)
        return fennel_program_task_name(g_ptr_array_index(l->tl->programs, run), task, buf);
    snprintf(buf, 24, "t%u", task);
    return buf;
}

/* +1 when the peer's lane is below the rank's, -1 when above. */
static int toward(const Layout *l, uint32_t rank, uint32_t peer)
{
    if (peer == FENNEL_NO_RANK || peer == rank)
        return 1;
    if (shown(l, peer) && shown(l, rank))
        return l->lane_of[peer] > l->lane_of[rank] ? 1 : -1;
    return peer > rank ? 1 : -1;
}

static void draw_lanes(Layout *l, const uint32_t *ranks, uint32_t n_shown)
{
    const uint32_t procs = l->tl->processes;
    /* Label every k-th rank so that labels stay at least 11 units apart. */
    uint32_t k = 1;
    while (k * procs * l->pitch < 11)
        k = fennel__next_round(k);
    FennelPaint lane = fennel_paint_stroke(COLOUR_LANE, 0.8);
    FennelPaint sep = fennel_paint_stroke(COLOUR_MUTED, 0.8);
    for (uint32_t i = 0; i < n_shown; i++) {
        for (uint32_t s = 0; s < procs; s++) {
            char r[16], sl[16], label[32];
            snprintf(r, sizeof r, "%u", ranks[i]);
            snprintf(sl, sizeof sl, "%u", s);
            const char *attrs[] = {"data-rank", r, "data-slot", sl, NULL};
            fennel_canvas_group_begin(l->c, "lane", attrs, NULL);
            double y = lane_y(l, ranks[i], s);
            fennel_canvas_line(l->c, l->f.left, y, l->f.right, y, &lane);
            if (s == 0 && i % k == 0) {
                snprintf(label, sizeof label, "rank %u", ranks[i]);
                fennel_canvas_text(l->c, l->f.left - 10, y + FONT_SIZE * 0.35, label,
                                   procs > 1 ? FONT_SIZE : MIN(FONT_SIZE, l->pitch * 0.95), FALSE,
                                   FENNEL_ANCHOR_END, COLOUR_TEXT);
            } else if (s > 0 && l->pitch >= 11) {
                snprintf(label, sizeof label, "slot %u", s);
                fennel_canvas_text(l->c, l->f.left - 10, y + FONT_SMALL * 0.35, label, FONT_SMALL,
                                   FALSE, FENNEL_ANCHOR_END, COLOUR_MUTED);
            }
            fennel_canvas_group_end(l->c);
        }
        if (procs > 1 && i + 1 < n_shown) {
            double y = l->f.lanes_top + (i + 1) * procs * l->pitch;
            fennel_canvas_line(l->c, 8, y, l->f.right, y, &sep);
        }
    }
}

static void draw_item(Layout *l, const FennelTlItem *it)
{
    const Frame *f = &l->f;
    if (!shown(l, it->rank) || it->slot >= l->tl->processes || it->t1 < f->from || it->t0 > f->to)
        return;
    char name[24], r[16], sl[16], t0[FENNEL_TIME_BUF], t1[FENNEL_TIME_BUF], a[48];
    char title[160];
    const char *task = task_name(l, it->run, it->task, name);
    snprintf(r, sizeof r, "%u", it->rank);
    snprintf(sl, sizeof sl, "%u", it->slot);
    const char *attrs[] = {"data-task",
                           task,
                           "data-rank",
                           r,
                           "data-slot",
                           sl,
                           "data-start-ns",
                           fennel_format_ns(it->t0, t0),
                           "data-end-ns",
                           fennel_format_ns(it->t1, t1),
                           NULL};
    char range[96];
    int n = snprintf(title, sizeof title, "%s: %s on rank %u, %s", task,
                     fennel_glyph_name(it->glyph), it->rank,
                     it->t1 != it->t0 ? fennel__viz_format_range(it->t0, it->t1, range)
                                      : fennel__viz_format_time(it->t0, a));
    if (it->peer != FENNEL_NO_RANK && (size_t)n < sizeof title)
        snprintf(title + n, sizeof title - n, ", peer rank %u", it->peer);
    fennel_canvas_group_begin(l->c, fennel_glyph_name(it->glyph), attrs, title);
    fennel__glyph_item(l->c, it->glyph, frame_x(f, it->t0), frame_x(f, it->t1),
                       lane_y(l, it->rank, it->slot), l->pitch, toward(l, it->rank, it->peer));
    fennel_canvas_group_end(l->c);
    l->used[it->glyph] = TRUE;
}

/* Where a message's line runs: between the lanes when both are shown, else a short
 * dashed stub at the shown end pointing toward the hidden rank. FALSE when it is not
 * drawn at all (both ranks hidden, or outside the window). */
static gboolean message_line(const Layout *l, const FennelTlMessage *m, double xy[4],
                             gboolean *stub)
{
    const Frame *f = &l->f;
    gboolean src = shown(l, m->src), dst = shown(l, m->dst);
    if ((!src && !dst) || m->arrive < f->from || m->leave > f->to)
        return FALSE;
    int dir = toward(l, m->src, m->dst);
    /* A put's or request's line leaves from the edge of the sender's busy box; a
     * response leaves the target's lane itself (its NIC answers). */
    double x0 = frame_x(f, m->leave), x1 = frame_x(f, m->arrive);
    double len = MIN(12.0, MAX(x1 - x0, 4.0));
    *stub = !(src && dst);
    if (src && dst) {
        double yc = lane_y(l, m->src, m->src_slot);
        double y0 =
            m->glyph == FENNEL_GLYPH_RESPONSE ? yc : fennel__glyph_message_y0(yc, l->pitch, dir);
        xy[0] = x0, xy[1] = y0, xy[2] = x1, xy[3] = lane_y(l, m->dst, 0);
    } else if (src) {
        double y0 = lane_y(l, m->src, m->src_slot);
        xy[0] = x0, xy[1] = y0, xy[2] = x0 + len, xy[3] = y0 + dir * 0.45 * l->pitch;
    } else {
        double y1 = lane_y(l, m->dst, 0);
        xy[0] = x1 - len, xy[1] = y1 + dir * 0.45 * l->pitch, xy[2] = x1, xy[3] = y1;
    }
    return TRUE;
}

/* A piece of a message's flow on its line xy, whose ends are the times m->leave and
 * m->arrive; what comes after the arrival runs along the target's lane. */
static void draw_flow_piece(Layout *l, const FennelTlMessage *m, const double xy[4],
                            const FennelTlFlow *piece)
{
    const Frame *f = &l->f;
    FennelTime a = MAX(piece->from, m->leave), b = MIN(piece->until, m->arrive);
    if (b > a && m->arrive > m->leave) {
        double span = (double)(m->arrive - m->leave);
        double u0 = (double)(a - m->leave) / span, u1 = (double)(b - m->leave) / span;
        fennel__glyph_flow(l->c, xy[0] + u0 * (xy[2] - xy[0]), xy[1] + u0 * (xy[3] - xy[1]),
                           xy[0] + u1 * (xy[2] - xy[0]), xy[1] + u1 * (xy[3] - xy[1]), piece->share,
                           l->pitch);
    }
    a = MAX(piece->from, m->arrive);
    if (piece->until > a)
        fennel__glyph_flow(l->c, frame_x(f, a), xy[3], frame_x(f, piece->until), xy[3],
                           piece->share, l->pitch);
}

static void draw_message(Layout *l, const FennelTlMessage *m)
{
    double xy[4];
    gboolean stub;
    if (!message_line(l, m, xy, &stub))
        return;
    char name[24], s[16], d[16], t0[FENNEL_TIME_BUF], t1[FENNEL_TIME_BUF], t2[FENNEL_TIME_BUF],
        t3[FENNEL_TIME_BUF], bytes[24], a[48], b[48], c[48], title[400];
    const char *task = task_name(l, m->run, m->task, name);
    snprintf(s, sizeof s, "%u", m->src);
    snprintf(d, sizeof d, "%u", m->dst);
    snprintf(bytes, sizeof bytes, "%" G_GINT64_FORMAT, m->bytes);
    const char *attrs[] = {"data-task",
                           task,
                           "data-src",
                           s,
                           "data-dst",
                           d,
                           "data-sent-ns",
                           fennel_format_ns(m->sent, t0),
                           "data-arrival-ns",
                           fennel_format_ns(m->arrive, t1),
                           "data-bytes",
                           bytes,
                           m->noise ? "data-noise-ns" : "data-link-wait-ns",
                           m->noise ? fennel_format_ns(m->noise, t2)
                                    : fennel_format_ns(m->link_wait, t2),
                           m->noise && m->link_wait ? "data-link-wait-ns" : NULL,
                           fennel_format_ns(m->link_wait, t3),
                           NULL};
    if (!m->noise && !m->link_wait)
        attrs[12] = NULL;
    /* Under contention fair, the pieces of its flow: "FROM UNTIL SHARE" in ns, by commas. */
    const FennelTlFlow *pieces =
        m->n_flows ? &g_array_index(l->tl->flows, FennelTlFlow, m->first_flow) : NULL;
    GString *flow = NULL;
    const char *all_attrs[20];
    if (m->n_flows > 0) {
        flow = g_string_new(NULL);
        for (uint32_t i = 0; i < m->n_flows; i++) {
            char share[G_ASCII_DTOSTR_BUF_SIZE], ns[FENNEL_TIME_BUF];
            g_string_append_printf(flow, "%s%s ", i ? ", " : "",
                                   fennel_format_ns(pieces[i].from, ns));
            g_string_append_printf(flow, "%s %s", fennel_format_ns(pieces[i].until, ns),
                                   g_ascii_formatd(share, sizeof share, "%.6g", pieces[i].share));
        }
        guint k = 0;
        for (; attrs[k]; k++)
            all_attrs[k] = attrs[k];
        all_attrs[k++] = "data-flow";
        all_attrs[k++] = flow->str;
        all_attrs[k] = NULL;
    }
    int n = snprintf(title, sizeof title, "%s: %s of %s B, rank %u to rank %u, sent %s, arrives %s",
                     task, fennel_glyph_name(m->glyph), bytes, m->src, m->dst,
                     fennel__viz_format_time(m->sent, a), fennel__viz_format_time(m->arrive, b));
    if (m->noise != 0 && n > 0 && (size_t)n < sizeof title)
        n += snprintf(title + n, sizeof title - n, ", network noise %s",
                      fennel__viz_format_time(m->noise, c));
    if (m->n_flows > 0 && n > 0 && (size_t)n < sizeof title) {
        double lo = 1, hi = 0;
        for (uint32_t i = 0; i < m->n_flows; i++) {
            lo = MIN(lo, pieces[i].share);
            hi = MAX(hi, pieces[i].share);
        }
        char range[96];
        n +=
            snprintf(title + n, sizeof title - n, ", bytes flowing %s",
                     fennel__viz_format_range(pieces[0].from, pieces[m->n_flows - 1].until, range));
        if ((size_t)n < sizeof title && hi - lo < 5e-4)
            n += snprintf(title + n, sizeof title - n, " at %.3g%% of their rate alone", 100 * lo);
        else if ((size_t)n < sizeof title)
            n += snprintf(title + n, sizeof title - n, " at %.3g%% to %.3g%% of their rate alone",
                          100 * lo, 100 * hi);
    }
    if (m->link_wait != 0 && n > 0 && (size_t)n < sizeof title)
        snprintf(title + n, sizeof title - n, ", waited %s for links",
                 fennel__viz_format_time(m->link_wait, c));
    char klass[32];
    snprintf(klass, sizeof klass, "message %s", fennel_glyph_name(m->glyph));
    fennel_canvas_group_begin(l->c, klass, flow ? all_attrs : attrs, title);
    if (flow)
        g_string_free(flow, TRUE);
    /* Its flow under the line: along the line while the message is on its way, then (the
     * tail of a LogP/LogGP message, after its head arrived) along the target's lane. */
    if (m->n_flows > 0 && !stub) {
        for (uint32_t i = 0; i < m->n_flows; i++)
            draw_flow_piece(l, m, xy, &pieces[i]);
        l->used[FENNEL_GLYPH_FLOW] = TRUE;
    }
    if (fennel_timeline_message_on_path(l->tl, m))
        fennel__glyph_message_emphasised(l->c, m->glyph, xy[0], xy[1], xy[2], xy[3], l->pitch,
                                         stub);
    else
        fennel__glyph_message(l->c, m->glyph, xy[0], xy[1], xy[2], xy[3], l->pitch, stub);
    /* Its wait for links, at the start of its line (as the critical path counts it); under
     * contention fair its flow shows what the sharing cost. */
    if (m->link_wait > 0 && !stub && m->arrive > m->leave && m->n_flows == 0) {
        double f = MIN(1.0, (double)m->link_wait / (double)(m->arrive - m->leave));
        fennel__glyph_link_wait(l->c, xy[0], xy[1], xy[0] + f * (xy[2] - xy[0]),
                                xy[1] + f * (xy[3] - xy[1]));
        l->used[FENNEL_GLYPH_LINK_WAIT] = TRUE;
    }
    fennel_canvas_group_end(l->c);
    l->used[m->glyph] = TRUE;
}

/* The critical path's bands are drawn before every glyph, so that they cover none; each
 * is a group naming the task and the glyph or message it marks. */
static void path_group_begin(Layout *l, const char *what, uint32_t run, uint32_t task,
                             uint32_t rank, FennelTime t0, FennelTime t1)
{
    char name[24], r[16], a[FENNEL_TIME_BUF], b[FENNEL_TIME_BUF], title[64];
    const char *id = task_name(l, run, task, name);
    snprintf(r, sizeof r, "%u", rank);
    const char *attrs[] = {"data-task",
                           id,
                           "data-glyph",
                           what,
                           "data-rank",
                           r,
                           "data-start-ns",
                           fennel_format_ns(t0, a),
                           "data-end-ns",
                           fennel_format_ns(t1, b),
                           NULL};
    snprintf(title, sizeof title, "%s: on the critical path", id);
    fennel_canvas_group_begin(l->c, "critical-path", attrs, title);
    l->path_drawn = TRUE;
}

static void draw_path(Layout *l)
{
    const Frame *f = &l->f;
    for (guint i = 0; i < l->tl->items->len; i++) {
        const FennelTlItem *it = &g_array_index(l->tl->items, FennelTlItem, i);
        if (!shown(l, it->rank) || it->slot >= l->tl->processes || it->t1 < f->from ||
            it->t0 > f->to || !fennel_timeline_item_on_path(l->tl, it))
            continue;
        path_group_begin(l, fennel_glyph_name(it->glyph), it->run, it->task, it->rank, it->t0,
                         it->t1);
        fennel__glyph_path_band(l->c, it->glyph, frame_x(f, it->t0), frame_x(f, it->t1),
                                lane_y(l, it->rank, it->slot), l->pitch,
                                toward(l, it->rank, it->peer));
        fennel_canvas_group_end(l->c);
    }
    for (guint i = 0; i < l->tl->messages->len; i++) {
        const FennelTlMessage *m = &g_array_index(l->tl->messages, FennelTlMessage, i);
        double xy[4];
        gboolean stub;
        if (!fennel_timeline_message_on_path(l->tl, m) || !message_line(l, m, xy, &stub))
            continue;
        char klass[32];
        snprintf(klass, sizeof klass, "message %s", fennel_glyph_name(m->glyph));
        path_group_begin(l, klass, m->run, m->task, m->src, m->leave, m->arrive);
        fennel__glyph_path_message_band(l->c, xy[0], xy[1], xy[2], xy[3]);
        fennel_canvas_group_end(l->c);
    }
}

static void draw_finish(Layout *l, const uint32_t *ranks, uint32_t n_shown)
{
    FennelPaint p = fennel_paint_stroke(COLOUR_FINISH, 2);
    for (uint32_t i = 0; i < n_shown; i++) {
        FennelTime t = l->tl->rank_finish[ranks[i]];
        if (t < l->f.from || t > l->f.to)
            continue;
        char r[16], ns[FENNEL_TIME_BUF], when[48], title[80];
        snprintf(r, sizeof r, "%u", ranks[i]);
        snprintf(title, sizeof title, "rank %u finishes at %s", ranks[i],
                 fennel__viz_format_time(t, when));
        const char *attrs[] = {"data-rank", r, "data-ns", fennel_format_ns(t, ns), NULL};
        fennel_canvas_group_begin(l->c, "finish", attrs, title);
        l->finish_drawn = TRUE;
        double y = lane_y(l, ranks[i], 0), x = frame_x(&l->f, t), h = MIN(0.3 * l->pitch, 8);
        fennel_canvas_line(l->c, x, y - h, x, y + h, &p);
        fennel_canvas_group_end(l->c);
    }
}

static void legend(Layout *l)
{
    LegendEntry entries[FENNEL_GLYPH_N + 3];
    guint n = 0;
    for (int g = 0; g < FENNEL_GLYPH_N; g++) {
        if (l->used[g])
            entries[n++] = (LegendEntry){.glyph = g, .label = fennel_glyph_styles[g].legend};
    }
    if (l->path_drawn)
        entries[n++] =
            (LegendEntry){.glyph = FENNEL_GLYPH_N, .special = 'p', .label = "critical path"};
    if (l->finish_drawn)
        entries[n++] =
            (LegendEntry){.glyph = FENNEL_GLYPH_N, .special = 'f', .label = "rank finish"};
    if (l->tl->makespan >= l->f.from && l->tl->makespan <= l->f.to)
        entries[n++] = (LegendEntry){.glyph = FENNEL_GLYPH_N, .special = 'm', .label = "makespan"};
    fennel__frame_legend(l->c, &l->f, entries, n);
}

/* "8 ranks, 36 tasks, makespan 1213 ns; ranks shown: 4 of 8; window ..." */
static char *describe(const FennelTimeline *tl, const FennelTimelineOptions *o, uint32_t n_shown)
{
    GString *s = g_string_new(NULL);
    uint64_t tasks = 0;
    for (guint i = 0; i < tl->programs->len; i++)
        tasks += ((const FennelProgram *)g_ptr_array_index(tl->programs, i))->n_tasks;
    char a[48];
    g_string_append_printf(s, "%u rank%s", tl->n_ranks, tl->n_ranks == 1 ? "" : "s");
    if (tl->processes > 1)
        g_string_append_printf(s, " x %u slots", tl->processes);
    if (tasks)
        g_string_append_printf(s, ", %" G_GUINT64_FORMAT " tasks", tasks);
    g_string_append_printf(s, ", makespan %s", fennel__viz_format_time(tl->makespan, a));
    if (n_shown < tl->n_ranks)
        g_string_append_printf(s, "; %u of %u ranks shown", n_shown, tl->n_ranks);
    char range[96];
    if (o->to > o->from)
        g_string_append_printf(s, "; window %s", fennel__viz_format_range(o->from, o->to, range));
    return g_string_free(s, FALSE);
}

FennelCanvas *fennel_timeline_draw(const FennelTimeline *tl, const FennelTimelineOptions *o)
{
    uint32_t n_shown = o->ranks ? o->n_shown : tl->n_ranks;
    uint32_t *all = NULL;
    const uint32_t *ranks = o->ranks;
    if (ranks == NULL) {
        all = g_new(uint32_t, n_shown);
        for (uint32_t i = 0; i < n_shown; i++)
            all[i] = i;
        ranks = all;
    }
    char *note = describe(tl, o, n_shown);
    const uint64_t lanes = (uint64_t)n_shown * tl->processes;
    const uint32_t max_lanes = o->max_lanes ? o->max_lanes : FENNEL_TIMELINE_MAX_LANES;
    if (lanes > max_lanes) {
        FennelCanvas *c = fennel__timeline_draw_density(tl, o, ranks, n_shown, note);
        g_free(all);
        g_free(note);
        return c;
    }

    Layout l = {.tl = tl};
    char widest[32];
    snprintf(widest, sizeof widest, "rank %u", ranks[n_shown - 1]);
    double left = MAX(fennel_canvas_text_width(widest, FONT_SIZE, FALSE),
                      fennel_canvas_text_width("time (ms)", FONT_SMALL, FALSE)) +
                  22;
    fennel__frame_init(&l.f, o->width, left, o->from, o->to, MAX(tl->makespan, tl->end));
    l.pitch = CLAMP(720.0 / (double)lanes, 9.0, 40.0);
    l.c = fennel_canvas_new(o->width, 100);
    l.lane_of = g_new(int32_t, tl->n_ranks);
    memset(l.lane_of, 0xff, sizeof(int32_t) * tl->n_ranks);
    for (uint32_t i = 0; i < n_shown; i++)
        l.lane_of[ranks[i]] = (int32_t)(i * tl->processes);

    fennel__frame_header(l.c, &l.f, o->title, o->no_note ? NULL : note);
    fennel__frame_axis(l.c, &l.f);
    l.f.lanes_top = l.f.y;
    l.f.lanes_bottom = l.f.lanes_top + (double)lanes * l.pitch;
    fennel__frame_grid(l.c, &l.f);
    draw_lanes(&l, ranks, n_shown);
    /* Glyphs are clipped to the window, where it cuts the run; at the run's own start
     * and end the clip leaves room for the markers drawn around an instant. */
    double x0 = l.f.from > 0 ? l.f.left - 1 : l.f.left - 8;
    double x1 = l.f.to < MAX(tl->makespan, tl->end) ? l.f.right + 1 : l.f.right + 8;
    fennel_canvas_clip_begin(l.c, x0, l.f.lanes_top - l.pitch, x1 - x0,
                             l.f.lanes_bottom - l.f.lanes_top + 2 * l.pitch);
    draw_path(&l);
    for (guint i = 0; i < tl->items->len; i++)
        draw_item(&l, &g_array_index(tl->items, FennelTlItem, i));
    for (guint i = 0; i < tl->messages->len; i++)
        draw_message(&l, &g_array_index(tl->messages, FennelTlMessage, i));
    draw_finish(&l, ranks, n_shown);
    fennel_canvas_clip_end(l.c);
    fennel__frame_makespan(l.c, &l.f, tl->makespan);
    legend(&l);
    fennel_canvas_set_height(l.c, l.f.y + 6);
    g_free(l.lane_of);
    g_free(all);
    g_free(note);
    return l.c;
}
