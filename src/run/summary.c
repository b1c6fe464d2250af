#include "summary.h"

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
}

void fennel_summary_take_links(FennelSummary *s, const FennelMachine *m,
                               const FennelTopology *topology)
{
    const FennelNetwork *n = fennel_machine_network(m);
    const FennelLinkStats *st = fennel_machine_link_stats(m);
    if (n == NULL || st == NULL)
        return;
    s->links = TRUE;
    s->link_wait = fennel_machine_link_wait(m);
    if (s->links_csv == NULL)
        s->links_csv = g_string_new(NULL);
    GString *csv = s->links_csv;
    g_string_truncate(csv, 0);
    g_string_append(csv, "link,from,to,level,latency_ns,bandwidth_gbit_s,messages,bytes,busy_ns,"
                         "utilisation,wait_ns,longest_wait_ns,lowest_share_gbit_s\n");
    uint32_t busiest = FENNEL_LINK_NONE;
    char a[32], b[32], lv[16], t1[FENNEL_TIME_BUF], t2[FENNEL_TIME_BUF], t3[FENNEL_TIME_BUF],
        t4[FENNEL_TIME_BUF];
    for (uint32_t l = 0; l < n->links; l++) {
        if (n->from[l] == FENNEL_LINK_NONE)
            continue;
        if (busiest == FENNEL_LINK_NONE || st[l].busy > st[busiest].busy)
            busiest = l;
        double use = s->makespan > 0 ? (double)st[l].busy / (double)s->makespan : 0;
        g_string_append_printf(
            csv, "%u,%s,%s,%s,%s,%.6g,%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%s,%.6f,%s,%s,",
            l, fennel_network_vertex_name(n, n->from[l], a),
            fennel_network_vertex_name(n, n->to[l], b),
            fennel_topology_level_name(topology, n->level[l], lv),
            fennel_format_ns(n->latency[l], t1), 8.0 / ((double)n->rate[l] * 1e-9), st[l].messages,
            st[l].bytes, fennel_format_ns(st[l].busy, t2), use, fennel_format_ns(st[l].wait, t3),
            fennel_format_ns(st[l].longest, t4));
        /* bytes per ps x 8e12 / 1e9 = Gbit/s */
        if (st[l].lowest_share > 0)
            g_string_append_printf(csv, "%.6g", st[l].lowest_share * 8000.0);
        g_string_append_c(csv, '\n');
    }
    g_free(s->busiest);
    s->busiest = NULL;
    s->busiest_busy = 0;
    if (busiest != FENNEL_LINK_NONE && st[busiest].busy > 0) {
        s->busiest =
            g_strdup_printf("%s->%s (%s)", fennel_network_vertex_name(n, n->from[busiest], a),
                            fennel_network_vertex_name(n, n->to[busiest], b),
                            fennel_topology_level_name(topology, n->level[busiest], lv));
        s->busiest_busy = st[busiest].busy;
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
        break;
    default:
        break;
    }
}

FennelInstrument fennel_summary_instrument(FennelSummary *s)
{
    return (FennelInstrument){.mask = FENNEL_EVENT_RANK_FINISHED | FENNEL_EVENT_RUN_FINISHED,
                              .observe = observe,
                              .data = s};
}
