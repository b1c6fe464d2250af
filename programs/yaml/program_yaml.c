/* The YAML program reader (README, Program files). It streams libyaml events: each task mapping is
 * collected into a small table of fields, checked against its type, and appended to a
 * program builder; `after` names are resolved once the whole file is read, so a task
 * may name a later one. Events come from the fast scanner of src/base/yaml_fast.h when the file
 * has the usual one-task-per-line shape, and from libyaml otherwise. */
#include "program_io.h"
#include "yaml_notes_private.h"

#include "capacity.h"
#include "errors.h"
#include "goal_readers.h"
#include "input.h"
#include "yaml_reader.h"

#include <string.h>

typedef enum {
    F_ID,
    F_TYPE,
    F_RANK,
    F_AFTER,
    F_ANY,
    F_CONCURRENT,
    F_SKEW,
    F_DURATION,
    F_SIZE,
    F_TO,
    F_FROM,
    F_BLOCKING,
    F_REQUEST,
    F_TAG,
    F_DATA,
    F_SLOT,
    F_EAGER,
    F_GROUP,
    F_ALLREDUCE,
    /* An MSCCL step's fields (yaml_notes_private.h), in the order of fennel__note_keys:
     * kept for `fennel verify` when it asks, skipped otherwise. They come last, so that
     * looking up the other keys costs what it did before them. */
    F_TB,
    F_STEP,
    F_OP,
    F_SRC,
    F_DST,
    F_CNT,
    F_DEP,
    F_HASDEP,
    N_FIELDS,
} Field;

static const char *const field_names[N_FIELDS] = {
    "id",        "type", "rank",     "after",   "any", "concurrent", "skew", "duration", "size",
    "to",        "from", "blocking", "request", "tag", "data",       "slot", "eager",    "group",
    "allreduce", "tb",   "step",     "op",      "src", "dst",        "cnt",  "dep",      "hasdep",
};

const char *const fennel__note_keys[FENNEL_NOTE_N_KEYS] = {
    "tb", "step", "op", "src", "dst", "cnt", "dep", "hasdep",
};

#define NOTE_FIELDS (((1u << FENNEL_NOTE_N_KEYS) - 1) << F_TB)

/* The fields each type accepts beyond id, type, rank, after, any and concurrent. */
static const unsigned type_fields[FENNEL_TASK_N_TYPES] = {
    [FENNEL_TASK_START] = 1u << F_SKEW,
    [FENNEL_TASK_PROXY] = 0,
    [FENNEL_TASK_SLEEP] = 1u << F_DURATION,
    [FENNEL_TASK_COMPUTE] = 1u << F_SIZE | 1u << F_DURATION,
    [FENNEL_TASK_PUT] = 1u << F_TO | 1u << F_SIZE | 1u << F_BLOCKING | 1u << F_DATA,
    [FENNEL_TASK_GET] = 1u << F_FROM | 1u << F_SIZE | 1u << F_REQUEST,
    [FENNEL_TASK_SEND] = 1u << F_TO | 1u << F_SIZE | 1u << F_TAG | 1u << F_DATA | 1u << F_EAGER,
    [FENNEL_TASK_RECV] = 1u << F_FROM | 1u << F_SIZE | 1u << F_TAG,
    [FENNEL_TASK_LOAD_REDUCE] = 1u << F_GROUP | 1u << F_SIZE | 1u << F_DATA | 1u << F_ALLREDUCE,
    [FENNEL_TASK_MULTICAST] = 1u << F_GROUP | 1u << F_SIZE | 1u << F_DATA,
};

#define COMMON_FIELDS                                                                              \
    (1u << F_ID | 1u << F_TYPE | 1u << F_RANK | 1u << F_AFTER | 1u << F_ANY | 1u << F_CONCURRENT | \
     1u << F_SLOT | NOTE_FIELDS)

typedef struct {
    unsigned line, col;
} Mark;

/* A rank or peer value with where it was written, for range errors. */
typedef struct {
    uint32_t value;
    Mark mark;
} RankUse;

typedef struct {
    unsigned present; /* bit per field */
    GString *value[N_FIELDS];
    Mark mark[N_FIELDS]; /* of the value */
    Mark key_mark[N_FIELDS];
    GArray *after;       /* offsets into after_text */
    GArray *after_marks; /* Mark per after entry */
    GString *after_text; /* NUL-separated names */
    Mark start;          /* of the task's mapping */
} TaskFields;

/* A message's `data: A..B`, applied once the top-level `blocks` is known. */
typedef struct {
    uint32_t task;
    uint32_t first, last;
    Mark mark;
} DataRange;

/* An `after` entry waiting for its id to be known. */
typedef struct {
    uint32_t task;
    uint32_t name; /* offset in Reader.pending_names */
    Mark mark;
} Pending;

typedef struct {
    FennelYaml y;
    FennelProgramBuilder *builder;
    const FennelLimits *limits; /* NULL: the defaults */
    GHashTable *ids;            /* id -> task index + 1 */
    GStringChunk *id_storage;
    GArray *id_marks; /* Mark per task */
    GArray *pending;
    GString *pending_names;
    GArray *rank_uses; /* RankUse of every rank and peer */
    TaskFields f;
    int64_t ranks, processes;
    Mark ranks_mark, processes_mark;
    /* What the program performs, for `fennel verify`: `collective`, `root`, `blocks`. */
    GArray *data; /* DataRange */
    char *collective;
    int64_t root, blocks; /* -1: not given */
    Mark blocks_mark;
    FennelYamlNotes *notes; /* NULL: MSCCL meaning is skipped */
} Reader;

static gboolean error_at(Reader *r, Mark m, GError **error, const char *format, ...)
    G_GNUC_PRINTF(4, 5);

static gboolean error_at(Reader *r, Mark m, GError **error, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    char *what = g_strdup_vprintf(format, args);
    va_end(args);
    fennel_error_at(error, r->y.file, m.line, m.col, "%s", what);
    g_free(what);
    return FALSE;
}

static Mark here(const Reader *r)
{
    return (Mark){fennel_yaml_line(&r->y), fennel_yaml_col(&r->y)};
}

static gboolean valid_id(const char *s)
{
    if (*s == '\0')
        return FALSE;
    for (; *s; s++) {
        if (!g_ascii_isalnum(*s) && *s != '_' && *s != '.' && *s != ':' && *s != '-')
            return FALSE;
    }
    return TRUE;
}

static gboolean parse_bool(const char *s, gboolean *out)
{
    static const char *const yes[] = {"true", "True", "TRUE"}, *const no[] = {"false", "False",
                                                                              "FALSE"};
    for (int i = 0; i < 3; i++) {
        if (strcmp(s, yes[i]) == 0)
            return (*out = TRUE);
        if (strcmp(s, no[i]) == 0)
            return !(*out = FALSE);
    }
    return FALSE;
}

/* Called for every key of every task: the first character rules out most names. */
static int find_field(const char *key)
{
    for (int i = 0; i < N_FIELDS; i++) {
        if (field_names[i][0] == key[0] && strcmp(field_names[i], key) == 0)
            return i;
    }
    return -1;
}

static char *field_list(unsigned mask)
{
    GString *s = g_string_new(NULL);
    for (int i = 0; i < N_FIELDS; i++) {
        if (mask & (1u << i))
            g_string_append_printf(s, "%s%s", s->len ? ", " : "", field_names[i]);
    }
    return g_string_free(s, FALSE);
}

/* Reads `after`: a sequence of ids or a single id. */
static gboolean read_after(Reader *r, GError **error)
{
    TaskFields *f = &r->f;
    g_array_set_size(f->after, 0);
    g_array_set_size(f->after_marks, 0);
    g_string_truncate(f->after_text, 0);
    gboolean sequence = fennel_yaml_type(&r->y) == YAML_SEQUENCE_START_EVENT;
    if (sequence && !fennel_yaml_next(&r->y, error))
        return FALSE;
    while (!sequence || fennel_yaml_type(&r->y) != YAML_SEQUENCE_END_EVENT) {
        if (fennel_yaml_type(&r->y) != YAML_SCALAR_EVENT)
            return fennel_yaml_error(&r->y, error, "after: expected a task id, got %s",
                                     fennel_yaml_describe(&r->y));
        uint32_t offset = f->after_text->len;
        Mark m = here(r);
        g_string_append_len(f->after_text, fennel_yaml_scalar(&r->y),
                            (gssize)fennel_yaml_scalar_length(&r->y) + 1);
        g_array_append_val(f->after, offset);
        g_array_append_val(f->after_marks, m);
        if (!fennel_yaml_next(&r->y, error))
            return FALSE;
        if (!sequence)
            return TRUE;
    }
    return fennel_yaml_next(&r->y, error);
}

/* Collects one task mapping into r->f; leaves the reader after the mapping. */
static gboolean read_task_fields(Reader *r, GError **error)
{
    TaskFields *f = &r->f;
    f->present = 0;
    f->start = here(r);
    if (fennel_yaml_type(&r->y) != YAML_MAPPING_START_EVENT)
        return fennel_yaml_error(&r->y, error, "expected a task mapping, got %s",
                                 fennel_yaml_describe(&r->y));
    if (!fennel_yaml_next(&r->y, error))
        return FALSE;
    while (fennel_yaml_type(&r->y) != YAML_MAPPING_END_EVENT) {
        if (fennel_yaml_type(&r->y) != YAML_SCALAR_EVENT)
            return fennel_yaml_error(&r->y, error, "expected a key, got %s",
                                     fennel_yaml_describe(&r->y));
        const char *key = fennel_yaml_scalar(&r->y);
        int field = find_field(key);
        if (field < 0) {
            char *known = field_list(~0u);
            fennel_yaml_error(&r->y, error, "unknown key '%s' (expected one of: %s)", key, known);
            g_free(known);
            return FALSE;
        }
        if (f->present & (1u << field))
            return fennel_yaml_error(&r->y, error, "duplicate key '%s'", key);
        f->present |= 1u << field;
        f->key_mark[field] = here(r);
        if (!fennel_yaml_next(&r->y, error))
            return FALSE;
        f->mark[field] = here(r);
        if (field == F_AFTER) {
            if (!read_after(r, error))
                return FALSE;
            continue;
        }
        if (fennel_yaml_type(&r->y) != YAML_SCALAR_EVENT)
            return fennel_yaml_error(&r->y, error, "%s: expected a value, got %s",
                                     field_names[field], fennel_yaml_describe(&r->y));
        g_string_truncate(f->value[field], 0);
        g_string_append_len(f->value[field], fennel_yaml_scalar(&r->y),
                            (gssize)fennel_yaml_scalar_length(&r->y));
        if (!fennel_yaml_next(&r->y, error))
            return FALSE;
    }
    return fennel_yaml_next(&r->y, error);
}

static gboolean parse_rank(Reader *r, Field field, uint32_t *out, GError **error)
{
    int64_t v;
    const char *why;
    const char *text = r->f.value[field]->str;
    if (!fennel_parse_int(text, 0, UINT32_MAX - 2, &v, &why)) {
        if (strcmp(why, "value is out of range") == 0)
            why = text[strspn(text, " ")] == '-' ? "a rank must be >= 0"
                                                 : "a rank must be at most 4294967293";
        return error_at(r, r->f.mark[field], error, "%s: %s", field_names[field], why);
    }
    /* Ranks default to 1 + the highest used: one the machine cannot hold fails here. */
    GError *size = NULL;
    if (r->ranks == 0 && !fennel_check_size(r->limits, 0, 0, (uint64_t)v + 1, 1, &size)) {
        error_at(r, r->f.mark[field], error, "%s: rank %" G_GINT64_FORMAT ": %s",
                 field_names[field], v, size->message);
        g_error_free(size);
        return FALSE;
    }
    *out = (uint32_t)v;
    RankUse use = {*out, r->f.mark[field]};
    g_array_append_val(r->rank_uses, use);
    return TRUE;
}

typedef gboolean (*ValueParser)(const char *text, int64_t *out, const char **why);

static gboolean parse_value(Reader *r, Field field, ValueParser parse, int64_t *out, GError **error)
{
    const char *why;
    if (!parse(r->f.value[field]->str, out, &why))
        return error_at(r, r->f.mark[field], error, "%s: %s", field_names[field], why);
    return TRUE;
}

static gboolean parse_flag(Reader *r, Field field, unsigned bit, unsigned *flags, GError **error)
{
    gboolean b;
    if (!(r->f.present & (1u << field)))
        return TRUE;
    if (!parse_bool(r->f.value[field]->str, &b))
        return error_at(r, r->f.mark[field], error, "%s: expected true or false",
                        field_names[field]);
    if (b)
        *flags |= bit;
    return TRUE;
}

/* Keeps a task's step fields as text, for msccl_yaml_read.c to read. */
static void keep_note(Reader *r, uint32_t task)
{
    const TaskFields *f = &r->f;
    FennelTaskNote note = {.task = task, .start = {f->start.line, f->start.col}};
    for (int k = 0; k < FENNEL_NOTE_N_KEYS; k++) {
        if (!(f->present & (1u << (F_TB + k))))
            continue;
        note.present |= 1u << k;
        note.value[k] = (uint32_t)r->notes->text->len;
        note.mark[k] = (FennelNoteMark){f->mark[F_TB + k].line, f->mark[F_TB + k].col};
        g_string_append_len(r->notes->text, f->value[F_TB + k]->str,
                            (gssize)f->value[F_TB + k]->len + 1);
    }
    g_array_append_val(r->notes->tasks, note);
}

static gboolean add_task(Reader *r, GError **error)
{
    TaskFields *f = &r->f;
    static const Field required[] = {F_ID, F_TYPE, F_RANK};
    for (size_t i = 0; i < G_N_ELEMENTS(required); i++) {
        if (!(f->present & (1u << required[i])))
            return error_at(r, f->start, error, "task is missing '%s'", field_names[required[i]]);
    }
    const char *id = f->value[F_ID]->str;
    if (!valid_id(id))
        return error_at(r, f->mark[F_ID], error, "id '%s': use letters, digits and _ . : - only",
                        id);
    gpointer previous = g_hash_table_lookup(r->ids, id);
    if (previous) {
        Mark pm = g_array_index(r->id_marks, Mark, GPOINTER_TO_UINT(previous) - 1);
        return error_at(r, f->mark[F_ID], error, "duplicate id '%s' (first defined at %u:%u)", id,
                        pm.line, pm.col);
    }
    int type = -1;
    const char *type_name = f->value[F_TYPE]->str;
    for (int t = 0; t < FENNEL_TASK_N_TYPES && type < 0; t++) {
        const char *name = fennel_task_type_name(t);
        if (name[0] == type_name[0] && strcmp(name, type_name) == 0)
            type = t;
    }
    if (type < 0)
        return error_at(r, f->mark[F_TYPE], error,
                        "unknown task type '%s' (expected start, proxy, sleep, compute, put, "
                        "get, send, recv, load-reduce or multicast)",
                        f->value[F_TYPE]->str);
    unsigned extra = f->present & ~(COMMON_FIELDS | type_fields[type]);
    for (int i = 0; i < N_FIELDS; i++) {
        if (extra & (1u << i))
            return error_at(r, f->key_mark[i], error, "'%s' does not apply to a %s task",
                            field_names[i], fennel_task_type_name(type));
    }

    uint32_t rank;
    if (!parse_rank(r, F_RANK, &rank, error))
        return FALSE;
    FennelProgramBuilder *b = r->builder;
    uint32_t task = fennel_builder_add(b, type, rank);
    char *stored = g_string_chunk_insert(r->id_storage, id);
    g_hash_table_insert(r->ids, stored, GUINT_TO_POINTER(task + 1));
    fennel_builder_set_name(b, task, stored);
    fennel_builder_set_position(b, task, f->start.line, f->start.col);
    g_array_append_val(r->id_marks, f->mark[F_ID]);

    unsigned flags = 0;
    if (!parse_flag(r, F_CONCURRENT, FENNEL_TASK_CONCURRENT, &flags, error) ||
        !parse_flag(r, F_BLOCKING, FENNEL_TASK_BLOCKING, &flags, error) ||
        !parse_flag(r, F_EAGER, FENNEL_TASK_EAGER, &flags, error) ||
        !parse_flag(r, F_ALLREDUCE, FENNEL_TASK_ALLREDUCE, &flags, error))
        return FALSE;
    if (f->present & (1u << F_SLOT)) {
        /* The slot a task must run on; finish() checks it against `processes`. */
        int64_t slot;
        const char *why;
        if (!fennel_parse_int(f->value[F_SLOT]->str, 0, FENNEL_ANY - 1, &slot, &why))
            return error_at(r, f->mark[F_SLOT], error, "slot: expected a whole number >= 0");
        if (flags & FENNEL_TASK_CONCURRENT)
            return error_at(r, f->key_mark[F_SLOT], error,
                            "slot: a concurrent task takes any free slot; give one or the other");
        fennel_builder_set_pin(b, task, (uint32_t)slot);
    }

    /* Predecessors. */
    guint n_after = (f->present & (1u << F_AFTER)) ? f->after->len : 0;
    if (type == FENNEL_TASK_START && (f->present & (1u << F_AFTER)))
        return error_at(r, f->key_mark[F_AFTER], error, "start task '%s' cannot have predecessors",
                        id);
    if (type != FENNEL_TASK_START && n_after == 0)
        return error_at(r, f->start, error,
                        "task '%s' has no predecessors: give it 'after' (only a start task may "
                        "have none)",
                        id);
    for (guint i = 0; i < n_after; i++) {
        const char *name = f->after_text->str + g_array_index(f->after, uint32_t, i);
        Pending pending = {task, r->pending_names->len, g_array_index(f->after_marks, Mark, i)};
        g_string_append_len(r->pending_names, name, (gssize)strlen(name) + 1);
        g_array_append_val(r->pending, pending);
    }
    if (f->present & (1u << F_ANY)) {
        int64_t k;
        const char *why;
        if (!fennel_parse_int(f->value[F_ANY]->str, 1, UINT32_MAX, &k, &why) || k > n_after)
            return error_at(r, f->mark[F_ANY], error,
                            "any: '%s' is outside 1..%u, the number of predecessors",
                            f->value[F_ANY]->str, n_after);
        fennel_builder_set_any(b, task, (uint32_t)k);
    }

    int64_t v = 0;
    switch ((FennelTaskType)type) {
    case FENNEL_TASK_START:
        if ((f->present & (1u << F_SKEW)) &&
            !parse_value(r, F_SKEW, fennel_parse_duration, &v, error))
            return FALSE;
        fennel_builder_set_amount(b, task, v);
        break;
    case FENNEL_TASK_PROXY:
        break;
    case FENNEL_TASK_SLEEP:
        if (!(f->present & (1u << F_DURATION)))
            return error_at(r, f->start, error, "sleep task '%s' needs a 'duration'", id);
        if (!parse_value(r, F_DURATION, fennel_parse_duration, &v, error))
            return FALSE;
        fennel_builder_set_amount(b, task, v);
        break;
    case FENNEL_TASK_COMPUTE: {
        gboolean sized = (f->present & (1u << F_SIZE)) != 0;
        if (sized == ((f->present & (1u << F_DURATION)) != 0))
            return error_at(r, f->start, error,
                            "compute task '%s' needs exactly one of 'size' and 'duration'", id);
        if (!parse_value(r, sized ? F_SIZE : F_DURATION,
                         sized ? fennel_parse_size : fennel_parse_duration, &v, error))
            return FALSE;
        if (sized)
            flags |= FENNEL_TASK_SIZED;
        fennel_builder_set_amount(b, task, v);
        break;
    }
    case FENNEL_TASK_PUT:
    case FENNEL_TASK_GET:
    case FENNEL_TASK_SEND:
    case FENNEL_TASK_RECV: {
        Field peer_field = type == FENNEL_TASK_PUT || type == FENNEL_TASK_SEND ? F_TO : F_FROM;
        if (!(f->present & (1u << peer_field)) || !(f->present & (1u << F_SIZE)))
            return error_at(r, f->start, error, "%s task '%s' needs '%s' and 'size'",
                            fennel_task_type_name(type), id, field_names[peer_field]);
        uint32_t peer = FENNEL_ANY;
        gboolean any_source =
            type == FENNEL_TASK_RECV && strcmp(f->value[peer_field]->str, "any") == 0;
        if ((!any_source && !parse_rank(r, peer_field, &peer, error)) ||
            !parse_value(r, F_SIZE, fennel_parse_size, &v, error))
            return FALSE;
        fennel_builder_set_peer(b, task, peer);
        fennel_builder_set_amount(b, task, v);
        if (type == FENNEL_TASK_GET) {
            int64_t request = 8;
            if ((f->present & (1u << F_REQUEST)) &&
                !parse_value(r, F_REQUEST, fennel_parse_size, &request, error))
                return FALSE;
            fennel_builder_set_request(b, task, request);
        }
        if (type == FENNEL_TASK_SEND || type == FENNEL_TASK_RECV) {
            int64_t tag = 0;
            const char *why;
            const char *text = f->value[F_TAG]->str;
            if (!(f->present & (1u << F_TAG)))
                tag = 0;
            else if (type == FENNEL_TASK_RECV && strcmp(text, "any") == 0)
                tag = FENNEL_ANY;
            else if (!fennel_parse_int(text, 0, FENNEL_ANY - 1, &tag, &why))
                return error_at(r, f->mark[F_TAG], error, "tag: expected a whole number%s",
                                type == FENNEL_TASK_RECV ? " or any" : "");
            fennel_builder_set_tag(b, task, (uint32_t)tag);
        }
        break;
    }
    case FENNEL_TASK_LOAD_REDUCE:
    case FENNEL_TASK_MULTICAST: {
        /* `group: FIRST..LAST` or `FIRST..LAST by STEP` (every STEP-th rank, e.g. one GPU of
         * each server on a rail's leaf): the ranks on the switch; finish() checks that the
         * rank is one. */
        if (!(f->present & (1u << F_GROUP)) || !(f->present & (1u << F_SIZE)))
            return error_at(r, f->start, error, "%s task '%s' needs 'group' and 'size'",
                            fennel_task_type_name(type), id);
        const char *text = f->value[F_GROUP]->str;
        const char *dots = strstr(text, "..");
        const char *by = dots ? strstr(dots, " by ") : NULL;
        int64_t first, last, step = 1;
        const char *why;
        char *head = dots ? g_strndup(text, (gsize)(dots - text)) : NULL;
        char *tail = by ? g_strndup(dots + 2, (gsize)(by - dots - 2)) : NULL;
        gboolean ok = dots && fennel_parse_int(head, 0, FENNEL_ANY - 1, &first, &why) &&
                      fennel_parse_int(by ? tail : dots + 2, 0, FENNEL_ANY - 1, &last, &why) &&
                      last >= first &&
                      (!by || fennel_parse_int(by + 4, 1, FENNEL_ANY - 1, &step, &why)) &&
                      (last - first) % step == 0;
        g_free(head);
        g_free(tail);
        if (!ok)
            return error_at(r, f->mark[F_GROUP], error,
                            "group: expected a range of ranks FIRST..LAST, e.g. 0..7, or "
                            "FIRST..LAST by STEP with LAST - FIRST a multiple of STEP, e.g. 3..27 "
                            "by 8");
        if (!parse_value(r, F_SIZE, fennel_parse_size, &v, error))
            return FALSE;
        fennel_builder_set_peer(b, task, (uint32_t)first);
        fennel_builder_set_tag(b, task, (uint32_t)((last - first) / step + 1));
        if (step > 1)
            fennel_builder_set_request(b, task, step);
        fennel_builder_set_amount(b, task, v);
        break;
    }
    case FENNEL_TASK_N_TYPES:
        g_assert_not_reached();
    }
    if (f->present & (1u << F_DATA)) {
        /* `data: A..B`: blocks A, A + 1, ..., B of the vector, wrapping past the last. */
        const char *text = f->value[F_DATA]->str;
        const char *dots = strstr(text, "..");
        int64_t first, last;
        const char *why;
        char *head = dots ? g_strndup(text, (gsize)(dots - text)) : NULL;
        gboolean ok = dots && fennel_parse_int(head, 0, UINT32_MAX - 1, &first, &why) &&
                      fennel_parse_int(dots + 2, 0, UINT32_MAX - 1, &last, &why);
        g_free(head);
        if (!ok)
            return error_at(r, f->mark[F_DATA], error,
                            "data: expected a block range FIRST..LAST, e.g. 0..3");
        DataRange d = {task, (uint32_t)first, (uint32_t)last, f->mark[F_DATA]};
        g_array_append_val(r->data, d);
    }
    fennel_builder_set_flags(b, task, flags);
    if (r->notes && (f->present & NOTE_FIELDS))
        keep_note(r, task);
    return TRUE;
}

static gboolean read_tasks(Reader *r, GError **error)
{
    if (fennel_yaml_type(&r->y) != YAML_SEQUENCE_START_EVENT)
        return fennel_yaml_error(&r->y, error, "tasks: expected a sequence, got %s",
                                 fennel_yaml_describe(&r->y));
    if (!fennel_yaml_next(&r->y, error))
        return FALSE;
    while (fennel_yaml_type(&r->y) != YAML_SEQUENCE_END_EVENT) {
        if (!read_task_fields(r, error) || !add_task(r, error))
            return FALSE;
    }
    return fennel_yaml_next(&r->y, error);
}

static gboolean read_count(Reader *r, const char *key, int64_t *out, Mark *mark, GError **error)
{
    const char *why;
    *mark = here(r);
    if (fennel_yaml_type(&r->y) != YAML_SCALAR_EVENT)
        return fennel_yaml_error(&r->y, error, "%s: expected a number, got %s", key,
                                 fennel_yaml_describe(&r->y));
    if (!fennel_parse_int(fennel_yaml_scalar(&r->y), 1, UINT32_MAX - 1, out, &why))
        return fennel_yaml_error(&r->y, error, "%s: expected a whole number >= 1", key);
    /* A rank or slot count the machine cannot hold fails here, where it is written. */
    GError *size = NULL;
    gboolean ranks = strcmp(key, "ranks") == 0;
    if (!fennel_check_size(r->limits, 0, 0, ranks ? (uint64_t)*out : 1, ranks ? 1 : (uint64_t)*out,
                           &size)) {
        fennel_yaml_error(&r->y, error, "%s: %s", key, size->message);
        g_error_free(size);
        return FALSE;
    }
    return fennel_yaml_next(&r->y, error);
}

static gboolean read_text(Reader *r, const char *key, GError **error)
{
    if (fennel_yaml_type(&r->y) != YAML_SCALAR_EVENT)
        return fennel_yaml_error(&r->y, error, "%s: expected text, got %s", key,
                                 fennel_yaml_describe(&r->y));
    return fennel_yaml_next(&r->y, error);
}

/* `collective: NAME`: a name of letters and dashes; `fennel verify` checks that it knows it. */
static gboolean read_collective(Reader *r, GError **error)
{
    const char *text =
        fennel_yaml_type(&r->y) == YAML_SCALAR_EVENT ? fennel_yaml_scalar(&r->y) : "";
    gboolean ok = *text != '\0';
    for (const char *c = text; *c && ok; c++)
        ok = g_ascii_isalnum(*c) || *c == '-';
    if (!ok)
        return fennel_yaml_error(&r->y, error,
                                 "collective: expected a collective's name, e.g. allreduce");
    g_free(r->collective);
    r->collective = g_strdup(text);
    return fennel_yaml_next(&r->y, error);
}

/* The `msccl` section, kept as text: a sequence of rows, each a mapping of keys to
 * values (msccl_yaml_read.c gives them their meaning). */
static gboolean read_section(Reader *r, GError **error)
{
    FennelYamlNotes *n = r->notes;
    n->section = TRUE;
    if (fennel_yaml_type(&r->y) != YAML_SEQUENCE_START_EVENT)
        return fennel_yaml_error(&r->y, error, "msccl: expected a sequence of rows, got %s",
                                 fennel_yaml_describe(&r->y));
    if (!fennel_yaml_next(&r->y, error))
        return FALSE;
    while (fennel_yaml_type(&r->y) != YAML_SEQUENCE_END_EVENT) {
        FennelNoteRow row = {{fennel_yaml_line(&r->y), fennel_yaml_col(&r->y)}, n->entries->len, 0};
        if (fennel_yaml_type(&r->y) != YAML_MAPPING_START_EVENT)
            return fennel_yaml_error(&r->y, error, "msccl: expected a row (a mapping), got %s",
                                     fennel_yaml_describe(&r->y));
        if (!fennel_yaml_next(&r->y, error))
            return FALSE;
        while (fennel_yaml_type(&r->y) != YAML_MAPPING_END_EVENT) {
            FennelNoteEntry e;
            for (int side = 0; side < 2; side++) {
                if (fennel_yaml_type(&r->y) != YAML_SCALAR_EVENT)
                    return fennel_yaml_error(&r->y, error, "msccl: expected a %s, got %s",
                                             side ? "value" : "key", fennel_yaml_describe(&r->y));
                FennelNoteMark m = {fennel_yaml_line(&r->y), fennel_yaml_col(&r->y)};
                *(side ? &e.value_mark : &e.key_mark) = m;
                *(side ? &e.value : &e.key) = (uint32_t)n->text->len;
                g_string_append_len(n->text, fennel_yaml_scalar(&r->y),
                                    (gssize)fennel_yaml_scalar_length(&r->y));
                g_string_append_c(n->text, '\0');
                if (!fennel_yaml_next(&r->y, error))
                    return FALSE;
            }
            g_array_append_val(n->entries, e);
            row.n++;
        }
        g_array_append_val(n->rows, row);
        if (!fennel_yaml_next(&r->y, error))
            return FALSE;
    }
    return fennel_yaml_next(&r->y, error);
}

static gboolean read_version(Reader *r, GError **error)
{
    int64_t v;
    const char *why;
    if (fennel_yaml_type(&r->y) != YAML_SCALAR_EVENT ||
        !fennel_parse_int(fennel_yaml_scalar(&r->y), 1, 1, &v, &why))
        return fennel_yaml_error(
            &r->y, error, "fennel: unsupported format version (this fennel reads version 1)");
    return fennel_yaml_next(&r->y, error);
}

static gboolean read_document(Reader *r, GError **error)
{
    enum {
        K_FENNEL,
        K_RANKS,
        K_PROCESSES,
        K_TASKS,
        K_NAME,
        K_DESCRIPTION,
        K_COLLECTIVE,
        K_ROOT,
        K_BLOCKS,
        K_MSCCL,
        N_KEYS
    };
    static const char *const keys[N_KEYS] = {"fennel", "ranks",       "processes",  "tasks",
                                             "name",   "description", "collective", "root",
                                             "blocks", "msccl"};
    if (fennel_yaml_type(&r->y) != YAML_MAPPING_START_EVENT)
        return fennel_yaml_error(&r->y, error,
                                 "expected a mapping with 'fennel: 1' and 'tasks', got %s",
                                 fennel_yaml_describe(&r->y));
    Mark top = here(r);
    unsigned seen = 0;
    if (!fennel_yaml_next(&r->y, error))
        return FALSE;
    while (fennel_yaml_type(&r->y) != YAML_MAPPING_END_EVENT) {
        if (fennel_yaml_type(&r->y) != YAML_SCALAR_EVENT)
            return fennel_yaml_error(&r->y, error, "expected a key, got %s",
                                     fennel_yaml_describe(&r->y));
        int k = 0;
        while (k < N_KEYS && strcmp(keys[k], fennel_yaml_scalar(&r->y)) != 0)
            k++;
        if (k == N_KEYS) {
            /* A model file given where a program belongs is a likely mix-up: say so. */
            const char *key = fennel_yaml_scalar(&r->y);
            gboolean model = strcmp(key, "network") == 0 || strcmp(key, "compute") == 0 ||
                             strcmp(key, "noise") == 0 || strcmp(key, "placement") == 0;
            return fennel_yaml_error(&r->y, error,
                                     "unknown key '%s' (expected one of: fennel, ranks, "
                                     "processes, tasks, name, description, collective, root, "
                                     "blocks, msccl)%s",
                                     key, model ? "; a model file goes after --model" : "");
        }
        if (seen & (1u << k))
            return fennel_yaml_error(&r->y, error, "duplicate key '%s'", keys[k]);
        seen |= 1u << k;
        if (k == K_MSCCL && r->notes)
            r->notes->section_key =
                (FennelNoteMark){fennel_yaml_line(&r->y), fennel_yaml_col(&r->y)};
        if (!fennel_yaml_next(&r->y, error))
            return FALSE;
        gboolean ok = FALSE;
        switch (k) {
        case K_FENNEL:
            ok = read_version(r, error);
            break;
        case K_RANKS:
            ok = read_count(r, keys[k], &r->ranks, &r->ranks_mark, error);
            break;
        case K_PROCESSES:
            ok = read_count(r, keys[k], &r->processes, &r->processes_mark, error);
            break;
        case K_TASKS:
            ok = read_tasks(r, error);
            break;
        case K_COLLECTIVE:
            ok = read_collective(r, error);
            break;
        case K_MSCCL:
            ok = r->notes ? read_section(r, error) : fennel_yaml_skip(&r->y, error);
            break;
        case K_ROOT:
        case K_BLOCKS: {
            const char *why;
            gboolean root = k == K_ROOT;
            if (root ? !fennel_parse_int(fennel_yaml_scalar(&r->y), 0, UINT32_MAX - 2, &r->root,
                                         &why)
                     : !fennel_parse_int(fennel_yaml_scalar(&r->y), 1, UINT32_MAX - 1, &r->blocks,
                                         &why))
                return fennel_yaml_error(&r->y, error, "%s: expected a whole number >= %d", keys[k],
                                         root ? 0 : 1);
            if (!root)
                r->blocks_mark = here(r);
            ok = fennel_yaml_next(&r->y, error);
            break;
        }
        default:
            ok = read_text(r, keys[k], error);
            break;
        }
        if (!ok)
            return FALSE;
    }
    if (!(seen & (1u << K_FENNEL)))
        return error_at(r, top, error, "missing 'fennel: 1' (the format version)");
    if (!(seen & (1u << K_TASKS)))
        return error_at(r, top, error, "missing 'tasks'");
    return fennel_yaml_next(&r->y, error);
}

/* Resolves `after` names and checks ranks against an explicit `ranks`. */
static gboolean resolve(Reader *r, GError **error)
{
    for (guint i = 0; i < r->pending->len; i++) {
        const Pending *p = &g_array_index(r->pending, Pending, i);
        const char *name = r->pending_names->str + p->name;
        gpointer found = g_hash_table_lookup(r->ids, name);
        if (found == NULL)
            return error_at(r, p->mark, error, "unknown task '%s' in after", name);
        fennel_builder_add_edge(r->builder, GPOINTER_TO_UINT(found) - 1, p->task);
    }
    for (guint i = 0; r->ranks > 0 && i < r->rank_uses->len; i++) {
        const RankUse *use = &g_array_index(r->rank_uses, RankUse, i);
        if (use->value >= r->ranks)
            return error_at(r, use->mark, error, "rank %u is outside 0..%u (ranks: %u at %u:%u)",
                            use->value, (unsigned)r->ranks - 1, (unsigned)r->ranks,
                            r->ranks_mark.line, r->ranks_mark.col);
    }
    return TRUE;
}

static void reader_init(Reader *r, const FennelLimits *limits)
{
    memset(r, 0, sizeof *r);
    r->limits = limits;
    r->builder = fennel_builder_new();
    fennel_builder_set_limits(r->builder, limits);
    r->ids = g_hash_table_new(g_str_hash, g_str_equal);
    r->id_storage = g_string_chunk_new(4096);
    r->id_marks = g_array_new(FALSE, FALSE, sizeof(Mark));
    r->rank_uses = g_array_new(FALSE, FALSE, sizeof(RankUse));
    r->pending = g_array_new(FALSE, FALSE, sizeof(Pending));
    r->pending_names = g_string_new(NULL);
    r->data = g_array_new(FALSE, FALSE, sizeof(DataRange));
    r->root = r->blocks = -1;
    for (int i = 0; i < N_FIELDS; i++)
        r->f.value[i] = g_string_new(NULL);
    r->f.after = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    r->f.after_marks = g_array_new(FALSE, FALSE, sizeof(Mark));
    r->f.after_text = g_string_new(NULL);
}

static void reader_clear(Reader *r)
{
    fennel_builder_free(r->builder);
    g_hash_table_destroy(r->ids);
    g_string_chunk_free(r->id_storage);
    g_array_free(r->id_marks, TRUE);
    g_array_free(r->rank_uses, TRUE);
    g_array_free(r->pending, TRUE);
    g_string_free(r->pending_names, TRUE);
    g_array_free(r->data, TRUE);
    g_free(r->collective);
    for (int i = 0; i < N_FIELDS; i++)
        g_string_free(r->f.value[i], TRUE);
    g_array_free(r->f.after, TRUE);
    g_array_free(r->f.after_marks, TRUE);
    g_string_free(r->f.after_text, TRUE);
    fennel_yaml_close(&r->y);
}

/* The block ranges of `data:` fields, once `blocks` is known: each end within 0..blocks-1. */
static gboolean apply_data(Reader *r, FennelProgramBuilder *b, GError **error)
{
    if (r->data->len == 0) {
        if (r->blocks > 0)
            fennel_builder_set_n_blocks(b, (uint32_t)r->blocks);
        return TRUE;
    }
    for (guint i = 0; i < r->data->len; i++) {
        const DataRange *d = &g_array_index(r->data, DataRange, i);
        if (r->blocks < 0)
            return error_at(r, d->mark, error,
                            "data: a block range needs 'blocks: N' at the top of the file");
        if (d->first >= r->blocks || d->last >= r->blocks)
            return error_at(r, d->mark, error,
                            "data: block %u is outside 0..%" G_GINT64_FORMAT
                            " (blocks: %" G_GINT64_FORMAT " at %u:%u)",
                            d->first >= r->blocks ? d->first : d->last, r->blocks - 1, r->blocks,
                            r->blocks_mark.line, r->blocks_mark.col);
    }
    fennel_builder_set_n_blocks(b, (uint32_t)r->blocks);
    for (guint i = 0; i < r->data->len; i++) {
        const DataRange *d = &g_array_index(r->data, DataRange, i);
        uint32_t count = (uint32_t)(((int64_t)d->last - d->first + r->blocks) % r->blocks) + 1;
        fennel_builder_set_blocks(b, d->task, d->first, count);
    }
    return TRUE;
}

static FennelProgram *read_program(Reader *r, gboolean opened, GError **error)
{
    FennelProgram *p = NULL;
    if (opened && read_document(r, error) && fennel_yaml_finish(&r->y, error) &&
        resolve(r, error)) {
        FennelProgramBuilder *b = r->builder;
        r->builder = NULL;
        if (!apply_data(r, b, error)) {
            fennel_builder_free(b);
            reader_clear(r);
            return NULL;
        }
        p = fennel_builder_finish(b, r->y.file, (uint32_t)r->ranks, (uint32_t)r->processes, error);
        if (p) {
            p->name = g_path_get_basename(r->y.file);
            p->collective = g_steal_pointer(&r->collective);
            p->root = r->root >= 0 ? (uint32_t)r->root : FENNEL_NO_RANK;
        }
    }
    reader_clear(r);
    return p;
}

static FennelProgram *parse(const char *name, const char *data, gsize length, FennelYamlPath path,
                            const FennelLimits *limits, FennelYamlNotes *notes, GError **error)
{
    if (path == FENNEL_YAML_AUTO) {
        /* The fast scanner takes the common shape; anything else, and every error, is
         * read again by libyaml, so that messages and meaning are always libyaml's. */
        FennelProgram *p = parse(name, data, length, FENNEL_YAML_FAST_ONLY, limits, notes, NULL);
        if (p)
            return p;
        if (notes) {
            fennel__yaml_notes_clear(notes);
            fennel__yaml_notes_init(notes);
        }
        return parse(name, data, length, FENNEL_YAML_LIBYAML_ONLY, limits, notes, error);
    }
    Reader r;
    reader_init(&r, limits);
    r.notes = notes;
    gboolean opened =
        fennel_yaml_open_text(&r.y, name, data, length, path == FENNEL_YAML_FAST_ONLY, error);
    return read_program(&r, opened, error);
}

FennelProgram *fennel_program_parse_yaml_with(const char *name, const char *data, gsize length,
                                              FennelYamlPath path, const FennelLimits *limits,
                                              GError **error)
{
    return parse(name, data, length, path, limits, NULL, error);
}

FennelProgram *fennel__yaml_parse_noted(const char *file, const char *data, gsize length,
                                        const FennelLimits *limits, FennelYamlNotes *notes,
                                        GError **error)
{
    return parse(file, data, length, FENNEL_YAML_AUTO, limits, notes, error);
}

void fennel__yaml_notes_init(FennelYamlNotes *notes)
{
    memset(notes, 0, sizeof *notes);
    notes->rows = g_array_new(FALSE, FALSE, sizeof(FennelNoteRow));
    notes->entries = g_array_new(FALSE, FALSE, sizeof(FennelNoteEntry));
    notes->tasks = g_array_new(FALSE, FALSE, sizeof(FennelTaskNote));
    notes->text = g_string_new(NULL);
}

void fennel__yaml_notes_clear(FennelYamlNotes *notes)
{
    g_array_unref(notes->rows);
    g_array_unref(notes->entries);
    g_array_unref(notes->tasks);
    g_string_free(notes->text, TRUE);
    memset(notes, 0, sizeof *notes);
}

FennelProgram *fennel_program_parse_yaml(const char *name, const char *data, gsize length,
                                         GError **error)
{
    return fennel_program_parse_yaml_with(name, data, length, FENNEL_YAML_AUTO, NULL, error);
}
