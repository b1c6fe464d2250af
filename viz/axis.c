/* Round-number time ticks (1, 2, 5 times a power of ten picoseconds). */
#include "axis.h"

#include "canvas.h"

#include <stdio.h>

/* Units in increasing size: the labels use the largest one not larger than the step. */
static const struct {
    FennelTime ps;
    const char *name;
} units[] = {
    {1, "ps"}, {1000, "ns"}, {1000000, "µs"}, {1000000000, "ms"}, {1000000000000, "s"},
};

FennelTime fennel_axis_ceil(FennelTime t, FennelTime step)
{
    FennelTime q = t / step;
    if (q * step < t)
        q++;
    return q * step;
}

char *fennel_axis_label(const FennelAxis *axis, FennelTime t, char buf[32])
{
    snprintf(buf, 32, "%" G_GINT64_FORMAT, t / axis->unit);
    return buf;
}

static void set_unit(FennelAxis *axis)
{
    axis->unit = units[0].ps;
    axis->unit_name = units[0].name;
    for (size_t i = 0; i < G_N_ELEMENTS(units); i++) {
        if (units[i].ps <= axis->step) {
            axis->unit = units[i].ps;
            axis->unit_name = units[i].name;
        }
    }
}

void fennel_axis_choose(FennelTime start, FennelTime end, double pixels, double font_size,
                        FennelAxis *axis)
{
    const double span = (double)(end - start);
    const double px_per_ps = pixels / span;
    static const int leading[] = {1, 2, 5};
    FennelTime power = 1;
    for (;;) {
        for (size_t i = 0; i < G_N_ELEMENTS(leading); i++) {
            FennelTime step = leading[i] * power;
            axis->step = step;
            set_unit(axis);
            /* The widest label is the one at the far end; keep a gap of two label
             * heights between neighbours. */
            char buf[32];
            double label = fennel_canvas_text_width(
                fennel_axis_label(axis, fennel_axis_ceil(end, step), buf), font_size, FALSE);
            if (step * px_per_ps >= label + 2 * font_size || power > INT64_MAX / 100) {
                /* Minor ticks split a step into 5 (steps 1 and 5) or 4 (step 2) when
                 * they stay at least 5 pixels apart. */
                FennelTime minor = leading[i] == 2 ? step / 4 : step / 5;
                axis->minor = (minor > 0 && minor * px_per_ps >= 5) ? minor : step;
                return;
            }
        }
        power *= 10;
    }
}
