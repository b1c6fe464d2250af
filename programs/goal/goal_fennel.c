/* The original Fennel's GOAL dialect (README, Program files; the original's `old/parser.py`):
 *
 *   rank 0 {
 *       l1: start [400ns]
 *       l2: put 8b to r1 [blocking]
 *       l3: compute 100ns | compute 8b
 *       l4: sleep 100ns
 *       l3 > r1:l2          (l3 depends on rank 1's l2)
 *   }
 *
 * Tasks are named r{rank}l{label}. Dependencies may name tasks defined later or on other
 * ranks; they are resolved once the file is read. Unlike the original, a line that is
 * not one of these (say `branch`) is an error rather than silently skipped; `#` starts a
 * comment. */
#include "goal_lex.h"
#include "goal_readers.h"

#include "errors.h"

#include <string.h>

typedef struct {
    uint32_t task;        /* the dependent task */
    uint32_t rank, label; /* of the task it depends on */
    unsigned line, col;
} Dependency;

typedef struct {
    FennelGoalLex lx;
    FennelProgramBuilder *b;
    const FennelLimits *limits; /* NULL: the defaults */
    int64_t rank;
    GHashTable *tasks; /* key(rank, label) -> task + 1 */
    GArray *deps;
    GArray *pending; /* per dependency line within the block: the dependent's label */
    unsigned block_line;
} Reader;

/* A task's key: its rank and label (at most UINT32_MAX) packed in one pointer, so that
 * the table of a few million tasks hashes integers and allocates nothing per task. */
G_STATIC_ASSERT(sizeof(gpointer) >= sizeof(guint64));

static gpointer key(uint32_t rank, uint64_t label)
{
    return (gpointer)(guintptr)((guint64)rank << 32 | label);
}

static guint key_hash(gconstpointer k)
{
    guint64 x = (guint64)(guintptr)k;
    x ^= x >> 29;
    x *= G_GUINT64_CONSTANT(0x9e3779b97f4a7c15);
    return (guint)(x >> 32);
}

/* Writes "r{rank}l{label}" without printf, which is slow enough to show in profiles. */
static void task_name(char *out, uint32_t rank, uint64_t label)
{
    char digits[24];
    int n = 0;
    *out++ = 'r';
    do
        digits[n++] = (char)('0' + rank % 10);
    while ((rank /= 10) != 0);
    while (n > 0)
        *out++ = digits[--n];
    *out++ = 'l';
    do
        digits[n++] = (char)('0' + label % 10);
    while ((label /= 10) != 0);
    while (n > 0)
        *out++ = digits[--n];
    *out = '\0';
}

/* `l` followed by a number. */
static gboolean read_label(Reader *r, uint64_t *label, GError **error)
{
    if (!fennel_goal_lex_accept(&r->lx, "l"))
        return fennel_goal_lex_error(&r->lx, error, "expected a label like l1");
    return fennel_goal_lex_number(&r->lx, UINT32_MAX, label, "a label number", error);
}

/* A duration "Kns" or size "Kb" after the number K. */
static gboolean read_unit(Reader *r, const char *unit)
{
    return fennel_goal_lex_accept(&r->lx, unit);
}

static gboolean read_task(Reader *r, uint64_t label, unsigned col, GError **error)
{
    char word[16];
    uint32_t rank = (uint32_t)r->rank;
    FennelProgramBuilder *b = r->b;
    unsigned op_col = (fennel_goal_lex_skip(&r->lx, TRUE), fennel_goal_lex_col(&r->lx));
    if (!fennel_goal_lex_word(&r->lx, word, sizeof word))
        return fennel_goal_lex_error(&r->lx, error, "expected start, put, compute or sleep");
    uint32_t task;
    uint64_t v = 0;
    if (strcmp(word, "start") == 0) {
        task = fennel_builder_add(b, FENNEL_TASK_START, rank);
        if (!fennel_goal_lex_at_end(&r->lx, TRUE)) {
            if (!fennel_goal_lex_number(&r->lx, INT64_MAX / FENNEL_NS, &v, "a skew in ns", error))
                return FALSE;
            if (!read_unit(r, "ns"))
                return fennel_goal_lex_error(&r->lx, error, "expected 'ns' after the skew");
            fennel_builder_set_amount(b, task, (FennelTime)v * FENNEL_NS);
        }
    } else if (strcmp(word, "put") == 0) {
        uint64_t peer;
        if (!fennel_goal_lex_number(&r->lx, INT64_MAX, &v, "a size", error))
            return FALSE;
        if (!read_unit(r, "b"))
            return fennel_goal_lex_error(&r->lx, error, "expected 'b' after the size");
        if (!fennel_goal_lex_accept(&r->lx, "to") || !fennel_goal_lex_accept(&r->lx, "r"))
            return fennel_goal_lex_error(&r->lx, error, "expected 'to rN'");
        unsigned peer_col = fennel_goal_lex_col(&r->lx);
        if (!fennel_goal_lex_number(&r->lx, UINT32_MAX - 2, &peer, "a rank", error))
            return FALSE;
        /* A rank the machine cannot hold fails here, where it is written. */
        GError *size = NULL;
        if (!fennel_check_size(r->limits, 0, 0, peer + 1, 1, &size)) {
            fennel_goal_lex_error_at(&r->lx, peer_col, error, "rank %" G_GUINT64_FORMAT ": %s",
                                     peer, size->message);
            g_error_free(size);
            return FALSE;
        }
        task = fennel_builder_add(b, FENNEL_TASK_PUT, rank);
        fennel_builder_set_peer(b, task, (uint32_t)peer);
        fennel_builder_set_amount(b, task, (int64_t)v);
        if (!fennel_goal_lex_at_end(&r->lx, TRUE)) {
            if (!fennel_goal_lex_word(&r->lx, word, sizeof word) || strcmp(word, "blocking") != 0)
                return fennel_goal_lex_error(&r->lx, error,
                                             "expected 'blocking' or the end of "
                                             "the line");
            fennel_builder_set_flags(b, task, FENNEL_TASK_BLOCKING);
        }
    } else if (strcmp(word, "compute") == 0 || strcmp(word, "sleep") == 0) {
        gboolean compute = word[0] == 'c';
        if (!fennel_goal_lex_number(&r->lx, INT64_MAX / FENNEL_NS, &v, "an amount", error))
            return FALSE;
        gboolean ns = read_unit(r, "ns");
        gboolean bytes = !ns && compute && read_unit(r, "b");
        if (!ns && !bytes)
            return fennel_goal_lex_error(&r->lx, error,
                                         compute ? "expected 'ns' or 'b'" : "expected 'ns'");
        task = fennel_builder_add(b, compute ? FENNEL_TASK_COMPUTE : FENNEL_TASK_SLEEP, rank);
        fennel_builder_set_amount(b, task, ns ? (FennelTime)v * FENNEL_NS : (int64_t)v);
        if (bytes)
            fennel_builder_set_flags(b, task, FENNEL_TASK_SIZED);
    } else {
        return fennel_goal_lex_error_at(&r->lx, op_col, error,
                                        "unknown task '%s' (expected start, put, compute or "
                                        "sleep)",
                                        word);
    }
    if (!fennel_goal_lex_at_end(&r->lx, TRUE))
        return fennel_goal_lex_error(&r->lx, error, "unexpected text after the task");
    char name[48];
    task_name(name, rank, label);
    fennel_builder_set_name(b, task, name);
    fennel_builder_set_position(b, task, r->lx.line, col);
    gpointer k = key(rank, label);
    /* One probe: insert says whether the key was new (the reader stops either way). */
    if (!g_hash_table_insert(r->tasks, k, GUINT_TO_POINTER(task + 1)))
        return fennel_goal_lex_error_at(&r->lx, col, error,
                                        "label l%" G_GUINT64_FORMAT " is defined twice in rank %u",
                                        label, rank);
    return TRUE;
}

/* `lA > [rM:]lB`, the label A already read. */
static gboolean read_dependency(Reader *r, uint64_t label, unsigned col, GError **error)
{
    uint64_t rank = (uint64_t)r->rank, target;
    unsigned target_col = (fennel_goal_lex_skip(&r->lx, TRUE), fennel_goal_lex_col(&r->lx));
    if (fennel_goal_lex_accept(&r->lx, "r")) {
        if (!fennel_goal_lex_number(&r->lx, UINT32_MAX - 2, &rank, "a rank", error))
            return FALSE;
        if (!fennel_goal_lex_accept(&r->lx, ":"))
            return fennel_goal_lex_error(&r->lx, error, "expected ':' after the rank");
    }
    if (!read_label(r, &target, error))
        return FALSE;
    if (!fennel_goal_lex_at_end(&r->lx, TRUE))
        return fennel_goal_lex_error(&r->lx, error, "unexpected text after the dependency");
    /* The dependent is resolved at the end too: it may be defined later in the block. */
    Dependency d = {(uint32_t)label, (uint32_t)rank, (uint32_t)target, r->lx.line, target_col};
    g_array_append_val(r->deps, d);
    uint32_t self_rank = (uint32_t)r->rank;
    g_array_append_val(r->pending, self_rank);
    (void)col;
    return TRUE;
}

static gboolean read_file(Reader *r, GError **error)
{
    char word[16];
    while (fennel_goal_lex_next_line(&r->lx)) {
        if (fennel_goal_lex_at_end(&r->lx, TRUE))
            continue;
        unsigned col = fennel_goal_lex_col(&r->lx);
        if (r->rank < 0) {
            uint64_t rank;
            if (!fennel_goal_lex_word(&r->lx, word, sizeof word) || strcmp(word, "rank") != 0)
                return fennel_goal_lex_error_at(&r->lx, col, error, "expected 'rank N {'");
            if (!fennel_goal_lex_number(&r->lx, UINT32_MAX - 2, &rank, "a rank", error))
                return FALSE;
            if (!fennel_goal_lex_accept(&r->lx, "{") || !fennel_goal_lex_at_end(&r->lx, TRUE))
                return fennel_goal_lex_error(&r->lx, error, "expected '{' at the end of the line");
            r->rank = (int64_t)rank;
            r->block_line = r->lx.line;
            continue;
        }
        if (fennel_goal_lex_accept(&r->lx, "}")) {
            if (!fennel_goal_lex_at_end(&r->lx, TRUE))
                return fennel_goal_lex_error(&r->lx, error, "unexpected text after '}'");
            r->rank = -1;
            continue;
        }
        uint64_t label;
        if (!read_label(r, &label, error)) {
            /* A LogGOPSim statement in a file without `num_ranks` first: say so. */
            const char *saved = r->lx.p;
            r->lx.p = r->lx.line_start;
            gboolean loggopsim = fennel_goal_lex_word(&r->lx, word, sizeof word) &&
                                 (strcmp(word, "send") == 0 || strcmp(word, "recv") == 0 ||
                                  strcmp(word, "calc") == 0);
            r->lx.p = saved;
            if (loggopsim) {
                g_clear_error(error);
                return fennel_goal_lex_error_at(&r->lx, col, error,
                                                "'%s' is LogGOPSim GOAL, whose files start with "
                                                "'num_ranks N' (this file reads as the original "
                                                "Fennel's dialect)",
                                                word);
            }
            return FALSE;
        }
        if (fennel_goal_lex_accept(&r->lx, ":")) {
            if (!read_task(r, label, col, error))
                return FALSE;
        } else if (fennel_goal_lex_accept(&r->lx, ">")) {
            if (!read_dependency(r, label, col, error))
                return FALSE;
        } else {
            return fennel_goal_lex_error(&r->lx, error, "expected ':' or '>' after the label");
        }
    }
    if (r->rank >= 0) {
        fennel_error_at(error, r->lx.file, r->block_line, 1,
                        "rank %" G_GINT64_FORMAT " block is not closed with '}'", r->rank);
        return FALSE;
    }
    return TRUE;
}

static gboolean resolve(Reader *r, GError **error)
{
    for (guint i = 0; i < r->deps->len; i++) {
        const Dependency *d = &g_array_index(r->deps, Dependency, i);
        uint32_t own_rank = g_array_index(r->pending, uint32_t, i);
        uint32_t ta = GPOINTER_TO_UINT(g_hash_table_lookup(r->tasks, key(own_rank, d->task)));
        uint32_t tb = GPOINTER_TO_UINT(g_hash_table_lookup(r->tasks, key(d->rank, d->label)));
        if (ta == 0 || tb == 0) {
            fennel_error_at(error, r->lx.file, d->line, ta == 0 ? 1 : d->col, "no task r%ul%u",
                            ta == 0 ? own_rank : d->rank, ta == 0 ? d->task : d->label);
            return FALSE;
        }
        fennel_builder_add_edge(r->b, tb - 1, ta - 1);
    }
    return TRUE;
}

FennelProgram *fennel_goal_parse_fennel(const char *name, const char *data, gsize length,
                                        const FennelLimits *limits, GError **error)
{
    Reader r = {0};
    fennel_goal_lex_init(&r.lx, name, data, length);
    r.b = fennel_builder_new();
    fennel_builder_set_limits(r.b, limits);
    r.limits = limits;
    r.rank = -1;
    r.tasks = g_hash_table_new(key_hash, g_direct_equal);
    r.deps = g_array_new(FALSE, FALSE, sizeof(Dependency));
    r.pending = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    FennelProgram *p = NULL;
    if (read_file(&r, error) && resolve(&r, error)) {
        p = fennel_builder_finish(r.b, name, 0, 1, error);
        r.b = NULL;
        if (p)
            p->name = g_path_get_basename(name);
    }
    fennel_builder_free(r.b);
    g_hash_table_destroy(r.tasks);
    g_array_free(r.deps, TRUE);
    g_array_free(r.pending, TRUE);
    return p;
}

gboolean fennel_goal_is_loggopsim(const char *data, gsize length)
{
    FennelGoalLex lx;
    char word[16];
    fennel_goal_lex_init(&lx, NULL, data, length);
    while (fennel_goal_lex_next_line(&lx)) {
        if (fennel_goal_lex_at_end(&lx, FALSE))
            continue;
        return fennel_goal_lex_word(&lx, word, sizeof word) && strcmp(word, "num_ranks") == 0;
    }
    return FALSE;
}
