/* libFuzzer harness: the measurement readers (models/measure.h) and the fits (models/fit.h).
 * The first byte picks the format (auto or one of the readers); what reads is fitted to
 * every network model, whose written model file must read back (fennel_fit checks it). An
 * error must name the file's position. */
#include "fuzz_program.h"

#include "errors.h"
#include "fit.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_setup();
    if (size == 0)
        return 0;
    static const char *const formats[] = {"auto",     "csv",       "osu",         "imb",     "nccl",
                                          "netgauge", "calibrate", "mpi-latency", "nxnlatbw"};
    const char *format = formats[data[0] % G_N_ELEMENTS(formats)];
    GPtrArray *tables = g_ptr_array_new_with_free_func(fennel_measure_table_free);
    GError *error = NULL;
    if (!fennel_measure_parse("fuzz.txt", (const char *)data + 1, size - 1, format, tables,
                              &error)) {
        fuzz_check_message(error, "fuzz.txt:");
        g_error_free(error);
        g_ptr_array_free(tables, TRUE);
        return 0;
    }
    static const char *const networks[] = {"postal", "lbp", "logp", "loggp"};
    for (size_t i = 0; i < G_N_ELEMENTS(networks); i++) {
        FennelFitOptions o = {.network = networks[i],
                              .statistic = (FennelStatistic)(data[0] / 6 % 3),
                              .segments = data[0] / 18 % 3,
                              .leave_out_nonphysical = data[0] & 0x80};
        FennelFit *f = fennel_fit(tables, &o, &error);
        if (f == NULL) {
            /* Too few points or a non-physical fit: an input error, never a broken model. */
            if (error->code != FENNEL_ERROR_INPUT)
                fuzz_fail("fit %s: %s", networks[i], error->message);
            g_clear_error(&error);
        }
        fennel_fit_free(f);
    }
    g_ptr_array_free(tables, TRUE);
    return 0;
}
