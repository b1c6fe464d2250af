#include "generator.h"

#include "heuristic.h"

#include "capacity.h"
#include "errors.h"

#include <string.h>

static const char *const option_names[FENNEL_GEN_N_OPTIONS] = {
    "--ranks", "--size",       "--schedule",  "--root",    "--rounds",   "--width",   "--radix",
    "--ppn",   "--partitions", "--threshold", "--variant", "--parallel", "--segment",
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
                            .threshold = 1,
                            .machine_ratio = FENNEL_HEURISTIC_DEFAULT_RATIO};
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

/* Options that repeat work promise a least size: every generator adds at least one task
 * per round (on each rank, where it takes --ranks), one per multicast target (each its own
 * rank) and one per partition (each its own slot). A value beyond memory fails here, in
 * microseconds, instead of after the builder's guard has counted billions of tasks (or
 * the machine state for billions of slots has exhausted memory). */
static gboolean check_repeats(const FennelGenerator *g, const FennelGenOptions *o, GError **error)
{
    uint64_t ranks = (o->given & FENNEL_GEN_RANKS) ? o->ranks : 1, tasks = 0, slots = 1;
    const char *option = NULL;
    uint32_t value = 0;
    if (o->given & FENNEL_GEN_ROUNDS) {
        tasks = (uint64_t)o->rounds * ranks;
        option = "--rounds";
        value = o->rounds;
    }
    if ((o->given & FENNEL_GEN_WIDTH) && o->width >= tasks) {
        tasks = o->width;
        ranks = MAX(ranks, (uint64_t)o->width + 1);
        option = "--width";
        value = o->width;
    }
    if ((o->given & FENNEL_GEN_PARTITIONS) && o->partitions >= tasks) {
        tasks = o->partitions;
        slots = o->partitions;
        option = "--partitions";
        value = o->partitions;
    }
    /* Only sizes beyond memory or the task index fail here; --max-tasks is left to the
     * builder, which reports the exact count rather than this lower bound. */
    if (option == NULL ||
        (tasks <= FENNEL_TASKS_MAX &&
         fennel_limits_estimate(tasks, 0, ranks, slots) <= fennel_limits_memory(o->limits)))
        return TRUE;
    if (fennel_check_size(o->limits, tasks, 0, ranks, slots, error))
        return TRUE;
    g_prefix_error(error, "%s %s %u: ", g->name, option, value);
    return FALSE;
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
    if ((o->given & FENNEL_GEN_RANKS) && !fennel_check_size(o->limits, 0, 0, o->ranks, 1, error)) {
        g_prefix_error(error, "%s --ranks %u: ", g->name, o->ranks);
        return NULL;
    }
    if (!check_repeats(g, o, error))
        return NULL;
    if (g->min_tasks && (o->given & FENNEL_GEN_RANKS)) {
        uint64_t tasks = g->min_tasks(o);
        if (!fennel_check_size(o->limits, tasks, 0, o->ranks, 1, error)) {
            g_prefix_error(error, "%s --ranks %u: at least ", g->name, o->ranks);
            return NULL;
        }
    }
    FennelProgram *p = g->generate(o, error);
    if (p) {
        g_free(p->name);
        p->name = g_strdup(g->name);
        g_free(p->collective);
        p->collective = g_strdup(g->collective);
        p->root = (g->options & FENNEL_GEN_ROOT) ? o->root : FENNEL_NO_RANK;
    }
    return p;
}
