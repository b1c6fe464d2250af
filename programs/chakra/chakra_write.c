/* Writing a program as Chakra execution traces (chakra.h), one per rank, in the framing
 * and field numbers of Chakra's et_def.proto (docs/FORMATS.md). */
#include "chakra.h"

#include "errors.h"
#include "model.h"
#include "protobuf.h"

static void attribute_int(GString *node, const char *name, uint32_t field, int64_t value)
{
    GString *a = g_string_new(NULL);
    fennel_pb_put_string(a, 1, name);
    fennel_pb_put_key(a, field, FENNEL_PB_VARINT);
    fennel_pb_put_varint(a, (uint64_t)value);
    fennel_pb_put_bytes(node, 10, a->str, a->len);
    g_string_free(a, TRUE);
}

/* Appends one Node message, with its length first. */
static void put_node(GString *out, uint64_t id, const char *name, uint32_t type, const GArray *deps,
                     int64_t duration_ps, int64_t size, int64_t peer, int64_t tag,
                     const FennelProgram *p, uint32_t task)
{
    GString *n = g_string_new(NULL);
    fennel_pb_put_uint(n, 1, id);
    fennel_pb_put_string(n, 2, name);
    fennel_pb_put_uint(n, 3, type);
    if (deps->len > 0) {
        GString *packed = g_string_new(NULL);
        for (guint i = 0; i < deps->len; i++)
            fennel_pb_put_varint(packed, g_array_index(deps, uint64_t, i));
        fennel_pb_put_bytes(n, 5, packed->str, packed->len);
        g_string_free(packed, TRUE);
    }
    if (type == FENNEL_CHAKRA_COMP) {
        /* ASTRA-sim reads whole microseconds, rounded to the nearest (without adding half a
         * microsecond first, which overflows near INT64_MAX); fennel reads the exact time back. */
        const uint64_t ps = (uint64_t)duration_ps;
        fennel_pb_put_uint(n, 7, ps / 1000000 + (ps % 1000000 >= 500000));
        attribute_int(n, "fennel_duration_ps", 9, duration_ps);
    }
    attribute_int(n, "is_cpu_op", 27, 0);
    /* What a Chakra node does not say of the task: its slot, in a program of several, and
     * that a compute node stands for a proxy or a sleep (a start's skew). */
    if (p->processes > 1 && p->pin && p->pin[task] != FENNEL_NO_RANK)
        attribute_int(n, "fennel_slot", 9, p->pin[task]);
    if (type == FENNEL_CHAKRA_COMP && p->type[task] != FENNEL_TASK_COMPUTE) {
        GString *a = g_string_new(NULL);
        fennel_pb_put_string(a, 1, "fennel_task");
        fennel_pb_put_string(a, 29, p->type[task] == FENNEL_TASK_PROXY ? "proxy" : "sleep");
        fennel_pb_put_bytes(n, 10, a->str, a->len);
        g_string_free(a, TRUE);
    }
    if (type == FENNEL_CHAKRA_COMM_SEND || type == FENNEL_CHAKRA_COMM_RECV) {
        attribute_int(n, type == FENNEL_CHAKRA_COMM_SEND ? "comm_dst" : "comm_src", 7, peer);
        attribute_int(n, "comm_tag", 7, tag);
        attribute_int(n, "comm_size", 9, size);
    }
    if (type == FENNEL_CHAKRA_COMM_SEND && p->type[task] == FENNEL_TASK_SEND &&
        !(p->flags[task] & FENNEL_TASK_EAGER))
        attribute_int(n, "fennel_rendezvous", 27, 1);
    if (type == FENNEL_CHAKRA_COMM_SEND && p->block_count && p->block_count[task] > 0) {
        /* The blocks it carries, under the names of ASTRA-sim's MSCCL converter. */
        attribute_int(n, "msg_chunk_idx", 9, p->block_first[task]);
        attribute_int(n, "msg_chunk_cnt", 9, p->block_count[task]);
        attribute_int(n, "total_chunk_cnt", 9, p->n_blocks);
    }
    fennel_pb_put_varint(out, n->len);
    g_string_append_len(out, n->str, (gssize)n->len);
    g_string_free(n, TRUE);
}

static gboolean fail(GError **error, const FennelProgram *p, uint32_t t, const char *why)
{
    char buf[24];
    fennel_error_at(error, NULL, 0, 0, "Chakra cannot express task '%s': it %s",
                    fennel_program_task_name(p, t, buf), why);
    return FALSE;
}

/* What Chakra cannot say, named at the first task that says it. */
static gboolean expressible(const FennelProgram *p, const uint32_t *pred_start,
                            const uint32_t *preds, GError **error)
{
    if (p->start_succ_start && p->start_succ_start[p->n_tasks] > 0)
        return fail(error, p, 0, "is in a program with start dependencies");
    for (uint32_t t = 0; t < p->n_tasks; t++) {
        if (p->type[t] == FENNEL_TASK_GET)
            return fail(error, p, t, "is a get (Chakra has sends and receives only)");
        if (p->type[t] == FENNEL_TASK_LOAD_REDUCE || p->type[t] == FENNEL_TASK_MULTICAST)
            return fail(error, p, t,
                        "is an operation of a switch (Chakra has sends and receives only)");
        if (fennel_program_any(p, t))
            return fail(error, p, t, "waits for `any` of its predecessors");
        /* A task of a program of several slots is written with its slot (fennel_slot);
         * one that may run on any, or needs them all, has no place on Chakra's streams.
         * (A start needs them all, at its rank's start, when they are all free.) */
        if (p->processes > 1 && (p->pin == NULL || p->pin[t] == FENNEL_NO_RANK) &&
            p->type[t] != FENNEL_TASK_START)
            return fail(error, p, t, "runs on any slot of several (Chakra's streams need one)");
        if (p->type[t] == FENNEL_TASK_RECV && (p->peer[t] == FENNEL_ANY || p->tag[t] == FENNEL_ANY))
            return fail(error, p, t, "receives from any source or with any tag");
        for (uint32_t i = pred_start[t]; i < pred_start[t + 1]; i++) {
            uint32_t u = preds[i];
            gboolean local = p->rank[u] == p->rank[t];
            gboolean delivered = p->type[u] == FENNEL_TASK_PUT && p->peer[u] == p->rank[t];
            if (!local && !delivered)
                return fail(error, p, t,
                            "depends on a task of another rank other than through a put to it");
        }
    }
    return TRUE;
}

GString **fennel_chakra_write(const FennelProgram *p, const FennelModel *model, GError **error)
{
    /* Predecessors of every task. */
    uint32_t *pred_start = g_new0(uint32_t, p->n_tasks + 1), *preds = g_new(uint32_t, p->n_edges);
    for (uint32_t t = 0; t < p->n_tasks; t++)
        for (FennelEdgeIndex e = p->succ_start[t]; e < p->succ_start[t + 1]; e++)
            pred_start[p->succ[e] + 1]++;
    for (uint32_t t = 0; t < p->n_tasks; t++)
        pred_start[t + 1] += pred_start[t];
    uint32_t *fill = g_memdup2(pred_start, sizeof *pred_start * p->n_tasks);
    for (uint32_t t = 0; t < p->n_tasks; t++)
        for (FennelEdgeIndex e = p->succ_start[t]; e < p->succ_start[t + 1]; e++)
            preds[fill[p->succ[e]]++] = t;
    g_free(fill);
    if (!expressible(p, pred_start, preds, error)) {
        g_free(pred_start);
        g_free(preds);
        return NULL;
    }
    /* Tags for puts, above every tag the program uses. */
    uint64_t tag = 0;
    for (uint32_t t = 0; p->tag && t < p->n_tasks; t++)
        if (p->type[t] == FENNEL_TASK_SEND || p->type[t] == FENNEL_TASK_RECV)
            tag = MAX(tag, (uint64_t)p->tag[t] + 1);
    uint32_t *put_tag = g_new0(uint32_t, p->n_tasks);
    gboolean ok = TRUE;
    for (uint32_t t = 0; t < p->n_tasks; t++)
        if (p->type[t] == FENNEL_TASK_PUT) {
            if (tag >= INT32_MAX) {
                ok = fail(error, p, t, "needs a tag above the largest Chakra has");
                break;
            }
            put_tag[t] = (uint32_t)tag++;
        }
    GString **out = g_new0(GString *, p->n_ranks + 1);
    for (uint32_t r = 0; r < p->n_ranks; r++) {
        out[r] = g_string_new(NULL);
        GString *meta = g_string_new(NULL);
        fennel_pb_put_string(meta, 1, "0.0.4");
        GString *ranks = g_string_new(NULL);
        fennel_pb_put_string(ranks, 1, "fennel_ranks");
        fennel_pb_put_key(ranks, 9, FENNEL_PB_VARINT);
        fennel_pb_put_varint(ranks, p->n_ranks);
        fennel_pb_put_bytes(meta, 2, ranks->str, ranks->len);
        if (p->processes > 1) {
            g_string_truncate(ranks, 0);
            fennel_pb_put_string(ranks, 1, "fennel_processes");
            fennel_pb_put_key(ranks, 9, FENNEL_PB_VARINT);
            fennel_pb_put_varint(ranks, p->processes);
            fennel_pb_put_bytes(meta, 2, ranks->str, ranks->len);
        }
        g_string_free(ranks, TRUE);
        if (p->collective) {
            /* What the program performs, as ASTRA-sim's MSCCL converter says it. */
            GString *a = g_string_new(NULL);
            fennel_pb_put_string(a, 1, "collective");
            fennel_pb_put_string(a, 29, p->collective);
            fennel_pb_put_bytes(meta, 2, a->str, a->len);
            g_string_free(a, TRUE);
            if (p->root != FENNEL_NO_RANK) {
                g_string_truncate(a = g_string_new(NULL), 0);
                fennel_pb_put_string(a, 1, "root");
                fennel_pb_put_key(a, 9, FENNEL_PB_VARINT);
                fennel_pb_put_varint(a, p->root);
                fennel_pb_put_bytes(meta, 2, a->str, a->len);
                g_string_free(a, TRUE);
            }
        }
        fennel_pb_put_varint(out[r], meta->len);
        g_string_append_len(out[r], meta->str, (gssize)meta->len);
        g_string_free(meta, TRUE);
    }
    /* A put's receive: node n_tasks + put on the target, depending on nothing, so that it
     * is posted at once, as a put needs no receive. */
    GArray *deps = g_array_new(FALSE, FALSE, sizeof(uint64_t));
    char name[40];
    for (uint32_t t = 0; ok && t < p->n_tasks; t++)
        if (p->type[t] == FENNEL_TASK_PUT) {
            g_snprintf(name, sizeof name, "recv of t%u", t);
            put_node(out[p->peer[t]], (uint64_t)p->n_tasks + t, name, FENNEL_CHAKRA_COMM_RECV, deps,
                     0, p->amount[t], p->rank[t], put_tag[t], p, t);
        }
    for (uint32_t t = 0; ok && t < p->n_tasks; t++) {
        g_array_set_size(deps, 0);
        for (uint32_t i = pred_start[t]; i < pred_start[t + 1]; i++) {
            uint32_t u = preds[i];
            uint64_t id = p->type[u] == FENNEL_TASK_PUT && p->peer[u] == p->rank[t] &&
                                  (p->rank[u] != p->rank[t] || p->peer[u] == p->rank[u])
                              ? (uint64_t)p->n_tasks + u
                              : u;
            g_array_append_val(deps, id);
        }
        char buf[24];
        const char *task_name = fennel_program_task_name(p, t, buf);
        int64_t d = 0;
        uint32_t type = FENNEL_CHAKRA_COMP;
        int64_t peer = 0, size = 0, t_tag = 0;
        switch ((FennelTaskType)p->type[t]) {
        case FENNEL_TASK_START:
        case FENNEL_TASK_SLEEP:
            d = p->amount[t];
            break;
        case FENNEL_TASK_PROXY:
            break;
        case FENNEL_TASK_COMPUTE:
            if (p->flags[t] & FENNEL_TASK_SIZED) {
                if (model == NULL) {
                    ok = fail(error, p, t, "is a sized compute: give --model for its duration");
                    break;
                }
                d = model->compute->duration(model, p->amount[t]);
            } else {
                d = p->amount[t];
            }
            break;
        case FENNEL_TASK_PUT:
        case FENNEL_TASK_SEND:
            type = FENNEL_CHAKRA_COMM_SEND;
            peer = p->peer[t];
            size = p->amount[t];
            t_tag = p->type[t] == FENNEL_TASK_PUT ? put_tag[t] : p->tag[t];
            break;
        case FENNEL_TASK_RECV:
            type = FENNEL_CHAKRA_COMM_RECV;
            peer = p->peer[t];
            size = p->amount[t];
            t_tag = p->tag[t];
            break;
        case FENNEL_TASK_GET:
        case FENNEL_TASK_LOAD_REDUCE:
        case FENNEL_TASK_MULTICAST:
        case FENNEL_TASK_N_TYPES: /* refused above */
            g_assert_not_reached();
        }
        if (ok)
            put_node(out[p->rank[t]], t, task_name, type, deps, d, size, peer, t_tag, p, t);
    }
    g_array_unref(deps);
    g_free(put_tag);
    g_free(pred_start);
    g_free(preds);
    if (!ok) {
        for (uint32_t r = 0; r < p->n_ranks; r++)
            g_string_free(out[r], TRUE);
        g_free(out);
        return NULL;
    }
    return out;
}
