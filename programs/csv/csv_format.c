/* The tasks of a program as CSV (docs/FORMATS.md, Task lists as CSV): one row per task in
 * program order, for a spreadsheet or a data-frame library (pandas: read_csv(path,
 * comment="#")). Written only; the columns say what the engine runs, not the names a file
 * gave its tasks, so a task is its number. */
#include "formats.h"

#include "units.h"

/* For every task, the tasks before it along edges of one kind (successor lists turned
 * around): preds[start[t] .. start[t+1]). */
typedef struct {
    uint64_t *start;
    uint32_t *preds;
} Before;

static Before turn_around(uint32_t n, const FennelEdgeIndex *succ_start, const uint32_t *succ)
{
    Before b = {g_new0(uint64_t, (gsize)n + 1), NULL};
    uint64_t edges = succ_start ? succ_start[n] : 0;
    b.preds = g_new(uint32_t, edges ? edges : 1);
    for (uint64_t e = 0; e < edges; e++)
        b.start[succ[e] + 1]++;
    for (uint32_t t = 0; t < n; t++)
        b.start[t + 1] += b.start[t];
    uint64_t *at = g_memdup2(b.start, ((gsize)n + 1) * sizeof *at);
    for (uint32_t t = 0; t < n && edges; t++) {
        for (FennelEdgeIndex e = succ_start[t]; e < succ_start[t + 1]; e++)
            b.preds[at[succ[e]]++] = t;
    }
    g_free(at);
    return b;
}

static void append_before(GString *out, const Before *b, uint32_t t)
{
    g_string_append_c(out, ',');
    for (uint64_t e = b->start[t]; e < b->start[t + 1]; e++)
        g_string_append_printf(out, "%s%u", e > b->start[t] ? " " : "", b->preds[e]);
}

static void append_ns(GString *out, FennelTime t)
{
    char buf[FENNEL_TIME_BUF];
    g_string_append_printf(out, ",,%s,", fennel_format_ns(t, buf));
}

/* peer, bytes, ns and tag, each empty where the task type has none. */
static void append_fields(const FennelProgram *p, uint32_t t, GString *out)
{
    int64_t amount = p->amount[t];
    uint32_t tag = p->tag ? p->tag[t] : 0;
    switch ((FennelTaskType)p->type[t]) {
    case FENNEL_TASK_START:
    case FENNEL_TASK_SLEEP:
        g_string_append_c(out, ',');
        append_ns(out, amount);
        break;
    case FENNEL_TASK_COMPUTE:
        if (p->flags[t] & FENNEL_TASK_SIZED) {
            g_string_append_printf(out, ",,%" G_GINT64_FORMAT ",,", amount);
        } else {
            g_string_append_c(out, ',');
            append_ns(out, amount);
        }
        break;
    case FENNEL_TASK_PUT:
    case FENNEL_TASK_GET:
        g_string_append_printf(out, ",%u,%" G_GINT64_FORMAT ",,", p->peer[t], amount);
        break;
    case FENNEL_TASK_SEND:
    case FENNEL_TASK_RECV:
        if (p->peer[t] == FENNEL_ANY)
            g_string_append(out, ",any");
        else
            g_string_append_printf(out, ",%u", p->peer[t]);
        g_string_append_printf(out, ",%" G_GINT64_FORMAT ",,", amount);
        if (tag == FENNEL_ANY)
            g_string_append(out, "any");
        else
            g_string_append_printf(out, "%u", tag);
        break;
    case FENNEL_TASK_LOAD_REDUCE:
    case FENNEL_TASK_MULTICAST: /* the group: its first rank as the peer, its size as the tag */
        g_string_append_printf(out, ",%u,%" G_GINT64_FORMAT ",,%u", p->peer[t], amount, tag);
        break;
    default: /* proxy */
        g_string_append(out, ",,,,");
        break;
    }
}

static gboolean write_csv(const FennelProgram *p, const struct FennelModel *model, FennelSink *sink,
                          GError **error)
{
    (void)model, (void)error;
    GString *out = sink->text;
    uint32_t n = p->n_tasks;
    Before after = turn_around(n, p->succ_start, p->succ);
    Before after_start = turn_around(n, p->start_succ_start, p->start_succ);
    g_string_append(out, "task,rank,type,peer,bytes,ns,tag,after,after_start\n");
    for (uint32_t t = 0; t < n; t++) {
        g_string_append_printf(out, "%u,%u,%s", t, p->rank[t], fennel_task_type_name(p->type[t]));
        append_fields(p, t, out);
        append_before(out, &after, t);
        append_before(out, &after_start, t);
        g_string_append_c(out, '\n');
        fennel_sink_spill(sink);
    }
    g_free(after.start);
    g_free(after.preds);
    g_free(after_start.start);
    g_free(after_start.preds);
    return TRUE;
}

const FennelFormatClass fennel_format_csv = {
    .name = "csv",
    .description = "the tasks as CSV, one row each (rank, type, peer, bytes, ns, tag, after), "
                   "for spreadsheets and data frames",
    .write = write_csv,
    .comment = "# ",
};
