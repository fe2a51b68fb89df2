// What sets circulant apart beyond delivering the data (verify_all_test.cpp checks that):
// N blocks in exactly N - 1 + ceil(log2 P) rounds, one send and one receive per rank and
// round, the same skips for every rank, and a schedule of O(log P) transfers per rank.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <utility>

#include <leancast/analysis.hpp>

namespace leancast {
namespace {

int ceil_log2(int p) {
  int q = 0;
  while ((1 << q) < p) ++q;
  return q;
}

TEST(Circulant, TakesTheRoundOptimalNumberOfRounds) {
  for (int procs = 2; procs <= 130; ++procs) {
    const int q = ceil_log2(procs);
    for (std::uint64_t blocks : {1, 2, 3, q, q + 1, 2 * q + 1, 37}) {
      const BcastShape shape{procs, procs / 3, 100000};
      EXPECT_EQ(plan_totals({Algorithm::circulant, blocks}, shape).steps, blocks - 1 + q)
          << "P=" << procs << " N=" << blocks;
    }
  }
}

TEST(Circulant, EachRankSendsAndReceivesAtMostOneBlockPerRound) {
  for (int procs : {2, 3, 6, 7, 12, 33, 64, 100}) {
    for (int rank = 0; rank < procs; ++rank) {
      std::map<std::pair<std::uint32_t, Direction>, int> per_round;
      for (const Operation& op :
           expand(make_schedule({Algorithm::circulant, 20}, {procs, 2 % procs, 5000}, rank))) {
        EXPECT_EQ(++per_round[std::pair(op.round, op.direction)], 1)
            << "P=" << procs << " rank " << rank;
        EXPECT_EQ(op.block_span, 1u);
      }
    }
  }
}

// Round i uses one skip for everybody: all messages of a round go the same distance.
TEST(Circulant, AllRanksUseTheSameSkipInARound) {
  const int procs = 45;
  std::map<std::uint32_t, std::set<int>> distances;
  for (int rank = 0; rank < procs; ++rank) {
    for (const Operation& op :
         expand(make_schedule({Algorithm::circulant, 17}, {procs, 0, 9000}, rank))) {
      if (op.direction == Direction::send)
        distances[op.round].insert((op.peer - rank + procs) % procs);
    }
  }
  const std::set<int> skips{1, 2, 3, 6, 12, 23};  // 45 halved, rounded up
  for (const auto& [round, seen] : distances) {
    EXPECT_EQ(seen.size(), 1u) << "round " << round;
    EXPECT_TRUE(skips.count(*seen.begin())) << "round " << round;
  }
}

TEST(Circulant, ScheduleSizeIsLogarithmicWhateverTheBlocks) {
  for (int procs : {5, 64, 1000}) {
    const int q = ceil_log2(procs);
    for (int rank : {0, 1, procs / 2, procs - 1}) {
      EXPECT_LE(
          make_schedule({Algorithm::circulant, 4096}, {procs, 0, 1 << 20}, rank).transfers.size(),
          static_cast<std::size_t>(4 * q));
    }
  }
}

TEST(Circulant, DefaultsToOneBlockPer64KiB) {
  EXPECT_EQ(make_schedule(Algorithm::circulant, {8, 0, 1 << 20}, 1).layout().block_count(), 16u);
  EXPECT_EQ(make_schedule(Algorithm::circulant, {8, 0, 100}, 1).layout().block_count(), 1u);
  // More blocks than bytes makes no sense: one byte per block at most.
  EXPECT_EQ(make_schedule({Algorithm::circulant, 64}, {8, 0, 10}, 1).layout().block_count(), 10u);
  EXPECT_EQ(to_string(AlgorithmSpec(Algorithm::circulant)), "circulant");
  EXPECT_EQ(to_string(AlgorithmSpec{Algorithm::circulant, 32}), "circulant:32");
}

// Blocks past the last one stand for the last block (Traeff's rule), so a rank may get the
// last block more than once; every other block arrives exactly once.
TEST(Circulant, OnlyTheLastBlockIsEverReceivedTwice) {
  for (int procs : {3, 5, 9, 17, 31, 64, 100}) {
    for (std::uint64_t blocks : {1, 4, 9, 30}) {
      const BcastShape shape{procs, 1, 100 * blocks};
      for (int rank = 0; rank < procs; ++rank) {
        std::map<std::uint64_t, int> received;
        for (const Operation& op :
             expand(make_schedule({Algorithm::circulant, blocks}, shape, rank))) {
          if (op.direction == Direction::recv) ++received[op.first_block];
        }
        for (const auto& [block, times] : received) {
          if (block + 1 < blocks) {
            EXPECT_EQ(times, 1) << "P=" << procs << " block " << block;
          }
        }
      }
    }
  }
}

TEST(Circulant, BlockCountParameter) {
  EXPECT_EQ(parse_algorithm_spec("circulant:48"), (AlgorithmSpec{Algorithm::circulant, 48}));
  std::string error;
  EXPECT_FALSE(parse_algorithm_spec("circulant:0", &error));
  EXPECT_EQ(error, "circulant: the block count must be an integer from 1 to 1048576 (got 0)");
  EXPECT_FALSE(parse_algorithm_spec("circulant:4K", &error));
  EXPECT_EQ(error, "circulant: block count '4K' is not an integer");
}

}  // namespace
}  // namespace leancast
