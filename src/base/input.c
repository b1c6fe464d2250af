#include "input.h"

#include "errors.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

/* "no such file or directory": the system's reason, lower case, as every error is. */
static gboolean fail(GError **error, const char *path, const char *why)
{
    char *reason = g_strdup(why);
    if (reason[0] && g_ascii_isupper(reason[0]))
        reason[0] = g_ascii_tolower(reason[0]);
    g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_IO, "%s: cannot read: %s", path, reason);
    g_free(reason);
    return FALSE;
}

gboolean fennel_read_input(const char *path, char **data, gsize *length, GError **error)
{
    *data = NULL;
    *length = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return fail(error, path, g_strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int err = errno;
        close(fd);
        return fail(error, path, g_strerror(err));
    }
    if (S_ISDIR(st.st_mode)) {
        close(fd);
        return fail(error, path, "is a directory, not a file");
    }
    if (S_ISREG(st.st_mode) && (guint64)st.st_size > FENNEL_FILE_MAX) {
        close(fd);
        return fail(error, path, "the file is larger than 8 GiB");
    }
    /* Regular files by their size; pipes and devices in growing chunks, up to the cap. */
    gsize capacity = S_ISREG(st.st_mode) ? (gsize)st.st_size + 1 : 65536, used = 0;
    gsize limit = S_ISREG(st.st_mode) ? FENNEL_FILE_MAX : FENNEL_INPUT_MAX;
    char *buf = g_malloc(capacity);
    for (;;) {
        if (used + 1 >= capacity) {
            if (capacity > limit) {
                g_free(buf);
                close(fd);
                return fail(error, path,
                            limit == FENNEL_INPUT_MAX ? "more than 1 GiB of input"
                                                      : "the file is larger than 8 GiB");
            }
            capacity *= 2;
            buf = g_realloc(buf, capacity);
        }
        ssize_t n = read(fd, buf + used, capacity - used - 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int err = errno;
            g_free(buf);
            close(fd);
            return fail(error, path, g_strerror(err));
        }
        if (n == 0)
            break;
        used += (gsize)n;
    }
    close(fd);
    buf[used] = '\0';
    *data = buf;
    *length = used;
    return TRUE;
}
