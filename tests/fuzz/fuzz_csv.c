/* libFuzzer harness: the CSV task-list writer (programs/csv/csv_format.c) on the programs
 * the YAML reader makes of the input. Every program it writes has a header and one line per
 * task, each of nine columns (no field holds a comma), the first the task's number, and
 * every task number in `after` and `after_start` below the number of tasks.
 * Formats: csv.
 */
#include "formats.h"
#include "fuzz_common.h"
#include "program_io.h"

#include <stdlib.h>
#include <string.h>

static void check_csv(const FennelProgram *p, const char *text)
{
    uint32_t line = 0;
    for (const char *at = text; *at; line++) {
        const char *end = strchr(at, '\n');
        if (end == NULL)
            fuzz_fail("csv: line %u has no newline", line);
        unsigned commas = 0;
        for (const char *c = at; c < end; c++)
            commas += *c == ',';
        if (commas != 8)
            fuzz_fail("csv: line %u has %u columns", line, commas + 1);
        if (line > 0) {
            if (strtoul(at, NULL, 10) != line - 1)
                fuzz_fail("csv: line %u is not task %u", line, line - 1);
            /* after and after_start: the columns after the seventh comma. */
            const char *c = at;
            for (unsigned seen = 0; seen < 7; c++)
                seen += *c == ',';
            for (; c < end; c++) {
                if (g_ascii_isdigit(*c) && (c[-1] == ',' || c[-1] == ' ') &&
                    strtoul(c, NULL, 10) >= p->n_tasks)
                    fuzz_fail("csv: line %u names a task beyond %u", line, p->n_tasks);
            }
        }
        at = end + 1;
    }
    if (line != p->n_tasks + 1)
        fuzz_fail("csv: %u lines for %u tasks", line, p->n_tasks);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_setup();
    FennelProgram *p = fennel_program_parse_yaml_with("fuzz.yaml", (const char *)data, size,
                                                      FENNEL_YAML_AUTO, &fuzz_limits, NULL);
    if (p == NULL)
        return 0;
    if (p->n_tasks <= FUZZ_MAX_TASKS) {
        const FennelFormatClass *csv = fennel_format_find("csv");
        GString *out = g_string_new(NULL);
        FennelSink sink = fennel_sink_on_string(out);
        if (csv == NULL || !csv->write(p, NULL, &sink, NULL))
            fuzz_fail("csv: the writer is not in the table or failed");
        check_csv(p, out->str);
        g_string_free(out, TRUE);
    }
    fennel_program_free(p);
    return 0;
}
