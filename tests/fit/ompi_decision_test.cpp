#include <models/collectives/ompi_decision.hpp>

#include <gtest/gtest.h>

using namespace ngx::fit;

// Rows of Open MPI 4.1's coll_tuned_decision_fixed.c, at and around their
// thresholds (a size or P equal to a threshold falls in the next step).
TEST(OmpiDecision, AllreduceFollowsTheTable)
{
    EXPECT_EQ(ompi_tuned_choice(CollectiveOp::allreduce, 3, 7).name, "ring");
    EXPECT_EQ(ompi_tuned_choice(CollectiveOp::allreduce, 3, 8).name, "recursive_doubling");
    EXPECT_EQ(ompi_tuned_choice(CollectiveOp::allreduce, 3, 262144).name, "rabenseifner");
    EXPECT_EQ(ompi_tuned_choice(CollectiveOp::allreduce, 4, 15).name, "ring"); // P = 4 starts the next row
    EXPECT_EQ(ompi_tuned_choice(CollectiveOp::allreduce, 64, 262143).name, "recursive_doubling");
    EXPECT_EQ(ompi_tuned_choice(CollectiveOp::allreduce, 64, 1 << 20).name, "rabenseifner");
    const OmpiChoice big = ompi_tuned_choice(CollectiveOp::allreduce, 10000, 1 << 20);
    EXPECT_EQ(big.id, 4);
    EXPECT_EQ(big.modeled, Algorithm::ring);
    const OmpiChoice small = ompi_tuned_choice(CollectiveOp::allreduce, 1024, 8);
    EXPECT_EQ(small.name, "nonoverlapping");
    EXPECT_EQ(small.modeled, Algorithm::binomial);
    EXPECT_FALSE(small.note.empty());
}

TEST(OmpiDecision, OtherOperations)
{
    EXPECT_EQ(ompi_tuned_choice(CollectiveOp::bcast, 2048, 1 << 20).name, "scatter_allgather");
    const OmpiChoice knomial = ompi_tuned_choice(CollectiveOp::bcast, 100, 64);
    EXPECT_EQ(knomial.name, "knomial");
    EXPECT_FALSE(knomial.modeled.has_value());
    EXPECT_EQ(ompi_tuned_choice(CollectiveOp::reduce, 100, 1 << 20).modeled, Algorithm::binomial);
    EXPECT_EQ(ompi_tuned_choice(CollectiveOp::allgather, 2, 1).name, "two_proc");
    EXPECT_EQ(ompi_tuned_choice(CollectiveOp::allgather, 16, 1 << 20).modeled, Algorithm::recursive_doubling);
    EXPECT_EQ(ompi_tuned_choice(CollectiveOp::alltoall, 8191, 1 << 20).name, "linear_sync");
    EXPECT_EQ(ompi_tuned_choice(CollectiveOp::alltoall, 8192, 1 << 20).name, "pairwise");
    EXPECT_EQ(ompi_tuned_choice(CollectiveOp::alltoall, 40, 100).modeled, Algorithm::bruck);
    // Open MPI linear and linear_sync (every request at once by default) are costed as ngx's linear alltoall.
    EXPECT_EQ(ompi_tuned_choice(CollectiveOp::alltoall, 4, 4096).name, "linear_sync");
    EXPECT_EQ(ompi_tuned_choice(CollectiveOp::alltoall, 4, 4096).modeled, Algorithm::linear);
    EXPECT_EQ(ompi_tuned_choice(CollectiveOp::alltoall, 8, 1 << 20).name, "linear");
    EXPECT_EQ(ompi_tuned_choice(CollectiveOp::alltoall, 8, 1 << 20).modeled, Algorithm::linear);
    EXPECT_EQ(ompi_tuned_choice(CollectiveOp::gather, 100, 1).modeled, Algorithm::binomial);
    EXPECT_EQ(ompi_tuned_choice(CollectiveOp::scatter, 100, 1 << 20).name, "linear_nb");
    EXPECT_EQ(ompi_tuned_choice(CollectiveOp::barrier, 100, 1).modeled, Algorithm::dissemination);
    EXPECT_EQ(ompi_tuned_choice(CollectiveOp::barrier, 5, 1).name, "linear");
}

TEST(OmpiDecision, SmallCountsFallBack)
{
    // 8 B over 16 ranks: the segmented ring, which runs recursive doubling for count < P.
    const OmpiChoice tiny = ompi_tuned_choice(CollectiveOp::allreduce, 16, 8);
    EXPECT_EQ(tiny.name, "segmented_ring");
    EXPECT_EQ(tiny.modeled, Algorithm::recursive_doubling);
    EXPECT_EQ(ompi_tuned_choice(CollectiveOp::allreduce, 16, 16, 1).modeled, Algorithm::ring); // 16 one-byte elements
    // Rabenseifner with fewer elements than the power of two below P runs linear (not modeled).
    EXPECT_EQ(ompi_tuned_choice(CollectiveOp::allreduce, 32, 128).name, "rabenseifner"); // 16 elements < 32
    EXPECT_FALSE(ompi_tuned_choice(CollectiveOp::allreduce, 32, 128).modeled.has_value());
    EXPECT_EQ(ompi_tuned_choice(CollectiveOp::allreduce, 64, 1 << 20).modeled, Algorithm::rabenseifner);
}

TEST(OmpiDecision, FixedRulesRunUnsegmented)
{
    // 1 MiB over 4 ranks: the chain, called with segsize 0 (one chain of
    // whole-buffer hops), so its model is the pipeline with a 1 MiB segment.
    const OmpiChoice chain = ompi_tuned_choice(CollectiveOp::bcast, 4, 1 << 20);
    EXPECT_EQ(chain.name, "chain");
    EXPECT_EQ(chain.modeled, Algorithm::pipeline);
    EXPECT_EQ(chain.segment_bytes, double(1 << 20));
    EXPECT_EQ(ompi_tuned_choice(CollectiveOp::bcast, 4, 65536).name, "basic_linear");
}
