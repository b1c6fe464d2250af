/* Chunk values of the symbolic checks (chunks_private.h, docs/FORMATS.md). */
#include "chunks_private.h"

#include "capacity.h"
#include "errors.h"

#include <string.h>

typedef struct {
    uint32_t chunk;
    uint32_t set; /* offset of its rank set in sets */
} Value;

FennelChunksColl fennel__chunks_coll(const char *name)
{
    if (strcmp(name, "allreduce") == 0)
        return FENNEL_CHUNKS_ALLREDUCE;
    if (strcmp(name, "allgather") == 0)
        return FENNEL_CHUNKS_ALLGATHER;
    if (strcmp(name, "reducescatter") == 0 || strcmp(name, "reduce_scatter") == 0)
        return FENNEL_CHUNKS_REDUCE_SCATTER;
    if (strcmp(name, "alltoall") == 0)
        return FENNEL_CHUNKS_ALLTOALL;
    return FENNEL_CHUNKS_NONE;
}

/* Bytes of n values with their sets. */
static uint64_t bytes_of(const FennelChunks *c, uint64_t n)
{
    return n * (sizeof(Value) + (uint64_t)c->words * sizeof(uint64_t));
}

/* Whether n values fit: checked against the memory once the room checked so far is used
 * up, for twice what they need (the arrays double as they grow, the old copy held). */
static gboolean fits(FennelChunks *c, uint64_t n)
{
    uint64_t need = bytes_of(c, n);
    if (need <= c->room)
        return TRUE;
    if (c->refused)
        return FALSE;
    char *what = g_strdup_printf("the chunk values of a check over %u ranks", c->ranks);
    gboolean ok = fennel_check_memory(NULL, 2 * need, what, &c->refused);
    g_free(what);
    if (ok)
        c->room = 2 * need;
    return ok;
}

void fennel__chunks_init(FennelChunks *c, uint32_t ranks, guint reserve)
{
    c->ranks = ranks;
    c->words = (ranks + 63) / 64;
    c->combines = 0;
    c->room = 0;
    c->refused = NULL;
    if ((uint64_t)reserve * c->words > G_MAXUINT / 2 || !fits(c, reserve)) {
        /* Only room asked for ahead: the values are refused if they are made. */
        g_clear_error(&c->refused);
        reserve = 1;
    }
    c->values = g_array_sized_new(FALSE, FALSE, sizeof(Value), reserve);
    c->sets = g_array_sized_new(FALSE, FALSE, sizeof(uint64_t), reserve * c->words);
    Value nothing = {UINT32_MAX, 0};
    g_array_append_val(c->values, nothing);
    g_array_set_size(c->sets, c->words);
}

void fennel__chunks_clear(FennelChunks *c)
{
    g_array_unref(c->values);
    g_array_unref(c->sets);
    g_clear_error(&c->refused);
}

gboolean fennel__chunks_refused(FennelChunks *c, const char *file, GError **error)
{
    if (c->refused == NULL)
        return FALSE;
    g_propagate_prefixed_error(error, c->refused, "%s: ", file);
    c->refused = NULL;
    return TRUE;
}

gboolean fennel__chunks_expect(FennelChunks *c, uint64_t n, const char *file, GError **error)
{
    return fits(c, (uint64_t)c->values->len + n) || !fennel__chunks_refused(c, file, error);
}

static const uint64_t *set_of(const FennelChunks *c, uint32_t value)
{
    const Value *v = &g_array_index(c->values, Value, value);
    return &g_array_index(c->sets, uint64_t, v->set);
}

static uint32_t new_value(FennelChunks *c, uint32_t chunk, const uint64_t *set)
{
    if (!fits(c, (uint64_t)c->values->len + 1))
        return 0;
    Value v = {chunk, c->sets->len};
    g_array_append_vals(c->sets, set, c->words);
    g_array_append_val(c->values, v);
    return c->values->len - 1;
}

uint32_t fennel__chunks_input(FennelChunks *c, uint32_t chunk, uint32_t rank)
{
    uint64_t own[c->words];
    memset(own, 0, sizeof own);
    own[rank / 64] |= 1ull << (rank % 64);
    return new_value(c, chunk, own);
}

uint32_t fennel__chunks_chunk(const FennelChunks *c, uint32_t value)
{
    return g_array_index(c->values, Value, value).chunk;
}

/* "0, 2-5" */
static void append_ranks(GString *s, const uint64_t *set, uint32_t n)
{
    gboolean first = TRUE;
    for (uint32_t r = 0; r < n; r++) {
        if (!((set[r / 64] >> (r % 64)) & 1))
            continue;
        uint32_t end = r;
        while (end + 1 < n && ((set[(end + 1) / 64] >> ((end + 1) % 64)) & 1))
            end++;
        g_string_append_printf(s, first ? "%u" : ", %u", r);
        if (end > r)
            g_string_append_printf(s, "-%u", end);
        first = FALSE;
        r = end;
    }
}

uint32_t fennel__chunks_combine(FennelChunks *c, uint32_t x, uint32_t y, gboolean *different,
                                GString *twice)
{
    *different = fennel__chunks_chunk(c, x) != fennel__chunks_chunk(c, y);
    if (*different)
        return 0;
    const uint64_t *sx = set_of(c, x), *sy = set_of(c, y);
    uint64_t both[c->words], all[c->words];
    gboolean overlap = FALSE;
    for (uint32_t w = 0; w < c->words; w++) {
        both[w] = sx[w] & sy[w];
        all[w] = sx[w] | sy[w];
        overlap |= both[w] != 0;
    }
    if (overlap) {
        append_ranks(twice, both, c->ranks);
        return 0;
    }
    c->combines++;
    return new_value(c, fennel__chunks_chunk(c, x), all);
}

void fennel__chunks_expected(const FennelChunks *c, FennelChunksColl coll, uint32_t g, uint32_t off,
                             uint32_t k, uint32_t grid, uint32_t *chunk, uint64_t *set)
{
    memset(set, 0, c->words * sizeof *set);
    *chunk = 0;
    switch (coll) {
    case FENNEL_CHUNKS_ALLREDUCE:
    case FENNEL_CHUNKS_REDUCE_SCATTER:
        *chunk = coll == FENNEL_CHUNKS_ALLREDUCE ? off : g * k + off;
        /* Every rank: whole words, then the rest (a loop per rank made a check of the
         * output cost ranks x chunks). */
        for (uint32_t w = 0; w < c->ranks / 64; w++)
            set[w] = ~0ull;
        if (c->ranks % 64)
            set[c->ranks / 64] = (1ull << (c->ranks % 64)) - 1;
        return;
    case FENNEL_CHUNKS_ALLGATHER:
        *chunk = off;
        set[(off / k) / 64] |= 1ull << ((off / k) % 64);
        return;
    case FENNEL_CHUNKS_ALLTOALL:
        *chunk = (off / k) * grid + g * k + off % k;
        set[(off / k) / 64] |= 1ull << ((off / k) % 64);
        return;
    case FENNEL_CHUNKS_NONE:
        break;
    }
}

uint32_t fennel__chunks_input_chunk(FennelChunksColl coll, uint32_t g, uint32_t off, uint32_t k,
                                    uint32_t grid)
{
    switch (coll) {
    case FENNEL_CHUNKS_ALLGATHER:
        return g * k + off;
    case FENNEL_CHUNKS_ALLTOALL:
        return g * grid + off;
    default:
        return off;
    }
}

gboolean fennel__chunks_mismatch(const FennelChunks *c, uint32_t value, uint32_t chunk,
                                 const uint64_t *want, GString *s)
{
    if (value == 0) {
        g_string_append_printf(s, "is never written; it should hold chunk %u", chunk);
        return TRUE;
    }
    if (fennel__chunks_chunk(c, value) != chunk) {
        g_string_append_printf(s, "holds chunk %u, not chunk %u (a wrong offset)",
                               fennel__chunks_chunk(c, value), chunk);
        return TRUE;
    }
    const uint64_t *have = set_of(c, value);
    uint64_t missing[c->words], extra[c->words];
    gboolean lacks = FALSE, more = FALSE;
    for (uint32_t w = 0; w < c->words; w++) {
        missing[w] = want[w] & ~have[w];
        extra[w] = have[w] & ~want[w];
        lacks |= missing[w] != 0;
        more |= extra[w] != 0;
    }
    if (lacks) {
        g_string_append_printf(s, "(chunk %u) lacks contributions from ranks ", chunk);
        append_ranks(s, missing, c->ranks);
    } else if (more) {
        g_string_append_printf(s, "(chunk %u) holds data of ranks ", chunk);
        append_ranks(s, extra, c->ranks);
        g_string_append(s, " it should not");
    }
    return lacks || more;
}
