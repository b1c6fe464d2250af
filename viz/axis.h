/* Time axes: round-number ticks that adapt to the span and the room, and the unit the
 * labels are written in. */
#ifndef FENNEL_AXIS_H
#define FENNEL_AXIS_H

#include "units.h"

typedef struct {
    FennelTime step;       /* between labelled ticks: 1, 2 or 5 times a power of ten ps */
    FennelTime minor;      /* between unlabelled ticks (equal to step when there are none) */
    FennelTime unit;       /* picoseconds per unit of the labels */
    const char *unit_name; /* "ps", "ns", "µs", "ms" or "s" */
} FennelAxis;

/* Chooses ticks for [start, end] drawn over `pixels`: the smallest round step whose
 * labels (at font_size) keep a clear gap between them, minor ticks at least 5 pixels
 * apart, and the largest unit not larger than the step, so every label is a whole
 * number. end must be greater than start. */
void fennel_axis_choose(FennelTime start, FennelTime end, double pixels, double font_size,
                        FennelAxis *axis);

/* The label of a tick at t (a multiple of the step): t in the axis unit ("1500"). */
char *fennel_axis_label(const FennelAxis *axis, FennelTime t, char buf[32]);

/* The smallest multiple of step that is >= t (t >= 0). */
FennelTime fennel_axis_ceil(FennelTime t, FennelTime step);

#endif
