/* A sweep over program files (sweep.h): the files and patterns given, expanded in order,
 * and reading one grid point's file. */
#include "sweep_private.h"

#include "errors.h"

#include <errno.h>
#include <glob.h>
#include <string.h>
#include <sys/stat.h>

/* Adds one file, which must be there: a missing file is most likely a typo, better said
 * before any run than in every row. Directories are refused for the same reason. */
static gboolean add_file(GPtrArray *names, GArray *bytes, const char *file, GError **error)
{
    struct stat st;
    if (stat(file, &st) != 0) {
        char *reason = g_strdup(g_strerror(errno));
        reason[0] = g_ascii_tolower(reason[0]);
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_IO, "%s: cannot read: %s", file, reason);
        g_free(reason);
        return FALSE;
    }
    if (S_ISDIR(st.st_mode)) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE,
                    "%s: is a directory (give its files, e.g. --program '%s/*.yaml')", file, file);
        return FALSE;
    }
    uint64_t size = S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
    g_ptr_array_add(names, g_strdup(file));
    g_array_append_val(bytes, size);
    return TRUE;
}

/* Expands one pattern; glob(3) sorts the names it returns. */
static gboolean add_pattern(GPtrArray *names, GArray *bytes, const char *pattern, GError **error)
{
    glob_t g;
    int status = glob(pattern, 0, NULL, &g);
    gboolean ok = status == 0;
    if (status == GLOB_NOMATCH)
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE, "--program %s: no file matches",
                    pattern);
    else if (!ok)
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_IO,
                    "--program %s: cannot list the files it names", pattern);
    for (size_t i = 0; ok && i < g.gl_pathc; i++)
        ok = add_file(names, bytes, g.gl_pathv[i], error);
    if (status != GLOB_NOMATCH)
        globfree(&g);
    return ok;
}

gboolean fennel__sweep_add_programs(FennelSweep *s, const FennelSweepSpec *spec, GError **error)
{
    GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
    GArray *bytes = g_array_new(FALSE, FALSE, sizeof(uint64_t));
    gboolean ok = TRUE;
    for (char *const *f = spec->files; ok && f && *f; f++)
        ok = add_file(names, bytes, *f, error);
    for (char *const *p = spec->patterns; ok && p && *p; p++)
        ok = add_pattern(names, bytes, *p, error);
    if (ok && names->len > FENNEL_SWEEP_MAX_VALUES) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE,
                    "the sweep names more than %d program files; split it",
                    FENNEL_SWEEP_MAX_VALUES);
        ok = FALSE;
    }
    s->n_programs = names->len;
    g_ptr_array_add(names, NULL);
    s->programs = (char **)g_ptr_array_free(names, FALSE);
    s->program_bytes = (uint64_t *)g_array_free(bytes, FALSE);
    if (spec->read)
        s->read = *spec->read;
    return ok;
}

FennelProgram *fennel__sweep_read_program(const FennelSweep *s, const FennelSweepPoint *pt,
                                          GError **error)
{
    FennelReadOptions read = s->read;
    guint k = pt->idx[1];
    read.size = k == G_MAXUINT ? 0 : s->dims[1].num[k];
    if (k != G_MAXUINT && read.size <= 0) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT, "--size must be positive");
        return NULL;
    }
    /* The row's model's GPU times a Chakra trace's computes recorded as operations. */
    read.model = &s->models[pt->model];
    return fennel_program_read_with(s->programs[pt->gen], &read, NULL, error);
}
