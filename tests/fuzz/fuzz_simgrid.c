/* libFuzzer harness: the SimGrid platform reader (kind graph, models/topology_simgrid.c),
 * called directly, so that every input is read as XML. A platform that reads is built into a
 * network whose every route between its first nodes must end at its destination, link by
 * link from where it is, within as many hops as there are vertices; a small program then
 * runs on it under each contention level. */
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
    FennelTopology *t = fennel_topology_new(FENNEL_TOPOLOGY_GRAPH);
    t->graph = g;
    char *why = NULL;
    FennelNetwork *n = fennel_network_build(t, 1, &why);
    if (n == NULL)
        fuzz_fail("a graph that reads does not build: %s", why);
    const uint32_t nodes = MIN(n->nodes, 32u);
    for (uint32_t src = 0; src < nodes; src++) {
        for (uint32_t dst = 0; dst < nodes; dst++) {
            for (uint32_t choice = 0; src != dst && choice < 3; choice++) {
                uint32_t at = src, hops = 0;
                while (at != dst) {
                    const FennelHop h = fennel_network_hop_via(n, at, dst, choice);
                    uint32_t from, to, level;
                    if (!fennel_network_link(n, h.link, &from, &to, &level) || from != at ||
                        to != h.to || ++hops > n->vertices)
                        fuzz_fail("the route from %u to %u is broken at %u", src, dst, at);
                    at = h.to;
                }
            }
        }
    }
    fennel_network_free(n);
    FennelModel m;
    fuzz_model(&m, 0);
    m.topology = t;
    FennelProgram *p = fuzz_small_program(4096);
    for (int c = 0; c < FENNEL_CONTENTION_N_LEVELS; c++) {
        m.contention = (FennelContention)c;
        (void)fuzz_simulate(p, &m, 0, FALSE);
    }
    fennel_program_free(p);
    fennel_model_clear(&m);
    return 0;
}
