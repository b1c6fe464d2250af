#include "summary.h"

#include <math.h>

void fennel_summary_init(FennelSummary *s, uint32_t ranks)
{
    *s = (FennelSummary){.ranks = ranks, .rank_finish = g_new0(FennelTime, ranks ? ranks : 1)};
}

void fennel_summary_clear(FennelSummary *s)
{
    g_free(s->rank_finish);
    s->rank_finish = NULL;
    if (s->links_csv)
        g_string_free(s->links_csv, TRUE);
    s->links_csv = NULL;
    g_free(s->busiest);
    s->busiest = NULL;
    g_clear_pointer(&s->link_map, fennel_link_map_free);
    g_clear_pointer(&s->link_map_error, g_free);
    g_clear_pointer(&s->stragglers, g_free);
    g_clear_pointer(&s->faults, g_free);
    g_clear_pointer(&s->fault_names, g_strfreev);
    g_clear_pointer(&s->bins, g_hash_table_destroy);
    g_clear_pointer(&s->last_bins, g_hash_table_destroy);
}

/* ---- the links by intervals ---- */

typedef struct {
    FennelTime busy, wait;
    uint64_t messages; /* that started on the link in the interval */
    double shared;     /* under contention fair: the busy time of the flows' shares, in ps */
} Bin;

static void free_bins(gpointer data)
{
    g_array_free(data, TRUE);
}

void fennel_summary_set_link_interval(FennelSummary *s, FennelTime interval)
{
    s->link_interval = interval;
    s->bins = g_hash_table_new_full(NULL, NULL, NULL, free_bins);
}

/* Adds [from, until) to the intervals it overlaps, into the busy (or wait) time; with a share
 * (contention fair) that fraction of it, into the shared busy time. */
static void spread(FennelSummary *s, GArray *bins, FennelTime from, FennelTime until, gboolean wait,
                   double share)
{
    const FennelTime w = s->link_interval;
    if (until <= from)
        return;
    const uint64_t last = (uint64_t)(until - 1) / (uint64_t)w;
    if (last >= FENNEL_SUMMARY_MAX_INTERVALS) {
        s->too_many_intervals = TRUE;
        return;
    }
    if (bins->len <= last)
        g_array_set_size(bins, (guint)last + 1);
    for (uint64_t b = (uint64_t)from / (uint64_t)w; b <= last; b++) {
        const FennelTime lo = MAX(from, (FennelTime)b * w),
                         hi = MIN(until, (FennelTime)(b + 1) * w);
        Bin *bin = &g_array_index(bins, Bin, b);
        if (share > 0)
            bin->shared += (double)(hi - lo) * share;
        else if (wait)
            bin->wait += hi - lo;
        else
            bin->busy += hi - lo;
    }
}

/* A link held (endpoint, links) or a flow's share of it (fair, FENNEL_EVENT_LINK_SHARE, whose
 * piece counts as a message in its interval when the flow began with it). */
static void observe_link(FennelSummary *s, const FennelEvent *ev)
{
    GArray *bins = g_hash_table_lookup(s->bins, GUINT_TO_POINTER(ev->slot));
    if (bins == NULL) {
        bins = g_array_new(FALSE, TRUE, sizeof(Bin));
        g_hash_table_insert(s->bins, GUINT_TO_POINTER(ev->slot), bins);
    }
    const gboolean share = ev->kind == FENNEL_EVENT_LINK_SHARE;
    if (share) {
        spread(s, bins, ev->time, ev->until, FALSE, ev->share);
        if (ev->local != ev->time)
            return;
    } else {
        spread(s, bins, ev->time - ev->link_wait, ev->time, TRUE, 0);
        spread(s, bins, ev->time, ev->until, FALSE, 0);
    }
    const uint64_t b = (uint64_t)ev->time / (uint64_t)s->link_interval;
    if (b >= FENNEL_SUMMARY_MAX_INTERVALS) {
        s->too_many_intervals = TRUE;
        return;
    }
    if (bins->len <= b)
        g_array_set_size(bins, (guint)b + 1);
    g_array_index(bins, Bin, b).messages++;
}

static int compare_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* A row per link the last run's messages crossed and per interval up to its end. */
static void interval_rows(FennelSummary *s, const FennelNetwork *n, const FennelTopology *topology)
{
    GString *csv = s->links_csv;
    g_string_append(csv, "link,from,to,level,from_ns,until_ns,messages,busy_ns,utilisation,"
                         "wait_ns\n");
    if (s->last_bins == NULL)
        return;
    const FennelTime w = s->link_interval;
    const uint64_t count = MAX(((uint64_t)s->last_end + (uint64_t)w - 1) / (uint64_t)w, 1u);
    if (count > FENNEL_SUMMARY_MAX_INTERVALS) {
        s->too_many_intervals = TRUE;
        return;
    }
    guint n_links;
    gpointer *keys = g_hash_table_get_keys_as_array(s->last_bins, &n_links);
    uint32_t *ids = g_new(uint32_t, MAX(n_links, 1u));
    for (guint i = 0; i < n_links; i++)
        ids[i] = GPOINTER_TO_UINT(keys[i]);
    g_free(keys);
    qsort(ids, n_links, sizeof *ids, compare_u32);
    for (guint i = 0; i < n_links; i++) {
        const GArray *bins = g_hash_table_lookup(s->last_bins, GUINT_TO_POINTER(ids[i]));
        uint32_t from, to, level;
        char a[32], b[32], lv[16], t1[FENNEL_TIME_BUF], t2[FENNEL_TIME_BUF], t3[FENNEL_TIME_BUF],
            t4[FENNEL_TIME_BUF];
        fennel_network_link(n, ids[i], &from, &to, &level);
        for (uint64_t k = 0; k < count; k++) {
            const Bin zero = {0};
            const Bin *bin = k < bins->len ? &g_array_index(bins, Bin, k) : &zero;
            /* a link's flows under fair share it: their shares' time, to the picosecond */
            const FennelTime busy = bin->busy + (FennelTime)llround(bin->shared);
            g_string_append_printf(csv, "%u,%s,%s,%s,%s,%s,%" G_GUINT64_FORMAT ",%s,%.6f,%s\n",
                                   ids[i], fennel_network_vertex_name(n, from, a),
                                   fennel_network_vertex_name(n, to, b),
                                   fennel_topology_level_name(topology, level, lv),
                                   fennel_format_ns((FennelTime)k * w, t1),
                                   fennel_format_ns((FennelTime)(k + 1) * w, t2), bin->messages,
                                   fennel_format_ns(busy, t3), (double)busy / (double)w,
                                   fennel_format_ns(bin->wait, t4));
        }
    }
    g_free(ids);
}

void fennel_summary_take_faults(FennelSummary *s, const FennelMachine *m)
{
    uint32_t n;
    const uint32_t *slow = fennel_machine_stragglers(m, &n);
    g_free(s->stragglers);
    s->stragglers = n ? g_memdup2(slow, sizeof *slow * n) : NULL;
    s->n_stragglers = n;
    const FennelFault *faults = fennel_machine_faults(m, &n);
    g_free(s->faults);
    g_strfreev(s->fault_names);
    s->faults = n ? g_memdup2(faults, sizeof *faults * n) : NULL;
    s->n_faults = n;
    s->fault_names = g_new0(char *, n + 1);
    const FennelNetwork *net = fennel_machine_network(m);
    for (uint32_t i = 0; i < n; i++) {
        char a[32], b[32];
        uint32_t from, to, level;
        if (faults[i].node != FENNEL_NO_RANK) {
            s->fault_names[i] = g_strdup_printf("node%u's NIC", faults[i].node);
        } else {
            fennel_network_link(net, faults[i].link, &from, &to, &level);
            s->fault_names[i] =
                g_strdup_printf("%s->%s (link %u)", fennel_network_vertex_name(net, from, a),
                                fennel_network_vertex_name(net, to, b), faults[i].link);
        }
    }
}

/* One row of the links CSV. */
static void link_row(GString *csv, const FennelNetwork *n, const FennelTopology *topology,
                     FennelTime makespan, uint32_t l, uint32_t from, uint32_t to, uint32_t level,
                     const FennelLinkStats *st)
{
    char a[32], b[32], lv[16], t1[FENNEL_TIME_BUF], t2[FENNEL_TIME_BUF], t3[FENNEL_TIME_BUF],
        t4[FENNEL_TIME_BUF];
    double use = makespan > 0 ? (double)st->busy / (double)makespan : 0;
    g_string_append_printf(
        csv, "%u,%s,%s,%s,%s,%.6g,%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%s,%.6f,%s,%s,", l,
        fennel_network_vertex_name(n, from, a), fennel_network_vertex_name(n, to, b),
        fennel_topology_level_name(topology, level, lv),
        fennel_format_ns(fennel_network_latency(n, l, level), t1),
        8.0 / ((double)fennel_network_rate(n, l, level) * 1e-9), st->messages, st->bytes,
        fennel_format_ns(st->busy, t2), use, fennel_format_ns(st->wait, t3),
        fennel_format_ns(st->longest, t4));
    /* bytes per ps x 8e12 / 1e9 = Gbit/s */
    if (st->lowest_share > 0)
        g_string_append_printf(csv, "%.6g", st->lowest_share * 8000.0);
    g_string_append_c(csv, '\n');
}

void fennel_summary_take_links(FennelSummary *s, const FennelMachine *m,
                               const FennelTopology *topology)
{
    const FennelNetwork *n = fennel_machine_network(m);
    if (n == NULL || !fennel_machine_shares_links(m))
        return;
    s->links = TRUE;
    s->link_wait = fennel_machine_link_wait(m);
    /* The rows per link only when the CSV is asked for, and has them rather than rows per
     * interval: printing them cost more than an eighth of a run of 2^16 ranks under
     * `endpoint`. The busiest link is found either way. */
    GString *csv = s->link_rows && s->link_interval == 0
                       ? g_string_new("link,from,to,level,latency_ns,bandwidth_gbit_s,messages,"
                                      "bytes,busy_ns,utilisation,wait_ns,longest_wait_ns,"
                                      "lowest_share_gbit_s\n")
                       : NULL;
    /* Every link of a small topology, the unused ones as rows of zeros; of a larger one only
     * the links the run's messages crossed (docs/TOPOLOGY.md, Seeing it). */
    const FennelLinkStats zero = {0};
    uint32_t busiest = FENNEL_LINK_NONE, from, to, level;
    FennelLinkStats best = zero;
    if (n->links <= FENNEL_SUMMARY_ALL_LINKS) {
        for (uint32_t l = 0; l < n->links; l++) {
            if (!fennel_network_link(n, l, &from, &to, &level))
                continue;
            const FennelLinkStats *st = fennel_machine_link_stats(m, l);
            st = st ? st : &zero;
            if (busiest == FENNEL_LINK_NONE || st->busy > best.busy) {
                busiest = l;
                best = *st;
            }
            if (csv)
                link_row(csv, n, topology, s->makespan, l, from, to, level, st);
        }
    } else {
        uint32_t count;
        uint32_t *used = fennel_machine_links_used(m, &count);
        for (uint32_t i = 0; i < count; i++) {
            const uint32_t l = used[i];
            const FennelLinkStats *st = fennel_machine_link_stats(m, l);
            fennel_network_link(n, l, &from, &to, &level);
            if (busiest == FENNEL_LINK_NONE || st->busy > best.busy) {
                busiest = l;
                best = *st;
            }
            if (csv)
                link_row(csv, n, topology, s->makespan, l, from, to, level, st);
        }
        g_free(used);
    }
    if (s->link_rows && s->link_interval > 0) {
        if (s->links_csv == NULL)
            s->links_csv = g_string_new(NULL);
        g_string_truncate(s->links_csv, 0);
        interval_rows(s, n, topology);
    } else if (csv) {
        if (s->links_csv)
            g_string_free(s->links_csv, TRUE);
        s->links_csv = csv;
    }
    if (s->link_map_wanted) {
        g_clear_pointer(&s->link_map, fennel_link_map_free);
        g_clear_pointer(&s->link_map_error, g_free);
        s->link_map = fennel_link_map_take(m, topology, s->makespan, &s->link_map_error);
    }
    g_free(s->busiest);
    s->busiest = NULL;
    s->busiest_busy = 0;
    if (busiest != FENNEL_LINK_NONE && best.busy > 0) {
        char a[32], b[32], lv[16];
        fennel_network_link(n, busiest, &from, &to, &level);
        s->busiest = g_strdup_printf("%s->%s (%s)", fennel_network_vertex_name(n, from, a),
                                     fennel_network_vertex_name(n, to, b),
                                     fennel_topology_level_name(topology, level, lv));
        s->busiest_busy = best.busy;
    }
}

/* The summary listens to the ranks' finishes and the end of each run only, so that it costs
 * nothing per task. */
static void observe(void *data, const FennelProgram *program, const FennelEvent *ev)
{
    (void)program;
    FennelSummary *s = data;
    switch (ev->kind) {
    case FENNEL_EVENT_RANK_FINISHED:
        s->rank_finish[ev->rank] = MAX(s->rank_finish[ev->rank], ev->time);
        break;
    case FENNEL_EVENT_RUN_FINISHED:
        s->makespan = MAX(s->makespan, ev->time);
        s->tasks += ev->task;
        /* The run's messages come as totals (instrument.h): no event per message. Saturated:
         * flights that run to the end of time, side by side, must not wrap. */
        s->messages += ev->messages;
        s->bytes += (uint64_t)ev->bytes;
        s->flight_sum = ev->until > FENNEL_TIME_MAX - s->flight_sum ? FENNEL_TIME_MAX
                                                                    : s->flight_sum + ev->until;
        if (s->bins) {
            /* The intervals are the last run's. */
            if (s->last_bins)
                g_hash_table_destroy(s->last_bins);
            s->last_bins = s->bins;
            s->bins = g_hash_table_new_full(NULL, NULL, NULL, free_bins);
            s->last_end = ev->time;
        }
        break;
    case FENNEL_EVENT_LINK:
    case FENNEL_EVENT_LINK_SHARE:
        observe_link(s, ev);
        break;
    default:
        break;
    }
}

FennelInstrument fennel_summary_instrument(FennelSummary *s)
{
    return (FennelInstrument){
        .mask = FENNEL_EVENT_RANK_FINISHED | FENNEL_EVENT_RUN_FINISHED |
                (s->link_interval > 0 ? FENNEL_EVENT_LINK | FENNEL_EVENT_LINK_SHARE : 0),
        .observe = observe,
        .data = s};
}
