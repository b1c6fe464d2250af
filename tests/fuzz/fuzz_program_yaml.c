/* libFuzzer harness: the YAML program reader (fennel_program_parse_yaml). Besides the
 * checks every reader gets, it compares the reader's two event sources: whenever the
 * fast scanner takes an input, libyaml must give the same events and read the same
 * program from it. It also reads the MSCCL algorithm a YAML program may carry
 * (fennel_msccl_from_yaml) and checks it.
 * Formats: yaml, dot (the writers, through fuzz_exercise_program).
 */
#include "fuzz_program.h"
#include "msccl.h"
#include "program_io.h"
#include "../program_describe.h"

#include <string.h>

static void compare_sources(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    char *fast_events = yaml_events(text, size, TRUE);
    if (fast_events) {
        char *lib_events = yaml_events(text, size, FALSE);
        if (lib_events == NULL || strcmp(fast_events, lib_events) != 0)
            fuzz_fail("the fast scanner and libyaml give different events:\n%s\n---\n%s",
                      fast_events, lib_events ? lib_events : "(libyaml fails)");
        g_free(lib_events);
    }
    g_free(fast_events);
    FennelProgram *fast = fennel_program_parse_yaml_with("fuzz.yaml", text, size,
                                                         FENNEL_YAML_FAST_ONLY, &fuzz_limits, NULL);
    if (fast == NULL)
        return;
    GError *error = NULL;
    FennelProgram *lib = fennel_program_parse_yaml_with(
        "fuzz.yaml", text, size, FENNEL_YAML_LIBYAML_ONLY, &fuzz_limits, &error);
    if (lib == NULL)
        fuzz_fail("the fast scanner takes what libyaml refuses: %s", error->message);
    if (fast->n_tasks <= FUZZ_MAX_TASKS) {
        char *a = program_describe(fast), *b = program_describe(lib);
        if (strcmp(a, b) != 0)
            fuzz_fail("the fast scanner and libyaml read different programs:\n%s\n---\n%s", a, b);
        g_free(a);
        g_free(b);
    }
    fennel_program_free(fast);
    fennel_program_free(lib);
}

static FennelProgram *parse_auto(const char *name, const char *data, gsize length,
                                 const FennelLimits *limits, GError **error)
{
    return fennel_program_parse_yaml_with(name, data, length, FENNEL_YAML_AUTO, limits, error);
}

/* The algorithm is rebuilt or refused with one line at a place in the file; a rebuilt one
 * goes through the check, whose refusals are such lines too. */
static void read_msccl(const uint8_t *data, size_t size)
{
    GError *error = NULL;
    gboolean found;
    FennelMscclAlgo *a = fennel_msccl_from_yaml("fuzz.yaml", (const char *)data, size, &fuzz_limits,
                                                &found, NULL, &error);
    if (a == NULL) {
        if (error) {
            fuzz_check_message(error, "fuzz.yaml");
            g_error_free(error);
        }
        return;
    }
    if (!found)
        fuzz_fail("an algorithm from a file without an msccl section");
    if (!fennel_msccl_verify(a, NULL, &error)) {
        fuzz_check_message(error, "fuzz.yaml");
        g_error_free(error);
    }
    fennel_msccl_free(a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_program_input(parse_auto, "fuzz.yaml", data, size);
    compare_sources(data, size);
    read_msccl(data, size);
    return 0;
}
