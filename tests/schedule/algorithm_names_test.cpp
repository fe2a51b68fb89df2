#include <gtest/gtest.h>

#include <leancast/analysis.hpp>
#include "select/automatic.hpp"

namespace leancast {
namespace {

TEST(Names, RoundTripAndAliases) {
  for (Algorithm a : concrete_algorithms()) EXPECT_EQ(parse_algorithm(to_string(a)), a);
  EXPECT_EQ(parse_algorithm("auto"), Algorithm::automatic);
  EXPECT_EQ(parse_algorithm("native"), Algorithm::scatter_ring);
  EXPECT_EQ(parse_algorithm("opt"), Algorithm::scatter_ring_tuned);
  EXPECT_EQ(parse_algorithm("scatter_ring_tuned"), Algorithm::scatter_ring_tuned);
  EXPECT_FALSE(parse_algorithm("ring"));
  EXPECT_FALSE(parse_algorithm(""));
  EXPECT_FALSE(parse_algorithm("Binomial"));
}

TEST(Names, MpiIsAPseudoAlgorithmWithoutSchedule) {
  EXPECT_EQ(parse_algorithm("mpi"), Algorithm::mpi);
  EXPECT_EQ(to_string(Algorithm::mpi), "mpi");
  for (Algorithm a : concrete_algorithms()) EXPECT_NE(a, Algorithm::mpi);
  EXPECT_THROW(make_schedule(Algorithm::mpi, {4, 0, 100}, 0), std::invalid_argument);
  EXPECT_NE(algorithm_names().find("mpi"), std::string::npos);
}

TEST(Auto, FallbackFollowsMpichWithTheTunedRing) {
  EXPECT_EQ(select_mpich(7, 1 << 24), Algorithm::binomial);         // P < 8
  EXPECT_EQ(select_mpich(64, 12287), Algorithm::binomial);          // short
  EXPECT_EQ(select_mpich(64, 12288), Algorithm::scatter_doubling);  // medium, 2^k
  EXPECT_EQ(select_mpich(64, 524287), Algorithm::scatter_doubling);
  EXPECT_EQ(select_mpich(64, 524288), Algorithm::scatter_ring_tuned);  // long
  EXPECT_EQ(select_mpich(65, 12288), Algorithm::scatter_ring_tuned);   // medium, not 2^k
  EXPECT_EQ(select_mpich(8, 12288), Algorithm::scatter_doubling);
}

TEST(BlockLayoutTest, MpichChunkArithmetic) {
  const BlockLayout layout(10, 4);  // ceil(10/4) = 3: 3 3 3 1
  EXPECT_EQ(layout.block_bytes(), 3u);
  EXPECT_EQ(layout.range(3, 1), (ByteRange{9, 1}));
  EXPECT_EQ(layout.range(1, 2), (ByteRange{3, 6}));
  const BlockLayout sparse(2, 5);  // fewer bytes than blocks: 1 1 0 0 0
  EXPECT_EQ(sparse.range(2, 3).length, 0u);
  EXPECT_EQ(sparse.cyclic_bytes(4, 3), 2u);   // blocks 4, 0, 1
  EXPECT_EQ(layout.cyclic_bytes(2, 9), 23u);  // two full turns (20) and block 2 (3)
  EXPECT_THROW(layout.range(3, 2), std::out_of_range);
}

}  // namespace
}  // namespace leancast
