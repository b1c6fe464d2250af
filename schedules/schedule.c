/* The schedule notation: parsing, the structural check against a rank count, printing. */
#include "schedule.h"

#include "errors.h"

#include <string.h>

FennelSchedule *fennel_schedule_new(uint32_t n_stages)
{
    FennelSchedule *s = g_new0(FennelSchedule, 1);
    s->n_stages = n_stages;
    s->stages = g_new0(FennelStage, MAX(n_stages, 1));
    return s;
}

FennelSchedule *fennel_schedule_copy(const FennelSchedule *s)
{
    FennelSchedule *c = fennel_schedule_new(s->n_stages);
    memcpy(c->stages, s->stages, sizeof(FennelStage) * s->n_stages);
    return c;
}

void fennel_schedule_free(FennelSchedule *s)
{
    if (s == NULL)
        return;
    g_free(s->stages);
    g_free(s);
}

/* Reads a whole number at *p (at most UINT32_MAX - 1) and advances past it. */
static gboolean read_number(const char **p, uint32_t *out)
{
    const char *q = *p;
    uint64_t v = 0;
    if (!g_ascii_isdigit(*q))
        return FALSE;
    while (g_ascii_isdigit(*q)) {
        v = v * 10 + (uint64_t)(*q - '0');
        if (v >= UINT32_MAX)
            return FALSE;
        q++;
    }
    *p = q;
    *out = (uint32_t)v;
    return TRUE;
}

/* One stage: "F", "aF", "cTmB", "eTmB", "mRgGaF" or "nRgGaF". */
static gboolean parse_stage(const char *tok, FennelStage *st, const char **why)
{
    const char *p = tok;
    memset(st, 0, sizeof *st);
    *why = "is not aF, cTmB, eTmB, mRgGaF or nRgGaF";
    char kind = g_ascii_isdigit(*p) ? 'a' : *p++;
    switch (kind) {
    case 'a':
        st->kind = FENNEL_STAGE_FACTOR;
        if (!read_number(&p, &st->factor))
            return FALSE;
        break;
    case 'c':
    case 'e':
        st->kind = kind == 'c' ? FENNEL_STAGE_COLLAPSE : FENNEL_STAGE_EXPAND;
        if (!read_number(&p, &st->threshold) || *p++ != 'm' || !read_number(&p, &st->base))
            return FALSE;
        break;
    case 'm':
    case 'n':
        st->kind = kind == 'm' ? FENNEL_STAGE_MERGE : FENNEL_STAGE_UNMERGE;
        if (!read_number(&p, &st->remainder) || *p++ != 'g' || !read_number(&p, &st->groups) ||
            *p++ != 'a' || !read_number(&p, &st->factor))
            return FALSE;
        break;
    default:
        return FALSE;
    }
    if (*p != '\0')
        return FALSE;
    if (st->kind == FENNEL_STAGE_COLLAPSE || st->kind == FENNEL_STAGE_EXPAND) {
        if (st->base < 2) {
            *why = "needs a base B of at least 2";
            return FALSE;
        }
        return TRUE;
    }
    if (st->factor < 2) {
        *why = "needs a factor of at least 2";
        return FALSE;
    }
    if ((st->kind == FENNEL_STAGE_MERGE || st->kind == FENNEL_STAGE_UNMERGE) &&
        (st->remainder < 1 || st->groups < 1)) {
        *why = "needs a remainder R and groups G of at least 1";
        return FALSE;
    }
    return TRUE;
}

FennelSchedule *fennel_schedule_parse(const char *text, GError **error)
{
    char *body = g_strstrip(g_strdup(text));
    uint32_t remainder = 0;
    gboolean tuple = FALSE;
    if (body[0] == '(') {
        char *close = strrchr(body, ')');
        if (close == NULL) {
            g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT, "'(' without ')'");
            g_free(body);
            return NULL;
        }
        const char *after = close + 1;
        while (g_ascii_isspace(*after))
            after++;
        if (*after == '+') {
            after++;
            while (g_ascii_isspace(*after))
                after++;
            if (!read_number(&after, &remainder) || *after != '\0') {
                g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                            "expected a remainder after '+', as in (3,3)+2");
                g_free(body);
                return NULL;
            }
            tuple = TRUE;
        } else if (*after != '\0') {
            g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT, "unexpected '%s' after ')'",
                        after);
            g_free(body);
            return NULL;
        }
        *close = '\0';
        memmove(body, body + 1, strlen(body + 1) + 1);
        g_strstrip(body);
    } else if (body[0] == '\0') {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                    "empty schedule (write \"()\" for the schedule of one rank)");
        g_free(body);
        return NULL;
    }

    char **tokens = body[0] ? g_strsplit(body, ",", -1) : g_new0(char *, 1);
    uint32_t n = g_strv_length(tokens);
    FennelSchedule *s = fennel_schedule_new(n);
    for (uint32_t i = 0; i < n; i++) {
        const char *why;
        char *tok = g_strstrip(tokens[i]);
        if (!parse_stage(tok, &s->stages[i], &why)) {
            g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT, "stage %u '%s' %s", i + 1, tok,
                        why);
            fennel_schedule_free(s);
            s = NULL;
            break;
        }
    }
    g_strfreev(tokens);
    g_free(body);
    if (s == NULL || !tuple || remainder == 0)
        return s;

    /* "(f1,...,fk)+R": the merge around the factors. */
    uint32_t *factors = g_new(uint32_t, MAX(n, 1));
    for (uint32_t i = 0; i < n; i++) {
        if (s->stages[i].kind != FENNEL_STAGE_FACTOR) {
            g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                        "'(...)+R' takes factors only, as in (3,3)+2");
            g_free(factors);
            fennel_schedule_free(s);
            return NULL;
        }
        factors[i] = s->stages[i].factor;
    }
    fennel_schedule_free(s);
    s = NULL;
    uint64_t core = 1;
    for (uint32_t i = 0; i < n && core < UINT32_MAX; i++)
        core *= factors[i];
    if (n < 2)
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                    "a merged schedule needs at least two factors (thesis §5.4.2)");
    else if (core + remainder >= UINT32_MAX)
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT, "the schedule is too large");
    else
        s = fennel_schedule_factored(factors, n, remainder);
    g_free(factors);
    return s;
}

/* Appends the stage in the notation. */
static void append_stage(GString *out, const FennelStage *st)
{
    switch (st->kind) {
    case FENNEL_STAGE_FACTOR:
        g_string_append_printf(out, "a%u", st->factor);
        break;
    case FENNEL_STAGE_COLLAPSE:
    case FENNEL_STAGE_EXPAND:
        g_string_append_printf(out, "%c%um%u", st->kind == FENNEL_STAGE_COLLAPSE ? 'c' : 'e',
                               st->threshold, st->base);
        break;
    case FENNEL_STAGE_MERGE:
    case FENNEL_STAGE_UNMERGE:
        g_string_append_printf(out, "%c%ug%ua%u", st->kind == FENNEL_STAGE_MERGE ? 'm' : 'n',
                               st->remainder, st->groups, st->factor);
        break;
    }
}

static char *stage_text(const FennelStage *st)
{
    GString *out = g_string_new(NULL);
    append_stage(out, st);
    return g_string_free(out, FALSE);
}

char *fennel_schedule_format(const FennelSchedule *s)
{
    if (s->n_stages == 0)
        return g_strdup("()");
    GString *out = g_string_new(NULL);
    for (uint32_t i = 0; i < s->n_stages; i++) {
        if (i)
            g_string_append_c(out, ',');
        append_stage(out, &s->stages[i]);
    }
    return g_string_free(out, FALSE);
}

char *fennel_schedule_format_short(const FennelSchedule *s)
{
    uint32_t n = s->n_stages, remainder = 0;
    for (uint32_t i = 0; i < n; i++) {
        FennelStageKind k = s->stages[i].kind;
        gboolean ends = n >= 2 && ((i == 0 && k == FENNEL_STAGE_MERGE) ||
                                   (i == n - 1 && k == FENNEL_STAGE_UNMERGE));
        if (k != FENNEL_STAGE_FACTOR && !ends)
            return NULL;
    }
    if (n >= 2 && s->stages[0].kind == FENNEL_STAGE_MERGE) {
        if (s->stages[n - 1].kind != FENNEL_STAGE_UNMERGE)
            return NULL;
        remainder = s->stages[0].remainder;
    } else if (n >= 2 && s->stages[n - 1].kind == FENNEL_STAGE_UNMERGE) {
        return NULL;
    }
    GString *out = g_string_new("(");
    for (uint32_t i = 0; i < n; i++)
        g_string_append_printf(out, "%s%u", i ? "," : "", s->stages[i].factor);
    g_string_append_c(out, ')');
    if (remainder)
        g_string_append_printf(out, "+%u", remainder);
    return g_string_free(out, FALSE);
}

FennelSchedule *fennel_schedule_factored(const uint32_t *factors, uint32_t n, uint32_t remainder)
{
    FennelSchedule *s = fennel_schedule_new(n);
    uint32_t core = 1;
    for (uint32_t i = 0; i < n; i++) {
        s->stages[i] = (FennelStage){.kind = FENNEL_STAGE_FACTOR, .factor = factors[i]};
        core *= factors[i];
    }
    if (remainder && n >= 2) {
        s->stages[0].kind = FENNEL_STAGE_MERGE;
        s->stages[n - 1].kind = FENNEL_STAGE_UNMERGE;
        s->stages[0].remainder = s->stages[n - 1].remainder = remainder;
        s->stages[0].groups = core / factors[0];
        s->stages[n - 1].groups = core / factors[n - 1];
    }
    return s;
}

FennelSchedule *fennel_schedule_recursive_doubling(uint32_t ranks)
{
    uint32_t k = 0;
    while (k < 31 && (2u << k) <= ranks)
        k++;
    uint32_t pof2 = ranks ? 1u << k : 1, rem = ranks - pof2;
    if (ranks <= 1)
        return fennel_schedule_new(0);
    FennelSchedule *s = fennel_schedule_new(k + (rem ? 2 : 0));
    uint32_t i = 0;
    if (rem)
        s->stages[i++] =
            (FennelStage){.kind = FENNEL_STAGE_COLLAPSE, .threshold = 2 * rem, .base = 2};
    for (uint32_t j = 0; j < k; j++)
        s->stages[i++] = (FennelStage){.kind = FENNEL_STAGE_FACTOR, .factor = 2};
    if (rem)
        s->stages[i++] =
            (FennelStage){.kind = FENNEL_STAGE_EXPAND, .threshold = 2 * rem, .base = 2};
    return s;
}

/* The structural check, block by block. */
typedef struct {
    const FennelSchedule *s;
    uint32_t *active;
    GError **error;
} Check;

static void fail(Check *c, const char *format, ...) G_GNUC_PRINTF(2, 3);
static void fail(Check *c, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    char *msg = g_strdup_vprintf(format, args);
    va_end(args);
    g_set_error_literal(c->error, FENNEL_ERROR, FENNEL_ERROR_INPUT, msg);
    g_free(msg);
}

/* "4x3x2 = 24" for the factor stages lo..hi-1; *product saturates above UINT32_MAX. */
static char *product_text(const FennelSchedule *s, uint32_t lo, uint32_t hi, uint64_t *product)
{
    GString *out = g_string_new(NULL);
    uint64_t p = 1;
    for (uint32_t i = lo; i < hi; i++) {
        g_string_append_printf(out, "%s%u", i > lo ? "x" : "", s->stages[i].factor);
        p = MIN(p * s->stages[i].factor, (uint64_t)UINT32_MAX + 1);
    }
    if (hi - lo > 1)
        g_string_append_printf(out, " = %" G_GUINT64_FORMAT, p);
    *product = p;
    return g_string_free(out, FALSE);
}

/* Where a stage may not stand: inside a run of factor stages. */
static void misplaced(Check *c, uint32_t i)
{
    const FennelStage *st = &c->s->stages[i];
    char *t = stage_text(st);
    switch (st->kind) {
    case FENNEL_STAGE_COLLAPSE:
    case FENNEL_STAGE_MERGE:
        fail(c, "%s (stage %u) must open the schedule or directly follow a collapse", t, i + 1);
        break;
    case FENNEL_STAGE_EXPAND:
        fail(c, "%s (stage %u) has no matching collapse before it", t, i + 1);
        break;
    case FENNEL_STAGE_UNMERGE:
        fail(c, "%s (stage %u) has no matching merge before it", t, i + 1);
        break;
    case FENNEL_STAGE_FACTOR:
        break;
    }
    g_free(t);
}

static gboolean check_factors(Check *c, uint32_t lo, uint32_t hi, uint32_t m, const char *what)
{
    for (uint32_t i = lo; i < hi; i++) {
        if (c->s->stages[i].kind != FENNEL_STAGE_FACTOR) {
            misplaced(c, i);
            return FALSE;
        }
        if (c->active)
            c->active[i] = m;
    }
    uint64_t p;
    char *text = product_text(c->s, lo, hi, &p);
    gboolean ok = p == m;
    if (!ok && lo == hi)
        fail(c, "no stages for the %u %s", m, what);
    else if (!ok)
        fail(c, "the factors %s do not multiply to the %u %s", text, m, what);
    g_free(text);
    return ok;
}

static gboolean check_block(Check *c, uint32_t lo, uint32_t hi, uint32_t m, const char *what);

static gboolean check_collapse(Check *c, uint32_t lo, uint32_t hi, uint32_t m)
{
    const FennelStage *cs = &c->s->stages[lo], *es = &c->s->stages[hi - 1];
    char *ct = stage_text(cs), *et = stage_text(es);
    gboolean ok = FALSE;
    if (hi - lo < 2 || es->kind != FENNEL_STAGE_EXPAND)
        fail(c, "%s (stage %u) has no matching expand e%um%u at the end", ct, lo + 1, cs->threshold,
             cs->base);
    else if (es->threshold != cs->threshold || es->base != cs->base)
        fail(c, "%s (stage %u) does not match the collapse %s", et, hi, ct);
    else if (cs->threshold % cs->base != 0)
        fail(c, "%s: the threshold %u is not divisible by the base %u", ct, cs->threshold,
             cs->base);
    else if (cs->threshold > m)
        fail(c, "%s: the threshold %u exceeds the %u active ranks", ct, cs->threshold, m);
    else
        ok = TRUE;
    if (ok && c->active)
        c->active[lo] = c->active[hi - 1] = m;
    if (ok) {
        uint32_t inner = m - cs->threshold + cs->threshold / cs->base;
        char *what = g_strdup_printf("ranks active inside %s (%u - %u + %u/%u)", ct, m,
                                     cs->threshold, cs->threshold, cs->base);
        ok = check_block(c, lo + 1, hi - 1, inner, what);
        g_free(what);
    }
    g_free(ct);
    g_free(et);
    return ok;
}

static gboolean check_merge(Check *c, uint32_t lo, uint32_t hi, uint32_t m)
{
    const FennelStage *ms = &c->s->stages[lo], *ns = &c->s->stages[hi - 1];
    char *mt = stage_text(ms), *nt = stage_text(ns);
    gboolean ok = FALSE;
    uint64_t mcount = ms->remainder + (uint64_t)ms->groups * ms->factor;
    uint64_t ncount = ns->remainder + (uint64_t)ns->groups * ns->factor;
    if (hi - lo < 2 || ns->kind != FENNEL_STAGE_UNMERGE)
        fail(c, "%s (stage %u) has no matching inverse merge nRgGaF at the end", mt, lo + 1);
    else if (ns->remainder != ms->remainder)
        fail(c, "%s (stage %u) does not match the merge %s: the remainders differ", nt, hi, mt);
    else if (mcount != m)
        fail(c, "%s: R + G x F = %u + %ux%u = %" G_GUINT64_FORMAT ", not the %u active ranks", mt,
             ms->remainder, ms->groups, ms->factor, mcount, m);
    else if (ncount != m)
        fail(c, "%s: R + G x F = %u + %ux%u = %" G_GUINT64_FORMAT ", not the %u active ranks", nt,
             ns->remainder, ns->groups, ns->factor, ncount, m);
    else
        ok = TRUE;
    for (uint32_t i = lo + 1; ok && i + 1 < hi; i++) {
        if (c->s->stages[i].kind != FENNEL_STAGE_FACTOR) {
            char *t = stage_text(&c->s->stages[i]);
            fail(c, "%s (stage %u) cannot stand between a merge and its inverse merge", t, i + 1);
            g_free(t);
            ok = FALSE;
        }
    }
    if (ok) {
        uint64_t p;
        char *text = product_text(c->s, lo, hi, &p);
        uint32_t core = m - ms->remainder;
        if (p != core) {
            fail(c, "the core factors %s do not multiply to the %u core ranks (%u - %u)", text,
                 core, m, ms->remainder);
            ok = FALSE;
        }
        g_free(text);
    }
    for (uint32_t i = lo; ok && c->active && i < hi; i++)
        c->active[i] = i == lo || i == hi - 1 ? m : m - ms->remainder;
    g_free(mt);
    g_free(nt);
    return ok;
}

static gboolean check_block(Check *c, uint32_t lo, uint32_t hi, uint32_t m, const char *what)
{
    if (lo < hi && c->s->stages[lo].kind == FENNEL_STAGE_COLLAPSE)
        return check_collapse(c, lo, hi, m);
    if (lo < hi && c->s->stages[lo].kind == FENNEL_STAGE_MERGE)
        return check_merge(c, lo, hi, m);
    return check_factors(c, lo, hi, m, what);
}

gboolean fennel_schedule_check(const FennelSchedule *s, uint32_t ranks, uint32_t *active,
                               GError **error)
{
    Check c = {s, active, error};
    return check_block(&c, 0, s->n_stages, ranks, "ranks");
}

uint64_t fennel_schedule_messages(const FennelSchedule *s, uint32_t ranks)
{
    uint32_t *active = g_new(uint32_t, MAX(s->n_stages, 1));
    uint64_t total = 0;
    if (!fennel_schedule_check(s, ranks, active, NULL)) {
        g_free(active);
        return 0;
    }
    for (uint32_t i = 0; i < s->n_stages; i++) {
        const FennelStage *st = &s->stages[i];
        uint64_t m = active[i];
        switch (st->kind) {
        case FENNEL_STAGE_FACTOR:
            total += m * (st->factor - 1);
            break;
        case FENNEL_STAGE_COLLAPSE:
        case FENNEL_STAGE_EXPAND:
            total += (uint64_t)(st->threshold / st->base) * (st->base - 1);
            break;
        case FENNEL_STAGE_MERGE:
        case FENNEL_STAGE_UNMERGE:
            total += (m - st->remainder) * (st->factor - 1) + (uint64_t)st->remainder * st->factor;
            break;
        }
    }
    g_free(active);
    return total;
}
