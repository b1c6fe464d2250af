/* `fennel run --generate NAME --stream`: a program too large to hold whole is generated in
 * segments (schedules/stages.h), each simulated on one machine as it comes and then freed,
 * so memory follows one segment, not the whole DAG. */
#include "run_stream.h"

#include "engine.h"
#include "errors.h"
#include "stages.h"

typedef struct {
    const FennelModel *model;
    uint64_t seed;
    FennelMachine *machine;
    FennelSummary *summary;
    uint64_t tasks, segments, events;
    double simulate_seconds;
} Stream;

static gboolean run_segment(FennelProgram *segment, void *data, GError **error)
{
    Stream *st = data;
    if (st->machine == NULL) {
        st->machine = fennel_machine_new(segment->n_ranks, segment->processes, st->model);
        fennel_machine_set_seed(st->machine, st->seed);
        fennel_summary_init(st->summary, segment->n_ranks);
        FennelInstrument instrument = fennel_summary_instrument(st->summary);
        fennel_machine_add_instrument(st->machine, &instrument);
    }
    double t0 = g_get_monotonic_time() / 1e6;
    gboolean ok = fennel_machine_run(st->machine, segment, error);
    st->simulate_seconds += g_get_monotonic_time() / 1e6 - t0;
    st->tasks += segment->n_tasks;
    st->segments++;
    fennel_program_free(segment);
    return ok;
}

gboolean fennel_run_streamed(const FennelGenerator *g, const FennelGenOptions *o,
                             const FennelModel *model, uint64_t seed, uint64_t segment_tasks,
                             FennelSummary *summary, FennelStreamStats *stats, GError **error)
{
    if (!g->streams) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE,
                    "--stream: generator %s cannot stream (only generators built stage by stage "
                    "alone can: allreduce-rd, allreduce-rm, allgather-rd, allgather-rm)",
                    g->name);
        return FALSE;
    }
    if (fennel_model_contended(model)) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE,
                    "--stream: the %s model receives messages through the receiver's NIC and "
                    "slots, which segments cannot carry over; stream under postal or lbp",
                    model->network->name);
        return FALSE;
    }
    if (model->topology && model->contention != FENNEL_CONTENTION_NONE) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE,
                    "--stream: messages crossing shared links (contention %s) cannot be carried "
                    "over between segments; stream with contention none",
                    fennel_contention_name(model->contention));
        return FALSE;
    }
    Stream st = {.model = model, .seed = seed, .summary = summary};
    FennelSegmentSink sink = {run_segment, &st, segment_tasks};
    FennelGenOptions streamed = *o;
    streamed.sink = &sink;
    FennelProgram *rest = fennel_generate(g, &streamed, error);
    gboolean ok = rest != NULL;
    /* The generator returns what it did not stream: nothing, or a last empty program. */
    if (ok && rest->n_tasks > 0)
        ok = run_segment(rest, &st, error);
    else
        fennel_program_free(rest);
    if (st.machine) {
        stats->events = fennel_machine_events(st.machine);
        fennel_machine_free(st.machine);
    } else {
        fennel_summary_init(summary, 1);
    }
    stats->tasks = st.tasks;
    stats->segments = st.segments;
    stats->simulate_seconds = st.simulate_seconds;
    return ok;
}
