/* fennel: a discrete-event simulator for collective communication schedules.
 * main() dispatches to one function per subcommand. */
#include "cli.h"

#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

typedef struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} Command;

static const Command commands[] = {
    {"run", fennel_cmd_run, "simulate one or more program files and print a summary"},
    {"validate", fennel_cmd_validate, "check program files and print their statistics"},
    {"list", fennel_cmd_list, "show the generators and models with their options and parameters"},
    {"generate", fennel_cmd_generate, "write a generated program (YAML by default)"},
    {"convert", fennel_cmd_convert,
     "write a program file as fennel's binary program, read many times at memory speed"},
    {"verify", fennel_cmd_verify, "check that a program performs a collective (data flow)"},
    {"schedules", fennel_cmd_schedules,
     "rank the recursive-multiplying schedules of a rank count (heuristic, b_opt, b_upper)"},
    {"sweep", fennel_cmd_sweep,
     "run a grid of simulations in parallel and write one CSV row per point"},
    {"plot", fennel_cmd_plot, "draw a line chart of a sweep's CSV (SVG, PNG or PDF)"},
    {"tune", fennel_cmd_tune,
     "pick the fastest algorithm per rank count and size (table, Open MPI rules, heat map)"},
    {"compare", fennel_cmd_compare,
     "simulate measured collective times and print how far the model is (Eq. 5.14)"},
    {"fit", fennel_cmd_fit,
     "fit a network model to benchmark measurements (OSU, IMB, Netgauge, CSV)"},
};

static void usage(FILE *out)
{
    fprintf(out, "usage: fennel COMMAND [OPTIONS] [ARGS]\n\ncommands:\n");
    for (size_t i = 0; i < G_N_ELEMENTS(commands); i++)
        fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\n'fennel COMMAND --help' describes a command's options.\n");
}

int main(int argc, char **argv)
{
    setlocale(LC_ALL, "");
    /* Numbers are printed and parsed with '.' whatever the user's locale. */
    setlocale(LC_NUMERIC, "C");
    /* A file size limit (ulimit -f) would end fennel by SIGXFSZ in the middle of a write,
     * leaving a temporary file and no message: ignored, the write fails with EFBIG and is
     * reported like a full disk ("cannot write: file too large"). */
    signal(SIGXFSZ, SIG_IGN);
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return fennel_cli_close_stdout(0);
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("fennel %s\n", FENNEL_VERSION);
        return fennel_cli_close_stdout(0);
    }
    for (size_t i = 0; i < G_N_ELEMENTS(commands); i++) {
        if (strcmp(argv[1], commands[i].name) == 0)
            return fennel_cli_close_stdout(commands[i].run(argc - 1, argv + 1));
    }
    GString *names = g_string_new(NULL);
    for (size_t i = 0; i < G_N_ELEMENTS(commands); i++)
        g_string_append_printf(names, " %s", commands[i].name);
    fennel_cli_error("unknown command '%s' (commands:%s)", argv[1], names->str);
    g_string_free(names, TRUE);
    return 2;
}
