/* The GOAL readers and writers. Times are computed by hand from LogGOPSim's LogGP rules
 * (eager sends; a receiver's CPU busy o + (s-1)G on arrival) as the comments show; the
 * example files are LogGOPSim's own (Schedgen's binomial broadcast, the symmetric
 * exchange with `irequires`, the two-CPU overlap). */
#include "engine.h"
#include "errors.h"
#include "goal_readers.h"
#include "program_describe.h"
#include "program_io.h"
#include "summary.h"

#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#define NS(x) ((FennelTime)((x)*1000))

/* LogGOPSim's defaults: L 2500, o 1500, g 1000, G 6, O 0, S 65535. */
static const char *defaults = "fennel: 1\nnetwork: {model: loggp, L: 2500ns, o: 1500ns, g: "
                              "1000ns, G: 6ns/B, O: 0ns/B, S: 65535B}\n";

static FennelProgram *parse(const char *text)
{
    GError *error = NULL;
    FennelProgram *p = fennel_goal_is_loggopsim(text, strlen(text))
                           ? fennel_goal_parse_loggopsim("t.goal", text, strlen(text), NULL, &error)
                           : fennel_goal_parse_fennel("t.goal", text, strlen(text), NULL, &error);
    g_assert_no_error(error);
    return p;
}

/* Runs p under the model text; fills the summary. */
static void run(const FennelProgram *p, const char *model_text, FennelSummary *s)
{
    FennelModel model;
    fennel_model_init(&model);
    GError *error = NULL;
    g_assert_true(fennel_model_parse(&model, "m.yaml", model_text, strlen(model_text), &error));
    FennelMachine *m = fennel_machine_new(p->n_ranks, p->processes, &model);
    fennel_summary_init(s, p->n_ranks);
    FennelInstrument ins = fennel_summary_instrument(s);
    fennel_machine_add_instrument(m, &ins);
    g_assert_true(fennel_machine_run(m, p, &error));
    g_assert_no_error(error);
    fennel_machine_free(m);
    fennel_model_clear(&model);
}

/* Schedgen's binomial broadcast of 1024 B over 4 ranks ((s-1)G = 6138). Rank 0 sends at 0
 * (CPU until 1500, NIC until 7138) and again at 7138 (CPU until 8638). The first message
 * reaches rank 1 at 4000 and occupies its CPU 1500 + 6138 until 11638, when its receive
 * completes and its send starts (CPU until 13138), reaching rank 3 at 15638: rank 3 ends
 * at 15638 + 7638 = 23276. The second reaches rank 2 at 11138 and ends at 18776. Host
 * end times as LogGOPSim reports them: 8638, 13138, 18776, 23276. */
static void test_binomial_bcast(void)
{
    FennelProgram *p = parse("num_ranks 4\n\nrank 0 {\nl1: send 1024b to 1 tag 0\n"
                             "l2: send 1024b to 2 tag 0\n}\n\nrank 1 {\n"
                             "l1: recv 1024b from 0 tag 0\nl2: send 1024b to 3 tag 0\n"
                             "l2 requires l1\n}\n\nrank 2 {\nl1: recv 1024b from 0 tag 0\n}\n\n"
                             "rank 3 {\nl1: recv 1024b from 1 tag 0\n}\n");
    g_assert_cmpuint(p->n_ranks, ==, 4);
    g_assert_cmpuint(p->n_tasks, ==, 10); /* 4 implicit starts + 6 operations */
    FennelSummary s;
    run(p, defaults, &s);
    const FennelTime expected[4] = {NS(8638), NS(13138), NS(18776), NS(23276)};
    for (int r = 0; r < 4; r++)
        g_assert_cmpint(s.rank_finish[r], ==, expected[r]);
    g_assert_cmpint(s.makespan, ==, NS(23276));
    fennel_summary_clear(&s);
    fennel_program_free(p);
}

/* The symmetric exchange: each send may start once its own receive is posted
 * (`irequires`), so neither rank deadlocks. 4096 B: (s-1)G = 24570. Sends at 0 (CPU until
 * 1500), arrivals at 4000 occupy each CPU until 4000 + 1500 + 24570 = 30070, when the
 * receives complete; the 500 ns calcs then end at 30570 on both ranks. */
static void test_symmetric_irequires(void)
{
    const char *block = "r: recv 4096b from %d tag 7\ns: send 4096b to %d tag 7\n"
                        "s irequires r\nc: calc 500\nc requires r\nc requires s\n";
    char *b0 = g_strdup_printf(block, 1, 1), *b1 = g_strdup_printf(block, 0, 0);
    char *text = g_strdup_printf("num_ranks 2\n\nrank 0 {\n%s}\n\nrank 1 {\n%s}\n", b0, b1);
    FennelProgram *p = parse(text);
    FennelSummary s;
    run(p, defaults, &s);
    g_assert_cmpint(s.rank_finish[0], ==, NS(30570));
    g_assert_cmpint(s.rank_finish[1], ==, NS(30570));
    fennel_summary_clear(&s);
    fennel_program_free(p);
    g_free(text);
    g_free(b0);
    g_free(b1);
}

/* Two CPUs: a 20 us calc on cpu 1 overlaps the exchange on cpu 0. Rank 0 sends 1024 B at
 * 0 (arrival 4000 at rank 1, which is busy until 11638 and then replies, CPU until
 * 13138); the reply reaches rank 0 at 15638 and is received on its free CPU 0 until
 * 15638 + 7638 = 23276. Rank 0 ends at 23276 (CPU 1 at 20000), rank 1 at 13138. */
static void test_two_cpus(void)
{
    FennelProgram *p = parse("num_ranks 2\n\nrank 0 {\nbig: calc 20000 cpu 1\n"
                             "s: send 1024b to 1 tag 0 cpu 0\nr: recv 1024b from 1 tag 0 cpu 0\n"
                             "r requires s\n}\n\nrank 1 {\nr: recv 1024b from 0 tag 0\n"
                             "s: send 1024b to 0 tag 0\ns requires r\n}\n");
    g_assert_cmpuint(p->processes, ==, 2);
    FennelSummary s;
    run(p, defaults, &s);
    g_assert_cmpint(s.rank_finish[0], ==, NS(23276));
    g_assert_cmpint(s.rank_finish[1], ==, NS(13138));
    fennel_summary_clear(&s);
    fennel_program_free(p);
}

/* Every construct of the grammar at once, under L 100, o 10, g 5: comments of both kinds,
 * blank lines, labels with underscores, an unlabeled send, `8 b` with a blank, tag/cpu/nic,
 * recv from -1 with tag -1, requires and irequires.
 * Rank 0: first_send at 0 (CPU until 10, arrival at rank 1 at 110); the unlabeled send at
 * 10 (CPU until 20, arrival at rank 2 at 120); calc c on cpu 1 after first_send (eager,
 * done at 10): 10..60. Rank 2: s may start once r is posted (0): arrival at rank 1 at
 * 110. Rank 1 takes the message from rank 0 first (sent first) on its CPU 110..120 and
 * matches the wildcard receive; the one from rank 2 waits for the CPU, 120..130, and
 * matches r2; w runs 130..150. Rank 2 receives 120..130. */
static void test_every_construct(void)
{
    FennelProgram *p = parse("// every construct of LogGOPSim's GOAL\n"
                             "num_ranks 3\n"
                             "/* a block comment\n   over two lines */\n"
                             "rank 0 {\n"
                             "  first_send: send 8 b to 1 tag 5 cpu 0 nic 0\n"
                             "\n"
                             "  send 16b to 2 // unlabeled, tag 0\n"
                             "  c: calc 50 cpu 1\n"
                             "  c requires first_send\n"
                             "}\n"
                             "rank 1 {\n"
                             "  r: recv 8b from -1 tag -1\n"
                             "  r2: recv 4b from 2 tag 0\n"
                             "  w: calc 20\n"
                             "  w requires r\n"
                             "  w requires r2\n"
                             "}\n"
                             "rank 2 {\n"
                             "  r: recv 16b from 0 tag 0\n"
                             "  s: send 4b to 1\n"
                             "  s irequires r\n"
                             "}\n");
    FennelSummary s;
    run(p, "fennel: 1\nnetwork: {model: loggp, L: 100ns, o: 10ns, g: 5ns}\n", &s);
    g_assert_cmpint(s.rank_finish[0], ==, NS(60));
    g_assert_cmpint(s.rank_finish[1], ==, NS(150));
    g_assert_cmpint(s.rank_finish[2], ==, NS(130));
    fennel_summary_clear(&s);
    fennel_program_free(p);
}

/* The original Fennel's a2.goal under the thesis figure model (lbp 500/100, beta 0.4,
 * compute as written): rank 1 starts 400 ns late, so its put arrives at 400 + 603.2 =
 * 1003.2 and rank 0's compute ends at 1103.2; rank 1's compute waits for its start and
 * rank 0's put (603.2), ends at 703.2. */
static void test_fennel_dialect(void)
{
    FennelProgram *p = parse("rank 0 {\n\tl1: start\n\tl2: put 8b to r1\n\tl3: compute 100ns\n\n"
                             "\tl2 > l1\n\tl3 > l1\n\tl3 > r1:l2\n}\n\n"
                             "# a comment\nrank 1 {\n\tl1: start 400ns\n\tl2: put 8b to r0\n"
                             "\tl3: compute 100ns\n\n\tl2 > l1\n\tl3 > l1\n\tl3 > r0:l2\n}\n");
    g_assert_cmpstr(p->task_name[3], ==, "r1l1");
    FennelSummary s;
    run(p, "fennel: 1\nnetwork: {model: lbp, alpha_p: 500ns, alpha_r: 100ns, beta: 0.4ns/B}\n", &s);
    g_assert_cmpint(s.rank_finish[0], ==, 1103200);
    g_assert_cmpint(s.rank_finish[1], ==, 703200);
    fennel_summary_clear(&s);
    fennel_program_free(p);
}

static const struct {
    const char *text;
    const char *message;
} errors[] = {
    {"num_ranks 1\nnum_ranks 2\n", "t.goal:2:1: num_ranks given twice"},
    {"num_ranks 2\nrank 0 {\nl1: calc 5\n}\n", "t.goal:1:1: rank 1 has no block (num_ranks is 2)"},
    /* Every rank needs a block of 8 bytes at least (`rank R{}`), so the bytes after the
     * count bound it: 1 byte (the newline) holds none; "\nrank 0{}rank 1{}" is 17 bytes,
     * room for 17 / 8 = 2 blocks, not 3. Before, the first was judged by the memory only
     * (about 268 GiB here, allocated where a machine has it). */
    {"num_ranks 4000000000\n",
     "t.goal:1:21: num_ranks 4000000000: the rest of the file (1 byte) has room for at most "
     "0 rank blocks (8 bytes each at least), one for every rank"},
    {"num_ranks 3\nrank 0{}rank 1{}",
     "t.goal:1:12: num_ranks 3: the rest of the file (17 bytes) has room for at most 2 rank "
     "blocks (8 bytes each at least), one for every rank"},
    {"num_ranks 1\nrank 1 {\n}\n", "t.goal:2:7: rank 1 is outside 0..0"},
    {"num_ranks 1\nrank 0 {\n}\nrank 0 {\n}\n", "t.goal:4:7: rank 0 has two blocks"},
    {"num_ranks 1\nrank 0\n", "t.goal:2:7: expected '{' after 'rank 0'"},
    {"num_ranks 1\nrank 0 {\nl1: send 8 to 0\n}\n", "t.goal:3:12: expected 'b' after the size"},
    {"num_ranks 1\nrank 0 {\nl1: send 8b from 0\n}\n", "t.goal:3:13: expected 'to'"},
    {"num_ranks 1\nrank 0 {\nl1: send 8b to 3\n}\n", "t.goal:3:17: rank 3 is outside 0..0"},
    {"num_ranks 1\nrank 0 {\nl1: send 8b to -1\n}\n",
     "t.goal:3:16: expected a rank (a whole number)"},
    {"num_ranks 1\nrank 0 {\nl1: send 8b to 0 tag -1\n}\n",
     "t.goal:3:22: tag -1 (any tag) is only for a recv"},
    {"num_ranks 1\nrank 0 {\nl1: calc 5 tag 1\n}\n",
     "t.goal:3:12: unexpected 'tag' (expected cpu)"},
    {"num_ranks 1\nrank 0 {\nl1: calc 5 cpu 1 cpu 2\n}\n", "t.goal:3:18: 'cpu' given twice"},
    {"num_ranks 1\nrank 0 {\nl1: jump 5\n}\n",
     "t.goal:3:5: unknown operation 'jump' (expected send, recv or calc)"},
    {"num_ranks 1\nrank 0 {\nl1: calc 5\nl1: calc 6\n}\n",
     "t.goal:4:1: label 'l1' is defined twice in rank 0"},
    {"num_ranks 1\nrank 0 {\nl1: calc 5\nl1 requires l2\n}\n",
     "t.goal:4:13: label 'l2' is not defined in rank 0 (labels must be defined before a "
     "dependency names them)"},
    {"num_ranks 1\nrank 0 {\nl1: calc 5\nl1 needs l1\n}\n",
     "t.goal:4:4: expected ':', 'requires' or 'irequires' after 'l1'"},
    {"num_ranks 1\nrank 0 {\nl1: calc 5 // fine\nl2: calc 6 }\n}\n",
     "t.goal:4:12: unexpected text after the operation"},
    {"num_ranks 1\nrank 0 {\nl1: calc 5\n", "t.goal:2:1: rank 0 block is not closed with '}'"},
    {"num_ranks 1\n/* never closed\nrank 0 {\n}\n", "t.goal:2:1: comment is not closed with '*/'"},
    {"num_ranks 2\nrank 0 {\nl1: send 8b to 1 tag 18446744073709551616\n}\nrank 1 {\n}\n",
     "t.goal:3:42: tag is too large (at most 18446744073709551615)"},
    {"num_ranks 1\nrank 0 {\nl1: calc 5 cpu 256\n}\n",
     "t.goal:3:19: cpu is too large (at most 255)"},
    {"num_ranks 1\nrank 0 {\nl1: calc 99999999999999999999\n}\n",
     "t.goal:3:30: a duration in ns is too large (at most 9223372036854775)"},
    {"num_ranks 1\nrank 0 {\nl1: calc 5\nl2: calc 6\nl1 requires l2\nl2 requires l1\n}\n",
     "t.goal:3:1: cycle: r0:l1 -> r0:l2 -> r0:l1"},
    {"rank 0 {\n\tl1: start\n\tl2: branch l3, l4\n}\n",
     "t.goal:3:6: unknown task 'branch' (expected start, put, compute or sleep)"},
    {"rank 0 {\n\tl1: start\n\tl2: put 8b to 1\n}\n", "t.goal:3:16: expected 'to rN'"},
    {"rank 0 {\n\tl1: start\n\tl2: compute 5\n}\n", "t.goal:3:15: expected 'ns' or 'b'"},
    {"rank 0 {\n\tl1: start\n\tl2: sleep 5ns\n\tl2 > l9\n}\n", "t.goal:4:7: no task r0l9"},
    {"rank 0 {\n\tl1: start\n", "t.goal:1:1: rank 0 block is not closed with '}'"},
    {"rank 0 {\n\tl1: start\n\tl2: sleep 5ns\n}\n",
     "t.goal:3:2: task 'r0l2' has no predecessors (only a start task may)"},
};

static void test_errors(void)
{
    for (size_t i = 0; i < G_N_ELEMENTS(errors); i++) {
        const char *text = errors[i].text;
        GError *error = NULL;
        FennelProgram *p =
            fennel_goal_is_loggopsim(text, strlen(text))
                ? fennel_goal_parse_loggopsim("t.goal", text, strlen(text), NULL, &error)
                : fennel_goal_parse_fennel("t.goal", text, strlen(text), NULL, &error);
        if (p != NULL) {
            g_test_message("case %zu parsed", i);
            g_test_fail();
            fennel_program_free(p);
            continue;
        }
        if (strcmp(error->message, errors[i].message) != 0) {
            g_test_message("case %zu: got '%s', expected '%s'", i, error->message,
                           errors[i].message);
            g_test_fail();
        }
        g_error_free(error);
    }
}

/* The shortest blocks the count allows: 17 bytes after `num_ranks 2` hold its two blocks,
 * and both readers take them (the fast one too: a block closed on its line). */
static void test_num_ranks_by_the_file(void)
{
    const char *text = "num_ranks 2\nrank 0{}rank 1{}";
    GError *error = NULL;
    FennelProgram *p = fennel_goal_parse_loggopsim("t.goal", text, strlen(text), NULL, &error);
    g_assert_no_error(error);
    g_assert_cmpuint(p->n_ranks, ==, 2);
    fennel_program_free(p);
}

/* The fast path reads a file as the careful reader does (the same tasks, names, positions
 * and edges) or declines it; every error above goes to the careful reader or, for an error
 * found only once the program is built (a cycle), is the same message. Schedgen's files and
 * this project's GOAL test files are plain and take the fast path. */
static void check_fast_path(const char *name, const char *text, gsize length, gboolean must_take)
{
    GError *fast_error = NULL, *careful_error = NULL;
    FennelProgram *fast = fennel__goal_fast_read(name, text, length, NULL, &fast_error);
    FennelProgram *careful = fennel__goal_careful_read(name, text, length, NULL, &careful_error);
    if (must_take && fast == NULL && fast_error == NULL) {
        g_test_message("%s: the fast path declines it", name);
        g_test_fail();
    }
    if (fast) {
        g_assert_nonnull(careful);
        char *a = program_describe(fast), *b = program_describe(careful);
        g_assert_cmpstr(a, ==, b);
        g_free(a);
        g_free(b);
    } else if (fast_error) {
        g_assert_nonnull(careful_error);
        g_assert_cmpstr(fast_error->message, ==, careful_error->message);
    }
    g_clear_error(&fast_error);
    g_clear_error(&careful_error);
    fennel_program_free(fast);
    fennel_program_free(careful);
}

static void fast_path_cases(void)
{
    for (size_t i = 0; i < G_N_ELEMENTS(errors); i++) {
        const char *text = errors[i].text;
        if (fennel_goal_is_loggopsim(text, strlen(text)))
            check_fast_path("t.goal", text, strlen(text), FALSE);
    }
    const char *plain = "// a plain file\nnum_ranks 2\n\nrank 0 {\n"
                        "  a: send 8b to 1 tag 5 cpu 1 nic 0 // a comment\n"
                        "  send 16b to 1\n  c: calc 50\n  c requires a\n  c irequires a\n}\n"
                        "rank 1 {\n\tr: recv 8 b from 0 tag 5\n\tr2: recv 16b from 0\n"
                        "\tw: calc 20 cpu 1\n\tw requires r2\n}\n";
    check_fast_path("plain.goal", plain, strlen(plain), TRUE);
    const char *dirs[] = {"goal", "goal/schedgen", "goal/atlahs"};
    for (size_t d = 0; d < G_N_ELEMENTS(dirs); d++) {
        char *dir = g_test_build_filename(G_TEST_DIST, "data", dirs[d], NULL);
        GDir *listing = g_dir_open(dir, 0, NULL);
        g_assert_nonnull(listing);
        const char *entry;
        while ((entry = g_dir_read_name(listing)) != NULL) {
            if (!g_str_has_suffix(entry, ".goal"))
                continue;
            char *path = g_build_filename(dir, entry, NULL), *text;
            gsize length;
            g_assert_true(g_file_get_contents(path, &text, &length, NULL));
            if (fennel_goal_is_loggopsim(text, length))
                check_fast_path(path, text, length, TRUE);
            g_free(text);
            g_free(path);
        }
        g_dir_close(listing);
        g_free(dir);
    }
}

static void test_fast_path(void)
{
    fast_path_cases();
}

/* A large file is read in two halves at once, the second from a rank block at or after the
 * middle; read so, every file above (split from its first byte on) gives the careful
 * reader's program or declines, as read whole. */
static void test_fast_path_halves(void)
{
    fennel__goal_fast_set_split(0);
    fast_path_cases();
    fennel__goal_fast_set_split((gsize)16 << 20);
}

/* Writing and reading back: the original dialect keeps the schedule exactly (same
 * makespan); a LogGOPSim GOAL file written from a two-sided program reads back as the
 * same tasks and times. */
static void test_round_trip(void)
{
    const char *yaml = "fennel: 1\ntasks:\n"
                       "- {id: s0, type: start, rank: 0}\n"
                       "- {id: s1, type: start, rank: 1, skew: 400ns}\n"
                       "- {id: p0, type: put, rank: 0, to: 1, size: 8B, after: [s0]}\n"
                       "- {id: p1, type: put, rank: 1, to: 0, size: 8B, after: [s1]}\n"
                       "- {id: c0, type: compute, rank: 0, duration: 100ns, after: [s0, p1]}\n"
                       "- {id: c1, type: compute, rank: 1, size: 8B, after: [s1, p0]}\n"
                       "- {id: x0, type: proxy, rank: 0, after: [c0]}\n";
    const char *thesis = "fennel: 1\nnetwork: {model: lbp, alpha_p: 500ns, alpha_r: 100ns, "
                         "beta: 0.4ns/B}\ncompute: {model: fixed, duration: 10ns}\n";
    GError *error = NULL;
    FennelProgram *p = fennel_program_parse_yaml("p.yaml", yaml, strlen(yaml), &error);
    g_assert_no_error(error);
    GString *out = g_string_new(NULL);
    g_assert_true(fennel_program_write_fennel_goal(p, out, &error));
    FennelProgram *q = parse(out->str);
    FennelSummary a, b;
    run(p, thesis, &a);
    run(q, thesis, &b);
    g_assert_cmpuint(q->n_tasks, ==, p->n_tasks);
    g_assert_cmpuint(q->n_edges, ==, p->n_edges);
    g_assert_cmpint(a.makespan, ==, b.makespan);
    for (uint32_t r = 0; r < 2; r++)
        g_assert_cmpint(a.rank_finish[r], ==, b.rank_finish[r]);
    fennel_summary_clear(&a);
    fennel_summary_clear(&b);
    fennel_program_free(q);

    /* LogGOPSim GOAL: the binomial broadcast again, written and read back. */
    FennelProgram *bcast = parse("num_ranks 4\nrank 0 {\nl1: send 1024b to 1 tag 0\n"
                                 "l2: send 1024b to 2 tag 0\n}\nrank 1 {\n"
                                 "l1: recv 1024b from 0 tag 0\nl2: send 1024b to 3 tag 0\n"
                                 "l2 requires l1\n}\nrank 2 {\nl1: recv 1024b from 0 tag 0\n}\n"
                                 "rank 3 {\nl1: recv 1024b from 1 tag 0\n}\n");
    FennelModel model;
    fennel_model_init(&model);
    g_string_truncate(out, 0);
    g_assert_true(fennel_program_write_goal(bcast, &model, out, &error));
    g_assert_no_error(error);
    FennelProgram *again = parse(out->str);
    run(bcast, defaults, &a);
    run(again, defaults, &b);
    for (uint32_t r = 0; r < 4; r++)
        g_assert_cmpint(a.rank_finish[r], ==, b.rank_finish[r]);
    fennel_summary_clear(&a);
    fennel_summary_clear(&b);
    fennel_program_free(again);
    fennel_program_free(bcast);

    /* A put becomes a send and its matching recv: the YAML program in GOAL has 2 sends
     * and 2 recvs, and under postal the receives complete when the data arrives, as the
     * puts did. */
    g_string_truncate(out, 0);
    g_assert_true(fennel_program_write_goal(p, &model, out, &error));
    FennelProgram *two = parse(out->str);
    FennelProgramStats st;
    fennel_program_stats(two, &st);
    g_assert_cmpuint(st.by_type[FENNEL_TASK_SEND], ==, 2);
    g_assert_cmpuint(st.by_type[FENNEL_TASK_RECV], ==, 2);
    fennel_program_free(two);

    /* What a dialect cannot express is an error naming the task. */
    const char *get = "fennel: 1\ntasks:\n- {id: s0, type: start, rank: 0}\n"
                      "- {id: g, type: get, rank: 0, from: 1, size: 8B, after: [s0]}\n";
    FennelProgram *with_get = fennel_program_parse_yaml("g.yaml", get, strlen(get), &error);
    g_string_truncate(out, 0);
    g_assert_false(fennel_program_write_fennel_goal(with_get, out, &error));
    g_assert_cmpstr(error->message, ==,
                    "cannot write fennel-goal: task 'g' is a get, send or recv, which the "
                    "dialect lacks");
    g_clear_error(&error);
    fennel_program_free(with_get);
    const char *cross = "fennel: 1\ntasks:\n- {id: s0, type: start, rank: 0}\n"
                        "- {id: s1, type: start, rank: 1}\n"
                        "- {id: x, type: proxy, rank: 1, after: [s1, s0]}\n";
    FennelProgram *crossing = fennel_program_parse_yaml("c.yaml", cross, strlen(cross), &error);
    g_string_truncate(out, 0);
    g_assert_false(fennel_program_write_goal(crossing, &model, out, &error));
    g_assert_cmpstr(error->message, ==,
                    "cannot write GOAL: task 'x' depends on a task of another rank without a "
                    "message; GOAL cannot express it");
    g_clear_error(&error);
    fennel_program_free(crossing);
    fennel_model_clear(&model);
    g_string_free(out, TRUE);
    fennel_program_free(p);
}

/* An unlabelled operation's name cannot clash with a label: the second operation of rank 0
 * below is unlabelled and the third is labelled op1 (the implicit name once was r0:op1). */
static void implicit_names(void)
{
    const char *text = "num_ranks 1\nrank 0 {\nl0: calc 10\ncalc 20\nop1: calc 30\n}\n";
    GError *error = NULL;
    FennelProgram *p = fennel_goal_parse_loggopsim("n.goal", text, strlen(text), NULL, &error);
    g_assert_no_error(error);
    /* Every task's name is its own, and both the implicit op.1 and the label op1 are there. */
    GHashTable *names = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    for (uint32_t t = 0; t < p->n_tasks; t++) {
        char buf[24];
        g_assert_true(g_hash_table_add(names, g_strdup(fennel_program_task_name(p, t, buf))));
    }
    g_assert_true(g_hash_table_contains(names, "r0:op.1"));
    g_assert_true(g_hash_table_contains(names, "r0:op1"));
    g_hash_table_destroy(names);
    fennel_program_free(p);
}

/* The fast path names its tasks from its copy of the text when asked, after the caller's
 * text is gone: comments, tabs and blanks before a task, a label that begins like an
 * operation (sendx), unlabelled operations counted per rank. The tasks are numbered step by
 * step (program.h, fennel_program_order_by_step): both starts, both first operations, then
 * the rest of rank 0. */
static void names_from_text(void)
{
    char *text = g_strdup("num_ranks 2\n// x: calc 1\nrank 0 {\n/* c */ sendx: calc 10\n"
                          "\tcalc 20 /* c */\n  send 8b to 1\n/* a */ /* b */ z: calc 5\n"
                          "z requires sendx\n}\nrank 1 {\n recv 8b from 0\n}\n");
    GError *error = NULL;
    FennelProgram *p = fennel__goal_fast_read("n.goal", text, strlen(text), NULL, &error);
    g_assert_no_error(error);
    g_assert_nonnull(p);
    memset(text, ' ', strlen(text));
    g_free(text);
    const char *expected[] = {"r0:start", "r1:start", "r0:sendx", "r1:op.0",
                              "r0:op.1",  "r0:op.2",  "r0:z"};
    g_assert_cmpuint(p->n_tasks, ==, G_N_ELEMENTS(expected));
    for (uint32_t t = 0; t < p->n_tasks; t++) {
        char buf[24];
        g_assert_cmpstr(fennel_program_task_name(p, t, buf), ==, expected[t]);
    }
    g_assert_nonnull(fennel_program_own_names(p));
    fennel_program_free(p);
}

/* Reads `text` from a file as `fennel run` does; the error message or NULL. */
static char *read_file_error(const char *dir, const char *text, gsize length, char **names)
{
    char *file = g_build_filename(dir, "f.goal", NULL);
    g_assert_true(g_file_set_contents(file, text, (gssize)length, NULL));
    GError *error = NULL;
    FennelProgram *p = fennel_program_read(file, NULL, &error);
    char *message = NULL;
    if (p == NULL) {
        message = g_strdup(error->message + strlen(file));
        g_error_free(error);
    } else {
        GString *all = g_string_new(NULL);
        for (uint32_t t = 0; t < p->n_tasks; t++) {
            char buf[24];
            g_string_append_printf(all, "%s ", fennel_program_task_name(p, t, buf));
        }
        *names = g_string_free(all, FALSE);
    }
    fennel_program_free(p);
    g_unlink(file);
    g_free(file);
    return message;
}

/* A file is mapped: one that fills its pages exactly still ends (the readers need a NUL
 * after the text); a NUL in a comment and a comment that is not UTF-8 are refused, as
 * before the fast path read files without checking them first (it declines what is not
 * plain ASCII), and a UTF-8 comment is read. */
static void goal_files(void)
{
    char *dir = g_dir_make_tmp("fennel-goal-XXXXXX", NULL);
    gsize page = (gsize)sysconf(_SC_PAGESIZE);
    GString *text = g_string_new("num_ranks 1\nrank 0 {\na: calc 10\ncalc 5\n}\n// ");
    while (text->len < 2 * page - 1)
        g_string_append_c(text, 'x');
    g_string_append_c(text, '\n');
    char *names = NULL;
    g_assert_null(read_file_error(dir, text->str, text->len, &names));
    g_assert_cmpstr(names, ==, "r0:start r0:a r0:op.1 ");
    g_free(names);
    /* One byte shorter, without the final newline: the text ends within the comment. */
    g_assert_null(read_file_error(dir, text->str, text->len - 1, &names));
    g_free(names);

    const char nul[] = "num_ranks 1\nrank 0 {\ncalc 10 // a\0b\n}\n";
    char *message = read_file_error(dir, nul, sizeof nul - 1, &names);
    g_assert_cmpstr(message, ==, ": binary data (a NUL byte) in a text file");
    g_free(message);
    const char latin1[] = "num_ranks 1\nrank 0 {\ncalc 10 // caf\xe9\n}\n";
    message = read_file_error(dir, latin1, sizeof latin1 - 1, &names);
    g_assert_cmpstr(message, ==, ": the file is not UTF-8 text");
    g_free(message);
    const char utf8[] = "num_ranks 1\nrank 0 {\ncalc 10 // caf\xc3\xa9\n}\n";
    g_assert_null(read_file_error(dir, utf8, sizeof utf8 - 1, &names));
    g_assert_cmpstr(names, ==, "r0:start r0:op.0 ");
    g_free(names);
    g_string_free(text, TRUE);
    g_rmdir(dir);
    g_free(dir);
}

/* A file larger than the 16 MiB the fast path reads before it gives pages back: 24 rank
 * blocks of 1 MiB (a long comment each) read from the mapped file give the program the
 * careful reader gives, names included, made from pages given back and read again. */
static void large_file(void)
{
    GString *text = g_string_new("num_ranks 24\n");
    for (int r = 0; r < 24; r++) {
        g_string_append_printf(text, "rank %d {\n  a%d: calc %d\n  // ", r, r, r + 1);
        for (int i = 0; i < (1 << 20); i++)
            g_string_append_c(text, (char)('a' + i % 26));
        g_string_append_printf(text,
                               "\n  send 8b to %d\n  recv 8b from %d\n  b: calc 2\n"
                               "  b requires a%d\n}\n",
                               (r + 1) % 24, (r + 23) % 24, r);
    }
    char *dir = g_dir_make_tmp("fennel-goal-XXXXXX", NULL);
    char *file = g_build_filename(dir, "large.goal", NULL);
    g_assert_true(g_file_set_contents(file, text->str, (gssize)text->len, NULL));
    GError *error = NULL;
    FennelProgram *mapped = fennel_program_read(file, NULL, &error);
    g_assert_no_error(error);
    FennelProgram *careful = fennel__goal_careful_read(file, text->str, text->len, NULL, &error);
    g_assert_no_error(error);
    g_assert_cmpuint(mapped->n_tasks, ==, 24 * 5);
    char buf[24];
    /* Numbered step by step: the k-th task of rank r is task 24 k + r. */
    g_assert_cmpstr(fennel_program_task_name(mapped, 24 * 1 + 23, buf), ==, "r23:a23");
    g_assert_cmpstr(fennel_program_task_name(mapped, 24 * 3 + 23, buf), ==, "r23:op.2");
    char *a = program_describe(mapped), *b = program_describe(careful);
    g_assert_cmpstr(a, ==, b);
    g_free(a);
    g_free(b);
    fennel_program_free(mapped);
    fennel_program_free(careful);
    g_unlink(file);
    g_rmdir(dir);
    g_free(file);
    g_free(dir);
    g_string_free(text, TRUE);
}

/* The ATLAHS generators' tags (docs/FORMATS.md, ATLAHS): tags of 2^31 and more are numbered
 * in order of appearance, so tags that LogGOPSim would wrap onto each other modulo 2^32
 * (5 and 2^32 + 5) stay apart, and one tag written with leading zeros is the same tag.
 * Labels have no length limit: two that differ only after 64 characters are two labels. */
static void atlahs_tags_and_labels(void)
{
    char label[200];
    memset(label, 'x', 150);
    label[0] = 'l';
    label[150] = '\0';
    char *text =
        g_strdup_printf("num_ranks 2\nrank 0 {\n%sa: send 8b to 1 tag 4294967301\n"
                        "%sb: send 8b to 1 tag 000012000001100\n%sb requires %sa\n"
                        "s: send 8b to 1 tag 5\n}\n"
                        "rank 1 {\nr1: recv 8b from 0 tag 12000001100\nr2: recv 8b from 0 tag 5\n"
                        "r3: recv 8b from 0 tag 4294967301\n}\n",
                        label, label, label, label);
    for (int careful = 0; careful < 2; careful++) {
        GError *error = NULL;
        FennelProgram *p =
            careful ? fennel__goal_careful_read("t.goal", text, strlen(text), NULL, &error)
                    : fennel__goal_fast_read("t.goal", text, strlen(text), NULL, &error);
        g_assert_no_error(error);
        g_assert_nonnull(p); /* the fast path takes it */
        /* Tasks, step by step: 0 start (rank 0), 1 start (rank 1), 2 a, 3 r1, 4 b, 5 r2,
         * 6 s, 7 r3. */
        g_assert_cmpuint(p->n_tasks, ==, 8);
        g_assert_cmpuint(p->tag[2], ==, p->tag[7]); /* 4294967301 */
        g_assert_cmpuint(p->tag[4], ==, p->tag[3]); /* 12000001100 */
        g_assert_cmpuint(p->tag[6], ==, 5);
        g_assert_cmpuint(p->tag[5], ==, 5);
        g_assert_cmpuint(p->tag[2], !=, p->tag[6]);
        g_assert_cmpuint(p->tag[2], !=, p->tag[4]);
        g_assert_cmpuint(p->tag[2], >=, FENNEL_GOAL_TAG_MAPPED);
        char buf[24];
        char *name = g_strdup_printf("r0:%sb", label);
        g_assert_cmpstr(fennel_program_task_name(p, 4, buf), ==, name);
        g_free(name);
        g_assert_cmpuint(p->n_edges, ==, 6); /* b after a; the others after their start */
        fennel_program_free(p);
    }
    g_free(text);
}

/* The largest tag docs/FORMATS.md reads, 2^64 - 1, is a tag like any other (it was the hash
 * map's mark of a free entry, and reading it aborted): a send and a receive with it meet,
 * and 2^64 - 2 is another tag. */
static void largest_tag(void)
{
    const char *text = "num_ranks 2\nrank 0 {\na: send 8b to 1 tag 18446744073709551615\n"
                       "b: send 8b to 1 tag 18446744073709551614\n}\n"
                       "rank 1 {\nr1: recv 8b from 0 tag 18446744073709551614\n"
                       "r2: recv 8b from 0 tag 18446744073709551615\n}\n";
    for (int careful = 0; careful < 2; careful++) {
        GError *error = NULL;
        FennelProgram *p =
            careful ? fennel__goal_careful_read("t.goal", text, strlen(text), NULL, &error)
                    : fennel__goal_fast_read("t.goal", text, strlen(text), NULL, &error);
        g_assert_no_error(error);
        if (!careful && p == NULL)
            continue; /* the fast path leaves numbers of 19 digits and more to the careful one */
        g_assert_nonnull(p);
        /* Tasks, step by step: 0 start (rank 0), 1 start (rank 1), 2 a, 3 r1, 4 b, 5 r2. */
        g_assert_cmpuint(p->n_tasks, ==, 6);
        g_assert_cmpuint(p->tag[2], ==, p->tag[5]);
        g_assert_cmpuint(p->tag[4], ==, p->tag[3]);
        g_assert_cmpuint(p->tag[2], !=, p->tag[4]);
        g_assert_cmpuint(p->tag[2], >=, FENNEL_GOAL_TAG_MAPPED);
        fennel_program_free(p);
    }
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/goal/binomial-bcast", test_binomial_bcast);
    g_test_add_func("/goal/symmetric-irequires", test_symmetric_irequires);
    g_test_add_func("/goal/two-cpus", test_two_cpus);
    g_test_add_func("/goal/every-construct", test_every_construct);
    g_test_add_func("/goal/fennel-dialect", test_fennel_dialect);
    g_test_add_func("/goal/errors", test_errors);
    g_test_add_func("/goal/num-ranks-by-the-file", test_num_ranks_by_the_file);
    g_test_add_func("/goal/fast-path", test_fast_path);
    g_test_add_func("/goal/fast-path-halves", test_fast_path_halves);
    g_test_add_func("/goal/round-trip", test_round_trip);
    g_test_add_func("/goal/implicit-names", implicit_names);
    g_test_add_func("/goal/names-from-text", names_from_text);
    g_test_add_func("/goal/files", goal_files);
    g_test_add_func("/goal/large-file", large_file);
    g_test_add_func("/goal/atlahs-tags-and-labels", atlahs_tags_and_labels);
    g_test_add_func("/goal/largest-tag", largest_tag);
    return g_test_run();
}
