/* The MSCCL meaning a YAML program may carry (docs/FORMATS.md, "The round trip through
 * YAML"): a top-level `msccl` section of rows (the algorithm, its GPUs and thread blocks)
 * and, on the tasks a step became, the step's fields. The YAML reader keeps them as text
 * with their places when asked to (fennel__yaml_parse_noted), and skips them otherwise, so
 * `run` pays nothing for them; msccl_yaml_read.c gives them their meaning. */
#ifndef FENNEL_YAML_NOTES_PRIVATE_H
#define FENNEL_YAML_NOTES_PRIVATE_H

#include "program_io.h"

/* The step fields of a task, in the order of fennel__note_keys. */
enum {
    FENNEL_NOTE_TB,
    FENNEL_NOTE_STEP,
    FENNEL_NOTE_OP,
    FENNEL_NOTE_SRC,
    FENNEL_NOTE_DST,
    FENNEL_NOTE_CNT,
    FENNEL_NOTE_DEP,
    FENNEL_NOTE_HASDEP,
    FENNEL_NOTE_N_KEYS,
};
extern const char *const fennel__note_keys[FENNEL_NOTE_N_KEYS];

typedef struct {
    uint32_t line, col;
} FennelNoteMark;

/* The step fields of one task. */
typedef struct {
    uint32_t task;
    uint32_t present;                   /* a bit per key */
    uint32_t value[FENNEL_NOTE_N_KEYS]; /* offsets of NUL-terminated text in notes->text */
    FennelNoteMark mark[FENNEL_NOTE_N_KEYS];
    FennelNoteMark start; /* of the task's mapping */
} FennelTaskNote;

/* One `key: value` of a row of the section. */
typedef struct {
    uint32_t key, value; /* offsets into notes->text */
    FennelNoteMark key_mark, value_mark;
} FennelNoteEntry;

typedef struct {
    FennelNoteMark start;
    uint32_t first, n; /* its entries */
} FennelNoteRow;

typedef struct {
    gboolean section;           /* the file has a top-level `msccl` */
    FennelNoteMark section_key; /* where its key is */
    GArray *rows;               /* FennelNoteRow */
    GArray *entries;            /* FennelNoteEntry */
    GArray *tasks;              /* FennelTaskNote, in task order */
    GString *text;
} FennelYamlNotes;

void fennel__yaml_notes_init(FennelYamlNotes *notes);
void fennel__yaml_notes_clear(FennelYamlNotes *notes);

/* Reads a YAML program as fennel_program_parse_yaml_with(FENNEL_YAML_AUTO) does, and keeps
 * its MSCCL meaning in `notes` (initialised by the caller). */
FennelProgram *fennel__yaml_parse_noted(const char *file, const char *data, gsize length,
                                        const FennelLimits *limits, FennelYamlNotes *notes,
                                        GError **error);

/* What the YAML writer adds for a program with a meaning: top-level keys before `tasks`
 * (each a whole line), and fields at the end of a task's mapping (", key: value"). */
typedef struct {
    void (*section)(void *data, GString *out);
    void (*task)(void *data, uint32_t task, GString *out);
    void *data;
} FennelYamlExtra;

/* A double-quoted YAML string that reads back whatever the bytes. */
void fennel__yaml_append_quoted(GString *out, const char *s);

void fennel__yaml_write_with(const FennelProgram *p, const FennelYamlExtra *extra, GString *out);

#endif
