/* The renderers and exporters of viz/: time axes, the timeline built from a traced run,
 * the drawing (parsed back with GMarkup), the density view, the glyphs of LogP/LogGP
 * runs, PNG and PDF output, the Chrome trace, the program view, the DOT writer and the
 * option checks of `run`. Expected times are derived in the comments from docs/SEMANTICS.md. */
#include "chrome_trace.h"
#include "critical_path.h"
#include "dag_view.h"
#include "engine.h"
#include "errors.h"
#include "program_io.h"
#include "run_outputs.h"
#include "timeline.h"

#include "axis.h"

#include <cairo.h>
#include <math.h>
#include <string.h>

/* ---- helpers ---- */

static FennelProgram *parse(const char *yaml)
{
    GError *error = NULL;
    FennelProgram *p = fennel_program_parse_yaml("test.yaml", yaml, strlen(yaml), &error);
    g_assert_no_error(error);
    return p;
}

static void model_from(FennelModel *m, const char *yaml)
{
    GError *error = NULL;
    fennel_model_init(m);
    g_assert_true(fennel_model_parse(m, "model.yaml", yaml, strlen(yaml), &error));
    g_assert_no_error(error);
}

#define THESIS                                                                                     \
    "fennel: 1\nnetwork: {model: lbp, alpha_p: 500ns, alpha_r: 100ns, beta: 0.4ns/B}\n"            \
    "compute: {model: fixed, duration: 10ns}\n"

/* One round of ping-pong: the puts of programs/examples/pingpong.yaml, with one end
 * proxy per rank. */
#define PINGPONG                                                                                   \
    "fennel: 1\nranks: 2\ntasks:\n"                                                                \
    "- {id: s0, type: start, rank: 0}\n"                                                           \
    "- {id: s1, type: start, rank: 1}\n"                                                           \
    "- {id: p0, type: put, rank: 0, to: 1, size: 8B, after: [s0]}\n"                               \
    "- {id: p1, type: put, rank: 1, to: 0, size: 8B, after: [s1, p0]}\n"                           \
    "- {id: x0, type: proxy, rank: 0, after: [p1]}\n"                                              \
    "- {id: x1, type: proxy, rank: 1, after: [p1]}\n"

typedef struct {
    FennelModel model;
    FennelProgram *program;
    FennelTrace trace;
} Traced;

/* flows: the trace records the pieces of fair flows too. */
static void traced_run_with(Traced *t, const char *program, const char *model, gboolean flows)
{
    model_from(&t->model, model);
    t->program = parse(program);
    fennel_trace_init(&t->trace);
    t->trace.flows = flows;
    FennelMachine *m = fennel_machine_new(t->program->n_ranks, t->program->processes, &t->model);
    FennelInstrument tracer = fennel_trace_instrument(&t->trace);
    fennel_machine_add_instrument(m, &tracer);
    GError *error = NULL;
    g_assert_true(fennel_machine_run(m, t->program, &error));
    g_assert_no_error(error);
    fennel_machine_free(m);
}

static void traced_run(Traced *t, const char *program, const char *model)
{
    traced_run_with(t, program, model, FALSE);
}

static void traced_clear(Traced *t)
{
    fennel_trace_clear(&t->trace);
    fennel_program_free(t->program);
    fennel_model_clear(&t->model);
}

/* The SVG's groups, parsed back with GMarkup: class -> count, and the attributes and
 * first line of every message group. */
typedef struct {
    GHashTable *classes; /* char * -> count */
    GPtrArray *messages; /* char ** attribute lists of message groups */
    GArray *lines;       /* double[4] of the first line in each message group */
    GPtrArray *texts;    /* char * */
    gboolean in_message, want_line, in_text;
} Svg;

static void svg_start(GMarkupParseContext *ctx, const char *name, const char **names,
                      const char **values, gpointer data, GError **error)
{
    (void)ctx;
    (void)error;
    Svg *s = data;
    if (strcmp(name, "g") == 0) {
        for (int i = 0; names[i]; i++) {
            if (strcmp(names[i], "class") != 0)
                continue;
            char **words = g_strsplit(values[i], " ", -1);
            for (char **w = words; *w; w++) {
                gpointer n = g_hash_table_lookup(s->classes, *w);
                g_hash_table_insert(s->classes, g_strdup(*w),
                                    GINT_TO_POINTER(GPOINTER_TO_INT(n) + 1));
            }
            if (g_strv_contains((const char *const *)words, "message")) {
                GPtrArray *attrs = g_ptr_array_new();
                for (int k = 0; names[k]; k++) {
                    g_ptr_array_add(attrs, g_strdup(names[k]));
                    g_ptr_array_add(attrs, g_strdup(values[k]));
                }
                g_ptr_array_add(attrs, NULL);
                g_ptr_array_add(s->messages, g_ptr_array_free(attrs, FALSE));
                s->want_line = TRUE;
            }
            g_strfreev(words);
        }
    } else if (strcmp(name, "line") == 0 && s->want_line) {
        double v[4] = {0};
        static const char *const keys[] = {"x1", "y1", "x2", "y2"};
        for (int i = 0; names[i]; i++)
            for (int k = 0; k < 4; k++)
                if (strcmp(names[i], keys[k]) == 0)
                    v[k] = g_ascii_strtod(values[i], NULL);
        g_array_append_vals(s->lines, v, 4);
        s->want_line = FALSE;
    }
    s->in_text = strcmp(name, "text") == 0;
}

static void svg_text(GMarkupParseContext *ctx, const char *text, gsize len, gpointer data,
                     GError **error)
{
    (void)ctx;
    (void)error;
    Svg *s = data;
    if (s->in_text)
        g_ptr_array_add(s->texts, g_strndup(text, len));
}

static void svg_end(GMarkupParseContext *ctx, const char *name, gpointer data, GError **error)
{
    (void)ctx;
    (void)name;
    (void)error;
    ((Svg *)data)->in_text = FALSE;
}

static void svg_parse(Svg *s, const FennelCanvas *c)
{
    memset(s, 0, sizeof *s);
    s->classes = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    s->messages = g_ptr_array_new_with_free_func((GDestroyNotify)g_strfreev);
    s->lines = g_array_new(FALSE, FALSE, sizeof(double));
    s->texts = g_ptr_array_new_with_free_func(g_free);
    GString *svg = g_string_new(NULL);
    fennel_canvas_write_svg(c, svg);
    /* GMarkup does not read the XML declaration: skip it. */
    const char *body = strstr(svg->str, "<svg");
    GMarkupParser parser = {svg_start, svg_end, svg_text, NULL, NULL};
    GMarkupParseContext *ctx = g_markup_parse_context_new(&parser, 0, s, NULL);
    GError *error = NULL;
    gboolean parsed = g_markup_parse_context_parse(ctx, body, -1, &error);
    g_assert_no_error(error);
    g_assert_true(parsed);
    g_assert_true(g_markup_parse_context_end_parse(ctx, &error));
    g_assert_no_error(error);
    g_markup_parse_context_free(ctx);
    g_string_free(svg, TRUE);
}

static void svg_clear(Svg *s)
{
    g_hash_table_destroy(s->classes);
    g_ptr_array_free(s->messages, TRUE);
    g_array_free(s->lines, TRUE);
    g_ptr_array_free(s->texts, TRUE);
}

static int svg_count(const Svg *s, const char *klass)
{
    return GPOINTER_TO_INT(g_hash_table_lookup(s->classes, klass));
}

static gboolean svg_has_text(const Svg *s, const char *text)
{
    for (guint i = 0; i < s->texts->len; i++)
        if (strcmp(g_ptr_array_index(s->texts, i), text) == 0)
            return TRUE;
    return FALSE;
}

static const char *attr(char **attrs, const char *name)
{
    for (char **a = attrs; a[0] && a[1]; a += 2)
        if (strcmp(a[0], name) == 0)
            return a[1];
    return NULL;
}

/* ---- axis ---- */

static void test_axis(void)
{
    FennelAxis a;
    char buf[32];
    /* 0 to 1213.2 ns over 1000 px: labels of 4 digits need about 50 px each, so the
     * smallest round step with room is 100 ns; minor ticks every 20 ns. */
    fennel_axis_choose(0, 1213200, 1000, 10.5, &a);
    g_assert_cmpint(a.step, ==, 100 * FENNEL_NS);
    g_assert_cmpint(a.minor, ==, 20 * FENNEL_NS);
    g_assert_cmpstr(a.unit_name, ==, "ns");
    g_assert_cmpstr(fennel_axis_label(&a, 1200 * FENNEL_NS, buf), ==, "1200");
    /* 50 us over 1000 px: a step of 5 us is written in us. */
    fennel_axis_choose(0, 50 * FENNEL_US, 1000, 10.5, &a);
    g_assert_cmpstr(a.unit_name, ==, "µs");
    g_assert_cmpint(a.step % a.unit, ==, 0);
    g_assert_cmpint(a.step, >=, 2 * FENNEL_US);
    g_assert_cmpint(a.step, <=, 10 * FENNEL_US);
    /* 3 ps over 300 px: picoseconds, step 1 ps, no minor ticks. */
    fennel_axis_choose(0, 3, 300, 10.5, &a);
    g_assert_cmpint(a.step, ==, 1);
    g_assert_cmpint(a.minor, ==, 1);
    g_assert_cmpstr(a.unit_name, ==, "ps");
    g_assert_cmpint(fennel_axis_ceil(1206400, 100000), ==, 1300000);
    g_assert_cmpint(fennel_axis_ceil(1200000, 100000), ==, 1200000);
}

/* ---- the timeline model ---- */

static void test_model_pingpong(void)
{
    Traced t;
    traced_run(&t, PINGPONG, THESIS);
    FennelTimeline *tl = fennel_timeline_from_trace(&t.trace, 2, 1);
    /* p0: busy [0, 100] (alpha_r), arrives 100 + 500 + 8 x 0.4 = 603.2. p1 waits for it:
     * busy [603.2, 703.2], arrives 1206.4 = the makespan; both ranks' proxies end
     * there too. */
    g_assert_cmpint(tl->makespan, ==, 1206400);
    g_assert_cmpint(tl->rank_finish[0], ==, 1206400);
    g_assert_cmpint(tl->rank_finish[1], ==, 1206400);
    g_assert_cmpuint(tl->messages->len, ==, 2);
    const FennelTlMessage *m0 = &g_array_index(tl->messages, FennelTlMessage, 0);
    g_assert_cmpint(m0->glyph, ==, FENNEL_GLYPH_DATA);
    g_assert_cmpint(m0->sent, ==, 0);
    g_assert_cmpint(m0->leave, ==, 100000);
    g_assert_cmpint(m0->arrive, ==, 603200);
    const FennelTlMessage *m1 = &g_array_index(tl->messages, FennelTlMessage, 1);
    g_assert_cmpint(m1->src, ==, 1);
    g_assert_cmpint(m1->leave, ==, 703200);
    g_assert_cmpint(m1->arrive, ==, 1206400);
    /* Two starts (markers) and two puts; proxies are not drawn. */
    int puts = 0, starts = 0;
    for (guint i = 0; i < tl->items->len; i++) {
        const FennelTlItem *it = &g_array_index(tl->items, FennelTlItem, i);
        puts += it->glyph == FENNEL_GLYPH_PUT;
        starts += it->glyph == FENNEL_GLYPH_START;
        if (it->glyph == FENNEL_GLYPH_PUT && it->rank == 1) {
            g_assert_cmpint(it->t0, ==, 603200);
            g_assert_cmpint(it->t1, ==, 703200);
            g_assert_cmpuint(it->peer, ==, 0);
        }
    }
    g_assert_cmpint(puts, ==, 2);
    g_assert_cmpint(starts, ==, 2);
    g_assert_cmpuint(tl->items->len, ==, 4);
    fennel_timeline_free(tl);
    traced_clear(&t);
}

/* ---- the drawing ---- */

static void test_draw_pingpong(void)
{
    Traced t;
    traced_run(&t, PINGPONG, THESIS);
    FennelTimeline *tl = fennel_timeline_from_trace(&t.trace, 2, 1);
    FennelTimelineOptions o;
    fennel_timeline_options_init(&o);
    o.title = "ping-pong";
    FennelCanvas *c = fennel_timeline_draw(tl, &o);
    g_assert_cmpfloat(fennel_canvas_width(c), ==, 1200);
    Svg s;
    svg_parse(&s, c);
    g_assert_cmpint(svg_count(&s, "lane"), ==, 2);
    g_assert_cmpint(svg_count(&s, "message"), ==, 2);
    g_assert_cmpint(svg_count(&s, "put"), ==, 2);
    g_assert_cmpint(svg_count(&s, "start"), ==, 2);
    g_assert_cmpint(svg_count(&s, "makespan"), ==, 1);
    g_assert_true(svg_has_text(&s, "rank 0"));
    g_assert_true(svg_has_text(&s, "rank 1"));
    g_assert_true(svg_has_text(&s, "time (ns)"));
    g_assert_true(svg_has_text(&s, "ping-pong"));
    g_assert_true(svg_has_text(&s, "makespan 1206.4 ns"));
    /* The two lines: ping goes down from rank 0 to rank 1, pong back up; the pong is
     * twice as far from 0 as the ping on the same scale (1206.4 = 2 x 603.2). */
    const double *l = &g_array_index(s.lines, double, 0);
    g_assert_cmpfloat(l[3], >, l[1]);
    g_assert_cmpfloat(l[7], <, l[5]);
    double x0 = l[0] - (l[2] - l[0]) * 100.0 / 503.2; /* x of time 0 */
    g_assert_cmpfloat_with_epsilon(l[6] - x0, 2 * (l[2] - x0), 0.05);
    g_assert_cmpstr(attr(g_ptr_array_index(s.messages, 1), "data-arrival-ns"), ==, "1206.4");
    svg_clear(&s);
    fennel_canvas_free(c);
    fennel_timeline_free(tl);
    traced_clear(&t);
}

/* Every glyph kind draws, with its class and a legend entry, including those of
 * LogP/LogGP runs and noise. */
static void test_all_glyphs(void)
{
    FennelTimeline *tl = fennel_timeline_new(3, 2);
    for (int g = 0; g < FENNEL_GLYPH_N; g++) {
        if (g >= FENNEL_GLYPH_DATA) {
            FennelTlMessage m = {.sent = g * 100 * FENNEL_NS,
                                 .leave = g * 100 * FENNEL_NS,
                                 .arrive = g * 100 * FENNEL_NS + 600 * FENNEL_NS,
                                 .src = 0,
                                 .dst = 2,
                                 .glyph = g};
            fennel_timeline_add_message(tl, &m);
        } else {
            FennelTlItem it = {.t0 = g * 100 * FENNEL_NS,
                               .t1 = g * 100 * FENNEL_NS + 80 * FENNEL_NS,
                               .rank = (uint32_t)g % 3,
                               .slot = (uint32_t)g % 2,
                               .peer = 2,
                               .glyph = g};
            if (g == FENNEL_GLYPH_START)
                it.t1 = it.t0;
            fennel_timeline_add_item(tl, &it);
        }
    }
    FennelTimelineOptions o;
    fennel_timeline_options_init(&o);
    FennelCanvas *c = fennel_timeline_draw(tl, &o);
    Svg s;
    svg_parse(&s, c);
    /* Two slots per rank: six lanes. */
    g_assert_cmpint(svg_count(&s, "lane"), ==, 6);
    g_assert_true(svg_has_text(&s, "slot 1"));
    for (int g = 0; g < FENNEL_GLYPH_N; g++) {
        g_assert_cmpint(svg_count(&s, fennel_glyph_name(g)), ==, 1);
    }
    g_assert_true(svg_has_text(&s, "receive overhead"));
    g_assert_true(svg_has_text(&s, "NIC send gap"));
    g_assert_true(svg_has_text(&s, "noise"));
    g_assert_cmpint(svg_count(&s, "legend-entry"), ==, FENNEL_GLYPH_N + 2);
    /* A NIC gap or noise does not hold a slot: the last glyph that does is the "task"
     * item, which ends at 13 x 100 + 80 ns; the messages end later. */
    g_assert_cmpint(tl->rank_finish[FENNEL_GLYPH_TASK % 3], ==, 1380 * FENNEL_NS);
    svg_clear(&s);
    fennel_canvas_free(c);
    fennel_timeline_free(tl);
}

/* Above the lane limit the view aggregates: its size does not grow with the tasks. */
static void test_density(void)
{
    const uint32_t ranks = 4096;
    FennelTimeline *tl = fennel_timeline_new(ranks, 1);
    for (uint32_t r = 0; r < ranks; r++) {
        for (uint32_t k = 0; k < 12; k++) {
            FennelTlItem it = {.t0 = k * 613 * FENNEL_NS,
                               .t1 = k * 613 * FENNEL_NS + 100 * FENNEL_NS,
                               .rank = r,
                               .peer = r ^ (1u << k),
                               .glyph = FENNEL_GLYPH_PUT};
            fennel_timeline_add_item(tl, &it);
            FennelTlMessage m = {.sent = it.t0,
                                 .leave = it.t1,
                                 .arrive = it.t0 + 603 * FENNEL_NS,
                                 .src = r,
                                 .dst = it.peer,
                                 .glyph = FENNEL_GLYPH_DATA};
            fennel_timeline_add_message(tl, &m);
        }
    }
    FennelTimelineOptions o;
    fennel_timeline_options_init(&o);
    FennelCanvas *c = fennel_timeline_draw(tl, &o);
    Svg s;
    svg_parse(&s, c);
    g_assert_cmpint(svg_count(&s, "density"), ==, 1);
    g_assert_cmpint(svg_count(&s, "message"), ==, 0);
    g_assert_cmpint(svg_count(&s, "lane"), ==, 0);
    g_assert_cmpuint(fennel_canvas_n_shapes(c), <, 500);
    g_assert_cmpfloat(fennel_canvas_height(c), <, 800);
    svg_clear(&s);
    fennel_canvas_free(c);
    /* A few of its ranks are drawn in full. */
    uint32_t shown[] = {0, 1, 2, 3};
    o.ranks = shown;
    o.n_shown = 4;
    c = fennel_timeline_draw(tl, &o);
    svg_parse(&s, c);
    g_assert_cmpint(svg_count(&s, "density"), ==, 0);
    g_assert_cmpint(svg_count(&s, "lane"), ==, 4);
    g_assert_cmpint(svg_count(&s, "put"), ==, 48);
    svg_clear(&s);
    fennel_canvas_free(c);
    fennel_timeline_free(tl);
}

/* ---- the critical path ---- */

/* The ping-pong's path (README, Commands): x1, the last task to complete at the makespan, was
 * made ready by p1's completion (1206.4), p1 by p0's arrival (603.2, after s1 at 0),
 * p0 by s0. Its marks are s0's start, the two puts and their messages; s1 is off it.
 * In the density view it is a trail: p0's overhead on rank 0, its flight to rank 1,
 * p1's overhead there, its flight back to rank 0. */
static void test_critical_path(void)
{
    Traced t;
    traced_run(&t, PINGPONG, THESIS);
    FennelCriticalPath path;
    g_assert_true(fennel_critical_path(&t.trace, &path));
    FennelTimeline *tl = fennel_timeline_from_trace(&t.trace, 2, 1);
    fennel_timeline_set_path(tl, &path);
    for (guint i = 0; i < tl->items->len; i++) {
        const FennelTlItem *it = &g_array_index(tl->items, FennelTlItem, i);
        gboolean s1 = it->glyph == FENNEL_GLYPH_START && it->rank == 1;
        g_assert_cmpint(fennel_timeline_item_on_path(tl, it), ==, !s1);
    }
    for (guint i = 0; i < tl->messages->len; i++)
        g_assert_true(
            fennel_timeline_message_on_path(tl, &g_array_index(tl->messages, FennelTlMessage, i)));
    static const FennelTlTrail trail[] = {
        {0, 100000, 0, 0},
        {100000, 603200, 0, 1},
        {603200, 703200, 1, 1},
        {703200, 1206400, 1, 0},
    };
    g_assert_nonnull(tl->path_trail);
    g_assert_cmpuint(tl->path_trail->len, ==, G_N_ELEMENTS(trail));
    for (guint i = 0; i < G_N_ELEMENTS(trail); i++) {
        const FennelTlTrail *got = &g_array_index(tl->path_trail, FennelTlTrail, i);
        g_assert_cmpint(got->t0, ==, trail[i].t0);
        g_assert_cmpint(got->t1, ==, trail[i].t1);
        g_assert_cmpuint(got->rank0, ==, trail[i].rank0);
        g_assert_cmpuint(got->rank1, ==, trail[i].rank1);
    }

    FennelTimelineOptions o;
    fennel_timeline_options_init(&o);
    FennelCanvas *c = fennel_timeline_draw(tl, &o);
    Svg s;
    svg_parse(&s, c);
    g_assert_cmpint(svg_count(&s, "critical-path"), ==, 5);
    g_assert_true(svg_has_text(&s, "critical path"));
    svg_clear(&s);
    fennel_canvas_free(c);
    /* Two lanes above a limit of one: the density view, with one trail. */
    o.max_lanes = 1;
    c = fennel_timeline_draw(tl, &o);
    svg_parse(&s, c);
    g_assert_cmpint(svg_count(&s, "density"), ==, 1);
    g_assert_cmpint(svg_count(&s, "critical-path"), ==, 1);
    g_assert_true(svg_has_text(&s, "critical path"));
    svg_clear(&s);
    fennel_canvas_free(c);
    fennel_timeline_free(tl);

    /* Without a path nothing is marked and the legend does not mention one. */
    tl = fennel_timeline_from_trace(&t.trace, 2, 1);
    o.max_lanes = 0;
    c = fennel_timeline_draw(tl, &o);
    svg_parse(&s, c);
    g_assert_cmpint(svg_count(&s, "critical-path"), ==, 0);
    g_assert_false(svg_has_text(&s, "critical path"));
    svg_clear(&s);
    fennel_canvas_free(c);
    fennel_timeline_free(tl);
    fennel_critical_path_clear(&path);
    traced_clear(&t);
}

/* ---- PNG and PDF ---- */

typedef struct {
    const guint8 *data;
    gsize len, pos;
} Reader;

static cairo_status_t read_bytes(void *closure, unsigned char *data, unsigned int length)
{
    Reader *r = closure;
    if (r->pos + length > r->len)
        return CAIRO_STATUS_READ_ERROR;
    memcpy(data, r->data + r->pos, length);
    r->pos += length;
    return CAIRO_STATUS_SUCCESS;
}

static void test_png_pdf(void)
{
    Traced t;
    traced_run(&t, PINGPONG, THESIS);
    FennelTimeline *tl = fennel_timeline_from_trace(&t.trace, 2, 1);
    FennelTimelineOptions o;
    fennel_timeline_options_init(&o);
    o.width = 640;
    FennelCanvas *c = fennel_timeline_draw(tl, &o);
    GByteArray *png = g_byte_array_new();
    GError *error = NULL;
    g_assert_true(fennel_canvas_render(c, "png", png, &error));
    g_assert_no_error(error);
    Reader r = {png->data, png->len, 0};
    cairo_surface_t *s = cairo_image_surface_create_from_png_stream(read_bytes, &r);
    g_assert_cmpint(cairo_surface_status(s), ==, CAIRO_STATUS_SUCCESS);
    g_assert_cmpint(cairo_image_surface_get_width(s), ==, 640);
    g_assert_cmpint(cairo_image_surface_get_height(s), ==, (int)ceil(fennel_canvas_height(c)));
    /* Not blank: many pixels are not white. */
    const unsigned char *px = cairo_image_surface_get_data(s);
    int stride = cairo_image_surface_get_stride(s), dark = 0;
    for (int y = 0; y < cairo_image_surface_get_height(s); y++)
        for (int x = 0; x < 640; x++)
            dark += (((const uint32_t *)(px + (size_t)y * stride))[x] & 0xffffff) != 0xffffff;
    g_assert_cmpint(dark, >, 1000);
    cairo_surface_destroy(s);
    g_byte_array_free(png, TRUE);

    GByteArray *pdf = g_byte_array_new();
    g_assert_true(fennel_canvas_render(c, "pdf", pdf, &error));
    g_assert_cmpmem(pdf->data, 5, "%PDF-", 5);
    /* The file has binary streams: match over its bytes, NULs included. */
    char *text = g_malloc(pdf->len + 1);
    memcpy(text, pdf->data, pdf->len);
    text[pdf->len] = '\0';
    GRegex *page = g_regex_new("/Type\\s*/Page[^s]", G_REGEX_RAW, 0, NULL);
    GMatchInfo *match;
    int pages = 0;
    g_regex_match_full(page, text, pdf->len, 0, 0, &match, NULL);
    while (g_match_info_matches(match)) {
        pages++;
        g_match_info_next(match, NULL);
    }
    g_assert_cmpint(pages, ==, 1);
    g_match_info_free(match);
    g_regex_unref(page);
    g_free(text);
    g_byte_array_free(pdf, TRUE);

    /* An unknown extension writes nothing. */
    g_assert_false(fennel_canvas_write(c, "/nonexistent/out.bmp", &error));
    g_assert_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE);
    g_clear_error(&error);
    g_assert_null(fennel_canvas_format("out.svg.gz"));
    g_assert_cmpstr(fennel_canvas_format("dir.v1/OUT.PDF"), ==, "pdf");
    fennel_canvas_free(c);
    fennel_timeline_free(tl);
    traced_clear(&t);
}

/* ---- Chrome trace ---- */

static int count(const char *haystack, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(haystack, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

static void test_chrome_trace(void)
{
    /* A get under lbp: its request (8 B by default) is timed like a put, issued at 0
     * and at the target at 100 + 500 + 8 x 0.4 = 603.2 ns (docs/SEMANTICS.md); the CLI test
     * compares the other times with the JSON summary. */
    Traced t;
    traced_run(&t,
               "fennel: 1\ntasks:\n- {id: s0, type: start, rank: 0}\n"
               "- {id: s1, type: start, rank: 1}\n"
               "- {id: g, type: get, rank: 0, from: 1, size: 1KiB, after: [s0]}\n"
               "- {id: c, type: compute, rank: 0, size: 1KiB, after: [g]}\n",
               THESIS);
    GString *json = g_string_new(NULL);
    fennel_chrome_trace_write(&t.trace, 2, 1, "a model", json);
    /* 4 tasks, 2 messages (request, response): 4 task events, a "response of" event on
     * the target, 2 arrival events; 2 flows. */
    g_assert_cmpint(count(json->str, "\"ph\":\"X\""), ==, 4 + 1 + 2);
    g_assert_cmpint(count(json->str, "\"flow_out\":true"), ==, 2);
    g_assert_cmpint(count(json->str, "\"flow_in\":true"), ==, 2);
    g_assert_cmpint(count(json->str, "\"name\":\"response of g\""), ==, 1);
    g_assert_true(strstr(json->str, "\"model\":\"a model\"") != NULL);
    /* The request arrives at 603.2 ns = 0.6032 us, written exactly. */
    g_assert_true(strstr(json->str, "\"name\":\"arrival of g\",\"cat\":\"message\",\"ph\":\"X\","
                                    "\"ts\":0.6032,") != NULL);
    g_string_free(json, TRUE);
    traced_clear(&t);
}

/* ---- contention fair: the flows' shared rates ---- */

/* Ranks 1 and 2 put 1000 B to rank 0 on a switch of 500 ns, 10 GB/s links (1000 B take
 * 100 ns alone), contention fair (docs/TOPOLOGY.md): both heads reach node 0's down-link at
 * 500 + 500 = 1000 ns, then both flows share it, each at half its rate (5 B/ns) for its
 * 1000 B: one piece each, from 1000 ns to 1200 ns at a share of 0.5, and both arrive at
 * 1200 ns. Before the pieces were drawn, the timeline showed each message waiting 100 ns
 * for links, then flowing at the full rate. */
#define INCAST2                                                                                    \
    "fennel: 1\nranks: 3\ntasks:\n"                                                                \
    "- {id: s1, type: start, rank: 1}\n"                                                           \
    "- {id: a, type: put, rank: 1, to: 0, size: 1000, after: [s1]}\n"                              \
    "- {id: s2, type: start, rank: 2}\n"                                                           \
    "- {id: b, type: put, rank: 2, to: 0, size: 1000, after: [s2]}\n"
#define FAIR_SWITCH                                                                                \
    "fennel: 1\nnetwork: {model: postal}\nplacement: {ranks_per_node: 1}\nintra: same\n"           \
    "topology: {kind: switch, bandwidth: 10GB/s, latency: 500ns}\ncontention: fair\n"

static void test_fair_flows(void)
{
    Traced t;
    traced_run_with(&t, INCAST2, FAIR_SWITCH, TRUE);
    const FennelTraceRun *r = g_ptr_array_index(t.trace.runs, 0);
    g_assert_cmpint(r->flows->len, ==, 2);
    /* Tasks a (1) and b (3), in the file's order. */
    const uint32_t tasks[2] = {1, 3};
    for (uint32_t i = 0; i < 2; i++) {
        guint n;
        const FennelTraceFlow *f = fennel_trace_flow(r, tasks[i], i + 1, &n);
        g_assert_cmpint(n, ==, 1);
        g_assert_cmpint(f->dst, ==, 0);
        g_assert_cmpint(f->from, ==, 1000 * FENNEL_NS);
        g_assert_cmpint(f->until, ==, 1200 * FENNEL_NS);
        g_assert_cmpfloat(f->share, ==, 0.5);
        g_assert_cmpint(r->arrival[tasks[i]], ==, 1200 * FENNEL_NS);
    }

    FennelTimeline *tl = fennel_timeline_from_trace(&t.trace, 3, 1);
    g_assert_cmpint(tl->messages->len, ==, 2);
    g_assert_cmpint(tl->flows->len, ==, 2);
    FennelTimelineOptions o;
    fennel_timeline_options_init(&o);
    FennelCanvas *c = fennel_timeline_draw(tl, &o);
    Svg s;
    svg_parse(&s, c);
    g_assert_cmpint(s.messages->len, ==, 2);
    for (guint i = 0; i < 2; i++)
        g_assert_cmpstr(attr(g_ptr_array_index(s.messages, i), "data-flow"), ==, "1000 1200 0.5");
    g_assert_true(svg_has_text(&s, "bytes flowing (width: share of the rate alone)"));
    g_assert_false(svg_has_text(&s, "message waiting for links"));
    svg_clear(&s);
    fennel_canvas_free(c);

    GString *json = g_string_new(NULL);
    fennel_chrome_trace_write(&t.trace, 3, 1, NULL, json);
    g_assert_cmpint(count(json->str, "\"flow\":[{\"from_ns\":1000,\"until_ns\":1200,"
                                     "\"share\":0.5}]"),
                    ==, 2);
    g_string_free(json, TRUE);
    fennel_timeline_free(tl);
    traced_clear(&t);

    /* Not recorded unless asked for: the timeline then marks the 100 ns each waited. */
    traced_run(&t, INCAST2, FAIR_SWITCH);
    r = g_ptr_array_index(t.trace.runs, 0);
    g_assert_cmpint(r->flows->len, ==, 0);
    tl = fennel_timeline_from_trace(&t.trace, 3, 1);
    g_assert_cmpint(tl->flows->len, ==, 0);
    c = fennel_timeline_draw(tl, &o);
    svg_parse(&s, c);
    g_assert_null(attr(g_ptr_array_index(s.messages, 0), "data-flow"));
    g_assert_true(svg_has_text(&s, "message waiting for links"));
    svg_clear(&s);
    fennel_canvas_free(c);
    fennel_timeline_free(tl);
    traced_clear(&t);
}

/* ---- program view and DOT ---- */

static void test_dag_and_dot(void)
{
    FennelProgram *p = parse(PINGPONG);
    FennelDagOptions o = {.width = 800};
    GError *error = NULL;
    FennelCanvas *c = fennel_dag_draw(&p, 1, 2, &o, &error);
    g_assert_no_error(error);
    Svg s;
    svg_parse(&s, c);
    /* Two starts and two puts; the proxies are not drawn. */
    g_assert_cmpint(svg_count(&s, "node"), ==, 4);
    g_assert_true(svg_has_text(&s, "S"));
    g_assert_true(svg_has_text(&s, "P"));
    svg_clear(&s);
    fennel_canvas_free(c);

    GString *dot = g_string_new(NULL);
    fennel_program_write_dot(p, dot);
    /* One edge per `after` entry: p0 [s0], p1 [s1, p0], x0 [p1], x1 [p1]: five. */
    g_assert_cmpint(count(dot->str, "->"), ==, 5);
    g_assert_cmpint(count(dot->str, "subgraph cluster_rank"), ==, 2);
    g_assert_cmpint(count(dot->str, "label=\"P\""), ==, 2);
    g_assert_cmpint(count(dot->str, "shape=point"), ==, 2);
    /* The cross-rank edge p0 -> p1 is a message. */
    g_assert_true(strstr(dot->str, "t2 -> t3 [color=\"#0072b2\"]") != NULL);
    g_string_free(dot, TRUE);
    fennel_program_free(p);
}

static void test_dag_too_large(void)
{
    FennelProgramBuilder *b = fennel_builder_new();
    for (uint32_t r = 0; r < FENNEL_DAG_MAX_NODES + 1; r++)
        fennel_builder_add(b, FENNEL_TASK_START, r);
    GError *error = NULL;
    FennelProgram *p = fennel_builder_finish(b, NULL, 0, 1, &error);
    g_assert_no_error(error);
    FennelDagOptions o = {.width = 800};
    g_assert_null(fennel_dag_draw(&p, 1, p->n_ranks, &o, &error));
    g_assert_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE);
    g_clear_error(&error);
    /* Fewer ranks shown: it draws. */
    uint32_t shown[] = {5, 6};
    o.ranks = shown;
    o.n_shown = 2;
    FennelCanvas *c = fennel_dag_draw(&p, 1, p->n_ranks, &o, &error);
    g_assert_nonnull(c);
    fennel_canvas_free(c);
    fennel_program_free(p);
}

/* ---- option checks ---- */

static void test_options(void)
{
    FennelVizOptions o = {0};
    GError *error = NULL;
    o.timeline = g_strdup("x.svg");
    o.window = g_strdup("1.5us:");
    o.ranks_shown = g_strdup("7,2-4,3");
    g_assert_true(fennel_viz_options_check(&o, &error));
    g_assert_no_error(error);
    g_assert_cmpint(o.from, ==, 1500 * FENNEL_NS);
    g_assert_cmpint(o.to, ==, FENNEL_TIME_MAX);
    g_assert_cmpfloat(o.picture_width, ==, 1200);
    g_assert_false(fennel_viz_check_ranks(&o, 7, &error));
    g_assert_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE);
    g_clear_error(&error);
    g_assert_true(fennel_viz_check_ranks(&o, 8, &error));
    g_assert_cmpuint(o.n_shown, ==, 4);
    g_assert_cmpuint(o.ranks[0], ==, 2);
    g_assert_cmpuint(o.ranks[3], ==, 7);
    fennel_viz_options_clear(&o);

    const char *bad_windows[] = {"5", ":", "1:2:3", "2us:2us", "x:1"};
    for (size_t i = 0; i < G_N_ELEMENTS(bad_windows); i++) {
        FennelVizOptions w = {0};
        w.timeline = g_strdup("x.png");
        w.window = g_strdup(bad_windows[i]);
        g_assert_false(fennel_viz_options_check(&w, &error));
        g_assert_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE);
        g_clear_error(&error);
        fennel_viz_options_clear(&w);
    }
    const char *bad_ranks[] = {"", "1,", "a", "3-1", "-2", "1-"};
    for (size_t i = 0; i < G_N_ELEMENTS(bad_ranks); i++) {
        FennelVizOptions w = {0};
        w.dag = g_strdup("x.pdf");
        w.ranks_shown = g_strdup(bad_ranks[i]);
        g_assert_false(fennel_viz_options_check(&w, &error));
        g_assert_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE);
        g_clear_error(&error);
        fennel_viz_options_clear(&w);
    }
    /* --width belongs to the picture unless the generator takes it. */
    FennelVizOptions w = {0};
    FennelGenTextOptions gen = {0};
    w.timeline = g_strdup("x.svg");
    gen.width = g_strdup("900");
    fennel_viz_take_width(&w, &gen, "pingpong");
    g_assert_null(gen.width);
    g_assert_true(fennel_viz_options_check(&w, &error));
    g_assert_cmpfloat(w.picture_width, ==, 900);
    fennel_viz_options_clear(&w);
    fennel_gen_text_options_clear(&gen);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/viz/axis", test_axis);
    g_test_add_func("/viz/model-pingpong", test_model_pingpong);
    g_test_add_func("/viz/draw-pingpong", test_draw_pingpong);
    g_test_add_func("/viz/all-glyphs", test_all_glyphs);
    g_test_add_func("/viz/density", test_density);
    g_test_add_func("/viz/critical-path", test_critical_path);
    g_test_add_func("/viz/png-pdf", test_png_pdf);
    g_test_add_func("/viz/chrome-trace", test_chrome_trace);
    g_test_add_func("/viz/fair-flows", test_fair_flows);
    g_test_add_func("/viz/dag-and-dot", test_dag_and_dot);
    g_test_add_func("/viz/dag-too-large", test_dag_too_large);
    g_test_add_func("/viz/options", test_options);
    return g_test_run();
}
