/* fennel generate: build a program with a generator and write it in a program format
 * (YAML by default, to stdout or atomically to -o FILE). */
#include "chakra.h"
#include "cli.h"
#include "input.h"
#include "msccl.h"
#include "output.h"
#include "program_io.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* The output formats. A new one is a row here; `model` is NULL unless the command
 * line gave one (a writer that needs it says so in its error). Writers write into a sink,
 * which goes out to the file as it fills (output.h). */
typedef struct {
    const char *name;
    gboolean (*write)(const FennelProgram *p, const FennelModel *model, FennelSink *out,
                      GError **error);
    const char *comment; /* starts a comment line in the format */
} Format;

static gboolean write_yaml(const FennelProgram *p, const FennelModel *model, FennelSink *out,
                           GError **error)
{
    (void)model, (void)error;
    fennel_program_stream_yaml(p, out);
    return TRUE;
}

static gboolean write_dot(const FennelProgram *p, const FennelModel *model, FennelSink *out,
                          GError **error)
{
    (void)model, (void)error;
    fennel_program_write_dot(p, out->text);
    return TRUE;
}

static gboolean write_goal(const FennelProgram *p, const FennelModel *model, FennelSink *out,
                           GError **error)
{
    return fennel_program_stream_goal(p, model, out, error);
}

static gboolean write_fennel_goal(const FennelProgram *p, const FennelModel *model, FennelSink *out,
                                  GError **error)
{
    (void)model;
    return fennel_program_stream_fennel_goal(p, out, error);
}

static const Format formats[] = {
    {"yaml", write_yaml, "# "},  /* fennel's program format; run and validate read it */
    {"dot", write_dot, "// "},   /* Graphviz */
    {"goal", write_goal, "// "}, /* LogGOPSim's GOAL (send/recv/calc) */
    {"fennel-goal", write_fennel_goal, "# "}, /* the original Fennel's GOAL dialect */
    {"chakra", NULL, NULL},                   /* Chakra traces, one file per rank (write_chakra) */
};

/* Chakra: PREFIX.RANK.et for every rank, all written or none. */
static int write_chakra(const FennelProgram *p, const FennelModel *model, const char *prefix)
{
    GError *error = NULL;
    if (prefix == NULL) {
        fennel_cli_error("generate: --format chakra writes a file per rank: give -o PREFIX "
                         "(PREFIX.0.et, PREFIX.1.et, ...)\n");
        return 2;
    }
    /* The files are PREFIX.N.et beside the prefix: a device there (/dev/full) would have
     * regular files made beside it in /dev. */
    struct stat st;
    if (stat(prefix, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
        fennel_cli_error("generate: -o %s is a device or pipe: --format chakra writes "
                         "PREFIX.0.et, PREFIX.1.et, ... beside the prefix; give a file name",
                         prefix);
        return 2;
    }
    GString **files = fennel_chakra_write(p, model, &error);
    if (files == NULL)
        return fennel_cli_fail(error);
    FennelOutputs *out = fennel_outputs_new();
    gboolean ok = TRUE;
    for (uint32_t r = 0; r < p->n_ranks; r++) {
        char *name = g_strdup_printf("%s.%u.et", prefix, r);
        ok = ok && fennel_outputs_write(out, name, files[r]->str, files[r]->len, &error);
        g_free(name);
        g_string_free(files[r], TRUE);
    }
    g_free(files);
    if (ok)
        ok = fennel_outputs_commit(out, &error);
    else
        fennel_outputs_abort(out);
    return ok ? 0 : fennel_cli_fail(error);
}

static const Format *find_format(const char *name)
{
    for (size_t i = 0; i < G_N_ELEMENTS(formats); i++) {
        if (strcmp(formats[i].name, name) == 0)
            return &formats[i];
    }
    return NULL;
}

static char *format_names(void)
{
    GString *s = g_string_new(NULL);
    for (size_t i = 0; i < G_N_ELEMENTS(formats); i++)
        g_string_append_printf(s, "%s%s", i ? ", " : "", formats[i].name);
    return g_string_free(s, FALSE);
}

typedef struct {
    FennelGenTextOptions gen;
    FennelModelOptions model; /* for the GOAL writer's sized computes and the heuristic */
    char *format;
    char *output;
    char *from; /* a program file to convert instead of a generator */
    char *algorithms;
    char *slice;
    gint64 seed;
    char **args;
} GenerateOptions;

/* The command line, for a comment at the top of the output. */
static char *command_line(int argc, char **argv)
{
    GString *s = g_string_new("fennel");
    for (int i = 0; i < argc; i++) {
        char *quoted = strpbrk(argv[i], " \t\n'\"\\$") ? g_shell_quote(argv[i]) : NULL;
        g_string_append_printf(s, " %s", quoted ? quoted : argv[i]);
        g_free(quoted);
    }
    for (gsize i = 0; i < s->len; i++) {
        if (s->str[i] == '\n')
            s->str[i] = ' ';
    }
    return g_string_free(s, FALSE);
}

/* The MSCCL algorithm of a --from file, or NULL: its YAML then carries the algorithm's
 * meaning (docs/FORMATS.md), unless it is sliced. The file was read once already, so it
 * parses; standard input cannot be read twice and gives plain YAML. */
static FennelMscclAlgo *msccl_source(const GenerateOptions *o)
{
    if (o->from == NULL || o->slice || strcmp(o->from, "-") == 0 ||
        fennel_program_file_is_binary(o->from))
        return NULL;
    gboolean mapped;
    GBytes *text = fennel_map_input(o->from, &mapped, NULL);
    if (text == NULL)
        return NULL;
    gsize length;
    const char *data = g_bytes_get_data(text, &length);
    FennelMscclAlgo *a = NULL;
    if (data && fennel_program_detect(o->from, data, length) == FENNEL_FORMAT_MSCCL)
        a = fennel_msccl_parse(o->from, data, length, NULL);
    g_bytes_unref(text);
    return a;
}

static gboolean write_from_msccl(const GenerateOptions *o, const Format *format,
                                 const FennelProgram *p, FennelSink *out)
{
    if (format->write != write_yaml)
        return FALSE;
    FennelMscclAlgo *a = msccl_source(o);
    gboolean written = a && fennel_msccl_write_yaml(a, p, out->text);
    fennel_msccl_free(a);
    return written;
}

static int generate(const GenerateOptions *o, const char *command)
{
    const char *fmt_name = o->format ? o->format : "yaml";
    const Format *format = find_format(fmt_name);
    if (format == NULL) {
        char *names = format_names();
        fennel_cli_error("generate: --format %s: unknown format (known: %s)\n", fmt_name, names);
        g_free(names);
        return 2;
    }
    GError *error = NULL;
    FennelModel model;
    gboolean have_model = o->model.model_file || o->model.network || o->model.set;
    if (have_model && !fennel_model_options_build(&o->model, &model, &error)) {
        fennel_model_clear(&model);
        return fennel_cli_fail(error);
    }
    FennelProgram *p = NULL;
    FennelCliRead read = {0};
    if (o->from) {
        if (fennel_cli_read_setup("generate", &o->gen, o->algorithms, o->slice, &read, &error))
            p = fennel_program_read_with(o->from, &read.read, NULL, &error);
        fennel_cli_read_clear(&read);
    } else {
        p = fennel_gen_text_generate_for(o->args[0], &o->gen, (uint64_t)o->seed,
                                         have_model ? &model : NULL, NULL, &error);
    }
    if (p == NULL) {
        if (have_model)
            fennel_model_clear(&model);
        return fennel_cli_fail(error);
    }
    if (format->write == NULL) {
        int status = write_chakra(p, have_model ? &model : NULL, o->output);
        fennel_program_free(p);
        if (have_model)
            fennel_model_clear(&model);
        return status;
    }
    /* To a file: written to a temporary beside it as the text comes, and renamed into place
     * once whole. To standard output: held until whole, so that a writer that fails part way
     * (a task the format cannot express) prints nothing but its error (a failed write is
     * reported when standard output is closed, main.c). */
    FennelOutputs *set = NULL;
    FennelSink *out = NULL, to_stdout = fennel_sink_on_string(NULL);
    if (o->output) {
        set = fennel_outputs_new();
        out = fennel_outputs_open(set, o->output, &error);
    } else {
        to_stdout.text = g_string_new(NULL);
        out = &to_stdout;
    }
    gboolean written = out != NULL;
    if (written) {
        g_string_append_printf(out->text, "%s%s\n", format->comment, command);
        written = write_from_msccl(o, format, p, out) ||
                  format->write(p, have_model ? &model : NULL, out, &error);
    }
    fennel_program_free(p);
    if (have_model)
        fennel_model_clear(&model);
    if (set) {
        /* The sink is closed (its file complete) before the set is placed or dropped. */
        if (out && !fennel_outputs_close_sink(set, out, written ? &error : NULL))
            written = FALSE;
        if (written)
            written = fennel_outputs_commit(set, &error);
        else
            fennel_outputs_abort(set);
    } else {
        if (written)
            fwrite(to_stdout.text->str, 1, to_stdout.text->len, stdout);
        g_string_free(to_stdout.text, TRUE);
    }
    return written ? 0 : fennel_cli_fail(error);
}

int fennel_cmd_generate(int argc, char **argv)
{
    GenerateOptions o = {0};
    char *command = command_line(argc, argv);
    GOptionEntry entries[] = {
        FENNEL_GENERATOR_OPTION_ENTRIES(o.gen),
        FENNEL_MODEL_OPTION_ENTRIES(o.model),
        {"seed", 0, 0, G_OPTION_ARG_INT64, &o.seed,
         "Seed of generators with random content (default 0)", "N"},
        {"format", 'f', 0, G_OPTION_ARG_STRING, &o.format, "Output format (default yaml)",
         "FORMAT"},
        {"output", 'o', 0, G_OPTION_ARG_FILENAME, &o.output,
         "Write to FILE (atomically) instead of standard output", "FILE"},
        {"from", 0, 0, G_OPTION_ARG_FILENAME, &o.from,
         "Convert a program file (any format fennel reads; MSCCL with --size) instead of "
         "generating",
         "FILE"},
        FENNEL_COLLECTIVE_ALGORITHM_ENTRY(o.algorithms),
        FENNEL_SLICE_ENTRY(o.slice),
        {G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_STRING_ARRAY, &o.args, NULL, "NAME"},
        {NULL, 0, 0, 0, NULL, NULL, NULL},
    };
    int status = 0;
    if (fennel_cli_parse("generate", "NAME",
                         "Write a generated program ('fennel list' shows the generators and "
                         "their options).",
                         entries, &argc, &argv, &status)) {
        gboolean named = o.args != NULL && o.args[0] != NULL;
        if (!named && o.from == NULL) {
            fennel_cli_error("generate: no generator given (fennel generate NAME "
                             "[options], or --from FILE)\n");
            status = 2;
        } else if (named && o.from) {
            fennel_cli_error("generate: give a generator or --from FILE, not both\n");
            status = 2;
        } else if (named && o.args[1] != NULL) {
            fennel_cli_error("generate: unexpected argument '%s'\n", o.args[1]);
            status = 2;
        } else if (o.seed < 0) {
            fennel_cli_error("generate: --seed must not be negative\n");
            status = 2;
        } else {
            status = generate(&o, command);
        }
    }
    fennel_gen_text_options_clear(&o.gen);
    fennel_model_options_clear(&o.model);
    g_free(o.format);
    g_free(o.output);
    g_free(o.from);
    g_free(o.algorithms);
    g_free(o.slice);
    g_strfreev(o.args);
    g_free(command);
    return status;
}
