/* fennel's binary program file (program_binary.c, docs/FORMATS.md): what tests and the fuzz
 * harness need beyond program_io.h. */
#ifndef FENNEL_BINARY_PRIVATE_H
#define FENNEL_BINARY_PRIVATE_H

#include <glib.h>
#include <stdint.h>

/* The header's size and where its fields lie. */
#define FENNEL_BINARY_HEADER    72
#define FENNEL_BINARY_VERSION   1
#define FENNEL_BINARY_AT_SUM    16 /* the checksum of bytes 24 to the end */
#define FENNEL_BINARY_AT_SIZE   24 /* the file's size */
#define FENNEL_BINARY_AT_TABLE  72 /* the section table: 24 bytes a section */
#define FENNEL_BINARY_AT_NSECTS 64

/* The sections' numbers, in the order the writer lays them out (docs/FORMATS.md). They are
 * part of the format: a new one is a new version. */
enum {
    FENNEL_FBIN_TYPE = 1,
    FENNEL_FBIN_FLAGS,
    FENNEL_FBIN_RANK,
    FENNEL_FBIN_PEER,
    FENNEL_FBIN_AMOUNT,
    FENNEL_FBIN_SUCC_START,
    FENNEL_FBIN_SUCC,
    FENNEL_FBIN_REQUEST,
    FENNEL_FBIN_TAG,
    FENNEL_FBIN_PIN,
    FENNEL_FBIN_ANY,
    FENNEL_FBIN_START_SUCC_START,
    FENNEL_FBIN_START_SUCC,
    FENNEL_FBIN_BLOCK_FIRST,
    FENNEL_FBIN_BLOCK_COUNT,
    FENNEL_FBIN_LINE,
    FENNEL_FBIN_COL,
    FENNEL_FBIN_STAGE_FIRST,
    FENNEL_FBIN_STAGE_NUMBER,
    FENNEL_FBIN_NAME_AT,
    FENNEL_FBIN_NAME_TEXT,
    FENNEL_FBIN_PROGRAM_NAME,
    FENNEL_FBIN_SOURCE,
    FENNEL_FBIN_COLLECTIVE,
    FENNEL_FBIN_SCHEDULE,
    FENNEL_FBIN_ORDER,
    FENNEL_FBIN_COUNT,
};

/* The checksum of a byte string (a 64-bit multiply-rotate hash over four lanes). */
uint64_t fennel__binary_checksum(const void *data, gsize length);

/* The same checksum over bytes given in pieces (the writer streams the file). */
typedef struct {
    uint64_t a, b, c, d, length;
    guint8 block[32];
    unsigned held;
} FennelBinaryHash;
void fennel__binary_hash_init(FennelBinaryHash *h);
void fennel__binary_hash_add(FennelBinaryHash *h, const void *data, gsize length);
uint64_t fennel__binary_hash_end(const FennelBinaryHash *h);

/* Stores the checksum of data[24..length) in a file's header, as the writer does: a test
 * that corrupts a section seals the file again to reach the checks behind the checksum.
 * Does nothing to data shorter than the header. */
void fennel__binary_seal(void *data, gsize length);

#endif
