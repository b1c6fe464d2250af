/* The topology picture of a run (`run --links-picture`; docs/TOPOLOGY.md, Seeing it): every
 * vertex of the network and every directed link, each link coloured by its utilisation, with
 * a vermilion band under the links messages waited for.
 *
 * Layout: a torus is drawn as a grid of its routers (dimension 0 across, dimension 1 down,
 * further dimensions as grids side by side), each node beside its router. Every other kind
 * in tiers by hops from the nodes' NICs: the NICs at the bottom (in node order), then the
 * switches one hop away, and so on up, each tier in the order of the mean place of its
 * neighbours in the tier below (ties by vertex number). A link is a straight line from its
 * start to its end, shifted to its right so that the two ways of a cable lie side by side;
 * a link within a tier (a dragonfly's) or between routers that are not neighbours on the
 * grid (a torus's wrap-around) is an arc.
 *
 * Colours: a link no message crossed is thin and grey (#bbbbbb); any other from #c6dbef at
 * utilisation 0 to #08306b at 1, linearly in each colour channel (utilisation as the links
 * CSV gives it: busy time over the makespan). A link with waits lies on a vermilion
 * (#d55e00) band 2 + 6 min(1, wait / makespan) units wider than its line.
 *
 * In the SVG each link is a <g class="link"> with data-link, data-from, data-to, data-level,
 * data-messages, data-bytes, data-busy-ns, data-utilisation, data-wait-ns and data-colour
 * (its line's colour, #rrggbb), and a tooltip; each vertex a <g class="vertex"> with
 * data-vertex (its name), data-x and data-y (its centre). */
#ifndef FENNEL_TOPOLOGY_VIEW_H
#define FENNEL_TOPOLOGY_VIEW_H

#include "canvas.h"
#include "link_map.h"

/* The colour of a used link at utilisation u (clamped to [0, 1]). */
FennelColour fennel_topology_view_colour(double u);

/* Draws the map; `title` (or NULL) is the caption's first line. */
FennelCanvas *fennel_topology_view_draw(const FennelLinkMap *map, const char *title);

#endif
