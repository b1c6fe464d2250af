/* Sweeps and plots: value lists and ranges, schedule lists, the grid (order, shards,
 * columns, model variants), the rows of a grid point, CSV reading, ticks and labels.
 * Expected times follow the lbp rules of docs/SEMANTICS.md (thesis Eq. 4.6), worked in comments. */
#include "errors.h"
#include "plot.h"
#include "sweep.h"

#include <fcntl.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Expands `text` and compares with the NUL-separated... list of numbers. */
static void expect_values(const char *text, FennelSweepKind kind, const int64_t *want, guint n)
{
    GArray *v = g_array_new(FALSE, FALSE, sizeof(int64_t));
    GError *error = NULL;
    g_assert_true(fennel_sweep_expand("--x", text, kind, 0, INT64_MAX, v, &error));
    g_assert_no_error(error);
    g_assert_cmpuint(v->len, ==, n);
    for (guint i = 0; i < n; i++)
        g_assert_cmpint(g_array_index(v, int64_t, i), ==, want[i]);
    g_array_free(v, TRUE);
}

static void expect_expand_error(const char *text, FennelSweepKind kind, int64_t min,
                                const char *message)
{
    GArray *v = g_array_new(FALSE, FALSE, sizeof(int64_t));
    GError *error = NULL;
    g_assert_false(fennel_sweep_expand("--x", text, kind, min, INT64_MAX, v, &error));
    g_assert_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE);
    g_assert_cmpstr(error->message, ==, message);
    g_error_free(error);
    g_array_free(v, TRUE);
}

static void test_expand(void)
{
    expect_values("8,16,32", FENNEL_SWEEP_INT, (int64_t[]){8, 16, 32}, 3);
    expect_values("2..6", FENNEL_SWEEP_INT, (int64_t[]){2, 3, 4, 5, 6}, 5);
    /* A step that does not land on the end stops before it. */
    expect_values("2..9:3", FENNEL_SWEEP_INT, (int64_t[]){2, 5, 8}, 3);
    expect_values("2..1024*2", FENNEL_SWEEP_INT,
                  (int64_t[]){2, 4, 8, 16, 32, 64, 128, 256, 512, 1024}, 10);
    /* 3 x 1.5^k rounded: 3, 4.5 -> 5 (half away from zero), 6.75 -> 7, 10.125 -> 10. */
    expect_values("3..10*1.5", FENNEL_SWEEP_INT, (int64_t[]){3, 5, 7, 10}, 4);
    /* 1 x 1.1^k: 1, 1.1, 1.21, 1.331, 1.4641, 1.61, 1.77, 1.95, 2.14: repeats dropped. */
    expect_values("1..2*1.1", FENNEL_SWEEP_INT, (int64_t[]){1, 2}, 2);
    expect_values("1,4..5,2", FENNEL_SWEEP_INT, (int64_t[]){1, 4, 5, 2}, 4);
    expect_values("8B..1KiB*4", FENNEL_SWEEP_SIZE, (int64_t[]){8, 32, 128, 512}, 4);
    expect_values("0..1KiB:512B", FENNEL_SWEEP_SIZE, (int64_t[]){0, 512, 1024}, 3);
    /* Durations in picoseconds; a bare number is nanoseconds. */
    expect_values("100ns..300ns:100ns", FENNEL_SWEEP_DURATION, (int64_t[]){100000, 200000, 300000},
                  3);
    expect_values("0.5us..1us:250", FENNEL_SWEEP_DURATION, (int64_t[]){500000, 750000, 1000000}, 3);
    /* 0.4 ns/B is 400 000 000 attoseconds per byte. */
    expect_values("0.4ns/B..0.8ns/B:0.2ns/B", FENNEL_SWEEP_RATE,
                  (int64_t[]){400000000, 600000000, 800000000}, 3);

    expect_expand_error("8..2", FENNEL_SWEEP_INT, 0,
                        "--x 8..2: empty range (the start is after the end)");
    expect_expand_error("2..8:0", FENNEL_SWEEP_INT, 0,
                        "--x 2..8:0: the step must be greater than 0");
    expect_expand_error("2..8*1", FENNEL_SWEEP_INT, 0,
                        "--x 2..8*1: the factor after '*' must be a number greater than 1");
    expect_expand_error("0..8*2", FENNEL_SWEEP_INT, 0,
                        "--x 0..8*2: a geometric range must start above 0");
    expect_expand_error("1ns..2ns", FENNEL_SWEEP_DURATION, 0,
                        "--x 1ns..2ns: a range of durations or per-byte times needs a step "
                        "(A..B:STEP) or a factor (A..B*FACTOR)");
    expect_expand_error("0..4", FENNEL_SWEEP_INT, 1, "--x 0..4: values must be at least 1");
    expect_expand_error("1,,2", FENNEL_SWEEP_INT, 0, "--x 1,,2: empty item in the list");
    expect_expand_error("1..", FENNEL_SWEEP_INT, 0,
                        "--x 1..: expected A..B, A..B:STEP or A..B*FACTOR");
    expect_expand_error("1..20000000", FENNEL_SWEEP_INT, 0,
                        "--x 1..20000000: more than 10000000 values");
    expect_expand_error("x", FENNEL_SWEEP_INT, 0, "--x x: 'x': expected a whole number");
}

static void test_expand_decimal(void)
{
    GPtrArray *v = g_ptr_array_new_with_free_func(g_free);
    GError *error = NULL;
    g_assert_true(
        fennel_sweep_expand_decimal("--set k=", "0..1:0.25,7ns,10ns..30ns:10ns", v, &error));
    const char *want[] = {"0", "0.25", "0.5", "0.75", "1", "7ns", "10ns", "20ns", "30ns"};
    g_assert_cmpuint(v->len, ==, G_N_ELEMENTS(want));
    for (guint i = 0; i < v->len; i++)
        g_assert_cmpstr(g_ptr_array_index(v, i), ==, want[i]);
    g_ptr_array_set_size(v, 0);
    /* 0.1 + 2 x 0.1 is 0.30000000000000004 in binary; twelve digits print 0.3, and the
     * end is kept. */
    g_assert_true(fennel_sweep_expand_decimal("--set k=", "0.1..0.3:0.1", v, &error));
    g_assert_cmpuint(v->len, ==, 3);
    g_assert_cmpstr(g_ptr_array_index(v, 2), ==, "0.3");
    g_assert_false(fennel_sweep_expand_decimal("--set k=", "1ns..2us:1ns", v, &error));
    g_assert_cmpstr(error->message, ==,
                    "--set k=1ns..2us:1ns: the ends and the step of the range need one unit");
    g_clear_error(&error);
    g_ptr_array_free(v, TRUE);
}

static void expect_schedules(const char *text, const char *joined)
{
    GError *error = NULL;
    char **s = fennel_sweep_split_schedules(text, &error);
    g_assert_no_error(error);
    char *got = g_strjoinv("|", s);
    g_assert_cmpstr(got, ==, joined);
    g_free(got);
    g_strfreev(s);
}

static void test_schedule_lists(void)
{
    expect_schedules("rd,heuristic", "rd|heuristic");
    expect_schedules("a2,a4", "a2,a4");
    expect_schedules("(a2,a4),(a4,a2),(8)", "(a2,a4)|(a4,a2)|(8)");
    expect_schedules("a2,a4;a4,a2; a8", "a2,a4|a4,a2|a8");
    expect_schedules("rd,a2,a4,heuristic:2.911,best,best:thesis",
                     "rd|a2,a4|heuristic:2.911|best|best:thesis");
    expect_schedules("(3,3)+2,c6m2,a3,e6m2", "(3,3)+2|c6m2,a3,e6m2");
    GError *error = NULL;
    g_assert_null(fennel_sweep_split_schedules("(a2,a4", &error));
    g_assert_cmpstr(error->message, ==, "--schedule (a2,a4: unbalanced parentheses");
    g_clear_error(&error);
    g_assert_null(fennel_sweep_split_schedules("rd,,a2", &error));
    g_assert_cmpstr(error->message, ==, "--schedule rd,,a2: empty schedule in the list");
    g_clear_error(&error);
}

/* A sweep from option texts; NULL texts are options not given. */
typedef struct {
    FennelGenTextOptions gen;
    FennelModelOptions model;
    FennelSweepSpec spec;
} Spec;

static void spec_init(Spec *s, const char *generators, const char *ranks, const char *size,
                      const char *schedule, char **set)
{
    memset(s, 0, sizeof *s);
    s->gen.ranks = (char *)ranks;
    s->gen.size = (char *)size;
    s->gen.schedule = (char *)schedule;
    s->model.network = (char *)"lbp";
    s->model.set = set;
    s->spec = (FennelSweepSpec){.generators = generators,
                                .gen = &s->gen,
                                .model = &s->model,
                                .repeat = 1,
                                .shard = 1,
                                .shards = 1};
}

static char *header(const FennelSweep *s)
{
    GString *h = g_string_new(NULL);
    fennel_sweep_header(s, h);
    return g_string_free(h, FALSE);
}

static char *prefix(const FennelSweep *s, uint64_t row)
{
    GString *p = g_string_new(NULL);
    fennel_sweep_row_prefix(s, row, p);
    return g_string_free(p, FALSE);
}

/* The thesis figure model: lbp alpha_p 500 ns, alpha_r 100 ns, beta 0.4 ns/B, 10 ns
 * computes. */
static char *thesis_set[] = {"alpha_p=500ns", "alpha_r=100ns", "beta=0.4ns/B",
                             "compute=fixed", "duration=10ns", NULL};

/* The work of a grid point, by which the progress reckons (sweep.h): p (ceil(log2 p) + 1)
 * for recursive doubling, the ring's p (p - 1) messages in each of its two phases, and the
 * width for multicast (2 ranks: 2 x 2 = 4, times the width). */
static void test_weights(void)
{
    Spec sp;
    spec_init(&sp, "allreduce-rd,allreduce-ring", "8,1000", NULL, NULL, NULL);
    GError *error = NULL;
    FennelSweep *s = fennel_sweep_new(&sp.spec, &error);
    g_assert_no_error(error);
    g_assert_cmpuint(fennel_sweep_point_weight(s, 0), ==, 8 * 4);
    g_assert_cmpuint(fennel_sweep_point_weight(s, 1), ==, 1000 * 11);
    g_assert_cmpuint(fennel_sweep_point_weight(s, 2), ==, 2 * 8 * 7);
    g_assert_cmpuint(fennel_sweep_point_weight(s, 3), ==, 2 * 1000 * 999);
    fennel_sweep_free(s);
    spec_init(&sp, "multicast", NULL, NULL, NULL, NULL);
    FennelGenTextOptions gen = {.width = (char *)"1,8000"};
    sp.spec.gen = &gen;
    s = fennel_sweep_new(&sp.spec, &error);
    g_assert_no_error(error);
    g_assert_cmpuint(fennel_sweep_point_weight(s, 0), ==, 4);
    g_assert_cmpuint(fennel_sweep_point_weight(s, 1), ==, 4 * 8000);
    fennel_sweep_free(s);
}

/* The progress reports of a sweep, as the callback receives them. */
typedef struct {
    GArray *reports; /* FennelSweepProgress */
} Reports;

static void collect(const FennelSweepProgress *progress, void *data)
{
    g_array_append_val(((Reports *)data)->reports, *progress);
}

static void test_progress(void)
{
    /* allreduce-rd on 4 and 8 ranks: 2 rows, weighed p (ceil(log2 p) + 1) = 4 x 3 = 12 and
     * 8 x 4 = 32 (fennel_sweep_point_weight), so after the first row 12 / 44 of the work
     * is done, after the second all of it and nothing is left. Reported after every batch
     * of rows (progress_seconds 0), then once as finished; the library itself writes
     * nothing on stderr. */
    Spec sp;
    spec_init(&sp, "allreduce-rd", "4,8", "8B", NULL, NULL);
    GError *error = NULL;
    FennelSweep *s = fennel_sweep_new(&sp.spec, &error);
    g_assert_no_error(error);
    char *dir = g_dir_make_tmp("fennel-sweep-XXXXXX", &error);
    g_assert_no_error(error);
    char *out = g_build_filename(dir, "rows.csv", NULL);
    char *err = g_build_filename(dir, "stderr", NULL);
    Reports r = {g_array_new(FALSE, FALSE, sizeof(FennelSweepProgress))};
    FennelSweepRunOptions o = {
        .output = out, .jobs = 1, .progress = collect, .progress_data = &r, .progress_seconds = 0};
    fflush(stderr);
    const int saved = dup(2), fd = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    g_assert_cmpint(saved, >=, 0);
    g_assert_cmpint(fd, >=, 0);
    dup2(fd, 2);
    int interrupted = 0;
    const gboolean ok = fennel_sweep_run(s, &o, &interrupted, &error);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    close(fd);
    g_assert_no_error(error);
    g_assert_true(ok);
    g_assert_cmpint(interrupted, ==, 0);
    struct stat st;
    g_assert_cmpint(stat(err, &st), ==, 0);
    g_assert_cmpint(st.st_size, ==, 0);
    g_assert_cmpuint(r.reports->len, >=, 2);
    uint64_t rows = 0;
    for (guint i = 0; i < r.reports->len; i++) {
        const FennelSweepProgress *p = &g_array_index(r.reports, FennelSweepProgress, i);
        g_assert_cmpint(p->stage, ==,
                        i + 1 == r.reports->len ? FENNEL_SWEEP_FINISHED : FENNEL_SWEEP_RUNNING);
        g_assert_cmpuint(p->total, ==, 2);
        g_assert_cmpuint(p->rows, >=, rows);
        rows = p->rows;
        g_assert_cmpfloat_with_epsilon(p->fraction, p->rows == 1 ? 12.0 / 44 : 1.0, 1e-12);
    }
    const FennelSweepProgress *last =
        &g_array_index(r.reports, FennelSweepProgress, r.reports->len - 2);
    g_assert_cmpuint(last->rows, ==, 2);
    g_assert_true(last->seconds_left == 0 || last->seconds_left == -1);
    g_array_free(r.reports, TRUE);
    char *sidecar = fennel_sweep_sidecar_path(out);
    g_unlink(out);
    g_unlink(err);
    g_unlink(sidecar);
    g_rmdir(dir);
    g_free(sidecar);
    g_free(out);
    g_free(err);
    g_free(dir);
    fennel_sweep_free(s);
}

static void test_grid_order(void)
{
    Spec sp;
    char *set[] = {"alpha_p=100ns,200ns", "alpha_r=1ns..3ns:1ns", NULL};
    spec_init(&sp, "allreduce-rd,allreduce-rm", "4,8", "8B,1KiB", "rd,a2,a2", set);
    sp.spec.repeat = 2;
    sp.spec.seed = 5;
    GError *error = NULL;
    FennelSweep *s = fennel_sweep_new(&sp.spec, &error);
    g_assert_no_error(error);
    /* allreduce-rd: 2 ranks x 2 sizes x 6 models = 24 points; allreduce-rm also 2
     * schedules: 48. */
    uint64_t first, end;
    fennel_sweep_range(s, &first, &end);
    g_assert_cmpuint(first, ==, 0);
    g_assert_cmpuint(end, ==, 72);
    char *h = header(s);
    g_assert_cmpstr(h, ==,
                    "generator,ranks,size_bytes,schedule,network,alpha_p_ns,alpha_r_ns,"
                    "beta_ns_per_byte,compute,compute_duration_ns,resolution_ns,"
                    "resolution_truncates,seed,schedule_used,analytic_ns,tasks,makespan_ns,"
                    "skew_ns,messages,bytes,events,bandwidth_bytes_per_ns,"
                    "message_rate_bytes_per_ns,error\n");
    g_free(h);
    /* Row 0: the first of everything, seed 5. The last --set key varies fastest, then
     * the repeat is innermost: row 1 is seed 6, row 2 alpha_r 2 ns. */
    const struct {
        uint64_t row;
        const char *want;
    } rows[] = {
        {0, "allreduce-rd,4,8,,lbp,100,1,0,fixed,0,0.001,false,5,"},
        {1, "allreduce-rd,4,8,,lbp,100,1,0,fixed,0,0.001,false,6,"},
        {2, "allreduce-rd,4,8,,lbp,100,2,0,fixed,0,0.001,false,5,"},
        {6, "allreduce-rd,4,8,,lbp,200,1,0,fixed,0,0.001,false,5,"},
        {12, "allreduce-rd,4,1024,,lbp,100,1,0,fixed,0,0.001,false,5,"},
        {24, "allreduce-rd,8,8,,lbp,100,1,0,fixed,0,0.001,false,5,"},
        {48, "allreduce-rm,4,8,rd,lbp,100,1,0,fixed,0,0.001,false,5,"},
        {60, "allreduce-rm,4,8,\"a2,a2\",lbp,100,1,0,fixed,0,0.001,false,5,"},
        {143, "allreduce-rm,8,1024,\"a2,a2\",lbp,200,3,0,fixed,0,0.001,false,6,"},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(rows); i++) {
        char *p = prefix(s, rows[i].row);
        g_assert_cmpstr(p, ==, rows[i].want);
        g_free(p);
    }
    fennel_sweep_free(s);
}

static void test_shards(void)
{
    for (uint32_t n = 1; n <= 7; n++) {
        uint64_t next = 0;
        for (uint32_t k = 1; k <= n; k++) {
            Spec sp;
            spec_init(&sp, "allreduce-rd", "2..11", NULL, NULL, NULL);
            sp.spec.shard = k;
            sp.spec.shards = n;
            GError *error = NULL;
            FennelSweep *s = fennel_sweep_new(&sp.spec, &error);
            g_assert_no_error(error);
            uint64_t first, end;
            fennel_sweep_range(s, &first, &end);
            /* Contiguous parts that cover the 10 points, sizes floor or ceil of 10/n. */
            g_assert_cmpuint(first, ==, next);
            g_assert_cmpuint(end - first, >=, 10 / n);
            g_assert_cmpuint(end - first, <=, (10 + n - 1) / n);
            g_assert_cmpint(fennel_sweep_has_header(s), ==, k == 1);
            next = end;
            fennel_sweep_free(s);
        }
        g_assert_cmpuint(next, ==, 10);
    }
}

/* The fields of CSV row text (no quoted commas in the rows compared here except where
 * the test says). */
static char **fields_of(const char *row)
{
    char *copy = g_strndup(row, strcspn(row, "\n"));
    char **f = g_strsplit(copy, ",", -1);
    g_free(copy);
    return f;
}

static void test_point_rows(void)
{
    Spec sp;
    spec_init(&sp, "allreduce-rm", "8", "8", "a8;a4,a2;rd;a3", thesis_set);
    sp.spec.repeat = 3;
    GError *error = NULL;
    FennelSweep *s = fennel_sweep_new(&sp.spec, &error);
    g_assert_no_error(error);
    /* Under lbp a stage in which each rank sends b messages of 8 B takes b alpha_r +
     * alpha_p + 8 beta (the last message's arrival) + 10 ns (the compute):
     *   a8: 700 + 500 + 3.2 + 10 = 1213.2 ns
     *   a4,a2: (300 + 513.2) + (100 + 513.2) = 1426.4 ns
     *   rd (a2,a2,a2): 3 x 613.2 = 1839.6 ns
     * and a3 is impossible for 8 ranks: error rows, results empty. */
    const struct {
        const char *used, *makespan;
        int messages;
    } want[] = {{"a8", "1213.2", 56}, {"\"a4,a2\"", "1426.4", 32}, {"\"a2,a2,a2\"", "1839.6", 24}};
    for (uint64_t p = 0; p < 3; p++) {
        GString *rows = g_string_new(NULL);
        fennel_sweep_point(s, p, rows);
        char **lines = g_strsplit(rows->str, "\n", -1);
        g_assert_cmpuint(g_strv_length(lines), ==, 4); /* 3 rows and the empty tail */
        for (int k = 0; k < 3; k++) {
            char *pre = prefix(s, p * 3 + k);
            g_assert_true(g_str_has_prefix(lines[k], pre));
            const char *rest = lines[k] + strlen(pre);
            g_assert_true(g_str_has_prefix(rest, want[p].used));
            /* A schedule with commas is quoted; the later fields have none. */
            char **f = fields_of(rest + strlen(want[p].used) + 1);
            /* analytic_ns, tasks, makespan_ns, skew_ns, messages, ... error */
            g_assert_cmpstr(f[0], ==, want[p].makespan); /* every stage a full multicast */
            g_assert_cmpstr(f[2], ==, want[p].makespan);
            g_assert_cmpstr(f[3], ==, "0");
            g_assert_cmpint(atoi(f[4]), ==, want[p].messages);
            g_assert_cmpint(atoi(f[5]), ==, 8 * want[p].messages);
            g_assert_cmpstr(f[g_strv_length(f) - 1], ==, "");
            g_strfreev(f);
            g_free(pre);
        }
        g_strfreev(lines);
        g_string_free(rows, TRUE);
    }
    /* One error row per repeat: schedule_used, analytic_ns and the 8 results empty. */
    GString *rows = g_string_new(NULL);
    fennel_sweep_point(s, 3, rows);
    char **lines = g_strsplit(rows->str, "\n", -1);
    g_assert_cmpuint(g_strv_length(lines), ==, 4);
    for (int k = 0; k < 3; k++) {
        char *pre = prefix(s, 9 + k);
        g_assert_true(g_str_has_prefix(lines[k], pre));
        g_assert_true(g_str_has_prefix(lines[k] + strlen(pre),
                                       ",,,,,,,,,,allreduce-rm: --schedule a3 is impossible for "
                                       "8 ranks"));
        g_free(pre);
    }
    g_strfreev(lines);
    g_string_free(rows, TRUE);
    fennel_sweep_free(s);
}

static void expect_sweep_error(const char *generators, const char *ranks, const char *schedule,
                               char **set, const char *message)
{
    Spec sp;
    spec_init(&sp, generators, ranks, NULL, schedule, set);
    GError *error = NULL;
    g_assert_null(fennel_sweep_new(&sp.spec, &error));
    g_assert_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE);
    g_assert_cmpstr(error->message, ==, message);
    g_error_free(error);
}

static void test_sweep_errors(void)
{
    expect_sweep_error("allreduce-rd", "4", NULL, (char *[]){"alpha=1ns,2ns", NULL},
                       "--set alpha=1ns: unknown parameter 'alpha' (network model lbp has: "
                       "alpha_p, alpha_r, beta; compute model fixed has: duration; also: "
                       "resolution, network, compute, ranks_per_node, intra, intra.NAME)");
    expect_sweep_error("allreduce-rd", "4", NULL, (char *[]){"alpha_p=2ns..1ns:1ns", NULL},
                       "--set alpha_p=2ns..1ns:1ns: empty range (the start is after the end)");
    expect_sweep_error("allreduce-rd", "4", NULL, (char *[]){"network=lbp..postal", NULL},
                       "--set network=lbp..postal: network takes names, not ranges");
    expect_sweep_error("allreduce-rd", "4", "rd", NULL,
                       "--schedule: no generator of the sweep uses it");
    expect_sweep_error("allreduce-rd", NULL, NULL, NULL, "generator allreduce-rd needs --ranks");
    expect_sweep_error("allreduce-rd,allreduce-rd", "4", NULL, NULL,
                       "--generate: allreduce-rd is listed twice");
    expect_sweep_error("allgather-rm", "4", "best", NULL,
                       "--schedule best: only allreduce-rm has the analytic cost that ranks "
                       "schedules (not allgather-rm)");
    expect_sweep_error("allreduce-rm", "4", "heuristic:x", NULL,
                       "--schedule heuristic:x: expected heuristic:RATIO with a ratio "
                       "alpha_p/alpha_r >= 0, e.g. heuristic:2.911");
}

/* Options a generator does not use are empty on its rows; the defaults of those it uses
 * but were not given are shown. */
static void test_multi_generator(void)
{
    Spec sp;
    spec_init(&sp, "allreduce-rd,bcast-binomial", "4", NULL, NULL, NULL);
    sp.gen.root = (char *)"0..1";
    GError *error = NULL;
    FennelSweep *s = fennel_sweep_new(&sp.spec, &error);
    g_assert_no_error(error);
    uint64_t first, end;
    fennel_sweep_range(s, &first, &end);
    g_assert_cmpuint(end, ==, 3); /* allreduce-rd once, bcast-binomial for roots 0 and 1 */
    char *h = header(s);
    g_assert_true(g_str_has_prefix(h, "generator,ranks,size_bytes,root,network,"));
    g_free(h);
    char *p0 = prefix(s, 0), *p2 = prefix(s, 2);
    g_assert_true(g_str_has_prefix(p0, "allreduce-rd,4,8,,lbp,"));
    g_assert_true(g_str_has_prefix(p2, "bcast-binomial,4,8,1,lbp,"));
    g_free(p0);
    g_free(p2);
    fennel_sweep_free(s);
}

/* `best` is the cheapest schedule by the analytic cost; for 8 ranks under the thesis
 * figure model the multicast a8 (1213.2 ns) beats a4,a2 (1426.4) and a2,a2,a2
 * (1839.6), as above. */
static void test_best(void)
{
    Spec sp;
    spec_init(&sp, "allreduce-rm", "8", "8", "best", thesis_set);
    GError *error = NULL;
    FennelSweep *s = fennel_sweep_new(&sp.spec, &error);
    g_assert_no_error(error);
    GString *rows = g_string_new(NULL);
    fennel_sweep_point(s, 0, rows);
    char *pre = prefix(s, 0);
    g_assert_true(g_str_has_prefix(rows->str + strlen(pre), "a8,1213.2,"));
    g_free(pre);
    g_string_free(rows, TRUE);
    fennel_sweep_free(s);
}

static void test_csv_parse(void)
{
    const char *text = "a,b,c\r\n1,\"x,\"\"y\"\"\",3\n\"multi\nline\",,\n4,5,6";
    GArray *rows_at = NULL;
    GError *error = NULL;
    GPtrArray *rows = fennel_csv_parse("t.csv", text, strlen(text), &rows_at, &error);
    g_assert_no_error(error);
    g_assert_cmpuint(rows->len, ==, 4);
    char **r1 = g_ptr_array_index(rows, 1), **r2 = g_ptr_array_index(rows, 2);
    g_assert_cmpstr(r1[1], ==, "x,\"y\"");
    g_assert_cmpstr(r2[0], ==, "multi\nline");
    g_assert_cmpstr(r2[2], ==, "");
    g_assert_cmpuint(g_strv_length(g_ptr_array_index(rows, 3)), ==, 3);
    /* The row after the two-line field starts on line 5. */
    g_assert_cmpuint(g_array_index(rows_at, FennelCsvRow, 3).line, ==, 5);
    /* Field 2 of row 1 follows "1," (2 characters), the quoted field (9: the quotes,
     * x, the comma, two doubled quotes and y) and its comma: column 13. */
    FennelCsvRow r = g_array_index(rows_at, FennelCsvRow, 1);
    g_assert_cmpuint(fennel_csv_column(text, strlen(text), r.offset, 2), ==, 13);
    g_array_free(rows_at, TRUE);
    g_ptr_array_free(rows, TRUE);

    const char *bad = "a,b\n1,\"open\n";
    g_assert_null(fennel_csv_parse("t.csv", bad, strlen(bad), NULL, &error));
    g_assert_cmpstr(error->message, ==, "t.csv:2:3: unclosed quote");
    g_clear_error(&error);
    const char *after = "a,b\n\"x\"y,2\n";
    g_assert_null(fennel_csv_parse("t.csv", after, strlen(after), NULL, &error));
    g_assert_cmpstr(error->message, ==, "t.csv:2:4: text after a closing quote");
    g_clear_error(&error);
}

static void test_plot_data(void)
{
    /* Two groups in order of their first row; group a has three rows at x = 2 (median 5
     * of 4, 5, 9) and an error row without y, which is left out. */
    const char *text = "x,y,g\n2,4,a\n1,7,b\n2,9,a\n1,1,a\n2,5,a\n3,,a\n";
    FennelPlotOptions o = {.x = "x", .y = "y", .by = "g"};
    GError *error = NULL;
    FennelPlotData *d = fennel_plot_data_read("t.csv", text, strlen(text), &o, &error);
    g_assert_no_error(error);
    g_assert_cmpuint(d->n_series, ==, 2);
    g_assert_cmpstr(d->series[0].name, ==, "a");
    g_assert_cmpstr(d->series[1].name, ==, "b");
    const FennelPlotSeries *a = &d->series[0];
    g_assert_cmpuint(a->n_points, ==, 2);
    g_assert_true(a->band);
    g_assert_false(d->series[1].band);
    g_assert_cmpfloat(a->points[0].x, ==, 1);
    g_assert_cmpfloat(a->points[1].median, ==, 5);
    g_assert_cmpfloat(a->points[1].min, ==, 4);
    g_assert_cmpfloat(a->points[1].max, ==, 9);
    g_assert_cmpuint(a->points[1].n, ==, 3);

    /* Drawn: one series group each, and the band of group a. */
    o.width = 640;
    o.height = 400;
    FennelCanvas *c = fennel_plot_draw(d, &o);
    GString *svg = g_string_new(NULL);
    fennel_canvas_write_svg(c, svg);
    const char *at = svg->str;
    int series = 0;
    while ((at = strstr(at, "class=\"series\"")) != NULL) {
        series++;
        at++;
    }
    g_assert_cmpint(series, ==, 2);
    g_assert_nonnull(strstr(svg->str, "class=\"band\""));
    g_string_free(svg, TRUE);
    fennel_canvas_free(c);
    fennel_plot_data_free(d);

    /* An even count: the median is the mean of the middle two. */
    const char *even = "x,y\n1,1\n1,2\n1,10\n1,20\n";
    o = (FennelPlotOptions){.x = "x", .y = "y"};
    d = fennel_plot_data_read("t.csv", even, strlen(even), &o, &error);
    g_assert_cmpfloat(d->series[0].points[0].median, ==, 6);
    g_assert_cmpstr(d->series[0].name, ==, "y");
    fennel_plot_data_free(d);

    /* An empty --by cell is a group of its own. Thirty groups need a legend of 30 rows
     * of 18 pixels, more than a 200-pixel picture: the picture grows. */
    GString *many = g_string_new("x,y,g\n1,2,\n");
    for (int k = 0; k < 29; k++)
        g_string_append_printf(many, "1,2,g%d\n", k);
    o = (FennelPlotOptions){.x = "x", .y = "y", .by = "g", .width = 400, .height = 200};
    d = fennel_plot_data_read("t.csv", many->str, many->len, &o, &error);
    g_assert_cmpuint(d->n_series, ==, 30);
    g_assert_cmpstr(d->series[0].name, ==, "(empty)");
    c = fennel_plot_draw(d, &o);
    g_assert_cmpfloat(fennel_canvas_height(c), >, 30 * 18);
    fennel_canvas_free(c);
    fennel_plot_data_free(d);
    g_string_free(many, TRUE);

    o = (FennelPlotOptions){.x = "x", .y = "z"};
    g_assert_null(fennel_plot_data_read("t.csv", text, strlen(text), &o, &error));
    g_assert_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE);
    g_assert_cmpstr(error->message, ==, "-y z: t.csv has no such column (it has: x, y, g)");
    g_clear_error(&error);
    o = (FennelPlotOptions){.x = "g", .y = "y"};
    g_assert_null(fennel_plot_data_read("t.csv", text, strlen(text), &o, &error));
    g_assert_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT);
    g_assert_cmpstr(error->message, ==,
                    "t.csv:2:5: column 'g' holds 'a' where a number is expected");
    g_clear_error(&error);
    o = (FennelPlotOptions){.x = "x", .y = "y", .logy = TRUE};
    const char *zero = "x,y\n1,0\n";
    g_assert_null(fennel_plot_data_read("t.csv", zero, strlen(zero), &o, &error));
    g_assert_cmpstr(error->message, ==,
                    "t.csv:2:3: column 'y' holds 0, which a logarithmic axis cannot show");
    g_clear_error(&error);
    const char *ragged = "x,y\n1,2,3\n";
    g_assert_null(fennel_plot_data_read("t.csv", ragged, strlen(ragged), &o, &error));
    g_assert_cmpstr(error->message, ==, "t.csv:2:1: expected 2 fields as in the header, found 3");
    g_clear_error(&error);
    const char *empty = "x,y\n1,\n";
    g_assert_null(fennel_plot_data_read("t.csv", empty, strlen(empty), &o, &error));
    g_assert_cmpstr(error->message, ==, "t.csv: no row has numbers in both 'x' and 'y'");
    g_clear_error(&error);
}

static void expect_ticks(double lo, double hi, gboolean log_axis, guint max, const double *want,
                         guint n)
{
    double t[64];
    guint got = fennel_plot_ticks(lo, hi, log_axis, max, t);
    g_assert_cmpuint(got, ==, n);
    for (guint i = 0; i < n; i++)
        g_assert_cmpfloat_with_epsilon(t[i], want[i], 1e-9 * fabs(want[i]) + 1e-12);
}

static void test_ticks(void)
{
    /* 0..1000 in at most 5: the step 200 (1000/5 = 200 is 2 x 10^2). */
    expect_ticks(0, 1000, FALSE, 5, (double[]){0, 200, 400, 600, 800, 1000}, 6);
    /* 0.13..0.92 in at most 8: raw step 0.099 -> 0.1. */
    expect_ticks(0.13, 0.92, FALSE, 8, (double[]){0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9}, 8);
    expect_ticks(-3, 3, FALSE, 3, (double[]){-2, 0, 2}, 3);
    /* Decades inside 2..1024: 10, 100, 1000. */
    expect_ticks(2, 1024, TRUE, 8, (double[]){10, 100, 1000}, 3);
    /* Less than three decades: 2 and 5 times them join in. */
    expect_ticks(3, 60, TRUE, 8, (double[]){5, 10, 20, 50}, 4);
    /* Twelve decades in at most 4 labels: every third power. */
    expect_ticks(1, 1e11, TRUE, 4, (double[]){1, 1e3, 1e6, 1e9}, 4);
    char *l = fennel_plot_label("makespan_ns");
    g_assert_cmpstr(l, ==, "makespan (ns)");
    g_free(l);
    l = fennel_plot_label("beta_ns_per_byte");
    g_assert_cmpstr(l, ==, "beta (ns/B)");
    g_free(l);
    l = fennel_plot_label("ranks");
    g_assert_cmpstr(l, ==, "ranks");
    g_free(l);
}

static void test_sidecar_path(void)
{
    const char *cases[][2] = {{"out.csv", "out.json"},
                              {"dir/x.CSV", "dir/x.json"},
                              {"results", "results.json"},
                              {".csv", ".csv.json"}};
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        char *p = fennel_sweep_sidecar_path(cases[i][0]);
        g_assert_cmpstr(p, ==, cases[i][1]);
        g_free(p);
    }
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/sweep/expand", test_expand);
    g_test_add_func("/sweep/expand-decimal", test_expand_decimal);
    g_test_add_func("/sweep/schedule-lists", test_schedule_lists);
    g_test_add_func("/sweep/grid-order", test_grid_order);
    g_test_add_func("/sweep/shards", test_shards);
    g_test_add_func("/sweep/point-rows", test_point_rows);
    g_test_add_func("/sweep/errors", test_sweep_errors);
    g_test_add_func("/sweep/multi-generator", test_multi_generator);
    g_test_add_func("/sweep/best", test_best);
    g_test_add_func("/sweep/sidecar-path", test_sidecar_path);
    g_test_add_func("/sweep/weights", test_weights);
    g_test_add_func("/sweep/progress", test_progress);
    g_test_add_func("/plot/csv", test_csv_parse);
    g_test_add_func("/plot/data", test_plot_data);
    g_test_add_func("/plot/ticks", test_ticks);
    return g_test_run();
}
