/* Names for the tasks of a program that has none (program.h, fennel_program_name_tasks):
 * made on the first request, since a run without outputs never needs them and a million
 * names cost a few tens of megabytes. */
#include "program.h"

#include <stdlib.h>
#include <string.h>

/* The role a task plays, for its name: its type, except that a compute inside a stage is
 * the stage builder's reduction and a proxy inside one closes the stage. Padded to 8
 * bytes, so that a name copies its role in one move. */
typedef struct {
    char text[8];
    size_t length;
} Role;

static const Role *role_of(const FennelProgram *p, FennelTaskType type)
{
    static const Role types[FENNEL_TASK_N_TYPES] = {
        [FENNEL_TASK_START] = {"start", 5},       [FENNEL_TASK_PROXY] = {"proxy", 5},
        [FENNEL_TASK_SLEEP] = {"sleep", 5},       [FENNEL_TASK_COMPUTE] = {"compute", 7},
        [FENNEL_TASK_PUT] = {"put", 3},           [FENNEL_TASK_GET] = {"get", 3},
        [FENNEL_TASK_SEND] = {"send", 4},         [FENNEL_TASK_RECV] = {"recv", 4},
        [FENNEL_TASK_LOAD_REDUCE] = {"ldred", 5}, [FENNEL_TASK_MULTICAST] = {"mcast", 5},
    };
    static const Role reduce = {"reduce", 6}, done = {"done", 4};
    if (p->stage_first && type == FENNEL_TASK_COMPUTE)
        return &reduce;
    if (p->stage_first && type == FENNEL_TASK_PROXY)
        return &done;
    return &types[type];
}

static const Role *role(const FennelProgram *p, uint32_t t)
{
    return role_of(p, p->type[t]);
}

/* The number of marks at or before task t, searched from `from` on (marks before it are). */
static uint32_t marks_upto(const FennelProgram *p, uint32_t from, uint32_t t)
{
    uint32_t lo = from, hi = p->n_stage_marks;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (p->stage_first[mid] <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The stage of task t: that of the last mark at or before it (tasks before the first
 * mark count as the set-up). */
static uint32_t stage_of(const FennelProgram *p, uint32_t t)
{
    uint32_t marks = marks_upto(p, 0, t);
    return marks ? p->stage_number[marks - 1] : 0;
}

/* The marks at or before task t as marks_upto() finds them, from a cursor: the marks at or
 * before the task asked before (0 at first). A writer asks for tasks in increasing order, so
 * the marks are most often those of the last task or the next one; a task before the
 * cursor's mark is searched from the start. */
static inline G_ALWAYS_INLINE uint32_t marks_from(const FennelProgram *p, uint32_t t,
                                                  uint32_t *cursor)
{
    uint32_t m = *cursor;
    if (m > p->n_stage_marks || (m > 0 && p->stage_first[m - 1] > t))
        m = 0;
    if (m < p->n_stage_marks && p->stage_first[m] <= t)
        m = m + 1 < p->n_stage_marks && p->stage_first[m + 1] > t ? m + 1 : marks_upto(p, m, t);
    *cursor = m;
    return m;
}

/* The stage of task t as stage_of() finds it, from a cursor (marks_from()). */
static uint32_t stage_from(const FennelProgram *p, uint32_t t, uint32_t *cursor)
{
    const uint32_t m = marks_from(p, t, cursor);
    return m ? p->stage_number[m - 1] : 0;
}

/* Writes task t's name without its .k at `at` (at most 74 bytes, a role's padding included) and
 * returns the end; `dot` and `dash` separate its fields ('.' and '-' in the name). `cursor`:
 * see stage_from(), or NULL. */
static char *base_name(const FennelProgram *p, uint32_t t, char *at, char dot, char dash,
                       uint32_t *cursor)
{
    FennelTaskType type = p->type[t];
    if (type != FENNEL_TASK_START && p->stage_first) {
        *at++ = 's';
        at = fennel_put_uint(at, cursor ? stage_from(p, t, cursor) : stage_of(p, t));
        *at++ = dot;
    }
    const Role *r = role(p, t);
    memcpy(at, r->text, sizeof r->text);
    at += r->length;
    *at++ = dot;
    *at++ = 'r';
    at = fennel_put_uint(at, p->rank[t]);
    gboolean message = type == FENNEL_TASK_PUT || type == FENNEL_TASK_GET ||
                       type == FENNEL_TASK_SEND || type == FENNEL_TASK_RECV;
    if (message && p->peer[t] == FENNEL_ANY) {
        *at++ = dash;
        memcpy(at, "any", 3);
        at += 3;
    } else if (message && p->peer[t] != FENNEL_NO_RANK) {
        *at++ = dash;
        *at++ = 'r';
        at = fennel_put_uint(at, p->peer[t]);
    }
    return at;
}

/* A table of one rank's base names seen, each as the numbers it is made of (type and
 * stage, peer), with how many times it was seen. Emptied by a new generation, not by a
 * sweep, since it is emptied once a rank and may have grown for one rank of many tasks. */
typedef struct {
    uint64_t hi, lo;
    uint32_t count;
    uint32_t generation;
} Seen;

typedef struct {
    Seen *slot;
    size_t capacity, used; /* capacity: a power of two, or 0 */
    uint32_t generation;
} SeenTable;

static uint64_t mix(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xBF58476D1CE4E5B9u;
    x ^= x >> 27;
    x *= 0x94D049BB133111EBu;
    return x ^ (x >> 31);
}

static void seen_empty(SeenTable *s)
{
    s->used = 0;
    if (++s->generation == 0) { /* wrapped: old entries would look current */
        if (s->slot)
            memset(s->slot, 0, s->capacity * sizeof *s->slot);
        s->generation = 1;
    }
}

static Seen *seen_find(SeenTable *s, uint64_t hi, uint64_t lo)
{
    size_t mask = s->capacity - 1;
    for (size_t i = mix(hi * 0x9E3779B97F4A7C15u ^ lo) & mask;; i = (i + 1) & mask) {
        Seen *e = &s->slot[i];
        if (e->generation != s->generation || (e->hi == hi && e->lo == lo))
            return e;
    }
}

static void seen_grow(SeenTable *s)
{
    SeenTable bigger = {.capacity = s->capacity ? 2 * s->capacity : 1024, .generation = 1};
    bigger.slot = g_new0(Seen, bigger.capacity);
    for (size_t i = 0; i < s->capacity; i++) {
        if (s->slot[i].generation == s->generation) {
            Seen *e = seen_find(&bigger, s->slot[i].hi, s->slot[i].lo);
            *e = s->slot[i];
            e->generation = bigger.generation;
            bigger.used++;
        }
    }
    g_free(s->slot);
    *s = bigger;
}

/* How many times the base name (hi, lo) has been seen, this time included. */
static uint32_t seen_count(SeenTable *s, uint64_t hi, uint64_t lo)
{
    if (2 * (s->used + 1) > s->capacity)
        seen_grow(s);
    Seen *e = seen_find(s, hi, lo);
    if (e->generation != s->generation) {
        *e = (Seen){hi, lo, 0, s->generation};
        s->used++;
    }
    return ++e->count;
}

/* The text a staged identifier begins with, "s2_put_r", for each row (the marks at or before
 * a task: 0 for the set-up, or no stage at all: n_stage_marks + 1) and type; at most 21
 * bytes, padded so that a label copies it in one move. */
typedef struct {
    char text[32];
    uint32_t length;
} Prefix;

/* Rows of prefixes made at most: a program of more stages makes its identifiers the long
 * way (10 types x 32 bytes a row). */
#define PREFIX_ROWS_MAX 4096

struct FennelNamer {
    const FennelProgram *p;
    uint32_t *repeat; /* a task's .k (k >= 2), 0 for none; NULL when no base name repeats */
    Prefix *prefix;   /* [row * FENNEL_TASK_N_TYPES + type], or NULL */
};

static void set_repeat(FennelNamer *n, uint32_t t, uint32_t k)
{
    if (n->repeat == NULL)
        n->repeat = g_new0(uint32_t, n->p->n_tasks);
    n->repeat[t] = k;
}

/* Whether stage numbers never decrease from a mark to the next: then the tasks of one rank,
 * in task order, meet each stage in one run. */
static gboolean stages_sorted(const FennelProgram *p)
{
    for (uint32_t m = 1; m < p->n_stage_marks; m++) {
        if (p->stage_number[m] < p->stage_number[m - 1])
            return FALSE;
    }
    return p->stage_first != NULL;
}

/* The peer a task's name shows, FENNEL_NO_RANK for none. */
static inline uint32_t peer_of(const FennelProgram *p, uint32_t t)
{
    const FennelTaskType type = p->type[t];
    const gboolean message = type == FENNEL_TASK_PUT || type == FENNEL_TASK_GET ||
                             type == FENNEL_TASK_SEND || type == FENNEL_TASK_RECV;
    return message ? p->peer[t] : FENNEL_NO_RANK;
}

/* Tasks of a run compared one by one with those before them (beyond, in a table). */
#define RUN_COMPARED 16

/* Counts the repeats of base names (see fennel_namer_new), the tasks taken bucket by bucket
 * (a rank each): bucket r is order[start[r] .. start[r + 1]), in task order. */
static void count_repeats(FennelNamer *n, uint32_t buckets, const uint32_t *start,
                          const uint32_t *order)
{
    const FennelProgram *p = n->p;
    /* With stage numbers in order, a name repeats only within its run of one stage (a
     * rank's starts, which have no stage, aside): the run's few tasks are compared with
     * each other rather than hashed, and a long run goes to a table of its own. */
    const gboolean runs = stages_sorted(p);
    SeenTable seen = {.generation = 1}, run_seen = {.generation = 1};
    for (uint32_t r = 0, i = start[0]; r < buckets; r++) {
        seen_empty(&seen);
        uint32_t marks = 0; /* marks at or before the task */
        uint32_t run = i;
        uint64_t run_stage = UINT64_MAX; /* none yet */
        gboolean run_in_table = FALSE;
        for (; i < start[r + 1]; i++) {
            uint32_t t = order[i];
            FennelTaskType type = p->type[t];
            if (p->stage_first)
                marks_from(p, t, &marks);
            uint32_t stage =
                type == FENNEL_TASK_START || marks == 0 ? 0 : p->stage_number[marks - 1];
            const uint32_t peer = peer_of(p, t);
            uint64_t key = (uint64_t)type << 32 | stage;
            uint32_t k;
            if (!runs || type == FENNEL_TASK_START) {
                k = seen_count(&seen, key, (uint64_t)p->rank[t] << 32 | peer);
            } else {
                if (stage != run_stage) {
                    run = i, run_stage = stage;
                    run_in_table = FALSE;
                }
                if (!run_in_table && i - run < RUN_COMPARED) {
                    /* The run's tasks before this one of the same name (their stage is
                     * this one's; a start among them is of another type). */
                    k = 1;
                    for (uint32_t j = run; j < i; j++) {
                        const uint32_t u = order[j];
                        k +=
                            p->type[u] == type && p->rank[u] == p->rank[t] && peer_of(p, u) == peer;
                    }
                } else {
                    if (!run_in_table) { /* the table takes over from here */
                        run_in_table = TRUE;
                        seen_empty(&run_seen);
                        for (uint32_t j = run; j < i; j++) {
                            const uint32_t u = order[j];
                            if (p->type[u] == FENNEL_TASK_START)
                                continue;
                            seen_count(&run_seen, (uint64_t)p->type[u] << 32 | stage,
                                       (uint64_t)p->rank[u] << 32 | peer_of(p, u));
                        }
                    }
                    k = seen_count(&run_seen, key, (uint64_t)p->rank[t] << 32 | peer);
                }
            }
            if (k >= 2)
                set_repeat(n, t, k);
        }
    }
    g_free(seen.slot);
    g_free(run_seen.slot);
}

/* The prefixes of identifiers (Prefix), made once: each is what base_name() writes before
 * the rank's digits. */
static Prefix *make_prefixes(const FennelProgram *p)
{
    const uint32_t rows = p->n_stage_marks + 2;
    if (rows > PREFIX_ROWS_MAX)
        return NULL;
    Prefix *prefix = g_new0(Prefix, (gsize)rows * FENNEL_TASK_N_TYPES);
    for (uint32_t row = 0; row < rows; row++) {
        for (int type = 0; type < FENNEL_TASK_N_TYPES; type++) {
            Prefix *x = &prefix[row * FENNEL_TASK_N_TYPES + type];
            char *at = x->text;
            if (row <= p->n_stage_marks) {
                *at++ = 's';
                at = fennel_put_uint(at, row ? p->stage_number[row - 1] : 0);
                *at++ = '_';
            }
            const Role *r = role_of(p, (FennelTaskType)type);
            memcpy(at, r->text, r->length);
            at += r->length;
            *at++ = '_';
            *at++ = 'r';
            x->length = (uint32_t)(at - x->text);
        }
    }
    return prefix;
}

static FennelNamer *namer_for(const FennelProgram *p)
{
    if (p->task_name || p->names || p->name_at || p->name_from_text)
        return NULL;
    FennelNamer *n = g_new0(FennelNamer, 1);
    n->p = p;
    n->prefix = make_prefixes(p);
    return n;
}

FennelNamer *fennel_namer_new(const FennelProgram *p)
{
    FennelNamer *n = namer_for(p);
    if (n == NULL)
        return NULL;
    /* A repeat of a base name gets .2, .3, ... in task order. A base name never ends in "."
     * and digits (it ends in a rank, "-any" or a role), so no suffixed name can equal
     * another task's base name. Two tasks have the same base name exactly when they have
     * the same rank, type (the role is a function of it), stage (if the program has stages
     * and the task is no start) and, for a message, peer: the numbers are compared, not the
     * text, and since the rank is one of them the tasks are counted one rank at a time, in
     * task order, in a table that holds one rank's names (a program's stage numbers may
     * repeat, so counting by stage would not do). */
    /* A program being checked may name a rank it does not have (the error names the
     * task): those tasks are counted last, in a bucket of their own. */
    const uint32_t buckets = p->n_ranks + 1;
#define BUCKET(t) MIN(p->rank[t], p->n_ranks)
    uint32_t *start = g_new0(uint32_t, (gsize)buckets + 1);
    for (uint32_t t = 0; t < p->n_tasks; t++)
        start[BUCKET(t) + 1]++;
    for (uint32_t r = 0; r < buckets; r++)
        start[r + 1] += start[r];
    uint32_t *order = g_new(uint32_t, MAX(p->n_tasks, 1));
    for (uint32_t t = 0; t < p->n_tasks; t++)
        order[start[BUCKET(t)]++] = t;
#undef BUCKET
    /* start[r] is now where bucket r ends. */
    for (uint32_t r = buckets; r > 0; r--)
        start[r] = start[r - 1];
    start[0] = 0;
    count_repeats(n, buckets, start, order);
    g_free(order);
    g_free(start);
    return n;
}

FennelNamer *fennel_namer_new_by_rank(const FennelProgram *p, const uint32_t *rank_start,
                                      const uint32_t *rank_list)
{
    FennelNamer *n = namer_for(p);
    if (n)
        count_repeats(n, p->n_ranks, rank_start, rank_list);
    return n;
}

static char *put_name(const FennelNamer *n, uint32_t t, char *at, char dot, char dash,
                      uint32_t *cursor)
{
    at = base_name(n->p, t, at, dot, dash, cursor);
    if (n->repeat && n->repeat[t]) {
        *at++ = dot;
        at = fennel_put_uint(at, n->repeat[t]);
    }
    return at;
}

static void append_name(const FennelNamer *n, uint32_t t, GString *out, char dot, char dash)
{
    /* "s" and a stage, a role of up to 7 letters, "r" and a rank, "r" and a peer, ".k": 95
     * bytes with every number at 20 digits. */
    G_STATIC_ASSERT(FENNEL_NAMER_ROOM >= 96);
    fennel_string_reserve(out, FENNEL_NAMER_ROOM);
    char *at = put_name(n, t, out->str + out->len, dot, dash, NULL);
    *at = '\0';
    out->len = (gsize)(at - out->str);
}

char *fennel_namer_put_identifier(const FennelNamer *n, uint32_t t, char *at, uint32_t *cursor)
{
    return put_name(n, t, at, '_', '_', cursor);
}

/* A rank's number as put_rank() writes it. */
typedef struct {
    uint32_t rank, length;
    char digits[16];
} RankDigits;

/* Writes v, a rank, at `at`: from the digits made once when it is their rank. Copies 16
 * bytes (a rank has at most 10 digits), which FENNEL_NAMER_ROOM allows. */
static inline char *put_rank(char *at, uint32_t v, const RankDigits *d)
{
    if (v != d->rank)
        return fennel_put_uint(at, v);
    memcpy(at, d->digits, sizeof d->digits);
    return at + d->length;
}

gsize fennel_namer_append_identifiers(const FennelNamer *n, const uint32_t *tasks, uint32_t count,
                                      uint32_t rank, GString *text, uint32_t *at)
{
    const FennelProgram *p = n->p;
    gsize longest = 0;
    uint32_t marks = 0; /* the cursor of marks_from() */
    RankDigits digits = {.rank = rank};
    digits.length = (uint32_t)(fennel_put_uint(digits.digits, rank) - digits.digits);
    for (uint32_t k = 0; k < count; k++) {
        g_assert(text->len <= UINT32_MAX);
        at[k] = (uint32_t)text->len;
        fennel_string_reserve(text, FENNEL_NAMER_ROOM);
        char *c = text->str + text->len;
        const uint32_t t = tasks[k];
        if (n->prefix == NULL) {
            c = put_name(n, t, c, '_', '_', &marks);
        } else {
            /* base_name() and put_name(), the stage and role from their prefix: at most 21
             * bytes of prefix, 10 of rank, 12 of peer and 11 of repeat, within
             * FENNEL_NAMER_ROOM with the copies' spare bytes. */
            const FennelTaskType type = p->type[t];
            const uint32_t row = type == FENNEL_TASK_START || p->stage_first == NULL
                                     ? p->n_stage_marks + 1
                                     : marks_from(p, t, &marks);
            const Prefix *x = &n->prefix[row * FENNEL_TASK_N_TYPES + type];
            memcpy(c, x->text, sizeof x->text);
            c = put_rank(c + x->length, p->rank[t], &digits);
            const uint32_t peer = peer_of(p, t);
            if (peer == FENNEL_ANY) {
                memcpy(c, "_any", 4);
                c += 4;
            } else if (peer != FENNEL_NO_RANK) {
                *c++ = '_';
                *c++ = 'r';
                c = put_rank(c, peer, &digits);
            }
            if (n->repeat && n->repeat[t]) {
                *c++ = '_';
                c = fennel_put_uint(c, n->repeat[t]);
            }
        }
        *c = '\0';
        text->len = (gsize)(c - text->str);
        longest = MAX(longest, text->len - at[k]);
    }
    g_assert(text->len <= UINT32_MAX);
    at[count] = (uint32_t)text->len;
    return longest;
}

void fennel_namer_append(const FennelNamer *n, uint32_t t, GString *out)
{
    append_name(n, t, out, '.', '-');
}

void fennel_namer_append_identifier(const FennelNamer *n, uint32_t t, GString *out)
{
    append_name(n, t, out, '_', '_');
}

void fennel_namer_free(FennelNamer *n)
{
    if (n == NULL)
        return;
    g_free(n->repeat);
    g_free(n->prefix);
    g_free(n);
}

static void name_all(FennelProgram *p)
{
    FennelNamer *namer = fennel_namer_new(p);
    p->names = g_string_chunk_new(16 * 1024);
    char **names = g_new(char *, MAX(p->n_tasks, 1));
    GString *name = g_string_new(NULL);
    for (uint32_t t = 0; t < p->n_tasks; t++) {
        g_string_truncate(name, 0);
        fennel_namer_append(namer, t, name);
        names[t] = g_string_chunk_insert_len(p->names, name->str, (gssize)name->len);
    }
    g_string_free(name, TRUE);
    fennel_namer_free(namer);
    p->task_name = names;
    p->made_names = TRUE;
}

/* A binary program's names: pointers into its text. */
static void name_from_offsets(FennelProgram *p)
{
    char **names = g_new(char *, MAX(p->n_tasks, 1));
    for (uint32_t t = 0; t < p->n_tasks; t++)
        names[t] = p->name_at[t] == UINT64_MAX ? NULL : (char *)p->name_text + p->name_at[t];
    p->task_name = names;
}

char *const *fennel_program_own_names(const FennelProgram *p)
{
    if (p->name_at || p->name_from_text)
        fennel_program_name_tasks(p);
    return p->names || p->name_at ? p->task_name : NULL;
}

void fennel_program_name_tasks(const FennelProgram *p)
{
    /* The names are a cache of what the program already says, so making them does not
     * change the program: it may be const to its callers. */
    FennelProgram *mutable = (FennelProgram *)p;
    if (g_once_init_enter(&mutable->named)) {
        if (p->task_name == NULL && p->name_at)
            name_from_offsets(mutable);
        else if (p->task_name == NULL && p->name_from_text)
            p->name_from_text(mutable);
        else if (p->task_name == NULL && p->names == NULL)
            name_all(mutable);
        g_once_init_leave(&mutable->named, 1);
    }
}

void fennel_program_detach_text(FennelProgram *p)
{
    if (p->text == NULL)
        return;
    fennel_program_name_tasks(p);
    g_bytes_unref(p->text);
    p->text = NULL;
    p->name_from_text = NULL;
}
