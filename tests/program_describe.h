/* Programs and YAML texts as text, for comparisons in tests and fuzz harnesses. */
#ifndef FENNEL_TESTS_PROGRAM_DESCRIBE_H
#define FENNEL_TESTS_PROGRAM_DESCRIBE_H

#include "program_io.h"
#include "yaml_reader.h"

/* The YAML writer's output (tasks, fields, edges, names) followed by the ranks, slots and
 * every task's source position. Equal texts mean equal programs for a reader's purposes. */
static inline char *program_describe(const FennelProgram *p)
{
    GString *s = g_string_new(NULL);
    fennel_program_write_yaml(p, s);
    g_string_append_printf(s, "# ranks %u processes %u\n", p->n_ranks, p->processes);
    for (uint32_t t = 0; p->line && t < p->n_tasks; t++)
        g_string_append_printf(s, "# %u at %u:%u\n", t, p->line[t], p->col[t]);
    return g_string_free(s, FALSE);
}

/* The events of a YAML text from the root node on, one line each: type, the position of
 * scalars and collection starts, and a scalar's text (its length first, so that
 * embedded NULs count). NULL when the source fails (the fast scanner declines). */
static inline char *yaml_events(const char *text, gsize length, gboolean fast)
{
    FennelYaml y;
    GString *s = g_string_new(NULL);
    gboolean ok = fennel_yaml_open_text(&y, "t.yaml", text, length, fast, NULL);
    while (ok) {
        yaml_event_type_t type = fennel_yaml_type(&y);
        g_string_append_printf(s, "%d", (int)type);
        if (type == YAML_SCALAR_EVENT || type == YAML_MAPPING_START_EVENT ||
            type == YAML_SEQUENCE_START_EVENT)
            g_string_append_printf(s, " %u:%u", fennel_yaml_line(&y), fennel_yaml_col(&y));
        if (type == YAML_SCALAR_EVENT) {
            g_string_append_printf(s, " %zu ", fennel_yaml_scalar_length(&y));
            g_string_append_len(s, fennel_yaml_scalar(&y), (gssize)fennel_yaml_scalar_length(&y));
        }
        g_string_append_c(s, '\n');
        if (type == YAML_STREAM_END_EVENT)
            break;
        ok = fennel_yaml_next(&y, NULL);
    }
    fennel_yaml_close(&y);
    return ok ? g_string_free(s, FALSE) : (g_string_free(s, TRUE), NULL);
}

#endif
