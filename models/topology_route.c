/* Built networks: links numbered by formula, so that a message's next link is computed in
 * O(1) (O(dimensions) on a torus) from where it is and where it goes (docs/TOPOLOGY.md), and
 * a link's ends and level from its number: nothing is stored per link. Vertices 0 .. nodes-1
 * are the nodes; switches and routers follow. Node i's link to its switch or router is link
 * 2i, the way back 2i + 1. */
#include "topology.h"

#include "topology_graph.h"

static FennelHop hop(uint32_t link, uint32_t to, uint32_t level)
{
    return (FennelHop){.link = link, .to = to, .level = level};
}

/* ---- fat tree: a = nodes per leaf, b = up-links per leaf, c = half the radix, e = leaves,
 * dims[0] = pods (three levels); base[1] leaf links (L x u up, then L x u down), base[2]
 * aggregation-core links (P x u x c up, then as many down). ---- */

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
    n->links = (uint32_t)(base2 + (t->levels == 3 ? 2ull * P * u * c : 0));
}

/* The switch above leaf l's up-link i. */
static uint32_t leaf_upper(const FennelNetwork *n, uint32_t l, uint32_t i)
{
    return n->n_dims ? n->vbase[2] + (l / n->c) * n->b + i : n->vbase[2] + i;
}

static FennelHop hop_fat_tree(const FennelNetwork *n, uint32_t at, uint32_t dst, uint32_t choice)
{
    const uint32_t d = n->a, u = n->b, c = n->c, L = n->e;
    const uint32_t leaf = dst / d;
    if (at < n->vbase[2]) { /* a leaf */
        uint32_t l = at - n->vbase[1];
        if (l == leaf)
            return hop(fennel_network_down(dst), dst, 0);
        return hop(n->base[1] + l * u + choice % u, leaf_upper(n, l, choice % u), 1);
    }
    if (n->n_dims == 0) /* a spine of a two-level tree */
        return hop(n->base[1] + L * u + leaf * u + (at - n->vbase[2]), n->vbase[1] + leaf, 1);
    if (at < n->vbase[3]) { /* an aggregation switch */
        uint32_t agg = at - n->vbase[2], p = agg / u, i = agg % u;
        if (leaf / c == p)
            return hop(n->base[1] + L * u + leaf * u + i, n->vbase[1] + leaf, 1);
        uint32_t j = (choice / u) % c;
        return hop(n->base[2] + agg * c + j, n->vbase[3] + i * c + j, 2);
    }
    uint32_t core = at - n->vbase[3], i = core / c, j = core % c;
    uint32_t agg = (leaf / c) * u + i;
    return hop(n->base[2] + pods(n) * u * c + agg * c + j, n->vbase[2] + agg, 2);
}

static gboolean link_fat_tree(const FennelNetwork *n, uint32_t l, uint32_t *from, uint32_t *to,
                              uint32_t *level)
{
    const uint32_t u = n->b, c = n->c, L = n->e;
    if (l < n->base[2]) {
        uint32_t k = l - n->base[1], down = k >= L * u;
        if (down)
            k -= L * u;
        uint32_t leaf = n->vbase[1] + k / u, upper = leaf_upper(n, k / u, k % u);
        *from = down ? upper : leaf;
        *to = down ? leaf : upper;
        *level = 1;
        return TRUE;
    }
    uint32_t k = l - n->base[2], down = k >= pods(n) * u * c;
    if (down)
        k -= pods(n) * u * c;
    uint32_t agg = k / c, j = k % c;
    uint32_t a = n->vbase[2] + agg, core = n->vbase[3] + (agg % u) * c + j;
    *from = down ? core : a;
    *to = down ? a : core;
    *level = 2;
    return TRUE;
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
    n->links = (uint32_t)next;
}

static FennelHop hop_grid(const FennelNetwork *n, uint32_t at, uint32_t dst)
{
    const uint32_t N = n->nodes;
    if (at >= 2 * N) { /* a switch of a dims topology */
        unsigned d = 0;
        while (d + 1 < n->n_dims &&
               (n->shape[d] != FENNEL_SHAPE_SWITCH || at >= n->vbase[d + 1] || at < n->vbase[d]))
            d++;
        uint32_t g = at - n->vbase[d], s = n->stride[d];
        uint32_t target = g / s * s * n->dims[d] + coord(n, dst, d) * s + g % s;
        return hop(n->base[d] + 2 * target + 1, N + target, 1 + d);
    }
    uint32_t r = at - N;
    for (unsigned d = 0; d < n->n_dims; d++) {
        const uint32_t X = n->dims[d], cr = coord(n, r, d), cd = coord(n, dst, d);
        if (cr == cd)
            continue;
        switch (n->shape[d]) {
        case FENNEL_SHAPE_RING: {
            uint32_t ahead = (cd + X - cr) % X;
            if (ahead < X - ahead ||
                (ahead == X - ahead && (n->ties == FENNEL_TIES_POSITIVE || cr % 2 == 0)))
                return hop(n->base[d] + 2 * r, N + with_coord(n, r, d, (cr + 1) % X), 1 + d);
            return hop(n->base[d] + 2 * r + 1, N + with_coord(n, r, d, (cr + X - 1) % X), 1 + d);
        }
        case FENNEL_SHAPE_FULL:
            return hop(n->base[d] + r * X + cd, N + with_coord(n, r, d, cd), 1 + d);
        case FENNEL_SHAPE_SWITCH:
            return hop(n->base[d] + 2 * r, n->vbase[d] + group(n, r, d), 1 + d);
        }
    }
    return hop(fennel_network_down(dst), dst, 0);
}

static gboolean link_grid(const FennelNetwork *n, uint32_t l, uint32_t *from, uint32_t *to,
                          uint32_t *level)
{
    const uint32_t N = n->nodes;
    unsigned d = 0;
    while (d + 1 < n->n_dims && l >= n->base[d + 1])
        d++;
    const uint32_t X = n->dims[d], k = l - n->base[d];
    if (X == 1)
        return FALSE;
    *level = 1 + d;
    switch (n->shape[d]) {
    case FENNEL_SHAPE_RING: {
        uint32_t r = k / 2, c = coord(n, r, d);
        *from = N + r;
        *to = N + with_coord(n, r, d, k % 2 == 0 ? (c + 1) % X : (c + X - 1) % X);
        return TRUE;
    }
    case FENNEL_SHAPE_FULL: {
        uint32_t r = k / X, c = k % X;
        if (c == coord(n, r, d))
            return FALSE;
        *from = N + r;
        *to = N + with_coord(n, r, d, c);
        return TRUE;
    }
    case FENNEL_SHAPE_SWITCH: {
        uint32_t r = k / 2, sw = n->vbase[d] + group(n, r, d);
        *from = k % 2 == 0 ? N + r : sw;
        *to = k % 2 == 0 ? sw : N + r;
        return TRUE;
    }
    }
    return FALSE;
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
    n->links = (uint32_t)((uint64_t)n->base[2] + (uint64_t)G * G);
}

/* Minimal: to the router of its group that holds the global link to the destination's
 * group, across it, then to the destination's router. Valiant and adaptive (choice I, a
 * group): from a group other than I, first minimally to group I, and from I (or when I is
 * the destination's group) minimally on; a route through the source's own group is the
 * minimal one. */
static FennelHop hop_dragonfly(const FennelNetwork *n, uint32_t at, uint32_t dst, uint32_t choice)
{
    const uint32_t N = n->nodes, A = n->b, R = at - N, Rd = dst / n->c;
    const uint32_t g = R / A, gd = Rd / A;
    if (R == Rd)
        return hop(fennel_network_down(dst), dst, 0);
    if (g == gd)
        return hop(n->base[1] + R * A + Rd % A, N + Rd, 1);
    const gboolean valiant =
        n->routing == FENNEL_ROUTING_VALIANT || n->routing == FENNEL_ROUTING_ADAPTIVE;
    const uint32_t to = valiant && choice % n->a != g ? choice % n->a : gd;
    uint32_t o = owner(n, g, to);
    if (R % A != o)
        return hop(n->base[1] + R * A + o, N + g * A + o, 1);
    return hop(n->base[2] + g * n->a + to, N + to * A + owner(n, to, g), 2);
}

uint32_t fennel_network_minimal(const FennelNetwork *n, uint32_t dst)
{
    return n->kind == FENNEL_TOPOLOGY_DRAGONFLY ? dst / n->c / n->b : dst;
}

uint32_t fennel_network_valiant(const FennelNetwork *n, uint32_t src, uint32_t dst, uint32_t hash)
{
    const uint32_t g = src / n->c / n->b, gd = dst / n->c / n->b;
    if (g == gd || n->a < 3)
        return gd;
    /* the k-th group of neither */
    uint32_t k = hash % (n->a - 2);
    k += k >= MIN(g, gd);
    k += k >= MAX(g, gd);
    return k;
}

static gboolean link_dragonfly(const FennelNetwork *n, uint32_t l, uint32_t *from, uint32_t *to,
                               uint32_t *level)
{
    const uint32_t N = n->nodes, G = n->a, A = n->b;
    if (l < n->base[2]) {
        uint32_t k = l - n->base[1], R = k / A, j = k % A;
        if (j == R % A)
            return FALSE;
        *from = N + R;
        *to = N + R / A * A + j;
        *level = 1;
        return TRUE;
    }
    uint32_t k = l - n->base[2], g = k / G, h = k % G;
    if (g == h)
        return FALSE;
    *from = N + g * A + owner(n, g, h);
    *to = N + h * A + owner(n, h, g);
    *level = 2;
    return TRUE;
}

/* ---- rail: a = GPUs per server, b = NICs (rails) per server, c = servers, d = 1 with PXN;
 * vbase[1]
 * NVSwitches (one per server), vbase[2] NICs (server x rail), vbase[3] leaves (one per
 * rail), vbase[4] spines (one per server: spine j carries the traffic for server j);
 * base[1] GPU-NIC links (2 per GPU), base[2] NIC-leaf links (2 per NIC), base[3]
 * leaf-spine links (leaf r x spine j, up then down), only with more than one rail. ---- */

static void build_rail(FennelNetwork *n, const FennelTopology *t)
{
    const uint32_t N = n->nodes, G = t->gpus_per_node, R = fennel_topology_nics(t);
    const uint32_t S = (N + G - 1) / G;
    n->a = G;
    n->b = R;
    n->c = S;
    n->d = t->pxn ? 1 : 0;
    n->base[1] = 2 * N;
    n->base[2] = 4 * N;
    n->base[3] = 4 * N + 2 * S * R;
    n->vbase[1] = N;
    n->vbase[2] = N + S;
    n->vbase[3] = N + S + S * R;
    n->vbase[4] = n->vbase[3] + R;
    n->vertices = n->vbase[4] + (R > 1 ? S : 0);
    n->links = n->base[3] + (R > 1 ? 2 * R * S : 0);
    n->endpoint_links = 4 * N;
}

/* GPU g's rail (the NIC of its server it uses). */
static uint32_t rail_of(const FennelNetwork *n, uint32_t g)
{
    return g % n->a / (n->a / n->b);
}

/* Under PXN, the GPU of `server` that sends a message for GPU dst of another server into the
 * network: the one with dst's local number, on dst's rail (NCCL 2.12's PXN: the data goes over
 * NVLink to the GPU on the destination's rail, whose NIC sends it), or in a last server too
 * small for it the server's first GPU on that rail; FENNEL_LINK_NONE when the server has no
 * GPU on that rail. */
static uint32_t pxn_relay(const FennelNetwork *n, uint32_t server, uint32_t dst)
{
    const uint32_t G = n->a;
    uint32_t g = server * G + dst % G;
    if (g < n->nodes)
        return g;
    g = server * G + rail_of(n, dst) * (G / n->b);
    return g < n->nodes ? g : FENNEL_LINK_NONE;
}

/* Whether a message from GPU src for GPU dst crosses src's server to a relay first (PXN). */
static gboolean pxn_relays(const FennelNetwork *n, uint32_t src, uint32_t dst)
{
    return n->d && src / n->a != dst / n->a && rail_of(n, src) != rail_of(n, dst) &&
           pxn_relay(n, src / n->a, dst) != FENNEL_LINK_NONE;
}

static FennelHop hop_rail(const FennelNetwork *n, uint32_t at, uint32_t dst, uint32_t choice)
{
    const uint32_t N = n->nodes, R = n->b, server = dst / n->a, rail = rail_of(n, dst);
    if (at < N) { /* a GPU: NVLink within its server or to its PXN relay, else its NIC */
        if (at / n->a == server || pxn_relays(n, at, dst))
            return hop(fennel_network_up(at), n->vbase[1] + at / n->a, 0);
        return hop(n->base[1] + 2 * at, n->vbase[2] + at / n->a * R + rail_of(n, at), 1);
    }
    if (at < n->vbase[2]) { /* an NVSwitch: down to dst, or to the relay of another server's */
        const uint32_t g = at - n->vbase[1] == server ? dst : pxn_relay(n, at - n->vbase[1], dst);
        return hop(fennel_network_down(g), g, 0);
    }
    if (at < n->vbase[3]) { /* a NIC */
        const uint32_t k = at - n->vbase[2];
        if (k / R == server)
            return hop(n->base[1] + 2 * dst + 1, dst, 1);
        return hop(n->base[2] + 2 * k, n->vbase[3] + k % R, 2);
    }
    if (at < n->vbase[4]) { /* a leaf */
        const uint32_t r = at - n->vbase[3];
        if (r == rail)
            return hop(n->base[2] + 2 * (server * R + rail) + 1, n->vbase[2] + server * R + rail,
                       2);
        const uint32_t spine = choice / n->a % n->c;
        return hop(n->base[3] + 2 * (r * n->c + spine), n->vbase[4] + spine, 3);
    }
    /* a spine: down to the destination's leaf */
    return hop(n->base[3] + 2 * (rail * n->c + at - n->vbase[4]) + 1, n->vbase[3] + rail, 3);
}

uint32_t fennel_network_leaf_way(const FennelNetwork *n, uint32_t g, uint32_t up[2],
                                 uint32_t down[2], uint32_t level[2])
{
    if (n->kind != FENNEL_TOPOLOGY_RAIL || !n->sharp || g >= n->nodes)
        return FENNEL_LINK_NONE;
    const uint32_t k = g / n->a * n->b + rail_of(n, g); /* its NIC */
    up[0] = n->base[1] + 2 * g;
    up[1] = n->base[2] + 2 * k;
    down[0] = n->base[2] + 2 * k + 1;
    down[1] = n->base[1] + 2 * g + 1;
    level[0] = 1;
    level[1] = 2;
    return n->vbase[3] + rail_of(n, g);
}

static gboolean link_rail(const FennelNetwork *n, uint32_t l, uint32_t *from, uint32_t *to,
                          uint32_t *level)
{
    const uint32_t R = n->b;
    uint32_t a, b;
    if (l < n->base[2]) {
        const uint32_t g = (l - n->base[1]) / 2;
        a = g;
        b = n->vbase[2] + g / n->a * R + rail_of(n, g);
        *level = 1;
    } else if (l < n->base[3]) {
        const uint32_t k = (l - n->base[2]) / 2;
        a = n->vbase[2] + k;
        b = n->vbase[3] + k % R;
        *level = 2;
    } else {
        const uint32_t k = (l - n->base[3]) / 2;
        a = n->vbase[3] + k / n->c;
        b = n->vbase[4] + k % n->c;
        *level = 3;
    }
    const gboolean down = (l - n->base[*level]) % 2 == 1;
    *from = down ? b : a;
    *to = down ? a : b;
    return TRUE;
}

/* ---- graph: the routes the file's reading computed (topology_graph.h) ---- */

static FennelHop hop_graph(const FennelNetwork *n, uint32_t at, uint32_t dst, uint32_t choice)
{
    const FennelGraphStep s = fennel_graph_next(n->graph, at, dst, choice);
    return hop(s.link, s.to, s.link < 2 * n->ports ? 0 : 1);
}

static void build_graph(FennelNetwork *n, const FennelTopology *t)
{
    const FennelGraph *g = t->graph;
    n->graph = fennel_graph_ref(t->graph);
    n->vertices = g->vertices;
    n->ports = g->ports;
    n->endpoint_links = 2 * g->ports;
    n->links = g->links;
    n->link_latency = g_new(FennelTime, MAX(g->links, 1u));
    n->link_rate = g_new(FennelRate, MAX(g->links, 1u));
    for (uint32_t l = 0; l < g->links; l++) {
        const unsigned level = l < 2 * n->ports ? 0 : 1;
        n->link_latency[l] = g->latency_set[l] ? g->latency[l] : n->level_latency[level];
        n->link_rate[l] = g->rate_set[l] ? g->rate[l] : n->level_rate[level];
    }
}

/* The least common multiple of the candidate counts on the shortest routes from src to dst:
 * choices 0 .. that - 1 name every route (capped at 2^16). */
static uint32_t graph_choices(const FennelNetwork *n, uint32_t src, uint32_t dst)
{
    const FennelGraph *g = n->graph;
    uint8_t *seen = g_new0(uint8_t, g->vertices);
    uint32_t *stack = g_new(uint32_t, g->vertices), top = 0;
    uint64_t lcm = 1;
    stack[top++] = src;
    seen[src] = 1;
    while (top > 0) {
        const uint32_t v = stack[--top];
        FennelGraphStep one;
        const FennelGraphStep *steps;
        const uint32_t count = fennel_graph_candidates(g, v, dst, &one, &steps);
        if (count > 1) {
            uint64_t a = lcm, b = count;
            while (b) {
                const uint64_t r = a % b;
                a = b;
                b = r;
            }
            lcm = MIN(lcm / a * count, 1u << 16);
        }
        for (uint32_t k = 0; k < count; k++) {
            const uint32_t w = steps[k].to;
            if (w != dst && !seen[w]) {
                seen[w] = 1;
                stack[top++] = w;
            }
        }
    }
    g_free(seen);
    g_free(stack);
    return (uint32_t)lcm;
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
    case FENNEL_TOPOLOGY_RAIL: {
        /* node and NIC links, then NIC-leaf and leaf-spine links: 2 each per NIC */
        uint64_t servers = (n + t->gpus_per_node - 1) / t->gpus_per_node;
        return times(links, 2) + times(times(servers, fennel_topology_nics(t)), 4);
    }
    default:
        return links;
    }
}

FennelNetwork *fennel_network_build(const FennelTopology *t, uint32_t nodes, char **why)
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
    case FENNEL_TOPOLOGY_GRAPH:
        own = t->graph->nodes;
        break;
    case FENNEL_TOPOLOGY_RAIL:
    case FENNEL_TOPOLOGY_N_KINDS:
        break;
    }
    if (own > (1u << 24) || nodes > (1u << 24)) {
        *why = g_strdup("topology: more than 2^24 nodes is more than this fennel builds");
        return NULL;
    }
    if (links_needed(t, own ? own : nodes) > (1u << 25) ||
        (t->kind == FENNEL_TOPOLOGY_DRAGONFLY && times(t->groups, t->routers) > (1u << 24))) {
        *why = g_strdup_printf("topology: more than 2^25 links is more than this fennel builds");
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
    n->ports = n->nodes;
    n->endpoint_links = 2 * n->nodes;
    n->routing = t->routing;
    n->ties = t->ties;
    n->nvls_rate = t->kind == FENNEL_TOPOLOGY_RAIL ? t->nvls_rate : 0;
    n->sharp = t->kind == FENNEL_TOPOLOGY_RAIL && t->sharp;
    for (unsigned l = 0; l < FENNEL_TOPOLOGY_MAX_LEVELS; l++) {
        FennelLinkParams p = fennel_topology_level_params(t, l);
        n->level_latency[l] = p.latency;
        n->level_rate[l] = p.rate;
    }
    switch (t->kind) {
    case FENNEL_TOPOLOGY_SWITCH:
        n->vertices = n->nodes + 1;
        n->links = 2 * n->nodes;
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
    case FENNEL_TOPOLOGY_RAIL:
        build_rail(n, t);
        break;
    case FENNEL_TOPOLOGY_GRAPH:
        build_graph(n, t);
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
    fennel_graph_unref((FennelGraph *)n->graph);
    g_free(n->link_latency);
    g_free(n->link_rate);
    g_free(n);
}

/* The switch or router node i is attached to. */
static uint32_t attach(const FennelNetwork *n, uint32_t i)
{
    switch (n->kind) {
    case FENNEL_TOPOLOGY_FAT_TREE:
        return n->nodes + i / n->a;
    case FENNEL_TOPOLOGY_TORUS:
    case FENNEL_TOPOLOGY_DIMS:
        return n->nodes + i;
    case FENNEL_TOPOLOGY_DRAGONFLY:
        return n->nodes + i / n->c;
    case FENNEL_TOPOLOGY_RAIL:
        return n->nodes + i / n->a;
    default:
        return n->nodes;
    }
}

FennelHop fennel_network_hop_via(const FennelNetwork *n, uint32_t at, uint32_t dst, uint32_t choice)
{
    if (n->kind == FENNEL_TOPOLOGY_RAIL)
        return hop_rail(n, at, dst, choice);
    if (n->kind == FENNEL_TOPOLOGY_GRAPH)
        return hop_graph(n, at, dst, choice);
    if (at < n->nodes)
        return hop(fennel_network_up(at), attach(n, at), 0);
    switch (n->kind) {
    case FENNEL_TOPOLOGY_SWITCH:
        return hop(fennel_network_down(dst), dst, 0);
    case FENNEL_TOPOLOGY_FAT_TREE:
        return hop_fat_tree(n, at, dst, choice);
    case FENNEL_TOPOLOGY_TORUS:
    case FENNEL_TOPOLOGY_DIMS:
        return hop_grid(n, at, dst);
    case FENNEL_TOPOLOGY_DRAGONFLY:
        return hop_dragonfly(n, at, dst, choice);
    case FENNEL_TOPOLOGY_RAIL:
    case FENNEL_TOPOLOGY_GRAPH:
    case FENNEL_TOPOLOGY_N_KINDS:
        break;
    }
    g_assert_not_reached();
}

FennelHop fennel_network_hop(const FennelNetwork *n, uint32_t at, uint32_t dst)
{
    return fennel_network_hop_via(n, at, dst, fennel_network_minimal(n, dst));
}

uint32_t fennel_network_choices(const FennelNetwork *n, uint32_t src, uint32_t dst)
{
    switch (n->kind) {
    case FENNEL_TOPOLOGY_FAT_TREE: {
        const uint32_t ls = src / n->a, ld = dst / n->a;
        if (ls == ld)
            return 1;
        /* three levels: another pod goes up to a core, u x k/2 ways */
        return n->n_dims && ls / n->c != ld / n->c ? n->b * n->c : n->b;
    }
    case FENNEL_TOPOLOGY_RAIL:
        /* another server on another rail: through any of the spines (not with a PXN relay,
         * which puts the message on the destination's rail) */
        return src / n->a != dst / n->a && rail_of(n, src) != rail_of(n, dst) &&
                       !pxn_relays(n, src, dst)
                   ? n->c
                   : 1;
    case FENNEL_TOPOLOGY_GRAPH:
        return graph_choices(n, src, dst);
    case FENNEL_TOPOLOGY_DRAGONFLY:
        /* through any group, between two groups, when the routing looks beyond the minimal */
        return (n->routing == FENNEL_ROUTING_VALIANT || n->routing == FENNEL_ROUTING_ADAPTIVE) &&
                       src / n->c / n->b != dst / n->c / n->b
                   ? n->a
                   : 1;
    default:
        return 1;
    }
}

uint32_t fennel_network_nics(const FennelNetwork *n, uint32_t node)
{
    return n->ports == n->nodes ? 1 : fennel_graph_nics(n->graph, node);
}

uint32_t fennel_network_port(const FennelNetwork *n, uint32_t node, uint32_t nic)
{
    return n->ports == n->nodes ? node : fennel_graph_port(n->graph, node, nic);
}

uint32_t fennel_network_port_node(const FennelNetwork *n, uint32_t vertex)
{
    return n->ports == n->nodes ? vertex : fennel_graph_port_node(n->graph, vertex);
}

uint32_t fennel_network_choice(const FennelNetwork *n, uint32_t k)
{
    return n->kind == FENNEL_TOPOLOGY_RAIL ? k * n->a : k;
}

uint32_t fennel_network_ecmp(uint64_t seed, uint32_t src, uint32_t dst, uint64_t number)
{
    /* splitmix64's finaliser over the four, each mixed in turn */
    uint64_t x = seed ^ 0x9e3779b97f4a7c15ull;
    const uint64_t parts[3] = {src, dst, number};
    for (int i = 0; i < 3; i++) {
        x ^= parts[i] + 0x9e3779b97f4a7c15ull + (x << 6) + (x >> 2);
        x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
        x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
        x ^= x >> 31;
    }
    return (uint32_t)(x >> 32);
}

gboolean fennel_network_link(const FennelNetwork *n, uint32_t l, uint32_t *from, uint32_t *to,
                             uint32_t *level)
{
    if (l >= n->links)
        return FALSE;
    if (n->kind == FENNEL_TOPOLOGY_GRAPH) {
        *from = n->graph->from[l];
        *to = n->graph->to[l];
        *level = l < 2 * n->ports ? 0 : 1;
        return TRUE;
    }
    if (l < 2 * n->nodes) {
        uint32_t i = l / 2;
        *from = l % 2 == 0 ? i : attach(n, i);
        *to = l % 2 == 0 ? attach(n, i) : i;
        *level = 0;
        return TRUE;
    }
    switch (n->kind) {
    case FENNEL_TOPOLOGY_FAT_TREE:
        return link_fat_tree(n, l, from, to, level);
    case FENNEL_TOPOLOGY_TORUS:
    case FENNEL_TOPOLOGY_DIMS:
        return link_grid(n, l, from, to, level);
    case FENNEL_TOPOLOGY_DRAGONFLY:
        return link_dragonfly(n, l, from, to, level);
    case FENNEL_TOPOLOGY_RAIL:
        return link_rail(n, l, from, to, level);
    default:
        return FALSE;
    }
}

uint32_t fennel_network_route(const FennelNetwork *n, uint32_t src, uint32_t dst, uint32_t *links,
                              uint32_t max)
{
    uint32_t count = 0, at = src;
    while (at != dst) {
        FennelHop h = fennel_network_hop(n, at, dst);
        if (count < max)
            links[count] = h.link;
        count++;
        at = h.to;
    }
    return count;
}

const char *fennel_network_vertex_name(const FennelNetwork *n, uint32_t v, char buf[32])
{
    if (n->kind == FENNEL_TOPOLOGY_GRAPH)
        return n->graph->names[v];
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
    case FENNEL_TOPOLOGY_RAIL:
        if (v < n->vbase[2])
            g_snprintf(buf, 32, "nvswitch%u", v - n->vbase[1]);
        else if (v < n->vbase[3])
            g_snprintf(buf, 32, "nic%u", v - n->vbase[2]);
        else if (v < n->vbase[4])
            g_snprintf(buf, 32, "rail%u", v - n->vbase[3]);
        else
            g_snprintf(buf, 32, "spine%u", v - n->vbase[4]);
        return buf;
    case FENNEL_TOPOLOGY_GRAPH:
    case FENNEL_TOPOLOGY_N_KINDS:
        break;
    }
    g_snprintf(buf, 32, "vertex%u", v);
    return buf;
}
