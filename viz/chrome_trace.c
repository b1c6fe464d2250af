/* Chrome Trace Event / Perfetto JSON export of a traced run. */
#include "chrome_trace.h"

#include "json.h"

/* The NIC threads of a rank come after its slots. */
enum { NIC_SEND_THREAD = 0, NIC_RECV_THREAD = 1 };

/* Picoseconds as microseconds, exactly: "0.6032", "12", "1.000001". */
static void append_us(GString *out, FennelTime ps)
{
    if (ps < 0) {
        g_string_append_c(out, '-');
        ps = -ps;
    }
    g_string_append_printf(out, "%" G_GINT64_FORMAT, ps / 1000000);
    FennelTime frac = ps % 1000000;
    if (frac == 0)
        return;
    char digits[8];
    g_snprintf(digits, sizeof digits, "%06" G_GINT64_FORMAT, frac);
    int n = 6;
    while (digits[n - 1] == '0')
        n--;
    digits[n] = '\0';
    g_string_append_printf(out, ".%s", digits);
}

static void append_ns(GString *out, const char *key, FennelTime ps)
{
    char buf[FENNEL_TIME_BUF];
    g_string_append_printf(out, ",\"%s\":%s", key, fennel_format_ns(ps, buf));
}

/* The fields every event has: name, category, phase X, time, duration, lane. */
static void begin_event(GString *out, gboolean *first, const char *name, const char *cat,
                        FennelTime ts, FennelTime dur, uint32_t pid, uint32_t tid)
{
    g_string_append(out, *first ? "\n" : ",\n");
    *first = FALSE;
    g_string_append(out, "{\"name\":");
    fennel_json_string(out, name);
    g_string_append_printf(out, ",\"cat\":\"%s\",\"ph\":\"X\",\"ts\":", cat);
    append_us(out, ts);
    g_string_append(out, ",\"dur\":");
    append_us(out, dur);
    g_string_append_printf(out, ",\"pid\":%u,\"tid\":%u", pid, tid);
}

static void metadata(GString *out, gboolean *first, uint32_t n_ranks, uint32_t processes,
                     gboolean nics)
{
    for (uint32_t r = 0; r < n_ranks; r++) {
        g_string_append(out, *first ? "\n" : ",\n");
        *first = FALSE;
        g_string_append_printf(out,
                               "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%u,"
                               "\"args\":{\"name\":\"rank %u\"}},\n"
                               "{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":%u,"
                               "\"args\":{\"sort_index\":%u}}",
                               r, r, r, r);
        for (uint32_t s = 0; s < processes; s++)
            g_string_append_printf(out,
                                   ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%u,"
                                   "\"tid\":%u,\"args\":{\"name\":\"slot %u\"}}",
                                   r, s, s);
        if (nics)
            g_string_append_printf(out,
                                   ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%u,"
                                   "\"tid\":%u,\"args\":{\"name\":\"NIC send\"}},"
                                   "\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%u,"
                                   "\"tid\":%u,\"args\":{\"name\":\"NIC receive\"}}",
                                   r, processes + NIC_SEND_THREAD, r, processes + NIC_RECV_THREAD);
    }
}

/* Slots and NICs busy for a message outside its task's own event: receive overheads
 * and rendezvous waits on the slot's thread, NIC gaps on two more threads per rank. */
static void write_busy(const FennelTraceRun *r, GString *out, gboolean *first, uint32_t processes)
{
    const FennelProgram *p = r->program;
    char name[24];
    for (guint i = 0; i < r->busy->len; i++) {
        const FennelTraceBusy *b = &g_array_index(r->busy, FennelTraceBusy, i);
        const char *cat, *what;
        uint32_t tid = b->slot;
        switch (b->kind) {
        case FENNEL_BUSY_RECEIVE:
            cat = "receive-overhead", what = "receive";
            break;
        case FENNEL_BUSY_WAIT:
            cat = "wait", what = "wait for";
            break;
        case FENNEL_BUSY_NIC_SEND:
            cat = "nic-send-gap", what = "NIC send gap of";
            tid = processes + NIC_SEND_THREAD;
            break;
        case FENNEL_BUSY_NIC_RECV:
            cat = "nic-recv-gap", what = "NIC receive gap of";
            tid = processes + NIC_RECV_THREAD;
            break;
        default:
            cat = "busy", what = "busy for";
            break;
        }
        char *label = g_strdup_printf("%s %s", what, fennel_program_task_name(p, b->task, name));
        begin_event(out, first, label, cat, b->from, b->until - b->from, b->rank, tid);
        g_string_append(out, "}");
        g_free(label);
    }
}

/* Under contention fair: the pieces of the message's flow, each with the share of its rate
 * alone that its bytes had. */
static void append_flow(const FennelTraceRun *r, const FennelTraceMessage *m, GString *out)
{
    guint n;
    const FennelTraceFlow *f = fennel_trace_flow(r, m->task, m->src, &n);
    if (n == 0)
        return;
    g_string_append(out, ",\"flow\":[");
    for (guint i = 0; i < n; i++) {
        char ns[FENNEL_TIME_BUF], share[G_ASCII_DTOSTR_BUF_SIZE];
        g_string_append_printf(out, "%s{\"from_ns\":%s", i ? "," : "",
                               fennel_format_ns(f[i].from, ns));
        append_ns(out, "until_ns", f[i].until);
        g_string_append_printf(out, ",\"share\":%s}",
                               g_ascii_formatd(share, sizeof share, "%.9g", f[i].share));
    }
    g_string_append_c(out, ']');
}

static void write_run(const FennelTraceRun *r, GString *out, gboolean *first, uint64_t *flow,
                      uint32_t processes)
{
    const FennelProgram *p = r->program;
    /* The flow that each task's own event starts: its first message from its own rank. */
    uint64_t *task_flow = g_new0(uint64_t, p->n_tasks ? p->n_tasks : 1);
    const uint64_t base = *flow;
    for (guint i = 0; i < r->messages->len; i++) {
        const FennelTraceMessage *m = &g_array_index(r->messages, FennelTraceMessage, i);
        if (m->src == p->rank[m->task] && task_flow[m->task] == 0)
            task_flow[m->task] = base + i + 1;
    }
    char name[24];
    for (uint32_t k = 0; k < p->n_tasks; k++) {
        if (r->start[k] == FENNEL_TIME_MIN)
            continue;
        begin_event(out, first, fennel_program_task_name(p, k, name),
                    fennel_task_type_name(p->type[k]), r->start[k], r->end[k] - r->start[k],
                    p->rank[k], r->slot[k]);
        if (task_flow[k])
            g_string_append_printf(out, ",\"bind_id\":%" G_GUINT64_FORMAT ",\"flow_out\":true",
                                   task_flow[k]);
        g_string_append(out, ",\"args\":{\"ready_ns\":");
        char ns[FENNEL_TIME_BUF];
        g_string_append(out, fennel_format_ns(r->ready[k], ns));
        append_ns(out, "completion_ns", r->completion[k]);
        if (p->type[k] == FENNEL_TASK_PUT || p->type[k] == FENNEL_TASK_GET ||
            p->type[k] == FENNEL_TASK_SEND || p->type[k] == FENNEL_TASK_RECV) {
            uint32_t peer = fennel_trace_peer(r, k);
            if (peer != FENNEL_NO_RANK)
                g_string_append_printf(out, ",\"peer\":%u", peer);
            g_string_append_printf(out, ",\"bytes\":%" G_GINT64_FORMAT, p->amount[k]);
        }
        if (r->noise[k] != 0)
            append_ns(out, "noise_ns", r->noise[k]);
        g_string_append(out, "}}");
    }
    write_busy(r, out, first, processes);
    for (guint i = 0; i < r->messages->len; i++) {
        const FennelTraceMessage *m = &g_array_index(r->messages, FennelTraceMessage, i);
        const uint64_t id = base + i + 1;
        char *label;
        if (task_flow[m->task] != id) {
            /* A message its task's event does not start (a get's response): it leaves
             * from a zero-length event on its source. */
            label = g_strdup_printf("response of %s", fennel_program_task_name(p, m->task, name));
            begin_event(out, first, label, "message", m->sent, 0, m->src, 0);
            g_string_append_printf(out, ",\"bind_id\":%" G_GUINT64_FORMAT ",\"flow_out\":true}",
                                   id);
            g_free(label);
        }
        label = g_strdup_printf("arrival of %s", fennel_program_task_name(p, m->task, name));
        begin_event(out, first, label, "message", m->arrived, 0, m->dst, 0);
        g_free(label);
        g_string_append_printf(out, ",\"bind_id\":%" G_GUINT64_FORMAT ",\"flow_in\":true", id);
        g_string_append_printf(out, ",\"args\":{\"from\":%u,\"bytes\":%" G_GINT64_FORMAT, m->src,
                               m->bytes);
        append_ns(out, "sent_ns", m->sent);
        if (m->noise != 0)
            append_ns(out, "noise_ns", m->noise);
        if (m->link_wait != 0)
            append_ns(out, "link_wait_ns", m->link_wait);
        append_flow(r, m, out);
        g_string_append(out, "}}");
    }
    *flow = base + r->messages->len;
    g_free(task_flow);
}

void fennel_chrome_trace_write(const FennelTrace *trace, uint32_t n_ranks, uint32_t processes,
                               const char *about, GString *out)
{
    g_string_append(
        out,
        "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":\"fennel " FENNEL_VERSION "\"");
    if (about) {
        g_string_append(out, ",\"model\":");
        fennel_json_string(out, about);
    }
    /* The programs run, in order (several files run one after another). */
    g_string_append(out, ",\"programs\":[");
    for (guint i = 0; i < trace->runs->len; i++) {
        const FennelTraceRun *r = g_ptr_array_index(trace->runs, i);
        if (i)
            g_string_append_c(out, ',');
        fennel_json_string(out, r->program->name ? r->program->name : "");
    }
    g_string_append(out, "]},\"traceEvents\":[");
    gboolean first = TRUE;
    uint64_t flow = 0;
    /* NIC threads only for runs whose model has NIC gaps (LogP, LogGP). */
    gboolean nics = FALSE;
    for (guint i = 0; i < trace->runs->len; i++) {
        const FennelTraceRun *r = g_ptr_array_index(trace->runs, i);
        for (guint k = 0; k < r->busy->len && !nics; k++) {
            FennelBusyKind kind = g_array_index(r->busy, FennelTraceBusy, k).kind;
            nics = kind == FENNEL_BUSY_NIC_SEND || kind == FENNEL_BUSY_NIC_RECV;
        }
    }
    metadata(out, &first, n_ranks, MAX(processes, 1), nics);
    for (guint i = 0; i < trace->runs->len; i++)
        write_run(g_ptr_array_index(trace->runs, i), out, &first, &flow, MAX(processes, 1));
    g_string_append(out, "\n]}\n");
}
