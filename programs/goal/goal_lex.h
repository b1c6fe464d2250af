/* A small line scanner shared by the two GOAL readers: it walks a file line by line,
 * skips blanks, and hands out words and numbers with their column, so that every error
 * names FILE:LINE:COL. */
#ifndef FENNEL_GOAL_LEX_H
#define FENNEL_GOAL_LEX_H

#include <glib.h>
#include <stdint.h>

typedef struct {
    const char *file;
    const char *data;
    const char *end;
    const char *next;       /* the start of the next line */
    const char *line_start; /* of the current line */
    const char *p;          /* the scan position within it */
    const char *line_end;
    unsigned line;
    gboolean in_block_comment;          /* inside a C comment that spans lines */
    unsigned comment_line, comment_col; /* where that comment opened, for errors */
} FennelGoalLex;

void fennel_goal_lex_init(FennelGoalLex *lx, const char *file, const char *data, gsize length);

/* Moves to the next line; FALSE at the end of the file. */
gboolean fennel_goal_lex_next_line(FennelGoalLex *lx);

/* Skips blanks and comments on the line: `//` to the end of the line, C block comments
 * (which may span lines), and with `hash` also `#` to the end of the line. */
void fennel_goal_lex_skip(FennelGoalLex *lx, gboolean hash);

/* Whether the rest of the line is empty (after skipping blanks and comments). */
gboolean fennel_goal_lex_at_end(FennelGoalLex *lx, gboolean hash);

unsigned fennel_goal_lex_col(const FennelGoalLex *lx);

/* Reads a word of [A-Za-z0-9_] into buf (at most size - 1 characters); FALSE if there is
 * none. */
gboolean fennel_goal_lex_word(FennelGoalLex *lx, char *buf, size_t size);

/* A word of [A-Za-z0-9_] of any length, left in the data: its start and length (0 if
 * there is none). Labels have no length limit, as in txt2bin. */
size_t fennel_goal_lex_span(FennelGoalLex *lx, const char **start);

/* Consumes `text` if it comes next (after blanks). */
gboolean fennel_goal_lex_accept(FennelGoalLex *lx, const char *text);

/* Reads an unsigned decimal number; FALSE (and an error) when absent or too large. */
gboolean fennel_goal_lex_number(FennelGoalLex *lx, uint64_t max, uint64_t *out, const char *what,
                                GError **error);

/* An error at column `col` of the current line. Always FALSE. */
gboolean fennel_goal_lex_error_at(FennelGoalLex *lx, unsigned col, GError **error,
                                  const char *format, ...) G_GNUC_PRINTF(4, 5);

/* An error at the current position. Always FALSE. */
gboolean fennel_goal_lex_error(FennelGoalLex *lx, GError **error, const char *format, ...)
    G_GNUC_PRINTF(3, 4);

#endif
