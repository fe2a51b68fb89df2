// What sets pipeline-chain, pipeline-binary-tree and knomial apart beyond delivering the
// data (verify_all_test.cpp checks that): their round counts, O(1) transfers per rank, and
// knomial at radix 2 being exactly the binomial tree.
#include <gtest/gtest.h>

#include <tuple>

#include <leancast/analysis.hpp>

namespace leancast {
namespace {

using OperationKey = std::tuple<std::uint32_t, Direction, int, std::uint64_t, std::uint64_t>;

std::vector<OperationKey> operations(const AlgorithmSpec& spec, const BcastShape& shape, int rank) {
  std::vector<OperationKey> keys;
  for (const Operation& op : expand(make_schedule(spec, shape, rank))) {
    keys.emplace_back(op.round, op.direction, op.peer, op.bytes.offset, op.bytes.length);
  }
  return keys;
}

TEST(Knomial, RadixTwoIsTheBinomialTree) {
  for (int procs = 1; procs <= 70; ++procs) {
    for (int root : {0, procs / 3, procs - 1}) {
      const BcastShape shape{procs, root, 1000};
      for (int rank = 0; rank < procs; ++rank) {
        ASSERT_EQ(operations({Algorithm::knomial, 2}, shape, rank),
                  operations(Algorithm::binomial, shape, rank))
            << "P=" << procs << " root=" << root << " rank=" << rank;
      }
    }
  }
}

TEST(Knomial, RoundsAreTheDepthInBaseK) {
  // ceil(log_k P) rounds; the root sends k - 1 messages per round while they fit.
  EXPECT_EQ(plan_totals({Algorithm::knomial, 4}, {64, 0, 100}).steps, 3u);
  EXPECT_EQ(plan_totals({Algorithm::knomial, 4}, {65, 0, 100}).steps, 4u);
  EXPECT_EQ(plan_totals({Algorithm::knomial, 3}, {27, 5, 100}).steps, 3u);
  EXPECT_EQ(plan_totals({Algorithm::knomial, 100}, {50, 0, 100}).steps, 1u);  // linear
  EXPECT_EQ(make_schedule({Algorithm::knomial, 4}, {64, 0, 100}, 0).transfers.size(), 9u);
  EXPECT_EQ(plan_totals({Algorithm::knomial, 5}, {37, 3, 100}).transfers, 36u);  // a tree
}

TEST(Pipelines, RoundCountsFollowTheSegments) {
  // 1 MiB in 64 KiB segments: S = 16.
  EXPECT_EQ(plan_totals(Algorithm::pipeline_chain, {10, 3, 1 << 20}).steps, 10u - 2 + 16);
  EXPECT_EQ(plan_totals({Algorithm::pipeline_chain, 1000}, {7, 0, 10000}).steps, 7u - 2 + 10);
  // depth floor(log2 P): 3 at P = 8 .. 15.
  EXPECT_EQ(plan_totals(Algorithm::pipeline_binary_tree, {15, 2, 1 << 20}).steps, 3u + 16 - 1);
  EXPECT_EQ(plan_totals(Algorithm::pipeline_binary_tree, {8, 0, 1 << 20}).steps, 3u + 16 - 1);
  // A segment larger than the message: one segment, P - 1 rounds for the chain.
  EXPECT_EQ(plan_totals(Algorithm::pipeline_chain, {6, 0, 100}).steps, 5u);
}

TEST(Pipelines, EachLinkCarriesEveryByteOnce) {
  const std::uint64_t bytes = 1'000'003;
  const PlanTotals chain = plan_totals({Algorithm::pipeline_chain, 4096}, {33, 7, bytes});
  EXPECT_EQ(chain.bytes_moved, 32 * bytes);
  EXPECT_EQ(chain.transfers, 32u * 245);  // ceil(1000003 / 4096) = 245 segments
  const PlanTotals tree = plan_totals({Algorithm::pipeline_binary_tree, 4096}, {33, 7, bytes});
  EXPECT_EQ(tree.bytes_moved, 32 * bytes);
}

TEST(Pipelines, ScheduleSizeDoesNotGrowWithTheSegments) {
  for (int rank = 0; rank < 20; ++rank) {
    EXPECT_LE(
        make_schedule({Algorithm::pipeline_chain, 1}, {20, 4, 1 << 20}, rank).transfers.size(), 2u);
    EXPECT_LE(make_schedule({Algorithm::pipeline_binary_tree, 1}, {20, 4, 1 << 20}, rank)
                  .transfers.size(),
              3u);
  }
}

TEST(Pipelines, OneByteSegmentsUpToFortyRanksEveryRoot) {
  for (int procs = 1; procs <= 40; ++procs) {
    for (int root = 0; root < procs; ++root) {
      for (const Algorithm algorithm :
           {Algorithm::pipeline_chain, Algorithm::pipeline_binary_tree, Algorithm::two_tree}) {
        const VerifyReport report = verify_schedule({algorithm, 1}, {procs, root, 3u * procs + 2});
        ASSERT_TRUE(report.ok()) << to_string(algorithm) << " P=" << procs << " root=" << root
                                 << ": " << report.problems.front();
      }
    }
  }
}

TEST(Pipelines, SegmentCountIsCappedSoProgramsStayBounded) {
  // 2^30 one-byte segments would be 2^30 operations per rank; the cap is 2^20 segments.
  const RankSchedule schedule = make_schedule({Algorithm::pipeline_chain, 1}, {3, 0, 1u << 30}, 1);
  EXPECT_EQ(schedule.layout().block_count(), std::uint64_t{1} << 20);
  const PlanTotals totals = plan_totals({Algorithm::pipeline_chain, 1}, {3, 0, 1u << 30});
  EXPECT_EQ(totals.bytes_moved, std::uint64_t{2} << 30);
  EXPECT_EQ(totals.steps, 1u + (1u << 20));
}

TEST(Pipelines, NoRankReceivesASegmentTwice) {
  for (const Algorithm algorithm :
       {Algorithm::pipeline_chain, Algorithm::pipeline_binary_tree, Algorithm::two_tree}) {
    for (int procs : {2, 3, 8, 13, 64}) {
      const VerifyReport report = verify_schedule({algorithm, 100}, {procs, 1, 3001});
      ASSERT_TRUE(report.ok()) << report.problems.front();
      EXPECT_EQ(report.redundant_bytes, 0u) << to_string(algorithm) << " P=" << procs;
    }
  }
}

// With P = 2^h the m = P - 1 non-root ranks fill both in-order trees completely, and the
// second tree's inner ranks are exactly the first one's leaves: a rank forwards in one tree.
TEST(TwoTree, AtPowersOfTwoEveryRankForwardsInOneTreeAtMost) {
  for (int procs : {4, 8, 16, 64, 256}) {
    const std::uint64_t segments = 10;  // 5 per tree: the second tree's blocks start at 5
    int forwards_in_both = 0, forwarding = 0;
    for (int rank = 1; rank < procs; ++rank) {
      bool first = false, second = false;
      for (const Transfer& t :
           make_schedule({Algorithm::two_tree, 1}, {procs, 0, segments}, rank).transfers) {
        if (t.direction != Direction::send) continue;
        (t.first_block < segments / 2 ? first : second) = true;
      }
      forwards_in_both += first && second;
      forwarding += first || second;
    }
    EXPECT_EQ(forwards_in_both, 0) << "P=" << procs;
    EXPECT_EQ(forwarding, procs - 2) << "P=" << procs;  // all but one rank forward
  }
}

TEST(Parameters, ParseDefaultsAndRoundTrip) {
  EXPECT_EQ(parse_algorithm_spec("knomial"), (AlgorithmSpec{Algorithm::knomial, 4}));
  EXPECT_EQ(parse_algorithm_spec("knomial:8"), (AlgorithmSpec{Algorithm::knomial, 8}));
  EXPECT_EQ(parse_algorithm_spec("pipeline_chain:128K"),
            (AlgorithmSpec{Algorithm::pipeline_chain, 128 << 10}));
  EXPECT_EQ(parse_algorithm_spec("pipeline-binary-tree"),
            (AlgorithmSpec{Algorithm::pipeline_binary_tree, 64 << 10}));
  EXPECT_EQ(parse_algorithm_spec("opt"), AlgorithmSpec(Algorithm::scatter_ring_tuned));
  EXPECT_EQ(to_string(AlgorithmSpec(Algorithm::pipeline_chain)), "pipeline-chain:64K");
  EXPECT_EQ(to_string(AlgorithmSpec{Algorithm::pipeline_chain, 1000}), "pipeline-chain:1000");
  EXPECT_EQ(to_string(AlgorithmSpec{Algorithm::pipeline_chain, 3 << 20}), "pipeline-chain:3M");
  EXPECT_EQ(to_string(AlgorithmSpec(Algorithm::binomial)), "binomial");
  for (Algorithm a : concrete_algorithms()) {
    EXPECT_EQ(parse_algorithm_spec(to_string(AlgorithmSpec(a))), AlgorithmSpec(a));
  }
  EXPECT_EQ(parse_algorithm("knomial"), Algorithm::knomial);
  EXPECT_FALSE(parse_algorithm("knomial:4"));  // parse_algorithm takes plain names only
}

TEST(Parameters, BadParametersSayWhy) {
  const auto error_of = [](std::string_view text) {
    std::string error;
    EXPECT_FALSE(parse_algorithm_spec(text, &error)) << text;
    return error;
  };
  EXPECT_EQ(error_of("knomial:1"),
            "knomial: the radix must be an integer from 2 to 1048576 (got 1)");
  EXPECT_EQ(error_of("knomial:0"),
            "knomial: the radix must be an integer from 2 to 1048576 (got 0)");
  EXPECT_EQ(error_of("knomial:4K"), "knomial: radix '4K' is not an integer");
  EXPECT_EQ(error_of("knomial:"), "knomial: radix '' is not an integer");
  EXPECT_EQ(error_of("pipeline-chain:0"),
            "pipeline-chain: the segment size must be from 1 byte to 1G (got 0)");
  EXPECT_EQ(error_of("pipeline-chain:-5"),
            "pipeline-chain: segment size '-5' is not a size (e.g. 65536, 64K, 1M)");
  EXPECT_EQ(error_of("binomial:2"), "binomial takes no parameter (got 'binomial:2')");
  EXPECT_EQ(error_of("auto:2"), "auto takes no parameter (got 'auto:2')");
  EXPECT_EQ(error_of("chain:2"), "unknown algorithm 'chain' (known: " + algorithm_names() + ")");
  EXPECT_EQ(parameter_problem({Algorithm::knomial, 1}),
            "knomial: the radix must be an integer from 2 to 1048576 (got 1)");
  EXPECT_EQ(parameter_problem({Algorithm::binomial, 3}), "binomial takes no parameter");
  EXPECT_EQ(parameter_problem(Algorithm::knomial), "");
  EXPECT_THROW(make_schedule({Algorithm::knomial, 1}, {4, 0, 10}, 0), std::invalid_argument);
  EXPECT_THROW(make_schedule({Algorithm::pipeline_chain, 0}, {4, 0, 10}, 0), std::invalid_argument);
}

}  // namespace
}  // namespace leancast
