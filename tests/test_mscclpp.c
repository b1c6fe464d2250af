/* The MSCCL++ reader's two halves: the fast path reads every plain plan as the careful
 * reader (json-glib) does, or declines it; it declines every text that is not plain, and
 * every error is the careful reader's. */
#include "mscclpp_describe.h"
#include "mscclpp_private.h"

#include <string.h>

enum { DECLINE, TAKE, TAKE_IF_READ };

/* Compares the halves on one text: whatever the fast path takes, the careful reader reads
 * as the same plan; whatever it declines, fennel_mscclpp_parse reads as the careful reader
 * does (the same plan or the same message). `want`: whether the fast path must take the
 * text, decline it, or take it exactly when the careful reader reads it. */
static void check_halves(const char *name, const char *text, gsize length, int want)
{
    FennelMscclppPlan *fast = fennel__mscclpp_fast_read(name, text, length);
    GError *careful_error = NULL, *error = NULL;
    FennelMscclppPlan *careful = fennel__mscclpp_careful_read(name, text, length, &careful_error);
    FennelMscclppPlan *both = fennel_mscclpp_parse(name, text, length, &error);
    gboolean must_take = want == TAKE_IF_READ ? careful != NULL : want == TAKE;
    if (must_take != (fast != NULL)) {
        g_test_message("%s: the fast path %s it", name, fast ? "takes" : "declines");
        g_test_fail();
    }
    if (fast) {
        g_assert_nonnull(careful);
        char *a = mscclpp_describe(fast), *b = mscclpp_describe(careful);
        g_assert_cmpstr(a, ==, b);
        g_free(a);
        g_free(b);
    }
    if (careful) {
        g_assert_nonnull(both);
        char *a = mscclpp_describe(both), *b = mscclpp_describe(careful);
        g_assert_cmpstr(a, ==, b);
        g_free(a);
        g_free(b);
    } else {
        g_assert_null(both);
        g_assert_nonnull(error);
        g_assert_cmpstr(error->message, ==, careful_error->message);
    }
    g_clear_error(&careful_error);
    g_clear_error(&error);
    fennel_mscclpp_free(fast);
    fennel_mscclpp_free(careful);
    fennel_mscclpp_free(both);
}

/* Every .json file of a test directory whose name starts with `prefix`. */
static void check_dir(const char *dir_name, const char *prefix, int want)
{
    char *dir = g_test_build_filename(G_TEST_DIST, "data", dir_name, NULL);
    GDir *listing = g_dir_open(dir, 0, NULL);
    g_assert_nonnull(listing);
    const char *entry;
    int seen = 0;
    while ((entry = g_dir_read_name(listing)) != NULL) {
        if (!g_str_has_suffix(entry, ".json") || !g_str_has_prefix(entry, prefix))
            continue;
        char *path = g_build_filename(dir, entry, NULL), *text;
        gsize length;
        g_assert_true(g_file_get_contents(path, &text, &length, NULL));
        check_halves(path, text, length, want);
        seen++;
        g_free(text);
        g_free(path);
    }
    g_assert_cmpint(seen, >, 5);
    g_dir_close(listing);
    g_free(dir);
}

/* The test plans are plain, as MSCCL++ writes them: the fast path takes every one the
 * reader reads (some bad-*.json fail only the check, some the reader). */
static void test_plans(void)
{
    check_dir("mscclpp", "", TAKE_IF_READ);
}

/* Every bad input fails (in the reader, or in the check of channels that do not balance):
 * the fast path declines them, and the message is the careful reader's. */
static void test_bad_inputs(void)
{
    check_dir("bad", "mscclpp-", DECLINE);
}

/* A plan of one GPU with two operations (a copy and a nop), written as a template whose %s
 * the cases fill. */
static char *plan(const char *head, const char *op)
{
    return g_strdup_printf(
        "{\"name\": \"t\", \"collective\": \"allgather\", \"protocol\": \"Simple\", "
        "\"inplace\": false, %s\"gpus\": [{\"id\": 0, \"input_chunks\": 1, "
        "\"output_chunks\": 1, \"scratch_chunks\": 0, \"threadblocks\": [{\"id\": 0, "
        "\"ops\": [{\"name\": \"copy\", \"src_buff\": [{\"type\": \"i\", \"index\": 0, "
        "\"size\": 1}], \"dst_buff\": [{\"type\": \"o\", \"index\": 0, \"size\": 1}]}, %s]}]}]}",
        head, op);
}

/* Texts the fast path takes: json.dumps with and without indent, and with neither space. */
static void test_takes(void)
{
    const char *heads[] = {"", "\"buffer_alignment\": 16, ",
                           "\"max_message_size\": 18446744073709551615, ",
                           "\"x\": [1, true, false, null, {\"y\": \"z\"}], "};
    for (size_t i = 0; i < G_N_ELEMENTS(heads); i++) {
        char *text = plan(heads[i], "{\"name\": \"nop\"}");
        check_halves("t.json", text, strlen(text), TAKE);
        g_free(text);
    }
    const char *compact =
        "{\"name\":\"t\",\"collective\":\"allgather\",\"protocol\":\"Simple\",\"inplace\":false,"
        "\"gpus\":[{\"id\":0,\"input_chunks\":1,\"output_chunks\":1,\"scratch_chunks\":0,"
        "\"threadblocks\":[{\"id\":0,\"ops\":[{\"name\":\"nop\"}]}]}]}";
    check_halves("t.json", compact, strlen(compact), TAKE);
    const char *indented = "{\n  \"name\": \"t\",\n  \"collective\": \"allgather\",\n"
                           "  \"protocol\": \"Simple\",\n  \"inplace\": false,\n  \"gpus\": [\n"
                           "    {\n      \"id\": 0,\n      \"input_chunks\": 1,\n"
                           "      \"output_chunks\": 1,\n      \"scratch_chunks\": 0,\n"
                           "      \"threadblocks\": [\n        {\n          \"id\": 0,\n"
                           "          \"ops\": [\n            {\n              \"name\": \"nop\"\n"
                           "            }\n          ]\n        }\n      ],\n"
                           "      \"semaphores\": []\n    }\n  ]\n}\n";
    check_halves("t.json", indented, strlen(indented), TAKE);
    /* Positions by hand: the GPU's brace is line 7 column 5, the thread block's line 13
     * column 9, the nop's line 16 column 13. */
    FennelMscclppPlan *p = fennel__mscclpp_fast_read("t.json", indented, strlen(indented));
    g_assert_nonnull(p);
    g_assert_cmpuint(p->line, ==, 1);
    g_assert_cmpuint(p->col, ==, 1);
    g_assert_cmpuint(p->gpus[0].line, ==, 7);
    g_assert_cmpuint(p->gpus[0].col, ==, 5);
    g_assert_cmpuint(p->tbs[0].line, ==, 13);
    g_assert_cmpuint(p->tbs[0].col, ==, 9);
    g_assert_cmpuint(p->ops[0].line, ==, 16);
    g_assert_cmpuint(p->ops[0].col, ==, 13);
    fennel_mscclpp_free(p);
}

/* Texts the fast path declines, whether json-glib reads them (with the same meaning as the
 * plain form, or another) or not. */
static void test_declines(void)
{
    static const struct {
        const char *head, *op;
    } cases[] = {
        {"", "{\"name\": \"n\\u006fp\"}"},                   /* an escape */
        {"", "{\"name\": \"nop\", \"x\": \"\\\"\"}"},        /* an escaped quote */
        {"\"x\": \"caf\xc3\xa9\", ", "{\"name\": \"nop\"}"}, /* UTF-8 beyond ASCII */
        {"\"x\": \"a\tb\", ", "{\"name\": \"nop\"}"},        /* a tab in a string */
        {"\"x\": 1.5, ", "{\"name\": \"nop\"}"},             /* a fraction */
        {"\"x\": 1e3, ", "{\"name\": \"nop\"}"},             /* an exponent */
        {"\"x\": -1, ", "{\"name\": \"nop\"}"},              /* a sign */
        {"\"x\": -0, ", "{\"name\": \"nop\"}"},
        {"\"x\": 007, ", "{\"name\": \"nop\"}"}, /* leading zeros, read as 7 */
        {"\"x\": 18446744073709551615.0, ", "{\"name\": \"nop\"}"},
        {"\"barrier_id\": 18446744073709551615, ", "{\"name\": \"nop\"}"}, /* a known key */
        {"\"inplace\": true, ", "{\"name\": \"nop\"}"},  /* a repeated key: the last counts */
        {"\"x\": 1, \"x\": 2, ", "{\"name\": \"nop\"}"}, /* a repeated unknown key */
        {"\"\": 1, ", "{\"name\": \"nop\"}"},            /* an empty key */
        {"\"x\": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]], ",
         "{\"name\": \"nop\"}"},                  /* nesting 34 deep */
        {"\"x\":\t1, ", "{\"name\": \"nop\"}"},   /* a tab */
        {"\"x\":\r\n1, ", "{\"name\": \"nop\"}"}, /* CR LF */
        {"\"x\": tru, ", "{\"name\": \"nop\"}"},  /* not JSON */
        {"\"x\": 1,, ", "{\"name\": \"nop\"}"},
        {"\"x\": [1,], ", "{\"name\": \"nop\"}"},
        {"\"x\": 'a', ", "{\"name\": \"nop\"}"},
        {"", "{\"name\": \"pipeline\"}"}, /* a plan the reader refuses */
        {"", "{\"name\": \"nop\", \"name\": \"nop\"}"},
        {"", "{\"name\": \"nope\"}"},
        {"", "{\"name\": 5}"},
        {"", "{\"name\": \"copy\"}"},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        char *text = plan(cases[i].head, cases[i].op);
        check_halves("t.json", text, strlen(text), DECLINE);
        g_free(text);
    }
    const char *texts[] = {
        "",
        "   ",
        "[]",
        "\"plan\"",
        "{",
        "{\"gpus\": []",
        "{} {}",
        "{}x",
        "\xef\xbb\xbf{}",     /* a byte order mark */
        "{\"a\": 1}\n\x00{}", /* a NUL inside the text (the length counts it) */
        "{\"a\": \"\xff\"}",
        "{\"a\": [1 2]}",
        "{\"a\" 1}",
        "{\"a\": 1 \"b\": 2}",
        "{\"a\": {\"b\": }}",
        "{\"a\": nul}",
        "{\"a\": 0x10}",
    };
    for (size_t i = 0; i < G_N_ELEMENTS(texts); i++) {
        gsize length = strlen(texts[i]);
        if (i == 9)
            length = 12;
        check_halves("t.json", texts[i], length, DECLINE);
    }
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/mscclpp/plans", test_plans);
    g_test_add_func("/mscclpp/bad-inputs", test_bad_inputs);
    g_test_add_func("/mscclpp/takes", test_takes);
    g_test_add_func("/mscclpp/declines", test_declines);
    return g_test_run();
}
