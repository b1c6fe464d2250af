/* Every generator, in the order `fennel list` shows them. A new generator is a gen_*.c
 * file defining a FennelGenerator, declared and listed here. */
#include "generator.h"

extern const FennelGenerator fennel_gen_pingpong;
extern const FennelGenerator fennel_gen_send;
extern const FennelGenerator fennel_gen_fetch;
extern const FennelGenerator fennel_gen_multicast;
extern const FennelGenerator fennel_gen_rta;
extern const FennelGenerator fennel_gen_rat;
extern const FennelGenerator fennel_gen_partitioned;
extern const FennelGenerator fennel_gen_compute;
extern const FennelGenerator fennel_gen_bsp;
extern const FennelGenerator fennel_gen_allreduce_tree;
extern const FennelGenerator fennel_gen_reduce_binomial;
extern const FennelGenerator fennel_gen_bcast_binomial;
extern const FennelGenerator fennel_gen_bcast_knomial;
extern const FennelGenerator fennel_gen_bcast_binary;
extern const FennelGenerator fennel_gen_bcast_ring;
extern const FennelGenerator fennel_gen_bcast_pipeline;
extern const FennelGenerator fennel_gen_bcast_linear;
extern const FennelGenerator fennel_gen_reduce_linear;
extern const FennelGenerator fennel_gen_allreduce_linear;
extern const FennelGenerator fennel_gen_allreduce_nonoverlapping;
extern const FennelGenerator fennel_gen_bcast_bmtree;
extern const FennelGenerator fennel_gen_bcast_scatter_rd_allgather;
extern const FennelGenerator fennel_gen_scatter_binomial;
extern const FennelGenerator fennel_gen_gather_binomial;
extern const FennelGenerator fennel_gen_scatter_linear;
extern const FennelGenerator fennel_gen_gather_linear;
extern const FennelGenerator fennel_gen_gather_linear_sync;
extern const FennelGenerator fennel_gen_barrier_dissemination;
extern const FennelGenerator fennel_gen_allreduce_rabenseifner;
extern const FennelGenerator fennel_gen_reduce_rabenseifner;
extern const FennelGenerator fennel_gen_reduce_scatter_halving;
extern const FennelGenerator fennel_gen_reduce_scatter_nonoverlapping;
extern const FennelGenerator fennel_gen_allreduce_ring;
extern const FennelGenerator fennel_gen_allreduce_ring_segmented;
extern const FennelGenerator fennel_gen_nccl_ring;
extern const FennelGenerator fennel_gen_nccl_tree;
extern const FennelGenerator fennel_gen_nccl_ring_allgather, fennel_gen_nccl_ring_reduce_scatter;
extern const FennelGenerator fennel_gen_nccl_ring_bcast, fennel_gen_nccl_ring_reduce;
extern const FennelGenerator fennel_gen_nccl_pat_allgather, fennel_gen_nccl_pat_reduce_scatter;
extern const FennelGenerator fennel_gen_nccl_nvls;
extern const FennelGenerator fennel_gen_nccl_nvls_tree;
extern const FennelGenerator fennel_gen_nccl_collnet;
extern const FennelGenerator fennel_gen_allreduce_pairwise;
extern const FennelGenerator fennel_gen_allreduce_hier;
extern const FennelGenerator fennel_gen_allreduce_smp, fennel_gen_bcast_smp, fennel_gen_reduce_smp;
extern const FennelGenerator fennel_gen_allgather_smp;
extern const FennelGenerator fennel_gen_reduce_scatter_ring;
extern const FennelGenerator fennel_gen_reduce_scatter_pairwise;
extern const FennelGenerator fennel_gen_allgather_ring;
extern const FennelGenerator fennel_gen_alltoall_pairwise;
extern const FennelGenerator fennel_gen_alltoall_linear;
extern const FennelGenerator fennel_gen_alltoall_bruck;
extern const FennelGenerator fennel_gen_alltoall_scattered;
extern const FennelGenerator fennel_gen_bcast_scatter_allgather;
extern const FennelGenerator fennel_gen_allreduce_binary_blocks;
extern const FennelGenerator fennel_gen_allgather_bruck;
extern const FennelGenerator fennel_gen_allgather_neighbor_exchange;
extern const FennelGenerator fennel_gen_reduce_bintree;
extern const FennelGenerator fennel_gen_reduce_inorder_binary;
extern const FennelGenerator fennel_gen_reduce_pipeline;
extern const FennelGenerator fennel_gen_bcast_split_bintree;
extern const FennelGenerator fennel_gen_allreduce_elimination;
extern const FennelGenerator fennel_gen_allreduce_mo;
extern const FennelGenerator fennel_gen_allgather_mo;
extern const FennelGenerator fennel_gen_scatter_mo;
extern const FennelGenerator fennel_gen_allreduce_rd;
extern const FennelGenerator fennel_gen_allreduce_rm;
extern const FennelGenerator fennel_gen_allgather_rd;
extern const FennelGenerator fennel_gen_allgather_rm;
extern const FennelGenerator fennel_gen_training;

const FennelGenerator *const fennel_generators[] = {
    &fennel_gen_pingpong,
    &fennel_gen_send,
    &fennel_gen_fetch,
    &fennel_gen_multicast,
    &fennel_gen_rta,
    &fennel_gen_rat,
    &fennel_gen_partitioned,
    &fennel_gen_compute,
    &fennel_gen_bsp,
    &fennel_gen_allreduce_tree,
    &fennel_gen_reduce_binomial,
    &fennel_gen_bcast_binomial,
    &fennel_gen_bcast_knomial,
    &fennel_gen_bcast_binary,
    &fennel_gen_bcast_ring,
    &fennel_gen_bcast_pipeline,
    &fennel_gen_bcast_linear,
    &fennel_gen_reduce_linear,
    &fennel_gen_allreduce_linear,
    &fennel_gen_allreduce_nonoverlapping,
    &fennel_gen_bcast_bmtree,
    &fennel_gen_bcast_scatter_rd_allgather,
    &fennel_gen_scatter_binomial,
    &fennel_gen_gather_binomial,
    &fennel_gen_scatter_linear,
    &fennel_gen_gather_linear,
    &fennel_gen_gather_linear_sync,
    &fennel_gen_barrier_dissemination,
    &fennel_gen_allreduce_rabenseifner,
    &fennel_gen_reduce_rabenseifner,
    &fennel_gen_reduce_scatter_halving,
    &fennel_gen_reduce_scatter_nonoverlapping,
    &fennel_gen_allreduce_ring,
    &fennel_gen_allreduce_ring_segmented,
    &fennel_gen_nccl_ring,
    &fennel_gen_nccl_tree,
    &fennel_gen_nccl_ring_allgather,
    &fennel_gen_nccl_ring_reduce_scatter,
    &fennel_gen_nccl_ring_bcast,
    &fennel_gen_nccl_ring_reduce,
    &fennel_gen_nccl_pat_allgather,
    &fennel_gen_nccl_pat_reduce_scatter,
    &fennel_gen_nccl_nvls,
    &fennel_gen_nccl_nvls_tree,
    &fennel_gen_nccl_collnet,
    &fennel_gen_allreduce_pairwise,
    &fennel_gen_allreduce_hier,
    &fennel_gen_allreduce_smp,
    &fennel_gen_bcast_smp,
    &fennel_gen_reduce_smp,
    &fennel_gen_allgather_smp,
    &fennel_gen_reduce_scatter_ring,
    &fennel_gen_reduce_scatter_pairwise,
    &fennel_gen_allgather_ring,
    &fennel_gen_alltoall_pairwise,
    &fennel_gen_alltoall_linear,
    &fennel_gen_alltoall_bruck,
    &fennel_gen_alltoall_scattered,
    &fennel_gen_bcast_scatter_allgather,
    &fennel_gen_allreduce_binary_blocks,
    &fennel_gen_allgather_bruck,
    &fennel_gen_allgather_neighbor_exchange,
    &fennel_gen_reduce_bintree,
    &fennel_gen_reduce_inorder_binary,
    &fennel_gen_reduce_pipeline,
    &fennel_gen_bcast_split_bintree,
    &fennel_gen_allreduce_elimination,
    &fennel_gen_allreduce_mo,
    &fennel_gen_allgather_mo,
    &fennel_gen_scatter_mo,
    &fennel_gen_allreduce_rd,
    &fennel_gen_allreduce_rm,
    &fennel_gen_allgather_rd,
    &fennel_gen_allgather_rm,
    &fennel_gen_training,
    NULL,
};
