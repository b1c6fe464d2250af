/* A thin pull reader over libyaml's event parser, shared by the program and model
 * readers: it reads a whole file, hands out one event at a time, and turns libyaml's
 * and our own complaints into "FILE:LINE:COL: ..." errors. Aliases are refused, so a
 * file can never expand into more than it says. */
#ifndef FENNEL_YAML_READER_H
#define FENNEL_YAML_READER_H

#include "yaml_fast.h"

#include <glib.h>
#include <yaml.h>

typedef struct {
    yaml_parser_t parser;
    gboolean parser_ready;
    yaml_event_t event;  /* the current event */
    gboolean has_event;  /* event is libyaml's, to be deleted */
    gboolean fast;       /* events come from the fast scanner (yaml_fast.h) */
    FennelYamlFast scan; /* its state */
    char *file;
    char *contents;
    gsize length;
    gboolean borrowed; /* contents belong to the caller */
} FennelYaml;

/* Reads FILE and positions the reader on the root node's first event. An empty
 * document is an error. */
gboolean fennel_yaml_open(FennelYaml *y, const char *file, GError **error);

/* Same from memory; `name` is used in messages. */
gboolean fennel_yaml_open_data(FennelYaml *y, const char *name, const char *data, gsize length,
                               GError **error);

/* Same over the caller's text, which must outlive the reader. With `fast`, events come
 * from the fast scanner, and fennel_yaml_next fails (with a message saying so) where the
 * text leaves the shape it takes: the caller must then read the text again without it,
 * so that libyaml decides what the text means and reports its errors. */
gboolean fennel_yaml_open_text(FennelYaml *y, const char *name, const char *data, gsize length,
                               gboolean fast, GError **error);

void fennel_yaml_close(FennelYaml *y);

/* Advances to the next event. */
gboolean fennel_yaml_next(FennelYaml *y, GError **error);

/* Skips the node that starts at the current event; leaves the reader on the event
 * after it. */
gboolean fennel_yaml_skip(FennelYaml *y, GError **error);

/* After the root node: checks that the file holds one document and nothing else. */
gboolean fennel_yaml_finish(FennelYaml *y, GError **error);

static inline yaml_event_type_t fennel_yaml_type(const FennelYaml *y)
{
    return y->event.type;
}

/* The current scalar's text (valid until the next call). */
static inline const char *fennel_yaml_scalar(const FennelYaml *y)
{
    return (const char *)y->event.data.scalar.value;
}

/* Its length in bytes. */
static inline size_t fennel_yaml_scalar_length(const FennelYaml *y)
{
    return y->event.data.scalar.length;
}

static inline unsigned fennel_yaml_line(const FennelYaml *y)
{
    return (unsigned)y->event.start_mark.line + 1;
}

static inline unsigned fennel_yaml_col(const FennelYaml *y)
{
    return (unsigned)y->event.start_mark.column + 1;
}

/* An input error at the current event. Always returns FALSE. */
gboolean fennel_yaml_error(FennelYaml *y, GError **error, const char *format, ...)
    G_GNUC_PRINTF(3, 4);

/* "a mapping", "a sequence", "a scalar", ... for messages. */
const char *fennel_yaml_describe(const FennelYaml *y);

#endif
