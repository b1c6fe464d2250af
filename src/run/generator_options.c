/* Generated programs from generator options given as text: what `run --generate`,
 * `generate` and `sweep` share. */
#include "options.h"

#include "cost.h"
#include "errors.h"

#include <string.h>

static gboolean parse_count(const char *flag, const char *text, uint32_t min, uint32_t *out,
                            GError **error)
{
    int64_t v;
    const char *why;
    if (!fennel_parse_int(text, min, UINT32_MAX - 1, &v, &why)) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE, "%s %s: expected a whole number >= %u",
                    flag, text, min);
        return FALSE;
    }
    *out = (uint32_t)v;
    return TRUE;
}

gboolean fennel_gen_text_parse(const FennelGenTextOptions *c, uint64_t seed, FennelGenOptions *o,
                               GError **error)
{
    fennel_gen_options_init(o);
    o->seed = seed;
    const struct {
        const char *text;
        FennelGenOption bit;
        uint32_t *target;
        uint32_t min;
    } counts[] = {
        {c->ranks, FENNEL_GEN_RANKS, &o->ranks, 1},
        {c->root, FENNEL_GEN_ROOT, &o->root, 0},
        {c->rounds, FENNEL_GEN_ROUNDS, &o->rounds, 1},
        {c->width, FENNEL_GEN_WIDTH, &o->width, 1},
        {c->radix, FENNEL_GEN_RADIX, &o->radix, 2},
        {c->ppn, FENNEL_GEN_PPN, &o->ppn, 1},
        {c->partitions, FENNEL_GEN_PARTITIONS, &o->partitions, 1},
        {c->threshold, FENNEL_GEN_THRESHOLD, &o->threshold, 0},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(counts); i++) {
        if (counts[i].text == NULL)
            continue;
        if (!parse_count(fennel_gen_option_name(counts[i].bit), counts[i].text, counts[i].min,
                         counts[i].target, error))
            return FALSE;
        o->given |= counts[i].bit;
    }
    if (c->size) {
        const char *why;
        if (!fennel_parse_size(c->size, &o->size, &why)) {
            g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE, "--size %s: %s", c->size, why);
            return FALSE;
        }
        o->given |= FENNEL_GEN_SIZE;
    }
    if (c->segment) {
        const char *why;
        if (!fennel_parse_size(c->segment, &o->segment, &why)) {
            g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE, "--segment %s: %s", c->segment,
                        why);
            return FALSE;
        }
        o->given |= FENNEL_GEN_SEGMENT;
    }
    if (c->schedule) {
        o->schedule = c->schedule;
        o->given |= FENNEL_GEN_SCHEDULE;
    }
    if (c->variant) {
        o->variant = c->variant;
        o->given |= FENNEL_GEN_VARIANT;
    }
    if (c->parallel) {
        o->parallel = c->parallel;
        o->given |= FENNEL_GEN_PARALLEL;
    }
    return TRUE;
}

gboolean fennel_gen_text_any(const FennelGenTextOptions *c)
{
    const char *all[] = {c->ranks,   c->size,     c->schedule, c->root,       c->rounds,
                         c->width,   c->radix,    c->ppn,      c->partitions, c->threshold,
                         c->variant, c->parallel, c->segment};
    for (size_t i = 0; i < G_N_ELEMENTS(all); i++) {
        if (all[i])
            return TRUE;
    }
    return FALSE;
}

FennelProgram *fennel_gen_text_generate(const char *name, const FennelGenTextOptions *c,
                                        uint64_t seed, GError **error)
{
    return fennel_gen_text_generate_for(name, c, seed, NULL, NULL, error);
}

gboolean fennel_gen_text_resolve(const char *name, const FennelGenTextOptions *c, uint64_t seed,
                                 const FennelModel *model, const FennelGenerator **g,
                                 FennelGenOptions *o, GError **error)
{
    *g = fennel_generator_find(name);
    if (*g == NULL) {
        /* The generators of the name's family (the words before its first '-': "allreduce-foo"
         * lists the allreduce-* ones); all of them would not fit a message's 1000 characters. */
        const char *dash = strchr(name, '-');
        size_t family = dash ? (size_t)(dash - name) + 1 : strlen(name);
        GString *names = g_string_new(NULL);
        for (const FennelGenerator *const *k = fennel_generators; *k; k++)
            if (family > 0 && strncmp((*k)->name, name, family) == 0)
                g_string_append_printf(names, "%s%s", names->len ? ", " : "", (*k)->name);
        if (names->len)
            g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE,
                        "unknown generator '%s' (known: %s; 'fennel list' names every generator)",
                        name, names->str);
        else
            g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE,
                        "unknown generator '%s' ('fennel list' names every generator)", name);
        g_string_free(names, TRUE);
        return FALSE;
    }
    if (!fennel_gen_text_parse(c, seed, o, error))
        return FALSE;
    if (model)
        o->machine_ratio = fennel_heuristic_ratio_for(model);
    o->nics = fennel_gen_model_nics(model, o->ppn);
    return TRUE;
}

uint32_t fennel_gen_model_nics(const FennelModel *model, uint32_t ppn)
{
    const FennelTopology *t = model ? model->topology : NULL;
    if (t && t->kind == FENNEL_TOPOLOGY_RAIL && ppn == t->gpus_per_node)
        return fennel_topology_nics(t);
    return 0;
}

FennelProgram *fennel_gen_text_generate_for(const char *name, const FennelGenTextOptions *c,
                                            uint64_t seed, const FennelModel *model,
                                            const FennelLimits *limits, GError **error)
{
    const FennelGenerator *g;
    FennelGenOptions o;
    if (!fennel_gen_text_resolve(name, c, seed, model, &g, &o, error))
        return NULL;
    o.limits = limits;
    return fennel_generate(g, &o, error);
}

void fennel_gen_text_options_clear(FennelGenTextOptions *c)
{
    char **all[] = {&c->ranks,   &c->size,     &c->schedule, &c->root,       &c->rounds,
                    &c->width,   &c->radix,    &c->ppn,      &c->partitions, &c->threshold,
                    &c->variant, &c->parallel, &c->segment};
    for (size_t i = 0; i < G_N_ELEMENTS(all); i++) {
        g_free(*all[i]);
        *all[i] = NULL;
    }
}
