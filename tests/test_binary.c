/* fennel's binary program file (programs/binary/program_binary.c, docs/FORMATS.md): programs of
 * every kind read back as the same program, and every damage the reader checks for is
 * refused with its exact message, at the byte it names. */
#include "binary_private.h"
#include "errors.h"
#include "generator.h"
#include "goal_readers.h"
#include "program_describe.h"
#include "program_io.h"

#include <glib/gstdio.h>
#include <string.h>

static GString *binary_of(const FennelProgram *p)
{
    GString *out = g_string_new(NULL);
    GError *error = NULL;
    g_assert_true(fennel_program_write_binary(p, out, &error));
    g_assert_no_error(error);
    return out;
}

static FennelProgram *parse(const GString *bin, GError **error)
{
    GBytes *bytes = g_bytes_new(bin->str, bin->len);
    FennelProgram *p = fennel_program_parse_binary("t.fbin", bytes, NULL, error);
    g_bytes_unref(bytes);
    return p;
}

/* Everything a program holds, as text: the YAML writer's view, positions and ranks, and the
 * fields the YAML does not show; but FENNEL_TASK_SOLE, which a reader that builds a program
 * works out and files do not keep (/binary/sole-not-kept checks it). */
static char *describe_all(const FennelProgram *p)
{
    char *yaml = program_describe(p);
    GString *s = g_string_new(yaml);
    g_free(yaml);
    g_string_append_printf(s, "edges %" G_GUINT64_FORMAT " blocks %u root %u marks %u\n",
                           p->n_edges, p->n_blocks, p->root, p->n_stage_marks);
    g_string_append_printf(s, "name %s source %s collective %s schedule %s\n",
                           p->name ? p->name : "-",
                           /* Without positions a program read from a binary file names the
                              file it was read from, for messages. */
                           p->line && p->source ? p->source : "-",
                           p->collective ? p->collective : "-", p->schedule ? p->schedule : "-");
    for (uint32_t i = 0; i < p->n_stage_marks; i++)
        g_string_append_printf(s, "mark %u %u\n", p->stage_first[i], p->stage_number[i]);
    char buf[24];
    for (uint32_t t = 0; t < p->n_tasks; t++) {
        g_string_append_printf(s, "%u %s %u %u %" G_GINT64_FORMAT " %u %u %u %u %u", t,
                               fennel_program_task_name(p, t, buf), p->type[t],
                               p->flags[t] & ~FENNEL_TASK_SOLE, p->amount[t], p->peer[t],
                               p->tag ? p->tag[t] : 0, p->pin ? p->pin[t] : 0,
                               fennel_program_any(p, t), p->block_first ? p->block_count[t] : 0);
        for (uint64_t e = p->succ_start[t]; e < p->succ_start[t + 1]; e++)
            g_string_append_printf(s, " >%u", p->succ[e]);
        for (uint64_t e = p->start_succ ? p->start_succ_start[t] : 0;
             p->start_succ && e < p->start_succ_start[t + 1]; e++)
            g_string_append_printf(s, " ~%u", p->start_succ[e]);
        g_string_append_c(s, '\n');
    }
    return g_string_free(s, FALSE);
}

static void assert_round_trip(const FennelProgram *p)
{
    GString *bin = binary_of(p);
    g_assert_cmpuint(bin->len % 8, ==, 0);
    GError *error = NULL;
    FennelProgram *q = parse(bin, &error);
    g_assert_no_error(error);
    /* Written again, the same bytes (before describing it names the tasks). */
    GString *again = binary_of(q);
    g_assert_cmpmem(bin->str, bin->len, again->str, again->len);
    char *a = describe_all(p), *b = describe_all(q);
    g_assert_cmpstr(a, ==, b);
    g_free(a);
    g_free(b);
    g_string_free(again, TRUE);
    g_string_free(bin, TRUE);
    fennel_program_free(q);
}

static FennelProgram *generate(const char *name, uint32_t ranks)
{
    const FennelGenerator *g = fennel_generator_find(name);
    g_assert_nonnull(g);
    FennelGenOptions o;
    fennel_gen_options_init(&o);
    o.ranks = ranks;
    o.given = FENNEL_GEN_RANKS;
    GError *error = NULL;
    FennelProgram *p = fennel_generate(g, &o, &error);
    g_assert_no_error(error);
    return p;
}

static void test_generated(void)
{
    const char *names[] = {"allreduce-rd",   "allreduce-rm",   "bcast-binomial",
                           "allreduce-ring", "allgather-ring", "reduce-scatter-ring"};
    for (size_t i = 0; i < G_N_ELEMENTS(names); i++) {
        FennelProgram *p = generate(names[i], 12);
        assert_round_trip(p);
        /* Named on request before writing: the names travel too. */
        fennel_program_name_tasks(p);
        assert_round_trip(p);
        fennel_program_free(p);
    }
}

/* The checksum taken in pieces, split anywhere, is the checksum of the whole (the writer
 * streams the file and sums it as it goes). */
static void test_checksum_in_pieces(void)
{
    guint8 data[300];
    for (size_t i = 0; i < sizeof data; i++)
        data[i] = (guint8)(i * 131 + 7);
    for (gsize length = 0; length <= sizeof data; length += length < 70 ? 1 : 23) {
        uint64_t whole = fennel__binary_checksum(data, length);
        for (gsize cut = 1; cut <= 40; cut += 3) {
            FennelBinaryHash h;
            fennel__binary_hash_init(&h);
            for (gsize at = 0; at < length; at += cut)
                fennel__binary_hash_add(&h, data + at, MIN(cut, length - at));
            g_assert_cmpuint(fennel__binary_hash_end(&h), ==, whole);
        }
    }
}

/* A program large enough to spill several times: the file written through a sink is the
 * bytes the string writer gives. */
static void test_streamed(void)
{
    FennelProgram *p = generate("allreduce-rd", 4096);
    fennel_program_name_tasks(p);
    GString *bin = binary_of(p);
    g_assert_cmpuint(bin->len, >, 3 * FENNEL_SINK_SPILL);
    char *dir = g_dir_make_tmp("fennel-binary-XXXXXX", NULL);
    char *path = g_build_filename(dir, "p.fbin", NULL);
    GError *error = NULL;
    FennelOutputs *set = fennel_outputs_new();
    FennelSink *sink = fennel_outputs_open(set, path, &error);
    g_assert_true(fennel_program_stream_binary(p, sink, &error));
    g_assert_true(fennel_outputs_close_sink(set, sink, &error));
    g_assert_true(fennel_outputs_commit(set, &error));
    g_assert_no_error(error);
    char *got;
    gsize length;
    g_assert_true(g_file_get_contents(path, &got, &length, NULL));
    g_assert_cmpuint(length, ==, bin->len);
    g_assert_true(memcmp(got, bin->str, length) == 0);
    g_free(got);
    g_remove(path);
    g_rmdir(dir);
    g_free(path);
    g_free(dir);
    g_string_free(bin, TRUE);
    fennel_program_free(p);
}

static void test_files(void)
{
    const char *files[] = {"goal/binomial-bcast.goal",
                           "goal/binomial-bcast-dup.goal",
                           "goal/schedgen/binomialtreebcastnb100nbpoll10.9.64.goal",
                           "goal/schedgen/doublering.9.64.goal",
                           "../../programs/examples/pingpong.yaml",
                           "../../programs/examples/a4.yaml"};
    for (size_t i = 0; i < G_N_ELEMENTS(files); i++) {
        char *path = g_test_build_filename(G_TEST_DIST, "data", files[i], NULL);
        GError *error = NULL;
        FennelProgram *p = fennel_program_read(path, NULL, &error);
        g_assert_no_error(error);
        assert_round_trip(p);
        fennel_program_free(p);
        g_free(path);
    }
}

/* A program with every optional column: requests, tags, pins, any, start dependencies,
 * blocks, positions, names, stage marks, a collective and a backward edge (so an order
 * section). Tasks: 0 s0, 1 s1, 2 s2, 3 c (compute, rank 1, any 1 of p and x), 4 p (put 0->1,
 * blocks 1+1), 5 x (send 1->2, tag 5, slot 1), 6 y (recv on 2 from 1, tag 5, may start once
 * s2 has started), 7 g (get on 2 from 0). */
static FennelProgram *every_column(void)
{
    FennelProgramBuilder *b = fennel_builder_new();
    fennel_builder_set_n_blocks(b, 2);
    fennel_builder_set_stage(b, 0);
    uint32_t s0 = fennel_builder_add(b, FENNEL_TASK_START, 0);
    uint32_t s1 = fennel_builder_add(b, FENNEL_TASK_START, 1);
    uint32_t s2 = fennel_builder_add(b, FENNEL_TASK_START, 2);
    fennel_builder_set_stage(b, 1);
    uint32_t c = fennel_builder_add(b, FENNEL_TASK_COMPUTE, 1);
    fennel_builder_set_amount(b, c, 8);
    fennel_builder_set_flags(b, c, FENNEL_TASK_SIZED);
    fennel_builder_set_any(b, c, 1);
    uint32_t p = fennel_builder_add(b, FENNEL_TASK_PUT, 0);
    fennel_builder_set_peer(b, p, 1);
    fennel_builder_set_amount(b, p, 16);
    fennel_builder_set_blocks(b, p, 1, 1);
    uint32_t x = fennel_builder_add(b, FENNEL_TASK_SEND, 1);
    fennel_builder_set_peer(b, x, 2);
    fennel_builder_set_amount(b, x, 32);
    fennel_builder_set_tag(b, x, 5);
    fennel_builder_set_pin(b, x, 1);
    uint32_t y = fennel_builder_add(b, FENNEL_TASK_RECV, 2);
    fennel_builder_set_peer(b, y, 1);
    fennel_builder_set_amount(b, y, 32);
    fennel_builder_set_tag(b, y, 5);
    uint32_t g = fennel_builder_add(b, FENNEL_TASK_GET, 2);
    fennel_builder_set_peer(b, g, 0);
    fennel_builder_set_amount(b, g, 64);
    fennel_builder_set_request(b, g, 8);
    fennel_builder_add_edge(b, s0, p);
    fennel_builder_add_edge(b, p, c);
    fennel_builder_add_edge(b, s1, x);
    fennel_builder_add_edge(b, x, c);
    fennel_builder_add_edge(b, s2, y);
    fennel_builder_add_start_edge(b, s2, y);
    fennel_builder_add_edge(b, y, g);
    const char *names[] = {"s0", "s1", "s2", "c", "p", "x", "y", "g"};
    for (uint32_t t = 0; t < 8; t++) {
        fennel_builder_set_name(b, t, names[t]);
        fennel_builder_set_position(b, t, t + 2, 3);
    }
    GError *error = NULL;
    FennelProgram *prog = fennel_builder_finish(b, "every.yaml", 3, 2, &error);
    g_assert_no_error(error);
    prog->name = g_strdup("every.yaml");
    prog->collective = g_strdup("allreduce");
    prog->schedule = g_strdup("a3 (given)");
    prog->root = 2;
    return prog;
}

static void test_every_column(void)
{
    FennelProgram *p = every_column();
    assert_round_trip(p);
    fennel_program_free(p);
}

/* ---- Damage ---- */

/* Where section `id` lies (its offset), or 0 when the file has none. */
static uint64_t section_at(const GString *bin, int id)
{
    uint32_t k;
    memcpy(&k, bin->str + FENNEL_BINARY_AT_NSECTS, 4);
    for (uint32_t i = 0; i < k; i++) {
        const char *e = bin->str + FENNEL_BINARY_AT_TABLE + 24 * i;
        uint32_t sid;
        uint64_t at;
        memcpy(&sid, e, 4);
        memcpy(&at, e + 8, 8);
        if ((int)sid == id)
            return at;
    }
    return 0;
}

/* The table entry of section `id`. */
static uint64_t entry_of(const GString *bin, int id)
{
    uint32_t k;
    memcpy(&k, bin->str + FENNEL_BINARY_AT_NSECTS, 4);
    for (uint32_t i = 0; i < k; i++) {
        uint32_t sid;
        memcpy(&sid, bin->str + FENNEL_BINARY_AT_TABLE + 24 * i, 4);
        if ((int)sid == id)
            return FENNEL_BINARY_AT_TABLE + 24 * i;
    }
    g_assert_not_reached();
}

static void put(GString *bin, uint64_t at, const void *value, gsize size)
{
    g_assert_cmpuint(at + size, <=, bin->len);
    memcpy(bin->str + at, value, size);
}

static void put32(GString *bin, uint64_t at, uint32_t v)
{
    put(bin, at, &v, 4);
}

/* Parses the damaged copy and checks the message, "t.fbin: byte AT: WHAT". */
static void assert_refused(const GString *bin, uint64_t at, const char *what)
{
    GError *error = NULL;
    FennelProgram *p = parse(bin, &error);
    g_assert_null(p);
    g_assert_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT);
    char *expected = g_strdup_printf("t.fbin: byte %" G_GUINT64_FORMAT ": %s", at, what);
    g_assert_cmpstr(error->message, ==, expected);
    g_free(expected);
    g_error_free(error);
}

#define AGAIN "convert the source again (fennel convert SOURCE -o FILE)"

static void test_header_damage(void)
{
    FennelProgram *p = every_column();
    GString *good = binary_of(p);
    fennel_program_free(p);
    GString *bin = g_string_new_len(good->str, (gssize)good->len);

    /* Truncated at several places. */
    g_string_truncate(bin, 0);
    assert_refused(bin, 0, "not a fennel binary program (no magic number)");
    g_string_append_len(bin, good->str, 40);
    assert_refused(bin, 40, "the file ends within its header (72 bytes); " AGAIN);
    gsize cuts[] = {72, 200, good->len / 2, good->len - 8, good->len - 1};
    for (size_t i = 0; i < G_N_ELEMENTS(cuts); i++) {
        g_string_truncate(bin, 0);
        g_string_append_len(bin, good->str, (gssize)cuts[i]);
        char *what =
            g_strdup_printf("the file ends here, but its header says it has %" G_GSIZE_FORMAT
                            " bytes (truncated?); " AGAIN,
                            good->len);
        assert_refused(bin, cuts[i], what);
        g_free(what);
    }
    g_string_assign(bin, "");
    g_string_append_len(bin, good->str, (gssize)good->len);
    g_string_append(bin, "xyz");
    char *what =
        g_strdup_printf("the header says the file ends here, and 3 more bytes follow; " AGAIN);
    assert_refused(bin, good->len, what);
    g_free(what);

#define RESET() (g_string_truncate(bin, 0), g_string_append_len(bin, good->str, (gssize)good->len))
    RESET();
    bin->str[0] = 'x';
    assert_refused(bin, 0, "not a fennel binary program (no magic number)");
    RESET();
    put32(bin, 8, GUINT32_TO_LE(2));
    assert_refused(
        bin, 8, "version 2 of fennel's binary program format; this fennel reads version 1: " AGAIN);
    RESET();
    put32(bin, 12, 0x04030201u);
    assert_refused(bin, 12,
                   "written on a machine of the other byte order; convert the source again on "
                   "this one");
    /* One byte changed in any section, or in the table, and the checksum differs. */
    for (int id = 1; id < FENNEL_FBIN_COUNT; id++) {
        uint64_t at = section_at(good, id);
        if (at == 0)
            continue;
        RESET();
        bin->str[at] ^= 0x10;
        assert_refused(bin, 16,
                       "checksum mismatch: the file changed after fennel wrote it; " AGAIN);
    }
    RESET();
    bin->str[FENNEL_BINARY_AT_TABLE + 5] ^= 1;
    assert_refused(bin, 16, "checksum mismatch: the file changed after fennel wrote it; " AGAIN);
    RESET();
    bin->str[40] ^= 1;
    assert_refused(bin, 16, "checksum mismatch: the file changed after fennel wrote it; " AGAIN);
    g_string_free(bin, TRUE);
    g_string_free(good, TRUE);
}

/* Damage behind a checksum made to match (a crafted file): the checks of the structure. */
typedef struct {
    GString *good, *bin;
} Sealed;

static void reset(Sealed *s)
{
    g_string_truncate(s->bin, 0);
    g_string_append_len(s->bin, s->good->str, (gssize)s->good->len);
}

static void refused_sealed(Sealed *s, uint64_t at, const char *what)
{
    fennel__binary_seal(s->bin->str, s->bin->len);
    assert_refused(s->bin, at, what);
    reset(s);
}

static void test_structure_damage(void)
{
    FennelProgram *p = every_column();
    Sealed s = {binary_of(p), g_string_new(NULL)};
    fennel_program_free(p);
    reset(&s);
    GString *b = s.bin;
    /* The header's counts. */
    put32(b, 36, 0);
    refused_sealed(&s, 36, "0 ranks");
    put32(b, 40, 0);
    refused_sealed(&s, 40, "0 processes");
    put32(b, 48, 3);
    refused_sealed(&s, 48, "root 3 is outside 0..2");
    put32(b, 44, UINT32_MAX);
    refused_sealed(&s, 44, "4294967295 blocks");
    put32(b, 44, 0);
    refused_sealed(&s, 44, "0 blocks");
    put32(b, 32, 9);
    refused_sealed(&s, entry_of(s.good, FENNEL_FBIN_TYPE) + 16, "type: 8 elements, not 9");
    put32(b, FENNEL_BINARY_AT_NSECTS, 40);
    refused_sealed(&s, FENNEL_BINARY_AT_NSECTS, "40 sections, more than the format has");
    /* The 72-byte header and a table of 20 entries (480 bytes) in a 200-byte file. */
    put32(b, FENNEL_BINARY_AT_NSECTS, 20);
    g_string_truncate(b, 200);
    uint64_t short_size = 200;
    put(b, FENNEL_BINARY_AT_SIZE, &short_size, 8);
    refused_sealed(&s, FENNEL_BINARY_AT_NSECTS, "a table of 20 sections runs past the file's end");
    uint64_t n_edges = 9;
    put(b, 56, &n_edges, 8);
    refused_sealed(&s, 56, "9 edges, but the sections hold 7");
    /* The table. */
    uint64_t e = entry_of(s.good, FENNEL_FBIN_TAG);
    put32(b, e, 99);
    refused_sealed(&s, e, "unknown section 99");
    put32(b, e, FENNEL_FBIN_PIN);
    refused_sealed(&s, e + 24, "a second pin section");
    put32(b, e + 4, 8);
    refused_sealed(&s, e + 4, "tag: elements of 8 bytes, not 4");
    uint64_t far = s.good->len;
    put(b, e + 8, &far, 8);
    char *outside = g_strdup_printf("tag: 8 elements at byte %" G_GSIZE_FORMAT
                                    " do not lie within the file's %" G_GSIZE_FORMAT
                                    " bytes, after the table, 8-byte aligned",
                                    s.good->len, s.good->len);
    refused_sealed(&s, e + 8, outside);
    g_free(outside);
    /* An entry of the wrong length for its section. */
    put32(b, entry_of(s.good, FENNEL_FBIN_FLAGS), FENNEL_FBIN_STAGE_FIRST);
    put32(b, entry_of(s.good, FENNEL_FBIN_FLAGS) + 4, 4);
    refused_sealed(&s, entry_of(s.good, FENNEL_FBIN_FLAGS) + 16, "stage first: 8 elements, not 2");

    /* The columns. */
    uint64_t type = section_at(s.good, FENNEL_FBIN_TYPE);
    b->str[type + 2] = (char)200;
    refused_sealed(&s, type + 2, "task 2: type 200");
    /* A multicast (type 9) needs a group that holds its rank; this task has none. */
    b->str[type + 2] = FENNEL_TASK_MULTICAST;
    refused_sealed(&s, section_at(s.good, FENNEL_FBIN_TAG) + 4 * 2,
                   "task 2: a multicast whose group (0 ranks from 4294967295) is not within 0..2 "
                   "or lacks its rank 2");
    b->str[section_at(s.good, FENNEL_FBIN_FLAGS) + 3] = (char)0x84;
    refused_sealed(&s, section_at(s.good, FENNEL_FBIN_FLAGS) + 3, "task 3: flags 0x84");
    uint64_t rank = section_at(s.good, FENNEL_FBIN_RANK);
    put32(b, rank + 4 * 5, 3);
    refused_sealed(&s, rank + 4 * 5, "task 5: rank 3 is outside 0..2");
    uint64_t peer = section_at(s.good, FENNEL_FBIN_PEER);
    put32(b, peer + 4 * 4, 7);
    refused_sealed(&s, peer + 4 * 4, "task 4: peer 7 is outside 0..2");
    put32(b, peer + 4 * 4, FENNEL_ANY - 1);
    refused_sealed(&s, peer + 4 * 4, "task 4: peer 4294967293 is outside 0..2");
    put32(b, peer + 4 * 4, FENNEL_NO_RANK);
    refused_sealed(&s, peer + 4 * 4, "task 4: a put without a peer rank");
    put32(b, peer + 4 * 5, FENNEL_ANY);
    refused_sealed(&s, peer + 4 * 5, "task 5: a send without a peer rank");
    int64_t negative = -1;
    uint64_t amount = section_at(s.good, FENNEL_FBIN_AMOUNT);
    put(b, amount + 8 * 3, &negative, 8);
    refused_sealed(&s, amount + 8 * 3, "task 3: amount -1");
    put(b, section_at(s.good, FENNEL_FBIN_REQUEST) + 8 * 7, &negative, 8);
    refused_sealed(&s, section_at(s.good, FENNEL_FBIN_REQUEST) + 8 * 7, "task 7: request -1");
    uint64_t pin = section_at(s.good, FENNEL_FBIN_PIN);
    put32(b, pin + 4 * 5, 2);
    refused_sealed(&s, pin + 4 * 5, "task 5: slot 2 is outside 0..1");
    uint64_t first = section_at(s.good, FENNEL_FBIN_BLOCK_FIRST);
    put32(b, first + 4 * 4, 2);
    refused_sealed(&s, first + 4 * 4, "task 4: blocks 2+1, outside the vector's 2 blocks");
    uint64_t mark = section_at(s.good, FENNEL_FBIN_STAGE_FIRST);
    put32(b, mark + 4, 9);
    refused_sealed(&s, mark + 4, "stage mark 1: task 9 is not in order or past the last task");

    /* The successor lists: s0 [4], s1 [5], s2 [6], p [3], x [3], y [7], offsets 0 1 2 3 3 4
     * 5 6 6 (and one start edge, s2 ~ y). */
    uint64_t start = section_at(s.good, FENNEL_FBIN_SUCC_START);
    uint64_t succ = section_at(s.good, FENNEL_FBIN_SUCC);
    put32(b, start, 1);
    refused_sealed(&s, start, "successor offsets: the first is 1, not 0");
    put32(b, start + 4 * 8, 5);
    refused_sealed(&s, start + 4 * 8, "successor offsets: the last is 5, not the 6 successors");
    put32(b, start + 4 * 3, 1);
    refused_sealed(&s, start + 4 * 3,
                   "successor offsets: task 2's list ends at 1, before it begins or past the 6 "
                   "successors");
    put32(b, succ + 4 * 1, 8);
    refused_sealed(&s, succ + 4 * 1, "task 1: successor 8 is not a task");
    /* p's list made [3 3]. */
    put32(b, start + 4 * 5, 5);
    put32(b, succ + 4 * 4, 3);
    refused_sealed(&s, succ + 4 * 4, "task 4: successor 3 out of order or repeated");
    uint64_t any = section_at(s.good, FENNEL_FBIN_ANY);
    put32(b, any + 4 * 3, 3);
    refused_sealed(&s, any + 4 * 3, "task 3: any 3, more than its 2 predecessors");
    uint64_t order = section_at(s.good, FENNEL_FBIN_ORDER);
    g_assert_cmpuint(order, >, 0);
    put32(b, order + 4 * 3, 0);
    refused_sealed(&s, succ + 4 * 3,
                   "task 4: successor 3 does not come after it in the order section");

    /* Names and texts. */
    uint64_t name_at = section_at(s.good, FENNEL_FBIN_NAME_AT);
    uint64_t text = section_at(s.good, FENNEL_FBIN_NAME_TEXT);
    uint64_t far_name = 1000;
    put(b, name_at + 8 * 6, &far_name, 8);
    refused_sealed(&s, name_at + 8 * 6, "task 6: its name at 1000 lies past the 19 bytes of names");
    uint64_t inside = 1;
    put(b, name_at + 8 * 6, &inside, 8);
    refused_sealed(&s, name_at + 8 * 6, "task 6: its name at 1 does not start a name");
    b->str[text + 18] = 'z';
    refused_sealed(&s, text + 18, "name text: the text does not end with a NUL byte");
    b->str[text + 3] = (char)0xff;
    refused_sealed(&s, text + 3, "name text: not UTF-8");
    uint64_t collective = section_at(s.good, FENNEL_FBIN_COLLECTIVE);
    b->str[collective + 2] = (char)0xc3;
    refused_sealed(&s, collective + 2, "collective: not UTF-8");
    b->str[collective + 3] = ' ';
    refused_sealed(&s, collective + 3, "collective: not a collective's name");
    g_string_free(s.bin, TRUE);
    g_string_free(s.good, TRUE);
}

/* A cycle in a file without an order section (every edge of the original points forward,
 * so the writer gave none): Kahn's algorithm finds it. s0 -> a -> b -> c and s0 -> c; b's
 * successor turned into a makes a -> b -> a. */
static void test_cycle(void)
{
    FennelProgramBuilder *b = fennel_builder_new();
    uint32_t s0 = fennel_builder_add(b, FENNEL_TASK_START, 0);
    uint32_t a = fennel_builder_add(b, FENNEL_TASK_PROXY, 0);
    uint32_t bb = fennel_builder_add(b, FENNEL_TASK_PROXY, 0);
    uint32_t c = fennel_builder_add(b, FENNEL_TASK_PROXY, 0);
    fennel_builder_add_edge(b, s0, a);
    fennel_builder_add_edge(b, a, bb);
    fennel_builder_add_edge(b, bb, c);
    fennel_builder_add_edge(b, s0, c);
    GError *error = NULL;
    FennelProgram *p = fennel_builder_finish(b, "cycle", 0, 0, &error);
    g_assert_no_error(error);
    GString *bin = binary_of(p);
    fennel_program_free(p);
    g_assert_cmpuint(section_at(bin, FENNEL_FBIN_ORDER), ==, 0);
    /* Lists: s0 [1 3], a [2], b [3]. */
    uint64_t succ = section_at(bin, FENNEL_FBIN_SUCC);
    put32(bin, succ + 4 * 3, 1);
    fennel__binary_seal(bin->str, bin->len);
    assert_refused(bin, section_at(bin, FENNEL_FBIN_SUCC_START) + 4,
                   "task 1 lies on or behind a cycle of dependencies");
    g_string_free(bin, TRUE);
}

/* The graph rules on forward programs (no order section): start tasks s0, s1 and a proxy a
 * after both. */
static void test_rules(void)
{
    FennelProgramBuilder *b = fennel_builder_new();
    uint32_t s0 = fennel_builder_add(b, FENNEL_TASK_START, 0);
    uint32_t s1 = fennel_builder_add(b, FENNEL_TASK_START, 0);
    uint32_t a = fennel_builder_add(b, FENNEL_TASK_PROXY, 0);
    uint32_t z = fennel_builder_add(b, FENNEL_TASK_PROXY, 0);
    fennel_builder_add_edge(b, s0, a);
    fennel_builder_add_edge(b, s1, a);
    fennel_builder_add_edge(b, a, z);
    GError *error = NULL;
    FennelProgram *p = fennel_builder_finish(b, "rules", 0, 0, &error);
    g_assert_no_error(error);
    GString *good = binary_of(p);
    fennel_program_free(p);
    g_assert_cmpuint(section_at(good, FENNEL_FBIN_ORDER), ==, 0);
    uint64_t type = section_at(good, FENNEL_FBIN_TYPE), succ = section_at(good, FENNEL_FBIN_SUCC);
    /* Lists: s0 [2], s1 [2], a [3]. s0 -> s1 instead of s0 -> a. */
    GString *bin = g_string_new_len(good->str, (gssize)good->len);
    put32(bin, succ, 1);
    fennel__binary_seal(bin->str, bin->len);
    assert_refused(bin, type + 1, "task 1 is a start task with predecessors");
    /* a -> a instead of a -> z: z has no predecessor left. */
    g_string_truncate(bin, 0);
    g_string_append_len(bin, good->str, (gssize)good->len);
    put32(bin, succ + 4 * 2, 2);
    fennel__binary_seal(bin->str, bin->len);
    assert_refused(bin, type + 3, "task 3 has no predecessors, and is not a start task");
    /* z made a start task although a precedes it. */
    g_string_truncate(bin, 0);
    g_string_append_len(bin, good->str, (gssize)good->len);
    bin->str[type + 3] = FENNEL_TASK_START;
    fennel__binary_seal(bin->str, bin->len);
    assert_refused(bin, type + 3, "task 3 is a start task with predecessors");
    /* A get needs its request, which this program has no column for. */
    g_string_truncate(bin, 0);
    g_string_append_len(bin, good->str, (gssize)good->len);
    bin->str[type + 3] = FENNEL_TASK_GET;
    put32(bin, section_at(good, FENNEL_FBIN_PEER) + 4 * 3, 0);
    fennel__binary_seal(bin->str, bin->len);
    assert_refused(bin, type + 3, "task 3: a get, but the file has no request section");
    g_string_truncate(bin, 0);
    g_string_append_len(bin, good->str, (gssize)good->len);
    bin->str[type + 1] = FENNEL_TASK_PROXY;
    fennel__binary_seal(bin->str, bin->len);
    assert_refused(bin, type + 1, "task 1 has no predecessors, and is not a start task");
    g_string_free(bin, TRUE);
    g_string_free(good, TRUE);
}

/* The bytes may lie anywhere in memory: unaligned ones are copied first. */
static void test_unaligned(void)
{
    FennelProgram *p = every_column();
    GString *bin = binary_of(p);
    char *copy = g_malloc(bin->len + 1);
    memcpy(copy + 1, bin->str, bin->len);
    GBytes *bytes = g_bytes_new_static(copy + 1, bin->len);
    GError *error = NULL;
    FennelProgram *q = fennel_program_parse_binary("t.fbin", bytes, NULL, &error);
    g_assert_no_error(error);
    g_bytes_unref(bytes);
    g_free(copy);
    char *x = describe_all(p), *y = describe_all(q);
    g_assert_cmpstr(x, ==, y);
    g_free(x);
    g_free(y);
    fennel_program_free(q);
    fennel_program_free(p);
    g_string_free(bin, TRUE);
}

/* A program's FENNEL_TASK_SOLE marks (a GOAL file read rank by rank: rank 0's only send to
 * rank 1) are not written: a file cannot claim them, and the program read back has none. */
static void test_sole_not_kept(void)
{
    const char *text = "num_ranks 2\nrank 0 {\nl1: send 8b to 1\n}\nrank 1 {\n"
                       "l1: recv 8b from 0\n}\n";
    GError *error = NULL;
    FennelProgram *p = fennel_goal_parse_loggopsim("t.goal", text, strlen(text), NULL, &error);
    g_assert_no_error(error);
    uint32_t sole = 0;
    for (uint32_t t = 0; t < p->n_tasks; t++)
        sole += (p->flags[t] & FENNEL_TASK_SOLE) != 0;
    g_assert_cmpuint(sole, ==, 1);
    GString *bin = binary_of(p);
    FennelProgram *q = parse(bin, &error);
    g_assert_no_error(error);
    for (uint32_t t = 0; t < q->n_tasks; t++)
        g_assert_cmpuint(q->flags[t] & FENNEL_TASK_SOLE, ==, 0);
    g_string_free(bin, TRUE);
    fennel_program_free(q);
    fennel_program_free(p);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/binary/generated", test_generated);
    g_test_add_func("/binary/files", test_files);
    g_test_add_func("/binary/checksum-in-pieces", test_checksum_in_pieces);
    g_test_add_func("/binary/streamed", test_streamed);
    g_test_add_func("/binary/every-column", test_every_column);
    g_test_add_func("/binary/header-damage", test_header_damage);
    g_test_add_func("/binary/structure-damage", test_structure_damage);
    g_test_add_func("/binary/cycle", test_cycle);
    g_test_add_func("/binary/rules", test_rules);
    g_test_add_func("/binary/unaligned", test_unaligned);
    g_test_add_func("/binary/sole-not-kept", test_sole_not_kept);
    return g_test_run();
}
