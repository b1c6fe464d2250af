/* The MSCCL algorithm of a YAML program that carries one (docs/FORMATS.md, "The round trip
 * through YAML"). The algorithm is rebuilt from the `msccl` section's rows and from the
 * tasks the file holds with their step fields, never from a copy of the XML: a step exists
 * because its tasks do. Where the tasks and their fields disagree (a task missing from its
 * step, a send to another peer than its thread block's, an order the algorithm does not
 * have), the reader says so at the place in the file; what remains is checked by the
 * same structural checks as the XML's, then by msccl_verify.c. */
#include "msccl_private.h"
#include "yaml_notes_private.h"

#include "errors.h"
#include "units.h"

#include <string.h>

/* The tasks of a step in the order the lowering makes them (msccl_lower.c). */
enum { ROLE_PROXY, ROLE_RECV, ROLE_COMPUTE, ROLE_SEND, N_ROLES };
static const char *const role_names[N_ROLES] = {"proxy", "recv", "compute", "send"};

typedef struct {
    const char *file;
    const FennelYamlNotes *n;
    const FennelProgram *p;
    FennelMscclAlgo *a;
    FennelNoteMark *tb_marks;    /* per thread block: its row */
    uint32_t *role_task;         /* per step and role: the task, or UINT32_MAX */
    const FennelTaskNote **note; /* per step: the note of its first task */
    uint32_t *step_of;           /* per task: its step, or UINT32_MAX */
    uint32_t *tb_of;             /* per step: its thread block (of all) */
    uint32_t *gpu_of;            /* per thread block: its GPU */
} Rebuild;

static gboolean fail(const Rebuild *b, FennelNoteMark m, GError **error, const char *format, ...)
    G_GNUC_PRINTF(4, 5);
static gboolean fail(const Rebuild *b, FennelNoteMark m, GError **error, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    char *what = g_strdup_vprintf(format, args);
    va_end(args);
    char *clean = fennel_message_clean(what);
    fennel_error_at(error, b->file, m.line, m.col, "%s", clean);
    g_free(clean);
    g_free(what);
    return FALSE;
}

static const char *text_at(const Rebuild *b, uint32_t offset)
{
    return b->n->text->str + offset;
}

static gboolean number(const Rebuild *b, const char *key, const char *text, FennelNoteMark m,
                       int64_t min, int64_t max, int64_t *out, GError **error)
{
    const char *why;
    if (!fennel_parse_int(text, min, max, out, &why))
        return fail(b, m, error, "%s: %s", key, why);
    return TRUE;
}

static gboolean boolean(const Rebuild *b, const char *key, const char *text, FennelNoteMark m,
                        gboolean *out, GError **error)
{
    if (strcmp(text, "true") == 0 || strcmp(text, "false") == 0) {
        *out = text[0] == 't';
        return TRUE;
    }
    return fail(b, m, error, "%s: expected true or false", key);
}

/* The values of a row's keys, by their index in `keys` (NULL: absent); refuses other keys
 * and repeated ones. */
static gboolean row_fields(const Rebuild *b, const FennelNoteRow *row, const char *kind,
                           const char *const *keys, int n_keys, const char **values,
                           FennelNoteMark *marks, GError **error)
{
    for (int k = 0; k < n_keys; k++)
        values[k] = NULL;
    for (uint32_t i = 0; i < row->n; i++) {
        const FennelNoteEntry *e = &g_array_index(b->n->entries, FennelNoteEntry, row->first + i);
        const char *key = text_at(b, e->key);
        int k = 0;
        while (k < n_keys && strcmp(keys[k], key) != 0)
            k++;
        if (k == n_keys) {
            char *known = g_strjoinv(", ", (char **)keys);
            fail(b, e->key_mark, error, "msccl: unknown key '%s' in %s row (expected %s)", key,
                 kind, known);
            g_free(known);
            return FALSE;
        }
        if (values[k])
            return fail(b, e->key_mark, error, "msccl: duplicate key '%s'", key);
        values[k] = text_at(b, e->value);
        marks[k] = e->value_mark;
    }
    for (int k = 0; k < n_keys; k++)
        if (values[k] == NULL && keys[k][0] != '\0')
            return fail(b, row->start, error, "msccl: %s row without '%s'", kind, keys[k]);
    return TRUE;
}

enum { A_ALGO, A_COLL, A_NGPUS, A_NCHUNKS, A_PROTO, A_NCHANNELS, A_INPLACE, A_OUTOFPLACE, A_N };

static gboolean read_algo(Rebuild *b, const FennelNoteRow *row, GError **error)
{
    static const char *const keys[A_N + 1] = {
        "algo",    "coll",       "ngpus", "nchunksperloop", "proto", "nchannels",
        "inplace", "outofplace", NULL,
    };
    const char *v[A_N];
    FennelNoteMark m[A_N];
    FennelMscclAlgo *a = b->a;
    int64_t ngpus, nchunks, nchannels;
    if (!row_fields(b, row, "the algo", keys, A_N, v, m, error) ||
        !number(b, "ngpus", v[A_NGPUS], m[A_NGPUS], 1, 1 << 16, &ngpus, error) ||
        !number(b, "nchunksperloop", v[A_NCHUNKS], m[A_NCHUNKS], 1, INT32_MAX, &nchunks, error) ||
        !number(b, "nchannels", v[A_NCHANNELS], m[A_NCHANNELS], 1, 1 << 16, &nchannels, error) ||
        !boolean(b, "inplace", v[A_INPLACE], m[A_INPLACE], &a->inplace, error) ||
        !boolean(b, "outofplace", v[A_OUTOFPLACE], m[A_OUTOFPLACE], &a->outofplace, error))
        return FALSE;
    if (!a->inplace && !a->outofplace)
        return fail(b, m[A_INPLACE], error,
                    "inplace: false and outofplace: false: the algorithm runs in no mode");
    static const char *const protos[] = {"Simple", "LL", "LL128"};
    int proto = 0;
    while (proto < 3 && strcmp(protos[proto], v[A_PROTO]) != 0)
        proto++;
    if (proto == 3)
        return fail(b, m[A_PROTO], error, "proto: expected Simple, LL or LL128");
    gboolean named = *v[A_COLL] != '\0';
    for (const char *c = v[A_COLL]; *c && named; c++)
        named = g_ascii_isalnum(*c) || *c == '_' || *c == '-';
    if (!named)
        return fail(b, m[A_COLL], error, "coll: expected the name of a collective");
    a->name = g_utf8_make_valid(v[A_ALGO], -1);
    a->coll = g_strdup(v[A_COLL]);
    a->proto = (FennelMscclProto)proto;
    a->ngpus = (uint32_t)ngpus;
    a->nchunksperloop = (uint32_t)nchunks;
    a->nchannels = (uint32_t)nchannels;
    a->line = row->start.line;
    a->col = row->start.col;
    return TRUE;
}

/* The rows after the algorithm's: each GPU's, followed by its thread blocks', in order. */
static gboolean read_rows(Rebuild *b, GArray *gpus, GArray *tbs, GArray *tb_marks, GError **error)
{
    static const char *const gpu_keys[] = {"gpu", "i_chunks", "o_chunks", "s_chunks", NULL};
    static const char *const tb_keys[] = {"gpu", "tb", "send", "recv", "chan", "steps", NULL};
    FennelMscclAlgo *a = b->a;
    int64_t max = (int64_t)a->ngpus - 1;
    for (guint r = 1; r < b->n->rows->len; r++) {
        const FennelNoteRow *row = &g_array_index(b->n->rows, FennelNoteRow, r);
        gboolean is_tb = FALSE;
        for (uint32_t i = 0; i < row->n; i++) {
            const FennelNoteEntry *e =
                &g_array_index(b->n->entries, FennelNoteEntry, row->first + i);
            is_tb = is_tb || strcmp(text_at(b, e->key), "tb") == 0;
        }
        const char *v[6];
        FennelNoteMark m[6];
        int64_t x[6];
        if (!is_tb) {
            if (!row_fields(b, row, "a gpu", gpu_keys, 4, v, m, error))
                return FALSE;
            for (int k = 0; k < 4; k++)
                if (!number(b, gpu_keys[k], v[k], m[k], 0, INT32_MAX, &x[k], error))
                    return FALSE;
            if (x[0] != gpus->len || x[0] > max)
                return fail(b, m[0], error,
                            x[0] > max ? "gpu: %" G_GINT64_FORMAT ": the algorithm has ngpus: %u"
                                       : "gpu: %" G_GINT64_FORMAT ": expected gpu %u (gpus come "
                                         "in order 0, 1, ...)",
                            x[0], x[0] > max ? a->ngpus : gpus->len);
            FennelMscclGpu g = {{(int32_t)x[1], (int32_t)x[2], (int32_t)x[3]},
                                tbs->len,
                                0,
                                row->start.line,
                                row->start.col};
            g_array_append_val(gpus, g);
            continue;
        }
        if (!row_fields(b, row, "a tb", tb_keys, 6, v, m, error))
            return FALSE;
        static const int64_t lo[6] = {0, 0, -1, -1, 0, 0};
        int64_t hi[6] = {INT32_MAX, INT32_MAX, max, max, 1 << 16, INT32_MAX};
        for (int k = 0; k < 6; k++)
            if (!number(b, tb_keys[k], v[k], m[k], lo[k], hi[k], &x[k], error))
                return FALSE;
        if (gpus->len == 0 || x[0] != gpus->len - 1)
            return fail(b, m[0], error,
                        "gpu: %" G_GINT64_FORMAT ": a thread block's row follows its gpu's row",
                        x[0]);
        FennelMscclGpu *g = &g_array_index(gpus, FennelMscclGpu, gpus->len - 1);
        if (x[1] != g->n_tbs)
            return fail(b, m[1], error,
                        "tb: %" G_GINT64_FORMAT ": expected tb %u (thread blocks come in order "
                        "0, 1, ...)",
                        x[1], g->n_tbs);
        if (x[2] == x[0] || x[3] == x[0])
            return fail(b, m[x[2] == x[0] ? 2 : 3], error,
                        "gpu %" G_GINT64_FORMAT " sends or receives to itself", x[0]);
        FennelMscclTb tb = {(int32_t)x[2],  (int32_t)x[3],   (int32_t)x[4], 0,
                            (uint32_t)x[5], row->start.line, row->start.col};
        g_array_append_val(tbs, tb);
        g_array_append_val(tb_marks, row->start);
        g->n_tbs++;
    }
    if (gpus->len != a->ngpus)
        return fail(b, (FennelNoteMark){a->line, a->col}, error,
                    "msccl: ngpus: %u but the section has rows for %u gpu%s", a->ngpus, gpus->len,
                    gpus->len == 1 ? "" : "s");
    return TRUE;
}

/* The section: the algorithm, its GPUs and thread blocks, and room for the steps. */
static gboolean read_section(Rebuild *b, GError **error)
{
    const FennelYamlNotes *n = b->n;
    if (n->rows->len == 0)
        return fail(b, n->section_key, error, "msccl: no rows (the first describes the algo)");
    const FennelNoteRow *first = &g_array_index(n->rows, FennelNoteRow, 0);
    const FennelNoteEntry *e = &g_array_index(n->entries, FennelNoteEntry, first->first);
    if (first->n == 0 || strcmp(text_at(b, e->key), "algo") != 0)
        return fail(b, first->start, error,
                    "msccl: the first row describes the algo (algo: NAME, "
                    "coll: ...)");
    if (!read_algo(b, first, error))
        return FALSE;
    GArray *gpus = g_array_new(FALSE, FALSE, sizeof(FennelMscclGpu));
    GArray *tbs = g_array_new(FALSE, FALSE, sizeof(FennelMscclTb));
    GArray *tb_marks = g_array_new(FALSE, FALSE, sizeof(FennelNoteMark));
    gboolean ok = read_rows(b, gpus, tbs, tb_marks, error);
    FennelMscclAlgo *a = b->a;
    a->n_tbs = tbs->len;
    a->gpus = (FennelMscclGpu *)(void *)g_array_free(gpus, FALSE);
    a->tbs = (FennelMscclTb *)(void *)g_array_free(tbs, FALSE);
    b->tb_marks = (FennelNoteMark *)(void *)g_array_free(tb_marks, FALSE);
    if (!ok)
        return FALSE;
    /* Every step has a task, so a count of steps above the tasks that carry one leaves some
     * without; the first is named below, once the room is there. Past twice that count
     * (and a few), no room is made for steps that cannot all exist. */
    uint64_t steps = 0;
    for (uint32_t t = 0; t < a->n_tbs; t++) {
        a->tbs[t].first_step = (uint32_t)steps;
        steps += a->tbs[t].n_steps;
        if (steps > 2 * (uint64_t)n->tasks->len + 16)
            return fail(b, b->tb_marks[t], error,
                        "steps: %u: the thread blocks have more steps than the %u tasks that "
                        "carry step fields",
                        a->tbs[t].n_steps, n->tasks->len);
    }
    a->n_steps = (uint32_t)steps;
    a->steps = g_new0(FennelMscclStep, MAX(steps, 1));
    b->tb_of = g_new(uint32_t, MAX(steps, 1));
    b->gpu_of = g_new(uint32_t, MAX(a->n_tbs, 1));
    for (uint32_t g = 0; g < a->ngpus; g++)
        for (uint32_t t = a->gpus[g].first_tb; t < a->gpus[g].first_tb + a->gpus[g].n_tbs; t++) {
            b->gpu_of[t] = g;
            for (uint32_t i = a->tbs[t].first_step; i < a->tbs[t].first_step + a->tbs[t].n_steps;
                 i++)
                b->tb_of[i] = t;
        }
    b->note = g_new0(const FennelTaskNote *, MAX(steps, 1));
    b->role_task = g_new(uint32_t, MAX(steps, 1) * N_ROLES);
    memset(b->role_task, 0xff, sizeof(uint32_t) * MAX(steps, 1) * N_ROLES);
    return TRUE;
}

/* "gpu 1 tb 0 step 3 (rrs)", as the checker names a step. */
static char *describe(const Rebuild *b, uint32_t i)
{
    const FennelMscclAlgo *a = b->a;
    uint32_t t = b->tb_of[i], g = b->gpu_of[t];
    return g_strdup_printf("gpu %u tb %u step %u (%s)", g, t - a->gpus[g].first_tb,
                           i - a->tbs[t].first_step, fennel_msccl_type_name(a->steps[i].type));
}

/* What tasks a step of this type is: "a recv, a compute and a send". */
static char *makeup(FennelMscclType type)
{
    unsigned does = fennel_msccl_does(type);
    const char *parts[3];
    int n = 0;
    if (type == FENNEL_MSCCL_NOP)
        parts[n++] = "a proxy";
    if (does & FENNEL_MSCCL_DOES_RECV)
        parts[n++] = "a recv";
    if (does & (FENNEL_MSCCL_DOES_REDUCE | FENNEL_MSCCL_DOES_COPY))
        parts[n++] = "a compute";
    if (does & FENNEL_MSCCL_DOES_SEND)
        parts[n++] = "a send";
    return n == 1   ? g_strdup(parts[0])
           : n == 2 ? g_strdup_printf("%s and %s", parts[0], parts[1])
                    : g_strdup_printf("%s, %s and %s", parts[0], parts[1], parts[2]);
}

static gboolean has_role(FennelMscclType type, int role)
{
    unsigned does = fennel_msccl_does(type);
    switch (role) {
    case ROLE_PROXY:
        return type == FENNEL_MSCCL_NOP;
    case ROLE_RECV:
        return (does & FENNEL_MSCCL_DOES_RECV) != 0;
    case ROLE_COMPUTE:
        return (does & (FENNEL_MSCCL_DOES_REDUCE | FENNEL_MSCCL_DOES_COPY)) != 0;
    default:
        return (does & FENNEL_MSCCL_DOES_SEND) != 0;
    }
}

/* "i3": a buffer's letter and a chunk offset. */
static gboolean operand(const Rebuild *b, const char *key, const char *text, FennelNoteMark m,
                        uint8_t *buf, int32_t *off, GError **error)
{
    const char *letters = "ios";
    const char *at = text[0] ? strchr(letters, text[0]) : NULL;
    int64_t v;
    const char *why;
    if (at == NULL || !fennel_parse_int(text + 1, 0, INT32_MAX, &v, &why) ||
        !g_ascii_isdigit(text[1]))
        return fail(b, m, error, "%s: expected a buffer (i, o or s) and a chunk offset, e.g. i3",
                    key);
    *buf = (uint8_t)(at - letters);
    *off = (int32_t)v;
    return TRUE;
}

/* "t1.s4": step 4 of thread block 1 of the same GPU. */
static gboolean dependency(const Rebuild *b, const char *text, FennelNoteMark m, int32_t *tb,
                           int32_t *step, GError **error)
{
    const char *dot = strstr(text, ".s");
    int64_t t = -1, s = -1;
    const char *why;
    char *head = dot && text[0] == 't' ? g_strndup(text + 1, (gsize)(dot - text - 1)) : NULL;
    gboolean ok = head && g_ascii_isdigit(head[0]) && g_ascii_isdigit(dot[2]) &&
                  fennel_parse_int(head, 0, INT32_MAX, &t, &why) &&
                  fennel_parse_int(dot + 2, 0, INT32_MAX, &s, &why);
    g_free(head);
    if (!ok)
        return fail(b, m, error,
                    "dep: expected a step of the gpu's thread blocks, e.g. t1.s4 (tb 1 step 4)");
    *tb = (int32_t)t;
    *step = (int32_t)s;
    return TRUE;
}

/* A task's step fields; *tb and *k say which step they place it in. */
static gboolean parse_note(const Rebuild *b, const FennelTaskNote *note, uint32_t *tb, uint32_t *k,
                           FennelMscclStep *st, GError **error)
{
    const char *v[FENNEL_NOTE_N_KEYS];
    for (int i = 0; i < FENNEL_NOTE_N_KEYS; i++)
        v[i] = note->present & (1u << i) ? text_at(b, note->value[i]) : NULL;
    const FennelNoteMark *m = note->mark;
    char buf[24];
    static const int required[] = {FENNEL_NOTE_TB, FENNEL_NOTE_STEP, FENNEL_NOTE_OP,
                                   FENNEL_NOTE_CNT};
    for (size_t i = 0; i < G_N_ELEMENTS(required); i++)
        if (v[required[i]] == NULL)
            return fail(b, note->start, error, "task '%s' has step fields but no '%s'",
                        fennel_program_task_name(b->p, note->task, buf),
                        fennel__note_keys[required[i]]);
    int64_t x;
    if (!number(b, "tb", v[FENNEL_NOTE_TB], m[FENNEL_NOTE_TB], 0, INT32_MAX, &x, error))
        return FALSE;
    *tb = (uint32_t)x;
    if (!number(b, "step", v[FENNEL_NOTE_STEP], m[FENNEL_NOTE_STEP], 0, INT32_MAX, &x, error))
        return FALSE;
    *k = (uint32_t)x;
    memset(st, 0, sizeof *st);
    st->type = FENNEL_MSCCL_N_TYPES;
    for (uint8_t t = 0; t < FENNEL_MSCCL_N_TYPES; t++)
        if (strcmp(fennel_msccl_type_name(t), v[FENNEL_NOTE_OP]) == 0)
            st->type = t;
    if (st->type == FENNEL_MSCCL_N_TYPES)
        return fail(b, m[FENNEL_NOTE_OP], error,
                    "op: '%s': unknown step type (known: s, r, rcs, rrs, rrc, rrcs, cpy, re, nop)",
                    v[FENNEL_NOTE_OP]);
    if (!number(b, "cnt", v[FENNEL_NOTE_CNT], m[FENNEL_NOTE_CNT], 0, INT32_MAX, &x, error))
        return FALSE;
    st->cnt = (int32_t)x;
    /* A step names the operands it uses and no others (docs/FORMATS.md). */
    gboolean reads = fennel__msccl_reads_src(st->type);
    gboolean writes = (fennel_msccl_does(st->type) & FENNEL_MSCCL_DOES_WRITE) != 0;
    for (int side = 0; side < 2; side++) {
        int key = side == 0 ? FENNEL_NOTE_SRC : FENNEL_NOTE_DST;
        gboolean uses = side == 0 ? reads : writes;
        if (uses && v[key] == NULL)
            return fail(b, note->start, error, "task '%s': an %s step needs '%s'",
                        fennel_program_task_name(b->p, note->task, buf), v[FENNEL_NOTE_OP],
                        fennel__note_keys[key]);
        if (!uses && v[key] != NULL)
            return fail(b, m[key], error, "%s: an %s step %s", fennel__note_keys[key],
                        v[FENNEL_NOTE_OP], side == 0 ? "reads no source" : "writes nothing");
    }
    st->srcoff = st->dstoff = -1;
    if ((reads && !operand(b, "src", v[FENNEL_NOTE_SRC], m[FENNEL_NOTE_SRC], &st->srcbuf,
                           &st->srcoff, error)) ||
        (writes && !operand(b, "dst", v[FENNEL_NOTE_DST], m[FENNEL_NOTE_DST], &st->dstbuf,
                            &st->dstoff, error)))
        return FALSE;
    st->depid = st->deps = -1;
    if (v[FENNEL_NOTE_DEP] &&
        !dependency(b, v[FENNEL_NOTE_DEP], m[FENNEL_NOTE_DEP], &st->depid, &st->deps, error))
        return FALSE;
    gboolean hasdep = FALSE;
    if (v[FENNEL_NOTE_HASDEP] &&
        !boolean(b, "hasdep", v[FENNEL_NOTE_HASDEP], m[FENNEL_NOTE_HASDEP], &hasdep, error))
        return FALSE;
    st->hasdep = (uint8_t)hasdep;
    st->line = note->start.line;
    st->col = note->start.col;
    return TRUE;
}

/* The first field where two tasks of one step disagree, or -1. */
static int disagreement(const FennelMscclStep *x, const FennelMscclStep *y)
{
    if (x->type != y->type)
        return FENNEL_NOTE_OP;
    if (x->srcbuf != y->srcbuf || x->srcoff != y->srcoff)
        return FENNEL_NOTE_SRC;
    if (x->dstbuf != y->dstbuf || x->dstoff != y->dstoff)
        return FENNEL_NOTE_DST;
    if (x->cnt != y->cnt)
        return FENNEL_NOTE_CNT;
    if (x->depid != y->depid || x->deps != y->deps)
        return FENNEL_NOTE_DEP;
    if (x->hasdep != y->hasdep)
        return FENNEL_NOTE_HASDEP;
    return -1;
}

/* A task of a step talks to its thread block's peer on its channel. */
static gboolean check_peer(const Rebuild *b, uint32_t i, uint32_t task, uint32_t t, GError **error)
{
    const FennelProgram *p = b->p;
    const FennelMscclTb *tb = &b->a->tbs[t];
    gboolean send = p->type[task] == FENNEL_TASK_SEND;
    int32_t want = send ? tb->send : tb->recv;
    uint32_t tag = p->tag ? p->tag[task] : 0;
    FennelNoteMark at = {p->line ? p->line[task] : 0, p->col ? p->col[task] : 0};
    gboolean ok = want >= 0 && p->peer[task] == (uint32_t)want && tag == (uint32_t)tb->chan;
    char *step = ok ? NULL : describe(b, i);
    if (ok) {
    } else if (want < 0 || p->peer[task] != (uint32_t)want) {
        char peer[16] = "any";
        if (p->peer[task] != FENNEL_ANY)
            g_snprintf(peer, sizeof peer, "%u", p->peer[task]);
        fail(b, at, error,
             "%s: its %s %s gpu %s, but its thread block's row says %s: %d (at %u:%u)", step,
             send ? "send" : "recv", send ? "goes to" : "comes from", peer, send ? "send" : "recv",
             want, b->tb_marks[t].line, b->tb_marks[t].col);
    } else if (tag != (uint32_t)tb->chan) {
        char have[16] = "any";
        if (tag != FENNEL_ANY)
            g_snprintf(have, sizeof have, "%u", tag);
        fail(b, at, error,
             "%s: its %s has tag %s, but its thread block's row says chan: %d (at %u:%u)", step,
             send ? "send" : "recv", have, tb->chan, b->tb_marks[t].line, b->tb_marks[t].col);
    }
    g_free(step);
    return ok;
}

/* Places every task with step fields in its step. */
static gboolean place_tasks(Rebuild *b, GError **error)
{
    const FennelProgram *p = b->p;
    FennelMscclAlgo *a = b->a;
    char buf[24];
    for (guint j = 0; j < b->n->tasks->len; j++) {
        const FennelTaskNote *note = &g_array_index(b->n->tasks, FennelTaskNote, j);
        uint32_t task = note->task;
        int role = p->type[task] == FENNEL_TASK_PROXY     ? ROLE_PROXY
                   : p->type[task] == FENNEL_TASK_RECV    ? ROLE_RECV
                   : p->type[task] == FENNEL_TASK_COMPUTE ? ROLE_COMPUTE
                   : p->type[task] == FENNEL_TASK_SEND    ? ROLE_SEND
                                                          : -1;
        if (role < 0)
            return fail(b, note->start, error,
                        "task '%s': a %s task is no part of a step (steps are recv, compute, "
                        "send and proxy tasks)",
                        fennel_program_task_name(p, task, buf),
                        fennel_task_type_name(p->type[task]));
        uint32_t gpu = p->rank[task], tb = 0, k = 0;
        FennelMscclStep st;
        if (!parse_note(b, note, &tb, &k, &st, error))
            return FALSE;
        if (gpu >= a->ngpus)
            return fail(b, note->start, error, "task '%s': rank %u is no gpu (ngpus: %u)",
                        fennel_program_task_name(p, task, buf), gpu, a->ngpus);
        if (tb >= a->gpus[gpu].n_tbs)
            return fail(b, note->mark[FENNEL_NOTE_TB], error,
                        "tb: %u: gpu %u has %u thread block%s", tb, gpu, a->gpus[gpu].n_tbs,
                        a->gpus[gpu].n_tbs == 1 ? "" : "s");
        uint32_t t = a->gpus[gpu].first_tb + tb;
        if (k >= a->tbs[t].n_steps)
            return fail(b, note->mark[FENNEL_NOTE_STEP], error,
                        "step: %u: gpu %u tb %u has steps: %u (at %u:%u)", k, gpu, tb,
                        a->tbs[t].n_steps, b->tb_marks[t].line, b->tb_marks[t].col);
        uint32_t i = a->tbs[t].first_step + k;
        if (b->note[i] == NULL) {
            b->note[i] = note;
            a->steps[i] = st;
        } else {
            int key = disagreement(&st, &a->steps[i]);
            if (key >= 0) {
                const FennelTaskNote *first = b->note[i];
                gboolean here = note->present & (1u << key), there = first->present & (1u << key);
                return fail(b, here ? note->mark[key] : note->start, error,
                            "%s: %s, but the step's task at %u:%u says %s", fennel__note_keys[key],
                            here ? text_at(b, note->value[key]) : "(none)", first->start.line,
                            first->start.col, there ? text_at(b, first->value[key]) : "none");
            }
        }
        uint32_t *slot = &b->role_task[(gsize)i * N_ROLES + (gsize)role];
        gboolean ok =
            has_role(st.type, role) && *slot == UINT32_MAX && !fennel_program_any(p, task);
        char *step = ok ? NULL : describe(b, i);
        if (!has_role(st.type, role)) {
            char *what = makeup(st.type);
            ok = fail(b, note->start, error, "%s: a %s task, but an %s step is %s", step,
                      role_names[role], fennel_msccl_type_name(st.type), what);
            g_free(what);
        } else if (*slot != UINT32_MAX) {
            ok = fail(b, note->start, error, "%s: a second %s task (the first at %u:%u)", step,
                      role_names[role], p->line ? p->line[*slot] : 0, p->col ? p->col[*slot] : 0);
        } else if (fennel_program_any(p, task)) {
            ok = fail(b, note->start, error,
                      "%s: 'any' on a step's task, which waits for all "
                      "its predecessors",
                      step);
        }
        g_free(step);
        if (!ok || ((role == ROLE_RECV || role == ROLE_SEND) && !check_peer(b, i, task, t, error)))
            return FALSE;
        *slot = task;
        b->step_of[task] = i;
    }
    return TRUE;
}

/* A step has its tasks, moves something, and its operands lie in its GPU's buffers. */
static gboolean check_step(const Rebuild *b, uint32_t g, uint32_t i, GError **error)
{
    const FennelMscclAlgo *a = b->a;
    const FennelMscclStep *st = &a->steps[i];
    const FennelTaskNote *note = b->note[i];
    static const char *const keys[3] = {"i_chunks", "o_chunks", "s_chunks"};
    int missing = 0;
    while (missing < N_ROLES && !(has_role(st->type, missing) &&
                                  b->role_task[(gsize)i * N_ROLES + (gsize)missing] == UINT32_MAX))
        missing++;
    if (missing < N_ROLES || (st->type != FENNEL_MSCCL_NOP && st->cnt == 0)) {
        char *step = describe(b, i), *what = makeup(st->type);
        if (missing < N_ROLES)
            fail(b, note->start, error, "%s: no %s task (an %s step is %s)", step,
                 role_names[missing], fennel_msccl_type_name(st->type), what);
        else
            fail(b, note->mark[FENNEL_NOTE_CNT], error, "cnt: 0: %s moves nothing", step);
        g_free(step);
        g_free(what);
        return FALSE;
    }
    for (int side = 0; side < 2; side++) {
        gboolean uses = side == 0 ? fennel__msccl_reads_src(st->type)
                                  : (fennel_msccl_does(st->type) & FENNEL_MSCCL_DOES_WRITE) != 0;
        uint8_t buf = side == 0 ? st->srcbuf : st->dstbuf;
        int32_t off = side == 0 ? st->srcoff : st->dstoff;
        if (uses && (int64_t)off + st->cnt > a->gpus[g].chunks[buf])
            return fail(b, note->mark[side == 0 ? FENNEL_NOTE_SRC : FENNEL_NOTE_DST], error,
                        "%s: chunks %c[%d..%" G_GINT64_FORMAT "] are outside gpu %u's %s: %d",
                        side == 0 ? "src" : "dst", "ios"[buf], off, (int64_t)off + st->cnt - 1, g,
                        keys[buf], a->gpus[g].chunks[buf]);
    }
    return TRUE;
}

/* Every step has its tasks (check_step). */
static gboolean check_steps(Rebuild *b, GError **error)
{
    const FennelMscclAlgo *a = b->a;
    for (uint32_t g = 0; g < a->ngpus; g++)
        for (uint32_t t = a->gpus[g].first_tb; t < a->gpus[g].first_tb + a->gpus[g].n_tbs; t++)
            for (uint32_t i = a->tbs[t].first_step; i < a->tbs[t].first_step + a->tbs[t].n_steps;
                 i++) {
                if (b->note[i] == NULL)
                    return fail(b, b->tb_marks[t], error,
                                "gpu %u tb %u has steps: %u, but no task of step %u", g,
                                t - a->gpus[g].first_tb, a->tbs[t].n_steps,
                                i - a->tbs[t].first_step);
                if (!check_step(b, g, i, error))
                    return FALSE;
            }
    return TRUE;
}

/* The tasks a step's first task must follow (at most two): the last of the step before it
 * in its thread block, and the last of the step it depends on in another thread block. */
static uint32_t required(const Rebuild *b, uint32_t i, uint32_t want[2], const char *why[2])
{
    const FennelMscclAlgo *a = b->a;
    uint32_t t = b->tb_of[i], g = b->gpu_of[t], n = 0;
    for (int side = 0; side < 2; side++) {
        uint32_t j;
        if (side == 0 && i > a->tbs[t].first_step)
            j = i - 1;
        else if (side == 1 && a->steps[i].depid >= 0 &&
                 (uint32_t)a->steps[i].depid != t - a->gpus[g].first_tb)
            j = a->tbs[a->gpus[g].first_tb + (uint32_t)a->steps[i].depid].first_step +
                (uint32_t)a->steps[i].deps;
        else
            continue;
        for (int role = N_ROLES - 1; role >= 0; role--)
            if (b->role_task[(gsize)j * N_ROLES + (gsize)role] != UINT32_MAX) {
                why[n] =
                    side == 0 ? "the step before it in its thread block" : "the step it depends on";
                want[n++] = b->role_task[(gsize)j * N_ROLES + (gsize)role];
                break;
            }
    }
    return n;
}

/* The order of the steps is the algorithm's: each task of a step follows the one before it
 * in the step, and a step's first task follows exactly the tasks required() names. Tasks
 * without step fields in between (sleeps, computes, proxies) only add time: the walk goes
 * through them to the step tasks behind them. Start tasks order nothing. */
static gboolean check_order(Rebuild *b, GError **error)
{
    const FennelProgram *p = b->p;
    uint32_t n = p->n_tasks;
    /* Predecessors, from the successor lists. */
    uint64_t *first = g_new0(uint64_t, (gsize)n + 1);
    uint32_t *pred = g_new(uint32_t, MAX(p->succ_start[n], 1));
    for (uint64_t e = 0; e < p->succ_start[n]; e++)
        first[p->succ[e] + 1]++;
    for (uint32_t t = 0; t < n; t++)
        first[t + 1] += first[t];
    uint64_t *fill = g_memdup2(first, sizeof(uint64_t) * ((gsize)n + 1));
    for (uint32_t t = 0; t < n; t++)
        for (uint64_t e = p->succ_start[t]; e < p->succ_start[t + 1]; e++)
            pred[fill[p->succ[e]]++] = t;
    g_free(fill);
    uint32_t *seen = g_new0(uint32_t, MAX(n, 1));
    GArray *stack = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    GArray *found = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    gboolean ok = TRUE;
    char buf[24], other[24];
    for (uint32_t task = 0; task < n && ok; task++) {
        uint32_t i = b->step_of[task];
        if (i == UINT32_MAX)
            continue;
        uint32_t want[2], n_want = 0, *roles = &b->role_task[(gsize)i * N_ROLES];
        const char *why[2] = {"the task before it in the step", NULL};
        int role = 0;
        while (roles[role] != task)
            role++;
        int before = role - 1;
        while (before >= 0 && roles[before] == UINT32_MAX)
            before--;
        if (before >= 0)
            want[n_want++] = roles[before];
        else
            n_want = required(b, i, want, why);
        /* The step tasks behind this one. */
        g_array_set_size(stack, 0);
        g_array_set_size(found, 0);
        for (uint64_t e = first[task]; e < first[task + 1]; e++)
            g_array_append_val(stack, pred[e]);
        while (stack->len > 0 && ok) {
            uint32_t u = g_array_index(stack, uint32_t, stack->len - 1);
            g_array_set_size(stack, stack->len - 1);
            if (seen[u] == task + 1)
                continue;
            seen[u] = task + 1;
            if (b->step_of[u] != UINT32_MAX) {
                g_array_append_val(found, u);
            } else if (p->type[u] != FENNEL_TASK_START) {
                if (fennel_program_any(p, u))
                    ok = fail(b, (FennelNoteMark){p->line[u], p->col[u]}, error,
                              "task '%s': 'any' on a task between steps, which would let a step "
                              "start before the one it follows",
                              fennel_program_task_name(p, u, buf));
                for (uint64_t e = first[u]; e < first[u + 1]; e++)
                    g_array_append_val(stack, pred[e]);
            }
        }
        /* Found and wanted are at most a few tasks: compared pairwise. */
        for (uint32_t w = 0; w < n_want && ok; w++) {
            gboolean has = FALSE;
            for (guint f = 0; f < found->len; f++)
                has = has || g_array_index(found, uint32_t, f) == want[w];
            if (!has) {
                char *step = describe(b, i);
                ok = fail(b, (FennelNoteMark){p->line[task], p->col[task]}, error,
                          "%s: task '%s' must follow '%s' (%s)", step,
                          fennel_program_task_name(p, task, buf),
                          fennel_program_task_name(p, want[w], other), why[w]);
                g_free(step);
            }
        }
        for (guint f = 0; f < found->len && ok; f++) {
            uint32_t u = g_array_index(found, uint32_t, f);
            gboolean wanted = FALSE;
            for (uint32_t w = 0; w < n_want; w++)
                wanted = wanted || u == want[w];
            if (!wanted) {
                char *step = describe(b, i);
                ok = fail(b, (FennelNoteMark){p->line[task], p->col[task]}, error,
                          "%s: task '%s' follows '%s', an order the algorithm does not have", step,
                          fennel_program_task_name(p, task, buf),
                          fennel_program_task_name(p, u, other));
                g_free(step);
            }
        }
    }
    g_array_unref(stack);
    g_array_unref(found);
    g_free(seen);
    g_free(first);
    g_free(pred);
    return ok;
}

/* Messages the check cannot follow: every send, recv, put and get is a step's. */
static gboolean check_messages(const Rebuild *b, GError **error)
{
    const FennelProgram *p = b->p;
    char buf[24];
    for (uint32_t t = 0; t < p->n_tasks; t++) {
        uint8_t type = p->type[t];
        if (b->step_of[t] == UINT32_MAX && (type == FENNEL_TASK_SEND || type == FENNEL_TASK_RECV ||
                                            type == FENNEL_TASK_PUT || type == FENNEL_TASK_GET))
            return fail(b, (FennelNoteMark){p->line[t], p->col[t]}, error,
                        "task '%s': a %s without step fields; the MSCCL check cannot follow "
                        "its data",
                        fennel_program_task_name(p, t, buf), fennel_task_type_name(type));
    }
    return TRUE;
}

FennelMscclAlgo *fennel_msccl_from_yaml(const char *file, const char *data, gsize length,
                                        const FennelLimits *limits, gboolean *found,
                                        FennelProgram **program, GError **error)
{
    FennelYamlNotes notes;
    fennel__yaml_notes_init(&notes);
    *found = FALSE;
    if (program)
        *program = NULL;
    FennelProgram *p = fennel__yaml_parse_noted(file, data, length, limits, &notes, error);
    if (p == NULL) {
        fennel__yaml_notes_clear(&notes);
        return NULL;
    }
    Rebuild b = {.file = file, .n = &notes, .p = p};
    gboolean ok = TRUE;
    if (!notes.section && notes.tasks->len > 0) {
        const FennelTaskNote *note = &g_array_index(notes.tasks, FennelTaskNote, 0);
        int key = 0;
        while (!(note->present & (1u << key)))
            key++;
        ok = fail(&b, note->mark[key], error,
                  "%s: a step field, but the file has no 'msccl' section to say whose",
                  fennel__note_keys[key]);
    }
    if (notes.section) {
        *found = TRUE;
        b.a = g_new0(FennelMscclAlgo, 1);
        b.a->file = g_strdup(file);
        b.step_of = g_new(uint32_t, MAX(p->n_tasks, 1));
        memset(b.step_of, 0xff, sizeof(uint32_t) * MAX(p->n_tasks, 1));
        /* The positions are the reader's: a YAML program has them for every task. */
        g_assert(p->line != NULL || p->n_tasks == 0);
        ok = read_section(&b, error) && place_tasks(&b, error) && check_steps(&b, error) &&
             check_messages(&b, error) && check_order(&b, error) &&
             fennel__msccl_check_dependencies(b.a, error) && fennel__msccl_connect(b.a, error);
    }
    g_free(b.tb_marks);
    g_free(b.role_task);
    g_free(b.note);
    g_free(b.step_of);
    g_free(b.tb_of);
    g_free(b.gpu_of);
    if (ok && !*found && program)
        *program = p;
    else
        fennel_program_free(p);
    fennel__yaml_notes_clear(&notes);
    if (!ok) {
        fennel_msccl_free(b.a);
        return NULL;
    }
    return b.a;
}
