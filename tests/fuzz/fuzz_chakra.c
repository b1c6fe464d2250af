/* libFuzzer harness: the Chakra trace reader (programs/chakra/chakra.h) on one rank's file, its
 * lowering with fennel's default collective algorithms, and the writer on the result; and
 * the same file read from disk by fennel_chakra_load, which lowers a plain trace as it
 * reads it, against reading it whole and lowering it: the same program, or the same error.
 * Formats: chakra.
 */
#include "chakra.h"
#include "collective_algorithms.h"
#include "fuzz_program.h"

#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>

#define SAME_COLUMN(a, b, name, n)                                                                 \
    (((a)->name == NULL) == ((b)->name == NULL) &&                                                 \
     ((a)->name == NULL || memcmp((a)->name, (b)->name, (size_t)(n) * sizeof *(a)->name) == 0))

/* Whether two programs are the same: sizes, every column, successors and names. */
static gboolean same_program(const FennelProgram *a, const FennelProgram *b)
{
    uint32_t n = a->n_tasks;
    if (n != b->n_tasks || a->n_ranks != b->n_ranks || a->processes != b->processes ||
        a->n_edges != b->n_edges || a->n_blocks != b->n_blocks || a->root != b->root ||
        g_strcmp0(a->collective, b->collective) != 0)
        return FALSE;
    if (!SAME_COLUMN(a, b, type, n) || !SAME_COLUMN(a, b, flags, n) ||
        !SAME_COLUMN(a, b, rank, n) || !SAME_COLUMN(a, b, peer, n) ||
        !SAME_COLUMN(a, b, amount, n) || !SAME_COLUMN(a, b, request, n) ||
        !SAME_COLUMN(a, b, tag, n) || !SAME_COLUMN(a, b, pin, n) || !SAME_COLUMN(a, b, any, n) ||
        !SAME_COLUMN(a, b, block_first, n) || !SAME_COLUMN(a, b, block_count, n) ||
        !SAME_COLUMN(a, b, succ_start, n + 1) || !SAME_COLUMN(a, b, start_succ_start, n + 1))
        return FALSE;
    if (memcmp(a->succ, b->succ, a->succ_start[n] * sizeof *a->succ) != 0 ||
        (a->start_succ &&
         memcmp(a->start_succ, b->start_succ, a->start_succ_start[n] * sizeof *a->start_succ) != 0))
        return FALSE;
    for (uint32_t t = 0; t < n; t++) {
        char x[24], y[24];
        if (strcmp(fennel_program_task_name(a, t, x), fennel_program_task_name(b, t, y)) != 0)
            return FALSE;
    }
    return TRUE;
}

static char *load_dir, *load_file;

static void remove_load_file(void)
{
    g_remove(load_file);
    g_rmdir(load_dir);
}

/* fennel_chakra_load on the input as a file against fennel_chakra_read and then
 * fennel_chakra_lower: aborts on a difference. */
static void check_load(const char *data, gsize length, const FennelLimits *limits,
                       FennelCollectiveAlgorithms *a)
{
    if (load_file == NULL) {
        load_dir = g_dir_make_tmp("fuzz-chakra-XXXXXX", NULL);
        if (load_dir == NULL)
            return;
        load_file = g_build_filename(load_dir, "fuzz.0.et", NULL);
        atexit(remove_load_file);
    }
    if (!g_file_set_contents(load_file, data, (gssize)length, NULL))
        return;
    GError *whole_error = NULL, *load_error = NULL;
    FennelChakraTrace *t = fennel_chakra_read(load_file, limits, &whole_error);
    FennelProgram *whole = t ? fennel_chakra_lower(t, fennel_collective_algorithms_expand, a, 0,
                                                   NULL, limits, &whole_error)
                             : NULL;
    fennel_chakra_free(t);
    FennelProgram *loaded = fennel_chakra_load(load_file, fennel_collective_algorithms_expand, a, 0,
                                               NULL, limits, &load_error);
    if ((whole == NULL) != (loaded == NULL))
        abort();
    if (whole == NULL && (whole_error->code != load_error->code ||
                          strcmp(whole_error->message, load_error->message) != 0))
        abort();
    if (whole && !same_program(whole, loaded))
        abort();
    g_clear_error(&whole_error);
    g_clear_error(&load_error);
    fennel_program_free(whole);
    fennel_program_free(loaded);
}

static FennelProgram *read_chakra(const char *name, const char *data, gsize length,
                                  const FennelLimits *limits, GError **error)
{
    (void)fennel_chakra_detect(data, length);
    FennelCollectiveAlgorithms algorithms;
    char *algorithms_text;
    (void)fennel_collective_algorithms_parse(NULL, &algorithms, &algorithms_text, NULL);
    check_load(data, length, limits, &algorithms);
    FennelChakraTrace *t = fennel_chakra_parse(name, data, length, error);
    if (t == NULL)
        return NULL;
    FennelCollectiveAlgorithms a;
    char *storage;
    (void)fennel_collective_algorithms_parse(NULL, &a, &storage, NULL);
    FennelProgram *p =
        fennel_chakra_lower(t, fennel_collective_algorithms_expand, &a, 0, NULL, limits, error);
    fennel_chakra_free(t);
    if (p) {
        /* Whatever was read writes back, or says why not. */
        GError *why = NULL;
        GString **files = fennel_chakra_write(p, NULL, &why);
        if (files) {
            for (uint32_t r = 0; r < p->n_ranks; r++)
                g_string_free(files[r], TRUE);
            g_free(files);
        } else {
            fuzz_check_message(why, "Chakra cannot express");
            g_error_free(why);
        }
    }
    return p;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_program_input(read_chakra, "fuzz.0.et", data, size);
    return 0;
}
