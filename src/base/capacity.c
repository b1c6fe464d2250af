#include "capacity.h"

#include "errors.h"
#include "units.h"

#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

uint64_t fennel_limits_max_tasks(const FennelLimits *l)
{
    return l ? l->max_tasks : 0;
}

gboolean fennel_limits_parse_max_tasks(FennelLimits *l, const char *text, GError **error)
{
    if (text == NULL)
        return TRUE;
    int64_t n;
    const char *why;
    if (!fennel_parse_int(text, 1, INT64_MAX, &n, &why)) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE,
                    "--max-tasks %s: expected a whole number >= 1", text);
        return FALSE;
    }
    l->max_tasks = (uint64_t)n;
    return TRUE;
}

/* A cgroup memory limit (v2 memory.max, or v1 memory.limit_in_bytes), which kills a
 * process as surely as the machine's size does; 0 when there is none or it cannot be read. */
static uint64_t cgroup_limit(void)
{
    static const char *const files[] = {"/sys/fs/cgroup/memory.max",
                                        "/sys/fs/cgroup/memory/memory.limit_in_bytes"};
    uint64_t limit = 0;
    for (size_t i = 0; i < G_N_ELEMENTS(files) && limit == 0; i++) {
        char *text = NULL;
        if (g_file_get_contents(files[i], &text, NULL, NULL)) {
            char *end;
            guint64 v = g_ascii_strtoull(text, &end, 10);
            if (end != text && (*end == '\n' || *end == '\0'))
                limit = v;
        }
        g_free(text);
    }
    return limit;
}

/* What the process may still map under RLIMIT_AS or RLIMIT_DATA (`ulimit -v`, `-d`): the
 * limit less what it maps already, and a third of that, since arrays that grow are copied
 * into ones twice as large while the old one is still mapped, and address space comes in
 * pieces; 0 without such a limit. */
static uint64_t rlimit_room(int resource)
{
    struct rlimit rl;
    if (getrlimit(resource, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
        return 0;
    uint64_t used = 0;
    char *text = NULL;
    if (g_file_get_contents("/proc/self/statm", &text, NULL, NULL))
        used = g_ascii_strtoull(text, NULL, 10) * (uint64_t)sysconf(_SC_PAGESIZE);
    g_free(text);
    return rl.rlim_cur > used ? MAX((rl.rlim_cur - used) / 3, 1) : 1;
}

/* The memory a run may use and what sets it ("the machine", a cgroup, an rlimit). */
static uint64_t machine_memory(const char **source)
{
    static uint64_t cached;
    static const char *cached_source;
    uint64_t bytes = __atomic_load_n(&cached, __ATOMIC_RELAXED);
    if (bytes) {
        *source = cached_source;
        return bytes;
    }
    const char *from = NULL;
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    bytes = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : UINT64_MAX;
    const struct {
        uint64_t bytes;
        const char *name;
    } limits[] = {{cgroup_limit(), "the cgroup's memory limit"},
                  {rlimit_room(RLIMIT_AS), "the address space limit (ulimit -v)"},
                  {rlimit_room(RLIMIT_DATA), "the data size limit (ulimit -d)"}};
    for (size_t i = 0; i < G_N_ELEMENTS(limits); i++) {
        if (limits[i].bytes && limits[i].bytes < bytes) {
            bytes = limits[i].bytes;
            from = limits[i].name;
        }
    }
    cached_source = from;
    __atomic_store_n(&cached, bytes, __ATOMIC_RELAXED);
    *source = from;
    return bytes;
}

uint64_t fennel_limits_memory(const FennelLimits *l)
{
    const char *source;
    return l && l->memory ? l->memory : machine_memory(&source);
}

/* What limits the memory: NULL for the machine's size (or a limit set by a test). */
static const char *memory_source(const FennelLimits *l);

void fennel_out_of_memory(GError **error, const FennelLimits *l, uint64_t bytes, const char *what)
{
    const char *source = memory_source(l);
    g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                "out of memory: %" G_GUINT64_FORMAT " bytes for %s could not be allocated (%s "
                "%.1f GiB)",
                bytes, what, source ? source : "the machine has",
                (double)fennel_limits_memory(l) / (1u << 30));
}

static const char *memory_source(const FennelLimits *l)
{
    const char *source = NULL;
    if (!(l && l->memory))
        machine_memory(&source);
    return source;
}

/* a * b + acc, saturating at UINT64_MAX. */
static uint64_t mul_add(uint64_t a, uint64_t b, uint64_t acc)
{
    uint64_t product, sum;
    if (__builtin_mul_overflow(a, b, &product) || __builtin_add_overflow(product, acc, &sum))
        return UINT64_MAX;
    return sum;
}

uint64_t fennel_limits_estimate(uint64_t tasks, uint64_t edges, uint64_t ranks,
                                uint64_t slots_per_rank)
{
    uint64_t slots = mul_add(ranks, slots_per_rank ? slots_per_rank : 1, 0);
    uint64_t bytes = mul_add(tasks, FENNEL_BYTES_PER_TASK, 0);
    bytes = mul_add(edges, FENNEL_BYTES_PER_EDGE, bytes);
    bytes = mul_add(ranks, FENNEL_BYTES_PER_RANK, bytes);
    return mul_add(slots, FENNEL_BYTES_PER_SLOT, bytes);
}

/* Bytes as GiB with `decimals` decimals, rounded up or down: a need is never understated,
 * nor the memory there is overstated. */
static void format_gib(uint64_t bytes, int decimals, gboolean up, char buf[32])
{
    double scale = 1, value = (double)bytes / (1024.0 * 1024.0 * 1024.0);
    for (int i = 0; i < decimals; i++)
        scale *= 10;
    double scaled = value * scale, whole = (double)(uint64_t)scaled;
    g_snprintf(buf, 32, "%.*f", decimals, (up && whole < scaled ? whole + 1 : whole) / scale);
}

/* "would need about 37.2 GiB for WHAT; the machine has 23.5 GiB" */
static void need_error(GError **error, uint64_t need, uint64_t have, const char *what,
                       const char *source)
{
    /* One decimal, or as many as it takes for the memory not to read 0 and for the two
     * figures to differ (small memories are set by tests). */
    char need_text[32], have_text[32];
    for (int decimals = 1; decimals <= 9; decimals++) {
        format_gib(need, decimals, TRUE, need_text);
        format_gib(have, decimals, FALSE, have_text);
        if (strcmp(need_text, have_text) != 0 && strspn(have_text, "0.") < strlen(have_text))
            break;
    }
    if (source)
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                    "would need about %s GiB for %s; %s leaves %s GiB", need_text, what, source,
                    have_text);
    else
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                    "would need about %s GiB for %s; the machine has %s GiB", need_text, what,
                    have_text);
}

gboolean fennel_check_memory(const FennelLimits *l, uint64_t bytes, const char *what,
                             GError **error)
{
    uint64_t have = fennel_limits_memory(l);
    if (bytes <= have)
        return TRUE;
    need_error(error, bytes, have, what, memory_source(l));
    return FALSE;
}

gboolean fennel_check_size(const FennelLimits *l, uint64_t tasks, uint64_t edges, uint64_t ranks,
                           uint64_t slots_per_rank, GError **error)
{
    uint64_t cap = fennel_limits_max_tasks(l);
    if (cap && tasks > cap) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                    "%" G_GUINT64_FORMAT
                    " tasks asked for, more than --max-tasks %" G_GUINT64_FORMAT,
                    tasks, cap);
        return FALSE;
    }
    if (tasks > FENNEL_TASKS_MAX) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                    "%" G_GUINT64_FORMAT " tasks asked for, more than the %" G_GUINT64_FORMAT
                    " a program can hold",
                    tasks, FENNEL_TASKS_MAX);
        return FALSE;
    }
    if (slots_per_rank > FENNEL_SLOTS_MAX) {
        /* Work, not memory: a task that may run on any slot of its rank looks at each. */
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                    "%" G_GUINT64_FORMAT " slots per rank, more than the %u fennel runs (a task "
                    "chooses among its rank's slots one by one)",
                    slots_per_rank, FENNEL_SLOTS_MAX);
        return FALSE;
    }
    uint64_t need = fennel_limits_estimate(tasks, edges, ranks, slots_per_rank);
    uint64_t have = fennel_limits_memory(l);
    if (need <= have)
        return TRUE;
    GString *what = g_string_new(NULL);
    if (tasks)
        g_string_append_printf(what, "%" G_GUINT64_FORMAT " task%s", tasks, tasks == 1 ? "" : "s");
    if (ranks > 1 || tasks == 0 || slots_per_rank > 1)
        g_string_append_printf(what, "%s%" G_GUINT64_FORMAT " rank%s", tasks ? " on " : "", ranks,
                               ranks == 1 ? "" : "s");
    if (slots_per_rank > 1)
        g_string_append_printf(what, " with %" G_GUINT64_FORMAT " slots each", slots_per_rank);
    need_error(error, need, have, what->str, memory_source(l));
    g_string_free(what, TRUE);
    return FALSE;
}

gboolean fennel_check_outputs(const FennelLimits *l, uint64_t tasks, GError **error)
{
    uint64_t need = fennel_limits_estimate(tasks, mul_add(tasks, 2, 0), 0, 0);
    need = mul_add(tasks, FENNEL_BYTES_PER_TRACED_TASK, need);
    uint64_t have = fennel_limits_memory(l);
    if (need <= have)
        return TRUE;
    char *what = g_strdup_printf("%" G_GUINT64_FORMAT " tasks with their per-task outputs "
                                 "(--tasks, --trace, --timeline)",
                                 tasks);
    need_error(error, need, have, what, memory_source(l));
    g_free(what);
    return FALSE;
}

gboolean fennel_check_tasks(const FennelLimits *l, uint64_t tasks, GError **error)
{
    return fennel_check_size(l, tasks, mul_add(tasks, 2, 0), 0, 0, error);
}

uint64_t fennel_limits_task_cap(const FennelLimits *l)
{
    uint64_t cap = fennel_limits_memory(l) / FENNEL_BYTES_PER_TASK;
    uint64_t max = fennel_limits_max_tasks(l);
    if (max && max < cap)
        cap = max;
    return MIN(cap, FENNEL_TASKS_MAX);
}

uint64_t fennel_limits_edge_cap(const FennelLimits *l)
{
    return fennel_limits_memory(l) / FENNEL_BYTES_PER_EDGE;
}

void fennel_huge_pages(void *block, size_t bytes)
{
#ifdef MADV_HUGEPAGE
    if (block == NULL || bytes < (4u << 20))
        return;
    /* The whole pages the block lies on: a large block is a mapping of its own, and advising
     * all of it keeps it one mapping, which realloc can then grow in place (mremap) instead
     * of copying. */
    const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t start = (uintptr_t)block & ~(page - 1);
    uintptr_t end = ((uintptr_t)block + bytes + page - 1) & ~(page - 1);
    madvise((void *)start, end - start, MADV_HUGEPAGE); /* advice: failure is harmless */
#else
    (void)block;
    (void)bytes;
#endif
}
