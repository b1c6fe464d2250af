/* The LogGOPSim GOAL reader (README, Program files): `num_ranks N`, then one `rank R { ... }` block
 * per rank with `send`, `recv` and `calc` operations, optional labels, and `A requires B` / `A
 * irequires B` dependencies between labels of the same rank. Each rank gets an implicit start task
 * that every operation without a dependency follows; `cpu C` pins an operation to slot C. The
 * grammar is txt2bin's, with two liberties: the optional fields of send and recv may come in any
 * order, and every error names its line and column. All NICs of a rank are one NIC here (`nic N` is
 * read and ignored). Plain files take the fast path of goal_fast.c; this reader reads what it
 * declines. */
#include "goal_lex.h"
#include "goal_readers.h"

#include "capacity.h"
#include "errors.h"

#include <string.h>

typedef struct {
    FennelGoalLex lx;
    FennelProgramBuilder *b;
    const FennelLimits *limits; /* NULL: the defaults */
    uint64_t num_ranks;
    gboolean have_num_ranks;
    unsigned num_ranks_line, num_ranks_col; /* where it was given, for errors */
    int64_t rank;                           /* the open block, or -1 */
    uint8_t *seen_rank;
    uint32_t *start;    /* per rank: its start task */
    GHashTable *labels; /* of the open block: label -> task + 1 */
    GArray *has_pred;   /* per task: it has a predecessor */
    uint32_t ops_in_rank;
    uint32_t max_cpu;
    unsigned block_line;
    FennelGoalTags tags;
} Reader;

static gboolean is_keyword(const char *w)
{
    static const char *const keywords[] = {"send",      "recv",     "calc",     "rank",
                                           "num_ranks", "requires", "irequires"};
    for (size_t i = 0; i < G_N_ELEMENTS(keywords); i++) {
        if (strcmp(w, keywords[i]) == 0)
            return TRUE;
    }
    return FALSE;
}

static void mark_pred(Reader *r, uint32_t task)
{
    if (task >= r->has_pred->len)
        g_array_set_size(r->has_pred, task + 1);
    g_array_index(r->has_pred, uint8_t, task) = 1;
}

/* `tag T`, `cpu C` and `nic N` after a send or recv (tag only for those). */
static gboolean read_options(Reader *r, uint32_t task, gboolean two_sided, gboolean is_recv,
                             GError **error)
{
    gboolean seen_tag = FALSE, seen_cpu = FALSE, seen_nic = FALSE;
    uint32_t cpu = 0;
    char word[16];
    while (!fennel_goal_lex_at_end(&r->lx, FALSE)) {
        unsigned col = fennel_goal_lex_col(&r->lx);
        if (!fennel_goal_lex_word(&r->lx, word, sizeof word))
            return fennel_goal_lex_error(&r->lx, error, "unexpected text after the operation");
        gboolean *seen = strcmp(word, "tag") == 0   ? &seen_tag
                         : strcmp(word, "cpu") == 0 ? &seen_cpu
                         : strcmp(word, "nic") == 0 ? &seen_nic
                                                    : NULL;
        if (seen == NULL || (seen == &seen_tag && !two_sided)) {
            return fennel_goal_lex_error_at(&r->lx, col, error, "unexpected '%s' (expected %s)",
                                            word, two_sided ? "tag, cpu or nic" : "cpu");
        }
        if (*seen)
            return fennel_goal_lex_error_at(&r->lx, col, error, "'%s' given twice", word);
        *seen = TRUE;
        uint64_t v;
        unsigned value_col = (fennel_goal_lex_skip(&r->lx, FALSE), fennel_goal_lex_col(&r->lx));
        if (seen == &seen_tag && fennel_goal_lex_accept(&r->lx, "-1")) {
            if (!is_recv)
                return fennel_goal_lex_error_at(&r->lx, value_col, error,
                                                "tag -1 (any tag) is only for a recv");
            fennel_builder_set_tag(r->b, task, FENNEL_ANY);
            continue;
        }
        /* cpu and nic are 8 bits in txt2bin, which wraps larger values around. */
        if (!fennel_goal_lex_number(&r->lx, seen == &seen_tag ? FENNEL_GOAL_TAG_MAX : 255, &v, word,
                                    error))
            return FALSE;
        uint32_t tag;
        if (seen == &seen_tag && !fennel__goal_tag(&r->tags, v, &tag))
            return fennel_goal_lex_error_at(&r->lx, value_col, error,
                                            "too many distinct tags of 2^31 or more");
        if (seen == &seen_tag)
            fennel_builder_set_tag(r->b, task, tag);
        else if (seen == &seen_cpu)
            cpu = (uint32_t)v;
    }
    fennel_builder_set_pin(r->b, task, cpu);
    r->max_cpu = MAX(r->max_cpu, cpu);
    return TRUE;
}

/* The size of a send or recv: a number followed by "b" (with or without a blank). */
static gboolean read_bytes(Reader *r, uint64_t *bytes, GError **error)
{
    if (!fennel_goal_lex_number(&r->lx, INT64_MAX, bytes, "a size in bytes", error))
        return FALSE;
    if (!fennel_goal_lex_accept(&r->lx, "b"))
        return fennel_goal_lex_error(&r->lx, error, "expected 'b' after the size");
    return TRUE;
}

static gboolean read_peer(Reader *r, const char *keyword, gboolean any_ok, uint32_t *peer,
                          GError **error)
{
    char word[16];
    unsigned col = (fennel_goal_lex_skip(&r->lx, FALSE), fennel_goal_lex_col(&r->lx));
    if (!fennel_goal_lex_word(&r->lx, word, sizeof word) || strcmp(word, keyword) != 0)
        return fennel_goal_lex_error_at(&r->lx, col, error, "expected '%s'", keyword);
    if (any_ok && fennel_goal_lex_accept(&r->lx, "-1")) {
        *peer = FENNEL_ANY;
        return TRUE;
    }
    uint64_t v;
    if (!fennel_goal_lex_number(&r->lx, UINT32_MAX - 2, &v, "a rank", error))
        return FALSE;
    if (v >= r->num_ranks)
        return fennel_goal_lex_error(&r->lx, error,
                                     "rank %" G_GUINT64_FORMAT " is outside 0..%" G_GUINT64_FORMAT,
                                     v, r->num_ranks - 1);
    *peer = (uint32_t)v;
    return TRUE;
}

/* An operation, its keyword already read. */
static gboolean read_operation(Reader *r, const char *op, const char *label, unsigned at,
                               unsigned col, GError **error)
{
    FennelProgramBuilder *b = r->b;
    uint32_t rank = (uint32_t)r->rank;
    uint64_t amount;
    uint32_t task;
    if (strcmp(op, "send") == 0 || strcmp(op, "recv") == 0) {
        gboolean is_recv = op[0] == 'r';
        uint32_t peer = 0;
        if (!read_bytes(r, &amount, error) ||
            !read_peer(r, is_recv ? "from" : "to", is_recv, &peer, error))
            return FALSE;
        task = fennel_builder_add(b, is_recv ? FENNEL_TASK_RECV : FENNEL_TASK_SEND, rank);
        fennel_builder_set_peer(b, task, peer);
        fennel_builder_set_amount(b, task, (int64_t)amount);
        fennel_builder_set_tag(b, task, 0);
        if (!read_options(r, task, TRUE, is_recv, error))
            return FALSE;
    } else if (strcmp(op, "calc") == 0) {
        if (!fennel_goal_lex_number(&r->lx, INT64_MAX / FENNEL_NS, &amount, "a duration in ns",
                                    error))
            return FALSE;
        task = fennel_builder_add(b, FENNEL_TASK_COMPUTE, rank);
        fennel_builder_set_amount(b, task, (FennelTime)amount * FENNEL_NS);
        if (!read_options(r, task, FALSE, FALSE, error))
            return FALSE;
    } else {
        return fennel_goal_lex_error_at(&r->lx, col, error,
                                        "unknown operation '%s' (expected send, recv or calc)", op);
    }
    fennel_builder_set_position(b, task, r->lx.line, at);
    /* "op.N": a label is letters, digits and underscores, so none can take this name. */
    char *name = label ? g_strdup_printf("r%u:%s", rank, label)
                       : g_strdup_printf("r%u:op.%u", rank, r->ops_in_rank);
    fennel_builder_set_name(b, task, name);
    g_free(name);
    r->ops_in_rank++;
    if (label) {
        gpointer old = g_hash_table_lookup(r->labels, label);
        if (old)
            return fennel_goal_lex_error_at(&r->lx, at, error,
                                            "label '%s' is defined twice in rank %u", label, rank);
        g_hash_table_insert(r->labels, g_strdup(label), GUINT_TO_POINTER(task + 1));
    }
    return TRUE;
}

static uint32_t lookup(Reader *r, const char *label)
{
    return GPOINTER_TO_UINT(g_hash_table_lookup(r->labels, label));
}

/* A statement inside a rank block, its first word read. */
static gboolean read_statement_from(Reader *r, const char *first, unsigned col, GError **error)
{
    char second[64];
    if (fennel_goal_lex_accept(&r->lx, ":")) {
        if (!g_ascii_isalpha(first[0]) || is_keyword(first)) {
            return fennel_goal_lex_error_at(&r->lx, col, error, "'%s' cannot be a label", first);
        }
        unsigned op_col = (fennel_goal_lex_skip(&r->lx, FALSE), fennel_goal_lex_col(&r->lx));
        if (!fennel_goal_lex_word(&r->lx, second, sizeof second))
            return fennel_goal_lex_error(&r->lx, error, "expected an operation after the label");
        return read_operation(r, second, first, col, op_col, error);
    }
    if (strcmp(first, "send") == 0 || strcmp(first, "recv") == 0 || strcmp(first, "calc") == 0)
        return read_operation(r, first, NULL, col, col, error);
    /* A dependency: A requires B, A irequires B. */
    unsigned second_col = (fennel_goal_lex_skip(&r->lx, FALSE), fennel_goal_lex_col(&r->lx));
    gboolean has_second = fennel_goal_lex_word(&r->lx, second, sizeof second);
    if (!has_second || (strcmp(second, "requires") != 0 && strcmp(second, "irequires") != 0)) {
        /* `wait 100`: an operation LogGOPSim does not have, more likely than a bad label. */
        if (!has_second || g_ascii_isdigit(second[0]))
            return fennel_goal_lex_error_at(
                &r->lx, col, error, "unknown operation '%s' (expected send, recv or calc)", first);
        return fennel_goal_lex_error_at(
            &r->lx, second_col, error, "expected ':', 'requires' or 'irequires' after '%s'", first);
    }
    unsigned target_col = (fennel_goal_lex_skip(&r->lx, FALSE), fennel_goal_lex_col(&r->lx));
    const char *w;
    size_t n = fennel_goal_lex_span(&r->lx, &w);
    if (n == 0)
        return fennel_goal_lex_error(&r->lx, error, "expected a label after '%s'", second);
    char *target = g_strndup(w, n);
    uint32_t a = lookup(r, first), b = lookup(r, target);
    if (a == 0 || b == 0) {
        const char *missing = a == 0 ? first : target;
        fennel_goal_lex_error_at(&r->lx, a == 0 ? col : target_col, error,
                                 "label '%s' is not defined in rank %" G_GINT64_FORMAT
                                 " (labels must be defined before a dependency names them)",
                                 missing, r->rank);
        g_free(target);
        return FALSE;
    }
    g_free(target);
    if (second[0] == 'i')
        fennel_builder_add_start_edge(r->b, b - 1, a - 1);
    else
        fennel_builder_add_edge(r->b, b - 1, a - 1);
    mark_pred(r, a - 1);
    return TRUE;
}

/* A statement inside a rank block: its first word, a label of any length or a keyword. */
static gboolean read_statement(Reader *r, GError **error)
{
    unsigned col = (fennel_goal_lex_skip(&r->lx, FALSE), fennel_goal_lex_col(&r->lx));
    const char *w;
    size_t n = fennel_goal_lex_span(&r->lx, &w);
    if (n == 0)
        return fennel_goal_lex_error(&r->lx, error, "expected an operation, a label or '}'");
    char *first = g_strndup(w, n);
    gboolean ok = read_statement_from(r, first, col, error);
    g_free(first);
    return ok;
}

/* `num_ranks N` or `rank R {` outside a block. */
static gboolean read_header(Reader *r, GError **error)
{
    char word[32];
    unsigned col = (fennel_goal_lex_skip(&r->lx, FALSE), fennel_goal_lex_col(&r->lx));
    if (!fennel_goal_lex_word(&r->lx, word, sizeof word))
        return fennel_goal_lex_error(&r->lx, error, "expected 'num_ranks' or 'rank'");
    if (strcmp(word, "num_ranks") == 0) {
        if (r->have_num_ranks)
            return fennel_goal_lex_error_at(&r->lx, col, error, "num_ranks given twice");
        if (!fennel_goal_lex_number(&r->lx, UINT32_MAX - 2, &r->num_ranks, "the number of ranks",
                                    error))
            return FALSE;
        if (r->num_ranks == 0)
            return fennel_goal_lex_error(&r->lx, error, "num_ranks must be at least 1");
        /* Every rank needs a block after this line, `rank R{}` at the least: a count the
         * rest of the file cannot hold is wrong whatever the memory (a 20-byte file that
         * says 4000000000 would otherwise allocate per-rank arrays on a large machine). */
        uint64_t rest = (uint64_t)(r->lx.end - r->lx.p), room = rest / FENNEL_GOAL_MIN_BLOCK;
        if (r->num_ranks > room)
            return fennel_goal_lex_error(
                &r->lx, error,
                "num_ranks %" G_GUINT64_FORMAT ": the rest of the file (%" G_GUINT64_FORMAT
                " byte%s) has room for at most %" G_GUINT64_FORMAT
                " rank blocks (%d bytes each at least), one for every rank",
                r->num_ranks, rest, rest == 1 ? "" : "s", room, FENNEL_GOAL_MIN_BLOCK);
        /* Before the per-rank arrays below: a size the machine cannot hold is an error. */
        GError *size = NULL;
        if (!fennel_check_size(r->limits, 0, 0, r->num_ranks, 1, &size)) {
            fennel_goal_lex_error(&r->lx, error, "num_ranks %" G_GUINT64_FORMAT ": %s",
                                  r->num_ranks, size->message);
            g_error_free(size);
            return FALSE;
        }
        r->have_num_ranks = TRUE;
        r->num_ranks_line = r->lx.line;
        r->num_ranks_col = col;
        r->seen_rank = g_new0(uint8_t, r->num_ranks);
        r->start = g_new(uint32_t, r->num_ranks);
        for (uint32_t k = 0; k < r->num_ranks; k++)
            r->start[k] = FENNEL_NO_RANK;
        return TRUE;
    }
    if (strcmp(word, "rank") != 0) {
        return fennel_goal_lex_error_at(&r->lx, col, error,
                                        "expected 'num_ranks' or 'rank', got '%s'", word);
    }
    if (!r->have_num_ranks)
        return fennel_goal_lex_error(&r->lx, error,
                                     "'num_ranks N' must come before the first "
                                     "rank block");
    uint64_t rank;
    if (!fennel_goal_lex_number(&r->lx, UINT32_MAX, &rank, "a rank", error))
        return FALSE;
    if (rank >= r->num_ranks)
        return fennel_goal_lex_error(&r->lx, error,
                                     "rank %" G_GUINT64_FORMAT " is outside 0..%" G_GUINT64_FORMAT,
                                     rank, r->num_ranks - 1);
    if (r->seen_rank[rank])
        return fennel_goal_lex_error(&r->lx, error, "rank %" G_GUINT64_FORMAT " has two blocks",
                                     rank);
    if (!fennel_goal_lex_accept(&r->lx, "{"))
        return fennel_goal_lex_error(&r->lx, error,
                                     "expected '{' after 'rank %" G_GUINT64_FORMAT "'", rank);
    r->seen_rank[rank] = 1;
    r->rank = (int64_t)rank;
    r->block_line = r->lx.line;
    r->ops_in_rank = 0;
    g_hash_table_remove_all(r->labels);
    uint32_t start = fennel_builder_add(r->b, FENNEL_TASK_START, (uint32_t)rank);
    char name[32];
    g_snprintf(name, sizeof name, "r%" G_GUINT64_FORMAT ":start", rank);
    fennel_builder_set_name(r->b, start, name);
    fennel_builder_set_position(r->b, start, r->lx.line, col);
    r->start[rank] = start;
    return TRUE;
}

static gboolean read_file(Reader *r, GError **error)
{
    while (fennel_goal_lex_next_line(&r->lx)) {
        while (!fennel_goal_lex_at_end(&r->lx, FALSE)) {
            if (r->rank < 0) {
                if (!read_header(r, error))
                    return FALSE;
                continue;
            }
            if (fennel_goal_lex_accept(&r->lx, "}")) {
                r->rank = -1;
                continue;
            }
            if (!read_statement(r, error))
                return FALSE;
            /* One statement per line. */
            if (!fennel_goal_lex_at_end(&r->lx, FALSE))
                return fennel_goal_lex_error(&r->lx, error, "unexpected text after the statement");
        }
    }
    if (r->lx.in_block_comment) {
        fennel_error_at(error, r->lx.file, r->lx.comment_line, r->lx.comment_col,
                        "comment is not closed with '*/'");
        return FALSE;
    }
    if (r->rank >= 0) {
        fennel_error_at(error, r->lx.file, r->block_line, 1,
                        "rank %" G_GINT64_FORMAT " block is not closed with '}'", r->rank);
        return FALSE;
    }
    if (!r->have_num_ranks) {
        fennel_error_at(error, r->lx.file, 1, 1, "missing 'num_ranks N'");
        return FALSE;
    }
    for (uint64_t k = 0; k < r->num_ranks; k++) {
        if (!r->seen_rank[k]) {
            fennel_error_at(error, r->lx.file, r->num_ranks_line, r->num_ranks_col,
                            "rank %" G_GUINT64_FORMAT
                            " has no block (num_ranks is %" G_GUINT64_FORMAT ")",
                            k, r->num_ranks);
            return FALSE;
        }
    }
    return TRUE;
}

FennelProgram *fennel_goal_parse_loggopsim(const char *name, const char *data, gsize length,
                                           const FennelLimits *limits, GError **error)
{
    GError *fast_error = NULL;
    FennelProgram *p = fennel__goal_fast_read(name, data, length, limits, &fast_error);
    if (p || fast_error) {
        if (fast_error)
            g_propagate_error(error, fast_error);
        return p;
    }
    return fennel__goal_careful_read(name, data, length, limits, error);
}

FennelProgram *fennel__goal_careful_read(const char *name, const char *data, gsize length,
                                         const FennelLimits *limits, GError **error)
{
    Reader r = {0};
    fennel_goal_lex_init(&r.lx, name, data, length);
    r.b = fennel_builder_new();
    /* Schedgen writes some `A requires B` twice; LogGOPSim counts them once. */
    fennel_builder_set_merge_duplicates(r.b);
    fennel_builder_set_limits(r.b, limits);
    r.limits = limits;
    r.rank = -1;
    r.labels = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    r.has_pred = g_array_new(FALSE, TRUE, sizeof(uint8_t));
    gboolean ok = read_file(&r, error);
    FennelProgram *p = NULL;
    if (ok) {
        /* Operations without a dependency follow their rank's start. */
        uint32_t n = fennel_builder_n_tasks(r.b);
        g_array_set_size(r.has_pred, n);
        for (uint32_t t = 0; t < n; t++) {
            uint32_t rank = fennel_builder_rank(r.b, t);
            if (t != r.start[rank] && !g_array_index(r.has_pred, uint8_t, t))
                fennel_builder_add_edge(r.b, r.start[rank], t);
        }
        p = fennel_builder_finish(r.b, name, (uint32_t)r.num_ranks, r.max_cpu + 1, error);
        r.b = NULL;
        if (p) {
            p->name = g_path_get_basename(name);
            fennel_program_order_by_step(p);
        }
    }
    fennel_builder_free(r.b);
    g_hash_table_destroy(r.labels);
    g_array_free(r.has_pred, TRUE);
    g_free(r.seen_rank);
    g_free(r.start);
    fennel__goal_tags_clear(&r.tags);
    return p;
}
