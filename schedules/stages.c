#include "stages.h"

#include "errors.h"

#include <string.h>

typedef struct {
    uint32_t src, dst;
    int64_t bytes;
    uint32_t block_first, block_count; /* count 0: the whole vector */
} Message;

struct FennelStages {
    uint32_t ranks;
    FennelSegmentSink sink; /* func NULL: the whole program is built */
    FennelLimits limits;    /* of every segment's builder */
    GError *error;          /* a segment failed: later ones are dropped */
    uint64_t segments;
    uint32_t stage; /* the stages closed so far, for the tasks' names */
    FennelProgramBuilder *b;
    uint32_t *entry;     /* per rank */
    GArray *messages;    /* of the current stage */
    uint32_t *first;     /* per rank + 1: CSR of the stage's messages by source */
    uint32_t *order;     /* message indices sorted by source, stable */
    uint32_t *put_task;  /* per message */
    int64_t *received;   /* per rank: bytes received in the stage, -1 if none */
    uint32_t *collector; /* per rank: the task incoming puts feed (compute or proxy) */
    const uint32_t *map; /* fennel_stages_map: the real rank of each put's src and dst */
};

FennelStages *fennel_stages_new_within(uint32_t ranks, const FennelLimits *limits,
                                       const FennelSegmentSink *sink)
{
    FennelStages *s = g_new0(FennelStages, 1);
    s->ranks = ranks;
    if (sink && sink->func) {
        s->sink = *sink;
        if (s->sink.max_tasks == 0)
            s->sink.max_tasks = 1;
    }
    s->limits = limits ? *limits : (FennelLimits){0};
    s->b = fennel_builder_new();
    fennel_builder_set_limits(s->b, &s->limits);
    /* Edges only go from a stage to itself or the next, and within a stage from entries
     * to puts to computes to proxies: no cycle is possible. */
    fennel_builder_set_acyclic(s->b);
    fennel_builder_set_stage(s->b, 0);
    s->entry = g_new(uint32_t, ranks);
    s->first = g_new(uint32_t, ranks + 1);
    s->received = g_new(int64_t, ranks);
    s->collector = g_new(uint32_t, ranks);
    s->messages = g_array_new(FALSE, FALSE, sizeof(Message));
    for (uint32_t r = 0; r < ranks; r++) {
        uint32_t start = fennel_builder_add(s->b, FENNEL_TASK_START, r);
        s->entry[r] = fennel_builder_add(s->b, FENNEL_TASK_PROXY, r);
        fennel_builder_add_edge(s->b, start, s->entry[r]);
    }
    return s;
}

void fennel_stages_map(FennelStages *s, const uint32_t *map)
{
    s->map = map;
}

void fennel_stages_put(FennelStages *s, uint32_t src, uint32_t dst, int64_t bytes)
{
    fennel_stages_put_blocks(s, src, dst, bytes, 0, 0);
}

void fennel_stages_put_blocks(FennelStages *s, uint32_t src, uint32_t dst, int64_t bytes,
                              uint32_t first, uint32_t count)
{
    Message m = {s->map ? s->map[src] : src, s->map ? s->map[dst] : dst, bytes, first, count};
    g_array_append_val(s->messages, m);
}

FennelProgramBuilder *fennel_stages_builder(FennelStages *s)
{
    return s->b;
}

/* Hands the program built so far to the sink and starts the next segment: a start task
 * per rank stands for the rank's last closing proxy, which every later task of the rank
 * follows (directly or through other tasks of the rank). */
static void flush(FennelStages *s)
{
    FennelProgramBuilder *b = s->b;
    if (s->error == NULL) {
        FennelProgram *p = fennel_builder_finish(b, NULL, s->ranks, 1, &s->error);
        if (p && !s->sink.func(p, s->sink.data, &s->error) && s->error == NULL)
            g_set_error(&s->error, FENNEL_ERROR, FENNEL_ERROR_RUN, "a program segment failed");
    } else {
        fennel_builder_free(b);
    }
    s->segments++;
    s->b = fennel_builder_new();
    fennel_builder_set_limits(s->b, &s->limits);
    fennel_builder_set_acyclic(s->b);
    fennel_builder_set_stage(s->b, s->stage);
    for (uint32_t r = 0; r < s->ranks; r++)
        s->entry[r] = fennel_builder_add(s->b, FENNEL_TASK_START, r);
}

void fennel_stages_close(FennelStages *s, gboolean reducing)
{
    guint n = s->messages->len;
    if (n == 0)
        return;
    const Message *msg = (const Message *)s->messages->data;
    FennelProgramBuilder *b = s->b;
    /* Tasks a generator adds after this stage (between stages) are named with it. */
    fennel_builder_set_stage(b, ++s->stage);

    /* Group the stage's messages by source, keeping their order. */
    memset(s->first, 0, sizeof(uint32_t) * (s->ranks + 1));
    for (uint32_t r = 0; r < s->ranks; r++)
        s->received[r] = -1;
    for (guint i = 0; i < n; i++) {
        s->first[msg[i].src + 1]++;
        /* Saturate rather than overflow for absurd sizes (the compute then lasts "forever",
         * and the engine reports the overflow). */
        int64_t sum, before = MAX(s->received[msg[i].dst], 0);
        if (__builtin_add_overflow(before, msg[i].bytes, &sum))
            sum = INT64_MAX;
        s->received[msg[i].dst] = sum;
    }
    for (uint32_t r = 0; r < s->ranks; r++)
        s->first[r + 1] += s->first[r];
    s->order = g_renew(uint32_t, s->order, n);
    s->put_task = g_renew(uint32_t, s->put_task, n);
    uint32_t *fill = g_memdup2(s->first, sizeof(uint32_t) * s->ranks);
    for (guint i = 0; i < n; i++)
        s->order[fill[msg[i].src]++] = i;
    g_free(fill);

    /* Rank by rank: puts, compute, closing proxy. */
    for (uint32_t r = 0; r < s->ranks; r++) {
        gboolean sends = s->first[r + 1] > s->first[r], receives = s->received[r] >= 0;
        if (!sends && !receives)
            continue;
        for (uint32_t k = s->first[r]; k < s->first[r + 1]; k++) {
            const Message *m = &msg[s->order[k]];
            uint32_t put = fennel_builder_add(b, FENNEL_TASK_PUT, r);
            fennel_builder_set_peer(b, put, m->dst);
            fennel_builder_set_amount(b, put, m->bytes);
            if (m->block_count > 0)
                fennel_builder_set_blocks(b, put, m->block_first, m->block_count);
            fennel_builder_add_edge(b, s->entry[r], put);
            s->put_task[s->order[k]] = put;
        }
        uint32_t before_proxy = s->entry[r];
        if (receives && reducing) {
            uint32_t c = fennel_builder_add(b, FENNEL_TASK_COMPUTE, r);
            fennel_builder_set_flags(b, c, FENNEL_TASK_SIZED);
            fennel_builder_set_amount(b, c, s->received[r]);
            fennel_builder_add_edge(b, s->entry[r], c);
            before_proxy = c;
        }
        uint32_t x = fennel_builder_add(b, FENNEL_TASK_PROXY, r);
        fennel_builder_add_edge(b, before_proxy, x);
        s->collector[r] = before_proxy == s->entry[r] ? x : before_proxy;
        s->entry[r] = x;
    }
    for (guint i = 0; i < n; i++)
        fennel_builder_add_edge(b, s->put_task[i], s->collector[msg[i].dst]);
    g_array_set_size(s->messages, 0);
    if (s->sink.func && fennel_builder_n_tasks(b) >= s->sink.max_tasks)
        flush(s);
}

FennelProgram *fennel_stages_finish(FennelStages *s, gboolean reducing, GError **error)
{
    fennel_stages_close(s, reducing);
    if (s->sink.func) {
        flush(s);
        /* What is left is the next segment's start tasks: nothing to run. */
        fennel_builder_free(s->b);
        s->b = fennel_builder_new();
        if (s->error) {
            g_propagate_error(error, s->error);
            s->error = NULL;
            fennel_builder_free(s->b);
            s->b = NULL;
        }
    }
    FennelProgramBuilder *b = s->b;
    g_free(s->entry);
    g_free(s->first);
    g_free(s->order);
    g_free(s->put_task);
    g_free(s->received);
    g_free(s->collector);
    g_array_free(s->messages, TRUE);
    uint32_t ranks = s->ranks;
    g_free(s);
    if (b == NULL)
        return NULL;
    return fennel_builder_finish(b, NULL, ranks, 1, error);
}
