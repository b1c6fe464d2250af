/* Running a sweep into its CSV file: resuming, the thread pool, rows in grid order,
 * interruption by a signal, and the progress bar (sweep.h). */
#include "sweep.h"

#include "errors.h"
#include "output.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* The signal that asked the sweep to stop, or 0. A signal handler can only set a flag. */
static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
    stop_signal = sig;
}

/* Flush the rows written so far once this many bytes are waiting, or this often. */
#define FLUSH_BYTES   (64 * 1024)
#define FLUSH_SECONDS 0.25
/* A finished task: its rows, for how many of its points (fewer when stopping). */
typedef struct {
    GString *rows;
    uint64_t points;
} Done;

typedef struct {
    const FennelSweep *sweep;
    uint64_t start, end; /* the points to run */
    uint64_t chunk;      /* points per task */
    GMutex lock;
    GCond done;
    Done *slots; /* finished tasks by task modulo window; rows NULL while pending */
    uint64_t window;
    gint failed; /* stop: writing failed */
} Run;

/* The rows of a task that a worker skipped because the sweep is stopping. */
static GString skipped;

/* Runs one task: `chunk` consecutive points, so that the threads meet (lock, signal) once
 * per chunk rather than once per small run. A stop request ends it after the point in
 * hand, with the rows of the points done so far. */
static void worker(gpointer data, gpointer user)
{
    Run *run = user;
    uint64_t task = GPOINTER_TO_SIZE(data) - 1;
    uint64_t first = run->start + task * run->chunk, end = MIN(first + run->chunk, run->end);
    GString *rows = NULL;
    uint64_t p = first;
    for (; p < end && !stop_signal && !g_atomic_int_get(&run->failed); p++) {
        if (rows == NULL)
            rows = g_string_sized_new(256 * (end - first));
        fennel_sweep_point(run->sweep, p, rows);
    }
    g_mutex_lock(&run->lock);
    run->slots[task % run->window] = (Done){rows ? rows : &skipped, p - first};
    g_cond_signal(&run->done);
    g_mutex_unlock(&run->lock);
}

static gboolean io_error(GError **error, const char *path, int err, const char *what)
{
    /* The system's reason in lower case, as every message is. */
    char *reason = g_strdup(g_strerror(err));
    reason[0] = g_ascii_tolower(reason[0]);
    g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_IO, "%s: cannot %s: %s", path, what, reason);
    g_free(reason);
    return FALSE;
}

/* Writes whole rows. A write that fails partway (a full disk) leaves the rows written so
 * far and cuts the file after the last whole one, so that no partial row remains and
 * --resume can go on from there. */
static gboolean write_all(int fd, const char *path, const char *data, gsize length, GError **error)
{
    const off_t start = lseek(fd, 0, SEEK_CUR);
    gsize done = 0;
    while (done < length) {
        ssize_t n = write(fd, data + done, length - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            int err = n < 0 ? errno : EIO;
            if (start >= 0) {
                gsize whole = done;
                while (whole > 0 && data[whole - 1] != '\n')
                    whole--;
                if (ftruncate(fd, start + (off_t)whole) == 0)
                    lseek(fd, start + (off_t)whole, SEEK_SET);
            }
            return io_error(error, path, err, "write");
        }
        done += (gsize)n;
    }
    return TRUE;
}

/* The first column where two header rows differ, for the error message. */
static char *header_difference(const char *have, const char *want)
{
    char **a = g_strsplit(have, ",", -1), **b = g_strsplit(want, ",", -1);
    guint i = 0;
    while (a[i] && b[i] && strcmp(a[i], b[i]) == 0)
        i++;
    char *why = g_strdup_printf("column %u is '%s' there but '%s' in this sweep", i + 1,
                                a[i] ? a[i] : "(none)", b[i] ? b[i] : "(none)");
    g_strfreev(a);
    g_strfreev(b);
    return why;
}

/* Checks the rows already in the file; *keep is the length of its whole grid points,
 * *points how many there are. */
static gboolean check_existing(const FennelSweep *s, const char *path, FILE *f, off_t *keep,
                               uint64_t *points, GError **error)
{
    uint64_t first, end, repeat = fennel_sweep_repeat(s);
    fennel_sweep_range(s, &first, &end);
    GString *want = g_string_new(NULL);
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    off_t offset = 0;
    uint64_t rows = 0, lineno = 0;
    gboolean ok = TRUE, header = fennel_sweep_has_header(s);
    *keep = 0;
    *points = 0;
    while (ok && (len = getline(&line, &cap, f)) > 0 && line[len - 1] == '\n') {
        lineno++;
        offset += len;
        g_string_truncate(want, 0);
        if (header && lineno == 1) {
            fennel_sweep_header(s, want);
            if (strcmp(line, want->str) != 0) {
                line[len - 1] = '\0';
                want->str[want->len - 1] = '\0';
                char *why = header_difference(line, want->str);
                fennel_error_at(error, path, 1, 1,
                                "the header does not match this sweep (%s); use another -o, "
                                "or the options that wrote it",
                                why);
                g_free(why);
                ok = FALSE;
            }
            *keep = offset;
            continue;
        }
        uint64_t row = first * repeat + rows;
        if (row >= end * repeat) {
            fennel_error_at(error, path, (unsigned)lineno, 1,
                            "the file has more rows than this sweep%s", header ? "" : " shard");
            ok = FALSE;
            break;
        }
        fennel_sweep_row_prefix(s, row, want);
        if (strncmp(line, want->str, want->len) != 0) {
            want->str[want->len - 1] = '\0';
            fennel_error_at(error, path, (unsigned)lineno, 1,
                            "the row is not this sweep's row %" G_GUINT64_FORMAT
                            " (which starts %s)",
                            row + 1, want->str);
            ok = FALSE;
            break;
        }
        rows++;
        if (rows % repeat == 0) {
            *keep = offset;
            *points = rows / repeat;
        }
    }
    /* A last line without its newline is what a killed sweep leaves: it is cut off only
     * when it is provably this sweep's, the start of its header or of its next row. */
    if (ok && len > 0 && line[len - 1] != '\n') {
        g_string_truncate(want, 0);
        const char *what;
        if (header && lineno == 0) {
            fennel_sweep_header(s, want);
            what = "the start of this sweep's header";
        } else {
            uint64_t row = first * repeat + rows;
            if (row < end * repeat)
                fennel_sweep_row_prefix(s, row, want);
            what = "the start of this sweep's next row";
        }
        size_t n = MIN((size_t)len, want->len);
        if (want->len == 0 || memchr(line, '\0', (size_t)len) != NULL ||
            memcmp(line, want->str, n) != 0) {
            fennel_error_at(error, path, (unsigned)lineno + 1, 1,
                            "the last line has no newline and is not %s; the file was not "
                            "written by this sweep (use another -o, or the options that wrote it)",
                            what);
            ok = FALSE;
        }
    }
    free(line);
    g_string_free(want, TRUE);
    return ok;
}

/* The first top-level key of `want` (a JSON object on one line) at or before byte `at`,
 * for naming what differs between two sidecars. */
static char *json_key_at(const char *want, size_t at)
{
    int depth = 0;
    gboolean in_string = FALSE;
    const char *key = NULL;
    for (size_t i = 0; i < at && want[i]; i++) {
        char c = want[i];
        if (in_string) {
            if (c == '\\' && want[i + 1])
                i++;
            else if (c == '"')
                in_string = FALSE;
            continue;
        }
        if (c == '"') {
            in_string = TRUE;
            if (depth == 1 && i > 0 && (want[i - 1] == '{' || want[i - 1] == ','))
                key = want + i + 1;
        } else if (c == '{' || c == '[') {
            depth++;
        } else if (c == '}' || c == ']') {
            depth--;
        }
    }
    if (key == NULL)
        return g_strdup("?");
    const char *close = strchr(key, '"');
    return g_strndup(key, close ? (gsize)(close - key) : strlen(key));
}

/* Whether an existing sidecar describes this sweep. It is compared with what this sweep
 * would write, except for the output's spelling and the version of fennel. */
static gboolean check_sidecar(const FennelSweep *s, const char *output, GError **error)
{
    char *path = fennel_sweep_sidecar_path(output);
    char *have = NULL;
    gsize length = 0;
    gboolean ok = TRUE;
    if (!g_file_get_contents(path, &have, &length, NULL)) {
        g_free(path);
        return TRUE; /* none, or unreadable: the rows are checked all the same */
    }
    GString *want = g_string_new(NULL);
    fennel_sweep_json(s, output, want);
    /* Both start {"fennel":1,"command":"sweep","output":"...", and end
     * ,"fennel_version":"..."}: compare what lies between. */
    const char *from_have = strstr(have, ",\"generators\":");
    const char *from_want = strstr(want->str, ",\"generators\":");
    const char *to_have = g_strrstr(have, ",\"fennel_version\":");
    const char *to_want = g_strrstr(want->str, ",\"fennel_version\":");
    if (length != strlen(have) || from_have == NULL || to_have == NULL || to_have < from_have ||
        !g_str_has_prefix(have, "{\"fennel\":1,\"command\":\"sweep\",")) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                    "%s is not the sidecar of a sweep; the output was not written by this sweep "
                    "(use another -o, or the options that wrote it)",
                    path);
        ok = FALSE;
    } else {
        size_t n_have = (size_t)(to_have - from_have), n_want = (size_t)(to_want - from_want);
        size_t i = 0;
        while (i < n_have && i < n_want && from_have[i] == from_want[i])
            i++;
        if (i < n_have || i < n_want) {
            char *key = json_key_at(want->str, (size_t)(from_want - want->str) + i);
            g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                        "%s describes another sweep (its \"%s\" differs); use another -o, or "
                        "the options that wrote it",
                        path, key);
            g_free(key);
            ok = FALSE;
        }
    }
    g_string_free(want, TRUE);
    g_free(have);
    g_free(path);
    return ok;
}

static gboolean write_sidecar(const FennelSweep *s, const char *output, GError **error);

/* Opens the output: a new file with the header, or with resume an existing one cut to its
 * whole grid points. *start is the first point left to run. The file is locked while the
 * sweep runs (a second sweep into it is refused instead of mixing its rows in), and it is
 * cut only once the lock is held and the sidecar written: a sweep that cannot start leaves
 * an existing file as it was and makes none. */
static int open_output(const FennelSweep *s, const FennelSweepRunOptions *o, uint64_t *start,
                       GError **error)
{
    uint64_t first, end;
    fennel_sweep_range(s, &first, &end);
    *start = first;
    off_t keep = 0;
    struct stat st;
    /* The process's own descriptor (-o /dev/stdout) is written through, whatever it is on. */
    const int own = fennel_output_descriptor(o->output);
    gboolean existed = stat(o->output, &st) == 0;
    if (o->resume && existed && (own >= 0 || !S_ISREG(st.st_mode))) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                    "%s: --resume needs a regular file to complete, not a pipe, device or "
                    "directory",
                    o->output);
        return -1;
    }
    int fd = own >= 0 ? fcntl(own, F_DUPFD_CLOEXEC, 3)
                      : open(o->output, O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0) {
        io_error(error, o->output, errno, "write");
        return -1;
    }
    /* A sidecar beside a device, pipe or descriptor (-o /dev/stdout) would be a stray
     * regular file (/dev/stdout.json): only a regular output has one, and a lock. */
    gboolean regular = own < 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    if (regular && flock(fd, LOCK_EX | LOCK_NB) != 0) {
        int err = errno;
        close(fd);
        if (err == EWOULDBLOCK)
            g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_IO,
                        "%s: cannot write: another sweep is writing it", o->output);
        else
            io_error(error, o->output, err, "write");
        return -1;
    }
    if (o->resume && existed) {
        gboolean ok = check_sidecar(s, o->output, error);
        FILE *f = ok ? fopen(o->output, "r") : NULL;
        if (ok && f == NULL)
            ok = io_error(error, o->output, errno, "read");
        uint64_t points = 0;
        if (f) {
            ok = check_existing(s, o->output, f, &keep, &points, error);
            fclose(f);
        }
        if (!ok) {
            close(fd);
            return -1;
        }
        *start = first + points;
    }
    if (regular && !write_sidecar(s, o->output, error)) {
        if (!existed)
            unlink(o->output);
        close(fd);
        return -1;
    }
    if (regular && (ftruncate(fd, keep) != 0 || lseek(fd, 0, SEEK_END) < 0)) {
        int err = errno;
        close(fd);
        io_error(error, o->output, err, "write");
        return -1;
    }
    if (keep == 0 && fennel_sweep_has_header(s)) {
        GString *h = g_string_new(NULL);
        fennel_sweep_header(s, h);
        gboolean ok = write_all(fd, o->output, h->str, h->len, error);
        g_string_free(h, TRUE);
        if (!ok) {
            close(fd);
            return -1;
        }
    }
    return fd;
}

/* What the progress shows: rows, and the work they stand for (fennel_sweep_point_weight),
 * by which the percentage and the time left are reckoned, since later points of a grid
 * are often much bigger than the first ones. */
typedef struct {
    uint64_t first, start, end; /* the shard's points, and where this run began */
    uint64_t *work;             /* work[i]: the work of points first .. first + i - 1 */
} Progress;

/* Weighing every point costs about as much as decoding it; beyond this many points the
 * progress counts rows. */
#define MAX_WEIGHED_POINTS (1u << 22)

static void progress_init(Progress *pr, const FennelSweep *s, uint64_t start)
{
    fennel_sweep_range(s, &pr->first, &pr->end);
    pr->start = start;
    pr->work = NULL;
    if (pr->end - pr->first > MAX_WEIGHED_POINTS)
        return;
    pr->work = g_new(uint64_t, pr->end - pr->first + 1);
    pr->work[0] = 0;
    for (uint64_t p = pr->first; p < pr->end; p++) {
        uint64_t w = fennel_sweep_point_weight(s, p), *next = &pr->work[p - pr->first + 1];
        if (__builtin_add_overflow(pr->work[p - pr->first], w, next))
            *next = UINT64_MAX;
    }
}

/* The work of points first .. p - 1 (rows when the points are not weighed). */
static double work_before(const Progress *pr, uint64_t p)
{
    return pr->work ? (double)pr->work[p - pr->first] : (double)(p - pr->first);
}

/* Reports the progress after points first .. written - 1 were written: the percentage is
 * of the work; the time left is the work left at this run's rate of work. */
static void report_progress(const FennelSweepRunOptions *o, const Progress *pr,
                            FennelSweepStage stage, uint64_t written, uint64_t repeat,
                            double elapsed, uint64_t in_flight)
{
    double total = work_before(pr, pr->end), done = work_before(pr, written);
    double fresh = done - work_before(pr, pr->start);
    FennelSweepProgress r = {.stage = stage,
                             .rows = (written - pr->first) * repeat,
                             .total = (pr->end - pr->first) * repeat,
                             .fraction = total > 0 ? done / total : 1.0,
                             .seconds_left = -1,
                             .in_flight = in_flight};
    if (elapsed > 0)
        r.rows_per_second = (double)((written - pr->start) * repeat) / elapsed;
    if (fresh > 0 && elapsed > 0)
        r.seconds_left = (total - done) / (fresh / elapsed);
    o->progress(&r, o->progress_data);
}

typedef struct {
    struct sigaction intr, term;
} Handlers;

static void catch_signals(Handlers *old)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    /* A second signal has the default effect: the sweep stops at once, and --resume
     * cuts off any partial row. */
    sa.sa_flags = SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    stop_signal = 0;
    sigaction(SIGINT, &sa, &old->intr);
    sigaction(SIGTERM, &sa, &old->term);
}

static void restore_signals(const Handlers *old)
{
    sigaction(SIGINT, &old->intr, NULL);
    sigaction(SIGTERM, &old->term, NULL);
}

char *fennel_sweep_sidecar_path(const char *output)
{
    size_t n = strlen(output);
    if (n > 4 && g_ascii_strcasecmp(output + n - 4, ".csv") == 0)
        return g_strdup_printf("%.*s.json", (int)(n - 4), output);
    return g_strconcat(output, ".json", NULL);
}

static gboolean write_sidecar(const FennelSweep *s, const char *output, GError **error)
{
    GString *json = g_string_new(NULL);
    fennel_sweep_json(s, output, json);
    char *path = fennel_sweep_sidecar_path(output);
    gboolean ok = fennel_write_file(path, json->str, json->len, error);
    g_free(path);
    g_string_free(json, TRUE);
    return ok;
}

gboolean fennel_sweep_run(const FennelSweep *s, const FennelSweepRunOptions *o, int *interrupted,
                          GError **error)
{
    *interrupted = 0;
    uint64_t first, end, start, repeat = fennel_sweep_repeat(s);
    fennel_sweep_range(s, &first, &end);
    int fd = open_output(s, o, &start, error);
    if (fd < 0)
        return FALSE;
    /* Chunks small enough to keep every thread busy (at least 16 tasks each) and to
     * show progress, large enough to amortise the hand-over. */
    uint64_t points = end - start;
    Run run = {.sweep = s,
               .start = start,
               .end = end,
               .chunk = CLAMP(points / ((uint64_t)o->jobs * 16), 1, 64),
               .window = MAX(64, (uint64_t)o->jobs * 16)};
    uint64_t tasks = (points + run.chunk - 1) / run.chunk;
    g_mutex_init(&run.lock);
    g_cond_init(&run.done);
    run.slots = g_new0(Done, run.window);
    Handlers old;
    catch_signals(&old);
    GError *why = NULL;
    GThreadPool *pool = g_thread_pool_new(worker, &run, (gint)o->jobs, TRUE, &why);
    if (pool == NULL) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_RUN, "sweep: cannot start %u threads: %s",
                    o->jobs, why->message);
        g_error_free(why);
        restore_signals(&old);
        g_free(run.slots);
        g_mutex_clear(&run.lock);
        g_cond_clear(&run.done);
        close(fd);
        return FALSE;
    }

    Progress progress = {0};
    if (o->progress)
        progress_init(&progress, s, start);
    GString *buffer = g_string_new(NULL);
    double t0 = g_get_monotonic_time() / 1e6, flushed = t0, drawn = 0;
    uint64_t next_push = 0, next = 0, written = start;
    gboolean ok = TRUE, partial = FALSE, noted = FALSE;
    while (next < tasks && ok && !partial) {
        while (!stop_signal && next_push < tasks && next_push < next + run.window) {
            g_thread_pool_push(pool, GSIZE_TO_POINTER(next_push + 1), NULL);
            next_push++;
        }
        g_mutex_lock(&run.lock);
        Done *slot = &run.slots[next % run.window];
        for (;;) {
            if (stop_signal && !noted && o->progress) {
                /* The first Ctrl-C: the caller may say why the sweep does not stop at once. */
                g_mutex_unlock(&run.lock);
                report_progress(o, &progress, FENNEL_SWEEP_INTERRUPTED, written, repeat,
                                g_get_monotonic_time() / 1e6 - t0,
                                (next_push - next) * run.chunk * repeat);
                g_mutex_lock(&run.lock);
                noted = TRUE;
            }
            if (slot->rows != NULL || (stop_signal && next_push == next))
                break;
            gint64 until = g_get_monotonic_time() + G_TIME_SPAN_MILLISECOND * 100;
            g_cond_wait_until(&run.done, &run.lock, until);
        }
        Done got = *slot;
        *slot = (Done){NULL, 0};
        g_mutex_unlock(&run.lock);
        if (got.rows == NULL || got.rows == &skipped)
            break;
        g_string_append_len(buffer, got.rows->str, (gssize)got.rows->len);
        g_string_free(got.rows, TRUE);
        written += got.points;
        /* A task cut short by a stop request: nothing after it is written. */
        partial = written < MIN(start + (next + 1) * run.chunk, end);
        next++;
        double now = g_get_monotonic_time() / 1e6;
        if (buffer->len >= FLUSH_BYTES || now - flushed >= FLUSH_SECONDS || next == tasks ||
            stop_signal || partial) {
            ok = write_all(fd, o->output, buffer->str, buffer->len, error);
            g_string_truncate(buffer, 0);
            flushed = now;
        }
        if (o->progress && (now - drawn >= o->progress_seconds || next == tasks)) {
            report_progress(o, &progress, FENNEL_SWEEP_RUNNING, written, repeat, now - t0, 0);
            drawn = now;
        }
    }
    if (ok && buffer->len)
        ok = write_all(fd, o->output, buffer->str, buffer->len, error);
    if (!ok)
        g_atomic_int_set(&run.failed, TRUE);
    /* Tasks still queued are dropped; running ones finish (their rows are not written). */
    g_thread_pool_free(pool, TRUE, TRUE);
    restore_signals(&old);
    if (o->progress)
        report_progress(o, &progress, FENNEL_SWEEP_FINISHED, written, repeat,
                        g_get_monotonic_time() / 1e6 - t0, 0);
    for (uint64_t i = 0; i < run.window; i++) {
        if (run.slots[i].rows && run.slots[i].rows != &skipped)
            g_string_free(run.slots[i].rows, TRUE);
    }
    g_free(run.slots);
    g_free(progress.work);
    g_string_free(buffer, TRUE);
    g_mutex_clear(&run.lock);
    g_cond_clear(&run.done);
    if (close(fd) != 0 && ok)
        ok = io_error(error, o->output, errno, "write");
    if (ok && written < end) {
        *interrupted = stop_signal;
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_RUN,
                    "sweep: interrupted by %s after %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
                    " rows; %s holds whole rows: the same command with --resume finishes it",
                    stop_signal == SIGTERM ? "SIGTERM" : "SIGINT", (written - first) * repeat,
                    (end - first) * repeat, o->output);
        ok = FALSE;
    }
    return ok;
}
