#include "jobs.h"

#include <stddef.h>
#include <string.h>

#include "engine.h"
#include "errors.h"
#include "instrument.h"
#include "json.h"
#include "map.h"
#include "yaml_reader.h"

/* ---- the jobs file ---- */

/* The generator options a job may give, by their command-line names. */
static const struct {
    const char *key;
    size_t offset;
} gen_keys[] = {
    {"ranks", offsetof(FennelGenTextOptions, ranks)},
    {"size", offsetof(FennelGenTextOptions, size)},
    {"schedule", offsetof(FennelGenTextOptions, schedule)},
    {"root", offsetof(FennelGenTextOptions, root)},
    {"rounds", offsetof(FennelGenTextOptions, rounds)},
    {"width", offsetof(FennelGenTextOptions, width)},
    {"radix", offsetof(FennelGenTextOptions, radix)},
    {"ppn", offsetof(FennelGenTextOptions, ppn)},
    {"partitions", offsetof(FennelGenTextOptions, partitions)},
    {"threshold", offsetof(FennelGenTextOptions, threshold)},
    {"variant", offsetof(FennelGenTextOptions, variant)},
    {"parallel", offsetof(FennelGenTextOptions, parallel)},
    {"segment", offsetof(FennelGenTextOptions, segment)},
};

static const char *const placement_names[] = {"contiguous", "random", "spread"};

static char **gen_field(FennelGenTextOptions *g, const char *key)
{
    for (size_t i = 0; i < G_N_ELEMENTS(gen_keys); i++)
        if (strcmp(gen_keys[i].key, key) == 0)
            return (char **)((char *)g + gen_keys[i].offset);
    return NULL;
}

/* A scalar value of key `key`, or an error at the value. */
static gboolean scalar(FennelYaml *y, const char *key, GError **error)
{
    if (fennel_yaml_type(y) != YAML_SCALAR_EVENT)
        return fennel_yaml_error(y, error, "%s: expected a value, got %s", key,
                                 fennel_yaml_describe(y));
    return TRUE;
}

static gboolean read_nodes(FennelYaml *y, FennelJob *job, GError **error)
{
    GArray *nodes = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    GArray *lines = g_array_new(FALSE, FALSE, sizeof(unsigned));
    GArray *cols = g_array_new(FALSE, FALSE, sizeof(unsigned));
    gboolean ok = fennel_yaml_next(y, error);
    while (ok && fennel_yaml_type(y) != YAML_SEQUENCE_END_EVENT) {
        int64_t v;
        const char *why;
        ok = scalar(y, "placement", error);
        if (ok && !fennel_parse_int(fennel_yaml_scalar(y), 0, UINT32_MAX - 1, &v, &why))
            ok = fennel_yaml_error(y, error, "placement: a node is a number from 0, got '%s'",
                                   fennel_yaml_scalar(y));
        for (guint i = 0; ok && i < nodes->len; i++)
            if (g_array_index(nodes, uint32_t, i) == (uint32_t)v)
                ok = fennel_yaml_error(y, error, "placement: node %u is listed twice", (uint32_t)v);
        if (ok) {
            uint32_t n = (uint32_t)v;
            unsigned line = fennel_yaml_line(y), col = fennel_yaml_col(y);
            g_array_append_val(nodes, n);
            g_array_append_val(lines, line);
            g_array_append_val(cols, col);
            ok = fennel_yaml_next(y, error);
        }
    }
    if (ok && nodes->len == 0)
        ok = fennel_yaml_error(y, error, "placement: the list names no node");
    job->placement = FENNEL_PLACE_LIST;
    job->n_nodes = nodes->len;
    job->nodes = (uint32_t *)g_array_free(nodes, FALSE);
    job->node_line = (unsigned *)g_array_free(lines, FALSE);
    job->node_col = (unsigned *)g_array_free(cols, FALSE);
    return ok && fennel_yaml_next(y, error);
}

static gboolean read_placement(FennelYaml *y, FennelJob *job, GError **error)
{
    if (fennel_yaml_type(y) == YAML_SEQUENCE_START_EVENT)
        return read_nodes(y, job, error);
    if (!scalar(y, "placement", error))
        return FALSE;
    for (size_t i = 0; i < G_N_ELEMENTS(placement_names); i++)
        if (strcmp(fennel_yaml_scalar(y), placement_names[i]) == 0) {
            job->placement = (FennelPlacement)i;
            return fennel_yaml_next(y, error);
        }
    return fennel_yaml_error(y, error,
                             "placement: expected contiguous, random, spread or a list of nodes "
                             "such as [0, 4], got '%s'",
                             fennel_yaml_scalar(y));
}

static gboolean read_job(FennelYaml *y, FennelJob *job, uint32_t index, GError **error)
{
    if (fennel_yaml_type(y) != YAML_MAPPING_START_EVENT)
        return fennel_yaml_error(y, error, "jobs: expected a job (a mapping), got %s",
                                 fennel_yaml_describe(y));
    job->line = fennel_yaml_line(y);
    job->col = fennel_yaml_col(y);
    GHashTable *seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    gboolean ok = fennel_yaml_next(y, error);
    gboolean gen_line_set = FALSE;
    unsigned gen_line = 0, gen_col = 0;
    char *gen_key = NULL;
    while (ok && fennel_yaml_type(y) != YAML_MAPPING_END_EVENT) {
        if (fennel_yaml_type(y) != YAML_SCALAR_EVENT) {
            ok =
                fennel_yaml_error(y, error, "job: expected a key, got %s", fennel_yaml_describe(y));
            break;
        }
        char *key = g_strdup(fennel_yaml_scalar(y));
        char **field = gen_field(&job->gen, key);
        gboolean known = field || strcmp(key, "name") == 0 || strcmp(key, "program") == 0 ||
                         strcmp(key, "generate") == 0 || strcmp(key, "start") == 0 ||
                         strcmp(key, "placement") == 0;
        if (!known)
            ok = fennel_yaml_error(y, error,
                                   "job: unknown key '%s' (expected name, program, generate and "
                                   "its options such as ranks and size, start, placement)",
                                   key);
        else if (g_hash_table_contains(seen, key))
            ok = fennel_yaml_error(y, error, "job: duplicate key '%s'", key);
        if (ok && field && !gen_line_set) {
            gen_line_set = TRUE;
            gen_line = fennel_yaml_line(y);
            gen_col = fennel_yaml_col(y);
            gen_key = g_strdup(key);
        }
        ok = ok && fennel_yaml_next(y, error);
        if (ok && strcmp(key, "placement") == 0) {
            ok = read_placement(y, job, error);
        } else if (ok && scalar(y, key, error)) {
            const char *v = fennel_yaml_scalar(y);
            const char *why;
            if (strcmp(key, "start") == 0) {
                if (!fennel_parse_duration(v, &job->start, &why))
                    ok = fennel_yaml_error(y, error,
                                           "start: expected a duration such as 10us, got '%s' "
                                           "(%s)",
                                           v, why);
            } else if (field) {
                *field = g_strdup(v);
            } else {
                char **text = strcmp(key, "name") == 0      ? &job->name
                              : strcmp(key, "program") == 0 ? &job->program
                                                            : &job->generate;
                if (*v == '\0')
                    ok = fennel_yaml_error(y, error, "%s: expected a value, got nothing", key);
                *text = g_strdup(v);
            }
            ok = ok && fennel_yaml_next(y, error);
        } else {
            ok = FALSE;
        }
        if (ok)
            g_hash_table_add(seen, key);
        else
            g_free(key);
    }
    g_hash_table_destroy(seen);
    if (ok && (job->program == NULL) == (job->generate == NULL)) {
        fennel_error_at(error, y->file, job->line, job->col,
                        "job: give a program file (program) or a generator (generate), one of "
                        "them");
        ok = FALSE;
    }
    if (ok && job->program && gen_line_set) {
        fennel_error_at(error, y->file, gen_line, gen_col,
                        "%s: a generator option, but the job runs a program file", gen_key);
        ok = FALSE;
    }
    g_free(gen_key);
    if (ok && job->name == NULL)
        job->name = g_strdup_printf("job%u", index);
    return ok && fennel_yaml_next(y, error);
}

static gboolean read_jobs(FennelYaml *y, FennelJobs *out, GError **error)
{
    if (fennel_yaml_type(y) != YAML_MAPPING_START_EVENT)
        return fennel_yaml_error(y, error, "expected a mapping with a 'jobs' list, got %s",
                                 fennel_yaml_describe(y));
    gboolean ok = fennel_yaml_next(y, error), seen = FALSE;
    GArray *jobs = g_array_new(FALSE, TRUE, sizeof(FennelJob));
    while (ok && fennel_yaml_type(y) != YAML_MAPPING_END_EVENT) {
        if (fennel_yaml_type(y) != YAML_SCALAR_EVENT ||
            strcmp(fennel_yaml_scalar(y), "jobs") != 0) {
            ok = fennel_yaml_error(y, error, "unknown key '%s' (expected jobs)",
                                   fennel_yaml_type(y) == YAML_SCALAR_EVENT
                                       ? fennel_yaml_scalar(y)
                                       : fennel_yaml_describe(y));
            break;
        }
        if (seen) {
            ok = fennel_yaml_error(y, error, "duplicate key 'jobs'");
            break;
        }
        seen = TRUE;
        ok = fennel_yaml_next(y, error);
        if (ok && fennel_yaml_type(y) != YAML_SEQUENCE_START_EVENT)
            ok = fennel_yaml_error(y, error, "jobs: expected a list of jobs, got %s",
                                   fennel_yaml_describe(y));
        ok = ok && fennel_yaml_next(y, error);
        while (ok && fennel_yaml_type(y) != YAML_SEQUENCE_END_EVENT) {
            g_array_set_size(jobs, jobs->len + 1);
            FennelJob *job = &g_array_index(jobs, FennelJob, jobs->len - 1);
            ok = read_job(y, job, jobs->len - 1, error);
            for (guint i = 0; ok && i + 1 < jobs->len; i++)
                if (strcmp(g_array_index(jobs, FennelJob, i).name, job->name) == 0) {
                    fennel_error_at(error, y->file, job->line, job->col,
                                    "job: another job is named '%s'", job->name);
                    ok = FALSE;
                }
        }
        if (ok && jobs->len == 0)
            ok = fennel_yaml_error(y, error, "jobs: the list names no job");
        ok = ok && fennel_yaml_next(y, error);
    }
    if (ok && !seen)
        ok = fennel_yaml_error(y, error, "expected a mapping with a 'jobs' list");
    out->n_jobs = jobs->len;
    out->jobs = (FennelJob *)g_array_free(jobs, FALSE);
    return ok && fennel_yaml_next(y, error) && fennel_yaml_finish(y, error);
}

/* The reader must be closed whether it opened or not. */
static gboolean parse(FennelYaml *y, gboolean opened, FennelJobs *out, GError **error)
{
    gboolean ok = opened && read_jobs(y, out, error);
    out->file = g_strdup(y->file);
    fennel_yaml_close(y);
    if (!ok)
        fennel_jobs_clear(out);
    return ok;
}

gboolean fennel_jobs_read(const char *file, FennelJobs *out, GError **error)
{
    FennelYaml y;
    memset(out, 0, sizeof *out);
    return parse(&y, fennel_yaml_open(&y, file, error), out, error);
}

gboolean fennel_jobs_parse(const char *name, const char *data, gsize length, FennelJobs *out,
                           GError **error)
{
    FennelYaml y;
    memset(out, 0, sizeof *out);
    return parse(&y, fennel_yaml_open_data(&y, name, data, length, error), out, error);
}

void fennel_jobs_clear(FennelJobs *jobs)
{
    for (uint32_t j = 0; j < jobs->n_jobs; j++) {
        FennelJob *job = &jobs->jobs[j];
        g_free(job->name);
        g_free(job->program);
        g_free(job->generate);
        fennel_gen_text_options_clear(&job->gen);
        g_free(job->nodes);
        g_free(job->node_line);
        g_free(job->node_col);
    }
    g_free(jobs->jobs);
    g_free(jobs->file);
    memset(jobs, 0, sizeof *jobs);
}

/* ---- placing the jobs ---- */

/* The machine's node count: the topology's own, the most a fat tree holds, or, for a
 * switch without `nodes`, a rail topology and no topology, as many as the jobs need (and
 * their lists name). */
static gboolean machine_nodes(const FennelModel *model, uint64_t needed, uint32_t *nodes,
                              GError **error)
{
    const FennelTopology *t = model->topology;
    uint64_t n = needed;
    if (t && t->kind == FENNEL_TOPOLOGY_FAT_TREE) {
        uint64_t k = t->radix;
        n = t->levels == 2 ? k * (k / 2) : k * (k / 2) * (k / 2);
    } else if (t && (t->kind == FENNEL_TOPOLOGY_TORUS || t->kind == FENNEL_TOPOLOGY_DIMS ||
                     t->kind == FENNEL_TOPOLOGY_DRAGONFLY ||
                     (t->kind == FENNEL_TOPOLOGY_SWITCH && t->nodes))) {
        char *why = NULL;
        FennelNetwork *net = fennel_network_build(t, 1, &why);
        if (net == NULL) {
            fennel_error_at(error, t->file, t->line, t->col, "%s", why);
            g_free(why);
            return FALSE;
        }
        n = net->nodes;
        fennel_network_free(net);
    }
    uint32_t per = model->ranks_per_node ? model->ranks_per_node : 1;
    if (n == 0 || n > (1u << 24) || n * per > UINT32_MAX / 2) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                    "jobs: a machine of %" G_GUINT64_FORMAT " nodes is more than this fennel "
                    "places jobs on",
                    n);
        return FALSE;
    }
    *nodes = (uint32_t)n;
    return TRUE;
}

static gboolean place_list(const FennelJobs *jobs, FennelJob *job, uint32_t need, uint32_t n,
                           int32_t *owner, uint32_t j, GError **error)
{
    if (job->n_nodes != need) {
        fennel_error_at(error, jobs->file, job->node_line[0], job->node_col[0],
                        "placement: job '%s' needs %u node%s, the list names %u", job->name, need,
                        need == 1 ? "" : "s", job->n_nodes);
        return FALSE;
    }
    for (uint32_t i = 0; i < job->n_nodes; i++) {
        uint32_t node = job->nodes[i];
        if (node >= n) {
            fennel_error_at(error, jobs->file, job->node_line[i], job->node_col[i],
                            "placement: node %u is not on the machine (nodes 0-%u)", node, n - 1);
            return FALSE;
        }
        if (owner[node] >= 0) {
            fennel_error_at(error, jobs->file, job->node_line[i], job->node_col[i],
                            "placement: node %u is taken by job '%s'", node,
                            jobs->jobs[owner[node]].name);
            return FALSE;
        }
        owner[node] = (int32_t)j;
    }
    return TRUE;
}

static gboolean place_free(const FennelJobs *jobs, FennelJob *job, uint32_t need, uint32_t n,
                           int32_t *owner, uint32_t j, GRand *rand, GError **error)
{
    uint32_t *free_nodes = g_new(uint32_t, n);
    uint32_t n_free = 0;
    for (uint32_t v = 0; v < n; v++)
        if (owner[v] < 0)
            free_nodes[n_free++] = v;
    if (n_free < need) {
        fennel_error_at(error, jobs->file, job->line, job->col,
                        "job '%s' needs %u node%s, %u of the machine's %u are free", job->name,
                        need, need == 1 ? "" : "s", n_free, n);
        g_free(free_nodes);
        return FALSE;
    }
    job->nodes = g_new(uint32_t, need);
    job->n_nodes = need;
    gboolean ok = TRUE;
    switch (job->placement) {
    case FENNEL_PLACE_CONTIGUOUS: {
        /* The lowest run of `need` free nodes in a row. */
        uint32_t run = 0, first = 0;
        ok = FALSE;
        for (uint32_t v = 0; v < n && !ok; v++) {
            run = owner[v] < 0 ? run + 1 : 0;
            if (run == need) {
                first = v + 1 - need;
                ok = TRUE;
            }
        }
        for (uint32_t i = 0; ok && i < need; i++)
            job->nodes[i] = first + i;
        if (!ok)
            fennel_error_at(error, jobs->file, job->line, job->col,
                            "job '%s' needs %u free nodes in a row, the machine has none",
                            job->name, need);
        break;
    }
    case FENNEL_PLACE_SPREAD:
        /* Evenly apart among the free nodes: the free node at i * free / need. */
        for (uint32_t i = 0; i < need; i++)
            job->nodes[i] = free_nodes[(uint64_t)i * n_free / need];
        break;
    case FENNEL_PLACE_RANDOM:
        /* A partial Fisher-Yates shuffle of the free nodes: rank r's node is the r-th drawn. */
        for (uint32_t i = 0; i < need; i++) {
            uint32_t k = i + (uint32_t)g_rand_int_range(rand, 0, (gint32)(n_free - i));
            uint32_t v = free_nodes[k];
            free_nodes[k] = free_nodes[i];
            free_nodes[i] = v;
            job->nodes[i] = v;
        }
        break;
    case FENNEL_PLACE_LIST:
        g_assert_not_reached();
    }
    for (uint32_t i = 0; ok && i < need; i++)
        owner[job->nodes[i]] = (int32_t)j;
    g_free(free_nodes);
    return ok;
}

/* ---- running them ---- */

/* The jobs as one program of `ranks` ranks (job j's ranks from offset[j], the rest idle);
 * only the jobs `in` marks when it is not NULL. A job's start delays its start tasks. */
static FennelProgram *combine(FennelProgram *const *programs, const FennelJobs *jobs,
                              const uint32_t *offset, const uint8_t *in, uint32_t ranks,
                              uint32_t processes, const FennelLimits *limits, GError **error)
{
    FennelProgramBuilder *b = fennel_builder_new();
    fennel_builder_set_limits(b, limits);
    uint32_t first = 0;
    for (uint32_t j = 0; j < jobs->n_jobs; j++) {
        if (in && !in[j])
            continue;
        const FennelProgram *p = programs[j];
        const uint32_t at = offset[j];
        for (uint32_t t = 0; t < p->n_tasks; t++) {
            uint32_t u = fennel_builder_add(b, p->type[t], p->rank[t] + at);
            fennel_builder_set_amount(b, u,
                                      p->amount[t] + (p->type[t] == FENNEL_TASK_START
                                                          ? (int64_t)jobs->jobs[j].start
                                                          : 0));
            if (p->peer[t] != FENNEL_ANY && p->peer[t] != FENNEL_NO_RANK)
                fennel_builder_set_peer(b, u, p->peer[t] + at);
            else
                fennel_builder_set_peer(b, u, p->peer[t]);
            if (p->request)
                fennel_builder_set_request(b, u, p->request[t]);
            if (p->tag)
                fennel_builder_set_tag(b, u, p->tag[t]);
            if (p->pin && p->pin[t] != FENNEL_NO_RANK)
                fennel_builder_set_pin(b, u, p->pin[t]);
            fennel_builder_set_flags(b, u, p->flags[t]);
            if (p->any)
                fennel_builder_set_any(b, u, p->any[t]);
            if (p->type[t] == FENNEL_TASK_SEND || p->type[t] == FENNEL_TASK_RECV ||
                p->type[t] == FENNEL_TASK_PUT || p->type[t] == FENNEL_TASK_GET) {
                char buf[24];
                char *name = g_strdup_printf("%s/%s", jobs->jobs[j].name,
                                             fennel_program_task_name(p, t, buf));
                fennel_builder_set_name(b, u, name);
                g_free(name);
            }
        }
        for (uint32_t t = 0; t < p->n_tasks; t++) {
            for (FennelEdgeIndex e = p->succ_start[t]; e < p->succ_start[t + 1]; e++)
                fennel_builder_add_edge(b, first + t, first + p->succ[e]);
            if (p->start_succ_start)
                for (FennelEdgeIndex e = p->start_succ_start[t]; e < p->start_succ_start[t + 1];
                     e++)
                    fennel_builder_add_start_edge(b, first + t, first + p->start_succ[e]);
        }
        first += p->n_tasks;
    }
    return fennel_builder_finish(b, jobs->file, ranks, processes, error);
}

/* Each rank's last end: the latest time a task of it completed or freed its slot. */
static void observe_end(void *data, const FennelProgram *program, const FennelEvent *ev)
{
    (void)program;
    FennelTime *end = data;
    FennelTime t = ev->time;
    if (ev->kind == FENNEL_EVENT_COMPLETED)
        t = MAX(MAX(ev->local, ev->completion), ev->issuer_completion);
    end[ev->rank] = MAX(end[ev->rank], t);
}

/* ---- which job's messages held a link while another's waited ---- */

/* A message's hold on a link, from `start` to `end`. */
typedef struct {
    FennelTime start, end;
    uint32_t job;
} Hold;

/* A link's holds that may still overlap a later head's wait, oldest first: holds[first ..
 * len). Heads reach a link in time order, so the holds before `first` are over for good. */
typedef struct {
    Hold *holds;
    uint32_t first, len, cap;
} LinkHolds;

/* Flat, so that an event touches few cache lines: the run together of many jobs emits one
 * event per message and shared link. */
typedef struct {
    const uint32_t *job_of; /* per rank of the run together */
    FennelMap index;        /* (link, 0) -> its LinkHolds' index in `links` */
    GArray *links;          /* LinkHolds */
    FennelMap waits;        /* (link, job << 32 | by) -> what job waited there for by, ns */
} Attribution;

static void attribution_clear(Attribution *a)
{
    for (guint i = 0; i < a->links->len; i++)
        g_free(g_array_index(a->links, LinkHolds, i).holds);
    g_array_free(a->links, TRUE);
    fennel_map_clear(&a->index);
    fennel_map_clear(&a->waits);
}

/* Appends a hold, dropping the ones over first when that frees at least half the array. */
static void add_hold(LinkHolds *h, Hold hold)
{
    if (h->len == h->cap && h->first * 2 >= h->len && h->first > 0) {
        memmove(h->holds, h->holds + h->first, sizeof *h->holds * (h->len - h->first));
        h->len -= h->first;
        h->first = 0;
    }
    if (h->len == h->cap) {
        h->cap = MAX(4u, h->cap * 2);
        h->holds = g_renew(Hold, h->holds, h->cap);
    }
    h->holds[h->len++] = hold;
}

/* A link serves the heads in the order they reach it, first come first served, so a message
 * that waited from its head's arrival h to its start s waited exactly through the holds of
 * the messages served before it that overlap [h, s): each such hold's overlap is charged to
 * its job. Heads reach a link in time order, so a hold that ended by h matters no more. */
static void observe_link(void *data, const FennelProgram *program, const FennelEvent *ev)
{
    (void)program;
    Attribution *a = data;
    const uint64_t index = *fennel_map_slot(&a->index, ev->slot, 0, a->links->len);
    if (index == a->links->len) {
        const LinkHolds fresh = {0};
        g_array_append_val(a->links, fresh);
    }
    LinkHolds *h = &g_array_index(a->links, LinkHolds, index);
    const uint32_t job = a->job_of[ev->rank];
    const FennelTime head = ev->time - ev->link_wait;
    for (uint32_t i = h->len; ev->link_wait > 0 && i-- > h->first;) {
        const Hold *o = &h->holds[i];
        if (o->end <= head)
            break;
        const FennelTime overlap = MIN(o->end, ev->time) - MAX(o->start, head);
        if (overlap > 0 && o->job != job)
            *fennel_map_slot(&a->waits, ev->slot, (uint64_t)job << 32 | o->job, 0) +=
                (uint64_t)overlap;
    }
    if (ev->link_wait == 0) /* it found the link free: every hold before it is over */
        h->first = h->len = 0;
    while (h->first < h->len && h->holds[h->first].end <= head)
        h->first++;
    add_hold(h, (Hold){ev->time, ev->until, job});
}

static int compare_link_waits(const void *x, const void *y)
{
    const FennelJobLinkWait *a = x, *b = y;
    if (a->job != b->job)
        return a->job < b->job ? -1 : 1;
    if (a->by != b->by)
        return a->by < b->by ? -1 : 1;
    return (a->link > b->link) - (a->link < b->link);
}

/* The attribution's waits as the run's table, the links named by the machine's network. */
static void take_link_waits(Attribution *a, const FennelMachine *m, FennelJobsRun *out)
{
    const FennelNetwork *n = fennel_machine_network(m);
    GArray *rows = g_array_new(FALSE, FALSE, sizeof(FennelJobLinkWait));
    for (size_t i = 0; i < a->waits.capacity; i++) {
        const FennelMapEntry *e = &a->waits.entries[i];
        if (e->k1 == FENNEL_MAP_EMPTY)
            continue;
        const uint32_t link = (uint32_t)e->k1;
        uint32_t from, to, level;
        char fa[32], fb[32];
        fennel_network_link(n, link, &from, &to, &level);
        FennelJobLinkWait row = {.job = (uint32_t)(e->k2 >> 32),
                                 .by = (uint32_t)e->k2,
                                 .link = link,
                                 .from = g_strdup(fennel_network_vertex_name(n, from, fa)),
                                 .to = g_strdup(fennel_network_vertex_name(n, to, fb)),
                                 .wait = (FennelTime)e->value};
        g_array_append_val(rows, row);
    }
    g_array_sort(rows, compare_link_waits);
    out->attributed = TRUE;
    out->n_link_waits = rows->len;
    out->link_waits = (FennelJobLinkWait *)g_array_free(rows, FALSE);
}

/* Runs p; with `attribution` (the run together under endpoint or links), also which job's
 * messages waited for which on each link, into `out`. */
static gboolean simulate(const FennelProgram *p, const FennelModel *model, uint64_t seed,
                         FennelTime *end, Attribution *attribution, FennelJobsRun *out,
                         GError **error)
{
    FennelMachine *m = fennel_machine_new(p->n_ranks, p->processes, model);
    fennel_machine_set_seed(m, seed);
    memset(end, 0, sizeof *end * p->n_ranks);
    FennelInstrument instrument = {
        .mask = FENNEL_EVENT_COMPLETED | FENNEL_EVENT_RANK_FINISHED,
        .observe = observe_end,
        .data = end,
    };
    fennel_machine_add_instrument(m, &instrument);
    if (attribution) {
        fennel_map_init(&attribution->index);
        fennel_map_init(&attribution->waits);
        attribution->links = g_array_new(FALSE, FALSE, sizeof(LinkHolds));
        FennelInstrument links = {
            .mask = FENNEL_EVENT_LINK, .observe = observe_link, .data = attribution};
        fennel_machine_add_instrument(m, &links);
    }
    gboolean ok = fennel_machine_run(m, p, error);
    if (ok && attribution)
        take_link_waits(attribution, m, out);
    if (attribution)
        attribution_clear(attribution);
    fennel_machine_free(m);
    return ok;
}

/* A job's time: from its start to the latest end of its ranks. */
static FennelTime job_time(const FennelTime *end, uint32_t first, uint32_t ranks, FennelTime start)
{
    FennelTime last = start;
    for (uint32_t r = first; r < first + ranks; r++)
        last = MAX(last, end[r]);
    return last - start;
}

static FennelProgram *load(const FennelJobs *jobs, const FennelJob *job,
                           const FennelReadOptions *read, const FennelModel *model, uint64_t seed,
                           const FennelLimits *limits, GError **error)
{
    FennelProgram *p;
    if (job->program) {
        char *dir = g_path_get_dirname(jobs->file);
        char *path = g_path_is_absolute(job->program) ? g_strdup(job->program)
                                                      : g_build_filename(dir, job->program, NULL);
        p = fennel_program_read_with(path, read, limits, error);
        g_free(path);
        g_free(dir);
    } else {
        p = fennel_gen_text_generate_for(job->generate, &job->gen, seed, model, limits, error);
        if (p == NULL)
            fennel_error_prefix_at(error, jobs->file, job->line, job->col);
    }
    return p;
}

gboolean fennel_jobs_run(FennelJobs *jobs, const FennelReadOptions *read, const FennelModel *model,
                         uint64_t seed, const FennelLimits *limits, FennelJobsRun *out,
                         GError **error)
{
    memset(out, 0, sizeof *out);
    if (model->order != FENNEL_ORDER_LINEAR) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE,
                    "--jobs: the jobs file places the ranks; the model's order must be linear");
        return FALSE;
    }
    const uint32_t n_jobs = jobs->n_jobs;
    const uint32_t per = model->ranks_per_node ? model->ranks_per_node : 1;
    FennelProgram **programs = g_new0(FennelProgram *, n_jobs + 1);
    uint32_t *offset = g_new0(uint32_t, n_jobs);
    uint32_t *need = g_new0(uint32_t, n_jobs);
    int32_t *owner = NULL;
    uint32_t *position = NULL;
    out->jobs = g_new0(FennelJobResult, n_jobs);
    gboolean ok = TRUE;
    uint64_t ranks = 0, nodes_needed = 0;
    uint32_t processes = 1;
    for (uint32_t j = 0; j < n_jobs && ok; j++) {
        programs[j] = load(jobs, &jobs->jobs[j], read, model, seed, limits, error);
        ok = programs[j] != NULL;
        if (ok) {
            offset[j] = (uint32_t)MIN(ranks, UINT32_MAX);
            out->jobs[j].ranks = programs[j]->n_ranks;
            need[j] = (programs[j]->n_ranks + per - 1) / per;
            ranks += programs[j]->n_ranks;
            nodes_needed += need[j];
            processes = MAX(processes, programs[j]->processes);
            for (uint32_t i = 0; i < jobs->jobs[j].n_nodes; i++)
                nodes_needed = MAX(nodes_needed, (uint64_t)jobs->jobs[j].nodes[i] + 1);
        }
    }
    uint32_t n = 0;
    ok = ok && machine_nodes(model, nodes_needed, &n, error);
    if (ok) {
        /* Lists first, so that the other placements take what they leave. */
        owner = g_new(int32_t, n);
        memset(owner, 0xff, sizeof *owner * n);
        for (uint32_t j = 0; j < n_jobs && ok; j++)
            if (jobs->jobs[j].placement == FENNEL_PLACE_LIST)
                ok = place_list(jobs, &jobs->jobs[j], need[j], n, owner, j, error);
        GRand *rand =
            g_rand_new_with_seed_array((const guint32[]){(guint32)seed, (guint32)(seed >> 32)}, 2);
        for (uint32_t j = 0; j < n_jobs && ok; j++)
            if (jobs->jobs[j].placement != FENNEL_PLACE_LIST)
                ok = place_free(jobs, &jobs->jobs[j], need[j], n, owner, j, rand, error);
        g_rand_free(rand);
    }
    FennelModel placed;
    fennel_model_init(&placed);
    const uint32_t all = n * per;
    if (ok) {
        /* Job j's rank r at position node * P + r mod P; the idle ranks after the jobs' take
         * the positions left, in order. */
        position = g_new(uint32_t, all);
        uint8_t *used = g_new0(uint8_t, all);
        for (uint32_t j = 0; j < n_jobs; j++)
            for (uint32_t r = 0; r < out->jobs[j].ranks; r++) {
                uint32_t pos = jobs->jobs[j].nodes[r / per] * per + r % per;
                position[offset[j] + r] = pos;
                used[pos] = 1;
            }
        uint32_t next = 0;
        for (uint32_t r = (uint32_t)ranks; r < all; r++) {
            while (used[next])
                next++;
            position[r] = next++;
        }
        g_free(used);
        fennel_model_copy(&placed, model);
        placed.order = FENNEL_ORDER_LIST;
        placed.order_list = position;
        placed.n_order = all;
        position = NULL;
        out->nodes = n;
    }
    FennelTime *end = ok ? g_new0(FennelTime, all) : NULL;
    /* Together, then each job alone, then (for few jobs) each pair. */
    const gboolean pairs = n_jobs >= 2 && n_jobs <= FENNEL_JOBS_PAIRS_MAX;
    if (pairs)
        out->delay = g_new0(FennelTime, (size_t)n_jobs * n_jobs);
    uint8_t *in = g_new0(uint8_t, n_jobs);
    /* Which job each rank of the run together belongs to, for the links' waits. */
    const gboolean attribute =
        model->topology && (model->contention == FENNEL_CONTENTION_ENDPOINT ||
                            model->contention == FENNEL_CONTENTION_LINKS);
    uint32_t *job_of = NULL;
    if (ok && attribute) {
        job_of = g_new(uint32_t, all);
        memset(job_of, 0xff, sizeof *job_of * all);
        for (uint32_t j = 0; j < n_jobs; j++)
            for (uint32_t r = 0; r < out->jobs[j].ranks; r++)
                job_of[offset[j] + r] = j;
    }
    Attribution attribution = {.job_of = job_of};
    for (int64_t k = -1; ok && k < (int64_t)n_jobs * (pairs ? n_jobs + 1 : 1); k++) {
        /* k < n: job k alone; else the pair (k / n - 1, k mod n). */
        int64_t a = k < (int64_t)n_jobs ? k : k / n_jobs - 1,
                b = k < (int64_t)n_jobs ? k : k % n_jobs;
        if (a >= b && k >= (int64_t)n_jobs)
            continue;
        memset(in, 0, n_jobs);
        if (k >= 0)
            in[a] = in[b] = 1;
        FennelProgram *p =
            combine(programs, jobs, offset, k < 0 ? NULL : in, all, processes, limits, error);
        ok = p != NULL &&
             simulate(p, &placed, seed, end, k < 0 && attribute ? &attribution : NULL, out, error);
        fennel_program_free(p);
        for (uint32_t j = 0; ok && j < n_jobs; j++) {
            if (k >= 0 && !in[j])
                continue;
            FennelTime t = job_time(end, offset[j], out->jobs[j].ranks, jobs->jobs[j].start);
            if (k < 0)
                out->jobs[j].together = t;
            else if (k < (int64_t)n_jobs)
                out->jobs[j].alone = t;
            else /* what the other job of the pair cost j: its time beside it, less alone */
                out->delay[(size_t)j * n_jobs + (uint32_t)(j == a ? b : a)] =
                    t - out->jobs[j].alone;
        }
        if (ok && k < 0)
            for (uint32_t r = 0; r < all; r++)
                out->makespan = MAX(out->makespan, end[r]);
    }
    g_free(in);
    g_free(job_of);
    g_free(end);
    fennel_model_clear(&placed);
    for (uint32_t j = 0; j < n_jobs; j++)
        fennel_program_free(programs[j]);
    g_free(programs);
    g_free(offset);
    g_free(need);
    g_free(owner);
    g_free(position);
    if (!ok)
        fennel_jobs_run_clear(out);
    return ok;
}

void fennel_jobs_run_clear(FennelJobsRun *run)
{
    g_free(run->jobs);
    g_free(run->delay);
    for (uint32_t i = 0; i < run->n_link_waits; i++) {
        g_free(run->link_waits[i].from);
        g_free(run->link_waits[i].to);
    }
    g_free(run->link_waits);
    memset(run, 0, sizeof *run);
}

/* ---- the report ---- */

/* "0-3,8,10-11" */
static void append_nodes(GString *out, const FennelJob *job)
{
    for (uint32_t i = 0; i < job->n_nodes;) {
        uint32_t k = i;
        while (k + 1 < job->n_nodes && job->nodes[k + 1] == job->nodes[k] + 1)
            k++;
        g_string_append_printf(out, "%s%u", i ? "," : "", job->nodes[i]);
        if (k > i)
            g_string_append_printf(out, "-%u", job->nodes[k]);
        i = k + 1;
    }
}

/* The pairs' table: a row per job delayed, a column per job delaying it. */
static void append_delays(const FennelJobs *jobs, const FennelJobsRun *run, GString *out)
{
    const uint32_t n = jobs->n_jobs;
    char buf[FENNEL_TIME_BUF];
    int width = 3;
    for (uint32_t j = 0; j < n; j++) {
        width = MAX(width, (int)strlen(jobs->jobs[j].name));
        for (uint32_t i = 0; i < n; i++)
            width = MAX(width, (int)strlen(fennel_format_ns(run->delay[(size_t)j * n + i], buf)));
    }
    g_string_append(out, "delay_ns: what the column's job costs the row's, the two alone\n");
    g_string_append_printf(out, "%-*s", width, "job");
    for (uint32_t i = 0; i < n; i++)
        g_string_append_printf(out, "  %*s", width, jobs->jobs[i].name);
    g_string_append_c(out, '\n');
    for (uint32_t j = 0; j < n; j++) {
        g_string_append_printf(out, "%-*s", width, jobs->jobs[j].name);
        for (uint32_t i = 0; i < n; i++)
            g_string_append_printf(out, "  %*s", width,
                                   i == j ? "-"
                                          : fennel_format_ns(run->delay[(size_t)j * n + i], buf));
        g_string_append_c(out, '\n');
    }
}

/* The links' table: a row per job, job delaying it and link, with the time it waited. */
static void append_link_waits(const FennelJobs *jobs, const FennelJobsRun *run, GString *out)
{
    if (run->n_link_waits == 0) {
        g_string_append(out, "link_wait_ns: none (no job's message waited on a link for "
                             "another job's)\n");
        return;
    }
    g_string_append(out, "link_wait_ns: what the job waited on the link for the job by's "
                         "messages, together\n");
    const char *head[6] = {"job", "by", "link", "from", "to", "wait_ns"};
    char **cells = g_new0(char *, (size_t)6 * (run->n_link_waits + 1));
    int width[6];
    for (int k = 0; k < 6; k++) {
        cells[k] = g_strdup(head[k]);
        width[k] = (int)strlen(head[k]);
    }
    for (uint32_t i = 0; i < run->n_link_waits; i++) {
        const FennelJobLinkWait *w = &run->link_waits[i];
        char buf[FENNEL_TIME_BUF];
        char **row = cells + (size_t)6 * (i + 1);
        row[0] = g_strdup(jobs->jobs[w->job].name);
        row[1] = g_strdup(jobs->jobs[w->by].name);
        row[2] = g_strdup_printf("%u", w->link);
        row[3] = g_strdup(w->from);
        row[4] = g_strdup(w->to);
        row[5] = g_strdup(fennel_format_ns(w->wait, buf));
        for (int k = 0; k < 6; k++)
            width[k] = MAX(width[k], (int)strlen(row[k]));
    }
    for (uint32_t i = 0; i <= run->n_link_waits; i++) {
        char **row = cells + (size_t)6 * i;
        for (int k = 0; k < 6; k++) {
            /* names to the left, numbers to the right */
            const gboolean left = k != 2 && k != 5;
            g_string_append_printf(out, "%s%*s%s", k ? "  " : "", left ? -width[k] : width[k],
                                   row[k], k == 5 ? "\n" : "");
            g_free(row[k]);
        }
    }
    g_free(cells);
}

void fennel_jobs_text(const FennelJobs *jobs, const FennelJobsRun *run, GString *out)
{
    char a[FENNEL_TIME_BUF], b[FENNEL_TIME_BUF], c[FENNEL_TIME_BUF], d[FENNEL_TIME_BUF];
    g_string_append_printf(out, "jobs: %u on a machine of %u nodes, makespan %s ns\n", jobs->n_jobs,
                           run->nodes, fennel_format_ns(run->makespan, a));
    GPtrArray *rows = g_ptr_array_new();
    const char *head[7] = {"job",      "ranks",       "nodes",   "start_ns",
                           "alone_ns", "together_ns", "slowdown"};
    int width[7];
    for (int k = 0; k < 7; k++)
        width[k] = (int)strlen(head[k]);
    for (uint32_t j = 0; j < jobs->n_jobs; j++) {
        const FennelJobResult *r = &run->jobs[j];
        GString *nodes = g_string_new(NULL);
        append_nodes(nodes, &jobs->jobs[j]);
        char **cell = g_new0(char *, 8);
        cell[0] = g_strdup(jobs->jobs[j].name);
        cell[1] = g_strdup_printf("%u", r->ranks);
        cell[2] = g_string_free(nodes, FALSE);
        cell[3] = g_strdup(fennel_format_ns(jobs->jobs[j].start, b));
        cell[4] = g_strdup(fennel_format_ns(r->alone, c));
        cell[5] = g_strdup(fennel_format_ns(r->together, d));
        cell[6] = r->alone ? g_strdup_printf("%.3f", (double)r->together / (double)r->alone)
                           : g_strdup("-");
        for (int k = 0; k < 7; k++)
            width[k] = MAX(width[k], (int)strlen(cell[k]));
        g_ptr_array_add(rows, cell);
    }
    for (int k = 0; k < 7; k++)
        g_string_append_printf(out, k == 0 ? "%-*s" : "  %*s", width[k], head[k]);
    g_string_append_c(out, '\n');
    for (guint i = 0; i < rows->len; i++) {
        char **cell = g_ptr_array_index(rows, i);
        for (int k = 0; k < 7; k++)
            g_string_append_printf(out, k == 0 ? "%-*s" : "  %*s", width[k], cell[k]);
        g_string_append_c(out, '\n');
        g_strfreev(cell);
    }
    g_ptr_array_unref(rows);
    if (run->delay)
        append_delays(jobs, run, out);
    if (run->attributed)
        append_link_waits(jobs, run, out);
}

void fennel_jobs_json(const FennelJobs *jobs, const FennelJobsRun *run, GString *out)
{
    char a[FENNEL_TIME_BUF];
    g_string_append_printf(out, "{\"nodes\": %u, \"makespan_ns\": %s, \"jobs\": [", run->nodes,
                           fennel_format_ns(run->makespan, a));
    for (uint32_t j = 0; j < jobs->n_jobs; j++) {
        const FennelJob *job = &jobs->jobs[j];
        const FennelJobResult *r = &run->jobs[j];
        g_string_append(out, j ? ", {\"name\": " : "{\"name\": ");
        fennel_json_string(out, job->name);
        g_string_append_printf(out, ", \"ranks\": %u, \"nodes\": [", r->ranks);
        for (uint32_t i = 0; i < job->n_nodes; i++)
            g_string_append_printf(out, "%s%u", i ? ", " : "", job->nodes[i]);
        g_string_append_printf(out, "], \"start_ns\": %s", fennel_format_ns(job->start, a));
        g_string_append_printf(out, ", \"alone_ns\": %s", fennel_format_ns(r->alone, a));
        g_string_append_printf(out, ", \"together_ns\": %s", fennel_format_ns(r->together, a));
        if (r->alone)
            g_string_append_printf(out, ", \"slowdown\": %.6f",
                                   (double)r->together / (double)r->alone);
        else
            g_string_append(out, ", \"slowdown\": null");
        if (run->delay) {
            g_string_append(out, ", \"delayed_by_ns\": {");
            for (uint32_t i = 0, first = 1; i < jobs->n_jobs; i++) {
                if (i == j)
                    continue;
                g_string_append(out, first ? "" : ", ");
                first = 0;
                fennel_json_string(out, jobs->jobs[i].name);
                g_string_append_printf(
                    out, ": %s", fennel_format_ns(run->delay[(size_t)j * jobs->n_jobs + i], a));
            }
            g_string_append_c(out, '}');
        }
        if (run->attributed) {
            g_string_append(out, ", \"link_waits\": [");
            for (uint32_t i = 0, first = 1; i < run->n_link_waits; i++) {
                const FennelJobLinkWait *w = &run->link_waits[i];
                if (w->job != j)
                    continue;
                g_string_append(out, first ? "{\"by\": " : ", {\"by\": ");
                first = 0;
                fennel_json_string(out, jobs->jobs[w->by].name);
                g_string_append_printf(out, ", \"link\": %u, \"from\": ", w->link);
                fennel_json_string(out, w->from);
                g_string_append(out, ", \"to\": ");
                fennel_json_string(out, w->to);
                g_string_append_printf(out, ", \"wait_ns\": %s}", fennel_format_ns(w->wait, a));
            }
            g_string_append_c(out, ']');
        }
        g_string_append_c(out, '}');
    }
    g_string_append(out, "]}\n");
}
