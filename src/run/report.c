#include "report.h"

#include "json.h"

#include <math.h>

/* Finish-time extremes over ranks; ties go to the lowest rank. */
static void finish_range(const FennelSummary *s, uint32_t ranks, uint32_t *lo, uint32_t *hi)
{
    *lo = *hi = 0;
    for (uint32_t r = 1; r < ranks; r++) {
        if (s->rank_finish[r] < s->rank_finish[*lo])
            *lo = r;
        if (s->rank_finish[r] > s->rank_finish[*hi])
            *hi = r;
    }
}

/* Bytes per ns: over the makespan, and per message over its own flight time. */
static double aggregate_rate(const FennelSummary *s)
{
    return s->makespan > 0 ? (double)s->bytes / ((double)s->makespan / FENNEL_NS) : 0.0;
}

static double message_rate(const FennelSummary *s)
{
    return s->flight_sum > 0 ? (double)s->bytes / ((double)s->flight_sum / FENNEL_NS) : 0.0;
}

typedef struct {
    FennelTime min, median, mean, max;
    FennelTime p5, p95, p99, stddev;
} Stats;

/* The q-th percentile of n sorted values by linear interpolation between the closest ranks
 * (numpy's default): position q/100 (n - 1), rounded to 1 ps. */
static FennelTime percentile(const FennelTime *sorted, uint32_t n, double q)
{
    double pos = q / 100.0 * (n - 1);
    uint32_t i = (uint32_t)pos;
    if (i + 1 >= n)
        return sorted[n - 1];
    double f = pos - i;
    double v = (double)sorted[i] + f * ((double)sorted[i + 1] - (double)sorted[i]);
    return (FennelTime)(v + 0.5);
}

static int compare_time(const void *a, const void *b)
{
    FennelTime x = *(const FennelTime *)a, y = *(const FennelTime *)b;
    return (x > y) - (x < y);
}

/* The median of an even count is the mean of the middle two; means round to 1 ps. */
static Stats makespan_stats(const FennelReport *r)
{
    FennelTime *sorted = g_memdup2(r->makespans, sizeof(FennelTime) * r->repeat);
    qsort(sorted, r->repeat, sizeof(FennelTime), compare_time);
    Stats s = {.min = sorted[0], .max = sorted[r->repeat - 1]};
    uint32_t h = r->repeat / 2;
    s.median =
        r->repeat % 2 ? sorted[h] : (FennelTime)(((__int128)sorted[h - 1] + sorted[h] + 1) / 2);
    __int128 sum = 0;
    for (uint32_t i = 0; i < r->repeat; i++)
        sum += sorted[i];
    s.mean = (FennelTime)((sum + r->repeat / 2) / r->repeat);
    s.p5 = percentile(sorted, r->repeat, 5);
    s.p95 = percentile(sorted, r->repeat, 95);
    s.p99 = percentile(sorted, r->repeat, 99);
    /* The population standard deviation (numpy's default, ddof = 0). */
    double mean = (double)sum / r->repeat, squares = 0;
    for (uint32_t i = 0; i < r->repeat; i++)
        squares += ((double)sorted[i] - mean) * ((double)sorted[i] - mean);
    s.stddev = (FennelTime)(sqrt(squares / r->repeat) + 0.5);
    g_free(sorted);
    return s;
}

void fennel_report_text(const FennelReport *r, GString *out)
{
    const FennelSummary *s = r->summary;
    char a[FENNEL_TIME_BUF], b[FENNEL_TIME_BUF], c[FENNEL_TIME_BUF];
    uint32_t lo, hi;
    finish_range(s, r->ranks, &lo, &hi);
    char *model = fennel_model_describe(r->model);
    g_string_append_printf(out, "program      %s\n", r->program);
    if (r->generator)
        g_string_append_printf(out, "generator    %s\n", r->generator);
    if (r->schedule)
        g_string_append_printf(out, "schedule     %s\n", r->schedule);
    g_string_append_printf(out, "ranks        %u\n", r->ranks);
    g_string_append_printf(out, "tasks        %" G_GUINT64_FORMAT, r->tasks);
    if (r->segments)
        g_string_append_printf(out, " (streamed in %" G_GUINT64_FORMAT " segments)", r->segments);
    g_string_append_c(out, '\n');
    g_string_append_printf(out, "model        %s\n", model);
    g_string_append_printf(out, "seed         %" G_GUINT64_FORMAT "\n", r->seed);
    g_string_append_printf(out, "makespan     %s ns\n", fennel_format_ns(s->makespan, a));
    if (r->repeat > 1) {
        Stats st = makespan_stats(r);
        char d[FENNEL_TIME_BUF];
        g_string_append_printf(out,
                               "repeat       %u runs, seeds %" G_GUINT64_FORMAT
                               "..%" G_GUINT64_FORMAT
                               ": makespan min %s, median %s, mean %s, max %s ns\n",
                               r->repeat, r->seed, r->seed + r->repeat - 1,
                               fennel_format_ns(st.min, a), fennel_format_ns(st.median, b),
                               fennel_format_ns(st.mean, c), fennel_format_ns(st.max, d));
        g_string_append_printf(out, "distribution p5 %s, p95 %s, p99 %s, stddev %s ns\n",
                               fennel_format_ns(st.p5, a), fennel_format_ns(st.p95, b),
                               fennel_format_ns(st.p99, c), fennel_format_ns(st.stddev, d));
    }
    g_string_append_printf(
        out, "rank finish  min %s ns (rank %u), max %s ns (rank %u), skew %s ns\n",
        fennel_format_ns(s->rank_finish[lo], a), lo, fennel_format_ns(s->rank_finish[hi], b), hi,
        fennel_format_ns(s->rank_finish[hi] - s->rank_finish[lo], c));
    g_string_append_printf(out, "messages     %" G_GUINT64_FORMAT " (%" G_GUINT64_FORMAT " B)\n",
                           s->messages, s->bytes);
    g_string_append_printf(out, "bandwidth    %.6g B/ns aggregate, %.6g B/ns mean per message\n",
                           aggregate_rate(s), message_rate(s));
    if (s->links) {
        char d[FENNEL_TIME_BUF];
        if (s->busiest)
            g_string_append_printf(
                out, "links        busiest %s, busy %s ns (%.1f%% of the makespan)\n", s->busiest,
                fennel_format_ns(s->busiest_busy, a),
                s->makespan ? 100.0 * (double)s->busiest_busy / (double)s->makespan : 0);
        g_string_append_printf(out, "link wait    %s ns in total\n",
                               fennel_format_ns(s->link_wait, d));
    }
    g_string_append_printf(out, "events       %" G_GUINT64_FORMAT "\n", r->events);
    g_string_append_printf(out, "wall         %.6f s (build %.6f s, simulate %.6f s)\n",
                           r->wall_seconds, r->build_seconds, r->simulate_seconds);
    g_free(model);
}

void fennel_report_json(const FennelReport *r, GString *out)
{
    const FennelSummary *s = r->summary;
    char a[FENNEL_TIME_BUF];
    uint32_t lo, hi;
    finish_range(s, r->ranks, &lo, &hi);
    g_string_append(out, "{\"fennel\":1,\"program\":");
    fennel_json_string(out, r->program);
    g_string_append(out, ",\"generator\":");
    if (r->generator)
        fennel_json_string(out, r->generator);
    else
        g_string_append(out, "null");
    if (r->schedule) {
        g_string_append(out, ",\"schedule\":");
        fennel_json_string(out, r->schedule);
    }
    g_string_append(out, ",\"model\":");
    fennel_model_append_json(r->model, out);
    g_string_append_printf(out, ",\"seed\":%" G_GUINT64_FORMAT ",\"ranks\":%u", r->seed, r->ranks);
    g_string_append_printf(out, ",\"tasks\":%" G_GUINT64_FORMAT, r->tasks);
    if (r->segments)
        g_string_append_printf(out, ",\"segments\":%" G_GUINT64_FORMAT, r->segments);
    g_string_append_printf(out, ",\"makespan_ns\":%s", fennel_format_ns(s->makespan, a));
    g_string_append(out, ",\"rank_finish_ns\":[");
    for (uint32_t i = 0; i < r->ranks; i++)
        g_string_append_printf(out, "%s%s", i ? "," : "", fennel_format_ns(s->rank_finish[i], a));
    g_string_append_printf(out, "],\"skew_ns\":%s",
                           fennel_format_ns(s->rank_finish[hi] - s->rank_finish[lo], a));
    g_string_append_printf(out, ",\"messages\":%" G_GUINT64_FORMAT ",\"bytes\":%" G_GUINT64_FORMAT,
                           s->messages, s->bytes);
    g_string_append_printf(out, ",\"bandwidth_bytes_per_ns\":%.9g", aggregate_rate(s));
    g_string_append_printf(out, ",\"message_rate_bytes_per_ns\":%.9g", message_rate(s));
    if (r->repeat > 1) {
        Stats st = makespan_stats(r);
        char b[FENNEL_TIME_BUF], c[FENNEL_TIME_BUF], d[FENNEL_TIME_BUF];
        g_string_append_printf(out,
                               ",\"repeat\":%u,\"makespan_stats_ns\":{\"min\":%s,\"median\":%s,"
                               "\"mean\":%s,\"max\":%s",
                               r->repeat, fennel_format_ns(st.min, a),
                               fennel_format_ns(st.median, b), fennel_format_ns(st.mean, c),
                               fennel_format_ns(st.max, d));
        g_string_append_printf(out, ",\"p5\":%s,\"p95\":%s,\"p99\":%s,\"stddev\":%s}",
                               fennel_format_ns(st.p5, a), fennel_format_ns(st.p95, b),
                               fennel_format_ns(st.p99, c), fennel_format_ns(st.stddev, d));
    }
    if (s->links) {
        g_string_append(out, ",\"links\":{\"busiest\":");
        if (s->busiest)
            fennel_json_string(out, s->busiest);
        else
            g_string_append(out, "null");
        g_string_append_printf(out, ",\"busiest_busy_ns\":%s",
                               fennel_format_ns(s->busiest_busy, a));
        g_string_append_printf(out, ",\"wait_ns\":%s}", fennel_format_ns(s->link_wait, a));
    }
    g_string_append_printf(out, ",\"events\":%" G_GUINT64_FORMAT, r->events);
    g_string_append_printf(out, ",\"build_seconds\":%.6f,\"simulate_seconds\":%.6f",
                           r->build_seconds, r->simulate_seconds);
    if (r->critical_path_json)
        g_string_append_printf(out, ",\"critical_path\":%s", r->critical_path_json);
    g_string_append_printf(out, ",\"wall_seconds\":%.6f}\n", r->wall_seconds);
}
