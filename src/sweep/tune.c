/* Algorithm selection from a sweep's rows: candidates, cells, winners (tune.h). */
#include "tune.h"

#include "errors.h"
#include "generator.h"
#include "library.h"
#include "plot.h"
#include "units.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The generator options' columns in a sweep's CSV (sweep_grid.c), except ranks and size:
 * their values tell candidates apart. */
static const char *const option_columns[] = {"schedule", "rounds",       "root",      "width",
                                             "radix",    "partitions",   "threshold", "ppn",
                                             "variant",  "segment_bytes"};

/* One data row as read. */
typedef struct {
    guint index, line, candidate, cell; /* index: the row's place among the CSV's rows */
    gboolean baseline;                  /* a row of the baseline library */
    int64_t ranks, size;
    double ns; /* NAN: the row has an error */
    const char *error;
} Row;

typedef struct {
    const char *name, *text;
    gsize length;
    GPtrArray *fields; /* the CSV's rows, the header first */
    GArray *where;     /* FennelCsvRow of each */
    int generator, ranks, size, seed, makespan, error;
    int baseline_column; /* the column, or -1: the sweep has no library */
    int options[G_N_ELEMENTS(option_columns)];
    GArray *model; /* int: the indices of the model columns */
} Reader;

static int column_index(char **header, const char *name)
{
    for (int i = 0; header[i]; i++)
        if (strcmp(header[i], name) == 0)
            return i;
    return -1;
}

static unsigned column_of(const Reader *r, guint row, int field)
{
    FennelCsvRow at = g_array_index(r->where, FennelCsvRow, row);
    return fennel_csv_column(r->text, r->length, at.offset, (guint)field);
}

static gboolean fail_at(const Reader *r, guint row, int field, GError **error, const char *what)
{
    FennelCsvRow at = g_array_index(r->where, FennelCsvRow, row);
    fennel_error_at(error, r->name, at.line, field < 0 ? 1 : column_of(r, row, field), "%s", what);
    return FALSE;
}

static gboolean read_header(Reader *r, GError **error)
{
    char **header = g_ptr_array_index(r->fields, 0);
    const char *needed[] = {"generator", "ranks", "size_bytes", "seed", "makespan_ns", "error"};
    int *slots[] = {&r->generator, &r->ranks, &r->size, &r->seed, &r->makespan, &r->error};
    for (guint i = 0; i < G_N_ELEMENTS(needed); i++) {
        *slots[i] = column_index(header, needed[i]);
        if (*slots[i] < 0) {
            char *what = g_strdup_printf("not a sweep's CSV: no column '%s' (fennel sweep "
                                         "--generate ... --ranks LIST --size LIST writes one)",
                                         needed[i]);
            fail_at(r, 0, -1, error, what);
            g_free(what);
            return FALSE;
        }
    }
    for (guint i = 0; i < G_N_ELEMENTS(option_columns); i++)
        r->options[i] = column_index(header, option_columns[i]);
    r->baseline_column = column_index(header, "library_algorithm");
    /* The model columns: every parameter column before the seed that is not the
     * generator's. */
    for (int i = 0; i < r->seed; i++) {
        gboolean option = i == r->generator || i == r->ranks || i == r->size;
        for (guint k = 0; k < G_N_ELEMENTS(option_columns); k++)
            option = option || i == r->options[k];
        if (!option)
            g_array_append_val(r->model, i);
    }
    return TRUE;
}

/* The candidate of a row: its generator and option values, found or added. */
static guint candidate_of(GPtrArray *keys, GHashTable *index, char **f, const Reader *r)
{
    GString *key = g_string_new(f[r->generator]);
    for (guint k = 0; k < G_N_ELEMENTS(option_columns); k++) {
        g_string_append_c(key, '\x1f');
        if (r->options[k] >= 0)
            g_string_append(key, f[r->options[k]]);
    }
    gpointer found;
    if (g_hash_table_lookup_extended(index, key->str, NULL, &found)) {
        g_string_free(key, TRUE);
        return GPOINTER_TO_UINT(found);
    }
    guint n = keys->len;
    char *text = g_string_free(key, FALSE);
    g_ptr_array_add(keys, text);
    g_hash_table_insert(index, text, GUINT_TO_POINTER(n));
    return n;
}

static gboolean check_generator(const Reader *r, guint row, char **f, char **collective,
                                GError **error)
{
    const FennelGenerator *g = fennel_generator_find(f[r->generator]);
    char *what = NULL;
    if (g == NULL)
        what = g_strdup_printf("unknown generator '%s'", f[r->generator]);
    else if (g->collective == NULL)
        what = g_strdup_printf("%s performs no collective: tune compares algorithms of one "
                               "collective",
                               g->name);
    else if (*collective && strcmp(*collective, g->collective) != 0)
        what = g_strdup_printf("%s performs %s, not %s: tune compares algorithms of one "
                               "collective",
                               g->name, g->collective, *collective);
    if (what) {
        fail_at(r, row, r->generator, error, what);
        g_free(what);
        return FALSE;
    }
    if (*collective == NULL)
        *collective = g_strdup(g->collective);
    return TRUE;
}

static gboolean read_row(const Reader *r, guint i, Row *row, GError **error)
{
    char **f = g_ptr_array_index(r->fields, i);
    const char *why = NULL;
    row->index = i;
    row->line = g_array_index(r->where, FennelCsvRow, i).line;
    if (!fennel_parse_int(f[r->ranks], 1, INT32_MAX, &row->ranks, &why))
        return fail_at(r, i, r->ranks, error, "ranks: expected a whole number of ranks");
    if (!fennel_parse_int(f[r->size], 0, INT64_MAX, &row->size, &why))
        return fail_at(r, i, r->size, error, "size_bytes: expected a whole number of bytes");
    row->error = f[r->error];
    row->ns = NAN;
    if (*row->error == '\0') {
        char *end = NULL;
        row->ns = g_ascii_strtod(f[r->makespan], &end);
        if (*f[r->makespan] == '\0' || *end != '\0' || !isfinite(row->ns) || row->ns < 0)
            return fail_at(r, i, r->makespan, error, "makespan_ns: expected a time in ns");
    }
    return TRUE;
}

static int compare_int64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Sorts and removes repeats; returns the number left. */
static guint distinct(GArray *values)
{
    g_array_sort(values, compare_int64);
    guint n = 0;
    for (guint i = 0; i < values->len; i++)
        if (n == 0 || g_array_index(values, int64_t, i) != g_array_index(values, int64_t, n - 1))
            g_array_index(values, int64_t, n++) = g_array_index(values, int64_t, i);
    g_array_set_size(values, n);
    return n;
}

static guint find(const int64_t *values, guint n, int64_t v)
{
    const int64_t *at = bsearch(&v, values, n, sizeof *values, compare_int64);
    return (guint)(at - values);
}

/* Candidates' labels: the generator, with the options whose values differ between the
 * candidates of that generator. */
static void label_candidates(FennelTune *t, GPtrArray *keys)
{
    for (guint c = 0; c < t->n_candidates; c++) {
        char **parts = g_strsplit(keys->pdata[c], "\x1f", -1);
        GString *label = g_string_new(parts[0]);
        for (guint k = 0; k < G_N_ELEMENTS(option_columns); k++) {
            gboolean varies = FALSE;
            for (guint d = 0; d < t->n_candidates && !varies; d++) {
                char **other = g_strsplit(keys->pdata[d], "\x1f", -1);
                varies = strcmp(other[0], parts[0]) == 0 && strcmp(other[k + 1], parts[k + 1]);
                g_strfreev(other);
            }
            if (varies)
                g_string_append_printf(label, " %s=%s", option_columns[k], parts[k + 1]);
            if (strcmp(option_columns[k], "radix") == 0 && *parts[k + 1])
                t->candidates[c].radix = g_ascii_strtoll(parts[k + 1], NULL, 10);
            if (strcmp(option_columns[k], "partitions") == 0 && *parts[k + 1])
                t->candidates[c].partitions = g_ascii_strtoll(parts[k + 1], NULL, 10);
            if (strcmp(option_columns[k], "variant") == 0)
                t->candidates[c].variant = g_strdup(parts[k + 1]);
            if (strcmp(option_columns[k], "segment_bytes") == 0 && *parts[k + 1])
                t->candidates[c].segment = g_ascii_strtoll(parts[k + 1], NULL, 10);
        }
        t->candidates[c].generator = g_strdup(parts[0]);
        t->candidates[c].label = g_string_free(label, FALSE);
        g_strfreev(parts);
    }
}

static int compare_rows(const void *a, const void *b)
{
    const Row *x = a, *y = b;
    if (x->cell != y->cell)
        return x->cell < y->cell ? -1 : 1;
    if (x->baseline != y->baseline)
        return x->baseline ? 1 : -1; /* the baseline's rows after the candidates' */
    if (x->candidate != y->candidate)
        return x->candidate < y->candidate ? -1 : 1;
    return (x->ns > y->ns) - (x->ns < y->ns);
}

/* The model columns of every row of a cell must match its first row's. */
static gboolean check_model(const Reader *r, const Row *rows, guint n, GError **error)
{
    for (guint i = 1; i < n; i++) {
        if (rows[i].cell != rows[i - 1].cell)
            continue;
        /* Rows are sorted by cell; compare each with the one before it in the cell. */
        char **fa = g_ptr_array_index(r->fields, rows[i - 1].index);
        char **fb = g_ptr_array_index(r->fields, rows[i].index);
        for (guint m = 0; m < r->model->len; m++) {
            int col = g_array_index(r->model, int, m);
            if (strcmp(fa[col], fb[col]) != 0) {
                char **header = g_ptr_array_index(r->fields, 0);
                char *what = g_strdup_printf("%s differs from line %u in the same rank count and "
                                             "size: tune compares algorithms under one model "
                                             "(give each --set one value)",
                                             header[col], rows[i - 1].line);
                fail_at(r, rows[i].index, col, error, what);
                g_free(what);
                return FALSE;
            }
        }
    }
    return TRUE;
}

/* The medians of each candidate in each cell, the winners and runners-up. */
static gboolean decide(FennelTune *t, const char *name, const Row *rows, guint n, GError **error)
{
    guint nc = t->n_candidates;
    for (guint c = 0; c < t->n_ranks * t->n_sizes; c++) {
        t->cells[c].ranks = t->ranks[c / t->n_sizes];
        t->cells[c].size = t->sizes[c % t->n_sizes];
        t->cells[c].ns = g_new(double, nc);
        for (guint k = 0; k < nc; k++)
            t->cells[c].ns[k] = NAN;
    }
    for (guint c = 0; c < t->n_ranks * t->n_sizes; c++)
        t->cells[c].baseline_ns = NAN;
    for (guint i = 0; i < n;) {
        guint j = i, ok = 0;
        while (j < n && rows[j].baseline == rows[i].baseline && rows[j].cell == rows[i].cell &&
               rows[j].candidate == rows[i].candidate) {
            ok += !isnan(rows[j].ns);
            j++;
        }
        /* An error on any repeat leaves the candidate out; NANs sort last. */
        double median = ok == j - i ? (rows[i + (ok - 1) / 2].ns + rows[i + ok / 2].ns) / 2 : NAN;
        if (rows[i].baseline)
            t->cells[rows[i].cell].baseline_ns = median;
        else
            t->cells[rows[i].cell].ns[rows[i].candidate] = median;
        i = j;
    }
    for (guint c = 0; c < t->n_ranks * t->n_sizes; c++) {
        FennelTuneCell *cell = &t->cells[c];
        cell->winner = cell->runner_up = G_MAXUINT;
        for (guint k = 0; k < nc; k++) {
            if (isnan(cell->ns[k]))
                continue;
            if (cell->winner == G_MAXUINT || cell->ns[k] < cell->ns[cell->winner]) {
                cell->runner_up = cell->winner;
                cell->winner = k;
            } else if (cell->runner_up == G_MAXUINT || cell->ns[k] < cell->ns[cell->runner_up])
                cell->runner_up = k;
        }
        if (cell->winner == G_MAXUINT) {
            char *size = fennel_tune_size_text(cell->size);
            const char *why = NULL;
            for (guint i = 0; i < n && why == NULL; i++)
                if (rows[i].cell == c)
                    why = rows[i].error;
            if (why)
                g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                            "%s: no algorithm ran at %" G_GINT64_FORMAT " ranks, %s (%s)", name,
                            cell->ranks, size, why);
            else
                g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                            "%s: no row for %" G_GINT64_FORMAT " ranks, %s: tune needs every "
                            "rank count with every size",
                            name, cell->ranks, size);
            g_free(size);
            return FALSE;
        }
    }
    return TRUE;
}

FennelTune *fennel_tune_read(const char *name, const char *text, gsize length,
                             const char *collective, GError **error)
{
    Reader r = {.name = name, .text = text, .length = length};
    r.fields = fennel_csv_parse(name, text, length, &r.where, error);
    if (r.fields == NULL)
        return NULL;
    r.model = g_array_new(FALSE, FALSE, sizeof(int));
    FennelTune *t = g_new0(FennelTune, 1);
    t->collective = g_strdup(collective);
    GPtrArray *keys = g_ptr_array_new_with_free_func(g_free);
    GHashTable *index = g_hash_table_new(g_str_hash, g_str_equal);
    GArray *rows = g_array_new(FALSE, TRUE, sizeof(Row));
    GArray *ranks = g_array_new(FALSE, FALSE, sizeof(int64_t));
    GArray *sizes = g_array_new(FALSE, FALSE, sizeof(int64_t));
    gboolean ok = TRUE;
    if (r.fields->len == 0) {
        fennel_error_at(error, name, 1, 1, "empty file: not a sweep's CSV");
        ok = FALSE;
    }
    ok = ok && read_header(&r, error);
    guint n_columns = ok ? g_strv_length(g_ptr_array_index(r.fields, 0)) : 0;
    for (guint i = 1; ok && i < r.fields->len; i++) {
        char **f = g_ptr_array_index(r.fields, i);
        if (g_strv_length(f) != n_columns) {
            char *what =
                g_strdup_printf("%u fields, the header has %u", g_strv_length(f), n_columns);
            ok = fail_at(&r, i, -1, error, what);
            g_free(what);
            break;
        }
        Row row = {0};
        row.baseline = r.baseline_column >= 0 &&
                       g_strv_contains((const char *const *)fennel_library_names(), f[r.generator]);
        if (row.baseline && t->library && strcmp(t->library, f[r.generator]) != 0) {
            char *what = g_strdup_printf("a second library, %s after %s: tune compares with one "
                                         "library",
                                         f[r.generator], t->library);
            ok = fail_at(&r, i, r.generator, error, what);
            g_free(what);
            break;
        }
        if (row.baseline && t->library == NULL)
            t->library = g_strdup(f[r.generator]);
        ok = (row.baseline || check_generator(&r, i, f, &t->collective, error)) &&
             read_row(&r, i, &row, error);
        row.candidate = ok && !row.baseline ? candidate_of(keys, index, f, &r) : 0;
        g_array_append_val(rows, row);
        g_array_append_val(ranks, row.ranks);
        g_array_append_val(sizes, row.size);
    }
    if (ok && rows->len == 0)
        ok = fail_at(&r, 0, -1, error, "no rows: the sweep ran nothing");
    if (ok) {
        t->n_ranks = distinct(ranks);
        t->n_sizes = distinct(sizes);
        t->ranks = g_memdup2(ranks->data, t->n_ranks * sizeof(int64_t));
        t->sizes = g_memdup2(sizes->data, t->n_sizes * sizeof(int64_t));
        t->n_candidates = keys->len;
        t->candidates = g_new0(FennelTuneCandidate, t->n_candidates);
        for (guint c = 0; c < t->n_candidates; c++)
            t->candidates[c].radix = -1, t->candidates[c].partitions = -1;
        label_candidates(t, keys);
        t->cells = g_new0(FennelTuneCell, (gsize)t->n_ranks * t->n_sizes);
        Row *rv = (Row *)rows->data;
        for (guint i = 0; i < rows->len; i++)
            rv[i].cell = find(t->ranks, t->n_ranks, rv[i].ranks) * t->n_sizes +
                         find(t->sizes, t->n_sizes, rv[i].size);
        qsort(rv, rows->len, sizeof(Row), compare_rows);
        for (guint i = 0; i < rows->len; i++) {
            char **f = g_ptr_array_index(r.fields, rv[i].index);
            FennelTuneCell *cell = &t->cells[rv[i].cell];
            if (rv[i].baseline && cell->baseline_algorithm == NULL && *f[r.baseline_column])
                cell->baseline_algorithm = g_strdup(f[r.baseline_column]);
        }
        ok = check_model(&r, rv, rows->len, error) && decide(t, name, rv, rows->len, error);
    }
    g_array_free(rows, TRUE);
    g_array_free(ranks, TRUE);
    g_array_free(sizes, TRUE);
    g_hash_table_destroy(index);
    g_ptr_array_free(keys, TRUE);
    g_array_free(r.model, TRUE);
    g_ptr_array_free(r.fields, TRUE);
    g_array_free(r.where, TRUE);
    if (!ok) {
        fennel_tune_free(t);
        return NULL;
    }
    return t;
}

void fennel_tune_free(FennelTune *t)
{
    if (t == NULL)
        return;
    for (guint c = 0; c < t->n_candidates; c++) {
        g_free(t->candidates[c].label);
        g_free(t->candidates[c].variant);
        g_free(t->candidates[c].generator);
    }
    for (guint c = 0; t->cells && c < t->n_ranks * t->n_sizes; c++) {
        g_free(t->cells[c].ns);
        g_free(t->cells[c].baseline_algorithm);
    }
    g_free(t->library);
    g_free(t->candidates);
    g_free(t->cells);
    g_free(t->ranks);
    g_free(t->sizes);
    g_free(t->collective);
    g_free(t);
}

char *fennel_tune_size_text(int64_t bytes)
{
    static const char *const units[] = {"KiB", "MiB", "GiB", "TiB"};
    int64_t v = bytes;
    int u = -1;
    while (v >= 1024 && v % 1024 == 0 && u < 3) {
        v /= 1024;
        u++;
    }
    if (u < 0)
        return g_strdup_printf("%" G_GINT64_FORMAT " B", bytes);
    return g_strdup_printf("%" G_GINT64_FORMAT " %s", v, units[u]);
}
