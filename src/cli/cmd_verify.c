/* fennel verify: check symbolically that a program performs a collective (docs/SCHEDULES.md; the
 * rules are in schedules/verify.h). The program is a file, or a generated one with
 * --generate NAME and generator options, whose own collective is checked unless
 * --collective says otherwise. */
#include "cli.h"
#include "errors.h"
#include "formats.h"
#include "program_io.h"
#include "verify.h"

#include <stdio.h>
#include <string.h>

typedef struct {
    FennelGenTextOptions gen; /* its --root is also the collective's root */
    char *collective;
    char *generate;
    char *algorithms;
    gint64 seed;
    char **programs;
} VerifyOptions;

static int usage_error(const char *message)
{
    fennel_cli_error("verify: %s\n", message);
    return 2;
}

/* Checks one program; prints a line on success. */
static int check(const FennelProgram *p, const char *label, FennelCollective c, uint32_t root)
{
    GError *error = NULL;
    FennelVerifyReport report;
    if (!fennel_verify(p, c, root, &report, &error)) {
        g_prefix_error(&error, "%s: ", label);
        return fennel_cli_fail(error);
    }
    GString *line = g_string_new(NULL);
    g_string_append_printf(line, "%s: ok: %s over %u ranks", label, fennel_collective_name(c),
                           p->n_ranks);
    if (fennel_collective_has_root(c))
        g_string_append_printf(line, " from root %u", root);
    g_string_append_printf(line, ", %u block%s", report.blocks, report.blocks == 1 ? "" : "s");
    if (report.combines > 0)
        g_string_append_printf(line, ", %" G_GUINT64_FORMAT " distinct partial result%s",
                               report.combines, report.combines == 1 ? "" : "s");
    g_string_append_c(line, '\n');
    fputs(line->str, stdout);
    g_string_free(line, TRUE);
    return 0;
}

/* An algorithm file (MSCCL, MSCCL++, or YAML that carries an MSCCL algorithm) is checked in
 * its own terms, by its format (formats.h); the file is read once to tell. Returns -1 when
 * the file is none, with a YAML program read in *program. */
static int check_algorithm(const char *file, const VerifyOptions *o, FennelProgram **program)
{
    GError *error = NULL;
    GString *line = g_string_new(NULL);
    FennelFormatCheck result =
        fennel_format_verify(file, o->collective || o->gen.root, line, program, &error);
    int status = -1;
    if (result == FENNEL_FORMAT_CHECKED) {
        fputs(line->str, stdout);
        status = 0;
    } else if (result == FENNEL_FORMAT_OWN_COLLECTIVE) {
        status = usage_error(error->message);
        g_error_free(error);
    } else if (result == FENNEL_FORMAT_REFUSED) {
        status = fennel_cli_fail(error);
    }
    g_string_free(line, TRUE);
    return status;
}

static int verify(VerifyOptions *o)
{
    GError *error = NULL;
    FennelCollective c = FENNEL_COLLECTIVE_N;
    if (o->collective && !fennel_collective_parse(o->collective, &c)) {
        char *message = g_strdup_printf("--collective %s: unknown collective (known: %s)",
                                        o->collective, fennel_collective_names());
        int status = usage_error(message);
        g_free(message);
        return status;
    }
    uint32_t root = 0;
    if (o->gen.root) {
        int64_t v;
        const char *why;
        if (!fennel_parse_int(o->gen.root, 0, UINT32_MAX - 1, &v, &why))
            return usage_error("--root: expected a whole number >= 0");
        root = (uint32_t)v;
    }

    if (o->generate) {
        const FennelGenerator *g = fennel_generator_find(o->generate);
        if (c == FENNEL_COLLECTIVE_N && g && g->collective &&
            !fennel_collective_parse(g->collective, &c)) {
            char *message = g_strdup_printf("generator %s performs '%s', which verify does not "
                                            "know",
                                            g->name, g->collective);
            int status = usage_error(message);
            g_free(message);
            return status;
        }
        /* --root is the generator's when it takes one, else only the check's. */
        FennelGenTextOptions gen = o->gen;
        if (g && !(g->options & FENNEL_GEN_ROOT))
            gen.root = NULL;
        FennelProgram *p = fennel_gen_text_generate(o->generate, &gen, (uint64_t)o->seed, &error);
        if (p == NULL)
            return fennel_cli_fail(error);
        int status;
        if (c == FENNEL_COLLECTIVE_N) {
            char *message = g_strdup_printf("generator %s performs no collective; give "
                                            "--collective KIND (%s)",
                                            o->generate, fennel_collective_names());
            status = usage_error(message);
            g_free(message);
        } else {
            status = check(p, o->generate, c, root);
        }
        fennel_program_free(p);
        return status;
    }

    if (o->gen.root && c != FENNEL_COLLECTIVE_N && !fennel_collective_has_root(c)) {
        char *message = g_strdup_printf("%s has no root; --root applies to reduce, bcast, "
                                        "scatter and gather",
                                        fennel_collective_name(c));
        int status = usage_error(message);
        g_free(message);
        return status;
    }
    /* A file says what it performs (`collective:`, `root:`, as `fennel generate` writes
     * them); --collective and --root, when given, override it. */
    int status = 0;
    for (char **file = o->programs; *file && status == 0; file++) {
        FennelProgram *p = NULL;
        status = check_algorithm(*file, o, &p);
        if (status >= 0)
            continue;
        status = 0;
        FennelCliRead read;
        FennelGenTextOptions none = {0};
        if (!fennel_cli_read_setup("verify", &none, o->algorithms, NULL, &read, &error))
            g_clear_pointer(&p, fennel_program_free);
        else if (p == NULL)
            p = fennel_program_read_with(*file, &read.read, NULL, &error);
        fennel_cli_read_clear(&read);
        if (p == NULL)
            return fennel_cli_fail(error);
        FennelCollective kind = c;
        uint32_t at = root;
        if (kind == FENNEL_COLLECTIVE_N && p->collective &&
            !fennel_collective_parse(p->collective, &kind)) {
            char *message = g_strdup_printf("%s: collective: unknown collective '%s' (known: %s)",
                                            *file, p->collective, fennel_collective_names());
            status = usage_error(message);
            g_free(message);
        } else if (kind == FENNEL_COLLECTIVE_N) {
            char *message = g_strdup_printf("%s says no collective: give --collective KIND (%s)",
                                            *file, fennel_collective_names());
            status = usage_error(message);
            g_free(message);
        } else {
            if (o->gen.root == NULL && p->root != FENNEL_NO_RANK)
                at = p->root;
            status = check(p, *file, kind, at);
        }
        fennel_program_free(p);
    }
    return status;
}

int fennel_cmd_verify(int argc, char **argv)
{
    VerifyOptions o = {0};
    GOptionEntry entries[] = {
        {"collective", 'c', 0, G_OPTION_ARG_STRING, &o.collective,
         "The collective to check: allreduce, reduce, bcast, allgather, reduce-scatter, "
         "scatter, gather or barrier",
         "KIND"},
        {"generate", 'g', 0, G_OPTION_ARG_STRING, &o.generate,
         "Check a generated program instead of files ('fennel list' names them)", "NAME"},
        FENNEL_GENERATOR_OPTION_ENTRIES(o.gen),
        {"seed", 0, 0, G_OPTION_ARG_INT64, &o.seed,
         "Seed of generators with random content (default 0)", "N"},
        FENNEL_COLLECTIVE_ALGORITHM_ENTRY(o.algorithms),
        {G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &o.programs, NULL, "PROGRAM..."},
        {NULL, 0, 0, 0, NULL, NULL, NULL},
    };
    int status = 0;
    if (fennel_cli_parse("verify", "[PROGRAM...]",
                         "Check symbolically that programs perform a collective: every rank "
                         "ends with the data the collective promises, and for allreduce every "
                         "rank combined it in the same order. --root (default 0) is the "
                         "collective's root.",
                         entries, &argc, &argv, &status)) {
        fennel_cli_distinct_programs(&o.programs);
        gboolean files = o.programs != NULL && o.programs[0] != NULL;
        char *root = o.gen.root;
        o.gen.root = NULL; /* --root alone is not a generator option for a file */
        gboolean gen_options = fennel_gen_text_any(&o.gen);
        o.gen.root = root;
        if (!files && o.generate == NULL)
            status = usage_error("no program given (fennel verify PROGRAM --collective KIND, or "
                                 "fennel verify --generate NAME)");
        else if (files && o.generate)
            status = usage_error("give program files or --generate, not both");
        else if (files && gen_options)
            status = usage_error("generator options need --generate NAME");
        else if (o.seed < 0)
            status = usage_error("--seed must not be negative");
        else
            status = verify(&o);
    }
    fennel_gen_text_options_clear(&o.gen);
    g_free(o.collective);
    g_free(o.generate);
    g_free(o.algorithms);
    g_strfreev(o.programs);
    return status;
}
