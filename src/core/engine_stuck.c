/* The report of a run whose tasks did not all complete (engine rule 6, docs/SEMANTICS.md). */
#include "engine_private.h"

/* What a task that never completed waits for, for the error message. */
static void describe_wait(const Run *run, uint32_t t, GString *text)
{
    const FennelProgram *p = run->p;
    char buf[24], buf2[24];
    const char *name = fennel_program_task_name(p, t, buf);
    if (p->type[t] == FENNEL_TASK_RECV && task_state(run, t) == TASK_RUNNING) {
        char src[24], tag[24];
        uint32_t tg = p->tag ? p->tag[t] : 0;
        g_snprintf(src, sizeof src, "rank %u", p->peer[t]);
        g_snprintf(tag, sizeof tag, "tag %u", tg);
        g_string_append_printf(text, "recv '%s' on rank %u waits for a message from %s with %s",
                               name, p->rank[t], p->peer[t] == FENNEL_ANY ? "any rank" : src,
                               tg == FENNEL_ANY ? "any tag" : tag);
        return;
    }
    if (p->type[t] == FENNEL_TASK_SEND && task_state(run, t) == TASK_RUNNING) {
        g_string_append_printf(text, "send '%s' waits for a matching recv on rank %u", name,
                               p->peer[t]);
        return;
    }
    g_string_append_printf(text, "'%s' waits for", name);
    /* Predecessors that never completed: scan the successor lists (error path only). */
    uint32_t listed = 0;
    for (uint32_t q = 0; q < p->n_tasks && listed < 4; q++) {
        if (task_state(run, q) == TASK_DONE)
            continue;
        gboolean found = FALSE;
        for (uint64_t e = p->succ_start[q]; e < p->succ_start[q + 1]; e++)
            found |= p->succ[e] == t;
        for (uint64_t e = p->start_succ ? p->start_succ_start[q] : 0;
             p->start_succ && e < p->start_succ_start[q + 1]; e++)
            found |= p->start_succ[e] == t && task_state(run, q) == TASK_WAITING;
        if (found)
            g_string_append_printf(text, "%s '%s'", listed++ ? "," : "",
                                   fennel_program_task_name(p, q, buf2));
    }
    if (listed == 0)
        g_string_append(text, " predecessors that never completed");
}

/* Names the tasks that never completed and what each waits for (engine rule 6, docs/SEMANTICS.md).
 * The tasks shown first are those blocked on a message, then the others in program order. */
void fennel__engine_report_stuck(const Run *run, GError **error)
{
    const FennelProgram *p = run->p;
    uint32_t stuck = 0, first = UINT32_MAX;
    for (uint32_t t = 0; t < p->n_tasks; t++) {
        if (task_state(run, t) == TASK_DONE)
            continue;
        stuck++;
        if (first == UINT32_MAX ||
            (task_state(run, t) == TASK_RUNNING && task_state(run, first) != TASK_RUNNING))
            first = t;
    }
    GString *text = g_string_new(NULL);
    g_string_append_printf(text, "%u task%s never completed: ", stuck, stuck == 1 ? "" : "s");
    uint32_t shown = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t t = 0; t < p->n_tasks && shown < 5; t++) {
            if (task_state(run, t) == TASK_DONE ||
                (task_state(run, t) == TASK_RUNNING) != (pass == 0))
                continue;
            if (shown++)
                g_string_append(text, "; ");
            describe_wait(run, t, text);
        }
    }
    if (stuck > shown)
        g_string_append_printf(text, "; and %u more", stuck - shown);
    fennel_error_at_code(error, FENNEL_ERROR_RUN, p->source, p->line ? p->line[first] : 0,
                         p->col ? p->col[first] : 0, "%s", text->str);
    g_string_free(text, TRUE);
}
