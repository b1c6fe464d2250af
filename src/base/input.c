#include "input.h"

#include "capacity.h"
#include "errors.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
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

/* Opens a file to read; refuses directories and files over the cap. */
static int open_input(const char *path, struct stat *st, GError **error)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        fail(error, path, g_strerror(errno));
        return -1;
    }
    if (fstat(fd, st) != 0) {
        int err = errno;
        close(fd);
        fail(error, path, g_strerror(err));
        return -1;
    }
    if (S_ISDIR(st->st_mode)) {
        close(fd);
        fail(error, path, "is a directory, not a file");
        return -1;
    }
    if (S_ISREG(st->st_mode) && (guint64)st->st_size > FENNEL_FILE_MAX) {
        close(fd);
        fail(error, path, "the file is larger than 8 GiB");
        return -1;
    }
    return fd;
}

/* Makes *buf hold `want` bytes: checked against the memory first (a text of 100 MB under
 * `ulimit -v` is refused naming the limit, not left to GLib's allocator to abort on). */
static gboolean reserve(char **buf, gsize want, const char *path, GError **error)
{
    char *what = g_strdup_printf("the text of %s", path);
    gboolean ok = fennel_check_memory(NULL, want, what, error);
    char *more = ok ? g_try_realloc(*buf, want) : NULL;
    if (ok && more == NULL) {
        fennel_out_of_memory(error, NULL, want, what);
        ok = FALSE;
    }
    g_free(what);
    if (ok)
        *buf = more;
    return ok;
}

/* Reads an open file to its end (and closes it). A regular file is read into a buffer of
 * its size and one byte for the NUL, and held once: the buffer grows only if the file does
 * while it is read (a byte read past the size it had). Pipes and devices are read in
 * chunks that double, up to the cap (one byte more is refused). */
static gboolean read_all(int fd, const struct stat *st, const char *path, char **data,
                         gsize *length, GError **error)
{
    gsize capacity = S_ISREG(st->st_mode) ? (gsize)st->st_size + 1 : 65536, used = 0;
    gsize limit = S_ISREG(st->st_mode) ? FENNEL_FILE_MAX : FENNEL_INPUT_MAX;
    char *buf = NULL;
    if (!reserve(&buf, capacity, path, error)) {
        close(fd);
        return FALSE;
    }
    for (;;) {
        if (used + 1 >= capacity) {
            /* Full: one byte more says whether the input goes on before the buffer does. */
            char more;
            ssize_t n = read(fd, &more, 1);
            if (n < 0 && errno == EINTR)
                continue;
            if (n == 0)
                break;
            if (n > 0 && capacity > limit) {
                g_free(buf);
                close(fd);
                return fail(error, path,
                            limit == FENNEL_INPUT_MAX ? "more than 1 GiB of input"
                                                      : "the file is larger than 8 GiB");
            }
            gsize larger = MIN(capacity * 2, limit + 2); /* full: more than the cap read */
            if (n > 0 && !reserve(&buf, larger, path, error)) {
                g_free(buf);
                close(fd);
                return FALSE;
            }
            if (n < 0) {
                int err = errno;
                g_free(buf);
                close(fd);
                return fail(error, path, g_strerror(err));
            }
            capacity = larger;
            buf[used++] = more;
            continue;
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

gboolean fennel_read_input(const char *path, char **data, gsize *length, GError **error)
{
    *data = NULL;
    *length = 0;
    struct stat st;
    int fd = open_input(path, &st, error);
    return fd >= 0 && read_all(fd, &st, path, data, length, error);
}

typedef struct {
    void *base;
    gsize size;
} Mapping;

static void unmap(gpointer data)
{
    Mapping *m = data;
    munmap(m->base, m->size);
    g_free(m);
}

static gsize page_size(void)
{
    long size = sysconf(_SC_PAGESIZE);
    return size > 0 ? (gsize)size : 4096;
}

/* Maps a regular file of `size` bytes (size > 0) followed by a NUL: a region of zero pages
 * one byte longer than the file is reserved, and the file mapped over its start. The bytes
 * after the end of the file in its last page are zero too (mmap(2)), so data[size] is a NUL
 * whether or not the size is a multiple of the page size. NULL if the system refuses. */
static GBytes *map_file(int fd, gsize size)
{
    gsize page = page_size(), total = (size + 1 + page - 1) / page * page;
    void *base = mmap(NULL, total, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED)
        return NULL;
    if (mmap(base, size, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0) == MAP_FAILED) {
        munmap(base, total);
        return NULL;
    }
    Mapping *m = g_new(Mapping, 1);
    *m = (Mapping){base, total};
    return g_bytes_new_with_free_func(base, size, unmap, m);
}

GBytes *fennel_map_input(const char *path, gboolean *mapped, GError **error)
{
    *mapped = FALSE;
    struct stat st;
    int fd = open_input(path, &st, error);
    if (fd < 0)
        return NULL;
    if (S_ISREG(st.st_mode) && st.st_size > 0) {
        GBytes *text = map_file(fd, (gsize)st.st_size);
        if (text) {
            close(fd);
            *mapped = TRUE;
            return text;
        }
    }
    /* A pipe, a device, an empty file, or a file the system would not map. */
    char *data;
    gsize length;
    if (!read_all(fd, &st, path, &data, &length, error))
        return NULL;
    return g_bytes_new_take(data, length);
}

void fennel_input_release(const char *data, gsize from, gsize to)
{
    gsize page = page_size();
    guintptr start = ((guintptr)data + from + page - 1) / page * page;
    guintptr end = ((guintptr)data + to) / page * page;
    if (start < end)
        madvise((void *)start, end - start, MADV_DONTNEED);
}
