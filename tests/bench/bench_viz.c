/* Benchmark of the pictures and traces of a large run: recursive-doubling AllReduce
 * (allreduce-rd, 8 B, thesis-figures model) at 4096 and 65536 ranks, and the detailed
 * view at its largest (256 lanes). For each: the simulation with the trace instrument,
 * building the timeline, drawing it (the density view above 256 lanes), writing SVG,
 * PNG and PDF, and the Chrome trace. Prints one line per step with seconds and bytes;
 * docs/PERFORMANCE.md records the figures. Run: meson test -C BUILD --benchmark viz
 * (or the bench-viz executable, with rank counts as arguments). */
#include "bench_common.h"
#include "chrome_trace.h"
#include "errors.h"
#include "generator.h"
#include "simulate.h"
#include "timeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void step(const char *what, uint32_t ranks, double t0, gsize bytes)
{
    if (bytes)
        printf("%-28s %7u ranks  %8.3f s  %10zu bytes\n", what, ranks, bench_now() - t0,
               (size_t)bytes);
    else
        printf("%-28s %7u ranks  %8.3f s\n", what, ranks, bench_now() - t0);
}

static void bench(uint32_t ranks, const FennelModel *model)
{
    FennelGenOptions o;
    fennel_gen_options_init(&o);
    o.ranks = ranks;
    o.given = FENNEL_GEN_RANKS;
    GError *error = NULL;
    double t0 = bench_now();
    FennelProgram *p = fennel_generate(fennel_generator_find("allreduce-rd"), &o, &error);
    g_assert_no_error(error);
    step("generate allreduce-rd", ranks, t0, 0);
    printf("%-28s %7u ranks  %8u tasks\n", "", ranks, p->n_tasks);

    FennelProgram *programs[] = {p, NULL};
    FennelSummary summary;
    FennelTrace trace;
    fennel_trace_init(&trace);
    uint64_t events;
    t0 = bench_now();
    g_assert_true(fennel_simulate(programs, model, 0, &summary, &trace, &events, &error));
    step("simulate with trace", ranks, t0, 0);

    t0 = bench_now();
    FennelTimeline *tl = fennel_timeline_from_trace(&trace, p->n_ranks, p->processes);
    step("timeline from trace", ranks, t0, 0);
    FennelTimelineOptions opt;
    fennel_timeline_options_init(&opt);
    opt.title = "allreduce-rd";
    t0 = bench_now();
    FennelCanvas *c = fennel_timeline_draw(tl, &opt);
    step(ranks > FENNEL_TIMELINE_MAX_LANES ? "draw (density view)" : "draw (lanes)", ranks, t0, 0);
    t0 = bench_now();
    GString *svg = g_string_new(NULL);
    fennel_canvas_write_svg(c, svg);
    step("  SVG", ranks, t0, svg->len);
    g_string_free(svg, TRUE);
    static const char *const formats[] = {"png", "pdf"};
    for (size_t i = 0; i < G_N_ELEMENTS(formats); i++) {
        t0 = bench_now();
        GByteArray *bytes = g_byte_array_new();
        g_assert_true(fennel_canvas_render(c, formats[i], bytes, &error));
        step(formats[i][1] == 'n' ? "  PNG" : "  PDF", ranks, t0, bytes->len);
        g_byte_array_free(bytes, TRUE);
    }
    fennel_canvas_free(c);

    /* The detailed view at its largest: 256 of the ranks. */
    uint32_t n_shown = MIN(ranks, FENNEL_TIMELINE_MAX_LANES);
    uint32_t *shown = g_new(uint32_t, n_shown);
    for (uint32_t i = 0; i < n_shown; i++)
        shown[i] = i;
    opt.ranks = shown;
    opt.n_shown = n_shown;
    t0 = bench_now();
    c = fennel_timeline_draw(tl, &opt);
    svg = g_string_new(NULL);
    fennel_canvas_write_svg(c, svg);
    step("draw + SVG, 256 ranks shown", ranks, t0, svg->len);
    g_string_free(svg, TRUE);
    t0 = bench_now();
    GByteArray *png = g_byte_array_new();
    g_assert_true(fennel_canvas_render(c, "png", png, &error));
    step("  PNG, 256 ranks shown", ranks, t0, png->len);
    g_byte_array_free(png, TRUE);
    fennel_canvas_free(c);
    g_free(shown);
    fennel_timeline_free(tl);

    t0 = bench_now();
    GString *json = g_string_new(NULL);
    fennel_chrome_trace_write(&trace, p->n_ranks, p->processes, NULL, json);
    step("Chrome trace", ranks, t0, json->len);
    g_string_free(json, TRUE);

    fennel_trace_clear(&trace);
    fennel_summary_clear(&summary);
    fennel_program_free(p);
}

int main(int argc, char **argv)
{
    FennelModel model;
    fennel_model_init(&model);
    static const char thesis[] = "fennel: 1\n"
                                 "network: {model: lbp, alpha_p: 500ns, alpha_r: 100ns, beta: "
                                 "0.4ns/B}\ncompute: {model: fixed, duration: 10ns}\n";
    GError *error = NULL;
    g_assert_true(fennel_model_parse(&model, "thesis-figures", thesis, strlen(thesis), &error));
    if (argc > 1) {
        for (int i = 1; i < argc; i++)
            bench((uint32_t)strtoul(argv[i], NULL, 10), &model);
    } else {
        bench(4096, &model);
        bench(65536, &model);
    }
    fennel_model_clear(&model);
    return 0;
}
