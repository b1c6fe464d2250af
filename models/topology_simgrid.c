/* SimGrid platform files (docs/TOPOLOGY.md, SimGrid platforms): XML of version 4.1 with one
 * `<zone routing="Full">` of hosts, links and routes, or one flat `<cluster>`, read with
 * GLib's GMarkup into a graph (topology_graph_private.h).
 *
 * A SimGrid link is a resource that routes list, not a wire between two points. Here each
 * link (each direction of a SPLITDUPLEX one) becomes one directed link, whose two ends are
 * found from the routes: the end of one link of a route is the start of the next, a route
 * starts at its source host and ends at its destination. The ends that meet are one vertex:
 * a host, or a switch named after a link that ends there. A route's switches forward its
 * messages by destination, as the file's routes would in a graph file. A SHARED link crossed
 * both ways becomes a core and joints (expand_both_ways). What does not fit (a SPLITDUPLEX
 * direction that would go both ways, a route through a host, two routes to one host that
 * leave a switch by different links) is refused with its place in the file. */
#include "errors.h"
#include "topology_graph_private.h"

#include <string.h>

typedef enum { SHARED, SPLITDUPLEX } Policy;

/* A link of the file: one resource (SHARED) or two (SPLITDUPLEX: r and r + 1, UP and
 * DOWN). */
typedef struct {
    char *id;
    unsigned line, col;
    FennelTime latency;
    FennelRate rate;
    Policy policy;
    uint32_t resource;
} Link;

/* A route of the file, its links as resources. */
typedef struct {
    uint32_t src, dst;
    gboolean symmetrical;
    unsigned line, col;
    GArray *hops; /* resources, in order */
} Route;

typedef struct {
    const char *file, *data;
    gsize length;
    const char *line_start; /* position's cursor: a line's start and its number */
    unsigned line_no;
    GMarkupParseContext *ctx;
    const char *element; /* the element being read */
    GPtrArray *hosts;    /* names */
    GArray *host_pos;    /* (line, col) */
    GHashTable *host_index, *link_index;
    GArray *links;  /* Link */
    GArray *routes; /* Route */
    uint32_t resources;
    GPtrArray *resource_names; /* "l", or "l_UP", "l_DOWN" */
    /* where we are */
    gboolean platform, zone, cluster, done;
    Route *route; /* the route being read */
    unsigned zone_line, zone_col;
} Parse;

/* The line and column of the '<' that opens the element being read: GMarkup gives where
 * it is, past the tag (and any blanks after it). Positions only grow, so a cursor (the start
 * of a line and its number) walks the text once. */
static void position(const Parse *p, unsigned *line, unsigned *col)
{
    Parse *q = (Parse *)p;
    int l, c;
    g_markup_parse_context_get_position(p->ctx, &l, &c);
    const char *end = p->data + p->length;
    while (q->line_no < (unsigned)l && q->line_start < end) {
        const char *nl = memchr(q->line_start, '\n', (size_t)(end - q->line_start));
        if (nl == NULL)
            break;
        q->line_start = nl + 1;
        q->line_no++;
    }
    const char *at = q->line_start;
    for (int k = 1; k < c && at < end && *at != '\n'; k++)
        at = g_utf8_find_next_char(at, end) ? g_utf8_find_next_char(at, end) : end;
    /* back to the '<' of the element being read (GMarkup may be at or past the next tag) */
    const size_t n_name = p->element ? strlen(p->element) : 0;
    if (at >= end)
        at = end - 1;
    while (at > p->data &&
           !(*at == '<' && (size_t)(end - at) > n_name + 1 &&
             strncmp(at + 1, p->element ? p->element : "", n_name) == 0 &&
             (g_ascii_isspace(at[1 + n_name]) || at[1 + n_name] == '/' || at[1 + n_name] == '>')))
        at--;
    /* its line and column, counted back from the cursor's line */
    unsigned n = q->line_no;
    const char *start = q->line_start;
    while (start > at) {
        start--;
        while (start > p->data && start[-1] != '\n')
            start--;
        n--;
    }
    *line = n;
    *col = 1 + (unsigned)g_utf8_strlen(start, at - start);
}

static gboolean fail(const Parse *p, GError **error, const char *format, ...) G_GNUC_PRINTF(3, 4);
static gboolean fail(const Parse *p, GError **error, const char *format, ...)
{
    unsigned line, col;
    position(p, &line, &col);
    va_list args;
    va_start(args, format);
    char *text = g_strdup_vprintf(format, args);
    va_end(args);
    fennel_error_at(error, p->file, line, col, "%s", text);
    g_free(text);
    return FALSE;
}

/* The attributes an element may have: NULL-terminated `allowed`; their values by the same
 * index in `values` (NULL when absent). */
static gboolean attributes(const Parse *p, const char *element, const char **names,
                           const char **values, const char *const *allowed, const char **out,
                           GError **error)
{
    size_t n = 0;
    while (allowed[n])
        n++;
    for (size_t i = 0; i < n; i++)
        out[i] = NULL;
    for (size_t k = 0; names[k]; k++) {
        size_t i = 0;
        while (i < n && strcmp(names[k], allowed[i]) != 0)
            i++;
        if (i == n) {
            GString *list = g_string_new(NULL);
            for (size_t j = 0; j < n; j++)
                g_string_append_printf(list, "%s%s", j ? ", " : "", allowed[j]);
            fail(p, error, "<%s>: attribute '%s' is not read (it reads %s)", element, names[k],
                 list->str);
            g_string_free(list, TRUE);
            return FALSE;
        }
        out[i] = values[k];
    }
    return TRUE;
}

static gboolean check_name(const Parse *p, const char *element, const char *name, GError **error)
{
    if (name == NULL)
        return fail(p, error, "<%s>: needs an id", element);
    if (!fennel__graph_name_ok(name))
        return fail(p, error, "<%s>: '%s' is not a name here (no spaces, '>', ';', ',' or '\"')",
                    element, name);
    return TRUE;
}

/* SimGrid's units as fennel's: a bandwidth "125MBps", "10Gbps" (a bare number is bytes per
 * second), a latency "50us", "1e-4" (a bare number is seconds). */
static const char *const bandwidth_units[][2] = {
    {"TBps", "TB/s"},   {"GBps", "GB/s"},   {"MBps", "MB/s"},   {"kBps", "kB/s"},
    {"KBps", "KB/s"},   {"GiBps", "GiB/s"}, {"MiBps", "MiB/s"}, {"KiBps", "KiB/s"},
    {"Bps", "B/s"},     {"Tbps", "Tbit/s"}, {"Gbps", "Gbit/s"}, {"Mbps", "Mbit/s"},
    {"kbps", "kbit/s"}, {"Kbps", "Kbit/s"}, {"bps", "bit/s"},
};
static const char *const latency_units[][2] = {
    {"ms", "ms"}, {"us", "us"}, {"ns", "ns"}, {"ps", "ps"}, {"s", "s"},
};

static gboolean convert(const Parse *p, const char *what, const char *text, gboolean bandwidth,
                        FennelTime *latency, FennelRate *rate, GError **error)
{
    const size_t length = strlen(text);
    const char *number_end = text + length, *unit = "";
    const size_t units = bandwidth ? G_N_ELEMENTS(bandwidth_units) : G_N_ELEMENTS(latency_units);
    for (size_t i = 0; i < units; i++) {
        const char *suffix = bandwidth ? bandwidth_units[i][0] : latency_units[i][0];
        const size_t n = strlen(suffix);
        if (length > n && strcmp(text + length - n, suffix) == 0) {
            number_end = text + length - n;
            unit = bandwidth ? bandwidth_units[i][1] : latency_units[i][1];
            break;
        }
    }
    if (*unit == '\0')
        unit = bandwidth ? "B/s" : "s";
    char *fennel = g_strdup_printf("%.*s%s", (int)(number_end - text), text, unit);
    const char *why;
    const gboolean ok = bandwidth ? fennel_parse_bandwidth(fennel, rate, &why)
                                  : fennel_parse_duration(fennel, latency, &why);
    g_free(fennel);
    if (!ok)
        return fail(p, error,
                    bandwidth ? "%s: '%s' is not a bandwidth this reads (a number and Bps, kBps, "
                                "MBps, GBps, TBps, KiBps, MiBps, GiBps, bps, kbps, Mbps, Gbps "
                                "or Tbps)"
                              : "%s: '%s' is not a latency this reads (a number of seconds, or "
                                "with s, ms, us, ns or ps)",
                    what, text);
    return TRUE;
}

static gboolean policy(const Parse *p, const char *what, const char *text, Policy fallback,
                       Policy *out, GError **error)
{
    if (text == NULL)
        *out = fallback;
    else if (strcmp(text, "SHARED") == 0)
        *out = SHARED;
    else if (strcmp(text, "SPLITDUPLEX") == 0)
        *out = SPLITDUPLEX;
    else
        return fail(p, error,
                    "%s: sharing policy '%s' is not read (SHARED and SPLITDUPLEX are: a "
                    "FATPIPE link shares nothing, which fennel's links do not model)",
                    what, text);
    return TRUE;
}

static uint32_t add_host(Parse *p, const char *id, GError **error)
{
    if (g_hash_table_contains(p->host_index, id)) {
        fail(p, error, "<host>: '%s' is given twice", id);
        return UINT32_MAX;
    }
    unsigned at[2];
    position(p, &at[0], &at[1]);
    g_ptr_array_add(p->hosts, g_strdup(id));
    g_array_append_vals(p->host_pos, at, 2);
    g_hash_table_insert(p->host_index, g_ptr_array_index(p->hosts, p->hosts->len - 1),
                        GUINT_TO_POINTER(p->hosts->len - 1));
    return p->hosts->len - 1;
}

static gboolean add_link(Parse *p, const char *id, FennelTime latency, FennelRate rate, Policy pol,
                         GError **error)
{
    if (g_hash_table_contains(p->link_index, id))
        return fail(p, error, "<link>: '%s' is given twice", id);
    Link l = {.id = g_strdup(id),
              .latency = latency,
              .rate = rate,
              .policy = pol,
              .resource = p->resources};
    position(p, &l.line, &l.col);
    g_array_append_val(p->links, l);
    g_hash_table_insert(p->link_index, l.id, GUINT_TO_POINTER(p->links->len - 1));
    if (pol == SPLITDUPLEX) {
        g_ptr_array_add(p->resource_names, g_strdup_printf("%s_UP", id));
        g_ptr_array_add(p->resource_names, g_strdup_printf("%s_DOWN", id));
        p->resources += 2;
    } else {
        g_ptr_array_add(p->resource_names, g_strdup(id));
        p->resources++;
    }
    return TRUE;
}

static Route *add_route(Parse *p, uint32_t src, uint32_t dst, gboolean symmetrical)
{
    Route r = {.src = src,
               .dst = dst,
               .symmetrical = symmetrical,
               .hops = g_array_new(FALSE, FALSE, sizeof(uint32_t))};
    position(p, &r.line, &r.col);
    g_array_append_val(p->routes, r);
    return &g_array_index(p->routes, Route, p->routes->len - 1);
}

/* `radical="0-3,5"`: the numbers, in order. */
static gboolean radicals(const Parse *p, const char *text, GArray *out, GError **error)
{
    char **parts = g_strsplit(text, ",", -1);
    gboolean ok = TRUE;
    for (char **part = parts; ok && *part; part++) {
        char **ends = g_strsplit(*part, "-", 3);
        int64_t lo, hi;
        const char *why;
        if (ends[0] == NULL || g_strv_length(ends) > 2 ||
            !fennel_parse_int(ends[0], 0, 1 << 24, &lo, &why) ||
            !fennel_parse_int(ends[1] ? ends[1] : ends[0], lo, lo + (1 << 16), &hi, &why))
            ok = fail(p, error,
                      "<cluster>: radical '%s' is not a list of numbers and ranges (0-3,5)", text);
        for (int64_t i = lo; ok && i <= hi; i++) {
            const uint32_t v = (uint32_t)i;
            g_array_append_val(out, v);
        }
        g_strfreev(ends);
    }
    g_strfreev(parts);
    if (ok && out->len > (1u << 16))
        ok = fail(p, error, "<cluster>: %u hosts, more than the 65536 this reads", out->len);
    return ok;
}

/* A flat cluster: host i's private link (`ID_link_I`, SPLITDUPLEX by default), and a
 * backbone (`ID_backbone`, SHARED) when bb_bw or bb_lat is given; host i to host j crosses
 * i's link up, the backbone, j's link down, as SimGrid's star zone routes it. */
static gboolean cluster(Parse *p, const char **names, const char **values, GError **error)
{
    static const char *const allowed[] = {
        "id",    "prefix", "suffix",         "radical",           "speed",     "core", "bw", "lat",
        "bb_bw", "bb_lat", "sharing_policy", "bb_sharing_policy", "router_id", NULL};
    const char *a[G_N_ELEMENTS(allowed) - 1];
    if (!attributes(p, "cluster", names, values, allowed, a, error) ||
        !check_name(p, "cluster", a[0], error))
        return FALSE;
    if (a[3] == NULL || a[6] == NULL || a[7] == NULL)
        return fail(p, error, "<cluster>: needs radical, bw and lat");
    FennelTime lat = 0, bb_lat = 0;
    FennelRate rate = 0, bb_rate = 0;
    Policy pol, bb_pol;
    const gboolean backbone = a[8] != NULL || a[9] != NULL;
    if (!convert(p, "<cluster> bw", a[6], TRUE, NULL, &rate, error) ||
        !convert(p, "<cluster> lat", a[7], FALSE, &lat, NULL, error) ||
        (a[8] && !convert(p, "<cluster> bb_bw", a[8], TRUE, NULL, &bb_rate, error)) ||
        (a[9] && !convert(p, "<cluster> bb_lat", a[9], FALSE, &bb_lat, NULL, error)) ||
        !policy(p, "<cluster>", a[10], SPLITDUPLEX, &pol, error) ||
        !policy(p, "<cluster> bb_sharing_policy", a[11], SHARED, &bb_pol, error))
        return FALSE;
    if (backbone && a[8] == NULL)
        return fail(p, error, "<cluster>: a backbone needs bb_bw (a link without a bandwidth)");
    GArray *rad = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    gboolean ok = radicals(p, a[3], rad, error);
    uint32_t bb = UINT32_MAX;
    if (ok && backbone) {
        char *id = g_strdup_printf("%s_backbone", a[0]);
        ok = add_link(p, id, bb_lat, bb_rate, bb_pol, error);
        bb = g_array_index(p->links, Link, p->links->len - 1).resource;
        g_free(id);
    }
    const uint32_t first_host = p->hosts->len, first_link = p->links->len;
    for (guint i = 0; ok && i < rad->len; i++) {
        const uint32_t k = g_array_index(rad, uint32_t, i);
        char *host = g_strdup_printf("%s%u%s", a[1] ? a[1] : "", k, a[2] ? a[2] : "");
        char *link = g_strdup_printf("%s_link_%u", a[0], k);
        ok = check_name(p, "cluster", host, error) && add_host(p, host, error) != UINT32_MAX &&
             add_link(p, link, lat, rate, pol, error);
        g_free(host);
        g_free(link);
    }
    /* The first host to every other and back: up, the backbone, down. These cross every
     * link and join the star's middle into one vertex (two with a backbone; two without one
     * for a cluster of two hosts, whose routes are the same links); between any
     * other two hosts the shortest path is the same up, backbone, down (the only way), so
     * every pair need not be listed. */
    for (guint i = 1; ok && i < rad->len; i++) {
        for (int back = 0; back < (i == 1 && rad->len > 2 ? 3 : 2); back++) {
            /* and the second host to the third, which joins the ends of the links up to
             * those of the links down */
            const guint from = back == 2 ? 1 : back ? i : 0, to = back == 2 ? 2 : back ? 0 : i;
            Route *r = add_route(p, first_host + from, first_host + to, FALSE);
            const uint32_t up = g_array_index(p->links, Link, first_link + from).resource;
            const uint32_t down =
                g_array_index(p->links, Link, first_link + to).resource + (pol == SPLITDUPLEX);
            g_array_append_val(r->hops, up);
            if (bb != UINT32_MAX)
                g_array_append_val(r->hops, bb);
            g_array_append_val(r->hops, down);
        }
    }
    g_array_free(rad, TRUE);
    return ok;
}

static void start(GMarkupParseContext *ctx, const char *element, const char **names,
                  const char **values, gpointer data, GError **error)
{
    (void)ctx;
    Parse *p = data;
    p->element = element;
    if (strcmp(element, "prop") == 0)
        return; /* a property: metadata, not read */
    if (!p->platform) {
        if (strcmp(element, "platform") != 0) {
            fail(p, error, "a SimGrid platform file starts with <platform>, not <%s>", element);
            return;
        }
        static const char *const allowed[] = {"version", NULL};
        const char *a[1];
        if (!attributes(p, "platform", names, values, allowed, a, error))
            return;
        if (a[0] == NULL || strcmp(a[0], "4.1") != 0) {
            fail(p, error, "<platform>: version '%s' is not read (version 4.1 is)",
                 a[0] ? a[0] : "");
            return;
        }
        p->platform = TRUE;
        return;
    }
    if (p->done) {
        fail(p, error, "<%s>: a platform of one zone or one cluster is read, nothing after it",
             element);
        return;
    }
    if (strcmp(element, "cluster") == 0 && !p->zone && !p->cluster) {
        p->cluster = TRUE;
        position(p, &p->zone_line, &p->zone_col);
        cluster(p, names, values, error);
        return;
    }
    if (strcmp(element, "zone") == 0 && !p->zone && !p->cluster) {
        static const char *const allowed[] = {"id", "routing", NULL};
        const char *a[2];
        if (!attributes(p, "zone", names, values, allowed, a, error))
            return;
        if (a[1] == NULL || strcmp(a[1], "Full") != 0) {
            fail(p, error,
                 "<zone>: routing '%s' is not read (routing=\"Full\" is: every route given)",
                 a[1] ? a[1] : "");
            return;
        }
        p->zone = TRUE;
        position(p, &p->zone_line, &p->zone_col);
        return;
    }
    if (!p->zone || p->cluster) {
        fail(p, error,
             "<%s> is not read here (a platform of one <zone routing=\"Full\"> or one "
             "<cluster> is)",
             element);
        return;
    }
    if (strcmp(element, "host") == 0 && p->route == NULL) {
        static const char *const allowed[] = {"id", "speed", "core", NULL};
        const char *a[3];
        if (attributes(p, "host", names, values, allowed, a, error) &&
            check_name(p, "host", a[0], error))
            (void)add_host(p, a[0], error);
        return;
    }
    if (strcmp(element, "link") == 0 && p->route == NULL) {
        static const char *const allowed[] = {"id", "bandwidth", "latency", "sharing_policy", NULL};
        const char *a[4];
        FennelRate rate = 0;
        FennelTime latency = 0;
        Policy pol;
        if (!attributes(p, "link", names, values, allowed, a, error) ||
            !check_name(p, "link", a[0], error))
            return;
        if (a[1] == NULL) {
            fail(p, error, "<link>: '%s' needs a bandwidth", a[0]);
            return;
        }
        if (convert(p, "<link> bandwidth", a[1], TRUE, NULL, &rate, error) &&
            (a[2] == NULL || convert(p, "<link> latency", a[2], FALSE, &latency, NULL, error)) &&
            policy(p, "<link>", a[3], SHARED, &pol, error))
            (void)add_link(p, a[0], latency, rate, pol, error);
        return;
    }
    if (strcmp(element, "route") == 0 && p->route == NULL) {
        static const char *const allowed[] = {"src", "dst", "symmetrical", NULL};
        const char *a[3];
        if (!attributes(p, "route", names, values, allowed, a, error))
            return;
        gpointer src, dst;
        if (a[0] == NULL || a[1] == NULL) {
            fail(p, error, "<route>: needs src and dst");
            return;
        }
        if (!g_hash_table_lookup_extended(p->host_index, a[0], NULL, &src) ||
            !g_hash_table_lookup_extended(p->host_index, a[1], NULL, &dst)) {
            fail(p, error, "<route>: '%s' is not a host given before",
                 g_hash_table_contains(p->host_index, a[0]) ? a[1] : a[0]);
            return;
        }
        if (src == dst) {
            fail(p, error,
                 "<route>: from '%s' to itself (a host's own messages do not cross "
                 "the network)",
                 a[0]);
            return;
        }
        if (a[2] && strcmp(a[2], "YES") != 0 && strcmp(a[2], "NO") != 0) {
            fail(p, error, "<route>: symmetrical is YES or NO, not '%s'", a[2]);
            return;
        }
        p->route = add_route(p, GPOINTER_TO_UINT(src), GPOINTER_TO_UINT(dst),
                             a[2] == NULL || strcmp(a[2], "YES") == 0);
        return;
    }
    if (strcmp(element, "link_ctn") == 0 && p->route != NULL) {
        static const char *const allowed[] = {"id", "direction", NULL};
        const char *a[2];
        if (!attributes(p, "link_ctn", names, values, allowed, a, error))
            return;
        gpointer k;
        if (a[0] == NULL || !g_hash_table_lookup_extended(p->link_index, a[0], NULL, &k)) {
            fail(p, error, "<link_ctn>: '%s' is not a link given before", a[0] ? a[0] : "");
            return;
        }
        const Link *l = &g_array_index(p->links, Link, GPOINTER_TO_UINT(k));
        uint32_t resource = l->resource;
        if (l->policy == SPLITDUPLEX) {
            if (a[1] == NULL || (strcmp(a[1], "UP") != 0 && strcmp(a[1], "DOWN") != 0)) {
                fail(p, error, "<link_ctn>: '%s' is SPLITDUPLEX: direction UP or DOWN", a[0]);
                return;
            }
            resource += strcmp(a[1], "DOWN") == 0;
        } else if (a[1] && strcmp(a[1], "NONE") != 0) {
            fail(p, error, "<link_ctn>: '%s' is SHARED: it has no direction %s", a[0], a[1]);
            return;
        }
        g_array_append_val(p->route->hops, resource);
        return;
    }
    fail(p, error, "<%s> is not read %s", element,
         p->route ? "in a route (<link_ctn> is)"
                  : "in a zone (<host>, <link>, <route> and <prop> are)");
}

static void end(GMarkupParseContext *ctx, const char *element, gpointer data, GError **error)
{
    (void)ctx;
    Parse *p = data;
    if (strcmp(element, "route") == 0 && p->route) {
        if (p->route->hops->len == 0)
            fennel_error_at(error, p->file, p->route->line, p->route->col,
                            "<route>: from '%s' to '%s' crosses no link",
                            (const char *)g_ptr_array_index(p->hosts, p->route->src),
                            (const char *)g_ptr_array_index(p->hosts, p->route->dst));
        p->route = NULL;
    } else if ((strcmp(element, "zone") == 0 && p->zone) ||
               (strcmp(element, "cluster") == 0 && p->cluster)) {
        p->done = TRUE;
    }
}

static void text(GMarkupParseContext *ctx, const char *t, gsize length, gpointer data,
                 GError **error)
{
    const Parse *p = data;
    for (gsize i = 0; i < length; i++) {
        if (!g_ascii_isspace(t[i])) {
            int line, col;
            g_markup_parse_context_get_position(ctx, &line, &col);
            fennel_error_at(error, p->file, (unsigned)line, (unsigned)col,
                            "text is not read in a platform file");
            return;
        }
    }
}

/* A 64-bit key's hash, every bit mixed (GLib's g_int64_hash may keep only the low half, the
 * same for every link into one vertex). */
static guint pair_hash(gconstpointer key)
{
    uint64_t x = *(const uint64_t *)key;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return (guint)(x ^ (x >> 31));
}

/* Union-find over the hosts (0 .. H-1) and the ends of the resources (H + 2r its start,
 * H + 2r + 1 its end). */
static uint32_t find(uint32_t *up, uint32_t x)
{
    while (up[x] != x) {
        up[x] = up[up[x]];
        x = up[x];
    }
    return x;
}

/* The resources of a route one way or back (back: reversed, each SPLITDUPLEX link's other
 * direction). */
static uint32_t hop_at(const Route *r, gboolean back, guint i, const uint8_t *split)
{
    const guint n = r->hops->len;
    const uint32_t x = g_array_index(r->hops, uint32_t, back ? n - 1 - i : i);
    if (!back || !split[x])
        return x;
    return split[x] == 1 ? x + 1 : x - 1;
}

/* Per resource: 0 a SHARED link, 1 a SPLITDUPLEX link's UP, 2 its DOWN. */
static uint8_t *splits(const Parse *p)
{
    uint8_t *split = g_new0(uint8_t, MAX(p->resources, 1u));
    for (guint i = 0; i < p->links->len; i++) {
        const Link *l = &g_array_index(p->links, Link, i);
        if (l->policy == SPLITDUPLEX) {
            split[l->resource] = 1;
            split[l->resource + 1] = 2;
        }
    }
    return split;
}

/* The neighbour a route gives hop k of its n hops: the hop before (side 0) or after (1), or
 * at its ends its source or destination host, as R + the host's number. */
static uint32_t neighbour(const Route *r, gboolean back, guint k, int side, const uint8_t *split,
                          uint32_t R)
{
    const guint n = r->hops->len;
    if (side == 0 && k == 0)
        return R + (back ? r->dst : r->src);
    if (side == 1 && k + 1 == n)
        return R + (back ? r->src : r->dst);
    return hop_at(r, back, side == 0 ? k - 1 : k + 1, split);
}

/* A SHARED link that the routes cross both ways (a neighbour that one route gives it on one
 * side another gives it on the other: a host's own link, out and in), or that two hosts use
 * on one side, is one resource for all of them, as in SimGrid, where a link here goes from one
 * point to one other. Such a link becomes a core that
 * every route crosses from its start to its end, reached and left through joints: one link for
 * each pair of neighbours (x, y) a route gives, where x or y is such a link, of no latency and
 * at the bandwidth of the core beside it. Every flow through a joint crosses that core too, at
 * the same bandwidth, so the joint never holds it back (under `fair` and `links`): the core is
 * the resource both directions share. The routes become one per direction. Files without such
 * a link are left as they are. */
static void expand_both_ways(Parse *p)
{
    const uint32_t R = p->resources;
    uint8_t *split = splits(p);
    /* the neighbours on each side of each SHARED resource */
    GHashTable *sides[2] = {g_hash_table_new_full(pair_hash, g_int64_equal, g_free, NULL),
                            g_hash_table_new_full(pair_hash, g_int64_equal, g_free, NULL)};
    uint8_t *both = g_new0(uint8_t, MAX(R, 1u));
    /* hosts[2x + side]: the first host seen beside x on that side, + 1 */
    uint32_t *hosts = g_new0(uint32_t, 2 * (size_t)MAX(R, 1u));
    gboolean any = FALSE;
    for (int pass = 0; pass < 2; pass++) {
        for (guint i = 0; i < p->routes->len; i++) {
            const Route *r = &g_array_index(p->routes, Route, i);
            for (int back = 0; back < (r->symmetrical ? 2 : 1); back++) {
                for (guint k = 0; k < r->hops->len; k++) {
                    const uint32_t x = hop_at(r, back, k, split);
                    if (split[x])
                        continue;
                    for (int side = 0; side < 2; side++) {
                        const uint32_t v = neighbour(r, back, k, side, split, R);
                        uint64_t key = (uint64_t)x << 32 | v;
                        uint32_t *h = &hosts[2 * (size_t)x + (guint)side];
                        if (pass == 0) {
                            g_hash_table_add(sides[side], g_memdup2(&key, sizeof key));
                            /* two hosts on one side: a link they share (a NIC of two) */
                            if (v >= R && *h != 0 && *h != v - R + 1)
                                any = both[x] = 1;
                            else if (v >= R)
                                *h = v - R + 1;
                        } else if (g_hash_table_contains(sides[1 - side], &key)) {
                            any = both[x] = 1;
                        }
                    }
                }
            }
        }
    }
    g_hash_table_destroy(sides[0]);
    g_hash_table_destroy(sides[1]);
    g_free(hosts);
    if (!any) {
        g_free(split);
        g_free(both);
        return;
    }
    GHashTable *joints = g_hash_table_new_full(pair_hash, g_int64_equal, g_free, NULL);
    GArray *routes = g_array_new(FALSE, FALSE, sizeof(Route));
    for (guint i = 0; i < p->routes->len; i++) {
        const Route *r = &g_array_index(p->routes, Route, i);
        for (int back = 0; back < (r->symmetrical ? 2 : 1); back++) {
            Route way = {.src = back ? r->dst : r->src,
                         .dst = back ? r->src : r->dst,
                         .line = r->line,
                         .col = r->col,
                         .hops = g_array_new(FALSE, FALSE, sizeof(uint32_t))};
            const guint n = r->hops->len;
            for (guint k = 0; k <= n; k++) {
                /* the joint before hop k (k = n: after the last) */
                const uint32_t x = neighbour(r, back, k < n ? k : n - 1, k < n ? 0 : 1, split, R);
                const uint32_t y = k < n ? hop_at(r, back, k, split) : x;
                const uint32_t left = k < n ? x : hop_at(r, back, n - 1, split),
                               right = k < n ? y : R + way.dst;
                const gboolean joint = (left < R && both[left]) || (right < R && both[right]);
                if (joint) {
                    uint64_t key = (uint64_t)left << 32 | right;
                    gpointer found;
                    uint32_t id;
                    if (g_hash_table_lookup_extended(joints, &key, NULL, &found)) {
                        id = GPOINTER_TO_UINT(found);
                    } else {
                        const uint32_t core = left < R && both[left] ? left : right;
                        const Link *of = NULL;
                        for (guint j = 0; j < p->links->len && of == NULL; j++)
                            if (g_array_index(p->links, Link, j).resource == core)
                                of = &g_array_index(p->links, Link, j);
                        const char *names[2];
                        for (int e = 0; e < 2; e++) {
                            const uint32_t v = e ? right : left;
                            names[e] = v < R ? g_ptr_array_index(p->resource_names, v)
                                             : g_ptr_array_index(p->hosts, v - R);
                        }
                        Link l = {.id = g_strdup_printf("%s>%s", names[0], names[1]),
                                  .line = of->line,
                                  .col = of->col,
                                  .latency = 0,
                                  .rate = of->rate,
                                  .policy = SHARED,
                                  .resource = p->resources};
                        id = p->resources++;
                        g_ptr_array_add(p->resource_names, g_strdup(l.id));
                        g_array_append_val(p->links, l);
                        g_hash_table_insert(joints, g_memdup2(&key, sizeof key),
                                            GUINT_TO_POINTER(id));
                    }
                    g_array_append_val(way.hops, id);
                }
                if (k < n)
                    g_array_append_val(way.hops, y);
            }
            g_array_append_val(routes, way);
        }
        g_array_free(r->hops, TRUE);
    }
    g_array_free(p->routes, TRUE);
    p->routes = routes;
    g_hash_table_destroy(joints);
    g_free(split);
    g_free(both);
}

static gboolean build_graph(Parse *p, Reading *out, GError **error)
{
    const uint32_t H = p->hosts->len, R = p->resources;
    uint8_t *split = splits(p);
    uint32_t *up = g_new(uint32_t, H + 2 * (size_t)R);
    uint32_t *host_of = g_new(uint32_t, H + 2 * (size_t)R); /* a class's host, or none */
    for (uint32_t x = 0; x < H + 2 * R; x++) {
        up[x] = x;
        host_of[x] = x < H ? x : UINT32_MAX;
    }
    uint8_t *used = g_new0(uint8_t, MAX(R, 1u));
    gboolean ok = TRUE;
    /* every ordered pair once */
    GHashTable *pairs = g_hash_table_new(pair_hash, g_int64_equal);
    GArray *keys = g_array_new(FALSE, FALSE, sizeof(uint64_t));
    g_array_set_size(keys, 2 * (size_t)p->routes->len);
    for (guint i = 0; ok && i < p->routes->len; i++) {
        const Route *r = &g_array_index(p->routes, Route, i);
        for (int back = 0; ok && back < (r->symmetrical ? 2 : 1); back++) {
            const uint32_t src = back ? r->dst : r->src, dst = back ? r->src : r->dst;
            uint64_t *key = &g_array_index(keys, uint64_t, 2 * (size_t)i + (guint)back);
            *key = (uint64_t)src * H + dst;
            if (g_hash_table_contains(pairs, key)) {
                fennel_error_at(error, p->file, r->line, r->col,
                                "<route>: a second route from '%s' to '%s'",
                                (const char *)g_ptr_array_index(p->hosts, src),
                                (const char *)g_ptr_array_index(p->hosts, dst));
                ok = FALSE;
                break;
            }
            g_hash_table_add(pairs, key);
            const guint n = r->hops->len;
            for (guint k = 0; ok && k <= n; k++) {
                /* the point before hop k: the source, or the end of hop k - 1 */
                const uint32_t a = k == 0 ? src : H + 2 * hop_at(r, back, k - 1, split) + 1;
                const uint32_t b = k == n ? dst : H + 2 * hop_at(r, back, k, split);
                if (k < n)
                    used[hop_at(r, back, k, split)] = 1;
                const uint32_t ra = find(up, a), rb = find(up, b);
                if (ra == rb)
                    continue;
                if (host_of[ra] != UINT32_MAX && host_of[rb] != UINT32_MAX) {
                    const uint32_t link = hop_at(r, back, k < n ? k : k - 1, split);
                    fennel_error_at(
                        error, p->file, r->line, r->col,
                        "<route>: from '%s' to '%s'%s: link '%s' would %s both '%s' and '%s' "
                        "(a SPLITDUPLEX link's direction leads from one point to one other "
                        "here; a SHARED link may be crossed both ways)",
                        (const char *)g_ptr_array_index(p->hosts, r->src),
                        (const char *)g_ptr_array_index(p->hosts, r->dst),
                        back ? " (its way back)" : "",
                        (const char *)g_ptr_array_index(p->resource_names, link),
                        k < n ? "start at" : "end at",
                        (const char *)g_ptr_array_index(p->hosts, host_of[ra]),
                        (const char *)g_ptr_array_index(p->hosts, host_of[rb]));
                    ok = FALSE;
                    break;
                }
                up[ra] = rb;
                if (host_of[rb] == UINT32_MAX)
                    host_of[rb] = host_of[ra];
            }
        }
    }
    /* every pair of hosts has a route (a cluster's are its star's) */
    for (uint32_t s = 0; ok && !p->cluster && s < H; s++) {
        for (uint32_t d = 0; ok && d < H; d++) {
            const uint64_t key = (uint64_t)s * H + d;
            if (s != d && !g_hash_table_contains(pairs, &key)) {
                fennel_error_at(error, p->file, p->zone_line, p->zone_col,
                                "<zone>: no route from '%s' to '%s' (every pair of hosts needs "
                                "one, or its way back with symmetrical=\"YES\")",
                                (const char *)g_ptr_array_index(p->hosts, s),
                                (const char *)g_ptr_array_index(p->hosts, d));
                ok = FALSE;
            }
        }
    }
    g_hash_table_destroy(pairs);
    g_array_free(keys, TRUE);
    /* the vertices: hosts, then the other classes of used ends, named after a link */
    uint32_t *vertex = g_new(uint32_t, H + 2 * (size_t)R);
    memset(vertex, 0xff, sizeof *vertex * (H + 2 * (size_t)R));
    for (uint32_t h = 0; ok && h < H; h++) {
        g_ptr_array_add(out->nodes, g_strdup(g_ptr_array_index(p->hosts, h)));
        g_array_append_vals(out->node_pos, &g_array_index(p->host_pos, unsigned, 2 * h), 2);
        vertex[find(up, h)] = h;
    }
    uint32_t *link_of = g_new(uint32_t, MAX(R, 1u));
    for (guint i = 0; i < p->links->len; i++) {
        const Link *of = &g_array_index(p->links, Link, i);
        link_of[of->resource] = i;
        if (of->policy == SPLITDUPLEX)
            link_of[of->resource + 1] = i;
    }
    for (uint32_t r = 0; ok && r < R; r++) {
        for (int e = 1; used[r] && e >= 0; e--) {
            const uint32_t c = find(up, H + 2 * r + (uint32_t)e);
            if (vertex[c] != UINT32_MAX)
                continue;
            vertex[c] = H + out->switches->len;
            const Link *l = &g_array_index(p->links, Link, link_of[r]);
            g_ptr_array_add(out->switches,
                            g_strdup_printf("%s.%s",
                                            (const char *)g_ptr_array_index(p->resource_names, r),
                                            e ? "end" : "start"));
            const unsigned at[2] = {l->line, l->col};
            g_array_append_vals(out->switch_pos, at, 2);
        }
    }
    /* the links: each used resource from the vertex of its start to that of its end */
    GHashTable *joined = g_hash_table_new_full(pair_hash, g_int64_equal, g_free, NULL);
    uint32_t *outs = g_new0(uint32_t, MAX(H, 1u)), *ins = g_new0(uint32_t, MAX(H, 1u));
    for (uint32_t r = 0; ok && r < R; r++) {
        if (!used[r])
            continue;
        const Link *l = &g_array_index(p->links, Link, link_of[r]);
        const char *name = g_ptr_array_index(p->resource_names, r);
        const uint32_t a = vertex[find(up, H + 2 * r)], b = vertex[find(up, H + 2 * r + 1)];
        if (a == b) {
            fennel_error_at(error, p->file, l->line, l->col,
                            "<link>: the routes make '%s' lead from a point back to itself (a "
                            "SPLITDUPLEX link's direction leads from one point to one other "
                            "here; a SHARED link may be crossed both ways)",
                            name);
            ok = FALSE;
            break;
        }
        if (a < H && b < H) {
            fennel_error_at(error, p->file, l->line, l->col,
                            "<link>: '%s' joins hosts '%s' and '%s' directly (a route of one "
                            "link; fennel's nodes reach each other through a switch)",
                            name, (const char *)g_ptr_array_index(p->hosts, a),
                            (const char *)g_ptr_array_index(p->hosts, b));
            ok = FALSE;
            break;
        }
        if ((a < H && outs[a]++) || (b < H && ins[b]++)) {
            const uint32_t h = a < H ? a : b;
            fennel_error_at(error, p->file, l->line, l->col,
                            "<link>: host '%s' would have a second link %s ('%s'): a host has "
                            "one link out and one in here",
                            (const char *)g_ptr_array_index(p->hosts, h), a < H ? "out" : "in",
                            name);
            ok = FALSE;
            break;
        }
        uint64_t *key = g_new(uint64_t, 1);
        *key = (uint64_t)a << 32 | b;
        if (!g_hash_table_insert(joined, key, GUINT_TO_POINTER(r))) {
            fennel_error_at(error, p->file, l->line, l->col,
                            "<link>: '%s' and another link join the same two points in the "
                            "routes (parallel links are not read)",
                            name);
            ok = FALSE;
            break;
        }
        const Written w = {
            .from = g_strdup(a < H ? (const char *)g_ptr_array_index(out->nodes, a)
                                   : (const char *)g_ptr_array_index(out->switches, a - H)),
            .to = g_strdup(b < H ? (const char *)g_ptr_array_index(out->nodes, b)
                                 : (const char *)g_ptr_array_index(out->switches, b - H)),
            .line = l->line,
            .col = l->col,
            .from_line = l->line,
            .from_col = l->col,
            .to_line = l->line,
            .to_col = l->col,
            .latency = l->latency,
            .rate = l->rate,
            .latency_set = TRUE,
            .rate_set = TRUE,
            .directed = TRUE,
        };
        g_array_append_val(out->links, w);
    }
    g_free(outs);
    g_free(ins);
    g_hash_table_destroy(joined);
    /* forwarding: at every switch of a route, its destination's messages take the route's
     * next link; one link per switch and destination. A cluster's star needs none: each of
     * its switches has one way on to a host, its shortest. */
    GHashTable *forward = g_hash_table_new_full(pair_hash, g_int64_equal, g_free, NULL);
    for (guint i = 0; ok && !p->cluster && i < p->routes->len; i++) {
        const Route *r = &g_array_index(p->routes, Route, i);
        for (int back = 0; ok && back < (r->symmetrical ? 2 : 1); back++) {
            const uint32_t dst = back ? r->src : r->dst;
            for (guint k = 1; ok && k < r->hops->len; k++) {
                const uint32_t prev = hop_at(r, back, k - 1, split);
                const uint32_t next = hop_at(r, back, k, split);
                const uint32_t at = vertex[find(up, H + 2 * prev + 1)];
                if (at < H) {
                    fennel_error_at(error, p->file, r->line, r->col,
                                    "<route>: from '%s' to '%s'%s passes through host '%s' "
                                    "(hosts do not forward)",
                                    (const char *)g_ptr_array_index(p->hosts, r->src),
                                    (const char *)g_ptr_array_index(p->hosts, r->dst),
                                    back ? " (its way back)" : "",
                                    (const char *)g_ptr_array_index(p->hosts, at));
                    ok = FALSE;
                    break;
                }
                uint64_t *key = g_new(uint64_t, 1);
                *key = (uint64_t)at << 32 | dst;
                gpointer before;
                if (g_hash_table_lookup_extended(forward, key, NULL, &before)) {
                    g_free(key);
                    if (GPOINTER_TO_UINT(before) != next) {
                        fennel_error_at(
                            error, p->file, r->line, r->col,
                            "<route>: from '%s' to '%s'%s leaves '%s' by '%s', another route "
                            "to '%s' by '%s' (a switch here forwards by destination)",
                            (const char *)g_ptr_array_index(p->hosts, r->src),
                            (const char *)g_ptr_array_index(p->hosts, r->dst),
                            back ? " (its way back)" : "",
                            (const char *)g_ptr_array_index(out->switches, at - H),
                            (const char *)g_ptr_array_index(p->resource_names, next),
                            (const char *)g_ptr_array_index(p->hosts, dst),
                            (const char *)g_ptr_array_index(p->resource_names,
                                                            GPOINTER_TO_UINT(before)));
                        ok = FALSE;
                    }
                    continue;
                }
                g_hash_table_insert(forward, key, GUINT_TO_POINTER(next));
                if (k + 1 == r->hops->len)
                    continue; /* into the destination: its one link in, as without a route */
                const uint32_t to = vertex[find(up, H + 2 * next + 1)];
                Forward f = {
                    .at = g_strdup(g_ptr_array_index(out->switches, at - H)),
                    .next =
                        g_strdup(to < H ? (const char *)g_ptr_array_index(out->nodes, to)
                                        : (const char *)g_ptr_array_index(out->switches, to - H)),
                    .to = g_ptr_array_new_with_free_func(g_free),
                    .to_pos = g_array_new(FALSE, FALSE, sizeof(unsigned)),
                    .line = r->line,
                    .col = r->col,
                    .at_line = r->line,
                    .at_col = r->col,
                    .next_line = r->line,
                    .next_col = r->col,
                };
                g_ptr_array_add(f.to, g_strdup(g_ptr_array_index(p->hosts, dst)));
                const unsigned pos[2] = {r->line, r->col};
                g_array_append_vals(f.to_pos, pos, 2);
                g_array_append_val(out->routes, f);
            }
        }
    }
    g_hash_table_destroy(forward);
    g_free(link_of);
    g_free(vertex);
    g_free(used);
    g_free(up);
    g_free(host_of);
    g_free(split);
    return ok;
}

FennelGraph *fennel__graph_simgrid(const char *file, const char *data, gsize length, GError **error)
{
    static const GMarkupParser parser = {start, end, text, NULL, NULL};
    Parse p = {
        .file = file,
        .data = data,
        .length = length,
        .line_start = data,
        .line_no = 1,
        .hosts = g_ptr_array_new_with_free_func(g_free),
        .host_pos = g_array_new(FALSE, FALSE, sizeof(unsigned)),
        .host_index = g_hash_table_new(g_str_hash, g_str_equal),
        .link_index = g_hash_table_new(g_str_hash, g_str_equal),
        .links = g_array_new(FALSE, FALSE, sizeof(Link)),
        .routes = g_array_new(FALSE, FALSE, sizeof(Route)),
        .resource_names = g_ptr_array_new_with_free_func(g_free),
    };
    p.ctx = g_markup_parse_context_new(&parser, 0, &p, NULL);
    GError *local = NULL;
    gboolean ok = g_markup_parse_context_parse(p.ctx, data, (gssize)length, &local) &&
                  g_markup_parse_context_end_parse(p.ctx, &local);
    if (!ok && local->domain == G_MARKUP_ERROR) {
        /* GMarkup's own: where it found it, as FILE:LINE:COL */
        int line, col;
        g_markup_parse_context_get_position(p.ctx, &line, &col);
        const char *message = local->message, *colon = strstr(message, ": ");
        if (g_str_has_prefix(message, "Error on line") && colon)
            message = colon + 2;
        /* it may quote the text, which need not be UTF-8 */
        char *valid = g_utf8_make_valid(message, -1);
        fennel_error_at(error, file, (unsigned)line, (unsigned)col, "XML: %s", valid);
        g_free(valid);
        g_error_free(local);
    } else if (!ok) {
        g_propagate_error(error, local);
    }
    if (ok && !p.zone && !p.cluster) {
        fennel_error_at(error, file, 1, 1,
                        "a SimGrid platform needs a <zone routing=\"Full\"> or a <cluster>");
        ok = FALSE;
    }
    if (ok && p.hosts->len == 0) {
        fennel_error_at(error, file, p.zone_line, p.zone_col,
                        "a SimGrid platform needs at least one host");
        ok = FALSE;
    }
    FennelGraph *g = NULL;
    if (ok) {
        Reading r;
        fennel__graph_reading_init(&r);
        expand_both_ways(&p);
        if (build_graph(&p, &r, error))
            g = fennel__graph_build(file, &r, p.zone_line, p.zone_col, error);
        fennel__graph_reading_clear(&r);
    }
    g_markup_parse_context_free(p.ctx);
    for (guint i = 0; i < p.links->len; i++)
        g_free(g_array_index(p.links, Link, i).id);
    for (guint i = 0; i < p.routes->len; i++)
        g_array_free(g_array_index(p.routes, Route, i).hops, TRUE);
    g_hash_table_destroy(p.host_index);
    g_hash_table_destroy(p.link_index);
    g_ptr_array_free(p.hosts, TRUE);
    g_array_free(p.host_pos, TRUE);
    g_array_free(p.links, TRUE);
    g_array_free(p.routes, TRUE);
    g_ptr_array_free(p.resource_names, TRUE);
    return g;
}
