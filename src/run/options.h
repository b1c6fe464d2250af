/* Models and generated programs from options given as text: what `run`, `generate` and
 * `sweep` share, whether the text comes from the command line or from a sweep's lists. */
#ifndef FENNEL_OPTIONS_H
#define FENNEL_OPTIONS_H

#include "generator.h"
#include "model.h"

#include <glib.h>

/* A model as text: a model file, a network kind over it, then KEY=VALUE settings. */
typedef struct {
    char *model_file;
    char *network;
    char **set; /* KEY=VALUE */
} FennelModelOptions;

/* Whether the options name a model at all (a file or preset, or a network kind). `run`,
 * `sweep` and `schedules --simulate` refuse to run without one: every duration would be
 * 0 and every makespan 0 ns. */
gboolean fennel_model_options_given(const FennelModelOptions *o);
/* The usage error for a command run without a model, naming the presets. */
void fennel_model_options_missing(const char *command, GError **error);

/* The file a --model argument names: the argument itself when it is a file, else the
 * preset of that name (with or without .yaml) in the installed presets directory or, for
 * a program run from its build tree, in the source tree's models/presets. NULL when
 * neither exists. */
char *fennel_model_preset_find(const char *argument);

/* Builds the model: the file, then the network kind, then each setting in order. */
gboolean fennel_model_options_build(const FennelModelOptions *o, FennelModel *m, GError **error);
/* Applies KEY=VALUE settings to a model and checks its noise afterwards. */
/* compare's and fit's --nic and --duplex (NULL: not given) over the model's keys: a bad value
 * or a model that cannot have them (LogP/LogGP, a topology) is a usage error. */
gboolean fennel_model_options_ports(FennelModel *m, const char *nic, const char *duplex,
                                    GError **error);
gboolean fennel_model_options_apply_sets(FennelModel *m, char **set, GError **error);
void fennel_model_options_clear(FennelModelOptions *o);

/* A generator's options as text (NULL when not given). */
typedef struct {
    char *ranks, *size, *schedule, *root, *rounds, *width, *radix, *ppn, *partitions, *threshold,
        *variant, *parallel, *segment;
} FennelGenTextOptions;

/* Parses the text options into o (a usage error names the option). */
gboolean fennel_gen_text_parse(const FennelGenTextOptions *c, uint64_t seed, FennelGenOptions *o,
                               GError **error);
gboolean fennel_gen_text_any(const FennelGenTextOptions *c);
/* Finds the generator (a usage error lists the known ones), parses and generates. */
FennelProgram *fennel_gen_text_generate(const char *name, const FennelGenTextOptions *c,
                                        uint64_t seed, GError **error);
/* Same, for a program that will run under `model` (`--schedule heuristic` then uses the
 * model's alpha_p / alpha_r) within `limits` (capacity.h; NULL: the defaults). */
FennelProgram *fennel_gen_text_generate_for(const char *name, const FennelGenTextOptions *c,
                                            uint64_t seed, const FennelModel *model,
                                            const FennelLimits *limits, GError **error);
/* The NICs per server for FennelGenOptions.nics: the model's rail topology's
 * (fennel_topology_nics), when its GPUs per server are `ppn` (local GPU i is then the
 * topology's GPU i); 0 (one per GPU) otherwise or without a model. */
uint32_t fennel_gen_model_nics(const FennelModel *model, uint32_t ppn);
/* The generator and its parsed options, without generating. */
gboolean fennel_gen_text_resolve(const char *name, const FennelGenTextOptions *c, uint64_t seed,
                                 const FennelModel *model, const FennelGenerator **g,
                                 FennelGenOptions *o, GError **error);
void fennel_gen_text_options_clear(FennelGenTextOptions *c);

#endif
