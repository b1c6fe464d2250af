/* The three program-reader harnesses share one body: parse, check the error's shape or
 * exercise the program. */
#ifndef FENNEL_FUZZ_PROGRAM_H
#define FENNEL_FUZZ_PROGRAM_H

#include "fuzz_common.h"

typedef FennelProgram *(*FuzzReader)(const char *name, const char *data, gsize length,
                                     const FennelLimits *limits, GError **error);

/* Parses data with the reader (as the file `name`); a failure must be one non-empty line
 * that starts with "name:"; a program is exercised with fuzz_exercise_program. */
void fuzz_program_input(FuzzReader reader, const char *name, const uint8_t *data, size_t size);

/* A cheap hash of the input that picks the model and the collective checked. */
unsigned fuzz_selector(const uint8_t *data, size_t size);

/* Checks an error message's shape (one line, not empty, starting with prefix). */
void fuzz_check_message(const GError *error, const char *prefix);

#endif
