/* The Graphviz writer (`fennel run --dot`, `fennel generate --format dot`): one cluster
 * per rank, one node per task labelled with its type's letter as in the thesis'
 * Fig. 5.25 (S start, P put, C compute; G get, Z sleep; proxies as small points), its
 * name as the tooltip, and an edge per dependency, coloured when it crosses ranks (a
 * message) and dashed into a task with `any: K`. The output is linear in the program:
 * node ids are task numbers, so no name is looked up. */
#include "program_io.h"

/* A DOT string literal. Task names are restricted to letters, digits and "_.:-", but a
 * program's name comes from a file name. */
static void dot_string(GString *out, const char *s)
{
    g_string_append_c(out, '"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            g_string_append_c(out, '\\');
        if (*s == '\n')
            g_string_append(out, "\\n");
        else
            g_string_append_c(out, *s);
    }
    g_string_append_c(out, '"');
}

static const char *fill(FennelTaskType type)
{
    switch (type) {
    case FENNEL_TASK_START:
        return "black\", fontcolor=\"white";
    case FENNEL_TASK_PUT:
        return "#0072b2\", fontcolor=\"white";
    case FENNEL_TASK_GET:
        return "#cc79a7";
    case FENNEL_TASK_COMPUTE:
        return "#e69f00";
    default:
        return "#dddddd";
    }
}

void fennel_program_write_dot(const FennelProgram *p, GString *out)
{
    g_string_append(out, "digraph ");
    dot_string(out, p->name ? p->name : "program");
    g_string_append(out, " {\n"
                         "  rankdir=LR;\n"
                         "  node [shape=circle, style=filled, fixedsize=true, width=0.35, "
                         "fontname=\"Helvetica\", fontsize=10];\n"
                         "  edge [color=\"#8c8c8c\", arrowsize=0.6];\n");
    /* A rank's tasks are spread over the program, and scanning it once per rank would be
     * quadratic: bucket the task numbers by rank first (a counting sort). */
    uint32_t *count = g_new0(uint32_t, (size_t)p->n_ranks + 1);
    for (uint32_t t = 0; t < p->n_tasks; t++)
        count[p->rank[t] + 1]++;
    for (uint32_t r = 0; r < p->n_ranks; r++)
        count[r + 1] += count[r];
    uint32_t *by_rank = g_new(uint32_t, p->n_tasks ? p->n_tasks : 1);
    uint32_t *fill_at = g_memdup2(count, sizeof(uint32_t) * ((size_t)p->n_ranks + 1));
    for (uint32_t t = 0; t < p->n_tasks; t++)
        by_rank[fill_at[p->rank[t]]++] = t;
    char name[24];
    for (uint32_t r = 0; r < p->n_ranks; r++) {
        g_string_append_printf(out,
                               "  subgraph cluster_rank%u {\n    label=\"rank %u\"; "
                               "color=\"#bbbbbb\";\n",
                               r, r);
        for (uint32_t i = count[r]; i < count[r + 1]; i++) {
            uint32_t t = by_rank[i];
            g_string_append_printf(out, "    t%u [", t);
            if (p->type[t] == FENNEL_TASK_PROXY)
                g_string_append(out, "shape=point, width=0.08, fillcolor=\"#666666\"");
            else
                g_string_append_printf(out, "label=\"%s\", fillcolor=\"%s\"",
                                       fennel_task_type_letter(p->type[t]), fill(p->type[t]));
            g_string_append(out, ", tooltip=");
            dot_string(out, fennel_program_task_name(p, t, name));
            g_string_append(out, "];\n");
        }
        g_string_append(out, "  }\n");
    }
    for (uint32_t t = 0; t < p->n_tasks; t++) {
        for (uint64_t e = p->succ_start[t]; e < p->succ_start[t + 1]; e++) {
            uint32_t s = p->succ[e];
            g_string_append_printf(out, "  t%u -> t%u", t, s);
            if (fennel_program_any(p, s))
                g_string_append(out, " [color=\"#009e73\", style=dashed]");
            else if (p->rank[s] != p->rank[t])
                g_string_append(out, " [color=\"#0072b2\"]");
            g_string_append(out, ";\n");
        }
    }
    g_string_append(out, "}\n");
    g_free(count);
    g_free(by_rank);
    g_free(fill_at);
}
