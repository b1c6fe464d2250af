#include "simulate.h"

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

gboolean fennel_simulate(FennelProgram *const *programs, const FennelModel *model, uint64_t seed,
                         FennelSummary *summary, FennelTrace *trace, uint64_t *events,
                         GError **error)
{
    uint32_t ranks, processes;
    fennel_programs_size(programs, &ranks, &processes);
    FennelMachine *machine = fennel_machine_new(ranks, processes, model);
    fennel_machine_set_seed(machine, seed);
    fennel_summary_init(summary, ranks);
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
    if (events)
        *events = fennel_machine_events(machine);
    fennel_machine_free(machine);
    return ok;
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
