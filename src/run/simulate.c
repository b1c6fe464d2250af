#include "simulate.h"

#include <string.h>

#include "capacity.h"
#include "engine.h"
#include "errors.h"

void fennel_programs_size(FennelProgram *const *programs, uint32_t *ranks, uint32_t *processes)
{
    *ranks = 1;
    *processes = 1;
    for (FennelProgram *const *p = programs; *p; p++) {
        *ranks = MAX(*ranks, (*p)->n_ranks);
        *processes = MAX(*processes, (*p)->processes);
    }
}

/* fennel_simulate_links, with the links CSV only if link_rows is set. */
static gboolean simulate(FennelProgram *const *programs, const FennelModel *model, uint64_t seed,
                         gboolean link_rows, FennelTime link_interval, gboolean link_map,
                         FennelSummary *summary, FennelTrace *trace, uint64_t *events,
                         GError **error)
{
    uint32_t ranks, processes;
    fennel_programs_size(programs, &ranks, &processes);
    FennelMachine *machine = fennel_machine_new(ranks, processes, model);
    fennel_machine_set_seed(machine, seed);
    fennel_summary_init(summary, ranks);
    summary->link_rows = link_rows;
    summary->link_map_wanted = link_map;
    if (link_interval > 0)
        fennel_summary_set_link_interval(summary, link_interval);
    FennelInstrument instrument = fennel_summary_instrument(summary);
    fennel_machine_add_instrument(machine, &instrument);
    if (trace) {
        FennelInstrument tracer = fennel_trace_instrument(trace);
        fennel_machine_add_instrument(machine, &tracer);
    }
    gboolean ok = TRUE;
    for (FennelProgram *const *p = programs; *p && ok; p++)
        ok = fennel_machine_run(machine, *p, error);
    if (ok)
        fennel_summary_take_links(summary, machine, model->topology);
    fennel_summary_take_faults(summary, machine);
    if (events)
        *events = fennel_machine_events(machine);
    fennel_machine_free(machine);
    return ok;
}

gboolean fennel_simulate(FennelProgram *const *programs, const FennelModel *model, uint64_t seed,
                         FennelSummary *summary, FennelTrace *trace, uint64_t *events,
                         GError **error)
{
    return simulate(programs, model, seed, FALSE, 0, FALSE, summary, trace, events, error);
}

gboolean fennel_simulate_links(FennelProgram *const *programs, const FennelModel *model,
                               uint64_t seed, gboolean rows, FennelTime link_interval, gboolean map,
                               FennelSummary *summary, FennelTrace *trace, uint64_t *events,
                               GError **error)
{
    return simulate(programs, model, seed, rows, link_interval, map, summary, trace, events, error);
}

void fennel_simulate_worst_fault(FennelProgram *const *programs, const FennelModel *model,
                                 uint64_t seed, const FennelSummary *summary, uint32_t max,
                                 uint32_t *tried, int64_t *worst, FennelTime *without)
{
    *tried = 0;
    *worst = -1;
    *without = summary->makespan;
    uint32_t met = 0;
    for (uint32_t i = 0; i < summary->n_faults; i++)
        met += summary->faults[i].met;
    if (met == 0 || met > max)
        return;
    uint32_t ranks, processes;
    fennel_programs_size(programs, &ranks, &processes);
    for (uint32_t i = 0; i < summary->n_faults; i++) {
        if (!summary->faults[i].met)
            continue;
        ++*tried;
        FennelMachine *machine = fennel_machine_new(ranks, processes, model);
        fennel_machine_set_seed(machine, seed);
        fennel_machine_leave_out_fault(machine, i);
        gboolean ok = TRUE;
        for (FennelProgram *const *p = programs; *p && ok; p++)
            ok = fennel_machine_run(machine, *p, NULL);
        const FennelTime makespan = fennel_machine_makespan(machine);
        fennel_machine_free(machine);
        if (ok && makespan < *without) {
            *worst = i;
            *without = makespan;
        }
    }
}

FennelProgram *fennel_programs_together(FennelProgram *const *programs, const FennelLimits *limits,
                                        GError **error)
{
    uint64_t ranks = 0;
    uint32_t processes = 1;
    for (FennelProgram *const *p = programs; *p; p++) {
        ranks += (*p)->n_ranks;
        processes = MAX(processes, (*p)->processes);
    }
    if (ranks > UINT32_MAX - 2) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                    "--together: %" G_GUINT64_FORMAT " ranks in all, more than fennel numbers",
                    ranks);
        return NULL;
    }
    FennelProgramBuilder *b = fennel_builder_new();
    fennel_builder_set_limits(b, limits);
    GString *names = g_string_new(NULL);
    uint32_t offset = 0, first = 0;
    for (FennelProgram *const *pp = programs; *pp; pp++) {
        const FennelProgram *p = *pp;
        g_string_append_printf(names, "%s%s", names->len ? "+" : "", p->name);
        for (uint32_t t = 0; t < p->n_tasks; t++) {
            uint32_t u = fennel_builder_add(b, p->type[t], p->rank[t] + offset);
            fennel_builder_set_amount(b, u, p->amount[t]);
            if (p->peer[t] != FENNEL_ANY && p->peer[t] != FENNEL_NO_RANK)
                fennel_builder_set_peer(b, u, p->peer[t] + offset);
            else
                fennel_builder_set_peer(b, u, p->peer[t]);
            if (p->request)
                fennel_builder_set_request(b, u, p->request[t]);
            if (p->tag)
                fennel_builder_set_tag(b, u, p->tag[t]);
            if (p->pin && p->pin[t] != FENNEL_NO_RANK)
                fennel_builder_set_pin(b, u, p->pin[t]);
            fennel_builder_set_flags(b, u, p->flags[t]);
            if (p->any)
                fennel_builder_set_any(b, u, p->any[t]);
            /* Names say which file a task came from, with the file's own rank. */
            char buf[24];
            char *name = g_strdup_printf("%s/%s", p->name, fennel_program_task_name(p, t, buf));
            fennel_builder_set_name(b, u, name);
            g_free(name);
        }
        for (uint32_t t = 0; t < p->n_tasks; t++) {
            for (FennelEdgeIndex e = p->succ_start[t]; e < p->succ_start[t + 1]; e++)
                fennel_builder_add_edge(b, first + t, first + p->succ[e]);
            if (p->start_succ_start)
                for (FennelEdgeIndex e = p->start_succ_start[t]; e < p->start_succ_start[t + 1];
                     e++)
                    fennel_builder_add_start_edge(b, first + t, first + p->start_succ[e]);
        }
        offset += p->n_ranks;
        first += p->n_tasks;
    }
    FennelProgram *q = fennel_builder_finish(b, names->str, (uint32_t)ranks, processes, error);
    if (q) {
        g_free(q->name);
        q->name = g_string_free(names, FALSE);
    } else {
        g_string_free(names, TRUE);
    }
    return q;
}

/* Whether a rank of p sends from two slots or more: puts, gets and sends pinned to
 * different slots, or free to take any (concurrent). */
static gboolean sends_in_parallel(const FennelProgram *p)
{
    if (p->processes < 2)
        return FALSE;
    uint32_t *first = g_new(uint32_t, p->n_ranks);
    memset(first, 0xff, sizeof *first * p->n_ranks);
    gboolean found = FALSE;
    for (uint32_t t = 0; t < p->n_tasks && !found; t++) {
        const FennelTaskType type = p->type[t];
        if (type != FENNEL_TASK_PUT && type != FENNEL_TASK_GET && type != FENNEL_TASK_SEND)
            continue;
        const uint32_t slot = p->pin && p->pin[t] != FENNEL_NO_RANK ? p->pin[t] : 0;
        uint32_t *f = &first[p->rank[t]];
        found = (p->flags[t] & FENNEL_TASK_CONCURRENT) || (*f != UINT32_MAX && *f != slot);
        *f = slot;
    }
    g_free(first);
    return found;
}

char *fennel_parallel_senders_warning(FennelProgram *const *programs, const FennelModel *model)
{
    if (model->network->flags & FENNEL_NET_NIC_BYTES)
        return NULL;
    if (model->topology && model->contention != FENNEL_CONTENTION_NONE &&
        model->ranks_per_node <= 1)
        return NULL;
    gboolean parallel = FALSE;
    for (FennelProgram *const *p = programs; *p && !parallel; p++)
        parallel = sends_in_parallel(*p);
    if (!parallel)
        return NULL;
    return g_strdup("warning: ranks send from several slots at once and the model gives each "
                    "send the whole bandwidth (no port shared by a rank's thread blocks or "
                    "channels); --model dgx-h100 or dgx-a100, or a topology with contention and "
                    "one rank per node, share it (docs/TOPOLOGY.md, GPU servers and rails)");
}
