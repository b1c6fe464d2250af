/* The descriptions of slow ranks and failing links (faults.h): their keys, as the model
 * file's sections and `--set` give them, their text and JSON, and the seeded draw that
 * picks ranks and links for a run. */
#include "faults.h"

#include "errors.h"
#include "json.h"
#include "model_private.h"

#include <string.h>

/* ---- numbers ---- */

char *fennel_format_millionths(int64_t v, char buf[32])
{
    g_snprintf(buf, 32, "%" G_GINT64_FORMAT ".%06" G_GINT64_FORMAT, v / FENNEL_MILLION,
               v % FENNEL_MILLION);
    char *end = buf + strlen(buf);
    while (end[-1] == '0')
        *--end = '\0';
    if (end[-1] == '.')
        end[-1] = '\0';
    return buf;
}

/* A decimal of at most six places within [min, max] (millionths). */
static gboolean parse_millionths(const char *text, int64_t min, int64_t max, int64_t *out,
                                 const char **why)
{
    const char *s = text;
    while (g_ascii_isspace(*s))
        s++;
    int64_t whole = 0, part = 0;
    int digits = 0, decimals = 0;
    for (; g_ascii_isdigit(*s); s++, digits++) {
        if (whole > INT64_MAX / 100 / FENNEL_MILLION) {
            *why = "value is out of range";
            return FALSE;
        }
        whole = whole * 10 + (*s - '0');
    }
    if (*s == '.') {
        for (s++; g_ascii_isdigit(*s); s++, decimals++) {
            if (decimals == 6) {
                *why = "at most six decimals";
                return FALSE;
            }
            part = part * 10 + (*s - '0');
        }
    }
    while (g_ascii_isspace(*s))
        s++;
    if (digits + decimals == 0 || *s != '\0') {
        *why = "expected a number";
        return FALSE;
    }
    for (int i = decimals; i < 6; i++)
        part *= 10;
    const int64_t v = whole * FENNEL_MILLION + part;
    if (v < min || v > max) {
        *why = "value is out of range";
        return FALSE;
    }
    *out = v;
    return TRUE;
}

/* The items of a list written "3 7", "3,7" or "[3, 7]". */
static char **list_items(const char *text)
{
    char *copy = g_strstrip(g_strdup(text));
    char *s = copy;
    size_t n = strlen(s);
    if (n >= 2 && s[0] == '[' && s[n - 1] == ']') {
        s[n - 1] = '\0';
        s++;
    }
    g_strdelimit(s, ",\t\n", ' ');
    char **parts = g_strsplit(s, " ", -1);
    GPtrArray *items = g_ptr_array_new();
    for (char **p = parts; *p; p++) {
        if (**p)
            g_ptr_array_add(items, g_strdup(*p));
    }
    g_ptr_array_add(items, NULL);
    g_strfreev(parts);
    g_free(copy);
    return (char **)g_ptr_array_free(items, FALSE);
}

static gboolean is_none(const char *text)
{
    char *s = g_strstrip(g_strdup(text));
    gboolean none = strcmp(s, "none") == 0 || strcmp(s, "") == 0 || strcmp(s, "[]") == 0;
    g_free(s);
    return none;
}

/* ---- stragglers ---- */

FennelStragglers *fennel_stragglers_new(void)
{
    FennelStragglers *s = g_new0(FennelStragglers, 1);
    s->fraction = -1;
    return s;
}

FennelStragglers *fennel_stragglers_copy(const FennelStragglers *s)
{
    if (s == NULL)
        return NULL;
    FennelStragglers *c = g_memdup2(s, sizeof *s);
    c->ranks = g_memdup2(s->ranks, sizeof *s->ranks * s->n_ranks);
    c->compute = g_memdup2(s->compute, sizeof *s->compute * s->n_compute);
    c->nic = g_memdup2(s->nic, sizeof *s->nic * s->n_nic);
    c->file = g_strdup(s->file);
    return c;
}

void fennel_stragglers_free(FennelStragglers *s)
{
    if (s == NULL)
        return;
    g_free(s->ranks);
    g_free(s->compute);
    g_free(s->nic);
    g_free(s->file);
    g_free(s);
}

/* A list of factors above 0. */
static gboolean set_factors(const char *key, const char *value, int64_t **out, uint32_t *n,
                            char **why)
{
    char **items = list_items(value);
    guint count = g_strv_length(items);
    int64_t *factors = g_new(int64_t, MAX(count, 1u));
    gboolean ok = count > 0;
    if (!ok)
        *why = g_strdup_printf("stragglers.%s: expected a factor (or one per listed rank)", key);
    for (guint i = 0; ok && i < count; i++) {
        const char *reason;
        if (!parse_millionths(items[i], 1, INT64_MAX, &factors[i], &reason)) {
            *why = g_strdup_printf("stragglers.%s: '%s': %s (a factor above 0, e.g. 2 or 1.5)", key,
                                   items[i], reason);
            ok = FALSE;
        }
    }
    g_strfreev(items);
    if (!ok) {
        g_free(factors);
        return FALSE;
    }
    g_free(*out);
    *out = factors;
    *n = count;
    return TRUE;
}

gboolean fennel_stragglers_set(FennelStragglers *s, const char *key, const char *value,
                               gboolean *unknown_key, char **why)
{
    *unknown_key = FALSE;
    if (strcmp(key, "ranks") == 0) {
        if (is_none(value)) {
            g_clear_pointer(&s->ranks, g_free);
            s->n_ranks = 0;
            return TRUE;
        }
        char **items = list_items(value);
        guint count = g_strv_length(items);
        uint32_t *ranks = g_new(uint32_t, MAX(count, 1u));
        GHashTable *seen = g_hash_table_new(g_direct_hash, g_direct_equal);
        gboolean ok = TRUE;
        for (guint i = 0; ok && i < count; i++) {
            int64_t v;
            const char *reason;
            if (!fennel_parse_int(items[i], 0, UINT32_MAX - 2, &v, &reason)) {
                *why =
                    g_strdup_printf("stragglers.ranks: '%s': %s (a rank number)", items[i], reason);
                ok = FALSE;
            } else if (!g_hash_table_add(seen, GUINT_TO_POINTER((guint)v + 1))) {
                *why = g_strdup_printf("stragglers.ranks: rank %s is listed twice", items[i]);
                ok = FALSE;
            }
            ranks[i] = (uint32_t)v;
        }
        g_hash_table_destroy(seen);
        g_strfreev(items);
        if (!ok) {
            g_free(ranks);
            return FALSE;
        }
        g_free(s->ranks);
        s->ranks = ranks;
        s->n_ranks = count;
        s->fraction = -1;
        return TRUE;
    }
    if (strcmp(key, "fraction") == 0) {
        const char *reason;
        int64_t v;
        if (!parse_millionths(value, 0, FENNEL_MILLION, &v, &reason)) {
            *why = g_strdup_printf("stragglers.fraction: %s (a fraction of the ranks, 0 to 1)",
                                   reason);
            return FALSE;
        }
        s->fraction = v;
        g_clear_pointer(&s->ranks, g_free);
        s->n_ranks = 0;
        return TRUE;
    }
    if (strcmp(key, "compute") == 0)
        return set_factors(key, value, &s->compute, &s->n_compute, why);
    if (strcmp(key, "nic") == 0)
        return set_factors(key, value, &s->nic, &s->n_nic, why);
    *unknown_key = TRUE;
    *why = g_strdup_printf("stragglers: unknown key '%s' (expected ranks, fraction, compute, nic)",
                           key);
    return FALSE;
}

gboolean fennel_stragglers_any(const FennelStragglers *s)
{
    return s && (s->n_ranks > 0 || s->fraction > 0);
}

char *fennel_stragglers_problem(const FennelStragglers *s)
{
    if (s->n_ranks == 0 && s->fraction < 0)
        return g_strdup("stragglers: give ranks (a list) or fraction (of the ranks, drawn by "
                        "the seed)");
    if (s->n_compute == 0 && s->n_nic == 0)
        return g_strdup("stragglers: give compute or nic (how many times slower)");
    const struct {
        const char *name;
        uint32_t n;
    } lists[] = {{"compute", s->n_compute}, {"nic", s->n_nic}};
    for (size_t i = 0; i < G_N_ELEMENTS(lists); i++) {
        if (lists[i].n > 1 && s->fraction >= 0)
            return g_strdup_printf("stragglers.%s: drawn ranks take one factor, not a list",
                                   lists[i].name);
        if (lists[i].n > 1 && lists[i].n != s->n_ranks)
            return g_strdup_printf("stragglers.%s: %u factors for %u ranks (give one, or one "
                                   "per rank)",
                                   lists[i].name, lists[i].n, s->n_ranks);
    }
    return NULL;
}

int64_t fennel_stragglers_compute(const FennelStragglers *s, uint32_t i)
{
    return s->n_compute == 0 ? FENNEL_MILLION : s->compute[s->n_compute == 1 ? 0 : i];
}

int64_t fennel_stragglers_nic(const FennelStragglers *s, uint32_t i)
{
    return s->n_nic == 0 ? FENNEL_MILLION : s->nic[s->n_nic == 1 ? 0 : i];
}

static void append_factors(GString *out, const char *name, const int64_t *v, uint32_t n)
{
    char buf[32];
    if (n == 0)
        return;
    g_string_append_printf(out, " %s=", name);
    for (uint32_t i = 0; i < n; i++)
        g_string_append_printf(out, "%s%s", i ? "," : "", fennel_format_millionths(v[i], buf));
}

char *fennel_stragglers_describe(const FennelStragglers *s)
{
    GString *out = g_string_new(NULL);
    char buf[32];
    if (s->fraction >= 0) {
        g_string_append_printf(out, "fraction=%s", fennel_format_millionths(s->fraction, buf));
    } else {
        g_string_append(out, "ranks=");
        for (uint32_t i = 0; i < s->n_ranks; i++)
            g_string_append_printf(out, "%s%u", i ? "," : "", s->ranks[i]);
    }
    append_factors(out, "compute", s->compute, s->n_compute);
    append_factors(out, "nic", s->nic, s->n_nic);
    return g_string_free(out, FALSE);
}

static void json_factors(GString *out, const char *name, const int64_t *v, uint32_t n)
{
    char buf[32];
    g_string_append_printf(out, ",\"%s\":[", name);
    for (uint32_t i = 0; i < n; i++)
        g_string_append_printf(out, "%s%s", i ? "," : "", fennel_format_millionths(v[i], buf));
    g_string_append_c(out, ']');
}

void fennel_stragglers_append_json(const FennelStragglers *s, GString *out)
{
    char buf[32];
    g_string_append(out, "{\"ranks\":");
    if (s->fraction >= 0) {
        g_string_append_printf(out, "null,\"fraction\":%s",
                               fennel_format_millionths(s->fraction, buf));
    } else {
        g_string_append_c(out, '[');
        for (uint32_t i = 0; i < s->n_ranks; i++)
            g_string_append_printf(out, "%s%u", i ? "," : "", s->ranks[i]);
        g_string_append(out, "],\"fraction\":null");
    }
    json_factors(out, "compute", s->compute, s->n_compute);
    json_factors(out, "nic", s->nic, s->n_nic);
    g_string_append_c(out, '}');
}

/* ---- faults ---- */

FennelFaults *fennel_faults_new(void)
{
    return g_new0(FennelFaults, 1);
}

static void clear_list(FennelFaults *f)
{
    for (uint32_t i = 0; i < f->n_list; i++)
        g_free(f->list[i].where);
    g_clear_pointer(&f->list, g_free);
    f->n_list = 0;
}

FennelFaults *fennel_faults_copy(const FennelFaults *f)
{
    if (f == NULL)
        return NULL;
    FennelFaults *c = g_memdup2(f, sizeof *f);
    c->list = g_memdup2(f->list, sizeof *f->list * f->n_list);
    for (uint32_t i = 0; i < f->n_list; i++)
        c->list[i].where = g_strdup(f->list[i].where);
    c->file = g_strdup(f->file);
    return c;
}

void fennel_faults_free(FennelFaults *f)
{
    if (f == NULL)
        return;
    clear_list(f);
    g_free(f->file);
    g_free(f);
}

/* Where a fault is: a link number, FROM>TO, or nodeN. Only the form is checked here; the
 * names are looked up in the network of a run. */
static gboolean where_ok(const char *w)
{
    const char *gt = strchr(w, '>');
    if (gt)
        return gt != w && gt[1] != '\0' && strchr(gt + 1, '>') == NULL;
    if (g_str_has_prefix(w, "node"))
        w += 4;
    if (*w == '\0')
        return FALSE;
    for (; *w; w++) {
        if (!g_ascii_isdigit(*w))
            return FALSE;
    }
    return TRUE;
}

/* One entry of a list: WHERE [from TIME] [bandwidth FACTOR]. */
static gboolean parse_fault(const char *entry, FennelFaultSpec *out, char **why)
{
    char **words = g_strsplit_set(entry, " \t\n", -1);
    GPtrArray *w = g_ptr_array_new();
    for (char **p = words; *p; p++) {
        if (**p)
            g_ptr_array_add(w, *p);
    }
    gboolean ok = w->len > 0 && where_ok(g_ptr_array_index(w, 0));
    if (!ok)
        *why = g_strdup_printf("faults.list: '%s': expected a link (its number or FROM>TO) or "
                               "a node's NIC (nodeN), then 'from TIME' or 'bandwidth FACTOR'",
                               entry);
    *out = (FennelFaultSpec){0};
    gboolean seen_from = FALSE, seen_bandwidth = FALSE;
    for (guint i = 1; ok && i < w->len; i += 2) {
        const char *word = g_ptr_array_index(w, i);
        const char *value = i + 1 < w->len ? g_ptr_array_index(w, i + 1) : NULL;
        const char *reason = "expected a value after it";
        if (strcmp(word, "from") == 0 && !seen_from) {
            seen_from = TRUE;
            ok = value && fennel_parse_duration(value, &out->from, &reason);
        } else if (strcmp(word, "bandwidth") == 0 && !seen_bandwidth) {
            seen_bandwidth = TRUE;
            ok = value && parse_millionths(value, 0, FENNEL_MILLION, &out->bandwidth, &reason);
            if (!ok && value)
                reason = "expected the fraction of its bandwidth it keeps, 0 (down) to 1";
        } else {
            ok = FALSE;
            reason = "expected 'from TIME' or 'bandwidth FACTOR', each at most once";
        }
        if (!ok)
            *why = g_strdup_printf("faults.list: '%s': %s: %s", entry, word, reason);
    }
    if (ok)
        out->where = g_strdup(g_ptr_array_index(w, 0));
    g_ptr_array_free(w, TRUE);
    g_strfreev(words);
    return ok;
}

gboolean fennel_faults_set(FennelFaults *f, const char *key, const char *value,
                           gboolean *unknown_key, char **why)
{
    *unknown_key = FALSE;
    const char *reason;
    if (strcmp(key, "list") == 0) {
        GArray *list = g_array_new(FALSE, FALSE, sizeof(FennelFaultSpec));
        gboolean ok = TRUE;
        if (!is_none(value)) {
            char **entries = g_strsplit(value, ";", -1);
            for (char **e = entries; *e && ok; e++) {
                char *entry = g_strstrip(g_strdup(*e));
                FennelFaultSpec spec;
                if (*entry == '\0') {
                    *why = g_strdup_printf("faults.list: an empty entry in '%s'", value);
                    ok = FALSE;
                } else if ((ok = parse_fault(entry, &spec, why))) {
                    g_array_append_val(list, spec);
                }
                g_free(entry);
            }
            g_strfreev(entries);
        }
        if (!ok) {
            for (guint i = 0; i < list->len; i++)
                g_free(g_array_index(list, FennelFaultSpec, i).where);
            g_array_free(list, TRUE);
            return FALSE;
        }
        clear_list(f);
        f->n_list = list->len;
        f->list = (FennelFaultSpec *)g_array_free(list, FALSE);
        return TRUE;
    }
    if (strcmp(key, "links") == 0 || strcmp(key, "nics") == 0) {
        if (!parse_millionths(value, 0, FENNEL_MILLION, key[0] == 'l' ? &f->links : &f->nics,
                              &reason)) {
            *why =
                g_strdup_printf("faults.%s: %s (a fraction of the %s, 0 to 1)", key, reason, key);
            return FALSE;
        }
        return TRUE;
    }
    if (strcmp(key, "from") == 0) {
        if (!fennel_parse_duration(value, &f->from, &reason)) {
            *why = g_strdup_printf("faults.from: %s", reason);
            return FALSE;
        }
        return TRUE;
    }
    if (strcmp(key, "bandwidth") == 0) {
        if (!parse_millionths(value, 0, FENNEL_MILLION, &f->bandwidth, &reason)) {
            *why = g_strdup_printf("faults.bandwidth: %s (the fraction of its bandwidth a failed "
                                   "link keeps, 0 (down) to 1)",
                                   reason);
            return FALSE;
        }
        return TRUE;
    }
    *unknown_key = TRUE;
    *why = g_strdup_printf("faults: unknown key '%s' (expected list, links, nics, from, "
                           "bandwidth)",
                           key);
    return FALSE;
}

gboolean fennel_faults_any(const FennelFaults *f)
{
    return f && (f->n_list > 0 || f->links > 0 || f->nics > 0);
}

char *fennel_faults_describe(const FennelFaults *f)
{
    GString *out = g_string_new(NULL);
    char a[FENNEL_TIME_BUF], b[32];
    if (f->n_list) {
        g_string_append(out, "list=");
        for (uint32_t i = 0; i < f->n_list; i++)
            g_string_append_printf(out, "%s%s from %sns bandwidth %s", i ? "; " : "",
                                   f->list[i].where, fennel_format_ns(f->list[i].from, a),
                                   fennel_format_millionths(f->list[i].bandwidth, b));
    }
    if (f->links || f->nics || f->n_list == 0) {
        g_string_append_printf(out, "%slinks=%s", f->n_list ? " " : "",
                               fennel_format_millionths(f->links, b));
        g_string_append_printf(out, " nics=%s", fennel_format_millionths(f->nics, b));
        g_string_append_printf(out, " from=%sns", fennel_format_ns(f->from, a));
        g_string_append_printf(out, " bandwidth=%s", fennel_format_millionths(f->bandwidth, b));
    }
    return g_string_free(out, FALSE);
}

void fennel_faults_append_json(const FennelFaults *f, GString *out)
{
    char a[FENNEL_TIME_BUF], b[32];
    g_string_append(out, "{\"list\":[");
    for (uint32_t i = 0; i < f->n_list; i++) {
        g_string_append_printf(out, "%s{\"where\":", i ? "," : "");
        fennel_json_string(out, f->list[i].where);
        g_string_append_printf(out, ",\"from_ns\":%s,\"bandwidth\":%s}",
                               fennel_format_ns(f->list[i].from, a),
                               fennel_format_millionths(f->list[i].bandwidth, b));
    }
    g_string_append_printf(out, "],\"links\":%s", fennel_format_millionths(f->links, b));
    g_string_append_printf(out, ",\"nics\":%s", fennel_format_millionths(f->nics, b));
    g_string_append_printf(out, ",\"from_ns\":%s", fennel_format_ns(f->from, a));
    g_string_append_printf(out, ",\"bandwidth\":%s}", fennel_format_millionths(f->bandwidth, b));
}

/* ---- the model file's sections ---- */

typedef gboolean (*SetFn)(void *target, const char *key, const char *value, gboolean *unknown_key,
                          char **why);

/* A mapping whose values are scalars or lists of scalars (joined with `join`), each set on
 * the target in the order written; `entries` keeps where each key was. */
static gboolean read_section(FennelYaml *y, const char *section, const char *join, void *target,
                             SetFn set, GArray *entries, GError **error)
{
    gboolean ok =
        fennel__model_read_entries(y, section, entries, FENNEL_ENTRIES_LISTS, join, error);
    for (guint i = 0; ok && i < entries->len; i++) {
        const FennelModelEntry *e = &g_array_index(entries, FennelModelEntry, i);
        char *why = NULL;
        gboolean unknown = FALSE;
        if (!set(target, e->key, e->value, &unknown, &why)) {
            fennel_error_at(error, y->file, unknown ? e->key_line : e->line,
                            unknown ? e->key_col : e->col, "%s", why);
            ok = FALSE;
        }
        g_free(why);
    }
    return ok;
}

static gboolean set_stragglers(void *target, const char *key, const char *value,
                               gboolean *unknown_key, char **why)
{
    return fennel_stragglers_set(target, key, value, unknown_key, why);
}

static gboolean set_faults(void *target, const char *key, const char *value, gboolean *unknown_key,
                           char **why)
{
    return fennel_faults_set(target, key, value, unknown_key, why);
}

gboolean fennel__model_read_stragglers(FennelYaml *y, FennelModel *m, GError **error)
{
    FennelStragglers **out = &m->stragglers;
    unsigned line = fennel_yaml_line(y), col = fennel_yaml_col(y);
    FennelStragglers *s = fennel_stragglers_new();
    GArray *places = fennel__model_entries_new();
    gboolean ok = read_section(y, "stragglers", " ", s, set_stragglers, places, error);
    char *why = ok ? fennel_stragglers_problem(s) : NULL;
    if (why) {
        /* at the key the problem names ("stragglers.KEY: ..."), else at the section */
        const FennelModelEntry *at = NULL;
        if (g_str_has_prefix(why, "stragglers.")) {
            const char *key = why + strlen("stragglers.");
            char *name = g_strndup(key, strcspn(key, ":"));
            at = fennel__model_entry_find(places, name);
            g_free(name);
        }
        fennel_error_at(error, y->file, at ? at->key_line : line, at ? at->key_col : col, "%s",
                        why);
        g_free(why);
        ok = FALSE;
    }
    /* Ranks beyond the program's are found when it runs: reported at `ranks`. */
    const FennelModelEntry *ranks = fennel__model_entry_find(places, "ranks");
    if (ranks) {
        line = ranks->key_line;
        col = ranks->key_col;
    }
    g_array_free(places, TRUE);
    if (!ok) {
        fennel_stragglers_free(s);
        return FALSE;
    }
    s->file = g_strdup(y->file);
    s->line = line;
    s->col = col;
    fennel_stragglers_free(*out);
    *out = s;
    return TRUE;
}

gboolean fennel__model_read_faults(FennelYaml *y, FennelModel *m, GError **error)
{
    FennelFaults **out = &m->faults;
    unsigned line = fennel_yaml_line(y), col = fennel_yaml_col(y);
    FennelFaults *f = fennel_faults_new();
    GArray *places = fennel__model_entries_new();
    gboolean ok = read_section(y, "faults", "; ", f, set_faults, places, error);
    /* Links and nodes the network does not have are found when it is built: at `list`. */
    const FennelModelEntry *list = fennel__model_entry_find(places, "list");
    if (list) {
        line = list->key_line;
        col = list->key_col;
    }
    g_array_free(places, TRUE);
    if (!ok) {
        fennel_faults_free(f);
        return FALSE;
    }
    f->file = g_strdup(y->file);
    f->line = line;
    f->col = col;
    fennel_faults_free(*out);
    *out = f;
    return TRUE;
}

/* ---- the draw ---- */

static uint64_t mix(uint64_t seed, uint64_t stream, uint64_t i)
{
    uint64_t x = seed ^ (stream * 0xd1b54a32d192ed03ull);
    x += (i + 1) * 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static int compare_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

void fennel_draw(uint64_t seed, uint64_t stream, uint32_t k, uint32_t n, uint32_t *out)
{
    g_return_if_fail(k <= n);
    GHashTable *chosen = g_hash_table_new(g_direct_hash, g_direct_equal);
    uint32_t count = 0;
    for (uint64_t j = (uint64_t)n - k; j < n; j++) {
        /* uniform in 0 .. j */
        uint32_t t = (uint32_t)(((unsigned __int128)mix(seed, stream, j) * (j + 1)) >> 64);
        if (g_hash_table_contains(chosen, GUINT_TO_POINTER(t + 1)))
            t = (uint32_t)j;
        g_hash_table_add(chosen, GUINT_TO_POINTER(t + 1));
        out[count++] = t;
    }
    g_hash_table_destroy(chosen);
    qsort(out, count, sizeof *out, compare_u32);
}
