/* fennel's binary program file (docs/FORMATS.md, Binary programs): a header, a table of
 * sections, and the program's arrays as they are in memory, each 8-byte aligned, so that
 * reading is a mapping of the file and a check of what the arrays hold. The program
 * points into the mapping and keeps it (FennelProgram.backing). */
#include "binary_private.h"
#include "program_io.h"

#include "capacity.h"
#include "errors.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Bytes 0-7: 0x89 keeps the file from passing for text, CR LF and 0x1a catch a transfer that
 * rewrote line ends or stopped at a DOS end of file (as PNG's signature does). */
static const char magic[8] = "\x89"
                             "FBIN\r\n\x1a";

#define BYTE_ORDER_MARK 0x01020304u
#define NO_NAME         UINT64_MAX

/* How many elements a section holds. */
typedef enum { PER_TASK, PER_TASK_AND_ONE, PER_MARK, FREE } Count;

typedef struct {
    const char *name;
    uint32_t size; /* bytes of an element */
    Count count;
    gboolean required;
    int partner; /* a section that must be present with this one, or 0 */
} Section;

static const Section sections[FENNEL_FBIN_COUNT] = {
    [FENNEL_FBIN_TYPE] = {"type", 1, PER_TASK, TRUE, 0},
    [FENNEL_FBIN_FLAGS] = {"flags", 1, PER_TASK, TRUE, 0},
    [FENNEL_FBIN_RANK] = {"rank", 4, PER_TASK, TRUE, 0},
    [FENNEL_FBIN_PEER] = {"peer", 4, PER_TASK, TRUE, 0},
    [FENNEL_FBIN_AMOUNT] = {"amount", 8, PER_TASK, TRUE, 0},
    [FENNEL_FBIN_SUCC_START] = {"successor offsets", 4, PER_TASK_AND_ONE, TRUE, 0},
    [FENNEL_FBIN_SUCC] = {"successors", 4, FREE, TRUE, 0},
    [FENNEL_FBIN_REQUEST] = {"request", 8, PER_TASK, FALSE, 0},
    [FENNEL_FBIN_TAG] = {"tag", 4, PER_TASK, FALSE, 0},
    [FENNEL_FBIN_PIN] = {"pin", 4, PER_TASK, FALSE, 0},
    [FENNEL_FBIN_ANY] = {"any", 4, PER_TASK, FALSE, 0},
    [FENNEL_FBIN_START_SUCC_START] = {"start successor offsets", 4, PER_TASK_AND_ONE, FALSE,
                                      FENNEL_FBIN_START_SUCC},
    [FENNEL_FBIN_START_SUCC] = {"start successors", 4, FREE, FALSE, FENNEL_FBIN_START_SUCC_START},
    [FENNEL_FBIN_BLOCK_FIRST] = {"block first", 4, PER_TASK, FALSE, FENNEL_FBIN_BLOCK_COUNT},
    [FENNEL_FBIN_BLOCK_COUNT] = {"block count", 4, PER_TASK, FALSE, FENNEL_FBIN_BLOCK_FIRST},
    [FENNEL_FBIN_LINE] = {"line", 4, PER_TASK, FALSE, FENNEL_FBIN_COL},
    [FENNEL_FBIN_COL] = {"column", 4, PER_TASK, FALSE, FENNEL_FBIN_LINE},
    [FENNEL_FBIN_STAGE_FIRST] = {"stage first", 4, PER_MARK, FALSE, FENNEL_FBIN_STAGE_NUMBER},
    [FENNEL_FBIN_STAGE_NUMBER] = {"stage number", 4, PER_MARK, FALSE, FENNEL_FBIN_STAGE_FIRST},
    [FENNEL_FBIN_NAME_AT] = {"name offsets", 8, PER_TASK, FALSE, FENNEL_FBIN_NAME_TEXT},
    [FENNEL_FBIN_NAME_TEXT] = {"name text", 1, FREE, FALSE, FENNEL_FBIN_NAME_AT},
    [FENNEL_FBIN_PROGRAM_NAME] = {"program name", 1, FREE, FALSE, 0},
    [FENNEL_FBIN_SOURCE] = {"source", 1, FREE, FALSE, 0},
    [FENNEL_FBIN_COLLECTIVE] = {"collective", 1, FREE, FALSE, 0},
    [FENNEL_FBIN_SCHEDULE] = {"schedule", 1, FREE, FALSE, 0},
    [FENNEL_FBIN_ORDER] = {"order", 4, PER_TASK, FALSE, 0},
};

#define TABLE_ENTRY 24

/* The checksum: four lanes of 64-bit words, each multiplied, rotated and multiplied again,
 * so that four multiplications run side by side; then the lanes, the length and any tail
 * are mixed and the result is finished with murmur3's avalanche. Any change of one byte
 * changes the sum (every step is a bijection of its lane), and a few changes cancel out only
 * by chance. It is not cryptographic: it catches damage, not forgery. */
#define P1 0x9E3779B97F4A7C15ull
#define P2 0xC2B2AE3D27D4EB4Full
#define P3 0x165667B19E3779F9ull

static inline uint64_t rotl(uint64_t x, int r)
{
    return (x << r) | (x >> (64 - r));
}

static inline uint64_t word(const guint8 *p)
{
    uint64_t w;
    memcpy(&w, p, 8);
    return GUINT64_FROM_LE(w);
}

static inline uint64_t lane(uint64_t acc, uint64_t w)
{
    return rotl(acc + w * P2, 31) * P1;
}

/* The same checksum over bytes given in pieces: full 32-byte blocks go through the lanes as
 * they come, the last bytes (fewer than 32) are mixed in at the end. */
void fennel__binary_hash_init(FennelBinaryHash *h)
{
    *h = (FennelBinaryHash){.a = P1 + P2, .b = P2, .c = 0, .d = -P1};
}

void fennel__binary_hash_add(FennelBinaryHash *h, const void *data, gsize length)
{
    const guint8 *p = data, *end = p + length;
    h->length += length;
    if (h->held > 0) {
        gsize take = MIN((gsize)(32 - h->held), length);
        memcpy(h->block + h->held, p, take);
        h->held += (unsigned)take;
        p += take;
        if (h->held < 32)
            return;
        h->a = lane(h->a, word(h->block));
        h->b = lane(h->b, word(h->block + 8));
        h->c = lane(h->c, word(h->block + 16));
        h->d = lane(h->d, word(h->block + 24));
        h->held = 0;
    }
    /* The lanes in locals: this loop is the reader's check of a whole file. */
    uint64_t a = h->a, b = h->b, c = h->c, d = h->d;
    for (; end - p >= 32; p += 32) {
        a = lane(a, word(p));
        b = lane(b, word(p + 8));
        c = lane(c, word(p + 16));
        d = lane(d, word(p + 24));
    }
    *h = (FennelBinaryHash){.a = a, .b = b, .c = c, .d = d, .length = h->length};
    memcpy(h->block, p, (gsize)(end - p));
    h->held = (unsigned)(end - p);
}

uint64_t fennel__binary_hash_end(const FennelBinaryHash *s)
{
    uint64_t h =
        s->length >= 32 ? rotl(s->a, 1) + rotl(s->b, 7) + rotl(s->c, 12) + rotl(s->d, 18) : P3;
    h += s->length;
    const guint8 *p = s->block, *end = p + s->held;
    for (; end - p >= 8; p += 8)
        h = rotl(h ^ lane(0, word(p)), 27) * P1 + P2;
    for (; p < end; p++)
        h = rotl(h ^ (*p * P3), 11) * P1;
    h ^= h >> 33;
    h *= 0xFF51AFD7ED558CCDull;
    h ^= h >> 33;
    h *= 0xC4CEB9FE1A85EC53ull;
    h ^= h >> 33;
    return h;
}

uint64_t fennel__binary_checksum(const void *data, gsize length)
{
    FennelBinaryHash h;
    fennel__binary_hash_init(&h);
    fennel__binary_hash_add(&h, data, length);
    return fennel__binary_hash_end(&h);
}

static inline void put32(guint8 *at, uint32_t v)
{
    memcpy(at, &v, 4);
}

static inline void put64(guint8 *at, uint64_t v)
{
    memcpy(at, &v, 8);
}

static inline uint32_t get32(const guint8 *at)
{
    uint32_t v;
    memcpy(&v, at, 4);
    return v;
}

static inline uint64_t get64(const guint8 *at)
{
    uint64_t v;
    memcpy(&v, at, 8);
    return v;
}

void fennel__binary_seal(void *data, gsize length)
{
    if (length < FENNEL_BINARY_HEADER)
        return;
    guint8 *bytes = data;
    put64(bytes + FENNEL_BINARY_AT_SUM,
          fennel__binary_checksum(bytes + FENNEL_BINARY_AT_SIZE, length - FENNEL_BINARY_AT_SIZE));
}

gboolean fennel_program_is_binary(const char *data, gsize length)
{
    return length >= sizeof magic && memcmp(data, magic, sizeof magic) == 0;
}

gboolean fennel_program_file_is_binary(const char *file)
{
    int fd = open(file, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return FALSE;
    struct stat st;
    char head[sizeof magic];
    /* Only a regular file: peeking at a pipe would consume what its reader needs. */
    gboolean binary = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
                      read(fd, head, sizeof head) == (ssize_t)sizeof head &&
                      fennel_program_is_binary(head, sizeof head);
    close(fd);
    return binary;
}

/* ---- Writing ---- */

typedef struct {
    int id;
    const void *data;
    uint64_t count;
} Piece;

static uint64_t align8(uint64_t x)
{
    return (x + 7) & ~(uint64_t)7;
}

/* When some edge points backwards, the position of every task in a topological order: the
 * reader proves the graph acyclic by checking that every edge goes up in it, one look-up
 * per edge, where a search of its own would cost as much again as the rest of the reading.
 * NULL when every successor comes after its task, which proves it by itself. */
static uint32_t *backward_order(const FennelProgram *p)
{
    gboolean forward = TRUE;
    for (uint32_t t = 0; t < p->n_tasks && forward; t++) {
        for (uint64_t e = p->succ_start[t]; e < p->succ_start[t + 1] && forward; e++)
            forward = p->succ[e] > t;
        for (uint64_t e = p->start_succ ? p->start_succ_start[t] : 0;
             p->start_succ && e < p->start_succ_start[t + 1] && forward; e++)
            forward = p->start_succ[e] > t;
    }
    if (forward)
        return NULL;
    uint32_t *order = g_new(uint32_t, (gsize)p->n_tasks + 1);
    uint32_t *position = g_new(uint32_t, (gsize)p->n_tasks + 1);
    fennel_program_topological_order(p, order);
    for (uint32_t i = 0; i < p->n_tasks; i++)
        position[order[i]] = i;
    g_free(order);
    return position;
}

/* Where the file's bytes go: into the checksum (the first pass, from byte
 * FENNEL_BINARY_AT_SIZE on), or out to the sink (the second), a megabyte at a time. */
typedef struct {
    FennelSink *sink; /* NULL: the checksum pass */
    FennelBinaryHash hash;
    uint64_t at; /* bytes so far */
} Emitter;

static void emit(Emitter *e, const void *data, uint64_t length)
{
    const guint8 *p = data;
    if (e->sink == NULL) {
        uint64_t skip =
            e->at < FENNEL_BINARY_AT_SIZE ? MIN(FENNEL_BINARY_AT_SIZE - e->at, length) : 0;
        fennel__binary_hash_add(&e->hash, p + skip, length - skip);
        e->at += length;
        return;
    }
    e->at += length;
    while (length > 0) {
        gsize take = (gsize)MIN(length, (uint64_t)FENNEL_SINK_SPILL);
        g_string_append_len(e->sink->text, (const char *)p, (gssize)take);
        fennel_sink_spill(e->sink);
        p += take;
        length -= take;
    }
}

/* Padding: fewer than 8 bytes. */
static void emit_zeros(Emitter *e, uint64_t length)
{
    static const guint8 zeros[8];
    g_assert(length < sizeof zeros);
    emit(e, zeros, length);
}

/* The file as pieces: the header and table, then each section, padded to 8 bytes. The name
 * text is not held: it is the names one after another, each with its NUL. */
static void emit_file(Emitter *e, const guint8 *head, uint64_t head_length, const Piece *pieces,
                      int k, const uint64_t *at, char *const *names, uint32_t n)
{
    emit(e, head, head_length);
    for (int i = 0; i < k; i++) {
        emit_zeros(e, at[i] - e->at);
        if (pieces[i].id == FENNEL_FBIN_NAME_TEXT) {
            for (uint32_t t = 0; t < n; t++) {
                if (names[t])
                    emit(e, names[t], strlen(names[t]) + 1);
            }
        } else {
            emit(e, pieces[i].data, pieces[i].count * sections[pieces[i].id].size);
        }
    }
}

gboolean fennel_program_write_binary(const FennelProgram *p, GString *out, GError **error)
{
    FennelSink sink = fennel_sink_on_string(out);
    return fennel_program_stream_binary(p, &sink, error);
}

gboolean fennel_program_stream_binary(const FennelProgram *p, FennelSink *out, GError **error)
{
    uint32_t n = p->n_tasks;
    Piece pieces[FENNEL_FBIN_COUNT];
    int k = 0;
#define ADD(section, array, elements)                                                              \
    do {                                                                                           \
        if ((array) != NULL)                                                                       \
            pieces[k++] = (Piece){(section), (array), (elements)};                                 \
    } while (0)
    uint64_t edges = p->succ_start[n];
    uint64_t start_edges = p->start_succ ? p->start_succ_start[n] : 0;
    ADD(FENNEL_FBIN_TYPE, p->type, n);
    /* FENNEL_TASK_SOLE is worked out by the reader that builds a program, never taken
     * from a file (a file that claimed it falsely would let messages overtake). */
    uint8_t *flags = g_new(uint8_t, MAX(n, 1));
    for (uint32_t t = 0; t < n; t++)
        flags[t] = p->flags[t] & (uint8_t)~FENNEL_TASK_SOLE;
    ADD(FENNEL_FBIN_FLAGS, flags, n);
    ADD(FENNEL_FBIN_RANK, p->rank, n);
    ADD(FENNEL_FBIN_PEER, p->peer, n);
    ADD(FENNEL_FBIN_AMOUNT, p->amount, n);
    ADD(FENNEL_FBIN_SUCC_START, p->succ_start, (uint64_t)n + 1);
    ADD(FENNEL_FBIN_SUCC, p->succ, edges);
    ADD(FENNEL_FBIN_REQUEST, p->request, n);
    ADD(FENNEL_FBIN_TAG, p->tag, n);
    ADD(FENNEL_FBIN_PIN, p->pin, n);
    ADD(FENNEL_FBIN_ANY, p->any, n);
    if (p->start_succ) {
        ADD(FENNEL_FBIN_START_SUCC_START, p->start_succ_start, (uint64_t)n + 1);
        ADD(FENNEL_FBIN_START_SUCC, p->start_succ, start_edges);
    }
    if (p->block_first) {
        ADD(FENNEL_FBIN_BLOCK_FIRST, p->block_first, n);
        ADD(FENNEL_FBIN_BLOCK_COUNT, p->block_count, n);
    }
    if (p->line && p->col) {
        ADD(FENNEL_FBIN_LINE, p->line, n);
        ADD(FENNEL_FBIN_COL, p->col, n);
    }
    if (p->n_stage_marks > 0) {
        ADD(FENNEL_FBIN_STAGE_FIRST, p->stage_first, p->n_stage_marks);
        ADD(FENNEL_FBIN_STAGE_NUMBER, p->stage_number, p->n_stage_marks);
    }
    /* Task names as one text of NUL-terminated strings and the offset of each. */
    uint64_t *name_at = NULL;
    char *const *own = fennel_program_own_names(p);
    if (own) {
        name_at = g_new(uint64_t, MAX(n, 1));
        uint64_t text_length = 0;
        for (uint32_t t = 0; t < n; t++) {
            if (own[t] == NULL) {
                name_at[t] = NO_NAME;
                continue;
            }
            name_at[t] = text_length;
            text_length += strlen(own[t]) + 1;
        }
        ADD(FENNEL_FBIN_NAME_AT, name_at, n);
        /* Written from the names themselves (emit_file). */
        pieces[k++] = (Piece){FENNEL_FBIN_NAME_TEXT, NULL, text_length};
    }
    ADD(FENNEL_FBIN_PROGRAM_NAME, p->name, p->name ? strlen(p->name) + 1 : 0);
    /* The source positions are worth something only with the file they point into. */
    if (p->line)
        ADD(FENNEL_FBIN_SOURCE, p->source, p->source ? strlen(p->source) + 1 : 0);
    ADD(FENNEL_FBIN_COLLECTIVE, p->collective, p->collective ? strlen(p->collective) + 1 : 0);
    ADD(FENNEL_FBIN_SCHEDULE, p->schedule, p->schedule ? strlen(p->schedule) + 1 : 0);
    uint32_t *order = backward_order(p);
    ADD(FENNEL_FBIN_ORDER, order, n);
#undef ADD

    uint64_t offset = align8(FENNEL_BINARY_AT_TABLE + (uint64_t)k * TABLE_ENTRY);
    uint64_t at[FENNEL_FBIN_COUNT];
    for (int i = 0; i < k; i++) {
        at[i] = offset;
        offset = align8(offset + pieces[i].count * sections[pieces[i].id].size);
    }
    gboolean ok = out->fd >= 0 || offset <= G_MAXSIZE - out->text->len;
    if (!ok) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                    "%" G_GUINT64_FORMAT " bytes: too large for this machine's memory", offset);
    } else {
        uint64_t head_length = align8(FENNEL_BINARY_AT_TABLE + (uint64_t)k * TABLE_ENTRY);
        guint8 *head = g_malloc0(head_length);
        memcpy(head, magic, sizeof magic);
        put32(head + 8, GUINT32_TO_LE(FENNEL_BINARY_VERSION));
        put32(head + 12, BYTE_ORDER_MARK);
        put64(head + FENNEL_BINARY_AT_SIZE, offset);
        put32(head + 32, n);
        put32(head + 36, p->n_ranks);
        put32(head + 40, p->processes);
        put32(head + 44, p->n_blocks);
        put32(head + 48, p->root);
        put32(head + 52, p->n_stage_marks);
        put64(head + 56, p->n_edges);
        put32(head + FENNEL_BINARY_AT_NSECTS, (uint32_t)k);
        for (int i = 0; i < k; i++) {
            guint8 *entry = head + FENNEL_BINARY_AT_TABLE + (uint64_t)i * TABLE_ENTRY;
            put32(entry, (uint32_t)pieces[i].id);
            put32(entry + 4, sections[pieces[i].id].size);
            put64(entry + 8, at[i]);
            put64(entry + 16, pieces[i].count);
        }
        /* The checksum (at the start) covers what follows it: a first pass sums the file
         * without writing it, the second writes it. */
        Emitter sum = {NULL, {0}, 0};
        fennel__binary_hash_init(&sum.hash);
        emit_file(&sum, head, head_length, pieces, k, at, own, n);
        emit_zeros(&sum, offset - sum.at);
        put64(head + FENNEL_BINARY_AT_SUM, fennel__binary_hash_end(&sum.hash));
        Emitter file = {out, {0}, 0};
        emit_file(&file, head, head_length, pieces, k, at, own, n);
        emit_zeros(&file, offset - file.at);
        g_free(head);
    }
    g_free(name_at);
    g_free(order);
    g_free(flags);
    return ok;
}

/* ---- Reading ---- */

typedef struct {
    const char *file;
    const guint8 *base;
    gsize length;
    uint64_t at[FENNEL_FBIN_COUNT], count[FENNEL_FBIN_COUNT];
    gboolean have[FENNEL_FBIN_COUNT];
    uint32_t n; /* tasks */
} Reader;

static gboolean fail(const Reader *r, GError **error, uint64_t byte, const char *format, ...)
    G_GNUC_PRINTF(4, 5);

static gboolean fail(const Reader *r, GError **error, uint64_t byte, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    char *what = g_strdup_vprintf(format, args);
    va_end(args);
    g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT, "%s: byte %" G_GUINT64_FORMAT ": %s",
                r->file, byte, what);
    g_free(what);
    return FALSE;
}

/* Where element i of a section lies in the file. */
static uint64_t byte_of(const Reader *r, int s, uint64_t i)
{
    return r->at[s] + i * sections[s].size;
}

#define ARRAY(r, s, type) ((const type *)((r)->base + (r)->at[s]))

static const char *const convert_again = "convert the source again (fennel convert SOURCE -o FILE)";

static gboolean read_header(Reader *r, GError **error)
{
    const guint8 *h = r->base;
    if (!fennel_program_is_binary((const char *)h, r->length))
        return fail(r, error, 0, "not a fennel binary program (no magic number)");
    if (r->length < FENNEL_BINARY_HEADER)
        return fail(r, error, r->length, "the file ends within its header (%d bytes); %s",
                    FENNEL_BINARY_HEADER, convert_again);
    uint32_t version = GUINT32_FROM_LE(get32(h + 8));
    if (version != FENNEL_BINARY_VERSION)
        return fail(r, error, 8,
                    "version %u of fennel's binary program format; this fennel reads version "
                    "%d: %s",
                    version, FENNEL_BINARY_VERSION, convert_again);
    uint32_t mark = get32(h + 12);
    if (mark != BYTE_ORDER_MARK)
        return fail(r, error, 12, "%s",
                    mark == GUINT32_SWAP_LE_BE(BYTE_ORDER_MARK)
                        ? "written on a machine of the other byte order; convert the source "
                          "again on this one"
                        : "not a byte-order mark: the file is damaged");
    uint64_t size = get64(h + FENNEL_BINARY_AT_SIZE);
    if (r->length < size)
        return fail(r, error, r->length,
                    "the file ends here, but its header says it has %" G_GUINT64_FORMAT
                    " bytes (truncated?); %s",
                    size, convert_again);
    if (r->length > size)
        return fail(r, error, size,
                    "the header says the file ends here, and %" G_GSIZE_FORMAT
                    " more bytes follow; %s",
                    r->length - size, convert_again);
    uint64_t sum =
        fennel__binary_checksum(h + FENNEL_BINARY_AT_SIZE, r->length - FENNEL_BINARY_AT_SIZE);
    if (sum != get64(h + FENNEL_BINARY_AT_SUM))
        return fail(r, error, FENNEL_BINARY_AT_SUM,
                    "checksum mismatch: the file changed after fennel wrote it; %s", convert_again);
    return TRUE;
}

static gboolean read_table(Reader *r, uint32_t n_stage_marks, GError **error)
{
    uint32_t k = get32(r->base + FENNEL_BINARY_AT_NSECTS);
    uint64_t table_end = FENNEL_BINARY_AT_TABLE + (uint64_t)k * TABLE_ENTRY;
    if (k >= FENNEL_FBIN_COUNT)
        return fail(r, error, FENNEL_BINARY_AT_NSECTS, "%u sections, more than the format has", k);
    if (table_end > r->length)
        return fail(r, error, FENNEL_BINARY_AT_NSECTS,
                    "a table of %u sections runs past the file's end", k);
    for (uint32_t i = 0; i < k; i++) {
        uint64_t e = FENNEL_BINARY_AT_TABLE + (uint64_t)i * TABLE_ENTRY;
        uint32_t id = get32(r->base + e), size = get32(r->base + e + 4);
        uint64_t at = get64(r->base + e + 8), count = get64(r->base + e + 16);
        if (id == 0 || id >= FENNEL_FBIN_COUNT)
            return fail(r, error, e, "unknown section %u", id);
        const Section *s = &sections[id];
        if (r->have[id])
            return fail(r, error, e, "a second %s section", s->name);
        if (size != s->size)
            return fail(r, error, e + 4, "%s: elements of %u bytes, not %u", s->name, size,
                        s->size);
        if (at % 8 != 0 || at < table_end || at > r->length || count > (r->length - at) / s->size)
            return fail(r, error, e + 8,
                        "%s: %" G_GUINT64_FORMAT " elements at byte %" G_GUINT64_FORMAT
                        " do not lie within the file's %" G_GSIZE_FORMAT " bytes, after the "
                        "table, 8-byte aligned",
                        s->name, count, at, r->length);
        uint64_t expected = s->count == PER_TASK           ? r->n
                            : s->count == PER_TASK_AND_ONE ? (uint64_t)r->n + 1
                            : s->count == PER_MARK         ? n_stage_marks
                                                           : count;
        if (count != expected)
            return fail(r, error, e + 16,
                        "%s: %" G_GUINT64_FORMAT " elements, not %" G_GUINT64_FORMAT, s->name,
                        count, expected);
        r->have[id] = TRUE;
        r->at[id] = at;
        r->count[id] = count;
    }
    for (int id = 1; id < FENNEL_FBIN_COUNT; id++) {
        const Section *s = &sections[id];
        if (s->required && !r->have[id])
            return fail(r, error, FENNEL_BINARY_AT_NSECTS, "no %s section", s->name);
        if (r->have[id] && s->partner && !r->have[s->partner])
            return fail(r, error, FENNEL_BINARY_AT_NSECTS, "a %s section without a %s section",
                        s->name, sections[s->partner].name);
    }
    if (n_stage_marks > 0 && !r->have[FENNEL_FBIN_STAGE_FIRST])
        return fail(r, error, 52, "%u stage marks without their sections", n_stage_marks);
    return TRUE;
}

/* The index of the first element of a u32 column at or above `limit`, or n. The scan for
 * the maximum vectorises; the search runs only on a bad file. */
static uint64_t first_at_or_above(const uint32_t *a, uint64_t n, uint64_t limit)
{
    uint32_t highest = 0;
    for (uint64_t i = 0; i < n; i++)
        highest = MAX(highest, a[i]);
    if (highest < limit)
        return n;
    for (uint64_t i = 0;; i++) {
        if (a[i] >= limit)
            return i;
    }
}

/* A rank, or one of the two marks a peer may hold (FENNEL_NO_RANK, FENNEL_ANY): adding two
 * turns the marks into 0 and 1 and a rank r into r + 2. */
static uint64_t first_bad_peer(const uint32_t *a, uint64_t n, uint32_t n_ranks)
{
    uint32_t highest = 0;
    for (uint64_t i = 0; i < n; i++)
        highest = MAX(highest, (uint32_t)(a[i] + 2));
    if ((uint64_t)highest < (uint64_t)n_ranks + 2)
        return n;
    for (uint64_t i = 0;; i++) {
        if ((uint64_t)(uint32_t)(a[i] + 2) >= (uint64_t)n_ranks + 2)
            return i;
    }
}

/* The flags each type may carry (README, Program files: the fields of each type). */
static const uint8_t flags_of[FENNEL_TASK_N_TYPES] = {
    [FENNEL_TASK_START] = FENNEL_TASK_CONCURRENT,
    [FENNEL_TASK_PROXY] = FENNEL_TASK_CONCURRENT,
    [FENNEL_TASK_SLEEP] = FENNEL_TASK_CONCURRENT,
    [FENNEL_TASK_COMPUTE] = FENNEL_TASK_CONCURRENT | FENNEL_TASK_SIZED,
    [FENNEL_TASK_PUT] = FENNEL_TASK_CONCURRENT | FENNEL_TASK_BLOCKING,
    [FENNEL_TASK_GET] = FENNEL_TASK_CONCURRENT,
    [FENNEL_TASK_SEND] = FENNEL_TASK_CONCURRENT | FENNEL_TASK_EAGER,
    [FENNEL_TASK_RECV] = FENNEL_TASK_CONCURRENT,
    [FENNEL_TASK_LOAD_REDUCE] = FENNEL_TASK_CONCURRENT | FENNEL_TASK_ALLREDUCE,
    [FENNEL_TASK_MULTICAST] = FENNEL_TASK_CONCURRENT,
};

static gboolean check_columns(Reader *r, uint32_t n_ranks, uint32_t processes, uint32_t n_blocks,
                              GError **error)
{
    uint64_t n = r->n, i;
    const uint8_t *type = ARRAY(r, FENNEL_FBIN_TYPE, uint8_t),
                  *flags = ARRAY(r, FENNEL_FBIN_FLAGS, uint8_t);
    uint8_t highest = 0, bits = 0;
    for (i = 0; i < n; i++) {
        highest = MAX(highest, type[i]);
        bits |= flags[i];
    }
    if (highest >= FENNEL_TASK_N_TYPES) {
        for (i = 0; type[i] < FENNEL_TASK_N_TYPES; i++)
            ;
        return fail(r, error, byte_of(r, FENNEL_FBIN_TYPE, i),
                    "task %" G_GUINT64_FORMAT ": type %u", i, type[i]);
    }
    const unsigned known = FENNEL_TASK_CONCURRENT | FENNEL_TASK_BLOCKING | FENNEL_TASK_SIZED |
                           FENNEL_TASK_EAGER | FENNEL_TASK_ALLREDUCE;
    if (bits & ~known) {
        for (i = 0; !(flags[i] & ~known); i++)
            ;
        return fail(r, error, byte_of(r, FENNEL_FBIN_FLAGS, i),
                    "task %" G_GUINT64_FORMAT ": flags 0x%x", i, flags[i]);
    }
    if ((i = first_at_or_above(ARRAY(r, FENNEL_FBIN_RANK, uint32_t), n, n_ranks)) < n)
        return fail(r, error, byte_of(r, FENNEL_FBIN_RANK, i),
                    "task %" G_GUINT64_FORMAT ": rank %u is outside 0..%u", i,
                    ARRAY(r, FENNEL_FBIN_RANK, uint32_t)[i], n_ranks - 1);
    if ((i = first_bad_peer(ARRAY(r, FENNEL_FBIN_PEER, uint32_t), n, n_ranks)) < n)
        return fail(r, error, byte_of(r, FENNEL_FBIN_PEER, i),
                    "task %" G_GUINT64_FORMAT ": peer %u is outside 0..%u", i,
                    ARRAY(r, FENNEL_FBIN_PEER, uint32_t)[i], n_ranks - 1);
    /* What every reader makes sure of and the engine and the writers count on: a message's
     * peer is a rank (a receive's may be "any") and no other task has one, flags, tags,
     * requests and blocks only on the types that have them, a get has its request, and no
     * size or duration is negative. */
    const uint32_t *peer = ARRAY(r, FENNEL_FBIN_PEER, uint32_t);
    const int64_t *amount = ARRAY(r, FENNEL_FBIN_AMOUNT, int64_t);
    const int64_t *request =
        r->have[FENNEL_FBIN_REQUEST] ? ARRAY(r, FENNEL_FBIN_REQUEST, int64_t) : NULL;
    const uint32_t *tag = r->have[FENNEL_FBIN_TAG] ? ARRAY(r, FENNEL_FBIN_TAG, uint32_t) : NULL;
    const uint32_t *blocks =
        r->have[FENNEL_FBIN_BLOCK_COUNT] ? ARRAY(r, FENNEL_FBIN_BLOCK_COUNT, uint32_t) : NULL;
    for (i = 0; i < n; i++) {
        FennelTaskType kind = type[i];
        const gboolean tree = kind == FENNEL_TASK_LOAD_REDUCE || kind == FENNEL_TASK_MULTICAST;
        gboolean message = kind == FENNEL_TASK_PUT || kind == FENNEL_TASK_GET ||
                           kind == FENNEL_TASK_SEND || kind == FENNEL_TASK_RECV || tree;
        /* A switch's operation: its group, tag ranks from peer, every request-th (0: every
         * one), holds its rank. */
        const uint32_t rank = ARRAY(r, FENNEL_FBIN_RANK, uint32_t)[i];
        const uint64_t stride = tree && request && request[i] > 1 ? (uint64_t)request[i] : 1;
        if (G_UNLIKELY(tree &&
                       (tag == NULL || tag[i] == 0 || peer[i] > rank ||
                        (rank - peer[i]) % stride != 0 || (rank - peer[i]) / stride >= tag[i] ||
                        (tag[i] > 1 && stride >= n_ranks) ||
                        (uint64_t)peer[i] + (tag[i] - 1) * stride >= n_ranks)))
            return fail(
                r, error, tag ? byte_of(r, FENNEL_FBIN_TAG, i) : byte_of(r, FENNEL_FBIN_TYPE, i),
                "task %" G_GUINT64_FORMAT ": a %s whose group (%u ranks from %u) is not "
                "within 0..%u or lacks its rank %u",
                i, fennel_task_type_name(kind), tag ? tag[i] : 0, peer[i], n_ranks - 1, rank);
        if (G_UNLIKELY(message ? peer[i] == FENNEL_NO_RANK ||
                                     (peer[i] == FENNEL_ANY && kind != FENNEL_TASK_RECV)
                               : peer[i] != FENNEL_NO_RANK))
            return fail(r, error, byte_of(r, FENNEL_FBIN_PEER, i),
                        message ? "task %" G_GUINT64_FORMAT ": a %s without a peer rank"
                                : "task %" G_GUINT64_FORMAT ": a %s with a peer",
                        i, fennel_task_type_name(kind));
        if (G_UNLIKELY(flags[i] & ~flags_of[kind]))
            return fail(r, error, byte_of(r, FENNEL_FBIN_FLAGS, i),
                        "task %" G_GUINT64_FORMAT ": flags 0x%x on a %s", i, flags[i],
                        fennel_task_type_name(kind));
        if (G_UNLIKELY(tag && tag[i] != 0 && kind != FENNEL_TASK_SEND && kind != FENNEL_TASK_RECV &&
                       !tree) ||
            (tag && tag[i] == FENNEL_ANY && kind != FENNEL_TASK_RECV))
            return fail(r, error, byte_of(r, FENNEL_FBIN_TAG, i),
                        "task %" G_GUINT64_FORMAT ": tag %u on a %s", i, tag[i],
                        fennel_task_type_name(kind));
        if (G_UNLIKELY(request && request[i] != 0 && kind != FENNEL_TASK_GET && !tree))
            return fail(r, error, byte_of(r, FENNEL_FBIN_REQUEST, i),
                        "task %" G_GUINT64_FORMAT ": a request on a %s", i,
                        fennel_task_type_name(kind));
        if (G_UNLIKELY(blocks && blocks[i] != 0 && kind != FENNEL_TASK_PUT &&
                       kind != FENNEL_TASK_SEND && !tree))
            return fail(r, error, byte_of(r, FENNEL_FBIN_BLOCK_COUNT, i),
                        "task %" G_GUINT64_FORMAT ": blocks on a %s", i,
                        fennel_task_type_name(kind));
        if (G_UNLIKELY(kind == FENNEL_TASK_PROXY && amount[i] != 0))
            return fail(r, error, byte_of(r, FENNEL_FBIN_AMOUNT, i),
                        "task %" G_GUINT64_FORMAT ": a proxy of amount %" G_GINT64_FORMAT, i,
                        amount[i]);
        if (G_UNLIKELY(kind == FENNEL_TASK_GET && request == NULL))
            return fail(r, error, byte_of(r, FENNEL_FBIN_TYPE, i),
                        "task %" G_GUINT64_FORMAT ": a get, but the file has no request section",
                        i);
        if (G_UNLIKELY(amount[i] < 0 || (request && request[i] < 0)))
            return fail(r, error,
                        amount[i] < 0 ? byte_of(r, FENNEL_FBIN_AMOUNT, i)
                                      : byte_of(r, FENNEL_FBIN_REQUEST, i),
                        "task %" G_GUINT64_FORMAT ": %s %" G_GINT64_FORMAT, i,
                        amount[i] < 0 ? "amount" : "request",
                        amount[i] < 0 ? amount[i] : request[i]);
    }
    if (r->have[FENNEL_FBIN_PIN]) {
        const uint32_t *pin = ARRAY(r, FENNEL_FBIN_PIN, uint32_t);
        for (i = 0; i < n; i++) {
            if (pin[i] != FENNEL_NO_RANK && pin[i] >= processes)
                return fail(r, error, byte_of(r, FENNEL_FBIN_PIN, i),
                            "task %" G_GUINT64_FORMAT ": slot %u is outside 0..%u", i, pin[i],
                            processes - 1);
        }
    }
    if (r->have[FENNEL_FBIN_BLOCK_FIRST]) {
        const uint32_t *first = ARRAY(r, FENNEL_FBIN_BLOCK_FIRST, uint32_t);
        const uint32_t *count = ARRAY(r, FENNEL_FBIN_BLOCK_COUNT, uint32_t);
        for (i = 0; i < n; i++) {
            if (count[i] > 0 && (first[i] >= n_blocks || count[i] > n_blocks))
                return fail(r, error, byte_of(r, FENNEL_FBIN_BLOCK_FIRST, i),
                            "task %" G_GUINT64_FORMAT
                            ": blocks %u+%u, outside the vector's %u blocks",
                            i, first[i], count[i], n_blocks);
        }
    }
    if (r->have[FENNEL_FBIN_STAGE_FIRST]) {
        const uint32_t *first = ARRAY(r, FENNEL_FBIN_STAGE_FIRST, uint32_t);
        for (i = 0; i < r->count[FENNEL_FBIN_STAGE_FIRST]; i++) {
            if (first[i] > n || (i > 0 && first[i] < first[i - 1]))
                return fail(r, error, byte_of(r, FENNEL_FBIN_STAGE_FIRST, i),
                            "stage mark %" G_GUINT64_FORMAT
                            ": task %u is not in order or past the last task",
                            i, first[i]);
        }
    }
    return TRUE;
}

/* One CSR list set: offsets that start at 0, never go down and end at the list's length,
 * successors that are tasks, each list sorted without repeats (as the builder leaves
 * them). *forward says whether every successor comes after its task, which makes the
 * graph acyclic without a search. */
static gboolean check_lists(Reader *r, int s_start, int s_list, uint32_t *in_degree,
                            gboolean *forward, GError **error)
{
    const uint32_t *order =
        r->have[FENNEL_FBIN_ORDER] ? ARRAY(r, FENNEL_FBIN_ORDER, uint32_t) : NULL;
    const FennelEdgeIndex *start = ARRAY(r, s_start, FennelEdgeIndex);
    const uint32_t *list = ARRAY(r, s_list, uint32_t);
    uint64_t n = r->n, length = r->count[s_list];
    if (start[0] != 0)
        return fail(r, error, byte_of(r, s_start, 0), "%s: the first is %u, not 0",
                    sections[s_start].name, start[0]);
    if (start[n] != length)
        return fail(r, error, byte_of(r, s_start, n),
                    "%s: the last is %u, not the %" G_GUINT64_FORMAT " %s", sections[s_start].name,
                    start[n], length, sections[s_list].name);
    gboolean ahead = TRUE;
    for (uint64_t t = 0; t < n; t++) {
        uint64_t from = start[t], to = start[t + 1];
        if (to < from || to > length)
            return fail(r, error, byte_of(r, s_start, t + 1),
                        "%s: task %" G_GUINT64_FORMAT "'s list ends at %" G_GUINT64_FORMAT
                        ", before it begins or past the %" G_GUINT64_FORMAT " %s",
                        sections[s_start].name, t, to, length, sections[s_list].name);
        /* prev starts below any task, so the first successor passes the order test. */
        int64_t prev = -1;
        for (uint64_t e = from; e < to; e++) {
            uint32_t v = list[e];
            if (G_UNLIKELY(v >= n || (int64_t)v <= prev))
                return fail(r, error, byte_of(r, s_list, e),
                            v >= n ? "task %" G_GUINT64_FORMAT ": successor %u is not a task"
                                   : "task %" G_GUINT64_FORMAT
                                     ": successor %u out of order or repeated",
                            t, v);
            prev = v;
            in_degree[v]++;
            if (order && G_UNLIKELY(order[v] <= order[t]))
                return fail(r, error, byte_of(r, s_list, e),
                            "task %" G_GUINT64_FORMAT
                            ": successor %u does not come after it in the order section",
                            t, v);
        }
        ahead &= to == from || list[from] > t;
    }
    /* With the order checked, no edge can close a cycle. */
    *forward &= ahead || order;
    return TRUE;
}

/* The builder's graph rules (fennel_builder_finish): a start task has no predecessors and
 * every other task has some, `any` lies within 1..in-degree, and there is no cycle: proved
 * by the edges (all forward, or all up in the order section), else searched for by Kahn's
 * algorithm (the writer always gives the proof; a file without it is still checked). */
static gboolean check_graph(Reader *r, const uint32_t *in_degree, gboolean forward, GError **error)
{
    const uint8_t *type = ARRAY(r, FENNEL_FBIN_TYPE, uint8_t);
    const uint32_t *any = r->have[FENNEL_FBIN_ANY] ? ARRAY(r, FENNEL_FBIN_ANY, uint32_t) : NULL;
    uint64_t n = r->n;
    for (uint64_t t = 0; t < n; t++) {
        gboolean is_start = type[t] == FENNEL_TASK_START;
        if (G_UNLIKELY(is_start != (in_degree[t] == 0)))
            return fail(r, error, byte_of(r, FENNEL_FBIN_TYPE, t),
                        is_start ? "task %" G_GUINT64_FORMAT " is a start task with predecessors"
                                 : "task %" G_GUINT64_FORMAT
                                   " has no predecessors, and is not a start task",
                        t);
        if (any && G_UNLIKELY(any[t] > in_degree[t]))
            return fail(r, error, byte_of(r, FENNEL_FBIN_ANY, t),
                        "task %" G_GUINT64_FORMAT ": any %u, more than its %u predecessors", t,
                        any[t], in_degree[t]);
    }
    if (forward)
        return TRUE;
    uint32_t *remaining = g_memdup2(in_degree, sizeof(uint32_t) * (n + 1));
    uint32_t *stack = g_new(uint32_t, n + 1);
    uint64_t top = 0, ordered = 0;
    for (uint64_t t = 0; t < n; t++) {
        if (remaining[t] == 0)
            stack[top++] = (uint32_t)t;
    }
    const FennelEdgeIndex *start = ARRAY(r, FENNEL_FBIN_SUCC_START, FennelEdgeIndex);
    const uint32_t *succ = ARRAY(r, FENNEL_FBIN_SUCC, uint32_t);
    const FennelEdgeIndex *sstart = r->have[FENNEL_FBIN_START_SUCC]
                                        ? ARRAY(r, FENNEL_FBIN_START_SUCC_START, FennelEdgeIndex)
                                        : NULL;
    const uint32_t *ssucc = sstart ? ARRAY(r, FENNEL_FBIN_START_SUCC, uint32_t) : NULL;
    while (top > 0) {
        uint32_t t = stack[--top];
        ordered++;
        for (uint64_t e = start[t]; e < start[t + 1]; e++) {
            if (--remaining[succ[e]] == 0)
                stack[top++] = succ[e];
        }
        for (uint64_t e = sstart ? sstart[t] : 0; sstart && e < sstart[t + 1]; e++) {
            if (--remaining[ssucc[e]] == 0)
                stack[top++] = ssucc[e];
        }
    }
    uint64_t stuck = 0;
    while (ordered < n && remaining[stuck] == 0)
        stuck++;
    g_free(stack);
    g_free(remaining);
    if (ordered < n)
        return fail(r, error, byte_of(r, FENNEL_FBIN_SUCC_START, stuck),
                    "task %" G_GUINT64_FORMAT " lies on or behind a cycle of dependencies", stuck);
    return TRUE;
}

/* A text section: NUL-terminated strings of UTF-8 (names reach messages and JSON). */
static gboolean check_text(Reader *r, int s, GError **error)
{
    if (!r->have[s])
        return TRUE;
    const char *text = ARRAY(r, s, char);
    uint64_t length = r->count[s];
    if (length == 0 || text[length - 1] != '\0')
        return fail(r, error, r->at[s] + (length ? length - 1 : 0),
                    "%s: the text does not end with a NUL byte", sections[s].name);
    /* Names are nearly always ASCII, which a test of the high bits of eight bytes at a time
     * proves at memory speed; GLib's validator took as long on the names as the checksum on
     * the whole file (docs/PERFORMANCE.md). */
    uint64_t high = 0, i = 0;
    for (; i + 8 <= length; i += 8)
        high |= get64((const guint8 *)text + i);
    for (; i < length; i++)
        high |= (guint8)text[i];
    if ((high & 0x8080808080808080ull) == 0)
        return TRUE;
    /* The validator stops at each NUL between strings. */
    const char *at = text, *end = text + length - 1, *bad;
    while (!g_utf8_validate_len(at, (gsize)(end - at), &bad)) {
        if (*bad != '\0')
            return fail(r, error, r->at[s] + (uint64_t)(bad - text), "%s: not UTF-8",
                        sections[s].name);
        at = bad + 1;
    }
    return TRUE;
}

static char *text_of(const Reader *r, int s)
{
    return r->have[s] ? g_strdup(ARRAY(r, s, char)) : NULL;
}

FennelProgram *fennel_program_parse_binary(const char *name, GBytes *bytes,
                                           const FennelLimits *limits, GError **error)
{
    gsize length;
    const guint8 *data = g_bytes_get_data(bytes, &length);
    GBytes *aligned = NULL;
    if (((uintptr_t)data & 7) != 0) {
        /* The arrays are used in place: they must be aligned as in the file. */
        aligned = g_bytes_new(data, length);
        data = g_bytes_get_data(aligned, &length);
    }
    Reader r = {.file = name, .base = data ? data : (const guint8 *)"", .length = length};
    FennelProgram *p = NULL;
    uint32_t *in_degree = NULL;
    if (!read_header(&r, error))
        goto out;
    r.n = get32(r.base + 32);
    uint32_t n_ranks = get32(r.base + 36), processes = get32(r.base + 40);
    uint32_t n_blocks = get32(r.base + 44), root = get32(r.base + 48);
    uint32_t n_stage_marks = get32(r.base + 52);
    uint64_t n_edges = get64(r.base + 56);
    if (n_ranks == 0 || n_ranks >= FENNEL_ANY) {
        fail(&r, error, 36, "%u ranks", n_ranks);
        goto out;
    }
    if (processes == 0 || processes == FENNEL_NO_RANK) {
        fail(&r, error, 40, "%u processes", processes);
        goto out;
    }
    if (root != FENNEL_NO_RANK && root >= n_ranks) {
        fail(&r, error, 48, "root %u is outside 0..%u", root, n_ranks - 1);
        goto out;
    }
    if (!read_table(&r, n_stage_marks, error))
        goto out;
    /* A vector of blocks exactly when tasks carry them, of at most UINT32_MAX - 1 (the
     * builder's and the YAML reader's rule). */
    if ((n_blocks > 0) != r.have[FENNEL_FBIN_BLOCK_FIRST] || n_blocks == UINT32_MAX) {
        fail(&r, error, 44,
             r.have[FENNEL_FBIN_BLOCK_FIRST] ? "%u blocks" : "%u blocks, but no task carries any",
             n_blocks);
        goto out;
    }
    if (n_edges != r.count[FENNEL_FBIN_SUCC] +
                       (r.have[FENNEL_FBIN_START_SUCC] ? r.count[FENNEL_FBIN_START_SUCC] : 0)) {
        fail(&r, error, 56, "%" G_GUINT64_FORMAT " edges, but the sections hold %" G_GUINT64_FORMAT,
             n_edges,
             r.count[FENNEL_FBIN_SUCC] +
                 (r.have[FENNEL_FBIN_START_SUCC] ? r.count[FENNEL_FBIN_START_SUCC] : 0));
        goto out;
    }
    FennelLimits none = {0};
    if (!fennel_check_size(limits ? limits : &none, r.n, n_edges, n_ranks, processes, error)) {
        fennel_error_prefix_at(error, name, 0, 0);
        goto out;
    }
    if (!check_columns(&r, n_ranks, processes, n_blocks, error))
        goto out;
    in_degree = g_new0(uint32_t, (gsize)r.n + 1);
    gboolean forward = TRUE;
    if (!check_lists(&r, FENNEL_FBIN_SUCC_START, FENNEL_FBIN_SUCC, in_degree, &forward, error) ||
        (r.have[FENNEL_FBIN_START_SUCC] &&
         !check_lists(&r, FENNEL_FBIN_START_SUCC_START, FENNEL_FBIN_START_SUCC, in_degree, &forward,
                      error)) ||
        !check_graph(&r, in_degree, forward, error))
        goto out;
    for (int s = FENNEL_FBIN_NAME_TEXT; s <= FENNEL_FBIN_SCHEDULE; s++) {
        if (!check_text(&r, s, error))
            goto out;
    }
    if (r.have[FENNEL_FBIN_COLLECTIVE]) {
        /* A name, as the YAML reader takes it (letters, digits, dashes): verify looks it up. */
        const char *c = ARRAY(&r, FENNEL_FBIN_COLLECTIVE, char);
        gsize k = strspn(c, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-");
        if (k == 0 || c[k] != '\0') {
            fail(&r, error, r.at[FENNEL_FBIN_COLLECTIVE] + k,
                 "collective: not a collective's name");
            goto out;
        }
    }
    if (r.have[FENNEL_FBIN_NAME_AT]) {
        const uint64_t *at = ARRAY(&r, FENNEL_FBIN_NAME_AT, uint64_t);
        const char *text = ARRAY(&r, FENNEL_FBIN_NAME_TEXT, char);
        for (uint64_t t = 0; t < r.n; t++) {
            if (at[t] != NO_NAME && at[t] >= r.count[FENNEL_FBIN_NAME_TEXT]) {
                fail(&r, error, byte_of(&r, FENNEL_FBIN_NAME_AT, t),
                     "task %" G_GUINT64_FORMAT ": its name at %" G_GUINT64_FORMAT
                     " lies past the %" G_GUINT64_FORMAT " bytes of names",
                     t, at[t], r.count[FENNEL_FBIN_NAME_TEXT]);
                goto out;
            }
            /* A name starts a string of the text, which is UTF-8 as a whole; from inside
             * one, it could start in the middle of a character. */
            if (at[t] != NO_NAME && at[t] > 0 && text[at[t] - 1] != '\0') {
                fail(&r, error, byte_of(&r, FENNEL_FBIN_NAME_AT, t),
                     "task %" G_GUINT64_FORMAT ": its name at %" G_GUINT64_FORMAT
                     " does not start a name",
                     t, at[t]);
                goto out;
            }
        }
    }

    /* Checked: the program points into the bytes and keeps them. */
    p = g_new0(FennelProgram, 1);
    p->n_tasks = r.n;
    p->n_ranks = n_ranks;
    p->processes = processes;
    p->n_edges = n_edges;
    p->n_blocks = n_blocks;
    p->root = root;
    p->backing = g_bytes_ref(aligned ? aligned : bytes);
#define COLUMN(field, s, type) p->field = r.have[s] ? (type *)ARRAY(&r, s, type) : NULL
    COLUMN(type, FENNEL_FBIN_TYPE, uint8_t);
    COLUMN(flags, FENNEL_FBIN_FLAGS, uint8_t);
    COLUMN(rank, FENNEL_FBIN_RANK, uint32_t);
    COLUMN(peer, FENNEL_FBIN_PEER, uint32_t);
    COLUMN(amount, FENNEL_FBIN_AMOUNT, int64_t);
    COLUMN(succ_start, FENNEL_FBIN_SUCC_START, FennelEdgeIndex);
    COLUMN(succ, FENNEL_FBIN_SUCC, uint32_t);
    COLUMN(request, FENNEL_FBIN_REQUEST, int64_t);
    COLUMN(tag, FENNEL_FBIN_TAG, uint32_t);
    COLUMN(pin, FENNEL_FBIN_PIN, uint32_t);
    COLUMN(any, FENNEL_FBIN_ANY, uint32_t);
    COLUMN(start_succ_start, FENNEL_FBIN_START_SUCC_START, FennelEdgeIndex);
    COLUMN(start_succ, FENNEL_FBIN_START_SUCC, uint32_t);
    COLUMN(block_first, FENNEL_FBIN_BLOCK_FIRST, uint32_t);
    COLUMN(block_count, FENNEL_FBIN_BLOCK_COUNT, uint32_t);
    COLUMN(line, FENNEL_FBIN_LINE, uint32_t);
    COLUMN(col, FENNEL_FBIN_COL, uint32_t);
    if (r.have[FENNEL_FBIN_STAGE_FIRST]) {
        p->n_stage_marks = n_stage_marks;
        COLUMN(stage_first, FENNEL_FBIN_STAGE_FIRST, uint32_t);
        COLUMN(stage_number, FENNEL_FBIN_STAGE_NUMBER, uint32_t);
    }
#undef COLUMN
    if (r.have[FENNEL_FBIN_NAME_AT]) {
        /* Made into task_name on the first request (program.h). */
        p->name_at = ARRAY(&r, FENNEL_FBIN_NAME_AT, uint64_t);
        p->name_text = ARRAY(&r, FENNEL_FBIN_NAME_TEXT, char);
    }
    p->name = text_of(&r, FENNEL_FBIN_PROGRAM_NAME);
    /* Positions point into the file the program was converted from; without them,
     * messages name this one. */
    p->source = r.have[FENNEL_FBIN_SOURCE] ? text_of(&r, FENNEL_FBIN_SOURCE) : g_strdup(name);
    p->collective = text_of(&r, FENNEL_FBIN_COLLECTIVE);
    p->schedule = text_of(&r, FENNEL_FBIN_SCHEDULE);
out:
    g_free(in_degree);
    if (aligned)
        g_bytes_unref(aligned);
    return p;
}

FennelProgram *fennel_program_read_binary(const char *file, const FennelLimits *limits,
                                          GError **error)
{
    GError *why = NULL;
    GMappedFile *mapped = g_mapped_file_new(file, FALSE, &why);
    if (mapped == NULL) {
        char *reason = g_strdup(why->message);
        /* GLib's message names the file and its reason; keep the reason alone, as
         * fennel_read_input words it. */
        const char *colon = strrchr(reason, ':');
        const char *tail = colon ? colon + 2 : reason;
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_IO, "%s: cannot read: %c%s", file,
                    g_ascii_tolower(tail[0]), tail[0] ? tail + 1 : "");
        g_free(reason);
        g_error_free(why);
        return NULL;
    }
    GBytes *bytes = g_mapped_file_get_bytes(mapped);
    g_mapped_file_unref(mapped);
    FennelProgram *p = fennel_program_parse_binary(file, bytes, limits, error);
    g_bytes_unref(bytes);
    return p;
}
