/* The command line: one function per subcommand (cmd_*.c), and the pieces they share. */
#ifndef FENNEL_CLI_H
#define FENNEL_CLI_H

#include "model.h"

#include <glib.h>

int fennel_cmd_run(int argc, char **argv);
int fennel_cmd_validate(int argc, char **argv);
int fennel_cmd_list(int argc, char **argv);

/* Prints "fennel: MESSAGE" to stderr, frees the error, returns the exit status. */
int fennel_cli_fail(GError *error);

/* Parses a subcommand's options; on failure prints the error and returns FALSE with
 * *status = 2. `usage` is the parameter string ("PROGRAM..."). */
gboolean fennel_cli_parse(const char *command, const char *usage, const char *summary,
                          GOptionEntry *entries, int *argc, char ***argv, int *status);

/* The model options shared by run and sweep. */
typedef struct {
    char *model_file;
    char *network;
    char **set; /* KEY=VALUE */
} FennelModelOptions;

#define FENNEL_MODEL_OPTION_ENTRIES(o)                                                             \
    {"model", 'm', 0, G_OPTION_ARG_FILENAME, &(o).model_file, "Model file (YAML)", "FILE"},        \
        {"network",                                                                                \
         0,                                                                                        \
         0,                                                                                        \
         G_OPTION_ARG_STRING,                                                                      \
         &(o).network,                                                                             \
         "Network model, instead of or over the file's",                                           \
         "KIND"},                                                                                  \
    {                                                                                              \
        "set", 's', 0, G_OPTION_ARG_STRING_ARRAY, &(o).set,                                        \
            "Set a model value (repeatable), e.g. alpha_p=400ns", "KEY=VALUE"                      \
    }

/* Builds the model: the file, then --network, then each --set in order. */
gboolean fennel_cli_build_model(const FennelModelOptions *o, FennelModel *m, GError **error);
void fennel_model_options_clear(FennelModelOptions *o);

/* Appends s as a JSON string literal. */
void fennel_json_string(GString *out, const char *s);

#endif
