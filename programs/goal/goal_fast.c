/* The fast path of the LogGOPSim GOAL reader: one pass over the plain text that Schedgen,
 * the ATLAHS generators and fennel write (one statement per line, `//` comments and C
 * comments closed on their line, ASCII outside `//` comments), with labels found in a hash
 * table of the file's own bytes and no copies but the task names. Whatever it does not know
 * for sure (comments over several lines, carriage returns, `-1` peers and tags, a label
 * used before it is defined, a value out of range, any other error) makes it decline, and
 * the careful reader (goal_loggopsim.c) reads the file again and reports the error at its
 * FILE:LINE:COL; so both give the same program or the same message. Every token is checked
 * against what may come there, so an unexpected byte anywhere outside a comment declines
 * the file. */
#include "goal_readers.h"

#include "capacity.h"
#include "input.h"

#include <string.h>

typedef struct {
    const char *text; /* in the file's data; NULL: free */
    uint32_t len;
    uint32_t task;
    uint32_t generation; /* the rank block it belongs to */
} Label;

typedef struct {
    const char *p, *line_start, *line_end, *end;
    const char *next; /* the next line */
    uint32_t line;
    Label *labels;
    uint32_t capacity, count, generation;
    uint8_t *has_pred;
    uint32_t has_pred_len;
    FennelGoalTags tags;
    GArray *new_tags;  /* the tags of 2^31 or more, in the order they first appear */
    gboolean declined; /* by a comment it cannot be sure of */
    /* A mapped file's text is given back page by page behind the scan (input.h): what
     * lies before the open rank block, whose labels the table points to, is never read
     * again while reading. */
    gboolean release;
    const char *released, *block_start;
} Scan;

/* [A-Za-z0-9_], by table: the scanner asks for every byte of every label. */
static const uint8_t word_chars[256] = {
    ['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1, ['7'] = 1,
    ['8'] = 1, ['9'] = 1, ['_'] = 1, ['A'] = 1, ['B'] = 1, ['C'] = 1, ['D'] = 1, ['E'] = 1,
    ['F'] = 1, ['G'] = 1, ['H'] = 1, ['I'] = 1, ['J'] = 1, ['K'] = 1, ['L'] = 1, ['M'] = 1,
    ['N'] = 1, ['O'] = 1, ['P'] = 1, ['Q'] = 1, ['R'] = 1, ['S'] = 1, ['T'] = 1, ['U'] = 1,
    ['V'] = 1, ['W'] = 1, ['X'] = 1, ['Y'] = 1, ['Z'] = 1, ['a'] = 1, ['b'] = 1, ['c'] = 1,
    ['d'] = 1, ['e'] = 1, ['f'] = 1, ['g'] = 1, ['h'] = 1, ['i'] = 1, ['j'] = 1, ['k'] = 1,
    ['l'] = 1, ['m'] = 1, ['n'] = 1, ['o'] = 1, ['p'] = 1, ['q'] = 1, ['r'] = 1, ['s'] = 1,
    ['t'] = 1, ['u'] = 1, ['v'] = 1, ['w'] = 1, ['x'] = 1, ['y'] = 1, ['z'] = 1,
};

static inline gboolean is_word_char(char c)
{
    return word_chars[(uint8_t)c];
}

/* Skips a C comment closed on its line (Schedgen writes them between statements); one
 * left open, or holding a byte that is not ASCII (columns count characters), declines the
 * file. */
static void skip_block_comment(Scan *s)
{
    for (const char *c = s->p + 2; c + 1 < s->line_end; c++) {
        /* A NUL ends the careful reader's text; the file reader refuses NULs before. */
        if ((unsigned char)*c >= 0x80 || *c == '\0')
            break;
        if (c[0] == '*' && c[1] == '/') {
            s->p = c + 2;
            return;
        }
    }
    s->declined = TRUE;
    s->p = s->line_end;
}

static inline void skip_blanks(Scan *s)
{
    for (;;) {
        /* No bound: a line ends at a newline or at the NUL after the text, neither blank. */
        while (*s->p == ' ' || *s->p == '\t')
            s->p++;
        if (s->p[0] != '/' || s->p + 1 >= s->line_end)
            return;
        /* A `//` comment runs to the end of the line; one holding a NUL (where the careful
         * reader's text ends) or a byte that is not ASCII (which the file's check of UTF-8
         * must see) declines the file, so that what the fast path takes needs no check. */
        if (s->p[1] == '/') {
            for (const char *c = s->p + 2; c < s->line_end; c++) {
                if ((unsigned char)*c >= 0x80 || *c == '\0')
                    s->declined = TRUE;
            }
            s->p = s->line_end;
            return;
        }
        if (s->p[1] != '*')
            return;
        skip_block_comment(s);
    }
}

/* A word of [A-Za-z0-9_] of any length (labels have no limit); its length, or 0 if there
 * is none. */
static inline uint32_t word(Scan *s, const char **start)
{
    skip_blanks(s);
    /* Four bytes a round (a quarter of a large file's reading was this loop); it stops at the
     * newline or the final NUL, so no bound is needed. */
    const char *p = s->p;
    for (;;) {
        if (!is_word_char(p[0]))
            break;
        if (!is_word_char(p[1])) {
            p += 1;
            break;
        }
        if (!is_word_char(p[2])) {
            p += 2;
            break;
        }
        if (!is_word_char(p[3])) {
            p += 3;
            break;
        }
        p += 4;
    }
    *start = s->p;
    s->p = p;
    return (uint32_t)(p - *start);
}

static inline gboolean is(const char *w, uint32_t n, const char *keyword)
{
    return strlen(keyword) == n && memcmp(w, keyword, n) == 0;
}

/* An unsigned decimal number of at most 18 digits and at most `max`. */
static inline gboolean number(Scan *s, uint64_t max, uint64_t *out)
{
    skip_blanks(s);
    const char *start = s->p;
    uint64_t v = 0;
    /* No bound: the newline or the NUL after the text is not a digit. */
    while (g_ascii_isdigit(*s->p) && s->p - start < 18)
        v = v * 10 + (uint64_t)(*s->p++ - '0');
    if (s->p == start || g_ascii_isdigit(*s->p) || v > max)
        return FALSE;
    *out = v;
    return TRUE;
}

static inline gboolean accept(Scan *s, char c)
{
    skip_blanks(s);
    if (s->p < s->line_end && *s->p == c) {
        s->p++;
        return TRUE;
    }
    return FALSE;
}

static inline gboolean at_end(Scan *s)
{
    skip_blanks(s);
    return s->p >= s->line_end;
}

static inline unsigned col_of(const Scan *s, const char *at)
{
    return (unsigned)(at - s->line_start) + 1; /* the line so far is ASCII */
}

/* The bytes w[i..i+8), in the machine's order. */
static inline uint64_t load8(const char *w)
{
    uint64_t x;
    memcpy(&x, w, 8);
    return x;
}

/* The first n < 8 bytes at w as a word, the others zero. When eight bytes from w lie within
 * the text and its NUL (`end` points at the NUL), one load and a mask; else byte by byte. */
static inline uint64_t head(const char *w, uint32_t n, const char *end)
{
    uint64_t x = 0;
    if (n == 0)
        return 0;
    if (w + 8 <= end + 1) {
        uint64_t keep = (UINT64_C(1) << (8 * n)) - 1;
#if G_BYTE_ORDER == G_BIG_ENDIAN
        keep <<= 64 - 8 * n;
#endif
        return load8(w) & keep;
    }
    memcpy(&x, w, n);
    return x;
}

/* Labels are hashed and compared eight bytes at a time (a byte at a time was a fifth of
 * reading a file of long labels). The hash stays within the process, so the byte order
 * does not matter; the rest of a long label is its last eight bytes. */
static inline uint64_t mix(uint64_t h, uint64_t x)
{
    h = (h ^ x) * 0xff51afd7ed558ccdull;
    return h ^ (h >> 33);
}

/* A product carries a byte's bits only upwards, so the table's index (the low bits) needs
 * the high bits folded in once more: labels that differ in their last bytes (t1000001,
 * t1000002) went to one slot without this. */
static inline uint64_t finish_hash(uint64_t h)
{
    h *= 0xc4ceb9fe1a85ec53ull;
    return h ^ (h >> 33);
}

static inline uint64_t hash_of(const char *w, uint32_t n, const char *end)
{
    uint64_t h = n * 0x9e3779b97f4a7c15ull;
    if (n < 8)
        return finish_hash(mix(h, head(w, n, end)));
    uint32_t i = 0;
    for (; i + 8 <= n; i += 8)
        h = mix(h, load8(w + i));
    return finish_hash(i == n ? h : mix(h, load8(w + n - 8)));
}

static inline gboolean same(const char *a, const char *b, uint32_t n, const char *end)
{
    if (n < 8)
        return head(a, n, end) == head(b, n, end);
    for (uint32_t i = 0; i + 8 <= n; i += 8) {
        if (load8(a + i) != load8(b + i))
            return FALSE;
    }
    return load8(a + n - 8) == load8(b + n - 8);
}

/* The slot of a label in the open block: its entry, or the free one where it would go. */
static inline __attribute__((always_inline)) Label *label_slot(Scan *s, const char *w, uint32_t n)
{
    uint32_t mask = s->capacity - 1, i = (uint32_t)hash_of(w, n, s->end) & mask;
    for (;;) {
        Label *l = &s->labels[i];
        if (l->text == NULL || l->generation != s->generation)
            return l;
        if (l->len == n && same(l->text, w, n, s->end))
            return l;
        i = (i + 1) & mask;
    }
}

/* The task of a label of the open block, or UINT32_MAX. */
static uint32_t find_label(Scan *s, const char *w, uint32_t n)
{
    if (s->capacity == 0)
        return UINT32_MAX;
    const Label *l = label_slot(s, w, n);
    return l->text && l->generation == s->generation ? l->task : UINT32_MAX;
}

static void labels_grow(Scan *s)
{
    Label *old = s->labels;
    uint32_t old_capacity = s->capacity;
    s->capacity = old_capacity ? 2 * old_capacity : 1024;
    s->labels = g_new0(Label, s->capacity);
    for (uint32_t i = 0; i < old_capacity; i++) {
        if (old[i].text && old[i].generation == s->generation)
            *label_slot(s, old[i].text, old[i].len) = old[i];
    }
    g_free(old);
}

static void mark_pred(Scan *s, uint32_t task)
{
    if (task >= s->has_pred_len) {
        uint32_t n = MAX(2 * s->has_pred_len, task + 1024);
        s->has_pred = g_renew(uint8_t, s->has_pred, n);
        memset(s->has_pred + s->has_pred_len, 0, n - s->has_pred_len);
        s->has_pred_len = n;
    }
    s->has_pred[task] = 1;
}

static gboolean is_keyword(const char *w, uint32_t n)
{
    return is(w, n, "send") || is(w, n, "recv") || is(w, n, "calc") || is(w, n, "rank") ||
           is(w, n, "num_ranks") || is(w, n, "requires") || is(w, n, "irequires");
}

/* An operation: send, recv or calc and their options, then the task's name and position. */
static gboolean operation(Scan *s, FennelProgramBuilder *b, uint32_t rank, uint64_t num_ranks,
                          const char *op, uint32_t op_len, const char *label, uint32_t label_len,
                          unsigned at, uint32_t *max_cpu)
{
    uint64_t amount, peer = 0;
    gboolean two_sided = !is(op, op_len, "calc");
    gboolean is_recv = is(op, op_len, "recv");
    if (two_sided && !is_recv && !is(op, op_len, "send"))
        return FALSE;
    const char *w;
    uint32_t n;
    if (two_sided) {
        if (!number(s, INT64_MAX, &amount) || !accept(s, 'b'))
            return FALSE;
        n = word(s, &w);
        if (!is(w, n, is_recv ? "from" : "to") || !number(s, num_ranks - 1, &peer))
            return FALSE;
    } else if (!number(s, INT64_MAX / FENNEL_NS, &amount)) {
        return FALSE;
    }
    uint64_t tag = 0, cpu = 0, v;
    gboolean seen_tag = FALSE, seen_cpu = FALSE, seen_nic = FALSE;
    while (!at_end(s)) {
        n = word(s, &w);
        gboolean *seen = is(w, n, "tag") && two_sided ? &seen_tag
                         : is(w, n, "cpu")            ? &seen_cpu
                         : is(w, n, "nic")            ? &seen_nic
                                                      : NULL;
        if (seen == NULL || *seen || !number(s, seen == &seen_tag ? FENNEL_GOAL_TAG_MAX : 255, &v))
            return FALSE;
        *seen = TRUE;
        if (seen == &seen_tag)
            tag = v;
        else if (seen == &seen_cpu)
            cpu = v;
    }
    uint32_t task;
    if (two_sided) {
        task = fennel_builder_add(b, is_recv ? FENNEL_TASK_RECV : FENNEL_TASK_SEND, rank);
        fennel_builder_set_peer(b, task, (uint32_t)peer);
        fennel_builder_set_amount(b, task, (int64_t)amount);
        uint32_t id, before = s->tags.next;
        if (!fennel__goal_tag(&s->tags, tag, &id))
            return FALSE;
        if (s->tags.next != before)
            g_array_append_val(s->new_tags, tag);
        fennel_builder_set_tag(b, task, id);
    } else {
        task = fennel_builder_add(b, FENNEL_TASK_COMPUTE, rank);
        fennel_builder_set_amount(b, task, (FennelTime)amount * FENNEL_NS);
    }
    fennel_builder_set_pin(b, task, (uint32_t)cpu);
    *max_cpu = MAX(*max_cpu, (uint32_t)cpu);
    fennel_builder_set_position(b, task, s->line, at);
    if (label) {
        if (2 * (s->count + 1) > s->capacity)
            labels_grow(s);
        Label *l = label_slot(s, label, label_len);
        if (l->text && l->generation == s->generation)
            return FALSE; /* defined twice */
        *l = (Label){.text = label, .len = label_len, .task = task, .generation = s->generation};
        s->count++;
    }
    return TRUE;
}

/* How much text the scan passes before it gives the pages back. */
#define RELEASE_STEP ((ptrdiff_t)16 << 20)

/* A part of the file, read on its own: the whole file, or (for a large file) one of two
 * halves read at once, each from the beginning of a rank block. */
typedef struct {
    Scan s;
    FennelProgramBuilder *b;
    const FennelLimits *limits;
    uint64_t num_ranks;
    uint8_t *seen_rank;
    uint32_t *start; /* each rank's start task, for the ranks the part has */
    uint32_t max_cpu;
    const char *name;
    FennelProgram *p; /* what the part reads, once finished */
    GError *error;
    gboolean ok;
} Part;

/* Reads lines from s->next to s->end; with `header`, only up to `num_ranks`. The part must
 * end outside a rank block. */
static gboolean scan(Part *pt, gboolean header)
{
    Scan *s = &pt->s;
    FennelProgramBuilder *b = pt->b;
    int64_t rank = -1;
    gboolean ok = TRUE;
    for (; ok && !s->declined && s->next < s->end && !(header && pt->num_ranks > 0); s->line++) {
        const char *next = s->next;
        s->line_start = s->p = next;
        const char *nl = memchr(next, '\n', (size_t)(s->end - next));
        s->line_end = nl ? nl : s->end;
        s->next = nl ? nl + 1 : s->end;
        if (at_end(s))
            continue;
        const char *w, *w2;
        uint32_t n = word(s, &w), n2;
        const char *first = w;
        if (n == 0) {
            ok = rank >= 0 && accept(s, '}') && at_end(s);
            rank = -1;
            continue;
        }
        if (rank < 0) {
            if (is(w, n, "num_ranks") && pt->num_ranks == 0) {
                GError *size = NULL;
                uint64_t num_ranks = 0;
                ok = number(s, UINT32_MAX - 2, &num_ranks) && num_ranks > 0 && at_end(s) &&
                     num_ranks <= (uint64_t)(s->end - s->p) / FENNEL_GOAL_MIN_BLOCK &&
                     fennel_check_size(pt->limits, 0, 0, num_ranks, 1, &size);
                g_clear_error(&size);
                if (ok) {
                    pt->num_ranks = num_ranks;
                    pt->seen_rank = g_new0(uint8_t, num_ranks);
                    pt->start = g_new(uint32_t, num_ranks);
                }
                continue;
            }
            uint64_t r;
            ok = is(w, n, "rank") && pt->num_ranks > 0 && number(s, pt->num_ranks - 1, &r) &&
                 !pt->seen_rank[r] && accept(s, '{') && at_end(s);
            if (!ok)
                continue;
            pt->seen_rank[r] = 1;
            rank = (int64_t)r;
            s->block_start = s->line_start;
            if (s->release && s->block_start - s->released >= RELEASE_STEP) {
                fennel_input_release(s->released, 0, (gsize)(s->block_start - s->released));
                s->released = s->block_start;
            }
            s->generation++;
            s->count = 0;
            uint32_t t = fennel_builder_add(b, FENNEL_TASK_START, (uint32_t)r);
            fennel_builder_set_position(b, t, s->line, col_of(s, first));
            pt->start[r] = t;
            continue;
        }
        if (accept(s, ':')) {
            ok = g_ascii_isalpha(w[0]) && !is_keyword(w, n) && (n2 = word(s, &w2)) > 0 &&
                 operation(s, b, (uint32_t)rank, pt->num_ranks, w2, n2, w, n, col_of(s, first),
                           &pt->max_cpu);
            continue;
        }
        if (is(w, n, "send") || is(w, n, "recv") || is(w, n, "calc")) {
            ok = operation(s, b, (uint32_t)rank, pt->num_ranks, w, n, NULL, 0, col_of(s, first),
                           &pt->max_cpu);
            continue;
        }
        /* A requires B, A irequires B. */
        n2 = word(s, &w2);
        gboolean immediate = is(w2, n2, "irequires");
        const char *w3;
        uint32_t n3;
        if ((!immediate && !is(w2, n2, "requires")) || (n3 = word(s, &w3)) == 0 || !at_end(s)) {
            ok = FALSE;
            continue;
        }
        uint32_t task_a = find_label(s, w, n), task_b = find_label(s, w3, n3);
        if (task_a == UINT32_MAX || task_b == UINT32_MAX) {
            ok = FALSE;
            continue;
        }
        if (immediate)
            fennel_builder_add_start_edge(b, task_b, task_a);
        else
            fennel_builder_add_edge(b, task_b, task_a);
        mark_pred(s, task_a);
    }
    return ok && !s->declined && rank < 0 && (header || pt->num_ranks > 0);
}

/* Reads a part, makes each task without a dependency wait for its rank's start, and
 * compiles the part's program. */
static gpointer read_part(gpointer data)
{
    Part *pt = data;
    Scan *s = &pt->s;
    pt->ok = scan(pt, FALSE);
    if (pt->ok) {
        uint32_t n = fennel_builder_n_tasks(pt->b);
        for (uint32_t t = 0; t < n; t++) {
            uint32_t rank = fennel_builder_rank(pt->b, t);
            if (t != pt->start[rank] && (t >= s->has_pred_len || !s->has_pred[t]))
                fennel_builder_add_edge(pt->b, pt->start[rank], t);
        }
    }
    if (s->release)
        fennel_input_release(s->released, 0, (gsize)(s->end - s->released));
    if (pt->ok) {
        pt->p = fennel_builder_finish(pt->b, pt->name, (uint32_t)pt->num_ranks, pt->max_cpu + 1,
                                      &pt->error);
        pt->b = NULL;
    }
    return NULL;
}

static void part_clear(Part *pt)
{
    fennel_builder_free(pt->b);
    fennel_program_free(pt->p);
    g_clear_error(&pt->error);
    g_free(pt->seen_rank);
    g_free(pt->start);
    g_free(pt->s.labels);
    g_free(pt->s.has_pred);
    g_array_unref(pt->s.new_tags);
    fennel__goal_tags_clear(&pt->s.tags);
}

/* Files from this size on are read in two halves at once, when there are two processors. */
static gsize split_from = (gsize)16 << 20;
static gboolean split_forced;

void fennel__goal_fast_set_split(gsize length)
{
    split_from = length;
    split_forced = TRUE;
}

/* Where the second half begins: the first line at or after the middle of [from, end) that
 * opens a rank block, or NULL. The first half then checks that it ended outside a block,
 * where the line-by-line scan of the whole file would be at that point. */
static const char *split_point(const char *from, const char *end)
{
    if ((gsize)(end - from) < split_from || (!split_forced && g_get_num_processors() < 2))
        return NULL;
    for (const char *at = from + (end - from) / 2; at < end;) {
        const char *nl = memchr(at, '\n', (size_t)(end - at));
        if (nl == NULL || end - nl < 7)
            return NULL;
        if (memcmp(nl + 1, "rank", 4) == 0 && (nl[5] == ' ' || nl[5] == '\t'))
            return nl + 1;
        at = nl + 1;
    }
    return NULL;
}

/* Joins the halves as if one scan had read both (fennel_program_join_by_step): the ranks
 * each holds (each exactly once), the second's tags of 2^31 or more numbered on from the
 * first's, its lines after the first's. A half that read but did not compile declines the
 * file, as does the whole passing the limits: the careful reader reports either. */
static FennelProgram *join_parts(Part *a, Part *b)
{
    if (a->p == NULL || b->p == NULL)
        return NULL;
    for (uint64_t r = 0; r < a->num_ranks; r++) {
        if (a->seen_rank[r] == b->seen_rank[r])
            return NULL;
    }
    FennelProgram *q = b->p;
    if (b->s.new_tags->len > 0) {
        uint32_t *to = g_new(uint32_t, b->s.new_tags->len);
        gboolean ok = TRUE;
        for (guint i = 0; i < b->s.new_tags->len && ok; i++)
            ok = fennel__goal_tag(&a->s.tags, g_array_index(b->s.new_tags, uint64_t, i), &to[i]);
        for (uint32_t t = 0; t < q->n_tasks && ok; t++) {
            if (q->tag[t] >= FENNEL_GOAL_TAG_MAPPED)
                q->tag[t] = to[q->tag[t] - FENNEL_GOAL_TAG_MAPPED];
        }
        g_free(to);
        if (!ok)
            return NULL;
    }
    for (uint32_t t = 0; q->line && t < q->n_tasks; t++)
        q->line[t] += a->s.line - 1;
    if (!fennel_check_size(a->limits, (uint64_t)a->p->n_tasks + q->n_tasks,
                           a->p->n_edges + q->n_edges, a->p->n_ranks,
                           MAX(a->p->processes, q->processes), NULL))
        return NULL;
    FennelProgram *parts[2] = {a->p, q};
    FennelProgram *p = fennel_program_join_by_step(parts, 2);
    a->p = b->p = NULL;
    return p;
}

/* "r{rank}:{label}", "r{rank}:op.{n}" (the n-th operation of its rank) and "r{rank}:start",
 * as the careful reader names the tasks while it reads. The fast path names them only when
 * asked (program.h), from the text: it took only files where every task begins a line of its
 * own, in order, with ASCII before it on its line, so a task's line and column find its first
 * word, and a first word that is not an operation is a label. */
static int compare_first_line(gconstpointer a, gconstpointer b, gpointer data)
{
    const uint32_t *first_line = data;
    uint32_t x = first_line[*(const uint32_t *)a], y = first_line[*(const uint32_t *)b];
    return (x > y) - (x < y);
}

static void name_tasks(FennelProgram *p, gboolean release)
{
    /* The text is walked once, in the file's order: rank blocks in the order they come,
     * a rank's tasks in their order (the program numbers them step by step). A mapped
     * text is given back behind the walk, as behind the scan: `convert` makes every name,
     * and would otherwise hold the whole file again beside the program and its names. */
    const uint32_t n = p->n_tasks, ranks = p->n_ranks;
    uint32_t *start = g_new0(uint32_t, (size_t)ranks + 1), *list = g_new(uint32_t, MAX(n, 1));
    for (uint32_t t = 0; t < n; t++)
        start[p->rank[t] + 1]++;
    for (uint32_t r = 0; r < ranks; r++)
        start[r + 1] += start[r];
    uint32_t *fill = g_memdup2(start, sizeof(uint32_t) * ranks);
    for (uint32_t t = 0; t < n; t++)
        list[fill[p->rank[t]]++] = t;
    uint32_t *first_line = fill, *order = g_new(uint32_t, MAX(ranks, 1));
    for (uint32_t r = 0; r < ranks; r++) {
        first_line[r] = start[r] < start[r + 1] ? p->line[list[start[r]]] : UINT32_MAX;
        order[r] = r;
    }
    g_qsort_with_data(order, (gint)ranks, sizeof(uint32_t), compare_first_line, first_line);

    gsize length;
    const char *at = g_bytes_get_data(p->text, &length), *released = at, *end = at + length;
    uint32_t line = 1;
    p->names = g_string_chunk_new(1 << 20);
    p->task_name = g_new(char *, MAX(n, 1));
    GString *name = g_string_new(NULL);
    for (uint32_t o = 0; o < ranks; o++) {
        uint32_t r = order[o], ops = 0;
        for (uint32_t i = start[r]; i < start[r + 1]; i++) {
            uint32_t t = list[i];
            for (; line < p->line[t]; line++)
                at = strchr(at, '\n') + 1; /* the text holds no NUL before its end */
            if (release && at - released >= RELEASE_STEP) {
                fennel_input_release(released, 0, (gsize)(at - released));
                released = at;
            }
            const char *w = at + p->col[t] - 1;
            uint32_t len = 0;
            while (is_word_char(w[len]))
                len++;
            g_string_printf(name, "r%u:", r);
            if (p->type[t] == FENNEL_TASK_START) {
                g_string_append(name, "start");
                ops = 0;
            } else if (is(w, len, "send") || is(w, len, "recv") || is(w, len, "calc")) {
                g_string_append_printf(name, "op.%u", ops++);
            } else {
                g_string_append_len(name, w, len);
                ops++;
            }
            p->task_name[t] = g_string_chunk_insert_len(p->names, name->str, (gssize)name->len);
        }
    }
    g_string_free(name, TRUE);
    g_free(start);
    g_free(list);
    g_free(fill);
    g_free(order);
    if (release)
        fennel_input_release(released, 0, (gsize)(end - released));
}

static void name_from_text(FennelProgram *p)
{
    name_tasks(p, FALSE);
}

static void name_from_mapped_text(FennelProgram *p)
{
    name_tasks(p, TRUE);
}

FennelProgram *fennel__goal_fast_read_text(const char *name, GBytes *text, gsize length,
                                           gboolean mapped, const FennelLimits *limits,
                                           GError **error)
{
    const char *data = g_bytes_get_data(text, NULL);
    Part a = {.s = {.next = data,
                    .end = data + length,
                    .line = 1,
                    .release = mapped,
                    .released = data,
                    .block_start = data,
                    .new_tags = g_array_new(FALSE, FALSE, sizeof(uint64_t))},
              .b = fennel_builder_new(),
              .limits = limits,
              .name = name};
    Part b = {.s = {.new_tags = g_array_new(FALSE, FALSE, sizeof(uint64_t))}};
    fennel_builder_set_merge_duplicates(a.b);
    fennel_builder_set_limits(a.b, limits);
    fennel_builder_set_namer(a.b, mapped ? name_from_mapped_text : name_from_text, text);
    FennelProgram *p = NULL;
    gboolean ok = scan(&a, TRUE) && a.num_ranks > 0;
    const char *split = ok ? split_point(a.s.next, a.s.end) : NULL;
    GThread *thread = NULL;
    if (split) {
        b.s.next = b.s.released = b.s.block_start = split;
        b.s.end = a.s.end;
        b.s.line = 1;
        b.s.release = mapped;
        b.b = fennel_builder_new();
        b.limits = limits;
        b.name = name;
        b.num_ranks = a.num_ranks;
        b.seen_rank = g_new0(uint8_t, a.num_ranks);
        b.start = g_new(uint32_t, a.num_ranks);
        fennel_builder_set_merge_duplicates(b.b);
        fennel_builder_set_limits(b.b, limits);
        a.s.end = split;
        thread = g_thread_try_new("goal", read_part, &b, NULL);
        if (thread == NULL)
            a.s.end = b.s.end;
    }
    if (ok)
        read_part(&a);
    if (thread) {
        g_thread_join(thread);
        p = a.ok && b.ok ? join_parts(&a, &b) : NULL;
    } else if (ok && a.ok) {
        for (uint64_t r = 0; r < a.num_ranks && ok; r++)
            ok = a.seen_rank[r];
        if (ok && a.p == NULL) {
            g_propagate_error(error, a.error);
            a.error = NULL;
        } else if (ok) {
            p = a.p;
            a.p = NULL;
            fennel_program_order_by_step(p);
        }
    }
    if (p)
        p->name = g_path_get_basename(name);
    else if (mapped)
        fennel_input_release(data, 0, length);
    part_clear(&a);
    part_clear(&b);
    return p;
}

FennelProgram *fennel__goal_fast_read(const char *name, const char *data, gsize length,
                                      const FennelLimits *limits, GError **error)
{
    /* The program keeps the text for its names: a copy, with the NUL after it. */
    GBytes *text = g_bytes_new(data, length + 1);
    FennelProgram *p = fennel__goal_fast_read_text(name, text, length, FALSE, limits, error);
    g_bytes_unref(text);
    return p;
}
