/* Reading programs from files. */
#ifndef FENNEL_PROGRAM_IO_H
#define FENNEL_PROGRAM_IO_H

#include "output.h"
#include "program.h"

/* Reads a YAML program (README, Program files) from memory within the default limits (for
 * tests and fuzzing); `name` appears in messages. Every error names FILE:LINE:COL. */
FennelProgram *fennel_program_parse_yaml(const char *name, const char *data, gsize length,
                                         GError **error);

/* Which YAML event source reads a program. AUTO tries the fast scanner (src/base/yaml_fast.h)
 * and reads the text again with libyaml where the scanner declines it or any error
 * occurs; the other two use one source alone (for tests and fuzzing: the fast scanner
 * must give the same program as libyaml whenever it takes a text). */
typedef enum {
    FENNEL_YAML_AUTO,
    FENNEL_YAML_LIBYAML_ONLY,
    FENNEL_YAML_FAST_ONLY,
} FennelYamlPath;

FennelProgram *fennel_program_parse_yaml_with(const char *name, const char *data, gsize length,
                                              FennelYamlPath path, const FennelLimits *limits,
                                              GError **error);

struct FennelModel;

/* What reading an algorithm file needs beyond the file. */
typedef struct {
    int64_t size;         /* bytes per rank (NCCL's count times the element size); 0: not given */
    int64_t slice;        /* MSCCL: bytes of a slice of a chunk (docs/FORMATS.md); 0: whole */
    gboolean chunk_bytes; /* without a size, one byte per chunk (for statistics) */
    /* Builds the program of a Chakra collective node (chakra.h); NULL: a trace with
     * collectives is refused. */
    FennelProgram *(*expand)(void *data, int64_t kind, int64_t bytes, uint32_t ranks,
                             GError **error);
    void *expand_data;
    /* Chakra: the GPU that times computes recorded as operations and bytes and memory
     * nodes (model.h, fennel_model_roofline); NULL: the default GPU. */
    const struct FennelModel *model;
} FennelReadOptions;

/* Reads a program file of any supported format (formats.h tells them apart by content,
 * docs/FORMATS.md) within `limits` (NULL: the defaults). An
 * algorithm file (MSCCL, MSCCL++) needs options->size; other formats refuse it, since their sizes
 * are their own. options may be NULL. */
FennelProgram *fennel_program_read_with(const char *file, const FennelReadOptions *options,
                                        const FennelLimits *limits, GError **error);
FennelProgram *fennel_program_read(const char *file, const FennelLimits *limits, GError **error);

/* Writers append the program to out. The YAML writer's output reads back as the same
 * program (same tasks in the same order, same edges). */
void fennel_program_write_yaml(const FennelProgram *p, GString *out);
void fennel_program_write_dot(const FennelProgram *p, GString *out);

/* GOAL writers (README, Program files). LogGOPSim GOAL needs the model for the durations of sized
 * computes. Both fail with a message naming the first task the format cannot express. */
struct FennelModel;
gboolean fennel_program_write_goal(const FennelProgram *p, const struct FennelModel *model,
                                   GString *out, GError **error);
gboolean fennel_program_write_fennel_goal(const FennelProgram *p, GString *out, GError **error);
/* The same into a sink that may write out as it goes (output.h): the program's text is never
 * held whole. */
gboolean fennel_program_stream_goal(const FennelProgram *p, const struct FennelModel *model,
                                    FennelSink *sink, GError **error);
gboolean fennel_program_stream_fennel_goal(const FennelProgram *p, FennelSink *sink,
                                           GError **error);
/* What LogGOPSim GOAL cannot say of p's timing, one sentence each, naming the first task of
 * each kind (docs/FORMATS.md, GOAL): gets, blocking puts, puts that tasks of their own rank
 * follow, puts of different sizes between one pair of ranks, tasks on no slot (or any) of
 * several, and eager sends. NULL when the GOAL form keeps every time; g_strfreev it. The
 * writer puts them in the file as comments and leaves them in its sink's notes, which
 * `generate` prints as warnings. */
char **fennel_program_goal_caveats(const FennelProgram *p);
void fennel_program_stream_yaml(const FennelProgram *p, FennelSink *sink);

/* fennel's binary program file (docs/FORMATS.md, Binary programs), for programs read many
 * times: the program's arrays as they are in memory, read by mapping the file. The writer
 * appends the file to out; it fails only when the file would not fit in memory. */
gboolean fennel_program_write_binary(const FennelProgram *p, GString *out, GError **error);
/* The same into a sink (output.h), without holding the file: it is summed in a first pass
 * over the program's arrays and written in a second. */
gboolean fennel_program_stream_binary(const FennelProgram *p, FennelSink *out, GError **error);

/* Maps the file and checks it (the checksum, every index, the graph rules); the program
 * points into the mapping and keeps it. Errors are one line, "FILE: byte N: what". */
FennelProgram *fennel_program_read_binary(const char *file, const FennelLimits *limits,
                                          GError **error);

/* The same from bytes in memory (a pipe, tests, fuzzing), which the program keeps a reference
 * to (copied first when they are not 8-byte aligned); `name` appears in messages. */
FennelProgram *fennel_program_parse_binary(const char *name, GBytes *bytes,
                                           const FennelLimits *limits, GError **error);

/* Whether the bytes, or the first bytes of a regular file, start with the magic number. */
gboolean fennel_program_is_binary(const char *data, gsize length);
gboolean fennel_program_file_is_binary(const char *file);

#endif
