/* Shared by the model file reader (model_file.c, faults.c) and the table of model keys
 * (model_keys.c); not part of the models' API. */
#ifndef FENNEL_MODEL_PRIVATE_H
#define FENNEL_MODEL_PRIVATE_H

#include "model.h"
#include "yaml_reader.h"

/* A key of a section and its value: a scalar (or a list of scalars joined into one), or
 * (in a network section) a table over sizes (`table`: entries size -> value) or the
 * `ranges` list (`ranges`: entries whose `table` holds a range's keys, positioned at the
 * range's mapping). */
typedef struct {
    char *key, *value;
    unsigned key_line, key_col, line, col;
    GArray *table;
    GArray *ranges;
} FennelModelEntry;

/* What a section's values may be besides scalars. */
typedef enum {
    FENNEL_ENTRIES_SCALARS, /* scalars only */
    FENNEL_ENTRIES_SIZED,   /* a mapping (a table over sizes) and `ranges`, a list of ranges */
    FENNEL_ENTRIES_LISTS,   /* a list of scalars, joined into one value */
} FennelEntriesShape;

/* An empty array of entries that frees what they hold. */
GArray *fennel__model_entries_new(void);

/* Reads the mapping at the reader into entries, in the order written (keys unique; a list
 * joined with `join`). Errors name FILE:LINE:COL and the section. */
gboolean fennel__model_read_entries(FennelYaml *y, const char *section, GArray *entries,
                                    FennelEntriesShape shape, const char *join, GError **error);

/* The entry of a key, or NULL. */
const FennelModelEntry *fennel__model_entry_find(GArray *entries, const char *key);

/* Readers of the model file's sections that are more than a mapping of values: each is at
 * the section's value and sets what it reads on the model. `stragglers:` and `faults:`
 * (faults.c) become new descriptions that replace the model's, remembering where they were
 * written for the errors found when a run draws them. */
gboolean fennel__model_read_network(FennelYaml *y, FennelModel *m, GError **error);
gboolean fennel__model_read_intra(FennelYaml *y, FennelModel *m, GError **error);
gboolean fennel__model_read_compute(FennelYaml *y, FennelModel *m, GError **error);
gboolean fennel__model_read_noise(FennelYaml *y, FennelModel *m, GError **error);
gboolean fennel__model_read_topology(FennelYaml *y, FennelModel *m, GError **error);
gboolean fennel__model_read_stragglers(FennelYaml *y, FennelModel *m, GError **error);
gboolean fennel__model_read_faults(FennelYaml *y, FennelModel *m, GError **error);

#endif
