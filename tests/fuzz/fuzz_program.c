#include "fuzz_program.h"

#include <string.h>

unsigned fuzz_selector(const uint8_t *data, size_t size)
{
    unsigned h = 2166136261u;
    for (size_t i = 0; i < size; i++)
        h = (h ^ data[i]) * 16777619u;
    return h >> 8;
}

void fuzz_check_message(const GError *error, const char *prefix)
{
    if (error == NULL)
        fuzz_fail("failure without an error");
    const char *msg = error->message;
    if (msg[0] == '\0')
        fuzz_fail("empty error message");
    if (strchr(msg, '\n') != NULL)
        fuzz_fail("error message of several lines: %s", msg);
    if (prefix && strncmp(msg, prefix, strlen(prefix)) != 0)
        fuzz_fail("error message does not start with '%s': %s", prefix, msg);
    if (!g_utf8_validate(msg, -1, NULL))
        fuzz_fail("error message is not UTF-8: %s", msg);
}

void fuzz_program_input(FuzzReader reader, const char *name, const uint8_t *data, size_t size)
{
    fuzz_setup();
    GError *error = NULL;
    /* Readers get their text with a NUL after it, as fennel_read_input() leaves it. */
    char *text = g_malloc(size + 1);
    memcpy(text, data, size);
    text[size] = '\0';
    FennelProgram *p = reader(name, text, size, &fuzz_limits, &error);
    g_free(text);
    if (p == NULL) {
        char *prefix = g_strdup_printf("%s:", name);
        fuzz_check_message(error, prefix);
        g_free(prefix);
        g_error_free(error);
        return;
    }
    if (error != NULL)
        fuzz_fail("a program and an error: %s", error->message);
    fuzz_exercise_program(p, fuzz_selector(data, size));
    fennel_program_free(p);
}
