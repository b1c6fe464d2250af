/* The measurement readers (measure.h): line by line, a token's position kept for errors.
 * Each tool's output is read as its documentation and real outputs show it (docs/
 * CALIBRATION.md, Inputs): leading indentation, warnings and launcher lines between rows,
 * several tables in one file, and columns fennel does not use are all accepted. */
#include "measure.h"

#include "errors.h"
#include "input.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const fennel_measure_formats[] = {
    "csv", "osu", "imb", "nccl", "netgauge", "calibrate", "mpi-latency", "nxnlatbw", NULL};

typedef struct {
    const char *start;
    unsigned len, col; /* col: 1-based */
} Token;

#define MAX_TOKENS 32

typedef struct {
    const char *file;
    const char *next, *end;
    const char *text; /* the current line */
    unsigned len, number;
    Token tok[MAX_TOKENS];
    unsigned n_tok;
} Reader;

static gboolean next_line(Reader *r)
{
    if (r->next >= r->end)
        return FALSE;
    const char *nl = memchr(r->next, '\n', (size_t)(r->end - r->next));
    const char *stop = nl ? nl : r->end;
    r->text = r->next;
    r->len = (unsigned)(stop - r->next);
    if (r->len && r->text[r->len - 1] == '\r')
        r->len--;
    r->next = nl ? nl + 1 : r->end;
    r->number++;
    return TRUE;
}

/* Splits the current line at whitespace (and at commas with `comma`). */
static void split(Reader *r, gboolean comma)
{
    r->n_tok = 0;
    unsigned i = 0;
    while (i < r->len && r->n_tok < MAX_TOKENS) {
        while (i < r->len && (g_ascii_isspace(r->text[i]) || (comma && r->text[i] == ',')))
            i++;
        if (i >= r->len)
            break;
        unsigned s = i;
        while (i < r->len && !g_ascii_isspace(r->text[i]) && !(comma && r->text[i] == ','))
            i++;
        r->tok[r->n_tok++] = (Token){r->text + s, i - s, s + 1};
    }
}

/* The line without leading blanks, as a NUL-terminated copy (g_free it). */
static char *trimmed(const Reader *r)
{
    unsigned i = 0;
    while (i < r->len && g_ascii_isspace(r->text[i]))
        i++;
    return g_strndup(r->text + i, r->len - i);
}

static gboolean fail(GError **error, const Reader *r, unsigned col, const char *format, ...)
    G_GNUC_PRINTF(4, 5);

static gboolean fail(GError **error, const Reader *r, unsigned col, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    char *text = g_strdup_vprintf(format, args);
    va_end(args);
    fennel_error_at(error, r->file, r->number, col, "%s", text);
    g_free(text);
    return FALSE;
}

/* Whether the token starts with `prefix` (tokens are not NUL-terminated). */
static gboolean token_starts(const Token *t, const char *prefix)
{
    size_t n = strlen(prefix);
    return t->len >= n && strncmp(t->start, prefix, n) == 0;
}

static gboolean is_digits(const Token *t)
{
    for (unsigned i = 0; i < t->len; i++) {
        if (!g_ascii_isdigit(t->start[i]))
            return FALSE;
    }
    return t->len > 0;
}

/* Plain decimals ("1.07", "290.43", "1004"), the bulk of every table, exactly: an integer
 * mantissa below 2^53 and a power of ten up to 10^22 are both exact doubles, so their
 * quotient is the correctly rounded value, what strtod gives, at a fraction of its cost.
 * Anything else (exponents, long mantissas) goes to g_ascii_strtod. */
static gboolean plain_decimal(const char *p, unsigned len, double *out)
{
    static const double pow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                   1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                   1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    uint64_t mantissa = 0;
    unsigned digits = 0, decimals = 0, i = 0;
    gboolean point = FALSE;
    for (; i < len; i++) {
        char c = p[i];
        if (c >= '0' && c <= '9') {
            if (++digits > 15)
                return FALSE;
            mantissa = mantissa * 10 + (uint64_t)(c - '0');
            decimals += point;
        } else if (c == '.' && !point) {
            point = TRUE;
        } else {
            return FALSE;
        }
    }
    if (digits == 0 || decimals >= G_N_ELEMENTS(pow10))
        return FALSE;
    *out = (double)mantissa / pow10[decimals];
    return TRUE;
}

/* A finite number (NaN too with `nan_ok`: Netgauge's "-nan"). */
static gboolean number(GError **error, const Reader *r, const Token *t, gboolean nan_ok,
                       double *out)
{
    if (plain_decimal(t->start, t->len, out))
        return TRUE;
    char buf[64];
    if (t->len >= sizeof buf)
        return fail(error, r, t->col, "expected a number, got a %u-character word", t->len);
    memcpy(buf, t->start, t->len);
    buf[t->len] = '\0';
    char *stop;
    double v = g_ascii_strtod(buf, &stop);
    if (nan_ok && (strcmp(buf, "-nan") == 0 || strcmp(buf, "nan") == 0)) {
        *out = NAN;
        return TRUE;
    }
    if (stop == buf || *stop != '\0' || !isfinite(v))
        return fail(error, r, t->col, "expected a number, got '%s'", buf);
    *out = v;
    return TRUE;
}

/* A time: a number that is not negative (a tool never prints one; a negative sample would
 * pull a fit below zero far from where it came from). */
static gboolean time_value(GError **error, const Reader *r, const Token *t, double *out)
{
    if (!number(error, r, t, FALSE, out))
        return FALSE;
    if (*out < 0)
        return fail(error, r, t->col, "a time cannot be negative, got '%.*s'", (int)t->len,
                    t->start);
    return TRUE;
}

/* A row with fewer columns than its table's header asks for: cut short (a truncated copy, a
 * run killed while writing), refused rather than read as another row. */
static gboolean cut_short(GError **error, const Reader *r, unsigned need)
{
    return fail(error, r, r->len + 1, "a row cut short: expected %u columns, got %u", need,
                r->n_tok);
}

static gboolean whole(GError **error, const Reader *r, const Token *t, int64_t max, int64_t *out)
{
    if (!is_digits(t) || t->len > 18)
        return fail(error, r, t->col, "expected a whole number, got '%.*s'", (int)t->len, t->start);
    int64_t v = 0;
    for (unsigned i = 0; i < t->len; i++)
        v = v * 10 + (t->start[i] - '0');
    if (v > max)
        return fail(error, r, t->col, "%" G_GINT64_FORMAT " is too large", v);
    *out = v;
    return TRUE;
}

static FennelMeasureTable *table_new(const Reader *r, const char *tool, FennelMeasureKind kind)
{
    FennelMeasureTable *t = g_new0(FennelMeasureTable, 1);
    t->file = g_strdup(r->file);
    t->tool = g_strdup(tool);
    t->kind = kind;
    t->line = r->number;
    t->samples = g_array_new(FALSE, FALSE, sizeof(FennelSample));
    return t;
}

void fennel_measure_table_free(gpointer p)
{
    FennelMeasureTable *t = p;
    if (t == NULL)
        return;
    g_free(t->file);
    g_free(t->tool);
    g_free(t->collective);
    g_free(t->generator);
    g_free(t->schedule);
    g_array_free(t->samples, TRUE);
    if (t->loggp)
        g_array_free(t->loggp, TRUE);
    g_free(t);
}

static FennelSample sample(const Reader *r, int64_t bytes)
{
    return (FennelSample){.bytes = bytes,
                          .ns = NAN,
                          .min_ns = NAN,
                          .max_ns = NAN,
                          .in_place_ns = NAN,
                          .line = r->number};
}

/* A row's size: a whole number above the previous row's (equal too with `equal_ok`). */
static gboolean row_size(GError **error, const Reader *r, const FennelMeasureTable *t,
                         gboolean equal_ok, int64_t *bytes)
{
    if (!whole(error, r, &r->tok[0], INT64_MAX / 2, bytes))
        return FALSE;
    if (t->samples->len) {
        int64_t prev = g_array_index(t->samples, FennelSample, t->samples->len - 1).bytes;
        if (*bytes < prev || (*bytes == prev && !equal_ok))
            return fail(error, r, r->tok[0].col,
                        "size %" G_GINT64_FORMAT " after %" G_GINT64_FORMAT
                        ": sizes must increase within a table",
                        *bytes, prev);
    }
    return TRUE;
}

/* Splits the current line at commas, keeping empty fields, blanks around them trimmed; a
 * field in double quotes may hold commas (a schedule such as "a2,a2"). */
static void split_fields(Reader *r)
{
    r->n_tok = 0;
    unsigned i = 0;
    while (r->n_tok < MAX_TOKENS) {
        unsigned s = i;
        while (i < r->len && g_ascii_isspace(r->text[i]))
            i++;
        if (i < r->len && r->text[i] == '"') {
            unsigned q = i + 1;
            const char *close = memchr(r->text + q, '"', r->len - q);
            if (close) {
                r->tok[r->n_tok++] = (Token){r->text + q, (unsigned)(close - r->text) - q, q + 1};
                i = (unsigned)(close - r->text) + 1;
                while (i < r->len && r->text[i] != ',')
                    i++;
                if (i >= r->len)
                    break;
                i++;
                continue;
            }
        }
        i = s;
        while (i < r->len && r->text[i] != ',')
            i++;
        unsigned a = s, b = i;
        while (a < b && g_ascii_isspace(r->text[a]))
            a++;
        while (b > a && g_ascii_isspace(r->text[b - 1]))
            b--;
        r->tok[r->n_tok++] = (Token){r->text + a, b - a, a + 1};
        if (i >= r->len)
            break;
        i++;
    }
}

static gboolean token_is(const Token *t, const char *word)
{
    return t->len == strlen(word) && strncmp(t->start, word, t->len) == 0;
}

/* A comparison CSV: generator, ranks, size_bytes, schedule (may be empty or absent) and
 * time_ns per row, in any column order; a new table starts where generator, ranks or
 * schedule change. */
static gboolean read_compare_csv(Reader *r, GPtrArray *tables, GError **error)
{
    int col[5] = {-1, -1, -1, -1, -1};
    static const char *const names[] = {"generator", "ranks", "size_bytes", "schedule", "time_ns"};
    for (unsigned i = 0; i < r->n_tok; i++) {
        for (int k = 0; k < 5; k++) {
            if (token_is(&r->tok[i], names[k]))
                col[k] = (int)i;
        }
    }
    for (int k = 0; k < 5; k++) {
        if (col[k] < 0 && k != 3)
            return fail(error, r, 1,
                        "a comparison CSV needs the columns generator, ranks, size_bytes and "
                        "time_ns (and schedule)");
    }
    unsigned need = 0;
    for (int k = 0; k < 5; k++)
        need = MAX(need, (unsigned)(col[k] + 1));
    FennelMeasureTable *t = NULL;
    while (next_line(r)) {
        split_fields(r);
        if (r->len == 0 || r->tok[0].start[0] == '#')
            continue;
        if (r->n_tok < need)
            return cut_short(error, r, need);
        int64_t ranks, bytes;
        const Token *gen = &r->tok[col[0]];
        if (gen->len == 0)
            return fail(error, r, gen->col, "generator: empty");
        if (!whole(error, r, &r->tok[col[1]], UINT32_MAX, &ranks) ||
            !whole(error, r, &r->tok[col[2]], INT64_MAX / 2, &bytes))
            return FALSE;
        char *g = g_strndup(gen->start, gen->len);
        char *schedule = col[3] >= 0 && r->tok[col[3]].len
                             ? g_strndup(r->tok[col[3]].start, r->tok[col[3]].len)
                             : NULL;
        if (t == NULL || strcmp(t->generator, g) != 0 || t->ranks != ranks ||
            g_strcmp0(t->schedule, schedule) != 0) {
            t = table_new(r, "comparison CSV", FENNEL_MEASURE_COLLECTIVE);
            t->generator = g_strdup(g);
            t->schedule = g_strdup(schedule);
            t->ranks = (uint32_t)ranks;
            g_ptr_array_add(tables, t);
        }
        g_free(g);
        g_free(schedule);
        FennelSample s = sample(r, bytes);
        if (!time_value(error, r, &r->tok[col[4]], &s.ns))
            return FALSE;
        g_array_append_val(t->samples, s);
    }
    if (t == NULL)
        return fail(error, r, 1, "the table has no rows");
    return TRUE;
}

/* fennel's CSV: a header naming size_bytes and time_ns (and targets for the multicast
 * experiment), any other columns ignored, then one sample per row. */
static gboolean read_csv(Reader *r, GPtrArray *tables, GError **error)
{
    int size_col = -1, time_col = -1, targets_col = -1;
    while (next_line(r)) {
        split(r, TRUE);
        if (r->n_tok == 0 || r->tok[0].start[0] == '#')
            continue;
        if (token_is(&r->tok[0], "generator") || g_strstr_len(r->text, r->len, "generator")) {
            split_fields(r);
            return read_compare_csv(r, tables, error);
        }
        for (unsigned i = 0; i < r->n_tok; i++) {
            char *name = g_strstrip(g_strndup(r->tok[i].start, r->tok[i].len));
            if (strcmp(name, "size_bytes") == 0)
                size_col = (int)i;
            else if (strcmp(name, "time_ns") == 0)
                time_col = (int)i;
            else if (strcmp(name, "targets") == 0)
                targets_col = (int)i;
            g_free(name);
        }
        break;
    }
    if (size_col < 0 || time_col < 0)
        return fail(error, r, 1, "a fennel CSV needs the columns size_bytes and time_ns");
    FennelMeasureTable *t = table_new(
        r, "fennel CSV", targets_col >= 0 ? FENNEL_MEASURE_MULTICAST : FENNEL_MEASURE_ONE_WAY);
    g_ptr_array_add(tables, t);
    unsigned need = (unsigned)MAX(MAX(size_col, time_col), targets_col) + 1;
    while (next_line(r)) {
        split(r, TRUE);
        if (r->n_tok == 0 || r->tok[0].start[0] == '#')
            continue;
        if (r->n_tok < need)
            return cut_short(error, r, need);
        int64_t bytes, targets = 0;
        if (!whole(error, r, &r->tok[size_col], INT64_MAX / 2, &bytes))
            return FALSE;
        if (targets_col >= 0 && !whole(error, r, &r->tok[targets_col], UINT32_MAX, &targets))
            return FALSE;
        if (targets_col >= 0 && targets < 1)
            return fail(error, r, r->tok[targets_col].col, "targets must be at least 1");
        FennelSample s = sample(r, bytes);
        s.targets = (uint32_t)targets;
        if (!time_value(error, r, &r->tok[time_col], &s.ns))
            return FALSE;
        g_array_append_val(t->samples, s);
    }
    if (t->samples->len == 0)
        return fail(error, r, 1, "the table has no rows");
    return TRUE;
}

/* The collectives whose names OSU and IMB print, as fennel's collective names. */
static const char *collective_name(const char *word)
{
    static const char *const names[] = {"allreduce", "bcast",         "broadcast", "allgather",
                                        "alltoall",  "reduce",        "gather",    "scatter",
                                        "barrier",   "allgatherv",    "alltoallv", "gatherv",
                                        "scatterv",  "reduce_scatter"};
    /* OSU spells the all-to-alls "All-to-All", "All-to-Allv", "All-to-Allw". */
    static const char *const osu[][2] = {
        {"All-to-All", "alltoall"}, {"All-to-Allv", "alltoallv"}, {"All-to-Allw", "alltoallw"}};
    for (size_t i = 0; i < G_N_ELEMENTS(names); i++) {
        if (g_ascii_strcasecmp(word, names[i]) == 0)
            return strcmp(names[i], "broadcast") == 0 ? "bcast" : names[i];
    }
    for (size_t i = 0; i < G_N_ELEMENTS(osu); i++) {
        if (g_ascii_strcasecmp(word, osu[i][0]) == 0)
            return osu[i][1];
    }
    return NULL;
}

/* An OSU title ("# OSU MPI Latency Test v5.8") as a table: the point-to-point latency tests
 * are one-way times (the half round trip), "NAME Latency Test" of a collective its time. */
static FennelMeasureTable *osu_table(const Reader *r, const char *title)
{
    /* The words of its first 256 bytes: a title is a few words, and a longer line (a
     * hostile 100 MB one) is not split into millions of strings. */
    char *head = g_strndup(title, 256);
    char **words = g_strsplit_set(head, " \t", -1);
    g_free(head);
    GString *tool = g_string_new("osu");
    FennelMeasureKind kind = FENNEL_MEASURE_OTHER;
    const char *coll = NULL;
    int n = 0;
    char *list[16];
    for (int i = 0; words[i] && n < 16; i++) {
        if (*words[i] && strcmp(words[i], "#") != 0 && strcmp(words[i], "OSU") != 0)
            list[n++] = words[i];
    }
    /* list: [MPI|MPI-CUDA|One Sided MPI_Put ...] [Non-blocking] NAME ... Test vX */
    int latency = -1;
    for (int i = 0; i < n; i++) {
        if (g_ascii_strcasecmp(list[i], "latency") == 0 && i + 1 < n &&
            strcmp(list[i + 1], "Test") == 0)
            latency = i;
    }
    /* The all-to-all tests name themselves "All-to-All Personalized Exchange Latency Test"
     * (and All-to-Allv, All-to-Allw): the collective is the word before "Personalized". */
    int name_at = latency - 1;
    if (latency >= 3 && strcmp(list[latency - 1], "Exchange") == 0 &&
        strcmp(list[latency - 2], "Personalized") == 0)
        name_at = latency - 3;
    if (latency >= 1) {
        const char *before = list[name_at];
        gboolean nonblocking =
            name_at >= 1 && g_ascii_strcasecmp(list[name_at - 1], "Non-blocking") == 0;
        if (strncmp(before, "MPI", 3) == 0 &&
            (strcmp(before, "MPI") == 0 || strcmp(before, "MPI-CUDA") == 0)) {
            kind = FENNEL_MEASURE_ONE_WAY;
            g_string_append(tool, "_latency");
        } else if (strcmp(before, "MPI_Put") == 0 || strcmp(before, "MPI_Get") == 0) {
            kind = FENNEL_MEASURE_ONE_WAY;
            g_string_append_printf(tool, "_%s_latency", before[4] == 'P' ? "put" : "get");
        } else if ((coll = collective_name(before)) != NULL) {
            kind = nonblocking ? FENNEL_MEASURE_OTHER : FENNEL_MEASURE_COLLECTIVE;
            g_string_append_printf(tool, "_%s%s", nonblocking ? "i" : "", coll);
        }
    }
    /* "MPI Bandwidth Test" and "MPI Bi-Directional Bandwidth Test" (and MPI-CUDA): a window
     * of back-to-back messages, read as the time per message (docs/CALIBRATION.md). */
    for (int i = 1; kind == FENNEL_MEASURE_OTHER && i + 1 < n; i++) {
        if (strcmp(list[i], "Bandwidth") != 0 || strcmp(list[i + 1], "Test") != 0)
            continue;
        gboolean bi = g_ascii_strcasecmp(list[i - 1], "Bi-Directional") == 0;
        const char *api = list[bi ? MAX(i - 2, 0) : i - 1];
        if (strcmp(api, "MPI") == 0 || strcmp(api, "MPI-CUDA") == 0) {
            kind = FENNEL_MEASURE_BANDWIDTH;
            g_string_append(tool, bi ? "_bibw" : "_bw");
        }
    }
    if (kind == FENNEL_MEASURE_OTHER && coll == NULL) {
        g_string_assign(tool, "OSU");
        for (int i = 0; i < n && strcmp(list[i], "Test") != 0; i++)
            g_string_append_printf(tool, " %s", list[i]);
    }
    FennelMeasureTable *t = table_new(r, tool->str, kind);
    if (kind == FENNEL_MEASURE_COLLECTIVE)
        t->collective = g_strdup(coll);
    g_string_free(tool, TRUE);
    g_strfreev(words);
    return t;
}

/* The unit of a header's time columns: "(us)" or "[usec]" microseconds, "(ms)" milliseconds,
 * "(ns)" nanoseconds; as nanoseconds per unit, 0 when the header names no time. */
static double header_unit(const char *header)
{
    if (strstr(header, "(us)") || strstr(header, "[usec]") || strstr(header, "(usec)"))
        return 1e3;
    if (strstr(header, "(ms)") || strstr(header, "[msec]"))
        return 1e6;
    if (strstr(header, "(ns)") || strstr(header, "[nsec]"))
        return 1;
    return 0;
}

static gboolean end_table(GError **error, const Reader *r, FennelMeasureTable *t,
                          unsigned header_line)
{
    if (t == NULL || t->samples->len > 0 || header_line == 0 || t->kind == FENNEL_MEASURE_OTHER)
        return TRUE;
    fennel_error_at(error, r->file, header_line, 1, "the %s table has no rows", t->tool);
    return FALSE;
}

/* OSU Micro-Benchmarks: a title, a `# Size` header, rows of a size and its columns. With
 * -f/--full the columns are Avg, Min, Max latency and Iterations. */
static gboolean read_osu(Reader *r, GPtrArray *tables, GError **error)
{
    FennelMeasureTable *t = NULL;
    unsigned header_line = 0;
    double unit = 0;
    gboolean full = FALSE;
    while (next_line(r)) {
        char *line = trimmed(r);
        if (g_str_has_prefix(line, "# OSU ")) {
            if (!end_table(error, r, t, header_line)) {
                g_free(line);
                return FALSE;
            }
            t = osu_table(r, line);
            g_ptr_array_add(tables, t);
            header_line = 0;
        } else if (t && (g_str_has_prefix(line, "# Size") || g_str_has_prefix(line, "#Size"))) {
            header_line = r->number;
            unit = header_unit(line);
            full = strstr(line, "Min Latency") != NULL;
            if (t->kind == FENNEL_MEASURE_BANDWIDTH)
                unit = strstr(line, "(MB/s)") ? 1e3 : 0; /* ns per byte at 1 MB/s */
            if (unit == 0)
                t->kind = FENNEL_MEASURE_OTHER; /* message rates, other units */
        } else if (t && header_line) {
            split(r, FALSE);
            if (r->n_tok >= 1 && is_digits(&r->tok[0]) && t->kind != FENNEL_MEASURE_OTHER) {
                unsigned need = full ? 4 : 2;
                gboolean ok = r->n_tok >= need || cut_short(error, r, need);
                int64_t bytes = 0;
                ok = ok && row_size(error, r, t, FALSE, &bytes);
                FennelSample s = sample(r, bytes);
                if (ok && t->kind == FENNEL_MEASURE_BANDWIDTH) {
                    /* MB/s over a window of messages of s bytes: s / bandwidth per message,
                     * twice that for osu_bibw, whose bandwidth counts both directions. */
                    double mbps;
                    ok = number(error, r, &r->tok[1], FALSE, &mbps);
                    if (ok && mbps <= 0 && bytes > 0)
                        ok = fail(error, r, r->tok[1].col,
                                  "a bandwidth must be positive, got '%.*s'", (int)r->tok[1].len,
                                  r->tok[1].start);
                    if (ok && bytes > 0) {
                        s.ns = (double)bytes * unit / mbps;
                        if (g_str_has_suffix(t->tool, "bibw"))
                            s.ns *= 2;
                        g_array_append_val(t->samples, s);
                    }
                } else if (ok) {
                    ok = time_value(error, r, &r->tok[1], &s.ns);
                    if (ok && full)
                        ok = time_value(error, r, &r->tok[2], &s.min_ns) &&
                             time_value(error, r, &r->tok[3], &s.max_ns);
                    s.ns *= unit;
                    s.min_ns *= unit;
                    s.max_ns *= unit;
                    if (ok)
                        g_array_append_val(t->samples, s);
                }
                if (!ok) {
                    g_free(line);
                    return FALSE;
                }
            }
        }
        g_free(line);
    }
    return end_table(error, r, t, header_line);
}

/* Whether the IMB header line `#    Intel (R) MPI Benchmarks VERSION, MPI-1 part` names a
 * version before 2017 (2.x to 4.1): those run a collective's repetitions back to back with
 * the root rotating, as -sync 0 and -root_shift 1 do, which IMB 4.1 introduced as options with
 * that behaviour as their defaults and IMB 2017 changed to a barrier after each call and a
 * fixed root (IMB's ReadMe_IMB.txt, "New in 4.1" and "New in 2017"; IMB 2018's IMB_init.c sets
 * sync 1, root_shift 0). */
static gboolean imb_loops(const char *line)
{
    const char *v = strstr(line, "MPI Benchmarks ");
    if (v == NULL)
        return FALSE;
    guint64 major = g_ascii_strtoull(v + strlen("MPI Benchmarks "), NULL, 10);
    return major > 0 && major < 2017;
}

/* Intel MPI Benchmarks: `# Benchmarking NAME`, `# #processes = N`, a `#bytes` header naming
 * its columns (#repetitions, t[usec], or t_min, t_max, t_avg), then rows. A benchmark may
 * repeat its table for several process counts. The file's header names IMB's version, which
 * says how a collective's repetitions ran (imb_loops). */
static gboolean read_imb(Reader *r, GPtrArray *tables, GError **error)
{
    FennelMeasureTable *t = NULL;
    char *name = NULL;
    unsigned header_line = 0, ranks = 0;
    int col_t = -1, col_min = -1, col_max = -1, col_reps = -1;
    double unit = 1e3;
    gboolean ok = TRUE, loop = FALSE;
    while (ok && next_line(r)) {
        char *line = trimmed(r);
        if (g_str_has_prefix(line, "#") && strstr(line, "MPI Benchmarks ") &&
            !g_str_has_prefix(line, "# Benchmarking ")) {
            loop = imb_loops(line);
        } else if (g_str_has_prefix(line, "# Benchmarking ")) {
            g_free(name);
            name = g_strstrip(g_strdup(line + strlen("# Benchmarking ")));
            ranks = 0;
            header_line = 0;
        } else if (name && g_str_has_prefix(line, "# #processes = ")) {
            ranks = (unsigned)g_ascii_strtoull(line + strlen("# #processes = "), NULL, 10);
        } else if (name && g_str_has_prefix(line, "#bytes")) {
            ok = end_table(error, r, t, header_line);
            const char *coll = collective_name(name);
            gboolean one_way = strcmp(name, "PingPong") == 0 || strcmp(name, "PingPing") == 0 ||
                               strcmp(name, "Sendrecv") == 0;
            char *tool = g_strdup_printf("IMB %s", name);
            t = table_new(r, tool,
                          one_way ? FENNEL_MEASURE_ONE_WAY
                          : coll  ? FENNEL_MEASURE_COLLECTIVE
                                  : FENNEL_MEASURE_OTHER);
            g_free(tool);
            t->ranks = ranks;
            t->loop = loop && coll != NULL;
            if (coll)
                t->collective = g_strdup(coll);
            g_ptr_array_add(tables, t);
            header_line = r->number;
            unit = header_unit(line);
            split(r, FALSE);
            col_t = col_min = col_max = col_reps = -1;
            for (unsigned i = 0; i < r->n_tok; i++) {
                if (token_starts(&r->tok[i], "#repetitions"))
                    col_reps = (int)i;
                else if (token_starts(&r->tok[i], "t[") || token_starts(&r->tok[i], "t_avg["))
                    col_t = (int)i;
                else if (token_starts(&r->tok[i], "t_min["))
                    col_min = (int)i;
                else if (token_starts(&r->tok[i], "t_max["))
                    col_max = (int)i;
            }
            if (col_t < 0 || unit == 0)
                t->kind = FENNEL_MEASURE_OTHER;
        } else if (t && header_line && t->kind != FENNEL_MEASURE_OTHER) {
            split(r, FALSE);
            unsigned need = (unsigned)MAX(col_t, MAX(col_min, col_max)) + 1;
            if (r->n_tok >= 1 && is_digits(&r->tok[0])) {
                int64_t bytes = 0;
                ok = r->n_tok >= need || cut_short(error, r, need);
                ok = ok && row_size(error, r, t, FALSE, &bytes);
                FennelSample s = sample(r, bytes);
                ok = ok && time_value(error, r, &r->tok[col_t], &s.ns);
                if (ok && col_min >= 0)
                    ok = time_value(error, r, &r->tok[col_min], &s.min_ns);
                if (ok && col_max >= 0)
                    ok = time_value(error, r, &r->tok[col_max], &s.max_ns);
                int64_t reps = 0;
                if (ok && col_reps >= 0)
                    ok = whole(error, r, &r->tok[col_reps], UINT32_MAX, &reps);
                s.repetitions = (uint32_t)reps;
                s.ns *= unit;
                s.min_ns *= unit;
                s.max_ns *= unit;
                if (ok)
                    g_array_append_val(t->samples, s);
            }
        }
        g_free(line);
    }
    g_free(name);
    return ok && end_table(error, r, t, header_line);
}

/* Netgauge's LogGP table (`-x loggp`): size, n, three PRTT times, then L, o_s, o_r, g and
 * G in microseconds. Netgauge can print one size twice, so equal sizes are accepted. */
static gboolean read_netgauge(Reader *r, GPtrArray *tables, GError **error)
{
    FennelMeasureTable *t = NULL;
    unsigned header_line = 0;
    while (next_line(r)) {
        split(r, FALSE);
        if (r->n_tok >= 4 && r->tok[0].len == 1 && r->tok[0].start[0] == '#' &&
            token_starts(&r->tok[1], "size") && token_starts(&r->tok[3], "PRTT")) {
            t = table_new(r, "Netgauge LogGP", FENNEL_MEASURE_LOGGP);
            t->loggp = g_array_new(FALSE, FALSE, sizeof(FennelLogGPRow));
            g_ptr_array_add(tables, t);
            header_line = r->number;
            continue;
        }
        if (t == NULL || r->n_tok == 0 || r->tok[0].start[0] == '#')
            continue;
        if (r->n_tok < 10)
            return cut_short(error, r, 10);
        int64_t bytes;
        if (!row_size(error, r, t, TRUE, &bytes))
            return FALSE;
        FennelSample s = sample(r, bytes);
        double prtt[3];
        int64_t n;
        for (int i = 0; i < 3; i++) {
            if (!time_value(error, r, &r->tok[2 + i], &prtt[i]))
                return FALSE;
        }
        if (!whole(error, r, &r->tok[1], UINT32_MAX, &n))
            return FALSE;
        /* PRTT(1,0,s) is a round trip: the one-way time is half of it. */
        s.ns = prtt[0] * 1e3 / 2;
        FennelLogGPRow row = {
            .prtt_n0_ns = prtt[1] * 1e3, .prtt_nd_ns = prtt[2] * 1e3, .n = (uint32_t)n};
        for (int i = 0; i < FENNEL_NG_N; i++) {
            if (!number(error, r, &r->tok[5 + i], TRUE, &row.v[i]))
                return FALSE;
            row.v[i] *= 1e3;
        }
        g_array_append_val(t->samples, s);
        g_array_append_val(t->loggp, row);
    }
    if (t && t->samples->len == 0) {
        fennel_error_at(error, r->file, header_line, 1, "the Netgauge LogGP table has no rows");
        return FALSE;
    }
    return TRUE;
}

/* SimGrid's platform calibration (`calibrate`, docs/CALIBRATION.md): rows
 * `op,size,start_s,duration_s`, no header. Its ping-pong times an MPI_Send and then the
 * MPI_Recv of the reply, one row each with the same size and start; the round trip is their
 * sum, the one-way time half of it. Rows of other operations (a blocking receive of a message
 * already there, an MPI_Isend, MPI_Test, ...) measure overheads, not messages: they are
 * read as a table that is not fitted. Sizes come in any order. */
static gboolean read_calibrate(Reader *r, GPtrArray *tables, GError **error)
{
    FennelMeasureTable *pingpong = NULL, *other = NULL;
    gboolean pending = FALSE; /* an MPI_Send waiting for its MPI_Recv */
    int64_t send_bytes = 0;
    double send_start = 0, send_s = 0;
    unsigned send_line = 0;
    while (next_line(r)) {
        split_fields(r);
        if (r->n_tok == 1 && r->tok[0].len == 0)
            continue;
        if (r->n_tok < 4)
            return cut_short(error, r, 4);
        int64_t bytes;
        double start, seconds;
        if (!whole(error, r, &r->tok[1], INT64_MAX / 2, &bytes) ||
            !number(error, r, &r->tok[2], FALSE, &start) ||
            !time_value(error, r, &r->tok[3], &seconds))
            return FALSE;
        gboolean send = token_is(&r->tok[0], "MPI_Send");
        gboolean recv = token_is(&r->tok[0], "MPI_Recv");
        if (pending && !(recv && bytes == send_bytes && start == send_start)) {
            fennel_error_at(error, r->file, send_line, 1,
                            "an MPI_Send without the MPI_Recv of its ping-pong after it "
                            "(the same size and start)");
            return FALSE;
        }
        if (pending) {
            FennelSample smp = sample(r, bytes);
            smp.line = send_line;
            smp.ns = (send_s + seconds) * 1e9 / 2;
            g_array_append_val(pingpong->samples, smp);
            pending = FALSE;
        } else if (send) {
            if (pingpong == NULL) {
                pingpong = table_new(r, "SimGrid calibrate PingPong", FENNEL_MEASURE_ONE_WAY);
                g_ptr_array_add(tables, pingpong);
            }
            pending = TRUE;
            send_bytes = bytes;
            send_start = start;
            send_s = seconds;
            send_line = r->number;
        } else {
            if (other == NULL) {
                char *tool =
                    g_strdup_printf("SimGrid calibrate %.*s", (int)r->tok[0].len, r->tok[0].start);
                other = table_new(r, tool, FENNEL_MEASURE_OTHER);
                g_free(tool);
                g_ptr_array_add(tables, other);
            }
            FennelSample smp = sample(r, bytes);
            smp.ns = seconds * 1e9;
            g_array_append_val(other->samples, smp);
        }
    }
    if (pending) {
        fennel_error_at(error, r->file, send_line, 1,
                        "an MPI_Send without the MPI_Recv of its ping-pong after it");
        return FALSE;
    }
    return TRUE;
}

/* LLNL's MPI tutorial latency test (mpi_latency.c, and programs derived from it): rank 0
 * sends a 1-byte message (MPI_BYTE, count 1) and waits for the echo, NUMBER_REPS times,
 * printing per repetition `Rep# T1 T2 deltaT`, times in seconds from MPI_Wtime, deltaT the
 * round trip; then averages. One size; each repetition one sample of half its round trip. */
static gboolean read_mpi_latency(Reader *r, GPtrArray *tables, GError **error)
{
    FennelMeasureTable *t = NULL;
    while (next_line(r)) {
        split(r, FALSE);
        if (r->n_tok >= 4 && token_starts(&r->tok[0], "Rep#")) {
            if (!token_is(&r->tok[1], "T1") || !token_is(&r->tok[2], "T2"))
                return fail(error, r, r->tok[1].col,
                            "a latency test whose columns are not Rep# T1 T2 deltaT (seconds): "
                            "not LLNL's mpi_latency");
            t = table_new(r, "mpi_latency", FENNEL_MEASURE_ONE_WAY);
            g_ptr_array_add(tables, t);
            continue;
        }
        if (t == NULL || r->n_tok == 0 || !is_digits(&r->tok[0]))
            continue;
        if (r->n_tok < 4)
            return cut_short(error, r, 4);
        double round_trip;
        if (!time_value(error, r, &r->tok[3], &round_trip))
            return FALSE;
        FennelSample smp = sample(r, 1);
        smp.ns = round_trip * 1e9 / 2;
        g_array_append_val(t->samples, smp);
    }
    if (t && t->samples->len == 0) {
        fennel_error_at(error, r->file, t->line, 1, "the mpi_latency table has no rows");
        return FALSE;
    }
    return TRUE;
}

/* nxnlatbw (mpi_nxnlatbw.c, derived from OSU's tests): for every ordered pair of ranks a row
 * `src,dst,latency_us,bandwidth_MBps` (a header line may come first). The latency is half
 * the round trip of a 0-byte ping-pong; the bandwidth that of 10 messages of 4 MiB sent back
 * to back, 10^6 bytes per second. Read as two tables: one-way times at 0 B and a bandwidth
 * test at 4 MiB (time per message s / bandwidth), one sample per pair of each. */
#define NXNLATBW_BYTES 4194304
static gboolean read_nxnlatbw(Reader *r, GPtrArray *tables, GError **error)
{
    FennelMeasureTable *lat = NULL, *bw = NULL;
    while (next_line(r)) {
        split_fields(r);
        if ((r->n_tok == 1 && r->tok[0].len == 0) || r->tok[0].start[0] == '#' ||
            token_is(&r->tok[0], "src"))
            continue;
        if (r->n_tok < 4)
            return cut_short(error, r, 4);
        int64_t src, dst;
        double latency_us, mbps;
        if (!whole(error, r, &r->tok[0], UINT32_MAX, &src) ||
            !whole(error, r, &r->tok[1], UINT32_MAX, &dst) ||
            !time_value(error, r, &r->tok[2], &latency_us) ||
            !number(error, r, &r->tok[3], FALSE, &mbps))
            return FALSE;
        if (mbps <= 0)
            return fail(error, r, r->tok[3].col, "a bandwidth must be positive");
        if (lat == NULL) {
            lat = table_new(r, "nxnlatbw latency", FENNEL_MEASURE_ONE_WAY);
            bw = table_new(r, "nxnlatbw bandwidth", FENNEL_MEASURE_BANDWIDTH);
            g_ptr_array_add(tables, lat);
            g_ptr_array_add(tables, bw);
        }
        FennelSample a = sample(r, 0), b = sample(r, NXNLATBW_BYTES);
        a.ns = latency_us * 1e3;
        b.ns = NXNLATBW_BYTES * 1e3 / mbps;
        g_array_append_val(lat->samples, a);
        g_array_append_val(bw->samples, b);
    }
    return TRUE;
}

/* The launcher prefix of a line: "0: " (srun --label) or "[1,0]<stdout>:" (Open MPI
 * --tag-output); its length, 0 if none. */
static unsigned launcher_prefix(const Reader *r)
{
    unsigned i = 0;
    while (i < r->len && r->text[i] == ' ')
        i++;
    unsigned d = i;
    while (i < r->len && g_ascii_isdigit(r->text[i]))
        i++;
    if (i > d && i + 1 < r->len && r->text[i] == ':' && r->text[i + 1] == ' ')
        return i + 2;
    if (d < r->len && r->text[d] == '[') {
        const char *end = memchr(r->text + d, ':', r->len - d);
        if (end && memchr(r->text + d, ']', r->len - d) &&
            g_strstr_len(r->text + d, r->len - d, "<std"))
            return (unsigned)(end - r->text) + 1;
    }
    return 0;
}

/* The nccl-tests names of collectives, as fennel's. */
static const char *nccl_collective(const char *perf)
{
    static const char *const map[][2] = {
        {"all_reduce", "allreduce"},
        {"all_gather", "allgather"},
        {"reduce_scatter", "reduce_scatter"},
        {"broadcast", "bcast"},
        {"reduce", "reduce"},
        {"alltoall", "alltoall"},
        {"sendrecv", "sendrecv"},
        {"gather", "gather"},
        {"scatter", "scatter"},
        {"hypercube", "hypercube"},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(map); i++) {
        size_t n = strlen(map[i][0]);
        if (strncmp(perf, map[i][0], n) == 0 && strncmp(perf + n, "_perf", 5) == 0)
            return map[i][1];
    }
    return NULL;
}

/* nccl-tests (all_reduce_perf and friends): "# Collective test starting: NAME" or the
 * command line names the collective, "#  Rank N" lines count the ranks, a header with
 * "out-of-place" and "in-place" groups and a "time" column in microseconds in each; the
 * out-of-place time is the sample's, the in-place one its in_place_ns. Rows may carry a
 * launcher prefix. */
static gboolean read_nccl(Reader *r, GPtrArray *tables, GError **error)
{
    FennelMeasureTable *t = NULL;
    const char *collective = NULL;
    unsigned ranks = 0, header_line = 0;
    int time_col = -1, in_place_col = -1, offset = 0;
    gboolean ok = TRUE;
    while (ok && next_line(r)) {
        unsigned skip = launcher_prefix(r);
        r->text += skip;
        r->len -= skip;
        split(r, FALSE);
        /* A line naming one test names the collective of the tables that follow; a line
         * naming several (a script's loop over the tests) names none of them, and "Collective
         * test concluded" ends the test's tables, so that each table of a log of several
         * tests is scored with its own collective. */
        const char *named = NULL;
        gboolean several = FALSE, concluded = FALSE;
        for (unsigned i = 0; i < r->n_tok; i++) {
            char *word = g_strndup(r->tok[i].start, r->tok[i].len);
            const char *base = strrchr(word, '/') ? strrchr(word, '/') + 1 : word;
            const char *c = nccl_collective(base);
            if (c && named && strcmp(c, named) != 0)
                several = TRUE;
            if (c)
                named = c;
            concluded |= strcmp(word, "concluded:") == 0;
            g_free(word);
        }
        if (concluded)
            collective = NULL;
        else if (named && !several)
            collective = named;
        for (unsigned i = 0; i + 1 < r->n_tok; i++) {
            if (token_is(&r->tok[i], "Rank") && is_digits(&r->tok[i + 1]))
                ranks = MAX(ranks, (unsigned)g_ascii_strtoull(r->tok[i + 1].start, NULL, 10) + 1);
        }
        if (r->n_tok >= 3 && r->tok[0].start[0] == '#' &&
            (token_is(&r->tok[1], "size") || token_is(&r->tok[0], "#size"))) {
            ok = end_table(error, r, t, header_line);
            char *tool = g_strdup_printf("nccl-tests %s", collective ? collective : "?");
            t = table_new(r, tool, FENNEL_MEASURE_COLLECTIVE);
            g_free(tool);
            t->collective = g_strdup(collective);
            t->ranks = ranks;
            t->nccl = TRUE;
            g_ptr_array_add(tables, t);
            header_line = r->number;
            /* Row fields line up with the header's words after the "#". */
            offset = token_is(&r->tok[0], "#") ? 1 : 0;
            time_col = in_place_col = -1;
            for (unsigned i = 0; i < r->n_tok && in_place_col < 0; i++) {
                if (token_is(&r->tok[i], "time") && time_col < 0)
                    time_col = (int)i - offset;
                else if (token_is(&r->tok[i], "time"))
                    in_place_col = (int)i - offset; /* the second group's: in-place */
            }
            if (time_col < 0)
                t->kind = FENNEL_MEASURE_OTHER;
            continue;
        }
        if (t && t->kind != FENNEL_MEASURE_OTHER && r->n_tok >= 1 && is_digits(&r->tok[0])) {
            int64_t bytes;
            FennelSample s;
            ok = r->n_tok > (unsigned)time_col || cut_short(error, r, (unsigned)time_col + 1);
            ok = ok && row_size(error, r, t, TRUE, &bytes);
            if (ok) {
                s = sample(r, bytes);
                ok = time_value(error, r, &r->tok[time_col], &s.ns);
            }
            /* The in-place time where the row has a valid one, else NAN: only compare
             * --in-place reads it, and refuses a row without it there. */
            if (ok && in_place_col >= 0 && r->n_tok > (unsigned)in_place_col) {
                if (time_value(NULL, r, &r->tok[in_place_col], &s.in_place_ns))
                    s.in_place_ns *= 1e3;
                else
                    s.in_place_ns = NAN;
            }
            if (ok) {
                s.ns *= 1e3;
                g_array_append_val(t->samples, s);
            }
        }
    }
    return ok && end_table(error, r, t, header_line);
}

/* Whether the line at p is an nxnlatbw row: two whole numbers and two decimals, commas
 * between. */
static gboolean nxnlatbw_row(const char *p, const char *end)
{
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    const char *stop = nl ? nl : end;
    unsigned fields = 1;
    for (const char *c = p; c < stop; c++) {
        if (*c == ',')
            fields++;
        else if (!g_ascii_isdigit(*c) && *c != '.' && !g_ascii_isspace(*c))
            return FALSE;
    }
    return fields == 4;
}

/* Recognises the tool by content: the first line of fennel's CSV header, OSU's and IMB's
 * banners, Netgauge's PRTT header. */
static const char *recognise(const char *text, gsize length)
{
    const char *p = text, *end = text + length;
    while (p < end && (g_ascii_isspace(*p) || *p == '#')) {
        if (*p == '#') {
            const char *nl = memchr(p, '\n', (size_t)(end - p));
            p = nl ? nl + 1 : end;
        } else {
            p++;
        }
    }
    if (((size_t)(end - p) >= 10 && strncmp(p, "size_bytes", 10) == 0) ||
        ((size_t)(end - p) >= 9 && strncmp(p, "generator", 9) == 0))
        return "csv";
    gsize scan = MIN(length, (gsize)1 << 20);
    if (g_strstr_len(text, scan, "# OSU "))
        return "osu";
    if (g_strstr_len(text, scan, "MPI Benchmarks") || g_strstr_len(text, scan, "# Benchmarking "))
        return "imb";
    if (g_strstr_len(text, scan, "PRTT("))
        return "netgauge";
    if (g_strstr_len(text, scan, "Beginning latency timing test"))
        return "mpi-latency";
    if ((size_t)(end - p) >= 9 &&
        (strncmp(p, "MPI_Send,", 9) == 0 || strncmp(p, "MPI_Recv,", 9) == 0))
        return "calibrate";
    if ((size_t)(end - p) >= 8 && strncmp(p, "src,dst,", 8) == 0)
        return "nxnlatbw";
    if (p < end && g_ascii_isdigit(*p) && nxnlatbw_row(p, end))
        return "nxnlatbw";
    if (g_strstr_len(text, scan, "out-of-place") ||
        g_strstr_len(text, scan, "Collective test starting") || g_strstr_len(text, scan, "algbw"))
        return "nccl";
    return NULL;
}

gboolean fennel_measure_parse(const char *file, const char *text, gsize length, const char *format,
                              GPtrArray *tables, GError **error)
{
    if (memchr(text, '\0', length)) {
        fennel_error_at(error, file, 1, 1, "not a text file (it holds a NUL byte)");
        return FALSE;
    }
    const char *kind = format && strcmp(format, "auto") != 0 ? format : recognise(text, length);
    if (kind == NULL) {
        fennel_error_at(error, file, 1, 1,
                        "not a measurement fennel reads (expected fennel's CSV, OSU "
                        "Micro-Benchmarks, Intel MPI Benchmarks, nccl-tests, Netgauge, "
                        "SimGrid's calibrate, mpi_latency or nxnlatbw output)");
        return FALSE;
    }
    Reader r = {.file = file, .next = text, .end = text + length};
    guint before = tables->len;
    gboolean ok = strcmp(kind, "csv") == 0           ? read_csv(&r, tables, error)
                  : strcmp(kind, "osu") == 0         ? read_osu(&r, tables, error)
                  : strcmp(kind, "imb") == 0         ? read_imb(&r, tables, error)
                  : strcmp(kind, "nccl") == 0        ? read_nccl(&r, tables, error)
                  : strcmp(kind, "netgauge") == 0    ? read_netgauge(&r, tables, error)
                  : strcmp(kind, "calibrate") == 0   ? read_calibrate(&r, tables, error)
                  : strcmp(kind, "mpi-latency") == 0 ? read_mpi_latency(&r, tables, error)
                  : strcmp(kind, "nxnlatbw") == 0    ? read_nxnlatbw(&r, tables, error)
                                                     : FALSE;
    if (ok && tables->len == before) {
        fennel_error_at(error, file, 1, 1, "no %s table found", kind);
        ok = FALSE;
    }
    if (!ok && error && *error && !g_utf8_validate((*error)->message, -1, NULL)) {
        /* A message quoting the input (a cell, an OSU title) stays readable UTF-8. */
        char *valid = g_utf8_make_valid((*error)->message, -1);
        g_free((*error)->message);
        (*error)->message = valid;
    }
    return ok;
}

gboolean fennel_measure_read(const char *file, const char *format, GPtrArray *tables,
                             GError **error)
{
    char *text;
    gsize length;
    if (!fennel_read_input(file, &text, &length, error))
        return FALSE;
    gboolean ok = fennel_measure_parse(file, text, length, format, tables, error);
    g_free(text);
    return ok;
}
