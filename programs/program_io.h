/* Reading programs from files. */
#ifndef FENNEL_PROGRAM_IO_H
#define FENNEL_PROGRAM_IO_H

#include "program.h"

/* Reads a YAML program (SPEC §4). Every error names FILE:LINE:COL. */
FennelProgram *fennel_program_read_yaml(const char *file, GError **error);

/* Same, from memory (for tests and fuzzing); `name` appears in messages. */
FennelProgram *fennel_program_parse_yaml(const char *name, const char *data, gsize length,
                                         GError **error);

/* Reads a program file of any supported format. */
FennelProgram *fennel_program_read(const char *file, GError **error);

#endif
