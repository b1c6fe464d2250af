/* The program view (`fennel run --dag`): the DAG drawn as in the thesis' Fig. 5.25, one
 * lane per rank and one column per dependency depth, nodes labelled S (start), P (put),
 * C (compute), G (get), Z (sleep); proxies, which only join or order, are hidden and
 * the edges through them drawn directly. Edges between ranks (a put feeding its
 * target's compute) are drawn in the message colour. */
#ifndef FENNEL_DAG_VIEW_H
#define FENNEL_DAG_VIEW_H

#include "canvas.h"
#include "program.h"

typedef struct {
    double width;          /* at most, unless that leaves under 16 units per column */
    const uint32_t *ranks; /* ranks shown, ascending; NULL for all */
    uint32_t n_shown;
    const char *title;
} FennelDagOptions;

/* The most nodes the view draws; larger programs are an error that suggests
 * --ranks-shown or --dot. */
#define FENNEL_DAG_MAX_NODES 20000

/* Draws the programs one after another (as `fennel run` runs them) on n_ranks lanes.
 * Returns NULL with FENNEL_ERROR_USAGE when there are too many nodes to draw. */
FennelCanvas *fennel_dag_draw(FennelProgram *const *programs, guint n_programs, uint32_t n_ranks,
                              const FennelDagOptions *o, GError **error);

#endif
