/* fennel validate: read program files and print their statistics. */
#include "cli.h"
#include "json.h"
#include "program_io.h"

#include <stdio.h>

/* The switch's operations (load-reduce, multicast) are counted only in programs that have
 * them, which few do. */
static gboolean optional(const FennelProgramStats *s, int t)
{
    return t >= FENNEL_TASK_LOAD_REDUCE && s->by_type[t] == 0;
}

static void print_text(const FennelProgram *p, const FennelProgramStats *s, GString *out)
{
    g_string_append_printf(out, "program        %s\n", p->name);
    g_string_append_printf(out, "ranks          %u\n", p->n_ranks);
    g_string_append_printf(out, "processes      %u\n", p->processes);
    g_string_append_printf(out, "tasks          %u (", p->n_tasks);
    for (int t = 0; t < FENNEL_TASK_N_TYPES; t++) {
        if (optional(s, t))
            continue;
        g_string_append_printf(out, "%s%s %" G_GUINT64_FORMAT, t ? ", " : "",
                               fennel_task_type_name(t), s->by_type[t]);
    }
    g_string_append(out, ")\n");
    g_string_append_printf(out, "edges          %" G_GUINT64_FORMAT "\n", p->n_edges);
    g_string_append_printf(out, "messages       %" G_GUINT64_FORMAT " (%" G_GUINT64_FORMAT " B)\n",
                           s->messages, s->bytes);
    g_string_append_printf(out, "critical path  %" G_GUINT64_FORMAT " tasks\n",
                           s->critical_path_tasks);
}

static void print_json(const FennelProgram *p, const FennelProgramStats *s, GString *out)
{
    g_string_append(out, "{\"fennel\":1,\"program\":");
    fennel_json_string(out, p->name);
    g_string_append_printf(out, ",\"ranks\":%u,\"processes\":%u,\"tasks\":%u,\"tasks_by_type\":{",
                           p->n_ranks, p->processes, p->n_tasks);
    for (int t = 0; t < FENNEL_TASK_N_TYPES; t++) {
        if (optional(s, t))
            continue;
        g_string_append_printf(out, "%s\"%s\":%" G_GUINT64_FORMAT, t ? "," : "",
                               fennel_task_type_name(t), s->by_type[t]);
    }
    g_string_append_printf(out,
                           "},\"edges\":%" G_GUINT64_FORMAT ",\"messages\":%" G_GUINT64_FORMAT
                           ",\"bytes\":%" G_GUINT64_FORMAT
                           ",\"critical_path_tasks\":%" G_GUINT64_FORMAT "}\n",
                           p->n_edges, s->messages, s->bytes, s->critical_path_tasks);
}

int fennel_cmd_validate(int argc, char **argv)
{
    gboolean json = FALSE;
    char **files = NULL;
    char *size = NULL, *algorithms = NULL, *slice = NULL;
    GOptionEntry entries[] = {
        FENNEL_COLLECTIVE_ALGORITHM_ENTRY(algorithms),
        FENNEL_SLICE_ENTRY(slice),
        {"size", 's', 0, G_OPTION_ARG_STRING, &size,
         "Bytes per rank for algorithm files (MSCCL; default one byte per chunk)", "BYTES"},
        {"json", 0, 0, G_OPTION_ARG_NONE, &json, "Print statistics as JSON, one object per line",
         NULL},
        {G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &files, NULL, "PROGRAM..."},
        {NULL, 0, 0, 0, NULL, NULL, NULL},
    };
    int status = 0;
    if (!fennel_cli_parse("validate", "PROGRAM...", "Check program files; print their statistics.",
                          entries, &argc, &argv, &status))
        return status;
    if (files == NULL || files[0] == NULL) {
        fennel_cli_error("validate: no program given (fennel validate PROGRAM...)\n");
        return 2;
    }
    FennelGenTextOptions gen = {.size = size};
    FennelCliRead read;
    GError *error = NULL;
    if (!fennel_cli_read_setup("validate", &gen, algorithms, slice, &read, &error)) {
        g_free(size);
        g_free(algorithms);
        g_free(slice);
        g_strfreev(files);
        return fennel_cli_fail(error);
    }
    read.read.chunk_bytes = TRUE;
    for (char **f = files; *f && status == 0; f++) {
        FennelProgram *p = fennel_program_read_with(*f, &read.read, NULL, &error);
        if (p == NULL) {
            status = fennel_cli_fail(error);
            break;
        }
        FennelProgramStats stats;
        fennel_program_stats(p, &stats);
        GString *out = g_string_new(NULL);
        if (json)
            print_json(p, &stats, out);
        else
            print_text(p, &stats, out);
        if (!json && f != files)
            fputc('\n', stdout);
        fwrite(out->str, 1, out->len, stdout);
        g_string_free(out, TRUE);
        fennel_program_free(p);
    }
    g_strfreev(files);
    g_free(size);
    g_free(algorithms);
    g_free(slice);
    fennel_cli_read_clear(&read);
    return status;
}
