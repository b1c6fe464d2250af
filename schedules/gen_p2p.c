/* Point-to-point building blocks of the original Fennel (its p2p.py). */
#include "errors.h"
#include "generator.h"

/* pingpong: rounds of a put from rank 0 to rank 1 and one back; each round's pong
 * waits for the ping's arrival. Makespan under postal: rounds x 2 (alpha + s beta). */
static FennelProgram *pingpong(const FennelGenOptions *o, GError **error)
{
    if (o->rounds < 1) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT, "pingpong needs --rounds >= 1");
        return NULL;
    }
    FennelProgramBuilder *b = fennel_builder_new();
    uint32_t x[2];
    for (uint32_t r = 0; r < 2; r++) {
        uint32_t s = fennel_builder_add(b, FENNEL_TASK_START, r);
        x[r] = fennel_builder_add(b, FENNEL_TASK_PROXY, r);
        fennel_builder_add_edge(b, s, x[r]);
    }
    for (uint32_t round = 0; round < o->rounds; round++) {
        uint32_t ping = fennel_builder_add(b, FENNEL_TASK_PUT, 0);
        fennel_builder_set_peer(b, ping, 1);
        fennel_builder_set_amount(b, ping, o->size);
        fennel_builder_add_edge(b, x[0], ping);
        uint32_t pong = fennel_builder_add(b, FENNEL_TASK_PUT, 1);
        fennel_builder_set_peer(b, pong, 0);
        fennel_builder_set_amount(b, pong, o->size);
        fennel_builder_add_edge(b, x[1], pong);
        fennel_builder_add_edge(b, ping, pong);
        uint32_t x0 = fennel_builder_add(b, FENNEL_TASK_PROXY, 0);
        uint32_t x1 = fennel_builder_add(b, FENNEL_TASK_PROXY, 1);
        fennel_builder_add_edge(b, ping, x0);
        fennel_builder_add_edge(b, pong, x0);
        fennel_builder_add_edge(b, pong, x1);
        x[0] = x0;
        x[1] = x1;
    }
    return fennel_builder_finish(b, NULL, 2, 1, error);
}

const FennelGenerator fennel_gen_pingpong = {
    .name = "pingpong",
    .summary = "rounds of a put from rank 0 to rank 1 and one back",
    .options = FENNEL_GEN_SIZE | FENNEL_GEN_ROUNDS,
    .generate = pingpong,
};
