/* The schedule notation, the recursive-multiplying programs and their times. Expected
 * peers, counts and times are derived in the comments from the thesis' algorithms and
 * formulas (Rüfenacht thesis §5.2-5.6, Algorithms 1-6, Eqs. 5.2-5.12; the 2017 article),
 * never taken from fennel's own output. */
#include "engine.h"
#include "enumerate.h"
#include "errors.h"
#include "generator.h"
#include "heuristic.h"
#include "recursive_multiplying.h"
#include "verify.h"

#include <math.h>
#include <string.h>

/* The thesis figure model (thesis §5.6.1): lbp alpha_p 500 ns, alpha_r 100 ns,
 * 0.4 ns/B, compute 10 ns; an 8-byte put arrives 100 + 500 + 3.2 = 603.2 ns after issue. */
static const char *thesis_model = "fennel: 1\n"
                                  "network: {model: lbp, alpha_p: 500ns, alpha_r: 100ns, "
                                  "beta: 0.4ns/B}\n"
                                  "compute: {model: fixed, duration: 10ns}\n";

static void model_from(FennelModel *m, const char *yaml)
{
    GError *error = NULL;
    fennel_model_init(m);
    g_assert_true(fennel_model_parse(m, "test-model.yaml", yaml, strlen(yaml), &error));
    g_assert_no_error(error);
}

static FennelSchedule *schedule_for(const char *text, uint32_t ranks)
{
    GError *error = NULL;
    FennelSchedule *s =
        fennel_rm_schedule("test", text, ranks, FENNEL_HEURISTIC_DEFAULT_RATIO, &error);
    g_assert_no_error(error);
    return s;
}

static FennelProgram *program_for(const char *text, uint32_t ranks, int64_t size, gboolean reducing)
{
    GError *error = NULL;
    FennelSchedule *s = schedule_for(text, ranks);
    FennelProgram *p = fennel_rm_program(s, ranks, size, reducing, &error);
    g_assert_no_error(error);
    fennel_schedule_free(s);
    return p;
}

/* Runs p under the model; per-rank finish times (ps) go to finish when not NULL. */
static FennelTime simulate(const FennelProgram *p, const FennelModel *m, FennelTime *finish)
{
    GError *error = NULL;
    FennelMachine *machine = fennel_machine_new(p->n_ranks, 1, m);
    g_assert_true(fennel_machine_run(machine, p, &error));
    g_assert_no_error(error);
    FennelTime t = fennel_machine_makespan(machine);
    for (uint32_t r = 0; finish && r < p->n_ranks; r++)
        finish[r] = fennel_machine_slot_time(machine, r, 0);
    fennel_machine_free(machine);
    return t;
}

static FennelTime makespan_of(const char *text, uint32_t ranks, const char *model_yaml)
{
    FennelModel m;
    model_from(&m, model_yaml);
    FennelProgram *p = program_for(text, ranks, 8, TRUE);
    FennelTime t = simulate(p, &m, NULL);
    fennel_program_free(p);
    fennel_model_clear(&m);
    return t;
}

/* ---- notation ---- */

static void expect_format(const char *text, const char *printed, const char *brief)
{
    GError *error = NULL;
    FennelSchedule *s = fennel_schedule_parse(text, &error);
    g_assert_no_error(error);
    char *a = fennel_schedule_format(s), *b = fennel_schedule_format_short(s);
    g_assert_cmpstr(a, ==, printed);
    g_assert_cmpstr(b, ==, brief);
    g_free(a);
    g_free(b);
    fennel_schedule_free(s);
}

static void test_parse_format(void)
{
    expect_format("a4,a2", "a4,a2", "(4,2)");
    expect_format("(4,4,3)", "a4,a4,a3", "(4,4,3)");
    expect_format(" ( 4, 4, 3 ) ", "a4,a4,a3", "(4,4,3)");
    expect_format("(a8)", "a8", "(8)");
    expect_format("c6m2,a2,a2,e6m2", "c6m2,a2,a2,e6m2", NULL);
    expect_format("m1g2a3,n1g3a2", "m1g2a3,n1g3a2", "(3,2)+1");
    /* (3,3)+2 for 11 ranks: core 9, G = 9/3 = 3 in both stages (thesis Table 5.2). */
    expect_format("(3,3)+2", "m2g3a3,n2g3a3", "(3,3)+2");
    /* (4,4,3)+1: core 48, first G = 48/4 = 12, last G = 48/3 = 16. */
    expect_format("(4,4,3) + 1", "m1g12a4,a4,n1g16a3", "(4,4,3)+1");
    expect_format("(2,2)+0", "a2,a2", "(2,2)");
    expect_format("()", "()", "()");
}

static void expect_parse_error(const char *text, const char *message)
{
    GError *error = NULL;
    g_assert_null(fennel_schedule_parse(text, &error));
    g_assert_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT);
    g_assert_cmpstr(error->message, ==, message);
    g_error_free(error);
}

static void test_parse_errors(void)
{
    expect_parse_error("a2,x3", "stage 2 'x3' is not aF, cTmB, eTmB, mRgGaF or nRgGaF");
    expect_parse_error("a1", "stage 1 'a1' needs a factor of at least 2");
    expect_parse_error("c6m1,a2,e6m1", "stage 1 'c6m1' needs a base B of at least 2");
    expect_parse_error("m0g2a3,n0g3a2",
                       "stage 1 'm0g2a3' needs a remainder R and groups G of at least 1");
    expect_parse_error("a2,,a2", "stage 2 '' is not aF, cTmB, eTmB, mRgGaF or nRgGaF");
    expect_parse_error("a99999999999", "stage 1 'a99999999999' is not aF, cTmB, eTmB, mRgGaF "
                                       "or nRgGaF");
    expect_parse_error("(3,3", "'(' without ')'");
    expect_parse_error("(3,3)x", "unexpected 'x' after ')'");
    expect_parse_error("(3,3)+", "expected a remainder after '+', as in (3,3)+2");
    expect_parse_error("(12)+1", "a merged schedule needs at least two factors (thesis §5.4.2)");
    expect_parse_error("(c2m2,e2m2)+1", "'(...)+R' takes factors only, as in (3,3)+2");
    expect_parse_error("", "empty schedule (write \"()\" for the schedule of one rank)");
}

static void expect_impossible(const char *text, uint32_t ranks, const char *message)
{
    GError *error = NULL;
    g_assert_null(
        fennel_rm_schedule("allreduce-rm", text, ranks, FENNEL_HEURISTIC_DEFAULT_RATIO, &error));
    g_assert_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT);
    g_assert_cmpstr(error->message, ==, message);
    g_error_free(error);
}

static void test_impossible(void)
{
    expect_impossible("a4,a3", 7,
                      "allreduce-rm: --schedule a4,a3 is impossible for 7 ranks: the factors "
                      "4x3 = 12 do not multiply to the 7 ranks");
    expect_impossible("c7m2,a2,a2,e7m2", 8,
                      "allreduce-rm: --schedule c7m2,a2,a2,e7m2 is impossible for 8 ranks: "
                      "c7m2: the threshold 7 is not divisible by the base 2");
    expect_impossible("c10m2,a2,e10m2", 8,
                      "allreduce-rm: --schedule c10m2,a2,e10m2 is impossible for 8 ranks: "
                      "c10m2: the threshold 10 exceeds the 8 active ranks");
    /* Inside c6m2 on 7 ranks 7 - 6 + 6/2 = 4 ranks stay active. */
    expect_impossible("c6m2,a2,e6m2", 7,
                      "allreduce-rm: --schedule c6m2,a2,e6m2 is impossible for 7 ranks: the "
                      "factors 2 do not multiply to the 4 ranks active inside c6m2 (7 - 6 + 6/2)");
    expect_impossible("c6m2,a2,a2,e6m3", 7,
                      "allreduce-rm: --schedule c6m2,a2,a2,e6m3 is impossible for 7 ranks: "
                      "e6m3 (stage 4) does not match the collapse c6m2");
    expect_impossible("c6m2,a2,a2", 7,
                      "allreduce-rm: --schedule c6m2,a2,a2 is impossible for 7 ranks: c6m2 "
                      "(stage 1) has no matching expand e6m2 at the end");
    expect_impossible("a2,a2,e6m2", 7,
                      "allreduce-rm: --schedule a2,a2,e6m2 is impossible for 7 ranks: e6m2 "
                      "(stage 3) has no matching collapse before it");
    expect_impossible("a2,c4m2,a2,e4m2", 6,
                      "allreduce-rm: --schedule a2,c4m2,a2,e4m2 is impossible for 6 ranks: "
                      "c4m2 (stage 2) must open the schedule or directly follow a collapse");
    /* R + G x F = 1 + 2 x 3 = 7 ranks, not 8. */
    expect_impossible("m1g2a3,n1g3a2", 8,
                      "allreduce-rm: --schedule m1g2a3,n1g3a2 is impossible for 8 ranks: "
                      "m1g2a3: R + G x F = 1 + 2x3 = 7, not the 8 active ranks");
    expect_impossible("m1g2a3,n1g2a3", 7,
                      "allreduce-rm: --schedule m1g2a3,n1g2a3 is impossible for 7 ranks: "
                      "the core factors 3x3 = 9 do not multiply to the 6 core ranks (7 - 1)");
    expect_impossible("m1g2a3,n2g3a2", 7,
                      "allreduce-rm: --schedule m1g2a3,n2g3a2 is impossible for 7 ranks: "
                      "n2g3a2 (stage 2) does not match the merge m1g2a3: the remainders differ");
    expect_impossible("m1g2a3,c2m2,e2m2,n1g3a2", 7,
                      "allreduce-rm: --schedule m1g2a3,c2m2,e2m2,n1g3a2 is impossible for 7 "
                      "ranks: c2m2 (stage 2) cannot stand between a merge and its inverse merge");
    expect_impossible("()", 2,
                      "allreduce-rm: --schedule () is impossible for 2 ranks: no stages for the 2 "
                      "ranks");
    expect_impossible("(3,3)+2", 12,
                      "allreduce-rm: --schedule (3,3)+2 is impossible for 12 ranks: m2g3a3: "
                      "R + G x F = 2 + 3x3 = 11, not the 12 active ranks");
    expect_impossible("heuristic:x", 12,
                      "allreduce-rm: --schedule heuristic:x: expected heuristic:RATIO with a "
                      "ratio alpha_p/alpha_r >= 0, e.g. heuristic:2.911");
    expect_impossible("a2,q", 4,
                      "allreduce-rm: --schedule a2,q: stage 2 'q' is not aF, cTmB, eTmB, mRgGaF "
                      "or nRgGaF");
}

static void test_named_schedules(void)
{
    /* MPICH's recursive doubling (2017 article Algorithm 1): p = 4, r = 7 - 4 = 3. */
    FennelSchedule *s = schedule_for("rd", 7);
    char *t = fennel_schedule_format(s);
    g_assert_cmpstr(t, ==, "c6m2,a2,a2,e6m2");
    g_free(t);
    fennel_schedule_free(s);
    s = schedule_for("rd", 16);
    t = fennel_schedule_format(s);
    g_assert_cmpstr(t, ==, "a2,a2,a2,a2");
    g_free(t);
    fennel_schedule_free(s);
    s = schedule_for("rd", 1);
    t = fennel_schedule_format(s);
    g_assert_cmpstr(t, ==, "()");
    g_free(t);
    fennel_schedule_free(s);
    /* heuristic:2.911 for 19 ranks is (6,3)+1 (thesis Table 5.2). */
    s = schedule_for("heuristic:2.911", 19);
    t = fennel_schedule_format_short(s);
    g_assert_cmpstr(t, ==, "(6,3)+1");
    g_free(t);
    fennel_schedule_free(s);
}

/* ---- peers ---- */

/* The puts of a program in program order as "src>dst" words. Stages are materialised
 * one after another, rank by rank, so this is stage by stage, rank by rank, each rank's
 * puts in peer order (docs/SCHEDULES.md). */
static char *puts_of(const char *text, uint32_t ranks)
{
    FennelProgram *p = program_for(text, ranks, 8, TRUE);
    GString *out = g_string_new(NULL);
    for (uint32_t t = 0; t < p->n_tasks; t++) {
        if (p->type[t] == FENNEL_TASK_PUT)
            g_string_append_printf(out, "%s%u>%u", out->len ? " " : "", p->rank[t], p->peer[t]);
    }
    fennel_program_free(p);
    return g_string_free(out, FALSE);
}

static void expect_puts(const char *text, uint32_t ranks, const char *expected)
{
    char *got = puts_of(text, ranks);
    g_assert_cmpstr(got, ==, expected);
    g_free(got);
}

static void test_peers(void)
{
    /* (a3,a2), 6 ranks: stage 1 (mask 1, base 3) peer = block + (w + j) mod 3: rank 1 ->
     * 2, 0; stage 2 (mask 3, base 6) pairs i and i + 3 (thesis Algorithm 2). */
    expect_puts("a3,a2", 6,
                "0>1 0>2 1>2 1>0 2>0 2>1 3>4 3>5 4>5 4>3 5>3 5>4 "
                "0>3 1>4 2>5 3>0 4>1 5>2");
    /* (a2,a4), 8 ranks: stage 2 has mask 2, base 8: rank 0 -> 2, 4, 6; rank 1 -> 3, 5, 7. */
    expect_puts("a2,a4", 8,
                "0>1 1>0 2>3 3>2 4>5 5>4 6>7 7>6 "
                "0>2 0>4 0>6 1>3 1>5 1>7 2>4 2>6 2>0 3>5 3>7 3>1 "
                "4>6 4>0 4>2 5>7 5>1 5>3 6>0 6>2 6>4 7>1 7>3 7>5");
    /* c6m2,a2,a2,e6m2 on 7 ranks (thesis Fig. 5.28): collapse 0>1, 2>3, 4>5; the
     * survivors 1, 3, 5 and rank 6 take working ranks 0..3; a2 (mask 1): 1-3, 5-6;
     * a2 (mask 2): 1-5, 3-6; expand 1>0, 3>2, 5>4. */
    expect_puts("c6m2,a2,a2,e6m2", 7, "0>1 2>3 4>5 1>3 3>1 5>6 6>5 1>5 3>6 5>1 6>3 1>0 3>2 5>4");
    /* m1g2a3,n1g3a2 on 7 ranks (thesis Fig. 5.29): remainder 0, core 1..6. Stage 1: the
     * core groups {1,2,3}, {4,5,6} do a3, rank 0 sends to group 0 % 2 = 0, ranks 1, 2, 3.
     * Stage 2 (mask 3): pairs 1-4, 2-5, 3-6; working ranks 0 and 3 (ranks 1 and 4, = 0
     * mod G = 3) also send to remainder 0, after their peer. */
    expect_puts("m1g2a3,n1g3a2", 7,
                "0>1 0>2 0>3 1>2 1>3 2>3 2>1 3>1 3>2 4>5 4>6 5>6 5>4 6>4 6>5 "
                "1>4 1>0 2>5 3>6 4>1 4>0 5>2 6>3");
    /* m3g2a2,n3g2a2 on 7 ranks (thesis Fig. 5.30): remainders 0, 1, 2, core 3..6.
     * Stage 1: pairs 3-4, 5-6; remainder k sends to core group k % 2: 0 > 3, 4;
     * 1 > 5, 6; 2 > 3, 4. Stage 2 (mask 2): 3-5, 4-6; working ranks 0, 2 (ranks 3, 5)
     * also send to remainders 0 and 2, working ranks 1, 3 (ranks 4, 6) to remainder 1. */
    expect_puts("m3g2a2,n3g2a2", 7,
                "0>3 0>4 1>5 1>6 2>3 2>4 3>4 4>3 5>6 6>5 "
                "3>5 3>0 3>2 4>6 4>1 5>3 5>0 5>2 6>4 6>1");
}

/* ---- programs ---- */

static void test_dag_shape(void)
{
    /* a3 on 3 ranks: per rank a start, an entry proxy, 2 puts, a compute of the 2 x 8
     * bytes received and a closing proxy (docs/SCHEDULES.md): 3 x 6 = 18 tasks. */
    FennelProgram *p = program_for("a3", 3, 8, TRUE);
    FennelProgramStats st;
    fennel_program_stats(p, &st);
    g_assert_cmpuint(p->n_tasks, ==, 18);
    g_assert_cmpuint(st.by_type[FENNEL_TASK_PUT], ==, 6);
    g_assert_cmpuint(st.by_type[FENNEL_TASK_COMPUTE], ==, 3);
    g_assert_cmpuint(st.by_type[FENNEL_TASK_PROXY], ==, 6);
    for (uint32_t t = 0; t < p->n_tasks; t++) {
        if (p->type[t] == FENNEL_TASK_COMPUTE)
            g_assert_cmpint(p->amount[t], ==, 16);
        if (p->type[t] == FENNEL_TASK_PUT)
            g_assert_false(p->flags[t] & FENNEL_TASK_BLOCKING);
    }
    fennel_program_free(p);
    /* The expand's receivers reduce too (docs/SCHEDULES.md): c2m2,e2m2 on 2 ranks has one
     * compute per stage, on rank 1 then rank 0. */
    p = program_for("c2m2,e2m2", 2, 8, TRUE);
    fennel_program_stats(p, &st);
    g_assert_cmpuint(st.by_type[FENNEL_TASK_COMPUTE], ==, 2);
    fennel_program_free(p);
    /* The allgather has no computes. */
    p = program_for("a2,a2", 4, 8, FALSE);
    fennel_program_stats(p, &st);
    g_assert_cmpuint(st.by_type[FENNEL_TASK_COMPUTE], ==, 0);
    fennel_program_free(p);
}

static uint64_t put_count(const char *text, uint32_t ranks)
{
    FennelProgram *p = program_for(text, ranks, 8, TRUE);
    FennelProgramStats st;
    fennel_program_stats(p, &st);
    fennel_program_free(p);
    return st.messages;
}

static gboolean count_messages(const FennelSchedule *s, FennelFamily family, void *data)
{
    (void)family;
    uint32_t ranks = *(uint32_t *)data;
    GError *error = NULL;
    FennelProgram *p = fennel_rm_program(s, ranks, 8, TRUE, &error);
    g_assert_no_error(error);
    FennelProgramStats st;
    fennel_program_stats(p, &st);
    g_assert_cmpuint(st.messages, ==, fennel_schedule_messages(s, ranks));
    fennel_program_free(p);
    return TRUE;
}

static void test_messages(void)
{
    /* Thesis Eq. 5.12: sum over stages of N (f - 1). (4,4,4) at 64 ranks: 3 x 64 x 3 =
     * 576; recursive doubling: 6 x 64 x 1 = 384 (thesis §5.4.1). */
    g_assert_cmpuint(put_count("(4,4,4)", 64), ==, 576);
    g_assert_cmpuint(put_count("rd", 64), ==, 384);
    g_assert_cmpuint(put_count("(2,2,2,2,2,2)", 64), ==, 384);
    /* MPICH on 7 ranks: 3 collapse + 2 x 4 exchange + 3 expand = 14 puts. */
    g_assert_cmpuint(put_count("rd", 7), ==, 14);
    /* m1g2a3,n1g3a2: core 6 x 2 + remainder 3, then core 6 x 1 + 2 to the remainder. */
    g_assert_cmpuint(put_count("m1g2a3,n1g3a2", 7), ==, 23);
    /* The generalised count agrees with the program for every schedule of these N. */
    for (uint32_t n = 1; n <= 16; n++)
        fennel_enumerate(n, FENNEL_FAMILY_ALL, count_messages, &n);
}

/* ---- times ---- */

static void test_thesis_figures(void)
{
    /* Thesis Figs. 5.25-5.27 (2017 article Figs. 17-19). (a2,a2,a2): three stages of one
     * put and a compute, 3 x (603.2 + 10) = 1839.6 ns. (a8): seven puts 100 ns apart, the
     * last arrives 600 + 603.2 = 1203.2, then the compute: 1213.2 ns. (a3,a2):
     * (100 + 603.2 + 10) + (603.2 + 10) = 1326.4 ns. */
    g_assert_cmpint(makespan_of("a2,a2,a2", 8, thesis_model), ==, 1839600);
    g_assert_cmpint(makespan_of("a8", 8, thesis_model), ==, 1213200);
    g_assert_cmpint(makespan_of("a3,a2", 6, thesis_model), ==, 1326400);
}

static void test_split_and_merge_figures(void)
{
    FennelModel m;
    model_from(&m, thesis_model);
    FennelTime f[7];

    /* Split c6m2,a2,a2,e6m2 (thesis Fig. 5.28). Collapse: 1, 3, 5 compute at 603.2,
     * done 613.2; rank 6 skips it. a2 (mask 1): rank 6's put to 5 leaves at 0; rank 5's
     * put leaves at 613.2 and holds its slot to 713.2, so its compute runs 713.2-723.2;
     * ranks 1, 3 and 6 receive at 1216.4, done 1226.4. a2 (mask 2): 5's put arrives at
     * 1 at 1326.4 (1 done 1336.4); 1's put (from 1226.4) reaches 5 at 1829.6, 3 and 6
     * exchange from 1226.4: all three done 1839.6. Expand: 0 gets 1's result at 1939.6,
     * done 1949.6; 2 and 4 at 2442.8, done 2452.8. Rank 1's slot is busy with its expand
     * put until 1436.4. */
    FennelProgram *p = program_for("c6m2,a2,a2,e6m2", 7, 8, TRUE);
    FennelTime split = simulate(p, &m, f);
    fennel_program_free(p);
    FennelTime want_split[7] = {1949600, 1436400, 2452800, 1939600, 2452800, 1939600, 1839600};
    for (int r = 0; r < 7; r++)
        g_assert_cmpint(f[r], ==, want_split[r]);
    g_assert_cmpint(split, ==, 2452800);

    /* Merge m1g2a3,n1g3a2 (thesis Fig. 5.29). Stage 1: core puts at 0 and 100 arrive
     * 603.2 and 703.2; remainder 0's three puts arrive at 1, 2, 3 at 603.2, 703.2,
     * 803.2, so group {1,2,3} is done at 713.2, 713.2, 813.2 and {4,5,6} at 713.2.
     * Stage 2: 1 and 4 exchange from 713.2 (done 1326.4) and send to 0 at 813.2, which
     * is done at 1416.4 + 10 = 1426.4; 3 sends to 6 from 813.2, so 6 is done 1426.4 and
     * 3 at 1326.4; 2-5 at 1326.4. Skew 100 ns, as thesis §5.6.2 says. */
    p = program_for("m1g2a3,n1g3a2", 7, 8, TRUE);
    FennelTime merge = simulate(p, &m, f);
    fennel_program_free(p);
    FennelTime want_merge[7] = {1426400, 1326400, 1326400, 1326400, 1326400, 1326400, 1426400};
    for (int r = 0; r < 7; r++)
        g_assert_cmpint(f[r], ==, want_merge[r]);
    /* "The runtime is decreased by approximately one microsecond (41.8%)" (§5.6.2):
     * 2452.8 - 1426.4 = 1026.4 ns, 41.85 % of 2452.8. */
    g_assert_cmpint(split - merge, ==, 1026400);
    g_assert_cmpint((int)floor(1000.0 * (split - merge) / split), ==, 418);

    /* Merge m3g2a2,n3g2a2 (thesis Fig. 5.30). Stage 1: 3 hears from 4, 0 and 2 at 603.2
     * (done 613.2), 4 from 3 at 603.2 and 0, 2 at 703.2 (713.2), 5 as 3, 6 as 4. Stage
     * 2: 3 and 5 exchange from 613.2 (done 1226.4) and send to 0 at 713.2 and 2 at 813.2,
     * so 0 is done 1326.4 and 2 1426.4; 4 and 6 exchange from 713.2 (1326.4) and send to
     * 1 at 813.2 (1426.4). Skew 200 ns (§5.6.2). */
    p = program_for("m3g2a2,n3g2a2", 7, 8, TRUE);
    simulate(p, &m, f);
    fennel_program_free(p);
    FennelTime want_merge2[7] = {1326400, 1426400, 1426400, 1226400, 1326400, 1226400, 1326400};
    for (int r = 0; r < 7; r++)
        g_assert_cmpint(f[r], ==, want_merge2[r]);
    fennel_model_clear(&m);
}

/* Recursive doubling: log2 N (alpha + n beta + n gamma) under postal (thesis Eq. 5.2),
 * (floor(log2 N) + 2)(...) for other N with MPICH's collapse/expand (Eq. 5.3 with the
 * floor), and (alpha_p + alpha_r) log2 N under lbp (Eq. 5.6). */
static void test_recursive_doubling_formulas(void)
{
    /* alpha 200 ns, beta 0.5 ns/B, gamma 0.25 ns/B, n = 100 B: one stage is
     * 200 + 50 + 25 = 275 ns (the compute reduces the one 100-byte message). */
    FennelModel postal, lbp;
    model_from(&postal, "fennel: 1\nnetwork: {model: postal, alpha: 200ns, beta: 0.5ns/B}\n"
                        "compute: {model: gamma, gamma: 0.25ns/B}\n");
    model_from(&lbp, "fennel: 1\nnetwork: {model: lbp, alpha_p: 500ns, alpha_r: 100ns}\n"
                     "compute: {model: fixed, duration: 0ns}\n");
    const FennelGenerator *g = fennel_generator_find("allreduce-rd");
    g_assert_nonnull(g);
    for (uint32_t n = 1; n <= 70; n++) {
        FennelGenOptions o;
        fennel_gen_options_init(&o);
        o.given = FENNEL_GEN_RANKS | FENNEL_GEN_SIZE;
        o.ranks = n;
        o.size = 100;
        GError *error = NULL;
        FennelProgram *p = fennel_generate(g, &o, &error);
        g_assert_no_error(error);
        uint32_t lg = 0;
        while ((2u << lg) <= n)
            lg++;
        gboolean pof2 = (1u << lg) == n;
        int64_t stages = lg + (pof2 ? 0 : 2);
        g_assert_cmpint(simulate(p, &postal, NULL), ==, stages * 275000);
        if (pof2)
            g_assert_cmpint(simulate(p, &lbp, NULL), ==, (int64_t)lg * 600000);
        fennel_program_free(p);
    }
    /* The original Fennel's test: recursive doubling on 8 ranks, 100 B, postal alpha
     * 200 ns, beta 0, gamma 1 ns/B: 3 x (200 + 100) = 900 ns. */
    FennelModel up;
    model_from(&up, "fennel: 1\nnetwork: {model: postal, alpha: 200ns}\n"
                    "compute: {model: gamma, gamma: 1ns/B}\n");
    FennelProgram *p = program_for("rd", 8, 100, TRUE);
    g_assert_cmpint(simulate(p, &up, NULL), ==, 900000);
    fennel_program_free(p);
    fennel_model_clear(&up);
    fennel_model_clear(&postal);
    fennel_model_clear(&lbp);
}

/* Every purely factored schedule, simulated under lbp with beta = 0 and zero compute,
 * takes sum (alpha_p + b_i alpha_r) with b_i = f_i - 1 (thesis §5.4.1, 2017 article §3):
 * in each stage every rank issues its b puts alpha_r apart and the last arrives
 * alpha_p + alpha_r after its issue. */
typedef struct {
    uint32_t ranks;
    FennelModel *model;
    unsigned checked;
} FactoredRun;

static gboolean check_factored(const FennelSchedule *s, FennelFamily family, void *data)
{
    (void)family;
    FactoredRun *run = data;
    GError *error = NULL;
    FennelProgram *p = fennel_rm_program(s, run->ranks, 8, TRUE, &error);
    g_assert_no_error(error);
    int64_t want = 0;
    for (uint32_t i = 0; i < s->n_stages; i++)
        want += 500000 + (int64_t)(s->stages[i].factor - 1) * 100000;
    g_assert_cmpint(simulate(p, run->model, NULL), ==, want);
    fennel_program_free(p);
    run->checked++;
    return TRUE;
}

static void test_factored_analytic(void)
{
    FennelModel m;
    model_from(&m, "fennel: 1\nnetwork: {model: lbp, alpha_p: 500ns, alpha_r: 100ns, beta: 0}\n"
                   "compute: {model: fixed, duration: 0ns}\n");
    const uint32_t ns[] = {1, 2, 6, 8, 12, 16, 24, 30, 36, 48, 60, 64, 72, 96};
    unsigned total = 0;
    for (size_t i = 0; i < G_N_ELEMENTS(ns); i++) {
        FactoredRun run = {ns[i], &m, 0};
        fennel_enumerate(ns[i], FENNEL_FAMILY_FACTORED, check_factored, &run);
        total += run.checked;
    }
    /* H(1) + H(2) + ... of the list: 1+1+3+4+8+8+20+13+26+48+44+32+76+112 (OEIS A074206). */
    g_assert_cmpuint(total, ==, 396);
    fennel_model_clear(&m);
}

/* The AllGather: messages carry what their sender has gathered. */
static void test_allgather(void)
{
    /* Recursive doubling on 8 ranks, 4096 B each, postal alpha 100 ns, beta 0.02 ns/B:
     * stage s sends 4096 x 2^s bytes, 100 + 81.92, 100 + 163.84, 100 + 327.68: 873.44 ns;
     * truncated to whole ns, as the original Fennel did, 181 + 263 + 427 = 871 ns. */
    FennelModel m;
    model_from(&m, "fennel: 1\nnetwork: {model: postal, alpha: 100ns, beta: 0.02ns/B}\n");
    FennelProgram *p = program_for("rd", 8, 4096, FALSE);
    g_assert_cmpint(simulate(p, &m, NULL), ==, 873440);
    fennel_model_clear(&m);
    model_from(&m, "fennel: 1\nnetwork: {model: postal, alpha: 100ns, beta: 0.02ns/B}\n"
                   "resolution: 1ns\n");
    g_assert_cmpint(simulate(p, &m, NULL), ==, 871000);
    fennel_model_clear(&m);
    fennel_program_free(p);

    /* In a factored allgather each rank receives the other N - 1 contributions once:
     * N (N - 1) n bytes in all. (a3,a4) on 12 ranks: 12 x 11 x 8 = 1056 B. */
    p = program_for("a3,a4", 12, 8, FALSE);
    FennelProgramStats st;
    fennel_program_stats(p, &st);
    g_assert_cmpuint(st.bytes, ==, 1056);
    /* Stage 1 puts carry 8 B, stage 2 puts 3 x 8 = 24 B: 12 x 2 x 8 + 12 x 3 x 24. */
    g_assert_cmpuint(st.bytes, ==, 12 * 2 * 8 + 12 * 3 * 24);
    fennel_program_free(p);
    /* c6m2,a2,a2,e6m2 on 7 ranks, in contributions of 8 B: the collapse moves 3 x 1;
     * then 1, 3, 5 hold 2 and rank 6 one, so a2 (1-3, 5-6) moves 2 + 2 + 2 + 1 = 7; then
     * 1, 3 hold 4 and 5, 6 hold 3, so a2 (1-5, 3-6) moves 4 + 3 + 4 + 3 = 14; the expand
     * sends all 7 to each of 0, 2, 4: 21. (3 + 7 + 14 + 21) x 8 = 360 B. */
    p = program_for("c6m2,a2,a2,e6m2", 7, 8, FALSE);
    fennel_program_stats(p, &st);
    g_assert_cmpuint(st.bytes, ==, 360);
    fennel_program_free(p);
}

/* Every schedule of every family, as an AllReduce and as an AllGather, passes the
 * data-flow checker: every rank ends with every contribution, and the AllReduce ranks
 * all combine them in the same bracketing (thesis §5.4.2: "every element in the group
 * must combine the same partial values in the same order"). */
static gboolean verify_both(const FennelSchedule *s, FennelFamily family, void *data)
{
    (void)family;
    uint32_t ranks = *(uint32_t *)data;
    for (int reducing = 0; reducing < 2; reducing++) {
        GError *error = NULL;
        FennelProgram *p = fennel_rm_program(s, ranks, 8, reducing, &error);
        g_assert_no_error(error);
        gboolean ok =
            fennel_verify(p, reducing ? FENNEL_COLLECTIVE_ALLREDUCE : FENNEL_COLLECTIVE_ALLGATHER,
                          0, NULL, &error);
        if (!ok) {
            char *t = fennel_schedule_format(s);
            g_test_message("%s on %u ranks: %s", t, ranks, error->message);
            g_free(t);
        }
        g_assert_no_error(error);
        g_assert_true(ok);
        fennel_program_free(p);
    }
    return TRUE;
}

static void test_verify_all_schedules(void)
{
    for (uint32_t n = 1; n <= 20; n++)
        fennel_enumerate(n, FENNEL_FAMILY_ALL, verify_both, &n);
    /* Nested blocks: c4m2 leaves 9 - 4 + 2 = 7 ranks for a merge; c8m2 leaves 10 - 8 + 4 =
     * 6 for c4m2, which leaves 6 - 4 + 2 = 4. */
    const struct {
        const char *schedule;
        uint32_t ranks;
    } nested[] = {{"c4m2,m1g2a3,n1g3a2,e4m2", 9}, {"c8m2,c4m2,a2,a2,e4m2,e8m2", 10}};
    for (size_t i = 0; i < G_N_ELEMENTS(nested); i++) {
        FennelSchedule *s = schedule_for(nested[i].schedule, nested[i].ranks);
        verify_both(s, FENNEL_FAMILY_COLLAPSED, (void *)&nested[i].ranks);
        fennel_schedule_free(s);
    }
}

/* Every recursive-doubling and recursive-multiplying generator builds a program for
 * N = 1..64, powers of two to 1024 and some large composite and prime N. */
static void test_generators_many_n(void)
{
    const char *names[] = {"allreduce-rd", "allreduce-rm", "allgather-rd", "allgather-rm"};
    GArray *ns = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    for (uint32_t n = 1; n <= 64; n++)
        g_array_append_val(ns, n);
    for (uint32_t n = 128; n <= 1024; n *= 2)
        g_array_append_val(ns, n);
    const uint32_t big[] = {997, 1000, 1009, 4096};
    for (size_t i = 0; i < G_N_ELEMENTS(big); i++)
        g_array_append_val(ns, big[i]);
    for (size_t k = 0; k < G_N_ELEMENTS(names); k++) {
        const FennelGenerator *g = fennel_generator_find(names[k]);
        g_assert_nonnull(g);
        g_assert_cmpstr(g->collective, ==, k < 2 ? "allreduce" : "allgather");
        for (guint i = 0; i < ns->len; i++) {
            FennelGenOptions o;
            fennel_gen_options_init(&o);
            o.given = FENNEL_GEN_RANKS;
            o.ranks = g_array_index(ns, uint32_t, i);
            GError *error = NULL;
            FennelProgram *p = fennel_generate(g, &o, &error);
            g_assert_no_error(error);
            g_assert_cmpuint(p->n_ranks, ==, o.ranks);
            fennel_program_free(p);
        }
    }
    g_array_free(ns, TRUE);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/schedule/parse-format", test_parse_format);
    g_test_add_func("/schedule/parse-errors", test_parse_errors);
    g_test_add_func("/schedule/impossible", test_impossible);
    g_test_add_func("/schedule/named", test_named_schedules);
    g_test_add_func("/schedule/peers", test_peers);
    g_test_add_func("/schedule/dag-shape", test_dag_shape);
    g_test_add_func("/schedule/messages", test_messages);
    g_test_add_func("/schedule/thesis-figures", test_thesis_figures);
    g_test_add_func("/schedule/split-and-merge-figures", test_split_and_merge_figures);
    g_test_add_func("/schedule/recursive-doubling-formulas", test_recursive_doubling_formulas);
    g_test_add_func("/schedule/factored-analytic", test_factored_analytic);
    g_test_add_func("/schedule/allgather", test_allgather);
    g_test_add_func("/schedule/verify-all-schedules", test_verify_all_schedules);
    g_test_add_func("/schedule/generators-many-n", test_generators_many_n);
    return g_test_run();
}
