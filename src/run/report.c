#include "report.h"

#include "json.h"

#include <math.h>

/* Stragglers, faults and seeds cut off are listed up to this many, then counted. */
#define LISTED 8

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
    const uint32_t n = r->repeat - r->n_cut; /* the runs that finished */
    FennelTime *sorted = g_memdup2(r->makespans, sizeof(FennelTime) * n);
    qsort(sorted, n, sizeof(FennelTime), compare_time);
    Stats s = {.min = sorted[0], .max = sorted[n - 1]};
    uint32_t h = n / 2;
    s.median = n % 2 ? sorted[h] : (FennelTime)(((__int128)sorted[h - 1] + sorted[h] + 1) / 2);
    __int128 sum = 0;
    for (uint32_t i = 0; i < n; i++)
        sum += sorted[i];
    s.mean = (FennelTime)((sum + n / 2) / n);
    s.p5 = percentile(sorted, n, 5);
    s.p95 = percentile(sorted, n, 95);
    s.p99 = percentile(sorted, n, 99);
    /* The population standard deviation (numpy's default, ddof = 0). */
    double mean = (double)sum / n, squares = 0;
    for (uint32_t i = 0; i < n; i++)
        squares += ((double)sorted[i] - mean) * ((double)sorted[i] - mean);
    s.stddev = (FennelTime)(sqrt(squares / n) + 0.5);
    g_free(sorted);
    return s;
}

/* "leaf0->spine1 (link 37) down from 0 ns", "node3's NIC at 0.5 of its bandwidth from 10 ns" */
static void append_fault(GString *out, const FennelSummary *s, uint32_t i)
{
    char a[FENNEL_TIME_BUF], b[32];
    const FennelFault *f = &s->faults[i];
    if (f->bandwidth == 0)
        g_string_append_printf(out, "%s down from %s ns", s->fault_names[i],
                               fennel_format_ns(f->from, a));
    else
        g_string_append_printf(out, "%s at %s of its bandwidth from %s ns", s->fault_names[i],
                               fennel_format_millionths(f->bandwidth, b),
                               fennel_format_ns(f->from, a));
}

static void faults_text(const FennelReport *r, GString *out)
{
    const FennelSummary *s = r->summary;
    char a[FENNEL_TIME_BUF], b[FENNEL_TIME_BUF];
    if (fennel_stragglers_any(r->model->stragglers)) {
        g_string_append_printf(out, "stragglers   %u rank%s", s->n_stragglers,
                               s->n_stragglers == 1 ? "" : "s");
        for (uint32_t i = 0; i < s->n_stragglers && i < LISTED; i++)
            g_string_append_printf(out, "%s%u", i ? ", " : ": ", s->stragglers[i]);
        if (s->n_stragglers > LISTED)
            g_string_append_printf(out, " and %u more", s->n_stragglers - LISTED);
        g_string_append_c(out, '\n');
    }
    if (!fennel_faults_any(r->model->faults))
        return;
    uint32_t met = 0;
    for (uint32_t i = 0; i < s->n_faults; i++)
        met += s->faults[i].met;
    g_string_append_printf(out, "faults       %u (%u met by messages)", s->n_faults, met);
    for (uint32_t i = 0; i < s->n_faults && i < LISTED; i++) {
        g_string_append(out, i ? "; " : ": ");
        append_fault(out, s, i);
    }
    if (s->n_faults > LISTED)
        g_string_append_printf(out, "; and %u more", s->n_faults - LISTED);
    g_string_append_c(out, '\n');
    if (met > FENNEL_WORST_FAULT_RERUNS) {
        g_string_append_printf(out,
                               "worst fault  not sought: %u faults met messages (runs without "
                               "each are made for at most %d)\n",
                               met, FENNEL_WORST_FAULT_RERUNS);
    } else if (r->worst_fault >= 0) {
        g_string_append(out, "worst fault  ");
        append_fault(out, s, (uint32_t)r->worst_fault);
        g_string_append_printf(out, ": the makespan is %s ns without it (%s ns shorter)\n",
                               fennel_format_ns(r->without_worst, a),
                               fennel_format_ns(s->makespan - r->without_worst, b));
    } else if (met == 1) {
        g_string_append(out, "worst fault  none: the makespan is no shorter without the one "
                             "fault messages met\n");
    } else if (met > 1) {
        g_string_append_printf(out,
                               "worst fault  none: the makespan is no shorter without any one of "
                               "the %u faults messages met\n",
                               met);
    }
}

static void faults_json(const FennelReport *r, GString *out)
{
    const FennelSummary *s = r->summary;
    char a[FENNEL_TIME_BUF], b[32];
    if (fennel_stragglers_any(r->model->stragglers)) {
        g_string_append(out, ",\"stragglers\":[");
        for (uint32_t i = 0; i < s->n_stragglers; i++)
            g_string_append_printf(out, "%s%u", i ? "," : "", s->stragglers[i]);
        g_string_append_c(out, ']');
    }
    if (!fennel_faults_any(r->model->faults))
        return;
    g_string_append(out, ",\"faults\":[");
    for (uint32_t i = 0; i < s->n_faults; i++) {
        const FennelFault *f = &s->faults[i];
        g_string_append_printf(out, "%s{\"name\":", i ? "," : "");
        fennel_json_string(out, s->fault_names[i]);
        g_string_append_printf(out, ",\"link\":%u,\"node\":", f->link);
        if (f->node == FENNEL_NO_RANK)
            g_string_append(out, "null");
        else
            g_string_append_printf(out, "%u", f->node);
        g_string_append_printf(
            out, ",\"from_ns\":%s,\"bandwidth\":%s,\"met\":%s}", fennel_format_ns(f->from, a),
            fennel_format_millionths(f->bandwidth, b), f->met ? "true" : "false");
    }
    g_string_append(out, "],\"worst_fault\":");
    if (r->worst_fault >= 0)
        g_string_append_printf(out, "{\"index\":%" G_GINT64_FORMAT ",\"makespan_without_ns\":%s}",
                               r->worst_fault, fennel_format_ns(r->without_worst, a));
    else
        g_string_append(out, "null");
    g_string_append_printf(out, ",\"faults_rerun\":%u", r->faults_rerun);
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
        if (r->n_cut) {
            g_string_append_printf(out,
                                   "cut off      %u of %u seeds (faults cut a message off, left "
                                   "out of the distribution)",
                                   r->n_cut, r->repeat);
            for (uint32_t i = 0; i < r->n_cut && i < LISTED; i++)
                g_string_append_printf(out, "%s%" G_GUINT64_FORMAT, i ? ", " : ": ",
                                       r->cut_seeds[i]);
            if (r->n_cut > LISTED)
                g_string_append_printf(out, " and %u more", r->n_cut - LISTED);
            g_string_append_c(out, '\n');
        }
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
    faults_text(r, out);
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
        if (fennel_faults_any(r->model->faults)) {
            g_string_append(out, ",\"cut_off_seeds\":[");
            for (uint32_t i = 0; i < r->n_cut; i++)
                g_string_append_printf(out, "%s%" G_GUINT64_FORMAT, i ? "," : "", r->cut_seeds[i]);
            g_string_append_c(out, ']');
        }
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
    faults_json(r, out);
    g_string_append_printf(out, ",\"events\":%" G_GUINT64_FORMAT, r->events);
    g_string_append_printf(out, ",\"build_seconds\":%.6f,\"simulate_seconds\":%.6f",
                           r->build_seconds, r->simulate_seconds);
    if (r->critical_path_json)
        g_string_append_printf(out, ",\"critical_path\":%s", r->critical_path_json);
    g_string_append_printf(out, ",\"wall_seconds\":%.6f}\n", r->wall_seconds);
}
