/* Schedules to programs: the stage logic shared by the recursive-doubling and
 * recursive-multiplying AllReduce and AllGather generators. */
#include "recursive_multiplying.h"

#include "errors.h"
#include "heuristic.h"
#include "stages.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    FennelStages *st;
    const FennelSchedule *s;
    gboolean reducing;
    int64_t size;
    uint32_t ranks;
    /* AllGather only: contributions each rank holds, and what it gains in the open
     * stage (-1: the whole result, as an expand or an inverse merge delivers it). */
    int64_t *held;
    int64_t *gain;
    GArray *touched;
} Build;

static void put(Build *b, uint32_t src, uint32_t dst, gboolean result)
{
    if (b->reducing) {
        fennel_stages_put(b->st, src, dst, b->size);
        return;
    }
    int64_t blocks = b->held[src];
    fennel_stages_put(b->st, src, dst, blocks * b->size);
    if (b->gain[dst] == 0)
        g_array_append_val(b->touched, dst);
    if (result)
        b->gain[dst] = -1;
    else if (b->gain[dst] >= 0)
        b->gain[dst] += blocks;
}

static void close_stage(Build *b)
{
    fennel_stages_close(b->st, b->reducing);
    if (b->reducing)
        return;
    const uint32_t *t = (const uint32_t *)b->touched->data;
    for (guint i = 0; i < b->touched->len; i++) {
        uint32_t r = t[i];
        b->held[r] = b->gain[r] < 0 ? b->ranks : b->held[r] + b->gain[r];
        b->gain[r] = 0;
    }
    g_array_set_size(b->touched, 0);
}

/* The aF puts of working ranks act[0..m-1] with stage mask `mask`. */
static void factor_puts(Build *b, const uint32_t *act, uint32_t m, uint32_t f, uint64_t mask)
{
    uint64_t sbase = f * mask;
    for (uint64_t w = 0; w < m; w++) {
        uint64_t block = w / sbase * sbase;
        for (uint64_t j = 1; j < f; j++)
            put(b, act[w], act[block + (w + j * mask) % sbase], FALSE);
    }
}

static void run_block(Build *b, uint32_t lo, uint32_t hi, const uint32_t *act, uint32_t m);

static void run_collapse(Build *b, uint32_t lo, uint32_t hi, const uint32_t *act, uint32_t m)
{
    uint32_t t = b->s->stages[lo].threshold, base = b->s->stages[lo].base, groups = t / base;
    for (uint32_t w = 0; w < t; w++) {
        if (w % base != base - 1)
            put(b, act[w], act[w / base * base + base - 1], FALSE);
    }
    close_stage(b);
    uint32_t inner_m = m - t + groups;
    uint32_t *inner = g_new(uint32_t, inner_m);
    for (uint32_t i = 0; i < groups; i++)
        inner[i] = act[i * base + base - 1];
    for (uint32_t w = t; w < m; w++)
        inner[groups + w - t] = act[w];
    run_block(b, lo + 1, hi - 1, inner, inner_m);
    g_free(inner);
    for (uint32_t i = 0; i < groups; i++) {
        for (uint32_t j = 0; j + 1 < base; j++)
            put(b, act[i * base + base - 1], act[i * base + j], TRUE);
    }
    close_stage(b);
}

static void run_merge(Build *b, uint32_t lo, uint32_t hi, const uint32_t *act, uint32_t m)
{
    const FennelStage *ms = &b->s->stages[lo], *ns = &b->s->stages[hi - 1];
    uint32_t r = ms->remainder, core_m = m - r;
    const uint32_t *core = act + r;

    /* The merge: the core's first aF, and each remainder's multicast to its group. */
    factor_puts(b, core, core_m, ms->factor, 1);
    for (uint32_t k = 0; k < r; k++) {
        uint64_t first = (uint64_t)(k % ms->groups) * ms->factor;
        for (uint32_t j = 0; j < ms->factor; j++)
            put(b, act[k], core[first + j], FALSE);
    }
    close_stage(b);
    uint64_t mask = ms->factor;
    for (uint32_t i = lo + 1; i + 1 < hi; i++) {
        factor_puts(b, core, core_m, b->s->stages[i].factor, mask);
        close_stage(b);
        mask *= b->s->stages[i].factor;
    }

    /* The inverse merge: the core's last aF (mask = G), and each exchange group's
     * pre-stage partials to the remainders of its residue. A rank's puts to its peers
     * come before those to remainders. */
    factor_puts(b, core, core_m, ns->factor, mask);
    for (uint32_t w = 0; w < core_m; w++) {
        for (uint32_t k = w % ns->groups; k < r; k += ns->groups)
            put(b, core[w], act[k], TRUE);
    }
    close_stage(b);
}

static void run_block(Build *b, uint32_t lo, uint32_t hi, const uint32_t *act, uint32_t m)
{
    if (lo == hi)
        return;
    if (b->s->stages[lo].kind == FENNEL_STAGE_COLLAPSE) {
        run_collapse(b, lo, hi, act, m);
        return;
    }
    if (b->s->stages[lo].kind == FENNEL_STAGE_MERGE) {
        run_merge(b, lo, hi, act, m);
        return;
    }
    uint64_t mask = 1;
    for (uint32_t i = lo; i < hi; i++) {
        factor_puts(b, act, m, b->s->stages[i].factor, mask);
        close_stage(b);
        mask *= b->s->stages[i].factor;
    }
}

FennelProgram *fennel_rm_program(const FennelSchedule *s, uint32_t ranks, int64_t size,
                                 gboolean reducing, GError **error)
{
    FennelGenOptions o;
    fennel_gen_options_init(&o);
    return fennel_rm_program_for(s, ranks, size, reducing, &o, error);
}

FennelProgram *fennel_rm_program_for(const FennelSchedule *s, uint32_t ranks, int64_t size,
                                     gboolean reducing, const FennelGenOptions *o, GError **error)
{
    /* A put carries at most every rank's contribution, and a compute at most one
     * message from every rank, so size x ranks bounds every amount. */
    if (size > 0 && (uint64_t)size > (uint64_t)INT64_MAX / ranks) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                    "--size %" G_GINT64_FORMAT " B is too large for %u ranks: sizes would "
                    "overflow",
                    size, ranks);
        return NULL;
    }
    Build b = {.st = fennel_gen_stages(o, ranks),
               .s = s,
               .reducing = reducing,
               .size = size,
               .ranks = ranks};
    if (!reducing) {
        b.held = g_new(int64_t, ranks);
        b.gain = g_new0(int64_t, ranks);
        b.touched = g_array_new(FALSE, FALSE, sizeof(uint32_t));
        for (uint32_t r = 0; r < ranks; r++)
            b.held[r] = 1;
    }
    uint32_t *act = g_new(uint32_t, ranks);
    for (uint32_t r = 0; r < ranks; r++)
        act[r] = r;
    run_block(&b, 0, s->n_stages, act, ranks);
    g_free(act);
    if (!reducing) {
        g_free(b.held);
        g_free(b.gain);
        g_array_free(b.touched, TRUE);
    }
    return fennel_stages_finish(b.st, reducing, error);
}

char *fennel_rm_schedule_reason(const FennelSchedule *s, const char *text, double machine_ratio)
{
    char *notation = fennel_schedule_format(s);
    char *reason;
    if (text == NULL || g_strcmp0(text, "heuristic") == 0)
        reason =
            g_strdup_printf("%s (heuristic, ratio alpha_p/alpha_r %g)", notation, machine_ratio);
    else if (g_str_has_prefix(text, "heuristic:"))
        reason = g_strdup_printf("%s (heuristic, ratio %s given)", notation,
                                 text + strlen("heuristic:"));
    else if (g_strcmp0(text, "rd") == 0)
        reason = g_strdup_printf("%s (recursive doubling)", notation);
    else
        reason = g_strdup(notation);
    g_free(notation);
    return reason;
}

FennelSchedule *fennel_rm_schedule(const char *generator, const char *text, uint32_t ranks,
                                   double machine_ratio, GError **error)
{
    FennelSchedule *s = NULL;
    if (g_strcmp0(text, "heuristic") == 0) {
        /* The ratio of the model the program will run under, whatever it is (0 and
         * infinity included: fennel_heuristic_ratio_for). */
        s = fennel_heuristic(ranks, machine_ratio);
    } else if (g_str_has_prefix(text, "heuristic:")) {
        const char *number = text + strlen("heuristic:");
        char *end;
        errno = 0;
        double c = g_ascii_strtod(number, &end);
        if (*number == '\0' || *end != '\0' || errno || !(c >= 0) || isinf(c)) {
            g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                        "%s: --schedule %s: expected heuristic:RATIO with a ratio "
                        "alpha_p/alpha_r >= 0, e.g. heuristic:2.911",
                        generator, text);
            return NULL;
        }
        s = fennel_heuristic(ranks, c);
    } else if (g_strcmp0(text, "rd") == 0) {
        s = fennel_schedule_recursive_doubling(ranks);
    } else {
        s = fennel_schedule_parse(text, error);
        if (s == NULL) {
            g_prefix_error(error, "%s: --schedule %s: ", generator, text);
            return NULL;
        }
    }
    if (!fennel_schedule_check(s, ranks, NULL, error)) {
        g_prefix_error(error, "%s: --schedule %s is impossible for %u ranks: ", generator, text,
                       ranks);
        fennel_schedule_free(s);
        return NULL;
    }
    return s;
}
