/* The MSCCL XML reader's two parsers and the names of lowered tasks. The fast scanner
 * (programs/xml_fast.c) must take the plain files, read them as GMarkup does (the same
 * algorithm, positions included, or the same message), and decline what it does not
 * know; expected values and messages are derived by hand from docs/FORMATS.md. */
#include "errors.h"
#include "msccl.h"
#include "msccl_describe.h"

#include <string.h>

/* Reads the text with one parser; the algorithm's description, or the message. */
static char *read_with(const char *text, gsize length, FennelMscclXmlSource source)
{
    GError *error = NULL;
    FennelMscclAlgo *a = fennel_msccl_parse_with("t.xml", text, length, source, &error);
    if (a == NULL) {
        char *message = g_strdup(error->message);
        g_error_free(error);
        return message;
    }
    char *s = msccl_describe(a);
    fennel_msccl_free(a);
    return s;
}

/* The fast scanner takes the text (or declines it) and reads it as GMarkup does. */
static void check_fast(const char *text, gsize length, gboolean taken)
{
    char *fast = read_with(text, length, FENNEL_MSCCL_XML_FAST_ONLY);
    char *markup = read_with(text, length, FENNEL_MSCCL_XML_MARKUP_ONLY);
    char *automatic = read_with(text, length, FENNEL_MSCCL_XML_AUTO);
    gboolean declined = g_str_has_suffix(fast, FENNEL_MSCCL_DECLINED);
    if (declined == taken)
        g_error("%s: the fast scanner %s it:\n%s\n%s", text, taken ? "declines" : "takes", fast,
                markup);
    if (!declined)
        g_assert_cmpstr(fast, ==, markup);
    g_assert_cmpstr(automatic, ==, markup);
    g_free(fast);
    g_free(markup);
    g_free(automatic);
}

static void check_files(const char *folder, const char *prefix, gboolean taken)
{
    char *dir = g_test_build_filename(G_TEST_DIST, "data", folder, NULL);
    GDir *listing = g_dir_open(dir, 0, NULL);
    g_assert_nonnull(listing);
    const char *entry;
    int n = 0;
    while ((entry = g_dir_read_name(listing)) != NULL) {
        if (!g_str_has_suffix(entry, ".xml") || !g_str_has_prefix(entry, prefix))
            continue;
        char *path = g_build_filename(dir, entry, NULL), *text;
        gsize length;
        g_assert_true(g_file_get_contents(path, &text, &length, NULL));
        /* A truncated file is declined: its last element never closes. */
        check_fast(text, length, taken && strstr(entry, "truncated") == NULL);
        g_free(text);
        g_free(path);
        n++;
    }
    g_assert_cmpint(n, >, 3);
    g_dir_close(listing);
    g_free(dir);
}

static void test_files(void)
{
    check_files("msccl", "", TRUE);
    check_files("bad", "msccl-", TRUE);
}

#define ALGO "<algo name=\"n\" nchunksperloop=\"1\" ngpus=\"1\" coll=\"custom\" inplace=\"1\">"
#define GPU  "<gpu id=\"0\" i_chunks=\"2\" o_chunks=\"0\" s_chunks=\"0\">"
#define TB   "<tb id=\"0\" send=\"-1\" recv=\"-1\" chan=\"0\">"
#define STEP(attrs)                                                                                \
    ALGO GPU TB "<step s=\"0\" type=\"cpy\" srcbuf=\"i\" srcoff=\"0\" dstbuf=\"i\" " attrs         \
                " depid=\"-1\" deps=\"-1\"/></tb></gpu></algo>"

/* Texts the scanner takes, and texts it leaves to GMarkup. */
static void test_shapes(void)
{
    const char *taken[] = {
        "<?xml version=\"1.0\"?>\n<!-- c -->\n" ALGO "\n  " GPU TB "</tb></gpu>\n</algo>\n",
        /* Attributes over several lines, single quotes, space around '=': the positions
         * of the tags after them must still be right. */
        "<algo\n name='n'\n\tnchunksperloop = \"1\" ngpus=\"1\"\r\n coll=\"custom\" >\n" GPU
        "\n <tb id=\"0\" send=\"-1\"\n recv=\"-1\" chan=\"0\">\n  <step s=\"0\" type=\"cpy\"\n"
        " srcbuf=\"i\" srcoff=\"0\" dstbuf=\"i\" dstoff=\"1\" cnt=\"1\" depid=\"-1\" "
        "deps=\"-1\"/>\n</tb>\n</gpu></algo>",
        /* A value holding '>' runs past the first '>' of its tag, twice. */
        "<algo name=\"a>b>c\" nchunksperloop=\"1\" ngpus=\"1\" coll=\"custom\"><gpu id=\"0\" "
        "i_chunks=\"0\" o_chunks=\"0\" s_chunks=\"0\"/></algo>",
        /* Numbers in other forms go to the careful parser, which reads them the same. */
        STEP("dstoff=\"+1\" cnt=\" 1\""),
        STEP("dstoff=\"001\" cnt=\"0000000001\""),
        STEP("dstoff=\"-0\" cnt=\"1\" hasdep=\"1\""),
        /* Errors the reader reports from the fast scanner's tags. */
        STEP("dstoff=\"1\" cnt=\"2147483648\""),
        STEP("dstoff=\"1\" cnt=\"99999999999\""),
        STEP("dstoff=\"-2\" cnt=\"1\""),
        STEP("dstoff=\"1\" cnt=\"1-\""),
        STEP("dstoff=\"1\" cnt=\"-\""),
        STEP("dstoff=\"1\" cnt=\"\""),
        STEP("dstoff=\"1\" cnt=\"1\" hasdep=\"2\""),
        STEP("dstoff=\"1\""),
        ALGO GPU TB "<step s=\"0\" type=\"cpyy\"/></tb></gpu></algo>",
        ALGO GPU TB "<step s=\"0\" type=\"\"/></tb></gpu></algo>",
        ALGO GPU TB "<step s=\"0\" type=\"rrcs\" srcbuf=\"x\"/></tb></gpu></algo>",
        ALGO GPU TB "<step srcbuf=\"i\" type=\"nop\" unknown=\"1\" sx=\"0\"/></tb></gpu></algo>",
        ALGO "<gpu id=\"0\" i_chunks=\"2\" o_chunks=\"0\" s_chunks=\"0\"><step/></gpu></algo>",
        "<algo/>",
    };
    for (size_t i = 0; i < G_N_ELEMENTS(taken); i++)
        check_fast(taken[i], strlen(taken[i]), TRUE);
    /* A '>' in a value of a tag longer than the scanner's first room for a tag (512
     * bytes), so that the copy grows while the tag is read. */
    GString *long_tag = g_string_new("<algo name=\"");
    for (int i = 0; i < 300; i++)
        g_string_append(long_tag, "a>");
    g_string_append(long_tag, "\" nchunksperloop=\"1\" ngpus=\"1\" coll=\"custom\"><gpu id=\"0\" "
                              "i_chunks=\"0\" o_chunks=\"0\" s_chunks=\"0\"/></algo>");
    check_fast(long_tag->str, long_tag->len, TRUE);
    g_string_free(long_tag, TRUE);
    const char *declined[] = {
        "<algo name=\"a&amp;b\" nchunksperloop=\"1\" ngpus=\"1\" coll=\"custom\"></algo>",
        "<algo name=\"n\" nchunksperloop=\"1\" ngpus=\"1\" coll=\"custom\">text</algo>",
        "<algo name=\"n\" nchunksperloop=\"1\" ngpus=\"1\" coll=\"custom\"><![CDATA[x]]></algo>",
        "<!DOCTYPE algo>\n<algo/>",
        /* A repeated attribute, among others and alone. */
        STEP("dstoff=\"1\" cnt=\"1\" srcoff=\"0\""),
        "<algo ngpus=\"1\" ngpus=\"1\"/>",
        /* Names that start with a digit, '-' or '.' are not XML names. */
        STEP("dstoff=\"1\" cnt=\"1\" 0deps=\"1\""),
        "<algo -x=\"1\"/>",
        "<.algo/>",
        /* White space in a value, which GMarkup turns into spaces, and a form feed, which
         * XML does not count as white space. */
        "<algo name=\"a\nb\"/>",
        STEP("dstoff=\"\r1\" cnt=\"1\""),
        STEP("dstoff=\"1\" cnt=\"1\t\""),
        "<algo\fname=\"n\"/>",
        "\f<algo/>",
        "<algo name=\"a<b\"/>",
        "<algo name=\"a>b/>",
        "<algo name=\"a\"x=\"1\"/>",
        "<algo name=\"a\" / >",
        ALGO "</algox>",
        ALGO,
        "<",
    };
    for (size_t i = 0; i < G_N_ELEMENTS(declined); i++)
        check_fast(declined[i], strlen(declined[i]), FALSE);
}

/* Values read by hand: plain and careful numbers, and the messages of wrong ones. */
static void test_values(void)
{
    const char *text = STEP("dstoff=\"+1\" cnt=\" 001 \"");
    GError *error = NULL;
    FennelMscclAlgo *a =
        fennel_msccl_parse_with("t.xml", text, strlen(text), FENNEL_MSCCL_XML_FAST_ONLY, &error);
    g_assert_no_error(error);
    g_assert_cmpint(a->n_steps, ==, 1);
    g_assert_cmpint(a->steps[0].type, ==, FENNEL_MSCCL_COPY);
    g_assert_cmpint(a->steps[0].dstoff, ==, 1);
    g_assert_cmpint(a->steps[0].cnt, ==, 1);
    g_assert_cmpint(a->steps[0].depid, ==, -1);
    g_assert_cmpint(a->steps[0].col, ==, 70 + 51 + 40 + 1); /* after <algo>, <gpu> and <tb> */
    fennel_msccl_free(a);
    struct {
        const char *attrs, *message;
    } wrong[] = {
        {"dstoff=\"1\" cnt=\"2147483648\"",
         "t.xml:1:162: <step> cnt=\"2147483648\": value is out of range"},
        {"dstoff=\"1\" cnt=\"99999999999\"",
         "t.xml:1:162: <step> cnt=\"99999999999\": value is out of range"},
        {"dstoff=\"-2\" cnt=\"1\"", "t.xml:1:162: <step> dstoff=\"-2\": value is out of range"},
        {"dstoff=\"1\" cnt=\"1-\"", "t.xml:1:162: <step> cnt=\"1-\": expected a whole number"},
        {"dstoff=\"1\" cnt=\"\"", "t.xml:1:162: <step> cnt=\"\": expected a whole number"},
        {"dstoff=\"1\"", "t.xml:1:162: <step>: missing attribute 'cnt'"},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(wrong); i++) {
        char *t = g_strdup_printf(STEP("%s"), wrong[i].attrs);
        g_assert_null(
            fennel_msccl_parse_with("t.xml", t, strlen(t), FENNEL_MSCCL_XML_FAST_ONLY, &error));
        g_assert_cmpstr(error->message, ==, wrong[i].message);
        g_clear_error(&error);
        g_free(t);
    }
}

/* GMarkup's positions point past a tag and miss the line breaks before the first element;
 * the reader finds the tag itself. The entity sends this text to GMarkup; the <gpu> with
 * the wrong id starts on line 5, column 3, after two blank lines, a comment and <algo>. */
static void test_markup_positions(void)
{
    const char *text =
        "\n\n<!-- <gpu> -->\n<algo name=\"a&amp;b\" ngpus=\"2\" nchunksperloop=\"1\" "
        "coll=\"custom\">\n  <gpu id=\"1\" i_chunks=\"1\" o_chunks=\"0\" "
        "s_chunks=\"0\"/><gpu id=\"0\"/></algo>\n";
    for (int source = FENNEL_MSCCL_XML_AUTO; source <= FENNEL_MSCCL_XML_MARKUP_ONLY; source++) {
        if (source == FENNEL_MSCCL_XML_FAST_ONLY)
            continue;
        GError *error = NULL;
        g_assert_null(fennel_msccl_parse_with("t.xml", text, strlen(text), source, &error));
        g_assert_cmpstr(error->message, ==,
                        "t.xml:5:3: <gpu> id=\"1\": expected id 0 (gpus are numbered 0, 1, ... in "
                        "order)");
        g_error_free(error);
    }
}

/* GMarkup may quote one byte of a character in its message; fennel's stays valid UTF-8
 * (it was "(null)", from a regular expression that refused the text). */
static void test_markup_message(void)
{
    const char *text = "<a\xa3\xa3 x=\"1\"/>";
    GError *error = NULL;
    g_assert_null(fennel_msccl_parse("t.xml", text, strlen(text), &error));
    g_assert_true(g_utf8_validate(error->message, -1, NULL));
    g_assert_nonnull(strstr(error->message, "not well-formed XML: Invalid UTF-8"));
    g_assert_null(strchr(error->message, '\n'));
    g_assert_true(g_str_has_prefix(error->message, "t.xml:1:"));
    g_error_free(error);
}

/* The names of a lowered algorithm: made on the first request, as docs/FORMATS.md gives
 * them: gG.start for a GPU's start, gG.tT.sK.OP for the operations of step K of thread
 * block T (recv, reduce or copy, send, nop), with .iI. before OP in slice I. */
static void test_names(void)
{
    char *path = g_test_build_filename(G_TEST_DIST, "data", "msccl", "names-2.xml", NULL);
    GError *error = NULL;
    FennelMscclAlgo *a = fennel_msccl_read(path, &error);
    g_assert_no_error(error);
    /* names-2.xml: GPU 0 has thread block 0 with cpy, s, rrs, nop and thread block 1 with
     * re; GPU 1 has one thread block with r, s, rrc. */
    const char *whole[] = {
        "g0.start",      "g0.t0.s0.copy", "g0.t0.s1.send",   "g0.t0.s2.recv", "g0.t0.s2.reduce",
        "g0.t0.s2.send", "g0.t0.s3.nop",  "g0.t1.s0.reduce", "g1.start",      "g1.t0.s0.recv",
        "g1.t0.s1.send", "g1.t0.s2.recv", "g1.t0.s2.reduce",
    };
    /* 4 bytes a rank over nchunksperloop 2: chunks of 2 bytes, two slices of 1 byte. The
     * slices of a thread block run one after the other, each through all its steps. */
    const char *sliced[] = {
        "g0.start",           "g0.t0.s0.i0.copy",   "g0.t0.s1.i0.send",   "g0.t0.s2.i0.recv",
        "g0.t0.s2.i0.reduce", "g0.t0.s2.i0.send",   "g0.t0.s3.i0.nop",    "g0.t0.s0.i1.copy",
        "g0.t0.s1.i1.send",   "g0.t0.s2.i1.recv",   "g0.t0.s2.i1.reduce", "g0.t0.s2.i1.send",
        "g0.t0.s3.i1.nop",    "g0.t1.s0.i0.reduce", "g0.t1.s0.i1.reduce", "g1.start",
        "g1.t0.s0.i0.recv",   "g1.t0.s1.i0.send",   "g1.t0.s2.i0.recv",   "g1.t0.s2.i0.reduce",
        "g1.t0.s0.i1.recv",   "g1.t0.s1.i1.send",   "g1.t0.s2.i1.recv",   "g1.t0.s2.i1.reduce",
    };
    for (int slice = 0; slice <= 1; slice++) {
        FennelProgram *p = fennel_msccl_lower(a, 4, slice, NULL, &error);
        g_assert_no_error(error);
        const char *const *want = slice ? sliced : whole;
        guint n = slice ? G_N_ELEMENTS(sliced) : G_N_ELEMENTS(whole);
        g_assert_cmpuint(p->n_tasks, ==, n);
        /* Nothing is printed until a name is asked for. */
        g_assert_null(p->task_name);
        char buf[24];
        for (uint32_t t = 0; t < n; t++)
            g_assert_cmpstr(fennel_program_task_name(p, t, buf), ==, want[t]);
        char *const *own = fennel_program_own_names(p);
        g_assert_nonnull(own);
        g_assert_cmpstr(own[n - 1], ==, want[n - 1]);
        fennel_program_free(p);
    }
    fennel_msccl_free(a);
    g_free(path);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/msccl/files", test_files);
    g_test_add_func("/msccl/shapes", test_shapes);
    g_test_add_func("/msccl/values", test_values);
    g_test_add_func("/msccl/markup-positions", test_markup_positions);
    g_test_add_func("/msccl/markup-message", test_markup_message);
    g_test_add_func("/msccl/names", test_names);
    return g_test_run();
}
