/* The YAML program writer (README, Program files): one flow mapping per task, in program order, so
 * that the file reads back as the same program (same tasks in the same order, same
 * edges, so the same times). Ids are the tasks' names when every task has a distinct
 * valid one (a program read from a file), else t0, t1, ... by task number. Durations
 * are written in nanoseconds with up to three decimals, which is exact for picoseconds.
 *
 * What `fennel verify` needs is written too: the collective, its root and the vector's
 * block count at the top, and on each put or send the blocks it carries (`data: A..B`).
 * What the format cannot say is left out, with a comment saying so: start dependencies
 * (from GOAL files). */
#include "program_io.h"
#include "yaml_notes_private.h"

#include <string.h>

/* An id the YAML reader takes back as a plain scalar in a flow sequence: a ':' at its end
 * would read as a key ("a:]"), and one at its start, or a '-' or '.', makes some YAML
 * readers see an indicator. */
static gboolean valid_id(const char *s)
{
    if (s == NULL || *s == '\0' || !(g_ascii_isalnum(*s) || *s == '_') || s[strlen(s) - 1] == ':')
        return FALSE;
    for (; *s; s++) {
        if (!g_ascii_isalnum(*s) && *s != '_' && *s != '.' && *s != ':' && *s != '-')
            return FALSE;
    }
    return TRUE;
}

/* TRUE when every task has a distinct valid name. */
static gboolean names_usable(const FennelProgram *p)
{
    if (fennel_program_own_names(p) == NULL)
        return FALSE;
    GHashTable *seen = g_hash_table_new(g_str_hash, g_str_equal);
    gboolean ok = TRUE;
    for (uint32_t t = 0; t < p->n_tasks && ok; t++) {
        const char *name = p->task_name[t];
        ok = valid_id(name) && g_hash_table_add(seen, (gpointer)name);
    }
    g_hash_table_destroy(seen);
    return ok;
}

static void append_id(const FennelProgram *p, gboolean named, uint32_t t, GString *out)
{
    if (named)
        g_string_append(out, p->task_name[t]);
    else
        g_string_append_printf(out, "t%u", t);
}

static void append_duration(GString *out, const char *key, FennelTime t)
{
    char buf[FENNEL_TIME_BUF];
    g_string_append_printf(out, ", %s: %sns", key, fennel_format_ns(t, buf));
}

/* A double-quoted YAML string that reads back whatever the bytes: control characters
 * (C0, DEL, C1) are escaped, and so is every byte that is not UTF-8 (as the code point
 * of its value: the name then reads back changed, but reads). */
void fennel__yaml_append_quoted(GString *out, const char *s)
{
    g_string_append_c(out, '"');
    const char *c = s, *end = s + strlen(s);
    while (c < end) {
        gunichar u = g_utf8_get_char_validated(c, end - c);
        if (u == (gunichar)-1 || u == (gunichar)-2) {
            g_string_append_printf(out, "\\x%02x", (unsigned char)*c);
            c++;
            continue;
        }
        const char *next = g_utf8_next_char(c);
        if (u == '"' || u == '\\')
            g_string_append_printf(out, "\\%c", (char)u);
        else if (u < 0x20 || (u >= 0x7f && u <= 0x9f))
            g_string_append_printf(out, "\\x%02x", (unsigned)u);
        else
            g_string_append_len(out, c, next - c);
        c = next;
    }
    g_string_append_c(out, '"');
}

static void append_fields(const FennelProgram *p, uint32_t t, GString *out)
{
    int64_t amount = p->amount[t];
    uint32_t tag = p->tag ? p->tag[t] : 0;
    switch ((FennelTaskType)p->type[t]) {
    case FENNEL_TASK_START:
        if (amount != 0)
            append_duration(out, "skew", amount);
        break;
    case FENNEL_TASK_SLEEP:
        append_duration(out, "duration", amount);
        break;
    case FENNEL_TASK_COMPUTE:
        if (p->flags[t] & FENNEL_TASK_SIZED)
            g_string_append_printf(out, ", size: %" G_GINT64_FORMAT "B", amount);
        else
            append_duration(out, "duration", amount);
        break;
    case FENNEL_TASK_PUT:
    case FENNEL_TASK_SEND:
        g_string_append_printf(out, ", to: %u, size: %" G_GINT64_FORMAT "B", p->peer[t], amount);
        if (p->flags[t] & FENNEL_TASK_BLOCKING)
            g_string_append(out, ", blocking: true");
        if (p->type[t] == FENNEL_TASK_SEND && tag != 0)
            g_string_append_printf(out, ", tag: %u", tag);
        if (p->flags[t] & FENNEL_TASK_EAGER)
            g_string_append(out, ", eager: true");
        break;
    case FENNEL_TASK_GET:
        g_string_append_printf(
            out, ", from: %u, size: %" G_GINT64_FORMAT "B, request: %" G_GINT64_FORMAT "B",
            p->peer[t], amount, p->request ? p->request[t] : 8);
        break;
    case FENNEL_TASK_RECV:
        if (p->peer[t] == FENNEL_ANY)
            g_string_append(out, ", from: any");
        else
            g_string_append_printf(out, ", from: %u", p->peer[t]);
        g_string_append_printf(out, ", size: %" G_GINT64_FORMAT "B", amount);
        if (tag == FENNEL_ANY)
            g_string_append(out, ", tag: any");
        else if (tag != 0)
            g_string_append_printf(out, ", tag: %u", tag);
        break;
    case FENNEL_TASK_LOAD_REDUCE:
    case FENNEL_TASK_MULTICAST:
        g_string_append_printf(out, ", group: %u..%u", p->peer[t], fennel_program_group_last(p, t));
        if (fennel_program_stride(p, t) > 1)
            g_string_append_printf(out, " by %u", fennel_program_stride(p, t));
        g_string_append_printf(out, ", size: %" G_GINT64_FORMAT "B", amount);
        if (p->flags[t] & FENNEL_TASK_ALLREDUCE)
            g_string_append(out, ", allreduce: true");
        break;
    default: /* proxy, and any type this writer does not know fields of */
        break;
    }
}

static void stream_with(const FennelProgram *p, const FennelYamlExtra *extra, FennelSink *sink);

void fennel_program_write_yaml(const FennelProgram *p, GString *out)
{
    fennel__yaml_write_with(p, NULL, out);
}

void fennel_program_stream_yaml(const FennelProgram *p, FennelSink *sink)
{
    stream_with(p, NULL, sink);
}

void fennel__yaml_write_with(const FennelProgram *p, const FennelYamlExtra *extra, GString *out)
{
    FennelSink sink = fennel_sink_on_string(out);
    stream_with(p, extra, &sink);
}

/* The writer itself, with what an MSCCL algorithm adds when `extra` is given. */
static void stream_with(const FennelProgram *p, const FennelYamlExtra *extra, FennelSink *sink)
{
    GString *out = sink->text;
    /* Predecessor lists (regular edges), from the successor lists. */
    uint32_t n = p->n_tasks;
    uint64_t *start = g_new0(uint64_t, (gsize)n + 1);
    uint32_t *preds = g_new(uint32_t, p->succ_start[n] ? p->succ_start[n] : 1);
    for (uint64_t e = 0; e < p->succ_start[n]; e++)
        start[p->succ[e] + 1]++;
    for (uint32_t t = 0; t < n; t++)
        start[t + 1] += start[t];
    uint64_t *fill = g_memdup2(start, sizeof(uint64_t) * ((gsize)n + 1));
    for (uint32_t t = 0; t < n; t++) {
        for (uint64_t e = p->succ_start[t]; e < p->succ_start[t + 1]; e++)
            preds[fill[p->succ[e]]++] = t;
    }
    g_free(fill);

    g_string_append(out, "fennel: 1\n");
    if (p->name) {
        g_string_append(out, "name: ");
        fennel__yaml_append_quoted(out, p->name);
        g_string_append_c(out, '\n');
    }
    if (p->collective)
        g_string_append_printf(out, "collective: %s\n", p->collective);
    if (p->collective && p->root != FENNEL_NO_RANK)
        g_string_append_printf(out, "root: %u\n", p->root);
    if (p->block_first && p->n_blocks)
        g_string_append_printf(out, "blocks: %u\n", p->n_blocks);
    if (p->start_succ_start && p->start_succ_start[n] > 0)
        g_string_append_printf(out,
                               "# %" G_GUINT64_FORMAT " start dependencies are not written "
                               "(the format has no field for them)\n",
                               (guint64)p->start_succ_start[n]);
    g_string_append_printf(out, "ranks: %u\n", p->n_ranks);
    if (p->processes > 1)
        g_string_append_printf(out, "processes: %u\n", p->processes);
    if (extra)
        extra->section(extra->data, out);
    g_string_append(out, n ? "tasks:\n" : "tasks: []\n");

    fennel_program_name_tasks(p); /* a generated program's readable names */
    gboolean named = names_usable(p);
    for (uint32_t t = 0; t < n; t++) {
        g_string_append(out, "  - {id: ");
        append_id(p, named, t, out);
        g_string_append_printf(out, ", type: %s, rank: %u", fennel_task_type_name(p->type[t]),
                               p->rank[t]);
        append_fields(p, t, out);
        if (fennel_program_any(p, t))
            g_string_append_printf(out, ", any: %u", fennel_program_any(p, t));
        if (p->flags[t] & FENNEL_TASK_CONCURRENT)
            g_string_append(out, ", concurrent: true");
        if (p->pin && p->pin[t] != FENNEL_NO_RANK)
            g_string_append_printf(out, ", slot: %u", p->pin[t]);
        if (p->block_first && p->block_count[t] > 0 &&
            (p->type[t] == FENNEL_TASK_PUT || p->type[t] == FENNEL_TASK_SEND ||
             p->type[t] == FENNEL_TASK_LOAD_REDUCE || p->type[t] == FENNEL_TASK_MULTICAST))
            g_string_append_printf(
                out, ", data: %u..%u", p->block_first[t],
                (uint32_t)(((uint64_t)p->block_first[t] + p->block_count[t] - 1) % p->n_blocks));
        if (start[t + 1] > start[t]) {
            g_string_append(out, ", after: [");
            for (uint64_t e = start[t]; e < start[t + 1]; e++) {
                if (e > start[t])
                    g_string_append(out, ", ");
                append_id(p, named, preds[e], out);
            }
            g_string_append_c(out, ']');
        }
        if (extra)
            extra->task(extra->data, t, out);
        g_string_append(out, "}\n");
        fennel_sink_spill(sink);
    }
    g_free(start);
    g_free(preds);
}
