/* JSON output helpers shared by every report that writes JSON. */
#ifndef FENNEL_JSON_H
#define FENNEL_JSON_H

#include <glib.h>

/* Appends s as a JSON string literal: quotes and backslashes escaped, control characters
 * as \u00XX, every other byte as it is. */
void fennel_json_string(GString *out, const char *s);

#endif
