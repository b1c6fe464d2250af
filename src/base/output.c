#include "output.h"

#include "errors.h"

#include <errno.h>
#include <fcntl.h>
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

/* A device or a pipe (/dev/null, /dev/stdout, a FIFO) is written in place: renaming a
 * file over it would replace the device node itself. */
static gboolean write_in_place(const char *path, const char *data, gsize length, GError **error)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return fail(error, path, errno);
    if (!write_all(fd, data, length)) {
        int err = errno;
        close(fd);
        return fail(error, path, err);
    }
    if (close(fd) != 0)
        return fail(error, path, errno);
    return TRUE;
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

/* A file written to its temporary and waiting for its rename. */
typedef struct {
    char *tmp, *target, *path;
} Staged;

struct FennelOutputs {
    GArray *staged; /* Staged */
    sigset_t old;
};

/* Writes data to a temporary file beside path's target (or, for a device, to the device
 * itself: then *staged is left empty). */
static gboolean stage(const char *path, const char *data, gsize length, Staged *staged,
                      GError **error)
{
    *staged = (Staged){0};
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
        return write_in_place(path, data, length, error);
    /* Through a symbolic link, the file it points to is replaced, not the link. */
    char *real = NULL;
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
        real = realpath(path, NULL);
    char *target = g_strdup(real ? real : path);
    free(real);
    char *tmp = g_strdup_printf("%s.XXXXXX", target);
    int fd = g_mkstemp_full(tmp, O_WRONLY, 0666);
    gboolean ok = fd >= 0 && write_all(fd, data, length);
    int err = errno;
    if (fd >= 0 && close(fd) != 0 && ok) {
        ok = FALSE;
        err = errno;
    }
    if (!ok) {
        if (fd >= 0)
            unlink(tmp);
        g_free(tmp);
        g_free(target);
        return fail(error, path, err);
    }
    *staged = (Staged){tmp, target, g_strdup(path)};
    return TRUE;
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
    pthread_sigmask(SIG_SETMASK, &o->old, NULL);
    g_array_free(o->staged, TRUE);
    g_free(o);
}

gboolean fennel_outputs_commit(FennelOutputs *o, GError **error)
{
    gboolean ok = TRUE;
    for (guint i = 0; i < o->staged->len; i++) {
        Staged *s = &g_array_index(o->staged, Staged, i);
        if (ok) {
            ok = place(s, error);
            continue;
        }
        /* After a failed rename the others are removed, not placed. */
        unlink(s->tmp);
        g_free(s->tmp);
        g_free(s->target);
        g_free(s->path);
    }
    finish(o);
    return ok;
}

void fennel_outputs_abort(FennelOutputs *o)
{
    for (guint i = 0; i < o->staged->len; i++) {
        Staged *s = &g_array_index(o->staged, Staged, i);
        unlink(s->tmp);
        g_free(s->tmp);
        g_free(s->target);
        g_free(s->path);
    }
    finish(o);
}
