/* Shared by the model and ordering tests: run a YAML program under a YAML model and keep
 * every task's start and completion times and the run's summary, looked up by task id. */
#ifndef FENNEL_TEST_RUN_HELPERS_H
#define FENNEL_TEST_RUN_HELPERS_H

#include "engine.h"
#include "errors.h"
#include "program_io.h"
#include "summary.h"

#include <string.h>

#define NS(x) ((FennelTime)((x)*1000))

typedef struct {
    FennelTime start[64], completion[64], own[64];
} Times;

static inline void observe(void *data, const FennelProgram *p, const FennelEvent *ev)
{
    (void)p;
    Times *t = data;
    if (ev->kind == FENNEL_EVENT_STARTED)
        t->start[ev->task] = ev->time;
    else if (ev->kind == FENNEL_EVENT_COMPLETED) {
        t->completion[ev->task] = ev->completion;
        t->own[ev->task] = ev->issuer_completion;
    }
}

typedef struct {
    FennelProgram *p;
    FennelModel model;
    Times times;
    FennelSummary summary;
    gboolean ok;
    GError *error;
} Result;

static inline Result *simulate(const char *program, const char *model, uint64_t seed)
{
    Result *r = g_new0(Result, 1);
    GError *error = NULL;
    r->p = fennel_program_parse_yaml("test.yaml", program, strlen(program), &error);
    g_assert_no_error(error);
    fennel_model_init(&r->model);
    g_assert_true(fennel_model_parse(&r->model, "model.yaml", model, strlen(model), &error));
    g_assert_no_error(error);
    FennelMachine *m = fennel_machine_new(r->p->n_ranks, r->p->processes, &r->model);
    fennel_machine_set_seed(m, seed);
    FennelInstrument ins = {.mask = FENNEL_EVENT_STARTED | FENNEL_EVENT_COMPLETED,
                            .observe = observe,
                            .data = &r->times};
    fennel_machine_add_instrument(m, &ins);
    fennel_summary_init(&r->summary, r->p->n_ranks);
    FennelInstrument sum = fennel_summary_instrument(&r->summary);
    fennel_machine_add_instrument(m, &sum);
    r->ok = fennel_machine_run(m, r->p, &r->error);
    fennel_machine_free(m);
    return r;
}

static inline void result_free(Result *r)
{
    fennel_program_free(r->p);
    fennel_model_clear(&r->model);
    fennel_summary_clear(&r->summary);
    g_clear_error(&r->error);
    g_free(r);
}

/* The index of a task by id. */
static inline uint32_t T(const Result *r, const char *id)
{
    for (uint32_t t = 0; t < r->p->n_tasks; t++) {
        if (strcmp(r->p->task_name[t], id) == 0)
            return t;
    }
    g_error("no task %s", id);
}

#endif
