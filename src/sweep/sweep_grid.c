/* The grid of a sweep: the generators and their option lists, the points in grid order,
 * shards, and the leading columns of every row (sweep.h). */
#include "sweep_private.h"
#include "json.h"

#include "errors.h"
#include "library.h"
#include "schedule.h"

#include <math.h>
#include <string.h>

/* The options in grid order (the bit order of FennelGenOption), with their columns. */
static const struct {
    const char *column;
    FennelSweepKind kind;
    int64_t min;
    const char *default_text; /* the generator default, shown when it runs without it */
} options[FENNEL_GEN_N_OPTIONS] = {
    {"ranks", FENNEL_SWEEP_INT, 1, "2"},          {"size_bytes", FENNEL_SWEEP_SIZE, 0, "8"},
    {"schedule", FENNEL_SWEEP_INT, 0, ""},        {"root", FENNEL_SWEEP_INT, 0, "0"},
    {"rounds", FENNEL_SWEEP_INT, 1, "1"},         {"width", FENNEL_SWEEP_INT, 1, "2"},
    {"radix", FENNEL_SWEEP_INT, 2, "2"},          {"ppn", FENNEL_SWEEP_INT, 1, "1"},
    {"partitions", FENNEL_SWEEP_INT, 1, "2"},     {"threshold", FENNEL_SWEEP_INT, 0, "1"},
    {"variant", FENNEL_SWEEP_INT, 0, ""},         {"parallel", FENNEL_SWEEP_INT, 0, ""},
    {"segment_bytes", FENNEL_SWEEP_SIZE, 0, "0"},
};

#define SCHEDULE_INDEX 2
#define VARIANT_INDEX  10
#define PARALLEL_INDEX 11

void fennel__csv_field(GString *out, const char *text)
{
    if (strpbrk(text, ",\"\r\n") == NULL) {
        g_string_append(out, text);
        return;
    }
    g_string_append_c(out, '"');
    for (const char *c = text; *c; c++) {
        if (*c == '"')
            g_string_append_c(out, '"');
        g_string_append_c(out, *c);
    }
    g_string_append_c(out, '"');
}

static const char *option_texts(const FennelGenTextOptions *c, int i)
{
    const char *all[FENNEL_GEN_N_OPTIONS] = {
        c->ranks, c->size,       c->schedule,  c->root,    c->rounds,   c->width,  c->radix,
        c->ppn,   c->partitions, c->threshold, c->variant, c->parallel, c->segment};
    return all[i];
}

/* Parses one option's list into its dimension. */
static gboolean parse_dim(FennelSweepDim *d, int i, const char *text, GError **error)
{
    const char *flag = fennel_gen_option_name(1u << i);
    if (i == SCHEDULE_INDEX) {
        d->text = fennel_sweep_split_schedules(text, error);
        if (d->text == NULL)
            return FALSE;
        d->n = g_strv_length(d->text);
        return TRUE;
    }
    if (i == VARIANT_INDEX || i == PARALLEL_INDEX) {
        /* A shape is itself a comma list: shapes are listed with ';'. */
        d->text = g_strsplit(text, i == PARALLEL_INDEX ? ";" : ",", -1);
        for (char **t = d->text; *t; t++) {
            g_strstrip(*t);
            if (**t == '\0') {
                g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE,
                            "%s %s: empty item in the list", flag, text);
                return FALSE;
            }
        }
        d->n = g_strv_length(d->text);
        return TRUE;
    }
    GArray *v = g_array_new(FALSE, FALSE, sizeof(int64_t));
    int64_t max = i == 1 || i == 12 ? INT64_MAX : UINT32_MAX - 1;
    if (!fennel_sweep_expand(flag, text, options[i].kind, options[i].min, max, v, error)) {
        g_array_free(v, TRUE);
        return FALSE;
    }
    d->n = v->len;
    d->num = (int64_t *)g_array_free(v, FALSE);
    d->text = g_new0(char *, d->n + 1);
    for (guint k = 0; k < d->n; k++)
        d->text[k] = g_strdup_printf("%" G_GINT64_FORMAT, d->num[k]);
    return TRUE;
}

/* heuristic:C needs a ratio >= 0; a schedule in the notation must parse (whether it
 * fits a rank count is the grid point's business). */
static gboolean check_schedules(const FennelSweep *s, GError **error)
{
    const FennelSweepDim *d = &s->dims[SCHEDULE_INDEX];
    for (guint k = 0; k < d->n; k++) {
        const char *t = d->text[k];
        if (strcmp(t, "best") == 0 || strcmp(t, "best:thesis") == 0) {
            for (guint g = 0; g < s->n_generators; g++) {
                const FennelGenerator *gen = s->generators[g];
                if ((gen->options & FENNEL_GEN_SCHEDULE) && strcmp(gen->name, "allreduce-rm")) {
                    g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE,
                                "--schedule %s: only allreduce-rm has the analytic cost that "
                                "ranks schedules (not %s)",
                                t, gen->name);
                    return FALSE;
                }
            }
        } else if (g_str_has_prefix(t, "heuristic:")) {
            char *end;
            double c = g_ascii_strtod(t + strlen("heuristic:"), &end);
            if (end == t + strlen("heuristic:") || *end || !(c >= 0) || isinf(c)) {
                g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE,
                            "--schedule %s: expected heuristic:RATIO with a ratio "
                            "alpha_p/alpha_r >= 0, e.g. heuristic:2.911",
                            t);
                return FALSE;
            }
        } else if (strcmp(t, "heuristic") && strcmp(t, "rd")) {
            GError *why = NULL;
            FennelSchedule *sch = fennel_schedule_parse(t, &why);
            if (sch == NULL) {
                g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE, "--schedule %s: %s", t,
                            why->message);
                g_error_free(why);
                return FALSE;
            }
            fennel_schedule_free(sch);
        }
    }
    return TRUE;
}

/* The libraries' stand-ins in the generator list: each runs over --ranks and --size, both
 * needed, and names the library in the generator column. */
static gboolean add_libraries(FennelSweep *s, const char *collective, guint first, char **list,
                              GError **error)
{
    guint n = s->n_generators - first;
    s->library_gens = g_new0(FennelGenerator, MAX(n, 1));
    s->collective = g_strdup(collective);
    s->library_columns = TRUE;
    for (guint k = 0; k < n; k++) {
        const char *name = g_strstrip(list[first + k]);
        if (!g_strv_contains((const char *const *)fennel_library_names(), name)) {
            char *known = g_strjoinv(", ", (char **)fennel_library_names());
            g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE,
                        "--library: unknown library '%s' (known: %s)", name, known);
            g_free(known);
            return FALSE;
        }
        if (!fennel_library_covers(name, collective)) {
            g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE,
                        "--library %s: no table for the collective '%s'", name, collective);
            return FALSE;
        }
        FennelGenerator *g = &s->library_gens[k];
        g->name = name;
        g->options = g->required = FENNEL_GEN_RANKS | FENNEL_GEN_SIZE;
        /* The ranks per node the library decides on (Open MPI 5's coll/han), when given. */
        if (s->dims[__builtin_ctz(FENNEL_GEN_PPN)].n)
            g->options |= FENNEL_GEN_PPN;
        g->collective = s->collective;
        s->libraries[first + k] = name;
    }
    return TRUE;
}

/* The generators (then the libraries), their grid sizes, and the options no generator
 * uses. */
static gboolean build_generators(FennelSweep *s, const char *names, const char *libraries,
                                 const char *collective, GError **error)
{
    char *joined = g_strdup_printf("%s%s%s", names ? names : "", names && libraries ? "," : "",
                                   libraries ? libraries : "");
    char **list = g_strsplit(joined, ",", -1);
    g_free(joined);
    guint n_names = 0;
    if (names) {
        char **only = g_strsplit(names, ",", -1);
        n_names = g_strv_length(only);
        g_strfreev(only);
    }
    s->n_outer = s->n_generators = g_strv_length(list);
    s->generators = g_new0(const FennelGenerator *, MAX(s->n_generators, 1));
    s->libraries = g_new0(const char *, MAX(s->n_generators, 1));
    s->gen_start = g_new0(uint64_t, s->n_generators + 1);
    gboolean ok = TRUE;
    if (libraries && !add_libraries(s, collective, n_names, list, error)) {
        s->list = list;
        return FALSE;
    }
    unsigned given = 0, used = 0;
    for (int i = 0; i < FENNEL_GEN_N_OPTIONS; i++)
        given |= s->dims[i].n ? 1u << i : 0;
    for (guint g = 0; g < s->n_generators && ok; g++) {
        const char *name = g_strstrip(list[g]);
        const FennelGenerator *gen = s->generators[g] =
            s->libraries[g] ? &s->library_gens[g - n_names] : fennel_generator_find(name);
        if (gen == NULL) {
            /* The CLI's own message, which lists the generators fennel knows. */
            FennelGenTextOptions none = {0};
            FennelProgram *p = fennel_gen_text_generate(name, &none, 0, error);
            g_assert(p == NULL);
            ok = FALSE;
            break;
        }
        for (guint k = 0; k < g; k++) {
            if (s->generators[k] == gen ||
                (s->libraries[g] && g_strcmp0(s->libraries[k], s->libraries[g]) == 0)) {
                g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE, "%s: %s is listed twice",
                            s->libraries[g] ? "--library" : "--generate", name);
                ok = FALSE;
            }
        }
        unsigned missing = gen->required & ~given;
        if (ok && missing) {
            g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE, "generator %s needs %s", name,
                        fennel_gen_option_name(missing & -missing));
            ok = FALSE;
        }
        used |= gen->options;
        s->columns_gen |= gen->options;
        s->rm |= (gen->options & FENNEL_GEN_SCHEDULE) != 0;
        s->analytic |= strcmp(gen->name, "allreduce-rm") == 0;
        uint64_t count = s->n_models;
        for (int i = 0; i < FENNEL_GEN_N_OPTIONS && ok; i++) {
            if (s->dims[i].n && (gen->options & (1u << i)) &&
                __builtin_mul_overflow(count, (uint64_t)s->dims[i].n, &count))
                count = UINT64_MAX;
        }
        s->gen_start[g + 1] = s->gen_start[g] + MIN(count, FENNEL_SWEEP_MAX_POINTS + 1);
        if (ok && s->gen_start[g + 1] > FENNEL_SWEEP_MAX_POINTS) {
            g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE,
                        "the grid has more than %" G_GUINT64_FORMAT " points; split the sweep",
                        FENNEL_SWEEP_MAX_POINTS);
            ok = FALSE;
        }
    }
    unsigned unused = given & ~used;
    if (ok && unused) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE,
                    "%s: no generator of the sweep uses it",
                    fennel_gen_option_name(unused & -unused));
        ok = FALSE;
    }
    s->list = list; /* the libraries' names point into it */
    return ok;
}

static unsigned fennel__sweep_outer_options(const FennelSweep *s, guint outer)
{
    return s->programs ? FENNEL_GEN_SIZE : s->generators[outer]->options;
}

/* The grid of a sweep over program files: file x size (when given) x model. Only --size
 * applies to files (algorithm files take it; the others refuse it in their rows). */
static gboolean build_programs(FennelSweep *s, const FennelSweepSpec *spec, GError **error)
{
    for (int i = 0; i < FENNEL_GEN_N_OPTIONS; i++) {
        if (s->dims[i].n && i != 1) {
            g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE,
                        "%s: generator options need --generate (program files take --size "
                        "alone, for algorithm files)",
                        fennel_gen_option_name(1u << i));
            return FALSE;
        }
    }
    if (!fennel__sweep_add_programs(s, spec, error))
        return FALSE;
    s->n_outer = s->n_programs;
    s->columns_gen = s->dims[1].n ? FENNEL_GEN_SIZE : 0;
    uint64_t per_file = (uint64_t)s->n_models * MAX(s->dims[1].n, 1);
    s->gen_start = g_new0(uint64_t, s->n_outer + 1);
    for (guint f = 0; f < s->n_outer; f++)
        s->gen_start[f + 1] = s->gen_start[f] + per_file;
    if (s->gen_start[s->n_outer] > FENNEL_SWEEP_MAX_POINTS) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE,
                    "the grid has more than %" G_GUINT64_FORMAT " points; split the sweep",
                    FENNEL_SWEEP_MAX_POINTS);
        return FALSE;
    }
    return TRUE;
}

static void build_header(FennelSweep *s)
{
    s->columns = g_ptr_array_new_with_free_func(g_free);
    g_ptr_array_add(s->columns, g_strdup(s->programs ? "program" : "generator"));
    for (int i = 0; i < FENNEL_GEN_N_OPTIONS; i++) {
        if (s->columns_gen & (1u << i))
            g_ptr_array_add(s->columns, g_strdup(options[i].column));
    }
    for (guint i = 0; i < s->model_columns->len; i++)
        g_ptr_array_add(s->columns,
                        g_strdup(g_array_index(s->model_columns, FennelSweepModelColumn, i).name));
    g_ptr_array_add(s->columns, g_strdup("seed"));
    fennel__sweep_result_columns(s, s->columns);
}

FennelSweep *fennel_sweep_new(const FennelSweepSpec *spec, GError **error)
{
    FennelSweep *s = g_new0(FennelSweep, 1);
    s->seed = spec->seed;
    s->repeat = spec->repeat;
    s->shard = spec->shard;
    s->shards = spec->shards;
    s->model_file = g_strdup(spec->model->model_file);
    s->network = g_strdup(spec->model->network);
    gboolean ok = TRUE;
    for (int i = 0; i < FENNEL_GEN_N_OPTIONS && ok; i++) {
        const char *text = option_texts(spec->gen, i);
        if (text)
            ok = parse_dim(&s->dims[i], i, text, error);
    }
    ok = ok && fennel__sweep_parse_sets(s, spec->model->set, error) &&
         fennel__sweep_build_models(s, spec->model, error);
    if (spec->generators || spec->libraries)
        ok = ok &&
             build_generators(s, spec->generators, spec->libraries, spec->collective, error) &&
             check_schedules(s, error);
    else
        ok = ok && build_programs(s, spec, error);
    if (!ok) {
        fennel_sweep_free(s);
        return NULL;
    }
    s->n_points = s->gen_start[s->n_outer];
    s->first = s->n_points * (s->shard - 1) / s->shards;
    s->end = s->n_points * s->shard / s->shards;
    build_header(s);
    return s;
}

void fennel_sweep_free(FennelSweep *s)
{
    if (s == NULL)
        return;
    for (int i = 0; i < FENNEL_GEN_N_OPTIONS; i++) {
        g_free(s->dims[i].num);
        g_strfreev(s->dims[i].text);
    }
    fennel__sweep_clear_models(s);
    g_free(s->generators);
    g_free(s->libraries);
    g_free(s->library_gens);
    g_free(s->collective);
    g_strfreev(s->list);
    g_strfreev(s->programs);
    g_free(s->program_bytes);
    g_free(s->gen_start);
    g_free(s->model_file);
    g_free(s->network);
    if (s->columns)
        g_ptr_array_free(s->columns, TRUE);
    g_free(s);
}

void fennel_sweep_range(const FennelSweep *s, uint64_t *first, uint64_t *end)
{
    *first = s->first;
    *end = s->end;
}

uint32_t fennel_sweep_repeat(const FennelSweep *s)
{
    return s->repeat;
}

gboolean fennel_sweep_has_header(const FennelSweep *s)
{
    return s->shard == 1;
}

void fennel_sweep_header(const FennelSweep *s, GString *out)
{
    for (guint i = 0; i < s->columns->len; i++) {
        if (i)
            g_string_append_c(out, ',');
        fennel__csv_field(out, g_ptr_array_index(s->columns, i));
    }
    g_string_append_c(out, '\n');
}

void fennel__sweep_decode(const FennelSweep *s, uint64_t point, FennelSweepPoint *pt)
{
    guint g = 0;
    while (point >= s->gen_start[g + 1])
        g++;
    uint64_t rest = point - s->gen_start[g];
    pt->gen = g;
    pt->model = (guint)(rest % s->n_models);
    rest /= s->n_models;
    unsigned used = fennel__sweep_outer_options(s, g);
    for (int i = FENNEL_GEN_N_OPTIONS; i-- > 0;) {
        const FennelSweepDim *d = &s->dims[i];
        if (d->n && (used & (1u << i))) {
            pt->idx[i] = (guint)(rest % d->n);
            rest /= d->n;
        } else {
            pt->idx[i] = G_MAXUINT;
        }
    }
}

void fennel_sweep_row_prefix(const FennelSweep *s, uint64_t row, GString *out)
{
    FennelSweepPoint pt;
    fennel__sweep_decode(s, row / s->repeat, &pt);
    if (s->programs) {
        fennel__csv_field(out, s->programs[pt.gen]);
        g_string_append_c(out, ',');
    } else {
        g_string_append_printf(out, "%s,", s->generators[pt.gen]->name);
    }
    unsigned used = fennel__sweep_outer_options(s, pt.gen);
    for (int i = 0; i < FENNEL_GEN_N_OPTIONS; i++) {
        if (!(s->columns_gen & (1u << i)))
            continue;
        if (pt.idx[i] != G_MAXUINT)
            fennel__csv_field(out, s->dims[i].text[pt.idx[i]]);
        else if (used & (1u << i))
            g_string_append(out, options[i].default_text);
        g_string_append_c(out, ',');
    }
    g_string_append(out, s->model_cells[pt.model]);
    g_string_append_printf(out, "%" G_GUINT64_FORMAT ",", s->seed + row % s->repeat);
}

static void json_strings(GString *out, char *const *v, guint n)
{
    g_string_append_c(out, '[');
    for (guint i = 0; i < n; i++) {
        if (i)
            g_string_append_c(out, ',');
        fennel_json_string(out, v[i]);
    }
    g_string_append_c(out, ']');
}

void fennel_sweep_json(const FennelSweep *s, const char *output, GString *out)
{
    g_string_append(out, "{\"fennel\":1,\"command\":\"sweep\",\"output\":");
    fennel_json_string(out, output);
    if (s->programs) {
        g_string_append(out, ",\"programs\":");
        json_strings(out, s->programs, s->n_programs);
    } else {
        g_string_append(out, ",\"generators\":[");
        for (guint g = 0; g < s->n_generators; g++)
            g_string_append_printf(out, "%s\"%s\"", g ? "," : "", s->generators[g]->name);
        g_string_append_c(out, ']');
        if (s->library_columns) {
            g_string_append(out, ",\"libraries\":[");
            gboolean any = FALSE;
            for (guint g = 0; g < s->n_generators; g++) {
                if (s->libraries[g]) {
                    g_string_append_printf(out, "%s\"%s\"", any ? "," : "", s->libraries[g]);
                    any = TRUE;
                }
            }
            g_string_append(out, "],\"collective\":");
            fennel_json_string(out, s->collective);
        }
    }
    g_string_append(out, ",\"options\":{");
    gboolean first = TRUE;
    for (int i = 0; i < FENNEL_GEN_N_OPTIONS; i++) {
        if (s->dims[i].n == 0)
            continue;
        g_string_append_printf(out, "%s\"%s\":", first ? "" : ",", options[i].column);
        if (s->dims[i].num) {
            g_string_append_c(out, '[');
            for (guint k = 0; k < s->dims[i].n; k++)
                g_string_append_printf(out, "%s%" G_GINT64_FORMAT, k ? "," : "", s->dims[i].num[k]);
            g_string_append_c(out, ']');
        } else {
            json_strings(out, s->dims[i].text, s->dims[i].n);
        }
        first = FALSE;
    }
    g_string_append(out, "},\"model_file\":");
    if (s->model_file)
        fennel_json_string(out, s->model_file);
    else
        g_string_append(out, "null");
    g_string_append(out, ",\"base_model\":");
    fennel_model_append_json(&s->base, out);
    g_string_append(out, ",\"set\":[");
    for (guint k = 0; k < s->n_sets; k++) {
        g_string_append_printf(out, "%s{\"key\":", k ? "," : "");
        fennel_json_string(out, s->sets[k].key);
        g_string_append(out, ",\"values\":");
        json_strings(out, (char *const *)s->sets[k].values->pdata, s->sets[k].values->len);
        g_string_append_c(out, '}');
    }
    g_string_append_printf(out, "],\"seed\":%" G_GUINT64_FORMAT ",\"repeat\":%u,\"order\":[\"%s\"",
                           s->seed, s->repeat, s->programs ? "program" : "generator");
    for (int i = 0; i < FENNEL_GEN_N_OPTIONS; i++) {
        if (s->dims[i].n)
            g_string_append_printf(out, ",\"%s\"", options[i].column);
    }
    for (guint k = 0; k < s->n_sets; k++) {
        g_string_append(out, ",");
        char *name = g_strconcat("set:", s->sets[k].key, NULL);
        fennel_json_string(out, name);
        g_free(name);
    }
    g_string_append_printf(out,
                           ",\"repeat\"],\"points\":%" G_GUINT64_FORMAT
                           ",\"rows\":%" G_GUINT64_FORMAT
                           ",\"shard\":%u,\"shards\":%u,\"shard_points\":[%" G_GUINT64_FORMAT
                           ",%" G_GUINT64_FORMAT "],\"header\":%s,\"columns\":",
                           s->n_points, s->n_points * s->repeat, s->shard, s->shards, s->first,
                           s->end, s->shard == 1 ? "true" : "false");
    json_strings(out, (char *const *)s->columns->pdata, s->columns->len);
    g_string_append(out, ",\"fennel_version\":\"" FENNEL_VERSION "\"}\n");
}
