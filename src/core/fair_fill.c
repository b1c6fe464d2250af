/* Progressive filling (fair_fill.h). */
#include "fair_fill.h"

#include <glib.h>
#include <math.h>
#include <string.h>

struct FennelFairFill {
    uint32_t room;       /* entries of the arrays below */
    double *left;        /* per link: capacity not yet given out */
    uint32_t *count;     /* per link: unfixed flows crossing it */
    uint8_t *bottleneck; /* per link */
    GArray *touched;     /* links with flows */
};

FennelFairFill *fennel_fair_fill_new(void)
{
    FennelFairFill *s = g_new0(FennelFairFill, 1);
    s->touched = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    return s;
}

void fennel_fair_fill_free(FennelFairFill *s)
{
    if (s == NULL)
        return;
    g_free(s->left);
    g_free(s->count);
    g_free(s->bottleneck);
    g_array_free(s->touched, TRUE);
    g_free(s);
}

static void make_room(FennelFairFill *s, uint32_t n)
{
    if (n <= s->room)
        return;
    uint32_t room = MAX(MAX(2 * s->room, n), 64u);
    s->left = g_renew(double, s->left, room);
    s->count = g_renew(uint32_t, s->count, room);
    s->bottleneck = g_renew(uint8_t, s->bottleneck, room);
    memset(s->count + s->room, 0, (room - s->room) * sizeof *s->count);
    memset(s->bottleneck + s->room, 0, room - s->room);
    s->room = room;
}

void fennel_fair_fill(FennelFairFill *s, const double *capacity, uint32_t n_capacity,
                      const FennelFairPath *paths, uint32_t n_flows, double *rate)
{
    make_room(s, n_capacity);
    g_array_set_size(s->touched, 0);
    guint unfixed = 0;
    for (uint32_t i = 0; i < n_flows; i++) {
        rate[i] = paths[i].n_links > 0 ? -1 : INFINITY;
        unfixed += paths[i].n_links > 0;
        for (uint32_t k = 0; k < paths[i].n_links; k++) {
            uint32_t l = paths[i].links[k];
            if (s->count[l]++ == 0) {
                s->left[l] = capacity[l];
                g_array_append_val(s->touched, l);
            }
        }
    }
    while (unfixed > 0) {
        double level = G_MAXDOUBLE;
        for (guint i = 0; i < s->touched->len; i++) {
            uint32_t l = g_array_index(s->touched, uint32_t, i);
            if (s->count[l] > 0)
                level = MIN(level, s->left[l] / s->count[l]);
        }
        for (guint i = 0; i < s->touched->len; i++) {
            uint32_t l = g_array_index(s->touched, uint32_t, i);
            s->bottleneck[l] = s->count[l] > 0 && s->left[l] / s->count[l] <= level * (1 + 1e-12);
        }
        for (uint32_t i = 0; i < n_flows; i++) {
            if (rate[i] >= 0)
                continue;
            gboolean fix = FALSE;
            for (uint32_t k = 0; k < paths[i].n_links && !fix; k++)
                fix = s->bottleneck[paths[i].links[k]];
            if (!fix)
                continue;
            rate[i] = level;
            unfixed--;
            for (uint32_t k = 0; k < paths[i].n_links; k++) {
                uint32_t l = paths[i].links[k];
                s->left[l] = MAX(s->left[l] - level, 0.0);
                s->count[l]--;
            }
        }
    }
    for (guint i = 0; i < s->touched->len; i++) {
        uint32_t l = g_array_index(s->touched, uint32_t, i);
        s->count[l] = 0;
        s->bottleneck[l] = 0;
    }
}
