/* fennel generate: build a program with a generator and write it in a program format
 * (YAML by default, to stdout or atomically to -o FILE). */
#include "cli.h"
#include "formats.h"
#include "input.h"
#include "output.h"
#include "program_io.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* The output formats are the table's (formats.h) that `generate` writes; `model` is NULL
 * unless the command line gave one (a writer that needs it says so in its error). */
static const FennelFormatClass *find_format(const char *name)
{
    const FennelFormatClass *f = fennel_format_find(name);
    return f && fennel_format_generates(f) ? f : NULL;
}

static char *format_names(void)
{
    GString *s = g_string_new(NULL);
    for (const FennelFormatClass *const *f = fennel_formats; *f; f++) {
        if (fennel_format_generates(*f))
            g_string_append_printf(s, "%s%s", s->len ? ", " : "", (*f)->name);
    }
    return g_string_free(s, FALSE);
}

/* A format of a file per rank: PREFIX.RANK.EXT for every rank, all written or none. */
static int write_ranks(const FennelFormatClass *format, const FennelProgram *p,
                       const FennelModel *model, const char *prefix)
{
    GError *error = NULL;
    const char *ext = format->extension;
    if (prefix == NULL) {
        fennel_cli_error("generate: --format %s writes a file per rank: give -o PREFIX "
                         "(PREFIX.0%s, PREFIX.1%s, ...)\n",
                         format->name, ext, ext);
        return 2;
    }
    /* The files are PREFIX.N.EXT beside the prefix: a device there (/dev/full) would have
     * regular files made beside it in /dev. */
    struct stat st;
    if (stat(prefix, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
        fennel_cli_error("generate: -o %s is a device or pipe: --format %s writes "
                         "PREFIX.0%s, PREFIX.1%s, ... beside the prefix; give a file name",
                         prefix, format->name, ext, ext);
        return 2;
    }
    GString **files = format->write_ranks(p, model, &error);
    if (files == NULL)
        return fennel_cli_fail(error);
    FennelOutputs *out = fennel_outputs_new();
    gboolean ok = TRUE;
    for (uint32_t r = 0; r < p->n_ranks; r++) {
        char *name = g_strdup_printf("%s.%u%s", prefix, r, ext);
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

/* A --from file whose format has a meaning the output format can carry (MSCCL into YAML,
 * docs/FORMATS.md) writes it, unless it is sliced. Standard input cannot be read twice and
 * gives the plain output. */
static gboolean write_carried(const GenerateOptions *o, const FennelFormatClass *format,
                              const FennelProgram *p, FennelSink *out)
{
    if (o->from == NULL || o->slice || strcmp(o->from, "-") == 0)
        return FALSE;
    return fennel_format_carry(o->from, format, p, out);
}

static int generate(const GenerateOptions *o, const char *command)
{
    const char *fmt_name = o->format ? o->format : "yaml";
    const FennelFormatClass *format = find_format(fmt_name);
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
        if (fennel_cli_read_setup("generate", &o->gen, o->algorithms, o->slice, &read, &error)) {
            read.read.model = have_model ? &model : NULL;
            p = fennel_program_read_with(o->from, &read.read, NULL, &error);
        }
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
    if (format->write_ranks) {
        int status = write_ranks(format, p, have_model ? &model : NULL, o->output);
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
    char **caveats = NULL;
    if (written) {
        g_string_append_printf(out->text, "%s%s\n", format->comment, command);
        written = write_carried(o, format, p, out) ||
                  format->write(p, have_model ? &model : NULL, out, &error);
        if (written)
            caveats = g_steal_pointer(&out->notes);
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
        g_strfreev(to_stdout.notes);
    }
    /* Said once the file is there, so that a failed write says only its error. */
    for (char **c = caveats; written && c && *c; c++)
        fennel_cli_error("generate: warning: %s", *c);
    g_strfreev(caveats);
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
