#include "generator.h"

#include "capacity.h"
#include "errors.h"

#include <string.h>

static const char *const option_names[FENNEL_GEN_N_OPTIONS] = {
    "--ranks", "--size", "--schedule",   "--root",      "--rounds",  "--width",
    "--radix", "--ppn",  "--partitions", "--threshold", "--variant",
};

const char *fennel_gen_option_name(FennelGenOption option)
{
    for (int i = 0; i < FENNEL_GEN_N_OPTIONS; i++) {
        if (option == (1u << i))
            return option_names[i];
    }
    return "?";
}

void fennel_gen_options_init(FennelGenOptions *o)
{
    *o = (FennelGenOptions){.ranks = 2,
                            .size = 8,
                            .root = 0,
                            .rounds = 1,
                            .width = 2,
                            .radix = 2,
                            .ppn = 1,
                            .partitions = 2,
                            .threshold = 1};
}

const FennelGenerator *fennel_generator_find(const char *name)
{
    for (const FennelGenerator *const *g = fennel_generators; *g; g++) {
        if (strcmp((*g)->name, name) == 0)
            return *g;
    }
    return NULL;
}

static char *option_list(unsigned mask)
{
    GString *s = g_string_new(NULL);
    for (int i = 0; i < FENNEL_GEN_N_OPTIONS; i++) {
        if (mask & (1u << i))
            g_string_append_printf(s, "%s%s", s->len ? ", " : "", option_names[i]);
    }
    if (s->len == 0)
        g_string_append(s, "none");
    return g_string_free(s, FALSE);
}

FennelProgram *fennel_generate(const FennelGenerator *g, const FennelGenOptions *o, GError **error)
{
    unsigned extra = o->given & ~g->options, missing = g->required & ~o->given;
    if (extra || missing) {
        unsigned bit = extra ? extra & -extra : missing & -missing;
        char *uses = option_list(g->options);
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE, "generator %s %s %s (it uses: %s)",
                    g->name, extra ? "does not use" : "needs", fennel_gen_option_name(bit), uses);
        g_free(uses);
        return NULL;
    }
    /* A rank count beyond memory fails before the generator allocates per-rank state
     * (capacity.h); the builder's guard covers the tasks themselves. */
    if ((o->given & FENNEL_GEN_RANKS) && !fennel_check_size(0, 0, o->ranks, 1, error)) {
        g_prefix_error(error, "%s --ranks %u: ", g->name, o->ranks);
        return NULL;
    }
    FennelProgram *p = g->generate(o, error);
    if (p) {
        g_free(p->name);
        p->name = g_strdup(g->name);
    }
    return p;
}
