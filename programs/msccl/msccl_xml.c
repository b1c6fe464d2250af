/* The MSCCL XML reader (docs/FORMATS.md). GLib's GMarkup parses the XML; this file checks
 * what the MSCCL runtimes check (dense ids, known step types, offsets inside the
 * buffers, dependencies that exist) and a little more (every message has a receiver),
 * and stores the algorithm in flat arrays. */
#include "msccl_private.h"

#include "errors.h"
#include "input.h"
#include "units.h"
#include "xml_fast.h"

#include <string.h>

static const char *const type_names[FENNEL_MSCCL_N_TYPES] = {
    "s", "r", "rcs", "rrs", "rrc", "rrcs", "cpy", "re", "nop",
};

static const unsigned type_does[FENNEL_MSCCL_N_TYPES] = {
    [FENNEL_MSCCL_SEND] = FENNEL_MSCCL_DOES_SEND,
    [FENNEL_MSCCL_RECV] = FENNEL_MSCCL_DOES_RECV | FENNEL_MSCCL_DOES_WRITE,
    [FENNEL_MSCCL_RECV_COPY_SEND] =
        FENNEL_MSCCL_DOES_RECV | FENNEL_MSCCL_DOES_WRITE | FENNEL_MSCCL_DOES_SEND,
    [FENNEL_MSCCL_RECV_REDUCE_SEND] =
        FENNEL_MSCCL_DOES_RECV | FENNEL_MSCCL_DOES_REDUCE | FENNEL_MSCCL_DOES_SEND,
    [FENNEL_MSCCL_RECV_REDUCE_COPY] =
        FENNEL_MSCCL_DOES_RECV | FENNEL_MSCCL_DOES_REDUCE | FENNEL_MSCCL_DOES_WRITE,
    [FENNEL_MSCCL_RECV_REDUCE_COPY_SEND] = FENNEL_MSCCL_DOES_RECV | FENNEL_MSCCL_DOES_REDUCE |
                                           FENNEL_MSCCL_DOES_WRITE | FENNEL_MSCCL_DOES_SEND,
    [FENNEL_MSCCL_COPY] = FENNEL_MSCCL_DOES_COPY | FENNEL_MSCCL_DOES_WRITE,
    [FENNEL_MSCCL_REDUCE] = FENNEL_MSCCL_DOES_REDUCE | FENNEL_MSCCL_DOES_WRITE,
    [FENNEL_MSCCL_NOP] = 0,
};

unsigned fennel_msccl_does(FennelMscclType type)
{
    return type_does[type];
}

const char *fennel_msccl_type_name(FennelMscclType type)
{
    return type_names[type];
}

gboolean fennel__msccl_reads_src(FennelMscclType t)
{
    return t == FENNEL_MSCCL_SEND ||
           (type_does[t] & (FENNEL_MSCCL_DOES_REDUCE | FENNEL_MSCCL_DOES_COPY));
}

typedef struct {
    const char *file;
    const char *data;
    gsize length;
    GArray *lines;       /* gsize: the offset where each line starts */
    gboolean in_tag;     /* in a start-element callback: positions go to the tag's '<' */
    gsize tag_at, scan;  /* GMarkup's: where that tag begins, where to look for the next */
    FennelXmlFast *fast; /* the fast scanner, while it reads, else NULL */
    GMarkupParseContext *context;
    FennelMscclAlgo *a;
    GArray *gpus, *tbs;
    FennelMscclStep *steps; /* n_steps of room_steps, grown by half when full */
    uint32_t n_steps, room_steps;
    int depth; /* 0 outside, 1 in algo, 2 in gpu, 3 in tb, 4 in step */
    gboolean seen_algo;
} Reader;

/* Where `needle` next occurs in the text at or after `from`, or the text's length. */
static gsize find(const Reader *r, gsize from, const char *needle)
{
    size_t n = strlen(needle);
    while (from + n <= r->length) {
        const char *c = memchr(r->data + from, needle[0], r->length - from);
        if (c == NULL)
            break;
        from = (gsize)(c - r->data);
        if (from + n <= r->length && memcmp(c, needle, n) == 0)
            return from;
        from++;
    }
    return r->length;
}

/* Where the next start tag begins at or after `from`, past comments, processing
 * instructions, CDATA, declarations, end tags and text. GMarkup calls back for the start
 * tags in order, once the text up to them is well formed, so this finds the one it calls
 * back for: its own positions are no help, as they point past the tag by one or two bytes
 * and miss the line breaks before the first element. */
static gsize next_start_tag(const Reader *r, gsize from)
{
    static const struct {
        const char *open, *close;
    } skips[] = {{"<!--", "-->"}, {"<![CDATA[", "]]>"}, {"<?", "?>"}, {"</", ">"}, {"<!", ">"}};
    for (gsize at = find(r, from, "<"); at < r->length; at = find(r, at, "<")) {
        size_t k = 0;
        while (k < G_N_ELEMENTS(skips) &&
               (at + strlen(skips[k].open) > r->length ||
                memcmp(r->data + at, skips[k].open, strlen(skips[k].open)) != 0))
            k++;
        if (k == G_N_ELEMENTS(skips))
            return at;
        /* The end may overlap the start: GMarkup and the fast scanner take "<!-->" as a
         * whole comment. */
        at = find(r, at + 1, skips[k].close);
    }
    return r->length;
}

/* Where the parser is; inside a start tag, where the tag begins. */
static void position(Reader *r, uint32_t *line, uint32_t *col)
{
    if (r->fast) {
        *line = r->fast->tag_line;
        *col = r->fast->tag_col;
        return;
    }
    int l, c;
    g_markup_parse_context_get_position(r->context, &l, &c);
    *line = (uint32_t)l;
    *col = (uint32_t)c;
    if (!r->in_tag || r->tag_at >= r->length)
        return;
    /* The last line that starts at or before the tag. */
    guint lo = 0, hi = r->lines->len;
    while (hi - lo > 1) {
        guint mid = lo + (hi - lo) / 2;
        if (g_array_index(r->lines, gsize, mid) <= r->tag_at)
            lo = mid;
        else
            hi = mid;
    }
    *line = lo + 1;
    *col = (uint32_t)(r->tag_at - g_array_index(r->lines, gsize, lo)) + 1;
}

static gboolean fail(Reader *r, GError **error, const char *format, ...) G_GNUC_PRINTF(3, 4);
static gboolean fail(Reader *r, GError **error, const char *format, ...)
{
    uint32_t line, col;
    position(r, &line, &col);
    va_list args;
    va_start(args, format);
    char *message = g_strdup_vprintf(format, args);
    va_end(args);
    /* Messages quote attribute values, which may hold anything. */
    char *clean = fennel_message_clean(message);
    fennel_error_at(error, r->file, line, col, "%s", clean);
    g_free(clean);
    g_free(message);
    return FALSE;
}

/* The value of attribute `key`, or NULL. */
static const char *attribute(const char **names, const char **values, const char *key)
{
    for (int i = 0; names[i]; i++)
        if (names[i][0] == key[0] && strcmp(names[i], key) == 0)
            return values[i];
    return NULL;
}

/* A number written plainly (an optional '-' and at most ten digits) within [min, max]:
 * what nearly every value is, read without a call. Anything else, or out of range, is left
 * to fennel_parse_int, which reads it and words its errors. */
static inline gboolean plain_int(const char *s, int64_t min, int64_t max, int32_t *out)
{
    if (s == NULL)
        return FALSE;
    gboolean negative = *s == '-';
    s += negative;
    int64_t v = 0;
    int i = 0;
    for (; i < 10 && (unsigned)(s[i] - '0') <= 9; i++)
        v = v * 10 + (s[i] - '0');
    if (i == 0 || s[i] != '\0')
        return FALSE;
    v = negative ? -v : v;
    if (v < min || v > max)
        return FALSE;
    *out = (int32_t)v;
    return TRUE;
}

/* The value `text` of attribute `key` (NULL: missing) as a number. */
static gboolean int_value(Reader *r, const char *element, const char *key, const char *text,
                          int64_t min, int64_t max, gboolean required, int64_t fallback,
                          int32_t *out, GError **error)
{
    if (text == NULL) {
        if (required)
            return fail(r, error, "<%s>: missing attribute '%s'", element, key);
        *out = (int32_t)fallback;
        return TRUE;
    }
    int64_t v;
    const char *why;
    if (!fennel_parse_int(text, min, max, &v, &why))
        return fail(r, error, "<%s> %s=\"%s\": %s", element, key, text, why);
    *out = (int32_t)v;
    return TRUE;
}

static gboolean int_attribute(Reader *r, const char *element, const char **names,
                              const char **values, const char *key, int64_t min, int64_t max,
                              gboolean required, int64_t fallback, int32_t *out, GError **error)
{
    const char *text = attribute(names, values, key);
    return plain_int(text, min, max, out) ||
           int_value(r, element, key, text, min, max, required, fallback, out, error);
}

/* The value `text` of attribute `key` (NULL: missing) as a buffer. */
static gboolean buffer_value(Reader *r, const char *key, const char *text, uint8_t *out,
                             GError **error)
{
    if (text == NULL)
        return fail(r, error, "<step>: missing attribute '%s'", key);
    if (text[0] != '\0' && text[1] == '\0') {
        switch (text[0]) {
        case 'i':
            *out = FENNEL_MSCCL_INPUT;
            return TRUE;
        case 'o':
            *out = FENNEL_MSCCL_OUTPUT;
            return TRUE;
        case 's':
            *out = FENNEL_MSCCL_SCRATCH;
            return TRUE;
        }
    }
    return fail(r, error, "<step> %s=\"%s\": expected i (input), o (output) or s (scratch)", key,
                text);
}

static gboolean start_algo(Reader *r, const char **n, const char **v, GError **error)
{
    FennelMscclAlgo *a = r->a;
    int32_t ngpus, nchunks, nchannels, inplace, outofplace;
    if (!int_attribute(r, "algo", n, v, "ngpus", 1, 1 << 16, TRUE, 0, &ngpus, error) ||
        !int_attribute(r, "algo", n, v, "nchunksperloop", 1, INT32_MAX, TRUE, 0, &nchunks, error) ||
        !int_attribute(r, "algo", n, v, "nchannels", 1, 1 << 16, FALSE, 1, &nchannels, error) ||
        !int_attribute(r, "algo", n, v, "inplace", 0, 1, FALSE, 0, &inplace, error))
        return FALSE;
    /* The legacy runtime has no outofplace: an algorithm not in place is out of place. */
    if (!int_attribute(r, "algo", n, v, "outofplace", 0, 1, FALSE, !inplace, &outofplace, error))
        return FALSE;
    if (!inplace && !outofplace)
        return fail(r, error,
                    "<algo>: inplace=\"0\" and outofplace=\"0\": the algorithm runs in "
                    "no mode");
    const char *coll = attribute(n, v, "coll");
    if (coll == NULL)
        return fail(r, error, "<algo>: missing attribute 'coll'");
    const char *proto = attribute(n, v, "proto");
    a->proto = FENNEL_MSCCL_SIMPLE;
    if (proto && strcmp(proto, "LL") == 0)
        a->proto = FENNEL_MSCCL_LL;
    else if (proto && strcmp(proto, "LL128") == 0)
        a->proto = FENNEL_MSCCL_LL128;
    else if (proto && strcmp(proto, "Simple") != 0)
        return fail(r, error, "<algo> proto=\"%s\": expected Simple, LL or LL128", proto);
    /* An empty name (or one a NUL byte cuts short) names no collective either. */
    gboolean named = *coll != '\0';
    for (const char *c = coll; *c && named; c++)
        named = g_ascii_isalnum(*c) || *c == '_' || *c == '-';
    if (!named)
        return fail(r, error, "<algo> coll=\"%s\": expected the name of a collective", coll);
    const char *name = attribute(n, v, "name");
    a->name = g_utf8_make_valid(name ? name : "", -1);
    a->coll = g_strdup(coll);
    a->ngpus = (uint32_t)ngpus;
    a->nchunksperloop = (uint32_t)nchunks;
    a->nchannels = (uint32_t)nchannels;
    a->inplace = inplace;
    a->outofplace = outofplace;
    position(r, &a->line, &a->col);
    return TRUE;
}

static gboolean start_gpu(Reader *r, const char **n, const char **v, GError **error)
{
    FennelMscclGpu g = {0};
    int32_t id;
    if (!int_attribute(r, "gpu", n, v, "id", 0, INT32_MAX, TRUE, 0, &id, error))
        return FALSE;
    if ((uint32_t)id != r->gpus->len)
        return fail(r, error,
                    "<gpu> id=\"%d\": expected id %u (gpus are numbered 0, 1, ... in "
                    "order)",
                    id, r->gpus->len);
    if ((uint32_t)id >= r->a->ngpus)
        return fail(r, error, "<gpu> id=\"%d\": the algorithm has ngpus=\"%u\"", id, r->a->ngpus);
    static const char *const keys[3] = {"i_chunks", "o_chunks", "s_chunks"};
    for (int b = 0; b < 3; b++)
        if (!int_attribute(r, "gpu", n, v, keys[b], 0, INT32_MAX, TRUE, 0, &g.chunks[b], error))
            return FALSE;
    g.first_tb = r->tbs->len;
    position(r, &g.line, &g.col);
    g_array_append_val(r->gpus, g);
    return TRUE;
}

static gboolean start_tb(Reader *r, const char **n, const char **v, GError **error)
{
    FennelMscclGpu *g = &g_array_index(r->gpus, FennelMscclGpu, r->gpus->len - 1);
    FennelMscclTb tb = {0};
    int32_t id, max = (int32_t)r->a->ngpus - 1;
    if (!int_attribute(r, "tb", n, v, "id", 0, INT32_MAX, TRUE, 0, &id, error) ||
        !int_attribute(r, "tb", n, v, "send", -1, max, TRUE, 0, &tb.send, error) ||
        !int_attribute(r, "tb", n, v, "recv", -1, max, TRUE, 0, &tb.recv, error) ||
        !int_attribute(r, "tb", n, v, "chan", 0, 1 << 16, TRUE, 0, &tb.chan, error))
        return FALSE;
    if ((uint32_t)id != g->n_tbs)
        return fail(r, error,
                    "<tb> id=\"%d\": expected id %u (thread blocks are numbered 0, 1, "
                    "... in order)",
                    id, g->n_tbs);
    uint32_t gpu = r->gpus->len - 1;
    if (tb.send == (int32_t)gpu || tb.recv == (int32_t)gpu)
        return fail(r, error, "<tb>: gpu %u sends or receives to itself", gpu);
    tb.first_step = r->n_steps;
    position(r, &tb.line, &tb.col);
    g_array_append_val(r->tbs, tb);
    g->n_tbs++;
    return TRUE;
}

static gboolean check_range(Reader *r, const FennelMscclGpu *g, uint32_t gpu, const char *which,
                            uint8_t buf, int32_t off, int32_t cnt, GError **error)
{
    static const char *const names[3] = {"i", "o", "s"};
    static const char *const keys[3] = {"i_chunks", "o_chunks", "s_chunks"};
    if (off < 0 || (int64_t)off + cnt > g->chunks[buf])
        return fail(r, error,
                    "<step>: %s chunks %s[%d..%" G_GINT64_FORMAT "] are outside gpu %u's %s=\"%d\"",
                    which, names[buf], off, (int64_t)off + cnt - 1, gpu, keys[buf], g->chunks[buf]);
    return TRUE;
}

/* A step's attributes, found in one pass over its names. */
enum {
    STEP_S,
    STEP_TYPE,
    STEP_SRCBUF,
    STEP_SRCOFF,
    STEP_DSTBUF,
    STEP_DSTOFF,
    STEP_CNT,
    STEP_DEPID,
    STEP_DEPS,
    STEP_HASDEP,
    STEP_N_KEYS,
};

/* Which of a step's attributes the name of `length` bytes is, or -1: chosen by its length
 * and a byte, then confirmed by a compare of constant size, which the compiler inlines. */
static inline int step_key(const char *name, size_t length)
{
#define IS(word) (memcmp(name, word, sizeof word - 1) == 0)
    switch (length) {
    case 1:
        return name[0] == 's' ? STEP_S : -1;
    case 3:
        return IS("cnt") ? STEP_CNT : -1;
    case 4:
        return IS("type") ? STEP_TYPE : IS("deps") ? STEP_DEPS : -1;
    case 5:
        return IS("depid") ? STEP_DEPID : -1;
    case 6:
        switch (name[0]) {
        case 's':
            return IS("srcbuf") ? STEP_SRCBUF : IS("srcoff") ? STEP_SRCOFF : -1;
        case 'd':
            return IS("dstbuf") ? STEP_DSTBUF : IS("dstoff") ? STEP_DSTOFF : -1;
        case 'h':
            return IS("hasdep") ? STEP_HASDEP : -1;
        }
        return -1;
    }
    return -1;
#undef IS
}

/* The step type written `text`, or FENNEL_MSCCL_N_TYPES: its bytes packed in a word (the
 * names are at most four bytes) against the names packed the same way. */
static uint8_t step_type(const char *text)
{
    uint32_t word = 0;
    for (int i = 0; i < 5; i++) {
        if (text[i] == '\0')
            break;
        if (i == 4)
            return FENNEL_MSCCL_N_TYPES;
        word |= (uint32_t)(uint8_t)text[i] << (8 * i);
    }
#define PACK(a, b, c, d)                                                                           \
    ((uint32_t)(a) | (uint32_t)(b) << 8 | (uint32_t)(c) << 16 | (uint32_t)(d) << 24)
    static const uint32_t packed[FENNEL_MSCCL_N_TYPES] = {
        [FENNEL_MSCCL_SEND] = PACK('s', 0, 0, 0),
        [FENNEL_MSCCL_RECV] = PACK('r', 0, 0, 0),
        [FENNEL_MSCCL_RECV_COPY_SEND] = PACK('r', 'c', 's', 0),
        [FENNEL_MSCCL_RECV_REDUCE_SEND] = PACK('r', 'r', 's', 0),
        [FENNEL_MSCCL_RECV_REDUCE_COPY] = PACK('r', 'r', 'c', 0),
        [FENNEL_MSCCL_RECV_REDUCE_COPY_SEND] = PACK('r', 'r', 'c', 's'),
        [FENNEL_MSCCL_COPY] = PACK('c', 'p', 'y', 0),
        [FENNEL_MSCCL_REDUCE] = PACK('r', 'e', 0, 0),
        [FENNEL_MSCCL_NOP] = PACK('n', 'o', 'p', 0),
    };
#undef PACK
    for (uint8_t t = 0; t < FENNEL_MSCCL_N_TYPES; t++)
        if (packed[t] == word)
            return t;
    return FENNEL_MSCCL_N_TYPES;
}

static gboolean start_step(Reader *r, const char **n, const char **v, GError **error)
{
    uint32_t gpu = r->gpus->len - 1;
    const FennelMscclGpu *g = &g_array_index(r->gpus, FennelMscclGpu, gpu);
    FennelMscclTb *tb = &g_array_index(r->tbs, FennelMscclTb, r->tbs->len - 1);
    FennelMscclStep st = {0};
    int32_t s = 0, hasdep = 0;
    /* The fast scanner measured the names; GMarkup's are measured here. */
    const uint32_t *name_len = r->fast ? r->fast->name_len : NULL;
    const char *at[STEP_N_KEYS] = {0};
    for (int i = 0; n[i]; i++) {
        int k = step_key(n[i], name_len ? name_len[i] : strlen(n[i]));
        if (k >= 0 && at[k] == NULL)
            at[k] = v[i];
    }
    const char *type = at[STEP_TYPE];
    if (type == NULL)
        return fail(r, error, "<step>: missing attribute 'type'");
    st.type = step_type(type);
    if (st.type == FENNEL_MSCCL_N_TYPES)
        return fail(r, error,
                    "<step> type=\"%s\": unknown step type (known: s, r, rcs, rrs, rrc, rrcs, "
                    "cpy, re, nop)",
                    type);
        /* A plain number is read inline; int_value() reads the rest and words the errors. */
#define INT(key, k, min, max, required, out)                                                       \
    (plain_int(at[k], min, max, out) ||                                                            \
     int_value(r, "step", key, at[k], min, max, required, 0, out, error))
    if (!INT("s", STEP_S, 0, INT32_MAX, TRUE, &s) ||
        !INT("srcoff", STEP_SRCOFF, -1, INT32_MAX, TRUE, &st.srcoff) ||
        !INT("dstoff", STEP_DSTOFF, -1, INT32_MAX, TRUE, &st.dstoff) ||
        !INT("cnt", STEP_CNT, 0, INT32_MAX, TRUE, &st.cnt) ||
        !INT("depid", STEP_DEPID, -1, INT32_MAX, TRUE, &st.depid) ||
        !INT("deps", STEP_DEPS, -1, INT32_MAX, TRUE, &st.deps) ||
        !INT("hasdep", STEP_HASDEP, 0, 1, FALSE, &hasdep) ||
        !buffer_value(r, "srcbuf", at[STEP_SRCBUF], &st.srcbuf, error) ||
        !buffer_value(r, "dstbuf", at[STEP_DSTBUF], &st.dstbuf, error))
        return FALSE;
#undef INT
    st.hasdep = (uint8_t)hasdep;
    if ((uint32_t)s != tb->n_steps)
        return fail(r, error,
                    "<step> s=\"%d\": expected s=\"%u\" (steps are numbered 0, 1, ... in "
                    "order)",
                    s, tb->n_steps);
    if ((st.depid < 0) != (st.deps < 0))
        return fail(r, error, "<step> depid=\"%d\" deps=\"%d\": give both or neither", st.depid,
                    st.deps);
    unsigned does = type_does[st.type];
    if (st.type != FENNEL_MSCCL_NOP && st.cnt == 0)
        return fail(r, error, "<step> type=\"%s\" cnt=\"0\": the step moves nothing", type);
    if ((does & FENNEL_MSCCL_DOES_SEND) && tb->send < 0)
        return fail(r, error, "<step> type=\"%s\" sends, but its thread block has send=\"-1\"",
                    type);
    if ((does & FENNEL_MSCCL_DOES_RECV) && tb->recv < 0)
        return fail(r, error, "<step> type=\"%s\" receives, but its thread block has recv=\"-1\"",
                    type);
    if (fennel__msccl_reads_src(st.type) &&
        !check_range(r, g, gpu, "source", st.srcbuf, st.srcoff, st.cnt, error))
        return FALSE;
    if ((does & FENNEL_MSCCL_DOES_WRITE) &&
        !check_range(r, g, gpu, "destination", st.dstbuf, st.dstoff, st.cnt, error))
        return FALSE;
    position(r, &st.line, &st.col);
    if (G_UNLIKELY(r->n_steps == r->room_steps)) {
        if (r->n_steps == UINT32_MAX)
            return fail(r, error, "<step>: more than %u steps", UINT32_MAX - 1);
        r->room_steps = (uint32_t)MIN((uint64_t)r->room_steps * 3 / 2 + 16, UINT32_MAX);
        r->steps = g_renew(FennelMscclStep, r->steps, r->room_steps);
    }
    r->steps[r->n_steps++] = st;
    tb->n_steps++;
    return TRUE;
}

/* strcmp() == 0 for the short names of elements, without a call. */
static inline gboolean same(const char *a, const char *b)
{
    while (*a != '\0' && *a == *b)
        a++, b++;
    return *a == *b;
}

static void start_element(GMarkupParseContext *context, const char *element, const char **names,
                          const char **values, gpointer data, GError **error)
{
    (void)context;
    Reader *r = data;
    static const char *const expected[] = {"algo", "gpu", "tb", "step"};
    /* Every message names the tag where it begins, as the fast scanner reports it. */
    r->in_tag = TRUE;
    if (r->context) {
        r->tag_at = next_start_tag(r, r->scan);
        r->scan = r->tag_at + 1;
    }
    if (r->depth >= 4 || !same(element, expected[r->depth])) {
        if (r->depth >= 4)
            fail(r, error, "<%s> inside <step>: a step has no elements", element);
        else
            fail(r, error, "<%s>: expected <%s>%s", element, expected[r->depth],
                 r->depth == 0 && r->seen_algo ? " (one algorithm per file)" : "");
        r->in_tag = FALSE;
        return;
    }
    if (r->depth == 0 && r->seen_algo) {
        fail(r, error, "<algo>: a second algorithm (one per file)");
        r->in_tag = FALSE;
        return;
    }
    gboolean ok = r->depth == 0   ? start_algo(r, names, values, error)
                  : r->depth == 1 ? start_gpu(r, names, values, error)
                  : r->depth == 2 ? start_tb(r, names, values, error)
                                  : start_step(r, names, values, error);
    r->in_tag = FALSE;
    if (ok) {
        r->seen_algo = TRUE;
        r->depth++;
    }
}

static void end_element(GMarkupParseContext *context, const char *element, gpointer data,
                        GError **error)
{
    (void)context;
    (void)element;
    (void)error;
    Reader *r = data;
    r->depth--;
}

static void text(GMarkupParseContext *context, const char *text, gsize length, gpointer data,
                 GError **error)
{
    (void)context;
    Reader *r = data;
    for (gsize i = 0; i < length; i++)
        if (!g_ascii_isspace(text[i])) {
            fail(r, error,
                 "text outside the attributes (MSCCL XML has elements and attributes "
                 "only)");
            return;
        }
}

gboolean fennel__msccl_check_dependencies(const FennelMscclAlgo *a, GError **error)
{
    for (uint32_t g = 0; g < a->ngpus; g++) {
        const FennelMscclGpu *gpu = &a->gpus[g];
        for (uint32_t t = gpu->first_tb; t < gpu->first_tb + gpu->n_tbs; t++)
            for (uint32_t k = 0; k < a->tbs[t].n_steps; k++) {
                const FennelMscclStep *st = &a->steps[a->tbs[t].first_step + k];
                if (st->depid < 0)
                    continue;
                if ((uint32_t)st->depid == t - gpu->first_tb && (uint32_t)st->deps >= k) {
                    fennel_error_at(error, a->file, st->line, st->col,
                                    "gpu %u tb %u step %u depends on step %d of its own thread "
                                    "block, which comes later",
                                    g, t - gpu->first_tb, k, st->deps);
                    return FALSE;
                }
                if ((uint32_t)st->depid >= gpu->n_tbs ||
                    (uint32_t)st->deps >= a->tbs[gpu->first_tb + st->depid].n_steps) {
                    fennel_error_at(error, a->file, st->line, st->col,
                                    "gpu %u tb %u step %u depends on tb %d step %d, which gpu %u "
                                    "does not have",
                                    g, t - gpu->first_tb, k, st->depid, st->deps, g);
                    return FALSE;
                }
            }
    }
    return TRUE;
}

static uint64_t key(uint32_t from, uint32_t to, uint32_t chan)
{
    return ((uint64_t)from << 40) | ((uint64_t)to << 20) | chan;
}

static uint32_t count_steps(const FennelMscclAlgo *a, const FennelMscclTb *tb, unsigned does)
{
    uint32_t n = 0;
    for (uint32_t k = 0; k < tb->n_steps; k++)
        n += (fennel_msccl_does(a->steps[tb->first_step + k].type) & does) != 0;
    return n;
}

gboolean fennel__msccl_connect(FennelMscclAlgo *a, GError **error)
{
    a->send_conn = g_new(uint32_t, a->n_tbs);
    a->recv_conn = g_new(uint32_t, a->n_tbs);
    GHashTable *ids = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
    GArray *sent = g_array_new(FALSE, TRUE, sizeof(uint32_t));
    GArray *taken = g_array_new(FALSE, TRUE, sizeof(uint32_t));
    for (uint32_t g = 0; g < a->ngpus; g++)
        for (uint32_t t = a->gpus[g].first_tb; t < a->gpus[g].first_tb + a->gpus[g].n_tbs; t++) {
            const FennelMscclTb *tb = &a->tbs[t];
            for (int side = 0; side < 2; side++) {
                int32_t peer = side == 0 ? tb->send : tb->recv;
                uint32_t *conn = side == 0 ? &a->send_conn[t] : &a->recv_conn[t];
                *conn = UINT32_MAX;
                if (peer < 0)
                    continue;
                uint64_t k = side == 0 ? key(g, (uint32_t)peer, (uint32_t)tb->chan)
                                       : key((uint32_t)peer, g, (uint32_t)tb->chan);
                gpointer found = g_hash_table_lookup(ids, &k);
                if (found == NULL) {
                    uint64_t *copy = g_new(uint64_t, 1);
                    *copy = k;
                    found = GUINT_TO_POINTER(a->n_conns + 1);
                    g_hash_table_insert(ids, copy, found);
                    a->n_conns++;
                    g_array_set_size(sent, a->n_conns);
                    g_array_set_size(taken, a->n_conns);
                }
                *conn = GPOINTER_TO_UINT(found) - 1;
                GArray *count = side == 0 ? sent : taken;
                g_array_index(count, uint32_t, *conn) +=
                    count_steps(a, tb, side == 0 ? FENNEL_MSCCL_DOES_SEND : FENNEL_MSCCL_DOES_RECV);
            }
        }
    gboolean ok = TRUE;
    for (uint32_t c = 0; ok && c < a->n_conns; c++) {
        uint32_t s = g_array_index(sent, uint32_t, c), r = g_array_index(taken, uint32_t, c);
        if (s == r)
            continue;
        /* Name the connection from a thread block of each side, if there is one. */
        uint32_t from = UINT32_MAX, to = UINT32_MAX, chan = 0;
        const FennelMscclTb *where = NULL;
        for (uint32_t g = 0; g < a->ngpus && where == NULL; g++)
            for (uint32_t t = a->gpus[g].first_tb; t < a->gpus[g].first_tb + a->gpus[g].n_tbs; t++)
                if (a->send_conn[t] == c || a->recv_conn[t] == c) {
                    where = &a->tbs[t];
                    gboolean sends = a->send_conn[t] == c;
                    from = sends ? g : (uint32_t)where->recv;
                    to = sends ? (uint32_t)where->send : g;
                    chan = (uint32_t)where->chan;
                    break;
                }
        fennel_error_at(error, a->file, where->line, where->col,
                        "gpu %u sends %u message%s to gpu %u on channel %u, which receives %u",
                        from, s, s == 1 ? "" : "s", to, chan, r);
        ok = FALSE;
    }
    g_hash_table_unref(ids);
    g_array_unref(sent);
    g_array_unref(taken);
    return ok;
}

gboolean fennel_msccl_detect(const char *data, gsize length)
{
    fennel_input_skip_bom(&data, &length);
    /* Skip white space, the XML declaration and comments up to the first element. */
    gsize i = 0;
    while (i < length) {
        while (i < length && g_ascii_isspace(data[i]))
            i++;
        if (i + 4 <= length && memcmp(data + i, "<!--", 4) == 0) {
            const char *end = g_strstr_len(data + i, (gssize)(length - i), "-->");
            if (end == NULL)
                return FALSE;
            i = (gsize)(end - data) + 3;
        } else if (i + 2 <= length && memcmp(data + i, "<?", 2) == 0) {
            const char *end = g_strstr_len(data + i, (gssize)(length - i), "?>");
            if (end == NULL)
                return FALSE;
            i = (gsize)(end - data) + 2;
        } else {
            break;
        }
    }
    return i + 5 <= length && memcmp(data + i, "<algo", 5) == 0 &&
           (i + 5 == length || g_ascii_isspace(data[i + 5]) || data[i + 5] == '>');
}

/* Reads the text with GMarkup, its messages turned into fennel's. */
static gboolean read_markup(Reader *r, const GMarkupParser *parser, GError **error)
{
    r->lines = g_array_new(FALSE, FALSE, sizeof(gsize));
    for (gsize at = 0; at <= r->length;) {
        g_array_append_val(r->lines, at);
        const char *nl = r->length > at ? memchr(r->data + at, '\n', r->length - at) : NULL;
        if (nl == NULL)
            break;
        at = (gsize)(nl - r->data) + 1;
    }
    r->context = g_markup_parse_context_new(parser, 0, r, NULL);
    r->scan = 0;
    GError *local = NULL;
    gboolean ok = g_markup_parse_context_parse(r->context, r->data, (gssize)r->length, &local) &&
                  g_markup_parse_context_end_parse(r->context, &local);
    if (!ok && local->domain != FENNEL_ERROR) {
        /* GMarkup's own messages say "Error on line L char C: ..."; ours say FILE:LINE:COL. */
        uint32_t line, col;
        position(r, &line, &col);
        const char *what = strstr(local->message, ": ");
        char *plain = g_strdup(
            what && g_str_has_prefix(local->message, "Error on line") ? what + 2 : local->message);
        /* GLib quotes names with typographic quotes in some locales, and may quote one byte
         * of a character, which leaves the message invalid UTF-8: the quotes are replaced
         * byte by byte (a regular expression refuses such text) and the rest cleaned. */
        for (const char *quote = "\xe2\x80\x9c"; quote;
             quote = quote[2] == '\x9c' ? "\xe2\x80\x9d" : NULL) {
            char **parts = g_strsplit(plain, quote, -1);
            g_free(plain);
            plain = g_strjoinv("'", parts);
            g_strfreev(parts);
        }
        char *clean = fennel_message_clean(plain);
        fennel_error_at(error, r->file, line, col, "not well-formed XML: %s", clean);
        g_free(clean);
        g_free(plain);
        g_error_free(local);
    } else if (!ok) {
        g_propagate_error(error, local);
    }
    g_markup_parse_context_free(r->context);
    r->context = NULL;
    g_array_unref(r->lines);
    return ok;
}

FennelMscclAlgo *fennel_msccl_parse(const char *file, const char *data, gsize length,
                                    GError **error)
{
    return fennel_msccl_parse_with(file, data, length, FENNEL_MSCCL_XML_AUTO, error);
}

FennelMscclAlgo *fennel_msccl_parse_with(const char *file, const char *data, gsize length,
                                         FennelMscclXmlSource source, GError **error)
{
    fennel_input_skip_bom(&data, &length);
    FennelMscclAlgo *a = g_new0(FennelMscclAlgo, 1);
    a->file = g_strdup(file);
    Reader r = {.file = file, .a = a, .data = data, .length = length};
    r.gpus = g_array_new(FALSE, FALSE, sizeof(FennelMscclGpu));
    r.tbs = g_array_new(FALSE, FALSE, sizeof(FennelMscclTb));
    /* A step takes about 120 bytes of XML; reserve a little more than that. */
    r.room_steps = (uint32_t)MIN(length / 96, UINT32_MAX / 2);
    r.steps = g_new(FennelMscclStep, MAX(r.room_steps, 1));
    GMarkupParser parser = {start_element, end_element, text, NULL, NULL};
    FennelXmlFast fast = {0};
    FennelXmlFastResult scanned = FENNEL_XML_FAST_DECLINED;
    if (source != FENNEL_MSCCL_XML_MARKUP_ONLY) {
        r.fast = &fast;
        scanned = fennel_xml_fast_parse(&fast, data, length, &parser, &r, error);
        r.fast = NULL;
    }
    gboolean ok = scanned == FENNEL_XML_FAST_DONE;
    if (scanned == FENNEL_XML_FAST_DECLINED && source == FENNEL_MSCCL_XML_FAST_ONLY) {
        fennel_error_at(error, file, fast.tag_line, fast.tag_col, FENNEL_MSCCL_DECLINED);
    } else if (scanned == FENNEL_XML_FAST_DECLINED) {
        /* Start again with GMarkup. */
        g_array_set_size(r.gpus, 0);
        g_array_set_size(r.tbs, 0);
        r.n_steps = 0;
        g_clear_pointer(&a->name, g_free);
        g_clear_pointer(&a->coll, g_free);
        r.depth = 0;
        r.seen_algo = FALSE;
        ok = read_markup(&r, &parser, error);
    }
    a->gpus = (FennelMscclGpu *)(void *)r.gpus->data;
    a->tbs = (FennelMscclTb *)(void *)r.tbs->data;
    a->steps = r.steps;
    a->n_tbs = r.tbs->len;
    a->n_steps = r.n_steps;
    uint32_t n_gpus = r.gpus->len;
    g_array_free(r.gpus, FALSE);
    g_array_free(r.tbs, FALSE);
    if (ok && !r.seen_algo) {
        fennel_error_at(error, file, 1, 1, "no <algo> element: not an MSCCL algorithm");
        ok = FALSE;
    }
    if (ok && n_gpus != a->ngpus) {
        fennel_error_at(error, file, a->line, a->col,
                        "<algo> ngpus=\"%u\" but the file describes %u gpu%s", a->ngpus, n_gpus,
                        n_gpus == 1 ? "" : "s");
        ok = FALSE;
    }
    ok = ok && fennel__msccl_check_dependencies(a, error) && fennel__msccl_connect(a, error);
    if (!ok) {
        fennel_msccl_free(a);
        return NULL;
    }
    return a;
}

FennelMscclAlgo *fennel_msccl_read(const char *file, GError **error)
{
    char *data;
    gsize length;
    if (!fennel_read_input(file, &data, &length, error))
        return NULL;
    FennelMscclAlgo *a = fennel_msccl_parse(file, data, length, error);
    g_free(data);
    return a;
}

void fennel_msccl_free(FennelMscclAlgo *a)
{
    if (a == NULL)
        return;
    g_free(a->file);
    g_free(a->name);
    g_free(a->coll);
    g_free(a->gpus);
    g_free(a->tbs);
    g_free(a->steps);
    g_free(a->send_conn);
    g_free(a->recv_conn);
    g_free(a);
}

uint32_t fennel_msccl_multiplier(const FennelMscclAlgo *a)
{
    const char *c = a->coll;
    return strcmp(c, "allgather") == 0 || strcmp(c, "reducescatter") == 0 ||
                   strcmp(c, "reduce_scatter") == 0 || strcmp(c, "alltoall") == 0
               ? a->ngpus
               : 1;
}

int64_t fennel_msccl_chunk_bytes(const FennelMscclAlgo *a, int64_t size)
{
    return (int64_t)((__int128)size * fennel_msccl_multiplier(a) / a->nchunksperloop);
}
