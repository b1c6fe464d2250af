#include "model.h"

#include <string.h>

extern const FennelNetworkClass fennel_model_postal, fennel_model_lbp, fennel_model_logp,
    fennel_model_loggp;
extern const FennelComputeClass fennel_compute_fixed, fennel_compute_gamma,
    fennel_compute_reduction;

const FennelNetworkClass *const fennel_network_classes[] = {
    &fennel_model_postal, &fennel_model_lbp, &fennel_model_logp, &fennel_model_loggp, NULL,
};

const FennelComputeClass *const fennel_compute_classes[] = {
    &fennel_compute_fixed,
    &fennel_compute_gamma,
    &fennel_compute_reduction,
    NULL,
};

const FennelNetworkClass *fennel_network_class_find(const char *name)
{
    for (const FennelNetworkClass *const *c = fennel_network_classes; *c; c++) {
        if (strcmp((*c)->name, name) == 0)
            return *c;
    }
    return NULL;
}

const FennelComputeClass *fennel_compute_class_find(const char *name)
{
    for (const FennelComputeClass *const *c = fennel_compute_classes; *c; c++) {
        if (strcmp((*c)->name, name) == 0)
            return *c;
    }
    return NULL;
}

gboolean fennel_param_parse(FennelParamKind kind, const char *text, int64_t *out, const char **why)
{
    switch (kind) {
    case FENNEL_PARAM_DURATION:
        return fennel_parse_duration(text, out, why);
    case FENNEL_PARAM_RATE:
        return fennel_parse_rate(text, out, why);
    case FENNEL_PARAM_SIZE:
        /* "none": no threshold (stored as -1). */
        if (g_ascii_strcasecmp(text, "none") == 0) {
            *out = -1;
            return TRUE;
        }
        return fennel_parse_size(text, out, why);
    }
    *why = "unknown parameter kind";
    return FALSE;
}

static void set_defaults(const FennelParamSpec *specs, unsigned n, int64_t *values)
{
    for (unsigned i = 0; i < n; i++) {
        const char *why;
        if (!fennel_param_parse(specs[i].kind, specs[i].default_text, &values[i], &why))
            g_error("bad default for %s: %s", specs[i].name, why);
    }
}

void fennel_model_init(FennelModel *m)
{
    memset(m, 0, sizeof *m);
    fennel_model_set_network(m, &fennel_model_postal);
    fennel_model_set_intra(m, &fennel_model_postal);
    fennel_model_set_compute(m, &fennel_compute_fixed);
    m->resolution = FENNEL_PS;
    m->resolution_explicit = FALSE;
    const char *why;
    gboolean ok = fennel_parse_flops(FENNEL_GPU_DEFAULT_FLOPS, &m->gpu_flops, &why) &&
                  fennel_parse_bandwidth(FENNEL_GPU_DEFAULT_MEMORY, &m->gpu_memory, &why);
    g_assert(ok);
}

FennelTime fennel_model_roofline(const FennelModel *m, int64_t ops, int64_t bytes)
{
    /* ops x 10^18 / flops attoseconds, rounded up to the attosecond (below 2^127: ops and
     * bytes are below 2^63, 10^18 below 2^60). */
    __int128 compute =
        ((__int128)MAX(ops, 0) * 1000000000000000000 + m->gpu_flops - 1) / m->gpu_flops;
    __int128 memory = fennel_as_bytes(MAX(bytes, 0), m->gpu_memory);
    return fennel_model_quantise(m, MAX(compute, memory));
}

void fennel_model_clear(FennelModel *m)
{
    for (int i = 0; i < FENNEL_NOISE_N_STREAMS; i++) {
        g_free(m->noise[i].samples);
        m->noise[i].samples = NULL;
    }
    for (unsigned k = 0; k < FENNEL_MAX_PARAMS; k++) {
        fennel_model_set_table(m, FALSE, k, NULL);
        fennel_model_set_table(m, TRUE, k, NULL);
    }
    fennel_topology_free(m->topology);
    m->topology = NULL;
    fennel_stragglers_free(m->stragglers);
    m->stragglers = NULL;
    fennel_faults_free(m->faults);
    m->faults = NULL;
    g_free(m->order_list);
    m->order_list = NULL;
}

void fennel_model_copy(FennelModel *dst, const FennelModel *src)
{
    *dst = *src;
    for (int i = 0; i < FENNEL_NOISE_N_STREAMS; i++) {
        if (src->noise[i].samples)
            dst->noise[i].samples =
                g_memdup2(src->noise[i].samples, src->noise[i].n_samples * sizeof(double));
    }
    for (unsigned k = 0; k < FENNEL_MAX_PARAMS; k++) {
        dst->net_table[k] = fennel_param_table_copy(src->net_table[k]);
        dst->intra_table[k] = fennel_param_table_copy(src->intra_table[k]);
    }
    dst->topology = fennel_topology_copy(src->topology);
    dst->stragglers = fennel_stragglers_copy(src->stragglers);
    dst->faults = fennel_faults_copy(src->faults);
    dst->order_list =
        src->order_list ? g_memdup2(src->order_list, src->n_order * sizeof(uint32_t)) : NULL;
}

gboolean fennel_model_set_order(FennelModel *m, const char *text, char **why)
{
    if (strcmp(text, "linear") == 0 || strcmp(text, "round-robin") == 0) {
        m->order = text[0] == 'l' ? FENNEL_ORDER_LINEAR : FENNEL_ORDER_ROUND_ROBIN;
        g_clear_pointer(&m->order_list, g_free);
        m->n_order = 0;
        return TRUE;
    }
    char *copy = g_strdup(text);
    g_strstrip(g_strdelimit(copy, "[]", ' '));
    char **all = g_strsplit_set(copy, ", ", -1);
    GPtrArray *kept = g_ptr_array_new();
    for (char **p = all; *p; p++)
        if (**p)
            g_ptr_array_add(kept, *p);
    g_ptr_array_add(kept, NULL);
    char **parts = (char **)kept->pdata;
    guint n = kept->len - 1;
    uint32_t *list = g_new(uint32_t, MAX(n, 1u));
    uint8_t *seen = g_new0(uint8_t, MAX(n, 1u));
    gboolean ok = n > 0;
    for (guint i = 0; ok && i < n; i++) {
        int64_t v;
        const char *reason;
        ok = fennel_parse_int(g_strstrip(parts[i]), 0, (int64_t)n - 1, &v, &reason) && !seen[v];
        if (ok) {
            list[i] = (uint32_t)v;
            seen[v] = 1;
        }
    }
    g_ptr_array_free(kept, TRUE);
    g_strfreev(all);
    g_free(copy);
    g_free(seen);
    if (!ok) {
        g_free(list);
        *why = g_strdup_printf("order: expected linear, round-robin or a permutation of 0..n-1 "
                               "such as [2, 0, 3, 1], got '%s'",
                               text);
        return FALSE;
    }
    g_free(m->order_list);
    m->order = FENNEL_ORDER_LIST;
    m->order_list = list;
    m->n_order = n;
    return TRUE;
}

char *fennel_model_order_describe(const FennelModel *m)
{
    if (m->order != FENNEL_ORDER_LIST)
        return g_strdup(m->order == FENNEL_ORDER_LINEAR ? "linear" : "round-robin");
    GString *s = g_string_new("[");
    for (uint32_t i = 0; i < m->n_order; i++)
        g_string_append_printf(s, "%s%u", i ? ", " : "", m->order_list[i]);
    g_string_append_c(s, ']');
    return g_string_free(s, FALSE);
}

/* A class's defaults. Values beyond its table are zero (LogP uses the first three
 * entries of LogGP's table; its G and O are then 0). */
static void network_defaults(const FennelNetworkClass *klass, int64_t *values)
{
    memset(values, 0, sizeof(int64_t) * FENNEL_MAX_PARAMS);
    set_defaults(klass->params, klass->n_params, values);
}

void fennel_model_set_network(FennelModel *m, const FennelNetworkClass *klass)
{
    m->network = klass;
    network_defaults(klass, m->net);
    for (unsigned k = 0; k < FENNEL_MAX_PARAMS; k++)
        fennel_model_set_table(m, FALSE, k, NULL);
}

void fennel_model_set_intra(FennelModel *m, const FennelNetworkClass *klass)
{
    m->intra_network = klass;
    network_defaults(klass, m->intra);
    for (unsigned k = 0; k < FENNEL_MAX_PARAMS; k++)
        fennel_model_set_table(m, TRUE, k, NULL);
}

gboolean fennel_model_contended(const FennelModel *m)
{
    return (m->network->flags & FENNEL_NET_CONTENDED) ||
           (m->ranks_per_node && !m->intra_same &&
            (m->intra_network->flags & FENNEL_NET_CONTENDED));
}

char *fennel_model_ports_problem(const FennelModel *m)
{
    if (!m->nic_shared && !m->half_duplex)
        return NULL;
    const char *what = m->nic_shared ? "nic: shared" : "duplex: half";
    if (m->topology)
        return g_strdup_printf("%s: the ports are timed by the network model, without a "
                               "topology (on one, contention endpoint shares the nodes' ports)",
                               what);
    if (m->network->flags & FENNEL_NET_CONTENDED)
        return g_strdup_printf("%s: needs a postal or lbp network model (LogP and LogGP time "
                               "each rank's NIC with g and G)",
                               what);
    return NULL;
}

char *fennel_model_eager_problem(const FennelModel *m)
{
    /* An eager sender is timed by its bytes leaving it, which a topology's links would time
     * instead; only a model whose sender waits has anything to shorten. */
    if (m->eager_limit && m->topology)
        return g_strdup("eager: timed by the network model, without a topology");
    if (m->eager_limit && !(m->network->flags & FENNEL_NET_SENDER_WAITS))
        return g_strdup_printf("eager: needs a network model whose sender waits for its "
                               "message (postal); %s times its sender's overhead itself",
                               m->network->name);
    return NULL;
}

char *fennel_model_topology_problem(const FennelModel *m)
{
    if (m->stragglers) {
        char *why = fennel_stragglers_problem(m->stragglers);
        if (why)
            return why;
    }
    if (fennel_faults_any(m->faults) && m->topology == NULL)
        return g_strdup("faults: links and NICs fail on a topology (a topology section, or "
                        "topology.kind=...)");
    char *ports = fennel_model_ports_problem(m);
    if (ports)
        return ports;
    char *eager = fennel_model_eager_problem(m);
    if (eager)
        return eager;
    if (m->topology)
        return fennel_topology_problem(m->topology);
    if (m->contention != FENNEL_CONTENTION_NONE)
        return g_strdup_printf("contention: %s needs a topology (a topology section, or "
                               "topology.kind=...)",
                               fennel_contention_name(m->contention));
    return NULL;
}

/* `duplex`: full or half, or by size: the first range's mode, then ", MODE from SIZE" for
 * each size from which the mode changes, the sizes increasing. */
static gboolean set_duplex(FennelModel *m, const char *value, char **why)
{
    char **items = g_strsplit(value, ",", -1);
    uint32_t n = 0;
    gboolean half[FENNEL_MAX_DUPLEX_RANGES];
    int64_t from[FENNEL_MAX_DUPLEX_RANGES];
    const char *problem = NULL;
    for (char **it = items; *it != NULL && problem == NULL; it++) {
        char *item = g_strstrip(*it);
        char *mode = item, *size = NULL;
        if (it != items) {
            char *sep = strstr(item, " from ");
            if (sep == NULL) {
                problem = "each range after the first is 'MODE from SIZE'";
                break;
            }
            *sep = '\0';
            size = g_strstrip(sep + 6);
        }
        if (strcmp(mode, "full") != 0 && strcmp(mode, "half") != 0) {
            problem = "a mode is full or half";
            break;
        }
        if (n == FENNEL_MAX_DUPLEX_RANGES) {
            problem = "at most 8 ranges";
            break;
        }
        int64_t at = 0;
        const char *reason;
        if (size != NULL && !fennel_parse_size(size, &at, &reason)) {
            problem = "each range starts at a size (8KiB)";
            break;
        }
        if (n > 0 && at <= from[n - 1]) {
            problem = "the sizes increase";
            break;
        }
        if (n > 0 && (mode[0] == 'h') == half[n - 1]) {
            problem = "each range changes the mode";
            break;
        }
        from[n] = at;
        half[n++] = mode[0] == 'h';
    }
    g_strfreev(items);
    if (problem != NULL || n == 0) {
        *why = g_strdup_printf("duplex: expected full or half, or 'half, full from 8KiB, ...' "
                               "(%s), got '%s'",
                               problem ? problem : "a mode is full or half", value);
        return FALSE;
    }
    m->half_duplex = FALSE;
    for (uint32_t k = 0; k < n; k++)
        m->half_duplex |= half[k];
    /* One range is the plain key: full (no ranges) or half. */
    m->n_duplex = n > 1 ? n : 0;
    for (uint32_t k = 0; k < m->n_duplex; k++) {
        m->duplex_from[k] = from[k];
        m->duplex_half[k] = half[k];
    }
    return TRUE;
}

gboolean fennel_model_half_duplex_at(const FennelModel *m, int64_t bytes)
{
    if (m->n_duplex == 0)
        return m->half_duplex;
    uint32_t k = m->n_duplex - 1;
    while (k > 0 && bytes < m->duplex_from[k])
        k--;
    return m->duplex_half[k];
}

char *fennel_model_duplex_text(const FennelModel *m)
{
    if (m->n_duplex == 0)
        return g_strdup(m->half_duplex ? "half" : "full");
    GString *s = g_string_new(m->duplex_half[0] ? "half" : "full");
    for (uint32_t k = 1; k < m->n_duplex; k++)
        g_string_append_printf(s, ", %s from %" G_GINT64_FORMAT "B",
                               m->duplex_half[k] ? "half" : "full", m->duplex_from[k]);
    return g_string_free(s, FALSE);
}

gboolean fennel_model_set_ports(FennelModel *m, const char *key, const char *value, char **why)
{
    if (strcmp(key, "duplex") == 0)
        return set_duplex(m, value, why);
    if (strcmp(value, "own") != 0 && strcmp(value, "shared") != 0) {
        *why = g_strdup_printf("nic: expected own or shared, got '%s'", value);
        return FALSE;
    }
    m->nic_shared = value[0] == 's';
    m->nic_given = TRUE;
    return TRUE;
}

gboolean fennel_model_share_nic_default(FennelModel *m)
{
    if (m->ranks_per_node < 2 || m->nic_given || m->nic_shared || m->topology ||
        (m->network->flags & FENNEL_NET_CONTENDED))
        return FALSE;
    m->nic_shared = TRUE;
    return TRUE;
}

void fennel_model_set_intra_default(FennelModel *m)
{
    fennel_model_set_intra(m, &fennel_model_postal);
    const char *why = NULL;
    gboolean ok =
        fennel_param_parse(FENNEL_PARAM_DURATION, FENNEL_INTRA_DEFAULT_ALPHA,
                           &m->intra[fennel_param_find(m->intra_network->params,
                                                       m->intra_network->n_params, "alpha")],
                           &why) &&
        fennel_param_parse(FENNEL_PARAM_RATE, FENNEL_INTRA_DEFAULT_BETA,
                           &m->intra[fennel_param_find(m->intra_network->params,
                                                       m->intra_network->n_params, "beta")],
                           &why);
    g_assert(ok);
    m->intra_given = TRUE;
    m->intra_same = FALSE;
}

const char *fennel_model_placement_problem(const FennelModel *m)
{
    if (m->ranks_per_node && !m->intra_given)
        return "ranks_per_node needs an intra model for messages within a node (an intra "
               "section, or `intra: same` to time them like the others); without one they "
               "would cost nothing";
    return NULL;
}

void fennel_model_set_compute(FennelModel *m, const FennelComputeClass *klass)
{
    m->compute = klass;
    memset(m->comp, 0, sizeof m->comp);
    set_defaults(klass->params, klass->n_params, m->comp);
}

char *fennel_param_names(const FennelParamSpec *specs, unsigned n)
{
    GString *s = g_string_new(NULL);
    for (unsigned i = 0; i < n; i++)
        g_string_append_printf(s, "%s%s", i ? ", " : "", specs[i].name);
    return g_string_free(s, FALSE);
}

int fennel_param_find(const FennelParamSpec *specs, unsigned n, const char *name)
{
    for (unsigned i = 0; i < n; i++) {
        if (strcmp(specs[i].name, name) == 0)
            return (int)i;
    }
    return -1;
}

char *fennel_model_class_names(gboolean network)
{
    GString *s = g_string_new(NULL);
    if (network) {
        for (const FennelNetworkClass *const *c = fennel_network_classes; *c; c++)
            g_string_append_printf(s, "%s%s", s->len ? ", " : "", (*c)->name);
    } else {
        for (const FennelComputeClass *const *c = fennel_compute_classes; *c; c++)
            g_string_append_printf(s, "%s%s", s->len ? ", " : "", (*c)->name);
    }
    return g_string_free(s, FALSE);
}

gboolean fennel_ordering_parse(const char *text, FennelOrdering *out)
{
    if (strcmp(text, "fennel") == 0)
        *out = FENNEL_ORDERING_FENNEL;
    else if (strcmp(text, "loggopsim") == 0)
        *out = FENNEL_ORDERING_LOGGOPSIM;
    else
        return FALSE;
    return TRUE;
}

FennelTime fennel_model_quantise(const FennelModel *m, __int128 as)
{
    /* Every noise sample passes here, and 128-bit division is a library call: the same
     * arithmetic in 64 bits when nothing can overflow (|as| and the unit below 2^62, so
     * the rounded sum stays below 2^63 and the result far below FENNEL_TIME_MAX). */
    const int64_t limit = (int64_t)1 << 62;
    if (as > -limit && as < limit && m->resolution <= limit / FENNEL_AS_PER_PS) {
        const int64_t a = (int64_t)as, unit = m->resolution * FENNEL_AS_PER_PS;
        int64_t q;
        if (m->resolution_explicit) {
            q = a / unit;
        } else {
            /* Half away from zero, as below, with the sign taken off and put back by
             * masks: a noise sample's sign is a coin toss, which a branch mispredicts
             * every other sample (docs/PERFORMANCE.md, Noise). */
            const int64_t half = unit / 2, sign = a >> 63; /* 0 or -1 */
            q = (((a ^ sign) - sign) + half) / unit;
            q = (q ^ sign) - sign;
        }
        return q * m->resolution;
    }
    __int128 unit = (__int128)m->resolution * FENNEL_AS_PER_PS;
    __int128 q;
    if (m->resolution_explicit) {
        q = as / unit; /* C division truncates toward zero */
    } else {
        __int128 half = unit / 2;
        q = as >= 0 ? (as + half) / unit : -((-as + half) / unit);
    }
    __int128 ps = q * m->resolution;
    if (ps > (__int128)FENNEL_TIME_MAX)
        return FENNEL_TIME_MAX;
    if (ps < -(__int128)FENNEL_TIME_MAX)
        return -FENNEL_TIME_MAX;
    return (FennelTime)ps;
}

const char *fennel_param_unit(FennelParamKind kind)
{
    switch (kind) {
    case FENNEL_PARAM_DURATION:
        return "ns";
    case FENNEL_PARAM_RATE:
        return "ns/B";
    case FENNEL_PARAM_SIZE:
        return "B";
    }
    return "";
}

char *fennel_param_format(FennelParamKind kind, int64_t value, char buf[48])
{
    char num[FENNEL_TIME_BUF];
    switch (kind) {
    case FENNEL_PARAM_DURATION:
        fennel_format_ns(value, num);
        break;
    case FENNEL_PARAM_RATE:
        fennel_format_rate(value, num);
        break;
    case FENNEL_PARAM_SIZE:
        if (value < 0) {
            g_strlcpy(buf, "none", 48);
            return buf;
        }
        g_snprintf(num, sizeof num, "%" G_GINT64_FORMAT, value);
        break;
    }
    g_snprintf(buf, 48, "%s%s", num, fennel_param_unit(kind));
    return buf;
}

static void describe_params(GString *s, const FennelParamSpec *specs, unsigned n,
                            const int64_t *values, FennelParamTable *const *tables)
{
    char buf[48];
    for (unsigned i = 0; i < n; i++) {
        if (tables && tables[i]) {
            char *t = fennel_param_table_format(specs[i].kind, tables[i]);
            g_string_append_printf(s, " %s=%s", specs[i].name, t);
            g_free(t);
        } else {
            g_string_append_printf(s, " %s=%s", specs[i].name,
                                   fennel_param_format(specs[i].kind, values[i], buf));
        }
    }
}

char *fennel_model_describe(const FennelModel *m)
{
    GString *s = g_string_new(m->network->name);
    describe_params(s, m->network->params, m->network->n_params, m->net, m->net_table);
    if (m->ranks_per_node && m->intra_same) {
        /* `intra: same`: those messages are timed by the network model (and the topology). */
        g_string_append_printf(s, "; %u ranks per node, within a node the same model",
                               m->ranks_per_node);
    } else if (m->ranks_per_node) {
        g_string_append_printf(s, "; %u ranks per node, within a node %s", m->ranks_per_node,
                               m->intra_network->name);
        describe_params(s, m->intra_network->params, m->intra_network->n_params, m->intra,
                        m->intra_table);
    }
    g_string_append_printf(s, "; compute %s", m->compute->name);
    describe_params(s, m->compute->params, m->compute->n_params, m->comp, NULL);
    for (int i = 0; i < FENNEL_NOISE_N_STREAMS; i++) {
        if (m->noise[i].kind != FENNEL_NOISE_NONE) {
            char *d = fennel_noise_describe(&m->noise[i]);
            g_string_append_printf(s, "; %s noise %s", fennel_noise_stream_name(i), d);
            g_free(d);
        }
    }
    if (m->nic_shared)
        g_string_append(s, "; the ranks of a node share its NIC");
    if (m->half_duplex && m->n_duplex == 0) {
        g_string_append(s, "; ports half duplex");
    } else if (m->half_duplex) {
        char *d = fennel_model_duplex_text(m);
        g_string_append_printf(s, "; ports duplex %s", d);
        g_free(d);
    }
    if (m->eager_limit)
        g_string_append_printf(s, "; eager below %" G_GINT64_FORMAT " B", m->eager_limit);
    if (m->order != FENNEL_ORDER_LINEAR) {
        char *o = fennel_model_order_describe(m);
        g_string_append_printf(s, "; rank order %s", o);
        g_free(o);
    }
    if (m->topology) {
        char *t = fennel_topology_describe(m->topology);
        g_string_append_printf(s, "; topology %s; contention %s", t,
                               fennel_contention_name(m->contention));
        g_free(t);
    }
    if (m->gpu_given) {
        /* The largest unit that divides the rate: 312TFLOP/s, 19500GFLOP/s, 7FLOP/s. */
        static const char *const prefixes[] = {"", "k", "M", "G", "T", "P"};
        int64_t flops = m->gpu_flops;
        unsigned k = 0;
        while (k + 1 < G_N_ELEMENTS(prefixes) && flops % 1000 == 0)
            flops /= 1000, k++;
        char buf[FENNEL_TIME_BUF];
        g_string_append_printf(s, "; gpu %" G_GINT64_FORMAT "%sFLOP/s, memory %s", flops,
                               prefixes[k], fennel_format_bandwidth(m->gpu_memory, buf));
    }
    if (fennel_stragglers_any(m->stragglers)) {
        char *d = fennel_stragglers_describe(m->stragglers);
        g_string_append_printf(s, "; stragglers %s", d);
        g_free(d);
    }
    if (fennel_faults_any(m->faults)) {
        char *d = fennel_faults_describe(m->faults);
        g_string_append_printf(s, "; faults %s", d);
        g_free(d);
    }
    if (m->ordering == FENNEL_ORDERING_LOGGOPSIM)
        g_string_append(s, "; ordering loggopsim");
    if (m->resolution % FENNEL_NS == 0)
        g_string_append_printf(s, "; resolution %" G_GINT64_FORMAT "ns", m->resolution / FENNEL_NS);
    else
        g_string_append_printf(s, "; resolution %" G_GINT64_FORMAT "ps", m->resolution);
    g_string_append(s, m->resolution_explicit ? " (truncating)" : " (rounding)");
    return g_string_free(s, FALSE);
}

/* A size-dependent parameter in JSON: its points as [bytes, value] pairs. */
static void json_table(GString *out, FennelParamKind kind, const FennelParamTable *t)
{
    char num[FENNEL_TIME_BUF];
    g_string_append_c(out, '[');
    for (uint32_t i = 0; i < t->n; i++)
        g_string_append_printf(out, "%s[%" G_GINT64_FORMAT ",%s]", i ? "," : "", t->points[i].bytes,
                               kind == FENNEL_PARAM_RATE
                                   ? fennel_format_rate(t->points[i].value, num)
                                   : fennel_format_ns(t->points[i].value, num));
    g_string_append_c(out, ']');
}

static void json_params(GString *out, const FennelParamSpec *specs, unsigned n,
                        const int64_t *values, FennelParamTable *const *tables)
{
    char num[FENNEL_TIME_BUF];
    for (unsigned i = 0; i < n; i++) {
        if (specs[i].kind == FENNEL_PARAM_DURATION)
            g_string_append_printf(out, ",\"%s_ns\":", specs[i].name);
        else if (specs[i].kind == FENNEL_PARAM_RATE)
            g_string_append_printf(out, ",\"%s_ns_per_byte\":", specs[i].name);
        else
            g_string_append_printf(out, ",\"%s_bytes\":", specs[i].name);
        if (tables && tables[i])
            json_table(out, specs[i].kind, tables[i]);
        else if (specs[i].kind == FENNEL_PARAM_DURATION)
            g_string_append(out, fennel_format_ns(values[i], num));
        else if (specs[i].kind == FENNEL_PARAM_RATE)
            g_string_append(out, fennel_format_rate(values[i], num));
        else if (values[i] < 0)
            g_string_append(out, "null");
        else
            g_string_append_printf(out, "%" G_GINT64_FORMAT, values[i]);
    }
}

void fennel_model_append_json(const FennelModel *m, GString *out)
{
    char num[FENNEL_TIME_BUF];
    g_string_append_printf(out, "{\"network\":{\"model\":\"%s\"", m->network->name);
    json_params(out, m->network->params, m->network->n_params, m->net, m->net_table);
    g_string_append(out, "}");
    if (m->ranks_per_node && m->intra_same) {
        g_string_append_printf(out,
                               ",\"placement\":{\"ranks_per_node\":%u},\"intra\":{"
                               "\"model\":\"same\"}",
                               m->ranks_per_node);
    } else if (m->ranks_per_node) {
        g_string_append_printf(out,
                               ",\"placement\":{\"ranks_per_node\":%u},\"intra\":{"
                               "\"model\":\"%s\"",
                               m->ranks_per_node, m->intra_network->name);
        json_params(out, m->intra_network->params, m->intra_network->n_params, m->intra,
                    m->intra_table);
        g_string_append(out, "}");
    }
    g_string_append_printf(out, ",\"compute\":{\"model\":\"%s\"", m->compute->name);
    json_params(out, m->compute->params, m->compute->n_params, m->comp, NULL);
    for (int i = 0; i < FENNEL_NOISE_N_STREAMS; i++) {
        if (m->noise[i].kind != FENNEL_NOISE_NONE) {
            g_string_append_printf(out, "},\"noise_%s\":{", fennel_noise_stream_name(i));
            fennel_noise_append_json(&m->noise[i], out);
        }
    }
    g_string_append(out, "}");
    if (m->nic_shared)
        g_string_append(out, ",\"nic\":\"shared\"");
    if (m->half_duplex) {
        char *d = fennel_model_duplex_text(m);
        g_string_append_printf(out, ",\"duplex\":\"%s\"", d);
        g_free(d);
    }
    if (m->eager_limit)
        g_string_append_printf(out, ",\"eager_bytes\":%" G_GINT64_FORMAT, m->eager_limit);
    if (m->topology) {
        g_string_append(out, ",\"topology\":");
        fennel_topology_append_json(m->topology, m->contention, out);
    }
    if (m->gpu_given)
        g_string_append_printf(
            out, ",\"gpu\":{\"flops\":%" G_GINT64_FORMAT ",\"memory_ns_per_byte\":%s}",
            m->gpu_flops, fennel_format_rate(m->gpu_memory, num));
    if (fennel_stragglers_any(m->stragglers)) {
        g_string_append(out, ",\"stragglers\":");
        fennel_stragglers_append_json(m->stragglers, out);
    }
    if (fennel_faults_any(m->faults)) {
        g_string_append(out, ",\"faults\":");
        fennel_faults_append_json(m->faults, out);
    }
    if (m->ordering == FENNEL_ORDERING_LOGGOPSIM)
        g_string_append(out, ",\"ordering\":\"loggopsim\"");
    g_string_append_printf(out, ",\"resolution_ns\":%s,\"resolution_truncates\":%s}",
                           fennel_format_ns(m->resolution, num),
                           m->resolution_explicit ? "true" : "false");
}
