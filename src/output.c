#include "output.h"

#include "errors.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static gboolean fail(GError **error, const char *path, int err)
{
    g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_IO, "%s: cannot write: %s", path,
                g_strerror(err));
    return FALSE;
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
    char *tmp = g_strdup_printf("%s.XXXXXX", path);
    int fd = g_mkstemp_full(tmp, O_WRONLY, 0666);
    if (fd < 0) {
        int err = errno;
        g_free(tmp);
        return fail(error, path, err);
    }
    gsize done = 0;
    while (done < length) {
        ssize_t n = write(fd, data + done, length - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            int err = n < 0 ? errno : EIO;
            close(fd);
            unlink(tmp);
            g_free(tmp);
            return fail(error, path, err);
        }
        done += (gsize)n;
    }
    if (close(fd) != 0 || rename(tmp, path) != 0) {
        int err = errno;
        unlink(tmp);
        g_free(tmp);
        return fail(error, path, err);
    }
    g_free(tmp);
    return TRUE;
}
