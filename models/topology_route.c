/* Built networks: links numbered by formula, so that a message's next link is computed in
 * O(1) (O(dimensions) on a torus) from where it is and where it goes (docs/TOPOLOGY.md).
 * Vertices 0 .. nodes-1 are the nodes; switches and routers follow. Node i's link to its
 * switch or router is link 2i, the way back 2i + 1. */
#include "topology.h"

#include "capacity.h"

static void add_link(FennelNetwork *n, const FennelTopology *t, uint32_t id, uint32_t from,
                     uint32_t to, unsigned level)
{
    FennelLinkParams p = fennel_topology_level_params(t, level);
    n->from[id] = from;
    n->to[id] = to;
    n->latency[id] = p.latency;
    n->rate[id] = p.rate;
    n->level[id] = (uint8_t)level;
}

static void alloc_links(FennelNetwork *n, uint64_t links)
{
    n->links = (uint32_t)links;
    n->from = g_new(uint32_t, links);
    n->to = g_new(uint32_t, links);
    n->latency = g_new0(FennelTime, links);
    n->rate = g_new0(FennelRate, links);
    n->level = g_new0(uint8_t, links);
    for (uint64_t i = 0; i < links; i++)
        n->from[i] = n->to[i] = FENNEL_LINK_NONE;
}

/* Node links to and from vertex attach(i). */
static void node_links(FennelNetwork *n, const FennelTopology *t, uint32_t i, uint32_t attach)
{
    add_link(n, t, fennel_network_up(i), i, attach, 0);
    add_link(n, t, fennel_network_down(i), attach, i, 0);
}

/* ---- fat tree: a = nodes per leaf, b = up-links per leaf, c = half the radix, e = leaves,
 * dims[0] = pods (three levels); base[1] leaf links, base[2] aggregation-core links. ---- */

static uint32_t pods(const FennelNetwork *n)
{
    return n->dims[0];
}

static void build_fat_tree(FennelNetwork *n, const FennelTopology *t)
{
    const uint32_t N = n->nodes, d = t->radix / 2, u = d / t->oversubscription, c = d;
    const uint32_t L = (N + d - 1) / d;
    n->a = d;
    n->b = u;
    n->c = c;
    n->e = L;
    n->n_dims = t->levels == 3 ? 1 : 0;
    n->dims[0] = t->levels == 3 ? (L + c - 1) / c : 0;
    const uint32_t P = pods(n);
    const uint64_t base1 = 2ull * N, base2 = base1 + 2ull * L * u;
    n->base[1] = (uint32_t)base1;
    n->base[2] = (uint32_t)base2;
    n->vbase[1] = N;                                    /* leaves */
    n->vbase[2] = N + L;                                /* spines or aggregation switches */
    n->vbase[3] = N + L + (t->levels == 3 ? P * u : u); /* cores */
    n->vertices = n->vbase[3] + (t->levels == 3 ? u * c : 0);
    alloc_links(n, base2 + (t->levels == 3 ? 2ull * P * u * c : 0));
    for (uint32_t i = 0; i < N; i++)
        node_links(n, t, i, N + i / d);
    for (uint32_t l = 0; l < L; l++) {
        for (uint32_t i = 0; i < u; i++) {
            uint32_t upper = t->levels == 3 ? n->vbase[2] + (l / c) * u + i : n->vbase[2] + i;
            add_link(n, t, (uint32_t)(base1 + (uint64_t)l * u + i), N + l, upper, 1);
            add_link(n, t, (uint32_t)(base1 + (uint64_t)L * u + (uint64_t)l * u + i), upper, N + l,
                     1);
        }
    }
    if (t->levels == 3) {
        for (uint32_t agg = 0; agg < P * u; agg++) {
            for (uint32_t j = 0; j < c; j++) {
                uint32_t core = n->vbase[3] + (agg % u) * c + j;
                add_link(n, t, (uint32_t)(base2 + (uint64_t)agg * c + j), n->vbase[2] + agg, core,
                         2);
                add_link(n, t, (uint32_t)(base2 + (uint64_t)P * u * c + (uint64_t)agg * c + j),
                         core, n->vbase[2] + agg, 2);
            }
        }
    }
}

static uint32_t next_fat_tree(const FennelNetwork *n, uint32_t at, uint32_t dst)
{
    const uint32_t d = n->a, u = n->b, c = n->c, L = n->e;
    const uint32_t leaf = dst / d;
    if (at < n->vbase[2]) { /* a leaf */
        uint32_t l = at - n->vbase[1];
        if (l == leaf)
            return fennel_network_down(dst);
        return n->base[1] + l * u + dst % u;
    }
    if (n->n_dims == 0) /* a spine of a two-level tree */
        return n->base[1] + L * u + leaf * u + (at - n->vbase[2]);
    if (at < n->vbase[3]) { /* an aggregation switch */
        uint32_t agg = at - n->vbase[2], p = agg / u, i = agg % u;
        if (leaf / c == p)
            return n->base[1] + L * u + leaf * u + i;
        return n->base[2] + agg * c + (dst / u) % c;
    }
    uint32_t core = at - n->vbase[3], i = core / c, j = core % c;
    return n->base[2] + pods(n) * u * c + ((leaf / c) * u + i) * c + j;
}

/* ---- torus and dims: router of node i is vertex nodes + i; dimension d's links start at
 * base[d]; a dims switch of dimension d is vertex vbase[d] + its group. ---- */

static uint32_t coord(const FennelNetwork *n, uint32_t v, unsigned d)
{
    return v / n->stride[d] % n->dims[d];
}

static uint32_t with_coord(const FennelNetwork *n, uint32_t v, unsigned d, uint32_t c)
{
    return v - coord(n, v, d) * n->stride[d] + c * n->stride[d];
}

/* The group of routers that share dimension d's switch with router r. */
static uint32_t group(const FennelNetwork *n, uint32_t r, unsigned d)
{
    return r / (n->stride[d] * n->dims[d]) * n->stride[d] + r % n->stride[d];
}

static void build_grid(FennelNetwork *n, const FennelTopology *t)
{
    const uint32_t N = n->nodes;
    const gboolean torus = t->kind == FENNEL_TOPOLOGY_TORUS;
    n->n_dims = t->n_dims;
    uint64_t next = 2ull * N, vnext = 2ull * N;
    for (unsigned d = 0; d < t->n_dims; d++) {
        n->dims[d] = t->dims[d];
        n->stride[d] = d == 0 ? 1 : n->stride[d - 1] * n->dims[d - 1];
        n->shape[d] = torus ? FENNEL_SHAPE_RING : t->shape[d];
        n->base[d] = (uint32_t)next;
        n->vbase[d] = (uint32_t)vnext;
        if (n->shape[d] == FENNEL_SHAPE_FULL)
            next += (uint64_t)N * n->dims[d];
        else
            next += 2ull * N;
        if (n->shape[d] == FENNEL_SHAPE_SWITCH)
            vnext += N / n->dims[d];
    }
    n->vertices = (uint32_t)vnext;
    alloc_links(n, next);
    for (uint32_t i = 0; i < N; i++)
        node_links(n, t, i, N + i);
    for (unsigned d = 0; d < n->n_dims; d++) {
        const uint32_t X = n->dims[d];
        if (X == 1)
            continue;
        for (uint32_t r = 0; r < N; r++) {
            uint32_t c = coord(n, r, d);
            switch (n->shape[d]) {
            case FENNEL_SHAPE_RING:
                add_link(n, t, n->base[d] + 2 * r, N + r, N + with_coord(n, r, d, (c + 1) % X),
                         1 + d);
                add_link(n, t, n->base[d] + 2 * r + 1, N + r,
                         N + with_coord(n, r, d, (c + X - 1) % X), 1 + d);
                break;
            case FENNEL_SHAPE_FULL:
                for (uint32_t k = 0; k < X; k++) {
                    if (k != c)
                        add_link(n, t, n->base[d] + r * X + k, N + r, N + with_coord(n, r, d, k),
                                 1 + d);
                }
                break;
            case FENNEL_SHAPE_SWITCH:
                add_link(n, t, n->base[d] + 2 * r, N + r, n->vbase[d] + group(n, r, d), 1 + d);
                add_link(n, t, n->base[d] + 2 * r + 1, n->vbase[d] + group(n, r, d), N + r, 1 + d);
                break;
            }
        }
    }
}

static uint32_t next_grid(const FennelNetwork *n, uint32_t at, uint32_t dst)
{
    const uint32_t N = n->nodes;
    if (at >= 2 * N) { /* a switch of a dims topology */
        unsigned d = 0;
        while (d + 1 < n->n_dims &&
               (n->shape[d] != FENNEL_SHAPE_SWITCH || at >= n->vbase[d + 1] || at < n->vbase[d]))
            d++;
        uint32_t g = at - n->vbase[d], s = n->stride[d];
        uint32_t target = g / s * s * n->dims[d] + coord(n, dst, d) * s + g % s;
        return n->base[d] + 2 * target + 1;
    }
    uint32_t r = at - N;
    for (unsigned d = 0; d < n->n_dims; d++) {
        const uint32_t X = n->dims[d], cr = coord(n, r, d), cd = coord(n, dst, d);
        if (cr == cd)
            continue;
        switch (n->shape[d]) {
        case FENNEL_SHAPE_RING: {
            uint32_t ahead = (cd + X - cr) % X;
            return n->base[d] + 2 * r + (ahead <= X - ahead ? 0 : 1);
        }
        case FENNEL_SHAPE_FULL:
            return n->base[d] + r * X + cd;
        case FENNEL_SHAPE_SWITCH:
            return n->base[d] + 2 * r;
        }
    }
    return fennel_network_down(dst);
}

/* ---- dragonfly: a = groups, b = routers per group, c = nodes per router; routers are
 * vertices nodes + group * b + index; base[1] local links (router x router of a group),
 * base[2] global links (group x group). ---- */

/* The router of group g that holds g's global link to group h. */
static uint32_t owner(const FennelNetwork *n, uint32_t g, uint32_t h)
{
    return (h + n->a - g - 1) % n->a % n->b;
}

static void build_dragonfly(FennelNetwork *n, const FennelTopology *t)
{
    const uint32_t N = n->nodes, G = t->groups, A = t->routers;
    n->a = G;
    n->b = A;
    n->c = t->nodes_per_router;
    n->base[1] = 2 * N;
    n->base[2] = 2 * N + G * A * A;
    n->vertices = N + G * A;
    alloc_links(n, (uint64_t)n->base[2] + (uint64_t)G * G);
    for (uint32_t i = 0; i < N; i++)
        node_links(n, t, i, N + i / n->c);
    for (uint32_t R = 0; R < G * A; R++) {
        for (uint32_t j = 0; j < A; j++) {
            if (j != R % A)
                add_link(n, t, n->base[1] + R * A + j, N + R, N + R / A * A + j, 1);
        }
    }
    for (uint32_t g = 0; g < G; g++) {
        for (uint32_t h = 0; h < G; h++) {
            if (g != h)
                add_link(n, t, n->base[2] + g * G + h, N + g * A + owner(n, g, h),
                         N + h * A + owner(n, h, g), 2);
        }
    }
}

static uint32_t next_dragonfly(const FennelNetwork *n, uint32_t at, uint32_t dst)
{
    const uint32_t A = n->b, R = at - n->nodes, Rd = dst / n->c;
    const uint32_t g = R / A, gd = Rd / A;
    if (R == Rd)
        return fennel_network_down(dst);
    if (g == gd)
        return n->base[1] + R * A + Rd % A;
    uint32_t o = owner(n, g, gd);
    if (R % A != o)
        return n->base[1] + R * A + o;
    return n->base[2] + g * n->a + gd;
}

/* ---- the interface ---- */

/* a x b, saturating at UINT64_MAX. */
static uint64_t times(uint64_t a, uint64_t b)
{
    uint64_t r;
    return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}

/* The links a kind builds for `n` nodes (an upper bound), saturating. */
static uint64_t links_needed(const FennelTopology *t, uint64_t n)
{
    uint64_t links = times(2, n);
    switch (t->kind) {
    case FENNEL_TOPOLOGY_FAT_TREE:
        /* at most as many up-links as node links, twice over for three levels */
        return times(links, 3);
    case FENNEL_TOPOLOGY_TORUS:
    case FENNEL_TOPOLOGY_DIMS:
        for (uint32_t d = 0; d < t->n_dims; d++)
            links = links + times(n, MAX(2u, t->shape[d] == FENNEL_SHAPE_FULL &&
                                                     t->kind == FENNEL_TOPOLOGY_DIMS
                                                 ? t->dims[d]
                                                 : 2u));
        return links;
    case FENNEL_TOPOLOGY_DRAGONFLY:
        return links + times(times(t->groups, t->routers), t->routers) +
               times(t->groups, t->groups);
    default:
        return links;
    }
}

FennelNetwork *fennel_network_build(const FennelTopology *t, uint32_t nodes, char **why)
{
    return fennel_network_build_within(t, nodes, 0, why);
}

FennelNetwork *fennel_network_build_within(const FennelTopology *t, uint32_t nodes, uint64_t extra,
                                           char **why)
{
    uint64_t own = 0; /* the topology's own node count, 0: any */
    const char *kind = fennel_topology_kind_name(t->kind);
    switch (t->kind) {
    case FENNEL_TOPOLOGY_SWITCH:
        own = t->nodes;
        break;
    case FENNEL_TOPOLOGY_FAT_TREE: {
        uint64_t k = t->radix;
        uint64_t max = t->levels == 2 ? times(k, k / 2) : times(times(k, k / 2), k / 2);
        if (nodes > max) {
            *why = g_strdup_printf("topology: %u nodes do not fit a %u-level fat tree of radix "
                                   "%u (at most %" G_GUINT64_FORMAT " nodes)",
                                   nodes, t->levels, t->radix, max);
            return NULL;
        }
        break;
    }
    case FENNEL_TOPOLOGY_TORUS:
    case FENNEL_TOPOLOGY_DIMS:
        own = 1;
        for (uint32_t d = 0; d < t->n_dims; d++)
            own = times(own, t->dims[d]);
        break;
    case FENNEL_TOPOLOGY_DRAGONFLY:
        own = times(times(t->groups, t->routers), t->nodes_per_router);
        break;
    case FENNEL_TOPOLOGY_N_KINDS:
        break;
    }
    if (own > (1u << 24)) {
        *why = g_strdup("topology: more than 2^24 nodes is more than this fennel builds");
        return NULL;
    }
    if (links_needed(t, own ? own : nodes) > (1u << 25) ||
        (t->kind == FENNEL_TOPOLOGY_DRAGONFLY && times(t->groups, t->routers) > (1u << 24))) {
        *why = g_strdup_printf("topology: more than 2^25 links is more than this fennel builds");
        return NULL;
    }
    uint64_t links = links_needed(t, own ? own : nodes);
    GError *error = NULL;
    char *what = g_strdup_printf("%" G_GUINT64_FORMAT " links", links);
    gboolean fits =
        fennel_check_memory(NULL, links * (FENNEL_NETWORK_BYTES_PER_LINK + extra), what, &error);
    g_free(what);
    if (!fits) {
        *why = g_strdup_printf("topology: %s", error->message);
        g_error_free(error);
        return NULL;
    }
    if (own && nodes > own) {
        *why =
            g_strdup_printf("topology: the program needs %u nodes, the %s has %" G_GUINT64_FORMAT,
                            nodes, kind, own);
        return NULL;
    }
    FennelNetwork *n = g_new0(FennelNetwork, 1);
    n->kind = t->kind;
    n->nodes = own ? (uint32_t)own : MAX(nodes, 1u);
    switch (t->kind) {
    case FENNEL_TOPOLOGY_SWITCH:
        n->vertices = n->nodes + 1;
        alloc_links(n, 2ull * n->nodes);
        for (uint32_t i = 0; i < n->nodes; i++)
            node_links(n, t, i, n->nodes);
        break;
    case FENNEL_TOPOLOGY_FAT_TREE:
        build_fat_tree(n, t);
        break;
    case FENNEL_TOPOLOGY_TORUS:
    case FENNEL_TOPOLOGY_DIMS:
        build_grid(n, t);
        break;
    case FENNEL_TOPOLOGY_DRAGONFLY:
        build_dragonfly(n, t);
        break;
    case FENNEL_TOPOLOGY_N_KINDS:
        break;
    }
    return n;
}

void fennel_network_free(FennelNetwork *n)
{
    if (n == NULL)
        return;
    g_free(n->from);
    g_free(n->to);
    g_free(n->latency);
    g_free(n->rate);
    g_free(n->level);
    g_free(n);
}

uint32_t fennel_network_next(const FennelNetwork *n, uint32_t at, uint32_t dst)
{
    if (at < n->nodes)
        return fennel_network_up(at);
    switch (n->kind) {
    case FENNEL_TOPOLOGY_SWITCH:
        return fennel_network_down(dst);
    case FENNEL_TOPOLOGY_FAT_TREE:
        return next_fat_tree(n, at, dst);
    case FENNEL_TOPOLOGY_TORUS:
    case FENNEL_TOPOLOGY_DIMS:
        return next_grid(n, at, dst);
    case FENNEL_TOPOLOGY_DRAGONFLY:
        return next_dragonfly(n, at, dst);
    case FENNEL_TOPOLOGY_N_KINDS:
        break;
    }
    g_assert_not_reached();
}

uint32_t fennel_network_route(const FennelNetwork *n, uint32_t src, uint32_t dst, uint32_t *links,
                              uint32_t max)
{
    uint32_t count = 0, at = src;
    while (at != dst) {
        uint32_t l = fennel_network_next(n, at, dst);
        if (count < max)
            links[count] = l;
        count++;
        at = n->to[l];
    }
    return count;
}

const char *fennel_network_vertex_name(const FennelNetwork *n, uint32_t v, char buf[32])
{
    if (v < n->nodes) {
        g_snprintf(buf, 32, "node%u", v);
        return buf;
    }
    switch (n->kind) {
    case FENNEL_TOPOLOGY_SWITCH:
        return "switch";
    case FENNEL_TOPOLOGY_FAT_TREE:
        if (v < n->vbase[2])
            g_snprintf(buf, 32, "leaf%u", v - n->vbase[1]);
        else if (v < n->vbase[3])
            g_snprintf(buf, 32, "%s%u", n->n_dims ? "agg" : "spine", v - n->vbase[2]);
        else
            g_snprintf(buf, 32, "core%u", v - n->vbase[3]);
        return buf;
    case FENNEL_TOPOLOGY_TORUS:
    case FENNEL_TOPOLOGY_DIMS:
        if (v < 2 * n->nodes) {
            g_snprintf(buf, 32, "router%u", v - n->nodes);
            return buf;
        }
        for (unsigned d = n->n_dims; d-- > 0;) {
            if (n->shape[d] == FENNEL_SHAPE_SWITCH && v >= n->vbase[d]) {
                g_snprintf(buf, 32, "dim%u-switch%u", d, v - n->vbase[d]);
                return buf;
            }
        }
        break;
    case FENNEL_TOPOLOGY_DRAGONFLY:
        g_snprintf(buf, 32, "router%u", v - n->nodes);
        return buf;
    case FENNEL_TOPOLOGY_N_KINDS:
        break;
    }
    g_snprintf(buf, 32, "vertex%u", v);
    return buf;
}
