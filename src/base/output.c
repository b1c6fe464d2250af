#include "output.h"

#include "errors.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static gboolean fail(GError **error, const char *path, int err)
{
    /* The system's reason in lower case, as every message is. */
    char *reason = g_strdup(g_strerror(err));
    if (g_ascii_isupper(reason[0]))
        reason[0] = g_ascii_tolower(reason[0]);
    g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_IO, "%s: cannot write: %s", path, reason);
    g_free(reason);
    return FALSE;
}

/* Writes all of data to fd; errno tells why not. */
static gboolean write_all(int fd, const char *data, gsize length)
{
    gsize done = 0;
    while (done < length) {
        ssize_t n = write(fd, data + done, length - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n == 0)
                errno = EIO;
            return FALSE;
        }
        done += (gsize)n;
    }
    return TRUE;
}

int fennel_output_descriptor(const char *path)
{
    if (strcmp(path, "/dev/stdout") == 0)
        return 1;
    if (strcmp(path, "/dev/stderr") == 0)
        return 2;
    static const char *const folders[] = {"/dev/fd/", "/proc/self/fd/"};
    for (size_t i = 0; i < G_N_ELEMENTS(folders); i++) {
        size_t n = strlen(folders[i]);
        if (strncmp(path, folders[i], n) != 0 || !g_ascii_isdigit(path[n]))
            continue;
        char *end;
        errno = 0;
        unsigned long fd = strtoul(path + n, &end, 10);
        return *end == '\0' && errno == 0 && fd <= INT_MAX ? (int)fd : -1;
    }
    return -1;
}

/* Ctrl-C (or a TERM or HUP) between creating the temporary file and renaming it would leave
 * the temporary file behind: the three signals wait until the file is in place or gone. */
static void hold_signals(sigset_t *old)
{
    sigset_t held;
    sigemptyset(&held);
    sigaddset(&held, SIGINT);
    sigaddset(&held, SIGTERM);
    sigaddset(&held, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &held, old);
}

/* A file written to its temporary and waiting for its rename. While a set is committed, an
 * existing target is kept under `backup` (a second name of the same file, or the file moved
 * aside where the file system has no hard links: `moved`) until every rename succeeded. */
typedef struct {
    char *tmp, *target, *path, *backup;
    gboolean moved, placed;
} Staged;

struct FennelOutputs {
    GArray *staged; /* Staged */
    sigset_t old;
};

/* Opens what path's data goes to: a temporary file beside its target (recorded in *staged),
 * or, for a device, the device itself (*staged left empty). Returns the descriptor, or -1
 * with the error set. */
static int open_staged(const char *path, Staged *staged, GError **error)
{
    *staged = (Staged){0};
    /* The process's own descriptor (/dev/stdout with stdout on a file): written through it.
     * Staged, the rename would replace the file the shell opened (or /dev/stdout itself),
     * and what the process still writes to the descriptor would go to the old file. */
    int own = fennel_output_descriptor(path);
    if (own >= 0) {
        int fd = fcntl(own, F_DUPFD_CLOEXEC, 3);
        if (fd < 0)
            fail(error, path, errno);
        return fd;
    }
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        fail(error, path, EISDIR);
        return -1;
    }
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        int fd = open(path, O_WRONLY | O_CLOEXEC);
        if (fd < 0)
            fail(error, path, errno);
        return fd;
    }
    /* Through a symbolic link, the file it points to is replaced, not the link. */
    char *real = NULL;
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
        real = realpath(path, NULL);
    char *target = g_strdup(real ? real : path);
    free(real);
    char *tmp = g_strdup_printf("%s.XXXXXX", target);
    int fd = g_mkstemp_full(tmp, O_WRONLY, 0666);
    if (fd < 0) {
        int err = errno;
        g_free(tmp);
        g_free(target);
        fail(error, path, err);
        return -1;
    }
    *staged = (Staged){.tmp = tmp, .target = target, .path = g_strdup(path)};
    return fd;
}

/* Closes what open_staged opened; after a failure (err, or a failed close) removes the
 * temporary file and reports it. */
static gboolean close_staged(const char *path, int fd, int err, Staged *staged, GError **error)
{
    if (close(fd) != 0 && err == 0)
        err = errno;
    if (err == 0)
        return TRUE;
    if (staged->tmp)
        unlink(staged->tmp);
    g_free(staged->tmp);
    g_free(staged->target);
    g_free(staged->path);
    *staged = (Staged){0};
    return fail(error, path, err);
}

/* Writes data to a temporary file beside path's target (or, for a device, to the device
 * itself: then *staged is left empty). */
static gboolean stage(const char *path, const char *data, gsize length, Staged *staged,
                      GError **error)
{
    int fd = open_staged(path, staged, error);
    if (fd < 0)
        return FALSE;
    int err = write_all(fd, data, length) ? 0 : errno;
    return close_staged(path, fd, err, staged, error);
}

/* Renames a staged file into place; on failure removes it. */
static gboolean place(Staged *s, GError **error)
{
    gboolean ok = TRUE;
    if (s->tmp && rename(s->tmp, s->target) != 0) {
        int err = errno;
        unlink(s->tmp);
        ok = fail(error, s->path, err);
    }
    g_free(s->tmp);
    g_free(s->target);
    g_free(s->path);
    *s = (Staged){0};
    return ok;
}

gboolean fennel_write_file(const char *path, const char *data, gsize length, GError **error)
{
    sigset_t old;
    hold_signals(&old);
    Staged s;
    gboolean ok = stage(path, data, length, &s, error) && place(&s, error);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return ok;
}

FennelOutputs *fennel_outputs_new(void)
{
    FennelOutputs *o = g_new0(FennelOutputs, 1);
    o->staged = g_array_new(FALSE, FALSE, sizeof(Staged));
    hold_signals(&o->old);
    return o;
}

gboolean fennel_outputs_write(FennelOutputs *o, const char *path, const char *data, gsize length,
                              GError **error)
{
    if (o == NULL)
        return fennel_write_file(path, data, length, error);
    Staged s;
    if (!stage(path, data, length, &s, error))
        return FALSE;
    if (s.tmp)
        g_array_append_val(o->staged, s);
    return TRUE;
}

static void finish(FennelOutputs *o)
{
    for (guint i = 0; i < o->staged->len; i++) {
        Staged *s = &g_array_index(o->staged, Staged, i);
        g_free(s->tmp);
        g_free(s->target);
        g_free(s->path);
        g_free(s->backup);
    }
    pthread_sigmask(SIG_SETMASK, &o->old, NULL);
    g_array_free(o->staged, TRUE);
    g_free(o);
}

FennelSink fennel_sink_on_string(GString *text)
{
    return (FennelSink){.text = text, .fd = -1};
}

void fennel_sink_flush(FennelSink *s)
{
    if (s->fd < 0)
        return; /* a string keeps its text */
    if (s->failed == 0 && !write_all(s->fd, s->text->str, s->text->len))
        s->failed = errno;
    g_string_truncate(s->text, 0);
}

/* A sink of a set: the file's staging travels with it until it is closed. */
typedef struct {
    FennelSink sink; /* first: the pointer handed out */
    Staged staged;
    char *path;
} OpenSink;

FennelSink *fennel_outputs_open(FennelOutputs *o, const char *path, GError **error)
{
    g_return_val_if_fail(o != NULL, NULL);
    OpenSink *open = g_new0(OpenSink, 1);
    int fd = open_staged(path, &open->staged, error);
    if (fd < 0) {
        g_free(open);
        return NULL;
    }
    open->sink = (FennelSink){.text = g_string_sized_new(FENNEL_SINK_SPILL + 64 * 1024), .fd = fd};
    open->path = g_strdup(path);
    return &open->sink;
}

gboolean fennel_outputs_close_sink(FennelOutputs *o, FennelSink *sink, GError **error)
{
    OpenSink *open = (OpenSink *)(void *)sink;
    fennel_sink_flush(sink);
    gboolean ok = close_staged(open->path, sink->fd, sink->failed, &open->staged, error);
    if (ok && open->staged.tmp)
        g_array_append_val(o->staged, open->staged);
    g_string_free(sink->text, TRUE);
    g_strfreev(sink->notes);
    g_free(open->path);
    g_free(open);
    return ok;
}

/* Keeps an existing target under a new name beside it, so that it can be put back if a later
 * rename of the set fails. */
static gboolean keep_aside(Staged *s, GError **error)
{
    struct stat st;
    if (lstat(s->target, &st) != 0)
        return TRUE; /* a new file: undone by removing it */
    char *name = g_strdup_printf("%s.XXXXXX", s->target);
    int fd = g_mkstemp_full(name, O_WRONLY, 0600);
    if (fd < 0) {
        int err = errno;
        g_free(name);
        return fail(error, s->path, err);
    }
    close(fd);
    /* The name was free a moment ago; link() does not replace a file, so it is freed again. */
    unlink(name);
    if (link(s->target, name) == 0) {
        s->backup = name;
        return TRUE;
    }
    if (rename(s->target, name) == 0) {
        s->backup = name;
        s->moved = TRUE;
        return TRUE;
    }
    int err = errno;
    g_free(name);
    return fail(error, s->path, err);
}

/* After a failed commit: puts back what the set replaced and removes what it added. */
static void undo(Staged *s)
{
    if (s->placed || s->moved) {
        if (s->backup)
            rename(s->backup, s->target);
        else
            unlink(s->target);
    } else if (s->backup) {
        unlink(s->backup);
    }
    if (!s->placed)
        unlink(s->tmp);
}

gboolean fennel_outputs_commit(FennelOutputs *o, GError **error)
{
    Staged *s = (Staged *)(void *)o->staged->data;
    guint n = o->staged->len;
    gboolean ok = TRUE;
    /* Every target is checked before the first rename (a directory made since it was
     * staged would fail its rename with the others already in place). */
    for (guint i = 0; i < n && ok; i++) {
        struct stat st;
        if (stat(s[i].target, &st) == 0 && S_ISDIR(st.st_mode))
            ok = fail(error, s[i].path, EISDIR);
    }
    for (guint i = 0; i < n && ok; i++)
        ok = keep_aside(&s[i], error);
    for (guint i = 0; i < n && ok; i++) {
        if (rename(s[i].tmp, s[i].target) == 0)
            s[i].placed = TRUE;
        else
            ok = fail(error, s[i].path, errno);
    }
    /* Undone last to first, so that a target named twice gets its first content back. */
    for (guint i = n; i-- > 0;) {
        if (!ok)
            undo(&s[i]);
        else if (s[i].backup)
            unlink(s[i].backup);
    }
    finish(o);
    return ok;
}

void fennel_outputs_abort(FennelOutputs *o)
{
    for (guint i = 0; i < o->staged->len; i++)
        unlink(g_array_index(o->staged, Staged, i).tmp);
    finish(o);
}

/* The path with its folder's links and dots resolved, or a copy when the folder is missing. */
static char *resolved(const char *path)
{
    char *dir = g_path_get_dirname(path), *base = g_path_get_basename(path);
    char *real = realpath(dir, NULL);
    char *out = real ? g_build_filename(real, base, NULL) : g_strdup(path);
    free(real);
    g_free(dir);
    g_free(base);
    return out;
}

gboolean fennel_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    gboolean has_a = stat(a, &sa) == 0, has_b = stat(b, &sb) == 0;
    if (has_a || has_b)
        return has_a && has_b && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    char *ra = resolved(a), *rb = resolved(b);
    gboolean same = strcmp(ra, rb) == 0;
    g_free(ra);
    g_free(rb);
    return same;
}
