/* libFuzzer harness: the model file reader (fennel_model_parse). A model that reads
 * times a small program with every task type at a few sizes, twice per seed. */
#include "fuzz_program.h"

#include "model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_setup();
    FennelModel m;
    fennel_model_init(&m);
    GError *error = NULL;
    if (!fennel_model_parse(&m, "fuzz.model.yaml", (const char *)data, size, &error)) {
        fuzz_check_message(error, "fuzz.model.yaml:");
        g_error_free(error);
        fennel_model_clear(&m);
        return 0;
    }
    g_free(fennel_model_describe(&m));
    GString *json = g_string_new(NULL);
    fennel_model_append_json(&m, json);
    g_string_free(json, TRUE);
    static const int64_t sizes[] = {0, 1, 8, 4096, (int64_t)1 << 40};
    unsigned selector = fuzz_selector(data, size);
    FennelProgram *p = fuzz_small_program(sizes[selector % G_N_ELEMENTS(sizes)]);
    for (uint64_t seed = 0; seed < 2; seed++) {
        int64_t a = fuzz_simulate(p, &m, seed, TRUE), b = fuzz_simulate(p, &m, seed, FALSE);
        if (a != b)
            fuzz_fail("two runs with seed %" G_GUINT64_FORMAT " differ", seed);
    }
    for (int stream = 0; stream < FENNEL_NOISE_N_STREAMS; stream++)
        (void)fennel_model_noise(&m, selector, (FennelNoiseStream)stream, selector);
    fennel_program_free(p);
    fennel_model_clear(&m);
    return 0;
}
