/* A program as text for comparisons in tests and fuzz harnesses: the YAML writer's output
 * (tasks, fields, edges, names) followed by the ranks, slots and every task's source
 * position. Equal texts mean equal programs for a reader's purposes. */
#ifndef FENNEL_TESTS_PROGRAM_DESCRIBE_H
#define FENNEL_TESTS_PROGRAM_DESCRIBE_H

#include "program_io.h"

static inline char *program_describe(const FennelProgram *p)
{
    GString *s = g_string_new(NULL);
    fennel_program_write_yaml(p, s);
    g_string_append_printf(s, "# ranks %u processes %u\n", p->n_ranks, p->processes);
    for (uint32_t t = 0; p->line && t < p->n_tasks; t++)
        g_string_append_printf(s, "# %u at %u:%u\n", t, p->line[t], p->col[t]);
    return g_string_free(s, FALSE);
}

#endif
