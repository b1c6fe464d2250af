/* The command line: one function per subcommand (cmd_*.c), and the pieces they share. */
#ifndef FENNEL_CLI_H
#define FENNEL_CLI_H

#include "options.h"
#include "collective_algorithms.h"
#include "program_io.h"
#include "sweep.h"

#include <glib.h>

int fennel_cmd_run(int argc, char **argv);
int fennel_cmd_validate(int argc, char **argv);
int fennel_cmd_list(int argc, char **argv);
int fennel_cmd_generate(int argc, char **argv);
int fennel_cmd_convert(int argc, char **argv);
int fennel_cmd_verify(int argc, char **argv);
int fennel_cmd_schedules(int argc, char **argv);
int fennel_cmd_sweep(int argc, char **argv);
int fennel_cmd_plot(int argc, char **argv);
int fennel_cmd_fit(int argc, char **argv);
int fennel_cmd_compare(int argc, char **argv);
int fennel_cmd_tune(int argc, char **argv);

/* Flushes and closes standard output at the end of a command: a write that failed there
 * (a full disk, a closed pipe) turns a successful status into 1 with one line on stderr,
 * "fennel: standard output: cannot write: REASON". Returns the status to exit with. */
int fennel_cli_close_stdout(int status);

/* Prints "fennel: MESSAGE" on stderr as one clean line (fennel_message_clean): every error
 * message goes through here. */
void fennel_cli_error(const char *format, ...) G_GNUC_PRINTF(1, 2);

/* Prints "fennel: MESSAGE" to stderr, frees the error, returns the exit status. */
int fennel_cli_fail(GError *error);

/* Prints "fennel: COMMAND: --library: unknown library 'NAME' (known: ...)" and returns the
 * usage status, 2: the one wording for every command that takes --library. */
int fennel_cli_unknown_library(const char *command, const char *name);

/* Parses a subcommand's options; on failure prints the error and returns FALSE with
 * *status = 2. `usage` is the parameter string ("PROGRAM..."). */
gboolean fennel_cli_parse(const char *command, const char *usage, const char *summary,
                          GOptionEntry *entries, int *argc, char ***argv, int *status);

/* What reading program files takes from the command line: --size from the generator
 * options, for MSCCL files, and --collective-algorithm, for Chakra traces
 * (program_io.h). */
typedef struct {
    FennelReadOptions read;
    FennelCollectiveAlgorithms algorithms;
    char *storage;
} FennelCliRead;

/* Leaves out the program files that name a program an earlier file already names (a
 * shell glob over a trace's rank files, trace.*.et, is that trace once). */
void fennel_cli_distinct_programs(char ***files);

/* FALSE with a usage error naming `command` when a generator option other than --size is
 * given, the size or the MSCCL `slice` (NULL: whole chunks) is not one, or `algorithms`
 * (NULL: the defaults) is wrong. */
gboolean fennel_cli_read_setup(const char *command, const FennelGenTextOptions *gen,
                               const char *algorithms, const char *slice, FennelCliRead *read,
                               GError **error);
void fennel_cli_read_clear(FennelCliRead *read);

#define FENNEL_SLICE_ENTRY(text)                                                                   \
    {                                                                                              \
        "slice", 0, 0, G_OPTION_ARG_STRING, &(text),                                               \
            "MSCCL files: run every thread block's steps once per slice of BYTES of a chunk, as "  \
            "the "                                                                                 \
            "runtime pipelines (default: whole chunks)",                                           \
            "BYTES"                                                                                \
    }

#define FENNEL_COLLECTIVE_ALGORITHM_ENTRY(text)                                                    \
    {                                                                                              \
        "collective-algorithm", 0, 0, G_OPTION_ARG_STRING, &(text),                                \
            "Generators for a Chakra trace's collectives, e.g. all_reduce=allreduce-rd "           \
            "(defaults: "                                                                          \
            "rings and binomial trees)",                                                           \
            "KIND=NAME[,...]"                                                                      \
    }

/* The model options shared by run and sweep (options.h). */
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

/* The generator options shared by run, generate and sweep (options.h). */
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
        {"variant", 0, 0, G_OPTION_ARG_STRING, &(o).variant, "Generator: variant", "NAME"},        \
        {"segment", 0, 0, G_OPTION_ARG_STRING, &(o).segment, "Generator: segment size", "BYTES"},  \
    {                                                                                              \
        "parallel", 0, 0, G_OPTION_ARG_STRING, &(o).parallel,                                      \
            "Generator: a training job's shape (dp=D,tp=T,pp=P,...)", "SPEC"                       \
    }

/* Runs a sweep (cmd_sweep.c, also for `fennel tune`): refuses one without a model, builds
 * and runs it, and returns the exit status (128 + the signal that interrupted it). */
int fennel_cli_run_sweep(const char *command, const FennelSweepSpec *spec,
                         const FennelSweepRunOptions *ro);

/* How a sweep's progress is shown on stderr (cmd_sweep.c): not at all, as a bar redrawn in
 * place (a terminal), or as a line every few seconds (a batch log). */
typedef enum {
    FENNEL_CLI_PROGRESS_NONE,
    FENNEL_CLI_PROGRESS_BAR,
    FENNEL_CLI_PROGRESS_LINES,
} FennelCliProgress;

/* Sets a sweep's progress callback to show it as `mode` says. */
void fennel_cli_sweep_progress(FennelSweepRunOptions *ro, FennelCliProgress mode);

#endif
