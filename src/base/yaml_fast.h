/* A fast event source for the common shape of program files: a block mapping of simple
 * keys whose list values hold one flow mapping per line,
 *
 *     fennel: 1
 *     name: "allreduce-rd"
 *     tasks:
 *       - {id: t1, type: proxy, rank: 0, after: [t0]}
 *
 * which is what `fennel generate` writes and what people write by hand. It produces the
 * same events, scalars and marks as libyaml for the inputs it takes, and declines
 * everything else (quoting with escapes, tabs, non-ASCII text, multi-line collections,
 * anchors, tags, plain scalars with colons, or with spaces except a root key's value, ...)
 * by returning FALSE: the caller
 * then reads the file again with libyaml, which also owns every error message. libyaml
 * allocates for each event and spends about two microseconds on a task line; this
 * scanner copies nothing but the scalar it hands out. */
#ifndef FENNEL_YAML_FAST_H
#define FENNEL_YAML_FAST_H

#include <glib.h>
#include <yaml.h>

typedef struct {
    const char *text;       /* the whole input, for mark indices */
    const char *p, *end;    /* the cursor and the end of the text */
    const char *line_start; /* of the cursor's line */
    size_t line;            /* zero-based, like libyaml's marks */
    int state;
    size_t seq_indent;  /* column of the current block sequence's dashes */
    char *scalar;       /* the text of the current scalar event, NUL-terminated */
    size_t scalar_size; /* bytes allocated for it */
} FennelYamlFast;

void fennel_yaml_fast_init(FennelYamlFast *f, const char *data, gsize length);
void fennel_yaml_fast_clear(FennelYamlFast *f);

/* Fills *event with the next event (its scalar text lives in f->scalar). Returns FALSE
 * where the text leaves the shape this scanner takes. */
gboolean fennel_yaml_fast_next(FennelYamlFast *f, yaml_event_t *event);

#endif
