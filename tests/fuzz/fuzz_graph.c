/* libFuzzer harness: the graph file reader (kind graph, models/topology_graph.c). A graph
 * that reads is exercised by fuzz_exercise_graph: its routes followed, a program run on it. */
#include "fuzz_program.h"

#include "topology_graph.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_setup();
    GError *error = NULL;
    FennelGraph *g = fennel_graph_parse("fuzz.graph.yaml", (const char *)data, size, &error);
    if (g == NULL) {
        fuzz_check_message(error, "fuzz.graph.yaml:");
        g_error_free(error);
        return 0;
    }
    fuzz_exercise_graph(g);
    return 0;
}
