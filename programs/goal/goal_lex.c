#include "goal_lex.h"

#include "errors.h"
#include "goal_readers.h"

#include <string.h>

void fennel_goal_lex_init(FennelGoalLex *lx, const char *file, const char *data, gsize length)
{
    memset(lx, 0, sizeof *lx);
    lx->file = file;
    lx->data = data;
    lx->end = data + length;
    lx->next = data;
}

gboolean fennel_goal_lex_next_line(FennelGoalLex *lx)
{
    if (lx->next >= lx->end)
        return FALSE;
    lx->line_start = lx->next;
    const char *nl = memchr(lx->line_start, '\n', (size_t)(lx->end - lx->line_start));
    lx->line_end = nl ? nl : lx->end;
    lx->next = nl ? nl + 1 : lx->end;
    lx->p = lx->line_start;
    lx->line++;
    return TRUE;
}

void fennel_goal_lex_skip(FennelGoalLex *lx, gboolean hash)
{
    for (;;) {
        if (lx->in_block_comment) {
            const char *close = g_strstr_len(lx->p, lx->line_end - lx->p, "*/");
            if (close == NULL) {
                lx->p = lx->line_end;
                return;
            }
            lx->p = close + 2;
            lx->in_block_comment = FALSE;
        }
        while (lx->p < lx->line_end && (*lx->p == ' ' || *lx->p == '\t' || *lx->p == '\r'))
            lx->p++;
        if (lx->p + 1 < lx->line_end && lx->p[0] == '/' && lx->p[1] == '/') {
            lx->p = lx->line_end;
            return;
        }
        if (hash && lx->p < lx->line_end && *lx->p == '#') {
            lx->p = lx->line_end;
            return;
        }
        if (lx->p + 1 < lx->line_end && lx->p[0] == '/' && lx->p[1] == '*') {
            lx->comment_line = lx->line;
            lx->comment_col = fennel_goal_lex_col(lx);
            lx->p += 2;
            lx->in_block_comment = TRUE;
            continue;
        }
        return;
    }
}

gboolean fennel_goal_lex_at_end(FennelGoalLex *lx, gboolean hash)
{
    fennel_goal_lex_skip(lx, hash);
    return lx->p >= lx->line_end;
}

unsigned fennel_goal_lex_col(const FennelGoalLex *lx)
{
    /* Columns count characters, not bytes: skip UTF-8 continuation bytes. */
    unsigned col = 1;
    for (const char *c = lx->line_start; c < lx->p; c++)
        col += ((unsigned char)*c & 0xc0) != 0x80;
    return col;
}

gboolean fennel_goal_lex_word(FennelGoalLex *lx, char *buf, size_t size)
{
    fennel_goal_lex_skip(lx, FALSE);
    size_t n = 0;
    while (lx->p < lx->line_end && (g_ascii_isalnum(*lx->p) || *lx->p == '_')) {
        if (n + 1 < size)
            buf[n++] = *lx->p;
        lx->p++;
    }
    buf[n] = '\0';
    return n > 0;
}

size_t fennel_goal_lex_span(FennelGoalLex *lx, const char **start)
{
    fennel_goal_lex_skip(lx, FALSE);
    *start = lx->p;
    while (lx->p < lx->line_end && (g_ascii_isalnum(*lx->p) || *lx->p == '_'))
        lx->p++;
    return (size_t)(lx->p - *start);
}

gboolean fennel__goal_tag(FennelGoalTags *t, uint64_t tag, uint32_t *out)
{
    if (tag < FENNEL_GOAL_TAG_MAPPED) {
        *out = (uint32_t)tag;
        return TRUE;
    }
    if (t->next == 0) {
        fennel_map_init(&t->map);
        t->next = FENNEL_GOAL_TAG_MAPPED;
    }
    /* The tag is the second word of the key: the first may not be FENNEL_MAP_EMPTY, and
     * 2^64 - 1 is a tag too. */
    uint64_t *slot = fennel_map_slot(&t->map, 0, tag, t->next);
    if (*slot == t->next) {
        if (t->next >= FENNEL_ANY) {
            fennel_map_remove(&t->map, 0, tag);
            return FALSE;
        }
        t->next++;
    }
    *out = (uint32_t)*slot;
    return TRUE;
}

void fennel__goal_tags_clear(FennelGoalTags *t)
{
    if (t->next)
        fennel_map_clear(&t->map);
    t->next = 0;
}

gboolean fennel_goal_lex_accept(FennelGoalLex *lx, const char *text)
{
    fennel_goal_lex_skip(lx, FALSE);
    size_t n = strlen(text);
    if ((size_t)(lx->line_end - lx->p) >= n && strncmp(lx->p, text, n) == 0) {
        lx->p += n;
        return TRUE;
    }
    return FALSE;
}

gboolean fennel_goal_lex_number(FennelGoalLex *lx, uint64_t max, uint64_t *out, const char *what,
                                GError **error)
{
    fennel_goal_lex_skip(lx, FALSE);
    if (lx->p >= lx->line_end || !g_ascii_isdigit(*lx->p))
        return fennel_goal_lex_error(lx, error, "expected %s (a whole number)", what);
    uint64_t v = 0;
    gboolean too_big = FALSE;
    while (lx->p < lx->line_end && g_ascii_isdigit(*lx->p)) {
        unsigned digit = (unsigned)(*lx->p - '0');
        if (v > (max - digit) / 10)
            too_big = TRUE;
        else
            v = v * 10 + digit;
        lx->p++;
    }
    if (too_big)
        return fennel_goal_lex_error(lx, error, "%s is too large (at most %" G_GUINT64_FORMAT ")",
                                     what, max);
    *out = v;
    return TRUE;
}

gboolean fennel_goal_lex_error(FennelGoalLex *lx, GError **error, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    char *what = g_strdup_vprintf(format, args);
    va_end(args);
    fennel_error_at(error, lx->file, lx->line, fennel_goal_lex_col(lx), "%s", what);
    g_free(what);
    return FALSE;
}

gboolean fennel_goal_lex_error_at(FennelGoalLex *lx, unsigned col, GError **error,
                                  const char *format, ...)
{
    va_list args;
    va_start(args, format);
    char *what = g_strdup_vprintf(format, args);
    va_end(args);
    fennel_error_at(error, lx->file, lx->line, col, "%s", what);
    g_free(what);
    return FALSE;
}
