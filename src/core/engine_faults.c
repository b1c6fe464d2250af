/* Stragglers and faults (docs/TOPOLOGY.md): the slow ranks and failing links a model
 * describes, drawn for the machine's seed at its first run; what they do to a message's
 * timing, rates and route; and the error of a message cut off by a link that is down. */
#include "engine_private.h"

/* Streams of the seeded draws (faults.h), one per kind of thing drawn. */
enum { DRAW_STRAGGLERS = 1, DRAW_LINKS = 2, DRAW_NICS = 3 };

/* A port's links to and from the network (its NIC): its node links, and in a rail topology
 * a GPU's links to its NIC (docs/TOPOLOGY.md, GPU servers and rails). */
static void nic_ports(const FennelNetwork *n, uint32_t port, uint32_t ports[2])
{
    const uint32_t base = n->kind == FENNEL_TOPOLOGY_RAIL ? 2 * n->nodes : 0;
    ports[0] = base + 2 * port;
    ports[1] = base + 2 * port + 1;
}

/* An error about the model's section (at its place in the model file, if it has one). */
static void section_error(GError **error, const char *file, unsigned line, unsigned col,
                          const char *format, ...) G_GNUC_PRINTF(5, 6);
static void section_error(GError **error, const char *file, unsigned line, unsigned col,
                          const char *format, ...)
{
    va_list args;
    va_start(args, format);
    char *text = g_strdup_vprintf(format, args);
    va_end(args);
    fennel_error_at_code(error, FENNEL_ERROR_RUN, file, file ? line : 0, file ? col : 0, "%s",
                         text);
    g_free(text);
}

static void add_change(GArray *changes, uint32_t link, FennelTime from, uint32_t cause,
                       uint64_t num, uint64_t den)
{
    LinkChange c = {.from = from, .link = link, .cause = cause, .num = num, .den = den};
    g_array_append_val(changes, c);
}

/* The slow ranks: their factors per rank, and on a topology their NICs slower from the start
 * (a NIC takes the largest factor of the slow ranks that use it: their node's, or where
 * nodes have several NICs, the rank's). */
static gboolean resolve_stragglers(FennelMachine *m, GArray *changes, GError **error)
{
    const FennelStragglers *s = m->model->stragglers;
    uint32_t n = s->n_ranks;
    uint32_t *slow;
    if (s->fraction >= 0) {
        n = fennel_fraction_of(s->fraction, m->ranks);
        slow = g_new(uint32_t, MAX(n, 1u));
        fennel_draw(m->seed, DRAW_STRAGGLERS, n, m->ranks, slow);
    } else {
        slow = g_memdup2(s->ranks, sizeof *slow * MAX(n, 1u));
        for (uint32_t i = 0; i < n; i++) {
            if (slow[i] >= m->ranks) {
                section_error(error, s->file, s->line, s->col,
                              "stragglers.ranks: rank %u, but the program has %u ranks", slow[i],
                              m->ranks);
                g_free(slow);
                return FALSE;
            }
        }
    }
    m->slow = slow;
    m->n_slow = n;
    gboolean computes = FALSE, nics = FALSE;
    for (uint32_t i = 0; i < n; i++) {
        computes |= fennel_stragglers_compute(s, i) != FENNEL_MILLION;
        nics |= fennel_stragglers_nic(s, i) != FENNEL_MILLION;
    }
    if (computes) {
        m->compute_factor = g_new(int64_t, m->ranks);
        for (uint32_t r = 0; r < m->ranks; r++)
            m->compute_factor[r] = FENNEL_MILLION;
        for (uint32_t i = 0; i < n; i++)
            m->compute_factor[slow[i]] = fennel_stragglers_compute(s, i);
    }
    if (!nics)
        return TRUE;
    m->nic_factor = g_new(int64_t, m->ranks);
    for (uint32_t r = 0; r < m->ranks; r++)
        m->nic_factor[r] = FENNEL_MILLION;
    for (uint32_t i = 0; i < n; i++)
        m->nic_factor[slow[i]] = fennel_stragglers_nic(s, i);
    if (m->net == NULL)
        return TRUE;
    GHashTable *port_factor = g_hash_table_new(g_direct_hash, g_direct_equal);
    for (uint32_t i = 0; i < n; i++) {
        const uint32_t port = port_of(m, slow[i]);
        const int64_t f = fennel_stragglers_nic(s, i);
        gpointer old = g_hash_table_lookup(port_factor, GUINT_TO_POINTER(port + 1));
        if (old == NULL || f > *(int64_t *)old)
            g_hash_table_insert(port_factor, GUINT_TO_POINTER(port + 1),
                                (gpointer)&m->nic_factor[slow[i]]);
    }
    GHashTableIter it;
    gpointer key, value;
    g_hash_table_iter_init(&it, port_factor);
    while (g_hash_table_iter_next(&it, &key, &value)) {
        const int64_t f = *(int64_t *)value;
        uint32_t ports[2];
        nic_ports(m->net, GPOINTER_TO_UINT(key) - 1, ports);
        if (f != FENNEL_MILLION) {
            add_change(changes, ports[0], 0, NO_CAUSE, (uint64_t)f, FENNEL_MILLION);
            add_change(changes, ports[1], 0, NO_CAUSE, (uint64_t)f, FENNEL_MILLION);
        }
    }
    g_hash_table_destroy(port_factor);
    return TRUE;
}

/* The vertex of a name (`leaf0`, `node3`...), or FENNEL_LINK_NONE. */
static uint32_t vertex_named(const FennelNetwork *n, const char *name)
{
    char buf[32];
    for (uint32_t v = 0; v < n->vertices; v++) {
        if (strcmp(fennel_network_vertex_name(n, v, buf), name) == 0)
            return v;
    }
    return FENNEL_LINK_NONE;
}

/* A listed fault's link (or node, *node), or FALSE with the error. */
static gboolean fault_place(const FennelMachine *m, const FennelFaults *f, const char *where,
                            uint32_t *link, uint32_t *node, GError **error)
{
    const FennelNetwork *n = m->net;
    uint32_t from, to, level;
    *node = FENNEL_NO_RANK;
    const char *gt = strchr(where, '>');
    if (gt == NULL && g_str_has_prefix(where, "node")) {
        const uint64_t v = g_ascii_strtoull(where + 4, NULL, 10);
        if (v >= n->nodes) {
            section_error(error, f->file, f->line, f->col,
                          "faults.list: no %s in this topology (nodes 0 to %u)", where,
                          n->nodes - 1);
            return FALSE;
        }
        *node = (uint32_t)v;
        uint32_t ports[2];
        nic_ports(n, *node, ports); /* its first NIC's */
        *link = ports[0];
        return TRUE;
    }
    if (gt == NULL) {
        const uint64_t v = g_ascii_strtoull(where, NULL, 10);
        if (v >= n->links || !fennel_network_link(n, (uint32_t)v, &from, &to, &level)) {
            section_error(error, f->file, f->line, f->col,
                          "faults.list: no link %s in this topology", where);
            return FALSE;
        }
        *link = (uint32_t)v;
        return TRUE;
    }
    char *a_name = g_strndup(where, (gsize)(gt - where));
    const uint32_t a = vertex_named(n, a_name), b = vertex_named(n, gt + 1);
    g_free(a_name);
    /* a node's name is its first NIC's vertex; a link from or to any of its NICs is its */
    for (uint32_t l = 0; a != FENNEL_LINK_NONE && b != FENNEL_LINK_NONE && l < n->links; l++) {
        if (fennel_network_link(n, l, &from, &to, &level) &&
            fennel_network_port_node(n, from) == a && fennel_network_port_node(n, to) == b) {
            *link = l;
            return TRUE;
        }
    }
    section_error(error, f->file, f->line, f->col,
                  "faults.list: no link %s in this topology (vertex names as --links gives them)",
                  where);
    return FALSE;
}

/* Whether link l is one of the links drawn by faults.links: a link between switches or
 * routers (not a node's port). */
static gboolean drawable(const FennelNetwork *n, uint32_t l)
{
    uint32_t from, to, level;
    return l >= n->endpoint_links && fennel_network_link(n, l, &from, &to, &level);
}

static void add_fault(GArray *faults, GArray *changes, const FennelMachine *m, uint32_t link,
                      uint32_t node, FennelTime from, int64_t bandwidth)
{
    const uint32_t cause = faults->len;
    FennelFault fault = {.link = link, .node = node, .from = from, .bandwidth = bandwidth};
    g_array_append_val(faults, fault);
    if (cause == m->left_out)
        return;
    const uint64_t num = FENNEL_MILLION, den = (uint64_t)bandwidth;
    if (node == FENNEL_NO_RANK) {
        add_change(changes, link, from, cause, num, den);
        return;
    }
    /* a node's NIC fault: every NIC of the node */
    for (uint32_t nic = 0; nic < fennel_network_nics(m->net, node); nic++) {
        uint32_t ports[2];
        nic_ports(m->net, fennel_network_port(m->net, node, nic), ports);
        add_change(changes, ports[0], from, cause, num, den);
        add_change(changes, ports[1], from, cause, num, den);
    }
}

static gboolean resolve_faults(FennelMachine *m, GArray *faults, GArray *changes, GError **error)
{
    const FennelFaults *f = m->model->faults;
    const FennelNetwork *n = m->net;
    for (uint32_t i = 0; i < f->n_list; i++) {
        uint32_t link, node;
        if (!fault_place(m, f, f->list[i].where, &link, &node, error))
            return FALSE;
        add_fault(faults, changes, m, link, node, f->list[i].from, f->list[i].bandwidth);
    }
    if (f->links > 0) {
        uint32_t count = 0;
        for (uint32_t l = n->endpoint_links; l < n->links; l++)
            count += drawable(n, l);
        const uint32_t k = fennel_fraction_of(f->links, count);
        uint32_t *drawn = g_new(uint32_t, MAX(k, 1u));
        fennel_draw(m->seed, DRAW_LINKS, k, count, drawn);
        /* the drawn indices are in increasing order: one pass maps them to link numbers */
        uint32_t index = 0, next = 0;
        for (uint32_t l = n->endpoint_links; l < n->links && next < k; l++) {
            if (!drawable(n, l))
                continue;
            if (index++ == drawn[next]) {
                add_fault(faults, changes, m, l, FENNEL_NO_RANK, f->from, f->bandwidth);
                next++;
            }
        }
        g_free(drawn);
    }
    if (f->nics > 0) {
        const uint32_t k = fennel_fraction_of(f->nics, n->nodes);
        uint32_t *drawn = g_new(uint32_t, MAX(k, 1u));
        fennel_draw(m->seed, DRAW_NICS, k, n->nodes, drawn);
        for (uint32_t i = 0; i < k; i++) {
            uint32_t ports[2];
            nic_ports(n, drawn[i], ports);
            add_fault(faults, changes, m, ports[0], drawn[i], f->from, f->bandwidth);
        }
        g_free(drawn);
    }
    return TRUE;
}

static int compare_changes(const void *a, const void *b)
{
    const LinkChange *x = a, *y = b;
    if (x->link != y->link)
        return x->link < y->link ? -1 : 1;
    if (x->from != y->from)
        return x->from < y->from ? -1 : 1;
    return (x->cause > y->cause) - (x->cause < y->cause);
}

gboolean fennel__faults_resolve(FennelMachine *m, GError **error)
{
    if (m->faults_ready)
        return TRUE;
    m->faults_ready = TRUE;
    GArray *changes = g_array_new(FALSE, FALSE, sizeof(LinkChange));
    GArray *faults = g_array_new(FALSE, FALSE, sizeof(FennelFault));
    gboolean ok = TRUE;
    if (fennel_stragglers_any(m->model->stragglers))
        ok = resolve_stragglers(m, changes, error);
    if (ok && fennel_faults_any(m->model->faults) && m->net)
        ok = resolve_faults(m, faults, changes, error);
    m->n_faults = faults->len;
    m->faults = (FennelFault *)g_array_free(faults, FALSE);
    if (ok && changes->len > 0) {
        g_array_sort(changes, compare_changes);
        m->changed = g_new0(uint64_t, m->net->links / 64 + 1);
        for (guint i = 0; i < changes->len; i++) {
            const LinkChange *c = &g_array_index(changes, LinkChange, i);
            m->changed[c->link / 64] |= 1ull << (c->link % 64);
            m->any_down |= c->den == 0;
        }
    }
    m->n_changes = changes->len;
    m->changes = (LinkChange *)g_array_free(changes, FALSE);
    return ok;
}

void fennel__faults_free(FennelMachine *m)
{
    g_free(m->compute_factor);
    g_free(m->nic_factor);
    g_free(m->slow);
    g_free(m->faults);
    g_free(m->changes);
    g_free(m->changed);
}

const uint32_t *fennel_machine_stragglers(const FennelMachine *m, uint32_t *count)
{
    *count = m->n_slow;
    return m->slow;
}

const FennelFault *fennel_machine_faults(const FennelMachine *m, uint32_t *count)
{
    *count = m->n_faults;
    return m->faults;
}

void fennel_machine_leave_out_fault(FennelMachine *m, uint32_t index)
{
    m->left_out = index;
}

/* ---- rates and routes ---- */

/* The first change of link l (its changes follow it), by binary search. */
static const LinkChange *first_change(const FennelMachine *m, uint32_t l)
{
    uint32_t lo = 0, hi = m->n_changes;
    while (lo < hi) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (m->changes[mid].link < l)
            lo = mid + 1;
        else
            hi = mid;
    }
    return &m->changes[lo];
}

static void mark_met(FennelMachine *m, const LinkChange *c)
{
    if (c->cause != NO_CAUSE)
        m->faults[c->cause].met = TRUE;
}

FennelRate fennel__link_rate(FennelMachine *m, uint32_t l, FennelRate rate, FennelTime t,
                             gboolean *down)
{
    *down = FALSE;
    if (!link_changed(m, l))
        return rate;
    const LinkChange *end = m->changes + m->n_changes;
    for (const LinkChange *c = first_change(m, l); c < end && c->link == l && c->from <= t; c++) {
        mark_met(m, c);
        if (c->den == 0) {
            *down = TRUE;
            return rate;
        }
        rate = (FennelRate)(((__int128)rate * c->num + c->den / 2) / c->den);
    }
    return rate;
}

/* The first link of a route that is down at t (without marking anything), or
 * FENNEL_LINK_NONE. */
static uint32_t down_on_route(const FennelMachine *m, uint32_t src, uint32_t dst, uint32_t choice,
                              FennelTime t)
{
    const LinkChange *end = m->changes + m->n_changes;
    for (uint32_t at = src; at != dst;) {
        const FennelHop h = fennel_network_hop_via(m->net, at, dst, choice);
        if (link_changed(m, h.link)) {
            for (const LinkChange *c = first_change(m, h.link);
                 c < end && c->link == h.link && c->from <= t; c++) {
                if (c->den == 0)
                    return h.link;
            }
        }
        at = h.to;
    }
    return FENNEL_LINK_NONE;
}

/* Marks the faults that take link l down at t as met. */
static void mark_down(FennelMachine *m, uint32_t l, FennelTime t)
{
    const LinkChange *end = m->changes + m->n_changes;
    for (const LinkChange *c = first_change(m, l); c < end && c->link == l && c->from <= t; c++) {
        if (c->den == 0)
            mark_met(m, c);
    }
}

/* The index of a choice among the equal-cost routes from src to dst (topology.h: a fat tree's
 * choice c is route c mod their count, a rail topology's route c / gpus_per_node). */
static uint32_t choice_index(const FennelNetwork *n, uint32_t choice, uint32_t count)
{
    return n->kind == FENNEL_TOPOLOGY_RAIL ? choice / n->a % count : choice % count;
}

uint32_t fennel__route_alive(Run *run, uint32_t task, unsigned leg, uint32_t src, uint32_t dst,
                             uint32_t choice, FennelTime t)
{
    FennelMachine *m = run->m;
    if (!m->any_down)
        return choice;
    const uint32_t blocked = down_on_route(m, src, dst, choice, t);
    if (blocked == FENNEL_LINK_NONE)
        return choice;
    mark_down(m, blocked, t);
    const FennelNetwork *n = m->net;
    const uint32_t count = fennel_network_choices(n, src, dst);
    const uint32_t first = choice_index(n, choice, count);
    for (uint32_t i = 1; i < count; i++) {
        const uint32_t other = fennel_network_choice(n, (first + i) % count);
        const uint32_t l = down_on_route(m, src, dst, other, t);
        if (l == FENNEL_LINK_NONE)
            return other;
        mark_down(m, l, t);
    }
    fennel__cut(run, task, leg, blocked, t, TRUE);
    return FENNEL_LINK_NONE;
}

void fennel__cut(Run *run, uint32_t task, unsigned leg, uint32_t link, FennelTime t,
                 gboolean no_route)
{
    if (run->cut)
        return;
    mark_down(run->m, link, t);
    run->cut = TRUE;
    run->cut_task = task;
    run->cut_leg = leg;
    run->cut_link = link;
    run->cut_time = t;
    run->cut_no_route = no_route;
}

void fennel__report_cut(const Run *run, GError **error)
{
    const FennelProgram *p = run->p;
    const FennelMachine *m = run->m;
    const FennelNetwork *n = m->net;
    const uint32_t task = run->cut_task;
    const FennelTaskType type = p->type[task];
    const uint32_t src = run->cut_leg ? p->peer[task] : p->rank[task];
    const uint32_t dst = run->cut_leg ? p->rank[task] : p->peer[task];
    const int64_t bytes =
        type == FENNEL_TASK_GET && run->cut_leg == 0 ? p->request[task] : p->amount[task];
    const char *what = type == FENNEL_TASK_PUT    ? "put"
                       : type == FENNEL_TASK_SEND ? "send"
                       : run->cut_leg             ? "the response of get"
                                                  : "the request of get";
    char name[24], a[32], b[32], when[FENNEL_TIME_BUF], since[FENNEL_TIME_BUF];
    uint32_t from, to, level;
    fennel_network_link(n, run->cut_link, &from, &to, &level);
    /* the time the link went down: its latest change to down by then */
    FennelTime down = 0;
    const LinkChange *end = m->changes + m->n_changes;
    for (const LinkChange *c = first_change(m, run->cut_link);
         c < end && c->link == run->cut_link && c->from <= run->cut_time; c++) {
        if (c->den == 0) {
            down = c->from;
            break;
        }
    }
    GString *text = g_string_new(NULL);
    g_string_append_printf(
        text,
        "the program cannot finish: %s '%s' from rank %u to rank %u (%" G_GINT64_FORMAT
        " B) was cut off at %s ns: ",
        what, fennel_program_task_name(p, task, name), src, dst, bytes,
        fennel_format_ns(run->cut_time, when));
    char l1[32], l2[32];
    if (run->cut_no_route)
        g_string_append_printf(text,
                               "every route from %s to %s crosses a link that is down (link %u, "
                               "%s->%s, down from %s ns)",
                               fennel_network_vertex_name(n, node_of(m, src), l1),
                               fennel_network_vertex_name(n, node_of(m, dst), l2), run->cut_link,
                               fennel_network_vertex_name(n, from, a),
                               fennel_network_vertex_name(n, to, b), fennel_format_ns(down, since));
    else
        g_string_append_printf(text, "link %u (%s->%s) on its route is down from %s ns",
                               run->cut_link, fennel_network_vertex_name(n, from, a),
                               fennel_network_vertex_name(n, to, b), fennel_format_ns(down, since));
    fennel_error_at_code(error, FENNEL_ERROR_CUT, p->source, p->line ? p->line[task] : 0,
                         p->col ? p->col[task] : 0, "%s", text->str);
    g_string_free(text, TRUE);
}

/* ---- slow NICs ---- */

void fennel__nic_timing(Run *run, const FennelNetworkClass *net, const int64_t *params,
                        int64_t bytes, int64_t factor, FennelMessageTiming *out)
{
    const FennelModel *model = run->m->model;
    int64_t buf[FENNEL_MAX_PARAMS], scaled[FENNEL_MAX_PARAMS];
    const int64_t *p = fennel_model_params_at(model, params, bytes, buf);
    for (unsigned k = 0; k < FENNEL_MAX_PARAMS; k++)
        scaled[k] = (net->nic_params >> k & 1) ? fennel_times_millionths(p[k], factor) : p[k];
    /* The parameters at this size are given: the model must not look its tables up again. */
    FennelModel flat = *model;
    flat.sized = FALSE;
    net->message(&flat, scaled, bytes, out);
}
