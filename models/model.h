/* The model interface. A network model times the network tasks (put, get), a compute
 * model times sized computes. Each model is a class with a table of named, typed
 * parameters; a FennelModel holds the chosen classes, their parameter values and the
 * time resolution. Models return durations relative to the task's start; the engine
 * adds them to simulated time. */
#ifndef FENNEL_MODEL_H
#define FENNEL_MODEL_H

#include "units.h"

typedef enum {
    FENNEL_PARAM_DURATION, /* FennelTime, ps */
    FENNEL_PARAM_RATE,     /* FennelRate, attoseconds per byte */
    FENNEL_PARAM_SIZE,     /* bytes */
} FennelParamKind;

typedef struct {
    const char *name;
    FennelParamKind kind;
    const char *default_text; /* parsed like user input */
    const char *help;
} FennelParamSpec;

#define FENNEL_MAX_PARAMS 8

typedef struct FennelModel FennelModel;

/* What a network task costs, as durations from its start t. */
typedef struct {
    FennelTime issuer_busy;       /* the issuing slot is busy until t + issuer_busy */
    FennelTime completion;        /* successors may start (a get: those on other ranks) */
    FennelTime issuer_completion; /* successors on the issuing rank may start */
    FennelTime arrival;           /* a put's data, or a get's request, reaches the peer */
    FennelTime back;              /* a get's data is back at the issuer (0 for a put) */
} FennelNetTiming;

typedef struct {
    uint32_t src, dst;
    int64_t bytes;   /* put: the payload; get: the bytes fetched */
    int64_t request; /* get: the request's bytes */
    gboolean blocking;
} FennelNetOp;

typedef struct {
    const char *name;
    const char *description;
    const FennelParamSpec *params;
    unsigned n_params;
    void (*put)(const FennelModel *m, const FennelNetOp *op, FennelNetTiming *out);
    void (*get)(const FennelModel *m, const FennelNetOp *op, FennelNetTiming *out);
} FennelNetworkClass;

typedef struct {
    const char *name;
    const char *description;
    const FennelParamSpec *params;
    unsigned n_params;
    FennelTime (*duration)(const FennelModel *m, int64_t bytes);
} FennelComputeClass;

struct FennelModel {
    const FennelNetworkClass *network;
    int64_t net[FENNEL_MAX_PARAMS];
    const FennelComputeClass *compute;
    int64_t comp[FENNEL_MAX_PARAMS];
    FennelTime resolution;
    gboolean resolution_explicit; /* truncate toward zero instead of rounding */
};

/* The registries, NULL-terminated, in the order `fennel list` shows them. */
extern const FennelNetworkClass *const fennel_network_classes[];
extern const FennelComputeClass *const fennel_compute_classes[];

const FennelNetworkClass *fennel_network_class_find(const char *name);
const FennelComputeClass *fennel_compute_class_find(const char *name);

/* The default model: postal with zero parameters, fixed compute of 0 ns, 1 ps
 * resolution rounding to nearest. */
void fennel_model_init(FennelModel *m);

/* Switch class, resetting its parameters to their defaults. */
void fennel_model_set_network(FennelModel *m, const FennelNetworkClass *klass);
void fennel_model_set_compute(FennelModel *m, const FennelComputeClass *klass);

/* Sets one value from text: "resolution", "network" or "compute" (a class name), a
 * parameter name of the current network or compute class, or "network.NAME" /
 * "compute.NAME". On failure *why is a message to g_free, and *unknown_key tells
 * a key the model does not have from a bad value. */
gboolean fennel_model_set(FennelModel *m, const char *key, const char *value, gboolean *unknown_key,
                          char **why);

/* Parameter tables: parse a value of a kind, find a name (-1 if absent), list the
 * names ("a, b, c"; g_free it), list the network or compute class names. */
gboolean fennel_param_parse(FennelParamKind kind, const char *text, int64_t *out, const char **why);
int fennel_param_find(const FennelParamSpec *specs, unsigned n, const char *name);
char *fennel_param_names(const FennelParamSpec *specs, unsigned n);
char *fennel_model_class_names(gboolean network);

/* Reads a model file (SPEC §5) into m, which should be initialised; keys it does not
 * give keep their values. Errors name FILE:LINE:COL. */
gboolean fennel_model_read(FennelModel *m, const char *file, GError **error);
gboolean fennel_model_parse(FennelModel *m, const char *name, const char *data, gsize length,
                            GError **error);

/* Rounds attoseconds to the model's resolution (toward zero when the resolution was
 * given explicitly, to nearest otherwise) and returns picoseconds, saturating. */
FennelTime fennel_model_quantise(const FennelModel *m, __int128 attoseconds);

/* Attoseconds of a duration parameter and of bytes x a rate parameter. */
static inline __int128 fennel_as(FennelTime ps)
{
    return (__int128)ps * FENNEL_AS_PER_PS;
}

static inline __int128 fennel_as_bytes(int64_t bytes, FennelRate rate)
{
    return (__int128)bytes * rate;
}

/* Formats a parameter value with its unit ("500ns", "0.4ns/B", "8B"). */
char *fennel_param_format(FennelParamKind kind, int64_t value, char buf[48]);
const char *fennel_param_unit(FennelParamKind kind);

/* "lbp alpha_p=500ns alpha_r=100ns beta=0.4ns/B; compute fixed duration=10ns" */
char *fennel_model_describe(const FennelModel *m);

/* The model as a JSON object. */
void fennel_model_append_json(const FennelModel *m, GString *out);

#endif
