#include "simulate.h"

#include "engine.h"

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
