/* Generators: named builders of programs (docs/SCHEDULES.md). Each generator lives in its own
 * file (gen_*.c), declares which command-line options it uses, and is listed in
 * registry.c. The options are parsed once (src/run/generator_options.c) for `run --generate`,
 * `generate` and `sweep`. */
#ifndef FENNEL_GENERATOR_H
#define FENNEL_GENERATOR_H

#include "program.h"
#include "stages.h"

/* The generator options, one bit each. */
typedef enum {
    FENNEL_GEN_RANKS = 1 << 0,
    FENNEL_GEN_SIZE = 1 << 1,
    FENNEL_GEN_SCHEDULE = 1 << 2,
    FENNEL_GEN_ROOT = 1 << 3,
    FENNEL_GEN_ROUNDS = 1 << 4,
    FENNEL_GEN_WIDTH = 1 << 5,
    FENNEL_GEN_RADIX = 1 << 6,
    FENNEL_GEN_PPN = 1 << 7,
    FENNEL_GEN_PARTITIONS = 1 << 8,
    FENNEL_GEN_THRESHOLD = 1 << 9,
    FENNEL_GEN_VARIANT = 1 << 10,
    FENNEL_GEN_PARALLEL = 1 << 11,
    FENNEL_GEN_SEGMENT = 1 << 12,
    FENNEL_GEN_N_OPTIONS = 13,
} FennelGenOption;

typedef struct {
    unsigned given; /* FennelGenOption bits the user set */
    uint32_t ranks;
    int64_t size; /* bytes */
    const char *schedule;
    uint32_t root;
    uint32_t rounds;
    uint32_t width;
    uint32_t radix;
    uint32_t ppn;
    /* NICs per server of the machine the program is made for (a rail topology's
     * nics_per_node when its gpus_per_node is --ppn), for generators that place channels on
     * NICs (nccl-tree); 0: one per GPU. Set from the model, not a command-line option. */
    uint32_t nics;
    uint32_t partitions;
    uint32_t threshold;
    const char *variant;
    const char *parallel;          /* training: the job's shape, KEY=VALUE items (gen_training.c) */
    int64_t segment;               /* bytes of a pipelined segment; 0: unsegmented */
    uint64_t seed;                 /* for generators with random content (bsp) */
    double machine_ratio;          /* alpha_p / alpha_r for `--schedule heuristic`: the ratio
                                      of the model the program will run under
                                      (fennel_heuristic_ratio_for: it may be 0 or
                                      +infinity); the thesis figure model's 5 by default */
    const FennelSegmentSink *sink; /* streaming: where generators that stream hand their
                                      program in segments (stages.h); NULL builds it whole */
    const FennelLimits *limits;    /* what the program must fit (capacity.h); NULL: the
                                      defaults */
} FennelGenOptions;

typedef struct {
    const char *name;
    const char *summary;
    unsigned options;       /* the options it accepts */
    unsigned required;      /* the options it needs */
    const char *collective; /* what it performs, for `fennel verify`, or NULL */
    gboolean streams;       /* built with stages.h alone, so it can stream (run --stream) */
    /* Builds the program. Options not given hold the defaults of
     * fennel_gen_options_init(). Errors: FENNEL_ERROR_INPUT with a message that names
     * the valid domain ("allreduce-rd needs --ranks >= 1"). */
    FennelProgram *(*generate)(const FennelGenOptions *o, GError **error);
    /* For generators whose size grows faster than their ranks (the rings: p(p - 1) messages
     * a phase): a lower bound of the tasks they make, so that a size beyond --max-tasks or
     * memory is refused before any work; NULL for the others. */
    uint64_t (*min_tasks)(const FennelGenOptions *o);
} FennelGenerator;

/* The registry, NULL-terminated, in the order `fennel list` shows it. */
extern const FennelGenerator *const fennel_generators[];
const FennelGenerator *fennel_generator_find(const char *name);

/* Defaults: ranks 2, size 8 B, root 0, rounds 1, width 2, radix 2, ppn 1, partitions 2,
 * threshold 1, no schedule, no variant, segment 0 (unsegmented), seed 0. */
void fennel_gen_options_init(FennelGenOptions *o);

/* The option's command-line name ("--ranks") for messages and `fennel list`. */
const char *fennel_gen_option_name(FennelGenOption option);

/* Checks options against the generator: a usage error (FENNEL_ERROR_USAGE) for an
 * option it does not use or a required one missing. Then runs it; the program's name is
 * set to the generator's name. */
FennelProgram *fennel_generate(const FennelGenerator *g, const FennelGenOptions *o, GError **error);

/* A generator's stage builder and plain builder: within the options' limits, and the
 * stage builder streamed to the options' sink. Generators build through these, so that
 * `run --max-tasks` and streaming reach every program they make. */
static inline FennelStages *fennel_gen_stages(const FennelGenOptions *o, uint32_t ranks)
{
    return fennel_stages_new_within(ranks, o->limits, o->sink);
}

static inline FennelProgramBuilder *fennel_gen_builder(const FennelGenOptions *o)
{
    FennelProgramBuilder *b = fennel_builder_new();
    fennel_builder_set_limits(b, o->limits);
    return b;
}

#endif
