/* The libraries' default algorithm choices (src/run/library.c, docs/LIBRARIES.md), checked
 * at both sides of every boundary against thresholds read by hand from the libraries'
 * source, written out here independently of library.c's tables. */
#include "library.h"

#include <string.h>

/* What the table selected, before an algorithm's own fall-back for small counts. */
static const char *selected(const char *lib, const char *coll, uint32_t ranks, int64_t bytes,
                            FennelLibraryChoice *c)
{
    GError *error = NULL;
    g_assert_true(fennel_library_choose(lib, coll, ranks, bytes, c, &error));
    g_assert_no_error(error);
    return c->selected ? c->selected : c->algorithm;
}

/* One communicator-size range of Open MPI 4.1 / 5.0's coll_tuned_decision_fixed.c
 * (v4.1.6 and v5.0.x are the same file): "LO HI ALG B1 ALG B2 ALG ..." means ALG below
 * B1 bytes, the next from B1 to B2 - 1, and so on, for LO <= comm size <= HI. */
static void check_range(const char *lib, const char *coll, const char *spec)
{
    char **w = g_strsplit(spec, " ", -1);
    uint32_t lo = (uint32_t)atoi(w[0]), hi = (uint32_t)atoi(w[1]);
    uint32_t sizes[] = {lo, hi};
    FennelLibraryChoice c;
    for (int s = 0; s < 2; s++) {
        g_assert_cmpstr(selected(lib, coll, sizes[s], 1, &c), ==, w[2]);
        for (int i = 3; w[i]; i += 2) {
            int64_t b = g_ascii_strtoll(w[i], NULL, 10);
            g_assert_cmpstr(selected(lib, coll, sizes[s], b - 1, &c), ==, w[i - 1]);
            g_assert_cmpstr(selected(lib, coll, sizes[s], b, &c), ==, w[i + 1]);
            g_assert_cmpint(c.segment, ==, 0); /* the decisions pass segsize 0 */
        }
        g_assert_cmpstr(selected(lib, coll, sizes[s], (int64_t)1 << 30, &c), !=, NULL);
    }
    g_strfreev(w);
}

/* ompi_coll_tuned_allreduce_intra_dec_fixed, commutative branch, v4.1.6 lines 121-213. */
static const char *const ompi4_allreduce[] = {
    "2 3 ring 8 recursive_doubling 4096 ring 8192 recursive_doubling 16384 ring 65536 "
    "segmented_ring 262144 rabenseifner",
    "4 7 ring 16 recursive_doubling 8192 rabenseifner",
    "8 15 recursive_doubling 8192 rabenseifner",
    "16 31 segmented_ring 64 recursive_doubling 4096 rabenseifner",
    "32 63 segmented_ring 128 rabenseifner",
    "64 127 recursive_doubling 262144 rabenseifner",
    "128 255 nonoverlapping 131072 recursive_doubling 262144 rabenseifner",
    "256 511 nonoverlapping 4096 rabenseifner",
    "512 2047 nonoverlapping 2048 recursive_doubling 16384 rabenseifner",
    "2048 4095 nonoverlapping 2048 segmented_ring 4096 recursive_doubling 16384 rabenseifner",
    "4096 100000 nonoverlapping 2048 segmented_ring 16384 recursive_doubling 32768 "
    "rabenseifner",
};

/* ompi_coll_tuned_bcast_intra_dec_fixed, v4.1.6 lines 539-646. */
static const char *const ompi4_bcast[] = {
    "2 3 pipeline 32 binary_tree 256 pipeline 512 knomial 1024 basic_linear 32768 binary_tree "
    "131072 chain 262144 basic_linear 524288 binomial 1048576 binary_tree",
    "4 7 binary_tree 64 binomial 128 binary_tree 2048 binomial 8192 basic_linear 1048576 chain",
    "8 15 knomial 8 binary_tree 64 knomial 4096 binary_tree 16384 binomial 32768 basic_linear",
    "16 31 knomial 4096 binomial 1048576 scatter_allgather",
    "32 63 binomial 2048 knomial",
    "64 127 knomial",
    "128 255 binomial 2 binary_tree 16384 basic_linear 32768 binary_tree 65536 knomial",
    "256 1023 knomial 16384 split_binary_tree 32768 knomial",
    "1024 2047 knomial 524288 scatter_allgather",
    "2048 4095 knomial 262144 scatter_allgather",
    "4096 100000 knomial 8192 binary_tree 16384 knomial 262144 scatter_allgather",
};

/* ompi_coll_tuned_reduce_intra_dec_fixed, commutative branch, v4.1.6 lines 725-807. */
static const char *const ompi4_reduce[] = {
    "2 3 rabenseifner 8 binary 16 pipeline 32 linear 262144 pipeline 524288 chain 1048576 "
    "pipeline",
    "4 7 binary 4096 chain 65536 binomial 262144 linear 524288 binomial 1048576 linear",
    "8 15 binary 8192 binomial",
    "16 31 binary 4096 binomial",
    "32 255 binomial",
    "256 511 binomial 8192 in-order_binary 16384 binomial",
    "512 2047 binomial",
    "2048 4095 binomial 512 in-order_binary 1024 binomial 8192 in-order_binary 16384 binomial",
    "4096 100000 binomial 16 in-order_binary 32 binomial 1024 in-order_binary 2048 binomial "
    "8192 in-order_binary 16384 binomial",
};

/* ompi_coll_tuned_allgather_intra_dec_fixed, v4.1.6 lines 1118-1220: the bytes are one
 * rank's block (dsize * scount). */
static const char *const ompi4_allgather[] = {
    "2 2 two_proc",
    "3 31 recursive_doubling",
    "32 63 recursive_doubling 1024 neighbor 65536 ring",
    "64 127 recursive_doubling 512 neighbor 65536 ring",
    "128 255 recursive_doubling 512 neighbor 131072 ring 524288 neighbor 1048576 ring",
    "256 511 recursive_doubling 32 bruck 128 recursive_doubling 1024 neighbor 131072 ring "
    "524288 neighbor 1048576 ring",
    "512 1023 recursive_doubling 64 bruck 256 recursive_doubling 2048 neighbor",
    "1024 2047 recursive_doubling 4 bruck 8 recursive_doubling 16 bruck 32 recursive_doubling "
    "256 bruck 512 recursive_doubling 4096 neighbor",
    "2048 4095 bruck 32 recursive_doubling 128 bruck 512 recursive_doubling 4096 neighbor",
    "4096 100000 recursive_doubling 2 bruck 8 recursive_doubling 16 bruck 512 "
    "recursive_doubling 4096 neighbor",
};

/* ompi_coll_tuned_alltoall_intra_dec_fixed, v4.1.6 lines 253-403: the bytes are one
 * rank's block for one other rank (dsize * scount). Comm size 2 is its own test. */
static const char *const ompi4_alltoall[] = {
    "2 2 pairwise 2 two_proc 4 pairwise 16 two_proc 64 pairwise 256 two_proc 4096 pairwise "
    "32768 linear_sync 262144 two_proc 1048576 pairwise",
    "3 7 linear_sync 8192 linear 16384 linear_sync 65536 linear 524288 pairwise 1048576 linear",
    "8 15 linear_sync 262144 linear",
    "16 31 linear_sync 4 modified_bruck 512 linear_sync 8192 linear 32768 linear_sync 262144 "
    "linear 524288 linear_sync",
    "32 63 modified_bruck 512 linear 524288 linear_sync",
    "64 127 modified_bruck 1024 linear 2048 linear_sync 4096 linear 262144 pairwise",
    "128 255 modified_bruck 1024 linear_sync 2048 linear 262144 pairwise",
    "256 511 modified_bruck 1024 linear_sync 8192 linear 32768 pairwise",
    "512 1023 modified_bruck 512 linear_sync 8192 linear 16384 linear_sync 131072 linear "
    "262144 pairwise",
    "1024 2047 modified_bruck 512 linear_sync 1024 linear 2048 linear_sync 16384 linear 262144 "
    "linear_sync",
    "2048 4095 modified_bruck 1024 linear_sync 4096 linear 8192 linear_sync 131072 linear",
    "4096 100000 modified_bruck 2048 linear_sync 8192 linear 16384 linear_sync 32768 linear "
    "65536 linear_sync",
};

/* ompi_coll_tuned_reduce_scatter_intra_dec_fixed, commutative branch, v4.1.6 lines 856-956:
 * the bytes are the whole buffer (the sum of the receive counts x dsize). */
static const char *const ompi4_reduce_scatter[] = {
    "2 3 ring 65536 butterfly 131072 ring",
    "4 7 non-overlapping 8 recursive_halving 262144 ring",
    "8 31 recursive_halving 262144 ring",
    "32 63 non-overlapping 64 recursive_halving 2048 butterfly 524288 ring",
    "64 127 non-overlapping 256 recursive_halving 512 butterfly 2048 recursive_halving 4096 "
    "butterfly",
    "128 255 non-overlapping 256 recursive_halving 512 butterfly",
    "256 511 non-overlapping 256 recursive_halving 1024 butterfly",
    "512 1023 non-overlapping 512 recursive_halving 2048 butterfly 8192 recursive_halving "
    "16384 butterfly",
    "1024 2047 non-overlapping 512 recursive_halving 4096 butterfly 16384 recursive_halving "
    "32768 butterfly",
    "2048 4095 non-overlapping 512 recursive_halving 4096 butterfly",
    "4096 100000 non-overlapping 1024 recursive_halving 8192 butterfly",
};

/* ompi_coll_tuned_gather_intra_dec_fixed, v4.1.6 lines 1413-1451: one rank's block. */
static const char *const ompi4_gather[] = {
    "2 3 linear_sync 2 basic_linear 4 binomial 32768 basic_linear 65536 binomial 131072 "
    "linear_sync",
    "4 7 binomial 1024 basic_linear 8192 binomial 32768 basic_linear 262144 linear_sync",
    "8 255 binomial",
    "256 511 binomial 2048 basic_linear 8192 binomial",
    "512 100000 binomial",
};

/* ompi_coll_tuned_scatter_intra_dec_fixed, v4.1.6 lines 1500-1555: one rank's block. */
static const char *const ompi4_scatter[] = {
    "2 3 linear_nb 2 basic_linear 131072 linear_nb 262144 basic_linear",
    "4 7 binomial 2048 basic_linear 4096 binomial 8192 basic_linear 32768 linear_nb 1048576 "
    "basic_linear",
    "8 15 binomial 16384 linear_nb 1048576 basic_linear",
    "16 31 binomial 16384 basic_linear 32768 linear_nb",
    "32 63 binomial 512 linear_nb 8192 binomial 16384 linear_nb",
    "64 100000 binomial 512 linear_nb",
};

static void test_ompi4_tables(void)
{
    const char *libs[] = {"ompi-4", "ompi-5"};
    for (int l = 0; l < 2; l++) {
        for (size_t i = 0; i < G_N_ELEMENTS(ompi4_reduce); i++)
            check_range(libs[l], "reduce", ompi4_reduce[i]);
        for (size_t i = 0; i < G_N_ELEMENTS(ompi4_allreduce); i++)
            check_range(libs[l], "allreduce", ompi4_allreduce[i]);
        for (size_t i = 0; i < G_N_ELEMENTS(ompi4_bcast); i++)
            check_range(libs[l], "bcast", ompi4_bcast[i]);
        for (size_t i = 0; i < G_N_ELEMENTS(ompi4_allgather); i++)
            check_range(libs[l], "allgather", ompi4_allgather[i]);
        for (size_t i = 0; i < G_N_ELEMENTS(ompi4_alltoall); i++)
            check_range(libs[l], "alltoall", ompi4_alltoall[i]);
        for (size_t i = 0; i < G_N_ELEMENTS(ompi4_reduce_scatter); i++) {
            check_range(libs[l], "reduce_scatter", ompi4_reduce_scatter[i]);
            check_range(libs[l], "reduce-scatter", ompi4_reduce_scatter[i]);
        }
        for (size_t i = 0; i < G_N_ELEMENTS(ompi4_gather); i++)
            check_range(libs[l], "gather", ompi4_gather[i]);
        for (size_t i = 0; i < G_N_ELEMENTS(ompi4_scatter); i++)
            check_range(libs[l], "scatter", ompi4_scatter[i]);
    }
}

/* The allgather's fall-backs (coll_base_allgather.c, v4.1.6): recursive doubling runs bruck
 * unless the ranks are a power of two, neighbor exchange runs ring for odd ranks. */
static void test_ompi4_allgather(void)
{
    FennelLibraryChoice c;
    /* 2 ranks: two_proc (line 1119), one exchange: the ring's one step. */
    g_assert_cmpstr(selected("ompi-4", "allgather", 2, 1 << 20, &c), ==, "two_proc");
    g_assert_cmpstr(c.generator, ==, "allgather-ring");
    /* 16 ranks: recursive doubling (line 1121) on a power of two. */
    selected("ompi-4", "allgather", 16, 64, &c);
    g_assert_null(c.selected);
    g_assert_cmpstr(c.generator, ==, "allgather-rd");
    /* 24 ranks: recursive doubling, not a power of two: bruck. */
    selected("ompi-5", "allgather", 24, 64, &c);
    g_assert_cmpstr(c.selected, ==, "recursive_doubling");
    g_assert_cmpstr(c.algorithm, ==, "bruck");
    g_assert_cmpstr(c.generator, ==, "allgather-bruck");
    /* 3000 ranks, 32 B: bruck (line 1196) as the table says. */
    selected("ompi-4", "allgather", 3000, 31, &c);
    g_assert_null(c.selected);
    g_assert_cmpstr(c.generator, ==, "allgather-bruck");
    /* 32 ranks, 1 KiB: neighbor (line 1126), even: neighbor exchange. */
    selected("ompi-4", "allgather", 32, 1024, &c);
    g_assert_null(c.selected);
    g_assert_cmpstr(c.generator, ==, "allgather-neighbor-exchange");
    /* 33 ranks: neighbor, odd: ring. */
    selected("ompi-4", "allgather", 33, 1024, &c);
    g_assert_cmpstr(c.selected, ==, "neighbor");
    g_assert_cmpstr(c.algorithm, ==, "ring");
    g_assert_cmpstr(c.generator, ==, "allgather-ring");
    /* 64 ranks, 64 KiB: ring (line 1136). */
    selected("ompi-4", "allgather", 64, 65536, &c);
    g_assert_cmpstr(c.generator, ==, "allgather-ring");
    g_assert_cmpint(c.segment, ==, 0);
    selected("ompi-4", "allgather", 33, 1024, &c);
    char *line = fennel_library_describe("ompi-4", "allgather", 33, 1024, &c);
    g_assert_cmpstr(line, ==,
                    "ompi-4 allgather, 33 ranks, 1 KiB: ring (coll_tuned_decision_fixed.c v4.1.6 "
                    "line 1126: comm size 32..63, message 1024..65535 B: algorithm 5; neighbor "
                    "falls back to ring: 33 ranks is odd) -> fennel allgather-ring");
    g_free(line);
}

/* The fall-backs of coll/base (coll_base_allreduce.c, coll_base_bcast.c, v4.1.6) with the
 * 4-byte elements of an allreduce and the 1-byte ones of a bcast. */
/* What runs for the alltoall, reduce_scatter, gather and scatter choices: the generator of
 * the same algorithm where fennel has one, none (refused by name) where it has not. */
static void test_ompi4_others(void)
{
    FennelLibraryChoice c;
    GError *error = NULL;
    /* alltoall, 2 ranks, 1 B: pairwise (line 255); 2 B: two_proc (line 257), one exchange. */
    g_assert_cmpstr(selected("ompi-4", "alltoall", 2, 1, &c), ==, "pairwise");
    g_assert_cmpstr(c.generator, ==, "alltoall-pairwise");
    g_assert_nonnull(strstr(c.why, "line 255: comm size 2, message < 2 B"));
    g_assert_cmpstr(selected("ompi-4", "alltoall", 2, 2, &c), ==, "two_proc");
    g_assert_cmpstr(c.generator, ==, "alltoall-pairwise");
    /* 100 ranks, 262144 B: pairwise (line 329). */
    g_assert_cmpstr(selected("ompi-5", "alltoall", 100, 262144, &c), ==, "pairwise");
    g_assert_cmpstr(c.generator, ==, "alltoall-pairwise");
    /* linear_sync (8 ranks, 8 B: line 291) and linear (3 ranks, 9000 B: line 279) post the
     * same sends at the default of no request limit: alltoall-linear; modified_bruck (64
     * ranks, 64 B: line 321): alltoall-bruck. */
    const char *linear[][3] = {{"linear_sync", "8", "alltoall-linear"},
                               {"linear", "9000", "alltoall-linear"},
                               {"modified_bruck", "64", "alltoall-bruck"}};
    uint32_t ranks[] = {8, 3, 64};
    for (int i = 0; i < 3; i++) {
        g_assert_cmpstr(selected("ompi-4", "alltoall", ranks[i], atoi(linear[i][1]), &c), ==,
                        linear[i][0]);
        g_assert_cmpstr(c.generator, ==, linear[i][2]);
        g_assert_cmpstr(fennel_library_generator("ompi-4", "alltoall", &c, &error), ==,
                        linear[i][2]);
    }
    g_assert_nonnull(strstr(c.why, "line 321"));
    /* reduce_scatter, 16 ranks: recursive_halving below 262144 B, ring from it (lines 874,
     * 876); 4 ranks, 4 B: non-overlapping (line 866); 64 ranks, 1 KiB: butterfly (894). */
    g_assert_cmpstr(selected("ompi-4", "reduce_scatter", 16, 262143, &c), ==, "recursive_halving");
    g_assert_cmpstr(c.generator, ==, "reduce-scatter-halving");
    g_assert_cmpstr(selected("ompi-4", "reduce-scatter", 16, 262144, &c), ==, "ring");
    g_assert_cmpstr(c.generator, ==, "reduce-scatter-ring");
    g_assert_cmpstr(selected("ompi-4", "reduce_scatter", 4, 4, &c), ==, "non-overlapping");
    g_assert_cmpstr(c.generator, ==, "reduce-scatter-nonoverlapping");
    g_assert_cmpstr(selected("ompi-4", "reduce_scatter", 64, 1024, &c), ==, "butterfly");
    g_assert_null(c.generator);
    /* gather and scatter binomial: the in-order binomial tree of fennel's generators. */
    g_assert_cmpstr(selected("ompi-4", "gather", 100, 1 << 20, &c), ==, "binomial");
    g_assert_cmpstr(c.generator, ==, "gather-binomial");
    g_assert_cmpstr(selected("ompi-4", "scatter", 100, 511, &c), ==, "binomial");
    g_assert_cmpstr(c.generator, ==, "scatter-binomial");
    /* The linear scatters and gathers: scatter linear_nb (64 ranks and more, from 512 B:
     * line 1554) and basic_linear (16..31 ranks, 16384..32767 B: line 1536) send the same
     * puts; gather basic_linear (4..7 ranks, 1024..8191 B: line 1431) and linear_sync (2..3
     * ranks, below 2 B: line 1415). */
    g_assert_cmpstr(selected("ompi-4", "scatter", 100, 512, &c), ==, "linear_nb");
    g_assert_cmpstr(c.generator, ==, "scatter-linear");
    g_assert_cmpstr(selected("ompi-4", "scatter", 16, 16384, &c), ==, "basic_linear");
    g_assert_cmpstr(c.generator, ==, "scatter-linear");
    g_assert_cmpstr(selected("ompi-4", "gather", 5, 1024, &c), ==, "basic_linear");
    g_assert_cmpstr(c.generator, ==, "gather-linear");
    g_assert_cmpstr(selected("ompi-4", "gather", 3, 1, &c), ==, "linear_sync");
    g_assert_cmpstr(c.generator, ==, "gather-linear-sync");
    /* 4.1 calls it with segment size 0: the whole block first, no --segment. */
    g_assert_cmpint(fennel_library_generator_segment(&c), ==, 0);
    /* Open MPI 5: coll/han leaves alltoall and reduce_scatter to coll/tuned at any layout
     * (coll_han_module.c lines 251, 256); it takes gather and scatter across nodes, whose
     * levels no generator performs. */
    g_assert_true(fennel_library_choose_on("ompi-5", "alltoall", 16, 4, 1, &c, &error));
    g_assert_cmpstr(c.algorithm, ==, "linear_sync"); /* 16..31 ranks, < 4 B: line 297 */
    g_assert_nonnull(strstr(c.why, "coll_han_module.c v5.0.10 line 251"));
    g_assert_true(fennel_library_choose_on("ompi-5", "reduce_scatter", 16, 4, 1024, &c, &error));
    g_assert_cmpstr(c.algorithm, ==, "recursive_halving");
    g_assert_cmpstr(c.generator, ==, "reduce-scatter-halving");
    const char *rooted[] = {"gather", "scatter"};
    for (int i = 0; i < 2; i++) {
        g_assert_true(fennel_library_choose_on("ompi-5", rooted[i], 16, 4, 8, &c, &error));
        g_assert_cmpstr(c.algorithm, ==, "han");
        g_assert_null(c.generator);
        /* One node of 16, or one rank per node: coll/tuned's binomial (8..31 ranks, 8 B). */
        g_assert_true(fennel_library_choose_on("ompi-5", rooted[i], 16, 16, 8, &c, &error));
        g_assert_cmpstr(c.algorithm, ==, "binomial");
        g_assert_true(fennel_library_choose_on("ompi-5", rooted[i], 16, 1, 8, &c, &error));
        g_assert_cmpstr(c.algorithm, ==, "binomial");
    }
    /* Open MPI 4.1 and 5.0 have these tables, and 3.1 (and 4.0) too. */
    const char *colls[] = {"alltoall", "reduce_scatter", "gather", "scatter"};
    for (int i = 0; i < 4; i++) {
        g_assert_true(fennel_library_covers("ompi-4", colls[i]));
        g_assert_true(fennel_library_covers("ompi-5", colls[i]));
        g_assert_true(fennel_library_covers("ompi-3", colls[i]));
        g_assert_false(fennel_library_covers("mpich-3", colls[i]));
        /* NCCL has reduce_scatter; the others are its point-to-point operations */
        g_assert_cmpint(fennel_library_covers("nccl", colls[i]), ==, i == 1);
    }
}

static void test_ompi4_fallbacks(void)
{
    FennelLibraryChoice c;
    /* 2 ranks, 4 B: ring (line 123) with count 1 < 2 ranks runs recursive doubling
     * (ompi_coll_base_allreduce_intra_ring: count < size). */
    selected("ompi-4", "allreduce", 2, 4, &c);
    g_assert_cmpstr(c.selected, ==, "ring");
    g_assert_cmpstr(c.algorithm, ==, "recursive_doubling");
    g_assert_cmpstr(c.generator, ==, "allreduce-rd");
    /* 2 ranks, 8 B: count 2 = 2 ranks, the ring itself. */
    selected("ompi-4", "allreduce", 2, 8191, &c);
    g_assert_cmpstr(c.algorithm, ==, "ring");
    g_assert_cmpstr(c.generator, ==, "allreduce-ring");
    /* 2 ranks, 65536 B: segmented_ring with segment size 0 has one segment of the whole
     * count, count < size x count, so the plain ring. */
    selected("ompi-4", "allreduce", 2, 65536, &c);
    g_assert_cmpstr(c.selected, ==, "segmented_ring");
    g_assert_cmpstr(c.algorithm, ==, "ring");
    /* 16 ranks, 60 B: segmented_ring -> ring -> count 15 < 16: recursive doubling. */
    selected("ompi-4", "allreduce", 16, 60, &c);
    g_assert_cmpstr(c.algorithm, ==, "recursive_doubling");
    /* 16 ranks, 64 B: line 155 selects recursive_doubling itself, no fall-back. */
    selected("ompi-4", "allreduce", 16, 64, &c);
    g_assert_null(c.selected);
    g_assert_cmpstr(c.algorithm, ==, "recursive_doubling");
    /* 1024 ranks, 16384 B: rabenseifner with count 4096 >= 1024. */
    selected("ompi-4", "allreduce", 1024, 16384, &c);
    g_assert_cmpstr(c.algorithm, ==, "rabenseifner");
    g_assert_cmpstr(c.generator, ==, "allreduce-rabenseifner");
    /* 8192 ranks, 32768 B (line 211): count 8192 = the power of two 8192, rabenseifner;
     * 40000 ranks, 32768 B: count 8192 < 32768 (ompi_coll_base_allreduce_intra_redscat_
     * allgather: count < nprocs_pof2) -> basic_linear. */
    selected("ompi-4", "allreduce", 8192, 32768, &c);
    g_assert_cmpstr(c.algorithm, ==, "rabenseifner");
    selected("ompi-4", "allreduce", 40000, 32768, &c);
    g_assert_cmpstr(c.selected, ==, "rabenseifner");
    g_assert_cmpstr(c.algorithm, ==, "basic_linear");
    g_assert_cmpstr(c.generator, ==, "allreduce-linear");
    /* bcast, 3 ranks, 1024 B (line 549): basic_linear. */
    selected("ompi-4", "bcast", 3, 1024, &c);
    g_assert_cmpstr(c.algorithm, ==, "basic_linear");
    g_assert_cmpstr(c.generator, ==, "bcast-linear");
    /* bcast, 16 ranks, 1 MiB: scatter_allgather (count 1048576 >= 16): binomial scatter and
     * recursive doubling allgather (coll_base_bcast.c), at a power of two
     * bcast-scatter-rd-allgather; at 24 ranks Open MPI's allgather ends with a halving step
     * that generator lacks: none. */
    selected("ompi-4", "bcast", 16, 1 << 20, &c);
    g_assert_cmpstr(c.algorithm, ==, "scatter_allgather");
    g_assert_cmpstr(c.generator, ==, "bcast-scatter-rd-allgather");
    selected("ompi-4", "bcast", 24, 1 << 20, &c);
    g_assert_cmpstr(c.algorithm, ==, "scatter_allgather");
    g_assert_null(c.generator);
    /* 2 ranks, 131072 B: chain with fan-out 0 -> 1, unsegmented: one chain. */
    selected("ompi-4", "bcast", 2, 131072, &c);
    g_assert_cmpstr(c.algorithm, ==, "chain");
    g_assert_cmpint(c.fanout, ==, 1);
    g_assert_cmpstr(c.generator, ==, "bcast-ring");
    /* 64 ranks: knomial of radix 4 (coll_tuned_bcast_knomial_radix = 4). */
    selected("ompi-4", "bcast", 64, 100, &c);
    g_assert_cmpstr(c.generator, ==, "bcast-knomial");
    g_assert_cmpint(c.radix, ==, 4);
    /* reduce, 2 ranks, 4 B (line 728): rabenseifner with count 1 below the power of two 2
     * (ompi_coll_base_reduce_intra_redscat_gather: count < nprocs_pof2) -> linear. */
    selected("ompi-4", "reduce", 2, 4, &c);
    g_assert_cmpstr(c.selected, ==, "rabenseifner");
    g_assert_cmpstr(c.algorithm, ==, "linear");
    g_assert_cmpstr(c.generator, ==, "reduce-linear");
    selected("ompi-4", "reduce", 64, 4, &c);
    g_assert_cmpstr(c.generator, ==, "reduce-binomial");
    /* nonoverlapping (coll_base_allreduce.c: the communicator's reduce to 0, then its bcast,
     * each coll/tuned's own decision). 3072 ranks, 8 B: reduce line 782 binomial, bcast line
     * 633 knomial of radix 4. */
    selected("ompi-4", "allreduce", 3072, 8, &c);
    g_assert_cmpstr(c.algorithm, ==, "nonoverlapping");
    g_assert_cmpstr(c.generator, ==, "allreduce-nonoverlapping");
    g_assert_cmpstr(c.variant, ==, "binomial:knomial");
    g_assert_cmpint(c.radix, ==, 4);
    /* 200 ranks, 20000 B (line 173, below 131072 B): reduce binomial (line 769), bcast
     * basic_linear (line 611: 128..255 ranks, 16384..32767 B). */
    selected("ompi-4", "allreduce", 200, 20000, &c);
    g_assert_cmpstr(c.variant, ==, "binomial:linear");
    g_assert_cmpint(c.radix, ==, 0);
    /* 16 ranks, 100 B: binary (line 764), Open MPI's binary tree: reduce-bintree. */
    selected("ompi-4", "reduce", 16, 100, &c);
    g_assert_cmpstr(c.algorithm, ==, "binary");
    g_assert_cmpstr(c.generator, ==, "reduce-bintree");
    /* 300 ranks, 8192 B: in-order_binary (line 774: 256..511 ranks, 8192..16383 B), its
     * in-order binary tree: reduce-inorder-binary. */
    selected("ompi-4", "reduce", 300, 8192, &c);
    g_assert_cmpstr(c.algorithm, ==, "in-order_binary");
    g_assert_cmpstr(c.generator, ==, "reduce-inorder-binary");
    /* 4 ranks, 4096 B: chain (line 746: 4..7 ranks, 4096..65535 B) and 2 ranks, 16 B:
     * pipeline (line 732: below 4 ranks, 16..31 B), both with fan-out 0 (forced to 1) and no
     * segment: one chain, reduce-pipeline unsegmented. */
    selected("ompi-4", "reduce", 4, 4096, &c);
    g_assert_cmpstr(c.algorithm, ==, "chain");
    g_assert_cmpstr(c.generator, ==, "reduce-pipeline");
    g_assert_cmpint(fennel_library_generator_segment(&c), ==, 0);
    selected("ompi-4", "reduce", 2, 16, &c);
    g_assert_cmpstr(c.algorithm, ==, "pipeline");
    g_assert_cmpstr(c.generator, ==, "reduce-pipeline");
    /* 3072 ranks, 512 B: the allreduce's reduce is in-order_binary (line 784) and its bcast
     * knomial (line 633): allreduce-nonoverlapping with the in-order binary tree. */
    selected("ompi-4", "allreduce", 3072, 512, &c);
    g_assert_cmpstr(c.generator, ==, "allreduce-nonoverlapping");
    g_assert_cmpstr(c.variant, ==, "inorder-binary:knomial");
    g_assert_cmpint(c.radix, ==, 4);
    /* Open MPI 3.1's nonoverlapping calls 3.1's reduce and bcast: at 2500 ranks, 10000 B,
     * 0.6016 x 9.77 + 1.3496 = 7.2 < 2500: binomial in 1 KiB segments (line 396); the bcast
     * below 370728 B: split_binary_tree in 1 KiB segments (line 262). One segment size:
     * allreduce-nonoverlapping --variant binomial:split-bintree --segment 1024. */
    selected("ompi-3", "allreduce", 2500, 10000, &c);
    g_assert_cmpstr(c.generator, ==, "allreduce-nonoverlapping");
    g_assert_cmpstr(c.variant, ==, "binomial:split-bintree");
    g_assert_cmpint(fennel_library_generator_segment(&c), ==, 1024);
    g_assert_nonnull(strstr(c.why, "its reduce: binomial (coll_tuned_decision_fixed.c v3.1.6 "
                                   "line 396"));
    g_assert_nonnull(strstr(c.why, "its bcast: split_binary_tree (coll_tuned_decision_fixed.c "
                                   "v3.1.6 line 262"));
    /* 9996 B (2499 floats) is below 10000 B: recursive doubling. */
    g_assert_cmpstr(selected("ompi-3", "allreduce", 2500, 9996, &c), ==, "recursive_doubling");
    /* The bcast's boundary at 370728 B needs 92682 ranks for count <= comm size: at 100000
     * ranks, 370724 B is still split_binary_tree in 1 KiB segments; 370728 B is a pipeline,
     * and by the fitted lines (1.6134e-6 x 370728 + 2.1102 = 2.7, 2.3679e-6 x 370728 +
     * 1.1787 = 2.1, 3.2118e-6 x 370728 + 8.7936 = 10.0, all below 100000) of 8 KiB segments
     * (line 302), while the reduce keeps 1 KiB (0.6016 x 362.0 + 1.3496 = 219 < 100000):
     * two segment sizes, which allreduce-nonoverlapping does not take. */
    selected("ompi-3", "allreduce", 100000, 370724, &c);
    g_assert_cmpstr(c.variant, ==, "binomial:split-bintree");
    g_assert_cmpint(fennel_library_generator_segment(&c), ==, 1024);
    selected("ompi-3", "allreduce", 100000, 370728, &c);
    g_assert_cmpstr(c.algorithm, ==, "nonoverlapping");
    g_assert_null(c.generator);
    g_assert_nonnull(strstr(c.why, "its bcast: pipeline (coll_tuned_decision_fixed.c v3.1.6 "
                                   "line 302"));
    g_assert_nonnull(strstr(c.why, "cuts both parts into one segment size"));
    /* 256 ranks, 16384 B: split_binary_tree, unsegmented halves of 8192 B. */
    selected("ompi-4", "bcast", 256, 16384, &c);
    g_assert_cmpstr(c.algorithm, ==, "split_binary_tree");
    g_assert_cmpstr(c.generator, ==, "bcast-split-bintree");
}

/* Open MPI 3.1: coll_tuned_decision_fixed.c at v3.1.6. */
/* Open MPI 3.1's reduce (v3.1.6 lines 384-417, commutative), bytes of MPI_FLOAT:
 * linear for comm size < 8 below 512 B; binomial (unsegmented) for comm size < 8 below
 * 20480 B, or below 2048 B; then by the fitted lines p > a m + b (a = 0.6016, 0.0410,
 * 0.0422, 0.0033 per KiB; b = 1.3496, 9.7128, 1.1614, 1.6761): binomial in 1 KiB segments,
 * pipeline in 1 KiB segments, binary in 32 KiB segments, pipeline in 32 KiB segments, else
 * pipeline in 64 KiB segments. A segment not below the message is no segment. Each fitted
 * line is crossed at the m where p = a m + b, m = (p - b) x 1024 / a, worked out below. */
static void test_ompi3_reduce(void)
{
    FennelLibraryChoice c;
    g_assert_cmpstr(selected("ompi-3", "reduce", 7, 508, &c), ==, "linear");
    g_assert_cmpstr(c.generator, ==, "reduce-linear");
    g_assert_cmpstr(selected("ompi-3", "reduce", 7, 512, &c), ==, "binomial");
    g_assert_cmpstr(c.generator, ==, "reduce-binomial");
    g_assert_cmpstr(selected("ompi-3", "reduce", 8, 508, &c), ==, "binomial");
    g_assert_cmpstr(selected("ompi-3", "reduce", 7, 20476, &c), ==, "binomial");
    g_assert_cmpint(c.segment, ==, 0);
    /* 7 ranks, 20480 B: the lines give 13.38 and 10.53 (not below 7), then 0.0422 x 20 +
     * 1.1614 = 2.005 < 7: binary in 32 KiB segments, which holds the whole 20480 B. */
    g_assert_cmpstr(selected("ompi-3", "reduce", 7, 20480, &c), ==, "binary");
    g_assert_cmpint(c.segment, ==, 0);
    g_assert_cmpstr(c.generator, ==, "reduce-bintree");
    g_assert_nonnull(strstr(c.why, "v3.1.6 line 406"));
    /* 64 ranks: binomial below 2048 B; at 2048 B, 0.6016 x 2 + 1.3496 = 2.55 < 64: binomial
     * in 1 KiB segments, reduce-binomial --segment 1024. */
    g_assert_cmpstr(selected("ompi-3", "reduce", 64, 2044, &c), ==, "binomial");
    g_assert_cmpint(c.segment, ==, 0);
    g_assert_cmpstr(c.generator, ==, "reduce-binomial");
    g_assert_cmpint(fennel_library_generator_segment(&c), ==, 0);
    g_assert_cmpstr(selected("ompi-3", "reduce", 64, 2048, &c), ==, "binomial");
    g_assert_cmpint(c.segment, ==, 1024);
    g_assert_cmpstr(c.generator, ==, "reduce-binomial");
    g_assert_cmpint(fennel_library_generator_segment(&c), ==, 1024);
    char *line = fennel_library_describe("ompi-3", "reduce", 64, 2048, &c);
    g_assert_true(g_str_has_suffix(line, "-> fennel reduce-binomial --segment 1024"));
    g_free(line);
    /* 16 ranks, the first line: m = 14.6504 x 1024 / 0.6016 = 24936.4 B. 24932 B: 15.997 <
     * 16, binomial 1 KiB; 24940 B: 16.0017, and the second line 10.711 < 16: pipeline 1 KiB. */
    g_assert_cmpstr(selected("ompi-3", "reduce", 16, 24932, &c), ==, "binomial");
    g_assert_cmpint(c.segment, ==, 1024);
    g_assert_cmpstr(selected("ompi-3", "reduce", 16, 24940, &c), ==, "pipeline");
    g_assert_cmpint(c.segment, ==, 1024);
    g_assert_nonnull(strstr(c.why, "v3.1.6 line 401"));
    /* A pipeline of segments is reduce-pipeline with --segment the segment size. */
    g_assert_cmpstr(c.generator, ==, "reduce-pipeline");
    g_assert_cmpint(fennel_library_generator_segment(&c), ==, 1024);
    /* 16 ranks, the second line: m = 6.2872 x 1024 / 0.0410 = 157026.6 B. 157024 B:
     * 15.99989, pipeline 1 KiB; 157028 B: 16.00005, and the third line 7.63 < 16: binary in
     * 32 KiB segments, reduce-bintree --segment 32768. */
    g_assert_cmpstr(selected("ompi-3", "reduce", 16, 157024, &c), ==, "pipeline");
    g_assert_cmpstr(selected("ompi-3", "reduce", 16, 157028, &c), ==, "binary");
    g_assert_cmpint(c.segment, ==, 32768);
    g_assert_cmpstr(c.generator, ==, "reduce-bintree");
    g_assert_cmpint(fennel_library_generator_segment(&c), ==, 32768);
    /* 4 ranks, the third line: m = 2.8386 x 1024 / 0.0422 = 68879.9 B (the first two lines
     * are above 4 there). 68876 B: 3.99984, binary 32 KiB; 68880 B: 4.00001, and the fourth
     * line 1.898 < 4: pipeline in 32 KiB segments. */
    g_assert_cmpstr(selected("ompi-3", "reduce", 4, 68876, &c), ==, "binary");
    g_assert_cmpint(c.segment, ==, 32768);
    g_assert_cmpstr(selected("ompi-3", "reduce", 4, 68880, &c), ==, "pipeline");
    g_assert_cmpint(c.segment, ==, 32768);
    /* 2 ranks, the fourth line: m = 0.3239 x 1024 / 0.0033 = 100507.2 B. 100504 B: 1.99999,
     * pipeline 32 KiB; 100508 B: 2.000003: pipeline in 64 KiB segments. */
    g_assert_cmpstr(selected("ompi-3", "reduce", 2, 100504, &c), ==, "pipeline");
    g_assert_cmpint(c.segment, ==, 32768);
    g_assert_cmpstr(selected("ompi-3", "reduce", 2, 100508, &c), ==, "pipeline");
    g_assert_cmpint(c.segment, ==, 65536);
    g_assert_cmpstr(c.generator, ==, "reduce-pipeline");
}

/* Open MPI 3.1's allgather (v3.1.6 lines 525-569), on the block x comm size: 2 ranks
 * two_procs; below 50000 B recursive doubling on a power of two, bruck otherwise; from 50000
 * B ring on an odd comm size, neighbor exchange on an even one. */
/* Open MPI 3.1's reduce_scatter (v3.1.6 lines 490-498, the whole buffer: recursive halving
 * up to 12288 B, up to 262144 B on a power of two, or while comm size >= 0.0012 m + 8; else
 * ring), gather (lines 701-721, one rank's block: linear_sync in 32768 B first segments above
 * 92160 B, in 1024 B ones above 6000 B; binomial above 60 ranks or above 10 with a block
 * below 1024 B; basic_linear) and scatter (lines 761-767: binomial above 10 ranks with a
 * block below 300 B; basic_linear), at both sides of each boundary. */
static void test_ompi3_others(void)
{
    FennelLibraryChoice c;
    /* 12 ranks (not a power of two): 12288 B halving, 12292 B: 12 < 0.0012 x 12292 + 8 =
     * 22.8, ring. */
    g_assert_cmpstr(selected("ompi-3", "reduce_scatter", 12, 12288, &c), ==, "recursive_halving");
    g_assert_cmpstr(c.generator, ==, "reduce-scatter-halving");
    g_assert_cmpstr(selected("ompi-3", "reduce_scatter", 12, 12292, &c), ==, "ring");
    g_assert_cmpstr(c.generator, ==, "reduce-scatter-ring");
    /* 16 ranks: halving to 262144 B; at 262148 B 16 < 322.6: ring. */
    g_assert_cmpstr(selected("ompi-3", "reduce-scatter", 16, 262144, &c), ==, "recursive_halving");
    g_assert_cmpstr(selected("ompi-3", "reduce_scatter", 16, 262148, &c), ==, "ring");
    /* 1000 ranks: 0.0012 m + 8 <= 1000 up to m = 826666: 826664 B halving (999.9968),
     * 826668 B ring (1000.0016). */
    g_assert_cmpstr(selected("ompi-3", "reduce_scatter", 1000, 826664, &c), ==,
                    "recursive_halving");
    g_assert_cmpstr(selected("ompi-3", "reduce_scatter", 1000, 826668, &c), ==, "ring");
    /* Gather at 16 ranks: 1023 B binomial (> 10 ranks, < 1024 B), 1024 B and 6000 B
     * basic_linear, 6001 B and 92160 B linear_sync with first segments of 1 KiB, 92161 B of
     * 32 KiB: gather-linear-sync --segment. */
    g_assert_cmpstr(selected("ompi-3", "gather", 16, 1023, &c), ==, "binomial");
    g_assert_cmpstr(c.generator, ==, "gather-binomial");
    g_assert_cmpstr(selected("ompi-3", "gather", 16, 1024, &c), ==, "basic_linear");
    g_assert_cmpstr(c.generator, ==, "gather-linear");
    g_assert_cmpstr(selected("ompi-3", "gather", 16, 6000, &c), ==, "basic_linear");
    g_assert_cmpstr(selected("ompi-3", "gather", 16, 6001, &c), ==, "linear_sync");
    g_assert_cmpint(c.segment, ==, 1024);
    g_assert_cmpstr(c.generator, ==, "gather-linear-sync");
    char *sync = fennel_library_describe("ompi-3", "gather", 16, 6001, &c);
    g_assert_cmpstr(sync, ==,
                    "ompi-3 gather, 16 ranks, 6001 B: linear_sync, segment 1 KiB "
                    "(coll_tuned_decision_fixed.c v3.1.6 line 707: block 6001..92160 B: first "
                    "segments of 1024 B) -> fennel gather-linear-sync --segment 1024");
    g_free(sync);
    g_assert_cmpstr(selected("ompi-3", "gather", 16, 92160, &c), ==, "linear_sync");
    g_assert_cmpint(c.segment, ==, 1024);
    g_assert_cmpstr(selected("ompi-3", "gather", 16, 92161, &c), ==, "linear_sync");
    g_assert_cmpint(c.segment, ==, 32768);
    g_assert_cmpint(fennel_library_generator_segment(&c), ==, 32768);
    /* 10 and 11 ranks at 4 B; 60 and 61 ranks at 5000 B. */
    g_assert_cmpstr(selected("ompi-3", "gather", 10, 4, &c), ==, "basic_linear");
    g_assert_cmpstr(selected("ompi-3", "gather", 11, 4, &c), ==, "binomial");
    g_assert_cmpstr(selected("ompi-3", "gather", 60, 5000, &c), ==, "basic_linear");
    g_assert_cmpstr(selected("ompi-3", "gather", 61, 5000, &c), ==, "binomial");
    /* Scatter: 11 ranks 299 B binomial, 300 B basic_linear; 10 ranks 4 B basic_linear. */
    g_assert_cmpstr(selected("ompi-3", "scatter", 11, 299, &c), ==, "binomial");
    g_assert_cmpstr(c.generator, ==, "scatter-binomial");
    g_assert_cmpstr(selected("ompi-3", "scatter", 11, 300, &c), ==, "basic_linear");
    g_assert_cmpstr(c.generator, ==, "scatter-linear");
    g_assert_cmpstr(selected("ompi-3", "scatter", 10, 4, &c), ==, "basic_linear");
    selected("ompi-3", "scatter", 11, 299, &c);
    char *line = fennel_library_describe("ompi-3", "scatter", 11, 299, &c);
    g_assert_cmpstr(line, ==,
                    "ompi-3 scatter, 11 ranks, 299 B: binomial (coll_tuned_decision_fixed.c "
                    "v3.1.6 line 761: comm size > 10 and block < 300 B) -> fennel "
                    "scatter-binomial");
    g_free(line);
}

static void test_ompi3_allgather(void)
{
    FennelLibraryChoice c;
    g_assert_cmpstr(selected("ompi-3", "allgather", 2, 1 << 20, &c), ==, "two_proc");
    g_assert_cmpstr(c.generator, ==, "allgather-ring");
    /* 16 x 3124 = 49984, 16 x 3125 = 50000. */
    g_assert_cmpstr(selected("ompi-3", "allgather", 16, 3124, &c), ==, "recursive_doubling");
    g_assert_cmpstr(c.generator, ==, "allgather-rd");
    g_assert_cmpstr(selected("ompi-3", "allgather", 16, 3125, &c), ==, "neighbor");
    g_assert_cmpstr(c.generator, ==, "allgather-neighbor-exchange");
    /* 12 x 4166 = 49992, 12 x 4167 = 50004. */
    g_assert_cmpstr(selected("ompi-3", "allgather", 12, 4166, &c), ==, "bruck");
    g_assert_cmpstr(c.generator, ==, "allgather-bruck");
    g_assert_cmpstr(selected("ompi-3", "allgather", 12, 4167, &c), ==, "neighbor");
    /* 13 x 3846 = 49998, 13 x 3847 = 50011; 3 x 16666 = 49998, 3 x 16667 = 50001. */
    g_assert_cmpstr(selected("ompi-3", "allgather", 13, 3846, &c), ==, "bruck");
    g_assert_cmpstr(selected("ompi-3", "allgather", 13, 3847, &c), ==, "ring");
    g_assert_cmpstr(c.generator, ==, "allgather-ring");
    g_assert_cmpstr(selected("ompi-3", "allgather", 3, 16666, &c), ==, "bruck");
    g_assert_cmpstr(selected("ompi-3", "allgather", 3, 16667, &c), ==, "ring");
    g_assert_nonnull(strstr(c.why, "v3.1.6 line 561"));
}

static void test_ompi3(void)
{
    FennelLibraryChoice c;
    char *line;
    /* Allreduce, lines 52-84: recursive doubling below 10000 B; then, with count > comm
     * size (commutative), ring while comm size x 1 MiB >= message, else ring_segmented of
     * 1 MiB segments; else nonoverlapping. */
    g_assert_cmpstr(selected("ompi-3", "allreduce", 64, 9999, &c), ==, "recursive_doubling");
    g_assert_cmpstr(selected("ompi-3", "allreduce", 64, 10000, &c), ==, "ring");
    g_assert_cmpstr(selected("ompi-3", "allreduce", 64, (int64_t)64 << 20, &c), ==, "ring");
    g_assert_cmpstr(selected("ompi-3", "allreduce", 64, ((int64_t)64 << 20) + 4, &c), ==,
                    "segmented_ring");
    g_assert_cmpint(c.segment, ==, 1 << 20);
    g_assert_cmpstr(c.generator, ==, "allreduce-ring-segmented");
    g_assert_cmpint(fennel_library_generator_segment(&c), ==, 1 << 20);
    /* At 2 ranks, 3 MiB: comm size x 1 MiB < 3 MiB, segmented_ring, and 3 MiB is not
     * below 2 x 1 MiB (ompi_coll_base_allreduce_intra_ring_segmented's count < size x
     * segcount): segmented. At 2 ranks, 2 MiB the rule says ring. */
    g_assert_cmpstr(selected("ompi-3", "allreduce", 2, 3 << 20, &c), ==, "segmented_ring");
    g_assert_cmpstr(c.generator, ==, "allreduce-ring-segmented");
    g_assert_cmpstr(selected("ompi-3", "allreduce", 2, 2 << 20, &c), ==, "ring");
    /* 10000 B is 2500 floats: count > comm size holds at 2499 ranks, not at 2500. */
    g_assert_cmpstr(selected("ompi-3", "allreduce", 2499, 10000, &c), ==, "ring");
    g_assert_cmpstr(selected("ompi-3", "allreduce", 2500, 10000, &c), ==, "nonoverlapping");
    /* Bcast, lines 230-303. */
    g_assert_cmpstr(selected("ompi-3", "bcast", 64, 2047, &c), ==, "binomial");
    g_assert_cmpstr(c.generator, ==, "bcast-bmtree");
    g_assert_cmpstr(selected("ompi-3", "bcast", 64, 2048, &c), ==, "split_binary_tree");
    g_assert_cmpint(c.segment, ==, 1024);
    g_assert_cmpstr(selected("ompi-3", "bcast", 64, 370727, &c), ==, "split_binary_tree");
    g_assert_cmpint(c.segment, ==, 1024);
    /* 2 ranks, 370728 B: 2 < 1.6134e-6 x 370728 + 2.1102 = 2.708: pipeline, 128 KiB. */
    g_assert_cmpstr(selected("ompi-3", "bcast", 2, 370728, &c), ==, "pipeline");
    g_assert_cmpint(c.segment, ==, 128 << 10);
    /* The pipeline of segments is bcast-pipeline with --segment the segment size; one that
     * holds the whole buffer is no segment, the chain of bcast-ring (2 ranks, 128 KiB
     * segments of 131072 B: 370728 B is 3 of them). */
    g_assert_cmpstr(c.generator, ==, "bcast-pipeline");
    g_assert_cmpint(fennel_library_generator_segment(&c), ==, 128 << 10);
    line = fennel_library_describe("ompi-3", "bcast", 2, 370728, &c);
    g_assert_true(g_str_has_suffix(line, "-> fennel bcast-pipeline --segment 131072"));
    g_free(line);
    /* A split binary tree of segments is bcast-split-bintree with --segment (64 ranks,
     * 2048 B: halves of 1024 B, one segment each). */
    selected("ompi-3", "bcast", 64, 2048, &c);
    g_assert_cmpstr(c.generator, ==, "bcast-split-bintree");
    g_assert_cmpint(fennel_library_generator_segment(&c), ==, 1024);
    /* 370727 B: halves of 185364 and 185363 B in 1 KiB segments. */
    selected("ompi-3", "bcast", 64, 370727, &c);
    g_assert_cmpstr(c.generator, ==, "bcast-split-bintree");
    line = fennel_library_describe("ompi-3", "bcast", 64, 370727, &c);
    g_assert_true(g_str_has_suffix(line, "-> fennel bcast-split-bintree --segment 1024"));
    g_free(line);
    /* 4 ranks: 4 < 1.6134e-6 m + 2.1102 first holds at m = 1171316 ((4 - 2.1102) /
     * 1.6134e-6 = 1171315.2); below it, comm size < 13: split binary tree of 8 KiB. */
    g_assert_cmpstr(selected("ompi-3", "bcast", 4, 1171315, &c), ==, "split_binary_tree");
    g_assert_cmpint(c.segment, ==, 8 << 10);
    g_assert_cmpstr(selected("ompi-3", "bcast", 4, 1171316, &c), ==, "pipeline");
    g_assert_cmpint(c.segment, ==, 128 << 10);
    /* 12 and 13 ranks at 1 MiB: 1.6134e-6 x 1048576 + 2.1102 = 3.80 < 12: split binary tree
     * at 12; at 13, 2.3679e-6 x 1048576 + 1.1787 = 3.66 and 3.2118e-6 x 1048576 + 8.7936 =
     * 12.16, both < 13: pipeline of 8 KiB. */
    g_assert_cmpstr(selected("ompi-3", "bcast", 12, 1 << 20, &c), ==, "split_binary_tree");
    g_assert_cmpstr(selected("ompi-3", "bcast", 13, 1 << 20, &c), ==, "pipeline");
    g_assert_cmpint(c.segment, ==, 8 << 10);
    /* 13 ranks: 13 < 3.2118e-6 m + 8.7936 from m = 1309671 ((13 - 8.7936) / 3.2118e-6 =
     * 1309670.6): 16 KiB; 13 < 2.3679e-6 m + 1.1787 from m = 4992314 ((13 - 1.1787) /
     * 2.3679e-6 = 4992313.9): 64 KiB. */
    selected("ompi-3", "bcast", 13, 1309670, &c);
    g_assert_cmpint(c.segment, ==, 8 << 10);
    selected("ompi-3", "bcast", 13, 1309671, &c);
    g_assert_cmpint(c.segment, ==, 16 << 10);
    selected("ompi-3", "bcast", 13, 4992313, &c);
    g_assert_cmpint(c.segment, ==, 16 << 10);
    selected("ompi-3", "bcast", 13, 4992314, &c);
    g_assert_cmpint(c.segment, ==, 64 << 10);
    g_assert_cmpstr(c.generator, ==, "bcast-pipeline");
}

/* The choice under a layout of ppn ranks per node (0: not given). */
static const char *selected_on(const char *lib, const char *coll, uint32_t ranks, uint32_t ppn,
                               int64_t bytes, FennelLibraryChoice *c)
{
    GError *error = NULL;
    g_assert_true(fennel_library_choose_on(lib, coll, ranks, ppn, bytes, c, &error));
    g_assert_no_error(error);
    return c->algorithm;
}

/* MPICH 3.3: the MPIR_*_intra_auto functions of src/mpi/coll/ at v3.3.2 and the CVAR
 * defaults at the top of each file, read by hand. */
/* Open MPI 3.1's alltoall (coll_tuned_decision_fixed.c v3.1.6 lines 112-137, one rank's
 * block for one other rank): two_procs at 2 ranks; bruck below coll_tuned_alltoall_small_msg
 * above 12 ranks; basic_linear below coll_tuned_alltoall_intermediate_msg; pairwise. The
 * MCA parameters' defaults are 200 and 3000 B (coll_tuned_component.c v3.1.6 lines 57-58).
 * Open MPI 4.0.2's linear_sync branch needs a block below alltoall_large_msg (default 3000)
 * on at most alltoall_min_procs ranks (default 0) after basic_linear took every block below
 * 3000: never at the defaults. Both sides of each boundary. */
static void test_ompi3_alltoall(void)
{
    FennelLibraryChoice c;
    g_assert_true(fennel_library_covers("ompi-3", "alltoall"));
    g_assert_cmpstr(selected("ompi-3", "alltoall", 2, 4, &c), ==, "two_proc");
    g_assert_cmpstr(c.generator, ==, "alltoall-pairwise");
    g_assert_nonnull(strstr(c.why, "coll_tuned_decision_fixed.c v3.1.6 line 112: comm size 2"));
    g_assert_cmpstr(selected("ompi-3", "alltoall", 2, 1 << 20, &c), ==, "two_proc");
    g_assert_cmpstr(selected("ompi-3", "alltoall", 3, 4, &c), ==, "basic_linear");
    g_assert_cmpstr(c.generator, ==, "alltoall-linear");
    /* 12 and 13 ranks at 199 B; 13 ranks at 199 and 200 B. */
    g_assert_cmpstr(selected("ompi-3", "alltoall", 12, 199, &c), ==, "basic_linear");
    g_assert_cmpstr(selected("ompi-3", "alltoall", 13, 199, &c), ==, "bruck");
    g_assert_cmpstr(c.generator, ==, "alltoall-bruck");
    g_assert_cmpstr(selected("ompi-3", "alltoall", 13, 200, &c), ==, "basic_linear");
    char *line = fennel_library_describe("ompi-3", "alltoall", 13, 200, &c);
    g_assert_cmpstr(line, ==,
                    "ompi-3 alltoall, 13 ranks, 200 B: basic_linear (coll_tuned_decision_fixed.c "
                    "v3.1.6 line 131: block < coll_tuned_alltoall_intermediate_msg (default 3000 "
                    "B), not (block < 200 B and comm size > 12)) -> fennel alltoall-linear");
    g_free(line);
    /* 2999 and 3000 B, at 13 and at 4 ranks (4.0's linear_sync would need comm size <= 0). */
    g_assert_cmpstr(selected("ompi-3", "alltoall", 13, 2999, &c), ==, "basic_linear");
    g_assert_cmpstr(selected("ompi-3", "alltoall", 13, 3000, &c), ==, "pairwise");
    g_assert_cmpstr(c.generator, ==, "alltoall-pairwise");
    g_assert_nonnull(strstr(c.why, "v3.1.6 line 137"));
    g_assert_cmpstr(selected("ompi-3", "alltoall", 4, 2999, &c), ==, "basic_linear");
    g_assert_cmpstr(selected("ompi-3", "alltoall", 4, 3000, &c), ==, "pairwise");
}

/* Open MPI 1.6 (coll_tuned_decision_fixed.c v1.6.5): alltoall (lines 107-131, one rank's
 * block: two_procs at 2 ranks, bruck below 200 B above 12 ranks, basic_linear below 3000 B,
 * pairwise) and reduce_scatter's zero counts (line 483: nonoverlapping when some rank
 * receives 0 elements, i.e. count < comm size), at both sides of each boundary; elsewhere
 * 3.1's decisions. */
static void test_ompi16(void)
{
    FennelLibraryChoice c;
    GError *error = NULL;
    /* 2 ranks: two_procs at any block; 3 ranks at 4 B: basic_linear (not above 12). */
    g_assert_cmpstr(selected("ompi-1.6", "alltoall", 2, 4, &c), ==, "two_proc");
    g_assert_cmpstr(c.generator, ==, "alltoall-pairwise");
    g_assert_cmpstr(selected("ompi-1.6", "alltoall", 2, 1 << 20, &c), ==, "two_proc");
    g_assert_cmpstr(selected("ompi-1.6", "alltoall", 3, 4, &c), ==, "basic_linear");
    g_assert_cmpstr(c.generator, ==, "alltoall-linear");
    /* 12 and 13 ranks at 199 B; 13 ranks at 199 and 200 B. */
    g_assert_cmpstr(selected("ompi-1.6", "alltoall", 12, 199, &c), ==, "basic_linear");
    g_assert_cmpstr(selected("ompi-1.6", "alltoall", 13, 199, &c), ==, "bruck");
    g_assert_cmpstr(c.generator, ==, "alltoall-bruck");
    g_assert_nonnull(strstr(c.why, "coll_tuned_decision_fixed.c v1.6.5 line 120"));
    g_assert_cmpstr(selected("ompi-1.6", "alltoall", 13, 200, &c), ==, "basic_linear");
    /* 2999 and 3000 B, at 13 and at 4 ranks. */
    g_assert_cmpstr(selected("ompi-1.6", "alltoall", 13, 2999, &c), ==, "basic_linear");
    g_assert_cmpstr(selected("ompi-1.6", "alltoall", 13, 3000, &c), ==, "pairwise");
    g_assert_cmpstr(c.generator, ==, "alltoall-pairwise");
    g_assert_cmpstr(selected("ompi-1.6", "alltoall", 4, 2999, &c), ==, "basic_linear");
    g_assert_cmpstr(selected("ompi-1.6", "alltoall", 4, 3000, &c), ==, "pairwise");
    /* reduce_scatter at 2 ranks: 4 B is 1 float, so one rank gets none: nonoverlapping
     * (3.1: recursive halving, 4 B <= 12288 B), a reduce to 0 by 3.1's decision (2 ranks < 8,
     * 4 B < 512 B: linear, v3.1.6 line 386) and coll/basic's scatterv; 8 B is 2 floats, one
     * each: recursive halving as 3.1. At 16 ranks: 60 B (15 floats; its reduce: 60 B < 2048
     * B, binomial, line 391) and 64 B (16). */
    g_assert_cmpstr(selected("ompi-1.6", "reduce_scatter", 2, 4, &c), ==, "nonoverlapping");
    g_assert_cmpstr(c.generator, ==, "reduce-scatter-nonoverlapping");
    g_assert_cmpstr(c.variant, ==, "linear");
    char *line = fennel_library_describe("ompi-1.6", "reduce_scatter", 2, 4, &c);
    g_assert_cmpstr(line, ==,
                    "ompi-1.6 reduce_scatter, 2 ranks, 4 B: nonoverlapping "
                    "(coll_tuned_decision_fixed.c v1.6.5 line 483: a receive count of 0 (count "
                    "1 < comm size 2, the elements split as evenly as they go); its reduce: "
                    "linear (coll_tuned_decision_fixed.c v3.1.6 line 386: comm size < 8, message "
                    "< 512 B; v1.6.5 decides alike); its scatterv: coll/basic's linear (none to "
                    "an empty part)) -> fennel reduce-scatter-nonoverlapping --variant linear");
    g_free(line);
    g_assert_cmpstr(selected("ompi-3", "reduce_scatter", 2, 4, &c), ==, "recursive_halving");
    g_assert_cmpstr(selected("ompi-1.6", "reduce_scatter", 2, 8, &c), ==, "recursive_halving");
    g_assert_cmpstr(c.generator, ==, "reduce-scatter-halving");
    g_assert_cmpstr(selected("ompi-1.6", "reduce-scatter", 16, 60, &c), ==, "nonoverlapping");
    g_assert_cmpstr(c.generator, ==, "reduce-scatter-nonoverlapping");
    g_assert_cmpstr(c.variant, ==, "binomial");
    g_assert_cmpstr(selected("ompi-1.6", "reduce_scatter", 16, 64, &c), ==, "recursive_halving");
    /* The reduce's own boundaries inside nonoverlapping (count < comm size): 7 ranks at 24
     * B (6 floats) linear (< 8 ranks, < 512 B), 8 ranks at 28 B (7 floats) binomial; 512
     * ranks at 2044 B (511 floats) the unsegmented binomial (< 2048 B, line 391), 513 ranks
     * at 2048 B (512 floats) binomial in 1 KiB segments (line 396): refused. */
    selected("ompi-1.6", "reduce_scatter", 7, 24, &c);
    g_assert_cmpstr(c.variant, ==, "linear");
    selected("ompi-1.6", "reduce_scatter", 8, 28, &c);
    g_assert_cmpstr(c.variant, ==, "binomial");
    selected("ompi-1.6", "reduce_scatter", 512, 2044, &c);
    g_assert_cmpstr(c.generator, ==, "reduce-scatter-nonoverlapping");
    g_assert_cmpstr(c.variant, ==, "binomial");
    g_assert_cmpstr(selected("ompi-1.6", "reduce_scatter", 513, 2048, &c), ==, "nonoverlapping");
    g_assert_null(c.generator);
    /* 1000 ranks, 2048 B (512 floats): its reduce is 3.1's binomial in 1 KiB segments (line
     * 396: 1000 > 0.6016 x 2 + 1.3496), which the generator does not cut: refused, named. */
    g_assert_cmpstr(selected("ompi-1.6", "reduce_scatter", 1000, 2048, &c), ==, "nonoverlapping");
    g_assert_null(c.generator);
    g_assert_nonnull(strstr(c.why, "its reduce: binomial in 1024 B segments"));
    g_assert_null(fennel_library_generator("ompi-1.6", "reduce_scatter", &c, &error));
    g_assert_cmpstr(error->message, ==,
                    "ompi-1.6 reduce_scatter runs nonoverlapping, which no generator of fennel "
                    "performs yet");
    g_clear_error(&error);
    /* Open MPI 4.1's non-overlapping (4..7 ranks below 8 B, v4.1.6 line 866): its reduce
     * by 4.1's table (4..7 ranks below 4096 B: binary, line 744); 8 B recursive halving
     * (line 868). Open MPI 5.0 alike on one node; across nodes its reduce is coll/han's. */
    g_assert_cmpstr(selected("ompi-4", "reduce_scatter", 4, 4, &c), ==, "non-overlapping");
    g_assert_cmpstr(c.generator, ==, "reduce-scatter-nonoverlapping");
    g_assert_cmpstr(c.variant, ==, "binary");
    g_assert_nonnull(
        strstr(c.why, "its reduce: binary (coll_tuned_decision_fixed.c v4.1.6 line 744"));
    g_assert_cmpstr(selected("ompi-4", "reduce_scatter", 4, 8, &c), ==, "recursive_halving");
    g_assert_true(fennel_library_choose_on("ompi-5", "reduce_scatter", 4, 4, 4, &c, &error));
    g_assert_cmpstr(c.generator, ==, "reduce-scatter-nonoverlapping");
    g_assert_true(fennel_library_choose_on("ompi-5", "reduce_scatter", 4, 2, 4, &c, &error));
    g_assert_cmpstr(c.algorithm, ==, "non-overlapping");
    g_assert_null(c.generator);
    /* Above the zero counts 3.1's boundaries hold: 12 ranks, 12288 B halving, 12292 B ring. */
    g_assert_cmpstr(selected("ompi-1.6", "reduce_scatter", 12, 12288, &c), ==, "recursive_halving");
    g_assert_cmpstr(selected("ompi-1.6", "reduce_scatter", 12, 12292, &c), ==, "ring");
    g_assert_nonnull(strstr(c.why, "v1.6.5 decides alike"));
    /* The rest is 3.1's: the same algorithm, segment and generator at each side of 3.1's
     * boundaries (allreduce 9996/10000 B; bcast 2044/2048 and 370724/370728 B; reduce 508/512
     * B at 7 ranks; allgather 49996/50000 B in all at 4 ranks; gather 1023/1024 B and scatter
     * 299/300 B at 16 ranks). */
    const struct {
        const char *coll;
        uint32_t ranks;
        int64_t bytes;
    } same[] = {{"allreduce", 2500, 9996},     {"allreduce", 2500, 10000}, {"allreduce", 2, 4},
                {"bcast", 16, 2044},           {"bcast", 16, 2048},        {"bcast", 100, 370724},
                {"bcast", 100, 370728},        {"reduce", 7, 508},         {"reduce", 7, 512},
                {"allgather", 4, 12499},       {"allgather", 4, 12500},    {"gather", 16, 1023},
                {"gather", 16, 1024},          {"scatter", 16, 299},       {"scatter", 16, 300},
                {"reduce_scatter", 16, 262148}};
    for (size_t i = 0; i < G_N_ELEMENTS(same); i++) {
        FennelLibraryChoice o;
        selected("ompi-3", same[i].coll, same[i].ranks, same[i].bytes, &o);
        selected("ompi-1.6", same[i].coll, same[i].ranks, same[i].bytes, &c);
        g_assert_cmpstr(c.algorithm, ==, o.algorithm);
        g_assert_cmpint(c.segment, ==, o.segment);
        g_assert_cmpstr(c.generator, ==, o.generator);
        g_assert_cmpstr(c.variant, ==, o.variant);
        char *why = g_strconcat(o.why, "; v1.6.5 decides alike", NULL);
        g_assert_cmpstr(c.why, ==, why);
        g_free(why);
    }
    const char *colls[] = {"allreduce", "bcast",          "reduce", "allgather",
                           "alltoall",  "reduce_scatter", "gather", "scatter"};
    for (size_t i = 0; i < G_N_ELEMENTS(colls); i++)
        g_assert_true(fennel_library_covers("ompi-1.6", colls[i]));
}

static void test_mpich3(void)
{
    FennelLibraryChoice c;
    /* allreduce.c: nbytes = MPIR_CVAR_MAX_SMP_ALLREDUCE_MSG_SIZE (0) ? size : 0 = 0, and
     * 0 <= MPIR_CVAR_ALLREDUCE_SHORT_MSG_SIZE (2048): recursive doubling at any size. */
    g_assert_cmpstr(selected("mpich-3", "allreduce", 64, 4, &c), ==, "recursive_doubling");
    g_assert_cmpstr(selected("mpich-3", "allreduce", 64, (int64_t)1 << 26, &c), ==,
                    "recursive_doubling");
    g_assert_cmpstr(c.generator, ==, "allreduce-rd");
    /* bcast.c: below MPIR_CVAR_BCAST_SHORT_MSG_SIZE 12288 B or below MIN_PROCS 8 ranks:
     * binomial; below LONG_MSG_SIZE 524288 B with a power-of-two comm size: scatter +
     * recursive doubling allgather; otherwise scatter + ring allgather. */
    g_assert_cmpstr(selected("mpich-3", "bcast", 64, 12287, &c), ==, "binomial");
    g_assert_cmpstr(c.generator, ==, "bcast-binomial");
    g_assert_cmpstr(selected("mpich-3", "bcast", 64, 12288, &c), ==,
                    "scatter_recursive_doubling_allgather");
    g_assert_cmpstr(c.generator, ==, "bcast-scatter-rd-allgather");
    g_assert_cmpstr(selected("mpich-3", "bcast", 7, 1 << 20, &c), ==, "binomial");
    g_assert_cmpstr(selected("mpich-3", "bcast", 8, 524287, &c), ==,
                    "scatter_recursive_doubling_allgather");
    g_assert_cmpstr(selected("mpich-3", "bcast", 8, 524288, &c), ==, "scatter_ring_allgather");
    g_assert_cmpstr(c.generator, ==, "bcast-scatter-allgather");
    g_assert_cmpstr(selected("mpich-3", "bcast", 9, 12288, &c), ==, "scatter_ring_allgather");
    /* reduce.c: above MPIR_CVAR_REDUCE_SHORT_MSG_SIZE 2048 B with count >= the power of two
     * not above the ranks: reduce_scatter_gather; otherwise binomial. 2052 B is 513 floats. */
    g_assert_cmpstr(selected("mpich-3", "reduce", 64, 2048, &c), ==, "binomial");
    g_assert_cmpstr(c.generator, ==, "reduce-binomial");
    g_assert_cmpstr(selected("mpich-3", "reduce", 64, 2052, &c), ==, "reduce_scatter_gather");
    g_assert_cmpstr(c.generator, ==, "reduce-rabenseifner");
    g_assert_cmpstr(selected("mpich-3", "reduce", 513, 2052, &c), ==, "reduce_scatter_gather");
    g_assert_cmpstr(selected("mpich-3", "reduce", 1024, 4092, &c), ==, "binomial");
    g_assert_cmpstr(selected("mpich-3", "reduce", 1024, 4096, &c), ==, "reduce_scatter_gather");

    /* Ranks sharing nodes (the communicator is node-aware): the SMP algorithms
     * (allreduce.c line 165, bcast_intra_smp.c, reduce_intra_smp.c). */
    g_assert_cmpstr(selected_on("mpich-3", "allreduce", 64, 8, 1 << 20, &c), ==, "smp");
    g_assert_cmpstr(c.generator, ==, "allreduce-smp");
    g_assert_null(c.variant);
    /* bcast: below 12288 B or 8 ranks, binomial among the leaders; from 12288 B below
     * 524288 B on a power of two, MPIR's choice among the N leaders: 8 nodes at 12288 B is
     * no longer "< 12288": scatter + recursive doubling (N = 8, a power of two); 4 nodes
     * (< 8): binomial; from 524288 B, scatter + ring allgather over all ranks. */
    g_assert_cmpstr(selected_on("mpich-3", "bcast", 64, 8, 12287, &c), ==, "smp");
    g_assert_null(c.variant);
    g_assert_cmpstr(selected_on("mpich-3", "bcast", 64, 8, 12288, &c), ==, "smp");
    g_assert_cmpstr(c.variant, ==, "scatter-rd-allgather");
    g_assert_cmpstr(selected_on("mpich-3", "bcast", 32, 8, 12288, &c), ==, "smp");
    g_assert_null(c.variant);
    g_assert_cmpstr(selected_on("mpich-3", "bcast", 64, 8, 524288, &c), ==,
                    "scatter_ring_allgather");
    g_assert_cmpstr(c.generator, ==, "bcast-scatter-allgather");
    /* reduce: the root's node last; binomial among 4 leaders up to 2048 B, Rabenseifner
     * among them above (513 floats >= 4), whose order no generator has. */
    g_assert_cmpstr(selected_on("mpich-3", "reduce", 16, 4, 2048, &c), ==, "smp");
    g_assert_cmpstr(c.generator, ==, "reduce-smp");
    g_assert_cmpstr(c.variant, ==, "root-last");
    g_assert_cmpstr(selected_on("mpich-3", "reduce", 16, 4, 2052, &c), ==, "smp");
    g_assert_null(c.generator);
}

/* MPICH 4 (v4.1 to v4.3.2): the decision trees of maint/tuning/coll/ch4/generic.json
 * (compositions) and maint/tuning/coll/mpir/generic.json (algorithms), read by hand; a
 * float is 4 B, so count = bytes / 4, and "count<pow2" compares it with the largest power
 * of two not above the ranks. */
static void test_mpich4(void)
{
    FennelLibraryChoice c;
    /* One rank per node (no hierarchy): ch4 composition beta, MPIR's allreduce: up to 8 B
     * recursive doubling; then count < pow2 recursive doubling; else Rabenseifner. 64 ranks:
     * pow2 64, so 252 B (63 floats) is recursive doubling and 256 B (64) Rabenseifner. */
    g_assert_cmpstr(selected("mpich-4", "allreduce", 64, 8, &c), ==, "recursive_doubling");
    g_assert_cmpstr(c.generator, ==, "allreduce-rd");
    g_assert_cmpstr(selected("mpich-4", "allreduce", 64, 252, &c), ==, "recursive_doubling");
    g_assert_cmpstr(selected("mpich-4", "allreduce", 64, 256, &c), ==, "reduce_scatter_allgather");
    g_assert_cmpstr(c.generator, ==, "allreduce-rabenseifner");
    /* 2 ranks: pow2 2; 12 B is 3 floats, above 8 B: Rabenseifner (MPICH 3.3 ran
     * recursive doubling at every size). */
    g_assert_cmpstr(selected("mpich-4", "allreduce", 2, 12, &c), ==, "reduce_scatter_allgather");
    /* Ranks sharing nodes: composition alpha, MPIR's allreduce among the N leaders: 8 nodes
     * of 8, pow2 8: 28 B (7 floats) recursive doubling among them, allreduce-smp; 32 B (8
     * floats) Rabenseifner among them, allreduce-smp --variant rabenseifner. */
    g_assert_cmpstr(selected_on("mpich-4", "allreduce", 64, 8, 28, &c), ==, "composition_alpha");
    g_assert_cmpstr(c.generator, ==, "allreduce-smp");
    g_assert_null(c.variant);
    g_assert_cmpstr(selected_on("mpich-4", "allreduce", 64, 8, 32, &c), ==, "composition_alpha");
    g_assert_cmpstr(c.generator, ==, "allreduce-smp");
    g_assert_cmpstr(c.variant, ==, "rabenseifner");
    /* Every rank on one node: composition gamma, the shared memory's own allreduce. */
    g_assert_cmpstr(selected_on("mpich-4", "allreduce", 8, 8, 1 << 20, &c), ==,
                    "composition_gamma");
    g_assert_cmpstr(c.generator, ==, "allreduce-smp");

    /* bcast, one rank per node: MPIR's tree: below 8 ranks binomial at any size; up to
     * 12288 B binomial (the "<=" of mpir.json, where MPICH 3.3 had "<"); on a power of two
     * up to 524288 B scatter + recursive doubling allgather; else scatter + ring. */
    g_assert_cmpstr(selected("mpich-4", "bcast", 7, 1 << 20, &c), ==, "binomial");
    g_assert_cmpstr(selected("mpich-4", "bcast", 8, 12288, &c), ==, "binomial");
    g_assert_cmpstr(selected("mpich-4", "bcast", 8, 12289, &c), ==,
                    "scatter_recursive_doubling_allgather");
    g_assert_cmpstr(c.generator, ==, "bcast-scatter-rd-allgather");
    g_assert_cmpstr(selected("mpich-4", "bcast", 8, 524288, &c), ==,
                    "scatter_recursive_doubling_allgather");
    g_assert_cmpstr(selected("mpich-4", "bcast", 8, 524289, &c), ==, "scatter_ring_allgather");
    g_assert_cmpstr(selected("mpich-4", "bcast", 9, 12289, &c), ==, "scatter_ring_allgather");
    g_assert_cmpstr(c.generator, ==, "bcast-scatter-allgather");
    /* Sharing nodes, 64 ranks of 8 per node: alpha below 12288 B (binomial among the
     * leaders: bcast-smp); beta from 12288 to 524287 B, whose leaders (8 of them, a power
     * of two) run binomial up to 12288 B and scatter + recursive doubling above; gamma
     * (flat) from 524288 B, where MPIR's tree still says scatter + recursive doubling up to
     * 524288 B. */
    g_assert_cmpstr(selected_on("mpich-4", "bcast", 64, 8, 12287, &c), ==, "composition_alpha");
    g_assert_cmpstr(c.generator, ==, "bcast-smp");
    g_assert_cmpstr(selected_on("mpich-4", "bcast", 64, 8, 12288, &c), ==, "composition_beta");
    g_assert_cmpstr(c.generator, ==, "bcast-smp");
    g_assert_null(c.variant);
    g_assert_cmpstr(selected_on("mpich-4", "bcast", 64, 8, 12289, &c), ==, "composition_beta");
    g_assert_cmpstr(c.generator, ==, "bcast-smp");
    g_assert_cmpstr(c.variant, ==, "scatter-rd-allgather");
    /* 96 ranks of 8 per node is no power of two: alpha below 12288 B, then gamma, MPIR's
     * over all 96, whose "<= 12288" still gives binomial at 12288 B and scatter + ring
     * allgather above. */
    g_assert_cmpstr(selected_on("mpich-4", "bcast", 96, 8, 12288, &c), ==, "binomial");
    g_assert_cmpstr(c.generator, ==, "bcast-binomial");
    g_assert_cmpstr(selected_on("mpich-4", "bcast", 96, 8, 12289, &c), ==,
                    "scatter_ring_allgather");
    g_assert_cmpstr(c.generator, ==, "bcast-scatter-allgather");
    g_assert_cmpstr(selected_on("mpich-4", "bcast", 64, 8, 524288, &c), ==,
                    "scatter_recursive_doubling_allgather");
    g_assert_cmpstr(selected_on("mpich-4", "bcast", 64, 8, 524289, &c), ==,
                    "scatter_ring_allgather");
    /* Fewer than 8 ranks sharing nodes: alpha at any size (2 nodes of 3). */
    g_assert_cmpstr(selected_on("mpich-4", "bcast", 6, 3, 1 << 20, &c), ==, "composition_alpha");
    g_assert_cmpstr(c.generator, ==, "bcast-smp");

    /* reduce, one rank per node: binomial up to 2048 B or below pow2 in floats, else
     * reduce_scatter_gather. 1024 ranks: 4092 B is 1023 floats. */
    g_assert_cmpstr(selected("mpich-4", "reduce", 64, 2048, &c), ==, "binomial");
    g_assert_cmpstr(selected("mpich-4", "reduce", 64, 2052, &c), ==, "reduce_scatter_gather");
    g_assert_cmpstr(c.generator, ==, "reduce-rabenseifner");
    g_assert_cmpstr(selected("mpich-4", "reduce", 1024, 4092, &c), ==, "binomial");
    /* Sharing nodes: beta up to 2048 B (the root's node reduces last: reduce-smp --variant
     * root-last); alpha above, with the leaders' MPIR reduce: 4 nodes (pow2 4), 2052 B = 513
     * floats >= 4: reduce_scatter_gather among them (--variant rabenseifner); 1024 nodes of 2
     * at 2052 B: 513 < 1024, binomial among them: reduce-smp's default. */
    g_assert_cmpstr(selected_on("mpich-4", "reduce", 16, 4, 2048, &c), ==, "composition_beta");
    g_assert_cmpstr(c.generator, ==, "reduce-smp");
    g_assert_cmpstr(c.variant, ==, "root-last");
    g_assert_cmpstr(selected_on("mpich-4", "reduce", 16, 4, 2052, &c), ==, "composition_alpha");
    g_assert_cmpstr(c.variant, ==, "rabenseifner");
    g_assert_cmpstr(selected_on("mpich-4", "reduce", 2048, 2, 2052, &c), ==, "composition_alpha");
    g_assert_cmpstr(c.generator, ==, "reduce-smp");
    g_assert_null(c.variant);

    /* allgather (one rank's block; total = block x ranks): power of two below 524288 B
     * recursive doubling, else ring; otherwise below 81920 B Bruck, else ring. */
    g_assert_cmpstr(selected("mpich-4", "allgather", 16, 32767, &c), ==, "recursive_doubling");
    g_assert_cmpstr(c.generator, ==, "allgather-rd");
    g_assert_cmpstr(selected("mpich-4", "allgather", 16, 32768, &c), ==, "ring");
    g_assert_cmpstr(c.generator, ==, "allgather-ring");
    g_assert_cmpstr(selected("mpich-4", "allgather", 10, 8191, &c), ==, "brucks");
    g_assert_cmpstr(c.generator, ==, "allgather-bruck");
    g_assert_cmpstr(selected("mpich-4", "allgather", 10, 8192, &c), ==, "ring");
    /* alltoall (one block for one peer): 8 ranks or more up to 256 B Bruck; up to 32768 B
     * scattered; above, pairwise; below 8 ranks no Bruck. */
    g_assert_cmpstr(selected("mpich-4", "alltoall", 8, 256, &c), ==, "brucks");
    g_assert_cmpstr(c.generator, ==, "alltoall-bruck");
    g_assert_cmpstr(selected("mpich-4", "alltoall", 7, 256, &c), ==, "scattered");
    g_assert_cmpstr(c.generator, ==, "alltoall-scattered");
    g_assert_cmpstr(selected("mpich-4", "alltoall", 8, 32768, &c), ==, "scattered");
    /* Scattered waits for each batch of 32 offsets, at any rank count: the one generator. */
    g_assert_cmpstr(selected("mpich-4", "alltoall", 32, 1024, &c), ==, "scattered");
    g_assert_cmpstr(c.generator, ==, "alltoall-scattered");
    g_assert_cmpstr(selected("mpich-4", "alltoall", 33, 1024, &c), ==, "scattered");
    g_assert_cmpstr(c.generator, ==, "alltoall-scattered");
    g_assert_cmpstr(selected("mpich-4", "alltoall", 8, 32769, &c), ==, "pairwise");
    g_assert_cmpstr(c.generator, ==, "alltoall-pairwise");
    /* reduce_scatter (the whole buffer): below 524288 B recursive halving, else pairwise. */
    g_assert_cmpstr(selected("mpich-4", "reduce-scatter", 16, 524287, &c), ==, "recursive_halving");
    g_assert_cmpstr(c.generator, ==, "reduce-scatter-halving");
    g_assert_cmpstr(selected("mpich-4", "reduce_scatter", 16, 524288, &c), ==, "pairwise");
    g_assert_cmpstr(c.generator, ==, "reduce-scatter-pairwise");
    /* gather and scatter: binomial always, also when ranks share nodes. */
    g_assert_cmpstr(selected_on("mpich-4", "gather", 16, 4, 1 << 20, &c), ==, "binomial");
    g_assert_cmpstr(c.generator, ==, "gather-binomial");
    g_assert_cmpstr(selected("mpich-4", "scatter", 16, 1, &c), ==, "binomial");
    g_assert_cmpstr(c.generator, ==, "scatter-binomial");
    g_assert_false(fennel_library_covers("mpich-4", "barrier"));
}

static void test_errors(void)
{
    FennelLibraryChoice c;
    GError *error = NULL;
    g_assert_false(fennel_library_choose("ompi-9", "allreduce", 4, 8, &c, &error));
    g_assert_cmpstr(error->message, ==,
                    "unknown library 'ompi-9' (known: ompi-1.6, ompi-3, ompi-4, ompi-5, mpich-3, "
                    "mpich-4, nccl)");
    g_clear_error(&error);
    g_assert_false(fennel_library_choose("ompi-4", "barrier", 4, 8, &c, &error));
    g_assert_cmpstr(error->message, ==,
                    "ompi-4: no table for the collective 'barrier' (tables: allreduce, bcast, "
                    "reduce, allgather, alltoall, reduce_scatter, gather, scatter)");
    g_clear_error(&error);
    g_assert_false(fennel_library_choose("mpich-3", "allgather", 4, 8, &c, &error));
    g_assert_cmpstr(error->message, ==,
                    "mpich-3: no table for the collective 'allgather' (tables: allreduce, bcast, "
                    "reduce)");
    g_clear_error(&error);
    g_assert_false(fennel_library_choose("ompi-3", "barrier", 4, 8, &c, &error));
    g_assert_cmpstr(error->message, ==,
                    "ompi-3: no table for the collective 'barrier' (tables: allreduce, bcast, "
                    "reduce, allgather, alltoall, reduce_scatter, gather, scatter)");
    g_clear_error(&error);
    /* Open MPI 3.1's nonoverlapping at 100000 ranks, 370728 B: its reduce in 1 KiB segments,
     * its bcast a pipeline in 8 KiB segments; allreduce-nonoverlapping takes one size. */
    g_assert_true(fennel_library_choose("ompi-3", "allreduce", 100000, 370728, &c, &error));
    g_assert_null(fennel_library_generator("ompi-3", "allreduce", &c, &error));
    g_assert_cmpstr(error->message, ==,
                    "ompi-3 allreduce runs nonoverlapping, which no generator of fennel performs "
                    "yet");
    g_clear_error(&error);
    char *line = fennel_library_describe("ompi-3", "allreduce", 100000, 370728, &c);
    g_assert_true(g_str_has_prefix(line, "ompi-3 allreduce, 100000 ranks, 370728 B: "
                                         "nonoverlapping (coll_tuned_decision_fixed.c v3.1.6 "
                                         "line 84: "));
    g_assert_nonnull(strstr(line, "its reduce: binomial (coll_tuned_decision_fixed.c v3.1.6 "
                                  "line 396"));
    g_free(line);
}

/* Open MPI 5's coll/han (coll_han_component.c v5.0.10: priority 35 over coll/tuned's 30):
 * when ranks share nodes (ppn > 1), span more than one, and every node holds ppn of them;
 * one segment up to 65536 B (the *_segsize defaults), pipelined above. */
static void test_ompi5_han(void)
{
    FennelLibraryChoice c;
    GError *error = NULL;
    const char *colls[] = {"allreduce", "bcast", "reduce"};
    const char *gens[] = {"allreduce-smp", "bcast-smp", "reduce-smp"};
    for (int k = 0; k < 3; k++) {
        /* 16 ranks, 4 per node: 4 nodes; 65536 B is one segment, 65537 B two. */
        g_assert_true(fennel_library_choose_on("ompi-5", colls[k], 16, 4, 65536, &c, &error));
        g_assert_cmpstr(c.algorithm, ==, "han");
        g_assert_cmpstr(c.generator, ==, gens[k]);
        g_assert_cmpint(c.segment, ==, 0);
        /* Above it, coll/han's pipeline: the SMP generators with --segment 65536. */
        g_assert_true(fennel_library_choose_on("ompi-5", colls[k], 16, 4, 65537, &c, &error));
        g_assert_cmpstr(c.algorithm, ==, "han");
        g_assert_cmpstr(c.generator, ==, gens[k]);
        g_assert_cmpint(c.segment, ==, 65536);
        g_assert_cmpint(fennel_library_generator_segment(&c), ==, 65536);
        /* 16 ranks, one per node: coll/tuned's table (HAN with empty node steps: not
         * modelled). */
        g_assert_true(fennel_library_choose_on("ompi-5", colls[k], 16, 1, 64, &c, &error));
        g_assert_cmpstr(c.algorithm, !=, "han");
        /* 16 ranks on one node of 16: HAN disqualifies itself. */
        g_assert_true(fennel_library_choose_on("ompi-5", colls[k], 16, 16, 64, &c, &error));
        g_assert_cmpstr(c.algorithm, !=, "han");
        /* 17 ranks, 16 per node: 2 nodes, 16 and 1, different sizes: coll/tuned. */
        g_assert_true(fennel_library_choose_on("ompi-5", colls[k], 17, 16, 64, &c, &error));
        g_assert_cmpstr(c.algorithm, !=, "han");
        /* Open MPI 4.1's coll/han has priority 0: ompi-4 stays with coll/tuned. */
        g_assert_true(fennel_library_choose_on("ompi-4", colls[k], 16, 4, 64, &c, &error));
        g_assert_cmpstr(c.algorithm, !=, "han");
    }
    /* 2 nodes of 2: the smallest layout HAN takes. */
    g_assert_true(fennel_library_choose_on("ompi-5", "allreduce", 4, 2, 8, &c, &error));
    g_assert_cmpstr(c.generator, ==, "allreduce-smp");
    /* HAN's allgather (gather, allgather among leaders, bcast; coll_han_allgather.c line 72)
     * moves the whole buffer at each level, unsegmented at any size: allgather-smp. */
    g_assert_true(fennel_library_choose_on("ompi-5", "allgather", 16, 4, 64, &c, &error));
    g_assert_cmpstr(c.algorithm, ==, "han");
    g_assert_cmpstr(c.generator, ==, "allgather-smp");
    g_assert_cmpint(c.segment, ==, 0);
    g_assert_true(fennel_library_choose_on("ompi-5", "allgather", 16, 4, 1 << 20, &c, &error));
    g_assert_cmpstr(c.generator, ==, "allgather-smp");
    g_assert_cmpint(c.segment, ==, 0);
    /* Nodes of different sizes (line 97) or one node: coll/tuned's choice. */
    g_assert_true(fennel_library_choose_on("ompi-5", "allgather", 18, 4, 64, &c, &error));
    g_assert_cmpstr(c.algorithm, !=, "han");
    g_assert_true(fennel_library_choose_on("ompi-5", "allgather", 16, 16, 64, &c, &error));
    g_assert_cmpstr(c.algorithm, !=, "han");
    g_assert_no_error(error);
}

/* NCCL v2.30.7's tuning model (src/graph/tuning.cc, src/enqueue.cc) on the machine of
 * docs/LIBRARIES.md, worked by hand from the figures cited there; time in us = latency +
 * bytes / (1000 x algorithm bandwidth in GB/s).
 *
 * One node of 8 GPUs (graph: 12 channels x 30 GB/s = bus 360; llMaxBw 141; 24 channels):
 *   ring, 14 steps, algbw = bus x 8/14:  LL min(141, 180) = 141 -> 80.571, lat 6.6 + 14 x 0.6
 *   = 15.0; LL128 min(331.2, 12 x 36.7) = 331.2 -> 189.257, lat 14 + 14 x 1.9 = 40.6; Simple
 *   360 -> 205.714, lat 8.4 + 14 x 3.4 = 56.0. Tree (bus min(331.2, 464.4) = 331.2, algbw /2,
 *   times the correction factor): LL 43.58, lat 15.2; LL128 128.8, lat 31.5; Simple 165.6, lat
 *   64.4: never the fastest here. LL/LL128 cross at 25.6 / (1/80571 - 1/189257) = 3.59e6 B,
 *   LL128/Simple at 15.4 / (1/189257 - 1/205714) = 3.64e7 B:
 *   3 MiB: LL 54.04, LL128 57.22; 4 MiB: LL 67.06, LL128 62.76; 32 MiB: LL128 217.9, Simple
 *   219.1; 40 MiB: LL128 262.2, Simple 259.9.
 *   Channels (ring LL: threshold 8 x 8 ranks, 512 threads): the most c <= 24 with bytes >=
 *   c x 32768, at least 1: 65535 B -> 1, 65536 -> 2, 98303 -> 2, 98304 -> 3.
 *
 * Two nodes of 8 (graph: 8 x 45 = bus 360; Intel CPU, 2 nodes: llMaxBw 39; 16 channels):
 *   ring, 30 steps, x 16/30: LL 20.8, lat 6.6 + 28 x max(0.6, 1.0) + 2 x 2.7 = 40.0; LL128
 *   min(331.2, 8 x 36.7 = 293.6) -> 156.587, lat 14 + 28 x 1.9 + 2 x 4.0 = 75.2; Simple 192,
 *   lat (8.4 + 28 x 3.4 + 2 x 14) x 1.4 = 184.24 (the plateau: bytes / (16 x 16) >= 64).
 *   tree (bus min(331.2, 8 x 41.4) = 331.2, /2): LL min(87.16, 39) / 2 = 19.5, lat 6.8 + 2 x
 *   (7 x 0.6 + 5.0) = 25.2; LL128 min(310.5, 293.6) / 2 = 146.8, lat 14 + 2 x (7 x 1.25 +
 *   8.5) = 48.5; Simple 165.6, lat 92.4.
 *   From 131072 to 262143 B the corrections are LL .5, LL128 .6: tree LL = 25.2 + n / 9750,
 *   tree LL128 = 48.5 + n / 88080, equal at n = 255452: 250000 B LL 50.84, LL128 51.34;
 *   260000 B LL 51.87, LL128 51.45 (ring LL 52.5).
 *   From 16 to 32 MiB tree LL128 is x .9 (132120): 48.5 + n / 132120 against ring LL128 75.2 +
 *   n / 156587, equal at 2.258e7 B: 20 MiB tree 207.2, ring 209.1; 24 MiB tree 239.0, ring
 *   235.9. Ring LL128 against Simple: equal at 109.04 / (1/156587 - 1/192000) = 9.26e7 B:
 *   80 MiB LL128 610.9, Simple 621.2; 96 MiB LL128 718.1, Simple 708.5.
 *   Channels (tree LL: 512 threads x 8): 8191 B -> 1, 8192 -> 2, 61439 -> 14, 61440 -> 15.
 *
 * Four nodes of 8 (the figures of more than 2 nodes: llMaxBw 20.4; caps 36.7 ring LL128,
 * 29.0 tree LL128, 36.0 tree): ring, 62 steps, x 32/62: LL 10.529, lat 6.6 + 56 x 1.0 + 6 x 2.7
 *   = 78.8; LL128 min(331.2, 293.6) -> 151.535, lat 14 + 56 x 1.9 + 6 x 4.0 = 144.4; Simple
 *   185.806, lat (8.4 + 56 x 3.4 + 6 x 14) x 1.4 = 395.92. tree (bus min(331.2, 288) = 288):
 *   LL 20.4 / 2 = 10.2, lat 6.8 + 2 x (7 x 0.6 + 2 x 5.0) = 35.2; LL128 min(270, 232) / 2 =
 *   116, lat 14 + 2 x (7 x 1.25 + 2 x 8.5) = 65.5; Simple 144, lat 120.4.
 *   131072..262143 B (LL .5, LL128 .6): 35.2 + n / 5100 = 65.5 + n / 69600 at n = 166749:
 *   160000 B LL 66.57, LL128 67.80; 175000 B LL 69.51, LL128 68.01.
 *   16..32 MiB (LL128 .9): tree 65.5 + n / 104400 against ring LL128 144.4 + n / 151535,
 *   equal at 2.648e7 B: 24 MiB tree 306.6, ring 310.5; 28 MiB tree 346.7, ring 338.2.
 *   Ring LL128 against Simple: 251.52 / (1/151535 - 1/185806) = 2.066e8 B: 192 MiB LL128
 *   1473.0, Simple 1479.5; 224 MiB LL128 1694.4, Simple 1660.0.
 *
 * Four nodes of 1 GPU: the network latency is the tree's for the ring too. ring, 6 steps,
 *   x 4/6: LL 13.6, lat 6.6 + 6 x 5.0 = 36.6. tree (no GPU inside a node, log2 4 = 2): LL
 *   10.2, lat 6.8 + 2 x 2 x 5.0 = 26.8; LL128 116 (x .6 = 69600 here), lat 48.0. 65536..131071
 *   B (LL .6: 6120): tree LL 26.8 + n / 6120 = ring LL 36.6 + n / 13600 at n = 109047:
 *   100000 B tree 43.14, ring 43.95; 120000 B tree 46.41, ring 45.42 (tree LL128 49.4, 49.7).
 *   Channels: tree LL min(16, 100000 / 4096) = 16; ring LL 120000 / (512 x 8 x 4) -> 7.
 *
 * NVLS (Simple only, 16 channels: nvlsChannels of SM90). The NVLS graph (docs/LIBRARIES.md,
 * NVLS's graph): 8 channels, one a GPU, each taking bwIntra once from every GPU's 18 x 20.6 =
 * 370.8 GB/s of NVLink and twice from its head's: 9 bwIntra <= 370.8, so bwIntra 40 (50 and,
 * across nodes, 48, 45 and 42 do not fit); bwInter 60 on one node (raised from 40 while below
 * 2 x 40), 48 across nodes (PCIe Gen5 x16). Bus bandwidth per channel: 40 x 0.85 x 7/8 x 2 =
 * 59.5, within bwInter (twice it for NVLS_TREE on 2 nodes) and NVLS_TREE's cap (57.7 on 2
 * nodes, 45.5 on more); algbw = 8 x that x ranks / (2 (ranks - 1)).
 * One node: NVLS 476 x 8/14 = 272.0, lat 25 (NVLink). Against ring LL (80.571, 15.0): equal
 *   at 10 / (1/80571 - 1/272000) = 1144836 B: 1140000 B LL 29.149, NVLS 29.191; 1150000 B LL
 *   29.273, NVLS 29.228. From there on NVLS wins (272 and 25 us against LL128's 189.3 and
 *   40.6, Simple's 205.7 and 56): 4 MiB NVLS 40.42 (ring LL 67.06, LL128 62.76 above); 40 MiB
 *   NVLS 179.20 (LL128 262.22, Simple 259.89 above).
 * Two nodes: NVLS_TREE min(59.5, 96, 57.7) = 57.7 -> bus 461.6 x 16/30 = 246.187, lat 25 + 2 x
 *   1 x 20.9 = 66.8. Against tree LL128 from 2 to 4 MiB (x .6: 88080): equal at 18.3 /
 *   (1/88080 - 1/246187) = 2509821 B: 2500000 B tree 76.883, NVLS_TREE 76.955; 2520000 B tree
 *   77.110, NVLS_TREE 77.036. 20 MiB: NVLS_TREE 151.99 (tree LL128 207.23, ring LL128 209.13
 *   above); 96 MiB: 475.69 (ring LL128 718.06, Simple 708.53 above).
 * Four nodes: NVLS_TREE min(59.5, 48, 45.5) = 45.5 -> bus 364 x 32/62 = 187.871, lat 25 + 2 x
 *   2 x 20.9 = 108.6. Against tree LL128 (116 x its correction): from 4 to 8 MiB (x .8:
 *   92800) equal at 43.1 / (1/92800 - 1/187871) = 7903819 B: 7800000 B tree 149.55, NVLS_TREE
 *   150.12; 8000000 B tree 151.71, NVLS_TREE 151.18; at 8 MiB the correction rises to .9
 *   (104400): 8388608 B tree 145.85, NVLS_TREE 153.25; equal again at 43.1 / (1/104400 -
 *   1/187871) = 10127494 B: 10100000 B tree 162.24, NVLS_TREE 162.36; 10200000 B tree 163.20,
 *   NVLS_TREE 162.89. 224 MiB: NVLS_TREE 1358.83 (ring LL128 1694.41, Simple 1660.04 above).
 * One GPU a node: no NVLS (ncclNvlsInit needs 2 GPUs a node); above 8 GPUs a node neither
 *   (the H100 server's search is not derived there). */
static void nccl_pick_on(gboolean nvls, uint32_t ranks, uint32_t ppn, int64_t bytes,
                         const char *algorithm, const char *variant, int channels)
{
    FennelLibraryChoice c;
    GError *error = NULL;
    const FennelLibraryMachine machine = {.ppn = ppn, .nvls = nvls};
    g_assert_true(
        fennel_library_choose_at("nccl", "allreduce", ranks, &machine, bytes, &c, &error));
    g_assert_no_error(error);
    g_assert_cmpstr(c.algorithm, ==, algorithm);
    g_assert_cmpstr(c.variant, ==, variant);
    if (channels)
        g_assert_cmpint(c.channels, ==, channels);
    g_assert_cmpstr(c.generator, ==,
                    strcmp(algorithm, "ring") == 0        ? "nccl-ring"
                    : strcmp(algorithm, "nvls") == 0      ? "nccl-nvls"
                    : strcmp(algorithm, "nvls-tree") == 0 ? "nccl-nvls-tree"
                                                          : "nccl-tree");
}

/* On the H100 server, whose NVSwitch reduces (NVLink SHARP). */
static void nccl_pick(uint32_t ranks, uint32_t ppn, int64_t bytes, const char *algorithm,
                      const char *variant, int channels)
{
    nccl_pick_on(TRUE, ranks, ppn, bytes, algorithm, variant, channels);
}

/* On a machine whose NVLink switch does not reduce (an A100's, a PCIe H100's): no NVLS nor
 * NVLS_TREE among the candidates (ncclNvlsInit), so the ring's and tree's picks above. */
static void nccl_plain(uint32_t ranks, uint32_t ppn, int64_t bytes, const char *algorithm,
                       const char *variant, int channels)
{
    nccl_pick_on(FALSE, ranks, ppn, bytes, algorithm, variant, channels);
}

/* The times the choice lists (its `why`), each "NAME/PROTOCOL T us" to 0.1 us. */
static void nccl_times(uint32_t ranks, uint32_t ppn, int64_t bytes, const char *const *times)
{
    FennelLibraryChoice c;
    GError *error = NULL;
    const FennelLibraryMachine machine = {.ppn = ppn, .nvls = TRUE};
    g_assert_true(
        fennel_library_choose_at("nccl", "allreduce", ranks, &machine, bytes, &c, &error));
    for (size_t i = 0; times[i]; i++) {
        if (strstr(c.why, times[i]) == NULL)
            g_test_fail_printf("%u ranks, %u a node, %" G_GINT64_FORMAT " B: no '%s' in '%s'",
                               ranks, ppn, bytes, times[i], c.why);
    }
}

/* NCCL's choice for the other collectives (tuning.cc, the same figures; docs/LIBRARIES.md),
 * `bytes` the generators' size (an allgather's block of one rank):
 *
 * One node of 8, allgather and reduce-scatter (7 steps, x 8/7; total bytes B):
 *   ring LL min(141, 180) x 8/7 = 161.143, lat 6.6 + 7 x 0.6 = 10.8; LL128 331.2 x 8/7 =
 *   378.514, lat 14 + 7 x 1.9 = 27.3; Simple 360 x 8/7 = 411.429, lat 8.4 + 7 x 3.4 = 32.2.
 *   LL = LL128 at 16.5 / (1/161143 - 1/378514) = 4.630e6 B: 4 MiB LL 36.83, LL128 38.38;
 *   5 MiB LL 43.34, LL128 41.15. LL128 = Simple at 4.9 / (1/378514 - 1/411429) = 2.318e7 B:
 *   2.3e7 LL128 88.06, Simple 88.10; 2.4e7 LL128 90.71, Simple 90.53 (no 1.4 plateau: an
 *   allreduce's only). Channels of LL (512 threads x 8 x 8 ranks): 65535 B -> 1, 65536 -> 2.
 * One node of 8, broadcast and reduce (8 steps, x 8/8; latency base + one NVLink hop):
 *   LL 141, lat 7.2; LL128 331.2, lat 15.9; Simple 360, lat 11.8. LL = Simple at 4.6 /
 *   (1/141000 - 1/360000) = 1.0662e6 B: 1 MiB LL 14.637, Simple 14.713; 1.1e6 LL 15.001,
 *   Simple 14.856 (LL128 is never the fastest).
 * Two nodes of 8, broadcast (16 steps, x 1; latency base + one network hop): LL 39, lat 9.3;
 *   LL128 min(331.2, 293.6) = 293.6, lat 18; Simple 360, lat 22.4. LL = LL128 at 8.7 /
 *   (1/39000 - 1/293600) = 391273 B: 380000 LL 19.04, LL128 19.29; 400000 LL 19.56, LL128
 *   19.36. LL128 = Simple at 4.4 / (1/293600 - 1/360000) = 7.004e6 B: 6.9e6 LL128 41.50,
 *   Simple 41.57; 7.1e6 LL128 42.18, Simple 42.12.
 * Four nodes of 1 GPU, allgather (3 steps, x 4/3; the network latency the tree's): ring LL
 *   20.4 x 4/3 = 27.2, lat 6.6 + 3 x 5.0 = 21.6; LL128 293.6 x 4/3 = 391.47, lat 14 + 3 x 8.5
 *   = 39.5; Simple 480, lat 50.4; PAT 360 x 0.75 = 270, lat 8 + 2 x 14 / 3.5 + 4 x 2.8 =
 *   27.2. LL = PAT at 5.6 / (1/27200 - 1/270000) = 169384 B: 40000 B a rank (160000) LL
 *   27.48, PAT 27.79; 45000 (180000) LL 28.22, PAT 27.87. PAT = LL128 at 12.3 / (1/270000 -
 *   1/391467) = 1.0703e7 B: 2.6e6 a rank PAT 65.72, LL128 66.07; 2.7e6 PAT 67.20, LL128
 *   67.09. PAT takes all 16 channels; ring LL at 160000 B: 160000 / (512 x 8 x 4) -> 9. */
static void nccl_other(const char *coll, uint32_t ranks, uint32_t ppn, int64_t bytes,
                       const char *algorithm, const char *variant, int channels,
                       const char *generator)
{
    FennelLibraryChoice c;
    GError *error = NULL;
    g_assert_true(fennel_library_choose_on("nccl", coll, ranks, ppn, bytes, &c, &error));
    g_assert_no_error(error);
    g_assert_cmpstr(c.algorithm, ==, algorithm);
    g_assert_cmpstr(c.variant, ==, variant);
    if (channels)
        g_assert_cmpint(c.channels, ==, channels);
    g_assert_cmpstr(c.generator, ==, generator);
}

static void test_nccl_others(void)
{
    const char *ag = "nccl-ring-allgather", *rs = "nccl-ring-reduce-scatter";
    nccl_other("allgather", 8, 8, 4194304 / 8, "ring", "ll", 24, ag);
    nccl_other("allgather", 8, 8, 5242880 / 8, "ring", "ll128", 24, ag);
    nccl_other("allgather", 8, 8, 23000000 / 8, "ring", "ll128", 24, ag);
    nccl_other("allgather", 8, 8, 24000000 / 8, "ring", "simple", 24, ag);
    nccl_other("allgather", 8, 8, 8191, "ring", "ll", 1, ag);
    nccl_other("allgather", 8, 8, 8192, "ring", "ll", 2, ag);
    nccl_other("reduce_scatter", 8, 8, 4194304, "ring", "ll", 24, rs);
    nccl_other("reduce-scatter", 8, 8, 5242880, "ring", "ll128", 24, rs);
    nccl_other("reduce_scatter", 8, 8, 65535, "ring", "ll", 1, rs);
    nccl_other("reduce_scatter", 8, 8, 65536, "ring", "ll", 2, rs);
    nccl_other("bcast", 8, 8, 1048576, "ring", "ll", 24, "nccl-ring-bcast");
    nccl_other("bcast", 8, 8, 1100000, "ring", "simple", 24, "nccl-ring-bcast");
    nccl_other("reduce", 8, 8, 1048576, "ring", "ll", 24, "nccl-ring-reduce");
    nccl_other("reduce", 8, 8, 1100000, "ring", "simple", 24, "nccl-ring-reduce");
    nccl_other("bcast", 16, 8, 380000, "ring", "ll", 0, "nccl-ring-bcast");
    nccl_other("bcast", 16, 8, 400000, "ring", "ll128", 0, "nccl-ring-bcast");
    nccl_other("bcast", 16, 8, 6900000, "ring", "ll128", 16, "nccl-ring-bcast");
    nccl_other("bcast", 16, 8, 7100000, "ring", "simple", 16, "nccl-ring-bcast");
    nccl_other("allgather", 4, 1, 40000, "ring", "ll", 9, ag);
    nccl_other("allgather", 4, 1, 45000, "pat", "simple", 16, "nccl-pat-allgather");
    nccl_other("allgather", 4, 1, 2600000, "pat", "simple", 16, "nccl-pat-allgather");
    nccl_other("allgather", 4, 1, 2700000, "ring", "ll128", 0, ag);
    nccl_other("reduce_scatter", 4, 1, 180000, "pat", "simple", 16, "nccl-pat-reduce-scatter");
    /* Alltoall, gather and scatter are point-to-point operations in NCCL, outside the
     * tuning model. */
    g_assert_false(fennel_library_covers("nccl", "alltoall"));
    g_assert_false(fennel_library_covers("nccl", "gather"));
    g_assert_true(fennel_library_covers("nccl", "reduce_scatter"));
}

/* NCCL's rows by architecture (docs/LIBRARIES.md, The machine), an allreduce worked by hand
 * from tuning.cc's tables and the graphs read from search.cc (time = latency + bytes / (1000 x
 * algorithm bandwidth), us; the tree's bandwidth x treeCorrectionFactor of floor(log2(B/64))):
 *
 * Ampere, Intel CPUs, 2 nodes of 8 GPUs, 4 NICs of 12.5 GB/s (p4de): the ring graph across
 *   nodes takes sm80's inter speeds within the NIC: 12 GB/s, one channel a NIC (4), below 25
 *   so not doubled; the communicator's 8. Bus 4 x 12 = 48. Ring LL min(39 (Intel, 2 nodes),
 *   24) x 16/30 = 12.8, lat 6.6 + 28 x max(0.6, 1 (overhead)) + 2 x 2.7 = 40; LL128 min(44.16,
 *   4 x 20) x 16/30 = 23.552, lat 14 + 28 x 1.9 + 2 x 4 = 75.2; Simple 25.6, lat (8.4 + 28 x
 *   3.4 + 2 x 14) x 1.4 = 184.24. The tree's graph on 2 nodes raises bwIntra through 15, 18,
 *   20 to 24 (twice 12; 4 x 24 within 12 x 20): bus min(96 x .92, 4 x 23.6) = 88.32; LL
 *   min(88.32 / 3.8, 39) x .5 = 11.621, lat 6.8 + 2 (7 x 0.6 + 5) = 25.2; LL128 min(88.32 x
 *   120/128, 4 x 20) x .5 = 40, lat 14 + 2 (7 x 1.25 + 8.5) = 48.5; Simple 44.16, lat 8.4 + 2
 *   (7 x 4 + 14) = 92.4. Tree LL (x .5) = ring LL at 14.8 / (1/5810.5 - 1/12800) = 157491
 *   B; ring LL = tree LL128 (x .6) at 8.5 / (1/12800 - 1/24000) = 233143 B; tree LL128
 *   against Simple from 2^21 B (x 1 and .9: 40 against 39.744) to 512 MiB, where the
 *   corrections end (floor(log2(B/64)) 23) and Simple's 44.16 wins. Channels: 8, but ring
 *   LL below 8 x 512 x 8 x 16 B and tree LL below 8 x 512 x 8 B.
 * Hopper, Arm CPUs, 2 nodes of 4 GPUs, 4 NICs of 25 GB/s (alps-gh200): 24 GB/s (sm90's inter
 *   speeds), 4 channels, not doubled; 8. Bus 96. Ring LL min(39 (Arm: row 0), 48) x 8/14 =
 *   22.286, lat 6.6 + 12 x 1 + 2 x 2.7 = 24; LL128 88.32 x 8/14 = 50.469, lat 14 + 12 x 1.9 +
 *   8 = 44.8; Simple 54.857, lat (8.4 + 12 x 3.4 + 28) x 1.4 = 108.08. The tree's bwIntra
 *   raised through 30, 40, 42, 45 to 48 (twice 24): bus min(176.64, 4 x 41.4) = 165.6; LL
 *   min(43.58, 39) x .5 = 19.5, lat 6.8 + 2 (3 x 0.6 + 5) = 20.4; LL128 min(155.25, 4 x 36.7)
 *   x .5 = 73.4, lat 14 + 2 (3 x 1.25 + 8.5) = 38.5; Simple 82.8, lat 8.4 + 2 (12 + 14) =
 *   60.4. Tree LL (x .6) = ring LL at 3.6 / (1/11700 - 1/22285.7) = 88674 B; ring LL = tree
 *   LL128 (x .6: 44040) at 14.5 / (1/22285.7 - 1/44040) = 654163 B; tree LL128 = ring LL128
 *   at 6.3 / (1/44040 - 1/50468.6) = 2178372 B; at 4 MiB the tree's factor rises to .8
 *   (109.9 us against 127.9); at 128 MiB tree Simple (x .9: 1861.5 us) passes LL128 (x 1:
 *   1867.1), below it LL128 x .9 2070.3 against Simple x .8 2086.6.
 * Ampere, AMD CPUs, 2 nodes of 8, 8 NICs of 25 GB/s (dgx-a100): 24 GB/s (sm80), 8 channels,
 *   not doubled; 16. Bus 192 (the tree's 8 x 30: bwIntra raised through 28 to 30, 8 x 30 in 12 x
 *   20). AMD's row: tree LL min(188.8 / 3.8, 22.5) x .5 = 11.25 (39 and 19.5 with Intel's),
 *   lat 25.2; tree LL128 min(188.8 x 120/128, 8 x 20) x .5 = 80, lat
 *   14 + 2 (7 x 1.25 + 8.5) = 48.5. Tree LL = LL128 at 148463.5 B (x .6 and .8: 25.2 + B /
 *   6750 = 48.5 + B / 64000); ring LL128 min(176.64, 160) x 16/30 = 85.333, lat 14 + 28 x
 *   max(1.9, 2 (AMD's overhead)) + 8 = 78; Simple 102.4, lat (8.4 + 28 x 6 + 28) x 1.4 =
 *   286.16: LL128 = Simple at 208.16 / (1/85333 - 1/102400) = 106578218 B.
 * Blackwell, 2 nodes of 8, 8 NICs of 50 GB/s: 48 GB/s (sm100: PCIe Gen5 x16), 8 channels,
 *   not doubled; 16. Tree LL128 min(min(353.28, 8 x 42.8) x 120/128, 8 x 31.67) x .5 = 126.68,
 *   lat 48.5. NVLS_TREE: 8 channels at the fastest sm100 inter speed with 9 x s <= 18 x 40.1
 *   (80), bwInter 48: min(80 x .74 x 7/8 x 2, 2 x 48, 96) = 96, bus 768 x 16/30 = 409.6, lat
 *   25 + 2 x 20.9 = 66.8. With Arm CPUs: equal to tree LL128 (x .6 from 1 MiB) at 18.3 /
 *   (1/76008 - 1/409600) = 1707937.5 B; with x86 CPUs NVLS_TREE takes treeCorrectionFactor
 *   too (Simple, x .5 at 1-2 MiB: 204.8), so tree LL128 holds to 2 MiB, where both rise to
 *   .6 (tree 76008 / .6 x .6, NVLS_TREE 245760): 2097152 B tree 76.09, NVLS_TREE 75.33.
 * Blackwell, one node of 72 (gb200-nvl72): the NVLS graph's 32 heads at the fastest sm100
 *   intra speed with 33 x s <= 721.8 (20), bwInter raised to 40: min(20 x .74 x 31/32 x 2,
 *   40) = 28.675 x 32 = 917.6, x 72/142 = 465.26 GB/s, lat 25; the ring graph 8 x 90 in 721.8,
 *   doubled to 16 x 45: ring LL min(282, 360) x 72/142 = 142.99, lat 6.6 + 142 x 0.6 = 91.8;
 *   tree LL lat 92: NVLS from the smallest size. 1 GiB: NVLS 2332.8 us, ring Simple (720 x
 *   72/142 = 365.07, lat 8.4 + 142 x 3.4 = 491.2) 3432.4 us; NVLS's 24 channels
 *   (NVLS_NCHANNELS_SM100_NVL). */
static void nccl_arch(FennelGpuArch gpu, FennelCpuArch cpu, uint32_t nics, double nic,
                      gboolean nvls, uint32_t ranks, uint32_t ppn, int64_t bytes,
                      const char *algorithm, const char *variant, int channels)
{
    FennelLibraryChoice c;
    GError *error = NULL;
    const FennelLibraryMachine machine = {ppn, nvls, gpu, cpu, nics, nic};
    g_assert_true(
        fennel_library_choose_at("nccl", "allreduce", ranks, &machine, bytes, &c, &error));
    g_assert_no_error(error);
    if (strcmp(c.algorithm, algorithm) != 0 || strcmp(c.variant, variant) != 0 ||
        (channels && c.channels != channels))
        g_test_fail_printf("%s/%s, %u ranks, %" G_GINT64_FORMAT " B: %s %s %d, not %s %s %d",
                           fennel_gpu_arch_name(gpu), fennel_cpu_arch_name(cpu), ranks, bytes,
                           c.algorithm, c.variant, c.channels, algorithm, variant, channels);
}

static void test_nccl_arch(void)
{
    const FennelGpuArch a = FENNEL_GPU_ARCH_SM80, h = FENNEL_GPU_ARCH_SM90,
                        b = FENNEL_GPU_ARCH_SM100;
    const FennelCpuArch intel = FENNEL_CPU_ARCH_INTEL, amd = FENNEL_CPU_ARCH_AMD,
                        arm = FENNEL_CPU_ARCH_ARM;
    nccl_arch(a, intel, 4, 12.5, FALSE, 16, 8, 157000, "tree", "ll", 0);
    nccl_arch(a, intel, 4, 12.5, FALSE, 16, 8, 158000, "ring", "ll", 2);
    nccl_arch(a, intel, 4, 12.5, FALSE, 16, 8, 232000, "ring", "ll", 3);
    nccl_arch(a, intel, 4, 12.5, FALSE, 16, 8, 234000, "tree", "ll128", 8);
    nccl_arch(a, intel, 4, 12.5, FALSE, 16, 8, 536870911, "tree", "ll128", 8);
    nccl_arch(a, intel, 4, 12.5, FALSE, 16, 8, 536870912, "tree", "simple", 8);
    /* NVLS needs SM90: no NVLS on Ampere whatever the topology says */
    nccl_arch(a, intel, 4, 12.5, TRUE, 16, 8, 536870912, "tree", "simple", 8);
    nccl_arch(h, arm, 4, 25, FALSE, 8, 4, 88000, "tree", "ll", 0);
    nccl_arch(h, arm, 4, 25, FALSE, 8, 4, 89500, "ring", "ll", 0);
    nccl_arch(h, arm, 4, 25, FALSE, 8, 4, 650000, "ring", "ll", 8);
    nccl_arch(h, arm, 4, 25, FALSE, 8, 4, 658000, "tree", "ll128", 8);
    nccl_arch(h, arm, 4, 25, FALSE, 8, 4, 2170000, "tree", "ll128", 8);
    nccl_arch(h, arm, 4, 25, FALSE, 8, 4, 2190000, "ring", "ll128", 8);
    nccl_arch(h, arm, 4, 25, FALSE, 8, 4, 4194304, "tree", "ll128", 8);
    nccl_arch(h, arm, 4, 25, FALSE, 8, 4, 134217727, "tree", "ll128", 8);
    nccl_arch(h, arm, 4, 25, FALSE, 8, 4, 134217728, "tree", "simple", 8);
    nccl_arch(a, amd, 8, 25, FALSE, 16, 8, 148000, "tree", "ll", 0);
    nccl_arch(a, amd, 8, 25, FALSE, 16, 8, 149000, "tree", "ll128", 0);
    nccl_arch(a, intel, 8, 25, FALSE, 16, 8, 149000, "tree", "ll", 0);
    nccl_arch(a, amd, 8, 25, FALSE, 16, 8, 106000000, "ring", "ll128", 16);
    nccl_arch(a, amd, 8, 25, FALSE, 16, 8, 107000000, "ring", "simple", 16);
    nccl_arch(b, arm, 8, 50, TRUE, 16, 8, 1700000, "tree", "ll128", 16);
    nccl_arch(b, arm, 8, 50, TRUE, 16, 8, 1720000, "nvls-tree", "simple", 32);
    nccl_arch(b, intel, 8, 50, TRUE, 16, 8, 1720000, "tree", "ll128", 16);
    nccl_arch(b, intel, 8, 50, TRUE, 16, 8, 2097151, "tree", "ll128", 16);
    nccl_arch(b, intel, 8, 50, TRUE, 16, 8, 2097152, "nvls-tree", "simple", 32);
    nccl_arch(b, arm, 72, 50, TRUE, 72, 72, 8, "nvls", "simple", 24);
    nccl_arch(b, arm, 72, 50, TRUE, 72, 72, 1 << 30, "nvls", "simple", 24);
    nccl_arch(b, arm, 72, 50, FALSE, 72, 72, 1 << 30, "ring", "simple", 32);
    FennelLibraryChoice c;
    GError *error = NULL;
    const FennelLibraryMachine rack = {72, TRUE, b, arm, 72, 50};
    g_assert_true(fennel_library_choose_at("nccl", "allreduce", 72, &rack, 1 << 30, &c, &error));
    if (strstr(c.why, "ring/Simple 3432.4 us, nvls/Simple 2332.8 us") == NULL ||
        strstr(c.why, "(sm100 GPUs, arm CPUs)") == NULL)
        g_test_fail_printf("%s", c.why);
}

static void test_nccl(void)
{
    nccl_pick(8, 8, 1140000, "ring", "ll", 24);
    nccl_pick(8, 8, 1150000, "nvls", "simple", 16);
    nccl_pick(8, 8, 4 << 20, "nvls", "simple", 16);
    nccl_times(8, 8, 4 << 20,
               (const char *const[]){"ring/LL 67.1 us", "ring/LL128 62.8 us", "nvls/Simple 40.4 us",
                                     NULL});
    nccl_pick(8, 8, 40 << 20, "nvls", "simple", 16);
    nccl_times(8, 8, 40 << 20,
               (const char *const[]){"ring/LL128 262.2 us, ring/Simple 259.9 us, nvls/Simple "
                                     "179.2 us",
                                     NULL});
    nccl_pick(8, 8, 65535, "ring", "ll", 1);
    nccl_pick(8, 8, 65536, "ring", "ll", 2);
    nccl_pick(8, 8, 98303, "ring", "ll", 2);
    nccl_pick(8, 8, 98304, "ring", "ll", 3);
    nccl_pick(16, 8, 250000, "tree", "ll", 0);
    nccl_pick(16, 8, 260000, "tree", "ll128", 0);
    nccl_pick(16, 8, 2500000, "tree", "ll128", 16);
    nccl_pick(16, 8, 2520000, "nvls-tree", "simple", 16);
    nccl_pick(16, 8, 20 << 20, "nvls-tree", "simple", 16);
    nccl_times(16, 8, 20 << 20,
               (const char *const[]){"tree/LL128 207.2 us", "ring/LL128 209.1 us",
                                     "nvls-tree/Simple 152.0 us", NULL});
    nccl_pick(16, 8, 96 << 20, "nvls-tree", "simple", 16);
    nccl_times(16, 8, 96 << 20,
               (const char *const[]){"ring/LL128 718.1 us, ring/Simple 708.5 us, nvls-tree/Simple "
                                     "475.7 us",
                                     NULL});
    nccl_pick(16, 8, 8191, "tree", "ll", 1);
    nccl_pick(16, 8, 8192, "tree", "ll", 2);
    nccl_pick(16, 8, 61439, "tree", "ll", 14);
    nccl_pick(16, 8, 61440, "tree", "ll", 15);
    nccl_pick(32, 8, 160000, "tree", "ll", 0);
    nccl_pick(32, 8, 175000, "tree", "ll128", 0);
    nccl_pick(32, 8, 7800000, "tree", "ll128", 16);
    nccl_pick(32, 8, 8000000, "nvls-tree", "simple", 16);
    nccl_pick(32, 8, 8388608, "tree", "ll128", 16);
    nccl_pick(32, 8, 10100000, "tree", "ll128", 16);
    nccl_pick(32, 8, 10200000, "nvls-tree", "simple", 16);
    nccl_pick(32, 8, 224 << 20, "nvls-tree", "simple", 16);
    nccl_times(32, 8, 224 << 20,
               (const char *const[]){"ring/LL128 1694.4 us, ring/Simple 1660.0 us, "
                                     "nvls-tree/Simple 1358.8 us",
                                     NULL});
    /* 8 nodes of 9 GPUs, 1 GiB: no NVLS above 8 GPUs a node; ring Simple 360 x 72/142 =
     * 182.5 GB/s (5.9 ms) against tree Simple 144 (7.5 ms) and ring LL128 148.9. */
    nccl_pick(72, 9, 1 << 30, "ring", "simple", 16);
    /* The same sizes where the NVLink switch does not reduce: the ring's and the tree's picks
     * worked above (one node: LL/LL128 at 3.59e6 B, LL128/Simple at 3.64e7 B; two nodes: tree
     * LL128 to 2.258e7 B, ring LL128 to 9.26e7 B; four nodes: 2.648e7 B and 2.066e8 B). */
    nccl_plain(8, 8, 1150000, "ring", "ll", 24);
    nccl_plain(8, 8, 3 << 20, "ring", "ll", 24);
    nccl_plain(8, 8, 4 << 20, "ring", "ll128", 24);
    nccl_plain(8, 8, 32 << 20, "ring", "ll128", 24);
    nccl_plain(8, 8, 40 << 20, "ring", "simple", 24);
    nccl_plain(16, 8, 2520000, "tree", "ll128", 16);
    nccl_plain(16, 8, 20 << 20, "tree", "ll128", 16);
    nccl_plain(16, 8, 24 << 20, "ring", "ll128", 16);
    nccl_plain(16, 8, 80 << 20, "ring", "ll128", 16);
    nccl_plain(16, 8, 96 << 20, "ring", "simple", 16);
    nccl_plain(32, 8, 8000000, "tree", "ll128", 16);
    nccl_plain(32, 8, 24 << 20, "tree", "ll128", 16);
    nccl_plain(32, 8, 28 << 20, "ring", "ll128", 16);
    nccl_plain(32, 8, 192 << 20, "ring", "ll128", 16);
    nccl_plain(32, 8, 224 << 20, "ring", "simple", 16);
    /* fennel_library_choose_on is the machine without NVLink SHARP */
    FennelLibraryChoice plain;
    GError *err = NULL;
    g_assert_true(fennel_library_choose_on("nccl", "allreduce", 8, 8, 4 << 20, &plain, &err));
    g_assert_cmpstr(plain.algorithm, ==, "ring");
    nccl_pick(4, 1, 100000, "tree", "ll", 16);
    nccl_pick(4, 1, 120000, "ring", "ll", 7);
    nccl_pick(4, 0, 120000, "ring", "ll", 7); /* no --ppn: one GPU per node */
    FennelLibraryChoice c;
    GError *error = NULL;
    g_assert_false(fennel_library_choose_on("nccl", "allreduce", 12, 8, 1024, &c, &error));
    g_assert_cmpstr(error->message, ==,
                    "nccl allreduce: 12 ranks is not a multiple of --ppn 8 (GPUs per node)");
    g_clear_error(&error);
    g_assert_false(fennel_library_choose("nccl", "alltoall", 8, 1024, &c, &error));
    g_assert_cmpstr(error->message, ==,
                    "nccl: no table for the collective 'alltoall' (tables: allreduce, "
                    "allgather, reduce_scatter, bcast, reduce)");
    g_clear_error(&error);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/library/ompi4-tables", test_ompi4_tables);
    g_test_add_func("/library/ompi4-fallbacks", test_ompi4_fallbacks);
    g_test_add_func("/library/ompi4-allgather", test_ompi4_allgather);
    g_test_add_func("/library/ompi4-others", test_ompi4_others);
    g_test_add_func("/library/ompi5-han", test_ompi5_han);
    g_test_add_func("/library/ompi3", test_ompi3);
    g_test_add_func("/library/ompi3-reduce", test_ompi3_reduce);
    g_test_add_func("/library/ompi3-allgather", test_ompi3_allgather);
    g_test_add_func("/library/ompi3-others", test_ompi3_others);
    g_test_add_func("/library/ompi16", test_ompi16);
    g_test_add_func("/library/ompi3_alltoall", test_ompi3_alltoall);
    g_test_add_func("/library/mpich3", test_mpich3);
    g_test_add_func("/library/mpich4", test_mpich4);
    g_test_add_func("/library/errors", test_errors);
    g_test_add_func("/library/nccl", test_nccl);
    g_test_add_func("/library/nccl-others", test_nccl_others);
    g_test_add_func("/library/nccl-arch", test_nccl_arch);
    return g_test_run();
}
