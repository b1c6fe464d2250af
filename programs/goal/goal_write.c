/* The GOAL writers (README, Program files). LogGOPSim GOAL: every task becomes an operation of its
 * rank (start, proxy, sleep and compute a `calc`; a put a send with its matching recv on the
 * target; a get a request send/recv and a response send/recv), so the peer simulator can
 * run the same schedule. The original Fennel's dialect: start, put, compute, sleep, with
 * proxies as zero sleeps. What a format cannot express is an error that says so. */
#include "goal_readers.h"

#include "errors.h"
#include "model.h"
#include "program_io.h"

static gboolean fail(GError **error, const FennelProgram *p, uint32_t task, const char *format,
                     const char *what)
{
    char buf[24];
    g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT, "cannot write %s: task '%s' %s", format,
                fennel_program_task_name(p, task, buf), what);
    return FALSE;
}

/* Whole nanoseconds, or an error. */
static gboolean whole_ns(const FennelProgram *p, uint32_t task, FennelTime d, const char *format,
                         uint64_t *ns, GError **error)
{
    if (d % FENNEL_NS != 0)
        return fail(error, p, task, format, "lasts a fraction of a nanosecond");
    *ns = (uint64_t)(d / FENNEL_NS);
    return TRUE;
}

/* Tasks of each rank, in program order (CSR by rank); `where`, if not NULL, gets each
 * task's place in that list (an array of n_tasks). */
static void by_rank(const FennelProgram *p, uint32_t **start, uint32_t **list, uint32_t *where)
{
    *start = g_new0(uint32_t, (gsize)p->n_ranks + 1);
    *list = g_new(uint32_t, p->n_tasks ? p->n_tasks : 1);
    for (uint32_t t = 0; t < p->n_tasks; t++)
        (*start)[p->rank[t] + 1]++;
    for (uint32_t r = 0; r < p->n_ranks; r++)
        (*start)[r + 1] += (*start)[r];
    uint32_t *fill = g_memdup2(*start, sizeof(uint32_t) * p->n_ranks);
    for (uint32_t t = 0; t < p->n_tasks; t++) {
        const uint32_t i = fill[p->rank[t]]++;
        (*list)[i] = t;
        if (where)
            where[t] = i;
    }
    g_free(fill);
}

/* Incoming edges per task (pred lists), for writing dependencies in the dependent's block. */
static void predecessors(const FennelProgram *p, gboolean start_edges, FennelEdgeIndex **start,
                         uint32_t **list)
{
    const FennelEdgeIndex *ss = start_edges ? p->start_succ_start : p->succ_start;
    const uint32_t *sl = start_edges ? p->start_succ : p->succ;
    *start = g_new0(FennelEdgeIndex, (gsize)p->n_tasks + 1);
    FennelEdgeIndex n = ss ? ss[p->n_tasks] : 0;
    *list = g_new(uint32_t, n ? n : 1);
    for (uint32_t t = 0; ss && t < p->n_tasks; t++) {
        for (FennelEdgeIndex e = ss[t]; e < ss[t + 1]; e++)
            (*start)[sl[e] + 1]++;
    }
    for (uint32_t t = 0; t < p->n_tasks; t++)
        (*start)[t + 1] += (*start)[t];
    FennelEdgeIndex *fill = g_memdup2(*start, sizeof(FennelEdgeIndex) * ((gsize)p->n_tasks + 1));
    for (uint32_t t = 0; ss && t < p->n_tasks; t++) {
        for (FennelEdgeIndex e = ss[t]; e < ss[t + 1]; e++)
            (*list)[fill[sl[e]]++] = t;
    }
    g_free(fill);
}

/* ---- LogGOPSim GOAL ---- */

/* `model` may be NULL when the program has no sized compute. */

/* Labels: the tasks' names made GOAL identifiers (every byte outside [A-Za-z0-9_] becomes
 * '_': `s2.put.r3-r5` is `s2_put_r3_r5`), so that a generated program's GOAL says where each
 * operation is; the other operations of a task add _b, _r, _q or _s. Names that would give
 * two operations one label (equal once made identifiers, ending in one of those suffixes,
 * a keyword, not starting with a letter or '_') make every label t<index> instead, t5b and
 * so on. */
typedef struct {
    char *const *name;  /* NULL: t<index> */
    gboolean raw;       /* name holds the task names, made identifiers as they are written */
    FennelNamer *namer; /* or the names are made as they are written (raw too) */
    GStringChunk *chunk;
} Labels;

static gboolean label_usable(const char *label)
{
    static const char *const keywords[] = {"send",      "recv",     "calc",      "rank",
                                           "num_ranks", "requires", "irequires", "to",
                                           "from",      "tag",      "cpu",       "nic"};
    size_t n = strlen(label);
    if (n == 0 || !(g_ascii_isalpha(label[0]) || label[0] == '_'))
        return FALSE;
    if (n >= 2 && label[n - 2] == '_' && strchr("brqs", label[n - 1]))
        return FALSE;
    for (size_t i = 0; i < G_N_ELEMENTS(keywords); i++) {
        if (strcmp(label, keywords[i]) == 0)
            return FALSE;
    }
    return TRUE;
}

/* rank_start, rank_list: the tasks of each rank (by_rank). */
static void labels_init(Labels *l, const FennelProgram *p, const uint32_t *rank_start,
                        const uint32_t *rank_list)
{
    *l = (Labels){0};
    /* Names fennel makes (program.h) start with a letter, are distinct and stay distinct
     * as identifiers: '.' and '-' separate fields whose kinds never change place (a stage
     * "s2", a role, a rank "r3", a peer "r5" or "any", a repeat's number), and they end in a
     * digit or "any", so never in _b, _r, _q or _s, and are no keyword. A generated
     * program's are made as they are written rather than held (33 bytes a task). */
    l->namer = fennel_namer_new_by_rank(p, rank_start, rank_list);
    l->raw = l->namer != NULL;
    if (l->namer)
        return;
    fennel_program_name_tasks(p);
    char buf[24];
    if (p->n_tasks == 0 || fennel_program_task_name(p, 0, buf) == buf)
        return;          /* a program with unnamed tasks: t<index> */
    if (p->made_names) { /* made before: the same names, held */
        l->name = p->task_name;
        l->raw = TRUE;
        return;
    }
    char **name = g_new(char *, p->n_tasks);
    GStringChunk *chunk = g_string_chunk_new(16 * 1024);
    GHashTable *seen = g_hash_table_new(g_str_hash, g_str_equal);
    gboolean ok = TRUE;
    GString *label = g_string_new(NULL);
    for (uint32_t t = 0; t < p->n_tasks && ok; t++) {
        const char *n = fennel_program_task_name(p, t, buf);
        g_string_truncate(label, 0);
        for (const char *c = n; *c; c++)
            g_string_append_c(label, g_ascii_isalnum(*c) || *c == '_' ? *c : '_');
        name[t] = g_string_chunk_insert(chunk, label->str);
        ok = n != buf && label_usable(name[t]) && g_hash_table_add(seen, name[t]);
    }
    g_string_free(label, TRUE);
    g_hash_table_destroy(seen);
    if (!ok) {
        g_free(name);
        g_string_chunk_free(chunk);
        return;
    }
    l->name = name;
    l->chunk = chunk;
}

static void labels_clear(Labels *l)
{
    fennel_namer_free(l->namer);
    if (!l->raw)
        g_free((char **)l->name);
    if (l->chunk)
        g_string_chunk_free(l->chunk);
}

/* ---- text placed with a cursor ----
 * A line's room is reserved once and its pieces are written at a cursor, since the GOAL
 * writer writes about twenty pieces a task and a bounds check and a terminator per piece
 * cost more than the piece. line_end() keeps the string's terminator and length. */

static inline char *line_begin(GString *out, gsize room)
{
    fennel_string_reserve(out, room);
    return out->str + out->len;
}

static inline void line_end(GString *out, char *c)
{
    *c = '\0';
    out->len = (gsize)(c - out->str);
}

static inline char *put(char *c, const char *s, gsize n)
{
    memcpy(c, s, n);
    return c + n;
}
#define PUT(c, literal) put(c, literal, sizeof(literal) - 1)

/* Numbers take at most 20 digits and a sign. */
#define NUMBER_ROOM 21
/* Bytes put_label() copies of a label at once (see there). */
#define LABEL_COPY 32

static inline char *put_i64(char *c, int64_t v)
{
    if (v < 0) {
        *c++ = '-';
        return fennel_put_uint(c, (uint64_t)0 - (uint64_t)v);
    }
    return fennel_put_uint(c, (uint64_t)v);
}

/* Appends the label of task t's own operation (without a suffix); `cursor`: see
 * fennel_namer_put_identifier(), or NULL. */
static void append_label(GString *out, const Labels *l, uint32_t t, uint32_t *cursor)
{
    if (l->name == NULL && l->namer == NULL) {
        char *c = line_begin(out, 1 + NUMBER_ROOM);
        *c++ = 't';
        line_end(out, fennel_put_uint(c, t));
    } else if (l->namer) {
        line_end(out, fennel_namer_put_identifier(l->namer, t, line_begin(out, FENNEL_NAMER_ROOM),
                                                  cursor));
    } else {
        const gsize at = out->len;
        fennel_append_len(out, l->name[t], strlen(l->name[t]));
        for (char *c = out->str + at; l->raw && *c; c++) {
            if (*c == '.' || *c == '-')
                *c = '_';
        }
    }
}

/* One rank's labels, made once: each of its tasks' and of the puts and gets aimed at it,
 * which its lines name several times each (an operation, its dependencies, the
 * dependencies on it). Label k (the rank's tasks in order, then the incoming ones) is
 * text[at[k] .. at[k + 1]). */
typedef struct {
    GString *text;
    uint32_t *at;
    gsize room; /* entries of `at` */
    gsize longest;
    const uint32_t *own, *in; /* the rank's tasks and the incoming ones, both in task order */
    uint32_t n_own, n_in;
    GString *other; /* a label of another rank's task (a start dependency), made when asked */
} RankLabels;

static void rank_labels_make(RankLabels *rl, const Labels *l, uint32_t rank, const uint32_t *own,
                             uint32_t n_own, const uint32_t *in, uint32_t n_in)
{
    const gsize n = (gsize)n_own + n_in;
    if (n + 1 > rl->room) {
        rl->room = MAX(n + 1, 2 * rl->room);
        rl->at = g_renew(uint32_t, rl->at, rl->room);
    }
    rl->own = own, rl->in = in, rl->n_own = n_own, rl->n_in = n_in;
    g_string_truncate(rl->text, 0);
    rl->longest = 0;
    if (l->namer) {
        /* The rank's own labels, then the incoming ones: each list in task order. */
        const gsize own_longest =
            fennel_namer_append_identifiers(l->namer, own, n_own, rank, rl->text, rl->at);
        const gsize in_longest =
            fennel_namer_append_identifiers(l->namer, in, n_in, rank, rl->text, rl->at + n_own);
        rl->longest = MAX(own_longest, in_longest);
    } else {
        for (gsize k = 0; k < n; k++) {
            rl->at[k] = (uint32_t)rl->text->len;
            append_label(rl->text, l, k < n_own ? own[k] : in[k - n_own], NULL);
            rl->longest = MAX(rl->longest, rl->text->len - rl->at[k]);
        }
        rl->at[n] = (uint32_t)rl->text->len;
    }
    fennel_string_reserve(rl->text, LABEL_COPY); /* put_label() reads a label's LABEL_COPY */
    /* The offsets are 32 bits: a rank's labels would have to pass 4 GiB. */
    g_assert(rl->text->len <= UINT32_MAX);
}

/* The index of task t in a list in task order, or UINT32_MAX. `near` is where it likely is,
 * tried with its neighbours before a search: a dependency is most often one of the few
 * tasks just before its dependent, and a rank names the receives aimed at it in order. */
static uint32_t find_task(const uint32_t *list, uint32_t n, uint32_t t, uint32_t near)
{
    for (uint32_t i = near > 2 ? near - 2 : 0; i < n && i <= near + 1; i++) {
        if (list[i] == t)
            return i;
    }
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (list[mid] < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && list[lo] == t ? lo : UINT32_MAX;
}

typedef struct {
    const char *s;
    gsize n;
} Text;

static inline Text label_k(const RankLabels *rl, gsize k)
{
    return (Text){rl->text->str + rl->at[k], rl->at[k + 1] - rl->at[k]};
}

/* Task u's label as the rank's lines name it (a start dependency): one of its own tasks,
 * else made now. */
static Text label_of(RankLabels *rl, const Labels *l, uint32_t u, uint32_t near)
{
    const uint32_t k = find_task(rl->own, rl->n_own, u, near);
    if (k != UINT32_MAX)
        return label_k(rl, k);
    g_string_truncate(rl->other, 0);
    append_label(rl->other, l, u, NULL);
    fennel_string_reserve(rl->other, LABEL_COPY);
    return (Text){rl->other->str, rl->other->len};
}

/* Room for a line of at most two labels with suffixes, keywords and four numbers. */
static inline gsize line_room(const RankLabels *rl, gsize other)
{
    return 2 * (MAX(rl->longest, other) + 2) + 4 * NUMBER_ROOM + 64;
}

/* Writes a label and its suffix ("" for its own, "b", "r", "q", "s": "_b", or "b" after a
 * label t<index>). */
static inline char *put_label(char *c, const Labels *l, Text label, const char *suffix)
{
    /* Most labels are short: copied as LABEL_COPY bytes in two moves rather than by a call
     * (about three a task). Their strings keep that many bytes to spare after the last label
     * and a line's room leaves as many after its last label; what the copy writes past the
     * label is written over by what follows it or lies beyond the text's length. */
    if (G_LIKELY(label.n <= LABEL_COPY)) {
        memcpy(c, label.s, LABEL_COPY);
        c += label.n;
    } else {
        c = put(c, label.s, label.n);
    }
    if (*suffix) {
        if (l->name != NULL || l->namer != NULL)
            *c++ = '_';
        *c++ = *suffix;
    }
    return c;
}

static inline char *put_tail(char *c, const FennelProgram *p, uint32_t t, uint32_t tag)
{
    if (tag == FENNEL_ANY) {
        c = PUT(c, " tag -1");
    } else {
        c = PUT(c, " tag ");
        c = fennel_put_uint(c, tag);
    }
    if (p->pin && p->pin[t] != FENNEL_NO_RANK) {
        c = PUT(c, " cpu ");
        c = fennel_put_uint(c, p->pin[t]);
    }
    *c++ = '\n';
    return c;
}

/* Orders one rank's puts by peer, then by task. */
static int compare_peer(const void *a, const void *b, void *data)
{
    const FennelProgram *p = data;
    const uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    if (p->peer[x] != p->peer[y])
        return p->peer[x] < p->peer[y] ? -1 : 1;
    return x < y ? -1 : x > y;
}

/* The first task of a kind and how many there are. */
typedef struct {
    uint32_t first, count;
} Kind;

static void kind_add(Kind *k, uint32_t t)
{
    if (k->count++ == 0)
        k->first = t;
}

static const char *more(const Kind *k, char *buf, size_t size)
{
    if (k->count <= 1)
        return "";
    g_snprintf(buf, size, " (and %u more)", k->count - 1);
    return buf;
}

/* GOAL has a send and a receive, and pins every operation to a CPU. What fennel's engine does
 * otherwise (docs/SEMANTICS.md, Network tasks; engine rule 3) is named here, with the models
 * under which the times part; anything else keeps its times. */
char **fennel_program_goal_caveats(const FennelProgram *p)
{
    Kind get = {0}, blocking = {0}, followed = {0}, unpinned = {0}, concurrent = {0};
    uint32_t follower = 0;
    int64_t eager = 0;
    /* Puts per rank, for grouping them by pair below. */
    uint64_t *rank_puts = g_new0(uint64_t, (gsize)p->n_ranks + 1);
    for (uint32_t t = 0; t < p->n_tasks; t++) {
        uint8_t type = p->type[t];
        if (type == FENNEL_TASK_GET)
            kind_add(&get, t);
        if ((p->flags[t] & FENNEL_TASK_EAGER) && type == FENNEL_TASK_SEND)
            eager = MAX(eager, p->amount[t]);
        /* A start runs at time 0, when every slot is free, on CPU 0 as on all of them. */
        if (p->processes > 1 && type != FENNEL_TASK_START &&
            (p->pin == NULL || p->pin[t] == FENNEL_NO_RANK))
            kind_add((p->flags[t] & FENNEL_TASK_CONCURRENT) ? &concurrent : &unpinned, t);
        if (type != FENNEL_TASK_PUT)
            continue;
        rank_puts[p->rank[t] + 1]++;
        if (p->flags[t] & FENNEL_TASK_BLOCKING)
            kind_add(&blocking, t);
        /* A proxy that ends its rank may end sooner: the put's arrival counts all the same. */
        for (uint64_t e = p->succ_start[t]; e < p->succ_start[t + 1]; e++) {
            uint32_t u = p->succ[e];
            gboolean end =
                p->type[u] == FENNEL_TASK_PROXY && p->succ_start[u] == p->succ_start[u + 1];
            if (p->rank[u] == p->rank[t] && !end) {
                if (followed.count == 0)
                    follower = u;
                kind_add(&followed, t);
                break;
            }
        }
    }
    /* A put of a pair smaller than the one before it may arrive first, unless it waits for
     * that one's arrival: as its successor, or behind it on its slot when it blocks. The
     * puts are taken pair by pair, in task order within a pair: sorted by rank (counting,
     * so in task order) and then each rank's few by peer, which is cheaper than sorting
     * them all at once. */
    for (uint32_t r = 0; r < p->n_ranks; r++)
        rank_puts[r + 1] += rank_puts[r];
    uint32_t *puts = g_new(uint32_t, MAX(rank_puts[p->n_ranks], 1));
    for (uint32_t t = 0; t < p->n_tasks; t++) {
        if (p->type[t] == FENNEL_TASK_PUT)
            puts[rank_puts[p->rank[t]]++] = t;
    }
    Kind differ = {0};
    uint32_t other = 0;
    for (uint32_t r = 0, first = 0; r < p->n_ranks; r++) {
        const uint32_t end = (uint32_t)rank_puts[r];
        uint32_t *pp = puts + first, n = end - first;
        first = end;
        if (n > 32) {
            g_qsort_with_data(pp, (gint)n, sizeof *pp, compare_peer, (void *)p);
        } else {
            /* The usual few: an insertion sort, stable, so tasks stay in order. */
            for (uint32_t i = 1; i < n; i++) {
                const uint32_t t = pp[i];
                uint32_t k = i;
                for (; k > 0 && p->peer[pp[k - 1]] > p->peer[t]; k--)
                    pp[k] = pp[k - 1];
                pp[k] = t;
            }
        }
        for (uint32_t i = 1; i < n; i++) {
            uint32_t u = pp[i - 1], t = pp[i];
            if (p->peer[t] != p->peer[u] || p->amount[t] >= p->amount[u])
                continue;
            gboolean after =
                (p->flags[u] & FENNEL_TASK_BLOCKING) &&
                (p->pin ? p->pin[u] : FENNEL_NO_RANK) == (p->pin ? p->pin[t] : FENNEL_NO_RANK);
            for (uint64_t e = p->succ_start[u]; e < p->succ_start[u + 1] && !after; e++)
                after = p->succ[e] == t;
            if (after)
                continue;
            if (differ.count == 0)
                other = u;
            kind_add(&differ, t);
        }
    }
    g_free(puts);
    g_free(rank_puts);

    GPtrArray *lines = g_ptr_array_new();
    char a[24], b[24], m[40];
    if (get.count)
        g_ptr_array_add(lines, g_strdup_printf("GOAL has no get: '%s'%s becomes a request and a "
                                               "response that the target's CPU sends, busy with it "
                                               "while the get's issuer is free (every model)",
                                               fennel_program_task_name(p, get.first, a),
                                               more(&get, m, sizeof m)));
    if (blocking.count)
        g_ptr_array_add(lines, g_strdup_printf("GOAL has no blocking put: '%s'%s becomes a send, "
                                               "which frees its CPU before the data is there "
                                               "(lbp, LogP, LogGP)",
                                               fennel_program_task_name(p, blocking.first, a),
                                               more(&blocking, m, sizeof m)));
    if (followed.count)
        g_ptr_array_add(lines,
                        g_strdup_printf("GOAL has no put: '%s'%s becomes a send, and '%s' of its "
                                        "rank follows it when the send's overhead ends, not "
                                        "when the data has been received (LogP, LogGP)",
                                        fennel_program_task_name(p, followed.first, a),
                                        more(&followed, m, sizeof m),
                                        fennel_program_task_name(p, follower, b)));
    if (differ.count)
        g_ptr_array_add(lines,
                        g_strdup_printf("GOAL has no put: '%s' and the smaller '%s'%s, from "
                                        "rank %u to rank %u, become sends, and a send cannot "
                                        "overtake the one before it as a put can (postal, lbp)",
                                        fennel_program_task_name(p, other, a),
                                        fennel_program_task_name(p, differ.first, b),
                                        more(&differ, m, sizeof m), p->rank[differ.first],
                                        p->peer[differ.first]));
    if (unpinned.count)
        g_ptr_array_add(lines, g_strdup_printf("GOAL pins every operation to a CPU: '%s'%s runs "
                                               "on CPU 0 alone, where it waited for all %u "
                                               "slots of its rank (every model)",
                                               fennel_program_task_name(p, unpinned.first, a),
                                               more(&unpinned, m, sizeof m), p->processes));
    if (concurrent.count)
        g_ptr_array_add(lines, g_strdup_printf("GOAL pins every operation to a CPU: '%s'%s runs "
                                               "on CPU 0, where it took the first free of %u "
                                               "slots (every model)",
                                               fennel_program_task_name(p, concurrent.first, a),
                                               more(&concurrent, m, sizeof m), p->processes));
    /* GOAL has no eager mark: LogGOPSim sends by rendezvous above its S. */
    if (eager > 0)
        g_ptr_array_add(lines,
                        g_strdup_printf("eager sends (buffered connections) up to %" G_GINT64_FORMAT
                                        " bytes: give S >= %" G_GINT64_FORMAT
                                        " for the same times (LogP, LogGP)",
                                        eager, eager));
    if (lines->len == 0) {
        g_ptr_array_free(lines, TRUE);
        return NULL;
    }
    g_ptr_array_add(lines, NULL);
    return (char **)g_ptr_array_free(lines, FALSE);
}

gboolean fennel_program_write_goal(const FennelProgram *p, const FennelModel *model, GString *out,
                                   GError **error)
{
    FennelSink sink = fennel_sink_on_string(out);
    gboolean ok = fennel_program_stream_goal(p, model, &sink, error);
    g_strfreev(sink.notes);
    return ok;
}

/* A dependency as its dependent's rank names it: the index of the label there (RankLabels:
 * the rank's tasks, then the puts and gets aimed at it) and the suffix of the operation
 * whose completion stands for the task (completion_suffix()), or NO_LABEL when the rank
 * cannot wait for the task. */
#define LABEL_BITS 30
#define LABEL_MASK ((1u << LABEL_BITS) - 1)
#define NO_LABEL   UINT32_MAX
static const char *const label_suffix[4] = {"", "b", "r", "q"};

/* Edges ahead whose places rank_dependencies() asks the cache for. */
#define PREFETCH_AHEAD 16

/* The dependencies of every task as its rank's lines name them (above), listed in the
 * order of the tasks by rank (rank_list) rather than by task, so that a rank's lists are
 * read in one stretch and name their labels by index instead of a search. `where`: each
 * task's place in rank_list. FALSE when a rank has more labels than an index holds. */
static gboolean rank_dependencies(const FennelProgram *p, const uint32_t *rank_start,
                                  const uint32_t *where, const uint32_t *in_start,
                                  FennelEdgeIndex **start_out, uint32_t **list_out)
{
    for (uint32_t r = 0; r < p->n_ranks; r++) {
        if ((uint64_t)rank_start[r + 1] - rank_start[r] + in_start[r + 1] - in_start[r] >
            LABEL_MASK)
            return FALSE;
    }
    const uint32_t n = p->n_tasks;
    FennelEdgeIndex *start = g_new0(FennelEdgeIndex, (gsize)n + 1);
    const FennelEdgeIndex edges = p->succ_start ? p->succ_start[n] : 0;
    uint32_t *list = g_new(uint32_t, edges ? edges : 1);
    /* Each entry's place is a stage's width away from the last one's: asked for a few
     * entries ahead, so that its miss overlaps the work between. */
    for (FennelEdgeIndex e = 0; e < edges; e++) {
        if (e + PREFETCH_AHEAD < edges)
            __builtin_prefetch(&start[where[p->succ[e + PREFETCH_AHEAD]] + 1], 1);
        start[where[p->succ[e]] + 1]++;
    }
    for (uint32_t i = 0; i < n; i++)
        start[i + 1] += start[i];
    /* Filled in task order, so each list keeps the order of the dependencies' tasks; start[i]
     * moves to where list i ends and is put back after. A rank's incoming puts and gets are
     * in task order too (in_list): counted in passing, they give each one's place there. */
    uint32_t *incoming = g_new0(uint32_t, (gsize)p->n_ranks + 1);
    for (uint32_t u = 0; p->succ_start && u < n; u++) {
        const uint8_t type = p->type[u];
        const gboolean message = type == FENNEL_TASK_PUT || type == FENNEL_TASK_GET;
        const uint32_t in_where = message ? incoming[p->peer[u]]++ : 0;
        for (FennelEdgeIndex e = p->succ_start[u]; e < p->succ_start[u + 1]; e++) {
            if (e + PREFETCH_AHEAD < edges)
                __builtin_prefetch(&start[where[p->succ[e + PREFETCH_AHEAD]]], 1);
            const uint32_t t = p->succ[e], r = p->rank[t];
            uint32_t code = NO_LABEL;
            if (p->rank[u] == r)
                code = (where[u] - rank_start[r]) | (type == FENNEL_TASK_GET ? 1u : 0u)
                                                        << LABEL_BITS;
            else if (message && p->peer[u] == r)
                code = (rank_start[r + 1] - rank_start[r] + in_where) |
                       (type == FENNEL_TASK_PUT ? 2u : 3u) << LABEL_BITS;
            list[start[where[t]]++] = code;
        }
    }
    g_free(incoming);
    for (uint32_t i = n; i > 0; i--)
        start[i] = start[i - 1];
    start[0] = 0;
    *start_out = start;
    *list_out = list;
    return TRUE;
}

/* Writes task t's operations on its own rank (label k of the rank), and its dependencies
 * to `deps`. */
static gboolean write_task(const FennelProgram *p, const FennelModel *model, const Labels *l,
                           RankLabels *rl, uint32_t k, uint64_t base, const uint32_t *dep_list,
                           const FennelEdgeIndex *dep_start, const uint32_t *spreds,
                           const FennelEdgeIndex *spred_start, GString *out, GString *deps,
                           GError **error)
{
    const char *fmt = "GOAL";
    const uint32_t t = rl->own[k];
    const Text me = label_k(rl, k);
    const uint64_t tag = base + 2 * (uint64_t)t;
    char *c = line_begin(out, 2 * line_room(rl, 0));
    switch ((FennelTaskType)p->type[t]) {
    case FENNEL_TASK_START:
    case FENNEL_TASK_SLEEP:
    case FENNEL_TASK_PROXY:
    case FENNEL_TASK_COMPUTE: {
        FennelTime d = p->type[t] == FENNEL_TASK_PROXY ? 0 : p->amount[t];
        if (p->type[t] == FENNEL_TASK_COMPUTE && (p->flags[t] & FENNEL_TASK_SIZED)) {
            if (model == NULL)
                return fail(error, p, t, fmt, "is a sized compute: give --model for its duration");
            d = model->compute->duration(model, p->amount[t]);
        }
        uint64_t ns = 0;
        if (!whole_ns(p, t, d, fmt, &ns, error))
            return FALSE;
        c = put_label(c, l, me, "");
        c = PUT(c, ": calc ");
        c = fennel_put_uint(c, ns);
        if (p->pin && p->pin[t] != FENNEL_NO_RANK) {
            c = PUT(c, " cpu ");
            c = fennel_put_uint(c, p->pin[t]);
        }
        *c++ = '\n';
        break;
    }
    case FENNEL_TASK_PUT:
        c = put_label(c, l, me, "");
        c = PUT(c, ": send ");
        c = put_i64(c, p->amount[t]);
        c = PUT(c, "b to ");
        c = fennel_put_uint(c, p->peer[t]);
        c = put_tail(c, p, t, (uint32_t)tag);
        break;
    case FENNEL_TASK_GET:
        c = put_label(c, l, me, "");
        c = PUT(c, ": send ");
        c = put_i64(c, p->request[t]);
        c = PUT(c, "b to ");
        c = fennel_put_uint(c, p->peer[t]);
        c = put_tail(c, p, t, (uint32_t)tag);
        c = put_label(c, l, me, "b");
        c = PUT(c, ": recv ");
        c = put_i64(c, p->amount[t]);
        c = PUT(c, "b from ");
        c = fennel_put_uint(c, p->peer[t]);
        c = put_tail(c, p, t, (uint32_t)(tag + 1));
        break;
    case FENNEL_TASK_SEND:
    case FENNEL_TASK_RECV:
        c = put_label(c, l, me, "");
        if (p->type[t] == FENNEL_TASK_SEND)
            c = PUT(c, ": send ");
        else
            c = PUT(c, ": recv ");
        c = put_i64(c, p->amount[t]);
        if (p->type[t] == FENNEL_TASK_SEND)
            c = PUT(c, "b to ");
        else
            c = PUT(c, "b from ");
        if (p->peer[t] == FENNEL_ANY)
            c = PUT(c, "-1");
        else
            c = fennel_put_uint(c, p->peer[t]);
        c = put_tail(c, p, t, p->tag ? p->tag[t] : 0);
        break;
    case FENNEL_TASK_LOAD_REDUCE:
    case FENNEL_TASK_MULTICAST: /* refused before */
    case FENNEL_TASK_N_TYPES:
        g_assert_not_reached();
    }
    line_end(out, c);
    if (p->type[t] == FENNEL_TASK_GET) {
        c = line_begin(deps, line_room(rl, 0));
        c = put_label(c, l, me, "b");
        c = PUT(c, " requires ");
        c = put_label(c, l, me, "");
        *c++ = '\n';
        line_end(deps, c);
    }
    /* Its dependencies (rank_dependencies(): dep_start is at the task's place by rank),
     * written once every label of the block exists. */
    for (FennelEdgeIndex e = dep_start[0]; e < dep_start[1]; e++) {
        const uint32_t code = dep_list[e];
        if (code == NO_LABEL)
            return fail(error, p, t, fmt,
                        "depends on a task of another rank without a message; GOAL cannot "
                        "express it");
        const Text them = label_k(rl, code & LABEL_MASK);
        c = line_begin(deps, line_room(rl, them.n));
        c = put_label(c, l, me, "");
        c = PUT(c, " requires ");
        c = put_label(c, l, them, label_suffix[code >> LABEL_BITS]);
        *c++ = '\n';
        line_end(deps, c);
    }
    for (FennelEdgeIndex e = spred_start ? spred_start[t] : 0;
         spred_start && e < spred_start[t + 1]; e++) {
        const Text them = label_of(rl, l, spreds[e], k);
        c = line_begin(deps, line_room(rl, them.n));
        c = put_label(c, l, me, "");
        c = PUT(c, " irequires ");
        c = put_label(c, l, them, "");
        *c++ = '\n';
        line_end(deps, c);
    }
    return TRUE;
}

/* Writes the receiving ends of a put or get aimed at the rank (incoming label j). */
static void write_incoming(const FennelProgram *p, const Labels *l, const RankLabels *rl,
                           uint32_t j, uint64_t base, GString *out, GString *deps)
{
    const uint32_t t = rl->in[j];
    const Text them = label_k(rl, rl->n_own + j);
    const uint64_t tag = base + 2 * (uint64_t)t;
    char *c = line_begin(out, 2 * line_room(rl, 0));
    if (p->type[t] == FENNEL_TASK_PUT) {
        c = put_label(c, l, them, "r");
        c = PUT(c, ": recv ");
        c = put_i64(c, p->amount[t]);
        c = PUT(c, "b from ");
        c = fennel_put_uint(c, p->rank[t]);
        c = PUT(c, " tag ");
        c = fennel_put_uint(c, tag);
        *c++ = '\n';
        line_end(out, c);
        return;
    }
    c = put_label(c, l, them, "q");
    c = PUT(c, ": recv ");
    c = put_i64(c, p->request[t]);
    c = PUT(c, "b from ");
    c = fennel_put_uint(c, p->rank[t]);
    c = PUT(c, " tag ");
    c = fennel_put_uint(c, tag);
    *c++ = '\n';
    c = put_label(c, l, them, "s");
    c = PUT(c, ": send ");
    c = put_i64(c, p->amount[t]);
    c = PUT(c, "b to ");
    c = fennel_put_uint(c, p->rank[t]);
    c = PUT(c, " tag ");
    c = fennel_put_uint(c, tag + 1);
    *c++ = '\n';
    line_end(out, c);
    c = line_begin(deps, line_room(rl, 0));
    c = put_label(c, l, them, "s");
    c = PUT(c, " requires ");
    c = put_label(c, l, them, "q");
    *c++ = '\n';
    line_end(deps, c);
}

gboolean fennel_program_stream_goal(const FennelProgram *p, const FennelModel *model,
                                    FennelSink *sink, GError **error)
{
    GString *out = sink->text;
    const char *fmt = "GOAL";
    for (uint32_t t = 0; t < p->n_tasks; t++) {
        if (p->type[t] == FENNEL_TASK_LOAD_REDUCE || p->type[t] == FENNEL_TASK_MULTICAST)
            return fail(error, p, t, fmt,
                        "is an operation of a switch (load-reduce, multicast), which GOAL lacks");
    }
    /* Puts and gets need tags of their own, above every tag the program uses. */
    uint64_t base = 0;
    for (uint32_t t = 0; p->tag && t < p->n_tasks; t++) {
        if (p->tag[t] != FENNEL_ANY)
            base = MAX(base, (uint64_t)p->tag[t] + 1);
    }
    if (base + 2 * (uint64_t)p->n_tasks >= FENNEL_ANY)
        return fail(error, p, 0, fmt, "needs more tags than GOAL has");
    for (uint32_t t = 0; t < p->n_tasks; t++) {
        if (fennel_program_any(p, t))
            return fail(error, p, t, fmt, "waits for `any` of its predecessors");
    }
    /* What the file does not keep of the program's times, said where it is read, and left
     * in the sink for `generate`'s warnings (made once: a pass over every put). */
    char **caveats = fennel_program_goal_caveats(p);
    for (char **c = caveats; c && *c; c++)
        g_string_append_printf(out, "// %s\n", *c);
    g_strfreev(sink->notes);
    sink->notes = caveats;
    FennelEdgeIndex *dep_start, *spred_start;
    uint32_t *rank_start, *rank_list, *dep_list, *spreds;
    uint32_t *where = g_new(uint32_t, MAX(p->n_tasks, 1));
    by_rank(p, &rank_start, &rank_list, where);
    /* Start dependencies are rare: without them no list is made. */
    spred_start = NULL;
    spreds = NULL;
    if (p->start_succ)
        predecessors(p, TRUE, &spred_start, &spreds);
    /* Puts and gets that target each rank, in task order, for the receives written there. */
    uint32_t *in_start = g_new0(uint32_t, (gsize)p->n_ranks + 1), *in_list;
    for (uint32_t t = 0; t < p->n_tasks; t++) {
        if (p->type[t] == FENNEL_TASK_PUT || p->type[t] == FENNEL_TASK_GET)
            in_start[p->peer[t] + 1]++;
    }
    for (uint32_t r = 0; r < p->n_ranks; r++)
        in_start[r + 1] += in_start[r];
    in_list = g_new(uint32_t, MAX(in_start[p->n_ranks], 1));
    for (uint32_t t = 0; t < p->n_tasks; t++) {
        if (p->type[t] == FENNEL_TASK_PUT || p->type[t] == FENNEL_TASK_GET)
            in_list[in_start[p->peer[t]]++] = t;
    }
    for (uint32_t r = p->n_ranks; r > 0; r--)
        in_start[r] = in_start[r - 1];
    in_start[0] = 0;
    const gboolean indexed =
        rank_dependencies(p, rank_start, where, in_start, &dep_start, &dep_list);
    g_free(where);
    if (!indexed) {
        g_free(in_start);
        g_free(in_list);
        g_free(rank_start);
        g_free(rank_list);
        g_free(spred_start);
        g_free(spreds);
        return fail(error, p, 0, fmt, "is in a program with a rank of more operations than 2^30");
    }

    gboolean ok = TRUE;
    char *c = line_begin(out, 16 + NUMBER_ROOM);
    c = PUT(c, "num_ranks ");
    c = fennel_put_uint(c, p->n_ranks);
    *c++ = '\n';
    line_end(out, c);
    GString *deps = g_string_new(NULL);
    Labels labels;
    labels_init(&labels, p, rank_start, rank_list);
    RankLabels rl = {.text = g_string_new(NULL), .other = g_string_new(NULL)};
    for (uint32_t r = 0; r < p->n_ranks && ok; r++) {
        /* The next rank's tasks and the puts aimed at it lie a stage's width apart in task
         * order: their fields are asked for while this rank is written. */
        if (r + 1 < p->n_ranks) {
            for (uint32_t i = rank_start[r + 1]; i < rank_start[r + 2]; i++) {
                __builtin_prefetch(&p->amount[rank_list[i]]);
                __builtin_prefetch(&p->type[rank_list[i]]);
            }
            for (uint32_t i = in_start[r + 1]; i < in_start[r + 2]; i++)
                __builtin_prefetch(&p->amount[in_list[i]]);
        }
        c = line_begin(out, 16 + NUMBER_ROOM);
        c = PUT(c, "\nrank ");
        c = fennel_put_uint(c, r);
        c = PUT(c, " {\n");
        line_end(out, c);
        g_string_truncate(deps, 0);
        rank_labels_make(&rl, &labels, r, rank_list + rank_start[r],
                         rank_start[r + 1] - rank_start[r], in_list + in_start[r],
                         in_start[r + 1] - in_start[r]);
        for (uint32_t k = 0; k < rl.n_own && ok; k++)
            ok = write_task(p, model, &labels, &rl, k, base, dep_list,
                            dep_start + rank_start[r] + k, spreds, spred_start, out, deps, error);
        for (uint32_t j = 0; j < rl.n_in && ok; j++)
            write_incoming(p, &labels, &rl, j, base, out, deps);
        fennel_append_len(out, deps->str, deps->len);
        FENNEL_APPEND(out, "}\n");
        fennel_sink_spill(sink);
    }
    g_string_free(deps, TRUE);
    g_string_free(rl.text, TRUE);
    g_string_free(rl.other, TRUE);
    g_free(rl.at);
    labels_clear(&labels);
    g_free(in_start);
    g_free(in_list);
    g_free(rank_start);
    g_free(rank_list);
    g_free(dep_start);
    g_free(dep_list);
    g_free(spred_start);
    g_free(spreds);
    return ok;
}

/* ---- the original Fennel's dialect ---- */

gboolean fennel_program_write_fennel_goal(const FennelProgram *p, GString *out, GError **error)
{
    FennelSink sink = fennel_sink_on_string(out);
    return fennel_program_stream_fennel_goal(p, &sink, error);
}

gboolean fennel_program_stream_fennel_goal(const FennelProgram *p, FennelSink *sink, GError **error)
{
    GString *out = sink->text;
    const char *fmt = "fennel-goal";
    for (uint32_t t = 0; t < p->n_tasks; t++) {
        const char *why = NULL;
        if (p->type[t] == FENNEL_TASK_GET || p->type[t] == FENNEL_TASK_SEND ||
            p->type[t] == FENNEL_TASK_RECV)
            why = "is a get, send or recv, which the dialect lacks";
        else if (p->type[t] == FENNEL_TASK_LOAD_REDUCE || p->type[t] == FENNEL_TASK_MULTICAST)
            why = "is an operation of a switch (load-reduce, multicast), which GOAL lacks";
        else if (fennel_program_any(p, t))
            why = "waits for `any` of its predecessors";
        else if (p->flags[t] & FENNEL_TASK_CONCURRENT)
            why = "is concurrent";
        else if (p->pin && p->pin[t] != FENNEL_NO_RANK)
            why = "is pinned to a slot";
        if (why)
            return fail(error, p, t, fmt, why);
    }
    if (p->start_succ || p->processes > 1)
        return fail(error, p, 0, fmt, "is in a program with start dependencies or slots");
    FennelEdgeIndex *pred_start;
    uint32_t *rank_start, *rank_list, *preds;
    by_rank(p, &rank_start, &rank_list, NULL);
    predecessors(p, FALSE, &pred_start, &preds);
    gboolean ok = TRUE;
    GString *deps = g_string_new(NULL);
    for (uint32_t r = 0; r < p->n_ranks && ok; r++) {
        g_string_append_printf(out, "%srank %u {\n", r ? "\n" : "", r);
        g_string_truncate(deps, 0);
        for (uint32_t i = rank_start[r]; i < rank_start[r + 1] && ok; i++) {
            uint32_t t = rank_list[i];
            uint64_t ns = 0;
            g_string_append_printf(out, "\tl%u: ", t);
            switch ((FennelTaskType)p->type[t]) {
            case FENNEL_TASK_START:
                ok = whole_ns(p, t, p->amount[t], fmt, &ns, error);
                FENNEL_APPEND(out, "start");
                if (ns)
                    g_string_append_printf(out, " %" G_GUINT64_FORMAT "ns", ns);
                break;
            case FENNEL_TASK_PROXY:
                FENNEL_APPEND(out, "sleep 0ns");
                break;
            case FENNEL_TASK_SLEEP:
                ok = whole_ns(p, t, p->amount[t], fmt, &ns, error);
                g_string_append_printf(out, "sleep %" G_GUINT64_FORMAT "ns", ns);
                break;
            case FENNEL_TASK_COMPUTE:
                if (p->flags[t] & FENNEL_TASK_SIZED) {
                    g_string_append_printf(out, "compute %" G_GINT64_FORMAT "b", p->amount[t]);
                } else {
                    ok = whole_ns(p, t, p->amount[t], fmt, &ns, error);
                    g_string_append_printf(out, "compute %" G_GUINT64_FORMAT "ns", ns);
                }
                break;
            case FENNEL_TASK_PUT:
                g_string_append_printf(out, "put %" G_GINT64_FORMAT "b to r%u%s", p->amount[t],
                                       p->peer[t],
                                       (p->flags[t] & FENNEL_TASK_BLOCKING) ? " blocking" : "");
                break;
            default:
                g_assert_not_reached();
            }
            FENNEL_APPEND(out, "\n");
            for (FennelEdgeIndex e = pred_start[t]; e < pred_start[t + 1]; e++) {
                uint32_t u = preds[e];
                if (p->rank[u] == r)
                    g_string_append_printf(deps, "\tl%u > l%u\n", t, u);
                else
                    g_string_append_printf(deps, "\tl%u > r%u:l%u\n", t, p->rank[u], u);
            }
        }
        if (deps->len)
            g_string_append_printf(out, "\n%s", deps->str);
        FENNEL_APPEND(out, "}\n");
        fennel_sink_spill(sink);
    }
    g_string_free(deps, TRUE);
    g_free(rank_start);
    g_free(rank_list);
    g_free(pred_start);
    g_free(preds);
    return ok;
}
