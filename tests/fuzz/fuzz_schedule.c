/* libFuzzer harness: the schedule notation (schedules/schedule.h). The input is a
 * schedule, optionally preceded by a rank count and a blank ("11 m2g3a3,n2g3a3"); without
 * one, the rank count the schedule's structure implies is tried. A schedule prints in
 * the notation and parses back to itself. One that is valid for at most 64 ranks is
 * built as an AllReduce and an AllGather: the AllReduce must send the messages
 * fennel_schedule_messages counts, both must pass the collective checker (any schedule
 * of the notation performs its collective), and the AllReduce is simulated. */
#include "fuzz_program.h"

#include "generator.h"
#include "recursive_multiplying.h"
#include "schedule.h"
#include "verify.h"

#include <stdlib.h>
#include <string.h>

#define MAX_BUILT_RANKS 64

/* The rank count a schedule's structure implies (see schedule.h), saturating. */
static uint64_t implied_ranks(const FennelSchedule *s, uint32_t lo, uint32_t hi)
{
    if (lo >= hi)
        return 1;
    const FennelStage *first = &s->stages[lo];
    if (first->kind == FENNEL_STAGE_COLLAPSE && first->base > 0)
        return implied_ranks(s, lo + 1, hi - 1) + first->threshold - first->threshold / first->base;
    if (first->kind == FENNEL_STAGE_MERGE)
        return first->remainder + (uint64_t)first->groups * first->factor;
    uint64_t product = 1;
    for (uint32_t i = lo; i < hi && product <= UINT32_MAX; i++)
        product *= MAX(s->stages[i].factor, 1);
    return product;
}

static gboolean same(const FennelSchedule *a, const FennelSchedule *b)
{
    return a->n_stages == b->n_stages &&
           memcmp(a->stages, b->stages, sizeof(FennelStage) * a->n_stages) == 0;
}

static void reparse(const FennelSchedule *s, char *text, const char *what)
{
    if (text == NULL)
        return;
    GError *error = NULL;
    FennelSchedule *again = fennel_schedule_parse(text, &error);
    if (again == NULL || !same(s, again))
        fuzz_fail("the %s form '%s' does not parse back to the schedule (%s)", what, text,
                  error ? error->message : "different stages");
    fennel_schedule_free(again);
    g_free(text);
}

static void build(const FennelSchedule *s, uint32_t ranks)
{
    GError *error = NULL;
    FennelGenOptions o;
    fennel_gen_options_init(&o);
    o.limits = &fuzz_limits;
    FennelProgram *p = fennel_rm_program_for(s, ranks, 8, TRUE, &o, &error);
    if (p == NULL)
        fuzz_fail("a checked schedule does not build an AllReduce: %s", error->message);
    FennelProgramStats stats;
    fennel_program_stats(p, &stats);
    uint64_t expected = fennel_schedule_messages(s, ranks);
    if (stats.messages != expected)
        fuzz_fail("the AllReduce sends %" G_GUINT64_FORMAT
                  " messages, the count says %" G_GUINT64_FORMAT,
                  stats.messages, expected);
    if (!fennel_verify_within(p, FENNEL_COLLECTIVE_ALLREDUCE, 0, &fuzz_limits, NULL, &error))
        fuzz_fail("the AllReduce of a valid schedule fails the checker: %s", error->message);
    FennelModel m;
    fuzz_model(&m, 1);
    if (p->n_tasks <= FUZZ_MAX_TASKS && fuzz_simulate(p, &m, 0, FALSE) < 0)
        fuzz_fail("the AllReduce of a valid schedule does not run");
    fennel_model_clear(&m);
    fennel_program_free(p);

    p = fennel_rm_program_for(s, ranks, 8, FALSE, &o, &error);
    if (p == NULL)
        fuzz_fail("a checked schedule does not build an AllGather: %s", error->message);
    if (!fennel_verify_within(p, FENNEL_COLLECTIVE_ALLGATHER, 0, &fuzz_limits, NULL, &error))
        fuzz_fail("the AllGather of a valid schedule fails the checker: %s", error->message);
    fennel_program_free(p);
}

static void try_ranks(const FennelSchedule *s, uint64_t ranks)
{
    if (ranks == 0 || ranks >= UINT32_MAX)
        return;
    GError *error = NULL;
    uint32_t *active = g_new0(uint32_t, MAX(s->n_stages, 1));
    if (fennel_schedule_check(s, (uint32_t)ranks, active, &error)) {
        /* The short form is only meant for valid schedules. */
        reparse(s, fennel_schedule_format_short(s), "short");
        if (ranks <= MAX_BUILT_RANKS)
            build(s, (uint32_t)ranks);
    } else {
        fuzz_check_message(error, NULL);
        g_error_free(error);
    }
    g_free(active);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_setup();
    /* The notation comes from the command line, which GOption has checked to be UTF-8;
     * line breaks and other control characters do not occur there either. */
    if (!g_utf8_validate((const char *)data, (gssize)size, NULL))
        return 0;
    for (size_t i = 0; i < size; i++) {
        if (data[i] < 0x20)
            return 0;
    }
    char *text = g_strndup((const char *)data, size);
    const char *spec = text;
    uint64_t given = 0;
    if (g_ascii_isdigit(text[0]) && strchr(text, ' ')) {
        char *end;
        given = g_ascii_strtoull(text, &end, 10);
        if (*end == ' ')
            spec = end + 1;
        else
            given = 0;
    }
    GError *error = NULL;
    FennelSchedule *s = fennel_schedule_parse(spec, &error);
    if (s == NULL) {
        fuzz_check_message(error, NULL);
        g_clear_error(&error);
    } else {
        reparse(s, fennel_schedule_format(s), "printed");
        try_ranks(s, given);
        uint64_t implied = implied_ranks(s, 0, s->n_stages);
        if (implied != given)
            try_ranks(s, implied);
        fennel_schedule_free(s);
    }
    /* Through the generator, which also takes names ("rd", "heuristic"). */
    if (given > 0 && given <= MAX_BUILT_RANKS) {
        FennelGenOptions o;
        fennel_gen_options_init(&o);
        o.ranks = (uint32_t)given;
        o.schedule = spec;
        o.given = FENNEL_GEN_RANKS | FENNEL_GEN_SCHEDULE;
        o.limits = &fuzz_limits;
        FennelProgram *p = fennel_generate(fennel_generator_find("allreduce-rm"), &o, &error);
        if (p == NULL) {
            fuzz_check_message(error, "allreduce-rm: --schedule ");
            g_clear_error(&error);
        } else {
            if (!fennel_verify_within(p, FENNEL_COLLECTIVE_ALLREDUCE, 0, &fuzz_limits, NULL,
                                      &error))
                fuzz_fail("allreduce-rm --schedule '%s' fails the checker: %s", spec,
                          error->message);
            fennel_program_free(p);
        }
    }
    g_free(text);
    return 0;
}
