/* libFuzzer harness: the SimGrid platform reader (kind graph, models/topology_simgrid.c),
 * called directly, so that every input is read as XML. A platform that reads is exercised
 * as a graph file's graph is (fuzz_exercise_graph). */
#include "fuzz_program.h"

#include "topology_graph_private.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_setup();
    GError *error = NULL;
    FennelGraph *g = fennel__graph_simgrid("fuzz.platform.xml", (const char *)data, size, &error);
    if (g == NULL) {
        fuzz_check_message(error, "fuzz.platform.xml:");
        g_error_free(error);
        return 0;
    }
    fuzz_exercise_graph(g);
    return 0;
}
