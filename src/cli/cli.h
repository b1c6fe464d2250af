/* The command line: one function per subcommand (cmd_*.c), and the pieces they share. */
#ifndef FENNEL_CLI_H
#define FENNEL_CLI_H

#include "generator.h"
#include "model.h"

#include <glib.h>

int fennel_cmd_run(int argc, char **argv);
int fennel_cmd_validate(int argc, char **argv);
int fennel_cmd_list(int argc, char **argv);
int fennel_cmd_generate(int argc, char **argv);
int fennel_cmd_verify(int argc, char **argv);
int fennel_cmd_schedules(int argc, char **argv);
int fennel_cmd_sweep(int argc, char **argv);
int fennel_cmd_plot(int argc, char **argv);

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
/* Applies --set KEY=VALUE pairs to a model and checks its noise afterwards. */
gboolean fennel_cli_apply_sets(FennelModel *m, char **set, GError **error);
gboolean fennel_cli_build_model(const FennelModelOptions *o, FennelModel *m, GError **error);
void fennel_model_options_clear(FennelModelOptions *o);

/* The generator options as typed (strings), shared by run, generate and sweep. */
typedef struct {
    char *ranks, *size, *schedule, *root, *rounds, *width, *radix, *ppn, *partitions, *threshold,
        *variant;
} FennelGenCliOptions;

#define FENNEL_GENERATOR_OPTION_ENTRIES(o)                                                         \
    {"ranks", 'n', 0, G_OPTION_ARG_STRING, &(o).ranks, "Generator: number of ranks", "N"},         \
        {"size", 0, 0, G_OPTION_ARG_STRING, &(o).size, "Generator: message size (8B, 1KiB)",       \
         "BYTES"},                                                                                 \
        {"schedule",                                                                               \
         0,                                                                                        \
         0,                                                                                        \
         G_OPTION_ARG_STRING,                                                                      \
         &(o).schedule,                                                                            \
         "Generator: schedule (a2,a4 | c6m2,a3,e6m2 | heuristic)",                                 \
         "SPEC"},                                                                                  \
        {"root", 0, 0, G_OPTION_ARG_STRING, &(o).root, "Generator: root rank", "R"},               \
        {"rounds", 0, 0, G_OPTION_ARG_STRING, &(o).rounds, "Generator: rounds", "K"},              \
        {"width", 0, 0, G_OPTION_ARG_STRING, &(o).width, "Generator: multicast width", "W"},       \
        {"radix", 0, 0, G_OPTION_ARG_STRING, &(o).radix, "Generator: tree radix", "K"},            \
        {"ppn", 0, 0, G_OPTION_ARG_STRING, &(o).ppn, "Generator: ranks per node", "K"},            \
        {"partitions", 0, 0, G_OPTION_ARG_STRING, &(o).partitions, "Generator: partitions", "K"},  \
        {"threshold", 0, 0, G_OPTION_ARG_STRING, &(o).threshold, "Generator: threshold", "K"},     \
    {                                                                                              \
        "variant", 0, 0, G_OPTION_ARG_STRING, &(o).variant, "Generator: variant", "NAME"           \
    }

/* Parses the typed options into o (a usage error names the option). */
gboolean fennel_cli_generator_options(const FennelGenCliOptions *c, uint64_t seed,
                                      FennelGenOptions *o, GError **error);
gboolean fennel_cli_any_generator_option(const FennelGenCliOptions *c);
/* Finds the generator (a usage error lists the known ones), parses and generates. */
FennelProgram *fennel_cli_generate(const char *name, const FennelGenCliOptions *c, uint64_t seed,
                                   GError **error);
/* Same, for a program that will run under `model`: `--schedule heuristic` then uses the
 * model's alpha_p / alpha_r. */
FennelProgram *fennel_cli_generate_for(const char *name, const FennelGenCliOptions *c,
                                       uint64_t seed, const FennelModel *model, GError **error);
/* The generator and its parsed options, without generating. */
gboolean fennel_cli_generator_resolve(const char *name, const FennelGenCliOptions *c, uint64_t seed,
                                      const FennelModel *model, const FennelGenerator **g,
                                      FennelGenOptions *o, GError **error);
void fennel_gen_cli_options_clear(FennelGenCliOptions *c);

/* Appends s as a JSON string literal. */
void fennel_json_string(GString *out, const char *s);

#endif
