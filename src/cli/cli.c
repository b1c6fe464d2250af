#include "cli.h"

#include "errors.h"
#include "formats.h"
#include "library.h"
#include "units.h"

#include <errno.h>
#include <stdio.h>
#include <stdarg.h>
#include <string.h>

int fennel_cli_close_stdout(int status)
{
    errno = 0;
    gboolean failed = fflush(stdout) != 0;
    int err = errno;
    failed = failed || ferror(stdout);
    if (fclose(stdout) != 0 && !failed) {
        failed = TRUE;
        err = errno;
    }
    if (!failed || status != 0)
        return status;
    char *reason = g_ascii_strdown(err ? g_strerror(err) : "write error", 1);
    fprintf(stderr, "fennel: standard output: cannot write: %s%s\n", reason,
            err ? g_strerror(err) + 1 : "rite error");
    g_free(reason);
    return 1;
}

void fennel_cli_error(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    char *text = g_strdup_vprintf(format, args);
    va_end(args);
    gsize n = strlen(text);
    if (n > 0 && text[n - 1] == '\n')
        text[n - 1] = '\0';
    char *clean = fennel_message_clean(text);
    fprintf(stderr, "fennel: %s\n", clean);
    g_free(clean);
    g_free(text);
}

int fennel_cli_fail(GError *error)
{
    int status = fennel_error_exit_status(error);
    fennel_cli_error("%s", error->message);
    g_error_free(error);
    return status;
}

int fennel_cli_unknown_library(const char *command, const char *name)
{
    char *known = g_strjoinv(", ", (char **)fennel_library_names());
    fennel_cli_error("%s: --library: unknown library '%s' (known: %s)\n", command, name, known);
    g_free(known);
    return 2;
}

/* A copy of the NULL-terminated entries whose G_OPTION_REMAINING entry has no argument
 * description, since the usage string already names the positional arguments. */
static GOptionEntry *copy_entries_without_rest(const GOptionEntry *entries)
{
    gsize n = 0;
    while (entries[n].long_name != NULL)
        n++;
    GOptionEntry *own = g_memdup2(entries, (n + 1) * sizeof *entries);
    for (gsize i = 0; i < n; i++) {
        if (strcmp(own[i].long_name, G_OPTION_REMAINING) == 0)
            own[i].arg_description = NULL;
    }
    return own;
}

gboolean fennel_cli_parse(const char *command, const char *usage, const char *summary,
                          GOptionEntry *entries, int *argc, char ***argv, int *status)
{
    /* GLib's usage line is "PRGNAME [OPTION…] REST USAGE", where PRGNAME defaults to the
     * base name of argv[0] (here the command itself) and REST is the description of the
     * remaining arguments. Naming the program "fennel COMMAND" and leaving the arguments to
     * the usage string alone makes it "fennel COMMAND [OPTION…] USAGE". */
    char *prgname = g_strdup_printf("fennel %s", command);
    g_set_prgname(prgname);
    g_free(prgname);
    GOptionEntry *own = copy_entries_without_rest(entries);
    GOptionContext *context = g_option_context_new(usage);
    g_option_context_set_summary(context, summary);
    g_option_context_add_main_entries(context, own, NULL);
    GError *error = NULL;
    gboolean ok = g_option_context_parse(context, argc, argv, &error);
    g_option_context_free(context);
    g_free(own);
    if (!ok) {
        char *lower = g_ascii_strdown(error->message, 1);
        fennel_cli_error("%s: %s%s", command, lower, error->message + 1);
        g_free(lower);
        g_error_free(error);
        *status = 2;
    }
    return ok;
}

gboolean fennel_cli_read_setup(const char *command, const FennelGenTextOptions *gen,
                               const char *algorithms, const char *slice, FennelCliRead *read,
                               GError **error)
{
    FennelGenTextOptions others = *gen;
    others.size = NULL;
    memset(read, 0, sizeof *read);
    if (fennel_gen_text_any(&others)) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE,
                    "%s: generator options need --generate NAME (program files take --size "
                    "alone, for algorithm files)",
                    command);
        return FALSE;
    }
    const char *why = "must be positive";
    if (gen->size &&
        (!fennel_parse_size(gen->size, &read->read.size, &why) || read->read.size <= 0)) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE, "%s: --size %s: %s", command,
                    gen->size, why);
        return FALSE;
    }
    why = "must be positive";
    if (slice && (!fennel_parse_size(slice, &read->read.slice, &why) || read->read.slice <= 0)) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE, "%s: --slice %s: %s", command, slice,
                    why);
        return FALSE;
    }
    if (!fennel_collective_algorithms_parse(algorithms, &read->algorithms, &read->storage, error)) {
        g_prefix_error(error, "%s: ", command);
        return FALSE;
    }
    read->read.expand = fennel_collective_algorithms_expand;
    read->read.expand_data = &read->algorithms;
    return TRUE;
}

void fennel_cli_read_clear(FennelCliRead *read)
{
    g_clear_pointer(&read->storage, g_free);
}

void fennel_cli_distinct_programs(char ***files)
{
    if (*files == NULL)
        return;
    char **distinct = fennel_format_distinct_programs(*files);
    char **copy = g_strdupv(distinct);
    g_free(distinct);
    g_strfreev(*files);
    *files = copy;
}
