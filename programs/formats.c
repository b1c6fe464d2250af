/* The table of program formats (formats.h) and what every command does through it. */
#include "formats.h"

#include "errors.h"
#include "input.h"

#include <string.h>

/* Every format, one line each, in the order their detectors are tried on a text. YAML,
 * fennel's own, comes first in listings; it has no detector: a text no other format claims
 * is read as YAML. A new format: its descriptor `fennel_format_NAME` in its folder and a
 * line here. */
#define FENNEL_FORMAT_TABLE(X)                                                                     \
    X(yaml)                                                                                        \
    X(binary)                                                                                      \
    X(chakra)                                                                                      \
    X(msccl)                                                                                       \
    X(mscclpp)                                                                                     \
    X(goal)                                                                                        \
    X(fennel_goal)                                                                                 \
    X(dot)                                                                                         \
    X(csv)

#define DECLARE(name) extern const FennelFormatClass fennel_format_##name;
FENNEL_FORMAT_TABLE(DECLARE)
#undef DECLARE

#define ROW(name) &fennel_format_##name,
const FennelFormatClass *const fennel_formats[] = {FENNEL_FORMAT_TABLE(ROW) NULL};
#undef ROW

const FennelFormatClass *fennel_format_find(const char *name)
{
    for (const FennelFormatClass *const *f = fennel_formats; *f; f++) {
        if (strcmp((*f)->name, name) == 0)
            return *f;
    }
    return NULL;
}

const FennelFormatClass *fennel_format_detect(const char *file, const char *data, gsize length)
{
    const FennelFormatClass *fallback = NULL;
    for (const FennelFormatClass *const *f = fennel_formats; *f; f++) {
        if ((*f)->detect == NULL) {
            if (fallback == NULL && (*f)->read)
                fallback = *f;
        } else if ((*f)->detect(file, data, length)) {
            return *f;
        }
    }
    return fallback;
}

gboolean fennel_format_reads(const FennelFormatClass *f)
{
    return f->read != NULL;
}

gboolean fennel_format_writes(const FennelFormatClass *f)
{
    return f->write != NULL || f->write_ranks != NULL;
}

gboolean fennel_format_generates(const FennelFormatClass *f)
{
    return fennel_format_writes(f) && !(f->needs & FENNEL_FORMAT_CONVERTS);
}

void fennel_format_refuse_size(const char *file, GError **error)
{
    fennel_error_at_code(error, FENNEL_ERROR_USAGE, file, 0, 0,
                         "--size is for algorithm files (MSCCL, MSCCL++); this program's sizes "
                         "are its own");
}

/* Whether every byte is below 0x80: such text is UTF-8, so the validation (7 instructions a
 * byte, an eighth of reading a large GOAL file) is needed only when this finds a byte above.
 * The OR of all words is one pass the compiler vectorises. */
static gboolean plain_ascii(const char *data, gsize length)
{
    uint64_t any = 0;
    gsize i = 0;
    for (; i + 8 <= length; i += 8) {
        uint64_t w;
        memcpy(&w, data + i, 8);
        any |= w;
    }
    for (; i < length; i++)
        any |= (uint8_t)data[i];
    return (any & 0x8080808080808080ull) == 0;
}

gboolean fennel_format_check_text(const FennelFormatClass *f, const FennelFormatInput *in,
                                  const FennelReadOptions *options, GError **error)
{
    if (memchr(in->data, '\0', in->length) != NULL) {
        fennel_error_at(error, in->file, 0, 0, "binary data (a NUL byte) in a text file");
        return FALSE;
    }
    if (!(f->needs & FENNEL_FORMAT_SIZED) && options && options->size > 0) {
        fennel_format_refuse_size(in->file, error);
        return FALSE;
    }
    if ((f->needs & FENNEL_FORMAT_UTF8) && !plain_ascii(in->data, in->length) &&
        !g_utf8_validate(in->data, (gssize)in->length, NULL)) {
        fennel_error_at(error, in->file, 0, 0, "the file is not UTF-8 text");
        return FALSE;
    }
    return TRUE;
}

FennelFormatCheck fennel_format_verify(const char *file, gboolean collective_given, GString *line,
                                       FennelProgram **program, GError **error)
{
    /* A file told by its name before it is read (a binary program) is never an algorithm,
     * and is not read here. */
    for (const FennelFormatClass *const *f = fennel_formats; *f; f++) {
        if ((*f)->detect_file && (*f)->detect_file(file))
            return FENNEL_FORMAT_NOT_CHECKED;
    }
    /* Mapped, as the program readers map it: nothing is copied. */
    gboolean mapped;
    GBytes *text = fennel_map_input(file, &mapped, error);
    if (text == NULL)
        return FENNEL_FORMAT_REFUSED;
    gsize length;
    const char *data = g_bytes_get_data(text, &length);
    if (data == NULL)
        data = "";
    const FennelFormatClass *f = fennel_format_detect(file, data, length);
    FennelFormatCheck result =
        f && f->verify ? f->verify(file, data, length, collective_given, line, program, error)
                       : FENNEL_FORMAT_NOT_CHECKED;
    g_bytes_unref(text);
    return result;
}

gboolean fennel_format_carry(const char *from, const FennelFormatClass *to, const FennelProgram *p,
                             FennelSink *out)
{
    if (!(to->needs & FENNEL_FORMAT_CARRIER))
        return FALSE;
    for (const FennelFormatClass *const *f = fennel_formats; *f; f++) {
        if ((*f)->detect_file && (*f)->detect_file(from))
            return FALSE;
    }
    /* The file was read once already, so it parses. */
    gboolean mapped;
    GBytes *text = fennel_map_input(from, &mapped, NULL);
    if (text == NULL)
        return FALSE;
    gsize length;
    const char *data = g_bytes_get_data(text, &length);
    const FennelFormatClass *f = data ? fennel_format_detect(from, data, length) : NULL;
    gboolean written = f && f->carry && f->carry(from, data, length, p, out->text);
    g_bytes_unref(text);
    return written;
}

/* The whole program a file names (program_name of the first format that has one). */
static char *program_name_of(const char *file)
{
    for (const FennelFormatClass *const *f = fennel_formats; *f; f++) {
        char *name = (*f)->program_name ? (*f)->program_name(file) : NULL;
        if (name)
            return name;
    }
    return NULL;
}

char **fennel_format_distinct_programs(char **files)
{
    guint n = files ? g_strv_length(files) : 0, kept = 0;
    char **out = g_new0(char *, n + 1);
    GHashTable *seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    for (guint i = 0; i < n; i++) {
        char *name = program_name_of(files[i]);
        if (name && !g_hash_table_add(seen, name))
            continue;
        out[kept++] = files[i];
    }
    g_hash_table_destroy(seen);
    return out;
}
