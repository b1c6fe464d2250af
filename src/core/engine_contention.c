/* The table of contention levels (docs/TOPOLOGY.md): what each does in the engine, one row
 * per FennelContention, in the order of models/topology.h, whose own table holds the names
 * and descriptions that the model file, --set and `fennel list` read (models is below
 * src/core, which may not be included from there). The engine dispatches through the row
 * of the model's level: see engine_private.h for the hooks. */
#include "engine_private.h"

const ContentionLevel fennel__contention_levels[FENNEL_CONTENTION_N_LEVELS] = {
    /* A message takes its route's wire time at once: no events, no link state (a switch's
     * operation too, engine_nvls.c). */
    [FENNEL_CONTENTION_NONE] = {.level = FENNEL_CONTENTION_NONE},
    /* The nodes' ports are first-come first-served servers (engine_topology.c). */
    [FENNEL_CONTENTION_ENDPOINT] = {.level = FENNEL_CONTENTION_ENDPOINT,
                                    .routed = TRUE,
                                    .ports_only = TRUE,
                                    .ring = TRUE,
                                    .send = fennel__serial_send,
                                    .hop = fennel__endpoint_hop,
                                    .tree_send = fennel__serial_tree_send,
                                    .tree_hop = fennel__serial_tree_hop,
                                    .ahead = fennel__serial_ahead},
    /* Every directed link is one (engine_topology.c). */
    [FENNEL_CONTENTION_LINKS] = {.level = FENNEL_CONTENTION_LINKS,
                                 .routed = TRUE,
                                 .ring = TRUE,
                                 .send = fennel__serial_send,
                                 .hop = fennel__links_hop,
                                 .tree_send = fennel__serial_tree_send,
                                 .tree_hop = fennel__serial_tree_hop,
                                 .ahead = fennel__serial_ahead},
    /* Max-min fair flows (engine_fair.c, rates from fair_fill.c). */
    [FENNEL_CONTENTION_FAIR] = {.level = FENNEL_CONTENTION_FAIR,
                                .routed = TRUE,
                                .ring = TRUE,
                                .link_bytes = FENNEL_FAIR_LINK_BYTES,
                                .setup = fennel__fair_new,
                                .free = fennel__fair_free,
                                .send = fennel__fair_send,
                                .hop = fennel__fair_add,
                                .tree_send = fennel__fair_tree_send,
                                .tree_hop = fennel__fair_tree_add,
                                .event = fennel__fair_event,
                                .change = fennel__fair_change},
};
