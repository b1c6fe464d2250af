/* Graph files (docs/TOPOLOGY.md, Graphs): nodes, switches and links, read once and routed
 * once by shortest paths (topology_graph.h). */
#include "topology_graph_private.h"

#include "errors.h"
#include "input.h"

#include <string.h>

void fennel__graph_written_clear(gpointer p)
{
    Written *w = p;
    g_free(w->from);
    g_free(w->to);
}

void fennel__graph_forward_clear(gpointer p)
{
    Forward *f = p;
    g_free(f->at);
    g_free(f->next);
    if (f->to)
        g_ptr_array_free(f->to, TRUE);
    if (f->to_pos)
        g_array_free(f->to_pos, TRUE);
}

gboolean fennel__graph_name_ok(const char *s)
{
    if (*s == '\0')
        return FALSE;
    for (; *s; s++) {
        if (g_ascii_isspace(*s) || strchr(">;,\"", *s) != NULL)
            return FALSE;
    }
    return TRUE;
}

/* `nodes: [a, b]` or `switches: [...]`. */
static gboolean read_names(FennelYaml *y, const char *key, GPtrArray *names, GArray *pos,
                           GError **error)
{
    if (fennel_yaml_type(y) != YAML_SEQUENCE_START_EVENT)
        return fennel_yaml_error(y, error, "%s: expected a list of names, got %s", key,
                                 fennel_yaml_describe(y));
    gboolean ok = fennel_yaml_next(y, error);
    while (ok && fennel_yaml_type(y) != YAML_SEQUENCE_END_EVENT) {
        if (fennel_yaml_type(y) != YAML_SCALAR_EVENT)
            return fennel_yaml_error(y, error, "%s: expected a name, got %s", key,
                                     fennel_yaml_describe(y));
        if (!fennel__graph_name_ok(fennel_yaml_scalar(y)))
            return fennel_yaml_error(y, error,
                                     "%s: '%s' is not a name (no spaces, '>', ';', ',' or '\"')",
                                     key, fennel_yaml_scalar(y));
        g_ptr_array_add(names, g_strdup(fennel_yaml_scalar(y)));
        unsigned at[2] = {fennel_yaml_line(y), fennel_yaml_col(y)};
        g_array_append_vals(pos, at, 2);
        ok = fennel_yaml_next(y, error);
    }
    return ok && fennel_yaml_next(y, error);
}

/* One link: `{from: A, to: B, bandwidth: ..., latency: ..., directed: true}`. */
static gboolean read_link(FennelYaml *y, Written *w, GError **error)
{
    if (fennel_yaml_type(y) != YAML_MAPPING_START_EVENT)
        return fennel_yaml_error(y, error,
                                 "links: expected a link {from, to, bandwidth, latency, "
                                 "directed}, got %s",
                                 fennel_yaml_describe(y));
    w->line = fennel_yaml_line(y);
    w->col = fennel_yaml_col(y);
    gboolean ok = fennel_yaml_next(y, error);
    while (ok && fennel_yaml_type(y) != YAML_MAPPING_END_EVENT) {
        if (fennel_yaml_type(y) != YAML_SCALAR_EVENT)
            return fennel_yaml_error(y, error, "links: expected a key, got %s",
                                     fennel_yaml_describe(y));
        static const char *const keys[] = {"from", "to", "bandwidth", "latency", "directed"};
        gboolean known = FALSE;
        for (size_t i = 0; i < G_N_ELEMENTS(keys); i++)
            known |= strcmp(fennel_yaml_scalar(y), keys[i]) == 0;
        if (!known)
            return fennel_yaml_error(y, error,
                                     "links: unknown key '%s' (a link has from, to, bandwidth, "
                                     "latency, directed)",
                                     fennel_yaml_scalar(y));
        char *key = g_strdup(fennel_yaml_scalar(y));
        ok = fennel_yaml_next(y, error);
        if (ok && fennel_yaml_type(y) != YAML_SCALAR_EVENT)
            ok = fennel_yaml_error(y, error, "links.%s: expected a value, got %s", key,
                                   fennel_yaml_describe(y));
        const char *value = ok ? fennel_yaml_scalar(y) : NULL, *why;
        if (!ok) {
        } else if (strcmp(key, "from") == 0 || strcmp(key, "to") == 0) {
            const gboolean from = key[0] == 'f';
            char **end = from ? &w->from : &w->to;
            if (*end != NULL) {
                ok = fennel_yaml_error(y, error, "links.%s: given twice", key);
            } else {
                *end = g_strdup(value);
                *(from ? &w->from_line : &w->to_line) = fennel_yaml_line(y);
                *(from ? &w->from_col : &w->to_col) = fennel_yaml_col(y);
            }
        } else if (strcmp(key, "bandwidth") == 0) {
            ok = fennel_parse_bandwidth(value, &w->rate, &why) ||
                 fennel_yaml_error(y, error, "links.bandwidth: %s", why);
            w->rate_set = TRUE;
        } else if (strcmp(key, "latency") == 0) {
            ok = fennel_parse_duration(value, &w->latency, &why) ||
                 fennel_yaml_error(y, error, "links.latency: %s", why);
            w->latency_set = TRUE;
        } else {
            w->directed = strcmp(value, "true") == 0;
            if (!w->directed && strcmp(value, "false") != 0)
                ok = fennel_yaml_error(y, error, "links.directed: expected true or false, got '%s'",
                                       value);
        }
        g_free(key);
        ok = ok && fennel_yaml_next(y, error);
    }
    if (ok && (w->from == NULL || w->to == NULL)) {
        fennel_error_at(error, y->file, w->line, w->col, "links: a link needs 'from' and 'to'");
        return FALSE;
    }
    return ok && fennel_yaml_next(y, error);
}

static gboolean read_links(FennelYaml *y, GArray *links, GError **error)
{
    if (fennel_yaml_type(y) != YAML_SEQUENCE_START_EVENT)
        return fennel_yaml_error(y, error, "links: expected a list of links, got %s",
                                 fennel_yaml_describe(y));
    gboolean ok = fennel_yaml_next(y, error);
    while (ok && fennel_yaml_type(y) != YAML_SEQUENCE_END_EVENT) {
        Written w = {0};
        g_array_append_val(links, w);
        ok = read_link(y, &g_array_index(links, Written, links->len - 1), error);
    }
    return ok && fennel_yaml_next(y, error);
}

/* One forwarding entry: `{at: SWITCH, to: NODE or [NODE, ...], next: VERTEX}`. */
static gboolean read_route(FennelYaml *y, Forward *f, GError **error)
{
    if (fennel_yaml_type(y) != YAML_MAPPING_START_EVENT)
        return fennel_yaml_error(y, error, "routes: expected {at, to, next}, got %s",
                                 fennel_yaml_describe(y));
    f->line = fennel_yaml_line(y);
    f->col = fennel_yaml_col(y);
    f->to = g_ptr_array_new_with_free_func(g_free);
    f->to_pos = g_array_new(FALSE, FALSE, sizeof(unsigned));
    gboolean ok = fennel_yaml_next(y, error), to_seen = FALSE;
    while (ok && fennel_yaml_type(y) != YAML_MAPPING_END_EVENT) {
        if (fennel_yaml_type(y) != YAML_SCALAR_EVENT)
            return fennel_yaml_error(y, error, "routes: expected a key, got %s",
                                     fennel_yaml_describe(y));
        const char *key = fennel_yaml_scalar(y);
        const int k = strcmp(key, "at") == 0     ? 0
                      : strcmp(key, "to") == 0   ? 1
                      : strcmp(key, "next") == 0 ? 2
                                                 : -1;
        if (k < 0)
            return fennel_yaml_error(y, error,
                                     "routes: unknown key '%s' (a route has at, to, next)", key);
        if ((k == 0 && f->at) || (k == 1 && to_seen) || (k == 2 && f->next))
            return fennel_yaml_error(y, error, "routes.%s: given twice", key);
        if (!fennel_yaml_next(y, error))
            return FALSE;
        if (k == 1 && fennel_yaml_type(y) == YAML_SEQUENCE_START_EVENT) {
            ok = read_names(y, "routes.to", f->to, f->to_pos, error);
        } else if (fennel_yaml_type(y) != YAML_SCALAR_EVENT) {
            return fennel_yaml_error(y, error, "routes.%s: expected a name, got %s",
                                     k == 0   ? "at"
                                     : k == 1 ? "to"
                                              : "next",
                                     fennel_yaml_describe(y));
        } else {
            const unsigned line = fennel_yaml_line(y), col = fennel_yaml_col(y);
            char *name = g_strdup(fennel_yaml_scalar(y));
            if (k == 0) {
                f->at = name;
                f->at_line = line;
                f->at_col = col;
            } else if (k == 2) {
                f->next = name;
                f->next_line = line;
                f->next_col = col;
            } else {
                g_ptr_array_add(f->to, name);
                unsigned at[2] = {line, col};
                g_array_append_vals(f->to_pos, at, 2);
            }
            ok = fennel_yaml_next(y, error);
        }
        to_seen |= k == 1;
    }
    if (ok && (f->at == NULL || !to_seen || f->next == NULL)) {
        fennel_error_at(error, y->file, f->line, f->col,
                        "routes: a route needs 'at', 'to' and "
                        "'next'");
        return FALSE;
    }
    return ok && fennel_yaml_next(y, error);
}

static gboolean read_routes(FennelYaml *y, GArray *routes, GError **error)
{
    if (fennel_yaml_type(y) != YAML_SEQUENCE_START_EVENT)
        return fennel_yaml_error(y, error, "routes: expected a list of routes, got %s",
                                 fennel_yaml_describe(y));
    gboolean ok = fennel_yaml_next(y, error);
    while (ok && fennel_yaml_type(y) != YAML_SEQUENCE_END_EVENT) {
        Forward f = {0};
        g_array_append_val(routes, f);
        ok = read_route(y, &g_array_index(routes, Forward, routes->len - 1), error);
    }
    return ok && fennel_yaml_next(y, error);
}

static gboolean read_file(FennelYaml *y, Reading *r, unsigned *nodes_line, unsigned *nodes_col,
                          GError **error)
{
    if (fennel_yaml_type(y) != YAML_MAPPING_START_EVENT)
        return fennel_yaml_error(y, error,
                                 "a graph: expected a mapping of nodes, switches and "
                                 "links, got %s",
                                 fennel_yaml_describe(y));
    unsigned line = fennel_yaml_line(y), col = fennel_yaml_col(y);
    gboolean ok = fennel_yaml_next(y, error), seen[4] = {FALSE, FALSE, FALSE, FALSE};
    while (ok && fennel_yaml_type(y) != YAML_MAPPING_END_EVENT) {
        if (fennel_yaml_type(y) != YAML_SCALAR_EVENT)
            return fennel_yaml_error(y, error, "a graph: expected a key, got %s",
                                     fennel_yaml_describe(y));
        static const char *const keys[] = {"nodes", "switches", "links", "routes"};
        int k = -1;
        for (int i = 0; i < 4; i++) {
            if (strcmp(fennel_yaml_scalar(y), keys[i]) == 0)
                k = i;
        }
        if (k < 0)
            return fennel_yaml_error(
                y, error, "a graph: unknown key '%s' (it has nodes, switches, links, routes)",
                fennel_yaml_scalar(y));
        if (seen[k])
            return fennel_yaml_error(y, error, "a graph: duplicate key '%s'", keys[k]);
        seen[k] = TRUE;
        if (k == 0) {
            *nodes_line = fennel_yaml_line(y);
            *nodes_col = fennel_yaml_col(y);
        }
        ok = fennel_yaml_next(y, error);
        if (ok && k == 0)
            ok = read_names(y, "nodes", r->nodes, r->node_pos, error);
        else if (ok && k == 1)
            ok = read_names(y, "switches", r->switches, r->switch_pos, error);
        else if (ok && k == 2)
            ok = read_links(y, r->links, error);
        else if (ok)
            ok = read_routes(y, r->routes, error);
    }
    if (ok && (!seen[0] || r->nodes->len == 0)) {
        fennel_error_at(error, y->file, line, col, "a graph needs 'nodes', a list of at least one");
        return FALSE;
    }
    if (ok && !seen[2]) {
        fennel_error_at(error, y->file, line, col, "a graph needs 'links'");
        return FALSE;
    }
    return ok && fennel_yaml_next(y, error) && fennel_yaml_finish(y, error);
}

void fennel_graph_unref(FennelGraph *g)
{
    if (g == NULL || !g_atomic_ref_count_dec((gatomicrefcount *)&g->refs))
        return;
    for (uint32_t v = 0; g->names && v < g->vertices; v++)
        g_free(g->names[v]);
    g_free(g->names);
    g_free(g->line);
    g_free(g->col);
    g_free(g->from);
    g_free(g->to);
    g_free(g->latency);
    g_free(g->rate);
    g_free(g->latency_set);
    g_free(g->rate_set);
    g_free(g->group);
    g_free(g->step);
    g_free(g->list_first);
    g_free(g->list);
    g_free(g->extra);
    g_free(g->file);
    g_free(g);
}

FennelGraph *fennel_graph_ref(FennelGraph *g)
{
    if (g)
        g_atomic_ref_count_inc((gatomicrefcount *)&g->refs);
    return g;
}

/* The vertices by name: every name once. */
static gboolean name_vertices(FennelGraph *g, const Reading *r, GHashTable *index, GError **error)
{
    g->nodes = r->nodes->len;
    g->vertices = r->nodes->len + r->switches->len;
    g->names = g_new0(char *, g->vertices);
    g->line = g_new(unsigned, g->vertices);
    g->col = g_new(unsigned, g->vertices);
    for (uint32_t v = 0; v < g->vertices; v++) {
        const gboolean node = v < g->nodes;
        const uint32_t i = node ? v : v - g->nodes;
        const unsigned *pos = &g_array_index(node ? r->node_pos : r->switch_pos, unsigned, 2 * i);
        g->names[v] = g_strdup(g_ptr_array_index(node ? r->nodes : r->switches, i));
        g->line[v] = pos[0];
        g->col[v] = pos[1];
        gpointer before;
        if (g_hash_table_lookup_extended(index, g->names[v], NULL, &before)) {
            const uint32_t b = GPOINTER_TO_UINT(before);
            fennel_error_at(error, g->file, pos[0], pos[1],
                            "a graph: '%s' is named twice (first at line %u, column %u)",
                            g->names[v], g->line[b], g->col[b]);
            return FALSE;
        }
        g_hash_table_insert(index, g->names[v], GUINT_TO_POINTER(v));
    }
    return TRUE;
}

/* The vertex of a name's number in the index (nodes, then switches, in the order named): a
 * node is its first port, and the switches follow the ports. */
static uint32_t vertex_of(const FennelGraph *g, uint32_t id)
{
    return id < g->nodes ? id : id - g->nodes + g->ports;
}

uint32_t fennel_graph_port_node(const FennelGraph *g, uint32_t port)
{
    if (port < g->nodes || g->extra == NULL || port >= g->ports)
        return port;
    /* the node whose further NICs hold it: the last i with extra[i] <= port - nodes */
    uint32_t lo = 0, hi = g->nodes, k = port - g->nodes;
    while (hi - lo > 1) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (g->extra[mid] <= k)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* The ends of every way of every written link, by name number (FALSE with the error). */
static gboolean link_ends(const FennelGraph *g, const Reading *r, GHashTable *index, uint32_t *ends,
                          GError **error)
{
    for (guint i = 0; i < r->links->len; i++) {
        const Written *w = &g_array_index(r->links, Written, i);
        gpointer a, b;
        if (!g_hash_table_lookup_extended(index, w->from, NULL, &a)) {
            fennel_error_at(error, g->file, w->from_line, w->from_col,
                            "links.from: unknown node or switch '%s'", w->from);
            return FALSE;
        }
        if (!g_hash_table_lookup_extended(index, w->to, NULL, &b)) {
            fennel_error_at(error, g->file, w->to_line, w->to_col,
                            "links.to: unknown node or switch '%s'", w->to);
            return FALSE;
        }
        ends[2 * i] = GPOINTER_TO_UINT(a);
        ends[2 * i + 1] = GPOINTER_TO_UINT(b);
        if (ends[2 * i] == ends[2 * i + 1] ||
            (ends[2 * i] < g->nodes && ends[2 * i + 1] < g->nodes)) {
            fennel_error_at(error, g->file, w->line, w->col,
                            ends[2 * i] == ends[2 * i + 1]
                                ? "links: a link from '%s' to itself"
                                : "links: '%s' and '%s' are both nodes (a node's "
                                  "link goes to a switch)",
                            w->from, w->to);
            return FALSE;
        }
    }
    return TRUE;
}

/* The nodes' NICs: node i's j-th link out and j-th link in are its NIC j, so it needs as
 * many of each, and at least one. Sets ports and extra. */
static gboolean count_nics(FennelGraph *g, const Reading *r, const uint32_t *ends, GError **error)
{
    const uint32_t N = g->nodes;
    uint32_t *outs = g_new0(uint32_t, N), *ins = g_new0(uint32_t, N);
    gboolean ok = TRUE, several = FALSE;
    for (guint i = 0; i < r->links->len; i++) {
        const Written *w = &g_array_index(r->links, Written, i);
        for (int way = 0; way < (w->directed ? 1 : 2); way++) {
            const uint32_t from = ends[2 * i + way], to = ends[2 * i + 1 - way];
            if (from < N)
                outs[from]++;
            if (to < N)
                ins[to]++;
        }
    }
    for (uint32_t node = 0; ok && node < N; node++) {
        if (outs[node] == 0 || ins[node] == 0) {
            fennel_error_at(error, g->file, g->line[node], g->col[node],
                            "a graph: node '%s' has no link %s the network", g->names[node],
                            outs[node] == 0 ? "to" : "from");
            ok = FALSE;
        } else if (outs[node] != ins[node]) {
            fennel_error_at(error, g->file, g->line[node], g->col[node],
                            "a graph: node '%s' has %u link%s to the network and %u from it "
                            "(a NIC is a link each way)",
                            g->names[node], outs[node], outs[node] == 1 ? "" : "s", ins[node]);
            ok = FALSE;
        }
        several |= outs[node] > 1;
    }
    g->ports = N;
    if (ok && several) {
        g->extra = g_new(uint32_t, (size_t)N + 1);
        g->extra[0] = 0;
        for (uint32_t node = 0; node < N; node++)
            g->extra[node + 1] = g->extra[node] + outs[node] - 1;
        g->ports = N + g->extra[N];
    }
    g_free(outs);
    g_free(ins);
    return ok;
}

/* The vertices once the ports are known: the nodes' further NICs (named as their nodes)
 * between the nodes and the switches. */
static void place_ports(FennelGraph *g)
{
    const uint32_t extra = g->ports - g->nodes, V = g->vertices + extra;
    if (extra == 0)
        return;
    char **names = g_new0(char *, V);
    unsigned *line = g_new(unsigned, V), *col = g_new(unsigned, V);
    for (uint32_t id = 0; id < g->vertices; id++) {
        const uint32_t v = vertex_of(g, id);
        names[v] = g->names[id];
        line[v] = g->line[id];
        col[v] = g->col[id];
    }
    for (uint32_t p = g->nodes; p < g->ports; p++) {
        const uint32_t node = fennel_graph_port_node(g, p);
        names[p] = g_strdup(g->names[node]);
        line[p] = g->line[node];
        col[p] = g->col[node];
    }
    g_free(g->names);
    g_free(g->line);
    g_free(g->col);
    g->names = names;
    g->line = line;
    g->col = col;
    g->vertices = V;
}

/* The directed links, numbered: port p's out-link 2p and in-link 2p + 1, then the others. */
static gboolean number_links(FennelGraph *g, const Reading *r, GHashTable *index, GError **error)
{
    uint64_t count = 0;
    for (guint i = 0; i < r->links->len; i++)
        count += g_array_index(r->links, Written, i).directed ? 1 : 2;
    if (count > (1u << 25)) {
        fennel_error_at(error, g->file, 0, 0,
                        "a graph: more than 2^25 links is more than this fennel builds");
        return FALSE;
    }
    uint32_t *ends = g_new(uint32_t, 2 * (size_t)MAX(r->links->len, 1u));
    if (!link_ends(g, r, index, ends, error) || !count_nics(g, r, ends, error)) {
        g_free(ends);
        return FALSE;
    }
    place_ports(g);
    /* every link of the file: a node's each way is one of its ports' */
    const uint32_t N = g->nodes;
    g->links = (uint32_t)count;
    g->from = g_new(uint32_t, MAX(count, 1u));
    g->to = g_new(uint32_t, MAX(count, 1u));
    g->latency = g_new0(FennelTime, MAX(count, 1u));
    g->rate = g_new0(FennelRate, MAX(count, 1u));
    g->latency_set = g_new0(uint8_t, MAX(count, 1u));
    g->rate_set = g_new0(uint8_t, MAX(count, 1u));
    uint32_t *outs = g_new0(uint32_t, N), *ins = g_new0(uint32_t, N);
    uint32_t next = 2 * g->ports;
    for (guint i = 0; i < r->links->len; i++) {
        const Written *w = &g_array_index(r->links, Written, i);
        for (int way = 0; way < (w->directed ? 1 : 2); way++) {
            const uint32_t a = ends[2 * i + way], b = ends[2 * i + 1 - way];
            uint32_t from = vertex_of(g, a), to = vertex_of(g, b), l;
            if (a < N) {
                from = fennel_graph_port(g, a, outs[a]++);
                l = 2 * from;
            } else if (b < N) {
                to = fennel_graph_port(g, b, ins[b]++);
                l = 2 * to + 1;
            } else {
                l = next++;
            }
            g->from[l] = from;
            g->to[l] = to;
            g->latency[l] = w->latency;
            g->rate[l] = w->rate;
            g->latency_set[l] = (uint8_t)w->latency_set;
            g->rate_set[l] = (uint8_t)w->rate_set;
        }
    }
    g_free(outs);
    g_free(ins);
    g_free(ends);
    return TRUE;
}

/* The first link from vertex `at` to vertex v, or FENNEL_LINK_NONE. */
static uint32_t link_to(const FennelGraph *g, const uint32_t *out_first, const uint32_t *out,
                        uint32_t at, uint32_t v)
{
    for (uint32_t k = out_first[at]; k < out_first[at + 1]; k++) {
        if (g->to[out[k]] == v)
            return out[k];
    }
    return FENNEL_LINK_NONE;
}

/* The file's forwarding entries, as (destination port x vertices + switch) -> link + 1,
 * checked: `at` a switch, `to` nodes, `next` joined to `at` by a link (its first; a node's
 * NICs each by their own) and no other node. An entry for a node is one for each of its
 * NICs: by way of a switch for all of them, straight to the node for those `at` has a link
 * to (the others keep their shortest candidates). */
static gboolean resolve_routes(const FennelGraph *g, const Reading *r, GHashTable *index,
                               const uint32_t *out_first, const uint32_t *out, GHashTable *forward,
                               GError **error)
{
    for (guint i = 0; i < r->routes->len; i++) {
        const Forward *f = &g_array_index(r->routes, Forward, i);
        gpointer p;
        if (!g_hash_table_lookup_extended(index, f->at, NULL, &p) ||
            GPOINTER_TO_UINT(p) < g->nodes) {
            fennel_error_at(error, g->file, f->at_line, f->at_col,
                            "routes.at: '%s' is not a switch", f->at);
            return FALSE;
        }
        const uint32_t at = vertex_of(g, GPOINTER_TO_UINT(p));
        if (!g_hash_table_lookup_extended(index, f->next, NULL, &p)) {
            fennel_error_at(error, g->file, f->next_line, f->next_col,
                            "routes.next: unknown node or switch '%s'", f->next);
            return FALSE;
        }
        const uint32_t next = GPOINTER_TO_UINT(p); /* a node's number, or a switch's vertex */
        const gboolean to_node = next < g->nodes;
        uint32_t link = FENNEL_LINK_NONE;
        if (to_node) {
            for (uint32_t j = 0; j < fennel_graph_nics(g, next) && link == FENNEL_LINK_NONE; j++)
                link = link_to(g, out_first, out, at, fennel_graph_port(g, next, j));
        } else {
            link = link_to(g, out_first, out, at, vertex_of(g, next));
        }
        if (link == FENNEL_LINK_NONE) {
            fennel_error_at(error, g->file, f->next_line, f->next_col,
                            "routes.next: no link goes from '%s' to '%s'", f->at, f->next);
            return FALSE;
        }
        for (guint j = 0; j < f->to->len; j++) {
            const char *to = g_ptr_array_index(f->to, j);
            const unsigned *pos = &g_array_index(f->to_pos, unsigned, 2 * j);
            if (!g_hash_table_lookup_extended(index, to, NULL, &p) ||
                GPOINTER_TO_UINT(p) >= g->nodes) {
                fennel_error_at(error, g->file, pos[0], pos[1], "routes.to: '%s' is not a node",
                                to);
                return FALSE;
            }
            const uint32_t d = GPOINTER_TO_UINT(p);
            if (to_node && next != d) {
                fennel_error_at(error, g->file, f->next_line, f->next_col,
                                "routes.next: '%s' is a node other than '%s' (nodes do not "
                                "forward)",
                                f->next, to);
                return FALSE;
            }
            for (uint32_t nic = 0; nic < fennel_graph_nics(g, d); nic++) {
                const uint32_t port = fennel_graph_port(g, d, nic);
                const uint32_t given = to_node ? link_to(g, out_first, out, at, port) : link;
                if (given == FENNEL_LINK_NONE)
                    continue;
                const uint64_t key = (uint64_t)port * g->vertices + at;
                if (!g_hash_table_insert(forward, g_memdup2(&key, sizeof key),
                                         GUINT_TO_POINTER(given + 1))) {
                    fennel_error_at(error, g->file, pos[0], pos[1],
                                    "routes: a second route at '%s' to '%s'", f->at, to);
                    return FALSE;
                }
            }
        }
    }
    return TRUE;
}

/* With forwarding entries: the routes from every other node's ports to port d must end at
 * d, without a loop. */
static gboolean check_forwarding(const FennelGraph *g, uint32_t d, uint8_t *color, uint32_t *stack,
                                 uint32_t *next, GError **error)
{
    const uint32_t node = fennel_graph_port_node(g, d);
    memset(color, 0, g->vertices);
    FennelGraphStep one;
    const FennelGraphStep *steps;
    for (uint32_t s = 0; s < g->ports; s++) {
        if (fennel_graph_port_node(g, s) == node || color[s])
            continue;
        uint32_t top = 0;
        stack[top] = s;
        next[top++] = 0;
        color[s] = 1;
        while (top > 0) {
            const uint32_t v = stack[top - 1];
            const uint32_t count = fennel_graph_candidates(g, v, d, &one, &steps);
            if (count == 0) {
                fennel_error_at(error, g->file, g->line[v], g->col[v],
                                "routes: from '%s' no link leads on to '%s'", g->names[v],
                                g->names[d]);
                return FALSE;
            }
            if (next[top - 1] == count) {
                color[v] = 2;
                top--;
                continue;
            }
            const uint32_t w = steps[next[top - 1]++].to;
            if (w == d || color[w] == 2)
                continue;
            if (color[w] == 1) {
                fennel_error_at(error, g->file, g->line[w], g->col[w],
                                "routes: the routes to '%s' go round in a loop through '%s'",
                                g->names[d], g->names[w]);
                return FALSE;
            }
            color[w] = 1;
            stack[top] = w;
            next[top++] = 0;
        }
    }
    return TRUE;
}

/* "node 'a'", or with several NICs "node 'a' (its NIC 1)". */
static char *port_text(const FennelGraph *g, uint32_t port)
{
    const uint32_t node = fennel_graph_port_node(g, port);
    if (fennel_graph_nics(g, node) == 1)
        return g_strdup_printf("node '%s'", g->names[port]);
    const uint32_t nic = port < g->nodes ? 0 : port - g->nodes - g->extra[node] + 1;
    return g_strdup_printf("node '%s' (its NIC %u)", g->names[port], nic);
}

/* A forwarding entry of the file, for sorting by destination port. */
typedef struct {
    uint32_t port, at, link;
} Given;

static int given_order(const void *a, const void *b)
{
    const Given *x = a, *y = b;
    if (x->port != y->port)
        return x->port < y->port ? -1 : 1;
    return (x->at > y->at) - (x->at < y->at);
}

/* The route groups: port d's key is the switch its link in comes from and the file's
 * forwarding entries towards it (at, link; its own link in written as FENNEL_GRAPH_LAST, so
 * that the ports of a switch agree), and the ports of one key share a group, numbered in the
 * order of their first port. */
static void group_ports(FennelGraph *g, GHashTable *forward)
{
    const uint32_t P = g->ports;
    GArray *given = g_array_new(FALSE, FALSE, sizeof(Given));
    GHashTableIter it;
    gpointer key, value;
    g_hash_table_iter_init(&it, forward);
    while (g_hash_table_iter_next(&it, &key, &value)) {
        const uint64_t k = *(const uint64_t *)key;
        const Given e = {(uint32_t)(k / g->vertices), (uint32_t)(k % g->vertices),
                         GPOINTER_TO_UINT(value) - 1};
        g_array_append_val(given, e);
    }
    g_array_sort(given, given_order);
    GHashTable *keys =
        g_hash_table_new_full(g_bytes_hash, g_bytes_equal, (GDestroyNotify)g_bytes_unref, NULL);
    GArray *words = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    g->group = g_new(uint32_t, MAX(P, 1u));
    g->groups = 0;
    for (uint32_t d = 0, i = 0; d < P; d++) {
        g_array_set_size(words, 0);
        g_array_append_val(words, g->from[2 * d + 1]);
        for (; i < given->len && g_array_index(given, Given, i).port == d; i++) {
            const Given *e = &g_array_index(given, Given, i);
            const uint32_t pair[2] = {e->at, e->link == 2 * d + 1 ? FENNEL_GRAPH_LAST : e->link};
            g_array_append_vals(words, pair, 2);
        }
        GBytes *k = g_bytes_new(words->data, words->len * sizeof(uint32_t));
        gpointer found;
        if (g_hash_table_lookup_extended(keys, k, NULL, &found)) {
            g->group[d] = GPOINTER_TO_UINT(found);
            g_bytes_unref(k);
        } else {
            g->group[d] = g->groups++;
            g_hash_table_insert(keys, k, GUINT_TO_POINTER(g->group[d]));
        }
    }
    g_array_free(words, TRUE);
    g_hash_table_destroy(keys);
    g_array_free(given, TRUE);
}

/* Several candidates as a list, the same list once (a fat tree's leaf has the same up-links
 * towards every other leaf): its number. */
static uint32_t add_list(GHashTable *lists, GArray *list, GArray *list_first,
                         const FennelGraphStep *steps, uint32_t count)
{
    GBytes *k = g_bytes_new(steps, count * sizeof *steps);
    gpointer found;
    if (g_hash_table_lookup_extended(lists, k, NULL, &found)) {
        g_bytes_unref(k);
        return GPOINTER_TO_UINT(found);
    }
    const uint32_t i = list_first->len - 1;
    g_array_append_vals(list, steps, count);
    const uint32_t end = list->len;
    g_array_append_val(list_first, end);
    g_hash_table_insert(lists, k, GUINT_TO_POINTER(i));
    return i;
}

/* Shortest routes (in hops) to every port. Ports do not forward: a route only leaves a
 * port at its start. The routes to port d are those to the switch its one link in comes
 * from (a breadth-first search from that switch, once per route group), then that link. */
static gboolean route(FennelGraph *g, const Reading *r, GHashTable *index, unsigned nodes_line,
                      unsigned nodes_col, GError **error)
{
    const uint32_t V = g->vertices, E = g->links, P = g->ports, S = V - P;
    g->switches = S;
    /* out- and in-links of every vertex, in link order */
    uint32_t *out_first = g_new0(uint32_t, V + 1), *in_first = g_new0(uint32_t, V + 1);
    uint32_t *out = g_new(uint32_t, MAX(E, 1u)), *in = g_new(uint32_t, MAX(E, 1u));
    for (uint32_t l = 0; l < E; l++) {
        out_first[g->from[l] + 1]++;
        in_first[g->to[l] + 1]++;
    }
    for (uint32_t v = 0; v < V; v++) {
        out_first[v + 1] += out_first[v];
        in_first[v + 1] += in_first[v];
    }
    uint32_t *out_at = g_memdup2(out_first, sizeof *out_at * V),
             *in_at = g_memdup2(in_first, sizeof *in_at * V);
    for (uint32_t l = 0; l < E; l++) {
        out[out_at[g->from[l]]++] = l;
        in[in_at[g->to[l]]++] = l;
    }
    g_free(out_at);
    g_free(in_at);
    GHashTable *forward = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
    gboolean ok = resolve_routes(g, r, index, out_first, out, forward, error);
    if (ok)
        group_ports(g, forward);
    if (ok && (uint64_t)g->groups * S > FENNEL_GRAPH_MAX_ENTRIES) {
        fennel_error_at(error, g->file, nodes_line, nodes_col,
                        "a graph: %u groups of NICs on %u switches make %" G_GUINT64_FORMAT
                        " route entries, more than the %u this fennel keeps",
                        g->groups, S, (uint64_t)g->groups * S, FENNEL_GRAPH_MAX_ENTRIES);
        ok = FALSE;
    }
    uint32_t *dist = g_new(uint32_t, V), *queue = g_new(uint32_t, V);
    /* per group, the ports that cannot reach it (none, usually) */
    GArray *lost = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    uint32_t *lost_first = g_new0(uint32_t, (size_t)(ok ? g->groups : 0) + 1);
    GArray *list = g_array_new(FALSE, FALSE, sizeof(FennelGraphStep));
    GArray *list_first = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    const uint32_t zero = 0;
    g_array_append_val(list_first, zero);
    GHashTable *lists =
        g_hash_table_new_full(g_bytes_hash, g_bytes_equal, (GDestroyNotify)g_bytes_unref, NULL);
    FennelGraphStep *cands = g_new(FennelGraphStep, MAX(E, 1u));
    /* per switch, its last list: most often the next group's too (no hash then) */
    uint32_t *last = g_new(uint32_t, MAX(S, 1u));
    memset(last, 0xff, sizeof *last * MAX(S, 1u));
    const gboolean any_given = g_hash_table_size(forward) > 0;
    if (ok)
        g->step = g_new(FennelGraphStep, MAX((size_t)g->groups * S, 1u));
    for (uint32_t d = 0, done = 0; ok && d < P; d++) {
        if (g->group[d] < done)
            continue; /* searched for an earlier port of its group */
        const uint32_t grp = done++, a = g->from[2 * d + 1];
        for (uint32_t v = 0; v < V; v++)
            dist[v] = UINT32_MAX;
        uint32_t head = 0, tail = 0;
        dist[a] = 0;
        queue[tail++] = a;
        while (head < tail) {
            const uint32_t w = queue[head++];
            for (uint32_t k = in_first[w]; k < in_first[w + 1]; k++) {
                const uint32_t u = g->from[in[k]];
                if (dist[u] == UINT32_MAX) {
                    dist[u] = dist[w] + 1;
                    if (u >= P)
                        queue[tail++] = u; /* a port does not forward */
                }
            }
        }
        FennelGraphStep *row = g->step + (size_t)grp * S;
        for (uint32_t v = P; v < V; v++) {
            const uint64_t key = (uint64_t)d * V + v;
            const uint32_t given =
                any_given ? GPOINTER_TO_UINT(g_hash_table_lookup(forward, &key)) : 0;
            uint32_t count = 0;
            if (given) {
                cands[count++] = (FennelGraphStep){given - 1, g->to[given - 1]};
            } else if (v != a && dist[v] != UINT32_MAX) {
                for (uint32_t k = out_first[v]; k < out_first[v + 1]; k++) {
                    const uint32_t w = g->to[out[k]];
                    if (w >= P && dist[w] + 1 == dist[v])
                        cands[count++] = (FennelGraphStep){out[k], w};
                }
            }
            if (v == a && (!given || given - 1 == 2 * d + 1))
                row[v - P] = (FennelGraphStep){FENNEL_GRAPH_LAST, 0};
            else if (count == 0)
                row[v - P] = (FennelGraphStep){FENNEL_GRAPH_NONE, 0};
            else if (count == 1)
                row[v - P] = cands[0];
            else if (last[v - P] != UINT32_MAX &&
                     g_array_index(list_first, uint32_t, last[v - P] + 1) -
                             g_array_index(list_first, uint32_t, last[v - P]) ==
                         count &&
                     memcmp(&g_array_index(list, FennelGraphStep,
                                           g_array_index(list_first, uint32_t, last[v - P])),
                            cands, count * sizeof *cands) == 0)
                row[v - P] = (FennelGraphStep){FENNEL_GRAPH_LIST, last[v - P]};
            else
                row[v - P] = (FennelGraphStep){FENNEL_GRAPH_LIST,
                                               last[v - P] =
                                                   add_list(lists, list, list_first, cands, count)};
        }
        for (uint32_t s = 0; s < P; s++) {
            if (dist[s] == UINT32_MAX)
                g_array_append_val(lost, s);
        }
        lost_first[grp + 1] = lost->len;
        if (list->len > UINT32_MAX / 4) {
            fennel_error_at(error, g->file, nodes_line, nodes_col,
                            "a graph: too many routes to keep");
            ok = FALSE;
        }
    }
    /* every other node's every NIC reaches d (a node's own NICs need not: messages within a
     * node do not cross the network) */
    for (uint32_t d = 0; ok && d < P; d++) {
        const uint32_t node = fennel_graph_port_node(g, d), grp = g->group[d];
        for (uint32_t k = lost_first[grp]; ok && k < lost_first[grp + 1]; k++) {
            const uint32_t s = g_array_index(lost, uint32_t, k);
            if (fennel_graph_port_node(g, s) != node) {
                char *x = port_text(g, s), *y = port_text(g, d);
                fennel_error_at(error, g->file, g->line[s], g->col[s],
                                "a graph: %s cannot reach %s (no path of links)", x, y);
                g_free(x);
                g_free(y);
                ok = FALSE;
            }
        }
    }
    g->list_first = (uint32_t *)(void *)g_array_free(list_first, FALSE);
    g->list = (FennelGraphStep *)(void *)g_array_free(list, FALSE);
    if (ok && g_hash_table_size(forward) > 0) {
        uint8_t *color = g_new(uint8_t, V);
        uint32_t *stack = g_new(uint32_t, V), *next = g_new(uint32_t, V);
        for (uint32_t d = 0; ok && d < P; d++)
            ok = check_forwarding(g, d, color, stack, next, error);
        g_free(color);
        g_free(stack);
        g_free(next);
    }
    g_hash_table_destroy(lists);
    g_hash_table_destroy(forward);
    g_array_free(lost, TRUE);
    g_free(lost_first);
    g_free(cands);
    g_free(last);
    g_free(dist);
    g_free(queue);
    g_free(out_first);
    g_free(in_first);
    g_free(out);
    g_free(in);
    return ok;
}

void fennel__graph_reading_init(Reading *r)
{
    r->nodes = g_ptr_array_new_with_free_func(g_free);
    r->switches = g_ptr_array_new_with_free_func(g_free);
    r->node_pos = g_array_new(FALSE, FALSE, sizeof(unsigned));
    r->switch_pos = g_array_new(FALSE, FALSE, sizeof(unsigned));
    r->links = g_array_new(FALSE, TRUE, sizeof(Written));
    r->routes = g_array_new(FALSE, TRUE, sizeof(Forward));
    g_array_set_clear_func(r->links, fennel__graph_written_clear);
    g_array_set_clear_func(r->routes, fennel__graph_forward_clear);
}

void fennel__graph_reading_clear(Reading *r)
{
    g_ptr_array_free(r->nodes, TRUE);
    g_ptr_array_free(r->switches, TRUE);
    g_array_free(r->node_pos, TRUE);
    g_array_free(r->switch_pos, TRUE);
    g_array_free(r->links, TRUE);
    g_array_free(r->routes, TRUE);
}

FennelGraph *fennel__graph_build(const char *file, const Reading *r, unsigned nodes_line,
                                 unsigned nodes_col, GError **error)
{
    FennelGraph *g = g_new0(FennelGraph, 1);
    g_atomic_ref_count_init((gatomicrefcount *)&g->refs);
    g->file = g_strdup(file);
    GHashTable *index = g_hash_table_new(g_str_hash, g_str_equal);
    const gboolean ok = name_vertices(g, r, index, error) && number_links(g, r, index, error) &&
                        route(g, r, index, nodes_line, nodes_col, error);
    g_hash_table_destroy(index);
    if (!ok) {
        fennel_graph_unref(g);
        return NULL;
    }
    return g;
}

static FennelGraph *build(FennelYaml *y, GError **error)
{
    Reading r;
    fennel__graph_reading_init(&r);
    unsigned nodes_line = 1, nodes_col = 1;
    FennelGraph *g = read_file(y, &r, &nodes_line, &nodes_col, error)
                         ? fennel__graph_build(y->file, &r, nodes_line, nodes_col, error)
                         : NULL;
    fennel__graph_reading_clear(&r);
    return g;
}

/* A SimGrid platform file is XML: its first character (after a byte-order mark and blanks)
 * is '<', which no graph file of YAML starts with. */
static gboolean is_xml(const char *data, gsize length)
{
    gsize i = length >= 3 && memcmp(data, "\xef\xbb\xbf", 3) == 0 ? 3 : 0;
    while (i < length && g_ascii_isspace(data[i]))
        i++;
    return i < length && data[i] == '<';
}

FennelGraph *fennel_graph_parse(const char *name, const char *data, gsize length, GError **error)
{
    if (is_xml(data, length))
        return fennel__graph_simgrid(name, data, length, error);
    FennelYaml y;
    FennelGraph *g = fennel_yaml_open_data(&y, name, data, length, error) ? build(&y, error) : NULL;
    fennel_yaml_close(&y); /* also after a failed open */
    return g;
}

FennelGraph *fennel_graph_load(const char *path, GError **error)
{
    char *data;
    gsize length;
    if (fennel_read_input(path, &data, &length, NULL) && is_xml(data, length)) {
        FennelGraph *g = fennel__graph_simgrid(path, data, length, error);
        g_free(data);
        return g;
    }
    if (data)
        g_free(data);
    FennelYaml y;
    FennelGraph *g = fennel_yaml_open(&y, path, error) ? build(&y, error) : NULL;
    fennel_yaml_close(&y); /* also after a failed open */
    return g;
}
