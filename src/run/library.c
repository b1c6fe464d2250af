/* The libraries' default algorithm choices (docs/LIBRARIES.md). Every table names the file
 * and the release it was read from; every row carries the line of that file where the
 * range it encodes selects its algorithm, so a choice can be checked against the source.
 * Nothing here is the libraries' code: only their thresholds and algorithm numbers. */
#include "library.h"
#include "library_mpich.h"
#include "library_nccl.h"

#include "errors.h"
#include "generator.h"

#include <string.h>

#define NO_LIMIT INT64_MAX

/* One range of a nested if/else table: ranks < ranks_below (0: any) and bytes <
 * bytes_below select algorithm `alg`, at line `line` of the source. Rows are in the
 * source's order; the first that holds is the choice. */
typedef struct {
    uint32_t ranks_below;
    int64_t bytes_below;
    uint8_t alg;
    uint16_t line;
} Row;

/* ---- Open MPI 4.1 and 5.0: coll/tuned's fixed decisions ----
 * Read from ompi/mca/coll/tuned/coll_tuned_decision_fixed.c at tag v4.1.6; the file is
 * the same at every tag from v4.1.0 to v4.1.8 and from v5.0.0 to v5.0.10 (git diff shows
 * no change), so one table serves ompi-4 and ompi-5 and the line numbers hold for both.
 * The decisions call *_intra_do_this(..., alg, 0, 0): fan-out 0 and segment size 0. */
#define OMPI4_FILE "coll_tuned_decision_fixed.c"

/* ompi_coll_tuned_allreduce_intra_dec_fixed (line 55), commutative operations (the
 * branch after line 120). Numbers as the file's list: 1 basic_linear, 2 nonoverlapping,
 * 3 recursive_doubling, 4 ring, 5 segmented_ring, 6 rabenseifner. */
static const Row ompi4_allreduce[] = {
    {4, 8, 4, 123},           {4, 4096, 3, 125},      {4, 8192, 4, 127},
    {4, 16384, 3, 129},       {4, 65536, 4, 131},     {4, 262144, 5, 133},
    {4, NO_LIMIT, 6, 135},    {8, 16, 4, 139},        {8, 8192, 3, 141},
    {8, NO_LIMIT, 6, 143},    {16, 8192, 3, 147},     {16, NO_LIMIT, 6, 149},
    {32, 64, 5, 153},         {32, 4096, 3, 155},     {32, NO_LIMIT, 6, 157},
    {64, 128, 5, 161},        {64, NO_LIMIT, 6, 163}, {128, 262144, 3, 167},
    {128, NO_LIMIT, 6, 169},  {256, 131072, 2, 173},  {256, 262144, 3, 175},
    {256, NO_LIMIT, 6, 177},  {512, 4096, 2, 181},    {512, NO_LIMIT, 6, 183},
    {2048, 2048, 2, 187},     {2048, 16384, 3, 189},  {2048, NO_LIMIT, 6, 191},
    {4096, 2048, 2, 195},     {4096, 4096, 5, 197},   {4096, 16384, 3, 199},
    {4096, NO_LIMIT, 6, 201}, {0, 2048, 2, 205},      {0, 16384, 5, 207},
    {0, 32768, 3, 209},       {0, NO_LIMIT, 6, 211},
};
static const char *const ompi_allreduce_names[] = {
    NULL,   "basic_linear",   "nonoverlapping", "recursive_doubling",
    "ring", "segmented_ring", "rabenseifner"};

/* ompi_coll_tuned_bcast_intra_dec_fixed (line 512). Numbers: 1 basic_linear, 2 chain,
 * 3 pipeline, 4 split_binary_tree, 5 binary_tree, 6 binomial, 7 knomial,
 * 8 scatter_allgather, 9 scatter_allgather_ring. */
static const Row ompi4_bcast[] = {
    {4, 32, 3, 541},          {4, 256, 5, 543},         {4, 512, 3, 545},
    {4, 1024, 7, 547},        {4, 32768, 1, 549},       {4, 131072, 5, 551},
    {4, 262144, 2, 553},      {4, 524288, 1, 555},      {4, 1048576, 6, 557},
    {4, NO_LIMIT, 5, 559},    {8, 64, 5, 563},          {8, 128, 6, 565},
    {8, 2048, 5, 567},        {8, 8192, 6, 569},        {8, 1048576, 1, 571},
    {8, NO_LIMIT, 2, 573},    {16, 8, 7, 577},          {16, 64, 5, 579},
    {16, 4096, 7, 581},       {16, 16384, 5, 583},      {16, 32768, 6, 585},
    {16, NO_LIMIT, 1, 587},   {32, 4096, 7, 591},       {32, 1048576, 6, 593},
    {32, NO_LIMIT, 8, 595},   {64, 2048, 6, 599},       {64, NO_LIMIT, 7, 601},
    {128, NO_LIMIT, 7, 604},  {256, 2, 6, 607},         {256, 16384, 5, 609},
    {256, 32768, 1, 611},     {256, 65536, 5, 613},     {256, NO_LIMIT, 7, 615},
    {1024, 16384, 7, 619},    {1024, 32768, 4, 621},    {1024, NO_LIMIT, 7, 623},
    {2048, 524288, 7, 627},   {2048, NO_LIMIT, 8, 629}, {4096, 262144, 7, 633},
    {4096, NO_LIMIT, 8, 635}, {0, 8192, 7, 639},        {0, 16384, 5, 641},
    {0, 262144, 7, 643},      {0, NO_LIMIT, 8, 645},
};
static const char *const ompi_bcast_names[] = {
    NULL,          "basic_linear", "chain",   "pipeline",          "split_binary_tree",
    "binary_tree", "binomial",     "knomial", "scatter_allgather", "scatter_allgather_ring"};

/* ompi_coll_tuned_reduce_intra_dec_fixed (line 662), commutative operations (the branch
 * after line 725). Numbers: 1 linear, 2 chain, 3 pipeline, 4 binary, 5 binomial,
 * 6 in-order_binary, 7 rabenseifner. */
static const Row ompi4_reduce[] = {
    {4, 8, 7, 728},           {4, 16, 4, 730},        {4, 32, 3, 732},
    {4, 262144, 1, 734},      {4, 524288, 3, 736},    {4, 1048576, 2, 738},
    {4, NO_LIMIT, 3, 740},    {8, 4096, 4, 744},      {8, 65536, 2, 746},
    {8, 262144, 5, 748},      {8, 524288, 1, 750},    {8, 1048576, 5, 752},
    {8, NO_LIMIT, 1, 754},    {16, 8192, 4, 758},     {16, NO_LIMIT, 5, 760},
    {32, 4096, 4, 764},       {32, NO_LIMIT, 5, 766}, {256, NO_LIMIT, 5, 769},
    {512, 8192, 5, 772},      {512, 16384, 6, 774},   {512, NO_LIMIT, 5, 776},
    {2048, NO_LIMIT, 5, 779}, {4096, 512, 5, 782},    {4096, 1024, 6, 784},
    {4096, 8192, 5, 786},     {4096, 16384, 6, 788},  {4096, NO_LIMIT, 5, 790},
    {0, 16, 5, 794},          {0, 32, 6, 796},        {0, 1024, 5, 798},
    {0, 2048, 6, 800},        {0, 8192, 5, 802},      {0, 16384, 6, 804},
    {0, NO_LIMIT, 5, 806},
};
static const char *const ompi_reduce_names[] = {
    NULL, "linear", "chain", "pipeline", "binary", "binomial", "in-order_binary", "rabenseifner"};

/* ompi_coll_tuned_allgather_intra_dec_fixed (line 1093). It decides on one rank's block
 * (dsize * scount), not the whole result. Numbers as the file's list: 1 linear, 2 bruck,
 * 3 recursive_doubling, 4 ring, 5 neighbor, 6 two_proc. The first row is its test
 * "communicator_size == 2" (line 1118): fewer than 3 ranks, as a choice needs 2. */
static const Row ompi4_allgather[] = {
    {3, NO_LIMIT, 6, 1119},    {32, NO_LIMIT, 3, 1121},   {64, 1024, 3, 1124},
    {64, 65536, 5, 1126},      {64, NO_LIMIT, 4, 1128},   {128, 512, 3, 1132},
    {128, 65536, 5, 1134},     {128, NO_LIMIT, 4, 1136},  {256, 512, 3, 1140},
    {256, 131072, 5, 1142},    {256, 524288, 4, 1144},    {256, 1048576, 5, 1146},
    {256, NO_LIMIT, 4, 1148},  {512, 32, 3, 1152},        {512, 128, 2, 1154},
    {512, 1024, 3, 1156},      {512, 131072, 5, 1158},    {512, 524288, 4, 1160},
    {512, 1048576, 5, 1162},   {512, NO_LIMIT, 4, 1164},  {1024, 64, 3, 1168},
    {1024, 256, 2, 1170},      {1024, 2048, 3, 1172},     {1024, NO_LIMIT, 5, 1174},
    {2048, 4, 3, 1178},        {2048, 8, 2, 1180},        {2048, 16, 3, 1182},
    {2048, 32, 2, 1184},       {2048, 256, 3, 1186},      {2048, 512, 2, 1188},
    {2048, 4096, 3, 1190},     {2048, NO_LIMIT, 5, 1192}, {4096, 32, 2, 1196},
    {4096, 128, 3, 1198},      {4096, 512, 2, 1200},      {4096, 4096, 3, 1202},
    {4096, NO_LIMIT, 5, 1204}, {0, 2, 3, 1208},           {0, 8, 2, 1210},
    {0, 16, 3, 1212},          {0, 512, 2, 1214},         {0, 4096, 3, 1216},
    {0, NO_LIMIT, 5, 1218},
};
static const char *const ompi_allgather_names[] = {
    NULL, "linear", "bruck", "recursive_doubling", "ring", "neighbor", "two_proc"};

/* ompi_coll_tuned_alltoall_intra_dec_fixed (line 228). It decides on one rank's block for
 * one other rank (dsize * scount), which is fennel's --size for alltoall-pairwise. Numbers
 * as the file's list: 1 linear, 2 pairwise, 3 modified_bruck, 4 linear_sync, 5 two_proc.
 * The first rows are its test "communicator_size == 2" (line 253). */
static const Row ompi4_alltoall[] = {
    {3, 2, 2, 255},           {3, 4, 5, 257},           {3, 16, 2, 259},
    {3, 64, 5, 261},          {3, 256, 2, 263},         {3, 4096, 5, 265},
    {3, 32768, 2, 267},       {3, 262144, 4, 269},      {3, 1048576, 5, 271},
    {3, NO_LIMIT, 2, 273},    {8, 8192, 4, 277},        {8, 16384, 1, 279},
    {8, 65536, 4, 281},       {8, 524288, 1, 283},      {8, 1048576, 2, 285},
    {8, NO_LIMIT, 1, 287},    {16, 262144, 4, 291},     {16, NO_LIMIT, 1, 293},
    {32, 4, 4, 297},          {32, 512, 3, 299},        {32, 8192, 4, 301},
    {32, 32768, 1, 303},      {32, 262144, 4, 305},     {32, 524288, 1, 307},
    {32, NO_LIMIT, 4, 309},   {64, 512, 3, 313},        {64, 524288, 1, 315},
    {64, NO_LIMIT, 4, 317},   {128, 1024, 3, 321},      {128, 2048, 1, 323},
    {128, 4096, 4, 325},      {128, 262144, 1, 327},    {128, NO_LIMIT, 2, 329},
    {256, 1024, 3, 333},      {256, 2048, 4, 335},      {256, 262144, 1, 337},
    {256, NO_LIMIT, 2, 339},  {512, 1024, 3, 343},      {512, 8192, 4, 345},
    {512, 32768, 1, 347},     {512, NO_LIMIT, 2, 349},  {1024, 512, 3, 353},
    {1024, 8192, 4, 355},     {1024, 16384, 1, 357},    {1024, 131072, 4, 359},
    {1024, 262144, 1, 361},   {1024, NO_LIMIT, 2, 363}, {2048, 512, 3, 367},
    {2048, 1024, 4, 369},     {2048, 2048, 1, 371},     {2048, 16384, 4, 373},
    {2048, 262144, 1, 375},   {2048, NO_LIMIT, 4, 377}, {4096, 1024, 3, 381},
    {4096, 4096, 4, 383},     {4096, 8192, 1, 385},     {4096, 131072, 4, 387},
    {4096, NO_LIMIT, 1, 389}, {0, 2048, 3, 393},        {0, 8192, 4, 395},
    {0, 16384, 1, 397},       {0, 32768, 4, 399},       {0, 65536, 1, 401},
    {0, NO_LIMIT, 4, 403},
};
static const char *const ompi_alltoall_names[] = {
    NULL, "linear", "pairwise", "modified_bruck", "linear_sync", "two_proc"};

/* ompi_coll_tuned_reduce_scatter_intra_dec_fixed (line 824), commutative operations (the
 * branch after line 855). It decides on the whole buffer (the sum of the receive counts
 * times dsize), which is fennel's --size for its reduce-scatter generators. Numbers: 1
 * non-overlapping, 2 recursive_halving, 3 ring, 4 butterfly. */
static const Row ompi4_reduce_scatter[] = {
    {4, 65536, 3, 858},       {4, 131072, 4, 860},     {4, NO_LIMIT, 3, 862},
    {8, 8, 1, 866},           {8, 262144, 2, 868},     {8, NO_LIMIT, 3, 870},
    {32, 262144, 2, 874},     {32, NO_LIMIT, 3, 876},  {64, 64, 1, 880},
    {64, 2048, 2, 882},       {64, 524288, 4, 884},    {64, NO_LIMIT, 3, 886},
    {128, 256, 1, 890},       {128, 512, 2, 892},      {128, 2048, 4, 894},
    {128, 4096, 2, 896},      {128, NO_LIMIT, 4, 898}, {256, 256, 1, 902},
    {256, 512, 2, 904},       {256, NO_LIMIT, 4, 906}, {512, 256, 1, 910},
    {512, 1024, 2, 912},      {512, NO_LIMIT, 4, 914}, {1024, 512, 1, 918},
    {1024, 2048, 2, 920},     {1024, 8192, 4, 922},    {1024, 16384, 2, 924},
    {1024, NO_LIMIT, 4, 926}, {2048, 512, 1, 930},     {2048, 4096, 2, 932},
    {2048, 16384, 4, 934},    {2048, 32768, 2, 936},   {2048, NO_LIMIT, 4, 938},
    {4096, 512, 1, 942},      {4096, 4096, 2, 944},    {4096, NO_LIMIT, 4, 946},
    {0, 1024, 1, 950},        {0, 8192, 2, 952},       {0, NO_LIMIT, 4, 954},
};
static const char *const ompi_reduce_scatter_names[] = {NULL, "non-overlapping",
                                                        "recursive_halving", "ring", "butterfly"};

/* ompi_coll_tuned_gather_intra_dec_fixed (line 1379). It decides on one rank's block
 * (dsize * rcount), fennel's --size for gather-binomial. Numbers: 1 basic_linear, 2
 * binomial, 3 linear_sync. */
static const Row ompi4_gather[] = {
    {4, 2, 3, 1415},        {4, 4, 1, 1417},        {4, 32768, 2, 1419},
    {4, 65536, 1, 1421},    {4, 131072, 2, 1423},   {4, NO_LIMIT, 3, 1425},
    {8, 1024, 2, 1429},     {8, 8192, 1, 1431},     {8, 32768, 2, 1433},
    {8, 262144, 1, 1435},   {8, NO_LIMIT, 3, 1437}, {256, NO_LIMIT, 2, 1440},
    {512, 2048, 2, 1443},   {512, 8192, 1, 1445},   {512, NO_LIMIT, 2, 1447},
    {0, NO_LIMIT, 2, 1450},
};
static const char *const ompi_gather_names[] = {NULL, "basic_linear", "binomial", "linear_sync"};

/* ompi_coll_tuned_scatter_intra_dec_fixed (line 1468). It decides on one rank's block
 * (dsize * scount), fennel's --size for scatter-binomial. Numbers: 1 basic_linear, 2
 * binomial, 3 linear_nb. */
static const Row ompi4_scatter[] = {
    {4, 2, 3, 1502},         {4, 131072, 1, 1504},   {4, 262144, 3, 1506}, {4, NO_LIMIT, 1, 1508},
    {8, 2048, 2, 1512},      {8, 4096, 1, 1514},     {8, 8192, 2, 1516},   {8, 32768, 1, 1518},
    {8, 1048576, 3, 1520},   {8, NO_LIMIT, 1, 1522}, {16, 16384, 2, 1526}, {16, 1048576, 3, 1528},
    {16, NO_LIMIT, 1, 1530}, {32, 16384, 2, 1534},   {32, 32768, 1, 1536}, {32, NO_LIMIT, 3, 1538},
    {64, 512, 2, 1542},      {64, 8192, 3, 1544},    {64, 16384, 2, 1546}, {64, NO_LIMIT, 3, 1548},
    {0, 512, 2, 1552},       {0, NO_LIMIT, 3, 1554},
};
static const char *const ompi_scatter_names[] = {NULL, "basic_linear", "binomial", "linear_nb"};

/* The k-nomial radix coll/tuned passes: coll_tuned_bcast_knomial_radix, 4 by default
 * (coll_tuned_bcast_decision.c, v4.1.6 line 34). */
#define OMPI_KNOMIAL_RADIX 4

static const Row *find_row(const Row *rows, size_t n, uint32_t ranks, int64_t bytes)
{
    for (size_t i = 0; i < n; i++)
        if ((rows[i].ranks_below == 0 || ranks < rows[i].ranks_below) &&
            bytes < rows[i].bytes_below)
            return &rows[i];
    return NULL; /* not reached: every table ends with an unlimited row */
}

/* The conditions of a row, in words: "comm size 64..127, message 128 B..262143 B". */
static void row_conditions(const Row *rows, const Row *r, char *buf, size_t len)
{
    uint32_t lo_ranks = 0;
    int64_t lo_bytes = 0;
    for (const Row *q = rows; q < r; q++) {
        if (q->ranks_below != r->ranks_below)
            lo_ranks = q->ranks_below;
        else
            lo_bytes = q->bytes_below;
    }
    char rk[48], by[64];
    if (r->ranks_below == 0)
        g_snprintf(rk, sizeof rk, "comm size >= %u", lo_ranks);
    else if (lo_ranks == 0 && r->ranks_below == 3)
        g_snprintf(rk, sizeof rk, "comm size 2");
    else if (lo_ranks == 0)
        g_snprintf(rk, sizeof rk, "comm size < %u", r->ranks_below);
    else
        g_snprintf(rk, sizeof rk, "comm size %u..%u", lo_ranks, r->ranks_below - 1);
    if (r->bytes_below == NO_LIMIT && lo_bytes == 0)
        g_snprintf(by, sizeof by, "any message");
    else if (r->bytes_below == NO_LIMIT)
        g_snprintf(by, sizeof by, "message >= %" G_GINT64_FORMAT " B", lo_bytes);
    else if (lo_bytes == 0)
        g_snprintf(by, sizeof by, "message < %" G_GINT64_FORMAT " B", r->bytes_below);
    else
        g_snprintf(by, sizeof by, "message %" G_GINT64_FORMAT "..%" G_GINT64_FORMAT " B", lo_bytes,
                   r->bytes_below - 1);
    g_snprintf(buf, len, "%s, %s", rk, by);
}

/* The element count of a buffer: osu_allreduce and IMB reduce MPI_FLOAT (4 bytes);
 * osu_bcast broadcasts MPI_CHAR and IMB MPI_BYTE (1 byte). */
static int64_t element_count(const char *collective, int64_t bytes)
{
    return strcmp(collective, "bcast") == 0 ? bytes : bytes / FENNEL_LIBRARY_ELEMENT;
}

static uint32_t floor_pow2(uint32_t p)
{
    uint32_t q = 1;
    while (q <= p / 2)
        q *= 2;
    return q;
}

/* Open MPI's coll/base segment count for a suggested segment size
 * (COLL_BASE_COMPUTED_SEGCOUNT, coll_base_functions.h): segments only when the size holds
 * at least one element and less than the whole buffer. The segment in bytes, or 0. */
static int64_t ompi_segment(int64_t segsize, int64_t elem, int64_t count)
{
    if (segsize >= elem && segsize < elem * count)
        return segsize / elem * elem;
    return 0;
}

/* "1 MiB", "8 KiB", "370728 B": a power-of-1024 unit only when it divides exactly. */
static char *format_bytes(int64_t b)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB"};
    int u = 0;
    while (u < 3 && b >= 1024 && b % 1024 == 0)
        b /= 1024, u++;
    return g_strdup_printf("%" G_GINT64_FORMAT " %s", b, units[u]);
}

static void append(FennelLibraryChoice *c, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
static void append(FennelLibraryChoice *c, const char *fmt, ...)
{
    size_t used = strlen(c->why);
    va_list ap;
    va_start(ap, fmt);
    g_vsnprintf(c->why + used, sizeof c->why - used, fmt, ap);
    va_end(ap);
}

/* What coll/base runs for an allreduce algorithm (coll_base_allreduce.c, v4.1.6 and
 * v3.1.6 alike), with its fall-backs for small counts. */
static void ompi_allreduce_resolve(FennelLibraryChoice *c, uint32_t ranks, int64_t count)
{
    if (strcmp(c->algorithm, "segmented_ring") == 0) {
        /* ring_segmented: when count < size * segcount, the plain ring. */
        int64_t seg = ompi_segment(c->segment, FENNEL_LIBRARY_ELEMENT, count);
        int64_t segcount = seg ? seg / FENNEL_LIBRARY_ELEMENT : count;
        if (count < (int64_t)ranks * segcount) {
            c->selected = c->selected ? c->selected : c->algorithm;
            c->algorithm = "ring";
            c->segment = 0;
            append(c,
                   "; segmented_ring falls back to ring: count %" G_GINT64_FORMAT
                   " < %u x segment count %" G_GINT64_FORMAT,
                   count, ranks, segcount);
        } else {
            c->segment = seg;
        }
    }
    if (strcmp(c->algorithm, "ring") == 0 && count < ranks) {
        c->selected = c->selected ? c->selected : c->algorithm;
        c->algorithm = "recursive_doubling";
        append(c, "; ring falls back to recursive_doubling: count %" G_GINT64_FORMAT " < %u", count,
               ranks);
    }
    if (strcmp(c->algorithm, "rabenseifner") == 0 && count < floor_pow2(ranks)) {
        c->selected = c->selected ? c->selected : c->algorithm;
        c->algorithm = "basic_linear";
        append(c, "; rabenseifner falls back to basic_linear: count %" G_GINT64_FORMAT " < %u",
               count, floor_pow2(ranks));
    }
    if (strcmp(c->algorithm, "recursive_doubling") == 0)
        c->generator = "allreduce-rd";
    else if (strcmp(c->algorithm, "segmented_ring") == 0)
        c->generator = "allreduce-ring-segmented"; /* Open MPI 3.1's, in 1 MiB segments */
    else if (strcmp(c->algorithm, "ring") == 0)
        c->generator = "allreduce-ring";
    else if (strcmp(c->algorithm, "rabenseifner") == 0)
        c->generator = "allreduce-rabenseifner";
    else if (strcmp(c->algorithm, "basic_linear") == 0)
        c->generator = "allreduce-linear";
}

/* What coll/base runs for a reduce algorithm (coll_base_reduce.c, v4.1.6), with its
 * fall-back: redscat_gather (rabenseifner) runs basic_linear when the count is below the
 * largest power of two not above the ranks. Segment size 0 throughout in 4.1; Open MPI
 * 3.1's binomial and binary trees in segments are reduce-binomial and reduce-bintree with
 * --segment (ompi_coll_base_reduce_generic over the same trees). */
static void ompi_reduce_resolve(FennelLibraryChoice *c, uint32_t ranks, int64_t count)
{
    if (strcmp(c->algorithm, "rabenseifner") == 0 && count < floor_pow2(ranks)) {
        c->selected = c->selected ? c->selected : c->algorithm;
        c->algorithm = "linear";
        append(c, "; rabenseifner falls back to linear: count %" G_GINT64_FORMAT " < %u", count,
               floor_pow2(ranks));
    }
    /* chain and pipeline: one chain of fan-out 1 (build_chain forces the chain's fan-out 0
     * to 1), segmented or not. */
    if (strcmp(c->algorithm, "chain") == 0 || strcmp(c->algorithm, "pipeline") == 0) {
        c->generator = "reduce-pipeline";
        return;
    }
    if (strcmp(c->algorithm, "binomial") == 0)
        c->generator = "reduce-binomial"; /* the in-order binomial tree, segmented or not */
    else if (strcmp(c->algorithm, "binary") == 0)
        c->generator = "reduce-bintree"; /* Open MPI's binary tree, segmented or not */
    if (c->generator || c->segment != 0)
        return; /* no segmented in-order binary, linear or rabenseifner in fennel */
    if (strcmp(c->algorithm, "linear") == 0)
        c->generator = "reduce-linear";
    else if (strcmp(c->algorithm, "in-order_binary") == 0)
        c->generator = "reduce-inorder-binary"; /* its in-order binary tree, one segment */
    else if (strcmp(c->algorithm, "rabenseifner") == 0)
        c->generator = "reduce-rabenseifner";
}

/* What coll/base runs for an allgather algorithm (coll_base_allgather.c, v4.1.6 and v5.0.x
 * alike): recursive_doubling runs bruck unless the ranks are a power of two (line 275),
 * neighbor runs ring for an odd number of ranks (line 499). two_proc is one exchange of
 * the block with the other rank: at 2 ranks the ring's one step. Unsegmented. */
static void ompi_allgather_resolve(FennelLibraryChoice *c, uint32_t ranks)
{
    if (strcmp(c->algorithm, "recursive_doubling") == 0 && (ranks & (ranks - 1)) != 0) {
        c->selected = c->selected ? c->selected : c->algorithm;
        c->algorithm = "bruck";
        append(c, "; recursive_doubling falls back to bruck: %u ranks is not a power of two",
               ranks);
    }
    if (strcmp(c->algorithm, "neighbor") == 0 && ranks % 2 != 0) {
        c->selected = c->selected ? c->selected : c->algorithm;
        c->algorithm = "ring";
        append(c, "; neighbor falls back to ring: %u ranks is odd", ranks);
    }
    if (strcmp(c->algorithm, "recursive_doubling") == 0)
        c->generator = "allgather-rd";
    else if (strcmp(c->algorithm, "bruck") == 0)
        c->generator = "allgather-bruck";
    else if (strcmp(c->algorithm, "ring") == 0)
        c->generator = "allgather-ring";
    else if (strcmp(c->algorithm, "neighbor") == 0)
        c->generator = "allgather-neighbor-exchange";
    else if (strcmp(c->algorithm, "two_proc") == 0) {
        c->generator = "allgather-ring";
        append(c, "; two_proc exchanges the block with the other rank, the ring's one step at "
                  "2 ranks");
    }
}

/* What coll/base runs for the alltoall, reduce_scatter, gather and scatter algorithms
 * (coll_base_alltoall.c, coll_base_reduce_scatter.c, coll_base_gather.c,
 * coll_base_scatter.c, v4.1.6), none of which falls back for a commutative operation:
 * - alltoall pairwise: in step k rank r sends to r + k and receives from r - k, p - 1
 *   steps, as alltoall-pairwise; two_proc, at 2 ranks, is one exchange with the other
 *   rank, pairwise's one step;
 * - reduce_scatter recursive_halving folds the ranks above the largest power of two in,
 *   then halves, as reduce-scatter-halving; ring sends to rank + 1 for p - 1 steps, as
 *   reduce-scatter-ring;
 * - gather and scatter binomial run the in-order binomial tree
 *   (ompi_coll_base_topo_build_in_order_bmtree: the parent clears the lowest set bit),
 *   the tree of gather-binomial and scatter-binomial, unsegmented;
 * - alltoall linear posts every receive and then every send, to rank - 1, rank - 2, ...,
 *   as alltoall-linear; linear_sync posts the same with at most max_requests outstanding,
 *   0 (all) by default; modified_bruck is Bruck's algorithm, as alltoall-bruck;
 * - gather basic_linear and linear_sync, scatter basic_linear and linear_nb: the linear
 *   exchanges with the root of gather-linear, gather-linear-sync (whose --segment is
 *   linear_sync's first segment: 0 in 4.1's decision, 1 KiB or 32 KiB in 3.1's) and
 *   scatter-linear.
 * non-overlapping (reduce_scatter) is ompi_reduce_scatter_nonoverlapping's; butterfly
 * has no generator yet: the choice is named and refused. */
static void ompi_other_resolve(FennelLibraryChoice *c, const char *collective)
{
    static const char *const map[][3] = {
        {"alltoall", "pairwise", "alltoall-pairwise"},
        {"alltoall", "two_proc", "alltoall-pairwise"},
        {"reduce_scatter", "recursive_halving", "reduce-scatter-halving"},
        {"reduce_scatter", "ring", "reduce-scatter-ring"},
        {"gather", "binomial", "gather-binomial"},
        {"scatter", "binomial", "scatter-binomial"},
        {"alltoall", "linear", "alltoall-linear"},
        {"alltoall", "linear_sync", "alltoall-linear"},
        {"alltoall", "modified_bruck", "alltoall-bruck"},
        {"alltoall", "bruck", "alltoall-bruck"},
        {"alltoall", "basic_linear", "alltoall-linear"},
        {"gather", "basic_linear", "gather-linear"},
        {"gather", "linear_sync", "gather-linear-sync"},
        {"scatter", "basic_linear", "scatter-linear"},
        {"scatter", "linear_nb", "scatter-linear"},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(map); i++)
        if (strcmp(collective, map[i][0]) == 0 && strcmp(c->algorithm, map[i][1]) == 0)
            c->generator = map[i][2];
    if (strcmp(c->algorithm, "two_proc") == 0 && c->generator)
        append(c, "; two_proc exchanges the blocks with the other rank, pairwise's one step at "
                  "2 ranks");
    if (strcmp(collective, "alltoall") == 0 && strcmp(c->algorithm, "linear_sync") == 0)
        append(c, "; linear_sync keeps coll_tuned_alltoall_algorithm_max_requests requests "
                  "outstanding, whose default 0 is all of them (coll_base_alltoall.c v4.1.6 "
                  "line 417): linear's sends");
    if (strcmp(collective, "scatter") == 0 && strcmp(c->algorithm, "linear_nb") == 0)
        append(c, "; linear_nb blocks every coll_tuned_scatter_algorithm_max_requests sends, "
                  "whose default 0 is never (coll_base_scatter.c v4.1.6 line 318): "
                  "basic_linear's sends, non-blocking");
}

/* What coll/base runs for a bcast algorithm (coll_base_bcast.c), with its fall-backs. */
static void ompi_bcast_resolve(FennelLibraryChoice *c, uint32_t ranks, int64_t count)
{
    const char *a = c->algorithm;
    if (strcmp(a, "split_binary_tree") == 0) {
        /* Halves of ceil(count/2) and floor(count/2); an empty half or a segment larger
         * than a half runs chain with fan-out 1 and the same segment size. */
        int64_t lo = count / 2, hi = count - lo;
        if (lo == 0 || c->segment > lo || c->segment > hi) {
            c->selected = c->selected ? c->selected : a;
            c->algorithm = a = "chain";
            c->fanout = 1;
            append(c, "; split_binary_tree falls back to chain: a half is smaller than the "
                      "segment");
        }
    }
    if (strcmp(a, "chain") == 0 && c->fanout < 1)
        c->fanout = 1; /* build_chain forces a fan-out of 0 to 1 */
    if (strcmp(a, "scatter_allgather") == 0 || strcmp(a, "scatter_allgather_ring") == 0) {
        if (count < ranks) {
            c->selected = c->selected ? c->selected : a;
            c->algorithm = a = "basic_linear";
            append(c, "; %s falls back to basic_linear: count %" G_GINT64_FORMAT " < %u",
                   c->selected, count, ranks);
        }
    }
    if (strcmp(a, "knomial") == 0)
        c->fanout = OMPI_KNOMIAL_RADIX;
    if (strcmp(a, "pipeline") == 0 || strcmp(a, "chain") == 0 ||
        strcmp(a, "split_binary_tree") == 0 || strcmp(a, "binary_tree") == 0 ||
        strcmp(a, "binomial") == 0 || strcmp(a, "knomial") == 0)
        c->segment = ompi_segment(c->segment, 1, count);
    /* A pipeline, or chain of fan-out 1, is one chain through every rank: bcast-ring
     * unsegmented, bcast-pipeline with its segments (the pipeline is the generic segmented
     * bcast over a chain of fan-out 1, as the chain's is). */
    if ((strcmp(a, "pipeline") == 0 || (strcmp(a, "chain") == 0 && c->fanout == 1)) &&
        c->segment == 0)
        c->generator = "bcast-ring";
    else if (strcmp(a, "pipeline") == 0 || (strcmp(a, "chain") == 0 && c->fanout == 1))
        c->generator = "bcast-pipeline";
    else if (strcmp(a, "binary_tree") == 0 && c->segment == 0)
        c->generator = "bcast-binary";
    else if (strcmp(a, "split_binary_tree") == 0)
        c->generator = "bcast-split-bintree"; /* its halves in segments, or whole */
    else if (strcmp(a, "binomial") == 0 && c->segment == 0)
        c->generator = "bcast-bmtree"; /* Open MPI's numbering of the binomial tree */
    else if (strcmp(a, "knomial") == 0 && c->segment == 0) {
        c->generator = "bcast-knomial";
        c->radix = OMPI_KNOMIAL_RADIX;
    } else if (strcmp(a, "scatter_allgather_ring") == 0)
        c->generator = "bcast-scatter-allgather";
    else if (strcmp(a, "scatter_allgather") == 0 && (ranks & (ranks - 1)) == 0)
        c->generator = "bcast-scatter-rd-allgather"; /* binomial scatter + recursive doubling */
    else if (strcmp(a, "scatter_allgather") == 0)
        append(c,
               "; at %u ranks, not a power of two, its recursive doubling allgather ends "
               "with a halving step fennel's bcast-scatter-rd-allgather does not have",
               ranks);
    else if (strcmp(a, "basic_linear") == 0)
        c->generator = "bcast-linear";
}

static void choose_table(const char *tag, const Row *rows, size_t n, const char *const *names,
                         uint32_t ranks, int64_t bytes, FennelLibraryChoice *c)
{
    const Row *r = find_row(rows, n, ranks, bytes);
    char cond[128];
    row_conditions(rows, r, cond, sizeof cond);
    c->algorithm = names[r->alg];
    g_snprintf(c->why, sizeof c->why, "%s %s line %u: %s: algorithm %u", OMPI4_FILE, tag, r->line,
               cond, r->alg);
}

/* ---- Open MPI 3.1: read from ompi/mca/coll/tuned/coll_tuned_decision_fixed.c at tag
 * v3.1.6 (unchanged from v3.1.0). Formulas rather than tables. ---- */
#define OMPI3_FILE "coll_tuned_decision_fixed.c v3.1.6"

static void ompi3_allreduce(uint32_t ranks, int64_t bytes, int64_t count, FennelLibraryChoice *c)
{
    const int64_t intermediate = 10000, segment = 1 << 20; /* lines 52, 72 */
    if (bytes < intermediate) {
        c->algorithm = "recursive_doubling";
        g_snprintf(c->why, sizeof c->why, "%s line 65: message < %" G_GINT64_FORMAT " B",
                   OMPI3_FILE, intermediate);
    } else if (count > ranks) {
        /* Commutative (MPI_SUM) and more elements than ranks (line 71). */
        if ((int64_t)ranks * segment >= bytes) {
            c->algorithm = "ring";
            g_snprintf(c->why, sizeof c->why,
                       "%s line 73: message >= %" G_GINT64_FORMAT
                       " B, count > comm size, comm size x 1 MiB >= message",
                       OMPI3_FILE, intermediate);
        } else {
            c->algorithm = "segmented_ring";
            c->segment = segment;
            g_snprintf(c->why, sizeof c->why,
                       "%s line 77: message >= %" G_GINT64_FORMAT
                       " B, count > comm size, comm size x 1 MiB < message",
                       OMPI3_FILE, intermediate);
        }
    } else {
        c->algorithm = "nonoverlapping";
        g_snprintf(c->why, sizeof c->why,
                   "%s line 84: message >= %" G_GINT64_FORMAT " B, count <= comm size", OMPI3_FILE,
                   intermediate);
    }
}

/* Lines 343-417: commutative operations (the branch after line 378); the fitted lines
 * p = a m + b of lines 351-358 (a in 1/B). Segment sizes as the file's comments name them;
 * coll/base cuts the buffer only when the segment holds less than the whole of it. */
static void ompi3_reduce(uint32_t ranks, int64_t bytes, int64_t count, FennelLibraryChoice *c)
{
    const double a1 = 0.6016 / 1024.0, b1 = 1.3496, a2 = 0.0410 / 1024.0, b2 = 9.7128,
                 a3 = 0.0422 / 1024.0, b3 = 1.1614, a4 = 0.0033 / 1024.0, b4 = 1.6761;
    double m = (double)bytes, p = ranks;
    int line;
    const char *cond;
    if (ranks < 8 && bytes < 512) {
        c->algorithm = "linear", line = 386, cond = "comm size < 8, message < 512 B";
    } else if ((ranks < 8 && bytes < 20480) || bytes < 2048 || count <= 1) {
        c->algorithm = "binomial", line = 391;
        cond = "comm size < 8 and message < 20480 B, or message < 2048 B, or count <= 1";
    } else if (p > a1 * m + b1) {
        c->algorithm = "binomial", c->segment = 1024, line = 396;
        cond = "message >= 2048 B, comm size > 0.6016 / 1024 x message + 1.3496";
    } else if (p > a2 * m + b2) {
        c->algorithm = "pipeline", c->segment = 1024, line = 401;
        cond = "message >= 2048 B, comm size > 0.0410 / 1024 x message + 9.7128";
    } else if (p > a3 * m + b3) {
        c->algorithm = "binary", c->segment = 32 << 10, line = 406;
        cond = "message >= 2048 B, comm size > 0.0422 / 1024 x message + 1.1614";
    } else if (p > a4 * m + b4) {
        c->algorithm = "pipeline", c->segment = 32 << 10, line = 416;
        cond = "message >= 2048 B, comm size > 0.0033 / 1024 x message + 1.6761 (segment of "
               "line 411)";
    } else {
        c->algorithm = "pipeline", c->segment = 64 << 10, line = 416;
        cond = "message >= 2048 B, comm size at or below every fitted line (segment of line "
               "414)";
    }
    c->segment = ompi_segment(c->segment, FENNEL_LIBRARY_ELEMENT, count);
    g_snprintf(c->why, sizeof c->why, "%s line %d: %s", OMPI3_FILE, line, cond);
}

/* Lines 512-570: 2 ranks two_procs; below 50000 B in all (the block x comm size) recursive
 * doubling on a power of two and bruck otherwise; from it ring on an odd comm size and
 * neighbor exchange on an even one. */
static void ompi3_allgather(uint32_t ranks, int64_t bytes, FennelLibraryChoice *c)
{
    const int64_t total = bytes * (int64_t)ranks, large = 50000;
    gboolean pof2 = (ranks & (ranks - 1)) == 0;
    if (ranks == 2) {
        c->algorithm = "two_proc";
        g_snprintf(c->why, sizeof c->why, "%s line 526: comm size 2", OMPI3_FILE);
    } else if (total < large) {
        c->algorithm = pof2 ? "recursive_doubling" : "bruck";
        g_snprintf(c->why, sizeof c->why,
                   "%s line %d: block x comm size %" G_GINT64_FORMAT " < %" G_GINT64_FORMAT
                   " B, comm size %s a power of two",
                   OMPI3_FILE, pof2 ? 551 : 555, total, large, pof2 ? "is" : "not");
    } else {
        c->algorithm = ranks % 2 ? "ring" : "neighbor";
        g_snprintf(c->why, sizeof c->why,
                   "%s line %d: block x comm size %" G_GINT64_FORMAT " >= %" G_GINT64_FORMAT
                   " B, comm size %s",
                   OMPI3_FILE, ranks % 2 ? 561 : 565, total, large, ranks % 2 ? "odd" : "even");
    }
}

/* Lines 455-500, commutative operations: recursive halving up to 12 KiB in all, up to 256
 * KiB on a power of two (pow2 = opal_next_poweroftwo_inclusive(comm size) equal to it), or
 * while comm size >= 0.0012 x message + 8; ring otherwise. The message is the whole buffer
 * (the sum of the receive counts times the type's size), fennel's --size for its
 * reduce-scatter generators. Unchanged at v4.0.0 to v4.0.7. */
static void ompi3_reduce_scatter(uint32_t ranks, int64_t bytes, FennelLibraryChoice *c)
{
    const int64_t small = 12 * 1024, large = 256 * 1024;
    const double a = 0.0012, b = 8.0;
    gboolean pof2 = (ranks & (ranks - 1)) == 0;
    if (bytes <= small || (bytes <= large && pof2) || (double)ranks >= a * (double)bytes + b) {
        c->algorithm = "recursive_halving";
        g_snprintf(c->why, sizeof c->why,
                   "%s line 490: message <= 12288 B, or <= 262144 B on a power of two, or comm "
                   "size >= 0.0012 x message + 8",
                   OMPI3_FILE);
    } else {
        c->algorithm = "ring";
        g_snprintf(c->why, sizeof c->why,
                   "%s line 498: message > 12288 B, not <= 262144 B on a power of two, comm "
                   "size < 0.0012 x message + 8",
                   OMPI3_FILE);
    }
}

/* Lines 665-723: on one rank's block; linear_sync with 32 KiB first segments above 92160 B
 * and 1 KiB ones above 6000 B (gather-linear-sync --segment); binomial above 60 ranks, or
 * above 10 with a block below 1024 B; basic_linear otherwise. Unchanged at v4.0.0 to
 * v4.0.7. */
static void ompi3_gather(uint32_t ranks, int64_t bytes, FennelLibraryChoice *c)
{
    int line;
    const char *cond;
    if (bytes > 92160) {
        c->algorithm = "linear_sync", c->segment = 32768, line = 701;
        cond = "block > 92160 B: first segments of 32768 B";
    } else if (bytes > 6000) {
        c->algorithm = "linear_sync", c->segment = 1024, line = 707;
        cond = "block 6001..92160 B: first segments of 1024 B";
    } else if (ranks > 60 || (ranks > 10 && bytes < 1024)) {
        c->algorithm = "binomial", line = 713;
        cond = "block <= 6000 B, comm size > 60, or > 10 with a block < 1024 B";
    } else {
        c->algorithm = "basic_linear", line = 721;
        cond = "block <= 6000 B, comm size <= 60, and <= 10 or a block >= 1024 B";
    }
    g_snprintf(c->why, sizeof c->why, "%s line %d: %s", OMPI3_FILE, line, cond);
}

/* Lines 735-769: on one rank's block; binomial above 10 ranks with a block below 300 B,
 * basic_linear otherwise. Unchanged at v4.0.0 to v4.0.7. */
static void ompi3_scatter(uint32_t ranks, int64_t bytes, FennelLibraryChoice *c)
{
    gboolean binomial = ranks > 10 && bytes < 300;
    c->algorithm = binomial ? "binomial" : "basic_linear";
    g_snprintf(c->why, sizeof c->why, "%s line %d: %s", OMPI3_FILE, binomial ? 761 : 767,
               binomial ? "comm size > 10 and block < 300 B" : "comm size <= 10 or block >= 300 B");
}

static void ompi3_bcast(uint32_t ranks, int64_t bytes, int64_t count, FennelLibraryChoice *c)
{
    /* Lines 230-237: the thresholds and the fitted lines p = a m + b. */
    const int64_t small = 2048, intermediate = 370728;
    const double a_p16 = 3.2118e-6, b_p16 = 8.7936, a_p64 = 2.3679e-6, b_p64 = 1.1787,
                 a_p128 = 1.6134e-6, b_p128 = 2.1102;
    double m = (double)bytes, p = ranks;
    int line;
    const char *cond;
    if (bytes < small || count <= 1) {
        c->algorithm = "binomial", line = 255, cond = "message < 2048 B or count <= 1";
    } else if (bytes < intermediate) {
        c->algorithm = "split_binary_tree", c->segment = 1024, line = 262;
        cond = "message 2048..370727 B";
    } else if (p < a_p128 * m + b_p128) {
        c->algorithm = "pipeline", c->segment = 128 << 10, line = 271;
        cond = "message >= 370728 B, comm size < 1.6134e-6 x message + 2.1102";
    } else if (ranks < 13) {
        c->algorithm = "split_binary_tree", c->segment = 8 << 10, line = 278;
        cond = "message >= 370728 B, comm size >= 1.6134e-6 x message + 2.1102, comm size "
               "< 13";
    } else if (p < a_p64 * m + b_p64) {
        c->algorithm = "pipeline", c->segment = 64 << 10, line = 285;
        cond = "message >= 370728 B, comm size >= 13, comm size < 2.3679e-6 x message + "
               "1.1787";
    } else if (p < a_p16 * m + b_p16) {
        c->algorithm = "pipeline", c->segment = 16 << 10, line = 292;
        cond = "message >= 370728 B, comm size >= 13, comm size < 3.2118e-6 x message + "
               "8.7936";
    } else {
        c->algorithm = "pipeline", c->segment = 8 << 10, line = 302;
        cond = "message >= 370728 B, comm size >= 13 and above every fitted line";
    }
    g_snprintf(c->why, sizeof c->why, "%s line %d: %s", OMPI3_FILE, line, cond);
}

/* ---- Open MPI 1.6: ompi/mca/coll/tuned/coll_tuned_decision_fixed.c at tag v1.6.5. Its
 * allreduce, bcast, reduce, allgather, gather and scatter decisions are 3.1's above, the
 * same constants and tests (and the algorithms' fall-backs in coll_tuned_allreduce.c,
 * coll_tuned_allgather.c and coll_tuned_bcast.c are coll/base's of 3.1); two differ. ---- */
#define OMPI16_FILE "coll_tuned_decision_fixed.c v1.6.5"

/* The alltoall decision of Open MPI 1.6 and 3.1 (and 4.0 at its defaults): two_procs at 2
 * ranks; bruck for a block below 200 B above 12 ranks; basic_linear for a block below 3000
 * B; pairwise otherwise. The block is one rank's for one other rank (dsize * scount).
 * v1.6.5 writes 200 and 3000 in the tests (lines 107, 120, 125, 131). v3.1.6 reads them
 * from the MCA parameters coll_tuned_alltoall_small_msg and
 * coll_tuned_alltoall_intermediate_msg (lines 112, 125, 131, 137), whose defaults are 200
 * and 3000 (coll_tuned_component.c v3.1.6 lines 57-58, registered at lines 145-161).
 * v4.0.2 to v4.0.7 add a linear_sync branch between basic_linear and pairwise: a block
 * below coll_tuned_alltoall_large_msg on at most coll_tuned_alltoall_min_procs ranks
 * (decision lines 139-140), whose defaults 3000 and 0 (coll_tuned_component.c v4.0.7 lines
 * 63-64) never hold after the block >= 3000 B that reaches it: at the defaults 4.0 decides
 * as 3.1. basic_linear (coll_tuned_alltoall.c v1.6.5, coll_base_alltoall.c v3.1.6) posts
 * every receive, then the sends to rank - 1, rank - 2, ...: alltoall-linear. */
static void ompi_formula_alltoall(gboolean v16, uint32_t ranks, int64_t bytes,
                                  FennelLibraryChoice *c)
{
    int line;
    const char *cond;
    if (ranks == 2) {
        c->algorithm = "two_proc", line = v16 ? 107 : 112, cond = "comm size 2";
    } else if (bytes < 200 && ranks > 12) {
        c->algorithm = "bruck", line = v16 ? 120 : 125;
        cond = v16 ? "block < 200 B, comm size > 12"
                   : "block < coll_tuned_alltoall_small_msg (default 200 B), comm size > 12";
    } else if (bytes < 3000) {
        c->algorithm = "basic_linear", line = v16 ? 125 : 131;
        cond = v16 ? "block < 3000 B, not (block < 200 B and comm size > 12)"
                   : "block < coll_tuned_alltoall_intermediate_msg (default 3000 B), not "
                     "(block < 200 B and comm size > 12)";
    } else {
        c->algorithm = "pairwise", line = v16 ? 131 : 137;
        cond = v16 ? "block >= 3000 B"
                   : "block >= coll_tuned_alltoall_intermediate_msg (default 3000 B)";
    }
    g_snprintf(c->why, sizeof c->why, "%s line %d: %s", v16 ? OMPI16_FILE : OMPI3_FILE, line, cond);
}

/* Lines 468-486: any receive count of 0 (or a non-commutative operation) runs
 * nonoverlapping, a reduce to rank 0 and a scatterv (3.1 has no such test); otherwise 3.1's
 * decision. A benchmark splits count elements over the ranks as evenly as they go (IMB's,
 * OSU's), so some rank gets none exactly when count < comm size; the reduce-and-scatterv
 * is reduce-scatter-nonoverlapping (ompi_reduce_scatter_nonoverlapping). */
static void ompi16_reduce_scatter(uint32_t ranks, int64_t bytes, FennelLibraryChoice *c)
{
    int64_t count = bytes / FENNEL_LIBRARY_ELEMENT;
    if (count < (int64_t)ranks) {
        c->algorithm = "nonoverlapping";
        g_snprintf(c->why, sizeof c->why,
                   "%s line 483: a receive count of 0 (count %" G_GINT64_FORMAT
                   " < comm size %u, the elements split as evenly as they go)",
                   OMPI16_FILE, count, ranks);
        return;
    }
    ompi3_reduce_scatter(ranks, bytes, c);
}

/* ---- MPICH 3.3: the MPIR_*_intra_auto functions of src/mpi/coll/ at tag v3.3.2, with the
 * CVAR defaults declared at the top of each file. Formulas rather than tables. Each
 * function first takes the SMP algorithm when the communicator is node-aware (ranks share
 * nodes and span several) and the buffer is within MPIR_CVAR_MAX_SMP_*_MSG_SIZE, whose
 * default 0 makes that test compare 0 with 0: always. The choices below are those of a
 * communicator that is not node-aware (one rank per node); mpich3_node_aware below has the
 * others. ---- */

/* allreduce.c: nbytes is "MPIR_CVAR_MAX_SMP_ALLREDUCE_MSG_SIZE ? type_size * count : 0"
 * (line 159), so with the default 0 it is 0 and the test of line 186, nbytes <=
 * MPIR_CVAR_ALLREDUCE_SHORT_MSG_SIZE (2048), holds at every size: recursive doubling. */
static void mpich3_allreduce(FennelLibraryChoice *c)
{
    c->algorithm = "recursive_doubling";
    c->generator = "allreduce-rd";
    g_snprintf(c->why, sizeof c->why,
               "allreduce.c v3.3.2 line 186: nbytes is 0 when MPIR_CVAR_MAX_SMP_ALLREDUCE_MSG_SIZE "
               "is 0 (line 159, the default), so nbytes <= MPIR_CVAR_ALLREDUCE_SHORT_MSG_SIZE "
               "2048 at any message");
}

/* bcast.c lines 199-214: MPIR_CVAR_BCAST_SHORT_MSG_SIZE 12288, MPIR_CVAR_BCAST_MIN_PROCS 8,
 * MPIR_CVAR_BCAST_LONG_MSG_SIZE 524288. */
static void mpich3_bcast(uint32_t ranks, int64_t bytes, FennelLibraryChoice *c)
{
    const int64_t small = 12288, large = 524288;
    const uint32_t min_procs = 8;
    gboolean pof2 = (ranks & (ranks - 1)) == 0;
    if (bytes < small || ranks < min_procs) {
        c->algorithm = "binomial";
        c->generator = "bcast-binomial";
        g_snprintf(c->why, sizeof c->why,
                   "bcast.c v3.3.2 line 203: message < %" G_GINT64_FORMAT " B or comm size < %u",
                   small, min_procs);
    } else if (bytes < large && pof2) {
        c->algorithm = "scatter_recursive_doubling_allgather";
        c->generator = "bcast-scatter-rd-allgather";
        g_snprintf(c->why, sizeof c->why,
                   "bcast.c v3.3.2 line 207: message %" G_GINT64_FORMAT "..%" G_GINT64_FORMAT
                   " B, comm size >= %u and a power of two",
                   small, large - 1, min_procs);
    } else {
        c->algorithm = "scatter_ring_allgather";
        c->generator = "bcast-scatter-allgather";
        g_snprintf(c->why, sizeof c->why,
                   "bcast.c v3.3.2 line 213: message >= %" G_GINT64_FORMAT
                   " B, comm size >= %u, and message >= %" G_GINT64_FORMAT
                   " B or comm size not a power of two",
                   small, min_procs, large);
    }
}

/* reduce.c line 214: count x type size > MPIR_CVAR_REDUCE_SHORT_MSG_SIZE (2048), a builtin
 * operation and count >= the largest power of two not above the ranks: reduce_scatter_gather;
 * otherwise binomial. */
static void mpich3_reduce(uint32_t ranks, int64_t bytes, int64_t count, FennelLibraryChoice *c)
{
    const int64_t small = 2048;
    if (bytes > small && count >= floor_pow2(ranks)) {
        c->algorithm = "reduce_scatter_gather";
        c->generator = "reduce-rabenseifner";
        g_snprintf(c->why, sizeof c->why,
                   "reduce.c v3.3.2 line 214: message > %" G_GINT64_FORMAT
                   " B and count >= %u (the power of two)",
                   small, floor_pow2(ranks));
    } else {
        c->algorithm = "binomial";
        c->generator = "reduce-binomial";
        g_snprintf(c->why, sizeof c->why,
                   "reduce.c v3.3.2 line 222: message <= %" G_GINT64_FORMAT
                   " B or count < %u (the power of two)",
                   small, floor_pow2(ranks));
    }
}

/* MPICH 3.3 on a node-aware communicator (some node holds two of its ranks or more: the
 * "parent" of src/mpi/comm/commutil.c v3.3.2 line 480, one node included): the SMP
 * algorithms of allreduce_intra_smp.c, bcast_intra_smp.c and reduce_intra_smp.c of src/mpi/coll.
 * Inside a node MPIR's own choice runs on the node's communicator, which fennel's SMP generators
 * time as binomial trees; among the leaders MPIR's choice for N ranks. */
static void mpich3_node_aware(const char *collective, uint32_t ranks, uint32_t ppn, int64_t bytes,
                              int64_t count, FennelLibraryChoice *c)
{
    uint32_t nodes = (ranks + ppn - 1) / ppn;
    FennelLibraryChoice leaders = {0};
    if (strcmp(collective, "allreduce") == 0) {
        /* allreduce.c line 165: the SMP allreduce; among the leaders MPIR_Allreduce, whose
         * nbytes is 0 as for any communicator: recursive doubling. */
        c->algorithm = "smp";
        c->generator = "allreduce-smp";
        g_snprintf(c->why, sizeof c->why,
                   "allreduce.c v3.3.2 line 165: ranks share nodes, commutative: "
                   "MPIR_Allreduce_intra_smp, reduce in each node, recursive doubling among "
                   "the %u leaders (line 186), bcast in each node; fennel's allreduce-smp, "
                   "binomial inside the nodes",
                   nodes);
    } else if (strcmp(collective, "bcast") == 0) {
        gboolean pof2 = (ranks & (ranks - 1)) == 0;
        if (bytes < 12288 || ranks < 8) {
            /* bcast_intra_smp.c line 35: the root to its leader, the leaders, the nodes;
             * among the leaders bytes < 12288 or fewer than 8 of them: binomial. */
            c->algorithm = "smp";
            c->generator = "bcast-smp";
            g_snprintf(c->why, sizeof c->why,
                       "bcast.c v3.3.2: ranks share nodes: MPIR_Bcast_intra_smp "
                       "(bcast_intra_smp.c line 35: message < 12288 B or comm size < 8): the "
                       "root to its leader, binomial among the %u leaders, bcast in each node; "
                       "fennel's bcast-smp, binomial inside the nodes",
                       nodes);
        } else if (bytes < 524288 && pof2) {
            /* line 104: the root's node, the leaders (MPIR's choice for N), the others. */
            mpich3_bcast(nodes, bytes, &leaders);
            c->algorithm = "smp";
            c->generator = "bcast-smp";
            c->variant = fennel__mpich_bcast_variant(leaders.algorithm);
            g_snprintf(c->why, sizeof c->why,
                       "bcast.c v3.3.2: ranks share nodes: MPIR_Bcast_intra_smp "
                       "(bcast_intra_smp.c line 104: message < 524288 B, comm size a power of "
                       "two): bcast among the %u leaders (%s: %s), then in each node; fennel's "
                       "bcast-smp%s%s, binomial inside the nodes",
                       nodes, leaders.algorithm, leaders.why, c->variant ? " --variant " : "",
                       c->variant ? c->variant : "");
        } else {
            c->algorithm = "scatter_ring_allgather";
            c->generator = "bcast-scatter-allgather";
            g_snprintf(c->why, sizeof c->why,
                       "bcast.c v3.3.2: ranks share nodes: MPIR_Bcast_intra_smp "
                       "(bcast_intra_smp.c line 152: message >= 524288 B or comm size not a "
                       "power of two): scatter + ring allgather over all ranks");
        }
    } else {
        /* reduce.c: the SMP reduce (reduce_intra_smp.c): the other nodes reduce to their
         * leaders, the leaders reduce to the root's (MPIR's choice for N), then the root's
         * node reduces to the root. */
        mpich3_reduce(nodes, bytes, count, &leaders);
        gboolean binomial = strcmp(leaders.algorithm, "binomial") == 0;
        c->algorithm = "smp";
        c->generator = binomial ? "reduce-smp" : NULL;
        c->variant = binomial ? "root-last" : NULL;
        g_snprintf(c->why, sizeof c->why,
                   "reduce.c v3.3.2: ranks share nodes, commutative: MPIR_Reduce_intra_smp, "
                   "reduce in the other nodes, among the %u leaders (%s: %s), then in the "
                   "root's node; %s",
                   nodes, leaders.algorithm, leaders.why,
                   binomial ? "fennel's reduce-smp --variant root-last, binomial inside the nodes"
                            : "fennel's reduce-smp runs Rabenseifner among the leaders only "
                              "before the root's node reduces (--variant rabenseifner), not "
                              "this order");
    }
}

/* ---- Open MPI 5.0: coll/han over coll/tuned. Read from ompi/mca/coll/han/ at tag v5.0.10
 * (the defaults the same from v5.0.0): coll_han_component.c line 94 gives HAN priority 35,
 * above coll/tuned's 30 (coll_tuned_component.c line 52), so HAN takes the collectives it
 * has whenever it does not disqualify itself; coll_han_module.c line 239 disqualifies it
 * when every rank is on one node. Its allreduce, bcast and reduce (coll_han_dynamic.c: the
 * "intra" algorithm unless told otherwise, line 691) work node by node: coll/tuned's
 * algorithm inside each node, coll/libnbc's among one leader per node, in segments of
 * 65536 B (allreduce_segsize, bcast_segsize, reduce_segsize: lines 305, 266, 286) that
 * are pipelined when there are several. Nodes of different sizes make its bcast and reduce
 * fall back to coll/tuned (coll_han_bcast.c line 93, coll_han_reduce.c line 101). ---- */
#define HAN_SEGMENT 65536

static void ompi5_han(const char *collective, uint32_t ranks, uint32_t ppn, int64_t bytes,
                      FennelLibraryChoice *c)
{
    if (strcmp(collective, "alltoall") == 0 || strcmp(collective, "reduce_scatter") == 0) {
        append(c,
               "; coll/tuned's choice at any layout: coll/han leaves %s to the components "
               "below it (coll_han_module.c v5.0.10 line %d)",
               collective, strcmp(collective, "alltoall") == 0 ? 251 : 256);
        return;
    }
    if (ppn <= 1) {
        append(c, "; coll/tuned's choice: across nodes Open MPI 5 runs coll/han, which fennel "
                  "models only for ranks that share nodes (--ppn above 1)");
        return;
    }
    if (ranks <= ppn) {
        append(c, "; coll/tuned's choice: all ranks on one node, where coll/han disqualifies "
                  "itself (coll_han_module.c v5.0.10 line 239)");
        return;
    }
    if (ranks % ppn != 0) {
        append(c, "; coll/tuned's choice: the nodes hold different numbers of ranks, where "
                  "coll/han's bcast and reduce fall back to coll/tuned (coll_han_bcast.c "
                  "v5.0.10 line 93, coll_han_reduce.c line 101) and its allreduce is written "
                  "for equal nodes only, as are its gather, scatter and allgather "
                  "(coll_han_gather.c line 103, coll_han_scatter.c line 97, "
                  "coll_han_allgather.c line 97)");
        return;
    }
    FennelLibraryChoice tuned = *c;
    uint32_t nodes = ranks / ppn;
    memset(c, 0, sizeof *c);
    c->algorithm = "han";
    c->selected = NULL;
    const char *steps, *generator;
    if (strcmp(collective, "allreduce") == 0) {
        steps = "reduce in each node, reduce and bcast among the leaders, bcast in each node";
        generator = "allreduce-smp";
    } else if (strcmp(collective, "bcast") == 0) {
        steps = "bcast among the leaders, bcast in each node";
        generator = "bcast-smp";
    } else if (strcmp(collective, "reduce") == 0) {
        steps = "reduce in each node, reduce among the leaders";
        generator = "reduce-smp";
    } else if (strcmp(collective, "gather") == 0) {
        steps = "gather in each node, gather among the leaders";
        generator = NULL;
    } else if (strcmp(collective, "scatter") == 0) {
        steps = "scatter among the leaders, scatter in each node";
        generator = NULL;
    } else {
        steps = "gather in each node, allgather among the leaders, bcast in each node";
        generator = "allgather-smp";
    }
    g_snprintf(c->why, sizeof c->why,
               "coll_han_component.c v5.0.10 line 94: coll/han's priority 35 over coll/tuned's "
               "30, and %u nodes of %u ranks: %s",
               nodes, ppn, steps);
    if (generator && strcmp(collective, "allgather") == 0) {
        /* mca_coll_han_allgather_intra (coll_han_allgather.c line 72) moves the whole
         * buffer at each level: no segments. */
        c->generator = generator;
        append(c, " (coll_han_allgather.c v5.0.10 line 72, unsegmented); fennel's "
                  "allgather-smp has these levels with a binomial gather and bcast in the "
                  "nodes and a ring among the leaders, not HAN's own algorithms for each "
                  "(coll/tuned's in the nodes, coll/libnbc's among the leaders)");
    } else if (generator && bytes > HAN_SEGMENT) {
        /* coll_han_bcast.c and coll_han_reduce.c: two levels, one segment apart;
         * coll_han_allreduce.c: four levels on four segments. */
        int allreduce = strcmp(collective, "allreduce") == 0;
        c->segment = HAN_SEGMENT;
        c->generator = generator;
        append(c,
               ", pipelined in %d B segments (coll_han_%s.c v5.0.10 line %d: %s); fennel's %s "
               "--segment has these levels with binomial trees, not HAN's own algorithms for "
               "each (coll/tuned's in the nodes, coll/libnbc's among the leaders)",
               HAN_SEGMENT, collective,
               allreduce                          ? 82
               : strcmp(collective, "bcast") == 0 ? 60
                                                  : 61,
               allreduce ? "the four levels on four segments at once"
                         : "the level among the leaders and the level in each node one segment "
                           "apart",
               generator);
    } else if (generator) {
        c->generator = generator;
        append(c,
               "; one %d B segment; fennel's SMP generator has these levels with binomial "
               "trees%s, not HAN's own algorithms for each (coll/tuned's in the nodes, "
               "coll/libnbc's among the leaders)",
               HAN_SEGMENT,
               strcmp(collective, "allreduce") == 0 ? " and recursive doubling among the leaders"
                                                    : "");
    }
    append(c, "; coll/tuned alone would run %s", tuned.algorithm);
}

static const char *const library_names[] = {"ompi-1.6", "ompi-3",  "ompi-4", "ompi-5",
                                            "mpich-3",  "mpich-4", "nccl",   NULL};

/* Open MPI 1.6 and 3.1 decide by the same formulas (docs/LIBRARIES.md): 1.6's are 3.1's
 * functions with two differences, coded where they apply (the alltoall's thresholds,
 * written in the tests in 1.6 and MCA parameters in 3.1, and the zero counts of
 * ompi16_reduce_scatter). */
static gboolean ompi_formulas(const char *library)
{
    return strcmp(library, "ompi-3") == 0 || strcmp(library, "ompi-1.6") == 0;
}

/* nonoverlapping: the communicator's reduce to 0 then its bcast, each coll/tuned's own
 * decision for the same buffer (count floats, so the bcast's fall-backs count floats too).
 * The generator is allreduce-nonoverlapping with --variant REDUCE:BCAST where fennel has
 * both parts; otherwise none, and the line names the part it lacks. */
static void ompi_nonoverlapping(const char *library, const char *tag, uint32_t ranks, int64_t bytes,
                                FennelLibraryChoice *c)
{
    FennelLibraryChoice r = {0}, b = {0};
    int64_t count = bytes / FENNEL_LIBRARY_ELEMENT;
    if (ompi_formulas(library)) {
        ompi3_reduce(ranks, bytes, count, &r);
        ompi3_bcast(ranks, bytes, count, &b);
    } else {
        choose_table(tag, ompi4_reduce, G_N_ELEMENTS(ompi4_reduce), ompi_reduce_names, ranks, bytes,
                     &r);
        choose_table(tag, ompi4_bcast, G_N_ELEMENTS(ompi4_bcast), ompi_bcast_names, ranks, bytes,
                     &b);
    }
    ompi_reduce_resolve(&r, ranks, count);
    ompi_bcast_resolve(&b, ranks, count);
    append(c, "; its reduce: %s (%s); its bcast: %s (%s)", r.algorithm, r.why, b.algorithm, b.why);
    /* allreduce-nonoverlapping takes one --segment for both parts: a segmented binomial
     * reduce and a split-bintree or pipeline bcast in segments of the same size (Open MPI
     * 3.1 from 10000 B below 370728 B: 1 KiB each), or neither segmented. */
    if (r.segment != b.segment) {
        append(c, "; fennel's allreduce-nonoverlapping cuts both parts into one segment size, "
                  "not these");
        return;
    }
    static const char *const reduces[][2] = {{"reduce-binomial", "binomial"},
                                             {"reduce-inorder-binary", "inorder-binary"},
                                             {"reduce-linear", "linear"}};
    static const char *const bcasts[][2] = {{"bcast-bmtree", "binomial"},
                                            {"bcast-knomial", "knomial"},
                                            {"bcast-binary", "binary"},
                                            {"bcast-linear", "linear"},
                                            {"bcast-split-bintree", "split-bintree"},
                                            {"bcast-pipeline", "pipeline"},
                                            {"bcast-ring", "pipeline"}};
    const char *rv = NULL, *bv = NULL;
    for (size_t i = 0; i < G_N_ELEMENTS(reduces); i++)
        if (g_strcmp0(r.generator, reduces[i][0]) == 0)
            rv = reduces[i][1];
    for (size_t i = 0; i < G_N_ELEMENTS(bcasts); i++)
        if (g_strcmp0(b.generator, bcasts[i][0]) == 0)
            bv = bcasts[i][1];
    if (rv == NULL || bv == NULL)
        return;
    /* Every REDUCE:BCAST the generator takes (--variant is a pointer kept by the choice). */
    static const char *const variants[] = {"binomial:binomial",
                                           "binomial:knomial",
                                           "binomial:binary",
                                           "binomial:linear",
                                           "binomial:split-bintree",
                                           "binomial:pipeline",
                                           "inorder-binary:binomial",
                                           "inorder-binary:knomial",
                                           "inorder-binary:binary",
                                           "inorder-binary:linear",
                                           "inorder-binary:split-bintree",
                                           "inorder-binary:pipeline",
                                           "linear:binomial",
                                           "linear:knomial",
                                           "linear:binary",
                                           "linear:linear",
                                           "linear:split-bintree",
                                           "linear:pipeline"};
    for (size_t i = 0; i < G_N_ELEMENTS(variants); i++) {
        char v[40];
        g_snprintf(v, sizeof v, "%s:%s", rv, bv);
        if (strcmp(v, variants[i]) == 0)
            c->variant = variants[i];
    }
    c->generator = "allreduce-nonoverlapping";
    c->radix = b.radix;
    c->segment = r.segment;
}

/* reduce_scatter's nonoverlapping (ompi_coll_tuned_reduce_scatter_intra_nonoverlapping,
 * coll_tuned_reduce_scatter.c v1.6.5; ompi_coll_base_reduce_scatter_intra_nonoverlapping,
 * coll_base_reduce_scatter.c v4.1.6): the communicator's reduce of the whole buffer to rank
 * 0 (coll/tuned's own decision for the same floats), then its scatterv, which coll/tuned
 * does not provide (coll_tuned_module.c v1.6.5 line 113, v4.1.6 line 114), so coll/basic's
 * linear one: the root sends each rank its part in rank order, nothing to an empty part
 * (coll_basic_scatterv.c). The generator is reduce-scatter-nonoverlapping with --variant
 * the reduce where fennel has it unsegmented; otherwise none, and the line names it. */
static void ompi_reduce_scatter_nonoverlapping(const char *library, const char *tag, uint32_t ranks,
                                               uint32_t ppn, int64_t bytes, FennelLibraryChoice *c)
{
    FennelLibraryChoice r = {0};
    int64_t count = bytes / FENNEL_LIBRARY_ELEMENT;
    if (ompi_formulas(library))
        ompi3_reduce(ranks, bytes, count, &r);
    else
        choose_table(tag, ompi4_reduce, G_N_ELEMENTS(ompi4_reduce), ompi_reduce_names, ranks, bytes,
                     &r);
    ompi_reduce_resolve(&r, ranks, count);
    char seg[48] = "";
    if (r.segment)
        g_snprintf(seg, sizeof seg, " in %" G_GINT64_FORMAT " B segments", r.segment);
    append(c,
           "; its reduce: %s%s (%s%s); its scatterv: coll/basic's linear (none to an empty "
           "part)",
           r.algorithm, seg, r.why,
           strcmp(library, "ompi-1.6") == 0 ? "; v1.6.5 decides alike" : "");
    if (strcmp(library, "ompi-5") == 0 && ppn < ranks) {
        append(c, "; across nodes Open MPI 5's reduce is coll/han's, which fennel does not "
                  "model inside this algorithm");
        return;
    }
    static const char *const reduces[][2] = {{"reduce-binomial", "binomial"},
                                             {"reduce-inorder-binary", "inorder-binary"},
                                             {"reduce-bintree", "binary"},
                                             {"reduce-linear", "linear"}};
    for (size_t i = 0; r.segment == 0 && i < G_N_ELEMENTS(reduces); i++)
        if (g_strcmp0(r.generator, reduces[i][0]) == 0) {
            c->generator = "reduce-scatter-nonoverlapping";
            c->variant = reduces[i][1];
            return;
        }
    append(c, "; fennel's reduce-scatter-nonoverlapping has no such reduce");
}

const char *const *fennel_library_names(void)
{
    return library_names;
}

static gboolean known_library(const char *library)
{
    for (const char *const *n = library_names; *n; n++)
        if (strcmp(*n, library) == 0)
            return TRUE;
    return FALSE;
}

static gboolean is_mpich(const char *library)
{
    return g_str_has_prefix(library, "mpich-");
}

/* The tables of Open MPI 4.1 and 5.0 beyond allreduce, bcast, reduce and allgather, by
 * collective; reduce_scatter is also spelt reduce-scatter (fennel's generators' word). */
static const struct {
    const char *collective;
    const Row *rows;
    size_t n;
    const char *const *names;
} ompi4_others[] = {
    {"alltoall", ompi4_alltoall, G_N_ELEMENTS(ompi4_alltoall), ompi_alltoall_names},
    {"reduce_scatter", ompi4_reduce_scatter, G_N_ELEMENTS(ompi4_reduce_scatter),
     ompi_reduce_scatter_names},
    {"gather", ompi4_gather, G_N_ELEMENTS(ompi4_gather), ompi_gather_names},
    {"scatter", ompi4_scatter, G_N_ELEMENTS(ompi4_scatter), ompi_scatter_names},
};

static int ompi4_other(const char *collective)
{
    if (collective && strcmp(collective, "reduce-scatter") == 0)
        collective = "reduce_scatter";
    for (size_t i = 0; collective && i < G_N_ELEMENTS(ompi4_others); i++)
        if (strcmp(collective, ompi4_others[i].collective) == 0)
            return (int)i;
    return -1;
}

gboolean fennel_library_covers(const char *library, const char *collective)
{
    if (library && strcmp(library, "nccl") == 0)
        return fennel_library_nccl_covers(collective);
    if (library && strcmp(library, "mpich-4") == 0)
        return fennel_library_mpich4_covers(collective);
    gboolean ompi45 = library && (strcmp(library, "ompi-4") == 0 || strcmp(library, "ompi-5") == 0);
    return known_library(library) && collective &&
           (strcmp(collective, "allreduce") == 0 || strcmp(collective, "bcast") == 0 ||
            strcmp(collective, "reduce") == 0 ||
            (strcmp(collective, "allgather") == 0 && !is_mpich(library)) ||
            (ompi4_other(collective) >= 0 && ompi45) ||
            (ompi4_other(collective) >= 0 && ompi_formulas(library)));
}

gboolean fennel_library_choose(const char *library, const char *collective, uint32_t ranks,
                               int64_t bytes, FennelLibraryChoice *out, GError **error)
{
    return fennel_library_choose_on(library, collective, ranks, 0, bytes, out, error);
}

gboolean fennel_library_choose_on(const char *library, const char *collective, uint32_t ranks,
                                  uint32_t ppn, int64_t bytes, FennelLibraryChoice *out,
                                  GError **error)
{
    const FennelLibraryMachine machine = {.ppn = ppn};
    return fennel_library_choose_at(library, collective, ranks, &machine, bytes, out, error);
}

FennelLibraryMachine fennel_library_machine_of(const FennelModel *model, uint32_t ppn)
{
    FennelLibraryMachine m = {ppn, FALSE, FENNEL_GPU_ARCH_SM90, FENNEL_CPU_ARCH_INTEL, 0, 0};
    const FennelTopology *t = model ? model->topology : NULL;
    if (t == NULL || t->kind != FENNEL_TOPOLOGY_RAIL)
        return m;
    m.nvls = t->nvls;
    m.gpu_arch = t->gpu_arch;
    m.cpu_arch = t->cpu_arch;
    m.nics = fennel_topology_nics(t);
    /* the NIC's bandwidth: its link to the rail's leaf (level 2), bytes per attosecond */
    const FennelRate rate = fennel_topology_level_params(t, 2).rate;
    m.nic_gbps = rate > 0 ? 1e9 / (double)rate : 0;
    return m;
}

gboolean fennel_library_choose_at(const char *library, const char *collective, uint32_t ranks,
                                  const FennelLibraryMachine *machine, int64_t bytes,
                                  FennelLibraryChoice *out, GError **error)
{
    const uint32_t ppn = machine->ppn;
    memset(out, 0, sizeof *out);
    if (library == NULL || !known_library(library)) {
        char *names = g_strjoinv(", ", (char **)library_names);
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE, "unknown library '%s' (known: %s)",
                    library ? library : "", names);
        g_free(names);
        return FALSE;
    }
    if (!fennel_library_covers(library, collective)) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE,
                    "%s: no table for the collective '%s' (tables: allreduce%s)", library,
                    collective ? collective : "",
                    strcmp(library, "nccl") == 0      ? ", allgather, reduce_scatter, bcast, reduce"
                    : strcmp(library, "mpich-3") == 0 ? ", bcast, reduce"
                                                      : ", bcast, reduce, allgather, alltoall, "
                                                        "reduce_scatter, gather, scatter");
        return FALSE;
    }
    if (ranks < 2 || bytes < 1) {
        g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_USAGE,
                    "%s %s: the choice needs at least 2 ranks and 1 byte", library, collective);
        return FALSE;
    }
    if (strcmp(library, "nccl") == 0)
        return fennel_library_nccl(collective, ranks, machine, bytes, out, error);
    if (strcmp(library, "mpich-4") == 0) {
        fennel_library_mpich4(collective, ranks, ppn, bytes, out);
        return TRUE;
    }
    gboolean allreduce = strcmp(collective, "allreduce") == 0;
    gboolean reduce = strcmp(collective, "reduce") == 0;
    gboolean allgather = strcmp(collective, "allgather") == 0;
    int64_t count = element_count(collective, bytes);
    const char *tag = strcmp(library, "ompi-4") == 0 ? "v4.1.6" : "v5.0.x";
    if (is_mpich(library)) {
        if (ppn > 1)
            mpich3_node_aware(collective, ranks, ppn, bytes, count, out);
        else if (allreduce)
            mpich3_allreduce(out);
        else if (reduce)
            mpich3_reduce(ranks, bytes, count, out);
        else
            mpich3_bcast(ranks, bytes, out);
        return TRUE;
    }
    int other = ompi4_other(collective);
    if (other >= 0 && ompi_formulas(library)) {
        const char *name = ompi4_others[other].collective;
        gboolean v16 = strcmp(library, "ompi-1.6") == 0;
        if (strcmp(name, "alltoall") == 0)
            ompi_formula_alltoall(v16, ranks, bytes, out);
        else if (v16 && strcmp(name, "reduce_scatter") == 0)
            ompi16_reduce_scatter(ranks, bytes, out);
        else if (strcmp(name, "reduce_scatter") == 0)
            ompi3_reduce_scatter(ranks, bytes, out);
        else if (strcmp(name, "gather") == 0)
            ompi3_gather(ranks, bytes, out);
        else
            ompi3_scatter(ranks, bytes, out);
        ompi_other_resolve(out, name);
        if (strcmp(out->algorithm, "nonoverlapping") == 0)
            ompi_reduce_scatter_nonoverlapping(library, tag, ranks, ppn, bytes, out);
        /* A segment the generator cannot take is another algorithm (none left since
         * gather-linear-sync takes 3.1's first segments as --segment). */
        if (out->segment != 0 && fennel_library_generator_segment(out) == 0)
            out->generator = NULL;
        if (v16 && strcmp(name, "alltoall") != 0 && strcmp(out->algorithm, "nonoverlapping") != 0)
            append(out, "; v1.6.5 decides alike");
        return TRUE;
    }
    if (other >= 0) {
        const char *name = ompi4_others[other].collective;
        choose_table(tag, ompi4_others[other].rows, ompi4_others[other].n,
                     ompi4_others[other].names, ranks, bytes, out);
        ompi_other_resolve(out, name);
        if (strcmp(out->algorithm, "non-overlapping") == 0)
            ompi_reduce_scatter_nonoverlapping(library, tag, ranks, ppn, bytes, out);
        if (strcmp(library, "ompi-5") == 0)
            ompi5_han(name, ranks, ppn, bytes, out);
        return TRUE;
    }
    if (ompi_formulas(library)) {
        if (allreduce)
            ompi3_allreduce(ranks, bytes, count, out);
        else if (reduce)
            ompi3_reduce(ranks, bytes, count, out);
        else if (allgather)
            ompi3_allgather(ranks, bytes, out);
        else
            ompi3_bcast(ranks, bytes, count, out);
    } else if (allgather) {
        choose_table(tag, ompi4_allgather, G_N_ELEMENTS(ompi4_allgather), ompi_allgather_names,
                     ranks, bytes, out);
    } else if (reduce) {
        choose_table(tag, ompi4_reduce, G_N_ELEMENTS(ompi4_reduce), ompi_reduce_names, ranks, bytes,
                     out);
    } else {
        if (allreduce)
            choose_table(tag, ompi4_allreduce, G_N_ELEMENTS(ompi4_allreduce), ompi_allreduce_names,
                         ranks, bytes, out);
        else
            choose_table(tag, ompi4_bcast, G_N_ELEMENTS(ompi4_bcast), ompi_bcast_names, ranks,
                         bytes, out);
    }
    if (allreduce)
        ompi_allreduce_resolve(out, ranks, count);
    else if (allgather)
        ompi_allgather_resolve(out, ranks);
    else if (reduce)
        ompi_reduce_resolve(out, ranks, count);
    else
        ompi_bcast_resolve(out, ranks, count);
    if (allreduce && strcmp(out->algorithm, "nonoverlapping") == 0)
        ompi_nonoverlapping(library, tag, ranks, bytes, out);
    if (strcmp(library, "ompi-5") == 0)
        ompi5_han(collective, ranks, ppn, bytes, out);
    if (strcmp(library, "ompi-1.6") == 0)
        append(out, "; v1.6.5 decides alike");
    return TRUE;
}

const char *fennel_library_generator(const char *library, const char *collective,
                                     const FennelLibraryChoice *c, GError **error)
{
    if (c->generator)
        return c->generator;
    char seg[48] = "";
    if (c->segment) {
        char *s = format_bytes(c->segment);
        g_snprintf(seg, sizeof seg, " with %s segments", s);
        g_free(s);
    }
    g_set_error(error, FENNEL_ERROR, FENNEL_ERROR_INPUT,
                "%s %s runs %s%s, which no generator of fennel performs yet", library, collective,
                c->algorithm, seg);
    return NULL;
}

int64_t fennel_library_generator_segment(const FennelLibraryChoice *c)
{
    const FennelGenerator *g = c->generator ? fennel_generator_find(c->generator) : NULL;
    return g && (g->options & FENNEL_GEN_SEGMENT) ? c->segment : 0;
}

char *fennel_library_describe(const char *library, const char *collective, uint32_t ranks,
                              int64_t bytes, const FennelLibraryChoice *c)
{
    return fennel_library_describe_range(library, collective, ranks, bytes, bytes, c);
}

char *fennel_library_describe_range(const char *library, const char *collective, uint32_t ranks,
                                    int64_t lo, int64_t hi, const FennelLibraryChoice *c)
{
    GString *s = g_string_new(NULL);
    char *b = format_bytes(lo);
    if (hi != lo) {
        char *h = format_bytes(hi);
        char *both = g_strdup_printf("%s..%s", b, h);
        g_free(h);
        g_free(b);
        b = both;
    }
    g_string_printf(s, "%s %s, %u ranks, %s: %s", library, collective, ranks, b, c->algorithm);
    g_free(b);
    if (c->segment) {
        char *seg = format_bytes(c->segment);
        g_string_append_printf(s, ", segment %s", seg);
        g_free(seg);
    }
    if (c->fanout > 1 || (c->fanout == 1 && strcmp(c->algorithm, "chain") == 0))
        g_string_append_printf(
            s, ", %s %d", strcmp(c->algorithm, "knomial") == 0 ? "radix" : "fan-out", c->fanout);
    if (c->nccl_protocol)
        g_string_append_printf(s, ", protocol %s, %d channel%s", c->nccl_protocol, c->channels,
                               c->channels == 1 ? "" : "s");
    g_string_append_printf(s, " (%s)", c->why);
    /* The generator's options only when there is one to take them. */
    if (c->generator == NULL)
        return g_string_free(s, FALSE);
    g_string_append_printf(s, " -> fennel %s", c->generator);
    if (c->variant)
        g_string_append_printf(s, " --variant %s", c->variant);
    if (c->radix)
        g_string_append_printf(s, " --radix %d", c->radix);
    if (c->channels)
        g_string_append_printf(s, " --partitions %d", c->channels);
    if (fennel_library_generator_segment(c))
        g_string_append_printf(s, " --segment %" G_GINT64_FORMAT, c->segment);
    return g_string_free(s, FALSE);
}
