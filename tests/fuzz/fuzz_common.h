/* Shared by the libFuzzer harnesses (tests/fuzz/fuzz_*.c): setup, and running what a
 * harness parsed where that is cheap, so that engine crashes on odd programs are found
 * too. Each harness defines LLVMFuzzerTestOneInput; replay.c gives them a main() for
 * builds without libFuzzer, which runs the seed corpus and the regression inputs. */
#ifndef FENNEL_FUZZ_COMMON_H
#define FENNEL_FUZZ_COMMON_H

#include "model.h"
#include "program.h"

#include <stddef.h>
#include <stdint.h>

/* Programs at most this big are simulated, written and read back. */
#define FUZZ_MAX_TASKS 4096
#define FUZZ_MAX_SLOTS 65536 /* ranks x processes */

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Once per process: silences GLib's log output. */
void fuzz_setup(void);

/* The limits every harness reads, generates and checks within: memory the guard compares
 * with, well below libFuzzer's RSS limit of 2 GiB (capacity.h). */
extern const FennelLimits fuzz_limits;

/* One of a few models (postal, lbp with the thesis' figure parameters, logp, loggp with
 * LogGOPSim's defaults and noise), chosen by `which`. Clear it with fennel_model_clear. */
void fuzz_model(FennelModel *m, unsigned which);

/* A small fixed program with every task type: start, proxy, sleep, compute of both
 * kinds, put (blocking and not), get, send and recv (named and any). */
FennelProgram *fuzz_small_program(int64_t bytes);

/* Exercises a program: statistics, the writers, a YAML round trip (which must give the
 * same tasks, edges and makespan), simulation with a trace under the model `which`,
 * the per-task CSV, and the collective checker. Aborts when an invariant breaks. */
void fuzz_exercise_program(const FennelProgram *p, unsigned which);

/* Runs the program under the model; returns the makespan or -1 when the run failed. */
int64_t fuzz_simulate(const FennelProgram *p, const FennelModel *m, uint64_t seed, gboolean trace);

/* Stops the process with a message (an invariant broke): libFuzzer records the input. */
void fuzz_fail(const char *format, ...) G_GNUC_PRINTF(1, 2) G_GNUC_NORETURN;

/* Exercises a graph that read (a graph file's, a SimGrid platform's; takes it): builds its
 * network, checks that every route between its first nodes ends at its destination, link by
 * link from where it is, within as many hops as there are vertices, and runs a small program
 * on it under each contention level. Aborts when an invariant breaks. */
void fuzz_exercise_graph(FennelGraph *g);

#endif
