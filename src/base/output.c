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

static gboolean write_held(const char *path, const char *data, gsize length, GError **error);

gboolean fennel_write_file(const char *path, const char *data, gsize length, GError **error)
{
    sigset_t old;
    hold_signals(&old);
    gboolean ok = write_held(path, data, length, error);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return ok;
}

static gboolean write_held(const char *path, const char *data, gsize length, GError **error)
{
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
        return write_in_place(path, data, length, error);
    /* Through a symbolic link, the file it points to is replaced, not the link. */
    char *real = NULL;
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
        real = realpath(path, NULL);
    const char *target = real ? real : path;
    char *tmp = g_strdup_printf("%s.XXXXXX", target);
    int fd = g_mkstemp_full(tmp, O_WRONLY, 0666);
    gboolean ok = fd >= 0 && write_all(fd, data, length);
    int err = errno;
    if (fd >= 0 && close(fd) != 0 && ok) {
        ok = FALSE;
        err = errno;
    }
    if (ok && rename(tmp, target) != 0) {
        ok = FALSE;
        err = errno;
    }
    if (!ok && fd >= 0)
        unlink(tmp);
    g_free(tmp);
    free(real);
    return ok || fail(error, path, err);
}
